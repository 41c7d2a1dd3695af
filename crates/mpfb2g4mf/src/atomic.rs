//! The one way we write files: a temporary file in the destination folder, synced, then
//! renamed over the destination, so a reader never sees a half-written file; and a `.g4tf`
//! with its external buffers replaced so that a failure at any step leaves the old pair whole;
//! and files that jobs share beside their outputs (`--textures copy`'s images), removed when
//! every job that used them failed and this process wrote them.

use std::io::Write;
use std::path::{Path, PathBuf};

/// The steps of a write where a failure can happen, for tests that inject one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// A buffer's temporary file is written and synced, not yet renamed.
    BufferWritten,
    /// A buffer is in place under its (new) name.
    BufferRenamed,
    /// The `.g4tf`'s temporary file is written and synced, not yet renamed.
    TextWritten,
    /// The `.g4tf` is in place; the old buffers are about to be removed.
    TextRenamed,
}

/// Writes `bytes` to `path` atomically (same-folder temporary file, `fsync`, rename).
pub fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    write_atomic_parts(path, &[bytes])
}

/// [`write_atomic`] of a file made of `parts`, written one after the other (a `.g4b`'s
/// header and JSON, then its buffer as it is: never joined in memory).
pub fn write_atomic_parts(path: &Path, parts: &[&[u8]]) -> std::io::Result<()> {
    write_atomic_with(path, parts, &mut |_| Ok(()), Step::TextWritten, &[])
}

/// A file written to its temporary file but not yet synced or in place:
/// [`PendingFile::commit`] finishes [`write_atomic_parts`]'s work (`fsync`, rename), later and
/// on any thread. A batch's worker writes its output's bytes (and frees them) and hands the
/// rest, which mostly waits on the disk, to a writer thread while it makes the next body.
/// Dropped uncommitted, the temporary file is removed.
#[derive(Debug)]
pub struct PendingFile {
    path: PathBuf,
    temp: Option<tempfile::NamedTempFile>,
    /// Shared files it names (copied images): kept once it is in place, released if it is
    /// dropped uncommitted.
    companions: Vec<SharedFile>,
    /// Files that go beside it as one set (a `.vrm`'s `.vrma` clips): put in place with it,
    /// removed with it when it is dropped uncommitted.
    siblings: Vec<PendingFile>,
}

impl PendingFile {
    /// Writes `parts`, one after the other, to a new temporary file beside `path`.
    pub fn write(path: &Path, parts: &[&[u8]]) -> std::io::Result<Self> {
        let mut temp = create_temp_beside(path)?;
        let written = parts.iter().try_for_each(|part| temp.write_all(part));
        let pending = Self {
            path: path.to_path_buf(),
            temp: Some(temp),
            companions: Vec::new(),
            siblings: Vec::new(),
        };
        // On error, dropping `pending` removes the temporary file.
        written.map(|()| pending)
    }

    /// Where it goes.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The shared files it names: kept when it is committed, released (removed if no other
    /// job uses them) when it is dropped or fails to commit.
    pub fn with_companions(mut self, companions: Vec<SharedFile>) -> Self {
        self.companions.extend(companions);
        self
    }

    /// Files that go beside it as one set (each written to its temporary file): put in place
    /// by [`PendingFile::commit`] with it, removed with it when it is dropped uncommitted.
    pub fn with_siblings(mut self, siblings: Vec<PendingFile>) -> Self {
        self.siblings.extend(siblings);
        self
    }

    /// Syncs the file and renames it over its destination. With siblings, every file of the
    /// set is synced before any is renamed, so a failure while they reach the disk replaces
    /// none of them; then the siblings are renamed, the file itself last (an error names the
    /// sibling it is about).
    pub fn commit(mut self) -> std::io::Result<()> {
        if let Some(temp) = &self.temp {
            temp.as_file().sync_all()?;
        }
        for sibling in &self.siblings {
            if let Some(temp) = &sibling.temp {
                temp.as_file()
                    .sync_all()
                    .map_err(|e| naming(&sibling.path, e))?;
            }
        }
        for sibling in std::mem::take(&mut self.siblings) {
            let path = sibling.path.clone();
            sibling.commit().map_err(|e| naming(&path, e))?;
        }
        let Some(temp) = self.temp.take() else {
            return Ok(());
        };
        finish_temp(temp, &self.path, &mut |_| Ok(()), Step::TextWritten, &[])?;
        std::mem::take(&mut self.companions)
            .into_iter()
            .for_each(SharedFile::keep);
        Ok(())
    }
}

/// `error` saying it is about `path` (a sibling's: the caller names the main file).
fn naming(path: &Path, error: std::io::Error) -> std::io::Error {
    std::io::Error::new(error.kind(), format!("{}: {error}", path.display()))
}

