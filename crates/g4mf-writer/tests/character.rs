//! A hand-built tiny character checked against every layout rule, byte-level container tests,
//! property tests of skin ordering, and a golden pretty JSON.

#![allow(clippy::unwrap_used)] // Tests fail loudly by design.

use g4mf_writer::model::{DefinedComponentType, Document, JointRef};
use g4mf_writer::{
    BlendShapeSpec, BoneSpec, CharacterSpec, Compression, ContainerOptions, FaceSpec, Influence,
    MeshSpec, SurfaceSpec, TextBufferStorage, build_character, is_valid_name, order_skin,
    write_g4b, write_g4tf,
};
use glam::{DMat3, DVec3};
use proptest::prelude::*;
use serde_json::json;
use test_support::tiny::TinyCharacter;

/// hips (root) -> spine -> head; hips -> leg.L. Given in an order where a child comes first.
fn tiny_spec() -> CharacterSpec {
    let up = DMat3::IDENTITY;
    let left = DMat3::from_cols(DVec3::NEG_Y, DVec3::X, DVec3::Z); // +Y along +X
    let bone = |name: &str, parent, head, basis, length| BoneSpec {
        name: name.into(),
        parent,
        head,
        basis,
        length,
        extras: None,
    };
    let mut spec = TinyCharacter::new("Tiny.Human")
        .bone_spec(BoneSpec {
            extras: Some(json!({"mpfb": {"name": "spine.001"}}).into()),
            ..bone("spine.001", Some(2), DVec3::new(0.0, 1.0, 0.0), up, 0.5)
        })
        .bone_spec(bone("head", Some(0), DVec3::new(0.0, 1.5, 0.0), up, 0.25))
        .bone_spec(bone("hips:root", None, DVec3::new(0.0, 0.9, 0.0), up, 0.1))
        .bone_spec(bone("leg.L", Some(2), DVec3::new(0.1, 0.9, 0.0), left, 0.4))
        .positions(vec![
            DVec3::new(0.0, 0.0, 0.0),
            DVec3::new(1.0, 0.0, 0.0),
            DVec3::new(1.0, 1.0, 0.0),
            DVec3::new(0.0, 1.0, 0.0),
            DVec3::new(0.5, 2.0, 0.0),
        ])
        .texcoords(vec![
            [0.0, 1.0],
            [1.0, 1.0],
            [1.0, 0.0],
            [0.0, 0.0],
            [0.5, 0.0],
        ])
        // The triangle starts at vertex 0 like the quad: it must be rotated so polytopes stay
        // apart.
        .faces(&[&[0, 1, 2, 3], &[0, 3, 4]])
        .material("Skin.001", None)
        .weights(&[
            (4, 1, 1.0),
            (0, 3, 0.25),
            (0, 2, 0.75),
            (1, 3, 0.5),
            (1, 2, 0.5),
            (2, 2, 0.5),
            (2, 2, 0.5), // repeats add up
            (3, 2, 1.0),
        ])
        .generator("mpfb2g4mf test")
        .spec();
    spec.skeleton_position = DVec3::new(0.0, 0.8, 0.0);
    spec.skeleton_extras = Some(json!({"mpfb": {"version": 110}}).into());
    spec
}

fn accessor_values(
    doc: &Document,
    buffer: &[u8],
    accessor: g4mf_writer::model::AccessorIndex,
) -> (DefinedComponentType, Vec<f64>) {
    let a = &doc.accessors[accessor.get()];
    let view = &doc.buffer_views[a.buffer_view.get()];
    let bytes =
        &buffer[view.byte_offset() as usize..(view.byte_offset() + view.byte_length) as usize];
    let t = a.component_type.defined().unwrap();
    let values = match t {
        DefinedComponentType::Uint8 => bytes.iter().map(|&b| f64::from(b)).collect(),
        DefinedComponentType::Uint16 => bytes
            .chunks(2)
            .map(|c| f64::from(u16::from_le_bytes([c[0], c[1]])))
            .collect(),
        DefinedComponentType::Uint32 => bytes
            .chunks(4)
            .map(|c| f64::from(u32::from_le_bytes(c.try_into().unwrap())))
            .collect(),
        DefinedComponentType::Float32 => bytes
            .chunks(4)
            .map(|c| f64::from(f32::from_le_bytes(c.try_into().unwrap())))
            .collect(),
        other => panic!("unexpected {other:?}"),
    };
    (t, values)
}

