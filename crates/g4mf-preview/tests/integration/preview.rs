//! Pictures of tiny hand-built files whose silhouettes are known: pixels inside the shape
//! show its material, pixels outside show the background, in every placement tested; and
//! stacked squares whose materials blend, cut out, take alpha as coverage or cull back faces
//! as MakeHuman's render hints say.

use g4mf_preview::{
    AlphaMode, BACKGROUND, DrawStyle, Region, RenderOptions, Scene, SceneOptions, View, render,
};
use g4mf_reader::{G4mfFile, ReadOptions, read_bytes};
use g4mf_writer::{FaceSpec, ImageSpec, MaterialSpec, MeshSpec, SurfaceSpec, TextureSpec};
use glam::DVec3;
use image::RgbaImage;
use test_support::tiny::{self, TinyCharacter};

/// A right triangle (0,0,0), (1,0,0), (0,1,0) facing +Z, red, on a one-bone skeleton whose bone
/// runs from (0,0,0) up to (0,1,0). `edit` may change the document before it is written.
fn triangle_file(edit: impl FnOnce(&mut g4mf_model::Document)) -> G4mfFile {
    let spec = TinyCharacter::new("Tri")
        .bone("root", DVec3::ZERO, 1.0)
        .surface_name("Face")
        .material("Red", Some([1.0, 0.0, 0.0, 1.0]))
        // Stretch moves vertex 1 one metre further along +X (amount 0: not shown).
        .blend_shape("Stretch", 0.0, &[(1, DVec3::X)])
        .spec();
    let bytes = tiny::g4b_bytes_edited(&spec, edit);
    read_bytes(&bytes, None, &ReadOptions::default()).unwrap()
}

fn picture(file: &G4mfFile, view: View, bones: bool) -> RgbaImage {
    let scene = Scene::from_file(file).unwrap();
    render(
        &scene,
        &RenderOptions {
            views: vec![view],
            width: 100,
            height: 100,
            bones,
            ..Default::default()
        },
    )
}

fn is_background(image: &RgbaImage, x: u32, y: u32) -> bool {
    image.get_pixel(x, y).0[..3] == BACKGROUND
}

fn is_red(image: &RgbaImage, x: u32, y: u32) -> bool {
    let [r, g, b, _] = image.get_pixel(x, y).0;
    r > 150 && g < 10 && b < 10
}

/// The unit square maps to pixels 5..95 (5% margins), y up.
fn pixel(x: f64, y: f64) -> (u32, u32) {
    ((5.0 + x * 90.0) as u32, (95.0 - y * 90.0) as u32)
}

#[test]
fn the_front_view_shows_the_triangle_and_nothing_else() {
    let image = picture(&triangle_file(|_| {}), View::Front, false);
    assert_eq!(image.dimensions(), (100, 100));
    for (x, y) in [(0.1, 0.1), (0.45, 0.45), (0.8, 0.1), (0.1, 0.8)] {
        let (px, py) = pixel(x, y);
        assert!(
            is_red(&image, px, py),
            "({x}, {y}) -> {:?}",
            image.get_pixel(px, py)
        );
    }
    for (x, y) in [(0.6, 0.6), (0.9, 0.9), (0.55, 0.7)] {
        let (px, py) = pixel(x, y);
        assert!(is_background(&image, px, py), "({x}, {y})");
    }
    // The margins are empty: every corner of the picture, and the column left of the shape.
    for (px, py) in [(0, 0), (99, 0), (0, 99), (99, 99), (2, 50)] {
        assert!(is_background(&image, px, py), "({px}, {py})");
    }
    // Red covers about half the inner square.
    let red = (0..100)
        .flat_map(|y| (0..100).map(move |x| (x, y)))
        .filter(|&(x, y)| is_red(&image, x, y))
        .count();
    assert!((3900..4300).contains(&red), "{red} red pixels");
}

#[test]
fn a_flat_shape_seen_edge_on_is_a_line() {
    let image = picture(&triangle_file(|_| {}), View::Side, false);
    let covered = image.pixels().filter(|p| p.0[..3] != BACKGROUND).count();
    assert!(covered < 200, "{covered} pixels covered edge-on");
}

