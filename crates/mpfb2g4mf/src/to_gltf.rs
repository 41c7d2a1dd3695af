//! G4MF to glTF 2.0: any valid 3D G4MF character (ours or anyone's) read into the writers'
//! spec by `g4mf_reader::character_spec` and written by `gltf-writer` exactly as a conversion's
//! write stage writes it, so the G4MF files that exist reach engines. What glTF cannot hold is
//! refused with the reader's located error; what it holds only after a change is noted.

use crate::diagnostics::{Code, Diagnostics};
use crate::error::ConvertError;
use crate::options::{GLTF_DEFAULT_INFLUENCES, OutputFormat};
use crate::stages::write::{Commit, gltf, relative_uri};
use character_spec::{CharacterSpec, ImageSpec};
use g4mf_reader::{CharacterError, G4mfFile, SpecOptions};
use gltf_writer::GltfOptions;
use std::path::{Path, PathBuf};

/// How to write the glTF file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToGltfOptions {
    /// The output (`.glb` or `.gltf`).
    pub output: PathBuf,
    /// With `.gltf`: the buffer beside it, named by its content.
    pub external_bin: bool,
    /// Indented JSON.
    pub pretty: bool,
    /// Influences kept per vertex (the strongest, renormalised); four by default.
    pub max_influences: usize,
    /// Check the document with `gltf-json`'s validation before anything is written.
    pub validate: bool,
    /// What a `.vrm` output adds (its defaults when `None`).
    pub vrm: Option<crate::vrm::VrmOptions>,
    /// The diagnostics that stop the job before anything is written (`--deny`).
    pub deny: crate::diagnostics::Deny,
}

impl ToGltfOptions {
    /// Default options writing to `output`.
    pub fn new(output: impl Into<PathBuf>) -> Self {
        Self {
            output: output.into(),
            external_bin: false,
            pretty: false,
            max_influences: GLTF_DEFAULT_INFLUENCES,
            validate: false,
            vrm: None,
            deny: crate::diagnostics::Deny::default(),
        }
    }
}

