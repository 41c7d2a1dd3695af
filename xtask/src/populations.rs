//! `cargo xtask bench --populations`: what a population costs against writing its files.
//!
//! Three populations of 100 random bodies on MPFB's default rig (naked; dressed by draws from
//! lists of clothes, hair, eyebrows and eyelashes; naked with face units and visemes) run as
//! whole `batch --jobs 1` and `--jobs 2` processes, and in the same rounds, interleaved, the
//! same bytes are written durably by this process (the same number of files of the same
//! sizes: write, fsync, rename over the previous round's file, as the converter's atomic
//! write does): the physical floor of a batch's output. Then the peak memory of
//! `batch --contact-sheet` over the naked population.

use crate::measure::median;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Bodies in each population.
pub(crate) const BODIES: usize = 100;

/// Options of `--populations`.
pub struct Options {
    /// Interleaved rounds (at least 5 for the tables).
    pub rounds: usize,
    /// Another build whose `--jobs 1` batches run in the same rounds (a change's before).
    pub against: Option<PathBuf>,
    /// Only the populations whose name contains this.
    pub only: Option<String>,
}

/// One population: its name, its manifest and the folder its outputs go to.
pub(crate) struct Population {
    pub(crate) name: &'static str,
    pub(crate) manifest: PathBuf,
    pub(crate) outputs: PathBuf,
}

/// Writes the manifests into `work`: the dressed population's only with an assets folder.
pub(crate) fn manifests(
    data: &Path,
    assets: Option<&Path>,
    work: &Path,
) -> Result<Vec<Population>, String> {
    manifests_as(data, assets, work, "g4b")
}

/// [`manifests`] writing `.{extension}` outputs into `{name}-{extension}` folders for any
/// extension but `g4b` (whose folders keep the population's name).
pub(crate) fn manifests_as(
    data: &Path,
    assets: Option<&Path>,
    work: &Path,
    extension: &str,
) -> Result<Vec<Population>, String> {
    let ranges = serde_json::json!({"gender": [0.0, 1.0], "age": [0.3, 0.9], "muscle": [0.0, 1.0],
                                    "weight": [0.0, 1.0], "height": [0.0, 1.0]});
    let mut out = Vec::new();
    let mut add =
        |name: &'static str, defaults: serde_json::Value, draw: Option<serde_json::Value>| {
            let folder = match extension {
                "g4b" => name.to_owned(),
                other => format!("{name}-{other}"),
            };
            let mut population = serde_json::json!({
                "rig_name": "default", "count": BODIES, "seed": 42,
                "output": format!("{folder}/{{index}}.{extension}"), "ranges": ranges,
            });
            if let Some(draw) = draw {
                population["draw"] = draw;
            }
            let manifest = work.join(format!("{folder}.json"));
            let json = serde_json::json!({"defaults": defaults, "population": population});
            std::fs::write(&manifest, json.to_string()).map_err(|e| e.to_string())?;
            out.push(Population {
                name,
                manifest,
                outputs: work.join(folder),
            });
            Ok::<(), String>(())
        };
    add("naked", serde_json::json!({"mpfb_data": data}), None)?;
    if let Some(assets) = assets {
        add(
            "dressed",
            serde_json::json!({"mpfb_data": data, "assets": assets}),
            Some(serde_json::json!({
                "clothes": [["male_casualsuit01", "shoes01"], ["female_sportsuit01", "shoes02"],
                            ["female_casualsuit02", "shoes06"], ["male_casualsuit04", "shoes04"]],
                "hair": ["short02", "bob01", "ponytail01", "long01", "afro01"],
                "eyebrows": ["eyebrow001", "eyebrow006", "eyebrow009"],
                "eyelashes": ["eyelashes01", "eyelashes02"]
            })),
        )?;
    }
    add(
        "face units + visemes",
        serde_json::json!({"mpfb_data": data, "face_units": true, "visemes": true}),
        None,
    )?;
    Ok(out)
}

/// Every `.g4b` directly in `folder` (name and bytes), sorted by name.
fn files_of(folder: &Path) -> Result<Vec<(String, Vec<u8>)>, String> {
    files_with(folder, ".g4b")
}

