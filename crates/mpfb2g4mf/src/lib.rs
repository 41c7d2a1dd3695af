//! `mpfb2g4mf` as a library: the conversion pipeline behind the command-line tool, usable from
//! other Rust programs (batch jobs, services) without spawning the binary.
//!
//! A conversion is a [`job::Job`] (resolved from flags, a manifest or a `.mhm` by
//! [`job::Resolver`]), loaded by [`inputs::Loader`] and converted by [`convert::run`].

pub mod atomic;
pub mod batch;
pub mod convert;
pub mod derived;
pub mod error;
pub mod extras;
pub mod humanoid_match;
pub mod images;
pub mod inputs;
pub mod inspect;
pub mod interrupt;
pub mod iris;
pub mod job;
pub mod limits;
pub mod malloc_tuning;
pub mod options;
pub mod orm;
pub mod outfit;
pub mod paths;
pub mod picture;
pub mod setup;
pub mod shape_names;
pub mod stages;
pub mod summary;
pub mod tables;
pub mod timings;
pub mod to_mpfb;

pub use convert::convert;
pub use error::ConvertError;
pub use inputs::{LoadedMesh, LoadedRig, LoadedWeights, load_inputs};
pub use job::{Job, JobRequest, Resolver, RigChoice};
pub use options::{ConvertOptions, Origin, OutputFormat};
pub use stages::write::GENERATOR;
pub use summary::Summary;
