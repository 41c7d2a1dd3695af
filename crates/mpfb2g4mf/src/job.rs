//! One home for a job: the files a conversion reads and how it converts them, decided once
//! from command-line flags, a manifest job or a `.mhm` ([`Resolver::resolve`]). `convert`,
//! `demo` and every kind of batch job come through here, so they decide alike; the loader
//! (`inputs.rs`) then reads what the [`Job`] names, and nothing else.
//!
//! The MPFB data folder is looked up only when the job needs something from it (a rig by
//! name, the base mesh, targets, face units, visemes, a T-pose), in one order: `--mpfb-data`,
//! the data folder the rig file sits in, `$MPFB_DATA`, MPFB in Blender, the cache. It is
//! checked for what the job needs before anything is read, and the job records which folder
//! it used so every summary can say so.

use crate::error::ConvertError;
use crate::options::{ConvertOptions, HumanoidTable, Request, RestPose, Settings};
use crate::outfit::AssetIndex;

pub use crate::outfit::{AssetKind, Outfit, WornAsset};
use crate::summary::DataUsed;
pub use mpfb_data::rig_name;
use mpfb_data::{DataError, Feature, MpfbData, Places};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// How a job names its rig.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RigChoice {
    /// A rig file.
    File(PathBuf),
    /// A rig of the MPFB data folder, by name (with its weights).
    Name(String),
}

/// One conversion as asked: flags, or a manifest job with its paths made absolute.
#[derive(Debug, Clone, PartialEq)]
pub struct JobRequest {
    /// Position in a batch (0 for a single conversion).
    pub index: usize,
    /// The rig; `None` takes the one the `.mhm` or preset names (`default` if it names none).
    pub rig: Option<RigChoice>,
    /// A weights file (default: a named rig's own).
    pub weights: Option<PathBuf>,
    /// Write no skin even when the rig has weights.
    pub no_weights: bool,
    /// The body mesh (default: the data folder's `base.obj`).
    pub mesh: Option<PathBuf>,
    /// The output file.
    pub output: PathBuf,
    /// The character's name (default: the output's file stem).
    pub name: Option<String>,
    /// Everything else.
    pub settings: Settings,
}

/// Where a rest pose comes from, decided.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PoseSource {
    /// A pose file: MPFB's T-pose of the rig, or the one given.
    File(PathBuf),
    /// A T-pose computed for a rig MPFB ships none for.
    ComputedTPose,
    /// VRM's T-pose, computed.
    ComputedVrmTPose,
}

/// Every file a job reads, decided.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct JobFiles {
    /// The rig.
    pub rig: PathBuf,
    /// The weights, if any.
    pub weights: Option<PathBuf>,
    /// The body mesh.
    pub mesh: PathBuf,
    /// Joint cubes for meshes without joint face groups.
    pub vertex_groups: Option<PathBuf>,
    /// The user's weight-group-to-bone map.
    pub bone_map: Option<PathBuf>,
    /// The `.mhm` or preset.
    pub human: Option<PathBuf>,
    /// The targets folder (bodies and `--blend-shape`), when the job needs one.
    pub targets_dir: Option<PathBuf>,
    /// The face units' folder, with `--face-units`.
    pub face_units_dir: Option<PathBuf>,
    /// The visemes' folder, with `--visemes`.
    pub visemes_dir: Option<PathBuf>,
    /// The rest pose.
    pub rest_pose: Option<PoseSource>,
    /// The user's humanoid table.
    pub humanoid_map: Option<PathBuf>,
    /// The MakeHuman assets it wears and its body topology.
    pub outfit: crate::outfit::Outfit,
    /// What `--expression-shapes` reads.
    pub expressions: Option<crate::expressions::ExpressionFiles>,
    /// What `--pose`, a description's `pose` line and `--animation` read.
    pub poses: Option<crate::poses::PoseFiles>,
    /// The MPFB expression (`--expression FILE.json`) baked into the rest.
    pub mpfb_expression: Option<PathBuf>,
}

