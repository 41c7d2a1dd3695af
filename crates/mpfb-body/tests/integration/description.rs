//! A `.mhm` we wrote (`fixtures/bodies/ada.mhm`) becomes base.obj plus exactly the targets its
//! modifiers name, vertex by vertex.

use mpfb_body::macros::{MacroModel, MacroSpec, macro_targets};
use mpfb_body::{TargetIndex, morph, parse_mhm, read_target_file};

#[test]
fn an_mhm_body_is_the_base_plus_the_targets_it_names() {
    let data = test_support::mpfb_data_or_skip!(an_mhm_body_is_the_base_plus_the_targets_it_names);
    let targets = data.join("targets");
    let index = TargetIndex::scan(&targets).unwrap();
    let spec = MacroSpec::from_json(
        &std::fs::read_to_string(targets.join("macrodetails/macro.json")).unwrap(),
    )
    .unwrap();
    let path = test_support::workspace_root().join("fixtures/bodies/ada.mhm");
    let description = parse_mhm(&std::fs::read_to_string(&path).unwrap()).unwrap();
    assert_eq!(description.rig.as_deref(), Some("game_engine"));
    // Everything it says is converted; its skin is MakeHuman's default (litsphere) skin.
    assert!(
        description.not_converted.is_empty(),
        "{:?}",
        description.not_converted
    );
    assert_eq!(
        description.skin.as_ref().map(|s| s.file.as_str()),
        Some("skins/default.mhmat")
    );
    assert!(description.assets.is_empty());
    // The dressed fixture names one asset of every kind, by name and uuid, in file order.
    let dressed = test_support::workspace_root().join("fixtures/bodies/dressed.mhm");
    let dressed = parse_mhm(&std::fs::read_to_string(&dressed).unwrap()).unwrap();
    let assets: Vec<(&str, &str)> = dressed
        .assets
        .iter()
        .map(|a| (a.kind.name(), a.name.as_str()))
        .collect();
    assert_eq!(
        assets,
        [
            ("eyes", "HighPolyEyes"),
            ("eyebrows", "eyebrow011"),
            ("eyelashes", "Eyelashes02"),
            ("hair", "bob01"),
            ("teeth", "Teeth_Base"),
            ("tongue", "tongue01"),
            ("clothes", "female_casualsuit01"),
            ("clothes", "shoes02"),
        ]
    );
    assert!(dressed.assets.iter().all(|a| a.uuid.is_some()));
    assert_eq!(dressed.asset_materials[0].file, "eyes/materials/blue.mhmat");
    assert!(dressed.not_converted.is_empty());
    let resolved = description
        .resolve(&index, &spec, MacroModel::Mpfb)
        .unwrap();

    // Expected by hand: the macro targets of the phenotype, then head-age-decr at 0.4 (the
    // pair's negative side), l-upperarm-scale-depth-incr at 0.6; nose-hump at 0 adds nothing.
    let macros = macro_targets(&description.phenotype, MacroModel::Mpfb, &spec);
    let details = [("head-age-decr", 0.4), ("l-upperarm-scale-depth-incr", 0.6)];
    let expected_names: Vec<String> = macros
        .iter()
        .filter(|t| index.at(&t.path).is_some())
        .map(|t| t.path.clone())
        .chain(details.iter().map(|(n, _)| (*n).to_owned()))
        .collect();
    let names: Vec<&str> = resolved.iter().map(|w| w.name.as_str()).collect();
    assert_eq!(names, expected_names);
    assert!(
        resolved
            .iter()
            .any(|w| w.name.starts_with("macrodetails/height/"))
    );
    assert!(resolved.iter().any(|w| w.name.starts_with("breast/")));

    // base.obj's positions, morphed, against base + sum w * delta computed here.
    let base = mpfb_mesh::read_obj_file(&data.join("3dobjs/base.obj"))
        .unwrap()
        .positions;
    assert_eq!(base.len(), 19158);
    let loaded: Vec<(String, mpfb_body::Target, f64)> = resolved
        .iter()
        .map(|w| (w.name.clone(), read_target_file(&w.path).unwrap(), w.weight))
        .collect();
    let refs: Vec<(&str, &mpfb_body::Target, f64)> =
        loaded.iter().map(|(n, t, w)| (n.as_str(), t, *w)).collect();
    let body = morph(&base, &refs).unwrap();
    let mut expected = base.clone();
    for (_, target, weight) in &loaded {
        for (v, d) in target.deltas() {
            for k in 0..3 {
                expected[v as usize][k] += weight * f64::from(d[k]);
            }
        }
    }
    assert_eq!(body, expected, "vertex by vertex");
    // The detail targets did move their vertices.
    let head = &loaded[loaded.len() - 2].1;
    let (v, d) = head.deltas().next().unwrap();
    assert!(d.iter().any(|x| *x != 0.0));
    assert_ne!(body[v as usize], base[v as usize]);
}

#[test]
fn a_target_the_folder_lacks_is_reported_at_its_file_and_line() {
    let data = test_support::mpfb_data_or_skip!(
        a_target_the_folder_lacks_is_reported_at_its_file_and_line
    );
    let targets = data.join("targets");
    let index = TargetIndex::scan(&targets).unwrap();
    let spec = MacroSpec::from_json(
        &std::fs::read_to_string(targets.join("macrodetails/macro.json")).unwrap(),
    )
    .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("typo.mhm");
    std::fs::write(
        &path,
        "version v1.1.1\nmodifier nose/nose-humpp-decr|incr 0.5\n",
    )
    .unwrap();
    let description = mpfb_body::read_description(&path).unwrap();
    let err = description
        .resolve(&index, &spec, MacroModel::Mpfb)
        .unwrap_err()
        .to_string();
    assert!(
        err.ends_with(
            "typo.mhm:2:1: no target named `nose-humpp-incr` \
             (did you mean `nose-hump-incr`, `nose-hump-decr`, `nose-greek-incr`?)"
        ),
        "{err}"
    );
}
