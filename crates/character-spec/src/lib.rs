//! `character-spec`: a character as every writer takes it, whatever the format.
//!
//! A [`CharacterSpec`] is what the pipeline's last stage hands a writer: bones in skeleton
//! space with their names, the body and each worn asset as a mesh of named surfaces (polygons
//! sharing a material), texture coordinates, smooth normals, materials with their textures and
//! drawing hints, skin influences and blend shapes, and the `extras` a caller keeps beside
//! them. It says nothing about bytes: `g4mf-writer` lays it out as G4MF (simplexes, skins in
//! G4MF order, index widths: its own `CharacterOptions`), `gltf-writer` as glTF 2.0 (vertices
//! split at texture seams, four influences a set, morph targets). Each writer keeps what it
//! derives from the shared handles ([`Surfaces`], [`Influences`], [`Offsets`]) in their
//! [`Memo`], so a population's bodies share that work in every format.
//!
//! Space: Y up, metres, facing +Z, positions in the skeleton's space; texture coordinates with
//! their origin top-left (G4MF's and glTF's convention alike).

pub mod memo;
pub mod names;
mod shared;

pub use g4mf_model::Extras;
use glam::{DMat3, DVec3};
use serde_json::Value;
use std::sync::Arc;

pub use character::RenderHints;
pub use memo::Memo;
pub use names::{NameRegistry, is_valid_name, sanitize};
pub use shared::{Checked, Influences, Offsets, Surfaces};

/// One bone, in skeleton space (the skeleton node's local space).
#[derive(Debug, Clone, PartialEq)]
pub struct BoneSpec {
    /// Wanted node name (sanitized and made unique when written).
    pub name: String,
    /// Parent bone index in the same list; `None` for root bones.
    pub parent: Option<usize>,
    /// Head position in skeleton space, metres.
    pub head: DVec3,
    /// Rest basis in skeleton space: orthonormal, columns X, Y (along the bone), Z.
    pub basis: DMat3,
    /// Bone length in metres (head to tail along +Y).
    pub length: f64,
    /// `extras` of the bone node, as JSON text (shared: a population's bodies on one rig share
    /// them; a 100,000-bone rig held as parsed JSON took 145 MB more).
    pub extras: Option<Extras>,
}

/// A face's corner indices: up to four inline (triangles and quads, nearly every face of a
/// MakeHuman mesh), so a mesh's faces cost no allocation each.
pub type Corners = smallvec::SmallVec<[u32; 4]>;

/// One face: corner vertex indices and, optionally, corner texture-coordinate indices.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FaceSpec {
    /// Vertex indices (3 or more).
    pub vertices: Corners,
    /// Texture-coordinate indices, one per corner, when the face has them.
    pub texcoords: Option<Corners>,
}

/// A surface: faces sharing a material.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct SurfaceSpec {
    /// Wanted surface name (sanitized and made unique when written), if any.
    pub name: Option<String>,
    /// Material name, if any: one of [`MeshSpec::materials`], or a bare material of that name.
    pub material: Option<String>,
    /// Faces (polygons).
    pub faces: Vec<FaceSpec>,
}

/// A mesh in skeleton space.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct MeshSpec {
    /// Vertex positions, metres.
    pub positions: Vec<DVec3>,
    /// Texture coordinates, origin top-left (v down).
    pub texcoords: Arc<Vec<[f64; 2]>>,
    /// Surfaces (shared between meshes with the same faces: see [`Surfaces`]).
    pub surfaces: Surfaces,
    /// Unit per-vertex normals, one per position. `None`: flat shading.
    pub normals: Option<Vec<DVec3>>,
    /// Materials the surfaces name, with their properties; written in first-use order, and
    /// only when a surface uses them.
    pub materials: Vec<MaterialSpec>,
    /// Blend shapes, in order.
    pub blend_shapes: Vec<BlendShapeSpec>,
}

/// A blend shape: sparse position offsets and, when normals are written, normal offsets.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct BlendShapeSpec {
    /// Wanted name (sanitized and made unique when written).
    pub name: String,
    /// How much of it the character shows (G4MF's `amounts`, glTF's default `weights`).
    pub amount: f64,
    /// `(vertex, offset)`, vertices ascending, metres (shared: see [`Offsets`]).
    pub offsets: Offsets,
    /// `(vertex, normal offset)`, vertices ascending; written only with
    /// [`MeshSpec::normals`].
    pub normal_offsets: Vec<(u32, DVec3)>,
}

/// A material's properties.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct MaterialSpec {
    /// Wanted name (sanitized and made unique when written).
    pub name: String,
    /// Linear RGBA base colour factor.
    pub base_color: Option<[f64; 4]>,
    /// How it is drawn beyond its colour (draw order, transparency, back faces), when its
    /// source says: glTF writes it as `alphaMode` and `doubleSided`; G4MF has no property for
    /// it (callers keep it in [`MaterialSpec::extras`]).
    pub render: Option<RenderHints>,
    /// `extras` of the material (what the formats have no property for).
    pub extras: Option<Value>,
    /// The base-colour texture: an index into [`CharacterSpec::textures`].
    pub base_color_texture: Option<usize>,
    /// The normal map: an index into [`CharacterSpec::textures`].
    pub normal_texture: Option<usize>,
    /// Occlusion (red), roughness (green), metallic (blue): an index into
    /// [`CharacterSpec::textures`].
    pub orm_texture: Option<usize>,
}

