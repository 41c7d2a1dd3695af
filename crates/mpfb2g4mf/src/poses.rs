//! MakeHuman's poses and clips (`--pose`, a description's `pose` line, `--animation`): which
//! files a job reads (BVH files, MakeHuman's default skeleton for the body's leg length, the
//! rig's own `.mhskel` for its reference bones) and reading them; `stages::pose` poses a
//! character with them.

use crate::error::ConvertError;
use crate::expressions::{Library, located};
use crate::limits::{Kind, read_input_text_of};
use crate::options::PoseBake;
use makehuman_poses::{Bvh, MhSkel};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// MakeHuman's default skeleton, relative to the assets folder: the body's leg length, which
/// scales a pose's root move, is its `upperleg02.L` fitted to the body.
pub const DEFAULT_SKELETON: &str = "rigs/default.mhskel";

/// A BVH file's size at most (MakeHuman's poses are 30 KB; mocap clips a few MB).
const MOTION: Kind = Kind {
    name: "BVH motion or MakeHuman skeleton",
    max_bytes: 64 << 20,
};

/// One BVH a job reads: what it is called and where it is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MotionFile {
    /// The pose's or clip's name.
    pub name: String,
    /// The file.
    pub path: PathBuf,
    /// The frame a pose takes (0 for the first); clips take all.
    pub frame: usize,
    /// Whether a description's `pose` line named it (rather than a flag or a manifest key).
    pub described: bool,
}

/// What a job's poses and clips read.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct PoseFiles {
    /// The pose baked into the rest (or, for a description's line on a glTF output, written
    /// as a one-frame clip).
    pub bake: Option<MotionFile>,
    /// The clips, in the order asked.
    pub clips: Vec<MotionFile>,
    /// [`DEFAULT_SKELETON`] of the assets folder, when there is one.
    pub default_skeleton: Option<PathBuf>,
    /// The rig's own `rigs/RIG.mhskel` of the assets folder (game_engine, cmu_mb), when there
    /// is one.
    pub rig_skeleton: Option<PathBuf>,
}

impl PoseFiles {
    /// Every file read.
    pub fn files(&self) -> impl Iterator<Item = &Path> {
        self.bake
            .iter()
            .chain(&self.clips)
            .map(|m| m.path.as_path())
            .chain(self.default_skeleton.as_deref())
            .chain(self.rig_skeleton.as_deref())
    }
}

/// The pose to bake: `--pose` (where `none` ignores the description), else the description's
/// `pose` line (`poses/NAME.bvh`, by its stem), marked as the description's.
pub fn bake_choice(flag: Option<&PoseBake>, described: Option<&str>) -> Option<(PoseBake, bool)> {
    match (flag, described) {
        (Some(PoseBake::Ignore), _) | (None, None) => None,
        (Some(choice), _) => Some((choice.clone(), false)),
        (None, Some(line)) => {
            let name = Path::new(line.trim()).file_stem()?.to_str()?;
            Some((PoseBake::Named(name.to_owned()), true))
        }
    }
}

/// `poses/NAME.bvh`.
const POSES: Library = Library {
    folder: "poses",
    extension: "bvh",
    kind: "pose",
};

/// The files a job's poses and clips need: `bake` (with whether a description named it),
/// `clips`, for the rig named `rig`, in the assets folder `folder` (`None`: none found; a
/// named pose then cannot be found, files can).
pub fn resolve(
    bake: Option<(PoseBake, bool)>,
    clips: &[(String, PathBuf)],
    folder: Option<&Path>,
    rig: &str,
) -> Result<PoseFiles, ConvertError> {
    let bake = match bake {
        None | Some((PoseBake::Ignore, _)) => None,
        Some((PoseBake::Named(name), described)) => Some(MotionFile {
            path: named(folder, &name, described)?,
            name,
            frame: 0,
            described,
        }),
        Some((PoseBake::File(path, frame), described)) => Some(MotionFile {
            name: path
                .file_stem()
                .map_or_else(|| "pose".to_owned(), |s| s.to_string_lossy().into_owned()),
            path,
            frame,
            described,
        }),
    };
    let clips = clips
        .iter()
        .map(|(name, path)| MotionFile {
            name: name.clone(),
            path: path.clone(),
            frame: 0,
            described: false,
        })
        .collect();
    let in_folder = |relative: String| {
        folder
            .map(|f| f.join(relative))
            .filter(|path| path.is_file())
    };
    Ok(PoseFiles {
        bake,
        clips,
        default_skeleton: in_folder(DEFAULT_SKELETON.to_owned()),
        rig_skeleton: in_folder(format!("rigs/{rig}.mhskel"))
            .filter(|_| !rig.starts_with("default")),
    })
}

