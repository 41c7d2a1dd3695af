//! What @pixiv/three-vrm makes of `.vrm` files: `clients/vrm-load.mjs` loads each with three.js's
//! `GLTFLoader` and three-vrm's `VRMLoaderPlugin` in node and reports, from three-vrm's own
//! objects, the VRM's meta, humanoid, expressions, look-at, first person and spring bones, and
//! two behaviour probes: each expression set to 1 (the morph influences it changed and the
//! vertices that moved), and the spring bones simulated after the model is moved.
//!
//! ```no_run
//! # let files: Vec<std::path::PathBuf> = Vec::new();
//! use test_support::clients;
//!
//! let Some(reports) = clients::vrm_load("my_test", &files) else { return };
//! clients::assert_no_vrm_errors(&reports);
//! let aa = reports[0].expression_probe("aa").expect("probed");
//! assert!(aa.meshes.iter().any(|m| m.moved_vertices > 0));
//! ```
//!
//! Numbers the probes compute that are not finite (NaN, infinities) are `null` in the script's
//! JSON and `f64::NAN` here; the probe's `nan` flag and the report's `errors` say so too.

use std::path::Path;

use serde::{Deserialize, Deserializer};

use super::{ThreeImage, reports};

/// The script that loads `.vrm` files with three-vrm (`clients/vrm-load.mjs`).
pub const VRM_LOAD: &str = "vrm-load.mjs";

/// The probes' settings; `None` leaves the script's default.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct VrmLoadOptions {
    /// Updates per phase of the spring probe (default 60).
    pub frames: Option<u32>,
    /// Seconds per update of the spring probe (default 1/60).
    pub delta: Option<f64>,
    /// How far the model is moved at once in the spring probe, metres (default 0.1 along +X).
    pub offset: Option<[f64; 3]>,
    /// The expressions to probe (default: every expression three-vrm registered). A name that
    /// is not registered is an error of the report.
    pub expressions: Option<Vec<String>>,
}

impl VrmLoadOptions {
    /// The script's options for these settings, ending with `--` (the files follow).
    pub fn arguments(&self) -> Vec<String> {
        let mut arguments = Vec::new();
        if let Some(frames) = self.frames {
            arguments.extend(["--frames".to_string(), frames.to_string()]);
        }
        if let Some(delta) = self.delta {
            arguments.extend(["--delta".to_string(), delta.to_string()]);
        }
        if let Some([x, y, z]) = self.offset {
            arguments.extend(["--offset".to_string(), format!("{x},{y},{z}")]);
        }
        for name in self.expressions.iter().flatten() {
            arguments.extend(["--expression".to_string(), name.clone()]);
        }
        arguments.push("--".to_string());
        arguments
    }
}

/// What three-vrm made of `files` (`.vrm`; external resources are read from each file's own
/// folder), in order, with the script's default probes; `None` when the clients are missing
/// (see [`super::node_client`]).
pub fn vrm_load<P: AsRef<Path>>(test_name: &str, files: &[P]) -> Option<Vec<VrmReport>> {
    vrm_load_with(test_name, files, &VrmLoadOptions::default())
}

/// [`vrm_load`] with the probes set by `options`.
pub fn vrm_load_with<P: AsRef<Path>>(
    test_name: &str,
    files: &[P],
    options: &VrmLoadOptions,
) -> Option<Vec<VrmReport>> {
    reports(test_name, VRM_LOAD, &options.arguments(), files)
}

/// Panics listing every error and every warning of `reports`: a file that did not load or made
/// no VRM, an expression or spring that went NaN, a probed expression that is not registered,
/// and what three.js and three-vrm logged. Warnings count because three-vrm says a dropped
/// bind, collider, bone or spring only as a console warning.
pub fn assert_no_vrm_errors<'r>(reports: impl IntoIterator<Item = &'r VrmReport>) {
    let lines: Vec<String> = reports
        .into_iter()
        .flat_map(|r| {
            let errors = r
                .errors
                .iter()
                .map(move |e| format!("{}: error: {e}", r.file));
            let warnings = r
                .warnings
                .iter()
                .map(move |w| format!("{}: warning: {w}", r.file));
            errors.chain(warnings)
        })
        .collect();
    assert!(
        lines.is_empty(),
        "three-vrm had {} errors and warnings:\n{}",
        lines.len(),
        lines.join("\n")
    );
}

