//! `cargo xtask validator-fixtures`: writes `fixtures/validator/`, one small G4MF file per
//! validator rule, each made from a valid tiny character by a single mutation. The expected
//! reports beside them are written by the corpus test with `UPDATE_GOLDEN=1`.

// The mutation table edits JSON in one-liners; `.map(|o| o.remove(..))` reads better there
// than an `if let` block per case.
#![allow(clippy::option_map_unit_fn)]

use base64::Engine;
use g4mf_writer::{Compression, ContainerOptions, write_g4b};
use glam::DVec3;
use serde_json::{Value, json};
use test_support::tiny::TinyCharacter;

/// The valid base: Hips (node 2) -> Spine (node 3) under the skeleton (node 1), a quad with UVs
/// on node 4, every vertex weighted. Accessors: 0 vertices, 1 UVs, 2 simplexes, 3 UV corners,
/// 4 skin groups, 5 skin vertices, 6 weights (all uint8 or float32).
fn base() -> (Value, Vec<u8>) {
    let tiny = TinyCharacter::new("Tiny")
        .bone("Hips", DVec3::new(0.0, 1.0, 0.0), 0.2)
        .bone("Spine", DVec3::new(0.0, 1.2, 0.0), 0.3)
        .positions(vec![
            DVec3::new(0.0, 1.0, 0.0),
            DVec3::new(0.2, 1.0, 0.0),
            DVec3::new(0.2, 1.4, 0.0),
            DVec3::new(0.0, 1.4, 0.0),
        ])
        .texcoords(vec![[0.0, 1.0], [1.0, 1.0], [1.0, 0.0], [0.0, 0.0]])
        .faces(&[&[0, 1, 2, 3]])
        .material("Skin", None)
        .weights(&[
            (0, 0, 1.0),
            (1, 0, 1.0),
            (2, 1, 0.75),
            (2, 0, 0.25),
            (3, 1, 1.0),
        ])
        .generator("mpfb2g4mf validator fixtures");
    (
        serde_json::from_slice(&tiny.g4tf_text()).expect("json"),
        tiny.build().buffer,
    )
}

/// Byte offset of accessor element `element` in the buffer.
fn element_offset(doc: &Value, accessor: usize, element: usize) -> usize {
    let a = &doc["accessors"][accessor];
    let view = &doc["bufferViews"][a["bufferView"].as_u64().unwrap_or(0) as usize];
    let size = match a["componentType"].as_str() {
        Some("uint8") => 1,
        Some("uint16") => 2,
        _ => 4,
    };
    view["byteOffset"].as_u64().unwrap_or(0) as usize + element * size
}

fn set_f32(doc: &Value, buffer: &mut [u8], accessor: usize, element: usize, value: f32) {
    let at = element_offset(doc, accessor, element);
    buffer[at..at + 4].copy_from_slice(&value.to_le_bytes());
}

fn encode_text(doc: &Value, buffer: &[u8]) -> Vec<u8> {
    let mut doc = doc.clone();
    if let Some(b) = doc.get_mut("buffers").and_then(|b| b.get_mut(0)) {
        if b.get("uri").is_some_and(|u| {
            u.as_str()
                .is_some_and(|s| s.starts_with("data:application/octet-stream;base64,"))
        }) {
            b["uri"] = json!(format!(
                "data:application/octet-stream;base64,{}",
                base64::engine::general_purpose::STANDARD.encode(buffer)
            ));
        }
    }
    let mut out = serde_json::to_vec_pretty(&doc).expect("json");
    out.push(b'\n');
    out
}

fn binary(buffer: &[u8]) -> Vec<u8> {
    let (doc, _) = base();
    let mut document: g4mf_model::Document = serde_json::from_value(doc).expect("model");
    write_g4b(
        &mut document,
        &[buffer.to_vec()],
        ContainerOptions::default(),
    )
    .expect("g4b")
}

/// A `width` x `height` grey PNG.
fn tiny_png(width: u32, height: u32) -> Vec<u8> {
    let mut bytes = Vec::new();
    let mut encoder = png::Encoder::new(&mut bytes, width, height);
    encoder.set_color(png::ColorType::Rgb);
    encoder.set_depth(png::BitDepth::Eight);
    let pixels = vec![128u8; (width * height * 3) as usize];
    encoder
        .write_header()
        .and_then(|mut w| w.write_image_data(&pixels))
        .expect("a tiny PNG encodes");
    bytes
}

/// A square 1-bit grey PNG of `side` pixels, all black: a few tens of kilobytes for a side
/// of 16385 (more pixels than the validator decodes).
fn large_png(side: u32) -> Vec<u8> {
    let mut bytes = Vec::new();
    let mut encoder = png::Encoder::new(&mut bytes, side, side);
    encoder.set_color(png::ColorType::Grayscale);
    encoder.set_depth(png::BitDepth::One);
    encoder.set_compression(png::Compression::High);
    let mut writer = encoder
        .write_header()
        .expect("a large PNG's header encodes");
    let mut stream = writer.stream_writer().expect("a PNG stream opens");
    let row = vec![0u8; side.div_ceil(8) as usize];
    for _ in 0..side {
        std::io::Write::write_all(&mut stream, &row).expect("a row encodes");
    }
    stream.finish().expect("a large PNG encodes");
    drop(writer);
    bytes
}

/// A PNG's signature, header (declaring `side` x `side` pixels), one data chunk holding an
/// empty zlib stream, and end: 65 bytes.
fn header_only_png(side: u32) -> Vec<u8> {
    let mut bytes = Vec::new();
    let mut encoder = png::Encoder::new(&mut bytes, side, side);
    encoder.set_color(png::ColorType::Rgb);
    let mut writer = encoder.write_header().expect("a PNG header encodes");
    writer
        .write_chunk(png::chunk::IDAT, b"\x78\x9c\x03\x00\x00\x00\x00\x01")
        .expect("a data chunk encodes");
    // Dropping the writer without the rest of the image data ends the file.
    drop(writer);
    bytes
}

/// Adds `image` to the buffer as file 0 of texture 0 (`size`), the file's thumbnail: what
/// `convert --thumbnail` writes, for the thumbnail cases to break.
fn add_thumbnail(d: &mut Value, b: &mut Vec<u8>, image: &[u8], size: &[u32]) {
    b.resize(b.len().div_ceil(16) * 16, 0);
    let offset = b.len();
    b.extend_from_slice(image);
    let views = d["bufferViews"].as_array_mut().expect("views");
    views.push(json!({ "byteOffset": offset, "byteLength": image.len() }));
    let view = views.len() - 1;
    d["buffers"][0]["byteLength"] = json!(b.len());
    d["files"] = json!([{ "mimeType": "image/png", "bufferView": view }]);
    d["textures"] = json!([{ "files": [0], "size": size, "placeholder": [0.5, 0.5, 0.5] }]);
    d["asset"]["thumbnail"] = json!(0);
}

/// Adds texture 0 of `size`, without image files (its placeholder fills it), as material 0's
/// base colour texture, which the quad's surface texture map (2D coordinates) then maps.
fn add_texture(d: &mut Value, size: &[u32]) {
    d["textures"] = json!([{ "size": size, "placeholder": [0.5, 0.5, 0.5] }]);
    d["materials"][0]["baseColor"] = json!({ "texture": 0 });
}

