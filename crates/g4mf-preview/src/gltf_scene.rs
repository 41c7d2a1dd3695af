//! The [`Scene`] of a glTF 2.0 file: the default scene's nodes placed by their transforms
//! (posed by a frame of an animation clip when one is asked for: `gltf_clip`),
//! every triangle primitive with its morph targets at the file's weights (or a caller's by
//! name), skinned meshes by linear blend skinning with the joints' current world matrices,
//! materials' base colour, texture and alpha mode as [`DrawStyle`]s, and each skin's joints
//! as bones.

use crate::gltf_clip::{NodePose, SampledClip};
use crate::gltf_file::{Budget, GltfError, GltfErrorKind, GltfFile, at};
use crate::scene::{
    BoneSegment, DrawStyle, MAX_TEXELS, MAX_TRIANGLES, Scene, SceneOptions, TextureCache, Triangle,
    decode_image,
};
use glam::{DMat3, DMat4, DQuat, DVec3, Vec2, Vec3};
use gltf::json;
use gltf::json::mesh::{Mode, Semantic};
use gltf::json::validation::Checked;
use serde_json::Value;
use std::path::Path;
use std::sync::Arc;

/// Most texels the textures of one glTF scene hold together (four of the largest a texture
/// may be); a texture past it is drawn with its material's colour, and said so.
pub const MAX_SCENE_TEXELS: u64 = 4 * MAX_TEXELS;

/// A bone without a child joint or a parent joint to take its length from is this long, in
/// metres.
const LONE_BONE_LENGTH: f64 = 0.1;

impl Scene {
    /// The scene of glTF bytes (`.glb` or `.gltf`), read under `read` (relative URIs against
    /// `folder`, none followed without it), showing `options`' morph target weights by name.
    pub fn from_gltf(
        bytes: &[u8],
        folder: Option<&Path>,
        read: &g4mf_reader::ReadOptions,
        options: &SceneOptions,
    ) -> Result<Scene, GltfError> {
        let file = GltfFile::read_bytes(bytes, folder, read)?;
        Self::from_gltf_file(&file, options, None)
    }

    /// The scene of a glTF file already read, decoding textures through `textures` when given
    /// (shared by the scenes of many files, reduced to its size). A morph target name of
    /// `options.blend` that no mesh has is an error naming the targets there are.
    pub fn from_gltf_file(
        file: &GltfFile,
        options: &SceneOptions,
        textures: Option<&TextureCache>,
    ) -> Result<Scene, GltfError> {
        let mut budget = Budget::default();
        let clip = match &options.clip {
            Some(clip) => crate::gltf_clip::sample(file, clip, &mut budget)?,
            None => SampledClip::default(),
        };
        let tree = Tree::of(file.json(), &clip.nodes)?;
        let mut builder = Builder {
            file,
            root: file.json(),
            options,
            found: vec![false; options.blend.len()],
            budget,
            tree,
            clip_weights: clip.nodes.into_iter().map(|n| n.weights).collect(),
            skins: vec![None; file.json().skins.len()],
            decoded: Vec::new(),
            texels: 0,
            shared: textures,
            scene: Scene {
                notes: clip.notes,
                ..Scene::default()
            },
        };
        for node in builder.tree.drawn(file.json()) {
            builder.add_node(node)?;
        }
        builder.add_bones();
        if let Some(k) = builder.found.iter().position(|f| !f) {
            let mut names: Vec<String> = file
                .json()
                .meshes
                .iter()
                .flat_map(|m| target_names(&m.extras))
                .flatten()
                .collect();
            names.dedup();
            return Err(GltfError::new(
                location::Location::default(),
                GltfErrorKind::Data(format!(
                    "no morph target `{}` in the file (it has: {})",
                    options.blend[k].0,
                    if names.is_empty() {
                        "none".to_owned()
                    } else {
                        names.join(", ")
                    }
                )),
            ));
        }
        Ok(builder.scene)
    }
}

/// The node tree: each node's parent and world matrix. Built once, refusing what is not a
/// tree (a node with two parents, a cycle), without recursion, so a chain of any depth is
/// walked in one loop.
struct Tree {
    parent: Vec<Option<usize>>,
    world: Vec<DMat4>,
}

