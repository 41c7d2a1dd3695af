//! `g4mf-validator`: checks a G4MF file against the pinned specification and reports every
//! finding (never only the first) with a stable code, a severity, and a JSON pointer or byte
//! offset. Container problems, JSON text rules, data layout, nodes, names, meshes, bindings,
//! materials, textures, skeletons and skins are covered; `spec-notes/validator.md` lists every
//! code.

mod checks;
pub mod humanoid;
mod json;
pub mod report;

use g4mf_reader::buffers::decode_json_chunk;
use g4mf_reader::{
    BufferDescription, BufferSources, ReadOptions, encoding_name, load_buffer as load_buffer_data,
    scan_container,
};
use report::Findings;
pub use report::{Code, Counts, Finding, Report, Severity};
use serde_json::Value;
use std::path::Path;

/// The validator's version, written into reports.
pub const VALIDATOR_VERSION: &str = concat!("g4mf-validator ", env!("CARGO_PKG_VERSION"));

/// Validation settings.
#[derive(Debug, Clone, Copy)]
pub struct ValidateOptions {
    /// Limits and permissions for reading buffers.
    pub read: ReadOptions,
    /// Per-vertex weight sums further than this from 1 are reported.
    pub weight_sum_tolerance: f64,
    /// A profile checked besides the spec (`--profile humanoid`).
    pub profile: Option<Profile>,
}

/// Profiles a file may be checked against besides the specification.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Profile {
    /// G4MF's bipedal humanoid skeleton (`parts/mesh/character_avatar.md`).
    Humanoid,
}

impl Default for ValidateOptions {
    fn default() -> Self {
        Self {
            read: ReadOptions::default(),
            weight_sum_tolerance: 1e-3,
            profile: None,
        }
    }
}

/// Validates a file on disk (`.g4b` by its magic, `.g4tf` otherwise).
pub fn validate_path(path: &Path, options: &ValidateOptions) -> Report {
    match location::read_whole_regular(path) {
        Ok(bytes) => {
            let binary = bytes.starts_with(b"G4MF") || path.extension().is_some_and(|e| e == "g4b");
            validate_with_format(
                &bytes,
                binary,
                path.parent(),
                &path.display().to_string(),
                options,
            )
        }
        Err(e) => {
            let mut f = Findings::default();
            f.byte(Code::IoError, 0, format!("cannot read the file: {e}"));
            finish(path.display().to_string(), f)
        }
    }
}

fn finish(uri: String, findings: Findings) -> Report {
    let mut report = Report {
        uri,
        validator_version: VALIDATOR_VERSION.to_owned(),
        counts: Counts::default(),
        findings: findings.0,
    };
    report.finish();
    report
}

/// Validates G4MF bytes (binary when they start with the `G4MF` magic, text otherwise);
/// `folder` resolves relative buffer URIs.
pub fn validate_bytes(
    bytes: &[u8],
    folder: Option<&Path>,
    uri: &str,
    options: &ValidateOptions,
) -> Report {
    validate_with_format(bytes, bytes.starts_with(b"G4MF"), folder, uri, options)
}

