//! Building one binary buffer of aligned buffer views, with accessors of the right type.

use crate::error::WriteError;
use byteorder::{ByteOrder, LittleEndian};
use g4mf_model::{
    Accessor, AccessorIndex, BufferView, ComponentType, DefinedComponentType, Document, Index,
};

/// Every buffer view starts on a 16-byte boundary: a multiple of every component size up to
/// 128-bit types, so any accessor is aligned, and SIMD-friendly for readers.
pub const VIEW_ALIGNMENT: usize = 16;

/// Which unsigned type accessors of indices use.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum IndexWidth {
    /// The smallest of uint8/uint16/uint32 that holds the largest value.
    #[default]
    Smallest,
    /// Always uint32.
    Uint32,
}

/// Appends typed data to buffer 0 of a document, one aligned buffer view per accessor.
#[derive(Debug, Default)]
pub struct BufferBuilder {
    data: Vec<u8>,
    index_width: IndexWidth,
}

impl BufferBuilder {
    /// An empty buffer using `index_width` for index accessors.
    pub fn new(index_width: IndexWidth) -> Self {
        Self {
            data: Vec::new(),
            index_width,
        }
    }

    /// Continues a buffer (e.g. a [`crate::BuiltCharacter`]'s) to add more accessors to it.
    pub fn resume(bytes: Vec<u8>, index_width: IndexWidth) -> Self {
        Self {
            data: bytes,
            index_width,
        }
    }

    /// The buffer's bytes so far.
    pub fn bytes(&self) -> &[u8] {
        &self.data
    }

    /// Consumes the builder, returning the bytes.
    pub fn into_bytes(self) -> Vec<u8> {
        self.data
    }

    /// Makes room for at least `additional` more bytes, so a builder that knows roughly what
    /// it will write grows (and copies) its buffer once instead of at every doubling.
    pub fn reserve(&mut self, additional: usize) {
        self.data.reserve(additional);
    }

    /// A buffer view of raw bytes (an embedded file such as a PNG image).
    pub fn add_bytes(
        &mut self,
        doc: &mut Document,
        bytes: &[u8],
    ) -> Result<Index<BufferView>, WriteError> {
        self.push_view(doc, bytes)
    }

    fn push_view(
        &mut self,
        doc: &mut Document,
        bytes: &[u8],
    ) -> Result<Index<BufferView>, WriteError> {
        self.push_view_with(doc, |data| data.extend_from_slice(bytes))
    }

    /// A buffer view of the bytes `fill` appends, written straight into the buffer.
    fn push_view_with(
        &mut self,
        doc: &mut Document,
        fill: impl FnOnce(&mut Vec<u8>),
    ) -> Result<Index<BufferView>, WriteError> {
        let padding = (VIEW_ALIGNMENT - self.data.len() % VIEW_ALIGNMENT) % VIEW_ALIGNMENT;
        self.data.resize(self.data.len() + padding, 0);
        let offset = self.data.len();
        fill(&mut self.data);
        doc.buffer_views.push(BufferView {
            buffer: None,
            byte_offset: (offset != 0).then_some(offset as u64),
            byte_length: (self.data.len() - offset) as u64,
            other: Default::default(),
        });
        index_of(doc.buffer_views.len() - 1, "buffer views")
    }

    fn push_accessor(
        doc: &mut Document,
        view: Index<BufferView>,
        component_type: DefinedComponentType,
        vector_size: u32,
    ) -> Result<AccessorIndex, WriteError> {
        doc.accessors.push(Accessor {
            buffer_view: view,
            component_type: ComponentType::Defined(component_type),
            vector_size: (vector_size != 1).then_some(vector_size),
            other: Default::default(),
        });
        index_of(doc.accessors.len() - 1, "accessors")
    }

    /// A float32 accessor of `vector_size`-component elements.
    pub fn add_f32(
        &mut self,
        doc: &mut Document,
        values: &[f32],
        vector_size: u32,
    ) -> Result<AccessorIndex, WriteError> {
        if let Some(bad) = values.iter().position(|v| !v.is_finite()) {
            return Err(WriteError::NonFinite {
                what: format!("float value {bad} of an accessor"),
            });
        }
        let view = self.push_view_with(doc, |data| {
            append_le(data, values, LittleEndian::write_f32_into)
        })?;
        Self::push_accessor(doc, view, DefinedComponentType::Float32, vector_size)
    }

    /// An unsigned integer accessor, as narrow as the values allow (unless told otherwise).
    pub fn add_uint(
        &mut self,
        doc: &mut Document,
        values: &[u32],
        vector_size: u32,
    ) -> Result<AccessorIndex, WriteError> {
        let component = uint_component(values, self.index_width);
        let view = self.push_view_with(doc, |data| append_uint(data, values, component))?;
        Self::push_accessor(doc, view, component, vector_size)
    }

    /// The width of this buffer's index accessors.
    pub fn index_width(&self) -> IndexWidth {
        self.index_width
    }

    /// An accessor of data encoded beforehand ([`Encoded`]), its bytes copied as they are.
    pub fn add_encoded(
        &mut self,
        doc: &mut Document,
        encoded: &Encoded,
        vector_size: u32,
    ) -> Result<AccessorIndex, WriteError> {
        let view = self.push_view(doc, &encoded.bytes)?;
        Self::push_accessor(doc, view, encoded.component, vector_size)
    }
}

