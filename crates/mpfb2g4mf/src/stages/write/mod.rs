//! Stage 6, write: the character as the writers' spec (`character-spec`: bones, meshes as
//! named surfaces, materials, textures decided per `--textures`, skins, blend shapes, MPFB
//! extras), then written by the output's format: G4MF (`g4mf.rs`: `g4mf-writer`'s layout, the
//! weights the skin cannot carry as binary accessors, the thumbnail) or glTF 2.0 (`gltf.rs`:
//! `gltf-writer`; a `.vrm`'s clips as `.vrma` files beside it, `vrma.rs`), atomically.

mod g4mf;
pub(crate) mod gltf;
pub(crate) mod vrma;

use crate::diagnostics::{Code, Diagnostic, Diagnostics};
use g4mf::Uncarried;

use super::assemble::MpfbExtras;
use crate::atomic::{PendingFile, SharedFile};
use crate::derived::{Both, Cache, Id, Key, Of, SHAPES};
use crate::error::ConvertError;
use crate::extras::{AssetNodeExtras, AssetNodeMpfb, MaterialExtras, RenderExtras};
use crate::options::{ConvertOptions, OutputFormat, TextureMode};
use crate::stages::dress;
use crate::stages::transforms::FACE_PARTS;
use character::Character;
use character::ShapeOffsets as Offsets;
use g4mf_writer::{
    AttachmentSpec, BlendShapeSpec, BoneSpec, CharacterSpec, Corners, FaceSpec, ImageSpec,
    Influence, Influences, MaterialSpec, MeshSpec, SurfaceSpec, TextureSpec,
};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The generator string written into every file.
pub const GENERATOR: &str = concat!("mpfb2g4mf ", env!("CARGO_PKG_VERSION"));

/// When a `.g4b` output is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Commit {
    /// By the write stage, before it returns.
    #[default]
    Now,
    /// By the caller: the file, made, checked and written to its temporary file, is handed
    /// back in [`Written::pending`] to be synced and renamed (a `.g4tf` and copied images are
    /// always written now).
    Later,
}

/// What writing produced.
#[derive(Debug)]
pub struct Written {
    /// The `.g4b` made but not yet written (with [`Commit::Later`]).
    pub pending: Option<crate::atomic::PendingFile>,
    /// Extra files written (the external `.bin`).
    pub external: Vec<PathBuf>,
    /// Bytes written (all files).
    pub bytes: u64,
    /// Joints written.
    pub joints: usize,
    /// Skin entries written.
    pub weight_pairs: usize,
    /// Most influences on one vertex.
    pub max_influences: usize,
    /// Kept vertices no bone moves (0 without a skin).
    pub unweighted_vertices: usize,
    /// Polygons written.
    pub faces: usize,
    /// Images copied beside the output (`--textures copy`), already there or written.
    pub images: Vec<PathBuf>,
    /// What a `.vrm` added.
    pub vrm: Option<crate::summary::VrmSummary>,
}

/// `value` as extras (JSON text, made without a parsed copy).
fn to_extras<T: serde::Serialize>(value: &T) -> Option<character_spec::Extras> {
    // Our extras are plain data (string keys, finite numbers): serializing cannot fail.
    character_spec::Extras::from_serialize(value).ok()
}

fn to_value<T: serde::Serialize>(value: &T) -> Option<serde_json::Value> {
    // Our extras are plain data (string keys, finite numbers): serializing cannot fail.
    serde_json::to_value(value).ok()
}

/// What puts polygons in the same surface: their material and which face helper they are.
type SurfaceKey = (Option<u32>, Option<usize>);

/// The names of the face helpers' surfaces, per [`FACE_PARTS`] entry.
pub const FACE_SURFACES: [&str; 5] = ["LeftEye", "RightEye", "UpperTeeth", "LowerTeeth", "Tongue"];

/// A surface's name: the face helper it is, else what its material dresses.
fn surface_name(material: &str, face: Option<usize>) -> String {
    match face {
        Some(f) => FACE_SURFACES[f].to_owned(),
        None => match material {
            dress::SKIN => "Body".to_owned(),
            "EyelashMaterial" => "Eyelashes".to_owned(),
            "HelperMaterial" => "Helpers".to_owned(),
            other => other.to_owned(),
        },
    }
}

