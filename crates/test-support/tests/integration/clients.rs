//! The external-client harness judged on tiny hand-written glTF files: what the Khronos
//! glTF-Validator and three.js's GLTFLoader report through `test_support::clients`, and the
//! skip line (or failure) a test gets without them.

use std::path::{Path, PathBuf};
use std::process::Command;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as BASE64;
use serde_json::{Value, json};
use test_support::clients::{self, Severity, render};

const FLOAT: u32 = 5126;
const UNSIGNED_BYTE: u32 = 5121;
const UNSIGNED_SHORT: u32 = 5123;
const ARRAY_BUFFER: u32 = 34962;
const ELEMENT_ARRAY_BUFFER: u32 = 34963;

/// One buffer's bytes with its views and accessors, built in order.
#[derive(Default)]
struct Buffer {
    bytes: Vec<u8>,
    views: Vec<Value>,
    accessors: Vec<Value>,
}

impl Buffer {
    /// Appends `bytes` as a buffer view (4-byte aligned) and returns its index.
    fn view(&mut self, bytes: &[u8], target: Option<u32>) -> usize {
        while self.bytes.len() % 4 != 0 {
            self.bytes.push(0);
        }
        let mut view =
            json!({"buffer": 0, "byteOffset": self.bytes.len(), "byteLength": bytes.len()});
        if let Some(target) = target {
            view["target"] = json!(target);
        }
        self.bytes.extend_from_slice(bytes);
        self.views.push(view);
        self.views.len() - 1
    }

    /// Appends an accessor (a view of its own) and returns its index; `extra` is merged in.
    fn accessor(
        &mut self,
        bytes: &[u8],
        target: Option<u32>,
        component: u32,
        count: usize,
        kind: &str,
        extra: Value,
    ) -> usize {
        let view = self.view(bytes, target);
        let mut accessor =
            json!({"bufferView": view, "componentType": component, "count": count, "type": kind});
        if let (Some(accessor), Value::Object(extra)) = (accessor.as_object_mut(), extra) {
            accessor.extend(extra);
        }
        self.accessors.push(accessor);
        self.accessors.len() - 1
    }

    fn floats(&mut self, values: &[f32], count: usize, kind: &str, extra: Value) -> usize {
        let bytes: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
        let target = (kind != "MAT4").then_some(ARRAY_BUFFER);
        self.accessor(&bytes, target, FLOAT, count, kind, extra)
    }

    fn indices(&mut self, values: &[u16]) -> usize {
        let bytes: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
        let target = Some(ELEMENT_ARRAY_BUFFER);
        self.accessor(
            &bytes,
            target,
            UNSIGNED_SHORT,
            values.len(),
            "SCALAR",
            json!({}),
        )
    }

    /// Fills in `bufferViews`, `accessors` and `buffers` (with `uri`, or none for a GLB).
    fn finish(&self, gltf: &mut Value, uri: Option<String>) {
        gltf["bufferViews"] = json!(self.views);
        gltf["accessors"] = json!(self.accessors);
        let mut buffer = json!({"byteLength": self.bytes.len()});
        if let Some(uri) = uri {
            buffer["uri"] = json!(uri);
        }
        gltf["buffers"] = json!([buffer]);
    }

    fn data_uri(&self) -> String {
        format!(
            "data:application/octet-stream;base64,{}",
            BASE64.encode(&self.bytes)
        )
    }
}

const TRIANGLE: [f32; 9] = [0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0];

/// A single red triangle: positions and indices in `buffer`, one node, one material.
fn triangle(buffer: &mut Buffer) -> Value {
    triangle_with_indices(buffer, &[0, 1, 2])
}

