//! Reading rig JSON: layout detection, typed parsing with absolute positions, and the
//! version 100 to 110 upgrade MPFB performs on load.

use crate::error::{RigError, RigErrorKind};
use crate::location::{Location, json_pointer, line_column_at};
use crate::model::{
    Bone, Constraint, Endpoint, Rig, RigHeader, RigLayout, Rigify, RollStrategy, Strategy,
};
use serde::Deserialize;
use serde::de::{self, MapAccess, Visitor};
use serde_json::value::RawValue;
use serde_json::{Map, Value};
use std::fmt;
use std::path::Path;

/// The newest rig format version we read (MPFB's `CUR_VERSION`).
pub const CURRENT_VERSION: u64 = 110;

/// Rig files are small (MPFB's largest is about 130 kB): a larger file is not one.
pub const MAX_RIG_BYTES: u64 = 64 << 20;

/// Reads and parses a rig file. Errors carry the file path.
pub fn read_rig_file(path: &Path) -> Result<Rig, RigError> {
    let text = location::read_text_bounded(path, MAX_RIG_BYTES)
        .map_err(|e| RigError::new(Location::default(), RigErrorKind::Io(e)).with_file(path))?;
    parse_rig(&text).map_err(|e| e.with_file(path))
}

/// Parses rig JSON text in any of the three layouts and runs the structural checks.
pub fn parse_rig(src: &str) -> Result<Rig, RigError> {
    let rig = Parser { src }.parse()?;
    // The typed pass catches repeated known fields and bone names; this catches repeats in
    // unknown keys and free-form values (constraints, Rigify data), which would be last-wins.
    if let Some(d) = json_strict::first_duplicate_key(src) {
        return Err(RigError::new(
            Location::pointer(d.pointer()),
            RigErrorKind::DuplicateKey { key: d.key },
        ));
    }
    crate::check::check_structure(&rig)?;
    Ok(rig)
}

/// Object entries in file order, keys not yet interpreted, values kept as raw JSON slices.
struct RawEntries<'a>(Vec<(String, &'a RawValue)>);

impl<'de: 'a, 'a> Deserialize<'de> for RawEntries<'a> {
    fn deserialize<D: de::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct EntriesVisitor<'a>(std::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> Visitor<'de> for EntriesVisitor<'a> {
            type Value = RawEntries<'a>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<M: MapAccess<'de>>(self, mut map: M) -> Result<Self::Value, M::Error> {
                let mut entries = Vec::new();
                while let Some(key) = map.next_key::<String>()? {
                    let value: &'a RawValue = map.next_value()?;
                    entries.push((key, value));
                }
                Ok(RawEntries(entries))
            }
        }
        deserializer.deserialize_map(EntriesVisitor(std::marker::PhantomData))
    }
}

struct Parser<'a> {
    src: &'a str,
}

impl<'a> Parser<'a> {
    /// Byte offset of a raw value inside the source text (raw values borrow from it).
    fn offset_of(&self, raw: &RawValue) -> usize {
        (raw.get().as_ptr() as usize).saturating_sub(self.src.as_ptr() as usize)
    }

    fn location_of(&self, raw: &RawValue, pointer: &str) -> Location {
        let (line, column) = line_column_at(self.src, self.offset_of(raw));
        Location {
            file: None,
            line_column: Some((line, column)),
            pointer: Some(pointer.to_owned()),
            byte: None,
        }
    }

    /// Turns a serde_json error from parsing `raw` into an error at its absolute position.
    fn json_error(&self, raw: &RawValue, pointer: &str, err: &serde_json::Error) -> RigError {
        let base = self.offset_of(raw);
        let (base_line, base_column) = line_column_at(self.src, base);
        let line_column = if err.line() == 0 {
            (base_line, base_column)
        } else if err.line() == 1 {
            (base_line, base_column + err.column().saturating_sub(1))
        } else {
            (base_line + err.line() - 1, err.column())
        };
        let message = strip_serde_position(&err.to_string());
        RigError::new(
            Location {
                file: None,
                line_column: Some(line_column),
                pointer: Some(pointer.to_owned()),
                byte: None,
            },
            RigErrorKind::Json(message),
        )
    }

