//! Setting a machine up: what `data status` says about the MPFB data folder and the MakeHuman
//! assets folder in use (as text and as JSON), and, with the `cli` feature, installing the
//! data when nothing usable is found (`data fetch`, and `demo` on a fresh machine).

use mpfb_data::{AssetsFolder, AssetsStatus, DataStatus, FeatureStatus, Places};
#[cfg(feature = "cli")]
use mpfb_data::{DataError, MpfbData};
use serde::Serialize;
use std::fmt::Write;
use std::path::Path;

/// Everything `data status` reports.
#[derive(Debug, Serialize)]
pub struct StatusReport {
    /// The MPFB data folder in use and what it serves.
    pub mpfb_data: Option<DataStatus>,
    /// Why there is none (not found, or a named folder that is not one).
    pub mpfb_data_error: Option<String>,
    /// The MakeHuman assets folder in use and what it holds.
    pub assets: Option<AssetsStatus>,
    /// Why there is none.
    pub assets_error: Option<String>,
}

impl StatusReport {
    /// Looks for both folders as conversions do (`explicit` ones first).
    pub fn gather(places: &Places, mpfb_data: Option<&Path>, assets: Option<&Path>) -> Self {
        let (data, data_error) = match mpfb_data::locate(places, mpfb_data, None) {
            Ok(found) => (Some(found.status()), None),
            Err(e) => (None, Some(e.to_string())),
        };
        let (assets, assets_error) = match mpfb_data::locate_assets(places, assets) {
            Ok(found) => (found.as_ref().map(AssetsFolder::status), None),
            Err(e) => (None, Some(e.to_string())),
        };
        Self {
            mpfb_data: data,
            mpfb_data_error: data_error,
            assets,
            assets_error,
        }
    }

    /// The report as text, a line per feature.
    pub fn text(&self) -> String {
        let mut out = String::new();
        match (&self.mpfb_data, &self.mpfb_data_error) {
            (Some(status), _) => out.push_str(&data_text(status)),
            (None, error) => {
                let _ = writeln!(
                    out,
                    "MPFB data: none usable: {}",
                    error.as_deref().unwrap_or("not found")
                );
                let _ = writeln!(
                    out,
                    "  `mpfb2g4mf data fetch` installs it (or pass --mpfb-data DIR, or set MPFB_DATA)"
                );
            }
        }
        match (&self.assets, &self.assets_error) {
            (Some(status), _) => out.push_str(&assets_text(status)),
            (None, Some(error)) => {
                let _ = writeln!(out, "MakeHuman assets: none usable: {error}");
            }
            (None, None) => {
                let _ = writeln!(
                    out,
                    "MakeHuman assets: none found (clothes, hair, eyebrows, eyes, proxies; `mpfb2g4mf data fetch --makehuman-assets` installs them, or pass --assets DIR, or set MAKEHUMAN_ASSETS)"
                );
            }
        }
        out
    }
}

fn state(f: &FeatureStatus) -> &'static str {
    match (f.serves, f.complete()) {
        (true, true) => "ready",
        (true, false) => "usable",
        (false, _) => "missing",
    }
}