/// A number the script wrote as `null` because it was not finite, read as NaN.
fn number_or_nan<'de, D: Deserializer<'de>>(deserializer: D) -> Result<f64, D::Error> {
    Ok(Option::<f64>::deserialize(deserializer)?.unwrap_or(f64::NAN))
}

/// A point whose coordinates the script wrote as `null` when they were not finite.
fn point_or_nan<'de, D: Deserializer<'de>>(deserializer: D) -> Result<[f64; 3], D::Error> {
    let point = <[Option<f64>; 3]>::deserialize(deserializer)?;
    Ok(point.map(|c| c.unwrap_or(f64::NAN)))
}

/// What three-vrm made of one file (`clients/vrm-load.mjs`).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct VrmReport {
    /// The file as it was passed to the script.
    pub file: String,
    /// Whether three-vrm made a VRM instance (`gltf.userData.vrm`); the rest is empty without.
    pub vrm: bool,
    /// The VRM's meta.
    pub meta: Option<VrmMeta>,
    /// The human bones and the normalized rig.
    pub humanoid: Option<VrmHumanoid>,
    /// Every expression registered, in the expression manager's order.
    pub expressions: Vec<VrmExpression>,
    /// The look-at, when the file has one.
    pub look_at: Option<VrmLookAt>,
    /// The first-person mesh annotations, when three-vrm made them.
    pub first_person: Option<VrmFirstPerson>,
    /// The spring bones, when the file uses `VRMC_springBone`.
    pub spring_bones: Option<VrmSpringBones>,
    /// The expression probe, per expression probed.
    pub expression_probes: Vec<ExpressionProbe>,
    /// The spring probe, when there are spring joints.
    pub spring_probe: Option<SpringProbe>,
    /// What went wrong: the file did not load or made no VRM, a probe went NaN, three.js or
    /// three-vrm logged an error.
    pub errors: Vec<String>,
    /// What three.js and three-vrm warned about (three-vrm's dropped binds, colliders, ...).
    pub warnings: Vec<String>,
}

impl VrmReport {
    /// The human bone `bone` (VRM's name, e.g. `leftUpperArm`), when three-vrm found it.
    pub fn human_bone(&self, bone: &str) -> Option<&VrmHumanBone> {
        self.humanoid
            .as_ref()?
            .human_bones
            .iter()
            .find(|b| b.bone == bone)
    }

    /// The registered expression `name`.
    pub fn expression(&self, name: &str) -> Option<&VrmExpression> {
        self.expressions.iter().find(|e| e.name == name)
    }

    /// The probe of expression `name`.
    pub fn expression_probe(&self, name: &str) -> Option<&ExpressionProbe> {
        self.expression_probes.iter().find(|p| p.expression == name)
    }
}

/// The VRM's meta as three-vrm read it (VRM 1.0 names; a VRM 0.x file fills only
/// `meta_version`, `name`, `version`, `authors` and `thumbnail`).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct VrmMeta {
    /// `"1"` for VRM 1.0, `"0"` for VRM 0.x.
    pub meta_version: String,
    /// The thumbnail image's size, when it loaded (its header read; nothing decoded).
    pub thumbnail: Option<ThreeImage>,
    /// The model's name.
    pub name: Option<String>,
    /// The model's version.
    pub version: Option<String>,
    /// Its authors.
    pub authors: Vec<String>,
    /// Copyright.
    #[serde(default)]
    pub copyright_information: Option<String>,
    /// Contact.
    #[serde(default)]
    pub contact_information: Option<String>,
    /// References.
    #[serde(default)]
    pub references: Vec<String>,
    /// Third-party licences.
    #[serde(default)]
    pub third_party_licenses: Option<String>,
    /// The licence URL (three-vrm accepts only `https://vrm.dev/licenses/1.0/`).
    #[serde(default)]
    pub license_url: Option<String>,
    /// `onlyAuthor`, `onlySeparatelyLicensedPerson` or `everyone`.
    #[serde(default)]
    pub avatar_permission: Option<String>,
    /// Violent use allowed.
    #[serde(default)]
    pub allow_excessively_violent_usage: Option<bool>,
    /// Sexual use allowed.
    #[serde(default)]
    pub allow_excessively_sexual_usage: Option<bool>,
    /// `personalNonProfit`, `personalProfit` or `corporation`.
    #[serde(default)]
    pub commercial_usage: Option<String>,
    /// Political or religious use allowed.
    #[serde(default)]
    pub allow_political_or_religious_usage: Option<bool>,
    /// Antisocial or hateful use allowed.
    #[serde(default)]
    pub allow_antisocial_or_hate_usage: Option<bool>,
    /// `required` or `unnecessary`.
    #[serde(default)]
    pub credit_notation: Option<String>,
    /// Redistribution allowed.
    #[serde(default)]
    pub allow_redistribution: Option<bool>,
    /// `prohibited`, `allowModification` or `allowModificationRedistribution`.
    #[serde(default)]
    pub modification: Option<String>,
    /// Another licence's URL.
    #[serde(default)]
    pub other_license_url: Option<String>,
}

