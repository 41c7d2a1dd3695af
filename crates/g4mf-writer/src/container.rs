//! Encoding a document and its buffer into the two G4MF containers.
//!
//! `.g4b`: a 16-byte header (`G4MF`, version 0, total size) and 16-byte-aligned chunks
//! (type, encoding, data size excluding padding): the JSON chunk first, padded with spaces when
//! plain (zeros when compressed), then one BLOB chunk per buffer. `.g4tf`: the JSON text, with
//! buffers as base64 data URIs or an external `.bin` file beside it.

use crate::error::WriteError;
use base64::Engine;
use g4mf_model::{Buffer, Document};

/// The file magic, `G4MF`.
pub const MAGIC: [u8; 4] = *b"G4MF";
/// The draft format version.
pub const VERSION: u32 = 0;
/// Chunk type of the JSON chunk.
pub const CHUNK_JSON: [u8; 4] = *b"JSON";
/// Chunk type of binary blob chunks.
pub const CHUNK_BLOB: [u8; 4] = *b"BLOB";
/// Encoding indicator of plain data.
pub const ENCODING_PLAIN: [u8; 4] = [0; 4];
/// Encoding indicator of Zstandard data.
pub const ENCODING_ZSTD: [u8; 4] = *b"Zstd";
/// The prefix of embedded buffer URIs.
pub const DATA_URI_PREFIX: &str = "data:application/octet-stream;base64,";
/// Chunk headers start on multiples of this.
pub const CHUNK_ALIGNMENT: usize = 16;

/// How to encode the binary data (and, for `.g4b`, the JSON chunk).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Compression {
    /// Plain bytes.
    #[default]
    None,
    /// Zstandard at the given level (1..=22; 3 is zstd's default).
    Zstd(i32),
}

/// Options of the containers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ContainerOptions {
    /// Encoding of buffer data.
    pub compression: Compression,
    /// In `.g4b`, also compress the JSON chunk (only with `Compression::Zstd`).
    pub compress_json: bool,
    /// Pretty-print the JSON (tabs, one property per line) instead of compact.
    pub pretty: bool,
}

/// The document's JSON text, deterministic: compact, or pretty with tab indentation.
pub fn to_json(doc: &Document, pretty: bool) -> Result<Vec<u8>, WriteError> {
    if !pretty {
        return Ok(serde_json::to_vec(doc)?);
    }
    let mut out = Vec::new();
    let formatter = serde_json::ser::PrettyFormatter::with_indent(b"\t");
    let mut serializer = serde_json::Serializer::with_formatter(&mut out, formatter);
    serde::Serialize::serialize(doc, &mut serializer)?;
    out.push(b'\n');
    Ok(out)
}

/// A chunk to write: type, encoding indicator, data.
type ChunkOut<'a> = ([u8; 4], [u8; 4], std::borrow::Cow<'a, [u8]>);

/// The data as stored: borrowed when plain (no copy of a large buffer), compressed otherwise.
fn encode(data: &[u8], compression: Compression) -> Result<std::borrow::Cow<'_, [u8]>, WriteError> {
    match compression {
        Compression::None => Ok(std::borrow::Cow::Borrowed(data)),
        Compression::Zstd(level) => zstd::bulk::compress(data, level)
            .map(std::borrow::Cow::Owned)
            .map_err(WriteError::Compression),
    }
}

/// Sets `buffers` to describe `blobs` stored as chunks 1.. of a `.g4b`.
fn declare_chunk_buffers(doc: &mut Document, blobs: &[Vec<u8>], compression: Compression) {
    doc.buffers = blobs
        .iter()
        .enumerate()
        .map(|(i, blob)| Buffer {
            byte_length: blob.len() as u64,
            chunk: Some(i as u32 + 1),
            encoding: matches!(compression, Compression::Zstd(_)).then(|| "Zstd".to_owned()),
            uri: None,
            other: Default::default(),
        })
        .collect();
}

