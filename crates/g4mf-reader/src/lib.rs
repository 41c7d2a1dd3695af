//! `g4mf-reader`: reads `.g4b` and `.g4tf` files into the shared [`g4mf_model::Document`] and
//! decoded buffers, and reads accessors as numbers.
//!
//! Safety rules: it never follows a URL or any URI with a scheme (no network), never an
//! absolute path, and never a path leaving the file's folder unless
//! [`ReadOptions::allow_outside_folder`] is set. Every declared size is checked against the
//! bytes present before use, decompression stops one byte past the declared length, and
//! sizes beyond [`ReadOptions::max_buffer_bytes`] are refused.

pub mod buffers;
pub mod character;
pub mod code;
pub mod container;
pub mod error;
pub mod kind;
pub mod references;
pub mod transform;

pub use buffers::{
    BufferDescription, BufferIssue, BufferSources, DATA_URI_PREFIX, IssueCause, LoadedBuffer,
    decode_measured, load_buffer,
};
pub use character::{
    CharacterError, CharacterErrorKind, CharacterNote, CharacterRead, NoteKind, SpecOptions,
    character_spec,
};
pub use code::{Code, Severity};
pub use container::{
    Chunk, Container, ContainerIssue, ContainerScan, encoding_name, parse_container, scan_container,
};
pub use error::{Location, ReadError, ReadErrorKind};
pub use g4mf_model as model;
use g4mf_model::{AccessorIndex, DefinedComponentType, Document};
pub use kind::FileKind;
pub use references::{BadReference, bad_references};
pub use transform::{Transform, TransformError, rotor_to_quat};

use std::path::{Component, Path, PathBuf};

/// Limits and permissions of the reader.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReadOptions {
    /// Follow relative URIs that leave the file's folder (`../x.bin`).
    pub allow_outside_folder: bool,
    /// Largest decoded buffer accepted, in bytes.
    pub max_buffer_bytes: u64,
    /// Largest decoded JSON accepted, in bytes.
    pub max_json_bytes: u64,
}

impl Default for ReadOptions {
    fn default() -> Self {
        Self {
            allow_outside_folder: false,
            max_buffer_bytes: 2 << 30,
            max_json_bytes: 256 << 20,
        }
    }
}

/// Which container a file used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Format {
    /// Binary, with its chunk list.
    Binary(Container),
    /// Text.
    Text,
}

/// A G4MF file read into memory.
#[derive(Debug, Clone, PartialEq)]
pub struct G4mfFile {
    /// The JSON document.
    pub document: Document,
    /// The decoded JSON text.
    pub json: Vec<u8>,
    /// Decoded bytes of every buffer, by buffer index.
    pub buffers: Vec<Vec<u8>>,
    /// The container.
    pub format: Format,
}

/// Reads a file, choosing the container by its first bytes (`G4MF` magic means binary). A
/// glTF file ([`FileKind::of`]: by its content, by its extension when the content cannot
/// tell) is refused with [`ReadErrorKind::Gltf`].
pub fn read_path(path: &Path, options: &ReadOptions) -> Result<G4mfFile, ReadError> {
    let bytes = location::read_whole_regular(path).map_err(|error| {
        ReadError::new(
            Location::default(),
            ReadErrorKind::Io {
                what: path.display().to_string(),
                error,
            },
        )
        .with_file(path)
    })?;
    let folder = path.parent().map(Path::to_path_buf);
    read_kind(
        &bytes,
        FileKind::of(path, &bytes),
        folder.as_deref(),
        options,
    )
    .map_err(|e| e.with_file(path))
}

/// Reads G4MF bytes; `folder` resolves relative buffer URIs (none are followed without it).
/// Bytes whose content is glTF ([`FileKind::of_content`]) are refused with
/// [`ReadErrorKind::Gltf`].
pub fn read_bytes(
    bytes: &[u8],
    folder: Option<&Path>,
    options: &ReadOptions,
) -> Result<G4mfFile, ReadError> {
    let kind = FileKind::of_content(bytes).unwrap_or(FileKind::G4mf);
    read_kind(bytes, kind, folder, options)
}

