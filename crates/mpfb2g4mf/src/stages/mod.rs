//! The conversion's stages, in the order the pipeline driver (`convert.rs`) runs them:
//!
//! 1. load (`inputs.rs`, before the stages): every file of the job into memory;
//! 2. [`body`]: the body the rig is fitted to (the mesh, morphed by targets when asked);
//! 3. [`fit`]: the rig fitted to the body, MPFB's way;
//! 4. [`assemble`]: one [`character::Character`] (skeleton, whole mesh, skin) and the MPFB
//!    extras the way back needs;
//! 5. [`transforms`]: character to character (helper extraction, standing on the ground,
//!    normals), then [`dress`]: a material for every surface ([`materials`] makes them from
//!    MakeHuman's `.mhmat` files, for the skin and for the assets [`wear`] fits);
//! 6. [`write`](mod@write): the character as a G4MF document, encoded and written atomically.

pub mod assemble;
pub mod bind;
pub mod body;
pub mod dress;
pub mod expressions;
pub mod fit;
pub mod humanoid;
pub mod materials;
pub mod pose;
pub mod rest_pose;
pub mod shapes;
pub mod transforms;
pub mod wear;
pub mod write;
