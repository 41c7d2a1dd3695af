//! Fuzzes the glTF scene reader (`g4mf_preview::Scene::from_gltf`: the `.glb` container, the
//! JSON through the `gltf` crate, buffers and images under our rules, accessors, the node
//! tree, morph targets, skinning, materials) and the rasterizer on what it builds. The first
//! byte chooses raw mode (even: the rest is the file) or structural mode: the rest drives up
//! to 16 edits of a valid seed's JSON (a textured, normal-mapped quad or a skinned strip with
//! a morph target and a blended material), served as a `.glb` (bit 2) or a `.gltf` with its
//! buffer as a data URI, shown with the morph target `Wide` at 1 (bit 3).
#![no_main]

#[path = "common/structural.rs"]
#[allow(dead_code)]
mod structural;

use libfuzzer_sys::fuzz_target;
use serde_json::{Value, json};
use std::sync::OnceLock;
use test_support::gltf::{GltfBuilder, glb, png};

/// glTF's reference-bearing properties, inserted by structural edits.
const GLTF_KEYS: [&str; 16] = [
    "children",
    "joints",
    "mesh",
    "skin",
    "indices",
    "material",
    "bufferView",
    "buffer",
    "byteLength",
    "byteOffset",
    "byteStride",
    "count",
    "source",
    "index",
    "inverseBindMatrices",
    "POSITION",
];

const SQUARE: [f32; 12] = [0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 1.0, 1.0, 0.0, 0.0, 1.0, 0.0];

/// A textured quad with normals, a MASK material and an embedded PNG.
fn quad() -> GltfBuilder {
    let mut b = GltfBuilder::new();
    let texture = b.png_texture(&png(2, 2, &[[255, 0, 0, 255], [0, 255, 0, 128], [0, 0, 255, 0], [9, 9, 9, 255]]));
    let m = b.push(
        "materials",
        json!({"alphaMode": "MASK", "alphaCutoff": 0.3,
               "pbrMetallicRoughness": {"baseColorFactor": [1, 1, 1, 1], "baseColorTexture": {"index": texture}},
               "extras": {"render": {"drawOrder": 3}}}),
    );
    let uv = b.floats(&[0.0, 1.0, 1.0, 1.0, 1.0, 0.0, 0.0, 0.0], "VEC2");
    let normal = b.floats(&[0.0, 0.0, 1.0].repeat(4), "VEC3");
    let mesh = b.mesh(&SQUARE, Some(&[0, 1, 2, 0, 2, 3]), &[("TEXCOORD_0", uv), ("NORMAL", normal)], Some(m));
    b.root_node(json!({"mesh": mesh, "rotation": [0.0, 0.38268343, 0.0, 0.9238795], "scale": [1.0, 2.0, 1.0]}));
    b
}

/// A strip of two squares on two joints (the second turned), with a morph target `Wide` and
/// a blended, double-sided material.
fn skinned() -> GltfBuilder {
    let mut b = GltfBuilder::new();
    let mut positions = SQUARE.to_vec();
    positions.extend(SQUARE.chunks(3).flat_map(|v| [v[0], v[1] + 1.0, v[2]]));
    let ids: Vec<u32> = [[0u32, 1, 0, 0]; 4].concat().into_iter().chain([[1u32, 0, 0, 0]; 4].concat()).collect();
    let joints = b.integers(&ids, "VEC4", 5121);
    let weights = b.floats(&[[0.75f32, 0.25, 0.0, 0.0]; 8].concat(), "VEC4");
    let m = b.push(
        "materials",
        json!({"alphaMode": "BLEND", "doubleSided": true, "pbrMetallicRoughness": {"baseColorFactor": [0.2, 0.4, 0.6, 0.5]}}),
    );
    let mesh = b.mesh(
        &positions,
        Some(&[0, 1, 2, 0, 2, 3, 4, 5, 6, 4, 6, 7]),
        &[("JOINTS_0", joints), ("WEIGHTS_0", weights)],
        Some(m),
    );
    let target = b.floats(&[1.0, 0.0, 0.0].repeat(8), "VEC3");
    b.json["meshes"][mesh]["primitives"][0]["targets"] = json!([{"POSITION": target}]);
    b.json["meshes"][mesh]["weights"] = json!([0.25]);
    b.json["meshes"][mesh]["extras"] = json!({"targetNames": ["Wide"]});
    let identity = [1.0f32, 0., 0., 0., 0., 1., 0., 0., 0., 0., 1., 0., 0., 0., 0., 1.];
    let mut bind = identity;
    bind[13] = -1.0;
    let ibm = b.floats(&[identity, bind].concat(), "MAT4");
    b.root_node(json!({"name": "root", "children": [1]}));
    b.push("nodes", json!({"name": "arm", "translation": [0, 1, 0], "rotation": [0, 0, 0.70710677, 0.70710677]}));
    b.push("skins", json!({"joints": [0, 1], "inverseBindMatrices": ibm, "skeleton": 0}));
    b.root_node(json!({"mesh": mesh, "skin": 0}));
    b
}

fn seeds() -> &'static [GltfBuilder; 2] {
    static SEEDS: OnceLock<[GltfBuilder; 2]> = OnceLock::new();
    SEEDS.get_or_init(|| [quad(), skinned()])
}

/// The file an input stands for, and whether to show `Wide`.
fn file_from_input(data: &[u8]) -> (Vec<u8>, bool) {
    let Some((&mode, rest)) = data.split_first() else {
        return (Vec::new(), false);
    };
    if mode % 2 == 0 {
        return (rest.to_vec(), false);
    }
    let seed = &seeds()[usize::from(mode & 2 != 0)];
    let binary = mode & 4 != 0;
    let mut doc: Value = if binary {
        seed.document(None)
    } else {
        serde_json::from_slice(&seed.gltf_embedded()).unwrap_or_default()
    };
    structural::mutate_with(&mut doc, rest, &GLTF_KEYS);
    let json = serde_json::to_vec(&doc).unwrap_or_default();
    let file = if binary { glb(&json, Some(&seed.bin)) } else { json };
    (file, mode & 8 != 0)
}

fuzz_target!(|data: &[u8]| {
    let (file, wide) = file_from_input(data);
    // The wide half also samples a clip named `Wide` (mutations may give the document
    // animations): a missing one is an error like any other, never a panic.
    let options = g4mf_preview::SceneOptions {
        blend: if wide { vec![("Wide".into(), 1.0)] } else { Vec::new() },
        no_textures: false,
        clip: wide.then(|| g4mf_preview::ClipTime {
            name: "Wide".into(),
            time: 0.5,
        }),
    };
    let read = structural::read_options();
    if let Ok(scene) = g4mf_preview::Scene::from_gltf(&file, None, &read, &options) {
        assert!(scene.triangles.len() <= g4mf_preview::scene::MAX_TRIANGLES);
        let options = g4mf_preview::RenderOptions {
            views: g4mf_preview::View::ALL.to_vec(),
            width: 32,
            height: 32,
            bones: true,
            ..Default::default()
        };
        let _ = g4mf_preview::png_bytes(&g4mf_preview::render(&scene, &options));
    }
});
