//! MakeHuman's JSON pose files read strictly: `.mhpose` expressions (face pose-unit weights),
//! the face pose units' frame names (`face-poseunits.json`), and `.mhskel` skeletons. A
//! repeated key is refused at its JSON pointer (which value was meant is unknown); a field of
//! the wrong type is an error at its pointer, never dropped.

use crate::error::{PoseError, PoseErrorKind, quoted};
use location::Location;
use serde_json::{Map, Value};

/// Entries of one map or list at most (the default skeleton has 163 bones and 326 joints; an
/// expression names about ten units).
pub const MAX_ENTRIES: usize = 100_000;

fn parse_object(text: &str, what: &str) -> Result<Map<String, Value>, PoseError> {
    let text = location::text::strip_bom(text);
    if let Some(dup) = json_strict::first_duplicate_key(text) {
        return Err(PoseError::new(
            Location::pointer(dup.pointer()),
            PoseErrorKind::Repeated {
                name: quoted(&dup.key),
                first: 0,
            },
        ));
    }
    let value: Value = serde_json::from_str(text).map_err(|e| {
        PoseError::new(
            Location::line_column(e.line(), e.column()),
            PoseErrorKind::Json(e.to_string()),
        )
    })?;
    match value {
        Value::Object(map) => Ok(map),
        _ => Err(PoseError::new(
            Location::pointer(""),
            PoseErrorKind::Malformed(format!("{what} is a JSON object")),
        )),
    }
}

fn wrong(pointer: &str, expected: &str) -> PoseError {
    PoseError::new(
        Location::pointer(pointer),
        PoseErrorKind::Malformed(format!("expected {expected}")),
    )
}

fn string_at(map: &Map<String, Value>, key: &str, at: &str) -> Result<Option<String>, PoseError> {
    match map.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(_) => Err(wrong(
            &format!("{at}/{}", location::pointer_token(key)),
            "a string",
        )),
    }
}

fn bounded<T>(items: &[T], pointer: &str) -> Result<(), PoseError> {
    if items.len() > MAX_ENTRIES {
        return Err(PoseError::new(
            Location::pointer(pointer),
            PoseErrorKind::TooLarge(format!("more than {MAX_ENTRIES} entries")),
        ));
    }
    Ok(())
}

/// A MakeHuman expression (`.mhpose`): a weight per face pose unit.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct MhPose {
    /// `name`.
    pub name: Option<String>,
    /// `unit_poses`: unit name and weight, in file order; weights finite.
    pub unit_poses: Vec<(String, f64)>,
    /// `tags`.
    pub tags: Vec<String>,
    /// `license`.
    pub license: Option<String>,
}

/// Reads a `.mhpose` file's text. `unit_poses` is required; each weight a finite number
/// (MakeHuman's are in [0, 1]; others are allowed and said by the caller when used).
pub fn parse_mhpose(text: &str) -> Result<MhPose, PoseError> {
    let map = parse_object(text, "an expression")?;
    let units = match map.get("unit_poses") {
        Some(Value::Object(units)) => units,
        Some(_) => return Err(wrong("/unit_poses", "an object of unit weights")),
        None => {
            return Err(PoseError::new(
                Location::pointer(""),
                PoseErrorKind::Missing("`unit_poses`".into()),
            ));
        }
    };
    if units.len() > MAX_ENTRIES {
        return Err(PoseError::new(
            Location::pointer("/unit_poses"),
            PoseErrorKind::TooLarge(format!("more than {MAX_ENTRIES} units")),
        ));
    }
    let mut unit_poses = Vec::with_capacity(units.len());
    for (unit, weight) in units {
        let at = format!("/unit_poses/{}", location::pointer_token(unit));
        match weight.as_f64() {
            Some(w) if w.is_finite() => unit_poses.push((unit.clone(), w)),
            _ => return Err(wrong(&at, "a finite number")),
        }
    }
    let tags = match map.get("tags") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(tags)) => {
            bounded(tags, "/tags")?;
            tags.iter()
                .enumerate()
                .map(|(i, t)| {
                    t.as_str()
                        .map(str::to_owned)
                        .ok_or_else(|| wrong(&format!("/tags/{i}"), "a string"))
                })
                .collect::<Result<_, _>>()?
        }
        Some(_) => return Err(wrong("/tags", "a list of strings")),
    };
    Ok(MhPose {
        name: string_at(&map, "name", "")?,
        unit_poses,
        tags,
        license: string_at(&map, "license", "")?,
    })
}

