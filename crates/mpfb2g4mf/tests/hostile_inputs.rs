//! Hostile inputs for every reader besides G4MF, through the real CLI (issue 25): none of
//! them may give exit 0 with a changed meaning, hang, or leave a file behind. Bounds are
//! asserted as limits reached (counts, sizes, the error they give), never as timings; each
//! test has only the harness's generous hang timeout. `docs/benchmarks.md` has the time and
//! peak memory of each hostile input (`cargo xtask hostile`).

#![allow(clippy::unwrap_used)] // Tests fail loudly by design.

#[path = "hostile_inputs/archives.rs"]
mod archives;
#[path = "hostile_inputs/assets.rs"]
mod assets;
#[path = "hostile_inputs/clips.rs"]
mod clips;
#[path = "hostile_inputs/closed_pipe.rs"]
mod closed_pipe;
#[path = "hostile_inputs/eyes_and_proxies.rs"]
mod eyes_and_proxies;
#[path = "hostile_inputs/image_readers.rs"]
mod image_readers;
#[path = "hostile_inputs/images.rs"]
mod images;
#[path = "hostile_inputs/motion.rs"]
mod motion;
#[path = "hostile_inputs/previews.rs"]
mod previews;
#[path = "hostile_inputs/report.rs"]
mod report;
#[path = "hostile_inputs/warned_inputs.rs"]
mod warned_inputs;
#[path = "hostile_inputs/weights_and_rigs.rs"]
mod weights_and_rigs;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn cli() -> Command {
    Command::new(env!("CARGO_BIN_EXE_mpfb2g4mf"))
}

use test_support::cli::{stderr, stdout};

/// `convert --mpfb-data DATA --helpers none -o OUT ARGS`.
fn convert(data: &Path, out: &Path, args: &[&str]) -> Output {
    cli()
        .args(["convert", "--quiet", "--helpers", "none", "--mpfb-data"])
        .arg(data)
        .arg("-o")
        .arg(out)
        .args(args)
        .output()
        .unwrap()
}

/// Asserts a refusal: exit 1, one line holding every one of `expected`, no output left.
fn refused(output: &Output, out: &Path, expected: &[&str]) {
    let text = stderr(output);
    assert_eq!(output.status.code(), Some(1), "{text}");
    assert_eq!(text.lines().count(), 1, "one line: {text}");
    for e in expected {
        assert!(text.contains(e), "expected `{e}` in: {text}");
    }
    assert!(text.len() < 600, "a short line: {} bytes", text.len());
    assert!(!out.exists(), "{} was written", out.display());
}

/// The names in `dir`, sorted.
fn names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[test]
fn description_text_forms_give_the_same_body() {
    let data = test_support::mpfb_data_or_skip!(description_text_forms_give_the_same_body);
    let dir = tempfile::tempdir().unwrap();
    let lines = [
        "version v1.1.1",
        "modifier macrodetails/Gender 0.200000",
        "modifier breast/BreastSize 0.600000",
        "modifier nose/nose-hump-decr|incr 0.500000",
    ];
    let body = |name: &str, bytes: Vec<u8>| -> Vec<u8> {
        let folder = dir.path().join(name);
        std::fs::create_dir_all(&folder).unwrap();
        let file = folder.join(name);
        std::fs::write(&file, bytes).unwrap();
        let out = folder.join("body.g4b");
        let result = convert(&data, &out, &["--human", file.to_str().unwrap()]);
        assert!(result.status.success(), "{name}: {}", stderr(&result));
        std::fs::read(out).unwrap()
    };
    let lf = body("lf.mhm", lines.join("\n").into_bytes());
    // The body differs from the default one: the modifiers are read.
    let default = body("default.mhm", b"version v1.1.1\n".to_vec());
    assert_ne!(lf, default);
    let mut bom = b"\xEF\xBB\xBF".to_vec();
    bom.extend(lines.join("\n").bytes());
    for (name, bytes) in [
        ("bom.mhm", bom),
        ("crlf.mhm", lines.join("\r\n").into_bytes()),
        ("cr.mhm", lines.join("\r").into_bytes()),
        // No extension: decided by the `version` line.
        ("no-extension", lines.join("\n").into_bytes()),
    ] {
        assert!(body(name, bytes) == lf, "{name} gives another body");
    }
    // A preset is a preset whatever the case of its extension, or without one.
    let preset = br#"{"phenotype": {"gender": 0.2}}"#.to_vec();
    let json = body("p.json", preset.clone());
    assert_ne!(json, default);
    assert!(body("p.JSON", preset.clone()) == json);
    assert!(body("p", preset) == json);
}

