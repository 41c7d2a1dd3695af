//! Stage 4b, wear: the MakeHuman assets a job wears (clothes, hair, eyebrows, eyelashes, proxy
//! eyes, teeth, tongue) fitted to the assembled body as MakeHuman fits them, skinned to the
//! same skeleton, carrying the body's blend shapes, as [`Attachment`]s of the character.
//!
//! - Positions: MakeHuman's rule on the morphed rest body, every vertex (helpers included):
//!   `w0*b[v0] + w1*b[v1] + w2*b[v2] + S*d` in the base mesh's decimetres
//!   ([`makehuman_assets::ProxyFile::fit`]), then metres.
//! - Weights: inherited from the body's resolved skin through the same references
//!   (contributions of 1e-4 or less dropped), or the asset's own `.mhw` where its groups name
//!   bones of the rig; either way made into skin weights by MakeHuman's rule
//!   ([`makehuman_assets::vertex_bone_weights`]: each vertex divided by its total, weights of
//!   1e-4 or less then dropped, vertices left with none given to the rig's root bone, the
//!   first bone without a parent). A sub-rig (`.mpfbskel`) adds
//!   its bones under the bone its root follows (`head`), and its weights are mixed in by its
//!   `mhmask-subrig` group as MPFB's second armature modifier mixes them.
//! - Blend shapes: each body shape refitted: the asset on the displaced body minus the rest
//!   fit, so eyebrows and eyelashes follow the face.
//!
//! It also says which body vertices the worn assets hide and which helper parts their
//! proxies replace, for helper extraction.

use crate::derived::{Cache, Id, Key};
use crate::diagnostics::{Code, Diagnostic, Diagnostics};
use crate::error::{ConvertError, FallbackRefused};
use crate::extras::{AssetProvenance, bone_extras_value};
use crate::inputs::LoadedWearable;
use crate::outfit::AssetKind;
use crate::stages::assemble::{MpfbExtras, file_name};
use crate::stages::transforms::{BODY_PART, FACE_PARTS, Hidden};
use character::{
    Attachment, AuthoredWeights, BlendShape, Bone, Character, Influence, Material, Mesh, Numbering,
    Polygons, Selection, Skin,
};
use glam::DVec3;
use makehuman_assets::{ProxyFile, Reference};
use mpfb_rig::ObjFrame;
use std::sync::Arc;

/// The weight group that mixes a sub-rig's deformation in (MPFB's second armature modifier).
pub const SUBRIG_MASK: &str = "mhmask-subrig";

/// The bone a sub-rig's root follows when its constraint names none we have.
const SUBRIG_PARENT: &str = "head";

/// Base-mesh units (decimetres) to metres.
const UNIT: f64 = ObjFrame::MAKEHUMAN.scale;

/// What wearing derives from shared skins and assets alone.
#[derive(Default)]
pub struct Derived {
    /// What a worn asset's skin takes from the body's weights, by skin, asset and bones.
    weights: Cache<AssetWeightsKey, Arc<AssetWeights>>,
}

/// What a worn asset's main-rig weights read: the body's skin, the asset, and the names of
/// the skeleton's bones (custom weights name bones).
#[derive(PartialEq)]
struct AssetWeightsKey {
    skin: Option<Id<Skin>>,
    asset: Id<LoadedWearable>,
    bones: Vec<String>,
    root: Option<u32>,
}

impl Key for AssetWeightsKey {
    fn alive(&self) -> bool {
        self.skin.as_ref().is_none_or(Key::alive) && self.asset.alive()
    }
}

/// How assets are worn: whether each gets its `.mhmat`'s colour and drawing hints, and
/// whether a sub-rig's bone end may fall back to its default position (as `--allow-fallback`
/// lets the main rig's).
#[derive(Debug, Clone, Copy)]
pub struct WearOptions {
    /// Each asset gets its material.
    pub materials: bool,
    /// Sub-rig fallbacks are warned about instead of refused.
    pub allow_fallback: bool,
}

