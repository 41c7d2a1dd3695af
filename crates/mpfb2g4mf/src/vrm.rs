//! `.vrm` outputs: what VRM adds to a character, decided from the writers' spec alone (so
//! `convert` and `to-gltf` decide it the same way): the humanoid map from the bones' G4MF
//! humanoid names, the expression presets from face units and visemes through [`RECIPES`]
//! and, where the job found MakeHuman's pose units, four of them from MakeHuman's own
//! expressions through [`MAKEHUMAN_PRESETS`],
//! the look-at, first-person annotations by asset kind, spring bones for the bones an asset's
//! sub-rig brings with colliders fitted to the body, and the licence meta from the options.
//! The tables and why each value is what it is: `spec-notes/vrm.md`.

use crate::diagnostics::{Code, Diagnostics};
use crate::shape_names::{FACE_UNITS, VISEMES};
use character_spec::{CharacterSpec, MeshSpec};
use glam::DVec3;
use makehuman_assets::AssetKind;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::sync::Arc;
use vrm_writer::{
    AvatarPermission, Collider, ColliderGroup, ColliderShape, CommercialUsage, CreditNotation,
    Expression, FirstPersonKind, License, LookAt, LookAtKind, MeshRef, Meta, Modification,
    MorphBind, Override, RangeMap, Spring, SpringBones, SpringJoint, VrmSpec,
};

/// The authors a `.vrm` names when `--vrm-author` is not given.
pub const DEFAULT_AUTHORS: [&str; 2] = ["mpfb2g4mf", "MakeHuman community"];

/// CC0 1.0's deed, the `otherLicenseUrl` of `--vrm-license cc0` and the licence of every
/// MakeHuman asset and target we read.
pub const CC0_URL: &str = "https://creativecommons.org/publicdomain/zero/1.0/";

/// The rights a `.vrm` grants, before `--vrm-meta` changes single fields.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
#[serde(rename_all = "lowercase")]
pub enum LicensePreset {
    /// VRM's schema defaults: only the author may use the avatar, no commercial use, credit
    /// required, no redistribution or modification (nothing granted that you did not decide).
    #[default]
    Conservative,
    /// Everything allowed, `otherLicenseUrl` CC0 1.0 (what MakeHuman's own assets grant).
    Cc0,
}

impl LicensePreset {
    /// The rights this preset grants.
    pub fn license(self) -> License {
        match self {
            LicensePreset::Conservative => License::default(),
            LicensePreset::Cc0 => License {
                avatar_permission: AvatarPermission::Everyone,
                allow_excessively_violent_usage: true,
                allow_excessively_sexual_usage: true,
                commercial_usage: CommercialUsage::Corporation,
                allow_political_or_religious_usage: true,
                allow_antisocial_or_hate_usage: true,
                credit_notation: CreditNotation::Unnecessary,
                allow_redistribution: true,
                modification: Modification::AllowModificationRedistribution,
                other_license_url: Some(CC0_URL.to_owned()),
            },
        }
    }
}

/// How a `.vrm` is made beyond the glTF it carries.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VrmOptions {
    /// `meta.authors` (at least one).
    pub authors: Vec<String>,
    /// The rights granted.
    pub license: License,
    /// `meta.version`, `meta.copyrightInformation`, `meta.contactInformation`, when given.
    pub version: Option<String>,
    /// See [`VrmOptions::version`].
    pub copyright: Option<String>,
    /// See [`VrmOptions::version`].
    pub contact: Option<String>,
    /// Write the expression presets (and the face units and visemes they need).
    pub expressions: bool,
    /// The expressions written from MakeHuman's, as the job decided them from the files it
    /// found (`convert`; `to-gltf` reads none).
    pub makehuman: MakeHumanExpressions,
}

/// The emotion presets a `.vrm` takes from MakeHuman's shipped expressions when the job finds
/// the pose units, `(VRM preset, expression)`: the shipped expression closest to each preset
/// by its tag and its look (spec-notes/vrm.md shows why each). `relaxed` is none of them and
/// keeps its face-unit recipe.
pub const MAKEHUMAN_PRESETS: [(&str, &str); 4] = [
    ("happy", "smile04"),
    ("angry", "anger01"),
    ("sad", "sad02"),
    ("surprised", "surprise01"),
];

/// One VRM expression written from a MakeHuman expression's blend shape.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FromMakeHuman {
    /// The VRM expression: a preset's name (its recipe replaced) or a custom expression's.
    pub vrm_name: String,
    /// The blend shape it binds at weight 1 (named after the MakeHuman expression).
    pub shape: String,
    /// Asked with `--expression` or the description's `expression` line, which a `.vrm`
    /// writes as an expression instead of baking it into its rest.
    pub asked: bool,
}

/// What a `.vrm` writes from MakeHuman's expressions, and what it could not (each said).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct MakeHumanExpressions {
    /// The expressions written from MakeHuman's, presets first.
    pub written: Vec<FromMakeHuman>,
    /// Why the presets of [`MAKEHUMAN_PRESETS`] not in `written` keep their face-unit
    /// recipes; `None` when nothing was looked for.
    pub recipes_kept: Option<String>,
    /// A description's `expression` line not written, as `--no-expressions` asks.
    pub not_written: Option<String>,
}

