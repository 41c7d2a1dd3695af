//! The one binary buffer of a glTF file: buffer views aligned to four bytes (vertex attributes
//! and matrices must be), accessors with the bounds glTF asks for, sparse accessors.

use crate::error::GltfError;
use gltf_json::accessor::{ComponentType, GenericComponentType, IndexComponentType, Type, sparse};
use gltf_json::buffer::{Target, View};
use gltf_json::validation::{Checked, USize64};
use gltf_json::{Accessor, Index, Root};

/// Every buffer view starts on a four-byte boundary (glTF's rule for vertex attributes and
/// matrices; enough for every component type).
pub const VIEW_ALIGNMENT: usize = 4;

/// Bytes already laid out for a view, with the accessor that reads them: kept by a writer's
/// caches so a population's bodies copy them instead of encoding them again.
#[derive(Debug, Clone, PartialEq)]
pub struct Encoded {
    /// Little-endian bytes.
    pub bytes: Vec<u8>,
    /// The component type.
    pub component: ComponentType,
    /// The element type.
    pub kind: Type,
    /// Element count.
    pub count: usize,
    /// Per-component minimum and maximum, when the accessor declares them.
    pub bounds: Option<(Vec<f64>, Vec<f64>)>,
}

impl Encoded {
    /// Float32 vectors of `width` components (`kind` says which), with their bounds when asked.
    pub fn f32(values: &[f32], kind: Type, bounds: bool) -> Self {
        let width = components(kind);
        let mut bytes = Vec::with_capacity(values.len() * 4);
        for v in values {
            bytes.extend_from_slice(&v.to_le_bytes());
        }
        Self {
            bytes,
            component: ComponentType::F32,
            kind,
            count: values.len() / width,
            bounds: bounds.then(|| f32_bounds(values, width)),
        }
    }

    /// Unsigned integers in `component` (`U8`, `U16` or `U32`; the caller checked they fit).
    pub fn uint(values: &[u32], component: ComponentType, kind: Type) -> Self {
        let mut bytes = Vec::with_capacity(values.len() * component.size());
        for &v in values {
            match component {
                ComponentType::U8 => bytes.push(v as u8),
                ComponentType::U16 => bytes.extend_from_slice(&(v as u16).to_le_bytes()),
                _ => bytes.extend_from_slice(&v.to_le_bytes()),
            }
        }
        Self {
            bytes,
            component,
            kind,
            count: values.len() / components(kind),
            bounds: None,
        }
    }
}

/// The narrowest unsigned type that holds `max`.
pub fn uint_component(max: u32) -> ComponentType {
    if max <= u32::from(u8::MAX) {
        ComponentType::U8
    } else if max <= u32::from(u16::MAX) {
        ComponentType::U16
    } else {
        ComponentType::U32
    }
}

/// The narrowest index type glTF allows for `max` (indices are never 8-bit here: some engines
/// refuse them).
pub fn index_component(max: u32) -> ComponentType {
    if max <= u32::from(u16::MAX) {
        ComponentType::U16
    } else {
        ComponentType::U32
    }
}

/// Components of an element type.
pub fn components(kind: Type) -> usize {
    match kind {
        Type::Scalar => 1,
        Type::Vec2 => 2,
        Type::Vec3 => 3,
        Type::Vec4 | Type::Mat2 => 4,
        Type::Mat3 => 9,
        Type::Mat4 => 16,
    }
}

/// Per-component minimum and maximum of float32 vectors, as the validator reads them back.
fn f32_bounds(values: &[f32], width: usize) -> (Vec<f64>, Vec<f64>) {
    let mut min = vec![f64::INFINITY; width];
    let mut max = vec![f64::NEG_INFINITY; width];
    for element in values.chunks_exact(width) {
        for (c, &v) in element.iter().enumerate() {
            min[c] = min[c].min(f64::from(v));
            max[c] = max[c].max(f64::from(v));
        }
    }
    if values.is_empty() {
        min.fill(0.0);
        max.fill(0.0);
    }
    (min, max)
}

/// Appends views and accessors to buffer 0 of a document.
#[derive(Debug, Default)]
pub struct BufferBuilder {
    data: Vec<u8>,
}

impl BufferBuilder {
    /// An empty buffer with room for `capacity` bytes.
    pub fn with_capacity(capacity: usize) -> Self {
        Self {
            data: Vec::with_capacity(capacity),
        }
    }

    /// A builder appending to `bytes` (a built document's buffer).
    pub fn from_bytes(bytes: Vec<u8>) -> Self {
        Self { data: bytes }
    }

    /// The bytes so far.
    pub fn into_bytes(self) -> Vec<u8> {
        self.data
    }

