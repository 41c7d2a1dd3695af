//! Stage 1, load: reading a conversion's input files into memory.
//!
//! Loading is separate from converting so a batch parses each distinct file once and shares
//! it between jobs.

use crate::convert::ConvertError;
use mpfb_mesh::{ObjMesh, VertexGroups, joint_groups};
use mpfb_rig::{FitMesh, ObjFrame, Rig};
use mpfb_weights::WeightsFile;
use std::path::{Path, PathBuf};

/// The default limit on any input file's size (1 GiB): far above real MPFB data (<= 6 MB),
/// low enough that a wrong path or a hostile file fails early and clearly.
pub const DEFAULT_MAX_INPUT_BYTES: u64 = 1 << 30;

/// Refuses an input file larger than `limit` bytes, before anything reads it.
pub fn check_input_size(path: &Path, limit: u64) -> Result<(), ConvertError> {
    match std::fs::metadata(path) {
        Ok(meta) if meta.len() > limit => Err(ConvertError::InputTooLarge {
            path: path.to_path_buf(),
            size: meta.len(),
            limit,
        }),
        // Missing files are reported by the reader with its own message.
        _ => Ok(()),
    }
}

/// A parsed rig file.
#[derive(Debug, Clone)]
pub struct LoadedRig {
    /// Where it came from.
    pub path: PathBuf,
    /// The rig.
    pub rig: Rig,
}

impl LoadedRig {
    /// Reads and checks a rig file.
    pub fn load(path: &Path) -> Result<Self, ConvertError> {
        Ok(Self {
            path: path.to_path_buf(),
            rig: mpfb_rig::read_rig_file(path)?,
        })
    }
}

/// A parsed mesh with its vertex groups.
#[derive(Debug, Clone)]
pub struct LoadedMesh {
    /// Where it came from.
    pub path: PathBuf,
    /// The OBJ data, in the file's numbering.
    pub obj: ObjMesh,
    /// Joint-cube groups (from the OBJ's face groups, else from a vertex-group file).
    pub joint_groups: VertexGroups,
    /// Where the joint groups came from.
    pub joint_source: String,
}

impl LoadedMesh {
    /// Reads an OBJ. Joint cubes come from its face groups; when it has none, from
    /// `vertex_groups` (MPFB's `basemesh_vertex_groups.json`), if given.
    pub fn load(path: &Path, vertex_groups: Option<&Path>) -> Result<Self, ConvertError> {
        let obj = mpfb_mesh::read_obj_file(path)?;
        let from_faces = mpfb_mesh::groups::joint_groups_from_faces(&obj);
        let (joint_groups, joint_source) = match (from_faces.is_empty(), vertex_groups) {
            (false, _) | (true, None) => (from_faces, "OBJ face groups".to_owned()),
            (true, Some(file)) => (
                joint_groups(&mpfb_mesh::read_vertex_group_file(file)?),
                file.display().to_string(),
            ),
        };
        Ok(Self {
            path: path.to_path_buf(),
            obj,
            joint_groups,
            joint_source,
        })
    }
}

impl LoadedMesh {
    /// The mesh as rigs are fitted to it: every vertex (joint cubes included) in Blender space.
    pub fn fit_mesh(&self, frame: ObjFrame) -> FitMesh {
        FitMesh::from_obj(&self.obj.positions, frame, self.joint_groups.iter())
    }
}

/// A parsed weights file.
#[derive(Debug, Clone)]
pub struct LoadedWeights {
    /// Where it came from.
    pub path: PathBuf,
    /// The weights.
    pub file: WeightsFile,
}

impl LoadedWeights {
    /// Reads a weights file.
    pub fn load(path: &Path) -> Result<Self, ConvertError> {
        Ok(Self {
            path: path.to_path_buf(),
            file: mpfb_weights::read_weights_file(path)?,
        })
    }
}

/// Loads a conversion's inputs, reading the mesh on a second core while the rig and weights
/// are read on this one: the parses are independent and take about the same time. The
/// second core is rayon's pool, so the pool is started here, while the files are read, not
/// at the first parallel stage after them.
pub fn load_inputs(
    rig: &Path,
    weights: Option<&Path>,
    mesh: &Path,
    vertex_groups: Option<&Path>,
) -> Result<(LoadedRig, LoadedMesh, Option<LoadedWeights>), ConvertError> {
    let ((rig, weights), mesh) = rayon::join(
        || {
            let rig = crate::timings::part("rig", || LoadedRig::load(rig));
            let weights =
                crate::timings::part("weights", || weights.map(LoadedWeights::load).transpose());
            (rig, weights)
        },
        || crate::timings::part("mesh", || LoadedMesh::load(mesh, vertex_groups)),
    );
    // Report the first input in command-line order that failed.
    Ok((rig?, mesh?, weights?))
}

