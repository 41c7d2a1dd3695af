//! The character layout: root node, skeleton node, bone nodes, joints, and a skinned mesh on a
//! direct child of the skeleton, with every ordering and naming rule of the spec enforced.
//!
//! Node order: 0 is the root (the character), 1 the skeleton, then bones depth-first in
//! input order (so parents precede children), then the mesh instance node. The skeleton's
//! children list the root bones first, so a single root bone is its first child, and `joints`
//! (ascending node indices) puts it first when it skins.

use crate::buffer::{BufferBuilder, IndexWidth, index_of};
use crate::error::WriteError;
use crate::prepared::{OrderedSkin, PreparedSurface, encoded_offsets, ordered, prepared};
pub use crate::skin::{WrittenSkin, order_skin};
use character_spec::{
    AttachmentSpec, BoneSpec, CharacterSpec, ImageSpec, Influences, MaterialSpec, MeshSpec,
    NameRegistry, SurfaceSpec, TextureSpec,
};
use g4mf_model::rules;
use g4mf_model::{
    AccessorIndex, Asset, Binding, Blend, BlendShape, BlendSurface, BlendTarget, Bone, Document,
    JointRef, Material, MaterialIndex, Mesh, MeshInstance, Node, NodeIndex, Skeleton, Skin,
    Surface,
};
use glam::{DMat3, DVec3};
use serde_json::Value;
use std::collections::HashMap;
use std::sync::Arc;

/// The `asset.specification` link: the spec revision this writer follows.
pub const SPECIFICATION: &str = "https://github.com/godot-dimensions/g4mf/tree/5c8fa5f";

/// Choices a caller can make about the G4MF layout (the spec itself is writer-neutral).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CharacterOptions {
    /// List every bone in `joints`, not only those carrying weights.
    pub all_joints: bool,
    /// Write `groupNames` (the spec lets writers omit them when they equal the joint names).
    pub group_names: bool,
    /// Width of index accessors.
    pub index_width: IndexWidth,
    /// Bytes the caller will append to the buffer after building (with
    /// [`BufferBuilder::resume`]), so the buffer is allocated once, not grown and copied.
    pub reserve_bytes: usize,
}

impl Default for CharacterOptions {
    fn default() -> Self {
        Self {
            all_joints: false,
            group_names: true,
            index_width: IndexWidth::Smallest,
            reserve_bytes: 0,
        }
    }
}

/// A built character: the document, its one buffer, and where things went.
#[derive(Debug, Clone, PartialEq)]
pub struct BuiltCharacter {
    /// The G4MF document (buffers not yet declared: the container does that).
    pub document: Document,
    /// Buffer 0's bytes.
    pub buffer: Vec<u8>,
    /// Node index of each input bone.
    pub bone_nodes: Vec<NodeIndex>,
    /// Input bone index of each joint, in `joints` order (= skin group index).
    pub joint_bones: Vec<usize>,
    /// The skin as written: (vertex, group, weight) in file order.
    pub skin: WrittenSkin,
    /// Each attachment's skin as written, in [`CharacterSpec::attachments`] order.
    pub attachment_skins: Vec<WrittenSkin>,
    /// Mesh index of each attachment, in [`CharacterSpec::attachments`] order.
    pub attachment_meshes: Vec<usize>,
}

/// Depth-first pre-order of bones (`character_spec::bone_order`), as this writer's error.
fn bone_order(bones: &[BoneSpec]) -> Result<Vec<usize>, WriteError> {
    character_spec::bone_order(bones).map_err(|e| WriteError::BadBone {
        bone: e.bone,
        name: bones[e.bone].name.clone(),
        problem: e.problem,
    })
}

/// A close upper estimate of the buffer a spec fills (float32 positions, normals and texture
/// coordinates; at most four-byte simplex corners, twice with texture maps; the skin's three
/// arrays; blend-shape offsets with their indices), so the buffer is allocated once. Only an
/// allocation size: untouched capacity costs no memory.
fn estimated_buffer_bytes(spec: &CharacterSpec) -> usize {
    let body = spec.mesh.as_ref().map_or(0, |mesh| {
        estimated_mesh_bytes(mesh, spec.influences.as_ref().map_or(0, |i| i.list().len()))
    });
    let attachments: usize = spec
        .attachments
        .iter()
        .map(|a| estimated_mesh_bytes(&a.mesh, a.influences.as_ref().map_or(0, |i| i.list().len())))
        .sum();
    body + attachments
}

