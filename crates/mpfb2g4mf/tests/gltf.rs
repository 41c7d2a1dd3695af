//! glTF outputs through the real CLI, judged by clients nobody here wrote (the Khronos
//! glTF-Validator and three.js's GLTFLoader, from `clients/`), and held to the G4MF file of the
//! same job: the same vertices, weights, shapes and materials.

// Helpers outside #[test] functions panic on purpose, as tests do.
#![allow(clippy::unwrap_used)]

use crate::common::shared as common;

use common::{bin, succeed};
use g4mf_reader::{ReadOptions, read_path};
use glam::DVec3;
use gltf_writer::json::mesh::Semantic;
use gltf_writer::json::validation::Checked;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use test_support::clients::{
    assert_no_three_errors, assert_no_validator_issues, gltf_validator, three_load,
};

/// A grey PNG of `side` pixels square whose value is `value(x, y)`.
fn png(side: u32, value: impl Fn(u32, u32) -> [u8; 3]) -> Vec<u8> {
    let mut bytes = Vec::new();
    image::DynamicImage::ImageRgb8(image::RgbImage::from_fn(side, side, |x, y| {
        image::Rgb(value(x, y))
    }))
    .write_to(
        &mut std::io::Cursor::new(&mut bytes),
        image::ImageFormat::Png,
    )
    .unwrap();
    bytes
}

/// A skin material of our own with every map present: a diffuse image, a real normal map
/// (bumps along u), and occlusion, roughness and metallic maps packed into `orm`.
fn textured_skin(folder: &Path) -> PathBuf {
    let skin = folder.join("judged_skin");
    std::fs::create_dir_all(&skin).unwrap();
    std::fs::write(
        skin.join("diffuse.png"),
        png(64, |x, y| [180, 120 + (x % 50) as u8, 100 + (y % 40) as u8]),
    )
    .unwrap();
    std::fs::write(
        skin.join("normal.png"),
        png(64, |x, _| {
            let tilt = ((x as f64 * 0.4).sin() * 60.0) as i32;
            [(128 + tilt) as u8, 128, 240]
        }),
    )
    .unwrap();
    std::fs::write(
        skin.join("ao.png"),
        png(32, |x, y| [200 + ((x + y) % 50) as u8; 3]),
    )
    .unwrap();
    std::fs::write(skin.join("rough.png"), png(32, |x, _| [100 + x as u8; 3])).unwrap();
    std::fs::write(skin.join("metal.png"), png(16, |_, y| [y as u8 * 4; 3])).unwrap();
    let mhmat = skin.join("judged_skin.mhmat");
    std::fs::write(
        &mhmat,
        "name judged_skin\ndiffuseColor 1.0 1.0 1.0\n\
         diffuseTexture diffuse.png\nnormalmapTexture normal.png\naomapTexture ao.png\n\
         roughnessmapTexture rough.png\nmetallicmapTexture metal.png\n",
    )
    .unwrap();
    mhmat
}

/// One job of the judged variants: its output file name and its flags (`--mpfb-data` and,
/// when `assets`, `--assets` are added).
struct Variant {
    output: String,
    flags: Vec<String>,
    assets: bool,
}

fn variant(output: &str, flags: &[&str], assets: bool) -> Variant {
    Variant {
        output: output.into(),
        flags: flags.iter().map(|f| (*f).to_owned()).collect(),
        assets,
    }
}

