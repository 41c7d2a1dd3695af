//! VRM 1.0's humanoid bones (`humanoid.md`): the 55 names with their fixed parents and which
//! are required, G4MF's humanoid profile names mapped onto them, and a skeleton's humanoid
//! map checked against the fixed hierarchy before anything is written.

use character_spec::BoneSpec;
use std::collections::BTreeMap;

/// Every VRM human bone with its fixed parent (`None`: hips, the root) and whether it is
/// required, parents first.
pub const VRM_BONES: [(&str, Option<&str>, bool); 55] = [
    ("hips", None, true),
    ("spine", Some("hips"), true),
    ("chest", Some("spine"), false),
    ("upperChest", Some("chest"), false),
    ("neck", Some("upperChest"), false),
    ("head", Some("neck"), true),
    ("leftEye", Some("head"), false),
    ("rightEye", Some("head"), false),
    ("jaw", Some("head"), false),
    ("leftUpperLeg", Some("hips"), true),
    ("leftLowerLeg", Some("leftUpperLeg"), true),
    ("leftFoot", Some("leftLowerLeg"), true),
    ("leftToes", Some("leftFoot"), false),
    ("rightUpperLeg", Some("hips"), true),
    ("rightLowerLeg", Some("rightUpperLeg"), true),
    ("rightFoot", Some("rightLowerLeg"), true),
    ("rightToes", Some("rightFoot"), false),
    ("leftShoulder", Some("upperChest"), false),
    ("leftUpperArm", Some("leftShoulder"), true),
    ("leftLowerArm", Some("leftUpperArm"), true),
    ("leftHand", Some("leftLowerArm"), true),
    ("rightShoulder", Some("upperChest"), false),
    ("rightUpperArm", Some("rightShoulder"), true),
    ("rightLowerArm", Some("rightUpperArm"), true),
    ("rightHand", Some("rightLowerArm"), true),
    ("leftThumbMetacarpal", Some("leftHand"), false),
    ("leftThumbProximal", Some("leftThumbMetacarpal"), false),
    ("leftThumbDistal", Some("leftThumbProximal"), false),
    ("leftIndexProximal", Some("leftHand"), false),
    ("leftIndexIntermediate", Some("leftIndexProximal"), false),
    ("leftIndexDistal", Some("leftIndexIntermediate"), false),
    ("leftMiddleProximal", Some("leftHand"), false),
    ("leftMiddleIntermediate", Some("leftMiddleProximal"), false),
    ("leftMiddleDistal", Some("leftMiddleIntermediate"), false),
    ("leftRingProximal", Some("leftHand"), false),
    ("leftRingIntermediate", Some("leftRingProximal"), false),
    ("leftRingDistal", Some("leftRingIntermediate"), false),
    ("leftLittleProximal", Some("leftHand"), false),
    ("leftLittleIntermediate", Some("leftLittleProximal"), false),
    ("leftLittleDistal", Some("leftLittleIntermediate"), false),
    ("rightThumbMetacarpal", Some("rightHand"), false),
    ("rightThumbProximal", Some("rightThumbMetacarpal"), false),
    ("rightThumbDistal", Some("rightThumbProximal"), false),
    ("rightIndexProximal", Some("rightHand"), false),
    ("rightIndexIntermediate", Some("rightIndexProximal"), false),
    ("rightIndexDistal", Some("rightIndexIntermediate"), false),
    ("rightMiddleProximal", Some("rightHand"), false),
    (
        "rightMiddleIntermediate",
        Some("rightMiddleProximal"),
        false,
    ),
    ("rightMiddleDistal", Some("rightMiddleIntermediate"), false),
    ("rightRingProximal", Some("rightHand"), false),
    ("rightRingIntermediate", Some("rightRingProximal"), false),
    ("rightRingDistal", Some("rightRingIntermediate"), false),
    ("rightLittleProximal", Some("rightHand"), false),
    (
        "rightLittleIntermediate",
        Some("rightLittleProximal"),
        false,
    ),
    ("rightLittleDistal", Some("rightLittleIntermediate"), false),
];

/// The 15 bones every VRM must have.
pub const REQUIRED: [&str; 15] = [
    "hips",
    "spine",
    "head",
    "leftUpperLeg",
    "leftLowerLeg",
    "leftFoot",
    "rightUpperLeg",
    "rightLowerLeg",
    "rightFoot",
    "leftUpperArm",
    "leftLowerArm",
    "leftHand",
    "rightUpperArm",
    "rightLowerArm",
    "rightHand",
];