#[test]
fn the_layout_obeys_every_rule() {
    let built = build_character(&tiny_spec()).unwrap();
    let doc = &built.document;
    let names: Vec<&str> = doc
        .nodes
        .iter()
        .map(|n| n.name.as_deref().unwrap())
        .collect();
    // Root, skeleton, bones depth-first (hips, spine, head, leg), mesh node; names sanitized.
    assert_eq!(
        names,
        [
            "Tiny_Human",
            "Tiny_HumanSkeleton",
            "hips_root",
            "spine_001",
            "head",
            "leg_L",
            "Tiny_HumanBody"
        ]
    );
    assert!(names.iter().all(|n| is_valid_name(n)));

    let root = &doc.nodes[0];
    assert!(
        root.position.is_none()
            && root.basis.is_none()
            && root.rotor.is_none()
            && root.scale.is_none()
    );
    assert_eq!(root.children, [g4mf_writer::model::Index::new(1)]);

    let skeleton = &doc.nodes[1];
    assert_eq!(skeleton.position, Some(vec![0.0, 0.8, 0.0]));
    assert_eq!(
        skeleton.extras,
        Some(json!({"mpfb": {"version": 110}}).into())
    );
    // The single root bone is the skeleton's first child; the mesh node is a direct child.
    let children: Vec<u32> = skeleton.children.iter().map(|c| c.value()).collect();
    assert_eq!(children, [2, 6]);
    // Joints: bones with weights (hips, head, leg; not spine), ascending, root bone first.
    let joints: Vec<JointRef> = skeleton.skeleton.as_ref().unwrap().joints.clone();
    let joint_nodes: Vec<u32> = joints
        .iter()
        .map(|j| match j {
            JointRef::Node(n) => n.value(),
            JointRef::Uncontrolled => panic!(),
        })
        .collect();
    assert_eq!(joint_nodes, [2, 4, 5]);
    assert_eq!(built.joint_bones, [2, 1, 3]);

    // Bone transforms are relative to the parent and compose back to the input.
    let leg = &doc.nodes[5];
    assert_eq!(leg.bone.as_ref().unwrap().length, Some(0.4));
    assert_eq!(leg.position, Some(vec![0.1, 0.0, 0.0]));
    assert_eq!(
        leg.basis,
        Some(
            DMat3::from_cols(DVec3::NEG_Y, DVec3::X, DVec3::Z)
                .to_cols_array()
                .to_vec()
        )
    );
    let spine = &doc.nodes[3];
    let p = spine.position.as_ref().unwrap();
    assert!((p[1] - 0.1).abs() < 1e-12 && p[0] == 0.0 && p[2] == 0.0);
    assert_eq!(
        spine.extras,
        Some(json!({"mpfb": {"name": "spine.001"}}).into())
    );
    assert_eq!(
        doc.nodes[2]
            .children
            .iter()
            .map(|c| c.value())
            .collect::<Vec<_>>(),
        [3, 5]
    );
    for node in &doc.nodes[2..6] {
        assert!(node.bone.is_some() && node.skeleton.is_none() && node.mesh_instance.is_none());
    }

    // The mesh.
    let mesh = &doc.meshes[0];
    assert_eq!(mesh.name.as_deref(), Some("Tiny_HumanBodyMesh"));
    assert_eq!(doc.nodes[6].mesh_instance.as_ref().unwrap().mesh.value(), 0);
    let (t, positions) = accessor_values(doc, &built.buffer, mesh.vertices);
    assert_eq!(
        (t, doc.accessors[mesh.vertices.get()].vector_size),
        (DefinedComponentType::Float32, Some(3))
    );
    assert_eq!(positions.len(), 15);
    let surface = &mesh.surfaces[0];
    assert!(surface.polytope_simplexes);
    assert_eq!(
        doc.materials[surface.material.unwrap().get()]
            .name
            .as_deref(),
        Some("Skin_001")
    );
    let (t, simplexes) = accessor_values(doc, &built.buffer, surface.simplexes.unwrap());
    assert_eq!(t, DefinedComponentType::Uint8);
    // Quad -> (0,1,2),(0,2,3); the triangle 0,3,4 is rotated to start at 3.
    assert_eq!(simplexes, [0.0, 1.0, 2.0, 0.0, 2.0, 3.0, 3.0, 4.0, 0.0]);
    let binding = surface.texture_map.as_ref().unwrap();
    let (_, uv_corners) = accessor_values(doc, &built.buffer, binding.simplexes.unwrap());
    assert_eq!(uv_corners, simplexes, "UV corners follow the same rotation");
    assert_eq!(doc.accessors[binding.values.get()].vector_size, Some(2));

    // The skin: sorted vertices, descending weights, ties by group, repeats merged.
    let skin = mesh.skin.as_ref().unwrap();
    assert_eq!(
        skin.group_names.as_deref(),
        Some(&["hips_root".to_owned(), "head".into(), "leg_L".into()][..])
    );
    let (tv, vertices) = accessor_values(doc, &built.buffer, skin.vertices);
    let (tg, groups) = accessor_values(doc, &built.buffer, skin.groups);
    let (tw, weights) = accessor_values(doc, &built.buffer, skin.weights);
    assert_eq!(
        (tv, tg, tw),
        (
            DefinedComponentType::Uint8,
            DefinedComponentType::Uint8,
            DefinedComponentType::Float32
        )
    );
    assert_eq!(vertices, [0.0, 0.0, 1.0, 1.0, 2.0, 3.0, 4.0]);
    assert_eq!(groups, [0.0, 2.0, 0.0, 2.0, 0.0, 0.0, 1.0]);
    assert_eq!(weights, [0.75, 0.25, 0.5, 0.5, 1.0, 1.0, 1.0]);
    for accessor in [skin.vertices, skin.groups, skin.weights] {
        assert_eq!(doc.accessors[accessor.get()].vector_size, None);
    }

    // Every buffer view is aligned to 16 bytes (a multiple of every component size).
    assert!(doc.buffer_views.iter().all(|v| v.byte_offset() % 16 == 0));
    assert_eq!(doc.asset.dimension, 3);
    assert_eq!(
        doc.asset.specification.as_deref(),
        Some(g4mf_writer::SPECIFICATION)
    );
}