/// Every file directly in `folder` whose name ends in `suffix` (name and bytes), sorted.
pub(crate) fn files_with(folder: &Path, suffix: &str) -> Result<Vec<(String, Vec<u8>)>, String> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(folder).map_err(|e| format!("{}: {e}", folder.display()))? {
        let entry = entry.map_err(|e| e.to_string())?;
        let name = entry.file_name().to_string_lossy().into_owned();
        if !name.ends_with(suffix) {
            continue;
        }
        let bytes = std::fs::read(entry.path()).map_err(|e| e.to_string())?;
        files.push((name, bytes));
    }
    files.sort();
    Ok(files)
}

/// Writes `files` into `folder` as a batch's atomic writes do (a temporary file in the same
/// folder, written, fsynced, renamed over the file of the round before); the wall time.
fn write_durably(folder: &Path, files: &[(String, Vec<u8>)]) -> Result<f64, String> {
    std::fs::create_dir_all(folder).map_err(|e| e.to_string())?;
    let started = std::time::Instant::now();
    for (name, bytes) in files {
        let temp = folder.join(format!(".{name}.part"));
        let mut file = std::fs::File::create(&temp).map_err(|e| e.to_string())?;
        file.write_all(bytes).map_err(|e| e.to_string())?;
        file.sync_all().map_err(|e| e.to_string())?;
        drop(file);
        std::fs::rename(&temp, folder.join(name)).map_err(|e| e.to_string())?;
    }
    Ok(started.elapsed().as_secs_f64())
}

/// The wall time of `batch MANIFEST --quiet --jobs JOBS` with `bin`.
pub(crate) fn batch(bin: &Path, manifest: &Path, jobs: &str) -> Result<f64, String> {
    let started = std::time::Instant::now();
    let output = Command::new(bin)
        .arg("batch")
        .arg(manifest)
        .args(["--quiet", "--jobs", jobs])
        .output()
        .map_err(|e| e.to_string())?;
    if !output.status.success() {
        return Err(format!(
            "{} batch {}: {}",
            bin.display(),
            manifest.display(),
            String::from_utf8_lossy(&output.stderr)
        ));
    }
    Ok(started.elapsed().as_secs_f64())
}

/// One population's timings over the rounds, in seconds.
#[derive(Default)]
struct Timings {
    one: Vec<f64>,
    two: Vec<f64>,
    write: Vec<f64>,
    against: Vec<f64>,
    bytes: usize,
}

