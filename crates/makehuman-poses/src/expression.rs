//! MakeHuman's expressions as it computes them: its default skeleton (`default.mhskel`)
//! fitted to a body, the face pose units' frames (`face-poseunits.bvh`) as each bone's turn,
//! a `.mhpose`'s units blended per bone, the skeleton posed about its rest heads and the body
//! skinned with the default weights (`default_weights.mhw`, MakeHuman's `VertexBoneWeights`
//! rule, six influences a vertex). The result is a displacement of every vertex: what a rig
//! without face bones carries as a blend shape. Coordinates are the base mesh's (OBJ: Y up,
//! decimetres).

use crate::bvh::Bvh;
use crate::error::{PoseError, PoseErrorKind, quoted};
use crate::json_files::{MhPose, MhSkel};
use crate::motion::{blend_units, canonical_name, frame_rotations, is_z_up, pose_matrices};
use glam::{DQuat, DVec3};
use location::Location;
use std::collections::HashMap;

/// Influences a vertex keeps when skinned (MakeHuman's `_compileVertexWeights` with 6).
pub const MAX_INFLUENCES: usize = 6;

pub use makehuman_assets::WEIGHT_THRESHOLD;

/// MakeHuman's default skeleton fitted to one body, with the pose units' turns of its bones.
#[derive(Debug, Clone)]
pub struct FaceRig {
    /// Bone names, parents first.
    pub bones: Vec<String>,
    parents: Vec<Option<usize>>,
    heads: Vec<DVec3>,
    /// Per pose unit (by name): each bone's turn, in MakeHuman's frame.
    units: HashMap<String, Vec<DQuat>>,
    /// Each vertex's (bone, weight), at most [`MAX_INFLUENCES`], summing to one.
    influences: Vec<Vec<(usize, f64)>>,
}

/// An expression's displacement of the body, and what of it could not be used.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Displacement {
    /// Per body vertex, decimetres in the base mesh's frame.
    pub offsets: Vec<DVec3>,
    /// Units the expression names that the pose units lack (skipped, as MPFB skips them).
    pub unknown_units: Vec<String>,
}

fn problem(what: impl Into<String>) -> PoseError {
    PoseError::new(Location::default(), PoseErrorKind::Malformed(what.into()))
}

/// The bones of `skel` ordered parents first (file order within that), each with its parent.
fn parents_first(skel: &MhSkel) -> Result<(Vec<usize>, Vec<Option<usize>>), PoseError> {
    let index: HashMap<&str, usize> = skel
        .bones
        .iter()
        .enumerate()
        .map(|(i, b)| (b.name.as_str(), i))
        .collect();
    let mut order: Vec<usize> = Vec::with_capacity(skel.bones.len());
    let mut placed = vec![None; skel.bones.len()];
    let mut frontier: Vec<usize> = (0..skel.bones.len())
        .filter(|&i| skel.bones[i].parent.is_none())
        .collect();
    let mut children: Vec<Vec<usize>> = vec![Vec::new(); skel.bones.len()];
    for (i, bone) in skel.bones.iter().enumerate() {
        if let Some(&p) = bone.parent.as_deref().and_then(|p| index.get(p)) {
            children[p].push(i);
        }
    }
    while let Some(i) = frontier.pop() {
        placed[i] = Some(order.len());
        order.push(i);
        frontier.extend(children[i].iter().rev());
    }
    if order.len() != skel.bones.len() {
        return Err(problem("the skeleton's parents form a cycle"));
    }
    let parents = order
        .iter()
        .map(|&i| {
            skel.bones[i]
                .parent
                .as_deref()
                .and_then(|p| index.get(p))
                .and_then(|&p| placed[p])
        })
        .collect();
    Ok((order, parents))
}

/// A joint's position: the mean of its vertices on `body` (MakeHuman's `getJointPosition`).
fn joint_position(skel: &MhSkel, joint: &str, body: &[DVec3]) -> Result<DVec3, PoseError> {
    let vertices = skel
        .joints
        .get(joint)
        .ok_or_else(|| problem(format!("joint `{}` is not in the skeleton", quoted(joint))))?;
    let mut sum = DVec3::ZERO;
    for &v in vertices {
        sum += *body.get(v as usize).ok_or_else(|| {
            PoseError::new(
                Location::pointer(format!("/joints/{}", location::pointer_token(joint))),
                PoseErrorKind::OutOfRange(format!(
                    "vertex {v} is past the body's {} vertices",
                    body.len()
                )),
            )
        })?;
    }
    Ok(sum / vertices.len().max(1) as f64)
}

