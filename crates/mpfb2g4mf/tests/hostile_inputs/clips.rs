//! Hostile animation clips through `preview --clip` (issue 42): hand-made `.gltf` files whose
//! animation accessors have wrong counts, wrong types, times that are not numbers or do not
//! increase, values that are not numbers, and channels that animate what cannot move; and the
//! refusals of the flags themselves (an unknown clip, `--clip` on a G4MF file or a glTF file
//! without animations, `--time` without `--clip`, a negative or NaN time). Each is one located
//! line and no picture, never a panic.

use super::{cli, refused, stderr};
use serde_json::{Value, json};
use std::f32::consts::FRAC_1_SQRT_2;
use std::path::{Path, PathBuf};
use test_support::gltf::GltfBuilder;

/// A triangle on node 0 and an animation `wave` over it: one sampler from key times
/// `times` (SCALAR) to `values` of `ty` driving node 0's `path`; `edit` changes the
/// document last.
fn clip_file(
    dir: &Path,
    name: &str,
    (times, values, ty, path): (&[f32], &[f32], &str, &str),
    edit: impl FnOnce(&mut Value),
) -> PathBuf {
    let mut b = GltfBuilder::new();
    let mesh = b.mesh(
        &[0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0],
        None,
        &[],
        None,
    );
    b.root_node(json!({"mesh": mesh}));
    let input = b.floats(times, "SCALAR");
    let output = b.floats(values, ty);
    b.push(
        "animations",
        json!({
            "name": "wave",
            "samplers": [{"input": input, "output": output}],
            "channels": [{"sampler": 0, "target": {"node": 0, "path": path}}]
        }),
    );
    edit(&mut b.json);
    let file = dir.join(name);
    std::fs::write(&file, b.gltf_embedded()).unwrap();
    file
}

/// A good clip: a quarter turn about Z over 1 s.
const TURN: (&[f32], &[f32], &str, &str) = (
    &[0.0, 1.0],
    &[0.0, 0.0, 0.0, 1.0, 0.0, 0.0, FRAC_1_SQRT_2, FRAC_1_SQRT_2],
    "VEC4",
    "rotation",
);

fn preview(file: &Path, out: &Path, args: &[&str]) -> std::process::Output {
    cli()
        .arg("preview")
        .arg(file)
        .args(["--size", "32", "-o"])
        .arg(out)
        .args(args)
        .output()
        .unwrap()
}

#[test]
fn broken_clip_accessors_are_refused_in_one_located_line() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("frame.png");
    let nan = f32::NAN;
    let s = FRAC_1_SQRT_2;
    let cases: Vec<(&str, PathBuf, &[&str])> = vec![
        (
            "three rotations for two keys",
            clip_file(
                dir.path(),
                "count.gltf",
                (
                    &[0.0, 1.0],
                    &[0.0, 0.0, 0.0, 1.0, 0.0, 0.0, s, s, 0.0, 0.0, 0.0, 1.0],
                    "VEC4",
                    "rotation",
                ),
                |_| {},
            ),
            &[
                "/animations/0/samplers/0/output",
                "12 values in elements of 4 for 2 keys",
            ],
        ),
        (
            "a rotation that is not a number",
            clip_file(
                dir.path(),
                "nan-value.gltf",
                (
                    &[0.0, 1.0],
                    &[0.0, 0.0, 0.0, 1.0, nan, 0.0, s, s],
                    "VEC4",
                    "rotation",
                ),
                |_| {},
            ),
            &[
                "/animations/0/samplers/0/output",
                "value 4 (key 1) is not a finite number",
            ],
        ),
        (
            "a key time that is not a number",
            clip_file(
                dir.path(),
                "nan-time.gltf",
                (&[0.0, nan], TURN.1, "VEC4", "rotation"),
                |_| {},
            ),
            &[
                "/animations/0/samplers/0/input",
                "key 1 is not a finite number",
            ],
        ),
        (
            "times going back",
            clip_file(
                dir.path(),
                "back.gltf",
                (&[1.0, 0.5], TURN.1, "VEC4", "rotation"),
                |_| {},
            ),
            &[
                "/animations/0/samplers/0/input",
                "key 1 (0.5 s) is not after key 0 (1 s)",
            ],
        ),
        (
            "rotations as VEC3",
            clip_file(
                dir.path(),
                "vec3.gltf",
                (&[0.0, 1.0], &[0.0; 6], "VEC3", "rotation"),
                |_| {},
            ),
            &["/animations/0/samplers/0/output", "in elements of 3"],
        ),
        (
            "a rotation of no length",
            clip_file(
                dir.path(),
                "zero.gltf",
                (&[0.0, 1.0], &[0.0; 8], "VEC4", "rotation"),
                |_| {},
            ),
            &["/animations/0/samplers/0/output", "has no length"],
        ),
        (
            "morph weights of a node without a mesh",
            clip_file(
                dir.path(),
                "weights.gltf",
                (&[0.0, 1.0], &[0.0, 1.0], "SCALAR", "weights"),
                |json| {
                    json["nodes"][0]["mesh"] = Value::Null;
                    json["nodes"][0].as_object_mut().unwrap().remove("mesh");
                },
            ),
            &["/animations/0/channels/0/target", "which has no mesh"],
        ),
        (
            "a channel naming a sampler that is not there",
            clip_file(dir.path(), "sampler.gltf", TURN, |json| {
                json["animations"][0]["channels"][0]["sampler"] = json!(7);
            }),
            &["/animations/0/channels/0/sampler", "not an index"],
        ),
        (
            "a million keys declared over a few bytes",
            clip_file(dir.path(), "million.gltf", TURN, |json| {
                let input = json["animations"][0]["samplers"][0]["input"]
                    .as_u64()
                    .unwrap();
                json["accessors"][input as usize]["count"] = json!(1_000_000);
            }),
            &["/accessors/"],
        ),
    ];
    for (what, file, expected) in cases {
        let output = preview(&file, &out, &["--clip", "wave", "--time", "0.5"]);
        let name = file.file_name().unwrap().to_str().unwrap().to_owned();
        let mut expected = expected.to_vec();
        expected.push(&name);
        refused(&output, &out, &expected);
        assert!(!stderr(&output).contains("panicked"), "{what}");
    }
    // The same file with good accessors is drawn.
    let good = clip_file(dir.path(), "good.gltf", TURN, |_| {});
    let output = preview(&good, &out, &["--clip", "wave", "--time", "0.5"]);
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(out.exists());
}