/// Dresses `character` in `worn`: one attachment per asset, their extras, sub-rig bones, and
/// what they hide, as `options` say.
///
/// What an asset's skin takes from the body's weights alone (its custom weights, or those it
/// inherits) comes from `derived` when another body on the same skin wore it.
pub fn wear(
    mut character: Character,
    extras: &mut MpfbExtras,
    worn: &[std::sync::Arc<LoadedWearable>],
    options: WearOptions,
    said: &mut Diagnostics,
    derived: &Derived,
) -> Result<(Character, Hidden), ConvertError> {
    let mut hidden = Hidden::default();
    if worn.is_empty() {
        return Ok((character, hidden));
    }
    check_base_mesh(&character, &worn[0])?;
    hidden.vertices = vec![false; character.mesh.positions.len()];
    // The body in the assets' units: G4MF metres are the base mesh's decimetres times 0.1.
    let body: Vec<DVec3> = character.mesh.positions.iter().map(|p| *p / UNIT).collect();
    let body_weights = BodyWeights::of(&character);
    let sources = SkinSources {
        body: &body,
        body_weights: &body_weights,
        derived,
        options,
    };
    let mut topology = None;
    // Each attachment's `z_depth`, in attachment order, for the drawing order.
    let mut depths = Vec::with_capacity(worn.len());
    for asset in worn {
        let positions = fit(asset, &body)?;
        for &v in &asset.proxy.delete_verts {
            hidden.vertices[v as usize] = true;
        }
        hidden.parts.extend(replaced_parts(asset.kind));
        if asset.kind == AssetKind::Proxy {
            // A body topology: fitted like any asset, it replaces the body once every other
            // asset has been fitted to the body it replaces.
            topology = Some((asset, positions));
            continue;
        }
        attach(&mut character, extras, (asset, positions), sources, said)?;
        depths.push(asset.proxy.z_depth.unwrap_or(0));
    }
    if let Some((asset, positions)) = topology {
        let face = FaceHelpers::of(&character, &hidden.parts);
        character = replace_body(character, extras, (asset, positions), sources, said)?;
        character = face.added_to(character);
        // The body's vertices are gone: nothing to mask.
        hidden.vertices.clear();
    }
    in_drawing_order(&mut character, extras, &depths);
    Ok((character, hidden))
}

/// MakeHuman's assets reference the base mesh's vertices: a body of another vertex count (or
/// with vertices already left out) cannot wear them.
fn check_base_mesh(character: &Character, first: &LoadedWearable) -> Result<(), ConvertError> {
    let count = character.mesh.positions.len();
    if count == mpfb_body::BASE_MESH_VERTICES && character.mesh.numbering.source_count == count {
        return Ok(());
    }
    Err(ConvertError::Wear {
        asset: first.path.clone(),
        problem: format!(
            "MakeHuman assets fit MakeHuman's base mesh ({} vertices); this body has {count}",
            mpfb_body::BASE_MESH_VERTICES
        ),
    })
}

/// An asset fitted to the body (`body`, in decimetres), in metres: its references checked
/// against the body, and every position within float32's range (G4MF stores f32), naming the
/// asset otherwise.
fn fit(asset: &LoadedWearable, body: &[DVec3]) -> Result<Vec<DVec3>, ConvertError> {
    let proxy = &asset.proxy;
    proxy
        .check_indices(body.len())
        .map_err(|e| e.with_file(&asset.path))?;
    let rest = proxy.fit(body).map_err(|e| e.with_file(&asset.path))?;
    let positions: Vec<DVec3> = rest.iter().map(|p| *p * UNIT).collect();
    if let Some(v) = positions.iter().position(|p| !p.as_vec3().is_finite()) {
        return Err(ConvertError::Wear {
            asset: asset.path.clone(),
            problem: format!("vertex {v} fits outside the range G4MF's numbers can hold"),
        });
    }
    Ok(positions)
}

/// Adds an asset fitted at `positions` (metres) as an attachment: its skin (inherited, its
/// own, or with its sub-rig), the body's blend shapes refitted, its material when asked, and
/// its provenance.
fn attach(
    character: &mut Character,
    extras: &mut MpfbExtras,
    (asset, positions): (&Arc<LoadedWearable>, Vec<DVec3>),
    sources: SkinSources<'_>,
    said: &mut Diagnostics,
) -> Result<(), ConvertError> {
    let proxy = &asset.proxy;
    let (skin, how, subrig_bones) = skin_of(character, extras, asset, &positions, sources, said)?;
    let blend_shapes = shapes_of(proxy, sources.body, &character.blend_shapes);
    let name = proxy.name.clone();
    let material = sources.options.materials.then(|| material_of(asset));
    let shared = asset.topology(material.is_some());
    let mesh = Mesh {
        positions,
        texcoords: shared.texcoords.clone(),
        polygons: shared.polygons.clone(),
        numbering: shared.numbering.clone(),
        normals: Vec::new(),
    };
    extras.attachments.push(AssetProvenance {
        kind: asset.kind.name().to_owned(),
        name: name.clone(),
        file: file_name(&asset.path),
        uuid: proxy.uuid.clone(),
        material: asset.material.as_ref().map(|m| file_name(&m.path)),
        weights: how.to_owned(),
        subrig_bones,
        hidden_body_vertices: proxy.delete_verts.len(),
    });
    character.attachments.push(Attachment {
        name,
        mesh,
        skin: Some(skin),
        blend_shapes,
        materials: material.into_iter().collect(),
    });
    Ok(())
}

