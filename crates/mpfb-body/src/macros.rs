//! The phenotype and the macro targets it weights.
//!
//! Macro targets carry their variables in their names (`macrodetails/african-female-young`,
//! `macrodetails/height/female-young-averagemuscle-averageweight-maxheight`, ...); a file's
//! weight is the product of its variables' weights. Two rules give those weights:
//! - [`MacroModel::Mpfb`] (the default, what MPFB users see): `macro.json`'s parts, weights
//!   rounded to 4 decimals, race used as given, combined weights kept above 0.01, breast
//!   targets without the gender factor (when the gender has a female component);
//! - [`MacroModel::MakeHuman1`]: MakeHuman 1.x's closed formulas, race normalised, no cut-off,
//!   breast targets with the female factor.

use serde::Deserialize;
use std::collections::BTreeMap;

/// The macro modifiers of a body; every value in [0, 1].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Phenotype {
    /// 0 female, 1 male.
    pub gender: f64,
    /// 0 = 1 year, 0.5 = 25 years, 1 = 90 years.
    pub age: f64,
    /// Muscularity.
    pub muscle: f64,
    /// Body weight.
    pub weight: f64,
    /// Height.
    pub height: f64,
    /// Body proportions (1 ideal).
    pub proportions: f64,
    /// Breast size.
    pub cupsize: f64,
    /// Breast firmness.
    pub firmness: f64,
    /// The race mix.
    pub race: Race,
}

/// The race mix of a phenotype.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Race {
    /// African.
    pub african: f64,
    /// Asian.
    pub asian: f64,
    /// Caucasian.
    pub caucasian: f64,
}

impl Default for Phenotype {
    fn default() -> Self {
        Self {
            gender: 0.5,
            age: 0.5,
            muscle: 0.5,
            weight: 0.5,
            height: 0.5,
            proportions: 0.5,
            cupsize: 0.5,
            firmness: 0.5,
            race: Race {
                african: 1.0 / 3.0,
                asian: 1.0 / 3.0,
                caucasian: 1.0 / 3.0,
            },
        }
    }
}

impl Phenotype {
    /// The variables by name, as `.mhm` files, presets and `--phenotype` spell them.
    pub const NAMES: [&'static str; 11] = [
        "gender",
        "age",
        "muscle",
        "weight",
        "height",
        "proportions",
        "cupsize",
        "firmness",
        "african",
        "asian",
        "caucasian",
    ];

    /// A variable by name.
    pub fn get(&self, name: &str) -> Option<f64> {
        Some(match name {
            "gender" => self.gender,
            "age" => self.age,
            "muscle" => self.muscle,
            "weight" => self.weight,
            "height" => self.height,
            "proportions" => self.proportions,
            "cupsize" => self.cupsize,
            "firmness" => self.firmness,
            "african" => self.race.african,
            "asian" => self.race.asian,
            "caucasian" => self.race.caucasian,
            _ => return None,
        })
    }

    /// Sets a variable by name; false when there is no such variable.
    pub fn set(&mut self, name: &str, value: f64) -> bool {
        let slot = match name {
            "gender" => &mut self.gender,
            "age" => &mut self.age,
            "muscle" => &mut self.muscle,
            "weight" => &mut self.weight,
            "height" => &mut self.height,
            "proportions" => &mut self.proportions,
            "cupsize" => &mut self.cupsize,
            "firmness" => &mut self.firmness,
            "african" => &mut self.race.african,
            "asian" => &mut self.race.asian,
            "caucasian" => &mut self.race.caucasian,
            _ => return false,
        };
        *slot = value;
        true
    }
}

/// Which rule weights the macro targets.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum MacroModel {
    /// MPFB 2's rule, from `macro.json`.
    #[default]
    Mpfb,
    /// MakeHuman 1.x's formulas.
    MakeHuman1,
}

/// One part of a variable in `macro.json`: inside `(lowest, highest)` the value blends the
/// `low` and `high` names.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct Part {
    /// Lower bound (exclusive).
    pub lowest: f64,
    /// Upper bound (exclusive).
    pub highest: f64,
    /// Name weighted by `1 - p` (none when empty).
    pub low: String,
    /// Name weighted by `p` (none when empty).
    pub high: String,
}

