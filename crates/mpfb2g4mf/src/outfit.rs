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
use mpfb_body::{AssetChoice, AssetMaterialChoice, SkinChoice};
use std::path::{Path, PathBuf};

/// A kind of MakeHuman asset.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum AssetKind {
    /// Clothes and shoes (`clothes/`).
    Clothes,
    /// Eyebrows (`eyebrows/`).
    Eyebrows,
    /// Eyelashes (`eyelashes/`).
    Eyelashes,
    /// Hair (`hair/`).
    Hair,
    /// Proxy eyes (`eyes/`).
    Eyes,
    /// Teeth (`teeth/`).
    Teeth,
    /// A tongue (`tongue/`).
    Tongue,
    /// A body topology (`proxymeshes/`).
    Proxy,
}

impl AssetKind {
    /// Every kind, in the order a character wears them.
    pub const ALL: [AssetKind; 8] = [
        AssetKind::Eyes,
        AssetKind::Teeth,
        AssetKind::Tongue,
        AssetKind::Eyebrows,
        AssetKind::Eyelashes,
        AssetKind::Hair,
        AssetKind::Clothes,
        AssetKind::Proxy,
    ];

    /// The `.mhm` keyword and extras word.
    pub fn name(self) -> &'static str {
        match self {
            AssetKind::Clothes => "clothes",
            AssetKind::Eyebrows => "eyebrows",
            AssetKind::Eyelashes => "eyelashes",
            AssetKind::Hair => "hair",
            AssetKind::Eyes => "eyes",
            AssetKind::Teeth => "teeth",
            AssetKind::Tongue => "tongue",
            AssetKind::Proxy => "proxy",
        }
    }

    /// The kind a `.mhm` keyword names.
    pub fn from_name(name: &str) -> Option<AssetKind> {
        AssetKind::ALL.into_iter().find(|k| k.name() == name)
    }

    /// Its folder in the assets folder.
    pub fn folder(self) -> &'static str {
        match self {
            AssetKind::Proxy => "proxymeshes",
            other => other.name(),
        }
    }

    /// Its files' extension.
    pub fn extension(self) -> &'static str {
        match self {
            AssetKind::Proxy => "proxy",
            _ => "mhclo",
        }
    }
}

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
}