/// Orders the attachments (and their provenance) as MakeHuman draws them: lower `z_depth`
/// first, stable for equal depths. `depths` holds each attachment's, in attachment order.
fn in_drawing_order(character: &mut Character, extras: &mut MpfbExtras, depths: &[i32]) {
    let mut order: Vec<usize> = (0..character.attachments.len()).collect();
    order.sort_by_key(|&i| depths[i]);
    let mut attachments: Vec<Option<Attachment>> = std::mem::take(&mut character.attachments)
        .into_iter()
        .map(Some)
        .collect();
    let mut provenance: Vec<Option<AssetProvenance>> = std::mem::take(&mut extras.attachments)
        .into_iter()
        .map(Some)
        .collect();
    for i in order {
        character.attachments.extend(attachments[i].take());
        extras.attachments.extend(provenance[i].take());
    }
}

/// Replaces the body mesh by a body topology (`.proxy`) fitted to it: its skin inherited
/// (or its own), every body blend shape refitted (kept in order, empty where it moves none),
/// one `body` part so the body's materials and checks apply.
fn replace_body(
    mut character: Character,
    extras: &mut MpfbExtras,
    (asset, positions): (&Arc<LoadedWearable>, Vec<DVec3>),
    sources: SkinSources<'_>,
    said: &mut Diagnostics,
) -> Result<Character, ConvertError> {
    let (skin, _, _) = skin_of(&mut character, extras, asset, &positions, sources, said)?;
    let offsets = refit_shapes(&asset.proxy, sources.body, &character.blend_shapes);
    for (shape, offsets) in character.blend_shapes.iter_mut().zip(offsets) {
        shape.offsets = Arc::new(offsets);
        shape.normal_offsets.clear();
    }
    let obj = &asset.obj;
    let faces = obj.face_count();
    let count = positions.len();
    character.mesh = Mesh {
        positions,
        texcoords: Arc::new(obj.texcoords.iter().map(|&[u, v]| [u, 1.0 - v]).collect()),
        polygons: Arc::new(Polygons {
            offsets: obj.face_offsets.clone(),
            vertices: obj.corners.iter().map(|c| c.vertex).collect(),
            texcoords: obj.corners.iter().map(|c| c.texcoord).collect(),
            materials: vec![None; faces],
            parts: vec![0; faces],
            part_sets: vec![vec![BODY_PART.to_owned()]],
        }),
        numbering: Arc::new(Numbering::identity(count)),
        normals: Vec::new(),
    };
    character.materials.clear();
    character.skin = character.skin.map(|_| skin);
    extras.mesh.topology = Some(AssetProvenance {
        kind: asset.kind.name().to_owned(),
        name: asset.proxy.name.clone(),
        file: file_name(&asset.path),
        uuid: asset.proxy.uuid.clone(),
        material: None,
        weights: "inherited".to_owned(),
        subrig_bones: Vec::new(),
        hidden_body_vertices: 0,
    });
    Ok(character)
}

/// The face helpers (eyes, teeth, tongue: [`FACE_PARTS`]) that no worn asset replaces, taken
/// from the body before a body topology replaces it: MakeHuman draws a proxy body's eyes,
/// teeth and tongue as meshes of their own, so a proxy never leaves a character without
/// them. They keep their parts, so helper extraction (`--helpers`) and dressing treat them
/// as on the base mesh.
struct FaceHelpers {
    positions: Vec<DVec3>,
    texcoords: Vec<[f64; 2]>,
    polygons: Polygons,
    skin: Option<Skin>,
    /// Each blend shape's offsets on the helpers' vertices (their own numbering).
    offsets: Vec<Vec<(u32, DVec3)>>,
}

