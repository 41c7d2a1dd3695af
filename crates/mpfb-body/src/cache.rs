//! A binary cache of parsed targets: parsing MakeHuman's text (often gzipped) is most of a
//! body's cost, and a population or a batch reads the same macro targets over and over, from
//! one process to the next. Each target file gets one cache file, named by a hash of its path,
//! length and modification time, holding its deltas exactly as parsed (so outputs do not
//! change): `MPFBTGT1`, the entry count (u64), then per entry the vertex (u32) and three f32,
//! little-endian. A cache file that is missing, short, or of another format is ignored and
//! rewritten; the cache is an optimisation, never a source of errors.

use crate::target::{Target, TargetError, read_target_file};
use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};

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

/// The cache file of a target file, from its path, length and modification time.
fn cache_file(dir: &Path, path: &Path) -> Option<PathBuf> {
    let meta = std::fs::metadata(path).ok()?;
    let modified = meta.modified().ok()?;
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    std::fs::canonicalize(path).ok()?.hash(&mut hasher);
    meta.len().hash(&mut hasher);
    modified.hash(&mut hasher);
    Some(dir.join(format!("{:016x}.bin", hasher.finish())))
}

fn decode(bytes: &[u8]) -> Option<Target> {
    let body = bytes.strip_prefix(MAGIC.as_slice())?;
    let (count, entries) = body.split_at_checked(8)?;
    let count = u64::from_le_bytes(count.try_into().ok()?) as usize;
    if entries.len() != count.checked_mul(ENTRY)? {
        return None;
    }
    let f = |b: &[u8]| f32::from_le_bytes([b[0], b[1], b[2], b[3]]);
    let deltas = entries
        .chunks_exact(ENTRY)
        .map(|e| {
            (
                u32::from_le_bytes([e[0], e[1], e[2], e[3]]),
                [f(&e[4..8]), f(&e[8..12]), f(&e[12..16])],
            )
        })
        .collect();
    Some(Target { deltas })
}

fn encode(target: &Target) -> Vec<u8> {
    let mut out = Vec::with_capacity(16 + target.deltas.len() * ENTRY);
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&(target.deltas.len() as u64).to_le_bytes());
    for (v, d) in &target.deltas {
        out.extend_from_slice(&v.to_le_bytes());
        for c in d {
            out.extend_from_slice(&c.to_le_bytes());
        }
    }
    out
}

/// [`read_target_file`] through the cache in `dir` (none: no cache): a valid cache file is
/// read instead of the target; otherwise the target is parsed and its cache file written
/// (through a temporary file and a rename, so readers never see half of one).
pub fn read_target_cached(path: &Path, dir: Option<&Path>) -> Result<Target, TargetError> {
    let Some(file) = dir.and_then(|d| cache_file(d, path)) else {
        return read_target_file(path);
    };
    if let Some(target) = std::fs::read(&file).ok().as_deref().and_then(decode) {
        return Ok(target);
    }
    let target = read_target_file(path)?;
    if let Some(dir) = file.parent() {
        // A temporary file of its own per writer (threads and processes may race to write
        // the same entry; each rename is whole).
        let written = std::fs::create_dir_all(dir).and_then(|()| {
            let mut temp = tempfile::NamedTempFile::new_in(dir)?;
            std::io::Write::write_all(&mut temp, &encode(&target))?;
            temp.persist(&file).map(drop).map_err(|e| e.error)
        });
        // A read-only or full disk only costs the next run a parse.
        drop(written);
    }
    Ok(target)
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
