//! Fitting on tiny hand-made meshes: every strategy, offsets, fallbacks, roll strategies,
//! errors, and properties of the bases over random bones.

use glam::{DMat3, DVec3};
use mpfb_rig::{BoneEnd, EndSource, FallbackReason, FitMesh, RigErrorKind, fit, frame, parse_rig};
use proptest::prelude::*;

/// Four Blender-space vertices and a joint cube made of vertices 0 and 1.
fn mesh() -> FitMesh {
    let vertices = vec![
        DVec3::new(0.0, 0.0, 0.0),
        DVec3::new(0.0, 0.0, 2.0),
        DVec3::new(1.0, 2.0, 3.0),
        DVec3::new(-1.0, 4.0, 5.0),
    ];
    let groups = [
        ("joint-a".to_owned(), vec![0u32, 1]),
        ("not-a-cube".to_owned(), vec![2u32]),
    ];
    FitMesh::new(vertices, groups.iter().map(|(n, v)| (n, v)))
}

fn rig_with(head: &str, tail: &str, extra: &str) -> String {
    format!(
        r#"{{"version": 110, "is_subrig": false, "scale_factor": 0.5, "bones": {{"b": {{
            "head": {head}, "tail": {tail}, "roll": 0.0, "parent": "", "use_connect": false,
            "use_inherit_rotation": true, "use_local_location": true, "inherit_scale": "FULL",
            "rigify": {{}} {extra}}}}}}}"#
    )
}

#[test]
fn every_strategy_with_hand_computed_positions() {
    let src = rig_with(
        r#"{"strategy": "CUBE", "cube_name": "joint-a", "default_position": [9,9,9], "offset": [1, 0, 0]}"#,
        r#"{"strategy": "XYZ", "vertex_indices": [2, 3, 1], "default_position": [9,9,9]}"#,
        "",
    );
    let rig = parse_rig(&src).unwrap();
    // Mesh scale 0.25, rig scale 0.5: offsets scale by 0.5.
    let fitted = fit(&rig, &mesh().with_scale_factor(0.25)).unwrap();
    assert_eq!(fitted.relative_scale, 0.5);
    let b = &fitted.bones[0];
    assert_eq!(
        b.head_blender,
        DVec3::new(0.5, 0.0, 1.0),
        "cube centre (0,0,1) + 0.5 * (1,0,0)"
    );
    assert_eq!(
        b.tail_blender,
        DVec3::new(1.0, 4.0, 2.0),
        "x of v2, y of v3, z of v1"
    );
    // G4MF = (bx, bz, -by).
    assert_eq!(b.head, DVec3::new(0.5, 1.0, 0.0));
    assert_eq!(b.tail, DVec3::new(1.0, 2.0, -4.0));

    let src = rig_with(
        r#"{"strategy": "MEAN", "vertex_indices": [2, 3], "default_position": [9,9,9]}"#,
        r#"{"strategy": "VERTEX", "vertex_index": 1, "default_position": [9,9,9], "offset": [0, 0, 2]}"#,
        "",
    );
    let fitted = fit(&parse_rig(&src).unwrap(), &mesh()).unwrap();
    assert_eq!(
        fitted.relative_scale, 1.0,
        "mesh scale unknown: offsets unscaled"
    );
    assert_eq!(fitted.bones[0].head_blender, DVec3::new(0.0, 3.0, 4.0));
    assert_eq!(fitted.bones[0].tail_blender, DVec3::new(0.0, 0.0, 4.0));
}