impl Drop for PendingFile {
    fn drop(&mut self) {
        if let Some(temp) = self.temp.take() {
            let path = temp.path().to_path_buf();
            drop(temp);
            crate::interrupt::unregister(&path);
        }
    }
}

/// Who uses each shared file this process knows of.
static SHARED_FILES: std::sync::LazyLock<
    std::sync::Mutex<std::collections::HashMap<PathBuf, SharedUse>>,
> = std::sync::LazyLock::new(Default::default);

/// The uses of one shared file.
#[derive(Debug, Default)]
struct SharedUse {
    /// Jobs that use it (a job whose output is in place never stops using it).
    users: usize,
    /// This process wrote it (a file that was there before is never removed).
    written_here: bool,
}

/// One job's use of a file that jobs share beside their outputs, named by its content (a copied
/// image): [`SharedFile::keep`] once the job's output is in place; dropped without that (the
/// job failed), the file is removed if this process wrote it and no other job uses it, so a
/// failed job leaves nothing it made and never removes what another job or a user has.
#[derive(Debug)]
pub struct SharedFile {
    path: PathBuf,
    kept: bool,
}

impl SharedFile {
    /// Uses the file at `path`, writing `bytes` there (atomically) when it is not there; a
    /// file already there is taken to hold them (its name is their hash). Checking and
    /// writing happen under one lock, so a file one job is removing is never another's.
    pub fn write(path: &Path, bytes: &[u8]) -> std::io::Result<Self> {
        let mut files = SHARED_FILES
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let entry = files.entry(path.to_path_buf()).or_default();
        if !path.is_file() {
            write_atomic(path, bytes)?;
            entry.written_here = true;
        }
        entry.users += 1;
        Ok(Self {
            path: path.to_path_buf(),
            kept: false,
        })
    }

    /// Where it is.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The job's output is in place: the file stays.
    pub fn keep(mut self) {
        self.kept = true;
    }
}

impl Drop for SharedFile {
    fn drop(&mut self) {
        if self.kept {
            return;
        }
        let mut files = SHARED_FILES
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(entry) = files.get_mut(&self.path) {
            entry.users = entry.users.saturating_sub(1);
            if entry.users == 0 {
                if entry.written_here {
                    let _ = std::fs::remove_file(&self.path);
                }
                files.remove(&self.path);
            }
        }
    }
}

fn folder_of(path: &Path) -> &Path {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    }
}

/// [`write_atomic`], calling `fail(before_rename)` between the sync and the rename; the files
/// `makes_useful` stop being removed on a signal once the rename is done.
fn write_atomic_with(
    path: &Path,
    parts: &[&[u8]],
    fail: &mut dyn FnMut(Step) -> std::io::Result<()>,
    before_rename: Step,
    makes_useful: &[PathBuf],
) -> std::io::Result<()> {
    let mut file = create_temp_beside(path)?;
    if let Err(e) = parts.iter().try_for_each(|part| file.write_all(part)) {
        let temp = file.path().to_path_buf();
        drop(file);
        crate::interrupt::unregister(&temp);
        return Err(e);
    }
    finish_temp(file, path, fail, before_rename, makes_useful)
}

/// A new temporary file in `path`'s folder, registered for removal on a signal.
fn create_temp_beside(path: &Path) -> std::io::Result<tempfile::NamedTempFile> {
    let mut builder = tempfile::Builder::new();
    builder
        .prefix(crate::interrupt::TEMP_PREFIX)
        .suffix(crate::interrupt::TEMP_SUFFIX);
    // Temporary files are private (0600); the output is an ordinary file (0666 less umask).
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        builder.permissions(std::fs::Permissions::from_mode(0o666));
    }
    crate::interrupt::create_temp(&builder, folder_of(path))
}

/// Syncs the written temporary `file`, calls `fail(before_rename)`, and renames it to `path`
/// (the files `makes_useful` stop being removed on a signal once the rename is done); on
/// failure the temporary file is removed.
fn finish_temp(
    file: tempfile::NamedTempFile,
    path: &Path,
    fail: &mut dyn FnMut(Step) -> std::io::Result<()>,
    before_rename: Step,
    makes_useful: &[PathBuf],
) -> std::io::Result<()> {
    let result = file.as_file().sync_all().and_then(|()| fail(before_rename));
    match result {
        Ok(()) => crate::interrupt::persist(file, path, makes_useful),
        Err(e) => {
            let temp = file.path().to_path_buf();
            drop(file);
            crate::interrupt::unregister(&temp);
            Err(e)
        }
    }
}

