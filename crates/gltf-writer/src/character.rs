//! The character as a glTF document: a skeleton node (at the origin; its root bones carry the
//! spec's skeleton position) with a node per bone (translation and rotation relative to its
//! parent, G4MF's names), one skin
//! over every skinned mesh (all bones as joints, inverse bind matrices from the rest), and a
//! node per mesh at the scene's root (glTF ignores a skinned mesh's parent transforms, and
//! the validator warns about them), each mesh a primitive per surface sharing one set of
//! vertex attributes and morph targets.
//!
//! Node order: the skeleton, the bones depth-first in spec order (parents first), the body's
//! mesh node, then the attachments' in their drawing order. Names are claimed in the order
//! the G4MF writer claims them (the character, its skeleton, the bones, the body, its mesh,
//! its surfaces, its materials and textures, then each attachment), so both formats give an
//! item the same name.

use crate::buffer::{BufferBuilder, Encoded, index_of};
use crate::error::GltfError;
use crate::materials::{Materials, raw};
use crate::shapes::{TargetData, position_target};
use crate::skin::{SkinSets, skin_sets};
use crate::vertices::{Split, split};
use character_spec::{BoneSpec, CharacterSpec, Influences, MeshSpec, NameRegistry};
use glam::{DMat3, DMat4, DQuat, DVec3};
use gltf_json::accessor::Type;
use gltf_json::buffer::{Buffer, Target};
use gltf_json::mesh::{Mode, MorphTarget, Primitive, Semantic};
use gltf_json::scene::UnitQuaternion;
use gltf_json::validation::{Checked, USize64};
use gltf_json::{Accessor, Index, Mesh, Node, Root, Scene, Skin};
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::sync::Arc;

/// The most joints a glTF skin addresses (16-bit `JOINTS_n`).
pub const MAX_JOINTS: usize = u16::MAX as usize;

/// Choices a caller can make about the glTF layout.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GltfOptions {
    /// Influences kept per vertex (the strongest, renormalised): four make one
    /// `JOINTS_0`/`WEIGHTS_0` set, which every client reads; more make further sets.
    pub max_influences: usize,
}

impl Default for GltfOptions {
    fn default() -> Self {
        Self { max_influences: 4 }
    }
}

/// What was written of one mesh: where it is in the document and what became of its skin.
///
/// Its morph targets are its spec's blend shapes one for one, in spec order (a shape that
/// moves nothing is a target of zeros), so morph target `i` is `MeshSpec::blend_shapes[i]`:
/// what a caller binding targets by shape name (`vrm-writer`'s expressions) relies on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct WrittenMesh {
    /// The glTF node holding the mesh (at the scene's root).
    pub node: u32,
    /// The glTF mesh.
    pub mesh: u32,
    /// glTF vertices (source vertices split at texture seams).
    pub vertices: usize,
    /// Sets of four joints and weights per vertex (0: not skinned).
    pub influence_sets: usize,
    /// Source vertices no bone moves, given to the root bone with weight 1.
    pub given_to_root: usize,
    /// Influences dropped beyond [`GltfOptions::max_influences`].
    pub influences_dropped: usize,
    /// The most influences one vertex keeps.
    pub max_influences: usize,
    /// Vertices whose faces gave them tangents of both handednesses (one was kept).
    pub tangent_conflicts: usize,
}

/// A built glTF character: the document, its one buffer, and what was written.
#[derive(Debug, Clone)]
pub struct BuiltGltf {
    /// The document (its buffer declared without a URI: the container says where it is).
    pub root: Root,
    /// Buffer 0's bytes.
    pub buffer: Vec<u8>,
    /// The body's mesh (when the spec has one), then each attachment's.
    pub meshes: Vec<WrittenMesh>,
    /// The glTF node of each spec bone (`bone_nodes[b]` is `CharacterSpec::bones[b]`'s);
    /// empty without bones.
    pub bone_nodes: Vec<u32>,
    /// Textures whose image is missing: left out, their placeholders in the factors.
    pub folded_textures: usize,
}

