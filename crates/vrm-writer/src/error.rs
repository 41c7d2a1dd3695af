//! Why a character cannot be made a VRM: each refusal names what is wrong and where, and the
//! number checks every written value goes through (finite, within its range).

use crate::humanoid::HumanoidError;
use glam::DVec3;

/// Why [`make_vrm`](crate::make_vrm) refused.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum VrmError {
    /// The humanoid map does not fit VRM's humanoid.
    #[error(transparent)]
    Humanoid(#[from] HumanoidError),
    /// The glTF character was not built from this spec (its bones or meshes do not match).
    #[error("the glTF character was not built from this character spec: {0}")]
    NotBuiltFromSpec(String),
    /// The document is a VRM already.
    #[error("the glTF document already has a VRMC_vrm extension")]
    AlreadyVrm,
    /// `meta.authors` is empty.
    #[error("VRM meta needs at least one author")]
    NoAuthors,
    /// A meta text VRM requires to be non-empty is empty (the name, an author).
    #[error("VRM meta's {field} is empty")]
    EmptyMetaText {
        /// Which text.
        field: &'static str,
    },
    /// The thumbnail is not a square PNG.
    #[error("the VRM thumbnail {0}")]
    BadThumbnail(String),
    /// A mesh reference names no mesh of the character.
    #[error("{what} names {mesh}, which the character does not have")]
    UnknownMesh {
        /// Where it is named.
        what: String,
        /// The mesh named (`the body` or `attachment N`).
        mesh: String,
    },
    /// A morph-target bind names a blend shape its mesh does not have.
    #[error("expression `{expression}` binds blend shape `{shape}`, which {mesh} does not have")]
    UnknownShape {
        /// The expression.
        expression: String,
        /// The shape's name.
        shape: String,
        /// The mesh (`the body` or `attachment N (name)`).
        mesh: String,
    },
    /// A morph-target bind names a blend shape that two shapes of its mesh share.
    #[error(
        "expression `{expression}` binds blend shape `{shape}`, a name {mesh} gives two shapes"
    )]
    AmbiguousShape {
        /// The expression.
        expression: String,
        /// The shape's name.
        shape: String,
        /// The mesh.
        mesh: String,
    },
    /// An expression marked preset whose name is not one of VRM's presets.
    #[error("expression `{0}` is marked preset, but VRM has no preset of that name")]
    NotAPreset(String),
    /// A custom expression named as a preset (VRM forbids it).
    #[error("custom expression `{0}` has a preset's name (VRM forbids it): mark it preset")]
    CustomNamedAsPreset(String),
    /// Two expressions of one name.
    #[error("two expressions are named `{0}`")]
    DuplicateExpression(String),
    /// A custom expression without a name.
    #[error("a custom expression has no name")]
    UnnamedExpression,
    /// A mesh annotated twice for first person.
    #[error("{0} has two first-person annotations")]
    DuplicateAnnotation(String),
    /// A bone look-at on a humanoid without both eye bones.
    #[error("a look-at of type bone turns leftEye and rightEye, but the humanoid lacks {0}")]
    LookAtWithoutEyes(&'static str),
    /// A number that must be finite is not.
    #[error("{what} is not finite")]
    NonFinite {
        /// What it is.
        what: String,
    },
    /// A number outside its range.
    #[error("{what} is {value}, outside {range}")]
    OutOfRange {
        /// What it is.
        what: String,
        /// Its value.
        value: f64,
        /// The range VRM allows.
        range: &'static str,
    },
    /// A spring's gravity direction that is not a unit vector.
    #[error("{what} is {value:?}, not a unit direction")]
    NotUnit {
        /// What it is.
        what: String,
        /// Its value.
        value: [f64; 3],
    },
    /// A collider or spring joint names a bone the skeleton does not have.
    #[error("{what} names bone {bone}, which the skeleton does not have")]
    UnknownBone {
        /// Where it is named.
        what: String,
        /// The bone index.
        bone: usize,
    },
    /// A spring joint that does not descend from the joint before it.
    #[error(
        "spring `{spring}`: joint {joint} (bone `{bone}`) does not descend from the joint before \
         it (bone `{previous}`): a spring's joints are a chain, parent first"
    )]
    BrokenChain {
        /// The spring.
        spring: String,
        /// The joint's position in the spring.
        joint: usize,
        /// Its bone's name.
        bone: String,
        /// The previous joint's bone's name.
        previous: String,
    },
    /// A bone that is a joint of two springs, or twice of one (VRM forbids it).
    #[error("bone `{bone}` is a joint of spring `{first}` and of spring `{second}`")]
    SharedJoint {
        /// The bone's name.
        bone: String,
        /// One spring.
        first: String,
        /// The other (the same for a bone twice in one spring).
        second: String,
    },
    /// A spring without joints.
    #[error("spring `{0}` has no joints")]
    EmptySpring(String),
    /// A collider group without colliders.
    #[error("collider group `{0}` has no colliders")]
    EmptyColliderGroup(String),
    /// An index into the colliders or collider groups that is out of range.
    #[error("{what} names {kind} {index}, which does not exist")]
    UnknownIndex {
        /// Where it is named.
        what: String,
        /// `collider` or `collider group`.
        kind: &'static str,
        /// The index.
        index: usize,
    },
    /// More images, views or bytes than glTF's 32-bit indices and lengths hold.
    #[error("{0} exceeds glTF's limits")]
    TooLarge(String),
}

/// `value`, refused when not finite.
pub(crate) fn finite(what: impl FnOnce() -> String, value: f64) -> Result<f64, VrmError> {
    if value.is_finite() {
        Ok(value)
    } else {
        Err(VrmError::NonFinite { what: what() })
    }
}

/// `value`, refused when not finite or outside `lo..=hi`.
pub(crate) fn within(
    what: impl Fn() -> String,
    value: f64,
    lo: f64,
    hi: f64,
    range: &'static str,
) -> Result<f64, VrmError> {
    finite(&what, value)?;
    if (lo..=hi).contains(&value) {
        Ok(value)
    } else {
        Err(VrmError::OutOfRange {
            what: what(),
            value,
            range,
        })
    }
}

/// `value`, refused when not finite or negative.
pub(crate) fn not_negative(what: impl Fn() -> String, value: f64) -> Result<f64, VrmError> {
    within(what, value, 0.0, f64::INFINITY, "0 and above")
}

/// A point's or direction's components, refused when one is not finite.
pub(crate) fn finite3(what: impl FnOnce() -> String, value: DVec3) -> Result<[f64; 3], VrmError> {
    if value.is_finite() {
        Ok(value.to_array())
    } else {
        Err(VrmError::NonFinite { what: what() })
    }
}
