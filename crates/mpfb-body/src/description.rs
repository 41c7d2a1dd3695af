//! A body's description as users bring it: MakeHuman 1.x `.mhm` files and MPFB's
//! `human.*.json` presets, read into one [`Description`] (phenotype, detail targets, rig), with
//! what we do not convert listed, never dropped in silence.

use crate::index::{LookupError, TargetIndex};
use crate::macros::{MacroModel, MacroSpec, Phenotype, macro_targets};
use location::Location;
use location::text::{excerpt, short_number};
use makehuman_assets::AssetKind;
use serde_json::Value;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// A detail target and its weight, with where it was asked for.
#[derive(Debug, Clone, PartialEq)]
pub struct DetailTarget {
    /// The target's base name (`l-upperarm-scale-depth-incr`).
    pub name: String,
    /// Its weight.
    pub weight: f64,
    /// The line (`.mhm`) or pointer (preset) that asked for it.
    pub location: Location,
}

/// What a body is made of.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Description {
    /// The macro modifiers.
    pub phenotype: Phenotype,
    /// Detail targets in the order given.
    pub targets: Vec<DetailTarget>,
    /// The rig the description names (`default`, `game_engine`, ...).
    pub rig: Option<String>,
    /// The character's name.
    pub name: Option<String>,
    /// What the description holds that we do not convert (poses, expressions, ...), one
    /// entry per kind with how many.
    pub not_converted: Vec<String>,
    /// The assets it names (clothes, hair, eyebrows, eyelashes, eyes, teeth, tongue, proxy),
    /// in the order given.
    pub assets: Vec<AssetChoice>,
    /// Materials it gives assets (`.mhm` `material ASSET UUID FILE`).
    pub asset_materials: Vec<AssetMaterialChoice>,
    /// The skin it names (`.mhm` `skinMaterial FILE`, preset `skin_mhmat`).
    pub skin: Option<SkinChoice>,
    /// The expression (`.mhm` `expression expressions/NAME.mhpose`), as written, with the line
    /// that named it.
    pub expression: Option<SkinChoice>,
    /// The pose (`.mhm` `pose poses/NAME.bvh`), as written, with the line that named it.
    pub pose: Option<SkinChoice>,
}

/// The skin material a description names.
#[derive(Debug, Clone, PartialEq)]
pub struct SkinChoice {
    /// The `.mhmat` as written: a path relative to the assets folder
    /// (`skins/young_caucasian_female/young_caucasian_female.mhmat`) or a file name.
    pub file: String,
    /// The line or pointer that named it.
    pub location: Location,
}

/// An asset a description names.
#[derive(Debug, Clone, PartialEq)]
pub struct AssetChoice {
    /// Its kind, as the line's keyword or the preset's key names it.
    pub kind: AssetKind,
    /// Its name (or file name, as presets give it).
    pub name: String,
    /// Its uuid, when given.
    pub uuid: Option<String>,
    /// The line (`.mhm`) or pointer (preset) that named it.
    pub location: Location,
}

/// A material a description gives an asset.
#[derive(Debug, Clone, PartialEq)]
pub struct AssetMaterialChoice {
    /// The asset's name.
    pub asset: String,
    /// The asset's uuid.
    pub uuid: Option<String>,
    /// The material file, relative to the assets folder (`eyes/materials/brown.mhmat`).
    pub file: String,
    /// Where it was given.
    pub location: Location,
}

/// A description cannot be read or resolved: where (file, line:column or pointer) and what
/// ([`DescriptionErrorKind`]).
pub type DescriptionError = location::Located<DescriptionErrorKind>;

/// What is wrong with a description.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum DescriptionErrorKind {
    /// Not valid JSON (presets).
    #[error("{0}")]
    Json(String),
    /// A line or value of the wrong shape.
    #[error("{0}")]
    Malformed(String),
    /// A modifier we do not know.
    #[error("unknown modifier `{0}`")]
    UnknownModifier(String),
    /// A value outside its range.
    #[error("`{name}` is {}, outside [{low}, {high}]", short_number(*value))]
    OutOfRange {
        /// The modifier or variable.
        name: String,
        /// Its value.
        value: f64,
        /// Lowest allowed.
        low: f64,
        /// Highest allowed.
        high: f64,
    },
    /// A target that is not in the targets folder, or is there more than once.
    #[error(transparent)]
    Target(#[from] LookupError),
    /// A modifier (`.mhm`) or key (preset) given twice: which value was meant is unknown.
    #[error("`{name}` is given again (first on line {first})")]
    Repeated {
        /// The modifier.
        name: String,
        /// The line it was first given on.
        first: usize,
    },
    /// A key given twice in a preset.
    #[error("repeated key `{0}`")]
    RepeatedKey(String),
    /// The file is neither a `.mhm` nor a preset.
    #[error("{0}")]
    Kind(String),
    /// The file cannot be read (the I/O error is quoted in the message, so not also a
    /// `source`).
    #[error("cannot read the description: {0}")]
    Io(std::io::Error),
}

