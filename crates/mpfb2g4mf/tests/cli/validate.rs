//! `validate` and `inspect` on the validator's fixtures (text and JSON reports, exit codes),
//! and truncated or corrupted files, which give findings, never panics.

use crate::common::{run, stderr};
use g4mf_reader::ReadOptions;

#[test]
fn validate_and_inspect_commands() {
    let fixtures = test_support::workspace_root().join("fixtures/validator");
    let valid = fixtures.join("valid.g4b");
    let invalid = fixtures.join("SKIN_WEIGHTS_NOT_DESCENDING.g4tf");
    let result = run(&["validate", valid.to_str().unwrap()]);
    assert_eq!(result.status.code(), Some(0), "{}", stderr(&result));
    assert!(String::from_utf8_lossy(&result.stdout).contains("valid (0 errors"));
    let result = run(&[
        "validate",
        valid.to_str().unwrap(),
        invalid.to_str().unwrap(),
        "--format",
        "json",
    ]);
    assert_eq!(result.status.code(), Some(1));
    let reports: serde_json::Value = serde_json::from_slice(&result.stdout).unwrap();
    assert_eq!(reports[1]["counts"]["numErrors"], 1);
    assert_eq!(
        reports[1]["findings"][0]["code"],
        "SKIN_WEIGHTS_NOT_DESCENDING"
    );
    assert_eq!(
        reports[1]["findings"][0]["pointer"],
        "/meshes/0/skin/weights"
    );
    let result = run(&["inspect", valid.to_str().unwrap()]);
    assert!(result.status.success());
    let text = String::from_utf8_lossy(&result.stdout);
    assert!(
        text.contains("[1] TinySkeleton skeleton, 2 joints"),
        "{text}"
    );
    assert!(
        text.contains("[2] Hips bone length 0.2000, joint 0"),
        "{text}"
    );
    assert!(text.contains("influences per vertex"), "{text}");
}

#[test]
fn truncated_and_corrupted_files_give_findings_not_panics() {
    let valid =
        std::fs::read(test_support::workspace_root().join("fixtures/validator/valid.g4b")).unwrap();
    let options = g4mf_validator::ValidateOptions::default();
    for len in (0..valid.len()).step_by(7) {
        let report = g4mf_validator::validate_bytes(&valid[..len], None, "t", &options);
        assert!(
            !report.is_valid() || len == valid.len(),
            "truncated at {len} passed"
        );
    }
    // Flip every byte of the header and chunk headers in turn: always a report, never a panic.
    for at in 0..48.min(valid.len()) {
        let mut bytes = valid.clone();
        bytes[at] ^= 0xA5;
        let _ = g4mf_validator::validate_bytes(&bytes, None, "t", &options);
        let _ = g4mf_reader::read_bytes(&bytes, None, &ReadOptions::default());
    }
}
