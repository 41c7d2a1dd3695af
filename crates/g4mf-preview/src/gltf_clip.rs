//! A frame of a glTF animation: each channel of the named animation sampled at a time as
//! glTF says (STEP holds a key, LINEAR interpolates translations, scales and weights linearly
//! and rotations by slerp, CUBICSPLINE by its Hermite tangents; before the first key and
//! after the last the end keys hold), every accessor read under the scene's budget and
//! checked (counts, widths, finite and increasing times, finite values) before it is used.

use crate::gltf_file::{Budget, GltfError, GltfErrorKind, GltfFile, at};
use glam::{DQuat, DVec3};
use gltf::json;
use gltf::json::animation::{Interpolation, Property};
use gltf::json::validation::Checked;

/// Most animation names an error about an unknown one lists.
const LISTED_NAMES: usize = 12;

/// An animation clip to draw, and when.
#[derive(Debug, Clone, PartialEq)]
pub struct ClipTime {
    /// The animation's `name`.
    pub name: String,
    /// Seconds from the clip's start (finite, 0 or more).
    pub time: f64,
}

/// What a clip sets on one node at its time; `None` keeps the node's own value.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct NodePose {
    pub translation: Option<DVec3>,
    pub rotation: Option<DQuat>,
    pub scale: Option<DVec3>,
    /// Morph target weights, one per target of the node's mesh.
    pub weights: Option<Vec<f64>>,
}

/// A clip sampled: per node what it sets, and notes on what was held or skipped.
#[derive(Debug, Clone, Default)]
pub(crate) struct SampledClip {
    pub nodes: Vec<NodePose>,
    pub notes: Vec<String>,
}

/// Samples `clip` in `file` at its time: one [`NodePose`] per node of the file.
pub(crate) fn sample(
    file: &GltfFile,
    clip: &ClipTime,
    budget: &mut Budget,
) -> Result<SampledClip, GltfError> {
    let root = file.json();
    if !clip.time.is_finite() || clip.time < 0.0 {
        return Err(GltfError::new(
            location::Location::default(),
            GltfErrorKind::Data(format!(
                "the time {} is not a number of seconds, 0 or more",
                clip.time
            )),
        ));
    }
    let a = find_animation(root, &clip.name)?;
    let animation = &root.animations[a];
    let mut sampled = SampledClip {
        nodes: vec![NodePose::default(); root.nodes.len()],
        notes: Vec::new(),
    };
    let mut end: f64 = 0.0;
    let mut start = f64::INFINITY;
    for c in 0..animation.channels.len() {
        let Some(channel) = sample_channel(file, (a, c), clip.time, budget)? else {
            continue;
        };
        start = start.min(channel.keys.0);
        end = end.max(channel.keys.1);
        let pose = &mut sampled.nodes[channel.node];
        let value = channel.value;
        match channel.path {
            Property::Translation => pose.translation = Some(DVec3::from_slice(&value)),
            Property::Scale => pose.scale = Some(DVec3::from_slice(&value)),
            // Unit: checked by `sample_channel`.
            Property::Rotation => pose.rotation = Some(DQuat::from_slice(&value).normalize()),
            Property::MorphTargetWeights => pose.weights = Some(value),
        }
    }
    if animation.channels.is_empty() {
        sampled.notes.push(format!(
            "/animations/{a}: the clip has no channels; nothing moves"
        ));
    } else if clip.time > end || clip.time < start {
        sampled.notes.push(format!(
            "/animations/{a}: the clip runs from {start} s to {end} s; drawn at its {} key",
            if clip.time > end { "last" } else { "first" }
        ));
    }
    Ok(sampled)
}

/// One channel sampled: what it drives, its value there and its first and last key times.
struct SampledChannel {
    node: usize,
    path: Property,
    value: Vec<f64>,
    keys: (f64, f64),
}