/// `.mhm` macro modifiers and the phenotype variable each sets.
const MHM_MACROS: [(&str, &str); 11] = [
    ("macrodetails/Gender", "gender"),
    ("macrodetails/Age", "age"),
    ("macrodetails/African", "african"),
    ("macrodetails/Asian", "asian"),
    ("macrodetails/Caucasian", "caucasian"),
    ("macrodetails-universal/Muscle", "muscle"),
    ("macrodetails-universal/Weight", "weight"),
    ("macrodetails-height/Height", "height"),
    ("macrodetails-proportions/BodyProportions", "proportions"),
    ("breast/BreastSize", "cupsize"),
    ("breast/BreastFirmness", "firmness"),
];

/// `.mhm` lines that describe the file, not the body: read or ignored without remark.
const MHM_METADATA: [&str; 5] = ["version", "uuid", "tags", "camera", "name"];

fn range_check(
    name: &str,
    value: f64,
    low: f64,
    high: f64,
    at: &Location,
) -> Result<(), DescriptionError> {
    if (low..=high).contains(&value) {
        Ok(())
    } else {
        Err(DescriptionError::new(
            at.clone(),
            DescriptionErrorKind::OutOfRange {
                name: name.to_owned(),
                value,
                low,
                high,
            },
        ))
    }
}

/// What a description holds that is not converted, counted by kind in first-seen order (a
/// map beside the list keeps a file of thousands of odd lines linear).
#[derive(Default)]
struct Skipped {
    order: Vec<(String, usize)>,
    index: HashMap<String, usize>,
}

/// Kinds listed by name at most; the rest are counted.
const MAX_LISTED_KINDS: usize = 20;

impl Skipped {
    fn note(&mut self, kind: &str) {
        match self.index.get(kind) {
            Some(&i) => self.order[i].1 += 1,
            None => {
                self.index.insert(kind.to_owned(), self.order.len());
                self.order.push((kind.to_owned(), 1));
            }
        }
    }

    fn summary(self) -> Vec<String> {
        let more = self.order.len().saturating_sub(MAX_LISTED_KINDS);
        let mut out: Vec<String> = self
            .order
            .into_iter()
            .take(MAX_LISTED_KINDS)
            .map(|(k, n)| {
                let k = excerpt(&k, 40);
                if n == 1 { k } else { format!("{k} ({n})") }
            })
            .collect();
        if more > 0 {
            out.push(format!("{more} other kinds"));
        }
        out
    }
}