/// [`triangle`] with other `indices`.
fn triangle_with_indices(buffer: &mut Buffer, indices: &[u16]) -> Value {
    let position = buffer.floats(
        &TRIANGLE,
        3,
        "VEC3",
        json!({"min": [0.0, 0.0, 0.0], "max": [1.0, 1.0, 0.0]}),
    );
    let indices = buffer.indices(indices);
    json!({
        "asset": {"version": "2.0", "generator": "test-support clients test"},
        "scene": 0,
        "scenes": [{"nodes": [0]}],
        "nodes": [{"name": "triangle", "mesh": 0}],
        "meshes": [{"name": "triangle", "primitives": [
            {"attributes": {"POSITION": position}, "indices": indices, "material": 0}
        ]}],
        "materials": [{"name": "red", "pbrMetallicRoughness": {"baseColorFactor": [1.0, 0.0, 0.0, 1.0]}}],
    })
}

fn write_json(dir: &Path, name: &str, gltf: &Value) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, serde_json::to_vec_pretty(gltf).expect("JSON")).expect("written");
    path
}

/// The triangle as a `.gltf` with its buffer in a data URI.
fn embedded_triangle(dir: &Path, name: &str) -> PathBuf {
    let mut buffer = Buffer::default();
    let mut gltf = triangle(&mut buffer);
    buffer.finish(&mut gltf, Some(buffer.data_uri()));
    write_json(dir, name, &gltf)
}

/// A `width` x `height` PNG (RGB, one colour) made by hand, its pixels in one stored
/// (uncompressed) deflate block.
fn png(width: u32, height: u32) -> Vec<u8> {
    fn crc32(bytes: &[u8]) -> u32 {
        let mut crc = !0u32;
        for &b in bytes {
            crc ^= u32::from(b);
            for _ in 0..8 {
                crc = if crc & 1 != 0 {
                    (crc >> 1) ^ 0xedb8_8320
                } else {
                    crc >> 1
                };
            }
        }
        !crc
    }
    fn chunk(out: &mut Vec<u8>, kind: &[u8; 4], data: &[u8]) {
        out.extend_from_slice(&u32::try_from(data.len()).expect("small").to_be_bytes());
        let start = out.len();
        out.extend_from_slice(kind);
        out.extend_from_slice(data);
        let crc = crc32(&out[start..]);
        out.extend_from_slice(&crc.to_be_bytes());
    }
    let raw: Vec<u8> = (0..height)
        .flat_map(|_| std::iter::once(0).chain((0..width).flat_map(|_| [200, 120, 90])))
        .collect();
    let (mut a, mut b) = (1u32, 0u32);
    for &byte in &raw {
        a = (a + u32::from(byte)) % 65521;
        b = (b + a) % 65521;
    }
    let len = u16::try_from(raw.len()).expect("small");
    let mut zlib = vec![0x78, 0x01, 0x01];
    zlib.extend_from_slice(&len.to_le_bytes());
    zlib.extend_from_slice(&(!len).to_le_bytes());
    zlib.extend_from_slice(&raw);
    zlib.extend_from_slice(&((b << 16) | a).to_be_bytes());
    let mut header = Vec::new();
    header.extend_from_slice(&width.to_be_bytes());
    header.extend_from_slice(&height.to_be_bytes());
    header.extend_from_slice(&[8, 2, 0, 0, 0]);
    let mut out = b"\x89PNG\r\n\x1a\n".to_vec();
    chunk(&mut out, b"IHDR", &header);
    chunk(&mut out, b"IDAT", &zlib);
    chunk(&mut out, b"IEND", &[]);
    out
}

