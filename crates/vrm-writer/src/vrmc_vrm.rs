//! The `VRMC_vrm` extension object: `humanoid.humanBones` (nodes), `meta`, `expressions`
//! (morph-target binds resolved to nodes and target indices), `lookAt` (its origin made an
//! offset in the head node's frame) and `firstPerson.meshAnnotations`.

use crate::error::{VrmError, finite, finite3, within};
use crate::humanoid::{HumanoidError, VRM_BONES};
use crate::meta::meta_json;
use crate::model::{
    Expression, FirstPersonKind, LookAt, LookAtKind, MeshRef, Override, RangeMap, VrmSpec,
};
use crate::place::Placement;
use serde_json::{Map, Value, json};
use std::collections::{BTreeMap, BTreeSet};

/// VRM 1.0's preset expressions (`expressions.md`), in the specification's order.
pub const PRESET_EXPRESSIONS: [&str; 18] = [
    "happy",
    "angry",
    "sad",
    "relaxed",
    "surprised",
    "aa",
    "ih",
    "ou",
    "ee",
    "oh",
    "blink",
    "blinkLeft",
    "blinkRight",
    "lookUp",
    "lookDown",
    "lookLeft",
    "lookRight",
    "neutral",
];

/// What the `VRMC_vrm` object counts, for [`VrmWritten`](crate::VrmWritten).
#[derive(Debug, Default)]
pub(crate) struct VrmCounts {
    pub human_bones: usize,
    pub expressions: usize,
    pub morph_target_binds: usize,
}

/// The `VRMC_vrm` object of `vrm` (its humanoid already checked), the thumbnail being image
/// `thumbnail_image`.
pub(crate) fn vrmc_vrm(
    place: &Placement<'_>,
    vrm: &VrmSpec,
    thumbnail_image: Option<u32>,
) -> Result<(Value, VrmCounts), VrmError> {
    let mut counts = VrmCounts::default();
    let mut object = Map::new();
    object.insert("specVersion".into(), json!("1.0"));
    object.insert("meta".into(), meta_json(&vrm.meta, thumbnail_image)?);
    let (human_bones, count) = human_bones(place, &vrm.humanoid)?;
    counts.human_bones = count;
    object.insert("humanoid".into(), json!({ "humanBones": human_bones }));
    if let Some(annotations) = first_person(place, &vrm.first_person)? {
        object.insert(
            "firstPerson".into(),
            json!({ "meshAnnotations": annotations }),
        );
    }
    if let Some(look_at) = &vrm.look_at {
        object.insert(
            "lookAt".into(),
            look_at_json(place, &vrm.humanoid, look_at)?,
        );
    }
    if !vrm.expressions.is_empty() {
        let (expressions, binds) = expressions(place, &vrm.expressions)?;
        counts.expressions = vrm.expressions.len();
        counts.morph_target_binds = binds;
        object.insert("expressions".into(), expressions);
    }
    Ok((Value::Object(object), counts))
}

/// `humanBones`: each VRM name with its bone's node, in VRM's bone order.
fn human_bones(
    place: &Placement<'_>,
    humanoid: &BTreeMap<String, usize>,
) -> Result<(Value, usize), VrmError> {
    let mut bones = Map::new();
    for (name, _, _) in VRM_BONES {
        if let Some(&bone) = humanoid.get(name) {
            let node = place.bone_node(bone, || format!("human bone `{name}`"))?;
            bones.insert(name.into(), json!({ "node": node }));
        }
    }
    let count = bones.len();
    Ok((Value::Object(bones), count))
}

/// `meshAnnotations` (none when no mesh is annotated: readers then take every mesh as
/// `auto`); a mesh annotated twice is refused.
fn first_person(
    place: &Placement<'_>,
    annotations: &[(MeshRef, FirstPersonKind)],
) -> Result<Option<Value>, VrmError> {
    if annotations.is_empty() {
        return Ok(None);
    }
    let mut seen = BTreeSet::new();
    let mut list = Vec::with_capacity(annotations.len());
    for &(mesh, kind) in annotations {
        let (node, _) = place.mesh(mesh, || "a first-person annotation".into())?;
        if !seen.insert(mesh) {
            return Err(VrmError::DuplicateAnnotation(place.mesh_label(mesh)));
        }
        let kind = match kind {
            FirstPersonKind::Auto => "auto",
            FirstPersonKind::Both => "both",
            FirstPersonKind::ThirdPersonOnly => "thirdPersonOnly",
            FirstPersonKind::FirstPersonOnly => "firstPersonOnly",
        };
        list.push(json!({ "node": node, "type": kind }));
    }
    Ok(Some(Value::Array(list)))
}

