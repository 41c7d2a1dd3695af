//! Every rig in the shared MPFB data parses and fits on `base.obj` as MPFB fits it.

use glam::{DMat3, DVec3};
use mpfb_mesh::{read_obj_file, vertex_groups_from_faces};
use mpfb_rig::{EndSource, FitMesh, FittedRig, ObjFrame, Rig, RigLayout, fit, read_rig_file};
use std::path::{Path, PathBuf};

struct Base {
    /// OBJ positions as written.
    positions: Vec<DVec3>,
    groups: mpfb_mesh::VertexGroups,
}

fn load_base(data: &Path) -> Base {
    let mesh = read_obj_file(&data.join("3dobjs/base.obj")).expect("base.obj reads");
    Base {
        positions: mesh
            .positions
            .iter()
            .map(|p| DVec3::from_array(*p))
            .collect(),
        groups: vertex_groups_from_faces(&mesh),
    }
}

fn fit_mesh(base: &Base, positions: &[DVec3]) -> FitMesh {
    let positions: Vec<[f64; 3]> = positions.iter().map(|p| p.to_array()).collect();
    FitMesh::from_obj(&positions, ObjFrame::MAKEHUMAN, base.groups.iter())
}

fn rig_files(data: &Path) -> Vec<PathBuf> {
    test_support::json_files_with_prefix(&data.join("rigs"), "rig.")
}

fn rig_named(data: &Path, name: &str) -> Rig {
    let path = rig_files(data)
        .into_iter()
        .find(|p| p.file_name().and_then(|n| n.to_str()) == Some(name))
        .unwrap_or_else(|| panic!("{name} is in the data"));
    read_rig_file(&path).unwrap()
}

#[test]
fn every_shipped_rig_parses_and_fits_without_fallback() {
    let data = test_support::mpfb_data_or_skip!(every_shipped_rig_parses_and_fits_without_fallback);
    let base = load_base(&data);
    assert_eq!(base.positions.len(), 19158);
    let mesh = fit_mesh(&base, &base.positions);
    assert_eq!(mesh.cube_count(), 125, "base.obj has 125 joint cubes");

    let files = rig_files(&data);
    assert!(
        files.len() >= 6,
        "expected the six shipped rigs, found {files:?}"
    );
    for path in files {
        let rig = read_rig_file(&path).unwrap_or_else(|e| panic!("{e}"));
        let fitted = fit(&rig, &mesh).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        assert!(
            fitted.fallbacks.is_empty(),
            "{}: fallbacks {:?}",
            path.display(),
            fitted.fallbacks
        );
        assert!(
            fitted.warnings.is_empty(),
            "{}: {:?}",
            path.display(),
            fitted.warnings
        );
        assert_eq!(fitted.bones.len(), rig.bones.len());
        for (bone, fb) in rig.bones.iter().zip(&fitted.bones) {
            assert_eq!(fb.head_source, EndSource::Strategy, "{}", bone.name);
            assert_eq!(fb.tail_source, EndSource::Strategy, "{}", bone.name);
            assert_frame_ok(&bone.name, fb.basis, fb.head, fb.tail, fb.length);
            // A second, plain evaluation path: every strategy end recomputed from the OBJ.
            for (end, fitted_pos) in [(&bone.head, fb.head_blender), (&bone.tail, fb.tail_blender)]
            {
                let expected = reference_position(&base, end, fitted.relative_scale);
                assert!(
                    fitted_pos.abs_diff_eq(expected, 1e-12),
                    "{} {}: {fitted_pos} vs {expected}",
                    path.display(),
                    bone.name
                );
            }
        }
    }
}

/// Blender-space position of a bone end computed directly from OBJ values (no FitMesh).
fn reference_position(base: &Base, end: &mpfb_rig::Endpoint, relative_scale: f64) -> DVec3 {
    let blender = |i: u32| {
        let p = base.positions[i as usize];
        DVec3::new(p.x, -p.z, p.y) * 0.1
    };
    let mean =
        |indices: &[u32]| indices.iter().map(|&i| blender(i)).sum::<DVec3>() / indices.len() as f64;
    let placed = match &end.strategy {
        mpfb_rig::Strategy::Cube { cube_name } => mean(&base.groups[cube_name.as_str()]),
        mpfb_rig::Strategy::Vertex { vertex_index } => blender(*vertex_index),
        mpfb_rig::Strategy::Mean { vertex_indices } => mean(vertex_indices),
        mpfb_rig::Strategy::Xyz {
            vertex_indices: [x, y, z],
        } => DVec3::new(blender(*x).x, blender(*y).y, blender(*z).z),
        mpfb_rig::Strategy::Default => unreachable!("no shipped rig uses DEFAULT"),
    };
    placed + end.offset.map_or(DVec3::ZERO, DVec3::from_array) * relative_scale
}

