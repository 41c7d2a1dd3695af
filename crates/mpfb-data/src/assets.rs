//! A MakeHuman assets folder (clothes, hair, eyebrows, eyelashes, eyes, teeth, tongue, body
//! proxies, skins): finding it ([`locate_assets`]) and what it holds ([`AssetsFolder::status`]).

use crate::error::DataError;
use crate::folder::Marker;
use crate::places::Places;
use crate::sources::AssetsSource;
use makehuman_assets::AssetKind;
use serde::Serialize;
use std::path::{Path, PathBuf};

/// A folder of an assets folder that holds assets: its name and the extension of its
/// description files. Every [`AssetKind`]'s folder, and `skins/`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct AssetFolder {
    /// The folder (`clothes`).
    pub folder: &'static str,
    /// The description files' extension (`mhclo`).
    pub extension: &'static str,
}

impl AssetFolder {
    /// Skin materials (`skins/*.mhmat`): no asset a character wears, but a folder of them.
    pub const SKINS: AssetFolder = AssetFolder {
        folder: "skins",
        extension: "mhmat",
    };

    /// The folder of a kind of asset.
    pub const fn of(kind: AssetKind) -> AssetFolder {
        AssetFolder {
            folder: kind.folder(),
            extension: kind.extension(),
        }
    }
}

/// The folders of assets a MakeHuman character is dressed with, as MakeHuman lays them out
/// (in the order `data status` counts them).
pub const ASSET_FOLDERS: [AssetFolder; 9] = [
    AssetFolder::of(AssetKind::Clothes),
    AssetFolder::of(AssetKind::Hair),
    AssetFolder::of(AssetKind::Eyebrows),
    AssetFolder::of(AssetKind::Eyelashes),
    AssetFolder::of(AssetKind::Eyes),
    AssetFolder::of(AssetKind::Teeth),
    AssetFolder::of(AssetKind::Tongue),
    AssetFolder::of(AssetKind::Proxy),
    AssetFolder::SKINS,
];

/// Something the converter does (or a coming feature will do) only with certain files of an
/// assets folder: fixed files, and folders that must hold at least one file of an extension.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct AssetFeature {
    /// Its key in JSON (`default-eyes`).
    pub key: &'static str,
    /// What it is, for people.
    pub title: &'static str,
    /// What needs it, for people.
    pub used_by: &'static str,
    /// Files it needs, relative to the assets folder.
    #[serde(skip)]
    pub files: &'static [&'static str],
    /// Folders that must hold at least one file with their extension (`clothes/*.mhclo`).
    #[serde(skip)]
    pub any_of: &'static [AssetFolder],
}

/// The assets folder's features, in the order `data status` lists them (the textures row,
/// which counts the images the materials name, comes after them).
pub const ASSET_FEATURES: [AssetFeature; 8] = [
    AssetFeature {
        key: "default-eyes",
        title: "default eyes",
        used_by: "every job that wears anything (HighPolyEyes, brown)",
        files: &[
            "eyes/high-poly/high-poly.mhclo",
            "eyes/high-poly/high-poly.obj",
            "eyes/materials/brown.mhmat",
            "eyes/materials/brown_eye.png",
        ],
        any_of: &[],
    },
    AssetFeature {
        key: "low-poly-eyes",
        title: "low-poly eyes",
        used_by: "--eyes Low-Poly",
        files: &["eyes/low-poly/low-poly.mhclo", "eyes/low-poly/low-poly.obj"],
        any_of: &[],
    },
    AssetFeature {
        key: "clothes-and-hair",
        title: "clothes, hair",
        used_by: "--clothes, --hair, .mhm clothes and hair lines",
        files: &[],
        any_of: &[
            AssetFolder::of(AssetKind::Clothes),
            AssetFolder::of(AssetKind::Hair),
        ],
    },
    AssetFeature {
        key: "face-assets",
        title: "face assets",
        used_by: "--eyebrows, --eyelashes, --teeth, --tongue",
        files: &[],
        any_of: &[
            AssetFolder::of(AssetKind::Eyebrows),
            AssetFolder::of(AssetKind::Eyelashes),
            AssetFolder::of(AssetKind::Teeth),
            AssetFolder::of(AssetKind::Tongue),
        ],
    },
    AssetFeature {
        key: "proxies",
        title: "body proxies",
        used_by: "--proxy",
        files: &[],
        any_of: &[AssetFolder::of(AssetKind::Proxy)],
    },
    AssetFeature {
        key: "skins",
        title: "skins",
        used_by: "--skin, .mhm skinMaterial lines",
        files: &[],
        any_of: &[AssetFolder::SKINS],
    },
    AssetFeature {
        key: "expressions",
        title: "expressions",
        used_by: "--expression, --expression-shapes, .vrm emotions, .mhm expression lines",
        files: &[
            "poseunits/face-poseunits.bvh",
            "poseunits/face-poseunits.json",
            "rigs/default.mhskel",
            "rigs/default_weights.mhw",
        ],
        any_of: &[AssetFolder {
            folder: "expressions",
            extension: "mhpose",
        }],
    },
    AssetFeature {
        key: "poses",
        title: "poses",
        used_by: "--pose, .mhm pose lines",
        files: &["rigs/default.mhskel", "poses/tpose.bvh"],
        any_of: &[AssetFolder {
            folder: "poses",
            extension: "bvh",
        }],
    },
];

