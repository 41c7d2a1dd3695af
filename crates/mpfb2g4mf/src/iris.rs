//! Generated iris textures for eye materials whose image is missing: MakeHuman's eye texture
//! layout (two eyeballs on one image, as `eyes/materials/brown_eye.png` has them) drawn with a
//! pupil, an iris ring in the material's colour family and a sclera, so no eye is blank.
//! The colour table is in `spec-notes/textures.md`. Helper eyes (the base mesh's own, worn
//! when no assets folder gives proxy eyes) get an iris painted from their geometry into
//! their texture coordinates ([`paint_helper_eyes`]), in the colour `--eye-material`'s name
//! gives ([`family_named`]), brown by default.

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

/// The pupil's radius as a part of the iris's.
const PUPIL_OF_IRIS: f64 = PUPIL_RADIUS / IRIS_RADIUS;

/// The eye's colour (sRGB) at `rho`, the distance from the pupil's centre in iris radii: the
/// pupil, the iris (lighter near the pupil, darker at the limbal ring), then the sclera.
fn eye_srgb(iris: [f64; 3], rho: f64) -> [f64; 3] {
    if rho < PUPIL_OF_IRIS {
        [0.02, 0.02, 0.02]
    } else if rho < 1.0 {
        let t = (rho - PUPIL_OF_IRIS) / (1.0 - PUPIL_OF_IRIS);
        let shade = 1.15 - 0.55 * t * t;
        iris.map(|c| (c * shade).min(1.0))
    } else {
        SCLERA_SRGB
    }
}

/// The helper eyes' colour family (MakeHuman's default eyes are brown).
pub const HELPER_FAMILY: &str = "brown";

/// Side of the helper eyes' painted texture: the base mesh gives each eye about 2.5 % of its
/// texture space, about 50 texels across at this size.
pub const HELPER_SIDE: u32 = 2048;

/// The iris's angular radius seen from the eyeball's centre: a 6 mm iris on MakeHuman's
/// 14.7 mm eyeball (asin(6 / 14.7) is about 24 degrees).
const HELPER_IRIS_ANGLE: f64 = 24.0 * std::f64::consts::PI / 180.0;

/// The face groups of the base mesh's helper eyes.
const HELPER_EYES: [&str; 2] = ["helper-l-eye", "helper-r-eye"];