/// Surfaces (one per material, in first-use order, where each eye, each set of teeth and the
/// tongue is a surface of its own) of the body's polygons, and the texture coordinates they
/// use, renumbered in first-use order. With `named`, a surface with a material is named.
fn surfaces_of(
    polygons: &character::Polygons,
    all_texcoords: &[[f64; 2]],
    materials: &[String],
    named: bool,
) -> (Vec<SurfaceSpec>, Vec<[f64; 2]>) {
    let mut texcoord_new: Vec<Option<u32>> = vec![None; all_texcoords.len()];
    let mut texcoords: Vec<[f64; 2]> = Vec::new();
    let mut surfaces: Vec<SurfaceSpec> = Vec::new();
    // (material, face helper) -> surface index, in first-use order.
    let mut surface_of_material: Vec<(SurfaceKey, usize)> = Vec::new();
    // Which face helper (eye, teeth, tongue) each part set is, if any.
    let face_part: Vec<Option<usize>> = polygons
        .part_sets
        .iter()
        .map(|set| FACE_PARTS.iter().position(|f| set.iter().any(|n| n == f)))
        .collect();
    let key_of = |p: usize| (polygons.materials[p], face_part[polygons.parts[p] as usize]);
    // Each surface's polygon count first, so its faces are allocated once.
    let mut sizes: Vec<(SurfaceKey, usize)> = Vec::new();
    for p in 0..polygons.len() {
        let key = key_of(p);
        match sizes.iter_mut().find(|(k, _)| *k == key) {
            Some((_, n)) => *n += 1,
            None => sizes.push((key, 1)),
        }
    }
    for p in 0..polygons.len() {
        let key = key_of(p);
        let s = match surface_of_material.iter().find(|(k, _)| *k == key) {
            Some(&(_, s)) => s,
            None => {
                let material = key.0.and_then(|m| materials.get(m as usize));
                let size = sizes.iter().find(|(k, _)| *k == key).map_or(0, |&(_, n)| n);
                surfaces.push(SurfaceSpec {
                    name: material.filter(|_| named).map(|m| surface_name(m, key.1)),
                    material: material.cloned(),
                    faces: Vec::with_capacity(size),
                });
                surface_of_material.push((key, surfaces.len() - 1));
                surfaces.len() - 1
            }
        };
        let corners = polygons.corners(p);
        let vertices = Corners::from_slice(&polygons.vertices[corners.clone()]);
        let uv = polygons.texcoords[corners]
            .iter()
            .map(|t| {
                t.map(|t| {
                    *texcoord_new[t as usize].get_or_insert_with(|| {
                        texcoords.push(all_texcoords[t as usize]);
                        (texcoords.len() - 1) as u32
                    })
                })
            })
            .collect::<Option<Corners>>();
        surfaces[s].faces.push(FaceSpec {
            vertices,
            texcoords: uv,
        });
    }
    (surfaces, texcoords)
}

/// A material as the writer takes it, with its drawing hints in extras and its textures
/// entered in `textures`. With `--textures none` the base-colour texture's placeholder (the
/// skin colour, an asset's colour) is folded into the factor, as a reader draws a texture
/// without its image.
fn material_spec(m: &character::Material, textures: &mut TextureTable) -> MaterialSpec {
    let base_color = match (&m.textures.base_color, textures.mode) {
        (Some(texture), TextureMode::None) => {
            let mut factor = m.base_color.unwrap_or([1.0; 4]);
            for (c, p) in texture.placeholder.iter().take(4).enumerate() {
                factor[c] *= p;
            }
            Some(factor)
        }
        _ => m.base_color,
    };
    MaterialSpec {
        name: m.name.clone(),
        base_color,
        render: m.render,
        extras: m.render.and_then(|r| {
            to_value(&MaterialExtras {
                render: RenderExtras::from(r),
            })
        }),
        base_color_texture: m
            .textures
            .base_color
            .as_ref()
            .and_then(|t| textures.enter(t)),
        normal_texture: m.textures.normal.as_ref().and_then(|t| textures.enter(t)),
        orm_texture: m.textures.orm.as_ref().and_then(|t| textures.enter(t)),
    }
}