/// `poses/NAME.bvh` of `folder`, or an error naming the pose and near names.
fn named(folder: Option<&Path>, name: &str, described: bool) -> Result<PathBuf, ConvertError> {
    let asked = if described {
        "the description's `pose` line"
    } else {
        "--pose"
    };
    let Some(folder) = folder else {
        return Err(ConvertError::NoAssets {
            kind: asked.into(),
            name: name.to_owned(),
        });
    };
    POSES.file(folder, name, None, asked)
}

/// A BVH read, with what it is.
#[derive(Debug, Clone)]
pub struct LoadedMotion {
    /// Its name, file, frame and origin.
    pub file: MotionFile,
    /// The motion (shared by the jobs of a batch that read the file).
    pub bvh: Arc<Bvh>,
}

/// The poses, clips and skeletons a job reads, read.
#[derive(Debug, Clone, Default)]
pub struct LoadedPoses {
    /// The pose to bake (or write as a one-frame clip).
    pub bake: Option<LoadedMotion>,
    /// The clips.
    pub clips: Vec<LoadedMotion>,
    /// MakeHuman's default skeleton and its file.
    pub default_skeleton: Option<(PathBuf, Arc<MhSkel>)>,
    /// The rig's own `.mhskel` and its file.
    pub rig_skeleton: Option<(PathBuf, Arc<MhSkel>)>,
}

/// Reads a BVH file (at most `limit` bytes).
pub fn read_bvh(path: &Path, limit: u64) -> Result<Bvh, ConvertError> {
    located(
        path,
        makehuman_poses::parse_bvh(&read_input_text_of(path, limit, MOTION)?),
    )
}

/// Reads a `.mhskel` file (at most `limit` bytes).
pub fn read_skeleton(path: &Path, limit: u64) -> Result<MhSkel, ConvertError> {
    located(
        path,
        makehuman_poses::parse_mhskel(&read_input_text_of(path, limit, MOTION)?),
    )
}

impl LoadedPoses {
    /// Reads `files` through `bvh` and `skeleton` (each file read once per batch); a pose's
    /// frame must be in its file.
    pub fn load(
        files: &PoseFiles,
        bvh: impl Fn(&Path) -> Result<Arc<Bvh>, ConvertError>,
        skeleton: impl Fn(&Path) -> Result<Arc<MhSkel>, ConvertError>,
    ) -> Result<Self, ConvertError> {
        let motion = |file: &MotionFile| -> Result<LoadedMotion, ConvertError> {
            let bvh = bvh(&file.path)?;
            if file.frame >= bvh.frame_count() {
                return Err(ConvertError::BodyPose(format!(
                    "{}: frame {} asked, the file has {}",
                    file.path.display(),
                    file.frame + 1,
                    bvh.frame_count()
                )));
            }
            Ok(LoadedMotion {
                file: file.clone(),
                bvh,
            })
        };
        let skeleton = |path: &PathBuf| -> Result<(PathBuf, Arc<MhSkel>), ConvertError> {
            Ok((path.clone(), skeleton(path)?))
        };
        Ok(Self {
            bake: files.bake.as_ref().map(motion).transpose()?,
            clips: files.clips.iter().map(motion).collect::<Result<_, _>>()?,
            default_skeleton: files.default_skeleton.as_ref().map(skeleton).transpose()?,
            rig_skeleton: files.rig_skeleton.as_ref().map(skeleton).transpose()?,
        })
    }
}