/// An RGB PNG of [`HELPER_SIDE`] pixels square for the helper eyes of `obj`: each eye's faces
/// painted in their texture coordinates, every texel coloured by the angle between the
/// forward axis (+Z, where MakeHuman's eyes look) and the direction from that eye's centre
/// to the point of the surface the texel shows; sclera elsewhere. `None` without helper eyes.
pub fn paint_helper_eyes(obj: &mpfb_mesh::ObjMesh, family: &str) -> Option<Vec<u8>> {
    let iris = iris_srgb(family);
    let side = HELPER_SIDE as usize;
    // One palette index per texel (0: sclera): a third of RGB's bytes to compress.
    let mut pixels: Vec<u8> = vec![0; side * side];
    let mut painted = false;
    for eye in HELPER_EYES {
        let faces: Vec<usize> = (0..obj.face_count())
            .filter(|&f| {
                obj.group_sets
                    .get(obj.face_group_set[f] as usize)
                    .is_some_and(|set| set.iter().any(|g| g == eye))
            })
            .collect();
        let corners = |f: usize| {
            obj.corners[obj.face_offsets[f] as usize..obj.face_offsets[f + 1] as usize].iter()
        };
        let mut vertices: Vec<u32> = faces
            .iter()
            .flat_map(|&f| corners(f))
            .map(|c| c.vertex)
            .collect();
        vertices.sort_unstable();
        vertices.dedup();
        if vertices.is_empty() {
            continue;
        }
        let position = |v: u32| glam::DVec3::from_array(obj.positions[v as usize]);
        let centre =
            vertices.iter().map(|&v| position(v)).sum::<glam::DVec3>() / vertices.len() as f64;
        for &f in &faces {
            let corners: Vec<_> = corners(f).collect();
            let Some(first) = corners.first() else {
                continue;
            };
            // A fan of triangles over the polygon.
            for pair in corners[1..].windows(2) {
                let triangle = [first, pair[0], pair[1]];
                let Some(uv) = triangle
                    .iter()
                    .map(|c| {
                        let [u, v] = *obj.texcoords.get(c.texcoord? as usize)?;
                        // Texture space: y grows downward.
                        Some([u * side as f64, (1.0 - v) * side as f64])
                    })
                    .collect::<Option<Vec<_>>>()
                else {
                    continue;
                };
                let xyz = triangle.map(|c| position(c.vertex));
                painted = true;
                paint_triangle(&mut pixels, side, [uv[0], uv[1], uv[2]], |l| {
                    let p = xyz[0] * l[0] + xyz[1] * l[1] + xyz[2] * l[2];
                    let direction = (p - centre).normalize_or_zero();
                    let angle = direction.z.clamp(-1.0, 1.0).acos();
                    palette_index(angle / HELPER_IRIS_ANGLE)
                });
            }
        }
    }
    if !painted {
        return None;
    }
    let palette: Vec<u8> = (0..=255u8)
        .flat_map(|i| palette_srgb(iris, i).map(|c| (c * 255.0).round() as u8))
        .collect();
    // An indexed PNG with fast compression: about 26 KB in under a millisecond, where RGB
    // at the best compression took 25 ms (measured in `spec-notes/textures.md`).
    let mut out = Vec::new();
    let mut encoder = png::Encoder::new(&mut out, HELPER_SIDE, HELPER_SIDE);
    encoder.set_color(png::ColorType::Indexed);
    encoder.set_depth(png::BitDepth::Eight);
    encoder.set_palette(palette);
    encoder.set_compression(png::Compression::Fast);
    let mut writer = encoder.write_header().ok()?;
    writer.write_image_data(&pixels).ok()?;
    writer.finish().ok()?;
    Some(out)
}

/// Palette entries of the painted eyes: 0 the sclera, 1 the pupil, 2..=255 the iris from
/// the pupil's edge outwards.
const IRIS_SHADES: f64 = 254.0;

/// The palette index of the eye at `rho` (distance from the pupil's centre in iris radii).
fn palette_index(rho: f64) -> u8 {
    if rho < PUPIL_OF_IRIS {
        1
    } else if rho < 1.0 {
        let t = (rho - PUPIL_OF_IRIS) / (1.0 - PUPIL_OF_IRIS);
        2 + (t * IRIS_SHADES).floor().min(IRIS_SHADES - 1.0) as u8
    } else {
        0
    }
}

/// The colour (sRGB) of palette entry `index` (see [`palette_index`]).
fn palette_srgb(iris: [f64; 3], index: u8) -> [f64; 3] {
    match index {
        0 => SCLERA_SRGB,
        1 => eye_srgb(iris, 0.0),
        i => {
            let t = (f64::from(i - 2) + 0.5) / IRIS_SHADES;
            eye_srgb(iris, PUPIL_OF_IRIS + t * (1.0 - PUPIL_OF_IRIS))
        }
    }
}

/// Colours the texels of `pixels` (palette indices, `side` square) whose centres lie in the triangle
/// `uv` (texel units), or within half a texel of it (so bilinear sampling at its edges finds
/// its colour), by `colour` of their barycentric coordinates.
fn paint_triangle(
    pixels: &mut [u8],
    side: usize,
    uv: [[f64; 2]; 3],
    colour: impl Fn([f64; 3]) -> u8,
) {
    let [a, b, c] = uv;
    let area = (b[0] - a[0]) * (c[1] - a[1]) - (c[0] - a[0]) * (b[1] - a[1]);
    if area.abs() < 1e-12 {
        return;
    }
    let low = |i: usize| (a[i].min(b[i]).min(c[i]) - 1.0).floor().max(0.0) as usize;
    let high = |i: usize| ((a[i].max(b[i]).max(c[i]) + 1.0).ceil() as usize).min(side);
    // Half a texel outside an edge, in barycentric units of each edge's own height.
    let edge = |p: [f64; 2], q: [f64; 2]| ((q[0] - p[0]).hypot(q[1] - p[1])) * 0.5 / area.abs();
    let slack = [edge(b, c), edge(c, a), edge(a, b)];
    for y in low(1)..high(1) {
        for x in low(0)..high(0) {
            let p = [x as f64 + 0.5, y as f64 + 0.5];
            let l0 = ((b[0] - p[0]) * (c[1] - p[1]) - (c[0] - p[0]) * (b[1] - p[1])) / area;
            let l1 = ((c[0] - p[0]) * (a[1] - p[1]) - (a[0] - p[0]) * (c[1] - p[1])) / area;
            let l2 = 1.0 - l0 - l1;
            if l0 >= -slack[0] && l1 >= -slack[1] && l2 >= -slack[2] {
                pixels[y * side + x] = colour([l0, l1, l2]);
            }
        }
    }
}

