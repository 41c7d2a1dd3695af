//! Avatar details through the real CLI: computed straight T-poses, humanoid names matched on
//! rigs without a table, and face helpers no weight moves bound to their bones.

#![allow(clippy::unwrap_used)]

use crate::common::shared as common;

use common::{bin, succeed, world_transforms};
use g4mf_reader::{G4mfFile, ReadOptions, read_path};
use glam::{DMat3, DVec3};
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

/// World frames of the bone nodes by node name, and each bone node's parent node name.
struct Frames {
    world: HashMap<String, (DVec3, DMat3)>,
    parent: HashMap<String, String>,
}

fn frames(file: &G4mfFile) -> Frames {
    let doc = &file.document;
    let world = world_transforms(doc);
    let mut frames = Frames {
        world: HashMap::new(),
        parent: HashMap::new(),
    };
    for (i, node) in doc.nodes.iter().enumerate() {
        let Some(name) = node.name.clone() else {
            continue;
        };
        if node.bone.is_some() {
            frames.world.insert(name.clone(), world[i]);
        }
        for child in &node.children {
            if let Some(child) = &doc.nodes[child.get()].name {
                frames.parent.insert(child.clone(), name.clone());
            }
        }
    }
    frames
}

impl Frames {
    /// Node names from `top` down to `bottom`, following parents up from `bottom`.
    fn chain(&self, top: &str, bottom: &str) -> Vec<String> {
        let mut out = vec![bottom.to_owned()];
        while out.last().unwrap() != top {
            let up = self.parent.get(out.last().unwrap());
            out.push(
                up.unwrap_or_else(|| panic!("{bottom} is not below {top}"))
                    .clone(),
            );
        }
        out.reverse();
        out
    }

    fn y(&self, bone: &str) -> DVec3 {
        self.world
            .get(bone)
            .unwrap_or_else(|| panic!("no bone {bone}"))
            .1
            .y_axis
    }

    fn head(&self, bone: &str) -> DVec3 {
        self.world[bone].0
    }
}

/// `convert --rig-name RIG --humanoid --validate` with `extra` flags; the file read back.
fn convert_humanoid(data: &Path, out: &Path, rig: &str, extra: &[&str]) -> (G4mfFile, String) {
    let summary = succeed(
        bin()
            .args(["convert", "--rig-name", rig, "--mpfb-data"])
            .arg(data)
            .args(["--humanoid", "--validate"])
            .args(extra)
            .arg("-o")
            .arg(out),
    );
    (read_path(out, &ReadOptions::default()).unwrap(), summary)
}

/// A computed T-pose on rigs without an MPFB T-pose file (Mixamo, Rigify `human`), and a
/// straight one on a rig that has a file (game engine): every arm bone from the upper arm to
/// the hand within 2 degrees of the side axis, the palm down within 10 degrees, every leg
/// bone from the upper leg to the foot within 2 degrees of straight down.
#[test]
fn computed_t_poses_have_straight_limbs_and_palms_down() {
    let data =
        test_support::mpfb_data_or_skip!(computed_t_poses_have_straight_limbs_and_palms_down);
    let out = tempfile::tempdir().unwrap();
    for (rig, pose) in [
        ("mixamo", "t-pose"),
        ("human", "t-pose"),
        ("game_engine", "straight-t-pose"),
    ] {
        let path = out.path().join(format!("{rig}.g4b"));
        let (file, summary) = convert_humanoid(&data, &path, rig, &["--rest-pose", pose]);
        assert!(summary.contains("computed T-pose"), "{rig}: {summary}");
        let f = frames(&file);
        for (side, axis) in [("Left", DVec3::X), ("Right", DVec3::NEG_X)] {
            let arm = f.chain(&format!("{side}UpperArm"), &format!("{side}Hand"));
            assert!(arm.len() >= 3, "{rig}: {arm:?}");
            for bone in &arm {
                let degrees = f.y(bone).angle_between(axis).to_degrees();
                assert!(
                    degrees < 2.0,
                    "{rig} {bone}: {degrees} degrees off the side axis"
                );
            }
            // Palm down with the arm along the side axis puts the thumb's side forward: the
            // knuckle line (pinky to index), across the hand, points to +Z.
            let across =
                f.head(&format!("{side}IndexProximal")) - f.head(&format!("{side}PinkyProximal"));
            let across = across - axis * across.dot(axis);
            let degrees = across.angle_between(DVec3::Z).to_degrees();
            // The issue's bound is 10 degrees; the twist levels the knuckles exactly, and
            // without it these rigs are 1 to 8.7 degrees off.
            assert!(
                degrees < 1.0,
                "{rig} {side}: palm {degrees} degrees off down"
            );
            let leg = f.chain(&format!("{side}UpperLeg"), &format!("{side}Foot"));
            for bone in &leg[..leg.len() - 1] {
                let degrees = f.y(bone).angle_between(DVec3::NEG_Y).to_degrees();
                assert!(
                    degrees < 2.0,
                    "{rig} {bone}: {degrees} degrees off vertical"
                );
            }
        }
    }
}

