//! Small glTF 2.0 files for tests, fixtures and fuzz seeds, both ways: written by hand (a JSON
//! document built with `serde_json` and one binary buffer, as a `.glb` with the buffer as its
//! BIN chunk or a `.gltf` with it as a data URI or a file beside it; [`glb`] wraps any JSON and
//! BIN bytes in a container, for files no writer would make), and read back ([`read`],
//! [`parse`]: `gltf-json`'s document and buffer 0; [`accessor`]: any accessor's elements as
//! numbers, strides, normalized integers and sparse values applied). Test code, not a reader:
//! these panic on what they cannot read; [`try_parse`] and [`try_accessor`], for the skinning
//! judge (`skinning::glb`), say it instead.

use base64::Engine;
use gltf_json::Root;
use gltf_json::accessor::ComponentType;
use gltf_json::validation::{Checked, USize64};
use serde_json::{Value, json};
use std::path::Path;

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

/// What `preview` must make of a hostile glTF file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Expect {
    /// Exit 1 with one error line naming the file and holding this text.
    Refused(&'static str),
    /// Exit 0 with a picture, and a warning line holding this text (none when empty).
    Drawn(&'static str),
}

/// One hostile glTF file for `preview`, written by [`hostile_files`].
#[derive(Debug, Clone)]
pub struct Hostile {
    /// A short name (the file's stem).
    pub name: &'static str,
    /// The file.
    pub file: std::path::PathBuf,
    /// Arguments `preview` takes besides the file and its output.
    pub args: Vec<String>,
    /// What must happen.
    pub expect: Expect,
}

/// A valid red square: the base every hostile file is edited from.
fn hostile_base() -> GltfBuilder {
    let mut b = GltfBuilder::new();
    let m = b.push(
        "materials",
        json!({"pbrMetallicRoughness": {"baseColorFactor": [1, 0, 0, 1]}}),
    );
    let square = [0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 1.0, 1.0, 0.0, 0.0, 1.0, 0.0];
    let mesh = b.mesh(&square, Some(&[0, 1, 2, 0, 2, 3]), &[], Some(m));
    b.root_node(json!({"mesh": mesh}));
    b
}

/// A `.glb` of `b` whose document `edit` changed first.
fn edited(b: &GltfBuilder, edit: impl FnOnce(&mut Value)) -> Vec<u8> {
    let mut json = b.document(None);
    edit(&mut json);
    glb(
        &serde_json::to_vec(&json).unwrap_or_default(),
        Some(b.bin.as_slice()),
    )
}

/// Writes the hostile glTF files into `dir` (and `dir`'s parent gets `outside.bin`, the
/// buffer a file there must not reach): broken containers, lying sizes, URIs we refuse,
/// ranges past their data, a node tree that is not a tree, a chain 10,000 deep, an image
/// header of 100,000 x 100,000 texels, a vertex that is not a number.
pub fn hostile_files(dir: &std::path::Path) -> std::io::Result<Vec<Hostile>> {
    let base = hostile_base();
    let good = base.glb();
    let mut out = Vec::new();
    let mut add = |name: &'static str, ext: &str, bytes: Vec<u8>, args: &[&str], expect| {
        let file = dir.join(format!("{name}.{ext}"));
        std::fs::write(&file, bytes)?;
        out.push(Hostile {
            name,
            file,
            args: args.iter().map(|a| a.to_string()).collect(),
            expect,
        });
        std::io::Result::Ok(())
    };
    let refused = Expect::Refused;
    add(
        "truncated",
        "glb",
        good[..good.len() / 2].to_vec(),
        &[],
        refused("byte 8: the header declares"),
    )?;
    let mut short = good.clone();
    short[8..12].copy_from_slice(&4u32.to_le_bytes());
    add(
        "header_length_4",
        "glb",
        short,
        &[],
        refused("byte 8: the header declares 4 bytes"),
    )?;
    let mut long_chunk = good.clone();
    long_chunk[12..16].copy_from_slice(&0x7fff_fff0u32.to_le_bytes());
    add(
        "json_chunk_past_end",
        "glb",
        long_chunk,
        &[],
        refused("byte 12: the JSON chunk's"),
    )?;
    add(
        "json_not_json",
        "glb",
        glb(b"this is not JSON at all", None),
        &[],
        refused("byte 21: expected ident"),
    )?;
    let huge = edited(&base, |j| j["buffers"][0]["byteLength"] = json!(1u64 << 53));
    add(
        "buffer_2_pow_53",
        "glb",
        huge,
        &[],
        refused("/buffers/0/byteLength: buffer 0 is 9007199254740992 bytes"),
    )?;
    // 1,200,000 bytes of base64 payload, over a 1 MiB limit.
    let uri = format!(
        "data:application/octet-stream;base64,{}",
        "AAAA".repeat(400_000)
    );
    let mut doc = base.document(Some(&uri));
    doc["buffers"][0]["byteLength"] = json!(base.bin.len());
    add(
        "data_uri_huge",
        "gltf",
        serde_json::to_vec(&doc).unwrap_or_default(),
        &["--max-buffer-mib", "1"],
        refused("/buffers/0/uri: the data URI's data is 1200000 bytes, above the limit of 1048576"),
    )?;
    let declares = serde_json::to_vec(&{
        let mut d = base.document(Some("data:application/octet-stream;base64,AAAA"));
        d["buffers"][0]["byteLength"] = json!(1u64 << 40);
        d
    })
    .unwrap_or_default();
    add(
        "data_uri_declares_2_pow_40",
        "gltf",
        declares,
        &[],
        refused("/buffers/0/byteLength: buffer 0 is 1099511627776 bytes"),
    )?;
    let past = edited(&base, |j| j["accessors"][0]["count"] = json!(1000));
    add(
        "accessor_past_view",
        "glb",
        past,
        &[],
        refused("/accessors/0: 1000 elements of 12 bytes"),
    )?;
    let mut beyond = hostile_base();
    let index = beyond.json["meshes"][0]["primitives"][0]["indices"]
        .as_u64()
        .unwrap_or(1) as usize;
    let view = beyond.json["accessors"][index]["bufferView"]
        .as_u64()
        .unwrap_or(1) as usize;
    let offset = beyond.json["bufferViews"][view]["byteOffset"]
        .as_u64()
        .unwrap_or(0) as usize;
    beyond.bin[offset + 4..offset + 6].copy_from_slice(&99u16.to_le_bytes());
    add(
        "index_past_vertices",
        "glb",
        beyond.glb(),
        &[],
        refused("/meshes/0/primitives/0/indices: index 2 is 99, past the primitive's 4 vertices"),
    )?;
    for (name, uri, expect) in [
        (
            "uri_http",
            "http://example.com/quad.bin",
            "refusing to follow `http://example.com/quad.bin`",
        ),
        (
            "uri_absolute",
            "/etc/passwd",
            "refusing to follow the absolute path `/etc/passwd`",
        ),
        (
            "uri_outside",
            "../outside.bin",
            "refusing to follow `../outside.bin`: it leaves the file's folder",
        ),
    ] {
        add(
            name,
            "gltf",
            base.gltf_with_buffer_at(uri),
            &[],
            refused(expect),
        )?;
    }
    if let Some(parent) = dir.parent() {
        std::fs::write(parent.join("outside.bin"), &base.bin)?;
    }
    // Sixteen buffers naming one 1 MiB file: each under the limit, together over it.
    std::fs::write(dir.join("big.bin"), vec![0u8; 1 << 20])?;
    let mut shared = base.document(None);
    shared["buffers"] = json!(vec![json!({"uri": "big.bin", "byteLength": 1 << 20}); 16]);
    add(
        "buffers_sharing_a_file",
        "gltf",
        serde_json::to_vec(&shared).unwrap_or_default(),
        &["--max-buffer-mib", "4"],
        refused("/buffers/4/byteLength: buffers 0 to 4 together"),
    )?;
    let mut image = hostile_base();
    let mut png_bytes = png(1, 1, &[[0, 0, 0, 255]]);
    png_bytes[16..20].copy_from_slice(&100_000u32.to_be_bytes());
    png_bytes[20..24].copy_from_slice(&100_000u32.to_be_bytes());
    let texture = image.png_texture(&png_bytes);
    let uv = image.floats(&[0.0; 8], "VEC2");
    image.json["materials"][0]["pbrMetallicRoughness"]["baseColorTexture"] =
        json!({"index": texture});
    image.json["meshes"][0]["primitives"][0]["attributes"]["TEXCOORD_0"] = json!(uv);
    add(
        "png_100000_square",
        "glb",
        image.glb(),
        &[],
        Expect::Drawn("/images/0: not a PNG or JPEG image of at most"),
    )?;
    let mut nan = hostile_base();
    let view = nan.json["accessors"][0]["bufferView"].as_u64().unwrap_or(0) as usize;
    let offset = nan.json["bufferViews"][view]["byteOffset"]
        .as_u64()
        .unwrap_or(0) as usize;
    nan.bin[offset..offset + 4].copy_from_slice(&f32::NAN.to_le_bytes());
    add(
        "nan_position",
        "glb",
        nan.glb(),
        &[],
        Expect::Drawn("1 of 4 vertices are not finite numbers"),
    )?;
    let cycle = edited(&base, |j| {
        j["nodes"] = json!([{"children": [1], "mesh": 0}, {"children": [0]}]);
    });
    add(
        "node_cycle",
        "glb",
        cycle,
        &[],
        refused("/nodes/0: node 0 is its own ancestor"),
    )?;
    let chain = edited(&base, |j| {
        let mut nodes: Vec<Value> = (1..10_000)
            .map(|i| json!({"children": [i], "translation": [0.0, 0.0, 0.0001]}))
            .collect();
        nodes.push(json!({"mesh": 0}));
        j["nodes"] = json!(nodes);
    });
    add(
        "node_chain_10000_deep",
        "glb",
        chain,
        &[],
        Expect::Drawn(""),
    )?;
    let mut morph = hostile_base();
    let target = morph.floats(&[0.0; 9], "VEC3");
    morph.json["meshes"][0]["primitives"][0]["targets"] = json!([{"POSITION": target}]);
    morph.json["meshes"][0]["weights"] = json!([1.0]);
    add(
        "morph_target_count_differs",
        "glb",
        morph.glb(),
        &[],
        refused(
            "/meshes/0/primitives/0/targets/0/POSITION: the morph target has 3 displacements for the primitive's 4 vertices",
        ),
    )?;
    let position = edited(&base, |j| {
        j["meshes"][0]["primitives"][0]["attributes"]["POSITION"] = json!(7)
    });
    add(
        "position_accessor_out_of_range",
        "glb",
        position,
        &[],
        refused("/meshes/0/primitives/0/attributes/POSITION: 7 is not an index into `accessors`"),
    )?;
    let http_image = edited(&base, |j| {
        j["images"] = json!([{"uri": "http://example.com/skin.png"}]);
        j["textures"] = json!([{"source": 0}]);
        j["materials"][0]["pbrMetallicRoughness"]["baseColorTexture"] = json!({"index": 0});
    });
    add(
        "image_uri_http",
        "glb",
        http_image,
        &[],
        Expect::Drawn("/images/0/uri: refusing to follow"),
    )?;
    Ok(out)
}

