//! The `orm` texture packed from a MakeHuman material's separate maps: ambient occlusion
//! (`aomapTexture`) in red, roughness (`roughnessmapTexture`) in green, metallic
//! (`metallicmapTexture`) in blue, the order G4MF requires (`parts/mesh/material.md`). The
//! only image we decode and encode: every other image is written as it is.
//!
//! A map's grey level is its value as stored (these maps are data, not colours: no sRGB
//! decoding). Maps of different sizes are resampled to the largest; a channel without a usable
//! map is filled with the material's value (occlusion 1, unoccluded as in glTF's occlusion
//! map, which the spec calls the industry layout; roughness from `roughness` or
//! `1 - shininess`; metallic from `metallic`, else 0).

use crate::images::{Unusable, image_of};
use character::Image;
use image::{DynamicImage, GrayImage, ImageFormat, ImageReader, Limits, RgbImage};
use makehuman_assets::MaterialFile;

/// The material keys of the three channels, in channel order.
pub const KEYS: [&str; 3] = ["aomapTexture", "roughnessmapTexture", "metallicmapTexture"];

/// The largest side of a map decoded for packing.
pub const MAX_SIDE: u32 = 8192;

/// The most a map's decoding may allocate.
const MAX_DECODE_BYTES: u64 = 512 << 20;

/// The channel values where a map is missing: occlusion, roughness, metallic.
pub fn defaults(material: &MaterialFile) -> [f64; 3] {
    let roughness = material
        .roughness
        .or(material.shininess.map(|s| 1.0 - s))
        .unwrap_or(1.0);
    [1.0, roughness, material.metallic.unwrap_or(0.0)].map(|v| v.clamp(0.0, 1.0))
}

/// One PNG with the present maps in their channels and `defaults` elsewhere; an error when
/// no map is usable (then the texture keeps only its placeholder) or one cannot be decoded.
pub fn pack(maps: [Option<&Image>; 3], defaults: [f64; 3]) -> Result<Image, Unusable> {
    if maps.iter().all(Option::is_none) {
        return Err(Unusable::Missing);
    }
    let decoded: Vec<Option<GrayImage>> = maps
        .iter()
        .map(|m| m.map(decode_grey).transpose())
        .collect::<Result<_, _>>()?;
    let width = decoded
        .iter()
        .flatten()
        .map(|g| g.width())
        .max()
        .unwrap_or(1);
    let height = decoded
        .iter()
        .flatten()
        .map(|g| g.height())
        .max()
        .unwrap_or(1);
    let channels: Vec<Option<GrayImage>> = decoded
        .into_iter()
        .map(|g| {
            g.map(|g| {
                if g.dimensions() == (width, height) {
                    g
                } else {
                    image::imageops::resize(
                        &g,
                        width,
                        height,
                        image::imageops::FilterType::Triangle,
                    )
                }
            })
        })
        .collect();
    let fill = defaults.map(|v| (v * 255.0).round() as u8);
    let packed = RgbImage::from_fn(width, height, |x, y| {
        image::Rgb(std::array::from_fn(|c| match &channels[c] {
            Some(g) => g.get_pixel(x, y).0[0],
            None => fill[c],
        }))
    });
    let mut bytes = Vec::new();
    DynamicImage::ImageRgb8(packed)
        .write_to(&mut std::io::Cursor::new(&mut bytes), ImageFormat::Png)
        .map_err(|e| Unusable::Bad(format!("cannot encode the packed map: {e}")))?;
    image_of(bytes)
}

/// A map's grey level per pixel, decoded within [`MAX_SIDE`] and a memory bound.
fn decode_grey(map: &Image) -> Result<GrayImage, Unusable> {
    let format = if map.mime == "image/png" {
        ImageFormat::Png
    } else {
        ImageFormat::Jpeg
    };
    let mut reader = ImageReader::with_format(std::io::Cursor::new(map.bytes.as_slice()), format);
    let mut limits = Limits::default();
    limits.max_image_width = Some(MAX_SIDE);
    limits.max_image_height = Some(MAX_SIDE);
    limits.max_alloc = Some(MAX_DECODE_BYTES);
    reader.limits(limits);
    let decoded = reader
        .decode()
        .map_err(|e| Unusable::Bad(format!("cannot decode the map: {e}")))?;
    // A grey map is its value; a coloured one (some packs ship RGB) its first channel, which
    // equals the others in a grey image saved as RGB.
    Ok(match decoded {
        DynamicImage::ImageLuma8(g) => g,
        other => {
            let rgb = other.to_rgb8();
            GrayImage::from_fn(rgb.width(), rgb.height(), |x, y| {
                image::Luma([rgb.get_pixel(x, y).0[0]])
            })
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

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
        let packed = pack([Some(&ao), None, None], [1.0, 0.5, 0.0]).unwrap();
        assert_eq!(packed.size, [4, 2]);
        assert_eq!(packed.mime, "image/png");
        let rgb = decoded(&packed);
        for x in 0..4 {
            assert_eq!(rgb.get_pixel(x, 1).0, [(x * 60) as u8, 128, 0]);
        }
        let metallic = png(4, 2, |_, y| 200 + y as u8);
        let rgb = decoded(&pack([None, None, Some(&metallic)], [1.0, 1.0, 0.0]).unwrap());
        assert_eq!(rgb.get_pixel(0, 0).0, [255, 255, 200]);
        assert_eq!(rgb.get_pixel(3, 1).0, [255, 255, 201]);
    }

    #[test]
    fn maps_of_different_sizes_are_resampled_to_the_largest() {
        let ao = png(2, 2, |_, _| 10);
        let roughness = png(8, 4, |_, _| 90);
        let packed = pack([Some(&ao), Some(&roughness), None], [1.0, 1.0, 0.0]).unwrap();
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
