//! What a conversion says besides its result: [`Diagnostic`]s (warnings and notes), each with
//! a stable [`Code`] from the one table below (its severity, its topic `kind`, what it means
//! and the flag that silences or changes it), a location where one is known, and the message;
//! and [`Diagnostics`], the sink every stage says them into, which `--deny` turns into errors.

use location::Location;
use serde::{Serialize, Serializer};

/// How much a diagnostic asks of the user.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Severity {
    /// What the conversion did that a user should know but need not act on.
    Note,
    /// Worth a look: something was guessed, fell back, was left out or changed.
    Warning,
}

impl Severity {
    /// `note` or `warning`.
    pub const fn name(self) -> &'static str {
        match self {
            Severity::Note => "note",
            Severity::Warning => "warning",
        }
    }
}

/// What a diagnostic is about: the stage or input (the `kind` of `--json` before codes, kept
/// so its readers keep working).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    /// Fitting the rig to the body, and posing it.
    Fit,
    /// The `.mhm` or preset: what it names that is not converted.
    Description,
    /// The weights and the skin.
    Skin,
    /// The humanoid renaming.
    Humanoid,
    /// Helper geometry left out or kept.
    Helpers,
    /// Blend shapes and expressions.
    Shapes,
    /// The body's size (a probably wrong mesh scale).
    Scale,
    /// Worn MakeHuman assets.
    Assets,
    /// Textures (missing images, colour profiles, painted irises).
    Textures,
    /// What `--validate`'s validator found in the written file.
    Validate,
    /// What a `.vrm` or a glTF file added or left out.
    Engine,
}

impl Kind {
    /// The kind as `--json` writes it.
    pub const fn name(self) -> &'static str {
        match self {
            Kind::Fit => "fit",
            Kind::Description => "description",
            Kind::Skin => "skin",
            Kind::Humanoid => "humanoid",
            Kind::Helpers => "helpers",
            Kind::Shapes => "shapes",
            Kind::Scale => "scale",
            Kind::Assets => "assets",
            Kind::Textures => "textures",
            Kind::Validate => "validate",
            Kind::Engine => "engine",
        }
    }
}

/// Declares [`Code`] and its table once: each row is the variant, the code as reports write
/// it, its severity, its kind, what it means, the flag that silences or changes it ("" when
/// none does), and an example: a message the tool printed for it (shortened only with `...`;
/// "" for a code no input makes the tool say yet).
macro_rules! codes {
    ($($variant:ident = $name:literal, $severity:ident, $kind:ident, $meaning:literal, $flag:literal, $example:literal;)*) => {
        /// A diagnostic's stable code: spec-notes/diagnostics.md lists every one with an example.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
        #[non_exhaustive]
        #[allow(missing_docs)] // Each variant's meaning is `Code::meaning`.
        pub enum Code {
            $($variant,)*
        }

        impl Code {
            /// Every code, in the table's order.
            pub const ALL: [Code; [$(Code::$variant),*].len()] = [$(Code::$variant),*];

            /// The code as written in summaries and reports, e.g. `SKIN_UNWEIGHTED_VERTICES`.
            pub const fn name(self) -> &'static str {
                match self {
                    $(Code::$variant => $name,)*
                }
            }

            /// The severity every diagnostic of this code has.
            pub const fn severity(self) -> Severity {
                match self {
                    $(Code::$variant => Severity::$severity,)*
                }
            }

            /// What it is about.
            pub const fn kind(self) -> Kind {
                match self {
                    $(Code::$variant => Kind::$kind,)*
                }
            }

            /// What it means, in one line.
            pub const fn meaning(self) -> &'static str {
                match self {
                    $(Code::$variant => $meaning,)*
                }
            }

            /// The flag that silences or changes it, "" when none does.
            pub const fn flag(self) -> &'static str {
                match self {
                    $(Code::$variant => $flag,)*
                }
            }

            /// A message the tool printed under this code, "" when no input makes it say one.
            pub const fn example(self) -> &'static str {
                match self {
                    $(Code::$variant => $example,)*
                }
            }
        }
    };
}