#[test]
fn node_rotors_place_the_mesh() {
    // Turn the mesh node 90 degrees from +X toward +Y: rotor cos(45) - sin(45) e_xy.
    let h = std::f64::consts::FRAC_1_SQRT_2;
    let file = triangle_file(|doc| {
        let node = doc
            .nodes
            .iter_mut()
            .find(|n| n.mesh_instance.is_some())
            .unwrap();
        node.rotor = Some(vec![h, -h, 0.0, 0.0]);
    });
    // Now (0,0), (0,1), (-1,0): inside lies at (-0.25, 0.25), in a frame x from -1 to 0.
    let image = picture(&file, View::Front, false);
    let (px, py) = pixel(0.75, 0.25);
    assert!(is_red(&image, px, py));
    let (px, py) = pixel(0.25, 0.75);
    assert!(is_background(&image, px, py));
}

#[test]
fn bones_are_drawn_over_the_mesh() {
    let file = triangle_file(|_| {});
    let plain = picture(&file, View::Front, false);
    let boned = picture(&file, View::Front, true);
    // The bone runs up the triangle's left edge, x = 0: orange where red was.
    let (px, py) = pixel(0.0, 0.5);
    let [r, g, b, _] = boned.get_pixel(px, py).0;
    assert!(
        r > 200 && (80..180).contains(&g) && b < 40,
        "{:?}",
        [r, g, b]
    );
    assert_ne!(plain.get_pixel(px, py), boned.get_pixel(px, py));
}

#[test]
fn all_views_share_one_scale() {
    let scene = Scene::from_file(&triangle_file(|_| {})).unwrap();
    let image = render(
        &scene,
        &RenderOptions {
            views: View::ALL.to_vec(),
            width: 80,
            height: 60,
            ..Default::default()
        },
    );
    assert_eq!(image.dimensions(), (240, 60));
}

#[test]
fn files_that_are_not_3d_are_refused() {
    let file = triangle_file(|doc| doc.asset.dimension = 4);
    assert!(matches!(
        Scene::from_file(&file),
        Err(g4mf_preview::PreviewError::Dimension(4))
    ));
}

#[test]
fn blend_amounts_move_the_mesh_and_unknown_shapes_are_named() {
    let file = triangle_file(|_| {});
    // One fixed frame for both pictures: x from 0 to 2, y from -0.5 to 1.5 (45 px per metre).
    let options = RenderOptions {
        width: 100,
        height: 100,
        region: Some(Region {
            centre: glam::Vec3::new(1.0, 0.5, 0.0),
            radius: 1.0,
        }),
        ..Default::default()
    };
    let draw = |blend: Vec<(String, f64)>| {
        let scene = Scene::from_file_with(
            &file,
            &SceneOptions {
                blend,
                ..Default::default()
            },
        )
        .unwrap();
        render(&scene, &options)
    };
    let rest = draw(Vec::new());
    let stretched = draw(vec![("Stretch".into(), 1.0)]);
    // (1.5, 0.1) lies in the stretched triangle (0,0) (2,0) (0,1), not in the rest one.
    let (px, py) = (50 + (0.5 * 45.0) as u32, 50 + (0.4 * 45.0) as u32);
    assert!(is_background(&rest, px, py));
    assert!(
        is_red(&stretched, px, py),
        "{:?}",
        stretched.get_pixel(px, py)
    );
    let error = Scene::from_file_with(
        &file,
        &SceneOptions {
            blend: vec![("Nope".into(), 1.0)],
            ..Default::default()
        },
    )
    .unwrap_err()
    .to_string();
    assert!(
        error.contains("`Nope`") && error.contains("Stretch"),
        "{error}"
    );
}

#[test]
fn several_scenes_share_one_scale_side_by_side() {
    let small = Scene::from_file(&triangle_file(|_| {})).unwrap();
    let big = Scene::from_file_with(
        &triangle_file(|_| {}),
        &SceneOptions {
            blend: vec![("Stretch".into(), 1.0)],
            ..Default::default()
        },
    )
    .unwrap();
    let image = g4mf_preview::render_many(
        &[&small, &big],
        &RenderOptions {
            width: 100,
            height: 100,
            ..Default::default()
        },
    );
    assert_eq!(image.dimensions(), (200, 100));
    let red = |x0: u32| {
        (0..100)
            .flat_map(|y| (x0..x0 + 100).map(move |x| (x, y)))
            .filter(|&(x, y)| is_red(&image, x, y))
            .count()
    };
    // One scale: the stretched triangle (twice as wide) covers about twice the pixels.
    let (a, b) = (red(0), red(100));
    assert!(b > a * 3 / 2 && b < a * 5 / 2, "{a} and {b} red pixels");
}

