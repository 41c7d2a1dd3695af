//! Stage 4, assemble: one [`Character`] from the fitted rig, the body and the weights (the
//! whole mesh, in the source numbering), and the MPFB extras that let `to-mpfb` give every
//! field back.
//!
//! The skin is resolved on one core while the mesh and bones are built on the other: they
//! share only read-only inputs (inside a batch this is plain work stealing).

use super::body::Body;
use super::fit::Fit;
use crate::derived::{Cache, Id, Key, Of};
use crate::diagnostics::{Code, Diagnostic, Diagnostics};
use crate::error::ConvertError;
use crate::extras::{BodyProvenance, MpfbMesh, Provenance, SkeletonExtras, bone_extras_value};
use crate::inputs::{LoadedBody, LoadedMesh, LoadedRig, LoadedWeights};
use crate::options::ConvertOptions;
use character::{
    AuthoredGroup, AuthoredPair, AuthoredWeights, Bone, Character, Influence, Material, Mesh,
    Skeleton, Skin,
};
use indexmap::IndexMap;
use mpfb_rig::{FittedRig, Rig};
use mpfb_weights::{RigBones, WeightsWarning, resolve};
use serde_json::{Map, Value};
use std::sync::Arc;

/// The MPFB extras of a character, typed; written beside it by the write stage.
#[derive(Debug, Clone)]
pub struct MpfbExtras {
    /// The skeleton node's.
    pub skeleton: SkeletonExtras,
    /// Each bone's, by bone index, as the JSON written ([`crate::extras::bone_extras_value`]),
    /// shared by the bodies on one rig.
    pub bones: Arc<Vec<g4mf_model::Extras>>,
    /// The mesh's (the write stage adds the source numbering and uncarried pairs).
    pub mesh: MpfbMesh,
    /// Each attachment's, in [`Character::attachments`] order.
    pub attachments: Vec<crate::extras::AssetProvenance>,
}

impl MpfbExtras {
    /// The assets worn: each attachment's provenance, then the body topology that replaced the
    /// body, if one did (the order the summary and the write stage's per-asset counts use).
    pub fn worn(&self) -> impl Iterator<Item = &crate::extras::AssetProvenance> {
        self.attachments.iter().chain(&self.mesh.topology)
    }
}

/// A character as assembled, with its extras (what assembling noticed is said).
#[derive(Debug, Clone)]
pub struct Assembled {
    /// The character: skeleton, whole mesh, skin.
    pub character: Character,
    /// Its MPFB extras.
    pub extras: MpfbExtras,
}

/// File name of a path, for messages and provenance.
pub fn file_name(path: &std::path::Path) -> String {
    path.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| path.display().to_string())
}

/// The weights resolved against a rig: what every body on the same rig, weights and mesh
/// shares (see [`crate::derived`]).
#[derive(Debug, Clone)]
pub struct ResolvedSkin {
    /// The skin in the source numbering (none without weights).
    pub skin: Option<Arc<Skin>>,
    /// The weights file's MPFB extras: metadata, group names, masks.
    pub extras: MpfbMesh,
    /// Groups dropped or unknown, and other warnings of the resolution, at their place in
    /// the weights file.
    pub warnings: Vec<Diagnostic>,
}

/// What assembling derives from shared inputs alone.
#[derive(Default)]
pub struct Derived {
    /// Weights resolved against a rig: the skin, the MPFB mesh extras and the warnings.
    skins: Cache<SkinKey, Arc<ResolvedSkin>>,
    /// Each bone's MPFB extras, by rig.
    bone_extras: Cache<Of<LoadedRig>, Arc<Vec<g4mf_model::Extras>>>,
}

/// What a weights file's resolution against a rig reads: the rig's bones, the file, the
/// mesh's vertex count and the bone map.
#[derive(PartialEq)]
struct SkinKey {
    rig: Id<LoadedRig>,
    weights: Id<LoadedWeights>,
    vertices: usize,
    bone_map: mpfb_weights::BoneMap,
}

impl Key for SkinKey {
    fn alive(&self) -> bool {
        self.rig.alive() && self.weights.alive()
    }
}

