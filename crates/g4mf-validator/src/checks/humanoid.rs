//! `--profile humanoid`: every skeleton's bones read against G4MF's bipedal humanoid profile
//! ([`crate::humanoid`]), with a finding per broken rule at the bone's name and one info
//! finding listing the defined bones present.

use super::*;
use crate::humanoid::{self, SkeletonBone};

impl<'a> Checker<'a> {
    pub(crate) fn humanoid(&mut self) {
        let nodes = array(self.doc, "nodes");
        let mut any = false;
        for (s, node) in nodes.iter().enumerate() {
            if node.get("skeleton").is_none() {
                continue;
            }
            any = true;
            // The skeleton's bones, depth first, each with its parent bone.
            let mut bones: Vec<SkeletonBone> = Vec::new();
            let mut node_of: Vec<usize> = Vec::new();
            let mut stack: Vec<(usize, Option<usize>)> = children(node)
                .into_iter()
                .rev()
                .map(|c| (c, None))
                .collect();
            let mut seen = vec![false; nodes.len()];
            while let Some((n, parent)) = stack.pop() {
                let Some(child) = nodes.get(n) else { continue };
                if child.get("bone").is_none() || std::mem::replace(&mut seen[n], true) {
                    continue;
                }
                let name = child.get("name").and_then(Value::as_str).unwrap_or("");
                bones.push(SkeletonBone {
                    name: name.to_owned(),
                    parent,
                });
                node_of.push(n);
                let me = bones.len() - 1;
                stack.extend(children(child).into_iter().rev().map(|c| (c, Some(me))));
            }
            let first_child = children(node)
                .first()
                .and_then(|c| node_of.iter().position(|n| n == c));
            let (present, problems) = humanoid::check(&bones, first_child);
            for p in problems {
                let pointer = p.bone.map_or(format!("/nodes/{s}"), |b| {
                    format!("/nodes/{}/name", node_of[b])
                });
                self.f.at(p.code, pointer, p.message);
            }
            let total = humanoid::PROFILE.len();
            self.f.at(
                Code::HumanoidBones,
                format!("/nodes/{s}"),
                format!(
                    "{} of the {total} humanoid bones: {}",
                    present.len(),
                    if present.is_empty() {
                        "none".to_owned()
                    } else {
                        present.join(", ")
                    }
                ),
            );
        }
        if !any {
            self.f.at(
                Code::HumanoidBones,
                "/nodes",
                "no skeleton: 0 humanoid bones",
            );
        }
    }
}

fn children(node: &Value) -> Vec<usize> {
    node.get("children")
        .and_then(Value::as_array)
        .map(|c| c.iter().filter_map(index_of).collect())
        .unwrap_or_default()
}
