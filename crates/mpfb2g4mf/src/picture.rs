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
    let mut scene = Scene::default();
    add_mesh(&mut scene, &character.mesh, &character.materials);
    // The worn assets too, in draw order (as written).
    for attachment in &character.attachments {
        add_mesh(&mut scene, &attachment.mesh, &attachment.materials);
    }
    scene
}

/// Adds a mesh's polygons, fanned into triangles, in its materials' base colours.
fn add_mesh(scene: &mut Scene, mesh: &character::Mesh, materials: &[character::Material]) {
    let polygons = &mesh.polygons;
    let position = |v: u32| mesh.positions[v as usize].as_vec3();
    let normal = |v: u32| mesh.normals.get(v as usize).map(|n| n.as_vec3());
    for p in 0..polygons.len() {
        let color = polygons.materials[p]
            .and_then(|m| materials.get(m as usize))
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
                texture: None,
            });
        }
    }
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

/// A file a contact sheet could not show, and why.
#[derive(Debug)]
pub struct Unpictured {
    /// The file.
    pub path: std::path::PathBuf,
    /// Why (read or data error).
    pub reason: String,
}

/// A contact sheet of G4MF files: each read back and drawn from the front in a `tile` x `tile`
/// square labelled with its file stem, in rows of about the square root of their count
/// (10 for 100), in parallel. Files that cannot be read or pictured are listed, not drawn.
pub fn contact_sheet(
    paths: &[std::path::PathBuf],
    tile: u32,
    read: &g4mf_reader::ReadOptions,
) -> (image::RgbaImage, Vec<Unpictured>) {
    use rayon::prelude::*;
    // Read and build every scene first: one scale for all (the tallest figure fills its
    // tile), so bodies compare in size.
    let scenes: Vec<Result<(Scene, String), Unpictured>> = paths
        .par_iter()
        .map(|path| {
            let fail = |reason: String| Unpictured {
                path: path.clone(),
                reason,
            };
            let file = g4mf_reader::read_path(path, read).map_err(|e| fail(e.to_string()))?;
            let scene = Scene::from_file(&file).map_err(|e| fail(e.to_string()))?;
            let label = path
                .file_stem()
                .map_or_else(String::new, |s| s.to_string_lossy().into_owned());
            Ok((scene, label))
        })
        .collect();
    let tallest = scenes
        .iter()
        .flatten()
        .map(|(scene, _)| scene.extent())
        .fold(0.0f32, |a, e| a.max(e.x).max(e.y));
    let pixels_per_metre = (tallest > 0.0).then(|| 0.9 * tile as f32 / tallest);
    let drawn: Vec<Result<g4mf_preview::Tile, Unpictured>> = scenes
        .into_par_iter()
        .map(|scene| {
            let (scene, label) = scene?;
            let image = g4mf_preview::render(
                &scene,
                &RenderOptions {
                    views: vec![View::Front],
                    width: tile,
                    height: tile,
                    pixels_per_metre,
                    ..Default::default()
                },
            );
            Ok(g4mf_preview::Tile { image, label })
        })
        .collect();
    let (mut tiles, mut failed) = (Vec::new(), Vec::new());
    for d in drawn {
        match d {
            Ok(t) => tiles.push(t),
            Err(f) => failed.push(f),
        }
    }
    let columns = (tiles.len() as f64).sqrt().ceil() as u32;
    (
        g4mf_preview::contact_sheet(&tiles, columns, g4mf_preview::BACKGROUND),
        failed,
    )
}
