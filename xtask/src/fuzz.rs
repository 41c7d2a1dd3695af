//! `cargo xtask fuzz`: runs the fuzz targets of `fuzz/` (a workspace of its own, outside the
//! main build). `--seconds N` fuzzes each target in turn with cargo-fuzz (installed when
//! missing; nightly features through RUSTC_BOOTSTRAP, as only the stable toolchain exists
//! here). `--smoke` builds the targets with plain cargo and replays their seeds and every
//! saved regression input plus a few thousand mutations: what CI runs.

use std::path::Path;
use std::process::Command;

const TARGETS: [&str; 23] = [
    "rig_json",
    "weights_json",
    "obj",
    "g4b",
    "skin_roundtrip",
    "inspect",
    "to_mpfb",
    "validate",
    "preview",
    "mhm",
    "preset",
    "target",
    "pose",
    "manifest",
    "mhclo",
    "mhmat",
    "gltf_scene",
    "to_gltf",
    "image_decode",
    "orm_pack",
    "archive",
    "uri",
    "bvh",
];

pub fn run(args: &[String]) -> Result<(), String> {
    let mut seconds: Option<u64> = None;
    let mut smoke = false;
    let mut only: Vec<String> = Vec::new();
    let mut iter = args.iter();
    while let Some(arg) = iter.next() {
        match arg.as_str() {
            "--seconds" => {
                seconds = Some(
                    iter.next()
                        .and_then(|s| s.parse().ok())
                        .ok_or("--seconds needs a number")?,
                )
            }
            "--smoke" => smoke = true,
            "--target" => only.push(iter.next().ok_or("--target needs a name")?.clone()),
            other => return Err(format!("unknown argument `{other}`")),
        }
    }
    let root = test_support::workspace_root();
    let fuzz = root.join("fuzz");
    let targets: Vec<&str> = TARGETS
        .iter()
        .copied()
        .filter(|t| only.is_empty() || only.iter().any(|o| o == t))
        .collect();
    if smoke {
        return run_smoke(&root, &fuzz, &targets);
    }
    let seconds = seconds.ok_or("give --seconds N (per target) or --smoke")?;
    if Command::new("cargo")
        .args(["fuzz", "--version"])
        .output()
        .map(|o| !o.status.success())
        .unwrap_or(true)
    {
        eprintln!("installing cargo-fuzz...");
        let ok = Command::new("cargo")
            .args(["install", "cargo-fuzz", "--locked"])
            .status()
            .map_err(|e| e.to_string())?
            .success();
        if !ok {
            return Err("cannot install cargo-fuzz".into());
        }
    }
    for target in targets {
        let corpus = fuzz.join("corpus").join(target);
        std::fs::create_dir_all(&corpus).map_err(|e| e.to_string())?;
        println!("== fuzzing {target} for {seconds} s");
        let status = Command::new("cargo")
            .current_dir(&fuzz)
            .env("RUSTC_BOOTSTRAP", "1")
            .args(["fuzz", "run", "-O", target])
            .arg(&corpus)
            .arg(fuzz.join("seeds").join(target))
            .arg("--")
            .arg(format!("-max_total_time={seconds}"))
            .args(["-rss_limit_mb=2048", "-timeout=10", "-print_final_stats=1"])
            .status()
            .map_err(|e| e.to_string())?;
        if !status.success() {
            return Err(format!(
                "{target} found a problem: see fuzz/artifacts/{target}/; fix it and keep the input in fixtures/fuzz-regressions/{target}/"
            ));
        }
    }
    Ok(())
}

fn run_smoke(root: &Path, fuzz: &Path, targets: &[&str]) -> Result<(), String> {
    let target_dir = root.join("target/fuzz-smoke");
    let ok = Command::new("cargo")
        .args(["build", "--release", "--quiet", "--manifest-path"])
        .arg(fuzz.join("Cargo.toml"))
        .arg("--target-dir")
        .arg(&target_dir)
        .status()
        .map_err(|e| e.to_string())?
        .success();
    if !ok {
        return Err("the fuzz targets do not build".into());
    }
    for target in targets {
        let mut command = Command::new(target_dir.join("release").join(target));
        command.args(["-runs=3000", "-seed=1", "-rss_limit_mb=2048", "-timeout=10"]);
        for dir in [
            fuzz.join("seeds").join(target),
            root.join("fixtures/fuzz-regressions").join(target),
        ] {
            if dir.is_dir() {
                command.arg(dir);
            }
        }
        let output = command.output().map_err(|e| e.to_string())?;
        if !output.status.success() {
            return Err(format!(
                "{target} failed its smoke run:\n{}",
                String::from_utf8_lossy(&output.stderr)
            ));
        }
        println!("fuzz smoke: {target} ok");
    }
    Ok(())
}
