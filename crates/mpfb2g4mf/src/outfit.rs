//! Stage 0 for assets: which MakeHuman assets a job wears (clothes, hair, eyebrows,
//! eyelashes, eyes, teeth, tongue) and which body topology it uses, decided from the
//! description's lines and the flags, each resolved by name, uuid or file in the assets
//! folder ([`AssetIndex`]).
//!
//! Rules: `--clothes X` adds to the description's clothes (`none` drops the description's);
//! every other kind's flag replaces the description's line of that kind (`none` leaves it
//! out). With an assets folder and nothing said about eyes, the eyes are MakeHuman's default
//! (HighPolyEyes with the brown material). Without an assets folder, the description's
//! assets are reported as not converted; a flag naming an asset by name is an error.

use crate::error::ConvertError;
use crate::options::Settings;
use location::Location;
pub use makehuman_assets::AssetKind;
use mpfb_body::{AssetChoice, AssetMaterialChoice, SkinChoice};
use std::path::{Path, PathBuf};

/// One asset of the assets folder: its kind, `name`, `uuid` and file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IndexedAsset {
    /// Its kind (the folder it is in).
    pub kind: AssetKind,
    /// Its `name` line.
    pub name: String,
    /// Its `uuid` line.
    pub uuid: Option<String>,
    /// The `.mhclo` or `.proxy` file.
    pub path: PathBuf,
}

/// Most asset files indexed per kind: a folder with more is not a MakeHuman assets folder
/// a conversion should walk.
pub const MAX_INDEXED_PER_KIND: usize = 20_000;

/// Bytes of an asset file read to find its `name` and `uuid` (they come in its header).
const HEADER_BYTES: usize = 64 * 1024;

/// The assets of a folder by kind, from their headers.
#[derive(Debug, Clone, Default)]
pub struct AssetIndex {
    root: PathBuf,
    assets: Vec<IndexedAsset>,
    truncated: Vec<AssetKind>,
}

impl AssetIndex {
    /// Indexes the asset files under `root` (each kind's folder, links not followed, at most
    /// [`MAX_INDEXED_PER_KIND`] files per kind, in path order; [`AssetIndex::truncated`]
    /// says which kinds had more).
    pub fn scan(root: &Path) -> AssetIndex {
        let mut assets = Vec::new();
        let mut truncated = Vec::new();
        for kind in AssetKind::ALL {
            let mut files = Vec::new();
            let mut stack = vec![root.join(kind.folder())];
            while let Some(dir) = stack.pop() {
                let Ok(entries) = std::fs::read_dir(&dir) else {
                    continue;
                };
                for entry in entries.flatten() {
                    let Ok(file_type) = entry.file_type() else {
                        continue;
                    };
                    let path = entry.path();
                    if file_type.is_dir() {
                        stack.push(path);
                    } else if file_type.is_file()
                        && path
                            .extension()
                            .is_some_and(|e| e.eq_ignore_ascii_case(kind.extension()))
                    {
                        if files.len() < MAX_INDEXED_PER_KIND {
                            files.push(path);
                        } else if truncated.last() != Some(&kind) {
                            truncated.push(kind);
                        }
                    }
                }
            }
            files.sort();
            for path in files {
                let (name, uuid) = header_of(&path);
                let name = name.unwrap_or_else(|| stem(&path));
                assets.push(IndexedAsset {
                    kind,
                    name,
                    uuid,
                    path,
                });
            }
        }
        AssetIndex {
            root: root.to_path_buf(),
            assets,
            truncated,
        }
    }

    /// The folder indexed.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Every asset indexed.
    pub fn assets(&self) -> &[IndexedAsset] {
        &self.assets
    }

