//! The VRM client harness judged on a tiny hand-made `.vrm`: what @pixiv/three-vrm reports through
//! `test_support::clients::vrm_load` (meta, human bones, expressions, look-at, first person,
//! spring bones, and the expression and spring probes), the failures it must report, and a
//! `.vrm` drawn by three-vrm in chromium (`render.mjs`).

use std::path::{Path, PathBuf};

use serde_json::{Value, json};
use test_support::clients::{self, VrmLoadOptions, VrmReport, render};
use test_support::gltf::{GltfBuilder, png};

/// The tiny model's nodes: name, parent (an index into this table) and translation. Metres, +Y
/// up, facing +Z (VRM 1.0), its left on +X.
const NODES: [(&str, Option<usize>, [f32; 3]); 22] = [
    ("hips", None, [0.0, 1.0, 0.0]),
    ("spine", Some(0), [0.0, 0.1, 0.0]),
    ("head", Some(1), [0.0, 0.5, 0.0]),
    ("leftEye", Some(2), [0.03, 0.05, 0.08]),
    ("rightEye", Some(2), [-0.03, 0.05, 0.08]),
    ("leftUpperArm", Some(1), [0.2, 0.4, 0.0]),
    ("leftLowerArm", Some(5), [0.25, 0.0, 0.0]),
    ("leftHand", Some(6), [0.25, 0.0, 0.0]),
    ("rightUpperArm", Some(1), [-0.2, 0.4, 0.0]),
    ("rightLowerArm", Some(8), [-0.25, 0.0, 0.0]),
    ("rightHand", Some(9), [-0.25, 0.0, 0.0]),
    ("leftUpperLeg", Some(0), [0.1, -0.05, 0.0]),
    ("leftLowerLeg", Some(11), [0.0, -0.45, 0.0]),
    ("leftFoot", Some(12), [0.0, -0.45, 0.0]),
    ("rightUpperLeg", Some(0), [-0.1, -0.05, 0.0]),
    ("rightLowerLeg", Some(14), [0.0, -0.45, 0.0]),
    ("rightFoot", Some(15), [0.0, -0.45, 0.0]),
    // A strand of hair down the back of the head: the spring's three joints.
    ("hair1", Some(2), [0.0, 0.1, -0.12]),
    ("hair2", Some(17), [0.0, -0.1, 0.0]),
    ("hair3", Some(18), [0.0, -0.1, 0.0]),
    // Not bones: the skinned mesh, and a spare node.
    ("face", None, [0.0, 0.0, 0.0]),
    ("spare", None, [0.0, 0.0, 0.0]),
];

const HIPS: usize = 0;
const HEAD: usize = 2;
const HAIR: [usize; 3] = [17, 18, 19];
const FACE: usize = 20;

/// The human bones: every node from `hips` to `rightFoot` is the VRM bone of its own name.
const HUMAN_BONES: std::ops::Range<usize> = 0..17;

/// The mesh's vertices: a face quad in front of the head (0-3) and a torso quad (4-7).
const POSITIONS: [[f32; 3]; 8] = [
    [-0.08, 1.55, 0.1],
    [0.08, 1.55, 0.1],
    [0.08, 1.75, 0.1],
    [-0.08, 1.75, 0.1],
    [-0.15, 1.0, 0.05],
    [0.15, 1.0, 0.05],
    [0.15, 1.5, 0.05],
    [-0.15, 1.5, 0.05],
];

/// Morph 0 (`mouthOpen`) moves the face's bottom two vertices; morph 1 (`eyesClosed`) one top one.
const MOUTH_OPEN: [(usize, [f32; 3]); 2] = [(0, [0.0, -0.02, 0.0]), (1, [0.0, -0.03, 0.01])];
const EYES_CLOSED: [(usize, [f32; 3]); 1] = [(2, [0.0, -0.01, 0.0])];

/// The morph target's deltas for every vertex (zero where it does not move one).
fn morph(moves: &[(usize, [f32; 3])]) -> Vec<f32> {
    let mut deltas = vec![0.0; POSITIONS.len() * 3];
    for &(vertex, delta) in moves {
        deltas[vertex * 3..vertex * 3 + 3].copy_from_slice(&delta);
    }
    deltas
}

