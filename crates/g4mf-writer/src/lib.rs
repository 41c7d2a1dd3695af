//! `g4mf-writer`: builds G4MF characters (skeleton, bones, joints, skinned mesh) and encodes
//! them as `.g4b` or `.g4tf`. Every ordering, alignment and naming rule of the pinned spec
//! holds by construction; see `spec-notes/g4mf.md` for which rule is enforced where.

pub mod buffer;
pub mod character;
pub mod container;
pub mod error;
mod prepared;
mod skin;
pub mod thumbnail;

pub use buffer::{BufferBuilder, Encoded, IndexWidth, VIEW_ALIGNMENT};
pub use character::{
    BuiltCharacter, CharacterOptions, SPECIFICATION, WrittenSkin, build_character,
    build_character_with, order_skin,
};
/// The writer-neutral spec this writer reads, re-exported so G4MF-only callers need one crate.
pub use character_spec::{
    AttachmentSpec, BlendShapeSpec, BoneSpec, CharacterSpec, Corners, FaceSpec, ImageSpec,
    Influence, Influences, MaterialSpec, MeshSpec, Offsets, SurfaceSpec, Surfaces, TextureSpec,
    names,
};
pub use container::{
    Compression, ContainerOptions, G4bParts, TextBufferStorage, TextFile, g4b_parts, to_json,
    write_g4b, write_g4tf,
};
pub use error::WriteError;
pub use g4mf_model as model;
pub use names::{NameRegistry, is_valid_name, sanitize};
pub use thumbnail::embed_thumbnail;