/// A unit square (x and y from 0 to 1) at depth `z` (+Z is toward the front camera), in a
/// material of its own.
struct Square {
    z: f64,
    material: MaterialSpec,
    /// Wound clockwise seen from the front: its back faces the camera.
    flipped: bool,
}

/// A square in linear RGBA `color` with `extras` (none: a plain material).
fn square(z: f64, name: &str, color: [f64; 4], extras: Option<serde_json::Value>) -> Square {
    Square {
        z,
        material: MaterialSpec {
            name: name.into(),
            base_color: Some(color),
            extras,
            ..Default::default()
        },
        flipped: false,
    }
}

/// A material's `extras` as the converter writes them.
fn hints(draw_order: i32, transparent: bool, coverage: bool, cull: bool) -> serde_json::Value {
    serde_json::json!({"render": {
        "drawOrder": draw_order,
        "transparent": transparent,
        "alphaToCoverage": coverage,
        "backfaceCull": cull,
    }})
}

/// A file of `squares`, one surface each in list order, with texture coordinates u = x,
/// v = 1 - y, and `textures` for their materials.
fn squares_file(squares: Vec<Square>, textures: Vec<TextureSpec>) -> G4mfFile {
    let mut positions = Vec::new();
    let mut surfaces = Vec::new();
    let mut materials = Vec::new();
    for (k, square) in squares.into_iter().enumerate() {
        let first = positions.len() as u32;
        for (x, y) in [(0.0, 0.0), (1.0, 0.0), (1.0, 1.0), (0.0, 1.0)] {
            positions.push(DVec3::new(x, y, square.z));
        }
        let mut corners = [0, 1, 2, 3];
        if square.flipped {
            corners.reverse();
        }
        surfaces.push(SurfaceSpec {
            name: Some(format!("Square{k}")),
            material: Some(square.material.name.clone()),
            faces: vec![FaceSpec {
                vertices: corners.map(|c| first + c).as_slice().into(),
                texcoords: Some(corners.as_slice().into()),
            }],
        });
        materials.push(square.material);
    }
    let mut spec = TinyCharacter::new("Squares")
        .bone("root", DVec3::ZERO, 1.0)
        .spec();
    spec.mesh = Some(MeshSpec {
        positions,
        texcoords: vec![[0.0, 1.0], [1.0, 1.0], [1.0, 0.0], [0.0, 0.0]].into(),
        surfaces: surfaces.into(),
        normals: None,
        blend_shapes: Vec::new(),
        materials,
    });
    spec.textures = textures;
    read_bytes(&tiny::g4b_bytes(&spec), None, &ReadOptions::default()).unwrap()
}

/// A texture embedding `texels` (`width` wide, sRGB RGBA8) as PNG; its placeholder has four
/// channels, so its alpha is used.
fn texture(width: u32, texels: &[[u8; 4]]) -> TextureSpec {
    let height = texels.len() as u32 / width;
    let image = RgbaImage::from_fn(width, height, |x, y| {
        image::Rgba(texels[(y * width + x) as usize])
    });
    TextureSpec {
        name: "Tex".into(),
        image: Some(ImageSpec::Embedded {
            bytes: std::sync::Arc::new(g4mf_preview::png_bytes(&image)),
            mime: "image/png".into(),
        }),
        size: [width, height],
        placeholder: vec![1.0, 1.0, 1.0, 1.0],
    }
}

/// The front view, 100 pixels square, with `options`.
fn front(file: &G4mfFile, options: &SceneOptions) -> RgbaImage {
    let scene = Scene::from_file_with(file, options).unwrap();
    render(
        &scene,
        &RenderOptions {
            width: 100,
            height: 100,
            ..Default::default()
        },
    )
}

/// The picture's RGB at the square's (x, y).
fn rgb(image: &RgbaImage, x: f64, y: f64) -> [u8; 3] {
    let (px, py) = pixel(x, y);
    let [r, g, b, _] = image.get_pixel(px, py).0;
    [r, g, b]
}

