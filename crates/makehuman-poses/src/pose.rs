//! A BVH frame as MakeHuman poses a skeleton with it (spec-notes/makehuman-motion.md §1.5,
//! §1.6): each joint's rotation (a Z-up file converted) is a turn about the bone's rest head
//! in world axes, carried by its parent's; the root moves by its position channels scaled by
//! the body's leg length over the file's. A joint's world turn from rest is therefore its
//! parents' turns then its own, whatever the bones' rolls: what any skeleton needs to take
//! the pose bone by bone.

use crate::bvh::Bvh;
use crate::motion::{canonical_name, frame_rotations, is_z_up, point_from_z_up, rest_positions};
use glam::{DQuat, DVec3};
use std::collections::HashMap;

/// The joint whose length MakeHuman scales a pose's root translation by
/// (`plugins/3_libraries_pose.py`, `COMPARE_BONE`).
pub const COMPARE_BONE: &str = "upperleg02.L";

/// How a frame's root translation was decided.
#[derive(Debug, Clone, PartialEq)]
pub enum RootTranslation {
    /// The root joint's position channels, scaled by `scale` (MakeHuman's rule).
    Scaled {
        /// Body leg length over the file's.
        scale: f64,
    },
    /// Not applied, and why (the file has no joint `root`, or no [`COMPARE_BONE`] to scale
    /// by, or the body's leg length is unknown).
    Dropped(String),
}

/// One frame of a BVH file as MakeHuman applies it.
#[derive(Debug, Clone, PartialEq)]
pub struct FramePose {
    /// The file's joints, by canonical name ([`canonical_name`]), in file order.
    pub joints: Vec<String>,
    /// Each joint's parent.
    pub parents: Vec<Option<usize>>,
    /// Each joint's own turn (world axes, MakeHuman's frame), applied after its parent's.
    pub turns: Vec<DQuat>,
    /// Each joint's world turn from rest: its parents' turns, then its own.
    pub world: Vec<DQuat>,
    /// The root's move, MakeHuman's frame, in the file's units times the scale (decimetres
    /// for MakeHuman's poses).
    pub root_translation: DVec3,
    /// How [`FramePose::root_translation`] was decided.
    pub root_rule: RootTranslation,
    /// Whether the file was read as Z-up; `None` when MakeHuman's rule could not tell (none
    /// of its reference joints is in the file) and Z-up was assumed.
    pub z_up: Option<bool>,
    index: HashMap<String, usize>,
}

impl FramePose {
    /// The joint whose canonical name is `name`'s.
    pub fn joint(&self, name: &str) -> Option<usize> {
        self.index.get(&canonical_name(name)).copied()
    }
}

/// The length of `joint`'s first child's offset: MakeHuman's length of the file's bone.
fn file_bone_length(bvh: &Bvh, joint: usize) -> Option<f64> {
    let child = bvh.joints.iter().position(|j| j.parent == Some(joint))?;
    Some(bvh.joints[child].offset.length())
}

/// The root's move in a frame whose values are `values`, and how it was decided: its
/// position channels (converted when `z_up`) times the body's leg over the file's, when the
/// root is MakeHuman's `root` and both legs are known.
fn root_move(
    bvh: &Bvh,
    joints: &[String],
    index: &HashMap<String, usize>,
    values: &[f64],
    z_up: bool,
    leg_length: Option<f64>,
) -> (DVec3, RootTranslation) {
    let root = bvh.joints.iter().position(|j| j.parent.is_none());
    let compare = index.get(&canonical_name(COMPARE_BONE)).copied();
    let dropped = |why: String| (DVec3::ZERO, RootTranslation::Dropped(why));
    match (root, compare, leg_length) {
        (Some(root), _, _) if joints[root] != "root" => dropped(format!(
            "its root joint is `{}`, not `root` (MakeHuman moves only a joint `root`)",
            location::text::excerpt(&bvh.joints[root].name, 40)
        )),
        (Some(root), Some(compare), Some(leg)) => {
            match file_bone_length(bvh, compare).filter(|l| *l > 0.0 && l.is_finite()) {
                Some(file_leg) => {
                    let scale = leg / file_leg;
                    let raw = bvh.joints[root].translation(values);
                    let moved = if z_up { point_from_z_up(raw) } else { raw };
                    (moved * scale, RootTranslation::Scaled { scale })
                }
                None => dropped(format!("its `{COMPARE_BONE}` has no length")),
            }
        }
        (_, None, _) => dropped(format!(
            "it has no `{COMPARE_BONE}` to scale the root's move by"
        )),
        _ => dropped("the body's leg length is not known".into()),
    }
}