    fn parse_raw<T: Deserialize<'a>>(
        &self,
        raw: &'a RawValue,
        pointer: &str,
    ) -> Result<T, RigError> {
        serde_json::from_str(raw.get()).map_err(|e| self.json_error(raw, pointer, &e))
    }

    /// Parses an object's entries, rejecting repeated keys.
    fn entries(
        &self,
        raw: &'a RawValue,
        pointer: &str,
    ) -> Result<Vec<(String, &'a RawValue)>, RigError> {
        let RawEntries(entries) = self.parse_raw(raw, pointer)?;
        reject_duplicates(self, &entries, pointer)?;
        Ok(entries)
    }

    fn parse(&self) -> Result<Rig, RigError> {
        let top: &'a RawValue = serde_json::from_str(self.src).map_err(|e| {
            RigError::new(
                Location::line_column(e.line(), e.column()),
                RigErrorKind::Json(strip_serde_position(&e.to_string())),
            )
        })?;
        let trimmed = top.get().trim_start();
        if !trimmed.starts_with('{') {
            return Err(RigError::new(
                self.location_of(top, ""),
                RigErrorKind::NotAnObject {
                    found: json_type_name(trimmed),
                },
            ));
        }
        let entries = self.entries(top, "")?;
        let find = |key: &str| entries.iter().find(|(k, _)| k == key).map(|(_, v)| *v);

        if let Some(joints) = find("joints") {
            return Err(RigError::new(
                self.location_of(joints, "/joints"),
                RigErrorKind::MhskelNotSupported,
            ));
        }

        let Some(bones_raw) = find("bones") else {
            // The bare legacy layout: every key is a bone.
            let bones = self.parse_bones(&entries, &[])?;
            let mut rig = Rig {
                source_layout: RigLayout::Bare,
                header: RigHeader::default(),
                bones,
            };
            upgrade_layers(&mut rig);
            return Ok(rig);
        };

        let version_raw = find("version").ok_or_else(|| {
            RigError::new(self.location_of(top, ""), RigErrorKind::MissingVersion)
        })?;
        let version: u64 = self.parse_raw(version_raw, "/version")?;
        if version > CURRENT_VERSION {
            return Err(RigError::new(
                self.location_of(version_raw, "/version"),
                RigErrorKind::UnsupportedVersion { version },
            ));
        }
        let layout = if version == CURRENT_VERSION {
            RigLayout::V110
        } else {
            RigLayout::V100
        };

        let mut header = RigHeader::default();
        for (key, raw) in &entries {
            let pointer = json_pointer([key.as_str()]);
            match key.as_str() {
                "bones" | "version" => {}
                "is_subrig" => header.is_subrig = self.parse_raw(raw, &pointer)?,
                "scale_factor" => header.scale_factor = self.parse_raw(raw, &pointer)?,
                "collections" => header.collections = self.parse_raw(raw, &pointer)?,
                "extra_bones" => header.extra_bones = self.parse_raw(raw, &pointer)?,
                "rigify_ui" => header.rigify_ui = self.parse_raw(raw, &pointer)?,
                _ => {
                    let value: Value = self.parse_raw(raw, &pointer)?;
                    header.extra.insert(key.clone(), value);
                }
            }
        }

        let bone_entries = self.entries(bones_raw, "/bones")?;
        let bones = self.parse_bones(&bone_entries, &["bones"])?;
        let mut rig = Rig {
            source_layout: layout,
            header,
            bones,
        };
        if layout != RigLayout::V110 {
            upgrade_layers(&mut rig);
        }
        Ok(rig)
    }

    fn parse_bones(
        &self,
        entries: &[(String, &'a RawValue)],
        prefix: &[&str],
    ) -> Result<Vec<Bone>, RigError> {
        entries
            .iter()
            .map(|(name, raw)| {
                let tokens: Vec<&str> = prefix.iter().copied().chain([name.as_str()]).collect();
                let pointer = json_pointer(tokens.iter().copied());
                let raw_bone: RawBone = self.parse_raw(raw, &pointer)?;
                raw_bone.into_bone(name).map_err(|(sub, kind)| {
                    RigError::new(self.location_of(raw, &format!("{pointer}{sub}")), *kind)
                })
            })
            .collect()
    }
}

fn reject_duplicates(
    parser: &Parser<'_>,
    entries: &[(String, &RawValue)],
    pointer: &str,
) -> Result<(), RigError> {
    let mut seen = std::collections::HashSet::with_capacity(entries.len());
    for (key, raw) in entries {
        if !seen.insert(key.as_str()) {
            return Err(RigError::new(
                parser.location_of(raw, &format!("{pointer}{}", json_pointer([key.as_str()]))),
                RigErrorKind::DuplicateKey { key: key.clone() },
            ));
        }
    }
    Ok(())
}

/// serde_json appends " at line L column C" to messages; we report positions ourselves.
fn strip_serde_position(message: &str) -> String {
    match message.rfind(" at line ") {
        Some(i) if message[i..].contains(" column ") => message[..i].to_owned(),
        _ => message.to_owned(),
    }
}

fn json_type_name(trimmed: &str) -> &'static str {
    match trimmed.as_bytes().first() {
        Some(b'[') => "an array",
        Some(b'"') => "a string",
        Some(b't' | b'f') => "a boolean",
        Some(b'n') => "null",
        _ => "a number",
    }
}

