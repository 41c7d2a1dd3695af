//! Errors of reading an OBJ mesh or a vertex-group file.

pub use location::Location;

/// A mesh or vertex-group file could not be read: where (`line:column`, 1-based, for OBJ text,
/// a JSON pointer for vertex-group files) and what ([`MeshErrorKind`]).
pub type MeshError = location::Located<MeshErrorKind>;

/// What is wrong with a mesh input.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum MeshErrorKind {
    /// The file could not be read (the I/O error is quoted in the message, so not also a
    /// `source`).
    #[error("cannot read the file: {0}")]
    Io(std::io::Error),
    /// A line is not valid UTF-8.
    #[error("the line is not valid UTF-8")]
    NotUtf8,
    /// A number could not be parsed.
    #[error("`{text}` is not a number (expected {expected})")]
    BadNumber {
        /// The text found.
        text: String,
        /// What was expected.
        expected: &'static str,
    },
    /// A number is NaN or infinite, or too large for the f32 it is stored as.
    #[error("`{text}` is not a finite number in f32's range")]
    NonFinite {
        /// The text found.
        text: String,
    },
    /// A statement has too few values.
    #[error("`{keyword}` needs at least {needed} values, found {found}")]
    TooFewValues {
        /// The statement keyword.
        keyword: &'static str,
        /// How many it needs.
        needed: usize,
        /// How many were found.
        found: usize,
    },
    /// A face corner is not `v`, `v/vt`, `v//vn` or `v/vt/vn`.
    #[error("`{text}` is not a face corner (expected v, v/vt, v//vn or v/vt/vn)")]
    BadCorner {
        /// The text found.
        text: String,
    },
    /// An index is zero (OBJ indices start at 1) or out of range.
    #[error("{what} index {index} is out of range (the file has {count} so far)")]
    IndexOutOfRange {
        /// `vertex`, `texture coordinate` or `normal`.
        what: &'static str,
        /// The index as written.
        index: i64,
        /// How many such elements precede this line.
        count: usize,
    },
    /// A vertex-group file is malformed.
    #[error("{0}")]
    Groups(String),
    /// An input exceeds a limit.
    #[error("{what} exceeds the limit of {limit}")]
    Limit {
        /// What was too large.
        what: &'static str,
        /// The limit.
        limit: usize,
    },
}
