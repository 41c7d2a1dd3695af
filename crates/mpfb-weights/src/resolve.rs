//! Resolving weight groups to rig bones: exact names, a user bone map, Rigify `DEF-` names and
//! `DEF-x.NNN` B-bone segments; masks kept apart; everything unresolved reported with numbers.

use crate::error::{Location, WeightsError, WeightsErrorKind, WeightsWarning};
use crate::parse::{WeightGroup, WeightsFile, is_mask_group};
use crate::skin::Skin;
use indexmap::IndexMap;
use std::collections::HashMap;
use std::path::Path;

/// A user's `{ "group": "bone" }` map, applied before the automatic rules.
pub type BoneMap = IndexMap<String, String>;

/// Bone maps are small: a larger file is not one.
pub const MAX_BONE_MAP_BYTES: u64 = 16 << 20;

/// Reads a bone map file (`{ "from": "to", ... }`; repeated keys are an error).
pub fn read_bone_map(path: &Path) -> Result<BoneMap, WeightsError> {
    let text = location::read_text_bounded(path, MAX_BONE_MAP_BYTES).map_err(|e| {
        WeightsError::new(Location::default(), WeightsErrorKind::Io(e)).with_file(path)
    })?;
    parse_bone_map(&text).map_err(|e| e.with_file(path))
}

/// Parses a bone map: an object of group name to bone name, no repeated keys.
pub fn parse_bone_map(text: &str) -> Result<BoneMap, WeightsError> {
    struct MapVisitor;
    impl<'de> serde::de::Visitor<'de> for MapVisitor {
        type Value = BoneMap;
        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("an object of weight group name to bone name")
        }
        fn visit_map<M: serde::de::MapAccess<'de>>(self, mut map: M) -> Result<BoneMap, M::Error> {
            let mut out = BoneMap::new();
            while let Some(key) = map.next_key::<String>()? {
                let value: String = map.next_value()?;
                if out.insert(key.clone(), value).is_some() {
                    return Err(crate::parse::duplicate_key_error(&key));
                }
            }
            Ok(out)
        }
    }
    let mut de = serde_json::Deserializer::from_str(text);
    serde::Deserializer::deserialize_map(&mut de, MapVisitor)
        .and_then(|map| de.end().map(|()| map))
        .map_err(|e| crate::parse::to_error(text, &e))
}

/// How a group was matched to a bone.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MatchRule {
    /// The group has the bone's name.
    Exact,
    /// The user's bone map said so.
    BoneMap,
    /// `DEF-x` is the deform bone of `x`.
    DefPrefix,
    /// `DEF-x.NNN` is a Rigify B-bone segment of `x`, merged into it.
    DefSegment,
    /// `DEF-x_suffix.side` is a deform bone Rigify derives from `x.side` (its face rigs make
    /// `DEF-eye_master.L` from the metarig's `eye.L`), merged into it.
    DefDerived,
}

/// A group that reached a bone under another name.
#[derive(Debug, Clone, PartialEq)]
pub struct Merge {
    /// The group name in the file.
    pub group: String,
    /// The bone it feeds.
    pub bone: String,
    /// The rule that matched.
    pub rule: MatchRule,
}

/// Why a group's weights were dropped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DropReason {
    /// Listed in the rig's `extra_bones` but nothing resolves it.
    UnresolvedExtraBone,
    /// Not a bone of the rig, not in `extra_bones`, and no rule or map matched.
    NotInRig,
}

/// A dropped group, with what it carried.
#[derive(Debug, Clone, PartialEq)]
pub struct DroppedGroup {
    /// The group name.
    pub group: String,
    /// Why it was dropped.
    pub reason: DropReason,
    /// Distinct vertices with a non-zero weight.
    pub vertices: usize,
    /// Sum of its weights.
    pub total_weight: f64,
}

/// Weights resolved against a rig.
#[derive(Debug, Clone, PartialEq)]
pub struct Resolution {
    /// The skin: group index = index into the bone list given to [`resolve`].
    pub skin: Skin,
    /// `mhmask-*` groups (zeros dropped, repeats added), kept for the round trip.
    pub masks: Vec<WeightGroup>,
    /// Groups that fed a bone of another name.
    pub merges: Vec<Merge>,
    /// Groups whose weights were dropped.
    pub dropped: Vec<DroppedGroup>,
    /// Zero weights dropped.
    pub zero_weights: usize,
    /// Pairs that repeated a (group, vertex) and were added to the earlier one.
    pub repeated_pairs: usize,
    /// Non-fatal findings.
    pub warnings: Vec<WeightsWarning>,
}

/// The bones a weights file is resolved against.
#[derive(Debug, Clone, Copy)]
pub struct RigBones<'a> {
    /// Bone names; a group's index in the skin is its bone's index here.
    pub names: &'a [String],
    /// The rig's `extra_bones` (deform bones that only exist after Rigify generation).
    pub extra_bones: &'a [String],
}

fn pointer(group: &str, index: usize) -> String {
    format!("/weights/{}/{index}", location::pointer_token(group))
}