impl Tree {
    /// The tree of `root`'s nodes, each placed by its own transform as `poses` (one per node,
    /// or none) override it.
    fn of(root: &json::Root, poses: &[NodePose]) -> Result<Tree, GltfError> {
        let n = root.nodes.len();
        let mut parent: Vec<Option<usize>> = vec![None; n];
        for (p, node) in root.nodes.iter().enumerate() {
            for (k, child) in node.children.iter().flatten().enumerate() {
                let c = child.value();
                if c == p || parent[c].is_some() {
                    return Err(at(
                        format!("/nodes/{p}/children/{k}"),
                        GltfErrorKind::Invalid(format!(
                            "node {c} is already a child (of node {}): the nodes must form trees",
                            parent[c].unwrap_or(p)
                        )),
                    ));
                }
                parent[c] = Some(p);
            }
        }
        let mut world: Vec<Option<DMat4>> = vec![None; n];
        let mut stack: Vec<(usize, DMat4)> = (0..n)
            .filter(|&i| parent[i].is_none())
            .map(|i| (i, DMat4::IDENTITY))
            .collect();
        while let Some((i, above)) = stack.pop() {
            let node = &root.nodes[i];
            let here = above * local_matrix(node, poses.get(i));
            world[i] = Some(here);
            stack.extend(node.children.iter().flatten().map(|c| (c.value(), here)));
        }
        // Every node with one parent at most and not reached from a root lies on a cycle.
        if let Some(i) = world.iter().position(Option::is_none) {
            return Err(at(
                format!("/nodes/{i}"),
                GltfErrorKind::Invalid(format!(
                    "node {i} is its own ancestor: the children form a cycle"
                )),
            ));
        }
        Ok(Tree {
            parent,
            world: world.into_iter().flatten().collect(),
        })
    }

    /// The nodes to draw, in order: the default scene's (scene 0 when none is named, every
    /// root when there are no scenes), each root's tree depth first, children in order.
    fn drawn(&self, root: &json::Root) -> Vec<usize> {
        let roots: Vec<usize> = match root.scene.map_or(0, |s| s.value()) {
            s if s < root.scenes.len() => root.scenes[s].nodes.iter().map(|n| n.value()).collect(),
            _ => (0..root.nodes.len())
                .filter(|&i| self.parent[i].is_none())
                .collect(),
        };
        let mut seen = vec![false; root.nodes.len()];
        let mut order = Vec::new();
        let mut stack: Vec<usize> = roots.into_iter().rev().collect();
        while let Some(i) = stack.pop() {
            if std::mem::replace(&mut seen[i], true) {
                continue;
            }
            order.push(i);
            let children = root.nodes[i].children.iter().flatten();
            stack.extend(children.rev().map(|c| c.value()));
        }
        order
    }
}

/// A node's local matrix: `matrix`, else translation, rotation (normalised; identity when it
/// cannot be) and scale; what a clip's `pose` sets replaces the node's own (a `matrix`, which
/// glTF forbids on animated nodes, taken apart first).
fn local_matrix(node: &json::scene::Node, pose: Option<&NodePose>) -> DMat4 {
    let animated =
        pose.filter(|p| p.translation.is_some() || p.rotation.is_some() || p.scale.is_some());
    let (s, q, t) = match (&node.matrix, animated) {
        (Some(m), None) => return DMat4::from_cols_array(&m.map(f64::from)),
        (Some(m), Some(_)) => {
            DMat4::from_cols_array(&m.map(f64::from)).to_scale_rotation_translation()
        }
        (None, _) => {
            let t = node
                .translation
                .map_or(DVec3::ZERO, |t| DVec3::from_array(t.map(f64::from)));
            let s = node
                .scale
                .map_or(DVec3::ONE, |s| DVec3::from_array(s.map(f64::from)));
            let q = node.rotation.as_ref().map_or(DQuat::IDENTITY, |r| {
                let q = DQuat::from_array(r.0.map(f64::from));
                if q.is_finite() && q.length_squared() > 0.0 {
                    q.normalize()
                } else {
                    DQuat::IDENTITY
                }
            });
            (s, q, t)
        }
    };
    let Some(pose) = animated else {
        return DMat4::from_scale_rotation_translation(s, q, t);
    };
    DMat4::from_scale_rotation_translation(
        pose.scale.unwrap_or(s),
        pose.rotation.unwrap_or(q),
        pose.translation.unwrap_or(t),
    )
}

/// `targetNames` of a mesh's extras (the convention Blender and three.js follow).
fn target_names(extras: &json::Extras) -> Option<Vec<String>> {
    let value: Value = serde_json::from_str(extras.as_ref()?.get()).ok()?;
    Some(
        value
            .get("targetNames")?
            .as_array()?
            .iter()
            .map(|n| n.as_str().unwrap_or_default().to_owned())
            .collect(),
    )
}

/// What a material makes of its triangles.
struct Look {
    color: [f32; 3],
    style: DrawStyle,
    /// The scene texture and the texture coordinate set it samples.
    texture: Option<(u32, u32)>,
}

