//! Reading, resolving and ordering weights: real MPFB files and hand-made cases.

#![allow(clippy::unwrap_used)] // Tests fail loudly by design.

use mpfb_weights::{
    BoneMap, DropReason, MatchRule, Resolution, RigBones, Skin, WeightsErrorKind, WeightsWarning,
    parse_bone_map, parse_weights, read_weights_file, resolve,
};
use proptest::prelude::*;
use std::collections::BTreeMap;

const BASE_VERTICES: usize = 19158;

#[test]
fn every_shipped_weights_file_resolves_with_add_semantics() {
    let data =
        test_support::mpfb_data_or_skip!(every_shipped_weights_file_resolves_with_add_semantics);
    // The weights of the rigs every data folder has (cmu_mb, default, game_engine, mixamo).
    let files: Vec<_> = test_support::test_rig_files(&data)
        .iter()
        .map(|rig| {
            let name = rig.file_name().unwrap().to_str().unwrap();
            rig.with_file_name(name.replacen("rig.", "weights.", 1))
        })
        .filter(|w| w.is_file())
        .collect();
    assert_eq!(files.len(), 4, "{files:?}");
    for path in files {
        let weights = read_weights_file(&path).unwrap_or_else(|e| panic!("{e}"));
        let rig_path = path.with_file_name(
            path.file_name()
                .unwrap()
                .to_str()
                .unwrap()
                .replacen("weights.", "rig.", 1),
        );
        let rig = mpfb_rig::read_rig_file(&rig_path).unwrap();
        let names: Vec<String> = rig.bones.iter().map(|b| b.name.clone()).collect();
        let extra = rig.header.extra_bones.clone().unwrap_or_default();
        let bones = RigBones {
            names: &names,
            extra_bones: &extra,
        };
        let resolution = resolve(&weights, bones, &BoneMap::new(), BASE_VERTICES).unwrap();

        // Every group of MPFB's own files is a bone of its rig.
        assert!(
            resolution.dropped.is_empty(),
            "{}: {:?}",
            path.display(),
            resolution.dropped
        );
        assert!(resolution.merges.is_empty());
        // Per-vertex totals of the input (ADD) equal the skin's, to f32 precision.
        let mut expected: BTreeMap<u32, f64> = BTreeMap::new();
        for group in &weights.groups {
            for &(v, w) in &group.pairs {
                *expected.entry(v).or_default() += w;
            }
        }
        let sums = resolution.skin.weight_sums();
        expected.retain(|_, w| *w != 0.0);
        assert_eq!(sums.len(), expected.len());
        for (v, total) in &expected {
            let got = sums[v];
            assert!(
                ((got as f32) - (*total as f32)).abs() <= f32::EPSILON * 4.0,
                "{v}: {got} vs {total}"
            );
        }
        // Pairs are kept one for one (no file repeats a vertex within a group).
        let nonzero = weights
            .groups
            .iter()
            .flat_map(|g| &g.pairs)
            .filter(|p| p.1 != 0.0)
            .count();
        assert_eq!(resolution.skin.len(), nonzero);
        assert_skin_order(&resolution.skin);
        let stats = resolution.skin.stats();
        assert_eq!(
            stats.vertices, BASE_VERTICES,
            "every vertex of base.obj is weighted"
        );
        assert_eq!(stats.histogram.iter().sum::<usize>(), BASE_VERTICES);
        if path.ends_with("weights.mixamo.json") {
            assert!(
                stats.min_weight_sum < 0.25 && stats.max_weight_sum > 1.9,
                "{stats:?}"
            );
        } else {
            assert!(
                stats.min_weight_sum > 0.999 && stats.max_weight_sum < 1.001,
                "{stats:?}"
            );
        }
    }
}

fn assert_skin_order(skin: &Skin) {
    for i in 1..skin.len() {
        let (v0, v1) = (skin.vertices[i - 1], skin.vertices[i]);
        assert!(v0 <= v1, "vertices ascending at {i}");
        if v0 == v1 {
            let (w0, w1) = (skin.weights[i - 1], skin.weights[i]);
            assert!(w0 >= w1, "weights descending at {i}");
            if w0 == w1 {
                assert!(skin.groups[i - 1] < skin.groups[i], "ties by group at {i}");
            }
        }
    }
}

