//! One options layer: what a conversion can be asked, spelled once for the command line
//! (`--keep-helpers`, with the `cli` feature's clap derives) and for batch manifests
//! (`keep_helpers`, through serde), and validated once, by `TryFrom`, into
//! [`ConvertOptions`]. Validation reads no file: which files a job reads is the job
//! resolver's decision, reading them the loader's. Nothing here imports the rest of the
//! crate: every other module may import options.

use g4mf_writer::Compression;
use mpfb_rig::{ObjFrame, UpAxis};
use serde::{Deserialize, Serialize};
use std::path::PathBuf;

/// Buffer compression.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
#[serde(rename_all = "snake_case")]
pub enum Compress {
    /// No compression.
    #[default]
    None,
    /// Zstandard (buffers, and the JSON chunk of .g4b).
    Zstd,
}

/// Which helper geometry of MakeHuman's base mesh a character keeps besides the body.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
#[serde(rename_all = "snake_case")]
pub enum Helpers {
    /// The body only.
    None,
    /// The body, the eyes, the teeth and the tongue, each its own surface.
    #[default]
    Face,
    /// Everything (joint cubes, eyelashes, hair, tights, skirt, genitals too).
    All,
}

/// Which rule weights the macro targets of a phenotype.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
#[serde(rename_all = "snake_case")]
pub enum MacroRule {
    /// MPFB 2's rule (`macro.json`): what MPFB users see.
    #[default]
    Mpfb,
    /// MakeHuman 1.x's formulas.
    Makehuman1,
}

/// The default limit on any input file's size (1 GiB): far above real MPFB data (<= 6 MB),
/// low enough that a wrong path or a hostile file fails early and clearly.
pub const DEFAULT_MAX_INPUT_BYTES: u64 = 1 << 30;

/// Which rest pose to bake, as asked (the job resolver finds its file).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RestPose {
    /// The rig's MPFB T-pose (`poses/<rig>_fk/t-pose.json`), computed for rigs MPFB ships
    /// none for.
    TPose,
    /// A computed straight T-pose for any rig (arms and hands along the side axis, palms
    /// down, legs straight down).
    StraightTPose,
    /// VRM 1.0's T-pose computed for any rig: the straight one with fingers along the side
    /// axis, thumbs at 45 degrees forward and feet pointing to +Z.
    VrmTPose,
    /// A pose file.
    File(PathBuf),
}

/// Where a humanoid renaming table comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HumanoidTable {
    /// The shipped table of the rig (by the rig file's name).
    Builtin,
    /// A user's JSON file: `{ "mpfb bone": "G4MFName", ... }` (a `//` key is a comment).
    File(PathBuf),
}

/// The Zstandard levels the zstd library accepts.
pub const ZSTD_LEVELS: std::ops::RangeInclusive<i32> = 1..=22;

/// The output container, chosen by the output's extension.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum OutputFormat {
    /// `.g4b`.
    Binary,
    /// `.g4tf` with base64 buffers inside.
    TextEmbedded,
    /// `.g4tf` with a `.bin` beside it.
    TextExternal,
    /// `.glb`: glTF 2.0, binary, its buffer inside.
    Glb,
    /// `.gltf` with its buffer as a base64 data URI inside.
    GltfEmbedded,
    /// `.gltf` with a `.bin` beside it.
    GltfExternal,
    /// `.vrm`: a VRM 1.0 avatar, a `.glb` carrying `VRMC_vrm` and `VRMC_springBone`.
    Vrm,
}

impl OutputFormat {
    /// The format `path`'s extension asks for (`external_bin`: a text format's buffer beside
    /// it), or `None` for an extension that is not an output format.
    pub fn of_path(path: &std::path::Path, external_bin: bool) -> Option<Self> {
        match path.extension().and_then(|e| e.to_str()) {
            Some("g4b") => Some(Self::Binary),
            Some("g4tf") if external_bin => Some(Self::TextExternal),
            Some("g4tf") => Some(Self::TextEmbedded),
            Some("glb") => Some(Self::Glb),
            Some("gltf") if external_bin => Some(Self::GltfExternal),
            Some("gltf") => Some(Self::GltfEmbedded),
            Some("vrm") => Some(Self::Vrm),
            _ => None,
        }
    }

    /// True for glTF 2.0 outputs (`.glb`, `.gltf`, and `.vrm`, a `.glb` with more).
    pub fn is_gltf(self) -> bool {
        matches!(
            self,
            Self::Glb | Self::GltfEmbedded | Self::GltfExternal | Self::Vrm
        )
    }

    /// True for the binary glTF container (`.glb`, `.vrm`).
    pub fn is_glb(self) -> bool {
        matches!(self, Self::Glb | Self::Vrm)
    }
}

/// The most influences a glTF output keeps per vertex unless `--max-influences` says more:
/// one `JOINTS_0`/`WEIGHTS_0` set, which every client reads (three.js reads only it).
pub const GLTF_DEFAULT_INFLUENCES: usize = 4;

/// Where the character stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
#[serde(rename_all = "snake_case")]
pub enum Origin {
    /// Feet on y = 0 (the `joint-ground` cube, else the lowest body vertex), carried as the
    /// skeleton node's position, as MakeHuman's exporters do.
    #[default]
    Ground,
    /// The mesh's own origin.
    Mesh,
}

/// A `--deny` value checked as the command line is read (a usage error, exit 2).
#[cfg(feature = "cli")]
pub fn deny_value(value: &str) -> Result<String, crate::diagnostics::UnknownCode> {
    crate::diagnostics::Deny::parse([value]).map(|_| value.to_owned())
}

