//! Item names as every writer writes them: G4MF's rules (forbidden characters replaced,
//! file-wide uniqueness), which glTF outputs keep too, so a bone has one name in every format.

use std::collections::{HashMap, HashSet};

/// Characters G4MF forbids in every name (besides control characters).
pub const FORBIDDEN: &[char] = &[
    '"', '#', '%', '*', '.', ':', '|', '?', '@', '<', '>', '{', '}', '[', ']', '/', '\\',
];

/// True when `name` is a valid G4MF name on its own (no forbidden or control characters).
pub fn is_valid_name(name: &str) -> bool {
    !name
        .chars()
        .any(|c| FORBIDDEN.contains(&c) || c.is_control())
}

/// Replaces every forbidden or control character with `_`. Deterministic and idempotent;
/// an empty name becomes `_` so that it still names something.
pub fn sanitize(name: &str) -> String {
    let out: String = name
        .chars()
        .map(|c| {
            if FORBIDDEN.contains(&c) || c.is_control() {
                '_'
            } else {
                c
            }
        })
        .collect();
    if out.is_empty() { "_".to_owned() } else { out }
}

/// Hands out file-unique names: sanitized, and suffixed `_2`, `_3`, ... on collision, in the
/// order names are requested (so the same inputs always give the same names).
#[derive(Debug, Default)]
pub struct NameRegistry {
    taken: HashSet<String>,
    /// Per colliding base name, the suffix to try next: every lower one is taken (names are
    /// never given back), so many names colliding on one base cost linear time in all.
    next_suffix: HashMap<String, u64>,
}

impl NameRegistry {
    /// An empty registry.
    pub fn new() -> Self {
        Self::default()
    }

    /// A unique, valid name derived from `wanted`.
    pub fn claim(&mut self, wanted: &str) -> String {
        let base = sanitize(wanted);
        if self.taken.insert(base.clone()) {
            return base;
        }
        // The suffixed names are finite in use, so some n is always free.
        let next = self.next_suffix.entry(base.clone()).or_insert(2);
        loop {
            let candidate = format!("{base}_{next}");
            *next += 1;
            if self.taken.insert(candidate.clone()) {
                return candidate;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn forbidden_characters_become_underscores() {
        assert_eq!(sanitize("upperarm01.L"), "upperarm01_L");
        assert_eq!(sanitize("mixamorig:Hips"), "mixamorig_Hips");
        assert_eq!(sanitize("a\"#%*.:|?@<>{}[]/\\b"), "a_________________b");
        assert_eq!(sanitize("tab\there\n"), "tab_here_");
        assert_eq!(sanitize(""), "_");
        assert_eq!(sanitize("Ünïcode-ok_1"), "Ünïcode-ok_1");
        for name in ["a.b", "x:y", "", "\u{7f}"] {
            assert!(is_valid_name(&sanitize(name)));
            assert_eq!(sanitize(&sanitize(name)), sanitize(name));
        }
    }

    #[test]
    fn collisions_get_numbered_suffixes_deterministically() {
        let mut names = NameRegistry::new();
        assert_eq!(names.claim("a.b"), "a_b");
        assert_eq!(names.claim("a_b"), "a_b_2");
        assert_eq!(names.claim("a:b"), "a_b_3");
        assert_eq!(names.claim("a_b_2"), "a_b_2_2");
        assert_eq!(names.claim("c"), "c");
        // A suffix a later name took by itself is skipped.
        assert_eq!(names.claim("a_b_4"), "a_b_4");
        assert_eq!(names.claim("a.b"), "a_b_5");
    }

    #[test]
    fn many_names_on_one_base_are_numbered_in_order() {
        // 20,000 claims of one base: each gets the next suffix (a scan from 2 each time
        // would be quadratic).
        let mut names = NameRegistry::new();
        assert_eq!(names.claim("x"), "x");
        for n in 2..20_002 {
            assert_eq!(names.claim("x"), format!("x_{n}"));
        }
    }
}
