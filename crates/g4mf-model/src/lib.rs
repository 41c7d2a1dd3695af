//! `g4mf-model`: the G4MF JSON document as plain Rust data, shared by the writer and the reader.
//!
//! Only structure lives here: no I/O, no container format, nothing about MakeHuman. Every
//! struct keeps properties it does not model (comments, extensions, future properties) in an
//! `other` map so a document reads and writes back without loss. Serialization is
//! deterministic: fields serialize in declaration order, maps in insertion order.

mod index;
pub mod rules;

pub use index::{Index, JointRef};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::sync::Arc;

/// Index of a node in `nodes`.
pub type NodeIndex = Index<Node>;
/// Index of a mesh in `meshes`.
pub type MeshIndex = Index<Mesh>;
/// Index of an accessor in `accessors`.
pub type AccessorIndex = Index<Accessor>;
/// Index of a buffer view in `bufferViews`.
pub type BufferViewIndex = Index<BufferView>;
/// Index of a buffer in `buffers`.
pub type BufferIndex = Index<Buffer>;
/// Index of a material in `materials`.
pub type MaterialIndex = Index<Material>;

fn is_false(b: &bool) -> bool {
    !*b
}

/// The top-level G4MF object.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Document {
    /// File metadata; required.
    pub asset: Asset,
    /// Scene nodes; node 0 is the root.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub nodes: Vec<Node>,
    /// Meshes.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub meshes: Vec<Mesh>,
    /// Materials.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub materials: Vec<Material>,
    /// Typed views of buffer data.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub accessors: Vec<Accessor>,
    /// Slices of buffers.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub buffer_views: Vec<BufferView>,
    /// Binary blobs.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub buffers: Vec<Buffer>,
    /// Application data without a schema.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extras: Option<Value>,
    /// Everything else (`files`, `shapes`, `textures`, `comment`, `extensions`, ...), verbatim.
    #[serde(flatten)]
    pub other: Map<String, Value>,
}

/// `asset`: what the file is and what made it.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Asset {
    /// The model's dimension (3 for us); required.
    pub dimension: u32,
    /// The application that wrote the file, with its version.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub generator: Option<String>,
    /// A link to the specification the file follows.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub specification: Option<String>,
    /// Extensions needed to load the file.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub extensions_required: Vec<String>,
    /// Extensions used anywhere in the file.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub extensions_used: Vec<String>,
    /// Everything else, verbatim.
    #[serde(flatten)]
    pub other: Map<String, Value>,
}

/// A scene node: transform, children and at most one component.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Node {
    /// File-unique name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Child nodes, in scene order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub children: Vec<NodeIndex>,
    /// Position relative to the parent (dimension numbers).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub position: Option<Vec<f64>>,
    /// Basis relative to the parent, column-major (dimension^2 numbers).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub basis: Option<Vec<f64>>,
    /// Rotor (alternative to `basis`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rotor: Option<Vec<f64>>,
    /// Scale (alternative to `basis`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scale: Option<Vec<f64>>,
    /// Whether the node renders.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub visible: Option<bool>,
    /// Bone component.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bone: Option<Bone>,
    /// Skeleton component.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub skeleton: Option<Skeleton>,
    /// Mesh instance component.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mesh_instance: Option<MeshInstance>,
    /// Application data without a schema, as its JSON text ([`Extras`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extras: Option<Extras>,
    /// Everything else (`camera`, `light`, `physics`, `modelInstance`, ...), verbatim.
    #[serde(flatten)]
    pub other: Map<String, Value>,
}

/// A node's `extras`: application data without a schema, kept as the JSON text it is and
/// parsed only by who looks into it ([`Extras::value`]). Why text: a file has an `extras` per
/// bone, and 100,000 bones held as parsed JSON took 145 MB where their text takes 30 MB.
/// Shared: a writer that gives many documents the same extras (a population's bones) keeps
/// one copy.
#[derive(Debug, Clone)]
pub struct Extras(Arc<serde_json::value::RawValue>);

impl Extras {
    /// The extras of `value`.
    pub fn from_value(value: &Value) -> Extras {
        // A `Value` always serializes (its map keys are strings).
        Extras::from_serialize(value).unwrap_or_else(|_| Extras::null())
    }

    /// The extras that serializing `value` makes; fails as `serde_json` fails (a map whose
    /// keys are not strings).
    pub fn from_serialize<T: Serialize + ?Sized>(value: &T) -> Result<Extras, serde_json::Error> {
        serde_json::value::to_raw_value(value).map(|raw| Extras(Arc::from(raw)))
    }

