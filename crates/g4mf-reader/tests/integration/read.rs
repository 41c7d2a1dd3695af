//! Reading what the writer writes, in every container, and refusing hostile input safely.

use g4mf_reader::{
    Format, ReadErrorKind, ReadOptions, read_bytes, read_path, resolve_relative_uri,
};
use g4mf_writer::{Compression, ContainerOptions, TextBufferStorage, write_g4b, write_g4tf};
use glam::DVec3;
use std::path::Path;
use test_support::tiny::TinyCharacter;

/// One root bone and a triangle: vertex 1 weighted 1, vertex 0 weighted 0.5.
fn character() -> TinyCharacter {
    TinyCharacter::new("T")
        .bone("root", DVec3::ZERO, 1.0)
        .weights(&[(1, 0, 1.0), (0, 0, 0.5)])
}

fn check_skin(file: &g4mf_reader::G4mfFile) {
    let skin = file.document.meshes[0].skin.as_ref().unwrap();
    assert_eq!(file.read_u64(skin.vertices).unwrap(), [0, 1]);
    assert_eq!(file.read_u64(skin.groups).unwrap(), [0, 0]);
    assert_eq!(file.read_f64(skin.weights).unwrap(), [0.5, 1.0]);
    assert_eq!(
        file.read_f64(file.document.meshes[0].vertices).unwrap(),
        [0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0]
    );
}

#[test]
fn every_container_reads_back() {
    let built = character().build();
    let dir = tempfile::tempdir().unwrap();
    for compression in [Compression::None, Compression::Zstd(3)] {
        for compress_json in [false, true] {
            let options = ContainerOptions {
                compression,
                compress_json,
                pretty: false,
            };
            let mut doc = built.document.clone();
            let g4b = write_g4b(&mut doc, std::slice::from_ref(&built.buffer), options).unwrap();
            let file = read_bytes(&g4b, None, &ReadOptions::default()).unwrap();
            assert!(matches!(file.format, Format::Binary(_)));
            assert_eq!(file.buffers[0], built.buffer);
            check_skin(&file);
        }
        let options = ContainerOptions {
            compression,
            ..ContainerOptions::default()
        };
        let mut doc = built.document.clone();
        let text = write_g4tf(
            &mut doc,
            std::slice::from_ref(&built.buffer),
            &TextBufferStorage::Embedded,
            options,
        )
        .unwrap();
        check_skin(&read_bytes(&text.json, None, &ReadOptions::default()).unwrap());

        let mut doc = built.document.clone();
        let text = write_g4tf(
            &mut doc,
            std::slice::from_ref(&built.buffer),
            &TextBufferStorage::External("t.bin".into()),
            options,
        )
        .unwrap();
        std::fs::write(dir.path().join("t.g4tf"), &text.json).unwrap();
        std::fs::write(dir.path().join("t.bin"), &text.external[0].1).unwrap();
        let file = read_path(&dir.path().join("t.g4tf"), &ReadOptions::default()).unwrap();
        assert_eq!(file.format, Format::Text);
        check_skin(&file);
    }
}

fn plain_g4b() -> Vec<u8> {
    character().g4b_bytes()
}

fn container_error(bytes: &[u8]) -> String {
    let err = read_bytes(bytes, None, &ReadOptions::default()).unwrap_err();
    err.to_string()
}