/// Channel `c` of animation `a` sampled at `time`, its accessors read and checked; `None`
/// for a path this reader does not know.
fn sample_channel(
    file: &GltfFile,
    (a, c): (usize, usize),
    time: f64,
    budget: &mut Budget,
) -> Result<Option<SampledChannel>, GltfError> {
    let root = file.json();
    let animation = &root.animations[a];
    let channel = &animation.channels[c];
    let s = channel.sampler.value();
    let sampler = &animation.samplers[s];
    let at_s = format!("/animations/{a}/samplers/{s}");
    let Checked::Valid(path) = channel.target.path else {
        return Ok(None);
    };
    let node = channel.target.node.value();
    let (width, element) = value_shape(root, node, path, (a, c))?;
    let times = key_times(file, sampler.input.value(), &at_s, budget)?;
    let interpolation = match sampler.interpolation {
        Checked::Valid(i) => i,
        Checked::Invalid => Interpolation::Linear,
    };
    let values = key_values(
        file,
        sampler.output.value(),
        (times.len(), width, element, interpolation),
        &at_s,
        budget,
    )?;
    let value = sample_values(&times, &values, width, interpolation, path, time);
    // A key of no length slerps to NaN: refused with the rest.
    let no_length = |q: DQuat| q.length_squared().is_nan() || q.length_squared() <= 1e-12;
    if path == Property::Rotation && no_length(DQuat::from_slice(&value)) {
        return Err(at(
            format!("{at_s}/output"),
            GltfErrorKind::Data(format!(
                "the rotation sampled at {time} s has no length (accessor {})",
                sampler.output.value()
            )),
        ));
    }
    Ok(Some(SampledChannel {
        node,
        path,
        value,
        keys: (times[0], times[times.len() - 1]),
    }))
}

/// Values a key and values an element of a channel driving `path` of node `node` (channel
/// `c` of animation `a`): weights come as SCALARs, one per morph target of the node's mesh and
/// key; the others as one VEC a key.
fn value_shape(
    root: &json::Root,
    node: usize,
    path: Property,
    (a, c): (usize, usize),
) -> Result<(usize, usize), GltfError> {
    Ok(match path {
        Property::Translation | Property::Scale => (3, 3),
        Property::Rotation => (4, 4),
        Property::MorphTargetWeights => {
            let targets = morph_targets(root, node).ok_or_else(|| {
                at(
                    format!("/animations/{a}/channels/{c}/target"),
                    GltfErrorKind::Data(format!(
                        "the channel animates the morph weights of node {node}, which has no mesh"
                    )),
                )
            })?;
            (targets, 1)
        }
    })
}

/// The index of the animation named `name`, or an error naming the near names and those
/// there are.
fn find_animation(root: &json::Root, name: &str) -> Result<usize, GltfError> {
    if root.animations.is_empty() {
        return Err(GltfError::new(
            location::Location::default(),
            GltfErrorKind::Data(format!(
                "the file has no animations, so no clip `{}` to draw",
                location::text::excerpt(name, 60)
            )),
        ));
    }
    let names: Vec<&str> = root
        .animations
        .iter()
        .map(|a| a.name.as_deref().unwrap_or(""))
        .collect();
    if let Some(a) = names.iter().position(|n| *n == name) {
        return Ok(a);
    }
    let near = location::near::near_names(name, names.iter().copied());
    let hint = if near.is_empty() {
        String::new()
    } else {
        format!(" (did you mean {}?)", near.join(", "))
    };
    let mut listed: Vec<String> = names
        .iter()
        .take(LISTED_NAMES)
        .map(|n| format!("`{}`", location::text::excerpt(n, 40)))
        .collect();
    if names.len() > LISTED_NAMES {
        listed.push(format!("and {} more", names.len() - LISTED_NAMES));
    }
    Err(at(
        "/animations",
        GltfErrorKind::Data(format!(
            "no animation `{}`{hint}; the file has {}: {}",
            location::text::excerpt(name, 60),
            names.len(),
            listed.join(", ")
        )),
    ))
}

/// How many morph targets the mesh of node `node` has; `None` when it has no mesh.
fn morph_targets(root: &json::Root, node: usize) -> Option<usize> {
    let mesh = &root.meshes[root.nodes[node].mesh?.value()];
    Some(
        mesh.primitives
            .first()
            .map_or(0, |p| p.targets.as_ref().map_or(0, Vec::len)),
    )
}