/// The same rig as `rig` without its shipped table: a copy named `rig.mine_RIG.json`.
fn hidden_table(rig: &Path, folder: &Path) -> PathBuf {
    let name = rig.file_name().unwrap().to_str().unwrap();
    let copy = folder.join(name.replacen("rig.", "rig.mine_", 1));
    std::fs::copy(rig, &copy).unwrap();
    copy
}

/// A rig of the fetched package, or one made from its sibling in the data folder the same
/// way (`game_engine_with_breast` is `game_engine` with two breast bones on the chest;
/// `human_toes` is `human` with toe bones under each `toe`), so CI's data serves too.
fn rig_of_package(data: &Path, folder: &Path, rig: &str) -> PathBuf {
    let (family, sibling) = match rig {
        "game_engine_with_breast" => ("standard", "game_engine"),
        _ => ("rigify", "human"),
    };
    let real = data.join(format!("rigs/{family}/rig.{rig}.json"));
    if real.is_file() {
        return real;
    }
    let text =
        std::fs::read_to_string(data.join(format!("rigs/{family}/rig.{sibling}.json"))).unwrap();
    let mut json: serde_json::Value = serde_json::from_str(&text).unwrap();
    // Version 110 keeps the bones under `bones`; the bare legacy layout is the map itself.
    let bones = if json.get("bones").is_some() {
        json["bones"].as_object_mut().unwrap()
    } else {
        json.as_object_mut().unwrap()
    };
    let mut add = |name: String, like: &str, parent: &str| {
        let mut bone = bones[like].clone();
        bone["parent"] = parent.into();
        bones.insert(name, bone);
    };
    if rig == "game_engine_with_breast" {
        add("breast_l".into(), "clavicle_l", "spine_02");
        add("breast_r".into(), "clavicle_r", "spine_02");
    } else {
        for side in ["L", "R"] {
            for toe in 1..=5 {
                let mut parent = format!("toe.{side}");
                for segment in 1..=3 {
                    let name = format!("toe{toe}-{segment}.{side}");
                    add(name.clone(), &format!("toe.{side}"), &parent);
                    parent = name;
                }
            }
        }
    }
    let path = folder.join(format!("rig.{rig}.json"));
    std::fs::write(&path, serde_json::to_string(&json).unwrap()).unwrap();
    path
}

fn shipped_table(rig: &str) -> BTreeMap<String, String> {
    let path = test_support::workspace_root().join(format!("crates/mpfb2g4mf/humanoid/{rig}.json"));
    let mut table: BTreeMap<String, String> =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    table.remove("//");
    table
}

