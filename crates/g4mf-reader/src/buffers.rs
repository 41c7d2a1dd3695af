//! The one way buffer data is found and decoded, shared by the reader (which stops at the first
//! problem) and the validator (which reports every problem): the same limits, the same
//! external-file and data-URI rules, the same Zstd handling.

use crate::code::Code;
use crate::container::{Chunk, encoding_name};
use crate::{ReadOptions, resolve_relative_uri};
use base64::Engine;
use std::io::Read;
use std::path::Path;

/// The only data-URI prefix `data.md` allows: base64 octet streams.
pub const DATA_URI_PREFIX: &str = "data:application/octet-stream;base64,";

/// Decoded data may run this many bytes past `byteLength` without remark: `data.md` lets the
/// actual data be "a few bytes larger" than declared (for example alignment padding).
pub const FEW_EXTRA_BYTES: u64 = 16;

/// External files may be larger than the decoded limit by this much: an encoded (compressed)
/// file of incompressible data is a little larger than what it decodes to.
const ENCODED_SLACK: u64 = 1 << 20;

/// Why a buffer problem arose, so callers can map it to their own error types.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IssueCause {
    /// The buffer's description or data is wrong.
    Invalid,
    /// A size is above a limit of [`ReadOptions`].
    Limit {
        /// The size found.
        size: u64,
        /// The limit.
        limit: u64,
    },
    /// A URI we refuse to follow (network, absolute path, outside the folder).
    Refused,
    /// An external file could not be read.
    Io,
}

/// One problem with one buffer, with a stable validator code.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BufferIssue {
    /// Stable code, e.g. `BUFFER_TOO_LARGE`; its severity says how serious.
    pub code: Code,
    /// JSON pointer of the property at fault.
    pub pointer: String,
    /// What is wrong.
    pub message: String,
    /// Why.
    pub cause: IssueCause,
}

/// A buffer as described in the JSON, already type-checked by the caller.
#[derive(Debug, Clone, Copy)]
pub struct BufferDescription<'a> {
    /// Its index in `buffers`.
    pub index: usize,
    /// Declared decoded length.
    pub byte_length: u64,
    /// `encoding`, `plain` when absent.
    pub encoding: &'a str,
    /// `chunk`, if given.
    pub chunk: Option<u64>,
    /// `uri`, if given.
    pub uri: Option<&'a str>,
}

/// Where the buffer's data may come from.
#[derive(Debug, Clone, Copy)]
pub struct BufferSources<'a> {
    /// The whole file's bytes (for chunk data).
    pub file: &'a [u8],
    /// The `.g4b` chunks, or `None` for a text file (where `chunk` is forbidden).
    pub chunks: Option<&'a [Chunk]>,
    /// Folder of the file, for relative URIs; `None` means they are not followed.
    pub folder: Option<&'a Path>,
}

/// What loading a buffer gave: its data (exactly `byteLength` bytes) when it could be had, and
/// every issue met on the way (the fatal one last).
#[derive(Debug, Clone, Default)]
pub struct LoadedBuffer {
    /// Exactly `byteLength` bytes, when available.
    pub data: Option<Vec<u8>>,
    /// Issues in the order met.
    pub issues: Vec<BufferIssue>,
}

impl LoadedBuffer {
    fn issue(
        &mut self,
        code: Code,
        pointer: String,
        cause: IssueCause,
        message: impl Into<String>,
    ) {
        self.issues.push(BufferIssue {
            code,
            pointer,
            message: message.into(),
            cause,
        });
    }

    fn fail(mut self, code: Code, pointer: String, message: impl Into<String>) -> Self {
        self.issue(code, pointer, IssueCause::Invalid, message);
        self
    }
}