    /// The asset of `kind` that `uuid` (when given and known) or else `name` names: its
    /// `name` (exactly, then case-insensitively), its uuid, its file name without extension,
    /// or its folder's name, the first of these rules that matches anything deciding. Several
    /// matches under one rule (a copy that kept its uuid, names differing only by case, a
    /// folder holding two assets) are [`Ambiguous`]: nothing is picked by path order.
    pub fn find(
        &self,
        kind: AssetKind,
        name: &str,
        uuid: Option<&str>,
    ) -> Result<Option<&IndexedAsset>, Ambiguous> {
        let of_kind = || self.assets.iter().filter(move |a| a.kind == kind);
        // Presets may give a file name or a path relative to the kind's folder.
        let wanted = name
            .rsplit(['/', '\\'])
            .next()
            .unwrap_or(name)
            .trim_end_matches(&format!(".{}", kind.extension()));
        if let Some(uuid) = uuid {
            let by_uuid: Vec<&IndexedAsset> = of_kind()
                .filter(|a| a.uuid.as_deref() == Some(uuid))
                .collect();
            if by_uuid.len() > 1 {
                // The line's name may single one of the copies out.
                let named: Vec<&IndexedAsset> = by_uuid
                    .iter()
                    .copied()
                    .filter(|a| a.name == wanted)
                    .collect();
                return one_of(if named.is_empty() { by_uuid } else { named }).map(Some);
            }
            if let Some(&found) = by_uuid.first() {
                return Ok(Some(found));
            }
        }
        let folder_is = |a: &IndexedAsset| {
            a.path
                .parent()
                .and_then(Path::file_name)
                .is_some_and(|f| f.to_string_lossy().eq_ignore_ascii_case(wanted))
        };
        let rules: [&dyn Fn(&IndexedAsset) -> bool; 5] = [
            &|a| a.name == wanted,
            &|a| a.name.eq_ignore_ascii_case(wanted),
            &|a| a.uuid.as_deref() == Some(wanted),
            &|a| stem(&a.path).eq_ignore_ascii_case(wanted),
            &folder_is,
        ];
        for rule in rules {
            let found: Vec<&IndexedAsset> = of_kind().filter(|a| rule(a)).collect();
            if !found.is_empty() {
                return one_of(found).map(Some);
            }
        }
        Ok(None)
    }

    /// The kinds whose folders held more than [`MAX_INDEXED_PER_KIND`] asset files (the
    /// rest were not indexed).
    pub fn truncated(&self) -> &[AssetKind] {
        &self.truncated
    }

    /// An asset of a kind whose folder passed [`MAX_INDEXED_PER_KIND`] (see
    /// [`AssetIndex::truncated`]), named exactly by its file: `KIND/NAME/NAME.EXT` or
    /// `KIND/NAME.EXT` (MakeHuman's layout), looked up by path so the cap never hides it.
    /// `None` for any other kind, for a name with a separator or `..`, or when neither file
    /// is a regular file.
    pub fn find_past_cap(&self, kind: AssetKind, name: &str) -> Option<IndexedAsset> {
        if !self.truncated.contains(&kind) {
            return None;
        }
        let stem = name
            .strip_suffix(&format!(".{}", kind.extension()))
            .unwrap_or(name);
        let plain = Path::new(stem)
            .components()
            .all(|c| matches!(c, std::path::Component::Normal(_)))
            && !stem.is_empty()
            && !stem.contains(['/', '\\']);
        if !plain {
            return None;
        }
        let folder = self.root.join(kind.folder());
        let file = format!("{stem}.{}", kind.extension());
        [folder.join(stem).join(&file), folder.join(&file)]
            .into_iter()
            .find(|p| std::fs::symlink_metadata(p).is_ok_and(|m| m.is_file()))
            .map(|path| {
                let (name, uuid) = header_of(&path);
                IndexedAsset {
                    kind,
                    name: name.unwrap_or_else(|| stem.to_owned()),
                    uuid,
                    path,
                }
            })
    }
}

/// Several assets matching one name or uuid: their files.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ambiguous(pub Vec<PathBuf>);

impl Ambiguous {
    /// The refusal of `name`, a `kind` asked at `asked`, naming the candidates.
    fn error(self, kind: AssetKind, name: &str, asked: String) -> ConvertError {
        ConvertError::AmbiguousAsset {
            kind: kind.name().to_owned(),
            name: location::text::excerpt(name, 80),
            asked,
            candidates: self
                .0
                .iter()
                .map(|c| c.display().to_string())
                .collect::<Vec<_>>()
                .join(", "),
        }
    }
}

