//! JSON text rules (UTF-8, no BOM, no control characters but tab and line feed) and a scan
//! for repeated keys, which `serde_json::Value` would silently merge.

use crate::report::{Findings, Severity};
use serde::de::{DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use std::collections::HashSet;
use std::fmt;

/// Checks the text rules; returns the text when it is UTF-8.
pub(crate) fn check_text<'a>(
    bytes: &'a [u8],
    base_offset: Option<u64>,
    findings: &mut Findings,
) -> Option<&'a str> {
    let at = |offset: usize| base_offset.map(|b| b + offset as u64);
    let report = |findings: &mut Findings, code, offset: usize, message: String| match at(offset) {
        Some(o) => findings.byte(Severity::Error, code, o, message),
        None => findings.error(code, "", format!("byte {offset}: {message}")),
    };
    let mut text_bytes = bytes;
    if bytes.starts_with(&[0xEF, 0xBB, 0xBF]) {
        report(
            findings,
            "JSON_BOM",
            0,
            "the JSON starts with a byte order mark".into(),
        );
        text_bytes = &bytes[3..];
    }
    let text = match std::str::from_utf8(text_bytes) {
        Ok(t) => t,
        Err(e) => {
            report(
                findings,
                "JSON_NOT_UTF8",
                e.valid_up_to(),
                "the JSON is not valid UTF-8".into(),
            );
            return None;
        }
    };
    if let Some((i, c)) = text.char_indices().find(|&(_, c)| {
        (c.is_control() && c != '\t' && c != '\n') || ('\u{7f}'..='\u{9f}').contains(&c)
    }) {
        report(
            findings,
            "JSON_CONTROL_CHARACTER",
            i + (bytes.len() - text_bytes.len()),
            format!(
                "the JSON contains the control character U+{:04X} (only tab and line feed are allowed)",
                c as u32
            ),
        );
    }
    Some(text)
}

/// Reports every repeated key with the pointer of the object holding it.
pub(crate) fn check_duplicate_keys(text: &str, findings: &mut Findings) {
    let mut de = serde_json::Deserializer::from_str(text);
    let mut found = Vec::new();
    let _ = Scan {
        path: String::new(),
        found: &mut found,
    }
    .deserialize(&mut de);
    for (pointer, key) in found {
        findings.warning(
            "JSON_DUPLICATE_KEY",
            pointer,
            format!("the key `{key}` appears more than once; readers keep only one"),
        );
    }
}

struct Scan<'a> {
    path: String,
    found: &'a mut Vec<(String, String)>,
}

impl<'de> DeserializeSeed<'de> for Scan<'_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_any(self)
    }
}

fn escape(token: &str) -> String {
    token.replace('~', "~0").replace('/', "~1")
}

impl<'de> Visitor<'de> for Scan<'_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_map<M: MapAccess<'de>>(self, mut map: M) -> Result<(), M::Error> {
        let mut seen = HashSet::new();
        while let Some(key) = map.next_key::<String>()? {
            if !seen.insert(key.clone()) {
                self.found.push((self.path.clone(), key.clone()));
            }
            let path = format!("{}/{}", self.path, escape(&key));
            map.next_value_seed(Scan {
                path,
                found: self.found,
            })?;
        }
        Ok(())
    }
    fn visit_seq<S: SeqAccess<'de>>(self, mut seq: S) -> Result<(), S::Error> {
        let mut i = 0;
        while seq
            .next_element_seed(Scan {
                path: format!("{}/{i}", self.path),
                found: self.found,
            })?
            .is_some()
        {
            i += 1;
        }
        Ok(())
    }
    fn visit_bool<E>(self, _: bool) -> Result<(), E> {
        Ok(())
    }
    fn visit_i64<E>(self, _: i64) -> Result<(), E> {
        Ok(())
    }
    fn visit_u64<E>(self, _: u64) -> Result<(), E> {
        Ok(())
    }
    fn visit_f64<E>(self, _: f64) -> Result<(), E> {
        Ok(())
    }
    fn visit_str<E>(self, _: &str) -> Result<(), E> {
        Ok(())
    }
    fn visit_unit<E>(self) -> Result<(), E> {
        Ok(())
    }
}