/// How to convert.
#[derive(Debug, Clone)]
pub struct ConvertOptions {
    /// The output file (`.g4b` or `.g4tf`).
    pub output: PathBuf,
    /// With `.g4tf`: write the buffer to a `.bin` beside it.
    pub external_bin: bool,
    /// Buffer (and `.g4b` JSON) compression.
    pub compression: Compression,
    /// Pretty-print the JSON.
    pub pretty: bool,
    /// Helper geometry kept besides the body.
    pub helpers: Helpers,
    /// Write no normals (flat shading).
    pub flat: bool,
    /// Dress the character: name its surfaces and give each a material.
    pub materials: bool,
    /// Embed a PNG thumbnail (`asset.thumbnail`).
    pub thumbnail: bool,
    /// Validate the encoded file before it replaces anything; an invalid one is not written.
    pub validate: bool,
    /// Keep at most this many influences per vertex (renormalised).
    pub max_influences: Option<usize>,
    /// Renormalise every vertex's weights to sum 1.
    pub normalize: bool,
    /// A pose baked into the rest.
    pub rest_pose: Option<RestPose>,
    /// Rename bones to G4MF's humanoid names.
    pub humanoid: Option<HumanoidTable>,
    /// List every bone as a joint.
    pub all_joints: bool,
    /// Write `groupNames`.
    pub group_names: bool,
    /// OBJ units and axes.
    pub frame: ObjFrame,
    /// Where the character stands.
    pub origin: Origin,
    /// Accept bone ends placed at their default position.
    pub allow_fallback: bool,
    /// Accept a mesh whose vertex count is not MakeHuman's base mesh's (19,158).
    pub any_topology: bool,
    /// The character's name; defaults to the output's file stem.
    pub name: Option<String>,
    /// A user map of weight groups to bones (`{ "weight group": "bone" }`), read by the loader.
    pub bone_map: Option<PathBuf>,
    /// Largest input file accepted, in bytes.
    pub max_input_bytes: u64,
    /// A body built from MakeHuman targets instead of the mesh as read.
    pub body: Option<BodyOptions>,
    /// Targets written as blend shapes.
    pub shapes: ShapeOptions,
    /// The expression baked into the rest (`--expression`; `None`: a description's line).
    pub expression: Option<ExpressionBake>,
    /// The pose baked into the rest (`--pose`; `None`: a description's line).
    pub pose: Option<PoseBake>,
    /// Animation clips asked for: each clip's name and BVH file.
    pub animations: Vec<(String, PathBuf)>,
    /// Keep body faces that worn assets hide (`--keep-hidden-body`).
    pub keep_hidden_body: bool,
    /// What happens to the images materials name.
    pub textures: TextureMode,
    /// What a `.vrm` output adds (`None` for other outputs).
    pub vrm: Option<crate::vrm::VrmOptions>,
    /// The diagnostics that stop the job (`--deny`).
    pub deny: crate::diagnostics::Deny,
}

impl ConvertOptions {
    /// Default options writing to `output`.
    pub fn new(output: impl Into<PathBuf>) -> Self {
        Self {
            output: output.into(),
            external_bin: false,
            compression: Compression::None,
            pretty: false,
            helpers: Helpers::Face,
            flat: false,
            materials: true,
            thumbnail: false,
            validate: false,
            max_influences: None,
            normalize: false,
            humanoid: None,
            rest_pose: None,
            all_joints: false,
            group_names: true,
            frame: ObjFrame::MAKEHUMAN,
            origin: Origin::Ground,
            allow_fallback: false,
            any_topology: false,
            name: None,
            bone_map: None,
            max_input_bytes: DEFAULT_MAX_INPUT_BYTES,
            body: None,
            shapes: ShapeOptions::default(),
            expression: None,
            pose: None,
            animations: Vec::new(),
            keep_hidden_body: false,
            textures: TextureMode::Embed,
            vrm: None,
            deny: crate::diagnostics::Deny::default(),
        }
    }

    /// The container the output path and options ask for.
    pub fn format(&self) -> Result<OutputFormat, SettingsError> {
        OutputFormat::of_path(&self.output, self.external_bin)
            .ok_or_else(|| SettingsError::OutputExtension(self.output.clone()))
    }
}

