//! `makehuman-assets`: MakeHuman 1.x asset files read strictly, and MakeHuman's rule for
//! fitting an asset to a body.
//!
//! - [`parse_proxy`] reads `.mhclo` files (clothes, hair, eyebrows, eyelashes, eyes, teeth,
//!   tongue) and `.proxy` files (body topologies): one format.
//! - [`AssetKind`] is the one list of asset kinds (their keywords, folders and extensions).
//! - [`parse_material`] reads `.mhmat` materials.
//! - [`ProxyFile::fit`] places an asset's vertices on a body, [`ProxyFile::inherited_weights`]
//!   gives it the body's bone weights (MakeHuman's `shared/proxy.py`), and
//!   [`vertex_bone_weights`] makes an asset's contributions the weights it is skinned with
//!   (MakeHuman's `shared/animation.py`).
//!
//! Coordinates are the base mesh's own frame (OBJ: Y up, decimetres); converting them is the
//! caller's business. Every error carries the line (and where useful the column) it is about.

pub mod error;
pub mod fit;
mod kind;
mod line;
pub mod material;
pub mod proxy;
pub mod weights;

pub use error::{AssetError, AssetErrorKind};
pub use fit::WEIGHT_THRESHOLD;
pub use kind::AssetKind;
pub use material::{MaterialFile, MaterialTexture, parse_material};
pub use proxy::{
    AxisScale, BASEMESH, MAX_DELETE_VERTS, MAX_REFERENCE_VALUE, MAX_REFERENCES, MIN_SCALE_DISTANCE,
    ProxyFile, Reference, parse_proxy,
};
pub use weights::{WeightChanges, vertex_bone_weights};
