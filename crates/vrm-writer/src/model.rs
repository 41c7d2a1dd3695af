//! The writer-neutral description of what makes a glTF character a VRM 1.0 avatar: bones are
//! indices into [`CharacterSpec::bones`](character_spec::CharacterSpec::bones), meshes are
//! the body or an attachment ([`MeshRef`]), morph targets are blend shapes named as in the
//! spec's meshes, positions are in skeleton space (metres, Y up, facing +Z). The writer turns
//! them into node, mesh and morph-target indices and node-local offsets.

use glam::DVec3;
use std::collections::BTreeMap;
use std::sync::Arc;

/// Everything VRM adds to a glTF character.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct VrmSpec {
    /// Licence and authorship (`VRMC_vrm.meta`).
    pub meta: Meta,
    /// VRM human bone name (`hips`, `leftUpperArm`, ...) -> bone index.
    pub humanoid: BTreeMap<String, usize>,
    /// Expressions, presets and custom ones, in the order written.
    pub expressions: Vec<Expression>,
    /// The look-at (`VRMC_vrm.lookAt`), when the character has one.
    pub look_at: Option<LookAt>,
    /// First-person annotations per mesh; meshes not listed are left to the reader (`auto`).
    pub first_person: Vec<(MeshRef, FirstPersonKind)>,
    /// Spring bones and colliders (`VRMC_springBone`); empty: the extension is not written.
    pub spring_bones: SpringBones,
}

/// A mesh of the character: the body or an attachment (an index into
/// [`CharacterSpec::attachments`](character_spec::CharacterSpec::attachments)).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum MeshRef {
    /// The body's mesh.
    Body,
    /// A worn asset's mesh.
    Attachment(usize),
}

/// `VRMC_vrm.meta`: who made the avatar and what others may do with it.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Meta {
    /// The avatar's name.
    pub name: String,
    /// The avatar's version, if given.
    pub version: Option<String>,
    /// Authors (at least one).
    pub authors: Vec<String>,
    /// Copyright line, if given.
    pub copyright_information: Option<String>,
    /// Contact, if given.
    pub contact_information: Option<String>,
    /// References (URLs of the sources the avatar is made from).
    pub references: Vec<String>,
    /// Licences of third-party material in the avatar (MakeHuman's CC0 assets).
    pub third_party_licenses: Option<String>,
    /// A square PNG shown as the avatar's thumbnail (stored in the buffer).
    pub thumbnail_png: Option<Arc<Vec<u8>>>,
    /// The rights the licence grants.
    pub license: License,
}

/// The rights fields of `VRMC_vrm.meta` (its `licenseUrl` is always VRM's fixed licence URL).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct License {
    /// Who may perform as the avatar.
    pub avatar_permission: AvatarPermission,
    /// Excessively violent use allowed.
    pub allow_excessively_violent_usage: bool,
    /// Excessively sexual use allowed.
    pub allow_excessively_sexual_usage: bool,
    /// Commercial use allowed to whom.
    pub commercial_usage: CommercialUsage,
    /// Political or religious use allowed.
    pub allow_political_or_religious_usage: bool,
    /// Antisocial or hateful use allowed.
    pub allow_antisocial_or_hate_usage: bool,
    /// Whether credit is required.
    pub credit_notation: CreditNotation,
    /// Redistribution allowed.
    pub allow_redistribution: bool,
    /// Modification allowed, and its redistribution.
    pub modification: Modification,
    /// A licence that applies besides VRM's (e.g. CC0's URL).
    pub other_license_url: Option<String>,
}

impl Default for License {
    /// The schema's defaults: the most conservative rights.
    fn default() -> Self {
        License {
            avatar_permission: AvatarPermission::OnlyAuthor,
            allow_excessively_violent_usage: false,
            allow_excessively_sexual_usage: false,
            commercial_usage: CommercialUsage::PersonalNonProfit,
            allow_political_or_religious_usage: false,
            allow_antisocial_or_hate_usage: false,
            credit_notation: CreditNotation::Required,
            allow_redistribution: false,
            modification: Modification::Prohibited,
            other_license_url: None,
        }
    }
}

/// `meta.avatarPermission`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AvatarPermission {
    /// `onlyAuthor`.
    OnlyAuthor,
    /// `onlySeparatelyLicensedPerson`.
    OnlySeparatelyLicensedPerson,
    /// `everyone`.
    Everyone,
}

/// `meta.commercialUsage`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CommercialUsage {
    /// `personalNonProfit`.
    PersonalNonProfit,
    /// `personalProfit`.
    PersonalProfit,
    /// `corporation`.
    Corporation,
}

/// `meta.creditNotation`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CreditNotation {
    /// `required`.
    Required,
    /// `unnecessary`.
    Unnecessary,
}

/// `meta.modification`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Modification {
    /// `prohibited`.
    Prohibited,
    /// `allowModification`.
    AllowModification,
    /// `allowModificationRedistribution`.
    AllowModificationRedistribution,
}

