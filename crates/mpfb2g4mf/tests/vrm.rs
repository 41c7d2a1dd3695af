//! `.vrm` outputs through the real CLI, judged by clients nobody here wrote: three.js with
//! `@pixiv/three-vrm` (meta, humanoid, expressions and what they move, look-at, first person,
//! spring bones and how they swing) and the Khronos glTF-Validator; the rest measured against
//! VRM's `tpose.md`; the refusals.

// Helpers outside #[test] functions panic on purpose, as tests do.
#![allow(clippy::unwrap_used)]

use crate::common::shared as common;

use common::{bin, succeed};
use glam::{DMat3, DQuat, DVec3};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use test_support::clients::{
    VrmReport, assert_no_validator_issues, assert_no_vrm_errors, gltf_validator, vrm_load,
};

/// How far from VRM's T-pose any measured direction of a written rest may be (the issue's).
const TPOSE_DEGREES: f64 = 2.0;

/// The shipped rigs MPFB ships weights for (`default_no_toes` and the Rigify `human` have
/// none: a `.vrm` of them is refused, below).
const RIGS_WITH_WEIGHTS: [&str; 4] = ["cmu_mb", "default", "game_engine", "mixamo"];

/// One written `.vrm` and what its job asked for.
struct Made {
    path: PathBuf,
    /// The ponytail's spring joints are expected.
    ponytail: bool,
    /// Worn assets are expected (first-person annotations beyond the body).
    dressed: bool,
}

/// `convert` with `flags` into `out/NAME`, validated. Without `assets` it finds no assets
/// folder (`HOME` in `out`, `$MAKEHUMAN_ASSETS` unset), so a `.vrm`'s presets are the face-unit
/// recipes whatever the machine has installed.
fn convert(data: &Path, assets: Option<&Path>, out: &Path, name: &str, flags: &[&str]) -> PathBuf {
    convert_said(data, assets, out, name, flags).0
}

/// [`convert`], and its summary.
fn convert_said(
    data: &Path,
    assets: Option<&Path>,
    out: &Path,
    name: &str,
    flags: &[&str],
) -> (PathBuf, String) {
    let path = out.join(name);
    let mut command = bin();
    command
        .current_dir(test_support::workspace_root())
        .arg("convert")
        .args(flags)
        .arg("--mpfb-data")
        .arg(data);
    match assets {
        Some(assets) => {
            command.arg("--assets").arg(assets);
        }
        None => {
            let home = out.join("home");
            std::fs::create_dir_all(&home).unwrap();
            test_support::isolate(&mut command, &home);
        }
    }
    let said = succeed(command.arg("--validate").arg("-o").arg(&path));
    (path, said)
}

/// Every variant the issue names: naked on each shipped rig, dressed (with a thumbnail and
/// the cc0 licence), the ponytail outfit (with authors and a meta field), and a G4MF file in
/// VRM's T-pose taken to `.vrm` by `to-gltf`.
fn make_variants(data: &Path, assets: &Path, out: &Path) -> Vec<Made> {
    let mut made: Vec<Made> = RIGS_WITH_WEIGHTS
        .iter()
        .map(|rig| Made {
            path: convert(
                data,
                None,
                out,
                &format!("rig-{rig}.vrm"),
                &["--rig-name", rig],
            ),
            ponytail: false,
            dressed: false,
        })
        .collect();
    made.push(Made {
        path: convert(
            data,
            Some(assets),
            out,
            "dressed.vrm",
            &[
                "--human",
                "fixtures/bodies/dressed.mhm",
                "--thumbnail",
                "--vrm-license",
                "cc0",
            ],
        ),
        ponytail: false,
        dressed: true,
    });
    made.push(Made {
        path: convert(
            data,
            Some(assets),
            out,
            "ponytail.vrm",
            &[
                "--rig-name",
                "default",
                "--hair",
                "ponytail01",
                "--clothes",
                "shoes01",
                "--eyebrows",
                "eyebrow001",
                "--eyelashes",
                "eyelashes01",
                "--vrm-author",
                "Ada",
                "--vrm-author",
                "Grace",
                "--vrm-meta",
                "avatarPermission=everyone",
            ],
        ),
        ponytail: true,
        dressed: true,
    });
    let g4b = convert(
        data,
        None,
        out,
        "humanoid-vrm-t.g4b",
        &[
            "--rig-name",
            "default",
            "--humanoid",
            "--rest-pose",
            "vrm-t-pose",
            "--visemes",
            "--face-units",
        ],
    );
    let via = out.join("via-g4mf.vrm");
    succeed(
        bin()
            .arg("to-gltf")
            .arg(&g4b)
            .args(["--validate", "-o"])
            .arg(&via),
    );
    made.push(Made {
        path: via,
        ponytail: false,
        dressed: false,
    });
    made
}

