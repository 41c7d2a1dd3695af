//! G4MF's bipedal humanoid profile (`parts/mesh/character_avatar.md`): the defined bones and
//! their defined parents, how a node name resolves to one (an optional character-name prefix,
//! an optional number for a variant), and the profile's rules over a skeleton: defined bones
//! descend from their nearest present defined ancestor, numbered variants chain
//! (`Chest1` a child of `Chest`, `Chest2` of `Chest1`) and their defined children descend from
//! the last one, no `0` variant, `Hips` the skeleton's first child. Used by the validator
//! (`--profile humanoid`) and by converters checking a renaming table before writing.

use crate::report::Code;

/// Every defined bone and its defined parent (`None`: the skeleton), parents first.
pub const PROFILE: [(&str, Option<&str>); 62] = [
    ("Hips", None),
    ("LeftUpperLeg", Some("Hips")),
    ("LeftLowerLeg", Some("LeftUpperLeg")),
    ("LeftFoot", Some("LeftLowerLeg")),
    ("LeftToes", Some("LeftFoot")),
    ("RightUpperLeg", Some("Hips")),
    ("RightLowerLeg", Some("RightUpperLeg")),
    ("RightFoot", Some("RightLowerLeg")),
    ("RightToes", Some("RightFoot")),
    ("Spine", Some("Hips")),
    ("Chest", Some("Spine")),
    ("Neck", Some("Chest")),
    ("Head", Some("Neck")),
    ("Jaw", Some("Head")),
    ("LeftEye", Some("Head")),
    ("RightEye", Some("Head")),
    ("LeftShoulder", Some("Chest")),
    ("LeftUpperArm", Some("LeftShoulder")),
    ("LeftLowerArm", Some("LeftUpperArm")),
    ("LeftHand", Some("LeftLowerArm")),
    ("LeftThumbMetacarpal", Some("LeftHand")),
    ("LeftThumbProximal", Some("LeftThumbMetacarpal")),
    ("LeftThumbDistal", Some("LeftThumbProximal")),
    ("LeftIndexMetacarpal", Some("LeftHand")),
    ("LeftIndexProximal", Some("LeftIndexMetacarpal")),
    ("LeftIndexIntermediate", Some("LeftIndexProximal")),
    ("LeftIndexDistal", Some("LeftIndexIntermediate")),
    ("LeftMiddleMetacarpal", Some("LeftHand")),
    ("LeftMiddleProximal", Some("LeftMiddleMetacarpal")),
    ("LeftMiddleIntermediate", Some("LeftMiddleProximal")),
    ("LeftMiddleDistal", Some("LeftMiddleIntermediate")),
    ("LeftRingMetacarpal", Some("LeftHand")),
    ("LeftRingProximal", Some("LeftRingMetacarpal")),
    ("LeftRingIntermediate", Some("LeftRingProximal")),
    ("LeftRingDistal", Some("LeftRingIntermediate")),
    ("LeftPinkyMetacarpal", Some("LeftHand")),
    ("LeftPinkyProximal", Some("LeftPinkyMetacarpal")),
    ("LeftPinkyIntermediate", Some("LeftPinkyProximal")),
    ("LeftPinkyDistal", Some("LeftPinkyIntermediate")),
    ("RightShoulder", Some("Chest")),
    ("RightUpperArm", Some("RightShoulder")),
    ("RightLowerArm", Some("RightUpperArm")),
    ("RightHand", Some("RightLowerArm")),
    ("RightThumbMetacarpal", Some("RightHand")),
    ("RightThumbProximal", Some("RightThumbMetacarpal")),
    ("RightThumbDistal", Some("RightThumbProximal")),
    ("RightIndexMetacarpal", Some("RightHand")),
    ("RightIndexProximal", Some("RightIndexMetacarpal")),
    ("RightIndexIntermediate", Some("RightIndexProximal")),
    ("RightIndexDistal", Some("RightIndexIntermediate")),
    ("RightMiddleMetacarpal", Some("RightHand")),
    ("RightMiddleProximal", Some("RightMiddleMetacarpal")),
    ("RightMiddleIntermediate", Some("RightMiddleProximal")),
    ("RightMiddleDistal", Some("RightMiddleIntermediate")),
    ("RightRingMetacarpal", Some("RightHand")),
    ("RightRingProximal", Some("RightRingMetacarpal")),
    ("RightRingIntermediate", Some("RightRingProximal")),
    ("RightRingDistal", Some("RightRingIntermediate")),
    ("RightPinkyMetacarpal", Some("RightHand")),
    ("RightPinkyProximal", Some("RightPinkyMetacarpal")),
    ("RightPinkyIntermediate", Some("RightPinkyProximal")),
    ("RightPinkyDistal", Some("RightPinkyIntermediate")),
];

