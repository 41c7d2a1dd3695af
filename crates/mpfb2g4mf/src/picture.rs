//! Pictures of characters: the scene of an in-memory [`Character`] (for thumbnails, drawn
//! before the file exists), and the thumbnail a converted file embeds.

use character::Character;
use g4mf_preview::{RenderOptions, SampledTexture, Scene, Triangle, View};

/// Thumbnail side in pixels (square, front view): small enough to add ~30 KB, large enough to
/// tell bodies apart on a contact sheet.
pub const THUMBNAIL_SIDE: u32 = 256;

/// The character's triangles (polygons fanned from their first corner) with its normals,
/// material base colours and base-colour textures; no bones.
pub fn scene_of(character: &Character) -> Scene {
    let mut scene = Scene::default();
    add_mesh(&mut scene, &character.mesh, &character.materials);
    // The worn assets too, in draw order (as written).
    for attachment in &character.attachments {
        add_mesh(&mut scene, &attachment.mesh, &attachment.materials);
    }
    scene
}

/// Largest side of a texture a character's picture samples: a thumbnail shows a whole figure
/// in a few hundred pixels, so larger images are reduced as they are decoded (averaging).
const PICTURE_TEXTURE_SIDE: u32 = 512;

/// How material `material` colours its triangles: its base colour (white when it has none)
/// and its base-colour texture, drawn when its image decodes ([`Scene::textures`] index),
/// else its placeholder multiplied in (texture.md: "the color to use when no image files are
/// available"), as the G4MF file's own preview draws it.
fn material_look(
    scene: &mut Scene,
    material: Option<&character::Material>,
) -> ([f32; 3], Option<u32>) {
    let Some(material) = material else {
        return ([1.0; 3], None);
    };
    let color = material
        .base_color
        .map_or([1.0; 3], |c| [c[0] as f32, c[1] as f32, c[2] as f32]);
    let Some(texture) = &material.textures.base_color else {
        return (color, None);
    };
    let uses_alpha = texture.placeholder.len() == 4;
    let decoded = texture.image.as_ref().and_then(|image| {
        SampledTexture::decode(&image.bytes, uses_alpha, Some(PICTURE_TEXTURE_SIDE))
    });
    if let Some(decoded) = decoded {
        scene.textures.push(std::sync::Arc::new(decoded));
        return (color, Some((scene.textures.len() - 1) as u32));
    }
    let placeholder = match texture.placeholder[..] {
        [grey] => [grey; 3],
        [r, g, b, ..] => [r, g, b],
        _ => [1.0; 3],
    };
    (
        std::array::from_fn(|k| color[k] * placeholder[k].clamp(0.0, 16.0) as f32),
        None,
    )
}