impl BuiltGltf {
    /// Declares the buffer of `length` bytes (when there is one) with `uri`.
    pub(crate) fn declare_buffer(&mut self, length: usize, uri: Option<String>) {
        self.root.buffers.clear();
        if length == 0 {
            return;
        }
        self.root.buffers.push(Buffer {
            byte_length: USize64(length as u64),
            name: None,
            uri,
            extensions: None,
            extras: Default::default(),
        });
        for view in &mut self.root.buffer_views {
            view.buffer = Index::new(0);
        }
    }
}

/// Depth-first pre-order of bones (`character_spec::bone_order`), as this writer's error.
fn bone_order(bones: &[BoneSpec]) -> Result<Vec<usize>, GltfError> {
    character_spec::bone_order(bones).map_err(|e| GltfError::BadBone {
        bone: e.bone,
        name: bones[e.bone].name.clone(),
        problem: e.problem,
    })
}

/// A bone's rest basis as a rotation, refused when it is not one (within float rounding).
fn rotation_of(i: usize, bone: &BoneSpec) -> Result<DQuat, GltfError> {
    let bad = |problem: String| GltfError::BadBone {
        bone: i,
        name: bone.name.clone(),
        problem,
    };
    let numbers = bone
        .head
        .to_array()
        .into_iter()
        .chain(bone.basis.to_cols_array())
        .chain([bone.length]);
    if numbers.into_iter().any(|n| !n.is_finite()) {
        return Err(GltfError::NonFinite {
            what: format!("bone {i} (`{}`) transform or length", bone.name),
        });
    }
    let m = bone.basis;
    let orthonormal = (m.transpose() * m - DMat3::IDENTITY)
        .to_cols_array()
        .iter()
        .all(|d| d.abs() < 1e-6);
    if !orthonormal || m.determinant() < 0.0 {
        return Err(bad("its rest basis is not a rotation".into()));
    }
    Ok(DQuat::from_mat3(&m).normalize())
}

/// Builds the glTF document and buffer of a character.
pub fn build_gltf(spec: &CharacterSpec, options: &GltfOptions) -> Result<BuiltGltf, GltfError> {
    let (order, rotations) = checked_bones(spec)?;
    let mut building = Building {
        root: Root::default(),
        buffer: BufferBuilder::with_capacity(estimated_bytes(spec)),
        names: NameRegistry::new(),
    };
    building.root.asset.generator = Some(spec.generator.clone());
    building.root.asset.version = "2.0".into();
    // Names in the G4MF writer's order: the character (the scene here), its skeleton, bones.
    let scene_name = building.names.claim(&spec.name);
    let skeleton_name = building.names.claim(&format!("{}Skeleton", spec.name));
    let mut scene_nodes = Vec::new();
    let skeleton = if spec.bones.is_empty() {
        None
    } else {
        let skeleton = building.push_skeleton(spec, skeleton_name, &order, &rotations)?;
        scene_nodes.push(skeleton.node);
        Some(skeleton)
    };
    // Every texture's name now, as G4MF writes them all here (images written on first use).
    let texture_names = spec
        .textures
        .iter()
        .map(|t| building.names.claim(&t.name))
        .collect();
    let mut context = MeshContext {
        spec,
        skeleton: skeleton.as_ref(),
        materials: Materials::new(&spec.textures, texture_names),
        options,
    };
    let mut meshes = Vec::new();
    for job in mesh_jobs(spec)? {
        let (node, written) = building.push_mesh(&job, &mut context)?;
        scene_nodes.push(node);
        meshes.push(written);
    }
    building.root.scenes.push(Scene {
        extensions: None,
        extras: Default::default(),
        name: Some(scene_name),
        nodes: scene_nodes,
    });
    building.root.scene = Some(Index::new(0));
    let bone_nodes = skeleton.as_ref().map_or_else(Vec::new, |s| {
        s.node_of_bone.iter().map(|n| n.value() as u32).collect()
    });
    let mut built = BuiltGltf {
        root: building.root,
        buffer: building.buffer.into_bytes(),
        meshes,
        bone_nodes,
        folded_textures: context.materials.folded,
    };
    // Declared here so the document is whole; the container decides where it lives.
    let length = built.buffer.len();
    built.declare_buffer(length, None);
    Ok(built)
}

