//! The environment `convert` runs in changes no byte: the on-disk target cache, timings
//! (`MPFB2G4MF_TIMINGS`, which must name every stage) and the start-up re-exec with glibc's
//! malloc tunables.

use crate::common::{bin, convert_default, stderr};

/// The on-disk cache of parsed targets changes nothing: a body converted without it, with a
/// cold cache and with a warm one is the same file, byte for byte.
#[test]
fn the_target_cache_changes_no_byte() {
    let data = test_support::mpfb_data_or_skip!(the_target_cache_changes_no_byte);
    let out = tempfile::tempdir().unwrap();
    let cache = out.path().join("cache");
    let convert = |name: &str, cache_setting: &std::ffi::OsStr| -> Vec<u8> {
        let model = out.path().join(name);
        let result = bin()
            .env("MPFB2G4MF_TARGET_CACHE", cache_setting)
            .args([
                "convert",
                "--rig-name",
                "default",
                "--mpfb-data",
                data.to_str().unwrap(),
                "--phenotype",
                "gender=0.3,age=0.7,weight=0.6,african=0.5,asian=0.2,caucasian=0.3",
                "--target",
                "nose-hump-incr=0.7",
                "--name",
                "Same",
                "--quiet",
                "-o",
                model.to_str().unwrap(),
            ])
            .output()
            .unwrap();
        assert!(result.status.success(), "{name}: {}", stderr(&result));
        std::fs::read(&model).unwrap()
    };
    let uncached = convert("off.g4b", std::ffi::OsStr::new("off"));
    let cold = convert("cold.g4b", cache.as_os_str());
    let entries = std::fs::read_dir(&cache).unwrap().count();
    assert!(entries > 5, "{entries} cache files");
    let warm = convert("warm.g4b", cache.as_os_str());
    assert!(uncached == cold && cold == warm);
}

#[test]
fn timings_name_every_stage_and_change_no_byte() {
    let data = test_support::mpfb_data_or_skip!(timings_name_every_stage_and_change_no_byte);
    let out = tempfile::tempdir().unwrap();
    let convert = |folder: &str, timings: bool| -> (Vec<u8>, String) {
        std::fs::create_dir_all(out.path().join(folder)).unwrap();
        let model = out.path().join(folder).join("timed.g4b");
        let mut command = convert_default(&data, &model, &[]);
        command.env_remove("MPFB2G4MF_TIMINGS");
        if timings {
            command.env("MPFB2G4MF_TIMINGS", "1");
        }
        let result = command.output().unwrap();
        assert!(result.status.success(), "{}", stderr(&result));
        (std::fs::read(&model).unwrap(), stderr(&result))
    };
    let (plain, quiet) = convert("plain", false);
    let (timed, report) = convert("timed", true);
    assert_eq!(plain, timed, "timings change the output");
    assert!(!quiet.contains("timings:"), "{quiet}");
    for stage in [
        "load inputs",
        "body",
        "fit",
        "assemble",
        "normals",
        "write: build",
        "write: encode",
        "write ",
    ] {
        let line = report
            .lines()
            .find(|l| l.starts_with(&format!("timings: {stage}")))
            .unwrap_or_else(|| panic!("no `{stage}` lap in:\n{report}"));
        let ms: f64 = line
            .trim_end_matches(" ms")
            .rsplit(' ')
            .next()
            .and_then(|n| n.parse().ok())
            .unwrap_or_else(|| panic!("no time in `{line}`"));
        assert!(ms >= 0.0 && ms.is_finite(), "{line}");
    }
    // The load lap's parts, each input file, timed on whichever core read it.
    for part in ["rig", "weights", "mesh"] {
        assert!(
            report
                .lines()
                .any(|l| l.starts_with(&format!("timings:   - {part} ")) && l.ends_with(" ms")),
            "no `{part}` part in:\n{report}"
        );
    }
    // The text format reports the same write laps.
    let text_model = out.path().join("timed.g4tf");
    let result = convert_default(&data, &text_model, &[])
        .env("MPFB2G4MF_TIMINGS", "1")
        .output()
        .unwrap();
    assert!(result.status.success(), "{}", stderr(&result));
    let report = stderr(&result);
    for stage in ["write: stats", "write: encode", "write "] {
        assert!(
            report
                .lines()
                .any(|l| l.starts_with(&format!("timings: {stage}"))),
            "no `{stage}` lap for .g4tf in:\n{report}"
        );
    }
}

/// The start-up re-exec with glibc's malloc tunables: it happens once, the user's own
/// `GLIBC_TUNABLES` or the opt-out variable prevent it, and no setting changes a byte.
#[test]
fn malloc_tuning_reexecs_once_and_changes_no_byte() {
    let data = test_support::mpfb_data_or_skip!(malloc_tuning_reexecs_once_and_changes_no_byte);
    let out = tempfile::tempdir().unwrap();
    let convert = |folder: &str, env: &[(&str, &str)]| -> (Vec<u8>, String) {
        std::fs::create_dir_all(out.path().join(folder)).unwrap();
        let model = out.path().join(folder).join("tuned.g4b");
        let mut command = convert_default(&data, &model, &[]);
        for name in [
            "GLIBC_TUNABLES",
            "MPFB2G4MF_SYSTEM_MALLOC",
            "MPFB2G4MF_MALLOC_TUNED",
        ] {
            command.env_remove(name);
        }
        command.env("MPFB2G4MF_TIMINGS", "1");
        command.envs(env.iter().copied());
        let result = command.output().unwrap();
        assert!(result.status.success(), "{}", stderr(&result));
        let report = stderr(&result);
        let start = report
            .lines()
            .find(|l| l.starts_with("timings: start"))
            .unwrap_or_else(|| panic!("no start lap in:\n{report}"))
            .to_owned();
        // One process reports: a loop or a double start would print the start lap twice.
        assert_eq!(report.matches("timings: start").count(), 1, "{report}");
        (std::fs::read(&model).unwrap(), start)
    };
    let (tuned, tuned_start) = convert("tuned", &[]);
    let (system, system_start) = convert("system", &[("MPFB2G4MF_SYSTEM_MALLOC", "1")]);
    let (own, own_start) = convert("own", &[("GLIBC_TUNABLES", "glibc.malloc.arena_max=2")]);
    let glibc = cfg!(all(target_os = "linux", target_env = "gnu"));
    let expected = if glibc { "tuned" } else { "system" };
    assert!(
        tuned_start.ends_with(&format!("(malloc: {expected})")),
        "{tuned_start}"
    );
    assert!(system_start.ends_with("(malloc: system)"), "{system_start}");
    assert!(
        own_start.ends_with("(malloc: GLIBC_TUNABLES from the environment)"),
        "{own_start}"
    );
    assert_eq!(tuned, system, "the malloc settings change the output");
    assert_eq!(tuned, own, "the user's malloc settings change the output");
}