/// An accessor's data encoded once, to be added to any number of buffers
/// ([`BufferBuilder::add_encoded`]): its component type and little-endian bytes, as
/// [`BufferBuilder::add_uint`] and [`BufferBuilder::add_f32`] would write them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Encoded {
    component: DefinedComponentType,
    bytes: Vec<u8>,
}

impl Encoded {
    /// Unsigned integers, as narrow as `width` lets them be.
    pub fn uint(values: &[u32], width: IndexWidth) -> Self {
        let component = uint_component(values, width);
        let mut bytes = Vec::new();
        append_uint(&mut bytes, values, component);
        Self { component, bytes }
    }

    /// Float32 values; an error when one is not finite.
    pub fn f32(values: &[f32]) -> Result<Self, WriteError> {
        if let Some(bad) = values.iter().position(|v| !v.is_finite()) {
            return Err(WriteError::NonFinite {
                what: format!("float value {bad} of an accessor"),
            });
        }
        let mut bytes = Vec::new();
        append_le(&mut bytes, values, LittleEndian::write_f32_into);
        Ok(Self {
            component: DefinedComponentType::Float32,
            bytes,
        })
    }
}

/// The component type unsigned integers take under `width`.
fn uint_component(values: &[u32], width: IndexWidth) -> DefinedComponentType {
    let max = values.iter().copied().max().unwrap_or(0);
    match width {
        IndexWidth::Uint32 => DefinedComponentType::Uint32,
        IndexWidth::Smallest if max <= u32::from(u8::MAX) => DefinedComponentType::Uint8,
        IndexWidth::Smallest if max <= u32::from(u16::MAX) => DefinedComponentType::Uint16,
        IndexWidth::Smallest => DefinedComponentType::Uint32,
    }
}

/// Appends unsigned integers as `component`, little-endian.
fn append_uint(data: &mut Vec<u8>, values: &[u32], component: DefinedComponentType) {
    match component {
        DefinedComponentType::Uint8 => data.extend(values.iter().map(|&v| v as u8)),
        DefinedComponentType::Uint16 => {
            let narrow: Vec<u16> = values.iter().map(|&v| v as u16).collect();
            append_le(data, &narrow, LittleEndian::write_u16_into);
        }
        _ => append_le(data, values, LittleEndian::write_u32_into),
    }
}

/// Appends `values` little-endian, converted straight into the buffer (on a little-endian
/// machine, one copy).
fn append_le<T: Copy>(data: &mut Vec<u8>, values: &[T], write: fn(&[T], &mut [u8])) {
    let start = data.len();
    data.resize(start + std::mem::size_of_val(values), 0);
    write(values, &mut data[start..]);
}

/// A typed index for position `i`, or an error past u32.
pub(crate) fn index_of<T>(i: usize, what: &str) -> Result<Index<T>, WriteError> {
    u32::try_from(i)
        .map(Index::new)
        .map_err(|_| WriteError::TooLarge(format!("the number of {what}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn index_accessors_use_the_smallest_type_and_views_are_aligned() {
        let mut doc = Document::default();
        let mut buffer = BufferBuilder::new(IndexWidth::Smallest);
        let a = buffer.add_uint(&mut doc, &[1, 255], 1).unwrap();
        let b = buffer.add_uint(&mut doc, &[256, 3, 7], 1).unwrap();
        let c = buffer.add_uint(&mut doc, &[65536], 1).unwrap();
        let d = buffer.add_f32(&mut doc, &[1.0, 2.0, 3.0], 3).unwrap();
        let types: Vec<&str> = [a, b, c, d]
            .iter()
            .map(|i| doc.accessors[i.get()].component_type.name())
            .collect();
        assert_eq!(types, ["uint8", "uint16", "uint32", "float32"]);
        assert_eq!(doc.accessors[d.get()].vector_size, Some(3));
        assert_eq!(
            doc.accessors[a.get()].vector_size,
            None,
            "1 is the default: not written"
        );
        let offsets: Vec<u64> = doc
            .buffer_views
            .iter()
            .map(BufferView::byte_offset)
            .collect();
        assert_eq!(offsets, [0, 16, 32, 48]);
        let lengths: Vec<u64> = doc.buffer_views.iter().map(|v| v.byte_length).collect();
        assert_eq!(lengths, [2, 6, 4, 12]);
        assert_eq!(
            &buffer.bytes()[16..22],
            &[0, 1, 3, 0, 7, 0],
            "little-endian uint16"
        );
        assert_eq!(&buffer.bytes()[2..16], &[0; 14], "padding is zeros");
        assert_eq!(buffer.bytes().len(), 60);

        let mut wide = BufferBuilder::new(IndexWidth::Uint32);
        wide.add_uint(&mut doc, &[1], 1).unwrap();
        assert_eq!(
            doc.accessors.last().unwrap().component_type.name(),
            "uint32"
        );
    }

    #[test]
    fn non_finite_floats_are_refused() {
        let mut doc = Document::default();
        let mut buffer = BufferBuilder::default();
        assert!(buffer.add_f32(&mut doc, &[1.0, f32::NAN], 1).is_err());
    }
}
