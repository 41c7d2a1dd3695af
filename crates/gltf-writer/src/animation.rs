//! Animation clips as glTF animations: per clip one input accessor of key times, and per bone
//! node a rotation channel (root bones also a translation channel), linear samplers. A clip
//! gives each bone's posed frame in skeleton space; nodes get it relative to their parent the
//! way the rest is written (`character.rs`): a root bone's translation is its head plus the
//! skeleton's position, a child's its head in its parent's frame.

use crate::buffer::{BufferBuilder, Encoded, index_of};
use crate::character::BuiltGltf;
use crate::error::GltfError;
use character_spec::CharacterSpec;
use glam::{DAffine3, DQuat, DVec3};
use gltf_json::accessor::Type;
use gltf_json::animation::{Channel, Interpolation, Property, Sampler, Target};
use gltf_json::validation::Checked;
use gltf_json::{Animation, Index};

/// A clip to write: key times and, per key, every bone's posed frame.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ClipSpec {
    /// The animation's name.
    pub name: String,
    /// Key times in seconds, finite, increasing.
    pub times: Vec<f64>,
    /// Per key, each spec bone's frame (bone space to skeleton space), in spec bone order.
    pub poses: Vec<Vec<DAffine3>>,
}

/// Refuses a clip whose keys do not fit: no key, times not increasing or not finite, a pose
/// not one frame per bone or not finite.
fn check(clip: &ClipSpec, bones: usize) -> Result<(), GltfError> {
    let bad = |problem: String| GltfError::BadClip {
        clip: clip.name.clone(),
        problem,
    };
    if clip.times.is_empty() || clip.times.len() != clip.poses.len() {
        return Err(bad(format!(
            "{} key times for {} poses (at least one of each, as many)",
            clip.times.len(),
            clip.poses.len()
        )));
    }
    if clip.times.iter().any(|t| !t.is_finite() || *t < 0.0)
        || clip.times.windows(2).any(|w| w[1] <= w[0])
    {
        return Err(bad("key times must be finite, from 0, increasing".into()));
    }
    for (k, pose) in clip.poses.iter().enumerate() {
        if pose.len() != bones {
            return Err(bad(format!(
                "key {k} poses {} bones, the skeleton has {bones}",
                pose.len()
            )));
        }
        if !pose.iter().all(|p| p.is_finite()) {
            return Err(bad(format!("key {k} holds a frame that is not finite")));
        }
    }
    Ok(())
}

/// Each bone's node transform (translation, rotation) under `pose`, as `character.rs` writes
/// the rest: roots relative to the skeleton node, children to their parent bone.
fn node_transforms(spec: &CharacterSpec, pose: &[DAffine3]) -> Vec<(DVec3, DQuat)> {
    let rotation = |p: &DAffine3| DQuat::from_mat3(&p.matrix3).normalize();
    spec.bones
        .iter()
        .enumerate()
        .map(|(b, bone)| match bone.parent.filter(|&p| p < pose.len()) {
            None => (
                pose[b].translation + spec.skeleton_position,
                rotation(&pose[b]),
            ),
            Some(p) => {
                let inverse = rotation(&pose[p]).inverse();
                (
                    inverse * (pose[b].translation - pose[p].translation),
                    (inverse * rotation(&pose[b])).normalize(),
                )
            }
        })
        .collect()
}

/// Adds `clips` to `built` (made from `spec` by `build_gltf`) as glTF animations over its bone
/// nodes; returns how many channels were written.
pub fn add_clips(
    built: &mut BuiltGltf,
    spec: &CharacterSpec,
    clips: &[ClipSpec],
) -> Result<usize, GltfError> {
    if clips.is_empty() {
        return Ok(0);
    }
    for clip in clips {
        check(clip, spec.bones.len())?;
    }
    let mut buffer = BufferBuilder::from_bytes(std::mem::take(&mut built.buffer));
    let mut channels_written = 0;
    for clip in clips {
        let animation = clip_animation(&mut buffer, built, spec, clip)?;
        channels_written += animation.channels.len();
        built.root.animations.push(animation);
    }
    built.buffer = buffer.into_bytes();
    let length = built.buffer.len();
    built.declare_buffer(length, None);
    Ok(channels_written)
}