/// [`estimated_buffer_bytes`] of one mesh with `influences` skin entries.
fn estimated_mesh_bytes(mesh: &MeshSpec, influences: usize) -> usize {
    let vertices = mesh.positions.len() * 12 * if mesh.normals.is_some() { 2 } else { 1 };
    let texcoords = mesh.texcoords.len() * 8;
    let corners: usize = mesh
        .surfaces
        .specs()
        .iter()
        .flat_map(|s| &s.faces)
        .map(|f| {
            f.vertices.len().saturating_sub(2) * 3 * 4 * if f.texcoords.is_some() { 2 } else { 1 }
        })
        .sum();
    let skin = influences * 12;
    let shapes: usize = mesh
        .blend_shapes
        .iter()
        .map(|b| (b.offsets.len() + b.normal_offsets.len()) * 16)
        .sum();
    // Alignment padding: a few bytes per view, a few views per surface and shape.
    let padding = 64 * (8 + mesh.surfaces.specs().len() * 4 + mesh.blend_shapes.len() * 4);
    vertices + texcoords + corners + skin + shapes + padding
}

fn finite(what: impl FnOnce() -> String, values: &[f64]) -> Result<(), WriteError> {
    if values.iter().all(|v| v.is_finite()) {
        Ok(())
    } else {
        Err(WriteError::NonFinite { what: what() })
    }
}

/// Column-major numbers of a basis.
fn basis_numbers(m: DMat3) -> Vec<f64> {
    m.to_cols_array().to_vec()
}

/// The influences checked against the mesh, on joints only (`group_of_bone`), in G4MF order
/// (checked and ordered once for every mesh that shares them with the same joints).
fn ordered_influences(
    influences: &Influences,
    mesh: &MeshSpec,
    group_of_bone: &[Option<u32>],
) -> Result<Arc<OrderedSkin>, WriteError> {
    let vertex_count = mesh.positions.len();
    let checked = influences.checked();
    let vertices_in_range = checked
        .max_vertex
        .is_none_or(|(v, _)| (v as usize) < vertex_count);
    if !vertices_in_range || checked.bad_weight.is_some() {
        // The first influence at fault, vertex before weight, as a plain scan finds it.
        for (index, influence) in influences.list().iter().enumerate() {
            if influence.vertex as usize >= vertex_count {
                return Err(WriteError::BadInfluence {
                    index,
                    problem: format!(
                        "vertex {} is beyond the mesh's {vertex_count}",
                        influence.vertex
                    ),
                });
            }
            if !influence.weight.is_finite() || influence.weight < 0.0 {
                return Err(WriteError::BadInfluence {
                    index,
                    problem: format!(
                        "weight {} is not a finite non-negative number",
                        influence.weight
                    ),
                });
            }
        }
    }
    Ok(ordered(influences, group_of_bone))
}

/// Builds the document and buffer of a character with the default layout options.
pub fn build_character(spec: &CharacterSpec) -> Result<BuiltCharacter, WriteError> {
    build_character_with(spec, &CharacterOptions::default())
}

/// Builds the document and buffer of a character with `options`' layout.
pub fn build_character_with(
    spec: &CharacterSpec,
    options: &CharacterOptions,
) -> Result<BuiltCharacter, WriteError> {
    let order = bone_order(&spec.bones)?;
    check_bones(spec)?;
    let layout = NodeLayout::of(spec, order)?;
    let mut building = Building::new(spec, options);
    // Names are claimed in node order, so the first claim of a name keeps it unchanged.
    let root_name = building.names.claim(&spec.name);
    let skeleton_name = building.names.claim(&format!("{}Skeleton", spec.name));
    let bone_names: Vec<String> = layout
        .order
        .iter()
        .map(|&b| building.names.claim(&spec.bones[b].name))
        .collect();
    let joints = Joints::of(spec, &layout.order, options.all_joints)?;
    push_root_and_skeleton(
        &mut building.doc,
        spec,
        &layout,
        &joints,
        root_name,
        skeleton_name,
    );
    push_bones(&mut building.doc, spec, &layout, bone_names);
    let group_names = options
        .group_names
        .then(|| joints.names(&building.doc, &layout));
    let skinning = Skinning {
        group_of_bone: &joints.group_of_bone,
        group_names: &group_names,
    };
    building.texture_base = write_textures(
        &mut building.doc,
        &mut building.buffer,
        &mut building.names,
        &spec.textures,
    )?;
    let skin = building.push_body(spec, &skinning)?;
    let mut attachment_skins = Vec::with_capacity(spec.attachments.len());
    let mut attachment_meshes = Vec::with_capacity(spec.attachments.len());
    for attachment in &spec.attachments {
        let (skin, mesh) = building.push_attachment(attachment, &skinning)?;
        attachment_skins.push(skin);
        attachment_meshes.push(mesh);
    }
    Ok(BuiltCharacter {
        document: building.doc,
        buffer: building.buffer.into_bytes(),
        bone_nodes: layout.bone_nodes,
        joint_bones: joints.bones,
        skin,
        attachment_skins,
        attachment_meshes,
    })
}

