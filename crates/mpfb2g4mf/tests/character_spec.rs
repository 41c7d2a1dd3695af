//! Our own files read back as character specs (`g4mf_reader::character_spec`, the reading
//! half of `to-gltf`): converted through the real CLI (the default character, a dressed one
//! with textures, one with face units and visemes), read, and checked against the file value
//! by value (every bone, vertex, normal, texture coordinate, triangle corner, skin entry,
//! blend-shape offset, material and texture); then written again with `g4mf-writer` and
//! compared with the file mesh by mesh.

#![allow(clippy::unwrap_used)] // Tests fail loudly by design.

use crate::common::shared as common;

use common::{bin, convert_with_assets, data_and_assets, succeed, world_transforms};
use g4mf_model::{Document, JointRef};
use g4mf_reader::{
    CharacterRead, G4mfFile, NoteKind, ReadOptions, SpecOptions, character_spec, read_bytes,
    read_path,
};
use g4mf_writer::{
    CharacterSpec, ContainerOptions, ImageSpec, MeshSpec, build_character, write_g4b,
};
use glam::{DMat3, DVec3};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::Path;

type Bits3 = [u32; 3];

fn bits3(v: DVec3) -> Bits3 {
    // Our files store float32: the spec's f64 holds each value exactly.
    v.as_vec3().to_array().map(f32::to_bits)
}

/// A bone as compared: name, parent's name, length, and its place in skeleton space.
#[derive(Debug, Clone, PartialEq)]
struct BoneContent {
    name: String,
    parent: Option<String>,
    length: f64,
    head: DVec3,
    basis: DMat3,
}

/// A triangle's corners (vertex, texture coordinate), rotated to start at its smallest.
type Triangle = Vec<(u32, Option<u32>)>;

fn canonical(mut corners: Triangle) -> Triangle {
    let start = (0..corners.len())
        .min_by_key(|&r| {
            let mut rotated = corners.clone();
            rotated.rotate_left(r);
            rotated
        })
        .unwrap_or(0);
    corners.rotate_left(start);
    corners
}

/// A texture as compared: name, size, placeholder, and its image's bytes or URI, if any.
type TextureContent = (String, [u64; 2], Vec<f64>, Option<Result<Vec<u8>, String>>);

/// A material as compared: name, base colour factor as written (RGB, or RGBA when alpha is
/// not 1), the base-colour, normal and ORM textures, extras.
type MaterialContent = (
    String,
    Option<Vec<f64>>,
    [Option<TextureContent>; 3],
    Option<Value>,
);

/// A surface as compared: name, material, triangles in order.
type SurfaceContent = (Option<String>, Option<MaterialContent>, Vec<Triangle>);

/// A blend shape as compared: name, amount, position offsets, normal offsets by vertex.
type ShapeContent = (String, f64, Vec<(u32, Bits3)>, BTreeMap<u32, Bits3>);

/// A mesh as compared: node name, every array as float32 bits, skin entries as (vertex, bone
/// name, weight), sorted.
#[derive(Debug, Clone, PartialEq)]
struct MeshContent {
    node: String,
    positions: Vec<Bits3>,
    normals: Option<Vec<Bits3>>,
    texcoords: Vec<[u32; 2]>,
    surfaces: Vec<SurfaceContent>,
    skin: Vec<(u32, String, u32)>,
    shapes: Vec<ShapeContent>,
}

/// A character as compared.
#[derive(Debug, Clone, PartialEq)]
struct Content {
    name: String,
    skeleton_position: DVec3,
    bones: Vec<BoneContent>,
    meshes: Vec<MeshContent>,
}

fn vec3s(file: &G4mfFile, accessor: g4mf_model::AccessorIndex) -> Vec<DVec3> {
    let values = file.read_f64(accessor).unwrap();
    values.chunks(3).map(DVec3::from_slice).collect()
}

fn texture_content(file: &G4mfFile, t: usize) -> TextureContent {
    let doc = &file.document;
    let texture = &doc.other["textures"][t];
    // Our textures have one file, or none when the image was missing.
    let image = texture.get("files").map(|files| {
        let entry = &doc.other["files"][files[0].as_u64().unwrap() as usize];
        match entry.get("bufferView").and_then(Value::as_u64) {
            Some(v) => {
                let view = &doc.buffer_views[v as usize];
                let start = view.byte_offset() as usize;
                let end = start + view.byte_length as usize;
                Ok(file.buffers[view.buffer().get()][start..end].to_vec())
            }
            None => Err(entry["uri"].as_str().unwrap().to_owned()),
        }
    });
    let size = texture["size"].as_array().unwrap();
    (
        texture["name"].as_str().unwrap().to_owned(),
        [size[0].as_u64().unwrap(), size[1].as_u64().unwrap()],
        texture["placeholder"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p.as_f64().unwrap())
            .collect(),
        image,
    )
}

