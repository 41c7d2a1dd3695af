//! The glTF writer on small hand-made characters: node transforms, bind matrices, split
//! vertices, skins, morph targets, materials and containers, read back through `gltf-json`'s
//! model and the buffer bytes.

use character_spec::{
    BoneSpec, CharacterSpec, FaceSpec, ImageSpec, Influence, MaterialSpec, RenderHints,
    SurfaceSpec, TextureSpec,
};
use glam::{DMat3, DMat4, DQuat, DVec3};
use gltf_writer::json::validation::Validate;
use gltf_writer::json::{self, Root};
use gltf_writer::{
    BufferStorage, BuiltGltf, ContainerOptions, GltfError, GltfOptions, build_gltf, glb_parts,
    gltf_text,
};
use std::sync::Arc;
use test_support::tiny::TinyCharacter;

/// An accessor's elements as numbers, sparse values applied.
fn read(root: &Root, buffer: &[u8], accessor: usize) -> Vec<Vec<f64>> {
    test_support::gltf::accessor(root, buffer, accessor)
}

/// The document passes `gltf-json`'s own validation.
fn assert_valid(root: &Root) {
    let mut problems = Vec::new();
    root.validate(
        root,
        json::Path::new,
        &mut |path: &dyn Fn() -> json::Path, e| problems.push(format!("{}: {e:?}", path())),
    );
    assert!(problems.is_empty(), "{problems:?}");
}

fn rotated(axis: DVec3, angle: f64) -> DMat3 {
    DMat3::from_quat(DQuat::from_axis_angle(axis.normalize(), angle))
}

/// Three bones: a root tilted about Z, a child turned about X, a grandchild.
fn three_bones(spec: &mut CharacterSpec) {
    let bones = [
        (None, DVec3::new(0.0, 1.0, 0.0), rotated(DVec3::Z, 0.3)),
        (Some(0), DVec3::new(0.1, 1.5, 0.0), rotated(DVec3::X, -0.7)),
        (
            Some(1),
            DVec3::new(0.1, 1.9, 0.2),
            rotated(DVec3::new(1.0, 1.0, 0.0), 1.1),
        ),
    ];
    spec.bones = bones
        .iter()
        .enumerate()
        .map(|(i, &(parent, head, basis))| BoneSpec {
            name: format!("bone.{i}"),
            parent,
            head,
            basis,
            length: 0.25,
            extras: None,
        })
        .collect();
}

fn world_of(root: &Root, node: usize, parents: &[Option<usize>]) -> DMat4 {
    let n = &root.nodes[node];
    let t = n
        .translation
        .map_or(DVec3::ZERO, |t| DVec3::from(t.map(f64::from)));
    let r = n
        .rotation
        .as_ref()
        .map_or(DQuat::IDENTITY, |q| DQuat::from_array(q.0.map(f64::from)));
    let local = DMat4::from_rotation_translation(r, t);
    match parents[node] {
        None => local,
        Some(p) => world_of(root, p, parents) * local,
    }
}

fn parents(root: &Root) -> Vec<Option<usize>> {
    let mut parents = vec![None; root.nodes.len()];
    for (i, n) in root.nodes.iter().enumerate() {
        for c in n.children.iter().flatten() {
            parents[c.value()] = Some(i);
        }
    }
    parents
}

#[test]
fn bones_are_nodes_relative_to_their_parents_and_bind_matrices_invert_the_rest() {
    let mut spec = TinyCharacter::new("Tiny").spec();
    three_bones(&mut spec);
    spec.skeleton_position = DVec3::new(0.0, 0.8, 0.0);
    spec.influences = Some(
        vec![Influence {
            vertex: 0,
            bone: 2,
            weight: 1.0,
        }]
        .into(),
    );
    let built = build_gltf(&spec, &GltfOptions::default()).unwrap();
    let root = &built.root;
    assert_valid(root);
    let names: Vec<&str> = root
        .nodes
        .iter()
        .filter_map(|n| n.name.as_deref())
        .collect();
    assert_eq!(
        names,
        ["TinySkeleton", "bone_0", "bone_1", "bone_2", "TinyBody"]
    );
    assert_eq!(root.scenes[0].name.as_deref(), Some("Tiny"));
    let scene: Vec<usize> = root.scenes[0].nodes.iter().map(|n| n.value()).collect();
    assert_eq!(
        scene,
        [0, 4],
        "the skeleton and the mesh node are the scene's roots"
    );
    let parents = parents(root);
    let skin = &root.skins[0];
    let binds = read(
        root,
        &built.buffer,
        skin.inverse_bind_matrices.unwrap().value(),
    );
    for (j, joint) in skin.joints.iter().enumerate() {
        let world = world_of(root, joint.value(), &parents);
        let bone = &spec.bones[j];
        let expected = DMat4::from_rotation_translation(
            DQuat::from_mat3(&bone.basis),
            bone.head + spec.skeleton_position,
        );
        assert!(
            world.abs_diff_eq(expected, 1e-6),
            "joint {j}: {world} vs {expected}"
        );
        let bind = DMat4::from_cols_array(&std::array::from_fn(|k| binds[j][k]));
        assert!(
            (world * bind).abs_diff_eq(DMat4::IDENTITY, 1e-5),
            "joint {j}"
        );
    }
    // The bone's length, which glTF has no property for, is in its extras.
    let extras: serde_json::Value =
        serde_json::from_str(root.nodes[1].extras.as_ref().unwrap().get()).unwrap();
    assert_eq!(extras["bone"]["length"], 0.25);
}

