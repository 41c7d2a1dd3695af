//! JSON text rules (UTF-8, no BOM, no control characters but tab and line feed) and a scan
//! for repeated keys, which `serde_json::Value` would silently merge.

use crate::report::{Code, Findings};

/// Checks the text rules; returns the text when it is UTF-8.
pub(crate) fn check_text<'a>(
    bytes: &'a [u8],
    base_offset: Option<u64>,
    findings: &mut Findings,
) -> Option<&'a str> {
    let at = |offset: usize| base_offset.map(|b| b + offset as u64);
    let report = |findings: &mut Findings, code, offset: usize, message: String| match at(offset) {
        Some(o) => findings.byte(code, o, message),
        None => findings.at(code, "", format!("byte {offset}: {message}")),
    };
    let mut text_bytes = bytes;
    if bytes.starts_with(&[0xEF, 0xBB, 0xBF]) {
        report(
            findings,
            Code::JsonBom,
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
                Code::JsonNotUtf8,
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
            Code::JsonControlCharacter,
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
    for d in json_strict::duplicate_keys(text) {
        findings.at(
            Code::JsonDuplicateKey,
            d.object,
            format!(
                "the key `{}` appears more than once; readers keep only one",
                d.key
            ),
        );
    }
}

/// The document as a JSON value with every `extras` member's value read, checked for syntax
/// and dropped (kept as `null`, so the member is still there): no check looks inside
/// `extras`, and holding them cost most of a large rig's memory (a 100,000-bone file's bone
/// extras took 400 MB as values). Anything else is what `serde_json::from_str` gives.
pub(crate) fn parse_without_extras(text: &str) -> Result<serde_json::Value, serde_json::Error> {
    use serde::de::DeserializeSeed;
    let mut deserializer = serde_json::Deserializer::from_str(text);
    let read = WithoutExtras
        .deserialize(&mut deserializer)
        .and_then(|value| deserializer.end().map(|()| value));
    // Skipping words some syntax errors differently ("expected value" for a trailing comma):
    // a text that does not parse is read again the usual way for the usual message.
    read.or_else(|_| serde_json::from_str(text))
}

/// Reads a JSON value as `serde_json::Value` does, but an object's `extras` member as `null`.
#[derive(Clone, Copy)]
struct WithoutExtras;

impl<'de> serde::de::DeserializeSeed<'de> for WithoutExtras {
    type Value = serde_json::Value;

    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> serde::de::Visitor<'de> for WithoutExtras {
    type Value = serde_json::Value;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("any valid JSON value")
    }

    fn visit_bool<E>(self, v: bool) -> Result<Self::Value, E> {
        Ok(v.into())
    }

    fn visit_i64<E>(self, v: i64) -> Result<Self::Value, E> {
        Ok(v.into())
    }

    fn visit_u64<E>(self, v: u64) -> Result<Self::Value, E> {
        Ok(v.into())
    }

    fn visit_f64<E>(self, v: f64) -> Result<Self::Value, E> {
        Ok(serde_json::Number::from_f64(v).map_or(serde_json::Value::Null, Into::into))
    }

    fn visit_str<E>(self, v: &str) -> Result<Self::Value, E> {
        Ok(v.into())
    }

    fn visit_string<E>(self, v: String) -> Result<Self::Value, E> {
        Ok(v.into())
    }

    fn visit_none<E>(self) -> Result<Self::Value, E> {
        Ok(serde_json::Value::Null)
    }

    fn visit_unit<E>(self) -> Result<Self::Value, E> {
        Ok(serde_json::Value::Null)
    }

    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(4096));
        while let Some(item) = seq.next_element_seed(self)? {
            items.push(item);
        }
        Ok(serde_json::Value::Array(items))
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut object = serde_json::Map::new();
        while let Some(key) = map.next_key::<String>()? {
            let value = if key == "extras" {
                map.next_value::<serde::de::IgnoredAny>()?;
                serde_json::Value::Null
            } else {
                map.next_value_seed(self)?
            };
            object.insert(key, value);
        }
        Ok(serde_json::Value::Object(object))
    }
}

#[cfg(test)]
mod parse_tests {
    use super::parse_without_extras;
    use serde_json::{Value, json};

    #[test]
    fn extras_are_dropped_and_everything_else_is_what_serde_json_reads() {
        let text = r#"{"asset": {"dimension": 3, "extras": {"a": [1, 2]}}, "nodes": [{"name": "n", "position": [0.1, -2, 18446744073709551615], "extras": {"mpfb": {"roll": 0.5}}, "x": null, "t": true}], "extras": 7, "s": "\u00e9"}"#;
        let mut expected: Value = serde_json::from_str(text).unwrap_or_default();
        expected["asset"]["extras"] = Value::Null;
        expected["nodes"][0]["extras"] = Value::Null;
        expected["extras"] = Value::Null;
        let read = parse_without_extras(text).ok();
        assert_eq!(read.as_ref(), Some(&expected));
        // Key order kept, the `extras` member still there.
        let keys: Vec<&String> = read
            .as_ref()
            .and_then(|v| v["nodes"][0].as_object())
            .map(|o| o.keys().collect())
            .unwrap_or_default();
        assert_eq!(keys, ["name", "position", "extras", "x", "t"]);
        assert_eq!(
            read.map(|v| v["nodes"][0]["position"].clone()),
            Some(json!([0.1, -2, 18446744073709551615u64]))
        );
    }

    #[test]
    fn syntax_errors_inside_extras_and_after_the_document_are_serde_jsons() {
        for text in [
            "{\"extras\": {\"a\": [1,]}}",
            "{\"nodes\": [{\"extras\": {\"a\" 1}}]}",
            "{\"a\": 1} x",
            "{\"a\": 1e999}",
            &format!("{}{}", "[".repeat(200), "]".repeat(200)),
        ] {
            let ours = parse_without_extras(text).err().map(|e| e.to_string());
            let theirs = serde_json::from_str::<Value>(text)
                .err()
                .map(|e| e.to_string());
            assert!(ours.is_some(), "{text}");
            assert_eq!(ours, theirs, "{text}");
        }
    }
}
