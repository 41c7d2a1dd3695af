//! Completing a staged MakeHuman assets folder after its archive is unpacked: the images the
//! archive held as Git LFS pointers fetched from the LFS media host, the files only
//! MakeHuman's own repository has (default eyes, pose units, default skeleton, T-pose) fetched
//! from it, each checked against its pointer or the pinned lock, and the whole compared with
//! the pinned release (required to match it when the archive is the pinned one).

use super::staging::Unpacked;
use super::{FetchError, MAX_FILE, MAX_TOTAL, download_capped, hex, io};
use crate::assets_lock::{AssetsLock, LfsPointer, LockOrigin};
use sha2::{Digest, Sha256};
use std::io::Read;
use std::path::Path;

/// Environment variable: where the asset repository's LFS images are fetched from instead of
/// GitHub's media host (a URL or a folder laid out like the repository: `base/...`).
pub const ASSETS_LFS_ENV: &str = "MPFB2G4MF_ASSETS_LFS";
/// Environment variable: where MakeHuman's repository's files are fetched from instead of
/// GitHub (a URL or a folder laid out like its `makehuman/data/`).
pub const MAKEHUMAN_FILES_ENV: &str = "MPFB2G4MF_MAKEHUMAN_FILES";

/// How to complete a staged folder.
#[derive(Debug, Clone)]
pub(crate) struct Completing {
    /// The archive is the pinned release: every file must be there and match the lock.
    pub(crate) pinned: bool,
    /// Leave images held as LFS pointers out instead of fetching them.
    pub(crate) without_images: bool,
    /// Where LFS images come from: a base URL or a folder laid out like the repository.
    pub(crate) lfs_source: String,
    /// Where MakeHuman's repository's files come from: a base URL or a folder laid out like
    /// its `makehuman/data/`.
    pub(crate) makehuman_source: String,
}

impl Completing {
    /// Completing from the lock's hosts, or the mirrors the environment names.
    pub(crate) fn from_env(lock: &AssetsLock, pinned: bool, without_images: bool) -> Self {
        Completing {
            pinned,
            without_images,
            lfs_source: source_of(ASSETS_LFS_ENV, lock.lfs_base()),
            makehuman_source: source_of(MAKEHUMAN_FILES_ENV, lock.makehuman_base()),
        }
    }
}

/// What completing did.
#[derive(Debug, Default)]
pub(crate) struct Completed {
    /// LFS images fetched.
    pub(crate) images_fetched: usize,
    /// LFS pointers left out (asked to, or unreadable).
    pub(crate) images_left_out: usize,
    /// Files fetched from MakeHuman's repository.
    pub(crate) makehuman_files: usize,
    /// What else is worth saying (differences from the pinned release).
    pub(crate) notes: Vec<String>,
}

/// A source of files: a base URL (`http://`, `https://`) or a folder.
fn source_of(variable: &str, default: String) -> String {
    std::env::var(variable)
        .ok()
        .filter(|v| !v.is_empty())
        .unwrap_or(default)
}

/// Fetches `relative` from `base` (a URL or a folder) into `into`, at most `size` bytes, and
/// checks its size and SHA-256. Errors name the address, never the staging folder.
fn fetch_checked(
    base: &str,
    relative: &str,
    into: &Path,
    size: u64,
    sha256: &str,
) -> Result<(), FetchError> {
    let address = format!("{}/{relative}", base.trim_end_matches('/'));
    if let Some(parent) = into.parent() {
        std::fs::create_dir_all(parent).map_err(io(&address))?;
    }
    let (got_size, got_sha) = if base.starts_with("http://") || base.starts_with("https://") {
        let (_, bytes, sha) = download_capped(&address, into, size)?;
        (bytes, sha)
    } else {
        let from = Path::new(base).join(relative);
        let file = std::fs::File::open(&from).map_err(io(&from))?;
        let mut hasher = Sha256::new();
        let mut out = std::fs::File::create(into).map_err(io(&address))?;
        let mut limited = file.take(size + 1);
        let mut buffer = vec![0u8; 1 << 16];
        let mut total = 0u64;
        loop {
            let n = limited.read(&mut buffer).map_err(io(&from))?;
            if n == 0 {
                break;
            }
            hasher.update(&buffer[..n]);
            std::io::Write::write_all(&mut out, &buffer[..n]).map_err(io(&address))?;
            total += n as u64;
        }
        out.sync_all().map_err(io(&address))?;
        (total, hex(&hasher.finalize()))
    };
    if got_size != size || got_sha != sha256 {
        return Err(FetchError::Checksum {
            what: format!("{address} ({got_size} bytes, {size} expected)"),
            expected: sha256.to_owned(),
            got: got_sha,
        });
    }
    Ok(())
}

