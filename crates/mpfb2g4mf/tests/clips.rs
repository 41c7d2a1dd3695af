//! Animation clips (`convert --animation`) judged by clients nobody here wrote: three.js
//! (npm `three`, in node: `clients/three-clip.mjs`, GLTFLoader and AnimationMixer) samples
//! each clip at a key, and every bone's world rotation from rest there (posed world times rest
//! world inverse) must be, within 0.1 degree:
//!
//! - for a shipped pose (one frame, the default rig, bone by bone), the world rotation from
//!   rest of the same joint in Blender's own BVH import of that file
//!   (`fixtures/blender/bvh-poses.json`, made by `cargo xtask blender-bvh-check`);
//! - for the walk (14 frames of an older skeleton, retargeted by humanoid names with its limbs
//!   aimed as its rest aims them), the turn the same frame gives when baked by `--pose
//!   FILE.bvh@FRAME` (the bake Blender checks on the shipped poses): a clip's key is its
//!   frame's pose.
//!
//! The Khronos glTF-Validator finds no error and no warning in the `.glb` and `.gltf` outputs.

// Helpers outside #[test] functions panic on purpose, as tests do.
#![allow(clippy::unwrap_used)]

use crate::common::shared as common;

use common::{bin, data_and_assets};
use glam::DQuat;
use serde::Deserialize;
use serde_json::Value;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use test_support::clients::{assert_no_validator_issues, gltf_validator, node_client};

/// The largest angle, in degrees, between a bone's world rotation in three.js and the one
/// expected.
const TOLERANCE_DEGREES: f64 = 0.1;

/// Shipped one-frame poses converted as clips.
const POSES: [&str; 3] = ["run01", "sit01", "fight02"];

/// The walk: 14 frames on an older skeleton, retargeted by humanoid names.
const WALK: &str = "animations/walks/walk1.bvh";

/// The walk's keys sampled (from 0): its first, one in the middle, its last.
const WALK_KEYS: [usize; 3] = [0, 6, 13];

/// What `clients/three-clip.mjs` prints.
#[derive(Debug, Deserialize)]
struct ThreeClip {
    clip: String,
    duration: Option<f64>,
    tracks: usize,
    errors: Vec<String>,
    rest: Vec<ThreeNode>,
    frames: Vec<ThreeFrame>,
}

#[derive(Debug, Deserialize)]
struct ThreeFrame {
    time: f64,
    nodes: Vec<ThreeNode>,
}

/// A node's world quaternion, three's `[x, y, z, w]`.
#[derive(Debug, Deserialize)]
struct ThreeNode {
    node: usize,
    quaternion: [f64; 4],
}

/// A bone or joint name as the glTF writer and MakeHuman both leave it comparable: lower
/// case, `.`, `-` and spaces as `_`.
fn key(name: &str) -> String {
    name.to_lowercase().replace(['.', '-', ' '], "_")
}

/// A `[w, x, y, z]` rotation in Blender's axes (Z up) as one in glTF's (Y up): a point
/// `(x, y, z)` of Blender's is `(x, z, -y)` of ours, and so is a quaternion's vector part.
fn from_blender(q: &Value) -> DQuat {
    let c = |i: usize| q[i].as_f64().unwrap();
    DQuat::from_xyzw(c(1), c(3), -c(2), c(0)).normalize()
}

/// The angle between two rotations (degrees), well conditioned for small ones (an arccosine
/// of a dot product near 1 is not).
fn degrees_between(a: DQuat, b: DQuat) -> f64 {
    let d = a.inverse() * b;
    (2.0 * d.xyz().length().atan2(d.w.abs())).to_degrees()
}

/// Blender's world rotations from rest of each joint of shipped pose `pose`, by [`key`].
fn blender_turns(pose: &str) -> HashMap<String, DQuat> {
    let path = test_support::workspace_root().join("fixtures/blender/bvh-poses.json");
    let fixture: Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    assert_eq!(fixture["axes"], "blender");
    fixture["poses"][pose]["rotations"]
        .as_object()
        .unwrap_or_else(|| panic!("no pose {pose} in {}", path.display()))
        .iter()
        .map(|(joint, q)| (key(joint), from_blender(q)))
        .collect()
}