/// The bones' depth-first order and rest rotations, every bone checked, and the skeleton's
/// position finite.
fn checked_bones(spec: &CharacterSpec) -> Result<(Vec<usize>, Vec<DQuat>), GltfError> {
    if spec.bones.len() > MAX_JOINTS {
        return Err(GltfError::TooManyJoints(spec.bones.len()));
    }
    let order = bone_order(&spec.bones)?;
    let rotations = spec
        .bones
        .iter()
        .enumerate()
        .map(|(i, b)| rotation_of(i, b))
        .collect::<Result<Vec<_>, _>>()?;
    if !spec.skeleton_position.is_finite() {
        return Err(GltfError::NonFinite {
            what: "the skeleton position".into(),
        });
    }
    Ok((order, rotations))
}

/// One mesh to write: the body's or an attachment's, with its skin, names and extras.
struct MeshJob<'s> {
    mesh: &'s MeshSpec,
    influences: Option<&'s Influences>,
    names: MeshNames<'s>,
    node_extras: Option<&'s character_spec::Extras>,
    mesh_extras: Option<&'s Value>,
}

/// The body (when there is one), then each attachment in drawing order.
fn mesh_jobs(spec: &CharacterSpec) -> Result<Vec<MeshJob<'_>>, GltfError> {
    let mut jobs = Vec::with_capacity(spec.attachments.len() + 1);
    match &spec.mesh {
        Some(body) => jobs.push(MeshJob {
            mesh: body,
            influences: spec.influences.as_ref(),
            names: MeshNames {
                node: format!("{}Body", spec.name),
                mesh: format!("{}BodyMesh", spec.name),
                shape_prefix: None,
            },
            node_extras: None,
            mesh_extras: None,
        }),
        None if spec.influences.is_some() => {
            return Err(GltfError::BadMesh {
                mesh: spec.name.clone(),
                problem: "a skin needs a mesh".into(),
            });
        }
        None => {}
    }
    jobs.extend(spec.attachments.iter().map(|attachment| MeshJob {
        mesh: &attachment.mesh,
        influences: attachment.influences.as_ref(),
        names: MeshNames {
            node: attachment.name.clone(),
            mesh: format!("{}Mesh", attachment.name),
            shape_prefix: Some(attachment.name.as_str()),
        },
        node_extras: attachment.node_extras.as_ref(),
        mesh_extras: attachment.mesh_extras.as_ref(),
    }));
    Ok(jobs)
}

/// What every mesh of a document shares: the spec, the skeleton as written, the materials
/// written so far, the options.
struct MeshContext<'s> {
    spec: &'s CharacterSpec,
    skeleton: Option<&'s Skeleton>,
    materials: Materials<'s>,
    options: &'s GltfOptions,
}

/// A close estimate of the buffer's size (positions, normals, texture coordinates, a set of
/// joints and weights, triangles, shapes), so it is allocated once.
fn estimated_bytes(spec: &CharacterSpec) -> usize {
    spec.meshes()
        .map(|(mesh, _)| {
            let vertices = mesh.positions.len() * 11 / 10;
            let corners: usize = mesh
                .surfaces
                .specs()
                .iter()
                .flat_map(|s| &s.faces)
                .map(|f| f.vertices.len().saturating_sub(2) * 3)
                .sum();
            let shapes: usize = mesh
                .blend_shapes
                .iter()
                .map(|b| (b.offsets.len() + b.normal_offsets.len()) * 16)
                .sum();
            vertices * (12 + 12 + 8 + 4 + 16) + corners * 4 + shapes
        })
        .sum::<usize>()
        + spec.bones.len() * 64
}

/// The vertex attributes of a primitive, by semantic.
type Attributes = BTreeMap<Checked<Semantic>, Index<Accessor>>;

/// The names a mesh's node and mesh ask for, and the prefix G4MF gives its shapes' names.
struct MeshNames<'a> {
    node: String,
    mesh: String,
    shape_prefix: Option<&'a str>,
}

