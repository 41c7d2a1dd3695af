//! The typed MPFB rig model: header, bones, bone ends and everything MPFB stores per bone.
//!
//! Field names follow MPFB's JSON keys. Keys we do not know are kept verbatim in `extra`
//! maps so a rig can be written back unchanged.

use serde_json::{Map, Value};
use std::fmt;

/// Which of the three layouts found in the wild a rig file used.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RigLayout {
    /// A bare map of bone name to bone, no header (implicitly version 100).
    Bare,
    /// A header with `version: 100` and a `bones` key; bones may carry 32 `layers` booleans.
    V100,
    /// A header with `version: 110`; bones carry named `collections`.
    V110,
}

impl RigLayout {
    /// The format version this layout corresponds to.
    pub fn version(self) -> u32 {
        match self {
            RigLayout::Bare | RigLayout::V100 => 100,
            RigLayout::V110 => 110,
        }
    }
}

/// A parsed rig. Version 100 input is upgraded to version 110 as MPFB does on load
/// (layers become collections); [`Rig::source_layout`] records what the file was.
#[derive(Debug, Clone, PartialEq)]
pub struct Rig {
    /// The layout of the file this rig was read from.
    pub source_layout: RigLayout,
    /// Header fields (absent in bare files).
    pub header: RigHeader,
    /// Bones in file order.
    pub bones: Vec<Bone>,
}

/// The rig-level header of version 100/110 files.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct RigHeader {
    /// True when the rig must be parented to another rig.
    pub is_subrig: bool,
    /// Unit scale used when the rig was saved (0.1 for MakeHuman's decimetre mesh in metres).
    pub scale_factor: Option<f64>,
    /// Blender bone collection names (version 110).
    pub collections: Option<Vec<String>>,
    /// Deform bones that only exist after Rigify generation.
    pub extra_bones: Option<Vec<String>>,
    /// Rigify UI metadata, free-form.
    pub rigify_ui: Option<Value>,
    /// Header keys we do not know, verbatim.
    pub extra: Map<String, Value>,
}

/// One bone definition.
#[derive(Debug, Clone, PartialEq)]
pub struct Bone {
    /// The MPFB bone name (unique in the rig).
    pub name: String,
    /// Where the head goes.
    pub head: Endpoint,
    /// Where the tail goes.
    pub tail: Endpoint,
    /// Roll about the bone's own Y axis, radians (replaced when a roll strategy is set).
    pub roll: f64,
    /// The parent bone's name; `None` for root bones (MPFB writes an empty string).
    pub parent: Option<String>,
    /// Blender `use_connect`.
    pub use_connect: bool,
    /// Blender `use_inherit_rotation`.
    pub use_inherit_rotation: bool,
    /// Blender `use_local_location`.
    pub use_local_location: bool,
    /// Blender `inherit_scale` (`FULL`, `FIX_SHEAR`, `ALIGNED`, `AVERAGE`, `NONE`, `NONE_LEGACY`).
    pub inherit_scale: String,
    /// Rigify metadata.
    pub rigify: Rigify,
    /// Bone collections (version 110, or upgraded from `layers`).
    pub collections: Option<Vec<String>>,
    /// Pose-bone constraints.
    pub constraints: Option<Vec<Constraint>>,
    /// Rotation mode for animation (`QUATERNION` when absent).
    pub rotation_mode: Option<String>,
    /// Non-default B-bone settings.
    pub bendy_bone: Option<Map<String, Value>>,
    /// Automatic roll rule; replaces `roll` when set.
    pub roll_strategy: Option<RollStrategy>,
    /// Bone keys we do not know, verbatim.
    pub extra: Map<String, Value>,
}

/// Rigify metadata of a bone (`{}` for non-Rigify rigs).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Rigify {
    /// Generator type, e.g. `limbs.super_limb`.
    pub rigify_type: Option<String>,
    /// Generator parameters, free-form.
    pub rigify_parameters: Option<Map<String, Value>>,
    /// Other keys, verbatim.
    pub extra: Map<String, Value>,
}

/// A pose-bone constraint: Blender property names; `type` and `name` are mandatory.
#[derive(Debug, Clone, PartialEq)]
pub struct Constraint {
    /// Blender constraint type, e.g. `COPY_TRANSFORMS`.
    pub constraint_type: String,
    /// Constraint name.
    pub name: String,
    /// Every other property, verbatim and in file order.
    pub properties: Map<String, Value>,
}

/// Which end of a bone.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BoneEnd {
    /// The head (the bone's origin).
    Head,
    /// The tail (head + length along local +Y).
    Tail,
}