/// One build's running state.
struct Builder<'a> {
    file: &'a GltfFile,
    root: &'a json::Root,
    options: &'a SceneOptions,
    /// Which of `options.blend`'s names some mesh has.
    found: Vec<bool>,
    budget: Budget,
    tree: Tree,
    /// Per node, the morph target weights the clip drawn sets, if any.
    clip_weights: Vec<Option<Vec<f64>>>,
    /// Each skin's joint matrices (joint world times inverse bind), once read.
    skins: Vec<Option<Arc<Vec<DMat4>>>>,
    /// Decoded images by image index and alpha use: the scene texture, or none.
    decoded: Vec<((usize, bool), Option<u32>)>,
    texels: u64,
    shared: Option<&'a TextureCache>,
    scene: Scene,
}

/// A primitive's vertices once morphed: positions, normals and texture coordinates.
struct Vertices {
    positions: Vec<DVec3>,
    normals: Option<Vec<DVec3>>,
    uvs: Option<Vec<Vec2>>,
}

/// A primitive's vertices in world space, and whether its triangles turn their winding back.
struct Placed {
    positions: Vec<Vec3>,
    normals: Option<Vec<Vec3>>,
    flip: bool,
}

impl Builder<'_> {
    fn note(&mut self, pointer: &str, message: impl std::fmt::Display) {
        self.scene.notes.push(format!("{pointer}: {message}"));
    }

    /// Says how many of a primitive's placed vertices are not numbers (the rasterizer skips
    /// their triangles).
    fn note_non_finite(&mut self, at_p: &str, positions: &[Vec3]) {
        let bad = positions.iter().filter(|v| !v.is_finite()).count();
        if bad > 0 {
            self.note(
                &format!("{at_p}/attributes/POSITION"),
                format!(
                    "{bad} of {} vertices are not finite numbers; triangles using them are not drawn",
                    positions.len()
                ),
            );
        }
    }

    fn add_node(&mut self, n: usize) -> Result<(), GltfError> {
        let node = &self.root.nodes[n];
        let Some(m) = node.mesh.map(|m| m.value()) else {
            return Ok(());
        };
        let mesh = &self.root.meshes[m];
        let weights = self.weights(n, m)?;
        let skin = match node.skin {
            Some(s) => Some(self.joint_matrices(s.value())?),
            None => None,
        };
        for p in 0..mesh.primitives.len() {
            self.add_primitive(n, m, p, &weights, skin.as_ref().map(|s| s.as_slice()))?;
        }
        Ok(())
    }

    /// The morph target weights of mesh `m` on node `n`: the node's, else the mesh's, else
    /// zeros, then `options.blend` by target name.
    fn weights(&mut self, n: usize, m: usize) -> Result<Vec<f64>, GltfError> {
        let mesh = &self.root.meshes[m];
        let targets = mesh
            .primitives
            .first()
            .map_or(0, |p| p.targets.as_ref().map_or(0, Vec::len));
        for (p, primitive) in mesh.primitives.iter().enumerate() {
            let here = primitive.targets.as_ref().map_or(0, Vec::len);
            if here != targets {
                return Err(at(
                    format!("/meshes/{m}/primitives/{p}/targets"),
                    GltfErrorKind::Data(format!(
                        "{here} morph targets where primitive 0 has {targets}: every primitive of a mesh has the same"
                    )),
                ));
            }
        }
        let (given, pointer) = match (&self.root.nodes[n].weights, &mesh.weights) {
            (Some(w), _) => (Some(w), format!("/nodes/{n}/weights")),
            (None, Some(w)) => (Some(w), format!("/meshes/{m}/weights")),
            (None, None) => (None, String::new()),
        };
        let mut weights = vec![0.0; targets];
        if let Some(given) = given {
            if given.len() != targets {
                return Err(at(
                    pointer,
                    GltfErrorKind::Data(format!(
                        "{} weights for {targets} morph targets",
                        given.len()
                    )),
                ));
            }
            weights = given.iter().map(|&w| f64::from(w)).collect();
        }
        if let Some(Some(sampled)) = self.clip_weights.get(n) {
            // The sampler had one weight per target of this node's mesh (checked there).
            weights.clone_from(sampled);
        }
        let names = target_names(&mesh.extras).unwrap_or_default();
        for (k, (name, amount)) in self.options.blend.iter().enumerate() {
            for (w, _) in weights
                .iter_mut()
                .zip(&names)
                .filter(|(_, target)| *target == name)
            {
                *w = *amount;
                self.found[k] = true;
            }
        }
        Ok(weights)
    }

    /// Skin `s`'s joint matrices: each joint's world matrix times its inverse bind matrix
    /// (identity when the skin has none).
    fn joint_matrices(&mut self, s: usize) -> Result<Arc<Vec<DMat4>>, GltfError> {
        if let Some(done) = &self.skins[s] {
            return Ok(Arc::clone(done));
        }
        let skin = &self.root.skins[s];
        let joints = skin.joints.len();
        let inverse_binds = match skin.inverse_bind_matrices {
            None => vec![DMat4::IDENTITY; joints],
            Some(a) => {
                let pointer = format!("/skins/{s}/inverseBindMatrices");
                let m = self.file.read_floats(a.value(), &mut self.budget)?;
                if m.width != 16 || m.count() < joints {
                    return Err(at(
                        pointer,
                        GltfErrorKind::Data(format!(
                            "{} elements of {} values for {joints} joints: one 4x4 matrix each",
                            m.count(),
                            m.width
                        )),
                    ));
                }
                m.values
                    .chunks_exact(16)
                    .map(|c| DMat4::from_cols_array(&std::array::from_fn(|i| f64::from(c[i]))))
                    .collect()
            }
        };
        let matrices: Vec<DMat4> = skin
            .joints
            .iter()
            .zip(inverse_binds)
            .map(|(j, ibm)| self.tree.world[j.value()] * ibm)
            .collect();
        let matrices = Arc::new(matrices);
        self.skins[s] = Some(Arc::clone(&matrices));
        Ok(matrices)
    }

    fn add_primitive(
        &mut self,
        n: usize,
        m: usize,
        p: usize,
        weights: &[f64],
        skin: Option<&[DMat4]>,
    ) -> Result<(), GltfError> {
        let primitive = &self.root.meshes[m].primitives[p];
        let at_p = format!("/meshes/{m}/primitives/{p}");
        let mode = match primitive.mode {
            Checked::Valid(mode @ (Mode::Triangles | Mode::TriangleStrip | Mode::TriangleFan)) => {
                mode
            }
            _ => {
                self.note(&format!("{at_p}/mode"), "points and lines are not drawn");
                return Ok(());
            }
        };
        let look = self.look(primitive.material.map(|i| i.value()));
        let vertices = self.vertices(m, p, weights, look.texture.map(|t| t.1))?;
        let count = vertices.positions.len();
        let corners = self.corners(m, p, count, mode)?;
        if self.scene.triangles.len() + corners.len() / 3 > MAX_TRIANGLES {
            return Err(at(
                at_p,
                GltfErrorKind::Data(format!("more than {MAX_TRIANGLES} triangles")),
            ));
        }
        let Placed {
            positions,
            normals,
            flip,
        } = match skin {
            Some(joints) => self.skinned(m, p, n, &vertices, joints)?,
            None => placed(&vertices, self.tree.world[n]),
        };
        self.note_non_finite(&at_p, &positions);
        self.scene.set_style(look.style);
        for corner in corners.chunks_exact(3) {
            let mut c = [corner[0] as usize, corner[1] as usize, corner[2] as usize];
            if flip {
                c.swap(1, 2);
            }
            self.scene.triangles.push(Triangle {
                corners: c.map(|i| positions[i]),
                normals: normals.as_ref().map(|n| c.map(|i| n[i])),
                color: look.color,
                texture: look
                    .texture
                    .zip(vertices.uvs.as_ref())
                    .map(|((id, _), uv)| (id, c.map(|i| uv[i]))),
            });
        }
        Ok(())
    }

    /// Accessor `index` as 3-vectors, `count` of them when given.
    fn vec3s(
        &mut self,
        index: usize,
        count: Option<usize>,
        pointer: &str,
        what: &str,
    ) -> Result<Vec<DVec3>, GltfError> {
        let e = self.file.read_floats(index, &mut self.budget)?;
        if e.width != 3 {
            return Err(at(
                pointer,
                GltfErrorKind::Data(format!("{what} must be VEC3, not {} values each", e.width)),
            ));
        }
        if let Some(count) = count.filter(|&c| c != e.count()) {
            return Err(at(
                pointer,
                GltfErrorKind::Data(format!("{} {what} for {count} vertices", e.count())),
            ));
        }
        Ok(e.values
            .chunks_exact(3)
            .map(|v| DVec3::new(f64::from(v[0]), f64::from(v[1]), f64::from(v[2])))
            .collect())
    }

    /// A primitive's positions and normals with its morph targets applied at `weights`, and
    /// texture coordinate set `uv_set` when a texture samples it.
    fn vertices(
        &mut self,
        m: usize,
        p: usize,
        weights: &[f64],
        uv_set: Option<u32>,
    ) -> Result<Vertices, GltfError> {
        let primitive = &self.root.meshes[m].primitives[p];
        let at_p = format!("/meshes/{m}/primitives/{p}");
        let attribute = |s: Semantic| {
            primitive
                .attributes
                .get(&Checked::Valid(s))
                .map(|i| i.value())
        };
        let Some(position) = attribute(Semantic::Positions) else {
            return Err(at(
                format!("{at_p}/attributes"),
                GltfErrorKind::Invalid("a primitive needs POSITION".into()),
            ));
        };
        let mut positions = self.vec3s(
            position,
            None,
            &format!("{at_p}/attributes/POSITION"),
            "positions",
        )?;
        let count = positions.len();
        let mut normals = match attribute(Semantic::Normals) {
            Some(a) => Some(self.vec3s(
                a,
                Some(count),
                &format!("{at_p}/attributes/NORMAL"),
                "normals",
            )?),
            None => None,
        };
        self.morph(m, p, weights, &mut positions, normals.as_mut())?;
        let uvs = match uv_set.and_then(|s| attribute(Semantic::TexCoords(s)).map(|a| (s, a))) {
            Some((s, a)) => Some(self.uvs(a, count, &format!("{at_p}/attributes/TEXCOORD_{s}"))?),
            None => None,
        };
        Ok(Vertices {
            positions,
            normals,
            uvs,
        })
    }

    /// Morph targets of primitive `p` of mesh `m` added to `positions` and `normals` at
    /// `weights`; every target's counts checked whatever its weight.
    fn morph(
        &mut self,
        m: usize,
        p: usize,
        weights: &[f64],
        positions: &mut [DVec3],
        mut normals: Option<&mut Vec<DVec3>>,
    ) -> Result<(), GltfError> {
        let count = positions.len();
        let targets = self.root.meshes[m].primitives[p].targets.iter().flatten();
        for (t, target) in targets.enumerate() {
            let weight = weights.get(t).copied().unwrap_or(0.0);
            let moves = [("POSITION", target.positions), ("NORMAL", target.normals)];
            for (name, accessor) in moves {
                let Some(a) = accessor.map(|a| a.value()) else {
                    continue;
                };
                let pointer = format!("/meshes/{m}/primitives/{p}/targets/{t}/{name}");
                let moved = self.root.accessors[a].count.0;
                if moved != count as u64 {
                    return Err(at(
                        pointer,
                        GltfErrorKind::Data(format!(
                            "the morph target has {moved} displacements for the primitive's {count} vertices"
                        )),
                    ));
                }
                if weight == 0.0 || !weight.is_finite() {
                    continue;
                }
                let deltas = self.vec3s(a, Some(count), &pointer, "displacements")?;
                let into: Option<&mut [DVec3]> = match name {
                    "POSITION" => Some(&mut *positions),
                    _ => normals.as_deref_mut().map(Vec::as_mut_slice),
                };
                for (v, d) in into.into_iter().flat_map(|v| v.iter_mut().zip(&deltas)) {
                    *v += *d * weight;
                }
            }
        }
        Ok(())
    }

    /// Accessor `a` as `count` texture coordinates.
    fn uvs(&mut self, a: usize, count: usize, pointer: &str) -> Result<Vec<Vec2>, GltfError> {
        let e = self.file.read_floats(a, &mut self.budget)?;
        if e.width != 2 || e.count() != count {
            return Err(at(
                pointer,
                GltfErrorKind::Data(format!(
                    "{} texture coordinates of {} values for {count} vertices (VEC2 each)",
                    e.count(),
                    e.width
                )),
            ));
        }
        Ok(e.values
            .chunks_exact(2)
            .map(|c| Vec2::new(c[0], c[1]))
            .collect())
    }

    /// The corners of a primitive's triangles (vertex indices, three a triangle) by its mode,
    /// every index checked against the vertex count.
    fn corners(
        &mut self,
        m: usize,
        p: usize,
        count: usize,
        mode: Mode,
    ) -> Result<Vec<u32>, GltfError> {
        let primitive = &self.root.meshes[m].primitives[p];
        let at_p = format!("/meshes/{m}/primitives/{p}");
        let list: Vec<u32> = match primitive.indices {
            Some(a) => {
                let e = self.file.read_integers(a.value(), &mut self.budget)?;
                if e.width != 1 {
                    return Err(at(
                        format!("{at_p}/indices"),
                        GltfErrorKind::Data("indices must be SCALAR".into()),
                    ));
                }
                if let Some((k, i)) = e
                    .values
                    .iter()
                    .enumerate()
                    .find(|&(_, &i)| i as usize >= count)
                {
                    return Err(at(
                        format!("{at_p}/indices"),
                        GltfErrorKind::Data(format!(
                            "index {k} is {i}, past the primitive's {count} vertices"
                        )),
                    ));
                }
                e.values
            }
            None => (0..u32::try_from(count).unwrap_or(u32::MAX)).collect(),
        };
        let n = list.len();
        Ok(match mode {
            Mode::TriangleStrip => (0..n.saturating_sub(2))
                .flat_map(|i| {
                    let odd = i % 2;
                    [list[i], list[i + 1 + odd], list[i + 2 - odd]]
                })
                .collect(),
            Mode::TriangleFan => (1..n.saturating_sub(1))
                .flat_map(|i| [list[i], list[i + 1], list[0]])
                .collect(),
            _ => {
                if n % 3 != 0 {
                    return Err(at(
                        at_p,
                        GltfErrorKind::Data(format!("{n} corners are not whole triangles")),
                    ));
                }
                list
            }
        })
    }

    /// Linear blend skinning: each vertex by the weighted sum of its joints' matrices (the
    /// weights scaled to add up to 1; the node's own matrix for a vertex with no weight).
    fn skinned(
        &mut self,
        m: usize,
        p: usize,
        n: usize,
        vertices: &Vertices,
        joints: &[DMat4],
    ) -> Result<Placed, GltfError> {
        let count = vertices.positions.len();
        let blend = self.blend_matrices(m, p, count, joints)?;
        let node = self.tree.world[n];
        let mut positions = Vec::with_capacity(count);
        let mut normals = vertices.normals.as_ref().map(|_| Vec::with_capacity(count));
        for (v, (matrix, sum)) in blend.into_iter().enumerate() {
            let matrix = if sum > 0.0 && sum.is_finite() {
                matrix * (1.0 / sum)
            } else {
                node
            };
            positions.push(matrix.transform_point3(vertices.positions[v]).as_vec3());
            if let (Some(out), Some(given)) = (normals.as_mut(), &vertices.normals) {
                out.push(normal_through(
                    DMat3::from_mat4(matrix).inverse().transpose(),
                    given[v],
                ));
            }
        }
        Ok(Placed {
            positions,
            normals,
            flip: false,
        })
    }

    /// Each vertex's joint matrices weighted by its `JOINTS_n`/`WEIGHTS_n` sets, summed, and
    /// the sum of its weights.
    fn blend_matrices(
        &mut self,
        m: usize,
        p: usize,
        count: usize,
        joints: &[DMat4],
    ) -> Result<Vec<(DMat4, f64)>, GltfError> {
        let primitive = &self.root.meshes[m].primitives[p];
        let at_p = format!("/meshes/{m}/primitives/{p}/attributes");
        let mut blend = vec![(DMat4::ZERO, 0.0f64); count];
        for set in 0.. {
            let attribute = |s: Semantic| {
                primitive
                    .attributes
                    .get(&Checked::Valid(s))
                    .map(|i| i.value())
            };
            let (Some(j), Some(w)) = (
                attribute(Semantic::Joints(set)),
                attribute(Semantic::Weights(set)),
            ) else {
                break;
            };
            let ids = self.file.read_integers(j, &mut self.budget)?;
            let amounts = self.file.read_floats(w, &mut self.budget)?;
            if ids.width != 4
                || amounts.width != 4
                || ids.count() != count
                || amounts.count() != count
            {
                return Err(at(
                    format!("{at_p}/JOINTS_{set}"),
                    GltfErrorKind::Data(format!(
                        "{} joints and {} weights for {count} vertices (VEC4 each)",
                        ids.count(),
                        amounts.count()
                    )),
                ));
            }
            accumulate(&mut blend, &ids.values, &amounts.values, joints).map_err(|id| {
                at(
                    format!("{at_p}/JOINTS_{set}"),
                    GltfErrorKind::Data(format!(
                        "joint {id} is past the skin's {} joints",
                        joints.len()
                    )),
                )
            })?;
        }
        Ok(blend)
    }

    /// How material `material` draws: glTF's default material when there is none.
    fn look(&mut self, material: Option<usize>) -> Look {
        let Some(i) = material else {
            return Look {
                color: [1.0; 3],
                style: DrawStyle {
                    backface_cull: true,
                    ..DrawStyle::default()
                },
                texture: None,
            };
        };
        let material = &self.root.materials[i];
        let [r, g, b, a] = material.pbr_metallic_roughness.base_color_factor.0;
        let clamp = |c: f32| {
            if c.is_finite() {
                c.clamp(0.0, 16.0)
            } else {
                1.0
            }
        };
        let render = material
            .extras
            .as_ref()
            .and_then(|e| serde_json::from_str::<Value>(e.get()).ok())
            .and_then(|e| e.get("render").cloned());
        let hint = |key: &str| render.as_ref().and_then(|r| r.get(key)).cloned();
        let draw_order = hint("drawOrder").and_then(|o| o.as_i64()).map_or(0, |o| {
            o.clamp(i64::from(i32::MIN), i64::from(i32::MAX)) as i32
        });
        let coverage = hint("alphaToCoverage").and_then(|c| c.as_bool()) == Some(true);
        let mode = match material.alpha_mode {
            Checked::Valid(mode) => mode,
            Checked::Invalid => json::material::AlphaMode::Opaque,
        };
        let style = material_style(
            mode,
            a,
            material.alpha_cutoff.map(|c| c.0),
            coverage,
            draw_order,
            material.double_sided,
        );
        let uses_alpha = mode != json::material::AlphaMode::Opaque;
        let base = material.pbr_metallic_roughness.base_color_texture.as_ref();
        let (texture, tint) = self.base_color_texture(base, uses_alpha);
        Look {
            color: [clamp(r) * tint[0], clamp(g) * tint[1], clamp(b) * tint[2]],
            style,
            texture,
        }
    }

    /// A material's base-colour texture (`info`): its scene texture and coordinate set when its
    /// image is drawn, and what multiplies the factor: white, or, when the image is not drawn,
    /// the texture's placeholder (texture.md's rule, as G4MF scenes draw it; our writer keeps
    /// it in the texture's extras).
    fn base_color_texture(
        &mut self,
        info: Option<&json::texture::Info>,
        uses_alpha: bool,
    ) -> (Option<(u32, u32)>, [f32; 3]) {
        let Some(info) = info else {
            return (None, [1.0; 3]);
        };
        let texture = &self.root.textures[info.index.value()];
        let placeholder = placeholder(texture);
        let image = texture.source.value();
        let drawn = if self.options.no_textures {
            None
        } else {
            self.texture(image, uses_alpha, placeholder.is_some())
        };
        match drawn {
            Some(id) => (Some((id, info.tex_coord)), [1.0; 3]),
            None => (None, placeholder.unwrap_or([1.0; 3])),
        }
    }

    /// Image `image` decoded for sampling (once per scene, and through the shared cache when
    /// there is one), or `None` with a note saying why it is drawn with its colour alone
    /// (times its texture's placeholder when it `has_placeholder`).
    fn texture(&mut self, image: usize, uses_alpha: bool, has_placeholder: bool) -> Option<u32> {
        let instead = if has_placeholder {
            "drawn in its texture's placeholder colour"
        } else {
            "drawn with the material's colour"
        };
        if let Some(&(_, found)) = self.decoded.iter().find(|(k, _)| *k == (image, uses_alpha)) {
            return found;
        }
        let decoded = match self.file.image_bytes(image) {
            Err(e) => {
                // The error says where (the image's URI or view).
                self.scene.notes.push(format!("{e}; {instead}"));
                None
            }
            Ok(bytes) => {
                let decoded = match self.shared {
                    Some(shared) => shared.get(&bytes, uses_alpha),
                    None => decode_image(&bytes, uses_alpha, None).map(Arc::new),
                };
                if decoded.is_none() {
                    self.note(
                        &format!("/images/{image}"),
                        format!(
                            "not a PNG or JPEG image of at most {MAX_TEXELS} texels; {instead}"
                        ),
                    );
                }
                decoded
            }
        };
        let found = decoded.and_then(|t| {
            let texels = u64::from(t.width) * u64::from(t.height);
            if self.texels + texels > MAX_SCENE_TEXELS {
                self.note(
                    &format!("/images/{image}"),
                    format!("the scene's textures would hold more than {MAX_SCENE_TEXELS} texels; {instead}"),
                );
                return None;
            }
            self.texels += texels;
            self.scene.textures.push(t);
            Some((self.scene.textures.len() - 1) as u32)
        });
        self.decoded.push(((image, uses_alpha), found));
        found
    }

    /// Each skin's joints as bones (once each): from the joint's world position along its
    /// +Y axis, as long as the distance to its first child joint, else a tenth of its parent
    /// joint's, else [`LONE_BONE_LENGTH`].
    fn add_bones(&mut self) {
        let n = self.root.nodes.len();
        let mut done = vec![false; n];
        for skin in &self.root.skins {
            let mut is_joint = vec![false; n];
            for j in &skin.joints {
                is_joint[j.value()] = true;
            }
            let head = |i: usize| self.tree.world[i].w_axis.truncate();
            let to_child = |i: usize| {
                self.root.nodes[i]
                    .children
                    .iter()
                    .flatten()
                    .map(|c| c.value())
                    .find(|&c| is_joint[c])
                    .map(|c| head(c).distance(head(i)))
            };
            for j in skin.joints.iter().map(|j| j.value()) {
                if std::mem::replace(&mut done[j], true) {
                    continue;
                }
                let length = to_child(j)
                    .or_else(|| {
                        let parent = self.tree.parent[j].filter(|&p| is_joint[p])?;
                        to_child(parent).map(|l| l / 10.0)
                    })
                    .unwrap_or(LONE_BONE_LENGTH);
                let axis = self.tree.world[j].y_axis.truncate().normalize_or_zero();
                self.scene.bones.push(BoneSegment {
                    name: self.root.nodes[j].name.clone().unwrap_or_default(),
                    head: head(j).as_vec3(),
                    tail: (head(j) + axis * length).as_vec3(),
                });
            }
        }
    }
}