fn one_of(found: Vec<&IndexedAsset>) -> Result<&IndexedAsset, Ambiguous> {
    match found.as_slice() {
        [one] => Ok(one),
        _ => Err(Ambiguous(found.iter().map(|a| a.path.clone()).collect())),
    }
}

fn stem(path: &Path) -> String {
    path.file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// The `name` and `uuid` of an asset file, from its header (before `verts`): its first 4 KiB,
/// where every shipped asset names itself, else its first [`HEADER_BYTES`].
fn header_of(path: &Path) -> (Option<String>, Option<String>) {
    use std::io::Read;
    let Ok(mut file) = location::open_regular(path) else {
        return (None, None);
    };
    let mut buffer = Vec::new();
    let mut found = (None, None);
    for limit in [4096, HEADER_BYTES] {
        let wanted = limit - buffer.len();
        if (&mut file)
            .take(wanted as u64)
            .read_to_end(&mut buffer)
            .is_err()
        {
            return (None, None);
        }
        let (name, uuid, complete) = scan_header(&String::from_utf8_lossy(&buffer));
        found = (name, uuid);
        if complete || buffer.len() < limit {
            break;
        }
    }
    found
}

/// `name` and `uuid` of a header text, and whether the header ended (`verts`) or both were found.
fn scan_header(text: &str) -> (Option<String>, Option<String>, bool) {
    let (mut name, mut uuid) = (None, None);
    let mut ended = false;
    for line in text.lines() {
        let line = line.trim();
        let (key, rest) = line.split_once(char::is_whitespace).unwrap_or((line, ""));
        match key {
            "name" if name.is_none() => name = Some(rest.trim().to_owned()),
            "uuid" if uuid.is_none() => uuid = Some(rest.trim().to_owned()),
            "verts" => {
                ended = true;
                break;
            }
            _ => {}
        }
    }
    let name = name.filter(|n| !n.is_empty());
    let uuid = uuid.filter(|u| !u.is_empty());
    let complete = ended || (name.is_some() && uuid.is_some());
    (name, uuid, complete)
}

/// The eyes MakeHuman gives a character when nothing says otherwise.
pub const DEFAULT_EYES: &str = "HighPolyEyes";

/// An asset a job wears, decided.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct WornAsset {
    /// Its kind.
    pub kind: AssetKind,
    /// Its `.mhclo` file.
    pub path: PathBuf,
    /// A material replacing its own (`--eye-material`, an `.mhm` `material` line).
    pub material: Option<PathBuf>,
}

/// What a job wears, decided.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Outfit {
    /// The assets worn, in [`AssetKind::ALL`] order, then as given; a body topology
    /// ([`AssetKind::Proxy`]) replaces the body mesh.
    pub worn: Vec<WornAsset>,
    /// The assets folder used.
    pub folder: Option<PathBuf>,
    /// The description's assets left out because no assets folder was found.
    pub not_found: Vec<String>,
    /// The skin's material (`--skin`, a description's skin); `None` is MakeHuman's litsphere
    /// default, coloured by the race mix.
    pub skin: Option<PathBuf>,
    /// The material colouring the base mesh's helper eyes' painted iris: `--eye-material`
    /// when no eye asset is worn.
    pub helper_eye_material: Option<PathBuf>,
}

impl Outfit {
    /// Every file it names (for the size limit and output checks).
    pub fn files(&self) -> impl Iterator<Item = &Path> {
        self.worn
            .iter()
            .flat_map(|w| std::iter::once(w.path.as_path()).chain(w.material.as_deref()))
            .chain(self.skin.as_deref())
            .chain(self.helper_eye_material.as_deref())
    }
}

/// What a flag or description line asks for one kind.
enum Wanted {
    /// Nothing said.
    Unsaid,
    /// `none`.
    Nothing,
    /// These, with where each was asked.
    These(Vec<Ask>),
}

