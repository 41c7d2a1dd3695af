//! `g4mf-preview`: pictures of G4MF 3D meshes and skeletons (and of glTF 2.0 files), for
//! people and for tests.
//!
//! [`Scene::from_file`] turns any 3D G4MF file into triangles (placed by the node tree, shaded
//! by the file's normals or flat where it has none, coloured by material base colours and
//! base-colour textures (embedded, or beside the file: [`ImageFolder`]; a texture whose image
//! is not drawn in its placeholder colour), drawn in the order and with the blending their materials'
//! MakeHuman render hints ask for: [`DrawStyle`]) and bone segments; [`render`] draws orthographic views of a scene; [`contact_sheet`] tiles
//! labelled pictures; [`png_bytes`] encodes. [`Scene::from_gltf`] draws `.glb`/`.gltf` files
//! the same way (read by [`GltfFile`] under the same rules as G4MF), and [`read_scene`]
//! reads either kind of file ([`g4mf_reader::FileKind::of`]); a glTF file's nodes may be posed
//! by a frame of one of its animations ([`SceneOptions::clip`], [`read_clip_frames`] for a
//! frame strip). Why a rasterizer of our own: see
//! ARCHITECTURE.md.

#![forbid(unsafe_code)]

pub mod gltf_clip;
pub mod gltf_file;
pub mod gltf_scene;
pub mod raster;
pub mod scene;
pub mod sheet;

pub use gltf_clip::ClipTime;
pub use gltf_file::{Elements, GltfError, GltfErrorKind, GltfFile};
pub use gltf_scene::MAX_SCENE_TEXELS;
pub use raster::{BACKGROUND, MAX_SIDE, Region, RenderOptions, View, render, render_many};
pub use scene::{
    AlphaMode, BoneSegment, DrawStyle, ImageFolder, SampledTexture, Scene, SceneOptions, StyleRun,
    TextureCache, Triangle,
};
pub use sheet::{Tile, contact_sheet};

use g4mf_reader::{FileKind, ReadOptions};
use image::RgbaImage;
use std::path::Path;

/// A file cannot be pictured.
#[derive(Debug, thiserror::Error)]
pub enum PreviewError {
    /// The file is not 3D.
    #[error("the file is {0}D; previews are of 3D files")]
    Dimension(u32),
    /// An accessor cannot be read.
    #[error(transparent)]
    Read(#[from] g4mf_reader::ReadError),
    /// The data contradicts itself (indices past the end, wrong vector sizes).
    #[error("{0}")]
    Data(String),
    /// A glTF file cannot be read or pictured (located: file, pointer or byte offset).
    #[error(transparent)]
    Gltf(#[from] GltfError),
    /// A clip was asked of a G4MF file, which has no animations.
    #[error(
        "G4MF files hold no animation clips (the format has no animation section); clips are drawn from .glb and .gltf files"
    )]
    ClipOfG4mf,
}

impl PreviewError {
    /// Whether the message names the file it is about (read errors do; a G4MF scene's data
    /// errors leave that to the caller).
    pub fn names_file(&self) -> bool {
        match self {
            PreviewError::Read(e) => e.location.file.is_some(),
            PreviewError::Gltf(e) => e.location.file.is_some(),
            PreviewError::Dimension(_) | PreviewError::Data(_) | PreviewError::ClipOfG4mf => false,
        }
    }
}

/// The scene of the file at `path`, G4MF or glTF ([`FileKind::of`]: the rule by which the G4MF
/// readers refuse glTF), read under `read` (the file itself at most its JSON and buffer limits
/// together), showing `options`, decoding textures through `textures` when given. Read errors
/// and glTF errors name the file. A G4MF file's images named by relative URIs are read from
/// its folder under `read`, as its buffers are.
pub fn read_scene(
    path: &Path,
    read: &ReadOptions,
    options: &SceneOptions,
    textures: Option<&TextureCache>,
) -> Result<Scene, PreviewError> {
    let mut scenes = read_scenes(path, read, std::slice::from_ref(options), textures)?;
    Ok(scenes.remove(0))
}

/// The scenes of clip `clip` of the glTF file at `path` at each of `times` (a frame strip),
/// the file read once, otherwise as [`read_scene`] draws it with `options`. A G4MF file is
/// refused: it has no animations.
pub fn read_clip_frames(
    path: &Path,
    read: &ReadOptions,
    options: &SceneOptions,
    clip: &str,
    times: &[f64],
    textures: Option<&TextureCache>,
) -> Result<Vec<Scene>, PreviewError> {
    let frames: Vec<SceneOptions> = times
        .iter()
        .map(|&time| SceneOptions {
            clip: Some(ClipTime {
                name: clip.to_owned(),
                time,
            }),
            ..options.clone()
        })
        .collect();
    read_scenes(path, read, &frames, textures)
}

/// One scene of the file at `path` per entry of `options` (at least one), the file read once.
fn read_scenes(
    path: &Path,
    read: &ReadOptions,
    options: &[SceneOptions],
    textures: Option<&TextureCache>,
) -> Result<Vec<Scene>, PreviewError> {
    let limit = read.max_json_bytes.saturating_add(read.max_buffer_bytes);
    let bytes = location::read_bounded(path, limit).map_err(|e| {
        g4mf_reader::ReadError::new(
            g4mf_reader::Location::default(),
            g4mf_reader::ReadErrorKind::Io {
                what: path.display().to_string(),
                error: e.into(),
            },
        )
        .with_file(path)
    })?;
    match FileKind::of(path, &bytes) {
        FileKind::Gltf => {
            let in_file = |e: GltfError| PreviewError::Gltf(e.with_file(path));
            let file = GltfFile::read_bytes(&bytes, path.parent(), read).map_err(in_file)?;
            drop(bytes);
            options
                .iter()
                .map(|o| Scene::from_gltf_file(&file, o, textures).map_err(in_file))
                .collect()
        }
        FileKind::G4mf => {
            if options.iter().any(|o| o.clip.is_some()) {
                return Err(PreviewError::ClipOfG4mf);
            }
            let file = g4mf_reader::read_bytes(&bytes, path.parent(), read)
                .map_err(|e| e.with_file(path))?;
            drop(bytes);
            let folder = path.parent().map(|path| ImageFolder { path, read });
            options
                .iter()
                .map(|o| Scene::from_file_in(&file, folder, o, textures))
                .collect()
        }
    }
}

/// The picture as PNG bytes (8-bit RGBA).
pub fn png_bytes(image: &RgbaImage) -> Vec<u8> {
    let mut bytes = Vec::new();
    // Encoding into memory fails only for images PNG cannot hold (a side over 2^31): ours are
    // bounded by MAX_SIDE.
    let _ = image.write_to(
        &mut std::io::Cursor::new(&mut bytes),
        image::ImageFormat::Png,
    );
    bytes
}