#[derive(Debug, Clone, Deserialize)]
struct Variable {
    parts: Vec<Part>,
}

#[derive(Debug, Clone, Deserialize)]
struct MacroFile {
    macrotargets: BTreeMap<String, Variable>,
}

/// `targets/macrodetails/macro.json`: the parts of every macro variable (MPFB's rule).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct MacroSpec {
    parts: BTreeMap<String, Vec<Part>>,
}

impl MacroSpec {
    /// Reads `macro.json` text.
    pub fn from_json(text: &str) -> Result<Self, serde_json::Error> {
        let file: MacroFile = serde_json::from_str(text)?;
        Ok(Self {
            parts: file
                .macrotargets
                .into_iter()
                .map(|(k, v)| (k, v.parts))
                .collect(),
        })
    }

    /// The parts of a variable.
    pub fn parts(&self, variable: &str) -> &[Part] {
        self.parts.get(variable).map_or(&[], Vec::as_slice)
    }
}

/// Rounds to 4 decimals, as MPFB's `round(x, 4)`.
fn round4(x: f64) -> f64 {
    (x * 1e4).round() / 1e4
}

/// A macro target and its weight: `path` relative to the targets folder, without extension.
#[derive(Debug, Clone, PartialEq)]
pub struct MacroTarget {
    /// E.g. `macrodetails/height/female-young-averagemuscle-averageweight-maxheight`.
    pub path: String,
    /// Its weight.
    pub weight: f64,
}

/// Weights of one variable's names under a model.
pub fn variable_weights(
    model: MacroModel,
    spec: &MacroSpec,
    variable: &str,
    x: f64,
) -> Vec<(String, f64)> {
    let names = |list: &[(&str, f64)]| -> Vec<(String, f64)> {
        list.iter()
            .filter(|(_, w)| *w > 0.0)
            .map(|(n, w)| ((*n).to_owned(), *w))
            .collect()
    };
    match model {
        MacroModel::Mpfb => {
            let mut out = Vec::new();
            for part in spec.parts(variable) {
                if part.lowest < x && x < part.highest {
                    let p = (x - part.lowest) / (part.highest - part.lowest);
                    if !part.low.is_empty() {
                        out.push((part.low.clone(), round4(1.0 - p)));
                    }
                    if !part.high.is_empty() {
                        out.push((part.high.clone(), round4(p)));
                    }
                }
            }
            out
        }
        MacroModel::MakeHuman1 => {
            let x = x.clamp(0.0, 1.0);
            let max = (2.0 * x - 1.0).max(0.0);
            let min = (1.0 - 2.0 * x).max(0.0);
            match variable {
                "gender" => names(&[("female", 1.0 - x), ("male", x)]),
                "age" => {
                    let (baby, child, young, old) = if x < 0.5 {
                        let young = ((x - 0.1875) * 3.2).max(0.0);
                        let child = ((5.333 * x).min(1.0) - young).max(0.0);
                        ((1.0 - 5.333 * x).max(0.0), child, young, 0.0)
                    } else {
                        let old = 2.0 * x - 1.0;
                        (0.0, 0.0, 1.0 - old, old)
                    };
                    names(&[
                        ("baby", baby),
                        ("child", child),
                        ("young", young),
                        ("old", old),
                    ])
                }
                "muscle" => names(&[
                    ("minmuscle", min),
                    ("averagemuscle", 1.0 - max - min),
                    ("maxmuscle", max),
                ]),
                "weight" => names(&[
                    ("minweight", min),
                    ("averageweight", 1.0 - max - min),
                    ("maxweight", max),
                ]),
                "cupsize" => names(&[
                    ("mincup", min),
                    ("averagecup", 1.0 - max - min),
                    ("maxcup", max),
                ]),
                "firmness" => names(&[
                    ("minfirmness", min),
                    ("averagefirmness", 1.0 - max - min),
                    ("maxfirmness", max),
                ]),
                "height" => names(&[("minheight", min), ("maxheight", max)]),
                "proportions" => names(&[("uncommonproportions", min), ("idealproportions", max)]),
                _ => Vec::new(),
            }
        }
    }
}

