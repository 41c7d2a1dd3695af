//! Images and their URIs as `validate` reads them (issue 41): relative URIs percent-decoded
//! (RFC 3986) and opened inside the file's folder, images decoded within a bound, MIME types
//! against magic bytes, samplers as objects, texture coordinates finite. Each file is one of the
//! validator's corpus fixtures, copied into a folder of its own.

use super::*;

/// `validate FILE` on a copy of fixture `name` in `dir`: its exit code and stdout.
fn validate_fixture(dir: &Path, name: &str) -> (Option<i32>, String) {
    let from = test_support::workspace_root().join(format!("fixtures/validator/{name}.g4tf"));
    let to = dir.join(format!("{name}.g4tf"));
    std::fs::copy(&from, &to).unwrap();
    let output = cli().arg("validate").arg(&to).output().unwrap();
    (
        output.status.code(),
        String::from_utf8_lossy(&output.stdout).into_owned(),
    )
}

fn png_4x4() -> Vec<u8> {
    let mut bytes = Vec::new();
    image::RgbImage::from_pixel(4, 4, image::Rgb([128, 128, 128]))
        .write_to(
            &mut std::io::Cursor::new(&mut bytes),
            image::ImageFormat::Png,
        )
        .unwrap();
    bytes
}

#[test]
fn image_uris_are_percent_decoded_and_opened_inside_the_folder() {
    let dir = tempfile::tempdir().unwrap();
    // `no%23such.png` names `no#such.png`: absent, an error naming the URI.
    let (code, out) = validate_fixture(dir.path(), "FILE_URI_UNREADABLE");
    assert_eq!(code, Some(1), "{out}");
    assert!(out.contains("FILE_URI_UNREADABLE at /files/0/uri"), "{out}");
    assert!(out.contains("no%23such.png"), "{out}");
    // Beside the file under its decoded name, it is read and decoded: valid, no findings.
    std::fs::write(dir.path().join("no#such.png"), png_4x4()).unwrap();
    let (code, out) = validate_fixture(dir.path(), "FILE_URI_UNREADABLE");
    assert_eq!(code, Some(0), "{out}");
    assert!(out.contains("valid (0 errors, 0 warnings"), "{out}");
    // A truncated image there is not valid.
    let png = png_4x4();
    std::fs::write(dir.path().join("no#such.png"), &png[..png.len() - 20]).unwrap();
    let (code, out) = validate_fixture(dir.path(), "FILE_URI_UNREADABLE");
    assert_eq!(code, Some(1), "{out}");
    assert!(
        out.contains("FILE_IMAGE_UNDECODABLE at /files/0/uri"),
        "{out}"
    );
    // `..%2F` decodes to `../`: the file there is never opened.
    std::fs::create_dir(dir.path().join("inner")).unwrap();
    std::fs::write(dir.path().join("outside.png"), png_4x4()).unwrap();
    let (_, out) = validate_fixture(&dir.path().join("inner"), "FILE_URI_NOT_READ");
    assert!(
        out.contains("FILE_URI_NOT_READ at /files/0/uri: refusing to follow `..%2Foutside.png`"),
        "{out}"
    );
}

#[test]
fn broken_images_samplers_and_texture_coordinates_are_reported() {
    let dir = tempfile::tempdir().unwrap();
    for (fixture, expected) in [
        (
            "FILE_IMAGE_UNDECODABLE",
            "error FILE_IMAGE_UNDECODABLE at /files/0/bufferView",
        ),
        (
            "FILE_IMAGE_UNDECODABLE_huge_header",
            "it declares 100000x100000 pixels, more than its 65 bytes can hold",
        ),
        ("FILE_IMAGE_TOO_LARGE", "warning FILE_IMAGE_TOO_LARGE"),
        (
            "FILE_MIME_TYPE_MISMATCH",
            "the file says `image/jpeg` but its bytes are image/png",
        ),
        (
            "TEXTURE_SAMPLER_INVALID",
            "error TEXTURE_SAMPLER_INVALID at /textures/0/sampler",
        ),
        ("TEXTURE_MAP_NOT_FINITE", "error TEXTURE_MAP_NOT_FINITE"),
    ] {
        let (code, out) = validate_fixture(dir.path(), fixture);
        assert!(out.contains(expected), "{fixture}: {out}");
        let warning_only = fixture == "FILE_IMAGE_TOO_LARGE";
        assert_eq!(code, Some(i32::from(!warning_only)), "{fixture}: {out}");
    }
}
