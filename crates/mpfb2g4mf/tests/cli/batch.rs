//! `batch`: manifests with good and broken jobs (reports, resuming, shards, --fail-fast), a
//! write that fails behind the workers, and a population with its contact sheet.

use crate::common::{bone_frames, run, stderr};
use g4mf_reader::{ReadOptions, read_path};
use std::path::{Path, PathBuf};

#[test]
fn batch_runs_good_jobs_reports_the_broken_one_and_leaves_no_partial_file() {
    let data = test_support::mpfb_data_or_skip!(
        batch_runs_good_jobs_reports_the_broken_one_and_leaves_no_partial_file
    );
    let dir = tempfile::tempdir().unwrap();
    let bad_rig = dir.path().join("rig.broken.json");
    std::fs::write(&bad_rig, "{\"root\": {\"head\": ").unwrap();
    let manifest = serde_json::json!({
        "defaults": { "mpfb_data": data },
        "jobs": [
            { "rig_name": "default", "output": "out/default.g4b" },
            { "rig": bad_rig, "mesh": data.join("3dobjs/base.obj"), "output": "out/broken.g4b" },
            { "rig_name": "game_engine", "output": "out/game.g4tf", "external_bin": true, "compress": "zstd" },
            { "rig_name": "cmu_mb", "output": "out/cmu.g4b", "no_weights": true }
        ],
        "cross": { "rigs": ["mixamo"], "formats": ["g4b", "g4tf"], "output": "out/cross-{rig}.{format}" }
    });
    let manifest_path = dir.path().join("batch.json");
    std::fs::write(
        &manifest_path,
        serde_json::to_vec_pretty(&manifest).unwrap(),
    )
    .unwrap();
    let report = dir.path().join("report.json");
    let result = run(&[
        "batch",
        manifest_path.to_str().unwrap(),
        "--jobs",
        "2",
        "--report",
        report.to_str().unwrap(),
    ]);
    assert_eq!(result.status.code(), Some(1), "{}", stderr(&result));
    let message = stderr(&result);
    assert!(
        message.contains("5 written, 0 skipped, 1 failed"),
        "{message}"
    );
    assert!(
        message.contains("failed job 1")
            && message.contains("broken.g4b")
            && message.contains("rig.broken.json:1:18"),
        "{message}"
    );
    let records: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&report).unwrap()).unwrap();
    assert_eq!(records.as_array().unwrap().len(), 6);
    assert_eq!(records[1]["status"], "failed");
    assert!(
        records[1]["error"]
            .as_str()
            .unwrap()
            .contains("rig.broken.json")
    );
    assert_eq!(records[0]["status"], "ok");
    // Every good output is valid; no partial or temporary file anywhere.
    let out = dir.path().join("out");
    let mut names: Vec<String> = std::fs::read_dir(&out)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    // game.g4tf's buffer, named by its content: game.<16 hex digits>.bin.
    let buffer = names.iter().position(|n| {
        n.strip_prefix("game.")
            .and_then(|n| n.strip_suffix(".bin"))
            .is_some_and(|h| h.len() == 16)
    });
    assert!(buffer.is_some(), "{names:?}");
    names.remove(buffer.unwrap_or_default());
    assert_eq!(
        names,
        [
            "cmu.g4b",
            "cross-mixamo.g4b",
            "cross-mixamo.g4tf",
            "default.g4b",
            "game.g4tf"
        ]
    );
    for name in names.iter().filter(|n| !n.ends_with(".bin")) {
        let report = g4mf_validator::validate_path(
            &out.join(name),
            &g4mf_validator::ValidateOptions::default(),
        );
        assert!(report.is_valid(), "{name}: {:?}", report.codes());
    }
    assert!(
        read_path(&out.join("cmu.g4b"), &ReadOptions::default())
            .unwrap()
            .document
            .meshes[0]
            .skin
            .is_none()
    );

    // Resuming skips what exists; the broken job still fails.
    let result = run(&[
        "batch",
        manifest_path.to_str().unwrap(),
        "--skip-existing",
        "--quiet",
    ]);
    assert_eq!(result.status.code(), Some(1));
    assert!(
        stderr(&result).contains("1 of 6 jobs failed"),
        "{}",
        stderr(&result)
    );

    // Shards 0/2 and 1/2 together run every job exactly once.
    let mut written = 0;
    for shard in ["0/2", "1/2"] {
        let result = run(&[
            "batch",
            manifest_path.to_str().unwrap(),
            "--shard",
            shard,
            "--report",
            report.to_str().unwrap(),
        ]);
        let records: serde_json::Value =
            serde_json::from_slice(&std::fs::read(&report).unwrap()).unwrap();
        let indices: Vec<u64> = records
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["index"].as_u64().unwrap())
            .collect();
        let parity = u64::from(shard == "1/2");
        assert!(
            indices.iter().all(|i| i % 2 == parity),
            "{shard}: {indices:?}"
        );
        written += indices.len();
        assert_eq!(
            result.status.code(),
            Some(if shard == "1/2" { 1 } else { 0 }),
            "{}",
            stderr(&result)
        );
    }
    assert_eq!(written, 6);

    // --fail-fast starts no job after the failure (one worker, so the order is fixed).
    let result = run(&[
        "batch",
        manifest_path.to_str().unwrap(),
        "--jobs",
        "1",
        "--fail-fast",
        "--report",
        report.to_str().unwrap(),
    ]);
    assert_eq!(result.status.code(), Some(1));
    let records: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&report).unwrap()).unwrap();
    let statuses: Vec<&str> = records
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["status"].as_str().unwrap())
        .collect();
    assert_eq!(
        statuses,
        [
            "ok",
            "failed",
            "cancelled",
            "cancelled",
            "cancelled",
            "cancelled"
        ]
    );
}

