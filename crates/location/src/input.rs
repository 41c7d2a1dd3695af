//! Reading an input file whole, bounded: at most a limit of bytes whatever the file reports
//! (pipes, `/dev/zero` and files growing while read included), and never more memory than that.

use std::io::Read;
use std::path::Path;

/// Why a bounded read failed.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    /// The file cannot be opened or read.
    #[error("{0}")]
    Io(#[from] std::io::Error),
    /// The file holds more than the limit (it was not read past it).
    #[error("larger than the limit of {limit} bytes")]
    TooLarge {
        /// The limit in bytes.
        limit: u64,
        /// The size the file reports, when it reports one (pipes and devices do not).
        reported: Option<u64>,
    },
}

/// Reads the file at `path` whole, refusing it as soon as it is found to hold more than
/// `limit` bytes: the reported size is checked first, then the read stops one byte past the
/// limit, which also bounds pipes and devices that report no size.
pub fn read_bounded(path: &Path, limit: u64) -> Result<Vec<u8>, ReadError> {
    let file = std::fs::File::open(path)?;
    let reported = file
        .metadata()
        .ok()
        .filter(|m| m.is_file())
        .map(|m| m.len());
    if let Some(size) = reported.filter(|&s| s > limit) {
        return Err(ReadError::TooLarge {
            limit,
            reported: Some(size),
        });
    }
    // Reserve what the file reports (never more than the limit); grow only as bytes come.
    let mut bytes = Vec::with_capacity(reported.unwrap_or(0).min(limit) as usize);
    file.take(limit.saturating_add(1)).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > limit {
        return Err(ReadError::TooLarge {
            limit,
            reported: None,
        });
    }
    Ok(bytes)
}

impl From<ReadError> for std::io::Error {
    fn from(e: ReadError) -> Self {
        match e {
            ReadError::Io(e) => e,
            e @ ReadError::TooLarge { .. } => {
                std::io::Error::new(std::io::ErrorKind::FileTooLarge, e.to_string())
            }
        }
    }
}

/// [`read_bounded`] as text without its byte-order mark, for libraries whose errors carry an
/// I/O cause: too large is `FileTooLarge`, invalid UTF-8 `InvalidData` saying where.
pub fn read_text_bounded(path: &Path, limit: u64) -> std::io::Result<String> {
    let bytes = read_bounded(path, limit)?;
    match crate::text::decode(&bytes) {
        Ok(text) => Ok(text.to_owned()),
        Err(e) => Err(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            e.to_string(),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_within_the_limit_are_read_and_larger_ones_refused() {
        let dir = std::env::temp_dir().join(format!("location-input-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("ten");
        std::fs::write(&path, b"0123456789").unwrap();
        assert_eq!(read_bounded(&path, 10).unwrap(), b"0123456789");
        assert!(matches!(
            read_bounded(&path, 9),
            Err(ReadError::TooLarge {
                limit: 9,
                reported: Some(10)
            })
        ));
        assert!(matches!(
            read_bounded(&dir.join("missing"), 9),
            Err(ReadError::Io(_))
        ));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[cfg(unix)]
    #[test]
    fn endless_devices_stop_at_the_limit() {
        // /dev/zero reports no size and never ends: the read must stop one byte past the limit.
        match read_bounded(Path::new("/dev/zero"), 1 << 20) {
            Err(ReadError::TooLarge {
                limit,
                reported: None,
            }) => assert_eq!(limit, 1 << 20),
            other => panic!("expected TooLarge, got {other:?}"),
        }
    }
}
