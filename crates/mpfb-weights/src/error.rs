//! Errors and warnings of reading and resolving weights.

pub use location::Location;

/// A weights file (or bone map) could not be read or resolved: where (`line:column` for
/// syntax-level problems, a JSON pointer for resolution problems) and what
/// ([`WeightsErrorKind`]).
pub type WeightsError = location::Located<WeightsErrorKind>;

/// What is wrong with weights input, grouped by cause.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum WeightsErrorKind {
    /// The file could not be read (the I/O error is quoted in the message, so not also a
    /// `source`).
    #[error("cannot read the file: {0}")]
    Io(std::io::Error),
    /// Not JSON, or the wrong JSON shape (a pair that is not `[integer, number]`, ...).
    #[error("{0}")]
    Json(String),
    /// A weight is NaN or infinite (Python's JSON writer emits `NaN`/`Infinity` tokens).
    #[error("weight `{token}` is not a finite number in f32's range")]
    NonFiniteWeight {
        /// The token found.
        token: String,
    },
    /// A weight is negative.
    #[error("group `{group}`: vertex {vertex} has a negative weight {weight}")]
    NegativeWeight {
        /// The group.
        group: String,
        /// The vertex.
        vertex: u32,
        /// The weight.
        weight: f64,
    },
    /// A JSON object repeats a key.
    #[error("duplicate key `{key}` (a weights file must not repeat keys)")]
    DuplicateKey {
        /// The key.
        key: String,
    },
    /// The file has no `weights` object.
    #[error("the file has no `weights` object")]
    MissingWeights,
    /// A vertex index is beyond the mesh.
    #[error("group `{group}`: vertex {vertex} is beyond the mesh's {vertex_count} vertices")]
    VertexOutOfRange {
        /// The group.
        group: String,
        /// The vertex index.
        vertex: u32,
        /// How many vertices the mesh has.
        vertex_count: usize,
    },
    /// A bone map sends a group to a bone the rig does not have.
    #[error("the bone map sends `{from}` to `{to}`, which is not a bone of the rig")]
    BoneMapTargetMissing {
        /// The group name.
        from: String,
        /// The target bone.
        to: String,
    },
}

/// Something worth telling the user that does not stop the conversion.
#[derive(Debug, Clone, PartialEq)]
pub enum WeightsWarning {
    /// A weight above 1 (MPFB allows it; engines may clamp).
    WeightAboveOne {
        /// The group.
        group: String,
        /// The vertex.
        vertex: u32,
        /// The weight.
        weight: f64,
        /// JSON pointer to the pair.
        pointer: String,
    },
    /// A group names a bone the rig does not have (and no rule or map resolved it).
    UnknownBone {
        /// The group.
        group: String,
    },
}

impl std::fmt::Display for WeightsWarning {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            WeightsWarning::WeightAboveOne {
                group,
                vertex,
                weight,
                pointer,
            } => write!(
                f,
                "{pointer}: group `{group}` gives vertex {vertex} a weight of {weight}, above 1"
            ),
            WeightsWarning::UnknownBone { group } => {
                write!(
                    f,
                    "group `{group}` is not a bone of the rig; its weights are dropped"
                )
            }
        }
    }
}