/// Every bone's transform and length finite, no length negative, the skeleton's position
/// finite.
fn check_bones(spec: &CharacterSpec) -> Result<(), WriteError> {
    for (i, bone) in spec.bones.iter().enumerate() {
        let mut numbers = bone.head.to_array().to_vec();
        numbers.extend(bone.basis.to_cols_array());
        numbers.push(bone.length);
        finite(
            || format!("bone {i} (`{}`) transform or length", bone.name),
            &numbers,
        )?;
        if bone.length < 0.0 {
            return Err(WriteError::BadBone {
                bone: i,
                name: bone.name.clone(),
                problem: format!("negative length {}", bone.length),
            });
        }
    }
    finite(
        || "the skeleton position".into(),
        &spec.skeleton_position.to_array(),
    )
}

/// Where the character's nodes go: 0 the root, 1 the skeleton, 2.. the bones in `order`, then
/// the body's mesh node (when there is a body), then the attachments' nodes.
struct NodeLayout {
    /// Bones depth-first ([`bone_order`]).
    order: Vec<usize>,
    /// Node of each input bone.
    bone_nodes: Vec<NodeIndex>,
    /// Node of the body's mesh instance (unused without a body).
    mesh_node: NodeIndex,
    /// Node of each attachment's mesh instance.
    attachment_nodes: Vec<NodeIndex>,
}

impl NodeLayout {
    fn of(spec: &CharacterSpec, order: Vec<usize>) -> Result<Self, WriteError> {
        let mut bone_nodes = vec![NodeIndex::new(0); spec.bones.len()];
        for (position, &bone) in order.iter().enumerate() {
            bone_nodes[bone] = index_of(position + 2, "nodes")?;
        }
        let mesh_node = index_of(spec.bones.len() + 2, "nodes")?;
        let first_attachment_node = spec.bones.len() + 2 + usize::from(spec.mesh.is_some());
        let attachment_nodes = (0..spec.attachments.len())
            .map(|a| index_of(first_attachment_node + a, "nodes"))
            .collect::<Result<Vec<NodeIndex>, WriteError>>()?;
        Ok(NodeLayout {
            order,
            bone_nodes,
            mesh_node,
            attachment_nodes,
        })
    }
}

/// The skeleton's joints: bones with weights (or all), ascending node index; a joint's skin
/// group is its position in `joints`. Every skinned mesh of the file uses the same joints and
/// group names (skeleton.md).
struct Joints {
    /// Input bone of each joint, in `joints` order.
    bones: Vec<usize>,
    /// Skin group of each input bone (`None`: not a joint).
    group_of_bone: Vec<Option<u32>>,
}

impl Joints {
    fn of(spec: &CharacterSpec, order: &[usize], all_joints: bool) -> Result<Self, WriteError> {
        let mut has_weight = vec![all_joints; spec.bones.len()];
        let all_influences = spec.influences.iter().chain(
            spec.attachments
                .iter()
                .filter_map(|a| a.influences.as_ref()),
        );
        for influences in all_influences {
            check_bone_indices(influences, spec.bones.len())?;
            for (has, named) in has_weight
                .iter_mut()
                .zip(influences.bones(spec.bones.len()))
            {
                *has |= named;
            }
        }
        let bones: Vec<usize> = order.iter().copied().filter(|&b| has_weight[b]).collect();
        let mut group_of_bone = vec![None; spec.bones.len()];
        for (group, &bone) in bones.iter().enumerate() {
            group_of_bone[bone] = Some(group as u32);
        }
        Ok(Joints {
            bones,
            group_of_bone,
        })
    }

    /// The skins' group names: the joint bones' node names, the same list for every skinned
    /// mesh.
    fn names(&self, doc: &Document, layout: &NodeLayout) -> Vec<String> {
        self.bones
            .iter()
            .map(|&b| {
                let node = &doc.nodes[layout.bone_nodes[b].get()];
                node.name.clone().unwrap_or_default()
            })
            .collect()
    }
}

/// The first influence naming a bone beyond `bones`, as a [`WriteError::BadInfluence`].
fn check_bone_indices(influences: &Influences, bones: usize) -> Result<(), WriteError> {
    if influences
        .checked()
        .max_bone
        .is_none_or(|(b, _)| (b as usize) < bones)
    {
        return Ok(());
    }
    let (index, influence) = influences
        .list()
        .iter()
        .enumerate()
        .find(|(_, i)| i.bone as usize >= bones)
        .ok_or_else(|| WriteError::TooLarge("a bone index".into()))?;
    Err(WriteError::BadInfluence {
        index,
        problem: format!("bone {} does not exist", influence.bone),
    })
}