#[test]
fn bone_and_mesh_nodes_are_reported_in_spec_order() {
    // Bone 2 is bone 0's child and bone 1 a second root: depth-first node order is 0, 2, 1.
    let mut spec = TinyCharacter::new("Order").spec();
    three_bones(&mut spec);
    spec.bones[1].parent = None;
    spec.bones[2].parent = Some(0);
    let mut hat = spec.mesh.clone().unwrap();
    hat.blend_shapes.clear();
    spec.attachments.push(character_spec::AttachmentSpec {
        name: "Hat".into(),
        mesh: hat,
        ..Default::default()
    });
    let built = build_gltf(&spec, &GltfOptions::default()).unwrap();
    let root = &built.root;
    assert_eq!(built.bone_nodes, [1, 3, 2]);
    for (b, &node) in built.bone_nodes.iter().enumerate() {
        let name = root.nodes[node as usize].name.as_deref();
        assert_eq!(name, Some(format!("bone_{b}").as_str()));
    }
    let placed: Vec<(u32, u32)> = built.meshes.iter().map(|m| (m.node, m.mesh)).collect();
    assert_eq!(placed, [(4, 0), (5, 1)]);
    assert_eq!(root.nodes[5].name.as_deref(), Some("Hat"));
    assert_eq!(root.nodes[5].mesh.map(|m| m.value()), Some(1));
    // No bones, no bone nodes.
    let mut bare = TinyCharacter::new("Bare").spec();
    bare.bones.clear();
    bare.influences = None;
    let built = build_gltf(&bare, &GltfOptions::default()).unwrap();
    assert!(built.bone_nodes.is_empty());
    assert_eq!((built.meshes[0].node, built.meshes[0].mesh), (0, 0));
}

