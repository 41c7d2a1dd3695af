//! What we keep in G4MF `extras` so MPFB files come back whole: typed, in one place, used by
//! the writer stage, `to-mpfb` and `inspect` alike.
//!
//! - Skeleton node: `extras.mpfb` (the rig header as MPFB writes it) and `extras.mpfb2g4mf`
//!   (provenance and the rig's bone order).
//! - Bone nodes: `extras.mpfb` (every MPFB field of the bone, plus its MPFB `name`).
//! - Mesh: `extras.mpfb` (weights metadata, group list, masks, source numbering and the
//!   pairs the skin cannot carry, as accessors).
//! - Asset nodes (clothes, hair, eyebrows, ...): `extras.mpfb.asset` (which MakeHuman asset,
//!   from which file, how its weights were made).
//! - Materials: `extras.render` (draw order, transparency, back-face culling: what G4MF has
//!   no property for).
//!
//! Field order is serialization order: it is part of the bytes we write.

use crate::options::Origin;
use g4mf_model::{AccessorIndex, Node};
use indexmap::IndexMap;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// `extras` of the skeleton node.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SkeletonExtras {
    /// The rig's header fields as MPFB writes them (version 110).
    pub mpfb: Map<String, Value>,
    /// Where the skeleton came from and what the way back needs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mpfb2g4mf: Option<Provenance>,
}

/// Provenance of a converted skeleton. Nothing here may depend on the rig file's layout, so
/// MPFB -> G4MF -> MPFB -> G4MF reproduces the file exactly.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Provenance {
    /// The rig file's name.
    pub rig_file: String,
    /// The rig's bones in file order.
    pub bone_order: Vec<String>,
    /// Where the character stands.
    pub origin: Origin,
    /// The mesh's unit (OBJ units to metres).
    pub mesh_scale: f64,
    /// The mesh's up axis, `y` or `z`.
    pub up_axis: String,
    /// The MakeHuman body the mesh was morphed into, when it was.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub body: Option<BodyProvenance>,
}

/// Which human a morphed character is: its phenotype, rule and detail targets.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BodyProvenance {
    /// Every phenotype variable, by name.
    pub phenotype: IndexMap<String, f64>,
    /// `mpfb` or `makehuman1`.
    pub macro_model: String,
    /// Detail targets `[name, weight]` in the order applied.
    pub targets: Vec<(String, f64)>,
    /// What the description holds that was not converted.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub not_converted: Vec<String>,
}

/// `extras` of a bone node.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BoneExtras {
    /// The MPFB bone.
    pub mpfb: MpfbBone,
}

/// One MPFB bone: its fields as MPFB writes them, and its name.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MpfbBone {
    /// Strategies, roll, flags, Rigify data, ... (everything but the name).
    #[serde(flatten)]
    pub fields: Map<String, Value>,
    /// The MPFB name (G4MF names are sanitized; this one is not).
    pub name: String,
}

/// A bone's `extras` as written: the JSON text of [`BoneExtras`] (`{"mpfb": {fields...,
/// "name"}}`), made from `fields` without a typed copy, and kept as text: a 100,000-bone rig's
/// extras held as parsed JSON took 145 MB, as text 30 MB.
pub fn bone_extras_value(mut fields: Map<String, Value>, name: String) -> g4mf_model::Extras {
    // `insert` keeps an existing key's place, as serializing the flattened fields then `name`
    // into a map does.
    fields.insert("name".into(), Value::String(name));
    #[derive(Serialize)]
    struct Written<'a> {
        mpfb: &'a Map<String, Value>,
    }
    g4mf_model::Extras::from_serialize(&Written { mpfb: &fields })
        .unwrap_or_else(|_| g4mf_model::Extras::from_value(&Value::Null))
}

/// `extras` of the mesh.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MeshExtras {
    /// The MPFB side.
    pub mpfb: MpfbMesh,
}

