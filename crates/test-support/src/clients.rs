//! Running the external glTF clients of `clients/` (the Khronos glTF-Validator, three.js's
//! GLTFLoader, @pixiv/three-vrm on `.vrm` files: [`vrm`], and three.js drawing in headless
//! chromium: [`render`]) on files a test wrote, and skipping loudly when node, their packages or
//! chromium are absent.
//!
//! The clients are npm packages pinned by `clients/package-lock.json` and installed into
//! `clients/node_modules` by `npm ci --prefix clients` ([`CLIENTS_INSTALL`]; `.ci/run` runs it
//! before the tests). Without node on `PATH` or without those packages, a test that asks for a
//! client prints one `SKIPPED <test>: ...` line and gets `None`, or fails when `CI` or
//! `MPFB_DATA_REQUIRED` is set ([`crate::skip_or_fail`], as the data tests do).
//!
//! Each call runs one node process over every file it is given, so a test should pass all its
//! files at once.
//!
//! ```no_run
//! # let files: Vec<std::path::PathBuf> = Vec::new();
//! use test_support::clients;
//!
//! let Some(reports) = clients::gltf_validator("my_test", &files) else { return };
//! clients::assert_no_validator_issues(&reports);
//! let Some(loaded) = clients::three_load("my_test", &files) else { return };
//! clients::assert_no_three_errors(&loaded);
//! ```

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;

use serde::Deserialize;
use serde_json::Value;

use crate::{skip_or_fail, workspace_root};

pub mod render;
pub mod vrm;

pub use vrm::{VrmLoadOptions, VrmReport, assert_no_vrm_errors, vrm_load, vrm_load_with};

/// The command, run at the repository root, that installs the clients' pinned packages.
pub const CLIENTS_INSTALL: &str = "npm ci --prefix clients";

/// The oldest node major version the clients are tested with.
pub const NODE_MIN_MAJOR: u32 = 20;

/// The script that runs the Khronos glTF-Validator (`clients/gltf-validate.mjs`).
pub const GLTF_VALIDATE: &str = "gltf-validate.mjs";

/// The script that loads files with three.js's GLTFLoader (`clients/three-load.mjs`).
pub const THREE_LOAD: &str = "three-load.mjs";

/// The `clients/` folder of the repository: the scripts, `package.json`, the lock file and,
/// once installed, `node_modules`.
pub fn clients_dir() -> PathBuf {
    workspace_root().join("clients")
}

/// The node executable and the installed packages, checked once per test process, or why a
/// test cannot run them.
fn setup() -> &'static Result<PathBuf, String> {
    static SETUP: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    SETUP.get_or_init(|| {
        let node = find_node()?;
        check_packages(&clients_dir())?;
        Ok(node)
    })
}

/// `node` on `PATH`, at least [`NODE_MIN_MAJOR`].
fn find_node() -> Result<PathBuf, String> {
    let install = format!(
        "install Node.js {NODE_MIN_MAJOR} or later, then run `{CLIENTS_INSTALL}` at the repository root"
    );
    let node = std::env::var_os("PATH")
        .iter()
        .flat_map(std::env::split_paths)
        .map(|dir| dir.join("node"))
        .find(|candidate| candidate.is_file())
        .ok_or_else(|| format!("no `node` on PATH ({install})"))?;
    let output = Command::new(&node)
        .arg("--version")
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("{} does not run: {e} ({install})", node.display()))?;
    let version = String::from_utf8_lossy(&output.stdout).trim().to_string();
    let major = version
        .strip_prefix('v')
        .and_then(|v| v.split('.').next())
        .and_then(|m| m.parse::<u32>().ok());
    match major {
        Some(major) if output.status.success() && major >= NODE_MIN_MAJOR => Ok(node),
        _ => Err(format!(
            "{} is version `{version}`, older than {NODE_MIN_MAJOR} or unreadable ({install})",
            node.display()
        )),
    }
}

