//! When two paths name the same file: `out/../out/a.g4b` and `out/a.g4b`, or a folder reached
//! through a symbolic link, must be seen as one, so no output replaces another output, an
//! input, a manifest or a report.

use std::collections::HashMap;
use std::path::{Component, Path, PathBuf};

/// `path` made absolute (against the current folder) with `.` and `..` resolved by name.
pub fn lexical(path: &Path) -> PathBuf {
    let absolute = if path.is_absolute() {
        path.to_path_buf()
    } else {
        std::env::current_dir().unwrap_or_default().join(path)
    };
    let mut out = PathBuf::new();
    for component in absolute.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

/// Names files the way the file system does: the folder through its real path (symbolic
/// links followed) when it exists, the file name as given. Folders are looked up once.
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
        let key = self.look_up(path);
        self.known.insert(path.to_path_buf(), key.clone());
        key
    }

    fn look_up(&mut self, path: &Path) -> PathBuf {
        // An existing file (an input) is its own real path.
        if let Ok(real) = std::fs::canonicalize(path) {
            return real;
        }
        let path = lexical(path);
        let (Some(folder), Some(name)) = (path.parent(), path.file_name()) else {
            return path;
        };
        let folder = self
            .folders
            .entry(folder.to_path_buf())
            .or_insert_with(|| std::fs::canonicalize(folder).unwrap_or_else(|_| folder.into()))
            .clone();
        folder.join(name)
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
