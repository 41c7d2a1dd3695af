//! Textures through the real CLI: texture maps from the OBJs' `vt` (flipped) on the body and an
//! asset, an image embedded byte for byte and named by the eyes' base colour, `--textures
//! copy`, a missing image (placeholder and one warning), and irises in a preview.

#![allow(clippy::unwrap_used)] // Tests fail loudly by design.

mod common;

use common::{bin, convert_with_assets, data_and_assets};
use g4mf_reader::{G4mfFile, ReadOptions, read_path};
use serde_json::Value;
use std::collections::{HashMap, HashSet};
use std::path::Path;

/// Each OBJ vertex's texture coordinates over its face corners, flipped to G4MF's downward y
/// and rounded to f32 as written.
fn obj_corner_uvs(path: &Path) -> HashMap<u32, HashSet<[u32; 2]>> {
    let text = std::fs::read_to_string(path).unwrap();
    let mut vt: Vec<[f64; 2]> = Vec::new();
    let mut out: HashMap<u32, HashSet<[u32; 2]>> = HashMap::new();
    for line in text.lines() {
        let mut words = line.split_whitespace();
        match words.next() {
            Some("vt") => {
                let u: f64 = words.next().unwrap().parse().unwrap();
                let v: f64 = words.next().unwrap().parse().unwrap();
                vt.push([u, v]);
            }
            Some("f") => {
                for corner in words {
                    let mut parts = corner.split('/');
                    let v: u32 = parts.next().unwrap().parse::<u32>().unwrap() - 1;
                    let t: usize = parts.next().unwrap().parse::<usize>().unwrap() - 1;
                    let [u, w] = vt[t];
                    out.entry(v)
                        .or_default()
                        .insert([(u as f32).to_bits(), ((1.0 - w) as f32).to_bits()]);
                }
            }
            _ => {}
        }
    }
    out
}

/// Every written corner's texture coordinates must be one its source vertex has in the OBJ.
fn check_texture_maps(file: &G4mfFile, mesh: usize, source: &[u64], obj: &Path) {
    let expected = obj_corner_uvs(obj);
    let doc = &file.document;
    let mut checked = 0;
    for surface in &doc.meshes[mesh].surfaces {
        let binding = surface
            .texture_map
            .as_ref()
            .expect("every surface has a texture map");
        let values = file.read_f64(binding.values).unwrap();
        let corners = file.read_u64(binding.simplexes.unwrap()).unwrap();
        let vertices = file.read_u64(surface.simplexes.unwrap()).unwrap();
        assert_eq!(corners.len(), vertices.len());
        for (&v, &t) in vertices.iter().zip(&corners) {
            let uv = [
                (values[t as usize * 2] as f32).to_bits(),
                (values[t as usize * 2 + 1] as f32).to_bits(),
            ];
            let source = source[v as usize] as u32;
            assert!(
                expected[&source].contains(&uv),
                "vertex {source}: {uv:?} is none of its OBJ corners"
            );
            checked += 1;
        }
    }
    assert!(checked > 100);
}

#[test]
fn texture_maps_are_the_objs_corners_flipped_on_the_body_and_an_asset() {
    let Some((data, assets)) = data_and_assets("texture_maps_are_the_objs_corners") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("maps.g4b");
    convert_with_assets(
        &data,
        &assets,
        &out,
        &["--eyebrows", "eyebrow001", "--eyes", "none"],
    );
    let file = read_path(&out, &ReadOptions::default()).unwrap();
    let ranges = file.document.meshes[0].other["extras"]["mpfb"]["source_vertices"]
        .as_array()
        .unwrap()
        .clone();
    let source: Vec<u64> = ranges
        .iter()
        .flat_map(|r| r[0].as_u64().unwrap()..=r[1].as_u64().unwrap())
        .collect();
    check_texture_maps(&file, 0, &source, &data.join("3dobjs/base.obj"));
    let brows = file
        .document
        .nodes
        .iter()
        .find(|n| n.name.as_deref() == Some("eyebrow001"))
        .and_then(|n| n.mesh_instance.as_ref())
        .unwrap()
        .mesh
        .get();
    let identity: Vec<u64> = (0..1_000_000).collect();
    check_texture_maps(
        &file,
        brows,
        &identity,
        &assets.join("eyebrows/eyebrow001/eyebrow001.obj"),
    );
}

/// The image of the base colour texture of the material named `material`: its file entry.
fn base_color_file<'a>(doc: &'a g4mf_model::Document, material: &str) -> &'a Value {
    let m = doc
        .materials
        .iter()
        .find(|m| m.name.as_deref() == Some(material))
        .unwrap();
    let texture = m.other["baseColor"]["texture"].as_u64().unwrap() as usize;
    let texture = &doc.other["textures"][texture];
    let file = texture["files"][0].as_u64().unwrap() as usize;
    &doc.other["files"][file]
}