/// Assembles the character; the skin comes from `derived` when another body on the same rig,
/// weights and mesh resolved it already.
// One argument per input and per earlier stage's result: grouping them would hide which
// stage needs what.
#[allow(clippy::too_many_arguments)]
pub fn assemble(
    rig: &Arc<LoadedRig>,
    mesh: &LoadedMesh,
    weights: Option<&Arc<LoadedWeights>>,
    body: &Body,
    fit: &Fit,
    described: Option<&LoadedBody>,
    bone_map: &mpfb_weights::BoneMap,
    options: &ConvertOptions,
    derived: &Derived,
    said: &mut Diagnostics,
) -> Result<Assembled, ConvertError> {
    let resolve = || match weights {
        None => Ok(Arc::new(ResolvedSkin {
            skin: None,
            extras: MpfbMesh::default(),
            warnings: Vec::new(),
        })),
        Some(weights) => derived.skins.try_get_or(
            SkinKey {
                rig: Id::of(rig),
                weights: Id::of(weights),
                vertices: mesh.obj.positions.len(),
                bone_map: bone_map.clone(),
            },
            || skin_of(rig, mesh, weights, bone_map).map(Arc::new),
        ),
    };
    let (resolved, (character_mesh, bones)) = rayon::join(resolve, || {
        (mesh_of(mesh, body), bones_of(&rig.rig, &fit.fitted))
    });
    let bone_extras = derived
        .bone_extras
        .get_or((Id::of(rig), ()), || Arc::new(bone_extras_of(&rig.rig)));
    let resolved = resolved?;
    let (skin, mesh_extras) = (resolved.skin.clone(), resolved.extras.clone());
    said.extend(resolved.warnings.iter().cloned());
    // A `.vrm`'s name is its avatar's (`meta.name`): the description's name when it has one.
    let described_name = described
        .filter(|_| options.vrm.is_some())
        .and_then(|d| d.description.name.clone());
    let name = options.name.clone().or(described_name).unwrap_or_else(|| {
        options
            .output
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_else(|| "Character".into())
    });
    let skeleton_extras = SkeletonExtras {
        mpfb: mpfb_rig::header_to_json(&rig.rig),
        mpfb2g4mf: Some(Provenance {
            rig_file: file_name(&rig.path),
            bone_order: rig.rig.bones.iter().map(|b| b.name.clone()).collect(),
            origin: options.origin,
            mesh_scale: body.frame.scale,
            up_axis: body.frame.up.name().into(),
            body: described.map(|d| BodyProvenance {
                phenotype: mpfb_body::Phenotype::NAMES
                    .iter()
                    .filter_map(|n| Some(((*n).to_owned(), d.description.phenotype.get(n)?)))
                    .collect(),
                macro_model: match d.model {
                    mpfb_body::MacroModel::Mpfb => "mpfb",
                    mpfb_body::MacroModel::MakeHuman1 => "makehuman1",
                }
                .into(),
                targets: d
                    .description
                    .targets
                    .iter()
                    .map(|t| (t.name.clone(), t.weight))
                    .collect(),
                not_converted: d.description.not_converted.clone(),
            }),
        }),
    };
    let materials = mesh
        .obj
        .materials
        .iter()
        .map(|name| Material {
            name: name.clone(),
            base_color: None,
            render: None,
            textures: Default::default(),
        })
        .collect();
    Ok(Assembled {
        character: Character {
            name,
            skeleton: Skeleton {
                position: glam::DVec3::ZERO,
                bones,
            },
            mesh: character_mesh,
            skin,
            blend_shapes: Vec::new(),
            materials,
            attachments: Vec::new(),
            clips: Vec::new(),
        },
        extras: MpfbExtras {
            skeleton: skeleton_extras,
            bones: bone_extras,
            mesh: mesh_extras,
            attachments: Vec::new(),
        },
    })
}

/// The whole mesh: every vertex of the body, with the mesh's shared topology
/// ([`LoadedMesh::topology`]: every polygon of the OBJ with its groups as parts, texture
/// coordinates flipped to G4MF's top-left origin).
fn mesh_of(mesh: &LoadedMesh, body: &Body) -> Mesh {
    let topology = mesh.topology();
    Mesh {
        positions: body.g4mf_positions().collect(),
        texcoords: topology.texcoords.clone(),
        polygons: topology.polygons.clone(),
        numbering: topology.numbering.clone(),
        normals: Vec::new(),
    }
}

/// Bones from the fitted rig.
fn bones_of(rig: &Rig, fitted: &FittedRig) -> Vec<Bone> {
    rig.bones
        .iter()
        .zip(&fitted.bones)
        .zip(&fitted.parents)
        .map(|((bone, fb), parent)| Bone {
            name: bone.name.clone(),
            parent: *parent,
            head: fb.head,
            basis: fb.basis,
            length: fb.length,
        })
        .collect()
}

/// Every MPFB field of each bone of the rig, as its extras' JSON.
fn bone_extras_of(rig: &Rig) -> Vec<g4mf_model::Extras> {
    rig.bones
        .iter()
        .map(|bone| bone_extras_value(mpfb_rig::bone_to_json(bone), bone.name.clone()))
        .collect()
}

/// Every authored pair outside the masks, by group in file order (whether a bone took each
/// group is filled in once the weights are resolved).
fn authored_pairs(file: &mpfb_weights::WeightsFile) -> AuthoredWeights {
    let mut authored = AuthoredWeights::default();
    authored.pairs.reserve_exact(file.pair_count());
    for group in &file.groups {
        if mpfb_weights::is_mask_group(&group.name) {
            continue;
        }
        let index = authored.groups.len() as u32;
        authored.groups.push(AuthoredGroup {
            name: group.name.clone(),
            carried: true,
        });
        authored
            .pairs
            .extend(
                group
                    .pairs
                    .iter()
                    .filter(|&&(_, w)| w != 0.0)
                    .map(|&(vertex, weight)| AuthoredPair {
                        group: index,
                        vertex,
                        weight,
                    }),
            );
    }
    authored
}