/// Matches a group name to a bone index, or says why not.
fn match_group(
    name: &str,
    bones: &HashMap<&str, usize>,
    bone_map: &BoneMap,
) -> Result<Option<(usize, MatchRule)>, WeightsError> {
    if let Some(target) = bone_map.get(name) {
        return match bones.get(target.as_str()) {
            Some(&i) => Ok(Some((i, MatchRule::BoneMap))),
            None => Err(WeightsError::new(
                Location::pointer(location::json_pointer([name])),
                WeightsErrorKind::BoneMapTargetMissing {
                    from: name.to_owned(),
                    to: target.clone(),
                },
            )),
        };
    }
    if let Some(&i) = bones.get(name) {
        return Ok(Some((i, MatchRule::Exact)));
    }
    if let Some(stem) = name.strip_prefix("DEF-") {
        if let Some(&i) = bones.get(stem) {
            return Ok(Some((i, MatchRule::DefPrefix)));
        }
        if let Some(base) = strip_segment_suffix(stem) {
            if let Some(&i) = bones.get(base) {
                return Ok(Some((i, MatchRule::DefSegment)));
            }
        }
        if let Some(base) = strip_derived_suffix(stem) {
            if let Some(&i) = bones.get(base.as_str()) {
                return Ok(Some((i, MatchRule::DefDerived)));
            }
        }
    }
    Ok(None)
}

/// `eye_master.L` -> `eye.L`: Rigify's `make_derived_name(org, 'def', suffix)` puts the suffix
/// between the name and its side and number (`.L`, `.001`).
fn strip_derived_suffix(name: &str) -> Option<String> {
    let (word, rest) = name.split_at(name.find('.').unwrap_or(name.len()));
    let (base, suffix) = word.rsplit_once('_')?;
    (!base.is_empty() && !suffix.is_empty()).then(|| format!("{base}{rest}"))
}

/// `x.001` -> `x` (Blender's numeric duplicate suffix: a dot and exactly three digits).
fn strip_segment_suffix(name: &str) -> Option<&str> {
    let (base, digits) = name.rsplit_once('.')?;
    (digits.len() == 3 && digits.bytes().all(|b| b.is_ascii_digit()) && !base.is_empty())
        .then_some(base)
}

/// Resolves `file` against `bones` on a mesh of `vertex_count` vertices.
///
/// Repeated (group, vertex) pairs add up, as MPFB applies weights in ADD mode; so do groups
/// that resolve to the same bone. Zero weights are dropped. A vertex beyond the mesh is an
/// error with the pair's JSON pointer.
pub fn resolve(
    file: &WeightsFile,
    bones: RigBones<'_>,
    bone_map: &BoneMap,
    vertex_count: usize,
) -> Result<Resolution, WeightsError> {
    let index: HashMap<&str, usize> = bones
        .names
        .iter()
        .enumerate()
        .map(|(i, n)| (n.as_str(), i))
        .collect();
    let mut influences: Vec<(u32, u32, f64)> = Vec::with_capacity(file.pair_count());
    let mut masks = Vec::new();
    let mut merges = Vec::new();
    let mut dropped = Vec::new();
    let mut warnings = Vec::new();
    let mut zero_weights = 0;

    for group in &file.groups {
        for (i, &(vertex, weight)) in group.pairs.iter().enumerate() {
            if vertex as usize >= vertex_count {
                return Err(WeightsError::new(
                    Location::pointer(pointer(&group.name, i)),
                    WeightsErrorKind::VertexOutOfRange {
                        group: group.name.clone(),
                        vertex,
                        vertex_count,
                    },
                ));
            }
            // Skins store f32: a weight finite as f64 but not as f32 (1e300) is refused here,
            // at its pointer, not found later as an infinity in the output.
            if !(weight as f32).is_finite() {
                return Err(WeightsError::new(
                    Location::pointer(pointer(&group.name, i)),
                    WeightsErrorKind::NonFiniteWeight {
                        token: format!("{weight:e}"),
                    },
                ));
            }
            if weight > 1.0 {
                warnings.push(WeightsWarning::WeightAboveOne {
                    group: group.name.clone(),
                    vertex,
                    weight,
                    pointer: pointer(&group.name, i),
                });
            }
        }
        let nonzero = || group.pairs.iter().filter(|(_, w)| *w != 0.0);
        zero_weights += group.pairs.len() - nonzero().count();

        if is_mask_group(&group.name) {
            masks.push(WeightGroup {
                name: group.name.clone(),
                pairs: merge_repeats(nonzero().copied()),
            });
            continue;
        }
        match match_group(&group.name, &index, bone_map)? {
            Some((bone, rule)) => {
                if rule != MatchRule::Exact {
                    merges.push(Merge {
                        group: group.name.clone(),
                        bone: bones.names[bone].clone(),
                        rule,
                    });
                }
                influences.extend(nonzero().map(|&(v, w)| (v, bone as u32, w)));
            }
            None => {
                let mut vertices: Vec<u32> = nonzero().map(|(v, _)| *v).collect();
                vertices.sort_unstable();
                vertices.dedup();
                let reason = if bones.extra_bones.iter().any(|b| b == &group.name) {
                    DropReason::UnresolvedExtraBone
                } else {
                    warnings.push(WeightsWarning::UnknownBone {
                        group: group.name.clone(),
                    });
                    DropReason::NotInRig
                };
                dropped.push(DroppedGroup {
                    group: group.name.clone(),
                    reason,
                    vertices: vertices.len(),
                    total_weight: nonzero().map(|(_, w)| *w).sum(),
                });
            }
        }
    }

    let before = influences.len();
    let skin = Skin::from_influences(influences);
    let repeated_pairs = before - skin.len();
    Ok(Resolution {
        skin,
        masks,
        merges,
        dropped,
        zero_weights,
        repeated_pairs,
        warnings,
    })
}

/// Adds repeated vertices of one group, keeping first-seen order.
fn merge_repeats(pairs: impl Iterator<Item = (u32, f64)>) -> Vec<(u32, f64)> {
    let mut merged: IndexMap<u32, f64> = IndexMap::new();
    for (v, w) in pairs {
        *merged.entry(v).or_default() += w;
    }
    merged.into_iter().collect()
}
