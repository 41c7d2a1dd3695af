//! Generated bodies: a manifest's `population` (a grid of phenotypes or seeded random ones)
//! and its wardrobe, drawn in a fixed order so a seed gives the same bodies everywhere.

use super::{BatchError, SettingsTable};
use crate::options::Settings;
use indexmap::IndexMap;
use makehuman_assets::AssetKind;
use serde::{Deserialize, Serialize};
use std::path::PathBuf;

/// The most jobs a population may generate: a typo in a grid must not allocate without bound.
pub const MAX_POPULATION: usize = 1_000_000;

/// Bodies generated from phenotypes: a `grid` (every combination of the listed values) or
/// `count` random phenotypes from a `seed`, each variable drawn uniformly from its `ranges`
/// entry. Variables not listed keep the settings' phenotype (or the defaults).
#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq)]
pub struct PopulationSpec {
    /// A rig file.
    pub rig: Option<PathBuf>,
    /// A rig name in the MPFB data folder (default `default`).
    pub rig_name: Option<String>,
    /// The base mesh (default: the data folder's base.obj).
    pub mesh: Option<PathBuf>,
    /// Weights (default: the rig's, with `rig_name`).
    pub weights: Option<PathBuf>,
    /// Output pattern: `{index}` and any phenotype variable (`{gender}`, two decimals).
    pub output: String,
    /// Values per variable; every combination is one body.
    pub grid: Option<IndexMap<String, Vec<f64>>>,
    /// How many random bodies.
    pub count: Option<usize>,
    /// The random seed (default 0): the same seed gives the same bodies everywhere.
    #[serde(default)]
    pub seed: u64,
    /// `[low, high]` per variable for random bodies.
    #[serde(default)]
    pub ranges: IndexMap<String, [f64; 2]>,
    /// Assets each body draws from lists, with the seed (grids and random bodies alike).
    #[serde(default)]
    pub draw: Option<Wardrobe>,
    /// Settings of every body (any key of [`Settings`]).
    #[serde(flatten)]
    pub settings: SettingsTable,
}

/// Lists a population's bodies draw their assets from: each body takes one entry of each
/// list (uniformly, from the population's seed and its index, so a shard draws what the
/// whole batch would). An entry is an asset name, uuid or file, or `none`; a `clothes` entry
/// is an outfit (a list of clothes worn together).
#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Wardrobe {
    /// Outfits.
    #[serde(default)]
    pub clothes: Vec<Vec<String>>,
    /// Hair.
    #[serde(default)]
    pub hair: Vec<String>,
    /// Eyebrows.
    #[serde(default)]
    pub eyebrows: Vec<String>,
    /// Eyelashes.
    #[serde(default)]
    pub eyelashes: Vec<String>,
    /// Eye materials.
    #[serde(default)]
    pub eye_material: Vec<String>,
    /// Skins (drawn after the others, so adding skins leaves the other draws as they were).
    #[serde(default)]
    pub skin: Vec<String>,
    /// MakeHuman expressions baked into the rest (names, `.mhpose` files or `none`; drawn
    /// after skins, so adding them leaves the draws above as they were).
    #[serde(default)]
    pub expression: Vec<String>,
    /// BVH poses baked into the rest (names, `.bvh` files or `none`; drawn last).
    #[serde(default)]
    pub pose: Vec<String>,
}