#[test]
fn options_all_joints_and_no_group_names() {
    let spec = tiny_spec();
    let options = g4mf_writer::CharacterOptions {
        all_joints: true,
        group_names: false,
        ..Default::default()
    };
    let built = g4mf_writer::build_character_with(&spec, &options).unwrap();
    assert_eq!(
        built.document.nodes[1]
            .skeleton
            .as_ref()
            .unwrap()
            .joints
            .len(),
        4
    );
    assert_eq!(built.joint_bones, [2, 0, 1, 3]);
    assert!(
        built.document.meshes[0]
            .skin
            .as_ref()
            .unwrap()
            .group_names
            .is_none()
    );
}

#[test]
fn bad_input_is_refused() {
    let mut spec = tiny_spec();
    spec.bones[2].parent = Some(0); // hips -> spine -> hips: a cycle
    assert!(
        build_character(&spec)
            .unwrap_err()
            .to_string()
            .contains("cycle")
    );
    let mut spec = tiny_spec();
    spec.bones[0].head.x = f64::NAN;
    assert!(build_character(&spec).is_err());
    let mut spec = tiny_spec();
    let mut list = spec.influences.as_ref().unwrap().list().to_vec();
    list[0].vertex = 99;
    spec.influences = Some(list.into());
    assert!(
        build_character(&spec)
            .unwrap_err()
            .to_string()
            .contains("vertex 99")
    );
    let mut spec = tiny_spec();
    let mut list = spec.influences.as_ref().unwrap().list().to_vec();
    list[0].weight = -1.0;
    spec.influences = Some(list.into());
    assert!(build_character(&spec).is_err());
    let mut spec = tiny_spec();
    let mesh = spec.mesh.as_mut().unwrap();
    let mut surfaces = mesh.surfaces.specs().to_vec();
    surfaces[0].faces[0].vertices[0] = 42;
    mesh.surfaces = surfaces.into();
    assert!(
        build_character(&spec)
            .unwrap_err()
            .to_string()
            .contains("vertex 42")
    );
    let mut spec = tiny_spec();
    spec.mesh.as_mut().unwrap().surfaces = Vec::new().into();
    assert!(
        build_character(&spec)
            .unwrap_err()
            .to_string()
            .contains("at least one surface")
    );
    let mut spec = tiny_spec();
    spec.bones[1].length = -0.1;
    assert!(
        build_character(&spec)
            .unwrap_err()
            .to_string()
            .contains("negative length")
    );
}