/// Outputs are written by writer threads while the next body is made: a write that fails
/// there is its job's failure (located, counted), the other jobs are written, and nothing
/// temporary is left. With --fail-fast, at most the job a worker was already making follows.
#[test]
fn a_write_that_fails_behind_the_workers_fails_its_job_alone() {
    let data =
        test_support::mpfb_data_or_skip!(a_write_that_fails_behind_the_workers_fails_its_job_alone);
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    // A folder where job 1's file goes: the rename over it fails, after the file was made.
    std::fs::create_dir_all(out.join("b.g4b")).unwrap();
    let jobs: Vec<serde_json::Value> = ["a", "b", "c", "d", "e"]
        .map(|name| serde_json::json!({ "rig_name": "default", "output": format!("out/{name}.g4b") }))
        .into();
    let manifest = serde_json::json!({ "defaults": { "mpfb_data": data }, "jobs": jobs });
    let manifest_path = dir.path().join("batch.json");
    std::fs::write(&manifest_path, manifest.to_string()).unwrap();
    let report = dir.path().join("report.json");
    let statuses = |report: &Path| -> Vec<String> {
        let records: serde_json::Value =
            serde_json::from_slice(&std::fs::read(report).unwrap()).unwrap();
        records
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["status"].as_str().unwrap().to_owned())
            .collect()
    };
    for jobs in ["1", "2"] {
        let result = run(&[
            "batch",
            manifest_path.to_str().unwrap(),
            "--jobs",
            jobs,
            "--report",
            report.to_str().unwrap(),
        ]);
        let message = stderr(&result);
        assert_eq!(result.status.code(), Some(1), "{message}");
        assert!(
            message.contains("4 written, 0 skipped, 1 failed")
                && message.contains("failed job 1")
                && message.contains("b.g4b: Is a directory"),
            "{message}"
        );
        assert_eq!(statuses(&report), ["ok", "failed", "ok", "ok", "ok"]);
        let mut names: Vec<String> = std::fs::read_dir(&out)
            .unwrap()
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        assert_eq!(names, ["a.g4b", "b.g4b", "c.g4b", "d.g4b", "e.g4b"]);
        assert!(out.join("b.g4b").is_dir());
        for name in ["a.g4b", "c.g4b", "e.g4b"] {
            let report = g4mf_validator::validate_path(
                &out.join(name),
                &g4mf_validator::ValidateOptions::default(),
            );
            assert!(report.is_valid(), "{name}: {:?}", report.codes());
        }
    }
    // --fail-fast: the job the worker was making when the write failed may finish; none
    // after it starts.
    let result = run(&[
        "batch",
        manifest_path.to_str().unwrap(),
        "--jobs",
        "1",
        "--fail-fast",
        "--report",
        report.to_str().unwrap(),
    ]);
    assert_eq!(result.status.code(), Some(1));
    let statuses = statuses(&report);
    assert_eq!(statuses[..2], ["ok", "failed"], "{statuses:?}");
    assert!(
        matches!(statuses[2].as_str(), "ok" | "cancelled"),
        "{statuses:?}"
    );
    assert_eq!(statuses[3..], ["cancelled", "cancelled"], "{statuses:?}");
}