impl MakeHumanExpressions {
    /// The expression written as `vrm_name`, if it comes from MakeHuman's.
    fn shape_of(&self, vrm_name: &str) -> Option<&FromMakeHuman> {
        self.written.iter().find(|w| w.vrm_name == vrm_name)
    }

    /// The notes saying where the presets came from and what an asked expression became:
    /// one `written` holds (an asked expression left out is said where it was left out).
    fn notes(&self, written: &[Expression], said: &mut Diagnostics) {
        let table: Vec<&FromMakeHuman> = self.written.iter().filter(|w| !w.asked).collect();
        if !table.is_empty() {
            said.say(
                Code::VrmPresets,
                format!(
                    "VRM presets from MakeHuman's expressions: {}",
                    table
                        .iter()
                        .map(|w| format!("{} {}", w.vrm_name, w.shape))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            );
        }
        if let Some(why) = &self.recipes_kept {
            let kept: Vec<&str> = MAKEHUMAN_PRESETS
                .iter()
                .map(|(preset, _)| *preset)
                .filter(|p| self.shape_of(p).is_none())
                .collect();
            if !kept.is_empty() {
                said.say(
                    Code::VrmPresets,
                    format!(
                        "VRM presets {} from face units, not MakeHuman's expressions: {why}",
                        kept.join(", ")
                    ),
                );
            }
        }
        for asked in self
            .written
            .iter()
            .filter(|w| w.asked && written.iter().any(|e| e.name == w.vrm_name))
        {
            let kind = if is_preset(&asked.vrm_name) {
                "preset"
            } else {
                "custom expression"
            };
            said.say(Code::VrmExpressionWritten, format!(
                "expression {} written as the VRM {kind} {}, not baked: a .vrm's rest face stays neutral",
                asked.shape, asked.vrm_name
            ));
        }
        if let Some(name) = &self.not_written {
            said.say(
                Code::VrmExpressionNotWritten,
                format!("expression {name} of the description not written: --no-expressions"),
            );
        }
    }
}

/// Whether `name` is one of VRM's preset expressions.
pub fn is_preset(name: &str) -> bool {
    vrm_writer::PRESET_EXPRESSIONS.contains(&name)
}

impl Default for VrmOptions {
    fn default() -> Self {
        VrmOptions {
            authors: DEFAULT_AUTHORS.map(str::to_owned).to_vec(),
            license: License::default(),
            version: None,
            copyright: None,
            contact: None,
            expressions: true,
            makehuman: MakeHumanExpressions::default(),
        }
    }
}

impl VrmOptions {
    /// The options `--vrm-author` (repeatable), `--vrm-license`, `--vrm-meta` (repeatable)
    /// and `--no-expressions` ask for; refused as `(flag as given, why)`.
    pub fn from_flags(
        authors: &[String],
        preset: LicensePreset,
        meta: &[String],
        no_expressions: bool,
    ) -> Result<Self, (String, String)> {
        let mut options = VrmOptions {
            license: preset.license(),
            expressions: !no_expressions,
            ..Default::default()
        };
        if !authors.is_empty() {
            options.authors = authors.to_vec();
        }
        if let Some(blank) = options.authors.iter().find(|a| a.trim().is_empty()) {
            return Err((
                format!("--vrm-author `{blank}`"),
                "an author needs a name".to_owned(),
            ));
        }
        for field in meta {
            set_meta_field(&mut options, field)
                .map_err(|why| (format!("--vrm-meta `{field}`"), why))?;
        }
        Ok(options)
    }
}

/// The `meta` fields `--vrm-meta FIELD=VALUE` sets, by VRM's own names.
pub const META_FIELDS: [&str; 13] = [
    "avatarPermission",
    "allowExcessivelyViolentUsage",
    "allowExcessivelySexualUsage",
    "commercialUsage",
    "allowPoliticalOrReligiousUsage",
    "allowAntisocialOrHateUsage",
    "creditNotation",
    "allowRedistribution",
    "modification",
    "otherLicenseUrl",
    "version",
    "copyrightInformation",
    "contactInformation",
];

/// Sets one `meta` field from `FIELD=VALUE`; the error says what is expected.
pub fn set_meta_field(options: &mut VrmOptions, text: &str) -> Result<(), String> {
    let (field, value) = text
        .split_once('=')
        .map(|(f, v)| (f.trim(), v.trim()))
        .ok_or_else(|| {
            format!(
                "expected FIELD=VALUE, FIELD one of {}",
                META_FIELDS.join(", ")
            )
        })?;
    if let Some(set) = set_right(&mut options.license, field, value) {
        return set;
    }
    let text_value = (!value.is_empty()).then(|| value.to_owned());
    match field {
        "otherLicenseUrl" => options.license.other_license_url = text_value,
        "version" => options.version = text_value,
        "copyrightInformation" => options.copyright = text_value,
        "contactInformation" => options.contact = text_value,
        other => {
            return Err(format!(
                "unknown field `{other}`; one of {}",
                META_FIELDS.join(", ")
            ));
        }
    }
    Ok(())
}

/// Sets one of the rights `field`s (its choices or true/false) to `value`; `None` when
/// `field` is not one.
fn set_right(license: &mut License, field: &str, value: &str) -> Option<Result<(), String>> {
    let l = license;
    let flag = |set: &mut bool| match value {
        "true" | "false" => {
            *set = value == "true";
            Ok(())
        }
        _ => Err(format!("{field} is true or false, got `{value}`")),
    };
    Some(match field {
        "allowExcessivelyViolentUsage" => flag(&mut l.allow_excessively_violent_usage),
        "allowExcessivelySexualUsage" => flag(&mut l.allow_excessively_sexual_usage),
        "allowPoliticalOrReligiousUsage" => flag(&mut l.allow_political_or_religious_usage),
        "allowAntisocialOrHateUsage" => flag(&mut l.allow_antisocial_or_hate_usage),
        "allowRedistribution" => flag(&mut l.allow_redistribution),
        _ => return set_choice(l, field, value),
    })
}

/// The choice named `value` of `field`'s `choices`, or what the choices are.
fn choose<T: Copy>(field: &str, value: &str, choices: &[(&str, T)]) -> Result<T, String> {
    let names: Vec<&str> = choices.iter().map(|(n, _)| *n).collect();
    choices
        .iter()
        .find(|(n, _)| *n == value)
        .map(|(_, v)| *v)
        .ok_or_else(|| format!("{field} is one of {}, got `{value}`", names.join(", ")))
}

/// Sets one of the rights `field`s that are a choice of names; `None` when `field` is not one.
fn set_choice(l: &mut License, field: &str, value: &str) -> Option<Result<(), String>> {
    use AvatarPermission as A;
    use CommercialUsage as C;
    use Modification as M;
    Some(match field {
        "avatarPermission" => choose(
            field,
            value,
            &[
                ("onlyAuthor", A::OnlyAuthor),
                (
                    "onlySeparatelyLicensedPerson",
                    A::OnlySeparatelyLicensedPerson,
                ),
                ("everyone", A::Everyone),
            ],
        )
        .map(|v| l.avatar_permission = v),
        "commercialUsage" => choose(
            field,
            value,
            &[
                ("personalNonProfit", C::PersonalNonProfit),
                ("personalProfit", C::PersonalProfit),
                ("corporation", C::Corporation),
            ],
        )
        .map(|v| l.commercial_usage = v),
        "creditNotation" => choose(
            field,
            value,
            &[
                ("required", CreditNotation::Required),
                ("unnecessary", CreditNotation::Unnecessary),
            ],
        )
        .map(|v| l.credit_notation = v),
        "modification" => choose(
            field,
            value,
            &[
                ("prohibited", M::Prohibited),
                ("allowModification", M::AllowModification),
                (
                    "allowModificationRedistribution",
                    M::AllowModificationRedistribution,
                ),
            ],
        )
        .map(|v| l.modification = v),
        _ => return None,
    })
}

/// An expression preset as face units and visemes (their target file names) at weights.
#[derive(Debug, Clone, Copy)]
pub struct Recipe {
    /// VRM's preset name.
    pub preset: &'static str,
    /// `(face unit or viseme file name, weight)`.
    pub units: &'static [(&'static str, f64)],
    /// `overrideBlink` (emotions that close or widen the eyes block blinking over them).
    pub override_blink: Override,
}