/// Adds a valid blend shape to mesh 0: `Smile` moving vertices 0 and 1 (indices: uint8
/// accessor, returned; offsets: float32 vec3 accessor, returned + 1).
fn add_blend(d: &mut Value, b: &mut Vec<u8>) -> usize {
    let mut push = |d: &mut Value, bytes: &[u8], component: &str, vector: u32| -> usize {
        b.resize(b.len().div_ceil(16) * 16, 0);
        let offset = b.len();
        b.extend_from_slice(bytes);
        let views = d["bufferViews"].as_array_mut().expect("views");
        views.push(json!({ "byteOffset": offset, "byteLength": bytes.len() }));
        let view = views.len() - 1;
        let accessors = d["accessors"].as_array_mut().expect("accessors");
        let mut accessor = json!({ "bufferView": view, "componentType": component });
        if vector != 1 {
            accessor["vectorSize"] = json!(vector);
        }
        accessors.push(accessor);
        accessors.len() - 1
    };
    let indices = push(d, &[0, 1], "uint8", 1);
    let offsets: Vec<u8> = [0.0f32, 0.01, 0.0, 0.0, 0.02, 0.0]
        .iter()
        .flat_map(|f| f.to_le_bytes())
        .collect();
    push(d, &offsets, "float32", 3);
    d["buffers"][0]["byteLength"] = json!(b.len());
    d["meshes"][0]["blend"] = json!({
        "amounts": [0.5],
        "shapes": [{ "name": "Smile", "position": { "indices": indices, "offsets": indices + 1 } }]
    });
    indices
}

/// A copy of the valid target of [`add_blend`] for per-surface entries.
fn blend_target(d: &Value) -> Value {
    d["meshes"][0]["blend"]["shapes"][0]["position"].clone()
}

type Json = fn(&mut Value, &mut Vec<u8>);