/// An MPFB expression (MPFB's expression JSON, `docs/fileformats/expression.md`): a weight per
/// ARKit face unit, which MPFB applies as the face-unit targets' shape keys.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct MpfbExpression {
    /// `name`.
    pub name: Option<String>,
    /// `face_units`: unit name and weight, in file order; weights finite.
    pub face_units: Vec<(String, f64)>,
}

/// Reads an MPFB expression's text. `face_units` is required, each weight a finite number
/// (MPFB's are in [0, 1]); `format_version`, when given, is 1; other keys (`description`,
/// `tags`, `author`, `license`, ...) are MPFB's metadata and not read.
pub fn parse_mpfb_expression(text: &str) -> Result<MpfbExpression, PoseError> {
    let map = parse_object(text, "an MPFB expression")?;
    match map.get("format_version") {
        None | Some(Value::Null) => {}
        Some(v) if v.as_f64() == Some(1.0) => {}
        Some(_) => return Err(wrong("/format_version", "format version 1")),
    }
    let units = match map.get("face_units") {
        Some(Value::Object(units)) => units,
        Some(_) => return Err(wrong("/face_units", "an object of face-unit weights")),
        None => {
            return Err(PoseError::new(
                Location::pointer(""),
                PoseErrorKind::Missing("`face_units`".into()),
            ));
        }
    };
    if units.len() > MAX_ENTRIES {
        return Err(PoseError::new(
            Location::pointer("/face_units"),
            PoseErrorKind::TooLarge(format!("more than {MAX_ENTRIES} face units")),
        ));
    }
    let mut face_units = Vec::with_capacity(units.len());
    for (unit, weight) in units {
        let at = format!("/face_units/{}", location::pointer_token(unit));
        match weight.as_f64() {
            Some(w) if w.is_finite() => face_units.push((unit.clone(), w)),
            _ => return Err(wrong(&at, "a finite number")),
        }
    }
    Ok(MpfbExpression {
        name: string_at(&map, "name", "")?,
        face_units,
    })
}

/// Reads the face pose units' frame names (`face-poseunits.json`: `framemapping`, frame 0
/// `Rest`). Names must be unique.
pub fn parse_unit_names(text: &str) -> Result<Vec<String>, PoseError> {
    let map = parse_object(text, "a pose-unit list")?;
    let Some(Value::Array(frames)) = map.get("framemapping") else {
        return Err(wrong("/framemapping", "a list of frame names"));
    };
    bounded(frames, "/framemapping")?;
    let mut names: Vec<String> = Vec::with_capacity(frames.len());
    for (i, frame) in frames.iter().enumerate() {
        let Some(name) = frame.as_str() else {
            return Err(wrong(&format!("/framemapping/{i}"), "a string"));
        };
        if let Some(first) = names.iter().position(|n| n == name) {
            return Err(PoseError::new(
                Location::pointer(format!("/framemapping/{i}")),
                PoseErrorKind::Malformed(format!(
                    "frame name `{}` is given again (first at /framemapping/{first})",
                    quoted(name)
                )),
            ));
        }
        names.push(name.to_owned());
    }
    if names.is_empty() {
        return Err(PoseError::new(
            Location::pointer("/framemapping"),
            PoseErrorKind::Missing("a frame name".into()),
        ));
    }
    Ok(names)
}

