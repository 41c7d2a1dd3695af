//! Reading G4MF files back into a character spec: what the writer writes reads back as the
//! spec it came from (and writes again as the same document), vertices split where corners
//! disagree on normals, transforms baked, and files a character cannot hold refused with one
//! located error each.

use g4mf_reader::{
    CharacterErrorKind, CharacterRead, NoteKind, ReadOptions, SpecOptions, character_spec,
    read_bytes, read_path,
};
use g4mf_writer::model::{Binding, Document, JointRef, Node, NodeIndex, Skeleton};
use g4mf_writer::{
    AttachmentSpec, BlendShapeSpec, BufferBuilder, CharacterSpec, ContainerOptions, FaceSpec,
    ImageSpec, IndexWidth, Influence, MaterialSpec, MeshSpec, SurfaceSpec, TextureSpec,
    build_character, sanitize, write_g4b,
};
use glam::{DMat3, DVec3};
use serde_json::json;
use std::collections::BTreeSet;
use std::sync::Arc;
use test_support::tiny::{TinyCharacter, g4b_bytes};

/// `spec` written as a `.g4b`, read back, read as a character.
fn round_trip(spec: &CharacterSpec) -> CharacterRead {
    let file = read_bytes(&g4b_bytes(spec), None, &ReadOptions::default()).unwrap();
    character_spec(&file, &SpecOptions::default()).unwrap()
}

/// `spec` built, its document and buffer changed by `edit`, encoded, read, read as a
/// character.
fn edited(
    spec: &CharacterSpec,
    edit: impl FnOnce(&mut Document, &mut BufferBuilder),
) -> Result<CharacterRead, g4mf_reader::CharacterError> {
    let built = build_character(spec).unwrap();
    let mut doc = built.document;
    let mut buffer = BufferBuilder::resume(built.buffer, IndexWidth::Smallest);
    edit(&mut doc, &mut buffer);
    let bytes = write_g4b(
        &mut doc,
        &[buffer.into_bytes()],
        ContainerOptions::default(),
    )
    .unwrap();
    let file = read_bytes(&bytes, None, &ReadOptions::default()).unwrap();
    character_spec(&file, &SpecOptions::default())
}

fn f32_rounded(v: DVec3) -> DVec3 {
    v.as_vec3().as_dvec3()
}

/// A rotation by `angle` about `axis`.
fn turn(axis: DVec3, angle: f64) -> DMat3 {
    DMat3::from_axis_angle(axis.normalize(), angle)
}

fn face(vertices: &[u32], texcoords: &[u32]) -> FaceSpec {
    FaceSpec {
        vertices: vertices.into(),
        texcoords: Some(texcoords.into()),
    }
}

