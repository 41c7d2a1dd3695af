//! Errors of building or encoding a glTF file from a character spec.

/// Why a character could not be written as glTF.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum GltfError {
    /// A bone's parent index is not a bone, bones form a cycle, or its rest basis is not a
    /// rotation (glTF nodes hold a unit quaternion).
    #[error("bone {bone} (`{name}`): {problem}")]
    BadBone {
        /// The bone's index in the spec.
        bone: usize,
        /// Its name.
        name: String,
        /// What is wrong.
        problem: String,
    },
    /// More bones than glTF's joint indices can address (16-bit `JOINTS_n`).
    #[error("{0} bones: a glTF skin addresses at most 65,535 joints")]
    TooManyJoints(usize),
    /// A number that must be finite is not.
    #[error("{what} is not finite")]
    NonFinite {
        /// What it was.
        what: String,
    },
    /// A skin influence refers to a vertex or bone that does not exist, or has a bad weight.
    #[error("{mesh}: skin influence {index}: {problem}")]
    BadInfluence {
        /// The mesh's name.
        mesh: String,
        /// The influence's position in the spec.
        index: usize,
        /// What is wrong.
        problem: String,
    },
    /// A face or blend shape refers to a vertex or texture coordinate that does not exist.
    #[error("{mesh}: {problem}")]
    BadMesh {
        /// The mesh's name.
        mesh: String,
        /// What is wrong.
        problem: String,
    },
    /// A texture that cannot be written.
    #[error("texture {texture}: {problem}")]
    BadTexture {
        /// The texture's position in the spec.
        texture: usize,
        /// What is wrong.
        problem: String,
    },
    /// An animation clip cannot be written (its keys or poses do not fit the skeleton).
    #[error("clip `{clip}`: {problem}")]
    BadClip {
        /// The clip's name.
        clip: String,
        /// What is wrong.
        problem: String,
    },
    /// A count or size beyond what glTF's 32-bit indices and GLB's 32-bit lengths hold.
    #[error("{0} exceeds glTF's limits")]
    TooLarge(String),
    /// The document could not be serialized.
    #[error("JSON serialization failed: {0}")]
    Json(#[from] serde_json::Error),
}