/// A bone exactly as the JSON has it, before typing the strategies.
#[derive(Deserialize)]
struct RawBone {
    head: RawEndpoint,
    tail: RawEndpoint,
    roll: f64,
    parent: String,
    use_connect: bool,
    use_inherit_rotation: bool,
    use_local_location: bool,
    inherit_scale: String,
    rigify: RawRigify,
    collections: Option<Vec<String>>,
    layers: Option<Vec<bool>>,
    constraints: Option<Vec<Map<String, Value>>>,
    rotation_mode: Option<String>,
    bendy_bone: Option<Map<String, Value>>,
    roll_strategy: Option<String>,
    roll_reference_z: Option<[f64; 3]>,
    #[serde(flatten)]
    extra: Map<String, Value>,
}

#[derive(Deserialize)]
struct RawEndpoint {
    strategy: String,
    cube_name: Option<String>,
    vertex_index: Option<u32>,
    vertex_indices: Option<Vec<u32>>,
    default_position: Option<[f64; 3]>,
    offset: Option<[f64; 3]>,
    #[serde(flatten)]
    extra: Map<String, Value>,
}

#[derive(Deserialize)]
struct RawRigify {
    rigify_type: Option<String>,
    rigify_parameters: Option<Map<String, Value>>,
    #[serde(flatten)]
    extra: Map<String, Value>,
}

/// A conversion failure: the pointer suffix below the bone, and what is wrong.
type BoneFailure = (String, Box<RigErrorKind>);

impl RawBone {
    fn into_bone(self, name: &str) -> Result<Bone, BoneFailure> {
        let head = self.head.into_endpoint(name, "head")?;
        let tail = self.tail.into_endpoint(name, "tail")?;
        let mut extra = self.extra;

        let roll_strategy = match self.roll_strategy.as_deref() {
            None => {
                if let Some(reference) = self.roll_reference_z {
                    extra.insert("roll_reference_z".into(), Value::from(reference.to_vec()));
                }
                None
            }
            Some("ALIGN_Z_WORLD_Z") => Some(RollStrategy::AlignZWorldZ),
            Some("ALIGN_X_WORLD_X") => Some(RollStrategy::AlignXWorldX),
            Some("ALIGN_Z_REFERENCE_Z") => match self.roll_reference_z {
                Some(reference) => Some(RollStrategy::AlignZReferenceZ { reference }),
                None => {
                    return Err((
                        "/roll_strategy".into(),
                        Box::new(RigErrorKind::MissingRollReference { bone: name.into() }),
                    ));
                }
            },
            Some(other) => {
                return Err((
                    "/roll_strategy".into(),
                    Box::new(RigErrorKind::UnknownRollStrategy {
                        bone: name.into(),
                        value: other.into(),
                    }),
                ));
            }
        };
        if let (Some(_), Some(reference)) = (&roll_strategy, self.roll_reference_z) {
            // Keep a reference vector that the chosen strategy does not use.
            if !matches!(roll_strategy, Some(RollStrategy::AlignZReferenceZ { .. })) {
                extra.insert("roll_reference_z".into(), Value::from(reference.to_vec()));
            }
        }

        let constraints = match self.constraints {
            None => None,
            Some(list) => Some(
                list.into_iter()
                    .enumerate()
                    .map(|(index, props)| into_constraint(name, index, props))
                    .collect::<Result<Vec<_>, _>>()?,
            ),
        };

        if let Some(layers) = self.layers {
            // Version 100 data; the upgrade pass turns it into collections.
            extra.insert(
                LEGACY_LAYERS_KEY.into(),
                Value::from(layers.into_iter().map(Value::Bool).collect::<Vec<_>>()),
            );
        }

        Ok(Bone {
            name: name.to_owned(),
            head,
            tail,
            roll: self.roll,
            parent: (!self.parent.is_empty()).then_some(self.parent),
            use_connect: self.use_connect,
            use_inherit_rotation: self.use_inherit_rotation,
            use_local_location: self.use_local_location,
            inherit_scale: self.inherit_scale,
            rigify: Rigify {
                rigify_type: self.rigify.rigify_type,
                rigify_parameters: self.rigify.rigify_parameters,
                extra: self.rigify.extra,
            },
            collections: self.collections,
            constraints,
            rotation_mode: self.rotation_mode,
            bendy_bone: self.bendy_bone,
            roll_strategy,
            extra,
        })
    }
}

