//! g4mf-preview's integration tests in one binary (one link instead of 2): `gltf`, `preview`.

#![allow(clippy::unwrap_used)] // Tests fail loudly by design.

mod gltf;
mod preview;