/// The presets a `.vrm` writes and what each is made of. The emotions are face-unit
/// combinations after ARKit's own descriptions of the units (spec-notes/vrm.md explains each);
/// `neutral` has no binds (MakeHuman's rest face is neutral); the look expressions are written
/// as well when the look-at uses them.
pub const RECIPES: [Recipe; 18] = {
    const NONE: Override = Override::None;
    const BLOCK: Override = Override::Block;
    [
        Recipe {
            preset: "happy",
            units: &[
                ("mouthSmileLeft", 1.0),
                ("mouthSmileRight", 1.0),
                ("cheekSquintLeft", 0.6),
                ("cheekSquintRight", 0.6),
                ("eyeSquintLeft", 0.4),
                ("eyeSquintRight", 0.4),
            ],
            override_blink: BLOCK,
        },
        Recipe {
            preset: "angry",
            units: &[
                ("browDownLeft", 1.0),
                ("browDownRight", 1.0),
                ("eyeSquintLeft", 0.5),
                ("eyeSquintRight", 0.5),
                ("noseSneerLeft", 0.4),
                ("noseSneerRight", 0.4),
                ("mouthFrownLeft", 0.5),
                ("mouthFrownRight", 0.5),
                ("mouthPressLeft", 0.3),
                ("mouthPressRight", 0.3),
            ],
            override_blink: BLOCK,
        },
        Recipe {
            preset: "sad",
            units: &[
                ("browInnerUp", 1.0),
                ("mouthFrownLeft", 0.8),
                ("mouthFrownRight", 0.8),
                ("mouthShrugLower", 0.4),
                ("eyeSquintLeft", 0.2),
                ("eyeSquintRight", 0.2),
            ],
            override_blink: BLOCK,
        },
        Recipe {
            preset: "relaxed",
            units: &[
                ("mouthSmileLeft", 0.35),
                ("mouthSmileRight", 0.35),
                ("eyeBlinkLeft", 0.25),
                ("eyeBlinkRight", 0.25),
                ("browInnerUp", 0.15),
            ],
            override_blink: BLOCK,
        },
        Recipe {
            preset: "surprised",
            units: &[
                ("browInnerUp", 1.0),
                ("browOuterUpLeft", 1.0),
                ("browOuterUpRight", 1.0),
                ("eyeWideLeft", 1.0),
                ("eyeWideRight", 1.0),
                ("jawOpen", 0.5),
                ("mouthFunnel", 0.2),
            ],
            override_blink: BLOCK,
        },
        Recipe {
            preset: "aa",
            units: &[("viseme_aa", 1.0)],
            override_blink: NONE,
        },
        Recipe {
            preset: "ih",
            units: &[("viseme_I", 1.0)],
            override_blink: NONE,
        },
        Recipe {
            preset: "ou",
            units: &[("viseme_U", 1.0)],
            override_blink: NONE,
        },
        Recipe {
            preset: "ee",
            units: &[("viseme_E", 1.0)],
            override_blink: NONE,
        },
        Recipe {
            preset: "oh",
            units: &[("viseme_O", 1.0)],
            override_blink: NONE,
        },
        Recipe {
            preset: "blink",
            units: &[("eyeBlinkLeft", 1.0), ("eyeBlinkRight", 1.0)],
            override_blink: NONE,
        },
        Recipe {
            preset: "blinkLeft",
            units: &[("eyeBlinkLeft", 1.0)],
            override_blink: NONE,
        },
        Recipe {
            preset: "blinkRight",
            units: &[("eyeBlinkRight", 1.0)],
            override_blink: NONE,
        },
        // The avatar's own directions: left is +X, where three-vrm's positive yaw looks.
        Recipe {
            preset: "lookUp",
            units: &[("eyeLookUpLeft", 1.0), ("eyeLookUpRight", 1.0)],
            override_blink: NONE,
        },
        Recipe {
            preset: "lookDown",
            units: &[("eyeLookDownLeft", 1.0), ("eyeLookDownRight", 1.0)],
            override_blink: NONE,
        },
        Recipe {
            preset: "lookLeft",
            units: &[("eyeLookOutLeft", 1.0), ("eyeLookInRight", 1.0)],
            override_blink: NONE,
        },
        Recipe {
            preset: "lookRight",
            units: &[("eyeLookInLeft", 1.0), ("eyeLookOutRight", 1.0)],
            override_blink: NONE,
        },
        Recipe {
            preset: "neutral",
            units: &[],
            override_blink: NONE,
        },
    ]
};

