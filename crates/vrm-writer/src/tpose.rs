//! The VRM T-pose (`tpose.md`) measured on a skeleton at rest: how far each arm, hand, finger,
//! thumb, leg and foot direction and each palm normal is from where VRM puts it.
//!
//! A human bone's direction runs from its head to the head of the next human bone below it
//! (the next one present in VRM's fixed chain: upper arm, lower arm, hand; a finger's
//! proximal, intermediate, distal; upper leg, lower leg, foot, toes), else along its +Y axis
//! (the last bone of a chain, or one whose next head is at its own). A hand's next bone is
//! its middle finger's first bone, else the index's, ring's or little finger's: the hand's
//! direction is the back of the hand, wrist to knuckle, whatever the rig's wrist bone does.
//! What VRM asks of each (the character's left is +X, its front +Z):
//! - upper arm, lower arm, hand, and every segment of the four fingers: along the side axis
//!   (+X on the left, -X on the right);
//! - every thumb segment: horizontal, half-way between the side axis and +Z (45 degrees);
//! - the palm: its normal, from the hand's direction and the knuckle line (index to little
//!   finger's first bones), facing down (-Y);
//! - upper and lower leg: straight down (-Y);
//! - foot and toes: their direction's horizontal projection along +Z (a foot slopes down from
//!   ankle to ball, so only its projection can be parallel to Z; one pointing straight down
//!   is 90 degrees off), and for the foot also its sideways lean: the angle between its
//!   direction and the upright plane along Z, which stays meaningful when a steep foot's
//!   projection is too short to say much. A sole rolled about the foot's own length cannot
//!   be read from bone directions and is not measured.

use character_spec::BoneSpec;
use glam::DVec3;
use std::collections::BTreeMap;

/// How far one item of a skeleton is from VRM's T-pose.
#[derive(Debug, Clone, PartialEq)]
pub struct TPoseDeviation {
    /// What was measured: a VRM bone name for its direction (`leftUpperArm`), or a bone name
    /// and what of it (`leftHand palm`, `leftFoot sideways`).
    pub item: String,
    /// Degrees from VRM's T-pose, 0 to 180 (NaN when a bone is not made of numbers).
    pub degrees: f64,
}

/// A skeleton's deviations from VRM's T-pose: one per item its human bones allow, in the
/// order left arm and hand, thumb, fingers, leg and foot, then the same on the right.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct TPoseMeasurement {
    /// The items measured.
    pub items: Vec<TPoseDeviation>,
}

impl TPoseMeasurement {
    /// The item farthest from the T-pose (a NaN counts as farthest); `None` when nothing was
    /// measured.
    pub fn worst(&self) -> Option<&TPoseDeviation> {
        self.items
            .iter()
            .max_by(|a, b| key(a.degrees).total_cmp(&key(b.degrees)))
    }

    /// The items more than `degrees` from the T-pose (and any NaN), in measuring order.
    pub fn beyond(&self, degrees: f64) -> Vec<&TPoseDeviation> {
        self.items
            .iter()
            .filter(|d| d.degrees.is_nan() || d.degrees > degrees)
            .collect()
    }
}

/// A deviation as a sort key: NaN above everything.
fn key(degrees: f64) -> f64 {
    if degrees.is_nan() {
        f64::INFINITY
    } else {
        degrees
    }
}

/// The four fingers by VRM's names.
const FINGERS: [&str; 4] = ["Index", "Middle", "Ring", "Little"];

/// Measures `bones` (skeleton space) against VRM's T-pose, their human bones by `humanoid`
/// (VRM name -> bone index, see [`crate::humanoid`]). Items whose bones the map lacks are
/// not measured; an index outside `bones` counts as absent (check the map with
/// [`crate::humanoid::check`] first).
pub fn measure(bones: &[BoneSpec], humanoid: &BTreeMap<String, usize>) -> TPoseMeasurement {
    let mut items = Vec::new();
    for (side, along) in [("left", DVec3::X), ("right", DVec3::NEG_X)] {
        let skeleton = Sided {
            bones,
            humanoid,
            side,
        };
        skeleton.arm(along, &mut items);
        skeleton.leg(&mut items);
    }
    TPoseMeasurement { items }
}