impl FaceHelpers {
    /// The polygons of `character`'s face helpers not in `replaced`, with their vertices,
    /// texture coordinates (only those used), skin and blend-shape offsets, renumbered.
    fn of(character: &Character, replaced: &[&str]) -> Self {
        let mesh = &character.mesh;
        let old = &mesh.polygons;
        let kept_sets: Vec<bool> = old
            .part_sets
            .iter()
            .map(|set| {
                !set.iter().any(|n| n == BODY_PART)
                    && set.iter().any(|n| {
                        FACE_PARTS.contains(&n.as_str()) && !replaced.contains(&n.as_str())
                    })
            })
            .collect();
        let selection = Selection::polygons_where(mesh, |p| {
            kept_sets.get(old.parts[p] as usize) == Some(&true)
        });
        let mut polygons = selection.polygons(old);
        // Only the texture coordinates the helpers use, renumbered in order of first use.
        let mut texcoords = Vec::new();
        let mut new_texcoord: std::collections::HashMap<u32, u32> = Default::default();
        for t in polygons.texcoords.iter_mut().flatten() {
            let next = texcoords.len() as u32;
            let new = *new_texcoord.entry(*t).or_insert(next);
            if new == next {
                texcoords.push(mesh.texcoords.get(*t as usize).copied().unwrap_or_default());
            }
            *t = new;
        }
        polygons.materials.iter_mut().for_each(|m| *m = None);
        // Only the part sets the helpers use, in order of first use.
        let mut part_sets = Vec::new();
        let mut new_part: std::collections::HashMap<u32, u32> = Default::default();
        for part in &mut polygons.parts {
            let next = part_sets.len() as u32;
            let new = *new_part.entry(*part).or_insert(next);
            if new == next {
                part_sets.push(
                    old.part_sets
                        .get(*part as usize)
                        .cloned()
                        .unwrap_or_default(),
                );
            }
            *part = new;
        }
        polygons.part_sets = part_sets;
        FaceHelpers {
            positions: selection.vertex_values(&mesh.positions),
            texcoords,
            polygons,
            skin: character.skin.as_deref().map(|s| selection.skin(s)),
            offsets: character
                .blend_shapes
                .iter()
                .map(|shape| selection.sparse(&shape.offsets))
                .collect(),
        }
    }

    /// `character` (a body topology, one `body` part) with the helpers appended after its
    /// vertices, texture coordinates, polygons and parts, in its skin and blend shapes.
    fn added_to(self, mut character: Character) -> Character {
        if self.polygons.is_empty() {
            return character;
        }
        let mesh = &character.mesh;
        let vertices = mesh.positions.len() as u32;
        let texcoords = mesh.texcoords.len() as u32;
        let parts = mesh.polygons.part_sets.len() as u32;
        let mut polygons = Polygons::clone(&mesh.polygons);
        let corners = polygons.vertices.len() as u32;
        polygons
            .offsets
            .extend(self.polygons.offsets.iter().skip(1).map(|o| o + corners));
        polygons
            .vertices
            .extend(self.polygons.vertices.iter().map(|v| v + vertices));
        polygons.texcoords.extend(
            self.polygons
                .texcoords
                .iter()
                .map(|t| t.map(|t| t + texcoords)),
        );
        polygons
            .materials
            .extend(self.polygons.materials.iter().copied());
        polygons
            .parts
            .extend(self.polygons.parts.iter().map(|p| p + parts));
        polygons.part_sets.extend(self.polygons.part_sets);
        let mut all_texcoords = Vec::clone(&mesh.texcoords);
        all_texcoords.extend(self.texcoords);
        let mut positions = mesh.positions.clone();
        positions.extend(self.positions);
        let count = positions.len();
        character.mesh = Mesh {
            positions,
            texcoords: Arc::new(all_texcoords),
            polygons: Arc::new(polygons),
            numbering: Arc::new(Numbering::identity(count)),
            normals: Vec::new(),
        };
        if let (Some(skin), Some(helpers)) = (&mut character.skin, self.skin) {
            let mut joined = Skin::clone(skin);
            joined
                .influences
                .extend(helpers.influences.into_iter().map(|i| Influence {
                    vertex: i.vertex + vertices,
                    ..i
                }));
            *skin = Arc::new(joined);
        }
        for (shape, offsets) in character.blend_shapes.iter_mut().zip(self.offsets) {
            let mut joined = Vec::clone(&shape.offsets);
            joined.extend(offsets.into_iter().map(|(v, o)| (v + vertices, o)));
            shape.offsets = Arc::new(joined);
        }
        character
    }
}

/// The helper parts an asset of `kind` replaces.
fn replaced_parts(kind: AssetKind) -> &'static [&'static str] {
    match kind {
        AssetKind::Eyes => &["helper-l-eye", "helper-r-eye"],
        AssetKind::Teeth => &["helper-upper-teeth", "helper-lower-teeth"],
        AssetKind::Tongue => &["helper-tongue"],
        _ => &[],
    }
}

/// The body's skin as assets inherit it, found on first need.
struct BodyWeights {
    skin: Option<Arc<Skin>>,
    bones: usize,
    by_bone: std::cell::OnceCell<Vec<Vec<(u32, f64)>>>,
}

impl BodyWeights {
    /// The body's weights, to be sorted by bone only when an asset's weights are not derived
    /// yet.
    fn of(character: &Character) -> Self {
        BodyWeights {
            skin: character.skin.clone(),
            bones: character.skeleton.bones.len(),
            by_bone: std::cell::OnceCell::new(),
        }
    }

    /// The body's skin by bone: `(vertex, weight)` pairs, vertices ascending.
    fn by_bone(&self) -> &[Vec<(u32, f64)>] {
        self.by_bone.get_or_init(|| {
            let mut by_bone = vec![Vec::new(); self.bones];
            if let Some(skin) = &self.skin {
                for i in &skin.influences {
                    if let Some(list) = by_bone.get_mut(i.bone as usize) {
                        list.push((i.vertex, i.weight));
                    }
                }
            }
            for list in &mut by_bone {
                list.sort_by_key(|&(v, _)| v);
            }
            by_bone
        })
    }
}

