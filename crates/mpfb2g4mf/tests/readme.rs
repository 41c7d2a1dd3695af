//! The README's examples, run: every ```` ```console ```` block of `README.md` is a trycmd case
//! (each `$ ` line a command, the lines under it its output, `[..]` and `...` where runs
//! differ), run in order in a fresh folder on the test data, so an example that stops working
//! fails the tests. Blocks the README marks `console,ignore` (network, benchmarks, Blender,
//! fuzzing) are not run. A block preceded by `<!-- file: NAME -->` is written to NAME in that
//! folder first, so the files the examples read are the ones the README shows. Blocks between
//! `<!-- needs: makehuman-assets -->` and `<!-- /needs -->` run when a MakeHuman assets folder
//! is found; without one they are skipped loudly (a failure under CI, which has the assets).
//!
//! `TRYCMD=overwrite cargo test -p mpfb2g4mf --test readme` writes the actual outputs back
//! into `README.md` (then put `[..]` back where a run's times or paths show, and review).

#![allow(clippy::unwrap_used)] // Tests fail loudly by design.

use std::path::Path;

/// The files the README defines: `<!-- file: NAME -->` and the fenced block after it.
fn defined_files(readme: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut lines = readme.lines();
    while let Some(line) = lines.next() {
        let Some(name) = line
            .trim()
            .strip_prefix("<!-- file: ")
            .and_then(|l| l.strip_suffix(" -->"))
        else {
            continue;
        };
        let fence = lines.next().unwrap_or_default();
        assert!(fence.starts_with("```"), "a block follows {line}");
        let mut text = String::new();
        for body in lines.by_ref() {
            if body.starts_with("```") {
                break;
            }
            text.push_str(body);
            text.push('\n');
        }
        out.push((name.to_owned(), text));
    }
    out
}

/// The README with the console blocks of its `needs: makehuman-assets` sections marked
/// `console,ignore`.
fn without_asset_examples(readme: &str) -> String {
    let mut out = String::with_capacity(readme.len());
    let mut inside = false;
    for line in readme.lines() {
        match line.trim() {
            "<!-- needs: makehuman-assets -->" => inside = true,
            "<!-- /needs -->" => inside = false,
            "```console" if inside => {
                out.push_str("```console,ignore\n");
                continue;
            }
            _ => {}
        }
        out.push_str(line);
        out.push('\n');
    }
    out
}

/// Copies the fixtures the examples read (small: bodies only) into the working folder.
fn copy_fixtures(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap().flatten() {
        std::fs::copy(entry.path(), to.join(entry.file_name())).unwrap();
    }
}

/// A data folder at `cache` whose folders are `data`'s, marked as a complete fetch.
fn link_data(data: &Path, cache: &Path) {
    std::fs::create_dir_all(cache).unwrap();
    for entry in std::fs::read_dir(data).unwrap().flatten() {
        let target = cache.join(entry.file_name());
        #[cfg(unix)]
        std::os::unix::fs::symlink(entry.path(), &target).unwrap();
        #[cfg(not(unix))]
        copy_tree(&entry.path(), &target);
    }
    std::fs::write(
        cache.join(".mpfb2g4mf-fetched.json"),
        r#"{"kind": "mpfb-data", "from": "the test data", "files": 0, "tool": "readme test"}"#,
    )
    .unwrap();
}

#[cfg(not(unix))]
fn copy_tree(from: &Path, to: &Path) {
    if from.is_dir() {
        std::fs::create_dir_all(to).unwrap();
        for entry in std::fs::read_dir(from).unwrap().flatten() {
            copy_tree(&entry.path(), &to.join(entry.file_name()));
        }
    } else {
        std::fs::copy(from, to).unwrap();
    }
}

#[test]
fn readme_examples_run() {
    let Some(data) = test_support::mpfb_data_or_skip("readme_examples_run") else {
        return;
    };
    let root = test_support::workspace_root();
    let readme_path = root.join("README.md");
    let readme = std::fs::read_to_string(&readme_path).unwrap();
    let work = tempfile::tempdir().unwrap();
    let case = work.path().join("README.md");
    let assets = test_support::makehuman_assets_or_skip(
        "readme_examples_run (the examples that wear MakeHuman assets)",
        &test_support::WORN_BY_EXAMPLES,
    );
    if assets.is_some() {
        std::fs::write(&case, &readme).unwrap();
    } else {
        std::fs::write(&case, without_asset_examples(&readme)).unwrap();
    }
    // trycmd runs a case's commands in `<case>.in/`.
    let folder = work.path().join("README.in");
    copy_fixtures(
        &root.join("fixtures/bodies"),
        &folder.join("fixtures/bodies"),
    );
    for (name, text) in defined_files(&readme) {
        std::fs::write(folder.join(&name), text).unwrap();
    }
    // The examples find the test data where a user's `data fetch` puts it: in the cache of
    // an empty home folder (its folders linked to the test data, with the fetch's marker).
    // (trycmd lets case-wide variables override a command's own `VAR=value`, so MPFB_DATA is
    // left to the examples that set it; one set in the test's own environment is inherited and
    // wins over the cache, which changes only the `data` lines the README writes as `[..]`.)
    let home = work.path().join("home");
    let cache = home.join(".cache/mpfb2g4mf/mpfb-data");
    link_data(&data, &cache);
    {
        let cases = trycmd::TestCases::new();
        cases
            .register_bin("mpfb2g4mf", Path::new(env!("CARGO_BIN_EXE_mpfb2g4mf")))
            .env("HOME", home.display().to_string())
            .env("XDG_CACHE_HOME", home.join(".cache").display().to_string())
            .env(
                "XDG_CONFIG_HOME",
                home.join(".config").display().to_string(),
            )
            .env("MPFB2G4MF_TARGET_CACHE", "off");
        if let Some(assets) = &assets {
            cases.env("MAKEHUMAN_ASSETS", assets.display().to_string());
        }
        cases.case(&case);
        // Runs here, when `cases` is dropped.
    }
    if std::env::var("TRYCMD").is_ok_and(|v| v == "overwrite") && assets.is_some() {
        std::fs::copy(&case, &readme_path).unwrap();
    }
}

#[test]
fn readme_defined_files_are_found() {
    let readme = "x\n<!-- file: a.toml -->\n```toml\nk = 1\n```\n";
    assert_eq!(
        defined_files(readme),
        [("a.toml".to_owned(), "k = 1\n".to_owned())]
    );
}
