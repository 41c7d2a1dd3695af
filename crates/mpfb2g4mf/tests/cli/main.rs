//! The crate's integration tests, one binary so they compile and link once: the real
//! `mpfb2g4mf` binary end to end, one module a subcommand (or a part of `convert`): outputs
//! read back and checked, and the error paths (exit codes, one-line messages, no file left
//! behind); then the other files of `tests/` (architecture, hostile inputs, golden bytes, the
//! README's examples, glTF and VRM clients, ...) as modules.

#![allow(clippy::unwrap_used)] // Tests fail loudly by design.

mod common;

mod batch;
mod blender_gltf;
mod bodies;
mod convert;
mod demo;
mod deny;
mod diagnostics;
mod environment;
mod humanoid;
mod poses;
mod poses_blender;
mod preview;
mod reference;
mod rest_pose;
mod shapes;
mod to_mpfb;
mod validate;
mod vrm_expressions;
mod vrma;

// The crate's other integration tests, modules of this one binary (one link, not sixteen).
#[path = "../architecture.rs"]
mod architecture;
#[path = "../bad_input.rs"]
mod bad_input;
#[path = "../character_spec.rs"]
mod character_spec;
#[path = "../clips.rs"]
mod clips;
#[path = "../data.rs"]
mod data;
#[path = "../dressed.rs"]
mod dressed;
#[path = "../gltf.rs"]
mod gltf;
#[path = "../golden_bytes.rs"]
mod golden_bytes;
#[path = "../hostile_g4mf.rs"]
mod hostile_g4mf;
#[path = "../hostile_gltf.rs"]
mod hostile_gltf;
#[path = "../hostile_inputs.rs"]
mod hostile_inputs;
#[path = "../humanoid.rs"]
mod humanoid_names;
#[path = "../readme.rs"]
mod readme;
#[path = "../textures.rs"]
mod textures;
#[path = "../vrm.rs"]
mod vrm;