const RED: [f64; 4] = [1.0, 0.0, 0.0, 1.0];
const HALF_BLUE: [f64; 4] = [0.0, 0.0, 1.0, 0.5];

fn is_purple([r, g, b]: [u8; 3]) -> bool {
    r > 120 && b > 120 && g < 30 && r.abs_diff(b) < 40
}

#[test]
fn a_half_transparent_square_blends_over_an_opaque_one_whatever_the_file_order() {
    for blue_first in [false, true] {
        let mut squares = vec![
            square(0.0, "Red", RED, None),
            // Blended because its factor's alpha is below 1 (no hints needed).
            square(0.5, "Blue", HALF_BLUE, None),
        ];
        if blue_first {
            squares.reverse();
        }
        let image = front(&squares_file(squares, Vec::new()), &SceneOptions::default());
        for (x, y) in [(0.5, 0.5), (0.2, 0.8), (0.9, 0.1)] {
            let c = rgb(&image, x, y);
            assert!(is_purple(c), "blue first {blue_first}, ({x}, {y}): {c:?}");
        }
    }
    // Alone, the half-blue square lets the background through.
    let image = front(
        &squares_file(vec![square(0.5, "Blue", HALF_BLUE, None)], Vec::new()),
        &SceneOptions::default(),
    );
    let [r, g, b] = rgb(&image, 0.5, 0.5);
    assert!(r > 120 && g > 120 && b > r + 20, "{:?}", [r, g, b]);
}

#[test]
fn a_transparent_square_behind_an_opaque_one_is_hidden() {
    let file = squares_file(
        vec![
            square(-0.5, "Blue", HALF_BLUE, Some(hints(99, true, false, false))),
            square(0.0, "Red", RED, None),
        ],
        Vec::new(),
    );
    let image = front(&file, &SceneOptions::default());
    assert!(is_red(&image, 50, 50), "{:?}", rgb(&image, 0.5, 0.5));
}

#[test]
fn draw_order_decides_which_transparent_layer_is_on_top() {
    let green = [0.0, 1.0, 0.0, 0.5];
    // Green behind blue; each half transparent, over the background.
    let draw = |green_order: i32, blue_order: i32, blue_first: bool| {
        let mut squares = vec![
            square(
                0.2,
                "Green",
                green,
                Some(hints(green_order, true, false, false)),
            ),
            square(
                0.4,
                "Blue",
                HALF_BLUE,
                Some(hints(blue_order, true, false, false)),
            ),
        ];
        if blue_first {
            squares.reverse();
        }
        front(&squares_file(squares, Vec::new()), &SceneOptions::default())
    };
    // One draw order: back to front, the nearer blue on top, in either file order.
    let same = draw(5, 5, false);
    assert_eq!(
        same,
        draw(5, 5, true),
        "depth decides within one draw order"
    );
    let [_, g, b] = rgb(&same, 0.5, 0.5);
    assert!(b > g + 15, "blue on top: {:?}", rgb(&same, 0.5, 0.5));
    // A higher draw order draws later: green over blue though it is behind (as MakeHuman's
    // z_depth puts hair over eyebrows).
    let green_last = draw(50, 5, false);
    let [_, g, b] = rgb(&green_last, 0.5, 0.5);
    assert!(g > b + 15, "green on top: {:?}", rgb(&green_last, 0.5, 0.5));
    assert_ne!(same, green_last);
}

#[test]
fn a_cut_out_texel_leaves_the_background_and_no_textures_draws_the_factor() {
    // Left half opaque red, right half faint blue; an opaque material cuts alpha out below
    // half.
    let red = [255, 0, 0, 255];
    let clear = [0, 0, 255, 40];
    let file = || {
        let mut plain = square(0.0, "Cut", [1.0; 4], None);
        plain.material.base_color_texture = Some(0);
        squares_file(vec![plain], vec![texture(4, &[red, red, clear, clear])])
    };
    let image = front(&file(), &SceneOptions::default());
    assert!(
        is_red(&image, pixel(0.25, 0.5).0, 50),
        "{:?}",
        rgb(&image, 0.25, 0.5)
    );
    assert_eq!(
        rgb(&image, 0.75, 0.5),
        BACKGROUND,
        "the clear texels are cut out"
    );
    // Factors only: the whole square, white (lit grey), no cut-out.
    let flat = front(
        &file(),
        &SceneOptions {
            no_textures: true,
            ..Default::default()
        },
    );
    for x in [0.25, 0.75] {
        let [r, g, b] = rgb(&flat, x, 0.5);
        assert!(r > 200 && r == g && g.abs_diff(b) < 3, "{:?}", [r, g, b]);
    }
}