/// Runs the measurements and prints their tables (Markdown, for `docs/benchmarks.md`).
pub fn run(bin: &Path, data: &Path, work: &Path, options: &Options) -> Result<(), String> {
    let assets = test_support::makehuman_assets()
        .ok_or("no MakeHuman assets folder for the dressed population")?;
    let mut all = manifests(data, Some(&assets), work)?;
    if let Some(only) = &options.only {
        all.retain(|p| p.name.contains(only.as_str()));
    }
    // A first run of each fills the target cache and the outputs the writes copy.
    let mut outputs = Vec::new();
    for population in &all {
        batch(bin, &population.manifest, "2")?;
        let files = files_of(&population.outputs)?;
        if files.len() != BODIES {
            return Err(format!("{}: {} outputs", population.name, files.len()));
        }
        let copies = work.join(format!("{}-written", population.name));
        write_durably(&copies, &files)?;
        outputs.push((files, copies));
    }
    let mut timings: Vec<Timings> = all.iter().map(|_| Timings::default()).collect();
    for round in 0..options.rounds {
        for ((population, (files, copies)), t) in all.iter().zip(&outputs).zip(&mut timings) {
            t.one.push(batch(bin, &population.manifest, "1")?);
            t.write.push(write_durably(copies, files)?);
            t.two.push(batch(bin, &population.manifest, "2")?);
            if let Some(other) = &options.against {
                t.against.push(batch(other, &population.manifest, "1")?);
            }
            t.bytes = files.iter().map(|(_, b)| b.len()).sum();
        }
        eprintln!("xtask: round {} of {} done", round + 1, options.rounds);
    }
    let ms = |s: f64| s * 1e3 / BODIES as f64;
    println!(
        "\n{BODIES} bodies a population, {} interleaved rounds; per body: `batch --jobs 1` against writing the same bytes durably (write, fsync, rename):\n",
        options.rounds
    );
    println!(
        "| population | file size | --jobs 1 a body (median) | durable write a file (median) | ratio each round | median ratio |"
    );
    println!("| --- | ---: | ---: | ---: | --- | ---: |");
    for (population, t) in all.iter().zip(&timings) {
        let ratios: Vec<f64> = t.one.iter().zip(&t.write).map(|(a, b)| a / b).collect();
        println!(
            "| {} | {:.2} MB | {:.2} ms | {:.2} ms | {} | {:.2}x |",
            population.name,
            t.bytes as f64 / BODIES as f64 / 1e6,
            ms(median(t.one.clone())),
            ms(median(t.write.clone())),
            ratios
                .iter()
                .map(|r| format!("{r:.2}x"))
                .collect::<Vec<_>>()
                .join(", "),
            median(ratios.clone())
        );
    }
    println!("\n`--jobs 2` against `--jobs 1`, the same rounds:\n");
    println!("| population | --jobs 2 a body (median) | speed-up each round | median speed-up |");
    println!("| --- | ---: | --- | ---: |");
    for (population, t) in all.iter().zip(&timings) {
        let speedups: Vec<f64> = t.one.iter().zip(&t.two).map(|(a, b)| a / b).collect();
        println!(
            "| {} | {:.2} ms | {} | {:.2}x |",
            population.name,
            ms(median(t.two.clone())),
            speedups
                .iter()
                .map(|r| format!("{r:.2}x"))
                .collect::<Vec<_>>()
                .join(", "),
            median(speedups.clone())
        );
    }
    if let Some(other) = &options.against {
        println!(
            "\nThis build against {} (`--jobs 1`, the same rounds):\n",
            other.display()
        );
        println!(
            "| population | other build a body | this build a body | this / other each round |"
        );
        println!("| --- | ---: | ---: | --- |");
        for (population, t) in all.iter().zip(&timings) {
            println!(
                "| {} | {:.2} ms | {:.2} ms | {} |",
                population.name,
                ms(median(t.against.clone())),
                ms(median(t.one.clone())),
                t.one
                    .iter()
                    .zip(&t.against)
                    .map(|(a, b)| format!("{:.2}x", a / b))
                    .collect::<Vec<_>>()
                    .join(", ")
            );
        }
    }
    stage_table(bin, &all)?;
    if let Some(naked) = all.iter().find(|p| p.name == "naked") {
        contact_sheet_memory(bin, naked, work)?;
    }
    Ok(())
}

/// Bodies whose stage times are left out of [`stage_table`]: the first ones load the targets
/// and derive what the population shares.
const WARM_BODIES: usize = BODIES / 2;

/// Where a body's time goes once the population is warm: each stage's mean wall time
/// (`MPFB2G4MF_TIMINGS=1`) over the last half of a `--jobs 1` batch, one column a population.
pub(crate) fn stage_table(bin: &Path, all: &[Population]) -> Result<(), String> {
    let mut columns = Vec::new();
    for population in all {
        let output = Command::new(bin)
            .arg("batch")
            .arg(&population.manifest)
            .args(["--quiet", "--jobs", "1"])
            .env("MPFB2G4MF_TIMINGS", "1")
            .output()
            .map_err(|e| e.to_string())?;
        if !output.status.success() {
            return Err(format!("{}: the timed batch failed", population.name));
        }
        columns.push(stage_means(&String::from_utf8_lossy(&output.stderr)));
    }
    println!(
        "
A warm body's stages (`MPFB2G4MF_TIMINGS=1`, mean of bodies {}-{BODIES} of one `--jobs 1` batch; `write: file` is the worker's write to the temporary file, the sync and rename are the writer thread's):
",
        WARM_BODIES + 1
    );
    println!(
        "| stage | {} |",
        all.iter().map(|p| p.name).collect::<Vec<_>>().join(" | ")
    );
    println!("| --- |{}", " ---: |".repeat(all.len()));
    let mut names: Vec<&str> = Vec::new();
    for column in &columns {
        for (name, _) in column {
            if !names.contains(&name.as_str()) {
                names.push(name);
            }
        }
    }
    let mut totals = vec![0.0; columns.len()];
    for name in names {
        let cells: Vec<String> = columns
            .iter()
            .zip(&mut totals)
            .map(|(column, total)| {
                let mean = column
                    .iter()
                    .find(|(n, _)| n == name)
                    .map_or(0.0, |(_, m)| *m);
                *total += mean;
                format!("{mean:.2} ms")
            })
            .collect();
        println!("| {name} | {} |", cells.join(" | "));
    }
    let totals: Vec<String> = totals.iter().map(|t| format!("{t:.2} ms")).collect();
    println!("| all stages | {} |", totals.join(" | "));
    Ok(())
}

