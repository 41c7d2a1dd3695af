//! MakeHuman's expressions as blend shapes (`--expression-shapes`): which files a job reads
//! (the assets folder's `expressions/*.mhpose`, MakeHuman's default skeleton and weights, the
//! face pose units) and reading them, and for a `.vrm` which of its expressions come from them
//! ([`resolve_vrm`]); `stages::expressions` makes the shapes on a body.

use crate::error::ConvertError;
use crate::limits::{Kind, read_input_text_of};
use crate::options::{ExpressionBake, ExpressionShapes};
use crate::vrm::{FromMakeHuman, MAKEHUMAN_PRESETS, MakeHumanExpressions};
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

/// What a job's expressions read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExpressionFiles {
    /// The assets folder.
    pub folder: PathBuf,
    /// [`MAKEHUMAN_FILES`], found in it.
    pub makehuman: [PathBuf; 4],
    /// Each expression's shape name and file, in the order asked (`all`: by name).
    pub expressions: Vec<(String, PathBuf)>,
    /// The expression baked into the rest: its name and file.
    pub bake: Option<(String, PathBuf)>,
}

impl ExpressionFiles {
    /// Every file read.
    pub fn files(&self) -> impl Iterator<Item = &Path> {
        self.makehuman
            .iter()
            .map(PathBuf::as_path)
            .chain(self.expressions.iter().map(|(_, p)| p.as_path()))
            .chain(self.bake.iter().map(|(_, p)| p.as_path()))
    }
}

/// Whether `path` is an MPFB expression (`.json`) rather than MakeHuman's `.mhpose`.
pub fn is_mpfb_expression(path: &Path) -> bool {
    path.extension().is_some_and(|e| e == "json")
}

/// An MPFB expression (`--expression FILE.json`) read, with its face units' targets: baked
/// into the rest as the weighted sum of their displacements, as MPFB applies them.
#[derive(Debug, Clone)]
pub struct LoadedMpfbExpression {
    /// Its name (the file's stem).
    pub name: String,
    /// Each face unit it names that the face units have: its weight and target.
    pub units: Vec<(f64, std::sync::Arc<mpfb_body::Target>)>,
    /// The face units it names that MPFB's 52 lack (skipped, as MPFB skips them).
    pub unknown: Vec<String>,
}

impl LoadedMpfbExpression {
    /// Reads the MPFB expression at `path` (at most `limit` bytes) and its face units'
    /// targets from `face_units` through `target`.
    pub fn load(
        path: &Path,
        limit: u64,
        face_units: &Path,
        target: impl Fn(&Path) -> Result<std::sync::Arc<mpfb_body::Target>, ConvertError>,
    ) -> Result<Self, ConvertError> {
        let text = read_input_text_of(path, limit, EXPRESSION)?;
        let expression = located(path, makehuman_poses::parse_mpfb_expression(&text))?;
        let mut units = Vec::new();
        let mut unknown = Vec::new();
        for (unit, weight) in expression.face_units {
            if crate::shape_names::FACE_UNITS
                .iter()
                .any(|(f, _)| *f == unit)
            {
                units.push((weight, target(&face_units.join(format!("{unit}.target")))?));
            } else {
                unknown.push(unit);
            }
        }
        Ok(Self {
            name: path.file_stem().map_or_else(
                || "expression".to_owned(),
                |s| s.to_string_lossy().into_owned(),
            ),
            units,
            unknown,
        })
    }
}

/// The expression to bake: `--expression` (where `none` ignores the description), else the
/// description's `expression` line (`expressions/NAME.mhpose`, by its name).
pub fn bake_choice(
    flag: Option<&ExpressionBake>,
    described: Option<&str>,
) -> Option<ExpressionBake> {
    match (flag, described) {
        (Some(ExpressionBake::Ignore), _) | (None, None) => None,
        (Some(choice), _) => Some(choice.clone()),
        (None, Some(line)) => {
            let name = Path::new(line).file_stem()?.to_str()?;
            Some(ExpressionBake::Named(name.to_owned()))
        }
    }
}

