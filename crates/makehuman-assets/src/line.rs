//! One line of a `key value...` asset file, as both readers see it: errors at a word's column
//! (or the whole line), finite numbers, and keys that take exactly one value.

use crate::error::{AssetError, AssetErrorKind, column_of};
use location::text::excerpt;

/// A line (1-based number `n`) whose words are slices of `line`.
pub(crate) struct Line<'a> {
    /// The 1-based line number.
    pub(crate) n: usize,
    /// The line's text.
    pub(crate) line: &'a str,
}

impl<'a> Line<'a> {
    /// An error at `word`'s column.
    pub(crate) fn err(&self, word: &str, kind: AssetErrorKind) -> AssetError {
        AssetError::at(self.n, column_of(self.line, word), kind)
    }

    /// An error about the whole line (column 1).
    pub(crate) fn whole(&self, kind: AssetErrorKind) -> AssetError {
        AssetError::at(self.n, 1, kind)
    }

    /// A finite number.
    pub(crate) fn finite(&self, word: &str) -> Result<f64, AssetError> {
        word.parse::<f64>()
            .ok()
            .filter(|v| v.is_finite())
            .ok_or_else(|| {
                self.err(
                    word,
                    AssetErrorKind::Malformed(format!(
                        "`{}` is not a finite number",
                        excerpt(word, 24)
                    )),
                )
            })
    }

    /// Exactly one value after the key.
    pub(crate) fn single(
        &self,
        key: &str,
        args: &[&'a str],
        what: &str,
    ) -> Result<&'a str, AssetError> {
        match args {
            [one] => Ok(one),
            _ => Err(self.whole(AssetErrorKind::Malformed(format!(
                "expected `{key} {what}`"
            )))),
        }
    }
}
