//! `to-mpfb`: blend shapes written back as MakeHuman target files equal to the inputs.

use crate::common::{convert_default, run, stderr, target_map};

/// `to-mpfb` writes every shape back as a MakeHuman target equal to the input at float32
/// precision (with every helper kept, so nothing was dropped).
#[test]
fn blend_shapes_go_back_to_target_files() {
    let data = test_support::mpfb_data_or_skip!(blend_shapes_go_back_to_target_files);
    let out = tempfile::tempdir().unwrap();
    let model = out.path().join("face.g4b");
    let result = convert_default(
        &data,
        &model,
        &["--face-units", "--visemes", "--helpers", "all"],
    )
    .output()
    .unwrap();
    assert!(result.status.success(), "{}", stderr(&result));
    let back = out.path().join("back");
    let result = run(&[
        "to-mpfb",
        model.to_str().unwrap(),
        "--out-dir",
        back.to_str().unwrap(),
        "--quiet",
    ]);
    assert!(result.status.success(), "{}", stderr(&result));
    let mut files = 0;
    for folder in ["faceunits", "visemes"] {
        for entry in std::fs::read_dir(data.join("targets").join(folder)).unwrap() {
            let input = entry.unwrap().path();
            if input.extension().is_none_or(|e| e != "target") {
                continue; // a data folder may hold a pack's notes beside its targets
            }
            let output = back
                .join("targets")
                .join(folder)
                .join(input.file_name().unwrap());
            let (a, b) = (target_map(&input), target_map(&output));
            assert_eq!(a.keys().collect::<Vec<_>>(), b.keys().collect::<Vec<_>>());
            for (v, d) in &a {
                for k in 0..3 {
                    let e = b[v][k];
                    assert!(
                        (d[k] - e).abs() <= 1e-6 * d[k].abs().max(1e-3),
                        "{}: vertex {v}: {d:?} vs {:?}",
                        input.display(),
                        b[v]
                    );
                }
            }
            files += 1;
        }
    }
    assert_eq!(files, 67);
}

#[test]
fn to_mpfb_refuses_the_mesh_scales_convert_refuses() {
    // The bounds are `options::MESH_SCALES`, checked before any file is read.
    for scale in ["0", "NaN", "1e7", "inf"] {
        let output = run(&[
            "to-mpfb",
            "no-such.g4b",
            "--out-dir",
            "no-such-dir",
            "--mesh-scale",
            scale,
        ]);
        assert_eq!(output.status.code(), Some(2), "{scale}");
        let said = stderr(&output);
        assert!(
            said.contains("the mesh scale must be between 1e-6 and 1e6"),
            "{scale}: {said}"
        );
    }
}
