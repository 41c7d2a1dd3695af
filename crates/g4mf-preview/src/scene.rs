//! What a picture shows, independent of where it came from: triangles in world space with
//! corner normals and a base colour, and bone segments. Built from any G4MF 3D file (node tree,
//! mesh instances, surfaces, normals bindings, materials), or by a caller from its own data.

use crate::PreviewError;
use g4mf_model::{AccessorIndex, Binding, Document};
use g4mf_reader::{G4mfFile, ReadOptions, Transform};
use glam::{DMat3, DVec3, Vec3};
use serde_json::Value;
use std::borrow::Cow;
use std::collections::HashMap;
use std::path::Path;
use std::sync::{Arc, Mutex};

/// One triangle: world-space corners, optional corner normals (unit), linear RGB colour, and
/// optionally a base-colour texture with corner texture coordinates.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Triangle {
    /// Corner positions, metres.
    pub corners: [Vec3; 3],
    /// Corner normals; `None`: the face's own normal (flat shading).
    pub normals: Option<[Vec3; 3]>,
    /// Linear RGB base colour (multiplies the texture's colour).
    pub color: [f32; 3],
    /// The base-colour texture ([`Scene::textures`]) and each corner's coordinates (x right, y
    /// down, 0..1).
    pub texture: Option<(u32, [glam::Vec2; 3])>,
}

/// A texture as the rasterizer samples it: sRGB RGBA8 texels, and whether its alpha is used.
#[derive(Debug, Clone, PartialEq)]
pub struct SampledTexture {
    /// Width in texels.
    pub width: u32,
    /// Height in texels.
    pub height: u32,
    /// Row-major RGBA8 texels (colour sRGB-encoded, alpha linear).
    pub texels: Vec<[u8; 4]>,
    /// Alpha is used (the texture's placeholder has four channels): blended or taken as
    /// coverage as the material's [`DrawStyle`] says, else cut out (texels below half are not
    /// drawn). Without it the texture is opaque whatever its texels' alpha.
    pub uses_alpha: bool,
}

impl SampledTexture {
    /// A PNG or JPEG image decoded for sampling, `None` when it does not decode or holds more
    /// than [`MAX_TEXELS`] texels; reduced (averaging texels) to at most `max_side` texels a
    /// side when one is given. Its alpha is used when `uses_alpha`.
    pub fn decode(bytes: &[u8], uses_alpha: bool, max_side: Option<u32>) -> Option<Self> {
        decode_image(bytes, uses_alpha, max_side)
    }
}

/// How a material uses alpha.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum AlphaMode {
    /// Drawn with the depth buffer in any order (a texture whose alpha is used cuts out below
    /// half).
    #[default]
    Opaque,
    /// Alpha taken as coverage of each pixel's samples (MakeHuman's `alphaToCoverage`): drawn
    /// with the opaque triangles, writing depth where covered. Chosen over a cut-out at half
    /// because it is what MakeHuman's multisampled view does: a hair strand's soft edge
    /// covers part of a pixel instead of vanishing or turning solid.
    Coverage,
    /// Blended over what is behind it (`src * a + dst * (1 - a)`), after the opaque
    /// triangles, by draw order.
    Blend,
}

/// How a run of triangles is drawn: their material's alpha and MakeHuman's render hints (a
/// material's `extras.render`: `drawOrder`, `transparent`, `alphaToCoverage`, `backfaceCull`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DrawStyle {
    /// How alpha is used.
    pub mode: AlphaMode,
    /// The base colour factor's alpha (multiplies the texture's), 0..1.
    pub alpha: f32,
    /// Among blended triangles, higher draws later (MakeHuman's `z_depth`).
    pub draw_order: i32,
    /// Faces whose winding turns away from the camera are not drawn; false draws both sides.
    pub backface_cull: bool,
    /// In [`AlphaMode::Opaque`], samples whose alpha is below this are not drawn (0.5; a glTF
    /// `MASK` material's `alphaCutoff`).
    pub cutoff: f32,
}

impl Default for DrawStyle {
    /// Opaque, both sides: how a triangle with no material hints was always drawn.
    fn default() -> Self {
        Self {
            mode: AlphaMode::Opaque,
            alpha: 1.0,
            draw_order: 0,
            backface_cull: false,
            cutoff: 0.5,
        }
    }
}

impl DrawStyle {
    /// The style of a material with base-colour alpha `alpha` and MakeHuman's render hints
    /// (`.mhmat` `transparent`, `alphaToCoverage`, `backfaceCull`; the asset's `z_depth`):
    /// coverage when both `transparent` and `alpha_to_coverage` (MakeHuman honours
    /// alpha-to-coverage only on transparent materials); blended when `transparent` alone or
    /// `alpha` is below 1; else opaque. An alpha that is not a number counts as 1.
    pub fn from_hints(
        alpha: f32,
        draw_order: i32,
        transparent: bool,
        alpha_to_coverage: bool,
        backface_cull: bool,
    ) -> Self {
        let alpha = if alpha.is_nan() {
            1.0
        } else {
            alpha.clamp(0.0, 1.0)
        };
        let mode = match (transparent, alpha_to_coverage) {
            (true, true) => AlphaMode::Coverage,
            (true, false) => AlphaMode::Blend,
            _ if alpha < 1.0 => AlphaMode::Blend,
            _ => AlphaMode::Opaque,
        };
        Self {
            mode,
            alpha,
            draw_order,
            backface_cull,
            cutoff: 0.5,
        }
    }
}

