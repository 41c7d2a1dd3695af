//! Pictures never draw white where a texture's image or placeholder should be (issue 41):
//! `preview` of a `.g4tf` draws the image its relative URI names beside it, and its
//! placeholder colour when that image is gone or the URI leaves the folder; `preview` of the
//! glTF made from it does the same from the placeholder our writer keeps in the texture's
//! extras; a batch's thumbnails and contact sheet draw a skin's image, or its placeholder when
//! the image is missing. Each checks the colour of the pixels drawn.

use super::{cli, stderr};
use character_spec::{ImageSpec, TextureSpec};
use glam::DVec3;
use image::RgbaImage;
use std::path::Path;

/// The image's colour (sRGB): blue, far from any skin colour or white.
const BLUE: [u8; 4] = [30, 60, 220, 255];

/// A 4 x 4 PNG of [`BLUE`].
fn blue_png() -> Vec<u8> {
    g4mf_preview::png_bytes(&RgbaImage::from_pixel(4, 4, image::Rgba(BLUE)))
}

/// How a drawn pixel reads: blue (the image), skin (a placeholder: red above blue), white.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Hue {
    Blue,
    Skin,
    White,
    Other,
}

fn hue([r, g, b, _]: [u8; 4]) -> Hue {
    let (r, g, b) = (i32::from(r), i32::from(g), i32::from(b));
    if r > 225 && g > 225 && b > 225 {
        Hue::White
    } else if b > r + 40 && b > g + 20 {
        Hue::Blue
    } else if r > b + 30 && r >= g {
        Hue::Skin
    } else {
        Hue::Other
    }
}

/// The share of `expected` among the pixels of `image` (in `x0..x0 + side`, `y0..y0 + side`)
/// that are not the background (its top-left pixel), and that count.
fn share(image: &RgbaImage, (x0, y0, side): (u32, u32, u32), expected: Hue) -> (f64, usize) {
    let background = *image.get_pixel(x0, y0);
    let drawn: Vec<Hue> = (y0..y0 + side)
        .flat_map(|y| (x0..x0 + side).map(move |x| (x, y)))
        .map(|(x, y)| *image.get_pixel(x, y))
        .filter(|p| *p != background)
        .map(|p| hue(p.0))
        .collect();
    let hits = drawn.iter().filter(|h| **h == expected).count();
    (hits as f64 / drawn.len().max(1) as f64, drawn.len())
}

/// Asserts that most of what is drawn in `region` of `image` is `expected` (`what` names it).
fn mostly(image: &RgbaImage, region: (u32, u32, u32), expected: Hue, what: &str) {
    let (share, drawn) = share(image, region, expected);
    assert!(drawn > 50, "{what}: only {drawn} pixels drawn");
    assert!(
        share > 0.6,
        "{what}: {:.0}% of {drawn} pixels are {expected:?}",
        share * 100.0
    );
}

/// A one-square `.g4tf` in `dir` whose base-colour texture names `uri`, with a skin-coloured
/// placeholder.
fn textured_square(dir: &Path, uri: &str) -> std::path::PathBuf {
    let mut spec = test_support::tiny::TinyCharacter::new("Square")
        .positions(vec![
            DVec3::new(-0.5, 0.0, 0.0),
            DVec3::new(0.5, 0.0, 0.0),
            DVec3::new(0.5, 1.0, 0.0),
            DVec3::new(-0.5, 1.0, 0.0),
        ])
        .texcoords(vec![[0.0, 1.0], [1.0, 1.0], [1.0, 0.0], [0.0, 0.0]])
        .faces(&[&[0, 1, 2, 3]])
        .material("Skin", Some([1.0; 4]))
        .spec();
    spec.textures = vec![TextureSpec {
        name: "SkinTexture".into(),
        image: Some(ImageSpec::Uri {
            uri: uri.into(),
            mime: "image/png".into(),
        }),
        size: [4, 4],
        placeholder: vec![0.6, 0.25, 0.15],
    }];
    spec.mesh.as_mut().unwrap().materials[0].base_color_texture = Some(0);
    let path = dir.join("square.g4tf");
    std::fs::write(&path, test_support::tiny::g4tf_text(&spec)).unwrap();
    path
}