/// Where `layers` waits between parsing and the upgrade (never left in a returned rig).
const LEGACY_LAYERS_KEY: &str = "layers";

fn into_constraint(
    bone: &str,
    index: usize,
    mut props: Map<String, Value>,
) -> Result<Constraint, BoneFailure> {
    let mut take = |field: &'static str| match props.shift_remove(field) {
        Some(Value::String(s)) => Ok(s),
        _ => Err((
            format!("/constraints/{index}/{field}"),
            Box::new(RigErrorKind::ConstraintField {
                bone: bone.into(),
                index,
                field,
            }),
        )),
    };
    let constraint_type = take("type")?;
    let name = take("name")?;
    Ok(Constraint {
        constraint_type,
        name,
        properties: props,
    })
}

impl RawEndpoint {
    fn into_endpoint(self, bone: &str, end: &'static str) -> Result<Endpoint, BoneFailure> {
        let mut extra = self.extra;
        let missing = |strategy: &'static str, field: &'static str| {
            (
                format!("/{end}/{field}"),
                Box::new(RigErrorKind::MissingStrategyField {
                    bone: bone.into(),
                    strategy,
                    field,
                }),
            )
        };
        // Fields the chosen strategy does not use are kept verbatim for round trips.
        let mut keep_unused =
            |cube: Option<String>, index: Option<u32>, indices: Option<Vec<u32>>| {
                if let Some(c) = cube {
                    extra.insert("cube_name".into(), Value::String(c));
                }
                if let Some(i) = index {
                    extra.insert("vertex_index".into(), Value::from(i));
                }
                if let Some(list) = indices {
                    extra.insert("vertex_indices".into(), Value::from(list));
                }
            };
        let strategy = match self.strategy.as_str() {
            "CUBE" => {
                let cube_name = self.cube_name.ok_or_else(|| missing("CUBE", "cube_name"))?;
                keep_unused(None, self.vertex_index, self.vertex_indices);
                Strategy::Cube { cube_name }
            }
            "VERTEX" => {
                let vertex_index = self
                    .vertex_index
                    .ok_or_else(|| missing("VERTEX", "vertex_index"))?;
                keep_unused(self.cube_name, None, self.vertex_indices);
                Strategy::Vertex { vertex_index }
            }
            "MEAN" => {
                let vertex_indices = self
                    .vertex_indices
                    .ok_or_else(|| missing("MEAN", "vertex_indices"))?;
                keep_unused(self.cube_name, self.vertex_index, None);
                Strategy::Mean { vertex_indices }
            }
            "XYZ" => {
                let list = self
                    .vertex_indices
                    .ok_or_else(|| missing("XYZ", "vertex_indices"))?;
                let vertex_indices: [u32; 3] = list.as_slice().try_into().map_err(|_| {
                    (
                        format!("/{end}/vertex_indices"),
                        Box::new(RigErrorKind::XyzNeedsThreeIndices {
                            bone: bone.into(),
                            found: list.len(),
                        }),
                    )
                })?;
                keep_unused(self.cube_name, self.vertex_index, None);
                Strategy::Xyz { vertex_indices }
            }
            "DEFAULT" => {
                keep_unused(self.cube_name, self.vertex_index, self.vertex_indices);
                Strategy::Default
            }
            other => {
                return Err((
                    format!("/{end}/strategy"),
                    Box::new(RigErrorKind::UnknownStrategy {
                        bone: bone.into(),
                        strategy: other.into(),
                    }),
                ));
            }
        };
        Ok(Endpoint {
            strategy,
            default_position: self.default_position,
            offset: self.offset,
            extra,
        })
    }
}