fn material_content(file: &G4mfFile, m: usize) -> MaterialContent {
    let material = &file.document.materials[m];
    let texture = |channel: &str| {
        material
            .other
            .get(channel)
            .and_then(|c| c.get("texture"))
            .map(|t| texture_content(file, t.as_u64().unwrap() as usize))
    };
    (
        material.name.clone().unwrap(),
        material
            .other
            .get("baseColor")
            .and_then(|c| c.get("factor"))
            .map(|f| {
                f.as_array()
                    .unwrap()
                    .iter()
                    .map(|x| x.as_f64().unwrap())
                    .collect()
            }),
        [texture("baseColor"), texture("normal"), texture("orm")],
        material.other.get("extras").cloned(),
    )
}

/// The bones of our layout: every bone node in node order (depth-first, parents first).
fn file_bones(doc: &Document) -> (DVec3, Vec<BoneContent>) {
    let world = world_transforms(doc);
    let skeleton = doc.nodes.iter().position(|n| n.skeleton.is_some()).unwrap();
    let origin = world[skeleton].0;
    let mut parent = vec![None; doc.nodes.len()];
    for (i, node) in doc.nodes.iter().enumerate() {
        for c in &node.children {
            parent[c.get()] = Some(i);
        }
    }
    let bones = (0..doc.nodes.len())
        .filter(|&i| doc.nodes[i].bone.is_some())
        .map(|i| BoneContent {
            name: doc.nodes[i].name.clone().unwrap(),
            parent: parent[i]
                .filter(|&p| doc.nodes[p].bone.is_some())
                .map(|p| doc.nodes[p].name.clone().unwrap()),
            length: doc.nodes[i].bone.as_ref().unwrap().length.unwrap(),
            head: world[i].0 - origin,
            basis: world[i].1,
        })
        .collect();
    (origin, bones)
}

/// A skin's entries (vertex, joint bone's node name, float32 weight bits), sorted.
fn file_skin(file: &G4mfFile, mesh: usize) -> Vec<(u32, String, u32)> {
    let doc = &file.document;
    let Some(skin) = &doc.meshes[mesh].skin else {
        return Vec::new();
    };
    let joints = &doc
        .nodes
        .iter()
        .find_map(|n| n.skeleton.as_ref())
        .unwrap()
        .joints;
    let groups = file.read_u64(skin.groups).unwrap();
    let vertices = file.read_u64(skin.vertices).unwrap();
    let weights = file.read_f64(skin.weights).unwrap();
    let mut entries: Vec<(u32, String, u32)> = groups
        .iter()
        .zip(&vertices)
        .zip(&weights)
        .map(|((&g, &v), &w)| {
            let JointRef::Node(n) = joints[g as usize] else {
                panic!("an uncontrolled joint")
            };
            let name = doc.nodes[n.get()].name.clone().unwrap();
            (v as u32, name, (w as f32).to_bits())
        })
        .collect();
    entries.sort();
    entries
}

fn file_shapes(file: &G4mfFile, mesh: usize) -> Vec<ShapeContent> {
    let Some(blend) = &file.document.meshes[mesh].blend else {
        return Vec::new();
    };
    let pairs = |target: &g4mf_model::BlendTarget| -> Vec<(u32, Bits3)> {
        let indices = file.read_u64(target.indices).unwrap();
        indices
            .iter()
            .zip(vec3s(file, target.offsets))
            .map(|(&i, o)| (i as u32, bits3(o)))
            .collect()
    };
    blend
        .shapes
        .iter()
        .enumerate()
        .map(|(k, shape)| {
            let mut normals = BTreeMap::new();
            for surface in shape.surfaces.iter().flatten() {
                for (v, o) in pairs(surface.normal.as_ref().unwrap()) {
                    // Each surface's target holds the same offset for a vertex they share.
                    assert_eq!(*normals.entry(v).or_insert(o), o);
                }
            }
            (
                shape.name.clone().unwrap(),
                blend.amount(k),
                shape.position.as_ref().map(pairs).unwrap_or_default(),
                normals,
            )
        })
        .collect()
}