/// The document and buffer 0 of the glTF file at `path`.
pub fn read(path: &Path) -> (Root, Vec<u8>) {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    parse(&bytes, path.parent().unwrap_or(Path::new(".")))
}

/// The document and buffer 0 of glTF `bytes` (external buffers read from `folder`).
pub fn parse(bytes: &[u8], folder: &Path) -> (Root, Vec<u8>) {
    try_parse(bytes, folder).unwrap_or_else(|e| panic!("{e}"))
}

/// [`parse`], saying what is wrong instead of panicking: a `.glb`'s chunks (its `JSON`, and
/// its `BIN` as buffer 0), or a `.gltf` and its buffer 0 (a base64 data URI or a file in
/// `folder`).
pub fn try_parse(bytes: &[u8], folder: &Path) -> Result<(Root, Vec<u8>), String> {
    if !bytes.starts_with(b"glTF") {
        let root = Root::from_slice(bytes).map_err(|e| format!("the glTF JSON: {e}"))?;
        let buffer = match root.buffers.first().and_then(|b| b.uri.clone()) {
            None => Vec::new(),
            Some(uri) => match uri.strip_prefix("data:application/octet-stream;base64,") {
                Some(data) => base64::engine::general_purpose::STANDARD
                    .decode(data)
                    .map_err(|e| format!("the buffer's data URI: {e}"))?,
                None => std::fs::read(folder.join(&uri)).map_err(|e| format!("{uri}: {e}"))?,
            },
        };
        return Ok((root, buffer));
    }
    let u32_at = |at: usize| -> Result<usize, String> {
        bytes
            .get(at..at + 4)
            .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize)
            .ok_or(format!("the GLB ends before byte {at}"))
    };
    if u32_at(4)? != 2 {
        return Err("not a glTF 2.0 binary file".into());
    }
    let (mut root, mut bin) = (None, Vec::new());
    let mut at = 12;
    while at + 8 <= bytes.len() {
        let (length, kind) = (u32_at(at)?, &bytes[at + 4..at + 8]);
        let data = bytes
            .get(at + 8..at + 8 + length)
            .ok_or("a GLB chunk runs past the end")?;
        match kind {
            b"JSON" => {
                root = Some(Root::from_slice(data).map_err(|e| format!("the GLB's JSON: {e}"))?);
            }
            b"BIN\0" => bin = data.to_vec(),
            _ => {}
        }
        at += 8 + length;
    }
    Ok((root.ok_or("the GLB has no JSON chunk")?, bin))
}

