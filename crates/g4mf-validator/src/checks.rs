//! The document checks, over the raw JSON `Value` so that one malformed property never hides
//! the others. Data-dependent checks (indices in range, sort orders) read accessor bytes.

use crate::report::Findings;
use g4mf_model::{DefinedComponentType, rules};
use serde_json::{Map, Value};
use std::collections::{HashMap, HashSet};

/// Components a node may have, of which at most one.
const COMPONENTS: [&str; 7] = [
    "bone",
    "camera",
    "light",
    "meshInstance",
    "modelInstance",
    "physics",
    "skeleton",
];
/// Characters G4MF names must not contain.
const FORBIDDEN: &[char] = &[
    '"', '#', '%', '*', '.', ':', '|', '?', '@', '<', '>', '{', '}', '[', ']', '/', '\\',
];

/// A non-negative integer index, if `v` is one.
fn index_of(v: &Value) -> Option<usize> {
    v.as_u64().and_then(|i| usize::try_from(i).ok())
}

/// An accessor's decoded description.
#[derive(Debug, Clone)]
pub(crate) struct AccessorInfo<'a> {
    pub component: Option<DefinedComponentType>,
    pub vector_size: usize,
    /// The view's bytes, when the view and buffer are valid and aligned.
    pub bytes: Option<&'a [u8]>,
}

impl AccessorInfo<'_> {
    pub fn element_count(&self) -> Option<usize> {
        let size = self
            .component?
            .size()
            .checked_mul(self.vector_size.max(1))?;
        self.bytes.map(|b| b.len() / size)
    }

    /// Components as f64, when readable.
    pub fn values(&self) -> Option<Vec<f64>> {
        let bytes = self.bytes?;
        let c = self.component?;
        let le = |chunk: &[u8]| -> [u8; 8] {
            let mut w = [0u8; 8];
            w[..chunk.len()].copy_from_slice(chunk);
            w
        };
        let n = c.size();
        if n > 8 {
            return None; // 128-bit types: not decoded
        }
        Some(
            bytes
                .chunks_exact(n)
                .map(|ch| match c {
                    DefinedComponentType::Uint8
                    | DefinedComponentType::Uint16
                    | DefinedComponentType::Uint32
                    | DefinedComponentType::Uint64 => u64::from_le_bytes(le(ch)) as f64,
                    DefinedComponentType::Int8 => f64::from(ch[0] as i8),
                    DefinedComponentType::Int16 => f64::from(i16::from_le_bytes([ch[0], ch[1]])),
                    DefinedComponentType::Int32 => {
                        f64::from(i32::from_le_bytes([ch[0], ch[1], ch[2], ch[3]]))
                    }
                    DefinedComponentType::Int64 => i64::from_le_bytes(le(ch)) as f64,
                    DefinedComponentType::Float32 => {
                        f64::from(f32::from_le_bytes([ch[0], ch[1], ch[2], ch[3]]))
                    }
                    DefinedComponentType::Float64 => f64::from_le_bytes(le(ch)),
                    // float8/float16: decoded approximately is not needed for our checks.
                    _ => f64::NAN,
                })
                .collect(),
        )
    }
}

/// A mesh index and its skin's group names.
type NamedSkin<'v> = (usize, Vec<&'v str>);

pub(crate) struct Checker<'a> {
    pub doc: &'a Map<String, Value>,
    pub buffers: &'a [Option<Vec<u8>>],
    pub dimension: usize,
    pub weight_tolerance: f64,
    pub f: Findings,
}

fn array<'v>(doc: &'v Map<String, Value>, key: &str) -> &'v [Value] {
    doc.get(key)
        .and_then(Value::as_array)
        .map_or(&[], Vec::as_slice)
}

impl<'a> Checker<'a> {
    fn count(&self, key: &str) -> usize {
        array(self.doc, key).len()
    }

    /// Checks that `value` (at `pointer`) is a valid index into `target`; returns it.
    fn index(
        &mut self,
        value: &Value,
        pointer: &str,
        target: &str,
        code: &'static str,
    ) -> Option<usize> {
        match index_of(value) {
            Some(i) if i < self.count(target) => Some(i),
            _ => {
                self.f.error(
                    code,
                    pointer,
                    format!(
                        "{value} is not a valid index into `{target}` ({} items)",
                        self.count(target)
                    ),
                );
                None
            }
        }
    }

