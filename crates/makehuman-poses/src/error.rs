//! The one error type of this crate: what is wrong with a pose, expression or skeleton file,
//! and where.

/// A file of this crate's formats cannot be read: where (file, line:column or JSON pointer, as
/// precisely as known) and what ([`PoseErrorKind`]).
pub type PoseError = location::Located<PoseErrorKind>;

/// What is wrong. Every message is one line; values from the file are quoted shortened.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum PoseErrorKind {
    /// A line, token or value of the wrong shape.
    #[error("{0}")]
    Malformed(String),
    /// A name given twice where names must be unique.
    #[error("`{name}` is given again (first on line {first})")]
    Repeated {
        /// The name.
        name: String,
        /// The line it was first given on.
        first: usize,
    },
    /// Something required is absent (named in the message).
    #[error("{0} is missing")]
    Missing(String),
    /// A value outside its range (not finite, negative where it cannot be, ...).
    #[error("{0}")]
    OutOfRange(String),
    /// More than this reader accepts (the limit is in the message).
    #[error("{0}")]
    TooLarge(String),
    /// Not valid JSON (the JSON formats), as the parser says.
    #[error("{0}")]
    Json(String),
}

pub(crate) use location::text::column_of;

/// A value from the file, quoted for a message: at most 40 characters, control characters
/// escaped.
pub(crate) fn quoted(text: &str) -> String {
    location::text::escape_controls(&location::text::excerpt(text, 40)).into_owned()
}
