//! The input size limit and the one way the converter reads an input file: whole, bounded by
//! the limit whatever the file reports (pipes and devices too), as text with a byte-order mark
//! dropped and invalid UTF-8 located (the default is `options::DEFAULT_MAX_INPUT_BYTES`).

use crate::error::ConvertError;
use location::{Location, ReadError};
use std::path::Path;

/// Refuses an input file whose reported size is above `limit`, before anything reads it (so a
/// job with one huge file fails before its other files are parsed). [`read_input_of`] holds
/// the limit for files that report no size or grow.
pub fn check_input_size(path: &Path, limit: u64) -> Result<(), ConvertError> {
    match std::fs::metadata(path) {
        Ok(meta) if meta.is_file() && meta.len() > limit => Err(ConvertError::InputTooLarge {
            path: path.to_path_buf(),
            size: Some(meta.len()),
            limit,
        }),
        // Missing files are reported by the reader with its own message.
        _ => Ok(()),
    }
}

/// What a file must be, and the most bytes such a file can hold: a larger one is not one,
/// whatever `--max-input-mib` allows (so `/dev/zero` named as a pose file costs 16 MiB, not
/// the input limit).
#[derive(Debug, Clone, Copy)]
pub struct Kind {
    /// `a pose file`, for messages.
    pub name: &'static str,
    /// Its most bytes.
    pub max_bytes: u64,
}

impl Kind {
    /// A rig.
    pub const RIG: Kind = Kind {
        name: "rig file",
        max_bytes: mpfb_rig::parse::MAX_RIG_BYTES,
    };
    /// A weights file.
    pub const WEIGHTS: Kind = Kind {
        name: "weights file",
        max_bytes: mpfb_weights::parse::MAX_WEIGHTS_BYTES,
    };
    /// A mesh (MakeHuman's is 1.7 MB).
    pub const MESH: Kind = Kind {
        name: "mesh",
        max_bytes: 256 << 20,
    };
    /// A vertex group file.
    pub const VERTEX_GROUPS: Kind = Kind {
        name: "vertex group file",
        max_bytes: mpfb_mesh::groups::MAX_VERTEX_GROUP_BYTES,
    };
    /// A `.mhm` or preset.
    pub const DESCRIPTION: Kind = Kind {
        name: "character description",
        max_bytes: mpfb_body::description::MAX_DESCRIPTION_BYTES,
    };
    /// A pose file.
    pub const POSE: Kind = Kind {
        name: "pose file",
        max_bytes: mpfb_rig::pose::MAX_POSE_BYTES,
    };
    /// A MakeHuman asset's fitting file (`.mhclo`, `.proxy`): the largest shipped is 2 MB.
    pub const ASSET: Kind = Kind {
        name: "MakeHuman asset file",
        max_bytes: 256 << 20,
    };
    /// A MakeHuman material (`.mhmat`).
    pub const MATERIAL: Kind = Kind {
        name: "material",
        max_bytes: 16 << 20,
    };
    /// An image a material names (MakeHuman's largest skins are 4096x4096 JPEGs of a few MB).
    pub const IMAGE: Kind = Kind {
        name: "image",
        max_bytes: 256 << 20,
    };
    /// A name map (bone map, humanoid table) or the targets' `macro.json`.
    pub const MAP: Kind = Kind {
        name: "map of names",
        max_bytes: mpfb_weights::MAX_BONE_MAP_BYTES,
    };
}

/// Reads an input file of `kind` whole, at most `limit` bytes (`--max-input-mib`) and at most
/// what such a file can hold; the smaller bound decides, and which error says so.
pub fn read_input_of(path: &Path, limit: u64, kind: Kind) -> Result<Vec<u8>, ConvertError> {
    let by_kind = kind.max_bytes < limit;
    location::read_bounded(path, limit.min(kind.max_bytes)).map_err(|e| match e {
        ReadError::Io(source) => ConvertError::Input {
            location: Location::file(path),
            source,
        },
        ReadError::TooLarge { limit, .. } if by_kind => ConvertError::NotThisKind {
            path: path.to_path_buf(),
            kind: kind.name,
            limit,
        },
        ReadError::TooLarge { limit, reported } => ConvertError::InputTooLarge {
            path: path.to_path_buf(),
            size: reported,
            limit,
        },
    })
}

/// [`read_input_of`] as text without its byte-order mark.
pub fn read_input_text_of(path: &Path, limit: u64, kind: Kind) -> Result<String, ConvertError> {
    decode_text(path, read_input_of(path, limit, kind)?)
}

fn decode_text(path: &Path, bytes: Vec<u8>) -> Result<String, ConvertError> {
    match location::text::decode(&bytes) {
        Ok(text) => Ok(text.to_owned()),
        Err(e) => Err(ConvertError::Syntax {
            location: e.location.in_file(path),
            message: format!("not UTF-8 text (byte 0x{:02x})", e.byte),
        }),
    }
}

/// Refuses a count of `what` above `limit`.
pub fn check_count(what: &'static str, count: usize, limit: usize) -> Result<(), ConvertError> {
    if count > limit {
        return Err(ConvertError::TooMany { what, count, limit });
    }
    Ok(())
}
