//! Why data cannot be found or used. Each error names the folder, where it came from and what
//! it lacks; the binary adds which command fixes it.

use crate::features::Feature;
use crate::sources::{AssetsSource, Source};
use std::path::PathBuf;

/// Data that cannot be found or used.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum DataError {
    /// No MPFB data folder anywhere it is looked for.
    #[error("no MPFB data folder found (looked in {})", list(tried))]
    NotFound {
        /// Every folder looked at, in order.
        tried: Vec<PathBuf>,
    },
    /// A folder the user named (flag or environment) is not an MPFB data folder.
    #[error("{} ({origin}) is not an MPFB data folder: {reason}", folder.display())]
    NotData {
        /// The folder.
        folder: PathBuf,
        /// Who named it.
        origin: Source,
        /// What is wrong: it does not exist, or what it lacks.
        reason: String,
    },
    /// The cache exists but is not complete (an interrupted or older fetch, or files removed).
    #[error(
        "the MPFB data cache {} is incomplete: {} missing",
        folder.display(),
        missing.join(", ")
    )]
    PartialCache {
        /// The cache folder.
        folder: PathBuf,
        /// What is missing: each incomplete feature with its count, and the fetch marker.
        missing: Vec<String>,
    },
    /// A data folder lacks what a feature needs.
    #[error(
        "MPFB data in {} ({origin}) lacks the {feature} that {} need: {} missing",
        folder.display(),
        feature.used_by(),
        summarize_missing(missing)
    )]
    Lacks {
        /// The folder.
        folder: PathBuf,
        /// Where it came from.
        origin: Source,
        /// The feature.
        feature: Feature,
        /// What is missing, relative to the folder.
        missing: Vec<String>,
    },
    /// A rig name that is not in the data folder.
    #[error(
        "no rig named `{}` in {} ({}rigs there: {})",
        location::text::excerpt(name, 80),
        folder.display(),
        did_you_mean(name, known),
        if known.is_empty() { "none".to_owned() } else { known.join(", ") }
    )]
    NoRig {
        /// The name asked for.
        name: String,
        /// The data folder.
        folder: PathBuf,
        /// The rig names it has.
        known: Vec<String>,
    },
    /// A folder the user named is not a MakeHuman assets folder.
    #[error("{} ({origin}) is not a MakeHuman assets folder: {reason}", folder.display())]
    NotAssets {
        /// The folder.
        folder: PathBuf,
        /// Who named it.
        origin: AssetsSource,
        /// What is wrong.
        reason: String,
    },
    /// The assets cache exists but was not completed by `data fetch --makehuman-assets`.
    #[error(
        "the MakeHuman assets cache {} is incomplete (no {} marker)",
        folder.display(),
        crate::sources::MARKER
    )]
    PartialAssetsCache {
        /// The cache folder.
        folder: PathBuf,
    },
}

/// `did you mean `default`?; ` for the rig names near `name`, or nothing.
fn did_you_mean(name: &str, known: &[String]) -> String {
    let near = location::near::near_names(name, known.iter().map(String::as_str));
    if near.is_empty() {
        String::new()
    } else {
        format!("did you mean {}?; ", near.join(", "))
    }
}

fn list(paths: &[PathBuf]) -> String {
    if paths.is_empty() {
        return "no place: no $MPFB_DATA, no Blender, no cache folder".to_owned();
    }
    paths
        .iter()
        .map(|p| p.display().to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

/// Missing files in a few words: one folder per entry with its count (`targets/faceunits/
/// (52 files)`), single files by name, at most six entries and how many more.
pub fn summarize_missing(missing: &[String]) -> String {
    const SHOWN: usize = 6;
    let mut groups: Vec<(&str, Vec<&str>)> = Vec::new();
    for path in missing {
        let folder = path.rsplit_once('/').map_or("", |(f, _)| f);
        match groups.iter_mut().find(|(f, _)| *f == folder) {
            Some((_, files)) => files.push(path),
            None => groups.push((folder, vec![path])),
        }
    }
    let mut parts: Vec<String> = groups
        .iter()
        .take(SHOWN)
        .map(|(folder, files)| match files.as_slice() {
            [one] => (*one).to_owned(),
            many => format!("{folder}/ ({} files)", many.len()),
        })
        .collect();
    if groups.len() > SHOWN {
        parts.push(format!("and {} more folders", groups.len() - SHOWN));
    }
    if parts.is_empty() {
        "nothing".to_owned()
    } else {
        parts.join(", ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn missing_files_are_summarized_by_folder() {
        let one = vec!["3dobjs/base.obj".to_owned()];
        assert_eq!(summarize_missing(&one), "3dobjs/base.obj");
        let many: Vec<String> = (0..52)
            .map(|i| format!("targets/faceunits/u{i}.target"))
            .chain(["poses/default_fk/t-pose.json".to_owned()])
            .collect();
        assert_eq!(
            summarize_missing(&many),
            "targets/faceunits/ (52 files), poses/default_fk/t-pose.json"
        );
        let folders: Vec<String> = (0..9).map(|i| format!("f{i}/x")).collect();
        assert!(summarize_missing(&folders).ends_with("and 3 more folders"));
    }
}