/// A skinned triangle (joints `root` and its child `tip`, inverse bind matrices, one vertex
/// on both), with a morph target named `smile` in `mesh.extras.targetNames` and a textured
/// material; the image is in a buffer view when `image_uri` is `None`.
fn skinned_triangle(buffer: &mut Buffer, image_uri: Option<&str>) -> Value {
    let position = buffer.floats(
        &TRIANGLE,
        3,
        "VEC3",
        json!({"min": [0.0, 0.0, 0.0], "max": [1.0, 1.0, 0.0]}),
    );
    let uv = buffer.floats(&[0.0, 0.0, 1.0, 0.0, 0.0, 1.0], 3, "VEC2", json!({}));
    let joints = buffer.accessor(
        &[0, 0, 0, 0, 0, 1, 0, 0, 1, 0, 0, 0],
        Some(ARRAY_BUFFER),
        UNSIGNED_BYTE,
        3,
        "VEC4",
        json!({}),
    );
    let weights = buffer.floats(
        &[1.0, 0.0, 0.0, 0.0, 0.5, 0.5, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0],
        3,
        "VEC4",
        json!({}),
    );
    let mut matrices = [0.0f32; 32];
    for m in 0..2 {
        for i in 0..4 {
            matrices[m * 16 + i * 5] = 1.0;
        }
    }
    matrices[16 + 13] = -1.0; // `tip` stands 1 m up: its inverse bind moves down by 1.
    let inverse_binds = buffer.floats(&matrices, 2, "MAT4", json!({}));
    let smile = buffer.floats(
        &[0.0, 0.0, 0.0, 0.0, 0.0, 0.25, 0.0, 0.0, 0.0],
        3,
        "VEC3",
        json!({"min": [0.0, 0.0, 0.0], "max": [0.0, 0.0, 0.25]}),
    );
    let image = match image_uri {
        Some(uri) => json!({"uri": uri}),
        None => json!({"bufferView": buffer.view(&png(4, 2), None), "mimeType": "image/png"}),
    };
    json!({
        "asset": {"version": "2.0"},
        "scene": 0,
        "scenes": [{"nodes": [0, 1]}],
        "nodes": [
            {"name": "body", "mesh": 0, "skin": 0},
            {"name": "root", "children": [2]},
            {"name": "tip", "translation": [0.0, 1.0, 0.0]},
        ],
        "skins": [{"joints": [1, 2], "inverseBindMatrices": inverse_binds, "skeleton": 1}],
        "meshes": [{
            "name": "body",
            "primitives": [{
                "attributes": {"POSITION": position, "TEXCOORD_0": uv, "JOINTS_0": joints, "WEIGHTS_0": weights},
                "targets": [{"POSITION": smile}],
                "material": 0,
            }],
            "weights": [0.0],
            "extras": {"targetNames": ["smile"]},
        }],
        "materials": [{"name": "skin", "pbrMetallicRoughness": {"baseColorTexture": {"index": 0}}}],
        "textures": [{"source": 0}],
        "images": [image],
    })
}

/// `gltf` and `bin` as a GLB file.
fn write_glb(path: &Path, gltf: &Value, bin: &[u8]) {
    let mut json = serde_json::to_vec(gltf).expect("JSON");
    while json.len() % 4 != 0 {
        json.push(b' ');
    }
    let mut bin = bin.to_vec();
    while bin.len() % 4 != 0 {
        bin.push(0);
    }
    let u32_of = |n: usize| u32::try_from(n).expect("small").to_le_bytes();
    let mut out = Vec::new();
    out.extend_from_slice(b"glTF");
    out.extend_from_slice(&2u32.to_le_bytes());
    out.extend_from_slice(&u32_of(12 + 8 + json.len() + 8 + bin.len()));
    out.extend_from_slice(&u32_of(json.len()));
    out.extend_from_slice(b"JSON");
    out.extend_from_slice(&json);
    out.extend_from_slice(&u32_of(bin.len()));
    out.extend_from_slice(b"BIN\0");
    out.extend_from_slice(&bin);
    std::fs::write(path, out).expect("written");
}