/// Encodes a `.g4b` file. `doc.buffers` is replaced to describe `blobs` (buffer `i` is chunk
/// `i + 1`).
pub fn write_g4b(
    doc: &mut Document,
    blobs: &[Vec<u8>],
    options: ContainerOptions,
) -> Result<Vec<u8>, WriteError> {
    Ok(g4b_parts(doc, blobs, options)?.to_vec())
}

/// A `.g4b` file as the pieces it is made of, in order: what [`write_g4b`] concatenates. The
/// blobs are borrowed when stored plain, so a caller writing the pieces one after the other
/// never copies a buffer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct G4bParts<'a> {
    parts: Vec<std::borrow::Cow<'a, [u8]>>,
}

impl G4bParts<'_> {
    /// The pieces, in file order.
    pub fn parts(&self) -> impl Iterator<Item = &[u8]> {
        self.parts.iter().map(|p| p.as_ref())
    }

    /// The file's size in bytes.
    pub fn len(&self) -> usize {
        self.parts.iter().map(|p| p.len()).sum()
    }

    /// True for a file of no bytes (never: a `.g4b` has a header).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The whole file.
    pub fn to_vec(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.len());
        for part in &self.parts {
            out.extend_from_slice(part);
        }
        out
    }
}

/// [`write_g4b`] as its pieces ([`G4bParts`]).
pub fn g4b_parts<'a>(
    doc: &mut Document,
    blobs: &'a [Vec<u8>],
    options: ContainerOptions,
) -> Result<G4bParts<'a>, WriteError> {
    declare_chunk_buffers(doc, blobs, options.compression);
    let json = to_json(doc, options.pretty)?;
    let (json, json_encoding) = match (options.compress_json, options.compression) {
        (true, Compression::Zstd(level)) => (
            encode(&json, Compression::Zstd(level))?.into_owned(),
            ENCODING_ZSTD,
        ),
        _ => (json, ENCODING_PLAIN),
    };
    let mut chunks: Vec<ChunkOut<'a>> =
        vec![(CHUNK_JSON, json_encoding, std::borrow::Cow::Owned(json))];
    for blob in blobs {
        let encoding = match options.compression {
            Compression::None => ENCODING_PLAIN,
            Compression::Zstd(_) => ENCODING_ZSTD,
        };
        chunks.push((CHUNK_BLOB, encoding, encode(blob, options.compression)?));
    }
    // Pieces: the header and each chunk's header with the padding before it gathered into
    // owned pieces; each chunk's data stays a piece of its own.
    let mut parts: Vec<std::borrow::Cow<'a, [u8]>> = Vec::new();
    let mut head = Vec::new();
    head.extend_from_slice(&MAGIC);
    head.extend_from_slice(&VERSION.to_le_bytes());
    head.extend_from_slice(&[0; 8]); // total size, patched below
    let mut written = 0usize;
    let last = chunks.len() - 1;
    for (i, (kind, encoding, data)) in chunks.into_iter().enumerate() {
        head.extend_from_slice(&kind);
        head.extend_from_slice(&encoding);
        head.extend_from_slice(&(data.len() as u64).to_le_bytes());
        let end = written + head.len() + data.len();
        // Every chunk's data, the JSON too, is a piece of its own: a copy of a 69 MB JSON
        // chunk (a 100,000-bone rig) into the header would hold it twice.
        written += head.len();
        parts.push(std::borrow::Cow::Owned(std::mem::take(&mut head)));
        written += data.len();
        parts.push(data);
        if i != last {
            // Spaces after plain JSON keep it valid text; zeros elsewhere.
            let pad = if kind == CHUNK_JSON && encoding == ENCODING_PLAIN {
                b' '
            } else {
                0
            };
            let padding = (CHUNK_ALIGNMENT - end % CHUNK_ALIGNMENT) % CHUNK_ALIGNMENT;
            head.resize(head.len() + padding, pad);
        }
    }
    if !head.is_empty() {
        parts.push(std::borrow::Cow::Owned(head));
    }
    let total = parts.iter().map(|p| p.len()).sum::<usize>() as u64;
    if total >> 63 != 0 {
        return Err(WriteError::TooLarge("the file size".into()));
    }
    if let Some(first) = parts.first_mut() {
        first.to_mut()[8..16].copy_from_slice(&total.to_le_bytes());
    }
    Ok(G4bParts { parts })
}

