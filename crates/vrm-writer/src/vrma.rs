//! A clip as a VRM animation (`.vrma`, `VRMC_vrm_animation` 1.0): a glTF binary holding the
//! avatar's human bones alone, as nodes at the avatar's rest (VRM's T-pose), each under its
//! nearest human ancestor (the parent VRM fixes, which [`humanoid::check`] holds the map to);
//! one animation, a rotation channel per human bone and a translation channel for `hips`; and
//! the extension naming each bone's node, the same map the `.vrm` has.
//!
//! A player (three-vrm's `VRMAnimationLoaderPlugin`) reads each key as the bone's world
//! rotation from its rest (`parent rest × key × own rest⁻¹`) and the hips' position in the
//! world, so on the avatar the clip was made for every human bone's world frame is the clip's.
//! Bones that are not human bones are left out: `VRMC_vrm_animation` animates human bones (and
//! expressions, look-at) only, and a player keeps the others at their rest under their parents.
//! So are the eyes ([`NOT_ANIMATED`]), which the spec leaves to the look-at.
//! [`Vrma::still`] names those the clip turns, so a caller can say so.

use crate::humanoid::{self, HumanoidError};
use crate::write::put_extension;
use character_spec::{BoneSpec, CharacterSpec};
use glam::DQuat;
use gltf_writer::{ClipSpec, ContainerOptions, GlbParts, GltfError, GltfOptions};
use serde_json::{Map, Value, json};
use std::collections::BTreeMap;

/// The `VRMC_vrm_animation` extension's name.
pub const VRMC_VRM_ANIMATION: &str = "VRMC_vrm_animation";

/// Human bones a `.vrma` may not name (`VRMC_vrm_animation` leaves the eyes to its look-at):
/// left out like the bones that are not human bones.
pub const NOT_ANIMATED: [&str; 2] = ["leftEye", "rightEye"];

/// A turn of a bone from its rest, relative to its parent, above which a bone left out of a
/// `.vrma` counts as one the clip moves (degrees; float noise is far below it).
const STILL_DEGREES: f64 = 0.01;

/// Why [`make_vrma`] refused a clip.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum VrmaError {
    /// The humanoid map does not fit VRM's humanoid.
    #[error(transparent)]
    Humanoid(#[from] HumanoidError),
    /// A key does not pose every bone of the skeleton.
    #[error("clip `{clip}`: key {key} poses {posed} bones, the skeleton has {bones}")]
    KeyBones {
        /// The clip.
        clip: String,
        /// The key.
        key: usize,
        /// Bones the key poses.
        posed: usize,
        /// Bones of the skeleton.
        bones: usize,
    },
    /// The glTF writer refused the human skeleton or the clip.
    #[error("clip `{clip}`: {source}")]
    Gltf {
        /// The clip.
        clip: String,
        /// Why.
        source: GltfError,
    },
}

/// A clip made a `.vrma`.
#[derive(Debug)]
pub struct Vrma {
    /// The file, a glTF binary (write its parts one after the other).
    pub file: GlbParts,
    /// Human bones in it.
    pub human_bones: usize,
    /// Bones left out (not human bones, and the eyes).
    pub left_out: usize,
    /// The bones left out that the clip turns from their rest relative to their parent (more
    /// than 0.01°) at some key: a player keeps them at rest. Skeleton order.
    pub still: Vec<String>,
    /// Keys of the clip.
    pub keys: usize,
}

