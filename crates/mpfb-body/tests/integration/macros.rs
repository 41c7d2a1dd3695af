//! Macro weights by both rules, against values computed by hand from the rules in
//! `../shared/design/makehuman-bodies.md` and MPFB's `macro.json`.

use mpfb_body::macros::{
    MacroModel, MacroSpec, Phenotype, macro_targets, race_weights, variable_weights,
};
use mpfb_body::{TargetIndex, read_target_file};

fn spec() -> Option<(MacroSpec, TargetIndex)> {
    let data = test_support::mpfb_data_or_skip("mpfb-body macro tests")?;
    let targets = data.join("targets");
    let text = std::fs::read_to_string(targets.join("macrodetails/macro.json")).unwrap();
    Some((
        MacroSpec::from_json(&text).unwrap(),
        TargetIndex::scan(&targets).unwrap(),
    ))
}

fn weights(model: MacroModel, spec: &MacroSpec, variable: &str, x: f64) -> Vec<(String, f64)> {
    variable_weights(model, spec, variable, x)
}

fn close(got: &[(String, f64)], expected: &[(&str, f64)]) -> bool {
    got.len() == expected.len()
        && got
            .iter()
            .zip(expected)
            .all(|((n, w), (m, v))| n == m && (w - v).abs() < 1e-12)
}

#[test]
fn mpfb_rule_by_hand() {
    let Some((spec, _)) = spec() else { return };
    let m = MacroModel::Mpfb;
    // gender part (-0.01, 1.01): p = (x + 0.01) / 1.02, rounded to 4 decimals.
    assert!(close(
        &weights(m, &spec, "gender", 0.5),
        &[("female", 0.5), ("male", 0.5)]
    ));
    assert!(close(
        &weights(m, &spec, "gender", 0.0),
        &[("female", 0.9902), ("male", 0.0098)]
    ));
    assert!(close(
        &weights(m, &spec, "gender", 1.0),
        &[("female", 0.0098), ("male", 0.9902)]
    ));
    // age: (-0.01, 0.1874998) baby/child, (0.1874999, 0.49998) child/young, (0.49999, 1.01) young/old.
    assert!(close(
        &weights(m, &spec, "age", 0.0),
        &[("baby", 0.9494), ("child", 0.0506)]
    ));
    assert!(close(
        &weights(m, &spec, "age", 0.5),
        &[("young", 1.0), ("old", 0.0)]
    ));
    assert!(close(
        &weights(m, &spec, "age", 1.0),
        &[("young", 0.0196), ("old", 0.9804)]
    ));
    assert!(close(
        &weights(m, &spec, "age", 0.1875),
        &[("child", 1.0), ("young", 0.0)]
    ));
    // At a part boundary (bounds are exclusive) no name gets anything: MPFB's own behaviour.
    assert!(weights(m, &spec, "age", 0.49999).is_empty());
    // height: (-0.01, 0.49) minheight, (0.51, 1.01) maxheight; 0.5 is between the parts.
    assert!(weights(m, &spec, "height", 0.5).is_empty());
    assert!(close(
        &weights(m, &spec, "height", 1.0),
        &[("maxheight", 0.98)]
    ));
    assert!(close(
        &weights(m, &spec, "height", 0.0),
        &[("minheight", 0.98)]
    ));
    // proportions: (0.5, 1.01) idealproportions: p = 0.5 / 0.51.
    assert!(weights(m, &spec, "proportions", 0.5).is_empty());
    assert!(close(
        &weights(m, &spec, "proportions", 1.0),
        &[("idealproportions", 0.9804)]
    ));
    // firmness: (0.4999, 1.01): p = 0.0001 / 0.5101.
    assert!(close(
        &weights(m, &spec, "firmness", 0.5),
        &[("averagefirmness", 0.9998), ("maxfirmness", 0.0002)]
    ));
    // Race as given, not normalised.
    let race = race_weights(
        m,
        mpfb_body::Race {
            african: 0.5,
            asian: 0.5,
            caucasian: 0.5,
        },
    );
    assert!(close(
        &race,
        &[("african", 0.5), ("asian", 0.5), ("caucasian", 0.5)]
    ));
}

