//! `--rest-pose FILE|t-pose|straight-t-pose|vrm-t-pose`: a pose baked into the rest. The pose
//! is evaluated with Blender's pose-bone semantics (pose = parent pose x parent rest^-1 x rest
//! x translation x rotation), the mesh is deformed by linear blend skinning as Blender's
//! armature modifier does (each vertex moved by the weight-averaged pose x rest^-1 of its
//! bones, weights divided by their sum), blend-shape offsets turn with their vertex, and the
//! posed bones become the new rest. `t-pose` takes the rig's own MPFB T-pose file, or
//! computes a straight one for rigs without; `straight-t-pose` computes it for any rig (arms
//! and hands on the side axis, palms down, legs straight down; see [`computed_t_pose`]);
//! `vrm-t-pose` computes VRM 1.0's T-pose (also fingers straight, thumbs at 45 degrees, feet
//! forward; see [`vrm_t_pose`] and spec-notes/rest-pose.md).

use crate::diagnostics::{Code, Diagnostics};
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
pub(crate) fn parents_first(character: &Character) -> Vec<usize> {
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
pub(crate) fn pose_bones(
    character: &Character,
    pose: impl Fn(usize, DAffine3) -> DAffine3,
) -> Vec<DAffine3> {
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
    /// The bone whose head the VRM T-pose aims the hand at: the middle finger's knuckle (its
    /// `Proximal`), else the index's, ring's or pinky's; `None` without fingers.
    pub knuckle: Option<usize>,
    /// Index, middle, ring and pinky, those the rig has: each finger's bones from its
    /// `Proximal` (else `Intermediate`) down to its last human bone, top first. Metacarpals
    /// are not in them: they are the palm and ride with the hand.
    pub fingers: Vec<Vec<usize>>,
    /// For a hand without finger names, the chains below it that no name covers, top first
    /// (cmu_mb's `FingerBase` and `HandFinger1`: the palm and all four fingers).
    pub unnamed: Vec<Vec<usize>>,
    /// The thumb's bones from its first human bone (`Metacarpal`, `Proximal`, `Distal`) down
    /// to its last, top first; empty without a thumb.
    pub thumb: Vec<usize>,
}

/// One leg of a computed T-pose, as bone indices.
#[derive(Debug, Clone)]
pub struct Leg {
    /// Every bone from the upper leg down to the foot's parent (down to the lower leg
    /// without a foot), top first.
    pub bones: Vec<usize>,
    /// The foot.
    pub foot: Option<usize>,
    /// The toes (one bone below the foot, G4MF's `Toes`), when the rig has them; toe chains
    /// without a `Toes` name (MPFB's default rig has five a foot) just follow the foot.
    pub toes: Option<usize>,
}

/// The limbs a computed T-pose straightens, as bone indices.
#[derive(Debug, Clone, Default)]
pub struct TPoseLimbs {
    /// The arms.
    pub arms: Vec<Arm>,
    /// The legs.
    pub legs: Vec<Leg>,
    /// The limbs not found, left as they rest (said as a warning: a T-pose with a bent limb
    /// is not the one asked for).
    pub left_bent: Vec<String>,
}

impl TPoseLimbs {
    /// The limbs by humanoid `names`; the arms are required, everything else is taken as far
    /// as the rig has it.
    pub fn find(character: &Character, names: &Names) -> Result<Self, String> {
        let mut limbs = TPoseLimbs::default();
        for (side, direction) in [("Left", DVec3::X), ("Right", DVec3::NEG_X)] {
            let side = Side {
                character,
                names,
                side,
            };
            limbs.arms.push(side.arm(direction)?);
            match side.leg() {
                Some(leg) => limbs.legs.push(leg),
                None => limbs.left_bent.push(format!(
                    "the {} leg ({}UpperLeg down to {}LowerLeg)",
                    side.side.to_lowercase(),
                    side.side,
                    side.side
                )),
            }
        }
        Ok(limbs)
    }
}

/// One side's humanoid bones, for [`TPoseLimbs::find`].
struct Side<'a> {
    character: &'a Character,
    names: &'a Names,
    side: &'static str,
}

