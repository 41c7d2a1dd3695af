//! Splitting a `.g4b` into chunks, and decoding chunk or URI data, with every size checked
//! against the bytes actually present before anything is allocated.

use crate::code::{Code, Severity};
use crate::error::{Location, ReadError, ReadErrorKind};

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

/// A problem found while scanning a container, with a stable code.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ContainerIssue {
    /// Byte offset of the problem.
    pub offset: u64,
    /// Stable code, e.g. `CONTAINER_SIZE_MISMATCH` (its severity says whether the file is
    /// invalid).
    pub code: Code,
    /// What is wrong.
    pub message: String,
}

/// Everything a scan of a `.g4b` found: the chunks it could read and every issue.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ContainerScan {
    /// Declared total size, when the header was readable.
    pub declared_size: Option<u64>,
    /// Chunks read before any fatal problem.
    pub chunks: Vec<Chunk>,
    /// Issues in file order.
    pub issues: Vec<ContainerIssue>,
}

fn u64_at(bytes: &[u8], at: usize) -> u64 {
    let mut word = [0u8; 8];
    word.copy_from_slice(&bytes[at..at + 8]);
    u64::from_le_bytes(word)
}

/// Scans a `.g4b`: magic, version, declared size, reserved bits, chunk alignment and padding,
/// every chunk inside the file. Never stops at the first problem unless it cannot go on.
pub fn scan_container(bytes: &[u8]) -> ContainerScan {
    let mut scan = ContainerScan::default();
    let issue = |scan: &mut ContainerScan, offset: u64, code, message: String| {
        scan.issues.push(ContainerIssue {
            offset,
            code,
            message,
        });
    };
    if bytes.len() < 32 {
        issue(
            &mut scan,
            0,
            Code::ContainerTooShort,
            format!(
                "a .g4b file needs at least 32 bytes (header and one chunk header), found {}",
                bytes.len()
            ),
        );
        return scan;
    }
    if &bytes[0..4] != b"G4MF" {
        issue(
            &mut scan,
            0,
            Code::ContainerBadMagic,
            "not a binary G4MF file (magic is not `G4MF`)".into(),
        );
        return scan;
    }
    let version = u32::from_le_bytes([bytes[4], bytes[5], bytes[6], bytes[7]]);
    if version != 0 {
        issue(
            &mut scan,
            4,
            Code::ContainerBadVersion,
            format!("unsupported version {version} (expected 0)"),
        );
    }
    let declared = u64_at(bytes, 8);
    scan.declared_size = Some(declared);
    if declared >> 63 != 0 {
        issue(
            &mut scan,
            8,
            Code::ContainerSizeReservedBit,
            "the file size has its reserved most significant bit set".into(),
        );
    } else if declared != bytes.len() as u64 {
        issue(
            &mut scan,
            8,
            Code::ContainerSizeMismatch,
            format!(
                "the header declares {declared} bytes but the file has {}",
                bytes.len()
            ),
        );
    }
    let mut at = 16u64;
    while at < bytes.len() as u64 {
        if at + 16 > bytes.len() as u64 {
            issue(
                &mut scan,
                at,
                Code::ChunkHeaderTruncated,
                "truncated chunk header".into(),
            );
            break;
        }
        let p = at as usize;
        let mut kind = [0u8; 4];
        kind.copy_from_slice(&bytes[p..p + 4]);
        let mut encoding = [0u8; 4];
        encoding.copy_from_slice(&bytes[p + 4..p + 8]);
        if encoding == [0xFF; 4] {
            issue(
                &mut scan,
                at + 4,
                Code::ChunkEncodingReserved,
                "encoding indicator 0xFFFFFFFF is reserved as an error value".into(),
            );
        }
        let size = u64_at(bytes, p + 8);
        if size >> 63 != 0 {
            issue(
                &mut scan,
                at + 8,
                Code::ChunkSizeReservedBit,
                "chunk size has its reserved most significant bit set".into(),
            );
            break;
        }
        let data_offset = at + 16;
        let Some(end) = data_offset
            .checked_add(size)
            .filter(|&e| e <= bytes.len() as u64)
        else {
            issue(
                &mut scan,
                at + 8,
                Code::ChunkOutOfBounds,
                format!(
                    "chunk declares {size} bytes but only {} remain",
                    bytes.len() as u64 - data_offset
                ),
            );
            break;
        };
        scan.chunks.push(Chunk {
            offset: at,
            kind,
            encoding,
            data_offset,
            size,
        });
        let aligned = end.div_ceil(16) * 16;
        if aligned != end && end + 4 <= bytes.len() as u64 {
            let next = &bytes[end as usize..end as usize + 4];
            if next == b"JSON" || next == b"BLOB" {
                // A writer that forgot the padding left a header right after the data.
                issue(&mut scan, end, Code::ChunkMisaligned, "a chunk header is not on a 16-byte boundary (the previous chunk lacks its padding)".into(),);
                break;
            }
        }
        if aligned <= bytes.len() as u64 {
            let padding = &bytes[end as usize..aligned as usize];
            let plain_json = &kind == b"JSON" && encoding == [0; 4];
            if plain_json && padding.iter().any(|&b| b != b' ') {
                issue(
                    &mut scan,
                    end,
                    Code::ChunkJsonPadding,
                    "padding after plain JSON SHOULD be spaces".into(),
                );
            }
        }
        at = aligned;
    }
    scan
}

/// Parses the header and chunk headers of a `.g4b`, failing on the first error of
/// [`scan_container`].
pub fn parse_container(bytes: &[u8]) -> Result<Container, ReadError> {
    let scan = scan_container(bytes);
    if let Some(first) = scan
        .issues
        .iter()
        .find(|i| i.code.severity() == Severity::Error)
    {
        return Err(ReadError::new(
            Location::byte(first.offset),
            ReadErrorKind::Container(first.message.clone()),
        ));
    }
    Ok(Container {
        declared_size: scan.declared_size.unwrap_or(bytes.len() as u64),
        chunks: scan.chunks,
    })
}