/// The `VRMC_vrm` object of a written `.vrm`, and its document as JSON.
fn vrm_json(path: &Path) -> (Value, Value) {
    let (root, _) = test_support::gltf::read(path);
    let document = serde_json::to_value(&root).unwrap();
    let vrm = document["extensions"]["VRMC_vrm"].clone();
    assert!(vrm.is_object(), "{}: no VRMC_vrm", path.display());
    (document, vrm)
}

/// Bones of the file's nodes in world space (parents as in the node tree), and the humanoid
/// map by node index, for `vrm_writer::tpose::measure`.
fn bones_of(
    document: &Value,
    vrm: &Value,
) -> (Vec<character_spec::BoneSpec>, BTreeMap<String, usize>) {
    let nodes = document["nodes"].as_array().unwrap();
    let mut parent = vec![None; nodes.len()];
    for (i, node) in nodes.iter().enumerate() {
        for child in node["children"].as_array().into_iter().flatten() {
            parent[child.as_u64().unwrap() as usize] = Some(i);
        }
    }
    let local = |node: &Value| {
        let t = node["translation"]
            .as_array()
            .map_or(DVec3::ZERO, |t| DVec3::new(f(&t[0]), f(&t[1]), f(&t[2])));
        let r = node["rotation"].as_array().map_or(DQuat::IDENTITY, |r| {
            DQuat::from_xyzw(f(&r[0]), f(&r[1]), f(&r[2]), f(&r[3]))
        });
        (t, r)
    };
    // World transforms, parents first (node order is not promised: resolve recursively).
    let mut world: Vec<Option<(DVec3, DQuat)>> = vec![None; nodes.len()];
    fn resolve(
        i: usize,
        nodes: &[Value],
        parent: &[Option<usize>],
        world: &mut Vec<Option<(DVec3, DQuat)>>,
        local: &dyn Fn(&Value) -> (DVec3, DQuat),
    ) -> (DVec3, DQuat) {
        if let Some(w) = world[i] {
            return w;
        }
        let (t, r) = local(&nodes[i]);
        let w = match parent[i] {
            None => (t, r),
            Some(p) => {
                let (pt, pr) = resolve(p, nodes, parent, world, local);
                (pt + pr * t, pr * r)
            }
        };
        world[i] = Some(w);
        w
    }
    let bones = (0..nodes.len())
        .map(|i| {
            let (head, rotation) = resolve(i, nodes, &parent, &mut world, &local);
            character_spec::BoneSpec {
                name: nodes[i]["name"].as_str().unwrap_or_default().to_owned(),
                parent: parent[i],
                head,
                basis: DMat3::from_quat(rotation),
                length: 0.05,
                extras: None,
            }
        })
        .collect();
    let humanoid = vrm["humanoid"]["humanBones"]
        .as_object()
        .unwrap()
        .iter()
        .map(|(name, bone)| (name.clone(), bone["node"].as_u64().unwrap() as usize))
        .collect();
    (bones, humanoid)
}

fn f(v: &Value) -> f64 {
    v.as_f64().unwrap()
}

