//! Linear blend skinning of a G4MF file: the node tree's world transforms at rest and turned,
//! and every mesh instance's vertices moved by its skin (group `g` follows the bone node
//! `joints[g]` of the skeleton the instance is a child of), with its blend shapes.

use super::{Shape, SkinnedMesh, Tree, Turn, blend};
use g4mf_reader::model::JointRef;
use g4mf_reader::{G4mfFile, Transform};
use glam::{DAffine3, DVec3};

/// The file's node tree.
pub fn tree(file: &G4mfFile) -> Tree {
    let nodes = &file.document.nodes;
    let mut parent = vec![None; nodes.len()];
    for (i, node) in nodes.iter().enumerate() {
        for child in &node.children {
            parent[child.get()] = Some(i);
        }
    }
    Tree {
        names: nodes.iter().map(|n| n.name.clone()).collect(),
        parent,
        // The reader's reading of a node transform (what a picture draws of it).
        local: nodes
            .iter()
            .map(|n| Transform::of_node_lenient(n).affine())
            .collect(),
    }
}

/// Every mesh instance of the file (node order), its vertices at rest and with `turns`.
pub fn meshes(file: &G4mfFile, turns: &[Turn]) -> Result<Vec<SkinnedMesh>, String> {
    let tree = tree(file);
    let rest = tree.rest()?;
    let posed = tree.posed(turns)?;
    let doc = &file.document;
    let mut out = Vec::new();
    for (n, node) in doc.nodes.iter().enumerate() {
        let Some(instance) = &node.mesh_instance else {
            continue;
        };
        let mesh = &doc.meshes[instance.mesh.get()];
        let local = vectors(file, mesh.vertices)?;
        let world: Vec<DVec3> = local.iter().map(|&p| rest[n].transform_point3(p)).collect();
        let unskinned = posed[n] * rest[n].inverse();
        // The skeleton the instance belongs to: its parent's, when the parent is one.
        let joints: &[JointRef] = tree.parent[n]
            .and_then(|p| doc.nodes[p].skeleton.as_ref())
            .map_or(&[], |s| s.joints.as_slice());
        let deform: Vec<DAffine3> = joints
            .iter()
            .map(|j| match j {
                JointRef::Node(b) => posed[b.get()] * rest[b.get()].inverse(),
                JointRef::Uncontrolled => DAffine3::IDENTITY,
            })
            .collect();
        let mut influences = vec![Vec::new(); world.len()];
        if let (Some(skin), false) = (&mesh.skin, joints.is_empty()) {
            let read = |a| file.read_f64(a).map_err(|e| e.to_string());
            let (vertices, groups, weights) = (
                read(skin.vertices)?,
                read(skin.groups)?,
                read(skin.weights)?,
            );
            for ((v, g), w) in vertices.iter().zip(&groups).zip(&weights) {
                let (v, g) = (*v as usize, *g as usize);
                if g < deform.len() {
                    influences
                        .get_mut(v)
                        .ok_or(format!("skin vertex {v} is beyond the mesh"))?
                        .push((g, *w));
                }
            }
        }
        let linear = DAffine3::from_mat3(rest[n].matrix3);
        let shapes = mesh
            .blend
            .iter()
            .flat_map(|b| &b.shapes)
            .map(|shape| {
                let mut offsets = vec![DVec3::ZERO; world.len()];
                if let Some(target) = &shape.position {
                    let indices = file.read_u64(target.indices).map_err(|e| e.to_string())?;
                    for (i, o) in indices.iter().zip(vectors(file, target.offsets)?) {
                        *offsets
                            .get_mut(*i as usize)
                            .ok_or(format!("blend vertex {i} is beyond the mesh"))? =
                            linear.transform_vector3(o);
                    }
                }
                Ok(Shape {
                    name: shape.name.clone().unwrap_or_default(),
                    offsets,
                })
            })
            .collect::<Result<Vec<_>, String>>()?;
        out.push(SkinnedMesh {
            name: node.name.clone().unwrap_or_default(),
            posed: blend(&world, &influences, &deform, unskinned),
            rest: world,
            shapes,
        });
    }
    Ok(out)
}

/// An accessor of three-component vectors.
fn vectors(
    file: &G4mfFile,
    accessor: g4mf_reader::model::AccessorIndex,
) -> Result<Vec<DVec3>, String> {
    let values = file.read_f64(accessor).map_err(|e| e.to_string())?;
    Ok(values.chunks_exact(3).map(DVec3::from_slice).collect())
}
