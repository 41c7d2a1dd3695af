//! Diagnostics as data through the CLI: every warning and note the fixture jobs (naked,
//! unskinned, humanoid, validated, posed, dressed and textured, face shapes, VRM, batch) say
//! carries a code of the table with its severity and kind, in the summary and in `--json`;
//! `--deny` stops a job with exit 1, no file and the code named; a batch report summarised by
//! code; `codes` and spec-notes/diagnostics.md list the same table; and every code of the
//! table is asserted by some test.

use crate::common::{data_and_assets, run, stderr, stdout};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The table as `codes --json` prints it: code -> (severity, kind).
fn table() -> BTreeMap<String, (String, String)> {
    let output = run(&["codes", "--json"]);
    assert!(output.status.success(), "{}", stderr(&output));
    let rows: serde_json::Value = serde_json::from_str(&stdout(&output)).unwrap();
    rows.as_array()
        .unwrap()
        .iter()
        .map(|r| {
            let text = |k: &str| r[k].as_str().unwrap().to_owned();
            (text("code"), (text("severity"), text("kind")))
        })
        .collect()
}

/// Checks that each of `list` (a summary's `warnings` or `notes`) has a code of `table`
/// with the table's severity (`severity`) and kind, a message, and a location naming a file
/// when it has one; the codes seen.
fn check_coded(
    list: &serde_json::Value,
    severity: &str,
    table: &BTreeMap<String, (String, String)>,
    job: &str,
) -> BTreeSet<String> {
    let mut seen = BTreeSet::new();
    for d in list.as_array().unwrap() {
        let code = d["code"]
            .as_str()
            .unwrap_or_else(|| panic!("{job}: no code: {d}"));
        let (want_severity, want_kind) = table
            .get(code)
            .unwrap_or_else(|| panic!("{job}: {code} is not in the table: {d}"));
        assert_eq!(d["severity"], *want_severity, "{job}: {d}");
        assert_eq!(d["severity"], severity, "{job}: {d}");
        assert_eq!(d["kind"], *want_kind, "{job}: {d}");
        assert!(!d["message"].as_str().unwrap().is_empty(), "{job}: {d}");
        if !d["location"].is_null() {
            assert!(d["location"]["file"].is_string(), "{job}: {d}");
        }
        seen.insert(code.to_owned());
    }
    seen
}

/// `convert ARGS --json`: the summary, checked coded; the codes it said.
fn coded_job(
    job: &str,
    args: &[&str],
    table: &BTreeMap<String, (String, String)>,
) -> BTreeSet<String> {
    let mut all: Vec<&str> = vec!["convert"];
    all.extend(args);
    all.push("--json");
    let output = run(&all);
    assert!(output.status.success(), "{job}: {}", stderr(&output));
    let summary: serde_json::Value = serde_json::from_str(&stdout(&output)).unwrap();
    let mut seen = check_coded(&summary["warnings"], "warning", table, job);
    seen.extend(check_coded(&summary["notes"], "note", table, job));
    seen
}

fn rig_file(data: &Path) -> PathBuf {
    data.join("rigs/standard/rig.default.json")
}