/// One side's human bones.
struct Sided<'a> {
    bones: &'a [BoneSpec],
    humanoid: &'a BTreeMap<String, usize>,
    side: &'static str,
}

impl Sided<'_> {
    /// This side's bone `part` (`UpperArm` is `leftUpperArm` on the left), when present.
    fn bone(&self, part: &str) -> Option<&BoneSpec> {
        let index = *self.humanoid.get(&format!("{}{part}", self.side))?;
        self.bones.get(index)
    }

    /// A finger's first bone present (`Proximal`, `Intermediate`, `Distal`).
    fn first_of_finger(&self, finger: &str) -> Option<&BoneSpec> {
        ["Proximal", "Intermediate", "Distal"]
            .iter()
            .find_map(|s| self.bone(&format!("{finger}{s}")))
    }

    /// The direction of each of `parts` present, by its name: to the next present part's
    /// head, the last to `after`'s head; else its +Y.
    fn directions(&self, parts: &[&str], after: Option<&BoneSpec>) -> Vec<(String, DVec3)> {
        let present: Vec<(&str, &BoneSpec)> = parts
            .iter()
            .filter_map(|p| self.bone(p).map(|b| (*p, b)))
            .collect();
        present
            .iter()
            .enumerate()
            .map(|(k, (part, bone))| {
                let next = present.get(k + 1).map(|(_, b)| *b).or(after);
                (format!("{}{part}", self.side), direction(bone, next))
            })
            .collect()
    }

    /// The arm, hand, palm, thumb and fingers, pointing along `along`.
    fn arm(&self, along: DVec3, items: &mut Vec<TPoseDeviation>) {
        let knuckle = ["Middle", "Index", "Ring", "Little"]
            .iter()
            .find_map(|f| self.first_of_finger(f));
        let arm = self.directions(&["UpperArm", "LowerArm", "Hand"], knuckle);
        for (item, direction) in &arm {
            items.push(deviation(item, direction.angle_between(along)));
        }
        let hand = arm.iter().find(|(item, _)| item.ends_with("Hand"));
        let knuckles = self
            .first_of_finger("Index")
            .zip(self.first_of_finger("Little"));
        if let (Some((item, hand)), Some((index, little))) = (hand, knuckles) {
            let across = little.head - index.head;
            let across = across - *hand * across.dot(*hand) / hand.length_squared();
            // The palm's normal: the hand's direction across the knuckle line, negated on
            // the left (whose index knuckle is forward of the little's when palm down).
            let sign = if along.x > 0.0 { -1.0 } else { 1.0 };
            let normal = hand.cross(across) * sign;
            if normal.length() > 1e-12 {
                let palm = format!("{item} palm");
                items.push(deviation(&palm, normal.angle_between(DVec3::NEG_Y)));
            }
        }
        let thumb = (along + DVec3::Z).normalize();
        let parts = ["Metacarpal", "Proximal", "Distal"].map(|s| format!("Thumb{s}"));
        let parts: Vec<&str> = parts.iter().map(String::as_str).collect();
        for (item, direction) in self.directions(&parts, None) {
            items.push(deviation(&item, direction.angle_between(thumb)));
        }
        for finger in FINGERS {
            let parts = ["Proximal", "Intermediate", "Distal"].map(|s| format!("{finger}{s}"));
            let parts: Vec<&str> = parts.iter().map(String::as_str).collect();
            for (item, direction) in self.directions(&parts, None) {
                items.push(deviation(&item, direction.angle_between(along)));
            }
        }
    }

    /// The legs straight down; foot and toes forward.
    fn leg(&self, items: &mut Vec<TPoseDeviation>) {
        for (item, direction) in self.directions(&["UpperLeg", "LowerLeg", "Foot", "Toes"], None) {
            if item.ends_with("Leg") {
                items.push(deviation(&item, direction.angle_between(DVec3::NEG_Y)));
                continue;
            }
            let forward = if direction.x.hypot(direction.z) > 1e-12 {
                direction.x.abs().atan2(direction.z)
            } else {
                std::f64::consts::FRAC_PI_2
            };
            items.push(deviation(&item, forward));
            if item.ends_with("Foot") {
                let sideways = (direction.x.abs() / direction.length()).asin();
                items.push(deviation(&format!("{item} sideways"), sideways));
            }
        }
    }
}

