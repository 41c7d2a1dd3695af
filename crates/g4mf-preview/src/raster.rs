//! The rasterizer: orthographic views of a [`Scene`] with a depth buffer, per-pixel shading
//! from interpolated normals, 2x2 supersampling, and a bone overlay drawn on top. Materials
//! draw as MakeHuman draws them: opaque and alpha-to-coverage triangles with the depth buffer,
//! then transparent ones blended over them by draw order.

use crate::scene::{AlphaMode, DrawStyle, Scene, Triangle};
use glam::{Vec2, Vec3};
use image::{Rgba, RgbaImage};

/// Where the camera looks from. The character faces +Z (G4MF's forward), Y up.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum View {
    /// From +Z: the character's front.
    Front,
    /// From +X: the character's left side; the face looks left in the picture.
    Side,
    /// From +X+Z, halfway between front and side.
    ThreeQuarter,
}

impl View {
    /// Every view, in the order a sheet of all shows them.
    pub const ALL: [View; 3] = [View::Front, View::ThreeQuarter, View::Side];

    /// Camera axes: right, up, and forward (into the picture).
    pub fn axes(self) -> (Vec3, Vec3, Vec3) {
        let forward = match self {
            View::Front => Vec3::new(0.0, 0.0, -1.0),
            View::Side => Vec3::new(-1.0, 0.0, 0.0),
            View::ThreeQuarter => Vec3::new(-1.0, 0.0, -1.0).normalize(),
        };
        let up = Vec3::Y;
        (forward.cross(up), up, forward)
    }
}

/// How to draw.
#[derive(Debug, Clone, PartialEq)]
pub struct RenderOptions {
    /// The views, side by side, each a `width` x `height` panel.
    pub views: Vec<View>,
    /// Panel width in pixels.
    pub width: u32,
    /// Panel height in pixels.
    pub height: u32,
    /// Draw the bones over the mesh.
    pub bones: bool,
    /// Background, sRGB.
    pub background: [u8; 3],
    /// A fixed scale, pixels per metre, with the figure standing on the bottom margin (so
    /// pictures of different bodies compare in size); `None`: each picture is framed to fit.
    pub pixels_per_metre: Option<f32>,
    /// Frame this region instead of the whole scene (a close-up).
    pub region: Option<Region>,
}

/// A region to frame: a sphere, seen as its square in every view.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Region {
    /// Centre, world space.
    pub centre: Vec3,
    /// Radius, metres.
    pub radius: f32,
}

impl Default for RenderOptions {
    fn default() -> Self {
        Self {
            views: vec![View::Front],
            width: 512,
            height: 512,
            bones: false,
            background: BACKGROUND,
            pixels_per_metre: None,
            region: None,
        }
    }
}

/// The default background: a light grey, sRGB.
pub const BACKGROUND: [u8; 3] = [236, 236, 238];
/// Largest panel side: a bound on memory (a 2048 panel draws 4096x4096 samples, 256 MiB).
pub const MAX_SIDE: u32 = 2048;
/// Bone colour, sRGB.
const BONE: [f32; 3] = [1.0, 0.45, 0.0];
/// Samples per pixel side.
const SS: u32 = 2;
/// Fraction of the panel left empty around the figure, per side.
const MARGIN: f32 = 0.05;

/// One sRGB-encoded component of a linear value.
fn linear_to_srgb(c: f32) -> f32 {
    let c = c.clamp(0.0, 1.0);
    if c <= 0.003_130_8 {
        c * 12.92
    } else {
        1.055 * c.powf(1.0 / 2.4) - 0.055
    }
}

/// One linear component of an sRGB-encoded value.
pub fn srgb_to_linear(c: f32) -> f32 {
    if c <= 0.040_45 {
        c / 12.92
    } else {
        ((c + 0.055) / 1.055).powf(2.4)
    }
}

/// A linear-light frame with depth, at supersampled resolution.
struct Frame {
    width: usize,
    height: usize,
    color: Vec<Vec3>,
    depth: Vec<f32>,
}