/// Everything a conversion can be asked besides its inputs and output. Every field has a
/// default; a manifest's `defaults` fill in what a job leaves out.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "cli", derive(clap::Args))]
#[serde(default, deny_unknown_fields)]
pub struct Settings {
    /// Write a .g4tf's or .gltf's buffer to a .bin file beside it instead of embedding it.
    #[cfg_attr(feature = "cli", arg(long))]
    pub external_bin: bool,
    /// Compress buffers (and the .g4b JSON chunk); G4MF only.
    #[cfg_attr(feature = "cli", arg(long, value_enum, default_value_t = Compress::None))]
    pub compress: Compress,
    /// Zstandard level (1-22).
    #[cfg_attr(feature = "cli", arg(long, default_value_t = 19))]
    pub compress_level: i32,
    /// Pretty-print the JSON.
    #[cfg_attr(feature = "cli", arg(long))]
    pub pretty: bool,
    /// Flat shading: write no normals (by default every surface gets smooth, angle-weighted
    /// per-vertex normals of the final geometry).
    #[cfg_attr(feature = "cli", arg(long))]
    pub flat: bool,
    /// Write no materials and leave surfaces unnamed (by default the body's skin is coloured
    /// from the phenotype's race mix, and eyes, teeth and tongue have materials of their own).
    #[cfg_attr(feature = "cli", arg(long))]
    pub no_materials: bool,
    /// Embed a 256x256 PNG front view as the file's `asset.thumbnail` (G4MF) or a `.vrm`'s
    /// `meta.thumbnailImage`.
    #[cfg_attr(feature = "cli", arg(long))]
    pub thumbnail: bool,
    /// Helper geometry kept besides the body: none, face (eyes, teeth, tongue) or all.
    #[cfg_attr(feature = "cli", arg(long, value_enum, default_value_t = Helpers::Face))]
    pub helpers: Helpers,
    /// Keep all helper geometry (the same as --helpers all).
    #[cfg_attr(feature = "cli", arg(long))]
    pub keep_helpers: bool,
    /// List every bone as a joint, not only bones carrying weights.
    #[cfg_attr(feature = "cli", arg(long))]
    pub all_joints: bool,
    /// Write groupNames (off with --no-group-names: readers infer them from the joints).
    #[cfg_attr(
        feature = "cli",
        arg(
            long = "no-group-names",
            action = clap::ArgAction::SetFalse,
            help = "Omit groupNames (readers infer them from the joint bones' names); G4MF only"
        )
    )]
    pub group_names: bool,
    /// Mesh units to metres (0.1 for MakeHuman's decimetres, 1 for a Blender export).
    #[cfg_attr(feature = "cli", arg(long, default_value_t = 0.1))]
    pub mesh_scale: f64,
    /// The OBJ's up axis.
    #[cfg_attr(feature = "cli", arg(long, value_enum, default_value_t = UpAxis::Y))]
    pub up_axis: UpAxis,
    /// Where the character stands: on y = 0 (ground) or at the mesh's origin.
    #[cfg_attr(feature = "cli", arg(long, value_enum, default_value_t = Origin::Ground))]
    pub origin: Origin,
    /// Accept bone ends placed at their default position when their strategy fails.
    #[cfg_attr(feature = "cli", arg(long))]
    pub allow_fallback: bool,
    /// Stop the job, writing nothing, when it would say this diagnostic code, or any warning
    /// with `warnings` (repeatable; `mpfb2g4mf codes` lists the codes).
    #[cfg_attr(
        feature = "cli",
        arg(long, value_name = "CODE|warnings", value_parser = deny_value)
    )]
    pub deny: Vec<String>,
    /// Accept a mesh whose vertex count is not the MakeHuman base mesh's 19,158 (a mesh made
    /// for the rig by hand; proxies and other topologies are not fitted this way).
    #[cfg_attr(feature = "cli", arg(long))]
    pub any_topology: bool,
    /// JSON map { "weight group": "bone" } applied before the automatic name rules.
    #[cfg_attr(feature = "cli", arg(long))]
    pub bone_map: Option<PathBuf>,
    /// Vertex groups (basemesh_vertex_groups.json) for meshes without joint face groups.
    #[cfg_attr(feature = "cli", arg(long))]
    pub vertex_groups: Option<PathBuf>,
    /// MPFB data folder for rig names (default: $MPFB_DATA, then installed MPFB add-ons).
    #[cfg_attr(feature = "cli", arg(long))]
    pub mpfb_data: Option<PathBuf>,
    /// Largest input file accepted, in MiB.
    #[cfg_attr(feature = "cli", arg(long, default_value_t = DEFAULT_MAX_INPUT_BYTES >> 20))]
    pub max_input_mib: u64,
    /// A MakeHuman body to build from targets: a `.mhm` file or an MPFB `human.*.json` preset.
    #[cfg_attr(feature = "cli", arg(long))]
    pub human: Option<PathBuf>,
    /// Phenotype values over the file's (or the defaults): `gender=0.2,age=0.7,african=1,...`.
    #[cfg_attr(feature = "cli", arg(long))]
    pub phenotype: Option<String>,
    /// A detail target and its weight, `NAME=WEIGHT` (repeatable), after the file's.
    #[cfg_attr(feature = "cli", arg(long = "target", value_name = "NAME=WEIGHT"))]
    pub targets: Vec<String>,
    /// The rule weighting macro targets.
    #[cfg_attr(feature = "cli", arg(long, value_enum, default_value_t = MacroRule::Mpfb))]
    pub macro_model: MacroRule,
    /// The targets folder (default: `targets/` of the MPFB data folder).
    #[cfg_attr(feature = "cli", arg(long))]
    pub targets_dir: Option<PathBuf>,
    /// Write the 52 ARKit face units (`targets/faceunits/`) as blend shapes under G4MF's
    /// face-tracking names (`FaceJawOpen`, ...).
    #[cfg_attr(feature = "cli", arg(long))]
    pub face_units: bool,
    /// Write the 15 visemes (`targets/visemes/`) as blend shapes under G4MF's viseme names
    /// (`VisemeAA`, ...).
    #[cfg_attr(feature = "cli", arg(long))]
    pub visemes: bool,
    /// A target as a blend shape, `NAME=TARGET` (repeatable); TARGET is a target's base name.
    #[cfg_attr(feature = "cli", arg(long = "blend-shape", value_name = "NAME=TARGET"))]
    pub blend_shapes: Vec<String>,
    /// MakeHuman's expressions as blend shapes named after them: `all` (every
    /// `expressions/*.mhpose` of the assets folder) or names (`smile01,anger01`). Computed as
    /// MakeHuman does (its default skeleton posed by the face pose units, the body skinned by
    /// its default weights), so every rig gets them, those without face bones included.
    #[cfg_attr(feature = "cli", arg(long, value_name = "all|NAME,..."))]
    pub expression_shapes: Option<String>,
    /// Bake an expression into the rest: one of MakeHuman's by name (`expressions/NAME.mhpose`
    /// of the assets folder) or file (`.mhpose`), an MPFB expression (`.json`: face-unit
    /// weights, the face units' targets summed), or `none` (ignores a description's
    /// `expression` line). Worn assets follow the face.
    #[cfg_attr(
        feature = "cli",
        arg(long, value_name = "NAME|FILE.mhpose|FILE.json|none")
    )]
    pub expression: Option<String>,
    /// Bake a frame of a BVH pose into the rest as MakeHuman applies it: a name
    /// (`poses/NAME.bvh` of the assets folder), a `.bvh` file (`FILE.bvh@FRAME` for another
    /// frame than the first), or `none` (ignores a description's `pose` line). Worn assets
    /// follow. Default rigs take it bone by bone; game_engine and cmu_mb through their
    /// `.mhskel` reference bones; other rigs by humanoid names.
    #[cfg_attr(feature = "cli", arg(long, value_name = "NAME|FILE.bvh[@FRAME]|none"))]
    pub pose: Option<String>,
    /// An animation clip from a BVH file, `NAME=FILE.bvh` or `FILE.bvh` (named after its
    /// stem); repeatable. Written in `.glb`/`.gltf` outputs as a glTF animation (every frame,
    /// retargeted as `--pose` is); a `.vrm` gets each beside it as `STEM.NAME.vrma`.
    #[cfg_attr(feature = "cli", arg(long = "animation", value_name = "NAME=FILE.bvh"))]
    #[serde(rename = "animations")]
    pub animations: Vec<String>,
    /// Bake a pose into the rest: `t-pose` (the rig's MPFB T-pose file, computed straight for
    /// rigs without one), `straight-t-pose` (computed for any rig: arms and hands along the
    /// side axis, palms down, legs straight down), `vrm-t-pose` (VRM 1.0's, computed for any
    /// rig: straight T-pose with fingers along the side axis, thumbs at 45 degrees forward,
    /// feet pointing forward, stood on its lowest vertex) or an MPFB pose file.
    #[cfg_attr(
        feature = "cli",
        arg(long, value_name = "FILE|t-pose|straight-t-pose|vrm-t-pose")
    )]
    pub rest_pose: Option<String>,
    /// Rename bones to G4MF's humanoid names (`Hips`, `LeftUpperArm`, ...) with the rig's
    /// shipped table; MPFB names stay in extras.
    #[cfg_attr(feature = "cli", arg(long))]
    pub humanoid: bool,
    /// A humanoid renaming table of your own (JSON: MPFB bone -> G4MF name); implies --humanoid.
    #[cfg_attr(feature = "cli", arg(long, value_name = "FILE"))]
    pub humanoid_map: Option<PathBuf>,
    /// Keep each vertex's N strongest influences and renormalise them to sum 1 (engines cap
    /// influences at 4 or 8). glTF outputs keep 4 unless told: more write further
    /// JOINTS_n/WEIGHTS_n sets, which three.js and Godot do not read.
    #[cfg_attr(feature = "cli", arg(long, value_name = "N"))]
    pub max_influences: Option<usize>,
    /// Renormalise every vertex's weights to sum 1 (without dropping any).
    #[cfg_attr(feature = "cli", arg(long))]
    pub normalize: bool,
    /// Keep the description's detail targets (`.mhm`, preset, --target) as blend shapes at
    /// their weights instead of baking them into the body.
    #[cfg_attr(feature = "cli", arg(long))]
    pub keep_targets_as_shapes: bool,
    /// The MakeHuman assets folder (default: $MAKEHUMAN_ASSETS, MPFB's and MakeHuman's user
    /// data, then the cache).
    #[cfg_attr(feature = "cli", arg(long, value_name = "DIR"))]
    pub assets: Option<PathBuf>,
    /// Clothes to wear, by name, uuid or `.mhclo` file (repeatable: adds to the description's;
    /// `none` drops the description's).
    #[cfg_attr(feature = "cli", arg(long = "clothes", value_name = "NAME|FILE|none"))]
    pub clothes: Vec<String>,
    /// Hair (NAME, uuid, FILE or `none`), replacing the description's.
    #[cfg_attr(feature = "cli", arg(long, value_name = "NAME|FILE|none"))]
    pub hair: Option<String>,
    /// Eyebrows (NAME, uuid, FILE or `none`), replacing the description's.
    #[cfg_attr(feature = "cli", arg(long, value_name = "NAME|FILE|none"))]
    pub eyebrows: Option<String>,
    /// Eyelashes (NAME, uuid, FILE or `none`), replacing the description's.
    #[cfg_attr(feature = "cli", arg(long, value_name = "NAME|FILE|none"))]
    pub eyelashes: Option<String>,
    /// Proxy eyes (NAME, uuid, FILE or `none`: the helper eyes), replacing the description's;
    /// with an assets folder the default is MakeHuman's (HighPolyEyes).
    #[cfg_attr(feature = "cli", arg(long, value_name = "NAME|FILE|none"))]
    pub eyes: Option<String>,
    /// Teeth (NAME, uuid, FILE or `none`), replacing the description's and the helper teeth.
    #[cfg_attr(feature = "cli", arg(long, value_name = "NAME|FILE|none"))]
    pub teeth: Option<String>,
    /// Tongue (NAME, uuid, FILE or `none`), replacing the description's and the helper tongue.
    #[cfg_attr(feature = "cli", arg(long, value_name = "NAME|FILE|none"))]
    pub tongue: Option<String>,
    /// The eyes' material (NAME of `eyes/materials/NAME.mhmat`, or a `.mhmat` FILE).
    #[cfg_attr(feature = "cli", arg(long, value_name = "NAME|FILE"))]
    pub eye_material: Option<String>,
    /// The skin's material: NAME of `skins/NAME/NAME.mhmat` in the assets folder, or a
    /// `.mhmat` FILE (`default`: MakeHuman's litsphere skin, coloured by the race mix).
    #[cfg_attr(feature = "cli", arg(long, value_name = "NAME|FILE|default"))]
    pub skin: Option<String>,
    /// A body topology (`.proxy`, by NAME, uuid or FILE) replacing the body mesh.
    #[cfg_attr(feature = "cli", arg(long, value_name = "NAME|FILE"))]
    pub proxy: Option<String>,
    /// Keep the body's faces that clothes hide (by default a face goes when any of its
    /// vertices is in a worn asset's `delete_verts`, as MPFB's mask does).
    #[cfg_attr(feature = "cli", arg(long))]
    pub keep_hidden_body: bool,
    /// The images materials name: in the file (embed), beside it named by content (copy), a
    /// relative URI to the original (reference), or none (colour factors only).
    #[cfg_attr(feature = "cli", arg(long, value_enum, default_value_t = TextureMode::Embed))]
    pub textures: TextureMode,
    /// A `.vrm`'s author (repeatable; default: mpfb2g4mf and MakeHuman community).
    #[cfg_attr(feature = "cli", arg(long = "vrm-author", value_name = "NAME"))]
    pub vrm_authors: Vec<String>,
    /// The rights a `.vrm` grants: conservative (VRM's defaults: only the author, no
    /// commercial use, no redistribution or modification) or cc0 (everything allowed, CC0 1.0).
    #[cfg_attr(feature = "cli", arg(long, value_enum, default_value_t = crate::vrm::LicensePreset::Conservative))]
    pub vrm_license: crate::vrm::LicensePreset,
    /// One `.vrm` meta field over the preset, by VRM's name (repeatable):
    /// `avatarPermission=everyone`, `commercialUsage=corporation`, `allowRedistribution=true`,
    /// `otherLicenseUrl=URL`, `version=1.2`, ...
    #[cfg_attr(feature = "cli", arg(long = "vrm-meta", value_name = "FIELD=VALUE"))]
    pub vrm_meta: Vec<String>,
    /// A `.vrm` without expression presets (and without the face units and visemes they need).
    #[cfg_attr(feature = "cli", arg(long))]
    pub no_expressions: bool,
    /// The asset settings a population's draw set (`hair`, `clothes`, ...), so messages name
    /// the draw rather than a flag nobody gave.
    #[cfg_attr(feature = "cli", arg(skip))]
    #[serde(skip)]
    pub drawn: Vec<&'static str>,
}