/// Each node's world rotation in the glTF file at `path` (its nodes' rotations composed down
/// the tree), by node name.
fn world_rotations(path: &Path) -> HashMap<String, DQuat> {
    let (root, _) = test_support::gltf::read(path);
    let mut parent = vec![None; root.nodes.len()];
    for (p, node) in root.nodes.iter().enumerate() {
        for c in node.children.iter().flatten() {
            parent[c.value()] = Some(p);
        }
    }
    let local = |n: usize| {
        assert!(root.nodes[n].matrix.is_none(), "node {n} has a matrix");
        root.nodes[n]
            .rotation
            .as_ref()
            .map_or(DQuat::IDENTITY, |r| DQuat::from_array(r.0.map(f64::from)))
    };
    (0..root.nodes.len())
        .map(|n| {
            let mut q = local(n);
            let mut at = parent[n];
            while let Some(p) = at {
                q = local(p) * q;
                at = parent[p];
            }
            (
                root.nodes[n].name.clone().unwrap_or_default(),
                q.normalize(),
            )
        })
        .collect()
}

/// Converts the default rig with `more` arguments (`--animation NAME=FILE`, `--pose ...`)
/// into `out`.
fn convert(data: &Path, assets: &Path, out: &Path, more: &[String]) {
    let output = bin()
        .args(["convert", "--quiet", "--rig-name", "default", "--mpfb-data"])
        .arg(data)
        .arg("--assets")
        .arg(assets)
        .args(more)
        .arg("-o")
        .arg(out)
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
}

/// `--animation NAME=FILE` for each of `clips`.
fn animations(clips: &[(&str, PathBuf)]) -> Vec<String> {
    clips
        .iter()
        .flat_map(|(name, file)| {
            [
                "--animation".to_owned(),
                format!("{name}={}", file.display()),
            ]
        })
        .collect()
}

/// three.js's sampling of clip `clip` of `file` at `times`; `None` when the clients are
/// missing (a loud skip, a failure under CI).
fn three_clip(test: &str, file: &Path, clip: &str, times: &[f64]) -> Option<ThreeClip> {
    let times: Vec<String> = times.iter().map(f64::to_string).collect();
    let arguments = [file.display().to_string(), clip.to_owned(), times.join(",")];
    let value = node_client(test, "three-clip.mjs", &arguments)?;
    let report: ThreeClip = serde_json::from_value(value).unwrap();
    assert!(report.errors.is_empty(), "three.js: {:?}", report.errors);
    assert_eq!(report.clip, clip);
    assert_eq!(report.frames.len(), times.len());
    Some(report)
}

/// Each bone's world rotation from rest in `frame` (posed world times rest world inverse),
/// by node index.
fn turns_from_rest(report: &ThreeClip, frame: &ThreeFrame) -> HashMap<usize, DQuat> {
    let rest: HashMap<usize, DQuat> = report
        .rest
        .iter()
        .map(|n| (n.node, DQuat::from_array(n.quaternion)))
        .collect();
    frame
        .nodes
        .iter()
        .map(|n| {
            (
                n.node,
                DQuat::from_array(n.quaternion) * rest[&n.node].inverse(),
            )
        })
        .collect()
}

/// The skin's joints of the glTF file at `path`: node index, name and parent node.
fn bones(path: &Path) -> Vec<(usize, String, Option<usize>)> {
    let (root, _) = test_support::gltf::read(path);
    let mut parent = vec![None; root.nodes.len()];
    for (p, node) in root.nodes.iter().enumerate() {
        for c in node.children.iter().flatten() {
            parent[c.value()] = Some(p);
        }
    }
    root.skins[0]
        .joints
        .iter()
        .map(|j| {
            let n = j.value();
            (n, root.nodes[n].name.clone().unwrap(), parent[n])
        })
        .collect()
}

/// Asserts that each bone's turn in `turns` (by node) is `expected`'s for its name (by
/// [`key`]) within [`TOLERANCE_DEGREES`]; the largest angle and its bone. `what` names the
/// frame.
fn assert_turns(
    what: &str,
    bones: &[(usize, String, Option<usize>)],
    turns: &HashMap<usize, DQuat>,
    expected: &HashMap<String, DQuat>,
) -> (f64, String) {
    let mut worst = (0.0, String::new());
    for (node, name, _) in bones {
        let want = expected
            .get(&key(name))
            .unwrap_or_else(|| panic!("{what}: nothing expected of bone {name}"));
        let angle = degrees_between(turns[node], *want);
        assert!(
            angle < TOLERANCE_DEGREES,
            "{what}: {name} turns {angle:.4} degrees away from the expected world rotation"
        );
        if angle >= worst.0 {
            worst = (angle, format!("{what} {name}"));
        }
    }
    worst
}

