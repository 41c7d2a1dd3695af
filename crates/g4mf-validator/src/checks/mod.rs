//! The document checks, over the raw JSON `Value` so that one malformed property never hides
//! the others. Data-dependent checks (indices in range, sort orders) read accessor bytes.
//!
//! One module per area of the specification: [`asset`] (asset, names, extensions), [`data`]
//! (buffer views, accessors), [`nodes`] (tree, transforms, components), [`skeleton`],
//! [`mesh`] (meshes, surfaces, bindings), [`materials`] (materials, their channels, texture
//! maps against their textures), [`skin`], [`textures`] (files, textures, the thumbnail),
//! [`blend`] (blend shapes). This module holds the shared walker and accessor reading.

mod asset;
mod blend;
mod data;
mod humanoid;
mod images;
mod materials;
mod mesh;
mod nodes;
mod skeleton;
mod skin;
mod textures;

use crate::report::{Code, Findings};
use g4mf_model::{DefinedComponentType, rules};
use location::pointer_token;
use serde_json::{Map, Value};
use std::collections::{HashMap, HashSet};

/// Components a node may have, of which at most one.
pub(crate) const COMPONENTS: [&str; 7] = [
    "bone",
    "camera",
    "light",
    "meshInstance",
    "modelInstance",
    "physics",
    "skeleton",
];
/// Characters G4MF names must not contain.
pub(crate) const FORBIDDEN: &[char] = &[
    '"', '#', '%', '*', '.', ':', '|', '?', '@', '<', '>', '{', '}', '[', ']', '/', '\\',
];

/// A buffer view's buffer index, byte offset and byte length, when all are valid numbers.
pub(crate) fn view_range(view: &Value) -> Option<(usize, usize, usize)> {
    Some((
        view.get("buffer").map_or(Some(0), index_of)?,
        view.get("byteOffset").map_or(Some(0), index_of)?,
        index_of(view.get("byteLength")?)?,
    ))
}

/// A non-negative integer index, if `v` is one.
pub(crate) fn index_of(v: &Value) -> Option<usize> {
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

/// The codes of one kind of index accessor: not integers, wrong vector size, out of range.
#[derive(Debug, Clone, Copy)]
pub(crate) struct IndexCodes {
    not_integer: Code,
    bad_size: Code,
    out_of_range: Code,
}

impl IndexCodes {
    const SIMPLEXES: IndexCodes = IndexCodes {
        not_integer: Code::SurfaceSimplexesNotInteger,
        bad_size: Code::SurfaceSimplexesVectorSize,
        out_of_range: Code::SurfaceSimplexIndexOutOfRange,
    };
    const EDGES: IndexCodes = IndexCodes {
        not_integer: Code::SurfaceEdgesNotInteger,
        bad_size: Code::SurfaceEdgesVectorSize,
        out_of_range: Code::SurfaceEdgeIndexOutOfRange,
    };
    const BINDING: IndexCodes = IndexCodes {
        not_integer: Code::BindingIndicesNotInteger,
        bad_size: Code::BindingIndicesVectorSize,
        out_of_range: Code::BindingIndexOutOfRange,
    };
}

/// What a binding is for, which decides what its values must be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum BindingKind {
    /// Texture coordinates (a surface's or a material channel's `textureMap`): floating point.
    TextureMap,
    /// A surface's `normals`: floating point, the dimension's vector size, unit length.
    Normals,
    /// A material channel's `elementMap`: channel data of any component type.
    ElementMap,
}

/// A surface whose simplexes a binding's indices must fit: `None` for the surface the binding
/// belongs to, or the pointer of a surface using the material the binding belongs to; and the
/// vector size and element count of its simplexes, when it has a readable `simplexes`.
#[derive(Debug, Clone)]
pub(crate) struct Fit {
    pub surface: Option<String>,
    pub simplexes: Option<(usize, Option<usize>)>,
}

/// A mesh index and its skin's group names.
pub(crate) type NamedSkin<'v> = (usize, Vec<&'v str>);

