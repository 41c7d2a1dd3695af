//! Pictures of small glTF files written by hand (`test_support::gltf`): a coloured quad placed
//! by its node, a textured one, a skinned strip whose joint is turned in the file (so the
//! picture shows linear blend skinning), MASK and BLEND materials, morph targets at the file's
//! weights and at `--blend`'s, culling by `doubleSided`, and the reading rules (data URIs,
//! files beside the file, nothing outside its folder).

use g4mf_preview::{
    BACKGROUND, GltfFile, Region, RenderOptions, Scene, SceneOptions, View, read_scene, render,
};
use g4mf_reader::{FileKind, ReadOptions};
use glam::Vec3;
use image::RgbaImage;
use serde_json::{Value, json};
use test_support::gltf::{GltfBuilder, png};

/// The unit square in the z = 0 plane, facing +Z (counter-clockwise seen from the front).
const SQUARE: [f32; 12] = [0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 1.0, 1.0, 0.0, 0.0, 1.0, 0.0];
const SQUARE_INDICES: [u32; 6] = [0, 1, 2, 0, 2, 3];

fn material(b: &mut GltfBuilder, color: [f32; 4], more: Value) -> usize {
    let mut m = json!({"pbrMetallicRoughness": {"baseColorFactor": color}});
    if let (Some(m), Some(more)) = (m.as_object_mut(), more.as_object()) {
        m.extend(more.clone());
    }
    b.push("materials", m)
}

/// A builder holding one square of `color` (its material extended by `more`) on a root node
/// with `node`'s properties.
fn square(color: [f32; 4], more: Value, node: Value) -> GltfBuilder {
    let mut b = GltfBuilder::new();
    let m = material(&mut b, color, more);
    let mesh = b.mesh(&SQUARE, Some(&SQUARE_INDICES), &[], Some(m));
    let mut node = node;
    node["mesh"] = json!(mesh);
    b.root_node(node);
    b
}

fn scene(bytes: &[u8], options: &SceneOptions) -> Scene {
    Scene::from_gltf(bytes, None, &ReadOptions::default(), options).unwrap()
}

/// The front view of `scene`, 100 pixels square, framing `centre` +- `radius` (x, y).
fn front(scene: &Scene, centre: (f32, f32), radius: f32) -> RgbaImage {
    render(
        scene,
        &RenderOptions {
            views: vec![View::Front],
            width: 100,
            height: 100,
            region: Some(Region {
                centre: Vec3::new(centre.0, centre.1, 0.0),
                radius,
            }),
            ..Default::default()
        },
    )
}

/// The pixel showing world (x, y) in [`front`]'s picture.
fn pixel(centre: (f32, f32), radius: f32, x: f32, y: f32) -> (u32, u32) {
    let scale = 90.0 / (2.0 * radius);
    (
        (50.0 + (x - centre.0) * scale) as u32,
        (50.0 - (y - centre.1) * scale) as u32,
    )
}

fn rgb(image: &RgbaImage, at: (u32, u32)) -> [u8; 3] {
    let [r, g, b, _] = image.get_pixel(at.0, at.1).0;
    [r, g, b]
}

fn is_red([r, g, b]: [u8; 3]) -> bool {
    r > 150 && g < 10 && b < 10
}

const UNIT: ((f32, f32), f32) = ((0.5, 0.5), 0.5);

#[test]
fn a_coloured_quad_is_drawn_where_its_node_puts_it() {
    // Scaled by half and moved a quarter: it covers [0.25, 0.75] in x and y.
    let b = square(
        [1.0, 0.0, 0.0, 1.0],
        json!({}),
        json!({"translation": [0.25, 0.25, 0.0], "scale": [0.5, 0.5, 1.0]}),
    );
    for bytes in [b.glb(), b.gltf_embedded()] {
        let scene = scene(&bytes, &SceneOptions::default());
        assert_eq!(scene.triangles.len(), 2);
        assert!(scene.notes.is_empty(), "{:?}", scene.notes);
        let image = front(&scene, UNIT.0, UNIT.1);
        for (x, y) in [(0.3, 0.3), (0.5, 0.5), (0.7, 0.7), (0.3, 0.7)] {
            let at = pixel(UNIT.0, UNIT.1, x, y);
            assert!(is_red(rgb(&image, at)), "({x}, {y}): {:?}", rgb(&image, at));
        }
        for (x, y) in [(0.1, 0.1), (0.9, 0.5), (0.5, 0.9), (0.2, 0.5)] {
            let at = pixel(UNIT.0, UNIT.1, x, y);
            assert_eq!(rgb(&image, at), BACKGROUND, "({x}, {y})");
        }
    }
}