/// The asset's material, from its `.mhmat` (or the one the job gives it).
fn material_of(asset: &LoadedWearable) -> Material {
    super::materials::material_from(
        format!("{}Material", asset.proxy.name),
        asset.material.as_ref(),
        super::materials::Role::Asset {
            draw_order: asset.proxy.z_depth.unwrap_or(0),
            eyes: asset.kind == AssetKind::Eyes,
        },
    )
}

/// The rig's root bone, which MakeHuman gives an asset's unweighted vertices to: the first
/// bone without a parent.
fn root_bone(character: &Character) -> Option<u32> {
    let root = character
        .skeleton
        .bones
        .iter()
        .position(|b| b.parent.is_none())?;
    u32::try_from(root).ok()
}

/// Each bone's index by name (the first bone of a name), so that naming a bone per weight
/// group costs no search among all bones.
fn bones_by_name(character: &Character) -> std::collections::HashMap<&str, u32> {
    let mut by_name = std::collections::HashMap::new();
    for (i, bone) in character.skeleton.bones.iter().enumerate() {
        by_name.entry(bone.name.as_str()).or_insert(i as u32);
    }
    by_name
}

/// The bone a weight group names: the same name, or Rigify's `DEF-` deform bone.
fn bone_named(by_name: &std::collections::HashMap<&str, u32>, group: &str) -> Option<u32> {
    by_name
        .get(group)
        .or_else(|| by_name.get(format!("DEF-{group}").as_str()))
        .copied()
}

/// What an asset's skin takes from the body's weights alone: each of its vertices' main-rig
/// `(bone, weight)`s, from its custom weights or inherited; how they were made; the warnings
/// they gave; and, for an asset without a sub-rig, the skin itself, made once.
#[derive(Debug)]
pub struct AssetWeights {
    per_vertex: Vec<Vec<(u32, f64)>>,
    how: &'static str,
    warnings: Vec<Diagnostic>,
    skin: std::sync::OnceLock<Arc<Skin>>,
}

/// What an asset is worn on besides its own files and fitted positions.
#[derive(Clone, Copy)]
struct SkinSources<'a> {
    /// The body, in decimetres (its shapes are refitted on it).
    body: &'a [DVec3],
    /// The body's weights, which assets inherit.
    body_weights: &'a BodyWeights,
    /// What other bodies on the same skin derived.
    derived: &'a Derived,
    /// Materials wanted, sub-rig fallbacks allowed.
    options: WearOptions,
}

/// The asset's skin, how it was made (`inherited`, `custom`, `custom+subrig`,
/// `inherited+subrig`), and the bones its sub-rig added. Only a sub-rig (fitted to this body)
/// makes it the body's own; the rest is shared by the bodies on the same skin and rig.
fn skin_of(
    character: &mut Character,
    extras: &mut MpfbExtras,
    asset: &Arc<LoadedWearable>,
    positions: &[DVec3],
    sources: SkinSources<'_>,
    said: &mut Diagnostics,
) -> Result<(Arc<Skin>, &'static str, Vec<String>), ConvertError> {
    let key = AssetWeightsKey {
        skin: character.skin.as_ref().map(Id::of),
        asset: Id::of(asset),
        bones: character
            .skeleton
            .bones
            .iter()
            .map(|b| b.name.clone())
            .collect(),
        root: root_bone(character),
    };
    let weights = sources.derived.weights.try_get_or(key, || {
        asset_weights(character, asset, positions.len(), sources.body_weights).map(Arc::new)
    })?;
    said.extend(weights.warnings.iter().cloned());
    let Some(subrig) = &asset.subrig else {
        let skin = weights.skin.get_or_init(|| {
            Arc::new(Skin {
                influences: influences_of(weights.per_vertex.clone()),
                authored: Arc::new(AuthoredWeights::default()),
            })
        });
        return Ok((skin.clone(), weights.how, Vec::new()));
    };
    let how = if weights.how == "custom" {
        "custom+subrig"
    } else {
        "inherited+subrig"
    };
    let allowed = sources.options.allow_fallback;
    let fitted = fit_subrig(asset, subrig, positions, allowed, said)?;
    let mut per_vertex = weights.per_vertex.clone();
    let subrig_bones = add_subrig(character, extras, asset, subrig, &fitted, &mut per_vertex)?;
    let skin = Arc::new(Skin {
        influences: influences_of(per_vertex),
        authored: Arc::new(AuthoredWeights::default()),
    });
    Ok((skin, how, subrig_bones))
}

