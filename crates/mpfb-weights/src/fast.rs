//! The fast path for weights files in the plain shape MPFB writes: one pass over the bytes,
//! each `[vertex, weight]` pair parsed straight into its group. Anything outside that shape
//! (escaped strings, unknown keys, negative or non-finite weights, repeated names, bad
//! syntax) makes it return `None`, and the typed serde reader in `parse.rs` reads the file
//! instead, with its exact errors. So the fast path never decides an error, and whatever it
//! accepts, the typed reader accepts with the same result, to the bit (tests and the
//! `weights_json` fuzz target compare the two).
//!
//! Why by hand: the serde visitor spends most of its time in generic sequence handling around
//! 130,000 two-element arrays; a scanner that knows the shape reads the default weights about
//! twice as fast. Numbers are still parsed by the standard library's correctly rounded
//! parser, after checking each token against JSON's number grammar, so the bits are those
//! of serde_json with `float_roundtrip`.

use crate::weights_file::{WeightGroup, WeightsFile};
use serde_json::Value;
use std::collections::HashSet;

/// Parses `text` if it is a weights file in the plain shape; `None` otherwise (the typed
/// reader then decides, error or not).
pub fn parse_plain(text: &str) -> Option<WeightsFile> {
    let mut scanner = Scanner {
        bytes: text.as_bytes(),
        text,
        at: 0,
    };
    let file = scanner.file()?;
    scanner.whitespace();
    (scanner.at == scanner.bytes.len()).then_some(file)
}