/// Each stage's mean over the bodies after [`WARM_BODIES`], in first-seen order, from the
/// timings lines (`timings: NAME   1.23 ms`; parts of a stage, indented with `-`, are left
/// out, and so are lines seen once, which are the process's own).
fn stage_means(stderr: &str) -> Vec<(String, f64)> {
    let mut seen: Vec<(String, usize, f64, usize)> = Vec::new();
    for line in stderr.lines() {
        let Some(rest) = line.strip_prefix("timings: ") else {
            continue;
        };
        if rest.trim_start().starts_with('-') {
            continue;
        }
        let Some(ms) = rest
            .strip_suffix(" ms")
            .and_then(|r| r.rsplit(' ').next())
            .and_then(|n| n.parse::<f64>().ok())
        else {
            continue;
        };
        let name = rest
            .strip_suffix(" ms")
            .and_then(|r| r.rsplit_once(' '))
            .map_or("", |(n, _)| n.trim())
            .to_owned();
        let at = match seen.iter().position(|(n, ..)| *n == name) {
            Some(at) => at,
            None => {
                seen.push((name, 0, 0.0, 0));
                seen.len() - 1
            }
        };
        let entry = &mut seen[at];
        entry.1 += 1;
        if entry.1 > WARM_BODIES {
            entry.2 += ms;
            entry.3 += 1;
        }
    }
    seen.into_iter()
        .filter(|(_, _, _, counted)| *counted > 0)
        .map(|(name, _, sum, counted)| (name, sum / counted as f64))
        .collect()
}

/// Peak memory (GNU time's maximum resident set) of `batch --contact-sheet` over the naked
/// population, with one and two workers.
fn contact_sheet_memory(bin: &Path, naked: &Population, work: &Path) -> Result<(), String> {
    let mut figures = Vec::new();
    for jobs in ["1", "2"] {
        let sheet = work.join(format!("sheet-{jobs}.png"));
        let output = Command::new("/usr/bin/time")
            .args(["-f", "%M"])
            .arg(bin)
            .arg("batch")
            .arg(&naked.manifest)
            .args([
                "--quiet",
                "--jobs",
                jobs,
                "--tile-size",
                "120",
                "--contact-sheet",
            ])
            .arg(&sheet)
            .output()
            .map_err(|e| format!("GNU time is needed for memory figures: {e}"))?;
        let text = String::from_utf8_lossy(&output.stderr);
        if !output.status.success() {
            return Err(format!("batch --contact-sheet failed: {text}"));
        }
        let kib = crate::measure::peak_kib(&text)?;
        figures.push(format!("--jobs {jobs} {:.1} MiB", kib as f64 / 1024.0));
    }
    println!(
        "\nPeak memory of `batch --contact-sheet --tile-size 120` over the {BODIES} naked bodies: {} (target: under 96 MiB)",
        figures.join(", ")
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stage_means_leave_out_warm_up_parts_and_the_process_lines() {
        let mut text = String::from("timings: start (malloc: tuned)\n");
        for body in 0..BODIES {
            let load = if body < WARM_BODIES { 9.0 } else { 1.0 };
            text.push_str(&format!(
                "timings:   - rig                      0.50 ms\ntimings: load inputs      {load:.2} ms\ntimings: write: file   2.00 ms\n"
            ));
        }
        text.push_str("timings: after the command   3.00 ms\n");
        assert_eq!(
            stage_means(&text),
            [
                ("load inputs".to_owned(), 1.0),
                ("write: file".to_owned(), 2.0)
            ]
        );
    }
}