/// Whether a preset drives the look-at (written only when the look-at is by expression).
fn is_look(preset: &str) -> bool {
    preset.starts_with("look")
}

/// The face units and visemes (target file names) the recipes use, each once, but for the
/// presets `replaced` (written from MakeHuman's expressions instead).
pub fn needed_units(replaced: &[&str]) -> Vec<&'static str> {
    let mut units: Vec<&'static str> = RECIPES
        .iter()
        .filter(|r| !replaced.contains(&r.preset))
        .flat_map(|r| r.units.iter().map(|(u, _)| *u))
        .collect();
    units.sort_unstable();
    units.dedup();
    units
}

/// The blend-shape name a face unit or viseme file gets (its G4MF name).
fn shape_name(unit: &str) -> Option<&'static str> {
    FACE_UNITS
        .iter()
        .chain(&VISEMES)
        .find(|(file, _)| *file == unit)
        .map(|(_, name)| *name)
}

/// The VRM description of `spec`.
#[derive(Debug, Clone)]
pub struct Described {
    /// What VRM adds.
    pub vrm: VrmSpec,
}

/// Decides what VRM adds to `spec`, whose bones carry G4MF's humanoid names; what fell back
/// or was left out is said, a note each. Refused (before anything is written) when the
/// humanoid map is not VRM's.
pub fn describe(
    spec: &CharacterSpec,
    options: &VrmOptions,
    thumbnail: Option<Arc<Vec<u8>>>,
    said: &mut Diagnostics,
) -> Result<Described, vrm_writer::HumanoidError> {
    let humanoid = vrm_writer::humanoid::of_bones(&spec.bones);
    vrm_writer::humanoid::check(&spec.bones, &humanoid)?;
    let mut look_at = look_at(spec, &humanoid, options.expressions, said);
    let by_expression = look_at
        .as_ref()
        .is_some_and(|l| l.kind == LookAtKind::Expression);
    let expressions = if options.expressions {
        expressions(spec, by_expression, &options.makehuman, said)
    } else {
        Vec::new()
    };
    options.makehuman.notes(&expressions, said);
    if by_expression && !expressions.iter().any(|e| is_look(&e.name)) {
        said.say(Code::VrmNoLookAt,
            "no VRM look-at: the rig has no eye bones that move the eyes and no mesh has the eye-look face units"
                .to_owned(),
        );
        look_at = None;
    }
    let vrm = VrmSpec {
        meta: meta(spec, options, thumbnail),
        humanoid,
        expressions,
        look_at,
        first_person: first_person(spec),
        spring_bones: spring_bones(spec, said),
    };
    Ok(Described { vrm })
}

