//! MakeHuman's BVH poses and clips through `convert`: `--pose` baked into the rest on every
//! shipped rig (checked on what a pose means: a character sitting on the floor has its hips
//! low and its thighs level; a T-pose has level arms), worn assets following, a description's
//! `pose` line (a one-frame clip in glTF, baked in G4MF), `--animation` clips keyed by the
//! file's frame time, and the refusals.

use crate::common::{bone_frames, run, stderr};
use g4mf_reader::{ReadOptions, read_path};
use glam::DVec3;
use std::path::{Path, PathBuf};

/// The shipped files these tests read, relative to the assets folder.
const NEEDED: [&str; 4] = [
    "poses/sit01.bvh",
    "poses/tpose.bvh",
    "rigs/default.mhskel",
    "rigs/game_engine.mhskel",
];

/// Each rig's hips and left thigh bones (their MPFB names).
const RIGS: [(&str, &str, &str); 4] = [
    ("default", "root", "upperleg01.L"),
    ("game_engine", "pelvis", "thigh_l"),
    ("cmu_mb", "Hips", "LeftUpLeg"),
    ("mixamo", "mixamorig:Hips", "mixamorig:LeftUpLeg"),
];

fn inputs(test: &str) -> Option<(PathBuf, PathBuf)> {
    let data = test_support::mpfb_data_or_skip(test)?;
    let mut needed = NEEDED.to_vec();
    needed.push("rigs/cmu_mb.mhskel");
    let assets = test_support::makehuman_assets_or_skip(test, &needed)?;
    Some((data, assets))
}

/// `convert --rig-name RIG` with the data and assets folders, no eyes, then `extra`.
fn convert(data: &Path, assets: &Path, rig: &str, out: &Path, extra: &[&str]) -> String {
    let mut args = vec![
        "convert",
        "--rig-name",
        rig,
        "--mpfb-data",
        data.to_str().unwrap(),
        "--assets",
        assets.to_str().unwrap(),
        "--eyes",
        "none",
        "-o",
        out.to_str().unwrap(),
    ];
    args.extend(extra);
    let output = run(&args);
    assert!(output.status.success(), "{rig}: {}", stderr(&output));
    stderr(&output)
}

/// The vertices of every mesh of a G4MF file, mesh by mesh (the body first).
fn mesh_vertices(path: &Path) -> Vec<Vec<DVec3>> {
    let file = read_path(path, &ReadOptions::default()).unwrap();
    file.document
        .meshes
        .iter()
        .map(|m| {
            file.read_f64(m.vertices)
                .unwrap()
                .chunks_exact(3)
                .map(|p| DVec3::new(p[0], p[1], p[2]))
                .collect()
        })
        .collect()
}

/// The largest distance from a sample of `points` to their nearest vertex of `body`.
fn farthest_from(points: &[DVec3], body: &[DVec3]) -> f64 {
    points
        .iter()
        .step_by(7)
        .map(|p| {
            body.iter()
                .map(|b| b.distance_squared(*p))
                .fold(f64::INFINITY, f64::min)
                .sqrt()
        })
        .fold(0.0, f64::max)
}

#[test]
fn a_bvh_pose_sits_every_rig_on_the_floor_with_its_clothes_on() {
    let Some((data, assets)) = inputs("a_bvh_pose_sits_every_rig_on_the_floor") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    for (rig, hips, thigh) in RIGS {
        let standing = dir.path().join(format!("{rig}-standing.g4b"));
        let sitting = dir.path().join(format!("{rig}-sitting.g4b"));
        convert(&data, &assets, rig, &standing, &[]);
        let said = convert(&data, &assets, rig, &sitting, &["--pose", "sit01"]);
        assert!(
            said.contains("note      POSE_BAKED: pose sit01 (frame 1 of sit01.bvh)")
                && said.contains("baked into the rest"),
            "{rig}: {said}"
        );
        let route = match rig {
            "default" => "bone by bone",
            "game_engine" => "through game_engine.mhskel's reference bones",
            "cmu_mb" => "through cmu_mb.mhskel's reference bones",
            _ => "by humanoid names",
        };
        assert!(said.contains(route), "{rig}: {said}");
        let before = bone_frames(&read_path(&standing, &ReadOptions::default()).unwrap());
        let after = bone_frames(&read_path(&sitting, &ReadOptions::default()).unwrap());
        // Standing, the hips are about a metre up and the thighs hang down; sitting on the
        // floor (sit01: the right leg stretched out, the left knee drawn up), the hips are
        // low and the left thigh rises forward.
        assert!(before[hips].0.y > 0.8, "{rig}: hips at {}", before[hips].0);
        assert!(after[hips].0.y < 0.35, "{rig}: hips at {}", after[hips].0);
        assert!(before[thigh].1.y < -0.9, "{rig}: thigh {}", before[thigh].1);
        let raised = after[thigh].1;
        assert!(raised.y > 0.3 && raised.z > 0.5, "{rig}: thigh {raised}");
    }
    // Worn assets follow the body: a dressed sitting character's clothes stay on it.
    let dressed = dir.path().join("dressed.g4b");
    convert(
        &data,
        &assets,
        "default",
        &dressed,
        &[
            "--pose",
            "sit01",
            "--clothes",
            "shoes01",
            "--keep-hidden-body",
        ],
    );
    let meshes = mesh_vertices(&dressed);
    assert!(meshes.len() >= 2, "no shoes written");
    let gap = farthest_from(&meshes[1], &meshes[0]);
    assert!(gap < 0.04, "a shoe vertex is {gap} m from the posed body");
}