/// Why a humanoid map cannot be written.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum HumanoidError {
    /// Required bones are not in the map.
    #[error("VRM needs humanoid bones the rig does not have: {}", .0.join(", "))]
    Missing(Vec<&'static str>),
    /// A bone is not one of VRM's names, or names a bone index out of range.
    #[error("`{name}` is not a VRM human bone on this skeleton")]
    Unknown {
        /// The name.
        name: String,
    },
    /// Two VRM names on one bone.
    #[error("VRM human bones `{first}` and `{second}` are the same bone")]
    Shared {
        /// One name.
        first: String,
        /// The other.
        second: String,
    },
    /// A bone whose nearest human ancestor is not the one VRM fixes.
    #[error(
        "VRM human bone `{bone}` must descend from `{expected}` as its nearest human bone, but \
         its nearest is {}",
        .found.as_deref().map_or("none (it is a root)".to_owned(), |f| format!("`{f}`"))
    )]
    Hierarchy {
        /// The bone.
        bone: &'static str,
        /// The human bone VRM puts above it (its parent, or the nearest one present).
        expected: &'static str,
        /// The human bone found above it.
        found: Option<&'static str>,
    },
}

/// The VRM name of a G4MF humanoid profile bone (`LeftPinkyProximal` -> `leftLittleProximal`),
/// or `None` for G4MF bones VRM has no name for (spine and neck variants, finger
/// metacarpals); `Chest` with variants is handled by [`from_g4mf_names`].
fn vrm_name(g4mf: &str) -> Option<&'static str> {
    // G4MF's names are capitalised: an MPFB `head` is not G4MF's `Head`.
    if !g4mf.starts_with(|c: char| c.is_ascii_uppercase()) {
        return None;
    }
    let wanted = {
        let mut c = g4mf.chars();
        let first = c.next()?.to_ascii_lowercase();
        std::iter::once(first)
            .chain(c)
            .collect::<String>()
            .replace("Pinky", "Little")
    };
    VRM_BONES
        .iter()
        .map(|(n, _, _)| *n)
        .find(|n| *n == wanted && *n != "upperChest")
}

/// VRM names for bones named with G4MF's humanoid profile names (`bones` gives each name and
/// its bone index): the defined names one to one (`Pinky` is VRM's `Little`), `Chest` as
/// `chest` and its last numbered variant (`Chest1`, `Chest2`, ...) as `upperChest`; spine
/// and neck variants and the four fingers' metacarpals have no VRM name and stay plain
/// bones between human ones (humanoid.md allows them).
pub fn from_g4mf_names<'a>(
    bones: impl IntoIterator<Item = (&'a str, usize)>,
) -> BTreeMap<String, usize> {
    let mut map = BTreeMap::new();
    let mut upper_chest: Option<(u32, usize)> = None;
    for (name, bone) in bones {
        if let Some(number) = name
            .strip_prefix("Chest")
            .and_then(|n| n.parse::<u32>().ok())
        {
            if number > 0 && upper_chest.is_none_or(|(n, _)| number > n) {
                upper_chest = Some((number, bone));
            }
        } else if let Some(vrm) = vrm_name(name) {
            map.insert(vrm.to_owned(), bone);
        }
    }
    if let Some((_, bone)) = upper_chest.filter(|_| map.contains_key("chest")) {
        map.insert("upperChest".to_owned(), bone);
    }
    map
}

/// [`from_g4mf_names`] of `bones`' own names: the humanoid map of a skeleton whose bones carry
/// G4MF's humanoid names.
pub fn of_bones(bones: &[BoneSpec]) -> BTreeMap<String, usize> {
    from_g4mf_names(bones.iter().enumerate().map(|(i, b)| (b.name.as_str(), i)))
}

