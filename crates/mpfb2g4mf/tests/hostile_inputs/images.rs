//! Hostile images and what a failed write leaves (issue 41): copied images and external
//! buffers removed when their job fails, never another job's or a user's; images decoded
//! within a bound before they are used (a PNG declaring 100000 x 100000, a truncated one,
//! maps that once packed into 8192 x 8192), said apart from missing ones; `--textures none`
//! folding the placeholder into the factor without reading any image.

use super::{cli, dressed_assets, names, stderr};
use std::path::{Path, PathBuf};
use std::process::Output;
use test_support::images::{grey_png, orm_bomb_maps, png_declaring, truncated_png};

/// A fake assets folder whose clothes wear `bad.mhmat`, holding `material`, beside `images`
/// (file names and bytes).
fn textured(dir: &Path, case: &str, material: &str, images: &[(&str, &[u8])]) -> PathBuf {
    dressed_assets(dir, case, "bad.mhmat", Some(material), images)
}

/// `convert` wearing the fake clothes of `assets`, its summary (with its warnings) on
/// standard error.
fn wear(data: &Path, assets: &Path, out: &Path, extra: &[&str]) -> Output {
    cli()
        .args([
            "convert",
            "--helpers",
            "none",
            "--rig-name",
            "default",
            "--mpfb-data",
        ])
        .arg(data)
        .arg("--assets")
        .arg(assets)
        .args(["--clothes", "bad", "-o"])
        .arg(out)
        .args(extra)
        .output()
        .unwrap()
}

/// The material named `bad` of a written G4MF file and its document's textures.
fn bad_material(out: &Path) -> (serde_json::Value, serde_json::Value) {
    let file = g4mf_reader::read_path(out, &g4mf_reader::ReadOptions::default()).unwrap();
    let doc = serde_json::to_value(&file.document).unwrap();
    let material = doc["materials"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["name"].as_str().is_some_and(|n| n.starts_with("bad")))
        .unwrap_or_else(|| panic!("no bad material in {}", doc["materials"]))
        .clone();
    (material, doc["textures"].clone())
}

const COPIED: &str = "name bad\ndiffuseColor 0.5 0.25 0.125\ndiffuseTexture a.png\n";

#[test]
fn a_failed_copy_removes_the_images_and_buffers_it_wrote_and_nothing_else() {
    let data = test_support::mpfb_data_or_skip!(
        a_failed_copy_removes_the_images_and_buffers_it_wrote_and_nothing_else
    );
    let dir = tempfile::tempdir().unwrap();
    let image = grey_png(4, 4, 77);
    let assets = textured(dir.path(), "assets", COPIED, &[("a.png", &image)]);
    // Each output format fails at its last step (a folder is in the output's place): the
    // images copied for it and its buffers go, only that folder stays.
    for (folder, output, extra) in [
        ("g4b", "x.g4b", &[][..]),
        ("g4tf", "x.g4tf", &["--external-bin"][..]),
        ("glb", "x.glb", &[][..]),
        ("gltf", "x.gltf", &["--external-bin"][..]),
    ] {
        let folder = dir.path().join(folder);
        let out = folder.join(output);
        std::fs::create_dir_all(&out).unwrap();
        let mut args = vec!["--textures", "copy"];
        args.extend_from_slice(extra);
        let result = wear(&data, &assets, &out, &args);
        assert!(!result.status.success(), "{output}: {}", stderr(&result));
        assert_eq!(names(&folder), [output], "{output}: {}", stderr(&result));
    }
    // An image that was there before (a user's, or an earlier run's) stays.
    let folder = dir.path().join("kept");
    std::fs::create_dir_all(&folder).unwrap();
    let ok = wear(
        &data,
        &assets,
        &folder.join("ok.g4b"),
        &["--textures", "copy"],
    );
    assert!(ok.status.success(), "{}", stderr(&ok));
    let before = names(&folder);
    assert!(before.iter().any(|n| n.ends_with(".png")), "{before:?}");
    std::fs::create_dir(folder.join("x.g4b")).unwrap();
    let failed = wear(
        &data,
        &assets,
        &folder.join("x.g4b"),
        &["--textures", "copy"],
    );
    assert!(!failed.status.success());
    let mut after = before.clone();
    after.push("x.g4b".to_owned());
    after.sort();
    assert_eq!(names(&folder), after);
    // demo's external buffer goes with its failed `.g4tf`.
    let demo_folder = dir.path().join("demo");
    let demo_out = demo_folder.join("x.g4tf");
    std::fs::create_dir_all(&demo_out).unwrap();
    let demo = cli()
        .args(["demo", "--quiet", "--external-bin", "--mpfb-data"])
        .arg(&data)
        .arg("-o")
        .arg(&demo_out)
        .output()
        .unwrap();
    assert!(!demo.status.success());
    assert_eq!(names(&demo_folder), ["x.g4tf"]);
    // to-gltf's external buffer goes with its failed `.gltf`.
    let gltf_folder = dir.path().join("to-gltf");
    let gltf_out = gltf_folder.join("x.gltf");
    std::fs::create_dir_all(&gltf_out).unwrap();
    let to_gltf = cli()
        .args(["to-gltf", "--external-bin"])
        .arg(folder.join("ok.g4b"))
        .arg("-o")
        .arg(&gltf_out)
        .output()
        .unwrap();
    assert!(!to_gltf.status.success(), "{}", stderr(&to_gltf));
    assert_eq!(names(&gltf_folder), ["x.gltf"]);
}