/// The skeleton as written: its node, the skin every skinned mesh shares (made on first use),
/// each spec bone's joint, and the root joint.
struct Skeleton {
    node: Index<Node>,
    node_of_bone: Vec<Index<Node>>,
    joints: Vec<Index<Node>>,
    joint_of_bone: Vec<u32>,
    root_joint: u32,
    inverse_binds: Vec<f32>,
    skin: std::cell::Cell<Option<Index<Skin>>>,
}

/// The document and buffer being built, and the names claimed so far.
struct Building {
    root: Root,
    buffer: BufferBuilder,
    names: NameRegistry,
}

impl Building {
    /// The skeleton node (at the origin) and a node per bone in `order`, each relative to its
    /// parent (root bones carry the skeleton's position); every bone is a joint, in node
    /// order.
    fn push_skeleton(
        &mut self,
        spec: &CharacterSpec,
        skeleton_name: String,
        order: &[usize],
        rotations: &[DQuat],
    ) -> Result<Skeleton, GltfError> {
        let node = index_of(self.root.nodes.len(), "nodes")?;
        let first_bone = self.root.nodes.len() + 1;
        let mut node_of_bone = vec![Index::new(0); spec.bones.len()];
        let mut joint_of_bone = vec![0u32; spec.bones.len()];
        for (position, &b) in order.iter().enumerate() {
            node_of_bone[b] = index_of(first_bone + position, "nodes")?;
            joint_of_bone[b] = position as u32;
        }
        let mut children_of: Vec<Vec<Index<Node>>> = vec![Vec::new(); spec.bones.len()];
        let mut roots = Vec::new();
        for &b in order {
            match spec.bones[b].parent {
                None => roots.push(node_of_bone[b]),
                Some(p) => children_of[p].push(node_of_bone[b]),
            }
        }
        // The skeleton node stays at the origin and the root bones carry its position:
        // Blender's importer takes inverse bind matrices as relative to the armature's root
        // node, so a translated skeleton node would lift its rest pose off the skinned mesh.
        self.root.nodes.push(Node {
            name: Some(skeleton_name),
            children: (!roots.is_empty()).then_some(roots),
            extras: crate::materials::raw_extras(spec.skeleton_extras.as_ref()),
            ..empty_node()
        });
        let mut inverse_binds = Vec::with_capacity(order.len() * 16);
        for &b in order {
            let children = std::mem::take(&mut children_of[b]);
            let world = self.push_bone(spec, b, rotations, children)?;
            inverse_binds.extend(world.inverse().to_cols_array().map(|c| c as f32));
        }
        let root_joint = order
            .iter()
            .position(|&b| spec.bones[b].parent.is_none())
            .unwrap_or(0) as u32;
        Ok(Skeleton {
            node,
            joints: order.iter().map(|&b| node_of_bone[b]).collect(),
            node_of_bone,
            joint_of_bone,
            root_joint,
            inverse_binds,
            skin: std::cell::Cell::new(None),
        })
    }

    /// Bone `b`'s node, its transform relative to its parent bone (roots: to the skeleton);
    /// returns its world rest matrix (the skeleton's position included).
    fn push_bone(
        &mut self,
        spec: &CharacterSpec,
        b: usize,
        rotations: &[DQuat],
        children: Vec<Index<Node>>,
    ) -> Result<DMat4, GltfError> {
        let bone = &spec.bones[b];
        let name = self.names.claim(&bone.name);
        let (local_position, local_rotation) = match bone.parent {
            None => (bone.head + spec.skeleton_position, rotations[b]),
            Some(p) => {
                let inverse = rotations[p].inverse();
                (
                    inverse * (bone.head - spec.bones[p].head),
                    (inverse * rotations[b]).normalize(),
                )
            }
        };
        self.root.nodes.push(Node {
            name: Some(name),
            children: Some(children).filter(|c| !c.is_empty()),
            translation: Some(local_position.as_vec3().to_array()),
            rotation: Some(UnitQuaternion(
                local_rotation.as_quat().normalize().to_array(),
            )),
            extras: raw(Some(&bone_extras(bone)))?,
            ..empty_node()
        });
        Ok(DMat4::from_rotation_translation(
            rotations[b],
            bone.head + spec.skeleton_position,
        ))
    }

