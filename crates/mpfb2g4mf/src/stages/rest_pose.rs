//! `--rest-pose FILE|t-pose`: a pose baked into the rest. The pose is evaluated with Blender's
//! pose-bone semantics (pose = parent pose x parent rest^-1 x rest x translation x rotation),
//! the mesh is deformed by linear blend skinning as Blender's armature modifier does (each
//! vertex moved by the weight-averaged pose x rest^-1 of its bones, weights divided by their
//! sum), blend-shape offsets turn with their vertex, and the posed bones become the new rest.
//! `t-pose` takes the rig's own MPFB T-pose file, or computes one for rigs without (upper arms,
//! forearms and hands turned straight along the side axis by the shortest rotation).

use crate::error::ConvertError;
use character::Character;
use glam::{DAffine3, DMat3, DVec3};
use mpfb_rig::Pose;
use std::collections::HashMap;

/// The rest pose of each bone: an affine map from bone space to skeleton space.
fn rest_matrices(character: &Character) -> Vec<DAffine3> {
    character
        .skeleton
        .bones
        .iter()
        .map(|b| DAffine3::from_mat3_translation(b.basis, b.head))
        .collect()
}

/// Bones in an order where parents come first.
fn parents_first(character: &Character) -> Vec<usize> {
    let bones = &character.skeleton.bones;
    let mut order = Vec::with_capacity(bones.len());
    let mut placed = vec![false; bones.len()];
    while order.len() < bones.len() {
        let before = order.len();
        for (i, b) in bones.iter().enumerate() {
            if !placed[i] && b.parent.is_none_or(|p| placed[p]) {
                placed[i] = true;
                order.push(i);
            }
        }
        if order.len() == before {
            // A cycle cannot come from a rig file (parse refuses it); keep the rest as is.
            order.extend((0..bones.len()).filter(|&i| !placed[i]));
        }
    }
    order
}

/// Pose matrices (bone space to skeleton space) of a pose given as local rotations and
/// translations, Blender's way.
pub fn evaluate(character: &Character, pose: &Pose) -> Vec<DAffine3> {
    let index: HashMap<&str, usize> = character
        .skeleton
        .bones
        .iter()
        .enumerate()
        .map(|(i, b)| (b.name.as_str(), i))
        .collect();
    let mut local = vec![DAffine3::IDENTITY; character.skeleton.bones.len()];
    let scale = translation_scale(character, pose, &index);
    for (bone, t) in &pose.translations {
        if let Some(&i) = index.get(bone.as_str()) {
            local[i].translation = *t * scale;
        }
    }
    for (bone, r) in &pose.rotations {
        if let Some(&i) = index.get(bone.as_str()) {
            local[i].matrix3 = *r;
        }
    }
    pose_bones(character, |i, relative| relative * local[i])
}

/// The bones a pose names (rotations and translations) that the character's rig lacks.
fn unknown_bones<'p>(character: &Character, pose: &'p Pose) -> Vec<&'p str> {
    let known: std::collections::HashSet<&str> = character
        .skeleton
        .bones
        .iter()
        .map(|b| b.name.as_str())
        .collect();
    pose.rotations
        .iter()
        .map(|(b, _)| b.as_str())
        .chain(pose.translations.iter().map(|(b, _)| b.as_str()))
        .filter(|b| !known.contains(b))
        .collect()
}

/// The first few of `names`, short, for a message.
fn first_names(names: &[&str]) -> String {
    let shown: Vec<String> = names
        .iter()
        .take(3)
        .map(|n| format!("`{}`", location::text::excerpt(n, 40)))
        .collect();
    if names.len() > 3 {
        format!("{}, ...", shown.join(", "))
    } else {
        shown.join(", ")
    }
}