impl Default for Settings {
    fn default() -> Self {
        Self {
            external_bin: false,
            compress: Compress::None,
            compress_level: 19,
            pretty: false,
            flat: false,
            no_materials: false,
            thumbnail: false,
            helpers: Helpers::Face,
            keep_helpers: false,
            all_joints: false,
            group_names: true,
            mesh_scale: ObjFrame::MAKEHUMAN.scale,
            up_axis: UpAxis::Y,
            origin: Origin::Ground,
            allow_fallback: false,
            deny: Vec::new(),
            any_topology: false,
            bone_map: None,
            vertex_groups: None,
            mpfb_data: None,
            max_input_mib: DEFAULT_MAX_INPUT_BYTES >> 20,
            human: None,
            phenotype: None,
            targets: Vec::new(),
            macro_model: MacroRule::Mpfb,
            targets_dir: None,
            face_units: false,
            visemes: false,
            blend_shapes: Vec::new(),
            expression_shapes: None,
            expression: None,
            pose: None,
            animations: Vec::new(),
            keep_targets_as_shapes: false,
            max_influences: None,
            normalize: false,
            humanoid: false,
            humanoid_map: None,
            rest_pose: None,
            assets: None,
            clothes: Vec::new(),
            hair: None,
            eyebrows: None,
            eyelashes: None,
            eyes: None,
            teeth: None,
            tongue: None,
            eye_material: None,
            skin: None,
            proxy: None,
            keep_hidden_body: false,
            textures: TextureMode::Embed,
            vrm_authors: Vec::new(),
            vrm_license: crate::vrm::LicensePreset::Conservative,
            vrm_meta: Vec::new(),
            no_expressions: false,
            drawn: Vec::new(),
        }
    }
}

/// What happens to the images materials name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
#[serde(rename_all = "lowercase")]
pub enum TextureMode {
    /// In the file's buffer (a `.g4b` is self-contained).
    #[default]
    Embed,
    /// Beside the output, named by their content's hash (a batch shares one file per image).
    Copy,
    /// A relative URI to the original file.
    Reference,
    /// No textures: colour factors only.
    None,
}