/// Every defined bone with its defined parent.
pub fn profile() -> impl Iterator<Item = (&'static str, Option<&'static str>)> {
    PROFILE.iter().copied()
}

fn defined_parent(name: &str) -> Option<Option<&'static str>> {
    profile().find(|(n, _)| *n == name).map(|(_, p)| p)
}

/// A node name read against the profile: the defined bone, and its variant number (0 for
/// the bone itself).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Resolved {
    /// The defined bone (`Spine`).
    pub bone: &'static str,
    /// The variant (`Spine2` is 2), 0 for the bone itself.
    pub variant: u32,
    /// The name ends in an explicit `0`, which the profile forbids.
    pub explicit_zero: bool,
    /// The name has a character-name prefix before the bone's (`Alice` in `AliceHips`).
    pub prefixed: bool,
}

/// The defined bone a node name stands for, if any: the longest defined name the node name
/// ends with (after any trailing digits), so `AliceLeftHand` is `LeftHand` and `Chest1` is
/// variant 1 of `Chest`.
pub fn resolve(name: &str) -> Option<Resolved> {
    let digits = name.len() - name.trim_end_matches(|c: char| c.is_ascii_digit()).len();
    let (stem, number) = name.split_at(name.len() - digits);
    let bone = profile()
        .map(|(n, _)| n)
        .filter(|n| stem.ends_with(n))
        .max_by_key(|n| n.len())?;
    Some(Resolved {
        bone,
        variant: number.parse().unwrap_or(0),
        explicit_zero: !number.is_empty() && number.bytes().all(|b| b == b'0'),
        prefixed: stem.len() > bone.len(),
    })
}

/// One bone of a skeleton, as the rules need it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SkeletonBone {
    /// Its node name.
    pub name: String,
    /// Its parent bone (index into the same list), `None` for a child of the skeleton.
    pub parent: Option<usize>,
}

/// A broken rule: the code, the bone it is about, and what is wrong.
#[derive(Debug, Clone, PartialEq)]
pub struct Problem {
    /// The finding's code.
    pub code: Code,
    /// The bone (index into the list checked), when the problem has one.
    pub bone: Option<usize>,
    /// What is wrong.
    pub message: String,
}

