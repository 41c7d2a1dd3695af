//! `vrm-writer`: a glTF 2.0 character (`gltf-writer`'s [`BuiltGltf`](gltf_writer::BuiltGltf))
//! made a VRM 1.0 avatar: the `VRMC_vrm` extension (humanoid bones, expressions bound to morph
//! targets, look-at, first-person annotations, licence meta and thumbnail) and
//! `VRMC_springBone` (spring joints and their colliders), from a writer-neutral [`VrmSpec`]
//! that names bones and meshes as the [`CharacterSpec`](character_spec::CharacterSpec) does.
//! Also the VRM T-pose measured on a skeleton ([`tpose`]), so callers can hold a rest to
//! `tpose.md`, and animation clips as `.vrma` files (`VRMC_vrm_animation`, [`vrma`]). What maps where is in `spec-notes/vrm.md`.

#![forbid(unsafe_code)]

mod error;
pub mod humanoid;
mod meta;
pub mod model;
mod place;
mod spring;
pub mod tpose;
pub mod vrma;
mod vrmc_vrm;
mod write;

pub use error::VrmError;
pub use humanoid::{HumanoidError, REQUIRED, VRM_BONES, from_g4mf_names};
pub use meta::LICENSE_URL;
pub use model::*;
pub use vrma::{VRMC_VRM_ANIMATION, Vrma, VrmaError, make_vrma};
pub use vrmc_vrm::PRESET_EXPRESSIONS;
pub use write::{VRMC_SPRING_BONE, VRMC_VRM, VrmWritten, make_vrm};
