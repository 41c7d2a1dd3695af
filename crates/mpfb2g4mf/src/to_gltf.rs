//! G4MF to glTF 2.0: any valid 3D G4MF character (ours or anyone's) read into the writers'
//! spec by `g4mf_reader::character_spec` and written by `gltf-writer` exactly as a conversion's
//! write stage writes it, so the G4MF files that exist reach engines. What glTF cannot hold is
//! refused with the reader's located error; what it holds only after a change is noted.

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
        }
    }
}

/// Why a G4MF file could not be written as glTF.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ToGltfError {
    /// The output does not end in `.glb` or `.gltf`.
    #[error("{}: the output must end in .glb or .gltf", .0.display())]
    OutputExtension(PathBuf),
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
    /// What reading changed or left out, and where (one line each).
    pub notes: Vec<String>,
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
    let (mut spec, mut notes) = read_spec(input, file)?;
    rebase_image_uris(
        &mut spec,
        folder_of(input),
        folder_of(&options.output),
        &mut notes,
    );
    let layout = GltfOptions {
        max_influences: options.max_influences.max(1),
    };
    let mut built = gltf_writer::build_gltf(&spec, &layout).map_err(ConvertError::from)?;
    if options.validate {
        gltf::check_valid(&built, &options.output)?;
    }
    let (_, external, bytes) = gltf::output(
        &mut built,
        &options.output,
        options.pretty,
        format,
        Commit::Now,
    )?;
    notes.extend(gltf::mesh_notes(&built.meshes, layout.max_influences));
    let unmoved: usize = built.meshes.iter().map(|m| m.given_to_root).sum();
    if unmoved > 0 {
        notes.push(format!(
            "{unmoved} vertices no bone moves were given to the root bone with weight 1 (glTF's weights sum to one)"
        ));
    }
    Ok(ToGltfSummary {
        output: options.output.clone(),
        external,
        bytes,
        bones: spec.bones.len(),
        meshes: built.meshes.len(),
        blend_shapes: spec.meshes().map(|(m, _)| m.blend_shapes.len()).sum(),
        notes,
    })
}

/// The character `file` (read from `input`) describes, with what reading it noticed.
fn read_spec(input: &Path, file: &G4mfFile) -> Result<(CharacterSpec, Vec<String>), ToGltfError> {
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
    let notes = read.notes.iter().map(ToString::to_string).collect();
    Ok((read.spec, notes))
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
fn rebase_image_uris(spec: &mut CharacterSpec, from: &Path, to: &Path, notes: &mut Vec<String>) {
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
                    notes.push(format!(
                        "image `{uri}` of {} is outside the glTF file's folder (kept as a relative URI)",
                        texture.name
                    ));
                }
            }
            Err(_) => notes.push(format!(
                "image `{uri}` of {} is not a relative path (kept as it is)",
                texture.name
            )),
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