/// The root node (the character) and the skeleton node: its root bones, then the mesh
/// instance nodes, as children.
fn push_root_and_skeleton(
    doc: &mut Document,
    spec: &CharacterSpec,
    layout: &NodeLayout,
    joints: &Joints,
    root_name: String,
    skeleton_name: String,
) {
    let mut skeleton_children: Vec<NodeIndex> = layout
        .order
        .iter()
        .filter(|&&b| spec.bones[b].parent.is_none())
        .map(|&b| layout.bone_nodes[b])
        .collect();
    if spec.mesh.is_some() {
        skeleton_children.push(layout.mesh_node);
    }
    skeleton_children.extend(layout.attachment_nodes.iter().copied());
    doc.nodes.push(Node {
        name: Some(root_name),
        children: vec![NodeIndex::new(1)],
        ..Node::default()
    });
    doc.nodes.push(Node {
        name: Some(skeleton_name),
        children: skeleton_children,
        position: (spec.skeleton_position != DVec3::ZERO)
            .then(|| spec.skeleton_position.to_array().to_vec()),
        skeleton: Some(Skeleton {
            joints: joints
                .bones
                .iter()
                .map(|&b| JointRef::Node(layout.bone_nodes[b]))
                .collect(),
            other: Default::default(),
        }),
        extras: spec.skeleton_extras.clone(),
        ..Node::default()
    });
}

/// The bone nodes in `layout.order`, transforms relative to the parent bone (roots: to the
/// skeleton).
fn push_bones(
    doc: &mut Document,
    spec: &CharacterSpec,
    layout: &NodeLayout,
    bone_names: Vec<String>,
) {
    // Each bone's children's nodes, in node order: one pass, so a long chain costs linear
    // time (a search per bone would be quadratic in bones).
    let mut children_of: Vec<Vec<NodeIndex>> = vec![Vec::new(); spec.bones.len()];
    for &c in &layout.order {
        if let Some(p) = spec.bones[c].parent {
            children_of[p].push(layout.bone_nodes[c]);
        }
    }
    for (&b, name) in layout.order.iter().zip(bone_names) {
        let bone = &spec.bones[b];
        let (local_position, local_basis) = match bone.parent {
            None => (bone.head, bone.basis),
            Some(p) => {
                // Parent bases are rotations: the inverse is the transpose.
                let inverse = spec.bones[p].basis.transpose();
                (
                    inverse * (bone.head - spec.bones[p].head),
                    inverse * bone.basis,
                )
            }
        };
        let children = std::mem::take(&mut children_of[b]);
        doc.nodes.push(Node {
            name: Some(name),
            children,
            position: Some(local_position.to_array().to_vec()),
            basis: Some(basis_numbers(local_basis)),
            bone: Some(Bone {
                length: Some(bone.length),
                ..Bone::default()
            }),
            extras: bone.extras.clone(),
            ..Node::default()
        });
    }
}

/// What every skin of the file shares: the joints' groups and their names.
struct Skinning<'a> {
    /// Skin group of each input bone (`None`: not a joint).
    group_of_bone: &'a [Option<u32>],
    /// The skins' `groupNames`, when written.
    group_names: &'a Option<Vec<String>>,
}

/// The document and buffer being built, with what its meshes share: the names claimed so far,
/// the materials written (by name), and where the spec's textures start in the document.
struct Building {
    doc: Document,
    buffer: BufferBuilder,
    names: NameRegistry,
    material_of_name: HashMap<String, usize>,
    texture_base: usize,
}

impl Building {
    /// An empty document with its `asset`, and a buffer sized for the whole spec.
    fn new(spec: &CharacterSpec, options: &CharacterOptions) -> Self {
        let doc = Document {
            asset: Asset {
                dimension: 3,
                generator: Some(spec.generator.clone()),
                specification: Some(SPECIFICATION.to_owned()),
                ..Asset::default()
            },
            ..Document::default()
        };
        let mut buffer = BufferBuilder::new(options.index_width);
        buffer.reserve(estimated_buffer_bytes(spec) + options.reserve_bytes);
        Building {
            doc,
            buffer,
            names: NameRegistry::new(),
            material_of_name: HashMap::new(),
            texture_base: 0,
        }
    }

    /// The body's mesh and its node, skinned when the spec has influences; returns the skin as
    /// written (empty without one).
    fn push_body(
        &mut self,
        spec: &CharacterSpec,
        skinning: &Skinning<'_>,
    ) -> Result<WrittenSkin, WriteError> {
        let Some(mesh) = &spec.mesh else {
            if spec.influences.is_some() {
                return Err(WriteError::BadInfluence {
                    index: 0,
                    problem: "a skin needs a mesh".into(),
                });
            }
            return Ok(Arc::default());
        };
        let node_name = self.names.claim(&format!("{}Body", spec.name));
        let mesh_name = self.names.claim(&format!("{}BodyMesh", spec.name));
        // The skin is checked and ordered on a second core while the mesh is built: they
        // share only the spec. Errors are reported mesh first, as a sequential build would.
        let (doc_mesh, ordered_skin) = rayon::join(
            || self.build_mesh(mesh, None),
            || {
                spec.influences
                    .as_ref()
                    .map(|influences| ordered_influences(influences, mesh, skinning.group_of_bone))
                    .transpose()
            },
        );
        let mut doc_mesh = doc_mesh?;
        doc_mesh.name = Some(mesh_name);
        let mut written = Arc::default();
        if let Some(ordered) = ordered_skin? {
            doc_mesh.skin = Some(self.skin(&ordered, skinning)?);
            written = ordered.skin.clone();
        }
        self.push_mesh_node(doc_mesh, node_name, None)?;
        Ok(written)
    }