/// The input files of one conversion.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InputPaths {
    /// The rig.
    pub rig: PathBuf,
    /// The weights, if any.
    pub weights: Option<PathBuf>,
    /// The body.
    pub mesh: PathBuf,
    /// Vertex groups for meshes without joint face groups.
    pub vertex_groups: Option<PathBuf>,
}

impl InputPaths {
    /// Refuses any file above `max_input_bytes`, then loads them all ([`load_inputs`]).
    pub fn load(
        &self,
        max_input_bytes: u64,
    ) -> Result<(LoadedRig, LoadedMesh, Option<LoadedWeights>), ConvertError> {
        for path in [
            Some(&self.rig),
            Some(&self.mesh),
            self.weights.as_ref(),
            self.vertex_groups.as_ref(),
        ]
        .into_iter()
        .flatten()
        {
            check_input_size(path, max_input_bytes)?;
        }
        load_inputs(
            &self.rig,
            self.weights.as_deref(),
            &self.mesh,
            self.vertex_groups.as_deref(),
        )
    }
}

/// A body built from MakeHuman targets: its description and every target file it applies,
/// read (stage 1), ready to morph the base mesh (stage 2).
#[derive(Debug, Clone)]
pub struct LoadedBody {
    /// What the body is made of.
    pub description: mpfb_body::Description,
    /// The rule that weighted the macro targets.
    pub model: mpfb_body::MacroModel,
    /// Every target applied, with its weight, in application order.
    pub targets: Vec<(
        mpfb_body::description::Weighted,
        std::sync::Arc<mpfb_body::Target>,
    )>,
    /// Where the description came from, for messages.
    pub source: Option<PathBuf>,
    /// Detail targets kept as blend shapes instead of applied (`keep_targets_as_shapes`).
    pub shapes: Vec<LoadedShape>,
}

/// A target to write as a blend shape.
#[derive(Debug, Clone)]
pub struct LoadedShape {
    /// The shape's name in the file (G4MF's standard name where there is one).
    pub name: String,
    /// Its amount (0 for face units and visemes; a kept detail target's weight).
    pub amount: f64,
    /// The target.
    pub target: std::sync::Arc<mpfb_body::Target>,
    /// The target file.
    pub path: PathBuf,
}

/// The targets folder: the one given, else `targets/` of the MPFB data folder found.
fn targets_dir(given: Option<&Path>) -> Result<PathBuf, ConvertError> {
    match given {
        Some(dir) => Ok(dir.to_path_buf()),
        None => crate::data::find_mpfb_data(None)
            .map(|d| d.join("targets"))
            .map_err(|tried| ConvertError::NoTargets { tried }),
    }
}

/// A rig's name from its file name (`rig.NAME.json`), as MPFB's folders and our tables use it.
pub fn rig_name(rig_path: &Path) -> &str {
    let file = rig_path.file_name().and_then(|f| f.to_str()).unwrap_or("");
    file.strip_prefix("rig.")
        .and_then(|f| f.strip_suffix(".json"))
        .unwrap_or(file)
}

/// The rest pose to bake, read.
#[derive(Debug, Clone)]
pub enum LoadedPose {
    /// A pose file (the rig's T-pose, or the one given), and where it came from.
    File {
        /// The pose.
        pose: mpfb_rig::Pose,
        /// Its file, for messages.
        source: String,
    },
    /// A T-pose for a rig without an MPFB T-pose file, computed by the stage.
    ComputedTPose,
}

/// What the stages need besides the rig, mesh, weights and body, read in stage 1 so no later
/// stage touches a file.
#[derive(Debug, Clone, Default)]
pub struct LoadedAssets {
    /// Targets written as blend shapes (the body's kept detail targets come with the body).
    pub shapes: Vec<LoadedShape>,
    /// The rest pose to bake.
    pub rest_pose: Option<LoadedPose>,
    /// The humanoid renaming table, and where it came from.
    pub humanoid: Option<(std::collections::BTreeMap<String, String>, String)>,
}

