//! Stage 1, load: reading what a [`Job`] names into memory. With the job resolver (which
//! reads a `.mhm` to learn its rig) this is the only place input files are opened: no later
//! stage reads a file.
//!
//! A [`Loader`] shares parsed files between the jobs of a batch (each distinct rig, mesh,
//! weights file and target parsed once, freed after its last job); a single conversion is a
//! batch of one. Every file a job names is checked against the input size limit before
//! anything reads it.

use crate::error::ConvertError;
use crate::job::{Job, JobFiles, PoseSource};
use crate::limits::{Kind, check_input_size, read_input_of, read_input_text_of};
pub use crate::options::DEFAULT_MAX_INPUT_BYTES;

/// The most target displacements one job applies or writes as shapes, all targets together
/// (a phenotype body with every face unit and viseme uses a few hundred thousand: the 67
/// face-unit and viseme targets hold 80,899; each takes 16 bytes).
pub const MAX_JOB_DISPLACEMENTS: usize = 8 << 20;
use crate::options::{BodyOptions, ConvertOptions, HumanoidTable, ShapeOptions};
use mpfb_mesh::{ObjMesh, VertexGroups, joint_groups};
use mpfb_rig::{FitMesh, ObjFrame, Rig};
use mpfb_weights::{BoneMap, WeightsFile};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

/// The target displacements one job has loaded so far, checked against
/// [`MAX_JOB_DISPLACEMENTS`] as each target arrives (so the bound holds before the memory is
/// spent, not after).
#[derive(Debug, Default)]
pub struct Displacements(AtomicUsize);