/// Every variant the issue names, converted by the CLI into `out` as glTF, and as G4MF taken
/// to glTF by `to-gltf`; the pairs of glTF files.
fn convert_variants(data: &Path, assets: Option<&Path>, out: &Path) -> Vec<(PathBuf, PathBuf)> {
    let skin = textured_skin(out);
    let skin = skin.to_str().unwrap();
    let mut variants: Vec<Variant> = test_support::TEST_RIGS
        .iter()
        .map(|rig| variant(&format!("rig-{rig}.glb"), &["--rig-name", rig], false))
        .collect();
    variants.extend([
        variant(
            "face.glb",
            &["--rig-name", "game_engine", "--face-units", "--visemes"],
            false,
        ),
        variant(
            "humanoid-t.glb",
            &[
                "--rig-name",
                "default",
                "--rest-pose",
                "t-pose",
                "--humanoid",
            ],
            false,
        ),
        variant(
            "textured-skin.glb",
            &["--rig-name", "default", "--skin", skin],
            false,
        ),
        variant(
            "dressed.glb",
            &[
                "--human",
                "fixtures/bodies/dressed.mhm",
                "--skin",
                skin,
                "--face-units",
            ],
            true,
        ),
        variant(
            "ponytail-t.glb",
            &[
                "--rig-name",
                "default",
                "--hair",
                "ponytail01",
                "--clothes",
                "shoes01",
                "--eyebrows",
                "eyebrow001",
                "--eyelashes",
                "eyelashes01",
                "--rest-pose",
                "t-pose",
                "--humanoid",
            ],
            true,
        ),
        variant(
            "proxy.glb",
            &[
                "--rig-name",
                "default",
                "--proxy",
                "female_generic",
                "--face-units",
            ],
            true,
        ),
        variant(
            "external.gltf",
            &[
                "--human",
                "fixtures/bodies/dressed.mhm",
                "--external-bin",
                "--textures",
                "copy",
                "--max-influences",
                "8",
            ],
            true,
        ),
    ]);
    let mut written = Vec::new();
    for v in variants {
        if v.assets && assets.is_none() {
            continue;
        }
        // The job as glTF, and as G4MF taken to glTF by `to-gltf`; the G4MF file limited to as
        // many influences as the glTF file (its default keeps them all: picking the strongest
        // four of float32 weights could then order near-equal ones otherwise).
        let influences = v
            .flags
            .iter()
            .position(|f| f == "--max-influences")
            .map_or("4", |i| v.flags[i + 1].as_str());
        let g4b = out.join(v.output.replace(".glb", ".g4b").replace(".gltf", ".g4b"));
        for path in [out.join(&v.output), g4b.clone()] {
            let mut command = bin();
            command
                .current_dir(test_support::workspace_root())
                .arg("convert")
                .args(&v.flags)
                .arg("--mpfb-data")
                .arg(data);
            if let Some(assets) = assets.filter(|_| v.assets) {
                command.arg("--assets").arg(assets);
            }
            if path == g4b && !v.flags.iter().any(|f| f == "--max-influences") {
                command.args(["--max-influences", influences]);
            }
            succeed(command.arg("--validate").arg("-o").arg(&path));
        }
        let via = out.join(format!("via-{}", v.output));
        let mut to_gltf = bin();
        to_gltf
            .arg("to-gltf")
            .arg(&g4b)
            .args(["--validate", "--max-influences", influences, "-o"])
            .arg(&via);
        if v.flags.iter().any(|f| f == "--external-bin") {
            to_gltf.arg("--external-bin");
        }
        succeed(&mut to_gltf);
        written.push((out.join(&v.output), via));
    }
    written
}

/// A glTF vertex as comparable values: its place, weights by bone name, morph target
/// offsets by name (the targets that move it), and normal.
#[derive(Debug)]
struct Vertex {
    position: DVec3,
    weights: HashMap<String, f64>,
    shapes: HashMap<String, DVec3>,
    normal: Option<DVec3>,
}

impl Vertex {
    /// The same vertex, within float32 rounding (a G4MF file read back stores float32 values
    /// that the direct write computed in float64).
    fn matches(&self, other: &Vertex) -> bool {
        let close = |a: f64, b: f64| (a - b).abs() < 1e-6;
        self.position.distance(other.position) < 1e-6
            && self.weights.len() == other.weights.len()
            && self
                .weights
                .iter()
                .all(|(n, w)| other.weights.get(n).is_some_and(|v| close(*v, *w)))
            && self.shapes.len() == other.shapes.len()
            && self
                .shapes
                .iter()
                .all(|(n, o)| other.shapes.get(n).is_some_and(|p| p.distance(*o) < 1e-6))
            && match (self.normal, other.normal) {
                (Some(a), Some(b)) => a.distance(b) < 1e-5,
                (a, b) => a.is_none() && b.is_none(),
            }
    }
}