    /// The one skin of the file, written when the first skinned mesh needs it.
    fn skin(
        &mut self,
        skeleton: &Skeleton,
        spec: &CharacterSpec,
    ) -> Result<Index<Skin>, GltfError> {
        if let Some(skin) = skeleton.skin.get() {
            return Ok(skin);
        }
        let matrices = Encoded::f32(&skeleton.inverse_binds, Type::Mat4, false);
        let inverse_bind_matrices = self.buffer.accessor(&mut self.root, &matrices, None)?;
        let index = index_of(self.root.skins.len(), "skins")?;
        self.root.skins.push(Skin {
            extensions: None,
            extras: Default::default(),
            inverse_bind_matrices: Some(inverse_bind_matrices),
            joints: skeleton.joints.clone(),
            name: Some(format!("{}Skin", spec.name)),
            skeleton: Some(skeleton.node),
        });
        skeleton.skin.set(Some(index));
        Ok(index)
    }

    /// A mesh (a primitive per surface over shared attributes and morph targets) and its node
    /// at the scene's root, skinned when it has influences.
    fn push_mesh(
        &mut self,
        job: &MeshJob<'_>,
        context: &mut MeshContext<'_>,
    ) -> Result<(Index<Node>, WrittenMesh), GltfError> {
        let node_name = self.names.claim(&job.names.node);
        let mesh_name = self.names.claim(&job.names.mesh);
        let split = split(&job.mesh.surfaces);
        check_faces(job.mesh, &split, &mesh_name)?;
        let mut written = WrittenMesh {
            vertices: split.len(),
            ..WrittenMesh::default()
        };
        let (mut attributes, has_normals) =
            self.vertex_attributes(job.mesh, &split, context, &mesh_name, &mut written)?;
        let skin = self.skin_of(
            job,
            &split,
            context,
            &mesh_name,
            &mut attributes,
            &mut written,
        )?;
        let targets = self.morph_targets(job.mesh, &split, has_normals)?;
        let primitives = self.primitives(job.mesh, &split, &attributes, &targets, context)?;
        if primitives.is_empty() {
            return Err(GltfError::BadMesh {
                mesh: mesh_name,
                problem: "a mesh needs at least one triangle".into(),
            });
        }
        let mesh_index = self.push_mesh_of(job, mesh_name, primitives)?;
        let node = index_of(self.root.nodes.len(), "nodes")?;
        written.node = node.value() as u32;
        written.mesh = mesh_index.value() as u32;
        self.root.nodes.push(Node {
            name: Some(node_name),
            mesh: Some(mesh_index),
            skin,
            extras: crate::materials::raw_extras(job.node_extras),
            ..empty_node()
        });
        Ok((node, written))
    }

    /// The mesh's skin when it has influences: its `JOINTS_n`/`WEIGHTS_n` sets added to the
    /// attributes, what was written counted, and the file's one skin.
    fn skin_of(
        &mut self,
        job: &MeshJob<'_>,
        split: &Arc<Split>,
        context: &MeshContext<'_>,
        mesh_name: &str,
        attributes: &mut Attributes,
        written: &mut WrittenMesh,
    ) -> Result<Option<Index<Skin>>, GltfError> {
        let Some(influences) = job.influences else {
            return Ok(None);
        };
        let Some(skeleton) = context.skeleton else {
            return Err(GltfError::BadInfluence {
                mesh: mesh_name.to_owned(),
                index: 0,
                problem: "a skin needs bones".into(),
            });
        };
        let sets = skin_sets(
            influences,
            split,
            &skeleton.joint_of_bone,
            skeleton.root_joint,
            context.options.max_influences.max(1),
            job.mesh.positions.len(),
            mesh_name,
        )?;
        self.push_skin_sets(&sets, attributes)?;
        written.influence_sets = sets.sets.len();
        written.given_to_root = sets.unweighted;
        written.influences_dropped = sets.dropped;
        written.max_influences = sets.max_kept;
        Ok(Some(self.skin(skeleton, context.spec)?))
    }

