//! `asset.thumbnail`: a PNG picture of the file, stored in a buffer view and referenced
//! through a file reference and a 2D texture (asset.md, texture.md, core.md).

use crate::buffer::BufferBuilder;
use crate::error::WriteError;
use g4mf_model::{BufferView, Document, Index};
use serde_json::{Value, json};

/// Appends `png` (a `width` x `height` image) to the buffer and makes it the document's
/// thumbnail: a `files` entry (`image/png`, in a buffer view), a `textures` entry of that size
/// with `placeholder` (linear RGB) for readers without PNG, and `asset.thumbnail`. Returns the
/// texture's index.
pub fn embed_thumbnail(
    doc: &mut Document,
    buffer: &mut BufferBuilder,
    png: &[u8],
    size: [u32; 2],
    placeholder: [f64; 3],
) -> Result<usize, WriteError> {
    let view: Index<BufferView> = buffer.add_bytes(doc, png)?;
    let file = push(
        doc,
        "files",
        json!({ "mimeType": "image/png", "bufferView": view.get() }),
    );
    let texture = push(
        doc,
        "textures",
        json!({ "files": [file], "size": size, "placeholder": placeholder }),
    );
    doc.asset.other.insert("thumbnail".into(), json!(texture));
    Ok(texture)
}

/// Appends `item` to the top-level array `key` (kept verbatim in `other`), returning its index.
pub(crate) fn push(doc: &mut Document, key: &str, item: Value) -> usize {
    let array = doc
        .other
        .entry(key.to_owned())
        .or_insert_with(|| Value::Array(Vec::new()));
    // Anything else under the key is not a valid array of items: replaced.
    if !array.is_array() {
        *array = Value::Array(Vec::new());
    }
    let items = array.as_array_mut().map_or(0, |items| {
        items.push(item);
        items.len()
    });
    items.saturating_sub(1)
}