/// Makes `clip` (every bone's frame per key, as `gltf_writer::add_clips` takes it) of the
/// avatar `spec` with the humanoid map `humanoid` (VRM name -> bone index, as `VrmSpec`'s) a
/// `.vrma`. Refuses a map VRM does not accept and a clip whose keys do not pose every bone or
/// are not finite and increasing.
pub fn make_vrma(
    spec: &CharacterSpec,
    humanoid: &BTreeMap<String, usize>,
    clip: &ClipSpec,
) -> Result<Vrma, VrmaError> {
    humanoid::check(&spec.bones, humanoid)?;
    let humanoid: BTreeMap<&str, usize> = humanoid
        .iter()
        .filter(|(name, _)| !NOT_ANIMATED.contains(&name.as_str()))
        .map(|(name, &b)| (name.as_str(), b))
        .collect();
    let bones = spec.bones.len();
    for (key, pose) in clip.poses.iter().enumerate() {
        if pose.len() != bones {
            return Err(VrmaError::KeyBones {
                clip: clip.name.clone(),
                key,
                posed: pose.len(),
                bones,
            });
        }
    }
    let gltf = |source| VrmaError::Gltf {
        clip: clip.name.clone(),
        source,
    };
    let (skeleton, human, slot) = human_skeleton(spec, &humanoid);
    let human_clip = ClipSpec {
        name: clip.name.clone(),
        times: clip.times.clone(),
        poses: clip
            .poses
            .iter()
            .map(|pose| human.iter().map(|&b| pose[b]).collect())
            .collect(),
    };
    let mut built = gltf_writer::build_gltf(&skeleton, &GltfOptions::default()).map_err(gltf)?;
    gltf_writer::add_clips(&mut built, &skeleton, std::slice::from_ref(&human_clip))
        .map_err(gltf)?;
    let mut human_bones = Map::new();
    for (&name, &b) in &humanoid {
        // Every human bone has a slot and a node (build_gltf wrote one per bone).
        let node = slot[b].and_then(|i| built.bone_nodes.get(i)).copied();
        human_bones.insert(name.to_owned(), json!({ "node": node }));
    }
    let extension = json!({
        "specVersion": "1.0",
        "humanoid": { "humanBones": Value::Object(human_bones) },
    });
    put_extension(&mut built, VRMC_VRM_ANIMATION, extension);
    let file =
        gltf_writer::glb_parts(&mut built, ContainerOptions { pretty: false }).map_err(gltf)?;
    Ok(Vrma {
        file,
        human_bones: human.len(),
        left_out: bones - human.len(),
        still: still_bones(spec, &slot, clip),
        keys: clip.times.len(),
    })
}

/// The human bones of `spec` (those `humanoid` names) alone as a skeleton, each under its
/// nearest human ancestor; with the human bones' indices in skeleton order and each bone's
/// place among them (`slot[b]`, none for a bone left out).
fn human_skeleton(
    spec: &CharacterSpec,
    humanoid: &BTreeMap<&str, usize>,
) -> (CharacterSpec, Vec<usize>, Vec<Option<usize>>) {
    let mut slot = vec![None; spec.bones.len()];
    let mut human: Vec<usize> = humanoid.values().copied().collect();
    human.sort_unstable();
    for (i, &b) in human.iter().enumerate() {
        slot[b] = Some(i);
    }
    let skeleton = CharacterSpec {
        name: spec.name.clone(),
        skeleton_position: spec.skeleton_position,
        bones: human
            .iter()
            .map(|&b| BoneSpec {
                parent: nearest_human_ancestor(&spec.bones, &slot, b),
                extras: None,
                ..spec.bones[b].clone()
            })
            .collect(),
        generator: spec.generator.clone(),
        ..CharacterSpec::default()
    };
    (skeleton, human, slot)
}

/// The first bone above `bone` that is a human bone, as its place among them (bounded: a
/// cycle, which `humanoid::check` has refused, ends it).
fn nearest_human_ancestor(
    bones: &[BoneSpec],
    slot: &[Option<usize>],
    bone: usize,
) -> Option<usize> {
    let mut at = bones[bone].parent;
    for _ in 0..bones.len() {
        let p = at.filter(|&p| p < bones.len())?;
        if slot[p].is_some() {
            return slot[p];
        }
        at = bones[p].parent;
    }
    None
}