fn u64_at(bytes: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(bytes[at..at + 8].try_into().unwrap())
}

#[test]
fn g4b_layout_byte_by_byte() {
    let built = build_character(&tiny_spec()).unwrap();
    let mut doc = built.document.clone();
    let file = write_g4b(
        &mut doc,
        std::slice::from_ref(&built.buffer),
        ContainerOptions::default(),
    )
    .unwrap();
    assert_eq!(&file[0..4], b"G4MF");
    assert_eq!(&file[4..8], &[0, 0, 0, 0], "version 0");
    assert_eq!(u64_at(&file, 8), file.len() as u64, "total size");
    assert_eq!(&file[16..20], b"JSON");
    assert_eq!(&file[20..24], &[0, 0, 0, 0], "plain");
    let json_len = u64_at(&file, 24) as usize;
    let json = &file[32..32 + json_len];
    let parsed: Document = serde_json::from_slice(json).unwrap();
    assert_eq!(parsed.buffers.len(), 1);
    assert_eq!(parsed.buffers[0].chunk, Some(1));
    assert_eq!(parsed.buffers[0].byte_length, built.buffer.len() as u64);
    assert!(parsed.buffers[0].uri.is_none() && parsed.buffers[0].encoding.is_none());
    // Padding after the JSON: spaces up to the next 16-byte boundary, not counted in its size.
    let blob_header = (32 + json_len).div_ceil(16) * 16;
    assert!(file[32 + json_len..blob_header].iter().all(|&b| b == b' '));
    assert_eq!(blob_header % 16, 0);
    assert_eq!(&file[blob_header..blob_header + 4], b"BLOB");
    assert_eq!(&file[blob_header + 4..blob_header + 8], &[0, 0, 0, 0]);
    let blob_len = u64_at(&file, blob_header + 8) as usize;
    assert_eq!(blob_len, built.buffer.len());
    assert_eq!(
        &file[blob_header + 16..blob_header + 16 + blob_len],
        &built.buffer[..]
    );
    assert_eq!(
        file.len(),
        blob_header + 16 + blob_len,
        "the last chunk is not padded"
    );
    assert_eq!(u64_at(&file, 8) >> 63, 0, "most significant bit clear");
}

#[test]
fn zstd_round_trip_of_blob_and_json_chunks() {
    let built = build_character(&tiny_spec()).unwrap();
    let mut doc = built.document.clone();
    let options = ContainerOptions {
        compression: Compression::Zstd(19),
        compress_json: true,
        pretty: false,
    };
    let file = write_g4b(&mut doc, std::slice::from_ref(&built.buffer), options).unwrap();
    assert_eq!(&file[16..24], b"JSONZstd");
    let json_len = u64_at(&file, 24) as usize;
    let json_zstd = &file[32..32 + json_len];
    assert_eq!(&json_zstd[..4], &[0x28, 0xB5, 0x2F, 0xFD], "zstd magic");
    let json = zstd::bulk::decompress(json_zstd, 1 << 20).unwrap();
    let parsed: Document = serde_json::from_slice(&json).unwrap();
    assert_eq!(parsed.buffers[0].encoding.as_deref(), Some("Zstd"));
    assert_eq!(
        parsed.buffers[0].byte_length,
        built.buffer.len() as u64,
        "decoded size"
    );
    let blob_header = (32 + json_len).div_ceil(16) * 16;
    assert!(
        file[32 + json_len..blob_header].iter().all(|&b| b == 0),
        "zero padding after compressed data"
    );
    assert_eq!(&file[blob_header..blob_header + 8], b"BLOBZstd");
    let blob_len = u64_at(&file, blob_header + 8) as usize;
    let blob = zstd::bulk::decompress(
        &file[blob_header + 16..blob_header + 16 + blob_len],
        built.buffer.len(),
    )
    .unwrap();
    assert_eq!(blob, built.buffer);
}

