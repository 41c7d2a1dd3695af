//! Small glTF 2.0 files written by hand for tests, fixtures and fuzz seeds: a JSON document
//! built with `serde_json` and one binary buffer, written as a `.glb` (the buffer as its BIN
//! chunk) or as a `.gltf` (the buffer as a data URI or a file beside it). [`glb`] wraps any
//! JSON and BIN bytes in a container, for files no writer would make.

use base64::Engine;
use serde_json::{Value, json};

/// A glTF document under construction and its one buffer.
#[derive(Debug, Clone)]
pub struct GltfBuilder {
    /// The document; `buffers[0]` is written by [`GltfBuilder::glb`] and its siblings.
    pub json: Value,
    /// The buffer's bytes.
    pub bin: Vec<u8>,
}

impl Default for GltfBuilder {
    fn default() -> Self {
        Self::new()
    }
}

impl GltfBuilder {
    /// An empty document (`asset.version` "2.0") with an empty buffer.
    pub fn new() -> Self {
        Self {
            json: json!({"asset": {"version": "2.0", "generator": "test-support"}}),
            bin: Vec::new(),
        }
    }

    /// Appends `value` to the top-level array `key` (made when absent); its index.
    pub fn push(&mut self, key: &str, value: Value) -> usize {
        let array = self.json[key].as_array_mut();
        match array {
            Some(array) => {
                array.push(value);
                array.len() - 1
            }
            None => {
                self.json[key] = json!([value]);
                0
            }
        }
    }

    /// A buffer view over `bytes` appended to the buffer (4-byte aligned); its index.
    pub fn view(&mut self, bytes: &[u8]) -> usize {
        while self.bin.len() % 4 != 0 {
            self.bin.push(0);
        }
        let offset = self.bin.len();
        self.bin.extend_from_slice(bytes);
        self.push(
            "bufferViews",
            json!({"buffer": 0, "byteOffset": offset, "byteLength": bytes.len()}),
        )
    }

    /// An accessor of f32 values of `ty` (`"VEC3"`, `"MAT4"`, ...), with `min`/`max` for
    /// `VEC3`s; its index.
    pub fn floats(&mut self, values: &[f32], ty: &str) -> usize {
        let width = width_of(ty);
        let bytes: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
        let view = self.view(&bytes);
        let mut accessor = json!({
            "bufferView": view, "componentType": 5126, "count": values.len() / width, "type": ty
        });
        if ty == "VEC3" && !values.is_empty() {
            let bound = |pick: fn(f32, f32) -> f32| -> Vec<f32> {
                (0..3)
                    .map(|c| {
                        values
                            .iter()
                            .skip(c)
                            .step_by(3)
                            .copied()
                            .reduce(pick)
                            .unwrap_or(0.0)
                    })
                    .collect()
            };
            accessor["min"] = json!(bound(f32::min));
            accessor["max"] = json!(bound(f32::max));
        }
        self.push("accessors", accessor)
    }

    /// An accessor of unsigned integers of `ty`, stored as `component` (5121 u8, 5123 u16,
    /// 5125 u32); its index.
    pub fn integers(&mut self, values: &[u32], ty: &str, component: u32) -> usize {
        let bytes: Vec<u8> = values
            .iter()
            .flat_map(|&v| match component {
                5121 => vec![v as u8],
                5123 => (v as u16).to_le_bytes().to_vec(),
                _ => v.to_le_bytes().to_vec(),
            })
            .collect();
        let view = self.view(&bytes);
        self.push(
            "accessors",
            json!({
                "bufferView": view, "componentType": component,
                "count": values.len() / width_of(ty), "type": ty
            }),
        )
    }

    /// An image stored in the buffer (`mimeType` `image/png`) and a texture of it; the
    /// texture's index.
    pub fn png_texture(&mut self, png: &[u8]) -> usize {
        let view = self.view(png);
        let image = self.push(
            "images",
            json!({"bufferView": view, "mimeType": "image/png"}),
        );
        self.push("textures", json!({"source": image}))
    }

    /// A mesh of one triangle primitive over `positions` (VEC3s), `indices` when given, and
    /// `extra` attributes (`"TEXCOORD_0"` and its accessor, ...), with material `material`;
    /// the mesh's index.
    pub fn mesh(
        &mut self,
        positions: &[f32],
        indices: Option<&[u32]>,
        extra: &[(&str, usize)],
        material: Option<usize>,
    ) -> usize {
        let position = self.floats(positions, "VEC3");
        let mut primitive = json!({"attributes": {"POSITION": position}});
        for (name, accessor) in extra {
            primitive["attributes"][*name] = json!(accessor);
        }
        if let Some(indices) = indices {
            primitive["indices"] = json!(self.integers(indices, "SCALAR", 5123));
        }
        if let Some(material) = material {
            primitive["material"] = json!(material);
        }
        self.push("meshes", json!({"primitives": [primitive]}))
    }

