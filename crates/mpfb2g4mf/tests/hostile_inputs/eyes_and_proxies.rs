//! Issue 41's eyes, body topologies, capped index and rig names through the real CLI:
//! `--eye-material` colouring the helper eyes' painted iris, a body topology keeping the
//! eyes, teeth and tongue, an asset past the index's cap found by its name, and an unknown
//! rig answered with near names.

use super::{cli, fake_assets, stderr};
use g4mf_reader::{ReadOptions, read_path};
use std::path::{Path, PathBuf};
use std::process::Output;

/// `convert --rig-name RIG --mpfb-data DATA -o OUT ARGS` (the face helpers kept).
fn convert_face(data: &Path, out: &Path, args: &[&str]) -> Output {
    cli()
        .args(["convert", "--json", "--rig-name", "default", "--mpfb-data"])
        .arg(data)
        .arg("-o")
        .arg(out)
        .args(args)
        .output()
        .unwrap()
}

/// The real MakeHuman assets folder holding `files`, or `None` after skipping (or failing,
/// where the data is required) `test`.
fn assets_with(test: &str, files: &[&str]) -> Option<PathBuf> {
    match test_support::makehuman_assets_with(files) {
        Ok(folder) => Some(folder),
        Err(why) => {
            test_support::skip_or_fail(test, &why);
            None
        }
    }
}