/// An accessor's elements.
type Elements = Vec<Vec<f64>>;

/// A glTF file's vertices, mesh by mesh.
fn vertices_of(path: &Path) -> HashMap<String, Vec<Vertex>> {
    let (root, buffer) = test_support::gltf::read(path);
    let read = |a: usize| test_support::gltf::accessor(&root, &buffer, a);
    let joint_names: Vec<String> = root
        .skins
        .first()
        .map(|s| {
            s.joints
                .iter()
                .map(|j| root.nodes[j.value()].name.clone().unwrap())
                .collect()
        })
        .unwrap_or_default();
    let mut out = HashMap::new();
    for (m, mesh) in root.meshes.iter().enumerate() {
        let primitive = &mesh.primitives[0];
        let attribute = |s: Semantic| {
            primitive
                .attributes
                .get(&Checked::Valid(s))
                .map(|a| read(a.value()))
        };
        let positions = attribute(Semantic::Positions).unwrap();
        let normals = attribute(Semantic::Normals);
        let sets: Vec<(Elements, Elements)> = (0..4)
            .map_while(|n| {
                Some((
                    attribute(Semantic::Joints(n))?,
                    attribute(Semantic::Weights(n))?,
                ))
            })
            .collect();
        let names = test_support::gltf::target_names(&root, m);
        let targets: Vec<Vec<Vec<f64>>> = primitive
            .targets
            .iter()
            .flatten()
            .map(|t| read(t.positions.unwrap().value()))
            .collect();
        let vertices = (0..positions.len())
            .map(|g| Vertex {
                position: DVec3::from_slice(&positions[g]),
                weights: sets
                    .iter()
                    .flat_map(|(j, w)| (0..4).map(move |k| (j[g][k], w[g][k])))
                    .filter(|(_, w)| *w > 0.0)
                    .map(|(j, w)| (joint_names[j as usize].clone(), w))
                    .collect(),
                shapes: names
                    .iter()
                    .zip(&targets)
                    .filter(|(_, t)| t[g].iter().any(|c| *c != 0.0))
                    .map(|(n, t)| (n.clone(), DVec3::from_slice(&t[g])))
                    .collect(),
                normal: normals.as_ref().map(|n| DVec3::from_slice(&n[g])),
            })
            .collect();
        out.insert(mesh.name.clone().unwrap_or_default(), vertices);
    }
    out
}

/// Two glTF files of one character hold the same nodes, vertices (places, weights, shape
/// offsets, normals, within float32 rounding) and materials (factors, alpha, sides, which
/// textures).
fn assert_equivalent(direct: &Path, via: &Path) {
    let (a, _) = test_support::gltf::read(direct);
    let (b, _) = test_support::gltf::read(via);
    let names = |r: &gltf_writer::json::Root| -> Vec<Option<String>> {
        r.nodes.iter().map(|n| n.name.clone()).collect()
    };
    assert_eq!(names(&a), names(&b), "{}", via.display());
    let materials = |r: &gltf_writer::json::Root| -> Vec<String> {
        r.materials
            .iter()
            .map(|m| {
                let pbr = &m.pbr_metallic_roughness;
                format!(
                    "{:?} {:?} {} {} {} {} {} {:?} {}",
                    m.name,
                    pbr.base_color_factor.0.map(|c| (c * 1e5).round() as i64),
                    (pbr.metallic_factor.0 * 1e5).round(),
                    (pbr.roughness_factor.0 * 1e5).round(),
                    pbr.base_color_texture.is_some(),
                    pbr.metallic_roughness_texture.is_some(),
                    m.normal_texture.is_some(),
                    m.alpha_mode,
                    m.double_sided
                )
            })
            .collect()
    };
    assert_eq!(materials(&a), materials(&b), "{}", via.display());
    let (va, vb) = (vertices_of(direct), vertices_of(via));
    let mut meshes: Vec<&String> = va.keys().collect();
    meshes.sort();
    let mut other_meshes: Vec<&String> = vb.keys().collect();
    other_meshes.sort();
    assert_eq!(meshes, other_meshes, "{}", via.display());
    for mesh in meshes {
        let (ours, theirs) = (&va[mesh], &vb[mesh]);
        assert_eq!(ours.len(), theirs.len(), "{}: {mesh}", via.display());
        let grid = Positions::new(theirs.iter().map(|v| v.position).collect());
        for v in ours {
            assert!(
                grid.at(v.position).iter().any(|&i| v.matches(&theirs[i])),
                "{}: {mesh}: no vertex like {v:?}",
                via.display()
            );
        }
    }
}