#[test]
fn failed_strategies_fall_back_and_are_reported() {
    let cases = [
        (
            r#"{"strategy": "CUBE", "cube_name": "joint-missing", "default_position": [1,1,1], "offset": [5,5,5]}"#,
            FallbackReason::MissingCube {
                cube_name: "joint-missing".into(),
            },
        ),
        (
            r#"{"strategy": "CUBE", "cube_name": "not-a-cube", "default_position": [1,1,1]}"#,
            FallbackReason::MissingCube {
                cube_name: "not-a-cube".into(),
            },
        ),
        (
            r#"{"strategy": "VERTEX", "vertex_index": 4, "default_position": [1,1,1]}"#,
            FallbackReason::VertexOutOfRange {
                index: 4,
                vertex_count: 4,
            },
        ),
        (
            r#"{"strategy": "MEAN", "vertex_indices": [0, 99], "default_position": [1,1,1]}"#,
            FallbackReason::VertexOutOfRange {
                index: 99,
                vertex_count: 4,
            },
        ),
        (
            r#"{"strategy": "MEAN", "vertex_indices": [], "default_position": [1,1,1]}"#,
            FallbackReason::EmptyMean,
        ),
        (
            r#"{"strategy": "XYZ", "vertex_indices": [0, 1, 7], "default_position": [1,1,1]}"#,
            FallbackReason::VertexOutOfRange {
                index: 7,
                vertex_count: 4,
            },
        ),
    ];
    for (tail, reason) in cases {
        let src = rig_with(
            r#"{"strategy": "VERTEX", "vertex_index": 0, "default_position": [0,0,0]}"#,
            tail,
            "",
        );
        let fitted = fit(&parse_rig(&src).unwrap(), &mesh()).unwrap();
        assert_eq!(fitted.fallbacks.len(), 1);
        let fb = &fitted.fallbacks[0];
        assert_eq!(
            (fb.bone.as_str(), fb.end, &fb.reason),
            ("b", BoneEnd::Tail, &reason)
        );
        assert_eq!(fb.pointer, "/bones/b/tail");
        // The default is used as is: offsets only apply to successful strategies.
        assert_eq!(fitted.bones[0].tail_blender, DVec3::ONE);
        assert_eq!(fitted.bones[0].tail_source, EndSource::Fallback);
    }
}

#[test]
fn explicit_default_is_not_a_fallback_and_missing_default_is_an_error() {
    let src = rig_with(
        r#"{"strategy": "DEFAULT", "default_position": [0, 0, 5]}"#,
        r#"{"strategy": "VERTEX", "vertex_index": 0, "default_position": [0,0,0]}"#,
        "",
    );
    let fitted = fit(&parse_rig(&src).unwrap(), &mesh()).unwrap();
    assert!(fitted.fallbacks.is_empty());
    assert_eq!(fitted.bones[0].head_source, EndSource::Default);

    let src = rig_with(
        r#"{"strategy": "VERTEX", "vertex_index": 0}"#,
        r#"{"strategy": "VERTEX", "vertex_index": 40}"#,
        "",
    );
    let err = fit(&parse_rig(&src).unwrap(), &mesh()).unwrap_err();
    assert!(
        matches!(
            &err.kind,
            RigErrorKind::NoPosition {
                end: BoneEnd::Tail,
                ..
            }
        ),
        "{err}"
    );
    assert_eq!(err.location.pointer.as_deref(), Some("/bones/b/tail"));
}

#[test]
fn zero_length_bone_is_named() {
    let src = rig_with(
        r#"{"strategy": "VERTEX", "vertex_index": 1, "default_position": [0,0,0]}"#,
        r#"{"strategy": "CUBE", "cube_name": "joint-a", "default_position": [0,0,0], "offset": [0, 0, 1]}"#,
        "",
    );
    let err = fit(&parse_rig(&src).unwrap(), &mesh()).unwrap_err();
    assert!(
        matches!(&err.kind, RigErrorKind::ZeroLengthBone { bone, .. } if bone == "b"),
        "{err}"
    );
    assert_eq!(err.location.pointer.as_deref(), Some("/bones/b"));
}

fn fitted_basis(head: &str, tail: &str, extra: &str) -> DMat3 {
    let fitted = fit(&parse_rig(&rig_with(head, tail, extra)).unwrap(), &mesh()).unwrap();
    fitted.bones[0].basis
}

const AT_ORIGIN: &str = r#"{"strategy": "VERTEX", "vertex_index": 0, "default_position": [0,0,0]}"#;

#[test]
fn blender_known_cases_in_g4mf_space() {
    // Pointing up in Blender (+Z) with roll 0: the identity basis in G4MF space.
    let up = fitted_basis(
        AT_ORIGIN,
        r#"{"strategy": "DEFAULT", "default_position": [0, 0, 1]}"#,
        "",
    );
    assert!(up.abs_diff_eq(DMat3::IDENTITY, 1e-15), "{up:?}");
    // Pointing down: Y flips to -Y, and Z with it (a half turn about X).
    let down = fitted_basis(
        AT_ORIGIN,
        r#"{"strategy": "DEFAULT", "default_position": [0, 0, -1]}"#,
        "",
    );
    assert!(
        down.abs_diff_eq(
            DMat3::from_cols(DVec3::X, DVec3::NEG_Y, DVec3::NEG_Z),
            1e-15
        ),
        "{down:?}"
    );
    // Along Blender -Y (the character's forward, G4MF +Z): Blender's special case, X -> -X.
    let forward = fitted_basis(
        AT_ORIGIN,
        r#"{"strategy": "DEFAULT", "default_position": [0, -1, 0]}"#,
        "",
    );
    assert!(
        forward.abs_diff_eq(DMat3::from_cols(DVec3::NEG_X, DVec3::Z, DVec3::Y), 1e-15),
        "{forward:?}"
    );
}

