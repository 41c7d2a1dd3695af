//! Skeletons and bones (skeleton.md): joints, bone placement and ancestry, lengths, shapes.

use super::*;

impl<'a> Checker<'a> {
    pub(crate) fn skeletons(&mut self, parents: &[Option<usize>]) {
        let nodes = array(self.doc, "nodes");
        let is_bone = |i: usize| nodes.get(i).is_some_and(|n| n.get("bone").is_some());
        let is_skeleton = |i: usize| nodes.get(i).is_some_and(|n| n.get("skeleton").is_some());
        // Which skeleton each bone belongs to: a contiguous chain of bones up to a skeleton.
        let owner = owners(parents, &is_bone, &is_skeleton);
        for i in (0..nodes.len()).filter(|&i| is_bone(i)) {
            if owner[i].is_none() {
                self.f.at(Code::BoneNotInSkeleton, format!("/nodes/{i}"), "a bone's parent must be a bone or a skeleton, in a chain up to a skeleton node");
            }
            let bone = &nodes[i]["bone"];
            let p = format!("/nodes/{i}/bone");
            let length = bone.get("length");
            if let Some(l) = length {
                match l.as_f64() {
                    Some(-1.0) => self.f.at(
                        Code::BoneLengthNegative,
                        format!("{p}/length"),
                        "-1 is reserved for undefined lengths in memory and must not be written",
                    ),
                    Some(v) if v < 0.0 => self.f.at(
                        Code::BoneLengthNegative,
                        format!("{p}/length"),
                        format!("bone length {v} is negative"),
                    ),
                    None => self.f.at(
                        Code::BoneLengthNotNumber,
                        format!("{p}/length"),
                        "`length` must be a number",
                    ),
                    _ => {}
                }
            }
            if let Some(m) = bone.get("mass") {
                if m.as_f64().is_none_or(|v| v < 0.0) {
                    self.f.at(
                        Code::BoneMassNegative,
                        format!("{p}/mass"),
                        format!("bone mass {m} must be a non-negative number"),
                    );
                }
            }
            if let Some(shape) = bone.get("shape") {
                if length.is_none() {
                    self.f.at(
                        Code::BoneShapeWithoutLength,
                        format!("{p}/shape"),
                        "a bone with a `shape` must define `length`",
                    );
                }
                self.index(
                    shape,
                    &format!("{p}/shape"),
                    "shapes",
                    Code::BoneShapeInvalid,
                );
            }
        }
        for s in (0..nodes.len()).filter(|&i| is_skeleton(i)) {
            let p = format!("/nodes/{s}/skeleton");
            let children: Vec<usize> = nodes[s]
                .get("children")
                .and_then(Value::as_array)
                .map(|c| c.iter().filter_map(index_of).collect())
                .unwrap_or_default();
            let root_bones: Vec<usize> = children.iter().copied().filter(|&c| is_bone(c)).collect();
            if root_bones.len() == 1 && children.first() != Some(&root_bones[0]) {
                self.f.at(
                    Code::SkeletonRootBoneNotFirstChild,
                    format!("/nodes/{s}/children"),
                    format!(
                        "the single root bone (node {}) must be the skeleton's first child",
                        root_bones[0]
                    ),
                );
            }
            let Some(joints) = nodes[s]["skeleton"].get("joints") else {
                continue;
            };
            let Some(joints) = joints.as_array() else {
                self.f.at(
                    Code::SkeletonJointsInvalid,
                    format!("{p}/joints"),
                    "`joints` must be an array of node indices",
                );
                continue;
            };
            let mut previous: Option<usize> = None;
            let mut listed: Vec<usize> = Vec::new();
            // Each node's last place in `joints`, and each bone's ancestor bone listed last.
            let mut last_place: Vec<Option<usize>> = vec![None; nodes.len()];
            for (k, j) in joints.iter().enumerate() {
                if let Some(slot) = index_of(j).and_then(|j| last_place.get_mut(j)) {
                    *slot = Some(k);
                }
            }
            let listed_last = ancestors_listed_last(parents, &is_bone, &last_place);
            for (k, j) in joints.iter().enumerate() {
                let jp = format!("{p}/joints/{k}");
                if j.as_i64() == Some(-1) {
                    self.f.at(Code::SkeletonJointUncontrolled, jp, "-1 (a joint no bone controls) is allowed by the skeleton text but not by the index schema");
                    continue;
                }
                let Some(j) = self.index(j, &jp, "nodes", Code::SkeletonJointInvalid) else {
                    continue;
                };
                if !is_bone(j) {
                    self.f.at(
                        Code::SkeletonJointNotBone,
                        jp.clone(),
                        format!("joint node {j} is not a bone"),
                    );
                } else if owner[j] != Some(s) {
                    self.f.at(
                        Code::SkeletonJointOutsideSkeleton,
                        jp.clone(),
                        format!("bone {j} does not belong to this skeleton"),
                    );
                }
                if previous.is_some_and(|prev| j <= prev) {
                    self.f.at(
                        Code::SkeletonJointsNotIncreasing,
                        jp.clone(),
                        format!(
                            "joint {j} follows {}: joints must be strictly increasing",
                            previous.unwrap_or(0)
                        ),
                    );
                }
                // A joint's ancestor bones that are joints must come first: the one listed
                // last is named.
                let ancestor = parents[j]
                    .filter(|&a| is_bone(a))
                    .and_then(|a| listed_last[a]);
                if let Some((_, a)) = ancestor.filter(|&(place, _)| place > k) {
                    self.f.at(
                        Code::SkeletonJointParentAfterChild,
                        jp.clone(),
                        format!("joint {j} is listed before its ancestor bone {a}"),
                    );
                }
                previous = Some(j);
                listed.push(j);
            }
            if root_bones.len() == 1
                && listed.contains(&root_bones[0])
                && joints.first().and_then(index_of) != Some(root_bones[0])
            {
                self.f.at(
                    Code::SkeletonRootBoneNotFirstJoint,
                    format!("{p}/joints"),
                    format!(
                        "the single root bone (node {}) skins, so it must be joints[0]",
                        root_bones[0]
                    ),
                );
            }
        }
    }
}