fn validate_with_format(
    bytes: &[u8],
    binary: bool,
    folder: Option<&Path>,
    uri: &str,
    options: &ValidateOptions,
) -> Report {
    let mut f = Findings::default();
    let mut chunks = Vec::new();
    let json: std::borrow::Cow<[u8]>;
    let mut json_offset = None;
    if binary {
        let scan = scan_container(bytes);
        for issue in &scan.issues {
            f.byte(issue.code, issue.offset, issue.message.clone());
        }
        if scan
            .issues
            .iter()
            .any(|i| matches!(i.code, Code::ContainerTooShort | Code::ContainerBadMagic))
        {
            return finish(uri.to_owned(), f);
        }
        chunks = scan.chunks;
        for chunk in &chunks {
            if &chunk.kind != b"JSON" && &chunk.kind != b"BLOB" {
                f.byte(
                    Code::ChunkUnknownType,
                    chunk.offset,
                    format!(
                        "chunk type `{}` is not defined by the specification",
                        encoding_name(chunk.kind)
                    ),
                );
            }
            let e = chunk.encoding_name();
            if e != "plain" && e != "Zstd" && chunk.encoding != [0xFF; 4] {
                f.byte(
                    Code::ChunkUnknownEncoding,
                    chunk.offset + 4,
                    format!("encoding `{e}` is not one the specification defines"),
                );
            }
        }
        let Some(json_chunk) = chunks.iter().find(|c| &c.kind == b"JSON").cloned() else {
            f.byte(Code::ContainerNoJsonChunk, 16, "the file has no JSON chunk");
            return finish(uri.to_owned(), f);
        };
        let encoding = json_chunk.encoding_name();
        if encoding == "plain" {
            json_offset = Some(json_chunk.data_offset);
        }
        json = match decode_json_chunk(
            json_chunk.data(bytes),
            &encoding,
            options.read.max_json_bytes,
        ) {
            Ok(j) => j,
            Err((code, message)) => {
                let at = if encoding == "Zstd" {
                    json_chunk.offset
                } else {
                    json_chunk.offset + 4
                };
                f.byte(code, at, message);
                return finish(uri.to_owned(), f);
            }
        };
    } else {
        json = std::borrow::Cow::Borrowed(bytes);
        json_offset = Some(0);
    }

    let Some(text) = json::check_text(&json, json_offset, &mut f) else {
        return finish(uri.to_owned(), f);
    };
    let value: Value = match json::parse_without_extras(text) {
        Ok(v) => v,
        Err(e) => {
            f.at(
                Code::JsonSyntax,
                "",
                format!("{}:{}: {e}", e.line(), e.column()),
            );
            return finish(uri.to_owned(), f);
        }
    };
    let Some(doc) = value.as_object() else {
        f.at(Code::JsonNotObject, "", "the G4MF JSON must be an object");
        return finish(uri.to_owned(), f);
    };
    json::check_duplicate_keys(text, &mut f);

    // Buffers: load what can be loaded, reporting each problem.
    let mut buffers = Vec::new();
    for (i, buffer) in doc
        .get("buffers")
        .and_then(Value::as_array)
        .map_or(&[][..], Vec::as_slice)
        .iter()
        .enumerate()
    {
        buffers.push(load_buffer(
            i, buffer, binary, bytes, &chunks, folder, options, &mut f,
        ));
    }

    let dimension = doc
        .get("asset")
        .and_then(|a| a.get("dimension"))
        .and_then(Value::as_u64)
        .and_then(|d| usize::try_from(d).ok())
        .unwrap_or(3);
    let mut checker = checks::Checker {
        doc,
        buffers: &buffers,
        folder,
        read: &options.read,
        dimension,
        weight_tolerance: options.weight_sum_tolerance,
        f,
    };
    checker.run();
    if options.profile == Some(Profile::Humanoid) {
        checker.humanoid();
    }
    finish(uri.to_owned(), checker.f)
}

/// Type-checks a buffer's JSON, then loads it through the reader's shared path, turning each
/// issue into a finding.
#[allow(clippy::too_many_arguments)]
fn load_buffer(
    i: usize,
    buffer: &Value,
    binary: bool,
    bytes: &[u8],
    chunks: &[g4mf_reader::Chunk],
    folder: Option<&Path>,
    options: &ValidateOptions,
    f: &mut Findings,
) -> Option<Vec<u8>> {
    let p = format!("/buffers/{i}");
    let Some(byte_length) = buffer.get("byteLength").and_then(Value::as_u64) else {
        f.at(
            Code::BufferByteLengthInvalid,
            format!("{p}/byteLength"),
            "`byteLength` is required and must be a non-negative integer",
        );
        return None;
    };
    let encoding = match buffer.get("encoding") {
        None => "plain",
        Some(Value::String(e)) => {
            if e.chars().count() != 4 {
                f.at(
                    Code::BufferEncodingInvalid,
                    format!("{p}/encoding"),
                    format!("`encoding` must be a 4-character FourCC, found `{e}`"),
                );
            }
            e.as_str()
        }
        Some(other) => {
            f.at(
                Code::BufferEncodingInvalid,
                format!("{p}/encoding"),
                format!("`encoding` must be a string, found {other}"),
            );
            return None;
        }
    };
    let chunk = match buffer.get("chunk") {
        None => None,
        Some(c) => match c.as_u64() {
            Some(c) => Some(c),
            None if !binary => Some(u64::MAX), // reported as a chunk in a text file below
            None => {
                f.at(
                    Code::BufferChunkInvalid,
                    format!("{p}/chunk"),
                    format!("chunk {c} does not exist (the file has {})", chunks.len()),
                );
                return None;
            }
        },
    };
    let uri = match buffer.get("uri") {
        None => None,
        Some(Value::String(u)) => Some(u.as_str()),
        Some(_) => {
            f.at(
                Code::BufferUriInvalid,
                format!("{p}/uri"),
                "`uri` must be a string",
            );
            return None;
        }
    };
    let description = BufferDescription {
        index: i,
        byte_length,
        encoding,
        chunk,
        uri,
    };
    let sources = BufferSources {
        file: bytes,
        chunks: binary.then_some(chunks),
        folder,
    };
    let loaded = load_buffer_data(&description, &sources, &options.read);
    for issue in loaded.issues {
        f.at(issue.code, issue.pointer, issue.message);
    }
    loaded.data
}
