//! What each feature of the converter needs from an MPFB data folder: one list
//! (`requirements.txt`), parsed once.

use serde::Serialize;
use std::collections::BTreeMap;
use std::sync::OnceLock;

/// Something the converter can do only with certain files of an MPFB data folder.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Feature {
    /// `3dobjs/base.obj`: every conversion that does not bring its own mesh.
    BaseMesh,
    /// `mesh_metadata/basemesh_vertex_groups.json`: joint cubes of meshes without face groups.
    VertexGroups,
    /// `rigs/`: rigs by name (`--rig-name`, `demo`, manifests).
    Rigs,
    /// `targets/` (macro and detail targets): bodies from `.mhm` files, presets, phenotypes.
    Bodies,
    /// `targets/faceunits/`: the 52 ARKit face units.
    FaceUnits,
    /// `targets/visemes/`: the 15 visemes.
    Visemes,
    /// `poses/*_fk/t-pose.json`: MPFB's T-poses.
    TPoses,
}

impl Feature {
    /// Every feature, in the order `data status` lists them.
    pub const ALL: [Feature; 7] = [
        Feature::BaseMesh,
        Feature::VertexGroups,
        Feature::Rigs,
        Feature::Bodies,
        Feature::FaceUnits,
        Feature::Visemes,
        Feature::TPoses,
    ];

    /// The feature's key in `requirements.txt` and in JSON (`face-units`).
    pub fn key(self) -> &'static str {
        match self {
            Feature::BaseMesh => "base-mesh",
            Feature::VertexGroups => "vertex-groups",
            Feature::Rigs => "rigs",
            Feature::Bodies => "bodies",
            Feature::FaceUnits => "face-units",
            Feature::Visemes => "visemes",
            Feature::TPoses => "t-poses",
        }
    }

    /// What the feature is, for people (`face units`).
    pub fn title(self) -> &'static str {
        match self {
            Feature::BaseMesh => "base mesh",
            Feature::VertexGroups => "vertex groups",
            Feature::Rigs => "rigs",
            Feature::Bodies => "bodies",
            Feature::FaceUnits => "face units",
            Feature::Visemes => "visemes",
            Feature::TPoses => "T-poses",
        }
    }

    /// What needs it, for people.
    pub fn used_by(self) -> &'static str {
        match self {
            Feature::BaseMesh => "every conversion without --mesh",
            Feature::VertexGroups => "meshes without joint face groups",
            Feature::Rigs => "--rig-name, demo, manifests' rig_name",
            Feature::Bodies => "--human, --phenotype, --target, populations",
            Feature::FaceUnits => "--face-units",
            Feature::Visemes => "--visemes",
            Feature::TPoses => "--rest-pose t-pose",
        }
    }

    /// Every file the feature needs, relative to the data folder (`/` separators).
    pub fn required_files(self) -> &'static [String] {
        table().get(&self).map_or(&[], Vec::as_slice)
    }

    /// The files checked before the feature is used: all of them for the small lists, and for
    /// bodies (1260 targets) `macro.json` and one target of each macro folder; `data status`
    /// and `data fetch` check every file. A missing detail target is still reported by the
    /// reader, with its name, when a body needs it.
    pub fn checked_before_use(self) -> Vec<&'static str> {
        let all = self.required_files();
        match self {
            Feature::Bodies => {
                let mut seen_folders: Vec<&str> = Vec::new();
                let mut out = Vec::new();
                for path in all.iter().map(String::as_str) {
                    if path == "targets/macrodetails/macro.json" {
                        out.push(path);
                        continue;
                    }
                    let Some(folder) = path.rsplit_once('/').map(|(f, _)| f) else {
                        continue;
                    };
                    if folder.starts_with("targets/macrodetails") && !seen_folders.contains(&folder)
                    {
                        seen_folders.push(folder);
                        out.push(path);
                    }
                }
                out
            }
            _ => all.iter().map(String::as_str).collect(),
        }
    }

    fn from_key(key: &str) -> Option<Feature> {
        Feature::ALL.into_iter().find(|f| f.key() == key)
    }
}

impl std::fmt::Display for Feature {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.title())
    }
}

/// The parsed `requirements.txt`.
fn table() -> &'static BTreeMap<Feature, Vec<String>> {
    static TABLE: OnceLock<BTreeMap<Feature, Vec<String>>> = OnceLock::new();
    TABLE.get_or_init(|| parse(include_str!("requirements.txt")))
}

/// `[feature]` headings and one path per line; `#` lines are comments. The file is ours and
/// checked by a test, so an unknown heading is a bug caught there, not here.
fn parse(text: &str) -> BTreeMap<Feature, Vec<String>> {
    let mut table: BTreeMap<Feature, Vec<String>> = BTreeMap::new();
    let mut current = None;
    for line in text.lines().map(str::trim) {
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        if let Some(key) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
            current = Feature::from_key(key);
        } else if let Some(feature) = current {
            table.entry(feature).or_default().push(line.to_owned());
        }
    }
    table
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_feature_has_its_files_and_every_heading_is_known() {
        let text = include_str!("requirements.txt");
        for line in text.lines().filter(|l| l.starts_with('[')) {
            let key = line.trim_matches(['[', ']']);
            assert!(Feature::from_key(key).is_some(), "unknown heading {line}");
        }
        let count = |f: Feature| f.required_files().len();
        assert_eq!(count(Feature::BaseMesh), 1);
        assert_eq!(count(Feature::FaceUnits), 52);
        assert_eq!(count(Feature::Visemes), 15);
        assert_eq!(count(Feature::TPoses), 4);
        assert!(count(Feature::Bodies) > 1000);
        for feature in Feature::ALL {
            for path in feature.required_files() {
                assert!(
                    !path.starts_with('/') && !path.contains("..") && !path.contains('\\'),
                    "{path}"
                );
            }
        }
        // Bodies are checked by macro.json and one file of each macro folder before use.
        let quick = Feature::Bodies.checked_before_use();
        assert!(quick.contains(&"targets/macrodetails/macro.json"));
        assert_eq!(quick.len(), 4, "{quick:?}");
        assert_eq!(Feature::FaceUnits.checked_before_use().len(), 52);
    }
}