impl Wardrobe {
    /// Body `index`'s draw, written into its `settings`: one entry of each non-empty list.
    pub fn dress(&self, seed: u64, index: usize, settings: &mut Settings) {
        use rand::{Rng, SeedableRng};
        // Its own stream per body: the draw depends on the seed and the index only.
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed ^ 0x5741_5244_524f_4245);
        rng.set_stream(index as u64);
        let mut pick = |n: usize| rng.random_range(0..n);
        if !self.clothes.is_empty() {
            let outfit = &self.clothes[pick(self.clothes.len())];
            settings.clothes = std::iter::once("none".to_owned())
                .chain(outfit.iter().cloned())
                .collect();
            settings.drawn.push(AssetKind::Clothes.name());
        }
        let mut drawn = Vec::new();
        for (key, list, slot) in [
            (AssetKind::Hair.name(), &self.hair, &mut settings.hair),
            (
                AssetKind::Eyebrows.name(),
                &self.eyebrows,
                &mut settings.eyebrows,
            ),
            (
                AssetKind::Eyelashes.name(),
                &self.eyelashes,
                &mut settings.eyelashes,
            ),
            (
                "eye_material",
                &self.eye_material,
                &mut settings.eye_material,
            ),
            ("skin", &self.skin, &mut settings.skin),
            ("expression", &self.expression, &mut settings.expression),
            ("pose", &self.pose, &mut settings.pose),
        ] {
            if !list.is_empty() {
                *slot = Some(list[pick(list.len())].clone());
                drawn.push(key);
            }
        }
        settings.drawn.extend(drawn);
    }
}

/// The phenotypes of a population, each as `(variable, value)` pairs in the spec's order,
/// made one at a time as they are asked for: a million-body population costs nothing until
/// its bodies are used, and `--shard` keeps only its own.
pub struct Phenotypes<'s> {
    spec: &'s PopulationSpec,
    next: usize,
    total: usize,
    rng: Option<rand_chacha::ChaCha8Rng>,
}

impl Iterator for Phenotypes<'_> {
    type Item = Vec<(String, f64)>;
    fn next(&mut self) -> Option<Self::Item> {
        if self.next == self.total {
            return None;
        }
        let i = self.next;
        self.next += 1;
        match (&self.spec.grid, &mut self.rng) {
            (Some(grid), _) => {
                // Mixed radix, the last variable fastest (the order of nested loops).
                let mut rest = i;
                let mut values: Vec<(String, f64)> = grid
                    .iter()
                    .rev()
                    .map(|(name, values)| {
                        let v = values[rest % values.len()];
                        rest /= values.len();
                        (name.clone(), v)
                    })
                    .collect();
                values.reverse();
                Some(values)
            }
            (None, Some(rng)) => {
                use rand::Rng;
                Some(
                    self.spec
                        .ranges
                        .iter()
                        .map(|(name, [low, high])| {
                            let u: f64 = rng.random();
                            (name.clone(), low + (high - low) * u)
                        })
                        .collect(),
                )
            }
            (None, None) => None,
        }
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let left = self.total - self.next;
        (left, Some(left))
    }
}

impl ExactSizeIterator for Phenotypes<'_> {}