#[test]
fn descriptions_that_would_change_meaning_are_refused() {
    let data = test_support::mpfb_data_or_skip!(descriptions_that_would_change_meaning_are_refused);
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.g4b");
    for (name, text, expected) in [
        (
            "repeated.mhm",
            &b"version v1.1.1\nmodifier breast/BreastSize 0.6\nmodifier breast/BreastSize 0.6\n"[..],
            &["repeated.mhm:3:1", "given again (first on line 2)"][..],
        ),
        (
            "types.json",
            br#"{"targets": "nose"}"#,
            &["types.json: /targets: expected an array"],
        ),
        (
            "race.json",
            br#"{"phenotype": {"race": "african"}}"#,
            &["race.json: /phenotype/race"],
        ),
        (
            "keys.json",
            br#"{"rig": "default", "rig": "game_engine"}"#,
            &["keys.json: /rig: repeated key `rig`"],
        ),
        (
            "notes.txt",
            b"hello, this is not a character\n",
            &["notes.txt: neither a MakeHuman .mhm"],
        ),
        (
            "utf8.mhm",
            b"version v1.1.1\nname x\nmodifier breast/BreastSize \xff0.6\n",
            &["utf8.mhm:3:28: not UTF-8 text (byte 0xff)"],
        ),
        (
            "range.mhm",
            b"version v1.1.1\nmodifier breast/BreastSize 1e308\n",
            &["range.mhm:2"],
        ),
    ] {
        let file = dir.path().join(name);
        std::fs::write(&file, text).unwrap();
        let result = convert(&data, &out, &["--human", file.to_str().unwrap()]);
        refused(&result, &out, expected);
        // Numbers are printed short, never in 309 digits.
        assert!(
            !stderr(&result).contains("0000000000"),
            "{}",
            stderr(&result)
        );
    }
}

#[test]
fn poses_and_name_maps_that_would_change_meaning_are_refused() {
    let data =
        test_support::mpfb_data_or_skip!(poses_and_name_maps_that_would_change_meaning_are_refused);
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.g4b");
    for (name, text, flag, expected) in [
        (
            "other-rig.json",
            r#"{"bone_rotations": {"nobone": [0, 0, 0]}}"#,
            "--rest-pose",
            &["other-rig.json names no bone of rig `default`", "`nobone`"][..],
        ),
        (
            "euler.json",
            r#"{"bone_rotations": {"root": [0, 0, 1]}, "bone_rotation_modes": {"root": "XXY"}}"#,
            "--rest-pose",
            &["euler.json: /bone_rotation_modes/root: `XXY` is not an Euler order"],
        ),
        (
            "zero.json",
            r#"{"bone_rotations": {"root": [0, 0, 0, 0]}}"#,
            "--rest-pose",
            &["zero.json: /bone_rotations/root: a quaternion of zero"],
        ),
        (
            "keys.json",
            r#"{"bone_rotations": {"root": [0, 0, 0]}, "bone_rotations": {}}"#,
            "--rest-pose",
            &["keys.json: /bone_rotations: repeated key"],
        ),
        (
            "humanoid.json",
            r#"{"root": "Hips", "root": "Spine"}"#,
            "--humanoid-map",
            &["humanoid.json: /root: `root` is named twice"],
        ),
    ] {
        let file = dir.path().join(name);
        std::fs::write(&file, text).unwrap();
        let result = convert(
            &data,
            &out,
            &["--rig-name", "default", flag, file.to_str().unwrap()],
        );
        refused(&result, &out, expected);
    }
    // Some bones of another rig: baked, and the note counts the ones left out.
    let file = dir.path().join("partly.json");
    std::fs::write(
        &file,
        r#"{"bone_rotations": {"upperarm01.L": [0, 0, 0.5], "nobone": [0, 0, 0]}}"#,
    )
    .unwrap();
    let result = cli()
        .args(["convert", "--rig-name", "default", "--json", "--mpfb-data"])
        .arg(&data)
        .args(["--rest-pose", file.to_str().unwrap(), "-o"])
        .arg(&out)
        .output()
        .unwrap();
    assert!(result.status.success(), "{}", stderr(&result));
    let summary: serde_json::Value = serde_json::from_slice(&result.stdout).unwrap();
    let notes = summary["notes"].to_string();
    assert!(
        notes.contains("1 of its bones are not in rig `default`") && notes.contains("`nobone`"),
        "{notes}"
    );
}