/// What the way back needs of the mesh and its weights.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct MpfbMesh {
    /// The weights file's fields other than `weights`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub weights_metadata: Option<Map<String, Value>>,
    /// Every group of the weights file, so empty groups come back too.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub weight_groups: Option<Vec<String>>,
    /// `mhmask-*` groups: `[vertex, weight]` pairs in the source numbering.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub masks: Option<IndexMap<String, Vec<(u32, f64)>>>,
    /// Vertices of the source mesh.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source_vertex_count: Option<usize>,
    /// Inclusive `[first, last]` ranges of the source vertices kept, ascending.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source_vertices: Option<Vec<[u64; 2]>>,
    /// Weights the skin cannot carry, as binary accessors.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unskinned_weights: Option<UnskinnedWeights>,
    /// The body topology (`.proxy`) this mesh is, when it is not the base mesh.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub topology: Option<AssetProvenance>,
}

/// Pairs the skin cannot carry (helper vertices, groups no bone took), in the source numbering.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct UnskinnedWeights {
    /// Group names, indexed by `groups`.
    pub names: Vec<String>,
    /// Accessor of group indices.
    pub groups: AccessorIndex,
    /// Accessor of source vertices.
    pub vertices: AccessorIndex,
    /// Accessor of weights.
    pub weights: AccessorIndex,
}

/// `[[first, last], ...]` inclusive ranges of ascending indices.
pub fn ranges(indices: &[u32]) -> Vec<[u64; 2]> {
    let mut out = Vec::new();
    let mut iter = indices.iter().copied();
    if let Some(first) = iter.next() {
        let (mut start, mut end) = (first, first);
        for i in iter {
            if i == end + 1 {
                end = i;
            } else {
                out.push([u64::from(start), u64::from(end)]);
                (start, end) = (i, i);
            }
        }
        out.push([u64::from(start), u64::from(end)]);
    }
    out
}

/// Extras of a node as `T`: `None` when absent, an error message when malformed.
fn parse<T: for<'de> Deserialize<'de>>(extras: Option<&Value>) -> Result<Option<T>, String> {
    match extras {
        None => Ok(None),
        Some(v) => T::deserialize(v).map(Some).map_err(|e| e.to_string()),
    }
}

/// A bone node's MPFB extras, if it has well-formed ones.
pub fn bone_extras(node: &Node) -> Option<MpfbBone> {
    // Straight from the text: no parsed copy of the whole extras.
    let text = node.extras.as_ref()?.json();
    serde_json::from_str::<BoneExtras>(text)
        .ok()
        .map(|b| b.mpfb)
}

/// The MPFB name of a bone node: `extras.mpfb.name`, else the node name.
pub fn mpfb_name(node: &Node) -> Option<String> {
    bone_extras(node)
        .map(|b| b.name)
        .or_else(|| node.name.clone())
}

/// A skeleton node's extras, if well-formed.
pub fn skeleton_extras(node: &Node) -> Result<Option<SkeletonExtras>, String> {
    let extras = node.extras.as_ref().map(g4mf_model::Extras::value);
    parse(extras.as_ref().filter(|e| e.get("mpfb").is_some()))
}