#[test]
fn g4tf_embedded_and_external() {
    use base64::Engine;
    let built = build_character(&tiny_spec()).unwrap();
    let mut doc = built.document.clone();
    let text = write_g4tf(
        &mut doc,
        std::slice::from_ref(&built.buffer),
        &TextBufferStorage::Embedded,
        ContainerOptions::default(),
    )
    .unwrap();
    assert!(text.external.is_empty());
    let parsed: Document = serde_json::from_slice(&text.json).unwrap();
    let uri = parsed.buffers[0].uri.as_deref().unwrap();
    let data = uri
        .strip_prefix("data:application/octet-stream;base64,")
        .unwrap();
    assert_eq!(
        base64::engine::general_purpose::STANDARD
            .decode(data)
            .unwrap(),
        built.buffer
    );
    assert!(parsed.buffers[0].chunk.is_none());

    let mut doc = built.document.clone();
    let storage = TextBufferStorage::External("tiny.bin".into());
    let options = ContainerOptions {
        compression: Compression::Zstd(3),
        ..ContainerOptions::default()
    };
    let text = write_g4tf(
        &mut doc,
        std::slice::from_ref(&built.buffer),
        &storage,
        options,
    )
    .unwrap();
    let parsed: Document = serde_json::from_slice(&text.json).unwrap();
    assert_eq!(parsed.buffers[0].uri.as_deref(), Some("tiny.bin"));
    assert_eq!(parsed.buffers[0].encoding.as_deref(), Some("Zstd"));
    assert_eq!(text.external[0].0, "tiny.bin");
    assert_eq!(
        zstd::bulk::decompress(&text.external[0].1, 1 << 20).unwrap(),
        built.buffer
    );
    // Text rules: no control characters but tab and line feed, no BOM.
    assert!(
        !text
            .json
            .iter()
            .any(|&b| b < 0x20 && b != b'\t' && b != b'\n')
    );
}

#[test]
fn golden_pretty_json_of_the_tiny_character() {
    // Regenerate with UPDATE_GOLDEN=1 (never silently).
    let built = build_character(&tiny_spec()).unwrap();
    let mut doc = built.document.clone();
    let options = ContainerOptions {
        pretty: true,
        ..ContainerOptions::default()
    };
    let text = write_g4tf(
        &mut doc,
        std::slice::from_ref(&built.buffer),
        &TextBufferStorage::Embedded,
        options,
    )
    .unwrap();
    let path = test_support::workspace_root().join("fixtures/g4mf/tiny_character.g4tf");
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, &text.json).unwrap();
    }
    let golden = std::fs::read(&path).unwrap_or_else(|e| {
        panic!(
            "{}: {e} (run with UPDATE_GOLDEN=1 to create it)",
            path.display()
        )
    });
    assert!(
        golden == text.json,
        "{} differs from the writer's output; if the change is intended, run with UPDATE_GOLDEN=1 and review the diff",
        path.display()
    );
}