/// Every mesh of `spec` with its reference, body first.
fn meshes(spec: &CharacterSpec) -> impl Iterator<Item = (MeshRef, &MeshSpec)> {
    spec.mesh.iter().map(|m| (MeshRef::Body, m)).chain(
        spec.attachments
            .iter()
            .enumerate()
            .map(|(i, a)| (MeshRef::Attachment(i), &a.mesh)),
    )
}

/// The presets of [`RECIPES`] bound to every mesh carrying their shapes (the body, and the
/// eyebrows and eyelashes that move with it), those `makehuman` replaces bound to its
/// expression's shape instead, then its custom expressions; an expression none of whose
/// shapes is present is left out with a note.
fn expressions(
    spec: &CharacterSpec,
    by_expression: bool,
    makehuman: &MakeHumanExpressions,
    said: &mut Diagnostics,
) -> Vec<Expression> {
    let mut written = Vec::new();
    let mut left_out: Vec<&str> = Vec::new();
    for recipe in &RECIPES {
        let from = makehuman.shape_of(recipe.preset);
        if from.is_none() && !by_expression && is_look(recipe.preset) {
            continue;
        }
        let binds: Vec<MorphBind> = match from {
            Some(from) => binds_of(spec, &from.shape, 1.0),
            None => recipe
                .units
                .iter()
                .filter_map(|(unit, weight)| Some((shape_name(unit)?, *weight)))
                .flat_map(|(shape, weight)| binds_of(spec, shape, weight))
                .collect(),
        };
        if binds.is_empty() && (from.is_some() || !recipe.units.is_empty()) {
            left_out.push(recipe.preset);
            continue;
        }
        written.push(Expression {
            is_binary: recipe.preset.starts_with("blink"),
            ..expression(
                recipe.preset,
                binds,
                recipe.override_blink == Override::Block,
            )
        });
    }
    for custom in makehuman.written.iter().filter(|w| !is_preset(&w.vrm_name)) {
        let binds = binds_of(spec, &custom.shape, 1.0);
        if binds.is_empty() {
            left_out.push(&custom.vrm_name);
            continue;
        }
        // MakeHuman's expressions are emotions: set as the emotion presets are.
        written.push(expression(&custom.vrm_name, binds, true));
    }
    if !left_out.is_empty() {
        said.say(
            Code::VrmExpressionsLeftOut,
            format!(
                "VRM expressions left out, no mesh has their shapes: {}",
                left_out.join(", ")
            ),
        );
    }
    written
}

/// The expression `name` (a preset when VRM has one of that name) setting `binds`, not binary.
/// An emotion blocks blinking (its eyes are part of it) and blends the look-at and the mouth
/// over itself (gaze and speech change the eyes and mouth it set).
fn expression(name: &str, binds: Vec<MorphBind>, emotion: bool) -> Expression {
    let (blink, over) = if emotion {
        (Override::Block, Override::Blend)
    } else {
        (Override::None, Override::None)
    };
    Expression {
        name: name.to_owned(),
        preset: is_preset(name),
        is_binary: false,
        binds,
        override_blink: blink,
        override_look_at: over,
        override_mouth: over,
    }
}

/// `shape` at `weight` on every mesh carrying it, body first.
fn binds_of(spec: &CharacterSpec, shape: &str, weight: f64) -> Vec<MorphBind> {
    meshes(spec)
        .filter(|(_, m)| m.blend_shapes.iter().any(|s| s.name == shape))
        .map(|(mesh, _)| MorphBind {
            mesh,
            shape: shape.to_owned(),
            weight,
        })
        .collect()
}

/// Whether any mesh's skin gives `bone` a weight.
fn moves_vertices(spec: &CharacterSpec, bone: usize) -> bool {
    spec.meshes().any(|(_, influences)| {
        influences.is_some_and(|i| {
            i.list()
                .iter()
                .any(|i| i.bone as usize == bone && i.weight > 0.0)
        })
    })
}

/// The look-at: by the eye bones where the rig has eye bones that move the eyes, else by the
/// eye-look expressions (when expressions are written), looking from between the eyes.
fn look_at(
    spec: &CharacterSpec,
    humanoid: &BTreeMap<String, usize>,
    expressions: bool,
    said: &mut Diagnostics,
) -> Option<LookAt> {
    let eye_bones = humanoid
        .get("leftEye")
        .zip(humanoid.get("rightEye"))
        .filter(|(l, r)| moves_vertices(spec, **l) && moves_vertices(spec, **r));
    let (kind, eyes) = match eye_bones {
        Some((&l, &r)) => (
            LookAtKind::Bone,
            (spec.bones[l].head + spec.bones[r].head) * 0.5,
        ),
        None if expressions => (LookAtKind::Expression, eyes_centre(spec, humanoid, said)),
        None => {
            said.say(Code::VrmNoLookAt,
                "no VRM look-at: the rig has no eye bones that move the eyes and --no-expressions leaves out the look expressions"
                    .to_owned(),
            );
            return None;
        }
    };
    // Bones turn the eyes by degrees (a human eye turns about 30 degrees aside, 20 down, 15
    // up); expressions are weights, full at 90 degrees of gaze.
    let map = |bone_degrees: f64| RangeMap {
        input_max_value: 90.0,
        output_scale: if kind == LookAtKind::Bone {
            bone_degrees
        } else {
            1.0
        },
    };
    Some(LookAt {
        kind,
        eyes,
        horizontal_inner: map(30.0),
        horizontal_outer: map(30.0),
        vertical_down: map(20.0),
        vertical_up: map(15.0),
    })
}

