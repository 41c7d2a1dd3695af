//! `mpfb-weights`: reads MPFB weight files (every pair, exactly as written), resolves groups
//! against a rig's bones, and builds a deterministic per-vertex skin in G4MF order.

pub mod error;
pub mod fast;
pub mod parse;
pub mod resolve;
pub mod skin;
mod weights_file;

pub use error::{Location, WeightsError, WeightsErrorKind, WeightsWarning};
pub use parse::{
    WeightGroup, WeightsFile, is_mask_group, parse_weights, parse_weights_typed, read_weights_file,
};
pub use resolve::{
    BoneMap, DropReason, DroppedGroup, MAX_BONE_MAP_BYTES, MatchRule, Merge, Resolution, RigBones,
    parse_bone_map, read_bone_map, resolve,
};
pub use skin::{Skin, SkinStats, VertexKeyed, for_each_vertex_run};