/// A character using everything a spec holds: turned bones with extras, a skeleton lifted
/// off the ground, a body of two surfaces (a flat quad and triangles, texture coordinates
/// that are not the vertices' numbers, normals), two materials (textures embedded and by
/// URI, drawing hints), blend shapes with normal offsets, a skin, and a skinned attachment
/// with extras.
fn rich_spec() -> CharacterSpec {
    let mut spec = TinyCharacter::new("Rich")
        .chain(3)
        .generator("rich-test 1")
        .spec();
    spec.bones[0].basis = turn(DVec3::Z, 0.3);
    spec.bones[1].basis = turn(DVec3::new(1.0, 0.2, 0.0), -0.7);
    spec.bones[2].basis = turn(DVec3::new(0.3, 1.0, 0.5), 1.1);
    spec.bones[1].extras = Some(json!({"mpfb": {"name": "spine.01"}}).into());
    spec.skeleton_position = DVec3::new(0.0, 0.93, 0.0);
    spec.skeleton_extras = Some(json!({"note": "skeleton"}).into());
    let positions = vec![
        DVec3::new(0.0, 0.0, 0.0),
        DVec3::new(1.0, 0.0, 0.0),
        DVec3::new(1.0, 1.0, 0.0),
        DVec3::new(0.0, 1.0, 0.0),
        DVec3::new(2.0, 0.0, 0.1),
        DVec3::new(2.0, 1.3, 0.2),
    ];
    let normals = positions
        .iter()
        .map(|p| DVec3::new(p.x * 0.1, -0.05, 1.0).normalize())
        .collect();
    let texcoords: Vec<[f64; 2]> = (0..8)
        .map(|i| [i as f64 / 8.0, 1.0 - i as f64 / 9.0])
        .collect();
    let render = character_spec::RenderHints {
        draw_order: 5,
        transparent: true,
        alpha_to_coverage: true,
        backface_cull: false,
    };
    let skin_material = MaterialSpec {
        name: "SkinMat".into(),
        base_color: Some([0.8, 0.6, 0.5, 1.0]),
        render: Some(render),
        extras: Some(json!({"render": {"drawOrder": 5, "transparent": true,
            "alphaToCoverage": true, "backfaceCull": false}})),
        base_color_texture: Some(0),
        normal_texture: Some(1),
        orm_texture: None,
    };
    let cloth_material = MaterialSpec {
        name: "ClothMat".into(),
        base_color: Some([0.1, 0.2, 0.3, 0.5]),
        orm_texture: Some(0),
        ..MaterialSpec::default()
    };
    spec.mesh = Some(MeshSpec {
        positions,
        texcoords: Arc::new(texcoords),
        surfaces: vec![
            SurfaceSpec {
                name: Some("Skin".into()),
                material: Some("SkinMat".into()),
                faces: vec![
                    face(&[0, 1, 2, 3], &[7, 1, 2, 3]),
                    face(&[1, 4, 2], &[1, 4, 2]),
                ],
            },
            SurfaceSpec {
                name: Some("Cloth".into()),
                material: Some("ClothMat".into()),
                faces: vec![face(&[4, 5, 2], &[4, 5, 6])],
            },
        ]
        .into(),
        normals: Some(normals),
        materials: vec![skin_material, cloth_material],
        blend_shapes: vec![
            BlendShapeSpec {
                name: "Smile".into(),
                amount: 0.25,
                offsets: vec![
                    (0, DVec3::new(0.0, 0.0, 0.1)),
                    (3, DVec3::new(0.1, 0.0, 0.0)),
                ]
                .into(),
                normal_offsets: vec![
                    (0, DVec3::new(0.01, 0.0, 0.0)),
                    (3, DVec3::new(0.0, 0.02, 0.0)),
                ],
            },
            BlendShapeSpec {
                name: "Frown".into(),
                amount: 0.0,
                offsets: vec![(2, DVec3::new(0.0, -0.3, 0.0))].into(),
                normal_offsets: Vec::new(),
            },
        ],
    });
    spec.influences = Some(
        [
            (0, 0, 1.0),
            (1, 0, 0.5),
            (1, 1, 0.5),
            (2, 1, 0.7),
            (2, 2, 0.3),
            (3, 2, 1.0),
        ]
        .into_iter()
        .chain([(4, 1, 1.0), (5, 2, 0.25), (5, 0, 0.75)])
        .map(|(vertex, bone, weight)| Influence {
            vertex,
            bone,
            weight,
        })
        .collect(),
    );
    spec.textures = vec![
        TextureSpec {
            name: "skin".into(),
            image: Some(ImageSpec::Embedded {
                bytes: Arc::new(vec![137, 80, 78, 71, 13, 10, 26, 10, 1, 2, 3]),
                mime: "image/png".into(),
            }),
            size: [4, 4],
            placeholder: vec![0.5, 0.4, 0.3],
        },
        TextureSpec {
            name: "normal".into(),
            image: Some(ImageSpec::Uri {
                uri: "textures/normal%20map.png".into(),
                mime: "image/png".into(),
            }),
            size: [2, 2],
            placeholder: vec![0.5, 0.5, 1.0],
        },
    ];
    spec.attachments = vec![AttachmentSpec {
        name: "Hat".into(),
        mesh: MeshSpec {
            positions: vec![
                DVec3::new(0.0, 2.0, 0.0),
                DVec3::new(1.0, 2.0, 0.0),
                DVec3::Y * 3.0,
            ],
            surfaces: vec![SurfaceSpec {
                name: None,
                material: Some("HatMat".into()),
                faces: vec![FaceSpec {
                    vertices: [0, 1, 2].as_slice().into(),
                    texcoords: None,
                }],
            }]
            .into(),
            materials: vec![MaterialSpec {
                name: "HatMat".into(),
                base_color: Some([0.0, 0.0, 1.0, 1.0]),
                ..MaterialSpec::default()
            }],
            blend_shapes: vec![BlendShapeSpec {
                name: "Tilt".into(),
                amount: 1.0,
                offsets: vec![(2, DVec3::X * 0.2)].into(),
                normal_offsets: Vec::new(),
            }],
            ..MeshSpec::default()
        },
        influences: Some(
            [(0, 2, 1.0), (1, 2, 1.0), (2, 2, 0.5), (2, 1, 0.5)]
                .into_iter()
                .map(|(vertex, bone, weight)| Influence {
                    vertex,
                    bone,
                    weight,
                })
                .collect(),
        ),
        node_extras: Some(json!({"asset": "hat"}).into()),
        mesh_extras: Some(json!({"mesh": "hat"})),
    }];
    spec
}

