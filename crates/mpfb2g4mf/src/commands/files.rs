//! The commands that read G4MF files back: `validate`, `inspect`, `to-mpfb` and `to-gltf`.

use super::*;

#[derive(Clone, Copy, ValueEnum)]
pub(crate) enum ReportFormat {
    /// One line per finding.
    Human,
    /// A JSON report per file (an array when several files are given).
    Json,
}

#[derive(Args)]
pub(crate) struct ValidateArgs {
    /// The files to check.
    #[arg(required = true)]
    pub(crate) files: Vec<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = ReportFormat::Human)]
    pub(crate) format: ReportFormat,
    #[command(flatten)]
    pub(crate) read: ReadArgs,
    /// Also check a profile: `humanoid` (G4MF's bipedal humanoid bone names and hierarchy).
    #[arg(long, value_enum)]
    pub(crate) profile: Option<ProfileArg>,
}

#[derive(Clone, Copy, ValueEnum)]
pub(crate) enum ProfileArg {
    /// G4MF's bipedal humanoid skeleton.
    Humanoid,
}

#[derive(Args)]
pub(crate) struct InspectArgs {
    /// The file.
    pub(crate) file: PathBuf,
    #[command(flatten)]
    pub(crate) read: ReadArgs,
}

#[derive(Args)]
pub(crate) struct ToMpfbArgs {
    /// The G4MF file (.g4b or .g4tf).
    pub(crate) input: PathBuf,
    /// Where to write rig.NAME.json and weights.NAME.json.
    #[arg(long)]
    pub(crate) out_dir: PathBuf,
    /// NAME in the file names (default: the rig file recorded in the G4MF, else the input's stem).
    #[arg(long)]
    pub(crate) name: Option<String>,
    /// Base mesh to derive position strategies for skeletons without MPFB extras
    /// (default: 3dobjs/base.obj of --mpfb-data / $MPFB_DATA, when found).
    #[arg(long)]
    pub(crate) mesh: Option<PathBuf>,
    /// MPFB data folder to take the base mesh from.
    #[arg(long)]
    pub(crate) mpfb_data: Option<PathBuf>,
    /// Mesh units to metres for --mesh (the bounds `convert --mesh-scale` has).
    #[arg(long, default_value_t = 0.1, value_parser = mesh_scale)]
    pub(crate) mesh_scale: f64,
    #[command(flatten)]
    pub(crate) read: ReadArgs,
    /// The OBJ's up axis for --mesh.
    #[arg(long, value_enum, default_value_t = UpAxis::Y)]
    pub(crate) up_axis: UpAxis,
    /// Print nothing but errors.
    #[arg(long, short)]
    pub(crate) quiet: bool,
}

#[derive(Args)]
pub(crate) struct ToGltfArgs {
    /// The G4MF file (.g4b or .g4tf).
    pub(crate) input: PathBuf,
    /// The glTF file: .glb (binary) or .gltf (text), or a VRM 1.0 avatar (.vrm: the character
    /// needs G4MF's humanoid names and VRM's T-pose as its rest, as `convert --humanoid
    /// --rest-pose vrm-t-pose` gives).
    #[arg(short, long, value_parser = gltf_output_path)]
    pub(crate) output: PathBuf,
    /// With .gltf: write the buffer to a .bin file beside it instead of embedding it.
    #[arg(long)]
    pub(crate) external_bin: bool,
    /// Pretty-print the JSON.
    #[arg(long)]
    pub(crate) pretty: bool,
    /// Keep each vertex's N strongest influences, renormalised (four make the one set every
    /// client reads; more write further JOINTS_n/WEIGHTS_n sets).
    #[arg(long, value_name = "N", default_value_t = 4, value_parser = clap::value_parser!(u16).range(1..))]
    pub(crate) max_influences: u16,
    /// Check the document (every index in range, every required property) before writing.
    #[arg(long)]
    pub(crate) validate: bool,
    /// Stop, writing nothing, when the conversion would say this diagnostic code, or any
    /// warning with `warnings` (repeatable).
    #[arg(long, value_name = "CODE|warnings", value_parser = mpfb2g4mf::options::deny_value)]
    pub(crate) deny: Vec<String>,
    #[command(flatten)]
    pub(crate) vrm: VrmArgs,
    #[command(flatten)]
    pub(crate) read: ReadArgs,
    /// Print nothing but errors.
    #[arg(long, short)]
    pub(crate) quiet: bool,
}

/// What a `.vrm` made by `to-gltf` says of itself (`convert` reads the same flags as
/// settings).
#[derive(Args)]
pub(crate) struct VrmArgs {
    /// A .vrm's author (repeatable; default: mpfb2g4mf and MakeHuman community).
    #[arg(long = "vrm-author", value_name = "NAME")]
    pub(crate) authors: Vec<String>,
    /// The rights a .vrm grants: conservative (VRM's defaults) or cc0 (everything allowed).
    #[arg(long, value_enum, default_value_t = mpfb2g4mf::vrm::LicensePreset::Conservative)]
    pub(crate) vrm_license: mpfb2g4mf::vrm::LicensePreset,
    /// One .vrm meta field over the preset, by VRM's name (repeatable), e.g.
    /// `avatarPermission=everyone`.
    #[arg(long = "vrm-meta", value_name = "FIELD=VALUE")]
    pub(crate) meta: Vec<String>,
    /// A .vrm without expression presets.
    #[arg(long)]
    pub(crate) no_expressions: bool,
}

impl VrmArgs {
    /// The options asked for, for a `.vrm` `output`; a usage error for another output.
    pub(crate) fn options(&self, output: &Path) -> Result<Option<mpfb2g4mf::vrm::VrmOptions>> {
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

/// `validate`'s answer to a glTF file: [`gltf_refusal`] instead of its report. A glTF file is
/// never valid G4MF, so only a file that fails is sniffed, by the readers' rule (a file that
/// cannot be read keeps its report, which says so).
pub(crate) fn refuse_invalid_gltf(
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

pub(crate) fn run_validate(args: ValidateArgs) -> Result<ExitCode> {
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

pub(crate) fn run_inspect(args: InspectArgs) -> Result<()> {
    let file = read_g4mf(&args.file, &args.read.options(), "inspect")?;
    let size = std::fs::metadata(&args.file).map(|m| m.len()).unwrap_or(0);
    out!("{}", mpfb2g4mf::inspect::inspect(&file, size))?;
    Ok(())
}

pub(crate) fn run_to_gltf(args: ToGltfArgs) -> Result<()> {
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

/// `--mesh-scale` of `to-mpfb`, refused outside the bounds `convert` refuses (one message).
pub(crate) fn mesh_scale(text: &str) -> std::result::Result<f64, String> {
    let scale: f64 = text.parse().map_err(|e| format!("{e}"))?;
    if mpfb2g4mf::options::MESH_SCALES.contains(&scale) {
        Ok(scale)
    } else {
        Err(mpfb2g4mf::options::SettingsError::MeshScale(scale).to_string())
    }
}

pub(crate) fn run_to_mpfb(args: ToMpfbArgs) -> Result<()> {
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
pub(crate) fn report_to_mpfb(
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