/// The textures of a file: one per image file (shared by the materials that name it), with
/// what became of each image under the `--textures` mode.
pub struct TextureTable {
    mode: TextureMode,
    /// The output's folder (copies go there; references are relative to it).
    folder: PathBuf,
    specs: Vec<TextureSpec>,
    by_path: HashMap<PathBuf, usize>,
    /// Images named but not there (file names: the summary names their folders).
    pub missing: Vec<String>,
    /// Images named and there but unusable: path and why.
    pub unusable: Vec<String>,
    /// Images kept with a colour profile (G4MF advises against them).
    pub with_profile: Vec<String>,
    /// Copies to write beside the output (`--textures copy`): file name and bytes.
    pub copies: Vec<(String, std::sync::Arc<Vec<u8>>)>,
}

impl TextureTable {
    /// An empty table for files written to `output`.
    pub fn new(mode: TextureMode, output: &Path) -> Self {
        let folder = output
            .parent()
            .filter(|p| !p.as_os_str().is_empty())
            .unwrap_or(Path::new("."))
            .to_path_buf();
        Self {
            mode,
            folder,
            specs: Vec::new(),
            by_path: HashMap::new(),
            missing: Vec::new(),
            unusable: Vec::new(),
            with_profile: Vec::new(),
            copies: Vec::new(),
        }
    }

    /// The writer's index of `texture` (entered once per image file); `None` with
    /// `--textures none`.
    fn enter(&mut self, texture: &character::Texture) -> Option<usize> {
        if self.mode == TextureMode::None {
            return None;
        }
        if let Some(&index) = self.by_path.get(&texture.path) {
            return Some(index);
        }
        // `{stem}Texture`: the bare stem is often an asset's name, which its node keeps.
        let name = texture.path.file_stem().map_or_else(
            || "Texture".to_owned(),
            |s| format!("{}Texture", s.to_string_lossy()),
        );
        // Files by name: their folder is the asset's (or the material's), which the summary
        // names already.
        let shown = |path: &Path| {
            path.file_name().map_or_else(
                || path.display().to_string(),
                |n| n.to_string_lossy().into_owned(),
            )
        };
        self.missing
            .extend(texture.missing.iter().map(|p| shown(p)));
        self.unusable.extend(
            texture
                .unusable
                .iter()
                .map(|(path, why)| format!("{} ({why})", path.display())),
        );
        let (image, size) = match &texture.image {
            None => (None, [1, 1]),
            Some(image) => {
                if image.icc_profile {
                    self.with_profile.push(shown(&texture.path));
                }
                // An image we made has no original to point at: it is copied instead.
                let mode = match self.mode {
                    TextureMode::Reference if texture.generated => TextureMode::Copy,
                    mode => mode,
                };
                let spec = match mode {
                    TextureMode::Embed | TextureMode::None => ImageSpec::Embedded {
                        bytes: image.bytes.clone(),
                        mime: image.mime.to_owned(),
                    },
                    TextureMode::Copy => {
                        let extension = if image.mime == "image/png" {
                            "png"
                        } else {
                            "jpg"
                        };
                        let hash = xxhash_rust::xxh3::xxh3_128(&image.bytes);
                        let file = format!("{:032x}.{extension}", hash);
                        self.copies.push((file.clone(), image.bytes.clone()));
                        ImageSpec::Uri {
                            uri: file,
                            mime: image.mime.to_owned(),
                        }
                    }
                    TextureMode::Reference => ImageSpec::Uri {
                        uri: relative_uri(&self.folder, &texture.path),
                        mime: image.mime.to_owned(),
                    },
                };
                (Some(spec), image.size)
            }
        };
        self.specs.push(TextureSpec {
            name,
            image,
            size,
            placeholder: texture.placeholder.clone(),
        });
        let index = self.specs.len() - 1;
        self.by_path.insert(texture.path.clone(), index);
        Some(index)
    }
}

/// The first few of `items`, and how many more.
fn shorten_list(items: &[String]) -> String {
    const SHOWN: usize = 5;
    let mut text = items[..items.len().min(SHOWN)].join(", ");
    if items.len() > SHOWN {
        text.push_str(&format!(" and {} more", items.len() - SHOWN));
    }
    text
}