/// Every dependency `clients/package.json` pins is installed in `clients/node_modules` at
/// exactly that version (an install from before a version bump does not count).
fn check_packages(clients: &Path) -> Result<(), String> {
    let manifest = clients.join("package.json");
    let text = std::fs::read_to_string(&manifest)
        .unwrap_or_else(|e| panic!("{} is unreadable: {e}", manifest.display()));
    let manifest: PackageJson = serde_json::from_str(&text)
        .unwrap_or_else(|e| panic!("{} is not a package.json: {e}", manifest.display()));
    let modules = clients.join("node_modules");
    if !modules.is_dir() {
        return Err(format!(
            "{} is missing (run `{CLIENTS_INSTALL}` at the repository root)",
            modules.display()
        ));
    }
    let mut stale = Vec::new();
    for (name, pinned) in &manifest.dependencies {
        let installed = std::fs::read_to_string(modules.join(name).join("package.json"))
            .ok()
            .and_then(|t| serde_json::from_str::<PackageJson>(&t).ok())
            .and_then(|p| p.version);
        match installed {
            Some(v) if &v == pinned => {}
            Some(v) => stale.push(format!("{name} {v} instead of {pinned}")),
            None => stale.push(format!("no {name} {pinned}")),
        }
    }
    if stale.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "{} has {} (run `{CLIENTS_INSTALL}` at the repository root)",
            modules.display(),
            stale.join(", ")
        ))
    }
}

/// The parts of a `package.json` read here.
#[derive(Deserialize)]
struct PackageJson {
    version: Option<String>,
    #[serde(default)]
    dependencies: BTreeMap<String, String>,
}

/// Runs `clients/<script>` under node on `files` (all in one process) and returns the JSON
/// document it prints; `None` after [`skip_or_fail`] when node or the clients' packages are
/// missing, with the command that installs them.
///
/// Panics when the script itself fails (it exits non-zero only when it cannot run at all, e.g.
/// a file it was given is unreadable) or prints something that is not JSON.
pub fn node_client<P: AsRef<Path>>(test_name: &str, script: &str, files: &[P]) -> Option<Value> {
    node_client_with(test_name, script, &[], files)
}

/// [`node_client`] with `arguments` (the script's options) before the files.
pub fn node_client_with<P: AsRef<Path>>(
    test_name: &str,
    script: &str,
    arguments: &[String],
    files: &[P],
) -> Option<Value> {
    let node = match setup() {
        Ok(node) => node,
        Err(why) => {
            skip_or_fail(test_name, &format!("no external glTF clients: {why}"));
            return None;
        }
    };
    let script_path = clients_dir().join(script);
    assert!(
        script_path.is_file(),
        "{} is not in the repository",
        script_path.display()
    );
    let output = Command::new(node)
        .arg(&script_path)
        .args(arguments)
        .args(files.iter().map(AsRef::as_ref))
        .stdin(Stdio::null())
        .output()
        .unwrap_or_else(|e| panic!("{} {script} does not start: {e}", node.display()));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "{test_name}: node {script} failed ({}):\n{stderr}",
        output.status
    );
    let value = serde_json::from_slice(&output.stdout).unwrap_or_else(|e| {
        panic!(
            "{test_name}: node {script} printed no JSON document ({e}):\n{}\n{stderr}",
            String::from_utf8_lossy(&output.stdout)
        )
    });
    Some(value)
}

/// Runs a client and reads its array of per-file reports, one per file in order.
fn reports<T: serde::de::DeserializeOwned, P: AsRef<Path>>(
    test_name: &str,
    script: &str,
    arguments: &[String],
    files: &[P],
) -> Option<Vec<T>> {
    let value = node_client_with(test_name, script, arguments, files)?;
    let reports: Vec<T> = serde_json::from_value(value)
        .unwrap_or_else(|e| panic!("{test_name}: {script} printed an unexpected report: {e}"));
    assert_eq!(
        reports.len(),
        files.len(),
        "{test_name}: {script} reported on {} of {} files",
        reports.len(),
        files.len()
    );
    Some(reports)
}