/// Parses a MakeHuman 1.x `.mhm` file's text (any line end; a byte-order mark is dropped).
///
/// `modifier GROUP/NAME VALUE`: macro modifiers set the phenotype (values in [0, 1]); a
/// `BASE-NEG|POS` modifier means target `BASE-NEG` at `-VALUE` when VALUE < 0, else
/// `BASE-POS` at VALUE (values in [-1, 1]); any other means target `NAME` at VALUE (in [0, 1]).
/// A modifier given twice is an error (MakeHuman keeps the last, a hand-edited file usually
/// did not mean to). `skeleton NAME.mhskel` names the rig. Everything else that shapes the
/// character (clothes, proxies, hair, eyes, materials, poses, expressions, subdivision) is
/// listed in [`Description::not_converted`].
pub fn parse_mhm(text: &str) -> Result<Description, DescriptionError> {
    let text = location::text::strip_bom(text);
    let mut description = Description::default();
    let mut skipped = Skipped::default();
    let mut seen: HashMap<String, usize> = HashMap::new();
    for (n, line) in location::text::lines(text) {
        let at = Location::line_column(n, 1);
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let (keyword, rest) = line.split_once(char::is_whitespace).unwrap_or((line, ""));
        let rest = rest.trim();
        let asset_kind = AssetKind::from_name(keyword);
        match keyword {
            "modifier" => {
                let (name, value) = rest.rsplit_once(char::is_whitespace).ok_or_else(|| {
                    DescriptionError::new(
                        at.clone(),
                        DescriptionErrorKind::Malformed(
                            "expected `modifier GROUP/NAME VALUE`".into(),
                        ),
                    )
                })?;
                let name = name.trim();
                let value: f64 = value
                    .parse()
                    .ok()
                    .filter(|v: &f64| v.is_finite())
                    .ok_or_else(|| {
                        DescriptionError::new(
                            at.clone(),
                            DescriptionErrorKind::Malformed(format!(
                                "`{}` is not a number",
                                excerpt(value, 24)
                            )),
                        )
                    })?;
                if let Some(&first) = seen.get(name) {
                    return Err(DescriptionError::new(
                        at,
                        DescriptionErrorKind::Repeated {
                            name: excerpt(name, 80),
                            first,
                        },
                    ));
                }
                seen.insert(name.to_owned(), n);
                if let Some(&(_, variable)) = MHM_MACROS.iter().find(|(m, _)| *m == name) {
                    range_check(name, value, 0.0, 1.0, &at)?;
                    description.phenotype.set(variable, value);
                    continue;
                }
                let Some((_, modifier)) = name.split_once('/') else {
                    return Err(DescriptionError::new(
                        at,
                        DescriptionErrorKind::UnknownModifier(excerpt(name, 80)),
                    ));
                };
                let (target, weight) = match modifier.split_once('|') {
                    Some((negative, positive)) => {
                        range_check(name, value, -1.0, 1.0, &at)?;
                        let base = negative.rsplit_once('-').map_or("", |(b, _)| b);
                        if base.is_empty() || positive.is_empty() || positive.contains('-') {
                            return Err(DescriptionError::new(
                                at,
                                DescriptionErrorKind::UnknownModifier(excerpt(name, 80)),
                            ));
                        }
                        if value < 0.0 {
                            (negative.to_owned(), -value)
                        } else {
                            (format!("{base}-{positive}"), value)
                        }
                    }
                    None => {
                        range_check(name, value, 0.0, 1.0, &at)?;
                        (modifier.to_owned(), value)
                    }
                };
                if weight != 0.0 {
                    description.targets.push(DetailTarget {
                        name: target,
                        weight,
                        location: at,
                    });
                }
            }
            "skeleton" => {
                let rig = rest.strip_suffix(".mhskel").unwrap_or(rest);
                if !rig.is_empty() {
                    description.rig = Some(rig.to_owned());
                }
            }
            "name" => description.name = Some(rest.to_owned()).filter(|n| !n.is_empty()),
            "subdivide" => {
                if rest.eq_ignore_ascii_case("true") {
                    skipped.note("subdivision");
                }
            }
            k if MHM_METADATA.contains(&k) => {}
            k if asset_kind.is_some() => {
                let mut words = rest.split_whitespace();
                let name = words.next().ok_or_else(|| {
                    DescriptionError::new(
                        at.clone(),
                        DescriptionErrorKind::Malformed(format!("expected `{k} NAME UUID`")),
                    )
                })?;
                if let Some(kind) = asset_kind.filter(|_| !name.eq_ignore_ascii_case("none")) {
                    description.assets.push(AssetChoice {
                        kind,
                        name: name.to_owned(),
                        uuid: words.next().map(str::to_owned),
                        location: at,
                    });
                }
            }
            "material" => {
                let words: Vec<&str> = rest.split_whitespace().collect();
                let [asset, uuid, file] = words[..] else {
                    return Err(DescriptionError::new(
                        at,
                        DescriptionErrorKind::Malformed(
                            "expected `material ASSET UUID FILE`".into(),
                        ),
                    ));
                };
                description.asset_materials.push(AssetMaterialChoice {
                    asset: asset.to_owned(),
                    uuid: Some(uuid.to_owned()),
                    file: file.to_owned(),
                    location: at,
                });
            }
            "expression" => {
                let file = rest.trim();
                if !file.is_empty() && !file.eq_ignore_ascii_case("none") {
                    description.expression = Some(SkinChoice {
                        file: file.to_owned(),
                        location: at,
                    });
                }
            }
            "pose" => {
                let file = rest.trim();
                if !file.is_empty() && !file.eq_ignore_ascii_case("none") {
                    description.pose = Some(SkinChoice {
                        file: file.to_owned(),
                        location: at,
                    });
                }
            }
            "skinMaterial" => {
                let file = rest.trim();
                if file.is_empty() {
                    return Err(DescriptionError::new(
                        at,
                        DescriptionErrorKind::Malformed("expected `skinMaterial FILE`".into()),
                    ));
                }
                description.skin = Some(SkinChoice {
                    file: file.to_owned(),
                    location: at,
                });
            }
            other => skipped.note(other),
        }
    }
    description.not_converted = skipped.summary();
    Ok(description)
}

