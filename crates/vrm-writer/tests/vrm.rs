//! vrm-writer on a small hand-made humanoid (the 15 required bones, two eyes, a rotated head
//! and a three-bone hair chain turned backwards; a body with two blend shapes, a hair
//! attachment with one): the `.vrm` written through gltf-writer's `.glb` container, its JSON
//! checked against indices and local offsets worked out by hand, its thumbnail decoded from
//! the buffer, the Khronos validator run on it, and each refusal checked to leave the document
//! as it was.

#![allow(clippy::unwrap_used)] // Tests fail loudly by design.

use character_spec::{
    AttachmentSpec, BlendShapeSpec, BoneSpec, CharacterSpec, FaceSpec, Influence, MeshSpec,
    SurfaceSpec,
};
use glam::{DMat3, DMat4, DQuat, DVec3};
use gltf_writer::{BuiltGltf, ContainerOptions, GltfOptions, build_gltf, glb_parts};
use serde_json::{Value, json};
use std::sync::Arc;
use test_support::clients::{assert_no_validator_issues, gltf_validator};
use test_support::tiny::TinyCharacter;
use vrm_writer::{
    AvatarPermission, Collider, ColliderGroup, ColliderShape, CommercialUsage, CreditNotation,
    Expression, FirstPersonKind, HumanoidError, License, LookAt, LookAtKind, MeshRef, Meta,
    Modification, MorphBind, Override, RangeMap, Spring, SpringBones, SpringJoint, VrmError,
    VrmSpec, from_g4mf_names, make_vrm,
};

/// The skeleton: name, parent, head (skeleton space). Depth-first node order (node = 1 +
/// position, the skeleton node is 0): Hips 1, Spine 2, Head 3, LeftEye 4, RightEye 5, Hair1 6,
/// Hair2 7, Hair3 8, LeftUpperArm 9 .. RightHand 14, LeftUpperLeg 15 .. RightFoot 20; the body's
/// mesh node 21, the hair's 22.
const BONES: [(&str, Option<usize>, [f64; 3]); 20] = [
    ("Hips", None, [0.0, 1.0, 0.0]),
    ("Spine", Some(0), [0.0, 1.1, 0.0]),
    ("Head", Some(1), [0.0, 1.5, 0.0]),
    ("LeftEye", Some(2), [0.03, 1.6, 0.08]),
    ("RightEye", Some(2), [-0.03, 1.6, 0.08]),
    ("LeftUpperLeg", Some(0), [0.1, 0.95, 0.0]),
    ("LeftLowerLeg", Some(5), [0.1, 0.5, 0.0]),
    ("LeftFoot", Some(6), [0.1, 0.08, 0.0]),
    ("RightUpperLeg", Some(0), [-0.1, 0.95, 0.0]),
    ("RightLowerLeg", Some(8), [-0.1, 0.5, 0.0]),
    ("RightFoot", Some(9), [-0.1, 0.08, 0.0]),
    ("LeftUpperArm", Some(1), [0.2, 1.4, 0.0]),
    ("LeftLowerArm", Some(11), [0.45, 1.4, 0.0]),
    ("LeftHand", Some(12), [0.7, 1.4, 0.0]),
    ("RightUpperArm", Some(1), [-0.2, 1.4, 0.0]),
    ("RightLowerArm", Some(14), [-0.45, 1.4, 0.0]),
    ("RightHand", Some(15), [-0.7, 1.4, 0.0]),
    ("Hair1", Some(2), [0.0, 1.7, -0.1]),
    ("Hair2", Some(17), [0.0, 1.7, -0.2]),
    ("Hair3", Some(18), [0.0, 1.7, -0.3]),
];

const HEAD: usize = 2;
const LEFT_UPPER_ARM: usize = 11;
const HAIR: [usize; 3] = [17, 18, 19];

/// The head turned 90 degrees about +Y: its X axis is -Z, its Z axis +X (Y still up).
fn head_basis() -> DMat3 {
    DMat3::from_quat(DQuat::from_rotation_y(90f64.to_radians()))
}

