//! The bytes behind a file reference: relative URIs percent-decoded, resolved inside the
//! file's folder and read within a bound (core.md), magic bytes against the declared MIME type
//! (texture.md), and PNG images decoded row by row within a bound, so that a truncated image or
//! one whose header declares more pixels than its bytes can hold is reported, cheaply.

use super::*;
use std::io::{Cursor, Read};

/// Largest image file read through a URI; larger ones are reported and not read.
const MAX_IMAGE_FILE_BYTES: u64 = 256 << 20;
/// Largest image decoded, in pixels; larger ones are reported and not decoded.
pub(crate) const MAX_DECODED_PIXELS: u64 = 1 << 28;
/// Deflate's best ratio: no stream of n bytes inflates to more than about 1032 n bytes.
const DEFLATE_MAX_RATIO: u64 = 1032;
/// Room for a PNG's chunk headers besides its compressed data.
const PNG_OVERHEAD: u64 = 1024;

/// What an image's bytes say it is, from their first bytes.
pub(crate) fn sniff_mime(bytes: &[u8]) -> Option<&'static str> {
    if bytes.starts_with(b"\x89PNG\r\n\x1a\n") {
        Some("image/png")
    } else if bytes.starts_with(&[0xFF, 0xD8, 0xFF]) {
        Some("image/jpeg")
    } else if bytes.len() >= 12 && bytes.starts_with(b"RIFF") && &bytes[8..12] == b"WEBP" {
        Some("image/webp")
    } else if bytes.starts_with(b"GIF87a") || bytes.starts_with(b"GIF89a") {
        Some("image/gif")
    } else if bytes.starts_with(b"\xABKTX 20\xBB\r\n\x1a\n") {
        Some("image/ktx2")
    } else {
        None
    }
}

/// What decoding a PNG found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum PngCheck {
    /// Not a PNG at all (no signature).
    NotPng,
    /// Decoded to its end: its size in pixels.
    Decoded(u32, u32),
    /// Its header declares more than [`MAX_DECODED_PIXELS`]; not decoded.
    TooLarge(u32, u32),
    /// It does not decode: why.
    Undecodable(String),
}

/// Decodes a PNG row by row (memory bounded by one row), refusing from the header alone one
/// that declares more pixels than its bytes could inflate to.
pub(crate) fn check_png(bytes: &[u8]) -> PngCheck {
    if sniff_mime(bytes) != Some("image/png") {
        return PngCheck::NotPng;
    }
    let mut reader = match png::Decoder::new(Cursor::new(bytes)).read_info() {
        Ok(reader) => reader,
        Err(e) => return PngCheck::Undecodable(format!("its header does not decode: {e}")),
    };
    let (width, height) = reader.info().size();
    // At least one filter byte and one bit per pixel per row.
    let least_raw = u64::from(height) * (1 + u64::from(width).div_ceil(8));
    let most_raw = (bytes.len() as u64).saturating_mul(DEFLATE_MAX_RATIO) + PNG_OVERHEAD;
    if least_raw > most_raw {
        return PngCheck::Undecodable(format!(
            "it declares {width}x{height} pixels, more than its {} bytes can hold",
            bytes.len()
        ));
    }
    if u64::from(width) * u64::from(height) > MAX_DECODED_PIXELS {
        return PngCheck::TooLarge(width, height);
    }
    loop {
        match reader.next_row() {
            Ok(Some(_)) => {}
            Ok(None) => break,
            Err(e) => return PngCheck::Undecodable(format!("its pixels do not decode: {e}")),
        }
    }
    match reader.finish() {
        Ok(()) => PngCheck::Decoded(width, height),
        Err(e) => PngCheck::Undecodable(format!("it does not end as a PNG: {e}")),
    }
}

