//! `cargo xtask hostile`: the time and peak memory of each hostile input of issue 25 (and of
//! the hostile glTF files of issue 39) with the release build, as the table in
//! `docs/benchmarks.md` (target: under 5 s and 512 MiB on the 2-core machine). The tests
//! (`crates/mpfb2g4mf/tests/hostile_inputs.rs`, `hostile_gltf.rs`) assert what each input must
//! give; this only measures it, outside the required test path.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Seconds and MiB a hostile input may cost.
const TARGET_SECONDS: f64 = 5.0;
const TARGET_MIB: f64 = 512.0;

/// One hostile run: a name, the converter's arguments.
struct Case {
    name: &'static str,
    args: Vec<String>,
}

pub fn run(_args: &[String]) -> Result<(), String> {
    let bin = crate::bench::release_binary()?;
    let data = test_support::mpfb_data().ok_or("no MPFB data (set MPFB_DATA)")?;
    let work = tempfile::tempdir().map_err(|e| e.to_string())?;
    std::fs::create_dir_all(work.path().join("out")).map_err(|e| e.to_string())?;
    let cases = cases(&data, work.path())?;
    println!("| Hostile input | Exit | Time (s) | Peak memory (MiB) | First line of stderr |");
    println!("| --- | --- | --- | --- | --- |");
    let mut over = Vec::new();
    for case in &cases {
        let out = Command::new("/usr/bin/time")
            .args(["-f", "%e %M"])
            .arg(&bin)
            .args(&case.args)
            .current_dir(work.path())
            .output()
            .map_err(|e| format!("cannot run /usr/bin/time: {e}"))?;
        let text = String::from_utf8_lossy(&out.stderr);
        let mut lines: Vec<&str> = text.lines().collect();
        let measured = lines.pop().unwrap_or_default();
        let mut fields = measured.split_whitespace();
        let seconds: f64 = fields
            .next()
            .and_then(|s| s.parse().ok())
            .unwrap_or(f64::NAN);
        let mib = fields
            .next()
            .and_then(|s| s.parse::<f64>().ok())
            .map_or(f64::NAN, |kib| kib / 1024.0);
        // GNU time adds a line when the command exits non-zero.
        let first = lines
            .iter()
            .find(|l| !l.starts_with("Command exited with"))
            .copied()
            .unwrap_or("")
            .replace(work.path().to_str().unwrap_or("\u{0}"), "WORK")
            .replace(data.to_str().unwrap_or("\u{0}"), "DATA");
        let first: String = first.chars().take(110).collect();
        let exit = out.status.code().map_or("signal".into(), |c| {
            // time exits with the command's code.
            c.to_string()
        });
        println!(
            "| {} | {exit} | {seconds:.2} | {mib:.1} | `{}` |",
            case.name,
            first.replace('|', "\\|").replace('`', "'")
        );
        if seconds.is_nan() || seconds > TARGET_SECONDS || mib.is_nan() || mib > TARGET_MIB {
            over.push(case.name);
        }
    }
    if over.is_empty() {
        println!(
            "\nEvery hostile input under {TARGET_SECONDS} s and {TARGET_MIB} MiB ({} inputs).",
            cases.len()
        );
        Ok(())
    } else {
        Err(format!(
            "over {TARGET_SECONDS} s or {TARGET_MIB} MiB: {}",
            over.join(", ")
        ))
    }
}

fn write(path: &Path, bytes: &[u8]) -> Result<PathBuf, String> {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).map_err(|e| e.to_string())?;
    }
    std::fs::write(path, bytes).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(path.to_path_buf())
}

fn gz(text: &[u8]) -> Result<Vec<u8>, String> {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    e.write_all(text).map_err(|e| e.to_string())?;
    e.finish().map_err(|e| e.to_string())
}

