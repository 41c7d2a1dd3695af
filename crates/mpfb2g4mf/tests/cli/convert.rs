//! `convert` on the rigs and bodies themselves: every shipped rig in every container, read
//! back and checked (skeleton and skin rules, fitted positions, weight preservation), a morphed
//! body, a body in metres, the rig-name shortcut and JSON summary, influence limits, and the
//! error paths (exit codes, one-line messages, no file left behind).

use crate::common::{bone_frames, check_rules, run, stderr, world_transforms};
use g4mf_reader::G4mfFile;
use g4mf_reader::{ReadOptions, read_path};
use glam::DVec3;
use mpfb_rig::{ObjFrame, fit};
use mpfb2g4mf::{LoadedMesh, LoadedRig};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

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
                    .value()
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
        let mpfb = node.extras.as_ref().unwrap().value()["mpfb"]["name"]
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
    let data = test_support::mpfb_data_or_skip!(every_shipped_rig_converts_in_every_container);
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
    let data = test_support::mpfb_data_or_skip!(a_morphed_body_moves_the_skeleton);
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
                        .value()
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

#[test]
fn a_body_in_metres_gives_the_same_skeleton_offsets_included() {
    let data =
        test_support::mpfb_data_or_skip!(a_body_in_metres_gives_the_same_skeleton_offsets_included);
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
    let data = test_support::mpfb_data_or_skip!(rig_name_shortcut_json_summary_and_no_weights);
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
fn bad_input_exits_1_with_one_located_line_and_no_output() {
    let data =
        test_support::mpfb_data_or_skip!(bad_input_exits_1_with_one_located_line_and_no_output);
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

/// `--max-influences 4` on every shipped rig: at most 4 influences a vertex, summing to 1 at
/// float32 precision, weights still descending; `--normalize` sums to 1 and drops nothing;
/// both reported in the summary.
#[test]
fn influence_limits_keep_the_strongest_and_sum_to_one() {
    let data = test_support::mpfb_data_or_skip!(influence_limits_keep_the_strongest_and_sum_to_one);
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