/// What an assets folder has of one feature.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct AssetFeatureStatus {
    /// The feature (`textures` for the images the materials name).
    pub feature: &'static str,
    /// What it is, for people.
    pub title: &'static str,
    /// What needs it, for people.
    pub used_by: &'static str,
    /// Requirements met (a file, or a folder holding at least one asset).
    pub present: usize,
    /// Requirements in all.
    pub required: usize,
    /// What is missing, relative to the folder (`clothes/*.mhclo` for an empty kind), the
    /// first twenty.
    pub missing: Vec<String>,
}

impl AssetFeatureStatus {
    /// `ready` (everything), `partial` (something) or `missing` (nothing).
    pub fn state(&self) -> &'static str {
        if self.present == self.required {
            "ready"
        } else if self.present > 0 {
            "partial"
        } else {
            "missing"
        }
    }
}

/// Files looked at in one folder tree at most: a wrong path (a home folder, say) must not
/// walk a whole disk.
const MAX_FILES: usize = 200_000;

/// A located assets folder.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AssetsFolder {
    root: PathBuf,
    source: AssetsSource,
}

/// How many assets of one kind.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct KindCount {
    /// The kind's folder.
    pub kind: &'static str,
    /// Description files of that kind.
    pub assets: usize,
}

/// What an assets folder holds.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct AssetsStatus {
    /// The folder.
    pub folder: PathBuf,
    /// Where it came from.
    pub source: AssetsSource,
    /// What `data fetch --makehuman-assets` recorded, when it filled the folder.
    pub fetched: Option<Marker>,
    /// Assets per kind.
    pub kinds: Vec<KindCount>,
    /// Material files (`.mhmat`) anywhere in it.
    pub materials: usize,
    /// Distinct texture files the materials name.
    pub images_named: usize,
    /// Of those, present.
    pub images_present: usize,
    /// Some of the missing ones (relative to the folder), at most twenty.
    pub images_missing: Vec<String>,
    /// What it serves, feature by feature ([`ASSET_FEATURES`], then `textures`).
    pub features: Vec<AssetFeatureStatus>,
}

fn is_assets(dir: &Path) -> bool {
    ASSET_FOLDERS.iter().any(|k| dir.join(k.folder).is_dir())
}

fn named(dir: &Path, source: AssetsSource) -> Result<AssetsFolder, DataError> {
    let reason = if !dir.exists() {
        Some("it does not exist".to_owned())
    } else if !is_assets(dir) {
        Some(format!(
            "none of {} is in it",
            ASSET_FOLDERS
                .iter()
                .map(|k| format!("{}/", k.folder))
                .collect::<Vec<_>>()
                .join(", ")
        ))
    } else {
        None
    };
    match reason {
        None => Ok(AssetsFolder {
            root: dir.to_path_buf(),
            source,
        }),
        Some(reason) => Err(DataError::NotAssets {
            folder: dir.to_path_buf(),
            origin: source,
            reason,
        }),
    }
}

/// Finds the assets folder: `explicit` (`--assets`), else `$MAKEHUMAN_ASSETS`, else MPFB's
/// user data folders (newest Blender first), else MakeHuman's user data folder, else the
/// cache. `None` when there is none; a folder the user named that is not one is an error,
/// and so is an incomplete cache.
pub fn locate_assets(
    places: &Places,
    explicit: Option<&Path>,
) -> Result<Option<AssetsFolder>, DataError> {
    if let Some(dir) = explicit {
        return named(dir, AssetsSource::Flag).map(Some);
    }
    if let Some(dir) = &places.assets_env {
        return named(dir, AssetsSource::Env).map(Some);
    }
    let candidates = places
        .mpfb_user_data()
        .into_iter()
        .map(|d| (d, AssetsSource::MpfbUserData))
        .chain(
            places
                .makehuman_user_data
                .iter()
                .map(|d| (d.clone(), AssetsSource::MakeHumanUserData)),
        );
    for (dir, source) in candidates {
        if is_assets(&dir) {
            return Ok(Some(AssetsFolder { root: dir, source }));
        }
    }
    match places.assets_cache() {
        Some(cache) if cache.exists() => {
            let marked = Marker::read(&cache).is_some_and(|m| m.kind == "makehuman-assets");
            if marked && is_assets(&cache) {
                Ok(Some(AssetsFolder {
                    root: cache,
                    source: AssetsSource::Cache,
                }))
            } else {
                Err(DataError::PartialAssetsCache { folder: cache })
            }
        }
        _ => Ok(None),
    }
}