impl Checker<'_> {
    /// The bytes a relative `uri` (at `pointer`) names, read when it resolves inside the
    /// file's folder, exists and is within the bound; every other case is reported, as a
    /// warning when a buffer view stands in for it (`has_fallback`, core.md's fallback).
    pub(crate) fn uri_bytes(
        &mut self,
        uri: &str,
        pointer: &str,
        has_fallback: bool,
    ) -> Option<Vec<u8>> {
        if uri.starts_with("data:") || uri.contains("://") {
            self.f.at(
                Code::FileUriNotRead,
                pointer,
                format!("`{uri}` is not read: only relative paths are opened (no URLs, no network, no data URIs for files)"),
            );
            return None;
        }
        let Some(folder) = self.folder else {
            self.f.at(
                Code::FileUriNotRead,
                pointer,
                format!("`{uri}` is relative but the file's folder is unknown"),
            );
            return None;
        };
        let path =
            match g4mf_reader::resolve_relative_uri(uri, folder, self.read.allow_outside_folder) {
                Ok(path) => path,
                Err(refusal) => {
                    self.f
                        .at(Code::FileUriNotRead, pointer, refusal.to_string());
                    return None;
                }
            };
        match read_bounded(&path) {
            Ok(bytes) => Some(bytes),
            Err(why) if has_fallback => {
                self.f.at(
                    Code::FileUriNotRead,
                    pointer,
                    format!("cannot read {uri:?} (relative to the file's folder): {why}; its `bufferView` is used instead"),
                );
                None
            }
            Err(why) => {
                self.f.at(
                    Code::FileUriUnreadable,
                    pointer,
                    format!("cannot read {uri:?} (relative to the file's folder): {why}"),
                );
                None
            }
        }
    }

    /// Checks an image's bytes against its declared `mime` type and, for PNG, that it decodes;
    /// returns its size in pixels when it decoded. `pointer` names where the bytes came from.
    pub(crate) fn image_bytes(
        &mut self,
        bytes: &[u8],
        mime: Option<&str>,
        pointer: &str,
    ) -> Option<(u32, u32)> {
        let sniffed = sniff_mime(bytes);
        if let (Some(mime), Some(sniffed)) = (mime, sniffed)
            && mime != sniffed
        {
            self.f.at(
                Code::FileMimeTypeMismatch,
                pointer,
                format!("the file says `{mime}` but its bytes are {sniffed}"),
            );
            return None;
        }
        if mime != Some("image/png") {
            return None;
        }
        match check_png(bytes) {
            PngCheck::Decoded(w, h) => return Some((w, h)),
            PngCheck::NotPng => self.f.at(
                Code::FileNotPng,
                pointer,
                "the file says `image/png` but its bytes do not start a PNG image",
            ),
            PngCheck::TooLarge(w, h) => self.f.at(
                Code::FileImageTooLarge,
                pointer,
                format!(
                    "the image declares {w}x{h} pixels, above the {MAX_DECODED_PIXELS} decoded here: not checked"
                ),
            ),
            PngCheck::Undecodable(why) => self.f.at(
                Code::FileImageUndecodable,
                pointer,
                format!("the PNG image is not valid: {why}"),
            ),
        }
        None
    }
}

/// A regular file's bytes, refusing one above [`MAX_IMAGE_FILE_BYTES`] before reading it.
fn read_bounded(path: &std::path::Path) -> Result<Vec<u8>, String> {
    let file = std::fs::File::open(path).map_err(|e| e.to_string())?;
    let metadata = file.metadata().map_err(|e| e.to_string())?;
    if !metadata.is_file() {
        return Err("not a regular file".to_owned());
    }
    if metadata.len() > MAX_IMAGE_FILE_BYTES {
        return Err(format!(
            "{} bytes, above the limit of {MAX_IMAGE_FILE_BYTES}",
            metadata.len()
        ));
    }
    let mut bytes = Vec::new();
    file.take(MAX_IMAGE_FILE_BYTES)
        .read_to_end(&mut bytes)
        .map_err(|e| e.to_string())?;
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn png(width: u32, height: u32) -> Vec<u8> {
        let mut out = Vec::new();
        let mut encoder = png::Encoder::new(&mut out, width, height);
        encoder.set_color(png::ColorType::Rgba);
        let mut writer = encoder.write_header().unwrap();
        writer
            .write_image_data(&vec![200; (width * height * 4) as usize])
            .unwrap();
        writer.finish().unwrap();
        out
    }

    #[test]
    fn a_whole_png_decodes_and_a_truncated_one_does_not() {
        let whole = png(16, 16);
        assert_eq!(check_png(&whole), PngCheck::Decoded(16, 16));
        let truncated = &whole[..whole.len() - 20];
        assert!(matches!(check_png(truncated), PngCheck::Undecodable(_)));
    }

    #[test]
    fn a_tiny_png_declaring_a_huge_image_is_refused_from_its_header() {
        let mut bytes = png(1, 1);
        // IHDR's width and height follow the signature, the chunk length and its type.
        bytes[16..20].copy_from_slice(&100_000u32.to_be_bytes());
        bytes[20..24].copy_from_slice(&100_000u32.to_be_bytes());
        let crc = crc32(&bytes[12..29]);
        bytes[29..33].copy_from_slice(&crc.to_be_bytes());
        match check_png(&bytes) {
            PngCheck::Undecodable(why) => assert!(why.contains("100000x100000"), "{why}"),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn magic_bytes_name_the_format() {
        assert_eq!(sniff_mime(&png(1, 1)), Some("image/png"));
        assert_eq!(sniff_mime(&[0xFF, 0xD8, 0xFF, 0xE0]), Some("image/jpeg"));
        assert_eq!(sniff_mime(b"RIFF\0\0\0\0WEBPVP8 "), Some("image/webp"));
        assert_eq!(sniff_mime(b"plain text"), None);
    }

    /// CRC-32 (ISO-HDLC), as PNG chunks use.
    fn crc32(bytes: &[u8]) -> u32 {
        let mut crc = 0xFFFF_FFFFu32;
        for &b in bytes {
            crc ^= u32::from(b);
            for _ in 0..8 {
                crc = if crc & 1 != 0 {
                    (crc >> 1) ^ 0xEDB8_8320
                } else {
                    crc >> 1
                };
            }
        }
        !crc
    }
}