fn json_cases() -> Vec<(&'static str, Json)> {
    vec![
        ("valid", |_, _| {}),
        ("ASSET_MISSING", |d, _| {
            d.as_object_mut().map(|o| o.remove("asset"));
        }),
        ("ASSET_DIMENSION_MISSING", |d, _| {
            d["asset"].as_object_mut().map(|o| o.remove("dimension"));
        }),
        ("ASSET_DIMENSION_NOT_INTEGER", |d, _| {
            d["asset"]["dimension"] = json!(3.5)
        }),
        ("ASSET_EXTENSION_REQUIRED_NOT_USED", |d, _| {
            d["asset"]["extensionsRequired"] = json!(["EXT_x"])
        }),
        ("ASSET_EXTENSION_NOT_DECLARED", |d, _| {
            d["nodes"][4]["extensions"] = json!({"EXT_y": {}})
        }),
        ("ASSET_VERSION_FORMAT", |d, _| {
            d["asset"]["version"] = json!("draft")
        }),
        ("BUFFER_CHUNK_IN_TEXT", |d, _| {
            d["buffers"][0]["chunk"] = json!(1)
        }),
        ("BUFFER_TEXT_WITHOUT_URI", |d, _| {
            d["buffers"][0].as_object_mut().map(|o| o.remove("uri"));
        }),
        ("BUFFER_DATA_URI_INVALID", |d, _| {
            d["buffers"][0]["uri"] = json!("data:text/plain,hello")
        }),
        ("BUFFER_URI_NOT_READ_outside", |d, _| {
            d["buffers"][0]["uri"] = json!("../outside.bin")
        }),
        ("BUFFER_URI_NOT_READ_url", |d, _| {
            d["buffers"][0]["uri"] = json!("https://example.com/tiny.bin")
        }),
        ("BUFFER_BYTE_LENGTH_INVALID", |d, _| {
            d["buffers"][0]["byteLength"] = json!(-4)
        }),
        ("BUFFER_DATA_INVALID", |d, _| {
            let n = d["buffers"][0]["byteLength"].as_u64().unwrap_or(0);
            d["buffers"][0]["byteLength"] = json!(n + 64);
        }),
        ("BUFFER_VIEW_OUT_OF_BOUNDS", |d, _| {
            d["bufferViews"][6]["byteLength"] = json!(400)
        }),
        ("BUFFER_VIEW_BUFFER_INVALID", |d, _| {
            d["bufferViews"][0]["buffer"] = json!(3)
        }),
        ("ACCESSOR_BUFFER_VIEW_INVALID", |d, _| {
            d["accessors"][0]["bufferView"] = json!(99)
        }),
        ("ACCESSOR_COMPONENT_TYPE_UNKNOWN", |d, _| {
            d["accessors"][1]["componentType"] = json!("EXT_posit16")
        }),
        ("ACCESSOR_VECTOR_SIZE_INVALID", |d, _| {
            d["accessors"][1]["vectorSize"] = json!(0)
        }),
        ("ACCESSOR_MISALIGNED", |d, _| {
            d["bufferViews"][0]["byteOffset"] = json!(2)
        }),
        ("ACCESSOR_PARTIAL_ELEMENT", |d, _| {
            d["bufferViews"][0]["byteLength"] = json!(44)
        }),
        ("NODE_ROOT_TRANSFORM", |d, _| {
            d["nodes"][0]["position"] = json!([0, 1, 0])
        }),
        ("NODE_CHILD_INVALID", |d, _| {
            d["nodes"][3]["children"] = json!([9])
        }),
        ("NODE_ROOT_AS_CHILD", |d, _| {
            d["nodes"][4]["children"] = json!([0])
        }),
        ("NODE_MULTIPLE_PARENTS", |d, _| {
            d["nodes"][0]["children"] = json!([1, 4])
        }),
        ("NODE_CHILD_DUPLICATE", |d, _| {
            d["nodes"][2]["children"] = json!([3, 3])
        }),
        ("NODE_CYCLE", |d, _| {
            d["nodes"][1]["children"] = json!([4]);
            d["nodes"][3]["children"] = json!([2]);
        }),
        ("NODE_MULTIPLE_COMPONENTS", |d, _| {
            d["nodes"][4]["bone"] = json!({})
        }),
        ("NODE_POSITION_LENGTH", |d, _| {
            d["nodes"][2]["position"] = json!([0, 1])
        }),
        ("NODE_BASIS_LENGTH", |d, _| {
            d["nodes"][2]["basis"] = json!([1, 0, 0, 1])
        }),
        ("NODE_SCALE_LENGTH", |d, _| {
            d["nodes"][4]["scale"] = json!([1, 1])
        }),
        ("NODE_SCALE_NOT_POSITIVE", |d, _| {
            d["nodes"][4]["scale"] = json!([-1])
        }),
        ("NODE_BASIS_WITH_ROTOR_OR_SCALE", |d, _| {
            d["nodes"][2]["rotor"] = json!([1, 0, 0, 0])
        }),
        ("NODE_ROTOR_LENGTH", |d, _| {
            d["nodes"][4]["rotor"] = json!([1, 0])
        }),
        ("NODE_UNUSED", |d, _| {
            d["nodes"]
                .as_array_mut()
                .map(|n| n.push(json!({"name": "Loose"})));
        }),
        ("NAME_FORBIDDEN_CHARACTER", |d, _| {
            d["nodes"][3]["name"] = json!("spine.001")
        }),
        ("NAME_CONTROL_CHARACTER", |d, _| {
            d["nodes"][3]["name"] = json!("Spi\tne")
        }),
        ("NAME_DUPLICATE", |d, _| {
            d["materials"][0]["name"] = json!("Hips")
        }),
        ("MESH_INSTANCE_MESH_INVALID", |d, _| {
            d["nodes"][4]["meshInstance"]["mesh"] = json!(1)
        }),
        ("MESH_INSTANCE_MATERIALS_LENGTH", |d, _| {
            d["nodes"][4]["meshInstance"]["materials"] = json!([])
        }),
        ("MESH_VERTICES_NOT_FLOAT", |d, _| {
            d["accessors"][0]["componentType"] = json!("int32");
        }),
        ("MESH_VERTICES_VECTOR_SIZE", |d, _| {
            d["accessors"][0]["vectorSize"] = json!(4);
            d["bufferViews"][0]["byteLength"] = json!(32);
        }),
        ("MESH_SURFACES_EMPTY", |d, _| {
            d["meshes"][0]["surfaces"] = json!([])
        }),
        ("SURFACE_SIMPLEXES_NOT_INTEGER", |d, _| {
            d["meshes"][0]["surfaces"][0]["simplexes"] = json!(1)
        }),
        ("SURFACE_SIMPLEXES_VECTOR_SIZE", |d, _| {
            d["accessors"][2]["vectorSize"] = json!(2);
        }),
        ("SURFACE_SIMPLEX_INDEX_OUT_OF_RANGE", |d, b| {
            let at = element_offset(d, 2, 4);
            b[at] = 7;
        }),
        ("SURFACE_GEOMETRY_WITHOUT_EDGES", |d, _| {
            d["meshes"][0]["surfaces"][0]["geometry"] = json!([2])
        }),
        ("SURFACE_SEAMS_WITHOUT_EDGES", |d, _| {
            d["meshes"][0]["surfaces"][0]["seams"] = json!(2)
        }),
        ("SURFACE_POLYTOPE_WITHOUT_SIMPLEXES", |d, _| {
            d["meshes"][0]["surfaces"][0]
                .as_object_mut()
                .map(|o| o.remove("simplexes"));
            d["meshes"][0]["surfaces"][0]
                .as_object_mut()
                .map(|o| o.remove("textureMap"));
        }),
        ("SURFACE_MATERIAL_INVALID", |d, _| {
            d["meshes"][0]["surfaces"][0]["material"] = json!(5)
        }),
        ("BINDING_VALUES_NOT_FLOAT", |d, _| {
            d["accessors"][1]["componentType"] = json!("int32")
        }),
        ("BINDING_SIMPLEXES_COUNT", |d, _| {
            d["bufferViews"][3]["byteLength"] = json!(3)
        }),
        ("BINDING_INDEX_OUT_OF_RANGE", |d, b| {
            let at = element_offset(d, 3, 0);
            b[at] = 9;
        }),
        ("BONE_NOT_IN_SKELETON", |d, _| {
            d["nodes"][1]["children"] = json!([4]);
            d["nodes"][0]["children"] = json!([1, 2]);
            d["nodes"][1]["skeleton"] = json!({});
        }),
        ("BONE_LENGTH_NEGATIVE", |d, _| {
            d["nodes"][3]["bone"]["length"] = json!(-1.0)
        }),
        ("BONE_MASS_NEGATIVE", |d, _| {
            d["nodes"][3]["bone"]["mass"] = json!(-2.0)
        }),
        ("BONE_SHAPE_WITHOUT_LENGTH", |d, _| {
            d["nodes"][3]["bone"] = json!({"shape": 0});
            d["shapes"] = json!([{"type": "sphere", "size": [0.1]}]);
        }),
        ("SKELETON_JOINT_NOT_BONE", |d, _| {
            d["nodes"][1]["skeleton"]["joints"] = json!([2, 4])
        }),
        ("SKELETON_JOINTS_NOT_INCREASING", |d, _| {
            d["nodes"][1]["skeleton"]["joints"] = json!([3, 2]);
        }),
        ("SKELETON_ROOT_BONE_NOT_FIRST_CHILD", |d, _| {
            d["nodes"][1]["children"] = json!([4, 2])
        }),
        ("SKELETON_JOINT_UNCONTROLLED", |d, _| {
            d["nodes"][1]["skeleton"]["joints"] = json!([2, 3, -1])
        }),
        ("SKIN_GROUPS_NOT_UNSIGNED", |d, _| {
            d["accessors"][4]["componentType"] = json!("int8")
        }),
        ("SKIN_WEIGHTS_NOT_FLOAT", |d, _| {
            d["meshes"][0]["skin"]["weights"] = json!(5)
        }),
        ("SKIN_VECTOR_SIZE", |d, _| {
            d["accessors"][6]["vectorSize"] = json!(5);
        }),
        ("SKIN_LENGTH_MISMATCH", |d, _| {
            d["bufferViews"][5]["byteLength"] = json!(4)
        }),
        ("SKIN_VERTICES_NOT_ASCENDING", |d, b| {
            let at = element_offset(d, 5, 4);
            b[at] = 1;
        }),
        ("SKIN_WEIGHTS_NOT_DESCENDING", |d, b| {
            set_f32(d, b, 6, 2, 0.25);
            set_f32(d, b, 6, 3, 0.75);
        }),
        ("SKIN_VERTEX_OUT_OF_RANGE", |d, b| {
            let at = element_offset(d, 5, 4);
            b[at] = 4;
        }),
        ("SKIN_GROUP_NAME_DUPLICATE", |d, _| {
            d["meshes"][0]["skin"]["groupNames"] = json!(["Hips", "Hips"])
        }),
        ("SKIN_GROUP_NAME_EMPTY", |d, _| {
            d["meshes"][0]["skin"]["groupNames"] = json!(["Hips", ""])
        }),
        ("SKIN_MESH_NOT_UNDER_SKELETON", |d, _| {
            d["nodes"][1]["children"] = json!([2]);
            d["nodes"][0]["children"] = json!([1, 4]);
        }),
        ("SKIN_VERTICES_UNWEIGHTED", |d, b| {
            let at = element_offset(d, 5, 4);
            b[at] = 2;
            set_f32(d, b, 6, 4, 0.0);
        }),
        ("SKIN_WEIGHT_SUM", |d, b| set_f32(d, b, 6, 0, 0.5)),
        ("SKIN_GROUP_BEYOND_JOINTS", |d, b| {
            let at = element_offset(d, 4, 0);
            b[at] = 5;
        }),
        ("ACCESSOR_COMPONENT_TYPE_MISSING", |d, _| {
            d["accessors"][1]
                .as_object_mut()
                .map(|o| o.remove("componentType"));
        }),
        ("BINDING_INDICES_NOT_INTEGER", |d, _| {
            d["meshes"][0]["surfaces"][0]["textureMap"]["simplexes"] = json!(1)
        }),
        ("BINDING_INDICES_VECTOR_SIZE", |d, _| {
            d["meshes"][0]["surfaces"][0]["textureMap"]["simplexes"] = json!(4)
        }),
        ("BINDING_PER_SIMPLEX_COUNT", |d, _| {
            d["meshes"][0]["surfaces"][0]["textureMap"]["perSimplex"] = json!(4)
        }),
        ("BINDING_PER_SIMPLEX_INVALID", |d, _| {
            d["meshes"][0]["surfaces"][0]["textureMap"]["perSimplex"] = json!(99)
        }),
        ("BINDING_SIMPLEXES_INVALID", |d, _| {
            d["meshes"][0]["surfaces"][0]["textureMap"]["simplexes"] = json!(99)
        }),
        ("BINDING_SIMPLEXES_WITHOUT_SURFACE_SIMPLEXES", |d, _| {
            let s = d["meshes"][0]["surfaces"][0].as_object_mut();
            s.map(|o| {
                o.remove("simplexes");
                o.remove("polytopeSimplexes");
            });
        }),
        ("BINDING_VALUES_INVALID", |d, _| {
            d["meshes"][0]["surfaces"][0]["textureMap"]["values"] = json!(99)
        }),
        ("BINDING_VALUES_MISSING", |d, _| {
            d["meshes"][0]["surfaces"][0]["textureMap"]
                .as_object_mut()
                .map(|o| o.remove("values"));
        }),
        ("BONE_LENGTH_NOT_NUMBER", |d, _| {
            d["nodes"][3]["bone"]["length"] = json!("long")
        }),
        ("BONE_SHAPE_INVALID", |d, _| {
            d["nodes"][3]["bone"]["shape"] = json!(3)
        }),
        ("BUFFER_ENCODING_INVALID", |d, _| {
            d["buffers"][0]["encoding"] = json!("Zstandard")
        }),
        ("BUFFER_TOO_LARGE", |d, _| {
            d["buffers"][0]["byteLength"] = json!(1u64 << 40)
        }),
        ("BUFFER_URI_INVALID", |d, _| {
            d["buffers"][0]["uri"] = json!(5)
        }),
        ("BUFFER_URI_UNREADABLE", |d, _| {
            d["buffers"][0]["uri"] = json!("missing.bin")
        }),
        ("BUFFER_VIEW_BYTE_LENGTH_INVALID", |d, _| {
            d["bufferViews"][0]
                .as_object_mut()
                .map(|o| o.remove("byteLength"));
        }),
        ("BUFFER_VIEW_BYTE_OFFSET_INVALID", |d, _| {
            d["bufferViews"][1]["byteOffset"] = json!(-16)
        }),
        ("BLEND_SHAPES_MISSING", |d, b| {
            add_blend(d, b);
            d["meshes"][0]["blend"] = json!({ "amounts": [] });
        }),
        ("BLEND_AMOUNTS_INVALID", |d, b| {
            add_blend(d, b);
            d["meshes"][0]["blend"]["amounts"] = json!(["half"]);
        }),
        ("BLEND_AMOUNTS_LENGTH", |d, b| {
            add_blend(d, b);
            d["meshes"][0]["blend"]["amounts"] = json!([0.5, 0.5]);
        }),
        ("BLEND_TARGET_INVALID", |d, b| {
            add_blend(d, b);
            d["meshes"][0]["blend"]["shapes"][0]["position"]
                .as_object_mut()
                .map(|o| o.remove("offsets"));
        }),
        ("BLEND_INDICES_NOT_UNSIGNED", |d, b| {
            let i = add_blend(d, b);
            d["meshes"][0]["blend"]["shapes"][0]["position"]["indices"] = json!(i + 1);
        }),
        ("BLEND_INDICES_VECTOR_SIZE", |d, b| {
            add_blend(d, b);
            // The simplexes: uint8, vector size 3, two elements like the offsets.
            d["meshes"][0]["blend"]["shapes"][0]["position"]["indices"] = json!(2);
        }),
        ("BLEND_INDEX_OUT_OF_RANGE", |d, b| {
            let i = add_blend(d, b);
            let at = element_offset(d, i, 1);
            b[at] = 9;
        }),
        ("BLEND_OFFSETS_VECTOR_SIZE", |d, b| {
            add_blend(d, b);
            // The texture coordinates: float32, vector size 2.
            d["meshes"][0]["blend"]["shapes"][0]["position"]["offsets"] = json!(1);
        }),
        ("BLEND_OFFSETS_COUNT", |d, b| {
            add_blend(d, b);
            // The skin's vertices: uint8, five of them, for two offsets.
            d["meshes"][0]["blend"]["shapes"][0]["position"]["indices"] = json!(5);
        }),
        ("BLEND_SHAPE_UNNAMED", |d, b| {
            add_blend(d, b);
            d["meshes"][0]["blend"]["shapes"][0]
                .as_object_mut()
                .map(|o| o.remove("name"));
        }),
        ("BLEND_SURFACES_EMPTY", |d, b| {
            add_blend(d, b);
            d["meshes"][0]["blend"]["shapes"][0]["surfaces"] = json!([]);
        }),
        ("BLEND_SURFACE_INVALID", |d, b| {
            add_blend(d, b);
            let t = blend_target(d);
            d["meshes"][0]["blend"]["shapes"][0]["surfaces"] =
                json!([{ "surface": 4, "normal": t }]);
        }),
        ("BLEND_SURFACE_DUPLICATE", |d, b| {
            add_blend(d, b);
            let t = blend_target(d);
            // A second surface, so two entries are not too many.
            let surface = d["meshes"][0]["surfaces"][0].clone();
            d["meshes"][0]["surfaces"]
                .as_array_mut()
                .map(|s| s.push(surface));
            d["meshes"][0]["blend"]["shapes"][0]["surfaces"] = json!([
                { "surface": 0, "normal": t.clone() },
                { "surface": 0, "normal": t }
            ]);
        }),
        ("BLEND_SURFACE_EMPTY", |d, b| {
            add_blend(d, b);
            d["meshes"][0]["blend"]["shapes"][0]["surfaces"] = json!([{ "surface": 0 }]);
        }),
        ("BLEND_SURFACES_TOO_MANY", |d, b| {
            add_blend(d, b);
            let t = blend_target(d);
            d["meshes"][0]["blend"]["shapes"][0]["surfaces"] = json!([
                { "surface": 0, "normal": t.clone() },
                { "surface": 0, "normal": t }
            ]);
        }),
        ("MATERIAL_NOT_OBJECT", |d, _| d["materials"] = json!([5])),
        // Validated with --profile humanoid. The base: Hips (node 2) -> Spine (node 3).
        ("HUMANOID_BONES", |_, _| {}),
        ("HUMANOID_ANCESTRY", |d, _| {
            // Head above Neck.
            d["nodes"][2]["name"] = json!("Head");
            d["nodes"][3]["name"] = json!("Neck");
        }),
        ("HUMANOID_DUPLICATE", |d, _| {
            d["nodes"][3]["name"] = json!("AliceHips")
        }),
        ("HUMANOID_HIPS_PLACEMENT", |d, _| {
            d["nodes"][2]["name"] = json!("Root");
            d["nodes"][3]["name"] = json!("Hips");
        }),
        ("HUMANOID_NAME_CASE", |d, _| {
            d["nodes"][3]["name"] = json!("spine")
        }),
        ("HUMANOID_VARIANT_ORDER", |d, _| {
            d["nodes"][3]["name"] = json!("Hips2")
        }),
        ("HUMANOID_VARIANT_ZERO", |d, _| {
            d["nodes"][3]["name"] = json!("Spine0")
        }),
        ("MATERIAL_FACTOR_INVALID", |d, _| {
            d["materials"][0]["baseColor"] = json!({ "factor": ["red"] })
        }),
        ("ASSET_THUMBNAIL_INVALID", |d, b| {
            add_thumbnail(d, b, &tiny_png(4, 4), &[4, 4]);
            d["asset"]["thumbnail"] = json!(3);
        }),
        ("ASSET_THUMBNAIL_NOT_2D", |d, b| {
            add_thumbnail(d, b, &tiny_png(4, 4), &[4, 2, 2]);
        }),
        ("FILE_BUFFER_VIEW_INVALID", |d, b| {
            add_thumbnail(d, b, &tiny_png(4, 4), &[4, 4]);
            d["files"][0]["bufferView"] = json!(99);
        }),
        ("FILE_DATA_BOTH", |d, b| {
            add_thumbnail(d, b, &tiny_png(4, 4), &[4, 4]);
            d["files"][0]["uri"] = json!("thumbnail.png");
        }),
        ("FILE_DATA_MISSING", |d, b| {
            add_thumbnail(d, b, &tiny_png(4, 4), &[4, 4]);
            d["files"][0]
                .as_object_mut()
                .map(|o| o.remove("bufferView"));
        }),
        ("FILE_MIME_TYPE_MISSING", |d, b| {
            add_thumbnail(d, b, &tiny_png(4, 4), &[4, 4]);
            d["files"][0].as_object_mut().map(|o| o.remove("mimeType"));
        }),
        ("FILE_NOT_PNG", |d, b| {
            add_thumbnail(d, b, b"plain text, not a png at all", &[4, 4]);
        }),
        ("FILE_IMAGE_TOO_LARGE", |d, b| {
            add_thumbnail(d, b, &large_png(16_385), &[16_385, 16_385]);
        }),
        // Cut short: its last rows and its end are missing.
        ("FILE_IMAGE_UNDECODABLE", |d, b| {
            let whole = tiny_png(4, 4);
            add_thumbnail(d, b, &whole[..whole.len() - 20], &[4, 4]);
        }),
        // A few bytes declaring 100000x100000 pixels: refused from its header.
        ("FILE_IMAGE_UNDECODABLE_huge_header", |d, b| {
            add_thumbnail(d, b, &header_only_png(100_000), &[4, 4]);
        }),
        ("FILE_MIME_TYPE_MISMATCH", |d, b| {
            add_thumbnail(d, b, &tiny_png(4, 4), &[4, 4]);
            d["files"][0]["mimeType"] = json!("image/jpeg");
        }),
        // `..%2F` decodes to `../`: out of the file's folder.
        ("FILE_URI_NOT_READ", |d, b| {
            add_thumbnail(d, b, &tiny_png(4, 4), &[4, 4]);
            d["files"][0] = json!({ "mimeType": "image/png", "uri": "..%2Foutside.png" });
        }),
        ("FILE_URI_UNREADABLE", |d, b| {
            add_thumbnail(d, b, &tiny_png(4, 4), &[4, 4]);
            d["files"][0] = json!({ "mimeType": "image/png", "uri": "no%23such.png" });
        }),
        ("TEXTURE_SAMPLER_INVALID", |d, b| {
            add_thumbnail(d, b, &tiny_png(4, 4), &[4, 4]);
            d["textures"][0]["sampler"] = json!("linear");
        }),
        // The quad's first texture coordinate (accessor 1, bytes 48..52) is NaN.
        ("TEXTURE_MAP_NOT_FINITE", |_, b| {
            b[48..52].copy_from_slice(&f32::NAN.to_le_bytes());
        }),
        ("TEXTURE_FILE_INVALID", |d, b| {
            add_thumbnail(d, b, &tiny_png(4, 4), &[4, 4]);
            d["textures"][0]["files"] = json!([5]);
        }),
        ("TEXTURE_IMAGE_SIZE_MISMATCH", |d, b| {
            add_thumbnail(d, b, &tiny_png(4, 6), &[4, 4]);
        }),
        ("TEXTURE_PLACEHOLDER_MISSING", |d, b| {
            add_thumbnail(d, b, &tiny_png(4, 4), &[4, 4]);
            d["textures"][0]
                .as_object_mut()
                .map(|o| o.remove("placeholder"));
        }),
        ("TEXTURE_SIZE_INVALID", |d, b| {
            add_thumbnail(d, b, &tiny_png(4, 4), &[4, 0]);
        }),
        ("TEXTURE_FILE_INVALID_not_array", |d, b| {
            add_thumbnail(d, b, &tiny_png(4, 4), &[4, 4]);
            d["textures"][0]["files"] = json!(0);
        }),
        ("TEXTURE_WRAP_INVALID", |d, _| {
            add_texture(d, &[4, 4]);
            d["textures"][0]["sampler"] = json!({ "wrap": ["repeat", "clamp", "repeat"] });
        }),
        ("MATERIAL_CHANNEL_NOT_OBJECT", |d, _| {
            d["materials"][0]["baseColor"] = json!([1.0, 0.8, 0.6])
        }),
        ("MATERIAL_CHANNEL_TEXTURE_INVALID", |d, _| {
            d["materials"][0]["baseColor"] = json!({ "texture": 3 })
        }),
        // A 3D texture mapped by the surface's 2D texture coordinates.
        ("TEXTURE_MAP_VECTOR_SIZE", |d, _| add_texture(d, &[4, 4, 4])),
        // The same with the channel's own texture map (the surface's coordinates and corners).
        ("TEXTURE_MAP_VECTOR_SIZE_channel", |d, _| {
            add_texture(d, &[4, 4, 4]);
            d["materials"][0]["baseColor"]["textureMap"] = json!({ "values": 1, "simplexes": 3 });
        }),
        // The quad's mesh instance draws it with a second material, whose texture is 3D.
        ("TEXTURE_MAP_VECTOR_SIZE_instance", |d, _| {
            d["textures"] = json!([{ "size": [4, 4, 4], "placeholder": [0.5] }]);
            d["materials"]
                .as_array_mut()
                .map(|m| m.push(json!({ "name": "Paint", "baseColor": { "texture": 0 } })));
            d["nodes"][4]["meshInstance"]["materials"] = json!([1]);
        }),
        // A channel's texture map whose coordinates are the simplexes: uint8.
        ("BINDING_VALUES_NOT_FLOAT_channel", |d, _| {
            d["materials"][0]["baseColor"] = json!({ "textureMap": { "values": 2 } })
        }),
        // A channel's texture map with one index per skin influence (five) for the quad's two
        // triangles.
        ("BINDING_PER_SIMPLEX_COUNT_channel", |d, _| {
            d["materials"][0]["baseColor"] =
                json!({ "textureMap": { "values": 1, "perSimplex": 4 } })
        }),
        // A 2D texture on two channels: one mapped by the surface's texture map, one by its own;
        // a wrap mode per axis.
        ("valid_textured", |d, _| {
            add_texture(d, &[4, 4]);
            d["materials"][0]["normal"] =
                json!({ "texture": 0, "textureMap": { "values": 1, "simplexes": 3 } });
            d["textures"][0]["sampler"] = json!({ "wrap": ["repeat", "clamp"] });
        }),
        ("MESH_INSTANCE_MATERIAL_INVALID", |d, _| {
            d["nodes"][4]["meshInstance"]["materials"] = json!([7])
        }),
        ("MESH_INSTANCE_MESH_MISSING", |d, _| {
            d["nodes"][4]["meshInstance"] = json!({})
        }),
        ("MESH_VERTICES_INVALID", |d, _| {
            d["meshes"][0]["vertices"] = json!(99)
        }),
        ("MESH_VERTICES_MISSING", |d, _| {
            d["meshes"][0].as_object_mut().map(|o| o.remove("vertices"));
        }),
        ("NAME_NOT_STRING", |d, _| {
            d["materials"][0]["name"] = json!(5)
        }),
        ("NODE_CHILDREN_INVALID", |d, _| {
            d["nodes"][2]["children"] = json!("Spine")
        }),
        ("NODE_NOT_OBJECT", |d, _| {
            d["nodes"].as_array_mut().map(|n| n.push(json!(5)));
        }),
        ("NODE_TRANSFORM_NOT_NUMBERS", |d, _| {
            d["nodes"][2]["position"] = json!(["0", 1, 0])
        }),
        ("NORMALS_NOT_UNIT", |d, _| {
            d["meshes"][0]["surfaces"][0]["normals"] = json!({"values": 0})
        }),
        ("NORMALS_VECTOR_SIZE", |d, _| {
            d["meshes"][0]["surfaces"][0]["normals"] = json!({"values": 1})
        }),
        ("SKELETON_JOINTS_INVALID", |d, _| {
            d["nodes"][1]["skeleton"]["joints"] = json!("all")
        }),
        ("SKELETON_JOINT_INVALID", |d, _| {
            d["nodes"][1]["skeleton"]["joints"] = json!([2, 99])
        }),
        ("SKELETON_JOINT_OUTSIDE_SKELETON", |d, _| {
            d["nodes"].as_array_mut().map(|n| {
                n.push(json!({"name": "OtherSkeleton", "skeleton": {}, "children": [6]}));
                n.push(json!({"name": "OtherBone", "bone": {"length": 0.1}}));
            });
            d["nodes"][0]["children"] = json!([1, 5]);
            d["nodes"][1]["skeleton"]["joints"] = json!([2, 3, 6]);
        }),
        ("SKELETON_JOINT_PARENT_AFTER_CHILD", |d, _| {
            d["nodes"][1]["children"] = json!([3, 4]);
            d["nodes"][3]["children"] = json!([2]);
            d["nodes"][2].as_object_mut().map(|o| o.remove("children"));
        }),
        ("SKELETON_ROOT_BONE_NOT_FIRST_JOINT", |d, _| {
            d["nodes"][1]["children"] = json!([3, 4]);
            d["nodes"][3]["children"] = json!([2]);
            d["nodes"][2].as_object_mut().map(|o| o.remove("children"));
        }),
        ("SKIN_ACCESSOR_INVALID", |d, _| {
            d["meshes"][0]["skin"]["groups"] = json!(99)
        }),
        ("SKIN_ACCESSOR_MISSING", |d, _| {
            d["meshes"][0]["skin"]
                .as_object_mut()
                .map(|o| o.remove("weights"));
        }),
        ("SKIN_GROUP_NAME_NOT_STRING", |d, _| {
            d["meshes"][0]["skin"]["groupNames"] = json!([1, "Spine"])
        }),
        ("SKIN_VERTICES_NOT_UNSIGNED", |d, _| {
            d["accessors"][5]["componentType"] = json!("int8")
        }),
        ("SKIN_WEIGHT_NEGATIVE", |d, b| {
            set_f32(d, b, 6, 3, -0.25);
            set_f32(d, b, 6, 2, 1.25);
        }),
        ("SKIN_WEIGHT_NOT_FINITE", |d, b| {
            set_f32(d, b, 6, 4, f32::NAN)
        }),
        ("SURFACE_EDGES_INVALID", |d, _| {
            d["meshes"][0]["surfaces"][0]["edges"] = json!(99)
        }),
        ("SURFACE_EDGES_NOT_INTEGER", |d, _| {
            d["meshes"][0]["surfaces"][0]["edges"] = json!(1)
        }),
        ("SURFACE_EDGES_VECTOR_SIZE", |d, _| {
            d["meshes"][0]["surfaces"][0]["edges"] = json!(2)
        }),
        ("SURFACE_EDGE_INDEX_OUT_OF_RANGE", |d, b| {
            d["accessors"].as_array_mut().map(|a| {
                a.push(json!({"bufferView": 3, "componentType": "uint8", "vectorSize": 2}))
            });
            d["meshes"][0]["surfaces"][0]["edges"] = json!(7);
            let at = element_offset(d, 3, 1);
            b[at] = 9;
        }),
        ("SURFACE_SIMPLEXES_INVALID", |d, _| {
            d["meshes"][0]["surfaces"][0]["simplexes"] = json!(99)
        }),
        // Lift the quad's third corner off its plane: the two triangles bend.
        ("SURFACE_POLYTOPE_NOT_FLAT", |d, b| set_f32(d, b, 0, 8, 0.1)),
        // A second skinned mesh on the same skeleton numbering the groups the other way round.
        ("SKIN_GROUP_NAMES_DIFFER", |d, _| {
            let mut mesh = d["meshes"][0].clone();
            mesh.as_object_mut().map(|o| o.remove("name"));
            mesh["skin"]["groupNames"] = json!(["Spine", "Hips"]);
            d["meshes"].as_array_mut().map(|m| m.push(mesh));
            let node = d["nodes"].as_array().map_or(0, Vec::len);
            d["nodes"]
                .as_array_mut()
                .map(|n| n.push(json!({"name": "TinyOther", "meshInstance": {"mesh": 1}})));
            d["nodes"][1]["children"]
                .as_array_mut()
                .map(|c| c.push(json!(node)));
        }),
    ]
}