/// Parses an MPFB `human.*.json` preset's text: `phenotype` (race as a sub-object), `targets`
/// (`[{"target": NAME, "value": W}]`), `rig`, `name`, and asset keys (listed as not
/// converted). Types are checked: a field of the wrong type is an error at its pointer, never
/// dropped; a repeated key is an error (which value was meant is unknown).
pub fn parse_preset(text: &str) -> Result<Description, DescriptionError> {
    let text = location::text::strip_bom(text);
    if let Some(dup) = json_strict::first_duplicate_key(text) {
        return Err(DescriptionError::new(
            Location::pointer(dup.pointer()),
            DescriptionErrorKind::RepeatedKey(excerpt(&dup.key, 80)),
        ));
    }
    let value: Value = serde_json::from_str(text).map_err(|e| {
        DescriptionError::new(
            Location::line_column(e.line(), e.column()),
            DescriptionErrorKind::Json(json_message(&e)),
        )
    })?;
    let Some(object) = value.as_object() else {
        return Err(DescriptionError::new(
            Location::pointer(""),
            DescriptionErrorKind::Malformed("a preset is a JSON object".into()),
        ));
    };
    let mut description = Description::default();
    let mut skipped = Skipped::default();
    let wrong = |at: &str, expected: &str, found: &Value| {
        DescriptionError::new(
            Location::pointer(at),
            DescriptionErrorKind::Malformed(format!(
                "expected {expected}, found {}",
                kind_of(found)
            )),
        )
    };
    let number = |v: &Value, at: &str| v.as_f64().ok_or_else(|| wrong(at, "a number", v));
    for (key, v) in object {
        let pointer = location::json_pointer([key.as_str()]);
        let asset_kind = AssetKind::from_name(key);
        match key.as_str() {
            "phenotype" => {
                let phenotype = v
                    .as_object()
                    .ok_or_else(|| wrong(&pointer, "an object", v))?;
                for (name, x) in phenotype {
                    let at = location::json_pointer(["phenotype", name.as_str()]);
                    if name == "race" {
                        let race = x.as_object().ok_or_else(|| wrong(&at, "an object", x))?;
                        for (part, y) in race {
                            let at = location::json_pointer(["phenotype", "race", part.as_str()]);
                            let y = number(y, &at)?;
                            if !matches!(part.as_str(), "african" | "asian" | "caucasian") {
                                return Err(DescriptionError::new(
                                    Location::pointer(at),
                                    DescriptionErrorKind::UnknownModifier(excerpt(part, 80)),
                                ));
                            }
                            range_check(part, y, 0.0, 1.0, &Location::pointer(&at))?;
                            description.phenotype.set(part, y);
                        }
                        continue;
                    }
                    let x = number(x, &at)?;
                    if matches!(name.as_str(), "african" | "asian" | "caucasian")
                        || !mpfb_phenotype_name(name)
                    {
                        return Err(DescriptionError::new(
                            Location::pointer(at),
                            DescriptionErrorKind::UnknownModifier(excerpt(name, 80)),
                        ));
                    }
                    range_check(name, x, 0.0, 1.0, &Location::pointer(&at))?;
                    description.phenotype.set(name, x);
                }
            }
            "targets" => {
                let targets = v.as_array().ok_or_else(|| wrong(&pointer, "an array", v))?;
                for (i, t) in targets.iter().enumerate() {
                    let at = format!("/targets/{i}");
                    let entry = t
                        .as_object()
                        .ok_or_else(|| wrong(&at, "{\"target\": NAME, \"value\": W}", t))?;
                    let name = entry.get("target").ok_or_else(|| {
                        wrong(&format!("{at}/target"), "a target name", &Value::Null)
                    })?;
                    let name = name
                        .as_str()
                        .filter(|n| !n.is_empty())
                        .ok_or_else(|| wrong(&format!("{at}/target"), "a target name", name))?;
                    let w = entry
                        .get("value")
                        .ok_or_else(|| wrong(&format!("{at}/value"), "a number", &Value::Null))?;
                    let w = number(w, &format!("{at}/value"))?;
                    range_check(name, w, 0.0, 1.0, &Location::pointer(format!("{at}/value")))?;
                    if let Some(other) = entry
                        .keys()
                        .find(|k| !matches!(k.as_str(), "target" | "value"))
                    {
                        return Err(DescriptionError::new(
                            Location::pointer(format!("{at}/{}", excerpt(other, 40))),
                            DescriptionErrorKind::Malformed(format!(
                                "unknown key `{}` (a target has `target` and `value`)",
                                excerpt(other, 40)
                            )),
                        ));
                    }
                    if w != 0.0 {
                        description.targets.push(DetailTarget {
                            name: name.to_owned(),
                            weight: w,
                            location: Location::pointer(at),
                        });
                    }
                }
            }
            "rig" | "name" => {
                let text = match v {
                    Value::Null => None,
                    Value::String(t) if t.is_empty() => None,
                    Value::String(t) => Some(t.clone()),
                    other => return Err(wrong(&pointer, "a string", other)),
                };
                if key == "rig" {
                    description.rig = text;
                } else {
                    description.name = text;
                }
            }
            // Empty asset slots carry nothing to convert.
            _ if v.is_null()
                || v.as_str() == Some("")
                || v.as_array().is_some_and(Vec::is_empty) => {}
            "skin_mhmat" => {
                let file = v
                    .as_str()
                    .ok_or_else(|| wrong(&pointer, "a material file", v))?;
                description.skin = Some(SkinChoice {
                    file: file.to_owned(),
                    location: Location::pointer(pointer.clone()),
                });
            }
            _ if asset_kind.is_some() => {
                let names: Vec<(String, &Value)> = match v {
                    Value::Array(items) => items
                        .iter()
                        .enumerate()
                        .map(|(i, item)| (format!("{pointer}/{i}"), item))
                        .collect(),
                    other => vec![(pointer.clone(), other)],
                };
                for (at, item) in names {
                    let name = item
                        .as_str()
                        .filter(|n| !n.is_empty())
                        .ok_or_else(|| wrong(&at, "an asset name", item))?;
                    let Some(kind) = asset_kind else { break };
                    description.assets.push(AssetChoice {
                        kind,
                        name: name.to_owned(),
                        uuid: None,
                        location: Location::pointer(at),
                    });
                }
            }
            _ if v.is_null()
                || v.as_str() == Some("")
                || v.as_array().is_some_and(Vec::is_empty) => {}
            other => skipped.note(other),
        }
    }
    description.not_converted = skipped.summary();
    Ok(description)
}

