//! The `orm` texture packed from a MakeHuman material's separate maps: ambient occlusion
//! (`aomapTexture`) in red, roughness (`roughnessmapTexture`) in green, metallic
//! (`metallicmapTexture`) in blue, the order G4MF requires (`parts/mesh/material.md`). The
//! only image we encode: every other image is written as it is (once decoded to check it).
//!
//! A map's grey level is its value as stored (these maps are data, not colours: no sRGB
//! decoding). Maps of different sizes are resampled to the one with the most pixels (the
//! packed image is never larger than its largest input); a channel without a usable map is
//! filled with the material's value (occlusion 1, unoccluded as in glTF's occlusion map,
//! which the spec calls the industry layout; roughness from `roughness` or `1 - shininess`;
//! metallic from `metallic`, else 0).

use crate::images::Unusable;
use character::Image;
use image::{DynamicImage, GrayImage, ImageFormat, ImageReader, RgbImage};
use makehuman_assets::MaterialFile;

/// The material keys of the three channels, in channel order.
pub const KEYS: [&str; 3] = ["aomapTexture", "roughnessmapTexture", "metallicmapTexture"];

/// The channel values where a map is missing: occlusion, roughness, metallic.
pub fn defaults(material: &MaterialFile) -> [f64; 3] {
    let roughness = material
        .roughness
        .or(material.shininess.map(|s| 1.0 - s))
        .unwrap_or(1.0);
    [1.0, roughness, material.metallic.unwrap_or(0.0)].map(|v| v.clamp(0.0, 1.0))
}

/// A packed `orm` image and the maps that were given but could not be decoded (their
/// channels take the defaults), by channel.
#[derive(Debug, Clone, PartialEq)]
pub struct Packed {
    /// The packed PNG.
    pub image: Image,
    /// Channels whose map could not be decoded, and why.
    pub undecodable: Vec<(usize, Unusable)>,
}

/// The largest side of a packed map: larger maps are resampled down to it.
pub const MAX_PACKED_SIDE: u32 = 4096;

/// One PNG with the decodable maps in their channels and `defaults` elsewhere, as large as
/// the map with the most pixels by its header (never larger than one input: maps of 8192 x 1
/// and 1 x 8192 make 8192 x 1, not 8192 x 8192), at most [`MAX_PACKED_SIDE`] a side. Each map
/// is decoded once (that decode is its check: the maps may come from
/// [`crate::images::image_header`]) and resampled as soon as it is decoded, so at most one map
/// is held at its own size. An error when no map is given or none decodes (then the texture
/// keeps only its placeholder), saying why.
pub fn pack(maps: [Option<&Image>; 3], defaults: [f64; 3]) -> Result<Packed, Unusable> {
    if maps.iter().all(Option::is_none) {
        return Err(Unusable::Missing);
    }
    let DecodedMaps {
        size,
        channels,
        undecodable,
    } = decode_maps(maps);
    let (width, height) = size.unwrap_or((1, 1));
    match pack_decoded(channels, defaults, width, height) {
        Ok(image) => Ok(Packed { image, undecodable }),
        Err(Unusable::Missing) => {
            let why = undecodable
                .iter()
                .map(|(c, why)| format!("{}: {}", KEYS[*c], why.describe()))
                .collect::<Vec<_>>()
                .join("; ");
            Err(Unusable::Bad(format!("no map decodes ({why})")))
        }
        Err(other) => Err(other),
    }
}

/// One PNG of `width` x `height` from maps already decoded and resampled to that size
/// ([`decode_map`]), `defaults` where a channel has none; [`Unusable::Missing`] when none has.
pub fn pack_decoded(
    channels: [Option<GrayImage>; 3],
    defaults: [f64; 3],
    width: u32,
    height: u32,
) -> Result<Image, Unusable> {
    if channels.iter().all(Option::is_none) {
        return Err(Unusable::Missing);
    }
    let fill = defaults.map(|v| (v * 255.0).round() as u8);
    let packed = RgbImage::from_fn(width, height, |x, y| {
        image::Rgb(std::array::from_fn(|c| match &channels[c] {
            Some(g) => g.get_pixel(x, y).0[0],
            None => fill[c],
        }))
    });
    drop(channels);
    let mut bytes = Vec::new();
    DynamicImage::ImageRgb8(packed)
        .write_to(&mut std::io::Cursor::new(&mut bytes), ImageFormat::Png)
        .map_err(|e| Unusable::Bad(format!("cannot encode the packed map: {e}")))?;
    // Our own encoding of pixels we hold: not decoded again.
    Ok(crate::images::encoded_png(bytes, width, height))
}