fn sha256_file(path: &Path) -> Result<String, FetchError> {
    let mut file = std::fs::File::open(path).map_err(io(path))?;
    let mut hasher = Sha256::new();
    std::io::copy(&mut file, &mut hasher).map_err(io(path))?;
    Ok(hex(&hasher.finalize()))
}

/// Fetches the images `unpacked` found as LFS pointers into `staging`.
fn fetch_images(
    lock: &AssetsLock,
    base: &str,
    staging: &Path,
    pointers: &[(&String, &LfsPointer)],
    say: &mut dyn FnMut(&str),
) -> Result<usize, FetchError> {
    let total: u64 = pointers.iter().map(|(_, p)| p.size).sum();
    if let Some((relative, pointer)) = pointers.iter().find(|(_, p)| p.size > MAX_FILE) {
        return Err(FetchError::TooLarge {
            what: format!("the Git LFS image {relative} ({} bytes)", pointer.size),
            limit: MAX_FILE,
        });
    }
    if total > MAX_TOTAL {
        return Err(FetchError::TooLarge {
            what: format!("the {} Git LFS images together", pointers.len()),
            limit: MAX_TOTAL,
        });
    }
    say(&format!(
        "fetching {} Git LFS images ({:.1} MiB) from {base}",
        pointers.len(),
        total as f64 / f64::from(1 << 20)
    ));
    for (relative, pointer) in pointers {
        let in_repository = format!("{}{relative}", lock.assets.prefix);
        fetch_checked(
            base,
            &in_repository,
            &staging.join(relative),
            pointer.size,
            &pointer.oid,
        )?;
    }
    Ok(pointers.len())
}

/// Fetches the files of MakeHuman's repository the staged folder lacks.
fn fetch_makehuman_files(
    lock: &AssetsLock,
    base: &str,
    staging: &Path,
    say: &mut dyn FnMut(&str),
) -> Result<usize, FetchError> {
    let wanted: Vec<_> = lock
        .files
        .iter()
        .filter(|f| f.origin == LockOrigin::MakeHuman && !staging.join(&f.path).exists())
        .collect();
    if wanted.is_empty() {
        return Ok(0);
    }
    say(&format!(
        "fetching {} files from MakeHuman's repository ({base})",
        wanted.len()
    ));
    for file in &wanted {
        fetch_checked(
            base,
            &file.path,
            &staging.join(&file.path),
            file.size,
            &file.sha256,
        )?;
    }
    Ok(wanted.len())
}

/// Compares the staged folder with the lock: the files absent, and those that differ.
fn compare(
    lock: &AssetsLock,
    staging: &Path,
    without_images: bool,
) -> Result<(Vec<String>, Vec<String>), FetchError> {
    let (mut absent, mut differ) = (Vec::new(), Vec::new());
    for file in &lock.files {
        let path = staging.join(&file.path);
        match std::fs::metadata(&path) {
            Err(_) if without_images && file.origin == LockOrigin::Lfs => {}
            Err(_) => absent.push(file.path.clone()),
            Ok(meta) if meta.len() != file.size => differ.push(file.path.clone()),
            Ok(_) if sha256_file(&path)? != file.sha256 => differ.push(file.path.clone()),
            Ok(_) => {}
        }
    }
    Ok((absent, differ))
}

/// Completes the assets folder staged in `staging` from what `unpacked` found.
pub(crate) fn complete(
    staging: &Path,
    unpacked: &Unpacked,
    how: &Completing,
    say: &mut dyn FnMut(&str),
) -> Result<Completed, FetchError> {
    let lock = AssetsLock::pinned().map_err(|e| FetchError::Lock(e.clone()))?;
    let mut done = Completed::default();
    let readable: Vec<(&String, &LfsPointer)> = unpacked
        .pointers
        .iter()
        .filter_map(|(relative, pointer)| pointer.as_ref().map(|p| (relative, p)))
        .collect();
    let unreadable = unpacked.pointers.len() - readable.len();
    if unreadable > 0 {
        done.notes.push(format!(
            "{unreadable} files began like Git LFS pointers but are not ones; they are left out"
        ));
    }
    if how.without_images {
        done.images_left_out = unpacked.pointers.len();
    } else {
        done.images_left_out = unreadable;
        if !readable.is_empty() {
            done.images_fetched = fetch_images(lock, &how.lfs_source, staging, &readable, say)?;
        }
    }
    match fetch_makehuman_files(lock, &how.makehuman_source, staging, say) {
        Ok(fetched) => done.makehuman_files = fetched,
        // A user's own source (a pack, a mirror) is installed without what cannot be
        // reached, and the line says so; the pinned release is complete or not installed.
        Err(e @ (FetchError::Download { .. } | FetchError::Io { .. })) if !how.pinned => {
            done.notes.push(format!(
                "MakeHuman's repository's files the source lacks were not fetched ({e}); `data status` says which features miss them"
            ));
        }
        Err(e) => return Err(e),
    }
    done.notes.extend(judge_against_lock(
        lock,
        staging,
        how.pinned,
        how.without_images,
    )?);
    Ok(done)
}

