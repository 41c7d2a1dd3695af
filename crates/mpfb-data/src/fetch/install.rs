//! Installing a filled staging folder: whether the destination may be replaced, the source and
//! the destination kept apart, the files a user added carried over, the marker written last,
//! the swap (two renames), and recovery from a fetch interrupted between them.

use super::staging::{Budget, files_of, write_synced};
use super::{FetchError, MAX_ENTRIES, MAX_TOTAL, Origin, io};
use crate::folder::Marker;
use crate::sources::MARKER;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Staging folders older than this are taken as left behind by an interrupted fetch.
const STALE: Duration = Duration::from_secs(6 * 3600);

/// A destination may be replaced when it does not exist, is empty, holds our marker for the
/// same kind of data, or is the cache (ours even when an interrupted or older fetch left it
/// incomplete). A folder marked for the other kind is refused, cache or not.
pub(super) fn ours_or_refuse(
    target: &Path,
    is_cache: bool,
    kind: &'static str,
) -> Result<(), FetchError> {
    if let Some(marker) = Marker::read(target).filter(|m| m.kind != kind) {
        return Err(FetchError::WrongKind {
            folder: target.to_path_buf(),
            found: marker.kind,
            wanted: kind,
        });
    }
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

/// Refuses a source folder that holds the destination or lies inside it: copying one into
/// the other would read what it writes.
fn refuse_overlap(origin: &Origin, target: &Path) -> Result<(), FetchError> {
    let Origin::Path(from) = origin else {
        return Ok(());
    };
    if !from.is_dir() {
        return Ok(());
    }
    let canonical = |p: &Path| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
    let source = canonical(from);
    // The destination may not exist yet: its nearest existing ancestor decides.
    let absolute = std::path::absolute(target).unwrap_or_else(|_| target.to_path_buf());
    let existing = absolute
        .ancestors()
        .find(|a| a.exists())
        .map(canonical)
        .unwrap_or_default();
    let rest = absolute
        .strip_prefix(
            absolute
                .ancestors()
                .find(|a| a.exists())
                .unwrap_or(Path::new("")),
        )
        .unwrap_or(Path::new(""));
    let destination = existing.join(rest);
    if destination.starts_with(&source) || source.starts_with(&destination) {
        return Err(FetchError::Overlap {
            from: from.clone(),
            into: target.to_path_buf(),
        });
    }
    Ok(())
}

/// Fills a staging folder beside `target` with `fill`, carries over the files a user added to
/// the old `target`, writes the marker `fill` returns (last), and renames the staging folder
/// into place; on any failure the staging folder is removed and `target` is as it was.
/// Returns the marker and how many files were carried over.
pub(super) fn install(
    target: &Path,
    origin: &Origin,
    fill: impl FnOnce(&Path) -> Result<Marker, FetchError>,
) -> Result<(Marker, usize), FetchError> {
    refuse_overlap(origin, target)?;
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
    let kept = carry_over(target, staging.path())?;
    let text = serde_json::to_vec_pretty(&marker).unwrap_or_default();
    write_synced(&staging.path().join(MARKER), MARKER, &mut &text[..])?;
    let staged = staging.keep();
    swap(&staged, target, &parent, &name).inspect_err(|_| {
        let _ = std::fs::remove_dir_all(&staged);
    })?;
    Ok((marker, kept))
}

/// Copies into `staging` every file of the old `target` the fetch did not write (files a user
/// added: their own targets, notes), so replacing the folder loses nothing of theirs.
fn carry_over(target: &Path, staging: &Path) -> Result<usize, FetchError> {
    if !target.is_dir() {
        return Ok(0);
    }
    let mut budget = Budget::new(MAX_ENTRIES, MAX_TOTAL);
    let mut kept = 0;
    let mut listing = Budget::new(MAX_ENTRIES, u64::MAX);
    for (name, path) in files_of(target, &mut listing)? {
        let into = staging.join(&name);
        if name == MARKER || into.exists() {
            continue;
        }
        let mut file = std::fs::File::open(&path).map_err(io(&path))?;
        // A user's file is kept whatever it holds (an LFS pointer too): copied as it is.
        if let Some(parent) = into.parent() {
            std::fs::create_dir_all(parent).map_err(io(parent))?;
        }
        let mut out = std::fs::File::create(&into).map_err(io(&into))?;
        let size = std::io::copy(&mut file, &mut out).map_err(io(&into))?;
        budget.bytes(size, &name)?;
        out.sync_all().map_err(io(&into))?;
        kept += 1;
    }
    Ok(kept)
}

/// Renames `staged` to `target`, moving an existing `target` aside first (as
/// `.<name>.old-<pid>`) and removing it after; if the second rename fails the old folder is
/// put back. A crash between the two renames leaves the old folder aside; the next fetch puts
/// it back first ([`recover_interrupted`]).
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

/// When `target` is missing but a folder an interrupted fetch moved aside is there, puts the
/// newest back, so a crash between a swap's two renames never leaves nothing in place.
pub(super) fn recover_interrupted(target: &Path) -> Vec<String> {
    if target.exists() {
        return Vec::new();
    }
    let (Some(parent), Some(name)) = (target.parent(), target.file_name()) else {
        return Vec::new();
    };
    let parent = if parent.as_os_str().is_empty() {
        Path::new(".")
    } else {
        parent
    };
    let prefix = format!(".{}.old-", name.to_string_lossy());
    let newest = std::fs::read_dir(parent)
        .into_iter()
        .flatten()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with(&prefix))
        .filter_map(|e| Some((e.metadata().ok()?.modified().ok()?, e.path())))
        .max();
    match newest {
        Some((_, old)) if std::fs::rename(&old, target).is_ok() => vec![format!(
            "put back {}, which an interrupted fetch had moved aside",
            target.display()
        )],
        _ => Vec::new(),
    }
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
    use crate::fetch::{ASSETS_KIND, MPFB_KIND};

    fn tmp() -> tempfile::TempDir {
        tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"))
    }

    fn write(path: &Path, text: &str) {
        std::fs::create_dir_all(path.parent().unwrap_or(Path::new(".")))
            .unwrap_or_else(|e| panic!("{e}"));
        std::fs::write(path, text).unwrap_or_else(|e| panic!("{e}"));
    }

    fn marker(kind: &str) -> Marker {
        Marker {
            kind: kind.into(),
            from: "f".into(),
            sha256: None,
            files: 1,
            tool: "t".into(),
        }
    }

    #[test]
    fn a_users_folder_or_the_other_kind_is_never_replaced() {
        let tmp = tmp();
        let mine = tmp.path().join("mine");
        std::fs::create_dir_all(&mine).unwrap_or_else(|e| panic!("{e}"));
        assert!(ours_or_refuse(&mine, false, MPFB_KIND).is_ok(), "empty");
        write(&mine.join("notes.txt"), "keep me");
        assert!(matches!(
            ours_or_refuse(&mine, false, MPFB_KIND),
            Err(FetchError::NotOurs { .. })
        ));
        assert!(
            ours_or_refuse(&mine, true, MPFB_KIND).is_ok(),
            "the cache is ours"
        );
        assert!(ours_or_refuse(&tmp.path().join("new"), false, MPFB_KIND).is_ok());
        // A folder fetched for assets is not replaced by MPFB data, cache or not.
        let assets = tmp.path().join("assets");
        write(
            &assets.join(MARKER),
            &serde_json::to_string(&marker(ASSETS_KIND)).unwrap_or_default(),
        );
        for is_cache in [false, true] {
            let err = ours_or_refuse(&assets, is_cache, MPFB_KIND)
                .err()
                .map(|e| e.to_string());
            assert!(
                err.as_deref().is_some_and(
                    |e| e.contains("holds makehuman-assets") && e.contains("not mpfb-data")
                ),
                "{err:?}"
            );
        }
        assert!(ours_or_refuse(&assets, false, ASSETS_KIND).is_ok());
    }

    #[test]
    fn a_failed_fill_leaves_the_destination_as_it_was_and_a_users_files_are_kept() {
        let tmp = tmp();
        let target = tmp.path().join("data");
        write(&target.join(MARKER), "old");
        write(&target.join("targets/mine/my.target"), "1 0 0 0");
        let origin = Origin::Url("http://x".into());
        let failed = install(&target, &origin, |staging| {
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
        let done = install(&target, &origin, |staging| {
            std::fs::write(staging.join("new"), "x").map_err(io(staging))?;
            Ok(marker(MPFB_KIND))
        });
        assert_eq!(
            done.ok().map(|(_, kept)| kept),
            Some(1),
            "the user's target kept"
        );
        assert!(target.join("new").is_file() && Marker::read(&target).is_some());
        assert_eq!(
            std::fs::read_to_string(target.join("targets/mine/my.target"))
                .ok()
                .as_deref(),
            Some("1 0 0 0")
        );
        assert_eq!(
            std::fs::read_dir(tmp.path()).map(Iterator::count).ok(),
            Some(1)
        );
    }

    #[test]
    fn a_folder_moved_aside_by_a_crash_is_put_back() {
        let tmp = tmp();
        let target = tmp.path().join("data");
        write(&tmp.path().join(".data.old-4242").join(MARKER), "old");
        let notes = recover_interrupted(&target);
        assert_eq!(notes.len(), 1, "{notes:?}");
        assert!(target.join(MARKER).is_file());
        assert!(
            recover_interrupted(&target).is_empty(),
            "nothing more to do"
        );
    }

    #[test]
    fn a_source_folder_that_holds_the_destination_is_refused() {
        let tmp = tmp();
        let source = tmp.path().join("assets");
        write(&source.join("clothes/a/a.mhclo"), "name a");
        let origin = Origin::Path(source.clone());
        for into in [source.join("out"), source.clone(), tmp.path().to_path_buf()] {
            assert!(
                matches!(
                    refuse_overlap(&origin, &into),
                    Err(FetchError::Overlap { .. })
                ),
                "{}",
                into.display()
            );
        }
        assert!(refuse_overlap(&origin, &tmp.path().join("elsewhere")).is_ok());
        assert!(refuse_overlap(&origin, &tmp.path().join("assets2/x")).is_ok());
    }
}