#[test]
fn makehumans_t_pose_file_levels_the_arms_bone_by_bone() {
    let Some((data, assets)) = inputs("makehumans_t_pose_file_levels_the_arms") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("t.g4b");
    convert(&data, &assets, "default", &out, &["--pose", "tpose"]);
    let bones = bone_frames(&read_path(&out, &ReadOptions::default()).unwrap());
    // Arms along the side axis, the character's left to +X; legs straight down.
    for (bone, side) in [("upperarm01.L", DVec3::X), ("upperarm01.R", DVec3::NEG_X)] {
        let along = bones[bone].1;
        assert!(along.dot(side) > 0.97, "{bone} points {along}");
    }
    assert!(bones["upperleg01.L"].1.y < -0.95);
}

/// The glTF document and buffer of `path`.
fn gltf(path: &Path) -> (gltf_writer::json::Root, Vec<u8>) {
    test_support::gltf::read(path)
}

#[test]
fn a_descriptions_pose_is_a_one_frame_clip_in_gltf_and_baked_in_g4mf() {
    let Some((data, assets)) = inputs("a_descriptions_pose_is_a_one_frame_clip") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let mhm = dir.path().join("sitting.mhm");
    std::fs::write(
        &mhm,
        "version v1.1.1\nskeleton default.mhskel\npose poses/sit01.bvh\n",
    )
    .unwrap();
    let described = |out: &Path, extra: &[&str]| {
        let mut args = vec![
            "convert",
            "--human",
            mhm.to_str().unwrap(),
            "--mpfb-data",
            data.to_str().unwrap(),
            "--assets",
            assets.to_str().unwrap(),
            "--eyes",
            "none",
            "-o",
            out.to_str().unwrap(),
        ];
        args.extend(extra);
        let output = run(&args);
        assert!(output.status.success(), "{}", stderr(&output));
        stderr(&output)
    };
    let glb = dir.path().join("sitting.glb");
    let said = described(&glb, &[]);
    assert!(said.contains("clip sit01: 1 frame of sit01.bvh"), "{said}");
    assert!(!said.contains("baked into the rest"), "{said}");
    let plain = dir.path().join("plain.glb");
    described(&plain, &["--pose", "none"]);
    let (clipped, buffer) = gltf(&glb);
    let (unposed, _) = gltf(&plain);
    assert!(unposed.animations.is_empty());
    assert_eq!(clipped.animations.len(), 1);
    let animation = &clipped.animations[0];
    assert_eq!(animation.name.as_deref(), Some("sit01"));
    let times =
        test_support::gltf::accessor(&clipped, &buffer, animation.samplers[0].input.value());
    assert_eq!(times, vec![vec![0.0]]);
    // The rest stays: every node's rest transform is the unposed file's.
    assert_eq!(clipped.nodes.len(), unposed.nodes.len());
    for (a, b) in clipped.nodes.iter().zip(&unposed.nodes) {
        assert_eq!(a.translation, b.translation, "{:?}", a.name);
        assert_eq!(
            a.rotation.map(|q| q.0),
            b.rotation.map(|q| q.0),
            "{:?}",
            a.name
        );
    }
    // G4MF has no clips: the line is baked, and the summary says where it came from.
    let g4b = dir.path().join("sitting.g4b");
    let said = described(&g4b, &[]);
    assert!(
        said.contains("baked into the rest (the description's pose line)"),
        "{said}"
    );
    // A `.vrm`'s rest is VRM's T-pose: the line is left out, and said.
    let vrm = dir.path().join("sitting.vrm");
    let said = described(&vrm, &[]);
    assert!(
        said.contains(
            "warning   DESCRIPTION_POSE_LEFT_OUT: not converted from sitting.mhm: pose poses/sit01.bvh"
        ),
        "{said}"
    );
    let said = described(&vrm, &["--pose", "none"]);
    assert!(!said.contains("pose poses/sit01.bvh"), "{said}");
}