/// `(vertex, bone name, float32 weight)` of a skin, repeats added.
fn skin_set(
    spec: &CharacterSpec,
    influences: &g4mf_writer::Influences,
) -> BTreeSet<(u32, String, u32)> {
    let mut sums = std::collections::BTreeMap::new();
    for i in influences.list() {
        *sums
            .entry((i.vertex, sanitize(&spec.bones[i.bone as usize].name)))
            .or_insert(0.0) += i.weight;
    }
    sums.into_iter()
        .map(|((v, b), w)| (v, b, (w as f32).to_bits()))
        .collect()
}

/// `mesh` as written (float32 positions, normals, offsets) for comparison with a read one.
fn as_written(mesh: &MeshSpec) -> MeshSpec {
    let round = |pairs: &[(u32, DVec3)]| -> Vec<(u32, DVec3)> {
        pairs.iter().map(|&(v, d)| (v, f32_rounded(d))).collect()
    };
    MeshSpec {
        positions: mesh.positions.iter().copied().map(f32_rounded).collect(),
        texcoords: Arc::new(
            mesh.texcoords
                .iter()
                .map(|t| t.map(|c| f64::from(c as f32)))
                .collect(),
        ),
        surfaces: mesh.surfaces.clone(),
        normals: mesh
            .normals
            .as_ref()
            .map(|n| n.iter().copied().map(f32_rounded).collect()),
        materials: mesh.materials.clone(),
        blend_shapes: mesh
            .blend_shapes
            .iter()
            .map(|b| BlendShapeSpec {
                name: b.name.clone(),
                amount: b.amount,
                offsets: round(&b.offsets).into(),
                normal_offsets: round(&b.normal_offsets),
            })
            .collect(),
    }
}

fn assert_close(a: DMat3, b: DMat3, tolerance: f64, what: &str) {
    let worst = (a - b)
        .abs()
        .to_cols_array()
        .into_iter()
        .fold(0.0, f64::max);
    assert!(worst <= tolerance, "{what}: {a} vs {b} ({worst})");
}

#[test]
fn a_written_spec_reads_back_as_itself() {
    let spec = rich_spec();
    let read = round_trip(&spec);
    assert!(read.notes.is_empty(), "{:?}", read.notes);
    let back = &read.spec;
    assert_eq!(back.name, spec.name);
    assert_eq!(back.generator, spec.generator);
    assert_eq!(back.skeleton_position, spec.skeleton_position);
    assert_eq!(back.skeleton_extras, spec.skeleton_extras);
    assert_eq!(back.bones.len(), spec.bones.len());
    for (b, (read, wrote)) in back.bones.iter().zip(&spec.bones).enumerate() {
        // Names as written: made valid G4MF names.
        assert_eq!(read.name, sanitize(&wrote.name), "bone {b}");
        assert_eq!(read.parent, wrote.parent, "bone {b}");
        assert!(read.head.abs_diff_eq(wrote.head, 1e-12), "bone {b} head");
        assert_close(read.basis, wrote.basis, 1e-12, &format!("bone {b} basis"));
        assert_eq!(read.length, wrote.length, "bone {b} length");
        assert_eq!(read.extras, wrote.extras, "bone {b} extras");
    }
    let (mesh, wrote) = (back.mesh.as_ref().unwrap(), spec.mesh.as_ref().unwrap());
    assert_eq!(*mesh, as_written(wrote));
    assert_eq!(
        skin_set(back, back.influences.as_ref().unwrap()),
        skin_set(&spec, spec.influences.as_ref().unwrap())
    );
    assert_eq!(back.textures, spec.textures);
    assert_eq!(back.attachments.len(), 1);
    let (hat, wrote) = (&back.attachments[0], &spec.attachments[0]);
    assert_eq!(
        (&hat.name, &hat.node_extras),
        (&wrote.name, &wrote.node_extras)
    );
    assert_eq!(hat.mesh_extras, wrote.mesh_extras);
    assert_eq!(hat.mesh, as_written(&wrote.mesh));
    assert_eq!(
        skin_set(back, hat.influences.as_ref().unwrap()),
        skin_set(&spec, wrote.influences.as_ref().unwrap())
    );
}

/// Bone transforms as numbers (position then basis) of every bone node.
fn bone_transforms(doc: &Document) -> Vec<Vec<f64>> {
    doc.nodes
        .iter()
        .filter(|n| n.bone.is_some())
        .map(|n| {
            let mut numbers = n.position.clone().unwrap_or_default();
            numbers.extend(n.basis.clone().unwrap_or_default());
            numbers
        })
        .collect()
}