    fn null() -> Extras {
        Extras(Arc::from(
            serde_json::value::RawValue::from_string("null".to_owned())
                .unwrap_or_else(|_| unreachable!("`null` is JSON")),
        ))
    }

    /// The JSON text.
    pub fn json(&self) -> &str {
        self.0.get()
    }

    /// The extras parsed.
    pub fn value(&self) -> Value {
        // The text came from a `Value` or a serializer: it parses.
        serde_json::from_str(self.0.get()).unwrap_or(Value::Null)
    }

    /// The extras as the shared raw JSON they are.
    pub fn raw(&self) -> &Arc<serde_json::value::RawValue> {
        &self.0
    }
}

impl From<Arc<serde_json::value::RawValue>> for Extras {
    fn from(raw: Arc<serde_json::value::RawValue>) -> Extras {
        Extras(raw)
    }
}

impl From<Value> for Extras {
    fn from(value: Value) -> Extras {
        Extras::from_value(&value)
    }
}

impl PartialEq for Extras {
    /// The same JSON, whatever its spacing.
    fn eq(&self, other: &Extras) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
            || self.json() == other.json()
            || self.value() == other.value()
    }
}

impl Serialize for Extras {
    /// Parsed for the time it is written, so a pretty-printed file indents it like the rest
    /// (the text itself is compact).
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.value().serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for Extras {
    /// Read as a `Value` (a node's fields pass through serde's buffer, which raw JSON cannot)
    /// and kept as its text; the `Value` lives only while one node is read.
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Extras, D::Error> {
        let value = Value::deserialize(deserializer)?;
        Extras::from_serialize(&value).map_err(serde::de::Error::custom)
    }
}

/// `bone`: this node is a skeleton bone pointing along local +Y.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Bone {
    /// Length in metres along local +Y; never negative.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub length: Option<f64>,
    /// Mass in kilograms.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mass: Option<f64>,
    /// Index of a shape; requires `length`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shape: Option<u32>,
    /// Everything else, verbatim.
    #[serde(flatten)]
    pub other: Map<String, Value>,
}

/// `skeleton`: this node is a skeleton root.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Skeleton {
    /// Bones driving skin groups: group `i` follows `joints[i]`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub joints: Vec<JointRef>,
    /// Everything else, verbatim.
    #[serde(flatten)]
    pub other: Map<String, Value>,
}

/// `meshInstance`: this node shows a mesh.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MeshInstance {
    /// The mesh.
    pub mesh: MeshIndex,
    /// Everything else (`materials`, `blendAmounts`, ...), verbatim.
    #[serde(flatten)]
    pub other: Map<String, Value>,
}

/// A mesh: shared vertices, surfaces, and optional deformation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Mesh {
    /// File-unique name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Vertex positions accessor.
    pub vertices: AccessorIndex,
    /// Surfaces; at least one.
    pub surfaces: Vec<Surface>,
    /// Skinning data.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub skin: Option<Skin>,
    /// Blend shapes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub blend: Option<Blend>,
    /// Everything else (`extras`, ...), verbatim.
    #[serde(flatten)]
    pub other: Map<String, Value>,
}

/// `blend`: a mesh's blend shapes (parts/mesh/blend.md).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Blend {
    /// How much each shape is applied; all zero when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub amounts: Option<Vec<f64>>,
    /// The shapes; required.
    pub shapes: Vec<BlendShape>,
    /// Everything else, verbatim.
    #[serde(flatten)]
    pub other: Map<String, Value>,
}

impl Blend {
    /// The amount of shape `k` (0 when `amounts` is absent or short).
    pub fn amount(&self, k: usize) -> f64 {
        self.amounts
            .as_ref()
            .and_then(|a| a.get(k))
            .copied()
            .unwrap_or(0.0)
    }
}

/// One blend shape.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BlendShape {
    /// File-unique name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Offsets of vertex positions.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub position: Option<BlendTarget>,
    /// Offsets of per-surface data; never empty when present.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub surfaces: Option<Vec<BlendSurface>>,
    /// Everything else, verbatim.
    #[serde(flatten)]
    pub other: Map<String, Value>,
}

/// A blend shape's offsets of one surface's data.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BlendSurface {
    /// The surface's index in the mesh.
    pub surface: u32,
    /// Offsets of the surface's normal values.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub normal: Option<BlendTarget>,
    /// Offsets of the surface's texture-map values.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub texture_map: Option<BlendTarget>,
    /// Everything else, verbatim.
    #[serde(flatten)]
    pub other: Map<String, Value>,
}