/// A folder of named files in the assets folder: MakeHuman's expressions, its poses.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Library {
    /// The folder, relative to the assets folder.
    pub folder: &'static str,
    /// The files' extension.
    pub extension: &'static str,
    /// What a file is, for messages.
    pub kind: &'static str,
}

/// `expressions/NAME.mhpose`.
pub(crate) const EXPRESSIONS: Library = Library {
    folder: "expressions",
    extension: "mhpose",
    kind: "expression",
};

impl Library {
    /// The names its folder in `assets` holds (file stems that are G4MF names), sorted.
    pub(crate) fn names(self, assets: &Path) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(assets.join(self.folder))
            .into_iter()
            .flatten()
            .flatten()
            .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
            .filter_map(|e| {
                let path = e.path();
                (path.extension()? == self.extension)
                    .then(|| path.file_stem()?.to_str().map(str::to_owned))?
            })
            .filter(|n| g4mf_writer::is_valid_name(n))
            .collect();
        names.sort();
        names
    }

    /// `FOLDER/NAME.EXTENSION` of `assets`, or an error naming `asked` and the near names
    /// among `known` (the folder's names, listed when `None`).
    pub(crate) fn file(
        self,
        assets: &Path,
        name: &str,
        known: Option<&[String]>,
        asked: &str,
    ) -> Result<PathBuf, ConvertError> {
        let path = assets
            .join(self.folder)
            .join(format!("{name}.{}", self.extension));
        if path.is_file() {
            return Ok(path);
        }
        let listed;
        let available = match known {
            Some(known) => known,
            None => {
                listed = self.names(assets);
                &listed[..]
            }
        };
        let near = location::near::near_names(name, available.iter().map(String::as_str));
        Err(ConvertError::UnknownAsset {
            kind: self.kind.into(),
            name: location::text::excerpt(name, 80),
            asked: asked.into(),
            folder: assets.join(self.folder),
            note: if near.is_empty() {
                String::new()
            } else {
                format!(" (did you mean {}?)", near.join(", "))
            },
        })
    }
}

/// The files of [`MAKEHUMAN_FILES`] `folder` lacks.
fn missing_files(folder: &Path) -> Vec<&'static str> {
    MAKEHUMAN_FILES
        .iter()
        .copied()
        .filter(|f| !folder.join(f).is_file())
        .collect()
}

/// Refuses an assets folder lacking one of [`MAKEHUMAN_FILES`], naming each it lacks.
fn refuse_missing(folder: &Path) -> Result<(), ConvertError> {
    let missing = missing_files(folder);
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
    shapes: Option<&ExpressionShapes>,
    bake: Option<ExpressionBake>,
    folder: Option<&Path>,
) -> Result<ExpressionFiles, ConvertError> {
    let asked = if shapes.is_some() {
        "--expression-shapes"
    } else {
        "--expression"
    };
    let Some(folder) = folder else {
        return Err(ConvertError::NoAssets {
            kind: asked.into(),
            name: asked_names(shapes, bake.as_ref()),
        });
    };
    refuse_missing(folder)?;
    let available = EXPRESSIONS.names(folder);
    let names = match shapes {
        None => Vec::new(),
        Some(ExpressionShapes::All) => available.clone(),
        Some(ExpressionShapes::Named(names)) => names.clone(),
    };
    if shapes.is_some() && names.is_empty() {
        return Err(ConvertError::ExpressionFiles {
            folder: folder.to_path_buf(),
            missing: "expressions/*.mhpose".into(),
        });
    }
    let expressions = names
        .into_iter()
        .map(|name| {
            let path = EXPRESSIONS.file(folder, &name, Some(&available), "--expression-shapes")?;
            Ok((name, path))
        })
        .collect::<Result<Vec<_>, ConvertError>>()?;
    let bake = match bake {
        None | Some(ExpressionBake::Ignore) => None,
        Some(ExpressionBake::Named(name)) => {
            let path = EXPRESSIONS.file(folder, &name, Some(&available), "--expression")?;
            Some((name, path))
        }
        Some(ExpressionBake::File(path)) => {
            let name = bake_name(&ExpressionBake::File(path.clone()));
            Some((name, path))
        }
    };
    Ok(ExpressionFiles {
        folder: folder.to_path_buf(),
        makehuman: MAKEHUMAN_FILES.map(|f| folder.join(f)),
        expressions,
        bake,
    })
}

