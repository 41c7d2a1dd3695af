//! Structural checks of a parsed rig: parents exist and form no cycle.
//!
//! Per-end checks (unknown strategies, XYZ index count, constraint fields) happen while
//! parsing; checks that need the mesh (zero-length bones) happen while fitting.

use crate::error::{RigError, RigErrorKind};
use crate::location::{Location, json_pointer};
use crate::model::{Rig, RigLayout};
use std::collections::HashMap;

/// The JSON pointer of a bone (or of a key below it) in the rig's source layout.
pub fn bone_pointer(rig: &Rig, bone: &str, below: &[&str]) -> String {
    let prefix: &[&str] = match rig.source_layout {
        RigLayout::Bare => &[],
        RigLayout::V100 | RigLayout::V110 => &["bones"],
    };
    json_pointer(
        prefix
            .iter()
            .copied()
            .chain([bone])
            .chain(below.iter().copied()),
    )
}

/// Checks that every parent names a bone of the rig and that parents form no cycle.
pub fn check_structure(rig: &Rig) -> Result<(), RigError> {
    let index: HashMap<&str, usize> = rig
        .bones
        .iter()
        .enumerate()
        .map(|(i, b)| (b.name.as_str(), i))
        .collect();

    let mut parents = Vec::with_capacity(rig.bones.len());
    for bone in &rig.bones {
        let parent = match bone.parent.as_deref() {
            None => None,
            Some(p) => Some(*index.get(p).ok_or_else(|| {
                RigError::new(
                    Location::pointer(bone_pointer(rig, &bone.name, &["parent"])),
                    RigErrorKind::UnknownParent {
                        bone: bone.name.clone(),
                        parent: p.to_owned(),
                    },
                )
            })?),
        };
        parents.push(parent);
    }

    // Colour walk: 0 = unvisited, 1 = on the current path, 2 = known to reach a root.
    let mut state = vec![0u8; rig.bones.len()];
    for start in 0..rig.bones.len() {
        let mut path: Vec<usize> = Vec::new();
        let mut current = Some(start);
        while let Some(i) = current {
            match state[i] {
                2 => break,
                1 => {
                    let from = path.iter().position(|&p| p == i).unwrap_or(0);
                    let mut cycle: Vec<String> = path[from..]
                        .iter()
                        .map(|&p| rig.bones[p].name.clone())
                        .collect();
                    cycle.push(rig.bones[i].name.clone());
                    return Err(RigError::new(
                        Location::pointer(bone_pointer(rig, &rig.bones[i].name, &["parent"])),
                        RigErrorKind::ParentCycle { cycle },
                    ));
                }
                _ => {
                    state[i] = 1;
                    path.push(i);
                    current = parents[i];
                }
            }
        }
        for i in path {
            state[i] = 2;
        }
    }
    Ok(())
}