#[test]
fn every_warning_and_note_of_the_fixture_jobs_carries_a_code_of_the_table() {
    let test = "every_warning_and_note_of_the_fixture_jobs_carries_a_code_of_the_table";
    let mut needed = crate::common::DRESSED_MHM.to_vec();
    needed.push("poses/sit01.bvh");
    let Some((data, assets)) = data_and_assets(test, &needed) else {
        return;
    };
    let table = table();
    let dir = tempfile::tempdir().unwrap();
    let out = |name: &str| dir.path().join(name).to_str().unwrap().to_owned();
    let (data_s, assets_s) = (data.to_str().unwrap(), assets.to_str().unwrap());
    let rig = rig_file(&data);
    let dressed = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/bodies/dressed.mhm");
    let jobs: Vec<(&str, Vec<String>)> = vec![
        (
            "naked",
            vec![
                "--rig-name".into(),
                "default".into(),
                "-o".into(),
                out("naked.g4b"),
            ],
        ),
        (
            "unskinned",
            vec![
                "--rig".into(),
                rig.to_str().unwrap().into(),
                "-o".into(),
                out("bare.g4b"),
            ],
        ),
        (
            "humanoid",
            [
                "--rig-name",
                "game_engine",
                "--humanoid",
                "--rest-pose",
                "t-pose",
                "-o",
            ]
            .map(String::from)
            .into_iter()
            .chain([out("humanoid.g4b")])
            .collect(),
        ),
        (
            "validated",
            [
                "--rig-name",
                "mixamo",
                "--rest-pose",
                "t-pose",
                "--validate",
                "-o",
            ]
            .map(String::from)
            .into_iter()
            .chain([out("mixamo.g4b")])
            .collect(),
        ),
        (
            "posed",
            [
                "--rig-name",
                "default",
                "--eyes",
                "none",
                "--pose",
                "sit01",
                "--assets",
                assets_s,
                "-o",
            ]
            .map(String::from)
            .into_iter()
            .chain([out("posed.glb")])
            .collect(),
        ),
        (
            "dressed and textured",
            vec![
                "--human".into(),
                dressed.to_str().unwrap().into(),
                "--assets".into(),
                assets_s.into(),
                "-o".into(),
                out("dressed.g4b"),
            ],
        ),
        (
            "face shapes",
            ["--rig-name", "default", "--face-units", "-o"]
                .map(String::from)
                .into_iter()
                .chain([out("face.glb")])
                .collect(),
        ),
        (
            "vrm",
            ["--rig-name", "default", "--assets", assets_s, "-o"]
                .map(String::from)
                .into_iter()
                .chain([out("avatar.vrm")])
                .collect(),
        ),
    ];
    let mut seen = BTreeSet::new();
    for (job, args) in &jobs {
        let mut args: Vec<&str> = args.iter().map(String::as_str).collect();
        args.extend(["--mpfb-data", data_s]);
        seen.extend(coded_job(job, &args, &table));
    }
    // The jobs say what they are known to say (each code's own tests check its meaning).
    for code in [
        "SKIN_NO_WEIGHTS",
        "HUMANOID_PROFILE",
        "REST_POSE_BAKED",
        "VALIDATOR_WARNING",
        "POSE_BAKED",
        "ASSET_CUSTOM_GROUPS_LEFT_OUT",
        "TEXTURES_MISSING",
        "VRM_PRESETS",
    ] {
        assert!(seen.contains(code), "{code} not said: {seen:?}");
    }
    // The summary's lines carry the same codes.
    let output = run(&[
        "convert",
        "--rig",
        rig.to_str().unwrap(),
        "--mpfb-data",
        data_s,
        "-o",
        &out("bare2.g4b"),
    ]);
    let said = stderr(&output);
    assert!(
        said.contains("  warning   SKIN_NO_WEIGHTS: no weights for rig.default.json"),
        "{said}"
    );
}