/// Adds each vertex's four joint matrices times their weights (`ids` and `amounts`, four a
/// vertex) to its sum, and the weights to their sum; a joint past `joints` is the error.
fn accumulate(
    blend: &mut [(DMat4, f64)],
    ids: &[u32],
    amounts: &[f32],
    joints: &[DMat4],
) -> Result<(), u32> {
    let vertices = ids.chunks_exact(4).zip(amounts.chunks_exact(4));
    for ((matrix, sum), (ids, amounts)) in blend.iter_mut().zip(vertices) {
        for (&id, &amount) in ids.iter().zip(amounts).filter(|(_, a)| **a != 0.0) {
            let joint = joints.get(id as usize).ok_or(id)?;
            *matrix += *joint * f64::from(amount);
            *sum += f64::from(amount);
        }
    }
    Ok(())
}

/// The draw style of a glTF material: `OPAQUE` ignores alpha, `MASK` cuts out below its
/// cutoff (0.5 by default), `BLEND` blends, and either of the last two takes alpha as
/// coverage when the material's `extras.render.alphaToCoverage` says so (as MakeHuman's
/// hair does); `doubleSided` false culls back faces, as glTF asks.
fn material_style(
    mode: json::material::AlphaMode,
    alpha: f32,
    cutoff: Option<f32>,
    coverage: bool,
    draw_order: i32,
    double_sided: bool,
) -> DrawStyle {
    use crate::scene::AlphaMode as Drawn;
    use json::material::AlphaMode;
    let alpha = if alpha.is_finite() {
        alpha.clamp(0.0, 1.0)
    } else {
        1.0
    };
    let (mode, alpha) = match mode {
        AlphaMode::Opaque => (Drawn::Opaque, 1.0),
        _ if coverage => (Drawn::Coverage, alpha),
        AlphaMode::Mask => (Drawn::Opaque, alpha),
        AlphaMode::Blend => (Drawn::Blend, alpha),
    };
    DrawStyle {
        mode,
        alpha,
        draw_order,
        backface_cull: !double_sided,
        cutoff: cutoff.filter(|c| c.is_finite()).unwrap_or(0.5),
    }
}

