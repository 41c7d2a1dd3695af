//! What a conversion did: the facts the summary line, `--json` and batch reports print.

use crate::diagnostics::Diagnostic;
use crate::options::OutputFormat;
use serde::Serialize;
use std::path::PathBuf;

/// What a conversion did, for the summary line and `--json`.
#[derive(Debug, Clone, Serialize)]
pub struct Summary {
    /// The output file.
    pub output: PathBuf,
    /// Extra files written (the external `.bin`).
    pub external: Vec<PathBuf>,
    /// Images beside the output (`--textures copy`), copied or already there.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub images: Vec<PathBuf>,
    /// The container.
    pub format: OutputFormat,
    /// Bytes written (all files).
    pub bytes: u64,
    /// Rig file and layout.
    pub rig: String,
    /// Bones written.
    pub bones: usize,
    /// Joints written.
    pub joints: usize,
    /// Vertices in the mesh file.
    pub mesh_vertices: usize,
    /// Vertices written.
    pub kept_vertices: usize,
    /// Faces written.
    pub faces: usize,
    /// Weights file, if any.
    pub weights: Option<String>,
    /// Skin entries written.
    pub weight_pairs: usize,
    /// Most influences on one vertex.
    pub max_influences: usize,
    /// Kept vertices no bone moves.
    pub unweighted_vertices: usize,
    /// Bone ends placed at their default position.
    pub fallbacks: Vec<String>,
    /// What the conversion did that a user should know but need not act on (the rest pose
    /// baked and from where), in the order the stages said it.
    pub notes: Vec<Diagnostic>,
    /// Everything worth a look, in the order the stages noticed it.
    pub warnings: Vec<Diagnostic>,
    /// Skeleton offset that puts the character on the ground (metres, G4MF y).
    pub ground_offset: f64,
    /// What `--max-influences` / `--normalize` changed (when asked).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub influence_changes: Option<InfluenceChanges>,
    /// The humanoid names the bones were renamed with (with `--humanoid`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub humanoid: Option<HumanoidSummary>,
    /// Blend shapes written.
    pub blend_shapes: usize,
    /// What a `.vrm` added.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub vrm: Option<VrmSummary>,
    /// MakeHuman assets worn, in draw order.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub worn: Vec<WornSummary>,
    /// Body vertices the worn assets hide (their faces are left out unless kept).
    pub hidden_body_vertices: usize,
    /// The MPFB data folder the job took files from, if any.
    pub data: Option<DataUsed>,
    /// Wall time in milliseconds.
    pub millis: f64,
}

/// What a `.vrm` output added to its glTF character.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct VrmSummary {
    /// Human bones mapped.
    pub human_bones: usize,
    /// Expressions written.
    pub expressions: usize,
    /// Their morph-target binds.
    pub morph_target_binds: usize,
    /// `bone` or `expression`; `None` without a look-at.
    pub look_at: Option<&'static str>,
    /// Springs, their joints, and colliders.
    pub springs: usize,
    /// See [`VrmSummary::springs`].
    pub spring_joints: usize,
    /// See [`VrmSummary::springs`].
    pub colliders: usize,
    /// Whether a thumbnail was written.
    pub thumbnail: bool,
}

impl std::fmt::Display for VrmSummary {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} human bones, {} expressions ({} binds), look-at {}, {} springs ({} joints, {} colliders){}",
            self.human_bones,
            self.expressions,
            self.morph_target_binds,
            self.look_at
                .map_or("none".to_owned(), |l| format!("by {l}")),
            self.springs,
            self.spring_joints,
            self.colliders,
            if self.thumbnail { ", thumbnail" } else { "" }
        )
    }
}

/// The humanoid names used: a table in `--humanoid-map`'s format, and where it came from.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct HumanoidSummary {
    /// `table humanoid/NAME.json`, `table FILE`, or `names matched on rig.X.json`.
    pub source: String,
    /// MPFB bone -> G4MF name.
    pub table: std::collections::BTreeMap<String, String>,
    /// The profile's bones nothing was placed as (matched names only).
    pub not_placed: Vec<&'static str>,
}

impl HumanoidSummary {
    /// The table as `--humanoid-map` reads it, with a `//` line saying where it came from
    /// and what it could not place.
    pub fn to_map_json(&self) -> String {
        let mut map = serde_json::Map::new();
        let mut comment = format!(
            "G4MF humanoid names for mpfb2g4mf --humanoid-map: {}",
            self.source
        );
        if !self.not_placed.is_empty() {
            comment.push_str(&format!("; not placed: {}", self.not_placed.join(", ")));
        }
        map.insert("//".into(), comment.into());
        for (mpfb, g4mf) in &self.table {
            map.insert(mpfb.clone(), g4mf.clone().into());
        }
        serde_json::to_string_pretty(&serde_json::Value::Object(map)).unwrap_or_default()
    }
}

/// One worn asset, as the summary reports it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct WornSummary {
    /// `clothes`, `hair`, ...
    pub kind: String,
    /// The asset's name.
    pub name: String,
    /// How its weights were made (`inherited`, `custom`, `...+subrig`).
    pub weights: String,
}

/// The MPFB data folder a job used, and where it came from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DataUsed {
    /// The folder.
    pub folder: PathBuf,
    /// Where it came from (`--mpfb-data`, `$MPFB_DATA`, the rig file's folder, MPFB in
    /// Blender, the cache).
    pub source: mpfb_data::Source,
}

impl DataUsed {
    /// The data folder of `data`.
    pub fn of(data: &mpfb_data::MpfbData) -> Self {
        Self {
            folder: data.root().to_path_buf(),
            source: data.source(),
        }
    }
}

impl std::fmt::Display for DataUsed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} ({})", self.folder.display(), self.source)
    }
}

/// What limiting or normalising influences changed.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct InfluenceChanges {
    /// Vertices whose weights changed.
    pub vertices_changed: usize,
    /// Influences dropped.
    pub influences_dropped: usize,
    /// The largest weight dropped (0 when none).
    pub largest_dropped: f64,
}
