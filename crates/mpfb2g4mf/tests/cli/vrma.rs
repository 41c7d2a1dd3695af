//! A `.vrm`'s clips as `.vrma` files beside it (`convert --animation` on a `.vrm`), judged by
//! clients nobody here wrote: three-vrm (`clients/vrma-play.mjs`: `VRMLoaderPlugin`,
//! `VRMAnimationLoaderPlugin`, `createVRMAnimationClip`, an `AnimationMixer`) plays each on the
//! `.vrm`, and every human bone's world rotation from rest on the raw rig must be, within 1
//! degree, the one three.js (`clients/three-clip.mjs`) gives the same bone in a `.glb` of the
//! same job (`--humanoid --rest-pose vrm-t-pose`, the `.vrm`'s skeleton and rest) at the same
//! time; the hips, which the clip moves, stand where the `.glb`'s do. The Khronos
//! glTF-Validator finds no error or warning in the `.vrma` files, and a clip whose file cannot
//! be put in place leaves the old `.vrm` and its clips as they were.

use crate::common::{run, stderr};
use glam::{DQuat, DVec3};
use serde_json::Value;
use std::collections::HashMap;
use std::path::Path;
use test_support::clients::{assert_no_validator_issues, gltf_validator, node_client};

const TEST: &str = "vrm_clips_play_in_three_vrm_as_the_glb_clips_do";

/// The largest angle, in degrees, between a human bone's world rotation from rest in three-vrm
/// and in three.js's sampling of the `.glb`.
const TOLERANCE_DEGREES: f64 = 1.0;

/// The walk: 14 frames of an older skeleton, retargeted by humanoid names.
const WALK: &str = "animations/walks/walk1.bvh";

/// A shipped pose: one frame, MakeHuman's default skeleton bone by bone, the root moved.
const RUN: &str = "poses/run01.bvh";

/// The JSON chunk of the glTF binary at `path`.
fn glb_json(path: &Path) -> Value {
    let bytes = std::fs::read(path).unwrap();
    assert_eq!(&bytes[..4], b"glTF", "{}", path.display());
    let length = u32::from_le_bytes(bytes[12..16].try_into().unwrap()) as usize;
    serde_json::from_slice(&bytes[20..20 + length]).unwrap()
}

/// `[x, y, z, w]` as a quaternion.
fn quaternion(value: &Value) -> DQuat {
    let q: Vec<f64> = serde_json::from_value(value.clone()).unwrap();
    DQuat::from_xyzw(q[0], q[1], q[2], q[3])
}

fn position(value: &Value) -> DVec3 {
    let p: Vec<f64> = serde_json::from_value(value.clone()).unwrap();
    DVec3::new(p[0], p[1], p[2])
}

/// Per node name, its world rotation and position in one of `three-clip.mjs`'s node lists.
fn by_name(nodes: &Value) -> HashMap<String, (DQuat, DVec3)> {
    nodes
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|n| {
            let name = n["name"].as_str()?.to_owned();
            Some((
                name,
                (quaternion(&n["quaternion"]), position(&n["position"])),
            ))
        })
        .collect()
}

fn degrees(a: DQuat, b: DQuat) -> f64 {
    a.angle_between(b).to_degrees()
}

