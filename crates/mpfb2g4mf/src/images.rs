//! Image files as materials name them: recognised by their first bytes (PNG or JPEG), sized
//! from their header, never decoded or re-encoded; a missing or unusable image is reported,
//! never an error (the material's placeholder colour stands in for it). The loader reads them
//! (`inputs::LoadedImages`).

use character::Image;

/// Why an image a material names cannot be used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Unusable {
    /// There is no such file.
    Missing,
    /// It is there but not a PNG or JPEG with a readable size, or it cannot be read.
    Bad(String),
}

/// An image from its bytes: PNG or JPEG by magic, size from the header.
pub fn image_of(bytes: Vec<u8>) -> Result<Image, Unusable> {
    let (mime, format) = if bytes.starts_with(b"\x89PNG\r\n\x1a\n") {
        ("image/png", image::ImageFormat::Png)
    } else if bytes.starts_with(&[0xFF, 0xD8, 0xFF]) {
        ("image/jpeg", image::ImageFormat::Jpeg)
    } else {
        return Err(Unusable::Bad("neither a PNG nor a JPEG".into()));
    };
    let (width, height) = image::ImageReader::with_format(std::io::Cursor::new(&bytes), format)
        .into_dimensions()
        .map_err(|e| Unusable::Bad(format!("unreadable header: {e}")))?;
    if width == 0 || height == 0 {
        return Err(Unusable::Bad("a zero size".into()));
    }
    let icc_profile = match format {
        image::ImageFormat::Png => png_has_icc(&bytes),
        _ => jpeg_has_icc(&bytes),
    };
    Ok(Image {
        bytes: std::sync::Arc::new(bytes),
        mime,
        size: [width, height],
        icc_profile,
    })
}

/// True when a PNG has an `iCCP` chunk (before its image data).
fn png_has_icc(bytes: &[u8]) -> bool {
    let mut at = 8;
    while at + 8 <= bytes.len() {
        let length = u32::from_be_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]]);
        let kind = &bytes[at + 4..at + 8];
        if kind == b"iCCP" {
            return true;
        }
        if kind == b"IDAT" || kind == b"IEND" {
            return false;
        }
        at = at.saturating_add(12).saturating_add(length as usize);
    }
    false
}

/// True when a JPEG has an APP2 `ICC_PROFILE` segment.
fn jpeg_has_icc(bytes: &[u8]) -> bool {
    let mut at = 2;
    while at + 4 <= bytes.len() && bytes[at] == 0xFF {
        let marker = bytes[at + 1];
        // Start of scan: the header segments are over.
        if marker == 0xDA {
            return false;
        }
        let length = usize::from(u16::from_be_bytes([bytes[at + 2], bytes[at + 3]]));
        if marker == 0xE2 && bytes[at + 4..].starts_with(b"ICC_PROFILE\0") {
            return true;
        }
        at = at.saturating_add(2).saturating_add(length);
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    fn png(width: u32, height: u32, icc: bool) -> Vec<u8> {
        let mut out = Vec::new();
        {
            let mut encoder = png::Encoder::new(&mut out, width, height);
            encoder.set_color(png::ColorType::Rgb);
            let mut writer = encoder.write_header().unwrap_or_else(|e| panic!("{e}"));
            writer
                .write_image_data(&vec![128u8; (width * height * 3) as usize])
                .unwrap_or_else(|e| panic!("{e}"));
        }
        if icc {
            // An `iCCP` chunk right after the header (signature 8 bytes, IHDR 25).
            let chunk = [0, 0, 0, 1, b'i', b'C', b'C', b'P', 0, 0, 0, 0, 0];
            out.splice(33..33, chunk);
        }
        out
    }

    #[test]
    fn pngs_are_sized_from_their_header_and_profiles_noticed() {
        let image = image_of(png(7, 3, false)).unwrap_or_else(|e| panic!("{e:?}"));
        assert_eq!(
            (image.mime, image.size, image.icc_profile),
            ("image/png", [7, 3], false)
        );
        let with_profile = image_of(png(2, 2, true)).unwrap_or_else(|e| panic!("{e:?}"));
        assert!(with_profile.icc_profile);
        assert!(matches!(
            image_of(b"GIF89a".to_vec()),
            Err(Unusable::Bad(_))
        ));
        assert!(matches!(
            image_of(b"\x89PNG\r\n\x1a\n\0\0".to_vec()),
            Err(Unusable::Bad(_))
        ));
    }
}