/// An expression: a preset (`happy`, `aa`, `blink`, ...) or a custom name, bound to morph
/// targets.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Expression {
    /// The preset's name, or the custom expression's.
    pub name: String,
    /// Whether `name` is a preset (written under `preset`) or custom (under `custom`).
    pub preset: bool,
    /// Values above 0.5 count as 1, others as 0.
    pub is_binary: bool,
    /// The morph targets it sets: at weight 1 each target shows `weight` of itself.
    pub binds: Vec<MorphBind>,
    /// How it overrides blinking while shown.
    pub override_blink: Override,
    /// How it overrides the look-at while shown.
    pub override_look_at: Override,
    /// How it overrides the mouth expressions while shown.
    pub override_mouth: Override,
}

/// One morph-target bind of an expression.
#[derive(Debug, Clone, PartialEq)]
pub struct MorphBind {
    /// The mesh carrying the shape.
    pub mesh: MeshRef,
    /// The blend shape's name, as in the spec's mesh (`BlendShapeSpec::name`).
    pub shape: String,
    /// The target's weight at the expression's full weight, 0..=1.
    pub weight: f64,
}

/// `overrideBlink`, `overrideLookAt`, `overrideMouth`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Override {
    /// `none`.
    #[default]
    None,
    /// `block`.
    Block,
    /// `blend`.
    Blend,
}

/// `VRMC_vrm.lookAt`.
#[derive(Debug, Clone, PartialEq)]
pub struct LookAt {
    /// Bones or expressions.
    pub kind: LookAtKind,
    /// The point the avatar looks from, in skeleton space at rest (between the eyes); the
    /// writer makes it an offset from the head bone.
    pub eyes: DVec3,
    /// Range maps, degrees of gaze in to bone degrees (bone) or expression weight
    /// (expression) out.
    pub horizontal_inner: RangeMap,
    /// Horizontal, outward.
    pub horizontal_outer: RangeMap,
    /// Vertical, downward.
    pub vertical_down: RangeMap,
    /// Vertical, upward.
    pub vertical_up: RangeMap,
}

/// `lookAt.type`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LookAtKind {
    /// `bone`: the eye bones turn.
    Bone,
    /// `expression`: the `lookUp`, `lookDown`, `lookLeft`, `lookRight` expressions are set.
    Expression,
}

/// A look-at range map: input degrees up to `input_max_value` map linearly to
/// `output_scale` (degrees or weight) at most.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RangeMap {
    /// Largest input angle, degrees.
    pub input_max_value: f64,
    /// Output at that angle.
    pub output_scale: f64,
}

/// `firstPerson.meshAnnotations[].type`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FirstPersonKind {
    /// `auto`: the reader hides the head's part (vertices the head bones move).
    Auto,
    /// `both`: seen in both views.
    Both,
    /// `thirdPersonOnly`: hidden from the first-person camera.
    ThirdPersonOnly,
    /// `firstPersonOnly`: only for the first-person camera.
    FirstPersonOnly,
}

/// `VRMC_springBone`: colliders, their groups and the springs.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct SpringBones {
    /// Colliders.
    pub colliders: Vec<Collider>,
    /// Named groups of colliders (indices into `colliders`).
    pub collider_groups: Vec<ColliderGroup>,
    /// Springs.
    pub springs: Vec<Spring>,
}

impl SpringBones {
    /// Whether there is nothing to write.
    pub fn is_empty(&self) -> bool {
        self.springs.is_empty() && self.colliders.is_empty()
    }
}

/// A collider on a bone.
#[derive(Debug, Clone, PartialEq)]
pub struct Collider {
    /// The bone it moves with.
    pub bone: usize,
    /// Its shape, in skeleton space at rest (the writer makes it node-local).
    pub shape: ColliderShape,
}

/// A collider's shape.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ColliderShape {
    /// A sphere.
    Sphere {
        /// Centre, skeleton space.
        center: DVec3,
        /// Radius, metres.
        radius: f64,
    },
    /// A capsule between two centres.
    Capsule {
        /// One end's centre, skeleton space.
        center: DVec3,
        /// The other end's centre, skeleton space.
        tail: DVec3,
        /// Radius, metres.
        radius: f64,
    },
}

/// A named group of colliders.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ColliderGroup {
    /// Its name.
    pub name: String,
    /// Indices into [`SpringBones::colliders`].
    pub colliders: Vec<usize>,
}

/// A spring: a chain of joints, parent first.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Spring {
    /// Its name.
    pub name: String,
    /// Joints, from the chain's root to its tip, each a descendant of the one before (its child,
    /// or further down: VRM ignores the bones skipped).
    pub joints: Vec<SpringJoint>,
    /// Indices into [`SpringBones::collider_groups`] the chain collides with.
    pub collider_groups: Vec<usize>,
}

/// A spring joint: a bone and how it swings.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SpringJoint {
    /// The bone.
    pub bone: usize,
    /// Collision radius, metres.
    pub hit_radius: f64,
    /// Pull back to the rest direction.
    pub stiffness: f64,
    /// Strength of gravity.
    pub gravity_power: f64,
    /// Gravity's direction (unit), skeleton space.
    pub gravity_dir: DVec3,
    /// Damping, 0..=1.
    pub drag_force: f64,
}