#[test]
fn deny_stops_a_job_with_exit_1_no_file_and_the_code_named() {
    let Some(data) =
        test_support::mpfb_data_or_skip("deny_stops_a_job_with_exit_1_no_file_and_the_code_named")
    else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let rig = rig_file(&data);
    let convert = |out: &Path, extra: &[&str]| {
        let mut args = vec![
            "convert",
            "--rig",
            rig.to_str().unwrap(),
            "--mpfb-data",
            data.to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
        ];
        args.extend(extra);
        run(&args)
    };
    // A warning denied by its code, and by `warnings`, in each container: nothing written.
    for (name, deny) in [
        ("a.g4b", "SKIN_NO_WEIGHTS"),
        ("a.g4tf", "warnings"),
        ("a.glb", "SKIN_NO_WEIGHTS"),
        ("a.gltf", "warnings"),
    ] {
        let out = dir.path().join(name);
        let denied = convert(&out, &["--deny", deny]);
        let said = stderr(&denied);
        assert_eq!(denied.status.code(), Some(1), "{name}: {said}");
        assert!(
            said.contains("SKIN_NO_WEIGHTS: no weights for rig.default.json"),
            "{said}"
        );
        assert!(said.contains("denied by --deny"), "{said}");
        assert_eq!(said.lines().count(), 1, "{said}");
        assert!(!out.exists(), "{name} written");
    }
    // What was there stays: the old file is not replaced.
    let out = dir.path().join("kept.g4b");
    assert!(convert(&out, &[]).status.success());
    let before = std::fs::read(&out).unwrap();
    assert_eq!(
        convert(&out, &["--deny", "warnings", "--name", "other"])
            .status
            .code(),
        Some(1)
    );
    assert_eq!(std::fs::read(&out).unwrap(), before);
    let left: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .flatten()
        .map(|e| e.file_name())
        .collect();
    assert_eq!(
        left,
        vec![std::ffi::OsString::from("kept.g4b")],
        "temporary files left"
    );
    // A code not said does not stop the job; a code not in the table is refused, near names given.
    assert!(
        convert(&dir.path().join("b.g4b"), &["--deny", "POSE_BAKED"])
            .status
            .success()
    );
    let unknown = convert(&dir.path().join("c.g4b"), &["--deny", "SKIN_NO_WEIGHT"]);
    let said = stderr(&unknown);
    assert_eq!(unknown.status.code(), Some(2), "{said}");
    assert!(said.contains("did you mean `SKIN_NO_WEIGHTS`"), "{said}");
    assert!(!dir.path().join("c.g4b").exists());
}

#[test]
fn a_validators_warning_denied_stops_the_job_after_validation() {
    let Some(data) = test_support::mpfb_data_or_skip(
        "a_validators_warning_denied_stops_the_job_after_validation",
    ) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    for name in ["m.g4b", "m.g4tf"] {
        let out = dir.path().join(name);
        let args = [
            "convert",
            "--rig-name",
            "mixamo",
            "--mpfb-data",
            data.to_str().unwrap(),
            "--rest-pose",
            "t-pose",
            "--validate",
            "--deny",
            "VALIDATOR_WARNING",
            "-o",
            out.to_str().unwrap(),
        ];
        let denied = run(&args);
        let said = stderr(&denied);
        assert_eq!(denied.status.code(), Some(1), "{said}");
        assert!(
            said.contains("VALIDATOR_WARNING: validator: SKIN_WEIGHT_SUM"),
            "{said}"
        );
        assert!(!out.exists());
    }
}

#[test]
fn a_batch_report_is_summarised_by_code() {
    let Some(data) = test_support::mpfb_data_or_skip("a_batch_report_is_summarised_by_code") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let rig = rig_file(&data);
    let manifest = dir.path().join("jobs.toml");
    std::fs::write(
        &manifest,
        format!(
            "[defaults]\nmpfb_data = {:?}\n\n[[jobs]]\nrig = {:?}\noutput = \"bare.g4b\"\n\n[[jobs]]\nrig = {:?}\noutput = \"bare2.g4b\"\n\n[[jobs]]\nrig_name = \"default\"\noutput = \"skinned.g4b\"\n",
            data, rig, rig
        ),
    )
    .unwrap();
    let report = dir.path().join("report.json");
    let batch = run(&[
        "batch",
        manifest.to_str().unwrap(),
        "--report",
        report.to_str().unwrap(),
    ]);
    assert!(batch.status.success(), "{}", stderr(&batch));
    let records: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&report).unwrap()).unwrap();
    let table = table();
    for record in records.as_array().unwrap() {
        check_coded(&record["warnings"], "warning", &table, "batch");
        check_coded(&record["notes"], "note", &table, "batch");
    }
    let summary = run(&["report", report.to_str().unwrap(), "--by-code", "--json"]);
    assert!(summary.status.success(), "{}", stderr(&summary));
    let summary: serde_json::Value = serde_json::from_str(&stdout(&summary)).unwrap();
    assert_eq!(summary["jobs"], 3);
    assert_eq!(summary["status"]["ok"], 3);
    let codes = summary["codes"].as_array().unwrap();
    let unskinned = codes
        .iter()
        .find(|c| c["code"] == "SKIN_NO_WEIGHTS")
        .unwrap();
    assert_eq!(
        (unskinned["count"].as_u64(), unskinned["jobs"].as_u64()),
        (Some(2), Some(2))
    );
    let text = stdout(&run(&["report", report.to_str().unwrap(), "--by-code"]));
    assert!(text.starts_with("3 jobs: 3 ok\n"), "{text}");
    assert!(text.contains("2 x SKIN_NO_WEIGHTS"), "{text}");
    // A file that is no report: one located line, exit 1.
    let bad = dir.path().join("bad.json");
    std::fs::write(&bad, "[{\"index\": 0}]").unwrap();
    let refused = run(&["report", bad.to_str().unwrap(), "--by-code"]);
    assert_eq!(refused.status.code(), Some(1));
    assert!(
        stderr(&refused).contains("bad.json:1:"),
        "{}",
        stderr(&refused)
    );
}

