//! `convert` and `demo`: their arguments, the run, and the summary printed (or `--json`).

use super::*;

/// How a conversion reports what it did.
#[derive(Args)]
pub(crate) struct ReportArgs {
    /// Print the summary as JSON on stdout.
    #[arg(long)]
    pub(crate) json: bool,
    /// Print nothing but errors.
    #[arg(long, short)]
    pub(crate) quiet: bool,
}

#[derive(Args)]
pub(crate) struct ConvertArgs {
    /// MPFB rig definition (rig.*.json); with --human, default: the rig the file names.
    #[arg(long, required_unless_present_any = ["rig_name", "human"])]
    pub(crate) rig: Option<PathBuf>,
    /// MPFB weights (weights.*.json); without it the mesh is written unskinned.
    #[arg(long)]
    pub(crate) weights: Option<PathBuf>,
    /// The body (OBJ with MakeHuman's vertex order); default: the MPFB data folder's base.obj.
    #[arg(long)]
    pub(crate) mesh: Option<PathBuf>,
    /// Output file: .g4b (binary) or .g4tf (text) G4MF, .glb (binary) or .gltf (text) glTF
    /// 2.0, or .vrm (a VRM 1.0 avatar: a .glb with humanoid, expressions, look-at and spring
    /// bones, its rest VRM's T-pose).
    #[arg(short, long, value_parser = output_path)]
    pub(crate) output: PathBuf,
    /// Take rig, weights, base.obj and vertex groups of this rig from the MPFB data folder.
    #[arg(long, conflicts_with = "rig")]
    pub(crate) rig_name: Option<String>,
    /// Character name (the root node's); default: the output's file stem.
    #[arg(long)]
    pub(crate) name: Option<String>,
    /// Validate what was written; on any error remove it and exit 1.
    #[arg(long)]
    pub(crate) validate: bool,
    /// Print the humanoid names used (shipped, yours, or matched on the rig) on stdout, as a
    /// `--humanoid-map` file; implies --humanoid.
    #[arg(long, conflicts_with = "json")]
    pub(crate) humanoid_print_map: bool,
    #[command(flatten)]
    pub(crate) settings: Settings,
    #[command(flatten)]
    pub(crate) report: ReportArgs,
}

#[derive(Args)]
pub(crate) struct DemoArgs {
    /// Output file.
    #[arg(short, long, default_value = "out/makehuman-default.g4b", value_parser = output_path)]
    pub(crate) output: PathBuf,
    /// Conversion settings. When no MPFB data is found (and no --mpfb-data is given), the
    /// demo installs it into the cache first, as `data fetch` does.
    #[command(flatten)]
    pub(crate) settings: Settings,
    #[command(flatten)]
    pub(crate) report: ReportArgs,
}

/// Warnings the summary prints at most; `--json` has all of them.
pub(crate) const SHOWN_WARNINGS: usize = 20;

pub(crate) fn run_convert(args: ConvertArgs) -> Result<()> {
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

pub(crate) fn run_demo(args: DemoArgs) -> Result<()> {
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

pub(crate) fn report(summary: &Summary, args: &ReportArgs) -> Result<()> {
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