/// The hair turned -90 degrees about +X: each bone runs backwards (Y is -Z), its Z axis up.
fn hair_basis() -> DMat3 {
    DMat3::from_quat(DQuat::from_rotation_x(-90f64.to_radians()))
}

/// The left upper arm turned -90 degrees about +Z: it runs out to +X (Y is +X), its X axis
/// down.
fn arm_basis() -> DMat3 {
    DMat3::from_quat(DQuat::from_rotation_z(-90f64.to_radians()))
}

/// A 4 x 4 RGBA picture, each texel its own colour.
fn thumbnail_texels() -> Vec<[u8; 4]> {
    (0..16u8).map(|i| [i * 16, 255 - i * 8, i, 255]).collect()
}

fn humanoid_character() -> CharacterSpec {
    let tiny = TinyCharacter::new("Vroid")
        .positions(vec![
            DVec3::new(-0.2, 1.0, 0.1),
            DVec3::new(0.2, 1.0, 0.1),
            DVec3::new(0.2, 1.5, 0.1),
            DVec3::new(-0.2, 1.5, 0.1),
        ])
        .faces(&[&[0, 1, 2], &[0, 2, 3]])
        .blend_shape("Smile", 0.0, &[(2, DVec3::new(0.0, 0.01, 0.0))])
        .blend_shape("Blink", 0.0, &[(3, DVec3::new(0.0, -0.01, 0.0))])
        .weights(&[(0, 0, 1.0), (1, 0, 1.0), (2, 1, 1.0), (3, 2, 1.0)]);
    let tiny = BONES.iter().fold(tiny, |tiny, &(name, parent, head)| {
        tiny.bone_spec(BoneSpec {
            name: name.into(),
            parent,
            head: DVec3::from(head),
            basis: match name {
                "Head" => head_basis(),
                "LeftUpperArm" => arm_basis(),
                n if n.starts_with("Hair") => hair_basis(),
                _ => DMat3::IDENTITY,
            },
            length: 0.1,
            extras: None,
        })
    });
    let mut spec = tiny.spec();
    // The skeleton lifted: node-local offsets do not depend on it.
    spec.skeleton_position = DVec3::new(0.0, 0.02, 0.0);
    spec.attachments.push(AttachmentSpec {
        name: "Hair".into(),
        mesh: MeshSpec {
            positions: vec![
                DVec3::new(0.0, 1.7, -0.1),
                DVec3::new(0.0, 1.7, -0.3),
                DVec3::new(0.05, 1.72, -0.2),
            ],
            surfaces: vec![SurfaceSpec {
                name: None,
                material: None,
                faces: vec![FaceSpec {
                    vertices: [0, 1, 2].as_slice().into(),
                    texcoords: None,
                }],
            }]
            .into(),
            blend_shapes: vec![BlendShapeSpec {
                name: "Puff".into(),
                amount: 0.0,
                offsets: vec![(2, DVec3::new(0.02, 0.0, 0.0))].into(),
                normal_offsets: Vec::new(),
            }],
            ..MeshSpec::default()
        },
        influences: Some(
            (0..3)
                .map(|v| Influence {
                    vertex: v,
                    bone: HAIR[v as usize] as u32,
                    weight: 1.0,
                })
                .collect(),
        ),
        ..AttachmentSpec::default()
    });
    spec
}

fn bind(mesh: MeshRef, shape: &str, weight: f64) -> MorphBind {
    MorphBind {
        mesh,
        shape: shape.into(),
        weight,
    }
}

fn hair_joint(bone: usize) -> SpringJoint {
    SpringJoint {
        bone,
        hit_radius: 0.02,
        stiffness: 0.8,
        gravity_power: 0.3,
        gravity_dir: DVec3::NEG_Y,
        drag_force: 0.4,
    }
}

fn range(input_max_value: f64, output_scale: f64) -> RangeMap {
    RangeMap {
        input_max_value,
        output_scale,
    }
}