/// A map's size scaled down (its shape kept) to at most [`MAX_PACKED_SIDE`] a side.
fn packed_size_of([width, height]: [u32; 2]) -> (u32, u32) {
    let scale = (f64::from(MAX_PACKED_SIDE) / f64::from(width.max(height))).min(1.0);
    let side = |s: u32| ((f64::from(s) * scale).round() as u32).max(1);
    (side(width), side(height))
}

/// The maps decoded (each once: that decode is its check) and resampled to the packed
/// size, by channel; that size (of the map with the most pixels by its header that decodes,
/// scaled down to at most [`MAX_PACKED_SIDE`] a side) and the channels whose map did not
/// decode, with why. The maps are decoded largest first, so the size is known before any is
/// resampled.
pub fn decode_maps(maps: [Option<&Image>; 3]) -> DecodedMaps {
    let pixels = |c: usize| maps[c].map(|m| u64::from(m.size[0]) * u64::from(m.size[1]));
    // Most pixels first; among equals the later channel first (`max_by_key` keeps the last).
    let mut order = [0, 1, 2];
    order.sort_by_key(|&c| std::cmp::Reverse((pixels(c), c)));
    let mut size = None;
    let mut decoded = [None, None, None];
    let mut undecodable = Vec::new();
    for c in order {
        let Some(map) = maps[c] else { continue };
        let (width, height) = size.unwrap_or_else(|| packed_size_of(map.size));
        match decode_map(map, width, height) {
            Ok(grey) => {
                size = Some((width, height));
                decoded[c] = Some(grey);
            }
            Err(why) => undecodable.push((c, why)),
        }
    }
    undecodable.sort_by_key(|(c, _)| *c);
    DecodedMaps {
        size,
        channels: decoded,
        undecodable,
    }
}

/// The maps of a material decoded and resampled for packing ([`decode_maps`]).
#[derive(Debug)]
pub struct DecodedMaps {
    /// The packed size; `None` when no map decodes.
    pub size: Option<(u32, u32)>,
    /// Each channel's map at that size, when it decodes.
    pub channels: [Option<GrayImage>; 3],
    /// The channels whose map did not decode, and why.
    pub undecodable: Vec<(usize, Unusable)>,
}

/// A map decoded (once, within [`crate::images::decode_limits`]) and resampled to `width` x
/// `height`: a failure to decode is the map's check failing, as [`crate::images::image_of`]'s.
pub fn decode_map(map: &Image, width: u32, height: u32) -> Result<GrayImage, Unusable> {
    let grey = decode_grey(map)?;
    Ok(if grey.dimensions() == (width, height) {
        grey
    } else {
        resample(&grey, width, height)
    })
}

/// `map` resampled to `width` x `height` by a triangle filter widened when shrinking (as the
/// `image` crate's), one axis then the other, in the order whose intermediate is smaller: the
/// memory is that intermediate (`f32`s) and the result, never the larger side squared (the
/// `image` crate's `resize` holds the source's width by the new height in RGBA floats: 512 MiB
/// to turn 8192 x 1 into 1 x 4096).
///
/// Ours rather than a crate's, checked again in issue 41: the `image` crate (already a
/// dependency) has no resize with that bound, and `fast_image_resize` is not among our
/// dependencies; adopting it would bring SIMD code with `unsafe` to replace these sixty lines,
/// which run on at most three maps a material once per batch, and its integer coefficients
/// for 8-bit pixels round otherwise than these `f32` sums, changing every packed map's bytes
/// for no gain a picture shows.
fn resample(map: &GrayImage, width: u32, height: u32) -> GrayImage {
    let (source_width, source_height) = (map.width() as usize, map.height() as usize);
    let (width, height) = (width as usize, height as usize);
    let source = map.as_raw().as_slice();
    let out: Vec<f32> = if width * source_height <= source_width * height {
        let rows = resample_axis(source, source_width, source_height, width, true);
        resample_axis(&rows, width, source_height, height, false)
    } else {
        let columns = resample_axis(source, source_width, source_height, height, false);
        resample_axis(&columns, source_width, height, width, true)
    };
    let bytes = out
        .iter()
        .map(|v| v.round().clamp(0.0, 255.0) as u8)
        .collect();
    GrayImage::from_raw(width as u32, height as u32, bytes).unwrap_or_default()
}

