//! `mpfb-mesh`: reads OBJ meshes keeping the file's vertex numbering (which rigs and weights
//! index into), derives joint-cube groups, and extracts the exported body.

pub mod error;
pub mod groups;
pub mod obj;

pub use error::{Location, MeshError, MeshErrorKind};
pub use groups::{
    Extraction, VertexGroups, is_joint_group, joint_groups, joint_groups_from_faces,
    parse_vertex_groups, read_vertex_group_file, vertex_groups_from_faces,
};
pub use obj::{Corner, ObjLimits, ObjMesh, parse_obj, parse_obj_with_limits, read_obj_file};
