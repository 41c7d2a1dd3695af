//! The real `mpfb2g4mf` binary end to end: every shipped rig in every container, read back and
//! checked (skeleton and skin rules, fitted positions, weight preservation), a morphed body,
//! and the error paths (exit codes, one-line messages, no file left behind).

#![allow(clippy::unwrap_used)] // Tests fail loudly by design.

mod common;

use common::{bin, world_transforms};
use g4mf_model::JointRef;
use g4mf_reader::{G4mfFile, ReadOptions, read_path};
use glam::DVec3;
use mpfb_rig::{ObjFrame, fit};
use mpfb2g4mf::{LoadedMesh, LoadedRig};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn run(args: &[&str]) -> Output {
    bin().args(args).output().unwrap()
}

/// `convert --rig-name default --mpfb-data DATA EXTRA... --quiet -o OUT`, ready to run (the
/// caller may still set environment variables on it).
fn convert_default(data: &Path, out: &Path, extra: &[&str]) -> Command {
    let mut command = bin();
    command
        .args(["convert", "--rig-name", "default", "--mpfb-data"])
        .arg(data)
        .args(extra)
        .args(["--quiet", "-o"])
        .arg(out);
    command
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// Rigs with their weights file, if any.
fn shipped_rigs(data: &Path) -> Vec<(PathBuf, Option<PathBuf>)> {
    test_support::test_rig_files(data)
        .into_iter()
        .map(|rig| {
            let name = rig
                .file_name()
                .unwrap()
                .to_str()
                .unwrap()
                .replacen("rig.", "weights.", 1);
            let weights = rig.with_file_name(name);
            (rig, weights.is_file().then_some(weights))
        })
        .collect()
}

/// The skeleton and skin rules of the spec, on a file we wrote.
fn check_rules(file: &G4mfFile) {
    let doc = &file.document;
    let root = &doc.nodes[0];
    assert!(
        root.position.is_none()
            && root.basis.is_none()
            && root.scale.is_none()
            && root.rotor.is_none()
    );
    let skeleton_index = root.children[0].get();
    let skeleton = &doc.nodes[skeleton_index];
    let joints = &skeleton.skeleton.as_ref().unwrap().joints;
    let mut parent_of = vec![None; doc.nodes.len()];
    for (i, n) in doc.nodes.iter().enumerate() {
        for c in &n.children {
            assert!(parent_of[c.get()].is_none(), "node {} has two parents", c);
            parent_of[c.get()] = Some(i);
        }
    }
    let mut names = std::collections::HashSet::new();
    for n in &doc.nodes {
        let name = n.name.as_deref().unwrap();
        assert!(g4mf_writer::is_valid_name(name), "{name}");
        assert!(names.insert(name.to_owned()), "duplicate name {name}");
    }
    // Bones: parent is a bone or the skeleton; joints strictly increasing bones, parents first.
    for (i, n) in doc.nodes.iter().enumerate() {
        if let Some(bone) = &n.bone {
            let p = parent_of[i].unwrap();
            assert!(p == skeleton_index || doc.nodes[p].bone.is_some());
            assert!(bone.length.unwrap() >= 0.0);
        }
    }
    let joint_nodes: Vec<usize> = joints
        .iter()
        .map(|j| match j {
            JointRef::Node(n) => n.get(),
            JointRef::Uncontrolled => panic!("-1 joint"),
        })
        .collect();
    assert!(
        joint_nodes.windows(2).all(|w| w[0] < w[1]),
        "joints strictly increasing"
    );
    assert!(joint_nodes.iter().all(|&j| doc.nodes[j].bone.is_some()));
    let root_bones: Vec<usize> = skeleton
        .children
        .iter()
        .map(|c| c.get())
        .filter(|&c| doc.nodes[c].bone.is_some())
        .collect();
    if root_bones.len() == 1 {
        assert_eq!(
            skeleton.children[0].get(),
            root_bones[0],
            "single root bone is the first child"
        );
        if joint_nodes.contains(&root_bones[0]) {
            assert_eq!(joint_nodes[0], root_bones[0]);
        }
    }
    // The skinned mesh is on a direct child of the skeleton.
    let mesh_node = skeleton
        .children
        .iter()
        .map(|c| c.get())
        .find(|&c| doc.nodes[c].mesh_instance.is_some())
        .unwrap();
    let mesh = &doc.meshes[doc.nodes[mesh_node]
        .mesh_instance
        .as_ref()
        .unwrap()
        .mesh
        .get()];
    let vertex_count = file.read_f64(mesh.vertices).unwrap().len() / 3;
    for surface in &mesh.surfaces {
        let simplexes = file.read_u64(surface.simplexes.unwrap()).unwrap();
        assert_eq!(simplexes.len() % 3, 0);
        assert!(simplexes.iter().all(|&v| (v as usize) < vertex_count));
    }
    if let Some(skin) = &mesh.skin {
        let v = file.read_u64(skin.vertices).unwrap();
        let g = file.read_u64(skin.groups).unwrap();
        let w = file.read_f64(skin.weights).unwrap();
        assert!(v.len() == g.len() && g.len() == w.len());
        for i in 1..v.len() {
            assert!(v[i - 1] <= v[i]);
            if v[i - 1] == v[i] {
                assert!(w[i - 1] >= w[i]);
            }
        }
        assert!(v.iter().all(|&x| (x as usize) < vertex_count));
        assert!(g.iter().all(|&x| (x as usize) < joints.len()));
        let names = skin.group_names.as_ref().unwrap();
        assert_eq!(names.len(), joints.len());
        for (name, j) in names.iter().zip(&joint_nodes) {
            assert_eq!(doc.nodes[*j].name.as_ref(), Some(name));
        }
    }
}

/// Checks bone positions against mpfb-rig's fit and weights against the input file.
fn check_content(file: &G4mfFile, rig_path: &Path, weights: Option<&Path>, mesh_path: &Path) {
    let doc = &file.document;
    let rig = LoadedRig::load(rig_path).unwrap();
    let mesh = LoadedMesh::load(mesh_path, None).unwrap();
    let frame = ObjFrame::MAKEHUMAN;
    let fit_mesh = mesh.fit_mesh(frame);
    let fitted = fit(&rig.rig, &fit_mesh).unwrap();
    let world = world_transforms(doc);
    let skeleton_offset = world[1].0;
    let by_mpfb_name: BTreeMap<String, usize> = doc
        .nodes
        .iter()
        .enumerate()
        .filter_map(|(i, n)| {
            Some((
                n.extras
                    .as_ref()?
                    .get("mpfb")?
                    .get("name")?
                    .as_str()?
                    .to_owned(),
                i,
            ))
        })
        .collect();
    assert_eq!(
        by_mpfb_name.len(),
        rig.rig.bones.len(),
        "every bone keeps its MPFB name"
    );
    for (bone, fb) in rig.rig.bones.iter().zip(&fitted.bones) {
        let node = by_mpfb_name[&bone.name];
        let (position, basis) = world[node];
        assert!(
            (position - skeleton_offset).abs_diff_eq(fb.head, 1e-9),
            "{}",
            bone.name
        );
        assert!(basis.abs_diff_eq(fb.basis, 1e-9), "{}", bone.name);
        assert!((doc.nodes[node].bone.as_ref().unwrap().length.unwrap() - fb.length).abs() < 1e-12);
    }
    // The character stands on y = 0: the ground cube's centre lands there.
    let ground = mpfb_rig::space::blender_to_g4mf(fit_mesh.cube_centre("joint-ground").unwrap());
    assert!((ground.y + skeleton_offset.y).abs() < 1e-12);

    let Some(weights) = weights else {
        assert!(doc.meshes[0].skin.is_none(), "no weights: unskinned mesh");
        return;
    };
    let input = mpfb_weights::read_weights_file(weights).unwrap();
    let skin = doc.meshes[0].skin.as_ref().unwrap();
    let v = file.read_u64(skin.vertices).unwrap();
    let g = file.read_u64(skin.groups).unwrap();
    let w = file.read_f64(skin.weights).unwrap();
    let names = skin.group_names.as_ref().unwrap();
    let mut written: BTreeMap<(u64, String), f64> = BTreeMap::new();
    for i in 0..v.len() {
        let node = doc
            .nodes
            .iter()
            .find(|n| n.name.as_ref() == Some(&names[g[i] as usize]))
            .unwrap();
        let mpfb = node.extras.as_ref().unwrap()["mpfb"]["name"]
            .as_str()
            .unwrap()
            .to_owned();
        written.insert((v[i], mpfb), w[i]);
    }
    // The body is vertices 0..=13379 in the same order: every body pair appears with its
    // weight (f32), and nothing else.
    let mut expected: BTreeMap<(u64, String), f64> = BTreeMap::new();
    for group in &input.groups {
        for &(vertex, weight) in &group.pairs {
            if vertex < 13380 && weight != 0.0 {
                *expected
                    .entry((u64::from(vertex), group.name.clone()))
                    .or_default() += weight;
            }
        }
    }
    assert_eq!(written.len(), expected.len(), "{}", weights.display());
    for (key, weight) in &expected {
        assert_eq!(written[key] as f32, *weight as f32, "{key:?}");
    }
    // Per-vertex totals equal.
    let mut totals_in: BTreeMap<u64, f64> = BTreeMap::new();
    let mut totals_out: BTreeMap<u64, f64> = BTreeMap::new();
    for ((vertex, _), weight) in &expected {
        *totals_in.entry(*vertex).or_default() += weight;
    }
    for ((vertex, _), weight) in &written {
        *totals_out.entry(*vertex).or_default() += weight;
    }
    for (vertex, total) in totals_in {
        assert!(
            (totals_out[&vertex] - total).abs() < 1e-5,
            "vertex {vertex}"
        );
    }
}

#[test]
fn every_shipped_rig_converts_in_every_container() {
    let Some(data) = test_support::mpfb_data_or_skip("every_shipped_rig_converts") else {
        return;
    };
    let out = tempfile::tempdir().unwrap();
    let mesh = data.join("3dobjs/base.obj");
    for (rig, weights) in shipped_rigs(&data) {
        let stem = rig.file_stem().unwrap().to_str().unwrap().to_owned();
        for (extension, extra) in [
            ("g4b", None),
            ("g4tf", None),
            ("g4tf", Some("--external-bin")),
        ] {
            for compress in ["none", "zstd"] {
                let output = out
                    .path()
                    .join(format!("{stem}-{compress}-{}.{extension}", extra.is_some()));
                let mut args = vec![
                    "convert",
                    "--helpers",
                    "none",
                    "--rig",
                    rig.to_str().unwrap(),
                    "--mesh",
                    mesh.to_str().unwrap(),
                    "-o",
                    output.to_str().unwrap(),
                    "--compress",
                    compress,
                    "--compress-level",
                    "3",
                ];
                if let Some(w) = &weights {
                    args.extend(["--weights", w.to_str().unwrap()]);
                }
                args.extend(extra);
                let result = run(&args);
                assert!(result.status.success(), "{args:?}: {}", stderr(&result));
                assert!(
                    stderr(&result).contains("0 fallbacks"),
                    "{}",
                    stderr(&result)
                );
                let file = read_path(&output, &ReadOptions::default()).unwrap();
                check_rules(&file);
                check_content(&file, &rig, weights.as_deref(), &mesh);
                let report = g4mf_validator::validate_path(
                    &output,
                    &g4mf_validator::ValidateOptions::default(),
                );
                assert!(
                    report.is_valid(),
                    "{}: {:#?}",
                    output.display(),
                    report.findings
                );
                // Only the mixamo weights (sums 0.2..1.99 in MPFB's own file) warn.
                let expected: &[&str] = if stem.contains("mixamo") {
                    &["SKIN_WEIGHT_SUM"]
                } else {
                    &[]
                };
                assert_eq!(report.codes(), expected, "{}", output.display());
                // MakeHuman's quads are not planar: the body is written as plain triangles,
                // so the polytope MUST holds (the validator checks it when the flag is set).
                for surface in &file.document.meshes[0].surfaces {
                    assert!(!surface.polytope_simplexes, "{}", output.display());
                }
                if extra.is_some() {
                    // The buffer is named by its content, beside the file.
                    let uri = file.document.buffers[0].uri.clone().unwrap_or_default();
                    let stem = output.file_stem().unwrap().to_string_lossy().into_owned();
                    assert!(
                        uri.starts_with(&format!("{stem}.")) && uri.ends_with(".bin"),
                        "{uri}"
                    );
                    assert!(out.path().join(&uri).is_file(), "{uri}");
                }
            }
        }
    }
    // No temporary files are left in the output folder.
    assert!(
        std::fs::read_dir(out.path())
            .unwrap()
            .flatten()
            .all(|e| !e.file_name().to_string_lossy().ends_with(".part"))
    );
}

/// `base.obj`'s text with every `v` line moved by `f` (same vertex order, same faces).
fn base_obj_with(data: &Path, f: impl Fn([f64; 3]) -> [f64; 3]) -> String {
    let text = std::fs::read_to_string(data.join("3dobjs/base.obj")).unwrap();
    text.lines()
        .map(|line| match line.strip_prefix("v ") {
            Some(rest) => {
                let c: Vec<f64> = rest
                    .split_whitespace()
                    .map(|t| t.parse().unwrap())
                    .collect();
                let [x, y, z] = f([c[0], c[1], c[2]]);
                format!("v {x} {y} {z}\n")
            }
            None => format!("{line}\n"),
        })
        .collect()
}

#[test]
fn a_morphed_body_moves_the_skeleton() {
    let Some(data) = test_support::mpfb_data_or_skip("a_morphed_body_moves_the_skeleton") else {
        return;
    };
    let out = tempfile::tempdir().unwrap();
    // Same vertex order, different shape: everything above the hips stretched up by 10%.
    let morphed = base_obj_with(&data, |[x, y, z]| [x, if y > 0.0 { y * 1.1 } else { y }, z]);
    let morphed_path = out.path().join("tall.obj");
    std::fs::write(&morphed_path, morphed).unwrap();
    let rig = data.join("rigs/standard/rig.game_engine.json");
    let weights = data.join("rigs/standard/weights.game_engine.json");
    let convert = |mesh: &Path, name: &str| {
        let output = out.path().join(name);
        let result = run(&[
            "convert",
            "--helpers",
            "none",
            "--rig",
            rig.to_str().unwrap(),
            "--weights",
            weights.to_str().unwrap(),
            "--mesh",
            mesh.to_str().unwrap(),
            "-o",
            output.to_str().unwrap(),
        ]);
        assert!(result.status.success(), "{}", stderr(&result));
        let file = read_path(&output, &ReadOptions::default()).unwrap();
        check_rules(&file);
        check_content(&file, &rig, Some(&weights), mesh);
        world_transforms(&file.document)
            .into_iter()
            .zip(&file.document.nodes)
            .filter_map(|((p, _), n)| {
                Some((
                    n.extras
                        .as_ref()?
                        .get("mpfb")?
                        .get("name")?
                        .as_str()?
                        .to_owned(),
                    p,
                ))
            })
            .collect::<BTreeMap<String, DVec3>>()
    };
    let base = convert(&data.join("3dobjs/base.obj"), "base.g4b");
    let tall = convert(&morphed_path, "tall.g4b");
    // The head rises with the body (relative to the unchanged feet on the ground).
    let rise = tall["head"].y - base["head"].y;
    assert!(rise > 0.05, "head rose {rise} m");
    assert!(
        (tall["foot_l"] - base["foot_l"]).length() < 1e-9,
        "feet stay put"
    );
}

/// Every bone's world head and +Y axis, by MPFB name.
fn bone_frames(file: &G4mfFile) -> BTreeMap<String, (DVec3, DVec3, f64)> {
    world_transforms(&file.document)
        .into_iter()
        .zip(&file.document.nodes)
        .filter_map(|((p, b), n)| {
            let name = n.extras.as_ref()?.get("mpfb")?.get("name")?.as_str()?;
            Some((name.to_owned(), (p, b.y_axis, n.bone.as_ref()?.length?)))
        })
        .collect()
}

#[test]
fn a_body_in_metres_gives_the_same_skeleton_offsets_included() {
    let Some(data) = test_support::mpfb_data_or_skip(
        "a_body_in_metres_gives_the_same_skeleton_offsets_included",
    ) else {
        return;
    };
    let out = tempfile::tempdir().unwrap();
    // base.obj rewritten in metres, as Blender exports it.
    let metres = base_obj_with(&data, |v| v.map(|c| c * 0.1));
    let metres_path = out.path().join("base_metres.obj");
    std::fs::write(&metres_path, metres).unwrap();
    // The Rigify human has offset ends (face, nose_master, MCH-breast-parent, ...).
    let rig = data.join("rigs/rigify/rig.human.json");
    let convert = |mesh: &Path, scale: &str, name: &str| {
        let output = out.path().join(name);
        let result = run(&[
            "convert",
            "--rig",
            rig.to_str().unwrap(),
            "--mesh",
            mesh.to_str().unwrap(),
            "--mesh-scale",
            scale,
            "-o",
            output.to_str().unwrap(),
        ]);
        assert!(result.status.success(), "{}", stderr(&result));
        bone_frames(&read_path(&output, &ReadOptions::default()).unwrap())
    };
    let decimetres = convert(&data.join("3dobjs/base.obj"), "0.1", "dm.g4b");
    let metres = convert(&metres_path, "1", "m.g4b");
    assert_eq!(decimetres.len(), metres.len());
    let parsed = mpfb_rig::parse_rig(&std::fs::read_to_string(&rig).unwrap()).unwrap();
    let with_offsets: Vec<&str> = parsed
        .bones
        .iter()
        .filter(|b| b.head.offset.is_some() || b.tail.offset.is_some())
        .map(|b| b.name.as_str())
        .collect();
    for name in ["face", "nose_master", "MCH-breast-parent"] {
        assert!(with_offsets.contains(&name), "{name} has an offset");
    }
    for (name, (head, axis, length)) in &decimetres {
        let (m_head, m_axis, m_length) = metres[name];
        // OBJ text rounding of the rewritten file is the only difference (~1e-7 m).
        assert!(
            (head.distance(m_head)) < 1e-5
                && (length - m_length).abs() < 1e-5
                && axis.distance(m_axis) < 1e-4,
            "{name}: {head} {length} vs {m_head} {m_length}"
        );
    }
}

#[test]
fn rig_name_shortcut_json_summary_and_no_weights() {
    let Some(data) = test_support::mpfb_data_or_skip("rig_name_shortcut") else {
        return;
    };
    let out = tempfile::tempdir().unwrap();
    let output = out.path().join("cmu.g4b");
    let result = run(&[
        "convert",
        "--helpers",
        "none",
        "--mpfb-data",
        data.to_str().unwrap(),
        "--rig-name",
        "cmu_mb",
        "-o",
        output.to_str().unwrap(),
        "--json",
        "--quiet",
    ]);
    assert!(result.status.success(), "{}", stderr(&result));
    assert!(stderr(&result).is_empty(), "--quiet prints nothing");
    let summary: serde_json::Value = serde_json::from_slice(&result.stdout).unwrap();
    assert_eq!(summary["bones"], 31);
    assert_eq!(summary["kept_vertices"], 13380);
    assert_eq!(summary["weights"], "weights.cmu_mb.json");
    assert!(summary["weight_pairs"].as_u64().unwrap() > 20000);

    // The Rigify rig has no weights: skeleton and an unskinned mesh.
    let output = out.path().join("human.g4tf");
    let result = run(&[
        "convert",
        "--mpfb-data",
        data.to_str().unwrap(),
        "--rig-name",
        "human",
        "-o",
        output.to_str().unwrap(),
    ]);
    assert!(result.status.success(), "{}", stderr(&result));
    assert!(stderr(&result).contains("skin      none"));
    // ... and a warning says so (issue 28: a rig without weights is not "warnings none").
    assert!(
        stderr(&result).contains("no weights for rig.human.json"),
        "{}",
        stderr(&result)
    );
    let file = read_path(&output, &ReadOptions::default()).unwrap();
    assert!(file.document.meshes[0].skin.is_none());
    assert_eq!(
        file.document
            .nodes
            .iter()
            .filter(|n| n.bone.is_some())
            .count(),
        185
    );
}

#[test]
fn demo_writes_the_default_character() {
    let Some(data) = test_support::mpfb_data_or_skip("demo_writes_the_default_character") else {
        return;
    };
    let out = tempfile::tempdir().unwrap();
    let result = bin()
        .current_dir(out.path())
        .args(["demo", "--mpfb-data", data.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(result.status.success(), "{}", stderr(&result));
    let file = read_path(
        &out.path().join("out/makehuman-default.g4b"),
        &ReadOptions::default(),
    )
    .unwrap();
    check_rules(&file);
    assert!(stderr(&result).contains("wrote out/makehuman-default.g4b"));
}

#[test]
fn bad_input_exits_1_with_one_located_line_and_no_output() {
    let Some(data) = test_support::mpfb_data_or_skip("bad_input_exits_1") else {
        return;
    };
    let out = tempfile::tempdir().unwrap();
    let mesh = data.join("3dobjs/base.obj");
    let bad_rig = out.path().join("rig.bad.json");
    std::fs::write(
        &bad_rig,
        r#"{"root": {"head": {"strategy": "CUBBE", "default_position": [0,0,0]},
            "tail": {"strategy": "DEFAULT", "default_position": [0,0,1]}, "roll": 0, "parent": "",
            "use_connect": false, "use_inherit_rotation": true, "use_local_location": true,
            "inherit_scale": "FULL", "rigify": {}}}"#,
    )
    .unwrap();
    let output = out.path().join("x.g4b");
    let result = run(&[
        "convert",
        "--rig",
        bad_rig.to_str().unwrap(),
        "--mesh",
        mesh.to_str().unwrap(),
        "-o",
        output.to_str().unwrap(),
    ]);
    assert_eq!(result.status.code(), Some(1));
    let message = stderr(&result);
    assert_eq!(message.lines().count(), 1, "{message}");
    assert!(
        message.contains(
            "rig.bad.json:1:10: /root/head/strategy: bone `root`: unknown strategy `CUBBE`"
        ),
        "{message}"
    );
    assert!(!output.exists());

    // A mesh of another topology is refused up front with both counts.
    let small = out.path().join("small.obj");
    std::fs::write(&small, "v 0 0 0\nv 1 0 0\nv 0 1 0\ng body\nf 1 2 3\n").unwrap();
    let rig = data.join("rigs/standard/rig.default.json");
    let small_run = |extra: &[&str]| {
        let mut args = vec![
            "convert",
            "--rig",
            rig.to_str().unwrap(),
            "--mesh",
            small.to_str().unwrap(),
            "-o",
            output.to_str().unwrap(),
        ];
        args.extend_from_slice(extra);
        run(&args)
    };
    let result = small_run(&[]);
    assert_eq!(result.status.code(), Some(1));
    let message = stderr(&result);
    assert!(
        message.contains("small.obj: 3 vertices, but MakeHuman's base mesh has 19158")
            && message.contains("--any-topology"),
        "{message}"
    );
    assert!(!output.exists());
    // Accepted as made for the rig: a rig needing more vertices than the mesh has is then a
    // refused fallback, naming the end.
    let result = small_run(&["--any-topology"]);
    assert_eq!(result.status.code(), Some(1));
    let message = stderr(&result);
    assert!(
        message.contains("rig.default.json: /") && message.contains("--allow-fallback"),
        "{message}"
    );
    assert!(!output.exists());

    // Usage errors exit 2.
    let result = run(&[
        "convert",
        "--rig",
        rig.to_str().unwrap(),
        "--mesh",
        mesh.to_str().unwrap(),
        "-o",
        "x.fbx",
    ]);
    assert_eq!(result.status.code(), Some(2));
    let result = run(&["convert", "--mesh", mesh.to_str().unwrap(), "-o", "x.g4b"]);
    assert_eq!(result.status.code(), Some(2));
}

#[test]
fn validate_and_inspect_commands() {
    let fixtures = test_support::workspace_root().join("fixtures/validator");
    let valid = fixtures.join("valid.g4b");
    let invalid = fixtures.join("SKIN_WEIGHTS_NOT_DESCENDING.g4tf");
    let result = run(&["validate", valid.to_str().unwrap()]);
    assert_eq!(result.status.code(), Some(0), "{}", stderr(&result));
    assert!(String::from_utf8_lossy(&result.stdout).contains("valid (0 errors"));
    let result = run(&[
        "validate",
        valid.to_str().unwrap(),
        invalid.to_str().unwrap(),
        "--format",
        "json",
    ]);
    assert_eq!(result.status.code(), Some(1));
    let reports: serde_json::Value = serde_json::from_slice(&result.stdout).unwrap();
    assert_eq!(reports[1]["counts"]["numErrors"], 1);
    assert_eq!(
        reports[1]["findings"][0]["code"],
        "SKIN_WEIGHTS_NOT_DESCENDING"
    );
    assert_eq!(
        reports[1]["findings"][0]["pointer"],
        "/meshes/0/skin/weights"
    );
    let result = run(&["inspect", valid.to_str().unwrap()]);
    assert!(result.status.success());
    let text = String::from_utf8_lossy(&result.stdout);
    assert!(
        text.contains("[1] TinySkeleton skeleton, 2 joints"),
        "{text}"
    );
    assert!(
        text.contains("[2] Hips bone length 0.2000, joint 0"),
        "{text}"
    );
    assert!(text.contains("influences per vertex"), "{text}");
}

#[test]
fn truncated_and_corrupted_files_give_findings_not_panics() {
    let valid =
        std::fs::read(test_support::workspace_root().join("fixtures/validator/valid.g4b")).unwrap();
    let options = g4mf_validator::ValidateOptions::default();
    for len in (0..valid.len()).step_by(7) {
        let report = g4mf_validator::validate_bytes(&valid[..len], None, "t", &options);
        assert!(
            !report.is_valid() || len == valid.len(),
            "truncated at {len} passed"
        );
    }
    // Flip every byte of the header and chunk headers in turn: always a report, never a panic.
    for at in 0..48.min(valid.len()) {
        let mut bytes = valid.clone();
        bytes[at] ^= 0xA5;
        let _ = g4mf_validator::validate_bytes(&bytes, None, "t", &options);
        let _ = g4mf_reader::read_bytes(&bytes, None, &ReadOptions::default());
    }
}

#[test]
fn batch_runs_good_jobs_reports_the_broken_one_and_leaves_no_partial_file() {
    let Some(data) = test_support::mpfb_data_or_skip("batch_runs_good_jobs") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let bad_rig = dir.path().join("rig.broken.json");
    std::fs::write(&bad_rig, "{\"root\": {\"head\": ").unwrap();
    let manifest = serde_json::json!({
        "defaults": { "mpfb_data": data },
        "jobs": [
            { "rig_name": "default", "output": "out/default.g4b" },
            { "rig": bad_rig, "mesh": data.join("3dobjs/base.obj"), "output": "out/broken.g4b" },
            { "rig_name": "game_engine", "output": "out/game.g4tf", "external_bin": true, "compress": "zstd" },
            { "rig_name": "cmu_mb", "output": "out/cmu.g4b", "no_weights": true }
        ],
        "cross": { "rigs": ["mixamo"], "formats": ["g4b", "g4tf"], "output": "out/cross-{rig}.{format}" }
    });
    let manifest_path = dir.path().join("batch.json");
    std::fs::write(
        &manifest_path,
        serde_json::to_vec_pretty(&manifest).unwrap(),
    )
    .unwrap();
    let report = dir.path().join("report.json");
    let result = run(&[
        "batch",
        manifest_path.to_str().unwrap(),
        "--jobs",
        "2",
        "--report",
        report.to_str().unwrap(),
    ]);
    assert_eq!(result.status.code(), Some(1), "{}", stderr(&result));
    let message = stderr(&result);
    assert!(
        message.contains("5 written, 0 skipped, 1 failed"),
        "{message}"
    );
    assert!(
        message.contains("failed job 1")
            && message.contains("broken.g4b")
            && message.contains("rig.broken.json:1:18"),
        "{message}"
    );
    let records: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&report).unwrap()).unwrap();
    assert_eq!(records.as_array().unwrap().len(), 6);
    assert_eq!(records[1]["status"], "failed");
    assert!(
        records[1]["error"]
            .as_str()
            .unwrap()
            .contains("rig.broken.json")
    );
    assert_eq!(records[0]["status"], "ok");
    // Every good output is valid; no partial or temporary file anywhere.
    let out = dir.path().join("out");
    let mut names: Vec<String> = std::fs::read_dir(&out)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    // game.g4tf's buffer, named by its content: game.<16 hex digits>.bin.
    let buffer = names.iter().position(|n| {
        n.strip_prefix("game.")
            .and_then(|n| n.strip_suffix(".bin"))
            .is_some_and(|h| h.len() == 16)
    });
    assert!(buffer.is_some(), "{names:?}");
    names.remove(buffer.unwrap_or_default());
    assert_eq!(
        names,
        [
            "cmu.g4b",
            "cross-mixamo.g4b",
            "cross-mixamo.g4tf",
            "default.g4b",
            "game.g4tf"
        ]
    );
    for name in names.iter().filter(|n| !n.ends_with(".bin")) {
        let report = g4mf_validator::validate_path(
            &out.join(name),
            &g4mf_validator::ValidateOptions::default(),
        );
        assert!(report.is_valid(), "{name}: {:?}", report.codes());
    }
    assert!(
        read_path(&out.join("cmu.g4b"), &ReadOptions::default())
            .unwrap()
            .document
            .meshes[0]
            .skin
            .is_none()
    );

    // Resuming skips what exists; the broken job still fails.
    let result = run(&[
        "batch",
        manifest_path.to_str().unwrap(),
        "--skip-existing",
        "--quiet",
    ]);
    assert_eq!(result.status.code(), Some(1));
    assert!(
        stderr(&result).contains("1 of 6 jobs failed"),
        "{}",
        stderr(&result)
    );

    // Shards 0/2 and 1/2 together run every job exactly once.
    let mut written = 0;
    for shard in ["0/2", "1/2"] {
        let result = run(&[
            "batch",
            manifest_path.to_str().unwrap(),
            "--shard",
            shard,
            "--report",
            report.to_str().unwrap(),
        ]);
        let records: serde_json::Value =
            serde_json::from_slice(&std::fs::read(&report).unwrap()).unwrap();
        let indices: Vec<u64> = records
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["index"].as_u64().unwrap())
            .collect();
        let parity = u64::from(shard == "1/2");
        assert!(
            indices.iter().all(|i| i % 2 == parity),
            "{shard}: {indices:?}"
        );
        written += indices.len();
        assert_eq!(
            result.status.code(),
            Some(if shard == "1/2" { 1 } else { 0 }),
            "{}",
            stderr(&result)
        );
    }
    assert_eq!(written, 6);

    // --fail-fast starts no job after the failure (one worker, so the order is fixed).
    let result = run(&[
        "batch",
        manifest_path.to_str().unwrap(),
        "--jobs",
        "1",
        "--fail-fast",
        "--report",
        report.to_str().unwrap(),
    ]);
    assert_eq!(result.status.code(), Some(1));
    let records: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&report).unwrap()).unwrap();
    let statuses: Vec<&str> = records
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["status"].as_str().unwrap())
        .collect();
    assert_eq!(
        statuses,
        [
            "ok",
            "failed",
            "cancelled",
            "cancelled",
            "cancelled",
            "cancelled"
        ]
    );
}

