//! `mpfb-body`: a MakeHuman body is its modifiers, the base mesh plus weighted morph targets.
//!
//! - [`target`]: reading `.target` and `.target.gz` files (sparse displacements of the
//!   19158-vertex base mesh, in its own frame and units), with located errors.
//! - [`index`]: the targets folder indexed by base name, as `.mhm` files and MPFB presets name
//!   targets.
//! - [`macros`]: the phenotype (gender, age, muscle, weight, height, proportions, cup size,
//!   firmness, race mix) and the macro targets it weights, by MPFB's rule (the default) or by
//!   MakeHuman 1.x's.
//! - [`morph()`]: `v = base + sum w_i * delta_i`, accumulated in f64, deterministic.
//! - [`description`]: `.mhm` files and MPFB presets read into one [`Description`], and the
//!   target files it applies.
//!
//! Facts behind the rules: `../shared/design/makehuman-bodies.md`; our choices:
//! `spec-notes/bodies.md`.

/// Vertices of MakeHuman's base mesh (`base.obj`, helpers included): targets, weights and
/// rigs number these.
pub const BASE_MESH_VERTICES: usize = 19_158;

/// The vertex group of MakeHuman's base mesh that is the body proper; the others are helpers
/// (joint cubes, eyes, teeth, tongue, tights, skirt, hair, eyelashes).
pub const BODY_PART: &str = "body";

pub mod cache;
pub mod description;
pub mod index;
pub mod macros;
pub mod morph;
pub mod target;

pub use cache::{default_cache_dir, read_target_cached};
pub use description::{
    AssetChoice, AssetMaterialChoice, Description, SkinChoice, parse_description, parse_mhm,
    parse_preset, read_description,
};
pub use index::TargetIndex;
pub use macros::{MacroModel, MacroSpec, Phenotype, Race};
pub use makehuman_assets::AssetKind;
pub use morph::morph;
pub use target::{
    Target, TargetError, TargetErrorKind, decode_target, parse_target, read_target_file,
};
