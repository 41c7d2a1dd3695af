//! A `.vrm`'s expressions from MakeHuman's (`vrm::MAKEHUMAN_PRESETS`): happy, angry, sad and
//! surprised are the chosen expressions' blend shapes where the pose units are found (worn
//! assets moving with them), relaxed keeps its face-unit recipe; without the pose units every
//! recipe stays, with a note; an expression asked of a `.vrm` is written as one of its
//! expressions and its rest stays neutral.

use crate::common::{bin, stderr};
use mpfb2g4mf::shape_names::FACE_UNITS;
use mpfb2g4mf::vrm::{MAKEHUMAN_PRESETS, RECIPES};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::process::Output;

/// The asset files these tests read: MakeHuman's expression files, the four presets'
/// expressions and `smile01`, the default eyes, an eyebrow and eyelashes.
fn needed() -> Vec<&'static str> {
    let mut needed: Vec<&str> = mpfb2g4mf::expressions::MAKEHUMAN_FILES.to_vec();
    needed.extend([
        "expressions/smile04.mhpose",
        "expressions/anger01.mhpose",
        "expressions/sad02.mhpose",
        "expressions/surprise01.mhpose",
        "expressions/smile01.mhpose",
        "eyebrows/eyebrow001/eyebrow001.mhclo",
        "eyelashes/eyelashes01/eyelashes01.mhclo",
    ]);
    needed.extend(test_support::DEFAULT_EYES);
    needed
}

/// `convert --rig-name default --mpfb-data DATA FLAGS -o OUT` finding no assets folder but
/// one `--assets` gives (`HOME` is `home`, `$MAKEHUMAN_ASSETS` unset).
fn convert(data: &Path, home: &Path, out: &Path, flags: &[&str]) -> Output {
    let mut command = bin();
    test_support::isolate(&mut command, home)
        .args(["convert", "--rig-name", "default", "--mpfb-data"])
        .arg(data)
        .args(flags)
        .arg("-o")
        .arg(out)
        .output()
        .unwrap()
}

/// [`convert`] that must succeed; its summary.
fn converted(data: &Path, home: &Path, out: &Path, flags: &[&str]) -> String {
    let output = convert(data, home, out, flags);
    assert!(output.status.success(), "{flags:?}: {}", stderr(&output));
    stderr(&output)
}

/// One mesh of a glTF file: its primitives' rest positions, and each morph target's position
/// offsets by name, primitives in order.
#[derive(Default)]
struct MeshData {
    rest: Vec<Vec<f64>>,
    targets: BTreeMap<String, Vec<Vec<f64>>>,
}

/// A mesh's name without the output's stem, which names the body's (`BodyMesh`).
fn mesh_name(path: &Path, mesh: &Value) -> String {
    let name = mesh["name"].as_str().unwrap();
    let stem = path.file_stem().unwrap().to_str().unwrap();
    name.strip_prefix(stem).unwrap_or(name).to_owned()
}

/// The glTF document of `path` as JSON, and its meshes by [`mesh_name`].
fn meshes(path: &Path) -> (Value, BTreeMap<String, MeshData>) {
    let (root, buffer) = test_support::gltf::read(path);
    let document = serde_json::to_value(&root).unwrap();
    let accessor = |index: &Value| {
        test_support::gltf::accessor(&root, &buffer, index.as_u64().unwrap() as usize)
    };
    let mut out = BTreeMap::new();
    for (i, mesh) in document["meshes"].as_array().unwrap().iter().enumerate() {
        let names = test_support::gltf::target_names(&root, i);
        let mut data = MeshData::default();
        for primitive in mesh["primitives"].as_array().unwrap() {
            data.rest
                .extend(accessor(&primitive["attributes"]["POSITION"]));
            for (name, target) in names
                .iter()
                .zip(primitive["targets"].as_array().into_iter().flatten())
            {
                data.targets
                    .entry(name.clone())
                    .or_default()
                    .extend(accessor(&target["POSITION"]));
            }
        }
        assert!(
            out.insert(mesh_name(path, mesh), data).is_none(),
            "{}",
            path.display()
        );
    }
    (document, out)
}

/// A `.vrm`'s expressions, `preset NAME` or `custom NAME`, each as its binds `(mesh name,
/// target name, weight)`.
fn binds(path: &Path) -> BTreeMap<String, Vec<(String, String, f64)>> {
    let (document, _) = meshes(path);
    let mut out = BTreeMap::new();
    for kind in ["preset", "custom"] {
        let group = &document["extensions"]["VRMC_vrm"]["expressions"][kind];
        for (name, expression) in group.as_object().into_iter().flatten() {
            let binds = expression["morphTargetBinds"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|b| {
                    let node = &document["nodes"][b["node"].as_u64().unwrap() as usize];
                    let mesh = &document["meshes"][node["mesh"].as_u64().unwrap() as usize];
                    let target =
                        &mesh["extras"]["targetNames"][b["index"].as_u64().unwrap() as usize];
                    (
                        mesh_name(path, mesh),
                        target.as_str().unwrap().to_owned(),
                        b["weight"].as_f64().unwrap(),
                    )
                })
                .collect();
            out.insert(format!("{kind} {name}"), binds);
        }
    }
    out
}