#[test]
fn bodies_from_targets_move_the_skeleton_and_validate() {
    let Some(data) = test_support::mpfb_data_or_skip("bodies_from_targets_move_the_skeleton")
    else {
        return;
    };
    let out = tempfile::tempdir().unwrap();
    let convert = |name: &str, extra: &[&str]| {
        let output = out.path().join(name);
        let mut args = vec![
            "convert",
            "--mpfb-data",
            data.to_str().unwrap(),
            "--validate",
            "--json",
            "-o",
            output.to_str().unwrap(),
        ];
        args.extend(extra);
        let result = run(&args);
        assert!(result.status.success(), "{name}: {}", stderr(&result));
        let summary: serde_json::Value = serde_json::from_slice(&result.stdout).unwrap();
        (
            read_path(&output, &ReadOptions::default()).unwrap(),
            summary,
        )
    };
    let (base, _) = convert("base.g4b", &["--rig-name", "default"]);
    let (tall, summary) = convert(
        "tall.g4b",
        &[
            "--rig-name",
            "default",
            "--phenotype",
            "gender=1,height=1,weight=1,muscle=1",
        ],
    );
    // Weights still cover every kept vertex.
    assert_eq!(summary["unweighted_vertices"], 0);
    let frames = |file: &G4mfFile| bone_frames(file);
    let (b, t) = (frames(&base), frames(&tall));
    assert!(
        t["head"].0.y > b["head"].0.y + 0.05,
        "head {} vs {}",
        t["head"].0.y,
        b["head"].0.y
    );
    let shoulders = |f: &BTreeMap<String, (DVec3, DVec3, f64)>| {
        (f["upperarm01.L"].0.x - f["upperarm01.R"].0.x).abs()
    };
    assert!(
        shoulders(&t) > shoulders(&b) + 0.01,
        "{} vs {}",
        shoulders(&t),
        shoulders(&b)
    );
    // The skeleton says which human it is.
    let skeleton = tall
        .document
        .nodes
        .iter()
        .find(|n| n.skeleton.is_some())
        .unwrap();
    let provenance = skeleton.extras.as_ref().unwrap()["mpfb2g4mf"]["body"].clone();
    assert_eq!(provenance["phenotype"]["height"], 1.0);
    assert_eq!(provenance["macro_model"], "mpfb");
    // A .mhm we wrote: its rig (game_engine), its detail targets, all of it converted (its
    // skin is MakeHuman's default, coloured by the race mix).
    let mhm = test_support::workspace_root().join("fixtures/bodies/ada.mhm");
    let output = out.path().join("ada.g4b");
    let result = run(&[
        "convert",
        "--human",
        mhm.to_str().unwrap(),
        "--mpfb-data",
        data.to_str().unwrap(),
        "--validate",
        "-o",
        output.to_str().unwrap(),
    ]);
    let text = stderr(&result);
    assert!(result.status.success(), "{text}");
    assert!(text.contains("rig.game_engine.json"), "{text}");
    assert!(!text.contains("not converted"), "{text}");
    let ada = read_path(&output, &ReadOptions::default()).unwrap();
    // Its body is base.obj plus the targets the file names, vertex by vertex (in G4MF metres,
    // at float32 precision): the macro targets of its phenotype, head-age-decr at 0.4 and
    // l-upperarm-scale-depth-incr at 0.6. Every kept vertex (body and face helpers) is checked
    // through the recorded source numbering.
    let targets_dir = data.join("targets");
    let index = mpfb_body::TargetIndex::scan(&targets_dir).unwrap();
    let spec = mpfb_body::MacroSpec::from_json(
        &std::fs::read_to_string(targets_dir.join("macrodetails/macro.json")).unwrap(),
    )
    .unwrap();
    let description = mpfb_body::parse_mhm(&std::fs::read_to_string(&mhm).unwrap()).unwrap();
    let mut expected: Vec<[f64; 3]> = mpfb_mesh::read_obj_file(&data.join("3dobjs/base.obj"))
        .unwrap()
        .positions;
    let resolved = description
        .resolve(&index, &spec, mpfb_body::MacroModel::Mpfb)
        .unwrap();
    assert_eq!(
        resolved[resolved.len() - 2..]
            .iter()
            .map(|w| (w.name.as_str(), w.weight))
            .collect::<Vec<_>>(),
        [("head-age-decr", 0.4), ("l-upperarm-scale-depth-incr", 0.6)]
    );
    for w in &resolved {
        for (v, d) in mpfb_body::read_target_file(&w.path).unwrap().deltas() {
            for k in 0..3 {
                expected[v as usize][k] += w.weight * f64::from(d[k]);
            }
        }
    }
    let mesh = &ada.document.meshes[0];
    let written = ada.read_f64(mesh.vertices).unwrap();
    let source: Vec<usize> = mesh.other["extras"]["mpfb"]["source_vertices"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|r| r[0].as_u64().unwrap() as usize..=r[1].as_u64().unwrap() as usize)
        .collect();
    assert_eq!(written.len(), source.len() * 3);
    assert!(source.len() > 13380, "face helpers kept");
    for (kept, &v) in source.iter().enumerate() {
        for k in 0..3 {
            let want = (expected[v][k] * 0.1) as f32;
            assert_eq!(written[3 * kept + k] as f32, want, "vertex {v} axis {k}");
        }
    }
    let skeleton = ada
        .document
        .nodes
        .iter()
        .find(|n| n.skeleton.is_some())
        .unwrap();
    let targets = skeleton.extras.as_ref().unwrap()["mpfb2g4mf"]["body"]["targets"].clone();
    assert_eq!(
        targets,
        serde_json::json!([["head-age-decr", 0.4], ["l-upperarm-scale-depth-incr", 0.6]])
    );
    // to-mpfb still gives the rig back from a morphed character.
    let back = out.path().join("back");
    let result = run(&[
        "to-mpfb",
        output.to_str().unwrap(),
        "--out-dir",
        back.to_str().unwrap(),
        "--quiet",
    ]);
    assert!(result.status.success(), "{}", stderr(&result));
    assert!(back.join("rig.game_engine.json").is_file());
    // Bad descriptions: located errors, no output.
    for (args, expected) in [
        (
            vec!["--phenotype", "gender=2"],
            "`gender` must be a number from 0 to 1",
        ),
        (vec!["--phenotype", "hair=1"], "unknown variable `hair`"),
        (
            vec!["--target", "no-such-target=0.5"],
            "/targets/0: no target named `no-such-target`",
        ),
    ] {
        let output = out.path().join("bad.g4b");
        let mut all = vec![
            "convert",
            "--rig-name",
            "default",
            "--mpfb-data",
            data.to_str().unwrap(),
            "-o",
            output.to_str().unwrap(),
        ];
        all.extend(args);
        let result = run(&all);
        assert_eq!(result.status.code(), Some(1));
        assert!(stderr(&result).contains(expected), "{}", stderr(&result));
        assert!(!output.exists());
    }
}