fn vrm_spec(spec: &CharacterSpec) -> VrmSpec {
    let names = spec.bones.iter().enumerate();
    VrmSpec {
        meta: Meta {
            name: "Vroid".into(),
            version: Some("1.0.0".into()),
            authors: vec!["mpfb2g4mf tests".into()],
            copyright_information: None,
            contact_information: Some("https://example.invalid/contact".into()),
            references: vec!["https://github.com/makehumancommunity/makehuman".into()],
            third_party_licenses: Some("MakeHuman assets: CC0".into()),
            thumbnail_png: Some(Arc::new(test_support::gltf::png(4, 4, &thumbnail_texels()))),
            license: License {
                avatar_permission: AvatarPermission::Everyone,
                commercial_usage: CommercialUsage::Corporation,
                credit_notation: CreditNotation::Unnecessary,
                allow_redistribution: true,
                modification: Modification::AllowModificationRedistribution,
                other_license_url: Some(
                    "https://creativecommons.org/publicdomain/zero/1.0/".into(),
                ),
                ..License::default()
            },
        },
        humanoid: from_g4mf_names(names.map(|(i, b)| (b.name.as_str(), i))),
        expressions: vec![
            Expression {
                name: "happy".into(),
                preset: true,
                binds: vec![
                    bind(MeshRef::Body, "Smile", 1.0),
                    bind(MeshRef::Attachment(0), "Puff", 0.5),
                ],
                override_blink: Override::Blend,
                ..Expression::default()
            },
            Expression {
                name: "blink".into(),
                preset: true,
                is_binary: true,
                binds: vec![bind(MeshRef::Body, "Blink", 1.0)],
                ..Expression::default()
            },
            Expression {
                name: "puffy".into(),
                preset: false,
                binds: vec![bind(MeshRef::Attachment(0), "Puff", 0.8)],
                override_mouth: Override::Block,
                ..Expression::default()
            },
        ],
        look_at: Some(LookAt {
            kind: LookAtKind::Bone,
            eyes: DVec3::new(0.0, 1.6, 0.1),
            horizontal_inner: range(90.0, 8.0),
            horizontal_outer: range(90.0, 12.0),
            vertical_down: range(90.0, 10.0),
            vertical_up: range(60.0, 10.0),
        }),
        first_person: vec![
            (MeshRef::Body, FirstPersonKind::Auto),
            (MeshRef::Attachment(0), FirstPersonKind::ThirdPersonOnly),
        ],
        spring_bones: SpringBones {
            colliders: vec![
                Collider {
                    bone: HEAD,
                    shape: ColliderShape::Sphere {
                        center: DVec3::new(0.05, 1.6, 0.02),
                        radius: 0.09,
                    },
                },
                // Not on a joint of the spring that collides with it: three-vrm finds a
                // circular dependency there.
                Collider {
                    bone: LEFT_UPPER_ARM,
                    shape: ColliderShape::Capsule {
                        center: DVec3::new(0.25, 1.4, 0.01),
                        tail: DVec3::new(0.45, 1.41, 0.0),
                        radius: 0.04,
                    },
                },
            ],
            collider_groups: vec![ColliderGroup {
                name: "Head".into(),
                colliders: vec![0, 1],
            }],
            springs: vec![Spring {
                name: "Hair".into(),
                joints: HAIR.iter().map(|&b| hair_joint(b)).collect(),
                collider_groups: vec![0],
            }],
        },
    }
}

fn built(spec: &CharacterSpec) -> BuiltGltf {
    build_gltf(spec, &GltfOptions::default()).unwrap_or_else(|e| panic!("{e}"))
}