/// `Frame Time:` of a BVH file.
fn frame_time(path: &Path) -> f64 {
    let text = std::fs::read_to_string(path).unwrap();
    let line = text.lines().find(|l| l.starts_with("Frame Time:")).unwrap();
    line["Frame Time:".len()..].trim().parse().unwrap()
}

#[test]
fn animation_clips_key_every_bone_node_at_the_files_frame_time() {
    let Some((data, _)) = inputs("animation_clips_key_every_bone_node") else {
        return;
    };
    let walks = test_support::makehuman_assets_or_skip!(
        animation_clips_key_every_bone_node_at_the_files_frame_time,
        &["animations/walks/walk1.bvh"]
    );
    let walk = walks.join("animations/walks/walk1.bvh");
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("walk.glb");
    let clip = format!("stroll={}", walk.display());
    let output = run(&[
        "convert",
        "--rig-name",
        "mixamo",
        "--mpfb-data",
        data.to_str().unwrap(),
        "--animation",
        &clip,
        "-o",
        out.to_str().unwrap(),
    ]);
    let said = stderr(&output);
    assert!(output.status.success(), "{said}");
    // A foreign skeleton (the walk's own joint names): matched by humanoid names, and the
    // root left in place, both said.
    assert!(
        said.contains(
            "note      CLIP_MADE: clip stroll: 14 frames of walk1.bvh, by humanoid names"
        ),
        "{said}"
    );
    assert!(
        said.contains("warning   POSE_ROOT_IN_PLACE: pose stroll: the root stays in place"),
        "{said}"
    );
    let (root, buffer) = gltf(&out);
    assert_eq!(root.animations.len(), 1);
    let animation = &root.animations[0];
    assert_eq!(animation.name.as_deref(), Some("stroll"));
    let step = frame_time(&walk);
    let times = test_support::gltf::accessor(&root, &buffer, animation.samplers[0].input.value());
    assert_eq!(times.len(), 14);
    for (k, t) in times.iter().enumerate() {
        assert!((t[0] - k as f64 * step).abs() < 1e-6, "key {k} at {t:?}");
    }
    // A rotation channel per bone node (52 bones in mixamo's rig), a translation channel for
    // the root bone only.
    let paths: Vec<String> = animation
        .channels
        .iter()
        .map(|c| format!("{:?}", c.target.path))
        .collect();
    let rotations = paths.iter().filter(|p| p.contains("Rotation")).count();
    let translations = paths.iter().filter(|p| p.contains("Translation")).count();
    assert_eq!((rotations, translations), (52, 1), "{paths:?}");
    // The walk turns the thighs from key to key.
    let thigh = root
        .nodes
        .iter()
        .position(|n| n.name.as_deref() == Some("mixamorig_LeftUpLeg"))
        .unwrap();
    let channel = animation
        .channels
        .iter()
        .find(|c| {
            c.target.node.value() == thigh && format!("{:?}", c.target.path).contains("Rotation")
        })
        .unwrap();
    let keys = test_support::gltf::accessor(
        &root,
        &buffer,
        animation.samplers[channel.sampler.value()].output.value(),
    );
    let turned = keys
        .windows(2)
        .any(|w| (0..4).map(|i| (w[0][i] - w[1][i]).abs()).sum::<f64>() > 0.01);
    assert!(turned, "the left thigh keeps still: {keys:?}");
}