    pub fn accessor(&self, i: usize) -> Option<AccessorInfo<'a>> {
        let a = array(self.doc, "accessors").get(i)?;
        let component = a
            .get("componentType")
            .and_then(Value::as_str)
            .and_then(|n| {
                DefinedComponentType::ALL
                    .into_iter()
                    .find(|d| d.name() == n)
            });
        let vector_size = a
            .get("vectorSize")
            .map_or(Some(1), |v| index_of(v).filter(|&n| n > 0))?;
        let view = array(self.doc, "bufferViews").get(index_of(a.get("bufferView")?)?)?;
        let buffer_index = view.get("buffer").map_or(Some(0), index_of)?;
        let offset = view.get("byteOffset").map_or(Some(0), index_of)?;
        let length = index_of(view.get("byteLength")?)?;
        let buffer = self.buffers.get(buffer_index)?.as_deref();
        let size = component.map(|c| c.size());
        let bytes = match (buffer, size) {
            (Some(b), Some(size))
                if offset.checked_add(length).is_some_and(|e| e <= b.len())
                    && offset % size == 0
                    && size
                        .checked_mul(vector_size)
                        .is_some_and(|element| length % element == 0) =>
            {
                Some(&b[offset..offset + length])
            }
            _ => None,
        };
        Some(AccessorInfo {
            component,
            vector_size,
            bytes,
        })
    }

    pub fn run(&mut self) {
        self.asset();
        self.buffer_views();
        self.accessors();
        self.names();
        let parents = self.nodes();
        self.skeletons(&parents);
        self.meshes(&parents);
        self.shared_group_names(&parents);
        self.materials();
    }

    fn asset(&mut self) {
        let Some(asset) = self.doc.get("asset").and_then(Value::as_object) else {
            self.f.error(
                "ASSET_MISSING",
                "",
                "a G4MF file must have an `asset` object",
            );
            return;
        };
        match asset.get("dimension") {
            None => self.f.error(
                "ASSET_DIMENSION_MISSING",
                "/asset",
                "`asset.dimension` is required",
            ),
            Some(d) if !d.is_u64() => self.f.error(
                "ASSET_DIMENSION_NOT_INTEGER",
                "/asset/dimension",
                format!("`dimension` must be a non-negative integer, found {d}"),
            ),
            Some(_) => {}
        }
        let used: HashSet<&str> = asset
            .get("extensionsUsed")
            .and_then(Value::as_array)
            .map(|a| a.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        if let Some(required) = asset.get("extensionsRequired").and_then(Value::as_array) {
            for (i, e) in required.iter().enumerate() {
                if let Some(name) = e.as_str().filter(|n| !used.contains(n)) {
                    self.f.error(
                        "ASSET_EXTENSION_REQUIRED_NOT_USED",
                        format!("/asset/extensionsRequired/{i}"),
                        format!("`{name}` is required but not listed in `extensionsUsed`"),
                    );
                }
            }
        }
        if let Some(version) = asset.get("version").and_then(Value::as_str) {
            let parts: Vec<&str> = version.split('.').collect();
            if !(2..=3).contains(&parts.len())
                || parts
                    .iter()
                    .any(|p| p.is_empty() || !p.bytes().all(|b| b.is_ascii_digit()))
            {
                self.f.error(
                    "ASSET_VERSION_FORMAT",
                    "/asset/version",
                    format!(
                        "`version` must be MAJOR.MINOR or MAJOR.MINOR.PATCH, found `{version}`"
                    ),
                );
            }
        }
        // Extensions used anywhere must be declared.
        let mut undeclared = Vec::new();
        find_extensions(
            &Value::Object(self.doc.clone()),
            &mut |pointer: String, name: &str| {
                if !used.contains(name) {
                    undeclared.push((pointer, name.to_owned()));
                }
            },
        );
        for (pointer, name) in undeclared {
            self.f.error(
                "ASSET_EXTENSION_NOT_DECLARED",
                pointer,
                format!("extension `{name}` is used but not listed in `asset.extensionsUsed`"),
            );
        }
    }

    fn buffer_views(&mut self) {
        let buffers = array(self.doc, "buffers");
        for (i, view) in array(self.doc, "bufferViews").iter().enumerate() {
            let p = format!("/bufferViews/{i}");
            let buffer = match view.get("buffer") {
                None => Some(0).filter(|_| !buffers.is_empty()),
                Some(b) => index_of(b).filter(|&b| b < buffers.len()),
            };
            let Some(buffer) = buffer else {
                self.f.error(
                    "BUFFER_VIEW_BUFFER_INVALID",
                    format!("{p}/buffer"),
                    "the buffer view's buffer does not exist",
                );
                continue;
            };
            let (Some(length), offset) = (
                view.get("byteLength").and_then(index_of),
                view.get("byteOffset").map_or(Some(0), index_of),
            ) else {
                self.f.error(
                    "BUFFER_VIEW_BYTE_LENGTH_INVALID",
                    format!("{p}/byteLength"),
                    "`byteLength` is required and must be a non-negative integer",
                );
                continue;
            };
            let Some(offset) = offset else {
                self.f.error(
                    "BUFFER_VIEW_BYTE_OFFSET_INVALID",
                    format!("{p}/byteOffset"),
                    "`byteOffset` must be a non-negative integer",
                );
                continue;
            };
            if let Some(declared) = buffers[buffer].get("byteLength").and_then(index_of) {
                if offset.checked_add(length).is_none_or(|end| end > declared) {
                    self.f.error(
                        "BUFFER_VIEW_OUT_OF_BOUNDS",
                        p,
                        format!(
                            "bytes {offset}..{} exceed buffer {buffer}'s byteLength {declared}",
                            offset.saturating_add(length)
                        ),
                    );
                }
            }
        }
    }

    fn accessors(&mut self) {
        let views = array(self.doc, "bufferViews");
        for (i, a) in array(self.doc, "accessors").iter().enumerate() {
            let p = format!("/accessors/{i}");
            let view = a
                .get("bufferView")
                .and_then(index_of)
                .filter(|&v| v < views.len());
            if view.is_none() {
                self.f.error(
                    "ACCESSOR_BUFFER_VIEW_INVALID",
                    format!("{p}/bufferView"),
                    "`bufferView` must be a valid buffer view index",
                );
            }
            let component = match a.get("componentType").and_then(Value::as_str) {
                None => {
                    self.f.error(
                        "ACCESSOR_COMPONENT_TYPE_MISSING",
                        format!("{p}/componentType"),
                        "`componentType` is required",
                    );
                    None
                }
                Some(name) => {
                    let c = DefinedComponentType::ALL
                        .into_iter()
                        .find(|d| d.name() == name);
                    if c.is_none() {
                        self.f.warning(
                            "ACCESSOR_COMPONENT_TYPE_UNKNOWN",
                            format!("{p}/componentType"),
                            format!(
                                "`{name}` is not a component type defined by the specification"
                            ),
                        );
                    }
                    c
                }
            };
            let vector_size = match a.get("vectorSize") {
                None => Some(1),
                Some(v) => {
                    let n = index_of(v).filter(|&n| n > 0);
                    if n.is_none() {
                        self.f.error(
                            "ACCESSOR_VECTOR_SIZE_INVALID",
                            format!("{p}/vectorSize"),
                            format!("`vectorSize` must be a positive integer, found {v}"),
                        );
                    }
                    n
                }
            };
            if let (Some(view), Some(c), Some(n)) = (view, component, vector_size) {
                let v = &views[view];
                let offset = v.get("byteOffset").map_or(Some(0), index_of).unwrap_or(0);
                let length = v.get("byteLength").and_then(index_of).unwrap_or(0);
                if offset % c.size() != 0 {
                    self.f.error(
                        "ACCESSOR_MISALIGNED",
                        p.clone(),
                        format!(
                            "buffer view {view} starts at byte {offset}, not a multiple of {} ({})",
                            c.size(),
                            c.name()
                        ),
                    );
                }
                // A vector size from the file can overflow the element size: no element fits then.
                match c.size().checked_mul(n) {
                    Some(element) if length % element == 0 => {}
                    Some(element) => self.f.error("ACCESSOR_PARTIAL_ELEMENT", p, format!("buffer view {view} has {length} bytes, not a whole number of {element}-byte elements")),
                    None => self.f.error("ACCESSOR_PARTIAL_ELEMENT", p, format!("`vectorSize` {n} makes elements larger than any buffer view")),
                }
            }
        }
    }

    fn names(&mut self) {
        let mut seen: HashMap<String, String> = HashMap::new();
        let mut items = Vec::new();
        collect_names(&Value::Object(self.doc.clone()), &mut items);
        for (pointer, name) in items {
            let Some(name) = name.as_str() else {
                self.f
                    .error("NAME_NOT_STRING", pointer, "`name` must be a string");
                continue;
            };
            if let Some(c) = name.chars().find(|c| FORBIDDEN.contains(c)) {
                self.f.error(
                    "NAME_FORBIDDEN_CHARACTER",
                    pointer.clone(),
                    format!("name `{name}` contains the forbidden character `{c}`"),
                );
            }
            if name.chars().any(char::is_control) {
                self.f.error(
                    "NAME_CONTROL_CHARACTER",
                    pointer.clone(),
                    format!("name {name:?} contains a control character"),
                );
            }
            if !name.is_empty() {
                if let Some(first) = seen.get(name) {
                    self.f.error("NAME_DUPLICATE", pointer, format!("name `{name}` is already used at {first}; names must be unique across the file"));
                } else {
                    seen.insert(name.to_owned(), pointer);
                }
            }
        }
    }

    /// Node structure; returns each node's parent.
    fn nodes(&mut self) -> Vec<Option<usize>> {
        let nodes = array(self.doc, "nodes");
        let mut parent: Vec<Option<usize>> = vec![None; nodes.len()];
        for (i, node) in nodes.iter().enumerate() {
            let p = format!("/nodes/{i}");
            let Some(node) = node.as_object() else {
                self.f
                    .error("NODE_NOT_OBJECT", p, "a node must be an object");
                continue;
            };
            if i == 0 {
                for key in ["position", "basis", "rotor", "scale"] {
                    if node.contains_key(key) {
                        self.f.error(
                            "NODE_ROOT_TRANSFORM",
                            format!("{p}/{key}"),
                            "the root node (index 0) must not have transform properties",
                        );
                    }
                }
            }
            let components: Vec<&str> = COMPONENTS
                .iter()
                .copied()
                .filter(|c| node.contains_key(*c))
                .collect();
            if components.len() > 1 {
                self.f.error(
                    "NODE_MULTIPLE_COMPONENTS",
                    p.clone(),
                    format!(
                        "a node may be at most one thing, this one has {}",
                        components.join(", ")
                    ),
                );
            }
            self.transform(node, &p);
            if let Some(children) = node.get("children") {
                let Some(children) = children.as_array() else {
                    self.f.error(
                        "NODE_CHILDREN_INVALID",
                        format!("{p}/children"),
                        "`children` must be an array of node indices",
                    );
                    continue;
                };
                let mut own = HashSet::new();
                for (k, c) in children.iter().enumerate() {
                    let cp = format!("{p}/children/{k}");
                    let Some(c) = self.index(c, &cp, "nodes", "NODE_CHILD_INVALID") else {
                        continue;
                    };
                    if c == 0 {
                        self.f.error(
                            "NODE_ROOT_AS_CHILD",
                            cp,
                            "the root node (index 0) cannot be a child",
                        );
                    } else if !own.insert(c) {
                        self.f.error(
                            "NODE_CHILD_DUPLICATE",
                            cp,
                            format!("node {c} is listed twice"),
                        );
                    } else if let Some(other) = parent[c] {
                        self.f.error(
                            "NODE_MULTIPLE_PARENTS",
                            cp,
                            format!("node {c} is already a child of node {other}"),
                        );
                    } else {
                        parent[c] = Some(i);
                    }
                }
            }
            if let Some(mi) = node.get("meshInstance") {
                self.mesh_instance(mi, &format!("{p}/meshInstance"));
            }
        }
        // Cycles: walking up from any node must end at a node without a parent.
        let mut reported = HashSet::new();
        for start in 0..nodes.len() {
            let mut seen = HashSet::new();
            let mut at = Some(start);
            while let Some(n) = at {
                if !seen.insert(n) {
                    if reported.insert(n) {
                        self.f.error(
                            "NODE_CYCLE",
                            format!("/nodes/{n}"),
                            format!("node {n} is its own ancestor"),
                        );
                    }
                    break;
                }
                at = parent[n];
            }
        }
        for (i, p) in parent.iter().enumerate().skip(1) {
            if p.is_none() {
                self.f.info(
                    "NODE_UNUSED",
                    format!("/nodes/{i}"),
                    format!("node {i} is not a descendant of the root node"),
                );
            }
        }
        parent
    }

    fn transform(&mut self, node: &Map<String, Value>, p: &str) {
        let d = self.dimension;
        let numbers = |v: &Value| {
            v.as_array()
                .filter(|a| a.iter().all(Value::is_number))
                .map(|a| a.iter().filter_map(Value::as_f64).collect::<Vec<f64>>())
        };
        if let Some(v) = node.get("position") {
            match numbers(v) {
                None => self.f.error(
                    "NODE_TRANSFORM_NOT_NUMBERS",
                    format!("{p}/position"),
                    "`position` must be an array of numbers",
                ),
                Some(a) if a.len() != d => self.f.error(
                    "NODE_POSITION_LENGTH",
                    format!("{p}/position"),
                    format!("`position` has {} numbers, the dimension is {d}", a.len()),
                ),
                _ => {}
            }
        }
        if let Some(v) = node.get("basis") {
            match numbers(v) {
                None => self.f.error(
                    "NODE_TRANSFORM_NOT_NUMBERS",
                    format!("{p}/basis"),
                    "`basis` must be an array of numbers",
                ),
                Some(a) if d.checked_mul(d) != Some(a.len()) => self.f.error(
                    "NODE_BASIS_LENGTH",
                    format!("{p}/basis"),
                    format!(
                        "`basis` has {} numbers, a {d}D basis has {}",
                        a.len(),
                        d.checked_mul(d)
                            .map_or("too many".into(), |n| n.to_string())
                    ),
                ),
                _ => {}
            }
            for key in ["rotor", "scale"] {
                if node.contains_key(key) {
                    self.f.error(
                        "NODE_BASIS_WITH_ROTOR_OR_SCALE",
                        format!("{p}/{key}"),
                        format!("`basis` must not be used with `{key}`"),
                    );
                }
            }
        }
        if let Some(v) = node.get("scale") {
            match numbers(v) {
                None => self.f.error(
                    "NODE_TRANSFORM_NOT_NUMBERS",
                    format!("{p}/scale"),
                    "`scale` must be an array of numbers",
                ),
                Some(a) => {
                    if a.len() != 1 && a.len() != d {
                        self.f.error(
                            "NODE_SCALE_LENGTH",
                            format!("{p}/scale"),
                            format!("`scale` must have 1 or {d} numbers, found {}", a.len()),
                        );
                    }
                    if a.iter().any(|&s| s <= 0.0) {
                        self.f.error("NODE_SCALE_NOT_POSITIVE", format!("{p}/scale"), "scale values must be positive (use a basis with negative determinant to flip)");
                    }
                }
            }
        }
        if let Some(v) = node.get("rotor") {
            // Dimensions from the file: saturate rather than overflow (no array is that long).
            let bivector = d
                .checked_mul(d.saturating_sub(1))
                .map_or(usize::MAX, |n| 1 + n / 2);
            let full = u32::try_from(d.saturating_sub(1))
                .ok()
                .and_then(|shift| 1usize.checked_shl(shift))
                .unwrap_or(usize::MAX);
            match numbers(v) {
                None => self.f.error(
                    "NODE_TRANSFORM_NOT_NUMBERS",
                    format!("{p}/rotor"),
                    "`rotor` must be an array of numbers",
                ),
                Some(a) if a.len() < bivector || a.len() > full.max(bivector) => self.f.error(
                    "NODE_ROTOR_LENGTH",
                    format!("{p}/rotor"),
                    format!(
                        "a {d}D rotor has {bivector} to {} numbers, found {}",
                        full.max(bivector),
                        a.len()
                    ),
                ),
                _ => {}
            }
        }
    }

    fn mesh_instance(&mut self, mi: &Value, p: &str) {
        let Some(mesh) = mi.get("mesh") else {
            self.f.error(
                "MESH_INSTANCE_MESH_MISSING",
                p,
                "`meshInstance.mesh` is required",
            );
            return;
        };
        let Some(mesh) = self.index(
            mesh,
            &format!("{p}/mesh"),
            "meshes",
            "MESH_INSTANCE_MESH_INVALID",
        ) else {
            return;
        };
        if let Some(materials) = mi.get("materials").and_then(Value::as_array) {
            let surfaces = array(self.doc, "meshes")[mesh]
                .get("surfaces")
                .and_then(Value::as_array)
                .map_or(0, Vec::len);
            if materials.is_empty() || (materials.len() != 1 && materials.len() != surfaces) {
                self.f.error(
                    "MESH_INSTANCE_MATERIALS_LENGTH",
                    format!("{p}/materials"),
                    format!(
                        "`materials` must have 1 or {surfaces} entries (one per surface), found {}",
                        materials.len()
                    ),
                );
            }
            for (k, m) in materials.iter().enumerate() {
                if m.as_i64() != Some(-1) {
                    self.index(
                        m,
                        &format!("{p}/materials/{k}"),
                        "materials",
                        "MESH_INSTANCE_MATERIAL_INVALID",
                    );
                }
            }
        }
    }

    fn skeletons(&mut self, parents: &[Option<usize>]) {
        let nodes = array(self.doc, "nodes");
        let is_bone = |i: usize| nodes.get(i).is_some_and(|n| n.get("bone").is_some());
        let is_skeleton = |i: usize| nodes.get(i).is_some_and(|n| n.get("skeleton").is_some());
        // Which skeleton each bone belongs to: a contiguous chain of bones up to a skeleton.
        let mut owner: Vec<Option<usize>> = vec![None; nodes.len()];
        for i in (0..nodes.len()).filter(|&i| is_bone(i)) {
            let mut at = parents[i];
            let mut steps = 0;
            while let Some(n) = at {
                steps += 1;
                if is_skeleton(n) {
                    owner[i] = Some(n);
                    break;
                }
                if !is_bone(n) || steps > nodes.len() {
                    break;
                }
                at = parents[n];
            }
            if owner[i].is_none() {
                self.f.error("BONE_NOT_IN_SKELETON", format!("/nodes/{i}"), "a bone's parent must be a bone or a skeleton, in a chain up to a skeleton node");
            }
            let bone = &nodes[i]["bone"];
            let p = format!("/nodes/{i}/bone");
            let length = bone.get("length");
            if let Some(l) = length {
                match l.as_f64() {
                    Some(-1.0) => self.f.error(
                        "BONE_LENGTH_NEGATIVE",
                        format!("{p}/length"),
                        "-1 is reserved for undefined lengths in memory and must not be written",
                    ),
                    Some(v) if v < 0.0 => self.f.error(
                        "BONE_LENGTH_NEGATIVE",
                        format!("{p}/length"),
                        format!("bone length {v} is negative"),
                    ),
                    None => self.f.error(
                        "BONE_LENGTH_NOT_NUMBER",
                        format!("{p}/length"),
                        "`length` must be a number",
                    ),
                    _ => {}
                }
            }
            if let Some(m) = bone.get("mass") {
                if m.as_f64().is_none_or(|v| v < 0.0) {
                    self.f.error(
                        "BONE_MASS_NEGATIVE",
                        format!("{p}/mass"),
                        format!("bone mass {m} must be a non-negative number"),
                    );
                }
            }
            if let Some(shape) = bone.get("shape") {
                if length.is_none() {
                    self.f.error(
                        "BONE_SHAPE_WITHOUT_LENGTH",
                        format!("{p}/shape"),
                        "a bone with a `shape` must define `length`",
                    );
                }
                self.index(shape, &format!("{p}/shape"), "shapes", "BONE_SHAPE_INVALID");
            }
        }
        for s in (0..nodes.len()).filter(|&i| is_skeleton(i)) {
            let p = format!("/nodes/{s}/skeleton");
            let children: Vec<usize> = nodes[s]
                .get("children")
                .and_then(Value::as_array)
                .map(|c| c.iter().filter_map(index_of).collect())
                .unwrap_or_default();
            let root_bones: Vec<usize> = children.iter().copied().filter(|&c| is_bone(c)).collect();
            if root_bones.len() == 1 && children.first() != Some(&root_bones[0]) {
                self.f.error(
                    "SKELETON_ROOT_BONE_NOT_FIRST_CHILD",
                    format!("/nodes/{s}/children"),
                    format!(
                        "the single root bone (node {}) must be the skeleton's first child",
                        root_bones[0]
                    ),
                );
            }
            let Some(joints) = nodes[s]["skeleton"].get("joints") else {
                continue;
            };
            let Some(joints) = joints.as_array() else {
                self.f.error(
                    "SKELETON_JOINTS_INVALID",
                    format!("{p}/joints"),
                    "`joints` must be an array of node indices",
                );
                continue;
            };
            let mut previous: Option<usize> = None;
            let mut listed: Vec<usize> = Vec::new();
            for (k, j) in joints.iter().enumerate() {
                let jp = format!("{p}/joints/{k}");
                if j.as_i64() == Some(-1) {
                    self.f.warning("SKELETON_JOINT_UNCONTROLLED", jp, "-1 (a joint no bone controls) is allowed by the skeleton text but not by the index schema");
                    continue;
                }
                let Some(j) = self.index(j, &jp, "nodes", "SKELETON_JOINT_INVALID") else {
                    continue;
                };
                if !is_bone(j) {
                    self.f.error(
                        "SKELETON_JOINT_NOT_BONE",
                        jp.clone(),
                        format!("joint node {j} is not a bone"),
                    );
                } else if owner[j] != Some(s) {
                    self.f.error(
                        "SKELETON_JOINT_OUTSIDE_SKELETON",
                        jp.clone(),
                        format!("bone {j} does not belong to this skeleton"),
                    );
                }
                if previous.is_some_and(|prev| j <= prev) {
                    self.f.error(
                        "SKELETON_JOINTS_NOT_INCREASING",
                        jp.clone(),
                        format!(
                            "joint {j} follows {}: joints must be strictly increasing",
                            previous.unwrap_or(0)
                        ),
                    );
                }
                // A joint's ancestor bones that are joints must come first.
                let mut at = parents[j];
                let mut steps = 0;
                while let Some(a) = at.filter(|&a| is_bone(a)) {
                    steps += 1;
                    if steps > nodes.len() {
                        break;
                    }
                    if joints.iter().skip(k + 1).any(|x| index_of(x) == Some(a)) {
                        self.f.error(
                            "SKELETON_JOINT_PARENT_AFTER_CHILD",
                            jp.clone(),
                            format!("joint {j} is listed before its ancestor bone {a}"),
                        );
                    }
                    at = parents[a];
                }
                previous = Some(j);
                listed.push(j);
            }
            if root_bones.len() == 1
                && listed.contains(&root_bones[0])
                && joints.first().and_then(index_of) != Some(root_bones[0])
            {
                self.f.error(
                    "SKELETON_ROOT_BONE_NOT_FIRST_JOINT",
                    format!("{p}/joints"),
                    format!(
                        "the single root bone (node {}) skins, so it must be joints[0]",
                        root_bones[0]
                    ),
                );
            }
        }
    }

    fn accessor_ref(
        &mut self,
        value: Option<&Value>,
        pointer: &str,
        code: &'static str,
    ) -> Option<AccessorInfo<'a>> {
        let value = value?;
        let i = self.index(value, pointer, "accessors", code)?;
        self.accessor(i)
    }

    fn meshes(&mut self, parents: &[Option<usize>]) {
        let nodes = array(self.doc, "nodes");
        let simplex_size = if self.dimension == 2 {
            3
        } else {
            self.dimension
        };
        for (m, mesh) in array(self.doc, "meshes").iter().enumerate() {
            let p = format!("/meshes/{m}");
            let vertices = match mesh.get("vertices") {
                None => {
                    self.f
                        .error("MESH_VERTICES_MISSING", p.clone(), "`vertices` is required");
                    None
                }
                Some(v) => {
                    self.accessor_ref(Some(v), &format!("{p}/vertices"), "MESH_VERTICES_INVALID")
                }
            };
            let vertex_count = vertices.as_ref().and_then(AccessorInfo::element_count);
            if let Some(v) = &vertices {
                if v.component.is_some_and(|c| !c.is_float()) {
                    self.f.warning(
                        "MESH_VERTICES_NOT_FLOAT",
                        format!("{p}/vertices"),
                        "vertex positions SHOULD be floating point",
                    );
                }
                if v.vector_size != self.dimension {
                    self.f.warning(
                        "MESH_VERTICES_VECTOR_SIZE",
                        format!("{p}/vertices"),
                        format!(
                            "vertices SHOULD have vectorSize {} (the dimension), found {}",
                            self.dimension, v.vector_size
                        ),
                    );
                }
            }
            let surfaces = mesh.get("surfaces").and_then(Value::as_array);
            if surfaces.is_none_or(|s| s.is_empty()) {
                self.f.error(
                    "MESH_SURFACES_EMPTY",
                    format!("{p}/surfaces"),
                    "a mesh needs at least one surface",
                );
            }
            for (s, surface) in surfaces.map_or(&[][..], Vec::as_slice).iter().enumerate() {
                let sp = format!("{p}/surfaces/{s}");
                let simplexes = self.accessor_ref(
                    surface.get("simplexes"),
                    &format!("{sp}/simplexes"),
                    "SURFACE_SIMPLEXES_INVALID",
                );
                let simplex_count = simplexes.as_ref().and_then(AccessorInfo::element_count);
                if let Some(acc) = &simplexes {
                    self.index_accessor(
                        acc,
                        &format!("{sp}/simplexes"),
                        simplex_size,
                        vertex_count,
                        "SURFACE_SIMPLEXES",
                        "vertex",
                    );
                }
                if let Some(edges) = self.accessor_ref(
                    surface.get("edges"),
                    &format!("{sp}/edges"),
                    "SURFACE_EDGES_INVALID",
                ) {
                    self.index_accessor(
                        &edges,
                        &format!("{sp}/edges"),
                        2,
                        vertex_count,
                        "SURFACE_EDGES",
                        "vertex",
                    );
                }
                for (key, code) in [
                    ("geometry", "SURFACE_GEOMETRY_WITHOUT_EDGES"),
                    ("seams", "SURFACE_SEAMS_WITHOUT_EDGES"),
                ] {
                    if surface.get(key).is_some() && surface.get("edges").is_none() {
                        self.f.error(
                            code,
                            format!("{sp}/{key}"),
                            format!("`{key}` requires `edges`"),
                        );
                    }
                }
                if surface.get("polytopeSimplexes") == Some(&Value::Bool(true)) {
                    if let (Some(simplexes), Some(vertices)) = (&simplexes, &vertices) {
                        self.polytopes_flat(&sp, simplexes, vertices);
                    }
                }
                if surface.get("polytopeSimplexes").is_some() && surface.get("simplexes").is_none()
                {
                    self.f.error(
                        "SURFACE_POLYTOPE_WITHOUT_SIMPLEXES",
                        format!("{sp}/polytopeSimplexes"),
                        "`polytopeSimplexes` requires `simplexes`",
                    );
                }
                if let Some(material) = surface.get("material") {
                    self.index(
                        material,
                        &format!("{sp}/material"),
                        "materials",
                        "SURFACE_MATERIAL_INVALID",
                    );
                }
                for key in ["textureMap", "normals"] {
                    if let Some(binding) = surface.get(key) {
                        self.binding(
                            binding,
                            &format!("{sp}/{key}"),
                            key == "normals",
                            simplexes.as_ref(),
                            simplex_count,
                        );
                    }
                }
            }
            if let Some(skin) = mesh.get("skin") {
                self.skin(skin, &format!("{p}/skin"), m, vertex_count, nodes, parents);
            }
        }
    }

    /// skeleton.md: group names MUST match those of other skinned meshes using the same
    /// skeleton: where two such skins both name a group index, the names agree, and a name
    /// both use sits at the same index.
    fn shared_group_names(&mut self, parents: &[Option<usize>]) {
        let nodes = array(self.doc, "nodes");
        let meshes = array(self.doc, "meshes");
        // Skeleton node -> (mesh, its group names), first user first.
        let mut users: Vec<(usize, Vec<NamedSkin<'_>>)> = Vec::new();
        for (n, node) in nodes.iter().enumerate() {
            let Some(m) = node
                .get("meshInstance")
                .and_then(|mi| mi.get("mesh"))
                .and_then(index_of)
            else {
                continue;
            };
            let Some(skeleton) = parents
                .get(n)
                .copied()
                .flatten()
                .filter(|&pa| nodes.get(pa).is_some_and(|p| p.get("skeleton").is_some()))
            else {
                continue;
            };
            let Some(names) = meshes
                .get(m)
                .and_then(|mesh| mesh.get("skin"))
                .and_then(|skin| skin.get("groupNames"))
                .and_then(Value::as_array)
            else {
                continue;
            };
            let names: Vec<&str> = names.iter().map(|v| v.as_str().unwrap_or("")).collect();
            match users.iter_mut().find(|(s, _)| *s == skeleton) {
                Some((_, list)) => {
                    if !list.iter().any(|(seen, _)| *seen == m) {
                        list.push((m, names));
                    }
                }
                None => users.push((skeleton, vec![(m, names)])),
            }
        }
        for (skeleton, list) in users {
            let Some(((first_mesh, first), rest)) = list.split_first() else {
                continue;
            };
            let index_of_name: HashMap<&str, usize> =
                first.iter().enumerate().map(|(k, n)| (*n, k)).collect();
            for (m, names) in rest {
                let clash = names.iter().enumerate().find_map(|(k, name)| {
                    let same_index = first.get(k).is_some_and(|f| f != name);
                    let moved = index_of_name.get(name).is_some_and(|&j| j != k);
                    (same_index || moved).then_some((k, *name))
                });
                if let Some((k, name)) = clash {
                    self.f.error(
                        "SKIN_GROUP_NAMES_DIFFER",
                        format!("/meshes/{m}/skin/groupNames/{k}"),
                        format!(
                            "group {k} is `{name}` here but mesh {first_mesh}, skinned to the same skeleton (node {skeleton}), numbers its groups differently (`{}` at {k}); skins sharing a skeleton must agree",
                            first.get(k).copied().unwrap_or("nothing")
                        ),
                    );
                }
            }
        }
    }

    /// `polytopeSimplexes`: the simplexes of one polytope (consecutive, same first vertex) MUST
    /// have normals pointing the same way, within [`rules::POLYTOPE_NORMAL_TOLERANCE`]. Checked
    /// for 3D triangles with readable, in-range data (other problems are reported elsewhere).
    fn polytopes_flat(
        &mut self,
        sp: &str,
        simplexes: &AccessorInfo<'_>,
        vertices: &AccessorInfo<'_>,
    ) {
        if self.dimension != 3 || simplexes.vector_size != 3 || vertices.vector_size != 3 {
            return;
        }
        let (Some(indices), Some(positions)) = (simplexes.values(), vertices.values()) else {
            return;
        };
        let vertex_count = positions.len() / 3;
        let corner = |i: f64| -> Option<[f64; 3]> {
            let i = i as usize;
            (i < vertex_count)
                .then(|| [positions[3 * i], positions[3 * i + 1], positions[3 * i + 2]])
        };
        let triangles = indices.chunks_exact(3);
        let mut bent = 0usize;
        let mut first_bent: Option<(usize, f64)> = None;
        let mut polytopes = 0usize;
        let mut start = 0usize;
        let count = triangles.len();
        while start < count {
            let first = indices[3 * start];
            let mut end = start + 1;
            while end < count && indices[3 * end] == first {
                end += 1;
            }
            polytopes += 1;
            let corners: Option<Vec<[[f64; 3]; 3]>> = (start..end)
                .map(|t| {
                    Some([
                        corner(indices[3 * t])?,
                        corner(indices[3 * t + 1])?,
                        corner(indices[3 * t + 2])?,
                    ])
                })
                .collect();
            if let Some(corners) = corners {
                let bend = rules::polytope_bend(corners);
                if bend > rules::POLYTOPE_NORMAL_TOLERANCE {
                    bent += 1;
                    first_bent.get_or_insert((start, bend));
                }
            }
            start = end;
        }
        if let Some((simplex, bend)) = first_bent {
            self.f.error(
                "SURFACE_POLYTOPE_NOT_FLAT",
                format!("{sp}/polytopeSimplexes"),
                format!(
                    "{bent} of {polytopes} polytopes have simplexes whose normals differ by more than {} rad; the first starts at simplex {simplex} and bends by {bend:.4} rad (write `polytopeSimplexes: false` for non-planar polygons)",
                    rules::POLYTOPE_NORMAL_TOLERANCE
                ),
            );
        }
    }

    /// An accessor of indices: integer type, vector size, every index below `bound`.
    fn index_accessor(
        &mut self,
        acc: &AccessorInfo<'_>,
        p: &str,
        vector_size: usize,
        bound: Option<usize>,
        prefix: &'static str,
        what: &str,
    ) {
        let (not_integer, bad_size, out_of_range) = match prefix {
            "SURFACE_SIMPLEXES" => (
                "SURFACE_SIMPLEXES_NOT_INTEGER",
                "SURFACE_SIMPLEXES_VECTOR_SIZE",
                "SURFACE_SIMPLEX_INDEX_OUT_OF_RANGE",
            ),
            "SURFACE_EDGES" => (
                "SURFACE_EDGES_NOT_INTEGER",
                "SURFACE_EDGES_VECTOR_SIZE",
                "SURFACE_EDGE_INDEX_OUT_OF_RANGE",
            ),
            _ => (
                "BINDING_INDICES_NOT_INTEGER",
                "BINDING_INDICES_VECTOR_SIZE",
                "BINDING_INDEX_OUT_OF_RANGE",
            ),
        };
        if acc.component.is_some_and(|c| !c.is_integer()) {
            self.f.error(
                not_integer,
                p,
                "indices must have an integer component type",
            );
            return;
        }
        if acc.vector_size != vector_size {
            self.f.error(
                bad_size,
                p,
                format!(
                    "vectorSize must be {vector_size}, found {}",
                    acc.vector_size
                ),
            );
        }
        if let (Some(values), Some(bound)) = (acc.values(), bound) {
            let bad: Vec<&f64> = values
                .iter()
                .filter(|&&v| v < 0.0 || v >= bound as f64)
                .collect();
            if let Some(first) = bad.first() {
                self.f.error(
                    out_of_range,
                    p,
                    format!(
                        "{} indices are outside the {bound} {what}s (first: {first})",
                        bad.len()
                    ),
                );
            }
        }
    }

    fn binding(
        &mut self,
        binding: &Value,
        p: &str,
        normals: bool,
        simplexes: Option<&AccessorInfo<'_>>,
        simplex_count: Option<usize>,
    ) {
        let values = match binding.get("values") {
            None => {
                self.f
                    .error("BINDING_VALUES_MISSING", p, "`values` is required");
                None
            }
            Some(v) => self.accessor_ref(Some(v), &format!("{p}/values"), "BINDING_VALUES_INVALID"),
        };
        let value_count = values.as_ref().and_then(AccessorInfo::element_count);
        if let Some(v) = &values {
            if v.component.is_some_and(|c| !c.is_float()) {
                self.f.error(
                    "BINDING_VALUES_NOT_FLOAT",
                    format!("{p}/values"),
                    "binding values must be floating point",
                );
            }
            if normals {
                if v.vector_size != self.dimension {
                    self.f.error(
                        "NORMALS_VECTOR_SIZE",
                        format!("{p}/values"),
                        format!(
                            "normals must have vectorSize {}, found {}",
                            self.dimension, v.vector_size
                        ),
                    );
                } else if let Some(data) = v.values() {
                    let off = data
                        .chunks(self.dimension.max(1))
                        .filter(|n| {
                            (n.iter().map(|x| x * x).sum::<f64>().sqrt() - 1.0).abs() > 1e-3
                        })
                        .count();
                    if off > 0 {
                        self.f.error(
                            "NORMALS_NOT_UNIT",
                            format!("{p}/values"),
                            format!("{off} normals are not unit length"),
                        );
                    }
                }
            }
        }
        if let Some(s) = binding.get("simplexes") {
            match simplexes {
                None => self.f.error(
                    "BINDING_SIMPLEXES_WITHOUT_SURFACE_SIMPLEXES",
                    format!("{p}/simplexes"),
                    "per-corner indices need the surface's simplexes",
                ),
                Some(surface) => self.binding_index_accessor(
                    s,
                    &format!("{p}/simplexes"),
                    surface.vector_size,
                    value_count,
                    simplex_count,
                    ["BINDING_SIMPLEXES_INVALID", "BINDING_SIMPLEXES_COUNT"],
                ),
            }
        }
        if let Some(s) = binding.get("perSimplex") {
            self.binding_index_accessor(
                s,
                &format!("{p}/perSimplex"),
                1,
                value_count,
                simplex_count,
                ["BINDING_PER_SIMPLEX_INVALID", "BINDING_PER_SIMPLEX_COUNT"],
            );
        }
    }

    /// A binding's index accessor into its values, one element per simplex. `codes`: when it is
    /// not an accessor, and when its element count is not the simplex count.
    fn binding_index_accessor(
        &mut self,
        reference: &Value,
        pointer: &str,
        vector_size: usize,
        value_count: Option<usize>,
        simplex_count: Option<usize>,
        [invalid, wrong_count]: [&'static str; 2],
    ) {
        let Some(acc) = self.accessor_ref(Some(reference), pointer, invalid) else {
            return;
        };
        self.index_accessor(&acc, pointer, vector_size, value_count, "BINDING", "value");
        if let (Some(a), Some(b)) = (acc.element_count(), simplex_count) {
            if a != b {
                self.f.error(
                    wrong_count,
                    pointer,
                    format!("{a} elements for {b} simplexes"),
                );
            }
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn skin(
        &mut self,
        skin: &Value,
        p: &str,
        mesh: usize,
        vertex_count: Option<usize>,
        nodes: &[Value],
        parents: &[Option<usize>],
    ) {
        let get = |key: &str, me: &mut Self| match skin.get(key) {
            None => {
                me.f.error("SKIN_ACCESSOR_MISSING", p, format!("`{key}` is required"));
                None
            }
            Some(v) => me.accessor_ref(Some(v), &format!("{p}/{key}"), "SKIN_ACCESSOR_INVALID"),
        };
        let groups = get("groups", self);
        let vertices = get("vertices", self);
        let weights = get("weights", self);
        for (acc, key, unsigned) in [
            (&groups, "groups", true),
            (&vertices, "vertices", true),
            (&weights, "weights", false),
        ] {
            let Some(acc) = acc else { continue };
            let ok = acc.component.is_none_or(|c| {
                if unsigned {
                    c.is_unsigned()
                } else {
                    c.is_float()
                }
            });
            if !ok {
                let code = match key {
                    "groups" => "SKIN_GROUPS_NOT_UNSIGNED",
                    "vertices" => "SKIN_VERTICES_NOT_UNSIGNED",
                    _ => "SKIN_WEIGHTS_NOT_FLOAT",
                };
                self.f.error(
                    code,
                    format!("{p}/{key}"),
                    format!(
                        "`{key}` must be {}",
                        if unsigned {
                            "an unsigned integer type"
                        } else {
                            "a floating-point type"
                        }
                    ),
                );
            }
            if acc.vector_size != 1 {
                self.f.error(
                    "SKIN_VECTOR_SIZE",
                    format!("{p}/{key}"),
                    format!("`{key}` must have vectorSize 1, found {}", acc.vector_size),
                );
            }
        }
        let counts = [&groups, &vertices, &weights]
            .map(|a| a.as_ref().and_then(AccessorInfo::element_count));
        if let [Some(a), Some(b), Some(c)] = counts {
            if a != b || b != c {
                self.f.error("SKIN_LENGTH_MISMATCH", p, format!("groups, vertices and weights have {a}, {b} and {c} elements; they must be equal"));
            }
        }
        // Group names.
        if let Some(names) = skin.get("groupNames").and_then(Value::as_array) {
            let mut seen = HashSet::new();
            for (k, n) in names.iter().enumerate() {
                let np = format!("{p}/groupNames/{k}");
                match n.as_str() {
                    None => self.f.error(
                        "SKIN_GROUP_NAME_NOT_STRING",
                        np,
                        "group names must be strings",
                    ),
                    Some("") => {
                        self.f
                            .error("SKIN_GROUP_NAME_EMPTY", np, "group names must not be empty")
                    }
                    Some(s) if !seen.insert(s) => self.f.error(
                        "SKIN_GROUP_NAME_DUPLICATE",
                        np,
                        format!("group name `{s}` is repeated"),
                    ),
                    _ => {}
                }
            }
        }
        // Placement: used by a skeleton when instanced on a direct child of a skeleton node.
        let mut joint_count = None;
        for (n, node) in nodes.iter().enumerate() {
            if node
                .get("meshInstance")
                .and_then(|mi| mi.get("mesh"))
                .and_then(index_of)
                != Some(mesh)
            {
                continue;
            }
            match parents.get(n).copied().flatten().filter(|&pa| nodes[pa].get("skeleton").is_some()) {
                Some(skeleton) => {
                    joint_count = nodes[skeleton]["skeleton"].get("joints").and_then(Value::as_array).map(Vec::len).or(Some(0));
                }
                None => self.f.warning("SKIN_MESH_NOT_UNDER_SKELETON", format!("/nodes/{n}"), format!("node {n} instances skinned mesh {mesh} but is not a direct child of a skeleton node")),
            }
        }
        // Data order and ranges.
        let (Some(v), Some(g), Some(w)) = (
            vertices.as_ref().and_then(AccessorInfo::values),
            groups.as_ref().and_then(AccessorInfo::values),
            weights.as_ref().and_then(AccessorInfo::values),
        ) else {
            return;
        };
        let n = v.len().min(g.len()).min(w.len());
        if let Some(i) = (1..v.len()).find(|&i| v[i] < v[i - 1]) {
            self.f.error(
                "SKIN_VERTICES_NOT_ASCENDING",
                format!("{p}/vertices"),
                format!(
                    "vertex indices decrease at element {i} ({} after {})",
                    v[i],
                    v[i - 1]
                ),
            );
        }
        if let Some(i) = (1..n).find(|&i| v[i] == v[i - 1] && w[i] > w[i - 1]) {
            self.f.error(
                "SKIN_WEIGHTS_NOT_DESCENDING",
                format!("{p}/weights"),
                format!(
                    "vertex {}'s weights rise at element {i} ({} after {})",
                    v[i],
                    w[i],
                    w[i - 1]
                ),
            );
        }
        if let Some(count) = vertex_count {
            let beyond = v.iter().filter(|&&x| x >= count as f64).count();
            if beyond > 0 {
                self.f.error(
                    "SKIN_VERTEX_OUT_OF_RANGE",
                    format!("{p}/vertices"),
                    format!("{beyond} vertex indices are beyond the mesh's {count} vertices"),
                );
            }
        }
        if let Some(joints) = joint_count {
            let beyond = g.iter().filter(|&&x| x >= joints as f64).count();
            if beyond > 0 {
                self.f.warning("SKIN_GROUP_BEYOND_JOINTS", format!("{p}/groups"), format!("{beyond} group indices are beyond the skeleton's {joints} joints; those groups do nothing"));
            }
        }
        if let Some(bad) = w.iter().position(|x| !x.is_finite()) {
            self.f.error(
                "SKIN_WEIGHT_NOT_FINITE",
                format!("{p}/weights"),
                format!("weight {bad} is not finite"),
            );
            return;
        }
        let negative = w.iter().filter(|&&x| x < 0.0).count();
        if negative > 0 {
            self.f.warning(
                "SKIN_WEIGHT_NEGATIVE",
                format!("{p}/weights"),
                format!("{negative} weights are negative"),
            );
        }
        let mut sums: HashMap<u64, f64> = HashMap::new();
        for i in 0..n {
            *sums.entry(v[i] as u64).or_default() += w[i];
        }
        let off: Vec<f64> = sums
            .values()
            .copied()
            .filter(|s| (s - 1.0).abs() > self.weight_tolerance)
            .collect();
        if !off.is_empty() {
            let (lo, hi) = off
                .iter()
                .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), &s| {
                    (a.min(s), b.max(s))
                });
            self.f.warning(
                "SKIN_WEIGHT_SUM",
                format!("{p}/weights"),
                format!(
                    "{} vertices have weight sums far from 1 (from {lo:.4} to {hi:.4})",
                    off.len()
                ),
            );
        }
        if let Some(count) = vertex_count {
            let unweighted =
                count.saturating_sub(sums.keys().filter(|&&x| (x as usize) < count).count());
            if unweighted > 0 {
                self.f.warning(
                    "SKIN_VERTICES_UNWEIGHTED",
                    format!("{p}/vertices"),
                    format!("{unweighted} of {count} vertices are moved by no group"),
                );
            }
        }
    }

    fn materials(&mut self) {
        for (i, m) in array(self.doc, "materials").iter().enumerate() {
            if !m.is_object() {
                self.f.error(
                    "MATERIAL_NOT_OBJECT",
                    format!("/materials/{i}"),
                    "a material must be an object",
                );
            }
        }
    }
}

fn escape(token: &str) -> String {
    token.replace('~', "~0").replace('/', "~1")
}

/// Calls `visit` with every item (every JSON object outside `extras`) and its pointer.
fn for_each_item(value: &Value, pointer: &str, visit: &mut dyn FnMut(&str, &Map<String, Value>)) {
    match value {
        Value::Object(map) => {
            visit(pointer, map);
            for (k, v) in map {
                if k != "extras" {
                    for_each_item(v, &format!("{pointer}/{}", escape(k)), visit);
                }
            }
        }
        Value::Array(items) => {
            for (i, v) in items.iter().enumerate() {
                for_each_item(v, &format!("{pointer}/{i}"), visit);
            }
        }
        _ => {}
    }
}

/// Every `name` of an item, with its pointer.
fn collect_names(value: &Value, out: &mut Vec<(String, Value)>) {
    for_each_item(value, "", &mut |pointer, item| {
        if let Some(name) = item.get("name") {
            out.push((format!("{pointer}/name"), name.clone()));
        }
    });
}

/// Every key of every item's `extensions` object.
fn find_extensions(value: &Value, found: &mut dyn FnMut(String, &str)) {
    for_each_item(value, "", &mut |pointer, item| {
        if let Some(extensions) = item.get("extensions").and_then(Value::as_object) {
            for name in extensions.keys() {
                found(format!("{pointer}/extensions/{}", escape(name)), name);
            }
        }
    });
}