#[test]
fn a_matrix_places_like_its_translation_and_a_mirror_keeps_the_front_face() {
    let moved = |node: Value| {
        let scene = scene(
            &square([1.0, 0.0, 0.0, 1.0], json!({}), node).glb(),
            &SceneOptions::default(),
        );
        let image = front(&scene, (0.0, 0.5), 1.0);
        [(-0.5f32, 0.5f32), (0.5, 0.5)]
            .map(|(x, y)| is_red(rgb(&image, pixel((0.0, 0.5), 1.0, x, y))))
    };
    // Column-major: the translation is the last column.
    let matrix = json!({"matrix": [1,0,0,0, 0,1,0,0, 0,0,1,0, -1,0,0,1]});
    assert_eq!(moved(matrix), [true, false]);
    // Mirrored in x: the square lies in [-1, 0] and still faces the camera (single-sided).
    assert_eq!(moved(json!({"scale": [-1.0, 1.0, 1.0]})), [true, false]);
    assert_eq!(moved(json!({})), [false, true]);
}

#[test]
fn a_textured_quad_samples_its_base_colour_texture() {
    let mut b = GltfBuilder::new();
    // Left texel red, right texel blue; the factor leaves them as they are.
    let texture = b.png_texture(&png(2, 1, &[[255, 0, 0, 255], [0, 0, 255, 255]]));
    let m = b.push(
        "materials",
        json!({"pbrMetallicRoughness": {"baseColorTexture": {"index": texture}}}),
    );
    let uv = b.floats(&[0.0, 1.0, 1.0, 1.0, 1.0, 0.0, 0.0, 0.0], "VEC2");
    let mesh = b.mesh(
        &SQUARE,
        Some(&SQUARE_INDICES),
        &[("TEXCOORD_0", uv)],
        Some(m),
    );
    b.root_node(json!({"mesh": mesh}));
    let scene = scene(&b.glb(), &SceneOptions::default());
    assert_eq!(scene.textures.len(), 1);
    let image = front(&scene, UNIT.0, UNIT.1);
    let [r, g, bl] = rgb(&image, pixel(UNIT.0, UNIT.1, 0.25, 0.5));
    // Bilinear sampling near a texel's centre: a little of its wrapped neighbour shows.
    assert!(r > 150 && g < 10 && bl < 60, "left {:?}", [r, g, bl]);
    let [r, g, bl] = rgb(&image, pixel(UNIT.0, UNIT.1, 0.75, 0.5));
    assert!(bl > 150 && g < 10 && r < 60, "right {:?}", [r, g, bl]);
    // Without textures: the factor (white).
    let plain = scene_of(&b, true);
    let [r, g, bl] = rgb(
        &front(&plain, UNIT.0, UNIT.1),
        pixel(UNIT.0, UNIT.1, 0.75, 0.5),
    );
    assert!(r > 200 && g > 200 && bl > 200, "{:?}", [r, g, bl]);
}

fn scene_of(b: &GltfBuilder, no_textures: bool) -> Scene {
    scene(
        &b.glb(),
        &SceneOptions {
            no_textures,
            ..Default::default()
        },
    )
}

