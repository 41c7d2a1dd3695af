//! The conversion pipeline: parsed inputs in, a G4MF file out.
//!
//! Loading ([`LoadedRig`], [`LoadedMesh`], [`LoadedWeights`]) is separate from converting so a
//! batch parses each distinct file once and shares it between jobs.

use crate::atomic::write_atomic;
use g4mf_writer::{
    BoneSpec, CharacterOptions, CharacterSpec, Compression, ContainerOptions, FaceSpec, IndexWidth,
    Influence, MeshSpec, SurfaceSpec, TextBufferStorage, build_character, write_g4b, write_g4tf,
};
use glam::DVec3;
use mpfb_mesh::{Extraction, ObjMesh, VertexGroups, joint_groups, vertex_groups_from_faces};
use mpfb_rig::{FitMesh, ObjFrame, Rig, RigLayout, fit};
use mpfb_weights::{BoneMap, RigBones, WeightsFile, resolve};
use serde::Serialize;
use serde_json::{Map, Value, json};
use std::path::{Path, PathBuf};
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
    #[error(
        "{path}: {size} bytes exceeds the input limit of {limit} bytes (raise it with --max-input-mib)"
    )]
    InputTooLarge {
        /// The file.
        path: PathBuf,
        /// Its size.
        size: u64,
        /// The limit.
        limit: u64,
    },
    /// The output path has no `.g4b` or `.g4tf` extension.
    #[error("{0}: the output must end in .g4b or .g4tf")]
    OutputExtension(PathBuf),
}

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

/// A bone end that would fall back to its default position, refused.
#[derive(Debug, thiserror::Error)]
#[error(
    "{rig}: {pointer}: bone `{bone}` {end} cannot be placed on the mesh {mesh} ({reason}); its default position would be used (allow with --allow-fallback)"
)]
pub struct FallbackRefused {
    /// The rig file.
    pub rig: String,
    /// The mesh file.
    pub mesh: String,
    /// JSON pointer of the end.
    pub pointer: String,
    /// The bone.
    pub bone: String,
    /// Which end.
    pub end: String,
    /// Why.
    pub reason: String,
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
        let from_faces = joint_groups(&vertex_groups_from_faces(&obj));
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

/// Loads a conversion's inputs, reading the mesh on a second thread while the rig and weights
/// are read on this one: the parses are independent and each takes a third of a convert.
pub fn load_inputs(
    rig: &Path,
    weights: Option<&Path>,
    mesh: &Path,
    vertex_groups: Option<&Path>,
) -> Result<(LoadedRig, LoadedMesh, Option<LoadedWeights>), ConvertError> {
    std::thread::scope(|scope| {
        let mesh_thread = scope.spawn(|| LoadedMesh::load(mesh, vertex_groups));
        let rig = LoadedRig::load(rig);
        let weights = weights.map(LoadedWeights::load).transpose();
        let mesh = mesh_thread
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        // Report the first input in command-line order that failed.
        Ok((rig?, mesh?, weights?))
    })
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
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, clap::ValueEnum)]
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
    /// Keep helper geometry (everything, not only the `body` group).
    pub keep_helpers: bool,
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
}