#[test]
fn clip_flags_that_cannot_be_met_are_refused_in_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("frame.png");
    let good = clip_file(dir.path(), "good.gltf", TURN, |_| {});
    refused(
        &preview(&good, &out, &["--clip", "wav"]),
        &out,
        &[
            "good.gltf",
            "no animation `wav` (did you mean `wave`?); the file has 1: `wave`",
        ],
    );
    let still = clip_file(dir.path(), "still.gltf", TURN, |json| {
        json.as_object_mut().unwrap().remove("animations");
    });
    refused(
        &preview(&still, &out, &["--clip", "wave"]),
        &out,
        &[
            "still.gltf",
            "the file has no animations, so no clip `wave` to draw",
        ],
    );
    refused(
        &preview(&good, &out, &["--time", "0.5"]),
        &out,
        &["--time is a time into a clip: give the clip with --clip NAME"],
    );
    // A G4MF file has no animation section.
    let g4mf = dir.path().join("square.g4tf");
    let spec = test_support::tiny::TinyCharacter::new("Square")
        .positions(vec![
            glam::DVec3::ZERO,
            glam::DVec3::X,
            glam::DVec3::new(1.0, 1.0, 0.0),
        ])
        .faces(&[&[0, 1, 2]])
        .spec();
    std::fs::write(&g4mf, test_support::tiny::g4tf_text(&spec)).unwrap();
    refused(
        &preview(&g4mf, &out, &["--clip", "wave"]),
        &out,
        &["square.g4tf", "G4MF files hold no animation clips"],
    );
    // Times that are not seconds are refused as flag values (clap's usage error, exit 2).
    for time in ["-1", "NaN", "inf", "0.5,,1"] {
        let output = preview(&good, &out, &["--clip", "wave", "--time", time]);
        assert_eq!(output.status.code(), Some(2), "{time}: {}", stderr(&output));
        assert!(
            stderr(&output).contains("is not a time"),
            "{time}: {}",
            stderr(&output)
        );
        assert!(!out.exists());
    }
}

#[test]
fn a_frame_strip_draws_each_time_side_by_side() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("strip.png");
    let good = clip_file(dir.path(), "good.gltf", TURN, |_| {});
    let output = preview(&good, &out, &["--clip", "wave", "--time", "0,1,3"]);
    assert!(output.status.success(), "{}", stderr(&output));
    // Past the clip's end its last key holds, and the warning says so once.
    let text = stderr(&output);
    assert_eq!(text.matches("drawn at its last key").count(), 1, "{text}");
    let strip = image::open(&out).unwrap().to_rgba8();
    assert_eq!((strip.width(), strip.height()), (96, 32));
    // Below each panel's label (its time).
    let panel = |k: u32| image::imageops::crop_imm(&strip, 32 * k, 14, 32, 18).to_image();
    // A quarter turn changes the picture; times past the end draw the end.
    assert!(panel(0) != panel(1), "the turn does not show");
    assert!(panel(1) == panel(2), "past the end is not the end");
}
