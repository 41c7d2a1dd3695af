//! Materials and textures as a character spec holds them: the base colour factor, the
//! base-colour, normal and ORM textures (each with its first PNG or JPEG image, embedded bytes
//! or a URI kept as it is), our drawing hints (`extras.render`) and the material's extras.

use super::tree::Instance;
use super::{CharacterError, CharacterErrorKind, NoteKind, Notes, error};
use crate::G4mfFile;
use character_spec::{ImageSpec, MaterialSpec, RenderHints, TextureSpec};
use serde_json::{Map, Value};
use std::collections::{BTreeSet, HashMap, HashSet};
use std::sync::Arc;

/// Image types glTF 2.0 holds without an extension.
const GLTF_IMAGES: [&str; 2] = ["image/png", "image/jpeg"];

/// The materials the mesh instances use, named uniquely, and the textures they use (in file
/// order).
#[derive(Debug)]
pub(super) struct MaterialTable {
    /// Each file material's spec (`None`: unused).
    pub specs: Vec<Option<MaterialSpec>>,
    /// The textures, in file order.
    pub textures: Vec<TextureSpec>,
}

/// The `textures` and `files` arrays of a document (empty when absent).
fn array<'a>(file: &'a G4mfFile, key: &str) -> &'a [Value] {
    file.document
        .other
        .get(key)
        .and_then(Value::as_array)
        .map_or(&[], Vec::as_slice)
}

/// The channels a character spec keeps a texture of.
const CHANNELS: [&str; 3] = ["baseColor", "normal", "orm"];

impl MaterialTable {
    /// The materials `instances` use and their textures.
    pub fn read(
        file: &G4mfFile,
        instances: &[Instance],
        notes: &mut Notes,
    ) -> Result<Self, CharacterError> {
        let doc = &file.document;
        let mut used = vec![false; doc.materials.len()];
        for m in instances.iter().flat_map(|i| &i.materials).flatten() {
            used[*m] = true;
        }
        // Texture indices were checked by the reader (`references.rs`).
        let used_textures: BTreeSet<usize> = (0..doc.materials.len())
            .filter(|&m| used[m])
            .flat_map(|m| {
                let other = &doc.materials[m].other;
                CHANNELS.iter().filter_map(|c| texture_index(other.get(*c)))
            })
            .collect();
        let mut images = Images::default();
        let mut textures = Vec::with_capacity(used_textures.len());
        let mut texture_of = HashMap::new();
        for t in used_textures {
            texture_of.insert(t, textures.len());
            textures.push(texture(file, t, &mut images, notes)?);
        }
        let mut names = HashSet::new();
        let specs = (0..doc.materials.len())
            .map(|m| {
                used[m]
                    .then(|| material(file, m, &mut names, &texture_of, notes))
                    .transpose()
            })
            .collect::<Result<_, _>>()?;
        Ok(MaterialTable { specs, textures })
    }
}

/// A channel's texture index, when it has one.
fn texture_index(channel: Option<&Value>) -> Option<usize> {
    channel?
        .get("texture")?
        .as_u64()
        .and_then(|t| usize::try_from(t).ok())
}

/// Material `m` as a spec: a file-unique name (its own, else `Material{m}`; a repeated name
/// gets `_{m}`), its base colour, textures, drawing hints and extras; every other property
/// noted as left out.
fn material(
    file: &G4mfFile,
    m: usize,
    names: &mut HashSet<String>,
    texture_of: &HashMap<usize, usize>,
    notes: &mut Notes,
) -> Result<MaterialSpec, CharacterError> {
    let material = &file.document.materials[m];
    let mut name = material
        .name
        .clone()
        .unwrap_or_else(|| format!("Material{m}"));
    while !names.insert(name.clone()) {
        name = format!("{name}_{m}");
    }
    let mut spec = MaterialSpec {
        name,
        ..MaterialSpec::default()
    };
    let texture =
        |channel: Option<&Value>| texture_index(channel).and_then(|t| texture_of.get(&t).copied());
    for (key, value) in &material.other {
        let at = || format!("/materials/{m}/{key}");
        match key.as_str() {
            "baseColor" => {
                spec.base_color = base_color(value, &format!("/materials/{m}/baseColor"), notes)?;
                spec.base_color_texture = texture(Some(value));
                left_out(value, &["factor", "texture"], &at(), notes);
            }
            "normal" => {
                spec.normal_texture = texture(Some(value));
                left_out(value, &["texture"], &at(), notes);
            }
            "orm" => {
                spec.orm_texture = texture(Some(value));
                left_out(value, &["texture"], &at(), notes);
            }
            "extras" => {
                spec.render = render_hints(value);
                spec.extras = Some(value.clone());
            }
            _ => notes.add(at, NoteKind::MaterialPropertyLeftOut(key.clone())),
        }
    }
    Ok(spec)
}