/// Outputs are written by writer threads while the next body is made: a write that fails
/// there is its job's failure (located, counted), the other jobs are written, and nothing
/// temporary is left. With --fail-fast, at most the job a worker was already making follows.
#[test]
fn a_write_that_fails_behind_the_workers_fails_its_job_alone() {
    let Some(data) = test_support::mpfb_data_or_skip("a_write_that_fails_behind") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    // A folder where job 1's file goes: the rename over it fails, after the file was made.
    std::fs::create_dir_all(out.join("b.g4b")).unwrap();
    let jobs: Vec<serde_json::Value> = ["a", "b", "c", "d", "e"]
        .map(|name| serde_json::json!({ "rig_name": "default", "output": format!("out/{name}.g4b") }))
        .into();
    let manifest = serde_json::json!({ "defaults": { "mpfb_data": data }, "jobs": jobs });
    let manifest_path = dir.path().join("batch.json");
    std::fs::write(&manifest_path, manifest.to_string()).unwrap();
    let report = dir.path().join("report.json");
    let statuses = |report: &Path| -> Vec<String> {
        let records: serde_json::Value =
            serde_json::from_slice(&std::fs::read(report).unwrap()).unwrap();
        records
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["status"].as_str().unwrap().to_owned())
            .collect()
    };
    for jobs in ["1", "2"] {
        let result = run(&[
            "batch",
            manifest_path.to_str().unwrap(),
            "--jobs",
            jobs,
            "--report",
            report.to_str().unwrap(),
        ]);
        let message = stderr(&result);
        assert_eq!(result.status.code(), Some(1), "{message}");
        assert!(
            message.contains("4 written, 0 skipped, 1 failed")
                && message.contains("failed job 1")
                && message.contains("b.g4b: Is a directory"),
            "{message}"
        );
        assert_eq!(statuses(&report), ["ok", "failed", "ok", "ok", "ok"]);
        let mut names: Vec<String> = std::fs::read_dir(&out)
            .unwrap()
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        assert_eq!(names, ["a.g4b", "b.g4b", "c.g4b", "d.g4b", "e.g4b"]);
        assert!(out.join("b.g4b").is_dir());
        for name in ["a.g4b", "c.g4b", "e.g4b"] {
            let report = g4mf_validator::validate_path(
                &out.join(name),
                &g4mf_validator::ValidateOptions::default(),
            );
            assert!(report.is_valid(), "{name}: {:?}", report.codes());
        }
    }
    // --fail-fast: the job the worker was making when the write failed may finish; none
    // after it starts.
    let result = run(&[
        "batch",
        manifest_path.to_str().unwrap(),
        "--jobs",
        "1",
        "--fail-fast",
        "--report",
        report.to_str().unwrap(),
    ]);
    assert_eq!(result.status.code(), Some(1));
    let statuses = statuses(&report);
    assert_eq!(statuses[..2], ["ok", "failed"], "{statuses:?}");
    assert!(
        matches!(statuses[2].as_str(), "ok" | "cancelled"),
        "{statuses:?}"
    );
    assert_eq!(statuses[3..], ["cancelled", "cancelled"], "{statuses:?}");
}

