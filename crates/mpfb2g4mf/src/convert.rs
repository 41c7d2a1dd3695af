//! The conversion: options, errors, the summary, and [`convert`], which runs the stages of
//! [`crate::stages`] in order over parsed inputs ([`crate::inputs`]).

pub use crate::inputs::{
    DEFAULT_MAX_INPUT_BYTES, InputPaths, LoadedBody, LoadedMesh, LoadedRig, LoadedWeights,
    check_input_size, load_body, load_inputs,
};
use crate::stages::{
    self,
    assemble::{Assembled, assemble, file_name},
    body::Body,
    transforms,
};
use g4mf_writer::Compression;
use glam::DVec3;
use location::Location;
use mpfb_rig::{ObjFrame, RigLayout};
use mpfb_weights::BoneMap;
use serde::{Deserialize, Serialize};
use std::path::PathBuf;
use std::time::Instant;

/// The generator string written into every file.
pub const GENERATOR: &str = concat!("mpfb2g4mf ", env!("CARGO_PKG_VERSION"));

/// A conversion failed. Each variant says which input is at fault and where.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ConvertError {
    /// The rig cannot be read, checked or fitted.
    #[error(transparent)]
    Rig(#[from] mpfb_rig::RigError),
    /// The mesh or vertex-group file cannot be read.
    #[error(transparent)]
    Mesh(#[from] mpfb_mesh::MeshError),
    /// The weights or bone map cannot be read or resolved.
    #[error(transparent)]
    Weights(#[from] mpfb_weights::WeightsError),
    /// A bone end fell back to its default position (allowed only with `allow_fallback`).
    #[error("{0}")]
    Fallback(Box<FallbackRefused>),
    /// The output could not be built.
    #[error("{0}")]
    Write(#[from] g4mf_writer::WriteError),
    /// The output could not be written.
    #[error("cannot write {path}: {source}")]
    Output {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
    /// An input file is larger than the configured limit.
    #[error("{path}: {size} bytes exceeds the input limit of {limit} bytes")]
    InputTooLarge {
        /// The file.
        path: PathBuf,
        /// Its size.
        size: u64,
        /// The limit.
        limit: u64,
    },
    /// A body description cannot be read or resolved.
    #[error(transparent)]
    Body(#[from] mpfb_body::description::DescriptionError),
    /// A target file cannot be read.
    #[error(transparent)]
    Target(#[from] mpfb_body::TargetError),
    /// A target moves a vertex the mesh does not have (the mesh is not MakeHuman's base mesh).
    #[error(transparent)]
    Morph(#[from] mpfb_body::morph::MorphError),
    /// Targets apply to a Y-up mesh in MakeHuman's numbering.
    #[error("targets are in base.obj's Y-up frame; a Z-up mesh cannot be morphed")]
    MorphZUp,
    /// A pose file cannot be read.
    #[error(transparent)]
    Pose(#[from] mpfb_rig::PoseError),
    /// A rest pose cannot be made.
    #[error("rest pose: {0}")]
    RestPose(String),
    /// A humanoid renaming table cannot be used.
    #[error("humanoid table {table}: {}", problems.join("; "))]
    Humanoid {
        /// The table (file or built-in name).
        table: String,
        /// What is wrong, one entry per problem.
        problems: Vec<String>,
    },
    /// No targets folder: none given and no MPFB data found.
    #[error("no targets folder (no MPFB data in {})", tried.iter().map(|p| p.display().to_string()).collect::<Vec<_>>().join(", "))]
    NoTargets {
        /// Where MPFB data was looked for.
        tried: Vec<PathBuf>,
    },
    /// An input file cannot be read.
    #[error("{location}: {source}")]
    Input {
        /// The file.
        location: Location,
        /// The I/O error.
        source: std::io::Error,
    },
    /// An input file is not valid JSON.
    #[error("{location}: {message}")]
    Syntax {
        /// Where.
        location: Location,
        /// What the parser said.
        message: String,
    },
    /// The output path has no `.g4b` or `.g4tf` extension.
    #[error("{0}: the output must end in .g4b or .g4tf")]
    OutputExtension(PathBuf),
}

/// A bone end that would fall back to its default position, refused.
#[derive(Debug, thiserror::Error)]
#[error(
    "{location}: bone `{bone}` {end} cannot be placed on the mesh {mesh} ({reason}); its default position would be used",
    mesh = mesh.display()
)]
pub struct FallbackRefused {
    /// The rig file and the end's JSON pointer.
    pub location: Location,
    /// The mesh file.
    pub mesh: PathBuf,
    /// The bone.
    pub bone: String,
    /// Which end.
    pub end: String,
    /// Why.
    pub reason: String,
}

/// The output container.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum OutputFormat {
    /// `.g4b`.
    Binary,
    /// `.g4tf` with base64 buffers inside.
    TextEmbedded,
    /// `.g4tf` with a `.bin` beside it.
    TextExternal,
}

/// Where the character stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
#[serde(rename_all = "snake_case")]
pub enum Origin {
    /// Feet on y = 0 (the `joint-ground` cube, else the lowest body vertex), carried as the
    /// skeleton node's position, as MakeHuman's exporters do.
    #[default]
    Ground,
    /// The mesh's own origin.
    Mesh,
}

/// How to convert.
#[derive(Debug, Clone)]
pub struct ConvertOptions {
    /// The output file (`.g4b` or `.g4tf`).
    pub output: PathBuf,
    /// With `.g4tf`: write the buffer to a `.bin` beside it.
    pub external_bin: bool,
    /// Buffer (and `.g4b` JSON) compression.
    pub compression: Compression,
    /// Pretty-print the JSON.
    pub pretty: bool,
    /// Helper geometry kept besides the body.
    pub helpers: crate::options::Helpers,
    /// Write no normals (flat shading).
    pub flat: bool,
    /// Dress the character: name its surfaces and give each a material.
    pub materials: bool,
    /// Embed a PNG thumbnail (`asset.thumbnail`).
    pub thumbnail: bool,
    /// Keep at most this many influences per vertex (renormalised).
    pub max_influences: Option<usize>,
    /// Renormalise every vertex's weights to sum 1.
    pub normalize: bool,
    /// A pose baked into the rest.
    pub rest_pose: Option<crate::stages::rest_pose::RestPose>,
    /// Rename bones to G4MF's humanoid names.
    pub humanoid: Option<crate::stages::humanoid::HumanoidTable>,
    /// List every bone as a joint.
    pub all_joints: bool,
    /// Write `groupNames`.
    pub group_names: bool,
    /// OBJ units and axes.
    pub frame: ObjFrame,
    /// Where the character stands.
    pub origin: Origin,
    /// Accept bone ends placed at their default position.
    pub allow_fallback: bool,
    /// The character's name; defaults to the output's file stem.
    pub name: Option<String>,
    /// A user map of weight groups to bones.
    pub bone_map: BoneMap,
    /// Largest input file accepted, in bytes.
    pub max_input_bytes: u64,
    /// A body built from MakeHuman targets instead of the mesh as read.
    pub body: Option<crate::options::BodyOptions>,
    /// Targets written as blend shapes.
    pub shapes: crate::options::ShapeOptions,
}

impl ConvertOptions {
    /// Default options writing to `output`.
    pub fn new(output: impl Into<PathBuf>) -> Self {
        Self {
            output: output.into(),
            external_bin: false,
            compression: Compression::None,
            pretty: false,
            helpers: crate::options::Helpers::Face,
            flat: false,
            materials: true,
            thumbnail: false,
            max_influences: None,
            normalize: false,
            humanoid: None,
            rest_pose: None,
            all_joints: false,
            group_names: true,
            frame: ObjFrame::MAKEHUMAN,
            origin: Origin::Ground,
            allow_fallback: false,
            name: None,
            bone_map: BoneMap::new(),
            max_input_bytes: DEFAULT_MAX_INPUT_BYTES,
            body: None,
            shapes: crate::options::ShapeOptions::default(),
        }
    }

    /// The container the output path and options ask for.
    pub fn format(&self) -> Result<OutputFormat, ConvertError> {
        match self.output.extension().and_then(|e| e.to_str()) {
            Some("g4b") => Ok(OutputFormat::Binary),
            Some("g4tf") if self.external_bin => Ok(OutputFormat::TextExternal),
            Some("g4tf") => Ok(OutputFormat::TextEmbedded),
            _ => Err(ConvertError::OutputExtension(self.output.clone())),
        }
    }
}

/// What a conversion did, for the summary line and `--json`.
#[derive(Debug, Clone, Serialize)]
pub struct Summary {
    /// The output file.
    pub output: PathBuf,
    /// Extra files written (the external `.bin`).
    pub external: Vec<PathBuf>,
    /// The container.
    pub format: OutputFormat,
    /// Bytes written (all files).
    pub bytes: u64,
    /// Rig file and layout.
    pub rig: String,
    /// Bones written.
    pub bones: usize,
    /// Joints written.
    pub joints: usize,
    /// Vertices in the mesh file.
    pub mesh_vertices: usize,
    /// Vertices written.
    pub kept_vertices: usize,
    /// Faces written.
    pub faces: usize,
    /// Weights file, if any.
    pub weights: Option<String>,
    /// Skin entries written.
    pub weight_pairs: usize,
    /// Most influences on one vertex.
    pub max_influences: usize,
    /// Kept vertices no bone moves.
    pub unweighted_vertices: usize,
    /// Bone ends placed at their default position.
    pub fallbacks: Vec<String>,
    /// Everything worth a look.
    pub warnings: Vec<String>,
    /// Skeleton offset that puts the character on the ground (metres, G4MF y).
    pub ground_offset: f64,
    /// What `--max-influences` / `--normalize` changed (when asked).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub influence_changes: Option<InfluenceChanges>,
    /// Wall time in milliseconds.
    pub millis: f64,
}

/// What limiting or normalising influences changed.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct InfluenceChanges {
    /// Vertices whose weights changed.
    pub vertices_changed: usize,
    /// Influences dropped.
    pub influences_dropped: usize,
    /// The largest weight dropped (0 when none).
    pub largest_dropped: f64,
}

/// Converts input files into a G4MF file: refuses a bad output extension before reading
/// anything, loads the inputs (stage 1, with the size limit), then runs [`convert`].
pub fn convert_files(
    inputs: &InputPaths,
    options: &ConvertOptions,
) -> Result<Summary, ConvertError> {
    options.format()?;
    crate::timings::lap("options");
    let (rig, mesh, weights) = inputs.load(options.max_input_bytes)?;
    crate::timings::lap("load inputs");
    let cache = crate::inputs::TargetCache::default();
    let body = options
        .body
        .as_ref()
        .map(|b| crate::inputs::load_body_shared(b, options.max_input_bytes, &cache))
        .transpose()?;
    let assets = crate::inputs::load_assets(options, &rig.path, &cache)?;
    crate::timings::lap("load body and assets");
    convert_body(
        &rig,
        &mesh,
        weights.as_ref(),
        body.as_ref(),
        &assets,
        options,
    )
}

/// Converts loaded inputs into a G4MF file at `options.output` (written atomically): the
/// stages of [`crate::stages`], in order, on the mesh as read.
pub fn convert(
    rig: &LoadedRig,
    mesh: &LoadedMesh,
    weights: Option<&LoadedWeights>,
    options: &ConvertOptions,
) -> Result<Summary, ConvertError> {
    let assets = crate::inputs::load_assets(options, &rig.path, &Default::default())?;
    convert_body(rig, mesh, weights, None, &assets, options)
}

/// [`convert`], with the mesh morphed into the `described` body first when one is given, and
/// the `assets` stage 1 read (blend shapes, with the description's kept detail targets; a
/// rest pose; a humanoid table) applied. No stage here reads a file.
pub fn convert_body(
    rig: &LoadedRig,
    mesh: &LoadedMesh,
    weights: Option<&LoadedWeights>,
    described: Option<&LoadedBody>,
    assets: &crate::inputs::LoadedAssets,
    options: &ConvertOptions,
) -> Result<Summary, ConvertError> {
    let started = Instant::now();
    let format = options.format()?;
    let mesh_name = file_name(&mesh.path);

    let body = match described {
        None => Body::from_mesh(mesh, options.frame),
        Some(described) => Body::morphed(mesh, options.frame, described)?,
    };
    crate::timings::lap("body");
    let fit = stages::fit::fit(rig, mesh, &body, options.allow_fallback)?;
    crate::timings::lap("fit");
    let Assembled {
        character,
        extras,
        warnings: assembly_warnings,
    } = assemble(rig, mesh, weights, &body, &fit, described, options)?;
    crate::timings::lap("assemble");
    let mut warnings = fit.warnings.clone();
    if let Some(described) = described {
        if !described.description.not_converted.is_empty() {
            warnings.push(format!(
                "not converted from {}: {}",
                described
                    .source
                    .as_deref()
                    .map_or_else(|| "the description".to_owned(), file_name),
                described.description.not_converted.join(", ")
            ));
        }
    }
    let kept_shapes = described.map_or(&[][..], |d| d.shapes.as_slice());
    let all_shapes: Vec<crate::inputs::LoadedShape> =
        assets.shapes.iter().chain(kept_shapes).cloned().collect();
    let character = stages::shapes::attach(character, &all_shapes, options.frame)?;
    crate::timings::lap("blend shapes");
    let character = match &assets.rest_pose {
        None => character,
        Some(pose) => {
            let (posed, source) = stages::rest_pose::posed_frames(&character, pose, &rig.path)?;
            warnings.push(format!("rest pose baked from {source}"));
            stages::rest_pose::bake(character, &posed)?
        }
    };
    let character = match &assets.humanoid {
        None => character,
        Some((table, source)) => {
            let (character, humanoid_warnings) =
                stages::humanoid::rename(character, table, source)?;
            warnings.extend(humanoid_warnings);
            character
        }
    };
    let moved: Vec<bool> = character
        .blend_shapes
        .iter()
        .map(|s| !s.offsets.is_empty())
        .collect();
    let character =
        transforms::extract_helpers(character, options.helpers, &mesh_name, &mut warnings);
    let character = stages::shapes::prune(character, &moved, &mut warnings);
    let character = transforms::stand(character, options.origin, body.ground_height());
    crate::timings::lap("pose, names, helpers");
    let character = if options.flat {
        character
    } else {
        stages::shapes::normal_offsets(transforms::smooth_normals(character))
    };
    crate::timings::lap("normals");
    let (character, influence_changes) =
        transforms::limit_influences(character, options.max_influences, options.normalize);
    let character = if options.materials {
        let race = described.map_or_else(
            || mpfb_body::Phenotype::default().race,
            |d| d.description.phenotype.race,
        );
        stages::dress::dress(character, race)
    } else {
        character
    };
    crate::timings::lap("influences, materials");
    // What happened, in the order the stages noticed it.
    let height_warning = body.frame.check_height(
        character
            .mesh
            .numbering
            .source
            .iter()
            .map(|&v| DVec3::from_array(mesh.obj.positions[v as usize])),
    );
    let kept_vertices = character.mesh.positions.len();
    let ground_offset = character.skeleton.position.y;
    let written = stages::write::write(character, extras, options, format)?;
    crate::timings::lap("write");
    if let Some(w) = height_warning {
        warnings.push(w.to_string());
    }
    warnings.extend(assembly_warnings);
    if written.unweighted_vertices > 0 {
        warnings.push(format!(
            "{} kept vertices are moved by no bone",
            written.unweighted_vertices
        ));
    }
    let layout = match rig.rig.source_layout {
        RigLayout::Bare => "bare",
        RigLayout::V100 => "version 100",
        RigLayout::V110 => "version 110",
    };
    Ok(Summary {
        output: options.output.clone(),
        external: written.external,
        format,
        bytes: written.bytes,
        rig: format!("{} ({layout})", file_name(&rig.path)),
        bones: rig.rig.bones.len(),
        joints: written.joints,
        mesh_vertices: mesh.obj.positions.len(),
        kept_vertices,
        faces: written.faces,
        weights: weights.map(|w| file_name(&w.path)),
        weight_pairs: written.weight_pairs,
        max_influences: written.max_influences,
        unweighted_vertices: written.unweighted_vertices,
        fallbacks: fit.fallbacks,
        warnings,
        ground_offset,
        influence_changes: influence_changes.map(|c| InfluenceChanges {
            vertices_changed: c.vertices_changed,
            influences_dropped: c.influences_dropped,
            largest_dropped: c.largest_dropped,
        }),
        millis: started.elapsed().as_secs_f64() * 1e3,
    })
}
