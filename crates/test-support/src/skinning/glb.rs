//! Linear blend skinning of a `.glb` as glTF 2.0 defines it: a skinned mesh's vertex goes to
//! `Σ w · joint_world · inverseBind · v` (the mesh node's own transform ignored), an
//! unskinned mesh follows its node; morph targets (dense or sparse) named by
//! `mesh.extras.targetNames`. A minimal reader of what our writer writes (a GLB with one BIN
//! chunk, tightly packed or strided views, float or normalized integer components); it is a
//! judge for tests, not a general glTF reader.

use super::{Shape, SkinnedMesh, Tree, Turn, blend};
use glam::{DAffine3, DMat4, DQuat, DVec3};
use serde_json::Value;

/// A GLB's JSON and BIN chunk.
pub struct Glb {
    /// The document.
    pub json: Value,
    /// The binary chunk (empty when there is none).
    pub bin: Vec<u8>,
}

impl Glb {
    /// Splits a `.glb` into its JSON and BIN chunks.
    pub fn parse(bytes: &[u8]) -> Result<Self, String> {
        let u32_at = |at: usize| -> Result<usize, String> {
            bytes
                .get(at..at + 4)
                .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize)
                .ok_or(format!("the file ends before byte {at}"))
        };
        if bytes.get(..4) != Some(b"glTF".as_slice()) || u32_at(4)? != 2 {
            return Err("not a glTF 2.0 binary file".into());
        }
        let mut at = 12;
        let (mut json, mut bin) = (None, Vec::new());
        while at + 8 <= bytes.len() {
            let (length, kind) = (u32_at(at)?, &bytes[at + 4..at + 8]);
            let data = bytes
                .get(at + 8..at + 8 + length)
                .ok_or("a chunk runs past the end")?;
            match kind {
                b"JSON" => json = Some(serde_json::from_slice(data).map_err(|e| e.to_string())?),
                b"BIN\0" => bin = data.to_vec(),
                _ => {}
            }
            at += 8 + length;
        }
        Ok(Glb {
            json: json.ok_or("no JSON chunk")?,
            bin,
        })
    }

    /// An accessor's values as f64 (normalized integers scaled to [0, 1]), `components` per
    /// element, sparse substitutions applied; no buffer view means zeros.
    pub fn accessor(&self, index: usize) -> Result<Vec<f64>, String> {
        let accessor = &self.json["accessors"][index];
        let count = usize_of(&accessor["count"])?;
        let components = match accessor["type"].as_str() {
            Some("SCALAR") => 1,
            Some("VEC2") => 2,
            Some("VEC3") => 3,
            Some("VEC4") => 4,
            Some("MAT4") => 16,
            other => return Err(format!("accessor {index}: type {other:?}")),
        };
        let component = accessor["componentType"].as_u64().unwrap_or(0);
        let normalized = accessor["normalized"].as_bool().unwrap_or(false);
        let mut values = vec![0.0; count * components];
        if let Some(view) = accessor.get("bufferView") {
            let offset = accessor["byteOffset"].as_u64().unwrap_or(0) as usize;
            let read = self.elements(
                usize_of(view)?,
                offset,
                component,
                normalized,
                count * components,
                components,
            )?;
            values.copy_from_slice(&read);
        }
        if let Some(sparse) = accessor.get("sparse") {
            let n = usize_of(&sparse["count"])?;
            let at = |part: &Value| -> Result<(usize, usize), String> {
                Ok((
                    usize_of(&part["bufferView"])?,
                    part["byteOffset"].as_u64().unwrap_or(0) as usize,
                ))
            };
            let (view, offset) = at(&sparse["indices"])?;
            let kind = sparse["indices"]["componentType"].as_u64().unwrap_or(0);
            let indices = self.elements(view, offset, kind, false, n, 1)?;
            let (view, offset) = at(&sparse["values"])?;
            let replaced = self.elements(
                view,
                offset,
                component,
                normalized,
                n * components,
                components,
            )?;
            for (k, &i) in indices.iter().enumerate() {
                let i = i as usize;
                values
                    .get_mut(i * components..(i + 1) * components)
                    .ok_or(format!(
                        "accessor {index}: sparse index {i} beyond its count"
                    ))?
                    .copy_from_slice(&replaced[k * components..(k + 1) * components]);
            }
        }
        Ok(values)
    }

    /// `total` components from a buffer view, `components` an element (a view's `byteStride`
    /// between elements, else packed).
    fn elements(
        &self,
        view: usize,
        offset: usize,
        component: u64,
        normalized: bool,
        total: usize,
        components: usize,
    ) -> Result<Vec<f64>, String> {
        let view = &self.json["bufferViews"][view];
        let start = view["byteOffset"].as_u64().unwrap_or(0) as usize + offset;
        let size = match component {
            5120 | 5121 => 1,
            5122 | 5123 => 2,
            5125 | 5126 => 4,
            other => return Err(format!("component type {other}")),
        };
        let stride = view["byteStride"]
            .as_u64()
            .map_or(size * components, |s| s as usize);
        let mut out = Vec::with_capacity(total);
        for k in 0..total {
            let at = start + (k / components) * stride + (k % components) * size;
            let b = self
                .bin
                .get(at..at + size)
                .ok_or(format!("byte {at} is beyond the BIN chunk"))?;
            let value = match component {
                5126 => f64::from(f32::from_le_bytes([b[0], b[1], b[2], b[3]])),
                5125 => f64::from(u32::from_le_bytes([b[0], b[1], b[2], b[3]])),
                5123 => {
                    f64::from(u16::from_le_bytes([b[0], b[1]]))
                        / if normalized { 65535.0 } else { 1.0 }
                }
                5121 => f64::from(b[0]) / if normalized { 255.0 } else { 1.0 },
                5122 => f64::from(i16::from_le_bytes([b[0], b[1]])),
                _ => f64::from(b[0] as i8),
            };
            out.push(value);
        }
        Ok(out)
    }

    /// The node tree (`matrix`, or translation, rotation and scale).
    pub fn tree(&self) -> Result<Tree, String> {
        let nodes = self.json["nodes"].as_array().map_or(&[][..], Vec::as_slice);
        let mut parent = vec![None; nodes.len()];
        for (i, node) in nodes.iter().enumerate() {
            for child in node["children"].as_array().into_iter().flatten() {
                *parent
                    .get_mut(usize_of(child)?)
                    .ok_or("a child beyond the nodes")? = Some(i);
            }
        }
        Ok(Tree {
            names: nodes
                .iter()
                .map(|n| n["name"].as_str().map(str::to_owned))
                .collect(),
            parent,
            local: nodes.iter().map(local_transform).collect(),
        })
    }
}