/// A style for the triangles from `first` on, up to the next run's `first`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StyleRun {
    /// Index of the run's first triangle in [`Scene::triangles`].
    pub first: usize,
    /// Their style.
    pub style: DrawStyle,
}

/// Most texels of one texture a scene decodes (4096 x 4096): a bound on memory.
pub const MAX_TEXELS: u64 = 1 << 24;

/// A bone as a segment from head to tail, world space.
#[derive(Debug, Clone, PartialEq)]
pub struct BoneSegment {
    /// The bone node's name (empty when it has none).
    pub name: String,
    /// Head.
    pub head: Vec3,
    /// Tail (head + length along the bone's +Y).
    pub tail: Vec3,
}

/// Everything a picture shows.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Scene {
    /// Triangles.
    pub triangles: Vec<Triangle>,
    /// Bones.
    pub bones: Vec<BoneSegment>,
    /// Textures the triangles sample (shared: scenes built through one [`TextureCache`] hold
    /// the same decoded image).
    pub textures: Vec<Arc<SampledTexture>>,
    /// Draw styles by runs of triangles, `first` ascending; triangles before the first run
    /// (or in a scene with none) draw with [`DrawStyle::default`]. Runs, not a field of
    /// [`Triangle`], so callers that build triangles themselves need not know of styles.
    pub styles: Vec<StyleRun>,
    /// What the picture leaves out or draws otherwise than the file asks, and why, each
    /// `pointer: what` (an image drawn as its material's colour, vertices that are not
    /// numbers, primitives that are not triangles).
    pub notes: Vec<String>,
}

/// Most triangles a scene takes from a file: a bound on memory (a scene holds ~64 bytes per
/// triangle) however large the file claims to be.
pub const MAX_TRIANGLES: usize = 16 << 20;

/// Base colour factor of a material (linear RGB), white when absent.
fn material_color(doc: &Document, material: Option<usize>) -> [f32; 3] {
    let factor = material
        .and_then(|m| doc.materials.get(m))
        .and_then(|m| m.other.get("baseColor"))
        .and_then(|c| c.get("factor"))
        .and_then(Value::as_array);
    match factor {
        Some(f) if f.len() >= 3 => {
            let c = |i: usize| f[i].as_f64().unwrap_or(1.0).clamp(0.0, 16.0) as f32;
            [c(0), c(1), c(2)]
        }
        _ => [1.0; 3],
    }
}

/// The index of material `material`'s base-colour texture (`baseColor.texture`), if it has one.
fn base_color_texture_index(doc: &Document, material: Option<usize>) -> Option<usize> {
    let index = doc
        .materials
        .get(material?)?
        .other
        .get("baseColor")?
        .get("texture")?
        .as_u64()?;
    usize::try_from(index).ok()
}

/// Material `material`'s base-colour texture: its index, its placeholder as linear RGB (one
/// value is grey), and whether it names image files.
fn base_color_placeholder(
    doc: &Document,
    material: Option<usize>,
) -> Option<(usize, [f32; 3], bool)> {
    let index = base_color_texture_index(doc, material)?;
    let texture = doc.other.get("textures")?.as_array()?.get(index)?;
    let placeholder = placeholder_rgb(texture.get("placeholder")?)?;
    let has_files = texture
        .get("files")
        .and_then(Value::as_array)
        .is_some_and(|f| !f.is_empty());
    Some((index, placeholder, has_files))
}

/// A texture placeholder (texture.md: "the color to use when no image files are available")
/// as linear RGB: one value is grey, alpha is dropped; `None` unless it is 1 to 4 finite
/// numbers.
pub(crate) fn placeholder_rgb(placeholder: &Value) -> Option<[f32; 3]> {
    let values: Vec<f32> = placeholder
        .as_array()?
        .iter()
        .map(|v| {
            v.as_f64()
                .filter(|x| x.is_finite())
                .map(|x| x.clamp(0.0, 16.0) as f32)
        })
        .collect::<Option<_>>()?;
    match values.as_slice() {
        [grey] => Some([*grey; 3]),
        [r, g, b, ..] => Some([*r, *g, *b]),
        _ => None,
    }
}