/// Refuses weights most of whose groups (mask groups left out) name no bone of the rig: they
/// were made for another rig, and would leave most of the body unweighted.
fn check_weights_match(
    rig: &LoadedRig,
    weights: &LoadedWeights,
    resolution: &mpfb_weights::Resolution,
) -> Result<(), ConvertError> {
    let groups = weights
        .file
        .groups
        .iter()
        .filter(|g| !mpfb_weights::is_mask_group(&g.name))
        .count();
    let unmatched = resolution
        .dropped
        .iter()
        .filter(|d| d.reason == mpfb_weights::DropReason::NotInRig)
        .count();
    if unmatched * 2 <= groups {
        return Ok(());
    }
    let rig_name = mpfb_data::rig_name(&rig.path);
    // `weights.NAME.json` is MPFB's name for the weights of rig NAME.
    let likely = weights
        .path
        .file_name()
        .and_then(|n| n.to_str())
        .and_then(|n| n.strip_prefix("weights."))
        .and_then(|n| n.strip_suffix(".json"))
        .filter(|n| *n != rig_name)
        .map(str::to_owned);
    Err(ConvertError::WeightsForAnotherRig {
        weights: weights.path.clone(),
        unmatched,
        groups,
        rig: rig_name.to_owned(),
        likely,
    })
}

/// Resolves the weights against the rig: the skin in the source numbering, the authored
/// pairs (so nothing the skin cannot carry is lost), and the weights' metadata and masks.
fn skin_of(
    rig: &LoadedRig,
    mesh: &LoadedMesh,
    weights: &LoadedWeights,
    bone_map: &mpfb_weights::BoneMap,
) -> Result<ResolvedSkin, ConvertError> {
    let mut warnings = Vec::new();
    let bone_names: Vec<String> = rig.rig.bones.iter().map(|b| b.name.clone()).collect();
    // Resolving and copying the authored pairs read the same file: one on each core.
    let (resolution, mut authored) = rayon::join(
        || {
            resolve(
                &weights.file,
                RigBones {
                    names: &bone_names,
                    extra_bones: rig.rig.header.extra_bones.as_deref().unwrap_or_default(),
                },
                bone_map,
                mesh.obj.positions.len(),
            )
        },
        || authored_pairs(&weights.file),
    );
    let resolution = resolution.map_err(|e| e.with_file(&weights.path))?;
    check_weights_match(rig, weights, &resolution)?;
    let in_weights = |pointer: String| location::Location::pointer(pointer).in_file(&weights.path);
    let group_at = |group: &str| in_weights(location::json_pointer(["weights", group]));
    for warning in &resolution.warnings {
        let (code, at, message) = match warning {
            // The pair's pointer is the location: the message leaves it out.
            WeightsWarning::WeightAboveOne {
                group,
                vertex,
                weight,
                pointer,
            } => (
                Code::WeightAboveOne,
                in_weights(pointer.clone()),
                format!("group `{group}` gives vertex {vertex} a weight of {weight}, above 1"),
            ),
            WeightsWarning::UnknownBone { group } => {
                (Code::GroupUnknownBone, group_at(group), warning.to_string())
            }
        };
        warnings.push(Diagnostic::new(code, message).at(at));
    }
    for dropped in &resolution.dropped {
        warnings.push(
            Diagnostic::new(
                Code::GroupDropped,
                format!(
                    "group `{}` dropped ({:?}): {} vertices, total weight {:.4}",
                    dropped.group, dropped.reason, dropped.vertices, dropped.total_weight
                ),
            )
            .at(group_at(&dropped.group)),
        );
    }
    for group in &mut authored.groups {
        group.carried = !resolution.dropped.iter().any(|d| d.group == group.name);
    }
    let skin = &resolution.skin;
    let influences = (0..skin.len())
        .map(|i| Influence {
            vertex: skin.vertices[i],
            bone: skin.groups[i],
            weight: skin.weights[i],
        })
        .collect();
    // The weights file's other fields, so it comes back whole.
    let file = &weights.file;
    let mut metadata: Map<String, Value> = file.extra.clone();
    for (key, value) in [
        ("copyright", file.copyright.clone().map(Value::from)),
        ("description", file.description.clone().map(Value::from)),
        ("license", file.license.clone().map(Value::from)),
        ("name", file.name.clone().map(Value::from)),
        ("version", file.version.clone()),
    ] {
        if let Some(v) = value {
            metadata.insert(key.into(), v);
        }
    }
    let masks: IndexMap<String, Vec<(u32, f64)>> = resolution
        .masks
        .iter()
        .map(|g| (g.name.clone(), g.pairs.clone()))
        .collect();
    let extras = MpfbMesh {
        weights_metadata: Some(metadata),
        weight_groups: Some(file.groups.iter().map(|g| g.name.clone()).collect()),
        masks: (!masks.is_empty()).then_some(masks),
        ..MpfbMesh::default()
    };
    Ok(ResolvedSkin {
        skin: Some(Arc::new(Skin {
            influences,
            authored: Arc::new(authored),
        })),
        extras,
        warnings,
    })
}
