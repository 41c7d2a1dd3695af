//! `preview`: its arguments (views, sizes, blend shapes, clip times), the scenes drawn and the labelled strip.

use super::*;

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum ViewArg {
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
pub(crate) struct PreviewArgs {
    /// The G4MF (.g4b, .g4tf) or glTF 2.0 (.glb, .gltf) file; several are drawn side by side
    /// at one scale (a baked rest pose next to the original, say).
    #[arg(required = true)]
    pub(crate) files: Vec<PathBuf>,
    /// The picture to write (PNG).
    #[arg(short, long)]
    pub(crate) output: PathBuf,
    /// Which view(s).
    #[arg(long, value_enum, default_value_t = ViewArg::Front)]
    pub(crate) view: ViewArg,
    /// Size of each view in pixels: N (square) or WxH.
    #[arg(long, default_value = "512", value_parser = parse_size)]
    pub(crate) size: (u32, u32),
    /// Draw the skeleton's bones over the mesh.
    #[arg(long)]
    pub(crate) bones: bool,
    /// Show a blend shape at an amount, `NAME=AMOUNT` (repeatable), over the file's amounts.
    #[arg(long = "blend", value_name = "NAME=AMOUNT", value_parser = parse_blend)]
    pub(crate) blend: Vec<(String, f64)>,
    /// Draw colour factors only (by default base-colour textures embedded in the file are
    /// sampled, and transparent materials blended by their draw order).
    #[arg(long)]
    pub(crate) no_textures: bool,
    /// Close up on a bone (its node name, e.g. `head`): frames a sphere around it.
    #[arg(long, value_name = "BONE")]
    pub(crate) focus: Option<String>,
    /// Pose a glTF file by a frame of its animation clip NAME (at `--time`, 0 by default).
    #[arg(long, value_name = "NAME")]
    pub(crate) clip: Option<String>,
    /// Seconds into the `--clip`; several, separated by commas, draw a frame strip side by
    /// side (before the clip's first key or after its last, the end keys hold).
    #[arg(long, value_name = "SECONDS[,SECONDS...]", value_parser = parse_times, allow_negative_numbers = true)]
    pub(crate) time: Option<Times>,
    #[command(flatten)]
    pub(crate) read: ReadArgs,
}

/// Most frames `--time` draws: a picture holds at most this many panels.
pub(crate) const MAX_FRAMES: usize = 16;

/// The times `--time` gives, in seconds.
#[derive(Clone)]
pub(crate) struct Times(Vec<f64>);

/// `T` or `T,T,...`: each a finite number of seconds, 0 or more, at most [`MAX_FRAMES`].
pub(crate) fn parse_times(text: &str) -> std::result::Result<Times, String> {
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
pub(crate) fn parse_blend(text: &str) -> std::result::Result<(String, f64), String> {
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
pub(crate) fn parse_size(text: &str) -> std::result::Result<(u32, u32), String> {
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

/// The times `preview` draws a clip at (0 without `--time`), refused without `--clip` or when
/// the files, times and views make more panels than a picture holds.
pub(crate) fn preview_times(args: &PreviewArgs) -> Result<Vec<f64>> {
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
pub(crate) fn preview_scenes(
    args: &PreviewArgs,
    times: &[f64],
) -> Result<Vec<g4mf_preview::Scene>> {
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

pub(crate) fn run_preview(args: PreviewArgs) -> Result<()> {
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
pub(crate) fn label_frames(
    image: &mut image::RgbaImage,
    times: &[f64],
    per_scene: u32,
    width: u32,
) {
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

/// A file that cannot be pictured: read errors name the file; a G4MF scene's data errors
/// need it said.
pub(crate) fn picture_error(path: &Path, e: g4mf_preview::PreviewError) -> anyhow::Error {
    if e.names_file() {
        anyhow::Error::new(e)
    } else {
        anyhow::Error::new(e).context(format!("cannot picture {}", path.display()))
    }
}