/// `target` relative to `folder` as a URI reference (absolute when no relative path exists):
/// segments joined by `/`, each percent-encoded as RFC 3986 asks (a space, `#`, `%`, `?` or a
/// non-ASCII letter in a file name would otherwise end or change the URI), as every reader
/// here decodes them.
pub(crate) fn relative_uri(folder: &Path, target: &Path) -> String {
    let absolute = |p: &Path| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
    let relative = pathdiff::diff_paths(absolute(target), absolute(folder))
        .unwrap_or_else(|| absolute(target));
    relative
        .components()
        .map(|c| {
            percent_encoding::utf8_percent_encode(&c.as_os_str().to_string_lossy(), SEGMENT)
                .to_string()
        })
        .collect::<Vec<_>>()
        .join("/")
}

/// What a URI path segment escapes: everything but unreserved characters and `!$&'()*+,;=@`
/// (`:` too, so a first segment is never read as a scheme).
const SEGMENT: &percent_encoding::AsciiSet = &percent_encoding::NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~')
    .remove(b'!')
    .remove(b'$')
    .remove(b'&')
    .remove(b'\'')
    .remove(b'(')
    .remove(b')')
    .remove(b'*')
    .remove(b'+')
    .remove(b',')
    .remove(b';')
    .remove(b'=')
    .remove(b'@');

/// What writing derives from shared values alone: what the writer takes, made once for every
/// body sharing it.
#[derive(Default)]
pub struct Derived {
    /// The surfaces a mesh is written as, with their texture coordinates.
    surfaces: Cache<SurfacesKey, Arc<WrittenSurfaces>>,
    /// A skin's influences as the writer takes them.
    influences: Cache<Of<character::Skin>, Influences>,
    /// A shape's offsets as the writer takes them.
    offsets: Cache<Of<Offsets>, g4mf_writer::Offsets, SHAPES>,
    /// The authored pairs a skin does not carry for a mesh, by weights and numbering.
    uncarried: Cache<Both<character::AuthoredWeights, character::Numbering>, Arc<Uncarried>>,
}

/// What a mesh's surfaces are made from: its polygons and texture coordinates, its materials'
/// names, whether surfaces are named, and whose they are.
#[derive(PartialEq)]
struct SurfacesKey {
    mesh: Both<character::Polygons, Vec<[f64; 2]>>,
    materials: Vec<String>,
    named: bool,
    layout: SurfaceLayout,
}

impl Key for SurfacesKey {
    fn alive(&self) -> bool {
        self.mesh.alive()
    }
}

/// How a mesh's polygons are grouped into surfaces.
#[derive(PartialEq)]
enum SurfaceLayout {
    /// The body's: by material, each face helper its own.
    Body,
    /// An attachment's (the asset named): by material.
    Attachment(String),
}

/// Surfaces as the writer takes them, and the texture coordinates they index.
type WrittenSurfaces = (g4mf_writer::Surfaces, Arc<Vec<[f64; 2]>>);

/// The attachments as the writers take them (their arrays moved out of the character): one
/// surface per material, named after the asset (with `named`), blend shapes under the body
/// shapes' names (the G4MF writer prefixes them with the asset's: its names are file-wide).
fn attachment_specs(
    character: &mut Character,
    extras: &MpfbExtras,
    named: bool,
    textures: &mut TextureTable,
    derived: &Derived,
) -> Vec<AttachmentSpec> {
    std::mem::take(&mut character.attachments)
        .into_iter()
        .zip(&extras.attachments)
        .map(|(attachment, provenance)| {
            let mesh = attachment.mesh;
            let material_names: Vec<String> = attachment
                .materials
                .iter()
                .map(|m| m.name.clone())
                .collect();
            let surfaces = derived.surfaces.get_or(
                SurfacesKey {
                    mesh: Both(Id::of(&mesh.polygons), Id::of(&mesh.texcoords)),
                    materials: material_names.clone(),
                    named,
                    layout: SurfaceLayout::Attachment(attachment.name.clone()),
                },
                || {
                    Arc::new((
                        attachment_surfaces(
                            &mesh.polygons,
                            &material_names,
                            named,
                            &attachment.name,
                        )
                        .into(),
                        mesh.texcoords.clone(),
                    ))
                },
            );
            let influences = attachment
                .skin
                .as_ref()
                .map(|skin| influences_of(skin, derived));
            AttachmentSpec {
                name: attachment.name.clone(),
                mesh: MeshSpec {
                    positions: mesh.positions,
                    texcoords: surfaces.1.clone(),
                    surfaces: surfaces.0.clone(),
                    normals: (!mesh.normals.is_empty()).then_some(mesh.normals),
                    materials: attachment
                        .materials
                        .iter()
                        .map(|m| material_spec(m, textures))
                        .collect(),
                    blend_shapes: shape_specs(attachment.blend_shapes, derived),
                },
                influences,
                node_extras: to_extras(&AssetNodeExtras {
                    mpfb: AssetNodeMpfb {
                        asset: provenance.clone(),
                    },
                }),
                mesh_extras: None,
            }
        })
        .collect()
}