/// Poses the bones parents first: `pose(bone, relative)` gives a bone's pose from its rest
/// carried by its parent's pose (`parent pose x parent rest^-1 x rest`; the rest for roots).
fn pose_bones(character: &Character, pose: impl Fn(usize, DAffine3) -> DAffine3) -> Vec<DAffine3> {
    let rest = rest_matrices(character);
    let mut posed = rest.clone();
    for i in parents_first(character) {
        let relative = match character.skeleton.bones[i].parent {
            Some(p) => posed[p] * rest[p].inverse() * rest[i],
            None => rest[i],
        };
        posed[i] = pose(i, relative);
    }
    posed
}

/// MPFB scales a default rig's pose translations by the fitted rig's proportions: x and y by
/// shoulder width, z by spine length, against the widths the pose was authored on.
fn translation_scale(character: &Character, pose: &Pose, index: &HashMap<&str, usize>) -> DVec3 {
    if !pose.skeleton_type.contains("default")
        || pose.original_shoulder_width <= 0.0
        || pose.original_spine_length <= 0.0
    {
        return DVec3::ONE;
    }
    let bones = &character.skeleton.bones;
    let tail = |name: &str| {
        index
            .get(name)
            .map(|&i| bones[i].head + bones[i].basis.y_axis * bones[i].length)
    };
    let head = |name: &str| index.get(name).map(|&i| bones[i].head);
    let (Some(spine_head), Some(spine_tail), Some(left), Some(right)) = (
        head("spine05"),
        tail("spine01"),
        tail("shoulder01.L"),
        tail("shoulder01.R"),
    ) else {
        return DVec3::ONE;
    };
    let shoulders = left.distance(right) / pose.original_shoulder_width;
    let spine = spine_head.distance(spine_tail) / pose.original_spine_length;
    DVec3::new(shoulders, shoulders, spine)
}

/// A T-pose for a rig without one: every posed bone keeps its rest relative to its parent,
/// except the `arms` (upper arm, forearm, hand, per side, with the side's direction), turned
/// by the shortest rotation so their +Y runs along the side axis (+X for the character's
/// left). Palms that face the thighs in an A-pose face down after that turn.
pub fn computed_t_pose(character: &Character, arms: &[(usize, DVec3)]) -> Vec<DAffine3> {
    pose_bones(character, |i, mut p| {
        if let Some((_, direction)) = arms.iter().find(|(b, _)| *b == i) {
            let turn = glam::DQuat::from_rotation_arc(p.matrix3.y_axis.normalize(), *direction);
            p.matrix3 = DMat3::from_quat(turn) * p.matrix3;
        }
        p
    })
}

/// Bakes `posed` (per bone, as [`evaluate`] gives) into the character: vertices and
/// blend-shape offsets deformed by the skin, bones moved to their posed frames.
pub fn bake(mut character: Character, posed: &[DAffine3]) -> Result<Character, ConvertError> {
    let rest = rest_matrices(&character);
    let skinning: Vec<DAffine3> = posed
        .iter()
        .zip(&rest)
        .map(|(p, r)| *p * r.inverse())
        .collect();
    deform(
        &mut character.mesh,
        character.skin.as_ref(),
        &mut character.blend_shapes,
        &skinning,
    );
    for attachment in &mut character.attachments {
        deform(
            &mut attachment.mesh,
            attachment.skin.as_ref(),
            &mut attachment.blend_shapes,
            &skinning,
        );
    }
    for (bone, p) in character.skeleton.bones.iter_mut().zip(posed) {
        bone.head = p.translation;
        // Rotations only: the basis stays orthonormal up to rounding; re-orthonormalise so
        // the writer's checks see a clean rotation.
        let y = p.matrix3.y_axis.normalize();
        let x = (p.matrix3.x_axis - y * p.matrix3.x_axis.dot(y)).normalize();
        bone.basis = DMat3::from_cols(x, y, x.cross(y));
    }
    Ok(character)
}

