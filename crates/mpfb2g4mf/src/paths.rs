//! When two paths name the same file: `out/../out/a.g4b` and `out/a.g4b`, or a folder reached
//! through a symbolic link, must be seen as one, so no output replaces another output, an
//! input, a manifest or a report.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// `path` made absolute against the current folder (nothing else changed).
fn absolute(path: &Path) -> PathBuf {
    if path.is_absolute() {
        path.to_path_buf()
    } else {
        std::env::current_dir().unwrap_or_default().join(path)
    }
}

/// Names files the way the file system does: folders through their real paths (symbolic links
/// followed, and each `..` taken after the links before it, as the kernel does), the file name
/// as given. Folders are looked up once.
#[derive(Debug, Default)]
pub struct FileKeys {
    folders: HashMap<PathBuf, PathBuf>,
    // Inputs shared by thousands of jobs are looked up once.
    known: HashMap<PathBuf, PathBuf>,
}

impl FileKeys {
    /// The key of `path`: equal keys are the same file.
    pub fn key(&mut self, path: &Path) -> PathBuf {
        if let Some(key) = self.known.get(path) {
            return key.clone();
        }
        // An existing file (an input) is its own real path.
        let key = std::fs::canonicalize(path).unwrap_or_else(|_| self.key_in_folder(path));
        self.known.insert(path.to_path_buf(), key.clone());
        key
    }

    /// The key of a file that need not exist, from its folder's real path and its name (one
    /// look-up per folder: a million outputs in one folder cost one).
    pub fn key_in_folder(&mut self, path: &Path) -> PathBuf {
        let path = absolute(path);
        match (path.parent(), path.file_name()) {
            (Some(folder), Some(name)) => self.real_folder(folder).join(name),
            // Ends in `..` or is the root: a folder.
            _ => self.real_folder(&path),
        }
    }

    /// The real path of folder `dir` (absolute), resolved from the longest part that exists.
    fn real_folder(&mut self, dir: &Path) -> PathBuf {
        if let Some(real) = self.folders.get(dir) {
            return real.clone();
        }
        let real = match std::fs::canonicalize(dir) {
            Ok(real) => real,
            Err(_) => match (dir.parent(), dir.file_name()) {
                (Some(parent), Some(name)) => self.real_folder(parent).join(name),
                (Some(parent), None) => {
                    // `parent/..`: the parent's real path, one up (a real path holds no links).
                    let mut real = self.real_folder(parent);
                    if dir.ends_with("..") {
                        real.pop();
                    }
                    real
                }
                (None, _) => dir.to_path_buf(),
            },
        };
        self.folders.insert(dir.to_path_buf(), real.clone());
        real
    }
}

/// A path a command reads or writes, and what it is, for messages.
#[derive(Debug, Clone)]
pub struct Role<'a> {
    /// `output of job 3`, `--report`, `the manifest`, `input of job 2`.
    pub what: String,
    /// The path.
    pub path: &'a Path,
    /// True when the command writes it.
    pub written: bool,
}

/// Two roles that name one file where at least one writes it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{first} and {second} are the same file {}: refusing to replace it", path.display())]
pub struct SameFile {
    /// The first role.
    pub first: String,
    /// The second role.
    pub second: String,
    /// The path as the second role gave it.
    pub path: PathBuf,
}

/// Refuses any file written by one role and also read or written by another.
pub fn check_distinct(roles: &[Role<'_>]) -> Result<(), SameFile> {
    let mut keys = FileKeys::default();
    let mut seen: HashMap<PathBuf, usize> = HashMap::with_capacity(roles.len());
    for (i, role) in roles.iter().enumerate() {
        let key = keys.key(role.path);
        if let Some(&first) = seen.get(&key) {
            if role.written || roles[first].written {
                return Err(SameFile {
                    first: roles[first].what.clone(),
                    second: role.what.clone(),
                    path: role.path.to_path_buf(),
                });
            }
            continue;
        }
        seen.insert(key, i);
    }
    Ok(())
}

/// Refuses an output (`what`: `the output`, `the picture`) that is one of `inputs`.
pub fn check_output_apart<'a>(
    what: &str,
    output: &'a Path,
    inputs: impl IntoIterator<Item = &'a Path>,
) -> Result<(), SameFile> {
    let mut roles = vec![Role {
        what: what.to_owned(),
        path: output,
        written: true,
    }];
    roles.extend(inputs.into_iter().map(|path| Role {
        what: "an input".into(),
        path,
        written: false,
    }));
    check_distinct(&roles)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dot_dot_and_links_name_one_file() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("out")).unwrap();
        let a = dir.path().join("out/a.g4b");
        let b = dir.path().join("out/../out/./a.g4b");
        let mut keys = FileKeys::default();
        assert_eq!(keys.key(&a), keys.key(&b));
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink(dir.path().join("out"), dir.path().join("link")).unwrap();
            assert_eq!(keys.key(&a), keys.key(&dir.path().join("link/a.g4b")));
            // `link/..` is the link target's parent, not the link's folder.
            std::fs::create_dir_all(dir.path().join("sub/deep")).unwrap();
            std::os::unix::fs::symlink(dir.path().join("sub/deep"), dir.path().join("ld")).unwrap();
            assert_eq!(
                keys.key_in_folder(&dir.path().join("ld/../new.g4b")),
                keys.key_in_folder(&dir.path().join("sub/new.g4b"))
            );
            assert_ne!(
                keys.key_in_folder(&dir.path().join("ld/../new.g4b")),
                keys.key_in_folder(&dir.path().join("new.g4b"))
            );
            // Below a folder that does not exist, `..` is taken by name.
            assert_eq!(
                keys.key_in_folder(&dir.path().join("none/../sub/new.g4b")),
                keys.key_in_folder(&dir.path().join("sub/new.g4b"))
            );
        }
        let roles = |second_written| {
            vec![
                Role {
                    what: "the manifest".into(),
                    path: &a,
                    written: false,
                },
                Role {
                    what: "--report".into(),
                    path: &b,
                    written: second_written,
                },
            ]
        };
        assert!(
            check_distinct(&roles(false)).is_ok(),
            "two readers are fine"
        );
        let err = check_distinct(&roles(true)).unwrap_err();
        assert_eq!(
            (err.first.as_str(), err.second.as_str()),
            ("the manifest", "--report")
        );
    }
}
