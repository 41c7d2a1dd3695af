//! mpfb-rig's integration tests in one binary (one link instead of 3): `fit_synthetic`, `parse_and_check`, `real_rigs`.

#![allow(clippy::unwrap_used)] // Tests fail loudly by design.

mod fit_synthetic;
mod parse_and_check;
mod real_rigs;