#[test]
fn a_valid_triangle_passes_the_validator_and_loads_in_three() {
    let name = "a_valid_triangle_passes_the_validator_and_loads_in_three";
    let dir = tempfile::tempdir().expect("temp dir");
    let file = embedded_triangle(dir.path(), "triangle.gltf");
    let Some(reports) = clients::gltf_validator(name, &[&file]) else {
        return;
    };
    clients::assert_no_validator_issues(&reports);
    let report = &reports[0];
    assert_eq!(report.file, file.display().to_string());
    assert_eq!((report.num_errors, report.num_warnings), (0, 0));
    assert_eq!(report.mime_type.as_deref(), Some("model/gltf+json"));
    let info = report.info.as_ref().expect("an info section");
    assert_eq!(info.generator.as_deref(), Some("test-support clients test"));
    assert_eq!(
        (
            info.draw_call_count,
            info.total_vertex_count,
            info.total_triangle_count
        ),
        (1, 3, 1)
    );
    assert_eq!(
        (info.material_count, info.has_skins, info.has_morph_targets),
        (1, false, false)
    );
    assert_eq!(info.resources.len(), 1);
    assert_eq!(info.resources[0].storage, "data-uri");

    let Some(loaded) = clients::three_load(name, &[&file]) else {
        return;
    };
    clients::assert_no_three_errors(&loaded);
    let three = &loaded[0];
    assert_eq!((three.scenes, three.nodes, three.bones), (1, 1, 0));
    assert_eq!(three.meshes.len(), 1, "{three:#?}");
    assert!(three.skinned_meshes.is_empty());
    let mesh = &three.meshes[0];
    assert_eq!(
        (mesh.name.as_str(), mesh.vertex_count, mesh.triangle_count),
        ("triangle", 3, 1)
    );
    assert_eq!(mesh.materials, ["red"]);
    let material = &three.materials[0];
    assert_eq!(
        (material.name.as_str(), material.kind.as_str()),
        ("red", "MeshStandardMaterial")
    );
    assert_eq!(material.color, Some([1.0, 0.0, 0.0]));
    assert!(!material.map && !material.transparent);
    assert_eq!(material.side, "front");
}

#[test]
fn broken_files_get_the_validators_error_codes() {
    let name = "broken_files_get_the_validators_error_codes";
    let dir = tempfile::tempdir().expect("temp dir");
    // An index past the three vertices.
    let mut buffer = Buffer::default();
    let mut gltf = triangle_with_indices(&mut buffer, &[0, 1, 7]);
    buffer.finish(&mut gltf, Some(buffer.data_uri()));
    let out_of_range = write_json(dir.path(), "index_out_of_range.gltf", &gltf);
    // An accessor of four vertices over a view of three.
    let mut buffer = Buffer::default();
    let mut gltf = triangle(&mut buffer);
    buffer.accessors[0]["count"] = json!(4);
    buffer.finish(&mut gltf, Some(buffer.data_uri()));
    let too_long = write_json(dir.path(), "accessor_too_long.gltf", &gltf);

    let Some(reports) = clients::gltf_validator(name, &[&out_of_range, &too_long]) else {
        return;
    };
    assert_eq!(reports[0].file, out_of_range.display().to_string());
    assert!(
        reports[0]
            .codes(Severity::Error)
            .contains(&"ACCESSOR_INDEX_OOB"),
        "{:#?}",
        reports[0].messages
    );
    let oob = reports[0]
        .messages
        .iter()
        .find(|m| m.code == "ACCESSOR_INDEX_OOB")
        .expect("found above");
    assert_eq!(
        oob.pointer.as_deref(),
        Some("/meshes/0/primitives/0/indices")
    );
    assert!(
        reports[1]
            .codes(Severity::Error)
            .contains(&"ACCESSOR_TOO_LONG"),
        "{:#?}",
        reports[1].messages
    );
    assert!(reports.iter().all(|r| r.num_errors >= 1));
    let panic = std::panic::catch_unwind(|| clients::assert_no_validator_issues(&reports))
        .expect_err("errors make the assertion fail");
    let text = panic.downcast_ref::<String>().expect("a formatted message");
    assert!(
        text.contains("index_out_of_range.gltf: Error ACCESSOR_INDEX_OOB at \"/meshes/0/primitives/0/indices\"")
            && text.contains("ACCESSOR_TOO_LONG"),
        "{text}"
    );
}

