//! Errors of building or encoding a G4MF file.

/// Why a character could not be written.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum WriteError {
    /// A bone's parent index is not a bone, or bones form a cycle.
    #[error("bone {bone} (`{name}`): {problem}")]
    BadBone {
        /// The bone's index in the input.
        bone: usize,
        /// Its name.
        name: String,
        /// What is wrong.
        problem: String,
    },
    /// A number that must be finite is not.
    #[error("{what} is not finite")]
    NonFinite {
        /// What it was.
        what: String,
    },
    /// A skin influence refers to a vertex or bone that does not exist.
    #[error("skin influence {index}: {problem}")]
    BadInfluence {
        /// The influence's position in the input.
        index: usize,
        /// What is wrong.
        problem: String,
    },
    /// A face refers to a vertex or texture coordinate that does not exist.
    #[error("surface {surface}, face {face}: {problem}")]
    BadFace {
        /// The surface.
        surface: usize,
        /// The face.
        face: usize,
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
    /// Too many items for the format's 32-bit indices, or a buffer beyond 2^63 bytes.
    #[error("{0} exceeds the format's limits")]
    TooLarge(String),
    /// Zstandard compression failed.
    #[error("zstd compression failed: {0}")]
    Compression(#[source] std::io::Error),
    /// The document could not be serialized.
    #[error("JSON serialization failed: {0}")]
    Json(#[from] serde_json::Error),
}