    /// An attachment's mesh and its node; returns its skin as written and its mesh index.
    fn push_attachment(
        &mut self,
        attachment: &AttachmentSpec,
        skinning: &Skinning<'_>,
    ) -> Result<(WrittenSkin, usize), WriteError> {
        let node_name = self.names.claim(&attachment.name);
        let mesh_name = self.names.claim(&format!("{}Mesh", attachment.name));
        let mut doc_mesh = self.build_mesh(&attachment.mesh, Some(&attachment.name))?;
        doc_mesh.name = Some(mesh_name);
        let written = match &attachment.influences {
            None => Arc::default(),
            Some(influences) => {
                let ordered =
                    ordered_influences(influences, &attachment.mesh, skinning.group_of_bone)?;
                doc_mesh.skin = Some(self.skin(&ordered, skinning)?);
                ordered.skin.clone()
            }
        };
        if let Some(extras) = &attachment.mesh_extras {
            doc_mesh.other.insert("extras".into(), extras.clone());
        }
        let mesh = self.push_mesh_node(doc_mesh, node_name, attachment.node_extras.clone())?;
        Ok((written, mesh))
    }

    /// Adds `mesh` and a node instancing it; returns the mesh's index.
    fn push_mesh_node(
        &mut self,
        mesh: Mesh,
        node_name: String,
        extras: Option<g4mf_model::Extras>,
    ) -> Result<usize, WriteError> {
        let index = self.doc.meshes.len();
        let mesh_index = index_of(index, "meshes")?;
        self.doc.meshes.push(mesh);
        self.doc.nodes.push(Node {
            name: Some(node_name),
            mesh_instance: Some(MeshInstance {
                mesh: mesh_index,
                other: Default::default(),
            }),
            extras,
            ..Node::default()
        });
        Ok(index)
    }

    /// A mesh's `skin` from its influences in G4MF order.
    fn skin(&mut self, ordered: &OrderedSkin, skinning: &Skinning<'_>) -> Result<Skin, WriteError> {
        let encoded = ordered.encoded(self.buffer.index_width())?;
        let doc = &mut self.doc;
        Ok(Skin {
            groups: self.buffer.add_encoded(doc, &encoded.groups, 1)?,
            vertices: self.buffer.add_encoded(doc, &encoded.vertices, 1)?,
            weights: self.buffer.add_encoded(doc, &encoded.weights, 1)?,
            group_names: skinning.group_names.clone(),
            other: Default::default(),
        })
    }

    /// A mesh: its vertices, normals and texture coordinates, then each surface (simplexes,
    /// texture map, material, normals), then its blend shapes. The buffer's order is the
    /// file's, so this order is the output's bytes.
    fn build_mesh(
        &mut self,
        mesh: &MeshSpec,
        shape_prefix: Option<&str>,
    ) -> Result<Mesh, WriteError> {
        let specs = mesh.surfaces.specs();
        if specs.is_empty() {
            // The schema requires at least one surface per mesh.
            return Err(WriteError::BadFace {
                surface: 0,
                face: 0,
                problem: "a mesh needs at least one surface".into(),
            });
        }
        let flat = float32_positions(mesh)?;
        let vertices = self.buffer.add_f32(&mut self.doc, &flat, 3)?;
        let mut values = |floats: Option<Vec<f32>>, width| {
            floats
                .map(|v| self.buffer.add_f32(&mut self.doc, &v, width))
                .transpose()
        };
        let normals = values(float32_normals(mesh)?, 3)?;
        let texcoords = values(float32_texcoords(mesh)?, 2)?;
        check_ranges(mesh)?;
        let mut surfaces = Vec::with_capacity(specs.len());
        // Which vertices each surface uses (for per-surface normal offsets of blend shapes).
        let mut surface_vertices: Vec<&[bool]> = Vec::new();
        let prepared_surfaces = prepared(&mesh.surfaces);
        for (surface, prepared) in specs.iter().zip(&prepared_surfaces.0) {
            if !mesh.blend_shapes.is_empty() {
                surface_vertices.push(&prepared.used);
            }
            let values = SharedValues {
                positions: &flat,
                normals,
                texcoords,
            };
            surfaces.push(self.surface(mesh, surface, prepared, values)?);
        }
        let blend = if mesh.blend_shapes.is_empty() {
            None
        } else {
            Some(build_blend(
                &mut self.doc,
                &mut self.buffer,
                &mut self.names,
                mesh,
                &surface_vertices,
                shape_prefix,
            )?)
        };
        Ok(Mesh {
            name: None,
            vertices,
            surfaces,
            skin: None,
            blend,
            other: Default::default(),
        })
    }