#[test]
fn weights_for_another_rig_and_meshes_of_another_topology_are_refused() {
    let data = test_support::mpfb_data_or_skip!(
        weights_for_another_rig_and_meshes_of_another_topology_are_refused
    );
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.g4b");
    let weights = data.join("rigs/standard/weights.game_engine.json");
    let result = convert(
        &data,
        &out,
        &[
            "--rig-name",
            "default",
            "--weights",
            weights.to_str().unwrap(),
        ],
    );
    refused(
        &result,
        &out,
        &[
            "weights.game_engine.json: 52 of its 53 weight groups name no bone of rig `default`",
            "look made for rig `game_engine`",
        ],
    );
    // A body of another topology: both counts, before any joint cube is looked for.
    let obj = dir.path().join("proxy.obj");
    let mut text = String::new();
    for i in 0..5000 {
        text.push_str(&format!("v {i} 0 0\n"));
    }
    std::fs::write(&obj, text).unwrap();
    let result = convert(
        &data,
        &out,
        &["--rig-name", "default", "--mesh", obj.to_str().unwrap()],
    );
    refused(
        &result,
        &out,
        &["proxy.obj: 5000 vertices, but MakeHuman's base mesh has 19158"],
    );
    // A coordinate finite as f64 but not as the f32 G4MF stores: its line, not an infinity.
    let base = std::fs::read_to_string(data.join("3dobjs/base.obj")).unwrap();
    let huge = base.replacen("\nv ", "\nv 1e300 0 0\nv-removed ", 1);
    let huge: String = huge
        .lines()
        .filter(|l| !l.starts_with("v-removed"))
        .map(|l| format!("{l}\n"))
        .collect();
    let obj = dir.path().join("huge.obj");
    std::fs::write(&obj, huge).unwrap();
    let result = convert(
        &data,
        &out,
        &["--rig-name", "default", "--mesh", obj.to_str().unwrap()],
    );
    refused(
        &result,
        &out,
        &["huge.obj:", "`1e300` is not a finite number in f32's range"],
    );
    // The same for a weight: its pointer, not an infinite accessor value.
    let mut weights: serde_json::Value = serde_json::from_slice(
        &std::fs::read(data.join("rigs/standard/weights.default.json")).unwrap(),
    )
    .unwrap();
    weights["weights"]["breast.L"][0][1] = serde_json::json!(1e300);
    let file = dir.path().join("weights.huge.json");
    std::fs::write(&file, serde_json::to_vec(&weights).unwrap()).unwrap();
    let result = convert(
        &data,
        &out,
        &["--rig-name", "default", "--weights", file.to_str().unwrap()],
    );
    refused(
        &result,
        &out,
        &["weights.huge.json: /weights/breast.L/0: weight `1e300` is not a finite number"],
    );
}

#[cfg(unix)]
#[test]
fn limits_hold_for_pipes_and_devices() {
    let data = test_support::mpfb_data_or_skip!(limits_hold_for_pipes_and_devices);
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.g4b");
    // /dev/zero never ends: no reader opens a device (issue 41).
    for (flag, expected) in [
        ("--rest-pose", "/dev/zero: a device, not a regular file"),
        ("--humanoid-map", "/dev/zero: a device, not a regular file"),
        ("--human", "/dev/zero: a device, not a regular file"),
    ] {
        let mut args = vec![flag, "/dev/zero"];
        if flag != "--human" {
            args.extend(["--rig-name", "default"]);
        }
        refused(&convert(&data, &out, &args), &out, &[expected]);
    }
    // A pipe that never ends, as the rig: refused before it is opened.
    let fifo = dir.path().join("rig.fifo.json");
    let made = Command::new("mkfifo").arg(&fifo).status().unwrap();
    assert!(made.success());
    let writer_path = fifo.clone();
    let writer = std::thread::spawn(move || {
        use std::io::Write;
        let mut pipe = std::fs::OpenOptions::new()
            .write(true)
            .open(&writer_path)
            .unwrap();
        let chunk = vec![b' '; 1 << 16];
        // Ends when the reader closes the pipe.
        while pipe.write_all(&chunk).is_ok() {}
    });
    let result = convert(
        &data,
        &out,
        &["--rig", fifo.to_str().unwrap(), "--max-input-mib", "2"],
    );
    refused(
        &result,
        &out,
        &["rig.fifo.json: a FIFO, not a regular file"],
    );
    // The writer waits for a reader that never comes: open the pipe once to release it.
    drop(std::fs::File::open(&fifo).unwrap());
    writer.join().unwrap();
}

/// `text` gzipped.
fn gz(text: &[u8]) -> Vec<u8> {
    use std::io::Write;
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    e.write_all(text).unwrap();
    e.finish().unwrap()
}

/// Arguments for the default rig with `count` blend shapes of `target` from `targets`.
fn shapes_of(targets: &Path, target: &str, count: usize) -> Vec<String> {
    let mut args = vec![
        "--rig-name".to_owned(),
        "default".to_owned(),
        "--targets-dir".to_owned(),
        targets.display().to_string(),
    ];
    for i in 0..count {
        args.push("--blend-shape".into());
        args.push(format!("Shape{i}={target}"));
    }
    args
}

/// A targets folder of our own: MPFB's macro.json, a gzip bomb, a two-member gzip target and
/// a symbolic link back to the folder.
fn hostile_targets(data: &Path, dir: &Path) -> PathBuf {
    let targets = dir.join("targets");
    std::fs::create_dir_all(targets.join("macrodetails")).unwrap();
    std::fs::create_dir_all(targets.join("custom")).unwrap();
    std::fs::copy(
        data.join("targets/macrodetails/macro.json"),
        targets.join("macrodetails/macro.json"),
    )
    .unwrap();
    // 17 MiB of text in about 17 kB.
    let bomb = gz(&vec![b' '; 17 << 20]);
    std::fs::write(targets.join("custom/bomb.target.gz"), bomb).unwrap();
    let mut two = gz(b"0 0.1 0 0\n");
    two.extend(gz(b"1 0.2 0 0\n"));
    std::fs::write(targets.join("custom/two.target.gz"), two).unwrap();
    #[cfg(unix)]
    std::os::unix::fs::symlink(&targets, targets.join("custom/loop")).unwrap();
    targets
}