/// How far, at most, clip `clip` played by three-vrm on `vrm` from `vrma` is from the `.glb`'s
/// clip in three.js at `times`: (degrees between world rotations from rest, and which bone and
/// time; metres between the hips). `None` when the clients are missing.
fn worst_difference(
    (vrm, vrma, glb): (&Path, &Path, &Path),
    clip: &str,
    times: &[f64],
) -> Option<(f64, String, f64)> {
    let times: Vec<String> = times.iter().map(f64::to_string).collect();
    let played = node_client(
        TEST,
        "vrma-play.mjs",
        &[
            vrm.display().to_string(),
            vrma.display().to_string(),
            times.join(","),
        ],
    )?;
    let (errors, warnings) = (&played["errors"], &played["warnings"]);
    assert_eq!(errors, &Value::Array(Vec::new()), "three-vrm: {errors}");
    assert_eq!(warnings, &Value::Array(Vec::new()), "three-vrm: {warnings}");
    let sampled = node_client(
        TEST,
        "three-clip.mjs",
        &[glb.display().to_string(), clip.to_owned(), times.join(",")],
    )?;
    let errors = &sampled["errors"];
    assert_eq!(errors, &Value::Array(Vec::new()), "three.js: {errors}");
    let glb_rest = by_name(&sampled["rest"]);
    let rest: HashMap<&str, DQuat> = played["rest"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| (b["node"].as_str().unwrap(), quaternion(&b["quaternion"])))
        .collect();
    // The same skeleton at the same rest: a turn from rest means the same in both.
    for (node, q) in &rest {
        let angle = degrees(*q, glb_rest[*node].0);
        assert!(
            angle < TOLERANCE_DEGREES,
            "{node}'s rest is {angle}° from the .glb's"
        );
    }
    assert!(rest.len() >= 50, "{} human bones", rest.len());
    let (mut worst, mut at, mut hips) = (0.0_f64, String::new(), 0.0_f64);
    let frames = played["frames"].as_array().unwrap();
    let glb_frames = sampled["frames"].as_array().unwrap();
    assert_eq!((frames.len(), glb_frames.len()), (times.len(), times.len()));
    for (frame, glb_frame) in frames.iter().zip(glb_frames) {
        let glb_posed = by_name(&glb_frame["nodes"]);
        for bone in frame["bones"].as_array().unwrap() {
            let node = bone["node"].as_str().unwrap();
            let turn = quaternion(&bone["quaternion"]) * rest[node].inverse();
            let glb_turn = glb_posed[node].0 * glb_rest[node].0.inverse();
            let angle = degrees(turn, glb_turn);
            if angle > worst {
                (worst, at) = (angle, format!("{} at {} s", bone["bone"], frame["time"]));
            }
            if bone["bone"] == "hips" {
                hips = hips.max(position(&bone["position"]).distance(glb_posed[node].1));
            }
        }
    }
    Some((worst, at, hips))
}

