//! Reading glTF back (`test_support::gltf`) and the skinning judge built on it
//! (`skinning::glb`): strided views, normalized integers and sparse values with their byte
//! offsets, on a hand-made `.glb`.

use glam::DVec3;
use serde_json::json;
use std::path::Path;
use test_support::gltf::{GltfBuilder, accessor, parse, try_accessor, try_parse};
use test_support::skinning::{Turn, glb};

/// One joint at the origin and a triangle skinned to it through an interleaved view
/// (`JOINTS_0` u8 and `WEIGHTS_0` normalized u8, 8 bytes a vertex), with a sparse morph
/// target moving vertex 2 by +Z (its indices and values at byte offsets in their views).
fn skinned_triangle() -> GltfBuilder {
    let mut b = GltfBuilder::new();
    let interleaved: Vec<u8> = (0..3).flat_map(|_| [0, 0, 0, 0, 255, 0, 0, 0]).collect();
    let view = b.view(&interleaved);
    b.json["bufferViews"][view]["byteStride"] = json!(8);
    let joints = b.push(
        "accessors",
        json!({"bufferView": view, "componentType": 5121, "count": 3, "type": "VEC4"}),
    );
    let weights = b.push(
        "accessors",
        json!({"bufferView": view, "byteOffset": 4, "componentType": 5121, "normalized": true,
               "count": 3, "type": "VEC4"}),
    );
    let indices = b.view(&[0xFF, 0xFF, 2, 0]);
    let values: Vec<u8> = [9.0f32, 9.0, 9.0, 0.0, 0.0, 1.0]
        .iter()
        .flat_map(|v| v.to_le_bytes())
        .collect();
    let values = b.view(&values);
    let target = b.push(
        "accessors",
        json!({"componentType": 5126, "count": 3, "type": "VEC3", "sparse": {
            "count": 1,
            "indices": {"bufferView": indices, "byteOffset": 2, "componentType": 5123},
            "values": {"bufferView": values, "byteOffset": 12}
        }}),
    );
    let triangle = [1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 1.0, 1.0, 0.0];
    let mesh = b.mesh(
        &triangle,
        None,
        &[("JOINTS_0", joints), ("WEIGHTS_0", weights)],
        None,
    );
    b.json["meshes"][mesh]["primitives"][0]["targets"] = json!([{"POSITION": target}]);
    b.json["meshes"][mesh]["extras"] = json!({"targetNames": ["up"]});
    let bone = b.root_node(json!({"name": "bone"}));
    b.push("skins", json!({"joints": [bone]}));
    // The mesh node's own transform is ignored for a skinned mesh.
    b.root_node(json!({"name": "body", "mesh": mesh, "skin": 0, "translation": [5.0, 0.0, 0.0]}));
    b
}

#[test]
fn accessors_read_through_strides_normalized_integers_and_sparse_offsets() {
    let (root, bin) = parse(&skinned_triangle().glb(), Path::new("."));
    assert_eq!(accessor(&root, &bin, 0), vec![vec![0.0; 4]; 3]);
    assert_eq!(accessor(&root, &bin, 1), vec![vec![1.0, 0.0, 0.0, 0.0]; 3]);
    assert_eq!(
        accessor(&root, &bin, 2),
        [[0.0; 3], [0.0; 3], [0.0, 0.0, 1.0]].map(Vec::from)
    );
    // Signed normalized integers: c / max, at least -1.
    let mut b = GltfBuilder::new();
    let view = b.view(&[0x80, 0x81, 0x7F, 0, 0x00, 0x80, 0xFF, 0x7F]);
    for (component, offset, count) in [(5120, 0, 3), (5122, 4, 2)] {
        b.push(
            "accessors",
            json!({"bufferView": view, "byteOffset": offset, "componentType": component,
                   "normalized": true, "count": count, "type": "SCALAR"}),
        );
    }
    let (root, bin) = parse(&b.glb(), Path::new("."));
    assert_eq!(accessor(&root, &bin, 0).concat(), [-1.0, -1.0, 1.0]);
    assert_eq!(accessor(&root, &bin, 1).concat(), [-1.0, 1.0]);
    // What cannot be read is said, not panicked.
    let err = try_accessor(&root, &bin, 7).unwrap_err();
    assert_eq!(err, "no accessor 7");
    assert!(try_parse(b"glTF\x01\0\0\0", Path::new(".")).is_err());
}

#[test]
fn the_judge_skins_a_strided_normalized_skin_and_a_sparse_target() {
    let turn = Turn {
        bone: "bone".into(),
        axis: DVec3::Z,
        degrees: 90.0,
    };
    let meshes = glb::meshes(&skinned_triangle().glb(), &[turn]).unwrap();
    assert_eq!(meshes.len(), 1);
    let body = &meshes[0];
    assert_eq!(body.name, "body");
    assert_eq!(body.rest[0], DVec3::X);
    // A quarter turn about Z through the origin: X to Y, Y to -X.
    for (posed, expected) in
        body.posed
            .iter()
            .zip([DVec3::Y, -DVec3::X, DVec3::new(-1.0, 1.0, 0.0)])
    {
        assert!(posed.abs_diff_eq(expected, 1e-12), "{posed} {expected}");
    }
    assert_eq!(body.shapes.len(), 1);
    assert_eq!(body.shapes[0].name, "up");
    assert_eq!(body.shapes[0].offsets, [DVec3::ZERO, DVec3::ZERO, DVec3::Z]);
}
