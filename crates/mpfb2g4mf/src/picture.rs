//! Pictures of characters: the scene of an in-memory [`Character`] (for thumbnails, drawn
//! before the file exists), and the thumbnail a converted file embeds.

use character::Character;
use g4mf_preview::{RenderOptions, Scene, Triangle, View};

/// Thumbnail side in pixels (square, front view): small enough to add ~30 KB, large enough to
/// tell bodies apart on a contact sheet.
pub const THUMBNAIL_SIDE: u32 = 256;

/// The character's triangles (polygons fanned from their first corner) with its normals and
/// material base colours; no bones.
pub fn scene_of(character: &Character) -> Scene {
    let mesh = &character.mesh;
    let polygons = &mesh.polygons;
    let position = |v: u32| mesh.positions[v as usize].as_vec3();
    let normal = |v: u32| mesh.normals.get(v as usize).map(|n| n.as_vec3());
    let mut scene = Scene::default();
    for p in 0..polygons.len() {
        let color = polygons.materials[p]
            .and_then(|m| character.materials.get(m as usize))
            .and_then(|m| m.base_color)
            .map_or([1.0; 3], |c| [c[0] as f32, c[1] as f32, c[2] as f32]);
        let corners = &polygons.vertices[polygons.corners(p)];
        for k in 1..corners.len().saturating_sub(1) {
            let tri = [corners[0], corners[k], corners[k + 1]];
            let normals = match tri.map(normal) {
                [Some(a), Some(b), Some(c)] => Some([a, b, c]),
                _ => None,
            };
            scene.triangles.push(Triangle {
                corners: tri.map(position),
                normals,
                color,
            });
        }
    }
    scene
}

/// A PNG front view of the character, [`THUMBNAIL_SIDE`] square, with its mean linear colour
/// (the texture's placeholder).
pub fn thumbnail(character: &Character) -> (Vec<u8>, [f64; 3]) {
    let image = g4mf_preview::render(
        &scene_of(character),
        &RenderOptions {
            views: vec![View::Front],
            width: THUMBNAIL_SIDE,
            height: THUMBNAIL_SIDE,
            ..Default::default()
        },
    );
    let mut sum = [0.0f64; 3];
    for pixel in image.pixels() {
        for (s, &c) in sum.iter_mut().zip(&pixel.0[..3]) {
            *s += g4mf_preview::raster::srgb_to_linear(f32::from(c) / 255.0) as f64;
        }
    }
    let count = f64::from(image.width() * image.height()).max(1.0);
    // Rounded: the placeholder is a hint, and short numbers keep the JSON readable.
    let mean = sum.map(|s| (s / count * 1000.0).round() / 1000.0);
    (g4mf_preview::png_bytes(&image), mean)
}