struct Scanner<'a> {
    text: &'a str,
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Scanner<'a> {
    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.at).copied()
    }

    /// JSON's four whitespace bytes.
    fn whitespace(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.peek() {
            self.at += 1;
        }
    }

    /// Skips whitespace, then takes `byte` if it is next.
    fn eat(&mut self, byte: u8) -> bool {
        self.whitespace();
        if self.peek() == Some(byte) {
            self.at += 1;
            true
        } else {
            false
        }
    }

    /// A string without escapes or control characters (anything else: `None`).
    fn plain_string(&mut self) -> Option<&'a str> {
        if !self.eat(b'"') {
            return None;
        }
        let start = self.at;
        let length = memchr::memchr2(b'"', b'\\', &self.bytes[start..])?;
        let end = start + length;
        if self.bytes[end] != b'"' || self.bytes[start..end].iter().any(|&b| b < 0x20) {
            return None;
        }
        self.at = end + 1;
        // Both ends sit on ASCII quotes, so they are character boundaries.
        self.text.get(start..end)
    }

    /// The whole file: the metadata keys MPFB writes and `weights`, each once.
    fn file(&mut self) -> Option<WeightsFile> {
        let mut file = WeightsFile::default();
        let mut seen: Vec<&str> = Vec::with_capacity(6);
        let mut saw_weights = false;
        if !self.eat(b'{') || self.eat(b'}') {
            return None;
        }
        loop {
            let key = self.plain_string()?;
            if seen.contains(&key) || !self.eat(b':') {
                return None;
            }
            seen.push(key);
            self.whitespace();
            match key {
                "weights" => {
                    file.groups = self.groups()?;
                    saw_weights = true;
                }
                "copyright" => file.copyright = self.optional_string()?,
                "description" => file.description = self.optional_string()?,
                "license" => file.license = self.optional_string()?,
                "name" => file.name = self.optional_string()?,
                "version" => file.version = self.optional_number()?,
                _ => return None,
            }
            if self.eat(b'}') {
                break;
            }
            if !self.eat(b',') {
                return None;
            }
        }
        saw_weights.then_some(file)
    }

    /// `null` or a plain string, as `Option<String>` reads them.
    fn optional_string(&mut self) -> Option<Option<String>> {
        if self.literal_null() {
            return Some(None);
        }
        self.plain_string().map(|s| Some(s.to_owned()))
    }

    /// `null` or a number, as `Option<Value>` reads them.
    fn optional_number(&mut self) -> Option<Option<Value>> {
        if self.literal_null() {
            return Some(None);
        }
        let length = json_number_length(&self.bytes[self.at..])?;
        let token = &self.text[self.at..self.at + length];
        self.at += length;
        serde_json::from_str::<Value>(token).ok().map(Some)
    }

    fn literal_null(&mut self) -> bool {
        let null = self.bytes[self.at..].starts_with(b"null");
        if null {
            self.at += 4;
        }
        null
    }

    /// `{"group": [[vertex, weight], ...], ...}`, names unique, in file order.
    fn groups(&mut self) -> Option<Vec<WeightGroup>> {
        let mut groups = Vec::new();
        let mut names = HashSet::new();
        // One reused buffer, copied out at each group's exact size (as in `parse.rs`).
        let mut scratch: Vec<(u32, f64)> = Vec::new();
        if !self.eat(b'{') {
            return None;
        }
        if self.eat(b'}') {
            return Some(groups);
        }
        loop {
            let name = self.plain_string()?;
            if !names.insert(name) || !self.eat(b':') {
                return None;
            }
            scratch.clear();
            self.pairs(&mut scratch)?;
            groups.push(WeightGroup {
                name: name.to_owned(),
                pairs: scratch.as_slice().to_vec(),
            });
            if self.eat(b'}') {
                return Some(groups);
            }
            if !self.eat(b',') {
                return None;
            }
        }
    }

    /// `[[vertex, weight], ...]` appended to `pairs`.
    fn pairs(&mut self, pairs: &mut Vec<(u32, f64)>) -> Option<()> {
        if !self.eat(b'[') {
            return None;
        }
        if self.eat(b']') {
            return Some(());
        }
        loop {
            if !self.eat(b'[') {
                return None;
            }
            self.whitespace();
            let vertex = self.vertex()?;
            if !self.eat(b',') {
                return None;
            }
            self.whitespace();
            let weight = self.weight()?;
            if !self.eat(b']') {
                return None;
            }
            pairs.push((vertex, weight));
            if self.eat(b']') {
                return Some(());
            }
            if !self.eat(b',') {
                return None;
            }
        }
    }

    /// An unsigned JSON integer that fits `u32`: `0` or digits without a leading zero, not
    /// followed by a fraction or an exponent.
    fn vertex(&mut self) -> Option<u32> {
        let rest = &self.bytes[self.at..];
        let digits = rest.iter().take_while(|b| b.is_ascii_digit()).count();
        if digits == 0 || digits > 10 || (digits > 1 && rest[0] == b'0') {
            return None;
        }
        if let Some(b'.' | b'e' | b'E') = rest.get(digits) {
            return None;
        }
        let value = rest[..digits]
            .iter()
            .fold(0u64, |v, &b| v * 10 + u64::from(b - b'0'));
        self.at += digits;
        u32::try_from(value).ok()
    }

    /// A finite, non-negative JSON number (a leading `-` is left to the typed reader: it
    /// reports negative weights, and reads `-0` as an integer).
    fn weight(&mut self) -> Option<f64> {
        let rest = &self.bytes[self.at..];
        if rest.first() == Some(&b'-') {
            return None;
        }
        let length = json_number_length(rest)?;
        let value: f64 = self.text[self.at..self.at + length].parse().ok()?;
        self.at += length;
        value.is_finite().then_some(value)
    }
}

