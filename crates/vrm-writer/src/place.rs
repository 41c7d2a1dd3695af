//! Where the spec's bones, meshes and blend shapes landed in the glTF document
//! (`gltf-writer`'s [`BuiltGltf::bone_nodes`] and [`BuiltGltf::meshes`]), and skeleton-space
//! points carried into a bone node's local frame.

use crate::error::VrmError;
use crate::model::MeshRef;
use character_spec::{CharacterSpec, MeshSpec};
use glam::{DQuat, DVec3};
use gltf_writer::BuiltGltf;

/// The spec's items as the glTF document holds them.
pub(crate) struct Placement<'a> {
    spec: &'a CharacterSpec,
    bone_nodes: &'a [u32],
    mesh_nodes: Vec<u32>,
}

impl<'a> Placement<'a> {
    /// The placement of `spec`'s items in `built`, refused when `built` was not built from
    /// `spec` (other bone or mesh counts, nodes outside the document).
    pub fn of(built: &'a BuiltGltf, spec: &'a CharacterSpec) -> Result<Self, VrmError> {
        let meshes = usize::from(spec.mesh.is_some()) + spec.attachments.len();
        if built.bone_nodes.len() != spec.bones.len() || built.meshes.len() != meshes {
            return Err(VrmError::NotBuiltFromSpec(format!(
                "it has {} bones and {} meshes, the spec {} and {meshes}",
                built.bone_nodes.len(),
                built.meshes.len(),
                spec.bones.len()
            )));
        }
        let nodes = built.root.nodes.len();
        let mesh_nodes: Vec<u32> = built.meshes.iter().map(|m| m.node).collect();
        if let Some(node) = built
            .bone_nodes
            .iter()
            .chain(&mesh_nodes)
            .find(|&&n| n as usize >= nodes)
        {
            return Err(VrmError::NotBuiltFromSpec(format!(
                "node {node} is past its {nodes} nodes"
            )));
        }
        Ok(Self {
            spec,
            bone_nodes: &built.bone_nodes,
            mesh_nodes,
        })
    }

    /// The glTF node of bone `bone`, refused when the skeleton has no such bone.
    pub fn bone_node(&self, bone: usize, what: impl FnOnce() -> String) -> Result<u32, VrmError> {
        self.bone_nodes
            .get(bone)
            .copied()
            .ok_or_else(|| VrmError::UnknownBone { what: what(), bone })
    }

    /// The name of bone `bone` (checked by the caller).
    pub fn bone_name(&self, bone: usize) -> &str {
        &self.spec.bones[bone].name
    }

    /// Bone `bone`'s parent.
    pub fn parent(&self, bone: usize) -> Option<usize> {
        self.spec.bones[bone].parent
    }

    /// How many bones the skeleton has.
    pub fn bone_count(&self) -> usize {
        self.spec.bones.len()
    }

    /// The glTF node of `mesh` and its spec, refused when the character has no such mesh.
    pub fn mesh(
        &self,
        mesh: MeshRef,
        what: impl FnOnce() -> String,
    ) -> Result<(u32, &'a MeshSpec), VrmError> {
        let body = usize::from(self.spec.mesh.is_some());
        let found = match mesh {
            MeshRef::Body => self.spec.mesh.as_ref().map(|m| (self.mesh_nodes[0], m)),
            MeshRef::Attachment(i) => self
                .spec
                .attachments
                .get(i)
                .map(|a| (self.mesh_nodes[body + i], &a.mesh)),
        };
        found.ok_or_else(|| VrmError::UnknownMesh {
            what: what(),
            mesh: self.mesh_label(mesh),
        })
    }

    /// `the body`, or `attachment N (name)`, for errors.
    pub fn mesh_label(&self, mesh: MeshRef) -> String {
        match mesh {
            MeshRef::Body => "the body".into(),
            MeshRef::Attachment(i) => match self.spec.attachments.get(i) {
                Some(a) => format!("attachment {i} (`{}`)", a.name),
                None => format!("attachment {i}"),
            },
        }
    }

    /// The morph target of blend shape `shape` on `mesh` (whose spec is `spec`), bound by
    /// `expression`: `gltf-writer` writes every blend shape as a target, in spec order, so it
    /// is the shape's position; refused when no shape or two have that name.
    pub fn morph_index(
        &self,
        mesh: MeshRef,
        spec: &MeshSpec,
        shape: &str,
        expression: &str,
    ) -> Result<u32, VrmError> {
        let mut found = spec
            .blend_shapes
            .iter()
            .enumerate()
            .filter(|(_, s)| s.name == shape)
            .map(|(i, _)| i);
        match (found.next(), found.next()) {
            (Some(i), None) => {
                u32::try_from(i).map_err(|_| VrmError::TooLarge("a morph target index".into()))
            }
            (first, _) => {
                let (expression, shape) = (expression.to_owned(), shape.to_owned());
                let mesh = self.mesh_label(mesh);
                Err(match first {
                    None => VrmError::UnknownShape {
                        expression,
                        shape,
                        mesh,
                    },
                    Some(_) => VrmError::AmbiguousShape {
                        expression,
                        shape,
                        mesh,
                    },
                })
            }
        }
    }

    /// `point` (skeleton space, at rest) in bone `bone`'s node frame: glTF puts a bone node at
    /// its head, turned by its rest basis, and the skeleton node adds only a translation, so
    /// the local point is the basis's inverse applied to the point less the head (the
    /// skeleton's position cancels).
    pub fn local_point(&self, bone: usize, point: DVec3) -> DVec3 {
        let b = &self.spec.bones[bone];
        // The rotation gltf-writer writes (its basis was checked a rotation there).
        let rotation = DQuat::from_mat3(&b.basis).normalize();
        rotation.inverse() * (point - b.head)
    }
}