/// The assets folder a `.vrm` job found (`None`: none), or why it could not be looked up.
pub type VrmFolder = Result<Option<PathBuf>, ConvertError>;

/// What a `.vrm` job reads of MakeHuman's expressions and what it writes from them: the
/// expressions asked as shapes; with `presets`, the presets of [`MAKEHUMAN_PRESETS`] (their
/// expressions added as shapes) where `folder` has the pose units and that expression, the
/// recipes kept otherwise, with why; and the expression `asked` (`--expression` or the
/// description's line) as a shape and an expression instead of a bake: the preset whose table
/// entry it is, the preset it is named after, else a custom expression of its name. Without
/// `presets` (`--no-expressions`) a description's expression is not written, and said.
/// Whatever is asked needs its files, as for any output.
pub fn resolve_vrm(
    shapes: Option<&ExpressionShapes>,
    asked: Option<ExpressionBake>,
    presets: bool,
    folder: VrmFolder,
) -> Result<(Option<ExpressionFiles>, MakeHumanExpressions), ConvertError> {
    let mut made = MakeHumanExpressions::default();
    let asked = match asked {
        Some(ExpressionBake::Ignore) | None => None,
        Some(asked) if presets => Some(asked),
        // The flag with --no-expressions is refused with the settings: this is the line.
        Some(asked) => {
            made.not_written = Some(bake_name(&asked));
            None
        }
    };
    let folder = match presets_folder(shapes, asked.as_ref(), presets, folder)? {
        PresetsFolder::Found(folder) => folder,
        PresetsFolder::NoPresets(files) => return Ok((files, made)),
        PresetsFolder::Unavailable(why) => {
            made.recipes_kept = Some(why);
            return Ok((None, made));
        }
    };
    let mut files = resolve(shapes, None, Some(&folder))?;
    let mut table = table_presets(&folder, &files.expressions, &mut made);
    if let Some(asked) = asked {
        // A file's stem names a shape and an expression: made a valid name.
        let name = character_spec::sanitize(&bake_name(&asked));
        let path = match asked {
            ExpressionBake::File(path) => path,
            _ => EXPRESSIONS.file(&folder, &name, None, "--expression")?,
        };
        add_asked(&files.expressions, &mut table, &name, path)?;
        let vrm_name = MAKEHUMAN_PRESETS
            .iter()
            .find(|(_, e)| *e == name)
            .map_or(name.as_str(), |(preset, _)| *preset)
            .to_owned();
        made.written.retain(|w| w.vrm_name != vrm_name);
        made.written.push(FromMakeHuman {
            vrm_name,
            shape: name,
            asked: true,
        });
    }
    files.expressions.extend(table);
    Ok((Some(files), made))
}

/// Where a `.vrm`'s expressions come from.
enum PresetsFolder {
    /// This assets folder, which has the pose units.
    Found(PathBuf),
    /// No presets are written (`--no-expressions`): only the shapes asked, read.
    NoPresets(Option<ExpressionFiles>),
    /// Nowhere: the recipes stay, for this reason.
    Unavailable(String),
}