/// Influences from each vertex's `(bone, weight)`s, vertex by vertex.
fn influences_of(per_vertex: Vec<Vec<(u32, f64)>>) -> Vec<Influence> {
    let mut influences = Vec::new();
    for (v, list) in per_vertex.into_iter().enumerate() {
        influences.extend(list.into_iter().map(|(bone, weight)| Influence {
            vertex: v as u32,
            bone,
            weight,
        }));
    }
    influences
}

/// An asset's main-rig weights (see [`AssetWeights`]) on a body whose weights are
/// `body_weights`, for an asset of `vertices` vertices.
fn asset_weights(
    character: &Character,
    asset: &LoadedWearable,
    vertices: usize,
    body_weights: &BodyWeights,
) -> Result<AssetWeights, ConvertError> {
    let proxy = &asset.proxy;
    // Per vertex: (bone, weight) of the main rig.
    let mut per_vertex: Vec<Vec<(u32, f64)>> = vec![Vec::new(); vertices];
    let mut warnings = Vec::new();
    let mut how = "inherited";
    let custom = asset.custom_weights.as_ref().and_then(|(path, file)| {
        let by_name = bones_by_name(character);
        let mut unknown = 0;
        let mut pairs = Vec::new();
        for group in &file.groups {
            if mpfb_weights::is_mask_group(&group.name) {
                continue;
            }
            match bone_named(&by_name, &group.name) {
                Some(bone) => pairs.extend(group.pairs.iter().map(|&(v, w)| (v, bone, w))),
                None => unknown += 1,
            }
        }
        if pairs.is_empty() {
            warnings.push(
                Diagnostic::new(
                    Code::AssetCustomWeightsUnused,
                    format!(
                        "{}: none of the custom weights' groups names a bone of this rig; weights inherited from the body instead",
                        file_name(path)
                    ),
                )
                .at(location::Location::file(path)),
            );
            return None;
        }
        if unknown > 0 {
            warnings.push(
                Diagnostic::new(
                    Code::AssetCustomGroupsLeftOut,
                    format!(
                        "{}: {unknown} custom weight groups name no bone of this rig and were left out",
                        file_name(path)
                    ),
                )
                .at(location::Location::file(path)),
            );
        }
        Some(pairs)
    });
    match custom {
        Some(pairs) => {
            how = "custom";
            for (v, bone, w) in pairs {
                let Some(list) = per_vertex.get_mut(v as usize) else {
                    return Err(ConvertError::Wear {
                        asset: asset.path.clone(),
                        problem: format!(
                            "custom weights name vertex {v}; the asset has {vertices}"
                        ),
                    });
                };
                if w != 0.0 {
                    list.push((bone, w));
                }
            }
        }
        None => {
            for (bone, pairs) in
                proxy.inherited_weights(body_weights.by_bone(), mpfb_body::BASE_MESH_VERTICES)
            {
                for (v, w) in pairs {
                    per_vertex[v as usize].push((bone as u32, w));
                }
            }
        }
    }
    // MakeHuman gives the unweighted to the root only where there is a skeleton's weights to
    // give: a body without a skin leaves its assets without one too.
    let root = character.skin.as_ref().and(root_bone(character));
    let changes = makehuman_assets::vertex_bone_weights(&mut per_vertex, root);
    if let (1.., Some(root)) = (changes.given_to_root, root) {
        warnings.push(Diagnostic::new(
            Code::AssetVerticesToRoot,
            format!(
                "{}: {} vertices no bone weights were given to the root bone `{}` (MakeHuman's rule)",
                file_name(&asset.path),
                changes.given_to_root,
                character.skeleton.bones[root as usize].name
            ),
        ));
    }
    Ok(AssetWeights {
        per_vertex,
        how,
        warnings,
        skin: std::sync::OnceLock::new(),
    })
}

/// A sub-rig's bone ends that fell back to their default position: refused as the main
/// rig's are (a default sits where the asset's author left it, not on this body), or with
/// `allow_fallback` one warning naming them.
fn subrig_fallbacks(
    fitted: &mpfb_rig::FittedRig,
    asset: &LoadedWearable,
    path: &std::path::Path,
    allow_fallback: bool,
    said: &mut Diagnostics,
) -> Result<(), ConvertError> {
    let Some(first) = fitted.fallbacks.first() else {
        return Ok(());
    };
    if !allow_fallback {
        return Err(ConvertError::Fallback(Box::new(FallbackRefused {
            location: location::Location::pointer(first.pointer.clone()).in_file(path),
            mesh: asset.path.clone(),
            bone: first.bone.clone(),
            end: first.end.to_string(),
            reason: first.reason.to_string(),
        })));
    }
    let ends: Vec<String> = fitted
        .fallbacks
        .iter()
        .take(3)
        .map(|f| format!("{} {} ({})", f.bone, f.end, f.reason))
        .collect();
    let more = fitted.fallbacks.len().saturating_sub(ends.len());
    said.say_at(
        Code::SubrigFallback,
        location::Location::pointer(first.pointer.clone()).in_file(path),
        format!(
            "{}: {} sub-rig bone ends at their default position (--allow-fallback): {}{}",
            file_name(path),
            fitted.fallbacks.len(),
            ends.join(", "),
            if more > 0 {
                format!(" and {more} more")
            } else {
                String::new()
            }
        ),
    );
    Ok(())
}