/// The Khronos glTF-Validator's reports on `files` (`.gltf` or `.glb`; external resources are
/// read from each file's own folder), in order; `None` when the client is missing (see
/// [`node_client`]).
pub fn gltf_validator<P: AsRef<Path>>(
    test_name: &str,
    files: &[P],
) -> Option<Vec<ValidatorReport>> {
    reports(test_name, GLTF_VALIDATE, &[], files)
}

/// What three.js's GLTFLoader made of `files` (`.gltf` or `.glb`; external resources are read
/// from each file's own folder), in order; `None` when the client is missing (see
/// [`node_client`]).
pub fn three_load<P: AsRef<Path>>(test_name: &str, files: &[P]) -> Option<Vec<ThreeReport>> {
    reports(test_name, THREE_LOAD, &[], files)
}

/// Panics listing every error and warning of `reports` (file, severity, code, JSON pointer or
/// byte offset, message); infos and hints are allowed.
pub fn assert_no_validator_issues<'r>(reports: impl IntoIterator<Item = &'r ValidatorReport>) {
    let mut lines = Vec::new();
    for report in reports {
        for m in report
            .messages
            .iter()
            .filter(|m| m.severity.at_least_warning())
        {
            lines.push(format!("{}: {m}", report.file));
        }
    }
    assert!(
        lines.is_empty(),
        "the glTF-Validator found {} errors and warnings:\n{}",
        lines.len(),
        lines.join("\n")
    );
}

/// Panics listing every error three.js's GLTFLoader logged or the loading script found (a file
/// that did not load, a texture that did not, bones that did not resolve).
pub fn assert_no_three_errors<'r>(reports: impl IntoIterator<Item = &'r ThreeReport>) {
    let lines: Vec<String> = reports
        .into_iter()
        .flat_map(|r| r.errors.iter().map(move |e| format!("{}: {e}", r.file)))
        .collect();
    assert!(
        lines.is_empty(),
        "three.js's GLTFLoader had {} errors:\n{}",
        lines.len(),
        lines.join("\n")
    );
}

/// The glTF-Validator's report on one file (`clients/gltf-validate.mjs`).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ValidatorReport {
    /// The file as it was passed to the script.
    pub file: String,
    /// The validator's version.
    pub validator_version: String,
    /// `model/gltf+json` or `model/gltf-binary`, when the validator could tell.
    pub mime_type: Option<String>,
    /// How many messages are errors.
    pub num_errors: usize,
    /// How many messages are warnings.
    pub num_warnings: usize,
    /// How many messages are infos.
    pub num_infos: usize,
    /// How many messages are hints.
    pub num_hints: usize,
    /// True when the validator stopped listing messages (never: the script asks for all).
    pub truncated: bool,
    /// Every message, in the validator's order.
    pub messages: Vec<ValidatorMessage>,
    /// The validator's summary of the asset; `None` when it could not read the asset at all.
    pub info: Option<ValidatorInfo>,
}

impl ValidatorReport {
    /// The codes of the messages of `severity`, in order (repeated as often as they occur).
    pub fn codes(&self, severity: Severity) -> Vec<&str> {
        self.messages
            .iter()
            .filter(|m| m.severity == severity)
            .map(|m| m.code.as_str())
            .collect()
    }
}

/// One message of the glTF-Validator.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct ValidatorMessage {
    /// The issue code, e.g. `ACCESSOR_INDEX_OOB`.
    pub code: String,
    /// How bad it is.
    pub severity: Severity,
    /// The JSON pointer of the object it is about, when it is about one.
    pub pointer: Option<String>,
    /// The byte offset it is about in a GLB, when it is about one.
    pub offset: Option<u64>,
    /// The validator's text.
    pub message: String,
}