/// The JSON and BIN chunks of a `.glb`.
fn chunks(glb: &[u8]) -> (Value, Vec<u8>) {
    let u32_at = |at: usize| u32::from_le_bytes(glb[at..at + 4].try_into().unwrap()) as usize;
    assert_eq!(&glb[..4], b"glTF");
    let json_length = u32_at(12);
    let json = serde_json::from_slice(&glb[20..20 + json_length]).unwrap();
    let bin_at = 20 + json_length;
    let bin_length = u32_at(bin_at);
    (json, glb[bin_at + 8..bin_at + 8 + bin_length].to_vec())
}

/// Node `node`'s world rest matrix, read from the written document.
fn world_of(doc: &Value, node: usize) -> DMat4 {
    let nodes = doc["nodes"].as_array().unwrap();
    let vector = |v: &Value, n: usize| -> Vec<f64> {
        v.as_array().map_or(vec![0.0; n], |a| {
            a.iter().map(|x| x.as_f64().unwrap()).collect()
        })
    };
    let t = vector(&nodes[node]["translation"], 3);
    let r = match nodes[node]["rotation"].as_array() {
        Some(_) => DQuat::from_slice(&vector(&nodes[node]["rotation"], 4)),
        None => DQuat::IDENTITY,
    };
    let local = DMat4::from_rotation_translation(r, DVec3::from_slice(&t));
    let parent = nodes.iter().position(|n| {
        n["children"]
            .as_array()
            .is_some_and(|c| c.iter().any(|c| c.as_u64() == Some(node as u64)))
    });
    match parent {
        Some(p) => world_of(doc, p) * local,
        None => local,
    }
}

fn assert_close(value: &Value, want: [f64; 3], what: &str) {
    let got: Vec<f64> = value
        .as_array()
        .unwrap_or_else(|| panic!("{what}: {value}"))
        .iter()
        .map(|x| x.as_f64().unwrap())
        .collect();
    let close = got.iter().zip(want).all(|(g, w)| (g - w).abs() < 1e-9);
    assert!(close && got.len() == 3, "{what}: {got:?}, want {want:?}");
}

/// Writes the character as a `.vrm` and returns its JSON, its buffer and its path.
fn written_vrm(name: &str) -> (Value, Vec<u8>, std::path::PathBuf) {
    let spec = humanoid_character();
    let vrm = vrm_spec(&spec);
    let mut built = built(&spec);
    let written = make_vrm(&mut built, &spec, &vrm).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(written.human_bones, 17);
    assert_eq!(written.expressions, 3);
    assert_eq!(written.morph_target_binds, 4);
    assert_eq!(written.thumbnail_image, Some(0));
    assert_eq!((written.springs, written.spring_joints), (1, 3));
    assert_eq!(written.colliders, 2);
    let glb = glb_parts(&mut built, ContainerOptions::default())
        .unwrap()
        .to_vec();
    let path = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("{name}.vrm"));
    std::fs::write(&path, &glb).unwrap();
    let (doc, bin) = chunks(&glb);
    (doc, bin, path)
}