    /// The attributes every primitive of a mesh shares: positions (in the scene's space),
    /// normals, texture coordinates, and tangents when a material has a normal map; and
    /// whether the mesh has normals.
    fn vertex_attributes(
        &mut self,
        mesh: &MeshSpec,
        split: &Split,
        context: &MeshContext<'_>,
        mesh_name: &str,
        written: &mut WrittenMesh,
    ) -> Result<(Attributes, bool), GltfError> {
        let world = context.spec.skeleton_position;
        let positions = float32_positions(mesh, split, world, mesh_name)?;
        let normals = float32_normals(mesh, split, mesh_name)?;
        let mut attributes = BTreeMap::new();
        let mut add = |this: &mut Self, semantic, encoded: &Encoded| -> Result<(), GltfError> {
            let accessor =
                this.buffer
                    .accessor(&mut this.root, encoded, Some(Target::ArrayBuffer))?;
            attributes.insert(Checked::Valid(semantic), accessor);
            Ok(())
        };
        add(
            self,
            Semantic::Positions,
            &Encoded::f32(&positions, Type::Vec3, true),
        )?;
        if let Some(normals) = &normals {
            add(
                self,
                Semantic::Normals,
                &Encoded::f32(normals, Type::Vec3, false),
            )?;
        }
        let texcoords = split.texcoords(&mesh.texcoords);
        if let Some(texcoords) = &texcoords {
            add(self, Semantic::TexCoords(0), texcoords)?;
        }
        let needs_tangents = mesh.surfaces.specs().iter().any(|s| {
            s.material
                .as_deref()
                .is_some_and(|m| context.materials.has_normal_map(&mesh.materials, m))
        });
        if let (true, Some(normals), Some(texcoords)) = (needs_tangents, &normals, &texcoords) {
            let uv: Vec<f32> = texcoords
                .bytes
                .chunks_exact(4)
                .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                .collect();
            let (tangents, conflicts) = crate::tangents::tangents(split, &positions, normals, &uv);
            written.tangent_conflicts = conflicts;
            add(
                self,
                Semantic::Tangents,
                &Encoded::f32(&tangents, Type::Vec4, false),
            )?;
        }
        Ok((attributes, normals.is_some()))
    }

    /// A primitive per surface with triangles (materials written on first use), all over the
    /// same attributes and morph targets.
    fn primitives(
        &mut self,
        mesh: &MeshSpec,
        split: &Split,
        attributes: &Attributes,
        targets: &[MorphTarget],
        context: &mut MeshContext<'_>,
    ) -> Result<Vec<Primitive>, GltfError> {
        let mut primitives = Vec::with_capacity(split.triangles.len());
        for (surface, encoded) in mesh.surfaces.specs().iter().zip(&split.indices) {
            // Claimed in G4MF's order: the material on its first use, then the surface.
            let material = match &surface.material {
                None => None,
                Some(name) => Some(context.materials.material(
                    &mut self.root,
                    &mut self.buffer,
                    &mut self.names,
                    &mesh.materials,
                    name,
                )?),
            };
            let surface_name = surface.name.as_deref().map(|n| self.names.claim(n));
            if encoded.count == 0 {
                continue;
            }
            let indices =
                self.buffer
                    .accessor(&mut self.root, encoded, Some(Target::ElementArrayBuffer))?;
            primitives.push(Primitive {
                attributes: attributes.clone(),
                extensions: None,
                extras: raw(surface_name.map(|n| json!({ "name": n })).as_ref())?,
                indices: Some(indices),
                material,
                mode: Checked::Valid(Mode::Triangles),
                targets: (!targets.is_empty()).then(|| targets.to_vec()),
            });
        }
        Ok(primitives)
    }