#[test]
fn a_read_spec_writes_the_same_document_again() {
    let spec = rich_spec();
    let original = build_character(&spec).unwrap();
    let read = round_trip(&spec);
    let again = build_character(&read.spec).unwrap();
    // The buffer holds every vertex, normal, texture coordinate, simplex, skin entry, blend
    // offset and image: byte for byte the same.
    assert_eq!(again.buffer, original.buffer);
    // Bones are written relative to their parents from skeleton-space transforms that were
    // composed from those relative ones: the same numbers within float64 rounding.
    let (wrote, rewrote) = (
        bone_transforms(&original.document),
        bone_transforms(&again.document),
    );
    for (a, b) in wrote.iter().zip(&rewrote) {
        for (x, y) in a.iter().zip(b) {
            assert!((x - y).abs() <= 1e-12, "{a:?} vs {b:?}");
        }
    }
    // Everything else in the document is the same.
    let strip = |mut doc: Document| {
        for node in doc.nodes.iter_mut().filter(|n| n.bone.is_some()) {
            node.position = None;
            node.basis = None;
        }
        doc
    };
    assert_eq!(strip(again.document), strip(original.document));
}

#[test]
fn surfaces_that_are_not_flat_read_as_their_triangles() {
    // A bent quad: G4MF may not call its two triangles one polytope, so they come back as
    // triangles, and a rewrite starts the second on another corner (the writer keeps
    // consecutive faces from sharing a first vertex) and marks each as its own polytope.
    let tiny = TinyCharacter::new("Bent")
        .positions(vec![
            DVec3::ZERO,
            DVec3::X,
            DVec3::new(1.0, 1.0, 0.4),
            DVec3::Y,
        ])
        .faces(&[&[0, 1, 2, 3]]);
    let original = tiny.build();
    assert!(!original.document.meshes[0].surfaces[0].polytope_simplexes);
    let read = round_trip(&tiny.spec());
    let faces = &read.spec.mesh.as_ref().unwrap().surfaces.specs()[0].faces;
    let vertices: Vec<Vec<u32>> = faces.iter().map(|f| f.vertices.to_vec()).collect();
    assert_eq!(vertices, [vec![0, 1, 2], vec![0, 2, 3]]);
    let again = build_character(&read.spec).unwrap();
    let surface = &again.document.meshes[0].surfaces[0];
    assert!(surface.polytope_simplexes);
    let triangles = |built: &g4mf_writer::BuiltCharacter| -> BTreeSet<Vec<u64>> {
        let doc = &built.document;
        let accessor = doc.meshes[0].surfaces[0].simplexes.unwrap();
        let view = &doc.buffer_views[doc.accessors[accessor.get()].buffer_view.get()];
        let start = view.byte_offset.unwrap_or(0) as usize;
        let bytes = &built.buffer[start..start + view.byte_length as usize];
        bytes
            .chunks(3)
            .map(|t| {
                let mut t: Vec<u64> = t.iter().map(|&v| u64::from(v)).collect();
                let first = t.iter().enumerate().min_by_key(|p| p.1).unwrap().0;
                t.rotate_left(first);
                t
            })
            .collect()
    };
    assert_eq!(triangles(&again), triangles(&original));
}