#[test]
fn a_transparent_texture_blends_by_its_alpha() {
    // Eyebrows' case: a transparent material whose texture is half clear, over red skin.
    let mut brow = square(0.5, "Brow", [1.0; 4], Some(hints(5, true, false, false)));
    brow.material.base_color_texture = Some(0);
    let file = squares_file(
        vec![square(0.0, "Red", RED, None), brow],
        vec![texture(1, &[[0, 0, 255, 128]])],
    );
    let image = front(&file, &SceneOptions::default());
    assert!(
        is_purple(rgb(&image, 0.5, 0.5)),
        "{:?}",
        rgb(&image, 0.5, 0.5)
    );
    // Without textures the factor (opaque white) covers the red.
    let flat = front(
        &file,
        &SceneOptions {
            no_textures: true,
            ..Default::default()
        },
    );
    let [r, g, b] = rgb(&flat, 0.5, 0.5);
    assert!(r > 200 && g > 200 && b > 200, "{:?}", [r, g, b]);
}

#[test]
fn alpha_to_coverage_covers_samples_in_proportion_and_writes_depth() {
    // A quarter-opaque coverage square over red: one sample in four blue, in every pixel.
    let quarter = [0.0, 0.0, 1.0, 0.25];
    let file = squares_file(
        vec![
            square(0.0, "Red", RED, None),
            square(0.5, "Blue", quarter, Some(hints(50, true, true, true))),
        ],
        Vec::new(),
    );
    let image = front(&file, &SceneOptions::default());
    let pixels: Vec<[u8; 3]> = [(0.3, 0.3), (0.5, 0.5), (0.7, 0.6), (0.41, 0.77)]
        .iter()
        .map(|&(x, y)| rgb(&image, x, y))
        .collect();
    let [r, g, b] = pixels[0];
    assert!(r > b + 40 && b > 80 && g < 30, "{:?}", pixels[0]);
    assert!(pixels.iter().all(|p| *p == pixels[0]), "{pixels:?}");
    // Fully covered, it writes depth: a blended layer behind it stays hidden, however late
    // it draws.
    let blue = [0.0, 0.0, 1.0, 1.0];
    let file = squares_file(
        vec![
            square(0.5, "Blue", blue, Some(hints(0, true, true, true))),
            square(
                0.2,
                "Red",
                [1.0, 0.0, 0.0, 0.5],
                Some(hints(99, true, false, false)),
            ),
        ],
        Vec::new(),
    );
    let [r, _, b] = rgb(&front(&file, &SceneOptions::default()), 0.5, 0.5);
    assert!(r < 10 && b > 150, "{:?}", [r, b]);
}

#[test]
fn back_faces_are_culled_only_where_the_material_says() {
    let draw = |extras: Option<serde_json::Value>| {
        let mut back = square(0.0, "Red", RED, extras);
        back.flipped = true;
        front(
            &squares_file(vec![back], Vec::new()),
            &SceneOptions::default(),
        )
    };
    // No hints, or backfaceCull false: both sides drawn.
    assert!(is_red(&draw(None), 50, 50));
    assert!(is_red(&draw(Some(hints(0, false, false, false))), 50, 50));
    // backfaceCull true: the back is not drawn.
    let culled = draw(Some(hints(0, false, false, true)));
    assert_eq!(rgb(&culled, 0.5, 0.5), BACKGROUND);
    // Its front still is.
    let mut front_side = square(0.0, "Red", RED, Some(hints(0, false, false, true)));
    front_side.flipped = false;
    let image = front(
        &squares_file(vec![front_side], Vec::new()),
        &SceneOptions::default(),
    );
    assert!(is_red(&image, 50, 50));
}