#[test]
fn an_image_that_cannot_be_decoded_is_drawn_with_the_colour_and_noted() {
    let mut b = GltfBuilder::new();
    // A PNG header claiming 100000 x 100000 texels, and nothing else.
    let mut huge = png(1, 1, &[[0, 0, 0, 255]]);
    huge[16..20].copy_from_slice(&100_000u32.to_be_bytes());
    huge[20..24].copy_from_slice(&100_000u32.to_be_bytes());
    let texture = b.png_texture(&huge);
    let m = b.push(
        "materials",
        json!({"pbrMetallicRoughness": {"baseColorFactor": [1, 0, 0, 1], "baseColorTexture": {"index": texture}}}),
    );
    let uv = b.floats(&[0.0; 8], "VEC2");
    let mesh = b.mesh(
        &SQUARE,
        Some(&SQUARE_INDICES),
        &[("TEXCOORD_0", uv)],
        Some(m),
    );
    b.root_node(json!({"mesh": mesh}));
    let scene = scene(&b.glb(), &SceneOptions::default());
    assert!(scene.textures.is_empty());
    assert_eq!(scene.notes.len(), 1, "{:?}", scene.notes);
    assert!(
        scene.notes[0].starts_with("/images/0: "),
        "{}",
        scene.notes[0]
    );
    let image = front(&scene, UNIT.0, UNIT.1);
    assert!(is_red(rgb(&image, pixel(UNIT.0, UNIT.1, 0.5, 0.5))));
}

/// A strip of two squares, 0.2 wide, from y = 0 to 2, on two joints: `root` at the origin
/// (the lower square) and `arm` at y = 1 (the upper square), bound there (inverse bind
/// matrices of their rest places), with `arm` turned by `rotation` in the file and the
/// skinned mesh's node moved far away (which glTF says to ignore).
fn skinned_strip(rotation: [f32; 4]) -> GltfBuilder {
    let mut b = GltfBuilder::new();
    let w = 0.2;
    let positions = [
        0.0, 0.0, 0.0, w, 0.0, 0.0, w, 1.0, 0.0, 0.0, 1.0, 0.0, // lower
        0.0, 1.0, 0.0, w, 1.0, 0.0, w, 2.0, 0.0, 0.0, 2.0, 0.0, // upper
    ];
    // The lower square's four vertices on joint 0, the upper square's on joint 1.
    let ids: Vec<u32> = [[0u32, 0, 0, 0]; 4]
        .concat()
        .into_iter()
        .chain([[1u32, 0, 0, 0]; 4].concat())
        .collect();
    let joints = b.integers(&ids, "VEC4", 5121);
    let weights = b.floats(&[[1.0f32, 0.0, 0.0, 0.0]; 8].concat(), "VEC4");
    let mesh = b.mesh(
        &positions,
        Some(&[0, 1, 2, 0, 2, 3, 4, 5, 6, 4, 6, 7]),
        &[("JOINTS_0", joints), ("WEIGHTS_0", weights)],
        None,
    );
    let identity = [
        1.0f32, 0., 0., 0., 0., 1., 0., 0., 0., 0., 1., 0., 0., 0., 0., 1.,
    ];
    let mut arm_bind = identity;
    arm_bind[13] = -1.0; // the inverse of a move up by 1
    let ibm = b.floats(&[identity, arm_bind].concat(), "MAT4");
    let root = b.root_node(json!({"name": "root", "children": [1]}));
    assert_eq!(root, 0);
    b.push(
        "nodes",
        json!({"name": "arm", "translation": [0, 1, 0], "rotation": rotation}),
    );
    b.push(
        "skins",
        json!({"joints": [0, 1], "inverseBindMatrices": ibm}),
    );
    b.root_node(json!({"mesh": mesh, "skin": 0, "translation": [100, 0, 0]}));
    b.json["materials"] = json!([]);
    b
}