/// Notes each member of a channel other than `kept` as left out.
fn left_out(channel: &Value, kept: &[&str], at: &str, notes: &mut Notes) {
    for key in channel.as_object().into_iter().flat_map(Map::keys) {
        if !kept.contains(&key.as_str()) {
            let what = format!("{}/{key}", at.rsplit('/').next().unwrap_or_default());
            notes.add(
                || format!("{at}/{key}"),
                NoteKind::MaterialPropertyLeftOut(what),
            );
        }
    }
}

/// The base colour factor (RGB, or RGBA) as linear RGBA.
fn base_color(
    channel: &Value,
    at: &str,
    notes: &mut Notes,
) -> Result<Option<[f64; 4]>, CharacterError> {
    let Some(factor) = channel.get("factor") else {
        return Ok(None);
    };
    let numbers: Option<Vec<f64>> = factor
        .as_array()
        .and_then(|a| a.iter().map(Value::as_f64).collect());
    match numbers.as_deref() {
        Some(&[r, g, b]) => Ok(Some([r, g, b, 1.0])),
        Some(&[r, g, b, a]) => Ok(Some([r, g, b, a])),
        Some(other) => {
            notes.add(
                || format!("{at}/factor"),
                NoteKind::MaterialPropertyLeftOut(format!(
                    "baseColor/factor of {} numbers",
                    other.len()
                )),
            );
            Ok(None)
        }
        None => Err(error(
            format!("{at}/factor"),
            CharacterErrorKind::Malformed("not an array of numbers".into()),
        )),
    }
}

/// Our drawing hints, `extras.render` (`drawOrder`, `transparent`, `alphaToCoverage`,
/// `backfaceCull`; a missing one is off), when the extras have them.
fn render_hints(extras: &Value) -> Option<RenderHints> {
    let render = extras.get("render")?.as_object()?;
    let flag = |key: &str| render.get(key).and_then(Value::as_bool).unwrap_or(false);
    Some(RenderHints {
        draw_order: render
            .get("drawOrder")
            .and_then(Value::as_i64)
            .map_or(0, |o| {
                o.clamp(i64::from(i32::MIN), i64::from(i32::MAX)) as i32
            }),
        transparent: flag("transparent"),
        alpha_to_coverage: flag("alphaToCoverage"),
        backface_cull: flag("backfaceCull"),
    })
}

/// Embedded images read so far, by file index (textures sharing a file share its bytes).
#[derive(Debug, Default)]
struct Images(HashMap<usize, Arc<Vec<u8>>>);

/// Texture `t` as a spec: its name (else `Texture{t}`), 2D size, placeholder, and its first
/// file glTF can hold.
fn texture(
    file: &G4mfFile,
    t: usize,
    images: &mut Images,
    notes: &mut Notes,
) -> Result<TextureSpec, CharacterError> {
    let at = format!("/textures/{t}");
    let malformed = |key: &str, message: &str| {
        error(
            format!("{at}/{key}"),
            CharacterErrorKind::Malformed(message.into()),
        )
    };
    let texture = array(file, "textures")
        .get(t)
        .and_then(Value::as_object)
        .ok_or_else(|| {
            error(
                at.clone(),
                CharacterErrorKind::Malformed("not an object".into()),
            )
        })?;
    let [width, height] = texture_size(texture.get("size"), &at)?;
    let placeholder: Vec<f64> = texture
        .get("placeholder")
        .and_then(Value::as_array)
        .and_then(|p| p.iter().map(Value::as_f64).collect())
        .filter(|p: &Vec<f64>| !p.is_empty())
        .ok_or_else(|| malformed("placeholder", "not a non-empty array of numbers"))?;
    if texture
        .get("sampler")
        .is_some_and(|s| s.as_object().is_none_or(|s| !s.is_empty()))
    {
        notes.add(|| format!("{at}/sampler"), NoteKind::SamplerLeftOut);
    }
    let image = first_image(file, texture.get("files"), images)?;
    if image.is_none()
        && texture
            .get("files")
            .and_then(Value::as_array)
            .is_some_and(|f| !f.is_empty())
    {
        notes.add(|| format!("{at}/files"), NoteKind::NoUsableImage);
    }
    Ok(TextureSpec {
        name: texture
            .get("name")
            .and_then(Value::as_str)
            .map_or_else(|| format!("Texture{t}"), str::to_owned),
        image,
        size: [width, height],
        placeholder,
    })
}