/// What a skeleton has of the profile and what it breaks. `first_child` is the bone that is
/// the skeleton node's first child.
pub fn check(
    bones: &[SkeletonBone],
    first_child: Option<usize>,
) -> (Vec<&'static str>, Vec<Problem>) {
    let mut problems = Vec::new();
    let resolved: Vec<Option<Resolved>> = bones.iter().map(|b| resolve(&b.name)).collect();
    let ancestors = |mut b: usize| {
        let mut out = Vec::new();
        let mut steps = 0;
        while let Some(p) = bones[b].parent.filter(|_| steps <= bones.len()) {
            out.push(p);
            b = p;
            steps += 1;
        }
        out
    };
    // Defined bones present: (bone, variant) -> index.
    let find = |bone: &str, variant: u32| {
        resolved
            .iter()
            .position(|r| r.is_some_and(|r| r.bone == bone && r.variant == variant))
    };
    let last_variant = |bone: &str| -> Option<usize> { (0..).map_while(|v| find(bone, v)).last() };
    let mut present: Vec<&'static str> = Vec::new();
    for (i, r) in resolved.iter().enumerate() {
        let Some(r) = r else { continue };
        let name = &bones[i].name;
        if r.explicit_zero {
            problems.push(Problem {
                code: Code::HumanoidVariantZero,
                bone: Some(i),
                message: format!(
                    "`{name}`: the base bone is `{}`, never written with a 0",
                    r.bone
                ),
            });
            continue;
        }
        // Two names standing for the same bone and variant, prefixed or not.
        if let Some(first) = resolved[..i]
            .iter()
            .position(|o| o.is_some_and(|o| o.bone == r.bone && o.variant == r.variant))
        {
            problems.push(Problem {
                code: Code::HumanoidDuplicate,
                bone: Some(i),
                message: format!(
                    "`{name}` and `{}` both stand for {}",
                    bones[first].name, r.bone
                ),
            });
            continue;
        }
        let up = ancestors(i);
        if r.variant > 0 {
            // A variant is a child of the previous number (the base bone for 1).
            match find(r.bone, r.variant - 1) {
                Some(previous) if bones[i].parent == Some(previous) => {}
                Some(previous) => problems.push(Problem {
                    code: Code::HumanoidVariantOrder,
                    bone: Some(i),
                    message: format!("`{name}` must be a child of `{}`", bones[previous].name),
                }),
                None => problems.push(Problem {
                    code: Code::HumanoidVariantOrder,
                    bone: Some(i),
                    message: format!(
                        "`{name}` is variant {} of {} but variant {} is missing",
                        r.variant,
                        r.bone,
                        r.variant - 1
                    ),
                }),
            }
            continue;
        }
        present.push(r.bone);
        // The nearest present defined ancestor in the profile, at its last variant.
        let mut wanted = defined_parent(r.bone).flatten();
        while let Some(parent) = wanted {
            if let Some(p) = last_variant(parent) {
                if !up.contains(&p) {
                    problems.push(Problem {
                        code: Code::HumanoidAncestry,
                        bone: Some(i),
                        message: format!(
                            "`{name}` ({}) must descend from `{}` ({parent}{})",
                            r.bone,
                            bones[p].name,
                            if p == find(parent, 0).unwrap_or(p) {
                                String::new()
                            } else {
                                ", its last numbered variant".into()
                            }
                        ),
                    });
                }
                break;
            }
            wanted = defined_parent(parent).flatten();
        }
    }
    if let Some(hips) = find("Hips", 0) {
        if first_child != Some(hips) {
            problems.push(Problem {
                code: Code::HumanoidHipsPlacement,
                bone: Some(hips),
                message: format!(
                    "`{}` should be the skeleton's first child{}",
                    bones[hips].name,
                    match bones[hips].parent {
                        Some(p) => format!(", not a child of `{}`", bones[p].name),
                        None => String::new(),
                    }
                ),
            });
        }
    }
    for (i, b) in bones.iter().enumerate() {
        if resolved[i].is_none() {
            if let Some((defined, _)) = profile().find(|(n, _)| {
                n.eq_ignore_ascii_case(b.name.trim_end_matches(|c: char| c.is_ascii_digit()))
            }) {
                problems.push(Problem {
                    code: Code::HumanoidNameCase,
                    bone: Some(i),
                    message: format!(
                        "`{}` looks like `{defined}`, but names are case-sensitive",
                        b.name
                    ),
                });
            }
        }
    }
    (present, problems)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn skeleton(spec: &[(&str, Option<usize>)]) -> Vec<SkeletonBone> {
        spec.iter()
            .map(|&(n, p)| SkeletonBone {
                name: n.into(),
                parent: p,
            })
            .collect()
    }

    #[test]
    fn names_resolve_with_prefixes_and_variants() {
        assert_eq!(resolve("AliceLeftHand").unwrap().bone, "LeftHand");
        let chest = resolve("Chest2").unwrap();
        assert_eq!((chest.bone, chest.variant), ("Chest", 2));
        assert!(resolve("Spine0").unwrap().explicit_zero);
        assert!(resolve("upperarm01_L").is_none());
        assert_eq!(profile().count(), 62);
    }

    #[test]
    fn a_good_chain_passes_and_broken_ones_are_named() {
        let good = skeleton(&[
            ("Hips", None),
            ("Spine", Some(0)),
            ("Chest", Some(1)),
            ("Chest1", Some(2)),
            ("twist", Some(3)),
            ("Neck", Some(4)),
            ("Head", Some(5)),
        ]);
        let (present, problems) = check(&good, Some(0));
        assert!(problems.is_empty(), "{problems:?}");
        assert_eq!(present, ["Hips", "Spine", "Chest", "Neck", "Head"]);
        // Neck under Chest, not under the last Chest variant.
        let bad = skeleton(&[
            ("Hips", None),
            ("Spine", Some(0)),
            ("Chest", Some(1)),
            ("Chest1", Some(2)),
            ("Neck", Some(2)),
            ("Chest3", Some(3)),
            ("Spine0", Some(0)),
        ]);
        let codes: Vec<Code> = check(&bad, Some(0)).1.iter().map(|p| p.code).collect();
        assert_eq!(
            codes,
            [
                Code::HumanoidAncestry,
                Code::HumanoidVariantOrder,
                Code::HumanoidVariantZero
            ]
        );
        let rooted = skeleton(&[("Root", None), ("Hips", Some(0))]);
        let codes: Vec<Code> = check(&rooted, Some(0)).1.iter().map(|p| p.code).collect();
        assert_eq!(codes, [Code::HumanoidHipsPlacement]);
    }
}
