//! Errors of reading a G4MF file.

use std::path::PathBuf;

/// Where in a G4MF file a problem is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Position {
    /// A byte offset in a `.g4b` container.
    Byte(u64),
    /// A JSON pointer into the document.
    Pointer(String),
    /// The JSON text at a 1-based line and column.
    LineColumn(usize, usize),
    /// The file as a whole.
    File,
}

impl std::fmt::Display for Position {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Position::Byte(b) => write!(f, "byte {b}"),
            Position::Pointer(p) => f.write_str(p),
            Position::LineColumn(l, c) => write!(f, "{l}:{c}"),
            Position::File => f.write_str("file"),
        }
    }
}

/// A G4MF file could not be read.
#[derive(Debug, thiserror::Error)]
#[error("{}{position}: {kind}", file.as_ref().map(|f| format!("{}: ", f.display())).unwrap_or_default())]
pub struct ReadError {
    /// The file, when known.
    pub file: Option<PathBuf>,
    /// Where.
    pub position: Position,
    /// What.
    pub kind: ReadErrorKind,
}

impl ReadError {
    pub(crate) fn new(position: Position, kind: ReadErrorKind) -> Self {
        Self {
            file: None,
            position,
            kind,
        }
    }

    /// Attaches the file.
    pub fn with_file(mut self, file: impl Into<PathBuf>) -> Self {
        self.file = Some(file.into());
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
    #[error(
        "{what} is {size} bytes, above the limit of {limit} (raise it with the reader's options)"
    )]
    Limit {
        /// What was too large.
        what: String,
        /// Its size.
        size: u64,
        /// The limit.
        limit: u64,
    },
}