/// Where a `.g4tf` keeps its buffer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TextBufferStorage {
    /// Base64 `data:` URIs inside the JSON.
    Embedded,
    /// A file beside the `.g4tf`, referred to by this relative URI (e.g. `character.bin`).
    External(String),
}

/// An encoded `.g4tf`: the JSON text and, for external storage, the `.bin` files to write
/// beside it (relative URI, bytes).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TextFile {
    /// The `.g4tf` JSON.
    pub json: Vec<u8>,
    /// External buffer files: (relative URI, contents).
    pub external: Vec<(String, Vec<u8>)>,
}

/// Encodes a `.g4tf`. `doc.buffers` is replaced to describe `blobs`.
pub fn write_g4tf(
    doc: &mut Document,
    blobs: &[Vec<u8>],
    storage: &TextBufferStorage,
    options: ContainerOptions,
) -> Result<TextFile, WriteError> {
    let mut external = Vec::new();
    doc.buffers = Vec::with_capacity(blobs.len());
    for (i, blob) in blobs.iter().enumerate() {
        let encoded = encode(blob, options.compression)?;
        let uri = match storage {
            TextBufferStorage::Embedded => format!(
                "{DATA_URI_PREFIX}{}",
                base64::engine::general_purpose::STANDARD.encode(&encoded)
            ),
            TextBufferStorage::External(name) => {
                let name = if i == 0 {
                    name.clone()
                } else {
                    match name.rsplit_once('.') {
                        Some((stem, ext)) => format!("{stem}_{i}.{ext}"),
                        None => format!("{name}_{i}"),
                    }
                };
                external.push((name.clone(), encoded.to_vec()));
                name
            }
        };
        doc.buffers.push(Buffer {
            byte_length: blob.len() as u64,
            chunk: None,
            encoding: matches!(options.compression, Compression::Zstd(_))
                .then(|| "Zstd".to_owned()),
            uri: Some(uri),
            other: Default::default(),
        });
    }
    Ok(TextFile {
        json: to_json(doc, options.pretty)?,
        external,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The pieces make the same file as one buffer, aligned chunk by chunk; a plain blob is a
    /// piece of its own, borrowed (never copied), and a compressed one is owned.
    #[test]
    fn g4b_parts_are_the_file_and_borrow_plain_blobs() {
        let blobs = vec![vec![7u8; 37], vec![9u8; 5]];
        for compression in [Compression::None, Compression::Zstd(3)] {
            for pretty in [false, true] {
                let options = ContainerOptions {
                    compression,
                    compress_json: matches!(compression, Compression::Zstd(_)),
                    pretty,
                };
                let mut doc = Document::default();
                let parts = g4b_parts(&mut doc, &blobs, options).unwrap();
                let whole = parts.to_vec();
                assert_eq!(parts.len(), whole.len());
                assert_eq!(
                    u64::from_le_bytes(whole[8..16].try_into().unwrap()),
                    whole.len() as u64
                );
                // Chunk headers start on 16-byte boundaries.
                let mut at = 16;
                let mut chunks = 0;
                while at < whole.len() {
                    assert_eq!(at % CHUNK_ALIGNMENT, 0);
                    let size = u64::from_le_bytes(whole[at + 8..at + 16].try_into().unwrap());
                    at += 16 + size as usize;
                    at += (CHUNK_ALIGNMENT - at % CHUNK_ALIGNMENT) % CHUNK_ALIGNMENT;
                    chunks += 1;
                }
                assert_eq!(chunks, 3);
                let borrowed = parts
                    .parts()
                    .filter(|p| blobs.iter().any(|b| std::ptr::eq(p.as_ptr(), b.as_ptr())))
                    .count();
                assert_eq!(
                    borrowed,
                    if compression == Compression::None {
                        2
                    } else {
                        0
                    }
                );
                let mut again = Document::default();
                assert_eq!(write_g4b(&mut again, &blobs, options).unwrap(), whole);
            }
        }
    }
}
