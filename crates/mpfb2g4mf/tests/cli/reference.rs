//! `docs/cli.md`, the command reference, is what the binary's `--help` prints for every
//! command and subcommand, so the help text is written once (clap's, in `main.rs` and
//! `options.rs`) and the document cannot drift from it. `UPDATE_GOLDEN=1` rewrites it.

use crate::common::run;

/// The commands a help text lists (its `Commands:` section), `help` left out.
fn commands(help: &str) -> Vec<String> {
    help.lines()
        .skip_while(|l| l.trim() != "Commands:")
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .filter_map(|l| l.split_whitespace().next())
        .filter(|c| *c != "help")
        .map(str::to_owned)
        .collect()
}

/// The help of `mpfb2g4mf PATH... --help`, then of each of its commands, as Markdown.
fn section(out: &mut String, path: &[String]) {
    let mut args: Vec<&str> = path.iter().map(String::as_str).collect();
    args.push("--help");
    let output = run(&args);
    assert!(output.status.success(), "{args:?}");
    let help = String::from_utf8(output.stdout).unwrap();
    let title = std::iter::once("mpfb2g4mf")
        .chain(path.iter().map(String::as_str))
        .collect::<Vec<_>>()
        .join(" ");
    out.push_str(&format!(
        "## `{title}`\n\n```text\n{}\n```\n\n",
        help.trim_end()
    ));
    for command in commands(&help) {
        let mut deeper = path.to_vec();
        deeper.push(command);
        section(out, &deeper);
    }
}

/// The reference the binary gives today.
fn reference() -> String {
    let mut out = String::from(
        "# Command reference\n\n\
         Every command's and subcommand's `--help`, as the binary prints it (this file is \
         generated: `UPDATE_GOLDEN=1 cargo test -p mpfb2g4mf --test integration reference` rewrites it, \
         and the test fails when the two differ). The README shows the main jobs; this is every \
         flag.\n\n",
    );
    section(&mut out, &[]);
    out.truncate(out.trim_end().len());
    out.push('\n');
    out
}

#[test]
fn docs_cli_md_is_what_help_prints() {
    let path = test_support::workspace_root().join("docs/cli.md");
    let made = reference();
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        std::fs::write(&path, &made).unwrap();
        return;
    }
    let written = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        written == made,
        "docs/cli.md is not what --help prints (regenerate: UPDATE_GOLDEN=1 cargo test -p mpfb2g4mf --test integration reference); first difference at line {}",
        written
            .lines()
            .zip(made.lines())
            .position(|(a, b)| a != b)
            .map_or_else(|| "end".to_owned(), |n| (n + 1).to_string())
    );
    // Every subcommand is in it (a command added to clap shows up here without a hand edit).
    for command in [
        "convert",
        "batch",
        "preview",
        "data status",
        "data fetch",
        "to-gltf",
    ] {
        assert!(
            made.contains(&format!("## `mpfb2g4mf {command}`")),
            "{command}"
        );
    }
}

/// Documents hold no path of the machine that made them (its home, its checkout, its
/// temporary folders): examples use `~` or `/home/you`.
#[test]
fn no_document_holds_the_paths_of_the_machine_that_made_it() {
    let root = test_support::workspace_root();
    let mut documents = vec![
        root.join("README.md"),
        root.join("ARCHITECTURE.md"),
        root.join("clients/README.md"),
        root.join("CONTRIBUTING.md"),
    ];
    for folder in ["docs", "spec-notes"] {
        for entry in std::fs::read_dir(root.join(folder)).unwrap().flatten() {
            if entry.path().extension().is_some_and(|e| e == "md") {
                documents.push(entry.path());
            }
        }
    }
    let home = std::env::var("HOME").unwrap_or_default();
    let checkout = root.display().to_string();
    let machine = [
        "/root/",
        "/tmp/fresh",
        "/tmp/.tmp",
        "/work/main",
        "/work/shared",
    ];
    for document in documents {
        let text = std::fs::read_to_string(&document).unwrap();
        for (n, line) in text.lines().enumerate() {
            let own = machine.iter().any(|p| line.contains(p))
                || (home.len() > 1 && line.contains(&format!("{home}/")))
                || line.contains(&checkout);
            assert!(!own, "{}:{}: {line}", document.display(), n + 1);
        }
    }
}
