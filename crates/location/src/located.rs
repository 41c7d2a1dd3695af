//! `Located<K>`: the one located error type of the workspace, a [`Location`] and what went
//! wrong there (each crate's kind enum), displayed as `location: kind`.

use crate::Location;
use std::fmt;
use std::path::PathBuf;

/// An error of kind `K` at a place in an input file. Each crate names its own, e.g.
/// `pub type RigError = Located<RigErrorKind>;`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Located<K> {
    /// Where, as precisely as the failing step knew it. Boxed so `Result<_, Located<K>>`
    /// stays small on the success path.
    pub location: Box<Location>,
    /// What is wrong.
    pub kind: K,
}

impl<K> Located<K> {
    /// An error of `kind` at `location`.
    pub fn new(location: Location, kind: K) -> Self {
        Self {
            location: Box::new(location),
            kind,
        }
    }

    /// An error of `kind` at 1-based `line` and `column`.
    pub fn at(line: usize, column: usize, kind: K) -> Self {
        Self::new(Location::line_column(line, column), kind)
    }

    /// The same error, in `file`.
    pub fn with_file(mut self, file: impl Into<PathBuf>) -> Self {
        self.location.file = Some(file.into());
        self
    }
}

impl<K: fmt::Display> fmt::Display for Located<K> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.location, self.kind)
    }
}

/// The chain goes on from the kind: a kind that carries its cause (an I/O error) says so
/// through its own `source`.
impl<K: std::error::Error + 'static> std::error::Error for Located<K> {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.kind.source()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug)]
    struct Kind(Option<std::io::Error>);

    impl fmt::Display for Kind {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("broken")
        }
    }

    impl std::error::Error for Kind {
        fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
            self.0.as_ref().map(|e| e as _)
        }
    }

    #[test]
    fn displays_location_then_kind() {
        let e = Located::at(3, 7, Kind(None)).with_file("a.obj");
        assert_eq!(e.to_string(), "a.obj:3:7: broken");
        let e = Located::new(Location::default(), Kind(None));
        assert_eq!(e.to_string(), "<input>: broken");
        let e = Located::new(Location::pointer("/bones/0"), Kind(None)).with_file("r.json");
        assert_eq!(e.to_string(), "r.json: /bones/0: broken");
    }

    #[test]
    fn source_is_the_kinds() {
        use std::error::Error;
        assert!(Located::at(1, 1, Kind(None)).source().is_none());
        let io = std::io::Error::other("disk");
        let e = Located::at(1, 1, Kind(Some(io)));
        assert_eq!(e.source().map(|s| s.to_string()).as_deref(), Some("disk"));
    }

    #[test]
    fn stays_small() {
        assert!(std::mem::size_of::<Located<()>>() <= std::mem::size_of::<usize>());
    }
}