/// An attachment's surfaces: one per material, in first-use order, named `{asset}Surface`
/// (with `named`).
fn attachment_surfaces(
    polygons: &character::Polygons,
    materials: &[String],
    named: bool,
    asset: &str,
) -> Vec<SurfaceSpec> {
    let mut surfaces: Vec<SurfaceSpec> = Vec::new();
    let mut surface_of: Vec<(Option<u32>, usize)> = Vec::new();
    for p in 0..polygons.len() {
        let key = polygons.materials[p];
        let s = match surface_of.iter().find(|(k, _)| *k == key) {
            Some(&(_, s)) => s,
            None => {
                let material = key.and_then(|m| materials.get(m as usize)).cloned();
                surfaces.push(SurfaceSpec {
                    name: named.then(|| format!("{asset}Surface")),
                    material,
                    faces: Vec::new(),
                });
                surface_of.push((key, surfaces.len() - 1));
                surfaces.len() - 1
            }
        };
        let corners = polygons.corners(p);
        surfaces[s].faces.push(FaceSpec {
            vertices: Corners::from_slice(&polygons.vertices[corners.clone()]),
            texcoords: polygons.texcoords[corners].iter().copied().collect(),
        });
    }
    surfaces
}

/// A skin's influences as the writer takes them, made once per skin (the writer then checks
/// and orders them once for every mesh sharing them).
fn influences_of(skin: &Arc<character::Skin>, derived: &Derived) -> Influences {
    derived.influences.get_or((Id::of(skin), ()), || {
        skin.influences
            .iter()
            .map(|i| Influence {
                vertex: i.vertex,
                bone: i.bone,
                weight: i.weight,
            })
            .collect::<Vec<_>>()
            .into()
    })
}

/// A shape's offsets as the writer takes them, made once per set of offsets (the writer then
/// encodes them once for every mesh sharing them).
fn written_offsets(offsets: &Arc<Offsets>, derived: &Derived) -> g4mf_writer::Offsets {
    derived
        .offsets
        .get_or((Id::of(offsets), ()), || offsets.to_vec().into())
}

/// Writes `character` with its `extras` to `options.output` in `format`. The character is
/// the last stage's: its arrays move into the writers' spec instead of being copied. What
/// writing finds worth a word (images, vertices no bone moves, what the format's writer
/// noted, the validator's findings) is said before the file replaces anything, so a
/// diagnostic `--deny` names stops the job with nothing written.
// One argument per decision the driver made; grouping them would hide what the stage needs.
#[allow(clippy::too_many_arguments)]
pub fn write(
    mut character: Character,
    extras: MpfbExtras,
    options: &ConvertOptions,
    format: OutputFormat,
    commit: Commit,
    derived: &Derived,
    said: &mut Diagnostics,
) -> Result<Written, ConvertError> {
    // The thumbnail draws the character before its arrays move into the spec.
    let thumbnail = options
        .thumbnail
        .then(|| crate::picture::thumbnail(&character));
    let mut textures = TextureTable::new(options.textures, &options.output);
    // Clips are glTF's alone (options refuse them for G4MF outputs); a `.vrm`'s go beside it.
    let clips: Vec<gltf_writer::ClipSpec> = std::mem::take(&mut character.clips)
        .into_iter()
        .map(|c| gltf_writer::ClipSpec {
            name: c.name,
            times: c.times,
            poses: c.poses,
        })
        .collect();
    let spec = spec_of(&mut character, &extras, options, &mut textures, derived);
    crate::timings::lap("write: spec");
    let facts = Kept {
        faces: character.mesh.polygons.len(),
        worn: extras.worn().map(|a| a.name.clone()).collect(),
    };
    said.extend(texture_warnings(&textures));
    if format.is_gltf() {
        let png = thumbnail.map(|(png, _)| png);
        return gltf::write_gltf(
            spec,
            facts,
            options,
            format,
            commit,
            &textures,
            (png, clips),
            said,
        );
    }
    g4mf::write_g4mf(
        spec,
        facts,
        &character,
        extras,
        thumbnail,
        (options, format, commit),
        &textures,
        derived,
        said,
    )
}

