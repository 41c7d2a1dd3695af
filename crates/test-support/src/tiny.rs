//! Tiny characters for tests, built in a few lines: a handful of bones, a small mesh, skin
//! weights and blend shapes as a [`g4mf_writer::CharacterSpec`], and that character written as
//! a `.g4b` or `.g4tf` file.
//!
//! ```
//! use glam::DVec3;
//! use test_support::tiny::TinyCharacter;
//!
//! let tiny = TinyCharacter::new("T")
//!     .bone("root", DVec3::ZERO, 1.0)
//!     .weights(&[(1, 0, 1.0), (0, 0, 0.5)]);
//! let built = tiny.build();
//! assert_eq!(built.bone_nodes.len(), 1);
//! assert_eq!(&tiny.g4b_bytes()[..4], b"G4MF");
//! ```

use g4mf_writer::model::Document;
use g4mf_writer::{
    BlendShapeSpec, BoneSpec, BuiltCharacter, CharacterSpec, ContainerOptions, FaceSpec, Influence,
    MaterialSpec, MeshSpec, SurfaceSpec, TextBufferStorage, build_character, write_g4b, write_g4tf,
};
use glam::{DMat3, DVec3};

/// A small character: bones, one mesh of one surface, optional skin weights, blend shapes and
/// material. Every method consumes and returns the builder; [`TinyCharacter::spec`] gives the
/// [`CharacterSpec`], which a test may still edit for what the builder does not offer.
#[derive(Debug, Clone, PartialEq)]
pub struct TinyCharacter {
    name: String,
    generator: String,
    bones: Vec<BoneSpec>,
    positions: Vec<DVec3>,
    texcoords: Vec<[f64; 2]>,
    faces: Vec<Vec<u32>>,
    surface_name: Option<String>,
    material: Option<String>,
    materials: Vec<MaterialSpec>,
    blend_shapes: Vec<BlendShapeSpec>,
    weights: Option<Vec<Influence>>,
}

impl TinyCharacter {
    /// A character named `name` (generator `test`) with no bones, and a mesh of the right
    /// triangle (0,0,0), (1,0,0), (0,1,0) facing +Z: one surface without name, material or
    /// texture coordinates; no skin, no blend shapes.
    pub fn new(name: &str) -> Self {
        Self {
            name: name.into(),
            generator: "test".into(),
            bones: Vec::new(),
            positions: vec![DVec3::ZERO, DVec3::X, DVec3::Y],
            texcoords: Vec::new(),
            faces: vec![vec![0, 1, 2]],
            surface_name: None,
            material: None,
            materials: Vec::new(),
            blend_shapes: Vec::new(),
            weights: None,
        }
    }

    /// Adds bone `name` with its head at `head` (skeleton space), pointing up (+Y) for
    /// `length` metres, as a child of the bone added before it (the first is the root).
    pub fn bone(mut self, name: &str, head: DVec3, length: f64) -> Self {
        let parent = self.bones.len().checked_sub(1);
        self.bones.push(BoneSpec {
            name: name.into(),
            parent,
            head,
            basis: DMat3::IDENTITY,
            length,
            extras: None,
        });
        self
    }

    /// Adds `count` one-metre bones `b.0`, `b.1`, ..., each on top of the one before:
    /// `b.i` runs from (0, i, 0) to (0, i + 1, 0).
    pub fn chain(self, count: usize) -> Self {
        (0..count).fold(self, |tiny, i| {
            tiny.bone(&format!("b.{i}"), DVec3::new(0.0, i as f64, 0.0), 1.0)
        })
    }

    /// Adds a bone as given: any parent (an index into the bones, which may come later),
    /// basis or extras.
    pub fn bone_spec(mut self, bone: BoneSpec) -> Self {
        self.bones.push(bone);
        self
    }

    /// Replaces the vertex positions (metres, skeleton space); the faces keep their indices.
    pub fn positions(mut self, positions: Vec<DVec3>) -> Self {
        self.positions = positions;
        self
    }

    /// Texture coordinates, one per vertex (G4MF's convention: origin top-left, v down);
    /// every face corner uses its vertex's own.
    pub fn texcoords(mut self, texcoords: Vec<[f64; 2]>) -> Self {
        self.texcoords = texcoords;
        self
    }

    /// Replaces the faces: each a list of vertex indices (3 or more), in order.
    pub fn faces(mut self, faces: &[&[u32]]) -> Self {
        self.faces = faces.iter().map(|f| f.to_vec()).collect();
        self
    }

    /// Names the surface.
    pub fn surface_name(mut self, name: &str) -> Self {
        self.surface_name = Some(name.into());
        self
    }

    /// The surface's material `name`: with `base_color` (linear RGBA) a material of its own
    /// in the file, without it a bare name.
    pub fn material(mut self, name: &str, base_color: Option<[f64; 4]>) -> Self {
        self.material = Some(name.into());
        self.materials = base_color
            .map(|color| MaterialSpec {
                name: name.into(),
                base_color: Some(color),
                ..MaterialSpec::default()
            })
            .into_iter()
            .collect();
        self
    }

    /// Adds blend shape `name` at `amount`, moving `(vertex, offset)` (vertices ascending),
    /// without normal offsets.
    pub fn blend_shape(mut self, name: &str, amount: f64, offsets: &[(u32, DVec3)]) -> Self {
        self.blend_shapes.push(BlendShapeSpec {
            name: name.into(),
            amount,
            offsets: offsets.to_vec().into(),
            normal_offsets: Vec::new(),
        });
        self
    }