#[test]
fn materials_hints_become_draw_styles() {
    let file = squares_file(
        vec![
            square(0.0, "Plain", RED, None),
            square(0.1, "Brows", [1.0; 4], Some(hints(5, true, false, false))),
            square(0.2, "Eyes", [1.0; 4], Some(hints(50, true, true, true))),
            square(0.3, "Clothes", [1.0; 4], Some(hints(10, false, true, true))),
            square(0.4, "Glass", HALF_BLUE, None),
        ],
        Vec::new(),
    );
    let scene = Scene::from_file(&file).unwrap();
    let styles: Vec<DrawStyle> = scene.triangle_styles().collect();
    assert_eq!(styles.len(), 10, "two triangles a square");
    let style = |mode, alpha, draw_order, backface_cull| DrawStyle {
        mode,
        alpha,
        draw_order,
        backface_cull,
        cutoff: 0.5,
    };
    let expected = [
        DrawStyle::default(),
        style(AlphaMode::Blend, 1.0, 5, false),
        style(AlphaMode::Coverage, 1.0, 50, true),
        // alphaToCoverage counts only on transparent materials (as in MakeHuman).
        style(AlphaMode::Opaque, 1.0, 10, true),
        style(AlphaMode::Blend, 0.5, 0, false),
    ];
    for (k, pair) in styles.chunks(2).enumerate() {
        assert_eq!(pair, [expected[k]; 2], "square {k}");
    }
}

#[test]
fn styles_follow_runs_of_triangles_a_caller_pushes() {
    let mut scene = Scene::default();
    let triangle = g4mf_preview::Triangle::default();
    scene.triangles.push(triangle);
    let blended = DrawStyle::from_hints(1.0, 5, true, false, false);
    // A style set twice before any triangle takes one run.
    scene.set_style(DrawStyle::from_hints(1.0, 9, true, true, true));
    scene.set_style(blended);
    scene.triangles.extend([triangle; 2]);
    scene.set_style(DrawStyle::default());
    scene.triangles.push(triangle);
    assert_eq!(scene.styles.len(), 2, "{:?}", scene.styles);
    let styles: Vec<DrawStyle> = scene.triangle_styles().collect();
    assert_eq!(
        styles,
        [DrawStyle::default(), blended, blended, DrawStyle::default()]
    );
    // A caller that never sets a style draws everything opaque, both sides.
    let mut plain = Scene::default();
    plain.triangles.push(triangle);
    assert_eq!(
        plain.triangle_styles().collect::<Vec<_>>(),
        [DrawStyle::default()]
    );
    // Alpha: a NaN counts as opaque, below 1 blends even without hints.
    assert_eq!(
        DrawStyle::from_hints(f32::NAN, 0, false, false, false).mode,
        AlphaMode::Opaque
    );
    assert_eq!(
        DrawStyle::from_hints(0.3, 0, false, true, false).mode,
        AlphaMode::Blend
    );
}

/// A texture whose image is `image` with the opaque placeholder `placeholder` (linear RGB).
fn placeholder_texture(image: Option<ImageSpec>, placeholder: [f64; 3]) -> TextureSpec {
    TextureSpec {
        name: "Skin".into(),
        image,
        size: [4, 4],
        placeholder: placeholder.to_vec(),
    }
}

#[test]
fn an_image_not_drawn_is_drawn_in_its_texture_placeholder_colour() {
    // A skin-like placeholder: far from white, so a white body fails.
    let skin = [0.6, 0.25, 0.15];
    let whole =
        g4mf_preview::png_bytes(&RgbaImage::from_pixel(4, 4, image::Rgba([0, 0, 255, 255])));
    let truncated = whole[..whole.len() - 20].to_vec();
    for (case, image, no_textures, noted) in [
        ("no image", None, false, false),
        ("--no-textures", Some(whole.clone()), true, false),
        ("truncated image", Some(truncated), false, true),
    ] {
        let mut plain = square(0.0, "Skin", [1.0; 4], None);
        plain.material.base_color_texture = Some(0);
        let image = image.map(|bytes| ImageSpec::Embedded {
            bytes: std::sync::Arc::new(bytes),
            mime: "image/png".into(),
        });
        let file = squares_file(vec![plain], vec![placeholder_texture(image, skin)]);
        let options = SceneOptions {
            no_textures,
            ..Default::default()
        };
        let scene = Scene::from_file_with(&file, &options).unwrap();
        assert_eq!(
            scene.notes.iter().any(|n| n.contains("placeholder colour")),
            noted,
            "{case}: {:?}",
            scene.notes
        );
        let [r, g, b] = rgb(&front(&file, &options), 0.5, 0.5);
        // Lit sRGB of the placeholder: red well above green above blue, nothing near white.
        assert!(
            r > 100 && u16::from(r) > u16::from(g) + 40 && g > b && b < 120,
            "{case}: {:?}",
            [r, g, b]
        );
    }
}