#[test]
fn three_js_samples_each_clip_key_as_blender_and_the_bake_pose_it() {
    const TEST: &str = "three_js_clip_turns";
    let files: Vec<String> = POSES
        .iter()
        .map(|p| format!("poses/{p}.bvh"))
        .chain([WALK.to_owned()])
        .collect();
    let needed: Vec<&str> = files.iter().map(String::as_str).collect();
    let Some((data, assets)) = data_and_assets(TEST, &needed) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let glb = dir.path().join("clips.glb");
    let walk = assets.join(WALK);
    let clips: Vec<(&str, PathBuf)> = POSES
        .iter()
        .map(|p| (*p, assets.join("poses").join(format!("{p}.bvh"))))
        .chain([("walk1", walk.clone())])
        .collect();
    convert(&data, &assets, &glb, &animations(&clips));
    let bones = bones(&glb);
    assert_eq!(bones.len(), 163, "the default rig's bones");
    let mut worst = (0.0, String::new());

    // The poses: one key at 0 s, every bone a joint of the file, by name.
    for pose in POSES {
        let Some(report) = three_clip(TEST, &glb, pose, &[0.0]) else {
            return;
        };
        assert_eq!(report.duration, Some(0.0), "{pose}: one key");
        let turns = turns_from_rest(&report, &report.frames[0]);
        let found = assert_turns(pose, &bones, &turns, &blender_turns(pose));
        // The pose turns the body: not every bone is at rest.
        let turned = turns
            .values()
            .filter(|q| degrees_between(**q, DQuat::IDENTITY) > 5.0)
            .count();
        assert!(turned > 50, "{pose}: only {turned} bones turned");
        worst = worst.max_by(found);
    }

    // The walk at three keys, against the same frames baked by --pose FILE.bvh@FRAME.
    let rest = world_rotations(&glb);
    let bvh = makehuman_poses::parse_bvh(&std::fs::read_to_string(&walk).unwrap()).unwrap();
    assert_eq!(bvh.frame_count(), 14);
    let times: Vec<f64> = WALK_KEYS
        .iter()
        .map(|&k| k as f64 * bvh.frame_time)
        .collect();
    let Some(report) = three_clip(TEST, &glb, "walk1", &times) else {
        return;
    };
    assert_eq!(
        report.tracks, 164,
        "walk1: a rotation track a bone, a translation for the root"
    );
    for (frame, k) in report.frames.iter().zip(WALK_KEYS) {
        let baked_file = dir.path().join(format!("walk1-{k}.glb"));
        let pose = format!("{}@{}", walk.display(), k + 1);
        convert(&data, &assets, &baked_file, &["--pose".to_owned(), pose]);
        let baked = world_rotations(&baked_file);
        let expected: HashMap<String, DQuat> = bones
            .iter()
            .map(|(_, name, _)| (key(name), baked[name] * rest[name].inverse()))
            .collect();
        let what = format!("walk1 key {k} ({} s)", frame.time);
        let turns = turns_from_rest(&report, frame);
        let found = assert_turns(&what, &bones, &turns, &expected);
        worst = worst.max_by(found);
        // Keys differ: the walk moves.
        let moved = expected
            .values()
            .filter(|q| degrees_between(**q, DQuat::IDENTITY) > 5.0)
            .count();
        assert!(moved > 10, "{what}: only {moved} bones turned");
    }
    eprintln!(
        "three.js: the worst bone is {:.5} degrees from the expected rotation ({})",
        worst.0, worst.1
    );
}

/// The larger of two (angle, bone) pairs.
trait Worst {
    fn max_by(self, other: Self) -> Self;
}

impl Worst for (f64, String) {
    fn max_by(self, other: Self) -> Self {
        if other.0 > self.0 { other } else { self }
    }
}

#[test]
fn gltf_outputs_with_clips_pass_the_khronos_validator() {
    const TEST: &str = "clips_validator";
    let Some((data, assets)) = data_and_assets(TEST, &["poses/run01.bvh", WALK]) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let clips = animations(&[
        ("run", assets.join("poses/run01.bvh")),
        ("walk", assets.join(WALK)),
    ]);
    let outputs: Vec<PathBuf> = ["clips.glb", "clips.gltf"]
        .iter()
        .map(|name| dir.path().join(name))
        .collect();
    for out in &outputs {
        convert(&data, &assets, out, &clips);
    }
    let Some(reports) = gltf_validator(TEST, &outputs) else {
        return;
    };
    assert_no_validator_issues(&reports);
    for report in &reports {
        let info = report.info.as_ref().unwrap();
        assert_eq!(info.animation_count, 2, "{}", report.file);
    }
}