#[test]
fn a_failed_batch_job_removes_only_the_images_no_other_job_uses() {
    let data = test_support::mpfb_data_or_skip!(
        a_failed_batch_job_removes_only_the_images_no_other_job_uses
    );
    let dir = tempfile::tempdir().unwrap();
    let image = grey_png(4, 4, 77);
    let assets = textured(dir.path(), "assets", COPIED, &[("a.png", &image)]);
    let batch = |name: &str, outputs: &[&str]| -> (Output, PathBuf) {
        let folder = dir.path().join(name);
        let jobs: String = outputs
            .iter()
            .map(|o| format!("[[jobs]]\nrig_name = \"default\"\noutput = \"{o}\"\n"))
            .collect();
        std::fs::create_dir_all(&folder).unwrap();
        // Outputs are relative to the manifest's folder.
        let manifest = folder.join("jobs.toml");
        std::fs::write(
            &manifest,
            format!(
                "[defaults]\nmpfb_data = \"{}\"\nassets = \"{}\"\nclothes = [\"bad\"]\n\
                 textures = \"copy\"\nhelpers = \"none\"\n{jobs}",
                data.display(),
                assets.display()
            ),
        )
        .unwrap();
        std::fs::create_dir_all(folder.join("failing.g4b")).unwrap();
        let result = cli()
            .current_dir(&folder)
            .args(["batch", "--quiet", "--jobs", "2"])
            .arg(&manifest)
            .output()
            .unwrap();
        (result, folder)
    };
    // Two jobs share the image: the one that fails leaves it to the other.
    let (result, folder) = batch("shared", &["failing.g4b", "fine.g4b", "fine.g4tf"]);
    assert!(!result.status.success(), "{}", stderr(&result));
    let left = names(&folder);
    // The clothes' image and the eyes' generated iris stay beside the outputs that name them.
    assert_eq!(left.len(), 6, "{left:?}: {}", stderr(&result));
    assert_eq!(left.iter().filter(|n| n.ends_with(".png")).count(), 2);
    // Alone, the failed job leaves nothing it made.
    let (result, folder) = batch("alone", &["failing.g4b"]);
    assert!(!result.status.success(), "{}", stderr(&result));
    assert_eq!(
        names(&folder),
        ["failing.g4b", "jobs.toml"],
        "{}",
        stderr(&result)
    );
}

