//! Helpers the CLI test modules share: running the binary, a default conversion, the
//! skeleton and skin rules of a file we wrote, bone frames by MPFB name, and target files as
//! maps; with the helpers of every CLI test binary (`tests/common`).

// The helpers the other CLI test binaries (dressed, humanoid, textures) share too.
#[path = "../common/mod.rs"]
pub mod shared;

pub use shared::{DRESSED_MHM, bin, data_and_assets, world_transforms};

use g4mf_model::JointRef;
use g4mf_reader::G4mfFile;
use glam::DVec3;
use std::collections::BTreeMap;
use std::path::Path;
use std::process::{Command, Output};

/// Standard output as text.
pub fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// Runs the binary with `args`; its output, whatever its status.
pub fn run(args: &[&str]) -> Output {
    bin().args(args).output().unwrap()
}

/// `convert --rig-name default --mpfb-data DATA EXTRA... --quiet -o OUT`, ready to run (the
/// caller may still set environment variables on it).
pub fn convert_default(data: &Path, out: &Path, extra: &[&str]) -> Command {
    let mut command = bin();
    command
        .args(["convert", "--rig-name", "default", "--mpfb-data"])
        .arg(data)
        .args(extra)
        .args(["--quiet", "-o"])
        .arg(out);
    command
}

/// Standard error as text.
pub fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// The skeleton and skin rules of the spec, on a file we wrote.
pub fn check_rules(file: &G4mfFile) {
    let doc = &file.document;
    let root = &doc.nodes[0];
    assert!(
        root.position.is_none()
            && root.basis.is_none()
            && root.scale.is_none()
            && root.rotor.is_none()
    );
    let skeleton_index = root.children[0].get();
    let skeleton = &doc.nodes[skeleton_index];
    let joints = &skeleton.skeleton.as_ref().unwrap().joints;
    let mut parent_of = vec![None; doc.nodes.len()];
    for (i, n) in doc.nodes.iter().enumerate() {
        for c in &n.children {
            assert!(parent_of[c.get()].is_none(), "node {} has two parents", c);
            parent_of[c.get()] = Some(i);
        }
    }
    let mut names = std::collections::HashSet::new();
    for n in &doc.nodes {
        let name = n.name.as_deref().unwrap();
        assert!(g4mf_writer::is_valid_name(name), "{name}");
        assert!(names.insert(name.to_owned()), "duplicate name {name}");
    }
    // Bones: parent is a bone or the skeleton; joints strictly increasing bones, parents first.
    for (i, n) in doc.nodes.iter().enumerate() {
        if let Some(bone) = &n.bone {
            let p = parent_of[i].unwrap();
            assert!(p == skeleton_index || doc.nodes[p].bone.is_some());
            assert!(bone.length.unwrap() >= 0.0);
        }
    }
    let joint_nodes: Vec<usize> = joints
        .iter()
        .map(|j| match j {
            JointRef::Node(n) => n.get(),
            JointRef::Uncontrolled => panic!("-1 joint"),
        })
        .collect();
    assert!(
        joint_nodes.windows(2).all(|w| w[0] < w[1]),
        "joints strictly increasing"
    );
    assert!(joint_nodes.iter().all(|&j| doc.nodes[j].bone.is_some()));
    let root_bones: Vec<usize> = skeleton
        .children
        .iter()
        .map(|c| c.get())
        .filter(|&c| doc.nodes[c].bone.is_some())
        .collect();
    if root_bones.len() == 1 {
        assert_eq!(
            skeleton.children[0].get(),
            root_bones[0],
            "single root bone is the first child"
        );
        if joint_nodes.contains(&root_bones[0]) {
            assert_eq!(joint_nodes[0], root_bones[0]);
        }
    }
    // The skinned mesh is on a direct child of the skeleton.
    let mesh_node = skeleton
        .children
        .iter()
        .map(|c| c.get())
        .find(|&c| doc.nodes[c].mesh_instance.is_some())
        .unwrap();
    let mesh = &doc.meshes[doc.nodes[mesh_node]
        .mesh_instance
        .as_ref()
        .unwrap()
        .mesh
        .get()];
    let vertex_count = file.read_f64(mesh.vertices).unwrap().len() / 3;
    for surface in &mesh.surfaces {
        let simplexes = file.read_u64(surface.simplexes.unwrap()).unwrap();
        assert_eq!(simplexes.len() % 3, 0);
        assert!(simplexes.iter().all(|&v| (v as usize) < vertex_count));
    }
    if let Some(skin) = &mesh.skin {
        let v = file.read_u64(skin.vertices).unwrap();
        let g = file.read_u64(skin.groups).unwrap();
        let w = file.read_f64(skin.weights).unwrap();
        assert!(v.len() == g.len() && g.len() == w.len());
        for i in 1..v.len() {
            assert!(v[i - 1] <= v[i]);
            if v[i - 1] == v[i] {
                assert!(w[i - 1] >= w[i]);
            }
        }
        assert!(v.iter().all(|&x| (x as usize) < vertex_count));
        assert!(g.iter().all(|&x| (x as usize) < joints.len()));
        let names = skin.group_names.as_ref().unwrap();
        assert_eq!(names.len(), joints.len());
        for (name, j) in names.iter().zip(&joint_nodes) {
            assert_eq!(doc.nodes[*j].name.as_ref(), Some(name));
        }
    }
}

/// Every bone's world head and +Y axis, by MPFB name.
pub fn bone_frames(file: &G4mfFile) -> BTreeMap<String, (DVec3, DVec3, f64)> {
    world_transforms(&file.document)
        .into_iter()
        .zip(&file.document.nodes)
        .filter_map(|((p, b), n)| {
            let extras = n.extras.as_ref()?.value();
            let name = extras.get("mpfb")?.get("name")?.as_str()?;
            Some((name.to_owned(), (p, b.y_axis, n.bone.as_ref()?.length?)))
        })
        .collect()
}

/// A target file as vertex -> summed displacement (decimetres).
pub fn target_map(path: &Path) -> BTreeMap<u32, [f32; 3]> {
    let mut out: BTreeMap<u32, [f32; 3]> = BTreeMap::new();
    for (v, d) in mpfb_body::read_target_file(path).unwrap().deltas() {
        let e = out.entry(v).or_default();
        for k in 0..3 {
            e[k] += d[k];
        }
    }
    out
}
