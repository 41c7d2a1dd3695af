//! The targets folder indexed by base name (`l-upperarm-scale-depth-incr`), the way `.mhm`
//! files and MPFB presets name targets: MakeHuman's modifier groups and MPFB's folders differ,
//! so the name, not the path, is what identifies a target.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Every target file under a folder, by base name.
#[derive(Debug, Clone, Default)]
pub struct TargetIndex {
    root: PathBuf,
    by_name: BTreeMap<String, Vec<PathBuf>>,
}

/// A target name that is not in the index, or is there more than once.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum LookupError {
    /// No target has this base name.
    #[error("no target named `{name}`{near}")]
    Unknown {
        /// The name asked for.
        name: String,
        /// Near names (` (did you mean ...?)`), or empty.
        near: String,
    },
    /// Several files have this base name (MakeHuman's expression units exist per race).
    #[error("the target name `{name}` is ambiguous: {}", paths.iter().map(|p| p.display().to_string()).collect::<Vec<_>>().join(", "))]
    Ambiguous {
        /// The name.
        name: String,
        /// Its files, relative to the targets folder.
        paths: Vec<PathBuf>,
    },
}

/// The base name of a target file (`x` for `x.target` or `x.target.gz`), if it is one.
pub fn target_name(file_name: &str) -> Option<&str> {
    file_name
        .strip_suffix(".target.gz")
        .or_else(|| file_name.strip_suffix(".target"))
}

/// The most files and folders a scan visits (MakeHuman's targets folder holds about 1,400).
pub const MAX_SCANNED_ENTRIES: usize = 1_000_000;

impl TargetIndex {
    /// Indexes every `.target` and `.target.gz` under `root` (sorted, so lookups are
    /// deterministic); unreadable folders are skipped.
    pub fn scan(root: &Path) -> std::io::Result<Self> {
        let mut by_name: BTreeMap<String, Vec<PathBuf>> = BTreeMap::new();
        let mut stack = vec![root.to_path_buf()];
        std::fs::read_dir(root)?; // the root itself must exist
        // Folders are followed through symbolic links, each real folder once: a link to a
        // parent (a loop) is seen as visited instead of walked forever.
        let mut visited = std::collections::HashSet::new();
        let mut entries_seen = 0usize;
        while let Some(dir) = stack.pop() {
            let Ok(real) = std::fs::canonicalize(&dir) else {
                continue;
            };
            if !visited.insert(real) {
                continue;
            }
            let Ok(entries) = std::fs::read_dir(&dir) else {
                continue;
            };
            for entry in entries.flatten() {
                entries_seen += 1;
                if entries_seen > MAX_SCANNED_ENTRIES {
                    return Err(std::io::Error::other(format!(
                        "more than {MAX_SCANNED_ENTRIES} files and folders under it: not a targets folder"
                    )));
                }
                let path = entry.path();
                if path.is_dir() {
                    stack.push(path);
                } else if let Some(name) = path
                    .file_name()
                    .and_then(|n| n.to_str())
                    .and_then(target_name)
                {
                    let relative = path.strip_prefix(root).unwrap_or(&path).to_path_buf();
                    by_name.entry(name.to_owned()).or_default().push(relative);
                }
            }
        }
        for paths in by_name.values_mut() {
            paths.sort();
        }
        Ok(Self {
            root: root.to_path_buf(),
            by_name,
        })
    }

    /// The folder indexed.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Number of distinct names.
    pub fn len(&self) -> usize {
        self.by_name.len()
    }

    /// True when the folder holds no target.
    pub fn is_empty(&self) -> bool {
        self.by_name.is_empty()
    }

    /// The file of the target `name` (absolute).
    pub fn find(&self, name: &str) -> Result<PathBuf, LookupError> {
        match self.by_name.get(name).map(Vec::as_slice) {
            None | Some([]) => {
                let near =
                    location::near::near_names(name, self.by_name.keys().map(String::as_str));
                Err(LookupError::Unknown {
                    name: location::text::excerpt(name, 80),
                    near: if near.is_empty() {
                        String::new()
                    } else {
                        format!(" (did you mean {}?)", near.join(", "))
                    },
                })
            }
            Some([one]) => Ok(self.root.join(one)),
            Some(many) => Err(LookupError::Ambiguous {
                name: name.to_owned(),
                paths: many.to_vec(),
            }),
        }
    }

    /// The file at `relative` (`macrodetails/height/female-young-...`, without extension),
    /// gzipped or not, if it exists.
    pub fn at(&self, relative: &str) -> Option<PathBuf> {
        [".target.gz", ".target"]
            .iter()
            .map(|ext| self.root.join(format!("{relative}{ext}")))
            .find(|p| p.is_file())
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    #[test]
    fn symlink_loops_are_walked_once() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("targets");
        std::fs::create_dir_all(root.join("nose")).unwrap();
        std::fs::write(root.join("nose/nose-long.target"), "0 0 0 0\n").unwrap();
        // A link to the root inside it, and one to its parent: both loops.
        std::os::unix::fs::symlink(&root, root.join("nose/again")).unwrap();
        std::os::unix::fs::symlink(dir.path(), root.join("up")).unwrap();
        let index = TargetIndex::scan(&root).unwrap();
        assert_eq!(index.len(), 1);
    }
}