#[test]
fn vrm_clips_play_in_three_vrm_as_the_glb_clips_do() {
    let Some(data) = test_support::mpfb_data_or_skip(TEST) else {
        return;
    };
    let Some(assets) = test_support::makehuman_assets_or_skip(TEST, &[RUN, WALK]) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let vrm = dir.path().join("a.vrm");
    let (run_file, walk_file) = (assets.join(RUN), assets.join(WALK));
    let (run_clip, walk_clip) = (
        dir.path().join("a.run01.vrma"),
        dir.path().join("a.walk1.vrma"),
    );
    let convert = |out: &Path, extra: &[&str]| {
        let mut args = vec![
            "convert",
            "--rig-name",
            "default",
            "--mpfb-data",
            data.to_str().unwrap(),
            "--assets",
            assets.to_str().unwrap(),
            "--eyes",
            "none",
            "--animation",
            run_file.to_str().unwrap(),
            "--animation",
            walk_file.to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
        ];
        args.extend(extra);
        run(&args)
    };
    // A folder where a clip goes: refused before anything is written, the old set kept whole.
    std::fs::write(&vrm, "old avatar").unwrap();
    std::fs::write(&run_clip, "old clip").unwrap();
    std::fs::create_dir(&walk_clip).unwrap();
    let refused = convert(&vrm, &[]);
    let said = stderr(&refused);
    assert!(!refused.status.success(), "{said}");
    assert!(
        said.contains("a.walk1.vrma") && said.contains("a folder is there"),
        "{said}"
    );
    assert_eq!(said.trim().lines().count(), 1, "{said}");
    assert_eq!(std::fs::read_to_string(&vrm).unwrap(), "old avatar");
    assert_eq!(std::fs::read_to_string(&run_clip).unwrap(), "old clip");
    assert_eq!(
        std::fs::read_dir(dir.path()).unwrap().count(),
        3,
        "a file was left"
    );
    std::fs::remove_dir(&walk_clip).unwrap();

    let written = convert(&vrm, &[]);
    let said = stderr(&written);
    assert!(written.status.success(), "{said}");
    for (clip, keys) in [("run01", "1 key"), ("walk1", "14 keys")] {
        let note = format!(
            "note      VRMA_WRITTEN: clip `{clip}` written beside the .vrm as a.{clip}.vrma (VRMC_vrm_animation: 51 human bones, {keys}); the 112 other bones"
        );
        assert!(said.contains(&note), "{note}\n{said}");
        // The twist bones of MakeHuman's limbs turn in both clips; a player keeps them still.
        let warning = format!("warning   VRMA_BONES_LEFT_OUT: clip `{clip}` turns ");
        assert!(said.contains(&warning), "{warning}\n{said}");
    }
    assert!(
        said.contains(
            "which its .vrma leaves out (a player keeps them at rest under their parents): "
        ),
        "{said}"
    );
    let glb = dir.path().join("t.glb");
    let same = convert(&glb, &["--humanoid", "--rest-pose", "vrm-t-pose"]);
    assert!(same.status.success(), "{}", stderr(&same));

    // The .vrma names each human bone's node as the .vrm does (by the node's name), the eyes
    // left to the look-at.
    let avatar = glb_json(&vrm);
    let avatar_bones = avatar["extensions"]["VRMC_vrm"]["humanoid"]["humanBones"]
        .as_object()
        .unwrap();
    for path in [&run_clip, &walk_clip] {
        let clip = glb_json(path);
        assert_eq!(
            clip["extensionsUsed"],
            serde_json::json!(["VRMC_vrm_animation"])
        );
        let extension = &clip["extensions"]["VRMC_vrm_animation"];
        assert_eq!(extension["specVersion"], "1.0");
        let bones = extension["humanoid"]["humanBones"].as_object().unwrap();
        assert_eq!(bones.len() + 2, avatar_bones.len());
        for (name, bone) in avatar_bones {
            let node_name = |doc: &Value, bone: &Value| {
                doc["nodes"][bone["node"].as_u64().unwrap() as usize]["name"].clone()
            };
            match bones.get(name) {
                Some(clip_bone) => assert_eq!(
                    node_name(&clip, clip_bone),
                    node_name(&avatar, bone),
                    "{name}"
                ),
                None => assert!(name.ends_with("Eye"), "{name} is not in the .vrma"),
            }
        }
        assert_eq!(clip["animations"].as_array().unwrap().len(), 1);
    }
    if let Some(reports) = gltf_validator(TEST, &[&run_clip, &walk_clip]) {
        assert_no_validator_issues(&reports);
    }

    // The walk's first and last keys, one between keys and one on a key (its frame time is
    // 1/24 s); the pose's one key.
    let step = 1.0 / 24.0;
    let cases = [
        ("run01", &run_clip, vec![0.0]),
        (
            "walk1",
            &walk_clip,
            vec![0.0, 3.5 * step, 6.0 * step, 13.0 * step],
        ),
    ];
    let mut overall = (0.0_f64, String::new(), 0.0_f64);
    for (clip, vrma, times) in cases {
        let Some((worst, at, hips)) = worst_difference((&vrm, vrma, &glb), clip, &times) else {
            return;
        };
        eprintln!(
            "{clip}: worst {worst:.4}° ({at}), hips {:.2} mm apart",
            hips * 1000.0
        );
        assert!(worst < TOLERANCE_DEGREES, "{clip}: {worst}° at {at}");
        assert!(hips < 1e-3, "{clip}: the hips are {hips} m from the .glb's");
        if worst > overall.0 {
            overall = (worst, format!("{clip}: {at}"), hips);
        }
    }
    eprintln!("worst over both clips: {:.4}° ({})", overall.0, overall.1);
}
