//! A binary cache of parsed targets: parsing MakeHuman's text (often gzipped) is most of a
//! body's cost, and a population or a batch reads the same macro targets over and over, from
//! one process to the next. Each target file gets one cache file, named by a 128-bit hash
//! (XXH3) of the file's bytes, so a changed target is never served stale whatever its length
//! and time say. It holds the deltas exactly as parsed (so outputs do not change): `MPFBTGT1`,
//! the entry count (u64), then per entry the vertex (u32) and three f32, little-endian. A
//! cache file that is missing, short, or of another format is ignored and rewritten; the
//! folder is kept under [`MAX_CACHE_BYTES`] by removing the least recently written entries.
//! The cache is an optimisation, never a source of errors.

use crate::target::{MAX_TARGET_DELTAS, Target, TargetError, decode_target, read_target_bytes};
use std::path::{Path, PathBuf};

/// The most bytes the cache folder holds (the 1,260 body targets, face units and visemes
/// take about 30 MB).
pub const MAX_CACHE_BYTES: u64 = 256 << 20;

const MAGIC: &[u8; 8] = b"MPFBTGT1";
const ENTRY: usize = 16;

/// The cache folder: `$MPFB2G4MF_TARGET_CACHE` (`off` disables it), else
/// `$XDG_CACHE_HOME/mpfb2g4mf/targets`, else `~/.cache/mpfb2g4mf/targets`.
pub fn default_cache_dir() -> Option<PathBuf> {
    match std::env::var_os("MPFB2G4MF_TARGET_CACHE") {
        Some(v) if v == "off" => return None,
        Some(v) if !v.is_empty() => return Some(PathBuf::from(v)),
        _ => {}
    }
    let base = std::env::var_os("XDG_CACHE_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))?;
    Some(base.join("mpfb2g4mf").join("targets"))
}

/// The cache file of a target file's bytes.
fn cache_file(dir: &Path, bytes: &[u8]) -> PathBuf {
    dir.join(format!("{:032x}.bin", xxhash_rust::xxh3::xxh3_128(bytes)))
}

/// True for a cache entry's file name (see [`cache_file`]).
fn is_entry_name(name: &str) -> bool {
    name.strip_suffix(".bin")
        .is_some_and(|hash| hash.len() == 32 && hash.bytes().all(|b| b.is_ascii_hexdigit()))
}

/// Removes the least recently written entries until the folder holds at most three quarters
/// of [`MAX_CACHE_BYTES`] (run when it holds more, so pruning is rare).
fn prune(dir: &Path, max_bytes: u64) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut files: Vec<(std::time::SystemTime, u64, PathBuf)> = entries
        .flatten()
        // Only our entries (32 hex digits and `.bin`): the folder may be one the user named.
        .filter(|e| is_entry_name(&e.file_name().to_string_lossy()))
        .filter_map(|e| {
            let meta = e.metadata().ok()?;
            Some((meta.modified().ok()?, meta.len(), e.path()))
        })
        .collect();
    let mut total: u64 = files.iter().map(|f| f.1).sum();
    if total <= max_bytes {
        return;
    }
    files.sort();
    for (_, size, path) in files {
        if total <= max_bytes / 4 * 3 {
            break;
        }
        if std::fs::remove_file(&path).is_ok() {
            total -= size;
        }
    }
}

fn decode(bytes: &[u8]) -> Option<Target> {
    let body = bytes.strip_prefix(MAGIC.as_slice())?;
    let (count, entries) = body.split_at_checked(8)?;
    let count = u64::from_le_bytes(count.try_into().ok()?) as usize;
    if count > MAX_TARGET_DELTAS || entries.len() != count.checked_mul(ENTRY)? {
        return None;
    }
    let f = |b: &[u8]| f32::from_le_bytes([b[0], b[1], b[2], b[3]]);
    let mut vertices = Vec::with_capacity(count);
    let mut offsets = Vec::with_capacity(count);
    for e in entries.chunks_exact(ENTRY) {
        vertices.push(u32::from_le_bytes([e[0], e[1], e[2], e[3]]));
        offsets.push([f(&e[4..8]), f(&e[8..12]), f(&e[12..16])]);
    }
    Some(Target {
        vertices: std::sync::Arc::new(vertices),
        offsets,
    })
}

fn encode(target: &Target) -> Vec<u8> {
    let mut out = Vec::with_capacity(16 + target.len() * ENTRY);
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&(target.len() as u64).to_le_bytes());
    for (v, d) in target.deltas() {
        out.extend_from_slice(&v.to_le_bytes());
        for c in d {
            out.extend_from_slice(&c.to_le_bytes());
        }
    }
    out
}