/// The point between the eyes: the centre of the eye surfaces (helper eyes) or of the eyes
/// asset, else the head bone's middle (with a note).
fn eyes_centre(
    spec: &CharacterSpec,
    humanoid: &BTreeMap<String, usize>,
    said: &mut Diagnostics,
) -> DVec3 {
    let mut sum = DVec3::ZERO;
    let mut count = 0usize;
    if let Some(body) = &spec.mesh {
        for surface in body.surfaces.specs() {
            if matches!(surface.name.as_deref(), Some("LeftEye" | "RightEye")) {
                for face in &surface.faces {
                    for &v in &face.vertices {
                        if let Some(p) = body.positions.get(v as usize) {
                            sum += *p;
                            count += 1;
                        }
                    }
                }
            }
        }
    }
    for a in spec
        .attachments
        .iter()
        .filter(|a| asset_kind(a.node_extras.as_ref()) == Some(AssetKind::Eyes))
    {
        sum += a.mesh.positions.iter().sum::<DVec3>();
        count += a.mesh.positions.len();
    }
    if count > 0 {
        return sum / count as f64;
    }
    let head = &spec.bones[humanoid["head"]];
    said.say(
        Code::VrmLookAtFromHead,
        "VRM look-at: no eyes found, it looks from the middle of the head bone".to_owned(),
    );
    head.head + head.basis.y_axis * head.length * 0.5
}

/// The MakeHuman asset kind an attachment's node extras name (`hair`, `eyebrows`, ...).
fn asset_kind(extras: Option<&character_spec::Extras>) -> Option<AssetKind> {
    AssetKind::from_name(extras?.value().pointer("/mpfb/asset/kind")?.as_str()?)
}

/// First-person annotations: the body `auto` (three-vrm and UniVRM hide the part the head
/// bones move), what sits on or in the head (hair, eyebrows, eyelashes, eyes, teeth, tongue)
/// third-person only, clothes seen in both views.
fn first_person(spec: &CharacterSpec) -> Vec<(MeshRef, FirstPersonKind)> {
    let mut out: Vec<(MeshRef, FirstPersonKind)> = Vec::new();
    if spec.mesh.is_some() {
        out.push((MeshRef::Body, FirstPersonKind::Auto));
    }
    for (i, a) in spec.attachments.iter().enumerate() {
        let kind = match asset_kind(a.node_extras.as_ref()) {
            Some(
                AssetKind::Hair
                | AssetKind::Eyebrows
                | AssetKind::Eyelashes
                | AssetKind::Eyes
                | AssetKind::Teeth
                | AssetKind::Tongue,
            ) => FirstPersonKind::ThirdPersonOnly,
            Some(AssetKind::Clothes) => FirstPersonKind::Both,
            Some(AssetKind::Proxy) | None => FirstPersonKind::Auto,
        };
        out.push((MeshRef::Attachment(i), kind));
    }
    out
}

/// `meta`: the character's name, the authors and rights asked for, MakeHuman's CC0 licence
/// for what the character is made of, the thumbnail.
fn meta(spec: &CharacterSpec, options: &VrmOptions, thumbnail: Option<Arc<Vec<u8>>>) -> Meta {
    let assets: Vec<String> = spec
        .attachments
        .iter()
        .filter_map(|a| {
            a.node_extras
                .as_ref()?
                .value()
                .pointer("/mpfb/asset/name")?
                .as_str()
                .map(str::to_owned)
        })
        .collect();
    let worn = if assets.is_empty() {
        String::new()
    } else {
        format!(" and the assets {}", assets.join(", "))
    };
    Meta {
        name: spec.name.clone(),
        version: options.version.clone(),
        authors: options.authors.clone(),
        copyright_information: options.copyright.clone(),
        contact_information: options.contact.clone(),
        references: vec![
            "https://github.com/makehumancommunity/mpfb2".to_owned(),
            "https://github.com/makehumancommunity/makehuman-assets".to_owned(),
        ],
        third_party_licenses: Some(format!(
            "Made from MakeHuman's base mesh, targets, rigs and weights (MPFB){worn}, by the MakeHuman community under CC0 1.0 Universal ({CC0_URL})."
        )),
        thumbnail_png: thumbnail,
        license: options.license.clone(),
    }
}

/// How a hair strand swings: pulled back firmly, a little gravity, damped.
const HAIR_JOINT: (f64, f64, f64, f64) = (
    0.02, // hit radius, metres
    0.8,  // stiffness
    0.15, // gravity power
    0.4,  // drag force
);