/// Raw-byte cases of the text format.
fn text_byte_cases(valid: &[u8]) -> Vec<(&'static str, Vec<u8>)> {
    let text = String::from_utf8_lossy(valid).into_owned();
    vec![
        ("JSON_BOM", [&[0xEF, 0xBB, 0xBF][..], valid].concat()),
        (
            "JSON_CONTROL_CHARACTER",
            text.replace('\n', "\r\n").into_bytes(),
        ),
        ("JSON_SYNTAX", valid[..valid.len() / 2].to_vec()),
        ("JSON_NOT_OBJECT", b"[1, 2, 3]\n".to_vec()),
        (
            "JSON_DUPLICATE_KEY",
            text.replacen("\"asset\": {", "\"asset\": {\n    \"dimension\": 3,", 1)
                .into_bytes(),
        ),
        (
            "JSON_NOT_UTF8",
            text.replacen("\"Tiny\"", "\"Ti\u{fffd}y\"", 1)
                .into_bytes()
                .into_iter()
                .map(|b| if b == 0xEF { 0xFF } else { b })
                .collect(),
        ),
    ]
}

/// Assembles a `.g4b` from JSON text and one blob, with the given encoding indicators.
fn assemble(json: &[u8], json_encoding: [u8; 4], blob: &[u8], blob_encoding: [u8; 4]) -> Vec<u8> {
    let mut b = b"G4MF\0\0\0\0\0\0\0\0\0\0\0\0".to_vec();
    b.extend_from_slice(b"JSON");
    b.extend_from_slice(&json_encoding);
    b.extend_from_slice(&(json.len() as u64).to_le_bytes());
    b.extend_from_slice(json);
    while b.len() % 16 != 0 {
        b.push(b' ');
    }
    b.extend_from_slice(b"BLOB");
    b.extend_from_slice(&blob_encoding);
    b.extend_from_slice(&(blob.len() as u64).to_le_bytes());
    b.extend_from_slice(blob);
    let n = b.len() as u64;
    b[8..16].copy_from_slice(&n.to_le_bytes());
    b
}

