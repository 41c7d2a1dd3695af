//! `--humanoid`: bones renamed to G4MF's bipedal humanoid names through a table (MPFB bone ->
//! G4MF name; the loader reads it, `crate::tables`). Every bone
//! keeps its MPFB name in `extras.mpfb.name` (set by assemble), so `to-mpfb` and the round
//! trip are untouched. The renamed skeleton is checked with the profile's rules before anything
//! is written; a table that breaks them is refused.

use crate::error::ConvertError;
use character::Character;
use g4mf_validator::humanoid::{self, SkeletonBone};
use g4mf_validator::{Code, Severity};
use std::collections::BTreeMap;

/// Renames the character's bones by `table`; bones it does not name keep their names, except
/// one whose name would read as a humanoid bone, which gets `_mpfb` appended. Returns the
/// warnings of the profile check (errors refuse the table).
pub fn rename(
    mut character: Character,
    table: &BTreeMap<String, String>,
    source: &str,
) -> Result<(Character, Vec<String>), ConvertError> {
    let mut problems = Vec::new();
    for (mpfb, g4mf) in table {
        if !character.skeleton.bones.iter().any(|b| &b.name == mpfb) {
            problems.push(format!("`{mpfb}` is not a bone of this rig"));
        }
        match humanoid::resolve(g4mf) {
            Some(r) if !r.prefixed && !r.explicit_zero => {}
            _ => problems.push(format!(
                "`{g4mf}` (for `{mpfb}`) is not a humanoid bone name"
            )),
        }
    }
    let mut values: Vec<&String> = table.values().collect();
    values.sort();
    for pair in values.windows(2).filter(|w| w[0] == w[1]) {
        problems.push(format!("`{}` is given to more than one bone", pair[0]));
    }
    if !problems.is_empty() {
        return Err(ConvertError::Humanoid {
            table: source.to_owned(),
            problems,
        });
    }
    for bone in &mut character.skeleton.bones {
        bone.name = match table.get(&bone.name) {
            Some(name) => name.clone(),
            None if humanoid::resolve(&g4mf_writer::sanitize(&bone.name)).is_some() => {
                format!("{}_mpfb", bone.name)
            }
            None => continue,
        };
    }
    let bones: Vec<SkeletonBone> = character
        .skeleton
        .bones
        .iter()
        .map(|b| SkeletonBone {
            name: b.name.clone(),
            parent: b.parent,
        })
        .collect();
    // The writer lists root bones first among the skeleton's children, in bone order.
    let first_child = bones.iter().position(|b| b.parent.is_none());
    let (_, found) = humanoid::check(&bones, first_child);
    let (errors, warnings): (Vec<_>, Vec<_>) = found
        .into_iter()
        .partition(|p| p.code.severity() == Severity::Error);
    if !errors.is_empty() {
        return Err(ConvertError::Humanoid {
            table: source.to_owned(),
            problems: errors
                .into_iter()
                .map(|p| format!("{}: {}", p.code.name(), p.message))
                .collect(),
        });
    }
    let warnings = warnings
        .into_iter()
        .filter(|p| p.code != Code::HumanoidBones)
        .map(|p| format!("humanoid: {}", p.message))
        .collect();
    Ok((character, warnings))
}