/// `preview FILE` front view, 100 pixels square: the picture and standard error.
fn preview(file: &Path) -> (RgbaImage, String) {
    let png = file.with_extension("png");
    let result = cli()
        .arg("preview")
        .arg(file)
        .args(["--view", "front", "--size", "100x100", "-o"])
        .arg(&png)
        .output()
        .unwrap();
    assert!(result.status.success(), "{}", stderr(&result));
    let image = image::open(&png).unwrap().to_rgba8();
    std::fs::remove_file(png).unwrap();
    (image, stderr(&result))
}

#[test]
fn previews_draw_images_beside_the_file_and_placeholders_when_they_are_gone() {
    let dir = tempfile::tempdir().unwrap();
    let whole = (0, 0, 100);
    // A percent-encoded name, decoded as the readers decode it.
    let square = textured_square(dir.path(), "sk%20in.png");
    let image = dir.path().join("sk in.png");
    std::fs::write(&image, blue_png()).unwrap();
    let (picture, said) = preview(&square);
    mostly(&picture, whole, Hue::Blue, "G4MF, image beside it");
    assert!(!said.contains("placeholder"), "{said}");
    // The glTF made from it names the same image, and keeps the placeholder.
    let gltf = dir.path().join("square.gltf");
    let made = cli()
        .arg("to-gltf")
        .arg(&square)
        .arg("-o")
        .arg(&gltf)
        .output()
        .unwrap();
    assert!(made.status.success(), "{}", stderr(&made));
    let (picture, said) = preview(&gltf);
    mostly(&picture, whole, Hue::Blue, "glTF, image beside it");
    assert!(!said.contains("placeholder"), "{said}");
    // The image gone: the placeholder, said, never white.
    std::fs::remove_file(&image).unwrap();
    for (what, file) in [("G4MF", &square), ("glTF", &gltf)] {
        let (picture, said) = preview(file);
        mostly(&picture, whole, Hue::Skin, &format!("{what}, image gone"));
        assert!(said.contains("placeholder colour"), "{what}: {said}");
        assert!(said.contains("sk%20in.png"), "{what} names the URI: {said}");
    }
    // An image that does not decode: the same.
    std::fs::write(&image, &blue_png()[..30]).unwrap();
    for (what, file) in [("G4MF", &square), ("glTF", &gltf)] {
        let (picture, said) = preview(file);
        mostly(&picture, whole, Hue::Skin, &format!("{what}, image cut"));
        assert!(said.contains("placeholder colour"), "{what}: {said}");
    }
    // A PNG declaring 100000 x 100000 pixels in 69 bytes, and a FIFO nobody writes: refused
    // (from the header; before it is opened), the placeholder drawn.
    let hostile = dir.path().join("hostile");
    std::fs::create_dir(&hostile).unwrap();
    let bomb = textured_square(&hostile, "bomb.png");
    std::fs::write(
        hostile.join("bomb.png"),
        test_support::images::png_declaring(100_000, 100_000),
    )
    .unwrap();
    let (picture, said) = preview(&bomb);
    mostly(&picture, whole, Hue::Skin, "G4MF, a PNG bomb beside it");
    assert!(said.contains("placeholder colour"), "{said}");
    #[cfg(unix)]
    {
        let fifo_folder = dir.path().join("fifo");
        std::fs::create_dir(&fifo_folder).unwrap();
        let fifo = textured_square(&fifo_folder, "fifo.png");
        let made = std::process::Command::new("mkfifo")
            .arg(fifo_folder.join("fifo.png"))
            .status();
        assert!(made.unwrap().success());
        let (picture, said) = preview(&fifo);
        mostly(&picture, whole, Hue::Skin, "G4MF, a FIFO beside it");
        assert!(said.contains("not a regular file"), "{said}");
    }
    // A URI leaving the folder is not followed, though the image is there.
    let inner = dir.path().join("inner");
    std::fs::create_dir(&inner).unwrap();
    std::fs::write(dir.path().join("out.png"), blue_png()).unwrap();
    let outside = textured_square(&inner, "..%2Fout.png");
    let (picture, said) = preview(&outside);
    mostly(&picture, whole, Hue::Skin, "G4MF, URI leaving the folder");
    assert!(said.contains("leaves the file's folder"), "{said}");
}