/// The node tree, the skinned mesh (face on the head, torso on the hips) with its two morph
/// targets, its material and a PNG for the thumbnail.
fn tiny_gltf() -> GltfBuilder {
    let mut gltf = GltfBuilder::new();
    for (name, _, translation) in NODES {
        gltf.push("nodes", json!({"name": name, "translation": translation}));
    }
    for (index, (_, parent, _)) in NODES.iter().enumerate() {
        if let Some(parent) = parent {
            let children = &mut gltf.json["nodes"][*parent]["children"];
            if children.is_null() {
                *children = json!([]);
            }
            children
                .as_array_mut()
                .expect("an array")
                .push(json!(index));
        }
    }
    let positions: Vec<f32> = POSITIONS.iter().flatten().copied().collect();
    let normals: Vec<f32> = [0.0, 0.0, 1.0].repeat(POSITIONS.len());
    let normal = gltf.floats(&normals, "VEC3");
    // Joint 0 is the hips, joint 1 the head.
    let joints: Vec<u32> = (0..8).flat_map(|v| [u32::from(v < 4), 0, 0, 0]).collect();
    let joints = gltf.integers(&joints, "VEC4", 5121);
    let weights = gltf.floats(&[1.0, 0.0, 0.0, 0.0].repeat(8), "VEC4");
    let mesh = gltf.mesh(
        &positions,
        Some(&[0, 1, 2, 0, 2, 3, 4, 5, 6, 4, 6, 7]),
        &[
            ("NORMAL", normal),
            ("JOINTS_0", joints),
            ("WEIGHTS_0", weights),
        ],
        Some(0),
    );
    let mouth_open = gltf.floats(&morph(&MOUTH_OPEN), "VEC3");
    let eyes_closed = gltf.floats(&morph(&EYES_CLOSED), "VEC3");
    gltf.json["meshes"][mesh]["name"] = json!("face");
    gltf.json["meshes"][mesh]["primitives"][0]["targets"] =
        json!([{"POSITION": mouth_open}, {"POSITION": eyes_closed}]);
    gltf.json["meshes"][mesh]["weights"] = json!([0.0, 0.0]);
    gltf.json["meshes"][mesh]["extras"] = json!({"targetNames": ["mouthOpen", "eyesClosed"]});
    let mut inverse_binds = Vec::new();
    for y in [-1.0f32, -1.6] {
        let mut matrix = [0.0f32; 16];
        for i in 0..4 {
            matrix[i * 5] = 1.0;
        }
        matrix[13] = y;
        inverse_binds.extend_from_slice(&matrix);
    }
    let inverse_binds = gltf.floats(&inverse_binds, "MAT4");
    gltf.push(
        "skins",
        json!({"joints": [HIPS, HEAD], "inverseBindMatrices": inverse_binds, "skeleton": HIPS}),
    );
    gltf.json["nodes"][FACE]["mesh"] = json!(mesh);
    gltf.json["nodes"][FACE]["skin"] = json!(0);
    gltf.push(
        "materials",
        json!({"name": "skin", "pbrMetallicRoughness": {
            "baseColorFactor": [0.9, 0.45, 0.3, 1.0], "metallicFactor": 0.0}}),
    );
    let thumbnail = gltf.view(&png(4, 2, &[[200, 120, 90, 255]; 8]));
    gltf.push(
        "images",
        json!({"name": "thumbnail", "bufferView": thumbnail, "mimeType": "image/png"}),
    );
    gltf.json["scenes"] = json!([{"nodes": [HIPS, FACE, 21]}]);
    gltf.json["scene"] = json!(0);
    gltf
}