#[test]
fn malformed_containers_are_located_errors() {
    let good = plain_g4b();
    assert!(container_error(&good[..20]).contains("byte 0: a .g4b file needs at least 32 bytes"));
    let mut bad = good.clone();
    bad[8..16].copy_from_slice(&(good.len() as u64 + 5).to_le_bytes());
    assert!(container_error(&bad).contains("byte 8: the header declares"));
    let mut bad = good.clone();
    bad[15] |= 0x80;
    assert!(container_error(&bad).contains("most significant bit"));
    // Truncated: the size field no longer matches, and fixing it exposes the short chunk.
    let mut bad = good[..good.len() - 10].to_vec();
    let len = bad.len() as u64;
    bad[8..16].copy_from_slice(&len.to_le_bytes());
    assert!(
        container_error(&bad).contains("chunk declares"),
        "{}",
        container_error(&bad)
    );
    // A JSON chunk one byte longer only swallows a padding space: still a valid file.
    let mut longer = good.clone();
    let json_len = u64::from_le_bytes(longer[24..32].try_into().unwrap());
    longer[24..32].copy_from_slice(&(json_len + 1).to_le_bytes());
    assert!(read_bytes(&longer, None, &ReadOptions::default()).is_ok());
    // A writer that forgot the padding: the BLOB header sits right after the JSON.
    let json_end = 32 + json_len as usize;
    let blob_at = json_end.div_ceil(16) * 16;
    assert_ne!(json_end, blob_at, "this fixture needs padding to remove");
    let mut unpadded = good[..json_end].to_vec();
    unpadded.extend_from_slice(&good[blob_at..]);
    let total = unpadded.len() as u64;
    unpadded[8..16].copy_from_slice(&total.to_le_bytes());
    let message = container_error(&unpadded);
    assert!(
        message.contains(&format!(
            "byte {json_end}: a chunk header is not on a 16-byte boundary"
        )),
        "{message}"
    );
    // A huge byteLength is refused by the limit before any allocation; a merely large one
    // fails because the chunk does not hold that many bytes.
    let err = read_bytes(
        &patch_byte_length(&good, 9_000_000_000_000_000_000),
        None,
        &ReadOptions::default(),
    )
    .unwrap_err();
    assert!(matches!(err.kind, ReadErrorKind::Limit { .. }), "{err}");
    let err = read_bytes(
        &patch_byte_length(&good, 1 << 20),
        None,
        &ReadOptions::default(),
    )
    .unwrap_err();
    assert!(
        err.to_string()
            .contains("/buffers/0: buffer 0 declares 1048576 bytes but only"),
        "{err}"
    );
}

/// Rewrites the first buffer's byteLength in a plain .g4b, keeping the container consistent.
fn patch_byte_length(file: &[u8], byte_length: u64) -> Vec<u8> {
    let json_len = u64::from_le_bytes(file[24..32].try_into().unwrap()) as usize;
    let json = std::str::from_utf8(&file[32..32 + json_len]).unwrap();
    let start =
        json.find("\"buffers\":[{\"byteLength\":").unwrap() + "\"buffers\":[{\"byteLength\":".len();
    let end = start + json[start..].find(',').unwrap();
    let new_json = format!("{}{}{}", &json[..start], byte_length, &json[end..]);
    let blob_at = (32 + json_len).div_ceil(16) * 16;
    let blob = &file[blob_at..];
    let mut out = file[..16].to_vec();
    out.extend_from_slice(b"JSON\0\0\0\0");
    out.extend_from_slice(&(new_json.len() as u64).to_le_bytes());
    out.extend_from_slice(new_json.as_bytes());
    while out.len() % 16 != 0 {
        out.push(b' ');
    }
    out.extend_from_slice(blob);
    let total = out.len() as u64;
    out[8..16].copy_from_slice(&total.to_le_bytes());
    out
}

#[test]
fn a_zstd_bomb_stops_at_the_declared_length() {
    // 64 MiB of zeros compresses to a few KiB; declare 1 KiB. data.md lets data run "a few
    // bytes" past byteLength: decoding stops 17 bytes past it and keeps exactly 1024.
    let bomb = zstd::bulk::compress(&vec![0u8; 64 << 20], 19).unwrap();
    assert!(bomb.len() < 64 << 10);
    let (data, extra) = g4mf_reader::decode_measured(&bomb, "Zstd", 1024, "buffer 0").unwrap();
    assert_eq!(data.len(), 1024);
    assert_eq!(extra, g4mf_reader::buffers::FEW_EXTRA_BYTES + 1);
    // Shorter than declared is an error (MUST NOT be smaller).
    let small = zstd::bulk::compress(&[7u8; 10], 3).unwrap();
    let (code, message) = g4mf_reader::decode_measured(&small, "Zstd", 11, "buffer 0").unwrap_err();
    assert_eq!(code.name(), "BUFFER_DATA_INVALID");
    assert!(
        message.contains("declares 11 bytes but only 10"),
        "{message}"
    );
    let (code, _) = g4mf_reader::decode_measured(b"not zstd", "Zstd", 8, "buffer 0").unwrap_err();
    assert_eq!(code.name(), "BUFFER_ZSTD_NO_MAGIC");
}