#[test]
fn external_buffers_and_images_are_read_from_the_files_folder_only() {
    let name = "external_buffers_and_images_are_read_from_the_files_folder_only";
    let dir = tempfile::tempdir().expect("temp dir");
    let inner = dir.path().join("model");
    std::fs::create_dir(&inner).expect("made");
    let mut buffer = Buffer::default();
    let mut gltf = skinned_triangle(&mut buffer, Some("skin%20colour.png"));
    buffer.finish(&mut gltf, Some("tri%20angle.bin".into()));
    std::fs::write(inner.join("tri angle.bin"), &buffer.bytes).expect("written");
    std::fs::write(inner.join("skin colour.png"), png(4, 2)).expect("written");
    let external = write_json(&inner, "external.gltf", &gltf);
    // The same buffer one folder up, named with `..`: refused.
    std::fs::write(dir.path().join("outside.bin"), &buffer.bytes).expect("written");
    gltf["buffers"][0]["uri"] = json!("../outside.bin");
    gltf["images"][0]["uri"] = json!("/etc/hostname");
    let escaping = write_json(&inner, "escaping.gltf", &gltf);

    let Some(reports) = clients::gltf_validator(name, &[&external, &escaping]) else {
        return;
    };
    clients::assert_no_validator_issues(&reports[..1]);
    let info = reports[0].info.as_ref().expect("an info section");
    let storages: Vec<(&str, Option<&str>)> = info
        .resources
        .iter()
        .map(|r| (r.storage.as_str(), r.uri.as_deref()))
        .collect();
    assert_eq!(
        storages,
        [
            ("external", Some("tri%20angle.bin")),
            ("external", Some("skin%20colour.png"))
        ]
    );
    assert_eq!(
        info.resources[1].image.as_ref().expect("decoded")["width"],
        4
    );
    let io_errors: Vec<_> = reports[1]
        .messages
        .iter()
        .filter(|m| m.code == "IO_ERROR")
        .map(|m| (m.pointer.as_deref(), m.message.as_str()))
        .collect();
    assert!(
        io_errors
            .iter()
            .any(|(pointer, message)| *pointer == Some("/buffers/0/uri")
                && message.contains("leaves the file's folder"))
            && io_errors
                .iter()
                .any(|(pointer, message)| *pointer == Some("/images/0/uri")
                    && message.contains("not a relative URI")),
        "{:#?}",
        reports[1].messages
    );

    let Some(loaded) = clients::three_load(name, &[&external, &escaping]) else {
        return;
    };
    clients::assert_no_three_errors(&loaded[..1]);
    assert_eq!(loaded[0].skinned_meshes.len(), 1);
    assert_eq!(
        loaded[0].images,
        [clients::ThreeImage {
            width: Some(4),
            height: Some(2)
        }]
    );
    assert!(loaded[0].materials[0].map);
    let errors = &loaded[1].errors;
    assert!(
        errors
            .iter()
            .any(|e| e == "refused \"../outside.bin\": leaves the file's folder")
            && errors
                .iter()
                .any(|e| e == "refused \"/etc/hostname\": not a relative URI"),
        "{errors:#?}"
    );
    assert_eq!(loaded[1].scenes, 0, "a missing buffer fails the whole load");
}

#[test]
fn a_skinned_triangle_with_a_named_morph_target_loads_with_its_bones() {
    let name = "a_skinned_triangle_with_a_named_morph_target_loads_with_its_bones";
    let dir = tempfile::tempdir().expect("temp dir");
    let mut buffer = Buffer::default();
    let mut gltf = skinned_triangle(&mut buffer, None);
    buffer.finish(&mut gltf, None);
    let glb = dir.path().join("skinned.glb");
    write_glb(&glb, &gltf, &buffer.bytes);

    let Some(reports) = clients::gltf_validator(name, &[&glb]) else {
        return;
    };
    clients::assert_no_validator_issues(&reports);
    let info = reports[0].info.as_ref().expect("an info section");
    assert_eq!(reports[0].mime_type.as_deref(), Some("model/gltf-binary"));
    assert!(info.has_skins && info.has_morph_targets && info.has_textures);
    assert_eq!((info.max_influences, info.max_uvs), (4, 1));

    let Some(loaded) = clients::three_load(name, &[&glb]) else {
        return;
    };
    clients::assert_no_three_errors(&loaded);
    let three = &loaded[0];
    assert!(three.meshes.is_empty());
    assert_eq!((three.nodes, three.bones, three.textures), (3, 2, 1));
    let body = three.skinned_mesh("body").expect("the skinned mesh");
    assert_eq!(body.bones, [Some("root".into()), Some("tip".into())]);
    assert_eq!(
        (body.joints, body.bone_inverses, body.unresolved_bones),
        (Some(2), 2, 0)
    );
    assert_eq!(body.mesh.morph_targets, [Some("smile".into())]);
    assert_eq!(
        (body.influences_per_vertex, body.weights_per_vertex),
        (4, 4)
    );
    assert!(!body.second_influence_set);
    assert_eq!(body.mesh.materials, ["skin"]);
    assert_eq!(
        body.mesh.attributes,
        ["position", "uv", "skinIndex", "skinWeight"]
    );
    assert_eq!(
        three.images,
        [clients::ThreeImage {
            width: Some(4),
            height: Some(2)
        }]
    );
}