/// The length of the JSON number at the start of `bytes`
/// (`-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`), or `None`.
fn json_number_length(bytes: &[u8]) -> Option<usize> {
    let digits_from = |i: usize| bytes[i..].iter().take_while(|b| b.is_ascii_digit()).count();
    let mut i = usize::from(bytes.first() == Some(&b'-'));
    match bytes.get(i) {
        Some(b'0') => i += 1,
        Some(b'1'..=b'9') => i += digits_from(i),
        _ => return None,
    }
    if bytes.get(i) == Some(&b'.') {
        let fraction = digits_from(i + 1);
        if fraction == 0 {
            return None;
        }
        i += 1 + fraction;
    }
    if let Some(b'e' | b'E') = bytes.get(i) {
        i += 1;
        if let Some(b'+' | b'-') = bytes.get(i) {
            i += 1;
        }
        let exponent = digits_from(i);
        if exponent == 0 {
            return None;
        }
        i += exponent;
    }
    Some(i)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::parse_weights_typed;
    use proptest::prelude::*;

    /// The two readers agree, to the bit, wherever the fast one answers.
    fn assert_agrees(text: &str) {
        if let Some(fast) = parse_plain(text) {
            let typed = parse_weights_typed(text).unwrap_or_else(|e| {
                panic!("fast path accepted what the typed reader refuses ({e}): {text}")
            });
            assert_same(&fast, &typed, text);
        }
    }

    fn assert_same(fast: &WeightsFile, typed: &WeightsFile, text: &str) {
        assert_eq!(
            (
                &fast.copyright,
                &fast.description,
                &fast.license,
                &fast.name,
                &fast.version
            ),
            (
                &typed.copyright,
                &typed.description,
                &typed.license,
                &typed.name,
                &typed.version
            ),
            "{text}"
        );
        assert!(fast.extra.is_empty() && typed.extra.is_empty(), "{text}");
        assert_eq!(fast.groups.len(), typed.groups.len(), "{text}");
        for (a, b) in fast.groups.iter().zip(&typed.groups) {
            assert_eq!(a.name, b.name, "{text}");
            let bits = |g: &WeightGroup| -> Vec<(u32, u64)> {
                g.pairs.iter().map(|&(v, w)| (v, w.to_bits())).collect()
            };
            assert_eq!(bits(a), bits(b), "group {}: {text}", a.name);
        }
    }

    #[test]
    fn every_mpfb_weights_file_takes_the_fast_path_with_the_typed_result() {
        let data = test_support::mpfb_data_or_skip!(
            every_mpfb_weights_file_takes_the_fast_path_with_the_typed_result
        );
        let mut files = 0;
        for rig_dir in std::fs::read_dir(data.join("rigs")).expect("rigs folder") {
            let rig_dir = rig_dir.expect("entry").path();
            for entry in std::fs::read_dir(&rig_dir).into_iter().flatten() {
                let path = entry.expect("entry").path();
                let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
                if !(name.starts_with("weights.") && name.ends_with(".json")) {
                    continue;
                }
                let text = std::fs::read_to_string(&path).expect("readable");
                let fast = parse_plain(&text)
                    .unwrap_or_else(|| panic!("{} left the fast path", path.display()));
                let typed = parse_weights_typed(&text).expect("valid");
                assert_same(&fast, &typed, &path.display().to_string());
                files += 1;
            }
        }
        assert!(files >= 4, "only {files} weights files found");
    }

    #[test]
    fn the_fast_path_leaves_every_unusual_shape_to_the_typed_reader() {
        for text in [
            r#"{}"#,
            r#"{"name": "x"}"#,
            r#"{"weights": {"a": [[1, 0.5]]}, "weights": {}}"#,
            r#"{"weights": {"a": [[1, 0.5]], "a": []}}"#,
            r#"{"weights": {"a\u0062": [[1, 0.5]]}}"#,
            r#"{"weights": {"a": [[1, -0.5]]}}"#,
            r#"{"weights": {"a": [[1, -0]]}}"#,
            r#"{"weights": {"a": [[1, 1e400]]}}"#,
            r#"{"weights": {"a": [[1, .5]]}}"#,
            r#"{"weights": {"a": [[1, 5.]]}}"#,
            r#"{"weights": {"a": [[1, +5]]}}"#,
            r#"{"weights": {"a": [[1, 05]]}}"#,
            r#"{"weights": {"a": [[01, 0.5]]}}"#,
            r#"{"weights": {"a": [[1.0, 0.5]]}}"#,
            r#"{"weights": {"a": [[4294967296, 0.5]]}}"#,
            r#"{"weights": {"a": [[1, 0.5, 2]]}}"#,
            r#"{"weights": {"a": [[1]]}}"#,
            r#"{"weights": {"a": [[1, NaN]]}}"#,
            r#"{"weights": {"a": [[1, 0.5],]}}"#,
            r#"{"weights": {"a": [[1, 0.5]]}} x"#,
            r#"{"weights": {"a": [[1, 0.5]]}, "extra": 1}"#,
            r#"{"weights": {"a": [[1, 0.5]]}, "version": "110"}"#,
            "{\"weights\": {\"a\u{1}\": [[1, 0.5]]}}",
            "{\"weights\": {\"a\": [[1,\u{b}0.5]]}}",
        ] {
            assert!(parse_plain(text).is_none(), "fast path took {text}");
            assert_agrees(text);
        }
    }

    #[test]
    fn the_fast_path_reads_the_plain_shapes_as_the_typed_reader_does() {
        for text in [
            r#"{"weights": {}}"#,
            r#"{"weights": {"a": []}}"#,
            " \t\r\n{ \"version\" : 110 ,\"weights\":{\"a\":[ [ 0 , 1 ] ,[4294967295,0.0]] } }\n",
            r#"{"name": null, "version": 1.5e2, "weights": {"x": [[7, 1E-400], [8, 12345678901234567890123]]}}"#,
            r#"{"weights": {"é ü": [[3, 0.30000000000000004], [3, 2.2250738585072014e-308]]}}"#,
        ] {
            assert!(parse_plain(text).is_some(), "fast path refused {text}");
            assert_agrees(text);
        }
    }

    #[test]
    fn extreme_numbers_agree_whichever_reader_takes_them() {
        for weight in [
            "1e-99999999999999999999",
            "0e99999999999999999999",
            "1e99999999999999999999",
            "0.0000000000000000000000000000000000000000000000000000000000000000000000001e-300",
            "123456789012345678901234567890123456789012345678901234567890",
            "4.9406564584124654e-324",
            "2.4703282292062327e-324",
            "2.4703282292062328e-324",
            "1.7976931348623157e308",
            "1.7976931348623158e308",
            "1.7976931348623159e308",
            "9007199254740993",
            "18446744073709551615",
            "18446744073709551616",
        ] {
            let text =
                format!("{{\"version\": {weight}, \"weights\": {{\"a\": [[1, {weight}]]}}}}");
            assert_agrees(&text);
        }
    }

    /// A weight token: mostly what MPFB writes, sometimes any JSON number form, sometimes
    /// something no reader should take.
    fn weight_token() -> impl Strategy<Value = String> {
        prop_oneof![
            6 => (0.0f64..=1.0).prop_map(|f| format!("{f:?}")),
            1 => any::<f64>().prop_map(|f| format!("{f:e}")),
            1 => any::<u64>().prop_map(|n| n.to_string()),
            1 => "-?[0-9]{1,25}(\\.[0-9]{1,25})?([eE][+-]?[0-9]{1,4})?",
            1 => "[-+.0-9eE]{1,8}",
        ]
    }

    /// A vertex token: mostly a `u32`, sometimes digits of any length or not an integer.
    fn vertex_token() -> impl Strategy<Value = String> {
        prop_oneof![
            6 => any::<u32>().prop_map(|v| v.to_string()),
            1 => "[0-9]{1,11}",
            1 => "-?[0-9]{1,3}(\\.[0-9])?",
        ]
    }

    fn weights_text() -> impl Strategy<Value = String> {
        let pair = (vertex_token(), weight_token(), "[ \t\n]{0,2}")
            .prop_map(|(v, w, ws)| format!("[{ws}{v},{ws}{w}{ws}]"));
        let name = prop_oneof![6 => "[a-zé .]{0,4}", 1 => "[a-z\\\\\"\u{1}]{0,3}"];
        let group = (name, prop::collection::vec(pair, 0..5))
            .prop_map(|(name, pairs)| format!("\"{name}\": [{}]", pairs.join(", ")));
        (
            prop::collection::vec(group, 0..4),
            prop::option::of(weight_token()),
        )
            .prop_map(|(groups, version)| {
                let version = version
                    .map(|v| format!("\"version\": {v}, "))
                    .unwrap_or_default();
                format!("{{{version}\"weights\": {{{}}}}}", groups.join(", "))
            })
    }

    proptest! {
        #[test]
        fn fast_and_typed_readers_agree_on_generated_files(text in weights_text()) {
            assert_agrees(&text);
        }

        #[test]
        fn fast_and_typed_readers_agree_on_damaged_files(
            text in weights_text(),
            at in any::<prop::sample::Index>(),
            byte in prop::sample::select(b" \t\n,:[]{}\"\\-.0123456789eEnul".to_vec()),
        ) {
            let mut bytes = text.into_bytes();
            let i = at.index(bytes.len());
            bytes[i] = byte;
            if let Ok(text) = String::from_utf8(bytes) {
                assert_agrees(&text);
            }
        }
    }
}
