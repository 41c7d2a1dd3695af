//! Hostile files of the motion readers reached through `--expression-shapes`: the face pose
//! units' BVH (NaN channels, unknown channel names, 10,000-deep nesting, a million frames
//! declared), a `.mhpose` naming unknown units or holding a string weight, a broken skeleton:
//! one located line and no output, or, for unknown units, a warning naming them; and the same
//! readers through `--pose` and `--animation`, with the clip limits (frames times bones, the
//! frame time).

use super::{cli, stderr};
use std::path::{Path, PathBuf};

/// An assets folder holding MakeHuman's files for expressions (copied from the shared
/// assets), with `replace` written over some of them.
fn motion_assets(dir: &Path, shared: &Path, replace: &[(&str, &str)]) -> PathBuf {
    let assets = dir.join("assets");
    let _ = std::fs::remove_dir_all(&assets);
    for file in mpfb2g4mf::expressions::MAKEHUMAN_FILES
        .iter()
        .chain(&["expressions/smile01.mhpose"])
    {
        let to = assets.join(file);
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        std::fs::copy(shared.join(file), &to).unwrap();
    }
    // Something to wear is not asked: the clothes folder only makes it an assets folder.
    std::fs::create_dir_all(assets.join("clothes")).unwrap();
    for (file, text) in replace {
        let to = assets.join(file);
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        std::fs::write(to, text).unwrap();
    }
    assets
}

fn faces(data: &Path, assets: &Path, out: &Path, names: &str) -> std::process::Output {
    cli()
        .args(["convert", "--rig-name", "game_engine", "--mpfb-data"])
        .arg(data)
        .arg("--assets")
        .arg(assets)
        .args(["--eyes", "none", "--expression-shapes", names, "-o"])
        .arg(out)
        .output()
        .unwrap()
}

#[test]
fn hostile_motion_files_are_refused_on_one_located_line() {
    let data =
        test_support::mpfb_data_or_skip!(hostile_motion_files_are_refused_on_one_located_line);
    let mut needed = mpfb2g4mf::expressions::MAKEHUMAN_FILES.to_vec();
    needed.push("expressions/smile01.mhpose");
    let shared = test_support::makehuman_assets_or_skip!(
        hostile_motion_files_are_refused_on_one_located_line,
        &needed
    );
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.g4b");
    let units = std::fs::read_to_string(shared.join("poseunits/face-poseunits.bvh")).unwrap();
    let first_frame = units.find("\nMOTION").unwrap();
    let mut deep = String::from(
        "HIERARCHY\nROOT j0\n{\nOFFSET 0 0 0\nCHANNELS 3 Xrotation Yrotation Zrotation\n",
    );
    for i in 1..10_000 {
        deep.push_str(&format!(
            "JOINT j{i}\n{{\nOFFSET 0 0 1\nCHANNELS 3 Xrotation Yrotation Zrotation\n"
        ));
    }
    let million = format!(
        "{}\nMOTION\nFrames: 1000000000\nFrame Time: 0.04\n",
        &units[..first_frame]
    );
    // A NaN among the frames' values (after the frame time line).
    let frames_start = units.find("Frame Time:").unwrap();
    let values_start = frames_start + units[frames_start..].find('\n').unwrap();
    let nan = format!(
        "{}{}",
        &units[..values_start],
        units[values_start..].replacen(" 0.000000", " NaN", 1)
    );
    let unknown_channel = units.replacen("Xrotation", "Wrotation", 1);
    let bvh = "poseunits/face-poseunits.bvh";
    for (file, text, expected) in [
        (bvh, nan.as_str(), "a channel value `NaN` is not finite"),
        (bvh, unknown_channel.as_str(), "unknown channel `Wrotation`"),
        (bvh, deep.as_str(), "nest deeper than 256"),
        (bvh, million.as_str(), "more than 16777216 values"),
        (
            "expressions/smile01.mhpose",
            r#"{"unit_poses": {"MouthLeftPullUp": "lots"}}"#,
            "smile01.mhpose: /unit_poses/MouthLeftPullUp: expected a finite number",
        ),
        (
            "rigs/default.mhskel",
            r#"{"bones": {"a": {"head": "h", "tail": "t", "parent": "b"}}, "joints": {"h": [1], "t": [2]}}"#,
            "default.mhskel: /bones/a/parent",
        ),
    ] {
        let assets = motion_assets(dir.path(), &shared, &[(file, text)]);
        let result = faces(&data, &assets, &out, "smile01");
        let said = stderr(&result);
        assert_eq!(result.status.code(), Some(1), "{expected}: {said}");
        assert_eq!(said.lines().count(), 1, "{expected}: one line: {said}");
        assert!(said.contains(expected), "{expected}: {said}");
        assert!(!out.exists(), "{expected}: a file was written");
    }
    // Units the pose units lack are skipped, as MPFB skips unknown face units, and said.
    let assets = motion_assets(
        dir.path(),
        &shared,
        &[(
            "expressions/smile01.mhpose",
            r#"{"unit_poses": {"MouthLeftPullUp": 0.6, "NoSuchUnit": 1.0}}"#,
        )],
    );
    let result = faces(&data, &assets, &out, "smile01");
    let said = stderr(&result);
    assert!(result.status.success(), "{said}");
    assert!(
        said.contains("warning   EXPRESSION_UNITS_SKIPPED: expression smile01: NoSuchUnit not among the pose units, skipped"),
        "{said}"
    );
}