#[test]
fn hand_computed_positions_match() {
    let data = test_support::mpfb_data_or_skip!(hand_computed_positions_match);
    let base = load_base(&data);
    let mesh = fit_mesh(&base, &base.positions);
    // Expected values computed independently (Python over base.obj) and written down here.
    let human = rig_named(&data, "rig.human.json");
    let fitted = fit(&human, &mesh).unwrap();
    let bone = |name: &str| &fitted.bones[human.bone_index(name).unwrap()];
    // XYZ: x of vertex 13319, y of 12820, z of 13057 (Blender axes).
    assert!(
        bone("heel.02.L")
            .head_blender
            .abs_diff_eq(DVec3::new(0.18341, 0.04506, -0.81568), 1e-12)
    );
    // CUBE + offset [0, 0, 0.08] scaled by 0.1 / 0.10000000149011612.
    assert!(
        bone("face")
            .tail_blender
            .abs_diff_eq(DVec3::new(0.0, -0.016075, 0.7774949988079072), 1e-12)
    );
    // MEAN of 337 and 7099 + offset [0, -0.05, 0] scaled likewise.
    assert!(
        bone("nose_master")
            .tail_blender
            .abs_diff_eq(DVec3::new(0.0, -0.20071999925494197, 0.6881), 1e-12)
    );
    // CUBE: the 8 vertices of joint-l-shoulder, and in G4MF space (x, z, -y).
    let default = rig_named(&data, "rig.default.json");
    let fitted = fit(&default, &mesh).unwrap();
    let upper_arm = &fitted.bones[default.bone_index("upperarm01.L").unwrap()];
    assert!(
        upper_arm
            .head_blender
            .abs_diff_eq(DVec3::new(0.1677125, -0.014605, 0.52458), 1e-12)
    );
    assert!(
        upper_arm
            .head
            .abs_diff_eq(DVec3::new(0.1677125, 0.52458, 0.014605), 1e-12)
    );
}

fn assert_frame_ok(name: &str, basis: DMat3, head: DVec3, tail: DVec3, length: f64) {
    let identity = basis.transpose() * basis;
    assert!(
        identity.abs_diff_eq(DMat3::IDENTITY, 1e-12),
        "{name}: not orthonormal"
    );
    assert!(
        (basis.determinant() - 1.0).abs() < 1e-12,
        "{name}: det != 1"
    );
    let along = (tail - head).normalize();
    assert!(
        basis.y_axis.abs_diff_eq(along, 1e-12),
        "{name}: +Y not head->tail"
    );
    assert!(
        ((tail - head).length() - length).abs() < 1e-12,
        "{name}: length"
    );
}

#[test]
fn layouts_are_detected_and_version_100_layers_become_collections() {
    let data = test_support::mpfb_data_or_skip!(
        layouts_are_detected_and_version_100_layers_become_collections
    );
    assert_eq!(
        rig_named(&data, "rig.default.json").source_layout,
        RigLayout::Bare
    );
    assert_eq!(
        rig_named(&data, "rig.game_engine.json").source_layout,
        RigLayout::Bare
    );
    assert_eq!(
        rig_named(&data, "rig.cmu_mb.json").source_layout,
        RigLayout::Bare
    );
    assert_eq!(
        rig_named(&data, "rig.human.json").source_layout,
        RigLayout::V110
    );

    let mixamo = rig_named(&data, "rig.mixamo.json");
    assert_eq!(mixamo.source_layout, RigLayout::V100);
    // Every mixamo bone sits on layer 1 only, which MPFB renames "Bones" (no rigify_ui).
    assert_eq!(
        mixamo.header.collections.as_deref(),
        Some(&["Bones".to_owned()][..])
    );
    for bone in &mixamo.bones {
        assert_eq!(
            bone.collections.as_deref(),
            Some(&["Bones".to_owned()][..]),
            "{}",
            bone.name
        );
        assert!(
            !bone.extra.contains_key("layers"),
            "layers are consumed by the upgrade"
        );
    }
    assert_eq!(mixamo.header.scale_factor, Some(0.10000000149011612));
}