/// A quad as two triangles, skinned and shaped, whose normals are bound per simplex: the two
/// triangles' normals differ, so the two vertices they share split.
#[test]
fn vertices_whose_corners_disagree_on_normals_split() {
    let tiny = TinyCharacter::new("Crease")
        .bone("root", DVec3::ZERO, 1.0)
        .bone("tip", DVec3::Y, 1.0)
        .positions(vec![
            DVec3::ZERO,
            DVec3::X,
            DVec3::new(1.0, 1.0, 0.0),
            DVec3::Y,
        ])
        .faces(&[&[0, 1, 2], &[2, 3, 0]])
        .weights(&[(0, 0, 1.0), (2, 0, 0.25), (2, 1, 0.75), (3, 1, 1.0)])
        .blend_shape("Lift", 0.5, &[(0, DVec3::Z), (2, DVec3::Z * 2.0)]);
    let (up, tilted) = (DVec3::Z, DVec3::new(0.0, 0.6, 0.8));
    let read = edited(&tiny.spec(), |doc, buffer| {
        let values = [up, tilted]
            .iter()
            .flat_map(|n| n.as_vec3().to_array())
            .collect::<Vec<f32>>();
        let values = buffer.add_f32(doc, &values, 3).unwrap();
        let per_simplex = buffer.add_uint(doc, &[0, 1], 1).unwrap();
        // A normal offset on the tilted triangle's normal value.
        let indices = buffer.add_uint(doc, &[1], 1).unwrap();
        let offsets = buffer.add_f32(doc, &[0.0, 0.1, 0.0], 3).unwrap();
        let mesh = &mut doc.meshes[0];
        mesh.surfaces[0].normals = Some(Binding {
            values,
            simplexes: None,
            per_simplex: Some(per_simplex),
            other: Default::default(),
        });
        mesh.blend.as_mut().unwrap().shapes[0].surfaces =
            Some(vec![g4mf_writer::model::BlendSurface {
                surface: 0,
                normal: Some(g4mf_writer::model::BlendTarget {
                    indices,
                    offsets,
                    other: Default::default(),
                }),
                texture_map: None,
                other: Default::default(),
            }]);
    })
    .unwrap();
    assert_eq!(
        read.notes
            .iter()
            .map(|n| n.kind.clone())
            .collect::<Vec<_>>(),
        [NoteKind::VerticesSplit(2)]
    );
    let mesh = read.spec.mesh.as_ref().unwrap();
    // Vertices 0 and 2 keep their numbers for the first triangle; the second triangle's
    // corners on them are new vertices 4 and 5, in the order it meets them (2 then 0).
    let faces: Vec<Vec<u32>> = mesh.surfaces.specs()[0]
        .faces
        .iter()
        .map(|f| f.vertices.to_vec())
        .collect();
    assert_eq!(faces, [vec![0, 1, 2], vec![4, 3, 5]]);
    assert_eq!(mesh.positions[4], mesh.positions[2]);
    assert_eq!(mesh.positions[5], mesh.positions[0]);
    let normals = mesh.normals.as_ref().unwrap();
    let tilted = f32_rounded(tilted);
    assert_eq!(normals, &[up, up, up, tilted, tilted, tilted]);
    let skin = skin_set(&read.spec, read.spec.influences.as_ref().unwrap());
    let expected: BTreeSet<(u32, String, u32)> = [
        (0, "root", 1.0),
        (2, "root", 0.25),
        (2, "tip", 0.75),
        (3, "tip", 1.0),
        (4, "root", 0.25),
        (4, "tip", 0.75),
        (5, "root", 1.0),
    ]
    .into_iter()
    .map(|(v, b, w): (u32, &str, f32)| (v, b.to_owned(), w.to_bits()))
    .collect();
    assert_eq!(skin, expected);
    let shape = &mesh.blend_shapes[0];
    assert_eq!(
        shape.offsets.to_vec(),
        [
            (0, DVec3::Z),
            (2, DVec3::Z * 2.0),
            (4, DVec3::Z * 2.0),
            (5, DVec3::Z)
        ]
    );
    let lift = f32_rounded(DVec3::new(0.0, 0.1, 0.0));
    assert_eq!(shape.normal_offsets, [(3, lift), (4, lift), (5, lift)]);
}