/// Why a G4MF file could not be written as glTF.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ToGltfError {
    /// The output does not end in `.glb`, `.gltf` or `.vrm`.
    #[error("{}: the output must end in .glb, .gltf or .vrm", .0.display())]
    OutputExtension(PathBuf),
    /// The character cannot be a VRM avatar as it is.
    #[error("{}: cannot make a VRM avatar: {why}", .input.display())]
    NotVrm {
        /// The G4MF file.
        input: PathBuf,
        /// What VRM needs that it lacks.
        why: String,
    },
    /// The output is the input.
    #[error(transparent)]
    SameFile(#[from] crate::paths::SameFile),
    /// The file holds what a character (and glTF) cannot.
    #[error("{}: {error}", .input.display())]
    Read {
        /// The G4MF file.
        input: PathBuf,
        /// Where in it, and why.
        error: CharacterError,
    },
    /// The glTF file could not be built or written.
    #[error(transparent)]
    Write(#[from] ConvertError),
}

/// What was written.
#[derive(Debug, Clone, PartialEq)]
pub struct ToGltfSummary {
    /// The glTF file.
    pub output: PathBuf,
    /// Its external buffer, if any.
    pub external: Vec<PathBuf>,
    /// Bytes written.
    pub bytes: u64,
    /// Bones (every one a joint when a mesh is skinned).
    pub bones: usize,
    /// Meshes written (the body first).
    pub meshes: usize,
    /// Blend shapes over all meshes.
    pub blend_shapes: usize,
    /// What reading and writing changed or left out, and where (one line each): notes, and
    /// warnings where an image or an expression was left out.
    pub notes: Vec<crate::diagnostics::Diagnostic>,
    /// What a `.vrm` added.
    pub vrm: Option<crate::summary::VrmSummary>,
}

/// Writes the G4MF file `file`, read from `input`, as glTF at `options.output`.
pub fn to_gltf(
    input: &Path,
    file: &G4mfFile,
    options: &ToGltfOptions,
) -> Result<ToGltfSummary, ToGltfError> {
    let format = OutputFormat::of_path(&options.output, options.external_bin)
        .filter(|f| f.is_gltf())
        .ok_or_else(|| ToGltfError::OutputExtension(options.output.clone()))?;
    crate::paths::check_output_apart("the glTF file", &options.output, [input])?;
    let mut notes = Diagnostics::denying(options.deny.clone());
    let mut spec = read_spec(input, file, &mut notes)?;
    check_embedded_images(&mut spec, &mut notes);
    rebase_image_uris(
        &mut spec,
        folder_of(input),
        folder_of(&options.output),
        &mut notes,
    );
    let layout = GltfOptions {
        max_influences: options.max_influences.max(1),
    };
    if format == OutputFormat::Vrm {
        check_vrm(input, &spec, options)?;
    }
    let mut built = build(&spec, &layout, input)?;
    let mut vrm_summary = None;
    if format == OutputFormat::Vrm {
        let vrm = options.vrm.clone().unwrap_or_default();
        let (summary, _) = gltf::make_vrm(&mut built, &spec, &vrm, None, input, &mut notes)?;
        vrm_summary = Some(summary);
    }
    if options.validate {
        gltf::check_valid(&built, &options.output)?;
    }
    gltf::mesh_notes(&built.meshes, layout.max_influences, &mut notes);
    let unmoved: usize = built.meshes.iter().map(|m| m.given_to_root).sum();
    if unmoved > 0 {
        notes.say(Code::UnweightedToRoot, format!(
            "{unmoved} vertices no bone moves were given to the root bone with weight 1 (glTF's weights sum to one)"
        ));
    }
    // Everything is said before the file is written: `--deny` stops here.
    notes.refuse_denied(&options.output)?;
    let (_, external, bytes) = gltf::output(
        &mut built,
        &options.output,
        (options.pretty, format, Commit::Now),
        Vec::new(),
    )?;
    Ok(ToGltfSummary {
        output: options.output.clone(),
        external,
        bytes,
        bones: spec.bones.len(),
        meshes: built.meshes.len(),
        blend_shapes: spec.meshes().map(|(m, _)| m.blend_shapes.len()).sum(),
        notes: notes.into_vec(),
        vrm: vrm_summary,
    })
}

/// Refuses, before anything is built, a character that cannot be a VRM avatar: more than four
/// influences asked, bones without G4MF's humanoid names for VRM's required ones, or a rest
/// further than [`TPOSE_TOLERANCE_DEGREES`] from VRM's T-pose (`convert --rest-pose
/// vrm-t-pose` makes one).
fn check_vrm(
    input: &Path,
    spec: &CharacterSpec,
    options: &ToGltfOptions,
) -> Result<(), ToGltfError> {
    let refuse = |why: String| ToGltfError::NotVrm {
        input: input.to_path_buf(),
        why,
    };
    if options.max_influences > GLTF_DEFAULT_INFLUENCES {
        return Err(refuse(format!(
            "--max-influences {}: VRM clients read one set of four influences a vertex",
            options.max_influences
        )));
    }
    let humanoid = vrm_writer::humanoid::of_bones(&spec.bones);
    vrm_writer::humanoid::check(&spec.bones, &humanoid).map_err(|e| {
        refuse(format!(
            "{e} (its bones need G4MF's humanoid names: convert with --humanoid)"
        ))
    })?;
    let measured = vrm_writer::tpose::measure(&spec.bones, &humanoid);
    if let Some(worst) = measured
        .worst()
        .filter(|w| w.degrees > TPOSE_TOLERANCE_DEGREES)
    {
        return Err(refuse(format!(
            "its rest is not VRM's T-pose: {} is {:.1} degrees off (convert with --rest-pose vrm-t-pose)",
            worst.item, worst.degrees
        )));
    }
    Ok(())
}

/// How far from VRM's T-pose a G4MF rest may be and still become a `.vrm`.
pub const TPOSE_TOLERANCE_DEGREES: f64 = 2.0;

/// The character `file` (read from `input`) describes, with what reading it noticed.
fn read_spec(
    input: &Path,
    file: &G4mfFile,
    said: &mut Diagnostics,
) -> Result<CharacterSpec, ToGltfError> {
    let stem = input.file_stem().map_or_else(
        || "Character".to_owned(),
        |s| s.to_string_lossy().into_owned(),
    );
    let options = SpecOptions {
        fallback_name: stem,
        ..SpecOptions::default()
    };
    let read = g4mf_reader::character_spec(file, &options).map_err(|error| ToGltfError::Read {
        input: input.to_path_buf(),
        error,
    })?;
    for note in &read.notes {
        said.say(Code::G4mfReadNote, note.to_string());
    }
    Ok(read.spec)
}

/// The folder of `path` (`.` for a bare file name).
fn folder_of(path: &Path) -> &Path {
    path.parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."))
}

/// Relative image URIs, which name files beside the G4MF file, made relative to the glTF
/// file's folder instead; a note for each that now leaves that folder (readers that confine
/// files to it, ours among them, will not follow it) and each kept as it was because it is no
/// relative path (a URL, an absolute path: readers may refuse it).
fn rebase_image_uris(spec: &mut CharacterSpec, from: &Path, to: &Path, notes: &mut Diagnostics) {
    let same = same_folder(from, to);
    for texture in &mut spec.textures {
        let Some(ImageSpec::Uri { uri, .. }) = &mut texture.image else {
            continue;
        };
        if uri.starts_with("data:") {
            continue;
        }
        match g4mf_reader::resolve_relative_uri(uri, from, true) {
            Ok(path) => {
                if !same {
                    *uri = relative_uri(to, &path);
                }
                if uri.starts_with("../") || uri == ".." {
                    notes.say(Code::ImageUriOutside, format!(
                        "image `{uri}` of {} is outside the glTF file's folder (kept as a relative URI)",
                        texture.name
                    ));
                }
            }
            Err(_) => notes.say(
                Code::ImageUriKept,
                format!(
                    "image `{uri}` of {} is not a relative path (kept as it is)",
                    texture.name
                ),
            ),
        }
    }
}

/// Each embedded image checked as a converted one is (`images::image_of`: its size within the
/// bounds, decoded) before it is embedded again: one that is not usable is left out (its
/// texture's placeholder is folded into the factor) with a note naming it and why.
fn check_embedded_images(spec: &mut CharacterSpec, notes: &mut Diagnostics) {
    for texture in &mut spec.textures {
        let Some(ImageSpec::Embedded { bytes, .. }) = &texture.image else {
            continue;
        };
        if let Err(why) = crate::images::image_of(bytes.as_ref().clone()) {
            notes.say(Code::ImageLeftOut, format!(
                "the image of {} cannot be used ({}): left out, its placeholder colour stands in",
                texture.name,
                why.describe()
            ));
            texture.image = None;
        }
    }
}

/// True when both paths name one folder (as the file system resolves them).
fn same_folder(a: &Path, b: &Path) -> bool {
    match (std::fs::canonicalize(a), std::fs::canonicalize(b)) {
        (Ok(a), Ok(b)) => a == b,
        _ => a == b,
    }
}

/// The glTF of `spec`, read from `input`: everything the writer refuses came from that file,
/// so it is named.
fn build(
    spec: &CharacterSpec,
    layout: &GltfOptions,
    input: &Path,
) -> Result<gltf_writer::BuiltGltf, ConvertError> {
    gltf_writer::build_gltf(spec, layout).map_err(|e| ConvertError::Made {
        file: input.to_path_buf(),
        source: Box::new(e.into()),
    })
}