/// The elements of accessor `index` as numbers (floats, or integers: normalized ones scaled
/// to [0, 1] or [-1, 1]), read through its view's `byteStride`, zeros where it has no view,
/// its sparse values applied.
pub fn accessor(root: &Root, buffer: &[u8], index: usize) -> Vec<Vec<f64>> {
    try_accessor(root, buffer, index).unwrap_or_else(|e| panic!("{e}"))
}

/// [`accessor`], saying what is wrong instead of panicking.
pub fn try_accessor(root: &Root, buffer: &[u8], index: usize) -> Result<Vec<Vec<f64>>, String> {
    let a = root
        .accessors
        .get(index)
        .ok_or(format!("no accessor {index}"))?;
    let (Checked::Valid(ty), Checked::Valid(component)) = (&a.type_, &a.component_type) else {
        return Err(format!(
            "accessor {index}: an unknown type or component type"
        ));
    };
    let (width, count) = (ty.multiplicity(), a.count.0 as usize);
    let stored = Elements {
        width,
        component: component.0,
        normalized: a.normalized,
    };
    let mut out = match a.buffer_view {
        Some(v) => stored.read_view(root, buffer, v.value(), a.byte_offset, count)?,
        None => vec![vec![0.0; width]; count],
    };
    if let Some(sparse) = &a.sparse {
        let Checked::Valid(index_type) = &sparse.indices.component_type else {
            return Err(format!("accessor {index}: an unknown sparse index type"));
        };
        let n = sparse.count.0 as usize;
        let indices = Elements {
            width: 1,
            component: index_type.0,
            normalized: false,
        }
        .read_view(
            root,
            buffer,
            sparse.indices.buffer_view.value(),
            Some(sparse.indices.byte_offset),
            n,
        )?;
        let values = stored.read_view(
            root,
            buffer,
            sparse.values.buffer_view.value(),
            Some(sparse.values.byte_offset),
            n,
        )?;
        for (i, value) in indices.iter().zip(values) {
            let i = i[0] as usize;
            *out.get_mut(i).ok_or(format!(
                "accessor {index}: sparse index {i} beyond its count"
            ))? = value;
        }
    }
    Ok(out)
}

