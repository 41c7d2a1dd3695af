//! The real `mpfb2g4mf` binary end to end, one module a subcommand (or a part of `convert`):
//! outputs read back and checked, and the error paths (exit codes, one-line messages, no file
//! left behind). One test binary, so the tests compile and link once.

#![allow(clippy::unwrap_used)] // Tests fail loudly by design.

mod common;

mod batch;
mod blender_gltf;
mod bodies;
mod convert;
mod demo;
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
