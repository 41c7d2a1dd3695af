//! mpfb-body's integration tests in one binary (one link instead of 3): `description`, `macros`, `targets`.

#![allow(clippy::unwrap_used)] // Tests fail loudly by design.

mod description;
mod macros;
mod targets;
