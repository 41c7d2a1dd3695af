//! test-support's integration tests in one binary (one link instead of 3): `clients`, `gltf_read`, `vrm_client`.

#![allow(clippy::unwrap_used)] // Tests fail loudly by design.

mod clients;
mod gltf_read;
mod vrm_client;