#[test]
fn roll_strategies_replace_the_stored_roll() {
    // A bone along Blender +X with a stored roll of 1.0 and ALIGN_Z_WORLD_Z: local Z is up.
    let tail = r#"{"strategy": "DEFAULT", "default_position": [1, 0, 0]}"#;
    let b = fitted_basis(
        AT_ORIGIN,
        tail,
        r#", "roll": 1.0, "roll_strategy": "ALIGN_Z_WORLD_Z""#
            .replacen("\"roll\": 1.0, ", "", 1)
            .as_str(),
    );
    // G4MF: Blender Z (up) is G4MF +Y.
    assert!(b.z_axis.abs_diff_eq(DVec3::Y, 1e-12), "{b:?}");
    assert!(b.y_axis.abs_diff_eq(DVec3::X, 1e-12));
    // ALIGN_X_WORLD_X on a bone pointing up: local X is world X.
    let b = fitted_basis(
        AT_ORIGIN,
        r#"{"strategy": "DEFAULT", "default_position": [0, 0.2, 1]}"#,
        r#", "roll_strategy": "ALIGN_X_WORLD_X""#,
    );
    assert!(b.x_axis.abs_diff_eq(DVec3::X, 1e-12), "{b:?}");
    // ALIGN_Z_REFERENCE_Z towards Blender +X on a bone pointing up: local Z is G4MF +X.
    let b = fitted_basis(
        AT_ORIGIN,
        r#"{"strategy": "DEFAULT", "default_position": [0, 0, 1]}"#,
        r#", "roll_strategy": "ALIGN_Z_REFERENCE_Z", "roll_reference_z": [1, 0, 0]"#,
    );
    assert!(b.z_axis.abs_diff_eq(DVec3::X, 1e-12), "{b:?}");
}

#[test]
fn a_bone_parallel_to_its_roll_reference_keeps_its_roll_with_a_warning() {
    let src = rig_with(
        AT_ORIGIN,
        r#"{"strategy": "DEFAULT", "default_position": [0, 0, 1]}"#,
        r#", "roll_strategy": "ALIGN_Z_WORLD_Z""#,
    );
    let fitted = fit(&parse_rig(&src).unwrap(), &mesh()).unwrap();
    assert_eq!(fitted.warnings.len(), 1);
    assert_eq!(fitted.bones[0].roll, 0.0);
}

#[test]
fn local_transforms_compose_back_to_world() {
    let src = r#"{"p": {"head": {"strategy": "DEFAULT", "default_position": [0,0,0]},
        "tail": {"strategy": "DEFAULT", "default_position": [0,0,1]}, "roll": 0.3, "parent": "",
        "use_connect": false, "use_inherit_rotation": true, "use_local_location": true,
        "inherit_scale": "FULL", "rigify": {}},
      "c": {"head": {"strategy": "DEFAULT", "default_position": [0,0,1]},
        "tail": {"strategy": "DEFAULT", "default_position": [0.5,-0.2,1.4]}, "roll": -1.2, "parent": "p",
        "use_connect": true, "use_inherit_rotation": true, "use_local_location": true,
        "inherit_scale": "FULL", "rigify": {}}}"#;
    let rig = parse_rig(src).unwrap();
    let fitted = fit(&rig, &mesh()).unwrap();
    let (pos, basis) = fitted.local_transform(1);
    let parent = &fitted.bones[0];
    let child = &fitted.bones[1];
    assert!((parent.head + parent.basis * pos).abs_diff_eq(child.head, 1e-12));
    assert!((parent.basis * basis).abs_diff_eq(child.basis, 1e-12));
    // A connected child sits at (0, parent length, 0) in its parent's frame.
    assert!(
        pos.abs_diff_eq(DVec3::new(0.0, parent.length, 0.0), 1e-12),
        "{pos}"
    );
}

fn arb_direction() -> impl Strategy<Value = DVec3> {
    (-1.0..1.0f64, -1.0..1.0f64, -1.0..1.0f64)
        .prop_filter("non-zero", |(x, y, z)| x * x + y * y + z * z > 1e-6)
        .prop_map(|(x, y, z)| DVec3::new(x, y, z))
}