#[test]
fn a_skinned_strip_follows_its_turned_joint() {
    let view = ((0.0, 1.0), 1.5);
    let at = |x, y| pixel(view.0, view.1, x, y);
    let lit = |image: &RgbaImage, x, y| rgb(image, at(x, y)) != BACKGROUND;
    // At rest: a straight strip up to y = 2.
    let rest = scene(
        &skinned_strip([0.0, 0.0, 0.0, 1.0]).glb(),
        &SceneOptions::default(),
    );
    let image = front(&rest, view.0, view.1);
    assert!(lit(&image, 0.1, 0.5) && lit(&image, 0.1, 1.5));
    assert!(!lit(&image, -0.5, 1.1));
    // The arm turned 90 degrees about +Z: the upper square now runs from the joint toward -X.
    let s = std::f32::consts::FRAC_1_SQRT_2;
    let turned = scene(
        &skinned_strip([0.0, 0.0, s, s]).glb(),
        &SceneOptions::default(),
    );
    let image = front(&turned, view.0, view.1);
    assert!(lit(&image, 0.1, 0.5), "the lower square stays");
    assert!(lit(&image, -0.5, 1.1), "the upper square swung to -X");
    assert!(!lit(&image, 0.1, 1.5), "nothing where the upper square was");
    // Bones: root from the origin to its child joint, arm along its turned +Y, a tenth of
    // its parent's length.
    let bones: Vec<(&str, Vec3, Vec3)> = turned
        .bones
        .iter()
        .map(|b| (b.name.as_str(), b.head, b.tail))
        .collect();
    assert_eq!(bones.len(), 2);
    assert_eq!(bones[0].0, "root");
    assert!(bones[0].1.abs_diff_eq(Vec3::ZERO, 1e-6) && bones[0].2.abs_diff_eq(Vec3::Y, 1e-6));
    assert_eq!(bones[1].0, "arm");
    assert!(bones[1].1.abs_diff_eq(Vec3::Y, 1e-6));
    assert!(
        bones[1].2.abs_diff_eq(Vec3::new(-0.1, 1.0, 0.0), 1e-6),
        "{:?}",
        bones[1]
    );
}

/// A green opaque square at z = 0 behind a red square at z = 0.1 with material `red`.
fn over_green(red_alpha: f32, red: Value) -> RgbaImage {
    let mut b = square([0.0, 1.0, 0.0, 1.0], json!({}), json!({}));
    let m = material(&mut b, [1.0, 0.0, 0.0, red_alpha], red);
    let mesh = b.mesh(&SQUARE, Some(&SQUARE_INDICES), &[], Some(m));
    b.root_node(json!({"mesh": mesh, "translation": [0, 0, 0.1]}));
    front(&scene(&b.glb(), &SceneOptions::default()), UNIT.0, UNIT.1)
}

#[test]
fn mask_cuts_out_below_its_cutoff_and_blend_mixes() {
    let middle = pixel(UNIT.0, UNIT.1, 0.5, 0.5);
    let green = |[r, g, b]: [u8; 3]| g > 150 && r < 10 && b < 10;
    // OPAQUE ignores alpha.
    assert!(is_red(rgb(&over_green(0.2, json!({})), middle)));
    // MASK: alpha 0.4 is below the default cutoff of 0.5, above a cutoff of 0.3.
    let mask = over_green(0.4, json!({"alphaMode": "MASK"}));
    assert!(green(rgb(&mask, middle)), "{:?}", rgb(&mask, middle));
    let mask = over_green(0.4, json!({"alphaMode": "MASK", "alphaCutoff": 0.3}));
    assert!(is_red(rgb(&mask, middle)), "{:?}", rgb(&mask, middle));
    // BLEND: half red over green, both show.
    let blend = over_green(0.5, json!({"alphaMode": "BLEND"}));
    let [r, g, b] = rgb(&blend, middle);
    assert!(r > 120 && g > 120 && b < 10, "{:?}", [r, g, b]);
    // A draw order in the material's extras is read (MakeHuman's, through our writer).
    let b = square(
        [1.0, 0.0, 0.0, 0.5],
        json!({"alphaMode": "BLEND", "extras": {"render": {"drawOrder": 7}}}),
        json!({}),
    );
    let s = scene(&b.glb(), &SceneOptions::default());
    let styles: Vec<_> = s.triangle_styles().collect();
    assert_eq!(styles[0].draw_order, 7);
    assert!(styles[0].backface_cull, "single-sided by default");
}

#[test]
fn single_sided_squares_are_culled_from_behind_and_double_sided_ones_are_not() {
    // The square's winding reversed: it faces -Z, away from the front view.
    let back = |more: Value| {
        let mut b = GltfBuilder::new();
        let m = material(&mut b, [1.0, 0.0, 0.0, 1.0], more);
        let mesh = b.mesh(&SQUARE, Some(&[0, 2, 1, 0, 3, 2]), &[], Some(m));
        b.root_node(json!({"mesh": mesh}));
        let image = front(&scene(&b.glb(), &SceneOptions::default()), UNIT.0, UNIT.1);
        is_red(rgb(&image, pixel(UNIT.0, UNIT.1, 0.5, 0.5)))
    };
    assert!(!back(json!({})));
    assert!(back(json!({"doubleSided": true})));
}