/// A `width` x `height` grid of values resampled along x (`along_x`) or y to `size` samples.
fn resample_axis<T: Copy>(
    values: &[T],
    width: usize,
    height: usize,
    size: usize,
    along_x: bool,
) -> Vec<f32>
where
    f32: From<T>,
{
    let (length, lines) = if along_x {
        (width, height)
    } else {
        (height, width)
    };
    let (out_width, out_height) = if along_x {
        (size, height)
    } else {
        (width, size)
    };
    let ratio = length as f32 / size as f32;
    let support = ratio.max(1.0);
    let mut out = vec![0.0f32; out_width * out_height];
    for i in 0..size {
        let center = (i as f32 + 0.5) * ratio;
        let first = ((center - support).floor().max(0.0) as usize).min(length - 1);
        let last = ((center + support).ceil() as usize).clamp(first + 1, length);
        let weights: Vec<f32> = (first..last)
            .map(|j| (1.0 - ((j as f32 + 0.5 - center) / support).abs()).max(0.0))
            .collect();
        let total: f32 = weights.iter().sum();
        for line in 0..lines {
            let at = |j: usize| {
                if along_x {
                    line * width + j
                } else {
                    j * width + line
                }
            };
            let sum: f32 = (first..last)
                .zip(&weights)
                .map(|(j, w)| f32::from(values[at(j)]) * w)
                .sum();
            let value = if total > 0.0 {
                sum / total
            } else {
                f32::from(values[at(first)])
            };
            let to = if along_x {
                line * out_width + i
            } else {
                i * out_width + line
            };
            out[to] = value;
        }
    }
    out
}

