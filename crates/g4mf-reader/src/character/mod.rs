//! Any valid 3D G4MF file read into a writer-neutral [`CharacterSpec`] (one skeleton, meshes
//! of triangles and polygons, skins, blend shapes, materials, textures), so that another
//! writer (glTF) can write what any G4MF file holds; what a character spec cannot hold is
//! refused with one located error, what it holds only after a change is changed and noted.
//!
//! The spec's space is the root's axes with its origin at the skeleton node (at the root
//! without a skeleton): bones and every mesh instance are baked into it, and the skeleton's
//! place becomes [`CharacterSpec::skeleton_position`]. `spec-notes/g4mf.md` ("Reading any
//! G4MF into a character spec") lists what is kept, baked, split and refused.

mod materials;
mod mesh;
mod tree;

use crate::G4mfFile;
use character_spec::{AttachmentSpec, CharacterSpec};
use location::{Located, Location};
use std::fmt;

/// A G4MF file that cannot become a character spec: where (a JSON pointer) and why.
pub type CharacterError = Located<CharacterErrorKind>;

/// Why a G4MF file cannot become a character spec.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum CharacterErrorKind {
    /// The file is not 3D.
    #[error("a {0}D file: a character spec (and glTF) is 3D")]
    Dimension(u32),
    /// More than one skeleton node in the tree.
    #[error("a second skeleton (node {first} is the first): a character has one skeleton")]
    SeveralSkeletons {
        /// The first skeleton node.
        first: usize,
    },
    /// A surface whose simplexes are not triangles (edges, cells, nothing drawable).
    #[error("{0}")]
    NotTriangles(String),
    /// A mesh instance that cannot be placed as a mesh of the character.
    #[error("{0}")]
    NotPlaceable(String),
    /// Something G4MF allows that a character spec (and glTF) cannot hold.
    #[error("{0}")]
    Unsupported(String),
    /// The file breaks a rule of the spec that reading relies on.
    #[error("{0}")]
    Malformed(String),
    /// An accessor could not be read as needed.
    #[error("cannot read {0}")]
    Accessor(String),
    /// The spec would hold more than [`SpecOptions::max_elements`].
    #[error("{what} would hold {size} elements, above the limit of {limit}")]
    Limit {
        /// What was too large.
        what: String,
        /// Its size in elements.
        size: u64,
        /// The limit.
        limit: u64,
    },
}

/// An error of `kind` at JSON pointer `pointer`.
fn error(pointer: impl Into<String>, kind: CharacterErrorKind) -> CharacterError {
    Located::new(Location::pointer(pointer), kind)
}

/// Choices of a caller reading a character.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SpecOptions {
    /// The character's name when the root node has none (a caller passes the file's stem).
    pub fallback_name: String,
    /// Most elements (vertices, simplex corners, skin entries, blend-shape offsets, summed
    /// over every mesh instance) the spec may hold: instancing repeats a mesh, so a small
    /// file could otherwise ask for any amount of memory.
    pub max_elements: u64,
}

impl Default for SpecOptions {
    fn default() -> Self {
        Self {
            fallback_name: "Character".to_owned(),
            max_elements: 1 << 26,
        }
    }
}

/// A character read from a G4MF file: the spec, and what changed on the way.
#[derive(Debug, Clone, PartialEq)]
pub struct CharacterRead {
    /// The character.
    pub spec: CharacterSpec,
    /// What the spec holds only after a change, or leaves out, each said once with where it
    /// was first found and how many places it applies to.
    pub notes: Vec<CharacterNote>,
}

/// Something the spec holds only after a change, or leaves out.
#[derive(Debug, Clone, PartialEq)]
pub struct CharacterNote {
    /// The first place it applies to.
    pub location: Location,
    /// What.
    pub kind: NoteKind,
    /// How many places it applies to.
    pub count: usize,
}

impl fmt::Display for CharacterNote {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.location, self.kind)?;
        if self.count > 1 {
            write!(f, " ({} places)", self.count)?;
        }
        Ok(())
    }
}