/// The base document as a `.g4b` JSON (buffer 0 in chunk 1), after `mutate`.
fn binary_json(mutate: impl FnOnce(&mut Value)) -> Vec<u8> {
    let (mut doc, buffer) = base();
    doc["buffers"] = json!([{"byteLength": buffer.len(), "chunk": 1}]);
    mutate(&mut doc);
    serde_json::to_vec(&doc).expect("json")
}

/// Byte-level cases of the binary format.
fn binary_cases(buffer: &[u8]) -> Vec<(&'static str, Vec<u8>)> {
    let good = binary(buffer);
    let json_len = u64::from_le_bytes(good[24..32].try_into().unwrap_or([0; 8])) as usize;
    let json_end = 32 + json_len;
    let blob_at = json_end.div_ceil(16) * 16;
    let with_size = |mut b: Vec<u8>| {
        let n = b.len() as u64;
        b[8..16].copy_from_slice(&n.to_le_bytes());
        b
    };
    let mut cases = vec![
        ("valid", good.clone()),
        ("CONTAINER_TOO_SHORT", good[..24].to_vec()),
    ];
    let mut b = good.clone();
    b[4] = 1;
    cases.push(("CONTAINER_BAD_VERSION", b));
    let mut b = good.clone();
    b[8..16].copy_from_slice(&(good.len() as u64 + 16).to_le_bytes());
    cases.push(("CONTAINER_SIZE_MISMATCH", b));
    let mut b = good.clone();
    b[15] |= 0x80;
    cases.push(("CONTAINER_SIZE_RESERVED_BIT", b));
    let mut b = good.clone();
    b[blob_at + 8..blob_at + 16].copy_from_slice(&(1u64 << 40).to_le_bytes());
    cases.push(("CHUNK_OUT_OF_BOUNDS", b));
    let mut b = good[..json_end].to_vec();
    b.extend_from_slice(&good[blob_at..]);
    cases.push(("CHUNK_MISALIGNED", with_size(b)));
    let mut b = good.clone();
    b[json_end..blob_at].fill(0);
    cases.push(("CHUNK_JSON_PADDING", b));
    let mut b = good.clone();
    b[blob_at + 4..blob_at + 8].fill(0xFF);
    cases.push(("CHUNK_ENCODING_RESERVED", b));
    let mut b = good.clone();
    b[16..20].copy_from_slice(b"JSOX");
    cases.push(("CONTAINER_NO_JSON_CHUNK", b));
    let mut b = good.clone();
    b[blob_at + 4..blob_at + 8].copy_from_slice(b"Zstd");
    cases.push(("BUFFER_ENCODING_MISMATCH", b));
    // A Zstd bomb: the chunk expands far past the buffer's declared byteLength.
    let (doc, _) = base();
    let mut document: g4mf_model::Document = serde_json::from_value(doc).expect("model");
    let options = ContainerOptions {
        compression: Compression::Zstd(19),
        compress_json: false,
        pretty: false,
    };
    let mut bomb = write_g4b(&mut document, &[vec![0u8; 4 << 20]], options).expect("g4b");
    let real = buffer.len() as u64;
    let json_len = u64::from_le_bytes(bomb[24..32].try_into().unwrap_or([0; 8])) as usize;
    let json = String::from_utf8_lossy(&bomb[32..32 + json_len]).replace(
        &format!("\"byteLength\":{}", 4u64 << 20),
        &format!("\"byteLength\":{real}"),
    );
    let blob_at = (32 + json_len).div_ceil(16) * 16;
    let blob = bomb.split_off(blob_at);
    let mut b = bomb[..16].to_vec();
    b.extend_from_slice(b"JSON\0\0\0\0");
    b.extend_from_slice(&(json.len() as u64).to_le_bytes());
    b.extend_from_slice(json.as_bytes());
    while b.len() % 16 != 0 {
        b.push(b' ');
    }
    b.extend_from_slice(&blob);
    cases.push(("BUFFER_DATA_LONGER_zstd_bomb", with_size(b)));
    let zstd = *b"Zstd";
    cases.push((
        "BUFFER_ZSTD_NO_MAGIC",
        assemble(
            &binary_json(|d| d["buffers"][0]["encoding"] = json!("Zstd")),
            [0u8; 4],
            buffer,
            zstd,
        ),
    ));
    let plain = [0u8; 4];
    let uri = format!(
        "data:application/octet-stream;base64,{}",
        base64::engine::general_purpose::STANDARD.encode(buffer)
    );
    let u = uri.clone();
    cases.push((
        "BUFFER_CHUNK_AND_URI",
        assemble(
            &binary_json(move |d| d["buffers"][0]["uri"] = json!(u)),
            plain,
            buffer,
            plain,
        ),
    ));
    cases.push((
        "BUFFER_CHUNK_INVALID",
        assemble(
            &binary_json(|d| d["buffers"][0]["chunk"] = json!(5)),
            plain,
            buffer,
            plain,
        ),
    ));
    cases.push((
        "BUFFER_NO_DATA",
        assemble(
            &binary_json(|d| {
                d["buffers"][0].as_object_mut().map(|o| o.remove("chunk"));
            }),
            plain,
            buffer,
            plain,
        ),
    ));
    let u = uri.clone();
    cases.push((
        "BUFFER_DATA_URI_IN_BINARY",
        assemble(
            &binary_json(move |d| {
                d["buffers"][0].as_object_mut().map(|o| o.remove("chunk"));
                d["buffers"][0]["uri"] = json!(u);
            }),
            plain,
            buffer,
            plain,
        ),
    ));
    let mut b = assemble(&binary_json(|_| {}), plain, buffer, plain);
    let blob_at = b.len() - buffer.len() - 16;
    b[blob_at..blob_at + 4].copy_from_slice(b"BLOX");
    cases.push(("BUFFER_CHUNK_NOT_BLOB", b));
    cases.push((
        "CHUNK_ZSTD_NO_MAGIC",
        assemble(&binary_json(|_| {}), *b"Zstd", buffer, plain),
    ));
    // Zstandard's magic, then no valid frame.
    let mut garbage = vec![0x28, 0xB5, 0x2F, 0xFD];
    garbage.extend_from_slice(&binary_json(|_| {}));
    cases.push((
        "CHUNK_DECODE_FAILED",
        assemble(&garbage, *b"Zstd", buffer, plain),
    ));
    cases.push((
        "CHUNK_UNKNOWN_ENCODING",
        assemble(
            &binary_json(|d| d["buffers"][0]["encoding"] = json!("LZ4 ")),
            plain,
            buffer,
            *b"LZ4 ",
        ),
    ));
    let mut b = assemble(&binary_json(|_| {}), plain, buffer, plain);
    b[blob_at + 15] |= 0x80;
    cases.push(("CHUNK_SIZE_RESERVED_BIT", b));
    let b = assemble(&binary_json(|_| {}), plain, buffer, plain);
    cases.push((
        "CHUNK_HEADER_TRUNCATED",
        with_size(b[..blob_at + 8].to_vec()),
    ));
    let mut b = assemble(&binary_json(|_| {}), plain, buffer, plain);
    b[3] = b'X';
    cases.push(("CONTAINER_BAD_MAGIC", b));
    // An application chunk after the blob: allowed, reported as an info.
    let mut b = assemble(&binary_json(|_| {}), plain, buffer, plain);
    while b.len() % 16 != 0 {
        b.push(0);
    }
    b.extend_from_slice(b"XTRA\0\0\0\0");
    b.extend_from_slice(&3u64.to_le_bytes());
    b.extend_from_slice(b"abc");
    cases.push(("CHUNK_UNKNOWN_TYPE", with_size(b)));
    cases
}