/// What the character keeps for the summary once its arrays are in the spec.
#[derive(Debug, Clone)]
struct Kept {
    /// Polygons of the body.
    faces: usize,
    /// The worn assets' names, in attachment order.
    worn: Vec<String>,
}

/// Says the vertices no bone moves, of each worn asset and of the body; `to_root` when they
/// were given to the root bone (glTF, whose weights must sum to one: MakeHuman's rule).
fn say_unweighted(
    said: &mut Diagnostics,
    kept: &Kept,
    (body, assets): (usize, &[usize]),
    to_root: bool,
) {
    let fate = if to_root {
        " (given to the root bone with weight 1)"
    } else {
        ""
    };
    for (asset, unweighted) in kept.worn.iter().zip(assets) {
        if *unweighted > 0 {
            said.say(
                Code::AssetUnweighted,
                format!("{unweighted} vertices of {asset} are moved by no bone{fate}"),
            );
        }
    }
    if body > 0 {
        said.say(
            Code::UnweightedVertices,
            format!("{body} kept vertices are moved by no bone{fate}"),
        );
    }
}

/// The writers' spec of `character` (its arrays moved out: count them before).
fn spec_of(
    character: &mut Character,
    extras: &MpfbExtras,
    options: &ConvertOptions,
    textures: &mut TextureTable,
    derived: &Derived,
) -> CharacterSpec {
    let bones = bone_specs(character, extras);
    let influences = character
        .skin
        .as_ref()
        .map(|skin| influences_of(skin, derived));
    let mesh = body_mesh_spec(character, options.materials, textures, derived);
    let attachments = attachment_specs(character, extras, options.materials, textures, derived);
    crate::timings::lap("write: surfaces, bones");
    CharacterSpec {
        name: character.name.clone(),
        skeleton_position: character.skeleton.position,
        skeleton_extras: to_extras(&extras.skeleton),
        bones,
        mesh: Some(mesh),
        influences,
        attachments,
        textures: std::mem::take(&mut textures.specs),
        generator: GENERATOR.to_owned(),
    }
}

/// The bones as the writer takes them, their extras the JSON made once for every body on the
/// same rig (shared, not copied).
fn bone_specs(character: &Character, extras: &MpfbExtras) -> Vec<BoneSpec> {
    character
        .skeleton
        .bones
        .iter()
        .zip(extras.bones.iter())
        .map(|(bone, bone_extras)| BoneSpec {
            name: bone.name.clone(),
            parent: bone.parent,
            head: bone.head,
            basis: bone.basis,
            length: bone.length,
            extras: Some(bone_extras.clone()),
        })
        .collect()
}