/// The summary's warnings of a `--json` run.
fn warnings(output: &Output) -> Vec<String> {
    let summary: serde_json::Value = serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", stderr(output)));
    summary["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w.to_string())
        .collect()
}

/// The decoded base-colour image of the material named `material` in the `.g4b` at `path`.
fn base_color_image(path: &Path, material: &str) -> image::RgbImage {
    let file = read_path(path, &ReadOptions::default()).unwrap();
    let doc = &file.document;
    let m = doc
        .materials
        .iter()
        .find(|m| m.name.as_deref() == Some(material))
        .unwrap_or_else(|| panic!("no material {material}"));
    let texture =
        &doc.other["textures"][m.other["baseColor"]["texture"].as_u64().unwrap() as usize];
    let entry = &doc.other["files"][texture["files"][0].as_u64().unwrap() as usize];
    let view = &doc.buffer_views[entry["bufferView"].as_u64().unwrap() as usize];
    let start = view.byte_offset() as usize;
    let bytes = &file.buffers[view.buffer().get()][start..start + view.byte_length as usize];
    image::load_from_memory(bytes).unwrap().to_rgb8()
}

/// The painted iris's texels of `image` (neither the sclera nor the near-black pupil), each
/// checked to be `srgb` (the table's colour) shaded: one factor on every channel, within
/// rounding. Returns how many there are.
fn iris_texels_in(image: &image::RgbImage, srgb: [f64; 3]) -> usize {
    let sclera = [0.93f64, 0.91, 0.89].map(|c| (c * 255.0).round() as u8);
    let mut count = 0;
    for pixel in image.pixels() {
        let p = pixel.0;
        if p == sclera || p.iter().all(|&c| c < 12) {
            continue;
        }
        // The shade from the brightest channel of the table's colour.
        let brightest = (0..3).max_by(|&a, &b| srgb[a].total_cmp(&srgb[b])).unwrap();
        let shade = f64::from(p[brightest]) / 255.0 / srgb[brightest];
        for channel in 0..3 {
            let expected = (srgb[channel] * shade * 255.0).min(255.0);
            assert!(
                (f64::from(p[channel]) - expected).abs() <= 2.5,
                "texel {p:?} is not {srgb:?} shaded ({shade})"
            );
        }
        count += 1;
    }
    count
}

#[test]
fn eye_material_colours_the_helper_eyes_painted_iris() {
    let data = test_support::mpfb_data_or_skip!(eye_material_colours_the_helper_eyes_painted_iris);
    let materials = ["blue", "green"].map(|m| format!("eyes/materials/{m}.mhmat"));
    let Some(real) = assets_with(
        "eye_material_helper_eyes",
        &[materials[0].as_str(), materials[1].as_str()],
    ) else {
        return;
    };
    // An assets folder with eye materials but no eye asset: the base mesh's helper eyes are
    // worn.
    let dir = tempfile::tempdir().unwrap();
    let assets = dir.path().join("assets");
    std::fs::create_dir_all(assets.join("eyes/materials")).unwrap();
    for file in &materials {
        std::fs::copy(real.join(file), assets.join(file)).unwrap();
    }
    std::fs::write(
        assets.join("eyes/materials/violet.mhmat"),
        "name Eyeviolet\ndiffuseColor 1 1 1\n",
    )
    .unwrap();
    let assets_flag = assets.to_str().unwrap();
    // The table of `spec-notes/textures.md`.
    let table = [("blue", [0.24, 0.44, 0.74]), ("green", [0.30, 0.50, 0.22])];
    let mut images = Vec::new();
    for (name, srgb) in table {
        let out = dir.path().join(format!("{name}.g4b"));
        let result = convert_face(
            &data,
            &out,
            &["--assets", assets_flag, "--eye-material", name],
        );
        assert!(result.status.success(), "{name}: {}", stderr(&result));
        let said = warnings(&result);
        assert!(
            said.iter()
                .any(|w| w.contains(r#""code":"HELPER_IRIS_FROM_NAME""#)
                    && w.contains(&format!("iris painted `{name}`"))
                    && w.contains(&format!("{name}.mhmat"))),
            "{name}: {said:?}"
        );
        let image = base_color_image(&out, "EyeMaterial");
        assert!(iris_texels_in(&image, srgb) > 40, "{name}: no iris painted");
        images.push(image);
    }
    assert!(images[0] != images[1], "blue and green paint the same iris");

    // A material whose name gives no colour we know: brown, said.
    let out = dir.path().join("violet.g4b");
    let result = convert_face(
        &data,
        &out,
        &["--assets", assets_flag, "--eye-material", "violet"],
    );
    assert!(result.status.success(), "{}", stderr(&result));
    let said = warnings(&result);
    assert!(
        said.iter()
            .any(|w| w.contains(r#""code":"HELPER_IRIS_UNKNOWN""#)
                && w.contains("violet.mhmat names no iris colour we know")
                && w.contains("`brown`")),
        "{said:?}"
    );
    assert!(iris_texels_in(&base_color_image(&out, "EyeMaterial"), [0.36, 0.17, 0.08]) > 40);

    // Helpers left out keep no eyes to paint: the colour asked is not drawn, and said.
    let out = dir.path().join("no-eyes.g4b");
    let result = convert_face(
        &data,
        &out,
        &[
            "--assets",
            assets_flag,
            "--eye-material",
            "blue",
            "--helpers",
            "none",
        ],
    );
    assert!(result.status.success(), "{}", stderr(&result));
    let said = warnings(&result);
    assert!(
        said.iter()
            .any(|w| w.contains(r#""code":"HELPER_IRIS_NOT_DRAWN""#)
                && w.contains("`--helpers none` keeps no eyes: blue.mhmat's colour is not drawn")),
        "{said:?}"
    );

    // A material file is read as a material: one that is not is refused.
    std::fs::write(assets.join("notes.mhmat"), "These are my notes.\n").unwrap();
    let out = dir.path().join("notes.g4b");
    let notes = assets.join("notes.mhmat");
    let result = convert_face(
        &data,
        &out,
        &[
            "--assets",
            assets_flag,
            "--eye-material",
            notes.to_str().unwrap(),
        ],
    );
    assert_eq!(result.status.code(), Some(1), "{}", stderr(&result));
    assert!(
        stderr(&result).contains("notes.mhmat"),
        "{}",
        stderr(&result)
    );
    assert!(!out.exists());
}

/// The surface names of every mesh of the `.g4b` at `path`, by mesh name.
fn surfaces(path: &Path) -> Vec<(String, Vec<String>)> {
    let file = read_path(path, &ReadOptions::default()).unwrap();
    file.document
        .meshes
        .iter()
        .map(|m| {
            (
                m.name.clone().unwrap_or_default(),
                m.surfaces
                    .iter()
                    .map(|s| s.name.clone().unwrap_or_default())
                    .collect(),
            )
        })
        .collect()
}

#[test]
fn a_body_topology_keeps_its_eyes_teeth_and_tongue() {
    let data = test_support::mpfb_data_or_skip!(a_body_topology_keeps_its_eyes_teeth_and_tongue);
    let mut files = vec!["proxymeshes/proxy741/proxy741.proxy"];
    files.extend(test_support::DEFAULT_EYES);
    let Some(assets) = assets_with("proxy_keeps_face", &files) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let assets_flag = assets.to_str().unwrap();
    let has = |meshes: &[(String, Vec<String>)], surface: &str| {
        meshes.iter().any(|(_, s)| s.iter().any(|n| n == surface))
    };
    // MakeHuman's default eyes (an asset) and the helper teeth and tongue.
    let out = dir.path().join("proxy.g4b");
    let result = convert_face(
        &data,
        &out,
        &["--assets", assets_flag, "--proxy", "proxy741"],
    );
    assert!(result.status.success(), "{}", stderr(&result));
    let meshes = surfaces(&out);
    assert!(
        meshes.iter().any(|(name, _)| name.contains("HighPolyEyes")),
        "{meshes:?}"
    );
    for part in ["Body", "UpperTeeth", "LowerTeeth", "Tongue"] {
        assert!(has(&meshes, part), "no {part}: {meshes:?}");
    }
    assert!(
        !has(&meshes, "LeftEye"),
        "proxy eyes replace the helper eyes"
    );
    // Every vertex moved by a bone: the teeth and tongue follow the jaw and tongue bones.
    let summary: serde_json::Value = serde_json::from_slice(&result.stdout).unwrap();
    assert_eq!(summary["unweighted_vertices"], 0, "{summary}");

    // Without an eye asset the helper eyes stay, in their painted iris.
    let out = dir.path().join("helper-eyes.g4b");
    let result = convert_face(
        &data,
        &out,
        &[
            "--assets",
            assets_flag,
            "--proxy",
            "proxy741",
            "--eyes",
            "none",
        ],
    );
    assert!(result.status.success(), "{}", stderr(&result));
    let meshes = surfaces(&out);
    for part in ["LeftEye", "RightEye", "UpperTeeth", "Tongue"] {
        assert!(has(&meshes, part), "no {part}: {meshes:?}");
    }
    assert_eq!(meshes.len(), 1, "{meshes:?}");

    // `--helpers none` keeps none of them, as on the base mesh.
    let out = dir.path().join("bare.g4b");
    let result = convert_face(
        &data,
        &out,
        &[
            "--assets",
            assets_flag,
            "--proxy",
            "proxy741",
            "--eyes",
            "none",
            "--helpers",
            "none",
        ],
    );
    assert!(result.status.success(), "{}", stderr(&result));
    let meshes = surfaces(&out);
    assert_eq!(meshes.len(), 1, "{meshes:?}");
    assert_eq!(meshes[0].1, ["Body"], "{meshes:?}");
}

#[test]
fn an_asset_past_the_index_cap_is_found_by_its_name() {
    let data = test_support::mpfb_data_or_skip!(an_asset_past_the_index_cap_is_found_by_its_name);
    let dir = tempfile::tempdir().unwrap();
    let (assets, _) = fake_assets(
        dir.path(),
        "capped",
        "name bad\nobj_file bad.obj\nverts 0\n1\n2\n3\n",
    );
    // 20,000 files beside the asset's folder fill the index's cap before the walk reaches it.
    let clothes = assets.join("clothes");
    for i in 0..20_000 {
        std::fs::write(clothes.join(format!("filler{i:05}.mhclo")), "").unwrap();
    }
    let assets_flag = assets.to_str().unwrap();
    let out = dir.path().join("out.g4b");
    let result = super::convert(
        &data,
        &out,
        &[
            "--rig-name",
            "default",
            "--assets",
            assets_flag,
            "--clothes",
            "bad",
        ],
    );
    assert!(result.status.success(), "{}", stderr(&result));
    assert!(out.exists());
    // A near name is looked for in the index only, and the cap is said.
    let out = dir.path().join("near.g4b");
    let result = super::convert(
        &data,
        &out,
        &[
            "--rig-name",
            "default",
            "--assets",
            assets_flag,
            "--clothes",
            "bda",
        ],
    );
    super::refused(
        &result,
        &out,
        &[
            "`bda`",
            "only the first 20000 `.mhclo` files",
            "NAME/NAME.mhclo",
        ],
    );
}

#[test]
fn an_unknown_rig_is_answered_with_near_names() {
    let data = test_support::mpfb_data_or_skip!(an_unknown_rig_is_answered_with_near_names);
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.g4b");
    let result = cli()
        .args(["convert", "--rig-name", "defualt", "--mpfb-data"])
        .arg(&data)
        .arg("-o")
        .arg(&out)
        .output()
        .unwrap();
    super::refused(&result, &out, &["`defualt`", "did you mean `default`"]);

    let manifest = dir.path().join("jobs.toml");
    std::fs::write(
        &manifest,
        format!(
            "[defaults]\nmpfb_data = {:?}\n[[jobs]]\nrig_name = \"gam_engine\"\noutput = \"a.g4b\"\n",
            data.display().to_string()
        ),
    )
    .unwrap();
    let result = cli().arg("batch").arg(&manifest).output().unwrap();
    let text = stderr(&result);
    assert_eq!(result.status.code(), Some(1), "{text}");
    assert!(
        text.contains("jobs.toml") && text.contains("did you mean `game_engine`"),
        "{text}"
    );
    assert!(!dir.path().join("a.g4b").exists());
}
