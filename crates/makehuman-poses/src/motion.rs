//! MakeHuman's arithmetic of motion (spec-notes/makehuman-motion.md cites its source): a BVH
//! frame's joint rotations in MakeHuman's frame (Z-up files converted as MakeHuman's "auto"
//! rule decides), pose units blended into an expression, a skeleton posed about its rest
//! heads, and a vertex skinned by linear blending.

use crate::bvh::Bvh;
use glam::{DAffine3, DMat3, DQuat, DVec3};

/// MakeHuman's conversion of a Z-up BVH into its Y-up frame: `(x, y, z) -> (x, z, -y)`
/// (`shared/bvh.py`, `convertFromZUp`).
pub const Z_UP_TO_Y_UP: DMat3 = DMat3::from_cols(
    DVec3::new(1.0, 0.0, 0.0),
    DVec3::new(0.0, 0.0, -1.0),
    DVec3::new(0.0, 1.0, 0.0),
);

/// A point or offset of a Z-up file in MakeHuman's frame.
pub fn point_from_z_up(p: DVec3) -> DVec3 {
    Z_UP_TO_Y_UP * p
}

/// A rotation of a Z-up file in MakeHuman's frame: `C R Cᵀ`, the same turn about the
/// converted axis.
pub fn rotation_from_z_up(q: DQuat) -> DQuat {
    let (axis, angle) = q.to_axis_angle();
    if angle == 0.0 {
        return DQuat::IDENTITY;
    }
    DQuat::from_axis_angle((Z_UP_TO_Y_UP * axis).normalize(), angle)
}

/// The joints MakeHuman's "auto" rule looks at, in order, to tell a Z-up file from a Y-up one.
pub const AXIS_REFERENCE_JOINTS: [&str; 6] = [
    "lowerleg02.L",
    "upperleg02.L",
    "spine01",
    "spine02",
    "spine03",
    "head",
];

/// Whether MakeHuman reads `bvh` as Z-up: the first of [`AXIS_REFERENCE_JOINTS`] (or its
/// capitalised name) that has a child points more along Z than along Y. `None` when the file
/// has none of them (MakeHuman's rule then fails; the caller decides and says so).
pub fn is_z_up(bvh: &Bvh) -> Option<bool> {
    let positions = rest_positions(bvh);
    for name in AXIS_REFERENCE_JOINTS {
        let mut capitalised = name.to_owned();
        if let Some(first) = capitalised.get_mut(0..1) {
            first.make_ascii_uppercase();
        }
        let Some(joint) = bvh.joint(name).or_else(|| bvh.joint(&capitalised)) else {
            continue;
        };
        let Some(child) = bvh.joints.iter().position(|j| j.parent == Some(joint)) else {
            continue;
        };
        let d = positions[child] - positions[joint];
        return Some(d.y.abs() <= d.z.abs());
    }
    None
}

/// Each joint's rest position in the file's frame: its offsets summed down from the root.
pub fn rest_positions(bvh: &Bvh) -> Vec<DVec3> {
    let mut out: Vec<DVec3> = Vec::with_capacity(bvh.joints.len());
    for joint in &bvh.joints {
        let parent = joint.parent.and_then(|p| out.get(p)).copied();
        out.push(parent.unwrap_or(DVec3::ZERO) + joint.offset);
    }
    out
}

/// Each joint's rotation in frame `frame`, in MakeHuman's frame (converted when `z_up`): the
/// product of its rotation channels in file order; identity for a joint with fewer than three
/// rotation channels, which MakeHuman ignores. `None` past the last frame.
pub fn frame_rotations(bvh: &Bvh, frame: usize, z_up: bool) -> Option<Vec<DQuat>> {
    let values = bvh.frame(frame)?;
    Some(
        bvh.joints
            .iter()
            .map(|joint| {
                let rotations = joint.channels.iter().filter(|c| c.is_rotation()).count();
                if rotations < 3 {
                    return DQuat::IDENTITY;
                }
                let q = joint.rotation(values);
                if z_up { rotation_from_z_up(q) } else { q }
            })
            .collect(),
    )
}

/// MakeHuman's canonical joint name for matching a BVH joint to a bone: lower case, spaces
/// and dashes as underscores, a trailing `_N` (MakeHuman's suffix for repeated names) removed.
pub fn canonical_name(name: &str) -> String {
    let lower = name.to_lowercase().replace([' ', '-'], "_");
    match lower.rsplit_once('_') {
        Some((stem, digits))
            if !stem.is_empty()
                && !digits.is_empty()
                && digits.bytes().all(|b| b.is_ascii_digit()) =>
        {
            stem.to_owned()
        }
        _ => lower,
    }
}