#[test]
fn targets_are_bounded_and_read_whole() {
    let data = test_support::mpfb_data_or_skip!(targets_are_bounded_and_read_whole);
    let dir = tempfile::tempdir().unwrap();
    let targets = hostile_targets(&data, dir.path());
    let out = dir.path().join("out.g4b");
    // Sixteen blend shapes of the bomb: the first one read stops at the size limit.
    let args = shapes_of(&targets, "bomb", 16);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    refused(
        &convert(&data, &out, &args),
        &out,
        &["bomb.target.gz", "larger than 16777216 bytes"],
    );
    // Nine shapes of a target with a million displacements: refused when the job's count
    // passes its bound, as the targets arrive.
    let big = gz("0 0 0 0\n".repeat(1 << 20).as_bytes());
    std::fs::write(targets.join("custom/big.target.gz"), big).unwrap();
    let args = shapes_of(&targets, "big", 9);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    refused(
        &convert(&data, &out, &args),
        &out,
        &["target displacements is more than the limit of 8388608"],
    );
    // Both members of a concatenated gzip are read: two vertices move.
    let result = cli()
        .args(["convert", "--rig-name", "default", "--json", "--mpfb-data"])
        .arg(&data)
        .args(["--targets-dir", targets.to_str().unwrap()])
        .args(["--blend-shape", "Two=two", "-o"])
        .arg(&out)
        .output()
        .unwrap();
    assert!(result.status.success(), "{}", stderr(&result));
    let file = g4mf_reader::read_path(&out, &g4mf_reader::ReadOptions::default()).unwrap();
    let blend = serde_json::to_value(file.document.meshes[0].blend.as_ref().unwrap()).unwrap();
    let indices = blend["shapes"][0]["position"]["indices"].as_u64().unwrap();
    let nonzero = file
        .read_u64(g4mf_model::AccessorIndex::new(indices as u32))
        .unwrap()
        .len();
    assert_eq!(nonzero, 2, "both members' vertices move");
}

#[test]
fn outputs_never_replace_inputs_reports_or_each_other() {
    let data = test_support::mpfb_data_or_skip!(outputs_never_replace_inputs_reports_or_each_other);
    let dir = tempfile::tempdir().unwrap();
    let manifest = dir.path().join("jobs.toml");
    let write_manifest = |outputs: &[&str]| {
        let jobs: String = outputs
            .iter()
            .map(|o| format!("[[jobs]]\nrig_name = \"default\"\noutput = \"{o}\"\n"))
            .collect();
        std::fs::write(
            &manifest,
            format!("[defaults]\nmpfb_data = \"{}\"\n{jobs}", data.display()),
        )
        .unwrap();
    };
    let batch = |extra: &[&str]| {
        cli()
            .arg("batch")
            .arg(&manifest)
            .args(extra)
            .output()
            .unwrap()
    };
    // A shard's report naming another shard's output.
    write_manifest(&["out/0.g4b", "out/1.g4b"]);
    let other = dir.path().join("out/0.g4b");
    let result = batch(&["--shard", "1/2", "--report", other.to_str().unwrap()]);
    assert_eq!(result.status.code(), Some(1));
    assert!(
        stderr(&result).contains("--report and the output of job 0 are the same file"),
        "{}",
        stderr(&result)
    );
    assert!(!dir.path().join("out").exists());
    // The same file through `..`.
    write_manifest(&["out/a.g4b", "out/../out/a.g4b"]);
    let result = batch(&[]);
    assert_eq!(result.status.code(), Some(1));
    assert!(
        stderr(&result).contains("jobs 0 and 1 write the same file"),
        "{}",
        stderr(&result)
    );
    assert!(!dir.path().join("out").exists());
    // --report naming the manifest, --contact-sheet naming an output.
    write_manifest(&["out/a.g4b"]);
    let before = std::fs::read(&manifest).unwrap();
    let result = batch(&["--report", manifest.to_str().unwrap()]);
    assert_eq!(result.status.code(), Some(1));
    assert!(
        stderr(&result).contains("the manifest and --report are the same file"),
        "{}",
        stderr(&result)
    );
    assert_eq!(std::fs::read(&manifest).unwrap(), before);
    let sheet = dir.path().join("out/./a.g4b");
    let result = batch(&["--contact-sheet", sheet.to_str().unwrap()]);
    assert_eq!(result.status.code(), Some(1));
    assert!(
        stderr(&result).contains("--contact-sheet and the output of job 0 are the same file"),
        "{}",
        stderr(&result)
    );
    assert!(!dir.path().join("out").exists());
    // A conversion whose output is one of its inputs (a rig file named like an output).
    let rig = dir.path().join("rig.g4b");
    std::fs::copy(data.join("rigs/standard/rig.default.json"), &rig).unwrap();
    let before = std::fs::read(&rig).unwrap();
    let result = cli()
        .args(["convert", "--rig"])
        .arg(&rig)
        .arg("--mpfb-data")
        .arg(&data)
        .arg("-o")
        .arg(dir.path().join("sub/../rig.g4b"))
        .output()
        .unwrap();
    assert_eq!(result.status.code(), Some(1));
    assert!(
        stderr(&result).contains("the output and an input are the same file"),
        "{}",
        stderr(&result)
    );
    assert_eq!(std::fs::read(&rig).unwrap(), before);
}