/// The asset's sub-rig fitted to its fitted vertices (its strategies name the asset's own
/// vertices, in Blender space), its fallbacks refused unless `allow_fallback`.
fn fit_subrig(
    asset: &LoadedWearable,
    subrig: &crate::inputs::LoadedSubrig,
    positions: &[DVec3],
    allow_fallback: bool,
    said: &mut Diagnostics,
) -> Result<mpfb_rig::FittedRig, ConvertError> {
    let obj: Vec<[f64; 3]> = positions.iter().map(|p| (*p / UNIT).to_array()).collect();
    let fit_mesh = mpfb_rig::FitMesh::from_obj(
        &obj,
        ObjFrame::MAKEHUMAN,
        std::iter::empty::<(&str, &[u32])>(),
    );
    let fitted = mpfb_rig::fit(&subrig.rig, &fit_mesh).map_err(|e| e.with_file(&subrig.path))?;
    subrig_fallbacks(&fitted, asset, &subrig.path, allow_fallback, said)?;
    Ok(fitted)
}

/// Adds the asset's fitted sub-rig to the skeleton (its bones named `{asset}_{bone}`, the
/// root under the bone its `Child Of` constraint follows), and mixes its weights in: where
/// `mhmask-subrig` is m, the vertex moves `(1 - m)` by the main rig and `m` by the sub-rig,
/// each part normalised as Blender's armature modifier normalises it.
fn add_subrig(
    character: &mut Character,
    extras: &mut MpfbExtras,
    asset: &LoadedWearable,
    subrig: &crate::inputs::LoadedSubrig,
    fitted: &mpfb_rig::FittedRig,
    per_vertex: &mut [Vec<(u32, f64)>],
) -> Result<Vec<String>, ConvertError> {
    let (path, rig, weights) = (&subrig.path, &subrig.rig, subrig.weights.as_ref());
    let wear_error = |problem: String| ConvertError::Wear {
        asset: path.to_path_buf(),
        problem,
    };
    let parent = rig
        .bones
        .iter()
        .find_map(|b| {
            let constraints = b.extra.get("constraints")?.as_array()?;
            constraints
                .iter()
                .find_map(|c| c.get("subtarget")?.as_str().map(str::to_owned))
        })
        .unwrap_or_else(|| SUBRIG_PARENT.to_owned());
    let parent_index = character
        .skeleton
        .bones
        .iter()
        .position(|b| b.name == parent)
        .or_else(|| {
            character
                .skeleton
                .bones
                .iter()
                .position(|b| b.name == SUBRIG_PARENT)
        });
    let first = character.skeleton.bones.len();
    let prefix = &asset.proxy.name;
    let mut names = Vec::new();
    for ((bone, fb), parent) in rig.bones.iter().zip(&fitted.bones).zip(&fitted.parents) {
        let name = format!("{prefix}_{}", bone.name);
        character.skeleton.bones.push(Bone {
            name: name.clone(),
            parent: match parent {
                Some(p) => Some(first + p),
                None => parent_index,
            },
            head: fb.head,
            basis: fb.basis,
            length: fb.length,
        });
        let mut fields = mpfb_rig::bone_to_json(bone);
        fields.insert(
            "subrig".into(),
            serde_json::json!({ "asset": asset.proxy.name, "bone": bone.name }),
        );
        Arc::make_mut(&mut extras.bones).push(bone_extras_value(fields, name.clone()));
        names.push(name);
    }
    let Some(weights) = weights else {
        return Ok(names);
    };
    let vertices = per_vertex.len();
    let mut mask = vec![0.0; vertices];
    let mut sub: Vec<Vec<(u32, f64)>> = vec![Vec::new(); vertices];
    let mut subrig_bone: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
    for (i, bone) in rig.bones.iter().enumerate() {
        subrig_bone.entry(bone.name.as_str()).or_insert(i);
    }
    for group in &weights.groups {
        let target: Option<u32> = if group.name == SUBRIG_MASK {
            None
        } else {
            match subrig_bone.get(group.name.as_str()) {
                Some(&b) => Some((first + b) as u32),
                None => continue,
            }
        };
        for &(v, w) in &group.pairs {
            if v as usize >= vertices {
                return Err(wear_error(format!(
                    "sub-rig weights name vertex {v}; the asset has {vertices}"
                )));
            }
            match target {
                None => mask[v as usize] = w,
                Some(bone) if w != 0.0 => sub[v as usize].push((bone, w)),
                Some(_) => {}
            }
        }
    }
    for ((main, sub), m) in per_vertex.iter_mut().zip(sub).zip(mask) {
        let total_sub: f64 = sub.iter().map(|e| e.1).sum();
        if m <= 0.0 || total_sub <= 0.0 {
            continue;
        }
        let m = m.min(1.0);
        let total_main: f64 = main.iter().map(|e| e.1).sum();
        if total_main > 0.0 {
            for e in main.iter_mut() {
                e.1 *= (1.0 - m) / total_main;
            }
        }
        main.extend(sub.into_iter().map(|(b, w)| (b, w * m / total_sub)));
        main.retain(|e| e.1 != 0.0);
    }
    Ok(names)
}