/// Reads bytes of `kind`: a glTF file is refused (at its magic, its `asset`, or as a whole
/// when its extension said), a G4MF one read as binary or text by its first bytes.
fn read_kind(
    bytes: &[u8],
    kind: FileKind,
    folder: Option<&Path>,
    options: &ReadOptions,
) -> Result<G4mfFile, ReadError> {
    match kind {
        FileKind::Gltf => {
            let location = if bytes.starts_with(b"glTF") {
                Location::byte(0)
            } else if FileKind::of_content(bytes).is_some() {
                Location::pointer("/asset")
            } else {
                Location::default()
            };
            Err(ReadError::new(location, ReadErrorKind::Gltf))
        }
        FileKind::G4mf if bytes.starts_with(b"G4MF") => read_g4b(bytes, folder, options),
        FileKind::G4mf => read_g4tf(bytes, folder, options),
    }
}

fn parse_document(json: &[u8]) -> Result<Document, ReadError> {
    if json.starts_with(&[0xEF, 0xBB, 0xBF]) {
        return Err(ReadError::new(
            Location::line_column(1, 1),
            ReadErrorKind::Json("the JSON starts with a byte order mark".into()),
        ));
    }
    serde_json::from_slice(json).map_err(|e| {
        ReadError::new(
            Location::line_column(e.line(), e.column()),
            ReadErrorKind::Json(e.to_string()),
        )
    })
}

/// Reads a `.g4b`.
pub fn read_g4b(
    bytes: &[u8],
    folder: Option<&Path>,
    options: &ReadOptions,
) -> Result<G4mfFile, ReadError> {
    let container = parse_container(bytes)?;
    let json_chunk = container
        .chunks
        .iter()
        .find(|c| &c.kind == b"JSON")
        .ok_or_else(|| {
            ReadError::new(
                Location::byte(16),
                ReadErrorKind::Container("the file has no JSON chunk".into()),
            )
        })?;
    let data = json_chunk.data(bytes);
    if json_chunk.encoding == [0; 4] {
        check_limit(data.len() as u64, options.max_json_bytes, "the JSON chunk")?;
    }
    let json =
        buffers::decode_json_chunk(data, &json_chunk.encoding_name(), options.max_json_bytes)
            .map_err(|(_, message)| {
                ReadError::new(
                    Location::byte(json_chunk.offset),
                    ReadErrorKind::Container(message),
                )
            })?;
    let document = parse_document(&json)?;
    let sources = BufferSources {
        file: bytes,
        chunks: Some(&container.chunks),
        folder,
    };
    let buffers = load_buffers(&document, &sources, options)?;
    Ok(G4mfFile {
        document,
        json: json.into_owned(),
        buffers,
        format: Format::Binary(container),
    })
}

/// Reads a `.g4tf`.
pub fn read_g4tf(
    bytes: &[u8],
    folder: Option<&Path>,
    options: &ReadOptions,
) -> Result<G4mfFile, ReadError> {
    check_limit(bytes.len() as u64, options.max_json_bytes, "the JSON text")?;
    let document = parse_document(bytes)?;
    let sources = BufferSources {
        file: bytes,
        chunks: None,
        folder,
    };
    let buffers = load_buffers(&document, &sources, options)?;
    Ok(G4mfFile {
        document,
        json: bytes.to_vec(),
        buffers,
        format: Format::Text,
    })
}