#[test]
fn batch_sizes_are_bounded_before_work_starts() {
    let dir = tempfile::tempdir().unwrap();
    let manifest = dir.path().join("m.toml");
    std::fs::write(
        &manifest,
        "[population]\noutput = \"b{index}.g4b\"\ncount = 1000000\n[population.ranges]\nage = [0.2, 0.8]\n",
    )
    .unwrap();
    // --jobs beyond a few per core: capped, not thousands of threads (this batch then stops
    // at its missing rig).
    let small = dir.path().join("small.toml");
    std::fs::write(
        &small,
        "[population]\nrig = \"missing.json\"\noutput = \"b{index}.g4b\"\ncount = 2\n",
    )
    .unwrap();
    let result = cli()
        .args(["batch", "--jobs", "20000"])
        .arg(&small)
        .output()
        .unwrap();
    assert_eq!(result.status.code(), Some(1));
    assert!(
        stderr(&result).contains("--jobs 20000 capped at"),
        "{}",
        stderr(&result)
    );
    // A million bodies: a shard makes only its own requests.
    let parsed = mpfb2g4mf::batch::read_manifest(&manifest).unwrap();
    let expanded =
        mpfb2g4mf::batch::expand_selected(&parsed, dir.path(), &|i| i % 250_000 == 7).unwrap();
    assert_eq!(expanded.total, 1_000_000);
    assert_eq!(
        expanded
            .requests
            .iter()
            .map(|r| r.index)
            .collect::<Vec<_>>(),
        [7, 250_007, 500_007, 750_007]
    );
    // One more is refused.
    std::fs::write(
        &manifest,
        "[population]\noutput = \"b{index}.g4b\"\ncount = 1000001\n",
    )
    .unwrap();
    let result = cli().arg("batch").arg(&manifest).output().unwrap();
    assert_eq!(result.status.code(), Some(1));
    assert!(
        stderr(&result).contains("above 1000000"),
        "{}",
        stderr(&result)
    );
}

#[test]
fn a_failed_pair_write_keeps_the_old_pair_whole() {
    use mpfb2g4mf::files::{Step, replace_text_with_buffers};
    let data = test_support::mpfb_data_or_skip!(a_failed_pair_write_keeps_the_old_pair_whole);
    let dir = tempfile::tempdir().unwrap();
    // Two real pairs: the old (plain) and the new (zstd, another buffer).
    let pair = |name: &str, extra: &[&str]| -> (Vec<u8>, String, Vec<u8>) {
        let folder = dir.path().join(name);
        std::fs::create_dir_all(&folder).unwrap();
        let out = folder.join("body.g4tf");
        let mut args = vec!["--rig-name", "default", "--external-bin"];
        args.extend_from_slice(extra);
        let result = convert(&data, &out, &args);
        assert!(result.status.success(), "{}", stderr(&result));
        let bins: Vec<String> = names(&folder)
            .into_iter()
            .filter(|n| n.ends_with(".bin"))
            .collect();
        assert_eq!(bins.len(), 1, "{bins:?}");
        let bin = std::fs::read(folder.join(&bins[0])).unwrap();
        (std::fs::read(&out).unwrap(), bins[0].clone(), bin)
    };
    let (old_text, old_name, old_bin) = pair("old", &[]);
    let (new_text, new_name, new_bin) = pair("new", &["--compress", "zstd"]);
    assert_ne!(old_name, new_name);
    let valid = |path: &Path| {
        let report =
            g4mf_validator::validate_path(path, &g4mf_validator::ValidateOptions::default());
        assert!(
            report.is_valid(),
            "{}: {:?}",
            path.display(),
            report.codes()
        );
    };
    for step in [
        Step::BufferWritten,
        Step::BufferRenamed,
        Step::TextWritten,
        Step::TextRenamed,
        // Not a failure: the write goes through.
        Step::TextRenamed,
    ]
    .iter()
    .enumerate()
    {
        let (round, &failing) = step;
        let inject = round < 4;
        let folder = dir.path().join(format!("target-{round}"));
        std::fs::create_dir_all(&folder).unwrap();
        std::fs::write(folder.join("body.g4tf"), &old_text).unwrap();
        std::fs::write(folder.join(&old_name), &old_bin).unwrap();
        let result = replace_text_with_buffers(
            &folder.join("body.g4tf"),
            &new_text,
            &[(new_name.clone(), new_bin.clone())],
            &mut |step| {
                if inject && step == failing {
                    Err(std::io::Error::other("injected: no space left on device"))
                } else {
                    Ok(())
                }
            },
        );
        let text = std::fs::read(folder.join("body.g4tf")).unwrap();
        match (inject, failing) {
            (true, Step::TextRenamed) => {
                // The new pair is in place; only the clean-up of the old buffer was stopped.
                assert!(result.is_ok());
                assert_eq!(text, new_text);
                assert_eq!(names(&folder), sorted(&["body.g4tf", &old_name, &new_name]));
            }
            (true, _) => {
                assert!(result.is_err(), "{failing:?}");
                assert_eq!(text, old_text, "{failing:?}: the old .g4tf changed");
                assert_eq!(
                    std::fs::read(folder.join(&old_name)).unwrap(),
                    old_bin,
                    "{failing:?}: the old buffer changed"
                );
                assert_eq!(
                    names(&folder),
                    sorted(&["body.g4tf", &old_name]),
                    "{failing:?}: files left behind"
                );
            }
            (false, _) => {
                assert!(result.is_ok());
                assert_eq!(text, new_text);
                assert_eq!(names(&folder), sorted(&["body.g4tf", &new_name]));
            }
        }
        valid(&folder.join("body.g4tf"));
    }
    // A copy of the old `.g4tf` still names the old buffer: it is kept.
    let folder = dir.path().join("with-copy");
    std::fs::create_dir_all(&folder).unwrap();
    std::fs::write(folder.join("body.g4tf"), &old_text).unwrap();
    std::fs::write(folder.join("body-v1.g4tf"), &old_text).unwrap();
    std::fs::write(folder.join(&old_name), &old_bin).unwrap();
    replace_text_with_buffers(
        &folder.join("body.g4tf"),
        &new_text,
        &[(new_name.clone(), new_bin.clone())],
        &mut |_| Ok(()),
    )
    .unwrap();
    assert_eq!(
        names(&folder),
        sorted(&["body-v1.g4tf", "body.g4tf", &old_name, &new_name])
    );
    valid(&folder.join("body-v1.g4tf"));
    valid(&folder.join("body.g4tf"));
}