#[test]
fn poses_and_clips_are_refused_where_they_cannot_go() {
    let Some((data, assets)) = inputs("poses_and_clips_are_refused") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let sit = assets.join("poses/sit01.bvh");
    let sit = sit.to_str().unwrap();
    let clip = format!("sit={sit}");
    let twin = format!("Sit={sit}");
    let past = format!("{sit}@2");
    let cases: Vec<(&str, Vec<&str>, &str)> = vec![
        (
            "both.g4b",
            vec!["--pose", "sit01", "--rest-pose", "t-pose"],
            "--pose sit01 and --rest-pose cannot be given together",
        ),
        (
            "avatar.vrm",
            vec!["--pose", "sit01"],
            "--pose sit01 cannot make",
        ),
        (
            "clip.g4b",
            vec!["--animation", &clip],
            "G4MF has no animation section",
        ),
        (
            "clip.vrm",
            vec!["--animation", &clip, "--animation", &twin],
            "clips `sit` and `Sit` would be one .vrma file",
        ),
        ("near.g4b", vec!["--pose", "sit1"], "did you mean `sit01`?"),
        (
            "past.g4b",
            vec!["--pose", &past],
            "frame 2 asked, the file has 1",
        ),
        ("bad.g4b", vec!["--pose", "a.bvh@0"], "whole number from 1"),
    ];
    for (name, flags, expected) in cases {
        let out = dir.path().join(name);
        let mut args = vec![
            "convert",
            "--rig-name",
            "default",
            "--mpfb-data",
            data.to_str().unwrap(),
            "--assets",
            assets.to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
        ];
        args.extend(flags.iter().copied());
        let output = run(&args);
        let said = stderr(&output);
        assert!(!output.status.success(), "{name}: {said}");
        assert!(said.contains(expected), "{name}: {said}");
        assert_eq!(said.trim().lines().count(), 1, "{name}: {said}");
        assert!(!out.exists(), "{name} was written");
    }
}

/// The stems of `folder`'s files ending in `.extension`, sorted.
fn stems(folder: &Path, extension: &str) -> Vec<String> {
    let mut out: Vec<String> = std::fs::read_dir(folder)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == extension))
        .map(|p| p.file_stem().unwrap().to_string_lossy().into_owned())
        .collect();
    out.sort();
    out
}

/// One rig's manifest: a job per expression and per pose (baked, validated), one with every
/// expression as a shape, one `.glb` with every pose as a clip.
fn motion_manifest(rig: &str, expressions: &[String], poses: &[String], assets: &Path) -> String {
    let mut text = String::new();
    for name in expressions {
        text.push_str(&format!(
            "[[jobs]]\nrig_name = \"{rig}\"\nexpression = \"{name}\"\noutput = \"{rig}/x-{name}.g4b\"\n"
        ));
    }
    for name in poses {
        text.push_str(&format!(
            "[[jobs]]\nrig_name = \"{rig}\"\npose = \"{name}\"\noutput = \"{rig}/p-{name}.g4b\"\n"
        ));
    }
    let clips: Vec<String> = poses
        .iter()
        .map(|p| {
            let file = assets.join("poses").join(format!("{p}.bvh"));
            format!("\"{p}={}\"", file.display())
        })
        .collect();
    text.push_str(&format!(
        "[[jobs]]\nrig_name = \"{rig}\"\nexpression_shapes = \"all\"\noutput = \"{rig}/shapes.g4b\"\n\
         [[jobs]]\nrig_name = \"{rig}\"\nanimations = [{}]\noutput = \"{rig}/clips.glb\"\n",
        clips.join(", ")
    ));
    text
}

#[test]
fn one_batch_a_rig_converts_every_expression_and_pose_of_makehuman() {
    let test = "one_batch_a_rig_converts_every_expression_and_pose";
    let Some((data, assets)) = inputs(test) else {
        return;
    };
    let mut needed: Vec<&str> = mpfb2g4mf::expressions::MAKEHUMAN_FILES.to_vec();
    needed.push("expressions/smile01.mhpose");
    let Some(assets) = test_support::makehuman_assets_or_skip(test, &needed).map(|_| assets) else {
        return;
    };
    let expressions = stems(&assets.join("expressions"), "mhpose");
    let poses = stems(&assets.join("poses"), "bvh");
    assert_eq!((expressions.len(), poses.len()), (32, 17));
    let dir = tempfile::tempdir().unwrap();
    for (rig, _, _) in RIGS {
        let manifest = dir.path().join(format!("{rig}.toml"));
        std::fs::write(
            &manifest,
            format!(
                "[defaults]\nmpfb_data = \"{}\"\nassets = \"{}\"\neyes = \"none\"\n\n{}",
                data.display(),
                assets.display(),
                motion_manifest(rig, &expressions, &poses, &assets)
            ),
        )
        .unwrap();
        let report = dir.path().join(format!("{rig}.json"));
        let result = run(&[
            "batch",
            manifest.to_str().unwrap(),
            "--quiet",
            "--validate",
            "--report",
            report.to_str().unwrap(),
        ]);
        assert!(result.status.success(), "{rig}: {}", stderr(&result));
        let records: serde_json::Value =
            serde_json::from_slice(&std::fs::read(&report).unwrap()).unwrap();
        let records = records.as_array().unwrap();
        assert_eq!(records.len(), 32 + 17 + 2, "{rig}");
        for record in records {
            assert_eq!(record["status"], "ok", "{rig}: {record}");
            let text = record["warnings"].to_string();
            assert!(!text.contains("not converted"), "{rig}: {text}");
        }
        // Every expression a shape moving the face and nothing below the neck: on MakeHuman's
        // base mesh the clavicles' heads, where the neck ends, are 0.196 of the height below
        // the top (the jaw's weights reach the front of the neck, down to 0.179).
        let file = read_path(
            &dir.path().join(format!("{rig}/shapes.g4b")),
            &ReadOptions::default(),
        )
        .unwrap();
        let rest = crate::shapes::rest_positions(&file);
        let top = rest.values().map(|q| q[1]).fold(f64::MIN, f64::max);
        let bottom = rest.values().map(|q| q[1]).fold(f64::MAX, f64::min);
        let neck = top - 0.19 * (top - bottom);
        for name in &expressions {
            let offsets = crate::shapes::shape_offsets(&file, name).unwrap();
            let moved: Vec<&u32> = offsets
                .iter()
                .filter(|(_, d)| d.iter().any(|c| c.abs() > 1e-5))
                .map(|(v, _)| v)
                .collect();
            assert!(
                moved.len() > 20,
                "{rig}: {name} moves {} vertices",
                moved.len()
            );
            let low = moved.iter().find(|v| rest[**v][1] < neck);
            assert!(
                low.is_none(),
                "{rig}: {name} moves vertex {low:?} below the neck"
            );
        }
        let clips = dir.path().join(format!("{rig}/clips.glb"));
        let (root, _) = gltf(&clips);
        assert_eq!(root.animations.len(), 17, "{rig}");
        if let Some(reports) = test_support::clients::gltf_validator(test, &[&clips]) {
            test_support::clients::assert_no_validator_issues(&reports);
        }
    }
}

