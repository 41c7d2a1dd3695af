//! MakeHuman data on disk: where an MPFB data folder and a MakeHuman assets folder are, what
//! each serves, and (with the `fetch` feature) installing them on a machine that has neither.
//!
//! An MPFB data folder is MPFB 2's `data/` layout: `3dobjs/base.obj`, `rigs/{standard,rigify}/`,
//! `mesh_metadata/`, `targets/` (macro and detail targets, and the asset packs' `faceunits/` and
//! `visemes/`) and `poses/`. What each feature of the converter needs from it is one list,
//! [`Feature::required_files`], written once (`requirements.txt`); a folder is checked against
//! it before it is used, so a folder that lacks something is named with what it lacks instead
//! of failing later on a missing file.
//!
//! Folders are found in one order ([`locate`]): `--mpfb-data`, the data folder a rig file sits
//! in, `$MPFB_DATA`, MPFB installed in Blender, then the cache `data fetch` fills. A folder
//! named by the user (flag or environment) that is not a data folder is an error, never a
//! silent fallback; the cache counts only when complete (its marker is written last, after
//! every required file was checked), so a partial cache is never used half.

mod assets;
#[cfg(feature = "fetch")]
mod assets_lock;
mod error;
mod features;
mod folder;
mod places;
mod sources;

#[cfg(feature = "fetch")]
pub mod fetch;

pub use assets::{
    ASSET_FEATURES, ASSET_FOLDERS, AssetFeature, AssetFeatureStatus, AssetFolder, AssetsFolder,
    AssetsStatus, locate_assets,
};
pub use error::{DataError, summarize_missing};
pub use features::Feature;
pub use folder::{
    DataStatus, FeatureStatus, Marker, MpfbData, RigEntry, RigFiles, locate, rig_data_folder,
    rig_name, ships_t_pose, t_pose_path,
};
pub use makehuman_assets::AssetKind;
pub use places::{ASSETS_ENV, MPFB_DATA_ENV, Places};
pub use sources::{AssetsSource, MARKER, Source};