/// The largest offset length (metres) and the vertices a MakeHuman `.target` file moves.
fn target_motion(path: &Path) -> (f64, usize) {
    let text = std::fs::read_to_string(path).unwrap();
    let mut largest: f64 = 0.0;
    let mut moved = 0;
    for line in text
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
    {
        let numbers: Vec<f64> = line
            .split_whitespace()
            .skip(1)
            .map(|n| n.parse().unwrap())
            .collect();
        // Decimetres to metres.
        let length = DVec3::new(numbers[0], numbers[1], numbers[2]).length() * 0.1;
        if length > 0.0 {
            moved += 1;
        }
        largest = largest.max(length);
    }
    (largest, moved)
}

/// What three-vrm made of one file, held to what the file and the issue say.
fn check_report(made: &Made, report: &VrmReport, document: &Value, vrm: &Value, data: &Path) {
    let file = made.path.display();
    assert!(report.vrm, "{file}: three-vrm found no VRM");
    let meta = report.meta.as_ref().unwrap();
    assert_eq!(meta.meta_version, "1", "{file}");
    assert_eq!(
        meta.license_url.as_deref(),
        Some(vrm_writer::LICENSE_URL),
        "{file}"
    );
    assert!(!meta.authors.is_empty(), "{file}");
    assert!(
        meta.third_party_licenses
            .as_deref()
            .is_some_and(|t| t.contains("CC0")),
        "{file}: {meta:?}"
    );
    // Every human bone the file names, three-vrm found on the node the file says.
    let humanoid = report.humanoid.as_ref().unwrap();
    let found: BTreeMap<&str, Option<usize>> = humanoid
        .human_bones
        .iter()
        .map(|b| (b.bone.as_str(), b.node_index))
        .collect();
    let written = vrm["humanoid"]["humanBones"].as_object().unwrap();
    assert_eq!(found.len(), written.len(), "{file}: {found:?}");
    for (bone, node) in written {
        assert_eq!(
            found.get(bone.as_str()).copied().flatten(),
            Some(node["node"].as_u64().unwrap() as usize),
            "{file}: {bone}"
        );
    }
    for required in vrm_writer::REQUIRED {
        assert!(found.contains_key(required), "{file}: no {required}");
    }
    // The rig's humanoid bones are all there: every node named with a G4MF humanoid name
    // that VRM has a name for.
    let names: Vec<(&str, usize)> = document["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .enumerate()
        .filter_map(|(i, n)| Some((n["name"].as_str()?, i)))
        .collect();
    let expected = vrm_writer::from_g4mf_names(names);
    assert_eq!(
        found.keys().copied().collect::<BTreeSet<_>>(),
        expected.keys().map(String::as_str).collect::<BTreeSet<_>>(),
        "{file}"
    );
    check_expressions(made, report, document, data);
    check_look_at(made, report, &found);
    if made.ponytail {
        // Five bones swing from the sub-rig's anchor (which follows the head and is no joint);
        // three-vrm makes a joint of each written joint with a child, the last is its tail.
        let written = &document["extensions"]["VRMC_springBone"]["springs"];
        let joints: Vec<&str> = written[0]["joints"]
            .as_array()
            .unwrap()
            .iter()
            .map(|j| {
                document["nodes"][j["node"].as_u64().unwrap() as usize]["name"]
                    .as_str()
                    .unwrap()
            })
            .collect();
        assert_eq!(
            joints,
            [
                "ponytail01_ponytail",
                "ponytail01_ponytail1",
                "ponytail01_ponytail2",
                "ponytail01_ponytail3",
                "ponytail01_ponytail4"
            ],
            "{file}"
        );
        let springs = report.spring_bones.as_ref().unwrap();
        assert_eq!(springs.joints.len(), 4, "{file}: {springs:?}");
        assert!(!springs.colliders.is_empty(), "{file}");
        let probe = report.spring_probe.as_ref().unwrap();
        assert!(!probe.nan, "{file}: the springs went NaN");
        // Standing still, the hair only sags under its gravity (about 3 cm at the tip): a
        // joint starting inside a collider was pushed out 8 cm.
        assert!(
            probe.max_settled < 0.04,
            "{file}: the ponytail left its rest: {probe:?}"
        );
        assert!(
            probe.max_peak > 0.005,
            "{file}: the ponytail did not swing: {probe:?}"
        );
        assert!(probe.max_final.is_finite(), "{file}");
    }
    let annotations = &report.first_person.as_ref().unwrap().mesh_annotations;
    assert!(annotations.iter().any(|a| a.kind == "auto"), "{file}");
    if made.dressed {
        assert!(
            annotations.iter().any(|a| a.kind == "thirdPersonOnly"),
            "{file}: {annotations:?}"
        );
    }
}

/// Every preset is there with its binds; `aa` moves the mouth as the viseme's offsets say.
fn check_expressions(made: &Made, report: &VrmReport, document: &Value, data: &Path) {
    let file = made.path.display();
    // Every preset but the look expressions, which only a look-at by expression needs.
    for preset in vrm_writer::PRESET_EXPRESSIONS
        .into_iter()
        .filter(|p| !p.starts_with("look"))
    {
        let expression = report
            .expression(preset)
            .unwrap_or_else(|| panic!("{file}: no {preset}"));
        assert_eq!(
            expression.morph_target_binds.is_empty(),
            preset == "neutral",
            "{file}: {preset}"
        );
    }
    // Eyebrows and eyelashes carry the face's shapes and are bound with the body.
    if made.dressed {
        let blink = report.expression("blink").unwrap();
        let nodes: BTreeSet<_> = blink.morph_target_binds.iter().map(|b| &b.node).collect();
        assert!(nodes.len() >= 2, "{file}: blink binds {nodes:?}");
    }
    // Converted with an assets folder holding the pose units: the emotion presets are
    // MakeHuman's expressions, which three-vrm plays through their shapes on the body.
    if made.dressed {
        for (preset, expression) in mpfb2g4mf::vrm::MAKEHUMAN_PRESETS {
            let probe = report.expression_probe(preset).unwrap();
            assert!(
                probe.influences.iter().any(|i| {
                    i.name.as_deref() == Some(expression) && (i.after - 1.0).abs() < 1e-9
                }),
                "{file}: {preset} does not set {expression}: {:?}",
                probe.influences
            );
            assert!(
                probe
                    .meshes
                    .iter()
                    .any(|m| !m.nan && m.max_displacement > 0.001),
                "{file}: {preset} moves nothing"
            );
        }
    }
    let aa = report.expression_probe("aa").unwrap();
    let (largest, moved) = target_motion(&data.join("targets/visemes/viseme_aa.target"));
    // The body's primitives (mesh 0's node); worn teeth and tongue move with their own offsets.
    let body_node = document["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .position(|n| n["mesh"].as_u64() == Some(0))
        .unwrap();
    let body = aa
        .meshes
        .iter()
        .filter(|m| m.node_index == Some(body_node))
        .max_by(|a, b| a.max_displacement.total_cmp(&b.max_displacement))
        .unwrap_or_else(|| panic!("{file}: aa moved nothing of the body"));
    assert!(!body.nan, "{file}");
    // The rest pose turns no head vertex, so offsets keep their lengths; seams split vertices,
    // so at least as many move, and masked or extracted ones may be missing from the body.
    assert!(
        (body.max_displacement - largest).abs() < 1e-5,
        "{file}: aa moves at most {} m, the viseme says {largest} m",
        body.max_displacement
    );
    assert!(
        body.moved_vertices * 2 >= moved,
        "{file}: aa moved {} vertices, the viseme {moved}",
        body.moved_vertices
    );
}

/// The nodes some vertex of the file's skinned meshes gives a weight (`JOINTS_0` through the
/// skin's joints).
fn weighted_nodes(path: &Path) -> BTreeSet<usize> {
    let (root, buffer) = test_support::gltf::read(path);
    let document = serde_json::to_value(&root).unwrap();
    let joints: Vec<usize> = document["skins"][0]["joints"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|j| j.as_u64().unwrap() as usize)
        .collect();
    let mut weighted = BTreeSet::new();
    for mesh in document["meshes"].as_array().into_iter().flatten() {
        for primitive in mesh["primitives"].as_array().into_iter().flatten() {
            let attributes = &primitive["attributes"];
            let (Some(j), Some(w)) = (
                attributes["JOINTS_0"].as_u64(),
                attributes["WEIGHTS_0"].as_u64(),
            ) else {
                continue;
            };
            let js = test_support::gltf::accessor(&root, &buffer, j as usize);
            let ws = test_support::gltf::accessor(&root, &buffer, w as usize);
            for (j, w) in js.iter().zip(&ws) {
                for (joint, weight) in j.iter().zip(w) {
                    if *weight > 0.0 {
                        weighted.insert(joints[*joint as usize]);
                    }
                }
            }
        }
    }
    weighted
}

/// Bones turn the eyes where the rig has eye bones that move them, else expressions do.
fn check_look_at(made: &Made, report: &VrmReport, found: &BTreeMap<&str, Option<usize>>) {
    let file = made.path.display();
    let look_at = report.look_at.as_ref().unwrap();
    let weighted = weighted_nodes(&made.path);
    let moves = |bone: &str| {
        found
            .get(bone)
            .copied()
            .flatten()
            .is_some_and(|node| weighted.contains(&node))
    };
    let with_eyes = moves("leftEye") && moves("rightEye");
    let kind = look_at.kind.as_deref();
    assert_eq!(
        kind,
        Some(if with_eyes { "bone" } else { "expression" }),
        "{file}: {look_at:?}"
    );
    if !with_eyes {
        for look in ["lookUp", "lookDown", "lookLeft", "lookRight"] {
            assert!(report.expression(look).is_some(), "{file}: no {look}");
        }
    }
    // From between the eyes: a few centimetres in front of and above the head bone's head.
    let offset = DVec3::from_array(look_at.offset_from_head_bone);
    assert!(
        offset.length() > 0.02 && offset.length() < 0.2,
        "{file}: {offset}"
    );
}

#[test]
fn every_vrm_variant_loads_in_three_vrm_passes_the_validator_and_rests_in_vrms_t_pose() {
    let name = "every_vrm_variant_loads_in_three_vrm_passes_the_validator_and_rests_in_vrms_t_pose";
    let Some((data, assets)) = common::data_and_assets(name, common::DRESSED_MHM) else {
        return;
    };
    let out = tempfile::tempdir().unwrap();
    let made = make_variants(&data, &assets, out.path());
    let paths: Vec<&PathBuf> = made.iter().map(|m| &m.path).collect();
    let Some(validated) = gltf_validator(name, &paths) else {
        return;
    };
    assert_no_validator_issues(&validated);
    let Some(reports) = vrm_load(name, &paths) else {
        return;
    };
    assert_no_vrm_errors(&reports);
    for (m, report) in made.iter().zip(&reports) {
        let (document, vrm) = vrm_json(&m.path);
        check_report(m, report, &document, &vrm, &data);
        let (bones, humanoid) = bones_of(&document, &vrm);
        let measured = vrm_writer::tpose::measure(&bones, &humanoid);
        let off = measured.beyond(TPOSE_DEGREES);
        assert!(
            off.is_empty(),
            "{}: off VRM's T-pose: {off:?}",
            m.path.display()
        );
        assert!(
            !measured.items.is_empty(),
            "{}: nothing measured",
            m.path.display()
        );
    }
    // The meta the flags asked for.
    let by_name = |n: &str| &reports[made.iter().position(|m| m.path.ends_with(n)).unwrap()];
    let dressed = by_name("dressed.vrm").meta.as_ref().unwrap();
    // The description's name (`name Dana`), not the output's stem.
    assert_eq!(dressed.name.as_deref(), Some("Dana"));
    assert_eq!(
        by_name("ponytail.vrm")
            .meta
            .as_ref()
            .unwrap()
            .name
            .as_deref(),
        Some("ponytail")
    );
    assert_eq!(dressed.avatar_permission.as_deref(), Some("everyone"));
    assert_eq!(dressed.commercial_usage.as_deref(), Some("corporation"));
    assert_eq!(dressed.allow_redistribution, Some(true));
    assert_eq!(
        dressed.other_license_url.as_deref(),
        Some(mpfb2g4mf::vrm::CC0_URL)
    );
    let thumbnail = dressed.thumbnail.as_ref().expect("a thumbnail");
    assert_eq!((thumbnail.width, thumbnail.height), (Some(256), Some(256)));
    assert_eq!(dressed.authors, mpfb2g4mf::vrm::DEFAULT_AUTHORS);
    let ponytail = by_name("ponytail.vrm").meta.as_ref().unwrap();
    assert_eq!(ponytail.authors, ["Ada", "Grace"]);
    assert_eq!(ponytail.avatar_permission.as_deref(), Some("everyone"));
    // The conservative default elsewhere.
    assert_eq!(
        ponytail.commercial_usage.as_deref(),
        Some("personalNonProfit")
    );
    assert_eq!(ponytail.allow_redistribution, Some(false));
}

/// `convert` that must fail with one line on standard error and exit 1, leaving no `output`.
fn refused(data: &Path, output: &Path, flags: &[&str], says: &str) {
    let result = bin()
        .arg("convert")
        .args(flags)
        .arg("--mpfb-data")
        .arg(data)
        .arg("-o")
        .arg(output)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&result.stderr);
    assert_eq!(result.status.code(), Some(1), "{flags:?}: {stderr}");
    assert_eq!(stderr.trim_end().lines().count(), 1, "{flags:?}: {stderr}");
    assert!(stderr.contains(says), "{flags:?}: {stderr}");
    assert!(!output.exists(), "{flags:?} left {}", output.display());
}

#[test]
fn a_vrm_that_cannot_be_is_refused_in_one_line_with_no_file() {
    let data =
        test_support::mpfb_data_or_skip!(a_vrm_that_cannot_be_is_refused_in_one_line_with_no_file);
    let out = tempfile::tempdir().unwrap();
    let vrm = out.path().join("x.vrm");
    refused(
        &data,
        &vrm,
        &["--rig-name", "default", "--rest-pose", "t-pose"],
        "--rest-pose t-pose",
    );
    refused(
        &data,
        &vrm,
        &["--rig-name", "default", "--max-influences", "8"],
        "--max-influences 8",
    );
    refused(
        &data,
        &vrm,
        &[
            "--rig-name",
            "default",
            "--vrm-meta",
            "avatarPermission=anyone",
        ],
        "onlyAuthor",
    );
    refused(
        &data,
        &out.path().join("x.glb"),
        &["--rig-name", "default", "--vrm-author", "Ada"],
        "--vrm-author",
    );
    // Rigs without weights: the mesh would not follow the bones into the T-pose.
    for rig in ["default_no_toes", "human"] {
        assert!(!RIGS_WITH_WEIGHTS.contains(&rig));
        refused(
            &data,
            &vrm,
            &["--rig-name", rig],
            "cannot make a VRM avatar without skin weights",
        );
    }
    // A rig without a head bone: MPFB's default rig with its head removed and the head's
    // children hung from the neck; named as the default rig, so its shipped table (which
    // names a head) is used.
    let mut rig: Value = serde_json::from_str(
        &std::fs::read_to_string(data.join("rigs/standard/rig.default.json")).unwrap(),
    )
    .unwrap();
    // A bare legacy map: bone name -> bone.
    let bones = rig.as_object_mut().unwrap();
    let head = bones.remove("head").unwrap();
    let neck = head["parent"].clone();
    for bone in bones.values_mut() {
        if bone["parent"] == "head" {
            bone["parent"] = neck.clone();
        }
    }
    let headless = out.path().join("headless");
    std::fs::create_dir_all(&headless).unwrap();
    let headless = headless.join("rig.default.json");
    std::fs::write(&headless, serde_json::to_vec(&rig).unwrap()).unwrap();
    let weights = data.join("rigs/standard/weights.default.json");
    refused(
        &data,
        &vrm,
        &[
            "--rig",
            headless.to_str().unwrap(),
            "--weights",
            weights.to_str().unwrap(),
        ],
        "`head`",
    );
    // The default rig named by a table without a head: VRM's own refusal names it.
    let mut table: Value = serde_json::from_str(
        &std::fs::read_to_string(
            test_support::workspace_root().join("crates/mpfb2g4mf/humanoid/default.json"),
        )
        .unwrap(),
    )
    .unwrap();
    table.as_object_mut().unwrap().remove("head");
    let no_head = out.path().join("no-head.json");
    std::fs::write(&no_head, serde_json::to_vec(&table).unwrap()).unwrap();
    refused(
        &data,
        &vrm,
        &[
            "--rig-name",
            "default",
            "--humanoid-map",
            no_head.to_str().unwrap(),
        ],
        "VRM needs humanoid bones the rig does not have: head",
    );
}

#[test]
fn a_vrm_without_expressions_has_no_face_shapes_and_no_presets() {
    let name = "a_vrm_without_expressions_has_no_face_shapes_and_no_presets";
    let Some(data) = test_support::mpfb_data_or_skip(name) else {
        return;
    };
    let out = tempfile::tempdir().unwrap();
    let (path, said) = convert_said(
        &data,
        None,
        out.path(),
        "plain.vrm",
        &["--rig-name", "game_engine", "--no-expressions"],
    );
    let (document, vrm) = vrm_json(&path);
    assert!(vrm.get("expressions").is_none(), "{vrm}");
    // No eye bones and no look expressions: no look-at, said.
    assert!(vrm.get("lookAt").is_none(), "{vrm}");
    assert!(
        said.contains(
            "note      VRM_NO_LOOK_AT: no VRM look-at: the rig has no eye bones that move the eyes and --no-expressions leaves out the look expressions"
        ),
        "{said}"
    );
    let targets = document["meshes"][0]["extras"]["targetNames"].as_array();
    assert!(targets.is_none_or(|t| t.is_empty()), "{targets:?}");
    let with = convert(
        &data,
        None,
        out.path(),
        "faces.vrm",
        &["--rig-name", "game_engine"],
    );
    let (document, _) = vrm_json(&with);
    let names = document["meshes"][0]["extras"]["targetNames"]
        .as_array()
        .unwrap();
    // The shapes the presets use, no more: 32 face units and 5 visemes.
    assert_eq!(
        names.len(),
        mpfb2g4mf::vrm::needed_units(&[]).len(),
        "{names:?}"
    );
    assert_eq!(names.len(), 37);
}

#[test]
fn a_batch_writes_vrm_jobs_and_populations_with_their_meta_keys() {
    let name = "a_batch_writes_vrm_jobs_and_populations_with_their_meta_keys";
    let Some(data) = test_support::mpfb_data_or_skip(name) else {
        return;
    };
    let out = tempfile::tempdir().unwrap();
    let manifest = out.path().join("avatars.toml");
    std::fs::write(
        &manifest,
        format!(
            r#"[defaults]
mpfb_data = "{}"
vrm_authors = ["Batch Author"]
vrm_license = "cc0"

[[jobs]]
rig_name = "mixamo"
no_expressions = true
output = "out/mixamo.vrm"

[population]
rig_name = "game_engine"
count = 2
seed = 7
output = "out/people/{{index}}.vrm"
"#,
            data.display()
        ),
    )
    .unwrap();
    succeed(bin().arg("batch").arg(&manifest).arg("--quiet"));
    let mut people: Vec<PathBuf> = std::fs::read_dir(out.path().join("out/people"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    people.sort();
    assert_eq!(people.len(), 2, "{people:?}");
    let files = [
        out.path().join("out/mixamo.vrm"),
        people[0].clone(),
        people[1].clone(),
    ];
    let Some(reports) = vrm_load(name, &files) else {
        return;
    };
    assert_no_vrm_errors(&reports);
    for report in &reports {
        let meta = report.meta.as_ref().unwrap();
        assert_eq!(meta.authors, ["Batch Author"], "{}", report.file);
        assert_eq!(meta.avatar_permission.as_deref(), Some("everyone"));
    }
    assert!(
        reports[0].expressions.is_empty(),
        "{:?}",
        reports[0].expressions
    );
    assert!(reports[1].expression("aa").is_some());
    // Two bodies of one population differ, and each is VRM's T-pose.
    for file in &files {
        let (document, vrm) = vrm_json(file);
        let (bones, humanoid) = bones_of(&document, &vrm);
        let off = vrm_writer::tpose::measure(&bones, &humanoid)
            .beyond(TPOSE_DEGREES)
            .len();
        assert_eq!(off, 0, "{}", file.display());
    }
    assert_ne!(
        std::fs::read(&files[1]).unwrap(),
        std::fs::read(&files[2]).unwrap()
    );
}

/// A `.vrm` says what its look-at and springs fell back to: a rig without eye bones and no
/// eyes kept looks from the head bone's middle; a humanoid table naming no `Chest` leaves the
/// ponytail's chest collider out.
#[test]
fn a_vrm_says_what_its_look_at_and_spring_colliders_fell_back_to() {
    let name = "a_vrm_says_what_its_look_at_and_spring_colliders_fell_back_to";
    let Some((data, assets)) = common::data_and_assets(name, &["hair/ponytail01/ponytail01.mhclo"])
    else {
        return;
    };
    let out = tempfile::tempdir().unwrap();
    let (path, said) = convert_said(
        &data,
        None,
        out.path(),
        "headed.vrm",
        &["--rig-name", "game_engine", "--helpers", "none"],
    );
    assert!(
        said.contains(
            "note      VRM_LOOK_AT_FROM_HEAD: VRM look-at: no eyes found, it looks from the middle of the head bone"
        ),
        "{said}"
    );
    let (_, vrm) = vrm_json(&path);
    assert_eq!(vrm["lookAt"]["type"], "expression", "{vrm}");

    let shipped: BTreeMap<String, String> =
        serde_json::from_str(include_str!("../humanoid/default.json")).unwrap();
    let chestless: BTreeMap<String, String> = shipped
        .into_iter()
        .filter(|(bone, name)| bone != "//" && !name.starts_with("Chest"))
        .collect();
    let map = out.path().join("chestless.json");
    std::fs::write(&map, serde_json::to_vec(&chestless).unwrap()).unwrap();
    let (path, said) = convert_said(
        &data,
        Some(&assets),
        out.path(),
        "chestless.vrm",
        &[
            "--rig-name",
            "default",
            "--helpers",
            "none",
            "--eyes",
            "none",
            "--hair",
            "ponytail01",
            "--humanoid-map",
            map.to_str().unwrap(),
        ],
    );
    assert!(
        said.contains(
            "note      VRM_COLLIDER_LEFT_OUT: no Chest bone: its spring-bone collider is left out"
        ),
        "{said}"
    );
    let (document, _) = vrm_json(&path);
    let colliders = document["extensions"]["VRMC_springBone"]["colliders"]
        .as_array()
        .unwrap();
    assert_eq!(colliders.len(), 2, "{colliders:?}");
}