/// Reads what `options` ask for beyond the inputs, for the rig at `rig_path`.
pub fn load_assets(
    options: &crate::convert::ConvertOptions,
    rig_path: &Path,
    cache: &TargetCache,
) -> Result<LoadedAssets, ConvertError> {
    use crate::stages::rest_pose::RestPose;
    let rest_pose = match &options.rest_pose {
        None => None,
        Some(RestPose::File(path)) => Some(LoadedPose::File {
            pose: mpfb_rig::read_pose_file(path)?,
            source: path.display().to_string(),
        }),
        Some(RestPose::TPose { poses_dir }) => {
            let poses = match poses_dir {
                Some(dir) => Some(dir.clone()),
                None => crate::data::find_mpfb_data(None)
                    .ok()
                    .map(|d| d.join("poses")),
            };
            let file = poses
                .map(|d| {
                    d.join(crate::stages::rest_pose::pose_folder(rig_name(rig_path)))
                        .join("t-pose.json")
                })
                .filter(|f| f.is_file());
            Some(match file {
                Some(file) => LoadedPose::File {
                    pose: mpfb_rig::read_pose_file(&file)?,
                    source: file.display().to_string(),
                },
                None => LoadedPose::ComputedTPose,
            })
        }
    };
    let humanoid = options
        .humanoid
        .as_ref()
        .map(|table| crate::stages::humanoid::load(table, rig_path))
        .transpose()?;
    Ok(LoadedAssets {
        shapes: load_shapes(&options.shapes, cache)?,
        rest_pose,
        humanoid,
    })
}

/// The blend shapes `options` ask for, in order: face units (G4MF name order), visemes (the
/// spec's table order), then the named ones. Each file of the face units and visemes must
/// exist.
pub fn load_shapes(
    options: &crate::options::ShapeOptions,
    cache: &TargetCache,
) -> Result<Vec<LoadedShape>, ConvertError> {
    use crate::shape_names::{FACE_UNITS, VISEMES};
    if options.is_empty() {
        return Ok(Vec::new());
    }
    let dir = targets_dir(options.targets_dir.as_deref())?;
    // (name, file) in order, then the files parsed in parallel (67 files for face units and
    // visemes: most of the cost of asking for them).
    let mut wanted: Vec<(String, PathBuf)> = Vec::new();
    if options.face_units {
        for (file, name) in FACE_UNITS {
            wanted.push((
                name.to_owned(),
                dir.join(format!("faceunits/{file}.target")),
            ));
        }
    }
    if options.visemes {
        for (file, name) in VISEMES {
            wanted.push((name.to_owned(), dir.join(format!("visemes/{file}.target"))));
        }
    }
    if !options.named.is_empty() {
        let folder = cache.folder(&dir)?;
        for (i, (name, target)) in options.named.iter().enumerate() {
            let path = folder.0.find(target).map_err(|e| {
                ConvertError::Body(mpfb_body::description::DescriptionError::new(
                    location::Location::pointer(format!("/blend_shapes/{i}")),
                    e.into(),
                ))
            })?;
            wanted.push((name.clone(), path));
        }
    }
    use rayon::prelude::*;
    wanted
        .into_par_iter()
        .map(|(name, path)| {
            Ok(LoadedShape {
                name,
                amount: 0.0,
                target: cache.target(&path)?,
                path,
            })
        })
        .collect()
}

/// Target files and folders read once and shared: a batch of many bodies parses each target
/// file once (bodies share most macro targets). The cache keeps at most
/// [`TargetCache::MAX_CACHED_DELTAS`] displacements; targets beyond that are parsed per job
/// and freed with it, so a batch's memory stays flat however many bodies it makes.
#[derive(Debug, Default)]
pub struct TargetCache {
    cached_deltas: std::sync::atomic::AtomicUsize,
    folders: std::sync::Mutex<
        std::collections::HashMap<
            PathBuf,
            std::sync::Arc<(mpfb_body::TargetIndex, mpfb_body::MacroSpec)>,
        >,
    >,
    targets:
        std::sync::Mutex<std::collections::HashMap<PathBuf, std::sync::Arc<mpfb_body::Target>>>,
    /// The on-disk cache of parsed targets (`mpfb_body::cache`), found once.
    disk: std::sync::OnceLock<Option<PathBuf>>,
}