#[test]
fn vertices_split_at_seams_keep_positions_skins_and_shapes() {
    // Two quads sharing the edge 1-2; the second uses other texture coordinates there (a seam).
    let positions = vec![
        DVec3::new(0.0, 0.0, 0.0),
        DVec3::new(1.0, 0.0, 0.0),
        DVec3::new(1.0, 1.0, 0.0),
        DVec3::new(0.0, 1.0, 0.0),
        DVec3::new(2.0, 0.0, 0.0),
        DVec3::new(2.0, 1.0, 0.0),
    ];
    let mut spec = TinyCharacter::new("Seam")
        .chain(6)
        .positions(positions.clone())
        .blend_shape("Lift", 0.25, &[(2, DVec3::new(0.0, 0.0, 0.1))])
        .spec();
    spec.skeleton_position = DVec3::new(0.0, 0.5, 0.0);
    let mesh = spec.mesh.as_mut().unwrap();
    mesh.texcoords = Arc::new((0..10).map(|i| [i as f64 / 10.0, 0.5]).collect());
    mesh.surfaces = vec![SurfaceSpec {
        name: Some("Skin".into()),
        material: None,
        faces: vec![
            FaceSpec {
                vertices: [0, 1, 2, 3].as_slice().into(),
                texcoords: Some([0, 1, 2, 3].as_slice().into()),
            },
            FaceSpec {
                vertices: [1, 4, 5, 2].as_slice().into(),
                texcoords: Some([1, 4, 5, 9].as_slice().into()),
            },
        ],
    }]
    .into();
    mesh.normals = Some(vec![DVec3::Z; 6]);
    // Vertex 2: six influences (two on bone 1, which add up); vertex 5: none.
    let mut influences: Vec<Influence> = [
        (2, 0, 0.1),
        (2, 1, 0.2),
        (2, 2, 0.3),
        (2, 3, 0.05),
        (2, 4, 0.15),
        (2, 1, 0.1),
    ]
    .iter()
    .map(|&(vertex, bone, weight)| Influence {
        vertex,
        bone,
        weight,
    })
    .collect();
    influences.extend((0..5).filter(|&v| v != 2).map(|v| Influence {
        vertex: v,
        bone: v,
        weight: 1.0,
    }));
    spec.influences = Some(influences.into());
    let built = build_gltf(&spec, &GltfOptions::default()).unwrap();
    let root = &built.root;
    assert_valid(root);
    assert_eq!(built.meshes[0].vertices, 7, "vertex 2 is on the seam");
    assert_eq!(built.meshes[0].given_to_root, 1);
    assert_eq!(built.meshes[0].influences_dropped, 1);
    let primitive = &root.meshes[0].primitives[0];
    let attribute = |s: json::mesh::Semantic| {
        primitive.attributes[&json::validation::Checked::Valid(s)].value()
    };
    let p = read(
        root,
        &built.buffer,
        attribute(json::mesh::Semantic::Positions),
    );
    let uv = read(
        root,
        &built.buffer,
        attribute(json::mesh::Semantic::TexCoords(0)),
    );
    let joints = read(
        root,
        &built.buffer,
        attribute(json::mesh::Semantic::Joints(0)),
    );
    let weights = read(
        root,
        &built.buffer,
        attribute(json::mesh::Semantic::Weights(0)),
    );
    let target = read(
        root,
        &built.buffer,
        primitive.targets.as_ref().unwrap()[0]
            .positions
            .unwrap()
            .value(),
    );
    let indices = read(root, &built.buffer, primitive.indices.unwrap().value());
    assert_eq!(indices.len(), 12);
    let source_of = |g: usize| {
        positions
            .iter()
            .position(|q| {
                (*q + spec.skeleton_position)
                    .as_vec3()
                    .as_dvec3()
                    .distance(DVec3::from_slice(&p[g]))
                    < 1e-6
            })
            .unwrap()
    };
    let mut seen_texcoords_of_2 = Vec::new();
    for g in 0..p.len() {
        let s = source_of(g);
        let sum: f64 = weights[g].iter().sum();
        assert!((sum - 1.0).abs() < 1e-6, "vertex {g}: {sum}");
        match s {
            2 => {
                seen_texcoords_of_2.push(uv[g][0]);
                // Joints 1 (0.3), 2 (0.3), 4 (0.15), 0 (0.1) kept of 0.95; 3 (0.05) dropped.
                assert_eq!(joints[g], [1.0, 2.0, 4.0, 0.0]);
                let want = [0.3, 0.3, 0.15, 0.1].map(|w| w / 0.85);
                for k in 0..4 {
                    assert!((weights[g][k] - want[k]).abs() < 1e-6, "{:?}", weights[g]);
                }
                assert!(
                    (target[g][2] - 0.1).abs() < 1e-7,
                    "every copy of vertex 2 moves"
                );
            }
            5 => assert_eq!(
                (joints[g][0], weights[g][0]),
                (0.0, 1.0),
                "the root takes it"
            ),
            other => {
                assert_eq!(joints[g][0], other as f64);
                assert_eq!(target[g], [0.0; 3]);
            }
        }
    }
    seen_texcoords_of_2.sort_by(f64::total_cmp);
    assert_eq!(seen_texcoords_of_2, [0.2f32 as f64, 0.9f32 as f64]);
    // Names and default weights.
    let mesh = &root.meshes[0];
    let extras: serde_json::Value =
        serde_json::from_str(mesh.extras.as_ref().unwrap().get()).unwrap();
    assert_eq!(extras["targetNames"], serde_json::json!(["Lift"]));
    assert_eq!(mesh.weights, Some(vec![0.25]));
    // Eight influences allowed: all five kept, in two sets.
    let eight = build_gltf(&spec, &GltfOptions { max_influences: 8 }).unwrap();
    assert_eq!(eight.meshes[0].influence_sets, 2);
    assert_eq!(eight.meshes[0].max_influences, 5);
}

fn png(width: u32, height: u32) -> Arc<Vec<u8>> {
    // A valid PNG header is enough for the writer, which never decodes images.
    let mut bytes = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR".to_vec();
    bytes.extend_from_slice(&width.to_be_bytes());
    bytes.extend_from_slice(&height.to_be_bytes());
    Arc::new(bytes)
}