proptest! {
    #[test]
    fn written_skins_are_sorted_and_keep_every_weight(
        raw in prop::collection::vec((0u32..30, 0u32..5, prop_oneof![Just(0.5f64), Just(0.25f64), 0.0f64..1.0]), 1..200)
    ) {
        let skin = order_skin(raw.iter().copied());
        for pair in skin.windows(2) {
            let (a, b) = (pair[0], pair[1]);
            prop_assert!(a.0 <= b.0);
            if a.0 == b.0 {
                prop_assert!(a.2 >= b.2);
                if a.2 == b.2 { prop_assert!(a.1 < b.1); }
            }
        }
        let mut expected = std::collections::BTreeMap::new();
        for &(v, g, w) in &raw {
            *expected.entry((v, g)).or_insert(0.0f64) += w;
        }
        prop_assert_eq!(skin.len(), expected.len());
        for (v, g, w) in skin {
            prop_assert_eq!(w, expected[&(v, g)] as f32);
        }
    }

    #[test]
    fn characters_with_random_skins_write_sorted_accessors(
        raw in prop::collection::vec((0u32..5, 0u32..4, 0.0f64..1.0), 1..60)
    ) {
        let mut spec = tiny_spec();
        spec.influences = Some(raw.iter().map(|&(vertex, bone, weight)| Influence { vertex, bone, weight }).collect());
        let built = build_character(&spec).unwrap();
        let doc = &built.document;
        let skin = doc.meshes[0].skin.as_ref().unwrap();
        let (_, v) = accessor_values(doc, &built.buffer, skin.vertices);
        let (_, g) = accessor_values(doc, &built.buffer, skin.groups);
        let (_, w) = accessor_values(doc, &built.buffer, skin.weights);
        prop_assert_eq!(v.len(), g.len());
        prop_assert_eq!(v.len(), w.len());
        for i in 1..v.len() {
            prop_assert!(v[i - 1] <= v[i]);
            if v[i - 1] == v[i] { prop_assert!(w[i - 1] >= w[i]); }
        }
        // Every input weight arrives at its bone's joint.
        let joints = &built.joint_bones;
        let mut expected = std::collections::BTreeMap::new();
        for &(vertex, bone, weight) in &raw {
            *expected.entry((vertex, bone as usize)).or_insert(0.0f64) += weight;
        }
        for i in 0..v.len() {
            let bone = joints[g[i] as usize];
            prop_assert_eq!(w[i] as f32, expected[&(v[i] as u32, bone)] as f32);
        }
    }
}

/// mesh.md: `polytopeSimplexes` promises flat polytopes. A quad lifted off its plane is written
/// as plain triangles (same simplexes, flag off); a planar one keeps the flag.
#[test]
fn polytope_simplexes_only_for_flat_polygons() {
    let flag = |lift: f64| {
        let mut spec = tiny_spec();
        spec.mesh.as_mut().unwrap().positions[2].z = lift;
        let built = build_character(&spec).unwrap();
        let surface = &built.document.meshes[0].surfaces[0];
        let (_, simplexes) =
            accessor_values(&built.document, &built.buffer, surface.simplexes.unwrap());
        (surface.polytope_simplexes, simplexes)
    };
    let (flat, flat_simplexes) = flag(0.0);
    // Float32 noise on a planar quad stays far inside the tolerance.
    let (tiny_lift, _) = flag(1e-9);
    let (bent, bent_simplexes) = flag(0.1);
    assert!(flat && tiny_lift);
    assert!(!bent);
    // The quad's two triangles still share their first vertex.
    assert_eq!(flat_simplexes, bent_simplexes);
    assert_eq!(bent_simplexes[0], bent_simplexes[3]);
}