/// Finds, bounds and decodes one buffer's data. Never allocates more than the limits of
/// `options` allow, never follows a URL, never leaves the file's folder unless allowed.
pub fn load_buffer(
    buffer: &BufferDescription<'_>,
    sources: &BufferSources<'_>,
    options: &ReadOptions,
) -> LoadedBuffer {
    let p = format!("/buffers/{}", buffer.index);
    let mut out = LoadedBuffer::default();
    if buffer.byte_length > options.max_buffer_bytes {
        out.issue(
            Code::BufferTooLarge,
            format!("{p}/byteLength"),
            IssueCause::Limit {
                size: buffer.byte_length,
                limit: options.max_buffer_bytes,
            },
            format!(
                "{} bytes exceeds the buffer limit of {}",
                buffer.byte_length, options.max_buffer_bytes
            ),
        );
        return out;
    }
    let binary = sources.chunks.is_some();
    let encoded: Vec<u8> = match (buffer.chunk, buffer.uri) {
        (Some(_), _) if !binary => {
            return out.fail(
                Code::BufferChunkInText,
                format!("{p}/chunk"),
                "`chunk` must not be defined in a text G4MF file",
            );
        }
        (Some(_), Some(_)) => {
            return out.fail(
                Code::BufferChunkAndUri,
                p,
                "a buffer must not define both `chunk` and `uri`",
            );
        }
        (None, None) if binary => {
            return out.fail(
                Code::BufferNoData,
                p,
                "a buffer must define `chunk` or `uri`",
            );
        }
        (None, None) => {
            return out.fail(
                Code::BufferTextWithoutUri,
                p,
                "a buffer in a text G4MF file must define `uri`",
            );
        }
        (Some(c), None) => {
            let chunks = sources.chunks.unwrap_or(&[]);
            let Some(chunk) = usize::try_from(c).ok().and_then(|c| chunks.get(c)) else {
                return out.fail(
                    Code::BufferChunkInvalid,
                    format!("{p}/chunk"),
                    format!("chunk {c} does not exist (the file has {})", chunks.len()),
                );
            };
            if &chunk.kind != b"BLOB" {
                out.issue(
                    Code::BufferChunkNotBlob,
                    format!("{p}/chunk"),
                    IssueCause::Invalid,
                    format!(
                        "chunk {c} is a `{}` chunk, not BLOB",
                        encoding_name(chunk.kind)
                    ),
                );
            }
            if chunk.encoding_name() != buffer.encoding {
                return out.fail(
                    Code::BufferEncodingMismatch,
                    format!("{p}/encoding"),
                    format!(
                        "`encoding` is {} but chunk {c} is encoded {}",
                        buffer.encoding,
                        chunk.encoding_name()
                    ),
                );
            }
            // Decoding reads straight from the file: no copy of the chunk.
            return decode_into(out, chunk.data(sources.file), buffer, &p);
        }
        (None, Some(uri)) => match read_uri(&mut out, uri, buffer, binary, sources, options, &p) {
            Some(bytes) => bytes,
            None => return out,
        },
    };
    decode_into(out, &encoded, buffer, &p)
}

fn read_uri(
    out: &mut LoadedBuffer,
    uri: &str,
    buffer: &BufferDescription<'_>,
    binary: bool,
    sources: &BufferSources<'_>,
    options: &ReadOptions,
    p: &str,
) -> Option<Vec<u8>> {
    let at = format!("{p}/uri");
    if uri.starts_with("data:") {
        if binary {
            out.issue(
                Code::BufferDataUriInBinary,
                at.clone(),
                IssueCause::Invalid,
                "binary G4MF files SHOULD NOT embed base64 data URIs",
            );
        }
        let Some(payload) = uri.strip_prefix(DATA_URI_PREFIX) else {
            out.issue(
                Code::BufferDataUriInvalid,
                at,
                IssueCause::Invalid,
                format!("data URIs must start with `{DATA_URI_PREFIX}`"),
            );
            return None;
        };
        // Base64 is 4/3 of the data: refuse before decoding what cannot fit the limit.
        let decoded_size = payload.len() as u64 / 4 * 3;
        let limit = options.max_buffer_bytes.saturating_add(ENCODED_SLACK);
        if decoded_size > limit {
            out.issue(
                Code::BufferTooLarge,
                at,
                IssueCause::Limit {
                    size: decoded_size,
                    limit,
                },
                format!("the data URI holds {decoded_size} bytes, above the limit of {limit}"),
            );
            return None;
        }
        return match base64::engine::general_purpose::STANDARD.decode(payload) {
            Ok(d) => Some(d),
            Err(e) => {
                out.issue(
                    Code::BufferDataUriInvalid,
                    at,
                    IssueCause::Invalid,
                    format!("invalid base64: {e}"),
                );
                None
            }
        };
    }
    let Some(folder) = sources.folder else {
        out.issue(
            Code::BufferUriNotRead,
            at,
            IssueCause::Refused,
            format!("`{uri}` is relative but the file's folder is unknown"),
        );
        return None;
    };
    let path = match resolve_relative_uri(uri, folder, options.allow_outside_folder) {
        Ok(path) => path,
        Err(message) => {
            out.issue(
                Code::BufferUriNotRead,
                at,
                IssueCause::Refused,
                message.to_string(),
            );
            return None;
        }
    };
    // The URI as written, not the resolved path: messages stay the same wherever the file is.
    let unreadable = |out: &mut LoadedBuffer, e: std::io::Error| {
        out.issue(
            Code::BufferUriUnreadable,
            at.clone(),
            IssueCause::Io,
            format!("cannot read {uri:?} (relative to the file's folder): {e}"),
        );
    };
    let file = match location::open_regular(&path) {
        Ok(f) => f,
        Err(e) => {
            unreadable(out, e);
            return None;
        }
    };
    let size = match file.metadata() {
        Ok(m) => m.len(),
        Err(e) => {
            unreadable(out, e);
            return None;
        }
    };
    // Plain data beyond byteLength (plus a few bytes) is never used: read no more of it.
    let wanted = if buffer.encoding == "plain" {
        size.min(buffer.byte_length.saturating_add(FEW_EXTRA_BYTES + 1))
    } else {
        size
    };
    let limit = options.max_buffer_bytes.saturating_add(ENCODED_SLACK);
    if wanted > limit {
        out.issue(
            Code::BufferTooLarge,
            at,
            IssueCause::Limit { size, limit },
            format!("{uri:?} is {size} bytes, above the limit of {limit}"),
        );
        return None;
    }
    let mut bytes = Vec::new();
    if let Err(e) = file.take(wanted).read_to_end(&mut bytes) {
        unreadable(out, e);
        return None;
    }
    Some(bytes)
}