/// Each merge as (group, bone, rule).
fn merges_of(r: &Resolution) -> Vec<(&str, &str, MatchRule)> {
    r.merges
        .iter()
        .map(|m| (m.group.as_str(), m.bone.as_str(), m.rule))
        .collect()
}

fn names(list: &[&str]) -> Vec<String> {
    list.iter().map(|s| (*s).to_owned()).collect()
}

#[test]
fn rigify_style_names_resolve_and_report() {
    let text = r#"{
        "name": "synthetic", "version": 110, "tool": {"k": 1},
        "weights": {
            "DEF-upper_arm.L": [[0, 0.5], [1, 0.25]],
            "DEF-upper_arm.L.001": [[1, 0.5], [2, 1.0]],
            "DEF-forearm.L": [[3, 0.75], [3, 0.25]],
            "spine": [[4, 1.0], [5, 0.0]],
            "DEF-eye_iris.L": [[6, 0.5], [7, 0.25], [6, 0.125]],
            "stray": [[8, 0.5]],
            "mhmask-shoes": [[9, 1.0], [9, 0.5], [10, 0.0]]
        }
    }"#;
    let weights = parse_weights(text).unwrap();
    assert_eq!(weights.name.as_deref(), Some("synthetic"));
    assert_eq!(weights.extra["tool"], serde_json::json!({"k": 1}));
    let bone_names = names(&["spine", "upper_arm.L", "forearm.L"]);
    let extra = names(&["DEF-eye_iris.L", "DEF-upper_arm.L.001"]);
    let bones = RigBones {
        names: &bone_names,
        extra_bones: &extra,
    };
    let r = resolve(&weights, bones, &BoneMap::new(), 11).unwrap();

    // DEF-upper_arm.L -> upper_arm.L (prefix), its .001 segment merged in (vertex 1 adds up).
    let merges = merges_of(&r);
    assert_eq!(
        merges,
        [
            ("DEF-upper_arm.L", "upper_arm.L", MatchRule::DefPrefix),
            ("DEF-upper_arm.L.001", "upper_arm.L", MatchRule::DefSegment),
            ("DEF-forearm.L", "forearm.L", MatchRule::DefPrefix),
        ]
    );
    let entries: Vec<(u32, u32, f64)> = (0..r.skin.len())
        .map(|i| (r.skin.vertices[i], r.skin.groups[i], r.skin.weights[i]))
        .collect();
    assert_eq!(
        entries,
        [
            (0, 1, 0.5),
            (1, 1, 0.75),
            (2, 1, 1.0),
            (3, 2, 1.0),
            (4, 0, 1.0)
        ],
        "ADD merges repeats and segments; zero weights are gone"
    );
    assert_eq!(r.zero_weights, 2);
    assert_eq!(
        r.repeated_pairs, 2,
        "vertex 1 of upper_arm and vertex 3 of forearm"
    );

    // The unresolvable extra bone is reported with its vertices and weight, then dropped.
    assert_eq!(r.dropped.len(), 2);
    assert_eq!(r.dropped[0].group, "DEF-eye_iris.L");
    assert_eq!(r.dropped[0].reason, DropReason::UnresolvedExtraBone);
    assert_eq!(r.dropped[0].vertices, 2);
    assert_eq!(r.dropped[0].total_weight, 0.875);
    assert_eq!(r.dropped[1].group, "stray");
    assert_eq!(r.dropped[1].reason, DropReason::NotInRig);
    assert_eq!(
        r.warnings,
        [WeightsWarning::UnknownBone {
            group: "stray".into()
        }]
    );

    // Masks are kept apart, zeros dropped, repeats added.
    assert_eq!(r.masks.len(), 1);
    assert_eq!(r.masks[0].pairs, [(9, 1.5)]);

    // A user bone map rescues the extra bone.
    let map = parse_bone_map(r#"{"DEF-eye_iris.L": "spine"}"#).unwrap();
    let r = resolve(&weights, bones, &map, 11).unwrap();
    assert_eq!(r.dropped.len(), 1);
    assert!(
        r.merges
            .iter()
            .any(|m| m.group == "DEF-eye_iris.L" && m.rule == MatchRule::BoneMap)
    );
    let sums = r.skin.weight_sums();
    assert_eq!(sums[&6], 0.625);
    assert_eq!(sums[&7], 0.25);

    // ... but not by sending it to a bone that does not exist.
    let map = parse_bone_map(r#"{"DEF-eye_iris.L": "eye.L"}"#).unwrap();
    let err = resolve(&weights, bones, &map, 11).unwrap_err();
    assert!(
        matches!(err.kind, WeightsErrorKind::BoneMapTargetMissing { .. }),
        "{err}"
    );
}

#[test]
fn vertex_out_of_range_points_at_the_pair() {
    let weights = parse_weights(r#"{"weights": {"a/b": [[0, 1.0], [12, 1.0]]}}"#).unwrap();
    let bone_names = names(&["a/b"]);
    let bones = RigBones {
        names: &bone_names,
        extra_bones: &[],
    };
    let err = resolve(&weights, bones, &BoneMap::new(), 12).unwrap_err();
    assert!(matches!(
        err.kind,
        WeightsErrorKind::VertexOutOfRange {
            vertex: 12,
            vertex_count: 12,
            ..
        }
    ));
    assert_eq!(err.location.to_string(), "/weights/a~1b/1");
}

#[test]
fn weights_above_one_are_warnings() {
    let weights = parse_weights(r#"{"weights": {"a": [[0, 1.5]]}}"#).unwrap();
    let bone_names = names(&["a"]);
    let r = resolve(
        &weights,
        RigBones {
            names: &bone_names,
            extra_bones: &[],
        },
        &BoneMap::new(),
        1,
    )
    .unwrap();
    assert!(matches!(
        &r.warnings[..],
        [WeightsWarning::WeightAboveOne { vertex: 0, .. }]
    ));
}

#[test]
fn malformed_input_is_located() {
    // Positions are the token's first or last character, as serde_json reports them.
    let cases: &[(&str, &str, &str)] = &[
        (
            "{\"weights\": {\"a\": [[0, NaN]]}}",
            "1:24",
            "weight `NaN` is not a finite number",
        ),
        (
            "{\"weights\": {\"a\": [[0, Infinity]]}}",
            "1:24",
            "weight `Infinity` is not a finite number",
        ),
        (
            "{\"weights\": {\"a\": [[0, -Infinity]]}}",
            "1:25",
            "weight `-Infinity` is not a finite number",
        ),
        (
            "{\"weights\": {\"a\": [[0, 1e999]]}}",
            "1:28",
            "weight `1e999` is not a finite number",
        ),
        (
            "{\"weights\": {\"a\": [[3, -0.5]]}}",
            "1:28",
            "group `a`: vertex 3 has a negative weight -0.5",
        ),
        (
            "{\"weights\": {\"a\": [[1.5, 0.5]]}}",
            "1:23",
            "floating point `1.5`, expected u32",
        ),
        (
            "{\"weights\": {\"a\": [[-1, 0.5]]}}",
            "1:22",
            "integer `-1`, expected u32",
        ),
        (
            "{\"weights\": {\"a\": [[1, \"x\"]]}}",
            "1:26",
            "string \"x\", expected f64",
        ),
        ("{\"weights\": {\"a\": [[1]]}}", "1:22", "invalid length 1"),
        (
            "{\"weights\": {\"a\": [[1, 0.5, 2]]}}",
            "1:30",
            "invalid length 3",
        ),
        (
            "{\"weights\": {\"a\": [], \"a\": []}}",
            "1:25",
            "duplicate key `a`",
        ),
        (
            "{\"weights\": {}, \"weights\": {}}",
            "1:25",
            "duplicate key `weights`",
        ),
        (
            "{\"weights\": {\"a\": [[1, 0.5]",
            "1:27",
            "EOF while parsing",
        ),
        ("{\"name\": \"x\"}", "1:1", "no `weights` object"),
        (
            "{\"tool\": {\"a\": 1, \"a\": 2}, \"weights\": {}}",
            "1:25",
            "duplicate key `tool/a`",
        ),
    ];
    for (text, position, message) in cases {
        let err = parse_weights(text).unwrap_err();
        assert_eq!(&err.location.to_string(), position, "{text}: {err}");
        assert!(err.to_string().contains(message), "{text}: {err}");
    }
}

#[test]
fn bone_maps_reject_repeats_and_non_strings() {
    let err = parse_bone_map(r#"{"a": "x", "a": "y"}"#).unwrap_err();
    assert!(
        matches!(err.kind, WeightsErrorKind::DuplicateKey { .. }),
        "{err}"
    );
    assert!(parse_bone_map(r#"{"a": 1}"#).is_err());
}

#[test]
fn remap_follows_body_extraction() {
    let skin = Skin::from_influences(vec![(0, 0, 1.0), (2, 1, 0.5), (2, 0, 0.5), (3, 0, 1.0)]);
    // Keep vertices 0 and 2 (as 0 and 1), drop 1 and 3.
    let (kept, dropped) = skin.remap(&[Some(0), None, Some(1), None]);
    assert_eq!(dropped, 1);
    assert_eq!(kept.vertices, [0, 1, 1]);
    assert_eq!(kept.groups, [0, 0, 1], "tie at 0.5 broken by group index");
    assert_eq!(kept.unweighted_vertices(3), [2]);
}

proptest! {
    #[test]
    fn skins_are_ordered_and_keep_every_weight(
        influences in prop::collection::vec((0u32..40, 0u32..6, prop_oneof![Just(0.25f64), 0.0f64..1.0]), 0..300)
    ) {
        let skin = Skin::from_influences(influences.clone());
        assert_skin_order(&skin);
        // Each (vertex, group) once, carrying the sum of its inputs.
        let mut expected: BTreeMap<(u32, u32), f64> = BTreeMap::new();
        for &(v, g, w) in &influences {
            *expected.entry((v, g)).or_default() += w;
        }
        prop_assert_eq!(skin.len(), expected.len());
        for i in 0..skin.len() {
            let want = expected[&(skin.vertices[i], skin.groups[i])];
            prop_assert!((skin.weights[i] - want).abs() < 1e-12);
        }
        let stats = skin.stats();
        prop_assert_eq!(stats.pairs, skin.len());
        prop_assert_eq!(stats.histogram.iter().skip(1).sum::<usize>(), stats.vertices);
    }
}

/// Inputs the fuzzer once crashed on (fixtures/fuzz-regressions/weights_json): each must give
/// a located error or a value, never a panic.
#[test]
fn fuzz_regressions_do_not_panic() {
    let dir = test_support::workspace_root().join("fixtures/fuzz-regressions/weights_json");
    let mut count = 0;
    for entry in std::fs::read_dir(&dir).unwrap().flatten() {
        let bytes = std::fs::read(entry.path()).unwrap();
        let text = String::from_utf8_lossy(&bytes);
        let _ = parse_weights(&text);
        let _ = parse_bone_map(&text);
        count += 1;
    }
    assert!(count > 0, "no regression inputs in {}", dir.display());
    // The first one: a multi-byte character right where serde reports the error column.
    let err = parse_weights("{\"cpyr\u{16b}\u{0}\n{").unwrap_err();
    assert!(err.location.to_string().starts_with("1:"), "{err}");
}

/// Rigify derives deform bones from a metarig bone with a suffix before the side
/// (`DEF-eye_master.L` from `eye.L`); their groups feed that bone (MPFB's Rigify weights move
/// the eyeballs by `DEF-eye_master.L`/`.R` alone).
#[test]
fn rigify_derived_deform_names_feed_the_metarig_bone() {
    let text = r#"{"weights": {
        "DEF-eye_master.L": [[0, 1.0]],
        "DEF-eye_iris.R.001": [[1, 0.5]],
        "DEF-jaw_master": [[2, 1.0]],
        "DEF-nose_tip.L": [[3, 1.0]]
    }}"#;
    let weights = parse_weights(text).unwrap();
    let bone_names = names(&["eye.L", "eye.R.001", "jaw"]);
    let bones = RigBones {
        names: &bone_names,
        extra_bones: &[],
    };
    let r = resolve(&weights, bones, &BoneMap::new(), 4).unwrap();
    let merges = merges_of(&r);
    assert_eq!(
        merges,
        [
            ("DEF-eye_master.L", "eye.L", MatchRule::DefDerived),
            ("DEF-eye_iris.R.001", "eye.R.001", MatchRule::DefDerived),
            ("DEF-jaw_master", "jaw", MatchRule::DefDerived),
        ]
    );
    // `nose.L` is not a bone: the group is reported, not sent elsewhere.
    assert_eq!(r.dropped.len(), 1);
    assert_eq!(r.dropped[0].group, "DEF-nose_tip.L");
    assert_eq!(r.skin.len(), 3);
}