/// Hostile G4MF files for `fixtures/bad/` (`hostile_*`): every kind of reference past its
/// array, sizes that overflow, counts that would allocate without bound. Each subcommand that
/// reads G4MF must answer them with one clear line or findings, never a panic
/// (`crates/mpfb2g4mf/tests/hostile_g4mf.rs`).
fn hostile_json_cases() -> Vec<(&'static str, Json)> {
    vec![
        ("child_out_of_range", |d, _| {
            d["nodes"][0]["children"] = json!([1, 99])
        }),
        ("joint_out_of_range", |d, _| {
            d["nodes"][1]["skeleton"]["joints"] = json!([2, 4000000000u64])
        }),
        ("mesh_instance_out_of_range", |d, _| {
            d["nodes"][4]["meshInstance"]["mesh"] = json!(7)
        }),
        ("mesh_vertices_out_of_range", |d, _| {
            d["meshes"][0]["vertices"] = json!(99)
        }),
        ("simplexes_out_of_range", |d, _| {
            d["meshes"][0]["surfaces"][0]["simplexes"] = json!(99)
        }),
        ("skin_weights_out_of_range", |d, _| {
            d["meshes"][0]["skin"]["weights"] = json!(99)
        }),
        ("binding_out_of_range", |d, _| {
            d["meshes"][0]["surfaces"][0]["textureMap"]["simplexes"] = json!(99)
        }),
        ("material_out_of_range", |d, _| {
            d["meshes"][0]["surfaces"][0]["material"] = json!(9)
        }),
        ("instance_material_out_of_range", |d, _| {
            d["nodes"][4]["meshInstance"]["materials"] = json!([9])
        }),
        ("texture_out_of_range", |d, _| {
            d["materials"][0]["baseColor"] = json!({"texture": 3})
        }),
        ("buffer_view_out_of_range", |d, _| {
            d["accessors"][0]["bufferView"] = json!(99)
        }),
        ("buffer_out_of_range", |d, _| {
            d["bufferViews"][0]["buffer"] = json!(5)
        }),
        (
            "blend_target_out_of_range",
            |d, _| {
                d["meshes"][0]["blend"] =
                    json!({"shapes": [{"position": {"indices": 99, "offsets": 0}}]})
            },
        ),
        ("huge_vector_size", |d, _| {
            d["accessors"][0]["vectorSize"] = json!(4611686018427387904u64)
        }),
        ("overflowing_view", |d, _| {
            d["bufferViews"][0]["byteOffset"] = json!(18446744073709551600u64);
            d["bufferViews"][0]["byteLength"] = json!(64);
        }),
        ("huge_dimension", |d, _| {
            d["asset"]["dimension"] = json!(4000000000u64);
            d["nodes"][2]["rotor"] = json!([1.0]);
        }),
        (
            "huge_source_vertices",
            |d, _| {
                d["meshes"][0]["extras"] =
                    json!({"mpfb": {"source_vertices": [[0, 18446744073709551615u64]]}})
            },
        ),
        ("huge_unskinned_weights", |d, _| {
            d["meshes"][0]["extras"] = json!({"mpfb": {"unskinned_weights": {
                "names": ["x"], "groups": 99, "vertices": 4294967296u64, "weights": 6}}})
        }),
    ]
}