/// A sampler's key times: a SCALAR accessor of at least one finite time, strictly increasing.
fn key_times(
    file: &GltfFile,
    input: usize,
    at_s: &str,
    budget: &mut Budget,
) -> Result<Vec<f64>, GltfError> {
    let pointer = format!("{at_s}/input");
    let bad = |problem: String| {
        at(
            pointer.as_str(),
            GltfErrorKind::Data(format!("key times (accessor {input}): {problem}")),
        )
    };
    let e = file.read_floats(input, budget)?;
    if e.width != 1 || e.values.is_empty() {
        return Err(bad(format!(
            "{} elements of {} values; at least one SCALAR is needed",
            e.count(),
            e.width
        )));
    }
    if let Some(k) = e.values.iter().position(|t| !t.is_finite()) {
        return Err(bad(format!("key {k} is not a finite number")));
    }
    if let Some(k) = e.values.windows(2).position(|w| w[1] <= w[0]) {
        return Err(bad(format!(
            "key {} ({} s) is not after key {k} ({} s): times must increase",
            k + 1,
            e.values[k + 1],
            e.values[k]
        )));
    }
    Ok(e.values.iter().map(|&t| f64::from(t)).collect())
}

/// A sampler's output values for `keys` keys of `width` numbers each, in elements of
/// `element` numbers (three groups a key for CUBICSPLINE: in-tangent, value, out-tangent),
/// every one finite.
fn key_values(
    file: &GltfFile,
    output: usize,
    (keys, width, element, interpolation): (usize, usize, usize, Interpolation),
    at_s: &str,
    budget: &mut Budget,
) -> Result<Vec<f64>, GltfError> {
    let pointer = format!("{at_s}/output");
    let bad = |problem: String| {
        at(
            pointer.as_str(),
            GltfErrorKind::Data(format!("key values (accessor {output}): {problem}")),
        )
    };
    let e = file.read_floats(output, budget)?;
    let groups = if interpolation == Interpolation::CubicSpline {
        3
    } else {
        1
    };
    let wanted = keys.saturating_mul(groups).saturating_mul(width);
    if e.width != element || e.values.len() != wanted {
        return Err(bad(format!(
            "{} values in elements of {} for {keys} keys of {width} values{}",
            e.values.len(),
            e.width,
            if groups == 3 {
                " (three groups a key: CUBICSPLINE)"
            } else {
                ""
            }
        )));
    }
    if let Some(k) = e.values.iter().position(|v| !v.is_finite()) {
        return Err(bad(format!(
            "value {k} (key {}) is not a finite number",
            k / (width * groups).max(1)
        )));
    }
    Ok(e.values.iter().map(|&v| f64::from(v)).collect())
}

/// The value at `time` of a sampler with `times` and `values` (`width` a key, or three groups
/// of it for CUBICSPLINE), a rotation's interpolated by slerp.
fn sample_values(
    times: &[f64],
    values: &[f64],
    width: usize,
    interpolation: Interpolation,
    path: Property,
    time: f64,
) -> Vec<f64> {
    let cubic = interpolation == Interpolation::CubicSpline;
    // Key k's value: the middle group of three for CUBICSPLINE.
    let value = |k: usize| {
        let start = if cubic {
            (3 * k + 1) * width
        } else {
            k * width
        };
        &values[start..start + width]
    };
    let last = times.len() - 1;
    if time <= times[0] {
        return value(0).to_vec();
    }
    if time >= times[last] {
        return value(last).to_vec();
    }
    // The key at or before `time`: times increase, so the first after it less one.
    let k = times.partition_point(|&t| t <= time) - 1;
    let span = times[k + 1] - times[k];
    let u = (time - times[k]) / span;
    match interpolation {
        Interpolation::Step => value(k).to_vec(),
        Interpolation::Linear if path == Property::Rotation => {
            let a = DQuat::from_slice(value(k));
            let b = DQuat::from_slice(value(k + 1));
            slerp(a, b, u).to_array().to_vec()
        }
        Interpolation::Linear => value(k)
            .iter()
            .zip(value(k + 1))
            .map(|(a, b)| a + (b - a) * u)
            .collect(),
        Interpolation::CubicSpline => {
            let out_tangent = &values[(3 * k + 2) * width..(3 * k + 3) * width];
            let in_tangent = &values[(3 * (k + 1)) * width..(3 * (k + 1) + 1) * width];
            let (u2, u3) = (u * u, u * u * u);
            let (h00, h10) = (2.0 * u3 - 3.0 * u2 + 1.0, u3 - 2.0 * u2 + u);
            let (h01, h11) = (-2.0 * u3 + 3.0 * u2, u3 - u2);
            (0..width)
                .map(|i| {
                    h00 * value(k)[i]
                        + h10 * span * out_tangent[i]
                        + h01 * value(k + 1)[i]
                        + h11 * span * in_tangent[i]
                })
                .collect()
        }
    }
}

