//! `makehuman-poses`: MakeHuman's poses and expressions on disk, read strictly, located and
//! bounded like every other reader of the workspace.
//!
//! - [`parse_bvh`] reads BVH motion (MakeHuman's poses, its face pose units, mocap clips) and
//!   [`parse_meta`] the `.meta` file beside one.
//! - [`parse_mhpose`] reads a `.mhpose` expression (weights of face pose units),
//!   [`parse_unit_names`] the pose units' frame names, [`parse_mhskel`] a `.mhskel` skeleton.
//! - [`motion`] holds MakeHuman's arithmetic: Z-up files converted, pose units blended into an
//!   expression, a skeleton posed about its rest heads, a vertex skinned; [`FaceRig`] an
//!   expression as MakeHuman computes it, a displacement of every vertex ([`parse_mhw`] reads
//!   the weights it skins with); [`pose`] a BVH frame as MakeHuman poses a skeleton with it
//!   (each joint's world turn from rest, the root's scaled move).
//!
//! Its own crate because motion is a capability of its own: the converter's posing and
//! expression stages, tests and fuzz targets use these readers without rigs, weights or G4MF.
//! Values are kept as the files have them (MakeHuman's BVH files are Z-up, in degrees and
//! decimetres); converting them is the caller's business.

pub mod bvh;
pub mod error;
pub mod expression;
pub mod json_files;
pub mod motion;
pub mod pose;

pub use bvh::{Bvh, BvhJoint, BvhMeta, Channel, parse_bvh, parse_meta};
pub use error::{PoseError, PoseErrorKind};
pub use expression::{Displacement, FaceRig, fitted_bone_length};
pub use json_files::{
    MhPose, MhSkel, MpfbExpression, SkelBone, parse_mhpose, parse_mhskel, parse_mhw,
    parse_mpfb_expression, parse_unit_names,
};
pub use pose::{FramePose, RootTranslation, frame_pose};