/// Adds a mesh's polygons, fanned into triangles, in its materials' colours and textures.
fn add_mesh(scene: &mut Scene, mesh: &character::Mesh, materials: &[character::Material]) {
    let polygons = &mesh.polygons;
    let position = |v: u32| mesh.positions[v as usize].as_vec3();
    let normal = |v: u32| mesh.normals.get(v as usize).map(|n| n.as_vec3());
    // Each material's look, worked out (and its image decoded) once.
    let mut looks: Vec<Option<([f32; 3], Option<u32>)>> = vec![None; materials.len()];
    for p in 0..polygons.len() {
        let material = polygons.materials[p].map(|m| m as usize);
        let (color, texture) = match material.filter(|&m| m < materials.len()) {
            Some(m) => *looks[m].get_or_insert_with(|| material_look(scene, materials.get(m))),
            None => ([1.0; 3], None),
        };
        let range = polygons.corners(p);
        let corners = &polygons.vertices[range.clone()];
        let uvs: Option<Vec<glam::Vec2>> = texture.and_then(|_| {
            polygons.texcoords[range]
                .iter()
                .map(|t| {
                    let [u, v] = *mesh.texcoords.get((*t)? as usize)?;
                    Some(glam::Vec2::new(u as f32, v as f32))
                })
                .collect()
        });
        for k in 1..corners.len().saturating_sub(1) {
            let tri = [corners[0], corners[k], corners[k + 1]];
            let normals = match tri.map(normal) {
                [Some(a), Some(b), Some(c)] => Some([a, b, c]),
                _ => None,
            };
            let texture = texture
                .zip(uvs.as_ref())
                .map(|(id, uv)| (id, [uv[0], uv[k], uv[k + 1]]));
            scene.triangles.push(Triangle {
                corners: tri.map(position),
                normals,
                color,
                texture,
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

/// A file a contact sheet shows with something left out (an image it could not have, a
/// vertex that is not a number), as `preview` would warn about it.
#[derive(Debug)]
pub struct SheetNote {
    /// The file.
    pub path: std::path::PathBuf,
    /// What was left out, and where in the file.
    pub note: String,
}

/// Largest side of a texture on a contact sheet's tiles: a tile shows a whole figure in a few
/// hundred pixels, so larger images are reduced once (averaging, which also keeps them from
/// aliasing) and shared by every tile.
const TILE_TEXTURE_SIDE: u32 = 512;

/// A tile as drawn, at its own figure's scale, waiting for the sheet's common scale.
struct Drawn {
    order: usize,
    image: image::RgbaImage,
    label: String,
    /// The figure's size (the larger of its width and height), metres; zero when empty.
    extent: f32,
}

/// A contact sheet drawn tile by tile as files arrive (a batch's outputs as each is written),
/// from any thread: each file (G4MF or glTF) is read, drawn from the front in a `tile` x
/// `tile` square at its own figure's scale and dropped, so memory holds tiles, never every
/// file. [`finish`]
/// brings every tile to one scale (the tallest figure fills 90% of its tile, so bodies compare
/// in size), labels it with its file stem and lays the tiles out in order, in rows of about
/// the square root of their count (10 for 100).
///
/// [`finish`]: ContactSheet::finish
pub struct ContactSheet {
    tile: u32,
    read: g4mf_reader::ReadOptions,
    textures: g4mf_preview::TextureCache,
    drawn: std::sync::Mutex<Sheet>,
}

/// What a [`ContactSheet`] has so far: the tiles drawn, and the files it could not show with
/// their order.
#[derive(Default)]
struct Sheet {
    tiles: Vec<Drawn>,
    unpictured: Vec<(usize, Unpictured)>,
    notes: Vec<(usize, SheetNote)>,
}

impl ContactSheet {
    /// An empty sheet of `tile`-pixel tiles, reading files with `read`.
    pub fn new(tile: u32, read: g4mf_reader::ReadOptions) -> Self {
        Self {
            tile,
            read,
            textures: g4mf_preview::TextureCache::new(TILE_TEXTURE_SIDE),
            drawn: std::sync::Mutex::new(Sheet::default()),
        }
    }

    /// Reads the file at `path` and draws its tile, the `order`-th of the sheet; a file that
    /// cannot be read or pictured is listed instead.
    pub fn draw(&self, order: usize, path: &std::path::Path) {
        let fail = |reason: String| Unpictured {
            path: path.to_path_buf(),
            reason,
        };
        // G4MF or glTF, by extension or content.
        let drawn =
            g4mf_preview::read_scene(path, &self.read, &Default::default(), Some(&self.textures))
                .map_err(|e| fail(e.to_string()))
                .map(|scene| {
                    let notes: Vec<SheetNote> = scene
                        .notes
                        .iter()
                        .map(|note| SheetNote {
                            path: path.to_path_buf(),
                            note: note.to_string(),
                        })
                        .collect();
                    let size = scene.extent();
                    let extent = size.x.max(size.y);
                    let image = g4mf_preview::render(
                        &scene,
                        &RenderOptions {
                            views: vec![View::Front],
                            width: self.tile,
                            height: self.tile,
                            pixels_per_metre: (extent > 0.0)
                                .then(|| 0.9 * self.tile as f32 / extent),
                            ..Default::default()
                        },
                    );
                    let drawn = Drawn {
                        order,
                        image,
                        label: path
                            .file_stem()
                            .map_or_else(String::new, |s| s.to_string_lossy().into_owned()),
                        extent,
                    };
                    (drawn, notes)
                });
        let mut state = self
            .drawn
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        match drawn {
            Ok((d, notes)) => {
                state.tiles.push(d);
                state.notes.extend(notes.into_iter().map(|n| (order, n)));
            }
            Err(u) => state.unpictured.push((order, u)),
        }
    }

    /// The sheet, the files it could not show, and what it left out of those it showed, in
    /// order.
    pub fn finish(self) -> (image::RgbaImage, Vec<Unpictured>, Vec<SheetNote>) {
        let Sheet {
            tiles: mut drawn,
            unpictured: mut failed,
            notes: mut noted,
        } = self
            .drawn
            .into_inner()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        drawn.sort_by_key(|d| d.order);
        failed.sort_by_key(|f| f.0);
        noted.sort_by_key(|n| n.0);
        let tallest = drawn.iter().map(|d| d.extent).fold(0.0f32, f32::max);
        let tiles: Vec<g4mf_preview::Tile> = drawn
            .into_iter()
            .map(|d| g4mf_preview::Tile {
                image: at_scale(d.image, d.extent / tallest),
                label: d.label,
            })
            .collect();
        let columns = (tiles.len() as f64).sqrt().ceil() as u32;
        (
            g4mf_preview::contact_sheet(&tiles, columns, g4mf_preview::BACKGROUND),
            failed.into_iter().map(|f| f.1).collect(),
            noted.into_iter().map(|n| n.1).collect(),
        )
    }
}

/// A standing figure's tile shrunk by `factor` about the point its feet stand on (the middle
/// of the bottom margin, where the rasterizer stands every figure at a fixed scale), on the
/// background: the tile drawn at `factor` times its scale. A factor of 1 (the tallest figure)
/// or one that is not in (0, 1) leaves the tile as drawn.
fn at_scale(tile: image::RgbaImage, factor: f32) -> image::RgbaImage {
    if !(factor > 0.0 && factor < 1.0) {
        return tile;
    }
    let (width, height) = tile.dimensions();
    let size = |n: u32| ((n as f32 * factor).round() as u32).max(1);
    let small = image::imageops::resize(
        &tile,
        size(width),
        size(height),
        image::imageops::FilterType::Triangle,
    );
    // The rasterizer's margin: 5% of the panel on each side.
    let anchor = (width as f32 / 2.0, height as f32 * 0.95);
    let [r, g, b] = g4mf_preview::BACKGROUND;
    let mut out = image::RgbaImage::from_pixel(width, height, image::Rgba([r, g, b, 255]));
    image::imageops::overlay(
        &mut out,
        &small,
        (anchor.0 * (1.0 - factor)).round() as i64,
        (anchor.1 * (1.0 - factor)).round() as i64,
    );
    out
}