/// The humanoid as three-vrm built it.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct VrmHumanoid {
    /// Every human bone found, in three-vrm's list order (`VRMHumanBoneList`).
    pub human_bones: Vec<VrmHumanBone>,
    /// The normalized rig three-vrm made beside the bones.
    pub normalized_rig: Option<NormalizedRig>,
    /// How far the first `vrm.update(0)` moved the bones from the file's rest pose.
    pub rest_pose_drift: Option<RestPoseDrift>,
}

/// One human bone and the glTF node it is.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct VrmHumanBone {
    /// VRM's bone name, e.g. `hips`.
    pub bone: String,
    /// The glTF node's name as written in the file.
    pub node: Option<String>,
    /// The glTF node's index.
    pub node_index: Option<usize>,
}

/// three-vrm's normalized rig (`humanoid.normalizedHumanBonesRoot`).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct NormalizedRig {
    /// The rig root's name (`VRMHumanoidRig`).
    pub root: String,
    /// Whether the root is in the VRM's scene.
    pub in_scene: bool,
    /// How many normalized bones it has (one per human bone).
    pub bones: usize,
}

/// The largest change of a human bone's local transform in the first `vrm.update(0)`, which
/// copies the normalized rig onto the bones.
#[derive(Debug, Clone, Copy, PartialEq, Deserialize)]
pub struct RestPoseDrift {
    /// Radians.
    #[serde(deserialize_with = "number_or_nan")]
    pub rotation: f64,
    /// Metres.
    #[serde(deserialize_with = "number_or_nan")]
    pub translation: f64,
}

/// One expression as registered in three-vrm's expression manager.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct VrmExpression {
    /// Its name (`aa`, `blink`, ... or a custom name).
    pub name: String,
    /// Whether it is one of VRM's presets.
    pub preset: bool,
    /// Whether its weight snaps to 0 or 1.
    pub is_binary: bool,
    /// `none`, `block` or `blend`.
    pub override_blink: String,
    /// `none`, `block` or `blend`.
    pub override_look_at: String,
    /// `none`, `block` or `blend`.
    pub override_mouth: String,
    /// Its morph target binds.
    pub morph_target_binds: Vec<MorphTargetBind>,
    /// Its material colour binds.
    pub material_color_binds: Vec<MaterialColorBind>,
    /// Its texture transform binds.
    pub texture_transform_binds: Vec<TextureTransformBind>,
}

/// A morph target bind: one morph target of every primitive of a node's mesh.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MorphTargetBind {
    /// The glTF node's name.
    pub node: Option<String>,
    /// The glTF node's index.
    pub node_index: Option<usize>,
    /// three.js's names of the primitives (one mesh object each).
    pub primitives: Vec<String>,
    /// The morph target's index.
    pub index: usize,
    /// The influence at expression weight 1.
    pub weight: f64,
}

/// A material colour bind.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MaterialColorBind {
    /// The material's name.
    pub material: String,
    /// `color`, `emissionColor`, `shadeColor`, `matcapColor`, `rimColor` or `outlineColor`.
    #[serde(rename = "type")]
    pub kind: String,
    /// The colour at weight 1 (RGB).
    pub target_value: Vec<f64>,
    /// The alpha at weight 1.
    pub target_alpha: Option<f64>,
}