/// `--humanoid` on rigs whose table is hidden (and on the fetched package's two rigs without
/// one) matches the same bones to the same names as the shipped tables, and the file passes
/// `validate --profile humanoid`; `--humanoid-print-map` prints a table `--humanoid-map`
/// takes back, with the bones it could not place.
#[test]
fn humanoid_names_are_matched_on_rigs_without_a_table() {
    let data = test_support::mpfb_data_or_skip!(humanoid_names_are_matched_on_rigs_without_a_table);
    let out = tempfile::tempdir().unwrap();
    let mut rigs: Vec<(PathBuf, &str)> = [
        ("standard", "default"),
        ("standard", "default_no_toes"),
        ("standard", "game_engine"),
        ("standard", "mixamo"),
        ("standard", "cmu_mb"),
        ("rigify", "human"),
    ]
    .into_iter()
    .map(|(family, rig)| {
        let path = data.join(format!("rigs/{family}/rig.{rig}.json"));
        (hidden_table(&path, out.path()), rig)
    })
    .collect();
    rigs.push((
        rig_of_package(&data, out.path(), "game_engine_with_breast"),
        "game_engine",
    ));
    rigs.push((rig_of_package(&data, out.path(), "human_toes"), "human"));
    for (rig, table) in &rigs {
        let model = out.path().join("m.g4b");
        let output = bin()
            .args(["convert", "--rig"])
            .arg(rig)
            .args(["--mpfb-data"])
            .arg(&data)
            .args(["--humanoid-print-map", "--validate", "-o"])
            .arg(&model)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(output.status.success(), "{}: {stderr}", rig.display());
        let mut printed: BTreeMap<String, String> = serde_json::from_slice(&output.stdout).unwrap();
        let comment = printed.remove("//").unwrap();
        assert!(comment.contains("names matched on rig."), "{comment}");
        assert_eq!(printed, shipped_table(table), "{}", rig.display());
        let validated = bin()
            .args(["validate", "--profile", "humanoid"])
            .arg(&model)
            .output()
            .unwrap();
        assert!(
            validated.status.success(),
            "{}: {}",
            rig.display(),
            String::from_utf8_lossy(&validated.stdout)
        );
        if *table == "game_engine" {
            // No jaw, no eyes, no metacarpals: named, in the summary and in the table.
            assert!(
                stderr
                    .lines()
                    .any(|l| l.starts_with("  note      HUMANOID_NOT_PLACED: ")
                        && l.contains("not placed: Jaw, LeftEye, RightEye, LeftIndexMetacarpal")),
                "{stderr}"
            );
            assert!(comment.contains("not placed: Jaw, LeftEye"), "{comment}");
        }
    }

    // The printed table is one `--humanoid-map` takes; a user's table wins over matching.
    let (rig, _) = &rigs[3];
    let mut table = shipped_table("mixamo");
    table.remove("mixamorig:LeftHandThumb1");
    table.remove("mixamorig:RightHandThumb1");
    let path = out.path().join("mine.json");
    std::fs::write(&path, serde_json::to_string(&table).unwrap()).unwrap();
    let output = bin()
        .args(["convert", "--rig"])
        .arg(rig)
        .args(["--mpfb-data"])
        .arg(&data)
        .args(["--humanoid-map"])
        .arg(&path)
        .args(["--humanoid-print-map", "-o"])
        .arg(out.path().join("m.g4b"))
        .output()
        .unwrap();
    assert!(output.status.success());
    let mut printed: BTreeMap<String, String> = serde_json::from_slice(&output.stdout).unwrap();
    assert!(printed.remove("//").unwrap().contains("table "));
    assert_eq!(printed, table);

    // A rig with nothing humanoid is refused, and nothing is written.
    let model = out.path().join("two.g4b");
    let output = bin()
        .args(["convert", "--rig"])
        .arg(test_support::workspace_root().join("fixtures/rigs/two_bones.v110.json"))
        .args(["--mesh"])
        .arg(data.join("3dobjs/base.obj"))
        .args(["--humanoid", "-o"])
        .arg(&model)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("names matched on two_bones.v110.json: no hips found"),
        "{stderr}"
    );
    assert!(!model.exists());
}

/// The `eye.L`/`eye.R` groups taken out of MPFB's default weights: the helper eyes are bound
/// to the eye bones with a warning each, no kept vertex is left unweighted, and with the head
/// turned (a pose baked into the rest) every eye vertex moves with the head.
#[test]
fn unweighted_helper_eyes_are_bound_and_follow_the_head() {
    let data =
        test_support::mpfb_data_or_skip!(unweighted_helper_eyes_are_bound_and_follow_the_head);
    let out = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(data.join("rigs/standard/weights.default.json")).unwrap();
    let mut weights: serde_json::Value = serde_json::from_str(&text).unwrap();
    let groups = weights["weights"].as_object_mut().unwrap();
    assert!(groups.remove("eye.L").is_some() && groups.remove("eye.R").is_some());
    let weights_path = out.path().join("weights.no_eyes.json");
    std::fs::write(&weights_path, serde_json::to_string(&weights).unwrap()).unwrap();
    let pose_path = out.path().join("head.json");
    std::fs::write(
        &pose_path,
        r#"{"bone_rotations": {"head": [0.3, 0.5, 0.2]}}"#,
    )
    .unwrap();
    let convert = |name: &str, extra: &[&str]| {
        let model = out.path().join(name);
        let summary = succeed(
            bin()
                .args(["convert", "--rig"])
                .arg(data.join("rigs/standard/rig.default.json"))
                .arg("--weights")
                .arg(&weights_path)
                .args(["--mpfb-data"])
                .arg(&data)
                .args(extra)
                .args(["--validate", "--json", "-o"])
                .arg(&model),
        );
        (read_path(&model, &ReadOptions::default()).unwrap(), summary)
    };
    let (rest, summary) = convert("rest.g4b", &[]);
    for side in ["l", "r"] {
        let side_upper = side.to_uppercase();
        let sentence = format!(
            "vertices of helper-{side}-eye were moved by no weight: bound to bone `eye.{side_upper}`"
        );
        assert!(
            summary
                .lines()
                .any(|l| l.starts_with("  warning   SKIN_HELPER_BOUND: ") && l.contains(&sentence)),
            "{summary}"
        );
    }
    assert!(summary.contains("0 unweighted vertices"), "{summary}");

    let (posed, _) = convert("posed.g4b", &["--rest-pose", pose_path.to_str().unwrap()]);
    let eyes = follows_the_head(&rest, &posed, "head", &["eye_L", "eye_R"]);
    assert!(eyes > 100, "{eyes}");
}

