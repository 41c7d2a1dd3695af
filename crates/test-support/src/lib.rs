//! Locating the real MPFB data the tests run against, and skipping loudly when it is absent.
//!
//! The data is never copied into the repository. Tests find it as the converter does
//! (`mpfb_data::locate`): `$MPFB_DATA` when set, else `../shared/mpfb-data` beside the checkout
//! (as in CI), else MPFB in Blender or the cache `mpfb2g4mf data fetch` fills. A folder counts
//! only when it has every file of every feature, so a test never runs on half the data.
//!
//! [`archives`] builds the hostile zip archives `data fetch` must refuse (tests and
//! `cargo xtask hostile`); [`cli`] reads what a command printed and serves archives to it.
//! [`tiny`] builds the small hand-made characters (and G4MF files) the writer, reader,
//! preview, fuzz and fixture code test with. [`clients`] runs the external glTF clients
//! (the Khronos glTF-Validator, three.js, @pixiv/three-vrm for `.vrm`) on files a test wrote,
//! skipping as loudly without them; [`gltf`] writes small glTF files by hand and reads any back;
//! [`skinning`] poses our G4MF and glTF files by linear blend skinning and matches their
//! vertices to another program's, the judge `cargo xtask blender-gltf-check` and its tests use.

pub mod archives;
pub mod cli;
pub mod clients;
pub mod gltf;
pub mod images;
pub mod skinning;
pub mod tiny;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

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

/// The rigs `../shared/mpfb-data` has, which every MPFB data folder has too (the fetched
/// package has more). Golden files and counting tests cover exactly these.
pub const TEST_RIGS: [&str; 6] = [
    "cmu_mb",
    "default",
    "default_no_toes",
    "game_engine",
    "human",
    "mixamo",
];

/// The MPFB data folder the tests use, or why there is none.
fn found() -> &'static Result<PathBuf, String> {
    static FOUND: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    FOUND.get_or_init(|| {
        let mut places = mpfb_data::Places::from_env();
        let shared = workspace_root().join("../shared/mpfb-data");
        if places.mpfb_data_env.is_none() && shared.is_dir() {
            places.mpfb_data_env = Some(shared);
        }
        let data = mpfb_data::locate(&places, None, None).map_err(|e| e.to_string())?;
        let status = data.status();
        if !status.complete() {
            let missing: Vec<String> = status
                .features
                .iter()
                .filter(|f| !f.complete())
                .map(|f| format!("{} ({} of {} files)", f.feature, f.required - f.present, f.required))
                .collect();
            return Err(format!(
                "{} ({}) is incomplete: {} missing (`mpfb2g4mf data fetch` installs a complete copy)",
                data.root().display(),
                data.source(),
                missing.join(", ")
            ));
        }
        let missing_rigs: Vec<&str> = TEST_RIGS
            .iter()
            .copied()
            .filter(|r| data.rig(r).is_err())
            .collect();
        if !missing_rigs.is_empty() {
            return Err(format!(
                "{} lacks the rigs the tests cover: {}",
                data.root().display(),
                missing_rigs.join(", ")
            ));
        }
        Ok(data.root().to_path_buf())
    })
}

/// The MPFB data folder, if a complete one can be found: `$MPFB_DATA` when set (and nothing
/// else then, so a wrong setting is noticed), else `<root>/../shared/mpfb-data`, else MPFB in
/// Blender or the cache.
pub fn mpfb_data() -> Option<PathBuf> {
    found().as_ref().ok().cloned()
}

/// The rig file of each of [`TEST_RIGS`] in `data`, in that order.
pub fn test_rig_files(data: &Path) -> Vec<PathBuf> {
    TEST_RIGS
        .iter()
        .map(|name| {
            ["standard", "rigify"]
                .iter()
                .map(|kind| {
                    data.join("rigs")
                        .join(kind)
                        .join(format!("rig.{name}.json"))
                })
                .find(|p| p.is_file())
                .unwrap_or_else(|| panic!("rig `{name}` is not in {}", data.display()))
        })
        .collect()
}

/// The MakeHuman assets folder for tests: `$MAKEHUMAN_ASSETS`, else
/// `<root>/../shared/makehuman-assets`, else where the converter finds one. A test that needs
/// particular files asks [`makehuman_assets_with`] instead, so a user's partial folder (the
/// repository's archive without its images, say) never turns its pass into a failure.
pub fn makehuman_assets() -> Option<PathBuf> {
    makehuman_assets_with(&[]).ok()
}

/// The files every dressed conversion reads by default: MakeHuman's default eyes
/// (HighPolyEyes, from MakeHuman's own repository) and their brown material with its image.
pub const DEFAULT_EYES: [&str; 4] = [
    "eyes/high-poly/high-poly.mhclo",
    "eyes/high-poly/high-poly.obj",
    "eyes/materials/brown.mhmat",
    "eyes/materials/brown_eye.png",
];