#[test]
fn a_batch_population_writes_valid_bodies_and_reports_their_phenotypes() {
    let Some(data) = test_support::mpfb_data_or_skip("a_batch_population_writes_valid_bodies")
    else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let manifest = dir.path().join("people.toml");
    std::fs::write(
        &manifest,
        format!(
            r#"
[defaults]
mpfb_data = "{}"

[population]
rig_name = "game_engine"
count = 4
seed = 11
output = "out/body-{{index}}-{{gender}}.g4b"
[population.ranges]
gender = [0.0, 1.0]
height = [0.2, 0.9]
"#,
            data.display()
        ),
    )
    .unwrap();
    let report = dir.path().join("report.json");
    let sheet = dir.path().join("sheet.png");
    let result = run(&[
        "batch",
        manifest.to_str().unwrap(),
        "--jobs",
        "2",
        "--quiet",
        "--report",
        report.to_str().unwrap(),
        "--contact-sheet",
        sheet.to_str().unwrap(),
        "--tile-size",
        "200",
    ]);
    assert!(result.status.success(), "{}", stderr(&result));
    let records: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&report).unwrap()).unwrap();
    let records = records.as_array().unwrap();
    assert_eq!(records.len(), 4);
    let mut heights = Vec::new();
    let mut extents = Vec::new();
    for r in records {
        assert_eq!(r["status"], "ok", "{r}");
        let phenotype = r["phenotype"].as_str().unwrap();
        assert!(
            phenotype.starts_with("gender=") && phenotype.contains(",height="),
            "{phenotype}"
        );
        let output = PathBuf::from(r["output"].as_str().unwrap());
        assert!(
            output
                .file_name()
                .unwrap()
                .to_str()
                .unwrap()
                .starts_with("body-")
        );
        let report = g4mf_validator::validate_path(&output, &Default::default());
        assert!(report.is_valid(), "{:?}", report.findings);
        let file = read_path(&output, &ReadOptions::default()).unwrap();
        heights.push(bone_frames(&file)["head"].0.y);
        let size = g4mf_preview::Scene::from_file(&file).unwrap().extent();
        extents.push(size.x.max(size.y));
    }
    // The contact sheet: 2 x 2 tiles of 200 px, labelled below, in job order, at one scale:
    // the tallest body's figure is the tallest, 90% of its tile.
    let sheet = image::open(&sheet).unwrap().to_rgba8();
    assert_eq!(sheet.width(), 400);
    let row_height = sheet.height() / 2;
    assert!(
        (200 + 14..=200 + 22).contains(&row_height),
        "{}",
        sheet.height()
    );
    let background = *sheet.get_pixel(0, 0);
    let figure_heights: Vec<u32> = (0..4)
        .map(|i| {
            let (x0, y0) = ((i % 2) * 200, (i / 2) * row_height);
            let rows: Vec<u32> = (y0..y0 + 200)
                .filter(|&y| (x0..x0 + 200).any(|x| *sheet.get_pixel(x, y) != background))
                .collect();
            rows.last().unwrap() - rows.first().unwrap() + 1
        })
        .collect();
    let tallest = (0..4)
        .max_by(|&a, &b| heights[a].total_cmp(&heights[b]))
        .unwrap();
    assert!(
        (178..=182).contains(&figure_heights[tallest])
            && figure_heights.iter().all(|&h| h <= figure_heights[tallest]),
        "{figure_heights:?} for heads at {heights:?}"
    );
    // Tiles are drawn as each output is written, each at its own figure's scale, and brought
    // to the tallest's at the end: every figure is its body's size at that one scale.
    let largest = extents.iter().copied().fold(0.0f32, f32::max);
    for (figure, extent) in figure_heights.iter().zip(&extents) {
        let expected = figure_heights[tallest] as f32 * extent / largest;
        assert!(
            (*figure as f32 - expected).abs() <= 2.0,
            "{figure_heights:?} for figures of {extents:?} m"
        );
    }
    // Outputs a rerun skips are read back for the sheet: the same picture.
    let again = dir.path().join("again.png");
    let result = run(&[
        "batch",
        manifest.to_str().unwrap(),
        "--jobs",
        "2",
        "--skip-existing",
        "--contact-sheet",
        again.to_str().unwrap(),
        "--tile-size",
        "200",
    ]);
    assert!(result.status.success(), "{}", stderr(&result));
    assert_eq!(
        stderr(&result).matches("(exists)").count(),
        4,
        "{}",
        stderr(&result)
    );
    assert!(image::open(&again).unwrap().to_rgba8() == sheet);
    // Four different bodies.
    heights.sort_by(f64::total_cmp);
    assert!(
        heights.windows(2).all(|w| w[1] - w[0] > 1e-6),
        "{heights:?}"
    );
}