/// How a material's triangles are drawn: its base colour factor's alpha and its
/// `extras.render` hints (see [`DrawStyle::from_hints`]). A hint a file leaves out is off
/// (`drawOrder` 0, and both sides drawn, as before files had hints).
fn material_style(doc: &Document, material: Option<usize>) -> DrawStyle {
    let Some(material) = material.and_then(|m| doc.materials.get(m)) else {
        return DrawStyle::default();
    };
    let alpha = material
        .other
        .get("baseColor")
        .and_then(|c| c.get("factor"))
        .and_then(Value::as_array)
        .and_then(|f| f.get(3))
        .and_then(Value::as_f64)
        .map_or(1.0, |a| a as f32);
    let render = material.other.get("extras").and_then(|e| e.get("render"));
    let flag = |key: &str| {
        render
            .and_then(|r| r.get(key))
            .and_then(Value::as_bool)
            .unwrap_or(false)
    };
    let draw_order = render
        .and_then(|r| r.get("drawOrder"))
        .and_then(Value::as_i64)
        .map_or(0, |o| {
            o.clamp(i64::from(i32::MIN), i64::from(i32::MAX)) as i32
        });
    DrawStyle::from_hints(
        alpha,
        draw_order,
        flag("transparent"),
        flag("alphaToCoverage"),
        flag("backfaceCull"),
    )
}

fn vectors(
    file: &G4mfFile,
    accessor: AccessorIndex,
    what: &str,
) -> Result<Vec<DVec3>, PreviewError> {
    let size = file
        .document
        .accessors
        .get(accessor.get())
        .map_or(0, |a| a.vector_size());
    if size != 3 {
        return Err(PreviewError::Data(format!(
            "{what} (accessor {accessor}) have vector size {size}, not 3"
        )));
    }
    Ok(file
        .read_f64(accessor)?
        .chunks_exact(3)
        .map(DVec3::from_slice)
        .collect())
}

fn indices(file: &G4mfFile, accessor: AccessorIndex) -> Result<Vec<u64>, PreviewError> {
    Ok(file.read_u64(accessor)?)
}

/// The normal of each corner of each simplex, through a normals binding whose values (with
/// blend shapes applied) are `values`.
fn corner_normals(
    file: &G4mfFile,
    binding: &Binding,
    values: Vec<DVec3>,
    simplexes: &[u64],
) -> Result<Vec<DVec3>, PreviewError> {
    let value = |i: u64| {
        values.get(i as usize).copied().ok_or_else(|| {
            PreviewError::Data(format!(
                "normal index {i} is past the {} values",
                values.len()
            ))
        })
    };
    if let Some(corners) = binding.simplexes {
        let corners = indices(file, corners)?;
        if corners.len() != simplexes.len() {
            return Err(PreviewError::Data(format!(
                "{} normal indices for {} simplex corners",
                corners.len(),
                simplexes.len()
            )));
        }
        corners.into_iter().map(value).collect()
    } else if let Some(per) = binding.per_simplex {
        let per = indices(file, per)?;
        if per.len() * 3 != simplexes.len() {
            return Err(PreviewError::Data(format!(
                "{} per-simplex normals for {} simplexes",
                per.len(),
                simplexes.len() / 3
            )));
        }
        per.iter().flat_map(|&i| [i; 3]).map(value).collect()
    } else {
        // No indices: one value per vertex.
        simplexes.iter().map(|&v| value(v)).collect()
    }
}

/// What to show besides the rest pose.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SceneOptions {
    /// Blend shape amounts by shape name, over the file's own `amounts`.
    pub blend: Vec<(String, f64)>,
    /// Draw colour factors only, no textures.
    pub no_textures: bool,
    /// Pose a glTF file's nodes by a frame of this animation clip (G4MF files have none).
    pub clip: Option<crate::gltf_clip::ClipTime>,
}

/// A scene build's textures: the file's, by texture index (or why its image is not drawn),
/// the cache shared across files, and where relative image URIs are read from.
struct Textures<'a> {
    by_index: Vec<(usize, Result<Option<u32>, String>)>,
    shared: Option<&'a TextureCache>,
    folder: Option<ImageFolder<'a>>,
}

/// Where a G4MF file's relative image URIs are read from: its folder, under the read options
/// its buffers are read with (confined to the folder unless they allow otherwise, each file
/// within the buffer limit).
#[derive(Debug, Clone, Copy)]
pub struct ImageFolder<'a> {
    /// The file's folder.
    pub path: &'a Path,
    /// The options the file was read with.
    pub read: &'a ReadOptions,
}

/// Decoded textures shared by the scenes of many files (a contact sheet's), keyed by the
/// image's bytes: an image every file embeds (a population's eyes) is decoded once. Textures
/// are reduced to at most `max_side` texels a side, and the cache holds at most
/// [`TextureCache::BUDGET`] texels (it starts afresh when full), so its memory is bounded
/// however many images the files carry.
#[derive(Debug)]
pub struct TextureCache {
    max_side: u32,
    state: Mutex<CacheState>,
}

#[derive(Debug, Default)]
struct CacheState {
    /// By the image bytes' hash and whether alpha is used; `None`: not decodable.
    textures: HashMap<(u128, bool), Option<Arc<SampledTexture>>>,
    texels: u64,
}

impl TextureCache {
    /// Most texels the cache keeps (16 Mi: 64 MiB of RGBA8).
    pub const BUDGET: u64 = 1 << 24;

