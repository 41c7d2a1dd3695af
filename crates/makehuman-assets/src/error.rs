//! The one error type of this crate: what is wrong with an asset file, and where.

/// An asset file cannot be read or used: where (file, line:column, as precisely as known) and
/// what ([`AssetErrorKind`]).
pub type AssetError = location::Located<AssetErrorKind>;

/// What is wrong with an asset file. Every message is one line; values from the file are
/// quoted shortened ([`location::text::excerpt`]).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum AssetErrorKind {
    /// A line or value of the wrong shape.
    #[error("{0}")]
    Malformed(String),
    /// A single-valued key given twice: which value was meant is unknown.
    #[error("`{key}` is given again (first on line {first})")]
    Repeated {
        /// The key.
        key: String,
        /// The line it was first given on.
        first: usize,
    },
    /// Something required is absent (named in the message).
    #[error("{0} is missing")]
    Missing(String),
    /// A value outside its range, or a vertex index past the body's vertices.
    #[error("{0}")]
    OutOfRange(String),
    /// More entries than this reader accepts (the limit is in the message).
    #[error("{0}")]
    TooLarge(String),
    /// A feature of the format this reader does not implement (shear fitting, another base
    /// mesh).
    #[error("{0}")]
    Unsupported(String),
}

pub(crate) use location::text::column_of;

#[cfg(test)]
mod tests {
    use super::*;
    use location::Location;

    #[test]
    fn display_is_location_then_message() {
        let e = AssetError::at(
            3,
            7,
            AssetErrorKind::Repeated {
                key: "name".into(),
                first: 1,
            },
        )
        .with_file("a.mhclo");
        assert_eq!(
            e.to_string(),
            "a.mhclo:3:7: `name` is given again (first on line 1)"
        );
        let e = AssetError::new(
            Location::default(),
            AssetErrorKind::Missing("`name`".into()),
        );
        assert_eq!(e.to_string(), "<input>: `name` is missing");
    }

    #[test]
    fn columns_count_bytes_from_one() {
        let line = "  ab cd";
        let word = line.split_whitespace().nth(1).unwrap_or_default();
        assert_eq!(column_of(line, word), 6);
        assert_eq!(column_of(line, &String::from("elsewhere")), 1);
    }
}