/// A map's grey level per pixel, decoded within [`crate::images::decode_limits`].
fn decode_grey(map: &Image) -> Result<GrayImage, Unusable> {
    crate::images::count_decode();
    let format = if map.mime == "image/png" {
        ImageFormat::Png
    } else {
        ImageFormat::Jpeg
    };
    let mut reader = ImageReader::with_format(std::io::Cursor::new(map.bytes.as_slice()), format);
    reader.limits(crate::images::decode_limits());
    let decoded = reader
        .decode()
        .map_err(|e| Unusable::Bad(format!("cannot be decoded: {e}")))?;
    // A grey map is its value; a coloured one (some packs ship RGB) its first channel, which
    // equals the others in a grey image saved as RGB.
    let rgb = match decoded {
        DynamicImage::ImageLuma8(g) => return Ok(g),
        DynamicImage::ImageRgb8(rgb) => rgb,
        other => other.to_rgb8(),
    };
    Ok(GrayImage::from_fn(rgb.width(), rgb.height(), |x, y| {
        image::Luma([rgb.get_pixel(x, y).0[0]])
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::images::image_of;

    fn png(width: u32, height: u32, value: impl Fn(u32, u32) -> u8) -> Image {
        let mut bytes = Vec::new();
        DynamicImage::ImageLuma8(GrayImage::from_fn(width, height, |x, y| {
            image::Luma([value(x, y)])
        }))
        .write_to(&mut std::io::Cursor::new(&mut bytes), ImageFormat::Png)
        .unwrap();
        image_of(bytes).unwrap()
    }

    fn decoded(image: &Image) -> RgbImage {
        image::load_from_memory(&image.bytes).unwrap().to_rgb8()
    }

    #[test]
    fn each_map_lands_in_its_channel_and_missing_ones_take_the_defaults() {
        let ao = png(4, 2, |x, _| (x * 60) as u8);
        let packed = pack([Some(&ao), None, None], [1.0, 0.5, 0.0])
            .unwrap()
            .image;
        assert_eq!(packed.size, [4, 2]);
        assert_eq!(packed.mime, "image/png");
        let rgb = decoded(&packed);
        for x in 0..4 {
            assert_eq!(rgb.get_pixel(x, 1).0, [(x * 60) as u8, 128, 0]);
        }
        let metallic = png(4, 2, |_, y| 200 + y as u8);
        let rgb = decoded(
            &pack([None, None, Some(&metallic)], [1.0, 1.0, 0.0])
                .unwrap()
                .image,
        );
        assert_eq!(rgb.get_pixel(0, 0).0, [255, 255, 200]);
        assert_eq!(rgb.get_pixel(3, 1).0, [255, 255, 201]);
    }

    #[test]
    fn maps_of_different_sizes_are_resampled_to_the_largest() {
        let ao = png(2, 2, |_, _| 10);
        let roughness = png(8, 4, |_, _| 90);
        let packed = pack([Some(&ao), Some(&roughness), None], [1.0, 1.0, 0.0])
            .unwrap()
            .image;
        assert_eq!(packed.size, [8, 4]);
        let rgb = decoded(&packed);
        assert!(rgb.pixels().all(|p| p.0 == [10, 90, 0]));
    }

    #[test]
    fn no_map_or_a_broken_one_is_reported_not_packed() {
        assert_eq!(pack([None, None, None], [1.0; 3]), Err(Unusable::Missing));
        let mut broken = png(2, 2, |_, _| 0);
        let mut bytes = broken.bytes.as_ref().clone();
        bytes.truncate(40);
        broken.bytes = std::sync::Arc::new(bytes);
        assert!(matches!(
            pack([Some(&broken), None, None], [1.0; 3]),
            Err(Unusable::Bad(_))
        ));
    }

    /// Maps of 8192 x 1 and 1 x 8192 once packed into 8192 x 8192 (192 MiB and seconds for a
    /// few hundred bytes): the packed map is as large as the map with the most pixels.
    #[test]
    fn the_packed_map_is_no_larger_than_its_largest_map() {
        let (wide, tall) = test_support::images::orm_bomb_maps();
        let (wide, tall) = (image_of(wide).unwrap(), image_of(tall).unwrap());
        let packed = pack([Some(&wide), Some(&tall), None], [1.0; 3]).unwrap();
        // 8192 x 1 (or 1 x 8192), at most MAX_PACKED_SIDE a side.
        let [w, h] = packed.image.size;
        assert!(
            (w, h) == (MAX_PACKED_SIDE, 1) || (w, h) == (1, MAX_PACKED_SIDE),
            "{w}x{h}"
        );
        assert!(packed.undecodable.is_empty());
    }

    #[test]
    fn a_map_that_does_not_decode_is_reported_and_the_others_packed() {
        let good = png(4, 4, |_, _| 30);
        let mut broken = png(4, 4, |_, _| 0);
        let mut bytes = broken.bytes.as_ref().clone();
        bytes.truncate(40);
        broken.bytes = std::sync::Arc::new(bytes);
        let packed = pack([Some(&good), Some(&broken), None], [1.0, 0.5, 0.0]).unwrap();
        assert_eq!(packed.undecodable.len(), 1);
        assert_eq!(packed.undecodable[0].0, 1);
        assert!(
            packed.undecodable[0]
                .1
                .describe()
                .contains("cannot be decoded"),
            "{:?}",
            packed.undecodable
        );
        let rgb = decoded(&packed.image);
        assert_eq!(rgb.get_pixel(0, 0).0, [30, 128, 0]);
    }

    #[test]
    fn resampling_keeps_flat_maps_flat_and_gradients_in_order() {
        let flat = GrayImage::from_pixel(8192, 1, image::Luma([77]));
        let turned = resample(&flat, 1, 4096);
        assert_eq!(turned.dimensions(), (1, 4096));
        assert!(turned.pixels().all(|p| p.0 == [77]));
        let ramp = GrayImage::from_fn(8, 3, |x, _| image::Luma([(x * 30) as u8]));
        let half = resample(&ramp, 4, 6);
        assert_eq!(half.dimensions(), (4, 6));
        for y in 0..6 {
            let row: Vec<u8> = (0..4).map(|x| half.get_pixel(x, y).0[0]).collect();
            assert!(row.windows(2).all(|w| w[0] < w[1]), "{row:?}");
            assert!(row[0] < 40 && row[3] > 170, "{row:?}");
        }
    }

    #[test]
    fn the_defaults_follow_the_material() {
        let mut m = MaterialFile::default();
        assert_eq!(defaults(&m), [1.0, 1.0, 0.0]);
        m.shininess = Some(0.25);
        assert_eq!(defaults(&m), [1.0, 0.75, 0.0]);
        m.roughness = Some(0.4);
        m.metallic = Some(0.9);
        assert_eq!(defaults(&m), [1.0, 0.4, 0.9]);
    }
}