/// One asked-for asset.
#[derive(Debug, Clone)]
struct Ask {
    name: String,
    uuid: Option<String>,
    /// The description line, or `None` for a flag.
    location: Option<Location>,
    /// The flag (`--hair`) or population draw that asked, when no line did.
    flag: String,
}

/// A flag's text as an ask.
fn flag_ask(text: &str, flag: String) -> Ask {
    Ask {
        name: text.to_owned(),
        uuid: None,
        location: None,
        flag,
    }
}

/// What asks for `kind` when no description line does: its flag, or the population draw
/// that set it.
fn flag_of(kind: AssetKind, settings: &Settings) -> String {
    flag_of_key(kind.name(), settings)
}

/// What set the setting `key`: its flag, or the population draw.
fn flag_of_key(key: &str, settings: &Settings) -> String {
    if settings.drawn.contains(&key) {
        format!("the population's draw of `{key}`")
    } else {
        format!("--{}", key.replace('_', "-"))
    }
}

fn is_none(text: &str) -> bool {
    text.eq_ignore_ascii_case("none")
}

/// A flag value that names a file rather than an asset.
fn as_file(text: &str, kind: AssetKind) -> Option<PathBuf> {
    let path = Path::new(text);
    let has_extension = path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case(kind.extension()));
    (has_extension || text.contains(['/', '\\'])).then(|| path.to_path_buf())
}