/// Mesh `m` (on node `node`) of a file in our layout: one normals and one texture-map
/// accessor shared by its surfaces.
fn file_mesh(file: &G4mfFile, node: usize, m: usize) -> MeshContent {
    let doc = &file.document;
    let mesh = &doc.meshes[m];
    let normals = mesh.surfaces.iter().find_map(|s| s.normals.as_ref());
    let texcoords = mesh.surfaces.iter().find_map(|s| s.texture_map.as_ref());
    let surfaces = mesh
        .surfaces
        .iter()
        .map(|surface| {
            let simplexes = file.read_u64(surface.simplexes.unwrap()).unwrap();
            let corners = surface
                .texture_map
                .as_ref()
                .map(|t| file.read_u64(t.simplexes.unwrap()).unwrap());
            let triangles = (0..simplexes.len() / 3)
                .map(|t| {
                    canonical(
                        (3 * t..3 * t + 3)
                            .map(|i| (simplexes[i] as u32, corners.as_ref().map(|c| c[i] as u32)))
                            .collect(),
                    )
                })
                .collect();
            (
                surface.name.clone(),
                surface.material.map(|m| material_content(file, m.get())),
                triangles,
            )
        })
        .collect();
    MeshContent {
        // What our writer named the node after (its mesh is `{that}Mesh`; the node itself gets
        // `_2` when a bone already has the name).
        node: mesh
            .name
            .as_deref()
            .and_then(|n| n.strip_suffix("Mesh"))
            .map_or_else(|| doc.nodes[node].name.clone().unwrap(), str::to_owned),
        positions: vec3s(file, mesh.vertices).into_iter().map(bits3).collect(),
        normals: normals.map(|n| vec3s(file, n.values).into_iter().map(bits3).collect()),
        texcoords: texcoords.map_or_else(Vec::new, |t| {
            let values = file.read_f64(t.values).unwrap();
            values
                .chunks(2)
                .map(|c| [c[0] as f32, c[1] as f32].map(f32::to_bits))
                .collect()
        }),
        surfaces,
        skin: file_skin(file, m),
        shapes: file_shapes(file, m),
    }
}

/// A file of our layout as compared: root name, skeleton, and every mesh instance in node
/// order.
fn file_content(file: &G4mfFile) -> Content {
    let doc = &file.document;
    let (skeleton_position, bones) = file_bones(doc);
    let meshes = (0..doc.nodes.len())
        .filter_map(|i| {
            doc.nodes[i]
                .mesh_instance
                .as_ref()
                .map(|m| (i, m.mesh.get()))
        })
        .map(|(node, m)| file_mesh(file, node, m))
        .collect();
    Content {
        name: doc.nodes[0].name.clone().unwrap(),
        skeleton_position,
        bones,
        meshes,
    }
}

/// A spec's mesh as compared (faces fanned from their first corner, as the writer does).
fn spec_mesh(
    spec: &CharacterSpec,
    node: String,
    mesh: &MeshSpec,
    influences: Option<&g4mf_writer::Influences>,
) -> MeshContent {
    let texture = |t: Option<usize>| {
        t.map(|t| {
            let texture = &spec.textures[t];
            let image = texture.image.as_ref().map(|image| match image {
                ImageSpec::Embedded { bytes, .. } => Ok(bytes.to_vec()),
                ImageSpec::Uri { uri, .. } => Err(uri.clone()),
            });
            (
                texture.name.clone(),
                texture.size.map(u64::from),
                texture.placeholder.clone(),
                image,
            )
        })
    };
    let surfaces = mesh
        .surfaces
        .specs()
        .iter()
        .map(|surface| {
            let material = surface.material.as_ref().map(|name| {
                let m = mesh.materials.iter().find(|m| &m.name == name).unwrap();
                (
                    m.name.clone(),
                    m.base_color.map(|c| {
                        if c[3] == 1.0 {
                            c[..3].to_vec()
                        } else {
                            c.to_vec()
                        }
                    }),
                    [
                        texture(m.base_color_texture),
                        texture(m.normal_texture),
                        texture(m.orm_texture),
                    ],
                    m.extras.clone(),
                )
            });
            let triangles = surface
                .faces
                .iter()
                .flat_map(|face| {
                    (1..face.vertices.len() - 1).map(move |k| {
                        canonical(
                            [0, k, k + 1]
                                .map(|c| (face.vertices[c], face.texcoords.as_ref().map(|t| t[c])))
                                .to_vec(),
                        )
                    })
                })
                .collect();
            (surface.name.clone(), material, triangles)
        })
        .collect();
    let mut skin: Vec<(u32, String, u32)> = influences
        .map(|i| i.list().to_vec())
        .unwrap_or_default()
        .into_iter()
        .map(|i| {
            (
                i.vertex,
                spec.bones[i.bone as usize].name.clone(),
                (i.weight as f32).to_bits(),
            )
        })
        .collect();
    skin.sort();
    MeshContent {
        node,
        positions: mesh.positions.iter().copied().map(bits3).collect(),
        normals: mesh
            .normals
            .as_ref()
            .map(|n| n.iter().copied().map(bits3).collect()),
        texcoords: mesh
            .texcoords
            .iter()
            .map(|t| t.map(|c| (c as f32).to_bits()))
            .collect(),
        surfaces,
        skin,
        shapes: mesh
            .blend_shapes
            .iter()
            .map(|b| {
                (
                    b.name.clone(),
                    b.amount,
                    b.offsets.iter().map(|&(v, o)| (v, bits3(o))).collect(),
                    b.normal_offsets
                        .iter()
                        .map(|&(v, o)| (v, bits3(o)))
                        .collect(),
                )
            })
            .collect(),
    }
}