#[test]
fn rigify_human_keeps_every_field() {
    let data = test_support::mpfb_data_or_skip!(rigify_human_keeps_every_field);
    let rig = rig_named(&data, "rig.human.json");
    assert_eq!(rig.bones.len(), 185);
    assert_eq!(rig.header.collections.as_ref().map(Vec::len), Some(22));
    assert_eq!(rig.header.extra_bones.as_ref().map(Vec::len), Some(12));
    assert!(rig.header.rigify_ui.is_some());
    let count = |f: &dyn Fn(&mpfb_rig::Bone) -> bool| rig.bones.iter().filter(|b| f(b)).count();
    assert_eq!(count(&|b| b.roll_strategy.is_some()), 70);
    assert_eq!(count(&|b| b.constraints.is_some()), 11);
    assert_eq!(count(&|b| b.rotation_mode.is_some()), 47);
    assert_eq!(count(&|b| b.bendy_bone.is_some()), 4);
    assert_eq!(
        count(&|b| b.head.offset.is_some() || b.tail.offset.is_some()),
        3
    );
    assert_eq!(
        count(&|b| b.extra.is_empty()),
        185,
        "no unknown bone keys in MPFB's own rigs"
    );
    let heel = rig.bones.iter().find(|b| b.name == "heel.02.L").unwrap();
    assert_eq!(
        heel.head.strategy,
        mpfb_rig::Strategy::Xyz {
            vertex_indices: [13319, 12820, 13057]
        }
    );
    let helper = rig.bones.iter().find(|b| b.name == "DEF-elbow-helper.L");
    let constraints = helper.and_then(|b| b.constraints.as_ref()).unwrap();
    assert_eq!(constraints.len(), 2);
    assert_eq!(constraints[1].constraint_type, "TRANSFORM");
    assert_eq!(
        constraints[1]
            .properties
            .get("subtarget")
            .and_then(|v| v.as_str()),
        Some("forearm.L")
    );
    assert_eq!(constraints[0].constraint_type, "ARMATURE");
    assert_eq!(constraints[0].name, "Armature@DEF-upper_arm.L.001@DEF");
    assert!(constraints[0].properties.contains_key("targets"));
}

/// (left, right) bone index pairs by the rig's side-naming convention.
fn mirror_pairs(rig: &Rig) -> Vec<(usize, usize)> {
    let mut pairs = Vec::new();
    for (i, bone) in rig.bones.iter().enumerate() {
        let mirrored = if let Some(stem) = bone.name.strip_suffix("_l") {
            format!("{stem}_r")
        } else if bone.name.contains(".L") {
            bone.name.replace(".L", ".R")
        } else {
            continue;
        };
        let j = rig
            .bone_index(&mirrored)
            .unwrap_or_else(|| panic!("{} has no mirror", bone.name));
        pairs.push((i, j));
    }
    pairs
}

fn assert_mirrored(rig: &Rig, fitted: &FittedRig) -> usize {
    let pairs = mirror_pairs(rig);
    for &(l, r) in &pairs {
        let (a, b) = (&fitted.bones[l], &fitted.bones[r]);
        let name = &rig.bones[l].name;
        let mirror = |v: DVec3| DVec3::new(-v.x, v.y, v.z);
        assert!(
            b.head.abs_diff_eq(mirror(a.head), 1e-5),
            "{name} head not mirrored"
        );
        assert!(
            b.tail.abs_diff_eq(mirror(a.tail), 1e-5),
            "{name} tail not mirrored"
        );
        let z = a.basis.z_axis;
        let x = a.basis.x_axis;
        assert!(
            b.basis.z_axis.abs_diff_eq(DVec3::new(-z.x, z.y, z.z), 1e-4),
            "{name}: right Z {} vs left Z {}",
            b.basis.z_axis,
            z
        );
        assert!(
            b.basis
                .x_axis
                .abs_diff_eq(DVec3::new(x.x, -x.y, -x.z), 1e-4),
            "{name}: right X {} vs left X {}",
            b.basis.x_axis,
            x
        );
    }
    pairs.len()
}

