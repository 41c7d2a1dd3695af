//! MakeHuman's expressions as blend shapes (`--expression-shapes`): which files a job reads
//! (the assets folder's `expressions/*.mhpose`, MakeHuman's default skeleton and weights, the
//! face pose units) and reading them; `stages::expressions` makes the shapes on a body.

use crate::error::ConvertError;
use crate::limits::{Kind, read_input_text_of};
use crate::options::ExpressionShapes;
use makehuman_poses::{Bvh, MhPose, MhSkel};
use std::path::{Path, PathBuf};

/// The files MakeHuman computes expressions with, relative to the assets folder.
pub const MAKEHUMAN_FILES: [&str; 4] = [
    "rigs/default.mhskel",
    "rigs/default_weights.mhw",
    "poseunits/face-poseunits.bvh",
    "poseunits/face-poseunits.json",
];

/// An expression file's size at most (MakeHuman's are under 1 KB).
const EXPRESSION: Kind = Kind {
    name: "expression",
    max_bytes: 1 << 20,
};

/// A file of MakeHuman's skeleton, weights or pose units (the weights are 1.5 MB).
const MOTION: Kind = Kind {
    name: "MakeHuman skeleton, weights or pose-unit file",
    max_bytes: 64 << 20,
};

/// What a job's expression shapes read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExpressionFiles {
    /// The assets folder.
    pub folder: PathBuf,
    /// [`MAKEHUMAN_FILES`], found in it.
    pub makehuman: [PathBuf; 4],
    /// Each expression's shape name and file, in the order asked (`all`: by name).
    pub expressions: Vec<(String, PathBuf)>,
}

impl ExpressionFiles {
    /// Every file read.
    pub fn files(&self) -> impl Iterator<Item = &Path> {
        self.makehuman
            .iter()
            .map(PathBuf::as_path)
            .chain(self.expressions.iter().map(|(_, p)| p.as_path()))
    }
}

/// The expression names `expressions/` of `folder` holds (`NAME.mhpose`), sorted.
fn shipped_names(folder: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(folder.join("expressions"))
        .into_iter()
        .flatten()
        .flatten()
        .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
        .filter_map(|e| {
            let path = e.path();
            (path.extension()? == "mhpose")
                .then(|| path.file_stem()?.to_str().map(str::to_owned))?
        })
        .filter(|n| g4mf_writer::is_valid_name(n))
        .collect();
    names.sort();
    names
}

/// Refuses an assets folder lacking one of [`MAKEHUMAN_FILES`], naming each it lacks.
fn refuse_missing(folder: &Path) -> Result<(), ConvertError> {
    let missing: Vec<&str> = MAKEHUMAN_FILES
        .iter()
        .copied()
        .filter(|f| !folder.join(f).is_file())
        .collect();
    if missing.is_empty() {
        return Ok(());
    }
    Err(ConvertError::ExpressionFiles {
        folder: folder.to_path_buf(),
        missing: missing.join(", "),
    })
}

/// The files `asked` needs in the assets folder `folder` (`None`: no assets folder found).
pub fn resolve(
    asked: &ExpressionShapes,
    folder: Option<&Path>,
) -> Result<ExpressionFiles, ConvertError> {
    let shown = match asked {
        ExpressionShapes::All => "all".to_owned(),
        ExpressionShapes::Named(names) => names.join(","),
    };
    let Some(folder) = folder else {
        return Err(ConvertError::NoAssets {
            kind: "--expression-shapes".into(),
            name: shown,
        });
    };
    refuse_missing(folder)?;
    let available = shipped_names(folder);
    let names = match asked {
        ExpressionShapes::All => available.clone(),
        ExpressionShapes::Named(names) => names.clone(),
    };
    if names.is_empty() {
        return Err(ConvertError::ExpressionFiles {
            folder: folder.to_path_buf(),
            missing: "expressions/*.mhpose".into(),
        });
    }
    let mut expressions = Vec::with_capacity(names.len());
    for name in names {
        let path = folder.join("expressions").join(format!("{name}.mhpose"));
        if !path.is_file() {
            let near = location::near::near_names(&name, available.iter().map(String::as_str));
            return Err(ConvertError::UnknownAsset {
                kind: "expression".into(),
                name,
                asked: "--expression-shapes".into(),
                folder: folder.join("expressions"),
                note: if near.is_empty() {
                    String::new()
                } else {
                    format!(" (did you mean {}?)", near.join(", "))
                },
            });
        }
        expressions.push((name, path));
    }
    let makehuman = MAKEHUMAN_FILES.map(|f| folder.join(f));
    Ok(ExpressionFiles {
        folder: folder.to_path_buf(),
        makehuman,
        expressions,
    })
}

/// MakeHuman's skeleton, weights and pose units, and the expressions, read.
#[derive(Debug, Clone)]
pub struct LoadedExpressions {
    pub(crate) skeleton_file: PathBuf,
    pub(crate) skeleton: MhSkel,
    pub(crate) weights: Vec<makehuman_poses::json_files::BoneWeights>,
    pub(crate) units: Bvh,
    pub(crate) unit_names: Vec<String>,
    /// Each expression's shape name and pose.
    pub expressions: Vec<(String, MhPose)>,
}

pub(crate) fn located<T>(
    path: &Path,
    result: Result<T, makehuman_poses::PoseError>,
) -> Result<T, ConvertError> {
    result.map_err(|e| ConvertError::Motion(e.with_file(path)))
}

impl LoadedExpressions {
    /// Reads `files`, each at most `limit` bytes.
    pub fn load(files: &ExpressionFiles, limit: u64) -> Result<Self, ConvertError> {
        let [skeleton, weights, units, names] = &files.makehuman;
        let text = |path: &Path, kind: Kind| read_input_text_of(path, limit, kind);
        let expressions = files
            .expressions
            .iter()
            .map(|(name, path)| {
                let pose = located(
                    path,
                    makehuman_poses::parse_mhpose(&text(path, EXPRESSION)?),
                )?;
                Ok((name.clone(), pose))
            })
            .collect::<Result<Vec<_>, ConvertError>>()?;
        Ok(Self {
            skeleton_file: skeleton.clone(),
            skeleton: located(
                skeleton,
                makehuman_poses::parse_mhskel(&text(skeleton, MOTION)?),
            )?,
            weights: located(weights, makehuman_poses::parse_mhw(&text(weights, MOTION)?))?,
            units: located(units, makehuman_poses::parse_bvh(&text(units, MOTION)?))?,
            unit_names: located(
                names,
                makehuman_poses::parse_unit_names(&text(names, MOTION)?),
            )?,
            expressions,
        })
    }
}
