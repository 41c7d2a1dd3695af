//! Drawing glTF files as an engine does: `clients/render.mjs` runs three.js's `GLTFLoader` and
//! `WebGLRenderer` in headless chromium (Debian's `chromium`, WebGL through SwiftShader) and
//! writes one PNG with every view of every file side by side. A `.vrm` is loaded through
//! @pixiv/three-vrm's `VRMLoaderPlugin` and drawn as a VRM viewer draws it.
//!
//! [`Renderer::find`] checks for chromium, node and the clients' packages and says in one line
//! what is missing; [`Renderer::render`] draws (used by `cargo xtask pictures`, which fails on
//! that line). Tests call [`render`], which prints the usual `SKIPPED <test>: ...` line instead
//! (or fails when `CI` or `MPFB_DATA_REQUIRED` is set, see [`crate::skip_or_fail`]).

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde::Deserialize;

use super::{clients_dir, setup};
use crate::skip_or_fail;

/// The script that draws files with three.js in chromium (`clients/render.mjs`).
pub const RENDER: &str = "render.mjs";

/// The environment variable naming the chromium executable to draw with.
pub const CHROMIUM_ENV: &str = "CHROMIUM";

/// The executables looked for on `PATH`, in order, when [`CHROMIUM_ENV`] is not set.
pub const CHROMIUM_NAMES: [&str; 4] = [
    "chromium",
    "chromium-browser",
    "google-chrome",
    "google-chrome-stable",
];

/// Where a view's camera looks from (glTF's front is +Z, up +Y).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum View {
    /// From +Z: the model's front.
    Front,
    /// From +X+Z, halfway between front and side.
    ThreeQuarter,
    /// From +X: the model's left side (its face looks left in the picture).
    Side,
    /// From -Z: the model's back.
    Back,
}

impl View {
    /// The view's name for `render.mjs --views`.
    pub fn as_str(self) -> &'static str {
        match self {
            View::Front => "front",
            View::ThreeQuarter => "three-quarter",
            View::Side => "side",
            View::Back => "back",
        }
    }
}

/// What to draw: the views of each file, one `width` x `height` tile each, on `background`.
#[derive(Debug, Clone, PartialEq)]
pub struct RenderOptions {
    /// The views of each file, left to right (each file's views, then the next file's).
    pub views: Vec<View>,
    /// Tile width in pixels.
    pub width: u32,
    /// Tile height in pixels.
    pub height: u32,
    /// The background (sRGB); `None`: the script's neutral grey.
    pub background: Option<[u8; 3]>,
    /// How long the page may take, in seconds; `None`: the script's default (120).
    pub timeout_seconds: Option<u32>,
}

impl Default for RenderOptions {
    fn default() -> Self {
        Self {
            views: vec![View::Front],
            width: 512,
            height: 512,
            background: None,
            timeout_seconds: None,
        }
    }
}

/// Chromium, node and the clients' packages, found.
#[derive(Debug, Clone)]
pub struct Renderer {
    node: PathBuf,
    chromium: PathBuf,
}

impl Renderer {
    /// Chromium ([`CHROMIUM_ENV`], else the first of [`CHROMIUM_NAMES`] on `PATH`), then node
    /// and the pinned packages, or one line saying what is missing and how to install it.
    pub fn find() -> Result<Renderer, String> {
        let chromium = find_chromium()?;
        let node = setup().clone()?;
        Ok(Renderer { node, chromium })
    }

    /// The chromium executable used.
    pub fn chromium(&self) -> &Path {
        &self.chromium
    }

    /// Draws `files` (`.gltf`, `.glb`, `.vrm`) into `output` (PNG) and returns the script's report;
    /// `Err` with the script's reason when it could not draw at all (a file that does not load
    /// is in its report's `errors` instead).
    pub fn render<P: AsRef<Path>>(
        &self,
        files: &[P],
        output: &Path,
        options: &RenderOptions,
    ) -> Result<RenderReport, String> {
        let views: Vec<&str> = options.views.iter().map(|v| v.as_str()).collect();
        let mut command = Command::new(&self.node);
        command
            .arg(clients_dir().join(RENDER))
            .arg("--chromium")
            .arg(&self.chromium)
            .args(["--views", &views.join(",")])
            .args(["--size", &format!("{}x{}", options.width, options.height)])
            .arg("-o")
            .arg(output);
        if let Some([r, g, b]) = options.background {
            command.args(["--background", &format!("{r:02x}{g:02x}{b:02x}")]);
        }
        if let Some(seconds) = options.timeout_seconds {
            command.args(["--timeout", &seconds.to_string()]);
        }
        let out = command
            .args(files.iter().map(AsRef::as_ref))
            .stdin(Stdio::null())
            .output()
            .map_err(|e| format!("{} does not start: {e}", self.node.display()))?;
        if !out.status.success() {
            let stderr = String::from_utf8_lossy(&out.stderr);
            return Err(stderr.trim().to_string());
        }
        serde_json::from_slice(&out.stdout)
            .map_err(|e| format!("{RENDER} printed an unexpected report: {e}"))
    }
}

