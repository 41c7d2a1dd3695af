//! `convert` of bodies MakeHuman describes: phenotypes, targets and a .mhm moving the
//! skeleton (vertex by vertex against the target files), smooth normals, the face helpers'
//! surfaces and weights, and the skin colour of the race mix.

use crate::common::{bone_frames, convert_default, run, stderr};
use g4mf_model::JointRef;
use g4mf_reader::{G4mfFile, ReadOptions, read_path};
use glam::DVec3;
use std::collections::BTreeMap;

#[test]
fn bodies_from_targets_move_the_skeleton_and_validate() {
    let data = test_support::mpfb_data_or_skip!(bodies_from_targets_move_the_skeleton_and_validate);
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
    let provenance = skeleton.extras.as_ref().unwrap().value()["mpfb2g4mf"]["body"].clone();
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
    let targets = skeleton.extras.as_ref().unwrap().value()["mpfb2g4mf"]["body"]["targets"].clone();
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
            "--target: no target named `no-such-target`",
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

#[test]
fn smooth_normals_are_unit_agree_with_the_winding_and_follow_the_morph() {
    let data = test_support::mpfb_data_or_skip!(
        smooth_normals_are_unit_agree_with_the_winding_and_follow_the_morph
    );
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
    let data =
        test_support::mpfb_data_or_skip!(face_helpers_are_surfaces_of_their_own_and_weighted);
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
    let data = test_support::mpfb_data_or_skip!(skin_colour_follows_the_race_mix);
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
