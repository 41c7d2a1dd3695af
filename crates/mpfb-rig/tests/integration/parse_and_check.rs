//! Parsing all three layouts and every structural error, with exact positions.

use mpfb_rig::{RigErrorKind, RigLayout, RollStrategy, Strategy, parse_rig};

/// A minimal bone as JSON, with a given parent and head strategy object.
fn bone(parent: &str, head: &str) -> String {
    format!(
        r#"{{"head": {head}, "tail": {{"strategy": "VERTEX", "vertex_index": 1, "default_position": [0, 0, 1]}},
  "roll": 0.5, "parent": "{parent}", "use_connect": false, "use_inherit_rotation": true,
  "use_local_location": true, "inherit_scale": "FULL", "rigify": {{}}}}"#
    )
}

const CUBE: &str = r#"{"strategy": "CUBE", "cube_name": "joint-a", "default_position": [0, 0, 0]}"#;

#[test]
fn bare_layout_is_version_100_without_header() {
    let src = format!(
        r#"{{"root": {}, "child": {}}}"#,
        bone("", CUBE),
        bone("root", CUBE)
    );
    let rig = parse_rig(&src).unwrap();
    assert_eq!(rig.source_layout, RigLayout::Bare);
    assert_eq!(rig.bones.len(), 2);
    assert_eq!(rig.bones[0].parent, None);
    assert_eq!(rig.bones[1].parent.as_deref(), Some("root"));
    assert_eq!(rig.bones[0].roll, 0.5);
    assert_eq!(
        rig.bones[0].head.strategy,
        Strategy::Cube {
            cube_name: "joint-a".into()
        }
    );
    assert_eq!(rig.header.collections, None, "no layers, no collections");
}

#[test]
fn version_110_header_fields_and_unknown_keys_are_kept() {
    let src = format!(
        r#"{{"version": 110, "is_subrig": true, "scale_factor": 0.1, "collections": ["Torso"],
            "extra_bones": ["DEF-x"], "rigify_ui": {{"a": 1}}, "future_key": [1, 2],
            "bones": {{"root": {}}}}}"#,
        bone("", CUBE).replacen(
            "\"rigify\": {}",
            "\"rigify\": {}, \"my_tool\": {\"k\": true}",
            1
        )
    );
    let rig = parse_rig(&src).unwrap();
    assert_eq!(rig.source_layout, RigLayout::V110);
    assert!(rig.header.is_subrig);
    assert_eq!(rig.header.scale_factor, Some(0.1));
    assert_eq!(rig.header.collections, Some(vec!["Torso".to_owned()]));
    assert_eq!(rig.header.extra_bones, Some(vec!["DEF-x".to_owned()]));
    assert_eq!(rig.header.rigify_ui, Some(serde_json::json!({"a": 1})));
    assert_eq!(rig.header.extra["future_key"], serde_json::json!([1, 2]));
    assert_eq!(
        rig.bones[0].extra["my_tool"],
        serde_json::json!({"k": true})
    );
}