/// What a [`CharacterNote`] says.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum NoteKind {
    /// The root node has a transform (the spec forbids it): everything is read in its space.
    #[error("the root node's transform is left out (everything is read in the root's space)")]
    RootTransformLeftOut,
    /// The skeleton node turns or scales: baked into the bones and meshes.
    #[error("the skeleton node's rotation and scale are baked into the bones and meshes")]
    SkeletonTransformBaked,
    /// A bone's basis is not a rotation in skeleton space (scale, shear or mirror).
    #[error(
        "a bone's basis scales, shears or mirrors: it becomes the rotation keeping its +Y \
         (its X made orthogonal, Z = X x Y) and its length takes the +Y scale"
    )]
    BoneNormalised,
    /// A bone without `length`.
    #[error("a bone has no length: 0 is used")]
    BoneWithoutLength,
    /// A bone's `mass`, `shape` or other properties.
    #[error("a bone's mass, shape and other bone properties are left out")]
    BonePropertiesLeftOut,
    /// A node that is not part of a character (camera, light, physics).
    #[error("a {0} node is left out (not part of a character)")]
    NodeLeftOut(&'static str),
    /// A hidden mesh instance (`visible: false` on it or an ancestor).
    #[error("a hidden mesh instance (`visible: false`) is left out")]
    HiddenMeshLeftOut,
    /// A mesh with a skin on a node that is not a direct child of the skeleton.
    #[error(
        "a mesh's skin is left out: its node is not a direct child of the skeleton, so the \
         skin does not apply (skeleton.md)"
    )]
    SkinIgnored,
    /// A mesh under a bone: it follows that bone, as a skin of weight 1 on it.
    #[error("a mesh under a bone is skinned to that bone with weight 1 (it moves with it)")]
    BoundToBone,
    /// Skin groups past the skeleton's joints (they do nothing, skeleton.md).
    #[error("skin entries on groups past the skeleton's joints do nothing and are left out")]
    GroupsBeyondJoints,
    /// Group names that differ from their joints' bone names.
    #[error("skin group names differ from their joints' bone names; the bone names are kept")]
    GroupNamesDiffer,
    /// Edges, polytope geometry or seams beside simplexes.
    #[error("a surface's edges, geometry and seams (topology) are left out; its triangles stay")]
    TopologyLeftOut,
    /// Simplexes marked as polytopes that do not form one fan.
    #[error("simplexes marked as one polytope do not form a fan: read as triangles")]
    PolytopeAsTriangles,
    /// Flat normals computed for a surface without normals in a mesh with them.
    #[error("a surface without normals in a mesh with normals gets flat normals")]
    FlatNormals,
    /// Vertices split because their corners had different normals.
    #[error(
        "{0} vertices added: a vertex whose corners have different normals is split \
         (position, skin and shape offsets copied)"
    )]
    VerticesSplit(usize),
    /// Blend-shape texture-map targets.
    #[error("blend-shape texture-map targets are left out")]
    TextureMapTargetsLeftOut,
    /// Blend-shape normal targets on a surface without normals.
    #[error("blend-shape normal targets on a surface without normals are left out")]
    NormalTargetsWithoutNormals,
    /// A material property a character spec has no field for.
    #[error("a material's `{0}` is left out")]
    MaterialPropertyLeftOut(String),
    /// A texture's sampler.
    #[error("a texture's sampler is left out (default sampling)")]
    SamplerLeftOut,
    /// A texture none of whose images glTF can hold.
    #[error("a texture has no PNG or JPEG image: its placeholder stands in")]
    NoUsableImage,
    /// The body's node and mesh extras (the spec has no place for them).
    #[error(
        "the body's node and mesh extras are left out (a character spec has no place for them)"
    )]
    BodyExtrasLeftOut,
}

/// The notes of one read, each kind once.
#[derive(Debug, Default)]
struct Notes(Vec<CharacterNote>);

impl Notes {
    /// Notes `kind` at `pointer` (only counted when already noted).
    fn add(&mut self, pointer: impl FnOnce() -> String, kind: NoteKind) {
        match self.0.iter_mut().find(|n| n.kind == kind) {
            Some(note) => note.count += 1,
            None => self.0.push(CharacterNote {
                location: Location::pointer(pointer()),
                kind,
                count: 1,
            }),
        }
    }
}