fn decode_into(
    mut out: LoadedBuffer,
    encoded: &[u8],
    buffer: &BufferDescription<'_>,
    p: &str,
) -> LoadedBuffer {
    let what = format!("buffer {}", buffer.index);
    match decode_measured(encoded, buffer.encoding, buffer.byte_length, &what) {
        Ok((data, extra)) => {
            if extra > FEW_EXTRA_BYTES {
                out.issue(
                    Code::BufferDataLonger,
                    p.to_owned(),
                    IssueCause::Invalid,
                    format!(
                        "{what}'s data runs more than {FEW_EXTRA_BYTES} bytes past its declared {} (data.md allows only a few; the rest is ignored)",
                        buffer.byte_length
                    ),
                );
            }
            out.data = Some(data);
        }
        Err((code, message)) => {
            out.issue(code, p.to_owned(), IssueCause::Invalid, message);
        }
    }
    out
}

/// Decodes `data` and returns exactly `expected` bytes and how many more the data held (counted
/// up to [`FEW_EXTRA_BYTES`] + 1, never further: a Zstd stream is cut there, so a
/// decompression bomb costs no more memory than the declared size allows). Data shorter than
/// declared is an error (`data.md`: the actual size MUST NOT be smaller).
pub fn decode_measured(
    data: &[u8],
    encoding: &str,
    expected: u64,
    what: &str,
) -> Result<(Vec<u8>, u64), (Code, String)> {
    let cap = expected.saturating_add(FEW_EXTRA_BYTES + 1);
    let short = |found: u64| {
        (
            Code::BufferDataInvalid,
            format!("{what} declares {expected} bytes but only {found} are present"),
        )
    };
    match encoding {
        "plain" => {
            let found = data.len() as u64;
            if found < expected {
                return Err(short(found));
            }
            Ok((
                data[..expected as usize].to_vec(),
                (found - expected).min(cap),
            ))
        }
        "Zstd" => {
            if data.len() < 4 || data[..4] != ZSTD_MAGIC {
                return Err((
                    Code::BufferZstdNoMagic,
                    format!(
                        "{what} is encoded Zstd but does not start with Zstandard's magic number"
                    ),
                ));
            }
            let invalid = |e: std::io::Error| {
                (
                    Code::BufferDataInvalid,
                    format!("{what}: invalid Zstandard data: {e}"),
                )
            };
            let mut out = zstd_at_most(data, cap).map_err(invalid)?;
            let found = out.len() as u64;
            if found < expected {
                return Err(short(found));
            }
            out.truncate(expected as usize);
            Ok((out, found - expected))
        }
        other => Err((
            Code::BufferDataInvalid,
            format!("{what} uses the unsupported encoding `{other}`"),
        )),
    }
}

/// Decodes a Zstandard stream, stopping after `cap` bytes: a decompression bomb costs no more
/// memory than the caller allows.
fn zstd_at_most(data: &[u8], cap: u64) -> std::io::Result<Vec<u8>> {
    let mut out = Vec::new();
    zstd::stream::read::Decoder::with_buffer(data)?
        .take(cap)
        .read_to_end(&mut out)?;
    Ok(out)
}

/// Zstandard's frame magic number, which `binary_file_format.md` requires at the start of
/// Zstd-encoded chunk data.
pub const ZSTD_MAGIC: [u8; 4] = [0x28, 0xB5, 0x2F, 0xFD];

/// Decodes a `.g4b` JSON chunk, which declares no decoded size: plain as it is (borrowed, not
/// copied), Zstd (with its magic number checked) cut at `limit` bytes. Errors carry a stable
/// code.
pub fn decode_json_chunk<'a>(
    data: &'a [u8],
    encoding: &str,
    limit: u64,
) -> Result<std::borrow::Cow<'a, [u8]>, (Code, String)> {
    match encoding {
        "plain" => Ok(std::borrow::Cow::Borrowed(data)),
        "Zstd" => {
            if data.len() < 4 || data[..4] != ZSTD_MAGIC {
                return Err((
                    Code::ChunkZstdNoMagic,
                    "the JSON chunk is encoded Zstd but does not start with Zstandard's magic number".into(),
                ));
            }
            let invalid = |e: std::io::Error| {
                (
                    Code::ChunkDecodeFailed,
                    format!("invalid Zstandard JSON chunk: {e}"),
                )
            };
            let out = zstd_at_most(data, limit.saturating_add(1)).map_err(invalid)?;
            if out.len() as u64 > limit {
                return Err((
                    Code::ChunkDecodeFailed,
                    format!("the JSON chunk decodes to more than {limit} bytes (the JSON limit)"),
                ));
            }
            Ok(std::borrow::Cow::Owned(out))
        }
        other => Err((
            Code::ChunkDecodeFailed,
            format!("cannot decode the JSON chunk's `{other}` encoding"),
        )),
    }
}
