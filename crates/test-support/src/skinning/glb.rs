//! Linear blend skinning of a `.glb` as glTF 2.0 defines it: a skinned mesh's vertex goes to
//! `Σ w · joint_world · inverseBind · v` (the mesh node's own transform ignored), an
//! unskinned mesh follows its node; morph targets (dense or sparse) named by
//! `mesh.extras.targetNames`. The file is read by [`crate::gltf`] (`gltf-json`'s document,
//! the BIN chunk, accessors through strides, normalized integers and sparse values); it is a
//! judge for tests, not a general glTF reader.

use super::{Shape, SkinnedMesh, Tree, Turn, blend};
use crate::gltf::{target_names, try_accessor, try_parse};
use glam::{DAffine3, DMat4, DQuat, DVec3};
use gltf_json::Root;
use gltf_json::mesh::Semantic;
use gltf_json::validation::Checked;
use std::collections::BTreeMap;
use std::path::Path;

/// A `.glb`'s document and its BIN chunk.
pub struct Glb {
    /// The document.
    pub root: Root,
    /// The binary chunk (empty when there is none).
    pub bin: Vec<u8>,
}

impl Glb {
    /// Reads a `.glb`'s document and BIN chunk.
    pub fn parse(bytes: &[u8]) -> Result<Self, String> {
        if !bytes.starts_with(b"glTF") {
            return Err("not a glTF 2.0 binary file".into());
        }
        let (root, bin) = try_parse(bytes, Path::new("."))?;
        Ok(Glb { root, bin })
    }

    /// An accessor's values as f64, element after element (see [`crate::gltf::accessor`]).
    pub fn accessor(&self, index: usize) -> Result<Vec<f64>, String> {
        Ok(try_accessor(&self.root, &self.bin, index)?.concat())
    }

    /// An accessor of three-component vectors.
    fn vectors(&self, index: usize) -> Result<Vec<DVec3>, String> {
        Ok(self
            .accessor(index)?
            .chunks_exact(3)
            .map(DVec3::from_slice)
            .collect())
    }

    /// The node tree (`matrix`, or translation, rotation and scale).
    pub fn tree(&self) -> Result<Tree, String> {
        let nodes = &self.root.nodes;
        let mut parent = vec![None; nodes.len()];
        for (i, node) in nodes.iter().enumerate() {
            for child in node.children.iter().flatten() {
                *parent
                    .get_mut(child.value())
                    .ok_or("a child beyond the nodes")? = Some(i);
            }
        }
        Ok(Tree {
            names: nodes.iter().map(|n| n.name.clone()).collect(),
            parent,
            local: nodes.iter().map(local_transform).collect(),
        })
    }
}

/// A node's transform relative to its parent.
fn local_transform(node: &gltf_json::scene::Node) -> DAffine3 {
    let wide = |v: &[f32]| -> Vec<f64> { v.iter().map(|&x| f64::from(x)).collect() };
    if let Some(m) = &node.matrix {
        return DAffine3::from_mat4(DMat4::from_cols_slice(&wide(m)));
    }
    let t = node
        .translation
        .map_or(DVec3::ZERO, |t| DVec3::from_slice(&wide(&t)));
    let r = node.rotation.map_or(DQuat::IDENTITY, |r| {
        DQuat::from_slice(&wide(&r.0)).normalize()
    });
    let s = node
        .scale
        .map_or(DVec3::ONE, |s| DVec3::from_slice(&wide(&s)));
    DAffine3::from_scale_rotation_translation(s, r, t)
}