/// Checks `humanoid` (VRM name -> bone index) on `bones`: every name VRM's, every index a
/// bone, no bone twice, the 15 required bones present, and each bone's nearest human ancestor
/// the one VRM fixes (its parent, or that parent's nearest present ancestor; the parent itself
/// where humanoid.md says "Needs Parent Bone").
pub fn check(bones: &[BoneSpec], humanoid: &BTreeMap<String, usize>) -> Result<(), HumanoidError> {
    let mut named: Vec<Option<&'static str>> = vec![None; bones.len()];
    for (name, &bone) in humanoid {
        let vrm = VRM_BONES
            .iter()
            .map(|(n, _, _)| *n)
            .find(|n| n == name)
            .filter(|_| bone < bones.len())
            .ok_or_else(|| HumanoidError::Unknown { name: name.clone() })?;
        if let Some(first) = named[bone] {
            return Err(HumanoidError::Shared {
                first: first.to_owned(),
                second: vrm.to_owned(),
            });
        }
        named[bone] = Some(vrm);
    }
    let missing: Vec<&'static str> = REQUIRED
        .iter()
        .copied()
        .filter(|r| !humanoid.contains_key(*r))
        .collect();
    if !missing.is_empty() {
        return Err(HumanoidError::Missing(missing));
    }
    for (name, &bone) in humanoid {
        let Some(&(vrm, parent, _)) = VRM_BONES.iter().find(|(n, _, _)| n == name) else {
            continue;
        };
        // A bone humanoid.md marks "Needs Parent Bone" must have that very parent mapped.
        let expected = if needs_parent(vrm) {
            parent
        } else {
            nearest_present(parent, humanoid)
        };
        let found = nearest_human_ancestor(bones, &named, bone);
        if expected != found {
            // hips must be the topmost human bone; any other bone names what it should follow.
            return Err(HumanoidError::Hierarchy {
                bone: vrm,
                expected: expected.unwrap_or("the skeleton's root"),
                found,
            });
        }
    }
    Ok(())
}

/// Whether humanoid.md's "Needs Parent Bone" column says Yes for `vrm`: `upperChest` (only
/// with `chest`), a thumb's proximal and distal bones, the other fingers' intermediate and
/// distal ones.
fn needs_parent(vrm: &str) -> bool {
    vrm == "upperChest"
        || vrm.ends_with("Intermediate")
        || vrm.ends_with("Distal")
        || vrm.ends_with("ThumbProximal")
}

/// `parent`, or its nearest ancestor in VRM's fixed tree that `humanoid` has.
fn nearest_present(
    mut parent: Option<&'static str>,
    humanoid: &BTreeMap<String, usize>,
) -> Option<&'static str> {
    while let Some(p) = parent {
        if humanoid.contains_key(p) {
            return Some(p);
        }
        parent = VRM_BONES
            .iter()
            .find(|(n, _, _)| *n == p)
            .and_then(|(_, up, _)| *up);
    }
    None
}