/// [`CHROMIUM_ENV`] when set (it must be an executable), else the first of [`CHROMIUM_NAMES`]
/// on `PATH`.
fn find_chromium() -> Result<PathBuf, String> {
    if let Some(named) = std::env::var_os(CHROMIUM_ENV) {
        let named = PathBuf::from(named);
        return if is_executable(&named) {
            Ok(named)
        } else {
            Err(format!(
                "{} ({CHROMIUM_ENV}) is not an executable chromium",
                named.display()
            ))
        };
    }
    let dirs: Vec<PathBuf> = std::env::var_os("PATH")
        .iter()
        .flat_map(std::env::split_paths)
        .collect();
    CHROMIUM_NAMES
        .iter()
        .flat_map(|name| dirs.iter().map(move |dir| dir.join(name)))
        .find(|candidate| is_executable(candidate))
        .ok_or_else(|| {
            format!(
                "no chromium on PATH ({}): install Debian's `chromium` (`apt-get install chromium`) or set {CHROMIUM_ENV}",
                CHROMIUM_NAMES.join(", ")
            )
        })
}

fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// [`Renderer::render`] for a test: `None` after a `SKIPPED <test>: ...` line (or a failure when
/// `CI` or `MPFB_DATA_REQUIRED` is set) when chromium, node or the clients are missing; panics
/// when the script cannot draw.
pub fn render<P: AsRef<Path>>(
    test_name: &str,
    files: &[P],
    output: &Path,
    options: &RenderOptions,
) -> Option<RenderReport> {
    let renderer = match Renderer::find() {
        Ok(renderer) => renderer,
        Err(why) => {
            skip_or_fail(test_name, &format!("no renderer: {why}"));
            return None;
        }
    };
    let report = renderer
        .render(files, output, options)
        .unwrap_or_else(|why| panic!("{test_name}: {RENDER} could not draw: {why}"));
    assert_eq!(
        report.files.len(),
        files.len(),
        "{test_name}: {RENDER} reported on {} of {} files",
        report.files.len(),
        files.len()
    );
    Some(report)
}

/// What `clients/render.mjs` drew.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RenderReport {
    /// The PNG written, as passed to the script.
    pub output: String,
    /// The picture's width in pixels (tiles side by side).
    pub width: u32,
    /// The picture's height in pixels.
    pub height: u32,
    /// One tile's width.
    pub tile_width: u32,
    /// One tile's height.
    pub tile_height: u32,
    /// The views of each file, left to right.
    pub views: Vec<String>,
    /// The background, `#rrggbb`.
    pub background: String,
    /// The chromium executable.
    pub chromium: String,
    /// Chromium's user agent (its version).
    pub user_agent: String,
    /// The WebGL renderer chromium drew with (SwiftShader's).
    pub webgl: String,
    /// Wall time of the whole run, chromium's start and stop included.
    pub milliseconds: u64,
    /// Per file, in order.
    pub files: Vec<RenderedFile>,
}

/// One file as the page loaded and drew it.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RenderedFile {
    /// The file's absolute path.
    pub file: String,
    /// Whether `GLTFLoader` loaded it.
    pub loaded: bool,
    /// For a `.vrm` three-vrm made a VRM of: what it is (`None` for glTF files and for a
    /// `.vrm` it made none of, which is an error).
    #[serde(default)]
    pub vrm: Option<RenderedVrm>,
    /// How many meshes (three.js objects: one per glTF primitive).
    pub meshes: usize,
    /// How many of them are skinned.
    pub skinned_meshes: usize,
    /// Triangles drawn per view.
    pub triangles: usize,
    /// Distinct materials.
    pub materials: usize,
    /// The box framed: every vertex where it is drawn (skinned by its bones at rest), world
    /// space; `None` when nothing was drawn.
    #[serde(rename = "box")]
    pub bounds: Option<Bounds>,
    /// Time to load and draw this file in the page.
    pub milliseconds: u64,
    /// What went wrong: a file that did not load, errors three.js logged.
    pub errors: Vec<String>,
    /// Warnings three.js logged.
    pub warnings: Vec<String>,
}

/// A `.vrm` as three-vrm loaded it for drawing (`vrm.scene` drawn after `vrm.update(0)`; a VRM
/// 0.x model turned to face +Z).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RenderedVrm {
    /// `"1"` for VRM 1.0, `"0"` for VRM 0.x.
    pub meta_version: Option<String>,
    /// The model's name from its meta.
    pub name: Option<String>,
}

/// An axis-aligned box, metres.
#[derive(Debug, Clone, Copy, PartialEq, Deserialize)]
pub struct Bounds {
    /// Smallest x, y, z.
    pub min: [f64; 3],
    /// Largest x, y, z.
    pub max: [f64; 3],
}