/// Run only by [`without_node_a_client_test_skips_loudly_or_fails_when_required`].
#[test]
#[ignore = "a probe run in a child process with a chosen environment"]
fn probe_without_node() {
    let dir = tempfile::tempdir().expect("temp dir");
    let file = embedded_triangle(dir.path(), "triangle.gltf");
    assert!(clients::gltf_validator("probe_without_node", &[&file]).is_none());
}

fn run_probe(required: bool) -> std::process::Output {
    let mut command = Command::new(std::env::current_exe().expect("test binary"));
    command
        .args(["--ignored", "--exact", "clients::probe_without_node"])
        .env("PATH", "/nonexistent")
        .env_remove("CI")
        .env_remove(test_support::MPFB_DATA_REQUIRED_ENV);
    if required {
        command.env(test_support::MPFB_DATA_REQUIRED_ENV, "1");
    }
    command.output().expect("the probe runs")
}

#[test]
fn without_node_a_client_test_skips_loudly_or_fails_when_required() {
    let skipped = run_probe(false);
    let text = String::from_utf8_lossy(&skipped.stderr);
    assert!(skipped.status.success(), "{text}");
    assert!(
        text.contains("SKIPPED probe_without_node: no external glTF clients: no `node` on PATH")
            && text.contains("`npm ci --prefix clients`"),
        "the skip line must pass the harness's capture: {text}"
    );
    let failed = run_probe(true);
    let out = String::from_utf8_lossy(&failed.stdout);
    assert!(!failed.status.success(), "{out}");
    assert!(
        out.contains("no `node` on PATH")
            && out.contains("MPFB_DATA_REQUIRED or CI says it is required"),
        "{out}"
    );
}

/// A 1 m square facing +Z (one-sided), red, as a GLB.
fn red_quad(path: &Path) {
    let mut buffer = Buffer::default();
    let corners = [
        -0.5, -0.5, 0.0, 0.5, -0.5, 0.0, 0.5, 0.5, 0.0, -0.5, 0.5, 0.0,
    ];
    let position = buffer.floats(
        &corners,
        4,
        "VEC3",
        json!({"min": [-0.5, -0.5, 0.0], "max": [0.5, 0.5, 0.0]}),
    );
    let normal = buffer.floats(&[0.0, 0.0, 1.0].repeat(4), 4, "VEC3", json!({}));
    let indices = buffer.indices(&[0, 1, 2, 0, 2, 3]);
    let mut gltf = json!({
        "asset": {"version": "2.0", "generator": "test-support clients test"},
        "scene": 0,
        "scenes": [{"nodes": [0]}],
        "nodes": [{"name": "quad", "mesh": 0}],
        "meshes": [{"name": "quad", "primitives": [
            {"attributes": {"POSITION": position, "NORMAL": normal}, "indices": indices, "material": 0}
        ]}],
        "materials": [{"name": "red", "pbrMetallicRoughness": {
            "baseColorFactor": [0.8, 0.05, 0.05, 1.0], "metallicFactor": 0.0}}],
    });
    buffer.finish(&mut gltf, None);
    write_glb(path, &gltf, &buffer.bytes);
}