/// The world-to-panel mapping shared by all views of one picture, so the figure has the same
/// size in each.
#[derive(Debug, Clone, Copy)]
struct Framing {
    scale: f32,
    /// The lowest point sits on the bottom margin (else the figure is centred).
    standing: bool,
}

fn projected_bounds(scene: &Scene, view: View, options: &RenderOptions) -> Option<(Vec2, Vec2)> {
    let (right, up, _) = view.axes();
    let bones = options.bones;
    if let Some(region) = options.region {
        let c = Vec2::new(region.centre.dot(right), region.centre.dot(up));
        let r = Vec2::splat(region.radius.max(1e-6));
        return Some((c - r, c + r));
    }
    let mut lo = Vec2::splat(f32::INFINITY);
    let mut hi = Vec2::splat(f32::NEG_INFINITY);
    let points = scene.triangles.iter().flat_map(|t| t.corners);
    let bone_points = scene
        .bones
        .iter()
        .filter(|_| bones)
        .flat_map(|b| [b.head, b.tail]);
    for p in points.chain(bone_points).filter(|p| p.is_finite()) {
        let q = Vec2::new(p.dot(right), p.dot(up));
        lo = lo.min(q);
        hi = hi.max(q);
    }
    (lo.x <= hi.x).then_some((lo, hi))
}

/// Renders `scene` as `options` ask: one panel per view, side by side.
pub fn render(scene: &Scene, options: &RenderOptions) -> RgbaImage {
    render_many(&[scene], options)
}

/// Renders several scenes side by side (each with every view of `options`), at one scale so
/// they compare in size: a baked rest next to the original, say.
pub fn render_many(scenes: &[&Scene], options: &RenderOptions) -> RgbaImage {
    let width = options.width.clamp(1, MAX_SIDE);
    let height = options.height.clamp(1, MAX_SIDE);
    let views = if options.views.is_empty() {
        vec![View::Front]
    } else {
        options.views.clone()
    };
    let panels: Vec<(&Scene, View)> = scenes
        .iter()
        .flat_map(|s| views.iter().map(move |v| (*s, *v)))
        .take(16)
        .collect();
    let mut image = RgbaImage::new(width * panels.len().max(1) as u32, height);
    // One scale for all panels: the largest figure that fits every view of every scene.
    let usable = |side: u32| side as f32 * (1.0 - 2.0 * MARGIN);
    let scale = panels
        .iter()
        .filter_map(|&(scene, v)| projected_bounds(scene, v, options))
        .map(|(lo, hi)| {
            let size = (hi - lo).max(Vec2::splat(1e-6));
            (usable(width) / size.x).min(usable(height) / size.y)
        })
        .fold(f32::INFINITY, f32::min);
    let framing = match options
        .pixels_per_metre
        .filter(|s| s.is_finite() && *s > 0.0)
    {
        Some(scale) => Framing {
            scale,
            standing: true,
        },
        None => Framing {
            scale: if scale.is_finite() { scale } else { 1.0 },
            standing: false,
        },
    };
    for (i, &(scene, view)) in panels.iter().enumerate() {
        let panel = render_panel(scene, view, width, height, framing, options);
        image::imageops::replace(&mut image, &panel, i64::from(width) * i as i64, 0);
    }
    image
}