fn sorted(names: &[&str]) -> Vec<String> {
    let mut v: Vec<String> = names.iter().map(|s| (*s).to_owned()).collect();
    v.sort();
    v
}

#[cfg(unix)]
#[test]
fn signals_and_kills_leave_no_temporary_files() {
    let data = test_support::mpfb_data_or_skip!(signals_and_kills_leave_no_temporary_files);
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    std::fs::create_dir_all(&out).unwrap();
    // A file a killed run left an hour and more ago is removed, and the run says so.
    let stale = out.join(".mpfb2g4mf-Xy12ab.part");
    std::fs::write(&stale, b"half a file").unwrap();
    std::fs::File::options()
        .write(true)
        .open(&stale)
        .unwrap()
        .set_modified(std::time::SystemTime::now() - std::time::Duration::from_secs(7200))
        .unwrap();
    let result = cli()
        .args(["convert", "--rig-name", "default", "--mpfb-data"])
        .arg(&data)
        .arg("-o")
        .arg(out.join("first.g4b"))
        .output()
        .unwrap();
    assert!(result.status.success(), "{}", stderr(&result));
    assert!(
        stderr(&result).contains("removed 1 temporary file an interrupted run left in"),
        "{}",
        stderr(&result)
    );
    assert!(!stale.exists());
    let first = std::fs::read(out.join("first.g4b")).unwrap();
    // SIGTERM in the middle of a batch: exit 130, earlier outputs unchanged, no temporary file.
    let manifest = dir.path().join("jobs.toml");
    let jobs: String = (0..40)
        .map(|i| {
            format!(
                "[[jobs]]\nrig_name = \"default\"\noutput = \"out/{}.g4tf\"\n",
                if i == 0 {
                    "first".to_owned()
                } else {
                    i.to_string()
                }
            )
        })
        .collect();
    std::fs::write(
        &manifest,
        format!("[defaults]\nmpfb_data = \"{}\"\n{jobs}", data.display()),
    )
    .unwrap();
    let child = cli()
        .args(["batch", "--quiet", "--jobs", "2"])
        .arg(&manifest)
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Signalled as soon as a temporary file exists (or after the first outputs appear).
    let started = std::time::Instant::now();
    loop {
        let names = names(&out);
        if names.iter().any(|n| n.ends_with(".part")) || names.len() > 5 {
            break;
        }
        assert!(
            started.elapsed() < std::time::Duration::from_secs(120),
            "the batch wrote nothing"
        );
        std::thread::sleep(std::time::Duration::from_micros(200));
    }
    let killed = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    let result = child.wait_with_output().unwrap();
    let text = stderr(&result);
    assert_eq!(result.status.code(), Some(130), "{text}");
    assert!(text.contains("interrupted"), "{text}");
    let left: Vec<String> = names(&out)
        .into_iter()
        .filter(|n| n.ends_with(".part"))
        .collect();
    assert!(left.is_empty(), "{left:?}");
    // first.g4b was not part of the batch (it writes first.g4tf): unchanged.
    assert_eq!(std::fs::read(out.join("first.g4b")).unwrap(), first);
}