/// A PNG's width, height and RGBA pixels (8-bit RGB or RGBA).
fn read_png(path: &Path) -> (u32, u32, Vec<[u8; 4]>) {
    let bytes = std::fs::read(path).expect("the picture is written");
    let decoder = png::Decoder::new(std::io::Cursor::new(bytes));
    let mut reader = decoder.read_info().expect("a PNG");
    let mut data = vec![0; reader.output_buffer_size().expect("a size")];
    let frame = reader.next_frame(&mut data).expect("its pixels");
    let pixels = match frame.color_type {
        png::ColorType::Rgba => data[..frame.buffer_size()]
            .chunks_exact(4)
            .map(|p| [p[0], p[1], p[2], p[3]])
            .collect(),
        png::ColorType::Rgb => data[..frame.buffer_size()]
            .chunks_exact(3)
            .map(|p| [p[0], p[1], p[2], 255])
            .collect(),
        other => panic!("an unexpected PNG colour type {other:?}"),
    };
    (frame.width, frame.height, pixels)
}

#[test]
fn three_in_chromium_draws_a_red_quad_from_the_front_and_culls_its_back() {
    let name = "three_in_chromium_draws_a_red_quad_from_the_front_and_culls_its_back";
    let dir = tempfile::tempdir().expect("temp dir");
    let quad = dir.path().join("quad.glb");
    red_quad(&quad);
    let picture = dir.path().join("quad.png");
    let background = [40, 90, 160];
    let options = render::RenderOptions {
        views: vec![render::View::Front, render::View::Back],
        width: 64,
        height: 48,
        background: Some(background),
        timeout_seconds: None,
    };
    let Some(report) = render::render(name, &[&quad], &picture, &options) else {
        return;
    };
    let file = &report.files[0];
    assert!(file.errors.is_empty(), "{:?}", file.errors);
    assert!(
        file.loaded && file.meshes == 1 && file.triangles == 2,
        "{file:?}"
    );
    let bounds = file.bounds.expect("a box");
    assert_eq!(
        (bounds.min, bounds.max),
        ([-0.5, -0.5, 0.0], [0.5, 0.5, 0.0])
    );
    assert_eq!((report.width, report.height), (128, 48));

    let (width, height, pixels) = read_png(&picture);
    assert_eq!((width, height), (128, 48));
    let at = |x: u32, y: u32| pixels[(y * width + x) as usize];
    let is_background =
        |p: [u8; 4]| p[3] == 255 && p.iter().zip(background).all(|(a, b)| a.abs_diff(b) <= 1);
    // The front tile: the quad's red in the middle, the background in its corners.
    let centre = at(32, 24);
    assert!(
        centre[0] > 120 && centre[1] < centre[0] / 3 && centre[2] < centre[0] / 3,
        "the front view's centre is not the quad's red: {centre:?}"
    );
    for (x, y) in [(1, 1), (62, 1), (1, 46), (62, 46)] {
        assert!(is_background(at(x, y)), "({x}, {y}) is {:?}", at(x, y));
    }
    // The back tile: a one-sided face seen from behind is not drawn.
    assert!(
        is_background(at(96, 24)),
        "the back view's centre is {:?}",
        at(96, 24)
    );
}

/// Run only by [`without_chromium_a_render_test_skips_loudly`].
#[test]
#[ignore = "a probe run in a child process with a chosen environment"]
fn probe_without_chromium() {
    let dir = tempfile::tempdir().expect("temp dir");
    let quad = dir.path().join("quad.glb");
    red_quad(&quad);
    let picture = dir.path().join("quad.png");
    let options = render::RenderOptions::default();
    assert!(render::render("probe_without_chromium", &[&quad], &picture, &options).is_none());
}

#[test]
fn without_chromium_a_render_test_skips_loudly() {
    let output = Command::new(std::env::current_exe().expect("test binary"))
        .args(["--ignored", "--exact", "clients::probe_without_chromium"])
        .env(render::CHROMIUM_ENV, "/nonexistent/chromium")
        .env_remove("CI")
        .env_remove(test_support::MPFB_DATA_REQUIRED_ENV)
        .output()
        .expect("the probe runs");
    let text = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{text}");
    assert!(
        text.contains(
            "SKIPPED probe_without_chromium: no renderer: /nonexistent/chromium (CHROMIUM) is not an executable chromium"
        ),
        "{text}"
    );
}