    /// One surface: its simplexes (and whether its polytopes are flat), texture map, material
    /// and normals.
    fn surface(
        &mut self,
        mesh: &MeshSpec,
        surface: &SurfaceSpec,
        prepared: &PreparedSurface,
        values: SharedValues<'_>,
    ) -> Result<Surface, WriteError> {
        let polytopes_flat = polytopes_flat(prepared, values.positions);
        let encoded = prepared.encoded(self.buffer.index_width());
        let simplex_accessor = self
            .buffer
            .add_encoded(&mut self.doc, &encoded.simplexes, 3)?;
        let texture_map = match (values.texcoords, &encoded.corner_uvs) {
            (Some(values), Some(corner_uvs)) if !surface.faces.is_empty() => Some(Binding {
                values,
                simplexes: Some(self.buffer.add_encoded(&mut self.doc, corner_uvs, 3)?),
                per_simplex: None,
                other: Default::default(),
            }),
            _ => None,
        };
        let material = match &surface.material {
            None => None,
            Some(name) => Some(self.material(mesh, name)?),
        };
        Ok(Surface {
            name: surface.name.as_deref().map(|n| self.names.claim(n)),
            simplexes: Some(simplex_accessor),
            polytope_simplexes: polytopes_flat,
            material,
            texture_map,
            // Normals are per vertex, so a corner's normal index is its vertex index: the
            // surface's simplexes serve as the binding's per-corner indices.
            normals: values.normals.map(|values| Binding {
                values,
                simplexes: Some(simplex_accessor),
                per_simplex: None,
                other: Default::default(),
            }),
            ..Surface::default()
        })
    }

    /// The material named `name`: written on its first use (from the mesh's spec of it, or
    /// bare when the mesh has none), found again by name after.
    fn material(&mut self, mesh: &MeshSpec, name: &str) -> Result<MaterialIndex, WriteError> {
        let next = self.material_of_name.len();
        let index = *self.material_of_name.entry(name.to_owned()).or_insert(next);
        if index == self.doc.materials.len() {
            let spec = mesh.materials.iter().find(|m| m.name == name);
            let other = material_fields(name, spec, self.texture_base)?;
            self.doc.materials.push(Material {
                name: Some(self.names.claim(name)),
                other,
            });
        }
        index_of(index, "materials")
    }
}

/// The accessors every surface of a mesh shares, and the positions as written.
#[derive(Clone, Copy)]
struct SharedValues<'a> {
    /// The float32 positions, three per vertex.
    positions: &'a [f32],
    /// The normals' accessor, when the mesh has normals.
    normals: Option<AccessorIndex>,
    /// The texture coordinates' accessor, when a face uses them.
    texcoords: Option<AccessorIndex>,
}

/// A material's members besides its name: the base colour factor (its alpha only when not 1),
/// the texture channels (the spec's texture index, offset to the document's), and extras.
fn material_fields(
    name: &str,
    spec: Option<&MaterialSpec>,
    texture_base: usize,
) -> Result<serde_json::Map<String, Value>, WriteError> {
    let mut other = serde_json::Map::new();
    if let Some(color) = spec.and_then(|m| m.base_color) {
        finite(|| format!("material {name}'s base colour"), &color)?;
        let factor = if color[3] == 1.0 {
            &color[..3]
        } else {
            &color[..]
        };
        other.insert("baseColor".into(), serde_json::json!({ "factor": factor }));
    }
    for (key, texture) in [
        ("baseColor", spec.and_then(|m| m.base_color_texture)),
        ("normal", spec.and_then(|m| m.normal_texture)),
        ("orm", spec.and_then(|m| m.orm_texture)),
    ] {
        if let Some(t) = texture {
            let channel = other
                .entry(key.to_owned())
                .or_insert_with(|| serde_json::json!({}));
            if let Some(channel) = channel.as_object_mut() {
                channel.insert("texture".into(), serde_json::json!(texture_base + t));
            }
        }
    }
    if let Some(extras) = spec.and_then(|m| m.extras.clone()) {
        other.insert("extras".into(), extras);
    }
    Ok(other)
}

/// The positions as float32, three per vertex, each vertex checked finite.
fn float32_positions(mesh: &MeshSpec) -> Result<Vec<f32>, WriteError> {
    let mut flat = Vec::with_capacity(mesh.positions.len() * 3);
    for (i, p) in mesh.positions.iter().enumerate() {
        finite(|| format!("vertex {i}"), &p.to_array())?;
        flat.extend(p.to_array().map(|c| c as f32));
    }
    Ok(flat)
}