    /// An empty cache of textures at most `max_side` texels a side (larger ones are reduced,
    /// averaging texels, which also keeps small pictures from aliasing).
    pub fn new(max_side: u32) -> Self {
        Self {
            max_side: max_side.max(1),
            state: Mutex::new(CacheState::default()),
        }
    }

    /// The texture of `bytes`, decoded on first use. Decoding holds the lock: images are
    /// decoded once each, and two threads never hold a full-size decode at the same time.
    pub(crate) fn get(&self, bytes: &[u8], uses_alpha: bool) -> Option<Arc<SampledTexture>> {
        let key = (xxhash_rust::xxh3::xxh3_128(bytes), uses_alpha);
        let mut state = self
            .state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(found) = state.textures.get(&key) {
            return found.clone();
        }
        let decoded = decode_image(bytes, uses_alpha, Some(self.max_side)).map(Arc::new);
        let texels = decoded
            .as_ref()
            .map_or(0, |t| u64::from(t.width) * u64::from(t.height));
        if state.texels + texels > Self::BUDGET {
            *state = CacheState::default();
        }
        state.texels += texels;
        state.textures.insert(key, decoded.clone());
        decoded
    }
}

/// The base-colour texture of material `material` decoded for sampling (an embedded image, or
/// one a relative URI names beside the file), cached per texture index and, with the shared
/// cache, across files; `Err` says why its image is not drawn (`None` inside: it has none).
fn base_color_texture(
    file: &G4mfFile,
    material: Option<usize>,
    cache: &mut Textures<'_>,
    textures: &mut Vec<Arc<SampledTexture>>,
) -> Result<Option<u32>, String> {
    let Some(index) = base_color_texture_index(&file.document, material) else {
        return Ok(None);
    };
    if let Some((_, found)) = cache.by_index.iter().find(|(t, _)| *t == index) {
        return found.clone();
    }
    let decoded = texture_image(file, index, cache.folder).and_then(|(bytes, uses_alpha)| {
        let decoded = match cache.shared {
            Some(shared) => shared.get(&bytes, uses_alpha),
            None => decode_image(&bytes, uses_alpha, None).map(Arc::new),
        };
        decoded
            .ok_or_else(|| format!("it is not a PNG or JPEG image of at most {MAX_TEXELS} texels"))
    });
    let found = decoded.map(|t| {
        textures.push(t);
        Some((textures.len() - 1) as u32)
    });
    cache.by_index.push((index, found.clone()));
    found
}

/// Texture `index`'s first image file: its bytes (embedded in a buffer view, or read through
/// a relative URI from `folder` as the readers read one: percent-decoded, inside the folder
/// unless allowed, a regular file within the buffer limit), and whether its alpha is used.
/// `Err` says why there are none.
fn texture_image<'f>(
    file: &'f G4mfFile,
    index: usize,
    folder: Option<ImageFolder<'_>>,
) -> Result<(Cow<'f, [u8]>, bool), String> {
    let doc = &file.document;
    let texture = doc
        .other
        .get("textures")
        .and_then(Value::as_array)
        .and_then(|t| t.get(index))
        .ok_or("the texture does not exist")?;
    let uses_alpha = texture
        .get("placeholder")
        .and_then(Value::as_array)
        .is_some_and(|p| p.len() == 4);
    let entry = texture
        .get("files")
        .and_then(Value::as_array)
        .and_then(|f| f.first())
        .and_then(Value::as_u64)
        .and_then(|f| {
            doc.other
                .get("files")?
                .as_array()?
                .get(usize::try_from(f).ok()?)
        })
        .ok_or("it names no file")?;
    if let Some(view) = entry.get("bufferView").and_then(Value::as_u64) {
        let bytes = view_bytes(file, view).ok_or("its buffer view does not lie in its buffer")?;
        return Ok((Cow::Borrowed(bytes), uses_alpha));
    }
    let uri = entry
        .get("uri")
        .and_then(Value::as_str)
        .ok_or("its file has neither `bufferView` nor `uri`")?;
    let folder =
        folder.ok_or_else(|| format!("`{uri}` is not read: the file's folder is unknown"))?;
    let path =
        g4mf_reader::resolve_relative_uri(uri, folder.path, folder.read.allow_outside_folder)
            .map_err(|refusal| refusal.to_string())?;
    location::read_bounded(&path, folder.read.max_buffer_bytes)
        .map(|bytes| (Cow::Owned(bytes), uses_alpha))
        .map_err(|e| format!("cannot read `{uri}` (relative to the file's folder): {e}"))
}

/// The bytes of buffer view `view`, when it lies in its buffer.
fn view_bytes(file: &G4mfFile, view: u64) -> Option<&[u8]> {
    let view = file
        .document
        .buffer_views
        .get(usize::try_from(view).ok()?)?;
    let buffer = file.buffers.get(view.buffer().get())?;
    let start = usize::try_from(view.byte_offset()).ok()?;
    let end = start.checked_add(usize::try_from(view.byte_length).ok()?)?;
    buffer.get(start..end)
}

