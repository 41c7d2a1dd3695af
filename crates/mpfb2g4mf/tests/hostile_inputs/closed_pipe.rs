//! Output to a closed pipe (`mpfb2g4mf data status --json | head`, issue 41): every command
//! ends quietly, as a program the pipe's signal ends (exit 141), with no panic and no line.

use super::cli;
use std::os::fd::OwnedFd;
use std::os::unix::net::UnixStream;
use std::path::Path;
use std::process::Stdio;

/// Runs `args` with standard output a pipe whose reader is already closed (and standard error
/// too when `both`); its exit code and standard error. The pipe is one end of a socket pair
/// whose other end is closed before the command starts, so every write fails as a closed
/// pipe does (broken pipe), with no race against the command.
fn with_closed_output(args: &[&str], data: &Path, both: bool) -> (Option<i32>, String) {
    let (reader, writer) = UnixStream::pair().unwrap();
    drop(reader);
    let mut command = cli();
    command
        .args(args)
        .env("MPFB_DATA", data)
        .stdout(Stdio::from(OwnedFd::from(writer.try_clone().unwrap())));
    let output = if both {
        command
            .stderr(Stdio::from(OwnedFd::from(writer)))
            .output()
            .unwrap()
    } else {
        drop(writer);
        command.stderr(Stdio::piped()).output().unwrap()
    };
    (
        output.status.code(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

#[test]
fn output_to_a_closed_pipe_ends_quietly() {
    let data = test_support::mpfb_data_or_skip!(output_to_a_closed_pipe_ends_quietly);
    let work = tempfile::tempdir().unwrap();
    let g4b = work.path().join("a.g4b");
    let made = cli()
        .args(["demo", "--quiet", "-o"])
        .arg(&g4b)
        .env("MPFB_DATA", &data)
        .output()
        .unwrap();
    assert!(
        made.status.success(),
        "{}",
        String::from_utf8_lossy(&made.stderr)
    );
    let file = g4b.display().to_string();
    let out = work.path().join("b.g4b").display().to_string();
    for (args, both) in [
        (vec!["data", "status", "--json"], false),
        (vec!["data", "status"], false),
        (vec!["inspect", &file], false),
        (vec!["validate", &file], false),
        (vec!["validate", "--format", "json", &file], false),
        // The summary goes to standard error: closed too, the command still ends quietly.
        (vec!["convert", "--rig-name", "default", "-o", &out], true),
    ] {
        let (code, text) = with_closed_output(&args, &data, both);
        assert_eq!(code, Some(141), "{args:?}: {text}");
        assert!(text.is_empty(), "{args:?} says nothing: {text}");
    }
}