/// Spring bones: every chain of bones an asset's sub-rig added (the ponytail's), parent first,
/// one spring per branch, colliding with the head, neck and chest colliders.
fn spring_bones(spec: &CharacterSpec, said: &mut Diagnostics) -> SpringBones {
    let owner = subrig_bones(spec);
    if owner.is_empty() {
        return SpringBones::default();
    }
    let (mut colliders, collider_groups) = colliders(spec, said);
    let groups: Vec<usize> = (0..collider_groups.len()).collect();
    let (hit_radius, stiffness, gravity_power, drag_force) = HAIR_JOINT;
    let chains = chains(spec, &owner);
    clear_of_joints(&mut colliders, spec, &chains, hit_radius);
    let springs = chains
        .into_iter()
        .map(|chain| Spring {
            name: format!("{}_{}", owner[&chain[0]], spec.bones[chain[0]].name),
            joints: chain
                .into_iter()
                .map(|bone| SpringJoint {
                    bone,
                    hit_radius,
                    stiffness,
                    gravity_power,
                    gravity_dir: DVec3::NEG_Y,
                    drag_force,
                })
                .collect(),
            collider_groups: groups.clone(),
        })
        .collect();
    SpringBones {
        colliders,
        collider_groups,
        springs,
    }
}

/// Shrinks each collider so no spring joint (its head, and the last joint's tail) starts
/// inside it by its hit radius: a joint inside a collider is pushed out at the first update,
/// and the hair would spring away from its rest with the model standing still.
fn clear_of_joints(
    colliders: &mut [Collider],
    spec: &CharacterSpec,
    chains: &[Vec<usize>],
    hit_radius: f64,
) {
    // A centimetre of clearance besides the hit radius; never below a centimetre of radius.
    const CLEARANCE: f64 = 0.01;
    let points: Vec<DVec3> = chains
        .iter()
        .flat_map(|chain| {
            let last = &spec.bones[chain[chain.len() - 1]];
            chain
                .iter()
                .map(|&b| spec.bones[b].head)
                .chain(std::iter::once(last.head + last.basis.y_axis * last.length))
        })
        .collect();
    for collider in colliders {
        let (a, z, radius) = match &mut collider.shape {
            ColliderShape::Sphere { center, radius } => (*center, *center, radius),
            ColliderShape::Capsule {
                center,
                tail,
                radius,
            } => (*center, *tail, radius),
        };
        for p in &points {
            let room = distance_to_segment(*p, a, z) - hit_radius - CLEARANCE;
            *radius = radius.min(room).max(CLEARANCE);
        }
    }
}

/// The bones worn assets' sub-rigs added (`extras.mpfb.asset.subrig_bones` of their nodes, by
/// MPFB name), each with the asset's name.
fn subrig_bones(spec: &CharacterSpec) -> BTreeMap<usize, String> {
    let mut owner = BTreeMap::new();
    for a in &spec.attachments {
        let Some(names) = a
            .node_extras
            .as_ref()
            .and_then(|e| e.value().pointer("/mpfb/asset/subrig_bones").cloned())
            .and_then(|v| v.as_array().cloned())
        else {
            continue;
        };
        for (i, bone) in spec.bones.iter().enumerate() {
            let mpfb = bone
                .extras
                .as_ref()
                .and_then(|e| e.value().pointer("/mpfb/name")?.as_str().map(str::to_owned))
                .unwrap_or_else(|| bone.name.clone());
            if names.iter().any(|n| n.as_str() == Some(mpfb.as_str())) {
                owner.insert(i, a.name.clone());
            }
        }
    }
    owner
}

/// Chains of the bones in `added`, parent first. A sub-rig's root bone (one whose parent is
/// not in `added`) is its anchor, which MPFB holds to a bone of the main rig (the ponytail's
/// follows the head): it does not swing, so chains start at its children; where a chain
/// branches, its further children start chains of their own.
fn chains<T>(spec: &CharacterSpec, added: &BTreeMap<usize, T>) -> Vec<Vec<usize>> {
    let mut children = vec![Vec::new(); spec.bones.len()];
    for (i, b) in spec.bones.iter().enumerate() {
        if let Some(p) = b.parent.filter(|&p| p < spec.bones.len()) {
            children[p].push(i);
        }
    }
    let mut starts: Vec<usize> = added
        .keys()
        .copied()
        .filter(|&i| !spec.bones[i].parent.is_some_and(|p| added.contains_key(&p)))
        .flat_map(|anchor| children[anchor].clone())
        .filter(|c| added.contains_key(c))
        .collect();
    let mut out = Vec::new();
    let mut next = 0;
    while next < starts.len() {
        let mut at = starts[next];
        next += 1;
        let mut chain = vec![at];
        while let Some((&first, rest)) = children[at]
            .iter()
            .copied()
            .filter(|c| added.contains_key(c))
            .collect::<Vec<_>>()
            .split_first()
        {
            starts.extend_from_slice(rest);
            chain.push(first);
            at = first;
        }
        out.push(chain);
    }
    out
}