impl JobFiles {
    /// Every single file the job reads (folders excluded), for the size limit.
    pub fn files(&self) -> impl Iterator<Item = &Path> {
        let pose = match &self.rest_pose {
            Some(PoseSource::File(path)) => Some(path.as_path()),
            _ => None,
        };
        [
            Some(self.rig.as_path()),
            Some(self.mesh.as_path()),
            self.weights.as_deref(),
            self.vertex_groups.as_deref(),
            self.bone_map.as_deref(),
            self.human.as_deref(),
            pose,
            self.humanoid_map.as_deref(),
        ]
        .into_iter()
        .flatten()
        .chain(self.outfit.files())
        .chain(self.expressions.iter().flat_map(|e| e.files()))
        .chain(self.poses.iter().flat_map(|p| p.files()))
        .chain(self.mpfb_expression.as_deref())
    }
}

/// What a job's poses and clips read: `--pose` (else a description's `pose` line; `.vrm`
/// outputs skip the line, said by the converter) and `--animation`, in the assets folder
/// `index` finds.
fn poses(
    options: &ConvertOptions,
    described: Option<&Described>,
    rig: &Path,
    index: impl FnOnce() -> Result<Option<std::sync::Arc<AssetIndex>>, ConvertError>,
) -> Result<Option<crate::poses::PoseFiles>, ConvertError> {
    let line = described
        .and_then(|d| d.pose.as_deref())
        .filter(|_| options.vrm.is_none());
    let bake = crate::poses::bake_choice(options.pose.as_ref(), line);
    if bake.is_none() && options.animations.is_empty() {
        return Ok(None);
    }
    let index = index()?;
    crate::poses::resolve(
        bake,
        &options.animations,
        index.as_deref().map(AssetIndex::root),
        mpfb_data::rig_name(rig),
    )
    .map(Some)
}

/// A job ready to load and convert.
#[derive(Debug, Clone)]
pub struct Job {
    /// Position in a batch.
    pub index: usize,
    /// What it reads.
    pub files: JobFiles,
    /// How it converts.
    pub options: ConvertOptions,
    /// The MPFB data folder it took files from.
    pub data: Option<DataUsed>,
    /// The phenotype setting, for reports.
    pub phenotype: Option<String>,
}

impl Job {
    /// The output names none of the job's inputs (`..` resolved, links followed): a convert
    /// never replaces a file it reads.
    pub fn check_output_is_not_an_input(&self) -> Result<(), crate::paths::SameFile> {
        crate::paths::check_output_apart("the output", &self.options.output, self.files.files())
    }
}

/// A data folder lookup: `--mpfb-data` and the rig file.
type LocateKey = (Option<PathBuf>, Option<PathBuf>);

/// Resolves jobs. One resolver serves a whole batch: the data folder is looked up once per
/// place and the rig a description names is read once per file.
#[derive(Debug, Default)]
pub struct Resolver {
    places: Places,
    located: Mutex<HashMap<LocateKey, MpfbData>>,
    checked: Mutex<HashMap<(PathBuf, Feature), PathBuf>>,
    described: Mutex<HashMap<PathBuf, std::sync::Arc<Described>>>,
    asset_indexes: Mutex<HashMap<Option<PathBuf>, Option<std::sync::Arc<AssetIndex>>>>,
}

/// What the resolver takes from a description: its rig and the assets it names.
#[derive(Debug)]
struct Described {
    rig: String,
    assets: Vec<mpfb_body::AssetChoice>,
    materials: Vec<mpfb_body::AssetMaterialChoice>,
    skin: Option<mpfb_body::SkinChoice>,
    /// The `expression` line's file, as written.
    expression: Option<String>,
    /// The `pose` line's file, as written.
    pose: Option<String>,
}

/// The data folder of one job: looked up on first need, then reused.
struct DataSlot<'r> {
    resolver: &'r Resolver,
    explicit: Option<PathBuf>,
    rig: Option<PathBuf>,
    found: Option<MpfbData>,
}