/// [`crate::read_target_file`] through the cache in `dir` (none: no cache): the file is
/// read, and a valid cache file for its bytes is read instead of parsing it; otherwise the
/// target is parsed and its cache file written (through a temporary file and a rename, so
/// readers never see half of one).
pub fn read_target_cached(path: &Path, dir: Option<&Path>) -> Result<Target, TargetError> {
    read_target_cached_within(path, dir, MAX_CACHE_BYTES)
}

fn read_target_cached_within(
    path: &Path,
    dir: Option<&Path>,
    max_bytes: u64,
) -> Result<Target, TargetError> {
    let bytes = read_target_bytes(path)?;
    let Some(dir) = dir else {
        return decode_target(&bytes).map_err(|e| e.with_file(path));
    };
    let file = cache_file(dir, &bytes);
    if let Some(target) = std::fs::read(&file).ok().as_deref().and_then(decode) {
        return Ok(target);
    }
    let target = decode_target(&bytes).map_err(|e| e.with_file(path))?;
    // A temporary file of its own per writer (threads and processes may race to write the
    // same entry; each rename is whole).
    let written = std::fs::create_dir_all(dir).and_then(|()| {
        let mut temp = tempfile::NamedTempFile::new_in(dir)?;
        std::io::Write::write_all(&mut temp, &encode(&target))?;
        temp.persist(&file).map(drop).map_err(|e| e.error)
    });
    // A read-only or full disk only costs the next run a parse.
    if written.is_ok() {
        prune(dir, max_bytes);
    }
    Ok(target)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::target::read_target_file;

    #[test]
    fn cached_targets_read_back_exactly_and_bad_cache_files_are_ignored() {
        let dir = tempfile::tempdir().unwrap();
        let target_path = dir.path().join("t.target");
        std::fs::write(&target_path, "3 0.1 -0.25 .026\n1 -0.0 1e-3 2\n").unwrap();
        let cache = dir.path().join("cache");
        let parsed = read_target_file(&target_path).unwrap();
        // First read parses and writes the cache; the second reads the cache.
        assert_eq!(
            read_target_cached(&target_path, Some(&cache)).unwrap(),
            parsed
        );
        let cached: Vec<_> = std::fs::read_dir(&cache).unwrap().collect();
        assert_eq!(cached.len(), 1);
        assert_eq!(
            read_target_cached(&target_path, Some(&cache)).unwrap(),
            parsed
        );
        // A corrupt cache file is ignored (and rewritten).
        let file = cached[0].as_ref().unwrap().path();
        std::fs::write(&file, b"MPFBTGT1\x05\x00\x00\x00\x00\x00\x00\x00short").unwrap();
        assert_eq!(
            read_target_cached(&target_path, Some(&cache)).unwrap(),
            parsed
        );
        assert_eq!(decode(&std::fs::read(&file).unwrap()), Some(parsed));
        assert!(decode(b"NOTACACHE").is_none());
    }

    #[test]
    fn a_changed_target_is_never_served_stale() {
        // Same length, same modification time, other content: the content decides.
        let dir = tempfile::tempdir().unwrap();
        let target_path = dir.path().join("t.target");
        let cache = dir.path().join("cache");
        std::fs::write(&target_path, "3 0.1 0.2 0.3\n").unwrap();
        let time = std::fs::metadata(&target_path).unwrap().modified().unwrap();
        let first = read_target_cached(&target_path, Some(&cache)).unwrap();
        std::fs::write(&target_path, "3 0.1 0.2 0.4\n").unwrap();
        std::fs::File::options()
            .write(true)
            .open(&target_path)
            .unwrap()
            .set_modified(time)
            .unwrap();
        let second = read_target_cached(&target_path, Some(&cache)).unwrap();
        assert_eq!(first.offsets[0][2], 0.3);
        assert_eq!(second.offsets[0][2], 0.4);
    }

    #[test]
    fn the_folder_is_kept_under_its_size() {
        let dir = tempfile::tempdir().unwrap();
        let cache = dir.path().join("cache");
        // Each entry is 16 + 16 bytes; a cap of 100 bytes holds three at most.
        for i in 0..20 {
            let path = dir.path().join(format!("{i}.target"));
            std::fs::write(&path, format!("{i} 0.1 0.2 0.3\n")).unwrap();
            read_target_cached_within(&path, Some(&cache), 100).unwrap();
        }
        let total: u64 = std::fs::read_dir(&cache)
            .unwrap()
            .flatten()
            .map(|e| e.metadata().unwrap().len())
            .sum();
        assert!(total <= 100, "cache holds {total} bytes");
        assert!(total > 0, "the newest entries stay");
        // A file of the user's in the folder is never counted or removed.
        let user = cache.join("backup.bin");
        std::fs::write(&user, vec![0u8; 1000]).unwrap();
        let path = dir.path().join("last.target");
        std::fs::write(&path, "7 0.1 0.2 0.3\n").unwrap();
        read_target_cached_within(&path, Some(&cache), 100).unwrap();
        assert!(user.exists());
    }
}