impl std::fmt::Display for ValidatorMessage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:?} {}", self.severity, self.code)?;
        match (&self.pointer, self.offset) {
            (Some(pointer), _) => write!(f, " at {pointer:?}")?,
            (None, Some(offset)) => write!(f, " at byte {offset}")?,
            (None, None) => {}
        }
        write!(f, ": {}", self.message)
    }
}

/// The severity of a validator message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// The asset breaks the specification.
    Error,
    /// The asset is valid but likely to be wrong or to load badly.
    Warning,
    /// Worth knowing.
    Info,
    /// A suggestion.
    Hint,
}

impl Severity {
    /// True for errors and warnings, the severities tests refuse.
    pub fn at_least_warning(self) -> bool {
        matches!(self, Severity::Error | Severity::Warning)
    }
}

/// The validator's `info` section: what the asset holds, as the validator counted it (a field
/// the validator left out reads as empty or zero).
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct ValidatorInfo {
    /// `asset.version`.
    pub version: Option<String>,
    /// `asset.generator`.
    pub generator: Option<String>,
    /// Every buffer and image, with where it is stored and (images) its decoded header.
    pub resources: Vec<ValidatorResource>,
    /// `extensionsUsed`.
    pub extensions_used: Vec<String>,
    /// `extensionsRequired`.
    pub extensions_required: Vec<String>,
    /// How many animations.
    pub animation_count: usize,
    /// How many materials.
    pub material_count: usize,
    /// Whether any primitive has morph targets.
    pub has_morph_targets: bool,
    /// Whether any skin is used.
    pub has_skins: bool,
    /// Whether any texture is used.
    pub has_textures: bool,
    /// Whether `scene` names a default scene.
    pub has_default_scene: bool,
    /// How many primitives the default scene draws.
    pub draw_call_count: usize,
    /// How many vertices the default scene draws.
    pub total_vertex_count: usize,
    /// How many triangles the default scene draws.
    pub total_triangle_count: usize,
    /// The most texture-coordinate sets a primitive has.
    #[serde(rename = "maxUVs")]
    pub max_uvs: usize,
    /// The most joint influences a vertex can have (4 per `JOINTS_n` set).
    pub max_influences: usize,
    /// The most attributes a primitive has.
    pub max_attributes: usize,
    /// Anything else the validator put in `info`.
    #[serde(flatten)]
    pub other: serde_json::Map<String, Value>,
}

/// A buffer or image the validator read.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ValidatorResource {
    /// Its JSON pointer, e.g. `/buffers/0`.
    pub pointer: String,
    /// Its media type.
    pub mime_type: Option<String>,
    /// `glb`, `data-uri`, `buffer-view` or `external`.
    pub storage: String,
    /// Its URI when external.
    pub uri: Option<String>,
    /// Its length (buffers).
    pub byte_length: Option<u64>,
    /// The image's header as the validator decoded it (images).
    pub image: Option<Value>,
}

/// What three.js's GLTFLoader made of one file (`clients/three-load.mjs`), read from the
/// objects it built.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ThreeReport {
    /// The file as it was passed to the script.
    pub file: String,
    /// How many scenes.
    pub scenes: usize,
    /// How many distinct glTF nodes the scenes hold.
    pub nodes: usize,
    /// How many three.js objects the scenes hold, below their roots (a mesh of several
    /// primitives is a group with one object per primitive).
    pub objects: usize,
    /// Every skinned mesh (one per primitive), in scene order.
    pub skinned_meshes: Vec<ThreeSkinnedMesh>,
    /// Every other mesh (one per primitive), in scene order.
    pub meshes: Vec<ThreeMesh>,
    /// How many bones the scenes hold.
    pub bones: usize,
    /// Every material the meshes use, in order of first use.
    pub materials: Vec<ThreeMaterial>,
    /// How many distinct textures the materials use.
    pub textures: usize,
    /// The size of each distinct image the textures use (read from its header).
    pub images: Vec<ThreeImage>,
    /// Every animation clip.
    pub animations: Vec<ThreeAnimation>,
    /// What went wrong: errors GLTFLoader logged, a file that did not load, a refused or
    /// undecodable resource, skeleton bones that did not resolve.
    pub errors: Vec<String>,
    /// Warnings GLTFLoader logged.
    pub warnings: Vec<String>,
}