/// A material naming a good base colour, a bomb as its normal map, a truncated occlusion map
/// and a missing roughness map.
const HOSTILE: &str = "name bad\ndiffuseColor 0.5 0.25 0.125\ndiffuseTexture good.png\n\
    normalmapTexture bomb.png\naomapTexture cut.png\nroughnessmapTexture gone.png\n";

#[test]
fn images_are_decoded_within_a_bound_and_broken_ones_said_apart_from_missing_ones() {
    let data = test_support::mpfb_data_or_skip!(
        images_are_decoded_within_a_bound_and_broken_ones_said_apart_from_missing_ones
    );
    let dir = tempfile::tempdir().unwrap();
    let bomb = png_declaring(100_000, 100_000);
    assert!(bomb.len() <= 69, "{} bytes", bomb.len());
    let good = grey_png(4, 4, 200);
    let cut = truncated_png();
    let assets = textured(
        dir.path(),
        "hostile",
        HOSTILE,
        &[("good.png", &good), ("bomb.png", &bomb), ("cut.png", &cut)],
    );
    let out = dir.path().join("out.g4b");
    let result = wear(&data, &assets, &out, &[]);
    let text = stderr(&result);
    assert!(result.status.success(), "{text}");
    let folder = assets.join("clothes/bad");
    // Missing: the file that is not there, by name. Unusable: the ones that are, by path,
    // with why, apart.
    let missing: Vec<&str> = text.lines().filter(|l| l.contains("gone.png")).collect();
    assert_eq!(missing.len(), 1, "{text}");
    assert!(missing[0].contains("an image is missing"), "{text}");
    assert!(!missing[0].contains("cut.png") && !missing[0].contains("bomb.png"));
    let unusable: Vec<&str> = text
        .lines()
        .filter(|l| l.contains("cannot be used"))
        .collect();
    assert_eq!(unusable.len(), 1, "{text}");
    assert!(
        unusable[0].starts_with("  warning   TEXTURES_UNUSABLE: "),
        "{text}"
    );
    for (name, why) in [
        ("bomb.png", "it declares 100000x100000 pixels"),
        ("cut.png", "cannot be decoded"),
    ] {
        let shown = format!("{} ({why}", folder.join(name).display());
        assert!(unusable[0].contains(&shown), "{shown} in {text}");
    }
    // The file keeps the good image, placeholders for the others: the normal map has no
    // image, the orm (no usable map) neither.
    let (material, textures) = bad_material(&out);
    let texture = |key: &str| &textures[material[key]["texture"].as_u64().unwrap() as usize];
    assert!(texture("baseColor").get("files").is_some(), "{textures}");
    assert!(texture("normal").get("files").is_none(), "{textures}");
    assert!(texture("orm").get("files").is_none(), "{textures}");
    assert_eq!(texture("normal")["size"], serde_json::json!([1, 1]));
}

#[test]
fn occlusion_and_roughness_maps_pack_no_larger_than_the_largest() {
    let data = test_support::mpfb_data_or_skip!(
        occlusion_and_roughness_maps_pack_no_larger_than_the_largest
    );
    let dir = tempfile::tempdir().unwrap();
    let (wide, tall) = orm_bomb_maps();
    let cut = truncated_png();
    let assets = textured(
        dir.path(),
        "orm",
        "name bad\naomapTexture wide.png\nroughnessmapTexture tall.png\nmetallicmapTexture cut.png\n",
        &[("wide.png", &wide), ("tall.png", &tall), ("cut.png", &cut)],
    );
    let out = dir.path().join("out.g4b");
    let result = wear(&data, &assets, &out, &[]);
    let text = stderr(&result);
    assert!(result.status.success(), "{text}");
    let (material, textures) = bad_material(&out);
    let orm = &textures[material["orm"]["texture"].as_u64().unwrap() as usize];
    // One of the maps' shapes, not their largest width by their largest height, at most 4096
    // a side.
    let size = (
        orm["size"][0].as_u64().unwrap(),
        orm["size"][1].as_u64().unwrap(),
    );
    assert!(size == (4096, 1) || size == (1, 4096), "{orm}");
    assert!(orm.get("files").is_some(), "{orm}");
    // The metallic map that does not decode is said, not dropped silently.
    let shown = format!("{}", assets.join("clothes/bad/cut.png").display());
    assert!(
        text.lines()
            .any(|l| l.contains("cannot be used") && l.contains(&shown)),
        "{text}"
    );
}

