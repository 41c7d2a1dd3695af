//! `--rest-pose FILE|t-pose`: a pose baked into the rest. The pose is evaluated with Blender's
//! pose-bone semantics (pose = parent pose x parent rest^-1 x rest x translation x rotation),
//! the mesh is deformed by linear blend skinning as Blender's armature modifier does (each
//! vertex moved by the weight-averaged pose x rest^-1 of its bones, weights divided by their
//! sum), blend-shape offsets turn with their vertex, and the posed bones become the new rest.
//! `t-pose` takes the rig's own MPFB T-pose file, or computes a straight one for rigs without;
//! `straight-t-pose` computes it for any rig (arms and hands on the side axis, palms down, legs
//! straight down; see [`computed_t_pose`] and spec-notes/rest-pose.md).

use crate::error::ConvertError;
use crate::stages::humanoid::Names;
use character::Character;
use glam::{DAffine3, DMat3, DQuat, DVec3};
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

/// Bones in an order where parents come first (breadth first from the roots: linear, however
/// the rig lists its bones).
fn parents_first(character: &Character) -> Vec<usize> {
    let bones = &character.skeleton.bones;
    let mut children = vec![Vec::new(); bones.len()];
    let mut order = Vec::with_capacity(bones.len());
    for (i, b) in bones.iter().enumerate() {
        match b.parent.filter(|&p| p < bones.len()) {
            Some(p) => children[p].push(i),
            None => order.push(i),
        }
    }
    let mut next = 0;
    while next < order.len() {
        order.extend(children[order[next]].iter().copied());
        next += 1;
    }
    if order.len() < bones.len() {
        // A cycle cannot come from a rig file (parse refuses it); keep the rest as is.
        let mut placed = vec![false; bones.len()];
        for &i in &order {
            placed[i] = true;
        }
        order.extend((0..bones.len()).filter(|&i| !placed[i]));
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

/// One arm of a computed T-pose, as bone indices.
#[derive(Debug, Clone)]
pub struct Arm {
    /// Every bone from the upper arm down to the hand, top first.
    pub bones: Vec<usize>,
    /// The side's direction: +X for the character's left.
    pub direction: DVec3,
    /// The index and pinky knuckles (their proximal bones), when the rig has them.
    pub knuckles: Option<(usize, usize)>,
}

/// The limbs a computed T-pose straightens, as bone indices.
#[derive(Debug, Clone, Default)]
pub struct TPoseLimbs {
    /// The arms.
    pub arms: Vec<Arm>,
    /// Per leg: every bone from the upper leg down to the foot's parent, and the foot.
    pub legs: Vec<(Vec<usize>, Option<usize>)>,
}

impl TPoseLimbs {
    /// The limbs by humanoid `names`; the arms are required.
    pub fn find(character: &Character, names: &Names) -> Result<Self, String> {
        let bones = &character.skeleton.bones;
        let bone = |g4mf: &str| names.bone(character, g4mf);
        // `top` .. `bottom` along the parents, top first.
        let chain = |top: usize, bottom: usize| {
            let mut out = vec![bottom];
            let mut at = bottom;
            while at != top {
                at = bones[at].parent.filter(|_| out.len() <= bones.len())?;
                out.push(at);
            }
            out.reverse();
            Some(out)
        };
        let mut limbs = TPoseLimbs::default();
        for (side, direction) in [("Left", DVec3::X), ("Right", DVec3::NEG_X)] {
            let part = |p: &str| {
                bone(&format!("{side}{p}")).ok_or_else(|| format!("no {side}{p} was found"))
            };
            let (upper, hand) = (part("UpperArm")?, part("Hand")?);
            let arm = chain(upper, hand)
                .ok_or_else(|| format!("{side}Hand is not below {side}UpperArm"))?;
            let knuckle = |finger: &str| {
                bone(&format!("{side}{finger}Proximal"))
                    .or_else(|| bone(&format!("{side}{finger}Intermediate")))
            };
            limbs.arms.push(Arm {
                bones: arm,
                direction,
                knuckles: knuckle("Index").zip(knuckle("Pinky")),
            });
            if let (Ok(upper), Ok(lower)) = (part("UpperLeg"), part("LowerLeg")) {
                let foot = part("Foot").ok();
                // Down to the foot's parent when there is a foot, so twist bones between the
                // shin and the foot turn too.
                let bottom = foot.and_then(|f| bones[f].parent).unwrap_or(lower);
                if let Some(leg) = chain(upper, bottom) {
                    limbs.legs.push((leg, foot));
                }
            }
        }
        Ok(limbs)
    }
}

/// A straight T-pose: every posed bone keeps its rest relative to its parent, except the
/// limbs. Each arm bone is turned by the shortest rotation so its +Y runs along the side axis
/// (+X for the character's left); the hand then turns about that axis until its palm faces
/// down (the palm's normal from the hand's direction and the index-to-pinky knuckle line);
/// fingers keep their rest relative to the hand. Each leg bone points straight down (-Y) and
/// the feet keep their rest orientation, so they stay flat.
pub fn computed_t_pose(character: &Character, limbs: &TPoseLimbs) -> Vec<DAffine3> {
    let rest = rest_matrices(character);
    // Which arm or leg each bone is on, looked up once (a limb may be a long twist chain).
    let mut on_arm = vec![None; character.skeleton.bones.len()];
    for (a, arm) in limbs.arms.iter().enumerate() {
        for &b in &arm.bones {
            on_arm[b] = Some(a);
        }
    }
    let mut on_leg = vec![false; character.skeleton.bones.len()];
    for (leg, _) in &limbs.legs {
        for &b in leg {
            on_leg[b] = true;
        }
    }
    pose_bones(character, |i, mut p| {
        if let Some(Arm {
            bones: arm,
            direction,
            knuckles: palm,
        }) = on_arm[i].map(|a| &limbs.arms[a])
        {
            let turn = DQuat::from_rotation_arc(p.matrix3.y_axis.normalize(), *direction);
            p.matrix3 = DMat3::from_quat(turn) * p.matrix3;
            if Some(&i) == arm.last() {
                if let Some((index, pinky)) = palm {
                    // Rest-space directions carried to the pose by the hand's rotation.
                    let carry = p.matrix3 * rest[i].matrix3.inverse();
                    let across = carry * (rest[*pinky].translation - rest[*index].translation);
                    // Palm-down: the normal (along x across, negated on the left) is -Y.
                    let side = if direction.x > 0.0 { -1.0 } else { 1.0 };
                    let normal = direction.cross(across) * side;
                    let flat = normal - *direction * normal.dot(*direction);
                    if flat.length() > 1e-9 {
                        let angle = flat.normalize().angle_between(DVec3::NEG_Y);
                        let sign = flat.cross(DVec3::NEG_Y).dot(*direction).signum();
                        let twist = DQuat::from_axis_angle(*direction, angle * sign);
                        p.matrix3 = DMat3::from_quat(twist) * p.matrix3;
                    }
                }
            }
        }
        if on_leg[i] {
            let turn = DQuat::from_rotation_arc(p.matrix3.y_axis.normalize(), DVec3::NEG_Y);
            p.matrix3 = DMat3::from_quat(turn) * p.matrix3;
        } else if limbs.legs.iter().any(|(_, foot)| *foot == Some(i)) {
            p.matrix3 = rest[i].matrix3;
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
        character.skin.as_deref(),
        &mut character.blend_shapes,
        &skinning,
    );
    for attachment in &mut character.attachments {
        deform(
            &mut attachment.mesh,
            attachment.skin.as_deref(),
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
        for (v, o) in std::sync::Arc::make_mut(&mut shape.offsets) {
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
    names: Option<&Names>,
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
        crate::inputs::LoadedPose::ComputedTPose => {
            let names = names.ok_or_else(|| {
                ConvertError::RestPose(format!("rig `{rig}`: no humanoid names to find its limbs"))
            })?;
            let limbs = TPoseLimbs::find(character, names).map_err(|why| {
                ConvertError::RestPose(format!(
                    "rig `{rig}`: a T-pose cannot be computed: {why} ({}); pass --rest-pose FILE or --humanoid-map FILE",
                    names.source
                ))
            })?;
            Ok((
                computed_t_pose(character, &limbs),
                format!(
                    "a computed T-pose (straight limbs, palms down; limbs by {})",
                    names.source
                ),
            ))
        }
    }
}