/// A square whose right edge a morph target named `Wide` moves one metre along +X, with the
/// mesh's default weights `weights`.
fn morphing(weights: Option<[f32; 1]>) -> GltfBuilder {
    let mut b = GltfBuilder::new();
    let target = b.floats(&[0., 0., 0., 1., 0., 0., 1., 0., 0., 0., 0., 0.], "VEC3");
    let mesh = b.mesh(&SQUARE, Some(&SQUARE_INDICES), &[], None);
    b.json["meshes"][mesh]["primitives"][0]["targets"] = json!([{"POSITION": target}]);
    b.json["meshes"][mesh]["extras"] = json!({"targetNames": ["Wide"]});
    if let Some(w) = weights {
        b.json["meshes"][mesh]["weights"] = json!(w);
    }
    b.root_node(json!({"mesh": mesh}));
    b
}

#[test]
fn morph_targets_apply_at_the_files_weights_and_at_blend_amounts_by_name() {
    let width = |b: &GltfBuilder, blend: Vec<(String, f64)>| {
        scene(
            &b.glb(),
            &SceneOptions {
                blend,
                ..Default::default()
            },
        )
        .extent()
        .x
    };
    assert!((width(&morphing(None), vec![]) - 1.0).abs() < 1e-6);
    assert!((width(&morphing(Some([0.5])), vec![]) - 1.5).abs() < 1e-6);
    let wide = vec![("Wide".to_owned(), 1.0)];
    assert!((width(&morphing(Some([0.5])), wide) - 2.0).abs() < 1e-6);
    // A name no mesh has is an error naming the targets there are.
    let err = Scene::from_gltf(
        &morphing(None).glb(),
        None,
        &ReadOptions::default(),
        &SceneOptions {
            blend: vec![("Narrow".into(), 1.0)],
            ..Default::default()
        },
    )
    .unwrap_err();
    assert!(
        err.to_string().contains("no morph target `Narrow`"),
        "{err}"
    );
    assert!(err.to_string().contains("Wide"), "{err}");
}

#[test]
fn buffers_beside_the_file_are_read_and_ones_outside_its_folder_refused() {
    let dir = tempfile::tempdir().unwrap();
    let inner = dir.path().join("inner");
    std::fs::create_dir(&inner).unwrap();
    let b = square([1.0, 0.0, 0.0, 1.0], json!({}), json!({}));
    std::fs::write(inner.join("quad data.bin"), &b.bin).unwrap();
    std::fs::write(dir.path().join("outside.bin"), &b.bin).unwrap();
    let beside = inner.join("beside.gltf");
    std::fs::write(&beside, b.gltf_with_buffer_at("quad%20data.bin")).unwrap();
    let read = ReadOptions::default();
    let scene = read_scene(&beside, &read, &SceneOptions::default(), None).unwrap();
    assert_eq!(scene.triangles.len(), 2);
    let outside = inner.join("outside.gltf");
    std::fs::write(&outside, b.gltf_with_buffer_at("../outside.bin")).unwrap();
    let err = read_scene(&outside, &read, &SceneOptions::default(), None).unwrap_err();
    let text = err.to_string();
    assert!(text.contains("outside.gltf: /buffers/0/uri: "), "{text}");
    assert!(text.contains("leaves the file's folder"), "{text}");
    let allowed = ReadOptions {
        allow_outside_folder: true,
        ..read
    };
    assert!(read_scene(&outside, &allowed, &SceneOptions::default(), None).is_ok());
    // Without the folder, nothing relative is followed.
    let err =
        GltfFile::read_bytes(&b.gltf_with_buffer_at("quad%20data.bin"), None, &read).unwrap_err();
    assert!(err.to_string().contains("folder is unknown"), "{err}");
}