/// An image decoded for sampling when it is within [`MAX_TEXELS`], reduced to at most
/// `max_side` texels a side when one is given.
pub(crate) fn decode_image(
    bytes: &[u8],
    uses_alpha: bool,
    max_side: Option<u32>,
) -> Option<SampledTexture> {
    let reader = image::ImageReader::new(std::io::Cursor::new(bytes))
        .with_guessed_format()
        .ok()?;
    let (width, height) = reader.into_dimensions().ok()?;
    if u64::from(width) * u64::from(height) > MAX_TEXELS || width == 0 || height == 0 {
        return None;
    }
    if let Some(side) = max_side.filter(|&s| width.max(height) > s) {
        // A large PNG is reduced row by row as it is decoded: never held whole.
        if let Some(image) = reduced_png(bytes, side) {
            return Some(SampledTexture {
                width: image.width(),
                height: image.height(),
                texels: image.pixels().map(|p| p.0).collect(),
                uses_alpha,
            });
        }
    }
    let mut image = image::load_from_memory(bytes).ok()?.to_rgba8();
    if let Some(side) = max_side.filter(|&s| width.max(height) > s) {
        let scale = f64::from(side) / f64::from(width.max(height));
        let size = |n: u32| ((f64::from(n) * scale).round() as u32).max(1);
        image = image::imageops::thumbnail(&image, size(width), size(height));
    }
    Some(SampledTexture {
        width: image.width(),
        height: image.height(),
        texels: image.pixels().map(|p| p.0).collect(),
        uses_alpha,
    })
}

/// A PNG decoded row by row and reduced as it goes, each texel the mean of a square of the
/// image's (the smallest whole square that brings the larger side to at most `max_side`), so
/// memory holds one row of the image and the reduced picture; `None` for what this does not
/// stream (interlaced images, unusual formats, errors), which the full decoder then takes.
fn reduced_png(bytes: &[u8], max_side: u32) -> Option<image::RgbaImage> {
    let mut decoder = png::Decoder::new(std::io::Cursor::new(bytes));
    decoder.set_transformations(png::Transformations::EXPAND | png::Transformations::STRIP_16);
    let mut reader = decoder.read_info().ok()?;
    let info = reader.info();
    if info.interlaced {
        return None;
    }
    let (width, height) = (info.width as usize, info.height as usize);
    let channels = match reader.output_color_type() {
        (png::ColorType::Grayscale, png::BitDepth::Eight) => 1,
        (png::ColorType::GrayscaleAlpha, png::BitDepth::Eight) => 2,
        (png::ColorType::Rgb, png::BitDepth::Eight) => 3,
        (png::ColorType::Rgba, png::BitDepth::Eight) => 4,
        _ => return None,
    };
    let square = width.max(height).div_ceil(max_side.max(1) as usize).max(1);
    let (out_width, out_height) = (width.div_ceil(square), height.div_ceil(square));
    // Sums of one band of output texels, and how many image texels each holds.
    let mut sums = vec![[0u32; 4]; out_width];
    let mut counts = vec![0u32; out_width];
    let mut out = image::RgbaImage::new(out_width as u32, out_height as u32);
    for y in 0..height {
        let row = reader.next_row().ok()??;
        let data = row.data();
        if data.len() < width * channels {
            return None;
        }
        for (x, texel) in data.chunks_exact(channels).take(width).enumerate() {
            let rgba = match channels {
                1 => [texel[0], texel[0], texel[0], 255],
                2 => [texel[0], texel[0], texel[0], texel[1]],
                3 => [texel[0], texel[1], texel[2], 255],
                _ => [texel[0], texel[1], texel[2], texel[3]],
            };
            let (sum, count) = (&mut sums[x / square], &mut counts[x / square]);
            for (s, c) in sum.iter_mut().zip(rgba) {
                *s += u32::from(c);
            }
            *count += 1;
        }
        if (y + 1) % square == 0 || y + 1 == height {
            let out_y = (y / square) as u32;
            for (x, (sum, count)) in sums.iter_mut().zip(&mut counts).enumerate() {
                let n = (*count).max(1);
                let texel = sum.map(|s| ((s + n / 2) / n) as u8);
                out.put_pixel(x as u32, out_y, image::Rgba(texel));
                *sum = [0; 4];
                *count = 0;
            }
        }
    }
    Some(out)
}

/// Each corner's texture coordinates through a surface's texture map (per-corner indices).
fn corner_uvs(file: &G4mfFile, binding: &Binding, corners: usize) -> Option<Vec<glam::Vec2>> {
    let values = file.read_f64(binding.values).ok()?;
    let size = file
        .document
        .accessors
        .get(binding.values.get())?
        .vector_size();
    if size != 2 {
        return None;
    }
    let indices = indices(file, binding.simplexes?).ok()?;
    if indices.len() != corners {
        return None;
    }
    indices
        .iter()
        .map(|&i| {
            let i = usize::try_from(i).ok()? * 2;
            Some(glam::Vec2::new(
                *values.get(i)? as f32,
                *values.get(i + 1)? as f32,
            ))
        })
        .collect()
}