/// One asset vertex on `body` with per-axis `scale` (decimetres).
fn place(reference: &Reference, body: &[DVec3], scale: DVec3) -> DVec3 {
    match *reference {
        Reference::Exact(v) => body[v as usize],
        Reference::Triangle {
            vertices,
            weights,
            offset,
        } => {
            body[vertices[0] as usize] * weights[0]
                + body[vertices[1] as usize] * weights[1]
                + body[vertices[2] as usize] * weights[2]
                + scale * DVec3::from_array(offset)
        }
    }
}

/// The body's blend shapes carried to the asset: for each, the asset fitted on the displaced
/// body minus its rest fit, in metres; only shapes that move it.
fn shapes_of(proxy: &ProxyFile, body: &[DVec3], shapes: &[BlendShape]) -> Vec<BlendShape> {
    shapes
        .iter()
        .zip(refit_shapes(proxy, body, shapes))
        .filter(|(_, offsets)| !offsets.is_empty())
        .map(|(shape, offsets)| BlendShape {
            name: shape.name.clone(),
            amount: shape.amount,
            offsets: Arc::new(offsets),
            normal_offsets: Vec::new(),
        })
        .collect()
}

/// Each body shape's offsets of the asset's vertices (empty where it moves none), in order.
fn refit_shapes(
    proxy: &ProxyFile,
    body: &[DVec3],
    shapes: &[BlendShape],
) -> Vec<Vec<(u32, DVec3)>> {
    if shapes.is_empty() {
        return Vec::new();
    }
    // Which asset vertices each body vertex places.
    let mut users: Vec<Vec<u32>> = vec![Vec::new(); body.len()];
    for (a, reference) in proxy.references.iter().enumerate() {
        let refs: &[u32] = match reference {
            Reference::Exact(v) => std::slice::from_ref(v),
            Reference::Triangle { vertices, .. } => vertices,
        };
        for &v in refs {
            if users[v as usize].last() != Some(&(a as u32)) {
                users[v as usize].push(a as u32);
            }
        }
    }
    let scale_vertices: Vec<u32> = proxy
        .scales
        .iter()
        .flatten()
        .flat_map(|s| [s.v1, s.v2])
        .collect();
    let rest_scale = proxy.scale(body);
    let mut displaced = body.to_vec();
    let mut touched = vec![false; proxy.references.len()];
    let mut out = Vec::new();
    for shape in shapes {
        for &(v, o) in shape.offsets.iter() {
            displaced[v as usize] += o / UNIT;
        }
        let scale_moved = shape
            .offsets
            .iter()
            .any(|(v, _)| scale_vertices.contains(v));
        let scale = proxy.scale(&displaced);
        let mut affected: Vec<u32> = if scale_moved {
            (0..proxy.references.len() as u32)
                .filter(|&a| matches!(proxy.references[a as usize], Reference::Triangle { .. }))
                .collect()
        } else {
            Vec::new()
        };
        for &(v, _) in shape.offsets.iter() {
            affected.extend(&users[v as usize]);
        }
        affected.retain(|&a| !std::mem::replace(&mut touched[a as usize], true));
        affected.sort_unstable();
        let mut offsets = Vec::with_capacity(affected.len());
        for &a in &affected {
            touched[a as usize] = false;
            // Both ends by the same arithmetic, so a vertex the shape does not move gets
            // exactly zero.
            let reference = &proxy.references[a as usize];
            let delta =
                (place(reference, &displaced, scale) - place(reference, body, rest_scale)) * UNIT;
            if delta != DVec3::ZERO {
                offsets.push((a, delta));
            }
        }
        for &(v, _) in shape.offsets.iter() {
            displaced[v as usize] = body[v as usize];
        }
        out.push(offsets);
    }
    out
}