/// The length of bone `bone` of `skel` fitted to `body` (its head and tail joints' distance,
/// in `body`'s units); `None` when `skel` has no such bone.
pub fn fitted_bone_length(
    skel: &MhSkel,
    bone: &str,
    body: &[DVec3],
) -> Result<Option<f64>, PoseError> {
    let Some(found) = skel.bones.iter().find(|b| b.name == bone) else {
        return Ok(None);
    };
    let head = joint_position(skel, &found.head, body)?;
    let tail = joint_position(skel, &found.tail, body)?;
    Ok(Some(head.distance(tail)))
}

/// `weights` (bone index -> `(vertex, weight)` pairs, as a `.mhw` holds them) made MakeHuman's
/// skinning weights for `vertex_count` vertices: MakeHuman's `VertexBoneWeights` rule
/// ([`makehuman_assets::vertex_bone_weights`]: each vertex's weights divided by their total,
/// those at or under [`WEIGHT_THRESHOLD`] dropped, a vertex left with none given to `root`),
/// then at most [`MAX_INFLUENCES`] kept, renormalised when more were there.
pub fn skinning_weights(
    weights: &[(usize, Vec<(u32, f64)>)],
    vertex_count: usize,
    root: usize,
) -> Vec<Vec<(usize, f64)>> {
    let mut per_vertex: Vec<Vec<(u32, f64)>> = vec![Vec::new(); vertex_count];
    for (bone, pairs) in weights {
        for &(v, w) in pairs {
            if let Some(list) = per_vertex.get_mut(v as usize) {
                list.push((*bone as u32, w));
            }
        }
    }
    makehuman_assets::vertex_bone_weights(&mut per_vertex, Some(root as u32));
    per_vertex
        .into_iter()
        .map(|mut list| {
            if list.len() > MAX_INFLUENCES {
                list.sort_by(|a, b| b.1.total_cmp(&a.1));
                list.truncate(MAX_INFLUENCES);
                let kept: f64 = list.iter().map(|&(_, w)| w).sum();
                list.iter_mut().for_each(|(_, w)| *w /= kept);
            }
            list.into_iter().map(|(b, w)| (b as usize, w)).collect()
        })
        .collect()
}

/// Each pose unit's turn of every bone of `bones` (a bone with no joint of the units' file,
/// by MakeHuman's canonical names, is not turned), Z-up converted as MakeHuman's rule decides.
fn unit_turns(units: &Bvh, unit_names: &[String], bones: &[String]) -> HashMap<String, Vec<DQuat>> {
    let by_name: HashMap<String, usize> = units
        .joints
        .iter()
        .enumerate()
        .map(|(j, joint)| (canonical_name(&joint.name), j))
        .collect();
    let joint_of: Vec<Option<usize>> = bones
        .iter()
        .map(|b| by_name.get(&canonical_name(b)).copied())
        .collect();
    let z_up = is_z_up(units).unwrap_or(true);
    let mut out = HashMap::new();
    for (frame, name) in unit_names.iter().enumerate() {
        let turns = frame_rotations(units, frame, z_up).unwrap_or_default();
        let per_bone = joint_of
            .iter()
            .map(|j| {
                j.and_then(|j| turns.get(j).copied())
                    .unwrap_or(DQuat::IDENTITY)
            })
            .collect();
        out.insert(name.clone(), per_bone);
    }
    out
}

