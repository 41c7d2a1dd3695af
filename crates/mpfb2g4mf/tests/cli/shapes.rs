//! Blend shapes `convert` writes: face units and visemes equal to their target files (and
//! valid by the official JSON schemas), detail targets kept as shapes, and a shape that moves
//! no kept vertex left out with a warning.

use crate::common::{convert_default, run, stderr, target_map};
use g4mf_reader::{G4mfFile, ReadOptions, read_path};
use std::collections::BTreeMap;

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
pub(crate) fn shape_offsets(file: &G4mfFile, name: &str) -> Option<BTreeMap<u32, [f32; 3]>> {
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

/// `--face-units --visemes`: all 67 shapes under G4MF's names, offsets equal to the target
/// files' displacements in metres (at float32) on exactly the kept vertices, valid by our
/// validator and by the official JSON schemas; an empty target (`viseme_sil`) stays as an
/// empty shape.
#[test]
fn face_units_and_visemes_are_blend_shapes_with_the_targets_offsets() {
    let data = test_support::mpfb_data_or_skip!(
        face_units_and_visemes_are_blend_shapes_with_the_targets_offsets
    );
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

/// `--keep-targets-as-shapes`: the description's detail targets become shapes at their
/// weights, and the rest mesh plus the weighted shapes is the baked body (bodies are linear).
#[test]
fn kept_detail_targets_add_up_to_the_baked_body() {
    let data = test_support::mpfb_data_or_skip!(kept_detail_targets_add_up_to_the_baked_body);
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
    let data = test_support::mpfb_data_or_skip!(
        a_shape_that_moves_no_kept_vertex_is_dropped_with_a_warning
    );
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
            .any(|w| w["code"] == "SHAPE_LEFT_OUT"
                && w["kind"] == "shapes"
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

/// The blend shapes of the body mesh (mesh 0) by name, each as its number of offsets and its
/// largest offset (metres).
pub(crate) fn shapes_of(file: &G4mfFile) -> BTreeMap<String, (usize, f64)> {
    let blend = serde_json::to_value(file.document.meshes[0].blend.as_ref().unwrap()).unwrap();
    let mut out = BTreeMap::new();
    for shape in blend["shapes"].as_array().unwrap() {
        let name = shape["name"].as_str().unwrap().to_owned();
        let offsets = shape_offsets(file, &name).unwrap_or_default();
        let largest = offsets
            .values()
            .map(|d| d.iter().map(|x| f64::from(*x).powi(2)).sum::<f64>().sqrt())
            .fold(0.0, f64::max);
        out.insert(name, (offsets.len(), largest));
    }
    out
}

#[test]
fn makehumans_expressions_are_blend_shapes_on_a_rig_without_face_bones() {
    let data = test_support::mpfb_data_or_skip!(
        makehumans_expressions_are_blend_shapes_on_a_rig_without_face_bones
    );
    let mut needed: Vec<&str> = mpfb2g4mf::expressions::MAKEHUMAN_FILES.to_vec();
    needed.extend(["expressions/smile01.mhpose", "expressions/anger01.mhpose"]);
    needed.extend(test_support::DEFAULT_EYES);
    let assets = test_support::makehuman_assets_or_skip!(
        makehumans_expressions_are_blend_shapes_on_a_rig_without_face_bones,
        &needed
    );
    let dir = tempfile::tempdir().unwrap();
    let convert = |out: &std::path::Path, shapes: &str| {
        run(&[
            "convert",
            "--rig-name",
            "game_engine",
            "--mpfb-data",
            data.to_str().unwrap(),
            "--assets",
            assets.to_str().unwrap(),
            "--expression-shapes",
            shapes,
            "--quiet",
            "-o",
            out.to_str().unwrap(),
        ])
    };
    let out = dir.path().join("faces.g4b");
    let output = convert(&out, "smile01,anger01");
    assert!(output.status.success(), "{}", stderr(&output));
    let file = read_path(&out, &ReadOptions::default()).unwrap();
    let shapes = shapes_of(&file);
    for name in ["smile01", "anger01"] {
        let (count, largest) = shapes[name];
        // A face's few thousand vertices, moved by millimetres to a couple of centimetres.
        assert!(count > 100 && count < 6000, "{name}: {count} vertices");
        assert!(largest > 0.001 && largest < 0.05, "{name}: {largest} m");
    }
    let validated = run(&["validate", out.to_str().unwrap()]);
    assert!(validated.status.success(), "{}", stderr(&validated));
    // `all`: every expression of the folder, by name.
    let all = dir.path().join("all.g4b");
    let output = convert(&all, "all");
    assert!(output.status.success(), "{}", stderr(&output));
    let shipped = std::fs::read_dir(assets.join("expressions"))
        .unwrap()
        .filter(|e| {
            e.as_ref()
                .is_ok_and(|e| e.path().extension().is_some_and(|x| x == "mhpose"))
        })
        .count();
    let file = read_path(&all, &ReadOptions::default()).unwrap();
    assert_eq!(shapes_of(&file).len(), shipped);
    // A name the folder lacks: one line with near names, no file.
    let typo = dir.path().join("typo.g4b");
    let output = convert(&typo, "smile1");
    let said = stderr(&output);
    assert_eq!(output.status.code(), Some(1), "{said}");
    assert!(
        said.contains("--expression-shapes: no expression `smile1`")
            && said.contains("did you mean `smile01`"),
        "{said}"
    );
    assert!(!typo.exists());
    // Not a name at all: a usage error before anything is read.
    let output = convert(&typo, "../x");
    assert!(
        stderr(&output).contains("--expression-shapes `../x`"),
        "{}",
        stderr(&output)
    );
}

/// The body mesh's rest positions by source vertex.
pub(crate) fn rest_positions(file: &G4mfFile) -> BTreeMap<u32, [f64; 3]> {
    let source = source_of_kept(file);
    let positions = file.read_f64(file.document.meshes[0].vertices).unwrap();
    positions
        .chunks_exact(3)
        .zip(source)
        .map(|(p, s)| (s, [p[0], p[1], p[2]]))
        .collect()
}

#[test]
fn an_expression_baked_into_the_rest_is_its_shape_applied() {
    let data =
        test_support::mpfb_data_or_skip!(an_expression_baked_into_the_rest_is_its_shape_applied);
    let mut needed: Vec<&str> = mpfb2g4mf::expressions::MAKEHUMAN_FILES.to_vec();
    needed.push("expressions/smile01.mhpose");
    let assets = test_support::makehuman_assets_or_skip!(
        an_expression_baked_into_the_rest_is_its_shape_applied,
        &needed
    );
    let dir = tempfile::tempdir().unwrap();
    let convert = |out: &std::path::Path, extra: &[&str]| {
        let mut args = vec![
            "convert",
            "--rig-name",
            "game_engine",
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
        run(&args)
    };
    let neutral = dir.path().join("neutral.g4b");
    let output = convert(&neutral, &["--expression-shapes", "smile01"]);
    assert!(output.status.success(), "{}", stderr(&output));
    let smiling = dir.path().join("smiling.g4b");
    let output = convert(&smiling, &["--expression", "smile01"]);
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(
        stderr(&output)
            .contains("note      EXPRESSION_BAKED: expression smile01 baked into the rest"),
        "{}",
        stderr(&output)
    );
    // The baked rest is the neutral rest moved by the smile's shape, vertex by vertex (the
    // shape's offsets are float32).
    let neutral = read_path(&neutral, &ReadOptions::default()).unwrap();
    let shape = shape_offsets(&neutral, "smile01").unwrap();
    let before = rest_positions(&neutral);
    let after = rest_positions(&read_path(&smiling, &ReadOptions::default()).unwrap());
    assert_eq!(before.len(), after.len());
    let mut moved = 0;
    for (v, p) in &before {
        let d = shape.get(v).copied().unwrap_or([0.0; 3]);
        let q = after[v];
        for k in 0..3 {
            assert!(
                (q[k] - p[k] - f64::from(d[k])).abs() < 1e-6,
                "vertex {v}: {q:?} != {p:?} + {d:?}"
            );
        }
        moved += usize::from(d != [0.0; 3]);
    }
    assert!(moved > 100, "{moved} vertices moved");
    // A `.mhm`'s `expression` line bakes the same; `--expression none` ignores it.
    let mhm = dir.path().join("smiling.mhm");
    std::fs::write(
        &mhm,
        "version v1.1.1\nskeleton game_engine.mhskel\nexpression expressions/smile01.mhpose\n",
    )
    .unwrap();
    let described = |out: &std::path::Path, extra: &[&str]| {
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
        run(&args)
    };
    let from_line = dir.path().join("line.g4b");
    let output = described(&from_line, &[]);
    assert!(
        stderr(&output).contains("expression smile01 baked into the rest")
            && !stderr(&output).contains("not converted"),
        "{}",
        stderr(&output)
    );
    let ignored = dir.path().join("ignored.g4b");
    let output = described(&ignored, &["--expression", "none"]);
    assert!(
        output.status.success() && !stderr(&output).contains("baked into the rest"),
        "{}",
        stderr(&output)
    );
    // A `.vrm` writes it as an expression instead: `vrm_expressions`.
}

#[test]
fn a_population_takes_expressions_from_its_manifest() {
    let data = test_support::mpfb_data_or_skip!(a_population_takes_expressions_from_its_manifest);
    let mut needed: Vec<&str> = mpfb2g4mf::expressions::MAKEHUMAN_FILES.to_vec();
    needed.extend(["expressions/smile01.mhpose", "expressions/anger01.mhpose"]);
    let assets = test_support::makehuman_assets_or_skip!(
        a_population_takes_expressions_from_its_manifest,
        &needed
    );
    let dir = tempfile::tempdir().unwrap();
    // The same population twice: with an expression baked and a shape, and without either.
    let batch = |name: &str, keys: &str| {
        let manifest = dir.path().join(format!("{name}.toml"));
        std::fs::write(
            &manifest,
            format!(
                r#"
[defaults]
mpfb_data = "{}"
assets = "{}"
eyes = "none"
{keys}

[population]
rig_name = "game_engine"
count = 2
seed = 3
output = "{name}/face-{{index}}.g4b"
[population.ranges]
gender = [0.0, 1.0]
"#,
                data.display(),
                assets.display()
            ),
        )
        .unwrap();
        let result = run(&["batch", manifest.to_str().unwrap(), "--quiet"]);
        assert!(result.status.success(), "{}", stderr(&result));
        (0..2)
            .map(|i| {
                let path = dir.path().join(format!("{name}/face-{i}.g4b"));
                read_path(&path, &ReadOptions::default()).unwrap()
            })
            .collect::<Vec<_>>()
    };
    let angry = batch(
        "angry",
        "expression = \"anger01\"\nexpression_shapes = \"smile01\"",
    );
    let plain = batch("plain", "");
    for (angry, plain) in angry.iter().zip(&plain) {
        assert!(shapes_of(angry).contains_key("smile01"));
        let (a, p) = (rest_positions(angry), rest_positions(plain));
        let moved: Vec<&u32> = a
            .keys()
            .filter(|v| (0..3).any(|k| (a[*v][k] - p[*v][k]).abs() > 1e-9))
            .collect();
        assert!(moved.len() > 100, "{} vertices moved", moved.len());
        // The face moved; nothing below the shoulders did. On MakeHuman's base mesh the
        // clavicles' heads are 0.196 of the height below the top, and the lowest vertex a jaw
        // weight reaches (778, the front of the neck) 0.157.
        let top = p.values().map(|q| q[1]).fold(f64::MIN, f64::max);
        let bottom = p.values().map(|q| q[1]).fold(f64::MAX, f64::min);
        let shoulders = top - 0.18 * (top - bottom);
        let low = moved.iter().find(|v| p[**v][1] < shoulders);
        assert!(low.is_none(), "vertex {low:?} below the shoulders moved");
    }
}

#[test]
fn an_mpfb_expression_is_its_face_units_weighted_and_baked_into_the_rest() {
    let data = test_support::mpfb_data_or_skip!(
        an_mpfb_expression_is_its_face_units_weighted_and_baked_into_the_rest
    );
    let dir = tempfile::tempdir().unwrap();
    let expression = dir.path().join("wink.json");
    std::fs::write(
        &expression,
        r#"{"format_version": 1, "name": "wink", "face_units": {"jawOpen": 1.0, "eyeBlinkLeft": 0.5, "noSuchUnit": 1.0}, "author": "us"}"#,
    )
    .unwrap();
    let convert = |out: &std::path::Path, extra: &[&str]| {
        let output = convert_default(&data, out, extra).output().unwrap();
        assert!(output.status.success(), "{}", stderr(&output));
        output
    };
    let neutral = dir.path().join("neutral.g4b");
    convert(&neutral, &["--face-units"]);
    let winking = dir.path().join("winking.g4b");
    let flag = expression.to_str().unwrap();
    convert(&winking, &["--expression", flag]);
    let neutral = read_path(&neutral, &ReadOptions::default()).unwrap();
    let jaw = shape_offsets(&neutral, "FaceJawOpen").unwrap();
    let blink = shape_offsets(&neutral, "FaceEyeClosedLeft").unwrap();
    let before = rest_positions(&neutral);
    let after = rest_positions(&read_path(&winking, &ReadOptions::default()).unwrap());
    // The baked rest is the neutral rest plus 1 x jawOpen plus 0.5 x eyeBlinkLeft, vertex by
    // vertex (the shapes' offsets are float32).
    let mut moved = 0;
    for (v, p) in &before {
        let d = |m: &BTreeMap<u32, [f32; 3]>, k: usize| f64::from(m.get(v).map_or(0.0, |o| o[k]));
        for k in 0..3 {
            let expected = p[k] + d(&jaw, k) + 0.5 * d(&blink, k);
            assert!(
                (after[v][k] - expected).abs() < 2e-6,
                "vertex {v}: {:?} != {p:?} + offsets",
                after[v]
            );
        }
        moved += usize::from(jaw.contains_key(v) || blink.contains_key(v));
    }
    assert!(moved > 100, "{moved} vertices moved");
    // A face unit MPFB does not know is skipped, as MPFB skips it, and said.
    let again = dir.path().join("again.g4b");
    let output = run(&[
        "convert",
        "--rig-name",
        "default",
        "--mpfb-data",
        data.to_str().unwrap(),
        "--expression",
        flag,
        "-o",
        again.to_str().unwrap(),
    ]);
    let said = stderr(&output);
    assert!(output.status.success(), "{said}");
    assert!(
        said.contains("note      MPFB_EXPRESSION_BAKED: MPFB expression wink (2 face units) baked into the rest"),
        "{said}"
    );
    assert!(
        said.contains(
            "warning   MPFB_EXPRESSION_UNITS_SKIPPED: MPFB expression wink: noSuchUnit not among MPFB's face units, skipped"
        ),
        "{said}"
    );
    // A `.vrm` is refused on one line (its expressions are presets, not baked).
    let vrm = dir.path().join("wink.vrm");
    let output = convert_default(&data, &vrm, &["--expression", flag])
        .output()
        .unwrap();
    assert!(!output.status.success());
    assert!(stderr(&output).contains("is not written as a .vrm expression yet"));
    assert!(!vrm.exists());
}