#[test]
fn smooth_normals_are_unit_agree_with_the_winding_and_follow_the_morph() {
    let Some(data) = test_support::mpfb_data_or_skip("smooth_normals_are_unit") else {
        return;
    };
    let out = tempfile::tempdir().unwrap();
    for (name, extra) in [
        ("plain.g4b", vec![]),
        (
            "morphed.g4b",
            vec!["--phenotype", "weight=1,muscle=1,height=0"],
        ),
        ("flat.g4b", vec!["--flat"]),
    ] {
        let output = out.path().join(name);
        let mut args = vec![
            "convert",
            "--rig-name",
            "default",
            "--mpfb-data",
            data.to_str().unwrap(),
            "--quiet",
            "-o",
            output.to_str().unwrap(),
        ];
        args.extend(extra);
        let result = run(&args);
        assert!(result.status.success(), "{}", stderr(&result));
        let file = read_path(&output, &ReadOptions::default()).unwrap();
        let mesh = &file.document.meshes[0];
        let surface = &mesh.surfaces[0];
        let Some(normals) = &surface.normals else {
            assert_eq!(name, "flat.g4b", "only --flat writes no normals");
            continue;
        };
        assert_ne!(name, "flat.g4b");
        assert_eq!(
            normals.simplexes, surface.simplexes,
            "per-vertex: the surface's own corners"
        );
        let p = file.read_f64(mesh.vertices).unwrap();
        let n = file.read_f64(normals.values).unwrap();
        assert_eq!(p.len(), n.len());
        let at = |v: &[f64], i: u64| {
            DVec3::new(
                v[3 * i as usize],
                v[3 * i as usize + 1],
                v[3 * i as usize + 2],
            )
        };
        for i in 0..(n.len() / 3) as u64 {
            assert!(
                (at(&n, i).length() - 1.0).abs() < 1e-6,
                "{name}: normal {i} not unit"
            );
        }
        let simplexes = file.read_u64(surface.simplexes.unwrap()).unwrap();
        let (mut agree, mut total) = (0, 0);
        for t in simplexes.chunks_exact(3) {
            let face = (at(&p, t[1]) - at(&p, t[0])).cross(at(&p, t[2]) - at(&p, t[0]));
            if face.length() < 1e-12 {
                continue;
            }
            total += 1;
            if t.iter().all(|&v| face.dot(at(&n, v)) > 0.0) {
                agree += 1;
            }
        }
        // Smooth normals of a closed, consistently wound body point the way its faces do
        // (a few corners at sharp creases, such as fingertips and lips, may not).
        assert!(
            agree as f64 > 0.99 * total as f64,
            "{name}: {agree} of {total} triangles"
        );
        // The body faces outward: the normal of the vertex highest on the head points up.
        let top = (0..(p.len() / 3) as u64)
            .max_by(|&a, &b| at(&p, a).y.total_cmp(&at(&p, b).y))
            .unwrap();
        assert!(at(&n, top).y > 0.9, "{name}: top normal {}", at(&n, top));
    }
}

#[test]
fn face_helpers_are_surfaces_of_their_own_and_weighted() {
    let Some(data) = test_support::mpfb_data_or_skip("face_helpers_are_surfaces") else {
        return;
    };
    let out = tempfile::tempdir().unwrap();
    for (helpers, surfaces, kept) in [
        ("face", 6, 13886),
        ("none", 1, 13380),
        // Body, five face helpers, eyelashes, other helpers.
        ("all", 1 + 5 + 2, 19158),
    ] {
        let output = out.path().join(format!("{helpers}.g4b"));
        let result = convert_default(
            &data,
            &output,
            &["--helpers", helpers, "--validate", "--json"],
        )
        .output()
        .unwrap();
        assert!(result.status.success(), "{helpers}: {}", stderr(&result));
        let summary: serde_json::Value = serde_json::from_slice(&result.stdout).unwrap();
        assert_eq!(summary["kept_vertices"], kept, "{helpers}");
        let file = read_path(&output, &ReadOptions::default()).unwrap();
        let mesh = &file.document.meshes[0];
        assert_eq!(mesh.surfaces.len(), surfaces, "{helpers}");
        // One material per surface, each with a base colour.
        for (k, surface) in mesh.surfaces.iter().enumerate() {
            let material = &file.document.materials[surface.material.unwrap().get()];
            let factor = material.other["baseColor"]["factor"].as_array().unwrap();
            assert_eq!(factor.len(), 3, "{helpers}: surface {k}");
        }
        if helpers == "none" {
            continue;
        }
        let named: Vec<(&str, &str)> = mesh
            .surfaces
            .iter()
            .map(|s| {
                let material = &file.document.materials[s.material.unwrap().get()];
                (
                    s.name.as_deref().unwrap(),
                    material.name.as_deref().unwrap(),
                )
            })
            .collect();
        for pair in [
            ("Body", "SkinMaterial"),
            ("LeftEye", "EyeMaterial"),
            ("RightEye", "EyeMaterial"),
            ("UpperTeeth", "TeethMaterial"),
            ("LowerTeeth", "TeethMaterial"),
            ("Tongue", "TongueMaterial"),
        ] {
            assert!(named.contains(&pair), "{helpers}: {pair:?} in {named:?}");
        }
        if helpers == "face" {
            assert_eq!(named.len(), 6);
        }
        // Every kept vertex is moved by a bone: the eyes, teeth and tongue follow their bones.
        assert_eq!(summary["unweighted_vertices"], 0, "{helpers}");
        // The bones moving them are joints (they carry weights).
        let skeleton = file
            .document
            .nodes
            .iter()
            .find(|n| n.skeleton.is_some())
            .unwrap();
        let joints: Vec<String> = skeleton
            .skeleton
            .as_ref()
            .unwrap()
            .joints
            .iter()
            .filter_map(|j| match j {
                JointRef::Node(n) => file.document.nodes[n.get()].name.clone(),
                JointRef::Uncontrolled => None,
            })
            .collect();
        for bone in ["eye_L", "eye_R", "jaw", "tongue01"] {
            assert!(
                joints.iter().any(|j| j == bone),
                "{helpers}: {bone} in {joints:?}"
            );
        }
        // Each face helper surface is small.
        for surface in mesh
            .surfaces
            .iter()
            .filter(|s| !matches!(s.name.as_deref(), Some("Body" | "Helpers" | "Eyelashes")))
        {
            let simplexes = file.read_u64(surface.simplexes.unwrap()).unwrap();
            assert!(!simplexes.is_empty() && simplexes.len() < 2000 * 3);
        }
    }
}

/// The skin's base colour follows the phenotype's race mix as MakeHuman blends it (sRGB blend,
/// written linear); `--no-materials` writes none.
#[test]
fn skin_colour_follows_the_race_mix() {
    let Some(data) = test_support::mpfb_data_or_skip("skin_colour_follows_the_race_mix") else {
        return;
    };
    let out = tempfile::tempdir().unwrap();
    let skin = |extra: &[&str]| -> Option<Vec<f64>> {
        let output = out.path().join("skin.g4tf");
        let mut args = vec![
            "convert",
            "--rig-name",
            "default",
            "--mpfb-data",
            data.to_str().unwrap(),
            "--quiet",
            "-o",
            output.to_str().unwrap(),
        ];
        args.extend_from_slice(extra);
        let result = run(&args);
        assert!(result.status.success(), "{extra:?}: {}", stderr(&result));
        let file = read_path(&output, &ReadOptions::default()).unwrap();
        let body = &file.document.meshes[0].surfaces[0];
        body.material.map(|m| {
            file.document.materials[m.get()].other["baseColor"]["factor"]
                .as_array()
                .unwrap()
                .iter()
                .map(|v| v.as_f64().unwrap())
                .collect()
        })
    };
    let linear = |srgb: f64| ((srgb + 0.055) / 1.055).powf(2.4);
    // MakeHuman's colours (lib/skinblender.py), sRGB.
    let african = [0.207, 0.113, 0.066];
    let caucasian = [0.843, 0.639, 0.517];
    for (phenotype, srgb) in [
        ("african=1,asian=0,caucasian=0", african),
        ("african=0,asian=0,caucasian=1", caucasian),
        (
            "african=0.5,asian=0,caucasian=0.5,age=1",
            std::array::from_fn(|i| 0.5 * african[i] + 0.5 * caucasian[i]),
        ),
    ] {
        let got = skin(&["--phenotype", phenotype]).unwrap();
        for i in 0..3 {
            assert!(
                (got[i] - linear(srgb[i])).abs() < 1e-9,
                "{phenotype}: {got:?} vs sRGB {srgb:?}"
            );
        }
    }
    assert_eq!(skin(&["--no-materials"]), None);
}