/// A population of four bodies written as `.glb` by a batch.
fn population(data: &Path, out: &Path) -> Vec<PathBuf> {
    let manifest = out.join("people.toml");
    std::fs::write(
        &manifest,
        format!(
            "[population]\nrig_name = \"game_engine\"\ncount = 4\nseed = 7\nmpfb_data = {:?}\n\
             output = \"people/{{index}}.glb\"\n[population.ranges]\ngender = [0.0, 1.0]\nweight = [0.2, 0.8]\n",
            data.display().to_string()
        ),
    )
    .unwrap();
    succeed(
        bin()
            .args(["batch", "--quiet", "--jobs", "2"])
            .arg(&manifest)
            .arg("--contact-sheet")
            .arg(out.join("people.png")),
    );
    (0..4)
        .map(|i| out.join(format!("people/{i}.glb")))
        .collect()
}

#[test]
fn every_gltf_variant_passes_the_khronos_validator_and_loads_in_three_as_written() {
    let test = "every_gltf_variant_passes_the_khronos_validator_and_loads_in_three";
    let Some(data) = test_support::mpfb_data_or_skip(test) else {
        return;
    };
    let assets = test_support::makehuman_assets_or_skip(
        &format!("{test} (dressed variants)"),
        &test_support::WORN_BY_EXAMPLES,
    );
    let out = tempfile::tempdir().unwrap();
    let pairs = convert_variants(&data, assets.as_deref(), out.path());
    // A file we wrote taken to glTF holds what its job written as glTF holds.
    for (direct, via) in &pairs {
        assert_equivalent(direct, via);
    }
    let mut files: Vec<PathBuf> = pairs.into_iter().flat_map(|(a, b)| [a, b]).collect();
    files.extend(population(&data, out.path()));
    for fixture in std::fs::read_dir(test_support::workspace_root().join("fixtures/g4mf")).unwrap()
    {
        let fixture = fixture.unwrap().path();
        let via = out.path().join(format!(
            "fixture-{}.glb",
            fixture.file_stem().unwrap().to_string_lossy()
        ));
        succeed(bin().arg("to-gltf").arg(&fixture).arg("-o").arg(&via));
        files.push(via);
    }
    let Some(reports) = gltf_validator(test, &files) else {
        return;
    };
    assert_no_validator_issues(&reports);
    let Some(loaded) = three_load(test, &files) else {
        return;
    };
    assert_no_three_errors(&loaded);
    for (file, three) in files.iter().zip(&loaded) {
        let (root, _) = test_support::gltf::read(file);
        // Every primitive of a skinned node's mesh is a skinned mesh in three, the others
        // plain meshes (a rig without weights skins nothing).
        let primitives = |skinned: bool| -> usize {
            root.nodes
                .iter()
                .filter(|n| n.skin.is_some() == skinned)
                .filter_map(|n| n.mesh)
                .map(|m| root.meshes[m.value()].primitives.len())
                .sum()
        };
        assert_eq!(
            three.skinned_meshes.len(),
            primitives(true),
            "{}",
            file.display()
        );
        assert_eq!(three.meshes.len(), primitives(false), "{}", file.display());
        if root.skins.is_empty() {
            continue;
        }
        let joints: Vec<Option<String>> = root.skins[0]
            .joints
            .iter()
            .map(|j| root.nodes[j.value()].name.clone())
            .collect();
        for mesh in &three.skinned_meshes {
            assert_eq!(mesh.bones, joints, "{}: {}", file.display(), mesh.mesh.name);
            assert_eq!(mesh.unresolved_bones, 0);
            // three.js names a mesh's primitives `{mesh}_{i}` after the first.
            let named = |m: &str| {
                mesh.mesh.name == m
                    || mesh.mesh.name.strip_prefix(m).is_some_and(|rest| {
                        rest.strip_prefix('_')
                            .is_some_and(|n| n.bytes().all(|b| b.is_ascii_digit()))
                    })
            };
            // A single-primitive mesh takes its node's name.
            let index = root
                .meshes
                .iter()
                .position(|m| m.name.as_deref().is_some_and(named))
                .or_else(|| {
                    root.nodes
                        .iter()
                        .find(|n| n.name.as_deref() == Some(mesh.mesh.name.as_str()))
                        .and_then(|n| n.mesh)
                        .map(|m| m.value())
                })
                .unwrap_or_else(|| panic!("{}: mesh {}", file.display(), mesh.mesh.name));
            let names: Vec<Option<String>> = test_support::gltf::target_names(&root, index)
                .into_iter()
                .map(Some)
                .collect();
            assert_eq!(mesh.mesh.morph_targets, names, "{}", mesh.mesh.name);
        }
    }
    // The variants that ask for shapes have them, as the summary counted.
    let face = loaded
        .iter()
        .find(|l| l.file.ends_with("face.glb"))
        .unwrap();
    assert_eq!(face.skinned_meshes[0].mesh.morph_targets.len(), 67);
    // Eight influences written as two sets, which three reads as a second attribute.
    if let Some(external) = loaded.iter().find(|l| l.file.ends_with("external.gltf")) {
        assert!(
            external
                .skinned_meshes
                .iter()
                .any(|m| m.second_influence_set)
        );
    }
}

