//! `mpfb-rig`: reads MPFB rig definitions and fits them to a MakeHuman-style mesh exactly as
//! MPFB does inside Blender, producing bone heads, tails and rest bases in G4MF space.
//!
//! ```no_run
//! use mpfb_rig::{FitMesh, fit, read_rig_file};
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let rig = read_rig_file("rig.default.json".as_ref())?;
//! let mesh = FitMesh::new(Vec::new(), Vec::<(String, Vec<u32>)>::new().iter().map(|(n, v)| (n, v)));
//! let fitted = fit(&rig, &mesh)?;
//! println!("{} bones, {} fallbacks", fitted.bones.len(), fitted.fallbacks.len());
//! # Ok(()) }
//! ```
//!
//! See `spec-notes/mpfb-rig.md` for the layouts, strategies, coordinate mapping and roll maths.

pub mod check;
pub mod error;
pub mod fit;
pub mod frame;
pub mod location;
pub mod model;
pub mod parse;
pub mod pose;
pub mod space;
pub mod write;

pub use error::{RigError, RigErrorKind};
pub use fit::{
    EndSource, Fallback, FallbackReason, FitMesh, FitWarning, FittedBone, FittedRig, fit,
};
pub use location::Location;
pub use model::{
    Bone, BoneEnd, Constraint, Endpoint, Rig, RigHeader, RigLayout, Rigify, RollStrategy, Strategy,
};
pub use parse::{parse_rig, read_rig_file};
pub use pose::{Pose, PoseError, parse_pose, read_pose_file};
pub use space::{ObjFrame, ScaleWarning, UpAxis};
pub use write::{RigJson, bone_to_json, header_to_json, rig_to_json};