#[test]
fn a_batch_population_writes_valid_bodies_and_reports_their_phenotypes() {
    let data = test_support::mpfb_data_or_skip!(
        a_batch_population_writes_valid_bodies_and_reports_their_phenotypes
    );
    let dir = tempfile::tempdir().unwrap();
    let manifest = dir.path().join("people.toml");
    std::fs::write(
        &manifest,
        format!(
            r#"
[defaults]
mpfb_data = "{}"

[population]
rig_name = "game_engine"
count = 4
seed = 11
output = "out/body-{{index}}-{{gender}}.g4b"
[population.ranges]
gender = [0.0, 1.0]
height = [0.2, 0.9]
"#,
            data.display()
        ),
    )
    .unwrap();
    let report = dir.path().join("report.json");
    let sheet = dir.path().join("sheet.png");
    let result = run(&[
        "batch",
        manifest.to_str().unwrap(),
        "--jobs",
        "2",
        "--quiet",
        "--report",
        report.to_str().unwrap(),
        "--contact-sheet",
        sheet.to_str().unwrap(),
        "--tile-size",
        "200",
    ]);
    assert!(result.status.success(), "{}", stderr(&result));
    let records: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&report).unwrap()).unwrap();
    let records = records.as_array().unwrap();
    assert_eq!(records.len(), 4);
    let mut heights = Vec::new();
    let mut extents = Vec::new();
    for r in records {
        assert_eq!(r["status"], "ok", "{r}");
        let phenotype = r["phenotype"].as_str().unwrap();
        assert!(
            phenotype.starts_with("gender=") && phenotype.contains(",height="),
            "{phenotype}"
        );
        let output = PathBuf::from(r["output"].as_str().unwrap());
        assert!(
            output
                .file_name()
                .unwrap()
                .to_str()
                .unwrap()
                .starts_with("body-")
        );
        let report = g4mf_validator::validate_path(&output, &Default::default());
        assert!(report.is_valid(), "{:?}", report.findings);
        let file = read_path(&output, &ReadOptions::default()).unwrap();
        heights.push(bone_frames(&file)["head"].0.y);
        let size = g4mf_preview::Scene::from_file(&file).unwrap().extent();
        extents.push(size.x.max(size.y));
    }
    // The contact sheet: 2 x 2 tiles of 200 px, labelled below, in job order, at one scale:
    // the tallest body's figure is the tallest, 90% of its tile.
    let sheet = image::open(&sheet).unwrap().to_rgba8();
    assert_eq!(sheet.width(), 400);
    let row_height = sheet.height() / 2;
    assert!(
        (200 + 14..=200 + 22).contains(&row_height),
        "{}",
        sheet.height()
    );
    let background = *sheet.get_pixel(0, 0);
    let figure_heights: Vec<u32> = (0..4)
        .map(|i| {
            let (x0, y0) = ((i % 2) * 200, (i / 2) * row_height);
            let rows: Vec<u32> = (y0..y0 + 200)
                .filter(|&y| (x0..x0 + 200).any(|x| *sheet.get_pixel(x, y) != background))
                .collect();
            rows.last().unwrap() - rows.first().unwrap() + 1
        })
        .collect();
    let tallest = (0..4)
        .max_by(|&a, &b| heights[a].total_cmp(&heights[b]))
        .unwrap();
    assert!(
        (178..=182).contains(&figure_heights[tallest])
            && figure_heights.iter().all(|&h| h <= figure_heights[tallest]),
        "{figure_heights:?} for heads at {heights:?}"
    );
    // Tiles are drawn as each output is written, each at its own figure's scale, and brought
    // to the tallest's at the end: every figure is its body's size at that one scale.
    let largest = extents.iter().copied().fold(0.0f32, f32::max);
    for (figure, extent) in figure_heights.iter().zip(&extents) {
        let expected = figure_heights[tallest] as f32 * extent / largest;
        assert!(
            (*figure as f32 - expected).abs() <= 2.0,
            "{figure_heights:?} for figures of {extents:?} m"
        );
    }
    // Outputs a rerun skips are read back for the sheet: the same picture.
    let again = dir.path().join("again.png");
    let result = run(&[
        "batch",
        manifest.to_str().unwrap(),
        "--jobs",
        "2",
        "--skip-existing",
        "--contact-sheet",
        again.to_str().unwrap(),
        "--tile-size",
        "200",
    ]);
    assert!(result.status.success(), "{}", stderr(&result));
    assert_eq!(
        stderr(&result).matches("(exists)").count(),
        4,
        "{}",
        stderr(&result)
    );
    assert!(image::open(&again).unwrap().to_rgba8() == sheet);
    // Four different bodies.
    heights.sort_by(f64::total_cmp);
    assert!(
        heights.windows(2).all(|w| w[1] - w[0] > 1e-6),
        "{heights:?}"
    );
}