/// spec-notes/diagnostics.md's table, between its markers.
fn documented_table(text: &str) -> &str {
    let start = text.find("<!-- codes -->\n").unwrap() + "<!-- codes -->\n".len();
    let end = text.find("<!-- /codes -->").unwrap();
    &text[start..end]
}

#[test]
fn spec_notes_list_every_code_as_the_table_declares_it() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../spec-notes/diagnostics.md");
    let text = std::fs::read_to_string(&path).unwrap();
    let table = mpfb2g4mf::diagnostics::codes_markdown();
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        let start = text.find("<!-- codes -->\n").unwrap() + "<!-- codes -->\n".len();
        let end = text.find("<!-- /codes -->").unwrap();
        std::fs::write(&path, format!("{}{table}{}", &text[..start], &text[end..])).unwrap();
        return;
    }
    assert_eq!(
        documented_table(&text),
        table,
        "spec-notes/diagnostics.md's table differs (UPDATE_GOLDEN=1 cargo test -p mpfb2g4mf --test integration spec_notes_list)"
    );
}

/// Codes no test triggers and asserts yet, each with why: the list may only shrink (a code
/// asserted somewhere must leave it), and these alone have no example in the table.
const NOT_YET_ASSERTED: &[(&str, &str)] = &[(
    "VALIDATOR_INFO",
    "no file the converter writes gives the validator cause for an information: its infos are \
     NODE_UNUSED and CHUNK_UNKNOWN_TYPE (the writers write neither) and HUMANOID_BONES (only \
     under `validate --profile humanoid`, which `--validate` does not check)",
)];

#[test]
fn every_code_of_the_table_is_asserted_by_some_test() {
    let tests = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests");
    let mut text = String::new();
    let mut stack = vec![tests];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(dir).unwrap().flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                text.push_str(&std::fs::read_to_string(&path).unwrap());
            }
        }
    }
    // The waivers themselves quote the codes they waive.
    if let (Some(start), Some(len)) = (
        text.find("const NOT_YET_ASSERTED"),
        text.find("const NOT_YET_ASSERTED")
            .and_then(|s| text[s..].find("];")),
    ) {
        text.replace_range(start..start + len, "");
    }
    // A code counts as asserted where a test quotes it as a string: `"CODE"` or `CODE: `.
    let asserted =
        |code: &str| text.contains(&format!("\"{code}\"")) || text.contains(&format!("{code}: "));
    let waived: BTreeMap<&str, &str> = NOT_YET_ASSERTED.iter().copied().collect();
    let mut missing = Vec::new();
    for code in mpfb2g4mf::diagnostics::Code::ALL {
        let name = code.name();
        match (asserted(name), waived.contains_key(name)) {
            (false, false) => missing.push(name),
            (true, true) => panic!("{name} is asserted now: take it off NOT_YET_ASSERTED"),
            _ => {}
        }
    }
    assert!(missing.is_empty(), "codes no test asserts: {missing:?}");
    // Every code a test makes the tool say has an example of what it said, and only those.
    let rows = run(&["codes", "--json"]);
    let rows: serde_json::Value = serde_json::from_str(&stdout(&rows)).unwrap();
    for row in rows.as_array().unwrap() {
        let code = row["code"].as_str().unwrap();
        assert_eq!(
            row["example"].is_string(),
            !waived.contains_key(code),
            "{code}: an example exactly when a test asserts it: {row}"
        );
    }
}