/// Decides the outfit of a job from its settings, its description's asset lines and
/// materials (`described`, with the description file for messages), and the assets folder
/// `index` (when one was found).
pub fn decide(
    settings: &Settings,
    described: &[AssetChoice],
    materials: &[AssetMaterialChoice],
    skin: Option<&SkinChoice>,
    description: Option<&Path>,
    index: Option<&AssetIndex>,
) -> Result<Outfit, ConvertError> {
    let mut outfit = Outfit {
        folder: index.map(|i| i.root().to_path_buf()),
        ..Outfit::default()
    };
    outfit.skin = skin_for(settings, skin, description, index, &mut outfit.not_found)?;
    // Where each worn asset was asked, for "worn twice" messages.
    let mut asked_first: Vec<String> = Vec::new();
    for kind in AssetKind::ALL {
        let from_description: Vec<Ask> = described
            .iter()
            .filter(|a| a.kind == kind)
            .map(|a| Ask {
                name: a.name.clone(),
                uuid: a.uuid.clone(),
                location: Some(a.location.clone()),
                flag: String::new(),
            })
            .collect();
        let flag = match kind {
            AssetKind::Hair => settings.hair.as_deref(),
            AssetKind::Eyebrows => settings.eyebrows.as_deref(),
            AssetKind::Eyelashes => settings.eyelashes.as_deref(),
            AssetKind::Eyes => settings.eyes.as_deref(),
            AssetKind::Teeth => settings.teeth.as_deref(),
            AssetKind::Tongue => settings.tongue.as_deref(),
            AssetKind::Proxy => settings.proxy.as_deref(),
            AssetKind::Clothes => None,
        };
        let wanted = if kind == AssetKind::Clothes {
            let drop_described = settings.clothes.iter().any(|c| is_none(c));
            let mut asks = if drop_described {
                Vec::new()
            } else {
                from_description
            };
            asks.extend(
                settings
                    .clothes
                    .iter()
                    .filter(|c| !is_none(c))
                    .map(|c| flag_ask(c, flag_of(kind, settings))),
            );
            if asks.is_empty() && drop_described {
                Wanted::Nothing
            } else if asks.is_empty() {
                Wanted::Unsaid
            } else {
                Wanted::These(asks)
            }
        } else {
            match flag {
                Some(text) if is_none(text) => Wanted::Nothing,
                Some(text) => Wanted::These(vec![flag_ask(text, flag_of(kind, settings))]),
                None if from_description.is_empty() => Wanted::Unsaid,
                // A description names one of each kind but clothes; the last line wins, as in
                // MakeHuman.
                None => Wanted::These(from_description.into_iter().last().into_iter().collect()),
            }
        };
        let asks = match wanted {
            Wanted::Nothing => continue,
            // MakeHuman's default eyes, when the folder has them.
            Wanted::Unsaid
                if kind == AssetKind::Eyes
                    && index.is_some_and(|i| {
                        matches!(i.find(kind, DEFAULT_EYES, None), Ok(Some(_)))
                    }) =>
            {
                vec![flag_ask(
                    DEFAULT_EYES,
                    "MakeHuman's default eyes".to_owned(),
                )]
            }
            Wanted::Unsaid => continue,
            Wanted::These(asks) => asks,
        };
        for ask in asks {
            let asked = || asked_where(ask.location.as_ref(), description, &ask.flag);
            let path = match (as_file(&ask.name, kind), index) {
                (Some(file), _) if ask.location.is_none() => check_extension(kind, file, asked())?,
                (_, Some(index)) => match index.find(kind, &ask.name, ask.uuid.as_deref()) {
                    Err(several) => return Err(several.error(kind, &ask.name, asked())),
                    Ok(Some(found)) => found.path.clone(),
                    // MPFB presets may name the eyes by their material (`"eyes": "brown"`):
                    // MakeHuman's default eyes in that material.
                    Ok(None)
                        if kind == AssetKind::Eyes
                            && eye_material_file(index, &ask.name).is_some() =>
                    {
                        match index.find(kind, DEFAULT_EYES, None).ok().flatten() {
                            Some(eyes) => {
                                asked_first.push(asked());
                                outfit.worn.push(WornAsset {
                                    kind,
                                    path: eyes.path.clone(),
                                    material: eye_material_file(index, &ask.name),
                                });
                                continue;
                            }
                            None => continue,
                        }
                    }
                    // Past the index's cap, an asset named by its file is still found.
                    Ok(None) => match index.find_past_cap(kind, &ask.name) {
                        Some(found) => found.path,
                        None => {
                            return Err(ConvertError::UnknownAsset {
                                kind: kind.name().to_owned(),
                                name: location::text::excerpt(&ask.name, 80),
                                asked: asked(),
                                folder: index.root().to_path_buf(),
                                note: unknown_note(index, kind, &ask.name),
                            });
                        }
                    },
                },
                (_, None) if ask.location.is_some() => {
                    outfit.not_found.push(format!(
                        "{} {}",
                        kind.name(),
                        location::text::excerpt(&ask.name, 40)
                    ));
                    continue;
                }
                (_, None) => {
                    return Err(ConvertError::NoAssets {
                        kind: kind.name().to_owned(),
                        name: location::text::excerpt(&ask.name, 80),
                    });
                }
            };
            if let Some(first) = outfit.worn.iter().position(|w| w.path == path) {
                return Err(ConvertError::WornTwice {
                    kind: kind.name().to_owned(),
                    asset: path,
                    asked: asked(),
                    first: asked_first[first].clone(),
                });
            }
            let material = material_for(kind, &path, &ask, settings, materials, index)?;
            asked_first.push(asked());
            outfit.worn.push(WornAsset {
                kind,
                path,
                material,
            });
        }
    }
    outfit.helper_eye_material = helper_eye_material(settings, &outfit, index)?;
    Ok(outfit)
}

/// The material `--eye-material` gives the base mesh's helper eyes (worn when no eye asset
/// is): their painted iris takes its colour. With `--eyes none`, or with no assets folder
/// for a material NAME, the flag is a usage error as `--clothes NAME` is.
fn helper_eye_material(
    settings: &Settings,
    outfit: &Outfit,
    index: Option<&AssetIndex>,
) -> Result<Option<PathBuf>, ConvertError> {
    let Some(text) = &settings.eye_material else {
        return Ok(None);
    };
    if outfit.worn.iter().any(|w| w.kind == AssetKind::Eyes) {
        return Ok(None);
    }
    let flag = flag_of_key("eye_material", settings);
    let name = location::text::excerpt(text, 80);
    if settings.eyes.as_deref().is_some_and(is_none) {
        return Err(ConvertError::NoEyesToColour(format!(
            "{flag} `{name}`: `--eyes none` wears no eyes to colour"
        )));
    }
    eye_material_path(text, index, &flag).map(Some)
}