#[test]
fn version_100_layers_upgrade_like_mpfb() {
    let mut layers = vec![false; 32];
    layers[0] = true;
    layers[9] = true;
    layers[2] = true;
    let layers = serde_json::to_string(&layers).unwrap();
    let with_layers = bone("", CUBE).replacen(
        "\"rigify\": {}",
        &format!("\"rigify\": {{}}, \"layers\": {layers}"),
        1,
    );
    let src =
        format!(r#"{{"version": 100, "is_subrig": false, "bones": {{"root": {with_layers}}}}}"#);
    let rig = parse_rig(&src).unwrap();
    assert_eq!(rig.source_layout, RigLayout::V100);
    // Layer 1 is renamed "Bones" (no rigify_ui); names sort as Python strings do.
    assert_eq!(
        rig.bones[0].collections,
        Some(vec!["Bones".into(), "Layer 10".into(), "Layer 3".into()])
    );
    assert_eq!(
        rig.header.collections,
        Some(vec!["Bones".into(), "Layer 3".into(), "Layer 10".into()])
    );
}

#[test]
fn version_100_rigify_layer_parameters_become_collection_refs() {
    let mut fk = vec![false; 32];
    fk[4] = true;
    let rigify = format!(
        r#""rigify": {{"rigify_type": "limbs.super_limb", "rigify_parameters": {{"fk_layers": {}, "segments": 2}}}}"#,
        serde_json::to_string(&fk).unwrap()
    );
    let src = format!(
        r#"{{"version": 100, "is_subrig": false, "bones": {{"arm": {}}}}}"#,
        bone("", CUBE).replacen("\"rigify\": {}", &rigify, 1)
    );
    let rig = parse_rig(&src).unwrap();
    let params = rig.bones[0].rigify.rigify_parameters.as_ref().unwrap();
    assert_eq!(params["fk_coll_refs"], serde_json::json!(["Layer 5"]));
    // limbs.super_limb gets MPFB's default tweak layer (layer 2) when none is given.
    assert_eq!(params["tweak_coll_refs"], serde_json::json!(["Layer 2"]));
    assert_eq!(params["segments"], serde_json::json!(2));
    assert!(!params.contains_key("fk_layers"));
    assert_eq!(
        rig.header.collections,
        Some(vec!["Layer 2".into(), "Layer 5".into()])
    );
}

#[test]
fn all_strategies_and_roll_strategies_parse() {
    let ends = [
        (
            r#"{"strategy": "VERTEX", "vertex_index": 7, "default_position": [0,0,0], "offset": [0, 0.1, 0]}"#,
            Strategy::Vertex { vertex_index: 7 },
        ),
        (
            r#"{"strategy": "MEAN", "vertex_indices": [1, 2, 3], "default_position": [0,0,0]}"#,
            Strategy::Mean {
                vertex_indices: vec![1, 2, 3],
            },
        ),
        (
            r#"{"strategy": "XYZ", "vertex_indices": [4, 5, 6], "default_position": [0,0,0]}"#,
            Strategy::Xyz {
                vertex_indices: [4, 5, 6],
            },
        ),
        (
            r#"{"strategy": "DEFAULT", "default_position": [1,2,3]}"#,
            Strategy::Default,
        ),
    ];
    for (json, expected) in ends {
        let rig = parse_rig(&format!(r#"{{"b": {}}}"#, bone("", json))).unwrap();
        assert_eq!(rig.bones[0].head.strategy, expected);
    }
    let rolls = [
        (
            r#""roll_strategy": "ALIGN_Z_WORLD_Z""#,
            RollStrategy::AlignZWorldZ,
        ),
        (
            r#""roll_strategy": "ALIGN_X_WORLD_X""#,
            RollStrategy::AlignXWorldX,
        ),
        (
            r#""roll_strategy": "ALIGN_Z_REFERENCE_Z", "roll_reference_z": [0, -1, 0]"#,
            RollStrategy::AlignZReferenceZ {
                reference: [0.0, -1.0, 0.0],
            },
        ),
    ];
    for (json, expected) in rolls {
        let b = bone("", CUBE).replacen("\"rigify\": {}", &format!("\"rigify\": {{}}, {json}"), 1);
        let rig = parse_rig(&format!(r#"{{"b": {b}}}"#)).unwrap();
        assert_eq!(rig.bones[0].roll_strategy, Some(expected));
    }
}

fn error_of(src: &str) -> mpfb_rig::RigError {
    parse_rig(src).expect_err("must fail")
}

#[test]
fn unknown_strategy_names_the_bone_and_points_at_it() {
    let src = format!(
        "{{\n\"root\": {}\n}}",
        bone("", r#"{"strategy": "CUBBE", "default_position": [0,0,0]}"#)
    );
    let err = error_of(&src);
    assert!(
        matches!(&err.kind, RigErrorKind::UnknownStrategy { bone, strategy } if bone == "root" && strategy == "CUBBE"),
        "{err}"
    );
    assert_eq!(err.location.pointer.as_deref(), Some("/root/head/strategy"));
    assert_eq!(err.location.line_column, Some((2, 9)), "{err}");
}

#[test]
fn xyz_needs_exactly_three_indices() {
    let src = format!(
        r#"{{"version": 110, "is_subrig": false, "bones": {{"heel": {}}}}}"#,
        bone(
            "",
            r#"{"strategy": "XYZ", "vertex_indices": [1, 2], "default_position": [0,0,0]}"#
        )
    );
    let err = error_of(&src);
    assert!(
        matches!(
            &err.kind,
            RigErrorKind::XyzNeedsThreeIndices { found: 2, .. }
        ),
        "{err}"
    );
    assert_eq!(
        err.location.pointer.as_deref(),
        Some("/bones/heel/head/vertex_indices")
    );
}

#[test]
fn missing_parent_and_cycles_are_named() {
    let src = format!(r#"{{"a": {}}}"#, bone("ghost", CUBE));
    let err = error_of(&src);
    assert!(
        matches!(&err.kind, RigErrorKind::UnknownParent { bone, parent } if bone == "a" && parent == "ghost")
    );
    assert_eq!(err.location.pointer.as_deref(), Some("/a/parent"));

    let src = format!(
        r#"{{"a": {}, "b": {}, "c": {}}}"#,
        bone("c", CUBE),
        bone("a", CUBE),
        bone("b", CUBE)
    );
    let err = error_of(&src);
    let RigErrorKind::ParentCycle { cycle } = &err.kind else {
        panic!("{err}")
    };
    assert_eq!(cycle, &["a", "c", "b", "a"]);
    assert_eq!(err.to_string(), "/a/parent: parent cycle: a -> c -> b -> a");

    let src = format!(r#"{{"self": {}}}"#, bone("self", CUBE));
    assert!(matches!(
        &error_of(&src).kind,
        RigErrorKind::ParentCycle { .. }
    ));
}

#[test]
fn duplicate_bone_names_are_rejected_at_the_second_one() {
    let src = format!("{{\"a\": {},\n\"a\": {}}}", bone("", CUBE), bone("", CUBE));
    let err = error_of(&src);
    assert!(
        matches!(&err.kind, RigErrorKind::DuplicateKey { key } if key == "a"),
        "{err}"
    );
    assert_eq!(err.location.line_column, Some((4, 6)), "{err}");
}

#[test]
fn repeated_keys_anywhere_are_rejected() {
    // A repeated known field, a repeated unknown key, and a repeat inside a constraint.
    let with = |extra: &str| {
        bone("", CUBE).replacen("\"rigify\": {}", &format!("\"rigify\": {{}}, {extra}"), 1)
    };
    for (extra, pointer) in [
        (r#""roll": 2"#, "/a"),
        (r#""x": 1, "x": 2"#, "/a/x"),
        (
            r#""constraints": [{"type": "T", "name": "n", "k": 1, "k": 2}]"#,
            "/a/constraints/0/k",
        ),
    ] {
        let err = error_of(&format!(r#"{{"a": {}}}"#, with(extra)));
        assert!(
            matches!(
                &err.kind,
                RigErrorKind::DuplicateKey { .. } | RigErrorKind::Json(_)
            ),
            "{extra}: {err}"
        );
        assert!(err.to_string().contains("duplicate"), "{extra}: {err}");
        assert_eq!(
            err.location.pointer.as_deref(),
            Some(pointer),
            "{extra}: {err}"
        );
    }
}

#[test]
fn versions_mhskel_and_wrong_types_are_clear_errors() {
    let err = error_of(r#"{"version": 111, "bones": {}}"#);
    assert!(matches!(
        &err.kind,
        RigErrorKind::UnsupportedVersion { version: 111 }
    ));
    assert_eq!(err.location.pointer.as_deref(), Some("/version"));

    let err = error_of(r#"{"bones": {}, "joints": {}, "version": 110}"#);
    assert!(matches!(&err.kind, RigErrorKind::MhskelNotSupported));

    let err = error_of(r#"{"bones": {}}"#);
    assert!(matches!(&err.kind, RigErrorKind::MissingVersion));

    let err = error_of("[1, 2]");
    assert!(matches!(
        &err.kind,
        RigErrorKind::NotAnObject { found: "an array" }
    ));

    // A wrong JSON type deep in a bone: absolute line and column, and the bone's pointer.
    let src = format!(
        "{{\n  \"a\": {}\n}}",
        bone("", CUBE).replace("\"roll\": 0.5", "\"roll\": \"0.5\"")
    );
    let err = error_of(&src);
    assert!(matches!(&err.kind, RigErrorKind::Json(_)), "{err}");
    assert_eq!(err.location.line_column.map(|(l, _)| l), Some(3), "{err}");
    assert_eq!(err.location.pointer.as_deref(), Some("/a"));
    assert!(
        err.to_string()
            .contains("invalid type: string \"0.5\", expected f64"),
        "{err}"
    );

    // Truncated JSON.
    let err = error_of("{\"a\": {\"head\": ");
    assert!(matches!(&err.kind, RigErrorKind::Json(_)));
    assert_eq!(err.location.line_column, Some((1, 15)), "{err}");

    // A missing mandatory field.
    let src = format!(
        r#"{{"a": {}}}"#,
        bone("", CUBE).replace("\"use_connect\": false,", "")
    );
    assert!(
        error_of(&src)
            .to_string()
            .contains("missing field `use_connect`")
    );
}

#[test]
fn constraints_need_type_and_name() {
    let b = bone("", CUBE).replacen(
        "\"rigify\": {}",
        r#""rigify": {}, "constraints": [{"name": "c"}]"#,
        1,
    );
    let err = error_of(&format!(r#"{{"a": {b}}}"#));
    assert!(
        matches!(
            &err.kind,
            RigErrorKind::ConstraintField {
                index: 0,
                field: "type",
                ..
            }
        ),
        "{err}"
    );
    assert_eq!(
        err.location.pointer.as_deref(),
        Some("/a/constraints/0/type")
    );
}

#[test]
fn unknown_roll_strategy_is_an_error() {
    let b = bone("", CUBE).replacen(
        "\"rigify\": {}",
        r#""rigify": {}, "roll_strategy": "ALIGN_Y""#,
        1,
    );
    let err = error_of(&format!(r#"{{"a": {b}}}"#));
    assert!(
        matches!(&err.kind, RigErrorKind::UnknownRollStrategy { .. }),
        "{err}"
    );
}
