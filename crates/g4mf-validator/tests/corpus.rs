//! The golden corpus: `fixtures/validator/`, one file per rule (written by
//! `cargo xtask validator-fixtures`), each with its expected report beside it (`HUMANOID_*`
//! fixtures validated with `--profile humanoid`). The exact codes,
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
        // Profile rules are checked only when asked: their fixtures ask.
        let options = ValidateOptions {
            profile: stem
                .starts_with("HUMANOID_")
                .then_some(g4mf_validator::Profile::Humanoid),
            ..ValidateOptions::default()
        };
        let mut report = validate_path(&path, &options);
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
            .any(|f| f.code.name() == rule && f.severity == Severity::Info)
            && !["NODE_UNUSED", "CHUNK_UNKNOWN_TYPE", "HUMANOID_BONES"].contains(&rule.as_str())
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

/// Every code has a fixture that reports it (but `IO_ERROR`: a file that cannot be read) and a
/// row in `spec-notes/validator.md`; every row and every fixture name is a code.
#[test]
fn every_code_has_a_fixture_and_a_documented_row() {
    use g4mf_validator::Code;
    let rules: std::collections::BTreeSet<String> = corpus()
        .iter()
        .map(|p| rule_of(p.file_stem().unwrap().to_str().unwrap()))
        .filter(|r| r != "valid" && !r.is_empty())
        .collect();
    let notes =
        std::fs::read_to_string(test_support::workspace_root().join("spec-notes/validator.md"))
            .unwrap();
    // | `CODE` | severity | spec | fixtures |
    let table: std::collections::BTreeMap<String, Vec<String>> = notes
        .lines()
        .filter_map(|l| {
            let cells: Vec<String> = l
                .strip_prefix("| `")?
                .split(" | ")
                .map(|c| {
                    c.trim_matches(|ch| ch == '`' || ch == '|' || ch == ' ')
                        .to_owned()
                })
                .collect();
            Some((cells[0].clone(), cells))
        })
        .collect();
    let rows: std::collections::BTreeSet<String> = table.keys().cloned().collect();
    let mut problems = Vec::new();
    for code in Code::ALL {
        let name = code.name();
        if code != Code::IoError && !rules.contains(name) {
            problems.push(format!("{name}: no fixture"));
        }
        match table.get(name) {
            None => problems.push(format!("{name}: no row in spec-notes/validator.md")),
            Some(cells) => {
                let severity = format!("{:?}", code.severity()).to_lowercase();
                if cells.get(1) != Some(&severity)
                    || cells.get(2).map(String::as_str) != Some(code.spec())
                {
                    problems.push(format!(
                        "{name}: the row says {cells:?}, the code {severity} {}",
                        code.spec()
                    ));
                }
            }
        }
    }
    for name in rules.iter().chain(&rows) {
        if Code::from_name(name).is_none() {
            problems.push(format!("{name}: not a code"));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