// One row per code, grouped by stage in pipeline order.
codes! {
    FitRollKept = "FIT_ROLL_KEPT", Warning, Fit,
        "a bone lies along its roll strategy's reference axis: its stored roll is kept", "",
        "bone `root` is parallel to the reference axis of ALIGN_Z_WORLD_Z; kept its stored roll";
    FitFallback = "FIT_FALLBACK", Warning, Fit,
        "a bone end's strategy failed: the end is at its default position", "--allow-fallback (without it, an error)",
        "bone end root head (vertex 5 is beyond the mesh's 4 vertices) at its default position (--allow-fallback)";
    WeightAboveOne = "SKIN_WEIGHT_ABOVE_ONE", Warning, Skin,
        "a weight above 1 in the weights file (MPFB allows it; engines may clamp)", "--normalize",
        "group `nobone` gives vertex 20 a weight of 1.5, above 1";
    GroupUnknownBone = "SKIN_GROUP_UNKNOWN_BONE", Warning, Skin,
        "a weight group names no bone of the rig", "--bone-map FILE",
        "group `nobone` is not a bone of the rig; its weights are dropped";
    GroupDropped = "SKIN_GROUP_DROPPED", Warning, Skin,
        "a weight group was left out of the skin (its weights are lost)", "--bone-map FILE",
        "group `nobone` dropped (NotInRig): 1 vertices, total weight 1.5000";
    SkinNoWeights = "SKIN_NO_WEIGHTS", Warning, Skin,
        "no weights file: the mesh is unskinned and no bone moves it", "--weights FILE",
        "no weights for rig.default.json: the mesh is unskinned and no bone moves it (give --weights)";
    HelperVerticesBound = "SKIN_HELPER_BOUND", Warning, Skin,
        "helper vertices no weight moved were bound to the nearest fitting bone", "--helpers none",
        "64 vertices of helper-l-eye were moved by no weight: bound to bone `eye.L`";
    UnweightedVertices = "SKIN_UNWEIGHTED_VERTICES", Warning, Skin,
        "kept vertices are moved by no bone (a glTF gives them to the root bone)", "",
        "10 kept vertices are moved by no bone";
    InfluencesDropped = "SKIN_INFLUENCES_DROPPED", Note, Skin,
        "the glTF writer kept the strongest influences a vertex may have", "--max-influences N",
        "5001 influences dropped beyond 4 a vertex (the strongest kept, renormalised; --max-influences keeps more)";
    BodyScale = "BODY_SCALE_SUSPECT", Warning, Scale,
        "the body's height is far from a human's: the mesh scale is probably wrong", "--mesh-scale",
        "the body is 0.100 m tall with mesh scale 0.1; is the scale right? (scale 1 would make it 1.00 m) ...";
    DescriptionPoseLeftOut = "DESCRIPTION_POSE_LEFT_OUT", Warning, Description,
        "a description's pose line is not converted into a .vrm (its rest is VRM's T-pose)", "--pose none",
        "not converted from sit.mhm: pose poses/sit01.bvh (a .vrm's rest is VRM's T-pose; write a .glb for its pose as a clip, or give --pose none)";
    DescriptionNotConverted = "DESCRIPTION_NOT_CONVERTED", Warning, Description,
        "lines of a description that are not converted", "",
        "not converted from sit.mhm: foo";
    AssetsNotFound = "ASSETS_NOT_FOUND", Warning, Description,
        "a description names assets but no MakeHuman assets folder was found", "--assets DIR",
        "not converted (no MakeHuman assets folder: give --assets DIR, set $MAKEHUMAN_ASSETS or run `mpfb2g4mf data fetch --makehuman-assets`): clothes shoes01";
    ExpressionBaked = "EXPRESSION_BAKED", Note, Shapes,
        "a MakeHuman expression was baked into the rest", "--expression none",
        "expression smile01 baked into the rest";
    ExpressionUnitsSkipped = "EXPRESSION_UNITS_SKIPPED", Warning, Shapes,
        "an expression names pose units MakeHuman's set lacks: they are skipped", "",
        "expression smile01: NoSuchUnit not among the pose units, skipped";
    MpfbExpressionBaked = "MPFB_EXPRESSION_BAKED", Note, Shapes,
        "an MPFB expression (face units) was baked into the rest", "",
        "MPFB expression wink (2 face units) baked into the rest";
    MpfbExpressionUnitsSkipped = "MPFB_EXPRESSION_UNITS_SKIPPED", Warning, Shapes,
        "an MPFB expression names face units MPFB lacks: they are skipped", "",
        "MPFB expression wink: noSuchUnit not among MPFB's face units, skipped";
    ShapeLeftOut = "SHAPE_LEFT_OUT", Warning, Shapes,
        "a blend shape moves no kept vertex and is left out", "--helpers",
        "blend shape tongue moves no kept vertex: left out";
    AssetCustomWeightsUnused = "ASSET_CUSTOM_WEIGHTS_UNUSED", Warning, Assets,
        "no group of an asset's custom weights names a bone: weights inherited from the body", "",
        "bad.mhw: none of the custom weights' groups names a bone of this rig; weights inherited from the body instead";
    AssetCustomGroupsLeftOut = "ASSET_CUSTOM_GROUPS_LEFT_OUT", Warning, Assets,
        "groups of an asset's custom weights name no bone and are left out", "",
        "shoes02.mhw: 2 custom weight groups name no bone of this rig and were left out";
    AssetVerticesToRoot = "ASSET_VERTICES_TO_ROOT", Warning, Assets,
        "an asset's vertices no bone weights were given to the root bone (MakeHuman's rule)", "",
        "bad.mhclo: 2 vertices no bone weights were given to the root bone `root` (MakeHuman's rule)";
    SubrigFallback = "ASSET_SUBRIG_FALLBACK", Warning, Assets,
        "an asset's sub-rig bone ends are at their default position", "--allow-fallback (without it, an error)",
        "ponytail01.mpfbskel: 1 sub-rig bone ends at their default position (--allow-fallback): ponytail3 head (vertex 99999 is beyond the mesh's 3718 vertices)";
    AssetUnweighted = "ASSET_UNWEIGHTED_VERTICES", Warning, Assets,
        "an asset's vertices are moved by no bone", "",
        "3 vertices of bad are moved by no bone";
    HumanoidProfile = "HUMANOID_PROFILE", Warning, Humanoid,
        "the humanoid profile's advice on the renamed skeleton", "",
        "humanoid: HUMANOID_HIPS_PLACEMENT: `Hips` should be the skeleton's first child, not a child of `Root`";
    HumanoidNotPlaced = "HUMANOID_NOT_PLACED", Note, Humanoid,
        "humanoid names matched on the rig left some of the profile's bones unplaced", "--humanoid-map FILE",
        "humanoid names matched on rig.mine_game_engine.json (52 bones); not placed: Jaw, LeftEye, RightEye, LeftIndexMetacarpal, ...";
    RestPoseBaked = "REST_POSE_BAKED", Note, Fit,
        "a rest pose was baked into the rest", "--rest-pose",
        "rest pose baked from a computed VRM T-pose (straight limbs and fingers, palms down, thumbs at 45 degrees, feet forward; ...)";
    RestPoseLimbBent = "REST_POSE_LIMB_BENT", Warning, Fit,
        "a computed T-pose did not find a limb: it is left as it rests", "--humanoid-map FILE",
        "rest pose: rig `default`: the left leg (LeftUpperLeg down to LeftLowerLeg) not found by table noleg.json: left as it rests, not straightened";
    PoseBaked = "POSE_BAKED", Note, Fit,
        "a BVH pose was baked into the rest", "--pose none",
        "pose sit01 (frame 1 of sit01.bvh) bone by bone; root moved 0.811 m (its channels times 1.0000, the body's leg over the file's) baked into the rest";
    ClipMade = "CLIP_MADE", Note, Fit,
        "an animation clip was made from a BVH file", "--animation",
        "clip stroll: 14 frames of walk1.bvh, by humanoid names (table humanoid/mixamo.json of the rig, names matched on the file's skeleton); root in place; ...";
    PoseAxesGuessed = "POSE_AXES_GUESSED", Warning, Fit,
        "a BVH file has none of MakeHuman's axis joints: read as Z-up", "",
        "pose turn: none of MakeHuman's axis joints (upperleg02.L, spine01, ...) is in turn.bvh: read as Z-up, as MakeHuman's poses are";
    PoseRootInPlace = "POSE_ROOT_IN_PLACE", Warning, Fit,
        "a pose's root move cannot be scaled as MakeHuman scales it: the root stays in place", "",
        "pose stroll: the root stays in place: it has no `upperleg02.L` to scale the root's move by";
    VrmaBonesLeftOut = "VRMA_BONES_LEFT_OUT", Warning, Fit,
        "a .vrma leaves out bones its clip turns (VRM animates human bones only)", "",
        "clip `walk1` turns 9 bones that are not VRM human bones, which its .vrma leaves out (a player keeps them at rest under their parents): lowerarm02.L, lowerarm02.R, ...";
    VrmaWritten = "VRMA_WRITTEN", Note, Engine,
        "a clip was written as a .vrma beside the .vrm", "",
        "clip `walk1` written beside the .vrm as a.walk1.vrma (VRMC_vrm_animation: 51 human bones, 14 keys); the 112 other bones are not in it ...";
    HelpersNoBodyGroup = "HELPERS_NO_BODY_GROUP", Warning, Helpers,
        "the mesh has no body group to tell helpers from the body: every face is exported", "",
        "plain.obj: no `body` group; exporting every face";
    HelperIrisFromName = "HELPER_IRIS_FROM_NAME", Warning, Textures,
        "the helper eyes' iris colour is guessed from --eye-material's name", "",
        "helper eyes: iris painted `blue` (sRGB 0.24 0.44 0.74), the colour the name of blue.mhmat gives (its image is not drawn on helper eyes)";
    HelperIrisUnknown = "HELPER_IRIS_UNKNOWN", Warning, Textures,
        "--eye-material names no known iris colour: the default brown is painted", "",
        "helper eyes: violet.mhmat names no iris colour we know (brown, brownlight, blue, ...): iris painted `brown` (sRGB 0.36 0.17 0.08)";
    HelperIrisNotDrawn = "HELPER_IRIS_NOT_DRAWN", Warning, Textures,
        "--eye-material's colour is not drawn (no helper eyes, materials or images)", "",
        "helper eyes: `--helpers none` keeps no eyes: blue.mhmat's colour is not drawn";
    TexturesMissing = "TEXTURES_MISSING", Warning, Textures,
        "images a material names are missing: placeholder colours stand in", "--textures",
        "9 images are missing (placeholder colours stand in): eyebrow011.png, eyelashes02.png, shoes02_diffuse.png, teeth.png, tongue01_diffuse.png and 4 more";
    TexturesUnusable = "TEXTURES_UNUSABLE", Warning, Textures,
        "images are there but cannot be used: placeholder colours stand in", "--textures",
        "an image is there but cannot be used (placeholder colours stand in): .../clothes/bad/cut.png (cannot be decoded: unexpected end of file)";
    TexturesColourProfile = "TEXTURES_COLOUR_PROFILE", Warning, Textures,
        "images embed a colour profile, which G4MF advises against (kept)", "--textures",
        "1 image(s) embed a colour profile, which G4MF advises against (kept as they are): n.png";
    TangentsMirrored = "GLTF_TANGENTS_MIRRORED", Note, Engine,
        "vertices with mirrored texture coordinates keep their first face's tangent handedness", "",
        "2 vertices have mirrored texture coordinates on their faces: their tangents keep the first face's handedness";
    VrmPresets = "VRM_PRESETS", Note, Engine,
        "where a .vrm's expression presets came from", "--no-expressions",
        "VRM presets from MakeHuman's expressions: happy smile04, angry anger01, sad sad02, surprised surprise01";
    VrmExpressionWritten = "VRM_EXPRESSION_WRITTEN", Note, Engine,
        "an expression asked is written as a VRM expression, not baked (a .vrm's rest face stays neutral)", "",
        "expression smile01 written as the VRM custom expression smile01, not baked: a .vrm's rest face stays neutral";
    VrmExpressionNotWritten = "VRM_EXPRESSION_NOT_WRITTEN", Note, Engine,
        "a description's expression is not written into a .vrm without expressions", "--no-expressions",
        "expression smile01 of the description not written: --no-expressions";
    VrmExpressionsLeftOut = "VRM_EXPRESSIONS_LEFT_OUT", Warning, Engine,
        "VRM expressions no mesh has the shapes of are left out", "",
        "VRM expressions left out, no mesh has their shapes: tongue";
    VrmNoLookAt = "VRM_NO_LOOK_AT", Note, Engine,
        "a .vrm has no look-at: no eye bones and no look expressions", "",
        "no VRM look-at: the rig has no eye bones that move the eyes and --no-expressions leaves out the look expressions";
    VrmLookAtFromHead = "VRM_LOOK_AT_FROM_HEAD", Note, Engine,
        "no eyes were found: the .vrm looks from the middle of the head bone", "",
        "VRM look-at: no eyes found, it looks from the middle of the head bone";
    VrmColliderLeftOut = "VRM_COLLIDER_LEFT_OUT", Note, Engine,
        "a spring-bone collider is left out (no bone or no body vertex for it)", "",
        "no Chest bone: its spring-bone collider is left out";
    G4mfReadNote = "G4MF_READ_NOTE", Note, Engine,
        "to-gltf: what reading the G4MF file noticed (a value it read differently or left out)", "",
        "/nodes/165: the body's node and mesh extras are left out (a character spec has no place for them)";
    ImageLeftOut = "IMAGE_LEFT_OUT", Warning, Textures,
        "to-gltf: an embedded image cannot be used and is left out (its placeholder colour stands in)", "",
        "the image of aTexture cannot be used (cannot be decoded: Corrupt deflate stream. BadZlibHeader): left out, its placeholder colour stands in";
    ImageUriOutside = "IMAGE_URI_OUTSIDE", Note, Textures,
        "to-gltf: an image's relative URI reaches outside the glTF file's folder", "",
        "image `../d1/88de7fff6d1b44d2208a848853f5021f.png` of aTexture is outside the glTF file's folder (kept as a relative URI)";
    ImageUriKept = "IMAGE_URI_KEPT", Note, Textures,
        "to-gltf: an image's URI is no relative path and is kept as it is", "",
        "image `https://example.com/a.png` of Texture0 is not a relative path (kept as it is)";
    UnweightedToRoot = "UNWEIGHTED_TO_ROOT", Note, Skin,
        "to-gltf: vertices no bone moves were given to the root bone (glTF's weights sum to one)", "",
        "10 vertices no bone moves were given to the root bone with weight 1 (glTF's weights sum to one)";
    ValidatorWarning = "VALIDATOR_WARNING", Warning, Validate,
        "the validator warned of the written file (its own code is in the message)", "--validate",
        "validator: SKIN_WEIGHT_SUM: 6548 vertices have weight sums far from 1 (from 0.2000 to 1.4981)";
    ValidatorInfo = "VALIDATOR_INFO", Note, Validate,
        "the validator's information on the written file", "--validate",
        "";
}

