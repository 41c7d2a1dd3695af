//! Writing into a fetch's staging folder under caps: the budget of entries and bytes, one file
//! copied no further than its cap with Git LFS pointers held back, a file written synced, and
//! a folder's regular files listed.

use super::{FetchError, MAX_FILE, io};
use crate::assets_lock::{LfsPointer, MAX_LFS_POINTER};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

/// How unpacking went.
#[derive(Debug, Default)]
pub(crate) struct Unpacked {
    /// Files written.
    pub(crate) written: usize,
    /// Git LFS pointers found instead of files (not written): each one's path in the
    /// destination and the pointer, `None` when it does not read as one.
    pub(crate) pointers: Vec<(String, Option<LfsPointer>)>,
}

/// What [`copy_entry`] did with an entry.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Copied {
    /// Written, this many bytes.
    Written(u64),
    /// A Git LFS pointer, not written (`None`: it does not read as one).
    Pointer(Option<LfsPointer>),
}

impl Unpacked {
    pub(super) fn count(&mut self, relative: &str, copied: Copied) {
        match copied {
            Copied::Written(_) => self.written += 1,
            Copied::Pointer(pointer) => self.pointers.push((relative.to_owned(), pointer)),
        }
    }
}

/// Caps on what one fetch unpacks.
#[derive(Debug)]
pub(super) struct Budget {
    pub(super) max_entries: usize,
    max_bytes: u64,
    entries: usize,
    bytes: u64,
}

impl Budget {
    pub(super) fn new(max_entries: usize, max_bytes: u64) -> Self {
        Self {
            max_entries,
            max_bytes,
            entries: 0,
            bytes: 0,
        }
    }

    pub(super) fn entry(&mut self, source: &str) -> Result<(), FetchError> {
        self.entries += 1;
        if self.entries > self.max_entries {
            return Err(FetchError::TooMany {
                what: source.to_owned(),
                limit: self.max_entries,
            });
        }
        Ok(())
    }

    pub(super) fn bytes(&mut self, n: u64, what: &str) -> Result<(), FetchError> {
        self.bytes += n;
        if self.bytes > self.max_bytes {
            return Err(FetchError::TooLarge {
                what: format!("the unpacked total (at {what})"),
                limit: self.max_bytes,
            });
        }
        Ok(())
    }
}

/// The first bytes of a Git LFS pointer file.
const LFS_POINTER: &[u8] = b"version https://git-lfs.github.com/spec/";

/// Copies at most `cap` bytes of `reader` to `path`, synced, unless it is a Git LFS pointer
/// (then nothing is written and the pointer is returned).
pub(super) fn copy_entry(
    reader: &mut dyn Read,
    path: &Path,
    what: &str,
    budget: &mut Budget,
    cap: u64,
) -> Result<Copied, FetchError> {
    let mut limited = reader.take(cap + 1);
    let mut head = Vec::with_capacity(LFS_POINTER.len());
    (&mut limited)
        .take(LFS_POINTER.len() as u64)
        .read_to_end(&mut head)
        .map_err(io(what))?;
    if head.starts_with(LFS_POINTER) {
        (&mut limited)
            .take(MAX_LFS_POINTER as u64)
            .read_to_end(&mut head)
            .map_err(io(what))?;
        return Ok(Copied::Pointer(LfsPointer::parse(&head)));
    }
    // Errors name the entry (`what`), never the hidden staging folder it is written into.
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).map_err(io(what))?;
    }
    let mut file = std::fs::File::create(path).map_err(io(what))?;
    file.write_all(&head).map_err(io(what))?;
    let rest = std::io::copy(&mut limited, &mut file).map_err(io(what))?;
    let size = head.len() as u64 + rest;
    if size > cap {
        drop(file);
        let _ = std::fs::remove_file(path);
        return Err(FetchError::TooLarge {
            what: what.to_owned(),
            limit: cap,
        });
    }
    budget.bytes(size, what)?;
    file.sync_all().map_err(io(what))?;
    Ok(Copied::Written(size))
}

/// Writes `reader` to `path` (in the staging folder), synced; errors name `name`.
pub(super) fn write_synced(
    path: &Path,
    name: &str,
    reader: &mut dyn Read,
) -> Result<(), FetchError> {
    let mut budget = Budget::new(1, MAX_FILE);
    copy_entry(reader, path, name, &mut budget, MAX_FILE).map(|_| ())
}

/// Every regular file under `dir` (links are not followed: a loop, or a link out of the
/// folder, is not part of it), relative with `/` separators, at most `budget`'s entries.
pub(super) fn files_of(
    dir: &Path,
    budget: &mut Budget,
) -> Result<Vec<(String, PathBuf)>, FetchError> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    let source = dir.display().to_string();
    while let Some(current) = stack.pop() {
        let entries = std::fs::read_dir(&current).map_err(io(&current))?;
        for entry in entries {
            let entry = entry.map_err(io(&current))?;
            let kind = entry.file_type().map_err(io(entry.path()))?;
            let path = entry.path();
            if kind.is_dir() {
                stack.push(path);
            } else if kind.is_file() {
                budget.entry(&source)?;
                if let Some(name) = crate::places::relative_slash(&path, dir) {
                    out.push((name, path));
                }
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tmp() -> tempfile::TempDir {
        tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn lfs_pointers_and_oversized_entries_are_not_written_and_budgets_hold() {
        let tmp = tmp();
        let mut budget = Budget::new(10, 1 << 20);
        let pointer = b"version https://git-lfs.github.com/spec/v1\noid sha256:00\nsize 12\n";
        let path = tmp.path().join("a/x.png");
        assert_eq!(
            copy_entry(&mut &pointer[..], &path, "x.png", &mut budget, 1024).ok(),
            Some(Copied::Pointer(None))
        );
        assert!(!path.exists());
        let mut endless = std::io::repeat(7);
        assert!(matches!(
            copy_entry(
                &mut endless,
                &tmp.path().join("big"),
                "big",
                &mut budget,
                1 << 16
            ),
            Err(FetchError::TooLarge { .. })
        ));
        assert!(
            !tmp.path().join("big").exists(),
            "an oversized file is removed"
        );
        // The unpacked total and the entry count are capped too.
        let mut small = Budget::new(2, 100);
        assert!(small.bytes(60, "a").is_ok());
        assert!(matches!(
            small.bytes(60, "b"),
            Err(FetchError::TooLarge { .. })
        ));
        assert!(small.entry("s").is_ok() && small.entry("s").is_ok());
        let err = small.entry("s.zip").err().map(|e| e.to_string());
        assert_eq!(err.as_deref(), Some("s.zip has more than 2 entries"));
    }
}
