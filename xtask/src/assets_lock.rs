//! `cargo xtask assets-lock --assets-repo DIR --makehuman-repo DIR`: writes
//! `crates/mpfb-data/src/makehuman-assets.lock`, the files a complete MakeHuman assets folder
//! holds, each with its size and SHA-256, from git clones of the two repositories at the
//! pinned commits. Files of the asset repository stored in Git LFS are listed with the object
//! id and size their pointer declares (the SHA-256 of the real image), so `data fetch` can
//! check what it downloads without trusting the archive it read the pointer from.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The asset repository and the commit the lock pins (its `base/` folder is the assets folder).
const ASSETS_REPO: (&str, &str) = (
    "makehumancommunity/makehuman-assets",
    "8cf9645b975a98eea056b140df11a1d278da0d10",
);
/// MakeHuman's own repository and the commit the lock pins (its `makehuman/data/` folder).
const MAKEHUMAN_REPO: (&str, &str) = (
    "makehumancommunity/makehuman",
    "a8bc2d54ff0ac92e78ff71431b1023eda42bf482",
);

/// What MakeHuman's repository adds to the asset repository: the default eyes and their brown
/// material, the litsphere skins, the face pose units, the default skeleton with its weights,
/// and the T-pose and benchmark poses (all CC0 by that repository's LICENSE.md); not their
/// thumbnails, which nothing here reads.
const FROM_MAKEHUMAN: [&str; 19] = [
    "eyes/high-poly/high-poly.mhclo",
    "eyes/high-poly/high-poly.obj",
    "eyes/low-poly/low-poly.mhclo",
    "eyes/low-poly/low-poly.obj",
    "eyes/materials/brown.mhmat",
    "eyes/materials/brown_eye.png",
    "litspheres/skinmat_african.png",
    "litspheres/skinmat_asian.png",
    "litspheres/skinmat_caucasian.png",
    "litspheres/skinmat_eye.png",
    "poseunits/body-poseunits.json",
    "poseunits/face-poseunits.bvh",
    "poseunits/face-poseunits.json",
    "rigs/default.mhskel",
    "rigs/default_weights.mhw",
    "poses/tpose.bvh",
    "poses/tpose.meta",
    "poses/benchmark.bvh",
    "poses/benchmark.meta",
];

fn git(repo: &Path, args: &[&str]) -> Result<Vec<u8>, String> {
    let output = Command::new("git")
        .arg("--git-dir")
        .arg(repo)
        .args(args)
        .output()
        .map_err(|e| format!("cannot run git: {e}"))?;
    if !output.status.success() {
        return Err(format!(
            "git {} in {}: {}",
            args.join(" "),
            repo.display(),
            String::from_utf8_lossy(&output.stderr).trim()
        ));
    }
    Ok(output.stdout)
}

/// The git directory of a clone (a bare repository or a work tree's `.git`).
fn git_dir(dir: &Path) -> PathBuf {
    let dot_git = dir.join(".git");
    if dot_git.is_dir() {
        dot_git
    } else {
        dir.to_path_buf()
    }
}

fn sha256_hex(bytes: &[u8]) -> String {
    use sha2::Digest;
    sha2::Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// A lock line for `path` (relative to the assets folder) whose blob holds `bytes`.
fn line(origin: &str, path: &str, bytes: &[u8]) -> Result<String, String> {
    match mpfb_data::fetch::LfsPointer::parse(bytes) {
        Some(pointer) if origin == "archive" => {
            Ok(format!("lfs {} {} {path}", pointer.size, pointer.oid))
        }
        Some(_) => Err(format!("{path} is a Git LFS pointer in {origin}")),
        None => Ok(format!(
            "{origin} {} {} {path}",
            bytes.len(),
            sha256_hex(bytes)
        )),
    }
}

/// Every file under `prefix` at `commit` (`git ls-tree`), relative to `prefix`.
fn tree(repo: &Path, commit: &str, prefix: &str) -> Result<Vec<String>, String> {
    let listing = git(repo, &["ls-tree", "-r", "--name-only", commit, prefix])?;
    Ok(String::from_utf8_lossy(&listing)
        .lines()
        .filter_map(|l| l.strip_prefix(prefix).map(str::to_owned))
        .collect())
}

pub fn run(args: &[String]) -> Result<(), String> {
    let (mut assets, mut makehuman) = (None, None);
    let mut words = args.iter();
    while let Some(word) = words.next() {
        let value = words.next().map(PathBuf::from);
        match (word.as_str(), value) {
            ("--assets-repo", Some(dir)) => assets = Some(git_dir(&dir)),
            ("--makehuman-repo", Some(dir)) => makehuman = Some(git_dir(&dir)),
            _ => {
                return Err(format!(
                    "assets-lock takes --assets-repo DIR --makehuman-repo DIR (clones of {} and {}), not `{word}`",
                    ASSETS_REPO.0, MAKEHUMAN_REPO.0
                ));
            }
        }
    }
    let (Some(assets), Some(makehuman)) = (assets, makehuman) else {
        return Err("assets-lock needs --assets-repo DIR and --makehuman-repo DIR".into());
    };
    let mut lines = vec![
        "# MakeHuman assets as `data fetch --makehuman-assets` installs them: written by `cargo xtask assets-lock`, do not edit.".to_owned(),
        "# origin size sha256 path   (archive: the asset repository's archive; lfs: its Git LFS image; makehuman: MakeHuman's repository)".to_owned(),
        format!("repository archive {} {} base/", ASSETS_REPO.0, ASSETS_REPO.1),
        format!(
            "repository makehuman {} {} makehuman/data/",
            MAKEHUMAN_REPO.0, MAKEHUMAN_REPO.1
        ),
    ];
    for path in tree(&assets, ASSETS_REPO.1, "base/")? {
        let bytes = git(
            &assets,
            &["show", &format!("{}:base/{path}", ASSETS_REPO.1)],
        )?;
        lines.push(line("archive", &path, &bytes)?);
    }
    for path in FROM_MAKEHUMAN {
        let spec = format!("{}:makehuman/data/{path}", MAKEHUMAN_REPO.1);
        lines.push(line(
            "makehuman",
            path,
            &git(&makehuman, &["show", &spec])?,
        )?);
    }
    let out = test_support::workspace_root().join("crates/mpfb-data/src/makehuman-assets.lock");
    let text = lines.join("\n") + "\n";
    std::fs::write(&out, &text).map_err(|e| format!("{}: {e}", out.display()))?;
    // Parsing it back is the check that the converter reads what was written.
    let lock = mpfb_data::fetch::AssetsLock::parse(&text).map_err(|e| e.to_string())?;
    let lfs: Vec<_> = lock
        .files
        .iter()
        .filter(|f| f.origin == mpfb_data::fetch::LockOrigin::Lfs)
        .collect();
    println!(
        "wrote {} ({} files, {} of them Git LFS images of {:.1} MiB, {} from MakeHuman's repository)",
        out.display(),
        lock.files.len(),
        lfs.len(),
        lfs.iter().map(|f| f.size).sum::<u64>() as f64 / f64::from(1 << 20),
        lock.files
            .iter()
            .filter(|f| f.origin == mpfb_data::fetch::LockOrigin::MakeHuman)
            .count(),
    );
    Ok(())
}