/// `VRMC_vrm`: meta (every field), the humanoid, first person, a bone look-at and three
/// expressions (`aa` on morph 0, a binary `blink` on morph 1, a custom `halfOpen` on morph 0 at
/// half weight that blends the mouth out).
fn vrmc_vrm() -> Value {
    let bones: serde_json::Map<String, Value> = HUMAN_BONES
        .map(|i| (NODES[i].0.to_string(), json!({"node": i})))
        .collect();
    let range = |scale: f64| json!({"inputMaxValue": 90.0, "outputScale": scale});
    json!({
        "specVersion": "1.0",
        "meta": {
            "name": "Tiny", "version": "1.2", "authors": ["test-support", "nobody"],
            "copyrightInformation": "none", "contactInformation": "nobody@example.invalid",
            "references": ["https://example.invalid/tiny"], "thirdPartyLicenses": "CC0 parts",
            "thumbnailImage": 0, "licenseUrl": "https://vrm.dev/licenses/1.0/",
            "avatarPermission": "everyone", "allowExcessivelyViolentUsage": false,
            "allowExcessivelySexualUsage": false, "commercialUsage": "personalNonProfit",
            "allowPoliticalOrReligiousUsage": false, "allowAntisocialOrHateUsage": false,
            "creditNotation": "required", "allowRedistribution": true,
            "modification": "allowModification",
            "otherLicenseUrl": "https://example.invalid/licence"
        },
        "humanoid": {"humanBones": bones},
        "firstPerson": {"meshAnnotations": [{"node": FACE, "type": "both"}]},
        "lookAt": {
            "offsetFromHeadBone": [0.0, 0.06, 0.02], "type": "bone",
            "rangeMapHorizontalInner": range(8.0), "rangeMapHorizontalOuter": range(12.0),
            "rangeMapVerticalDown": range(10.0), "rangeMapVerticalUp": range(9.0)
        },
        "expressions": {
            "preset": {
                "aa": {"morphTargetBinds": [{"node": FACE, "index": 0, "weight": 1.0}]},
                "blink": {
                    "morphTargetBinds": [{"node": FACE, "index": 1, "weight": 1.0}],
                    "isBinary": true
                }
            },
            "custom": {
                "halfOpen": {
                    "morphTargetBinds": [{"node": FACE, "index": 0, "weight": 0.5}],
                    "overrideMouth": "blend"
                }
            }
        }
    })
}

/// `VRMC_springBone`: one spring over the three hair joints, colliding with a sphere on the head.
fn vrmc_spring_bone() -> Value {
    let joint = |node: usize| {
        json!({"node": node, "hitRadius": 0.01, "stiffness": 1.0, "gravityPower": 0.0,
               "gravityDir": [0.0, -1.0, 0.0], "dragForce": 0.4})
    };
    json!({
        "specVersion": "1.0",
        "colliders": [
            {"node": HEAD, "shape": {"sphere": {"offset": [0.0, 0.05, 0.0], "radius": 0.09}}}
        ],
        "colliderGroups": [{"name": "head", "colliders": [0]}],
        "springs": [{"name": "hair", "joints": HAIR.map(joint), "colliderGroups": [0]}]
    })
}

/// The tiny model as a `.vrm`, after `edit` changes its document.
fn write_vrm(dir: &Path, name: &str, edit: impl FnOnce(&mut Value)) -> PathBuf {
    let mut gltf = tiny_gltf();
    gltf.json["extensionsUsed"] = json!(["VRMC_vrm", "VRMC_springBone"]);
    gltf.json["extensions"] =
        json!({"VRMC_vrm": vrmc_vrm(), "VRMC_springBone": vrmc_spring_bone()});
    edit(&mut gltf.json);
    let path = dir.join(name);
    std::fs::write(&path, gltf.glb()).expect("written");
    path
}

fn length(v: [f32; 3]) -> f64 {
    v.iter().map(|c| f64::from(*c).powi(2)).sum::<f64>().sqrt()
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-6
}

