//! Buffer views and accessors (data.md): references, bounds, alignment, element sizes.

use super::*;

impl<'a> Checker<'a> {
    pub(crate) fn buffer_views(&mut self) {
        let buffers = array(self.doc, "buffers");
        for (i, view) in array(self.doc, "bufferViews").iter().enumerate() {
            let p = format!("/bufferViews/{i}");
            let buffer = match view.get("buffer") {
                None => Some(0).filter(|_| !buffers.is_empty()),
                Some(b) => index_of(b).filter(|&b| b < buffers.len()),
            };
            let Some(buffer) = buffer else {
                self.f.at(
                    Code::BufferViewBufferInvalid,
                    format!("{p}/buffer"),
                    "the buffer view's buffer does not exist",
                );
                continue;
            };
            let (Some(length), offset) = (
                view.get("byteLength").and_then(index_of),
                view.get("byteOffset").map_or(Some(0), index_of),
            ) else {
                self.f.at(
                    Code::BufferViewByteLengthInvalid,
                    format!("{p}/byteLength"),
                    "`byteLength` is required and must be a non-negative integer",
                );
                continue;
            };
            let Some(offset) = offset else {
                self.f.at(
                    Code::BufferViewByteOffsetInvalid,
                    format!("{p}/byteOffset"),
                    "`byteOffset` must be a non-negative integer",
                );
                continue;
            };
            if let Some(declared) = buffers[buffer].get("byteLength").and_then(index_of) {
                if offset.checked_add(length).is_none_or(|end| end > declared) {
                    self.f.at(
                        Code::BufferViewOutOfBounds,
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

    pub(crate) fn accessors(&mut self) {
        let views = array(self.doc, "bufferViews");
        for (i, a) in array(self.doc, "accessors").iter().enumerate() {
            let p = format!("/accessors/{i}");
            let view = a
                .get("bufferView")
                .and_then(index_of)
                .filter(|&v| v < views.len());
            if view.is_none() {
                self.f.at(
                    Code::AccessorBufferViewInvalid,
                    format!("{p}/bufferView"),
                    "`bufferView` must be a valid buffer view index",
                );
            }
            let component = match a.get("componentType").and_then(Value::as_str) {
                None => {
                    self.f.at(
                        Code::AccessorComponentTypeMissing,
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
                        self.f.at(
                            Code::AccessorComponentTypeUnknown,
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
                        self.f.at(
                            Code::AccessorVectorSizeInvalid,
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
                    self.f.at(
                        Code::AccessorMisaligned,
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
                    Some(element) => self.f.at(Code::AccessorPartialElement, p, format!("buffer view {view} has {length} bytes, not a whole number of {element}-byte elements")),
                    None => self.f.at(Code::AccessorPartialElement, p, format!("`vectorSize` {n} makes elements larger than any buffer view")),
                }
            }
        }
    }
}
