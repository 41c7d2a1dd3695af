//! Generated iris textures for eye materials whose image is missing: MakeHuman's eye texture
//! layout (two eyeballs on one image, as `eyes/materials/brown_eye.png` has them) drawn with a
//! pupil, an iris ring in the material's colour family and a sclera, so no eye is blank.
//! The colour table is in `spec-notes/textures.md`.

/// Iris colours (sRGB) by the eye material's family, from the shipped materials' names.
pub const IRIS_SRGB: [(&str, [f64; 3]); 9] = [
    ("brown", [0.36, 0.17, 0.08]),
    ("brownlight", [0.55, 0.36, 0.17]),
    ("blue", [0.24, 0.44, 0.74]),
    ("lightblue", [0.45, 0.64, 0.85]),
    ("deepblue", [0.10, 0.22, 0.52]),
    ("bluegreen", [0.22, 0.52, 0.52]),
    ("green", [0.30, 0.50, 0.22]),
    ("grey", [0.50, 0.53, 0.56]),
    ("ice", [0.70, 0.80, 0.88]),
];

/// The sclera's colour (sRGB).
pub const SCLERA_SRGB: [f64; 3] = [0.93, 0.91, 0.89];

/// The background around the eyeballs (sRGB), as MakeHuman's texture has it.
const BACKGROUND_SRGB: [f64; 3] = [0.70, 0.70, 0.68];

/// Eyeball, iris and pupil centres and radii in texture space (x right, y down, 0..1), as
/// in MakeHuman's eye textures: the right eye's ball top right, the left's bottom left.
const EYES: [[f64; 2]; 2] = [[0.705, 0.297], [0.293, 0.717]];
const BALL_RADIUS: f64 = 0.28;
const IRIS_RADIUS: f64 = 0.113;
const PUPIL_RADIUS: f64 = 0.036;
/// The cornea's region (the eyes' outer shell maps there): transparent, so the iris beneath
/// shows, as in MakeHuman's textures.
const CORNEA: [f64; 2] = [0.935, 0.935];
const CORNEA_RADIUS: f64 = 0.064;

/// Side of the generated image in pixels.
pub const IRIS_SIDE: u32 = 256;

/// The iris colour of a material family (`brown` for one we do not know).
pub fn iris_srgb(family: &str) -> [f64; 3] {
    let family = family.to_ascii_lowercase();
    IRIS_SRGB
        .iter()
        .find(|(name, _)| family == *name)
        .or_else(|| IRIS_SRGB.iter().find(|(name, _)| family.starts_with(name)))
        .map_or(IRIS_SRGB[0].1, |(_, c)| *c)
}

/// An RGBA PNG of [`IRIS_SIDE`] pixels square with both eyes in `family`'s iris colour: a dark
/// limbal ring at the iris's edge, lighter towards the pupil, a black pupil, the sclera around,
/// and the cornea's region transparent.
pub fn iris_png(family: &str) -> Vec<u8> {
    let iris = iris_srgb(family);
    let side = IRIS_SIDE;
    let mut pixels = Vec::with_capacity((side * side * 4) as usize);
    for y in 0..side {
        for x in 0..side {
            let p = [
                (f64::from(x) + 0.5) / f64::from(side),
                (f64::from(y) + 0.5) / f64::from(side),
            ];
            let distance = EYES
                .iter()
                .map(|c| ((p[0] - c[0]).powi(2) + (p[1] - c[1]).powi(2)).sqrt())
                .fold(f64::INFINITY, f64::min);
            let color = if distance < PUPIL_RADIUS {
                [0.02, 0.02, 0.02]
            } else if distance < IRIS_RADIUS {
                // Lighter near the pupil, darker at the limbal ring.
                let t = (distance - PUPIL_RADIUS) / (IRIS_RADIUS - PUPIL_RADIUS);
                let shade = 1.15 - 0.55 * t * t;
                iris.map(|c| (c * shade).min(1.0))
            } else if distance < BALL_RADIUS {
                SCLERA_SRGB
            } else {
                BACKGROUND_SRGB
            };
            pixels.extend(color.map(|c| (c * 255.0).round() as u8));
            let cornea = ((p[0] - CORNEA[0]).powi(2) + (p[1] - CORNEA[1]).powi(2)).sqrt();
            pixels.push(if cornea < CORNEA_RADIUS { 0 } else { 255 });
        }
    }
    let mut out = Vec::new();
    let image = image::RgbaImage::from_raw(side, side, pixels);
    if let Some(image) = image {
        // Encoding into memory cannot fail for a well-formed RGB image.
        let _ = image.write_to(&mut std::io::Cursor::new(&mut out), image::ImageFormat::Png);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_generated_iris_has_a_pupil_an_iris_ring_and_a_sclera() {
        let png = iris_png("blue");
        let image = image::load_from_memory(&png)
            .unwrap_or_else(|e| panic!("{e}"))
            .to_rgba8();
        let at = |u: f64, v: f64| {
            image
                .get_pixel(
                    (u * f64::from(IRIS_SIDE)) as u32,
                    (v * f64::from(IRIS_SIDE)) as u32,
                )
                .0
        };
        let [cx, cy] = EYES[0];
        assert_eq!(at(cx, cy), [5, 5, 5, 255], "pupil");
        assert_eq!(at(CORNEA[0], CORNEA[1])[3], 0, "the cornea is clear");
        let ring = at(cx + 0.07, cy);
        assert!(ring[2] > ring[0], "a blue iris: {ring:?}");
        let sclera = SCLERA_SRGB.map(|c| (c * 255.0).round() as u8);
        assert_eq!(at(cx + 0.2, cy), [sclera[0], sclera[1], sclera[2], 255]);
        assert_eq!(iris_srgb("Brown"), IRIS_SRGB[0].1);
        assert_eq!(iris_srgb("lightblue"), IRIS_SRGB[3].1);
        assert_eq!(iris_srgb("unknown"), IRIS_SRGB[0].1);
    }
}
