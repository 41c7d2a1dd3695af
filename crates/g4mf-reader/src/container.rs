//! Splitting a `.g4b` into chunks, and decoding chunk or URI data, with every size checked
//! against the bytes actually present before anything is allocated.

use crate::error::{Position, ReadError, ReadErrorKind};
use std::io::Read;

/// One chunk of a `.g4b`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Chunk {
    /// Byte offset of the chunk header in the file.
    pub offset: u64,
    /// The 4-byte type (`JSON`, `BLOB`, ...).
    pub kind: [u8; 4],
    /// The 4-byte encoding indicator (zeros when plain, `Zstd`, ...).
    pub encoding: [u8; 4],
    /// Offset of the data in the file.
    pub data_offset: u64,
    /// Size of the data, excluding padding.
    pub size: u64,
}

impl Chunk {
    /// The chunk's data within the file bytes.
    pub fn data<'a>(&self, file: &'a [u8]) -> &'a [u8] {
        &file[self.data_offset as usize..(self.data_offset + self.size) as usize]
    }

    /// The encoding as text: `plain`, `Zstd`, or the FourCC bytes escaped.
    pub fn encoding_name(&self) -> String {
        encoding_name(self.encoding)
    }
}

/// A FourCC encoding indicator as text.
pub fn encoding_name(encoding: [u8; 4]) -> String {
    if encoding == [0; 4] {
        "plain".into()
    } else {
        encoding
            .iter()
            .map(|&b| char::from(b).escape_default().to_string())
            .collect()
    }
}

/// The parsed header and chunk list of a `.g4b`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Container {
    /// Declared total size.
    pub declared_size: u64,
    /// Chunks in file order.
    pub chunks: Vec<Chunk>,
}

fn container_error(at: u64, message: impl Into<String>) -> ReadError {
    ReadError::new(Position::Byte(at), ReadErrorKind::Container(message.into()))
}

fn u64_at(bytes: &[u8], at: usize) -> u64 {
    let mut word = [0u8; 8];
    word.copy_from_slice(&bytes[at..at + 8]);
    u64::from_le_bytes(word)
}

/// Parses the header and chunk headers of a `.g4b`, checking magic, version, the declared
/// size, reserved bits, alignment and that every chunk lies inside the file.
pub fn parse_container(bytes: &[u8]) -> Result<Container, ReadError> {
    if bytes.len() < 32 {
        return Err(container_error(
            0,
            format!(
                "a .g4b file needs at least 32 bytes (header and one chunk header), found {}",
                bytes.len()
            ),
        ));
    }
    if &bytes[0..4] != b"G4MF" {
        return Err(container_error(
            0,
            "not a binary G4MF file (magic is not `G4MF`)",
        ));
    }
    let version = u32::from_le_bytes([bytes[4], bytes[5], bytes[6], bytes[7]]);
    if version != 0 {
        return Err(container_error(
            4,
            format!("unsupported version {version} (expected 0)"),
        ));
    }
    let declared = u64_at(bytes, 8);
    if declared >> 63 != 0 {
        return Err(container_error(
            8,
            "the file size has its reserved most significant bit set",
        ));
    }
    if declared != bytes.len() as u64 {
        return Err(container_error(
            8,
            format!(
                "the header declares {declared} bytes but the file has {}",
                bytes.len()
            ),
        ));
    }
    let mut chunks = Vec::new();
    let mut at = 16u64;
    while at < bytes.len() as u64 {
        if at % 16 != 0 {
            return Err(container_error(
                at,
                "chunk header is not on a 16-byte boundary",
            ));
        }
        if at + 16 > bytes.len() as u64 {
            return Err(container_error(at, "truncated chunk header"));
        }
        let p = at as usize;
        let mut kind = [0u8; 4];
        kind.copy_from_slice(&bytes[p..p + 4]);
        let mut encoding = [0u8; 4];
        encoding.copy_from_slice(&bytes[p + 4..p + 8]);
        if encoding == [0xFF; 4] {
            return Err(container_error(
                at + 4,
                "encoding indicator 0xFFFFFFFF is reserved as an error value",
            ));
        }
        let size = u64_at(bytes, p + 8);
        if size >> 63 != 0 {
            return Err(container_error(
                at + 8,
                "chunk size has its reserved most significant bit set",
            ));
        }
        let data_offset = at + 16;
        let end = data_offset
            .checked_add(size)
            .filter(|&e| e <= bytes.len() as u64)
            .ok_or_else(|| {
                container_error(
                    at + 8,
                    format!(
                        "chunk declares {size} bytes but only {} remain",
                        bytes.len() as u64 - data_offset
                    ),
                )
            })?;
        chunks.push(Chunk {
            offset: at,
            kind,
            encoding,
            data_offset,
            size,
        });
        // The next chunk header starts at the next 16-byte boundary. A writer that forgot the
        // padding leaves a header right after the data: say so instead of misreading.
        let aligned = end.div_ceil(16) * 16;
        if aligned != end && end + 4 <= bytes.len() as u64 {
            let next = &bytes[end as usize..end as usize + 4];
            if next == b"JSON" || next == b"BLOB" {
                return Err(container_error(
                    end,
                    "a chunk header is not on a 16-byte boundary (the previous chunk lacks its padding)",
                ));
            }
        }
        at = aligned;
    }
    if chunks.is_empty() {
        return Err(container_error(16, "the file has no chunks"));
    }
    Ok(Container {
        declared_size: declared,
        chunks,
    })
}

/// Decodes data with the given encoding, producing exactly `expected` bytes at most: a
/// Zstd stream is cut one byte past `expected`, so a decompression bomb costs no more memory
/// than the declared size allows.
pub fn decode(
    data: &[u8],
    encoding: &str,
    expected: u64,
    what: &str,
) -> Result<Vec<u8>, ReadErrorKind> {
    match encoding {
        "plain" => {
            if (data.len() as u64) < expected {
                return Err(ReadErrorKind::Buffer(format!(
                    "{what} declares {expected} bytes but only {} are present",
                    data.len()
                )));
            }
            Ok(data[..expected as usize].to_vec())
        }
        "Zstd" => {
            if data.len() < 4 || data[..4] != [0x28, 0xB5, 0x2F, 0xFD] {
                return Err(ReadErrorKind::Buffer(format!(
                    "{what} is not a Zstandard frame (no Zstd magic)"
                )));
            }
            let decoder = zstd::stream::read::Decoder::with_buffer(data).map_err(|e| {
                ReadErrorKind::Buffer(format!("{what}: invalid Zstandard data: {e}"))
            })?;
            let mut out = Vec::new();
            decoder
                .take(expected.saturating_add(1))
                .read_to_end(&mut out)
                .map_err(|e| {
                    ReadErrorKind::Buffer(format!("{what}: invalid Zstandard data: {e}"))
                })?;
            if out.len() as u64 > expected {
                return Err(ReadErrorKind::Buffer(format!(
                    "{what} expands past its declared {expected} bytes"
                )));
            }
            if (out.len() as u64) < expected {
                return Err(ReadErrorKind::Buffer(format!(
                    "{what} decodes to {} bytes but declares {expected}",
                    out.len()
                )));
            }
            Ok(out)
        }
        other => Err(ReadErrorKind::Buffer(format!(
            "{what} uses the unsupported encoding `{other}`"
        ))),
    }
}