/// One bone of a `.mhskel`.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct SkelBone {
    /// Its name.
    pub name: String,
    /// The joint its head sits on (a key of [`MhSkel::joints`]).
    pub head: String,
    /// The joint its tail sits on.
    pub tail: String,
    /// Its parent bone.
    pub parent: Option<String>,
    /// The plane (a key of [`MhSkel::planes`]) its roll is computed from.
    pub rotation_plane: Option<String>,
    /// Its roll, radians, when given instead of a plane.
    pub roll: Option<f64>,
    /// The default skeleton's bones it stands for (alternative skeletons).
    pub reference: Vec<String>,
    /// The default skeleton's bones whose weights it takes.
    pub weights_reference: Vec<String>,
}

/// A MakeHuman skeleton (`.mhskel`).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct MhSkel {
    /// `name`.
    pub name: Option<String>,
    /// `version`.
    pub version: Option<f64>,
    /// The bones, in file order.
    pub bones: Vec<SkelBone>,
    /// Each joint's base-mesh vertices (their mean is the joint), by joint name.
    pub joints: std::collections::BTreeMap<String, Vec<u32>>,
    /// Each plane's three joints, by plane name.
    pub planes: std::collections::BTreeMap<String, [String; 3]>,
    /// `weights_file`: the weights made for it.
    pub weights_file: Option<String>,
}

fn names_at(value: Option<&Value>, at: &str) -> Result<Vec<String>, PoseError> {
    match value {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(Value::String(s)) => Ok(vec![s.clone()]),
        Some(Value::Array(items)) => {
            bounded(items, at)?;
            items
                .iter()
                .enumerate()
                .map(|(i, v)| {
                    v.as_str()
                        .map(str::to_owned)
                        .ok_or_else(|| wrong(&format!("{at}/{i}"), "a bone name"))
                })
                .collect()
        }
        Some(_) => Err(wrong(at, "a bone name or a list of them")),
    }
}

fn skel_bone(name: &str, value: &Value) -> Result<SkelBone, PoseError> {
    let at = format!("/bones/{}", location::pointer_token(name));
    let Some(bone) = value.as_object() else {
        return Err(wrong(&at, "a bone object"));
    };
    let required = |key: &str| -> Result<String, PoseError> {
        string_at(bone, key, &at)?.ok_or_else(|| {
            PoseError::new(
                Location::pointer(at.clone()),
                PoseErrorKind::Missing(format!("`{key}`")),
            )
        })
    };
    let roll = match bone.get("roll") {
        None | Some(Value::Null) => None,
        Some(v) => Some(
            v.as_f64()
                .filter(|r| r.is_finite())
                .ok_or_else(|| wrong(&format!("{at}/roll"), "a finite number"))?,
        ),
    };
    Ok(SkelBone {
        name: name.to_owned(),
        head: required("head")?,
        tail: required("tail")?,
        parent: string_at(bone, "parent", &at)?,
        rotation_plane: string_at(bone, "rotation_plane", &at)?,
        roll,
        reference: names_at(bone.get("reference"), &format!("{at}/reference"))?,
        weights_reference: names_at(
            bone.get("weights_reference"),
            &format!("{at}/weights_reference"),
        )?,
    })
}

/// Reads a `.mhskel` file's text: bones (head and tail joints required, every parent a bone
/// of the file, every joint and plane named present), joints (base-mesh vertex lists) and
/// planes.
pub fn parse_mhskel(text: &str) -> Result<MhSkel, PoseError> {
    let map = parse_object(text, "a skeleton")?;
    let Some(Value::Object(bones)) = map.get("bones") else {
        return Err(wrong("/bones", "an object of bones"));
    };
    let Some(Value::Object(joints)) = map.get("joints") else {
        return Err(wrong("/joints", "an object of joints"));
    };
    if bones.len() > MAX_ENTRIES || joints.len() > MAX_ENTRIES {
        return Err(PoseError::new(
            Location::pointer(""),
            PoseErrorKind::TooLarge(format!("more than {MAX_ENTRIES} bones or joints")),
        ));
    }
    let mut skel = MhSkel {
        name: string_at(&map, "name", "")?,
        version: map.get("version").and_then(Value::as_f64),
        weights_file: string_at(&map, "weights_file", "")?,
        ..MhSkel::default()
    };
    skel.joints = read_joints(joints)?;
    if let Some(planes) = map.get("planes") {
        let Some(planes) = planes.as_object() else {
            return Err(wrong("/planes", "an object of planes"));
        };
        for (name, joints3) in planes {
            let at = format!("/planes/{}", location::pointer_token(name));
            let names = names_at(Some(joints3), &at)?;
            let Ok(three) = <[String; 3]>::try_from(names) else {
                return Err(wrong(&at, "three joint names"));
            };
            skel.planes.insert(name.clone(), three);
        }
    }
    for (name, value) in bones {
        skel.bones.push(skel_bone(name, value)?);
    }
    check_references(&skel)?;
    Ok(skel)
}

