//! `cargo xtask bench`: runs the criterion benchmarks and prints one table of medians, with
//! each stage's ratio to the baseline (serde_json Values of the same JSON + reading the OBJ).

use serde_json::Value;
use std::path::Path;
use std::process::Command;

pub fn run(args: &[String]) -> Result<(), String> {
    let mut command = Command::new("cargo");
    command.args(["bench", "-p", "mpfb-bench", "--bench", "pipeline", "--"]);
    command.args(args);
    let status = command
        .status()
        .map_err(|e| format!("cannot run cargo bench: {e}"))?;
    if !status.success() {
        return Err("cargo bench failed".into());
    }
    let root = test_support::workspace_root().join("target/criterion");
    let medians = collect_medians(&root)?;
    if medians.is_empty() {
        return Err("no benchmark results (is the MPFB data missing?)".into());
    }
    let get = |name: &str| medians.iter().find(|(n, _)| n == name).map(|(_, t)| *t);
    let baseline: f64 = [
        "baseline/value_rig",
        "baseline/value_weights",
        "baseline/read_obj_bytes",
    ]
    .iter()
    .filter_map(|n| get(n))
    .sum();
    println!(
        "\n{:<28} {:>12} {:>10}",
        "benchmark", "median", "x baseline"
    );
    for (name, nanos) in &medians {
        println!(
            "{name:<28} {:>12} {:>10.3}",
            format_time(*nanos),
            nanos / baseline
        );
    }
    println!(
        "{:<28} {:>12} {:>10.3}",
        "baseline (sum of 3)",
        format_time(baseline),
        1.0
    );
    Ok(())
}

/// `(benchmark id, median nanoseconds)` for every benchmark criterion has results for.
fn collect_medians(root: &Path) -> Result<Vec<(String, f64)>, String> {
    let mut out = Vec::new();
    let Ok(entries) = std::fs::read_dir(root) else {
        return Ok(out);
    };
    for entry in entries.flatten() {
        let new = entry.path().join("new");
        let (Ok(estimates), Ok(id)) = (
            std::fs::read_to_string(new.join("estimates.json")),
            std::fs::read_to_string(new.join("benchmark.json")),
        ) else {
            continue;
        };
        let estimates: Value = serde_json::from_str(&estimates).map_err(|e| e.to_string())?;
        let id: Value = serde_json::from_str(&id).map_err(|e| e.to_string())?;
        if let (Some(median), Some(name)) = (
            estimates["median"]["point_estimate"].as_f64(),
            id["full_id"].as_str(),
        ) {
            out.push((name.to_owned(), median));
        }
    }
    out.sort_by(|a, b| a.0.cmp(&b.0));
    Ok(out)
}

fn format_time(nanos: f64) -> String {
    if nanos >= 1e6 {
        format!("{:.2} ms", nanos / 1e6)
    } else {
        format!("{:.1} µs", nanos / 1e3)
    }
}