/// Checks every reference, then loads every buffer; the first problem is the error.
fn load_buffers(
    document: &Document,
    sources: &BufferSources<'_>,
    options: &ReadOptions,
) -> Result<Vec<Vec<u8>>, ReadError> {
    if let Some(bad) = references::bad_references(document).into_iter().next() {
        return Err(ReadError::new(
            Location::pointer(bad.pointer),
            ReadErrorKind::Reference(bad.message),
        ));
    }
    let mut out = Vec::with_capacity(document.buffers.len());
    for (index, buffer) in document.buffers.iter().enumerate() {
        let description = BufferDescription {
            index,
            byte_length: buffer.byte_length,
            encoding: buffer.encoding.as_deref().unwrap_or("plain"),
            chunk: buffer.chunk.map(u64::from),
            uri: buffer.uri.as_deref(),
        };
        let loaded = buffers::load_buffer(&description, sources, options);
        match loaded.data {
            Some(data) => out.push(data),
            None => {
                // Warnings (a URI not followed) are fatal here too: there is no data.
                let issue = loaded
                    .issues
                    .into_iter()
                    .rev()
                    .find(|i| i.code.severity() != Severity::Info);
                let Some(issue) = issue else {
                    return Err(ReadError::new(
                        Location::pointer(format!("/buffers/{index}")),
                        ReadErrorKind::Buffer("the buffer's data could not be read".into()),
                    ));
                };
                let kind = match issue.cause {
                    IssueCause::Limit { size, limit } => ReadErrorKind::Limit {
                        what: format!("buffer {index}"),
                        size,
                        limit,
                    },
                    IssueCause::Refused => ReadErrorKind::Refused(issue.message),
                    IssueCause::Io | IssueCause::Invalid => ReadErrorKind::Buffer(issue.message),
                };
                return Err(ReadError::new(Location::pointer(issue.pointer), kind));
            }
        }
    }
    Ok(out)
}

fn check_limit(size: u64, limit: u64, what: &str) -> Result<(), ReadError> {
    if size > limit {
        return Err(ReadError::new(
            Location::pointer(what.to_owned()),
            ReadErrorKind::Limit {
                what: what.to_owned(),
                size,
                limit,
            },
        ));
    }
    Ok(())
}

/// Why a buffer URI is not followed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum UriRefusal {
    /// A URL or any URI with a scheme: we never reach the network.
    #[error("refusing to follow `{0}`: only relative paths are read (no URLs, no network)")]
    Scheme(String),
    /// A malformed percent escape.
    #[error("`{0}` has an invalid percent escape")]
    BadEscape(String),
    /// An absolute path.
    #[error("refusing to follow the absolute path `{0}`")]
    Absolute(String),
    /// A relative path that climbs out of the file's folder.
    #[error("refusing to follow `{0}`: it leaves the file's folder")]
    OutsideFolder(String),
}

/// Resolves a relative buffer URI against `folder`, refusing URLs, schemes, absolute paths and
/// (unless allowed) escapes from the folder.
pub fn resolve_relative_uri(
    uri: &str,
    folder: &Path,
    allow_outside: bool,
) -> Result<PathBuf, UriRefusal> {
    // Any `:` means a scheme (`https:`, `file:`, `data:` handled elsewhere) or a drive letter.
    if uri.contains(':') {
        return Err(UriRefusal::Scheme(uri.to_owned()));
    }
    let decoded = percent_decode(uri).ok_or_else(|| UriRefusal::BadEscape(uri.to_owned()))?;
    let relative = Path::new(&decoded);
    if relative.is_absolute() || decoded.starts_with('/') || decoded.starts_with('\\') {
        return Err(UriRefusal::Absolute(uri.to_owned()));
    }
    let mut depth: i64 = 0;
    for component in relative.components() {
        match component {
            Component::ParentDir => depth -= 1,
            Component::Normal(_) => depth += 1,
            Component::CurDir => {}
            Component::RootDir | Component::Prefix(_) => {
                return Err(UriRefusal::Absolute(uri.to_owned()));
            }
        }
        if depth < 0 && !allow_outside {
            return Err(UriRefusal::OutsideFolder(uri.to_owned()));
        }
    }
    Ok(folder.join(relative))
}

/// RFC 3986 percent-decoding: `None` for a `%` not followed by two hex digits (which the
/// crate would pass through as written) or bytes that are not UTF-8.
fn percent_decode(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let well_formed = bytes.iter().enumerate().all(|(i, &b)| {
        b != b'%'
            || bytes
                .get(i + 1..i + 3)
                .is_some_and(|h| h.iter().all(u8::is_ascii_hexdigit))
    });
    if !well_formed {
        return None;
    }
    percent_encoding::percent_decode(bytes)
        .decode_utf8()
        .ok()
        .map(std::borrow::Cow::into_owned)
}

