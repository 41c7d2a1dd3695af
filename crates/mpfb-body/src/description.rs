//! A body's description as users bring it: MakeHuman 1.x `.mhm` files and MPFB's
//! `human.*.json` presets, read into one [`Description`] (phenotype, detail targets, rig), with
//! what we do not convert listed, never dropped in silence.

use crate::index::{LookupError, TargetIndex};
use crate::macros::{MacroModel, MacroSpec, Phenotype, macro_targets};
use location::Location;
use serde_json::Value;
use std::path::PathBuf;

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
    /// What the description holds that we do not convert (clothes, proxies, poses, ...), one
    /// entry per kind with how many.
    pub not_converted: Vec<String>,
}

/// A description cannot be read or resolved.
#[derive(Debug, thiserror::Error)]
#[error("{location}: {kind}")]
pub struct DescriptionError {
    /// Where (file, line:column or pointer).
    pub location: Box<Location>,
    /// What.
    pub kind: DescriptionErrorKind,
}

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
    #[error("`{name}` is {value}, outside [{low}, {high}]")]
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
    /// The file cannot be read.
    #[error("cannot read the description: {0}")]
    Io(#[source] std::io::Error),
}

impl DescriptionError {
    /// An error of `kind` at `location`.
    pub fn new(location: Location, kind: DescriptionErrorKind) -> Self {
        Self {
            location: Box::new(location),
            kind,
        }
    }

    /// Attaches the file.
    pub fn with_file(mut self, file: impl Into<PathBuf>) -> Self {
        self.location.file = Some(file.into());
        self
    }
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

/// Counts what is not converted, by kind, in first-seen order.
fn note(not_converted: &mut Vec<(String, usize)>, kind: &str) {
    match not_converted.iter_mut().find(|(k, _)| k == kind) {
        Some((_, n)) => *n += 1,
        None => not_converted.push((kind.to_owned(), 1)),
    }
}

fn summarize(counts: Vec<(String, usize)>) -> Vec<String> {
    counts
        .into_iter()
        .map(|(k, n)| if n == 1 { k } else { format!("{k} ({n})") })
        .collect()
}

/// Parses a MakeHuman 1.x `.mhm` file's text.
///
/// `modifier GROUP/NAME VALUE`: macro modifiers set the phenotype (values in [0, 1]); a
/// `BASE-NEG|POS` modifier means target `BASE-NEG` at `-VALUE` when VALUE < 0, else
/// `BASE-POS` at VALUE (values in [-1, 1]); any other means target `NAME` at VALUE (in [0, 1]).
/// `skeleton NAME.mhskel` names the rig. Everything else that shapes the character (clothes,
/// proxies, hair, eyes, materials, poses, expressions, subdivision) is listed in
/// [`Description::not_converted`].
pub fn parse_mhm(text: &str) -> Result<Description, DescriptionError> {
    let mut description = Description::default();
    let mut skipped: Vec<(String, usize)> = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let at = Location::line_column(n + 1, 1);
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let (keyword, rest) = line.split_once(char::is_whitespace).unwrap_or((line, ""));
        let rest = rest.trim();
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
                            DescriptionErrorKind::Malformed(format!("`{value}` is not a number")),
                        )
                    })?;
                if let Some(&(_, variable)) = MHM_MACROS.iter().find(|(m, _)| *m == name) {
                    range_check(name, value, 0.0, 1.0, &at)?;
                    description.phenotype.set(variable, value);
                    continue;
                }
                let Some((_, modifier)) = name.split_once('/') else {
                    return Err(DescriptionError::new(
                        at,
                        DescriptionErrorKind::UnknownModifier(name.to_owned()),
                    ));
                };
                let (target, weight) = match modifier.split_once('|') {
                    Some((negative, positive)) => {
                        range_check(name, value, -1.0, 1.0, &at)?;
                        let base = negative.rsplit_once('-').map_or("", |(b, _)| b);
                        if base.is_empty() || positive.is_empty() || positive.contains('-') {
                            return Err(DescriptionError::new(
                                at,
                                DescriptionErrorKind::UnknownModifier(name.to_owned()),
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
                    note(&mut skipped, "subdivision");
                }
            }
            k if MHM_METADATA.contains(&k) => {}
            "skinMaterial" => note(&mut skipped, "skin material"),
            other => note(&mut skipped, other),
        }
    }
    description.not_converted = summarize(skipped);
    Ok(description)
}

