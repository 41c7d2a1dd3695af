//! MPFB rig JSON out of the typed model, in MPFB's version 110 layout: used for `extras.mpfb`
//! in G4MF files and to write rigs back.
//!
//! Keys come out sorted, as MPFB's own `json.dump(..., sort_keys=True)` writes them, so a
//! file we write diffs cleanly against MPFB's.

use crate::model::{Bone, Endpoint, Rig, RollStrategy, Strategy};
use serde_json::{Map, Value};

fn sorted(map: Map<String, Value>) -> Map<String, Value> {
    let mut entries: Vec<(String, Value)> = map.into_iter().collect();
    entries.sort_by(|a, b| a.0.cmp(&b.0));
    entries.into_iter().collect()
}

fn position(p: [f64; 3]) -> Value {
    Value::from(p.to_vec())
}

/// One bone end as MPFB writes it.
pub fn endpoint_to_json(end: &Endpoint) -> Map<String, Value> {
    let mut map = end.extra.clone();
    map.insert("strategy".into(), Value::from(end.strategy.name()));
    match &end.strategy {
        Strategy::Cube { cube_name } => {
            map.insert("cube_name".into(), Value::from(cube_name.as_str()));
        }
        Strategy::Vertex { vertex_index } => {
            map.insert("vertex_index".into(), Value::from(*vertex_index));
        }
        Strategy::Mean { vertex_indices } => {
            map.insert("vertex_indices".into(), Value::from(vertex_indices.clone()));
        }
        Strategy::Xyz { vertex_indices } => {
            map.insert(
                "vertex_indices".into(),
                Value::from(vertex_indices.to_vec()),
            );
        }
        Strategy::Default => {}
    }
    if let Some(p) = end.default_position {
        map.insert("default_position".into(), position(p));
    }
    if let Some(o) = end.offset {
        map.insert("offset".into(), position(o));
    }
    sorted(map)
}

/// One bone as MPFB writes it (without its name, which is the key in `bones`).
pub fn bone_to_json(bone: &Bone) -> Map<String, Value> {
    let mut map = bone.extra.clone();
    map.insert("head".into(), Value::Object(endpoint_to_json(&bone.head)));
    map.insert("tail".into(), Value::Object(endpoint_to_json(&bone.tail)));
    map.insert("roll".into(), Value::from(bone.roll));
    map.insert(
        "parent".into(),
        Value::from(bone.parent.clone().unwrap_or_default()),
    );
    map.insert("use_connect".into(), Value::from(bone.use_connect));
    map.insert(
        "use_inherit_rotation".into(),
        Value::from(bone.use_inherit_rotation),
    );
    map.insert(
        "use_local_location".into(),
        Value::from(bone.use_local_location),
    );
    map.insert(
        "inherit_scale".into(),
        Value::from(bone.inherit_scale.as_str()),
    );
    let mut rigify = bone.rigify.extra.clone();
    if let Some(t) = &bone.rigify.rigify_type {
        rigify.insert("rigify_type".into(), Value::from(t.as_str()));
    }
    if let Some(p) = &bone.rigify.rigify_parameters {
        rigify.insert("rigify_parameters".into(), Value::Object(p.clone()));
    }
    map.insert("rigify".into(), Value::Object(sorted(rigify)));
    if let Some(c) = &bone.collections {
        map.insert("collections".into(), Value::from(c.clone()));
    }
    if let Some(list) = &bone.constraints {
        let constraints = list
            .iter()
            .map(|c| {
                let mut m = c.properties.clone();
                m.insert("type".into(), Value::from(c.constraint_type.as_str()));
                m.insert("name".into(), Value::from(c.name.as_str()));
                Value::Object(sorted(m))
            })
            .collect();
        map.insert("constraints".into(), Value::Array(constraints));
    }
    if let Some(mode) = &bone.rotation_mode {
        map.insert("rotation_mode".into(), Value::from(mode.as_str()));
    }
    if let Some(b) = &bone.bendy_bone {
        map.insert("bendy_bone".into(), Value::Object(b.clone()));
    }
    if let Some(strategy) = &bone.roll_strategy {
        map.insert("roll_strategy".into(), Value::from(strategy.name()));
        if let RollStrategy::AlignZReferenceZ { reference } = strategy {
            map.insert("roll_reference_z".into(), position(*reference));
        }
    }
    sorted(map)
}

/// The rig header (everything but `bones`), version 110.
pub fn header_to_json(rig: &Rig) -> Map<String, Value> {
    let header = &rig.header;
    let mut map = header.extra.clone();
    map.insert("version".into(), Value::from(110));
    map.insert("is_subrig".into(), Value::from(header.is_subrig));
    if let Some(s) = header.scale_factor {
        map.insert("scale_factor".into(), Value::from(s));
    }
    if let Some(c) = &header.collections {
        map.insert("collections".into(), Value::from(c.clone()));
    }
    if let Some(e) = &header.extra_bones {
        map.insert("extra_bones".into(), Value::from(e.clone()));
    }
    if let Some(ui) = &header.rigify_ui {
        map.insert("rigify_ui".into(), ui.clone());
    }
    sorted(map)
}

/// The whole rig in version 110 layout (bones in rig order, keys sorted within each bone).
pub fn rig_to_json(rig: &Rig) -> Value {
    let mut map = header_to_json(rig);
    let bones: Map<String, Value> = rig
        .bones
        .iter()
        .map(|b| (b.name.clone(), Value::Object(bone_to_json(b))))
        .collect();
    map.insert("bones".into(), Value::Object(bones));
    Value::Object(sorted(map))
}

/// The whole rig as [`rig_to_json`] makes it, serialized bone by bone: each bone's JSON is
/// made, written and dropped in turn, so writing a 100,000-bone rig never holds every bone's
/// JSON at once (that took 240 MB).
pub struct RigJson<'a>(pub &'a Rig);

/// The bones of a rig, serialized one by one.
struct BonesJson<'a>(&'a [Bone]);

impl serde::Serialize for BonesJson<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = serializer.serialize_map(Some(self.0.len()))?;
        for bone in self.0 {
            map.serialize_entry(&bone.name, &bone_to_json(bone))?;
        }
        map.end()
    }
}

impl serde::Serialize for RigJson<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let header = header_to_json(self.0);
        // `bones` takes its sorted place among the header's keys.
        let mut keys: Vec<&str> = header.keys().map(String::as_str).collect();
        keys.push("bones");
        keys.sort_unstable();
        keys.dedup();
        let mut map = serializer.serialize_map(Some(keys.len()))?;
        for key in keys {
            if key == "bones" {
                map.serialize_entry(key, &BonesJson(&self.0.bones))?;
            } else if let Some(value) = header.get(key) {
                map.serialize_entry(key, value)?;
            }
        }
        map.end()
    }
}