#[test]
fn the_kind_of_file_is_chosen_by_content_then_by_extension() {
    let b = square([1.0, 0.0, 0.0, 1.0], json!({}), json!({}));
    let path = std::path::Path::new;
    // The content decides: a magic, or the JSON's asset.
    assert_eq!(FileKind::of(path("a.g4b"), &b.glb()), FileKind::Gltf);
    assert_eq!(FileKind::of(path("a"), &b.glb()), FileKind::Gltf);
    assert_eq!(
        FileKind::of(path("a.json"), &b.gltf_embedded()),
        FileKind::Gltf
    );
    assert_eq!(FileKind::of(path("a.glb"), b"G4MF\x01"), FileKind::G4mf);
    let g4tf = br#"{"asset": {"dimension": 3, "version": "2.0"}}"#;
    assert_eq!(FileKind::of(path("a.gltf"), g4tf), FileKind::G4mf);
    // Only the JSON before the asset is read: what follows may be broken.
    let broken = br#"{"extras": [1, {"a": "}"}], "asset": {"version": "2.0"}, "nodes": ["#;
    assert_eq!(FileKind::of_content(broken), Some(FileKind::Gltf));
    // The extension, when the content cannot decide; else G4MF.
    assert_eq!(FileKind::of(path("a.GLB"), b""), FileKind::Gltf);
    assert_eq!(FileKind::of(path("a.gltf"), b"not json"), FileKind::Gltf);
    let old_gltf = br#"{"asset": {"version": "1.0"}}"#;
    assert_eq!(FileKind::of_content(old_gltf), None);
    assert_eq!(FileKind::of(path("a.g4tf"), old_gltf), FileKind::G4mf);
    assert_eq!(FileKind::of(path("a"), old_gltf), FileKind::G4mf);
    assert_eq!(FileKind::of(path("a"), b"not json"), FileKind::G4mf);
    // read_scene draws a .glb without its extension, or under G4MF's, and a .gltf as .json.
    let dir = tempfile::tempdir().unwrap();
    for (name, bytes) in [
        ("quad", b.glb()),
        ("quad.g4b", b.glb()),
        ("quad.json", b.gltf_embedded()),
    ] {
        let file = dir.path().join(name);
        std::fs::write(&file, bytes).unwrap();
        let scene = read_scene(
            &file,
            &ReadOptions::default(),
            &SceneOptions::default(),
            None,
        )
        .unwrap();
        assert_eq!(scene.triangles.len(), 2, "{name}");
    }
}

#[test]
fn quantized_positions_are_read_and_unknown_required_extensions_refused() {
    // The square's corners as normalized unsigned shorts (KHR_mesh_quantization).
    let mut b = GltfBuilder::new();
    let corners: Vec<u32> = SQUARE.iter().map(|&c| c as u32 * 65535).collect();
    let position = b.integers(&corners, "VEC3", 5123);
    b.json["accessors"][position]["normalized"] = json!(true);
    b.json["accessors"][position]["min"] = json!([0, 0, 0]);
    b.json["accessors"][position]["max"] = json!([65535, 65535, 0]);
    let indices = b.integers(&SQUARE_INDICES, "SCALAR", 5123);
    let mesh = b.push(
        "meshes",
        json!({"primitives": [{"attributes": {"POSITION": position}, "indices": indices}]}),
    );
    b.root_node(json!({"mesh": mesh}));
    b.json["extensionsUsed"] = json!(["KHR_mesh_quantization"]);
    b.json["extensionsRequired"] = json!(["KHR_mesh_quantization"]);
    let s = scene(&b.glb(), &SceneOptions::default());
    assert!((s.extent() - Vec3::new(1.0, 1.0, 0.0)).abs().max_element() < 1e-6);
    b.json["extensionsRequired"] = json!(["KHR_mesh_quantization", "EXT_unknown"]);
    let err = Scene::from_gltf(
        &b.glb(),
        None,
        &ReadOptions::default(),
        &SceneOptions::default(),
    )
    .unwrap_err();
    assert_eq!(
        err.to_string(),
        "/extensionsRequired/1: the value \"EXT_unknown\" is an extension this reader does not support"
    );
}