/// The hostile inputs, written into `work`.
fn cases(data: &Path, work: &Path) -> Result<Vec<Case>, String> {
    let d = data.display().to_string();
    let convert = |extra: &[&str]| -> Vec<String> {
        let mut args: Vec<String> = ["convert", "--quiet", "--mpfb-data", &d, "-o", "out/x.g4b"]
            .iter()
            .map(|s| (*s).to_owned())
            .collect();
        args.extend(extra.iter().map(|s| (*s).to_owned()));
        args
    };
    let s = |p: PathBuf| p.display().to_string();
    let mut cases = Vec::new();

    let mut many = String::from("version v1.1.1\n");
    for i in 0..80_000 {
        many.push_str(&format!("keyword{i} value\n"));
    }
    let many = s(write(&work.join("many.mhm"), many.as_bytes())?);
    cases.push(Case {
        name: "`.mhm` with 80,000 unknown keywords",
        args: convert(&["--human", &many]),
    });
    let cr = s(write(
        &work.join("cr.mhm"),
        b"version v1.1.1\rmodifier breast/BreastSize 0.6\rmodifier macrodetails/Gender 0.2\r",
    )?);
    cases.push(Case {
        name: "`.mhm` with CR-only line ends",
        args: convert(&["--human", &cr]),
    });
    let long = s(write(
        &work.join("long.mhm"),
        format!("version v1.1.1\nmodifier {} 0.5\n", "x".repeat(4 << 20)).as_bytes(),
    )?);
    cases.push(Case {
        name: "`.mhm` with a 4 MB modifier name",
        args: convert(&["--human", &long]),
    });

    // A targets folder with a gzip bomb, a symbolic link loop and MPFB's macro.json.
    let targets = work.join("targets");
    std::fs::create_dir_all(targets.join("macrodetails")).map_err(|e| e.to_string())?;
    std::fs::copy(
        data.join("targets/macrodetails/macro.json"),
        targets.join("macrodetails/macro.json"),
    )
    .map_err(|e| e.to_string())?;
    write(
        &targets.join("custom/bomb.target.gz"),
        &gz(&vec![b' '; 64 << 20])?,
    )?;
    #[cfg(unix)]
    {
        let link = targets.join("custom/loop");
        if !link.exists() {
            std::os::unix::fs::symlink(&targets, link).map_err(|e| e.to_string())?;
        }
    }
    let t = s(targets.clone());
    let mut bomb = vec!["--rig-name", "default", "--targets-dir", &t];
    let shapes: Vec<String> = (0..16).map(|i| format!("Bomb{i}=bomb")).collect();
    for shape in &shapes {
        bomb.extend(["--blend-shape", shape]);
    }
    cases.push(Case {
        name: "16 `--blend-shape` of a 64 MiB gzip bomb (65 kB), in a folder with a symlink loop",
        args: convert(&bomb),
    });
    for (name, flag, rig) in [
        ("`/dev/zero` as the rig", "--rig", false),
        ("`/dev/zero` as the weights", "--weights", true),
        ("`/dev/zero` as the mesh", "--mesh", true),
        ("`/dev/zero` as the `.mhm`", "--human", false),
        ("`/dev/zero` as the pose file", "--rest-pose", true),
        ("`/dev/zero` as the humanoid map", "--humanoid-map", true),
    ] {
        let mut args = vec![flag, "/dev/zero"];
        if rig {
            args.extend(["--rig-name", "default"]);
        }
        cases.push(Case {
            name,
            args: convert(&args),
        });
    }
    let weights = data.join("rigs/standard/weights.game_engine.json");
    let w = s(weights);
    cases.push(Case {
        name: "weights of another rig",
        args: convert(&["--rig-name", "default", "--weights", &w]),
    });
    let mut proxy = String::new();
    for i in 0..5000 {
        proxy.push_str(&format!("v {i} 0 0\n"));
    }
    let proxy = s(write(&work.join("proxy.obj"), proxy.as_bytes())?);
    cases.push(Case {
        name: "a mesh of another topology",
        args: convert(&["--rig-name", "default", "--mesh", &proxy]),
    });
    let pose = s(write(
        &work.join("pose.json"),
        br#"{"bone_rotations": {"nobone": [0, 0, 0]}}"#,
    )?);
    cases.push(Case {
        name: "a pose naming no bone of the rig",
        args: convert(&["--rig-name", "default", "--rest-pose", &pose]),
    });
    let million = s(write(
        &work.join("million.toml"),
        b"[population]\nrig = \"missing.json\"\noutput = \"b{index}.g4b\"\ncount = 1000000\n[population.ranges]\nage = [0.2, 0.8]\n",
    )?);
    cases.push(Case {
        name: "a 150-byte manifest of 1,000,000 bodies, `--shard 0/1000` (stops at the missing rig)",
        args: vec![
            "batch".into(),
            "--shard".into(),
            "0/1000".into(),
            million.clone(),
        ],
    });
    cases.push(Case {
        name: "`batch --jobs 20000 --shard 0/1000` of the same manifest (capped at 4 per core)",
        args: vec![
            "batch".into(),
            "--jobs".into(),
            "20000".into(),
            "--shard".into(),
            "0/1000".into(),
            million,
        ],
    });
    // The hostile glTF files of tests/hostile_gltf.rs, through `preview`.
    let gltf = work.join("gltf");
    std::fs::create_dir_all(&gltf).map_err(|e| e.to_string())?;
    for case in test_support::gltf::hostile_files(&gltf).map_err(|e| e.to_string())? {
        let mut args = vec!["preview".to_owned(), s(case.file)];
        args.extend(case.args);
        args.extend(["-o".to_owned(), "out/p.png".to_owned()]);
        cases.push(Case {
            name: case.name,
            args,
        });
    }
    cases.extend(image_reader_cases(data, work)?);
    Ok(cases)
}

/// Issue 41, reading side: `validate` on images that claim more than they hold, relative image
/// URIs that climb out, and a 16385-pixel-square PNG (above the decode bound), each a copy of
/// the validator's corpus fixture.
fn image_reader_cases(_data: &Path, work: &Path) -> Result<Vec<Case>, String> {
    let fixtures = test_support::workspace_root().join("fixtures/validator");
    let mut cases = Vec::new();
    for (name, fixture) in [
        (
            "`validate`: a 65-byte PNG declaring 100000x100000 pixels",
            "FILE_IMAGE_UNDECODABLE_huge_header",
        ),
        ("`validate`: a truncated PNG", "FILE_IMAGE_UNDECODABLE"),
        (
            "`validate`: a PNG of 16385x16385 pixels (above the decode bound)",
            "FILE_IMAGE_TOO_LARGE",
        ),
        (
            "`validate`: an image URI `..%2F` out of the folder",
            "FILE_URI_NOT_READ",
        ),
    ] {
        let bytes = std::fs::read(fixtures.join(format!("{fixture}.g4tf")))
            .map_err(|e| format!("{fixture}: {e}"))?;
        let path = write(&work.join(format!("{fixture}.g4tf")), &bytes)?;
        cases.push(Case {
            name,
            args: vec!["validate".to_owned(), path.display().to_string()],
        });
    }
    Ok(cases)
}