/// Sparse offsets: `offsets[i]` displaces item `indices[i]`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BlendTarget {
    /// Unsigned indices of the items displaced (vector size 1).
    pub indices: AccessorIndex,
    /// The offsets (vector size of what they displace).
    pub offsets: AccessorIndex,
    /// Everything else, verbatim.
    #[serde(flatten)]
    pub other: Map<String, Value>,
}

/// A mesh surface (a material slot).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Surface {
    /// File-unique name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Simplex (triangle) indices accessor.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub simplexes: Option<AccessorIndex>,
    /// Consecutive simplexes with the same first vertex form one polytope.
    #[serde(default, skip_serializing_if = "is_false")]
    pub polytope_simplexes: bool,
    /// Edge indices accessor.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub edges: Option<AccessorIndex>,
    /// Material.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub material: Option<MaterialIndex>,
    /// Texture coordinates binding.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub texture_map: Option<Binding>,
    /// Normals binding.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub normals: Option<Binding>,
    /// Everything else (`geometry`, `seams`, ...), verbatim.
    #[serde(flatten)]
    pub other: Map<String, Value>,
}

/// A binding of values to mesh elements.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Binding {
    /// The values.
    pub values: AccessorIndex,
    /// Per-corner indices into `values`, shaped like the surface's simplexes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub simplexes: Option<AccessorIndex>,
    /// One index into `values` per simplex.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub per_simplex: Option<AccessorIndex>,
    /// Everything else (`geometry`, ...), verbatim.
    #[serde(flatten)]
    pub other: Map<String, Value>,
}

/// `skin`: which groups move which vertices, and how strongly.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Skin {
    /// Group index per influence (unsigned integers, vector size 1).
    pub groups: AccessorIndex,
    /// Vertex index per influence, ascending.
    pub vertices: AccessorIndex,
    /// Weight per influence (floating point), descending within a vertex.
    pub weights: AccessorIndex,
    /// Names of the groups (unique, non-empty).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub group_names: Option<Vec<String>>,
    /// Everything else, verbatim.
    #[serde(flatten)]
    pub other: Map<String, Value>,
}

/// A material; we only name them (OBJ `usemtl`), other properties are kept verbatim.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Material {
    /// File-unique name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Everything else (channels, extras, ...), verbatim.
    #[serde(flatten)]
    pub other: Map<String, Value>,
}

/// The primitive type of accessor components.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum ComponentType {
    /// One of the spec's defined types, e.g. `float32`.
    Defined(DefinedComponentType),
    /// An extension-defined type, kept as written.
    Other(String),
}

/// The component types the spec defines.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[allow(missing_docs)] // The names say it: float8 .. uint128.
pub enum DefinedComponentType {
    Float8,
    Float16,
    Float32,
    Float64,
    Float128,
    Int8,
    Int16,
    Int32,
    Int64,
    Int128,
    Uint8,
    Uint16,
    Uint32,
    Uint64,
    Uint128,
}

impl DefinedComponentType {
    /// Every defined type.
    pub const ALL: [DefinedComponentType; 15] = [
        Self::Float8,
        Self::Float16,
        Self::Float32,
        Self::Float64,
        Self::Float128,
        Self::Int8,
        Self::Int16,
        Self::Int32,
        Self::Int64,
        Self::Int128,
        Self::Uint8,
        Self::Uint16,
        Self::Uint32,
        Self::Uint64,
        Self::Uint128,
    ];

    /// The name as written in files.
    pub fn name(self) -> &'static str {
        match self {
            Self::Float8 => "float8",
            Self::Float16 => "float16",
            Self::Float32 => "float32",
            Self::Float64 => "float64",
            Self::Float128 => "float128",
            Self::Int8 => "int8",
            Self::Int16 => "int16",
            Self::Int32 => "int32",
            Self::Int64 => "int64",
            Self::Int128 => "int128",
            Self::Uint8 => "uint8",
            Self::Uint16 => "uint16",
            Self::Uint32 => "uint32",
            Self::Uint64 => "uint64",
            Self::Uint128 => "uint128",
        }
    }

    /// Size of one component in bytes.
    pub fn size(self) -> usize {
        match self {
            Self::Float8 | Self::Int8 | Self::Uint8 => 1,
            Self::Float16 | Self::Int16 | Self::Uint16 => 2,
            Self::Float32 | Self::Int32 | Self::Uint32 => 4,
            Self::Float64 | Self::Int64 | Self::Uint64 => 8,
            Self::Float128 | Self::Int128 | Self::Uint128 => 16,
        }
    }

    /// True for the floating-point types.
    pub fn is_float(self) -> bool {
        matches!(
            self,
            Self::Float8 | Self::Float16 | Self::Float32 | Self::Float64 | Self::Float128
        )
    }

    /// True for the unsigned integer types.
    pub fn is_unsigned(self) -> bool {
        matches!(
            self,
            Self::Uint8 | Self::Uint16 | Self::Uint32 | Self::Uint64 | Self::Uint128
        )
    }

    /// True for the integer types, signed or not.
    pub fn is_integer(self) -> bool {
        !self.is_float()
    }
}

