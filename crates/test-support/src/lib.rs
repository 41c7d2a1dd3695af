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

/// The MPFB data folder, if one can be found: `$MPFB_DATA` when set (and nothing else then,
/// so a wrong setting is noticed), else `<root>/../shared/mpfb-data`.
///
/// A folder counts only if it holds `3dobjs/base.obj`, so a half-present folder is not used.
pub fn mpfb_data() -> Option<PathBuf> {
    let candidate = match std::env::var_os(MPFB_DATA_ENV) {
        Some(dir) => PathBuf::from(dir),
        None => workspace_root().join("../shared/mpfb-data"),
    };
    candidate
        .join("3dobjs/base.obj")
        .is_file()
        .then_some(candidate)
}

/// The environment variable that makes a missing data folder a test failure, not a skip.
/// `CI` (set by every CI service, and by ours) does the same.
pub const MPFB_DATA_REQUIRED_ENV: &str = "MPFB_DATA_REQUIRED";

/// True when a test without data must fail: `MPFB_DATA_REQUIRED` or `CI` is set (to anything
/// but an empty string, `0` or `false`).
pub fn data_required() -> bool {
    [MPFB_DATA_REQUIRED_ENV, "CI"]
        .iter()
        .any(|name| std::env::var(name).is_ok_and(|v| !matches!(v.trim(), "" | "0" | "false")))
}

/// Like [`mpfb_data`], but when there is no data: fails the calling test if
/// [`data_required`], else says loudly that it skips.
///
/// The skip line goes straight to the process's standard error, past the test harness's
/// capture (which would swallow an `eprintln!` of a passing test), so a run without data shows
/// one line per skipped test instead of a silent "ok".
///
/// Use as `let Some(data) = test_support::mpfb_data_or_skip("my_test") else { return };`.
pub fn mpfb_data_or_skip(test_name: &str) -> Option<PathBuf> {
    let found = mpfb_data();
    if found.is_none() {
        let place = workspace_root().join("../shared/mpfb-data");
        if data_required() {
            panic!(
                "{test_name}: no MPFB data found, and {MPFB_DATA_REQUIRED_ENV} or CI says it is required; set {MPFB_DATA_ENV} or place it at {}",
                place.display()
            );
        }
        use std::io::Write;
        let _ = writeln!(
            std::io::stderr().lock(),
            "SKIPPED {test_name}: no MPFB data found (set {MPFB_DATA_ENV} or place it at {}; set {MPFB_DATA_REQUIRED_ENV}=1 to make this a failure)",
            place.display()
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

#[cfg(test)]
mod tests {
    use super::*;
    use std::process::Command;

    /// Run only by [`a_missing_data_folder_skips_loudly_or_fails_when_required`].
    #[test]
    #[ignore = "a probe run in a child process with a chosen environment"]
    fn probe_without_data() {
        assert!(mpfb_data_or_skip("probe_without_data").is_none());
    }

    fn run_probe(required: bool) -> std::process::Output {
        let mut command = Command::new(std::env::current_exe().expect("test binary"));
        command
            .args(["--ignored", "--exact", "tests::probe_without_data"])
            .env(MPFB_DATA_ENV, "/nonexistent/mpfb-data")
            .env_remove("CI")
            .env_remove(MPFB_DATA_REQUIRED_ENV);
        if required {
            command.env(MPFB_DATA_REQUIRED_ENV, "1");
        }
        command.output().expect("the probe runs")
    }

    #[test]
    fn a_missing_data_folder_skips_loudly_or_fails_when_required() {
        let skipped = run_probe(false);
        let text = String::from_utf8_lossy(&skipped.stderr);
        assert!(skipped.status.success(), "{text}");
        assert!(
            text.contains("SKIPPED probe_without_data: no MPFB data found"),
            "the skip line must pass the harness's capture: {text}"
        );
        let failed = run_probe(true);
        let out = String::from_utf8_lossy(&failed.stdout);
        assert!(!failed.status.success(), "{out}");
        assert!(
            out.contains("MPFB_DATA_REQUIRED or CI says it is required"),
            "{out}"
        );
    }
}