/// The assets folder a `.vrm`'s expressions come from: what is asked (shapes, an expression)
/// is refused without it as for any output; the presets alone fall back to their recipes.
fn presets_folder(
    shapes: Option<&ExpressionShapes>,
    asked: Option<&ExpressionBake>,
    presets: bool,
    folder: VrmFolder,
) -> Result<PresetsFolder, ConvertError> {
    let explicit = shapes.is_some() || asked.is_some();
    let folder = match folder {
        Ok(folder) => folder,
        Err(error) if explicit || !presets => return Err(error),
        Err(why) => return Ok(PresetsFolder::Unavailable(why.to_string())),
    };
    if !presets {
        let files = shapes
            .map(|s| resolve(Some(s), None, folder.as_deref()))
            .transpose()?;
        return Ok(PresetsFolder::NoPresets(files));
    }
    let Some(folder) = folder else {
        if explicit {
            resolve(shapes, asked.cloned(), None)?;
        }
        return Ok(PresetsFolder::Unavailable(
            "no MakeHuman assets folder (give --assets DIR, set $MAKEHUMAN_ASSETS or run `mpfb2g4mf data fetch --makehuman-assets`)"
                .to_owned(),
        ));
    };
    if explicit {
        refuse_missing(&folder)?;
    }
    let missing = missing_files(&folder);
    if !missing.is_empty() {
        return Ok(PresetsFolder::Unavailable(format!(
            "the assets folder {} lacks {} (`mpfb2g4mf data fetch --makehuman-assets` installs them)",
            folder.display(),
            missing.join(", ")
        )));
    }
    Ok(PresetsFolder::Found(folder))
}

/// The presets of [`MAKEHUMAN_PRESETS`] whose expression `folder` has, noted in `made` (and
/// why the others keep their recipes); the shapes to add for them, those `listed` (asked as
/// shapes already) left out.
fn table_presets(
    folder: &Path,
    listed: &[(String, PathBuf)],
    made: &mut MakeHumanExpressions,
) -> Vec<(String, PathBuf)> {
    let mut table = Vec::new();
    let mut lacking = Vec::new();
    for (preset, name) in MAKEHUMAN_PRESETS {
        let path = folder.join("expressions").join(format!("{name}.mhpose"));
        if !path.is_file() {
            lacking.push(format!("expressions/{name}.mhpose"));
            continue;
        }
        if !listed.iter().any(|(n, _)| n == name) {
            table.push((name.to_owned(), path));
        }
        made.written.push(FromMakeHuman {
            vrm_name: preset.to_owned(),
            shape: name.to_owned(),
            asked: false,
        });
    }
    if !lacking.is_empty() {
        made.recipes_kept = Some(format!(
            "the assets folder {} lacks {}",
            folder.display(),
            lacking.join(", ")
        ));
    }
    table
}

/// Adds the asked expression `name` at `path` as a shape: it replaces a table entry of its
/// name (the file asked wins), is the shape `--expression-shapes` already asks of that file,
/// and is refused when `--expression-shapes` asks another file under its name.
fn add_asked(
    shapes: &[(String, PathBuf)],
    table: &mut Vec<(String, PathBuf)>,
    name: &str,
    path: PathBuf,
) -> Result<(), ConvertError> {
    table.retain(|(n, _)| n != name);
    match shapes.iter().find(|(n, _)| n == name) {
        None => table.push((name.to_owned(), path)),
        Some((_, other)) if same_file(other, &path) => {}
        Some((_, other)) => {
            return Err(ConvertError::ExpressionNamedTwice {
                name: name.to_owned(),
                file: path,
                other: other.clone(),
            });
        }
    }
    Ok(())
}

/// Whether two paths name one file (by their canonical paths where they resolve).
fn same_file(a: &Path, b: &Path) -> bool {
    match (a.canonicalize(), b.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => a == b,
    }
}