pub(crate) struct Checker<'a> {
    pub doc: &'a Map<String, Value>,
    pub buffers: &'a [Option<Vec<u8>>],
    /// The file's folder, against which relative image URIs resolve (unknown for bytes).
    pub folder: Option<&'a std::path::Path>,
    /// Limits and permissions for reading what the file refers to.
    pub read: &'a g4mf_reader::ReadOptions,
    pub dimension: usize,
    pub weight_tolerance: f64,
    pub f: Findings,
}

pub(crate) fn array<'v>(doc: &'v Map<String, Value>, key: &str) -> &'v [Value] {
    doc.get(key)
        .and_then(Value::as_array)
        .map_or(&[], Vec::as_slice)
}

impl<'a> Checker<'a> {
    pub(crate) fn count(&self, key: &str) -> usize {
        array(self.doc, key).len()
    }

    /// Checks that `value` (at `pointer`) is a valid index into `target`; returns it.
    pub(crate) fn index(
        &mut self,
        value: &Value,
        pointer: &str,
        target: &str,
        code: Code,
    ) -> Option<usize> {
        match index_of(value) {
            Some(i) if i < self.count(target) => Some(i),
            _ => {
                self.f.at(
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

    pub(crate) fn accessor(&self, i: usize) -> Option<AccessorInfo<'a>> {
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
        let (buffer_index, offset, length) = view_range(view)?;
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

    pub(crate) fn run(&mut self) {
        self.asset();
        self.buffer_views();
        self.accessors();
        self.names();
        let parents = self.nodes();
        self.skeletons(&parents);
        self.meshes(&parents);
        self.shared_group_names(&parents);
        self.materials();
        self.blend_shapes();
        self.textures();
    }

    pub(crate) fn accessor_ref(
        &mut self,
        value: Option<&Value>,
        pointer: &str,
        code: Code,
    ) -> Option<AccessorInfo<'a>> {
        let value = value?;
        let i = self.index(value, pointer, "accessors", code)?;
        self.accessor(i)
    }
}

/// Calls `visit` with every item (every JSON object outside `extras`) and its pointer.
pub(crate) fn for_each_item(
    value: &Value,
    pointer: &str,
    visit: &mut dyn FnMut(&str, &Map<String, Value>),
) {
    match value {
        Value::Object(map) => for_each_item_from(map, pointer, visit),
        Value::Array(items) => {
            for (i, v) in items.iter().enumerate() {
                for_each_item(v, &format!("{pointer}/{i}"), visit);
            }
        }
        _ => {}
    }
}

/// [`for_each_item`] from an object: the document walked where it is (a copy of a
/// 100,000-bone document to walk it cost 600 MB).
pub(crate) fn for_each_item_from(
    map: &Map<String, Value>,
    pointer: &str,
    visit: &mut dyn FnMut(&str, &Map<String, Value>),
) {
    visit(pointer, map);
    for (k, v) in map {
        if k != "extras" {
            for_each_item(v, &format!("{pointer}/{}", pointer_token(k)), visit);
        }
    }
}

/// Every `name` of an item of the document `doc`, with its pointer.
pub(crate) fn collect_names(doc: &Map<String, Value>, out: &mut Vec<(String, Value)>) {
    for_each_item_from(doc, "", &mut |pointer, item| {
        if let Some(name) = item.get("name") {
            out.push((format!("{pointer}/name"), name.clone()));
        }
    });
}

/// Every key of every item's `extensions` object.
pub(crate) fn find_extensions(doc: &Map<String, Value>, found: &mut dyn FnMut(String, &str)) {
    for_each_item_from(doc, "", &mut |pointer, item| {
        if let Some(extensions) = item.get("extensions").and_then(Value::as_object) {
            for name in extensions.keys() {
                found(
                    format!("{pointer}/extensions/{}", pointer_token(name)),
                    name,
                );
            }
        }
    });
}