/// The G4MF vertices at a glTF vertex's position (within float32 rounding: G4MF stores
/// skeleton-space positions, glTF scene-space ones), found through a grid of 0.1 mm cells.
struct Positions {
    positions: Vec<DVec3>,
    cells: HashMap<[i64; 3], Vec<usize>>,
}

impl Positions {
    fn new(positions: Vec<DVec3>) -> Self {
        let mut cells: HashMap<[i64; 3], Vec<usize>> = HashMap::new();
        for (i, p) in positions.iter().enumerate() {
            cells.entry(Self::cell(*p)).or_default().push(i);
        }
        Self { positions, cells }
    }

    fn cell(p: DVec3) -> [i64; 3] {
        (p * 1e4).floor().as_i64vec3().to_array()
    }

    /// The vertices within 1 micrometre of `p`.
    fn at(&self, p: DVec3) -> Vec<usize> {
        let [x, y, z] = Self::cell(p);
        let mut found = Vec::new();
        for dx in -1..=1 {
            for dy in -1..=1 {
                for dz in -1..=1 {
                    if let Some(list) = self.cells.get(&[x + dx, y + dy, z + dz]) {
                        found.extend(
                            list.iter()
                                .filter(|&&i| self.positions[i].distance(p) < 1e-6),
                        );
                    }
                }
            }
        }
        found
    }
}