fn assert_meta_humanoid_and_settings(report: &VrmReport) {
    let meta = report.meta.as_ref().expect("a meta");
    assert_eq!(meta.meta_version, "1");
    assert_eq!(
        (meta.name.as_deref(), meta.version.as_deref()),
        (Some("Tiny"), Some("1.2"))
    );
    assert_eq!(meta.authors, ["test-support", "nobody"]);
    assert_eq!(
        meta.license_url.as_deref(),
        Some("https://vrm.dev/licenses/1.0/")
    );
    assert_eq!(meta.third_party_licenses.as_deref(), Some("CC0 parts"));
    assert_eq!(meta.references, ["https://example.invalid/tiny"]);
    assert_eq!(meta.avatar_permission.as_deref(), Some("everyone"));
    assert_eq!(meta.commercial_usage.as_deref(), Some("personalNonProfit"));
    assert_eq!(meta.credit_notation.as_deref(), Some("required"));
    assert_eq!(meta.modification.as_deref(), Some("allowModification"));
    assert_eq!(
        (
            meta.allow_excessively_violent_usage,
            meta.allow_redistribution
        ),
        (Some(false), Some(true))
    );
    assert_eq!(
        meta.thumbnail,
        Some(clients::ThreeImage {
            width: Some(4),
            height: Some(2)
        })
    );

    let humanoid = report.humanoid.as_ref().expect("a humanoid");
    assert_eq!(humanoid.human_bones.len(), HUMAN_BONES.len());
    for i in HUMAN_BONES {
        let bone = report.human_bone(NODES[i].0).expect("every bone found");
        assert_eq!(
            (bone.node.as_deref(), bone.node_index),
            (Some(NODES[i].0), Some(i))
        );
    }
    let rig = humanoid.normalized_rig.as_ref().expect("a normalized rig");
    assert!(rig.in_scene, "{rig:?}");
    assert_eq!(rig.bones, HUMAN_BONES.len());
    let drift = humanoid.rest_pose_drift.expect("measured");
    assert!(
        drift.rotation < 1e-6 && drift.translation < 1e-6,
        "{drift:?}"
    );

    let names: Vec<&str> = report.expressions.iter().map(|e| e.name.as_str()).collect();
    assert_eq!(names.len(), 3, "{names:?}");
    let aa = report.expression("aa").expect("aa");
    assert!(aa.preset && !aa.is_binary);
    assert_eq!(aa.morph_target_binds.len(), 1);
    let bind = &aa.morph_target_binds[0];
    assert_eq!(
        (
            bind.node.as_deref(),
            bind.node_index,
            bind.index,
            bind.weight
        ),
        (Some("face"), Some(FACE), 0, 1.0)
    );
    assert_eq!(bind.primitives, ["face"]);
    assert!(report.expression("blink").expect("blink").is_binary);
    let half = report
        .expression("halfOpen")
        .expect("the custom expression");
    assert!(!half.preset);
    assert_eq!(half.override_mouth, "blend");
    assert_eq!(half.morph_target_binds[0].weight, 0.5);

    let look_at = report.look_at.as_ref().expect("a look-at");
    assert_eq!(
        (look_at.kind.as_deref(), look_at.applier.as_deref()),
        (Some("bone"), Some("VRMLookAtBoneApplier"))
    );
    assert!(
        look_at
            .offset_from_head_bone
            .iter()
            .zip([0.0, 0.06, 0.02])
            .all(|(a, b)| close(*a, b))
    );
    let inner = look_at.range_map_horizontal_inner.expect("a range map");
    assert_eq!((inner.input_max_value, inner.output_scale), (90.0, 8.0));
    assert_eq!(
        look_at.range_map_vertical_up.expect("a map").output_scale,
        9.0
    );

    let first_person = report.first_person.as_ref().expect("first person");
    assert_eq!(first_person.mesh_annotations.len(), 1);
    let annotation = &first_person.mesh_annotations[0];
    assert_eq!(
        (annotation.node.as_deref(), annotation.kind.as_str()),
        (Some("face"), "both")
    );
}