impl ComponentType {
    /// Shorthand for a defined type.
    pub const FLOAT32: ComponentType = ComponentType::Defined(DefinedComponentType::Float32);

    /// The name as written in files.
    pub fn name(&self) -> &str {
        match self {
            ComponentType::Defined(d) => d.name(),
            ComponentType::Other(s) => s,
        }
    }

    /// The defined type, if this is one.
    pub fn defined(&self) -> Option<DefinedComponentType> {
        match self {
            ComponentType::Defined(d) => Some(*d),
            ComponentType::Other(_) => None,
        }
    }
}

impl Serialize for ComponentType {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.name())
    }
}

impl<'de> Deserialize<'de> for ComponentType {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let name = String::deserialize(deserializer)?;
        Ok(DefinedComponentType::ALL
            .into_iter()
            .find(|d| d.name() == name)
            .map_or(ComponentType::Other(name), ComponentType::Defined))
    }
}

/// A typed view of a buffer view.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Accessor {
    /// The buffer view holding the data.
    pub buffer_view: BufferViewIndex,
    /// The component type.
    pub component_type: ComponentType,
    /// Components per element (1 when absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vector_size: Option<u32>,
    /// Everything else, verbatim.
    #[serde(flatten)]
    pub other: Map<String, Value>,
}

impl Accessor {
    /// Components per element.
    pub fn vector_size(&self) -> u32 {
        self.vector_size.unwrap_or(1)
    }
}

/// A slice of a buffer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BufferView {
    /// The buffer (0 when absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub buffer: Option<BufferIndex>,
    /// Start in the buffer (0 when absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub byte_offset: Option<u64>,
    /// Length in bytes.
    pub byte_length: u64,
    /// Everything else, verbatim.
    #[serde(flatten)]
    pub other: Map<String, Value>,
}

impl BufferView {
    /// The buffer this view reads.
    pub fn buffer(&self) -> BufferIndex {
        self.buffer.unwrap_or(Index::new(0))
    }

    /// The view's start offset.
    pub fn byte_offset(&self) -> u64 {
        self.byte_offset.unwrap_or(0)
    }
}

/// A blob of binary data: in a `.g4b` chunk or behind a URI.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Buffer {
    /// Decoded length in bytes.
    pub byte_length: u64,
    /// The `.g4b` chunk holding the data.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub chunk: Option<u32>,
    /// FourCC of the data's encoding (`Zstd`); absent when plain.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub encoding: Option<String>,
    /// A relative path or a `data:` URI.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uri: Option<String>,
    /// Everything else, verbatim.
    #[serde(flatten)]
    pub other: Map<String, Value>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn documents_round_trip_and_keep_unknown_properties() {
        let text = r#"{"asset":{"dimension":3,"generator":"x","version":"0.1"},"nodes":[{"name":"Root","children":[1],"comment":"hi"},{"name":"Skel","skeleton":{"joints":[2,-1]},"camera":{"fov":1}}],"accessors":[{"bufferView":0,"componentType":"uint16","vectorSize":3},{"bufferView":0,"componentType":"EXT_posit"}],"textures":[]}"#;
        let doc: Document = serde_json::from_str(text).unwrap();
        assert_eq!(doc.nodes[0].children, [Index::new(1)]);
        assert_eq!(
            doc.nodes[1].skeleton.as_ref().unwrap().joints,
            [JointRef::Node(Index::new(2)), JointRef::Uncontrolled]
        );
        assert_eq!(
            doc.accessors[0].component_type,
            ComponentType::Defined(DefinedComponentType::Uint16)
        );
        assert_eq!(
            doc.accessors[1].component_type,
            ComponentType::Other("EXT_posit".into())
        );
        assert_eq!(doc.asset.other["version"], "0.1");
        assert_eq!(serde_json::to_string(&doc).unwrap(), text);
    }

    #[test]
    fn component_type_sizes() {
        assert_eq!(DefinedComponentType::Uint8.size(), 1);
        assert_eq!(DefinedComponentType::Float16.size(), 2);
        assert_eq!(DefinedComponentType::Int128.size(), 16);
        assert!(DefinedComponentType::Uint32.is_unsigned());
        assert!(!DefinedComponentType::Int32.is_unsigned());
        assert!(DefinedComponentType::Float8.is_float());
    }
}