/// MPFB's version 100 upgrade: 32 `layers` booleans become collection names, and 32-boolean
/// `*_layers` Rigify parameters become `*_coll_refs` lists.
fn upgrade_layers(rig: &mut Rig) {
    let mut names: Vec<String> = (1..=32).map(|i| format!("Layer {i}")).collect();
    if let Some(Value::Object(ui)) = &rig.header.rigify_ui {
        // MPFB resolves names through Rigify's own helper; we take each non-empty layer name as
        // written (see spec-notes/mpfb-rig.md) and reserve 28..31 as MPFB does.
        if let Some(Value::Array(layers)) = ui.get("rigify_layers") {
            for (i, info) in layers.iter().enumerate().take(32) {
                if let Some(name) = info.get("name").and_then(Value::as_str) {
                    let name = name.trim();
                    if !name.is_empty() {
                        names[i] = name.to_owned();
                    }
                }
            }
        }
        for (i, fixed) in [(28, "Root"), (29, "DEF"), (30, "MCH"), (31, "ORG")] {
            names[i] = fixed.to_owned();
        }
    } else {
        names[0] = "Bones".to_owned();
    }

    let mut used = std::collections::BTreeSet::new();
    for bone in &mut rig.bones {
        if let Some(Value::Array(layers)) = bone.extra.shift_remove(LEGACY_LAYERS_KEY) {
            if !layers.is_empty() {
                let on: Vec<usize> = layers
                    .iter()
                    .enumerate()
                    .filter(|(_, v)| v.as_bool() == Some(true))
                    .map(|(i, _)| i)
                    .filter(|&i| i < 32)
                    .collect();
                let mut collections: Vec<String> = on.iter().map(|&i| names[i].clone()).collect();
                collections.sort();
                bone.collections = Some(collections);
                used.extend(on);
            }
        }
        upgrade_rigify_layer_refs(&mut bone.rigify, &names, &mut used);
    }
    if !used.is_empty() {
        rig.header.collections = Some(used.iter().map(|&i| names[i].clone()).collect());
    }
}

fn upgrade_rigify_layer_refs(
    rigify: &mut Rigify,
    names: &[String],
    used: &mut std::collections::BTreeSet<usize>,
) {
    let Some(params) = rigify.rigify_parameters.as_mut() else {
        return;
    };
    if params.is_empty() {
        return;
    }
    let defaults: &[&str] = match rigify.rigify_type.as_deref() {
        Some("faces.super_face") => &["primary", "secondary"],
        Some(
            "limbs.arm" | "limbs.front_paw" | "limbs.leg" | "limbs.paw" | "limbs.rear_paw"
            | "limbs.super_limb" | "spines.basic_spine",
        ) => &["fk", "tweak"],
        Some("limbs.simple_tentacle" | "limbs.super_finger") => &["tweak"],
        _ => &[],
    };
    for name in defaults {
        let extra_on = params
            .get(&format!("{name}_layers_extra"))
            .is_none_or(is_truthy);
        let key = format!("{name}_layers");
        if extra_on && !params.contains_key(&key) {
            params.insert(
                key,
                Value::from((0..32).map(|i| i == 1).collect::<Vec<_>>()),
            );
        }
    }
    let keys: Vec<String> = params.keys().cloned().collect();
    for key in keys {
        let Some(prefix) = key.strip_suffix("_layers") else {
            continue;
        };
        let Some(Value::Array(list)) = params.get(&key) else {
            continue;
        };
        if list.len() != 32 {
            continue;
        }
        let on: Vec<usize> = list
            .iter()
            .enumerate()
            .filter(|(_, v)| is_truthy(v))
            .map(|(i, _)| i)
            .collect();
        let refs: Vec<Value> = on
            .iter()
            .map(|&i| Value::String(names[i].clone()))
            .collect();
        used.extend(on);
        params.insert(format!("{prefix}_coll_refs"), Value::Array(refs));
        params.shift_remove(&key);
    }
}

/// Python truthiness of a JSON value, as MPFB's checks use it.
fn is_truthy(value: &Value) -> bool {
    match value {
        Value::Null => false,
        Value::Bool(b) => *b,
        Value::Number(n) => n.as_f64().is_some_and(|f| f != 0.0),
        Value::String(s) => !s.is_empty(),
        Value::Array(a) => !a.is_empty(),
        Value::Object(o) => !o.is_empty(),
    }
}