/// `bone`'s direction: to `next`'s head, else (no next, or its head at `bone`'s) its +Y. A
/// head that is not a number stays one, so the item says so.
fn direction(bone: &BoneSpec, next: Option<&BoneSpec>) -> DVec3 {
    next.map(|n| n.head - bone.head)
        .filter(|d| d.length().is_nan() || d.length() > 1e-9)
        .unwrap_or(bone.basis.y_axis)
}

/// An item at `radians` from the T-pose.
fn deviation(item: &str, radians: f64) -> TPoseDeviation {
    TPoseDeviation {
        item: item.to_owned(),
        degrees: radians.to_degrees(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::{DMat3, DQuat};

    /// A skeleton under construction: bones by VRM name, each with a head and a direction.
    #[derive(Default)]
    struct Builder {
        bones: Vec<BoneSpec>,
        humanoid: BTreeMap<String, usize>,
    }

    impl Builder {
        /// Adds `name` under `parent` at `head`, its +Y along `direction`, `length` long.
        fn bone(&mut self, name: &str, parent: Option<&str>, head: DVec3, direction: DVec3) {
            let y = direction.normalize();
            let x = y.any_orthonormal_vector();
            self.humanoid.insert(name.to_owned(), self.bones.len());
            self.bones.push(BoneSpec {
                name: name.to_owned(),
                parent: parent.map(|p| self.humanoid[p]),
                head,
                basis: DMat3::from_cols(x, y, x.cross(y)),
                length: direction.length(),
                extras: None,
            });
        }

        /// A chain of `parts` (`side` + part) from `head`, each `step` long along `direction`,
        /// the first under `parent`; returns where the last one ends.
        fn chain(
            &mut self,
            side: &str,
            parts: &[&str],
            parent: &str,
            head: DVec3,
            step: DVec3,
        ) -> DVec3 {
            let mut at = head;
            let mut up = parent.to_owned();
            for part in parts {
                let name = format!("{side}{part}");
                self.bone(&name, Some(&up), at, step);
                at += step;
                up = name;
            }
            at
        }

        fn head_of(&self, name: &str) -> DVec3 {
            self.bones[self.humanoid[name]].head
        }
    }

    /// A skeleton in VRM's T-pose: arms, fingers and thumbs as VRM puts them, legs straight,
    /// feet sloping down forward with toes ahead.
    fn t_pose() -> Builder {
        let mut b = Builder::default();
        b.bone("hips", None, DVec3::new(0.0, 1.0, 0.0), DVec3::Y * 0.1);
        b.bone(
            "spine",
            Some("hips"),
            DVec3::new(0.0, 1.1, 0.0),
            DVec3::Y * 0.3,
        );
        b.bone(
            "head",
            Some("spine"),
            DVec3::new(0.0, 1.5, 0.0),
            DVec3::Y * 0.2,
        );
        for (side, x) in [("left", 1.0), ("right", -1.0)] {
            let along = DVec3::X * x;
            let hand = b.chain(
                side,
                &["UpperArm", "LowerArm"],
                "spine",
                DVec3::new(0.2 * x, 1.4, 0.0),
                along * 0.25,
            );
            b.bone(
                &format!("{side}Hand"),
                Some(&format!("{side}LowerArm")),
                hand,
                along * 0.08,
            );
            let thumb = (along + DVec3::Z).normalize() * 0.03;
            b.chain(
                side,
                &["ThumbMetacarpal", "ThumbProximal", "ThumbDistal"],
                &format!("{side}Hand"),
                hand + DVec3::new(0.01 * x, 0.0, 0.02),
                thumb,
            );
            for (k, finger) in FINGERS.iter().enumerate() {
                let parts = ["Proximal", "Intermediate", "Distal"].map(|s| format!("{finger}{s}"));
                let parts: Vec<&str> = parts.iter().map(String::as_str).collect();
                // The middle knuckle straight ahead of the wrist, the index forward of it.
                let knuckle = hand + DVec3::new(0.08 * x, 0.0, 0.01 - 0.01 * k as f64);
                b.chain(side, &parts, &format!("{side}Hand"), knuckle, along * 0.025);
            }
            let foot = b.chain(
                side,
                &["UpperLeg", "LowerLeg"],
                "hips",
                DVec3::new(0.1 * x, 0.95, 0.0),
                DVec3::NEG_Y * 0.43,
            );
            let toes = b.chain(
                side,
                &["Foot"],
                &format!("{side}LowerLeg"),
                foot,
                DVec3::new(0.0, -0.07, 0.14),
            );
            b.chain(
                side,
                &["Toes"],
                &format!("{side}Foot"),
                toes,
                DVec3::Z * 0.05,
            );
        }
        b
    }

    fn measured(b: &Builder) -> TPoseMeasurement {
        let m = measure(&b.bones, &b.humanoid);
        crate::humanoid::check(&b.bones, &b.humanoid).expect("a valid humanoid");
        m
    }

    fn degrees(m: &TPoseMeasurement, item: &str) -> f64 {
        m.items
            .iter()
            .find(|d| d.item == item)
            .unwrap_or_else(|| panic!("{item} not measured: {m:?}"))
            .degrees
    }

    /// Moves bone `name` and everything after it in `b` (its chain's lower bones) by turning
    /// about `name`'s head: a bent joint.
    fn bend(b: &mut Builder, names: &[&str], turn: DQuat) {
        let pivot = b.head_of(names[0]);
        for name in names {
            let bone = &mut b.bones[b.humanoid[*name]];
            bone.head = pivot + turn * (bone.head - pivot);
            bone.basis = DMat3::from_quat(turn) * bone.basis;
        }
    }

    #[test]
    fn a_t_pose_measures_zero_everywhere() {
        let m = measured(&t_pose());
        // Per side: 3 arm, palm, 3 thumb, 12 finger, 2 leg, foot, sideways, toes.
        assert_eq!(m.items.len(), 2 * 24, "{m:#?}");
        let worst = m.worst().unwrap();
        assert!(worst.degrees < 1e-6, "{worst:?}");
        assert!(m.beyond(0.001).is_empty());
        for item in [
            "leftHand palm",
            "rightHand palm",
            "rightThumbProximal",
            "leftToes",
        ] {
            assert!(degrees(&m, item) < 1e-6, "{item}");
        }
    }

    #[test]
    fn a_bent_finger_is_reported_at_its_joint() {
        let mut b = t_pose();
        // The left index's last two segments curled 30 degrees down about the hand's width.
        bend(
            &mut b,
            &["leftIndexIntermediate", "leftIndexDistal"],
            DQuat::from_rotation_z(-30f64.to_radians()),
        );
        let m = measured(&b);
        assert!(degrees(&m, "leftIndexProximal") < 1e-6);
        assert!((degrees(&m, "leftIndexIntermediate") - 30.0).abs() < 1e-6);
        assert!((degrees(&m, "leftIndexDistal") - 30.0).abs() < 1e-6);
        let beyond: Vec<&str> = m.beyond(2.0).iter().map(|d| d.item.as_str()).collect();
        assert_eq!(beyond, ["leftIndexIntermediate", "leftIndexDistal"]);
    }

    #[test]
    fn v_shaped_feet_and_a_thumb_along_the_fingers_are_reported() {
        let mut b = t_pose();
        // Toes out by 15 degrees each: the left foot turned toward +X, the right toward -X.
        bend(
            &mut b,
            &["leftFoot", "leftToes"],
            DQuat::from_rotation_y(15f64.to_radians()),
        );
        bend(
            &mut b,
            &["rightFoot", "rightToes"],
            DQuat::from_rotation_y(-15f64.to_radians()),
        );
        let m = measured(&b);
        for side in ["left", "right"] {
            let foot = degrees(&m, &format!("{side}Foot"));
            assert!((foot - 15.0).abs() < 1e-6, "{side}: {foot}");
            assert!(degrees(&m, &format!("{side}Toes")) > 14.0);
            // The foot slopes down at about 27 degrees: it leans sideways less than it turns.
            let sideways = degrees(&m, &format!("{side}Foot sideways"));
            assert!(sideways > 2.0 && sideways < foot, "{side}: {sideways}");
        }
        // A thumb laid along the fingers is 45 degrees off; a foot pointing straight down
        // has no forward direction at all.
        let mut b = t_pose();
        let thumb = [
            "leftThumbMetacarpal",
            "leftThumbProximal",
            "leftThumbDistal",
        ];
        bend(&mut b, &thumb, DQuat::from_rotation_y(45f64.to_radians()));
        let foot = b.humanoid["rightFoot"];
        b.bones[foot].basis = DMat3::from_rotation_x(std::f64::consts::PI);
        b.humanoid.remove("rightToes");
        let m = measured(&b);
        assert!((degrees(&m, "leftThumbProximal") - 45.0).abs() < 1e-6);
        assert!((degrees(&m, "rightFoot") - 90.0).abs() < 1e-6);
        assert_eq!(m.worst().unwrap().item, "rightFoot");
    }

    #[test]
    fn a_palm_facing_up_or_forward_is_reported() {
        let mut b = t_pose();
        let mut fingers = vec!["leftHand".to_owned()];
        for finger in FINGERS {
            for s in ["Proximal", "Intermediate", "Distal"] {
                fingers.push(format!("left{finger}{s}"));
            }
        }
        let names: Vec<&str> = fingers.iter().map(String::as_str).collect();
        bend(&mut b, &names, DQuat::from_rotation_x(std::f64::consts::PI));
        let m = measured(&b);
        assert!((degrees(&m, "leftHand palm") - 180.0).abs() < 1e-6);
        // The hand and fingers still point along +X: only the palm says it is upside down.
        assert!(degrees(&m, "leftHand") < 1e-6 && degrees(&m, "leftMiddleDistal") < 1e-6);
        let mut b = t_pose();
        bend(
            &mut b,
            &names,
            DQuat::from_rotation_x(-std::f64::consts::FRAC_PI_2),
        );
        assert!((degrees(&measured(&b), "leftHand palm") - 90.0).abs() < 1e-6);
    }

    #[test]
    fn the_hand_points_to_its_middle_knuckle_not_along_its_own_axis() {
        let mut b = t_pose();
        // A wrist bone pointing down (as MPFB's does): the hand's direction is still wrist to
        // knuckle.
        let hand = b.humanoid["leftHand"];
        b.bones[hand].basis = DMat3::from_rotation_z(-1.0) * b.bones[hand].basis;
        let m = measured(&b);
        assert!(degrees(&m, "leftHand") < 1e-6);
        // Without fingers, the hand's +Y is all there is.
        for finger in FINGERS {
            for s in ["Proximal", "Intermediate", "Distal"] {
                b.humanoid.remove(&format!("left{finger}{s}"));
            }
        }
        let m = measure(&b.bones, &b.humanoid);
        assert!(m.items.iter().all(|d| !d.item.starts_with("leftIndex")));
        assert!(m.items.iter().all(|d| d.item != "leftHand palm"));
        let off = degrees(&m, "leftHand");
        assert!((off - 1f64.to_degrees()).abs() < 1e-6, "{off}");
    }

    #[test]
    fn bad_bones_do_not_panic_and_count_as_worst() {
        let mut b = t_pose();
        let arm = b.humanoid["rightLowerArm"];
        b.bones[arm].head = DVec3::NAN;
        b.humanoid.insert("leftToes".into(), 10_000);
        let m = measure(&b.bones, &b.humanoid);
        assert!(m.worst().unwrap().degrees.is_nan(), "{:?}", m.worst());
        assert!(m.items.iter().all(|d| d.item != "leftToes"));
        assert!(!m.beyond(2.0).is_empty());
        assert_eq!(measure(&[], &BTreeMap::new()).worst(), None);
    }
}
