//! `conformance`: the round-trip harness behind the tests and `cargo xtask roundtrip`. Its own
//! crate so the checks live with the tests instead of in `mpfb2g4mf`'s public API.

pub mod roundtrip;