/// [`skinned_strip`] at rest with an animation `swing` turning `arm` from rest to 90 degrees
/// about +Z over 2 s (`interpolation`) and moving `root` 3 m along +Z.
fn swinging_strip(interpolation: &str) -> GltfBuilder {
    let mut b = skinned_strip([0.0, 0.0, 0.0, 1.0]);
    let s = std::f32::consts::FRAC_1_SQRT_2;
    let times = b.floats(&[0.0, 2.0], "SCALAR");
    let turns = b.floats(&[0.0, 0.0, 0.0, 1.0, 0.0, 0.0, s, s], "VEC4");
    let moves = b.floats(&[0.0, 0.0, 0.0, 0.0, 0.0, 3.0], "VEC3");
    b.push(
        "animations",
        json!({
            "name": "swing",
            "samplers": [
                {"input": times, "output": turns, "interpolation": interpolation},
                {"input": times, "output": moves, "interpolation": interpolation}
            ],
            "channels": [
                {"sampler": 0, "target": {"node": 1, "path": "rotation"}},
                {"sampler": 1, "target": {"node": 0, "path": "translation"}}
            ]
        }),
    );
    b
}

/// The scene of `builder` posed by clip `name` at `time`.
fn clip_scene(builder: &GltfBuilder, name: &str, time: f64) -> Result<Scene, String> {
    let options = SceneOptions {
        clip: Some(g4mf_preview::ClipTime {
            name: name.into(),
            time,
        }),
        ..SceneOptions::default()
    };
    Scene::from_gltf(&builder.glb(), None, &ReadOptions::default(), &options)
        .map_err(|e| e.to_string())
}

/// Whether some triangle of `scene` has a corner at `point`.
fn has_corner(scene: &Scene, point: Vec3) -> bool {
    scene
        .triangles
        .iter()
        .flat_map(|t| t.corners)
        .any(|c| c.abs_diff_eq(point, 1e-5))
}

#[test]
fn a_clip_frame_poses_the_joints_and_skins_the_mesh() {
    let linear = swinging_strip("LINEAR");
    // Half way: the arm turned 45 degrees (slerp), the root moved 1.5 m along +Z. The upper
    // square's top corner (0, 2, 0) is 1 above the arm's joint: it goes to the joint plus
    // (-sin 45, cos 45), all moved 1.5 along Z.
    let half = clip_scene(&linear, "swing", 1.0).unwrap();
    let h = std::f32::consts::FRAC_1_SQRT_2;
    assert!(has_corner(&half, Vec3::new(-h, 1.0 + h, 1.5)), "top corner");
    assert!(
        has_corner(&half, Vec3::new(0.2, 0.0, 1.5)),
        "lower square moved only"
    );
    let arm = half.bones.iter().find(|b| b.name == "arm").unwrap();
    assert!(arm.head.abs_diff_eq(Vec3::new(0.0, 1.0, 1.5), 1e-5));
    assert!(
        arm.tail
            .abs_diff_eq(Vec3::new(-0.1 * h, 1.0 + 0.1 * h, 1.5), 1e-5)
    );
    assert!(half.notes.is_empty(), "{:?}", half.notes);
    // At the end, and past it (the last key holds, said so): 90 degrees, 3 m.
    let end = clip_scene(&linear, "swing", 2.0).unwrap();
    assert!(has_corner(&end, Vec3::new(-1.0, 1.0, 3.0)));
    let past = clip_scene(&linear, "swing", 7.5).unwrap();
    assert!(has_corner(&past, Vec3::new(-1.0, 1.0, 3.0)));
    assert!(
        past.notes.iter().any(|n| n.contains("last key")),
        "{:?}",
        past.notes
    );
    // STEP holds the first key until the second.
    let step = clip_scene(&swinging_strip("STEP"), "swing", 1.9).unwrap();
    assert!(has_corner(&step, Vec3::new(0.0, 2.0, 0.0)));
    // Without a clip the file's rest is drawn.
    let rest = scene(&linear.glb(), &SceneOptions::default());
    assert!(has_corner(&rest, Vec3::new(0.0, 2.0, 0.0)));
}

#[test]
fn unknown_clips_are_refused_with_the_near_names() {
    let linear = swinging_strip("LINEAR");
    let e = clip_scene(&linear, "swig", 0.0).unwrap_err();
    assert!(
        e.contains("no animation `swig` (did you mean `swing`?); the file has 1: `swing`"),
        "{e}"
    );
    let e = clip_scene(&skinned_strip([0.0, 0.0, 0.0, 1.0]), "swing", 0.0).unwrap_err();
    assert!(e.contains("the file has no animations"), "{e}");
    let e = clip_scene(&linear, "swing", f64::NAN).unwrap_err();
    assert!(e.contains("not a number of seconds"), "{e}");
}
