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
//! reads either kind of file ([`g4mf_reader::FileKind::of`]). Why a rasterizer of our own: see
//! ARCHITECTURE.md.

#![forbid(unsafe_code)]

pub mod gltf_file;
pub mod gltf_scene;
pub mod raster;
pub mod scene;
pub mod sheet;

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
}

impl PreviewError {
    /// Whether the message names the file it is about (read errors do; a G4MF scene's data
    /// errors leave that to the caller).
    pub fn names_file(&self) -> bool {
        match self {
            PreviewError::Read(e) => e.location.file.is_some(),
            PreviewError::Gltf(e) => e.location.file.is_some(),
            PreviewError::Dimension(_) | PreviewError::Data(_) => false,
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
            Scene::from_gltf_file(&file, options, textures).map_err(in_file)
        }
        FileKind::G4mf => {
            let file = g4mf_reader::read_bytes(&bytes, path.parent(), read)
                .map_err(|e| e.with_file(path))?;
            drop(bytes);
            let folder = path.parent().map(|path| ImageFolder { path, read });
            Scene::from_file_in(&file, folder, options, textures)
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
