//! Which kind of 3D file a file is, G4MF or glTF 2.0: the one rule every command follows (the
//! G4MF readers refuse a glTF file, `preview` draws either). The content decides first (the
//! `G4MF` and `glTF` magics, or the JSON's `asset`); the extension only when the content
//! cannot.

use crate::ReadOptions;
use serde::de::{self, Deserializer as _, IgnoredAny, MapAccess, Visitor};
use serde_json::Value;
use std::fmt;
use std::path::Path;

/// The kinds of 3D file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileKind {
    /// G4MF: `.g4b` (binary) or `.g4tf` (text).
    G4mf,
    /// glTF 2.0: `.glb` (binary) or `.gltf` (text).
    Gltf,
}

impl FileKind {
    /// The kind `bytes` say they are: the `G4MF` or the `glTF` magic, or a JSON object whose
    /// `asset` has a `dimension` (G4MF) or, without one, `version` "2.0" (glTF). `None` when
    /// the content cannot decide (other bytes, JSON that breaks off before its `asset`, an
    /// `asset` that is neither). Only the JSON up to the `asset` is read.
    pub fn of_content(bytes: &[u8]) -> Option<FileKind> {
        if bytes.starts_with(b"G4MF") {
            return Some(FileKind::G4mf);
        }
        if bytes.starts_with(b"glTF") {
            return Some(FileKind::Gltf);
        }
        let mut kind = None;
        // The sniffer stops with an error once it has seen the `asset`: the rest of the text
        // is not read (and need not be valid).
        let _ = serde_json::Deserializer::from_slice(bytes)
            .deserialize_map(AssetSniffer { kind: &mut kind });
        kind
    }

    /// The kind `path`'s extension names: `.g4b`, `.g4tf`, `.glb`, `.gltf`, `.vrm` (a `.glb`), in
    /// any case.
    pub fn of_extension(path: &Path) -> Option<FileKind> {
        let extension = path.extension()?.to_str()?.to_ascii_lowercase();
        match extension.as_str() {
            "g4b" | "g4tf" => Some(FileKind::G4mf),
            "glb" | "gltf" | "vrm" => Some(FileKind::Gltf),
            _ => None,
        }
    }

    /// The kind of the file at `path` whose bytes are `bytes`: by its content
    /// ([`FileKind::of_content`]), else by its extension ([`FileKind::of_extension`]), else
    /// G4MF.
    pub fn of(path: &Path, bytes: &[u8]) -> FileKind {
        Self::of_content(bytes)
            .or_else(|| Self::of_extension(path))
            .unwrap_or(FileKind::G4mf)
    }

    /// The kind of the file at `path` ([`FileKind::of`]), read as `preview` reads it (at most
    /// its JSON and buffer limits together); an error when it cannot be read, as the readers
    /// then say.
    pub fn of_file(path: &Path, options: &ReadOptions) -> std::io::Result<FileKind> {
        let limit = options
            .max_json_bytes
            .saturating_add(options.max_buffer_bytes);
        let bytes = location::read_bounded(path, limit)?;
        Ok(Self::of(path, &bytes))
    }
}

/// The parts of `asset` that tell G4MF from glTF.
#[derive(serde::Deserialize)]
struct Asset {
    version: Option<Value>,
    dimension: Option<IgnoredAny>,
}

/// Reads a JSON object's members up to `asset` and records the kind it says.
struct AssetSniffer<'a> {
    kind: &'a mut Option<FileKind>,
}

impl<'de> Visitor<'de> for AssetSniffer<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON object with an `asset`")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        while let Some(key) = map.next_key::<String>()? {
            if key != "asset" {
                map.next_value::<IgnoredAny>()?;
                continue;
            }
            let asset: Asset = map.next_value()?;
            *self.kind = match (asset.dimension, asset.version) {
                (Some(_), _) => Some(FileKind::G4mf),
                (None, Some(Value::String(v))) if v == "2.0" => Some(FileKind::Gltf),
                _ => None,
            };
            return Err(de::Error::custom("the asset is read"));
        }
        Ok(())
    }
}
