//! glTF containers: `.glb` (a 12-byte header, a JSON chunk padded with spaces, a BIN chunk
//! padded with zeros, as glTF's binary format says) and `.gltf` (JSON with the buffer as a
//! base64 data URI, or as a `.bin` file beside it).

use crate::character::BuiltGltf;
use crate::error::GltfError;
use base64::Engine;

/// GLB's magic, `glTF`.
pub const GLB_MAGIC: [u8; 4] = *b"glTF";
/// The chunk type of JSON.
const JSON_CHUNK: u32 = 0x4E4F_534A;
/// The chunk type of the binary buffer.
const BIN_CHUNK: u32 = 0x004E_4942;

/// Where a `.gltf`'s buffer goes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BufferStorage {
    /// Inside the JSON, as a base64 data URI.
    Embedded,
    /// In a file beside it of this name (relative URI).
    External(String),
}

/// Formatting choices.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ContainerOptions {
    /// Indented JSON.
    pub pretty: bool,
}

/// A `.glb` as the pieces it is written from (no joined copy of the buffer).
#[derive(Debug, Clone)]
pub struct GlbParts {
    /// The file header and the JSON chunk's header.
    head: Vec<u8>,
    /// The JSON, padded with spaces to four bytes.
    json: Vec<u8>,
    /// The BIN chunk's header (empty without a buffer).
    bin_head: Vec<u8>,
    /// The buffer.
    bin: Vec<u8>,
    /// Zeros padding the buffer to four bytes.
    bin_pad: Vec<u8>,
}

impl GlbParts {
    /// The pieces in file order.
    pub fn parts(&self) -> impl Iterator<Item = &[u8]> {
        [
            &self.head[..],
            &self.json[..],
            &self.bin_head[..],
            &self.bin[..],
            &self.bin_pad[..],
        ]
        .into_iter()
        .filter(|p| !p.is_empty())
    }

    /// The file's length in bytes.
    pub fn len(&self) -> usize {
        self.parts().map(<[u8]>::len).sum()
    }

    /// True for a file of no bytes (never: the header is always there).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The file as one vector.
    pub fn to_vec(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.len());
        for part in self.parts() {
            out.extend_from_slice(part);
        }
        out
    }
}

/// The document's JSON.
fn json_bytes(built: &BuiltGltf, options: ContainerOptions) -> Result<Vec<u8>, GltfError> {
    Ok(if options.pretty {
        serde_json::to_vec_pretty(&built.root)?
    } else {
        serde_json::to_vec(&built.root)?
    })
}

/// A `.glb` of the built character (its buffer moved into the parts).
pub fn glb_parts(built: &mut BuiltGltf, options: ContainerOptions) -> Result<GlbParts, GltfError> {
    let length = built.buffer.len();
    built.declare_buffer(length, None);
    let mut json = json_bytes(built, options)?;
    while json.len() % 4 != 0 {
        json.push(b' ');
    }
    let bin = std::mem::take(&mut built.buffer);
    let bin_padded = bin.len().div_ceil(4) * 4;
    let has_bin = !bin.is_empty();
    let total = 12 + 8 + json.len() + if has_bin { 8 + bin_padded } else { 0 };
    let total = u32::try_from(total).map_err(|_| GltfError::TooLarge("a .glb of 4 GiB".into()))?;
    let mut head = Vec::with_capacity(20);
    head.extend_from_slice(&GLB_MAGIC);
    head.extend_from_slice(&2u32.to_le_bytes());
    head.extend_from_slice(&total.to_le_bytes());
    head.extend_from_slice(&(json.len() as u32).to_le_bytes());
    head.extend_from_slice(&JSON_CHUNK.to_le_bytes());
    let mut bin_head = Vec::new();
    if has_bin {
        bin_head.extend_from_slice(&(bin_padded as u32).to_le_bytes());
        bin_head.extend_from_slice(&BIN_CHUNK.to_le_bytes());
    }
    let bin_pad = vec![0u8; bin_padded - bin.len()];
    Ok(GlbParts {
        head,
        json,
        bin_head,
        bin,
        bin_pad,
    })
}

/// A `.gltf` and the files beside it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TextFile {
    /// The JSON.
    pub json: Vec<u8>,
    /// External buffers: file name and bytes.
    pub external: Vec<(String, Vec<u8>)>,
}

/// A `.gltf` of the built character, its buffer stored as `storage` says.
pub fn gltf_text(
    built: &mut BuiltGltf,
    storage: &BufferStorage,
    options: ContainerOptions,
) -> Result<TextFile, GltfError> {
    let bin = std::mem::take(&mut built.buffer);
    let length = bin.len();
    let (uri, external) = match storage {
        // Nothing to store (a skeleton without meshes): no buffer, no file beside it.
        _ if bin.is_empty() => (String::new(), Vec::new()),
        BufferStorage::Embedded => (
            format!(
                "data:application/octet-stream;base64,{}",
                base64::engine::general_purpose::STANDARD.encode(&bin)
            ),
            Vec::new(),
        ),
        BufferStorage::External(name) => (name.clone(), vec![(name.clone(), bin)]),
    };
    built.declare_buffer(length, Some(uri));
    Ok(TextFile {
        json: json_bytes(built, options)?,
        external,
    })
}
