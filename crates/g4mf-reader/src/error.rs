//! Errors of reading a G4MF file.

pub use location::Location;
use std::path::PathBuf;

/// A G4MF file could not be read.
#[derive(Debug, thiserror::Error)]
#[error("{location}: {kind}")]
pub struct ReadError {
    /// Where: a byte offset in a container, a JSON pointer, or line:column of the JSON text.
    /// Boxed so `Result<_, ReadError>` stays small on the success path.
    pub location: Box<Location>,
    /// What.
    pub kind: ReadErrorKind,
}

impl ReadError {
    pub(crate) fn new(location: Location, kind: ReadErrorKind) -> Self {
        Self {
            location: Box::new(location),
            kind,
        }
    }

    /// Attaches the file.
    pub fn with_file(mut self, file: impl Into<PathBuf>) -> Self {
        self.location.file = Some(file.into());
        self
    }
}

/// What went wrong, grouped by cause: I/O, container structure, JSON, references, limits.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ReadErrorKind {
    /// A file could not be read.
    #[error("cannot read {what}: {source}")]
    Io {
        /// Which file.
        what: String,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
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
