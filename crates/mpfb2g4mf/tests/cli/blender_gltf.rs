//! Our glTF and G4MF outputs against Blender's glTF importer: `cargo xtask blender-gltf-check`
//! saved what Blender 3.4 makes of our `.glb` of each job (`fixtures/blender/gltf-*.json`:
//! four bones turned in world space about their heads, every 25th vertex of every mesh at
//! rest and deformed by the armature modifier, the shape keys' names and a few keys' offsets).
//! A fresh conversion of the same job must agree: our linear blend skinning of the `.g4b` and
//! of the `.glb` within 0.2 mm of Blender's deformed vertices, the `.glb`'s own vertices at
//! rest (its `POSITION`s through its joints at rest and inverse binds) and the `.g4b`'s within
//! 0.01 mm of Blender's (vertices are matched by them), the blend shapes' names in order and
//! sampled offsets within 0.01 mm. A skin, fit, shape or glTF-writer drift fails it (a 1%
//! weight moved between a vertex's two strongest joints in the glTF writer puts vertices
//! 0.9-1.8 mm off; G4MF offsets scaled by 1.01 put a shape 0.05 mm off).

use crate::common::{run, stderr};
use g4mf_reader::{ReadOptions, read_path};
use glam::DVec3;
use serde_json::Value;
use test_support::skinning::{Matching, SkinnedMesh, Turn, g4mf, glb};

/// Deformed positions agree within this (metres).
const POSITION_TOLERANCE: f64 = 2e-4;
/// Shape offsets, and rest positions (vertices are matched by them), agree within this.
const SHAPE_TOLERANCE: f64 = 1e-5;

fn point(v: &Value) -> DVec3 {
    DVec3::new(
        v[0].as_f64().unwrap(),
        v[1].as_f64().unwrap(),
        v[2].as_f64().unwrap(),
    )
}

fn points(v: &Value) -> Vec<DVec3> {
    v.as_array().unwrap().iter().map(point).collect()
}

/// Converts the fixture's job to `.<ext>` in `out`.
fn convert(
    fixture: &Value,
    data: &std::path::Path,
    out: &std::path::Path,
    ext: &str,
) -> std::path::PathBuf {
    let variant = fixture["variant"].as_str().unwrap();
    let output = out.join(format!("{variant}.{ext}"));
    let mut args: Vec<String> = vec!["convert".into()];
    args.extend(
        fixture["convert"]
            .as_array()
            .unwrap()
            .iter()
            .map(|a| a.as_str().unwrap().to_owned()),
    );
    args.extend(["--mpfb-data".into(), data.display().to_string()]);
    if fixture["assets"].as_bool().unwrap() {
        let assets = test_support::makehuman_assets().unwrap();
        args.extend(["--assets".into(), assets.display().to_string()]);
    }
    let influences = fixture["max_influences"].to_string();
    args.extend(["--max-influences".into(), influences, "--quiet".into()]);
    args.extend(["-o".into(), output.display().to_string()]);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let result = run(&args);
    assert!(result.status.success(), "{variant}: {}", stderr(&result));
    output
}

/// One fixture mesh's samples against our mesh of that name; the worst deviations.
fn check_mesh(variant: &str, name: &str, expected: &Value, ours: &SkinnedMesh, file: &str) -> f64 {
    let rest = points(&expected["rest"]);
    let posed = points(&expected["posed"]);
    let matching = Matching::new(&rest, &ours.rest, SHAPE_TOLERANCE);
    assert_eq!(
        matching.unmatched(),
        0,
        "{variant} {name}: {} of Blender's vertices have none of our {file} vertices within {SHAPE_TOLERANCE} m",
        matching.unmatched()
    );
    let deviation = matching.deviation(&posed, &ours.posed);
    assert!(
        deviation.max <= POSITION_TOLERANCE,
        "{variant} {name}: our {file} skinning puts sampled vertex {} (rest {}) {:.3e} m from Blender's {}",
        deviation.worst,
        rest[deviation.worst],
        deviation.max,
        posed[deviation.worst]
    );
    deviation.max
}