fn assert_spring_bones(report: &VrmReport) {
    let springs = report.spring_bones.as_ref().expect("spring bones");
    let pairs: Vec<(Option<&str>, Option<&str>)> = springs
        .joints
        .iter()
        .map(|j| (j.node.as_deref(), j.child.as_deref()))
        .collect();
    assert_eq!(
        pairs,
        [
            (Some("hair1"), Some("hair2")),
            (Some("hair2"), Some("hair3"))
        ]
    );
    let joint = &springs.joints[0];
    assert_eq!(
        (joint.stiffness, joint.drag_force, joint.hit_radius),
        (1.0, 0.4, 0.01)
    );
    assert_eq!(joint.collider_groups, [Some(0)]);
    assert_eq!(springs.colliders.len(), 1);
    let collider = &springs.colliders[0];
    assert_eq!(
        (collider.node.as_deref(), collider.shape.as_str()),
        (Some("head"), "sphere")
    );
    assert_eq!(collider.radius.map(|r| close(r, 0.09)), Some(true));
    assert_eq!(springs.collider_groups.len(), 1);
    assert_eq!(springs.collider_groups[0].name.as_deref(), Some("head"));
    assert_eq!(springs.collider_groups[0].colliders, [Some(0)]);

    // Moved 0.1 m sideways at once, the strand's tail lags behind and swings back; its root
    // is carried with the head.
    let probe = report.spring_probe.as_ref().expect("a spring probe");
    assert!(!probe.nan);
    let nodes: Vec<Option<&str>> = probe.nodes.iter().map(|n| n.node.as_deref()).collect();
    assert_eq!(nodes, [Some("hair1"), Some("hair2"), Some("hair3")]);
    let [root, middle, tail] = [&probe.nodes[0], &probe.nodes[1], &probe.nodes[2]];
    assert!(
        root.rest
            .iter()
            .zip([0.0, 1.7, -0.12])
            .all(|(a, b)| (a - b).abs() < 1e-5),
        "{root:?}"
    );
    assert!(
        probe.max_settled < 1e-5,
        "no gravity: nothing settles {probe:?}"
    );
    assert!(root.peak < 1e-6, "the root moves with the head: {root:?}");
    assert!(middle.peak > 0.01 && tail.peak > middle.peak, "{probe:?}");
    assert!(tail.final_ < tail.peak, "{probe:?}");
    assert_eq!(probe.moved, 2);
}

fn assert_expression_probes(report: &VrmReport) {
    let aa = report.expression_probe("aa").expect("aa probed");
    assert!(aa.registered);
    assert_eq!((aa.weight, aa.output_weight), (Some(1.0), Some(1.0)));
    let influences: Vec<(&str, usize, Option<&str>, f64, f64)> = aa
        .influences
        .iter()
        .map(|i| {
            (
                i.mesh.as_str(),
                i.index,
                i.name.as_deref(),
                i.before,
                i.after,
            )
        })
        .collect();
    assert_eq!(influences, [("face", 0, Some("mouthOpen"), 0.0, 1.0)]);
    assert_eq!(aa.meshes.len(), 1);
    let face = &aa.meshes[0];
    assert_eq!(
        (face.mesh.as_str(), face.node.as_deref(), face.vertex_count),
        ("face", Some("face"), 8)
    );
    assert_eq!(face.moved_vertices, MOUTH_OPEN.len());
    assert!(close(face.max_displacement, length(MOUTH_OPEN[1].1)));
    // Most moved first: vertex 1, then vertex 0, each by exactly its delta.
    let order: Vec<usize> = face.samples.iter().map(|s| s.index).collect();
    assert_eq!(order, [1, 0]);
    for sample in &face.samples {
        let (vertex, delta) = MOUTH_OPEN
            .iter()
            .find(|(v, _)| *v == sample.index)
            .expect("a vertex of the morph");
        for c in 0..3 {
            assert!(close(sample.position[c], f64::from(POSITIONS[*vertex][c])));
            assert!(close(
                sample.morphed[c] - sample.position[c],
                f64::from(delta[c])
            ));
        }
    }

    let half = report.expression_probe("halfOpen").expect("probed");
    assert_eq!(half.influences.len(), 1);
    assert_eq!(half.influences[0].after, 0.5);
    assert!(close(
        half.meshes[0].max_displacement,
        length(MOUTH_OPEN[1].1) / 2.0
    ));
    let blink = report.expression_probe("blink").expect("probed");
    assert_eq!(blink.influences[0].index, 1);
    assert_eq!(blink.meshes[0].moved_vertices, 1);
    assert_eq!(blink.meshes[0].samples[0].index, EYES_CLOSED[0].0);
}

#[test]
fn three_vrm_reads_a_tiny_vrm_and_its_expressions_and_springs_behave() {
    let name = "three_vrm_reads_a_tiny_vrm_and_its_expressions_and_springs_behave";
    let dir = tempfile::tempdir().expect("temp dir");
    let file = write_vrm(dir.path(), "tiny.vrm", |_| {});
    // The file is sound glTF before it is a VRM.
    let Some(validated) = clients::gltf_validator(name, &[&file]) else {
        return;
    };
    clients::assert_no_validator_issues(&validated);

    let Some(reports) = clients::vrm_load(name, &[&file]) else {
        return;
    };
    clients::assert_no_vrm_errors(&reports);
    let report = &reports[0];
    assert_eq!(report.file, file.display().to_string());
    assert!(report.vrm);
    assert_meta_humanoid_and_settings(report);
    assert_spring_bones(report);
    assert_expression_probes(report);
}