/// A spec as compared (the body's node named as our writer names it).
fn spec_content(spec: &CharacterSpec) -> Content {
    let bones = spec
        .bones
        .iter()
        .map(|b| BoneContent {
            name: b.name.clone(),
            parent: b.parent.map(|p| spec.bones[p].name.clone()),
            length: b.length,
            head: b.head,
            basis: b.basis,
        })
        .collect();
    let body = spec.mesh.as_ref().map(|m| {
        spec_mesh(
            spec,
            format!("{}Body", spec.name),
            m,
            spec.influences.as_ref(),
        )
    });
    // An attachment's shapes carry its name in G4MF (`{attachment}_{shape}`: names are
    // file-wide), as the writer names them.
    let attachments = spec.attachments.iter().map(|a| {
        let mut content = spec_mesh(spec, a.name.clone(), &a.mesh, a.influences.as_ref());
        for shape in &mut content.shapes {
            shape.0 = format!("{}_{}", a.name, shape.0);
        }
        content
    });
    Content {
        name: spec.name.clone(),
        skeleton_position: spec.skeleton_position,
        bones,
        meshes: body.into_iter().chain(attachments).collect(),
    }
}

/// `a` and `b` equal, bone transforms within float64 rounding of their composition.
fn assert_same(a: &Content, b: &Content, what: &str) {
    assert_eq!(a.bones.len(), b.bones.len(), "{what}: bones");
    for (x, y) in a.bones.iter().zip(&b.bones) {
        assert_eq!(
            (&x.name, &x.parent, x.length),
            (&y.name, &y.parent, y.length),
            "{what}"
        );
        assert!(x.head.abs_diff_eq(y.head, 1e-9), "{what}: {} head", x.name);
        assert!(
            x.basis.abs_diff_eq(y.basis, 1e-9),
            "{what}: {} basis",
            x.name
        );
    }
    let strip = |c: &Content| Content {
        bones: Vec::new(),
        ..c.clone()
    };
    let (a, b) = (strip(a), strip(b));
    assert_eq!(
        (&a.name, a.skeleton_position),
        (&b.name, b.skeleton_position),
        "{what}"
    );
    assert_eq!(a.meshes.len(), b.meshes.len(), "{what}: meshes");
    for (x, y) in a.meshes.iter().zip(&b.meshes) {
        assert_eq!(x.node, y.node, "{what}");
        assert_eq!(x.positions, y.positions, "{what}: {} positions", x.node);
        assert_eq!(x.normals, y.normals, "{what}: {} normals", x.node);
        assert_eq!(
            x.texcoords, y.texcoords,
            "{what}: {} texture coordinates",
            x.node
        );
        assert_eq!(
            x.surfaces.len(),
            y.surfaces.len(),
            "{what}: {} surfaces",
            x.node
        );
        for (s, t) in x.surfaces.iter().zip(&y.surfaces) {
            assert_eq!(s.0, t.0, "{what}: {} surface name", x.node);
            assert_eq!(s.1, t.1, "{what}: {} surface {:?} material", x.node, s.0);
            assert_eq!(s.2, t.2, "{what}: {} surface {:?} triangles", x.node, s.0);
        }
        assert_eq!(x.skin, y.skin, "{what}: {} skin", x.node);
        assert_eq!(x.shapes, y.shapes, "{what}: {} blend shapes", x.node);
    }
}