/// A texture transform bind.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TextureTransformBind {
    /// The material's name.
    pub material: String,
    /// The UV scale at weight 1.
    pub scale: [f64; 2],
    /// The UV offset at weight 1.
    pub offset: [f64; 2],
}

/// The look-at as three-vrm built it.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct VrmLookAt {
    /// The applier's type: `bone` or `expression`.
    #[serde(rename = "type")]
    pub kind: Option<String>,
    /// The applier's class: `VRMLookAtBoneApplier` or `VRMLookAtExpressionApplier`.
    pub applier: Option<String>,
    /// The eyes' position from the head bone, metres.
    pub offset_from_head_bone: [f64; 3],
    /// Horizontal, towards the nose.
    pub range_map_horizontal_inner: Option<RangeMap>,
    /// Horizontal, away from the nose.
    pub range_map_horizontal_outer: Option<RangeMap>,
    /// Vertical, down.
    pub range_map_vertical_down: Option<RangeMap>,
    /// Vertical, up.
    pub range_map_vertical_up: Option<RangeMap>,
}

/// A look-at range map.
#[derive(Debug, Clone, Copy, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RangeMap {
    /// Degrees of gaze mapped to the full output.
    pub input_max_value: f64,
    /// The output at `input_max_value` (degrees for bones, weight for expressions).
    pub output_scale: f64,
}

/// The first-person settings as three-vrm built them.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct VrmFirstPerson {
    /// One per node with a mesh (three-vrm annotates every one, `auto` when the file does not).
    pub mesh_annotations: Vec<MeshAnnotation>,
}

/// One first-person mesh annotation.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MeshAnnotation {
    /// The glTF node's name.
    pub node: Option<String>,
    /// The glTF node's index.
    pub node_index: Option<usize>,
    /// three.js's names of its primitives.
    pub meshes: Vec<String>,
    /// `auto`, `both`, `thirdPersonOnly` or `firstPersonOnly`.
    #[serde(rename = "type")]
    pub kind: String,
}

/// The spring bones as three-vrm built them.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct VrmSpringBones {
    /// three-vrm's joints: one per pair of neighbouring joints of a spring in the file (a
    /// spring of n joints makes n - 1), in the manager's order.
    pub joints: Vec<SpringJoint>,
    /// Every collider in the scene.
    pub colliders: Vec<SpringCollider>,
    /// The collider groups the joints use.
    pub collider_groups: Vec<ColliderGroup>,
}

/// One spring joint: a node swinging towards its child.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SpringJoint {
    /// The glTF node's name.
    pub node: Option<String>,
    /// The glTF node's index.
    pub node_index: Option<usize>,
    /// The next joint's node name (the tail).
    pub child: Option<String>,
    /// The next joint's node index.
    pub child_index: Option<usize>,
    /// Collision radius, metres.
    pub hit_radius: f64,
    /// Pull back towards rest.
    pub stiffness: f64,
    /// Gravity's strength.
    pub gravity_power: f64,
    /// Gravity's direction.
    pub gravity_dir: [f64; 3],
    /// Damping.
    pub drag_force: f64,
    /// Indices into [`VrmSpringBones::collider_groups`].
    pub collider_groups: Vec<Option<usize>>,
    /// The spring's center node's name.
    pub center: Option<String>,
}

/// One collider.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SpringCollider {
    /// The glTF node it is attached to.
    pub node: Option<String>,
    /// That node's index.
    pub node_index: Option<usize>,
    /// `sphere`, `capsule` or `plane`.
    pub shape: String,
    /// Its centre (or a capsule's head) in the node's space.
    pub offset: Option<[f64; 3]>,
    /// Its radius (sphere, capsule).
    pub radius: Option<f64>,
    /// A capsule's tail in the node's space.
    pub tail: Option<[f64; 3]>,
    /// A plane's normal.
    pub normal: Option<[f64; 3]>,
    /// Whether joints are kept inside it (extended colliders).
    pub inside: Option<bool>,
}