/// A preset's recipe as body binds `(G4MF shape name, weight)`.
fn recipe(preset: &str) -> BTreeSet<(String, String)> {
    let recipe = RECIPES.iter().find(|r| r.preset == preset).unwrap();
    recipe
        .units
        .iter()
        .map(|(unit, weight)| {
            let (_, shape) = FACE_UNITS.iter().find(|(file, _)| file == unit).unwrap();
            ((*shape).to_owned(), format!("{weight:.3}"))
        })
        .collect()
}

/// The binds on `mesh`, as `(shape, weight)`.
fn on_mesh(binds: &[(String, String, f64)], mesh: &str) -> BTreeSet<(String, String)> {
    binds
        .iter()
        .filter(|(m, _, _)| m == mesh)
        .map(|(_, shape, weight)| (shape.clone(), format!("{weight:.3}")))
        .collect()
}

/// `--assets ASSETS --eyes none` and `extra`.
fn with_assets<'a>(assets: &'a str, extra: &[&'a str]) -> Vec<&'a str> {
    let mut flags = vec!["--assets", assets, "--eyes", "none"];
    flags.extend(extra);
    flags
}

/// The largest difference between two lists of 3-vectors of one length.
fn largest_difference(a: &[Vec<f64>], b: &[Vec<f64>]) -> f64 {
    assert_eq!(a.len(), b.len());
    a.iter()
        .zip(b)
        .flat_map(|(p, q)| p.iter().zip(q).map(|(x, y)| (x - y).abs()))
        .fold(0.0, f64::max)
}

#[test]
fn a_vrms_emotion_presets_are_makehumans_expressions_where_the_pose_units_are() {
    let name = "a_vrms_emotion_presets_are_makehumans_expressions_where_the_pose_units_are";
    let Some(data) = test_support::mpfb_data_or_skip(name) else {
        return;
    };
    let Some(assets) = test_support::makehuman_assets_or_skip(name, &needed()) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    std::fs::create_dir(&home).unwrap();
    let assets = assets.to_str().unwrap();
    let worn = [
        "--assets",
        assets,
        "--eyebrows",
        "eyebrow001",
        "--eyelashes",
        "eyelashes01",
    ];
    let vrm = dir.path().join("faces.vrm");
    let said = converted(&data, &home, &vrm, &worn);
    assert!(
        said.contains(
            "note      VRM_PRESETS: VRM presets from MakeHuman's expressions: happy smile04, angry anger01, sad sad02, surprised surprise01"
        ),
        "{said}"
    );
    // The same character as a glTF with the four expressions as shapes, in the same rest.
    let glb = dir.path().join("faces.glb");
    let mut flags = worn.to_vec();
    flags.extend([
        "--rest-pose",
        "vrm-t-pose",
        "--expression-shapes",
        "smile04,anger01,sad02,surprise01",
    ]);
    converted(&data, &home, &glb, &flags);
    let (_, written) = meshes(&vrm);
    let (_, expected) = meshes(&glb);
    let binds = binds(&vrm);
    for (preset, expression) in MAKEHUMAN_PRESETS {
        let preset_binds = &binds[&format!("preset {preset}")];
        // Bound at weight 1 on every mesh carrying the expression's shape: the body and the
        // worn assets that move with the face.
        let bound: BTreeSet<&str> = preset_binds.iter().map(|(m, _, _)| m.as_str()).collect();
        let carrying: BTreeSet<&str> = written
            .iter()
            .filter(|(_, m)| m.targets.contains_key(expression))
            .map(|(n, _)| n.as_str())
            .collect();
        assert_eq!(bound, carrying, "{preset}");
        assert!(
            bound.contains("BodyMesh") && bound.contains("eyebrow001Mesh"),
            "{preset}: {bound:?}"
        );
        for (mesh, shape, weight) in preset_binds {
            assert_eq!((shape.as_str(), *weight), (expression, 1.0), "{preset}");
            // The shape is the expression's displacement, as `--expression-shapes` writes it.
            let ours = &written[mesh].targets[expression];
            let theirs = &expected[mesh].targets[expression];
            let off = largest_difference(ours, theirs);
            assert!(off <= 1e-6, "{preset} on {mesh}: {off} m off");
        }
        let moved = written["BodyMesh"].targets[expression]
            .iter()
            .map(|d| d.iter().map(|x| x * x).sum::<f64>().sqrt())
            .fold(0.0, f64::max);
        assert!(moved > 0.001, "{preset}: the face moves {moved} m at most");
    }
    // relaxed keeps its face-unit recipe; the face units only the replaced presets used
    // (browDownLeft is angry's alone) are not written.
    assert_eq!(
        on_mesh(&binds["preset relaxed"], "BodyMesh"),
        recipe("relaxed")
    );
    assert!(
        written["BodyMesh"]
            .targets
            .contains_key("FaceMouthSmileLeft")
    );
    assert!(!written["BodyMesh"].targets.contains_key("FaceBrowDownLeft"));

    // Without the pose units the whole recipe table stays, and a note says why: no assets
    // folder at all, or one lacking them.
    let plain = dir.path().join("plain.vrm");
    let said = converted(&data, &home, &plain, &[]);
    assert!(
        said.contains("note      VRM_PRESETS: VRM presets happy, angry, sad, surprised from face units, not MakeHuman's expressions: no MakeHuman assets folder"),
        "{said}"
    );
    let partial = dir.path().join("partial");
    std::fs::create_dir_all(partial.join("eyebrows")).unwrap();
    let lacking = dir.path().join("lacking.vrm");
    let said = converted(
        &data,
        &home,
        &lacking,
        &["--assets", partial.to_str().unwrap(), "--eyes", "none"],
    );
    assert!(
        said.contains("from face units, not MakeHuman's expressions: the assets folder")
            && said.contains("lacks rigs/default.mhskel"),
        "{said}"
    );
    for path in [&plain, &lacking] {
        let binds = self::binds(path);
        for (preset, _) in MAKEHUMAN_PRESETS {
            assert_eq!(
                on_mesh(&binds[&format!("preset {preset}")], "BodyMesh"),
                recipe(preset),
                "{}: {preset}",
                path.display()
            );
        }
    }
}

#[test]
fn an_expression_asked_of_a_vrm_is_one_of_its_expressions_and_its_rest_stays_neutral() {
    let name = "an_expression_asked_of_a_vrm_is_one_of_its_expressions_and_its_rest_stays_neutral";
    let Some(data) = test_support::mpfb_data_or_skip(name) else {
        return;
    };
    let Some(assets) = test_support::makehuman_assets_or_skip(name, &needed()) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    std::fs::create_dir(&home).unwrap();
    let assets = assets.to_str().unwrap();
    let with = |extra: &[&'static str]| with_assets(assets, extra);
    let neutral = dir.path().join("neutral.vrm");
    converted(&data, &home, &neutral, &with(&[]));
    let (_, neutral) = meshes(&neutral);
    // The rest of every mesh is the neutral `.vrm`'s, vertex for vertex.
    let rest_is_neutral = |path: &Path, neutral: &BTreeMap<String, MeshData>| {
        let (_, meshes) = meshes(path);
        assert_eq!(
            meshes.keys().collect::<Vec<_>>(),
            neutral.keys().collect::<Vec<_>>()
        );
        for (mesh, data) in &meshes {
            assert_eq!(data.rest, neutral[mesh].rest, "{}: {mesh}", path.display());
        }
    };
    // A shipped expression the table does not name: a custom expression of its name.
    let smiling = dir.path().join("smiling.vrm");
    let said = converted(&data, &home, &smiling, &with(&["--expression", "smile01"]));
    assert!(
        said.contains(
            "note      VRM_EXPRESSION_WRITTEN: expression smile01 written as the VRM custom expression smile01, not baked"
        ) && !said.contains("baked into the rest"),
        "{said}"
    );
    rest_is_neutral(&smiling, &neutral);
    let (_, written) = meshes(&smiling);
    let binds = binds(&smiling);
    assert_eq!(
        on_mesh(&binds["custom smile01"], "BodyMesh"),
        BTreeSet::from([("smile01".to_owned(), "1.000".to_owned())])
    );
    assert!(
        written["BodyMesh"].targets["smile01"]
            .iter()
            .any(|d| d.iter().any(|x| x.abs() > 0.001))
    );
    // happy is still the table's.
    assert_eq!(
        on_mesh(&binds["preset happy"], "BodyMesh"),
        BTreeSet::from([("smile04".to_owned(), "1.000".to_owned())])
    );
    // The table's expression for a preset is that preset.
    let angry = dir.path().join("angry.vrm");
    let said = converted(&data, &home, &angry, &with(&["--expression", "anger01"]));
    assert!(
        said.contains("note      VRM_EXPRESSION_WRITTEN: expression anger01 written as the VRM preset angry, not baked"),
        "{said}"
    );
    rest_is_neutral(&angry, &neutral);
    let binds = self::binds(&angry);
    assert_eq!(
        on_mesh(&binds["preset angry"], "BodyMesh"),
        BTreeSet::from([("anger01".to_owned(), "1.000".to_owned())])
    );
    assert!(!binds.keys().any(|k| k.starts_with("custom")), "{binds:?}");

    // A file named after a preset is that preset; one shape for a file asked both ways; two
    // files under one shape name refused.
    let own = dir.path().join("happy.mhpose");
    let shipped = Path::new(assets).join("expressions/smile01.mhpose");
    std::fs::copy(&shipped, &own).unwrap();
    let happy = dir.path().join("happy.vrm");
    let said = converted(
        &data,
        &home,
        &happy,
        &with_assets(assets, &["--expression", own.to_str().unwrap()]),
    );
    assert!(
        said.contains("expression happy written as the VRM preset happy"),
        "{said}"
    );
    assert_eq!(
        on_mesh(&self::binds(&happy)["preset happy"], "BodyMesh"),
        BTreeSet::from([("happy".to_owned(), "1.000".to_owned())])
    );
    let both = dir.path().join("both.vrm");
    converted(
        &data,
        &home,
        &both,
        &with(&["--expression-shapes", "smile01", "--expression", "smile01"]),
    );
    let (_, written) = meshes(&both);
    let names = written["BodyMesh"].targets.keys();
    assert_eq!(names.filter(|n| *n == "smile01").count(), 1);
    let own = dir.path().join("smile01.mhpose");
    std::fs::copy(&shipped, &own).unwrap();
    let twice = dir.path().join("twice.vrm");
    let output = convert(
        &data,
        &home,
        &twice,
        &with_assets(
            assets,
            &[
                "--expression-shapes",
                "smile01",
                "--expression",
                own.to_str().unwrap(),
            ],
        ),
    );
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    assert!(
        stderr(&output).contains("which --expression-shapes already gives"),
        "{}",
        stderr(&output)
    );
    assert!(!twice.exists());

    // A description's `expression` line likewise; `--expression none` ignores it.
    let mhm = dir.path().join("smiling.mhm");
    std::fs::write(
        &mhm,
        "version v1.1.1\nskeleton default.mhskel\nexpression expressions/smile01.mhpose\n",
    )
    .unwrap();
    let described = |out: &Path, extra: &[&'static str]| {
        let mut flags = vec!["--human", mhm.to_str().unwrap()];
        flags.extend(with(extra));
        converted(&data, &home, out, &flags)
    };
    let ignored = dir.path().join("ignored.vrm");
    let said = described(&ignored, &["--expression", "none"]);
    assert!(!said.contains("smile01"), "{said}");
    let (_, ignored) = meshes(&ignored);
    let from_line = dir.path().join("line.vrm");
    let said = described(&from_line, &[]);
    assert!(
        said.contains("expression smile01 written as the VRM custom expression smile01")
            && !said.contains("not converted"),
        "{said}"
    );
    rest_is_neutral(&from_line, &ignored);
    assert!(self::binds(&from_line).contains_key("custom smile01"));
    // With --no-expressions the line is not written, and said; the flag is refused.
    let said = described(&dir.path().join("none.vrm"), &["--no-expressions"]);
    assert!(
        said.contains(
            "note      VRM_EXPRESSION_NOT_WRITTEN: expression smile01 of the description not written: --no-expressions"
        ),
        "{said}"
    );
    let refused = dir.path().join("refused.vrm");
    let output = convert(
        &data,
        &home,
        &refused,
        &with(&["--expression", "smile01", "--no-expressions"]),
    );
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    assert!(
        stderr(&output).contains("--expression smile01 cannot make")
            && stderr(&output).trim_end().lines().count() == 1,
        "{}",
        stderr(&output)
    );
    assert!(!refused.exists());
    // An expression moving the tongue alone, which `--helpers none` leaves out: its shape
    // moves no kept vertex, so the expression is left out, said as such (not as written).
    let tongue = dir.path().join("tongue.mhpose");
    std::fs::write(
        &tongue,
        r#"{"name": "tongue", "unit_poses": {"TongueUp": 1.0}}"#,
    )
    .unwrap();
    let said = converted(
        &data,
        &home,
        &dir.path().join("tongue.vrm"),
        &with_assets(
            assets,
            &[
                "--expression",
                tongue.to_str().unwrap(),
                "--helpers",
                "none",
            ],
        ),
    );
    assert!(
        said.contains("warning   SHAPE_LEFT_OUT: blend shape tongue moves no kept vertex: left out")
            && said.contains(
                "warning   VRM_EXPRESSIONS_LEFT_OUT: VRM expressions left out, no mesh has their shapes: tongue"
            )
            && !said.contains("expression tongue written"),
        "{said}"
    );
}
