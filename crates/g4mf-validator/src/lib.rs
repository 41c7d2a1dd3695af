//! `g4mf-validator`: checks a G4MF file against the pinned specification and reports every
//! finding (never only the first) with a stable code, a severity, and a JSON pointer or byte
//! offset. Container problems, JSON text rules, data layout, nodes, names, meshes, bindings,
//! skeletons and skins are covered; `spec-notes/validator.md` lists every code.

mod checks;
mod json;
pub mod report;

use base64::Engine;
use g4mf_reader::{ReadOptions, decode, encoding_name, resolve_relative_uri, scan_container};
use report::Findings;
pub use report::{Counts, Finding, Report, Severity};
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
}

impl Default for ValidateOptions {
    fn default() -> Self {
        Self {
            read: ReadOptions::default(),
            weight_sum_tolerance: 1e-3,
        }
    }
}

/// Validates a file on disk (`.g4b` by its magic, `.g4tf` otherwise).
pub fn validate_path(path: &Path, options: &ValidateOptions) -> Report {
    match std::fs::read(path) {
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
            f.byte(
                Severity::Error,
                "IO_ERROR",
                0,
                format!("cannot read the file: {e}"),
            );
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
    let json: Vec<u8>;
    let mut json_offset = None;
    if binary {
        let scan = scan_container(bytes);
        for issue in &scan.issues {
            f.byte(
                if issue.error {
                    Severity::Error
                } else {
                    Severity::Warning
                },
                issue.code,
                issue.offset,
                issue.message.clone(),
            );
        }
        if scan
            .issues
            .iter()
            .any(|i| matches!(i.code, "CONTAINER_TOO_SHORT" | "CONTAINER_BAD_MAGIC"))
        {
            return finish(uri.to_owned(), f);
        }
        chunks = scan.chunks;
        for chunk in &chunks {
            if &chunk.kind != b"JSON" && &chunk.kind != b"BLOB" {
                f.byte(
                    Severity::Info,
                    "CHUNK_UNKNOWN_TYPE",
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
                    Severity::Warning,
                    "CHUNK_UNKNOWN_ENCODING",
                    chunk.offset + 4,
                    format!("encoding `{e}` is not one the specification defines"),
                );
            }
        }
        let Some(json_chunk) = chunks.iter().find(|c| &c.kind == b"JSON").cloned() else {
            f.byte(
                Severity::Error,
                "CONTAINER_NO_JSON_CHUNK",
                16,
                "the file has no JSON chunk",
            );
            return finish(uri.to_owned(), f);
        };
        json = match json_chunk.encoding_name().as_str() {
            "plain" => {
                json_offset = Some(json_chunk.data_offset);
                json_chunk.data(bytes).to_vec()
            }
            "Zstd" => match decode_json(json_chunk.data(bytes), options.read.max_json_bytes) {
                Ok(j) => j,
                Err(message) => {
                    f.byte(
                        Severity::Error,
                        "CHUNK_DECODE_FAILED",
                        json_chunk.offset,
                        message,
                    );
                    return finish(uri.to_owned(), f);
                }
            },
            other => {
                f.byte(
                    Severity::Error,
                    "CHUNK_DECODE_FAILED",
                    json_chunk.offset + 4,
                    format!("cannot decode the JSON chunk's `{other}` encoding"),
                );
                return finish(uri.to_owned(), f);
            }
        };
    } else {
        json = bytes.to_vec();
        json_offset = Some(0);
    }

    let Some(text) = json::check_text(&json, json_offset, &mut f) else {
        return finish(uri.to_owned(), f);
    };
    let value: Value = match serde_json::from_str(text) {
        Ok(v) => v,
        Err(e) => {
            f.error(
                "JSON_SYNTAX",
                "",
                format!("{}:{}: {e}", e.line(), e.column()),
            );
            return finish(uri.to_owned(), f);
        }
    };
    let Some(doc) = value.as_object() else {
        f.error("JSON_NOT_OBJECT", "", "the G4MF JSON must be an object");
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
        dimension,
        weight_tolerance: options.weight_sum_tolerance,
        f,
    };
    checker.run();
    finish(uri.to_owned(), checker.f)
}

fn decode_json(data: &[u8], limit: u64) -> Result<Vec<u8>, String> {
    use std::io::Read;
    let decoder = zstd::stream::read::Decoder::with_buffer(data)
        .map_err(|e| format!("invalid Zstandard JSON chunk: {e}"))?;
    let mut out = Vec::new();
    decoder
        .take(limit.saturating_add(1))
        .read_to_end(&mut out)
        .map_err(|e| format!("invalid Zstandard JSON chunk: {e}"))?;
    if out.len() as u64 > limit {
        return Err(format!("the JSON chunk decodes to more than {limit} bytes"));
    }
    Ok(out)
}

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
        f.error(
            "BUFFER_BYTE_LENGTH_INVALID",
            format!("{p}/byteLength"),
            "`byteLength` is required and must be a non-negative integer",
        );
        return None;
    };
    if byte_length > options.read.max_buffer_bytes {
        f.error(
            "BUFFER_TOO_LARGE",
            format!("{p}/byteLength"),
            format!(
                "{byte_length} bytes exceeds the validator's limit of {}",
                options.read.max_buffer_bytes
            ),
        );
        return None;
    }
    let encoding = match buffer.get("encoding") {
        None => "plain".to_owned(),
        Some(Value::String(e)) => {
            if e.chars().count() != 4 {
                f.error(
                    "BUFFER_ENCODING_INVALID",
                    format!("{p}/encoding"),
                    format!("`encoding` must be a 4-character FourCC, found `{e}`"),
                );
            }
            e.clone()
        }
        Some(other) => {
            f.error(
                "BUFFER_ENCODING_INVALID",
                format!("{p}/encoding"),
                format!("`encoding` must be a string, found {other}"),
            );
            return None;
        }
    };
    let chunk = buffer.get("chunk");
    let uri = buffer.get("uri");
    if !binary && chunk.is_some() {
        f.error(
            "BUFFER_CHUNK_IN_TEXT",
            format!("{p}/chunk"),
            "`chunk` must not be defined in a text G4MF file",
        );
        return None;
    }
    let data = match (chunk, uri) {
        (Some(_), Some(_)) => {
            f.error(
                "BUFFER_CHUNK_AND_URI",
                p,
                "a buffer must not define both `chunk` and `uri`",
            );
            return None;
        }
        (None, None) if binary => {
            f.error("BUFFER_NO_DATA", p, "a buffer must define `chunk` or `uri`");
            return None;
        }
        (None, None) => {
            f.error(
                "BUFFER_TEXT_WITHOUT_URI",
                p,
                "a buffer in a text G4MF file must define `uri`",
            );
            return None;
        }
        (Some(c), None) => {
            let Some(chunk) = c.as_u64().and_then(|c| chunks.get(c as usize)) else {
                f.error(
                    "BUFFER_CHUNK_INVALID",
                    format!("{p}/chunk"),
                    format!("chunk {c} does not exist (the file has {})", chunks.len()),
                );
                return None;
            };
            if &chunk.kind != b"BLOB" {
                f.warning(
                    "BUFFER_CHUNK_NOT_BLOB",
                    format!("{p}/chunk"),
                    format!(
                        "chunk {c} is a `{}` chunk, not BLOB",
                        encoding_name(chunk.kind)
                    ),
                );
            }
            if chunk.encoding_name() != encoding {
                f.error(
                    "BUFFER_ENCODING_MISMATCH",
                    format!("{p}/encoding"),
                    format!(
                        "`encoding` is {encoding} but chunk {c} is encoded {}",
                        chunk.encoding_name()
                    ),
                );
                return None;
            }
            chunk.data(bytes).to_vec()
        }
        (None, Some(uri)) => {
            let Some(uri) = uri.as_str() else {
                f.error(
                    "BUFFER_URI_INVALID",
                    format!("{p}/uri"),
                    "`uri` must be a string",
                );
                return None;
            };
            if let Some(rest) = uri.strip_prefix("data:") {
                if binary {
                    f.warning(
                        "BUFFER_DATA_URI_IN_BINARY",
                        format!("{p}/uri"),
                        "binary G4MF files SHOULD NOT embed base64 data URIs",
                    );
                }
                let Some(payload) = rest.strip_prefix("application/octet-stream;base64,") else {
                    f.error(
                        "BUFFER_DATA_URI_INVALID",
                        format!("{p}/uri"),
                        "data URIs must start with `data:application/octet-stream;base64,`",
                    );
                    return None;
                };
                match base64::engine::general_purpose::STANDARD.decode(payload) {
                    Ok(d) => d,
                    Err(e) => {
                        f.error(
                            "BUFFER_DATA_URI_INVALID",
                            format!("{p}/uri"),
                            format!("invalid base64: {e}"),
                        );
                        return None;
                    }
                }
            } else {
                let Some(folder) = folder else {
                    f.warning(
                        "BUFFER_URI_NOT_READ",
                        format!("{p}/uri"),
                        "relative URI not read (the file's folder is unknown)",
                    );
                    return None;
                };
                match resolve_relative_uri(uri, folder, options.read.allow_outside_folder) {
                    Err(message) => {
                        f.warning("BUFFER_URI_NOT_READ", format!("{p}/uri"), message);
                        return None;
                    }
                    Ok(path) => match std::fs::read(&path) {
                        Ok(d) => d,
                        Err(e) => {
                            f.error(
                                "BUFFER_URI_UNREADABLE",
                                format!("{p}/uri"),
                                // The URI as written, not the resolved path: reports
                                // stay the same wherever the file is checked.
                                format!("cannot read {uri:?} (relative to the file's folder): {e}"),
                            );
                            return None;
                        }
                    },
                }
            }
        }
    };
    match decode(&data, &encoding, byte_length, &format!("buffer {i}")) {
        Ok(decoded) => Some(decoded),
        Err(e) => {
            f.error("BUFFER_DATA_INVALID", p, e.to_string());
            None
        }
    }
}