/// Every vertex whose only influence is one of the `eyes` bones moved exactly as the `head`
/// bone moved between `rest` and `posed` (a pose baked into the rest); how many there are.
fn follows_the_head(rest: &G4mfFile, posed: &G4mfFile, head: &str, eyes: &[&str]) -> usize {
    let (f_rest, f_posed) = (frames(rest), frames(posed));
    let (head_rest, head_posed) = (f_rest.world[head], f_posed.world[head]);
    // The head's motion: posed frame x rest frame^-1.
    let motion =
        |p: DVec3| head_posed.0 + head_posed.1 * (head_rest.1.inverse() * (p - head_rest.0));
    assert!(motion(head_rest.0 + DVec3::Y).distance(head_rest.0 + DVec3::Y) > 0.1);
    let eye_vertices: Vec<u64> = eyes.iter().flat_map(|e| bound_to(rest, e)).collect();
    // Vertices in the world: the mesh node's world transform applied.
    let world_positions = |file: &G4mfFile| {
        let doc = &file.document;
        let node = doc
            .nodes
            .iter()
            .position(|n| n.mesh_instance.is_some())
            .unwrap();
        let (at, basis) = world_transforms(doc)[node];
        let flat = file.read_f64(doc.meshes[0].vertices).unwrap();
        flat.chunks(3)
            .map(|c| at + basis * DVec3::from_slice(c))
            .collect::<Vec<_>>()
    };
    let (p_rest, p_posed) = (world_positions(rest), world_positions(posed));
    let mut worst: f64 = 0.0;
    for &v in &eye_vertices {
        let (before, after) = (p_rest[v as usize], p_posed[v as usize]);
        assert!(
            before.distance(after) > 0.005,
            "eye vertex {v} did not move"
        );
        worst = worst.max(motion(before).distance(after));
    }
    assert!(
        worst < 1e-4,
        "an eye vertex is {worst} m from where the head takes it"
    );
    eye_vertices.len()
}

/// MPFB's Rigify `human_toes` with its own weights (the fetched package has them; the shared
/// test data does not): the eyeballs' `DEF-eye_master.L`/`.R` groups feed `eye.L`/`eye.R`,
/// so no kept vertex is left unweighted.
#[test]
fn human_toes_with_its_weights_leaves_no_vertex_unweighted() {
    let data =
        test_support::mpfb_data_or_skip!(human_toes_with_its_weights_leaves_no_vertex_unweighted);
    let weights = data.join("rigs/rigify/weights.human_toes.json");
    if !weights.is_file() {
        // Not a skip of CI's data: only `mpfb2g4mf data fetch` installs this file
        // (`cargo xtask fresh-clone --tests` runs this test on it).
        eprintln!(
            "NOTE human_toes_with_its_weights: {} is not in this data folder",
            weights.display()
        );
        return;
    }
    let out = tempfile::tempdir().unwrap();
    let pose = out.path().join("head.json");
    std::fs::write(
        &pose,
        r#"{"bone_rotations": {"spine.006": [0.0, 0.7, 0.0], "spine.005": [0.3, 0.0, 0.0]}}"#,
    )
    .unwrap();
    let convert = |name: &str, extra: &[&str]| {
        let model = out.path().join(name);
        let summary = succeed(
            bin()
                .args(["convert", "--rig-name", "human_toes", "--mpfb-data"])
                .arg(&data)
                .args(extra)
                .args(["--validate", "-o"])
                .arg(&model),
        );
        (read_path(&model, &ReadOptions::default()).unwrap(), summary)
    };
    let (rest, summary) = convert("rest.g4b", &[]);
    assert!(summary.contains(", 0 unweighted vertices"), "{summary}");
    assert!(!summary.contains("dropped"), "{summary}");
    // The head turned: the eyeballs (436 body vertices, weight 1 on the eye bones) go with it.
    let (posed, _) = convert("posed.g4b", &["--rest-pose", pose.to_str().unwrap()]);
    let eyes = follows_the_head(&rest, &posed, "spine_006", &["eye_L", "eye_R"]);
    assert!(eyes >= 436, "{eyes}");
}