#[test]
fn probe_options_choose_the_expressions_and_the_springs_motion() {
    let name = "probe_options_choose_the_expressions_and_the_springs_motion";
    let dir = tempfile::tempdir().expect("temp dir");
    let file = write_vrm(dir.path(), "options.vrm", |_| {});
    let options = VrmLoadOptions {
        frames: Some(5),
        delta: Some(0.02),
        offset: Some([0.0, 0.0, 0.0]),
        expressions: Some(vec!["blink".into(), "ou".into()]),
    };
    let Some(reports) = clients::vrm_load_with(name, &[&file], &options) else {
        return;
    };
    let report = &reports[0];
    let probed: Vec<(&str, bool)> = report
        .expression_probes
        .iter()
        .map(|p| (p.expression.as_str(), p.registered))
        .collect();
    assert_eq!(probed, [("blink", true), ("ou", false)]);
    assert_eq!(
        report.errors,
        ["expression probe: \"ou\" is not registered"]
    );
    let probe = report.spring_probe.as_ref().expect("a spring probe");
    assert_eq!((probe.frames, probe.delta), (5, 0.02));
    assert_eq!(probe.moved, 0, "not moved, nothing strays: {probe:?}");
}

#[test]
fn broken_vrms_are_reported_and_fail_the_assertion() {
    let name = "broken_vrms_are_reported_and_fail_the_assertion";
    let dir = tempfile::tempdir().expect("temp dir");
    let bad_bind = write_vrm(dir.path(), "bad-bind.vrm", |json| {
        let aa = &mut json["extensions"]["VRMC_vrm"]["expressions"]["preset"]["aa"];
        aa["morphTargetBinds"][0]["index"] = json!(5);
    });
    let no_foot = write_vrm(dir.path(), "no-foot.vrm", |json| {
        let bones = &mut json["extensions"]["VRMC_vrm"]["humanoid"]["humanBones"];
        bones.as_object_mut().expect("bones").remove("leftFoot");
    });
    let licence = write_vrm(dir.path(), "licence.vrm", |json| {
        json["extensions"]["VRMC_vrm"]["meta"]["licenseUrl"] = json!("https://example.invalid/");
    });
    let plain = write_vrm(dir.path(), "plain.glb", |json| {
        json.as_object_mut()
            .expect("a document")
            .remove("extensions");
        json.as_object_mut()
            .expect("a document")
            .remove("extensionsUsed");
    });
    // A head scaled to nothing: the springs on it go NaN.
    let degenerate = write_vrm(dir.path(), "degenerate-head.vrm", |json| {
        json["nodes"][HEAD]["scale"] = json!([0.0, 0.0, 0.0]);
    });
    // A thumbnail that is not an image (the positions' buffer view).
    let thumbnail = write_vrm(dir.path(), "thumbnail.vrm", |json| {
        json["images"][0]["bufferView"] = json!(0);
    });
    let files = [
        &bad_bind,
        &no_foot,
        &licence,
        &plain,
        &degenerate,
        &thumbnail,
    ];
    let Some(reports) = clients::vrm_load(name, &files) else {
        return;
    };
    // The bind to a morph the mesh lacks is dropped with a warning; the rest loads.
    assert!(reports[0].vrm);
    assert!(
        reports[0]
            .expression("aa")
            .expect("aa")
            .morph_target_binds
            .is_empty(),
        "{:?}",
        reports[0].expressions
    );
    assert!(
        reports[0]
            .warnings
            .iter()
            .any(|w| w.contains("attempts to index morph #5 but not found")),
        "{:?}",
        reports[0].warnings
    );
    let aa = reports[0].expression_probe("aa").expect("probed");
    assert!(aa.influences.is_empty() && aa.meshes.is_empty(), "{aa:?}");
    let panic = std::panic::catch_unwind(|| clients::assert_no_vrm_errors(&reports[..1]))
        .expect_err("a dropped bind fails the assertion");
    let text = panic.downcast_ref::<String>().expect("a formatted message");
    assert!(
        text.contains("bad-bind.vrm: warning: VRMExpressionLoaderPlugin"),
        "{text}"
    );

    for (report, why) in [
        (&reports[1], "required but not exist: leftFoot"),
        (
            &reports[2],
            "The license url \"https://example.invalid/\" is not accepted",
        ),
    ] {
        assert!(!report.vrm && report.humanoid.is_none());
        assert!(
            report
                .errors
                .iter()
                .any(|e| e.starts_with("not loaded:") && e.contains(why)),
            "{}: {:?}",
            report.file,
            report.errors
        );
    }
    assert!(!reports[3].vrm);
    assert_eq!(
        reports[3].errors,
        ["three-vrm made no VRM (no VRMC_vrm, or one without meta or humanoid)"]
    );
    let probe = reports[4].spring_probe.as_ref().expect("a spring probe");
    assert!(probe.nan && probe.max_peak.is_nan(), "{probe:?}");
    assert_eq!(
        reports[4].errors,
        ["spring probe: a spring node's position became NaN within 120 updates"]
    );
    let meta = reports[5].meta.as_ref().expect("the rest loads");
    assert_eq!(meta.thumbnail, None);
    assert!(
        reports[5]
            .errors
            .iter()
            .any(|e| e.starts_with("an image did not load: blob:")
                && e.ends_with("is not a PNG or JPEG")),
        "{:?}",
        reports[5].errors
    );
    assert_eq!(
        reports[5].warnings,
        ["VRMMetaLoaderPlugin: Failed to load a thumbnail image"]
    );
}