/// The race weights under a model.
pub fn race_weights(model: MacroModel, race: Race) -> Vec<(String, f64)> {
    let raw = [
        ("african", race.african),
        ("asian", race.asian),
        ("caucasian", race.caucasian),
    ];
    let scale = match model {
        MacroModel::Mpfb => 1.0,
        MacroModel::MakeHuman1 => {
            let sum: f64 = raw.iter().map(|r| r.1.clamp(0.0, 1.0)).sum();
            if sum > 0.0 { 1.0 / sum } else { f64::NAN }
        }
    };
    raw.iter()
        .map(|&(n, w)| {
            let w = match model {
                MacroModel::Mpfb => w,
                // All zero: an even mix.
                MacroModel::MakeHuman1 if scale.is_nan() => 1.0 / 3.0,
                MacroModel::MakeHuman1 => w.clamp(0.0, 1.0) * scale,
            };
            (n.to_owned(), w)
        })
        .filter(|(_, w)| *w > 0.0)
        .collect()
}

/// Every macro target the phenotype weights, with its weight, in a fixed order: race x
/// gender x age, then universal, height, proportions and breast combinations. Files that do
/// not exist are the caller's to skip (some combinations have none).
pub fn macro_targets(
    phenotype: &Phenotype,
    model: MacroModel,
    spec: &MacroSpec,
) -> Vec<MacroTarget> {
    let w = |v: &str, x: f64| variable_weights(model, spec, v, x);
    let race = race_weights(model, phenotype.race);
    let gender = w("gender", phenotype.gender);
    let age = w("age", phenotype.age);
    let muscle = w("muscle", phenotype.muscle);
    let weight = w("weight", phenotype.weight);
    let height = w("height", phenotype.height);
    let proportions = w("proportions", phenotype.proportions);
    let cup = w("cupsize", phenotype.cupsize);
    let firmness = w("firmness", phenotype.firmness);
    let keep = |weight: f64| match model {
        MacroModel::Mpfb => weight > 0.01,
        MacroModel::MakeHuman1 => weight > 0.0,
    };
    let mut out = Vec::new();
    let mut push = |path: String, weight: f64| {
        if keep(weight) {
            out.push(MacroTarget { path, weight });
        }
    };
    for (r, rw) in &race {
        for (g, gw) in &gender {
            for (a, aw) in &age {
                push(format!("macrodetails/{r}-{g}-{a}"), rw * gw * aw);
            }
        }
    }
    // gender x age x muscle x weight, and the three families built on it.
    let mut base = Vec::new();
    for (g, gw) in &gender {
        for (a, aw) in &age {
            for (m, mw) in &muscle {
                for (wt, ww) in &weight {
                    base.push((
                        g.as_str(),
                        a.as_str(),
                        m.as_str(),
                        wt.as_str(),
                        gw * aw * mw * ww,
                    ));
                }
            }
        }
    }
    for &(g, a, m, wt, bw) in &base {
        push(format!("macrodetails/universal-{g}-{a}-{m}-{wt}"), bw);
    }
    for &(g, a, m, wt, bw) in &base {
        for (h, hw) in &height {
            push(format!("macrodetails/height/{g}-{a}-{m}-{wt}-{h}"), bw * hw);
        }
    }
    for &(g, a, m, wt, bw) in &base {
        for (p, pw) in &proportions {
            push(
                format!("macrodetails/proportions/{g}-{a}-{m}-{wt}-{p}"),
                bw * pw,
            );
        }
    }
    let female = gender
        .iter()
        .find(|(g, _)| g == "female")
        .map_or(0.0, |(_, w)| *w);
    if female > 0.0 {
        for (a, aw) in &age {
            for (m, mw) in &muscle {
                for (wt, ww) in &weight {
                    for (c, cw) in &cup {
                        for (f, fw) in &firmness {
                            let weight = aw * mw * ww * cw * fw;
                            let weight = match model {
                                MacroModel::Mpfb => weight,
                                MacroModel::MakeHuman1 => weight * female,
                            };
                            push(format!("breast/female-{a}-{m}-{wt}-{c}-{f}"), weight);
                        }
                    }
                }
            }
        }
    }
    out
}