impl FaceRig {
    /// Fits `skel` to `body` (the body's rest positions, base mesh numbering), reads each
    /// pose unit's turns from `units` (frame i named `unit_names[i]`; Z-up converted as
    /// MakeHuman's rule decides) and makes the body's skinning weights from `weights` (bone
    /// name -> pairs).
    pub fn new(
        skel: &MhSkel,
        body: &[DVec3],
        units: &Bvh,
        unit_names: &[String],
        weights: &[(String, Vec<(u32, f64)>)],
    ) -> Result<FaceRig, PoseError> {
        if unit_names.len() != units.frame_count() {
            return Err(problem(format!(
                "{} pose-unit names for {} frames",
                unit_names.len(),
                units.frame_count()
            )));
        }
        let (order, parents) = parents_first(skel)?;
        let bones: Vec<String> = order.iter().map(|&i| skel.bones[i].name.clone()).collect();
        let heads = order
            .iter()
            .map(|&i| joint_position(skel, &skel.bones[i].head, body))
            .collect::<Result<Vec<_>, _>>()?;
        let unit_turns = unit_turns(units, unit_names, &bones);
        let bone_index: HashMap<&str, usize> = bones
            .iter()
            .enumerate()
            .map(|(i, b)| (b.as_str(), i))
            .collect();
        let indexed: Vec<(usize, Vec<(u32, f64)>)> = weights
            .iter()
            .filter_map(|(name, pairs)| Some((*bone_index.get(name.as_str())?, pairs.clone())))
            .collect();
        let root = parents.iter().position(Option::is_none).unwrap_or(0);
        let influences = skinning_weights(&indexed, body.len(), root);
        Ok(FaceRig {
            bones,
            parents,
            heads,
            units: unit_turns,
            influences,
        })
    }

    /// Each bone's turn under `pose` (its units blended; units the pose units lack listed).
    pub fn turns(&self, pose: &MhPose) -> (Vec<DQuat>, Vec<String>) {
        let mut unknown = Vec::new();
        let known: Vec<(&Vec<DQuat>, f64)> = pose
            .unit_poses
            .iter()
            .filter_map(|(name, w)| match self.units.get(name) {
                Some(turns) => Some((turns, *w)),
                None => {
                    unknown.push(name.clone());
                    None
                }
            })
            .collect();
        let turns = (0..self.bones.len())
            .map(|b| {
                let per_unit: Vec<(DQuat, f64)> =
                    known.iter().map(|(turns, w)| (turns[b], *w)).collect();
                blend_units(&per_unit)
            })
            .collect();
        (turns, unknown)
    }