#[test]
fn a_population_draws_its_poses_and_expressions_from_lists_with_its_seed() {
    let test = "a_population_draws_its_poses_and_expressions";
    let Some((data, assets)) = inputs(test) else {
        return;
    };
    let mut needed: Vec<&str> = mpfb2g4mf::expressions::MAKEHUMAN_FILES.to_vec();
    needed.extend(["expressions/smile01.mhpose", "expressions/anger01.mhpose"]);
    if test_support::makehuman_assets_or_skip(test, &needed).is_none() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let manifest = dir.path().join("people.toml");
    std::fs::write(
        &manifest,
        format!(
            r#"[defaults]
mpfb_data = "{}"
assets = "{}"
eyes = "none"

[population]
rig_name = "game_engine"
count = 6
seed = 7
output = "out/person-{{index}}.g4b"
[population.ranges]
gender = [0.0, 1.0]
[population.draw]
expression = ["smile01", "anger01"]
pose = ["sit01", "tpose"]
"#,
            data.display(),
            assets.display()
        ),
    )
    .unwrap();
    let hips = || -> Vec<f64> {
        let result = run(&["batch", manifest.to_str().unwrap(), "--quiet"]);
        assert!(result.status.success(), "{}", stderr(&result));
        (0..6)
            .map(|i| {
                let path = dir.path().join(format!("out/person-{i}.g4b"));
                bone_frames(&read_path(&path, &ReadOptions::default()).unwrap())["pelvis"]
                    .0
                    .y
            })
            .collect()
    };
    let first = hips();
    // The same seed draws the same: the same bodies in the same poses.
    assert_eq!(first, hips());
    // Both poses were drawn: some bodies sit on the floor, the others stand in a T-pose.
    let sitting = first.iter().filter(|&&y| y < 0.35).count();
    let standing = first.iter().filter(|&&y| y > 0.8).count();
    assert_eq!(sitting + standing, 6, "{first:?}");
    assert!(sitting > 0 && standing > 0, "{first:?}");
}

/// The rig's humanoid names are decided once per job: a pose retargeted by humanoid names
/// takes the user's `--humanoid-map` table, as the renaming does, not the rig's shipped one.
#[test]
fn a_pose_by_humanoid_names_takes_the_users_humanoid_map() {
    let Some((data, assets)) = inputs("a_pose_by_humanoid_names_takes_the_users_humanoid_map")
    else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let table = dir.path().join("my-mixamo.json");
    let shipped = Path::new(env!("CARGO_MANIFEST_DIR")).join("humanoid/mixamo.json");
    std::fs::copy(shipped, &table).unwrap();
    let said = convert(
        &data,
        &assets,
        "mixamo",
        &dir.path().join("sitting.g4b"),
        &["--pose", "sit01", "--humanoid-map", table.to_str().unwrap()],
    );
    let route = format!("by humanoid names (table {} of the rig", table.display());
    assert!(said.contains(&route), "{said}");
}