/// True for MakeHuman's default skin (`skins/default.mhmat`, the litsphere skin coloured by
/// the race mix), which every `.mhm` names: it needs no file and no assets folder.
pub fn is_default_skin(text: &str) -> bool {
    let stem = Path::new(text.trim())
        .file_stem()
        .map(|s| s.to_string_lossy().to_ascii_lowercase());
    matches!(stem.as_deref(), Some("default" | "litsphere" | "none"))
}

/// The skin's material file: `--skin` (NAME or FILE) over the description's; `None` for the
/// litsphere default. A name is looked for as `skins/NAME/NAME.mhmat` or `skins/NAME.mhmat`
/// in the assets folder; a description's path is relative to the assets folder (MakeHuman's
/// data folder), or a bare file name in its `skins` folder.
fn skin_for(
    settings: &Settings,
    described: Option<&SkinChoice>,
    description: Option<&Path>,
    index: Option<&AssetIndex>,
    not_found: &mut Vec<String>,
) -> Result<Option<PathBuf>, ConvertError> {
    let (text, location) = match (&settings.skin, described) {
        (Some(flag), _) => (flag.as_str(), None),
        (None, Some(choice)) => (choice.file.as_str(), Some(&choice.location)),
        (None, None) => return Ok(None),
    };
    if is_default_skin(text) {
        return Ok(None);
    }
    if location.is_none() && (text.ends_with(".mhmat") || text.contains(['/', '\\'])) {
        return Ok(Some(PathBuf::from(text)));
    }
    let Some(index) = index else {
        if location.is_some() {
            not_found.push(format!("skin {}", location::text::excerpt(text, 40)));
            return Ok(None);
        }
        return Err(ConvertError::NoAssets {
            kind: "skin".to_owned(),
            name: location::text::excerpt(text, 80),
        });
    };
    let root = index.root();
    let stem = Path::new(text)
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let candidates = [
        root.join(text),
        root.join("skins").join(text),
        root.join("skins").join(&stem).join(format!("{stem}.mhmat")),
        root.join("skins").join(format!("{stem}.mhmat")),
    ];
    // Only files inside the assets folder: a description's `..` never leaves it.
    let inside = !Path::new(text)
        .components()
        .any(|c| !matches!(c, std::path::Component::Normal(_)));
    match candidates.into_iter().find(|p| inside && p.is_file()) {
        Some(found) => Ok(Some(found)),
        None => Err(ConvertError::UnknownAsset {
            kind: "skin".to_owned(),
            name: location::text::excerpt(text, 80),
            asked: asked_where(location, description, "--skin"),
            folder: root.join("skins"),
            note: String::new(),
        }),
    }
}

/// The file `--eye-material` (asked by `flag`) names: a `.mhmat` FILE as given, or NAME's
/// `eyes/materials/NAME.mhmat` in the assets folder (an error without one, or when it is
/// not there, offering near names).
fn eye_material_path(
    text: &str,
    index: Option<&AssetIndex>,
    flag: &str,
) -> Result<PathBuf, ConvertError> {
    let file = Path::new(text);
    if file
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("mhmat"))
        || text.contains(['/', '\\'])
    {
        return Ok(file.to_path_buf());
    }
    let Some(index) = index else {
        return Err(ConvertError::NoAssets {
            kind: "eye material".to_owned(),
            name: location::text::excerpt(text, 80),
        });
    };
    eye_material_file(index, text).ok_or_else(|| {
        let folder = index.root().join("eyes/materials");
        let known: Vec<String> = std::fs::read_dir(&folder)
            .into_iter()
            .flatten()
            .flatten()
            .take(MAX_INDEXED_PER_KIND)
            .filter_map(|e| {
                let name = e.file_name().to_string_lossy().into_owned();
                name.strip_suffix(".mhmat").map(str::to_owned)
            })
            .collect();
        let near = location::near::near_names(text, known.iter().map(String::as_str));
        ConvertError::UnknownAsset {
            kind: "eye material".to_owned(),
            name: location::text::excerpt(text, 80),
            asked: flag.to_owned(),
            folder,
            note: if near.is_empty() {
                String::new()
            } else {
                format!(" (did you mean {}?)", near.join(", "))
            },
        }
    })
}