/// A one-joint BVH (`root`, three rotation channels) with `frames` frames of zeros every
/// `time` seconds.
fn one_joint(frames: usize, time: &str) -> String {
    let mut text = format!(
        "HIERARCHY\nROOT root\n{{\nOFFSET 0 0 0\nCHANNELS 3 Zrotation Xrotation Yrotation\nEnd Site\n{{\nOFFSET 0 0 1\n}}\n}}\nMOTION\nFrames: {frames}\nFrame Time: {time}\n"
    );
    for _ in 0..frames {
        text.push_str("0 0 0\n");
    }
    text
}

#[test]
fn hostile_pose_and_clip_files_are_refused_on_one_located_line() {
    let data = test_support::mpfb_data_or_skip!(
        hostile_pose_and_clip_files_are_refused_on_one_located_line
    );
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.glb");
    let deep = {
        let mut text = String::from(
            "HIERARCHY\nROOT j0\n{\nOFFSET 0 0 0\nCHANNELS 3 Xrotation Yrotation Zrotation\n",
        );
        for i in 1..10_000 {
            text.push_str(&format!(
                "JOINT j{i}\n{{\nOFFSET 0 0 1\nCHANNELS 3 Xrotation Yrotation Zrotation\n"
            ));
        }
        text
    };
    let nan = one_joint(2, "0.04").replace("Frame Time: 0.04\n0 0 0", "Frame Time: 0.04\n0 NaN 0");
    let cases: Vec<(&str, String, &str)> = vec![
        ("--pose", nan.clone(), "a channel value `NaN` is not finite"),
        ("--animation", nan, "a channel value `NaN` is not finite"),
        ("--pose", deep, "nest deeper than 256"),
        (
            "--pose",
            one_joint(1, "0.04").replace("Frames: 1", "Frames: 1000000000"),
            "more than 16777216 values",
        ),
        (
            "--pose",
            one_joint(1, "0.04").replace("Zrotation", "Wrotation"),
            "unknown channel `Wrotation`",
        ),
        ("--pose", one_joint(0, "0.04"), "12:9: a motion of 0 frames"),
        (
            "--animation",
            one_joint(13_000, "0.04"),
            "is more than a clip holds",
        ),
        (
            "--animation",
            one_joint(3, "0"),
            "not a positive number of seconds",
        ),
    ];
    for (i, (flag, text, expected)) in cases.into_iter().enumerate() {
        let file = dir.path().join(format!("hostile{i}.bvh"));
        std::fs::write(&file, text).unwrap();
        let result = cli()
            .args(["convert", "--rig-name", "default", "--mpfb-data"])
            .arg(&data)
            .arg(flag)
            .arg(&file)
            .arg("-o")
            .arg(&out)
            .output()
            .unwrap();
        let said = stderr(&result);
        assert_eq!(result.status.code(), Some(1), "{expected}: {said}");
        assert_eq!(said.lines().count(), 1, "{expected}: one line: {said}");
        assert!(said.contains(expected), "{expected}: {said}");
        assert!(!out.exists(), "{expected}: a file was written");
    }
}