/// A phenotype variable a preset may set (the race parts come under `race`).
fn mpfb_phenotype_name(name: &str) -> bool {
    crate::macros::Phenotype::NAMES.contains(&name)
}

/// A JSON value's kind, for "expected ..., found ..." (never the value itself).
fn kind_of(value: &Value) -> &'static str {
    match value {
        Value::Null => "nothing",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// serde_json's message without its trailing ` at line L column C` (the location says it).
fn json_message(e: &serde_json::Error) -> String {
    let message = e.to_string();
    match message.rfind(" at line ") {
        Some(i) => message[..i].to_owned(),
        None => message,
    }
}

/// What a description file holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DescriptionKind {
    /// A MakeHuman 1.x `.mhm` file.
    Mhm,
    /// An MPFB `human.*.json` preset.
    Preset,
}

/// The kind of a description: by extension (`.mhm`, `.json`, any case), else by content (a
/// JSON object, or MakeHuman's `version` first line); anything else is refused rather than
/// read as an empty body.
pub fn description_kind(path: &Path, text: &str) -> Result<DescriptionKind, DescriptionError> {
    let extension = path
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase);
    match extension.as_deref() {
        Some("mhm") => return Ok(DescriptionKind::Mhm),
        Some("json") => return Ok(DescriptionKind::Preset),
        _ => {}
    }
    let text = location::text::strip_bom(text);
    if text.trim_start().starts_with('{') {
        return Ok(DescriptionKind::Preset);
    }
    let first = location::text::lines(text)
        .map(|(_, l)| l.trim())
        .find(|l| !l.is_empty() && !l.starts_with('#'));
    if first.is_some_and(|l| l.starts_with("version ")) {
        return Ok(DescriptionKind::Mhm);
    }
    Err(DescriptionError::new(
        Location::file(path),
        DescriptionErrorKind::Kind(
            "neither a MakeHuman .mhm (its first line is `version ...`) nor an MPFB preset (a JSON object); name it .mhm or .json".into(),
        ),
    ))
}

