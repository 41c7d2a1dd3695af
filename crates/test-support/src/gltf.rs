//! glTF files read back for tests: a `.glb` or `.gltf` (buffer embedded as a data URI or in a
//! file beside it) as `gltf-json`'s document and its buffer, and any accessor's elements as
//! numbers (sparse accessors applied). Trusting, panicking test code, not a reader.

use base64::Engine;
use gltf_json::Root;
use gltf_json::accessor::{ComponentType, Type};
use std::path::Path;

/// The document and buffer 0 of the glTF file at `path`.
pub fn read(path: &Path) -> (Root, Vec<u8>) {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    parse(&bytes, path.parent().unwrap_or(Path::new(".")))
}

/// The document and buffer 0 of glTF `bytes` (external buffers read from `folder`).
pub fn parse(bytes: &[u8], folder: &Path) -> (Root, Vec<u8>) {
    if bytes.starts_with(b"glTF") {
        let u32_at = |at: usize| u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap_or([0; 4]));
        let json_length = u32_at(12) as usize;
        let root = Root::from_slice(&bytes[20..20 + json_length])
            .unwrap_or_else(|e| panic!("the GLB's JSON: {e}"));
        let bin = bytes
            .get(20 + json_length + 8..)
            .map(<[u8]>::to_vec)
            .unwrap_or_default();
        return (root, bin);
    }
    let root = Root::from_slice(bytes).unwrap_or_else(|e| panic!("the glTF JSON: {e}"));
    let buffer = match root.buffers.first().and_then(|b| b.uri.clone()) {
        None => Vec::new(),
        Some(uri) => match uri.strip_prefix("data:application/octet-stream;base64,") {
            Some(data) => base64::engine::general_purpose::STANDARD
                .decode(data)
                .unwrap_or_else(|e| panic!("the buffer's data URI: {e}")),
            None => std::fs::read(folder.join(&uri)).unwrap_or_else(|e| panic!("{uri}: {e}")),
        },
    };
    (root, buffer)
}

/// The elements of accessor `index` as numbers (floats, or unsigned integers), zeros where it
/// has no view, its sparse values applied.
pub fn accessor(root: &Root, buffer: &[u8], index: usize) -> Vec<Vec<f64>> {
    let a = &root.accessors[index];
    let width = match a.type_.as_ref().unwrap() {
        Type::Scalar => 1,
        Type::Vec2 => 2,
        Type::Vec3 => 3,
        Type::Vec4 | Type::Mat2 => 4,
        Type::Mat3 => 9,
        Type::Mat4 => 16,
    };
    let component = a.component_type.as_ref().unwrap().0;
    let count = a.count.0 as usize;
    let view = |v: usize| {
        let view = &root.buffer_views[v];
        let start = view.byte_offset.map_or(0, |o| o.0 as usize);
        &buffer[start..start + view.byte_length.0 as usize]
    };
    let mut out = match a.buffer_view {
        Some(v) => {
            let start = a.byte_offset.map_or(0, |o| o.0 as usize);
            let bytes = &view(v.value())[start..];
            (0..count)
                .map(|i| {
                    (0..width)
                        .map(|k| number(bytes, i * width + k, component))
                        .collect()
                })
                .collect()
        }
        None => vec![vec![0.0; width]; count],
    };
    if let Some(sparse) = &a.sparse {
        let index_type = sparse.indices.component_type.as_ref().unwrap().0;
        let indices = view(sparse.indices.buffer_view.value());
        let values = view(sparse.values.buffer_view.value());
        for i in 0..sparse.count.0 as usize {
            let at = number(indices, i, index_type) as usize;
            out[at] = (0..width)
                .map(|k| number(values, i * width + k, component))
                .collect();
        }
    }
    out
}

/// Component `i` of `bytes` read as `component`.
fn number(bytes: &[u8], i: usize, component: ComponentType) -> f64 {
    let size = component.size();
    let b = &bytes[i * size..(i + 1) * size];
    match component {
        ComponentType::F32 => f64::from(f32::from_le_bytes([b[0], b[1], b[2], b[3]])),
        ComponentType::U8 => f64::from(b[0]),
        ComponentType::U16 => f64::from(u16::from_le_bytes([b[0], b[1]])),
        ComponentType::U32 => f64::from(u32::from_le_bytes([b[0], b[1], b[2], b[3]])),
        ComponentType::I8 => f64::from(b[0] as i8),
        ComponentType::I16 => f64::from(i16::from_le_bytes([b[0], b[1]])),
    }
}

/// A mesh's `extras.targetNames`.
pub fn target_names(root: &Root, mesh: usize) -> Vec<String> {
    root.meshes[mesh]
        .extras
        .as_ref()
        .and_then(|e| serde_json::from_str::<serde_json::Value>(e.get()).ok())
        .and_then(|v| serde_json::from_value(v["targetNames"].clone()).ok())
        .unwrap_or_default()
}