/// What an MPFB data folder serves, as text: a line per feature, then its rigs and T-poses.
pub fn data_text(status: &DataStatus) -> String {
    let mut text = String::new();
    let out = &mut text;
    let fetched = status
        .fetched
        .as_ref()
        .map(|m| format!(", fetched from {}", m.from))
        .unwrap_or_default();
    let _ = writeln!(
        out,
        "MPFB data: {} ({}{fetched})",
        status.folder.display(),
        status.source
    );
    if let Some(user) = &status.user_data {
        let _ = writeln!(
            out,
            "  (face units and visemes also looked for in MPFB's user data {})",
            user.display()
        );
    }
    let _ = writeln!(
        out,
        "  {:<14} {:<8} {:<13} used by",
        "feature", "state", "files"
    );
    for f in &status.features {
        let _ = writeln!(
            out,
            "  {:<14} {:<8} {:<13} {}",
            f.feature.title(),
            state(f),
            format!("{} of {}", f.present, f.required),
            f.feature.used_by()
        );
        if !f.complete() {
            let _ = writeln!(
                out,
                "  {:<14} missing  {}",
                "",
                mpfb_data::summarize_missing(&f.missing)
            );
        }
    }
    let names: Vec<&str> = status.rigs.iter().map(|r| r.name.as_str()).collect();
    let weighted = status.rigs.iter().filter(|r| r.weights).count();
    let _ = writeln!(
        out,
        "  rigs: {} ({weighted} with weights)",
        if names.is_empty() {
            "none".to_owned()
        } else {
            names.join(", ")
        }
    );
    let _ = writeln!(
        out,
        "  T-poses for: {}",
        if status.t_poses.is_empty() {
            "none".to_owned()
        } else {
            status.t_poses.join(", ")
        }
    );
    text
}

/// What an assets folder holds, as text.
pub fn assets_text(status: &AssetsStatus) -> String {
    let mut text = String::new();
    let out = &mut text;
    let fetched = status
        .fetched
        .as_ref()
        .map(|m| format!(", fetched from {}", m.from))
        .unwrap_or_default();
    let _ = writeln!(
        out,
        "MakeHuman assets: {} ({}{fetched})",
        status.folder.display(),
        status.source
    );
    let _ = writeln!(
        out,
        "  {:<15} {:<8} {:<13} used by",
        "feature", "state", "present"
    );
    for f in &status.features {
        let _ = writeln!(
            out,
            "  {:<15} {:<8} {:<13} {}",
            f.title,
            f.state(),
            format!("{} of {}", f.present, f.required),
            f.used_by
        );
        if f.present != f.required && f.feature != "textures" {
            let _ = writeln!(
                out,
                "  {:<15} missing  {}",
                "",
                mpfb_data::summarize_missing(&f.missing)
            );
        }
    }
    let kinds: Vec<String> = status
        .kinds
        .iter()
        .map(|k| format!("{} {}", k.kind, k.assets))
        .collect();
    let _ = writeln!(out, "  assets: {}", kinds.join(", "));
    let _ = writeln!(
        out,
        "  images: {} of the {} texture files its {} materials name are present",
        status.images_present, status.images_named, status.materials
    );
    text
}

/// What a finished `data fetch` says: what happened, what the folder now serves (as `data
/// status` says it), and how conversions will find it.
#[cfg(feature = "cli")]
pub struct FetchReport {
    /// One line each: installed or complete already, images left out, files kept, notes.
    pub lines: Vec<String>,
    /// The fetched folder's status text (an error when the folder cannot be read back, after
    /// the lines are said).
    pub status: Result<String, DataError>,
    /// How to use the folder, when conversions would not find it first.
    pub hint: Option<String>,
}

#[cfg(feature = "cli")]
impl FetchReport {
    /// The report of `fetched` (MakeHuman's assets when `assets`, else MPFB's data; `into_cache`
    /// when it went into the cache rather than a folder the user named).
    pub fn of(
        fetched: &mpfb_data::fetch::Fetched,
        places: &Places,
        assets: bool,
        into_cache: bool,
    ) -> Self {
        let folder = fetched.folder.display();
        let mut lines = vec![if fetched.already_complete {
            format!("{folder} is complete already (--force fetches it again)")
        } else {
            format!("installed {} files into {folder}", fetched.files)
        }];
        if fetched.images_fetched > 0 {
            lines.push(format!(
                "{} images the archive held as Git LFS pointers were fetched and checked against their pointers",
                fetched.images_fetched
            ));
        }
        if fetched.lfs_pointers > 0 {
            lines.push(format!(
                "{} images were Git LFS pointers in the archive and are left out (materials fall back to their colours)",
                fetched.lfs_pointers
            ));
        }
        if fetched.makehuman_files > 0 {
            lines.push(format!(
                "{} files the source lacked (default eyes, pose units, default skeleton, T-pose) were fetched from MakeHuman's repository and checked",
                fetched.makehuman_files
            ));
        }
        if fetched.kept_files > 0 {
            lines.push(format!(
                "kept {} files you had added to {folder}",
                fetched.kept_files
            ));
        }
        lines.extend(fetched.notes.iter().cloned());
        let status = if assets {
            AssetsFolder::fetched(&fetched.folder, into_cache).map(|f| assets_text(&f.status()))
        } else if into_cache {
            MpfbData::cached(&fetched.folder).map(|d| data_text(&d.status()))
        } else {
            MpfbData::fetched(&fetched.folder).map(|d| data_text(&d.status()))
        };
        FetchReport {
            lines,
            status,
            hint: use_hint(&fetched.folder, places, assets),
        }
    }
}