impl Side<'_> {
    /// This side's bone `part` (`UpperArm` is `LeftUpperArm` on the left).
    fn bone(&self, part: &str) -> Option<usize> {
        self.names
            .bone(self.character, &format!("{}{part}", self.side))
    }

    /// This side's bone `part`, required.
    fn part(&self, part: &str) -> Result<usize, String> {
        self.bone(part)
            .ok_or_else(|| format!("no {}{part} was found", self.side))
    }

    /// `top` .. `bottom` along the parents, top first; `None` when `top` is not above.
    fn chain(&self, top: usize, bottom: usize) -> Option<Vec<usize>> {
        let bones = &self.character.skeleton.bones;
        let mut out = vec![bottom];
        let mut at = bottom;
        while at != top {
            at = bones[at].parent.filter(|_| out.len() <= bones.len())?;
            out.push(at);
        }
        out.reverse();
        Some(out)
    }

    /// The chain from the first of `parts` the rig has down to the last, when it hangs below
    /// `below`; empty otherwise.
    fn chain_of(&self, below: usize, parts: &[String]) -> Vec<usize> {
        let found: Vec<usize> = parts.iter().filter_map(|p| self.bone(p)).collect();
        let (Some(&first), Some(&last)) = (found.first(), found.last()) else {
            return Vec::new();
        };
        match (self.chain(below, first), self.chain(first, last)) {
            (Some(_), Some(chain)) if first != below => chain,
            _ => Vec::new(),
        }
    }

    /// The arm: upper arm to hand (required), knuckles, fingers and thumb.
    fn arm(&self, direction: DVec3) -> Result<Arm, String> {
        let side = self.side;
        let (upper, hand) = (self.part("UpperArm")?, self.part("Hand")?);
        let bones = self
            .chain(upper, hand)
            .ok_or_else(|| format!("{side}Hand is not below {side}UpperArm"))?;
        let knuckle = |finger: &str| {
            self.bone(&format!("{finger}Proximal"))
                .or_else(|| self.bone(&format!("{finger}Intermediate")))
        };
        let finger = |finger: &str| {
            let parts = ["Proximal", "Intermediate", "Distal"].map(|s| format!("{finger}{s}"));
            self.chain_of(hand, &parts)
        };
        let fingers: Vec<Vec<usize>> = ["Index", "Middle", "Ring", "Pinky"]
            .iter()
            .map(|f| finger(f))
            .filter(|chain| !chain.is_empty())
            .collect();
        let thumb = self.chain_of(
            hand,
            &["Metacarpal", "Proximal", "Distal"].map(|s| format!("Thumb{s}")),
        );
        let unnamed = if fingers.is_empty() {
            self.unnamed_chains(hand, &thumb)
        } else {
            Vec::new()
        };
        Ok(Arm {
            bones,
            direction,
            knuckles: knuckle("Index").zip(knuckle("Pinky")),
            knuckle: ["Middle", "Index", "Ring", "Pinky"]
                .iter()
                .filter_map(|f| knuckle(f))
                .find(|&k| self.chain(hand, k).is_some()),
            fingers,
            unnamed,
            thumb,
        })
    }

    /// The chains hanging from `hand` whose bones no humanoid name covers, outside `thumb`:
    /// each child of the hand followed down while it has one child (cmu_mb's `FingerBase`
    /// and `HandFinger1`, one chain for all four fingers).
    fn unnamed_chains(&self, hand: usize, thumb: &[usize]) -> Vec<Vec<usize>> {
        let bones = &self.character.skeleton.bones;
        let named = |b: usize| self.names.table.contains_key(&bones[b].name);
        // Each bone's children, found once: a chain of many bones costs linear time.
        let mut children_of: Vec<Vec<usize>> = vec![Vec::new(); bones.len()];
        for (c, bone) in bones.iter().enumerate() {
            if let Some(p) = bone.parent.filter(|&p| p < bones.len()) {
                children_of[p].push(c);
            }
        }
        let children = |b: usize| children_of[b].iter().copied();
        let mut chains = Vec::new();
        for start in children(hand).filter(|&c| !named(c) && !thumb.contains(&c)) {
            let mut chain = vec![start];
            loop {
                let below: Vec<usize> = children(chain[chain.len() - 1]).take(2).collect();
                match below[..] {
                    [only] if !named(only) && chain.len() < bones.len() => chain.push(only),
                    _ => break,
                }
            }
            chains.push(chain);
        }
        chains
    }

    /// The leg, when the rig has an upper and a lower leg.
    fn leg(&self) -> Option<Leg> {
        let bones = &self.character.skeleton.bones;
        let (upper, lower) = (self.bone("UpperLeg")?, self.bone("LowerLeg")?);
        let foot = self.bone("Foot");
        // Down to the foot's parent when there is a foot, so twist bones between the shin
        // and the foot turn too.
        let bottom = foot.and_then(|f| bones[f].parent).unwrap_or(lower);
        Some(Leg {
            bones: self.chain(upper, bottom)?,
            foot,
            toes: foot.and_then(|f| self.bone("Toes").filter(|&t| bones[t].parent == Some(f))),
        })
    }
}