/// Reads `path` as a character, checks the spec against the file value by value, writes the
/// spec again and checks the new file against the first.
fn check(path: &Path) -> CharacterRead {
    let file = read_path(path, &ReadOptions::default()).unwrap();
    let read = character_spec(&file, &SpecOptions::default()).unwrap();
    // The body's mesh extras (`extras.mpfb`: source numbering, pairs the skin cannot carry)
    // have no place in a spec: the only note on our files.
    for note in &read.notes {
        assert_eq!(note.kind, NoteKind::BodyExtrasLeftOut, "{note}");
    }
    let original = file_content(&file);
    assert!(!original.meshes.is_empty() && !original.bones.is_empty());
    // Every mesh we write is skinned, so every comparison below has values to compare.
    for mesh in &original.meshes {
        assert!(
            !mesh.positions.is_empty() && !mesh.skin.is_empty(),
            "{}",
            mesh.node
        );
        assert!(
            mesh.surfaces.iter().all(|s| !s.2.is_empty()),
            "{}",
            mesh.node
        );
    }
    let from_spec = spec_content(&read.spec);
    assert_same(&from_spec, &original, "spec against file");

    let built = build_character(&read.spec).unwrap();
    let mut doc = built.document;
    let bytes = write_g4b(&mut doc, &[built.buffer], ContainerOptions::default()).unwrap();
    let again = read_bytes(&bytes, None, &ReadOptions::default()).unwrap();
    assert_same(
        &file_content(&again),
        &original,
        "rewritten file against file",
    );
    // What the rewrite does not carry: the body's mesh extras and the thumbnail.
    assert!(file.document.meshes[0].other.contains_key("extras"));
    assert!(!again.document.meshes[0].other.contains_key("extras"));
    assert!(again.document.asset.other.get("thumbnail").is_none());
    read
}

#[test]
fn the_default_character_reads_back_as_a_spec() {
    let data = test_support::mpfb_data_or_skip!(the_default_character_reads_back_as_a_spec);
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("default.g4b");
    let mut command = bin();
    command
        .args(["convert", "--rig-name", "default", "--mpfb-data"])
        .arg(&data)
        .args(["--quiet", "-o"])
        .arg(&out);
    succeed(&mut command);
    let read = check(&out);
    assert!(read.spec.attachments.is_empty());
    assert!(read.spec.mesh.as_ref().unwrap().blend_shapes.is_empty());
}

#[test]
fn face_units_and_visemes_read_back_as_blend_shapes() {
    let data = test_support::mpfb_data_or_skip!(face_units_and_visemes_read_back_as_blend_shapes);
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("faces.g4b");
    let mut command = bin();
    command
        .args(["convert", "--rig-name", "default", "--mpfb-data"])
        .arg(&data)
        .args(["--face-units", "--visemes", "--quiet", "-o"])
        .arg(&out);
    succeed(&mut command);
    let read = check(&out);
    let body = read.spec.mesh.as_ref().unwrap();
    assert_eq!(body.blend_shapes.len(), 67);
    // Every shape that moves a vertex turns normals (`VisemeSIL`, the neutral mouth, moves
    // none).
    let moving = body.blend_shapes.iter().filter(|s| !s.offsets.is_empty());
    assert!(moving.clone().count() >= 66);
    assert!(moving.clone().all(|s| !s.normal_offsets.is_empty()));
}

#[test]
fn a_dressed_character_reads_back_as_a_spec() {
    let Some((data, assets)) = data_and_assets(
        "a_dressed_character_reads_back",
        &["clothes/male_casualsuit01/male_casualsuit01.mhclo"],
    ) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("dressed.g4b");
    convert_with_assets(
        &data,
        &assets,
        &out,
        &[
            "--clothes",
            "male_casualsuit01",
            "--hair",
            "ponytail01",
            "--eyebrows",
            "eyebrow001",
            "--eyes",
            "HighPolyEyes",
            "--face-units",
        ],
    );
    let read = check(&out);
    let names: Vec<&str> = read
        .spec
        .attachments
        .iter()
        .map(|a| a.name.as_str())
        .collect();
    assert_eq!(names.len(), 4, "{names:?}");
    // Textures (the eyes' embedded iris at least), our drawing hints (hair, eyebrows) and the
    // shapes carried to the assets come through.
    let embedded =
        |t: &g4mf_writer::TextureSpec| matches!(t.image, Some(ImageSpec::Embedded { .. }));
    assert!(read.spec.textures.iter().any(embedded));
    let materials = read.spec.attachments.iter().flat_map(|a| &a.mesh.materials);
    assert!(materials.filter(|m| m.render.is_some()).count() >= 2);
    assert!(
        read.spec
            .attachments
            .iter()
            .any(|a| !a.mesh.blend_shapes.is_empty())
    );
}