impl Code {
    /// The code named `name` (as reports write it).
    pub fn named(name: &str) -> Option<Code> {
        Code::ALL.into_iter().find(|c| c.name() == name)
    }
}

/// The code table as Markdown, one row per code: what `spec-notes/diagnostics.md` holds
/// (a test checks the two are equal).
pub fn codes_markdown() -> String {
    let mut out = String::from(
        "| code | severity | kind | meaning | flag | example |\n| --- | --- | --- | --- | --- | --- |\n",
    );
    for code in Code::ALL {
        out.push_str(&format!(
            "| `{}` | {} | {} | {} | {} | {} |\n",
            code.name(),
            code.severity().name(),
            code.kind().name(),
            code.meaning(),
            match code.flag() {
                "" => String::new(),
                flag => format!("`{flag}`"),
            },
            match code.example() {
                "" => "*none yet*".to_owned(),
                example => example.replace('|', "\\|"),
            }
        ));
    }
    out
}

/// One row of the table, as `mpfb2g4mf codes --json` prints it.
#[derive(Debug, Clone, Serialize)]
pub struct CodeRow {
    /// The code.
    pub code: Code,
    /// Its severity.
    pub severity: Severity,
    /// Its kind.
    pub kind: Kind,
    /// What it means.
    pub meaning: &'static str,
    /// The flag that silences or changes it, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub flag: Option<&'static str>,
    /// A message the tool printed under it, if it has said one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub example: Option<&'static str>,
}

