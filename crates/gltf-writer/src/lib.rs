//! `gltf-writer`: writes a character spec (`character-spec`) as glTF 2.0, the format engines
//! load: the skeleton as a node hierarchy, one skin with inverse bind matrices, a mesh per body
//! and worn asset with a primitive per surface, vertices split at texture seams, up to four
//! influences a set, blend shapes as morph targets (sparse where few vertices move),
//! `pbrMetallicRoughness` materials with MikkTSpace tangents for normal maps, and `.glb` or
//! `.gltf` containers. The document model is `gltf-json`'s. What maps where, and why, is in
//! `spec-notes/gltf.md`.

#![forbid(unsafe_code)]

pub mod animation;
mod buffer;
pub mod character;
pub mod container;
pub mod error;
mod materials;
mod shapes;
mod skin;
mod tangents;
mod vertices;

pub use animation::{ClipSpec, add_clips};
pub use buffer::VIEW_ALIGNMENT;
pub use character::{BuiltGltf, GltfOptions, MAX_JOINTS, WrittenMesh, build_gltf};
pub use container::{
    BufferStorage, ContainerOptions, GLB_MAGIC, GlbParts, TextFile, glb_parts, gltf_text,
};
pub use error::GltfError;
pub use gltf_json as json;
pub use materials::ALPHA_CUTOFF;