/// A tree a writer of ours would never make: a turned skeleton under an offset node, a bone
/// given by rotor and scale, a bone without length, a mesh under a bone, a mirrored static
/// mesh beside the skeleton and a hidden one.
#[test]
fn transforms_are_baked_into_skeleton_space() {
    let tiny = TinyCharacter::new("Baked")
        .bone("root", DVec3::ZERO, 1.0)
        .bone("tip", DVec3::Y, 1.0);
    let read = edited(&tiny.spec(), |doc, _| {
        // Root 0, skeleton 1, bones 2 and 3, body 4. Put an offset node 5 between root and
        // skeleton, turn the skeleton a quarter about Y, and scale bone 3 by 2 along a rotor.
        doc.nodes[0].children = vec![NodeIndex::new(5)];
        let turn_y = [0.0, 0.0, -1.0, 0.0, 1.0, 0.0, 1.0, 0.0, 0.0];
        doc.nodes[1].basis = Some(turn_y.to_vec());
        doc.nodes[3].basis = None;
        let h = std::f64::consts::FRAC_1_SQRT_2;
        doc.nodes[3].rotor = Some(vec![h, -h, 0.0, 0.0]); // X toward Y by 90 degrees
        doc.nodes[3].scale = Some(vec![2.0]);
        doc.nodes[3].bone.as_mut().unwrap().length = None;
        let body = doc.nodes[4].mesh_instance.clone();
        // Node 5: the offset; node 6: the body again, under bone 3; node 7: mirrored beside
        // the skeleton; node 8: hidden.
        doc.nodes.push(Node {
            name: Some("Offset".into()),
            position: Some(vec![0.0, 0.0, 5.0]),
            children: vec![NodeIndex::new(1), NodeIndex::new(7), NodeIndex::new(8)],
            ..Node::default()
        });
        doc.nodes.push(Node {
            name: Some("OnTip".into()),
            mesh_instance: body.clone(),
            ..Node::default()
        });
        doc.nodes[3].children.push(NodeIndex::new(6));
        doc.nodes.push(Node {
            name: Some("Mirrored".into()),
            basis: Some(vec![-1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0]),
            position: Some(vec![3.0, 0.0, 0.0]),
            mesh_instance: body.clone(),
            ..Node::default()
        });
        doc.nodes.push(Node {
            name: Some("Hidden".into()),
            visible: Some(false),
            mesh_instance: body,
            ..Node::default()
        });
    })
    .unwrap();
    let spec = &read.spec;
    let kinds: Vec<NoteKind> = read.notes.iter().map(|n| n.kind.clone()).collect();
    for kind in [
        NoteKind::SkeletonTransformBaked,
        NoteKind::BoneNormalised,
        NoteKind::BoneWithoutLength,
        NoteKind::BoundToBone,
        NoteKind::HiddenMeshLeftOut,
    ] {
        assert!(kinds.contains(&kind), "{kind:?} not in {kinds:?}");
    }
    assert_eq!(spec.skeleton_position, DVec3::new(0.0, 0.0, 5.0));
    // The skeleton turns X to -Z: the root bone's basis is that turn; the tip bone adds its
    // own quarter turn (X toward Y) and loses its scale, its length 0 (none given).
    let skeleton_turn = DMat3::from_cols(-DVec3::Z, DVec3::Y, DVec3::X);
    assert_close(spec.bones[0].basis, skeleton_turn, 1e-12, "root");
    assert_close(
        spec.bones[1].basis,
        skeleton_turn * turn(DVec3::Z, std::f64::consts::FRAC_PI_2),
        1e-12,
        "tip",
    );
    assert_eq!(spec.bones[1].length, 0.0);
    assert!(spec.bones[1].head.abs_diff_eq(DVec3::Y, 1e-12));
    // The body is node 4's; then the mesh on the tip bone (turned and doubled), then the
    // mirrored one (its winding reversed); the hidden one is left out.
    assert_eq!(spec.attachments.len(), 2);
    let on_tip = &spec.attachments[0];
    assert_eq!(on_tip.name, "OnTip");
    let tip = DMat3::from_cols(DVec3::Y, -DVec3::X, DVec3::Z) * 2.0;
    let expected = [DVec3::ZERO, DVec3::X, DVec3::Y].map(|p| skeleton_turn * (tip * p + DVec3::Y));
    for (got, want) in on_tip.mesh.positions.iter().zip(expected) {
        assert!(got.abs_diff_eq(want, 1e-12), "{got} vs {want}");
    }
    let weights: Vec<(u32, u32, f64)> = on_tip
        .influences
        .as_ref()
        .unwrap()
        .list()
        .iter()
        .map(|i| (i.vertex, i.bone, i.weight))
        .collect();
    assert_eq!(weights, [(0, 1, 1.0), (1, 1, 1.0), (2, 1, 1.0)]);
    let mirrored = &spec.attachments[1];
    assert!(mirrored.influences.is_none());
    assert_eq!(mirrored.mesh.positions[1], DVec3::new(2.0, 0.0, 0.0));
    let face = &mirrored.mesh.surfaces.specs()[0].faces[0];
    assert_eq!(face.vertices.as_slice(), [0, 2, 1]);
}

#[test]
fn a_file_without_a_skeleton_is_a_static_mesh() {
    let tiny = TinyCharacter::new("Static");
    let read = round_trip(&tiny.spec());
    assert!(read.spec.bones.is_empty());
    assert!(read.spec.influences.is_none());
    assert_eq!(
        read.spec.mesh.unwrap().positions,
        tiny.spec().mesh.unwrap().positions
    );
}

/// A change to a built document and its buffer.
type Edit = dyn Fn(&mut Document, &mut BufferBuilder);

