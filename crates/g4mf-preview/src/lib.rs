//! `g4mf-preview`: pictures of G4MF 3D meshes and skeletons, for people and for tests.
//!
//! [`Scene::from_file`] turns any 3D G4MF file into triangles (placed by the node tree, shaded
//! by the file's normals or flat where it has none, coloured by material base colours and
//! embedded base-colour textures, drawn in the order and with the blending their materials'
//! MakeHuman render hints ask for: [`DrawStyle`]) and bone segments; [`render`] draws orthographic views of a scene; [`contact_sheet`] tiles
//! labelled pictures; [`png_bytes`] encodes. Why a rasterizer of our own: see ARCHITECTURE.md.

#![forbid(unsafe_code)]

pub mod raster;
pub mod scene;
pub mod sheet;

pub use raster::{BACKGROUND, MAX_SIDE, Region, RenderOptions, View, render, render_many};
pub use scene::{
    AlphaMode, BoneSegment, DrawStyle, SampledTexture, Scene, SceneOptions, StyleRun, TextureCache,
    Triangle,
};
pub use sheet::{Tile, contact_sheet};

use image::RgbaImage;

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