fn render_panel(
    scene: &Scene,
    view: View,
    width: u32,
    height: u32,
    framing: Framing,
    options: &RenderOptions,
) -> RgbaImage {
    let (right, up, forward) = view.axes();
    let (w, h) = ((width * SS) as usize, (height * SS) as usize);
    let background = Vec3::from_array(
        options
            .background
            .map(|c| srgb_to_linear(f32::from(c) / 255.0)),
    );
    let mut frame = Frame {
        width: w,
        height: h,
        color: vec![background; w * h],
        depth: vec![f32::INFINITY; w * h],
    };
    let pixels_per_metre = framing.scale * SS as f32;
    let centre = projected_bounds(scene, view, options).map_or(Vec2::ZERO, |(lo, hi)| {
        let mut centre = (lo + hi) / 2.0;
        if framing.standing {
            // The point at the panel's middle height lies this far above the lowest point.
            centre.y = lo.y + (0.5 - MARGIN) * h as f32 / pixels_per_metre;
        }
        centre
    });
    // World point to supersampled pixel coordinates (x right, y down) and depth.
    let project = |p: Vec3| -> Vec3 {
        let q = Vec2::new(p.dot(right), p.dot(up)) - centre;
        Vec3::new(
            w as f32 / 2.0 + q.x * pixels_per_metre,
            h as f32 / 2.0 - q.y * pixels_per_metre,
            p.dot(forward),
        )
    };
    // Lights in camera terms: a key from upper left front, a fill from the right.
    let lights = Lights {
        forward,
        key: (-forward * 0.8 + up * 0.55 - right * 0.35).normalize(),
        fill: (-forward * 0.5 + right * 0.7 - up * 0.1).normalize(),
    };
    // Everything that writes depth first (opaque and alpha-to-coverage triangles, in any
    // order: the depth buffer sorts them out), then the blended ones. MakeHuman orders whole
    // objects by z_depth alone; putting depth writers first keeps an opaque surface that
    // happens to draw later from painting over a blended layer in front of it.
    let mut blended: Vec<(usize, DrawStyle, f32)> = Vec::new();
    for (i, (triangle, style)) in scene
        .triangles
        .iter()
        .zip(scene.triangle_styles())
        .enumerate()
    {
        if style.mode == AlphaMode::Blend {
            let depth = triangle.corners.iter().map(|p| p.dot(forward)).sum::<f32>() / 3.0;
            blended.push((i, style, depth));
        } else {
            draw_triangle(&mut frame, scene, triangle, style, &project, &lights);
        }
    }
    // Lower draw order first (MakeHuman's z_depth: hair over eyebrows), then within one order
    // back to front by the centroid, so nearer layers blend over farther ones. The sort is
    // stable: ties keep the file's order.
    blended.sort_by(|a, b| {
        a.1.draw_order
            .cmp(&b.1.draw_order)
            .then(b.2.total_cmp(&a.2))
    });
    for (i, style, _) in blended {
        draw_triangle(
            &mut frame,
            scene,
            &scene.triangles[i],
            style,
            &project,
            &lights,
        );
    }
    if options.bones {
        let radius = (h as f32 / 500.0).max(1.5);
        for bone in &scene.bones {
            let (a, b) = (project(bone.head), project(bone.tail));
            if a.is_finite() && b.is_finite() {
                segment(&mut frame, a.truncate(), b.truncate(), radius, BONE);
                disc(&mut frame, a.truncate(), radius * 1.8, BONE);
            }
        }
    }
    downsample(&frame, width, height)
}

/// The camera's forward axis and the lights, in world terms.
struct Lights {
    forward: Vec3,
    key: Vec3,
    fill: Vec3,
}

/// Coverage thresholds of the four samples of a pixel (a 2x2 ordered dither): a sample of an
/// alpha-to-coverage triangle is covered when its alpha reaches the sample's threshold, so a
/// pixel is covered in proportion to alpha, as 4x multisampling covers it on a GPU.
const COVERAGE: [f32; 4] = [0.125, 0.625, 0.875, 0.375];