/// The normals as float32 (`None`: the mesh has none), one per vertex, each finite.
fn float32_normals(mesh: &MeshSpec) -> Result<Option<Vec<f32>>, WriteError> {
    let Some(normals) = &mesh.normals else {
        return Ok(None);
    };
    if normals.len() != mesh.positions.len() {
        return Err(WriteError::BadFace {
            surface: 0,
            face: 0,
            problem: format!(
                "{} normals for {} vertices",
                normals.len(),
                mesh.positions.len()
            ),
        });
    }
    let mut values = Vec::with_capacity(normals.len() * 3);
    for (i, n) in normals.iter().enumerate() {
        finite(|| format!("normal {i}"), &n.to_array())?;
        values.extend(n.to_array().map(|c| c as f32));
    }
    Ok(Some(values))
}

/// The texture coordinates as float32 when a face uses them (`None` otherwise), each finite.
fn float32_texcoords(mesh: &MeshSpec) -> Result<Option<Vec<f32>>, WriteError> {
    let used = mesh
        .surfaces
        .specs()
        .iter()
        .any(|s| s.faces.iter().any(|f| f.texcoords.is_some()));
    if !used {
        return Ok(None);
    }
    let mut uv = Vec::with_capacity(mesh.texcoords.len() * 2);
    for (i, t) in mesh.texcoords.iter().enumerate() {
        finite(|| format!("texture coordinate {i}"), t)?;
        uv.extend(t.map(|c| c as f32));
    }
    Ok(Some(uv))
}

/// Every face's corners and texture coordinates in range: the prepared surfaces' summary
/// says so in one look, and only when it does not are the faces walked for the first problem.
fn check_ranges(mesh: &MeshSpec) -> Result<(), WriteError> {
    let in_range = prepared(&mesh.surfaces).0.iter().all(|p| {
        p.well_formed
            && p.max_vertex
                .is_none_or(|v| (v as usize) < mesh.positions.len())
            && p.max_texcoord
                .is_none_or(|t| (t as usize) < mesh.texcoords.len())
    });
    if in_range { Ok(()) } else { check_faces(mesh) }
}

/// Whether every polytope of the surface is flat: `polytopeSimplexes` promises it (mesh.md),
/// so it is checked on the float32 positions as written, with the validator's tolerance.
fn polytopes_flat(prepared: &PreparedSurface, positions: &[f32]) -> bool {
    let written = |v: u32| {
        let i = v as usize * 3;
        [positions[i], positions[i + 1], positions[i + 2]].map(f64::from)
    };
    let simplexes = &prepared.simplexes;
    prepared.polytopes.iter().all(|&(first, n)| {
        let fan = (0..n as usize - 2).map(|k| {
            let at = first as usize + 3 * k;
            [simplexes[at], simplexes[at + 1], simplexes[at + 2]].map(written)
        });
        rules::polytope_bend(fan) <= rules::POLYTOPE_NORMAL_TOLERANCE
    })
}

/// Writes the spec's textures (and their files) into the document; returns the index of the
/// first, so a spec's texture `t` is the document's `base + t`.
fn write_textures(
    doc: &mut Document,
    buffer: &mut BufferBuilder,
    names: &mut NameRegistry,
    textures: &[TextureSpec],
) -> Result<usize, WriteError> {
    let base = doc
        .other
        .get("textures")
        .and_then(Value::as_array)
        .map_or(0, Vec::len);
    for (t, texture) in textures.iter().enumerate() {
        finite(
            || format!("texture {t}'s placeholder"),
            &texture.placeholder,
        )?;
        if texture.size.contains(&0) || texture.placeholder.is_empty() {
            return Err(WriteError::BadTexture {
                texture: t,
                problem: "a texture needs a positive size and a placeholder".into(),
            });
        }
        let file = match &texture.image {
            None => None,
            Some(ImageSpec::Embedded { bytes, mime }) => {
                let view = buffer.add_bytes(doc, bytes)?;
                Some(crate::thumbnail::push(
                    doc,
                    "files",
                    serde_json::json!({ "mimeType": mime, "bufferView": view.get() }),
                ))
            }
            Some(ImageSpec::Uri { uri, mime }) => Some(crate::thumbnail::push(
                doc,
                "files",
                serde_json::json!({ "mimeType": mime, "uri": uri }),
            )),
        };
        let mut item = serde_json::json!({
            "name": names.claim(&texture.name),
            "size": texture.size,
            "placeholder": texture.placeholder,
        });
        if let Some(file) = file {
            item["files"] = serde_json::json!([file]);
        }
        crate::thumbnail::push(doc, "textures", item);
    }
    Ok(base)
}

