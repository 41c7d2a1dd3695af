//! Hostile glTF files (`test_support::gltf::hostile_files`, written afresh into a temporary
//! folder) through `preview` and through the contact sheet: none may panic (exit 101); each
//! is refused with exactly one error line naming the file and the place (a byte offset or a
//! JSON pointer), or drawn with a warning where that is the defined behaviour (an image that
//! cannot be decoded within bounds, a vertex that is not a number), in bounded time and
//! memory (under 5 s and 512 MiB each, measured with GNU time where it is installed).

#![allow(clippy::unwrap_used)] // Tests fail loudly by design.

use std::path::Path;
use std::process::Command;
use test_support::gltf::{Expect, hostile_files};

/// Seconds and MiB a hostile input may cost.
const MAX_SECONDS: f64 = 5.0;
const MAX_MIB: f64 = 512.0;

/// Runs `preview` on `file` (GNU time around it when installed); exit code, stderr without
/// time's line, and the seconds and MiB it measured.
fn preview(
    file: &Path,
    args: &[String],
    picture: &Path,
) -> (Option<i32>, String, Option<(f64, f64)>) {
    let time = Path::new("/usr/bin/time");
    let mut command = if time.exists() {
        let mut c = Command::new(time);
        c.args(["-f", "%e %M"]).arg(env!("CARGO_BIN_EXE_mpfb2g4mf"));
        c
    } else {
        Command::new(env!("CARGO_BIN_EXE_mpfb2g4mf"))
    };
    let output = command
        .arg("preview")
        .arg(file)
        .args(args)
        .arg("--size")
        .arg("64")
        .arg("-o")
        .arg(picture)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    let mut lines: Vec<&str> = stderr.lines().collect();
    let mut measured = None;
    if time.exists() {
        let last = lines.pop().unwrap_or_default();
        let mut fields = last.split_whitespace().map(|f| f.parse::<f64>().ok());
        if let (Some(Some(seconds)), Some(Some(kib))) = (fields.next(), fields.next()) {
            measured = Some((seconds, kib / 1024.0));
        }
        lines.retain(|l| !l.starts_with("Command exited with"));
    }
    (output.status.code(), lines.join("\n"), measured)
}

#[test]
fn every_hostile_gltf_file_is_refused_in_one_line_or_drawn_with_a_warning() {
    let root = tempfile::tempdir().unwrap();
    let dir = root.path().join("files");
    std::fs::create_dir(&dir).unwrap();
    let cases = hostile_files(&dir).unwrap();
    assert!(cases.len() >= 18, "{} cases", cases.len());
    let out = tempfile::tempdir().unwrap();
    for case in &cases {
        let name = case.name;
        let picture = out.path().join(format!("{name}.png"));
        let (code, stderr, measured) = preview(&case.file, &case.args, &picture);
        let file_name = case.file.file_name().unwrap().to_str().unwrap();
        match case.expect {
            Expect::Refused(expected) => {
                assert_eq!(code, Some(1), "{name}: exit {code:?}: {stderr}");
                let lines: Vec<&str> = stderr.lines().collect();
                assert_eq!(lines.len(), 1, "{name}: one line: {stderr}");
                assert!(
                    lines[0].starts_with("mpfb2g4mf: error: "),
                    "{name}: {stderr}"
                );
                assert!(
                    lines[0].contains(file_name),
                    "{name}: names the file: {stderr}"
                );
                assert!(
                    lines[0].contains(expected),
                    "{name}: `{expected}` in {stderr}"
                );
                assert!(!picture.exists(), "{name}: no picture after a refusal");
            }
            Expect::Drawn(warning) => {
                assert_eq!(code, Some(0), "{name}: exit {code:?}: {stderr}");
                assert!(picture.exists(), "{name}: a picture");
                if warning.is_empty() {
                    assert!(stderr.is_empty(), "{name}: {stderr}");
                } else {
                    assert!(
                        stderr.lines().any(|l| l.starts_with("mpfb2g4mf: warning: ")
                            && l.contains(file_name)
                            && l.contains(warning)),
                        "{name}: `{warning}` in {stderr}"
                    );
                }
            }
        }
        if let Some((seconds, mib)) = measured {
            assert!(seconds < MAX_SECONDS, "{name}: {seconds} s");
            assert!(mib < MAX_MIB, "{name}: {mib} MiB");
        }
    }
}

#[test]
fn the_contact_sheet_draws_gltf_files_and_lists_the_hostile_ones() {
    let root = tempfile::tempdir().unwrap();
    let dir = root.path().join("files");
    std::fs::create_dir(&dir).unwrap();
    let cases = hostile_files(&dir).unwrap();
    let sheet = mpfb2g4mf::batch::ContactSheet::new(32, g4mf_reader::ReadOptions::default());
    for (order, case) in cases.iter().enumerate() {
        sheet.draw(order, &case.file);
    }
    let (image, unpictured, notes) = sheet.finish();
    // Cases refused only under a lower --max-buffer-mib draw at the default.
    let refused = cases
        .iter()
        .filter(|c| matches!(c.expect, Expect::Refused(_)) && c.args.is_empty())
        .count();
    assert_eq!(unpictured.len(), refused, "{unpictured:#?}");
    // What a drawn file leaves out is said, as preview says it.
    for case in &cases {
        if let Expect::Drawn(warning) = case.expect {
            if !warning.is_empty() {
                assert!(
                    notes
                        .iter()
                        .any(|n| n.path == case.file && n.note.contains(warning)),
                    "{}: `{warning}` in {notes:#?}",
                    case.name
                );
            }
        }
    }
    for u in &unpictured {
        let case = cases.iter().find(|c| c.file == u.path).unwrap();
        if let Expect::Refused(expected) = case.expect {
            assert!(u.reason.contains(expected), "{}: {}", case.name, u.reason);
        }
    }
    assert!(image.width() >= 32);
}