impl G4mfFile {
    /// The raw bytes of an accessor's buffer view, with its type and vector size, after
    /// checking that the view lies in its buffer and holds whole, aligned elements.
    pub fn accessor_bytes(
        &self,
        index: AccessorIndex,
    ) -> Result<(&[u8], DefinedComponentType, u32), ReadError> {
        let pointer = format!("/accessors/{index}");
        let at = |m: String| {
            ReadError::new(
                Location::pointer(pointer.clone()),
                ReadErrorKind::Accessor(m),
            )
        };
        let accessor = self
            .document
            .accessors
            .get(index.get())
            .ok_or_else(|| at("no such accessor".into()))?;
        let component = accessor.component_type.defined().ok_or_else(|| {
            at(format!(
                "unsupported component type `{}`",
                accessor.component_type.name()
            ))
        })?;
        let view = self
            .document
            .buffer_views
            .get(accessor.buffer_view.get())
            .ok_or_else(|| {
                at(format!(
                    "buffer view {} does not exist",
                    accessor.buffer_view
                ))
            })?;
        let buffer = self
            .buffers
            .get(view.buffer().get())
            .ok_or_else(|| at(format!("buffer {} does not exist", view.buffer())))?;
        let start = view.byte_offset();
        let end = start
            .checked_add(view.byte_length)
            .ok_or_else(|| at("buffer view overflows".into()))?;
        if end > buffer.len() as u64 {
            return Err(at(format!(
                "buffer view {} ends at {end}, beyond its buffer's {} bytes",
                accessor.buffer_view,
                buffer.len()
            )));
        }
        let size = component.size() as u64;
        let element = size * u64::from(accessor.vector_size().max(1));
        if start % size != 0 || view.byte_length % element != 0 {
            return Err(at(format!(
                "buffer view {} is not aligned to whole {} elements",
                accessor.buffer_view,
                component.name()
            )));
        }
        Ok((
            &buffer[start as usize..end as usize],
            component,
            accessor.vector_size(),
        ))
    }

    /// An accessor's components as f64 (integers converted exactly up to 2^53).
    pub fn read_f64(&self, index: AccessorIndex) -> Result<Vec<f64>, ReadError> {
        let (bytes, component, _) = self.accessor_bytes(index)?;
        let values = match component {
            DefinedComponentType::Float32 => bytes
                .chunks_exact(4)
                .map(|c| f64::from(f32::from_le_bytes([c[0], c[1], c[2], c[3]])))
                .collect(),
            DefinedComponentType::Float64 => bytes
                .chunks_exact(8)
                .map(|c| f64::from_le_bytes(c.try_into().unwrap_or([0; 8])))
                .collect(),
            _ => self
                .read_u64(index)?
                .into_iter()
                .map(|v| v as f64)
                .collect(),
        };
        Ok(values)
    }

    /// An accessor's components as u64 (unsigned integer types only).
    pub fn read_u64(&self, index: AccessorIndex) -> Result<Vec<u64>, ReadError> {
        let (bytes, component, _) = self.accessor_bytes(index)?;
        let values = match component {
            DefinedComponentType::Uint8 => bytes.iter().map(|&b| u64::from(b)).collect(),
            DefinedComponentType::Uint16 => bytes
                .chunks_exact(2)
                .map(|c| u64::from(u16::from_le_bytes([c[0], c[1]])))
                .collect(),
            DefinedComponentType::Uint32 => bytes
                .chunks_exact(4)
                .map(|c| u64::from(u32::from_le_bytes([c[0], c[1], c[2], c[3]])))
                .collect(),
            DefinedComponentType::Uint64 => bytes
                .chunks_exact(8)
                .map(|c| u64::from_le_bytes(c.try_into().unwrap_or([0; 8])))
                .collect(),
            other => {
                return Err(ReadError::new(
                    Location::pointer(format!("/accessors/{index}/componentType")),
                    ReadErrorKind::Accessor(format!(
                        "expected an unsigned integer type, found {}",
                        other.name()
                    )),
                ));
            }
        };
        Ok(values)
    }
}
