//! Errors of reading a G4MF file.

pub use location::Location;

/// A G4MF file could not be read: where (a byte offset in a container, a JSON pointer, or
/// line:column of the JSON text) and what ([`ReadErrorKind`]).
pub type ReadError = location::Located<ReadErrorKind>;

/// What went wrong, grouped by cause: I/O, container structure, JSON, references, limits.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ReadErrorKind {
    /// A file could not be read.
    #[error("cannot read {what}: {error}")]
    Io {
        /// Which file.
        what: String,
        /// The I/O error; quoted in the message, so not also a `source`.
        error: std::io::Error,
    },
    /// The file is glTF 2.0, not G4MF ([`crate::FileKind`]): a glTF reader reads it.
    #[error("the file is glTF 2.0, not G4MF")]
    Gltf,
    /// The `.g4b` container is malformed.
    #[error("{0}")]
    Container(String),
    /// The JSON is malformed or does not match the G4MF structure.
    #[error("{0}")]
    Json(String),
    /// A buffer's data cannot be found or decoded.
    #[error("{0}")]
    Buffer(String),
    /// A URI points somewhere we refuse to go.
    #[error("{0}")]
    Refused(String),
    /// A reference points past the end of its array.
    #[error("{0}")]
    Reference(String),
    /// An accessor cannot be read as asked.
    #[error("{0}")]
    Accessor(String),
    /// A size exceeds a limit of [`crate::ReadOptions`].
    #[error("{what} is {size} bytes, above the limit of {limit}")]
    Limit {
        /// What was too large.
        what: String,
        /// Its size.
        size: u64,
        /// The limit.
        limit: u64,
    },
}