#[test]
fn the_brown_iris_is_embedded_byte_for_byte_or_copied_beside_the_file() {
    let Some((data, assets)) = data_and_assets("the_brown_iris_is_embedded") else {
        return;
    };
    let png = std::fs::read(assets.join("eyes/materials/brown_eye.png")).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("eyes.g4b");
    let text = convert_with_assets(&data, &assets, &out, &["--eyes", "HighPolyEyes"]);
    assert!(!text.contains("missing"), "{text}");
    let file = read_path(&out, &ReadOptions::default()).unwrap();
    let entry = base_color_file(&file.document, "HighPolyEyesMaterial");
    assert_eq!(entry["mimeType"], "image/png");
    let view = &file.document.buffer_views[entry["bufferView"].as_u64().unwrap() as usize];
    let start = view.byte_offset() as usize;
    let bytes = &file.buffers[view.buffer().get()][start..start + view.byte_length as usize];
    assert!(bytes == png.as_slice(), "the image is not the file's bytes");

    // --textures copy: beside the output, named by content, and the file validates.
    let copy = dir.path().join("copy/eyes.g4tf");
    std::fs::create_dir_all(copy.parent().unwrap()).unwrap();
    convert_with_assets(
        &data,
        &assets,
        &copy,
        &["--eyes", "HighPolyEyes", "--textures", "copy"],
    );
    let file = read_path(&copy, &ReadOptions::default()).unwrap();
    let uri = base_color_file(&file.document, "HighPolyEyesMaterial")["uri"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(uri.ends_with(".png") && !uri.contains('/'), "{uri}");
    assert_eq!(
        std::fs::read(dir.path().join("copy").join(&uri)).unwrap(),
        png
    );
}

#[test]
fn a_missing_image_gives_its_placeholder_and_one_warning() {
    let Some((data, assets)) = data_and_assets("a_missing_image_gives_its_placeholder") else {
        return;
    };
    // A copy of eyebrow001 whose material names an image that is not there.
    let dir = tempfile::tempdir().unwrap();
    let brows = dir.path().join("brows");
    std::fs::create_dir_all(&brows).unwrap();
    for name in ["eyebrow001.mhclo", "eyebrow001.obj"] {
        std::fs::copy(
            assets.join("eyebrows/eyebrow001").join(name),
            brows.join(name),
        )
        .unwrap();
    }
    std::fs::write(
        brows.join("eyebrow001.mhmat"),
        "name brows\ndiffuseColor 0.5 0.25 0.125\ntransparent True\ndiffuseTexture nothere.png\n",
    )
    .unwrap();
    let out = dir.path().join("brows.g4b");
    let mhclo = brows.join("eyebrow001.mhclo");
    let text = convert_with_assets(
        &data,
        &assets,
        &out,
        &["--eyebrows", mhclo.to_str().unwrap()],
    );
    let warnings: Vec<&str> = text.lines().filter(|l| l.contains("nothere.png")).collect();
    assert_eq!(warnings.len(), 1, "{text}");
    assert!(warnings[0].contains("an image is missing"), "{text}");
    let file = read_path(&out, &ReadOptions::default()).unwrap();
    let doc = &file.document;
    let m = doc
        .materials
        .iter()
        .find(|m| m.name.as_deref() == Some("eyebrow001Material"))
        .unwrap();
    let texture =
        &doc.other["textures"][m.other["baseColor"]["texture"].as_u64().unwrap() as usize];
    assert!(texture.get("files").is_none());
    // The placeholder is the material's colour in linear light, with alpha (transparent).
    let placeholder: Vec<f64> = texture["placeholder"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_f64().unwrap())
        .collect();
    assert_eq!(placeholder.len(), 4);
    assert!((placeholder[0] - 0.214).abs() < 1e-3, "{placeholder:?}");
}

#[test]
fn irises_show_in_a_close_up_preview() {
    let Some((data, assets)) = data_and_assets("irises_show_in_a_close_up_preview") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("eyes.g4b");
    // Blue: the image is missing in the CC0 copy, so the iris is generated; either way the
    // eyes are textured.
    convert_with_assets(
        &data,
        &assets,
        &out,
        &["--eyes", "HighPolyEyes", "--eye-material", "blue"],
    );
    let picture = |name: &str, extra: &[&str]| {
        let path = dir.path().join(name);
        let status = bin()
            .arg("preview")
            .arg(&out)
            .args(["--focus", "eye_L", "--size", "160", "-o"])
            .arg(&path)
            .args(extra)
            .status()
            .unwrap();
        assert!(status.success());
        image::open(&path).unwrap().to_rgb8()
    };
    let textured = picture("textured.png", &[]);
    let flat = picture("flat.png", &["--no-textures"]);
    // Without textures the eye is one colour; with them some pixels are blue (the iris):
    // blue well above red, which neither the skin nor the sclera is.
    let bluish = |image: &image::RgbImage| {
        image
            .pixels()
            .filter(|p| i32::from(p.0[2]) > i32::from(p.0[0]) + 40)
            .count()
    };
    assert!(bluish(&textured) > 20, "{}", bluish(&textured));
    assert_eq!(bluish(&flat), 0);
}
