//! Image files as materials name them: recognised by their first bytes (PNG or JPEG), sized
//! from their header and refused there when too large, then decoded once within a bound (a
//! truncated or corrupt file is found before it is embedded, copied or packed) but never
//! re-encoded; a missing or unusable image is reported, never an error (the material's
//! placeholder colour stands in for it). The loader reads them (`inputs::LoadedImages`).

use character::Image;

/// The largest side of an image we take (MakeHuman's largest textures are 4096).
pub const MAX_SIDE: u32 = 8192;

/// The most pixels an image may declare.
pub const MAX_PIXELS: u64 = MAX_SIDE as u64 * MAX_SIDE as u64;

/// The most a decoder may allocate for one image (a PNG is checked a row at a time, a JPEG
/// decoded whole: 8192 x 8192 RGB is 192 MiB).
pub const MAX_DECODE_BYTES: u64 = 256 << 20;

/// The most pixels a JPEG may declare per byte of its file: a flat 8 x 8 block costs a few
/// bits at least (about 128 pixels a byte for grey), so 1024 leaves room for any real image
/// and refuses a few hundred bytes declaring millions of pixels, which a lenient decoder
/// would fill with grey.
pub const MAX_JPEG_PIXELS_PER_BYTE: u64 = 1024;

/// Why an image a material names cannot be used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Unusable {
    /// There is no such file.
    Missing,
    /// It is there but not a PNG or JPEG within the bounds that decodes, or it cannot be read.
    Bad(String),
    /// Not read: no texture is written (`--textures none`).
    NotRead,
}

impl Unusable {
    /// What is wrong, for a warning: "missing", or why the file there cannot be used.
    pub fn describe(&self) -> String {
        match self {
            Self::Missing => "missing".to_owned(),
            Self::Bad(why) => why.clone(),
            Self::NotRead => "not read".to_owned(),
        }
    }
}

/// An image from its bytes: PNG or JPEG by magic, its size from the header (refused there
/// beyond [`MAX_SIDE`] or [`MAX_PIXELS`]: nothing is decoded), then decoded within
/// [`MAX_DECODE_BYTES`] to find a truncated or corrupt file.
pub fn image_of(bytes: Vec<u8>) -> Result<Image, Unusable> {
    let image = image_header(bytes)?;
    match image.mime {
        "image/png" => check_png_decodes(&image.bytes)?,
        _ => check_jpeg_decodes(&image.bytes)?,
    }
    Ok(image)
}