    /// A node (any of glTF's node properties in `node`) added to scene 0's roots; its index.
    pub fn root_node(&mut self, node: Value) -> usize {
        let index = self.push("nodes", node);
        if self.json["scenes"].as_array().is_none() {
            self.json["scenes"] = json!([{"nodes": []}]);
            self.json["scene"] = json!(0);
        }
        if let Some(roots) = self.json["scenes"][0]["nodes"].as_array_mut() {
            roots.push(json!(index));
        }
        index
    }

    /// The document with `buffers[0]` describing the buffer at `uri` (none: the BIN chunk).
    pub fn document(&self, uri: Option<&str>) -> Value {
        let mut json = self.json.clone();
        if !self.bin.is_empty() {
            let mut buffer = json!({"byteLength": self.bin.len()});
            if let Some(uri) = uri {
                buffer["uri"] = json!(uri);
            }
            json["buffers"] = json!([buffer]);
        }
        json
    }

    /// The file as a `.glb`, the buffer in its BIN chunk.
    pub fn glb(&self) -> Vec<u8> {
        let json = serde_json::to_vec(&self.document(None)).unwrap_or_default();
        glb(&json, (!self.bin.is_empty()).then_some(self.bin.as_slice()))
    }

    /// The file as a `.gltf` whose buffer is a base64 data URI.
    pub fn gltf_embedded(&self) -> Vec<u8> {
        let uri = format!(
            "data:application/octet-stream;base64,{}",
            base64::engine::general_purpose::STANDARD.encode(&self.bin)
        );
        serde_json::to_vec_pretty(&self.document(Some(&uri))).unwrap_or_default()
    }

    /// The file as a `.gltf` whose buffer is the file `uri` (write [`GltfBuilder::bin`] there).
    pub fn gltf_with_buffer_at(&self, uri: &str) -> Vec<u8> {
        serde_json::to_vec_pretty(&self.document(Some(uri))).unwrap_or_default()
    }
}

/// Values per element of an accessor `type`.
fn width_of(ty: &str) -> usize {
    match ty {
        "VEC2" => 2,
        "VEC3" => 3,
        "VEC4" | "MAT2" => 4,
        "MAT3" => 9,
        "MAT4" => 16,
        _ => 1,
    }
}

/// A `.glb` container around `json` and, when given, a BIN chunk of `bin`: each chunk padded
/// to four bytes (JSON with spaces, BIN with zeros) and the header's length the whole file's.
pub fn glb(json: &[u8], bin: Option<&[u8]>) -> Vec<u8> {
    let pad = |n: usize| n.div_ceil(4) * 4;
    let mut out = Vec::new();
    out.extend_from_slice(b"glTF");
    out.extend_from_slice(&2u32.to_le_bytes());
    out.extend_from_slice(&0u32.to_le_bytes());
    out.extend_from_slice(&(pad(json.len()) as u32).to_le_bytes());
    out.extend_from_slice(b"JSON");
    out.extend_from_slice(json);
    out.resize(20 + pad(json.len()), b' ');
    if let Some(bin) = bin {
        out.extend_from_slice(&(pad(bin.len()) as u32).to_le_bytes());
        out.extend_from_slice(b"BIN\0");
        let start = out.len();
        out.extend_from_slice(bin);
        out.resize(start + pad(bin.len()), 0);
    }
    let length = out.len() as u32;
    out[8..12].copy_from_slice(&length.to_le_bytes());
    out
}

/// A PNG of `width` x `height` RGBA8 `texels`, row by row.
pub fn png(width: u32, height: u32, texels: &[[u8; 4]]) -> Vec<u8> {
    let mut bytes = Vec::new();
    let mut encoder = png::Encoder::new(&mut bytes, width, height);
    encoder.set_color(png::ColorType::Rgba);
    encoder.set_depth(png::BitDepth::Eight);
    if let Ok(mut writer) = encoder.write_header() {
        let data: Vec<u8> = texels.iter().flatten().copied().collect();
        let _ = writer.write_image_data(&data);
    }
    bytes
}