/// `preview` of the default character: the figure's height and width in pixels are the body's
/// own proportions, front and side, at the scale the picture promises (90% of the panel for
/// the larger side).
#[test]
fn preview_draws_the_character_in_its_proportions() {
    let Some(data) = test_support::mpfb_data_or_skip("preview_draws_the_character") else {
        return;
    };
    let out = tempfile::tempdir().unwrap();
    let model = out.path().join("d.g4b");
    let result = convert_default(&data, &model, &[]).output().unwrap();
    assert!(result.status.success(), "{}", stderr(&result));
    let file = read_path(&model, &ReadOptions::default()).unwrap();
    let positions = file.read_f64(file.document.meshes[0].vertices).unwrap();
    let extent = |axis: usize| {
        let values = positions.iter().skip(axis).step_by(3);
        let (lo, hi) = values.fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &v| {
            (lo.min(v), hi.max(v))
        });
        hi - lo
    };
    let (width, height) = (300.0, 600.0);
    for (view, across) in [("front", extent(0)), ("side", extent(2))] {
        let png = out.path().join(format!("{view}.png"));
        let result = run(&[
            "preview",
            model.to_str().unwrap(),
            "--view",
            view,
            "--size",
            "300x600",
            "-o",
            png.to_str().unwrap(),
        ]);
        assert!(result.status.success(), "{view}: {}", stderr(&result));
        let image = image::open(&png).unwrap().to_rgba8();
        assert_eq!(image.dimensions(), (300, 600));
        let background = *image.get_pixel(0, 0);
        let (mut lo, mut hi) = ((u32::MAX, u32::MAX), (0, 0));
        for (x, y, p) in image.enumerate_pixels() {
            if *p != background {
                lo = (lo.0.min(x), lo.1.min(y));
                hi = (hi.0.max(x), hi.1.max(y));
            }
        }
        let scale = (0.9 * width / across).min(0.9 * height / extent(1));
        let figure = ((hi.0 - lo.0 + 1) as f64, (hi.1 - lo.1 + 1) as f64);
        let expected = (across * scale, extent(1) * scale);
        assert!(
            (figure.0 - expected.0).abs() <= 2.0 && (figure.1 - expected.1).abs() <= 2.0,
            "{view}: figure {figure:?} px, body {expected:?} px"
        );
        // The figure is centred.
        let centre = ((lo.0 + hi.0) as f64 / 2.0, (lo.1 + hi.1) as f64 / 2.0);
        assert!((centre.0 - width / 2.0).abs() <= 2.0 && (centre.1 - height / 2.0).abs() <= 2.0);
    }
}

/// `convert --thumbnail` embeds a PNG front view as `asset.thumbnail` (a 2D texture whose one
/// file lives in a buffer view) and the validator accepts it.
#[test]
fn thumbnails_are_embedded_pngs_the_validator_accepts() {
    let Some(data) = test_support::mpfb_data_or_skip("thumbnails_are_embedded") else {
        return;
    };
    let out = tempfile::tempdir().unwrap();
    let model = out.path().join("t.g4b");
    let result = convert_default(&data, &model, &["--thumbnail", "--validate"])
        .output()
        .unwrap();
    assert!(result.status.success(), "{}", stderr(&result));
    let file = read_path(&model, &ReadOptions::default()).unwrap();
    let doc = &file.document;
    let texture = &doc.other["textures"][doc.asset.other["thumbnail"].as_u64().unwrap() as usize];
    assert_eq!(texture["size"], serde_json::json!([256, 256]));
    let reference = &doc.other["files"][texture["files"][0].as_u64().unwrap() as usize];
    assert_eq!(reference["mimeType"], "image/png");
    let view = &doc.buffer_views[reference["bufferView"].as_u64().unwrap() as usize];
    let start = view.byte_offset() as usize;
    let png = &file.buffers[0][start..start + view.byte_length as usize];
    let image = image::load_from_memory_with_format(png, image::ImageFormat::Png)
        .unwrap()
        .to_rgba8();
    assert_eq!(image.dimensions(), (256, 256));
    // The figure fills the picture's height (90%, the preview's framing), head to feet.
    let background = *image.get_pixel(0, 0);
    let rows: Vec<u32> = (0..256)
        .filter(|&y| (0..256).any(|x| *image.get_pixel(x, y) != background))
        .collect();
    let height = rows.last().unwrap() - rows.first().unwrap() + 1;
    assert!((228..=232).contains(&height), "figure {height} px high");
    // The file still goes back to MPFB.
    let back = out.path().join("back");
    let result = run(&[
        "to-mpfb",
        model.to_str().unwrap(),
        "--out-dir",
        back.to_str().unwrap(),
    ]);
    assert!(result.status.success(), "{}", stderr(&result));
}

/// Finds the official schema files by file name (they are unique): the spec's `$id`s are bare
/// file names and its `$ref`s relative paths, so every URI is resolved by its last segment.
struct SchemaFiles(std::collections::HashMap<String, serde_json::Value>);

impl jsonschema::Retrieve for SchemaFiles {
    fn retrieve(
        &self,
        uri: &jsonschema::Uri<String>,
    ) -> Result<serde_json::Value, Box<dyn std::error::Error + Send + Sync>> {
        let name = uri.path().as_str().rsplit('/').next().unwrap_or_default();
        self.0
            .get(name)
            .cloned()
            .ok_or_else(|| format!("no schema file {name}").into())
    }
}

/// The errors of `document` against the spec's `g4mf.schema.json` (draft 2020-12); `None`
/// (with a SKIPPED line, or a failure when data is required) without a copy of the spec.
fn schema_errors(test: &str, document: &serde_json::Value) -> Option<Vec<String>> {
    let Some(root) = test_support::g4mf_schema_dir() else {
        test_support::skip_or_fail(
            &format!("{test} (the schema check)"),
            "no G4MF specification (set G4MF_SPEC or place it at ../shared/spec/g4mf)",
        );
        return None;
    };
    let mut files = std::collections::HashMap::new();
    let mut stack = vec![root.clone()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "json") {
                let value: serde_json::Value =
                    serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
                let name = path.file_name().unwrap().to_str().unwrap().to_owned();
                files.insert(name, value);
            }
        }
    }
    let schema = files["g4mf.schema.json"].clone();
    let validator = jsonschema::options()
        .with_base_uri("file:///g4mf/schema/g4mf.schema.json")
        .with_retriever(SchemaFiles(files))
        .build(&schema)
        .unwrap();
    Some(
        validator
            .iter_errors(document)
            .map(|e| format!("{} at {}", e, e.instance_path()))
            .collect(),
    )
}

/// Kept vertex -> source vertex, from `extras.mpfb.source_vertices` (inclusive ranges).
fn source_of_kept(file: &G4mfFile) -> Vec<u32> {
    file.document.meshes[0].other["extras"]["mpfb"]["source_vertices"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|r| {
            let (a, b) = (r[0].as_u64().unwrap(), r[1].as_u64().unwrap());
            (a as u32)..=(b as u32)
        })
        .collect()
}