/// Draws one triangle as its style says: opaque and coverage samples write colour and
/// depth; blended samples mix into the colour (`src * a + dst * (1 - a)`, linear light) and
/// leave the depth alone.
fn draw_triangle(
    frame: &mut Frame,
    scene: &Scene,
    triangle: &Triangle,
    style: DrawStyle,
    project: &impl Fn(Vec3) -> Vec3,
    lights: &Lights,
) {
    let [a, b, c] = triangle.corners.map(project);
    if !(a.is_finite() && b.is_finite() && c.is_finite()) {
        return;
    }
    let face = (triangle.corners[1] - triangle.corners[0])
        .cross(triangle.corners[2] - triangle.corners[0])
        .normalize_or_zero();
    // Front faces wind counter-clockwise (right-hand rule, as the file's normals are computed),
    // so a face normal pointing into the picture shows the back.
    if style.backface_cull && face.dot(lights.forward) > 0.0 {
        return;
    }
    let normals = triangle.normals.unwrap_or([face; 3]);
    let base = Vec3::from_array(triangle.color);
    let texture = triangle
        .texture
        .and_then(|(t, uv)| Some((scene.textures.get(t as usize)?, uv)));
    // Unlit colour and alpha at barycentric coordinates.
    let surface = |l0: f32, l1: f32, l2: f32| match texture {
        None => (base, style.alpha),
        Some((texture, uv)) => {
            let [r, g, b, alpha] = sample(texture, uv[0] * l0 + uv[1] * l1 + uv[2] * l2);
            let alpha = if texture.uses_alpha { alpha } else { 1.0 };
            (base * Vec3::new(r, g, b), alpha * style.alpha)
        }
    };
    let lit = |color: Vec3, l0: f32, l1: f32, l2: f32| {
        let mut n = (normals[0] * l0 + normals[1] * l1 + normals[2] * l2).normalize_or_zero();
        // Two-sided lighting: a normal facing away from the camera is turned toward it.
        if n.dot(lights.forward) > 0.0 {
            n = -n;
        }
        color * (0.22 + 0.72 * n.dot(lights.key).max(0.0) + 0.22 * n.dot(lights.fill).max(0.0))
    };
    rasterize(frame, [a, b, c], |frame, at| {
        let [l0, l1, l2] = at.weights;
        let (color, alpha) = surface(l0, l1, l2);
        match style.mode {
            AlphaMode::Opaque | AlphaMode::Coverage => {
                let threshold = match style.mode {
                    // A texture whose alpha is used cuts out below the cutoff (half, or a
                    // glTF MASK material's alphaCutoff).
                    AlphaMode::Opaque => style.cutoff,
                    _ => COVERAGE[(at.y % 2) * 2 + at.x % 2],
                };
                if alpha < threshold {
                    return;
                }
                frame.depth[at.index] = at.depth;
                frame.color[at.index] = lit(color, l0, l1, l2);
            }
            AlphaMode::Blend => {
                // MakeHuman's alpha test drops what is fully clear. Depth is not written (as
                // MakeHuman's glDepthMask(false)): a later layer (higher draw order, or nearer
                // within one) still blends over this one, and nothing opaque is drawn after.
                if alpha <= 0.0 {
                    return;
                }
                let dst = frame.color[at.index];
                frame.color[at.index] = lit(color, l0, l1, l2) * alpha + dst * (1.0 - alpha);
            }
        }
    });
}

/// Bilinear sample of a texture at `uv` (x right, y down, wrapping), in linear light: RGB
/// decoded from sRGB before blending, alpha as stored.
fn sample(texture: &crate::scene::SampledTexture, uv: Vec2) -> [f32; 4] {
    let (w, h) = (texture.width as f32, texture.height as f32);
    let x = uv.x * w - 0.5;
    let y = uv.y * h - 0.5;
    let (x0, y0) = (x.floor(), y.floor());
    let (fx, fy) = (x - x0, y - y0);
    let texel = |dx: f32, dy: f32| {
        let tx = ((x0 + dx).rem_euclid(w)) as usize % texture.width as usize;
        let ty = ((y0 + dy).rem_euclid(h)) as usize % texture.height as usize;
        let [r, g, b, a] = texture.texels[ty * texture.width as usize + tx];
        [
            srgb_to_linear(f32::from(r) / 255.0),
            srgb_to_linear(f32::from(g) / 255.0),
            srgb_to_linear(f32::from(b) / 255.0),
            f32::from(a) / 255.0,
        ]
    };
    let (t00, t10, t01, t11) = (
        texel(0.0, 0.0),
        texel(1.0, 0.0),
        texel(0.0, 1.0),
        texel(1.0, 1.0),
    );
    std::array::from_fn(|k| {
        let top = t00[k] * (1.0 - fx) + t10[k] * fx;
        let bottom = t01[k] * (1.0 - fx) + t11[k] * fx;
        top * (1.0 - fy) + bottom * fy
    })
}

/// A sample a triangle covers: where it is, its depth and its barycentric weights.
#[derive(Debug, Clone, Copy)]
struct Covered {
    /// Index into the frame's buffers.
    index: usize,
    x: usize,
    y: usize,
    depth: f32,
    weights: [f32; 3],
}

