//! The errors of reading, checking and fitting a rig.

/// A rig could not be read, checked or fitted: where ([`crate::location::Location`]) and what
/// ([`RigErrorKind`]).
pub type RigError = location::Located<RigErrorKind>;

/// What is wrong with a rig, grouped by cause: unreadable input, input that is not a rig we
/// support, a rig whose structure is broken, and a rig that cannot be fitted to the given mesh.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RigErrorKind {
    /// The file could not be read.
    #[error("cannot read the rig file: {0}")]
    Io(#[source] std::io::Error),
    /// The text is not valid JSON, or a value has the wrong JSON type or shape.
    #[error("{0}")]
    Json(String),
    /// A JSON object repeats a key; MPFB's loader would silently keep the last one.
    #[error("duplicate key `{key}` (JSON objects in rig files must not repeat keys)")]
    DuplicateKey {
        /// The repeated key.
        key: String,
    },
    /// The top-level value is not an object.
    #[error("a rig file must be a JSON object, found {found}")]
    NotAnObject {
        /// The JSON type found instead.
        found: &'static str,
    },
    /// A file with a `joints` key is a MakeHuman `.mhskel` skeleton, not an MPFB rig.
    #[error(
        "this is a MakeHuman .mhskel skeleton (it has a `joints` key), not an MPFB rig definition"
    )]
    MhskelNotSupported,
    /// A file with a `bones` key must say which version it is.
    #[error("a rig with a `bones` key must have a `version` key (100 or 110)")]
    MissingVersion,
    /// A version newer than we know.
    #[error("rig format version {version} is newer than the newest supported version (110)")]
    UnsupportedVersion {
        /// The version found.
        version: u64,
    },
    /// A bone end names a strategy we do not know.
    #[error(
        "bone `{bone}`: unknown strategy `{strategy}` (expected CUBE, VERTEX, MEAN, XYZ or DEFAULT)"
    )]
    UnknownStrategy {
        /// The bone.
        bone: String,
        /// The strategy as written.
        strategy: String,
    },
    /// A strategy lacks a field it needs.
    #[error("bone `{bone}`: strategy {strategy} needs the field `{field}`")]
    MissingStrategyField {
        /// The bone.
        bone: String,
        /// The strategy.
        strategy: &'static str,
        /// The missing field.
        field: &'static str,
    },
    /// An XYZ strategy must list exactly three vertices (x, y, z sources).
    #[error("bone `{bone}`: strategy XYZ needs exactly 3 vertex_indices, found {found}")]
    XyzNeedsThreeIndices {
        /// The bone.
        bone: String,
        /// How many indices were listed.
        found: usize,
    },
    /// A roll strategy we do not know.
    #[error(
        "bone `{bone}`: unknown roll_strategy `{value}` (expected ALIGN_Z_WORLD_Z, ALIGN_X_WORLD_X or ALIGN_Z_REFERENCE_Z)"
    )]
    UnknownRollStrategy {
        /// The bone.
        bone: String,
        /// The value as written.
        value: String,
    },
    /// `ALIGN_Z_REFERENCE_Z` needs its reference vector.
    #[error(
        "bone `{bone}`: roll_strategy ALIGN_Z_REFERENCE_Z needs `roll_reference_z` ([x, y, z])"
    )]
    MissingRollReference {
        /// The bone.
        bone: String,
    },
    /// A bone's parent is not a bone of this rig.
    #[error("bone `{bone}`: parent `{parent}` is not a bone of this rig")]
    UnknownParent {
        /// The bone.
        bone: String,
        /// The parent as written.
        parent: String,
    },
    /// Following parents from a bone comes back to it.
    #[error("parent cycle: {}", cycle.join(" -> "))]
    ParentCycle {
        /// The bones of the cycle, starting and ending with the same bone.
        cycle: Vec<String>,
    },
    /// A constraint must have a `type` and a `name`.
    #[error("bone `{bone}`: constraint {index} lacks its mandatory `{field}`")]
    ConstraintField {
        /// The bone.
        bone: String,
        /// The constraint's position in the list.
        index: usize,
        /// The missing field.
        field: &'static str,
    },
    /// A fitted bone has (almost) no length, so it has no direction.
    #[error(
        "bone `{bone}`: fitted head and tail coincide (length {length:e} m), so the bone has no direction"
    )]
    ZeroLengthBone {
        /// The bone.
        bone: String,
        /// The fitted length in Blender units.
        length: f64,
    },
    /// An end fell back to `default_position`, but the rig gives none.
    #[error("bone `{bone}`: {end} cannot be placed ({reason}) and has no default_position")]
    NoPosition {
        /// The bone.
        bone: String,
        /// Which end.
        end: crate::model::BoneEnd,
        /// Why the strategy failed.
        reason: String,
    },
    /// A computed position is not finite (NaN or infinite input values).
    #[error("bone `{bone}`: {end} position is not finite")]
    NonFinitePosition {
        /// The bone.
        bone: String,
        /// Which end.
        end: crate::model::BoneEnd,
    },
}
