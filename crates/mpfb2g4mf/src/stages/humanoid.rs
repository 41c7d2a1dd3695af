//! `--humanoid`: bones renamed to G4MF's bipedal humanoid names through a table (MPFB bone ->
//! G4MF name): the user's or the one shipped for the rig (the loader reads it, `crate::tables`),
//! else one `crate::humanoid_match` makes from the rig's names and structure. Every bone
//! keeps its MPFB name in `extras.mpfb.name` (set by assemble), so `to-mpfb` and the round
//! trip are untouched. The renamed skeleton is checked with the profile's rules before anything
//! is written; a table that breaks them is refused.

use crate::diagnostics::Diagnostics;
use crate::error::ConvertError;
use crate::inputs::HumanoidNames;
use character::Character;
use g4mf_validator::humanoid::{self, SkeletonBone};
use g4mf_validator::{Code, Severity};
use std::collections::BTreeMap;
use std::path::Path;

/// The humanoid names decided for a character.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Names {
    /// MPFB bone -> G4MF name.
    pub table: BTreeMap<String, String>,
    /// Where they came from, for messages (`table humanoid/default.json`, `table FILE`, or
    /// `names matched on rig.X.json`).
    pub source: String,
    /// The profile's bones nothing was placed as (matched names only).
    pub not_placed: Vec<&'static str>,
}

impl Names {
    /// The index of the bone named `g4mf` in the character's (MPFB-named) skeleton.
    pub fn bone(&self, character: &Character, g4mf: &str) -> Option<usize> {
        let mpfb = self.table.iter().find(|(_, v)| v.as_str() == g4mf)?.0;
        character
            .skeleton
            .bones
            .iter()
            .position(|b| &b.name == mpfb)
    }
}

/// The rig's humanoid names for one job, made once: where they come from is the loader's
/// decision ([`HumanoidNames`]), and the first stage that needs them (renaming, a computed
/// T-pose's limbs, face helpers' bones, a pose's retargeting) makes them on the character as
/// assembled; every later one takes the same names.
#[derive(Debug)]
pub struct JobNames<'a> {
    from: &'a HumanoidNames,
    rig_path: &'a Path,
    made: std::cell::OnceCell<Names>,
}

impl<'a> JobNames<'a> {
    /// The names `from` says for the rig at `rig_path` (named in messages), not made yet.
    pub fn new(from: &'a HumanoidNames, rig_path: &'a Path) -> Self {
        Self {
            from,
            rig_path,
            made: std::cell::OnceCell::new(),
        }
    }

    /// The names, made on `character` the first time they are asked (a rig they cannot be
    /// found on is an error each time it is asked).
    pub fn get(&self, character: &Character) -> Result<&Names, ConvertError> {
        if let Some(names) = self.made.get() {
            return Ok(names);
        }
        let names = names(character, self.from, self.rig_path)?;
        Ok(self.made.get_or_init(|| names))
    }

    /// The names, when a stage made them.
    pub fn into_made(self) -> Option<Names> {
        self.made.into_inner()
    }
}

/// The names `from` says: a table, or matched on the character's skeleton.
fn names(
    character: &Character,
    from: &HumanoidNames,
    rig_path: &Path,
) -> Result<Names, ConvertError> {
    Ok(match from {
        HumanoidNames::Table((table, source)) => Names {
            table: table.clone(),
            source: format!("table {source}"),
            not_placed: Vec::new(),
        },
        HumanoidNames::Matched => {
            let matched = crate::humanoid_match::match_skeleton(&character.skeleton);
            let source = format!(
                "names matched on {}",
                crate::stages::assemble::file_name(rig_path)
            );
            // Without hips there is no humanoid to speak of: say so rather than write a
            // skeleton the profile does not recognise.
            if !matched.table.values().any(|n| n == "Hips") {
                return Err(ConvertError::Humanoid {
                    table: source,
                    problems: vec![format!(
                        "no hips found (no two arms or legs by name or structure; placed: {}); pass --humanoid-map FILE",
                        if matched.table.is_empty() {
                            "nothing".to_owned()
                        } else {
                            matched
                                .table
                                .values()
                                .cloned()
                                .collect::<Vec<_>>()
                                .join(", ")
                        }
                    )],
                });
            }
            let mut names = Names {
                table: matched.table,
                source,
                not_placed: matched.not_placed,
            };
            keep_to_profile(character, &mut names);
            let order = |n: &&str| humanoid::PROFILE.iter().position(|(p, _)| p == n);
            names.not_placed.sort_by_key(order);
            names
        }
    })
}