/// A mesh's MPFB extras (kept in the mesh's unmodelled properties), if present.
pub fn mesh_extras(mesh: &g4mf_model::Mesh) -> Result<Option<MpfbMesh>, String> {
    parse::<MeshExtras>(mesh.other.get("extras").filter(|e| e.get("mpfb").is_some()))
        .map(|m| m.map(|m| m.mpfb))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_of_indices() {
        assert_eq!(ranges(&[]), Vec::<[u64; 2]>::new());
        assert_eq!(ranges(&[3, 4, 5, 9, 11, 12]), [[3, 5], [9, 9], [11, 12]]);
    }

    #[test]
    fn bone_extras_keep_field_order_and_put_the_name_last() {
        let mut fields = Map::new();
        fields.insert("head".into(), Value::from(1));
        fields.insert("tail".into(), Value::from(2));
        let extras = BoneExtras {
            mpfb: MpfbBone {
                fields,
                name: "upperarm.L".into(),
            },
        };
        let text = serde_json::to_string(&extras).unwrap_or_default();
        assert_eq!(text, r#"{"mpfb":{"head":1,"tail":2,"name":"upperarm.L"}}"#);
        let back: BoneExtras = serde_json::from_str(&text).unwrap_or(extras.clone());
        assert_eq!(back, extras);
    }

    #[test]
    fn bone_extras_value_is_the_typed_extras_json() {
        let mut fields = Map::new();
        fields.insert("head".into(), serde_json::json!({"strategy": "VERTEX"}));
        fields.insert("roll".into(), Value::from(0.25));
        let typed = |fields: Map<String, Value>, name: &str| {
            serde_json::to_value(BoneExtras {
                mpfb: MpfbBone {
                    fields,
                    name: name.into(),
                },
            })
            .ok()
        };
        let value = bone_extras_value(fields.clone(), "upperarm.L".into()).value();
        assert_eq!(Some(&value), typed(fields.clone(), "upperarm.L").as_ref());
        // A field called `name` keeps its place, as the typed extras' serialization keeps it.
        fields.insert("name".into(), Value::from("old"));
        fields.insert("tail".into(), Value::from(1));
        let extras = bone_extras_value(fields.clone(), "new".into());
        assert_eq!(Some(&extras.value()), typed(fields, "new").as_ref());
        assert_eq!(
            serde_json::to_string(&extras).ok().as_deref(),
            Some(r#"{"mpfb":{"head":{"strategy":"VERTEX"},"roll":0.25,"name":"new","tail":1}}"#)
        );
    }
}

/// `extras` of an asset's node (clothes, hair, eyebrows, eyelashes, eyes, teeth, tongue).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AssetNodeExtras {
    /// MPFB's side.
    pub mpfb: AssetNodeMpfb,
}

/// The `mpfb` object of an asset node's extras.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AssetNodeMpfb {
    /// The asset.
    pub asset: AssetProvenance,
}

/// Which MakeHuman asset a mesh is, and how it was fitted and weighted.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AssetProvenance {
    /// `clothes`, `hair`, `eyebrows`, `eyelashes`, `eyes`, `teeth` or `tongue`.
    pub kind: String,
    /// The asset's `name`.
    pub name: String,
    /// Its `.mhclo` file's name.
    pub file: String,
    /// Its `uuid`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uuid: Option<String>,
    /// Its material file's name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub material: Option<String>,
    /// `inherited` (from the body's weights through the references), `custom` (its `.mhw`),
    /// or `custom+subrig` (its `.mhw` with the bones of its `.mpfbskel`).
    pub weights: String,
    /// Bones its sub-rig added to the skeleton, by MPFB name.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub subrig_bones: Vec<String>,
    /// Body vertices it hides (`delete_verts`).
    pub hidden_body_vertices: usize,
}

/// `extras` of a material G4MF cannot fully say.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct MaterialExtras {
    /// How it is drawn.
    pub render: RenderExtras,
}

/// Drawing hints of a material (MakeHuman's `.mhmat` and asset `z_depth`).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RenderExtras {
    /// Higher draws later (MakeHuman's `z_depth`: eyebrows 5, hair 50, ...).
    pub draw_order: i32,
    /// Blended with what is behind it through its texture's alpha.
    pub transparent: bool,
    /// Alpha taken as coverage (cut-out) instead of blending.
    pub alpha_to_coverage: bool,
    /// Back faces culled; false draws both sides.
    pub backface_cull: bool,
}

impl From<character::RenderHints> for RenderExtras {
    fn from(h: character::RenderHints) -> Self {
        Self {
            draw_order: h.draw_order,
            transparent: h.transparent,
            alpha_to_coverage: h.alpha_to_coverage,
            backface_cull: h.backface_cull,
        }
    }
}