#[test]
fn symmetric_rigs_mirror_left_and_right() {
    let data = test_support::mpfb_data_or_skip!(symmetric_rigs_mirror_left_and_right);
    let base = load_base(&data);
    let mesh = fit_mesh(&base, &base.positions);
    for (name, expected_pairs) in [("rig.game_engine.json", 23), ("rig.human.json", 79)] {
        let rig = rig_named(&data, name);
        let fitted = fit(&rig, &mesh).unwrap();
        let pairs = assert_mirrored(&rig, &fitted);
        assert!(pairs >= expected_pairs, "{name}: only {pairs} mirror pairs");
    }
}

#[test]
fn a_morphed_body_moves_the_bones_with_it() {
    let data = test_support::mpfb_data_or_skip!(a_morphed_body_moves_the_bones_with_it);
    let base = load_base(&data);
    let rig = rig_named(&data, "rig.default.json");
    let original = fit(&rig, &fit_mesh(&base, &base.positions)).unwrap();

    // A uniformly scaled body (1.2x about the origin): every bone end scales with it, bases
    // stay the same (uniform scale keeps directions), lengths scale.
    let scaled: Vec<DVec3> = base.positions.iter().map(|p| *p * 1.2).collect();
    let bigger = fit(&rig, &fit_mesh(&base, &scaled)).unwrap();
    for (a, b) in original.bones.iter().zip(&bigger.bones) {
        assert!(b.head.abs_diff_eq(a.head * 1.2, 1e-9));
        assert!(b.tail.abs_diff_eq(a.tail * 1.2, 1e-9));
        assert!((b.length - a.length * 1.2).abs() < 1e-9);
        assert!(b.basis.abs_diff_eq(a.basis, 1e-9));
    }

    // A body whose upper half is pushed forward (+Z in OBJ space): bones above the waist move
    // forward by the displacement, those below stay.
    // base.obj's origin is near the hips (the feet are at y = -8.2 dm), so y > 3 dm is the
    // chest and above.
    let waist = 3.0; // decimetres
    let displaced: Vec<DVec3> = base
        .positions
        .iter()
        .map(|p| {
            if p.y > waist {
                *p + DVec3::new(0.0, 0.0, 0.5)
            } else {
                *p
            }
        })
        .collect();
    let moved = fit(&rig, &fit_mesh(&base, &displaced)).unwrap();
    let head = |fitted: &FittedRig, name: &str| fitted.bones[rig.bone_index(name).unwrap()].head;
    assert!(
        head(&moved, "head")
            .abs_diff_eq(head(&original, "head") + DVec3::new(0.0, 0.0, 0.05), 1e-9)
    );
    assert!(head(&moved, "foot.L").abs_diff_eq(head(&original, "foot.L"), 1e-12));
}

#[test]
fn every_shipped_rig_writes_back_as_version_110_and_reads_the_same() {
    let data = test_support::mpfb_data_or_skip!(
        every_shipped_rig_writes_back_as_version_110_and_reads_the_same
    );
    for path in rig_files(&data) {
        let rig = read_rig_file(&path).unwrap();
        let text = serde_json::to_string_pretty(&mpfb_rig::rig_to_json(&rig)).unwrap();
        // Bone by bone, the same text.
        assert_eq!(
            serde_json::to_string_pretty(&mpfb_rig::RigJson(&rig)).unwrap(),
            text,
            "{}",
            path.display()
        );
        let again = mpfb_rig::parse_rig(&text).unwrap();
        assert_eq!(again.source_layout, RigLayout::V110);
        assert_eq!(again.header, rig.header, "{}", path.display());
        assert_eq!(again.bones, rig.bones, "{}", path.display());
        if rig.source_layout == RigLayout::V110 {
            // A version 110 file comes back key for key as MPFB wrote it.
            let original: serde_json::Value =
                serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
            assert_eq!(mpfb_rig::rig_to_json(&rig), original, "{}", path.display());
        }
    }
}