/// Settings that cannot be used.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SettingsError {
    /// A `--deny` value is neither `warnings` nor a diagnostic code.
    #[error(transparent)]
    Deny(#[from] crate::diagnostics::UnknownCode),
    /// The mesh scale is outside [`MESH_SCALES`].
    #[error(
        "the mesh scale must be between 1e-6 and 1e6, got {}",
        location::text::short_number(*.0)
    )]
    MeshScale(f64),
    /// The Zstandard level is outside 1..=22.
    #[error("the Zstandard level must be from 1 to 22, got {0}")]
    CompressLevel(i32),
    /// A phenotype setting is not `name=value,...` with known names and values in [0, 1].
    #[error("phenotype `{0}`: {1}")]
    Phenotype(String, String),
    /// A target setting is not `NAME=WEIGHT` with a weight in [0, 1].
    #[error("target `{0}`: expected NAME=WEIGHT with a weight from 0 to 1")]
    Target(String),
    /// The output path has no `.g4b`, `.g4tf`, `.glb`, `.gltf` or `.vrm` extension.
    #[error("{}: the output must end in .g4b or .g4tf (G4MF), .glb or .gltf (glTF 2.0), or .vrm (VRM 1.0)", .0.display())]
    OutputExtension(PathBuf),
    /// A setting only G4MF outputs have, given with a glTF output.
    #[error("{flag} is for G4MF outputs, not {}: {why}", .output.display())]
    NotForGltf {
        /// The flag (and value) as the command line spells it.
        flag: &'static str,
        /// The output.
        output: PathBuf,
        /// Why glTF has no such thing.
        why: &'static str,
    },
    /// `max_influences` is 0.
    #[error("--max-influences must be at least 1")]
    MaxInfluences,
    /// A VRM-only setting given with another output.
    #[error("{flag} is for .vrm outputs, not {}", .output.display())]
    OnlyForVrm {
        /// The flag as the command line spells it.
        flag: &'static str,
        /// The output.
        output: PathBuf,
    },
    /// A setting a `.vrm` cannot have.
    #[error("{flag} cannot make {}: {why}", .output.display())]
    NotForVrm {
        /// The flag (and value) as the command line spells it.
        flag: String,
        /// The output.
        output: PathBuf,
        /// Why.
        why: &'static str,
    },
    /// A `--vrm-meta` or `--vrm-author` setting is not a known field with a valid value.
    #[error("{0}: {1}")]
    VrmMeta(String, String),
    /// A blend-shape setting is not `NAME=TARGET` with a valid G4MF name.
    #[error(
        "blend shape `{0}`: expected NAME=TARGET, NAME without any of \" # % * . : | ? @ < > {{ }} [ ] / \\"
    )]
    BlendShape(String),
    /// `--expression-shapes` that is neither `all` nor expression names.
    #[error("--expression-shapes `{0}`: {1} (give `all` or names such as `smile01,anger01`)")]
    ExpressionShapes(String, String),
    /// `--pose` that is neither `none`, a pose name nor a `.bvh` file (with its frame).
    #[error(
        "--pose `{0}`: {1} (give a name such as `sit01`, a FILE.bvh, FILE.bvh@FRAME or `none`)"
    )]
    Pose(String, String),
    /// `--animation` that is not `NAME=FILE.bvh` or `FILE.bvh`.
    #[error("--animation `{0}`: {1} (give NAME=FILE.bvh or FILE.bvh)")]
    Animation(String, String),
    /// Two settings that exclude each other.
    #[error("{0} and {1} cannot be given together: {2}")]
    Together(String, &'static str, &'static str),
    /// A setting this output cannot have yet.
    #[error("{flag} cannot make {}: {why}", .output.display())]
    NotForOutput {
        /// The flag (and value) as the command line spells it.
        flag: String,
        /// The output.
        output: PathBuf,
        /// Why.
        why: &'static str,
    },
}

/// Refuses the settings only G4MF outputs have, for a glTF `output`.
fn refuse_g4mf_only(s: &Settings, output: &std::path::Path) -> Result<(), SettingsError> {
    let refused = |flag, why| {
        Err(SettingsError::NotForGltf {
            flag,
            output: output.to_path_buf(),
            why,
        })
    };
    if s.compress == Compress::Zstd {
        return refused("--compress zstd", "glTF has no such encoding");
    }
    let vrm = output.extension().is_some_and(|e| e == "vrm");
    if s.thumbnail && !vrm {
        return refused(
            "--thumbnail",
            "glTF has no thumbnail (preview draws a picture of the file; a .vrm has one)",
        );
    }
    if !s.group_names {
        return refused(
            "--no-group-names",
            "glTF skins have no group names (their joints are the bone nodes)",
        );
    }
    Ok(())
}

/// What a `.vrm` output adds, from the settings: refused where VRM's rules forbid a setting
/// (its rest is its T-pose; three-vrm reads four influences a vertex).
fn vrm_options(
    s: &Settings,
    output: &std::path::Path,
) -> Result<crate::vrm::VrmOptions, SettingsError> {
    let refused = |flag: String, why| {
        Err(SettingsError::NotForVrm {
            flag,
            output: output.to_path_buf(),
            why,
        })
    };
    // `vrm-t-pose` is the rest a `.vrm` gets anyway (a batch's defaults may name it for all).
    if let Some(pose) = s.rest_pose.as_ref().filter(|p| *p != "vrm-t-pose") {
        return refused(
            format!("--rest-pose {pose}"),
            "a .vrm's rest is always VRM's T-pose (tpose.md), which it gets without asking",
        );
    }
    // A `.vrm` writes an expression asked for as one of its expressions, never into its rest.
    if let Some(expression) = s
        .expression
        .as_ref()
        .filter(|e| s.no_expressions && !e.eq_ignore_ascii_case("none"))
    {
        return refused(
            format!("--expression {expression}"),
            "a .vrm writes an expression as one of its expressions (its rest face stays neutral), which --no-expressions leaves out",
        );
    }
    if let Some(file) = s
        .expression
        .as_ref()
        .filter(|e| e.trim().ends_with(".json"))
    {
        return refused(
            format!("--expression {file}"),
            "an MPFB expression (face-unit weights) is not written as a .vrm expression yet; MakeHuman's .mhpose expressions are",
        );
    }
    if let Some(pose) = s.pose.as_ref().filter(|p| !p.eq_ignore_ascii_case("none")) {
        return refused(
            format!("--pose {pose}"),
            "a .vrm's rest is always VRM's T-pose (tpose.md); give --animation to write a clip beside it",
        );
    }
    if s.origin == Origin::Mesh {
        return refused(
            "--origin mesh".to_owned(),
            "a .vrm stands on y = 0 (tpose.md), which it gets without asking",
        );
    }
    if let Some(n) = s.max_influences.filter(|&n| n > GLTF_DEFAULT_INFLUENCES) {
        return refused(
            format!("--max-influences {n}"),
            "VRM clients read one set of four influences a vertex (more would deform wrongly)",
        );
    }
    crate::vrm::VrmOptions::from_flags(&s.vrm_authors, s.vrm_license, &s.vrm_meta, s.no_expressions)
        .map_err(|(flag, why)| SettingsError::VrmMeta(flag, why))
}