/// Visits each sample a triangle covers that is nearer than the depth buffer there; `visit`
/// decides what to write.
fn rasterize(frame: &mut Frame, [a, b, c]: [Vec3; 3], mut visit: impl FnMut(&mut Frame, Covered)) {
    let area = (b.x - a.x) * (c.y - a.y) - (b.y - a.y) * (c.x - a.x);
    if area.abs() < 1e-12 {
        return;
    }
    let min_x = a.x.min(b.x).min(c.x).floor().max(0.0) as usize;
    let max_x = (a.x.max(b.x).max(c.x).ceil() as usize).min(frame.width);
    let min_y = a.y.min(b.y).min(c.y).floor().max(0.0) as usize;
    let max_y = (a.y.max(b.y).max(c.y).ceil() as usize).min(frame.height);
    for y in min_y..max_y {
        let py = y as f32 + 0.5;
        for x in min_x..max_x {
            let px = x as f32 + 0.5;
            let w0 = ((b.x - px) * (c.y - py) - (b.y - py) * (c.x - px)) / area;
            let w1 = ((c.x - px) * (a.y - py) - (c.y - py) * (a.x - px)) / area;
            let w2 = 1.0 - w0 - w1;
            if w0 < 0.0 || w1 < 0.0 || w2 < 0.0 {
                continue;
            }
            let depth = w0 * a.z + w1 * b.z + w2 * c.z;
            let index = y * frame.width + x;
            if depth < frame.depth[index] {
                visit(
                    frame,
                    Covered {
                        index,
                        x,
                        y,
                        depth,
                        weights: [w0, w1, w2],
                    },
                );
            }
        }
    }
}

fn disc(frame: &mut Frame, centre: Vec2, radius: f32, srgb: [f32; 3]) {
    let color = Vec3::from_array(srgb.map(srgb_to_linear));
    let min_x = (centre.x - radius).floor().max(0.0) as usize;
    let max_x = ((centre.x + radius).ceil().max(0.0) as usize).min(frame.width);
    let min_y = (centre.y - radius).floor().max(0.0) as usize;
    let max_y = ((centre.y + radius).ceil().max(0.0) as usize).min(frame.height);
    for y in min_y..max_y {
        for x in min_x..max_x {
            let p = Vec2::new(x as f32 + 0.5, y as f32 + 0.5);
            if p.distance(centre) <= radius {
                frame.color[y * frame.width + x] = color;
            }
        }
    }
}

fn segment(frame: &mut Frame, a: Vec2, b: Vec2, radius: f32, srgb: [f32; 3]) {
    let color = Vec3::from_array(srgb.map(srgb_to_linear));
    let lo = a.min(b) - Vec2::splat(radius);
    let hi = a.max(b) + Vec2::splat(radius);
    let min_x = lo.x.floor().max(0.0) as usize;
    let max_x = (hi.x.ceil().max(0.0) as usize).min(frame.width);
    let min_y = lo.y.floor().max(0.0) as usize;
    let max_y = (hi.y.ceil().max(0.0) as usize).min(frame.height);
    let d = b - a;
    let length_squared = d.length_squared().max(1e-12);
    for y in min_y..max_y {
        for x in min_x..max_x {
            let p = Vec2::new(x as f32 + 0.5, y as f32 + 0.5);
            let t = ((p - a).dot(d) / length_squared).clamp(0.0, 1.0);
            if p.distance(a + d * t) <= radius {
                frame.color[y * frame.width + x] = color;
            }
        }
    }
}

/// Averages each 2x2 block in linear light, then encodes sRGB.
fn downsample(frame: &Frame, width: u32, height: u32) -> RgbaImage {
    let ss = SS as usize;
    RgbaImage::from_fn(width, height, |x, y| {
        let mut sum = Vec3::ZERO;
        for dy in 0..ss {
            for dx in 0..ss {
                sum += frame.color[(y as usize * ss + dy) * frame.width + x as usize * ss + dx];
            }
        }
        let c = sum / (ss * ss) as f32;
        let [r, g, b] = c
            .to_array()
            .map(|v| (linear_to_srgb(v) * 255.0).round() as u8);
        Rgba([r, g, b, 255])
    })
}
