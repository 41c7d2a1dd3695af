//! Where the data folder and the assets folder came from ([`Source`], [`AssetsSource`]) and the
//! marker `data fetch` writes: named by the folders' finders and by their errors alike.

use serde::Serialize;

/// The file `data fetch` writes last into a folder it filled: its presence says every
/// required file was there when it was written.
pub const MARKER: &str = ".mpfb2g4mf-fetched.json";

/// Where a data folder came from, in the order they are looked at.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Source {
    /// `--mpfb-data` (or a manifest's `mpfb_data`).
    Flag,
    /// The data folder a rig file given by path sits in (`<data>/rigs/<kind>/rig.NAME.json`).
    RigFolder,
    /// `$MPFB_DATA`.
    Env,
    /// MPFB installed in Blender.
    Blender,
    /// The cache `data fetch` fills.
    Cache,
    /// A folder `data fetch --into` just filled (reported by that command only).
    Fetched,
}

impl std::fmt::Display for Source {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Source::Flag => "--mpfb-data",
            Source::RigFolder => "the rig file's data folder",
            Source::Env => "$MPFB_DATA",
            Source::Blender => "MPFB in Blender",
            Source::Cache => "the cache",
            Source::Fetched => "just fetched",
        })
    }
}

/// Where an assets folder came from, in the order they are looked at.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum AssetsSource {
    /// `--assets`.
    Flag,
    /// `$MAKEHUMAN_ASSETS`.
    Env,
    /// MPFB's user data folder in Blender (asset packs install there).
    MpfbUserData,
    /// MakeHuman 1.x's user data folder.
    MakeHumanUserData,
    /// The cache `data fetch --makehuman-assets` fills.
    Cache,
    /// A folder `data fetch --makehuman-assets --into` just filled (reported by that command
    /// only).
    Fetched,
}

impl std::fmt::Display for AssetsSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            AssetsSource::Flag => "--assets",
            AssetsSource::Env => "$MAKEHUMAN_ASSETS",
            AssetsSource::MpfbUserData => "MPFB's user data",
            AssetsSource::MakeHumanUserData => "MakeHuman's user data",
            AssetsSource::Cache => "the cache",
            AssetsSource::Fetched => "just fetched",
        })
    }
}