#[test]
fn missing_images_fold_their_placeholders_into_the_factors_and_hints_set_alpha_and_sides() {
    let mut spec = TinyCharacter::new("Dressed")
        .texcoords(vec![[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]])
        .material("Hair", None)
        .spec();
    spec.textures = vec![
        TextureSpec {
            name: "hairTexture".into(),
            image: None,
            size: [1, 1],
            placeholder: vec![0.5, 0.25, 1.0, 0.5],
        },
        TextureSpec {
            name: "ormTexture".into(),
            image: None,
            size: [1, 1],
            placeholder: vec![1.0, 0.6, 0.2],
        },
        TextureSpec {
            name: "normalTexture".into(),
            image: Some(ImageSpec::Embedded {
                bytes: png(2, 2),
                mime: "image/png".into(),
            }),
            size: [2, 2],
            placeholder: vec![0.5, 0.5, 1.0],
        },
    ];
    let hints = RenderHints {
        draw_order: 3,
        transparent: true,
        alpha_to_coverage: true,
        backface_cull: false,
    };
    let mesh = spec.mesh.as_mut().unwrap();
    mesh.normals = Some(vec![DVec3::Z; 3]);
    mesh.materials = vec![MaterialSpec {
        name: "Hair".into(),
        base_color: Some([0.8, 0.8, 0.8, 1.0]),
        render: Some(hints),
        extras: Some(serde_json::json!({ "render": { "drawOrder": 3 } })),
        base_color_texture: Some(0),
        normal_texture: Some(2),
        orm_texture: Some(1),
    }];
    let built = build_gltf(&spec, &GltfOptions::default()).unwrap();
    let root = &built.root;
    assert_valid(root);
    assert_eq!(built.folded_textures, 2);
    let material = &root.materials[0];
    let pbr = &material.pbr_metallic_roughness;
    assert_eq!(pbr.base_color_factor.0, [0.4, 0.2, 0.8, 0.5]);
    assert!(pbr.base_color_texture.is_none() && pbr.metallic_roughness_texture.is_none());
    assert_eq!((pbr.roughness_factor.0, pbr.metallic_factor.0), (0.6, 0.2));
    assert!(material.normal_texture.is_some());
    assert_eq!(
        material.alpha_mode,
        json::validation::Checked::Valid(json::material::AlphaMode::Mask)
    );
    assert!(material.double_sided);
    assert_eq!(root.images.len(), 1, "only the present image is written");
    // A normal map brings tangents: unit, orthogonal to the normal, handedness +-1.
    let primitive = &root.meshes[0].primitives[0];
    let tangents = read(
        root,
        &built.buffer,
        primitive.attributes[&json::validation::Checked::Valid(json::mesh::Semantic::Tangents)]
            .value(),
    );
    for t in &tangents {
        let xyz = DVec3::new(t[0], t[1], t[2]);
        assert!((xyz.length() - 1.0).abs() < 1e-5 && xyz.z.abs() < 1e-5);
        // The triangle's texture coordinates run u along +X and v (down the image) along +Y,
        // so the image is upside down on it: the bitangent (up the image) is -Y, w = -1.
        let bitangent = DVec3::Z.cross(xyz) * t[3];
        assert!((bitangent - DVec3::NEG_Y).length() < 1e-5, "{t:?}");
    }
    // A transparent material without alpha to coverage blends; alpha to coverage on an
    // opaque one (most MakeHuman suits) is not honoured, as MakeHuman does: opaque.
    let mode = |hints: RenderHints| {
        let mut spec = spec.clone();
        spec.mesh.as_mut().unwrap().materials[0].render = Some(hints);
        // An opaque image (the folded alpha would blend on its own).
        spec.textures[0].placeholder[3] = 1.0;
        let built = build_gltf(&spec, &GltfOptions::default()).unwrap();
        built.root.materials[0].alpha_mode
    };
    let valid = json::validation::Checked::Valid;
    let blend = RenderHints {
        alpha_to_coverage: false,
        ..hints
    };
    assert_eq!(mode(blend), valid(json::material::AlphaMode::Blend));
    let covered_opaque = RenderHints {
        transparent: false,
        ..hints
    };
    assert_eq!(
        mode(covered_opaque),
        valid(json::material::AlphaMode::Opaque)
    );
}

