//! The documents' examples, run: every ```` ```console ```` block of `README.md` and of each
//! hand-written guide in `docs/` (all but `docs/cli.md`, which `--help` generates) is a trycmd
//! case (each `$ ` line a command, the lines under it its output, `[..]` and `...` where runs
//! differ), run in order in a fresh folder of the document's own, on the test data, so an
//! example that stops working fails the tests; a later block may read only what the same
//! document's earlier blocks wrote. A block marked `console,ignore` is not run, and must say why
//! on the line before it: `<!-- ignore: network -->`, `Blender` or `scheduler`, the only
//! reasons (checked here). A block preceded by `<!-- file: NAME -->` is written to NAME in that
//! folder first, so the files the examples read are the ones the document shows. Blocks between
//! `<!-- needs: makehuman-assets -->` and `<!-- /needs -->` run when a MakeHuman assets folder
//! is found; without one they are skipped loudly (a failure under CI, which has the assets).
//! Also here: the README stays a front door (at most 300 lines), and the documents' relative
//! links and pictures point to files (and headings) that exist.
//!
//! `TRYCMD=overwrite cargo test -p mpfb2g4mf --test integration readme` writes the actual outputs back
//! into the documents (then put `[..]` back where a run's times or paths show, and review).

#![allow(clippy::unwrap_used)] // Tests fail loudly by design.

use std::path::{Path, PathBuf};

/// The most lines the README may have: a front door, the rest is in the guides.
const README_MOST_LINES: usize = 300;

/// Why an example may be shown without being run: what the test machine cannot give it.
const IGNORE_REASONS: [&str; 3] = ["network", "Blender", "scheduler"];

/// The documents whose examples run: `README.md`, then the guides of `docs/` by name
/// (`docs/cli.md` is generated from `--help` and has no examples).
fn documents(root: &Path) -> Vec<PathBuf> {
    let mut guides: Vec<PathBuf> = std::fs::read_dir(root.join("docs"))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "md") && !p.ends_with("docs/cli.md"))
        .collect();
    guides.sort();
    std::iter::once(root.join("README.md"))
        .chain(guides)
        .collect()
}

/// Every document of the repository: the examples' documents, the contributors', the
/// architecture's, the clients', the generated reference and the spec notes (their examples
/// are not run, so any they hold is checked for a reason to be shown only, and their links).
fn all_documents(root: &Path) -> Vec<PathBuf> {
    let mut out = documents(root);
    out.extend(
        [
            "CONTRIBUTING.md",
            "ARCHITECTURE.md",
            "clients/README.md",
            "docs/cli.md",
        ]
        .iter()
        .map(|d| root.join(d)),
    );
    let mut notes: Vec<PathBuf> = std::fs::read_dir(root.join("spec-notes"))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    notes.sort();
    out.extend(notes);
    out
}

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

/// Whether a document has an example to run (trycmd refuses a case without one).
fn has_examples(text: &str) -> bool {
    text.lines().any(|l| l.trim() == "```console")
}

/// The `console,ignore` blocks of a document that do not say why on the line before, with
/// their line numbers (1-based) and what is wrong.
fn unexplained_ignores(text: &str) -> Vec<(usize, String)> {
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    for (n, line) in lines.iter().enumerate() {
        let Some(info) = line.trim().strip_prefix("```") else {
            continue;
        };
        let mut words = info.split(',').map(str::trim);
        if words.next() != Some("console") || !words.any(|w| w == "ignore") {
            continue;
        }
        let marker = n.checked_sub(1).map_or("", |p| lines[p].trim());
        let reason = marker
            .strip_prefix("<!-- ignore: ")
            .and_then(|m| m.strip_suffix(" -->"));
        match reason {
            Some(r) if IGNORE_REASONS.contains(&r) => {}
            Some(r) => out.push((
                n + 1,
                format!(
                    "`{r}` is not a reason to leave an example unrun (only {IGNORE_REASONS:?})"
                ),
            )),
            None => out.push((
                n + 1,
                "no `<!-- ignore: REASON -->` line before it (network, Blender or scheduler)"
                    .to_owned(),
            )),
        }
    }
    out
}

