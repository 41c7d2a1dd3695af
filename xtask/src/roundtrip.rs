//! `cargo xtask roundtrip`: the round-trip conformance suite as a table, one row per rig.

use conformance::roundtrip::round_trip;
use mpfb2g4mf::LoadedMesh;

pub fn run(_args: &[String]) -> Result<(), String> {
    let data = test_support::mpfb_data()
        .ok_or("no complete MPFB data found: run `mpfb2g4mf data fetch`, set MPFB_DATA, or place it at ../shared/mpfb-data")?;
    let mesh = std::sync::Arc::new(
        LoadedMesh::load(&data.join("3dobjs/base.obj"), None).map_err(|e| e.to_string())?,
    );
    let work = std::env::temp_dir().join(format!("mpfb2g4mf-roundtrip-{}", std::process::id()));
    std::fs::create_dir_all(&work).map_err(|e| e.to_string())?;
    println!(
        "{:<26} {:>5} {:>8} {:>9} {:>9} {:>8} {:>7} {:>6} | {:>9} {:>9} {:>9} {:>8}",
        "rig",
        "bones",
        "fields",
        "roll",
        "position",
        "pairs",
        "w.diff",
        "bytes",
        "d.ends",
        "d.roll",
        "refit",
        "defaults"
    );
    let mut failed = false;
    for rig in test_support::json_files_with_prefix(&data.join("rigs"), "rig.") {
        let name = rig
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or_default()
            .replacen("rig.", "weights.", 1);
        let weights = rig.with_file_name(name);
        let weights = weights.is_file().then_some(weights);
        let r = round_trip(&rig, weights.as_deref(), &mesh, &work)?;
        let ok = r.field_mismatches.is_empty()
            && r.max_roll_error <= 1e-6
            && r.max_position_error <= 1e-6
            && r.weight_mismatches == 0
            && r.byte_identical
            && r.derived_max_end_error <= 1e-5
            && r.derived_max_roll_error <= 1e-4
            && r.derived_max_refit_error <= 1e-4;
        failed |= !ok;
        println!(
            "{:<26} {:>5} {:>8} {:>9.1e} {:>9.1e} {:>8} {:>7} {:>6} | {:>9.1e} {:>9.1e} {:>9.1e} {:>8}{}",
            r.rig,
            r.bones,
            if r.field_mismatches.is_empty() {
                "same".to_owned()
            } else {
                format!("{} diff", r.field_mismatches.len())
            },
            r.max_roll_error,
            r.max_position_error,
            r.weight_pairs,
            r.weight_mismatches,
            if r.byte_identical { "same" } else { "DIFF" },
            r.derived_max_end_error,
            r.derived_max_roll_error,
            r.derived_max_refit_error,
            r.derived_default_ends,
            if ok { "" } else { "  <- FAILS" }
        );
    }
    let _ = std::fs::remove_dir_all(&work);
    println!(
        "\nleft: MPFB -> G4MF -> MPFB (fields, roll and position errors, weight pairs and mismatches) and G4MF -> MPFB -> G4MF bytes;"
    );
    println!(
        "right: extras stripped -> derived rig (end and roll errors vs the fit, refit error, ends left as DEFAULT)"
    );
    if failed {
        Err("some rigs fail the round trip".into())
    } else {
        Ok(())
    }
}