/// Every mesh node of the file (node order), its vertices at rest and with `turns`: a mesh's
/// vertices are its primitives' (primitives sharing a `POSITION` accessor share vertices).
pub fn meshes(bytes: &[u8], turns: &[Turn]) -> Result<Vec<SkinnedMesh>, String> {
    let glb = Glb::parse(bytes)?;
    let tree = glb.tree()?;
    let rest = tree.rest()?;
    let posed = tree.posed(turns)?;
    let mut out = Vec::new();
    for (n, node) in glb.root.nodes.iter().enumerate() {
        let Some(m) = node.mesh else {
            continue;
        };
        let mesh = glb.root.get(m).ok_or("a mesh beyond the meshes")?;
        // Joint matrices at rest and turned (inverse bind matrices included).
        let joints = match node.skin {
            Some(skin) => {
                let skin = glb.root.get(skin).ok_or("a skin beyond the skins")?;
                let binds: Vec<DAffine3> = match skin.inverse_bind_matrices {
                    Some(a) => glb
                        .accessor(a.value())?
                        .chunks_exact(16)
                        .map(|m| DAffine3::from_mat4(DMat4::from_cols_slice(m)))
                        .collect(),
                    None => vec![DAffine3::IDENTITY; skin.joints.len()],
                };
                let with = |world: &[DAffine3]| -> Vec<DAffine3> {
                    skin.joints
                        .iter()
                        .zip(&binds)
                        .map(|(j, &b)| world[j.value()] * b)
                        .collect()
                };
                Some((with(&rest), with(&posed)))
            }
            None => None,
        };
        let mut vertices = Vec::new();
        let (mut rest_v, mut posed_v) = (Vec::new(), Vec::new());
        let mut seen = Vec::new();
        let mut targets: Vec<Vec<DVec3>> = Vec::new();
        for primitive in &mesh.primitives {
            let attributes = &primitive.attributes;
            let position = attributes
                .get(&Checked::Valid(Semantic::Positions))
                .ok_or("a primitive without POSITION")?
                .value();
            if seen.contains(&position) {
                continue;
            }
            seen.push(position);
            let local = glb.vectors(position)?;
            let influences = influences_of(&glb, attributes, local.len())?;
            match &joints {
                Some((r, p)) => {
                    rest_v.extend(blend(&local, &influences, r, rest[n]));
                    posed_v.extend(blend(&local, &influences, p, posed[n]));
                }
                None => {
                    rest_v.extend(local.iter().map(|&v| rest[n].transform_point3(v)));
                    posed_v.extend(local.iter().map(|&v| posed[n].transform_point3(v)));
                }
            }
            for (k, target) in primitive.targets.iter().flatten().enumerate() {
                if targets.len() <= k {
                    targets.push(vec![DVec3::ZERO; vertices.len()]);
                }
                let offsets = match target.positions {
                    Some(a) => glb.vectors(a.value())?,
                    None => vec![DVec3::ZERO; local.len()],
                };
                targets[k].extend(offsets);
            }
            vertices.extend(local);
            for t in &mut targets {
                t.resize(vertices.len(), DVec3::ZERO);
            }
        }
        let names = target_names(&glb.root, m.value());
        out.push(SkinnedMesh {
            name: node.name.clone().unwrap_or_default(),
            rest: rest_v,
            posed: posed_v,
            shapes: targets
                .into_iter()
                .enumerate()
                .map(|(k, offsets)| Shape {
                    name: names.get(k).cloned().unwrap_or_default(),
                    offsets,
                })
                .collect(),
        });
    }
    Ok(out)
}

/// Each vertex's `(joint, weight)` pairs from every `JOINTS_n`/`WEIGHTS_n` set (zero weights
/// left out).
fn influences_of(
    glb: &Glb,
    attributes: &BTreeMap<Checked<Semantic>, gltf_json::Index<gltf_json::Accessor>>,
    count: usize,
) -> Result<Vec<Vec<(usize, f64)>>, String> {
    let mut influences = vec![Vec::new(); count];
    for set in 0.. {
        let (Some(j), Some(w)) = (
            attributes.get(&Checked::Valid(Semantic::Joints(set))),
            attributes.get(&Checked::Valid(Semantic::Weights(set))),
        ) else {
            break;
        };
        let joints = glb.accessor(j.value())?;
        let weights = glb.accessor(w.value())?;
        for (v, (js, ws)) in joints
            .chunks_exact(4)
            .zip(weights.chunks_exact(4))
            .enumerate()
        {
            for (&j, &w) in js.iter().zip(ws) {
                if w != 0.0 {
                    influences[v].push((j as usize, w));
                }
            }
        }
    }
    Ok(influences)
}