/// Colliders on the head (a sphere), neck and chest (capsules along the bones), each sized to
/// the body: the radius is the distance from the bone to the nearest quarter of the body
/// vertices the bone moves most, so the collider stays inside the skin.
fn colliders(spec: &CharacterSpec, said: &mut Diagnostics) -> (Vec<Collider>, Vec<ColliderGroup>) {
    let by_name = |name: &str| spec.bones.iter().position(|b| b.name == name);
    let mut colliders = Vec::new();
    for (name, sphere) in [("Head", true), ("Neck", false), ("Chest", false)] {
        let Some(bone) = by_name(name) else {
            said.say(
                Code::VrmColliderLeftOut,
                format!("no {name} bone: its spring-bone collider is left out"),
            );
            continue;
        };
        let b = &spec.bones[bone];
        let tail = b.head + b.basis.y_axis * b.length;
        let (a, z) = if sphere {
            let centre = (b.head + tail) * 0.5;
            (centre, centre)
        } else {
            (b.head, tail)
        };
        let Some(radius) = body_radius(spec, bone, a, z) else {
            said.say(
                Code::VrmColliderLeftOut,
                format!(
                    "no body vertex follows the {name} bone: its spring-bone collider is left out"
                ),
            );
            continue;
        };
        let shape = if sphere {
            ColliderShape::Sphere { center: a, radius }
        } else {
            ColliderShape::Capsule {
                center: a,
                tail: z,
                radius,
            }
        };
        colliders.push(Collider { bone, shape });
    }
    let groups = if colliders.is_empty() {
        Vec::new()
    } else {
        vec![ColliderGroup {
            name: "Body".to_owned(),
            colliders: (0..colliders.len()).collect(),
        }]
    };
    (colliders, groups)
}

/// The 25th percentile of the distances from the segment `a`..`z` to the body vertices whose
/// strongest influence is `bone`.
fn body_radius(spec: &CharacterSpec, bone: usize, a: DVec3, z: DVec3) -> Option<f64> {
    let body = spec.mesh.as_ref()?;
    let influences = spec.influences.as_ref()?;
    let mut strongest: Vec<(u32, f64)> = vec![(u32::MAX, 0.0); body.positions.len()];
    for i in influences.list() {
        if let Some(s) = strongest.get_mut(i.vertex as usize) {
            if i.weight > s.1 {
                *s = (i.bone, i.weight);
            }
        }
    }
    let mut distances: Vec<f64> = strongest
        .iter()
        .zip(&body.positions)
        .filter(|((b, _), _)| *b as usize == bone)
        .map(|(_, p)| distance_to_segment(*p, a, z))
        .filter(|d| d.is_finite())
        .collect();
    if distances.is_empty() {
        return None;
    }
    distances.sort_unstable_by(f64::total_cmp);
    Some(distances[distances.len() / 4])
}

/// The distance from `p` to the segment `a`..`z` (to `a` when they are one point).
fn distance_to_segment(p: DVec3, a: DVec3, z: DVec3) -> f64 {
    let axis = z - a;
    let t = if axis.length_squared() > 0.0 {
        ((p - a).dot(axis) / axis.length_squared()).clamp(0.0, 1.0)
    } else {
        0.0
    };
    p.distance(a + axis * t)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_recipe_unit_is_a_face_unit_or_viseme_and_weights_are_in_range() {
        for recipe in RECIPES {
            for (unit, weight) in recipe.units {
                assert!(shape_name(unit).is_some(), "{}: {unit}", recipe.preset);
                assert!((0.0..=1.0).contains(weight), "{}: {unit}", recipe.preset);
            }
        }
        let units = needed_units(&[]);
        assert!(units.contains(&"viseme_aa") && units.contains(&"eyeBlinkLeft"));
        assert_eq!(shape_name("viseme_U"), Some("VisemeOU"));
        assert_eq!(shape_name("eyeBlinkLeft"), Some("FaceEyeClosedLeft"));
    }

    #[test]
    fn meta_fields_are_set_by_vrm_names_and_bad_ones_refused() {
        let mut options = VrmOptions::default();
        set_meta_field(&mut options, "avatarPermission=everyone").expect("valid");
        set_meta_field(&mut options, "allowRedistribution=true").expect("valid");
        set_meta_field(&mut options, "version=2").expect("valid");
        assert_eq!(
            options.license.avatar_permission,
            AvatarPermission::Everyone
        );
        assert!(options.license.allow_redistribution);
        assert_eq!(options.version.as_deref(), Some("2"));
        let bad = |t: &str| set_meta_field(&mut VrmOptions::default(), t).unwrap_err();
        assert!(bad("avatarPermission=all").contains("onlyAuthor"));
        assert!(bad("allowRedistribution=yes").contains("true or false"));
        assert!(bad("licence=cc0").contains("unknown field"));
        assert!(bad("everyone").contains("FIELD=VALUE"));
        assert_eq!(
            LicensePreset::Cc0.license().other_license_url.as_deref(),
            Some(CC0_URL)
        );
        assert_eq!(LicensePreset::Conservative.license(), License::default());
    }
}
