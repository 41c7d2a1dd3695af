//! `preview` (the figure in its proportions, centred) and `convert --thumbnail` (an embedded
//! PNG the validator accepts).

use crate::common::{convert_default, run, stderr};
use g4mf_reader::{ReadOptions, read_path};

/// `preview` of the default character: the figure's height and width in pixels are the body's
/// own proportions, front and side, at the scale the picture promises (90% of the panel for
/// the larger side).
#[test]
fn preview_draws_the_character_in_its_proportions() {
    let data = test_support::mpfb_data_or_skip!(preview_draws_the_character_in_its_proportions);
    let out = tempfile::tempdir().unwrap();
    let model = out.path().join("d.g4b");
    let result = convert_default(&data, &model, &[]).output().unwrap();
    assert!(result.status.success(), "{}", stderr(&result));
    let file = read_path(&model, &ReadOptions::default()).unwrap();
    let positions = file.read_f64(file.document.meshes[0].vertices).unwrap();
    let extent = |axis: usize| {
        let values = positions.iter().skip(axis).step_by(3);
        let (lo, hi) = values.fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &v| {
            (lo.min(v), hi.max(v))
        });
        hi - lo
    };
    let (width, height) = (300.0, 600.0);
    for (view, across) in [("front", extent(0)), ("side", extent(2))] {
        let png = out.path().join(format!("{view}.png"));
        let result = run(&[
            "preview",
            model.to_str().unwrap(),
            "--view",
            view,
            "--size",
            "300x600",
            "-o",
            png.to_str().unwrap(),
        ]);
        assert!(result.status.success(), "{view}: {}", stderr(&result));
        let image = image::open(&png).unwrap().to_rgba8();
        assert_eq!(image.dimensions(), (300, 600));
        let background = *image.get_pixel(0, 0);
        let (mut lo, mut hi) = ((u32::MAX, u32::MAX), (0, 0));
        for (x, y, p) in image.enumerate_pixels() {
            if *p != background {
                lo = (lo.0.min(x), lo.1.min(y));
                hi = (hi.0.max(x), hi.1.max(y));
            }
        }
        let scale = (0.9 * width / across).min(0.9 * height / extent(1));
        let figure = ((hi.0 - lo.0 + 1) as f64, (hi.1 - lo.1 + 1) as f64);
        let expected = (across * scale, extent(1) * scale);
        assert!(
            (figure.0 - expected.0).abs() <= 2.0 && (figure.1 - expected.1).abs() <= 2.0,
            "{view}: figure {figure:?} px, body {expected:?} px"
        );
        // The figure is centred.
        let centre = ((lo.0 + hi.0) as f64 / 2.0, (lo.1 + hi.1) as f64 / 2.0);
        assert!((centre.0 - width / 2.0).abs() <= 2.0 && (centre.1 - height / 2.0).abs() <= 2.0);
    }
}

/// `convert --thumbnail` embeds a PNG front view as `asset.thumbnail` (a 2D texture whose one
/// file lives in a buffer view) and the validator accepts it.
#[test]
fn thumbnails_are_embedded_pngs_the_validator_accepts() {
    let data = test_support::mpfb_data_or_skip!(thumbnails_are_embedded_pngs_the_validator_accepts);
    let out = tempfile::tempdir().unwrap();
    let model = out.path().join("t.g4b");
    let result = convert_default(&data, &model, &["--thumbnail", "--validate"])
        .output()
        .unwrap();
    assert!(result.status.success(), "{}", stderr(&result));
    let file = read_path(&model, &ReadOptions::default()).unwrap();
    let doc = &file.document;
    let texture = &doc.other["textures"][doc.asset.other["thumbnail"].as_u64().unwrap() as usize];
    assert_eq!(texture["size"], serde_json::json!([256, 256]));
    let reference = &doc.other["files"][texture["files"][0].as_u64().unwrap() as usize];
    assert_eq!(reference["mimeType"], "image/png");
    let view = &doc.buffer_views[reference["bufferView"].as_u64().unwrap() as usize];
    let start = view.byte_offset() as usize;
    let png = &file.buffers[0][start..start + view.byte_length as usize];
    let image = image::load_from_memory_with_format(png, image::ImageFormat::Png)
        .unwrap()
        .to_rgba8();
    assert_eq!(image.dimensions(), (256, 256));
    // The figure fills the picture's height (90%, the preview's framing), head to feet.
    let background = *image.get_pixel(0, 0);
    let rows: Vec<u32> = (0..256)
        .filter(|&y| (0..256).any(|x| *image.get_pixel(x, y) != background))
        .collect();
    let height = rows.last().unwrap() - rows.first().unwrap() + 1;
    assert!((228..=232).contains(&height), "figure {height} px high");
    // The file still goes back to MPFB.
    let back = out.path().join("back");
    let result = run(&[
        "to-mpfb",
        model.to_str().unwrap(),
        "--out-dir",
        back.to_str().unwrap(),
    ]);
    assert!(result.status.success(), "{}", stderr(&result));
}

/// `preview` draws a `.glb` beside a `.g4b` at one scale, closes up on a glTF joint by its
/// node name, and says which file a warning is about.
#[test]
fn preview_draws_gltf_files_beside_g4mf_files() {
    use serde_json::json;
    use test_support::gltf::GltfBuilder;
    let out = tempfile::tempdir().unwrap();
    let g4b = out.path().join("tri.g4b");
    let tiny = test_support::tiny::TinyCharacter::new("Tri").bone("root", glam::DVec3::ZERO, 1.0);
    std::fs::write(&g4b, tiny.g4b_bytes()).unwrap();
    let mut b = GltfBuilder::new();
    let square = [0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 1.0, 1.0, 0.0, 0.0, 1.0, 0.0];
    let joints = b.integers(&[0; 16], "VEC4", 5121);
    let weights = b.floats(&[[1.0f32, 0.0, 0.0, 0.0]; 4].concat(), "VEC4");
    let mesh = b.mesh(
        &square,
        Some(&[0, 1, 2, 0, 2, 3]),
        &[("JOINTS_0", joints), ("WEIGHTS_0", weights)],
        None,
    );
    b.root_node(json!({"name": "hip"}));
    b.push("skins", json!({"joints": [0]}));
    b.root_node(json!({"mesh": mesh, "skin": 0}));
    let glb = out.path().join("quad.glb");
    std::fs::write(&glb, b.glb()).unwrap();
    let png = out.path().join("both.png");
    let result = run(&[
        "preview",
        g4b.to_str().unwrap(),
        glb.to_str().unwrap(),
        "--size",
        "64",
        "--bones",
        "-o",
        png.to_str().unwrap(),
    ]);
    assert!(result.status.success(), "{}", stderr(&result));
    assert_eq!(
        image::open(&png).unwrap().to_rgba8().dimensions(),
        (128, 64)
    );
    let close = out.path().join("hip.png");
    let result = run(&[
        "preview",
        glb.to_str().unwrap(),
        "--focus",
        "hip",
        "-o",
        close.to_str().unwrap(),
    ]);
    assert!(result.status.success(), "{}", stderr(&result));
    // A morph target name the file lacks: one line naming the file.
    let result = run(&[
        "preview",
        glb.to_str().unwrap(),
        "--blend",
        "Smile=1",
        "-o",
        close.to_str().unwrap(),
    ]);
    assert_eq!(result.status.code(), Some(1));
    let text = stderr(&result);
    assert_eq!(text.lines().count(), 1, "{text}");
    assert!(
        text.contains("quad.glb: no morph target `Smile` in the file (it has: none)"),
        "{text}"
    );
}