/// Drops matched names that break the profile's rules (an arm that does not hang from the
/// chest, say), one round at a time until none does: matching names what it can, and a bone
/// it placed badly is better left unnamed than the whole rig refused.
fn keep_to_profile(character: &Character, names: &mut Names) {
    for _ in 0..=names.table.len() {
        // Unnamed bones get a name no humanoid bone ends with.
        let found = profile_problems(character, |i, b| {
            names
                .table
                .get(&b.name)
                .cloned()
                .unwrap_or_else(|| format!("bone{i}x"))
        });
        let broken: Vec<usize> = found
            .iter()
            .filter(|p| p.code.severity() == Severity::Error)
            .filter_map(|p| p.bone)
            .collect();
        if broken.is_empty() {
            return;
        }
        for bone in broken {
            let mpfb = &character.skeleton.bones[bone].name;
            if let Some(g4mf) = names.table.remove(mpfb) {
                if let Some(r) = humanoid::resolve(&g4mf).filter(|r| r.variant == 0) {
                    names.not_placed.push(r.bone);
                }
            }
        }
    }
}

/// The profile's findings on the character's skeleton with each bone named by `name`.
fn profile_problems(
    character: &Character,
    name: impl Fn(usize, &character::Bone) -> String,
) -> Vec<humanoid::Problem> {
    let bones: Vec<SkeletonBone> = character
        .skeleton
        .bones
        .iter()
        .enumerate()
        .map(|(i, b)| SkeletonBone {
            name: name(i, b),
            parent: b.parent,
        })
        .collect();
    // The writer lists root bones first among the skeleton's children, in bone order.
    let first_child = bones.iter().position(|b| b.parent.is_none());
    humanoid::check(&bones, first_child).1
}

/// Renames the character's bones by `table`; bones it does not name keep their names, except
/// one whose name would read as a humanoid bone, which gets `_mpfb` appended. The profile
/// check's warnings are said (its errors refuse the table).
pub fn rename(
    mut character: Character,
    table: &BTreeMap<String, String>,
    source: &str,
    said: &mut Diagnostics,
) -> Result<Character, ConvertError> {
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
    let found = profile_problems(&character, |_, b| b.name.clone());
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
    for p in warnings
        .into_iter()
        .filter(|p| p.code != Code::HumanoidBones)
    {
        said.say(
            crate::diagnostics::Code::HumanoidProfile,
            format!("humanoid: {}: {}", p.code.name(), p.message),
        );
    }
    Ok(character)
}

/// Checks, before the later stages and the write, that `character`'s skeleton (named with
/// G4MF's humanoid names) makes a VRM humanoid, when a `.vrm` is `wanted`; `source` is named
/// in the refusal.
pub fn check_vrm(
    character: &character::Character,
    wanted: bool,
    source: &std::path::Path,
) -> Result<(), ConvertError> {
    if !wanted {
        return Ok(());
    }
    let bones: Vec<character_spec::BoneSpec> = character
        .skeleton
        .bones
        .iter()
        .map(|b| character_spec::BoneSpec {
            name: b.name.clone(),
            parent: b.parent,
            head: b.head,
            basis: b.basis,
            length: b.length,
            extras: None,
        })
        .collect();
    let humanoid = vrm_writer::humanoid::of_bones(&bones);
    vrm_writer::humanoid::check(&bones, &humanoid).map_err(|error| ConvertError::VrmHumanoid {
        rig: source.to_path_buf(),
        source: error,
    })
}
