//! Text inputs read the same way everywhere: a UTF-8 byte-order mark dropped, invalid UTF-8
//! located by line and column, any line end (`\n`, `\r\n`, a lone `\r`), and what a message
//! quotes of them kept short (numbers in a few digits, long inputs cut).

use crate::Location;

/// Bytes that are not UTF-8 text.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{location}: not UTF-8 text (byte 0x{byte:02x})")]
pub struct InvalidText {
    /// Where the first invalid byte is (line and column).
    pub location: Location,
    /// That byte.
    pub byte: u8,
}

/// The UTF-8 byte-order mark some editors write first.
const BOM: &[u8] = b"\xEF\xBB\xBF";

/// `bytes` as text without a leading byte-order mark, or where the first invalid byte is.
pub fn decode(bytes: &[u8]) -> Result<&str, InvalidText> {
    let bytes = bytes.strip_prefix(BOM).unwrap_or(bytes);
    std::str::from_utf8(bytes).map_err(|e| {
        let at = e.valid_up_to();
        // The valid prefix is text: count its lines and columns.
        let valid = std::str::from_utf8(&bytes[..at]).unwrap_or("");
        let (line, column) = line_column(valid, at);
        InvalidText {
            location: Location::line_column(line, column),
            byte: bytes[at],
        }
    })
}

/// `text` without a leading byte-order mark.
pub fn strip_bom(text: &str) -> &str {
    text.strip_prefix('\u{feff}').unwrap_or(text)
}

/// The 1-based line and column of byte `offset`, counting every kind of line end.
fn line_column(text: &str, offset: usize) -> (usize, usize) {
    let mut line = 1;
    let mut start = 0;
    for (n, (at, content)) in LineStarts::new(text).enumerate() {
        if at > offset {
            break;
        }
        line = n + 1;
        start = at;
        let _ = content;
    }
    (line, offset - start + 1)
}

/// Line starts and contents.
struct LineStarts<'a> {
    text: &'a str,
    at: usize,
}

impl<'a> LineStarts<'a> {
    fn new(text: &'a str) -> Self {
        Self { text, at: 0 }
    }
}

impl<'a> Iterator for LineStarts<'a> {
    type Item = (usize, &'a str);

    fn next(&mut self) -> Option<Self::Item> {
        if self.at >= self.text.len() && (self.at > 0 || self.text.is_empty()) {
            return None;
        }
        let start = self.at;
        let rest = &self.text.as_bytes()[start..];
        match rest.iter().position(|&b| b == b'\n' || b == b'\r') {
            Some(end) => {
                let after = if rest[end] == b'\r' && rest.get(end + 1) == Some(&b'\n') {
                    end + 2
                } else {
                    end + 1
                };
                self.at = start + after;
                Some((start, &self.text[start..start + end]))
            }
            None => {
                self.at = self.text.len() + 1;
                Some((start, &self.text[start..]))
            }
        }
    }
}

/// The lines of `text`, numbered from 1, ending at `\n`, `\r\n` or a lone `\r` (old Mac
/// files), without their line ends. A text that ends with a line end has no empty last line.
pub fn lines(text: &str) -> impl Iterator<Item = (usize, &str)> {
    LineStarts::new(text)
        .enumerate()
        .map(|(n, (_, line))| (n + 1, line))
}

/// The 1-based byte column of `word` in `line`, where `word` is a slice of `line` (as
/// `split_whitespace` gives them); 1 when it is not.
pub fn column_of(line: &str, word: &str) -> usize {
    (word.as_ptr() as usize)
        .checked_sub(line.as_ptr() as usize)
        .filter(|&offset| offset + word.len() <= line.len())
        .map_or(1, |offset| offset + 1)
}

/// A number as a message shows it: as Rust writes it when that is short, else in scientific
/// notation (`1e308`, not 309 digits).
pub fn short_number(x: f64) -> String {
    let abs = x.abs();
    if x.is_finite() && abs != 0.0 && !(1e-4..1e9).contains(&abs) {
        format!("{x:e}")
    } else {
        format!("{x}")
    }
}

/// At most `max` characters of `text` for a message, marked when cut (a hostile input is
/// never echoed whole).
pub fn excerpt(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        None => text.to_owned(),
        Some((at, _)) => format!("{}... ({} bytes)", &text[..at], text.len()),
    }
}

/// `text` with control characters (a terminal's escape sequences, line breaks, ...) written
/// as `\u{..}` escapes, so a name read from a file cannot drive the terminal or split a line.
pub fn escape_controls(text: &str) -> std::borrow::Cow<'_, str> {
    if !text.chars().any(char::is_control) {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if c.is_control() {
            out.push_str(&format!("\\u{{{:x}}}", u32::from(c)));
        } else {
            out.push(c);
        }
    }
    std::borrow::Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    #[test]
    fn control_characters_are_escaped() {
        assert_eq!(escape_controls("plain"), "plain");
        assert_eq!(escape_controls("a\u{1b}[31mb\nc"), "a\\u{1b}[31mb\\u{a}c");
    }

    use super::*;

    #[test]
    fn any_line_end_and_no_phantom_last_line() {
        let got: Vec<(usize, &str)> = lines("a\r\nb\rc\nd").collect();
        assert_eq!(got, [(1, "a"), (2, "b"), (3, "c"), (4, "d")]);
        assert_eq!(lines("a\n").collect::<Vec<_>>(), [(1, "a")]);
        assert_eq!(lines("a\r").collect::<Vec<_>>(), [(1, "a")]);
        assert_eq!(lines("").count(), 0);
        assert_eq!(lines("\n\n").collect::<Vec<_>>(), [(1, ""), (2, "")]);
    }

    #[test]
    fn a_bom_is_dropped_and_invalid_bytes_are_located() {
        assert_eq!(decode(b"\xEF\xBB\xBFversion v1").ok(), Some("version v1"));
        let err = decode(b"ok\nline\r\nx\xFFy").err();
        assert_eq!(
            err.map(|e| e.to_string()).as_deref(),
            Some("3:2: not UTF-8 text (byte 0xff)")
        );
        assert_eq!(strip_bom("\u{feff}{}"), "{}");
    }

    #[test]
    fn numbers_and_excerpts_stay_short() {
        assert_eq!(short_number(1e308), "1e308");
        assert_eq!(short_number(0.2), "0.2");
        assert_eq!(short_number(-1.5), "-1.5");
        assert_eq!(short_number(1e-300), "1e-300");
        assert_eq!(short_number(0.0), "0");
        assert_eq!(short_number(f64::INFINITY), "inf");
        assert_eq!(excerpt("short", 10), "short");
        assert_eq!(excerpt(&"x".repeat(100), 5), "xxxxx... (100 bytes)");
    }
}