/// One clip's animation: its times accessor shared by every sampler.
fn clip_animation(
    buffer: &mut BufferBuilder,
    built: &mut BuiltGltf,
    spec: &CharacterSpec,
    clip: &ClipSpec,
) -> Result<Animation, GltfError> {
    let times: Vec<f32> = clip.times.iter().map(|&t| t as f32).collect();
    let input = buffer.accessor(
        &mut built.root,
        &Encoded::f32(&times, Type::Scalar, true),
        None,
    )?;
    let keys: Vec<Vec<(DVec3, DQuat)>> = clip
        .poses
        .iter()
        .map(|pose| node_transforms(spec, pose))
        .collect();
    let mut samplers = Vec::new();
    let mut channels = Vec::new();
    for b in 0..spec.bones.len() {
        let node = Index::new(*built.bone_nodes.get(b).ok_or_else(|| GltfError::BadClip {
            clip: clip.name.clone(),
            problem: format!("bone {b} has no node"),
        })?);
        let outputs = bone_outputs(buffer, built, &keys, b, spec.bones[b].parent.is_none())?;
        for (output, path) in outputs {
            push_channel(&mut samplers, &mut channels, input, output, node, path)?;
        }
    }
    Ok(Animation {
        name: Some(clip.name.clone()),
        channels,
        samplers,
        extensions: None,
        extras: Default::default(),
    })
}

/// Bone `b`'s keyed rotations (and translations for a `root` bone) as output accessors,
/// each with the node property it drives.
fn bone_outputs(
    buffer: &mut BufferBuilder,
    built: &mut BuiltGltf,
    keys: &[Vec<(DVec3, DQuat)>],
    b: usize,
    root: bool,
) -> Result<Vec<(Index<gltf_json::Accessor>, Property)>, GltfError> {
    let mut rotations: Vec<f32> = Vec::with_capacity(keys.len() * 4);
    let mut previous = DQuat::IDENTITY;
    for key in keys {
        // Neighbouring keys on the same side of the sphere: linear keys then turn the short
        // way.
        let q = if key[b].1.dot(previous) < 0.0 {
            -key[b].1
        } else {
            key[b].1
        };
        previous = q;
        rotations.extend(q.as_quat().to_array());
    }
    let encoded = Encoded::f32(&rotations, Type::Vec4, false);
    let mut out = vec![(
        buffer.accessor(&mut built.root, &encoded, None)?,
        Property::Rotation,
    )];
    if root {
        let translations: Vec<f32> = keys
            .iter()
            .flat_map(|key| key[b].0.as_vec3().to_array())
            .collect();
        let encoded = Encoded::f32(&translations, Type::Vec3, false);
        out.push((
            buffer.accessor(&mut built.root, &encoded, None)?,
            Property::Translation,
        ));
    }
    Ok(out)
}

/// A linear sampler from `input` to `output` and the channel driving `node`'s `path` by it.
fn push_channel(
    samplers: &mut Vec<Sampler>,
    channels: &mut Vec<Channel>,
    input: Index<gltf_json::Accessor>,
    output: Index<gltf_json::Accessor>,
    node: Index<gltf_json::Node>,
    path: Property,
) -> Result<(), GltfError> {
    let sampler = index_of(samplers.len(), "animation samplers")?;
    samplers.push(Sampler {
        input,
        output,
        interpolation: Checked::Valid(Interpolation::Linear),
        extensions: None,
        extras: Default::default(),
    });
    channels.push(Channel {
        sampler,
        target: Target {
            node,
            path: Checked::Valid(path),
            extensions: None,
            extras: Default::default(),
        },
        extensions: None,
        extras: Default::default(),
    });
    Ok(())
}