impl AssetIndex {
    /// Indexes the asset files under `root` (each kind's folder, links not followed, at most
    /// [`MAX_INDEXED_PER_KIND`] files per kind, in path order).
    pub fn scan(root: &Path) -> AssetIndex {
        let mut assets = Vec::new();
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
                        && files.len() < MAX_INDEXED_PER_KIND
                    {
                        files.push(path);
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
    /// `name` (case-insensitively), its file name without extension, or its folder's name.
    pub fn find(&self, kind: AssetKind, name: &str, uuid: Option<&str>) -> Option<&IndexedAsset> {
        let of_kind = || self.assets.iter().filter(move |a| a.kind == kind);
        if let Some(uuid) = uuid {
            if let Some(found) = of_kind().find(|a| a.uuid.as_deref() == Some(uuid)) {
                return Some(found);
            }
        }
        // Presets may give a file name or a path relative to the kind's folder.
        let wanted = name
            .rsplit(['/', '\\'])
            .next()
            .unwrap_or(name)
            .trim_end_matches(&format!(".{}", kind.extension()));
        of_kind()
            .find(|a| a.name.eq_ignore_ascii_case(wanted))
            .or_else(|| of_kind().find(|a| a.uuid.as_deref() == Some(wanted)))
            .or_else(|| of_kind().find(|a| stem(&a.path).eq_ignore_ascii_case(wanted)))
            .or_else(|| {
                of_kind().find(|a| {
                    a.path
                        .parent()
                        .and_then(Path::file_name)
                        .is_some_and(|f| f.to_string_lossy().eq_ignore_ascii_case(wanted))
                })
            })
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
    let Ok(mut file) = std::fs::File::open(path) else {
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
}

impl Outfit {
    /// Every file it names (for the size limit and output checks).
    pub fn files(&self) -> impl Iterator<Item = &Path> {
        self.worn
            .iter()
            .flat_map(|w| std::iter::once(w.path.as_path()).chain(w.material.as_deref()))
            .chain(self.skin.as_deref())
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
}

/// A flag's text as an ask.
fn flag_ask(text: &str) -> Ask {
    Ask {
        name: text.to_owned(),
        uuid: None,
        location: None,
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
    for kind in AssetKind::ALL {
        let from_description: Vec<Ask> = described
            .iter()
            .filter(|a| AssetKind::from_name(&a.kind) == Some(kind))
            .map(|a| Ask {
                name: a.name.clone(),
                uuid: a.uuid.clone(),
                location: Some(a.location.clone()),
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
                    .map(|c| flag_ask(c)),
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
                Some(text) => Wanted::These(vec![flag_ask(text)]),
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
                    && index.is_some_and(|i| i.find(kind, DEFAULT_EYES, None).is_some()) =>
            {
                vec![flag_ask(DEFAULT_EYES)]
            }
            Wanted::Unsaid => continue,
            Wanted::These(asks) => asks,
        };
        for ask in asks {
            let path = match (as_file(&ask.name, kind), index) {
                (Some(file), _) if ask.location.is_none() => file,
                (_, Some(index)) => match index.find(kind, &ask.name, ask.uuid.as_deref()) {
                    Some(found) => found.path.clone(),
                    // MPFB presets may name the eyes by their material (`"eyes": "brown"`):
                    // MakeHuman's default eyes in that material.
                    None if kind == AssetKind::Eyes
                        && eye_material_file(index, &ask.name).is_some() =>
                    {
                        match index.find(kind, DEFAULT_EYES, None) {
                            Some(eyes) => {
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
                    None => {
                        return Err(ConvertError::UnknownAsset {
                            kind: kind.name().to_owned(),
                            name: location::text::excerpt(&ask.name, 80),
                            asked: asked_where(ask.location.as_ref(), description),
                            folder: index.root().to_path_buf(),
                        });
                    }
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
            let material = material_for(kind, &path, &ask, settings, materials, index)?;
            outfit.worn.push(WornAsset {
                kind,
                path,
                material,
            });
        }
    }
    Ok(outfit)
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
            asked: match location {
                Some(_) => asked_where(location, description),
                None => "--skin".to_owned(),
            },
            folder: root.join("skins"),
        }),
    }
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

/// Where an asset was asked for (a description's line, else a flag), for messages.
fn asked_where(location: Option<&Location>, description: Option<&Path>) -> String {
    match (location, description) {
        (Some(at), Some(file)) => at.clone().in_file(file).to_string(),
        (Some(at), None) => at.to_string(),
        (None, _) => "a flag".to_owned(),
    }
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
            let file = Path::new(text);
            if file
                .extension()
                .is_some_and(|e| e.eq_ignore_ascii_case("mhmat"))
                || text.contains(['/', '\\'])
            {
                return Ok(Some(file.to_path_buf()));
            }
            let Some(index) = index else {
                return Err(ConvertError::NoAssets {
                    kind: "eye material".to_owned(),
                    name: location::text::excerpt(text, 80),
                });
            };
            let Some(candidate) = eye_material_file(index, text) else {
                return Err(ConvertError::UnknownAsset {
                    kind: "eye material".to_owned(),
                    name: location::text::excerpt(text, 80),
                    asked: "--eye-material".to_owned(),
                    folder: index.root().join("eyes/materials"),
                });
            };
            return Ok(Some(candidate));
        }
    }
    let indexed = index.and_then(|i| i.assets().iter().find(|a| a.path == path));
    let line = materials.iter().rev().find(|m| {
        let by_uuid =
            m.uuid.is_some() && (m.uuid == ask.uuid || indexed.is_some_and(|a| a.uuid == m.uuid));
        by_uuid || indexed.is_some_and(|a| a.name.eq_ignore_ascii_case(&m.asset))
    });
    Ok(match (line, index) {
        (Some(line), Some(index)) => Some(index.root().join(&line.file)),
        _ => None,
    })
}