fn write_hostile(buffer: &[u8], doc: &Value) -> Result<usize, String> {
    let dir = test_support::workspace_root().join("fixtures/bad");
    let mut written = 0;
    for (name, mutate) in hostile_json_cases() {
        let (mut d, mut b) = (doc.clone(), buffer.to_vec());
        mutate(&mut d, &mut b);
        std::fs::write(
            dir.join(format!("hostile_{name}.g4tf")),
            encode_text(&d, &b),
        )
        .map_err(|e| format!("{name}: {e}"))?;
        // The same document in a binary container.
        d["buffers"] = json!([{"byteLength": b.len(), "chunk": 1}]);
        let json = serde_json::to_vec(&d).map_err(|e| e.to_string())?;
        std::fs::write(
            dir.join(format!("hostile_{name}.g4b")),
            assemble(&json, [0; 4], &b, [0; 4]),
        )
        .map_err(|e| format!("{name}: {e}"))?;
        written += 2;
    }
    Ok(written)
}

pub fn run(_args: &[String]) -> Result<(), String> {
    let dir = test_support::workspace_root().join("fixtures/validator");
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    for entry in std::fs::read_dir(&dir)
        .map_err(|e| e.to_string())?
        .flatten()
    {
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.ends_with(".g4tf") || name.ends_with(".g4b") {
            std::fs::remove_file(entry.path()).map_err(|e| e.to_string())?;
        }
    }
    let write = |name: &str, bytes: &[u8]| {
        std::fs::write(dir.join(name), bytes).map_err(|e| format!("{name}: {e}"))
    };
    let (doc, buffer) = base();
    let mut written = 0;
    for (code, mutate) in json_cases() {
        let (mut d, mut b) = (doc.clone(), buffer.clone());
        mutate(&mut d, &mut b);
        write(&format!("{code}.g4tf"), &encode_text(&d, &b))?;
        written += 1;
    }
    let valid = encode_text(&doc, &buffer);
    for (code, bytes) in text_byte_cases(&valid) {
        write(&format!("{code}.g4tf"), &bytes)?;
        written += 1;
    }
    for (code, bytes) in binary_cases(&buffer) {
        write(&format!("{code}.g4b"), &bytes)?;
        written += 1;
    }
    let hostile = write_hostile(&buffer, &doc)?;
    println!("wrote {hostile} hostile files to fixtures/bad/");
    println!(
        "wrote {written} fixtures to {}; now run UPDATE_GOLDEN=1 cargo test -p g4mf-validator and review the reports",
        dir.display()
    );
    Ok(())
}