#[test]
fn a_glb_holds_the_vertices_weights_and_shapes_of_the_g4mf_of_the_same_job() {
    let test = "a_glb_holds_the_vertices_weights_and_shapes_of_the_g4mf";
    let Some(data) = test_support::mpfb_data_or_skip(test) else {
        return;
    };
    let out = tempfile::tempdir().unwrap();
    let job = |output: &str| {
        let path = out.path().join(output);
        succeed(
            bin()
                .args([
                    "convert",
                    "--rig-name",
                    "game_engine",
                    "--face-units",
                    "--max-influences",
                    "4",
                ])
                .arg("--mpfb-data")
                .arg(&data)
                .arg("-o")
                .arg(&path),
        );
        path
    };
    let (g4b, glb) = (job("a.g4b"), job("a.glb"));
    let file = read_path(&g4b, &ReadOptions::default()).unwrap();
    let (root, buffer) = test_support::gltf::read(&glb);
    // The G4MF body: positions in the file's space (the skeleton node's position added).
    let skeleton = file.document.nodes[1]
        .position
        .as_ref()
        .map_or(DVec3::ZERO, |p| DVec3::from_slice(p));
    let mesh = &file.document.meshes[0];
    let positions: Vec<DVec3> = file
        .read_f64(mesh.vertices)
        .unwrap()
        .chunks_exact(3)
        .map(|c| DVec3::from_slice(c) + skeleton)
        .collect();
    let skin = mesh.skin.as_ref().unwrap();
    let groups = file.read_u64(skin.groups).unwrap();
    let vertices = file.read_u64(skin.vertices).unwrap();
    let weights = file.read_f64(skin.weights).unwrap();
    let group_names = skin.group_names.clone().unwrap();
    let mut g4mf_weights: Vec<HashMap<String, f64>> = vec![HashMap::new(); positions.len()];
    for ((g, v), w) in groups.iter().zip(&vertices).zip(&weights) {
        g4mf_weights[*v as usize].insert(group_names[*g as usize].clone(), *w);
    }
    let grid = Positions::new(positions.clone());
    // The glTF body.
    let primitive = &root.meshes[0].primitives[0];
    let attribute = |s: Semantic| primitive.attributes[&Checked::Valid(s)].value();
    let read = |a: usize| test_support::gltf::accessor(&root, &buffer, a);
    let gltf_positions = read(attribute(Semantic::Positions));
    let gltf_joints = read(attribute(Semantic::Joints(0)));
    let gltf_weights = read(attribute(Semantic::Weights(0)));
    let joint_names: Vec<String> = root.skins[0]
        .joints
        .iter()
        .map(|j| root.nodes[j.value()].name.clone().unwrap())
        .collect();
    // A glTF vertex's weights by bone name.
    let weights_of = |g: usize| -> HashMap<String, f64> {
        (0..4)
            .filter(|&k| gltf_weights[g][k] > 0.0)
            .map(|k| {
                (
                    joint_names[gltf_joints[g][k] as usize].clone(),
                    gltf_weights[g][k],
                )
            })
            .collect()
    };
    let same_weights = |a: &HashMap<String, f64>, b: &HashMap<String, f64>| {
        a.len() == b.len()
            && a.iter()
                .all(|(n, w)| b.get(n).is_some_and(|v| (v - w).abs() < 1e-6))
    };
    // Each glTF vertex is a G4MF vertex at its place with the same weights (several G4MF
    // vertices may share a place: one of them).
    let mut covered = vec![false; positions.len()];
    let mut source_of = Vec::with_capacity(gltf_positions.len());
    for (g, p) in gltf_positions.iter().enumerate() {
        let p = DVec3::from_slice(p);
        let candidates = grid.at(p);
        let written = weights_of(g);
        let source = candidates
            .iter()
            .copied()
            .find(|&c| same_weights(&written, &g4mf_weights[c]))
            .unwrap_or_else(|| {
                panic!("glTF vertex {g} at {p}: no G4MF vertex there with its weights {written:?} (candidates {candidates:?})")
            });
        covered[source] = true;
        source_of.push(source);
    }
    assert!(
        covered.iter().all(|c| *c),
        "every G4MF vertex is a glTF vertex"
    );
    // The same names for the same things: nodes (the G4MF root is glTF's scene), materials.
    let g4mf_nodes: Vec<&str> = file.document.nodes[1..]
        .iter()
        .filter_map(|n| n.name.as_deref())
        .collect();
    let gltf_nodes: Vec<&str> = root
        .nodes
        .iter()
        .filter_map(|n| n.name.as_deref())
        .collect();
    assert_eq!(gltf_nodes, g4mf_nodes);
    assert_eq!(root.scenes[0].name, file.document.nodes[0].name);
    let g4mf_materials: Vec<&str> = file
        .document
        .materials
        .iter()
        .filter_map(|m| m.name.as_deref())
        .collect();
    let gltf_materials: Vec<&str> = root
        .materials
        .iter()
        .filter_map(|m| m.name.as_deref())
        .collect();
    assert_eq!(gltf_materials, g4mf_materials);
    // Every shape: the same names, and every moved vertex moved the same.
    let blend = mesh.blend.as_ref().unwrap();
    let names = test_support::gltf::target_names(&root, 0);
    assert_eq!(names.len(), blend.shapes.len());
    for (s, shape) in blend.shapes.iter().enumerate() {
        assert_eq!(shape.name.as_deref(), Some(names[s].as_str()));
        let target = read(
            primitive.targets.as_ref().unwrap()[s]
                .positions
                .unwrap()
                .value(),
        );
        let Some(position) = &shape.position else {
            continue;
        };
        let moved: HashMap<u64, DVec3> = file
            .read_u64(position.indices)
            .unwrap()
            .into_iter()
            .zip(
                file.read_f64(position.offsets)
                    .unwrap()
                    .chunks_exact(3)
                    .map(DVec3::from_slice),
            )
            .collect();
        for (g, &source) in source_of.iter().enumerate() {
            let expected = moved.get(&(source as u64)).copied().unwrap_or(DVec3::ZERO);
            let got = DVec3::from_slice(&target[g]);
            assert!(
                (got - expected).length() < 1e-7,
                "{}: vertex {source}",
                names[s]
            );
        }
    }
}