    /// A view of `bytes` (aligned), for vertex data, indices or none (`target`).
    pub fn view(
        &mut self,
        root: &mut Root,
        bytes: &[u8],
        target: Option<Target>,
    ) -> Result<Index<View>, GltfError> {
        while self.data.len() % VIEW_ALIGNMENT != 0 {
            self.data.push(0);
        }
        let offset = self.data.len();
        self.data.extend_from_slice(bytes);
        let index = index_of(root.buffer_views.len(), "buffer views")?;
        root.buffer_views.push(View {
            buffer: Index::new(0),
            byte_length: USize64(bytes.len() as u64),
            byte_offset: (offset > 0).then_some(USize64(offset as u64)),
            byte_stride: None,
            name: None,
            target: target.map(Checked::Valid),
            extensions: None,
            extras: Default::default(),
        });
        Ok(index)
    }

    /// An accessor over a new view of `encoded`.
    pub fn accessor(
        &mut self,
        root: &mut Root,
        encoded: &Encoded,
        target: Option<Target>,
    ) -> Result<Index<Accessor>, GltfError> {
        let view = self.view(root, &encoded.bytes, target)?;
        push_accessor(root, Some(view), encoded, None)
    }

    /// A sparse accessor of `count` elements, zero but where `indices` (ascending) say
    /// `values`; `bounds` are those of the whole accessor.
    pub fn sparse(
        &mut self,
        root: &mut Root,
        count: usize,
        indices: &Encoded,
        values: &Encoded,
        bounds: Option<(Vec<f64>, Vec<f64>)>,
    ) -> Result<Index<Accessor>, GltfError> {
        let index_view = self.view(root, &indices.bytes, None)?;
        let value_view = self.view(root, &values.bytes, None)?;
        let sparse = sparse::Sparse {
            count: USize64(indices.count as u64),
            indices: sparse::Indices {
                buffer_view: index_view,
                byte_offset: USize64(0),
                component_type: Checked::Valid(IndexComponentType(indices.component)),
                extensions: None,
                extras: Default::default(),
            },
            values: sparse::Values {
                buffer_view: value_view,
                byte_offset: USize64(0),
                extensions: None,
                extras: Default::default(),
            },
            extensions: None,
            extras: Default::default(),
        };
        let whole = Encoded {
            bytes: Vec::new(),
            component: values.component,
            kind: values.kind,
            count,
            bounds,
        };
        push_accessor(root, None, &whole, Some(sparse))
    }

    /// An accessor of `count` zero float elements of `kind`: sparse, one element set to zero
    /// (an accessor without a view is valid glTF, but `gltf-json`, and so Bevy's loader,
    /// refuses one that is not sparse).
    pub fn zeros(
        &mut self,
        root: &mut Root,
        count: usize,
        kind: Type,
    ) -> Result<Index<Accessor>, GltfError> {
        let width = components(kind);
        let index = Encoded::uint(&[0], ComponentType::U16, Type::Scalar);
        let value = Encoded::f32(&vec![0.0; width], kind, false);
        let bounds = Some((vec![0.0; width], vec![0.0; width]));
        self.sparse(root, count, &index, &value, bounds)
    }
}

/// Adds an accessor reading `encoded` from `view` (or zeros, or a sparse override).
fn push_accessor(
    root: &mut Root,
    view: Option<Index<View>>,
    encoded: &Encoded,
    sparse: Option<sparse::Sparse>,
) -> Result<Index<Accessor>, GltfError> {
    let index = index_of(root.accessors.len(), "accessors")?;
    let number = |v: &[f64]| serde_json::Value::from(v.to_vec());
    root.accessors.push(Accessor {
        buffer_view: view,
        byte_offset: None,
        count: USize64(encoded.count as u64),
        component_type: Checked::Valid(GenericComponentType(encoded.component)),
        extensions: None,
        extras: Default::default(),
        type_: Checked::Valid(encoded.kind),
        min: encoded.bounds.as_ref().map(|(min, _)| number(min)),
        max: encoded.bounds.as_ref().map(|(_, max)| number(max)),
        name: None,
        normalized: false,
        sparse,
    });
    Ok(index)
}

/// A typed index for position `i` of an array, refused past glTF's 32-bit indices.
pub fn index_of<T>(i: usize, what: &str) -> Result<Index<T>, GltfError> {
    u32::try_from(i)
        .map(Index::new)
        .map_err(|_| GltfError::TooLarge(format!("the number of {what}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn views_are_aligned_and_bounds_are_the_float32_values() {
        let mut root = Root::default();
        let mut buffer = BufferBuilder::default();
        let bytes = Encoded::uint(&[1, 2, 3], ComponentType::U8, Type::Scalar);
        buffer
            .accessor(&mut root, &bytes, None)
            .unwrap_or_else(|e| panic!("{e}"));
        let floats = Encoded::f32(&[0.1, -2.0, 3.0, 4.5, 0.0, -1.0], Type::Vec3, true);
        buffer
            .accessor(&mut root, &floats, None)
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(root.buffer_views[1].byte_offset, Some(USize64(4)));
        let min = root.accessors[1].min.clone().unwrap_or_default();
        assert_eq!(min, serde_json::json!([0.1f32 as f64, -2.0, -1.0]));
        assert_eq!(buffer.into_bytes().len(), 4 + 24);
    }
}