/// The asset files the README's dressed examples, the dressed golden bytes and the dressed
/// glTF variants wear (`fixtures/bodies/dressed.mhm`, the ponytail outfit, the population
/// draws), with the default eyes, and the MakeHuman files the README's expression, pose and
/// clip examples read.
pub const WORN_BY_EXAMPLES: [&str; 27] = [
    "eyes/high-poly/high-poly.mhclo",
    "eyes/high-poly/high-poly.obj",
    "eyes/materials/brown.mhmat",
    "eyes/materials/brown_eye.png",
    "eyes/materials/blue.mhmat",
    "eyebrows/eyebrow001/eyebrow001.mhclo",
    "eyebrows/eyebrow011/eyebrow011.mhclo",
    "eyelashes/eyelashes01/eyelashes01.mhclo",
    "eyelashes/eyelashes02/eyelashes02.mhclo",
    "hair/bob01/bob01.mhclo",
    "hair/ponytail01/ponytail01.mhclo",
    "hair/short02/short02.mhclo",
    "clothes/female_casualsuit01/female_casualsuit01.mhclo",
    "clothes/male_casualsuit01/male_casualsuit01.mhclo",
    "clothes/female_sportsuit01/female_sportsuit01.mhclo",
    "clothes/shoes01/shoes01.mhclo",
    "clothes/shoes02/shoes02.mhclo",
    "rigs/default.mhskel",
    "rigs/default_weights.mhw",
    "poseunits/face-poseunits.bvh",
    "poseunits/face-poseunits.json",
    "expressions/smile01.mhpose",
    "expressions/anger01.mhpose",
    "expressions/surprise01.mhpose",
    "expressions/fear02.mhpose",
    "poses/sit01.bvh",
    "poses/run01.bvh",
];

/// The first MakeHuman assets folder holding every one of `files` (paths inside it), looked
/// for where [`makehuman_assets`] looks (`$MAKEHUMAN_ASSETS` alone when set); or why none
/// does, naming each folder's missing files. A file that is a Git LFS pointer (the asset
/// repository's archive holds its images so) counts as missing.
pub fn makehuman_assets_with(files: &[&str]) -> Result<PathBuf, String> {
    let places = mpfb_data::Places::from_env();
    let shared = workspace_root().join("../shared/makehuman-assets");
    let mut candidates = Vec::new();
    if places.assets_env.is_none() && shared.is_dir() {
        candidates.push(shared);
    }
    if let Ok(Some(found)) = mpfb_data::locate_assets(&places, None) {
        candidates.push(found.root().to_path_buf());
    }
    if candidates.is_empty() {
        return Err("no MakeHuman assets folder".into());
    }
    let mut reasons = Vec::new();
    for folder in candidates {
        let missing: Vec<&str> = files
            .iter()
            .copied()
            .filter(|f| !is_real_file(&folder.join(f)))
            .collect();
        if missing.is_empty() {
            return Ok(folder);
        }
        reasons.push(format!(
            "{} lacks {} (a MakeHuman installation's data folder or an asset pack has them: README, Data)",
            folder.display(),
            missing.join(", ")
        ));
    }
    Err(reasons.join("; "))
}

/// A regular file that is not a Git LFS pointer.
fn is_real_file(path: &Path) -> bool {
    use std::io::Read;
    let Ok(mut file) = std::fs::File::open(path) else {
        return false;
    };
    let mut head = [0u8; 40];
    let n = file.read(&mut head).unwrap_or(0);
    path.is_file() && !head[..n].starts_with(b"version https://git-lfs.github.com/spec/")
}

/// Like [`makehuman_assets_with`], but when no folder holds `files`: fails the calling test if
/// [`data_required`], else says loudly that it skips ([`skip_or_fail`]).
pub fn makehuman_assets_or_skip(test_name: &str, files: &[&str]) -> Option<PathBuf> {
    match makehuman_assets_with(files) {
        Ok(folder) => Some(folder),
        Err(why) => {
            skip_or_fail(test_name, &why);
            None
        }
    }
}

/// Makes `command` run as on a fresh machine: its home, cache and configuration folders are
/// inside `home` (empty unless the test fills it), and no data or assets variable is set.
pub fn isolate<'c>(command: &'c mut Command, home: &Path) -> &'c mut Command {
    command
        .env("HOME", home)
        .env("XDG_CACHE_HOME", home.join(".cache"))
        .env("XDG_CONFIG_HOME", home.join(".config"))
        .env_remove(MPFB_DATA_ENV)
        .env_remove(mpfb_data::ASSETS_ENV)
        .env_remove("MPFB2G4MF_PACKAGE")
        .env_remove("MPFB2G4MF_ASSETS_ARCHIVE")
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

/// Like [`mpfb_data()`], but when there is no data: fails the calling test if
/// [`data_required`], else says loudly that it skips.
///
/// The skip line goes straight to the process's standard error, past the test harness's
/// capture (which would swallow an `eprintln!` of a passing test), so a run without data shows
/// one line per skipped test instead of a silent "ok".
///
/// Use as `let Some(data) = test_support::mpfb_data_or_skip("my_test") else { return };`.
pub fn mpfb_data_or_skip(test_name: &str) -> Option<PathBuf> {
    let why = match found() {
        Ok(dir) => return Some(dir.clone()),
        Err(why) => why,
    };
    let place = workspace_root().join("../shared/mpfb-data");
    skip_or_fail(
        test_name,
        &format!(
            "no complete MPFB data ({why}); set {MPFB_DATA_ENV}, place it at {}, or run `mpfb2g4mf data fetch`",
            place.display()
        ),
    );
    None
}