/// The targets of a document's Markdown links and pictures (`](target)`) outside fenced
/// blocks and inline code, with their line numbers (1-based).
fn link_targets(text: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    let mut fenced = false;
    for (n, line) in text.lines().enumerate() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if fenced {
            continue;
        }
        // Inline code spans are left out: `[x](y)` there is an example, not a link.
        let prose: String = line
            .split('`')
            .enumerate()
            .filter(|(i, _)| i % 2 == 0)
            .map(|(_, part)| part)
            .collect::<Vec<_>>()
            .join(" ");
        let mut rest = prose.as_str();
        while let Some(at) = rest.find("](") {
            rest = &rest[at + 2..];
            let end = rest.find(')').unwrap_or(rest.len());
            out.push((n + 1, rest[..end].to_owned()));
            rest = &rest[end..];
        }
    }
    out
}

/// The anchors of a Markdown document's headings, as GitHub makes them: lower case, letters,
/// digits, `-` and `_` kept, spaces made `-`, everything else dropped.
fn heading_anchors(text: &str) -> Vec<String> {
    let mut fenced = false;
    let mut out = Vec::new();
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
        }
        if fenced || !line.starts_with('#') {
            continue;
        }
        let title = line.trim_start_matches('#').trim();
        out.push(
            title
                .chars()
                .filter_map(|c| match c {
                    ' ' => Some('-'),
                    c if c.is_alphanumeric() || c == '-' || c == '_' => {
                        Some(c.to_lowercase().next().unwrap_or(c))
                    }
                    _ => None,
                })
                .collect(),
        );
    }
    out
}

/// What is wrong with a relative link of the document at `from`: a file or folder that does
/// not exist, or a heading the target has not.
fn broken_link(from: &Path, target: &str) -> Option<String> {
    if target.contains("://") || target.starts_with("mailto:") {
        return None;
    }
    let (path, anchor) = target.split_once('#').unwrap_or((target, ""));
    let file = if path.is_empty() {
        from.to_path_buf()
    } else {
        from.parent().unwrap().join(path)
    };
    if !file.exists() {
        return Some(format!("{} does not exist", file.display()));
    }
    if anchor.is_empty() || file.extension().is_none_or(|e| e != "md") {
        return None;
    }
    let text = std::fs::read_to_string(&file).unwrap();
    (!heading_anchors(&text).iter().any(|a| a == anchor))
        .then(|| format!("{} has no heading `#{anchor}`", file.display()))
}

/// A program on `PATH`, found as a shell finds it.
fn on_path(program: &str) -> PathBuf {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .map(|folder| folder.join(program))
        .find(|candidate| candidate.is_file())
        .unwrap_or_else(|| panic!("no `{program}` on PATH for the documents' examples"))
}

/// Runs the examples of `documents` with trycmd, each in a folder of its own under `work`.
fn run_examples(documents: &[PathBuf], data: &Path, work: &Path, assets: Option<&Path>) {
    let root = test_support::workspace_root();
    // The examples find the test data where a user's `data fetch` puts it: in the cache of
    // an empty home folder (its folders linked to the test data, with the fetch's marker).
    // (trycmd lets case-wide variables override a command's own `VAR=value`, so MPFB_DATA is
    // left to the examples that set it; one set in the test's own environment is inherited and
    // wins over the cache, which changes only the `data` lines the documents write as `[..]`.)
    let home = work.join("home");
    link_data(data, &home.join(".cache/mpfb2g4mf/mpfb-data"));
    let cases = trycmd::TestCases::new();
    cases
        .register_bin("mpfb2g4mf", Path::new(env!("CARGO_BIN_EXE_mpfb2g4mf")))
        // A guide's first example makes the `out/` folder the others write into.
        .register_bin("mkdir", on_path("mkdir"))
        .env("HOME", home.display().to_string())
        .env("XDG_CACHE_HOME", home.join(".cache").display().to_string())
        .env(
            "XDG_CONFIG_HOME",
            home.join(".config").display().to_string(),
        )
        .env("MPFB2G4MF_TARGET_CACHE", "off");
    if let Some(assets) = assets {
        cases.env("MAKEHUMAN_ASSETS", assets.display().to_string());
    }
    for document in documents {
        let text = std::fs::read_to_string(document).unwrap();
        let name = document.file_name().unwrap();
        let case = work.join(name);
        if assets.is_some() {
            std::fs::write(&case, &text).unwrap();
        } else {
            std::fs::write(&case, without_asset_examples(&text)).unwrap();
        }
        if !has_examples(&std::fs::read_to_string(&case).unwrap()) {
            std::fs::remove_file(&case).unwrap();
            continue;
        }
        // trycmd runs a case's commands in `<case>.in/`.
        let folder = case.with_extension("in");
        copy_fixtures(
            &root.join("fixtures/bodies"),
            &folder.join("fixtures/bodies"),
        );
        for (file, body) in defined_files(&text) {
            std::fs::write(folder.join(&file), body).unwrap();
        }
        cases.case(&case);
    }
    // The cases run here, in parallel, when `cases` is dropped.
}