/// Parses a description file's bytes: text decoding (a byte-order mark dropped, invalid UTF-8
/// located), the kind ([`description_kind`]), then [`parse_mhm`] or [`parse_preset`]. Every
/// location it holds (errors, and each detail target's line or pointer) names `path`, so later
/// lookups of its targets report it too.
pub fn parse_description(bytes: &[u8], path: &Path) -> Result<Description, DescriptionError> {
    let text = location::text::decode(bytes).map_err(|e| {
        DescriptionError::new(
            e.location.clone(),
            DescriptionErrorKind::Malformed(format!("not UTF-8 text (byte 0x{:02x})", e.byte)),
        )
        .with_file(path)
    })?;
    let parsed = match description_kind(path, text)? {
        DescriptionKind::Preset => parse_preset(text),
        DescriptionKind::Mhm => parse_mhm(text),
    };
    let mut description = parsed.map_err(|e| e.with_file(path))?;
    for target in &mut description.targets {
        target.location.file = Some(path.to_path_buf());
    }
    Ok(description)
}

/// Descriptions are small: a file larger than this is not one (a library reading one without
/// its own limit is still bounded).
pub const MAX_DESCRIPTION_BYTES: u64 = 64 << 20;

/// Reads a description file (at most [`MAX_DESCRIPTION_BYTES`], pipes too) and parses it
/// with [`parse_description`].
pub fn read_description(path: &Path) -> Result<Description, DescriptionError> {
    use std::io::Read;
    let io_error = |e| DescriptionError::new(Location::file(path), DescriptionErrorKind::Io(e));
    let file = location::open_regular(path).map_err(io_error)?;
    let mut bytes = Vec::new();
    file.take(MAX_DESCRIPTION_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(io_error)?;
    if bytes.len() as u64 > MAX_DESCRIPTION_BYTES {
        return Err(DescriptionError::new(
            Location::file(path),
            DescriptionErrorKind::Malformed(format!(
                "larger than {MAX_DESCRIPTION_BYTES} bytes: not a character description"
            )),
        ));
    }
    parse_description(&bytes, path)
}

/// A target file to apply and its weight.
#[derive(Debug, Clone, PartialEq)]
pub struct Weighted {
    /// A name for messages: the macro path or the detail target's name.
    pub name: String,
    /// The file.
    pub path: PathBuf,
    /// The weight.
    pub weight: f64,
}

impl Description {
    /// Every target file the description applies: the macro targets of its phenotype (files
    /// that exist) under `model`, then its detail targets, each found by name in `index`.
    pub fn resolve(
        &self,
        index: &TargetIndex,
        spec: &MacroSpec,
        model: MacroModel,
    ) -> Result<Vec<Weighted>, DescriptionError> {
        let mut out: Vec<Weighted> = macro_targets(&self.phenotype, model, spec)
            .into_iter()
            .filter_map(|t| {
                Some(Weighted {
                    path: index.at(&t.path)?,
                    name: t.path,
                    weight: t.weight,
                })
            })
            .collect();
        for t in &self.targets {
            let path = index
                .find(&t.name)
                .map_err(|e| DescriptionError::new(t.location.clone(), e.into()))?;
            out.push(Weighted {
                name: t.name.clone(),
                path,
                weight: t.weight,
            });
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mhm_modifiers_pairs_sides_and_what_is_not_converted() {
        let text = "version v1.1.1\nname Ada\ncamera 0 0 0\n\
            modifier macrodetails/Gender 0.200000\n\
            modifier macrodetails/African 0.7\n\
            modifier macrodetails-height/Height 0.9\n\
            modifier head/head-age-decr|incr -0.250000\n\
            modifier armslegs/l-upperarm-scale-depth-decr|incr 0.5\n\
            modifier stomach/stomach-pregnant-decr|incr 0.000000\n\
            modifier nose/nose-hump-decr|incr 1\n\
            modifier genitals/genitals-female 0.5\n\
            skeleton game_engine.mhskel\n\
            eyes HighPolyEyes 2c12f43b\nclothes shirt 1\nclothes shoes 2\npose standing\nsubdivide False\n";
        let d = parse_mhm(text).unwrap_or_default();
        assert_eq!(d.name.as_deref(), Some("Ada"));
        assert_eq!(d.rig.as_deref(), Some("game_engine"));
        assert_eq!(d.phenotype.gender, 0.2);
        assert_eq!(d.phenotype.race.african, 0.7);
        assert_eq!(d.phenotype.height, 0.9);
        let targets: Vec<(&str, f64)> = d
            .targets
            .iter()
            .map(|t| (t.name.as_str(), t.weight))
            .collect();
        assert_eq!(
            targets,
            [
                ("head-age-decr", 0.25),
                ("l-upperarm-scale-depth-incr", 0.5),
                ("nose-hump-incr", 1.0),
                ("genitals-female", 0.5),
            ]
        );
        assert_eq!(d.targets[0].location.to_string(), "7:1");
        assert_eq!(d.not_converted, Vec::<String>::new());
        assert_eq!(d.pose.as_ref().map(|p| p.file.as_str()), Some("standing"));
        assert_eq!(
            d.pose.as_ref().map(|p| p.location.to_string()),
            Some("16:1".into())
        );
        let assets: Vec<(&str, &str, Option<&str>, String)> = d
            .assets
            .iter()
            .map(|a| {
                (
                    a.kind.name(),
                    a.name.as_str(),
                    a.uuid.as_deref(),
                    a.location.to_string(),
                )
            })
            .collect();
        assert_eq!(
            assets,
            [
                ("eyes", "HighPolyEyes", Some("2c12f43b"), "13:1".to_owned()),
                ("clothes", "shirt", Some("1"), "14:1".to_owned()),
                ("clothes", "shoes", Some("2"), "15:1".to_owned()),
            ]
        );
    }

    #[test]
    fn mhm_errors_are_located() {
        for (text, expected) in [
            (
                "modifier macrodetails/Age 1.5\n",
                "1:1: `macrodetails/Age` is 1.5, outside [0, 1]",
            ),
            (
                "\nmodifier head/head-age-decr|incr -1.5\n",
                "2:1: `head/head-age-decr|incr` is -1.5",
            ),
            ("modifier nose/nose-hump 2\n", "1:1: `nose/nose-hump` is 2"),
            ("modifier Gender 0.5\n", "1:1: unknown modifier `Gender`"),
            (
                "modifier macrodetails/Gender x\n",
                "1:1: `x` is not a number",
            ),
            ("modifier\n", "1:1: expected `modifier GROUP/NAME VALUE`"),
        ] {
            let err = parse_mhm(text)
                .err()
                .map(|e| e.to_string())
                .unwrap_or_default();
            assert!(err.starts_with(expected), "{err}");
        }
    }

    #[test]
    fn presets_phenotype_targets_rig() {
        let text = r#"{"phenotype": {"gender": 1.0, "age": 0.25, "race": {"african": 0.0, "asian": 1.0, "caucasian": 0.0}},
            "targets": [{"target": "nose-hump-incr", "value": 0.4}], "rig": "default",
            "eyes": "brown", "proxy": "", "clothes": []}"#;
        let d = parse_preset(text).unwrap_or_default();
        assert_eq!(
            (d.phenotype.gender, d.phenotype.age, d.phenotype.race.asian),
            (1.0, 0.25, 1.0)
        );
        assert_eq!(d.targets[0].name, "nose-hump-incr");
        assert_eq!(d.rig.as_deref(), Some("default"));
        assert!(d.not_converted.is_empty());
        assert_eq!(d.assets.len(), 1);
        assert_eq!(
            (d.assets[0].kind.name(), d.assets[0].name.as_str()),
            ("eyes", "brown")
        );
        assert_eq!(d.assets[0].location.to_string(), "/eyes");
        let err = parse_preset(r#"{"phenotype": {"gender": 2}}"#)
            .err()
            .map(|e| e.to_string());
        assert!(err.is_some_and(|e| e.starts_with("/phenotype/gender: `gender` is 2")));
        let err = parse_preset(r#"{"phenotype": {"hair": 0.5}}"#)
            .err()
            .map(|e| e.to_string());
        assert!(err.is_some_and(|e| e.contains("unknown modifier `hair`")));
    }

    #[test]
    fn any_line_end_and_a_byte_order_mark_read_the_same_body() {
        let lf = "version v1.1.1\nmodifier macrodetails/Gender 0.2\nmodifier nose/nose-hump-decr|incr 0.5\n";
        let expected = parse_mhm(lf).unwrap_or_default();
        assert_eq!(expected.phenotype.gender, 0.2);
        for variant in [
            lf.replace('\n', "\r\n"),
            lf.replace('\n', "\r"),
            format!("\u{feff}{lf}"),
        ] {
            let got = parse_mhm(&variant).unwrap_or_default();
            assert_eq!(got.phenotype, expected.phenotype, "{variant:?}");
            assert_eq!(got.targets.len(), 1, "{variant:?}");
        }
        let bytes = [b"\xEF\xBB\xBF".as_slice(), lf.as_bytes()].concat();
        let d = parse_description(&bytes, Path::new("a.mhm")).unwrap_or_default();
        assert_eq!(d.phenotype.gender, 0.2);
        let err = parse_description(b"version v1\nname \xFF\n", Path::new("a.mhm"))
            .err()
            .map(|e| e.to_string());
        assert_eq!(
            err.as_deref(),
            Some("a.mhm:2:6: not UTF-8 text (byte 0xff)")
        );
    }

    #[test]
    fn a_repeated_modifier_is_an_error_naming_both_lines() {
        let text =
            "version v1\nmodifier macrodetails/Gender 0.5\nmodifier macrodetails/Gender 0.7\n";
        let err = parse_mhm(text).err().map(|e| e.to_string());
        assert_eq!(
            err.as_deref(),
            Some("3:1: `macrodetails/Gender` is given again (first on line 2)")
        );
        let text = "modifier nose/nose-hump-decr|incr 0.6\nmodifier nose/nose-hump-decr|incr 0.6\n";
        assert!(
            parse_mhm(text).is_err(),
            "two halves would add up past the range"
        );
    }

    #[test]
    fn the_kind_comes_from_the_extension_or_the_content_never_a_guess() {
        let kind = |name: &str, text: &str| description_kind(Path::new(name), text).ok();
        assert_eq!(kind("a.MHM", "x"), Some(DescriptionKind::Mhm));
        assert_eq!(kind("a.JSON", "x"), Some(DescriptionKind::Preset));
        assert_eq!(
            kind("human", " {\"rig\": \"default\"}"),
            Some(DescriptionKind::Preset)
        );
        assert_eq!(
            kind("human", "# saved\nversion v1.1.1\n"),
            Some(DescriptionKind::Mhm)
        );
        assert_eq!(kind("notes.txt", "hello world\n"), None);
        let err = parse_description(b"hello\n", Path::new("notes.txt"))
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default();
        assert!(
            err.starts_with("notes.txt: neither a MakeHuman .mhm"),
            "{err}"
        );
        let d = parse_description(br#"{"rig": "mixamo"}"#, Path::new("preset.JSON"))
            .unwrap_or_default();
        assert_eq!(d.rig.as_deref(), Some("mixamo"));
    }

    #[test]
    fn preset_types_and_repeated_keys_are_checked() {
        for (text, expected) in [
            (
                r#"{"targets": {"nose-hump-incr": 0.5}}"#,
                "/targets: expected an array, found an object",
            ),
            (
                r#"{"phenotype": {"race": [0.5]}}"#,
                "/phenotype/race: expected an object, found an array",
            ),
            (r#"{"rig": 3}"#, "/rig: expected a string, found a number"),
            (
                r#"{"phenotype": {"gender": "0.5"}}"#,
                "/phenotype/gender: expected a number, found a string",
            ),
            (
                r#"{"targets": [{"target": "x"}]}"#,
                "/targets/0/value: expected a number, found nothing",
            ),
            (
                r#"{"targets": [{"target": "x", "value": 0.5, "weight": 1}]}"#,
                "/targets/0/weight: unknown key `weight`",
            ),
            (
                r#"{"phenotype": {"gender": 0.2, "gender": 0.9}}"#,
                "/phenotype/gender: repeated key `gender`",
            ),
            (
                r#"{"phenotype": {"gender": 1e308}}"#,
                "/phenotype/gender: `gender` is 1e308, outside [0, 1]",
            ),
            ("{\"rig\": \"default\",}", "1:19: trailing comma"),
        ] {
            let err = parse_preset(text)
                .err()
                .map(|e| e.to_string())
                .unwrap_or_default();
            assert!(err.starts_with(expected), "{text}: {err}");
        }
        assert!(parse_preset("\u{feff}{\"rig\": \"default\"}").is_ok());
    }

    #[test]
    fn many_odd_lines_are_counted_in_linear_time_and_listed_short() {
        let mut text = String::from("version v1\n");
        for i in 0..80_000 {
            text.push_str(&format!("keyword{i} x\n"));
        }
        text.push_str(&format!("{} y\n", "k".repeat(5000)));
        let d = parse_mhm(&text).unwrap_or_default();
        assert_eq!(d.not_converted.len(), MAX_LISTED_KINDS + 1);
        assert_eq!(
            d.not_converted.last().map(String::as_str),
            Some("79981 other kinds")
        );
        assert!(d.not_converted.iter().all(|k| k.len() < 100));
    }
}