/// Refuses animation clips for outputs that cannot hold them: G4MF has no animation
/// section. A `.vrm`'s clips go beside it as `.vrma` files named after them, so two names
/// that differ only in case (one file on a case-insensitive file system) are refused there.
fn refuse_clips(
    output: &std::path::Path,
    clips: &[(String, PathBuf)],
    texts: &[String],
) -> Result<(), SettingsError> {
    if OutputFormat::of_path(output, false).is_some_and(OutputFormat::is_gltf) {
        let vrm = OutputFormat::of_path(output, false) == Some(OutputFormat::Vrm);
        for (i, (name, _)) in clips.iter().enumerate().filter(|_| vrm) {
            if let Some((other, _)) = clips[..i]
                .iter()
                .find(|(o, _)| o.eq_ignore_ascii_case(name))
            {
                return Err(SettingsError::Animation(
                    location::text::escape_controls(&texts[i]).into_owned(),
                    format!(
                        "clips `{other}` and `{name}` would be one .vrma file on a case-insensitive file system (name them apart)"
                    ),
                ));
            }
        }
        return Ok(());
    }
    Err(SettingsError::NotForOutput {
        flag: "--animation".into(),
        output: output.to_path_buf(),
        why: "G4MF has no animation section (write a .glb or .gltf for clips)",
    })
}

/// Refuses the settings only `.vrm` outputs have, for any other `output`.
fn refuse_vrm_only(s: &Settings, output: &std::path::Path) -> Result<(), SettingsError> {
    let given = [
        (!s.vrm_authors.is_empty(), "--vrm-author"),
        (
            s.vrm_license != crate::vrm::LicensePreset::Conservative,
            "--vrm-license",
        ),
        (!s.vrm_meta.is_empty(), "--vrm-meta"),
        (s.no_expressions, "--no-expressions"),
    ];
    match given.iter().find(|(given, _)| *given) {
        Some((_, flag)) => Err(SettingsError::OnlyForVrm {
            flag,
            output: output.to_path_buf(),
        }),
        None => Ok(()),
    }
}

/// `NAME=TARGET` of a blend-shape setting, checked.
pub fn parse_blend_shape(text: &str) -> Result<(String, String), SettingsError> {
    let bad = || SettingsError::BlendShape(text.to_owned());
    let (name, target) = text.split_once('=').ok_or_else(bad)?;
    let (name, target) = (name.trim(), target.trim());
    if target.is_empty() || !g4mf_writer::is_valid_name(name) {
        return Err(bad());
    }
    Ok((name.to_owned(), target.to_owned()))
}

/// Which targets become blend shapes, validated.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ShapeOptions {
    /// The 52 face units.
    pub face_units: bool,
    /// The 15 visemes.
    pub visemes: bool,
    /// `(shape name, target name)` pairs.
    pub named: Vec<(String, String)>,
    /// Single face units and visemes by file name (`eyeBlinkLeft`, `viseme_aa`: what a
    /// `.vrm`'s expressions need), written under their G4MF names besides the full sets.
    pub units: Vec<&'static str>,
    /// MakeHuman's expressions asked for as blend shapes.
    pub expressions: Option<ExpressionShapes>,
}

impl ShapeOptions {
    /// True when no shape is asked for.
    pub fn is_empty(&self) -> bool {
        !self.face_units
            && !self.visemes
            && self.named.is_empty()
            && self.units.is_empty()
            && self.expressions.is_none()
    }
}

/// The expression `--expression` bakes into the rest.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ExpressionBake {
    /// None, whatever a description says.
    Ignore,
    /// `expressions/NAME.mhpose` of the assets folder.
    Named(String),
    /// A `.mhpose` file.
    File(PathBuf),
}

/// `--expression`: `none`, a `.mhpose` file (it ends so), or a name.
pub fn parse_expression_bake(text: &str) -> Result<ExpressionBake, SettingsError> {
    let text = text.trim();
    if text.eq_ignore_ascii_case("none") {
        Ok(ExpressionBake::Ignore)
    } else if text.ends_with(".mhpose") || text.ends_with(".json") {
        Ok(ExpressionBake::File(PathBuf::from(text)))
    } else if g4mf_writer::is_valid_name(text) && !text.starts_with('.') {
        Ok(ExpressionBake::Named(text.to_owned()))
    } else {
        Err(SettingsError::ExpressionShapes(
            text.to_owned(),
            "`--expression` takes a name, a `.mhpose` or MPFB expression `.json` file, or `none`"
                .into(),
        ))
    }
}

/// The pose `--pose` bakes into the rest.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PoseBake {
    /// None, whatever a description says.
    Ignore,
    /// `poses/NAME.bvh` of the assets folder, its first frame.
    Named(String),
    /// A `.bvh` file and the frame taken (0 for the first).
    File(PathBuf, usize),
}

/// `--pose`: `none`, a `.bvh` file (it ends so, or in `.bvh@FRAME`, frames counted from 1),
/// or a name.
pub fn parse_pose_bake(text: &str) -> Result<PoseBake, SettingsError> {
    let bad = |why: &str| {
        SettingsError::Pose(
            location::text::escape_controls(text).into_owned(),
            why.into(),
        )
    };
    let text = text.trim();
    if text.eq_ignore_ascii_case("none") {
        return Ok(PoseBake::Ignore);
    }
    if text.ends_with(".bvh") {
        return Ok(PoseBake::File(PathBuf::from(text), 0));
    }
    if let Some((file, frame)) = text.rsplit_once('@').filter(|(f, _)| f.ends_with(".bvh")) {
        return match frame.parse::<usize>() {
            Ok(n) if n >= 1 => Ok(PoseBake::File(PathBuf::from(file), n - 1)),
            _ => Err(bad("the frame after `@` is a whole number from 1")),
        };
    }
    if g4mf_writer::is_valid_name(text) && !text.starts_with('.') && !text.is_empty() {
        Ok(PoseBake::Named(text.to_owned()))
    } else {
        Err(bad("not a pose name or a .bvh file"))
    }
}