/// Every regular file under `dir` (symbolic links are not followed, so a link loop cannot
/// hang the walk), at most [`MAX_FILES`].
fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(current) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&current) else {
            continue;
        };
        for entry in entries.flatten() {
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            if kind.is_dir() {
                stack.push(entry.path());
            } else if kind.is_file() {
                out.push(entry.path());
                if out.len() >= MAX_FILES {
                    return out;
                }
            }
        }
    }
    out.sort();
    out
}

fn has_extension(path: &Path, extension: &str) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| e.eq_ignore_ascii_case(extension))
}

/// The texture files a material names (`diffuseTexture F`, `normalmapTexture F`, ...).
fn named_textures(mhmat: &str) -> impl Iterator<Item = &str> {
    mhmat.lines().filter_map(|line| {
        let mut words = line.split_whitespace();
        let key = words.next()?;
        let value = words.next()?;
        key.ends_with("Texture").then_some(value)
    })
}

impl AssetsFolder {
    /// An assets folder at `root` as if given with `--assets`, checked.
    pub fn given(root: &Path) -> Result<AssetsFolder, DataError> {
        named(root, AssetsSource::Flag)
    }

    /// An assets folder `data fetch` just filled: the cache, or `--into` a folder.
    pub fn fetched(root: &Path, is_cache: bool) -> Result<AssetsFolder, DataError> {
        named(
            root,
            if is_cache {
                AssetsSource::Cache
            } else {
                AssetsSource::Fetched
            },
        )
    }

    /// The folder.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Where it came from.
    pub fn source(&self) -> AssetsSource {
        self.source
    }

    /// Counts the assets of each kind and checks the images their materials name (a
    /// texture is found beside its material, or relative to the assets folder, as
    /// MakeHuman's loader looks for it).
    pub fn status(&self) -> AssetsStatus {
        let files = files_under(&self.root);
        let kinds = ASSET_FOLDERS
            .iter()
            .map(|kind| KindCount {
                kind: kind.folder,
                assets: files
                    .iter()
                    .filter(|f| {
                        f.starts_with(self.root.join(kind.folder))
                            && has_extension(f, kind.extension)
                    })
                    .count(),
            })
            .collect();
        let (materials, named) = self.named_images(&files);
        let images_present = named.iter().filter(|(_, found)| *found).count();
        let images_missing: Vec<String> = named
            .iter()
            .filter(|(_, found)| !found)
            .take(20)
            .map(|(path, _)| {
                crate::places::relative_slash(path, &self.root)
                    .unwrap_or_else(|| path.display().to_string())
            })
            .collect();
        let mut features = self.features(&files);
        features.push(AssetFeatureStatus {
            feature: "textures",
            title: "textures",
            used_by: "the images materials name (else their colours)",
            present: images_present,
            required: named.len(),
            missing: images_missing.clone(),
        });
        AssetsStatus {
            folder: self.root.clone(),
            source: self.source,
            fetched: Marker::read(&self.root),
            kinds,
            materials,
            images_named: named.len(),
            images_present,
            images_missing,
            features,
        }
    }

    /// How many materials `files` holds, and each texture file they name once (in first-seen
    /// order), with whether it is there.
    fn named_images(&self, files: &[PathBuf]) -> (usize, Vec<(PathBuf, bool)>) {
        let mut materials = 0;
        // A set keeps a hostile material's thousands of lines linear.
        let mut named: Vec<(PathBuf, bool)> = Vec::new();
        let mut seen: std::collections::HashSet<PathBuf> = std::collections::HashSet::new();
        for material in files.iter().filter(|f| has_extension(f, "mhmat")) {
            materials += 1;
            // Materials are small; a huge one is not a material.
            let text = match std::fs::metadata(material) {
                Ok(m) if m.len() <= 1 << 20 => {
                    std::fs::read_to_string(material).unwrap_or_default()
                }
                _ => String::new(),
            };
            let beside = material.parent().unwrap_or(&self.root);
            for texture in named_textures(&text) {
                let candidates = [beside.join(texture), self.root.join(texture)];
                let found = candidates.iter().any(|c| c.is_file());
                let key = candidates[0].clone();
                if seen.insert(key.clone()) {
                    named.push((key, found));
                }
            }
        }
        (materials, named)
    }