/// Every row of the table.
pub fn code_rows() -> Vec<CodeRow> {
    Code::ALL
        .into_iter()
        .map(|code| CodeRow {
            code,
            severity: code.severity(),
            kind: code.kind(),
            meaning: code.meaning(),
            flag: Some(code.flag()).filter(|f| !f.is_empty()),
            example: Some(code.example()).filter(|e| !e.is_empty()),
        })
        .collect()
}

impl std::fmt::Display for Code {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl Serialize for Code {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.name())
    }
}

/// One thing a conversion said: `{code, kind, severity, location, message}` in `--json` and
/// batch reports.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Diagnostic {
    /// Its code.
    pub code: Code,
    /// What it is about (the code's kind).
    pub kind: Kind,
    /// Note or warning (the code's severity).
    pub severity: Severity,
    /// Where, when an input file and a place in it are known.
    #[serde(serialize_with = "serialize_location")]
    pub location: Option<Location>,
    /// The text (it names the file, bone or group).
    pub message: String,
}

impl Diagnostic {
    /// A diagnostic of `code` saying `message`, with no location.
    pub fn new(code: Code, message: impl Into<String>) -> Self {
        Self {
            code,
            kind: code.kind(),
            severity: code.severity(),
            location: None,
            message: message.into(),
        }
    }