/// The MPFB data folder, or else out of the calling test: the prelude of a test that needs
/// the data, naming the test by `stringify!` so its name is written once. Fails the test
/// without data when [`data_required`] (CI), else says loudly that it skips and returns
/// (see [`mpfb_data_or_skip()`]). The name must be a function in scope (the test itself), so
/// a renamed test cannot keep a stale name.
///
/// ```ignore
/// #[test]
/// fn the_base_mesh_reads() {
///     let data = test_support::mpfb_data_or_skip!(the_base_mesh_reads);
///     // ...
/// }
/// ```
#[macro_export]
macro_rules! mpfb_data_or_skip {
    ($test:ident) => {{
        let _: fn() = $test;
        match $crate::mpfb_data_or_skip(stringify!($test)) {
            Some(data) => data,
            None => return,
        }
    }};
}

/// The MakeHuman assets folder holding `files`, or else out of the calling test: as
/// [`mpfb_data_or_skip!`] for [`makehuman_assets_or_skip()`].
#[macro_export]
macro_rules! makehuman_assets_or_skip {
    ($test:ident, $files:expr) => {{
        let _: fn() = $test;
        match $crate::makehuman_assets_or_skip(stringify!($test), $files) {
            Some(folder) => folder,
            None => return,
        }
    }};
}

/// Says loudly that `test_name` skips (or part of it) for `why`, or fails it when data is
/// required ([`data_required`]). The line goes past the test harness's capture.
pub fn skip_or_fail(test_name: &str, why: &str) {
    if data_required() {
        panic!("{test_name}: {why}, and {MPFB_DATA_REQUIRED_ENV} or CI says it is required");
    }
    use std::io::Write;
    let _ = writeln!(
        std::io::stderr().lock(),
        "SKIPPED {test_name}: {why} (set {MPFB_DATA_REQUIRED_ENV}=1 to make this a failure)"
    );
}

/// The environment variable naming a copy of the G4MF specification (its folder with
/// `schema/`).
pub const G4MF_SPEC_ENV: &str = "G4MF_SPEC";

/// The G4MF specification's JSON schema folder: `$G4MF_SPEC/schema`, else
/// `<root>/../shared/spec/g4mf/schema`. Tests that check files against the official schema
/// skip that check loudly without it ([`skip_or_fail`]).
pub fn g4mf_schema_dir() -> Option<PathBuf> {
    let spec = std::env::var_os(G4MF_SPEC_ENV)
        .map(PathBuf::from)
        .unwrap_or_else(|| workspace_root().join("../shared/spec/g4mf"));
    let schema = spec.join("schema");
    schema.join("g4mf.schema.json").is_file().then_some(schema)
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

    /// Run only by [`the_prelude_macro_names_its_test_and_returns_without_data`].
    #[test]
    #[ignore = "a probe run in a child process with a chosen environment"]
    fn macro_probe_without_data() {
        let data = crate::mpfb_data_or_skip!(macro_probe_without_data);
        panic!("the prelude went on without data: {}", data.display());
    }

    fn run_probe(required: bool) -> std::process::Output {
        run_named_probe("tests::probe_without_data", required)
    }

    fn run_named_probe(probe: &str, required: bool) -> std::process::Output {
        let mut command = Command::new(std::env::current_exe().expect("test binary"));
        command
            .args(["--ignored", "--exact", probe])
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
            text.contains("SKIPPED probe_without_data: no complete MPFB data")
                && text.contains("/nonexistent/mpfb-data ($MPFB_DATA) is not an MPFB data folder"),
            "the skip line must pass the harness's capture: {text}"
        );
        let failed = run_probe(true);
        let out = String::from_utf8_lossy(&failed.stdout);
        assert!(!failed.status.success(), "{out}");
        assert!(
            out.contains("MPFB_DATA_REQUIRED or CI says it is required")
                && out.contains("/nonexistent/mpfb-data"),
            "{out}"
        );
    }

    #[test]
    fn the_prelude_macro_names_its_test_and_returns_without_data() {
        let skipped = run_named_probe("tests::macro_probe_without_data", false);
        let text = String::from_utf8_lossy(&skipped.stderr);
        assert!(skipped.status.success(), "{text}");
        assert!(
            text.contains("SKIPPED macro_probe_without_data: no complete MPFB data"),
            "{text}"
        );
        let failed = run_named_probe("tests::macro_probe_without_data", true);
        let out = String::from_utf8_lossy(&failed.stdout);
        assert!(!failed.status.success(), "{out}");
        assert!(
            out.contains("macro_probe_without_data: no complete MPFB data")
                && out.contains("MPFB_DATA_REQUIRED or CI says it is required"),
            "{out}"
        );
    }
}