/// How to use `folder` when conversions would find another folder first, or none.
#[cfg(feature = "cli")]
fn use_hint(folder: &Path, places: &Places, assets: bool) -> Option<String> {
    let (flag, variable) = if assets {
        ("--assets", mpfb_data::ASSETS_ENV)
    } else {
        ("--mpfb-data", mpfb_data::MPFB_DATA_ENV)
    };
    let in_use = if assets {
        mpfb_data::locate_assets(places, None)
            .ok()
            .flatten()
            .map(|a| (a.root().to_path_buf(), a.source().to_string()))
    } else {
        mpfb_data::locate(places, None, None)
            .ok()
            .map(|d| (d.root().to_path_buf(), d.source().to_string()))
    };
    let shown = folder.display();
    match in_use {
        Some((root, _)) if root == folder => None,
        Some((root, source)) => Some(format!(
            "note: conversions find {} ({source}) first; use this folder with {flag} {shown} or {variable}={shown}",
            root.display()
        )),
        None => Some(format!("use it with {flag} {shown} or {variable}={shown}")),
    }
}

/// The data folder for `demo`: as conversions find it; when there is none, or the cache is
/// incomplete, the cache is filled first (`say` hears why and how).
#[cfg(feature = "cli")]
pub fn data_for_demo(
    places: &Places,
    explicit: Option<&Path>,
    say: &mut dyn FnMut(&str),
) -> Result<MpfbData, DemoError> {
    let partial = match mpfb_data::locate(places, explicit, None) {
        Ok(found) => return Ok(found),
        Err(e @ DataError::PartialCache { .. }) if explicit.is_none() => Some(e.to_string()),
        Err(DataError::NotFound { .. }) if explicit.is_none() => None,
        Err(e) => return Err(DemoError::Data(e)),
    };
    say(&format!(
        "{}: installing MPFB's data into {} first, as `mpfb2g4mf data fetch` does",
        partial.as_deref().unwrap_or("no MPFB data found"),
        places
            .mpfb_cache()
            .map_or_else(|| "the cache".to_owned(), |c| c.display().to_string())
    ));
    let fetched =
        mpfb_data::fetch::fetch_mpfb_data(places, &mpfb_data::fetch::FetchRequest::default(), say)
            .map_err(|source| DemoError::Fetch {
                partial,
                source: Box::new(source),
            })?;
    MpfbData::cached(&fetched.folder).map_err(DemoError::Data)
}

/// Why `demo` has no data.
#[cfg(feature = "cli")]
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum DemoError {
    /// The data folder named is not one, or the cache is still incomplete.
    #[error(transparent)]
    Data(DataError),
    /// None was usable and fetching failed (offline, say).
    #[error(
        "{}, and fetching it failed: {source}",
        partial.as_deref().unwrap_or("no MPFB data found")
    )]
    Fetch {
        /// What was wrong with the cache, when it was there but incomplete.
        partial: Option<String>,
        /// Why fetching failed.
        source: Box<mpfb_data::fetch::FetchError>,
    },
}