/// `lookAt`: its type, its origin as an offset in the head node's own frame (three-vrm places
/// it with the head's world matrix: `spec-notes/vrm.md`), and the four range maps.
fn look_at_json(
    place: &Placement<'_>,
    humanoid: &BTreeMap<String, usize>,
    look_at: &LookAt,
) -> Result<Value, VrmError> {
    let kind = match look_at.kind {
        LookAtKind::Bone => {
            for eye in ["leftEye", "rightEye"] {
                if !humanoid.contains_key(eye) {
                    return Err(VrmError::LookAtWithoutEyes(eye));
                }
            }
            "bone"
        }
        LookAtKind::Expression => "expression",
    };
    finite3(|| "the look-at's eye point".into(), look_at.eyes)?;
    // `humanoid::check` made sure the head is there and one of the skeleton's bones.
    let head = humanoid
        .get("head")
        .copied()
        .ok_or(HumanoidError::Missing(vec!["head"]))?;
    let offset = place.local_point(head, look_at.eyes);
    Ok(json!({
        "type": kind,
        "offsetFromHeadBone": finite3(|| "the look-at's offset from the head".into(), offset)?,
        "rangeMapHorizontalInner": range_map("rangeMapHorizontalInner", look_at.horizontal_inner)?,
        "rangeMapHorizontalOuter": range_map("rangeMapHorizontalOuter", look_at.horizontal_outer)?,
        "rangeMapVerticalDown": range_map("rangeMapVerticalDown", look_at.vertical_down)?,
        "rangeMapVerticalUp": range_map("rangeMapVerticalUp", look_at.vertical_up)?,
    }))
}

/// A range map: its input angle within the schema's 0..=180 degrees, its output finite.
fn range_map(name: &str, map: RangeMap) -> Result<Value, VrmError> {
    let input = within(
        || format!("lookAt.{name}.inputMaxValue"),
        map.input_max_value,
        0.0,
        180.0,
        "0..=180 degrees",
    )?;
    let output = finite(|| format!("lookAt.{name}.outputScale"), map.output_scale)?;
    Ok(json!({ "inputMaxValue": input, "outputScale": output }))
}

/// `expressions`: presets under `preset`, the others under `custom`, in the spec's order;
/// with the count of morph-target binds.
fn expressions(
    place: &Placement<'_>,
    expressions: &[Expression],
) -> Result<(Value, usize), VrmError> {
    let mut preset = Map::new();
    let mut custom = Map::new();
    let mut binds = 0;
    for expression in expressions {
        let name = expression.name.as_str();
        let is_preset_name = PRESET_EXPRESSIONS.contains(&name);
        let group = match (expression.preset, is_preset_name) {
            (true, true) => &mut preset,
            (true, false) => return Err(VrmError::NotAPreset(name.to_owned())),
            (false, true) => return Err(VrmError::CustomNamedAsPreset(name.to_owned())),
            (false, false) if name.is_empty() => return Err(VrmError::UnnamedExpression),
            (false, false) => &mut custom,
        };
        if group.contains_key(name) {
            return Err(VrmError::DuplicateExpression(name.to_owned()));
        }
        group.insert(name.to_owned(), expression_json(place, expression)?);
        binds += expression.binds.len();
    }
    let mut object = Map::new();
    for (key, group) in [("preset", preset), ("custom", custom)] {
        if !group.is_empty() {
            object.insert(key.into(), Value::Object(group));
        }
    }
    Ok((Value::Object(object), binds))
}

/// One expression: its morph-target binds (nodes and target indices; none written when it
/// has none, as the schema wants at least one when the list is there), `isBinary` and the
/// overrides.
fn expression_json(place: &Placement<'_>, expression: &Expression) -> Result<Value, VrmError> {
    let name = &expression.name;
    let mut binds = Vec::with_capacity(expression.binds.len());
    for bind in &expression.binds {
        let (node, mesh) = place.mesh(bind.mesh, || format!("expression `{name}`"))?;
        let index = place.morph_index(bind.mesh, mesh, &bind.shape, name)?;
        let weight = within(
            || format!("expression `{name}`'s weight of `{}`", bind.shape),
            bind.weight,
            0.0,
            1.0,
            "0..=1",
        )?;
        binds.push(json!({ "node": node, "index": index, "weight": weight }));
    }
    let mut object = Map::new();
    if !binds.is_empty() {
        object.insert("morphTargetBinds".into(), Value::Array(binds));
    }
    object.insert("isBinary".into(), json!(expression.is_binary));
    for (key, value) in [
        ("overrideBlink", expression.override_blink),
        ("overrideLookAt", expression.override_look_at),
        ("overrideMouth", expression.override_mouth),
    ] {
        let value = match value {
            Override::None => "none",
            Override::Block => "block",
            Override::Blend => "blend",
        };
        object.insert(key.into(), json!(value));
    }
    Ok(Value::Object(object))
}