#[test]
fn the_containers_hold_the_same_document_and_buffer() {
    let spec = TinyCharacter::new("Box")
        .chain(2)
        .weights(&[(0, 0, 1.0), (1, 1, 1.0), (2, 1, 1.0)])
        .spec();
    let build = || build_gltf(&spec, &GltfOptions::default()).unwrap();
    let mut built: BuiltGltf = build();
    let buffer = built.buffer.clone();
    let glb = glb_parts(&mut built, ContainerOptions::default())
        .unwrap()
        .to_vec();
    assert_eq!(&glb[..4], b"glTF");
    assert_eq!(u32::from_le_bytes(glb[4..8].try_into().unwrap()), 2);
    assert_eq!(
        u32::from_le_bytes(glb[8..12].try_into().unwrap()) as usize,
        glb.len()
    );
    let json_length = u32::from_le_bytes(glb[12..16].try_into().unwrap()) as usize;
    assert_eq!(json_length % 4, 0);
    let root = Root::from_slice(&glb[20..20 + json_length]).unwrap();
    assert_eq!(root.buffers[0].byte_length.0 as usize, buffer.len());
    assert!(root.buffers[0].uri.is_none());
    let bin = &glb[20 + json_length + 8..];
    assert_eq!(&bin[..buffer.len()], &buffer[..]);
    assert_eq!(bin.len() % 4, 0);
    let mut built = build();
    let text = gltf_text(
        &mut built,
        &BufferStorage::Embedded,
        ContainerOptions::default(),
    )
    .unwrap();
    let root = Root::from_slice(&text.json).unwrap();
    let uri = root.buffers[0].uri.clone().unwrap();
    use base64::Engine;
    let decoded = base64::engine::general_purpose::STANDARD
        .decode(
            uri.strip_prefix("data:application/octet-stream;base64,")
                .unwrap(),
        )
        .unwrap();
    assert_eq!(decoded, buffer);
    let mut built = build();
    let external = BufferStorage::External("box.bin".into());
    let text = gltf_text(&mut built, &external, ContainerOptions { pretty: true }).unwrap();
    assert_eq!(text.external, vec![("box.bin".to_owned(), buffer)]);
    assert!(
        String::from_utf8(text.json)
            .unwrap()
            .contains("\n  \"asset\"")
    );
    // A skeleton without meshes has no buffer: nothing is written beside it.
    let mut bones_only = TinyCharacter::new("Bones").chain(2).spec();
    bones_only.mesh = None;
    let mut built = build_gltf(&bones_only, &GltfOptions::default()).unwrap();
    let text = gltf_text(&mut built, &external, ContainerOptions::default()).unwrap();
    assert!(text.external.is_empty());
    assert!(Root::from_slice(&text.json).unwrap().buffers.is_empty());
}

#[test]
fn what_gltf_cannot_hold_is_refused_with_what_is_wrong() {
    let mut sheared = TinyCharacter::new("S").chain(2).spec();
    sheared.bones[1].basis = DMat3::from_cols(DVec3::X, DVec3::new(0.3, 1.0, 0.0), DVec3::Z);
    let error = build_gltf(&sheared, &GltfOptions::default()).unwrap_err();
    assert!(
        matches!(error, GltfError::BadBone { bone: 1, .. }),
        "{error}"
    );
    assert!(error.to_string().contains("not a rotation"));
    let mut many = TinyCharacter::new("M").spec();
    many.bones = (0..65_536)
        .map(|i| BoneSpec {
            name: format!("b{i}"),
            parent: None,
            head: DVec3::ZERO,
            basis: DMat3::IDENTITY,
            length: 0.1,
            extras: None,
        })
        .collect();
    let error = build_gltf(&many, &GltfOptions::default()).unwrap_err();
    assert!(error.to_string().contains("65,535 joints"), "{error}");
    let bad_bone = TinyCharacter::new("B")
        .chain(1)
        .weights(&[(0, 3, 1.0)])
        .spec();
    let error = build_gltf(&bad_bone, &GltfOptions::default())
        .unwrap_err()
        .to_string();
    assert!(
        error.contains("BBodyMesh: skin influence 0: bone 3 does not exist"),
        "{error}"
    );
    let beyond = TinyCharacter::new("F").faces(&[&[0, 1, 7]]).spec();
    let error = build_gltf(&beyond, &GltfOptions::default())
        .unwrap_err()
        .to_string();
    assert!(error.contains("vertex 7"), "{error}");
    let mut nan = TinyCharacter::new("N").spec();
    nan.mesh.as_mut().unwrap().positions[1].x = f64::NAN;
    assert!(matches!(
        build_gltf(&nan, &GltfOptions::default()),
        Err(GltfError::NonFinite { .. })
    ));
}
