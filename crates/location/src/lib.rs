//! `location`: where in an input file a problem is, the one location type every library
//! error of the workspace carries: the file, and as precisely as the failing step knew it a
//! 1-based line and column, an RFC 6901 JSON pointer, or a byte offset.
//!
//! Displayed as `file:line:column: /pointer` (each part only when known), `file: byte N`
//! for binary containers, and `<input>` when nothing is known. [`Located`] pairs a location
//! with what went wrong there; each library's located error (`RigError`, `ReadError`, ...)
//! is one.

use std::borrow::Cow;
use std::fmt;
use std::path::{Path, PathBuf};

pub mod input;
mod located;
pub mod text;

pub use input::{
    ReadError, not_regular, open_regular, read_bounded, read_text_bounded, read_whole_regular,
};
pub use located::Located;
pub mod near;

/// A place in an input file.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Location {
    /// The file, when the input came from one.
    pub file: Option<PathBuf>,
    /// 1-based line and column (in bytes), for text.
    pub line_column: Option<(usize, usize)>,
    /// An RFC 6901 JSON pointer to the offending value.
    pub pointer: Option<String>,
    /// A byte offset, for binary containers.
    pub byte: Option<u64>,
}

impl Location {
    /// A location holding only a JSON pointer.
    pub fn pointer(pointer: impl Into<String>) -> Self {
        Self {
            pointer: Some(pointer.into()),
            ..Self::default()
        }
    }

    /// A location holding only a line and column.
    pub fn line_column(line: usize, column: usize) -> Self {
        Self {
            line_column: Some((line, column)),
            ..Self::default()
        }
    }

    /// A location holding only a byte offset.
    pub fn byte(offset: u64) -> Self {
        Self {
            byte: Some(offset),
            ..Self::default()
        }
    }

    /// The file as a whole.
    pub fn file(file: impl Into<PathBuf>) -> Self {
        Self {
            file: Some(file.into()),
            ..Self::default()
        }
    }

    /// The same place, in `file`.
    pub fn in_file(mut self, file: impl Into<PathBuf>) -> Self {
        self.file = Some(file.into());
        self
    }

    /// The file, if known.
    pub fn file_path(&self) -> Option<&Path> {
        self.file.as_deref()
    }
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut wrote = false;
        if let Some(file) = &self.file {
            write!(f, "{}", file.display())?;
            wrote = true;
        }
        if let Some((line, column)) = self.line_column {
            if wrote {
                f.write_str(":")?;
            }
            write!(f, "{line}:{column}")?;
            wrote = true;
        }
        if let Some(pointer) = &self.pointer {
            if wrote {
                f.write_str(": ")?;
            }
            // An empty pointer is the whole document; say so, so it is visible.
            if pointer.is_empty() {
                f.write_str("(document root)")?;
            } else {
                f.write_str(pointer)?;
            }
            wrote = true;
        }
        if let Some(byte) = self.byte {
            if wrote {
                f.write_str(": ")?;
            }
            write!(f, "byte {byte}")?;
            wrote = true;
        }
        if !wrote {
            f.write_str("<input>")?;
        }
        Ok(())
    }
}

/// Builds an RFC 6901 JSON pointer from reference tokens, escaping `~` and `/`.
pub fn json_pointer<'a>(tokens: impl IntoIterator<Item = &'a str>) -> String {
    let mut out = String::new();
    for token in tokens {
        out.push('/');
        out.push_str(&pointer_token(token));
    }
    out
}

/// One reference token of an RFC 6901 JSON pointer: `~` written `~0` and `/` written `~1`,
/// borrowed when there is nothing to escape (most keys). Every pointer the workspace builds
/// escapes its tokens here.
pub fn pointer_token(token: &str) -> Cow<'_, str> {
    if token.contains(['~', '/']) {
        // `~` first, so the `~` of each `~1` is not escaped again.
        Cow::Owned(token.replace('~', "~0").replace('/', "~1"))
    } else {
        Cow::Borrowed(token)
    }
}

/// The 1-based line and column of byte `offset` in `text`.
pub fn line_column_at(text: &str, offset: usize) -> (usize, usize) {
    let offset = offset.min(text.len());
    let before = &text.as_bytes()[..offset];
    let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
    let line_start = before
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |p| p + 1);
    (line, offset - line_start + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pointer_escapes_tilde_and_slash() {
        assert_eq!(
            json_pointer(["bones", "a/b~c", "head"]),
            "/bones/a~1b~0c/head"
        );
        assert_eq!(json_pointer([]), "");
        assert_eq!(pointer_token("~1/"), "~01~1");
        assert!(matches!(pointer_token("head"), Cow::Borrowed("head")));
    }

    #[test]
    fn line_column_counts_from_one() {
        let text = "ab\ncd\n";
        assert_eq!(line_column_at(text, 0), (1, 1));
        assert_eq!(line_column_at(text, 1), (1, 2));
        assert_eq!(line_column_at(text, 3), (2, 1));
        assert_eq!(line_column_at(text, 4), (2, 2));
    }

    #[test]
    fn display_joins_the_parts_it_has() {
        let loc = Location {
            file: Some("rig.json".into()),
            line_column: Some((3, 7)),
            pointer: Some("/bones/root/head".into()),
            byte: None,
        };
        assert_eq!(loc.to_string(), "rig.json:3:7: /bones/root/head");
        assert_eq!(Location::pointer("/x").to_string(), "/x");
        assert_eq!(
            Location::byte(8).in_file("a.g4b").to_string(),
            "a.g4b: byte 8"
        );
        assert_eq!(Location::line_column(2, 5).to_string(), "2:5");
        assert_eq!(Location::file("a.obj").to_string(), "a.obj");
        assert_eq!(Location::default().to_string(), "<input>");
    }
}