/// A node's transform relative to its parent.
fn local_transform(node: &Value) -> DAffine3 {
    let numbers = |key: &str| -> Option<Vec<f64>> {
        node[key].as_array()?.iter().map(Value::as_f64).collect()
    };
    if let Some(m) = numbers("matrix").filter(|m| m.len() == 16) {
        return DAffine3::from_mat4(DMat4::from_cols_slice(&m));
    }
    let t = numbers("translation").map_or(DVec3::ZERO, |t| DVec3::from_slice(&t));
    let r = numbers("rotation").map_or(DQuat::IDENTITY, |r| DQuat::from_slice(&r).normalize());
    let s = numbers("scale").map_or(DVec3::ONE, |s| DVec3::from_slice(&s));
    DAffine3::from_scale_rotation_translation(s, r, t)
}

fn usize_of(value: &Value) -> Result<usize, String> {
    value
        .as_u64()
        .map(|v| v as usize)
        .ok_or(format!("not an index: {value}"))
}

/// Every mesh node of the file (node order), its vertices at rest and with `turns`: a mesh's
/// vertices are its primitives' (primitives sharing a `POSITION` accessor share vertices).
pub fn meshes(bytes: &[u8], turns: &[Turn]) -> Result<Vec<SkinnedMesh>, String> {
    let glb = Glb::parse(bytes)?;
    let tree = glb.tree()?;
    let rest = tree.rest()?;
    let posed = tree.posed(turns)?;
    let nodes = glb.json["nodes"].as_array().map_or(&[][..], Vec::as_slice);
    let mut out = Vec::new();
    for (n, node) in nodes.iter().enumerate() {
        let Some(mesh) = node.get("mesh") else {
            continue;
        };
        let mesh = &glb.json["meshes"][usize_of(mesh)?];
        // Joint matrices at rest and turned (inverse bind matrices included).
        let (rest_joints, posed_joints) = match node.get("skin") {
            Some(skin) => {
                let skin = &glb.json["skins"][usize_of(skin)?];
                let joints: Vec<usize> = skin["joints"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .map(usize_of)
                    .collect::<Result<_, _>>()?;
                let binds: Vec<DAffine3> = match skin.get("inverseBindMatrices") {
                    Some(a) => glb
                        .accessor(usize_of(a)?)?
                        .chunks_exact(16)
                        .map(|m| DAffine3::from_mat4(DMat4::from_cols_slice(m)))
                        .collect(),
                    None => vec![DAffine3::IDENTITY; joints.len()],
                };
                let with = |world: &[DAffine3]| -> Vec<DAffine3> {
                    joints
                        .iter()
                        .zip(&binds)
                        .map(|(&j, &b)| world[j] * b)
                        .collect()
                };
                (Some(with(&rest)), Some(with(&posed)))
            }
            None => (None, None),
        };
        let mut vertices = Vec::new();
        let (mut rest_v, mut posed_v) = (Vec::new(), Vec::new());
        let mut seen = Vec::new();
        let mut targets: Vec<Vec<DVec3>> = Vec::new();
        for primitive in mesh["primitives"].as_array().into_iter().flatten() {
            let attributes = &primitive["attributes"];
            let position = usize_of(&attributes["POSITION"])?;
            if seen.contains(&position) {
                continue;
            }
            seen.push(position);
            let local: Vec<DVec3> = glb
                .accessor(position)?
                .chunks_exact(3)
                .map(DVec3::from_slice)
                .collect();
            let influences = influences_of(&glb, attributes, local.len())?;
            match (&rest_joints, &posed_joints) {
                (Some(r), Some(p)) => {
                    rest_v.extend(blend(&local, &influences, r, rest[n]));
                    posed_v.extend(blend(&local, &influences, p, posed[n]));
                }
                _ => {
                    rest_v.extend(local.iter().map(|&v| rest[n].transform_point3(v)));
                    posed_v.extend(local.iter().map(|&v| posed[n].transform_point3(v)));
                }
            }
            for (k, target) in primitive["targets"]
                .as_array()
                .into_iter()
                .flatten()
                .enumerate()
            {
                if targets.len() <= k {
                    targets.push(vec![DVec3::ZERO; vertices.len()]);
                }
                let offsets = match target.get("POSITION") {
                    Some(a) => glb
                        .accessor(usize_of(a)?)?
                        .chunks_exact(3)
                        .map(DVec3::from_slice)
                        .collect(),
                    None => vec![DVec3::ZERO; local.len()],
                };
                targets[k].extend(offsets);
            }
            vertices.extend(local);
            for t in &mut targets {
                t.resize(vertices.len(), DVec3::ZERO);
            }
        }
        let names = mesh["extras"]["targetNames"].as_array();
        out.push(SkinnedMesh {
            name: node["name"].as_str().unwrap_or_default().to_owned(),
            rest: rest_v,
            posed: posed_v,
            shapes: targets
                .into_iter()
                .enumerate()
                .map(|(k, offsets)| Shape {
                    name: names
                        .and_then(|n| n.get(k))
                        .and_then(Value::as_str)
                        .unwrap_or_default()
                        .to_owned(),
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
    attributes: &Value,
    count: usize,
) -> Result<Vec<Vec<(usize, f64)>>, String> {
    let mut influences = vec![Vec::new(); count];
    for set in 0.. {
        let (Some(j), Some(w)) = (
            attributes.get(format!("JOINTS_{set}")),
            attributes.get(format!("WEIGHTS_{set}")),
        ) else {
            break;
        };
        let joints = glb.accessor(usize_of(j)?)?;
        let weights = glb.accessor(usize_of(w)?)?;
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