#[test]
fn g4mf_only_flags_and_g4mf_readers_refuse_gltf_in_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let glb = dir.path().join("x.glb");
    for (flags, named) in [
        (&["--compress", "zstd"][..], "--compress zstd"),
        (&["--thumbnail"][..], "--thumbnail"),
        (&["--no-group-names"][..], "--no-group-names"),
    ] {
        let output = bin()
            .args(["convert", "--rig", "nothere.json"])
            .args(flags)
            .arg("-o")
            .arg(&glb)
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&output.stderr);
        assert!(!output.status.success());
        assert_eq!(text.lines().count(), 1, "{text}");
        assert!(text.contains(named) && text.contains("x.glb"), "{text}");
        assert!(!glb.exists());
    }
    std::fs::write(&glb, b"glTF\x02\0\0\0").unwrap();
    let renamed = dir.path().join("x.bin");
    std::fs::copy(&glb, &renamed).unwrap();
    // Whole glTF files under other names: the content decides, for every command alike.
    let mut b = test_support::gltf::GltfBuilder::new();
    let square = [0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 1.0, 1.0, 0.0, 0.0, 1.0, 0.0];
    let mesh = b.mesh(&square, Some(&[0, 1, 2, 0, 2, 3]), &[], None);
    b.root_node(serde_json::json!({"mesh": mesh}));
    let as_g4b = dir.path().join("g.g4b");
    std::fs::write(&as_g4b, b.glb()).unwrap();
    let as_json = dir.path().join("j.json");
    std::fs::write(&as_json, b.gltf_embedded()).unwrap();
    for command in [
        vec!["validate"],
        vec!["inspect"],
        vec!["to-mpfb", "--out-dir", "o"],
        vec!["to-gltf", "-o", "o.glb"],
    ] {
        for file in [&glb, &renamed, &as_g4b, &as_json] {
            let output = bin()
                .current_dir(dir.path())
                .args(&command)
                .arg(file)
                .output()
                .unwrap();
            let text = String::from_utf8_lossy(&output.stderr);
            assert_eq!(output.status.code(), Some(1), "{command:?}: {text}");
            assert_eq!(text.lines().count(), 1, "{text}");
            let hint = format!("{} is glTF 2.0, not G4MF: `{}`", file.display(), command[0]);
            assert!(text.contains(&hint), "{text}");
        }
    }
    for file in [&as_g4b, &as_json] {
        let png = file.with_extension("png");
        succeed(bin().arg("preview").arg(file).arg("-o").arg(&png));
        assert!(png.exists(), "{}", file.display());
    }
}