/// Turns the posed hand `hand` (its rest `rest`) about the side axis `direction` until its
/// palm faces down: the palm's normal, from `direction` and the knuckle line `across` (pinky
/// minus index knuckle at rest, carried by the hand's rotation), negated on the left, is -Y.
fn palm_down(hand: &mut DAffine3, rest: &DAffine3, across: DVec3, direction: DVec3) {
    let across = hand.matrix3 * rest.matrix3.inverse() * across;
    let side = if direction.x > 0.0 { -1.0 } else { 1.0 };
    let normal = direction.cross(across) * side;
    let flat = normal - direction * normal.dot(direction);
    if flat.length() > 1e-9 {
        let angle = flat.normalize().angle_between(DVec3::NEG_Y);
        let sign = flat.cross(DVec3::NEG_Y).dot(direction).signum();
        let twist = DQuat::from_axis_angle(direction, angle * sign);
        hand.matrix3 = DMat3::from_quat(twist) * hand.matrix3;
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
    for leg in &limbs.legs {
        for &b in &leg.bones {
            on_leg[b] = true;
        }
    }
    pose_bones(character, |i, mut p| {
        if let Some(arm) = on_arm[i].map(|a| &limbs.arms[a]) {
            let turn = DQuat::from_rotation_arc(p.matrix3.y_axis.normalize(), arm.direction);
            p.matrix3 = DMat3::from_quat(turn) * p.matrix3;
            if let Some((index, pinky)) = arm.knuckles.filter(|_| arm.bones.last() == Some(&i)) {
                let across = rest[pinky].translation - rest[index].translation;
                palm_down(&mut p, &rest[i], across, arm.direction);
            }
        }
        if on_leg[i] {
            let turn = DQuat::from_rotation_arc(p.matrix3.y_axis.normalize(), DVec3::NEG_Y);
            p.matrix3 = DMat3::from_quat(turn) * p.matrix3;
        } else if limbs.legs.iter().any(|leg| leg.foot == Some(i)) {
            p.matrix3 = rest[i].matrix3;
        }
        p
    })
}

/// What the VRM T-pose does to one bone.
#[derive(Debug, Clone, Copy)]
enum Turn {
    /// Lay `aim` (a rest direction, skeleton space) along `along` by the shortest rotation.
    Along { aim: DVec3, along: DVec3 },
    /// Turn about the vertical until the horizontal part of `aim` (a rest direction) points
    /// to +Z, its slope kept. `flat` starts from the bone's rest orientation in skeleton space
    /// (a foot: as flat as it stood) rather than the one its parent carries it to.
    Forward { aim: DVec3, flat: bool },
    /// Turn `aim` (a rest direction) level by the shortest rotation, its heading kept (along
    /// `along` when it points straight up or down).
    Level { aim: DVec3, along: DVec3 },
}

/// Each bone's [`Turn`] in the VRM T-pose. A bone's direction is from its head to the head
/// of the next bone of its limb (so twist bones between human bones line up, and a hand
/// points to its middle knuckle), the last bone's its +Y.
fn vrm_turns(character: &Character, limbs: &TPoseLimbs) -> Vec<Option<Turn>> {
    let bones = &character.skeleton.bones;
    let aim = |bone: usize, next: Option<usize>| {
        next.map(|n| bones[n].head - bones[bone].head)
            .filter(|d| d.length() > 1e-9)
            .unwrap_or(bones[bone].basis.y_axis)
    };
    let mut turns = vec![None; bones.len()];
    let mut along = |chain: &[usize], last_next: Option<usize>, direction: DVec3| {
        for (k, &bone) in chain.iter().enumerate() {
            let next = chain.get(k + 1).copied().or(last_next);
            turns[bone] = Some(Turn::Along {
                aim: aim(bone, next),
                along: direction,
            });
        }
    };
    for arm in &limbs.arms {
        along(&arm.bones, arm.knuckle, arm.direction);
        for finger in &arm.fingers {
            along(finger, None, arm.direction);
        }
        along(&arm.thumb, None, (arm.direction + DVec3::Z).normalize());
    }
    for leg in &limbs.legs {
        along(&leg.bones, leg.foot, DVec3::NEG_Y);
    }
    for arm in &limbs.arms {
        for chain in &arm.unnamed {
            for (k, &bone) in chain.iter().enumerate() {
                turns[bone] = Some(Turn::Level {
                    aim: aim(bone, chain.get(k + 1).copied()),
                    along: arm.direction,
                });
            }
        }
    }
    for leg in &limbs.legs {
        for (bone, next, flat) in [(leg.foot, leg.toes, true), (leg.toes, None, false)] {
            if let Some(bone) = bone {
                turns[bone] = Some(Turn::Forward {
                    aim: aim(bone, next),
                    flat,
                });
            }
        }
    }
    turns
}

/// The VRM T-pose (VRM 1.0 `tpose.md`): [`computed_t_pose`]'s straight limbs, and the hands
/// and feet VRM asks for. Parents first, every bone keeps its rest relative to its parent
/// except:
/// - each arm bone from the upper arm to the hand is laid along the side axis (+X on the
///   character's left) by the shortest rotation, its direction taken from its head to the
///   next arm bone's head; the hand's to its middle knuckle (the middle finger's `Proximal`
///   head, carried with the palm), so the back of the hand, not the short wrist bone, runs
///   along the arm; the hand then turns about the axis until its palm faces down (-Y);
/// - each finger bone (index to pinky, `Proximal` to `Distal`) is laid along the side axis
///   the same way, relative to the palm-down hand, so the nails face up (+Y) as far as the
///   rest fingers' nails face the back of the hand; metacarpals ride with the hand;
/// - each thumb bone (`Metacarpal` to `Distal`) is laid along the horizontal half-way between
///   the side axis and +Z (45 degrees), by the shortest rotation from where the hand carries
///   it, so the thumb keeps the roll it has on the rest hand: its nail turned about 90
///   degrees outward from the fingers';
/// - each leg bone points straight down (-Y);
/// - each foot keeps its rest orientation (flat, its slope from ankle to ball kept) turned
///   about the vertical until its direction (to the `Toes` head, else its +Y) has its
///   horizontal projection along +Z; the toes are turned about the vertical the same way,
///   and toe chains without a `Toes` name follow the foot.
///
/// What a rig lacks stays as it rests on the hand; what it has is straightened. A hand
/// without finger names has no knuckle to aim at: its +Y is laid along the side axis, and
/// each bone of the chains below it that no name covers (cmu_mb's `FingerBase` and
/// `HandFinger1`, the palm and all four fingers) is turned level, its heading kept: the
/// palm bone runs to the index knuckle, so laying it along the axis would turn the whole
/// hand back by the fan's half-width. Standing on the ground again afterwards is the
/// caller's (straight legs reach lower than the rest's spread ones).
pub fn vrm_t_pose(character: &Character, limbs: &TPoseLimbs) -> Vec<DAffine3> {
    let rest = rest_matrices(character);
    let turns = vrm_turns(character, limbs);
    pose_bones(character, |i, mut p| {
        match turns[i] {
            Some(Turn::Along { aim, along }) => {
                let now = p.matrix3 * rest[i].matrix3.inverse() * aim;
                let turn = DQuat::from_rotation_arc(now.normalize(), along);
                p.matrix3 = DMat3::from_quat(turn) * p.matrix3;
            }
            Some(Turn::Forward { aim, flat }) => {
                if flat {
                    p.matrix3 = rest[i].matrix3;
                }
                let now = p.matrix3 * rest[i].matrix3.inverse() * aim;
                if now.x.hypot(now.z) > 1e-9 {
                    // A rotation about +Y by a maps +Z to (sin a, 0, cos a): undo it.
                    let yaw = DQuat::from_rotation_y(-now.x.atan2(now.z));
                    p.matrix3 = DMat3::from_quat(yaw) * p.matrix3;
                }
            }
            Some(Turn::Level { aim, along }) => {
                let now = (p.matrix3 * rest[i].matrix3.inverse() * aim).normalize();
                let level = DVec3::new(now.x, 0.0, now.z);
                let level = level.try_normalize().unwrap_or(along);
                p.matrix3 = DMat3::from_quat(DQuat::from_rotation_arc(now, level)) * p.matrix3;
            }
            None => {}
        }
        for arm in limbs.arms.iter().filter(|a| a.bones.last() == Some(&i)) {
            if let Some((index, pinky)) = arm.knuckles {
                let across = rest[pinky].translation - rest[index].translation;
                palm_down(&mut p, &rest[i], across, arm.direction);
            }
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

/// The posed bone frames of `pose` (read in stage 1), for the rig at `rig_path`, and a word on
/// where they came from; a computed T-pose's limbs not found (left bent) are said.
pub fn posed_frames(
    character: &Character,
    pose: &crate::inputs::LoadedPose,
    rig_path: &std::path::Path,
    names: Option<&Names>,
    said: &mut Diagnostics,
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
            computed_frames(character, rig, names, false, said)
        }
        crate::inputs::LoadedPose::ComputedVrmTPose => {
            computed_frames(character, rig, names, true, said)
        }
    }
}

/// A computed T-pose's frames (the VRM one with `vrm`) for the limbs `names` finds, a word on
/// where they came from; a warning names each limb not found (left as it rests).
fn computed_frames(
    character: &Character,
    rig: &str,
    names: Option<&Names>,
    vrm: bool,
    said: &mut Diagnostics,
) -> Result<(Vec<DAffine3>, String), ConvertError> {
    let names = names.ok_or_else(|| {
        ConvertError::RestPose(format!("rig `{rig}`: no humanoid names to find its limbs"))
    })?;
    let limbs = TPoseLimbs::find(character, names).map_err(|why| {
        ConvertError::RestPose(format!(
            "rig `{rig}`: a T-pose cannot be computed: {why} ({}); pass --rest-pose FILE or --humanoid-map FILE",
            names.source
        ))
    })?;
    for limb in &limbs.left_bent {
        said.say(
            Code::RestPoseLimbBent,
            format!(
                "rest pose: rig `{rig}`: {limb} not found by {}: left as it rests, not straightened",
                names.source
            ),
        );
    }
    let (frames, note) = if vrm {
        (
            vrm_t_pose(character, &limbs),
            format!(
                "a computed VRM T-pose (straight limbs and fingers, palms down, thumbs at 45 degrees, feet forward; limbs by {})",
                names.source
            ),
        )
    } else {
        (
            computed_t_pose(character, &limbs),
            format!(
                "a computed T-pose (straight limbs, palms down; limbs by {})",
                names.source
            ),
        )
    };
    Ok((frames, note))
}