/// `eyes/materials/NAME.mhmat` of the assets folder, when it is there.
fn eye_material_file(index: &AssetIndex, name: &str) -> Option<PathBuf> {
    if name.contains(['/', '\\', '.']) {
        return None;
    }
    let path = index
        .root()
        .join("eyes/materials")
        .join(format!("{name}.mhmat"));
    path.is_file().then_some(path)
}

/// Where an asset was asked for (a description's line, else `flag`), for messages.
fn asked_where(location: Option<&Location>, description: Option<&Path>, flag: &str) -> String {
    match (location, description) {
        (Some(at), Some(file)) => at.clone().in_file(file).to_string(),
        (Some(at), None) => at.to_string(),
        (None, _) => flag.to_owned(),
    }
}

/// A file asked for as `kind` must have its extension: a `.mhclo` is no body topology, a
/// body's `.proxy` no garment.
fn check_extension(kind: AssetKind, file: PathBuf, asked: String) -> Result<PathBuf, ConvertError> {
    let extension = file
        .extension()
        .map(|e| e.to_string_lossy().to_ascii_lowercase());
    if extension.as_deref() == Some(kind.extension()) {
        return Ok(file);
    }
    let hint = match extension.as_deref() {
        Some("proxy") => ": it is a body topology (give it to --proxy)".to_owned(),
        Some("mhclo") if kind == AssetKind::Proxy => {
            ": it is a worn asset (--clothes, --hair, --eyebrows, ...)".to_owned()
        }
        _ => String::new(),
    };
    Err(ConvertError::WrongAssetFile {
        kind: match kind {
            AssetKind::Proxy => "body topology".to_owned(),
            other => other.name().to_owned(),
        },
        extension: kind.extension(),
        file,
        asked,
        hint,
    })
}

/// Near names of `kind` for an unknown `name`, and whether the index stopped short.
fn unknown_note(index: &AssetIndex, kind: AssetKind, name: &str) -> String {
    let mut note = String::new();
    let names: Vec<&str> = index
        .assets()
        .iter()
        .filter(|a| a.kind == kind)
        .map(|a| a.name.as_str())
        .collect();
    let near = location::near::near_names(name, names.iter().copied());
    if !near.is_empty() {
        note.push_str(&format!(" (did you mean {}?)", near.join(", ")));
    }
    if index.truncated().contains(&kind) {
        note.push_str(&format!(
            "; only the first {MAX_INDEXED_PER_KIND} `.{ext}` files of {} were indexed: name the asset by its file, or by NAME of NAME/NAME.{ext} or NAME.{ext} there",
            index.root().join(kind.folder()).display(),
            ext = kind.extension(),
        ));
    }
    note
}

/// The material replacing an asset's own: `--eye-material` for eyes, else an `.mhm`
/// `material` line naming the asset by uuid or name (its file relative to the assets folder).
fn material_for(
    kind: AssetKind,
    path: &Path,
    ask: &Ask,
    settings: &Settings,
    materials: &[AssetMaterialChoice],
    index: Option<&AssetIndex>,
) -> Result<Option<PathBuf>, ConvertError> {
    if kind == AssetKind::Eyes {
        if let Some(text) = &settings.eye_material {
            let flag = flag_of_key("eye_material", settings);
            return eye_material_path(text, index, &flag).map(Some);
        }
    }
    let indexed = index.and_then(|i| i.assets().iter().find(|a| a.path == path));
    let line = materials.iter().rev().find(|m| {
        let by_uuid =
            m.uuid.is_some() && (m.uuid == ask.uuid || indexed.is_some_and(|a| a.uuid == m.uuid));
        by_uuid || indexed.is_some_and(|a| a.name.eq_ignore_ascii_case(&m.asset))
    });
    Ok(match (line, index) {
        (Some(line), Some(index)) => Some(crate::confine::resolve(
            &index.root().join("material.mhmat"),
            "material",
            &line.file,
            index.root(),
        )?),
        _ => None,
    })
}