/// The colour family of [`IRIS_SRGB`] that the first of `names` naming one gives (a
/// material's file name, then its `name` line): its whole name lower-cased, without an `eye`
/// or `eye_` before or after, exactly, else beginning with a family's name (longest first).
/// `None` when none names a family we know.
pub fn family_named<'a>(names: impl IntoIterator<Item = &'a str>) -> Option<&'static str> {
    let mut families: Vec<&'static str> = IRIS_SRGB.iter().map(|(name, _)| *name).collect();
    families.sort_by_key(|f| std::cmp::Reverse(f.len()));
    names.into_iter().find_map(|name| {
        let lower = name.trim().to_ascii_lowercase();
        let bare = lower
            .trim_start_matches("eye")
            .trim_end_matches("eye")
            .trim_matches(['_', '-', ' ']);
        families
            .iter()
            .find(|f| **f == bare)
            .or_else(|| families.iter().find(|f| bare.starts_with(**f)))
            .copied()
    })
}

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
            let color = if distance < BALL_RADIUS {
                eye_srgb(iris, distance / IRIS_RADIUS)
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
        assert_eq!(family_named(["lightblue"]), Some("lightblue"));
        assert_eq!(family_named(["Eyeblue"]), Some("blue"));
        assert_eq!(family_named(["brown_eye"]), Some("brown"));
        assert_eq!(family_named(["mine", "EyeBrownLight"]), Some("brownlight"));
        assert_eq!(family_named(["violet", "Eyeviolet"]), None);
    }
}

#[cfg(test)]
mod painted_tests {
    use super::*;

    /// A square facing +Z and a triangle to a point behind it (so the eye's centre, the mean
    /// of its vertices, is behind the square's middle).
    #[test]
    fn a_painted_eye_is_pupil_in_front_and_sclera_at_the_side() {
        let text = "g helper-l-eye\nv -1 -1 1\nv 1 -1 1\nv 1 1 1\nv -1 1 1\nv 0 0 -1\n\
                    vt 0.25 0.25\nvt 0.75 0.25\nvt 0.75 0.75\nvt 0.25 0.75\nvt 0.9 0.05\n\
                    f 1/1 2/2 3/3 4/4\nf 1/1 5/5 2/2\n";
        let obj = mpfb_mesh::parse_obj(text.as_bytes()).unwrap();
        let png = paint_helper_eyes(&obj, "blue").expect("painted");
        let image = image::load_from_memory(&png).unwrap().to_rgb8();
        assert_eq!(image.width(), HELPER_SIDE);
        let at = |u: f64, v: f64| {
            image
                .get_pixel(
                    (u * f64::from(HELPER_SIDE)) as u32,
                    ((1.0 - v) * f64::from(HELPER_SIDE)) as u32,
                )
                .0
        };
        // The centre of the square looks straight ahead from the vertices' mean.
        assert!(at(0.5, 0.5).iter().all(|&c| c < 20), "{:?}", at(0.5, 0.5));
        // Its corners are far off the axis: sclera.
        let sclera = SCLERA_SRGB.map(|c| (c * 255.0).round() as u8);
        assert_eq!(at(0.26, 0.26), sclera);
        // Outside the painted faces: sclera too.
        assert_eq!(at(0.05, 0.05), sclera);
    }
}
