//! Hostile archives for `data fetch` (issue 41): judged from their central directory before a
//! byte is unpacked; one line naming the archive (file or URL) and the entry, never the
//! hidden staging folder; nothing left behind.

use super::{cli, stderr};
use std::path::Path;

/// `data fetch [--makehuman-assets] --from FROM --into INTO` on a fresh machine.
fn fetch(home: &Path, from: &str, into: &Path, assets: bool) -> std::process::Output {
    let mut command = cli();
    test_support::isolate(&mut command, home);
    command.args(["data", "fetch"]);
    if assets {
        command.arg("--makehuman-assets");
    }
    command
        .args(["--from", from, "--into"])
        .arg(into)
        .output()
        .unwrap()
}

/// The one error line of a refused fetch; nothing of it is left beside `into`.
fn refused_line(output: &std::process::Output, into: &Path) -> String {
    let text = stderr(output);
    assert_eq!(output.status.code(), Some(1), "{text}");
    let line = test_support::cli::error_line(output);
    assert!(!text.contains("staging"), "no hidden folder named: {text}");
    let parent = into.parent().unwrap();
    let left: Vec<_> = std::fs::read_dir(parent).unwrap().flatten().collect();
    assert!(left.is_empty(), "nothing left beside it: {left:?}");
    line
}

#[test]
fn hostile_archives_are_refused_before_a_byte_is_unpacked() {
    let work = tempfile::tempdir().unwrap();
    let home = work.path().join("home");
    let archives = work.path().join("archives");
    std::fs::create_dir_all(&archives).unwrap();
    for (i, archive) in test_support::archives::hostile_archives(&archives)
        .unwrap()
        .into_iter()
        .enumerate()
    {
        let into = work.path().join(format!("into{i}/folder"));
        std::fs::create_dir_all(into.parent().unwrap()).unwrap();
        let from = archive.path.display().to_string();
        let line = refused_line(&fetch(&home, &from, &into, archive.assets), &into);
        assert!(
            line.contains(&from) && line.contains(&archive.expected),
            "{}: {line}\nnot: {}",
            archive.name,
            archive.expected
        );
    }
}

#[test]
fn a_served_archive_is_named_by_its_url_whatever_fails() {
    let work = tempfile::tempdir().unwrap();
    let home = work.path().join("home");
    // A repeated entry, and an entry whose bytes do not match its checksum (found while
    // unpacking, after the directory passed): both lines name the URL and the entry.
    let twice = test_support::archives::zip_bytes(&[
        ("base/hair/a/a.mhclo", b"name a\n", false),
        ("base/hair/a/a.mhcl0", b"name b\n", false),
    ])
    .unwrap();
    let repeated = test_support::archives::renamed(&twice, b"a.mhcl0", b"a.mhclo");
    let good = test_support::archives::zip_bytes(&[(
        "base/hair/a/a.mhclo",
        b"name a\nuuid 1234\n",
        false,
    )])
    .unwrap();
    let corrupt = test_support::archives::renamed(&good, b"uuid 1234", b"uuid 9999");
    for (i, (bytes, expected)) in [
        (
            repeated,
            "entry `base/hair/a/a.mhclo` refused: it is repeated",
        ),
        (corrupt, ": entry base/hair/a/a.mhclo: "),
    ]
    .into_iter()
    .enumerate()
    {
        let url = test_support::cli::serve_once(bytes, "archive.zip");
        let into = work.path().join(format!("into{i}/folder"));
        std::fs::create_dir_all(into.parent().unwrap()).unwrap();
        let line = refused_line(&fetch(&home, &url, &into, true), &into);
        assert!(
            line.contains(&format!("{url}{expected}"))
                || line.contains(&format!("{url}: {expected}")),
            "{line}\nnot: {url}{expected}"
        );
    }
}