#[test]
fn messages_say_each_cause_once_and_stay_short() {
    let data = test_support::mpfb_data_or_skip!(messages_say_each_cause_once_and_stay_short);
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.g4b");
    let missing = dir.path().join("missing-pose.json");
    let result = convert(
        &data,
        &out,
        &[
            "--rig-name",
            "default",
            "--rest-pose",
            missing.to_str().unwrap(),
        ],
    );
    refused(&result, &out, &["missing-pose.json"]);
    assert_eq!(
        stderr(&result).matches("No such file or directory").count(),
        1,
        "{}",
        stderr(&result)
    );
    // The scale is blamed, not a bone of the rig.
    let result = convert(
        &data,
        &out,
        &["--rig-name", "default", "--mesh-scale", "1e-30"],
    );
    refused(
        &result,
        &out,
        &["mesh scale must be between 1e-6 and 1e6, got 1e-30"],
    );
    // A 4 MB modifier name is not echoed whole.
    let long = dir.path().join("long.mhm");
    std::fs::write(
        &long,
        format!("version v1.1.1\nmodifier {} 0.5 0.5\n", "x".repeat(4 << 20)),
    )
    .unwrap();
    let result = convert(&data, &out, &["--human", long.to_str().unwrap()]);
    refused(&result, &out, &["long.mhm:2"]);
}

#[test]
fn many_unknown_lines_are_counted_not_listed() {
    let data = test_support::mpfb_data_or_skip!(many_unknown_lines_are_counted_not_listed);
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.g4b");
    let mhm = dir.path().join("many.mhm");
    let mut text = String::from("version v1.1.1\n");
    for i in 0..80_000 {
        text.push_str(&format!("keyword{i} value\n"));
    }
    std::fs::write(&mhm, text).unwrap();
    let result = cli()
        .args(["convert", "--helpers", "none", "--mpfb-data"])
        .arg(&data)
        .args(["--human", mhm.to_str().unwrap(), "-o"])
        .arg(&out)
        .output()
        .unwrap();
    assert!(result.status.success(), "{}", stderr(&result));
    let text = stderr(&result);
    let line = text
        .lines()
        .find(|l| l.contains("not converted from many.mhm"))
        .unwrap_or_default();
    assert!(
        line.starts_with("  warning   DESCRIPTION_NOT_CONVERTED: not converted from many.mhm"),
        "{line}"
    );
    assert!(line.contains("79980 other kinds"), "{line}");
    assert!(text.len() < 4000, "{} bytes of summary", text.len());
}

/// The head of a fake `.mhclo` ([`fake_assets`]): its name and mesh.
const HEAD: &str = "name bad\nobj_file bad.obj\n";
/// The tail of a fake `.mhclo`: its vertices, each on one body vertex.
const BODY: &str = "verts 0\n1\n2\n3\n";

/// A fake assets folder (see [`fake_assets`]) whose clothes wear `material` (as their
/// `.mhclo` names it), written in the clothes' folder as `text` when given, beside `files`
/// (names and bytes). Returns the folder.
fn dressed_assets(
    dir: &Path,
    case: &str,
    material: &str,
    text: Option<&str>,
    files: &[(&str, &[u8])],
) -> PathBuf {
    let (assets, file) = fake_assets(dir, case, &format!("{HEAD}material {material}\n{BODY}"));
    let folder = file.parent().unwrap();
    if let Some(text) = text {
        std::fs::write(folder.join(material), text).unwrap();
    }
    for (name, bytes) in files {
        std::fs::write(folder.join(name), bytes).unwrap();
    }
    assets
}

/// A fake assets folder in `dir`: `clothes/bad/` holding `bad.mhclo` (with `mhclo` as its
/// text) and a three-vertex `bad.obj`. Returns the folder and the `.mhclo`.
fn fake_assets(dir: &Path, case: &str, mhclo: &str) -> (PathBuf, PathBuf) {
    let assets = dir.join(case);
    let bad = assets.join("clothes/bad");
    std::fs::create_dir_all(&bad).unwrap();
    std::fs::write(
        bad.join("bad.obj"),
        "v 0 0 0\nv 1 0 0\nv 0 1 0\nvt 0 0\nvt 1 0\nvt 0 1\nf 1/1 2/2 3/3\n",
    )
    .unwrap();
    let file = bad.join("bad.mhclo");
    std::fs::write(&file, mhclo).unwrap();
    (assets, file)
}