/// `--animation` settings: each `NAME=FILE.bvh` or `FILE.bvh` (named after its stem), names
/// valid G4MF names, each once.
pub fn parse_animations(texts: &[String]) -> Result<Vec<(String, PathBuf)>, SettingsError> {
    let mut out: Vec<(String, PathBuf)> = Vec::with_capacity(texts.len());
    for text in texts {
        let bad = |why: String| {
            SettingsError::Animation(location::text::escape_controls(text).into_owned(), why)
        };
        let (name, file) = match text.split_once('=') {
            Some((name, file)) => (name.trim().to_owned(), PathBuf::from(file.trim())),
            None => {
                let file = PathBuf::from(text.trim());
                let stem = file
                    .file_stem()
                    .map(|s| s.to_string_lossy().into_owned())
                    .unwrap_or_default();
                (stem, file)
            }
        };
        if file.extension().is_none_or(|e| e != "bvh") {
            return Err(bad("the file must be a .bvh".into()));
        }
        if name.is_empty() || !g4mf_writer::is_valid_name(&name) {
            return Err(bad(format!(
                "`{}` is not a clip name (no \" # % * . : | ? @ < > {{ }} [ ] / \\)",
                location::text::escape_controls(&name)
            )));
        }
        if out.iter().any(|(n, _)| *n == name) {
            return Err(bad(format!("clip `{name}` is named twice")));
        }
        out.push((name, file));
    }
    Ok(out)
}

/// Which of MakeHuman's expressions become blend shapes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ExpressionShapes {
    /// Every `.mhpose` of the assets folder's `expressions/`.
    All,
    /// These, by name (`expressions/NAME.mhpose`), in this order.
    Named(Vec<String>),
}

/// `--expression-shapes`: `all`, or names that are G4MF names, each once.
pub fn parse_expression_shapes(text: &str) -> Result<ExpressionShapes, SettingsError> {
    let bad = |why: String| SettingsError::ExpressionShapes(text.to_owned(), why);
    if text.trim() == "all" {
        return Ok(ExpressionShapes::All);
    }
    let mut names: Vec<String> = Vec::new();
    for name in text.split(',').map(str::trim) {
        if name.is_empty() || !g4mf_writer::is_valid_name(name) || name.starts_with('.') {
            return Err(bad(format!(
                "`{}` is not an expression name",
                location::text::escape_controls(name)
            )));
        }
        if names.iter().any(|n| n == name) {
            return Err(bad(format!("`{name}` is named twice")));
        }
        names.push(name.to_owned());
    }
    Ok(ExpressionShapes::Named(names))
}

/// `name=value` pairs of a phenotype setting, checked.
pub fn parse_phenotype(text: &str) -> Result<Vec<(String, f64)>, SettingsError> {
    let bad = |why: &str| SettingsError::Phenotype(text.to_owned(), why.to_owned());
    let mut out = Vec::new();
    for pair in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let (name, value) = pair
            .split_once('=')
            .ok_or_else(|| bad("expected name=value"))?;
        let name = name.trim();
        if !mpfb_body::Phenotype::NAMES.contains(&name) {
            return Err(bad(&format!(
                "unknown variable `{name}` (known: {})",
                mpfb_body::Phenotype::NAMES.join(", ")
            )));
        }
        let value: f64 = value
            .trim()
            .parse()
            .ok()
            .filter(|v| (0.0..=1.0).contains(v))
            .ok_or_else(|| bad(&format!("`{name}` must be a number from 0 to 1")))?;
        out.push((name.to_owned(), value));
    }
    Ok(out)
}

/// A `NAME=WEIGHT` target setting, checked.
pub fn parse_target(text: &str) -> Result<(String, f64), SettingsError> {
    let bad = || SettingsError::Target(text.to_owned());
    let (name, weight) = text.split_once('=').ok_or_else(bad)?;
    let weight: f64 = weight
        .trim()
        .parse()
        .ok()
        .filter(|w| (0.0..=1.0).contains(w))
        .ok_or_else(bad)?;
    let name = name.trim();
    if name.is_empty() {
        return Err(bad());
    }
    Ok((name.to_owned(), weight))
}

/// What builds the body from targets, validated.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct BodyOptions {
    /// The `.mhm` or preset file.
    pub human: Option<PathBuf>,
    /// Phenotype values over the file's.
    pub phenotype: Vec<(String, f64)>,
    /// Detail targets after the file's.
    pub targets: Vec<(String, f64)>,
    /// The macro rule.
    pub model: mpfb_body::MacroModel,
    /// Detail targets become blend shapes at their weights instead of being baked.
    pub keep_targets_as_shapes: bool,
}

/// One conversion asked for: settings plus what differs per job.
#[derive(Debug, Clone, Copy)]
pub struct Request<'a> {
    /// The settings.
    pub settings: &'a Settings,
    /// The output file.
    pub output: &'a std::path::Path,
    /// The character's name (default: the output's file stem).
    pub name: Option<&'a str>,
}

/// Mesh scales accepted: from micrometres to kilometres per unit. Outside it a body is a
/// point (bones without direction) or overflows the f32 numbers G4MF stores.
pub const MESH_SCALES: std::ops::RangeInclusive<f64> = 1e-6..=1e6;