/// The body's mesh as the writer takes it (positions, normals and blend shapes moved out of
/// the character); its surfaces made once for every body sharing the polygons and materials.
fn body_mesh_spec(
    character: &mut Character,
    named: bool,
    textures: &mut TextureTable,
    derived: &Derived,
) -> MeshSpec {
    let mesh = &mut character.mesh;
    let material_names: Vec<String> = character.materials.iter().map(|m| m.name.clone()).collect();
    let surfaces = derived.surfaces.get_or(
        SurfacesKey {
            mesh: Both(Id::of(&mesh.polygons), Id::of(&mesh.texcoords)),
            materials: material_names.clone(),
            named,
            layout: SurfaceLayout::Body,
        },
        || {
            let (surfaces, texcoords) =
                surfaces_of(&mesh.polygons, &mesh.texcoords, &material_names, named);
            Arc::new((surfaces.into(), Arc::new(texcoords)))
        },
    );
    let normals = std::mem::take(&mut mesh.normals);
    MeshSpec {
        positions: std::mem::take(&mut mesh.positions),
        texcoords: surfaces.1.clone(),
        surfaces: surfaces.0.clone(),
        normals: (!normals.is_empty()).then_some(normals),
        materials: character
            .materials
            .iter()
            .map(|m| material_spec(m, textures))
            .collect(),
        blend_shapes: shape_specs(std::mem::take(&mut character.blend_shapes), derived),
    }
}

/// The bytes a text file and the buffers beside it hold.
fn text_bytes(json: &[u8], external: &[(String, Vec<u8>)]) -> u64 {
    json.len() as u64 + external.iter().map(|(_, d)| d.len() as u64).sum::<u64>()
}

/// The error of writing `path`, for `map_err`.
fn output_error(path: &Path) -> impl FnOnce(std::io::Error) -> ConvertError {
    let path = path.to_path_buf();
    move |source| ConvertError::Output { path, source }
}

/// Blend shapes as the writers take them (their offsets shared, see [`written_offsets`]).
fn shape_specs(shapes: Vec<character::BlendShape>, derived: &Derived) -> Vec<BlendShapeSpec> {
    shapes
        .into_iter()
        .map(|b| BlendShapeSpec {
            name: b.name,
            amount: b.amount,
            offsets: written_offsets(&b.offsets, derived),
            normal_offsets: b.normal_offsets,
        })
        .collect()
}

/// Copies the images `--textures copy` puts beside the output, before the output is written,
/// so the file never names one that is not there; a name is its content's hash, so an
/// existing file is the same image. Each copy is a [`SharedFile`]: removed again if the job
/// fails and no other job uses it (see [`settle_copies`]).
fn copy_images(textures: &TextureTable) -> Result<Vec<SharedFile>, ConvertError> {
    textures
        .copies
        .iter()
        .map(|(name, bytes)| {
            let path = textures.folder.join(name);
            SharedFile::write(&path, bytes).map_err(|source| ConvertError::Output { path, source })
        })
        .collect()
}

/// The copied images once the output is written: kept now, or, for an output still to be
/// committed, held by it (kept when it is in place, released if it never is).
fn settle_copies(
    pending: Option<PendingFile>,
    copies: Vec<SharedFile>,
) -> (Option<PendingFile>, Vec<PathBuf>) {
    let paths = copies.iter().map(|c| c.path().to_path_buf()).collect();
    let pending = match pending {
        Some(pending) => Some(pending.with_companions(copies)),
        None => {
            copies.into_iter().for_each(SharedFile::keep);
            None
        }
    };
    (pending, paths)
}

/// What became of images worth a word: missing ones (placeholders written), profiles kept.
fn texture_warnings(textures: &TextureTable) -> Vec<Diagnostic> {
    let mut warnings = Vec::new();
    if !textures.missing.is_empty() {
        warnings.push(Diagnostic::new(
            Code::TexturesMissing,
            format!(
                "{} missing (placeholder colours stand in): {}",
                match textures.missing.len() {
                    1 => "an image is".to_owned(),
                    n => format!("{n} images are"),
                },
                shorten_list(&textures.missing)
            ),
        ));
    }
    if !textures.unusable.is_empty() {
        warnings.push(Diagnostic::new(
            Code::TexturesUnusable,
            format!(
                "{} there but cannot be used (placeholder colours stand in): {}",
                match textures.unusable.len() {
                    1 => "an image is".to_owned(),
                    n => format!("{n} images are"),
                },
                shorten_list(&textures.unusable)
            ),
        ));
    }
    if !textures.with_profile.is_empty() {
        warnings.push(Diagnostic::new(Code::TexturesColourProfile, format!(
            "{} image(s) embed a colour profile, which G4MF advises against (kept as they are): {}",
            textures.with_profile.len(),
            shorten_list(&textures.with_profile)
        )));
    }
    warnings
}