/// A blend shape's position target as source vertex -> offset (f32, metres).
fn shape_offsets(file: &G4mfFile, name: &str) -> Option<BTreeMap<u32, [f32; 3]>> {
    let blend = serde_json::to_value(file.document.meshes[0].blend.as_ref().unwrap()).unwrap();
    let shape = blend["shapes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == name)?;
    let source = source_of_kept(file);
    let mut out = BTreeMap::new();
    if let Some(target) = shape.get("position") {
        let index = |k: &str| g4mf_model::AccessorIndex::new(target[k].as_u64().unwrap() as u32);
        let indices = file.read_u64(index("indices")).unwrap();
        let offsets = file.read_f64(index("offsets")).unwrap();
        for (i, o) in indices.iter().zip(offsets.chunks_exact(3)) {
            out.insert(source[*i as usize], [o[0] as f32, o[1] as f32, o[2] as f32]);
        }
    }
    Some(out)
}

/// A target file as vertex -> summed displacement (decimetres).
fn target_map(path: &Path) -> BTreeMap<u32, [f32; 3]> {
    let mut out: BTreeMap<u32, [f32; 3]> = BTreeMap::new();
    for (v, d) in mpfb_body::read_target_file(path).unwrap().deltas() {
        let e = out.entry(v).or_default();
        for k in 0..3 {
            e[k] += d[k];
        }
    }
    out
}

/// `--face-units --visemes`: all 67 shapes under G4MF's names, offsets equal to the target
/// files' displacements in metres (at float32) on exactly the kept vertices, valid by our
/// validator and by the official JSON schemas; an empty target (`viseme_sil`) stays as an
/// empty shape.
#[test]
fn face_units_and_visemes_are_blend_shapes_with_the_targets_offsets() {
    let Some(data) = test_support::mpfb_data_or_skip("face_units_and_visemes") else {
        return;
    };
    let out = tempfile::tempdir().unwrap();
    let model = out.path().join("face.g4tf");
    let result = convert_default(&data, &model, &["--face-units", "--visemes", "--validate"])
        .output()
        .unwrap();
    assert!(result.status.success(), "{}", stderr(&result));
    let file = read_path(&model, &ReadOptions::default()).unwrap();
    let shapes = file.document.meshes[0].blend.as_ref().unwrap().shapes.len();
    assert_eq!(shapes, 67);
    let kept: std::collections::HashSet<u32> = source_of_kept(&file).into_iter().collect();
    let targets = data.join("targets");
    let pairs = mpfb2g4mf::shape_names::FACE_UNITS
        .iter()
        .map(|(f, n)| (format!("faceunits/{f}.target"), *n))
        .chain(
            mpfb2g4mf::shape_names::VISEMES
                .iter()
                .map(|(f, n)| (format!("visemes/{f}.target"), *n)),
        );
    let mut compared = 0;
    for (file_name, name) in pairs {
        let got = shape_offsets(&file, name).unwrap_or_else(|| panic!("no shape {name}"));
        let expected: BTreeMap<u32, [f32; 3]> = target_map(&targets.join(&file_name))
            .into_iter()
            .filter(|(v, _)| kept.contains(v))
            .map(|(v, d)| (v, d.map(|c| (f64::from(c) * 0.1) as f32)))
            .collect();
        assert_eq!(
            got.keys().collect::<Vec<_>>(),
            expected.keys().collect::<Vec<_>>(),
            "{name}: moved vertices"
        );
        assert_eq!(got, expected, "{name}: offsets");
        compared += got.len();
    }
    assert!(compared > 10_000, "{compared} offsets compared");
    assert_eq!(shape_offsets(&file, "VisemeSIL").unwrap().len(), 0);
    // inspect lists every shape with the vertices it moves.
    let listing = run(&["inspect", model.to_str().unwrap()]);
    let listing = String::from_utf8(listing.stdout).unwrap();
    assert!(listing.contains("  blend shapes: 67"), "{listing}");
    let jaw = shape_offsets(&file, "FaceJawOpen").unwrap().len();
    assert!(
        listing
            .lines()
            .any(|l| l.trim_start().starts_with("FaceJawOpen")
                && l.contains(&format!(" {jaw} vertices"))),
        "{listing}"
    );
    // The official schemas accept the file.
    let json: serde_json::Value = serde_json::from_slice(&file.json).unwrap();
    if let Some(errors) = schema_errors("face_units_and_visemes_are_blend_shapes", &json) {
        assert!(errors.is_empty(), "{errors:#?}");
    }
}

/// `to-mpfb` writes every shape back as a MakeHuman target equal to the input at float32
/// precision (with every helper kept, so nothing was dropped).
#[test]
fn blend_shapes_go_back_to_target_files() {
    let Some(data) = test_support::mpfb_data_or_skip("blend_shapes_go_back") else {
        return;
    };
    let out = tempfile::tempdir().unwrap();
    let model = out.path().join("face.g4b");
    let result = convert_default(
        &data,
        &model,
        &["--face-units", "--visemes", "--helpers", "all"],
    )
    .output()
    .unwrap();
    assert!(result.status.success(), "{}", stderr(&result));
    let back = out.path().join("back");
    let result = run(&[
        "to-mpfb",
        model.to_str().unwrap(),
        "--out-dir",
        back.to_str().unwrap(),
        "--quiet",
    ]);
    assert!(result.status.success(), "{}", stderr(&result));
    let mut files = 0;
    for folder in ["faceunits", "visemes"] {
        for entry in std::fs::read_dir(data.join("targets").join(folder)).unwrap() {
            let input = entry.unwrap().path();
            if input.extension().is_none_or(|e| e != "target") {
                continue; // a data folder may hold a pack's notes beside its targets
            }
            let output = back
                .join("targets")
                .join(folder)
                .join(input.file_name().unwrap());
            let (a, b) = (target_map(&input), target_map(&output));
            assert_eq!(a.keys().collect::<Vec<_>>(), b.keys().collect::<Vec<_>>());
            for (v, d) in &a {
                for k in 0..3 {
                    let e = b[v][k];
                    assert!(
                        (d[k] - e).abs() <= 1e-6 * d[k].abs().max(1e-3),
                        "{}: vertex {v}: {d:?} vs {:?}",
                        input.display(),
                        b[v]
                    );
                }
            }
            files += 1;
        }
    }
    assert_eq!(files, 67);
}

/// `--keep-targets-as-shapes`: the description's detail targets become shapes at their
/// weights, and the rest mesh plus the weighted shapes is the baked body (bodies are linear).
#[test]
fn kept_detail_targets_add_up_to_the_baked_body() {
    let Some(data) = test_support::mpfb_data_or_skip("kept_detail_targets") else {
        return;
    };
    let out = tempfile::tempdir().unwrap();
    let human = test_support::workspace_root().join("fixtures/bodies/ada.mhm");
    let convert = |name: &str, extra: &[&str]| -> G4mfFile {
        let model = out.path().join(name);
        let mut args = vec![
            "convert",
            "--human",
            human.to_str().unwrap(),
            "--mpfb-data",
            data.to_str().unwrap(),
            "--helpers",
            "all",
            "--validate",
            "--quiet",
            "-o",
            model.to_str().unwrap(),
        ];
        args.extend_from_slice(extra);
        let result = run(&args);
        assert!(result.status.success(), "{}", stderr(&result));
        read_path(&model, &ReadOptions::default()).unwrap()
    };
    let baked = convert("baked.g4b", &[]);
    let kept = convert("kept.g4b", &["--keep-targets-as-shapes"]);
    let blend = serde_json::to_value(kept.document.meshes[0].blend.as_ref().unwrap()).unwrap();
    let names: Vec<&str> = blend["shapes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].as_str().unwrap())
        .collect();
    // nose-hump at weight 0 is no target; the others keep their weights as amounts.
    assert_eq!(names, ["head-age-decr", "l-upperarm-scale-depth-incr"]);
    let amounts: Vec<f64> = blend["amounts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a.as_f64().unwrap())
        .collect();
    assert_eq!(amounts, [0.4, 0.6]);
    let mut positions = kept.read_f64(kept.document.meshes[0].vertices).unwrap();
    for (name, amount) in names.iter().zip(&amounts) {
        for (v, o) in shape_offsets(&kept, name).unwrap() {
            for k in 0..3 {
                positions[v as usize * 3 + k] += amount * f64::from(o[k]);
            }
        }
    }
    let expected = baked.read_f64(baked.document.meshes[0].vertices).unwrap();
    let worst = positions
        .iter()
        .zip(&expected)
        .map(|(a, b)| (a - b).abs())
        .fold(0.0, f64::max);
    assert!(worst < 1e-5, "largest difference {worst} m");
}

/// With the body alone, the tongue's face unit moves nothing that is kept: it is left out
/// with a warning, and the other 66 shapes stay.
#[test]
fn a_shape_that_moves_no_kept_vertex_is_dropped_with_a_warning() {
    let Some(data) = test_support::mpfb_data_or_skip("a_shape_that_moves_no_kept_vertex") else {
        return;
    };
    let out = tempfile::tempdir().unwrap();
    let model = out.path().join("body.g4b");
    let result = run(&[
        "convert",
        "--rig-name",
        "default",
        "--mpfb-data",
        data.to_str().unwrap(),
        "--face-units",
        "--visemes",
        "--helpers",
        "none",
        "--json",
        "-o",
        model.to_str().unwrap(),
    ]);
    assert!(result.status.success(), "{}", stderr(&result));
    let summary: serde_json::Value = serde_json::from_slice(&result.stdout).unwrap();
    assert!(
        summary["warnings"]
            .as_array()
            .unwrap()
            .iter()
            .any(|w| w["kind"] == "shapes"
                && w["message"] == "blend shape FaceTongueOut moves no kept vertex: left out"),
        "{summary}"
    );
    let file = read_path(&model, &ReadOptions::default()).unwrap();
    assert!(shape_offsets(&file, "FaceTongueOut").is_none());
    assert_eq!(
        file.document.meshes[0].blend.as_ref().unwrap().shapes.len(),
        66
    );
}

/// `--max-influences 4` on every shipped rig: at most 4 influences a vertex, summing to 1 at
/// float32 precision, weights still descending; `--normalize` sums to 1 and drops nothing;
/// both reported in the summary.
#[test]
fn influence_limits_keep_the_strongest_and_sum_to_one() {
    let Some(data) = test_support::mpfb_data_or_skip("influence_limits") else {
        return;
    };
    let out = tempfile::tempdir().unwrap();
    let skin_of = |file: &G4mfFile| -> Vec<(u64, f64)> {
        let skin = file.document.meshes[0].skin.as_ref().unwrap();
        let v = file.read_u64(skin.vertices).unwrap();
        let w = file.read_f64(skin.weights).unwrap();
        v.into_iter().zip(w).collect()
    };
    for rig in ["default", "game_engine", "mixamo", "cmu_mb"] {
        for (flags, limit) in [
            (vec!["--max-influences", "4"], Some(4)),
            (vec!["--normalize"], None),
        ] {
            let model = out.path().join(format!("{rig}.g4b"));
            let mut args = vec![
                "convert",
                "--rig-name",
                rig,
                "--mpfb-data",
                data.to_str().unwrap(),
                "--validate",
                "--json",
                "-o",
                model.to_str().unwrap(),
            ];
            args.extend_from_slice(&flags);
            let result = run(&args);
            assert!(result.status.success(), "{rig}: {}", stderr(&result));
            let summary: serde_json::Value = serde_json::from_slice(&result.stdout).unwrap();
            let changes = &summary["influence_changes"];
            let skin = skin_of(&read_path(&model, &ReadOptions::default()).unwrap());
            let mut i = 0;
            let mut most = 0;
            while i < skin.len() {
                let run_len = skin[i..].iter().take_while(|p| p.0 == skin[i].0).count();
                let weights: Vec<f64> = skin[i..i + run_len].iter().map(|p| p.1).collect();
                let sum: f64 = weights.iter().sum();
                assert!(
                    (sum - 1.0).abs() < 1e-5,
                    "{rig} {flags:?}: vertex {} sums {sum}",
                    skin[i].0
                );
                assert!(
                    weights.windows(2).all(|w| w[0] >= w[1]),
                    "{rig}: not descending"
                );
                most = most.max(run_len);
                i += run_len;
            }
            match limit {
                Some(n) => assert!(most <= n, "{rig}: {most} influences"),
                None => assert_eq!(changes["influences_dropped"], 0, "{rig}"),
            }
            assert!(changes["vertices_changed"].as_u64().is_some(), "{summary}");
        }
    }
    // Mixamo's weights sum anywhere from 0.2 to 1.5: normalising changes thousands of vertices.
    let result = run(&[
        "convert",
        "--rig-name",
        "mixamo",
        "--mpfb-data",
        data.to_str().unwrap(),
        "--normalize",
        "--json",
        "-o",
        out.path().join("m.g4b").to_str().unwrap(),
    ]);
    let summary: serde_json::Value = serde_json::from_slice(&result.stdout).unwrap();
    assert!(
        summary["influence_changes"]["vertices_changed"]
            .as_u64()
            .unwrap()
            > 1000
    );
    let zero = run(&[
        "convert",
        "--rig-name",
        "mixamo",
        "--mpfb-data",
        data.to_str().unwrap(),
        "--max-influences",
        "0",
        "-o",
        out.path().join("z.g4b").to_str().unwrap(),
    ]);
    assert_ne!(zero.status.code(), Some(0));
    assert!(
        stderr(&zero).contains("--max-influences must be at least 1"),
        "{}",
        stderr(&zero)
    );
}

/// `--humanoid` on every shipped rig with a table: the output passes `validate --profile
/// humanoid` with no error and has the bones the table promises; `to-mpfb` gives back exactly
/// the files it gives for the same conversion without `--humanoid` (so the round trip stays
/// as exact as it is).
#[test]
fn humanoid_names_pass_the_profile_and_keep_the_round_trip() {
    let Some(data) = test_support::mpfb_data_or_skip("humanoid_names") else {
        return;
    };
    let out = tempfile::tempdir().unwrap();
    let rigs = [
        ("default", 60, false),
        ("default_no_toes", 62, false),
        ("game_engine", 51, true),
        ("mixamo", 51, false),
        ("cmu_mb", 23, false),
        ("human", 62, true),
    ];
    for (rig, bones, hips_under_another_bone) in rigs {
        // Rigify's human has no weights file: rig and mesh by path.
        let rigify = data.join("rigs/rigify/rig.human.json");
        let mesh = data.join("3dobjs/base.obj");
        let inputs: Vec<&str> = if rig == "human" {
            vec![
                "--rig",
                rigify.to_str().unwrap(),
                "--mesh",
                mesh.to_str().unwrap(),
            ]
        } else {
            vec!["--rig-name", rig]
        };
        let mut to_mpfb = Vec::new();
        for humanoid in [false, true] {
            let model = out.path().join(format!("{rig}-{humanoid}.g4b"));
            let mut args = vec!["convert"];
            args.extend_from_slice(&inputs);
            args.extend([
                "--mpfb-data",
                data.to_str().unwrap(),
                "--validate",
                "--quiet",
                "-o",
                model.to_str().unwrap(),
            ]);
            if humanoid {
                args.push("--humanoid");
            }
            let result = run(&args);
            assert!(result.status.success(), "{rig}: {}", stderr(&result));
            if humanoid {
                let result = run(&[
                    "validate",
                    "--profile",
                    "humanoid",
                    "--format",
                    "json",
                    model.to_str().unwrap(),
                ]);
                assert!(result.status.success(), "{rig}");
                let report: serde_json::Value = serde_json::from_slice(&result.stdout).unwrap();
                let findings = report["findings"].as_array().unwrap();
                let humanoid: Vec<&serde_json::Value> = findings
                    .iter()
                    .filter(|f| f["code"].as_str().unwrap().starts_with("HUMANOID_"))
                    .collect();
                let summary = humanoid
                    .iter()
                    .find(|f| f["code"] == "HUMANOID_BONES")
                    .unwrap()["message"]
                    .as_str()
                    .unwrap();
                assert!(
                    summary.starts_with(&format!("{bones} of the 62 humanoid bones")),
                    "{rig}: {summary}"
                );
                let placement = humanoid
                    .iter()
                    .any(|f| f["code"] == "HUMANOID_HIPS_PLACEMENT");
                assert_eq!(placement, hips_under_another_bone, "{rig}: {humanoid:?}");
                assert!(
                    humanoid.iter().all(|f| f["severity"] != "error"),
                    "{rig}: {humanoid:?}"
                );
                // MPFB names stay in extras.
                let file = read_path(&model, &ReadOptions::default()).unwrap();
                let hips = file
                    .document
                    .nodes
                    .iter()
                    .find(|n| n.name.as_deref() == Some("Hips"))
                    .unwrap();
                let mpfb = &hips.extras.as_ref().unwrap()["mpfb"]["name"];
                assert!(
                    mpfb.as_str()
                        .is_some_and(|n| n != "Hips" || rig == "cmu_mb")
                );
            }
            let back = out.path().join(format!("back-{rig}-{humanoid}"));
            let result = run(&[
                "to-mpfb",
                model.to_str().unwrap(),
                "--out-dir",
                back.to_str().unwrap(),
                "--name",
                rig,
                "--quiet",
            ]);
            assert!(result.status.success(), "{rig}: {}", stderr(&result));
            let mut files: Vec<(String, Vec<u8>)> = std::fs::read_dir(&back)
                .unwrap()
                .map(|e| {
                    let p = e.unwrap().path();
                    (
                        p.file_name().unwrap().to_string_lossy().into_owned(),
                        std::fs::read(&p).unwrap(),
                    )
                })
                .collect();
            files.sort();
            to_mpfb.push(files);
        }
        assert!(
            to_mpfb[0] == to_mpfb[1],
            "{rig}: to-mpfb differs with --humanoid"
        );
    }
}

/// A table that breaks the profile, names a bone the rig lacks, or gives a name outside the
/// profile is refused with the reason, and nothing is written.
#[test]
fn humanoid_tables_that_break_the_profile_are_refused() {
    let Some(data) = test_support::mpfb_data_or_skip("humanoid_tables_refused") else {
        return;
    };
    let out = tempfile::tempdir().unwrap();
    for (table, expected) in [
        (
            r#"{"mixamorig:Hips": "Hips", "mixamorig:Spine": "Head", "mixamorig:Neck": "Neck"}"#,
            "HUMANOID_ANCESTRY",
        ),
        (
            r#"{"mixamorig:Tail": "Hips"}"#,
            "`mixamorig:Tail` is not a bone of this rig",
        ),
        (
            r#"{"mixamorig:Hips": "Pelvis"}"#,
            "`Pelvis` (for `mixamorig:Hips`) is not a humanoid bone name",
        ),
        (
            r#"{"mixamorig:Hips": "Hips", "mixamorig:Spine": "Hips"}"#,
            "`Hips` is given to more than one bone",
        ),
    ] {
        let path = out.path().join("table.json");
        std::fs::write(&path, table).unwrap();
        let model = out.path().join("m.g4b");
        let result = run(&[
            "convert",
            "--rig-name",
            "mixamo",
            "--mpfb-data",
            data.to_str().unwrap(),
            "--humanoid-map",
            path.to_str().unwrap(),
            "-o",
            model.to_str().unwrap(),
        ]);
        assert_eq!(result.status.code(), Some(1), "{table}");
        assert!(
            stderr(&result).contains(expected),
            "{table}: {}",
            stderr(&result)
        );
        assert!(!model.exists());
    }
}

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

/// The on-disk cache of parsed targets changes nothing: a body converted without it, with a
/// cold cache and with a warm one is the same file, byte for byte.
#[test]
fn the_target_cache_changes_no_byte() {
    let Some(data) = test_support::mpfb_data_or_skip("the_target_cache_changes_no_byte") else {
        return;
    };
    let out = tempfile::tempdir().unwrap();
    let cache = out.path().join("cache");
    let convert = |name: &str, cache_setting: &std::ffi::OsStr| -> Vec<u8> {
        let model = out.path().join(name);
        let result = bin()
            .env("MPFB2G4MF_TARGET_CACHE", cache_setting)
            .args([
                "convert",
                "--rig-name",
                "default",
                "--mpfb-data",
                data.to_str().unwrap(),
                "--phenotype",
                "gender=0.3,age=0.7,weight=0.6,african=0.5,asian=0.2,caucasian=0.3",
                "--target",
                "nose-hump-incr=0.7",
                "--name",
                "Same",
                "--quiet",
                "-o",
                model.to_str().unwrap(),
            ])
            .output()
            .unwrap();
        assert!(result.status.success(), "{name}: {}", stderr(&result));
        std::fs::read(&model).unwrap()
    };
    let uncached = convert("off.g4b", std::ffi::OsStr::new("off"));
    let cold = convert("cold.g4b", cache.as_os_str());
    let entries = std::fs::read_dir(&cache).unwrap().count();
    assert!(entries > 5, "{entries} cache files");
    let warm = convert("warm.g4b", cache.as_os_str());
    assert!(uncached == cold && cold == warm);
}

#[test]
fn timings_name_every_stage_and_change_no_byte() {
    let Some(data) = test_support::mpfb_data_or_skip("timings_name_every_stage_and_change_no_byte")
    else {
        return;
    };
    let out = tempfile::tempdir().unwrap();
    let convert = |folder: &str, timings: bool| -> (Vec<u8>, String) {
        std::fs::create_dir_all(out.path().join(folder)).unwrap();
        let model = out.path().join(folder).join("timed.g4b");
        let mut command = convert_default(&data, &model, &[]);
        command.env_remove("MPFB2G4MF_TIMINGS");
        if timings {
            command.env("MPFB2G4MF_TIMINGS", "1");
        }
        let result = command.output().unwrap();
        assert!(result.status.success(), "{}", stderr(&result));
        (std::fs::read(&model).unwrap(), stderr(&result))
    };
    let (plain, quiet) = convert("plain", false);
    let (timed, report) = convert("timed", true);
    assert_eq!(plain, timed, "timings change the output");
    assert!(!quiet.contains("timings:"), "{quiet}");
    for stage in [
        "load inputs",
        "body",
        "fit",
        "assemble",
        "normals",
        "write: build",
        "write: encode",
        "write ",
    ] {
        let line = report
            .lines()
            .find(|l| l.starts_with(&format!("timings: {stage}")))
            .unwrap_or_else(|| panic!("no `{stage}` lap in:\n{report}"));
        let ms: f64 = line
            .trim_end_matches(" ms")
            .rsplit(' ')
            .next()
            .and_then(|n| n.parse().ok())
            .unwrap_or_else(|| panic!("no time in `{line}`"));
        assert!(ms >= 0.0 && ms.is_finite(), "{line}");
    }
    // The load lap's parts, each input file, timed on whichever core read it.
    for part in ["rig", "weights", "mesh"] {
        assert!(
            report
                .lines()
                .any(|l| l.starts_with(&format!("timings:   - {part} ")) && l.ends_with(" ms")),
            "no `{part}` part in:\n{report}"
        );
    }
    // The text format reports the same write laps.
    let text_model = out.path().join("timed.g4tf");
    let result = convert_default(&data, &text_model, &[])
        .env("MPFB2G4MF_TIMINGS", "1")
        .output()
        .unwrap();
    assert!(result.status.success(), "{}", stderr(&result));
    let report = stderr(&result);
    for stage in ["write: stats", "write: encode", "write "] {
        assert!(
            report
                .lines()
                .any(|l| l.starts_with(&format!("timings: {stage}"))),
            "no `{stage}` lap for .g4tf in:\n{report}"
        );
    }
}

/// The start-up re-exec with glibc's malloc tunables: it happens once, the user's own
/// `GLIBC_TUNABLES` or the opt-out variable prevent it, and no setting changes a byte.
#[test]
fn malloc_tuning_reexecs_once_and_changes_no_byte() {
    let Some(data) =
        test_support::mpfb_data_or_skip("malloc_tuning_reexecs_once_and_changes_no_byte")
    else {
        return;
    };
    let out = tempfile::tempdir().unwrap();
    let convert = |folder: &str, env: &[(&str, &str)]| -> (Vec<u8>, String) {
        std::fs::create_dir_all(out.path().join(folder)).unwrap();
        let model = out.path().join(folder).join("tuned.g4b");
        let mut command = convert_default(&data, &model, &[]);
        for name in [
            "GLIBC_TUNABLES",
            "MPFB2G4MF_SYSTEM_MALLOC",
            "MPFB2G4MF_MALLOC_TUNED",
        ] {
            command.env_remove(name);
        }
        command.env("MPFB2G4MF_TIMINGS", "1");
        command.envs(env.iter().copied());
        let result = command.output().unwrap();
        assert!(result.status.success(), "{}", stderr(&result));
        let report = stderr(&result);
        let start = report
            .lines()
            .find(|l| l.starts_with("timings: start"))
            .unwrap_or_else(|| panic!("no start lap in:\n{report}"))
            .to_owned();
        // One process reports: a loop or a double start would print the start lap twice.
        assert_eq!(report.matches("timings: start").count(), 1, "{report}");
        (std::fs::read(&model).unwrap(), start)
    };
    let (tuned, tuned_start) = convert("tuned", &[]);
    let (system, system_start) = convert("system", &[("MPFB2G4MF_SYSTEM_MALLOC", "1")]);
    let (own, own_start) = convert("own", &[("GLIBC_TUNABLES", "glibc.malloc.arena_max=2")]);
    let glibc = cfg!(all(target_os = "linux", target_env = "gnu"));
    let expected = if glibc { "tuned" } else { "system" };
    assert!(
        tuned_start.ends_with(&format!("(malloc: {expected})")),
        "{tuned_start}"
    );
    assert!(system_start.ends_with("(malloc: system)"), "{system_start}");
    assert!(
        own_start.ends_with("(malloc: GLIBC_TUNABLES from the environment)"),
        "{own_start}"
    );
    assert_eq!(tuned, system, "the malloc settings change the output");
    assert_eq!(tuned, own, "the user's malloc settings change the output");
}
