//! Hostile G4MF files (`fixtures/bad/hostile_*`, written by `cargo xtask validator-fixtures`)
//! through every subcommand that reads G4MF: `validate` (which `convert --validate` runs),
//! `inspect`, `to-mpfb` and `preview`. None may panic (exit 101): each answers with findings that carry a
//! pointer, or with exactly one error line naming the file and the position, and leaves no
//! output behind.

#![allow(clippy::unwrap_used)] // Tests fail loudly by design.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_mpfb2g4mf"))
}

fn hostile_files() -> Vec<PathBuf> {
    let dir = test_support::workspace_root().join("fixtures/bad");
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("hostile_"))
        })
        .collect();
    files.sort();
    files
}

fn text(output: &Output) -> (String, String) {
    (
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

/// A refusal is exactly one `mpfb2g4mf: error:` line naming the file; returns it.
fn one_error_line(what: &str, file: &Path, output: &Output) -> String {
    let (_, stderr) = text(output);
    let lines: Vec<&str> = stderr.lines().collect();
    assert_eq!(lines.len(), 1, "{what}: one error line, got: {stderr}");
    assert!(
        lines[0].starts_with("mpfb2g4mf: error: "),
        "{what}: {stderr}"
    );
    let name = file.file_name().unwrap().to_str().unwrap();
    assert!(lines[0].contains(name), "{what}: names the file: {stderr}");
    lines[0].to_owned()
}

/// The pointer a reading command must name for each hostile file it refuses at the door.
fn expected_refusal(name: &str) -> Option<&'static str> {
    let stem = name.trim_start_matches("hostile_").split('.').next()?;
    Some(match stem {
        "child_out_of_range" => "/nodes/0/children/1: 99 is not an index into `nodes`",
        "joint_out_of_range" => "/nodes/1/skeleton/joints/1: 4000000000 is not an index",
        "mesh_instance_out_of_range" => "/nodes/4/meshInstance/mesh: 7 is not an index",
        "mesh_vertices_out_of_range" => "/meshes/0/vertices: 99 is not an index into `accessors`",
        "simplexes_out_of_range" => "/meshes/0/surfaces/0/simplexes: 99 is not an index",
        "skin_weights_out_of_range" => "/meshes/0/skin/weights: 99 is not an index",
        "binding_out_of_range" => "/meshes/0/surfaces/0/textureMap/simplexes: 99 is not",
        "material_out_of_range" => "/meshes/0/surfaces/0/material: 9 is not an index",
        "instance_material_out_of_range" => "/nodes/4/meshInstance/materials/0: 9 is not",
        "texture_out_of_range" => "/materials/0/baseColor/texture: 3 is not an index",
        "buffer_view_out_of_range" => "/accessors/0/bufferView: 99 is not an index",
        "buffer_out_of_range" => "/bufferViews/0/buffer: 5 is not an index into `buffers`",
        "blend_target_out_of_range" => "/meshes/0/blend/shapes/0/position/indices: 99 is not",
        _ => return None,
    })
}

#[test]
fn every_hostile_file_gets_findings_or_one_clear_line_never_a_panic() {
    let files = hostile_files();
    assert!(files.len() >= 30, "{} hostile files", files.len());
    for file in &files {
        let name = file.file_name().unwrap().to_str().unwrap().to_owned();

        // validate: exit 0 or 1, and an invalid verdict comes with located findings.
        let output = bin().arg("validate").arg(file).output().unwrap();
        let (stdout, stderr) = text(&output);
        match output.status.code() {
            Some(0) => assert!(stdout.contains(": valid"), "{name}: {stdout}"),
            Some(1) => {
                assert!(
                    stdout.lines().any(|l| l.contains(": error ")
                        && (l.contains(" at /") || l.contains(" at byte"))),
                    "{name}: an invalid file needs a located error finding: {stdout}"
                )
            }
            other => panic!("{name}: validate exited {other:?}: {stderr}"),
        }

        // inspect: reads or refuses with one line.
        let output = bin().arg("inspect").arg(file).output().unwrap();
        match output.status.code() {
            Some(0) => assert!(
                expected_refusal(&name).is_none(),
                "{name}: inspect must refuse a dangling reference"
            ),
            Some(1) => {
                let line = one_error_line(&format!("{name} inspect"), file, &output);
                if let Some(expected) = expected_refusal(&name) {
                    assert!(line.contains(expected), "{name}: `{expected}` in {line}");
                }
            }
            other => panic!("{name}: inspect exited {other:?}: {}", text(&output).1),
        }

        // to-mpfb: writes both files or nothing.
        let out = tempfile::tempdir().unwrap();
        let home = tempfile::tempdir().unwrap();
        // As on a machine without MPFB data: derived skeletons get default positions.
        let output = test_support::isolate(&mut bin(), home.path())
            .arg("to-mpfb")
            .arg(file)
            .arg("--out-dir")
            .arg(out.path())
            .arg("--quiet")
            .output()
            .unwrap();
        let left = std::fs::read_dir(out.path()).unwrap().count();
        match output.status.code() {
            Some(0) => assert!(left >= 1, "{name}: to-mpfb succeeded without files"),
            Some(1) => {
                let line = one_error_line(&format!("{name} to-mpfb"), file, &output);
                if let Some(expected) = expected_refusal(&name) {
                    assert!(line.contains(expected), "{name}: `{expected}` in {line}");
                }
                assert_eq!(left, 0, "{name}: to-mpfb left files after failing");
            }
            other => panic!("{name}: to-mpfb exited {other:?}: {}", text(&output).1),
        }

        // preview: draws or refuses with one line, and leaves no picture after refusing.
        let picture = out.path().join("p.png");
        let output = bin()
            .arg("preview")
            .arg(file)
            .args(["--size", "64", "-o"])
            .arg(&picture)
            .output()
            .unwrap();
        match output.status.code() {
            Some(0) => assert!(
                picture.exists(),
                "{name}: preview succeeded without a picture"
            ),
            Some(1) => {
                let line = one_error_line(&format!("{name} preview"), file, &output);
                if let Some(expected) = expected_refusal(&name) {
                    assert!(line.contains(expected), "{name}: `{expected}` in {line}");
                }
                assert!(
                    !picture.exists(),
                    "{name}: preview left a picture after failing"
                );
            }
            other => panic!("{name}: preview exited {other:?}: {}", text(&output).1),
        }
    }
}

#[test]
fn hostile_sizes_are_refused_before_allocating() {
    let dir = test_support::workspace_root().join("fixtures/bad");
    // A source_vertices range of 2^64 vertices: refused by to-mpfb, bounded by the mesh.
    let file = dir.join("hostile_huge_source_vertices.g4tf");
    let out = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    let output = test_support::isolate(&mut bin(), home.path())
        .arg("to-mpfb")
        .arg(&file)
        .arg("--out-dir")
        .arg(out.path())
        .output()
        .unwrap();
    let line = one_error_line("huge source_vertices", &file, &output);
    assert!(
        line.contains("/meshes/0/extras/mpfb/source_vertices/0: the ranges name more vertices than the mesh's 4"),
        "{line}"
    );
    // vectorSize 2^62: the validator reports the element size, no remainder by zero.
    let output = bin()
        .arg("validate")
        .arg(dir.join("hostile_huge_vector_size.g4tf"))
        .output()
        .unwrap();
    let (stdout, _) = text(&output);
    assert_eq!(output.status.code(), Some(1), "{stdout}");
    assert!(
        stdout.contains("ACCESSOR_PARTIAL_ELEMENT at /accessors/0"),
        "{stdout}"
    );
}

#[test]
fn external_buffers_past_the_limit_are_refused_unread() {
    let dir = tempfile::tempdir().unwrap();
    // A sparse 3 GiB file: costs no disk, and reading it would cost 3 GiB of memory.
    let big = std::fs::File::create(dir.path().join("big.bin")).unwrap();
    big.set_len(3 << 30).unwrap();
    let write = |name: &str, json: &str| {
        let path = dir.path().join(name);
        std::fs::write(&path, json).unwrap();
        path
    };
    let declared_huge = write(
        "declared.g4tf",
        r#"{"asset":{"dimension":3},"buffers":[{"byteLength":3221225472,"uri":"big.bin"}]}"#,
    );
    let zstd_huge = write(
        "zstd.g4tf",
        r#"{"asset":{"dimension":3},"buffers":[{"byteLength":16,"encoding":"Zstd","uri":"big.bin"}]}"#,
    );
    let plain_small = write(
        "small.g4tf",
        r#"{"asset":{"dimension":3},"buffers":[{"byteLength":16,"uri":"big.bin"}]}"#,
    );
    for (file, limit, expected) in [
        (
            &declared_huge,
            None,
            "/buffers/0/byteLength: buffer 0 is 3221225472 bytes, above the limit of 2147483648",
        ),
        (
            &zstd_huge,
            None,
            "/buffers/0/uri: buffer 0 is 3221225472 bytes, above the limit",
        ),
        (
            &plain_small,
            Some("0"),
            "/buffers/0/byteLength: buffer 0 is 16 bytes, above the limit of 0",
        ),
    ] {
        for command in ["inspect", "to-mpfb"] {
            let out = tempfile::tempdir().unwrap();
            let mut c = bin();
            c.arg(command).arg(file);
            if command == "to-mpfb" {
                c.arg("--out-dir").arg(out.path());
            }
            if let Some(mib) = limit {
                c.args(["--max-buffer-mib", mib]);
            }
            let output = c.output().unwrap();
            assert_eq!(
                output.status.code(),
                Some(1),
                "{command} {}",
                text(&output).1
            );
            let line = one_error_line(command, file, &output);
            assert!(line.contains(expected), "{command}: `{expected}` in {line}");
        }
        let mut c = bin();
        c.arg("validate").arg(file);
        if let Some(mib) = limit {
            c.args(["--max-buffer-mib", mib]);
        }
        let output = c.output().unwrap();
        let (stdout, _) = text(&output);
        assert_eq!(output.status.code(), Some(1), "{stdout}");
        assert!(
            stdout.contains("BUFFER_TOO_LARGE at /buffers/0/"),
            "{stdout}"
        );
    }
    // Plain data larger than byteLength: only what is needed is read, and inspect works.
    let output = bin().arg("inspect").arg(&plain_small).output().unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", text(&output).1);
}

#[test]
fn a_buffer_outside_the_folder_is_followed_only_when_allowed() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("outside.bin"), [0u8; 16]).unwrap();
    let sub = dir.path().join("sub");
    std::fs::create_dir(&sub).unwrap();
    let file = sub.join("escape.g4tf");
    std::fs::write(
        &file,
        r#"{"asset":{"dimension":3},"buffers":[{"byteLength":16,"uri":"../outside.bin"}]}"#,
    )
    .unwrap();
    let out = tempfile::tempdir().unwrap();
    let run = |command: &str, allow: bool| -> Output {
        let mut cmd = bin();
        cmd.arg(command).arg(&file);
        match command {
            "to-mpfb" => cmd.arg("--out-dir").arg(out.path()),
            "preview" => cmd.arg("-o").arg(out.path().join("p.png")),
            _ => &mut cmd,
        };
        if allow {
            cmd.arg("--allow-outside-folder");
        }
        cmd.output().unwrap()
    };
    // Every reading command refuses by default, naming the URI: validate with a warning (a
    // buffer left unread is not an error of the file), the others with their one error line.
    let (stdout, _) = text(&run("validate", false));
    assert!(
        stdout.contains("warning BUFFER_URI_NOT_READ") && stdout.contains("../outside.bin"),
        "{stdout}"
    );
    for command in ["inspect", "to-mpfb", "preview"] {
        let refused = run(command, false);
        assert_eq!(refused.status.code(), Some(1), "{command}");
        let line = one_error_line(command, &file, &refused);
        assert!(line.contains("../outside.bin"), "{command}: {line}");
    }
    // With the flag the buffer is read: nothing to warn about, and inspect reports it.
    let allowed = run("validate", true);
    let (stdout, stderr) = text(&allowed);
    assert!(allowed.status.success(), "{stdout}{stderr}");
    assert!(!stdout.contains("BUFFER_URI_NOT_READ"), "{stdout}");
    let allowed = run("inspect", true);
    let (stdout, stderr) = text(&allowed);
    assert!(allowed.status.success(), "{stdout}{stderr}");
    assert!(stdout.contains("file ../outside.bin"), "{stdout}");
    // preview and to-mpfb take the flag too: what stops them now is the empty file, not the
    // buffer's place.
    for command in ["to-mpfb", "preview"] {
        let allowed = run(command, true);
        let (stdout, stderr) = text(&allowed);
        assert_ne!(allowed.status.code(), Some(2), "{command}: {stderr}");
        assert!(
            !format!("{stdout}{stderr}").contains("leaves the file's folder"),
            "{command}: {stdout}{stderr}"
        );
    }
}