#[test]
fn textures_none_folds_placeholders_into_factors_and_reads_no_image() {
    let data = test_support::mpfb_data_or_skip!(
        textures_none_folds_placeholders_into_factors_and_reads_no_image
    );
    let dir = tempfile::tempdir().unwrap();
    let bomb = png_declaring(100_000, 100_000);
    let good = grey_png(4, 4, 200);
    let cut = truncated_png();
    let assets = textured(
        dir.path(),
        "hostile",
        HOSTILE,
        &[("good.png", &good), ("bomb.png", &bomb), ("cut.png", &cut)],
    );
    let embedded = dir.path().join("embedded.g4b");
    let result = wear(&data, &assets, &embedded, &[]);
    assert!(result.status.success(), "{}", stderr(&result));
    let (material, textures) = bad_material(&embedded);
    let factor = material["baseColor"]["factor"].clone();
    let placeholder =
        textures[material["baseColor"]["texture"].as_u64().unwrap() as usize]["placeholder"]
            .clone();
    // Not white: the asset's colour, as its placeholder is.
    assert_ne!(placeholder, serde_json::json!([1.0, 1.0, 1.0]));

    let none = dir.path().join("none.g4b");
    let result = wear(&data, &assets, &none, &["--textures", "none"]);
    let text = stderr(&result);
    assert!(result.status.success(), "{text}");
    // No image was read: the missing, the bomb and the truncated one go unmentioned.
    for name in ["gone.png", "bomb.png", "cut.png"] {
        assert!(!text.contains(name), "{name} in {text}");
    }
    let (material, textures) = bad_material(&none);
    assert!(material.get("normal").is_none() && material.get("orm").is_none());
    assert!(textures.is_null() || textures.as_array().unwrap().is_empty());
    let folded = material["baseColor"]["factor"].as_array().unwrap().clone();
    let expected: Vec<f64> = (0..factor.as_array().unwrap().len())
        .map(|c| {
            factor[c].as_f64().unwrap() * placeholder.get(c).and_then(|p| p.as_f64()).unwrap_or(1.0)
        })
        .collect();
    assert_eq!(folded.len(), expected.len());
    for (got, want) in folded.iter().zip(&expected) {
        assert!(
            (got.as_f64().unwrap() - want).abs() < 1e-6,
            "{folded:?} vs {expected:?}"
        );
    }
    assert!(folded[0].as_f64().unwrap() < factor[0].as_f64().unwrap());
}

