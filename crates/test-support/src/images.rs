//! Images for tests and hostile inputs: valid grey PNGs of any size, a PNG whose header
//! declares a size its few bytes do not hold, a truncated PNG, and the pair of tiny maps that
//! once packed into an 8192 x 8192 `orm` image.

/// A grey 8-bit PNG of `width` x `height`, every pixel `value`.
pub fn grey_png(width: u32, height: u32, value: u8) -> Vec<u8> {
    let mut out = Vec::new();
    {
        let mut encoder = png::Encoder::new(&mut out, width, height);
        encoder.set_color(png::ColorType::Grayscale);
        encoder.set_compression(png::Compression::High);
        let mut writer = encoder
            .write_header()
            .unwrap_or_else(|e| panic!("a grey PNG: {e}"));
        writer
            .write_image_data(&vec![value; width as usize * height as usize])
            .unwrap_or_else(|e| panic!("a grey PNG: {e}"));
    }
    out
}

/// A PNG of a few dozen bytes whose header declares `width` x `height` grey pixels and whose
/// image data is an empty zlib stream: cheap to refuse from its header, costly to decode.
pub fn png_declaring(width: u32, height: u32) -> Vec<u8> {
    let mut out = b"\x89PNG\r\n\x1a\n".to_vec();
    let mut header = Vec::new();
    header.extend(width.to_be_bytes());
    header.extend(height.to_be_bytes());
    // 8 bits, grey, deflate, adaptive filtering, not interlaced.
    header.extend([8, 0, 0, 0, 0]);
    push_chunk(&mut out, b"IHDR", &header);
    // zlib: header, an empty final stored block, the Adler-32 of nothing.
    push_chunk(
        &mut out,
        b"IDAT",
        &[0x78, 0x9c, 0x03, 0x00, 0x00, 0x00, 0x00, 0x01],
    );
    push_chunk(&mut out, b"IEND", &[]);
    out
}

/// A valid grey PNG cut short in its image data: its header and size read well.
pub fn truncated_png() -> Vec<u8> {
    // Noise, so the image data is long enough to cut.
    let noisy: Vec<u8> = (0..64u32 * 64).map(|i| (i * 7919 % 251) as u8).collect();
    let mut full = Vec::new();
    {
        let mut encoder = png::Encoder::new(&mut full, 64, 64);
        encoder.set_color(png::ColorType::Grayscale);
        let mut writer = encoder
            .write_header()
            .unwrap_or_else(|e| panic!("a PNG: {e}"));
        writer
            .write_image_data(&noisy)
            .unwrap_or_else(|e| panic!("a PNG: {e}"));
    }
    full.truncate(full.len() / 2);
    full
}

/// Two valid maps of a hundred bytes or so, 8192 x 1 and 1 x 8192 pixels: packed at the
/// largest width by the largest height they made 8192 x 8192.
pub fn orm_bomb_maps() -> (Vec<u8>, Vec<u8>) {
    (grey_png(8192, 1, 200), grey_png(1, 8192, 60))
}

fn push_chunk(out: &mut Vec<u8>, kind: &[u8; 4], data: &[u8]) {
    out.extend((data.len() as u32).to_be_bytes());
    let start = out.len();
    out.extend_from_slice(kind);
    out.extend_from_slice(data);
    let crc = crc32(&out[start..]);
    out.extend(crc.to_be_bytes());
}

/// CRC-32 (ISO 3309, as PNG chunks use).
fn crc32(bytes: &[u8]) -> u32 {
    let mut crc = 0xFFFF_FFFFu32;
    for &b in bytes {
        crc ^= u32::from(b);
        for _ in 0..8 {
            crc = if crc & 1 == 1 {
                (crc >> 1) ^ 0xEDB8_8320
            } else {
                crc >> 1
            };
        }
    }
    !crc
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_declared_png_is_tiny_and_its_header_says_the_size() {
        let bytes = png_declaring(100_000, 100_000);
        assert!(bytes.len() < 70, "{} bytes", bytes.len());
        let decoder = png::Decoder::new(std::io::Cursor::new(&bytes));
        let reader = decoder.read_info().unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            (reader.info().width, reader.info().height),
            (100_000, 100_000)
        );
        let (a, b) = orm_bomb_maps();
        assert!(
            a.len() < 500 && b.len() < 500,
            "{} and {}",
            a.len(),
            b.len()
        );
        assert!(truncated_png().len() > 100);
    }
}
