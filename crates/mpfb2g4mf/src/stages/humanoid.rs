//! `--humanoid`: bones renamed to G4MF's bipedal humanoid names through a table (MPFB bone ->
//! G4MF name) kept as data in `humanoid/` per shipped rig, or given by the user. Every bone
//! keeps its MPFB name in `extras.mpfb.name` (set by assemble), so `to-mpfb` and the round
//! trip are untouched. The renamed skeleton is checked with the profile's rules before anything
//! is written; a table that breaks them is refused.

use crate::error::ConvertError;
use character::Character;
use g4mf_validator::humanoid::{self, SkeletonBone};
use g4mf_validator::{Code, Severity};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The built-in tables, by rig name (`rig.NAME.json`).
const BUILTIN: [(&str, &str); 6] = [
    ("default", include_str!("../../humanoid/default.json")),
    (
        "default_no_toes",
        include_str!("../../humanoid/default_no_toes.json"),
    ),
    (
        "game_engine",
        include_str!("../../humanoid/game_engine.json"),
    ),
    ("mixamo", include_str!("../../humanoid/mixamo.json")),
    ("cmu_mb", include_str!("../../humanoid/cmu_mb.json")),
    ("human", include_str!("../../humanoid/human.json")),
];

/// Where the renaming table comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HumanoidTable {
    /// The shipped table of the rig (by the rig file's name).
    Builtin,
    /// A user's JSON file: `{ "mpfb bone": "G4MFName", ... }` (a `//` key is a comment).
    File(PathBuf),
}

/// The rig names that have a built-in table.
pub fn builtin_rigs() -> impl Iterator<Item = &'static str> {
    BUILTIN.iter().map(|(n, _)| *n)
}

fn parse(text: &str, source: &str) -> Result<BTreeMap<String, String>, ConvertError> {
    let bad = |message: String| ConvertError::Humanoid {
        table: source.to_owned(),
        problems: vec![message],
    };
    let map: BTreeMap<String, String> =
        serde_json::from_str(text).map_err(|e| bad(format!("not a JSON object of names: {e}")))?;
    Ok(map.into_iter().filter(|(k, _)| k != "//").collect())
}

/// A humanoid table read: MPFB bone -> G4MF name, and where it came from (for messages).
pub type Table = (BTreeMap<String, String>, String);

/// The shipped table of rig `rig` (`NAME` of `rig.NAME.json`); `rig_path` names the rig in
/// messages.
pub fn builtin(rig: &str, rig_path: &Path) -> Result<Table, ConvertError> {
    let (name, text) =
        BUILTIN
            .iter()
            .find(|(n, _)| *n == rig)
            .ok_or_else(|| ConvertError::Humanoid {
                table: rig_path.display().to_string(),
                problems: vec![format!(
                    "no humanoid table for rig `{rig}` (shipped: {}); pass --humanoid-map FILE",
                    builtin_rigs().collect::<Vec<_>>().join(", ")
                )],
            })?;
    let source = format!("humanoid/{name}.json");
    Ok((parse(text, &source)?, source))
}

/// A user's table from its text (read by the loader), named `source` in messages.
pub fn from_text(text: &str, source: &str) -> Result<Table, ConvertError> {
    Ok((parse(text, source)?, source.to_owned()))
}

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