/// The first bone above `bone` in the skeleton that has a VRM name (bounded: a cycle ends it).
fn nearest_human_ancestor(
    bones: &[BoneSpec],
    named: &[Option<&'static str>],
    bone: usize,
) -> Option<&'static str> {
    let mut at = bones[bone].parent;
    for _ in 0..bones.len() {
        let p = at.filter(|&p| p < bones.len())?;
        if let Some(name) = named[p] {
            return Some(name);
        }
        at = bones[p].parent;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::{DMat3, DVec3};

    fn bone(name: &str, parent: Option<usize>) -> BoneSpec {
        BoneSpec {
            name: name.into(),
            parent,
            head: DVec3::ZERO,
            basis: DMat3::IDENTITY,
            length: 0.1,
            extras: None,
        }
    }

    /// A minimal humanoid skeleton in G4MF names, with spine and chest variants.
    fn skeleton() -> Vec<BoneSpec> {
        let list: [(&str, Option<usize>); 20] = [
            ("Hips", None),
            ("Spine", Some(0)),
            ("Spine1", Some(1)),
            ("Chest", Some(2)),
            ("Chest1", Some(3)),
            ("Neck", Some(4)),
            ("Head", Some(5)),
            ("LeftUpperLeg", Some(0)),
            ("LeftLowerLeg", Some(7)),
            ("LeftFoot", Some(8)),
            ("RightUpperLeg", Some(0)),
            ("RightLowerLeg", Some(10)),
            ("RightFoot", Some(11)),
            ("LeftUpperArm", Some(4)),
            ("LeftLowerArm", Some(13)),
            ("LeftHand", Some(14)),
            ("RightUpperArm", Some(4)),
            ("RightLowerArm", Some(16)),
            ("RightHand", Some(17)),
            ("LeftPinkyMetacarpal", Some(15)),
        ];
        list.iter().map(|(n, p)| bone(n, *p)).collect()
    }

    fn map_of(bones: &[BoneSpec]) -> BTreeMap<String, usize> {
        from_g4mf_names(bones.iter().enumerate().map(|(i, b)| (b.name.as_str(), i)))
    }

    #[test]
    fn g4mf_names_map_to_vrm_with_chest_variants_as_upper_chest() {
        let bones = skeleton();
        let map = map_of(&bones);
        assert_eq!(map["hips"], 0);
        assert_eq!(map["spine"], 1);
        assert_eq!(map["chest"], 3);
        assert_eq!(map["upperChest"], 4);
        assert_eq!(map["leftHand"], 15);
        assert!(!map.values().any(|&b| b == 2 || b == 19), "{map:?}");
        assert_eq!(vrm_name("LeftPinkyProximal"), Some("leftLittleProximal"));
        assert_eq!(vrm_name("LeftThumbMetacarpal"), Some("leftThumbMetacarpal"));
        assert_eq!(vrm_name("LeftIndexMetacarpal"), None);
        assert_eq!(vrm_name("head"), None, "an MPFB name is not G4MF's");
        check(&bones, &map).expect("a valid humanoid");
    }

    #[test]
    fn a_missing_required_bone_is_named() {
        let mut bones = skeleton();
        bones[6].name = "Skull".into();
        let map = map_of(&bones);
        assert_eq!(
            check(&bones, &map),
            Err(HumanoidError::Missing(vec!["head"]))
        );
        let text = check(&bones, &map).unwrap_err().to_string();
        assert!(text.contains("head"), "{text}");
    }

    #[test]
    fn a_bone_under_the_wrong_human_parent_is_refused() {
        let mut bones = skeleton();
        // The left arm hangs from the neck: VRM fixes upperChest above it.
        bones[13].parent = Some(5);
        let map = map_of(&bones);
        assert_eq!(
            check(&bones, &map),
            Err(HumanoidError::Hierarchy {
                bone: "leftUpperArm",
                expected: "upperChest",
                found: Some("neck"),
            })
        );
        // Hips below another human bone.
        let mut bones = skeleton();
        bones[0].parent = Some(1);
        bones[1].parent = None;
        assert!(matches!(
            check(&bones, &map_of(&bones)),
            Err(HumanoidError::Hierarchy { .. })
        ));
    }

    #[test]
    fn a_bone_whose_parent_vrm_requires_is_missing_is_refused() {
        // humanoid.md: upperChest needs chest, a thumb's proximal its metacarpal, a finger's
        // distal its intermediate; the skipped bone is not mapped.
        let mut bones = skeleton();
        bones.push(bone("LeftThumbProximal", Some(15)));
        let map = map_of(&bones);
        assert_eq!(
            check(&bones, &map),
            Err(HumanoidError::Hierarchy {
                bone: "leftThumbProximal",
                expected: "leftThumbMetacarpal",
                found: Some("leftHand"),
            })
        );
        let mut bones = skeleton();
        bones.push(bone("LeftIndexProximal", Some(15)));
        bones.push(bone("LeftIndexDistal", Some(20)));
        assert!(matches!(
            check(&bones, &map_of(&bones)),
            Err(HumanoidError::Hierarchy {
                bone: "leftIndexDistal",
                expected: "leftIndexIntermediate",
                ..
            })
        ));
        let bones = skeleton();
        let mut map = map_of(&bones);
        map.remove("chest");
        assert!(matches!(
            check(&bones, &map),
            Err(HumanoidError::Hierarchy {
                bone: "upperChest",
                expected: "chest",
                ..
            })
        ));
        // With every parent there, the same fingers pass.
        let mut bones = skeleton();
        bones.push(bone("LeftThumbMetacarpal", Some(15)));
        bones.push(bone("LeftThumbProximal", Some(20)));
        check(&bones, &map_of(&bones)).expect("a thumb with its metacarpal");
    }

    #[test]
    fn unknown_names_and_shared_bones_are_refused() {
        let bones = skeleton();
        let mut map = map_of(&bones);
        map.insert("tail".into(), 2);
        assert!(matches!(
            check(&bones, &map),
            Err(HumanoidError::Unknown { .. })
        ));
        let mut map = map_of(&bones);
        map.insert("jaw".into(), 6);
        assert!(matches!(
            check(&bones, &map),
            Err(HumanoidError::Shared { .. })
        ));
        let mut map = map_of(&bones);
        map.insert("jaw".into(), 99);
        assert!(matches!(
            check(&bones, &map),
            Err(HumanoidError::Unknown { .. })
        ));
    }
}