#[test]
fn hostile_asset_files_are_refused_on_one_located_line() {
    let data =
        test_support::mpfb_data_or_skip!(hostile_asset_files_are_refused_on_one_located_line);
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.g4b");
    let head = "name bad\nobj_file bad.obj\n";
    let wear = |assets: &Path, clothes: &str| {
        convert(
            &data,
            &out,
            &[
                "--rig-name",
                "default",
                "--assets",
                assets.to_str().unwrap(),
                "--clothes",
                clothes,
            ],
        )
    };
    let check = |result: &Output, expected: &[&str]| {
        assert!(
            stderr(result).starts_with("mpfb2g4mf: error: "),
            "{}",
            stderr(result)
        );
        refused(result, &out, expected);
    };

    // The fake folder itself is wearable: what follows is refused for its one fault.
    let (assets, file) = fake_assets(dir.path(), "good", &format!("{head}verts 0\n1\n2\n3\n"));
    let result = wear(&assets, file.to_str().unwrap());
    assert!(result.status.success(), "{}", stderr(&result));
    std::fs::remove_file(&out).unwrap();

    // A reference past the body's 19158 vertices, by file and by name.
    let (assets, file) = fake_assets(
        dir.path(),
        "vertex",
        &format!("{head}verts 0\n1\n2\n99999\n"),
    );
    let expected = ["bad.mhclo:6:1: reference vertex 99999 is not a body vertex"];
    check(&wear(&assets, file.to_str().unwrap()), &expected);
    check(&wear(&assets, "bad"), &expected);

    // The mesh has 3 vertices, the fitting file places 2.
    let (assets, _) = fake_assets(dir.path(), "count", &format!("{head}verts 0\n1\n2\n"));
    check(
        &wear(&assets, "bad"),
        &[
            "bad.mhclo: ",
            "bad.obj has 3 vertices but the fitting file places 2",
        ],
    );

    // Four billion hidden vertices: refused as the range is read, before expanding it.
    let (assets, file) = fake_assets(
        dir.path(),
        "delete",
        &format!("{head}verts 0\n1\n2\n3\ndelete_verts\n0 - 4000000000\n"),
    );
    check(
        &wear(&assets, file.to_str().unwrap()),
        &["bad.mhclo:8:5: more than 4000000 `delete_verts` entries"],
    );

    // A device as the mesh leaves the assets folder; as the fitting file itself it is no
    // `.mhclo` (issue 41: hostile_inputs/assets.rs has the FIFOs and folders).
    #[cfg(unix)]
    {
        let (assets, file) = fake_assets(
            dir.path(),
            "zero",
            "name bad\nobj_file /dev/zero\nverts 0\n1\n2\n3\n",
        );
        check(
            &wear(&assets, file.to_str().unwrap()),
            &["bad.mhclo: `obj_file /dev/zero` leaves"],
        );
    }
    #[cfg(unix)]
    check(
        &wear(&assets, "/dev/zero"),
        &["--clothes: /dev/zero is not a clothes file (`.mhclo`)"],
    );

    // A weight whose fitted position overflows, a scale distance that blows offsets up: once
    // unlocated "not finite" errors from the writer, now refused at their column.
    for (case, text, expected) in [
        (
            "weight",
            format!("{head}verts 0\n1 2 3 1e300 1e300 0\n2\n3\n"),
            "bad.mhclo:4:7: the weight 1e300 is outside [-10000, 10000]",
        ),
        (
            "distance",
            format!("{head}x_scale 1 2 1e-320\nverts 0\n1 2 3 1 0 0 1 0 0\n2\n3\n"),
            "bad.mhclo:3:13: the scale distance 1e-320 is below 0.001",
        ),
    ] {
        let (assets, file) = fake_assets(dir.path(), case, &text);
        check(&wear(&assets, file.to_str().unwrap()), &[expected]);
    }

    // A mesh that is not there.
    let (assets, file) = fake_assets(
        dir.path(),
        "missing",
        "name bad\nobj_file missing.obj\nverts 0\n1\n2\n3\n",
    );
    check(
        &wear(&assets, file.to_str().unwrap()),
        &["clothes/bad/missing.obj: "],
    );
    assert_eq!(
        stderr(&wear(&assets, file.to_str().unwrap()))
            .matches("No such file or directory")
            .count(),
        1
    );

    // A material that is a folder.
    let (assets, file) = fake_assets(
        dir.path(),
        "material",
        &format!("{head}material mat.mhmat\nverts 0\n1\n2\n3\n"),
    );
    std::fs::create_dir_all(file.with_file_name("mat.mhmat")).unwrap();
    check(
        &wear(&assets, file.to_str().unwrap()),
        &["clothes/bad/mat.mhmat: "],
    );

    // An asset the folder does not hold: the message names the folder.
    let (assets, _) = fake_assets(dir.path(), "unknown", &format!("{head}verts 0\n1\n2\n3\n"));
    check(
        &wear(&assets, "nosuch"),
        &["no clothes `nosuch` in", assets.to_str().unwrap()],
    );

    // `--assets` naming a folder that is not an assets folder (the asset's own folder).
    let folder = file.parent().unwrap();
    check(
        &wear(folder, "bad"),
        &[
            folder.to_str().unwrap(),
            "(--assets) is not a MakeHuman assets folder",
        ],
    );
}