/// An image checked as [`image_of`] checks it but not decoded: only for an image whose one
/// use decodes it within the same bounds and treats a failure as [`image_of`] would (the
/// `orm` maps, whose packing decodes each once), so no image is decoded twice.
pub fn image_header(bytes: Vec<u8>) -> Result<Image, Unusable> {
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
    check_size(width, height)?;
    let pixels = u64::from(width) * u64::from(height);
    if format == image::ImageFormat::Jpeg
        && pixels > (bytes.len() as u64).saturating_mul(MAX_JPEG_PIXELS_PER_BYTE)
    {
        return Err(Unusable::Bad(format!(
            "it declares {width}x{height} pixels in {} bytes, more than a JPEG can hold",
            bytes.len()
        )));
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

/// Refuses a declared size of zero or beyond the bounds.
fn check_size(width: u32, height: u32) -> Result<(), Unusable> {
    if width == 0 || height == 0 {
        return Err(Unusable::Bad("a zero size".into()));
    }
    if width > MAX_SIDE || height > MAX_SIDE || u64::from(width) * u64::from(height) > MAX_PIXELS {
        return Err(Unusable::Bad(format!(
            "it declares {width}x{height} pixels, above the limit of {MAX_SIDE} a side"
        )));
    }
    Ok(())
}

/// A PNG we encoded ourselves (the packed `orm` map), `width` x `height`, without a
/// profile: taken without decoding it again.
pub fn encoded_png(bytes: Vec<u8>, width: u32, height: u32) -> Image {
    Image {
        bytes: std::sync::Arc::new(bytes),
        mime: "image/png",
        size: [width, height],
        icc_profile: false,
    }
}

#[cfg(test)]
thread_local! {
    /// How many images this thread decoded (tests count them: each image decoded once).
    pub static DECODES: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// Counts one decode (in tests).
pub fn count_decode() {
    #[cfg(test)]
    DECODES.with(|count| count.set(count.get() + 1));
}

/// Decodes a PNG row by row (one row in memory), so a truncated or corrupt file is found.
fn check_png_decodes(bytes: &[u8]) -> Result<(), Unusable> {
    count_decode();
    let bad = |e: png::DecodingError| Unusable::Bad(format!("cannot be decoded: {e}"));
    let limits = png::Limits {
        bytes: MAX_DECODE_BYTES as usize,
    };
    let mut reader = png::Decoder::new_with_limits(std::io::Cursor::new(bytes), limits)
        .read_info()
        .map_err(bad)?;
    while reader.next_row().map_err(bad)?.is_some() {}
    reader.finish().map_err(bad)
}

/// Decodes a JPEG whole within [`MAX_DECODE_BYTES`].
fn check_jpeg_decodes(bytes: &[u8]) -> Result<(), Unusable> {
    count_decode();
    let mut reader =
        image::ImageReader::with_format(std::io::Cursor::new(bytes), image::ImageFormat::Jpeg);
    reader.limits(decode_limits());
    reader
        .decode()
        .map(drop)
        .map_err(|e| Unusable::Bad(format!("cannot be decoded: {e}")))
}

/// The `image` crate's limits for decoding one image.
pub fn decode_limits() -> image::Limits {
    let mut limits = image::Limits::default();
    limits.max_image_width = Some(MAX_SIDE);
    limits.max_image_height = Some(MAX_SIDE);
    limits.max_alloc = Some(MAX_DECODE_BYTES);
    limits
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
    fn declared_sizes_beyond_the_bound_and_truncated_files_are_refused() {
        let bomb = test_support::images::png_declaring(100_000, 100_000);
        match image_of(bomb) {
            Err(Unusable::Bad(why)) => assert!(why.contains("100000x100000"), "{why}"),
            other => panic!("{other:?}"),
        }
        // Within the side bound but not the pixel bound is refused too; at it, decoded.
        let wide = test_support::images::png_declaring(MAX_SIDE, MAX_SIDE + 1);
        assert!(matches!(image_of(wide), Err(Unusable::Bad(_))));
        match image_of(test_support::images::truncated_png()) {
            Err(Unusable::Bad(why)) => assert!(why.contains("cannot be decoded"), "{why}"),
            other => panic!("{other:?}"),
        }
        // A header that promises rows the data does not hold.
        let empty = test_support::images::png_declaring(64, 64);
        assert!(matches!(image_of(empty), Err(Unusable::Bad(_))));
        // A flat JPEG, the most a JPEG compresses, is taken; its first few hundred bytes,
        // which a lenient decoder would fill with grey, are not.
        let mut flat = Vec::new();
        image::DynamicImage::ImageLuma8(image::GrayImage::from_pixel(
            2048,
            2048,
            image::Luma([128]),
        ))
        .write_to(
            &mut std::io::Cursor::new(&mut flat),
            image::ImageFormat::Jpeg,
        )
        .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(image_of(flat.clone()).map(|i| i.size), Ok([2048, 2048]));
        flat.truncate(600);
        match image_of(flat) {
            Err(Unusable::Bad(why)) => assert!(why.contains("more than a JPEG"), "{why}"),
            other => panic!("{other:?}"),
        }
        let good = test_support::images::grey_png(MAX_SIDE, 1, 3);
        assert_eq!(image_of(good).map(|i| i.size), Ok([MAX_SIDE, 1]));
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
