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