/// Compares the staged folder with `lock`: the pinned release must match it file for file
/// (else nothing is installed); any other source is described by how it differs.
fn judge_against_lock(
    lock: &AssetsLock,
    staging: &Path,
    pinned: bool,
    without_images: bool,
) -> Result<Vec<String>, FetchError> {
    let (absent, differ) = compare(lock, staging, without_images)?;
    let release = lock.release();
    if pinned && !(absent.is_empty() && differ.is_empty()) {
        let problem = match (differ.first(), absent.first()) {
            (Some(first), _) => format!("{first} differs from the pinned release ({release})"),
            (None, Some(first)) => {
                format!("{first} of the pinned release ({release}) is not in it")
            }
            (None, None) => String::new(),
        };
        return Err(FetchError::NotPinned {
            absent: absent.len(),
            differ: differ.len(),
            problem,
        });
    }
    let mut notes = Vec::new();
    if let Some(first) = differ.first() {
        notes.push(format!(
            "{} files differ from the pinned release ({release}), {first} first",
            differ.len()
        ));
    }
    if !absent.is_empty() {
        notes.push(format!(
            "{} of the pinned release's {} files are not in it (`data status` says what each feature lacks)",
            absent.len(),
            lock.files.len()
        ));
    }
    Ok(notes)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sha(bytes: &[u8]) -> String {
        hex(&Sha256::digest(bytes))
    }

    #[test]
    fn the_pinned_release_must_match_its_lock_and_any_other_source_is_described() {
        let tmp = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let staging = tmp.path();
        let text = format!(
            "repository archive a/b 8cf9645b975a98eea056b140df11a1d278da0d10 base/\n\
             repository makehuman c/d a8bc2d54ff0ac92e78ff71431b1023eda42bf482 makehuman/data/\n\
             archive 5 {} hair/h.mhclo\n\
             archive 5 {} hair/h.obj\n\
             lfs 3 {} hair/h.png\n",
            sha(b"name\n"),
            sha(b"v 0 0"),
            sha(b"png"),
        );
        let lock = AssetsLock::parse(&text).unwrap_or_else(|e| panic!("{e}"));
        std::fs::create_dir_all(staging.join("hair")).unwrap_or_else(|e| panic!("{e}"));
        std::fs::write(staging.join("hair/h.mhclo"), "name\n").unwrap_or_else(|e| panic!("{e}"));
        std::fs::write(staging.join("hair/h.obj"), "v 1 1").unwrap_or_else(|e| panic!("{e}"));
        let refused = judge_against_lock(&lock, staging, true, false);
        assert!(
            matches!(&refused, Err(FetchError::NotPinned { absent: 1, differ: 1, problem })
                if problem.starts_with("hair/h.obj differs")),
            "{refused:?}"
        );
        // Without images the LFS image is not expected; a differing file still refuses.
        assert!(matches!(
            judge_against_lock(&lock, staging, true, true),
            Err(FetchError::NotPinned {
                absent: 0,
                differ: 1,
                ..
            })
        ));
        std::fs::write(staging.join("hair/h.obj"), "v 0 0").unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            judge_against_lock(&lock, staging, true, true).ok(),
            Some(Vec::new())
        );
        // Another source is described, never refused.
        let notes = judge_against_lock(&lock, staging, false, false).unwrap_or_default();
        assert_eq!(
            notes,
            [
                "1 of the pinned release's 3 files are not in it (`data status` says what each feature lacks)"
            ]
        );
    }

    #[test]
    fn a_fetched_file_is_checked_against_its_size_and_digest() {
        let tmp = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let source = tmp.path().join("mirror");
        std::fs::create_dir_all(source.join("base/hair")).unwrap_or_else(|e| panic!("{e}"));
        std::fs::write(source.join("base/hair/h.png"), "png!").unwrap_or_else(|e| panic!("{e}"));
        let base = source.display().to_string();
        let into = tmp.path().join("staging/hair/h.png");
        assert!(fetch_checked(&base, "base/hair/h.png", &into, 4, &sha(b"png!")).is_ok());
        let wrong = fetch_checked(
            &base,
            "base/hair/h.png",
            &tmp.path().join("x"),
            4,
            &sha(b"gif!"),
        );
        assert!(
            matches!(&wrong, Err(FetchError::Checksum { what, .. }) if what.contains("base/hair/h.png")),
            "{wrong:?}"
        );
        let short = fetch_checked(
            &base,
            "base/hair/h.png",
            &tmp.path().join("y"),
            3,
            &sha(b"png"),
        );
        assert!(
            matches!(short, Err(FetchError::Checksum { .. })),
            "{short:?}"
        );
    }
}