/// The phenotypes of a population (checked first: variables, ranges, and at most
/// [`MAX_POPULATION`] bodies).
pub fn population_phenotypes(spec: &PopulationSpec) -> Result<Phenotypes<'_>, BatchError> {
    let bad = |message: String| BatchError::Population(message);
    let check = |name: &str, value: f64| -> Result<(), BatchError> {
        if !mpfb_body::Phenotype::NAMES.contains(&name) {
            return Err(bad(format!(
                "unknown phenotype variable `{}`",
                location::text::excerpt(name, 40)
            )));
        }
        if !(0.0..=1.0).contains(&value) {
            return Err(bad(format!(
                "`{name}` value {} is outside [0, 1]",
                location::text::short_number(value)
            )));
        }
        Ok(())
    };
    match (&spec.grid, spec.count) {
        (Some(grid), None) => {
            let mut total: usize = 1;
            for (name, values) in grid {
                for &v in values {
                    check(name, v)?;
                }
                total = total
                    .checked_mul(values.len())
                    .filter(|&t| t <= MAX_POPULATION)
                    .ok_or_else(|| {
                        bad(format!("the grid has more than {MAX_POPULATION} bodies"))
                    })?;
            }
            Ok(Phenotypes {
                spec,
                next: 0,
                total,
                rng: None,
            })
        }
        (None, Some(count)) => {
            use rand::SeedableRng;
            if count > MAX_POPULATION {
                return Err(bad(format!("count {count} is above {MAX_POPULATION}")));
            }
            for (name, [low, high]) in &spec.ranges {
                check(name, *low)?;
                check(name, *high)?;
                if low > high {
                    return Err(bad(format!(
                        "`{name}` range [{}, {}] runs backwards",
                        location::text::short_number(*low),
                        location::text::short_number(*high)
                    )));
                }
            }
            // ChaCha8: the same stream for the same seed on every platform and release.
            Ok(Phenotypes {
                spec,
                next: 0,
                total: count,
                rng: Some(rand_chacha::ChaCha8Rng::seed_from_u64(spec.seed)),
            })
        }
        _ => Err(bad("give either `grid` or `count`".into())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_wardrobe_draws_skins_after_the_rest_so_earlier_draws_stay() {
        let mut wardrobe = Wardrobe {
            hair: vec!["a".into(), "b".into(), "c".into()],
            eyebrows: vec!["x".into(), "y".into()],
            ..Wardrobe::default()
        };
        let draws = |w: &Wardrobe| -> Vec<(Option<String>, Option<String>, Option<String>)> {
            (0..40)
                .map(|i| {
                    let mut settings = Settings::default();
                    w.dress(7, i, &mut settings);
                    (settings.hair, settings.eyebrows, settings.skin)
                })
                .collect()
        };
        let before = draws(&wardrobe);
        wardrobe.skin = vec!["young_caucasian_female".into(), "default".into()];
        let after = draws(&wardrobe);
        for (b, a) in before.iter().zip(&after) {
            assert_eq!((&b.0, &b.1), (&a.0, &a.1));
            assert!(a.2.is_some());
        }
        // Both skins are drawn somewhere in 40 bodies.
        assert!(after.iter().any(|a| a.2.as_deref() == Some("default")));
        assert!(
            after
                .iter()
                .any(|a| a.2.as_deref() == Some("young_caucasian_female"))
        );
    }

    #[test]
    fn populations_are_grids_or_seeded_random_phenotypes() {
        let grid: PopulationSpec = toml::from_str(
            r#"
            output = "out/{index}-{gender}.g4b"
            [grid]
            gender = [0.0, 1.0]
            height = [0.25, 0.5, 0.75]
            "#,
        )
        .unwrap();
        let bodies: Vec<_> = population_phenotypes(&grid).unwrap().collect();
        assert_eq!(bodies.len(), 6);
        assert_eq!(bodies[0], [("gender".into(), 0.0), ("height".into(), 0.25)]);
        assert_eq!(bodies[5], [("gender".into(), 1.0), ("height".into(), 0.75)]);
        let random = |seed: u64| {
            let spec: PopulationSpec = toml::from_str(&format!(
                "output = \"b{{index}}.g4b\"\ncount = 50\nseed = {seed}\n[ranges]\nage = [0.3, 0.8]\nweight = [0.0, 1.0]\n"
            ))
            .unwrap();
            population_phenotypes(&spec).unwrap().collect::<Vec<_>>()
        };
        let (a, b, c) = (random(7), random(7), random(8));
        assert_eq!(a, b, "the same seed gives the same bodies");
        assert_ne!(a, c);
        assert!(
            a.iter()
                .all(|p| (0.3..=0.8).contains(&p[0].1) && (0.0..=1.0).contains(&p[1].1))
        );
        // Every value differs: the draws are not stuck.
        assert!(a.windows(2).all(|w| w[0] != w[1]));
        for bad in [
            "output = \"x\"\n[grid]\nhair = [0.5]\n",
            "output = \"x\"\n[grid]\nage = [1.5]\n",
            "output = \"x\"\ncount = 2\n[ranges]\nage = [0.8, 0.3]\n",
            "output = \"x\"\n",
            "output = \"x\"\ncount = 2000000\n",
        ] {
            let spec: PopulationSpec = toml::from_str(bad).unwrap();
            assert!(population_phenotypes(&spec).is_err(), "{bad}");
        }
    }
}