#[test]
fn the_vrm_names_nodes_targets_and_local_offsets_as_worked_out_by_hand() {
    let (doc, bin, _) = written_vrm("by_hand");
    assert_eq!(
        doc["extensionsUsed"],
        json!(["VRMC_vrm", "VRMC_springBone"])
    );
    assert!(doc.get("extensionsRequired").is_none(), "{doc}");
    let vrm = &doc["extensions"]["VRMC_vrm"];
    assert_eq!(vrm["specVersion"], "1.0");
    // Human bones: nodes in depth-first order, VRM's names.
    let bones = &vrm["humanoid"]["humanBones"];
    let expected = [
        ("hips", 1),
        ("spine", 2),
        ("head", 3),
        ("leftEye", 4),
        ("rightEye", 5),
        ("leftUpperArm", 9),
        ("rightHand", 14),
        ("leftUpperLeg", 15),
        ("rightFoot", 20),
    ];
    for (name, node) in expected {
        assert_eq!(bones[name], json!({ "node": node }), "{name}");
    }
    assert_eq!(bones.as_object().unwrap().len(), 17);
    assert_eq!(doc["nodes"][3]["name"], "Head");
    assert_eq!(doc["nodes"][21]["name"], "VroidBody");
    assert_eq!(doc["nodes"][22]["name"], "Hair");
    // Meta.
    let meta = &vrm["meta"];
    assert_eq!(meta["name"], "Vroid");
    assert_eq!(meta["authors"], json!(["mpfb2g4mf tests"]));
    assert_eq!(meta["licenseUrl"], "https://vrm.dev/licenses/1.0/");
    assert_eq!(meta["avatarPermission"], "everyone");
    assert_eq!(meta["commercialUsage"], "corporation");
    assert_eq!(meta["creditNotation"], "unnecessary");
    assert_eq!(meta["modification"], "allowModificationRedistribution");
    assert_eq!(meta["allowExcessivelyViolentUsage"], false);
    assert_eq!(meta["allowRedistribution"], true);
    assert_eq!(meta["thirdPartyLicenses"], "MakeHuman assets: CC0");
    assert!(meta.get("copyrightInformation").is_none());
    assert_eq!(meta["thumbnailImage"], 0);
    // The thumbnail: an image of a view of the buffer, aligned, its PNG decoding to the texels.
    let image = &doc["images"][0];
    assert_eq!(image["mimeType"], "image/png");
    let view = &doc["bufferViews"][image["bufferView"].as_u64().unwrap() as usize];
    let offset = view["byteOffset"].as_u64().unwrap_or(0) as usize;
    let length = view["byteLength"].as_u64().unwrap() as usize;
    assert_eq!(offset % gltf_writer::VIEW_ALIGNMENT, 0);
    assert_eq!(doc["buffers"][0]["byteLength"], offset + length);
    let decoder = png::Decoder::new(std::io::Cursor::new(&bin[offset..offset + length]));
    let mut reader = decoder.read_info().unwrap();
    let mut pixels = vec![0; reader.output_buffer_size().unwrap()];
    reader.next_frame(&mut pixels).unwrap();
    let texels: Vec<u8> = thumbnail_texels().into_iter().flatten().collect();
    assert_eq!(pixels, texels);
    // Expressions: the body is node 21 (Smile target 0, Blink 1), the hair node 22 (Puff 0).
    let expressions = &vrm["expressions"];
    assert_eq!(
        expressions["preset"]["happy"],
        json!({
            "morphTargetBinds": [
                { "node": 21, "index": 0, "weight": 1.0 },
                { "node": 22, "index": 0, "weight": 0.5 },
            ],
            "isBinary": false,
            "overrideBlink": "blend",
            "overrideLookAt": "none",
            "overrideMouth": "none",
        })
    );
    assert_eq!(
        expressions["preset"]["blink"]["morphTargetBinds"],
        json!([{ "node": 21, "index": 1, "weight": 1.0 }])
    );
    assert_eq!(expressions["preset"]["blink"]["isBinary"], true);
    assert_eq!(
        expressions["custom"]["puffy"]["morphTargetBinds"],
        json!([{ "node": 22, "index": 0, "weight": 0.8 }])
    );
    assert_eq!(
        doc["meshes"][0]["extras"]["targetNames"],
        json!(["Smile", "Blink"])
    );
    assert_eq!(
        vrm["firstPerson"]["meshAnnotations"],
        json!([{ "node": 21, "type": "auto" }, { "node": 22, "type": "thirdPersonOnly" }])
    );
    // Look-at: the eyes (0, 1.6, 0.1) less the head (0, 1.5, 0) is (0, 0.1, 0.1); the head's
    // axes are X = -Z, Y = Y, Z = +X, so in its frame that is (-0.1, 0.1, 0).
    let look_at = &vrm["lookAt"];
    assert_eq!(look_at["type"], "bone");
    assert_close(
        &look_at["offsetFromHeadBone"],
        [-0.1, 0.1, 0.0],
        "offsetFromHeadBone",
    );
    assert_eq!(
        look_at["rangeMapVerticalUp"],
        json!({ "inputMaxValue": 60.0, "outputScale": 10.0 })
    );
    // ... and three-vrm's reading (the offset through the head node's world matrix) lands on
    // the eyes, lifted with the skeleton.
    let offset = &look_at["offsetFromHeadBone"];
    let offset = DVec3::from_slice(
        &(0..3)
            .map(|i| offset[i].as_f64().unwrap())
            .collect::<Vec<_>>(),
    );
    let eyes = world_of(&doc, 3).transform_point3(offset);
    assert!(eyes.abs_diff_eq(DVec3::new(0.0, 1.62, 0.1), 1e-6), "{eyes}");
    let springs = &doc["extensions"]["VRMC_springBone"];
    assert_eq!(springs["specVersion"], "1.0");
    // The sphere on the head: (0.05, 0.1, 0.02) from its head, in its frame (-0.02, 0.1, 0.05).
    let sphere = &springs["colliders"][0];
    assert_eq!(sphere["node"], 3);
    assert_close(
        &sphere["shape"]["sphere"]["offset"],
        [-0.02, 0.1, 0.05],
        "sphere",
    );
    assert_eq!(sphere["shape"]["sphere"]["radius"], 0.09);
    // The capsule on the left upper arm (axes X = -Y, Y = +X, Z = Z, head (0.2, 1.4, 0)): its
    // centre (0.05, 0, 0.01) from the head is (0, 0.05, 0.01) in its frame, its tail
    // (0.25, 0.01, 0) is (-0.01, 0.25, 0).
    let capsule = &springs["colliders"][1];
    assert_eq!(capsule["node"], 9);
    assert_close(
        &capsule["shape"]["capsule"]["offset"],
        [0.0, 0.05, 0.01],
        "capsule",
    );
    assert_close(
        &capsule["shape"]["capsule"]["tail"],
        [-0.01, 0.25, 0.0],
        "capsule tail",
    );
    assert_eq!(
        springs["colliderGroups"],
        json!([{ "name": "Head", "colliders": [0, 1] }])
    );
    let spring = &springs["springs"][0];
    assert_eq!(spring["name"], "Hair");
    assert_eq!(spring["colliderGroups"], json!([0]));
    let joints: Vec<&Value> = spring["joints"].as_array().unwrap().iter().collect();
    let nodes: Vec<u64> = joints.iter().map(|j| j["node"].as_u64().unwrap()).collect();
    assert_eq!(nodes, [6, 7, 8]);
    assert_eq!(
        *joints[0],
        json!({
            "node": 6, "hitRadius": 0.02, "stiffness": 0.8, "gravityPower": 0.3,
            "gravityDir": [0.0, -1.0, 0.0], "dragForce": 0.4,
        })
    );
}