#[test]
fn a_glb_pictures_as_the_g4mf_of_the_same_job() {
    let test = "a_glb_pictures_as_the_g4mf_of_the_same_job";
    let Some(data) = test_support::mpfb_data_or_skip(test) else {
        return;
    };
    let out = tempfile::tempdir().unwrap();
    let picture = |output: &str| {
        let model = out.path().join(output);
        succeed(
            bin()
                .args([
                    "convert",
                    "--rig-name",
                    "default",
                    "--max-influences",
                    "4",
                    "-q",
                ])
                .arg("--mpfb-data")
                .arg(&data)
                .arg("-o")
                .arg(&model),
        );
        let png = model.with_extension("png");
        succeed(
            bin()
                .arg("preview")
                .arg(&model)
                .args(["--view", "all", "--size", "160x280", "-o"])
                .arg(&png),
        );
        image::open(&png).unwrap().to_rgba8()
    };
    let (g4mf, gltf) = (picture("a.g4b"), picture("a.glb"));
    assert_eq!(g4mf.dimensions(), gltf.dimensions());
    // The same triangles, normals and colours: pixels differ only where float32 rounding
    // moves an edge by a sample.
    let differing = g4mf
        .pixels()
        .zip(gltf.pixels())
        .filter(|(a, b)| a.0.iter().zip(b.0).any(|(x, y)| x.abs_diff(y) > 8))
        .count();
    let total = (g4mf.width() * g4mf.height()) as usize;
    assert!(
        differing * 200 < total,
        "{differing} of {total} pixels differ"
    );
}

#[test]
fn gltf_pairs_uri_safe_buffer_names_and_to_gltf_notes() {
    let test = "gltf_pairs_uri_safe_buffer_names_and_to_gltf_notes";
    let Some(data) = test_support::mpfb_data_or_skip(test) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let convert = |output: &Path, extra: &[&str]| {
        succeed(
            bin()
                .args(["convert", "--rig-name", "default", "-q"])
                .arg("--mpfb-data")
                .arg(&data)
                .args(extra)
                .arg("-o")
                .arg(output),
        )
    };
    let preview = |file: &Path| {
        bin()
            .arg("preview")
            .arg(file)
            .args(["--size", "64", "-o"])
            .arg(dir.path().join("p.png"))
            .output()
            .unwrap()
    };
    // A copy of a .gltf keeps its buffer when the original is replaced (as for .g4tf).
    let pair = dir.path().join("x.gltf");
    convert(&pair, &["--external-bin"]);
    std::fs::copy(&pair, dir.path().join("copy.gltf")).unwrap();
    convert(&pair, &["--external-bin", "--flat"]);
    let copy = preview(&dir.path().join("copy.gltf"));
    assert!(
        copy.status.success(),
        "{}",
        String::from_utf8_lossy(&copy.stderr)
    );
    // A name a URI would escape gives a buffer name that needs no escape.
    let odd = dir.path().join("50% my.gltf");
    convert(&odd, &["--external-bin"]);
    let (root, _) = test_support::gltf::read(&odd);
    let uri = root.buffers[0].uri.clone().unwrap();
    assert!(uri.starts_with("50__my.") && uri.ends_with(".bin"), "{uri}");
    assert!(preview(&odd).status.success());
    // to-gltf says what it changed: influences beyond four, images outside its folder.
    let (d1, d2) = (dir.path().join("d1"), dir.path().join("d2"));
    std::fs::create_dir_all(&d1).unwrap();
    std::fs::create_dir_all(&d2).unwrap();
    let g4tf = d1.join("x.g4tf");
    convert(&g4tf, &["--textures", "copy"]);
    let text = succeed(
        bin()
            .arg("to-gltf")
            .arg(&g4tf)
            .arg("-o")
            .arg(d2.join("x.glb")),
    );
    let said = |code: &str, sentence: &str| {
        text.lines()
            .any(|l| l.starts_with(&format!("  note      {code}: ")) && l.contains(sentence))
    };
    assert!(
        said(
            "SKIN_INFLUENCES_DROPPED",
            "influences dropped beyond 4 a vertex"
        ),
        "{text}"
    );
    assert!(
        said("IMAGE_URI_OUTSIDE", "is outside the glTF file's folder"),
        "{text}"
    );
}