/// What a character cannot hold: one located error each.
#[test]
fn what_a_character_cannot_hold_is_refused_where_it_is() {
    let tiny = TinyCharacter::new("T")
        .bone("root", DVec3::ZERO, 1.0)
        .weights(&[(0, 0, 1.0)]);
    let spec = tiny.spec();
    let refused = |edit: &Edit| edited(&spec, edit).expect_err("refused");
    let cases: Vec<(&str, Box<Edit>, &str)> = vec![
        (
            "4D",
            Box::new(|doc, _| doc.asset.dimension = 4),
            "/asset/dimension",
        ),
        (
            "two skeletons",
            Box::new(|doc, _| {
                doc.nodes.push(Node {
                    skeleton: Some(Skeleton::default()),
                    ..Node::default()
                });
                let last = NodeIndex::new(doc.nodes.len() as u32 - 1);
                doc.nodes[0].children.push(last);
            }),
            "/nodes/4/skeleton",
        ),
        (
            "edges",
            Box::new(|doc, buffer| {
                let edges = buffer.add_uint(doc, &[0, 1, 1, 2], 2).unwrap();
                let surface = &mut doc.meshes[0].surfaces[0];
                surface.simplexes = None;
                surface.normals = None;
                surface.edges = Some(edges);
            }),
            "/meshes/0/surfaces/0",
        ),
        (
            "cells",
            Box::new(|doc, buffer| {
                let cells = buffer.add_uint(doc, &[0, 1, 2, 0], 4).unwrap();
                doc.meshes[0].surfaces[0].simplexes = Some(cells);
            }),
            "/meshes/0/surfaces/0/simplexes",
        ),
        (
            "a cycle",
            Box::new(|doc, _| doc.nodes[2].children.push(NodeIndex::new(1))),
            "/nodes/2/children/0",
        ),
        (
            "an uncontrolled joint",
            Box::new(|doc, _| {
                doc.nodes[1].skeleton.as_mut().unwrap().joints = vec![JointRef::Uncontrolled];
            }),
            "/nodes/1/skeleton/joints/0",
        ),
        (
            "a model instance",
            Box::new(|doc, _| {
                doc.nodes[3]
                    .other
                    .insert("modelInstance".into(), json!({"model": 0}));
            }),
            "/nodes/3/modelInstance",
        ),
        (
            "a flattening mesh node",
            Box::new(|doc, _| doc.nodes[3].basis = Some(vec![0.0; 9])),
            "/nodes/3",
        ),
        (
            "a 3D texture",
            Box::new(|doc, _| {
                doc.other.insert(
                    "textures".into(),
                    json!([{"size": [2, 2, 2], "placeholder": [1.0, 1.0, 1.0]}]),
                );
                doc.materials.push(g4mf_writer::model::Material {
                    name: Some("M".into()),
                    other: json!({"baseColor": {"texture": 0}})
                        .as_object()
                        .unwrap()
                        .clone(),
                });
                doc.meshes[0].surfaces[0].material =
                    Some(g4mf_writer::model::MaterialIndex::new(0));
            }),
            "/textures/0/size",
        ),
        (
            "a bone outside the skeleton",
            Box::new(|doc, _| {
                let bone = doc.nodes[2].clone();
                doc.nodes.push(Node {
                    children: vec![],
                    ..bone
                });
                let last = NodeIndex::new(doc.nodes.len() as u32 - 1);
                doc.nodes[3].children.push(last);
            }),
            "/nodes/4/bone",
        ),
    ];
    for (what, edit, pointer) in cases {
        let error = refused(&*edit);
        assert_eq!(
            error.location.pointer.as_deref(),
            Some(pointer),
            "{what}: {error}"
        );
        // One line, saying where and what.
        assert!(!error.to_string().contains('\n'), "{what}: {error}");
    }
    let error = refused(&|doc, _| doc.asset.dimension = 4);
    assert_eq!(error.kind, CharacterErrorKind::Dimension(4));
}

#[test]
fn hostile_and_invalid_files_never_panic() {
    let root = test_support::workspace_root();
    let mut read = 0;
    for folder in [
        "fixtures/bad",
        "fixtures/validator",
        "fixtures/fuzz-regressions",
    ] {
        let Ok(entries) = std::fs::read_dir(root.join(folder)) else {
            continue;
        };
        for entry in entries {
            let path = entry.unwrap().path();
            let is_g4mf = path.extension().is_some_and(|e| e == "g4b" || e == "g4tf");
            if !is_g4mf {
                continue;
            }
            if let Ok(file) = read_path(&path, &ReadOptions::default()) {
                read += 1;
                // Either a spec or one located error; never a panic.
                if let Err(error) = character_spec(&file, &SpecOptions::default()) {
                    assert!(
                        error.location.pointer.is_some(),
                        "{}: {error}",
                        path.display()
                    );
                }
            }
        }
    }
    assert!(read > 50, "only {read} fixtures read");
}

#[test]
fn instancing_cannot_ask_for_unbounded_memory() {
    // Forty-one instances of one triangle, each 3 vertices and 3 corners counted twice: the
    // twelfth (node 13) passes 100.
    let built = build_character(&TinyCharacter::new("Many").spec()).unwrap();
    let mut doc = built.document;
    let body = doc.nodes[2].clone();
    for _ in 0..40 {
        doc.nodes.push(body.clone());
        let last = NodeIndex::new(doc.nodes.len() as u32 - 1);
        doc.nodes[1].children.push(last);
    }
    let bytes = write_g4b(&mut doc, &[built.buffer], ContainerOptions::default()).unwrap();
    let file = read_bytes(&bytes, None, &ReadOptions::default()).unwrap();
    let many = character_spec(&file, &SpecOptions::default()).unwrap();
    assert_eq!(many.spec.attachments.len(), 40);
    let options = SpecOptions {
        max_elements: 100,
        ..SpecOptions::default()
    };
    let error = character_spec(&file, &options).unwrap_err();
    assert!(
        matches!(error.kind, CharacterErrorKind::Limit { limit: 100, .. }),
        "{error}"
    );
    assert_eq!(
        error.location.pointer.as_deref(),
        Some("/nodes/13/meshInstance")
    );
}