/// Deforms a mesh and its blend-shape offsets by `skin` under the per-bone `skinning` maps:
/// per vertex the weight-averaged map (Blender's armature modifier normalises the weights;
/// unweighted vertices stay).
fn deform(
    mesh: &mut character::Mesh,
    skin: Option<&character::Skin>,
    shapes: &mut [character::BlendShape],
    skinning: &[DAffine3],
) {
    let count = mesh.positions.len();
    let mut blended: Vec<Option<(DMat3, DVec3, f64)>> = vec![None; count];
    if let Some(skin) = skin {
        for inf in &skin.influences {
            let s = skinning[inf.bone as usize];
            let entry = blended[inf.vertex as usize].get_or_insert((DMat3::ZERO, DVec3::ZERO, 0.0));
            entry.0 += s.matrix3 * inf.weight;
            entry.1 += s.translation * inf.weight;
            entry.2 += inf.weight;
        }
    }
    let maps: Vec<Option<(DMat3, DVec3)>> = blended
        .into_iter()
        .map(|b| {
            b.filter(|(_, _, w)| *w > 0.0)
                .map(|(m, t, w)| (m * (1.0 / w), t / w))
        })
        .collect();
    for (p, map) in mesh.positions.iter_mut().zip(&maps) {
        if let Some((m, t)) = map {
            *p = *m * *p + *t;
        }
    }
    for shape in shapes {
        for (v, o) in &mut shape.offsets {
            if let Some(Some((m, _))) = maps.get(*v as usize) {
                *o = *m * *o;
            }
        }
        shape.normal_offsets.clear();
    }
    mesh.normals.clear();
}

/// The posed bone frames of `pose` (read in stage 1), for the rig at `rig_path`, and a word
/// on where they came from.
pub fn posed_frames(
    character: &Character,
    pose: &crate::inputs::LoadedPose,
    rig_path: &std::path::Path,
) -> Result<(Vec<DAffine3>, String), ConvertError> {
    let rig = mpfb_data::rig_name(rig_path);
    match pose {
        crate::inputs::LoadedPose::File { pose, source } => {
            let unknown = unknown_bones(character, pose);
            let named = pose.rotations.len() + pose.translations.len();
            if unknown.len() == named {
                return Err(ConvertError::RestPose(format!(
                    "{source} names no bone of rig `{rig}` ({}); is it a pose for another rig?",
                    if named == 0 {
                        "it names no bone at all".to_owned()
                    } else {
                        match unknown.len() {
                            1 => format!("it names bone {}", first_names(&unknown)),
                            n => format!("{n} bones, such as {}", first_names(&unknown)),
                        }
                    }
                )));
            }
            let mut note = source.clone();
            if !unknown.is_empty() {
                note.push_str(&format!(
                    " ({} of its bones are not in rig `{rig}` and were left out: {})",
                    unknown.len(),
                    first_names(&unknown)
                ));
            }
            Ok((evaluate(character, pose), note))
        }
        crate::inputs::LoadedPose::ComputedTPose { arms_table } => {
            // No T-pose file: computed from the arm bones the humanoid table names.
            let table = arms_table.as_ref().ok_or_else(|| {
                ConvertError::RestPose(format!(
                    "rig `{rig}` has no T-pose file and no humanoid table to find its arms; pass --rest-pose FILE"
                ))
            })?;
            let bone = |g4mf: &str| {
                let mpfb = table.iter().find(|(_, v)| v.as_str() == g4mf)?.0;
                character
                    .skeleton
                    .bones
                    .iter()
                    .position(|b| &b.name == mpfb)
            };
            let mut arms = Vec::new();
            for (side, direction) in [("Left", DVec3::X), ("Right", DVec3::NEG_X)] {
                for part in ["UpperArm", "LowerArm", "Hand"] {
                    let b = bone(&format!("{side}{part}")).ok_or_else(|| {
                        ConvertError::RestPose(format!("rig `{rig}` has no {side}{part} to turn"))
                    })?;
                    arms.push((b, direction));
                }
            }
            Ok((
                computed_t_pose(character, &arms),
                format!("computed T-pose (rig `{rig}` has no T-pose file)"),
            ))
        }
    }
}