/// A blend-shape target (`indices` + `offsets`) read as pairs, amount applied.
fn blend_target(
    file: &G4mfFile,
    target: &g4mf_model::BlendTarget,
    amount: f64,
    what: &str,
) -> Result<Vec<(usize, DVec3)>, PreviewError> {
    let indices = indices(file, target.indices)?;
    let offsets = vectors(file, target.offsets, what)?;
    if indices.len() != offsets.len() {
        return Err(PreviewError::Data(format!(
            "{what}: {} indices for {} offsets",
            indices.len(),
            offsets.len()
        )));
    }
    Ok(indices
        .into_iter()
        .zip(offsets)
        .map(|(i, o)| (i as usize, o * amount))
        .collect())
}

impl Scene {
    /// Draws the triangles pushed from now on with `style` (a new run only when it differs
    /// from the current one).
    pub fn set_style(&mut self, style: DrawStyle) {
        let current = self.styles.last().map_or(DrawStyle::default(), |r| r.style);
        if current == style {
            return;
        }
        let first = self.triangles.len();
        // A run that would hold no triangle is replaced rather than kept.
        if let Some(last) = self.styles.last_mut().filter(|r| r.first == first) {
            last.style = style;
        } else {
            self.styles.push(StyleRun { first, style });
        }
    }