#[test]
fn the_khronos_validator_finds_no_error_or_warning_in_the_vrm() {
    let test = "the_khronos_validator_finds_no_error_or_warning_in_the_vrm";
    let (_, _, path) = written_vrm("validated");
    let Some(reports) = gltf_validator(test, &[&path]) else {
        return;
    };
    assert_no_validator_issues(&reports);
    assert_eq!((reports[0].num_errors, reports[0].num_warnings), (0, 0));
}

/// What `make_vrm` says of the character after `edit`; the document must be as it was.
fn refusal(edit: impl FnOnce(&mut CharacterSpec, &mut VrmSpec)) -> VrmError {
    let mut spec = humanoid_character();
    let mut vrm = vrm_spec(&spec);
    edit(&mut spec, &mut vrm);
    let mut built = built(&humanoid_character());
    let before = (
        serde_json::to_string(&built.root).unwrap(),
        built.buffer.clone(),
    );
    let error = make_vrm(&mut built, &spec, &vrm).expect_err("refused");
    let after = (
        serde_json::to_string(&built.root).unwrap(),
        built.buffer.clone(),
    );
    assert!(before == after, "a refusal changed the document ({error})");
    error
}

#[test]
fn unknown_shapes_and_meshes_are_refused_with_their_names() {
    let error = refusal(|_, vrm| vrm.expressions[0].binds[0].shape = "Frown".into());
    assert_eq!(
        error,
        VrmError::UnknownShape {
            expression: "happy".into(),
            shape: "Frown".into(),
            mesh: "the body".into(),
        }
    );
    let text = error.to_string();
    assert!(
        text.contains("Frown") && text.contains("the body"),
        "{text}"
    );
    // The body's shape asked of the hair.
    let error = refusal(|_, vrm| vrm.expressions[2].binds[0].shape = "Smile".into());
    assert!(
        error.to_string().contains("attachment 0 (`Hair`)"),
        "{error}"
    );
    let error = refusal(|_, vrm| vrm.expressions[2].binds[0].mesh = MeshRef::Attachment(3));
    assert!(matches!(error, VrmError::UnknownMesh { .. }), "{error}");
    // Two shapes of one name.
    let error = refusal(|spec, _| {
        spec.mesh.as_mut().unwrap().blend_shapes[1].name = "Smile".into();
    });
    assert!(matches!(error, VrmError::AmbiguousShape { .. }), "{error}");
}