    /// The displacement of every vertex of `body` (the positions the rig was fitted to) under
    /// `pose`.
    pub fn displace(&self, body: &[DVec3], pose: &MhPose) -> Displacement {
        let (turns, unknown_units) = self.turns(pose);
        let matrices = pose_matrices(&self.parents, &self.heads, &turns, DVec3::ZERO);
        let offsets = body
            .iter()
            .zip(&self.influences)
            .map(|(&v, influences)| {
                let moved: DVec3 = influences
                    .iter()
                    .map(|&(b, w)| matrices[b].transform_point3(v) * w)
                    .sum();
                moved - v
            })
            .collect();
        Displacement {
            offsets,
            unknown_units,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn weights_follow_makehumans_rule() {
        // Vertex 0: bone 1 at 0.6 and bone 2 at 0.2 (total 0.8): 0.75 and 0.25. Vertex 1:
        // only 0.00005 on bone 1: under the threshold after division? 1.0, kept. Vertex 2:
        // nothing: the root. Vertex 3: eight bones of 1: six kept, 1/6 each.
        let mut weights = vec![(1, vec![(0, 0.6), (1, 0.00005)]), (2, vec![(0, 0.2)])];
        for b in 3..11 {
            weights.push((b, vec![(3, 1.0)]));
        }
        let w = skinning_weights(&weights, 4, 0);
        assert_eq!(w[0].len(), 2);
        assert!((w[0][0].1 - 0.75).abs() < 1e-12 && (w[0][1].1 - 0.25).abs() < 1e-12);
        assert_eq!(w[1], [(1, 1.0)]);
        assert_eq!(w[2], [(0, 1.0)]);
        assert_eq!(w[3].len(), 6);
        assert!(w[3].iter().all(|&(_, x)| (x - 1.0 / 6.0).abs() < 1e-12));
    }

    fn shipped() -> Option<std::path::PathBuf> {
        match test_support::makehuman_assets_with(&[
            "rigs/default.mhskel",
            "rigs/default_weights.mhw",
            "poseunits/face-poseunits.bvh",
            "poseunits/face-poseunits.json",
            "expressions/smile01.mhpose",
        ]) {
            Ok(folder) => Some(folder),
            Err(why) => {
                test_support::skip_or_fail("an_expression_moves_the_face_only", &why);
                None
            }
        }
    }

    #[test]
    fn an_expression_moves_the_face_only() {
        let (Some(assets), Some(data)) = (shipped(), test_support::mpfb_data()) else {
            if test_support::mpfb_data().is_none() {
                test_support::skip_or_fail("an_expression_moves_the_face_only", "no MPFB data");
            }
            return;
        };
        let read = |p: &str| std::fs::read_to_string(assets.join(p)).unwrap_or_default();
        let skel = crate::parse_mhskel(&read("rigs/default.mhskel")).unwrap_or_default();
        let units = crate::parse_bvh(&read("poseunits/face-poseunits.bvh"))
            .unwrap_or_else(|e| panic!("{e}"));
        let names =
            crate::parse_unit_names(&read("poseunits/face-poseunits.json")).unwrap_or_default();
        let weights =
            crate::parse_mhw(&read("rigs/default_weights.mhw")).unwrap_or_else(|e| panic!("{e}"));
        // The base mesh's vertices (`v` lines), as MakeHuman's rest mesh without targets.
        let obj = std::fs::read_to_string(data.join("3dobjs/base.obj")).unwrap_or_default();
        let body: Vec<DVec3> = obj
            .lines()
            .filter_map(|l| l.strip_prefix("v "))
            .map(|l| {
                let n: Vec<f64> = l
                    .split_whitespace()
                    .filter_map(|x| x.parse().ok())
                    .collect();
                DVec3::new(n[0], n[1], n[2])
            })
            .collect();
        assert_eq!(body.len(), 19158);
        let rig =
            FaceRig::new(&skel, &body, &units, &names, &weights).unwrap_or_else(|e| panic!("{e}"));
        let smile = crate::parse_mhpose(&read("expressions/smile01.mhpose")).unwrap_or_default();
        let moved = rig.displace(&body, &smile);
        assert!(moved.unknown_units.is_empty());
        let max = moved.offsets.iter().map(|d| d.length()).fold(0.0, f64::max);
        // A smile moves the mouth by millimetres to a centimetre or two (decimetres here).
        assert!(max > 0.01 && max < 0.5, "largest displacement {max} dm");
        // Nothing below the shoulders moves (more than a micrometre: the units' files turn some
        // body joints by millionths of a degree), and below the neck's base only a little of
        // what the face moves: MakeHuman's weights give the jaw a few percent of the front of
        // the neck (vertex 778: 0.04), so an open mouth (fear02) moves it by 1.9 mm.
        let head_y = |bone: &str| {
            rig.bones
                .iter()
                .position(|b| b == bone)
                .map(|i| rig.heads[i].y)
                .unwrap_or(f64::MAX)
        };
        let (neck, shoulders) = (head_y("neck01"), head_y("clavicle.L"));
        let face_only = |name: &str, moved: &Displacement| {
            let largest = moved.offsets.iter().map(|d| d.length()).fold(0.0, f64::max);
            for (v, d) in body.iter().zip(&moved.offsets) {
                let bound = if v.y < shoulders {
                    1e-5
                } else if v.y < neck {
                    0.1 * largest
                } else {
                    f64::MAX
                };
                assert!(
                    d.length() <= bound,
                    "{name}: a vertex at {v} moved by {d} (largest {largest})"
                );
            }
        };
        face_only("smile01", &moved);
        // Every shipped expression names known units, moves the face, and nothing below it.
        let mut expressions = 0;
        for entry in std::fs::read_dir(assets.join("expressions"))
            .into_iter()
            .flatten()
            .flatten()
        {
            if entry.path().extension().is_none_or(|e| e != "mhpose") {
                continue;
            }
            let pose =
                crate::parse_mhpose(&std::fs::read_to_string(entry.path()).unwrap_or_default())
                    .unwrap_or_default();
            let moved = rig.displace(&body, &pose);
            let name = entry.path().display().to_string();
            assert!(
                moved.unknown_units.is_empty(),
                "{name}: {:?}",
                moved.unknown_units
            );
            assert!(
                moved.offsets.iter().any(|d| d.length() > 0.01),
                "{name} moves nothing"
            );
            face_only(&name, &moved);
            expressions += 1;
        }
        assert_eq!(expressions, 32);
        // The neutral pose (no unit) moves nothing.
        let neutral = rig.displace(&body, &MhPose::default());
        assert!(neutral.offsets.iter().all(|d| d.length() < 1e-12));
    }
}