#[test]
fn three_vrm_in_chromium_draws_a_tiny_vrm() {
    let name = "three_vrm_in_chromium_draws_a_tiny_vrm";
    let dir = tempfile::tempdir().expect("temp dir");
    let file = write_vrm(dir.path(), "tiny.vrm", |_| {});
    let picture = dir.path().join("tiny.png");
    let background = [40, 90, 160];
    let options = render::RenderOptions {
        views: vec![render::View::Front],
        width: 64,
        height: 96,
        background: Some(background),
        timeout_seconds: None,
    };
    let Some(report) = render::render(name, &[&file], &picture, &options) else {
        return;
    };
    let drawn = &report.files[0];
    assert!(drawn.errors.is_empty(), "{:?}", drawn.errors);
    assert!(
        drawn.loaded && drawn.skinned_meshes == 1 && drawn.triangles == 4,
        "{drawn:?}"
    );
    let vrm = drawn.vrm.as_ref().expect("drawn through three-vrm");
    assert_eq!(
        (vrm.meta_version.as_deref(), vrm.name.as_deref()),
        (Some("1"), Some("Tiny"))
    );
    let bounds = drawn.bounds.expect("a box");
    assert!(
        (bounds.min[1] - 1.0).abs() < 1e-5 && (bounds.max[1] - 1.75).abs() < 1e-5,
        "{bounds:?}"
    );

    let bytes = std::fs::read(&picture).expect("the picture is written");
    let decoder = ::png::Decoder::new(std::io::Cursor::new(bytes));
    let mut reader = decoder.read_info().expect("a PNG");
    let mut data = vec![0; reader.output_buffer_size().expect("a size")];
    let frame = reader.next_frame(&mut data).expect("its pixels");
    assert_eq!((frame.width, frame.height), (64, 96));
    let channels = frame.buffer_size() / (64 * 96);
    let at = |x: usize, y: usize| {
        let i = (y * 64 + x) * channels;
        [data[i], data[i + 1], data[i + 2]]
    };
    let is_background = |p: [u8; 3]| p.iter().zip(background).all(|(a, b)| a.abs_diff(b) <= 1);
    // The torso quad fills the tile's middle in the skin colour (red over blue); its corners
    // stay background.
    let middle = at(32, 60);
    assert!(
        middle[0] > 120 && middle[0] > middle[2],
        "the middle is not the skin colour: {middle:?}"
    );
    for (x, y) in [(1, 1), (62, 1), (1, 94), (62, 94)] {
        assert!(is_background(at(x, y)), "({x}, {y}) is {:?}", at(x, y));
    }
}