/// Spherical linear interpolation the short way round, as glTF (and three.js) do: `a` and
/// `b` need not be unit.
fn slerp(a: DQuat, b: DQuat, u: f64) -> DQuat {
    let (a, b) = (a.normalize(), b.normalize());
    let b = if a.dot(b) < 0.0 { -b } else { b };
    let cos = a.dot(b).clamp(-1.0, 1.0);
    if cos > 1.0 - 1e-9 {
        return (a * (1.0 - u) + b * u).normalize();
    }
    let angle = cos.acos();
    let sin = angle.sin();
    (a * (((1.0 - u) * angle).sin() / sin) + b * ((u * angle).sin() / sin)).normalize()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn linear_keys_interpolate_and_clamp() {
        let times = [0.0, 1.0, 3.0];
        let values = [0.0, 10.0, 30.0, 0.0, -2.0, 6.0, 0.0, 0.0, 0.0];
        let at = |t| {
            sample_values(
                &times,
                &values,
                3,
                Interpolation::Linear,
                Property::Translation,
                t,
            )
        };
        assert_eq!(at(0.5), vec![0.0, 4.0, 18.0]);
        // Between the second and third keys, a quarter of the way.
        assert_eq!(at(1.5), vec![0.0, -1.5, 4.5]);
        assert_eq!(at(9.0), vec![0.0, 0.0, 0.0]);
        let step = sample_values(
            &times,
            &values,
            3,
            Interpolation::Step,
            Property::Translation,
            2.9,
        );
        assert_eq!(step, vec![0.0, -2.0, 6.0]);
    }

    #[test]
    fn rotations_slerp_at_constant_speed() {
        // From identity to 90 degrees about Y: a third of the way is 30 degrees.
        let s = std::f64::consts::FRAC_1_SQRT_2;
        let values = [0.0, 0.0, 0.0, 1.0, 0.0, s, 0.0, s];
        let q = sample_values(
            &[0.0, 3.0],
            &values,
            4,
            Interpolation::Linear,
            Property::Rotation,
            1.0,
        );
        let (axis, angle) = DQuat::from_slice(&q).to_axis_angle();
        assert!((angle.to_degrees() - 30.0).abs() < 1e-9, "{angle}");
        assert!((axis - DVec3::Y).length() < 1e-9);
        // Keys on opposite sides of the sphere still turn the short way.
        let far = [0.0, 0.0, 0.0, 1.0, 0.0, -s, 0.0, -s];
        let q = sample_values(
            &[0.0, 3.0],
            &far,
            4,
            Interpolation::Linear,
            Property::Rotation,
            1.5,
        );
        let angle = DQuat::from_slice(&q)
            .angle_between(DQuat::IDENTITY)
            .to_degrees();
        assert!((angle - 45.0).abs() < 1e-9, "{angle}");
    }

    #[test]
    fn cubic_keys_follow_their_tangents() {
        // One value from 0 to 1 over 2 s, both tangents 0.5 a second (a straight line): the
        // Hermite curve is the line, so half way is 0.5.
        let values = [0.5, 0.0, 0.5, 0.5, 1.0, 0.5];
        let v = sample_values(
            &[0.0, 2.0],
            &values,
            1,
            Interpolation::CubicSpline,
            Property::MorphTargetWeights,
            1.0,
        );
        assert!((v[0] - 0.5).abs() < 1e-12, "{v:?}");
        // Flat tangents: smoothstep, 0.15625 a quarter of the way.
        let flat = [0.0, 0.0, 0.0, 0.0, 1.0, 0.0];
        let v = sample_values(
            &[0.0, 2.0],
            &flat,
            1,
            Interpolation::CubicSpline,
            Property::MorphTargetWeights,
            0.5,
        );
        assert!((v[0] - 0.15625).abs() < 1e-12, "{v:?}");
    }
}
