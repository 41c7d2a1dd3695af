//! The input size limit and the one way the converter reads an input file: whole, bounded by
//! the limit whatever the file reports (pipes and devices too), as text with a byte-order mark
//! dropped and invalid UTF-8 located (the default is `options::DEFAULT_MAX_INPUT_BYTES`).

use crate::error::ConvertError;
use location::{Location, ReadError};
use std::path::Path;

/// Refuses an input file whose reported size is above `limit`, before anything reads it (so a
/// job with one huge file fails before its other files are parsed). [`read_input`] holds the
/// limit for files that report no size or grow.
pub fn check_input_size(path: &Path, limit: u64) -> Result<(), ConvertError> {
    match std::fs::metadata(path) {
        Ok(meta) if meta.is_file() && meta.len() > limit => Err(ConvertError::InputTooLarge {
            path: path.to_path_buf(),
            size: Some(meta.len()),
            limit,
        }),
        // Missing files are reported by the reader with its own message.
        _ => Ok(()),
    }
}

/// Reads an input file whole, at most `limit` bytes.
pub fn read_input(path: &Path, limit: u64) -> Result<Vec<u8>, ConvertError> {
    location::read_bounded(path, limit).map_err(|e| match e {
        ReadError::Io(source) => ConvertError::Input {
            location: Location::file(path),
            source,
        },
        ReadError::TooLarge { limit, reported } => ConvertError::InputTooLarge {
            path: path.to_path_buf(),
            size: reported,
            limit,
        },
    })
}

/// Reads a text input file whole, at most `limit` bytes, without its byte-order mark.
pub fn read_input_text(path: &Path, limit: u64) -> Result<String, ConvertError> {
    let bytes = read_input(path, limit)?;
    match location::text::decode(&bytes) {
        Ok(text) => Ok(text.to_owned()),
        Err(e) => Err(ConvertError::Syntax {
            location: e.location.in_file(path),
            message: format!("not UTF-8 text (byte 0x{:02x})", e.byte),
        }),
    }
}

/// Refuses a count of `what` above `limit`.
pub fn check_count(what: &'static str, count: usize, limit: usize) -> Result<(), ConvertError> {
    if count > limit {
        return Err(ConvertError::TooMany { what, count, limit });
    }
    Ok(())
}