/// `slerp(identity, q, weight)` along the shorter arc, as MakeHuman's `quaternion_slerp`.
fn weighted(q: DQuat, weight: f64) -> DQuat {
    let q = if q.w < 0.0 { -q } else { q };
    DQuat::IDENTITY.slerp(q, weight).normalize()
}

/// An expression's rotation of one bone from its pose units (`units`: each unit's rotation of
/// the bone and the unit's weight, in the expression's order): each unit's rotation slerped
/// from identity by its weight, then composed as `q_n ... q_2 q_1` (MakeHuman's
/// `PoseUnit.getBlendedPose`, additive).
pub fn blend_units(units: &[(DQuat, f64)]) -> DQuat {
    units
        .iter()
        .fold(DQuat::IDENTITY, |blended, &(q, w)| weighted(q, w) * blended)
        .normalize()
}

/// The skinning matrix of every bone of a skeleton posed by `rotations` (world-axis turns
/// about each bone's rest head, MakeHuman's rule for BVH poses): `D_b = D_parent T(h_b) R_b
/// T(-h_b)`, the root's preceded by `T(root_translation)`. Bones come parents first.
pub fn pose_matrices(
    parents: &[Option<usize>],
    heads: &[DVec3],
    rotations: &[DQuat],
    root_translation: DVec3,
) -> Vec<DAffine3> {
    let mut out: Vec<DAffine3> = Vec::with_capacity(parents.len());
    for (b, parent) in parents.iter().enumerate() {
        let h = heads.get(b).copied().unwrap_or_default();
        let r = rotations.get(b).copied().unwrap_or(DQuat::IDENTITY);
        let about_head =
            DAffine3::from_translation(h) * DAffine3::from_quat(r) * DAffine3::from_translation(-h);
        let before = match parent.and_then(|p| out.get(p)) {
            Some(&d) => d,
            None => DAffine3::from_translation(root_translation),
        };
        out.push(before * about_head);
    }
    out
}