/// How an accessor's elements are stored.
struct Elements {
    /// Components per element.
    width: usize,
    component: ComponentType,
    normalized: bool,
}

impl Elements {
    /// `count` elements from buffer view `view`, the first `offset` bytes in, a view's
    /// `byteStride` apart (else packed).
    fn read_view(
        &self,
        root: &Root,
        buffer: &[u8],
        view: usize,
        offset: Option<USize64>,
        count: usize,
    ) -> Result<Vec<Vec<f64>>, String> {
        let view = root
            .buffer_views
            .get(view)
            .ok_or(format!("no buffer view {view}"))?;
        let start = view.byte_offset.map_or(0, |o| o.0 as usize);
        let bytes = buffer
            .get(start..start + view.byte_length.0 as usize)
            .ok_or(format!(
                "a buffer view beyond the buffer's {} bytes",
                buffer.len()
            ))?;
        let size = self.component.size();
        let stride = view.byte_stride.map_or(size * self.width, |s| s.0);
        let first = offset.map_or(0, |o| o.0 as usize);
        (0..count)
            .map(|i| {
                (0..self.width)
                    .map(|k| {
                        let at = first + i * stride + k * size;
                        bytes
                            .get(at..at + size)
                            .map(|b| self.number(b))
                            .ok_or(format!("byte {at} is beyond its buffer view"))
                    })
                    .collect()
            })
            .collect()
    }

    /// One component from its bytes.
    fn number(&self, b: &[u8]) -> f64 {
        let (value, most) = match self.component {
            ComponentType::F32 => (f64::from(f32::from_le_bytes([b[0], b[1], b[2], b[3]])), 1.0),
            ComponentType::U8 => (f64::from(b[0]), 255.0),
            ComponentType::U16 => (f64::from(u16::from_le_bytes([b[0], b[1]])), 65535.0),
            ComponentType::U32 => (
                f64::from(u32::from_le_bytes([b[0], b[1], b[2], b[3]])),
                4294967295.0,
            ),
            ComponentType::I8 => (f64::from(b[0] as i8), 127.0),
            ComponentType::I16 => (f64::from(i16::from_le_bytes([b[0], b[1]])), 32767.0),
        };
        if self.normalized && self.component != ComponentType::F32 {
            // glTF 2.0 §3.11: c / max, at least -1.
            (value / most).max(-1.0)
        } else {
            value
        }
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
