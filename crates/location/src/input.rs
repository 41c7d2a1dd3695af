//! Reading an input file whole, bounded: at most a limit of bytes whatever the file reports
//! (files growing while read included), and never more memory than that; and opening an input
//! at all: only regular files, refused before opening otherwise (a FIFO with no writer blocks
//! its opener forever, a device never ends, a directory is no input).

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

/// What a path is when it is not a regular file (`a FIFO`, `a directory`, ...), following
/// symbolic links; `None` for a regular file, or a path that cannot be examined (opening it
/// then says why).
pub fn not_regular(path: &Path) -> Option<&'static str> {
    let kind = std::fs::metadata(path).ok()?.file_type();
    kind_name(kind)
}

fn kind_name(kind: std::fs::FileType) -> Option<&'static str> {
    if kind.is_file() {
        return None;
    }
    if kind.is_dir() {
        return Some("a directory");
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if kind.is_fifo() {
            return Some("a FIFO");
        }
        if kind.is_char_device() || kind.is_block_device() {
            return Some("a device");
        }
        if kind.is_socket() {
            return Some("a socket");
        }
    }
    Some("not a regular file")
}

fn refusal(what: &str) -> std::io::Error {
    std::io::Error::new(
        std::io::ErrorKind::InvalidInput,
        if what.starts_with("not ") {
            what.to_owned()
        } else {
            format!("{what}, not a regular file")
        },
    )
}

/// Opens `path` for reading if it is a regular file: anything else (FIFO, device, directory,
/// socket) is refused before it is opened, as an `InvalidInput` error saying what it is, and
/// the opened file is examined again (a path swapped between the two looks is refused too).
pub fn open_regular(path: &Path) -> std::io::Result<std::fs::File> {
    if let Some(what) = not_regular(path) {
        return Err(refusal(what));
    }
    let file = std::fs::File::open(path)?;
    if let Some(what) = kind_name(file.metadata()?.file_type()) {
        return Err(refusal(what));
    }
    Ok(file)
}

/// Reads the regular file at `path` whole ([`open_regular`]), for readers with limits of their
/// own (`std::fs::read` that refuses FIFOs, devices and directories before opening them).
pub fn read_whole_regular(path: &Path) -> std::io::Result<Vec<u8>> {
    use std::io::Read;
    let mut file = open_regular(path)?;
    let mut bytes = Vec::new();
    file.read_to_end(&mut bytes)?;
    Ok(bytes)
}

/// Reads the regular file at `path` whole ([`open_regular`]), refusing it as soon as it is
/// found to hold more than `limit` bytes: the reported size is checked first, then the read
/// stops one byte past the limit, which also bounds a file growing while it is read.
pub fn read_bounded(path: &Path, limit: u64) -> Result<Vec<u8>, ReadError> {
    let file = open_regular(path)?;
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
    fn devices_fifos_and_directories_are_refused_before_opening() {
        // /dev/zero never ends; a FIFO with no writer would block `open` forever.
        let dir = std::env::temp_dir().join(format!("location-fifo-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let fifo = dir.join("pipe");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        assert!(made.unwrap().success());
        for (path, expected) in [
            (Path::new("/dev/zero"), "a device, not a regular file"),
            (fifo.as_path(), "a FIFO, not a regular file"),
            (dir.as_path(), "a directory, not a regular file"),
        ] {
            match read_bounded(path, 1 << 20) {
                Err(ReadError::Io(e)) => assert_eq!(e.to_string(), expected),
                other => panic!("expected a refusal, got {other:?}"),
            }
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