/// The skeleton each bone belongs to (through a chain of bones up to a skeleton node), for
/// every node (`None` for others and for bones outside a skeleton). Each node's answer is
/// kept, so a chain of 100,000 bones costs linear time.
fn owners(
    parents: &[Option<usize>],
    is_bone: &dyn Fn(usize) -> bool,
    is_skeleton: &dyn Fn(usize) -> bool,
) -> Vec<Option<usize>> {
    along_bone_chains(
        parents,
        is_bone,
        // A skeleton node ends the chain even when it is also a bone.
        &|n| is_bone(n) && !is_skeleton(n),
        &|top| parents[top].filter(|&n| is_skeleton(n)),
        &|_, above| above,
    )
}

/// For each bone, the bone among itself and its ancestor bones (up the chain of bones) listed
/// last in a skeleton's joints: `(place, node)`, from each node's `last_place`. Each bone's
/// answer is kept: linear time in bones.
fn ancestors_listed_last(
    parents: &[Option<usize>],
    is_bone: &dyn Fn(usize) -> bool,
    last_place: &[Option<usize>],
) -> Vec<Option<(usize, usize)>> {
    along_bone_chains(parents, is_bone, is_bone, &|_| None, &|b, above| {
        above.max(last_place[b].map(|place| (place, b)))
    })
}

/// Each bone's value along its chain of parents, `T::default()` for other nodes: a bone's is
/// `step(bone, the value above it)`; above a bone whose parent does not `continue` the chain
/// the value is `top(bone)`, above a bone on a cycle `T::default()`. Each bone's value is kept
/// as it is found, so every bone is climbed through once: a chain of 100,000 bones costs
/// linear time.
fn along_bone_chains<T: Copy + Default>(
    parents: &[Option<usize>],
    is_bone: &dyn Fn(usize) -> bool,
    continues: &dyn Fn(usize) -> bool,
    top: &dyn Fn(usize) -> T,
    step: &dyn Fn(usize, T) -> T,
) -> Vec<T> {
    let mut value = vec![T::default(); parents.len()];
    let mut known = vec![false; parents.len()];
    let mut on_path = vec![false; parents.len()];
    let mut path = Vec::new();
    for start in (0..parents.len()).filter(|&i| is_bone(i)) {
        path.clear();
        let mut at = start;
        // The value above the path's top.
        let mut above = loop {
            if known[at] {
                break value[at];
            }
            if on_path[at] {
                break T::default();
            }
            on_path[at] = true;
            path.push(at);
            match parents[at] {
                Some(n) if continues(n) => at = n,
                _ => break top(at),
            }
        };
        for &b in path.iter().rev() {
            above = step(b, above);
            value[b] = above;
            known[b] = true;
            on_path[b] = false;
        }
    }
    value
}