/// Parses an MPFB `human.*.json` preset's text: `phenotype` (race as a sub-object), `targets`
/// (`[{"target": NAME, "value": W}]`), `rig`, and asset keys (listed as not converted).
pub fn parse_preset(text: &str) -> Result<Description, DescriptionError> {
    let value: Value = serde_json::from_str(text).map_err(|e| {
        DescriptionError::new(
            Location::line_column(e.line(), e.column()),
            DescriptionErrorKind::Json(e.to_string()),
        )
    })?;
    let Some(object) = value.as_object() else {
        return Err(DescriptionError::new(
            Location::pointer(""),
            DescriptionErrorKind::Malformed("a preset is a JSON object".into()),
        ));
    };
    let mut description = Description::default();
    let mut skipped: Vec<(String, usize)> = Vec::new();
    let number = |v: &Value, at: &str| {
        v.as_f64().ok_or_else(|| {
            DescriptionError::new(
                Location::pointer(at),
                DescriptionErrorKind::Malformed(format!("expected a number, found {v}")),
            )
        })
    };
    for (key, v) in object {
        match key.as_str() {
            "phenotype" => {
                let Some(phenotype) = v.as_object() else {
                    return Err(DescriptionError::new(
                        Location::pointer("/phenotype"),
                        DescriptionErrorKind::Malformed("`phenotype` is an object".into()),
                    ));
                };
                for (name, x) in phenotype {
                    if name == "race" {
                        for (race, y) in x.as_object().into_iter().flatten() {
                            let at = format!("/phenotype/race/{race}");
                            let y = number(y, &at)?;
                            range_check(race, y, 0.0, 1.0, &Location::pointer(&at))?;
                            if !matches!(race.as_str(), "african" | "asian" | "caucasian") {
                                return Err(DescriptionError::new(
                                    Location::pointer(at),
                                    DescriptionErrorKind::UnknownModifier(race.clone()),
                                ));
                            }
                            description.phenotype.set(race, y);
                        }
                        continue;
                    }
                    let at = format!("/phenotype/{name}");
                    let x = number(x, &at)?;
                    range_check(name, x, 0.0, 1.0, &Location::pointer(&at))?;
                    if matches!(name.as_str(), "african" | "asian" | "caucasian")
                        || !description.phenotype.set(name, x)
                    {
                        return Err(DescriptionError::new(
                            Location::pointer(at),
                            DescriptionErrorKind::UnknownModifier(name.clone()),
                        ));
                    }
                }
            }
            "targets" => {
                for (i, t) in v.as_array().into_iter().flatten().enumerate() {
                    let at = format!("/targets/{i}");
                    let (Some(name), Some(w)) =
                        (t.get("target").and_then(Value::as_str), t.get("value"))
                    else {
                        return Err(DescriptionError::new(
                            Location::pointer(at),
                            DescriptionErrorKind::Malformed(
                                "expected {\"target\": NAME, \"value\": W}".into(),
                            ),
                        ));
                    };
                    let w = number(w, &format!("{at}/value"))?;
                    range_check(name, w, 0.0, 1.0, &Location::pointer(format!("{at}/value")))?;
                    if w != 0.0 {
                        description.targets.push(DetailTarget {
                            name: name.to_owned(),
                            weight: w,
                            location: Location::pointer(at),
                        });
                    }
                }
            }
            "rig" => description.rig = v.as_str().filter(|r| !r.is_empty()).map(str::to_owned),
            "name" => description.name = v.as_str().map(str::to_owned),
            // Empty asset slots carry nothing to convert.
            _ if v.is_null()
                || v.as_str() == Some("")
                || v.as_array().is_some_and(Vec::is_empty) => {}
            other => note(&mut skipped, other),
        }
    }
    description.not_converted = summarize(skipped);
    Ok(description)
}

/// Reads a description file: an MPFB preset when it ends in `.json`, a MakeHuman `.mhm`
/// otherwise. Every location it holds (errors, and each detail target's line or pointer)
/// names the file, so later lookups of its targets report it too.
pub fn read_description(path: &std::path::Path) -> Result<Description, DescriptionError> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| DescriptionError::new(Location::file(path), DescriptionErrorKind::Io(e)))?;
    let parsed = if path.extension().is_some_and(|e| e == "json") {
        parse_preset(&text)
    } else {
        parse_mhm(&text)
    };
    let mut description = parsed.map_err(|e| e.with_file(path))?;
    for target in &mut description.targets {
        target.location.file = Some(path.to_path_buf());
    }
    Ok(description)
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
        assert_eq!(d.not_converted, ["eyes", "clothes (2)", "pose"]);
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
        assert_eq!(d.not_converted, ["eyes"]);
        let err = parse_preset(r#"{"phenotype": {"gender": 2}}"#)
            .err()
            .map(|e| e.to_string());
        assert!(err.is_some_and(|e| e.starts_with("/phenotype/gender: `gender` is 2")));
        let err = parse_preset(r#"{"phenotype": {"hair": 0.5}}"#)
            .err()
            .map(|e| e.to_string());
        assert!(err.is_some_and(|e| e.contains("unknown modifier `hair`")));
    }
}