/// Frame `frame` of `bvh` as MakeHuman applies it; `leg_length` is the body's
/// [`COMPARE_BONE`] length in the file's units (`None`: unknown, the root stays). `None`
/// past the last frame.
pub fn frame_pose(bvh: &Bvh, frame: usize, leg_length: Option<f64>) -> Option<FramePose> {
    let detected = is_z_up(bvh);
    let z_up = detected.unwrap_or(true);
    let turns = frame_rotations(bvh, frame, z_up)?;
    let values = bvh.frame(frame)?;
    let parents: Vec<Option<usize>> = bvh.joints.iter().map(|j| j.parent).collect();
    let mut world: Vec<DQuat> = Vec::with_capacity(turns.len());
    for (j, turn) in turns.iter().enumerate() {
        let before = parents[j]
            .and_then(|p| world.get(p))
            .copied()
            .unwrap_or(DQuat::IDENTITY);
        world.push((before * *turn).normalize());
    }
    let joints: Vec<String> = bvh.joints.iter().map(|j| canonical_name(&j.name)).collect();
    let mut index = HashMap::with_capacity(joints.len());
    for (i, name) in joints.iter().enumerate() {
        index.entry(name.clone()).or_insert(i);
    }
    let (root_translation, root_rule) = root_move(bvh, &joints, &index, values, z_up, leg_length);
    Some(FramePose {
        joints,
        parents,
        turns,
        world,
        root_translation,
        root_rule,
        z_up: detected,
        index,
    })
}

/// Each joint's rest position in MakeHuman's frame (the file's offsets summed, converted as
/// the frame was read).
pub fn rest_heads(bvh: &Bvh, z_up: bool) -> Vec<DVec3> {
    rest_positions(bvh)
        .into_iter()
        .map(|p| if z_up { point_from_z_up(p) } else { p })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse_bvh;

    /// A Z-up leg: root at the origin, upperleg02.L 1 below it (along -Z), lowerleg01.L 4
    /// below that; one frame: the root moved (1, 2, 3) and turned 90 degrees about the file's
    /// Z (MakeHuman's Y), the upper leg turned 90 degrees about the file's X.
    const LEG: &str = "HIERARCHY
ROOT root
{
  OFFSET 0 0 0
  CHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation Yrotation
  JOINT upperleg02.L
  {
    OFFSET 0 0 -1
    CHANNELS 3 Zrotation Xrotation Yrotation
    JOINT lowerleg01.L
    {
      OFFSET 0 0 -4
      CHANNELS 3 Zrotation Xrotation Yrotation
      End Site
      {
        OFFSET 0 0 -4
      }
    }
  }
}
MOTION
Frames: 1
Frame Time: 0.04
1 2 3 90 0 0 0 90 0 0 0 0
";

    fn close(a: DVec3, b: DVec3) -> bool {
        (a - b).length() < 1e-12
    }

    #[test]
    fn world_turns_accumulate_down_the_chain_in_makehumans_frame() {
        let bvh = parse_bvh(LEG).unwrap();
        let pose = frame_pose(&bvh, 0, Some(8.0)).unwrap();
        assert_eq!(pose.z_up, Some(true));
        // The file's Z is MakeHuman's Y: the root turns 90 degrees about Y, X goes to -Z.
        assert!(close(pose.world[0] * DVec3::X, DVec3::NEG_Z));
        // The upper leg's own turn: 90 about X (X stays X), so Y goes to Z...
        assert!(close(pose.turns[1] * DVec3::Y, DVec3::Z));
        // ... and its world turn is the root's after it: Y -> Z -> X (Y about 90: Z goes to X).
        assert!(close(pose.world[1] * DVec3::Y, DVec3::X));
        // The lower leg has no turn of its own: its parent's.
        assert!(close(pose.world[2] * DVec3::Y, DVec3::X));
    }

    #[test]
    fn the_root_moves_by_its_channels_converted_and_scaled_by_leg_length() {
        let bvh = parse_bvh(LEG).unwrap();
        // The file's upper leg is 4 long (its first child's offset); the body's is 8: scale 2.
        let pose = frame_pose(&bvh, 0, Some(8.0)).unwrap();
        assert_eq!(pose.root_rule, RootTranslation::Scaled { scale: 2.0 });
        // (1, 2, 3) Z-up is (1, 3, -2) in MakeHuman's frame, times 2.
        assert!(close(pose.root_translation, DVec3::new(2.0, 6.0, -4.0)));
        let unknown = frame_pose(&bvh, 0, None).unwrap();
        assert_eq!(unknown.root_translation, DVec3::ZERO);
        assert!(matches!(unknown.root_rule, RootTranslation::Dropped(_)));
        assert!(frame_pose(&bvh, 1, None).is_none());
    }

    #[test]
    fn joints_are_found_by_canonical_name() {
        let bvh = parse_bvh(LEG).unwrap();
        let pose = frame_pose(&bvh, 0, None).unwrap();
        assert_eq!(pose.joint("UpperLeg02.L"), Some(1));
        assert_eq!(pose.joint("upperleg02.L_2"), Some(1));
        assert_eq!(pose.joint("spine01"), None);
        let heads = rest_heads(&bvh, true);
        assert!(close(heads[2], DVec3::new(0.0, -5.0, 0.0)));
    }
}