impl ThreeReport {
    /// The skinned mesh named `name`, if there is one.
    pub fn skinned_mesh(&self, name: &str) -> Option<&ThreeSkinnedMesh> {
        self.skinned_meshes.iter().find(|m| m.mesh.name == name)
    }
}

/// A mesh (one primitive) as three.js holds it.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ThreeMesh {
    /// Its name (three.js makes names unique).
    pub name: String,
    /// Vertices in its geometry.
    pub vertex_count: usize,
    /// Triangles (indices, or vertices when unindexed, over three).
    pub triangle_count: usize,
    /// three.js's attribute names (`position`, `normal`, `uv`, `skinIndex`, ...; glTF names
    /// three does not know come lowercased, e.g. `joints_1`).
    pub attributes: Vec<String>,
    /// Morph target names in index order (from `morphTargetDictionary`; `None` for a target
    /// without one).
    pub morph_targets: Vec<Option<String>>,
    /// The names of its materials.
    pub materials: Vec<String>,
}

/// A skinned mesh as three.js holds it, with its skeleton.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ThreeSkinnedMesh {
    /// Its geometry, morph targets and materials.
    #[serde(flatten)]
    pub mesh: ThreeMesh,
    /// Its skeleton's bone names, in skeleton (joint) order.
    pub bones: Vec<Option<String>>,
    /// How many joints the glTF skin names (`None` when the mesh's node could not be found).
    pub joints: Option<usize>,
    /// How many inverse bind matrices the skeleton has.
    pub bone_inverses: usize,
    /// Joints that did not become bones in the scene (missing, or outside it).
    pub unresolved_bones: usize,
    /// Components of `skinIndex` (4, or 0 without it).
    pub influences_per_vertex: usize,
    /// Components of `skinWeight` (4, or 0 without it).
    pub weights_per_vertex: usize,
    /// Whether a `JOINTS_1`/`WEIGHTS_1` set came along (three.js skins with the first only).
    pub second_influence_set: bool,
}

/// A material as three.js holds it.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ThreeMaterial {
    /// Its name.
    pub name: String,
    /// Its three.js type, e.g. `MeshStandardMaterial`.
    #[serde(rename = "type")]
    pub kind: String,
    /// Whether it has a base-colour texture.
    pub map: bool,
    /// Whether it has a normal texture.
    pub normal_map: bool,
    /// Whether it has a roughness texture.
    pub roughness_map: bool,
    /// Whether it has a metalness texture.
    pub metalness_map: bool,
    /// Whether it has an occlusion texture.
    pub ao_map: bool,
    /// Whether it has an emissive texture.
    pub emissive_map: bool,
    /// Whether it is blended.
    pub transparent: bool,
    /// Its alpha cutoff (0 when not masked).
    pub alpha_test: f64,
    /// `front`, `back` or `double`.
    pub side: String,
    /// Its colour (linear), when it has one.
    pub color: Option<[f64; 3]>,
    /// Its opacity.
    pub opacity: f64,
    /// Its roughness factor (PBR materials).
    pub roughness: Option<f64>,
    /// Its metalness factor (PBR materials).
    pub metalness: Option<f64>,
    /// Whether it uses vertex colours.
    pub vertex_colors: bool,
}

/// An image's size as read from its header (nothing is decoded).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
pub struct ThreeImage {
    /// Width in pixels.
    pub width: Option<u32>,
    /// Height in pixels.
    pub height: Option<u32>,
}

/// An animation clip as three.js holds it.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ThreeAnimation {
    /// Its name.
    pub name: String,
    /// Its length in seconds.
    pub duration: f64,
    /// How many tracks.
    pub tracks: usize,
    /// Each track's name (`node.property`).
    pub track_names: Vec<String>,
}