impl DataSlot<'_> {
    fn get(&mut self) -> Result<&MpfbData, ConvertError> {
        if self.found.is_none() {
            self.found = Some(
                self.resolver
                    .locate(self.explicit.as_deref(), self.rig.as_deref())?,
            );
        }
        self.found.as_ref().ok_or(ConvertError::NoRig)
    }

    /// The folder, or `None` when there is none anywhere (a named folder that is not one is
    /// still an error).
    fn optional(&mut self) -> Result<Option<&MpfbData>, ConvertError> {
        match self.get() {
            Ok(_) => Ok(self.found.as_ref()),
            Err(ConvertError::Data(DataError::NotFound { .. })) => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// `feature`'s folder (targets, face units, visemes), checked once per batch.
    fn folder(&mut self, feature: Feature) -> Result<PathBuf, ConvertError> {
        let resolver = self.resolver;
        let data = self.get()?;
        let key = (data.root().to_path_buf(), feature);
        if let Some(found) = lock(&resolver.checked).get(&key) {
            return Ok(found.clone());
        }
        let dir = match feature {
            Feature::Bodies => data.targets_dir()?,
            other => data.shapes_dir(other)?,
        };
        lock(&resolver.checked).insert(key, dir.clone());
        Ok(dir)
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

impl Resolver {
    /// A resolver looking for data in `places`.
    pub fn new(places: Places) -> Self {
        Self {
            places,
            ..Self::default()
        }
    }

    /// A resolver for this process's environment.
    pub fn from_env() -> Self {
        Self::new(Places::from_env())
    }

    /// The places it looks in.
    pub fn places(&self) -> &Places {
        &self.places
    }

    /// The MPFB data folder for `explicit` (`--mpfb-data`) and a rig file, as [`mpfb_data::locate`]
    /// finds it; found folders are remembered.
    pub fn locate(
        &self,
        explicit: Option<&Path>,
        rig: Option<&Path>,
    ) -> Result<MpfbData, DataError> {
        let key = (explicit.map(Path::to_path_buf), rig.map(Path::to_path_buf));
        if let Some(found) = lock(&self.located).get(&key) {
            return Ok(found.clone());
        }
        let found = mpfb_data::locate(&self.places, explicit, rig)?;
        lock(&self.located).insert(key, found.clone());
        Ok(found)
    }

    /// The rig a `.mhm` or preset names (`default` when it names none) and the assets it
    /// names, read once per file (after the same size check the loader makes).
    fn described(
        &self,
        human: &Path,
        max_input_bytes: u64,
    ) -> Result<std::sync::Arc<Described>, ConvertError> {
        if let Some(found) = lock(&self.described).get(human) {
            return Ok(found.clone());
        }
        let bytes =
            crate::limits::read_input_of(human, max_input_bytes, crate::limits::Kind::DESCRIPTION)?;
        let description = mpfb_body::parse_description(&bytes, human)?;
        let found = std::sync::Arc::new(Described {
            rig: description.rig.unwrap_or_else(|| "default".to_owned()),
            assets: description.assets,
            materials: description.asset_materials,
            skin: description.skin,
            expression: description.expression.map(|e| e.file),
            pose: description.pose.map(|e| e.file),
        });
        lock(&self.described).insert(human.to_path_buf(), found.clone());
        Ok(found)
    }

    /// The assets folder (`explicit` is `--assets`), indexed once per batch; `None` when
    /// there is none.
    fn asset_index(
        &self,
        explicit: Option<&Path>,
    ) -> Result<Option<std::sync::Arc<AssetIndex>>, ConvertError> {
        let key = explicit.map(Path::to_path_buf);
        if let Some(found) = lock(&self.asset_indexes).get(&key) {
            return Ok(found.clone());
        }
        let found = mpfb_data::locate_assets(&self.places, explicit)?
            .map(|folder| std::sync::Arc::new(AssetIndex::scan(folder.root())));
        lock(&self.asset_indexes).insert(key, found.clone());
        Ok(found)
    }

    /// The assets a job wears: looked up only when something names one (a description's asset
    /// lines or an asset flag, `--assets` included), so naked conversions never walk an
    /// assets folder and never change with the machine's assets.
    fn outfit(
        &self,
        settings: &Settings,
        described: Option<&Described>,
    ) -> Result<Outfit, ConvertError> {
        // MakeHuman's default skin needs nothing: every `.mhm` names it.
        let skin_named = |s: &str| !crate::outfit::is_default_skin(s);
        let flags = settings.assets.is_some()
            || !settings.clothes.is_empty()
            || settings.skin.as_deref().is_some_and(skin_named)
            || [
                &settings.hair,
                &settings.eyebrows,
                &settings.eyelashes,
                &settings.eyes,
                &settings.teeth,
                &settings.tongue,
                &settings.eye_material,
                &settings.proxy,
            ]
            .iter()
            .any(|f| f.is_some());
        // A naked body stays naked (and needs no assets folder): only a job that names an
        // asset, or the assets folder, wears anything, MakeHuman's default eyes included.
        let named = described.is_some_and(|d| {
            !d.assets.is_empty()
                || !d.materials.is_empty()
                || d.skin.as_ref().is_some_and(|s| skin_named(&s.file))
        });
        if !flags && !named {
            return Ok(Outfit::default());
        }
        let index = self.asset_index(settings.assets.as_deref())?;
        let (assets, materials, skin) = match described {
            Some(d) => (&d.assets[..], &d.materials[..], d.skin.as_ref()),
            None => (&[][..], &[][..], None),
        };
        crate::outfit::decide(
            settings,
            assets,
            materials,
            skin,
            settings.human.as_deref(),
            index.as_deref(),
        )
    }

    /// What the job's expressions read: those asked as shapes and the one baked; for a `.vrm`
    /// ([`crate::expressions::resolve_vrm`]) the asked one written as an expression instead,
    /// and the presets MakeHuman's expressions replace where the assets folder has them (what
    /// the `.vrm` writes from them is set in `options`, with the face units the recipes left
    /// still need). Only what is asked walks the assets folder; a `.vrm`'s presets only
    /// locate it.
    fn expression_files(
        &self,
        settings: &Settings,
        options: &mut ConvertOptions,
        bake: Option<crate::options::ExpressionBake>,
    ) -> Result<Option<crate::expressions::ExpressionFiles>, ConvertError> {
        let shapes = options.shapes.expressions.as_ref();
        let Some(vrm) = options.vrm.as_mut() else {
            if shapes.is_none() && bake.is_none() {
                return Ok(None);
            }
            let index = self.asset_index(settings.assets.as_deref())?;
            return crate::expressions::resolve(
                shapes,
                bake,
                index.as_deref().map(AssetIndex::root),
            )
            .map(Some);
        };
        let presets = vrm.expressions;
        let explicit = shapes.is_some()
            || (presets
                && bake
                    .as_ref()
                    .is_some_and(|b| *b != crate::options::ExpressionBake::Ignore));
        let folder = if explicit {
            self.asset_index(settings.assets.as_deref())
                .map(|index| index.map(|i| i.root().to_path_buf()))
        } else if presets {
            mpfb_data::locate_assets(&self.places, settings.assets.as_deref())
                .map(|found| found.map(|f| f.root().to_path_buf()))
                .map_err(ConvertError::from)
        } else {
            Ok(None)
        };
        let (files, made) = crate::expressions::resolve_vrm(shapes, bake, presets, folder)?;
        if presets {
            let replaced: Vec<&str> = made.written.iter().map(|w| w.vrm_name.as_str()).collect();
            options.shapes.units = crate::vrm::needed_units(&replaced);
        }
        vrm.makehuman = made;
        Ok(files)
    }

    /// Decides everything a job reads and how it converts.
    pub fn resolve(&self, request: &JobRequest) -> Result<Job, ConvertError> {
        let settings = &request.settings;
        let mut options = ConvertOptions::try_from(Request {
            settings,
            output: &request.output,
            name: request.name.as_deref(),
        })?;
        let described = match &settings.human {
            Some(human) => Some(self.described(human, options.max_input_bytes)?),
            None => None,
        };
        let rig_choice = match (&request.rig, &described) {
            (Some(choice), _) => choice.clone(),
            (None, Some(described)) => RigChoice::Name(described.rig.clone()),
            (None, None) => return Err(ConvertError::NoRig),
        };
        let outfit = self.outfit(settings, described.as_deref())?;
        let bake = crate::expressions::bake_choice(
            options.expression.as_ref(),
            described.as_ref().and_then(|d| d.expression.as_deref()),
        );
        // An MPFB expression is face-unit targets at weights: it needs the face units, not
        // MakeHuman's files.
        let (bake, mpfb_expression) = match bake {
            Some(crate::options::ExpressionBake::File(path))
                if crate::expressions::is_mpfb_expression(&path) =>
            {
                (None, Some(path))
            }
            other => (other, None),
        };
        let expressions = self.expression_files(settings, &mut options, bake)?;
        let mut data = DataSlot {
            resolver: self,
            explicit: settings.mpfb_data.clone(),
            rig: match &rig_choice {
                RigChoice::File(path) => Some(path.clone()),
                RigChoice::Name(_) => None,
            },
            found: None,
        };
        let (rig, rig_weights, rig_groups) = match &rig_choice {
            RigChoice::File(path) => (path.clone(), None, None),
            RigChoice::Name(name) => {
                let folder = data.get()?;
                let files = folder.rig(name)?;
                (files.rig, files.weights, folder.vertex_groups())
            }
        };
        let weights = match request.no_weights {
            true => None,
            false => request.weights.clone().or(rig_weights),
        };
        let mesh = match &request.mesh {
            Some(mesh) => mesh.clone(),
            None => data.get()?.base_mesh()?,
        };
        let needs_targets = options.body.is_some() || !options.shapes.named.is_empty();
        let given_targets = settings.targets_dir.clone();
        let targets_dir = match (&given_targets, needs_targets) {
            (_, false) => None,
            (Some(dir), true) => Some(dir.clone()),
            (None, true) => Some(data.folder(Feature::Bodies)?),
        };
        let shapes_dir = |data: &mut DataSlot<'_>, wanted: bool, feature: Feature, sub: &str| match (
            &given_targets,
            wanted,
        ) {
            (_, false) => Ok(None),
            (Some(dir), true) => Ok(Some(dir.join(sub))),
            (None, true) => data.folder(feature).map(Some),
        };
        let units = &options.shapes.units;
        let face_units_dir = shapes_dir(
            &mut data,
            options.shapes.face_units
                || mpfb_expression.is_some()
                || units.iter().any(|u| !u.starts_with("viseme_")),
            Feature::FaceUnits,
            "faceunits",
        )?;
        let visemes_dir = shapes_dir(
            &mut data,
            options.shapes.visemes || units.iter().any(|u| u.starts_with("viseme_")),
            Feature::Visemes,
            "visemes",
        )?;
        let rest_pose = match &options.rest_pose {
            None => None,
            Some(RestPose::File(path)) => Some(PoseSource::File(path.clone())),
            Some(RestPose::TPose) => Some(t_pose_source(&mut data, rig_name(&rig))?),
            Some(RestPose::StraightTPose) => Some(PoseSource::ComputedTPose),
            Some(RestPose::VrmTPose) => Some(PoseSource::ComputedVrmTPose),
        };
        let files = JobFiles {
            weights,
            mesh,
            vertex_groups: settings.vertex_groups.clone().or(rig_groups),
            bone_map: options.bone_map.clone(),
            human: settings.human.clone(),
            targets_dir,
            face_units_dir,
            visemes_dir,
            rest_pose,
            humanoid_map: match &options.humanoid {
                Some(HumanoidTable::File(path)) => Some(path.clone()),
                _ => None,
            },
            poses: poses(&options, described.as_deref(), &rig, || {
                self.asset_index(settings.assets.as_deref())
            })?,
            rig,
            outfit,
            expressions,
            mpfb_expression,
        };
        Ok(Job {
            index: request.index,
            files,
            options,
            data: data.found.as_ref().map(DataUsed::of),
            phenotype: settings.phenotype.clone(),
        })
    }
}

/// MPFB's T-pose of `rig` from the data folder; computed only for rigs MPFB ships none for.
fn t_pose_source(data: &mut DataSlot<'_>, rig: &str) -> Result<PoseSource, ConvertError> {
    match data.optional()? {
        Some(folder) => Ok(match folder.t_pose(rig)? {
            Some(file) => PoseSource::File(file),
            None => PoseSource::ComputedTPose,
        }),
        None if mpfb_data::ships_t_pose(rig) => Err(ConvertError::NoTPoseData {
            rig: rig.to_owned(),
            path: mpfb_data::t_pose_path(rig),
        }),
        None => Ok(PoseSource::ComputedTPose),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn touch(root: &Path, relative: &str) {
        let path = root.join(relative);
        std::fs::create_dir_all(path.parent().unwrap_or(root)).unwrap_or_else(|e| panic!("{e}"));
        std::fs::write(path, b"x").unwrap_or_else(|e| panic!("{e}"));
    }

    fn request(settings: Settings) -> JobRequest {
        JobRequest {
            index: 0,
            rig: Some(RigChoice::Name("default".into())),
            weights: None,
            no_weights: false,
            mesh: None,
            output: "out.g4b".into(),
            name: None,
            settings,
        }
    }

    #[test]
    fn jobs_take_their_files_from_the_data_folder_they_name_or_sit_in() {
        let tmp = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let (env, beside) = (tmp.path().join("env"), tmp.path().join("beside"));
        for root in [&env, &beside] {
            touch(root, "3dobjs/base.obj");
            touch(root, "rigs/standard/rig.default.json");
            touch(root, "rigs/standard/weights.default.json");
            touch(root, "rigs/standard/rig.mixamo.json");
            touch(root, "poses/default_fk/t-pose.json");
        }
        let resolver = Resolver::new(Places {
            mpfb_data_env: Some(env.clone()),
            ..Places::default()
        });
        let job = resolver
            .resolve(&request(Settings::default()))
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(job.files.rig, env.join("rigs/standard/rig.default.json"));
        assert_eq!(
            job.files.weights,
            Some(env.join("rigs/standard/weights.default.json"))
        );
        assert_eq!(job.files.mesh, env.join("3dobjs/base.obj"));
        assert_eq!(
            job.data.as_ref().map(|d| d.source),
            Some(mpfb_data::Source::Env)
        );
        // A rig file inside a data folder implies that folder for its T-pose.
        let mut by_file = request(Settings {
            rest_pose: Some("t-pose".into()),
            ..Settings::default()
        });
        by_file.rig = Some(RigChoice::File(
            beside.join("rigs/standard/rig.default.json"),
        ));
        let job = resolver.resolve(&by_file).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            job.files.rest_pose,
            Some(PoseSource::File(
                beside.join("poses/default_fk/t-pose.json")
            ))
        );
        assert_eq!(job.files.weights, None, "a rig file brings no weights");
        assert_eq!(
            job.data.as_ref().map(|d| d.source),
            Some(mpfb_data::Source::RigFolder)
        );
        // MPFB ships no T-pose for mixamo: computed.
        let mut mixamo = by_file.clone();
        mixamo.rig = Some(RigChoice::File(
            beside.join("rigs/standard/rig.mixamo.json"),
        ));
        let job = resolver.resolve(&mixamo).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(job.files.rest_pose, Some(PoseSource::ComputedTPose));
        // Features the folder lacks are named before anything is read.
        let faces = request(Settings {
            face_units: true,
            ..Settings::default()
        });
        let err = resolver.resolve(&faces).err().map(|e| e.to_string());
        assert!(
            err.as_deref()
                .is_some_and(|e| e.contains("lacks the face units")
                    && e.contains("$MPFB_DATA")
                    && e.contains("targets/faceunits/ (52 files)")),
            "{err:?}"
        );
    }

    #[test]
    fn without_data_a_shipped_t_pose_is_an_error_and_explicit_files_need_none() {
        let tmp = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let resolver = Resolver::new(Places::default());
        let mut explicit = request(Settings::default());
        explicit.rig = Some(RigChoice::File(tmp.path().join("rig.default.json")));
        explicit.mesh = Some(tmp.path().join("body.obj"));
        let job = resolver
            .resolve(&explicit)
            .unwrap_or_else(|e| panic!("{e}"));
        assert!(job.data.is_none(), "nothing was taken from a data folder");
        explicit.settings.rest_pose = Some("t-pose".into());
        let err = resolver.resolve(&explicit).err().map(|e| e.to_string());
        assert!(
            err.as_deref()
                .is_some_and(|e| e.contains("poses/default_fk/t-pose.json")),
            "{err:?}"
        );
        explicit.rig = Some(RigChoice::File(tmp.path().join("rig.mixamo.json")));
        let job = resolver
            .resolve(&explicit)
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(job.files.rest_pose, Some(PoseSource::ComputedTPose));
        // A rig by name without any data folder says where it looked.
        let err = resolver
            .resolve(&request(Settings::default()))
            .err()
            .map(|e| e.to_string());
        assert!(
            err.as_deref()
                .is_some_and(|e| e.contains("no MPFB data folder found")),
            "{err:?}"
        );
    }
}
