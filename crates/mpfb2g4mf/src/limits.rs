//! The input size limit: every file a conversion reads is checked against it before anything
//! reads it (the default is `options::DEFAULT_MAX_INPUT_BYTES`).

use crate::error::ConvertError;
use std::path::Path;

/// Refuses an input file larger than `limit` bytes, before anything reads it.
pub fn check_input_size(path: &Path, limit: u64) -> Result<(), ConvertError> {
    match std::fs::metadata(path) {
        Ok(meta) if meta.len() > limit => Err(ConvertError::InputTooLarge {
            path: path.to_path_buf(),
            size: meta.len(),
            limit,
        }),
        // Missing files are reported by the reader with its own message.
        _ => Ok(()),
    }
}