/// The mesh vertices whose only influence is the joint of the bone node named `bone`.
fn bound_to(file: &G4mfFile, bone: &str) -> Vec<u64> {
    let doc = &file.document;
    let skin = doc.meshes[0].skin.as_ref().unwrap();
    let skeleton = doc.nodes.iter().find_map(|n| n.skeleton.as_ref()).unwrap();
    let joint = skeleton
        .joints
        .iter()
        .position(|j| match j {
            g4mf_model::JointRef::Node(n) => doc.nodes[n.get()].name.as_deref() == Some(bone),
            g4mf_model::JointRef::Uncontrolled => false,
        })
        .unwrap() as u64;
    let vertices = file.read_u64(skin.vertices).unwrap();
    let groups = file.read_u64(skin.groups).unwrap();
    let mut count: HashMap<u64, (usize, bool)> = HashMap::new();
    for (v, g) in vertices.iter().zip(&groups) {
        let entry = count.entry(*v).or_default();
        entry.0 += 1;
        entry.1 |= *g == joint;
    }
    let mut out: Vec<u64> = count
        .into_iter()
        .filter(|(_, (n, is))| *n == 1 && *is)
        .map(|(v, _)| v)
        .collect();
    out.sort_unstable();
    out
}

/// A rig whose names say nothing (every bone `bN`) with weights that leave the jaw and
/// tongue out: no humanoid names can be found, but the conversion (which asked for none)
/// still succeeds, binding the lower teeth and tongue to the nearest bone with a warning.
#[test]
fn unweighted_helpers_on_a_rig_without_names_go_to_the_nearest_bone() {
    let data = test_support::mpfb_data_or_skip!(
        unweighted_helpers_on_a_rig_without_names_go_to_the_nearest_bone
    );
    let out = tempfile::tempdir().unwrap();
    let rig_text = std::fs::read_to_string(data.join("rigs/standard/rig.default.json")).unwrap();
    let rig: serde_json::Map<String, serde_json::Value> = serde_json::from_str(&rig_text).unwrap();
    let rename: HashMap<String, String> = rig
        .keys()
        .enumerate()
        .map(|(i, name)| (name.clone(), format!("b{i}")))
        .collect();
    let opaque: serde_json::Map<String, serde_json::Value> = rig
        .into_iter()
        .map(|(name, mut bone)| {
            if let Some(parent) = bone["parent"].as_str().and_then(|p| rename.get(p)) {
                bone["parent"] = parent.clone().into();
            }
            (rename[&name].clone(), bone)
        })
        .collect();
    let rig_path = out.path().join("rig.opaque.json");
    std::fs::write(&rig_path, serde_json::to_string(&opaque).unwrap()).unwrap();
    let text = std::fs::read_to_string(data.join("rigs/standard/weights.default.json")).unwrap();
    let mut weights: serde_json::Value = serde_json::from_str(&text).unwrap();
    let groups = std::mem::take(weights["weights"].as_object_mut().unwrap());
    let kept: serde_json::Map<String, serde_json::Value> = groups
        .into_iter()
        .filter(|(g, _)| g != "jaw" && !g.starts_with("tongue"))
        .filter_map(|(g, v)| Some((rename.get(&g)?.clone(), v)))
        .collect();
    weights["weights"] = kept.into();
    let weights_path = out.path().join("weights.opaque.json");
    std::fs::write(&weights_path, serde_json::to_string(&weights).unwrap()).unwrap();
    let summary = succeed(
        bin()
            .args(["convert", "--rig"])
            .arg(&rig_path)
            .arg("--weights")
            .arg(&weights_path)
            .args(["--mpfb-data"])
            .arg(&data)
            .args(["--validate", "-o"])
            .arg(out.path().join("o.g4b")),
    );
    assert!(
        summary
            .lines()
            .any(|l| l.starts_with("  warning   SKIN_HELPER_BOUND: ")
                && l.contains(
                    "vertices of helper-tongue were moved by no weight: bound to bone `b"
                )),
        "{summary}"
    );
    assert!(summary.contains(", 0 unweighted vertices"), "{summary}");
}