    /// Each triangle's style, in triangle order.
    pub fn triangle_styles(&self) -> impl Iterator<Item = DrawStyle> + '_ {
        let mut runs = self.styles.iter().peekable();
        let mut style = DrawStyle::default();
        (0..self.triangles.len()).map(move |i| {
            while let Some(run) = runs.next_if(|r| r.first <= i) {
                style = run.style;
            }
            style
        })
    }

    /// The size of the triangles' bounding box (zero when empty).
    pub fn extent(&self) -> Vec3 {
        let mut lo = Vec3::splat(f32::INFINITY);
        let mut hi = Vec3::splat(f32::NEG_INFINITY);
        for p in self
            .triangles
            .iter()
            .flat_map(|t| t.corners)
            .filter(|p| p.is_finite())
        {
            lo = lo.min(p);
            hi = hi.max(p);
        }
        (hi - lo).max(Vec3::ZERO)
    }

    /// The scene of a 3D G4MF file in its rest pose: every mesh instance reachable from node 0
    /// placed by its node's global transform, and every bone reachable from node 0.
    pub fn from_file(file: &G4mfFile) -> Result<Scene, PreviewError> {
        Self::from_file_with(file, &SceneOptions::default())
    }

    /// [`Scene::from_file`] showing `options`' blend amounts. A shape name no mesh has is an
    /// error naming the shapes there are.
    pub fn from_file_with(file: &G4mfFile, options: &SceneOptions) -> Result<Scene, PreviewError> {
        Self::from_file_cached(file, options, None)
    }

    /// [`Scene::from_file_with`], decoding textures through `textures` when given (shared by
    /// the scenes of many files, reduced to its size).
    pub fn from_file_cached(
        file: &G4mfFile,
        options: &SceneOptions,
        textures: Option<&TextureCache>,
    ) -> Result<Scene, PreviewError> {
        Self::from_file_in(file, None, options, textures)
    }

    /// [`Scene::from_file_cached`], drawing images that relative URIs name from `folder` (the
    /// file's own, as [`crate::read_scene`] passes it); without one such images are drawn in
    /// their placeholder colour, with a note.
    pub fn from_file_in(
        file: &G4mfFile,
        folder: Option<ImageFolder<'_>>,
        options: &SceneOptions,
        textures: Option<&TextureCache>,
    ) -> Result<Scene, PreviewError> {
        let mut found = vec![false; options.blend.len()];
        let textures = Textures {
            by_index: Vec::new(),
            shared: textures,
            folder,
        };
        let scene = Self::build(file, options, &mut found, textures)?;
        if let Some(k) = found.iter().position(|f| !f) {
            let mut names: Vec<&str> = file
                .document
                .meshes
                .iter()
                .filter_map(|m| m.blend.as_ref())
                .flat_map(|b| &b.shapes)
                .filter_map(|s| s.name.as_deref())
                .collect();
            names.dedup();
            return Err(PreviewError::Data(format!(
                "no blend shape `{}` in the file (it has: {})",
                options.blend[k].0,
                if names.is_empty() {
                    "none".to_owned()
                } else {
                    names.join(", ")
                }
            )));
        }
        Ok(scene)
    }

    fn build(
        file: &G4mfFile,
        options: &SceneOptions,
        found: &mut [bool],
        mut textures: Textures<'_>,
    ) -> Result<Scene, PreviewError> {
        let doc = &file.document;
        if doc.asset.dimension != 3 {
            return Err(PreviewError::Dimension(doc.asset.dimension));
        }
        let mut scene = Scene::default();
        if doc.nodes.is_empty() {
            return Ok(scene);
        }
        // Depth-first from the root; `seen` guards against cycles in invalid files.
        let mut seen = vec![false; doc.nodes.len()];
        let mut stack = vec![(0usize, Transform::IDENTITY)];
        while let Some((n, parent)) = stack.pop() {
            if std::mem::replace(&mut seen[n], true) {
                continue;
            }
            let node = &doc.nodes[n];
            // A picture draws what it can of any file: a member that cannot be read is left out.
            let global = parent.then(Transform::of_node_lenient(node));
            let (global_basis, global_position) = (global.basis, global.position);
            if let Some(bone) = &node.bone {
                let length = bone.length.unwrap_or(0.0);
                scene.bones.push(BoneSegment {
                    name: node.name.clone().unwrap_or_default(),
                    head: global_position.as_vec3(),
                    tail: (global_position + global_basis.y_axis * length).as_vec3(),
                });
            }
            if let Some(instance) = &node.mesh_instance {
                scene.add_mesh_instance(
                    file,
                    instance,
                    global_basis,
                    global_position,
                    options,
                    found,
                    &mut textures,
                )?;
            }
            for child in node.children.iter().rev() {
                if child.get() < doc.nodes.len() {
                    stack.push((child.get(), global));
                }
            }
        }
        Ok(scene)
    }

    // The instance, where it is, what to show, and the build's running state (shapes found,
    // textures decoded): bundling them would only rename the arguments.
    #[allow(clippy::too_many_arguments)]
    fn add_mesh_instance(
        &mut self,
        file: &G4mfFile,
        instance: &g4mf_model::MeshInstance,
        basis: DMat3,
        position: DVec3,
        options: &SceneOptions,
        found: &mut [bool],
        textures: &mut Textures<'_>,
    ) -> Result<(), PreviewError> {
        let doc = &file.document;
        let Some(mesh) = doc.meshes.get(instance.mesh.get()) else {
            return Err(PreviewError::Data(format!(
                "mesh {} does not exist",
                instance.mesh
            )));
        };
        let mut vertices = vectors(file, mesh.vertices, "vertices")?;
        // Blend shapes: the file's amounts (the instance's `blendAmounts` over the mesh's),
        // then the options' by name.
        let shapes: &[g4mf_model::BlendShape] = mesh.blend.as_ref().map_or(&[], |b| &b.shapes);
        let mut amounts: Vec<f64> = instance
            .other
            .get("blendAmounts")
            .and_then(Value::as_array)
            .and_then(|a| a.iter().map(Value::as_f64).collect())
            .or_else(|| mesh.blend.as_ref().and_then(|b| b.amounts.clone()))
            .unwrap_or_default();
        amounts.resize(shapes.len(), 0.0);
        for (k, (name, amount)) in options.blend.iter().enumerate() {
            for (shape, a) in shapes.iter().zip(amounts.iter_mut()) {
                if shape.name.as_deref() == Some(name) {
                    *a = *amount;
                    found[k] = true;
                }
            }
        }
        let mut normal_deltas: Vec<Vec<(usize, DVec3)>> = vec![Vec::new(); mesh.surfaces.len()];
        for (shape, &amount) in shapes.iter().zip(&amounts) {
            if amount == 0.0 || !amount.is_finite() {
                continue;
            }
            let name = shape.name.as_deref().unwrap_or("?");
            if let Some(target) = &shape.position {
                for (i, o) in blend_target(file, target, amount, &format!("blend shape {name}"))? {
                    let v = vertices.get_mut(i).ok_or_else(|| {
                        PreviewError::Data(format!("blend shape {name} moves vertex {i}"))
                    })?;
                    *v += o;
                }
            }
            for entry in shape.surfaces.iter().flatten() {
                let Some(target) = &entry.normal else {
                    continue;
                };
                let what = format!("blend shape {name}'s normals");
                if let Some(deltas) = normal_deltas.get_mut(entry.surface as usize) {
                    deltas.extend(blend_target(file, target, amount, &what)?);
                }
            }
        }
        // Normals turn with the inverse transpose (a basis may scale unevenly).
        let normal_matrix = basis.inverse().transpose();
        let overrides: Vec<Option<usize>> = instance
            .other
            .get("materials")
            .and_then(Value::as_array)
            .map(|m| m.iter().map(|i| i.as_u64().map(|i| i as usize)).collect())
            .unwrap_or_default();
        for (s, surface) in mesh.surfaces.iter().enumerate() {
            let Some(simplexes) = surface.simplexes else {
                continue;
            };
            let simplexes = indices(file, simplexes)?;
            if simplexes.len() % 3 != 0 {
                return Err(PreviewError::Data(format!(
                    "surface {s} has {} simplex indices, not whole triangles",
                    simplexes.len()
                )));
            }
            if self.triangles.len() + simplexes.len() / 3 > MAX_TRIANGLES {
                return Err(PreviewError::Data(format!(
                    "more than {MAX_TRIANGLES} triangles"
                )));
            }
            let material = match overrides.len() {
                0 => surface.material.map(|m| m.get()),
                1 => overrides[0],
                _ => overrides.get(s).copied().flatten(),
            };
            let color = material_color(doc, material);
            self.set_style(material_style(doc, material));
            let texture = if options.no_textures {
                Ok(None)
            } else {
                base_color_texture(file, material, textures, &mut self.textures)
            };
            let (texture, why_not) = match texture {
                Ok(texture) => (texture, None),
                Err(why) => (None, Some(why)),
            };
            // texture.md: a texture with no image available is filled with its placeholder.
            let color = match (texture, base_color_placeholder(doc, material)) {
                (None, Some((index, placeholder, has_files))) => {
                    if let Some(why) = why_not.filter(|_| has_files) {
                        let note = format!(
                            "/textures/{index}: its image is not drawn ({why}); drawn in its placeholder colour"
                        );
                        if !self.notes.contains(&note) {
                            self.notes.push(note);
                        }
                    }
                    std::array::from_fn(|k| color[k] * placeholder[k])
                }
                _ => color,
            };
            let uvs = match (texture, &surface.texture_map) {
                (Some(_), Some(binding)) => corner_uvs(file, binding, simplexes.len()),
                _ => None,
            };
            let normals = match &surface.normals {
                Some(binding) => {
                    let mut values = vectors(file, binding.values, "normals")?;
                    for &(i, d) in &normal_deltas[s] {
                        let n = values.get_mut(i).ok_or_else(|| {
                            PreviewError::Data(format!("a blend shape moves normal {i}"))
                        })?;
                        *n += d;
                    }
                    Some(corner_normals(file, binding, values, &simplexes)?)
                }
                None => None,
            };
            for (t, corner) in simplexes.chunks_exact(3).enumerate() {
                let mut corners = [Vec3::ZERO; 3];
                for k in 0..3 {
                    let v = vertices.get(corner[k] as usize).ok_or_else(|| {
                        PreviewError::Data(format!(
                            "surface {s} uses vertex {} of {}",
                            corner[k],
                            vertices.len()
                        ))
                    })?;
                    corners[k] = (position + basis * *v).as_vec3();
                }
                let normals = normals.as_ref().map(|n| {
                    std::array::from_fn(|k| {
                        (normal_matrix * n[t * 3 + k]).normalize_or_zero().as_vec3()
                    })
                });
                let texture = texture
                    .zip(uvs.as_ref())
                    .map(|(id, uv)| (id, [uv[t * 3], uv[t * 3 + 1], uv[t * 3 + 2]]));
                self.triangles.push(Triangle {
                    corners,
                    normals,
                    color,
                    texture,
                });
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A PNG of `width` x `height` with `pixel(x, y)`, encoded as `color`.
    fn png_of(
        width: u32,
        height: u32,
        color: png::ColorType,
        pixel: impl Fn(u32, u32) -> Vec<u8>,
    ) -> Vec<u8> {
        let mut bytes = Vec::new();
        let mut encoder = png::Encoder::new(&mut bytes, width, height);
        encoder.set_color(color);
        encoder.set_depth(png::BitDepth::Eight);
        let mut writer = encoder.write_header().unwrap();
        let data: Vec<u8> = (0..height)
            .flat_map(|y| (0..width).map(move |x| (x, y)))
            .flat_map(|(x, y)| pixel(x, y))
            .collect();
        writer.write_image_data(&data).unwrap();
        drop(writer);
        bytes
    }

    /// A large PNG is reduced by whole squares as it streams, each texel their mean (the
    /// squares at the right and bottom edges smaller), grey and opaque images made RGBA.
    #[test]
    fn a_reduced_png_averages_whole_squares() {
        // 5 x 3, reduced to at most 2 a side: squares of 3, output 2 x 1.
        let rgba = png_of(5, 3, png::ColorType::Rgba, |x, y| {
            vec![(x * 10 + y) as u8, 200, (x * 50) as u8, 255 - x as u8]
        });
        let image = reduced_png(&rgba, 2).unwrap();
        assert_eq!(image.dimensions(), (2, 1));
        // Left square: x 0..3, y 0..3; right: x 3..5.
        let mean = |xs: std::ops::Range<u32>, f: &dyn Fn(u32, u32) -> u32| {
            let n = xs.len() as u32 * 3;
            let s: u32 = xs
                .flat_map(|x| (0..3).map(move |y| (x, y)))
                .map(|(x, y)| f(x, y))
                .sum();
            ((s + n / 2) / n) as u8
        };
        let red = |x: u32, y: u32| x * 10 + y;
        assert_eq!(image.get_pixel(0, 0).0[0], mean(0..3, &red));
        assert_eq!(image.get_pixel(1, 0).0[0], mean(3..5, &red));
        assert_eq!(image.get_pixel(1, 0).0[3], mean(3..5, &|x, _| 255 - x));
        let grey = png_of(4, 4, png::ColorType::Grayscale, |x, _| vec![(x * 60) as u8]);
        let image = reduced_png(&grey, 2).unwrap();
        assert_eq!(image.dimensions(), (2, 2));
        assert_eq!(image.get_pixel(1, 1).0, [150, 150, 150, 255]);
        // What it does not stream is left to the full decoder.
        assert!(reduced_png(b"not a png", 2).is_none());
    }
}
