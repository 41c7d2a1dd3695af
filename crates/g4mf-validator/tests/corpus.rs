//! The golden corpus: `fixtures/validator/`, one file per rule (written by
//! `cargo xtask validator-fixtures`), each with its expected report beside it. The exact codes,
//! severities, pointers and offsets are asserted; `UPDATE_GOLDEN=1` rewrites the reports.

#![allow(clippy::unwrap_used)] // Tests fail loudly by design.

use g4mf_validator::{Severity, ValidateOptions, validate_path};
use std::path::PathBuf;

fn corpus() -> Vec<PathBuf> {
    let dir = test_support::workspace_root().join("fixtures/validator");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| matches!(p.extension().and_then(|e| e.to_str()), Some("g4tf" | "g4b")))
        .collect();
    files.sort();
    files
}

/// The rule a fixture violates: its file stem up to an optional lowercase `_variant`.
fn rule_of(stem: &str) -> String {
    let parts: Vec<&str> = stem.split('_').collect();
    let end = parts
        .iter()
        .position(|p| p.chars().any(|c| c.is_ascii_lowercase()))
        .unwrap_or(parts.len());
    parts[..end].join("_")
}

#[test]
fn every_fixture_reports_its_rule_exactly() {
    let files = corpus();
    assert!(files.len() > 80, "the corpus has {} files", files.len());
    let update = std::env::var_os("UPDATE_GOLDEN").is_some();
    let mut mismatches = Vec::new();
    for path in files {
        let stem = path.file_stem().unwrap().to_str().unwrap().to_owned();
        let mut report = validate_path(&path, &ValidateOptions::default());
        report.uri = path.file_name().unwrap().to_string_lossy().into_owned();
        report.validator_version = "g4mf-validator".into();
        let rule = rule_of(&stem);
        if rule == "valid" || rule.is_empty() {
            if !report.findings.is_empty() {
                mismatches.push(format!(
                    "{stem}: a valid file has findings {:?}",
                    report.codes()
                ));
            }
        } else if !report.codes().contains(&rule.as_str()) {
            mismatches.push(format!(
                "{stem} does not report {rule}: {:?}",
                report.codes()
            ));
        } else if report
            .findings
            .iter()
            .any(|f| f.code == rule && f.severity == Severity::Info)
            && !["NODE_UNUSED", "CHUNK_UNKNOWN_TYPE"].contains(&rule.as_str())
        {
            mismatches.push(format!("{stem}: {rule} is only an info"));
        }
        let json = serde_json::to_string_pretty(&report).unwrap() + "\n";
        let expected_path = path.with_file_name(format!(
            "{}.expected.json",
            path.file_name().unwrap().to_string_lossy()
        ));
        if update {
            std::fs::write(&expected_path, &json).unwrap();
        }
        match std::fs::read_to_string(&expected_path) {
            Ok(expected) if expected == json => {}
            Ok(_) => mismatches.push(format!(
                "{stem}: report differs from {}",
                expected_path.display()
            )),
            Err(_) => mismatches.push(format!(
                "{stem}: no {} (run with UPDATE_GOLDEN=1)",
                expected_path.display()
            )),
        }
    }
    assert!(mismatches.is_empty(), "{}", mismatches.join("\n"));
}
