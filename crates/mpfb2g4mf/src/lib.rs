//! `mpfb2g4mf` as a library: the conversion pipeline behind the command-line tool, usable from
//! other Rust programs (batch jobs, services) without spawning the binary.

pub mod atomic;
pub mod batch;
pub mod convert;
pub mod data;
#[cfg(feature = "cli")]
pub mod demo;
pub mod extras;
pub mod inputs;
pub mod inspect;
pub mod malloc_tuning;
pub mod options;
pub mod picture;
pub mod shape_names;
pub mod stages;
pub mod timings;
pub mod to_mpfb;

pub use convert::{
    ConvertError, ConvertOptions, GENERATOR, LoadedMesh, LoadedRig, LoadedWeights, Origin,
    OutputFormat, Summary, convert, load_inputs,
};
