//! Temporary files on SIGINT and SIGTERM: every temporary output file is registered while it
//! exists, and the CLI's handler ([`install`]) removes them all before the process exits, so
//! an interrupted batch leaves the previous outputs and nothing else. Files a killed process
//! (SIGKILL, power loss) could not remove are found later by [`remove_stale`].

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Duration;

/// The prefix and suffix of our temporary files (stale-file clean-up recognises them).
pub const TEMP_PREFIX: &str = ".mpfb2g4mf-";
/// See [`TEMP_PREFIX`].
pub const TEMP_SUFFIX: &str = ".part";

/// Temporary files that exist now. Creation happens under this lock (see [`create_temp`]), so
/// the handler never misses a file created but not yet registered.
static LIVE: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

fn live() -> std::sync::MutexGuard<'static, Vec<PathBuf>> {
    LIVE.lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Creates a temporary file with `builder` in `folder`, registered for removal on a signal.
pub fn create_temp(
    builder: &tempfile::Builder<'_, '_>,
    folder: &Path,
) -> std::io::Result<tempfile::NamedTempFile> {
    let mut live = live();
    let file = builder.tempfile_in(folder)?;
    live.push(file.path().to_path_buf());
    Ok(file)
}

/// Forgets a temporary file (renamed into place or removed).
pub fn unregister(path: &Path) {
    live().retain(|p| p != path);
}

/// Registers a file that is of no use until a later step (a new `.g4tf`'s buffer before the
/// `.g4tf` is in place): a signal removes it.
pub fn register(path: &Path) {
    live().push(path.to_path_buf());
}

/// Renames `file` to `path` and forgets it and `also` (files the renamed one makes useful),
/// all under the lock: a signal removes them before the rename or none of them after it.
pub fn persist(
    file: tempfile::NamedTempFile,
    path: &Path,
    also: &[PathBuf],
) -> std::io::Result<()> {
    let mut live = live();
    let temp = file.path().to_path_buf();
    let result = file.persist(path).map(drop).map_err(|e| e.error);
    // On error the temporary file was dropped (removed) with the error.
    live.retain(|p| *p != temp && (result.is_err() || !also.contains(p)));
    result
}

/// Installs the SIGINT/SIGTERM handler: it removes every registered temporary file, says so
/// on stderr and exits with 130. The lock is held until the exit, so no new temporary file is
/// created after the removal.
#[cfg(feature = "cli")]
pub fn install() -> Result<(), ctrlc::Error> {
    ctrlc::set_handler(|| {
        let live = live();
        for path in live.iter() {
            let _ = std::fs::remove_file(path);
        }
        eprintln!(
            "mpfb2g4mf: interrupted; removed {} temporary file{}, earlier outputs are unchanged",
            live.len(),
            if live.len() == 1 { "" } else { "s" }
        );
        std::process::exit(130);
    })
}

/// The reader of our output has gone (a closed pipe: `mpfb2g4mf data status --json | head`):
/// removes every registered temporary file and exits with 141, as a program the pipe's
/// signal ends does, printing nothing (there is no one to read it). Earlier outputs are
/// unchanged.
pub fn end_on_closed_pipe() -> ! {
    let live = live();
    for path in live.iter() {
        let _ = std::fs::remove_file(path);
    }
    std::process::exit(CLOSED_PIPE_EXIT)
}

/// The exit code of a process whose output pipe was closed (128 + SIGPIPE, as shells report a
/// program that signal ended).
pub const CLOSED_PIPE_EXIT: i32 = 141;

/// True when a panic's text is the standard library's "failed printing to stdout/stderr"
/// over a closed pipe (`println!`, `eprintln!`): the reader went away, nothing is wrong.
pub fn is_closed_pipe_panic(text: &str) -> bool {
    text.contains("failed printing to std") && text.contains("Broken pipe")
}

/// Temporary files of ours older than this are left from a killed run (a write takes seconds).
pub const STALE_AFTER: Duration = Duration::from_secs(3600);

/// Removes our temporary files in `folder` last modified more than `older_than` ago (left by a
/// process that was killed), and returns them.
pub fn remove_stale(folder: &Path, older_than: Duration) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(folder) else {
        return Vec::new();
    };
    let now = std::time::SystemTime::now();
    entries
        .flatten()
        .filter(|e| {
            let name = e.file_name();
            let name = name.to_string_lossy();
            name.starts_with(TEMP_PREFIX) && name.ends_with(TEMP_SUFFIX)
        })
        .filter(|e| {
            e.metadata()
                .and_then(|m| m.modified())
                .is_ok_and(|t| now.duration_since(t).is_ok_and(|age| age > older_than))
        })
        .map(|e| e.path())
        .filter(|p| std::fs::remove_file(p).is_ok())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_old_temporary_files_of_ours_are_stale() {
        let dir = tempfile::tempdir().unwrap();
        let old = std::time::SystemTime::now() - Duration::from_secs(7200);
        for name in [
            ".mpfb2g4mf-a.part",
            ".mpfb2g4mf-b.part",
            "user.part",
            "x.g4b",
        ] {
            let path = dir.path().join(name);
            std::fs::write(&path, b"x").unwrap();
            if name != ".mpfb2g4mf-b.part" {
                std::fs::File::options()
                    .write(true)
                    .open(&path)
                    .unwrap()
                    .set_modified(old)
                    .unwrap();
            }
        }
        let removed = remove_stale(dir.path(), STALE_AFTER);
        assert_eq!(removed, [dir.path().join(".mpfb2g4mf-a.part")]);
        let mut left: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        left.sort();
        assert_eq!(left, [".mpfb2g4mf-b.part", "user.part", "x.g4b"]);
    }
}
