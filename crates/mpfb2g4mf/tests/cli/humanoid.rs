//! `convert --humanoid` and `--humanoid-map`: names that pass `validate --profile humanoid`
//! and keep the `to-mpfb` round trip, and tables that break the profile refused.

use crate::common::{run, stderr};
use g4mf_reader::{ReadOptions, read_path};

/// `--humanoid` on every shipped rig with a table: the output passes `validate --profile
/// humanoid` with no error and has the bones the table promises; `to-mpfb` gives back exactly
/// the files it gives for the same conversion without `--humanoid` (so the round trip stays
/// as exact as it is).
#[test]
fn humanoid_names_pass_the_profile_and_keep_the_round_trip() {
    let data =
        test_support::mpfb_data_or_skip!(humanoid_names_pass_the_profile_and_keep_the_round_trip);
    let out = tempfile::tempdir().unwrap();
    let rigs = [
        ("default", 60, false),
        ("default_no_toes", 62, false),
        ("game_engine", 51, true),
        ("mixamo", 51, false),
        ("cmu_mb", 23, false),
        ("human", 62, true),
    ];
    for (rig, bones, hips_under_another_bone) in rigs {
        // Rigify's human has no weights file: rig and mesh by path.
        let rigify = data.join("rigs/rigify/rig.human.json");
        let mesh = data.join("3dobjs/base.obj");
        let inputs: Vec<&str> = if rig == "human" {
            vec![
                "--rig",
                rigify.to_str().unwrap(),
                "--mesh",
                mesh.to_str().unwrap(),
            ]
        } else {
            vec!["--rig-name", rig]
        };
        let mut to_mpfb = Vec::new();
        for humanoid in [false, true] {
            let model = out.path().join(format!("{rig}-{humanoid}.g4b"));
            let mut args = vec!["convert"];
            args.extend_from_slice(&inputs);
            args.extend([
                "--mpfb-data",
                data.to_str().unwrap(),
                "--validate",
                "--quiet",
                "-o",
                model.to_str().unwrap(),
            ]);
            if humanoid {
                args.push("--humanoid");
            }
            let result = run(&args);
            assert!(result.status.success(), "{rig}: {}", stderr(&result));
            if humanoid {
                let result = run(&[
                    "validate",
                    "--profile",
                    "humanoid",
                    "--format",
                    "json",
                    model.to_str().unwrap(),
                ]);
                assert!(result.status.success(), "{rig}");
                let report: serde_json::Value = serde_json::from_slice(&result.stdout).unwrap();
                let findings = report["findings"].as_array().unwrap();
                let humanoid: Vec<&serde_json::Value> = findings
                    .iter()
                    .filter(|f| f["code"].as_str().unwrap().starts_with("HUMANOID_"))
                    .collect();
                let summary = humanoid
                    .iter()
                    .find(|f| f["code"] == "HUMANOID_BONES")
                    .unwrap()["message"]
                    .as_str()
                    .unwrap();
                assert!(
                    summary.starts_with(&format!("{bones} of the 62 humanoid bones")),
                    "{rig}: {summary}"
                );
                let placement = humanoid
                    .iter()
                    .any(|f| f["code"] == "HUMANOID_HIPS_PLACEMENT");
                assert_eq!(placement, hips_under_another_bone, "{rig}: {humanoid:?}");
                assert!(
                    humanoid.iter().all(|f| f["severity"] != "error"),
                    "{rig}: {humanoid:?}"
                );
                // MPFB names stay in extras.
                let file = read_path(&model, &ReadOptions::default()).unwrap();
                let hips = file
                    .document
                    .nodes
                    .iter()
                    .find(|n| n.name.as_deref() == Some("Hips"))
                    .unwrap();
                let mpfb = &hips.extras.as_ref().unwrap().value()["mpfb"]["name"];
                assert!(
                    mpfb.as_str()
                        .is_some_and(|n| n != "Hips" || rig == "cmu_mb")
                );
            }
            let back = out.path().join(format!("back-{rig}-{humanoid}"));
            let result = run(&[
                "to-mpfb",
                model.to_str().unwrap(),
                "--out-dir",
                back.to_str().unwrap(),
                "--name",
                rig,
                "--quiet",
            ]);
            assert!(result.status.success(), "{rig}: {}", stderr(&result));
            let mut files: Vec<(String, Vec<u8>)> = std::fs::read_dir(&back)
                .unwrap()
                .map(|e| {
                    let p = e.unwrap().path();
                    (
                        p.file_name().unwrap().to_string_lossy().into_owned(),
                        std::fs::read(&p).unwrap(),
                    )
                })
                .collect();
            files.sort();
            to_mpfb.push(files);
        }
        assert!(
            to_mpfb[0] == to_mpfb[1],
            "{rig}: to-mpfb differs with --humanoid"
        );
    }
}

/// A table that breaks the profile, names a bone the rig lacks, or gives a name outside the
/// profile is refused with the reason, and nothing is written.
#[test]
fn humanoid_tables_that_break_the_profile_are_refused() {
    let data = test_support::mpfb_data_or_skip!(humanoid_tables_that_break_the_profile_are_refused);
    let out = tempfile::tempdir().unwrap();
    for (table, expected) in [
        (
            r#"{"mixamorig:Hips": "Hips", "mixamorig:Spine": "Head", "mixamorig:Neck": "Neck"}"#,
            "HUMANOID_ANCESTRY",
        ),
        (
            r#"{"mixamorig:Tail": "Hips"}"#,
            "`mixamorig:Tail` is not a bone of this rig",
        ),
        (
            r#"{"mixamorig:Hips": "Pelvis"}"#,
            "`Pelvis` (for `mixamorig:Hips`) is not a humanoid bone name",
        ),
        (
            r#"{"mixamorig:Hips": "Hips", "mixamorig:Spine": "Hips"}"#,
            "`Hips` is given to more than one bone",
        ),
    ] {
        let path = out.path().join("table.json");
        std::fs::write(&path, table).unwrap();
        let model = out.path().join("m.g4b");
        let result = run(&[
            "convert",
            "--rig-name",
            "mixamo",
            "--mpfb-data",
            data.to_str().unwrap(),
            "--humanoid-map",
            path.to_str().unwrap(),
            "-o",
            model.to_str().unwrap(),
        ]);
        assert_eq!(result.status.code(), Some(1), "{table}");
        assert!(
            stderr(&result).contains(expected),
            "{table}: {}",
            stderr(&result)
        );
        assert!(!model.exists());
    }
}