    /// Each of [`ASSET_FEATURES`] checked against `files` (every file under the folder).
    fn features(&self, files: &[PathBuf]) -> Vec<AssetFeatureStatus> {
        ASSET_FEATURES
            .iter()
            .map(|feature| {
                let mut missing: Vec<String> = feature
                    .files
                    .iter()
                    .filter(|f| !self.root.join(f).is_file())
                    .map(|f| (*f).to_owned())
                    .collect();
                missing.extend(
                    feature
                        .any_of
                        .iter()
                        .filter(|wanted| {
                            !files.iter().any(|f| {
                                f.starts_with(self.root.join(wanted.folder))
                                    && has_extension(f, wanted.extension)
                            })
                        })
                        .map(|wanted| format!("{}/*.{}", wanted.folder, wanted.extension)),
                );
                let required = feature.files.len() + feature.any_of.len();
                AssetFeatureStatus {
                    feature: feature.key,
                    title: feature.title,
                    used_by: feature.used_by,
                    present: required - missing.len(),
                    required,
                    missing,
                }
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(root: &Path, relative: &str, text: &str) {
        let path = root.join(relative);
        std::fs::create_dir_all(path.parent().unwrap_or(root)).unwrap_or_else(|e| panic!("{e}"));
        std::fs::write(path, text).unwrap_or_else(|e| panic!("{e}"));
    }

    #[test]
    fn assets_are_found_counted_and_their_images_checked() {
        let tmp = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let assets = tmp.path().join("assets");
        write(&assets, "eyebrows/e1/e1.mhclo", "name e1\n");
        write(
            &assets,
            "eyebrows/e1/e1.mhmat",
            "diffuseTexture e1.png\nshaderParam litsphereTexture x.png\n",
        );
        write(&assets, "eyebrows/e1/e1.png", "png");
        write(&assets, "clothes/shirt/shirt.mhclo", "name shirt\n");
        write(
            &assets,
            "clothes/shirt/shirt.mhmat",
            "diffuseTexture shirt.png\nnormalmapTexture shirt_n.png\n",
        );
        let places = Places {
            assets_env: Some(assets.clone()),
            ..Places::default()
        };
        let found = locate_assets(&places, None).ok().flatten();
        assert_eq!(found.as_ref().map(|a| a.source()), Some(AssetsSource::Env));
        let status = found.map(|a| a.status());
        let status = status.as_ref();
        assert_eq!(
            status.map(|s| (s.kinds[0].assets, s.kinds[2].assets)),
            Some((1, 1))
        );
        assert_eq!(
            status.map(|s| (s.materials, s.images_named, s.images_present)),
            Some((2, 3, 1))
        );
        let feature = |key: &str| {
            status
                .and_then(|s| s.features.iter().find(|f| f.feature == key))
                .map(|f| (f.state(), f.present, f.required))
        };
        assert_eq!(feature("default-eyes"), Some(("missing", 0, 4)));
        assert_eq!(feature("clothes-and-hair"), Some(("partial", 1, 2)));
        assert_eq!(feature("textures"), Some(("partial", 1, 3)));
        assert_eq!(
            status
                .and_then(|s| s.features.iter().find(|f| f.feature == "clothes-and-hair"))
                .map(|f| f.missing.clone()),
            Some(vec!["hair/*.mhclo".to_owned()])
        );
        assert_eq!(
            status.map(|s| s.images_missing.clone()),
            Some(vec![
                "clothes/shirt/shirt.png".to_owned(),
                "clothes/shirt/shirt_n.png".to_owned()
            ])
        );
        // A named folder that is not an assets folder is an error; nothing named is none.
        let bogus = Places {
            assets_env: Some(tmp.path().join("nothing")),
            ..Places::default()
        };
        assert!(locate_assets(&bogus, None).is_err());
        assert!(matches!(locate_assets(&Places::default(), None), Ok(None)));
        // A cache without the fetch marker is incomplete, never used.
        let cache = tmp.path().join("cache");
        write(&cache, "makehuman-assets/hair/h.mhclo", "name h\n");
        let cached = Places {
            cache: Some(cache.clone()),
            ..Places::default()
        };
        assert!(matches!(
            locate_assets(&cached, None),
            Err(DataError::PartialAssetsCache { .. })
        ));
    }
}