/// A texture's `size` (at `{at}/size`): two positive 32-bit numbers.
fn texture_size(size: Option<&Value>, at: &str) -> Result<[u32; 2], CharacterError> {
    let at = format!("{at}/size");
    let numbers: Option<Vec<u64>> = size
        .and_then(Value::as_array)
        .and_then(|s| s.iter().map(Value::as_u64).collect());
    match numbers.as_deref() {
        Some(&[w, h]) => match [w, h].map(|s| u32::try_from(s).ok().filter(|&s| s > 0)) {
            [Some(w), Some(h)] => Ok([w, h]),
            _ => Err(error(
                at,
                CharacterErrorKind::Malformed("a size must be positive and fit 32 bits".into()),
            )),
        },
        Some(other) => Err(error(
            at,
            CharacterErrorKind::Unsupported(format!(
                "a {}D texture: a character's textures are 2D",
                other.len()
            )),
        )),
        None => Err(error(
            at,
            CharacterErrorKind::Malformed("not an array of positive integers".into()),
        )),
    }
}

/// The first of a texture's `files` glTF can hold.
fn first_image(
    file: &G4mfFile,
    files: Option<&Value>,
    images: &mut Images,
) -> Result<Option<ImageSpec>, CharacterError> {
    let indices = files.and_then(Value::as_array).into_iter().flatten();
    for f in indices.filter_map(Value::as_u64) {
        let Ok(f) = usize::try_from(f) else {
            continue;
        };
        if let Some(image) = image_of(file, f, images)? {
            return Ok(Some(image));
        }
    }
    Ok(None)
}

/// File `f` as an image glTF can hold (PNG or JPEG; `None` for other types): its bytes from
/// its buffer view, or its URI as it is.
fn image_of(
    file: &G4mfFile,
    f: usize,
    images: &mut Images,
) -> Result<Option<ImageSpec>, CharacterError> {
    let Some(entry) = array(file, "files").get(f) else {
        return Ok(None);
    };
    let mime = entry.get("mimeType").and_then(Value::as_str).unwrap_or("");
    if !GLTF_IMAGES.contains(&mime) {
        return Ok(None);
    }
    let view = entry
        .get("bufferView")
        .and_then(Value::as_u64)
        .and_then(|v| usize::try_from(v).ok());
    if let Some(v) = view {
        if let Some(bytes) = images.0.get(&f) {
            return Ok(Some(ImageSpec::Embedded {
                bytes: bytes.clone(),
                mime: mime.to_owned(),
            }));
        }
        let bytes = Arc::new(view_bytes(file, v).map(<[u8]>::to_vec).ok_or_else(|| {
            error(
                format!("/files/{f}/bufferView"),
                CharacterErrorKind::Malformed(format!(
                    "buffer view {v} does not lie in its buffer"
                )),
            )
        })?);
        images.0.insert(f, bytes.clone());
        return Ok(Some(ImageSpec::Embedded {
            bytes,
            mime: mime.to_owned(),
        }));
    }
    Ok(entry
        .get("uri")
        .and_then(Value::as_str)
        .map(|uri| ImageSpec::Uri {
            uri: uri.to_owned(),
            mime: mime.to_owned(),
        }))
}

/// The bytes of buffer view `v`, when it lies in its buffer.
fn view_bytes(file: &G4mfFile, v: usize) -> Option<&[u8]> {
    let view = file.document.buffer_views.get(v)?;
    let buffer = file.buffers.get(view.buffer().get())?;
    let start = usize::try_from(view.byte_offset()).ok()?;
    let end = start.checked_add(usize::try_from(view.byte_length).ok()?)?;
    buffer.get(start..end)
}
