//! `cargo xtask bench --allocators`: the converter's malloc set-up against the alternatives,
//! in whole batches.
//!
//! The naked population and the one with face units and visemes of `--populations` (100
//! bodies each) run as `batch --jobs 1` and `--jobs 2` processes, interleaved round by round:
//! this build as it starts (glibc's malloc tuned by the re-exec), the same binary with
//! `MPFB2G4MF_SYSTEM_MALLOC=1` (glibc's defaults), and every build given with `--with
//! NAME=BIN` (the same commit with another `#[global_allocator]`, say; docs/benchmarks.md
//! says how those were built). Medians of wall time and of peak memory (GNU time's maximum
//! resident set).

use crate::measure::median;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Options of `--allocators`.
pub struct Options {
    /// Interleaved rounds.
    pub rounds: usize,
    /// Other builds, by name.
    pub with: Vec<(String, PathBuf)>,
}

/// One way of running the converter: a binary and the environment it gets.
struct Contender {
    name: String,
    bin: PathBuf,
    system_malloc: bool,
}

/// Runs the rounds and prints one Markdown table.
pub fn run(bin: &Path, data: &Path, work: &Path, options: &Options) -> Result<(), String> {
    let mut contenders = vec![
        Contender {
            name: "this build (tuned glibc)".into(),
            bin: bin.to_path_buf(),
            system_malloc: false,
        },
        Contender {
            name: "this build, MPFB2G4MF_SYSTEM_MALLOC=1".into(),
            bin: bin.to_path_buf(),
            system_malloc: true,
        },
    ];
    contenders.extend(options.with.iter().map(|(name, bin)| Contender {
        name: name.clone(),
        bin: bin.clone(),
        system_malloc: false,
    }));
    let populations = crate::populations::manifests(data, None, work)?;
    let wanted: Vec<_> = populations.iter().filter(|p| p.name != "dressed").collect();
    // (population, jobs, contender) -> (seconds, MiB) per round.
    let mut runs: Vec<Vec<(f64, f64)>> = Vec::new();
    let count = contenders.len();
    let cases: Vec<(usize, &str, usize)> = (0..wanted.len())
        .flat_map(|p| {
            ["1", "2"]
                .into_iter()
                .flat_map(move |jobs| (0..count).map(move |c| (p, jobs, c)))
        })
        .collect();
    runs.resize(cases.len(), Vec::new());
    for _ in 0..options.rounds {
        for (case, &(p, jobs, c)) in cases.iter().enumerate() {
            let contender = &contenders[c];
            let _ = std::fs::remove_dir_all(&wanted[p].outputs);
            runs[case].push(timed_batch(contender, &wanted[p].manifest, jobs)?);
        }
    }
    println!(
        "Whole batches of 100 bodies, {} interleaved rounds, medians (wall time; peak memory):\n",
        options.rounds
    );
    println!("| population | workers | malloc | wall | peak memory |");
    println!("| --- | ---: | --- | ---: | ---: |");
    for (case, &(p, jobs, c)) in cases.iter().enumerate() {
        let seconds = median(runs[case].iter().map(|r| r.0).collect());
        let mib = median(runs[case].iter().map(|r| r.1).collect());
        println!(
            "| {} | {jobs} | {} | {:.0} ms | {mib:.1} MiB |",
            wanted[p].name,
            contenders[c].name,
            seconds * 1e3
        );
    }
    Ok(())
}

/// Wall time (seconds) and peak memory (MiB) of one `batch --quiet --jobs JOBS`.
fn timed_batch(contender: &Contender, manifest: &Path, jobs: &str) -> Result<(f64, f64), String> {
    let mut command = Command::new("/usr/bin/time");
    command
        .args(["-f", "%M"])
        .arg(&contender.bin)
        .arg("batch")
        .arg(manifest)
        .args(["--quiet", "--jobs", jobs]);
    if contender.system_malloc {
        command.env("MPFB2G4MF_SYSTEM_MALLOC", "1");
    }
    let started = std::time::Instant::now();
    let output = command
        .output()
        .map_err(|e| format!("GNU time is needed for memory figures: {e}"))?;
    let seconds = started.elapsed().as_secs_f64();
    let stderr = String::from_utf8_lossy(&output.stderr);
    if !output.status.success() {
        return Err(format!("{}: {stderr}", contender.name));
    }
    let kib = crate::measure::peak_kib(&stderr)?;
    Ok((seconds, kib as f64 / 1024.0))
}