/// A one-square `.g4tf` (written to `path`) whose base-colour texture names `uri`, with a
/// skin-coloured placeholder.
fn square_naming(path: &std::path::Path, uri: &str) {
    let mut plain = square(0.0, "Skin", [1.0; 4], None);
    plain.material.base_color_texture = Some(0);
    let mut spec = TinyCharacter::new("Squares").spec();
    spec.mesh = Some(MeshSpec {
        positions: vec![
            DVec3::new(0.0, 0.0, 0.0),
            DVec3::new(1.0, 0.0, 0.0),
            DVec3::new(1.0, 1.0, 0.0),
            DVec3::new(0.0, 1.0, 0.0),
        ],
        texcoords: vec![[0.0, 1.0], [1.0, 1.0], [1.0, 0.0], [0.0, 0.0]].into(),
        surfaces: vec![SurfaceSpec {
            name: None,
            material: Some("Skin".into()),
            faces: vec![FaceSpec {
                vertices: [0, 1, 2, 3].as_slice().into(),
                texcoords: Some([0, 1, 2, 3].as_slice().into()),
            }],
        }]
        .into(),
        normals: None,
        blend_shapes: Vec::new(),
        materials: vec![plain.material],
    });
    let image = ImageSpec::Uri {
        uri: uri.into(),
        mime: "image/png".into(),
    };
    spec.textures = vec![placeholder_texture(Some(image), [0.6, 0.25, 0.15])];
    std::fs::write(path, tiny::g4tf_text(&spec)).unwrap();
}

/// `read_scene` reads an image a relative URI names as buffers are read: from the file's
/// folder, not above it unless `allow_outside_folder`, within `max_buffer_bytes`; an image it
/// does not read is drawn in the placeholder with a note saying why.
#[test]
fn images_beside_a_file_are_read_under_the_buffer_rules() {
    let dir = tempfile::tempdir().unwrap();
    let inner = dir.path().join("inner");
    std::fs::create_dir(&inner).unwrap();
    let blue = g4mf_preview::png_bytes(&RgbaImage::from_pixel(4, 4, image::Rgba([0, 0, 255, 255])));
    std::fs::write(dir.path().join("up.png"), &blue).unwrap();
    std::fs::write(inner.join("a b.png"), &blue).unwrap();
    let beside = inner.join("beside.g4tf");
    square_naming(&beside, "a%20b.png");
    let above = inner.join("above.g4tf");
    square_naming(&above, "../up.png");
    let options = SceneOptions::default();
    let scene = |path: &std::path::Path, read: &ReadOptions| {
        g4mf_preview::read_scene(path, read, &options, None).unwrap()
    };
    let read = ReadOptions::default();
    let drawn = scene(&beside, &read);
    assert_eq!(drawn.textures.len(), 1, "{:?}", drawn.notes);
    assert!(drawn.notes.is_empty(), "{:?}", drawn.notes);
    let refused = scene(&above, &read);
    assert!(refused.textures.is_empty());
    assert!(
        refused
            .notes
            .iter()
            .any(|n| n.contains("leaves the file's folder") && n.contains("placeholder colour")),
        "{:?}",
        refused.notes
    );
    let allowed = ReadOptions {
        allow_outside_folder: true,
        ..ReadOptions::default()
    };
    assert_eq!(scene(&above, &allowed).textures.len(), 1);
    // Within the buffer limit only (the file itself is read under the JSON limit).
    let small = ReadOptions {
        max_buffer_bytes: blue.len() as u64 - 1,
        ..ReadOptions::default()
    };
    let over = scene(&beside, &small);
    assert!(over.textures.is_empty());
    assert!(
        over.notes.iter().any(|n| n.contains("a%20b.png")),
        "{:?}",
        over.notes
    );
}
