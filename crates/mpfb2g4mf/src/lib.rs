//! `mpfb2g4mf` as a library: the conversion pipeline behind the command-line tool, usable from
//! other Rust programs (batch jobs, services) without spawning the binary.
//!
//! A conversion is a [`Job`] (resolved from flags, a manifest or a `.mhm` by [`Resolver`]),
//! loaded and converted by [`convert::run`]; [`convert()`] converts inputs already loaded
//! ([`LoadedRig`], [`LoadedMesh`], [`LoadedWeights`]). A [`batch`] runs many jobs from a
//! manifest; [`to_mpfb`] converts a G4MF file back; [`inspect`] describes one; [`setup`] says
//! which MPFB data and MakeHuman assets are in use.
//!
//! The public surface is chosen: the modules below that are `pub` are the library's areas,
//! the rest (the stages, caches, asset fitting, tables) are its inside and reachable only
//! through them. [`files`] and [`process`] gather what a program around the pipeline needs:
//! files written whole or not at all, and a process's interrupt handling and timings.
//!
//! ```no_run
//! use mpfb2g4mf::job::{JobRequest, Resolver, RigChoice};
//! use mpfb2g4mf::options::Settings;
//!
//! // MPFB's game-engine rig on a described body, smiling and sitting, as a glTF file.
//! let settings = Settings {
//!     human: Some("characters/ada.mhm".into()),
//!     expression: Some("smile01".into()),
//!     pose: Some("sit01".into()),
//!     ..Settings::default()
//! };
//! let request = JobRequest {
//!     index: 0,
//!     rig: Some(RigChoice::Name("game_engine".into())),
//!     weights: None,
//!     no_weights: false,
//!     mesh: None,
//!     output: "out/ada.glb".into(),
//!     name: None,
//!     settings,
//! };
//! // The data folder and assets are found as the command line finds them ($MPFB_DATA, ...).
//! let job = Resolver::from_env().resolve(&request)?;
//! let summary = mpfb2g4mf::convert::run(&job)?;
//! for warning in &summary.warnings {
//!     eprintln!("{}", warning.message);
//! }
//! # Ok::<(), mpfb2g4mf::ConvertError>(())
//! ```

mod atomic;
mod confine;
mod derived;
mod error;
mod extras;
mod humanoid_match;
mod images;
mod inputs;
mod interrupt;
mod iris;
mod limits;
mod malloc_tuning;
mod orm;
mod outfit;
mod paths;
mod picture;
mod stages;
mod tables;
mod timings;

pub mod batch;
pub mod convert;
pub mod diagnostics;
pub mod expressions;
pub mod inspect;
pub mod job;
pub mod options;
pub mod poses;
pub mod report;
pub mod setup;
pub mod shape_names;
pub mod summary;
pub mod to_gltf;
pub mod to_mpfb;
pub mod vrm;

pub use convert::convert;
pub use error::{ConvertError, FallbackRefused};
pub use inputs::{LoadedMesh, LoadedRig, LoadedWeights, MeshTopology, load_inputs};
pub use job::{Job, JobRequest, Resolver, RigChoice};
pub use options::{ConvertOptions, Origin, OutputFormat};
pub use stages::write::GENERATOR;
pub use summary::Summary;

pub mod files {
    //! The files the tool writes: whole or not at all (a temporary file renamed into place,
    //! a `.g4tf` and its buffers replaced together), never over one of the job's inputs, and
    //! temporary files an interrupted run left behind found again.

    pub use crate::atomic::{Step, buffer_name, replace_text_with_buffers, write_atomic};
    pub use crate::interrupt::{STALE_AFTER, TEMP_PREFIX, TEMP_SUFFIX, remove_stale};
    pub use crate::paths::{Role, SameFile, check_distinct, check_output_apart};
}

pub mod image_files {
    //! Images as materials name them: checked within a bound (size from the header, then
    //! decoded) before they are embedded, copied or packed, and the `orm` map packed from
    //! occlusion, roughness and metallic maps no larger than the largest of them (each map
    //! sized from its header and decoded once, by the packing).

    pub use crate::images::{
        MAX_DECODE_BYTES, MAX_PIXELS, MAX_SIDE, Unusable, image_header, image_of,
    };
    pub use crate::orm::{MAX_PACKED_SIDE, Packed, pack as pack_orm};
}

pub mod process {
    //! What a process running conversions sets up once: the interrupt handler that removes
    //! half-written files (and the quiet end when the reader of its output has gone), the
    //! stage timings on standard error, and the malloc settings.

    #[cfg(feature = "cli")]
    pub use crate::interrupt::install as install_interrupt_handler;
    pub use crate::interrupt::{CLOSED_PIPE_EXIT, end_on_closed_pipe, is_closed_pipe_panic};
    pub use crate::malloc_tuning::{describe as malloc_setting, reexec_with_tuned_malloc};
    pub use crate::timings::{TIMINGS_ENV, lap};
}