fn assert_rest_basis(m: DMat3, dir: DVec3) -> Result<(), TestCaseError> {
    prop_assert!(
        (m.transpose() * m).abs_diff_eq(DMat3::IDENTITY, 1e-12),
        "not orthonormal {m:?}"
    );
    prop_assert!((m.determinant() - 1.0).abs() < 1e-12);
    prop_assert!(m.y_axis.abs_diff_eq(dir.normalize(), 1e-12));
    Ok(())
}

proptest! {
    #[test]
    fn rest_bases_are_rotations_along_the_bone(dir in arb_direction(), roll in -4.0..4.0f64) {
        assert_rest_basis(frame::vec_roll_to_mat3(dir, roll), dir)?;
    }

    #[test]
    fn directions_near_minus_y_stay_orthonormal(x in -0.1..0.1f64, z in -0.1..0.1f64, roll in -4.0..4.0f64) {
        let dir = DVec3::new(x, -1.0, z);
        assert_rest_basis(frame::vec_roll_to_mat3(dir, roll), dir)?;
    }

    #[test]
    fn roll_strategies_give_rest_bases(dir in arb_direction(), which in 0..3usize, r in arb_direction()) {
        let strategy = match which {
            0 => mpfb_rig::RollStrategy::AlignZWorldZ,
            1 => mpfb_rig::RollStrategy::AlignXWorldX,
            _ => mpfb_rig::RollStrategy::AlignZReferenceZ { reference: r.to_array() },
        };
        if let Some(roll) = frame::roll_from_strategy(dir, &strategy) {
            let m = frame::vec_roll_to_mat3(dir, roll);
            assert_rest_basis(m, dir)?;
            let (axis, target) = match strategy {
                mpfb_rig::RollStrategy::AlignZWorldZ => (m.z_axis, DVec3::Z),
                mpfb_rig::RollStrategy::AlignXWorldX => (m.x_axis, DVec3::X),
                mpfb_rig::RollStrategy::AlignZReferenceZ { .. } => (m.z_axis, r),
            };
            // The aligned axis is the target's component perpendicular to the bone.
            let d = dir.normalize();
            let perpendicular = (target - d * target.dot(d)).normalize();
            prop_assert!(axis.abs_diff_eq(perpendicular, 1e-9), "{axis} vs {perpendicular}");
        }
    }

    #[test]
    fn fitted_bases_in_g4mf_space_are_rotations(a in arb_direction(), b in arb_direction(), roll in -4.0..4.0f64) {
        prop_assume!((a - b).length() > 1e-3);
        let src = rig_with(
            &format!(r#"{{"strategy": "DEFAULT", "default_position": [{}, {}, {}]}}"#, a.x, a.y, a.z),
            &format!(r#"{{"strategy": "DEFAULT", "default_position": [{}, {}, {}]}}"#, b.x, b.y, b.z),
            "",
        ).replace("\"roll\": 0.0", &format!("\"roll\": {roll}"));
        let fitted = fit(&parse_rig(&src).unwrap(), &mesh()).unwrap();
        let bone = &fitted.bones[0];
        assert_rest_basis(bone.basis, bone.tail - bone.head)?;
        prop_assert!((bone.roll - roll).abs() < 1e-12);
    }
}

#[test]
fn the_two_bone_fixture_fits_with_hand_computed_frames() {
    let path = test_support::workspace_root().join("fixtures/rigs/two_bones.v110.json");
    let rig = mpfb_rig::read_rig_file(&path).unwrap();
    let fitted = fit(&rig, &mesh()).unwrap();
    // root points up in Blender: identity in G4MF, length 0.5.
    assert!(fitted.bones[0].basis.abs_diff_eq(DMat3::IDENTITY, 1e-15));
    assert_eq!(fitted.bones[0].length, 0.5);
    // arm.L points along +X with ALIGN_Z_WORLD_Z. Hand computation in G4MF space:
    // Y = +X, Z = up = +Y, X = Y x Z = (+X) x (+Y) = +Z.
    let arm = &fitted.bones[1];
    assert!(
        arm.basis
            .abs_diff_eq(DMat3::from_cols(DVec3::Z, DVec3::X, DVec3::Y), 1e-12),
        "{:?}",
        arm.basis
    );
    // Relative to root (identity basis, head at origin): at (0, 0.5, 0), the root's length.
    let (position, basis) = fitted.local_transform(1);
    assert!(position.abs_diff_eq(DVec3::new(0.0, 0.5, 0.0), 1e-15));
    assert!(basis.abs_diff_eq(arm.basis, 1e-12));
}