    /// The mesh of `primitives`, with its morph targets' names and default weights; the
    /// names G4MF gives the shapes claimed too (glTF's target names are the plain ones, unique
    /// within the mesh), so later names come out as in G4MF.
    fn push_mesh_of(
        &mut self,
        job: &MeshJob<'_>,
        mesh_name: String,
        primitives: Vec<Primitive>,
    ) -> Result<Index<Mesh>, GltfError> {
        for shape in &job.mesh.blend_shapes {
            match job.names.shape_prefix {
                None => self.names.claim(&shape.name),
                Some(prefix) => self.names.claim(&format!("{prefix}_{}", shape.name)),
            };
        }
        let amounts: Vec<f32> = job
            .mesh
            .blend_shapes
            .iter()
            .map(|s| s.amount as f32)
            .collect();
        if amounts.iter().any(|a| !a.is_finite()) {
            return Err(GltfError::NonFinite {
                what: format!("{mesh_name}'s blend shape amounts"),
            });
        }
        let index = index_of(self.root.meshes.len(), "meshes")?;
        self.root.meshes.push(Mesh {
            extensions: None,
            extras: raw(Some(&mesh_extras_with_names(job.mesh, job.mesh_extras)))?,
            name: Some(mesh_name),
            primitives,
            weights: amounts.iter().any(|&a| a != 0.0).then_some(amounts),
        });
        Ok(index)
    }

    /// Each set's `JOINTS_n` and `WEIGHTS_n` accessors, added to the attributes.
    fn push_skin_sets(
        &mut self,
        sets: &SkinSets,
        attributes: &mut Attributes,
    ) -> Result<(), GltfError> {
        for (n, (joints, weights)) in sets.sets.iter().enumerate() {
            let n = n as u32;
            let j = self
                .buffer
                .accessor(&mut self.root, joints, Some(Target::ArrayBuffer))?;
            let w = self
                .buffer
                .accessor(&mut self.root, weights, Some(Target::ArrayBuffer))?;
            attributes.insert(Checked::Valid(Semantic::Joints(n)), j);
            attributes.insert(Checked::Valid(Semantic::Weights(n)), w);
        }
        Ok(())
    }

    /// One morph target per blend shape: its positions (shared data made once per offsets
    /// and split) and, when the mesh has normals, its normals' offsets.
    fn morph_targets(
        &mut self,
        mesh: &MeshSpec,
        split: &Arc<Split>,
        with_normals: bool,
    ) -> Result<Vec<MorphTarget>, GltfError> {
        let count = split.len();
        let mut targets = Vec::with_capacity(mesh.blend_shapes.len());
        for shape in &mesh.blend_shapes {
            if !shape.offsets.fits(mesh.positions.len()) {
                return Err(GltfError::BadMesh {
                    mesh: mesh_label(mesh),
                    problem: format!(
                        "blend shape {}: its vertices are not ascending, not finite, or beyond the mesh",
                        shape.name
                    ),
                });
            }
            let positions = position_target(&shape.offsets, split).write(
                &mut self.root,
                &mut self.buffer,
                count,
            )?;
            let normals = if with_normals && !shape.normal_offsets.is_empty() {
                check_normal_offsets(mesh, &shape.name, &shape.normal_offsets)?;
                Some(TargetData::of(&shape.normal_offsets, split).write(
                    &mut self.root,
                    &mut self.buffer,
                    count,
                )?)
            } else {
                None
            };
            targets.push(MorphTarget {
                positions: Some(positions),
                normals,
                tangents: None,
            });
        }
        Ok(targets)
    }
}

/// A label for a mesh in errors that come before its name is claimed.
fn mesh_label(mesh: &MeshSpec) -> String {
    format!("a mesh of {} vertices", mesh.positions.len())
}

/// A shape's normal offsets: ascending, in range, finite.
fn check_normal_offsets(
    mesh: &MeshSpec,
    shape: &str,
    pairs: &[(u32, DVec3)],
) -> Result<(), GltfError> {
    let ascending = pairs.windows(2).all(|w| w[0].0 < w[1].0);
    let in_range = pairs
        .last()
        .is_none_or(|p| (p.0 as usize) < mesh.positions.len());
    let finite = pairs
        .iter()
        .all(|(_, o)| o.is_finite() && o.as_vec3().is_finite());
    if ascending && in_range && finite {
        Ok(())
    } else {
        Err(GltfError::BadMesh {
            mesh: mesh_label(mesh),
            problem: format!(
                "blend shape {shape}'s normal offsets are not ascending, in range and finite"
            ),
        })
    }
}

/// A node with nothing set.
fn empty_node() -> Node {
    Node {
        camera: None,
        children: None,
        extensions: None,
        extras: Default::default(),
        matrix: None,
        mesh: None,
        name: None,
        rotation: None,
        scale: None,
        translation: None,
        skin: None,
        weights: None,
    }
}