#[test]
fn meta_without_authors_or_with_a_bad_thumbnail_is_refused() {
    assert_eq!(
        refusal(|_, vrm| vrm.meta.authors.clear()),
        VrmError::NoAuthors
    );
    assert_eq!(
        refusal(|_, vrm| vrm.meta.authors.push(String::new())),
        VrmError::EmptyMetaText { field: "author" }
    );
    let error = refusal(|_, vrm| {
        let wide = test_support::gltf::png(4, 2, &[[0, 0, 0, 255]; 8]);
        vrm.meta.thumbnail_png = Some(Arc::new(wide));
    });
    assert!(error.to_string().contains("4 x 2"), "{error}");
    let error = refusal(|_, vrm| vrm.meta.thumbnail_png = Some(Arc::new(b"GIF89a".to_vec())));
    assert!(matches!(error, VrmError::BadThumbnail(_)), "{error}");
}

#[test]
fn springs_that_are_not_chains_or_share_joints_are_refused() {
    // Hair3 before Hair2.
    let error = refusal(|_, vrm| {
        vrm.spring_bones.springs[0].joints = [17, 19, 18].map(hair_joint).to_vec();
    });
    assert_eq!(
        error,
        VrmError::BrokenChain {
            spring: "Hair".into(),
            joint: 2,
            bone: "Hair2".into(),
            previous: "Hair3".into(),
        }
    );
    // An eye is not below the hair.
    let error = refusal(|_, vrm| vrm.spring_bones.springs[0].joints[1].bone = 3);
    assert!(
        matches!(error, VrmError::BrokenChain { joint: 1, .. }),
        "{error}"
    );
    // The specification lets a joint skip a bone between (Hair1 to Hair3).
    let spec = humanoid_character();
    let mut vrm = vrm_spec(&spec);
    vrm.spring_bones.springs[0].joints.remove(1);
    make_vrm(&mut built(&spec), &spec, &vrm).expect("an ancestor, not a parent, is allowed");
    // A second spring on Hair3.
    let error = refusal(|_, vrm| {
        vrm.spring_bones.springs.push(Spring {
            name: "Tip".into(),
            joints: vec![hair_joint(19)],
            collider_groups: Vec::new(),
        });
    });
    assert!(matches!(error, VrmError::SharedJoint { .. }), "{error}");
    let error = refusal(|_, vrm| vrm.spring_bones.springs[0].joints[0].bone = 99);
    assert!(
        matches!(error, VrmError::UnknownBone { bone: 99, .. }),
        "{error}"
    );
    let error = refusal(|_, vrm| vrm.spring_bones.springs[0].collider_groups = vec![4]);
    assert!(
        matches!(error, VrmError::UnknownIndex { index: 4, .. }),
        "{error}"
    );
}