/// The name an expression asked for goes by: its name, or its file's stem.
fn bake_name(asked: &ExpressionBake) -> String {
    match asked {
        ExpressionBake::Named(name) => name.clone(),
        ExpressionBake::File(path) => path.file_stem().map_or_else(
            || "expression".to_owned(),
            |s| s.to_string_lossy().into_owned(),
        ),
        ExpressionBake::Ignore => "none".to_owned(),
    }
}

/// What was asked, as the flag spelled it.
fn asked_names(shapes: Option<&ExpressionShapes>, bake: Option<&ExpressionBake>) -> String {
    match (shapes, bake) {
        (Some(ExpressionShapes::All), _) => "all".to_owned(),
        (Some(ExpressionShapes::Named(names)), _) => names.join(","),
        (None, Some(ExpressionBake::Named(name))) => name.clone(),
        (None, Some(ExpressionBake::File(path))) => path.display().to_string(),
        (None, _) => String::new(),
    }
}

/// MakeHuman's default skeleton, its weights and the face pose units, read: the same for
/// every body, so a batch reads them once (`inputs::Loader`).
#[derive(Debug, Clone)]
pub struct MakeHumanFiles {
    pub(crate) skeleton_file: PathBuf,
    pub(crate) skeleton: MhSkel,
    pub(crate) weights: Vec<makehuman_poses::json_files::BoneWeights>,
    pub(crate) units: Bvh,
    pub(crate) unit_names: Vec<String>,
}

impl MakeHumanFiles {
    /// Reads [`ExpressionFiles::makehuman`], each at most `limit` bytes.
    pub fn load(files: &ExpressionFiles, limit: u64) -> Result<Self, ConvertError> {
        let [skeleton, weights, units, names] = &files.makehuman;
        let text = |path: &Path| read_input_text_of(path, limit, MOTION);
        Ok(Self {
            skeleton_file: skeleton.clone(),
            skeleton: located(skeleton, makehuman_poses::parse_mhskel(&text(skeleton)?))?,
            weights: located(weights, makehuman_poses::parse_mhw(&text(weights)?))?,
            units: located(units, makehuman_poses::parse_bvh(&text(units)?))?,
            unit_names: located(names, makehuman_poses::parse_unit_names(&text(names)?))?,
        })
    }
}

/// MakeHuman's skeleton, weights and pose units, and the expressions, read.
#[derive(Debug, Clone)]
pub struct LoadedExpressions {
    pub(crate) makehuman: std::sync::Arc<MakeHumanFiles>,
    /// Each expression's shape name and pose.
    pub expressions: Vec<(String, MhPose)>,
    /// The expression baked into the rest: its name and pose.
    pub bake: Option<(String, MhPose)>,
}

pub(crate) fn located<T>(
    path: &Path,
    result: Result<T, makehuman_poses::PoseError>,
) -> Result<T, ConvertError> {
    result.map_err(|e| ConvertError::Motion(e.with_file(path)))
}

impl LoadedExpressions {
    /// Reads the expressions of `files`, each at most `limit` bytes; `makehuman` gives
    /// MakeHuman's files (read once per batch).
    pub fn load(
        files: &ExpressionFiles,
        limit: u64,
        makehuman: impl FnOnce() -> Result<std::sync::Arc<MakeHumanFiles>, ConvertError>,
    ) -> Result<Self, ConvertError> {
        let pose = |path: &Path| {
            let text = read_input_text_of(path, limit, EXPRESSION)?;
            located(path, makehuman_poses::parse_mhpose(&text))
        };
        let expressions = files
            .expressions
            .iter()
            .map(|(name, path)| Ok((name.clone(), pose(path)?)))
            .collect::<Result<Vec<_>, ConvertError>>()?;
        let bake = files
            .bake
            .as_ref()
            .map(|(name, path)| Ok::<_, ConvertError>((name.clone(), pose(path)?)))
            .transpose()?;
        Ok(Self {
            makehuman: makehuman()?,
            expressions,
            bake,
        })
    }
}