/// A mesh instance's material and blend-amount overrides apply; unnamed bones, meshes and
/// shapes get stable names; skin entries past the joints are left out (noted); group names
/// that disagree between two skins of the skeleton are refused.
#[test]
fn instances_override_and_skins_agree_on_group_names() {
    let tiny = TinyCharacter::new("Overrides")
        .bone("root", DVec3::ZERO, 1.0)
        .material("Red", Some([1.0, 0.0, 0.0, 1.0]))
        .weights(&[(0, 0, 1.0), (1, 0, 1.0)])
        .blend_shape("Up", 0.0, &[(2, DVec3::Y)]);
    let overridden = |doc: &mut Document| {
        // Root 0, skeleton 1, bone 2, body 3: a second instance of the body (node 4) drawn in
        // Blue, its shape at 0.75, and no names on the bone, the new node or the shape.
        doc.materials.push(g4mf_writer::model::Material {
            name: Some("Blue".into()),
            other: json!({"baseColor": {"factor": [0.0, 0.0, 1.0]}})
                .as_object()
                .unwrap()
                .clone(),
        });
        let mut second = doc.nodes[3].clone();
        second.name = None;
        let instance = second.mesh_instance.as_mut().unwrap();
        instance.other.insert("materials".into(), json!([1]));
        instance.other.insert("blendAmounts".into(), json!([0.75]));
        doc.nodes.push(second);
        doc.nodes[1].children.push(NodeIndex::new(4));
        doc.nodes[2].name = None;
        doc.meshes[0].blend.as_mut().unwrap().shapes[0].name = None;
    };
    let read = edited(&tiny.spec(), |doc, _| overridden(doc)).unwrap();
    let spec = &read.spec;
    assert_eq!(spec.bones[0].name, "Bone2");
    let body = spec.mesh.as_ref().unwrap();
    assert_eq!(body.materials[0].name, "Red");
    assert_eq!(body.blend_shapes[0].name, "Shape0");
    assert_eq!(body.blend_shapes[0].amount, 0.0);
    let second = &spec.attachments[0];
    assert_eq!(second.name, "Mesh4");
    assert_eq!(
        second.mesh.surfaces.specs()[0].material.as_deref(),
        Some("Blue")
    );
    assert_eq!(
        second.mesh.materials[0].base_color,
        Some([0.0, 0.0, 1.0, 1.0])
    );
    assert_eq!(second.mesh.blend_shapes[0].amount, 0.75);
    // Both instances share the mesh's skin on the (renamed) bone; the group name stays the
    // bone's first name, which a note reports.
    assert_eq!(second.influences, spec.influences);
    assert!(
        read.notes
            .iter()
            .any(|n| n.kind == NoteKind::GroupNamesDiffer)
    );

    // A skin entry on a group past the joints does nothing: left out, noted.
    let read = edited(&tiny.spec(), |doc, buffer| {
        let groups = buffer.add_uint(doc, &[0, 5], 1).unwrap();
        doc.meshes[0].skin.as_mut().unwrap().groups = groups;
    })
    .unwrap();
    assert_eq!(read.spec.influences.as_ref().unwrap().list().len(), 1);
    assert!(
        read.notes
            .iter()
            .any(|n| n.kind == NoteKind::GroupsBeyondJoints)
    );

    // A second skinned mesh naming group 0 otherwise: refused where it says so.
    let error = edited(&tiny.spec(), |doc, _| {
        let mut mesh = doc.meshes[0].clone();
        mesh.skin.as_mut().unwrap().group_names = Some(vec!["Other".into()]);
        doc.meshes.push(mesh);
        let mut node = doc.nodes[3].clone();
        node.name = Some("Twin".into());
        node.mesh_instance.as_mut().unwrap().mesh = g4mf_writer::model::MeshIndex::new(1);
        doc.nodes.push(node);
        doc.nodes[1].children.push(NodeIndex::new(4));
    })
    .unwrap_err();
    assert_eq!(
        error.location.pointer.as_deref(),
        Some("/meshes/1/skin/groupNames/0"),
        "{error}"
    );
}