impl Displacements {
    /// Counts `target`'s displacements, refusing the job past the bound.
    pub fn spend(
        &self,
        target: Arc<mpfb_body::Target>,
    ) -> Result<Arc<mpfb_body::Target>, ConvertError> {
        let n = target.len();
        let total = self.0.fetch_add(n, Ordering::AcqRel) + n;
        crate::limits::check_count("target displacements", total, MAX_JOB_DISPLACEMENTS)?;
        Ok(target)
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
    /// Reads and checks a rig file (at most [`DEFAULT_MAX_INPUT_BYTES`]).
    pub fn load(path: &Path) -> Result<Self, ConvertError> {
        Self::load_limited(path, DEFAULT_MAX_INPUT_BYTES)
    }

    /// Reads and checks a rig file of at most `limit` bytes.
    pub fn load_limited(path: &Path, limit: u64) -> Result<Self, ConvertError> {
        let text = read_input_text_of(path, limit, Kind::RIG)?;
        Ok(Self {
            path: path.to_path_buf(),
            rig: mpfb_rig::parse_rig(&text).map_err(|e| e.with_file(path))?,
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
    /// The helper eyes' painted iris by colour family (see
    /// [`crate::iris::paint_helper_eyes`]), each made on first use and shared by every job on
    /// this mesh.
    helper_iris: [std::sync::OnceLock<Option<character::Image>>; crate::iris::IRIS_SRGB.len()],
    /// What every character on this mesh starts from, made on first use and shared.
    topology: std::sync::OnceLock<MeshTopology>,
}

/// What a mesh gives every character made on it, whatever the body: the polygons with their
/// groups as parts, texture coordinates in G4MF's convention, the identity numbering, and the
/// vertices of the `body` part (where a morphed body stands).
#[derive(Debug, Clone)]
pub struct MeshTopology {
    /// Texture coordinates, flipped to G4MF's top-left origin.
    pub texcoords: Arc<Vec<[f64; 2]>>,
    /// Every polygon, its groups as parts.
    pub polygons: Arc<character::Polygons>,
    /// The identity numbering of the mesh's vertices.
    pub numbering: Arc<character::Numbering>,
    /// The vertices of the `body` part's polygons, ascending.
    pub body_vertices: Vec<u32>,
}

impl LoadedMesh {
    /// Reads an OBJ. Joint cubes come from its face groups; when it has none, from
    /// `vertex_groups` (MPFB's `basemesh_vertex_groups.json`), if given.
    pub fn load(path: &Path, vertex_groups: Option<&Path>) -> Result<Self, ConvertError> {
        Self::load_limited(path, vertex_groups, DEFAULT_MAX_INPUT_BYTES)
    }

    /// [`LoadedMesh::load`] with files of at most `limit` bytes.
    pub fn load_limited(
        path: &Path,
        vertex_groups: Option<&Path>,
        limit: u64,
    ) -> Result<Self, ConvertError> {
        let obj = mpfb_mesh::parse_obj(&read_input_of(path, limit, Kind::MESH)?)
            .map_err(|e| e.with_file(path))?;
        let from_faces = mpfb_mesh::groups::joint_groups_from_faces(&obj);
        let (joint_groups, joint_source) = match (from_faces.is_empty(), vertex_groups) {
            (false, _) | (true, None) => (from_faces, "OBJ face groups".to_owned()),
            (true, Some(file)) => {
                let text = read_input_text_of(file, limit, Kind::VERTEX_GROUPS)?;
                let groups =
                    mpfb_mesh::parse_vertex_groups(&text).map_err(|e| e.with_file(file))?;
                (joint_groups(&groups), file.display().to_string())
            }
        };
        Ok(Self {
            path: path.to_path_buf(),
            obj,
            joint_groups,
            joint_source,
            helper_iris: Default::default(),
            topology: std::sync::OnceLock::new(),
        })
    }
}

impl LoadedMesh {
    /// The helper eyes' iris texture in `family`'s colour (one of `iris::IRIS_SRGB`),
    /// painted from this mesh's eyes (`None` when it has no helper eyes, or for another
    /// family).
    pub fn helper_iris(&self, family: &str) -> Option<&character::Image> {
        let (slot, (family, _)) = self
            .helper_iris
            .iter()
            .zip(&crate::iris::IRIS_SRGB)
            .find(|(_, (name, _))| *name == family)?;
        slot.get_or_init(|| {
            crate::iris::paint_helper_eyes(&self.obj, family)
                .and_then(|png| crate::images::image_of(png).ok())
        })
        .as_ref()
    }

    /// What every character on this mesh starts from (made once, then shared).
    pub fn topology(&self) -> &MeshTopology {
        self.topology.get_or_init(|| {
            let obj = &self.obj;
            let mut is_body = vec![false; obj.positions.len()];
            for f in 0..obj.face_count() {
                if obj.face_groups(f).iter().any(|g| g == mpfb_body::BODY_PART) {
                    for corner in obj.face(f) {
                        if let Some(b) = is_body.get_mut(corner.vertex as usize) {
                            *b = true;
                        }
                    }
                }
            }
            MeshTopology {
                // OBJ's v runs up from the bottom; G4MF textures start top-left.
                texcoords: Arc::new(obj.texcoords.iter().map(|&[u, v]| [u, 1.0 - v]).collect()),
                polygons: Arc::new(character::Polygons {
                    offsets: obj.face_offsets.clone(),
                    vertices: obj.corners.iter().map(|c| c.vertex).collect(),
                    texcoords: obj.corners.iter().map(|c| c.texcoord).collect(),
                    materials: obj.face_material.clone(),
                    parts: obj.face_group_set.clone(),
                    part_sets: obj.group_sets.clone(),
                }),
                numbering: Arc::new(character::Numbering::identity(obj.positions.len())),
                body_vertices: (0..obj.positions.len() as u32)
                    .filter(|&v| is_body[v as usize])
                    .collect(),
            }
        })
    }

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
    /// Reads a weights file (at most [`DEFAULT_MAX_INPUT_BYTES`]).
    pub fn load(path: &Path) -> Result<Self, ConvertError> {
        Self::load_limited(path, DEFAULT_MAX_INPUT_BYTES)
    }

    /// Reads a weights file of at most `limit` bytes.
    pub fn load_limited(path: &Path, limit: u64) -> Result<Self, ConvertError> {
        let text = read_input_text_of(path, limit, Kind::WEIGHTS)?;
        Ok(Self {
            path: path.to_path_buf(),
            file: mpfb_weights::parse_weights(&text).map_err(|e| e.with_file(path))?,
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
    /// A straight T-pose computed by the stage (for a rig without an MPFB T-pose file, or
    /// asked as `straight-t-pose`), its limbs found by the humanoid names.
    ComputedTPose,
    /// VRM's T-pose computed by the stage (`vrm-t-pose`), its limbs found the same way.
    ComputedVrmTPose,
}

impl LoadedPose {
    /// True for the T-poses the stage computes (their limbs are found by humanoid names).
    pub fn is_computed(&self) -> bool {
        matches!(self, Self::ComputedTPose | Self::ComputedVrmTPose)
    }
}

/// Where the rig's humanoid names come from, decided by the loader once per job
/// ([`humanoid_names`]); `crate::stages::humanoid::JobNames` makes them from it.
#[derive(Debug, Clone)]
pub enum HumanoidNames {
    /// A table: the user's, or the one shipped for the rig.
    Table(crate::tables::Table),
    /// Matched by name and structure on the rig itself (`crate::humanoid_match`).
    Matched,
}

/// What the stages need besides the rig, mesh, weights and body, read in stage 1 so no later
/// stage touches a file.
#[derive(Debug, Clone)]
pub struct LoadedAssets {
    /// Targets written as blend shapes (the body's kept detail targets come with the body).
    pub shapes: Vec<LoadedShape>,
    /// The rest pose to bake.
    pub rest_pose: Option<LoadedPose>,
    /// Where the rig's humanoid names come from: every stage that needs them (renaming with
    /// `--humanoid`, a computed T-pose's limbs, face helpers' bones, a pose's retargeting)
    /// takes them from here.
    pub humanoid: HumanoidNames,
    /// Whether the bones are renamed with them (`--humanoid`).
    pub rename_humanoid: bool,
    /// The user's map of weight groups to bones.
    pub bone_map: BoneMap,
    /// Assets the description names that were not worn for lack of an assets folder.
    pub not_worn: Vec<String>,
    /// MakeHuman's expressions asked as blend shapes, with what computes them.
    pub expressions: Option<Arc<crate::expressions::LoadedExpressions>>,
    /// The pose to bake and the clips to write, with the skeletons they need.
    pub poses: Option<Arc<crate::poses::LoadedPoses>>,
    /// The MPFB expression to bake, with its face units' targets.
    pub mpfb_expression: Option<Arc<crate::expressions::LoadedMpfbExpression>>,
}

impl LoadedAssets {
    /// The assets of `options` that need no file (a shipped humanoid table), for converting
    /// already loaded inputs from a library.
    pub fn without_files(options: &ConvertOptions, rig_path: &Path) -> Result<Self, ConvertError> {
        Ok(Self {
            shapes: Vec::new(),
            rest_pose: None,
            humanoid: humanoid_names(None, rig_path)?,
            rename_humanoid: matches!(options.humanoid, Some(HumanoidTable::Builtin)),
            bone_map: BoneMap::new(),
            not_worn: Vec::new(),
            expressions: None,
            poses: None,
            mpfb_expression: None,
        })
    }
}

/// Where the rig at `rig_path`'s humanoid names come from, the one place that decides it: the
/// user's `table` (`--humanoid-map`), else the rig's shipped table (by its file name), else
/// names matched on the rig.
fn humanoid_names(
    table: Option<crate::tables::Table>,
    rig_path: &Path,
) -> Result<HumanoidNames, ConvertError> {
    if let Some(table) = table {
        return Ok(HumanoidNames::Table(table));
    }
    Ok(crate::tables::shipped(mpfb_data::rig_name(rig_path))?
        .map_or(HumanoidNames::Matched, HumanoidNames::Table))
}

/// Reads what the job needs besides rig, mesh, weights and body.
pub fn load_assets(
    job: &Job,
    (cache, motion): (&TargetCache, &MotionCache),
    limit: u64,
    budget: &Displacements,
) -> Result<LoadedAssets, ConvertError> {
    use crate::tables;
    let files = &job.files;
    let rest_pose = match &files.rest_pose {
        None => None,
        Some(PoseSource::File(path)) => Some(LoadedPose::File {
            pose: mpfb_rig::parse_pose(&read_input_text_of(path, limit, Kind::POSE)?, path)?,
            source: path.display().to_string(),
        }),
        Some(PoseSource::ComputedTPose) => Some(LoadedPose::ComputedTPose),
        Some(PoseSource::ComputedVrmTPose) => Some(LoadedPose::ComputedVrmTPose),
    };
    let table = match &job.options.humanoid {
        Some(HumanoidTable::File(path)) => Some(tables::from_text(
            &read_input_text_of(path, limit, Kind::MAP)?,
            &path.display().to_string(),
        )?),
        None | Some(HumanoidTable::Builtin) => None,
    };
    let humanoid = humanoid_names(table, &files.rig)?;
    let bone_map = match &files.bone_map {
        Some(path) => mpfb_weights::parse_bone_map(&read_input_text_of(path, limit, Kind::MAP)?)
            .map_err(|e| e.with_file(path))?,
        None => BoneMap::new(),
    };
    Ok(LoadedAssets {
        shapes: load_shapes(&job.options.shapes, files, cache, budget)?,
        rest_pose,
        humanoid,
        rename_humanoid: job.options.humanoid.is_some(),
        bone_map,
        not_worn: files.outfit.not_found.clone(),
        expressions: files
            .expressions
            .as_ref()
            .map(|e| {
                crate::expressions::LoadedExpressions::load(e, limit, || motion.makehuman(e, limit))
                    .map(Arc::new)
            })
            .transpose()?,
        mpfb_expression: load_mpfb_expression(files, (cache, budget), limit)?,
        poses: files
            .poses
            .as_ref()
            .map(|p| {
                crate::poses::LoadedPoses::load(
                    p,
                    |path| motion.bvh(path, limit),
                    |path| motion.skeleton(path, limit),
                )
                .map(Arc::new)
            })
            .transpose()?,
    })
}

/// The MPFB expression a job bakes, with its face units' targets (through the batch's cache).
fn load_mpfb_expression(
    files: &JobFiles,
    (cache, budget): (&TargetCache, &Displacements),
    limit: u64,
) -> Result<Option<Arc<crate::expressions::LoadedMpfbExpression>>, ConvertError> {
    let (Some(path), Some(dir)) = (&files.mpfb_expression, &files.face_units_dir) else {
        return Ok(None);
    };
    let target = |target: &Path| budget.spend(cache.target(target)?);
    crate::expressions::LoadedMpfbExpression::load(path, limit, dir, target)
        .map(|e| Some(Arc::new(e)))
}

/// The blend shapes `options` ask for, in order: face units (G4MF name order), visemes (the
/// spec's table order), then the named ones. Each file of the face units and visemes must
/// exist.
pub fn load_shapes(
    options: &ShapeOptions,
    files: &JobFiles,
    cache: &TargetCache,
    budget: &Displacements,
) -> Result<Vec<LoadedShape>, ConvertError> {
    use crate::shape_names::{FACE_UNITS, VISEMES};
    // (name, file) in order, then the files parsed in parallel (67 files for face units and
    // visemes: most of the cost of asking for them).
    let mut wanted: Vec<(String, PathBuf)> = Vec::new();
    // A whole set, or the single units a `.vrm`'s expressions need, in the set's order.
    let asked = |all: bool, file: &str| all || options.units.contains(&file);
    if let Some(dir) = &files.face_units_dir {
        for (file, name) in FACE_UNITS
            .iter()
            .filter(|(f, _)| asked(options.face_units, f))
        {
            wanted.push(((*name).to_owned(), dir.join(format!("{file}.target"))));
        }
    }
    if let Some(dir) = &files.visemes_dir {
        for (file, name) in VISEMES.iter().filter(|(f, _)| asked(options.visemes, f)) {
            wanted.push(((*name).to_owned(), dir.join(format!("{file}.target"))));
        }
    }
    if let (false, Some(dir)) = (options.named.is_empty(), &files.targets_dir) {
        let folder = cache.folder(dir)?;
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
                target: budget.spend(cache.target(&path)?)?,
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
    /// Every distinct vertex list of the targets kept, so targets moving the same vertices
    /// share one (most macro targets move one of a few dozen sets).
    vertex_lists: std::sync::Mutex<Vec<Arc<Vec<u32>>>>,
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
        let text = read_input_text_of(&macro_json, DEFAULT_MAX_INPUT_BYTES, Kind::MAP)?;
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
        let mut target = mpfb_body::read_target_cached(
            path,
            self.disk
                .get_or_init(mpfb_body::default_cache_dir)
                .as_deref(),
        )?;
        let size = target.len();
        let admitted = self
            .cached_deltas
            .fetch_update(
                std::sync::atomic::Ordering::AcqRel,
                std::sync::atomic::Ordering::Acquire,
                |n| (n + size <= Self::MAX_CACHED_DELTAS).then_some(n + size),
            )
            .is_ok();
        if !admitted {
            return Ok(std::sync::Arc::new(target));
        }
        // A kept target takes the vertex list of a kept target that moves the same vertices.
        {
            let mut lists = self
                .vertex_lists
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            let shared = lists
                .iter()
                .filter(|l| l.len() == size)
                .any(|l| target.share_vertices(l));
            if !shared {
                lists.push(target.vertices.clone());
            }
        }
        let target = std::sync::Arc::new(target);
        self.targets
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .insert(path.to_path_buf(), target.clone());
        Ok(target)
    }
}

/// Reads a body description (the `.mhm` or preset, then the phenotype and target settings over
/// it), resolves it against the targets folder and reads every target file, through `cache`.
pub fn load_body(
    options: &BodyOptions,
    files: &JobFiles,
    max_input_bytes: u64,
    cache: &TargetCache,
    budget: &Displacements,
) -> Result<LoadedBody, ConvertError> {
    use mpfb_body::description::DetailTarget;
    let mut description = match &files.human {
        None => mpfb_body::Description::default(),
        Some(path) => mpfb_body::parse_description(
            &read_input_of(path, max_input_bytes, Kind::DESCRIPTION)?,
            path,
        )?,
    };
    for (name, value) in &options.phenotype {
        description.phenotype.set(name, *value);
    }
    for (name, weight) in &options.targets {
        description.targets.push(DetailTarget {
            name: name.clone(),
            weight: *weight,
            // A flag has no file: its name stands where a file would.
            location: location::Location::file("--target"),
        });
    }
    // The resolver gives every job with a body its targets folder.
    let dir = files.targets_dir.as_deref().unwrap_or(Path::new("targets"));
    let folder = cache.folder(dir)?;
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
                target: budget.spend(cache.target(&path)?)?,
            });
        }
    }
    // Parsed in parallel: a body's macro targets are dozens of files, most of its cost.
    use rayon::prelude::*;
    let targets = description
        .resolve(index, spec, options.model)?
        .into_par_iter()
        .map(|w| {
            let target = budget.spend(cache.target(&w.path)?)?;
            Ok((w, target))
        })
        .collect::<Result<Vec<_>, ConvertError>>()?;
    Ok(LoadedBody {
        description,
        model: options.model,
        targets,
        source: files.human.clone(),
        shapes,
    })
}

/// A MakeHuman asset a job wears, read: its fitting file, its mesh, its material, its
/// custom weights and sub-rig when it has them. Paths in the fitting file are relative to it.
#[derive(Debug, Clone)]
pub struct LoadedWearable {
    /// Its kind.
    pub kind: crate::outfit::AssetKind,
    /// The `.mhclo` (or `.proxy`).
    pub path: PathBuf,
    /// The fitting file.
    pub proxy: makehuman_assets::ProxyFile,
    /// Its mesh (`obj_file`), in the file's numbering.
    pub obj: ObjMesh,
    /// Its material (`material`, or the one the job gives it) with the images it names.
    pub material: Option<LoadedMaterial>,
    /// Custom weights (`vertexboneweights_file`).
    pub custom_weights: Option<(PathBuf, WeightsFile)>,
    /// The sub-rig MPFB loads with it (`NAME.mpfbskel` beside the fitting file).
    pub subrig: Option<LoadedSubrig>,
    /// Its mesh's polygons, texture coordinates and numbering as an attachment, without and
    /// with its material, made on first use and shared by every body wearing it.
    topology: [std::sync::OnceLock<AssetTopology>; 2],
}

/// What every body wearing an asset shares of its mesh.
#[derive(Debug, Clone)]
pub struct AssetTopology {
    /// Texture coordinates, flipped to G4MF's top-left origin.
    pub texcoords: Arc<Vec<[f64; 2]>>,
    /// Every polygon, with material 0 when the asset is given its material.
    pub polygons: Arc<character::Polygons>,
    /// The identity numbering of its vertices.
    pub numbering: Arc<character::Numbering>,
}

impl LoadedWearable {
    /// Its mesh as an attachment shares it: polygons (with the asset's material as material 0
    /// when `with_material`), texture coordinates and numbering.
    pub fn topology(&self, with_material: bool) -> &AssetTopology {
        self.topology[usize::from(with_material)].get_or_init(|| {
            let obj = &self.obj;
            AssetTopology {
                // OBJ's v runs up from the bottom; G4MF textures start top-left.
                texcoords: Arc::new(obj.texcoords.iter().map(|&[u, v]| [u, 1.0 - v]).collect()),
                polygons: Arc::new(character::Polygons {
                    offsets: obj.face_offsets.clone(),
                    vertices: obj.corners.iter().map(|c| c.vertex).collect(),
                    texcoords: obj.corners.iter().map(|c| c.texcoord).collect(),
                    materials: vec![with_material.then_some(0); obj.face_count()],
                    parts: obj.face_group_set.clone(),
                    part_sets: obj.group_sets.clone(),
                }),
                numbering: Arc::new(character::Numbering::identity(obj.positions.len())),
            }
        })
    }
}

/// A MakeHuman material (`.mhmat`, an asset's or a skin) and the images it names.
#[derive(Debug, Clone)]
pub struct LoadedMaterial {
    /// The `.mhmat`.
    pub path: PathBuf,
    /// Its settings.
    pub file: makehuman_assets::MaterialFile,
    /// The images it names, read (or found missing).
    pub images: LoadedImages,
}

impl LoadedMaterial {
    /// Reads the material at `path` and, with `read_images` (`--textures none` reads none),
    /// its images, each bounded by `limit`; the images it names stay in the assets folder
    /// `assets` (or the material's folder, outside it).
    pub fn load(
        path: &Path,
        limit: u64,
        read_images: bool,
        assets: Option<&Path>,
    ) -> Result<Self, ConvertError> {
        let file =
            makehuman_assets::parse_material(&read_input_text_of(path, limit, Kind::MATERIAL)?)
                .map_err(|e| e.with_file(path))?;
        let root = crate::confine::root_for(path, assets);
        for texture in &file.textures {
            crate::confine::resolve(path, &texture.key, &texture.path, &root)?;
        }
        let images = if read_images {
            LoadedImages::of(path, &file, limit)
        } else {
            LoadedImages::unread(path, &file)
        };
        Ok(Self {
            path: path.to_path_buf(),
            file,
            images,
        })
    }
}

/// The images a material names, by channel, read (or found missing).
#[derive(Debug, Clone, Default)]
pub struct LoadedImages {
    /// `diffuseTexture`.
    pub base_color: Option<LoadedImage>,
    /// `normalmapTexture`.
    pub normal: Option<LoadedImage>,
    /// The `orm` image packed from `aomapTexture`, `roughnessmapTexture` and
    /// `metallicmapTexture` (see [`crate::orm`]), when the material names any of them.
    pub orm: Option<PackedOrm>,
}

/// The `orm` image of a material: packed once per material file, shared by every job.
#[derive(Debug, Clone)]
pub struct PackedOrm {
    /// Where the packed image would be (`{material stem}_orm.png` beside the material): it
    /// names the texture; nothing is written there.
    pub path: PathBuf,
    /// The packed image, or why none could be made (no map usable).
    pub image: Result<character::Image, crate::images::Unusable>,
    /// The maps named but not there.
    pub missing: Vec<PathBuf>,
    /// The maps named and there but unusable (unreadable, too large, undecodable), and why.
    pub unusable: Vec<(PathBuf, String)>,
}

/// One image a material names: where, and the image or why it cannot be used.
pub type LoadedImage = (PathBuf, Result<character::Image, crate::images::Unusable>);

impl LoadedImages {
    /// The images `material` (at `path`) names, relative to its folder, each read whole.
    pub fn of(path: &Path, material: &makehuman_assets::MaterialFile, limit: u64) -> Self {
        Self::named(path, material, |file, decode| {
            read_image(file, limit, decode)
        })
    }

    /// The images `material` (at `path`) names, none of them read (`--textures none`): the
    /// textures keep their placeholders, which the writer folds into the factors.
    pub fn unread(path: &Path, material: &makehuman_assets::MaterialFile) -> Self {
        Self::named(path, material, |_, _| Err(crate::images::Unusable::NotRead))
    }

    /// The images `material` (at `path`) names, each given by `read` (decoded to check it
    /// when asked: the `orm` maps are not, their packing decodes each once), the `orm` maps
    /// packed.
    fn named(
        path: &Path,
        material: &makehuman_assets::MaterialFile,
        read: impl Fn(&Path, bool) -> Result<character::Image, crate::images::Unusable>,
    ) -> Self {
        use crate::images::Unusable;
        let folder = path.parent().unwrap_or(Path::new("."));
        let image = |key: &str, decode: bool| {
            let texture = material.textures.iter().find(|t| t.key == key)?;
            let file = folder.join(&texture.path);
            let image = read(&file, decode);
            Some((file, image))
        };
        let maps = crate::orm::KEYS.map(|key| image(key, false));
        let orm = maps.iter().any(Option::is_some).then(|| {
            let stem = path.file_stem().unwrap_or_default().to_string_lossy();
            let mut missing = Vec::new();
            let mut unusable = Vec::new();
            for (file, image) in maps.iter().flatten() {
                match image {
                    Err(Unusable::Missing) => missing.push(file.clone()),
                    Err(why @ Unusable::Bad(_)) => unusable.push((file.clone(), why.describe())),
                    Err(Unusable::NotRead) | Ok(_) => {}
                }
            }
            let all_unread = maps
                .iter()
                .flatten()
                .all(|(_, i)| *i == Err(Unusable::NotRead));
            let image = if all_unread {
                Err(Unusable::NotRead)
            } else {
                pack_maps(&maps, material, &mut unusable)
            };
            PackedOrm {
                path: folder.join(format!("{stem}_orm.png")),
                image,
                missing,
                unusable,
            }
        });
        Self {
            base_color: image("diffuseTexture", true),
            normal: image("normalmapTexture", true),
            orm,
        }
    }
}

/// The `orm` image packed from `maps` (as read: sized, not decoded), each decoded once here
/// (that decode is its check: one that fails is added to `unusable` with why), or
/// [`crate::images::Unusable::Missing`] when none is usable.
fn pack_maps(
    maps: &[Option<LoadedImage>; 3],
    material: &makehuman_assets::MaterialFile,
    unusable: &mut Vec<(PathBuf, String)>,
) -> Result<character::Image, crate::images::Unusable> {
    let images = maps
        .each_ref()
        .map(|m| m.as_ref().and_then(|(_, i)| i.as_ref().ok()));
    if images.iter().all(Option::is_none) {
        return Err(crate::images::Unusable::Missing);
    }
    let crate::orm::DecodedMaps {
        size,
        channels,
        undecodable,
    } = crate::orm::decode_maps(images);
    let (width, height) = size.unwrap_or((1, 1));
    let failed: Vec<(PathBuf, String)> = undecodable
        .into_iter()
        .filter_map(|(c, why)| Some((maps[c].as_ref()?.0.clone(), why.describe())))
        .collect();
    unusable.extend(failed);
    // None decodes: `Missing` as when none is usable at all; `unusable` names each.
    crate::orm::pack_decoded(channels, crate::orm::defaults(material), width, height)
}

/// The image at `path` as it is (at most `limit` bytes and [`Kind::IMAGE`]'s), or why it
/// cannot be used: missing, unreadable, or not a PNG or JPEG within the bounds, or (when
/// `decode`) one that does not decode.
fn read_image(
    path: &Path,
    limit: u64,
    decode: bool,
) -> Result<character::Image, crate::images::Unusable> {
    use crate::images::Unusable;
    if !path.is_file() {
        return Err(Unusable::Missing);
    }
    let bytes =
        read_input_of(path, limit, Kind::IMAGE).map_err(|e| Unusable::Bad(e.to_string()))?;
    if decode {
        crate::images::image_of(bytes)
    } else {
        crate::images::image_header(bytes)
    }
}

/// An asset's own bones (MPFB's `.mpfbskel`, fitted to the asset's vertices) and their
/// weights (`NAME.mhw` beside it, with the `mhmask-subrig` mixing group).
#[derive(Debug, Clone)]
pub struct LoadedSubrig {
    /// The `.mpfbskel`.
    pub path: PathBuf,
    /// Its bones.
    pub rig: Rig,
    /// Its weights, when the asset ships them.
    pub weights: Option<WeightsFile>,
}

impl LoadedWearable {
    /// Reads `worn` and the files it names (its material's images with `read_images`), each
    /// bounded by `limit` and kept in the assets folder `assets` (or the asset's folder,
    /// outside it).
    pub fn load(
        worn: &crate::outfit::WornAsset,
        limit: u64,
        read_images: bool,
        assets: Option<&Path>,
    ) -> Result<Self, ConvertError> {
        let path = &worn.path;
        let proxy = makehuman_assets::parse_proxy(&read_input_text_of(path, limit, Kind::ASSET)?)
            .map_err(|e| e.with_file(path))?;
        let root = crate::confine::root_for(path, assets);
        let obj_path = crate::confine::resolve(path, "obj_file", &proxy.obj_file, &root)?;
        check_input_size(&obj_path, limit)?;
        let obj = mpfb_mesh::parse_obj(&read_input_of(&obj_path, limit, Kind::MESH)?)
            .map_err(|e| e.with_file(&obj_path))?;
        if obj.positions.len() != proxy.references.len() {
            return Err(ConvertError::Wear {
                asset: path.clone(),
                problem: format!(
                    "{} has {} vertices but the fitting file places {}",
                    obj_path.display(),
                    obj.positions.len(),
                    proxy.references.len()
                ),
            });
        }
        let material_path = match (&worn.material, &proxy.material) {
            (Some(chosen), _) => Some(chosen.clone()),
            (None, Some(own)) => Some(crate::confine::resolve(path, "material", own, &root)?),
            (None, None) => None,
        };
        let material = material_path
            .map(|m| LoadedMaterial::load(&m, limit, read_images, assets))
            .transpose()?;
        let custom_weights = match &proxy.vertex_bone_weights_file {
            None => None,
            Some(w) => {
                let w = crate::confine::resolve(path, "vertexboneweights_file", w, &root)?;
                let file =
                    mpfb_weights::parse_weights(&read_input_text_of(&w, limit, Kind::WEIGHTS)?)
                        .map_err(|e| e.with_file(&w))?;
                Some((w, file))
            }
        };
        let subrig_path = path.with_extension("mpfbskel");
        let subrig = if subrig_path.is_file() {
            let rig = mpfb_rig::parse_rig(&read_input_text_of(&subrig_path, limit, Kind::RIG)?)
                .map_err(|e| e.with_file(&subrig_path))?;
            let weights_path = path.with_extension("mhw");
            let weights = if weights_path.is_file() {
                let text = read_input_text_of(&weights_path, limit, Kind::WEIGHTS)?;
                Some(mpfb_weights::parse_weights(&text).map_err(|e| e.with_file(&weights_path))?)
            } else {
                None
            };
            Some(LoadedSubrig {
                path: subrig_path,
                rig,
                weights,
            })
        } else {
            None
        };
        Ok(Self {
            kind: worn.kind,
            path: path.clone(),
            proxy,
            obj,
            material,
            custom_weights,
            subrig,
            topology: Default::default(),
        })
    }
}

/// Everything one job reads, loaded.
#[derive(Debug, Clone)]
pub struct LoadedJob {
    /// The rig.
    pub rig: Arc<LoadedRig>,
    /// The mesh.
    pub mesh: Arc<LoadedMesh>,
    /// The weights.
    pub weights: Option<Arc<LoadedWeights>>,
    /// The body description and its targets.
    pub body: Option<LoadedBody>,
    /// Shapes, rest pose, humanoid table, bone map.
    pub assets: LoadedAssets,
    /// The MakeHuman assets it wears, in the outfit's order.
    pub worn: Vec<Arc<LoadedWearable>>,
    /// The skin's material, when it is not MakeHuman's litsphere default.
    pub skin: Option<Arc<LoadedMaterial>>,
    /// The material colouring the helper eyes' painted iris (`--eye-material` when no eye
    /// asset is worn); its images are not read.
    pub helper_eyes: Option<Arc<LoadedMaterial>>,
}

/// A shared input: parsed on first use, dropped after its last job.
struct Shared<T> {
    state: Mutex<Option<Result<Arc<T>, Arc<ConvertError>>>>,
    remaining: AtomicUsize,
}

impl<T> Shared<T> {
    fn new(uses: usize) -> Self {
        Self {
            state: Mutex::new(None),
            remaining: AtomicUsize::new(uses),
        }
    }

    /// The input, loaded by the first job that asks. Holding the lock while loading makes
    /// other jobs wait instead of parsing again; loading never enters rayon, so a thread
    /// holding the lock never steals a job that waits for it.
    fn get(&self, load: impl FnOnce() -> Result<T, ConvertError>) -> Result<Arc<T>, ConvertError> {
        let mut state = self
            .state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        state
            .get_or_insert_with(|| load().map(Arc::new).map_err(Arc::new))
            .clone()
            .map_err(ConvertError::Shared)
    }

    fn release(&self) {
        if self.remaining.fetch_sub(1, Ordering::AcqRel) == 1 {
            *self
                .state
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner) = None;
        }
    }
}

fn shared_map<K: std::hash::Hash + Eq, T>(keys: impl Iterator<Item = K>) -> HashMap<K, Shared<T>> {
    let mut uses: HashMap<K, usize> = HashMap::new();
    for k in keys {
        *uses.entry(k).or_default() += 1;
    }
    uses.into_iter().map(|(k, n)| (k, Shared::new(n))).collect()
}

type MeshKey = (PathBuf, Option<PathBuf>);

fn mesh_key(files: &JobFiles) -> MeshKey {
    (files.mesh.clone(), files.vertex_groups.clone())
}

/// True when `job` reads the images its materials name (every `--textures` mode but `none`).
fn reads_images(job: &Job) -> bool {
    job.options.textures != crate::options::TextureMode::None
}

/// Loads jobs, sharing what they have in common.
pub struct Loader {
    rigs: HashMap<PathBuf, Shared<LoadedRig>>,
    meshes: HashMap<MeshKey, Shared<LoadedMesh>>,
    weights: HashMap<PathBuf, Shared<LoadedWeights>>,
    /// Worn assets by the asset and whether their images are read (not with `--textures
    /// none`): a batch mixing modes reads an asset once per mode.
    worn: HashMap<(crate::outfit::WornAsset, bool), Shared<LoadedWearable>>,
    /// Skins by file and whether their images are read.
    skins: HashMap<(PathBuf, bool), Shared<LoadedMaterial>>,
    targets: TargetCache,
    motion: MotionCache,
    max_input_bytes: Option<u64>,
}

/// MakeHuman's motion files parsed once per batch: the expressions' skeleton, weights and
/// pose units (by the skeleton's path), BVH files and `.mhskel` skeletons (by path). A file
/// no job of the batch announced is read for the job that asks.
#[derive(Default)]
pub struct MotionCache {
    makehuman: HashMap<PathBuf, Shared<crate::expressions::MakeHumanFiles>>,
    bvhs: HashMap<PathBuf, Shared<makehuman_poses::Bvh>>,
    skeletons: HashMap<PathBuf, Shared<makehuman_poses::MhSkel>>,
}

impl MotionCache {
    /// The files `jobs` read, each counted per job so it is freed after its last job.
    pub fn new(jobs: &[Job]) -> Self {
        let expressions = || jobs.iter().filter_map(|j| j.files.expressions.as_ref());
        let poses = || jobs.iter().filter_map(|j| j.files.poses.as_ref());
        Self {
            makehuman: shared_map(expressions().map(|e| e.makehuman[0].clone())),
            bvhs: shared_map(
                poses().flat_map(|p| p.bake.iter().chain(&p.clips).map(|m| m.path.clone())),
            ),
            skeletons: shared_map(
                poses().flat_map(|p| p.default_skeleton.iter().chain(&p.rig_skeleton).cloned()),
            ),
        }
    }

    /// MakeHuman's files for `files`' expressions.
    fn makehuman(
        &self,
        files: &crate::expressions::ExpressionFiles,
        limit: u64,
    ) -> Result<Arc<crate::expressions::MakeHumanFiles>, ConvertError> {
        let load = || crate::expressions::MakeHumanFiles::load(files, limit);
        match self.makehuman.get(&files.makehuman[0]) {
            Some(shared) => shared.get(load),
            None => load().map(Arc::new),
        }
    }

    /// The BVH file at `path`.
    fn bvh(&self, path: &Path, limit: u64) -> Result<Arc<makehuman_poses::Bvh>, ConvertError> {
        let load = || crate::poses::read_bvh(path, limit);
        match self.bvhs.get(path) {
            Some(shared) => shared.get(load),
            None => load().map(Arc::new),
        }
    }

    /// The `.mhskel` file at `path`.
    fn skeleton(
        &self,
        path: &Path,
        limit: u64,
    ) -> Result<Arc<makehuman_poses::MhSkel>, ConvertError> {
        let load = || crate::poses::read_skeleton(path, limit);
        match self.skeletons.get(path) {
            Some(shared) => shared.get(load),
            None => load().map(Arc::new),
        }
    }

    /// `job` is done with its files.
    fn release(&self, job: &Job) {
        if let Some(e) = &job.files.expressions {
            if let Some(shared) = self.makehuman.get(&e.makehuman[0]) {
                shared.release();
            }
        }
        if let Some(p) = &job.files.poses {
            for motion in p.bake.iter().chain(&p.clips) {
                if let Some(shared) = self.bvhs.get(&motion.path) {
                    shared.release();
                }
            }
            for path in p.default_skeleton.iter().chain(&p.rig_skeleton) {
                if let Some(shared) = self.skeletons.get(path) {
                    shared.release();
                }
            }
        }
    }
}

impl Loader {
    /// A loader for `jobs` (each shared file is freed after the last of them released it).
    pub fn new(jobs: &[Job]) -> Self {
        Self {
            rigs: shared_map(jobs.iter().map(|j| j.files.rig.clone())),
            meshes: shared_map(jobs.iter().map(|j| mesh_key(&j.files))),
            weights: shared_map(jobs.iter().filter_map(|j| j.files.weights.clone())),
            worn: shared_map(jobs.iter().flat_map(|j| {
                let read = reads_images(j);
                j.files.outfit.worn.iter().map(move |w| (w.clone(), read))
            })),
            skins: shared_map(
                jobs.iter()
                    .filter_map(|j| Some((j.files.outfit.skin.clone()?, reads_images(j)))),
            ),
            targets: TargetCache::default(),
            motion: MotionCache::new(jobs),
            max_input_bytes: None,
        }
    }

    /// The input size limit for every job (instead of each job's own setting).
    pub fn with_input_limit(mut self, max_input_bytes: u64) -> Self {
        self.max_input_bytes = Some(max_input_bytes);
        self
    }

    /// Loads everything `job` names: the size of every file checked first, then the mesh
    /// parsed on one core while the rig and weights parse on the other (`rayon::join`, which
    /// also starts rayon's pool before the first parallel stage needs it), then the body and
    /// the assets. Call [`Loader::release`] after converting.
    pub fn load(&self, job: &Job) -> Result<LoadedJob, ConvertError> {
        let limit = self.max_input_bytes.unwrap_or(job.options.max_input_bytes);
        for path in job.files.files() {
            check_input_size(path, limit)?;
        }
        let files = &job.files;
        let unknown = || ConvertError::NoRig;
        let ((rig, weights), mesh) = rayon::join(
            || {
                let rig = crate::timings::part("rig", || {
                    self.rigs
                        .get(&files.rig)
                        .ok_or_else(unknown)?
                        .get(|| LoadedRig::load_limited(&files.rig, limit))
                });
                let weights = crate::timings::part("weights", || {
                    files
                        .weights
                        .as_ref()
                        .map(|path| {
                            self.weights
                                .get(path)
                                .ok_or_else(unknown)?
                                .get(|| LoadedWeights::load_limited(path, limit))
                        })
                        .transpose()
                });
                (rig, weights)
            },
            || {
                crate::timings::part("mesh", || {
                    self.meshes
                        .get(&mesh_key(files))
                        .ok_or_else(unknown)?
                        .get(|| {
                            LoadedMesh::load_limited(
                                &files.mesh,
                                files.vertex_groups.as_deref(),
                                limit,
                            )
                        })
                })
            },
        );
        // Report the first input in command-line order that failed.
        let (rig, mesh, weights) = (rig?, mesh?, weights?);
        crate::timings::lap("load inputs");
        let budget = Displacements::default();
        let body = job
            .options
            .body
            .as_ref()
            .map(|b| load_body(b, files, limit, &self.targets, &budget))
            .transpose()?;
        let assets = load_assets(job, (&self.targets, &self.motion), limit, &budget)?;
        let read_images = reads_images(job);
        // Each asset's files parse on their own: in parallel (a suit's are the largest).
        use rayon::prelude::*;
        let worn = files
            .outfit
            .worn
            .par_iter()
            .map(|w| {
                self.worn
                    .get(&(w.clone(), read_images))
                    .ok_or_else(unknown)?
                    .get(|| {
                        LoadedWearable::load(w, limit, read_images, files.outfit.folder.as_deref())
                    })
            })
            .collect::<Result<Vec<_>, _>>()?;
        let skin = files
            .outfit
            .skin
            .as_ref()
            .map(|path| {
                self.skins
                    .get(&(path.clone(), read_images))
                    .ok_or_else(unknown)?
                    .get(|| {
                        LoadedMaterial::load(
                            path,
                            limit,
                            read_images,
                            files.outfit.folder.as_deref(),
                        )
                    })
            })
            .transpose()?;
        // A small file, read by each job that names it: only its name and keys are used.
        let helper_eyes = files
            .outfit
            .helper_eye_material
            .as_ref()
            .map(|path| {
                LoadedMaterial::load(path, limit, false, files.outfit.folder.as_deref())
                    .map(Arc::new)
            })
            .transpose()?;
        crate::timings::lap("load body and assets");
        Ok(LoadedJob {
            rig,
            mesh,
            weights,
            body,
            assets,
            worn,
            skin,
            helper_eyes,
        })
    }

    /// Says `job` is done with its shared files; the last job frees them.
    pub fn release(&self, job: &Job) {
        self.motion.release(job);
        if let Some(shared) = self.rigs.get(&job.files.rig) {
            shared.release();
        }
        if let Some(shared) = self.meshes.get(&mesh_key(&job.files)) {
            shared.release();
        }
        if let Some(shared) = job.files.weights.as_ref().and_then(|w| self.weights.get(w)) {
            shared.release();
        }
        let read_images = reads_images(job);
        for worn in &job.files.outfit.worn {
            if let Some(shared) = self.worn.get(&(worn.clone(), read_images)) {
                shared.release();
            }
        }
        if let Some(shared) = job
            .files
            .outfit
            .skin
            .as_ref()
            .and_then(|s| self.skins.get(&(s.clone(), read_images)))
        {
            shared.release();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `--textures none` reads no image: even a bomb or a truncated one is never opened,
    /// and no `orm` is packed.
    #[test]
    fn unread_images_are_named_but_never_read() {
        let dir = tempfile::tempdir().unwrap();
        let material = dir.path().join("m.mhmat");
        std::fs::write(
            &material,
            "name m\ndiffuseTexture a.png\naomapTexture b.png\n",
        )
        .unwrap();
        std::fs::write(
            dir.path().join("a.png"),
            test_support::images::grey_png(2, 2, 9),
        )
        .unwrap();
        std::fs::write(
            dir.path().join("b.png"),
            test_support::images::grey_png(2, 2, 9),
        )
        .unwrap();
        let not_read = Err(crate::images::Unusable::NotRead);
        let unread = LoadedMaterial::load(&material, 1 << 20, false, None).unwrap();
        assert_eq!(
            unread.images.base_color.as_ref().map(|b| &b.1),
            Some(&not_read)
        );
        let orm = unread.images.orm.unwrap();
        assert_eq!(orm.image, not_read);
        assert!(orm.missing.is_empty() && orm.unusable.is_empty());
        let read = LoadedMaterial::load(&material, 1 << 20, true, None).unwrap();
        assert!(read.images.base_color.unwrap().1.is_ok());
        assert!(read.images.orm.unwrap().image.is_ok());
    }

    #[test]
    fn an_image_that_is_not_there_is_missing_not_an_error() {
        assert_eq!(
            read_image(Path::new("/no/such/image.png"), 1 << 20, true),
            Err(crate::images::Unusable::Missing)
        );
    }

    /// Each image is decoded once per conversion: the base colour to check it, each `orm`
    /// map once to pack it (that decode is its check), the packed map not again.
    #[test]
    fn each_image_is_decoded_once() {
        let dir = tempfile::tempdir().unwrap();
        let material = dir.path().join("m.mhmat");
        std::fs::write(
            &material,
            "name m\ndiffuseTexture d.png\naomapTexture a.png\n\
             roughnessmapTexture r.png\nmetallicmapTexture cut.png\n",
        )
        .unwrap();
        for (file, side) in [("d.png", 4), ("a.png", 8), ("r.png", 16)] {
            std::fs::write(
                dir.path().join(file),
                test_support::images::grey_png(side, side, 7),
            )
            .unwrap();
        }
        std::fs::write(
            dir.path().join("cut.png"),
            test_support::images::truncated_png(),
        )
        .unwrap();
        crate::images::DECODES.with(|count| count.set(0));
        let loaded = LoadedMaterial::load(&material, 1 << 20, true, None).unwrap();
        assert_eq!(crate::images::DECODES.with(std::cell::Cell::get), 4);
        let orm = loaded.images.orm.unwrap();
        assert_eq!(orm.image.map(|i| i.size), Ok([16, 16]));
        // The map that does not decode is still found and named.
        assert_eq!(orm.unusable.len(), 1, "{:?}", orm.unusable);
        assert!(orm.unusable[0].0.ends_with("cut.png"));
        assert!(orm.unusable[0].1.contains("cannot be decoded"));
    }
}