#[test]
fn attachments_are_meshes_under_the_skeleton_with_the_bodys_joints_and_group_names() {
    let mut spec = tiny_spec();
    spec.attachments.push(g4mf_writer::AttachmentSpec {
        name: "Hat".into(),
        mesh: MeshSpec {
            positions: vec![
                DVec3::new(0.0, 2.0, 0.0),
                DVec3::new(1.0, 2.0, 0.0),
                DVec3::new(0.5, 2.5, 0.0),
            ],
            texcoords: Default::default(),
            surfaces: vec![SurfaceSpec {
                name: Some("HatSurface".into()),
                material: Some("HatMaterial".into()),
                faces: vec![FaceSpec {
                    vertices: [0, 1, 2].as_slice().into(),
                    texcoords: None,
                }],
            }]
            .into(),
            normals: None,
            blend_shapes: Vec::new(),
            materials: vec![g4mf_writer::MaterialSpec {
                name: "HatMaterial".into(),
                base_color: Some([0.5, 0.25, 0.125, 1.0]),
                extras: Some(json!({"render": {"drawOrder": 5}})),
                ..Default::default()
            }],
        },
        // Bone 0 (`spine.001`) weights nothing on the body: it joins the joints for the hat.
        influences: Some(
            (0..3)
                .map(|vertex| Influence {
                    vertex,
                    bone: 0,
                    weight: 1.0,
                })
                .collect(),
        ),
        node_extras: Some(json!({"mpfb": {"asset": {"name": "hat"}}}).into()),
        mesh_extras: None,
    });
    let built = build_character(&spec).unwrap();
    let doc = &built.document;
    assert_eq!(doc.meshes.len(), 2);
    assert_eq!(built.attachment_meshes, [1]);
    let body_skin = doc.meshes[0].skin.as_ref().unwrap();
    let hat_skin = doc.meshes[1].skin.as_ref().unwrap();
    assert_eq!(body_skin.group_names, hat_skin.group_names);
    let names = hat_skin.group_names.clone().unwrap();
    assert!(names.iter().any(|n| n == "spine_001"), "{names:?}");
    // The hat's skin names the spine's group.
    let spine_group = names.iter().position(|n| n == "spine_001").unwrap() as u32;
    assert!(
        built.attachment_skins[0]
            .iter()
            .all(|e| e.1 == spine_group && e.2 == 1.0)
    );
    assert_eq!(built.joint_bones.len(), names.len());
    // Its node is a child of the skeleton node, named after it, with its extras.
    let node = doc
        .nodes
        .iter()
        .position(|n| n.name.as_deref() == Some("Hat"))
        .unwrap();
    assert!(doc.nodes[1].children.iter().any(|c| c.get() == node));
    assert_eq!(
        doc.nodes[node].mesh_instance.as_ref().unwrap().mesh.get(),
        1
    );
    assert_eq!(
        doc.nodes[node].extras.as_ref().unwrap().value()["mpfb"]["asset"]["name"],
        "hat"
    );
    assert_eq!(doc.meshes[1].name.as_deref(), Some("HatMesh"));
    // Materials are file-wide: the body's and the hat's, the hat's with its extras.
    let hat_material = doc
        .materials
        .iter()
        .find(|m| m.name.as_deref() == Some("HatMaterial"))
        .unwrap();
    assert_eq!(hat_material.other["extras"]["render"]["drawOrder"], 5);
    assert_eq!(doc.materials.len(), 2);
}

/// Surfaces and influences shared between builds (as a population's bodies share them) write
/// exactly what fresh ones do, whatever each build's positions and joints: what the writer
/// keeps with them (simplexes, checks, the skin's order) never leaks from one layout into
/// another.
#[test]
fn shared_surfaces_and_influences_write_what_fresh_ones_do() {
    let first = tiny_spec();
    let surfaces = first.mesh.as_ref().unwrap().surfaces.clone();
    let influences = first.influences.clone();
    for (step, all_joints, width) in [
        (0.0, false, g4mf_writer::IndexWidth::Smallest),
        (0.25, true, g4mf_writer::IndexWidth::Smallest),
        (-0.5, false, g4mf_writer::IndexWidth::Uint32),
        (0.75, false, g4mf_writer::IndexWidth::Smallest),
    ] {
        let moved = |mut spec: CharacterSpec| {
            for p in &mut spec.mesh.as_mut().unwrap().positions {
                *p += DVec3::new(step, step * 0.5, 0.0);
            }
            spec
        };
        let options = g4mf_writer::CharacterOptions {
            all_joints,
            index_width: width,
            ..Default::default()
        };
        let fresh = moved(tiny_spec());
        let mut shared = moved(tiny_spec());
        shared.mesh.as_mut().unwrap().surfaces = surfaces.clone();
        shared.influences = influences.clone();
        let (a, b) = (
            g4mf_writer::build_character_with(&fresh, &options).unwrap(),
            g4mf_writer::build_character_with(&shared, &options).unwrap(),
        );
        assert_eq!(a.document, b.document, "step {step}");
        assert_eq!(a.buffer, b.buffer, "step {step}");
        assert_eq!(a.skin, b.skin, "step {step}");
    }
    // A shared skin still meets each build's checks: a mesh too small for it is refused.
    let mut small = tiny_spec();
    small.influences = influences;
    small.mesh.as_mut().unwrap().positions.truncate(2);
    assert!(build_character(&small).is_err());
}