/// The fixture's shape keys of one mesh against our shapes: names in order, sampled offsets.
fn check_shapes(
    variant: &str,
    name: &str,
    expected: &Value,
    ours: &SkinnedMesh,
    file: &str,
) -> f64 {
    let names: Vec<&str> = expected["names"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n.as_str().unwrap())
        .collect();
    let our_names: Vec<&str> = ours.shapes.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(our_names, names, "{variant} {name}: {file} shape names");
    let mut worst: f64 = 0.0;
    for (key, samples) in expected["samples"].as_object().unwrap() {
        let shape = ours.shapes.iter().find(|s| s.name == *key).unwrap();
        let samples = samples.as_array().unwrap();
        let rest: Vec<DVec3> = samples.iter().map(|s| point(&s[0])).collect();
        let offsets: Vec<DVec3> = samples.iter().map(|s| point(&s[1])).collect();
        let matching = Matching::new(&rest, &ours.rest, SHAPE_TOLERANCE);
        assert_eq!(
            matching.unmatched(),
            0,
            "{variant} {name} {key}: unmatched samples"
        );
        let deviation = matching.deviation(&offsets, &shape.offsets);
        assert!(
            deviation.max <= SHAPE_TOLERANCE,
            "{variant} {name}: {file} shape {key} at {} is {:.3e} m from Blender's offset {}",
            rest[deviation.worst],
            deviation.max,
            offsets[deviation.worst]
        );
        worst = worst.max(deviation.max);
    }
    worst
}

/// A variant's fixture against fresh `.g4b` and `.glb` conversions of its job.
fn check_variant(variant: &str) {
    let test = format!("blender_gltf_{variant}");
    let Some(data) = test_support::mpfb_data_or_skip(&test) else {
        return;
    };
    let path = test_support::workspace_root().join(format!("fixtures/blender/gltf-{variant}.json"));
    let fixture: Value = serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap();
    if fixture["assets"].as_bool().unwrap() && test_support::makehuman_assets().is_none() {
        test_support::skip_or_fail(&test, "no MakeHuman assets folder");
        return;
    }
    let turns: Vec<Turn> = fixture["turns"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| Turn {
            bone: t["bone"].as_str().unwrap().to_owned(),
            axis: point(&t["axis"]),
            degrees: t["degrees"].as_f64().unwrap(),
        })
        .collect();
    let out = tempfile::tempdir().unwrap();
    let g4b = convert(&fixture, &data, out.path(), "g4b");
    let file = read_path(&g4b, &ReadOptions::default()).unwrap();
    let ours = g4mf::meshes(&file, &turns).unwrap();
    let glb_bytes = std::fs::read(convert(&fixture, &data, out.path(), "glb")).unwrap();
    let gltf = glb::meshes(&glb_bytes, &turns).unwrap();
    let meshes = fixture["meshes"].as_object().unwrap();
    assert_eq!(
        (ours.len(), gltf.len()),
        (meshes.len(), meshes.len()),
        "{variant}: meshes"
    );
    // The turned bones' heads (the same in every variant's file: none is below another).
    let tree = g4mf::tree(&file);
    let rest = tree.rest().unwrap();
    for (bone, head) in fixture["bones"]["turned_heads"].as_object().unwrap() {
        let node = tree
            .names
            .iter()
            .position(|n| n.as_deref() == Some(bone.as_str()))
            .unwrap();
        let d = rest[node].translation.distance(point(head));
        assert!(
            d <= POSITION_TOLERANCE,
            "{variant}: {bone}'s head is {d} m from Blender's"
        );
    }
    for (name, expected) in meshes {
        let find = |list: &[SkinnedMesh]| list.iter().find(|m| m.name == *name).cloned();
        let (ours, gltf) = (find(&ours).unwrap(), find(&gltf).unwrap());
        // The turns move this mesh: a sample moved by centimetres at least.
        let moved = points(&expected["rest"])
            .iter()
            .zip(points(&expected["posed"]))
            .map(|(a, b)| a.distance(b))
            .fold(0.0, f64::max);
        assert!(
            moved > 0.01,
            "{variant} {name}: the turns move no sampled vertex"
        );
        let g4mf_worst = check_mesh(variant, name, expected, &ours, "G4MF");
        let glb_worst = check_mesh(variant, name, expected, &gltf, "glTF");
        // Both files' rest positions are Blender's (every sample matched within 0.01 mm above).
        let shapes = match fixture["shape_keys"].get(name.as_str()) {
            Some(keys) => {
                let a = check_shapes(variant, name, keys, &ours, "G4MF");
                let b = check_shapes(variant, name, keys, &gltf, "glTF");
                format!(", shapes within {:.1e} m", a.max(b))
            }
            None => {
                assert!(
                    ours.shapes.is_empty() && gltf.shapes.is_empty(),
                    "{variant} {name}: shapes Blender did not see"
                );
                String::new()
            }
        };
        eprintln!(
            "{variant} {name}: G4MF skinning within {g4mf_worst:.1e} m, glTF within {glb_worst:.1e} m of Blender{shapes}"
        );
    }
}

#[test]
fn blender_gltf_naked() {
    check_variant("naked");
}

#[test]
fn blender_gltf_game_engine_face() {
    check_variant("game_engine-face");
}

#[test]
fn blender_gltf_dressed() {
    check_variant("dressed");
}
