//! `batch`: its arguments, the manifest's jobs planned, the progress shown and the totals printed.

use super::*;

#[derive(Args)]
pub(crate) struct BatchArgs {
    /// The manifest (.json, or .toml).
    pub(crate) manifest: PathBuf,
    /// Worker threads making bodies (default: all cores); as many writer threads write
    /// their outputs meanwhile.
    #[arg(long, default_value_t = 0)]
    pub(crate) jobs: usize,
    /// Start no new job after the first failure (a job a worker was already making when a
    /// write failed still finishes).
    #[arg(long)]
    pub(crate) fail_fast: bool,
    /// Skip jobs whose output already exists (resume an interrupted batch).
    #[arg(long)]
    pub(crate) skip_existing: bool,
    /// Check each output with the validator before it is written, as `convert --validate`
    /// does: an invalid one fails its job; a valid one's warnings are its record's.
    #[arg(long)]
    pub(crate) validate: bool,
    /// Fail a job, writing nothing, when it would say this diagnostic code, or any warning
    /// with `warnings` (repeatable; added to what the manifest denies).
    #[arg(long, value_name = "CODE|warnings", value_parser = mpfb2g4mf::options::deny_value)]
    pub(crate) deny: Vec<String>,
    /// Largest input file accepted, in MiB.
    #[arg(long, default_value_t = mpfb2g4mf::options::Settings::default().max_input_mib)]
    pub(crate) max_input_mib: u64,
    /// Run only shard K of N (0-based; job i belongs to shard i mod N).
    #[arg(long, value_parser = parse_shard)]
    pub(crate) shard: Option<mpfb2g4mf::batch::Shard>,
    /// Write a JSON record per job (inputs, output, status, warnings, timings) to FILE.
    #[arg(long)]
    pub(crate) report: Option<PathBuf>,
    /// Write a PNG contact sheet of every output (front views, labelled by file name) to FILE.
    #[arg(long)]
    pub(crate) contact_sheet: Option<PathBuf>,
    /// Side of each contact-sheet picture, in pixels.
    #[arg(long, default_value_t = 160, value_parser = clap::value_parser!(u32).range(16..=2048))]
    pub(crate) tile_size: u32,
    /// Print nothing but errors.
    #[arg(long, short)]
    pub(crate) quiet: bool,
}

pub(crate) fn parse_shard(text: &str) -> Result<mpfb2g4mf::batch::Shard, String> {
    text.parse()
        .map_err(|e: mpfb2g4mf::batch::ShardError| e.to_string())
}

pub(crate) fn run_batch(args: BatchArgs) -> Result<()> {
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
pub(crate) fn plan_batch(args: &BatchArgs) -> Result<(Vec<Job>, usize)> {
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
pub(crate) struct BatchProgress {
    pub(crate) bar: Option<indicatif::ProgressBar>,
    pub(crate) quiet: bool,
    pub(crate) contact_sheet: Option<mpfb2g4mf::batch::ContactSheet>,
}

impl BatchProgress {
    pub(crate) fn new(args: &BatchArgs, jobs: usize) -> Self {
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

    pub(crate) fn record(&self, r: &batch::JobRecord) {
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
    pub(crate) fn finish(self, args: &BatchArgs) -> Result<()> {
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
pub(crate) fn print_batch_totals(
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