/// `joints`: each joint's base-mesh vertex indices, at least one.
fn read_joints(
    joints: &Map<String, Value>,
) -> Result<std::collections::BTreeMap<String, Vec<u32>>, PoseError> {
    let mut out = std::collections::BTreeMap::new();
    for (name, vertices) in joints {
        let at = format!("/joints/{}", location::pointer_token(name));
        let Some(list) = vertices.as_array() else {
            return Err(wrong(&at, "a list of vertex indices"));
        };
        bounded(list, &at)?;
        let indices = list
            .iter()
            .enumerate()
            .map(|(i, v)| {
                v.as_u64()
                    .and_then(|v| u32::try_from(v).ok())
                    .ok_or_else(|| wrong(&format!("{at}/{i}"), "a vertex index"))
            })
            .collect::<Result<Vec<u32>, _>>()?;
        if indices.is_empty() {
            return Err(PoseError::new(
                Location::pointer(at),
                PoseErrorKind::Missing("a vertex".into()),
            ));
        }
        out.insert(name.clone(), indices);
    }
    Ok(out)
}

/// Every parent a bone of the file, every joint and plane a bone names present.
fn check_references(skel: &MhSkel) -> Result<(), PoseError> {
    let names: std::collections::HashSet<&str> =
        skel.bones.iter().map(|b| b.name.as_str()).collect();
    for bone in &skel.bones {
        let at = |key: &str| format!("/bones/{}/{key}", location::pointer_token(&bone.name));
        let missing = |key: &str, what: &str, value: &str| {
            PoseError::new(
                Location::pointer(at(key)),
                PoseErrorKind::Malformed(format!("{what} `{}` is not in the file", quoted(value))),
            )
        };
        if let Some(parent) = bone.parent.as_deref().filter(|p| !names.contains(p)) {
            return Err(missing("parent", "bone", parent));
        }
        for (key, joint) in [("head", &bone.head), ("tail", &bone.tail)] {
            if !skel.joints.contains_key(joint) {
                return Err(missing(key, "joint", joint));
            }
        }
        if let Some(plane) = bone
            .rotation_plane
            .as_deref()
            .filter(|p| !skel.planes.contains_key(*p))
        {
            return Err(missing("rotation_plane", "plane", plane));
        }
    }
    Ok(())
}

/// One bone's weights: its name and `(vertex, weight)` pairs.
pub type BoneWeights = (String, Vec<(u32, f64)>);