impl TryFrom<Request<'_>> for ConvertOptions {
    type Error = SettingsError;

    /// The one place settings are checked.
    fn try_from(request: Request<'_>) -> Result<Self, SettingsError> {
        let s = request.settings;
        if !MESH_SCALES.contains(&s.mesh_scale) {
            return Err(SettingsError::MeshScale(s.mesh_scale));
        }
        if !ZSTD_LEVELS.contains(&s.compress_level) {
            return Err(SettingsError::CompressLevel(s.compress_level));
        }
        let mut options = ConvertOptions::new(request.output);
        options.external_bin = s.external_bin;
        options.pretty = s.pretty;
        options.compression = match s.compress {
            Compress::None => Compression::None,
            Compress::Zstd => Compression::Zstd(s.compress_level),
        };
        options.helpers = if s.keep_helpers {
            Helpers::All
        } else {
            s.helpers
        };
        options.flat = s.flat;
        options.materials = !s.no_materials;
        options.thumbnail = s.thumbnail;
        if s.max_influences == Some(0) {
            return Err(SettingsError::MaxInfluences);
        }
        options.max_influences = s.max_influences;
        if let Some(format) = OutputFormat::of_path(request.output, s.external_bin) {
            if format.is_gltf() {
                refuse_g4mf_only(s, request.output)?;
                // glTF clients read one set of four influences (or only the first set): keep
                // the strongest four, renormalised, as Blender's glTF exporter does.
                options.max_influences = Some(s.max_influences.unwrap_or(GLTF_DEFAULT_INFLUENCES));
            }
            if format == OutputFormat::Vrm {
                options.vrm = Some(vrm_options(s, request.output)?);
            }
        }
        if options.vrm.is_none() {
            refuse_vrm_only(s, request.output)?;
        }
        options.normalize = s.normalize;
        options.rest_pose = s.rest_pose.as_deref().map(|r| match r {
            "t-pose" => RestPose::TPose,
            "straight-t-pose" => RestPose::StraightTPose,
            "vrm-t-pose" => RestPose::VrmTPose,
            file => RestPose::File(PathBuf::from(file)),
        });
        if options.vrm.is_some() {
            // VRM's rest is its T-pose, always (`--rest-pose` is refused for a `.vrm`).
            options.rest_pose = Some(RestPose::VrmTPose);
        }
        // A `.vrm`'s humanoid map is made from G4MF's humanoid names: its bones get them.
        options.humanoid = match (&s.humanoid_map, s.humanoid || options.vrm.is_some()) {
            (Some(path), _) => Some(HumanoidTable::File(path.clone())),
            (None, true) => Some(HumanoidTable::Builtin),
            (None, false) => None,
        };
        options.all_joints = s.all_joints;
        options.group_names = s.group_names;
        options.frame = ObjFrame {
            scale: s.mesh_scale,
            up: s.up_axis,
        };
        options.origin = s.origin;
        options.allow_fallback = s.allow_fallback;
        options.deny = crate::diagnostics::Deny::parse(s.deny.iter().map(String::as_str))?;
        options.any_topology = s.any_topology;
        options.name = request.name.map(str::to_owned);
        options.max_input_bytes = s.max_input_mib.saturating_mul(1 << 20);
        options.bone_map = s.bone_map.clone();
        options.keep_hidden_body = s.keep_hidden_body;
        options.textures = s.textures;
        options.shapes = ShapeOptions {
            face_units: s.face_units,
            visemes: s.visemes,
            named: s
                .blend_shapes
                .iter()
                .map(|t| parse_blend_shape(t))
                .collect::<Result<_, _>>()?,
            units: match &options.vrm {
                Some(vrm) if vrm.expressions => crate::vrm::needed_units(&[]),
                _ => Vec::new(),
            },
            expressions: s
                .expression_shapes
                .as_deref()
                .map(parse_expression_shapes)
                .transpose()?,
        };
        options.expression = s
            .expression
            .as_deref()
            .map(parse_expression_bake)
            .transpose()?;
        options.pose = s.pose.as_deref().map(parse_pose_bake).transpose()?;
        if s.rest_pose.is_some() && options.vrm.is_none() && options.pose.is_some() {
            return Err(SettingsError::Together(
                format!("--pose {}", s.pose.as_deref().unwrap_or_default()),
                "--rest-pose",
                "both bake a pose into the rest; bake one",
            ));
        }
        options.animations = parse_animations(&s.animations)?;
        if !options.animations.is_empty() {
            refuse_clips(request.output, &options.animations, &s.animations)?;
        }
        if s.human.is_some() || s.phenotype.is_some() || !s.targets.is_empty() {
            options.body = Some(BodyOptions {
                human: s.human.clone(),
                phenotype: s
                    .phenotype
                    .as_deref()
                    .map(parse_phenotype)
                    .transpose()?
                    .unwrap_or_default(),
                targets: s
                    .targets
                    .iter()
                    .map(|t| parse_target(t))
                    .collect::<Result<_, _>>()?,
                model: match s.macro_model {
                    MacroRule::Mpfb => mpfb_body::MacroModel::Mpfb,
                    MacroRule::Makehuman1 => mpfb_body::MacroModel::MakeHuman1,
                },
                keep_targets_as_shapes: s.keep_targets_as_shapes,
            });
        }
        Ok(options)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The defaults are spelled once: an empty command line and an empty manifest table both
    /// give `Settings::default()`, whatever clap's and serde's own defaults would be.
    #[cfg(feature = "cli")]
    #[test]
    fn an_empty_command_line_and_an_empty_table_are_the_defaults() {
        use clap::Parser;
        #[derive(clap::Parser)]
        struct Wrap {
            #[command(flatten)]
            settings: Settings,
        }
        let parsed = Wrap::try_parse_from(["convert"]).unwrap().settings;
        assert_eq!(parsed, Settings::default());
        let table: Settings = serde_json::from_str("{}").unwrap();
        assert_eq!(table, Settings::default());
    }

    #[test]
    fn defaults_are_the_documented_ones_and_bad_values_are_refused_once() {
        let settings = Settings::default();
        let request = Request {
            settings: &settings,
            output: std::path::Path::new("x.g4b"),
            name: None,
        };
        let options = ConvertOptions::try_from(request).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(options.frame, ObjFrame::MAKEHUMAN);
        assert!(options.group_names && options.helpers == Helpers::Face);
        assert_eq!(options.compression, Compression::None);
        let bad = |edit: fn(&mut Settings)| {
            let mut s = Settings::default();
            edit(&mut s);
            ConvertOptions::try_from(Request {
                settings: &s,
                ..request
            })
            .err()
            .map(|e| e.to_string())
        };
        assert!(bad(|s| s.mesh_scale = 0.0).is_some_and(|m| m.contains("mesh scale")));
        assert!(bad(|s| s.mesh_scale = f64::NAN).is_some());
        assert!(bad(|s| s.compress_level = 23).is_some_and(|m| m.contains("1 to 22")));
        // Manifest spelling: snake_case keys, unknown keys refused, defaults for the rest.
        let from_json: Settings =
            serde_json::from_str(r#"{"keep_helpers": true, "compress": "zstd", "up_axis": "z"}"#)
                .unwrap_or_default();
        assert!(from_json.keep_helpers && from_json.compress == Compress::Zstd);
        assert_eq!(from_json.up_axis, UpAxis::Z);
        assert_eq!(from_json.mesh_scale, 0.1);
        assert!(serde_json::from_str::<Settings>(r#"{"keep_helper": true}"#).is_err());
    }

    #[test]
    fn a_vrm_takes_its_own_t_pose_asked_or_not_and_refuses_another_rest() {
        let vrm = |rest_pose: Option<&str>| {
            let settings = Settings {
                rest_pose: rest_pose.map(str::to_owned),
                ..Settings::default()
            };
            ConvertOptions::try_from(Request {
                settings: &settings,
                output: std::path::Path::new("x.vrm"),
                name: None,
            })
            .map(|o| o.rest_pose)
            .map_err(|e| e.to_string())
        };
        assert_eq!(vrm(None), Ok(Some(RestPose::VrmTPose)));
        assert_eq!(vrm(Some("vrm-t-pose")), Ok(Some(RestPose::VrmTPose)));
        for other in ["t-pose", "straight-t-pose", "pose.bvh"] {
            let refused = vrm(Some(other)).unwrap_err();
            assert!(
                refused.contains(&format!("--rest-pose {other}")),
                "{refused}"
            );
        }
    }
}
