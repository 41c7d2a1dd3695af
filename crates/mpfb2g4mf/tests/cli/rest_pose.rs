//! `convert --rest-pose t-pose`: a computed T-pose for a rig without MPFB's T-pose file, and
//! the bake against what Blender makes of MPFB's T-pose files.

use crate::common::{bone_frames, run, stderr};
use g4mf_model::JointRef;
use g4mf_reader::{ReadOptions, read_path};
use glam::DVec3;

/// A computed T-pose for mixamo (no MPFB T-pose file): upper arms, forearms and hands within
/// 2 degrees of the side axis, and the hands far from the body.
#[test]
fn a_computed_t_pose_puts_the_arms_along_the_side_axis() {
    let Some(data) = test_support::mpfb_data_or_skip("a_computed_t_pose") else {
        return;
    };
    let out = tempfile::tempdir().unwrap();
    let model = out.path().join("t.g4b");
    let result = run(&[
        "convert",
        "--rig-name",
        "mixamo",
        "--mpfb-data",
        data.to_str().unwrap(),
        "--rest-pose",
        "t-pose",
        "--face-units",
        "--validate",
        "--json",
        "-o",
        model.to_str().unwrap(),
    ]);
    assert!(result.status.success(), "{}", stderr(&result));
    let summary: serde_json::Value = serde_json::from_slice(&result.stdout).unwrap();
    assert!(
        summary["notes"]
            .as_array()
            .unwrap()
            .iter()
            .any(|w| w.as_str().unwrap().contains("computed T-pose")),
        "{summary}"
    );
    let file = read_path(&model, &ReadOptions::default()).unwrap();
    // The face units came along, turned with their vertices, and the file validated above.
    assert_eq!(
        file.document.meshes[0].blend.as_ref().unwrap().shapes.len(),
        52
    );
    let frames = bone_frames(&file);
    for (side, axis) in [("Left", DVec3::X), ("Right", DVec3::NEG_X)] {
        for part in ["Arm", "ForeArm", "Hand"] {
            let (_, y, _) = frames[&format!("mixamorig:{side}{part}")];
            let degrees = y.angle_between(axis).to_degrees();
            assert!(
                degrees < 2.0,
                "{side}{part}: {degrees} degrees off the side axis"
            );
        }
    }
    // Hand vertices (mostly moved by hand and finger bones) against body vertices (moved by
    // hips, spine and legs).
    let doc = &file.document;
    let skin = doc.meshes[0].skin.as_ref().unwrap();
    let joints: Vec<String> = doc
        .nodes
        .iter()
        .find_map(|n| n.skeleton.as_ref())
        .unwrap()
        .joints
        .iter()
        .map(|j| match j {
            JointRef::Node(n) => doc.nodes[n.get()].extras.as_ref().unwrap()["mpfb"]["name"]
                .as_str()
                .unwrap()
                .to_owned(),
            JointRef::Uncontrolled => String::new(),
        })
        .collect();
    let vertices = file.read_u64(skin.vertices).unwrap();
    let groups = file.read_u64(skin.groups).unwrap();
    let positions = file.read_f64(doc.meshes[0].vertices).unwrap();
    let position = |v: u64| DVec3::from_slice(&positions[v as usize * 3..v as usize * 3 + 3]);
    // Weights are descending: a vertex's first entry is its strongest bone.
    let (mut hands, mut body) = (Vec::new(), Vec::new());
    for i in 0..vertices.len() {
        if i > 0 && vertices[i - 1] == vertices[i] {
            continue;
        }
        let bone = &joints[groups[i] as usize];
        if bone.contains("Hand") {
            hands.push(position(vertices[i]));
        } else if ["Hips", "Spine", "UpLeg", "Leg"]
            .iter()
            .any(|b| bone.ends_with(b))
        {
            body.push(position(vertices[i]));
        }
    }
    assert!(hands.len() > 100 && body.len() > 1000);
    let nearest = hands
        .iter()
        .map(|h| {
            body.iter()
                .map(|b| h.distance(*b))
                .fold(f64::INFINITY, f64::min)
        })
        .fold(f64::INFINITY, f64::min);
    assert!(nearest > 0.3, "a hand vertex is {nearest} m from the body");
}

/// The T-pose bake against Blender itself: `cargo xtask blender-pose-check` saved what
/// Blender's armature modifier makes of each rig with its MPFB T-pose file (every 10th
/// vertex, every posed bone head, G4MF space); our `--rest-pose t-pose` agrees within 0.5 mm.
#[test]
fn t_pose_bake_matches_blender() {
    let Some(data) = test_support::mpfb_data_or_skip("t_pose_bake_matches_blender") else {
        return;
    };
    let out = tempfile::tempdir().unwrap();
    for rig in ["default", "game_engine", "cmu_mb"] {
        let fixture: serde_json::Value = serde_json::from_slice(
            &std::fs::read(
                test_support::workspace_root().join(format!("fixtures/blender/t-pose-{rig}.json")),
            )
            .unwrap(),
        )
        .unwrap();
        let model = out.path().join(format!("{rig}.g4b"));
        // Every vertex kept (the fixture uses base.obj's numbering), the mesh origin kept.
        let result = run(&[
            "convert",
            "--rig-name",
            rig,
            "--mpfb-data",
            data.to_str().unwrap(),
            "--rest-pose",
            "t-pose",
            "--helpers",
            "all",
            "--origin",
            "mesh",
            "--validate",
            "--quiet",
            "-o",
            model.to_str().unwrap(),
        ]);
        assert!(result.status.success(), "{rig}: {}", stderr(&result));
        let file = read_path(&model, &ReadOptions::default()).unwrap();
        let positions = file.read_f64(file.document.meshes[0].vertices).unwrap();
        let stride = fixture["vertex_stride"].as_u64().unwrap() as usize;
        let point = |v: &serde_json::Value| {
            DVec3::new(
                v[0].as_f64().unwrap(),
                v[1].as_f64().unwrap(),
                v[2].as_f64().unwrap(),
            )
        };
        let mut worst_vertex: f64 = 0.0;
        for (k, expected) in fixture["vertices"].as_array().unwrap().iter().enumerate() {
            let v = k * stride;
            let ours = DVec3::from_slice(&positions[v * 3..v * 3 + 3]);
            worst_vertex = worst_vertex.max(ours.distance(point(expected)));
        }
        let frames = bone_frames(&file);
        let mut worst_head: f64 = 0.0;
        for (bone, expected) in fixture["heads"].as_object().unwrap() {
            worst_head = worst_head.max(frames[bone].0.distance(point(expected)));
        }
        assert!(
            worst_vertex < 5e-4 && worst_head < 5e-4,
            "{rig}: vertices off by up to {worst_vertex} m, bone heads by {worst_head} m"
        );
        eprintln!(
            "{rig}: vertices within {worst_vertex:.2e} m, heads within {worst_head:.2e} m of Blender"
        );
    }
}