#[test]
fn makehuman1_rule_by_hand() {
    let spec = MacroSpec::default(); // the closed formulas need no macro.json
    let m = MacroModel::MakeHuman1;
    assert!(close(
        &weights(m, &spec, "gender", 0.2),
        &[("female", 0.8), ("male", 0.2)]
    ));
    // age < 0.5: baby = 1 - 5.333a, young = (a - 0.1875) * 3.2, child = min(1, 5.333a) - young.
    let baby = 1.0 - 5.333 * 0.1;
    assert!(close(
        &weights(m, &spec, "age", 0.1),
        &[("baby", baby), ("child", 5.333 * 0.1)]
    ));
    let young = (0.25 - 0.1875) * 3.2;
    assert!(close(
        &weights(m, &spec, "age", 0.25),
        &[("child", 1.0 - young), ("young", young)]
    ));
    assert!(close(
        &weights(m, &spec, "age", 0.75),
        &[("young", 0.5), ("old", 0.5)]
    ));
    assert!(close(&weights(m, &spec, "age", 1.0), &[("old", 1.0)]));
    assert!(close(&weights(m, &spec, "age", 0.0), &[("baby", 1.0)]));
    assert!(close(
        &weights(m, &spec, "muscle", 0.75),
        &[("averagemuscle", 0.5), ("maxmuscle", 0.5)]
    ));
    assert!(close(
        &weights(m, &spec, "weight", 0.25),
        &[("minweight", 0.5), ("averageweight", 0.5)]
    ));
    assert!(weights(m, &spec, "height", 0.5).is_empty());
    assert!(close(
        &weights(m, &spec, "height", 0.0),
        &[("minheight", 1.0)]
    ));
    assert!(close(
        &weights(m, &spec, "proportions", 1.0),
        &[("idealproportions", 1.0)]
    ));
    // Out of range is clamped.
    assert!(close(&weights(m, &spec, "gender", 1.5), &[("male", 1.0)]));
    // Race normalised; all zero is an even mix.
    let race = race_weights(
        m,
        mpfb_body::Race {
            african: 1.0,
            asian: 1.0,
            caucasian: 0.0,
        },
    );
    assert!(close(&race, &[("african", 0.5), ("asian", 0.5)]));
    let race = race_weights(
        m,
        mpfb_body::Race {
            african: 0.0,
            asian: 0.0,
            caucasian: 0.0,
        },
    );
    assert_eq!(race.len(), 3);
    // A man at the defaults: race x male x young, universal male-young-average-average, no
    // height, proportions or breast targets (no female component).
    let phenotype = Phenotype {
        gender: 1.0,
        ..Phenotype::default()
    };
    let targets = macro_targets(&phenotype, m, &spec);
    let got: Vec<(&str, f64)> = targets
        .iter()
        .map(|t| (t.path.as_str(), t.weight))
        .collect();
    let third = 1.0 / 3.0;
    assert_eq!(got.len(), 4, "{got:?}");
    for (path, weight) in [
        ("macrodetails/african-male-young", third),
        ("macrodetails/asian-male-young", third),
        ("macrodetails/caucasian-male-young", third),
        (
            "macrodetails/universal-male-young-averagemuscle-averageweight",
            1.0,
        ),
    ] {
        assert!(
            got.iter()
                .any(|&(p, w)| p == path && (w - weight).abs() < 1e-12),
            "{path}: {got:?}"
        );
    }
}

#[test]
fn mpfb_default_phenotype_applies_exactly_the_six_young_race_targets() {
    let Some((spec, index)) = spec() else { return };
    let targets = macro_targets(&Phenotype::default(), MacroModel::Mpfb, &spec);
    // Targets that exist and move something: the six {race}-{gender}-young at 1/3 x 0.5 x 1.
    let mut moving = Vec::new();
    for t in &targets {
        let Some(path) = index.at(&t.path) else {
            continue;
        };
        if !read_target_file(&path).unwrap().is_empty() {
            moving.push((t.path.clone(), t.weight));
        }
    }
    moving.sort_by(|a, b| a.0.cmp(&b.0));
    let expected: Vec<(String, f64)> = ["african", "asian", "caucasian"]
        .iter()
        .flat_map(|r| {
            ["female", "male"].map(|g| (format!("macrodetails/{r}-{g}-young"), 1.0 / 6.0))
        })
        .collect();
    assert_eq!(moving.len(), 6, "{moving:?}");
    for ((p, w), (q, v)) in moving.iter().zip(&expected) {
        assert_eq!(p, q);
        assert!((w - v).abs() < 1e-12, "{p}: {w}");
    }
    // The others the rule names are empty or missing files (universal average-average is
    // empty, breast average-average does not exist), and the 0.0002 firmness one is cut.
    assert!(targets.iter().all(|t| t.weight > 0.01));
}

#[test]
fn mpfb_extremes_weight_every_family() {
    let Some((spec, index)) = spec() else { return };
    let tall_heavy = Phenotype {
        gender: 1.0,
        age: 0.5,
        muscle: 1.0,
        weight: 1.0,
        height: 1.0,
        proportions: 1.0,
        ..Phenotype::default()
    };
    let targets = macro_targets(&tall_heavy, MacroModel::Mpfb, &spec);
    let get = |p: &str| targets.iter().find(|t| t.path == p).map(|t| t.weight);
    // male 0.9902 x young 1 x maxmuscle 0.9804 x maxweight 0.9804, times maxheight 0.98.
    let base = 0.9902 * 1.0 * 0.9804 * 0.9804;
    let universal = get("macrodetails/universal-male-young-maxmuscle-maxweight").unwrap();
    assert!((universal - base).abs() < 1e-12);
    let height = get("macrodetails/height/male-young-maxmuscle-maxweight-maxheight").unwrap();
    assert!((height - base * 0.98).abs() < 1e-12);
    let ideal =
        get("macrodetails/proportions/male-young-maxmuscle-maxweight-idealproportions").unwrap();
    assert!((ideal - base * 0.9804).abs() < 1e-12);
    // The female side is below the cut-off everywhere but breast, which has no gender factor.
    assert!(get("macrodetails/universal-female-young-maxmuscle-maxweight").is_none());
    assert!(targets.iter().any(|t| {
        t.path
            .starts_with("breast/female-young-maxmuscle-maxweight")
    }));
    // Every weighted file the rule names for this body exists.
    for t in &targets {
        if !t.path.starts_with("breast/") || !t.path.ends_with("averagecup-averagefirmness") {
            assert!(index.at(&t.path).is_some(), "{} has no file", t.path);
        }
    }
}