impl TargetCache {
    fn folder(
        &self,
        dir: &Path,
    ) -> Result<std::sync::Arc<(mpfb_body::TargetIndex, mpfb_body::MacroSpec)>, ConvertError> {
        let mut folders = self
            .folders
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(found) = folders.get(dir) {
            return Ok(found.clone());
        }
        let index = mpfb_body::TargetIndex::scan(dir).map_err(|source| ConvertError::Input {
            location: location::Location::file(dir),
            source,
        })?;
        let macro_json = dir.join("macrodetails/macro.json");
        let text = std::fs::read_to_string(&macro_json).map_err(|source| ConvertError::Input {
            location: location::Location::file(&macro_json),
            source,
        })?;
        let spec = mpfb_body::MacroSpec::from_json(&text).map_err(|e| ConvertError::Syntax {
            location: location::Location::line_column(e.line(), e.column()).in_file(&macro_json),
            message: e.to_string(),
        })?;
        let entry = std::sync::Arc::new((index, spec));
        folders.insert(dir.to_path_buf(), entry.clone());
        Ok(entry)
    }

    /// Displacements kept at most (16 bytes each: 4 Mi of them are 64 MiB, about two hundred
    /// full-body targets, the macro targets a varied population uses; at 2 Mi a 100-body
    /// population re-parsed enough to cost 2.0-2.25x a plain convert a body, measured).
    pub const MAX_CACHED_DELTAS: usize = 4 << 20;

    fn target(&self, path: &Path) -> Result<std::sync::Arc<mpfb_body::Target>, ConvertError> {
        if let Some(found) = self
            .targets
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .get(path)
        {
            return Ok(found.clone());
        }
        // Parsed outside the lock: two jobs may parse the same file once each at worst.
        let target = std::sync::Arc::new(mpfb_body::read_target_cached(
            path,
            self.disk
                .get_or_init(mpfb_body::default_cache_dir)
                .as_deref(),
        )?);
        let size = target.deltas.len();
        let admitted = self
            .cached_deltas
            .fetch_update(
                std::sync::atomic::Ordering::AcqRel,
                std::sync::atomic::Ordering::Acquire,
                |n| (n + size <= Self::MAX_CACHED_DELTAS).then_some(n + size),
            )
            .is_ok();
        if admitted {
            self.targets
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .insert(path.to_path_buf(), target.clone());
        }
        Ok(target)
    }

    /// Target files parsed so far.
    pub fn parsed(&self) -> usize {
        self.targets
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .len()
    }
}

/// Reads a body description (the `.mhm` or preset, then the phenotype and target settings over
/// it), resolves it against the targets folder and reads every target file.
pub fn load_body(
    options: &crate::options::BodyOptions,
    max_input_bytes: u64,
) -> Result<LoadedBody, ConvertError> {
    load_body_shared(options, max_input_bytes, &TargetCache::default())
}

/// [`load_body`] with target files and folders taken from (and added to) `cache`.
pub fn load_body_shared(
    options: &crate::options::BodyOptions,
    max_input_bytes: u64,
    cache: &TargetCache,
) -> Result<LoadedBody, ConvertError> {
    use mpfb_body::description::DetailTarget;
    let mut description = match &options.human {
        None => mpfb_body::Description::default(),
        Some(path) => {
            check_input_size(path, max_input_bytes)?;
            mpfb_body::read_description(path)?
        }
    };
    for (name, value) in &options.phenotype {
        description.phenotype.set(name, *value);
    }
    for (i, (name, weight)) in options.targets.iter().enumerate() {
        description.targets.push(DetailTarget {
            name: name.clone(),
            weight: *weight,
            location: location::Location::pointer(format!("/targets/{i}")),
        });
    }
    let dir = targets_dir(options.targets_dir.as_deref())?;
    let folder = cache.folder(&dir)?;
    let (index, spec) = (&folder.0, &folder.1);
    // Kept as shapes: resolved here, left out of the body.
    let mut shapes = Vec::new();
    if options.keep_targets_as_shapes {
        for t in std::mem::take(&mut description.targets) {
            let path = index.find(&t.name).map_err(|e| {
                mpfb_body::description::DescriptionError::new(t.location.clone(), e.into())
            })?;
            shapes.push(LoadedShape {
                name: t.name.clone(),
                amount: t.weight,
                target: cache.target(&path)?,
                path,
            });
        }
    }
    // Parsed in parallel: a body's macro targets are dozens of files, most of its cost.
    use rayon::prelude::*;
    let targets = description
        .resolve(index, spec, options.model)?
        .into_par_iter()
        .map(|w| {
            let target = cache.target(&w.path)?;
            Ok((w, target))
        })
        .collect::<Result<Vec<_>, ConvertError>>()?;
    Ok(LoadedBody {
        description,
        model: options.model,
        targets,
        source: options.human.clone(),
        shapes,
    })
}