/// A blend shape's offsets shared between builds write what fresh ones do, and are still
/// checked against each mesh they go on.
#[test]
fn shared_blend_offsets_write_what_fresh_ones_do_and_are_checked_each_time() {
    let offsets: g4mf_writer::Offsets = vec![
        (1, DVec3::new(0.0, 0.1, 0.0)),
        (4, DVec3::new(0.2, 0.0, 0.0)),
    ]
    .into();
    let with_shape = |offsets: g4mf_writer::Offsets| {
        let mut spec = tiny_spec();
        spec.mesh.as_mut().unwrap().blend_shapes = vec![BlendShapeSpec {
            name: "Lift".into(),
            amount: 0.5,
            offsets,
            normal_offsets: Vec::new(),
        }];
        spec
    };
    for width in [
        g4mf_writer::IndexWidth::Smallest,
        g4mf_writer::IndexWidth::Uint32,
    ] {
        let shared = with_shape(offsets.clone());
        let fresh = with_shape(offsets.to_vec().into());
        let options = g4mf_writer::CharacterOptions {
            index_width: width,
            ..Default::default()
        };
        let (a, b) = (
            g4mf_writer::build_character_with(&fresh, &options).unwrap(),
            g4mf_writer::build_character_with(&shared, &options).unwrap(),
        );
        assert_eq!((a.document, a.buffer), (b.document, b.buffer));
    }
    // On a mesh without vertex 4, the same shared offsets are refused.
    let mut small = with_shape(offsets);
    let mesh = small.mesh.as_mut().unwrap();
    mesh.positions.truncate(4);
    mesh.surfaces = vec![SurfaceSpec {
        name: None,
        material: None,
        faces: vec![FaceSpec {
            vertices: [0, 1, 2].as_slice().into(),
            texcoords: None,
        }],
    }]
    .into();
    small.influences = None;
    let error = build_character(&small).unwrap_err().to_string();
    assert!(error.contains("moves vertex 4"), "{error}");
}

#[test]
fn a_long_chain_is_written_child_under_parent_with_names_made_unique() {
    // 20,000 bones, each the only child of the one before (a search of every bone's children
    // among all bones, or of a free name from `_2` each time, made this quadratic). Half of
    // the names collide once sanitized (`b.i` and `b:i` are both `b_i`).
    let count = 20_000;
    let mut tiny = TinyCharacter::new("chain").chain(count / 2);
    for i in 0..count / 2 {
        tiny = tiny.bone(&format!("b:{i}"), glam::DVec3::new(0.0, i as f64, 1.0), 1.0);
    }
    let doc = tiny.build().document;
    let bone_nodes: Vec<&g4mf_model::Node> =
        doc.nodes.iter().filter(|n| n.bone.is_some()).collect();
    assert_eq!(bone_nodes.len(), count);
    let mut names = std::collections::HashSet::new();
    for (i, node) in bone_nodes.iter().enumerate() {
        assert!(names.insert(node.name.clone().unwrap()), "unique names");
        let children: Vec<usize> = node.children.iter().map(|c| c.get()).collect();
        if i + 1 < count {
            // Depth first: the next bone node is the only child.
            assert_eq!(children.len(), 1, "bone {i}");
            assert_eq!(doc.nodes[children[0]].name, bone_nodes[i + 1].name);
        } else {
            assert!(children.is_empty());
        }
    }
    assert_eq!(bone_nodes[count / 2].name.as_deref(), Some("b_0_2"));
}