#[test]
fn readme_and_guide_examples_run() {
    let data = test_support::mpfb_data_or_skip!(readme_and_guide_examples_run);
    let root = test_support::workspace_root();
    let documents = documents(&root);
    let work = tempfile::tempdir().unwrap();
    let assets = test_support::makehuman_assets_or_skip(
        "readme_and_guide_examples_run (the examples that wear MakeHuman assets)",
        &test_support::WORN_BY_EXAMPLES,
    );
    run_examples(&documents, &data, work.path(), assets.as_deref());
    if std::env::var("TRYCMD").is_ok_and(|v| v == "overwrite") && assets.is_some() {
        for document in &documents {
            let case = work.path().join(document.file_name().unwrap());
            if case.exists() {
                std::fs::copy(&case, document).unwrap();
            }
        }
    }
}

#[test]
fn every_ignored_example_says_why() {
    let root = test_support::workspace_root();
    let mut unexplained = Vec::new();
    for document in all_documents(&root) {
        let text = std::fs::read_to_string(&document).unwrap();
        for (line, why) in unexplained_ignores(&text) {
            unexplained.push(format!("{}:{line}: {why}", document.display()));
        }
    }
    assert!(unexplained.is_empty(), "{}", unexplained.join("\n"));
}

#[test]
fn ignored_examples_are_checked_for_their_reason() {
    let text = "a\n<!-- ignore: network -->\n```console,ignore\n$ x\n```\n\
                ```console,ignore\n$ y\n```\n\
                <!-- ignore: benchmarks -->\n```console,ignore\n$ z\n```\n```console\n$ w\n```\n";
    let found = unexplained_ignores(text);
    assert_eq!(found.iter().map(|(n, _)| *n).collect::<Vec<_>>(), [6, 10]);
    assert!(found[1].1.contains("`benchmarks` is not a reason"));
}

#[test]
fn readme_is_a_front_door() {
    let readme = std::fs::read_to_string(test_support::workspace_root().join("README.md")).unwrap();
    let lines = readme.lines().count();
    assert!(
        lines <= README_MOST_LINES,
        "README.md has {lines} lines, more than {README_MOST_LINES}: move what a newcomer does not need first into a guide in docs/"
    );
}

/// The command the README's set-up gives for the tests: the line after `# 2. The tests`.
fn readme_test_command(readme: &str) -> Option<&str> {
    let mut lines = readme
        .lines()
        .skip_while(|l| !l.starts_with("# 2. The tests"));
    lines.next()?;
    lines.next().map(str::trim)
}

#[test]
fn ci_runs_the_readme_s_test_command() {
    let root = test_support::workspace_root();
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let command = readme_test_command(&readme).expect("README.md: no `# 2. The tests` command");
    assert_eq!(command, "cargo test --workspace");
    let ci = std::fs::read_to_string(root.join(".ci/run")).unwrap();
    assert!(
        ci.lines().any(|l| l.trim().starts_with(command)),
        ".ci/run does not run the README's test command `{command}`"
    );
}

#[test]
fn documents_link_to_files_and_headings_that_exist() {
    let root = test_support::workspace_root();
    let mut broken = Vec::new();
    for document in all_documents(&root) {
        let text = std::fs::read_to_string(&document).unwrap();
        for (line, target) in link_targets(&text) {
            if let Some(why) = broken_link(&document, &target) {
                broken.push(format!("{}:{line}: ({target}): {why}", document.display()));
            }
        }
    }
    assert!(broken.is_empty(), "{}", broken.join("\n"));
}

#[test]
fn links_and_anchors_are_read_as_github_reads_them() {
    let text = "# A `cli` title: v1.0\n[a](b.md#c) `[no](t)` ![p](x.png)\n```\n[no](u)\n```\n";
    assert_eq!(
        link_targets(text),
        [(2, "b.md#c".to_owned()), (2, "x.png".to_owned())]
    );
    assert_eq!(heading_anchors(text), ["a-cli-title-v10"]);
}

#[test]
fn readme_defined_files_are_found() {
    let readme = "x\n<!-- file: a.toml -->\n```toml\nk = 1\n```\n";
    assert_eq!(
        defined_files(readme),
        [("a.toml".to_owned(), "k = 1\n".to_owned())]
    );
}