#[test]
fn deny_in_a_manifest_or_on_the_command_line_fails_the_jobs_that_say_it() {
    let Some(data) = test_support::mpfb_data_or_skip(
        "deny_in_a_manifest_or_on_the_command_line_fails_the_jobs_that_say_it",
    ) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let rig = data.join("rigs/standard/rig.default.json");
    let manifest = dir.path().join("jobs.toml");
    // Two unskinned jobs (SKIN_NO_WEIGHTS), one denying it; and a skinned job.
    std::fs::write(
        &manifest,
        format!(
            "[defaults]\nmpfb_data = {data:?}\n\n[[jobs]]\nrig = {rig:?}\noutput = \"kept.g4b\"\n\n[[jobs]]\nrig = {rig:?}\noutput = \"denied.g4b\"\ndeny = [\"SKIN_NO_WEIGHTS\"]\n\n[[jobs]]\nrig_name = \"default\"\noutput = \"skinned.g4b\"\n"
        ),
    )
    .unwrap();
    let report = dir.path().join("report.json");
    let batch = |extra: &[&str]| {
        let mut args = vec!["batch", manifest.to_str().unwrap(), "--report"];
        args.push(report.to_str().unwrap());
        args.extend(extra);
        run(&args)
    };
    let records = || -> serde_json::Value {
        serde_json::from_slice(&std::fs::read(&report).unwrap()).unwrap()
    };
    let first = batch(&[]);
    assert_eq!(first.status.code(), Some(1), "{}", stderr(&first));
    let failed: Vec<_> = records()
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["status"] == "failed")
        .map(|r| {
            (
                r["output"].as_str().unwrap().to_owned(),
                r["error"].to_string(),
            )
        })
        .collect();
    assert_eq!(failed.len(), 1, "{failed:?}");
    assert!(failed[0].0.ends_with("denied.g4b"), "{failed:?}");
    assert!(failed[0].1.contains("SKIN_NO_WEIGHTS"), "{failed:?}");
    assert!(!dir.path().join("denied.g4b").exists());
    assert!(dir.path().join("kept.g4b").exists());
    // `--deny warnings` on the command line adds to the manifest: both unskinned jobs fail.
    std::fs::remove_file(dir.path().join("kept.g4b")).unwrap();
    let second = batch(&["--deny", "warnings"]);
    assert_eq!(second.status.code(), Some(1), "{}", stderr(&second));
    let failed = records()
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["status"] == "failed")
        .count();
    assert_eq!(failed, 2);
    assert!(!dir.path().join("kept.g4b").exists());
    assert!(dir.path().join("skinned.g4b").exists());
}