#[test]
fn a_humanoid_missing_a_required_bone_is_refused() {
    let error = refusal(|_, vrm| {
        vrm.humanoid.remove("leftFoot");
    });
    assert_eq!(
        error,
        VrmError::Humanoid(HumanoidError::Missing(vec!["leftFoot"]))
    );
    // A bone look-at needs both eyes.
    let error = refusal(|_, vrm| {
        vrm.humanoid.remove("rightEye");
    });
    assert_eq!(error, VrmError::LookAtWithoutEyes("rightEye"));
}

#[test]
fn numbers_out_of_range_and_misfiled_expressions_are_refused() {
    let error = refusal(|_, vrm| vrm.expressions[0].binds[0].weight = 1.5);
    assert!(
        matches!(error, VrmError::OutOfRange { value: 1.5, .. }),
        "{error}"
    );
    let error = refusal(|_, vrm| vrm.expressions[0].binds[0].weight = f64::NAN);
    assert!(matches!(error, VrmError::NonFinite { .. }), "{error}");
    let error = refusal(|_, vrm| vrm.look_at.as_mut().unwrap().eyes.x = f64::INFINITY);
    assert!(matches!(error, VrmError::NonFinite { .. }), "{error}");
    let error = refusal(|_, vrm| vrm.look_at.as_mut().unwrap().vertical_up.input_max_value = 200.0);
    assert!(matches!(error, VrmError::OutOfRange { .. }), "{error}");
    let error = refusal(|_, vrm| vrm.spring_bones.springs[0].joints[0].drag_force = -0.1);
    assert!(matches!(error, VrmError::OutOfRange { .. }), "{error}");
    let error = refusal(|_, vrm| {
        vrm.spring_bones.springs[0].joints[0].gravity_dir = DVec3::new(0.0, -2.0, 0.0)
    });
    assert!(matches!(error, VrmError::NotUnit { .. }), "{error}");
    let error = refusal(|_, vrm| {
        vrm.spring_bones.colliders[0].shape = ColliderShape::Sphere {
            center: DVec3::NAN,
            radius: 0.1,
        };
    });
    assert!(matches!(error, VrmError::NonFinite { .. }), "{error}");
    let error = refusal(|_, vrm| vrm.expressions[2].preset = true);
    assert_eq!(error, VrmError::NotAPreset("puffy".into()));
    let error = refusal(|_, vrm| vrm.expressions[1].preset = false);
    assert_eq!(error, VrmError::CustomNamedAsPreset("blink".into()));
    let error = refusal(|_, vrm| vrm.expressions[1].name = "happy".into());
    assert_eq!(error, VrmError::DuplicateExpression("happy".into()));
    let error = refusal(|_, vrm| {
        vrm.first_person
            .push((MeshRef::Body, FirstPersonKind::Both))
    });
    assert!(matches!(error, VrmError::DuplicateAnnotation(_)), "{error}");
}

#[test]
fn a_document_is_made_a_vrm_once_and_only_from_its_own_spec() {
    let spec = humanoid_character();
    let vrm = vrm_spec(&spec);
    let mut built = built(&spec);
    make_vrm(&mut built, &spec, &vrm).unwrap();
    assert_eq!(make_vrm(&mut built, &spec, &vrm), Err(VrmError::AlreadyVrm));
    let error = refusal(|spec, _| spec.attachments.clear());
    assert!(matches!(error, VrmError::NotBuiltFromSpec(_)), "{error}");
    // Without springs or a thumbnail: only VRMC_vrm, the buffer as gltf-writer left it.
    let mut plain = vrm_spec(&spec);
    plain.spring_bones = SpringBones::default();
    plain.meta.thumbnail_png = None;
    let mut built = self::built(&spec);
    let length = built.buffer.len();
    let written = make_vrm(&mut built, &spec, &plain).unwrap();
    assert_eq!(written.thumbnail_image, None);
    assert_eq!(built.root.extensions_used, ["VRMC_vrm"]);
    assert_eq!(built.buffer.len(), length);
    assert!(built.root.images.is_empty());
}