impl ConvertOptions {
    /// Default options writing to `output`.
    pub fn new(output: impl Into<PathBuf>) -> Self {
        Self {
            output: output.into(),
            external_bin: false,
            compression: Compression::None,
            pretty: false,
            keep_helpers: false,
            all_joints: false,
            group_names: true,
            frame: ObjFrame::MAKEHUMAN,
            origin: Origin::Ground,
            allow_fallback: false,
            name: None,
            bone_map: BoneMap::new(),
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
    /// Wall time in milliseconds.
    pub millis: f64,
}

fn file_name(path: &Path) -> String {
    path.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| path.display().to_string())
}

/// `[[first, last], ...]` inclusive ranges of ascending indices.
fn ranges(indices: &[u32]) -> Value {
    let mut out: Vec<Value> = Vec::new();
    let mut iter = indices.iter().copied();
    if let Some(first) = iter.next() {
        let (mut start, mut end) = (first, first);
        for i in iter {
            if i == end + 1 {
                end = i;
            } else {
                out.push(json!([start, end]));
                (start, end) = (i, i);
            }
        }
        out.push(json!([start, end]));
    }
    Value::Array(out)
}

/// Converts loaded inputs into a G4MF file at `options.output` (written atomically).
pub fn convert(
    rig: &LoadedRig,
    mesh: &LoadedMesh,
    weights: Option<&LoadedWeights>,
    options: &ConvertOptions,
) -> Result<Summary, ConvertError> {
    let started = Instant::now();
    let format = options.format()?;
    let frame = options.frame;
    let mut warnings: Vec<String> = Vec::new();

    // Fit on the full mesh (joint cubes included), in Blender space.
    let fit_mesh = mesh.fit_mesh(frame);
    let fitted = fit(&rig.rig, &fit_mesh).map_err(|e| e.with_file(&rig.path))?;
    let fallbacks: Vec<String> = fitted
        .fallbacks
        .iter()
        .map(|f| format!("{} {} ({})", f.bone, f.end, f.reason))
        .collect();
    if let (false, Some(f)) = (options.allow_fallback, fitted.fallbacks.first()) {
        return Err(ConvertError::Fallback(Box::new(FallbackRefused {
            rig: rig.path.display().to_string(),
            mesh: mesh.path.display().to_string(),
            pointer: f.pointer.clone(),
            bone: f.bone.clone(),
            end: f.end.to_string(),
            reason: f.reason.to_string(),
        })));
    }
    warnings.extend(fitted.warnings.iter().map(ToString::to_string));

    // The exported part of the mesh.
    let has_body = mesh
        .obj
        .group_sets
        .iter()
        .any(|s| s.iter().any(|g| g == "body"));
    let extraction = if options.keep_helpers || !has_body {
        if !options.keep_helpers {
            warnings.push(format!(
                "{}: no `body` group; exporting every face",
                file_name(&mesh.path)
            ));
        }
        Extraction::everything(&mesh.obj)
    } else {
        Extraction::group(&mesh.obj, "body")
    };
    let kept_positions: Vec<DVec3> = extraction
        .vertices
        .iter()
        .map(|&v| frame.obj_to_g4mf(DVec3::from_array(mesh.obj.positions[v as usize])))
        .collect();
    if let Some(w) = frame.check_height(
        extraction
            .vertices
            .iter()
            .map(|&v| DVec3::from_array(mesh.obj.positions[v as usize])),
    ) {
        warnings.push(w.to_string());
    }

    // The skin on one core; faces and bones on another (they share only read-only inputs).
    let (skin, ((surfaces, texcoords), bones)) = rayon::join(
        || skin_part(rig, mesh, weights, options, &extraction),
        || {
            (
                surfaces_of(mesh, &extraction),
                bone_specs(&rig.rig, &fitted),
            )
        },
    );
    let SkinPart {
        influences,
        mut mesh_extras,
        unskinned,
        warnings: skin_warnings,
    } = skin?;
    warnings.extend(skin_warnings);
    mesh_extras.insert(
        "source_vertex_count".into(),
        Value::from(mesh.obj.positions.len()),
    );
    mesh_extras.insert("source_vertices".into(), ranges(&extraction.vertices));

    let face_count = extraction.faces.len();

    // Where the character stands.
    let ground_y = match options.origin {
        Origin::Mesh => None,
        Origin::Ground => fit_mesh
            .cube_centre("joint-ground")
            .map(|c| mpfb_rig::space::blender_to_g4mf(c).y)
            .or_else(|| kept_positions.iter().map(|p| p.y).reduce(f64::min)),
    };
    let ground_offset = ground_y.map_or(0.0, |y| -y);

    let layout = match rig.rig.source_layout {
        RigLayout::Bare => "bare",
        RigLayout::V100 => "version 100",
        RigLayout::V110 => "version 110",
    };
    let name = options.name.clone().unwrap_or_else(|| {
        options
            .output
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_else(|| "Character".into())
    });
    let spec = CharacterSpec {
        name,
        skeleton_position: DVec3::new(0.0, ground_offset, 0.0),
        skeleton_extras: Some(json!({
            "mpfb": mpfb_rig::header_to_json(&rig.rig),
            // Provenance and what the way back needs; nothing here may depend on the rig
            // file's layout, so MPFB -> G4MF -> MPFB -> G4MF reproduces the file exactly.
            "mpfb2g4mf": {
                "rig_file": file_name(&rig.path),
                "bone_order": rig.rig.bones.iter().map(|b| b.name.as_str()).collect::<Vec<_>>(),
                "origin": options.origin,
                "mesh_scale": frame.scale,
                "up_axis": match frame.up { mpfb_rig::UpAxis::Y => "y", mpfb_rig::UpAxis::Z => "z" },
            }
        })),
        bones,
        mesh: Some(MeshSpec {
            positions: kept_positions,
            texcoords,
            surfaces,
        }),
        influences,
        options: CharacterOptions {
            all_joints: options.all_joints,
            group_names: options.group_names,
            index_width: IndexWidth::Smallest,
        },
        generator: GENERATOR.to_owned(),
    };
    let mut built = build_character(&spec)?;
    if !unskinned.is_empty() {
        // Binary, not JSON text: helper vertices carry ~17k pairs in MakeHuman's weights.
        let mut names: Vec<String> = Vec::new();
        let mut index: std::collections::HashMap<&str, u32> = std::collections::HashMap::new();
        let mut groups = Vec::with_capacity(unskinned.len());
        for (name, _, _) in &unskinned {
            let g = *index.entry(name.as_str()).or_insert_with(|| {
                names.push(name.clone());
                (names.len() - 1) as u32
            });
            groups.push(g);
        }
        let vertices: Vec<u32> = unskinned.iter().map(|e| e.1).collect();
        let weights: Vec<f32> = unskinned.iter().map(|e| e.2 as f32).collect();
        let mut buffer = g4mf_writer::BufferBuilder::resume(
            std::mem::take(&mut built.buffer),
            IndexWidth::Smallest,
        );
        let groups = buffer.add_uint(&mut built.document, &groups, 1)?;
        let vertices = buffer.add_uint(&mut built.document, &vertices, 1)?;
        let weights = buffer.add_f32(&mut built.document, &weights, 1)?;
        built.buffer = buffer.into_bytes();
        mesh_extras.insert(
            "unskinned_weights".into(),
            json!({ "names": names, "groups": groups, "vertices": vertices, "weights": weights }),
        );
    }
    if let Some(mesh) = built.document.meshes.first_mut() {
        mesh.other
            .insert("extras".into(), json!({ "mpfb": mesh_extras }));
    }

    // Statistics of what was written.
    let mut max_influences = 0;
    let mut run = 0;
    for (i, entry) in built.skin.iter().enumerate() {
        run = if i > 0 && built.skin[i - 1].0 == entry.0 {
            run + 1
        } else {
            1
        };
        max_influences = max_influences.max(run);
    }
    let unweighted = if spec.influences.is_some() {
        let mut moved = vec![false; extraction.vertices.len()];
        for e in &built.skin {
            moved[e.0 as usize] = true;
        }
        let count = moved.iter().filter(|m| !**m).count();
        if count > 0 {
            warnings.push(format!("{count} kept vertices are moved by no bone"));
        }
        count
    } else {
        0
    };

    // Encode and write.
    let container = ContainerOptions {
        compression: options.compression,
        compress_json: matches!(options.compression, Compression::Zstd(_)),
        pretty: options.pretty,
    };
    let blobs = [std::mem::take(&mut built.buffer)];
    let output_error = |path: &Path| {
        let path = path.to_path_buf();
        move |source| ConvertError::Output { path, source }
    };
    let mut external = Vec::new();
    let mut bytes = 0u64;
    match format {
        OutputFormat::Binary => {
            let file = write_g4b(&mut built.document, &blobs, container)?;
            bytes += file.len() as u64;
            write_atomic(&options.output, &file).map_err(output_error(&options.output))?;
        }
        OutputFormat::TextEmbedded | OutputFormat::TextExternal => {
            let storage = if format == OutputFormat::TextExternal {
                let stem = options
                    .output
                    .file_stem()
                    .map(|s| s.to_string_lossy().into_owned())
                    .unwrap_or_default();
                TextBufferStorage::External(format!("{stem}.bin"))
            } else {
                TextBufferStorage::Embedded
            };
            let text = write_g4tf(&mut built.document, &blobs, &storage, container)?;
            let folder = options.output.parent().unwrap_or(Path::new(""));
            for (uri, data) in &text.external {
                let path = folder.join(uri);
                write_atomic(&path, data).map_err(output_error(&path))?;
                bytes += data.len() as u64;
                external.push(path);
            }
            bytes += text.json.len() as u64;
            if let Err(e) = write_atomic(&options.output, &text.json) {
                for path in &external {
                    let _ = std::fs::remove_file(path);
                }
                return Err(output_error(&options.output)(e));
            }
        }
    }

    Ok(Summary {
        output: options.output.clone(),
        external,
        format,
        bytes,
        rig: format!("{} ({layout})", file_name(&rig.path)),
        bones: rig.rig.bones.len(),
        joints: built.joint_bones.len(),
        mesh_vertices: mesh.obj.positions.len(),
        kept_vertices: extraction.vertices.len(),
        faces: face_count,
        weights: weights.map(|w| file_name(&w.path)),
        weight_pairs: built.skin.len(),
        max_influences,
        unweighted_vertices: unweighted,
        fallbacks,
        warnings,
        ground_offset,
        millis: started.elapsed().as_secs_f64() * 1e3,
    })
}

/// What the weights give a conversion: the skin's influences (kept vertex numbering), the mesh
/// extras the round trip needs, the pairs the skin cannot carry, and warnings.
struct SkinPart {
    influences: Option<Vec<Influence>>,
    mesh_extras: Map<String, Value>,
    unskinned: Vec<(String, u32, f64)>,
    warnings: Vec<String>,
}

/// Resolves the weights against the rig and renumbers them to the kept vertices.
fn skin_part(
    rig: &LoadedRig,
    mesh: &LoadedMesh,
    weights: Option<&LoadedWeights>,
    options: &ConvertOptions,
    extraction: &Extraction,
) -> Result<SkinPart, ConvertError> {
    let mut influences = None;
    let mut mesh_extras = Map::new();
    let mut warnings: Vec<String> = Vec::new();
    // Pairs the skin cannot carry (vertices not exported, groups not resolved), kept for the
    // round trip as (group name, original vertex, weight).
    let mut unskinned: Vec<(String, u32, f64)> = Vec::new();
    if let Some(weights) = weights {
        let bone_names: Vec<String> = rig.rig.bones.iter().map(|b| b.name.clone()).collect();
        let resolution = resolve(
            &weights.file,
            RigBones {
                names: &bone_names,
                extra_bones: rig.rig.header.extra_bones.as_deref().unwrap_or_default(),
            },
            &options.bone_map,
            mesh.obj.positions.len(),
        )
        .map_err(|e| e.with_file(&weights.path))?;
        warnings.extend(resolution.warnings.iter().map(ToString::to_string));
        for dropped in &resolution.dropped {
            warnings.push(format!(
                "group `{}` dropped ({:?}): {} vertices, total weight {:.4}",
                dropped.group, dropped.reason, dropped.vertices, dropped.total_weight
            ));
        }
        let (kept_skin, _) = resolution.skin.remap(&extraction.new_index);
        influences = Some(
            (0..kept_skin.len())
                .map(|i| Influence {
                    vertex: kept_skin.vertices[i],
                    bone: kept_skin.groups[i],
                    weight: kept_skin.weights[i],
                })
                .collect::<Vec<_>>(),
        );
        // Keep what the skin cannot carry, for the round trip: metadata, masks, and the
        // pairs of vertices not exported or groups not resolved (original numbering).
        let mut meta = weights.file.extra.clone();
        for (key, value) in [
            ("copyright", weights.file.copyright.clone().map(Value::from)),
            (
                "description",
                weights.file.description.clone().map(Value::from),
            ),
            ("license", weights.file.license.clone().map(Value::from)),
            ("name", weights.file.name.clone().map(Value::from)),
            ("version", weights.file.version.clone()),
        ] {
            if let Some(v) = value {
                meta.insert(key.into(), v);
            }
        }
        mesh_extras.insert("weights_metadata".into(), Value::Object(meta));
        // Every group name, so empty groups come back too.
        mesh_extras.insert(
            "weight_groups".into(),
            Value::from(
                weights
                    .file
                    .groups
                    .iter()
                    .map(|g| g.name.as_str())
                    .collect::<Vec<_>>(),
            ),
        );
        let groups_json = |groups: &[mpfb_weights::WeightGroup]| -> Value {
            groups
                .iter()
                .map(|g| {
                    (
                        g.name.clone(),
                        json!(
                            g.pairs
                                .iter()
                                .map(|(v, w)| json!([v, w]))
                                .collect::<Vec<_>>()
                        ),
                    )
                })
                .collect::<Map<String, Value>>()
                .into()
        };
        if !resolution.masks.is_empty() {
            mesh_extras.insert("masks".into(), groups_json(&resolution.masks));
        }
        for group in &weights.file.groups {
            let dropped_group = resolution.dropped.iter().any(|d| d.group == group.name);
            if mpfb_weights::is_mask_group(&group.name) {
                continue;
            }
            for &(v, w) in &group.pairs {
                if w != 0.0 && (dropped_group || extraction.new_index[v as usize].is_none()) {
                    unskinned.push((group.name.clone(), v, w));
                }
            }
        }
    }
    Ok(SkinPart {
        influences,
        mesh_extras,
        unskinned,
        warnings,
    })
}

/// Faces of the kept part as surfaces (one per material, in first-use order) and the texture
/// coordinates they use, renumbered.
fn surfaces_of(mesh: &LoadedMesh, extraction: &Extraction) -> (Vec<SurfaceSpec>, Vec<[f64; 2]>) {
    let mut texcoord_new: Vec<Option<u32>> = vec![None; mesh.obj.texcoords.len()];
    let mut texcoords: Vec<[f64; 2]> = Vec::new();
    let mut surfaces: Vec<SurfaceSpec> = Vec::new();
    let mut surface_of_material: Vec<(Option<u32>, usize)> = Vec::new();
    for &f in &extraction.faces {
        let f = f as usize;
        let material = mesh.obj.face_material[f];
        let s = match surface_of_material.iter().find(|(m, _)| *m == material) {
            Some(&(_, s)) => s,
            None => {
                surfaces.push(SurfaceSpec {
                    material: material.map(|m| mesh.obj.materials[m as usize].clone()),
                    faces: Vec::new(),
                });
                surface_of_material.push((material, surfaces.len() - 1));
                surfaces.len() - 1
            }
        };
        let corners = mesh.obj.face(f);
        let vertices = corners
            .iter()
            .map(|c| extraction.new_index[c.vertex as usize].unwrap_or(0))
            .collect();
        let uv = corners
            .iter()
            .map(|c| {
                c.texcoord.map(|t| {
                    *texcoord_new[t as usize].get_or_insert_with(|| {
                        let [u, v] = mesh.obj.texcoords[t as usize];
                        // OBJ's v runs up from the bottom; G4MF textures start top-left.
                        texcoords.push([u, 1.0 - v]);
                        (texcoords.len() - 1) as u32
                    })
                })
            })
            .collect::<Option<Vec<u32>>>();
        surfaces[s].faces.push(FaceSpec {
            vertices,
            texcoords: uv,
        });
    }
    (surfaces, texcoords)
}

/// Bone specs from the fitted rig, with every MPFB field in extras.
fn bone_specs(rig: &Rig, fitted: &mpfb_rig::FittedRig) -> Vec<BoneSpec> {
    rig.bones
        .iter()
        .zip(&fitted.bones)
        .zip(&fitted.parents)
        .map(|((bone, fb), parent)| {
            let mut mpfb = mpfb_rig::bone_to_json(bone);
            mpfb.insert("name".into(), Value::from(bone.name.as_str()));
            BoneSpec {
                name: bone.name.clone(),
                parent: *parent,
                head: fb.head,
                basis: fb.basis,
                length: fb.length,
                extras: Some(json!({ "mpfb": mpfb })),
            }
        })
        .collect()
}