/// One collider group.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ColliderGroup {
    /// Its name.
    pub name: Option<String>,
    /// Indices into [`VrmSpringBones::colliders`] (`None`: a collider not in the scene).
    pub colliders: Vec<Option<usize>>,
}

/// One expression set to 1 alone (`expressionManager.setValue` and `vrm.update(0)`).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ExpressionProbe {
    /// The expression's name.
    pub expression: String,
    /// Whether it was registered (if not, the rest is empty and `errors` says so).
    pub registered: bool,
    /// Its weight as set.
    pub weight: Option<f64>,
    /// Its weight after overrides and binary snapping.
    pub output_weight: Option<f64>,
    /// Every morph influence of the scene that changed or is not zero after the update.
    pub influences: Vec<InfluenceChange>,
    /// Per mesh the expression binds or whose influences changed: what moved.
    pub meshes: Vec<MeshMotion>,
}

/// A morph influence before and after an expression was set.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct InfluenceChange {
    /// three.js's mesh (primitive) name.
    pub mesh: String,
    /// The morph target's index.
    pub index: usize,
    /// The morph target's name, when the file names it.
    pub name: Option<String>,
    /// With every expression at 0.
    pub before: f64,
    /// With the probed expression at 1.
    pub after: f64,
}

/// What an expression did to one mesh's vertices (unskinned, in the mesh's own space).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MeshMotion {
    /// three.js's mesh (primitive) name.
    pub mesh: String,
    /// The glTF node's name.
    pub node: Option<String>,
    /// The glTF node's index.
    pub node_index: Option<usize>,
    /// Its vertices.
    pub vertex_count: usize,
    /// Vertices that moved more than 1e-7 m.
    pub moved_vertices: usize,
    /// The largest move, metres.
    #[serde(deserialize_with = "number_or_nan")]
    pub max_displacement: f64,
    /// Whether a morphed position was not a number.
    pub nan: bool,
    /// The most moved vertices (up to five), most first.
    pub samples: Vec<MovedVertex>,
}

/// One vertex an expression moved.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MovedVertex {
    /// Its index in the primitive.
    pub index: usize,
    /// Its position with every expression at 0.
    #[serde(deserialize_with = "point_or_nan")]
    pub position: [f64; 3],
    /// Its position with the expression at 1.
    #[serde(deserialize_with = "point_or_nan")]
    pub morphed: [f64; 3],
    /// How far it moved, metres.
    #[serde(deserialize_with = "number_or_nan")]
    pub displacement: f64,
}

/// The spring bones simulated: `frames` updates in place, then the model moved by `offset` at
/// once and `frames` more updates.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SpringProbe {
    /// Updates per phase.
    pub frames: u32,
    /// Seconds per update.
    pub delta: f64,
    /// How far the model was moved, metres.
    pub offset: [f64; 3],
    /// Every node of every joint (its node and its child), in the joints' order.
    pub nodes: Vec<SpringNode>,
    /// How many nodes strayed more than 1e-6 m after the move.
    pub moved: usize,
    /// The largest [`SpringNode::settled`].
    #[serde(deserialize_with = "number_or_nan")]
    pub max_settled: f64,
    /// The largest [`SpringNode::peak`].
    #[serde(deserialize_with = "number_or_nan")]
    pub max_peak: f64,
    /// The largest [`SpringNode::final_`].
    #[serde(deserialize_with = "number_or_nan")]
    pub max_final: f64,
    /// Whether a position became NaN.
    pub nan: bool,
}

/// One spring node in the probe (world space, metres).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SpringNode {
    /// The glTF node's name.
    pub node: Option<String>,
    /// The glTF node's index.
    pub node_index: Option<usize>,
    /// Where it stood as loaded.
    #[serde(deserialize_with = "point_or_nan")]
    pub rest: [f64; 3],
    /// How far it moved from `rest` in the first phase (gravity, no motion).
    #[serde(deserialize_with = "number_or_nan")]
    pub settled: f64,
    /// The farthest it strayed, after the move, from where it would be had it moved rigidly.
    #[serde(deserialize_with = "number_or_nan")]
    pub peak: f64,
    /// How far it was from there at the end.
    #[serde(rename = "final", deserialize_with = "number_or_nan")]
    pub final_: f64,
}
