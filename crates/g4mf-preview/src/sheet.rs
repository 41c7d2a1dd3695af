//! Contact sheets: pictures tiled in a grid, each labelled with its name in an 8x8 bitmap font.

use image::{Rgba, RgbaImage};

/// One picture and its label.
#[derive(Debug, Clone)]
pub struct Tile {
    /// The picture.
    pub image: RgbaImage,
    /// Its label (cut to the tile's width).
    pub label: String,
}

/// Glyph scale of the labels: 2x where every label fits the tile at 2x, else 1x.
fn label_scale(tiles: &[Tile], tile_width: u32) -> u32 {
    let longest = tiles
        .iter()
        .map(|t| t.label.chars().count())
        .max()
        .unwrap_or(0) as u32;
    if longest * 16 + 6 <= tile_width { 2 } else { 1 }
}

/// Tiles `tiles` (all the size of the first) in rows of `columns`, each with its label under
/// it, on `background` (sRGB).
pub fn contact_sheet(tiles: &[Tile], columns: u32, background: [u8; 3]) -> RgbaImage {
    let Some(first) = tiles.first() else {
        return RgbaImage::from_pixel(
            1,
            1,
            Rgba([background[0], background[1], background[2], 255]),
        );
    };
    let (tw, th) = first.image.dimensions();
    let scale = label_scale(tiles, tw);
    let strip = 8 * scale + 6;
    let columns = columns.clamp(1, tiles.len() as u32);
    let rows = (tiles.len() as u32).div_ceil(columns);
    let mut sheet = RgbaImage::from_pixel(
        columns * tw,
        rows * (th + strip),
        Rgba([background[0], background[1], background[2], 255]),
    );
    for (i, tile) in tiles.iter().enumerate() {
        let (x, y) = (
            (i as u32 % columns) * tw,
            (i as u32 / columns) * (th + strip),
        );
        image::imageops::replace(&mut sheet, &tile.image, i64::from(x), i64::from(y));
        draw_text(&mut sheet, &tile.label, x + 3, y + th + 3, scale, tw - 6);
    }
    sheet
}

/// Draws `text` in dark grey at (x, y), glyphs `scale` times 8 pixels, at most `max_width`
/// pixels wide (characters past it, and those the font lacks, are left out or shown as `?`).
pub fn draw_text(image: &mut RgbaImage, text: &str, x: u32, y: u32, scale: u32, max_width: u32) {
    use font8x8::UnicodeFonts;
    let ink = Rgba([40, 40, 48, 255]);
    let advance = 8 * scale;
    let fits = (max_width / advance) as usize;
    for (k, ch) in text.chars().take(fits).enumerate() {
        let glyph = font8x8::BASIC_FONTS
            .get(ch)
            .or_else(|| font8x8::BASIC_FONTS.get('?'))
            .unwrap_or([0; 8]);
        for (row, bits) in glyph.iter().enumerate() {
            for col in 0..8u32 {
                if bits & (1 << col) == 0 {
                    continue;
                }
                for dy in 0..scale {
                    for dx in 0..scale {
                        let px = x + k as u32 * advance + col * scale + dx;
                        let py = y + row as u32 * scale + dy;
                        if px < image.width() && py < image.height() {
                            image.put_pixel(px, py, ink);
                        }
                    }
                }
            }
        }
    }
}