/// An image whose file name holds a URI's delimiters (`#` ends a path, `%` starts an escape,
/// a space is not allowed): `--textures reference` percent-encodes it, and the file opens in
/// our reader, validator and preview, and, as a `.gltf`, in the Khronos validator.
#[test]
fn image_uris_are_percent_encoded_and_resolve() {
    let test = "image_uris_are_percent_encoded";
    let Some(data) = test_support::mpfb_data_or_skip(test) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let image = grey_png(4, 4, 120);
    let assets = textured(
        dir.path(),
        "assets",
        "name bad\ndiffuseTexture a#b c%.png\n",
        &[("a#b c%.png", &image)],
    );
    let encoded = "assets/clothes/bad/a%23b%20c%25.png";
    let mut gltf = None;
    for output in ["out.g4tf", "out.gltf"] {
        let out = dir.path().join(output);
        let result = wear(&data, &assets, &out, &["--textures", "reference"]);
        let text = stderr(&result);
        assert!(result.status.success(), "{text}");
        assert!(text.contains("warnings  none"), "{text}");
        let json: serde_json::Value =
            serde_json::from_slice(&std::fs::read(&out).unwrap()).unwrap();
        // G4MF keeps image files in `files`, glTF in `images`.
        let uris: Vec<&str> = ["files", "images"]
            .iter()
            .filter_map(|key| json[key].as_array())
            .flatten()
            .filter_map(|i| i["uri"].as_str())
            .collect();
        assert!(uris.contains(&encoded), "{output}: {uris:?}");
        let commands: &[&str] = if output.ends_with(".g4tf") {
            &["validate", "preview"]
        } else {
            &["preview"]
        };
        for &command in commands {
            let mut run = cli();
            run.arg(command).arg(&out);
            if command == "preview" {
                run.arg("-o").arg(dir.path().join(format!("{output}.png")));
            }
            let result = run.output().unwrap();
            assert!(
                result.status.success(),
                "{command} {output}: {}{}",
                String::from_utf8_lossy(&result.stdout),
                stderr(&result)
            );
        }
        if output.ends_with(".gltf") {
            gltf = Some(out);
        }
    }
    let gltf = gltf.unwrap();
    let Some(reports) = test_support::clients::gltf_validator(test, &[&gltf]) else {
        return;
    };
    test_support::clients::assert_no_validator_issues(&reports);
}

/// `to-gltf` embeds again what a G4MF file embeds: an image that does not decode is checked
/// and left out (its placeholder folded), with a note naming it, not copied on.
#[test]
fn to_gltf_leaves_out_an_embedded_image_that_does_not_decode() {
    let data =
        test_support::mpfb_data_or_skip!(to_gltf_leaves_out_an_embedded_image_that_does_not_decode);
    let dir = tempfile::tempdir().unwrap();
    let image = grey_png(16, 16, 33);
    let assets = textured(dir.path(), "assets", COPIED, &[("a.png", &image)]);
    let g4b = dir.path().join("in.g4b");
    let result = wear(&data, &assets, &g4b, &[]);
    assert!(result.status.success(), "{}", stderr(&result));
    // The clothes' material keeps its texture through `to-gltf`, until its image's compressed
    // data is corrupted in place (the file still reads).
    let bad_texture = |gltf: &Path| -> Option<serde_json::Value> {
        let json: serde_json::Value =
            serde_json::from_slice(&std::fs::read(gltf).unwrap()).unwrap();
        let material = json["materials"]
            .as_array()
            .unwrap()
            .iter()
            .find(|m| m["name"].as_str().is_some_and(|n| n.starts_with("bad")))
            .unwrap()
            .clone();
        material["pbrMetallicRoughness"]
            .get("baseColorTexture")
            .cloned()
    };
    let to_gltf = |gltf: &Path| -> String {
        let result = cli()
            .arg("to-gltf")
            .arg(&g4b)
            .arg("-o")
            .arg(gltf)
            .output()
            .unwrap();
        let text = format!(
            "{}{}",
            String::from_utf8_lossy(&result.stdout),
            stderr(&result)
        );
        assert!(result.status.success(), "{text}");
        text
    };
    let sound = dir.path().join("sound.gltf");
    to_gltf(&sound);
    assert!(bad_texture(&sound).is_some());
    let mut bytes = std::fs::read(&g4b).unwrap();
    let at = bytes
        .windows(image.len())
        .position(|w| w == image.as_slice())
        .expect("the image embedded as it is");
    let idat = at + image.windows(4).position(|w| w == b"IDAT").unwrap() + 4;
    bytes[idat..idat + 6].fill(0xAA);
    std::fs::write(&g4b, &bytes).unwrap();
    let broken = dir.path().join("broken.gltf");
    let text = to_gltf(&broken);
    assert!(
        text.contains(
            "warning   IMAGE_LEFT_OUT: the image of aTexture cannot be used (cannot be decoded"
        ),
        "{text}"
    );
    assert_eq!(bad_texture(&broken), None, "{text}");
}