/// Reads a `.mhw` weights file's text (`weights`: bone name -> `[vertex, weight]` pairs;
/// MakeHuman's default weights and assets' own). Bones in file order; weights finite.
pub fn parse_mhw(text: &str) -> Result<Vec<BoneWeights>, PoseError> {
    let map = parse_object(text, "a weights file")?;
    let Some(Value::Object(bones)) = map.get("weights") else {
        return Err(wrong("/weights", "an object of bone weights"));
    };
    if bones.len() > MAX_ENTRIES {
        return Err(PoseError::new(
            Location::pointer("/weights"),
            PoseErrorKind::TooLarge(format!("more than {MAX_ENTRIES} bones")),
        ));
    }
    let mut out = Vec::with_capacity(bones.len());
    for (bone, pairs) in bones {
        let at = format!("/weights/{}", location::pointer_token(bone));
        let Some(pairs) = pairs.as_array() else {
            return Err(wrong(&at, "a list of [vertex, weight] pairs"));
        };
        bounded(pairs, &at)?;
        let mut list = Vec::with_capacity(pairs.len());
        for (i, pair) in pairs.iter().enumerate() {
            let parsed = pair.as_array().and_then(|p| match p.as_slice() {
                [v, w] => Some((
                    u32::try_from(v.as_u64()?).ok()?,
                    w.as_f64().filter(|w| w.is_finite())?,
                )),
                _ => None,
            });
            list.push(
                parsed
                    .ok_or_else(|| wrong(&format!("{at}/{i}"), "a [vertex, finite weight] pair"))?,
            );
        }
        out.push((bone.clone(), list));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {

    #[test]
    fn an_mpfb_expression_reads_its_face_units_in_order_and_refuses_the_rest() {
        let text = r#"{"format_version": 1, "name": "wink", "face_units": {"eyeBlinkLeft": 1.0, "mouthSmileLeft": 0.25}, "tags": ["x"]}"#;
        let e = parse_mpfb_expression(text).unwrap();
        assert_eq!(e.name.as_deref(), Some("wink"));
        assert_eq!(
            e.face_units,
            [
                ("eyeBlinkLeft".to_owned(), 1.0),
                ("mouthSmileLeft".to_owned(), 0.25)
            ]
        );
        let bad = parse_mpfb_expression(r#"{"face_units": {"jawOpen": "wide"}}"#).unwrap_err();
        assert!(bad.to_string().contains("/face_units/jawOpen"), "{bad}");
        let missing = parse_mpfb_expression(r#"{"name": "x"}"#).unwrap_err();
        assert!(missing.to_string().contains("face_units"), "{missing}");
        let version = parse_mpfb_expression(r#"{"format_version": 2, "face_units": {}}"#);
        assert!(version.unwrap_err().to_string().contains("/format_version"));
        let twice = parse_mpfb_expression(r#"{"face_units": {"a": 1, "a": 0.5}}"#);
        assert!(twice.is_err());
    }

    use super::*;

    fn message<T: std::fmt::Debug>(result: Result<T, PoseError>) -> String {
        result.err().map(|e| e.to_string()).unwrap_or_default()
    }

    #[test]
    fn expressions_are_read_with_their_weights() {
        let pose = parse_mhpose(
            r#"{"name": "smile01", "tags": ["a"], "unit_poses": {"MouthLeftPullUp": 0.598, "NasolabialDeepener": 0.05}}"#,
        )
        .unwrap_or_default();
        assert_eq!(pose.name.as_deref(), Some("smile01"));
        assert_eq!(
            pose.unit_poses,
            [
                ("MouthLeftPullUp".to_owned(), 0.598),
                ("NasolabialDeepener".to_owned(), 0.05)
            ]
        );
        assert!(message(parse_mhpose(r#"{"unit_poses": {"a": "x"}}"#)).contains("/unit_poses/a"));
        assert!(message(parse_mhpose(r#"{"name": "a"}"#)).contains("`unit_poses` is missing"));
        assert!(
            message(parse_mhpose(r#"{"unit_poses": {"a": 1, "a": 2}}"#)).contains("/unit_poses/a")
        );
        assert!(message(parse_mhpose("[1]")).contains("is a JSON object"));
        assert!(message(parse_mhpose("{")).contains(":1:"));
    }

    #[test]
    fn weights_files_are_read_pair_by_pair() {
        let w = parse_mhw(r#"{"name": "w", "weights": {"jaw": [[1, 0.5], [2, 1]]}}"#)
            .unwrap_or_default();
        assert_eq!(w, [("jaw".to_owned(), vec![(1, 0.5), (2, 1.0)])]);
        assert!(
            message(parse_mhw(r#"{"weights": {"jaw": [[1, 0.5, 3]]}}"#)).contains("/weights/jaw/0")
        );
        assert!(
            message(parse_mhw(r#"{"weights": {"jaw": [[-1, 0.5]]}}"#)).contains("/weights/jaw/0")
        );
    }

    #[test]
    fn unit_names_are_unique() {
        assert_eq!(
            parse_unit_names(r#"{"framemapping": ["Rest", "a"]}"#).unwrap_or_default(),
            ["Rest", "a"]
        );
        assert!(
            message(parse_unit_names(r#"{"framemapping": ["Rest", "a", "a"]}"#))
                .contains("/framemapping/2")
        );
    }

    #[test]
    fn skeletons_are_read_and_their_names_checked() {
        let text = r#"{"name": "s", "bones": {
            "root": {"head": "r_h", "tail": "r_t", "parent": null, "reference": null, "rotation_plane": "p"},
            "arm": {"head": "r_t", "tail": "a_t", "parent": "root", "reference": ["upperarm01.L"], "roll": 0.5}
          }, "joints": {"r_h": [1, 2], "r_t": [3], "a_t": [4]}, "planes": {"p": ["r_h", "r_t", "a_t"]}}"#;
        let skel = parse_mhskel(text).unwrap_or_default();
        assert_eq!(skel.bones.len(), 2);
        assert_eq!(skel.bones[1].reference, ["upperarm01.L"]);
        assert_eq!(skel.bones[1].roll, Some(0.5));
        assert_eq!(skel.joints["r_h"], [1, 2]);
        assert_eq!(skel.planes["p"][2], "a_t");
        let bad_parent = text.replace(r#""parent": "root""#, r#""parent": "nobody""#);
        assert!(message(parse_mhskel(&bad_parent)).contains("/bones/arm/parent"));
        let bad_joint = text.replace(r#""tail": "a_t""#, r#""tail": "x""#);
        assert!(message(parse_mhskel(&bad_joint)).contains("/bones/arm/tail"));
        let bad_plane = text.replace(r#""rotation_plane": "p""#, r#""rotation_plane": "q""#);
        assert!(message(parse_mhskel(&bad_plane)).contains("rotation_plane"));
        let bad_vertex = text.replace("[3]", "[-3]");
        assert!(message(parse_mhskel(&bad_vertex)).contains("/joints/r_t/0"));
    }

    #[test]
    fn shipped_skeletons_expressions_and_units_read() {
        let Ok(assets) = test_support::makehuman_assets_with(&[
            "rigs/default.mhskel",
            "rigs/game_engine.mhskel",
            "poseunits/face-poseunits.json",
            "expressions/smile01.mhpose",
        ]) else {
            test_support::skip_or_fail(
                "shipped_skeletons_expressions_and_units_read",
                "no MakeHuman assets with skeletons and pose units",
            );
            return;
        };
        let read = |p: &str| std::fs::read_to_string(assets.join(p)).unwrap_or_default();
        let default = parse_mhskel(&read("rigs/default.mhskel")).unwrap_or_default();
        assert_eq!(default.bones.len(), 163);
        let game = parse_mhskel(&read("rigs/game_engine.mhskel")).unwrap_or_default();
        assert!(game.bones.iter().any(|b| !b.reference.is_empty()));
        let units = parse_unit_names(&read("poseunits/face-poseunits.json")).unwrap_or_default();
        assert_eq!(units.len(), 60);
        assert_eq!(units[0], "Rest");
        let smile = parse_mhpose(&read("expressions/smile01.mhpose")).unwrap_or_default();
        assert!(smile.unit_poses.iter().all(|(u, _)| units.contains(u)));
        let mut count = 0;
        for entry in std::fs::read_dir(assets.join("expressions"))
            .into_iter()
            .flatten()
            .flatten()
        {
            if entry.path().extension().is_some_and(|e| e == "mhpose") {
                let pose = parse_mhpose(&std::fs::read_to_string(entry.path()).unwrap_or_default());
                assert!(pose.is_ok(), "{}: {pose:?}", entry.path().display());
                count += 1;
            }
        }
        assert_eq!(count, 32);
    }
}
