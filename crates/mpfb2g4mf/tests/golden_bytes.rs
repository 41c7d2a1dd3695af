//! The exact bytes `convert` writes, for every shipped rig in every container form, pinned by
//! SHA-256 in `fixtures/golden-bytes.json`. Refactors must not change a single byte; a change
//! on purpose is recorded with `UPDATE_GOLDEN=1 cargo test -p mpfb2g4mf --test integration golden_bytes`
//! and explained in its commit. `--flat --helpers none --no-materials` output is pinned too, in
//! `fixtures/golden-bytes-flat.json`: those are the bytes from before normals, face helpers and
//! materials were written, so those flags keep that behaviour exactly (never regenerated).

#![allow(clippy::unwrap_used)] // Tests fail loudly by design.

use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

/// Container forms: output name and extra flags.
const FORMS: [(&str, &[&str]); 5] = [
    ("character.g4b", &[]),
    ("character-zstd.g4b", &["--compress", "zstd"]),
    ("character.g4tf", &[]),
    ("character-external.g4tf", &["--external-bin"]),
    (
        "character-pretty-zstd.g4tf",
        &["--pretty", "--compress", "zstd"],
    ),
];

fn sha256(path: &Path) -> String {
    let bytes = std::fs::read(path).unwrap();
    Sha256::digest(&bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// SHA-256 of every rig in every form, with `extra` flags.
fn hashes(data: &Path, extra: &[&str]) -> BTreeMap<String, String> {
    let work = tempfile::tempdir().unwrap();
    let mut got: BTreeMap<String, String> = BTreeMap::new();
    for rig in test_support::test_rig_files(data) {
        let stem = rig.file_stem().unwrap().to_str().unwrap().to_owned();
        let weights = rig.with_file_name(stem.replacen("rig.", "weights.", 1) + ".json");
        for (name, flags) in FORMS {
            let out = work.path().join(name);
            let mut command = Command::new(env!("CARGO_BIN_EXE_mpfb2g4mf"));
            command
                .args(["convert", "--quiet", "--rig"])
                .arg(&rig)
                .arg("--mesh")
                .arg(data.join("3dobjs/base.obj"))
                .arg("-o")
                .arg(&out)
                .args(flags)
                .args(extra);
            if weights.is_file() {
                command.arg("--weights").arg(&weights);
            }
            let output = command.output().unwrap();
            assert!(
                output.status.success(),
                "{stem} {name}: {}",
                String::from_utf8_lossy(&output.stderr)
            );
            // An external buffer is named by its content (`STEM.<16 hex>.bin`, so a failed
            // write never strands the old file): the name is put back to the `STEM.bin` of
            // the recorded bytes before hashing, so every other byte is still pinned.
            let mut bytes = std::fs::read(&out).unwrap();
            let old_name = format!("{}.bin", out.file_stem().unwrap().to_string_lossy());
            let buffers: Vec<_> = std::fs::read_dir(work.path())
                .unwrap()
                .flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| n.ends_with(".bin"))
                .collect();
            for bin in &buffers {
                let hash = bin
                    .strip_prefix(&old_name[..old_name.len() - 3])
                    .and_then(|h| h.strip_suffix(".bin"));
                assert!(hash.is_some_and(|h| h.len() == 16), "{bin}");
                let at = bytes
                    .windows(bin.len())
                    .position(|w| w == bin.as_bytes())
                    .unwrap();
                bytes.splice(at..at + bin.len(), old_name.bytes());
                got.insert(
                    format!("{stem} {name} (.bin)"),
                    sha256(&work.path().join(bin)),
                );
                std::fs::remove_file(work.path().join(bin)).unwrap();
            }
            got.insert(
                format!("{stem} {name}"),
                Sha256::digest(&bytes)
                    .iter()
                    .map(|b| format!("{b:02x}"))
                    .collect(),
            );
        }
    }
    assert_eq!(got.len(), 6 * FORMS.len() + 6, "every rig in every form");
    got
}

#[test]
fn flat_convert_writes_the_bytes_from_before_normals() {
    let data = test_support::mpfb_data_or_skip!(flat_convert_writes_the_bytes_from_before_normals);
    // Flat, bare, the body alone: exactly what convert wrote before normals, helpers, materials.
    let got = hashes(&data, &["--flat", "--helpers", "none", "--no-materials"]);
    let path = test_support::workspace_root().join("fixtures/golden-bytes-flat.json");
    let expected: BTreeMap<String, String> =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    assert_eq!(got, expected);
}

#[test]
fn convert_writes_the_recorded_bytes() {
    let data = test_support::mpfb_data_or_skip!(convert_writes_the_recorded_bytes);
    let got = hashes(&data, &[]);
    assert_golden(
        &got,
        &test_support::workspace_root().join("fixtures/golden-bytes.json"),
    );
}

/// Batch runs the same stages: its outputs are the recorded bytes too.
#[test]
fn batch_writes_the_same_bytes_as_convert() {
    let data = test_support::mpfb_data_or_skip!(batch_writes_the_same_bytes_as_convert);
    let work = tempfile::tempdir().unwrap();
    let mut jobs = Vec::new();
    let mut expected_keys = Vec::new();
    for rig in test_support::test_rig_files(&data) {
        let stem = rig.file_stem().unwrap().to_str().unwrap().to_owned();
        let weights = rig.with_file_name(stem.replacen("rig.", "weights.", 1) + ".json");
        for (name, settings) in [
            ("character.g4b", serde_json::json!({})),
            (
                "character-zstd.g4b",
                serde_json::json!({"compress": "zstd"}),
            ),
        ] {
            let mut job = serde_json::json!({
                "rig": rig,
                "mesh": data.join("3dobjs/base.obj"),
                "output": format!("{stem}/{name}"),
            });
            if weights.is_file() {
                job["weights"] = serde_json::json!(weights);
            }
            for (k, v) in settings.as_object().unwrap() {
                job[k] = v.clone();
            }
            jobs.push(job);
            expected_keys.push((format!("{stem} {name}"), format!("{stem}/{name}")));
        }
    }
    let manifest = work.path().join("batch.json");
    std::fs::write(
        &manifest,
        serde_json::to_vec(&serde_json::json!({"jobs": jobs})).unwrap(),
    )
    .unwrap();
    let output = Command::new(env!("CARGO_BIN_EXE_mpfb2g4mf"))
        .args(["batch", "--quiet", "--jobs", "2"])
        .arg(&manifest)
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let path = test_support::workspace_root().join("fixtures/golden-bytes.json");
    let expected: BTreeMap<String, String> =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    for (key, file) in expected_keys {
        assert_eq!(
            Some(&sha256(&work.path().join(&file))),
            expected.get(&key),
            "{key}"
        );
    }
}

/// The bodies, shapes and outfits the plain converts above do not reach, each pinned by its
/// SHA-256 in `fixtures/golden-bytes-variants.json` (recorded with `UPDATE_GOLDEN=1`): a body
/// from a phenotype with face units and visemes, an avatar (a description, T-pose, humanoid
/// names, four influences), a dressed character, and populations through `batch` with one and
/// two workers, naked with face units and dressed by draws, whose bodies share inputs and
/// everything derived from them: each must come out as if converted alone.
#[test]
fn variants_write_the_recorded_bytes() {
    let data = test_support::mpfb_data_or_skip!(variants_write_the_recorded_bytes);
    let assets = test_support::makehuman_assets_or_skip!(
        variants_write_the_recorded_bytes,
        &test_support::WORN_BY_EXAMPLES
    );
    let work = tempfile::tempdir().unwrap();
    let root = test_support::workspace_root();
    let ada = root.join("fixtures/bodies/ada.mhm");
    let data_arg = data.to_str().unwrap();
    let assets_arg = assets.to_str().unwrap();
    // Images differ between copies of the assets; their bytes are not what this pins.
    let outfit = [
        "--assets",
        assets_arg,
        "--clothes",
        "male_casualsuit01",
        "--clothes",
        "shoes01",
        "--hair",
        "ponytail01",
        "--eyebrows",
        "eyebrow001",
        "--eyelashes",
        "eyelashes01",
        "--textures",
        "none",
    ];
    let converts: [(&str, Vec<&str>); 3] = [
        (
            "phenotype-face.g4b",
            vec![
                "--rig-name",
                "default",
                "--phenotype",
                "gender=0.8,age=0.6,weight=0.7,height=0.8",
                "--face-units",
                "--visemes",
            ],
        ),
        (
            "avatar.g4b",
            vec![
                "--human",
                ada.to_str().unwrap(),
                "--face-units",
                "--visemes",
                "--rest-pose",
                "t-pose",
                "--humanoid",
                "--max-influences",
                "4",
            ],
        ),
        (
            "dressed.g4b",
            [
                &[
                    "--rig-name",
                    "default",
                    "--phenotype",
                    "gender=0.3,weight=0.6",
                ][..],
                &outfit,
                &["--face-units", "--rest-pose", "t-pose"],
            ]
            .concat(),
        ),
    ];
    let mut got: BTreeMap<String, String> = BTreeMap::new();
    for (name, args) in &converts {
        let out = work.path().join(name);
        let output = Command::new(env!("CARGO_BIN_EXE_mpfb2g4mf"))
            .args(["convert", "--quiet", "--mpfb-data", data_arg])
            .args(args)
            .arg("-o")
            .arg(&out)
            .output()
            .unwrap();
        assert!(
            output.status.success(),
            "{name}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        got.insert((*name).to_owned(), sha256(&out));
    }
    let populations = [
        (
            "people-face",
            serde_json::json!({
                "defaults": {"mpfb_data": data, "face_units": true, "visemes": true},
                "population": {
                    "rig_name": "default", "count": 4, "seed": 11,
                    "output": "people-face/{index}.g4b",
                    "ranges": {"gender": [0.0, 1.0], "age": [0.3, 0.9], "muscle": [0.0, 1.0],
                               "weight": [0.0, 1.0], "height": [0.0, 1.0]}
                }
            }),
        ),
        (
            "people-dressed",
            serde_json::json!({
                "defaults": {"mpfb_data": data, "assets": assets, "textures": "none"},
                "population": {
                    "rig_name": "game_engine", "count": 4, "seed": 7,
                    "output": "people-dressed/{index}.g4b",
                    "ranges": {"gender": [0.0, 1.0], "weight": [0.3, 0.7]},
                    "draw": {
                        "clothes": [["male_casualsuit01", "shoes01"], ["female_sportsuit01", "shoes02"]],
                        "hair": ["short02", "bob01", "ponytail01"],
                        "eyebrows": ["eyebrow001", "eyebrow009"],
                        "eyelashes": ["eyelashes01", "eyelashes02"]
                    }
                }
            }),
        ),
    ];
    for (name, manifest) in &populations {
        let path = work.path().join(format!("{name}.json"));
        std::fs::write(&path, serde_json::to_vec(manifest).unwrap()).unwrap();
        let mut runs: Vec<BTreeMap<String, String>> = Vec::new();
        for jobs in ["2", "1"] {
            let output = Command::new(env!("CARGO_BIN_EXE_mpfb2g4mf"))
                .args(["batch", "--quiet", "--jobs", jobs])
                .arg(&path)
                .output()
                .unwrap();
            assert!(
                output.status.success(),
                "{name} --jobs {jobs}: {}",
                String::from_utf8_lossy(&output.stderr)
            );
            runs.push(
                (0..4)
                    .map(|i| {
                        let file = work.path().join(name).join(format!("{i}.g4b"));
                        (format!("{name} {i}.g4b"), sha256(&file))
                    })
                    .collect(),
            );
        }
        assert_eq!(
            runs[0], runs[1],
            "{name}: one worker and two write the same bytes"
        );
        got.extend(runs.swap_remove(0));
    }
    assert_golden(&got, &root.join("fixtures/golden-bytes-variants.json"));
}

/// Compares `got` (output name -> hash) with the recorded file at `path` (rewritten first with
/// `UPDATE_GOLDEN=1`): every hash the same, none missing or extra.
fn assert_golden(got: &BTreeMap<String, String>, path: &std::path::Path) {
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        std::fs::write(path, serde_json::to_string_pretty(got).unwrap() + "\n").unwrap();
    }
    let expected: BTreeMap<String, String> =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let changed: Vec<&String> = got
        .iter()
        .filter(|(k, v)| expected.get(*k) != Some(v))
        .map(|(k, _)| k)
        .collect();
    assert!(
        changed.is_empty() && got.len() == expected.len(),
        "bytes changed for {changed:?} (UPDATE_GOLDEN=1 records them on purpose)"
    );
}