/// Positions and normals placed by a node's world matrix; whether the matrix mirrors (so
/// triangles turn their winding back, as glTF asks).
fn placed(vertices: &Vertices, world: DMat4) -> Placed {
    let basis = DMat3::from_mat4(world);
    let turn = basis.inverse().transpose();
    let positions = vertices
        .positions
        .iter()
        .map(|&v| world.transform_point3(v).as_vec3())
        .collect();
    let normals = vertices
        .normals
        .as_ref()
        .map(|n| n.iter().map(|&v| normal_through(turn, v)).collect());
    Placed {
        positions,
        normals,
        flip: basis.determinant() < 0.0,
    }
}

/// A normal turned by `turn`, the inverse transpose of the basis that places its vertex (which
/// may scale unevenly), unit.
fn normal_through(turn: DMat3, normal: DVec3) -> Vec3 {
    (turn * normal).normalize_or_zero().as_vec3()
}

/// A texture's placeholder as linear RGB, from its `extras.placeholder` as our writer keeps
/// it; `None` when it has none.
fn placeholder(texture: &json::Texture) -> Option<[f32; 3]> {
    let extras: Value = serde_json::from_str(texture.extras.as_ref()?.get()).ok()?;
    crate::scene::placeholder_rgb(extras.get("placeholder")?)
}