/// A vertex skinned by linear blending: `sum w_i D_i v`, the weights as given (MakeHuman
/// normalises them first).
pub fn skin_vertex(vertex: DVec3, influences: &[(usize, f64)], matrices: &[DAffine3]) -> DVec3 {
    influences
        .iter()
        .filter_map(|&(b, w)| matrices.get(b).map(|d| d.transform_point3(vertex) * w))
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::f64::consts::FRAC_PI_2;

    fn close(a: DVec3, b: DVec3) -> bool {
        (a - b).length() < 1e-12
    }

    #[test]
    fn one_unit_at_full_and_half_weight() {
        // A unit turning a bone 90 degrees about X.
        let unit = DQuat::from_rotation_x(FRAC_PI_2);
        // Weight 1: the unit's turn: Y goes to Z.
        assert!(close(blend_units(&[(unit, 1.0)]) * DVec3::Y, DVec3::Z));
        // Weight 0.5: half the angle, 45 degrees: Y goes to (0, cos 45, sin 45).
        let h = std::f64::consts::FRAC_1_SQRT_2;
        assert!(close(
            blend_units(&[(unit, 0.5)]) * DVec3::Y,
            DVec3::new(0.0, h, h)
        ));
        // Weight 0: no turn.
        assert!(close(blend_units(&[(unit, 0.0)]) * DVec3::Y, DVec3::Y));
        // A unit stored as the negative quaternion turns the same way (the shorter arc).
        assert!(close(
            blend_units(&[(-unit, 0.5)]) * DVec3::Y,
            DVec3::new(0.0, h, h)
        ));
    }

    #[test]
    fn two_units_compose_last_on_the_left() {
        // q1: 90 about X (first in the expression), q2: 90 about Y. q = q2 q1: q1 first takes
        // Y to Z, then q2 takes Z to X. (q1 q2 would take Y to Y, then to Z.)
        let q1 = DQuat::from_rotation_x(FRAC_PI_2);
        let q2 = DQuat::from_rotation_y(FRAC_PI_2);
        assert!(close(
            blend_units(&[(q1, 1.0), (q2, 1.0)]) * DVec3::Y,
            DVec3::X
        ));
        assert!(close(
            blend_units(&[(q2, 1.0), (q1, 1.0)]) * DVec3::Y,
            DVec3::Z
        ));
    }

    #[test]
    fn z_up_offsets_and_turns_are_converted() {
        // sit01.bvh's root OFFSET is the default skeleton's root head on base.obj once
        // converted: (0, 0.7609, 0.5639) -> (0, 0.5639, -0.7609).
        assert!(close(
            point_from_z_up(DVec3::new(0.0, 0.7609, 0.5639)),
            DVec3::new(0.0, 0.5639, -0.7609)
        ));
        // A turn of 90 about the file's Z (its up) is a turn of 90 about MakeHuman's Y (up):
        // X goes to -Z (file X stays X; file Y, where X went, is MakeHuman's -Z).
        let turned = rotation_from_z_up(DQuat::from_rotation_z(FRAC_PI_2)) * DVec3::X;
        assert!(close(turned, DVec3::NEG_Z), "{turned}");
        assert!(close(
            rotation_from_z_up(DQuat::from_rotation_z(FRAC_PI_2)) * DVec3::X,
            DQuat::from_rotation_y(FRAC_PI_2) * DVec3::X
        ));
    }

    #[test]
    fn a_vertex_under_a_posed_bone_moves_as_linear_blend_skinning_says() {
        // Root at the origin, child head at (0, 1, 0), the child turned 90 about Z.
        let parents = [None, Some(0)];
        let heads = [DVec3::ZERO, DVec3::Y];
        let rotations = [DQuat::IDENTITY, DQuat::from_rotation_z(FRAC_PI_2)];
        let d = pose_matrices(&parents, &heads, &rotations, DVec3::ZERO);
        // (1, 1, 0) under the child: 1 right of its head, turned to 1 above it: (0, 2, 0).
        let v = DVec3::new(1.0, 1.0, 0.0);
        assert!(close(
            skin_vertex(v, &[(1, 1.0)], &d),
            DVec3::new(0.0, 2.0, 0.0)
        ));
        // Half on the unmoved root: halfway, (0.5, 1.5, 0).
        assert!(close(
            skin_vertex(v, &[(0, 0.5), (1, 0.5)], &d),
            DVec3::new(0.5, 1.5, 0.0)
        ));
        // A root translation moves everything, the child with its parent.
        let moved = pose_matrices(&parents, &heads, &rotations, DVec3::new(0.0, 0.0, 3.0));
        assert!(close(
            skin_vertex(v, &[(1, 1.0)], &moved),
            DVec3::new(0.0, 2.0, 3.0)
        ));
        // A turned parent carries the child: root turned 90 about Z, child not turned:
        // (1, 1, 0) under the child turns about the origin to (-1, 1, 0).
        let d = pose_matrices(
            &parents,
            &heads,
            &[DQuat::from_rotation_z(FRAC_PI_2), DQuat::IDENTITY],
            DVec3::ZERO,
        );
        assert!(close(
            skin_vertex(v, &[(1, 1.0)], &d),
            DVec3::new(-1.0, 1.0, 0.0)
        ));
    }

    #[test]
    fn joint_names_match_as_makehuman_matches_them() {
        assert_eq!(canonical_name("Upper Arm-01"), "upper_arm");
        assert_eq!(canonical_name("upperarm01.L"), "upperarm01.l");
        assert_eq!(canonical_name("jaw_1"), "jaw");
        assert_eq!(canonical_name("_1"), "_1");
    }

    #[test]
    fn shipped_pose_units_are_z_up_and_move_face_bones_only() {
        let Ok(assets) = test_support::makehuman_assets_with(&[
            "poseunits/face-poseunits.bvh",
            "poseunits/face-poseunits.json",
        ]) else {
            test_support::skip_or_fail(
                "shipped_pose_units_are_z_up",
                "no MakeHuman assets with pose units",
            );
            return;
        };
        let text = std::fs::read_to_string(assets.join("poseunits/face-poseunits.bvh"))
            .unwrap_or_default();
        let bvh = crate::parse_bvh(&text).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(is_z_up(&bvh), Some(true));
        // Frame 0 is the rest: every joint unturned.
        let rest = frame_rotations(&bvh, 0, true).unwrap_or_default();
        assert!(rest.iter().all(|q| q.angle_between(DQuat::IDENTITY) < 1e-4));
        // No unit turns a leg or an arm.
        for frame in 1..bvh.frame_count() {
            let turns = frame_rotations(&bvh, frame, true).unwrap_or_default();
            for name in ["upperleg01.L", "upperarm01.R", "spine03", "root"] {
                let j = bvh.joint(name).unwrap_or(0);
                assert!(
                    turns[j].angle_between(DQuat::IDENTITY) < 1e-4,
                    "{frame} {name}"
                );
            }
        }
    }
}