/// A bone node's extras: the spec's, with the bone's length (glTF has no bone length; G4MF's
/// `bone.length`) added as `bone.length` when the extras have no `bone` of their own.
fn bone_extras(bone: &BoneSpec) -> Value {
    let mut extras = bone
        .extras
        .as_ref()
        .map_or_else(|| json!({}), character_spec::Extras::value);
    if let Some(object) = extras.as_object_mut() {
        object
            .entry("bone")
            .or_insert_with(|| json!({ "length": bone.length }));
    }
    extras
}

/// A mesh's extras: the caller's, with the morph targets' names as `targetNames` (the
/// convention three.js, Blender and Babylon.js read).
fn mesh_extras_with_names(mesh: &MeshSpec, extras: Option<&Value>) -> Value {
    let mut value = extras.cloned().unwrap_or_else(|| json!({}));
    if !mesh.blend_shapes.is_empty() {
        if let Some(object) = value.as_object_mut() {
            let mut names = NameRegistry::new();
            let target_names: Vec<String> = mesh
                .blend_shapes
                .iter()
                .map(|s| names.claim(&s.name))
                .collect();
            object.insert("targetNames".into(), json!(target_names));
        }
    }
    value
}

/// Every face's corners and texture coordinates in range, or the first problem.
fn check_faces(mesh: &MeshSpec, split: &Split, name: &str) -> Result<(), GltfError> {
    let bad = |problem: String| GltfError::BadMesh {
        mesh: name.to_owned(),
        problem,
    };
    if !split.well_formed {
        return Err(bad(
            "a face has fewer than three corners, or not one texture coordinate per corner".into(),
        ));
    }
    if let Some(v) = split
        .max_vertex
        .filter(|&v| v as usize >= mesh.positions.len())
    {
        return Err(bad(format!(
            "a face uses vertex {v}, beyond the mesh's {}",
            mesh.positions.len()
        )));
    }
    if let Some(t) = split
        .max_texcoord
        .filter(|&t| t as usize >= mesh.texcoords.len())
    {
        return Err(bad(format!(
            "a face uses texture coordinate {t}, which does not exist"
        )));
    }
    if mesh.texcoords.iter().flatten().any(|c| !c.is_finite()) {
        return Err(GltfError::NonFinite {
            what: format!("{name}'s texture coordinates"),
        });
    }
    Ok(())
}

/// The glTF vertices' positions in the scene (the skeleton's position added: skinned meshes
/// sit at the scene's root), float32, each finite.
fn float32_positions(
    mesh: &MeshSpec,
    split: &Split,
    offset: DVec3,
    name: &str,
) -> Result<Vec<f32>, GltfError> {
    let mut out = Vec::with_capacity(split.len() * 3);
    for &s in &split.source {
        let p = (mesh.positions[s as usize] + offset).as_vec3();
        if !p.is_finite() {
            return Err(GltfError::NonFinite {
                what: format!("{name}'s vertex {s}"),
            });
        }
        out.extend_from_slice(&p.to_array());
    }
    Ok(out)
}

/// The glTF vertices' unit normals, float32 (`None`: flat shading).
fn float32_normals(
    mesh: &MeshSpec,
    split: &Split,
    name: &str,
) -> Result<Option<Vec<f32>>, GltfError> {
    let Some(normals) = &mesh.normals else {
        return Ok(None);
    };
    if normals.len() != mesh.positions.len() {
        return Err(GltfError::BadMesh {
            mesh: name.to_owned(),
            problem: format!(
                "{} normals for {} vertices",
                normals.len(),
                mesh.positions.len()
            ),
        });
    }
    let mut out = Vec::with_capacity(split.len() * 3);
    for &s in &split.source {
        let n = normals[s as usize]
            .try_normalize()
            .ok_or_else(|| GltfError::BadMesh {
                mesh: name.to_owned(),
                problem: format!("vertex {s}'s normal has no direction"),
            })?;
        out.extend_from_slice(&n.as_vec3().to_array());
    }
    Ok(Some(out))
}
