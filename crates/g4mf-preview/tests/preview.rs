//! Pictures of tiny hand-built files whose silhouettes are known: pixels inside the shape
//! show its material, pixels outside show the background, in every placement tested.

#![allow(clippy::unwrap_used)] // Tests fail loudly by design.

use g4mf_preview::{BACKGROUND, Region, RenderOptions, Scene, SceneOptions, View, render};
use g4mf_reader::{G4mfFile, ReadOptions, read_bytes};
use g4mf_writer::{
    BlendShapeSpec, BoneSpec, CharacterSpec, ContainerOptions, FaceSpec, MaterialSpec, MeshSpec,
    SurfaceSpec, build_character, write_g4b,
};
use glam::{DMat3, DVec3};
use image::RgbaImage;

/// A right triangle (0,0,0), (1,0,0), (0,1,0) facing +Z, red, on a one-bone skeleton whose bone
/// runs from (0,0,0) up to (0,1,0). `edit` may change the document before it is written.
fn triangle_file(edit: impl FnOnce(&mut g4mf_model::Document)) -> G4mfFile {
    let spec = CharacterSpec {
        name: "Tri".into(),
        bones: vec![BoneSpec {
            name: "root".into(),
            parent: None,
            head: DVec3::ZERO,
            basis: DMat3::IDENTITY,
            length: 1.0,
            extras: None,
        }],
        mesh: Some(MeshSpec {
            positions: vec![DVec3::ZERO, DVec3::X, DVec3::Y],
            texcoords: vec![],
            surfaces: vec![SurfaceSpec {
                name: Some("Face".into()),
                material: Some("Red".into()),
                faces: vec![FaceSpec {
                    vertices: [0, 1, 2].as_slice().into(),
                    texcoords: None,
                }],
            }],
            normals: None,
            // Stretch moves vertex 1 one metre further along +X (amount 0: not shown).
            blend_shapes: vec![BlendShapeSpec {
                name: "Stretch".into(),
                amount: 0.0,
                offsets: vec![(1, DVec3::X)],
                normal_offsets: Vec::new(),
            }],
            materials: vec![MaterialSpec {
                name: "Red".into(),
                base_color: Some([1.0, 0.0, 0.0, 1.0]),
                ..Default::default()
            }],
        }),
        generator: "test".into(),
        ..CharacterSpec::default()
    };
    let built = build_character(&spec).unwrap();
    let mut doc = built.document;
    edit(&mut doc);
    let bytes = write_g4b(
        &mut doc,
        std::slice::from_ref(&built.buffer),
        ContainerOptions::default(),
    )
    .unwrap();
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