/// The file name of a `.g4tf`'s (or `.gltf`'s) external buffer: the stem, then a hash of what
/// the file will hold, so a new buffer never replaces the one the old text file still points
/// to (and an unchanged buffer keeps its name). The file name is its URI too, so the stem
/// keeps only what a URI may hold as it is (letters, digits, `-`, `.`, `_`, `~`); anything else
/// becomes `_` (`50%.gltf` gets `50_.<hash>.bin`, never the escape `50%.`).
pub fn buffer_name(stem: &str, blob: &[u8], encoding: &str) -> String {
    let mut hasher = xxhash_rust::xxh3::Xxh3::new();
    hasher.update(blob);
    hasher.update(encoding.as_bytes());
    format!("{}.{:016x}.bin", uri_safe(stem), hasher.digest())
}

/// `stem` with every character a URI would need escaped replaced by `_`.
fn uri_safe(stem: &str) -> String {
    stem.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || "-._~".contains(c) {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// True for a name [`buffer_name`] makes for `stem` (or the `STEM.bin` of earlier versions,
/// whose stems were not made URI-safe).
fn is_our_buffer_name(name: &str, stem: &str) -> bool {
    [uri_safe(stem), stem.to_owned()].iter().any(|stem| {
        let Some(rest) = name.strip_prefix(stem.as_str()) else {
            return false;
        };
        rest == ".bin"
            || rest
                .strip_prefix('.')
                .and_then(|r| r.strip_suffix(".bin"))
                .is_some_and(|hash| hash.len() == 16 && hash.bytes().all(|b| b.is_ascii_hexdigit()))
    })
}

/// The external buffer files a `.g4tf` names (plain file names beside it), if it is one.
fn buffers_named_by(text_path: &Path) -> Vec<String> {
    // An old file we cannot read or parse names nothing we would remove.
    let Ok(bytes) = location::read_bounded(text_path, 64 << 20) else {
        return Vec::new();
    };
    let Ok(json) = serde_json::from_slice::<serde_json::Value>(&bytes) else {
        return Vec::new();
    };
    json.get("buffers")
        .and_then(|b| b.as_array())
        .into_iter()
        .flatten()
        .filter_map(|b| b.get("uri")?.as_str())
        .filter(|uri| !uri.contains(['/', '\\', ':']) && !uri.starts_with('.'))
        .map(str::to_owned)
        .collect()
}

/// True when a `.g4tf` or `.gltf` in `folder` other than `text_path` mentions `name` (a copy of
/// the old file still uses its buffer): such a buffer is kept.
fn named_by_another(folder: &Path, text_path: &Path, name: &str) -> bool {
    let Ok(entries) = std::fs::read_dir(folder) else {
        return true;
    };
    let finder = memchr::memmem::Finder::new(name.as_bytes());
    entries.flatten().any(|e| {
        let path = e.path();
        path.extension()
            .is_some_and(|x| x.eq_ignore_ascii_case("g4tf") || x.eq_ignore_ascii_case("gltf"))
            && path.file_name() != text_path.file_name()
            // A file we cannot read might name it: keep the buffer.
            && location::read_bounded(&path, 64 << 20)
                .map_or(true, |bytes| finder.find(&bytes).is_some())
    })
}

/// Replaces the `.g4tf` at `text_path` and its external `buffers` (file names beside it, as
/// [`buffer_name`] makes them, with their bytes) so that a failure at any step leaves the old
/// pair whole: the buffers are written under their new names first (the old `.g4tf` does not
/// name them), then the `.g4tf` is renamed over the old one, and only then are the old
/// buffers it named removed. Returns the buffer files written.
pub fn replace_text_with_buffers(
    text_path: &Path,
    text: &[u8],
    buffers: &[(String, Vec<u8>)],
    fail: &mut dyn FnMut(Step) -> std::io::Result<()>,
) -> std::io::Result<Vec<PathBuf>> {
    let folder = folder_of(text_path);
    let stem = text_path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let old_buffers = buffers_named_by(text_path);
    let mut written = Vec::new();
    // Buffers this call created (not ones that already held the same bytes under that name):
    // removed again if the `.g4tf` cannot be put in place.
    let mut created = Vec::new();
    let undo = |created: &[PathBuf]| {
        for path in created {
            let _ = std::fs::remove_file(path);
            crate::interrupt::unregister(path);
        }
    };
    for (name, data) in buffers {
        let path = folder.join(name);
        let existed = path.exists();
        if let Err(e) =
            write_atomic_with(&path, &[data], fail, Step::BufferWritten, &[]).and_then(|()| {
                // Of no use until the `.g4tf` names it: a signal before then removes it.
                if !existed {
                    crate::interrupt::register(&path);
                }
                fail(Step::BufferRenamed)
            })
        {
            if !existed && path.exists() {
                created.push(path);
            }
            undo(&created);
            return Err(e);
        }
        if !existed {
            created.push(path.clone());
        }
        written.push(path);
    }
    if let Err(e) = write_atomic_with(text_path, &[text], fail, Step::TextWritten, &created) {
        undo(&created);
        return Err(e);
    }
    // The new pair is in place: an error from here on loses nothing (at worst an old buffer
    // stays behind).
    if fail(Step::TextRenamed).is_ok() {
        for name in old_buffers {
            if is_our_buffer_name(&name, &stem)
                && !buffers.iter().any(|(n, _)| *n == name)
                && !named_by_another(folder, text_path, &name)
            {
                let _ = std::fs::remove_file(folder.join(name));
            }
        }
    }
    Ok(written)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A pending file is invisible until committed; dropped uncommitted it leaves the old
    /// file as it was and no temporary file.
    #[test]
    fn pending_files_appear_only_when_committed() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out.g4b");
        std::fs::write(&path, b"old").unwrap();
        let names = || -> Vec<String> {
            let mut names: Vec<String> = std::fs::read_dir(dir.path())
                .unwrap()
                .flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect();
            names.sort();
            names
        };
        let dropped = PendingFile::write(&path, &[b"new ", b"bytes"]).unwrap();
        assert_eq!(names().len(), 2, "the temporary file exists while pending");
        assert_eq!(std::fs::read(&path).unwrap(), b"old");
        drop(dropped);
        assert_eq!(names(), ["out.g4b"]);
        assert_eq!(std::fs::read(&path).unwrap(), b"old");
        let pending = PendingFile::write(&path, &[b"new ", b"bytes"]).unwrap();
        assert_eq!(pending.path(), path);
        pending.commit().unwrap();
        assert_eq!(names(), ["out.g4b"]);
        assert_eq!(std::fs::read(&path).unwrap(), b"new bytes");
        // A destination that cannot be replaced: the commit fails, the temporary file goes.
        let folder = dir.path().join("folder.g4b");
        std::fs::create_dir(&folder).unwrap();
        let pending = PendingFile::write(&folder, &[b"x"]).unwrap();
        assert!(pending.commit().is_err());
        assert_eq!(names(), ["folder.g4b", "out.g4b"]);
    }

    /// Siblings (a `.vrm`'s `.vrma` clips) appear with the file when it is committed, and
    /// go with it when it is dropped uncommitted.
    #[test]
    fn siblings_appear_with_the_file_or_not_at_all() {
        let dir = tempfile::tempdir().unwrap();
        let main = dir.path().join("a.vrm");
        let clip = dir.path().join("a.walk.vrma");
        std::fs::write(&clip, b"old clip").unwrap();
        let set = || {
            let sibling = PendingFile::write(&clip, &[b"new clip"]).unwrap();
            PendingFile::write(&main, &[b"avatar"])
                .unwrap()
                .with_siblings(vec![sibling])
        };
        drop(set());
        assert!(!main.exists());
        assert_eq!(std::fs::read(&clip).unwrap(), b"old clip");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
        set().commit().unwrap();
        assert_eq!(std::fs::read(&main).unwrap(), b"avatar");
        assert_eq!(std::fs::read(&clip).unwrap(), b"new clip");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 2);
    }

    #[test]
    fn writes_replace_and_leave_no_temporary_files() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out.g4b");
        write_atomic(&path, b"one").unwrap();
        write_atomic(&path, b"two").unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"two");
        let names: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .flatten()
            .map(|e| e.file_name())
            .collect();
        assert_eq!(names, [std::ffi::OsString::from("out.g4b")]);
        assert!(write_atomic(&dir.path().join("missing/out.g4b"), b"x").is_err());
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(&path).unwrap().permissions().mode();
            assert_ne!(
                mode & 0o044,
                0,
                "outputs are readable by others (mode {mode:o}), not private"
            );
        }
    }

    #[test]
    fn buffer_names_are_ours_and_hash_what_they_hold() {
        let a = buffer_name("out", b"abc", "None");
        assert_eq!(a, buffer_name("out", b"abc", "None"));
        assert_ne!(a, buffer_name("out", b"abd", "None"));
        assert_ne!(a, buffer_name("out", b"abc", "Zstd(3)"));
        assert!(is_our_buffer_name(&a, "out"));
        // A stem a URI would escape is made safe, and still recognised.
        let odd = buffer_name("50% my char", b"abc", "None");
        assert!(odd.starts_with("50__my_char."), "{odd}");
        assert!(is_our_buffer_name(&odd, "50% my char"));
        assert!(is_our_buffer_name("out.bin", "out"));
        for other in ["other.bin", "out.textures.bin", "out.0123.bin", "outer.bin"] {
            assert!(!is_our_buffer_name(other, "out"), "{other}");
        }
    }
}
