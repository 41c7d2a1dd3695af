//! `cargo xtask bench --formats`: what a population costs as `.glb` against `.g4b`: the same
//! three populations of `bench --populations` (naked, dressed, face units and visemes), each
//! run as whole `batch --jobs 1` processes writing `.g4b` and writing `.glb`, interleaved in
//! every round, with the file size a body; then each format's warm-body stage table, which
//! shows where the time goes.

use crate::measure::median;
use crate::populations::{BODIES, batch, files_with, manifests_as, stage_table};
use std::path::Path;

/// The ratio the issue asks glTF to stay within, for time and size alike.
const TARGET: f64 = 1.25;

/// Runs the rounds and prints the tables (Markdown, for `docs/benchmarks.md`).
pub fn run(bin: &Path, data: &Path, work: &Path, rounds: usize) -> Result<(), String> {
    let assets = test_support::makehuman_assets();
    let g4b = manifests_as(data, assets.as_deref(), work, "g4b")?;
    let glb = manifests_as(data, assets.as_deref(), work, "glb")?;
    // A first run of each fills the target cache and the folders.
    for population in g4b.iter().chain(&glb) {
        batch(bin, &population.manifest, "2")?;
    }
    let mut times: Vec<(Vec<f64>, Vec<f64>)> = vec![(Vec::new(), Vec::new()); g4b.len()];
    for round in 0..rounds {
        for ((a, b), t) in g4b.iter().zip(&glb).zip(&mut times) {
            // Alternate which format runs first, so neither always follows the other.
            if round % 2 == 0 {
                t.0.push(batch(bin, &a.manifest, "1")?);
                t.1.push(batch(bin, &b.manifest, "1")?);
            } else {
                t.1.push(batch(bin, &b.manifest, "1")?);
                t.0.push(batch(bin, &a.manifest, "1")?);
            }
        }
        eprintln!("xtask: round {} of {rounds} done", round + 1);
    }
    let bytes = |folder: &Path, suffix: &str| -> Result<f64, String> {
        let files = files_with(folder, suffix)?;
        if files.len() != BODIES {
            return Err(format!("{}: {} outputs", folder.display(), files.len()));
        }
        Ok(files.iter().map(|(_, b)| b.len()).sum::<usize>() as f64 / BODIES as f64)
    };
    let ms = |s: f64| s * 1e3 / BODIES as f64;
    println!(
        "\n{BODIES} bodies a population, `batch --jobs 1`, {rounds} interleaved rounds (which format runs first alternates); per body:\n"
    );
    println!(
        "| population | .g4b a body (median) | .glb a body (median) | .glb / .g4b each round | median | .g4b size | .glb size | size ratio |"
    );
    println!("| --- | ---: | ---: | --- | ---: | ---: | ---: | ---: |");
    for ((a, b), (t4, tg)) in g4b.iter().zip(&glb).zip(&times) {
        let ratios: Vec<f64> = tg.iter().zip(t4).map(|(g, f)| g / f).collect();
        let (size4, sizeg) = (bytes(&a.outputs, ".g4b")?, bytes(&b.outputs, ".glb")?);
        println!(
            "| {} | {:.2} ms | {:.2} ms | {} | {:.2}x | {:.2} MB | {:.2} MB | {:.2}x |",
            a.name,
            ms(median(t4.clone())),
            ms(median(tg.clone())),
            ratios
                .iter()
                .map(|r| format!("{r:.2}x"))
                .collect::<Vec<_>>()
                .join(", "),
            median(ratios.clone()),
            size4 / 1e6,
            sizeg / 1e6,
            sizeg / size4
        );
    }
    println!("\n(the issue's target: within {TARGET}x of G4MF in time and in size)");
    println!("\n.g4b:");
    stage_table(bin, &g4b)?;
    println!("\n.glb:");
    stage_table(bin, &glb)
}
