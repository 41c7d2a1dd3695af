//! Locating the real MPFB data the tests run against, and skipping loudly when it is absent.
//!
//! The data is never copied into the repository: it lives in `../shared/mpfb-data` beside the
//! checkout (as in CI), or wherever `MPFB_DATA` points.

use std::path::{Path, PathBuf};

/// The environment variable that overrides where the MPFB data folder is.
pub const MPFB_DATA_ENV: &str = "MPFB_DATA";

/// The workspace root (the folder holding the top-level `Cargo.toml`).
pub fn workspace_root() -> PathBuf {
    // This crate lives at `<root>/crates/test-support`.
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .ancestors()
        .nth(2)
        .map(Path::to_path_buf)
        .unwrap_or_else(|| PathBuf::from("."))
}

/// The MPFB data folder, if one can be found: `$MPFB_DATA`, else `<root>/../shared/mpfb-data`.
///
/// A folder counts only if it holds `3dobjs/base.obj`, so a half-present folder is not used.
pub fn mpfb_data() -> Option<PathBuf> {
    let candidates = std::env::var_os(MPFB_DATA_ENV)
        .map(PathBuf::from)
        .into_iter()
        .chain(std::iter::once(
            workspace_root().join("../shared/mpfb-data"),
        ));
    candidates
        .into_iter()
        .find(|dir| dir.join("3dobjs/base.obj").is_file())
}

/// Like [`mpfb_data`], but prints why the calling test is skipped when there is no data.
///
/// Use as `let Some(data) = test_support::mpfb_data_or_skip("my_test") else { return };`.
pub fn mpfb_data_or_skip(test_name: &str) -> Option<PathBuf> {
    let found = mpfb_data();
    if found.is_none() {
        eprintln!(
            "SKIPPED {test_name}: no MPFB data found; set {MPFB_DATA_ENV} or place it at {}",
            workspace_root().join("../shared/mpfb-data").display()
        );
    }
    found
}

/// Every file under `dir` (recursively) whose name starts with `prefix` and ends with `.json`,
/// sorted, so tests iterate in a stable order.
pub fn json_files_with_prefix(dir: &Path, prefix: &str) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(current) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&current) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else if path
                .file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with(prefix) && n.ends_with(".json"))
            {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}