/// The bones left out (no slot) that some key of `clip` turns from their rest relative to
/// their parent by more than [`STILL_DEGREES`].
fn still_bones(spec: &CharacterSpec, slot: &[Option<usize>], clip: &ClipSpec) -> Vec<String> {
    let rotation = |m: &glam::DMat3| DQuat::from_mat3(m).normalize();
    let local = |b: usize, frames: &dyn Fn(usize) -> DQuat| match spec.bones[b].parent {
        Some(p) if p < spec.bones.len() => frames(p).inverse() * frames(b),
        _ => frames(b),
    };
    let limit = STILL_DEGREES.to_radians();
    (0..spec.bones.len())
        .filter(|&b| slot[b].is_none())
        .filter(|&b| {
            let rest = local(b, &|i| rotation(&spec.bones[i].basis));
            clip.poses.iter().any(|pose| {
                let posed = local(b, &|i| rotation(&pose[i].matrix3));
                posed.angle_between(rest) > limit
            })
        })
        .map(|b| spec.bones[b].name.clone())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::{DAffine3, DMat3, DVec3};

    fn bone(name: &str, parent: Option<usize>, head: [f64; 3]) -> BoneSpec {
        BoneSpec {
            name: name.into(),
            parent,
            head: DVec3::from(head),
            basis: DMat3::IDENTITY,
            length: 0.1,
            extras: None,
        }
    }

    /// The 15 required bones, a non-human `root` above hips and a non-human twist bone
    /// between the left upper and lower arm.
    fn avatar() -> (CharacterSpec, BTreeMap<String, usize>) {
        let names = [
            ("root", None, [0.0, 0.9, 0.0]),
            ("hips", Some(0), [0.0, 1.0, 0.0]),
            ("spine", Some(1), [0.0, 1.1, 0.0]),
            ("head", Some(2), [0.0, 1.5, 0.0]),
            ("leftUpperLeg", Some(1), [0.1, 0.9, 0.0]),
            ("leftLowerLeg", Some(4), [0.1, 0.5, 0.0]),
            ("leftFoot", Some(5), [0.1, 0.1, 0.0]),
            ("rightUpperLeg", Some(1), [-0.1, 0.9, 0.0]),
            ("rightLowerLeg", Some(7), [-0.1, 0.5, 0.0]),
            ("rightFoot", Some(8), [-0.1, 0.1, 0.0]),
            ("leftUpperArm", Some(2), [0.2, 1.4, 0.0]),
            ("leftTwist", Some(10), [0.3, 1.4, 0.0]),
            ("leftLowerArm", Some(11), [0.45, 1.4, 0.0]),
            ("leftHand", Some(12), [0.7, 1.4, 0.0]),
            ("rightUpperArm", Some(2), [-0.2, 1.4, 0.0]),
            ("rightLowerArm", Some(14), [-0.45, 1.4, 0.0]),
            ("rightHand", Some(15), [-0.7, 1.4, 0.0]),
            ("leftEye", Some(3), [0.03, 1.6, 0.1]),
        ];
        let bones: Vec<BoneSpec> = names.iter().map(|(n, p, h)| bone(n, *p, *h)).collect();
        let humanoid = bones
            .iter()
            .enumerate()
            .filter(|(_, b)| b.name != "root" && b.name != "leftTwist")
            .map(|(i, b)| (b.name.clone(), i))
            .collect();
        let spec = CharacterSpec {
            name: "A".into(),
            skeleton_position: DVec3::new(0.0, 0.05, 0.0),
            bones,
            generator: "test".into(),
            ..CharacterSpec::default()
        };
        (spec, humanoid)
    }

    /// Every bone at rest, then the twist bone turned 90° about X (its children with it).
    fn clip(spec: &CharacterSpec) -> ClipSpec {
        let rest: Vec<DAffine3> = spec
            .bones
            .iter()
            .map(|b| DAffine3::from_mat3_translation(b.basis, b.head))
            .collect();
        let turn = DAffine3::from_rotation_x(std::f64::consts::FRAC_PI_2);
        let mut turned = rest.clone();
        for b in [11, 12, 13] {
            let about = DAffine3::from_translation(spec.bones[11].head);
            turned[b] = about * turn * about.inverse() * rest[b];
        }
        ClipSpec {
            name: "twist".into(),
            times: vec![0.0, 1.0],
            poses: vec![rest, turned],
        }
    }

    fn document(vrma: &Vrma) -> Value {
        let bytes = vrma.file.to_vec();
        let json_length = u32::from_le_bytes(bytes[12..16].try_into().unwrap()) as usize;
        serde_json::from_slice(&bytes[20..20 + json_length]).unwrap()
    }

    #[test]
    fn human_bones_become_nodes_under_their_human_parents_and_the_rest_are_left_out() {
        let (spec, humanoid) = avatar();
        let vrma = make_vrma(&spec, &humanoid, &clip(&spec)).unwrap();
        // The eye is a human bone of the avatar, but the spec leaves it to the look-at.
        assert_eq!((vrma.human_bones, vrma.left_out, vrma.keys), (15, 3, 2));
        // The twist bone turns; root does not (it carries its children rigidly at rest).
        assert_eq!(vrma.still, ["leftTwist"]);
        let doc = document(&vrma);
        assert_eq!(doc["extensionsUsed"], json!([VRMC_VRM_ANIMATION]));
        let extension = &doc["extensions"][VRMC_VRM_ANIMATION];
        assert_eq!(extension["specVersion"], "1.0");
        let nodes = doc["nodes"].as_array().unwrap();
        let node_of = |name: &str| {
            extension["humanoid"]["humanBones"][name]["node"]
                .as_u64()
                .unwrap() as usize
        };
        assert_eq!(
            extension["humanoid"]["humanBones"]
                .as_object()
                .unwrap()
                .len(),
            15
        );
        for name in humanoid.keys().filter(|n| *n != "leftEye") {
            assert_eq!(nodes[node_of(name)]["name"], name.as_str());
        }
        assert!(
            nodes
                .iter()
                .all(|n| !["root", "leftTwist", "leftEye"].contains(&n["name"].as_str().unwrap()))
        );
        // The lower arm hangs from the upper arm: its translation is the head 0.25 m along X
        // (the twist bone's 0.1 m and its own 0.15 m), in the upper arm's frame (identity).
        let lower = &nodes[node_of("leftLowerArm")];
        let upper_children = nodes[node_of("leftUpperArm")]["children"]
            .as_array()
            .unwrap();
        assert_eq!(upper_children, &[json!(node_of("leftLowerArm"))]);
        let t = lower["translation"].as_array().unwrap();
        assert!((t[0].as_f64().unwrap() - 0.25).abs() < 1e-6, "{t:?}");
        // hips is the top: its translation is its head plus the skeleton's position.
        let hips = nodes[node_of("hips")]["translation"].as_array().unwrap();
        assert!((hips[1].as_f64().unwrap() - 1.05).abs() < 1e-6, "{hips:?}");
        // One animation: a rotation channel per human bone, a translation channel for hips.
        let channels = doc["animations"][0]["channels"].as_array().unwrap();
        assert_eq!(channels.len(), 16);
        let translated: Vec<u64> = channels
            .iter()
            .filter(|c| c["target"]["path"] == "translation")
            .map(|c| c["target"]["node"].as_u64().unwrap())
            .collect();
        assert_eq!(translated, [node_of("hips") as u64]);
    }

    #[test]
    fn a_key_that_does_not_pose_every_bone_and_a_bad_map_are_refused() {
        let (spec, humanoid) = avatar();
        let mut short = clip(&spec);
        short.poses[1].pop();
        let refused = make_vrma(&spec, &humanoid, &short).unwrap_err();
        assert!(
            matches!(
                refused,
                VrmaError::KeyBones {
                    key: 1,
                    posed: 17,
                    bones: 18,
                    ..
                }
            ),
            "{refused}"
        );
        let mut no_hips = humanoid.clone();
        no_hips.remove("hips");
        let refused = make_vrma(&spec, &no_hips, &clip(&spec)).unwrap_err();
        assert!(matches!(refused, VrmaError::Humanoid(_)), "{refused}");
        let mut backwards = clip(&spec);
        backwards.times = vec![1.0, 0.0];
        let refused = make_vrma(&spec, &humanoid, &backwards).unwrap_err();
        assert!(matches!(refused, VrmaError::Gltf { .. }), "{refused}");
    }
}