impl BoneEnd {
    /// The JSON key of this end.
    pub fn key(self) -> &'static str {
        match self {
            BoneEnd::Head => "head",
            BoneEnd::Tail => "tail",
        }
    }
}

impl fmt::Display for BoneEnd {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.key())
    }
}

/// How one bone end is placed relative to the mesh.
#[derive(Debug, Clone, PartialEq)]
pub struct Endpoint {
    /// The placement rule.
    pub strategy: Strategy,
    /// Where the end goes when the strategy cannot be evaluated (Blender space).
    pub default_position: Option<[f64; 3]>,
    /// Constant added to a successful strategy result, scaled by the relative scale.
    pub offset: Option<[f64; 3]>,
    /// Keys we do not know (or that the strategy does not use), verbatim.
    pub extra: Map<String, Value>,
}

/// A placement rule for a bone end.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Strategy {
    /// The centre (vertex mean) of a joint-cube vertex group.
    Cube {
        /// The vertex group, e.g. `joint-l-shoulder`.
        cube_name: String,
    },
    /// One mesh vertex.
    Vertex {
        /// The vertex index.
        vertex_index: u32,
    },
    /// The mean of listed vertices.
    Mean {
        /// The vertex indices (MPFB accepts any count; an empty list falls back).
        vertex_indices: Vec<u32>,
    },
    /// x of the first, y of the second, z of the third vertex (Blender axes).
    Xyz {
        /// The x, y and z source vertices.
        vertex_indices: [u32; 3],
    },
    /// No rule: MPFB wrote this for ends it could not match; use `default_position`.
    Default,
}

impl Strategy {
    /// The strategy's name as written in rig files.
    pub fn name(&self) -> &'static str {
        match self {
            Strategy::Cube { .. } => "CUBE",
            Strategy::Vertex { .. } => "VERTEX",
            Strategy::Mean { .. } => "MEAN",
            Strategy::Xyz { .. } => "XYZ",
            Strategy::Default => "DEFAULT",
        }
    }
}

/// A rule that computes a bone's roll from its direction instead of the stored `roll`.
#[derive(Debug, Clone, PartialEq)]
pub enum RollStrategy {
    /// Local Z as close as possible to world Z (Blender space, up).
    AlignZWorldZ,
    /// Local X as close as possible to world X.
    AlignXWorldX,
    /// Local Z as close as possible to a stored reference vector (Blender space).
    AlignZReferenceZ {
        /// The reference vector, from the bone's `roll_reference_z`.
        reference: [f64; 3],
    },
}

impl RollStrategy {
    /// The strategy's name as written in rig files.
    pub fn name(&self) -> &'static str {
        match self {
            RollStrategy::AlignZWorldZ => "ALIGN_Z_WORLD_Z",
            RollStrategy::AlignXWorldX => "ALIGN_X_WORLD_X",
            RollStrategy::AlignZReferenceZ { .. } => "ALIGN_Z_REFERENCE_Z",
        }
    }
}

impl Rig {
    /// The index of the bone with this name.
    pub fn bone_index(&self, name: &str) -> Option<usize> {
        self.bones.iter().position(|b| b.name == name)
    }

    /// Parent index of every bone (`None` for roots). Assumes [`crate::check`] passed.
    pub fn parent_indices(&self) -> Vec<Option<usize>> {
        let index: std::collections::HashMap<&str, usize> = self
            .bones
            .iter()
            .enumerate()
            .map(|(i, b)| (b.name.as_str(), i))
            .collect();
        self.bones
            .iter()
            .map(|b| b.parent.as_deref().and_then(|p| index.get(p).copied()))
            .collect()
    }

    /// Bone indices with every parent before its children: a depth-first pre-order walk from
    /// the roots, visiting roots and siblings in file order. Assumes [`crate::check`] passed.
    pub fn hierarchy_order(&self) -> Vec<usize> {
        let parents = self.parent_indices();
        let mut children: Vec<Vec<usize>> = vec![Vec::new(); self.bones.len()];
        let mut roots = Vec::new();
        for (i, parent) in parents.iter().enumerate() {
            match parent {
                Some(p) => children[*p].push(i),
                None => roots.push(i),
            }
        }
        let mut order = Vec::with_capacity(self.bones.len());
        let mut stack: Vec<usize> = roots.into_iter().rev().collect();
        while let Some(i) = stack.pop() {
            order.push(i);
            stack.extend(children[i].iter().rev());
        }
        order
    }
}