    /// The same, at `location`.
    pub fn at(mut self, location: Location) -> Self {
        self.location = Some(location);
        self
    }

    /// The same, at `location` when one is known.
    pub fn at_maybe(mut self, location: Option<Location>) -> Self {
        self.location = location;
        self
    }
}

impl std::fmt::Display for Diagnostic {
    /// `CODE: message`, with `(at LOCATION)` when a place inside a file is known (a whole
    /// file is left to `--json`: the messages name their files).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.code, self.message)?;
        if let Some(location) = self
            .location
            .as_ref()
            .filter(|l| l.pointer.is_some() || l.line_column.is_some() || l.byte.is_some())
        {
            write!(f, " (at {location})")?;
        }
        Ok(())
    }
}

/// A location as `{file, line, column, pointer, byte}`, each only when known.
fn serialize_location<S: Serializer>(
    location: &Option<Location>,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    #[derive(Serialize)]
    struct Place<'a> {
        #[serde(skip_serializing_if = "Option::is_none")]
        file: Option<&'a std::path::Path>,
        #[serde(skip_serializing_if = "Option::is_none")]
        line: Option<usize>,
        #[serde(skip_serializing_if = "Option::is_none")]
        column: Option<usize>,
        #[serde(skip_serializing_if = "Option::is_none")]
        pointer: Option<&'a str>,
        #[serde(skip_serializing_if = "Option::is_none")]
        byte: Option<u64>,
    }
    match location {
        None => serializer.serialize_none(),
        Some(l) => serializer.serialize_some(&Place {
            file: l.file.as_deref(),
            line: l.line_column.map(|(line, _)| line),
            column: l.line_column.map(|(_, column)| column),
            pointer: l.pointer.as_deref(),
            byte: l.byte,
        }),
    }
}