#[test]
fn batch_thumbnails_and_contact_sheets_draw_skin_images_or_their_placeholders() {
    let data = test_support::mpfb_data_or_skip!(
        batch_thumbnails_and_contact_sheets_draw_skin_images_or_their_placeholders
    );
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("blue.png"), blue_png()).unwrap();
    let skin = |name: &str, image: &str| {
        let path = dir.path().join(format!("{name}.mhmat"));
        let text = format!("name {name}\ndiffuseColor 1 1 1\ndiffuseTexture {image}\n");
        std::fs::write(&path, text).unwrap();
        path
    };
    let (seen, lost) = (skin("seen", "blue.png"), skin("lost", "missing.png"));
    let manifest = serde_json::json!({
        "defaults": { "mpfb_data": data, "textures": "copy", "thumbnail": true },
        "jobs": [
            { "rig_name": "default", "skin": seen, "output": "out/seen.g4tf" },
            { "rig_name": "default", "skin": lost, "output": "out/lost.g4tf" },
        ],
    });
    let manifest_path = dir.path().join("batch.json");
    std::fs::write(&manifest_path, manifest.to_string()).unwrap();
    let sheet = dir.path().join("sheet.png");
    let result = cli()
        .arg("batch")
        .arg(&manifest_path)
        .args(["--jobs", "1", "--tile-size", "160", "--contact-sheet"])
        .arg(&sheet)
        .output()
        .unwrap();
    assert!(result.status.success(), "{}", stderr(&result));
    // The contact sheet: the first tile's body in the image copied beside its file, the
    // second's in the skin's placeholder (the race colour).
    let sheet = image::open(&sheet).unwrap().to_rgba8();
    mostly(
        &sheet,
        (0, 0, 160),
        Hue::Blue,
        "contact sheet, image copied",
    );
    mostly(
        &sheet,
        (160, 0, 160),
        Hue::Skin,
        "contact sheet, image missing",
    );
    // The thumbnails: the same, drawn before the files were written.
    for (name, expected) in [("seen", Hue::Blue), ("lost", Hue::Skin)] {
        let output = dir.path().join(format!("out/{name}.g4tf"));
        let thumbnail = thumbnail_of(&output);
        mostly(
            &thumbnail,
            (0, 0, 256),
            expected,
            &format!("thumbnail of {name}"),
        );
    }
}

/// The thumbnail a G4MF file embeds (`asset.thumbnail`), decoded.
fn thumbnail_of(path: &Path) -> RgbaImage {
    let file = g4mf_reader::read_path(path, &g4mf_reader::ReadOptions::default()).unwrap();
    let doc = &file.document;
    let index = doc.asset.other["thumbnail"].as_u64().unwrap() as usize;
    let texture = &doc.other["textures"][index];
    let reference = &doc.other["files"][texture["files"][0].as_u64().unwrap() as usize];
    let view = &doc.buffer_views[reference["bufferView"].as_u64().unwrap() as usize];
    let start = view.byte_offset() as usize;
    let png = &file.buffers[view.buffer().get()][start..start + view.byte_length as usize];
    image::load_from_memory(png).unwrap().to_rgba8()
}
