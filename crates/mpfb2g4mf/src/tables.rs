//! The humanoid renaming tables: the ones we ship per MPFB rig (`humanoid/*.json`, data, not
//! code) and a user's, parsed. The loader reads them; `stages::humanoid` renames with them (or
//! with a table `humanoid_match` makes for a rig without one) and `stages::rest_pose` finds the
//! limbs of a computed T-pose with them.

use crate::error::ConvertError;
use std::collections::BTreeMap;

/// The built-in tables, by rig name (`rig.NAME.json`).
const BUILTIN: [(&str, &str); 6] = [
    ("default", include_str!("../humanoid/default.json")),
    (
        "default_no_toes",
        include_str!("../humanoid/default_no_toes.json"),
    ),
    ("game_engine", include_str!("../humanoid/game_engine.json")),
    ("mixamo", include_str!("../humanoid/mixamo.json")),
    ("cmu_mb", include_str!("../humanoid/cmu_mb.json")),
    ("human", include_str!("../humanoid/human.json")),
];

fn parse(text: &str, source: &str) -> Result<BTreeMap<String, String>, ConvertError> {
    let bad = |message: String| ConvertError::Humanoid {
        table: format!("table {source}"),
        problems: vec![message],
    };
    let map: BTreeMap<String, String> = serde_json::from_str(text).map_err(|e| {
        bad(format!(
            "{}:{}: not a JSON object of names: {}",
            e.line(),
            e.column(),
            strip_position(&e.to_string())
        ))
    })?;
    // serde keeps the last of repeated keys: a table that names a bone twice is refused.
    // `"//"` is the tables' comment key and may repeat.
    if let Some(dup) = json_strict::duplicate_keys(text)
        .into_iter()
        .find(|d| d.key != "//")
    {
        return Err(bad(format!(
            "{}: `{}` is named twice",
            dup.pointer(),
            location::text::excerpt(&dup.key, 40)
        )));
    }
    Ok(map.into_iter().filter(|(k, _)| k != "//").collect())
}

/// serde_json's message without its ` at line L column C` (the message gives the position).
fn strip_position(message: &str) -> String {
    match message.rfind(" at line ") {
        Some(i) => message[..i].to_owned(),
        None => message.to_owned(),
    }
}

/// A humanoid table read: MPFB bone -> G4MF name, and where it came from (for messages).
pub type Table = (BTreeMap<String, String>, String);

/// The shipped table of rig `rig` (`NAME` of `rig.NAME.json`), if we ship one.
pub fn shipped(rig: &str) -> Result<Option<Table>, ConvertError> {
    let Some((name, text)) = BUILTIN.iter().find(|(n, _)| *n == rig) else {
        return Ok(None);
    };
    let source = format!("humanoid/{name}.json");
    Ok(Some((parse(text, &source)?, source)))
}

/// A user's table from its text (read by the loader), named `source` in messages.
pub fn from_text(text: &str, source: &str) -> Result<Table, ConvertError> {
    Ok((parse(text, source)?, source.to_owned()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn repeated_names_are_refused_but_comments_may_repeat() {
        let table = r#"{"//": "one", "//": "two", "root": "Hips"}"#;
        let parsed = parse(table, "t.json").unwrap();
        assert_eq!(parsed.get("root").map(String::as_str), Some("Hips"));
        let err = parse(r#"{"root": "Hips", "root": "Spine"}"#, "t.json").unwrap_err();
        assert!(err.to_string().contains("`root` is named twice"), "{err}");
    }
}