/// Which warnings stop a job (`--deny CODE|warnings`): a denied diagnostic is an error, and
/// the job writes nothing.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Deny {
    /// Every warning (`--deny warnings`).
    pub warnings: bool,
    /// These codes, notes or warnings.
    pub codes: Vec<Code>,
}

impl Deny {
    /// Reads `--deny`'s values: `warnings` or a code of the table.
    pub fn parse<'a>(values: impl IntoIterator<Item = &'a str>) -> Result<Self, UnknownCode> {
        let mut deny = Deny::default();
        for value in values {
            if value == "warnings" {
                deny.warnings = true;
                continue;
            }
            match Code::named(value) {
                Some(code) => deny.codes.push(code),
                None => {
                    return Err(UnknownCode {
                        given: value.to_owned(),
                        near: location::near::near_names(value, Code::ALL.iter().map(|c| c.name())),
                    });
                }
            }
        }
        Ok(deny)
    }

    /// Whether `diagnostic` stops the job.
    pub fn denies(&self, diagnostic: &Diagnostic) -> bool {
        (self.warnings && diagnostic.severity == Severity::Warning)
            || self.codes.contains(&diagnostic.code)
    }
}

/// A `--deny` value that is neither `warnings` nor a code of the table.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("--deny {given}: no such code{}", near_words(.near))]
pub struct UnknownCode {
    /// The value given.
    pub given: String,
    /// Codes near it.
    pub near: Vec<String>,
}

/// `(did you mean A, B?)`, or nothing without near names.
fn near_words(near: &[String]) -> String {
    if near.is_empty() {
        " (`mpfb2g4mf codes` lists them, `warnings` denies every warning)".to_owned()
    } else {
        format!(" (did you mean {}?)", near.join(", "))
    }
}