/// Reads `file` as a character: one skeleton (or none), its bones, and every visible mesh
/// instance as a mesh in the skeleton's space (the first under the skeleton, or the first at
/// all, is the body; the others are attachments in node order), with skins, blend shapes,
/// materials and textures. Refuses, with one located error, what a character spec cannot
/// hold; notes what it holds only after a change.
pub fn character_spec(
    file: &G4mfFile,
    options: &SpecOptions,
) -> Result<CharacterRead, CharacterError> {
    let doc = &file.document;
    if doc.asset.dimension != 3 {
        return Err(error(
            "/asset/dimension",
            CharacterErrorKind::Dimension(doc.asset.dimension),
        ));
    }
    if let Some(extension) = doc.asset.extensions_required.first() {
        return Err(error(
            "/asset/extensionsRequired/0",
            CharacterErrorKind::Unsupported(format!(
                "the file requires the extension `{extension}`, which this reader does not know"
            )),
        ));
    }
    let mut notes = Notes::default();
    let tree = tree::Tree::walk(doc, &mut notes)?;
    let skeleton = tree::Skeleton::find(doc, &tree, &mut notes)?;
    let instances = tree::instances(doc, &tree, skeleton.as_ref(), &mut notes)?;
    mesh::check_budget(file, &instances, options.max_elements)?;
    let materials = materials::MaterialTable::read(file, &instances, &mut notes)?;
    let mut reader = mesh::MeshReader::new(file, skeleton.as_ref(), &materials);
    let mut meshes = Vec::with_capacity(instances.len());
    for instance in &instances {
        meshes.push(reader.read(instance, &mut notes)?);
    }
    let mut spec = CharacterSpec {
        name: doc.nodes[0]
            .name
            .clone()
            .unwrap_or_else(|| options.fallback_name.clone()),
        generator: doc.asset.generator.clone().unwrap_or_default(),
        textures: materials.textures.clone(),
        ..CharacterSpec::default()
    };
    if let Some(skeleton) = skeleton {
        spec.skeleton_position = skeleton.frame.position;
        spec.skeleton_extras = doc.nodes[skeleton.node].extras.clone();
        spec.bones = skeleton.bones;
    }
    place_meshes(&mut spec, doc, &instances, meshes, &mut notes);
    Ok(CharacterRead {
        spec,
        notes: notes.0,
    })
}

/// The body (the first instance) and the attachments (the others, named by their nodes, with
/// their node and mesh extras) into `spec`.
fn place_meshes(
    spec: &mut CharacterSpec,
    doc: &g4mf_model::Document,
    instances: &[tree::Instance],
    meshes: Vec<mesh::ReadMesh>,
    notes: &mut Notes,
) {
    let mut meshes = instances.iter().zip(meshes);
    if let Some((instance, body)) = meshes.next() {
        let node = &doc.nodes[instance.node];
        if node.extras.is_some() || doc.meshes[instance.mesh].other.contains_key("extras") {
            notes.add(
                || format!("/nodes/{}", instance.node),
                NoteKind::BodyExtrasLeftOut,
            );
        }
        spec.mesh = Some(body.mesh);
        spec.influences = body.influences;
    }
    spec.attachments = meshes
        .map(|(instance, mut read)| {
            let node = &doc.nodes[instance.node];
            let name = attachment_name(
                node.name.as_deref(),
                doc.meshes[instance.mesh].name.as_deref(),
            )
            .unwrap_or_else(|| format!("Mesh{}", instance.node));
            unprefix_shapes(&mut read.mesh, &name);
            AttachmentSpec {
                name,
                mesh: read.mesh,
                influences: read.influences,
                node_extras: node.extras.clone(),
                mesh_extras: doc.meshes[instance.mesh].other.get("extras").cloned(),
            }
        })
        .collect();
}

/// An attachment's name: what our writers named its node and mesh after (`{name}`, and
/// `{name}Mesh`; the node's name gets `_2` when a bone already has it), so a rewrite names
/// both as the original did; else the node's name (none for an unnamed node).
fn attachment_name(node: Option<&str>, mesh: Option<&str>) -> Option<String> {
    let stem = mesh
        .and_then(|m| m.strip_suffix("Mesh"))
        .filter(|s| !s.is_empty());
    match (node, stem) {
        (Some(node), Some(stem))
            if node == stem
                || node
                    .strip_prefix(stem)
                    .and_then(|rest| rest.strip_prefix('_'))
                    .is_some_and(|n| n.bytes().all(|b| b.is_ascii_digit())) =>
        {
            Some(stem.to_owned())
        }
        (node, _) => node.map(str::to_owned),
    }
}

/// An attachment's shapes under the body's names: our G4MF writer names them
/// `{attachment}_{shape}` (G4MF names are file-wide); when every shape carries that prefix it
/// is taken off, as the spec holds them.
fn unprefix_shapes(mesh: &mut character_spec::MeshSpec, attachment: &str) {
    let prefix = format!("{attachment}_");
    let prefixed = |n: &str| n.len() > prefix.len() && n.starts_with(&prefix);
    if !mesh.blend_shapes.is_empty() && mesh.blend_shapes.iter().all(|s| prefixed(&s.name)) {
        for shape in &mut mesh.blend_shapes {
            shape.name.drain(..prefix.len());
        }
    }
}