/// Every face's corners and texture coordinates against the mesh: the first problem, surface
/// by surface and face by face, as a [`WriteError::BadFace`].
fn check_faces(mesh: &MeshSpec) -> Result<(), WriteError> {
    for (s, surface) in mesh.surfaces.specs().iter().enumerate() {
        for (f, face) in surface.faces.iter().enumerate() {
            let bad = |problem: String| WriteError::BadFace {
                surface: s,
                face: f,
                problem,
            };
            let n = face.vertices.len();
            if n < 3 {
                return Err(bad(format!("{n} corners; a face needs at least 3")));
            }
            if let Some(&v) = face
                .vertices
                .iter()
                .find(|&&v| v as usize >= mesh.positions.len())
            {
                return Err(bad(format!(
                    "vertex {v} is beyond the mesh's {}",
                    mesh.positions.len()
                )));
            }
            if let Some(uv) = &face.texcoords {
                if uv.len() != n {
                    return Err(bad(format!(
                        "{} texture coordinates for {n} corners",
                        uv.len()
                    )));
                }
                if let Some(&t) = uv.iter().find(|&&t| t as usize >= mesh.texcoords.len()) {
                    return Err(bad(format!("texture coordinate {t} does not exist")));
                }
            }
        }
    }
    Ok(())
}

/// `mesh.blend`: one shape per spec, `position` targets over vertices, `surfaces` entries
/// only for surfaces whose normals a shape changes (blend.md forbids empty ones), and
/// `amounts` unless all are zero (their default). An attachment's shapes are named
/// `{attachment}_{shape}` (`shape_prefix`): G4MF names are file-wide, and the body's shape
/// keeps the plain name.
fn build_blend(
    doc: &mut Document,
    buffer: &mut BufferBuilder,
    names: &mut NameRegistry,
    mesh: &MeshSpec,
    surface_vertices: &[&[bool]],
    shape_prefix: Option<&str>,
) -> Result<Blend, WriteError> {
    let vertex_count = mesh.positions.len();
    let target = |doc: &mut Document,
                  buffer: &mut BufferBuilder,
                  what: &str,
                  pairs: &[(u32, DVec3)]|
     -> Result<BlendTarget, WriteError> {
        let mut indices = Vec::with_capacity(pairs.len());
        let mut offsets = Vec::with_capacity(pairs.len() * 3);
        for (i, &(v, o)) in pairs.iter().enumerate() {
            let bad = |problem: String| WriteError::BadFace {
                surface: 0,
                face: 0,
                problem,
            };
            if v as usize >= vertex_count {
                return Err(bad(format!("{what} moves vertex {v}, beyond the mesh")));
            }
            if i > 0 && pairs[i - 1].0 >= v {
                return Err(bad(format!("{what}'s vertices are not ascending at {v}")));
            }
            finite(|| format!("{what} offset of vertex {v}"), &o.to_array())?;
            indices.push(v);
            offsets.extend(o.to_array().map(|c| c as f32));
        }
        Ok(BlendTarget {
            indices: buffer.add_uint(doc, &indices, 1)?,
            offsets: buffer.add_f32(doc, &offsets, 3)?,
            other: Default::default(),
        })
    };
    let mut shapes = Vec::with_capacity(mesh.blend_shapes.len());
    for shape in &mesh.blend_shapes {
        let position = if shape.offsets.is_empty() {
            None
        } else {
            let width = buffer.index_width();
            let encoded = encoded_offsets(&shape.offsets, width, mesh.positions.len());
            match encoded.as_deref().and_then(|e| e.get(width)) {
                Some((indices, offsets)) => Some(BlendTarget {
                    indices: buffer.add_encoded(doc, indices, 1)?,
                    offsets: buffer.add_encoded(doc, offsets, 3)?,
                    other: Default::default(),
                }),
                // Not a valid target for this mesh: the plain path says why.
                None => {
                    let what = format!("blend shape {}", shape.name);
                    Some(target(doc, buffer, &what, &shape.offsets)?)
                }
            }
        };
        let mut entries = Vec::new();
        if mesh.normals.is_some() && !shape.normal_offsets.is_empty() {
            for (s, used) in surface_vertices.iter().enumerate() {
                let pairs: Vec<(u32, DVec3)> = shape
                    .normal_offsets
                    .iter()
                    .filter(|(v, _)| used.get(*v as usize).copied().unwrap_or(false))
                    .copied()
                    .collect();
                if pairs.is_empty() {
                    continue;
                }
                let what = format!("blend shape {}'s normals", shape.name);
                entries.push(BlendSurface {
                    surface: s as u32,
                    normal: Some(target(doc, buffer, &what, &pairs)?),
                    texture_map: None,
                    other: Default::default(),
                });
            }
        }
        shapes.push(BlendShape {
            name: Some(match shape_prefix {
                None => names.claim(&shape.name),
                Some(prefix) => names.claim(&format!("{prefix}_{}", shape.name)),
            }),
            position,
            surfaces: (!entries.is_empty()).then_some(entries),
            other: Default::default(),
        });
    }
    let amounts: Vec<f64> = mesh.blend_shapes.iter().map(|s| s.amount).collect();
    finite(|| "blend shape amounts".into(), &amounts)?;
    Ok(Blend {
        amounts: amounts.iter().any(|&a| a != 0.0).then_some(amounts),
        shapes,
        other: Default::default(),
    })
}