/// The sink the stages say diagnostics into, in the order they notice them; it knows what
/// `--deny` refuses, so a stage can stop before it writes.
#[derive(Debug, Default)]
pub struct Diagnostics {
    said: Vec<Diagnostic>,
    deny: Deny,
}

impl Diagnostics {
    /// An empty sink refusing what `deny` names.
    pub fn denying(deny: Deny) -> Self {
        Self {
            said: Vec::new(),
            deny,
        }
    }

    /// Says `message` under `code`.
    pub fn say(&mut self, code: Code, message: impl Into<String>) {
        self.said.push(Diagnostic::new(code, message));
    }

    /// Says `message` under `code`, about the file or place `at`.
    pub fn say_at(&mut self, code: Code, at: Location, message: impl Into<String>) {
        self.said.push(Diagnostic::new(code, message).at(at));
    }

    /// Says a diagnostic made elsewhere (with its location).
    pub fn push(&mut self, diagnostic: Diagnostic) {
        self.said.push(diagnostic);
    }

    /// Says each of `diagnostics`.
    pub fn extend(&mut self, diagnostics: impl IntoIterator<Item = Diagnostic>) {
        self.said.extend(diagnostics);
    }

    /// Everything said, in order.
    pub fn all(&self) -> &[Diagnostic] {
        &self.said
    }

    /// The first diagnostic `--deny` refuses, if any: the caller stops before anything is
    /// written.
    pub fn first_denied(&self) -> Option<&Diagnostic> {
        self.said.iter().find(|d| self.deny.denies(d))
    }

    /// Everything said, split into warnings and notes (each in order).
    pub fn into_warnings_and_notes(self) -> (Vec<Diagnostic>, Vec<Diagnostic>) {
        self.said
            .into_iter()
            .partition(|d| d.severity == Severity::Warning)
    }

    /// Everything said.
    pub fn into_vec(self) -> Vec<Diagnostic> {
        self.said
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_unique_upper_snake_case_and_each_has_a_meaning() {
        let mut seen = std::collections::HashSet::new();
        for code in Code::ALL {
            assert!(seen.insert(code.name()), "{code} twice");
            assert!(
                code.name()
                    .chars()
                    .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_'),
                "{code}"
            );
            assert!(!code.meaning().is_empty(), "{code}");
            assert_eq!(Code::named(code.name()), Some(code));
        }
    }

    #[test]
    fn deny_takes_warnings_or_codes_and_refuses_others_with_near_names() {
        let deny = Deny::parse(["SKIN_NO_WEIGHTS"]).unwrap();
        assert!(deny.denies(&Diagnostic::new(Code::SkinNoWeights, "x")));
        assert!(!deny.denies(&Diagnostic::new(Code::UnweightedVertices, "x")));
        let all = Deny::parse(["warnings"]).unwrap();
        assert!(all.denies(&Diagnostic::new(Code::UnweightedVertices, "x")));
        assert!(!all.denies(&Diagnostic::new(Code::PoseBaked, "x")));
        let notes = Deny::parse(["POSE_BAKED"]).unwrap();
        assert!(notes.denies(&Diagnostic::new(Code::PoseBaked, "x")));
        let error = Deny::parse(["SKIN_NO_WEIGHT"]).unwrap_err();
        assert_eq!(error.near, vec!["`SKIN_NO_WEIGHTS`".to_owned()]);
        assert!(error.to_string().contains("did you mean `SKIN_NO_WEIGHTS`"));
    }

    #[test]
    fn a_diagnostic_serialises_code_kind_severity_location_and_message() {
        let d = Diagnostic::new(Code::WeightAboveOne, "too heavy")
            .at(Location::pointer("/weights/x/0").in_file("w.json"));
        let json = serde_json::to_value(&d).unwrap();
        assert_eq!(json["code"], "SKIN_WEIGHT_ABOVE_ONE");
        assert_eq!(json["kind"], "skin");
        assert_eq!(json["severity"], "warning");
        assert_eq!(json["location"]["file"], "w.json");
        assert_eq!(json["location"]["pointer"], "/weights/x/0");
        assert_eq!(json["message"], "too heavy");
        let bare = serde_json::to_value(Diagnostic::new(Code::PoseBaked, "m")).unwrap();
        assert!(bare["location"].is_null());
    }
}
