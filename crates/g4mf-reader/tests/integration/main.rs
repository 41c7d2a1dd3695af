//! g4mf-reader's integration tests in one binary (one link instead of 3): `character`, `read`, `transform`.

#![allow(clippy::unwrap_used)] // Tests fail loudly by design.

mod character;
mod read;
mod transform;