    /// Skins the mesh: `(vertex, bone, weight)` in any order, repeats adding up (bones index
    /// the bones in the order they were added).
    pub fn weights(mut self, weights: &[(u32, u32, f64)]) -> Self {
        self.weights = Some(
            weights
                .iter()
                .map(|&(vertex, bone, weight)| Influence {
                    vertex,
                    bone,
                    weight,
                })
                .collect(),
        );
        self
    }

    /// Sets `asset.generator`.
    pub fn generator(mut self, generator: &str) -> Self {
        self.generator = generator.into();
        self
    }

    /// The character as the writer takes it (default layout options, skeleton at the origin).
    pub fn spec(&self) -> CharacterSpec {
        let with_texcoords = !self.texcoords.is_empty();
        let faces = self
            .faces
            .iter()
            .map(|f| FaceSpec {
                vertices: f.as_slice().into(),
                texcoords: with_texcoords.then(|| f.as_slice().into()),
            })
            .collect();
        CharacterSpec {
            name: self.name.clone(),
            bones: self.bones.clone(),
            mesh: Some(MeshSpec {
                positions: self.positions.clone(),
                texcoords: self.texcoords.clone().into(),
                surfaces: vec![SurfaceSpec {
                    name: self.surface_name.clone(),
                    material: self.material.clone(),
                    faces,
                }]
                .into(),
                normals: None,
                materials: self.materials.clone(),
                blend_shapes: self.blend_shapes.clone(),
            }),
            influences: self.weights.clone().map(Into::into),
            generator: self.generator.clone(),
            ..CharacterSpec::default()
        }
    }

    /// The character built (document and buffer); panics when the writer refuses it.
    pub fn build(&self) -> BuiltCharacter {
        built(&self.spec())
    }

    /// The character as a `.g4b` file (default container options: no compression).
    pub fn g4b_bytes(&self) -> Vec<u8> {
        g4b_bytes(&self.spec())
    }

    /// The character as a `.g4tf` file, its buffer embedded as a `data:` URI (default
    /// container options).
    pub fn g4tf_text(&self) -> Vec<u8> {
        g4tf_text(&self.spec())
    }
}

/// `spec` built; panics with the writer's reason when it is refused.
fn built(spec: &CharacterSpec) -> BuiltCharacter {
    build_character(spec).unwrap_or_else(|e| panic!("the tiny character builds: {e}"))
}

/// Any character spec as a `.g4b` file (default container options).
pub fn g4b_bytes(spec: &CharacterSpec) -> Vec<u8> {
    g4b_bytes_edited(spec, |_| {})
}

/// Any character spec as a `.g4b` file, its document first changed by `edit` (to write what
/// the writer itself never would).
pub fn g4b_bytes_edited(spec: &CharacterSpec, edit: impl FnOnce(&mut Document)) -> Vec<u8> {
    let built = built(spec);
    let mut doc = built.document;
    edit(&mut doc);
    write_g4b(
        &mut doc,
        std::slice::from_ref(&built.buffer),
        ContainerOptions::default(),
    )
    .unwrap_or_else(|e| panic!("the tiny character encodes: {e}"))
}

/// Any character spec as a `.g4tf` file with its buffer embedded (default container options).
pub fn g4tf_text(spec: &CharacterSpec) -> Vec<u8> {
    let built = built(spec);
    let mut doc = built.document;
    write_g4tf(
        &mut doc,
        std::slice::from_ref(&built.buffer),
        &TextBufferStorage::Embedded,
        ContainerOptions::default(),
    )
    .unwrap_or_else(|e| panic!("the tiny character encodes: {e}"))
    .json
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_is_an_unskinned_triangle_and_bones_chain() {
        let spec = TinyCharacter::new("T").chain(3).spec();
        let parents: Vec<Option<usize>> = spec.bones.iter().map(|b| b.parent).collect();
        assert_eq!(parents, [None, Some(0), Some(1)]);
        assert_eq!(spec.bones[2].name, "b.2");
        assert_eq!(spec.bones[2].head, DVec3::new(0.0, 2.0, 0.0));
        let mesh = spec.mesh.as_ref().expect("a mesh");
        assert_eq!(mesh.positions, [DVec3::ZERO, DVec3::X, DVec3::Y]);
        assert!(spec.influences.is_none() && mesh.materials.is_empty());
    }

    #[test]
    fn faces_use_their_vertices_texture_coordinates_when_there_are_some() {
        let corners = |tiny: TinyCharacter| {
            let spec = tiny.spec();
            let mesh = spec.mesh.expect("a mesh");
            mesh.surfaces.specs()[0].faces[0].texcoords.clone()
        };
        let tiny = TinyCharacter::new("T").bone("root", DVec3::ZERO, 1.0);
        assert_eq!(corners(tiny.clone()), None);
        let uvs = vec![[0.0, 1.0], [1.0, 1.0], [0.0, 0.0]];
        assert_eq!(
            corners(tiny.texcoords(uvs)),
            Some([0, 1, 2].as_slice().into())
        );
    }

    #[test]
    fn both_containers_hold_the_same_document() {
        let tiny = TinyCharacter::new("T")
            .bone("root", DVec3::ZERO, 1.0)
            .material("Red", Some([1.0, 0.0, 0.0, 1.0]))
            .weights(&[(0, 0, 1.0)]);
        let g4b = tiny.g4b_bytes();
        assert_eq!(&g4b[..4], b"G4MF");
        let text: serde_json::Value =
            serde_json::from_slice(&tiny.g4tf_text()).expect("the .g4tf is JSON");
        assert_eq!(text["materials"][0]["name"], "Red");
        assert_eq!(text["asset"]["generator"], "test");
        let edited = g4b_bytes_edited(&tiny.spec(), |doc| doc.asset.dimension = 4);
        assert_ne!(edited, g4b);
    }
}