/// A 2D texture: its image (embedded or referenced, or none), size and placeholder.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct TextureSpec {
    /// Wanted name (sanitized and made unique when written).
    pub name: String,
    /// Its image, when it has one.
    pub image: Option<ImageSpec>,
    /// Width and height in pixels.
    pub size: [u32; 2],
    /// Linear colour that stands for the image when there is none; its length is the channel
    /// count (3, or 4 for a texture whose alpha is used). Not a factor: where no image is
    /// written, a format without placeholders multiplies it into the material's factor.
    pub placeholder: Vec<f64>,
}

/// Where a texture's image is.
#[derive(Debug, Clone, PartialEq)]
pub enum ImageSpec {
    /// Its bytes, stored in the file's buffer.
    Embedded {
        /// The file's bytes, as they are.
        bytes: Arc<Vec<u8>>,
        /// Its MIME type (`image/png`, `image/jpeg`).
        mime: String,
    },
    /// A URI (relative to the written file, percent-encoded as RFC 3986 asks).
    Uri {
        /// The URI.
        uri: String,
        /// Its MIME type.
        mime: String,
    },
}

/// A mesh worn over the body (clothes, hair, ...): its own mesh and node, skinned to the same
/// bones as the body.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct AttachmentSpec {
    /// Wanted name of its node (its mesh is named `{name}Mesh`).
    pub name: String,
    /// Its mesh.
    pub mesh: MeshSpec,
    /// Its skin influences (bones index [`CharacterSpec::bones`]); any order, repeats add up.
    pub influences: Option<Influences>,
    /// `extras` of its node.
    pub node_extras: Option<Extras>,
    /// `extras` of its mesh.
    pub mesh_extras: Option<Value>,
}

/// One skin influence: `bone` moves `vertex` with `weight`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Influence {
    /// Mesh vertex index.
    pub vertex: u32,
    /// Bone index in [`CharacterSpec::bones`].
    pub bone: u32,
    /// Weight (finite, not negative).
    pub weight: f64,
}

/// Everything needed to write one character.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct CharacterSpec {
    /// The character's name (the root node's).
    pub name: String,
    /// Position of the skeleton in the character's space (e.g. to stand it on y = 0).
    pub skeleton_position: DVec3,
    /// `extras` of the skeleton node.
    pub skeleton_extras: Option<Extras>,
    /// Bones.
    pub bones: Vec<BoneSpec>,
    /// The body, if any.
    pub mesh: Option<MeshSpec>,
    /// The body's skin influences (needs a mesh); any order, repeats add up.
    pub influences: Option<Influences>,
    /// Meshes worn over the body, in the order they are drawn, each with a node of its own
    /// after the body's.
    pub attachments: Vec<AttachmentSpec>,
    /// Textures the materials use.
    pub textures: Vec<TextureSpec>,
    /// `asset.generator`.
    pub generator: String,
}

/// Why bones cannot be ordered: a bone whose parent is not another bone, or bones whose
/// parents form a cycle.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BoneOrderError {
    /// The bone at fault (for a cycle, the first bone no root reaches).
    pub bone: usize,
    /// What is wrong.
    pub problem: String,
}

/// Depth-first pre-order of `bones` (roots and siblings in their order), so every parent comes
/// before its children: the order both writers give bone nodes.
pub fn bone_order(bones: &[BoneSpec]) -> Result<Vec<usize>, BoneOrderError> {
    let mut children = vec![Vec::new(); bones.len()];
    let mut roots = Vec::new();
    for (i, bone) in bones.iter().enumerate() {
        match bone.parent {
            None => roots.push(i),
            Some(p) if p < bones.len() && p != i => children[p].push(i),
            Some(p) => {
                return Err(BoneOrderError {
                    bone: i,
                    problem: format!("parent {p} is not another bone"),
                });
            }
        }
    }
    let mut order = Vec::with_capacity(bones.len());
    let mut stack: Vec<usize> = roots.into_iter().rev().collect();
    while let Some(i) = stack.pop() {
        order.push(i);
        stack.extend(children[i].iter().rev());
    }
    if order.len() != bones.len() {
        let mut reached = vec![false; bones.len()];
        for &i in &order {
            reached[i] = true;
        }
        let stuck = reached.iter().position(|r| !r).unwrap_or(0);
        return Err(BoneOrderError {
            bone: stuck,
            problem: "its parents form a cycle".into(),
        });
    }
    Ok(order)
}

impl CharacterSpec {
    /// The body and the attachments' meshes, body first, each with its influences.
    pub fn meshes(&self) -> impl Iterator<Item = (&MeshSpec, Option<&Influences>)> {
        self.mesh
            .iter()
            .map(|m| (m, self.influences.as_ref()))
            .chain(
                self.attachments
                    .iter()
                    .map(|a| (&a.mesh, a.influences.as_ref())),
            )
    }
}
