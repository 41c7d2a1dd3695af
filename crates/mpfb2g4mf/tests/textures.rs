//! Textures through the real CLI: texture maps from the OBJs' `vt` (flipped) on the body and an
//! asset, an image embedded byte for byte and named by the eyes' base colour, `--textures
//! copy`, a missing image (placeholder and one warning), and irises in a preview.

#![allow(clippy::unwrap_used)] // Tests fail loudly by design.

use crate::common::shared as common;

use common::{bin, convert_with_assets, data_and_assets, succeed};
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
    let Some((data, assets)) = data_and_assets(
        "texture_maps_are_the_objs_corners",
        &["eyebrows/eyebrow001/eyebrow001.mhclo"],
    ) else {
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
    let texture = channel_texture(doc, material, "baseColor");
    &doc.other["files"][texture["files"][0].as_u64().unwrap() as usize]
}

#[test]
fn the_brown_iris_is_embedded_byte_for_byte_or_copied_beside_the_file() {
    let Some((data, assets)) = data_and_assets("the_brown_iris_is_embedded", &[]) else {
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
    assert!(
        embedded_bytes(&file, entry) == png,
        "the image is not the file's bytes"
    );

    // --textures copy: beside the output, named by content, and the file validates.
    let copy = dir.path().join("copy/eyes.g4tf");
    std::fs::create_dir_all(copy.parent().unwrap()).unwrap();
    let summary = convert_with_assets(
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
    // The summary names every file the convert wrote, the copied image among them.
    let copied = dir.path().join("copy").join(&uri);
    assert!(
        summary.contains(&format!("  image     {}", copied.display())),
        "{summary}"
    );
}

#[test]
fn a_missing_image_gives_its_placeholder_and_one_warning() {
    let Some((data, assets)) = data_and_assets(
        "a_missing_image_gives_its_placeholder",
        &["eyebrows/eyebrow001/eyebrow001.mhclo"],
    ) else {
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

/// `preview --focus eye_L` of `file` at 160 pixels into `picture`, with `extra` flags.
fn eye_close_up(file: &Path, picture: &Path, extra: &[&str]) -> image::RgbImage {
    let status = bin()
        .arg("preview")
        .arg(file)
        .args(["--focus", "eye_L", "--size", "160", "-o"])
        .arg(picture)
        .args(extra)
        .status()
        .unwrap();
    assert!(status.success());
    image::open(picture).unwrap().to_rgb8()
}

#[test]
fn irises_show_in_a_close_up_preview() {
    let Some((data, assets)) = data_and_assets(
        "irises_show_in_a_close_up_preview",
        &["eyes/materials/blue.mhmat"],
    ) else {
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
    let picture = |name: &str, extra: &[&str]| eye_close_up(&out, &dir.path().join(name), extra);
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

/// The texture of channel `channel` of the material named `material`: its JSON.
fn channel_texture<'a>(doc: &'a g4mf_model::Document, material: &str, channel: &str) -> &'a Value {
    let m = doc
        .materials
        .iter()
        .find(|m| m.name.as_deref() == Some(material))
        .unwrap_or_else(|| panic!("no material {material}"));
    let texture = m.other[channel]["texture"]
        .as_u64()
        .unwrap_or_else(|| panic!("{material} has no {channel} texture: {:?}", m.other));
    &doc.other["textures"][texture as usize]
}

/// The bytes of an embedded file entry.
fn embedded_bytes(file: &G4mfFile, entry: &Value) -> Vec<u8> {
    let view = &file.document.buffer_views[entry["bufferView"].as_u64().unwrap() as usize];
    let start = view.byte_offset() as usize;
    file.buffers[view.buffer().get()][start..start + view.byte_length as usize].to_vec()
}

/// A grey PNG of `side` pixels square whose value is `value(x, y)`.
fn grey_png(side: u32, value: impl Fn(u32, u32) -> u8) -> Vec<u8> {
    let mut bytes = Vec::new();
    image::DynamicImage::ImageLuma8(image::GrayImage::from_fn(side, side, |x, y| {
        image::Luma([value(x, y)])
    }))
    .write_to(
        &mut std::io::Cursor::new(&mut bytes),
        image::ImageFormat::Png,
    )
    .unwrap();
    bytes
}

/// `convert --rig-name default` on ada.mhm without an assets folder, validated; its summary.
fn convert_ada(data: &Path, out: &Path, extra: &[&str]) -> String {
    let home = tempfile::tempdir().unwrap();
    let mut command = bin();
    test_support::isolate(&mut command, home.path())
        .args(["convert", "--rig-name", "default", "--mpfb-data"])
        .arg(data)
        .arg("--human")
        .arg(test_support::workspace_root().join("fixtures/bodies/ada.mhm"))
        .args(extra)
        .args(["--validate", "-o"])
        .arg(out);
    succeed(&mut command)
}

#[test]
fn a_skin_material_textures_the_body_and_packs_its_maps_into_orm() {
    let data = test_support::mpfb_data_or_skip!(
        a_skin_material_textures_the_body_and_packs_its_maps_into_orm
    );
    let dir = tempfile::tempdir().unwrap();
    let skin = dir.path().join("myskin");
    std::fs::create_dir_all(&skin).unwrap();
    let diffuse = grey_png(4, |x, _| 100 + x as u8);
    std::fs::write(skin.join("diffuse.png"), &diffuse).unwrap();
    std::fs::write(skin.join("ao.png"), grey_png(4, |_, _| 200)).unwrap();
    std::fs::write(skin.join("rough.png"), grey_png(8, |x, _| 10 * x as u8)).unwrap();
    std::fs::write(
        skin.join("myskin.mhmat"),
        "name myskin\ndiffuseColor 1.0 1.0 1.0\nmetallic 0.2\n\
         diffuseTexture diffuse.png\naomapTexture ao.png\nroughnessmapTexture rough.png\n\
         normalmapTexture nothere_normal.png\n",
    )
    .unwrap();
    let out = dir.path().join("skin.g4b");
    let mhmat = skin.join("myskin.mhmat");
    let text = convert_ada(&data, &out, &["--skin", mhmat.to_str().unwrap()]);
    // The normal map is missing: one warning names it.
    let warned: Vec<&str> = text
        .lines()
        .filter(|l| l.contains("nothere_normal.png"))
        .collect();
    assert_eq!(warned.len(), 1, "{text}");
    let file = read_path(&out, &ReadOptions::default()).unwrap();
    let doc = &file.document;
    let skin_material = doc
        .materials
        .iter()
        .find(|m| m.name.as_deref() == Some("SkinMaterial"))
        .unwrap();
    assert_eq!(
        skin_material.other["baseColor"]["factor"],
        serde_json::json!([1.0, 1.0, 1.0])
    );
    // The diffuse image byte for byte.
    let base = channel_texture(doc, "SkinMaterial", "baseColor");
    let entry = &doc.other["files"][base["files"][0].as_u64().unwrap() as usize];
    assert_eq!(embedded_bytes(&file, entry), diffuse);
    // The placeholder is the race-blended skin colour, not the white factor.
    let placeholder = base["placeholder"].as_array().unwrap();
    assert!(placeholder[0].as_f64().unwrap() < 0.9, "{placeholder:?}");
    // ORM: occlusion from ao.png, roughness from rough.png (the larger, so the size),
    // metallic from the material's value.
    let orm = channel_texture(doc, "SkinMaterial", "orm");
    assert_eq!(orm["size"], serde_json::json!([8, 8]));
    let entry = &doc.other["files"][orm["files"][0].as_u64().unwrap() as usize];
    let packed = image::load_from_memory(&embedded_bytes(&file, entry))
        .unwrap()
        .to_rgb8();
    for x in 0..8 {
        assert_eq!(packed.get_pixel(x, 3).0, [200, 10 * x as u8, 51], "x {x}");
    }
    // The missing normal map: a texture without files, flat placeholder.
    let normal = channel_texture(doc, "SkinMaterial", "normal");
    assert!(normal.get("files").is_none());
    assert_eq!(normal["placeholder"], serde_json::json!([0.5, 0.5, 1.0]));

    // MakeHuman's default skin names no file: the same bytes as saying nothing.
    // (Same file names: the output's stem names the nodes.)
    std::fs::create_dir_all(dir.path().join("plain")).unwrap();
    std::fs::create_dir_all(dir.path().join("default")).unwrap();
    let plain = dir.path().join("plain/ada.g4b");
    let default = dir.path().join("default/ada.g4b");
    convert_ada(&data, &plain, &[]);
    convert_ada(&data, &default, &["--skin", "default"]);
    assert!(std::fs::read(&plain).unwrap() == std::fs::read(&default).unwrap());
}

#[test]
fn makehumans_skins_are_found_by_name_and_by_the_mhm_line() {
    let Some((data, assets)) = data_and_assets(
        "makehumans_skins_are_found",
        &[
            "skins/default.mhmat",
            "skins/young_caucasian_female/young_caucasian_female.mhmat",
        ],
    ) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let by_flag = dir.path().join("flag.g4b");
    let text = convert_with_assets(
        &data,
        &assets,
        &by_flag,
        &["--skin", "young_caucasian_female", "--eyes", "none"],
    );
    // The CC0 copy lacks the skin's image: one warning names it.
    assert!(
        text.lines()
            .any(|l| l.contains("missing") && l.contains("young_lightskinned_female_diffuse.png")),
        "{text}"
    );
    let file = read_path(&by_flag, &ReadOptions::default()).unwrap();
    let base = channel_texture(&file.document, "SkinMaterial", "baseColor");
    assert!(base.get("files").is_none());
    assert_eq!(base["name"], "young_lightskinned_female_diffuseTexture");

    // The same skin named by an `.mhm` line, as MakeHuman writes it.
    let mhm = dir.path().join("skinned.mhm");
    let ada =
        std::fs::read_to_string(test_support::workspace_root().join("fixtures/bodies/ada.mhm"))
            .unwrap()
            .replace(
                "skinMaterial skins/default.mhmat",
                "skinMaterial skins/young_caucasian_female/young_caucasian_female.mhmat",
            );
    assert!(ada.contains("young_caucasian_female.mhmat"));
    std::fs::write(&mhm, ada).unwrap();
    let by_line = dir.path().join("line.g4b");
    convert_with_assets(
        &data,
        &assets,
        &by_line,
        &["--human", mhm.to_str().unwrap(), "--eyes", "none"],
    );
    let file = read_path(&by_line, &ReadOptions::default()).unwrap();
    let base = channel_texture(&file.document, "SkinMaterial", "baseColor");
    assert_eq!(base["name"], "young_lightskinned_female_diffuseTexture");

    // An unknown skin is refused with the folder it was looked for in.
    let output = bin()
        .args(["convert", "--rig-name", "default", "--mpfb-data"])
        .arg(&data)
        .arg("--assets")
        .arg(&assets)
        .args(["--skin", "no_such_skin", "-o"])
        .arg(dir.path().join("never.g4b"))
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success());
    assert!(
        text.contains("no_such_skin") && text.contains("skins"),
        "{text}"
    );
    assert!(!dir.path().join("never.g4b").exists());
}

/// The texture coordinates (G4MF's downward y) of base.obj's `group` vertices, with their
/// positions.
fn helper_eye_corners(obj: &Path, group: &str) -> Vec<([f64; 3], [f64; 2])> {
    let text = std::fs::read_to_string(obj).unwrap();
    let (mut v, mut vt, mut out) = (Vec::new(), Vec::new(), Vec::new());
    let mut in_group = false;
    for line in text.lines() {
        let words: Vec<&str> = line.split_whitespace().collect();
        match words.first() {
            Some(&"v") => v.push([1, 2, 3].map(|i| words[i].parse::<f64>().unwrap())),
            Some(&"vt") => vt.push([1, 2].map(|i| words[i].parse::<f64>().unwrap())),
            Some(&"g") => in_group = words.get(1) == Some(&group),
            Some(&"f") if in_group => {
                for corner in &words[1..] {
                    let mut parts = corner.split('/');
                    let p: usize = parts.next().unwrap().parse().unwrap();
                    let t: usize = parts.next().unwrap().parse().unwrap();
                    let [u, w] = vt[t - 1];
                    out.push((v[p - 1], [u, 1.0 - w]));
                }
            }
            _ => {}
        }
    }
    out
}

#[test]
fn helper_eyes_get_an_iris_painted_from_their_geometry() {
    let data =
        test_support::mpfb_data_or_skip!(helper_eyes_get_an_iris_painted_from_their_geometry);
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("eyes.g4b");
    convert_ada(&data, &out, &[]);
    let file = read_path(&out, &ReadOptions::default()).unwrap();
    let texture = channel_texture(&file.document, "EyeMaterial", "baseColor");
    let entry = &file.document.other["files"][texture["files"][0].as_u64().unwrap() as usize];
    let painted = image::load_from_memory(&embedded_bytes(&file, entry))
        .unwrap()
        .to_rgb8();
    let side = f64::from(painted.width());
    // The texel under the eye's foremost corner is the pupil; under corners at the eye's side
    // (their direction from the centre at right angles to +Z) the sclera.
    let corners = helper_eye_corners(&data.join("3dobjs/base.obj"), "helper-l-eye");
    assert!(!corners.is_empty());
    let centre = {
        let n = corners.len() as f64;
        [0, 1, 2].map(|i| corners.iter().map(|(p, _)| p[i]).sum::<f64>() / n)
    };
    let texel = |uv: [f64; 2]| {
        painted
            .get_pixel((uv[0] * side) as u32, (uv[1] * side) as u32)
            .0
    };
    // The eye's front is a small cap polygon (its corners about 11 degrees off the axis):
    // the middle of its texture coordinates is the pupil's centre.
    let angle_of = |p: &[f64; 3]| {
        let d = [0, 1, 2].map(|i| p[i] - centre[i]);
        (d[2] / (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]).sqrt()).acos()
    };
    let cap: Vec<[f64; 2]> = corners
        .iter()
        .filter(|(p, _)| angle_of(p) < 15f64.to_radians())
        .map(|(_, uv)| *uv)
        .collect();
    assert!(cap.len() >= 3, "{}", cap.len());
    let middle = [0, 1].map(|i| cap.iter().map(|uv| uv[i]).sum::<f64>() / cap.len() as f64);
    let pupil = texel(middle);
    assert!(pupil.iter().all(|&c| c < 30), "pupil {pupil:?}");
    // The cap's corners (11 degrees) are in the iris (24 degrees): brown, not sclera.
    let iris = texel(cap[0]);
    assert!(iris[0] > iris[2] + 20 && iris[0] < 200, "iris {iris:?}");
    let mut sides = 0;
    for (p, uv) in &corners {
        let d = [0, 1, 2].map(|i| p[i] - centre[i]);
        let length = (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]).sqrt();
        if (d[2] / length).abs() < 0.2 {
            let c = texel(*uv);
            assert!(c.iter().all(|&c| c > 200), "sclera {c:?}");
            sides += 1;
        }
    }
    assert!(sides > 4, "{sides}");

    // A front close-up shows the iris: pixels darker and browner than the sclera and the
    // skin, which the flat eyes of `--no-textures` do not have.
    let picture = |name: &str, extra: &[&str]| eye_close_up(&out, &dir.path().join(name), extra);
    let iris_like = |image: &image::RgbImage| {
        image
            .pixels()
            .filter(|p| p.0[0] < 110 && p.0[0] > p.0[2] + 15)
            .count()
    };
    let textured = iris_like(&picture("textured.png", &[]));
    let flat = iris_like(&picture("flat.png", &["--no-textures"]));
    assert!(textured > flat + 20, "textured {textured}, flat {flat}");

    // A generated image has no original to refer to: `reference` copies it beside the file.
    let referenced = dir.path().join("ref/eyes.g4tf");
    std::fs::create_dir_all(referenced.parent().unwrap()).unwrap();
    convert_ada(&data, &referenced, &["--textures", "reference"]);
    let file = read_path(&referenced, &ReadOptions::default()).unwrap();
    let texture = channel_texture(&file.document, "EyeMaterial", "baseColor");
    let uri = file.document.other["files"][texture["files"][0].as_u64().unwrap() as usize]["uri"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(dir.path().join("ref").join(&uri).is_file(), "{uri}");
}