#[test]
fn uris_never_leave_the_folder_or_reach_the_network() {
    let folder = Path::new("/data/models");
    assert_eq!(
        resolve_relative_uri("a.bin", folder, false).unwrap(),
        folder.join("a.bin")
    );
    assert_eq!(
        resolve_relative_uri("sub/../a%20b.bin", folder, false).unwrap(),
        folder.join("sub/../a b.bin")
    );
    for uri in [
        "https://example.com/a.bin",
        "file:///etc/passwd",
        "C:\\x.bin",
        "/etc/passwd",
        "../a.bin",
        "sub/../../a.bin",
        "ftp:x",
        "..%2Fa.bin",
        "sub%2F..%2F..%2Fa.bin",
        "%2Fetc%2Fpasswd",
        "a%2",
        "a%zz.bin",
        "a%ff.bin",
    ] {
        assert!(resolve_relative_uri(uri, folder, false).is_err(), "{uri}");
    }
    // RFC 3986: `%23` is a `#` in the name, not the start of a fragment.
    assert_eq!(
        resolve_relative_uri("a%23b.png", folder, false).unwrap(),
        folder.join("a#b.png")
    );
    assert_eq!(
        resolve_relative_uri("d%C3%A9j%C3%A0%20vu.png", folder, false).unwrap(),
        folder.join("d\u{e9}j\u{e0} vu.png")
    );
    assert!(resolve_relative_uri("../a.bin", folder, true).is_ok());
    assert!(resolve_relative_uri("https://example.com/a.bin", folder, true).is_err());

    // Through the reader: a .g4tf whose buffer points outside its folder.
    let dir = tempfile::tempdir().unwrap();
    let json = r#"{"asset":{"dimension":3},"buffers":[{"byteLength":4,"uri":"../secret.bin"}]}"#;
    let path = dir.path().join("x.g4tf");
    std::fs::write(&path, json).unwrap();
    let err = read_path(&path, &ReadOptions::default()).unwrap_err();
    assert!(matches!(err.kind, ReadErrorKind::Refused(_)), "{err}");
    assert!(err.to_string().contains("/buffers/0/uri"), "{err}");
    let json = r#"{"asset":{"dimension":3},"buffers":[{"byteLength":4,"uri":"https://example.com/x.bin"}]}"#;
    std::fs::write(&path, json).unwrap();
    assert!(matches!(
        read_path(&path, &ReadOptions::default()).unwrap_err().kind,
        ReadErrorKind::Refused(_)
    ));
}

#[test]
fn gltf_is_refused_in_one_located_error_whatever_its_name() {
    let mut b = test_support::gltf::GltfBuilder::new();
    b.mesh(
        &[0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0],
        None,
        &[],
        None,
    );
    let read = ReadOptions::default();
    let refusal = |bytes: &[u8]| {
        let err = read_bytes(bytes, None, &read).unwrap_err();
        assert!(matches!(err.kind, ReadErrorKind::Gltf), "{err}");
        err.to_string()
    };
    assert_eq!(refusal(&b.glb()), "byte 0: the file is glTF 2.0, not G4MF");
    assert_eq!(
        refusal(&b.gltf_embedded()),
        "/asset: the file is glTF 2.0, not G4MF"
    );
    // Through a path: the content decides, whatever the extension; the extension when the
    // content cannot (then the file as a whole is what is refused).
    let dir = tempfile::tempdir().unwrap();
    for (name, bytes, located) in [
        ("g.g4b", b.glb(), "g.g4b: byte 0: "),
        ("j.json", b.gltf_embedded(), "j.json: /asset: "),
        ("broken.gltf", b"{\"asset\": [".to_vec(), "broken.gltf: "),
    ] {
        let path = dir.path().join(name);
        std::fs::write(&path, bytes).unwrap();
        let err = read_path(&path, &read).unwrap_err();
        assert!(matches!(err.kind, ReadErrorKind::Gltf), "{err}");
        let text = err.to_string();
        assert!(
            text.ends_with(&format!("{located}the file is glTF 2.0, not G4MF")),
            "{text}"
        );
    }
    // A G4MF file named as glTF is read.
    let built = character().build();
    let mut doc = built.document.clone();
    let g4b = write_g4b(
        &mut doc,
        std::slice::from_ref(&built.buffer),
        ContainerOptions::default(),
    )
    .unwrap();
    let path = dir.path().join("named.glb");
    std::fs::write(&path, g4b).unwrap();
    check_skin(&read_path(&path, &read).unwrap());
}
