//! The `mpfb2g4mf` command: the command line (`Cli`), `main`, and what every command shares
//! (output paths, reading a G4MF file, writing to standard output, the one error line); each
//! command's arguments and run are in `commands/` (`convert` and `demo`, `batch`, `preview`,
//! the commands that read files back, `data`, `codes` and `report`).

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

/// A glTF output path (a usage error otherwise, exit code 2).
fn gltf_output_path(text: &str) -> Result<PathBuf, String> {
    let path = PathBuf::from(text);
    match OutputFormat::of_path(&path, false) {
        Some(format) if format.is_gltf() => Ok(path),
        _ => Err("the output must end in .glb or .gltf (glTF 2.0), or .vrm (VRM 1.0)".into()),
    }
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

// One module a command (or a family of them); each sees this file's imports and helpers.
#[path = "commands/convert.rs"]
mod convert_command;
use convert_command::*;
#[path = "commands/files.rs"]
mod files_command;
use files_command::*;
#[path = "commands/preview.rs"]
mod preview_command;
use preview_command::*;
#[path = "commands/batch.rs"]
mod batch_command;
use batch_command::*;
#[path = "commands/data.rs"]
mod data_command;
use data_command::*;
#[path = "commands/diagnostics.rs"]
mod diagnostics_command;
use diagnostics_command::*;

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

fn human_size(bytes: u64) -> String {
    if bytes >= 1 << 20 {
        format!("{:.2} MiB", bytes as f64 / f64::from(1 << 20))
    } else {
        format!("{:.1} KiB", bytes as f64 / 1024.0)
    }
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
        for source in [
            include_str!("main.rs"),
            include_str!("commands/batch.rs"),
            include_str!("commands/convert.rs"),
            include_str!("commands/data.rs"),
            include_str!("commands/diagnostics.rs"),
            include_str!("commands/files.rs"),
            include_str!("commands/preview.rs"),
        ] {
            assert!(!source.contains(&exit));
        }
    }
}
