//! `cargo xtask pictures`: renders the README's pictures into `docs/` with the real CLI
//! (`convert`, `preview`, `batch --contact-sheet`), so every picture there has a command, and
//! draws `.glb` outputs as an engine does (three.js in headless chromium, `clients/render.mjs`).

use std::path::Path;
use std::process::Command;

use test_support::clients::render::{RenderOptions, Renderer, View};

fn run(bin: &Path, args: &[&str]) -> Result<(), String> {
    let out = Command::new(bin)
        .args(args)
        .output()
        .map_err(|e| format!("{}: {e}", bin.display()))?;
    if out.status.success() {
        Ok(())
    } else {
        Err(format!(
            "mpfb2g4mf {}: {}",
            args.join(" "),
            String::from_utf8_lossy(&out.stderr)
        ))
    }
}

pub fn run_all(args: &[String]) -> Result<(), String> {
    // `cargo xtask pictures clips`: the clip strip alone (no chromium needed).
    if args.first().is_some_and(|a| a == "clips") {
        let bin = crate::bench::release_binary()?;
        let data = test_support::mpfb_data().ok_or("no MPFB data")?;
        let data = data
            .to_str()
            .ok_or("the data path is not UTF-8")?
            .to_owned();
        let work = tempfile::tempdir().map_err(|e| e.to_string())?;
        let docs = test_support::workspace_root().join("docs");
        clips(&bin, &data, &docs, work.path())?;
        println!("wrote docs/clip-strip.png");
        return Ok(());
    }
    // First, so a machine without chromium or the clients stops before the long part.
    let renderer =
        Renderer::find().map_err(|why| format!("cannot draw the three.js pictures: {why}"))?;
    let bin = crate::bench::release_binary()?;
    let root = test_support::workspace_root();
    let data = test_support::mpfb_data().ok_or("no MPFB data")?;
    let data = std::fs::canonicalize(&data).map_err(|e| format!("{}: {e}", data.display()))?;
    let data = data.to_str().ok_or("the data path is not UTF-8")?;
    let docs = root.join("docs");
    std::fs::create_dir_all(&docs).map_err(|e| e.to_string())?;
    let work = tempfile::tempdir().map_err(|e| e.to_string())?;
    let path = |p: &Path| p.to_str().unwrap_or_default().to_owned();

    // The default character: all three views, then front and side with bones.
    let model = work.path().join("default.g4b");
    run(
        &bin,
        &[
            "convert",
            "--rig-name",
            "default",
            "--mpfb-data",
            data,
            "-q",
            "-o",
            &path(&model),
        ],
    )?;
    let views = docs.join("default-views.png");
    run(
        &bin,
        &[
            "preview",
            &path(&model),
            "--view",
            "all",
            "--size",
            "320x560",
            "-o",
            &path(&views),
        ],
    )?;
    for view in ["front", "side"] {
        let out = docs.join(format!("default-{view}-bones.png"));
        run(
            &bin,
            &[
                "preview",
                &path(&model),
                "--view",
                view,
                "--size",
                "360x560",
                "--bones",
                "-o",
                &path(&out),
            ],
        )?;
    }

    // Faces: the neutral face and three shapes, close up on the head bone.
    let face = work.path().join("face.g4b");
    run(
        &bin,
        &[
            "convert",
            "--rig-name",
            "default",
            "--mpfb-data",
            data,
            "--face-units",
            "--visemes",
            "-q",
            "-o",
            &path(&face),
        ],
    )?;
    for (file, blend) in [
        ("face-neutral.png", None),
        ("face-jaw-open.png", Some("FaceJawOpen=1")),
        ("face-eye-closed-left.png", Some("FaceEyeClosedLeft=1")),
        ("face-viseme-ou.png", Some("VisemeOU=1")),
    ] {
        let (model, out) = (path(&face), path(&docs.join(file)));
        let mut args = vec![
            "preview", &model, "--focus", "head", "--size", "240", "-o", &out,
        ];
        if let Some(b) = blend {
            args.extend(["--blend", b]);
        }
        run(&bin, &args)?;
    }

    // The default character's A-pose rest next to its baked T-pose rest.
    let t_pose = work.path().join("t-pose.g4b");
    run(
        &bin,
        &[
            "convert",
            "--rig-name",
            "default",
            "--mpfb-data",
            data,
            "--rest-pose",
            "t-pose",
            "-q",
            "-o",
            &path(&t_pose),
        ],
    )?;
    let rest = docs.join("rest-a-and-t-pose.png");
    run(
        &bin,
        &[
            "preview",
            &path(&model),
            &path(&t_pose),
            "--bones",
            "--size",
            "320x420",
            "-o",
            &path(&rest),
        ],
    )?;

    // A small population's contact sheet.
    population_sheet(
        &bin,
        &work.path().join("people.toml"),
        &format!(
            r#"[defaults]
mpfb_data = "{data}"

[population]
rig_name = "game_engine"
count = 12
seed = 42
output = "people/{{index}}-g{{gender}}-h{{height}}.g4b"
[population.ranges]
gender = [0.0, 1.0]
age = [0.4, 0.9]
weight = [0.2, 0.8]
height = [0.1, 0.9]
african = [0.0, 1.0]
asian = [0.0, 1.0]
caucasian = [0.0, 1.0]
"#
        ),
        &docs.join("population-sheet.png"),
    )?;
    dressed(&bin, data, &docs, work.path())?;
    dressed_in_three(&bin, &renderer, data, &docs, work.path())?;
    expressions(&bin, data, &docs, work.path())?;
    clips(&bin, data, &docs, work.path())?;
    poses(&bin, data, &docs, work.path())?;
    for name in [
        "clip-strip.png",
        "dressed-views.png",
        "dressed-t-pose.png",
        "dressed-three.png",
        "dressed-t-pose-three.png",
        "dressed-vrm-three.png",
        "dressed-population-sheet.png",
        "default-views.png",
        "default-front-bones.png",
        "default-side-bones.png",
        "face-neutral.png",
        "face-jaw-open.png",
        "face-eye-closed-left.png",
        "face-viseme-ou.png",
        "expression-smile01.png",
        "expression-anger01.png",
        "expression-surprise01.png",
        "expression-fear02.png",
        "rest-a-and-t-pose.png",
        "population-sheet.png",
    ] {
        println!("wrote docs/{name}");
    }
    Ok(())
}

/// The dressed pictures: the faces of a naked and a dressed character close up (irises), MPFB's
/// default character in clothes, shoes, hair, eyebrows and eyelashes (with MakeHuman's default
/// eyes) from the front, three-quarter and side, in a baked T-pose, and a population drawing
/// its outfits and hair from lists.
/// MakeHuman's expressions as blend shapes of a rig without face bones (`game_engine`), four
/// of them close up on the head.
fn expressions(bin: &Path, data: &str, docs: &Path, work: &Path) -> Result<(), String> {
    let assets = test_support::makehuman_assets().ok_or("no MakeHuman assets folder")?;
    let faces = work.join("expressions.g4b");
    let (assets, faces) = (assets.display().to_string(), faces.display().to_string());
    run(
        bin,
        &[
            "convert",
            "--rig-name",
            "game_engine",
            "--mpfb-data",
            data,
            "--assets",
            &assets,
            "--expression-shapes",
            "smile01,anger01,surprise01,fear02",
            "-q",
            "-o",
            &faces,
        ],
    )?;
    for name in ["smile01", "anger01", "surprise01", "fear02"] {
        let out = docs
            .join(format!("expression-{name}.png"))
            .display()
            .to_string();
        let blend = format!("{name}=1");
        run(
            bin,
            &[
                "preview", &faces, "--focus", "head", "--size", "240", "--blend", &blend, "-o",
                &out,
            ],
        )?;
    }
    Ok(())
}

/// A frame strip of a clip: MakeHuman's walk (`animations/walks/walk1.bvh`) as a glTF
/// animation of the default rig, six frames from the side.
fn clips(bin: &Path, data: &str, docs: &Path, work: &Path) -> Result<(), String> {
    let assets = test_support::makehuman_assets().ok_or("no MakeHuman assets folder")?;
    let walk = assets.join("animations/walks/walk1.bvh");
    let glb = work.join("walk.glb").display().to_string();
    let clip = format!("walk={}", walk.display());
    let assets = assets.display().to_string();
    run(
        bin,
        &[
            "convert",
            "--rig-name",
            "default",
            "--mpfb-data",
            data,
            "--assets",
            &assets,
            "--animation",
            &clip,
            "-q",
            "-o",
            &glb,
        ],
    )?;
    let out = docs.join("clip-strip.png").display().to_string();
    run(
        bin,
        &[
            "preview",
            &glb,
            "--clip",
            "walk",
            "--time",
            "0,0.1,0.2,0.3,0.4,0.5",
            "--view",
            "side",
            "--size",
            "200x360",
            "-o",
            &out,
        ],
    )
}

/// A dressed character in three of MakeHuman's poses (`--pose`), side by side at one scale.
fn poses(bin: &Path, data: &str, docs: &Path, work: &Path) -> Result<(), String> {
    let assets = test_support::makehuman_assets().ok_or("no MakeHuman assets folder")?;
    let assets = assets.display().to_string();
    let mut files = Vec::new();
    for pose in ["standing02", "sit01", "fight01"] {
        let out = work.join(format!("pose-{pose}.g4b")).display().to_string();
        run(
            bin,
            &[
                "convert",
                "--rig-name",
                "default",
                "--mpfb-data",
                data,
                "--assets",
                &assets,
                "--clothes",
                "female_casualsuit01",
                "--clothes",
                "shoes01",
                "--hair",
                "bob01",
                "--pose",
                pose,
                "-q",
                "-o",
                &out,
            ],
        )?;
        files.push(out);
    }
    let out = docs.join("poses-dressed.png").display().to_string();
    let mut args: Vec<&str> = vec!["preview"];
    args.extend(files.iter().map(String::as_str));
    args.extend(["--view", "three-quarter", "--size", "260", "-o", &out]);
    run(bin, &args)
}

fn dressed(bin: &Path, data: &str, docs: &Path, work: &Path) -> Result<(), String> {
    let assets = test_support::makehuman_assets().ok_or("no MakeHuman assets folder")?;
    let assets = assets
        .to_str()
        .ok_or("the assets path is not UTF-8")?
        .to_owned();
    let path = |p: &Path| p.to_str().unwrap_or_default().to_owned();
    let model = work.join("dressed.g4b");
    let t_pose = work.join("dressed-t.g4b");
    for (out, extra) in [(&model, &[][..]), (&t_pose, &["--rest-pose", "t-pose"][..])] {
        let mut flags = vec!["--assets", &assets];
        flags.extend(crate::bench::OUTFIT);
        flags.extend(extra);
        let args = crate::bench::convert_args(Path::new(data), out, &flags);
        run(bin, &args.iter().map(String::as_str).collect::<Vec<_>>())?;
    }
    // Irises, close up: the naked body's helper eyes (painted from their geometry) beside the
    // dressed character's proxy eyes (MakeHuman's brown_eye.png).
    let naked = work.join("naked.g4b");
    let args = crate::bench::convert_args(Path::new(data), &naked, &[]);
    run(bin, &args.iter().map(String::as_str).collect::<Vec<_>>())?;
    run(
        bin,
        &[
            "preview",
            &path(&naked),
            &path(&model),
            "--focus",
            "head",
            "--size",
            "360",
            "-o",
            &path(&docs.join("face-irises.png")),
        ],
    )?;
    // Front, three-quarter and side.
    run(
        bin,
        &[
            "preview",
            &path(&model),
            "--view",
            "all",
            "--size",
            "320x560",
            "-o",
            &path(&docs.join("dressed-views.png")),
        ],
    )?;
    run(
        bin,
        &[
            "preview",
            &path(&t_pose),
            "--size",
            "560x420",
            "-o",
            &path(&docs.join("dressed-t-pose.png")),
        ],
    )?;
    population_sheet(
        bin,
        &work.join("dressed-people.toml"),
        &format!(
            r#"[defaults]
mpfb_data = "{data}"
assets = "{assets}"

[population]
count = 8
seed = 7
output = "dressed-people/{{index}}.g4b"
[population.ranges]
gender = [0.0, 1.0]
age = [0.3, 0.8]
weight = [0.3, 0.7]
african = [0.0, 1.0]
asian = [0.0, 1.0]
caucasian = [0.0, 1.0]
[population.draw]
clothes = [["male_casualsuit01", "shoes01"], ["female_sportsuit01", "shoes02"], ["female_casualsuit02", "shoes06"], ["male_casualsuit04", "shoes04"]]
hair = ["short02", "bob01", "ponytail01", "long01", "afro01"]
eyebrows = ["eyebrow001", "eyebrow006", "eyebrow009"]
"#
        ),
        &docs.join("dressed-population-sheet.png"),
    )?;
    Ok(())
}

/// The dressed characters as `.glb` files drawn by three.js in headless chromium: the test
/// description `fixtures/bodies/dressed.mhm` from the front, three-quarter and side, and MPFB's
/// default character in the README's ponytail outfit, in MPFB's T-pose, from the front and back,
/// and in the same outfit as a `.vrm` (VRM's T-pose) drawn through three-vrm.
fn dressed_in_three(
    bin: &Path,
    renderer: &Renderer,
    data: &str,
    docs: &Path,
    work: &Path,
) -> Result<(), String> {
    let assets = test_support::makehuman_assets().ok_or("no MakeHuman assets folder")?;
    let assets = assets.to_str().ok_or("the assets path is not UTF-8")?;
    let root = test_support::workspace_root();
    let human = root.join("fixtures/bodies/dressed.mhm");
    let human = human.to_str().ok_or("the fixture path is not UTF-8")?;
    let dana = work.join("dana.glb");
    let ponytail = work.join("ponytail-t.glb");
    let avatar = work.join("ponytail.vrm");
    let ponytail_outfit = [
        "--rig-name",
        "default",
        "--clothes",
        "male_casualsuit01",
        "--clothes",
        "shoes01",
        "--hair",
        "ponytail01",
        "--eyebrows",
        "eyebrow001",
        "--eyelashes",
        "eyelashes01",
        "--rest-pose",
        "t-pose",
    ];
    // The `.vrm` gets VRM's T-pose by itself (and refuses `--rest-pose`).
    let avatar_outfit = &ponytail_outfit[..ponytail_outfit.len() - 2];
    for (out, flags) in [
        (&dana, &["--human", human][..]),
        (&ponytail, &ponytail_outfit[..]),
        (&avatar, avatar_outfit),
    ] {
        let out = out.to_str().ok_or("the work path is not UTF-8")?;
        let mut args = vec!["convert", "--mpfb-data", data, "--assets", assets];
        args.extend(flags);
        args.extend(["-q", "-o", out]);
        run(bin, &args)?;
    }
    let pictures = [
        (
            &dana,
            "dressed-three.png",
            vec![View::Front, View::ThreeQuarter, View::Side],
            (320, 560),
        ),
        (
            &ponytail,
            "dressed-t-pose-three.png",
            vec![View::Front, View::Back],
            (420, 420),
        ),
        (
            &avatar,
            "dressed-vrm-three.png",
            vec![View::Front, View::ThreeQuarter],
            (420, 420),
        ),
    ];
    for (model, name, views, (width, height)) in pictures {
        let options = RenderOptions {
            views,
            width,
            height,
            ..RenderOptions::default()
        };
        let report = renderer
            .render(&[model], &docs.join(name), &options)
            .map_err(|why| format!("{name}: {why}"))?;
        let problems: Vec<&String> = report.files.iter().flat_map(|f| &f.errors).collect();
        if !problems.is_empty() {
            return Err(format!("{name}: three.js: {problems:?}"));
        }
        println!(
            "drew docs/{name} with three.js in {} ({}) in {} ms",
            report.user_agent, report.webgl, report.milliseconds
        );
    }
    Ok(())
}

/// Writes a population manifest (`text`) to `manifest` and draws its contact sheet to `sheet`
/// with `batch --contact-sheet`.
fn population_sheet(bin: &Path, manifest: &Path, text: &str, sheet: &Path) -> Result<(), String> {
    std::fs::write(manifest, text).map_err(|e| e.to_string())?;
    let path = |p: &Path| p.to_str().unwrap_or_default().to_owned();
    run(
        bin,
        &[
            "batch",
            &path(manifest),
            "-q",
            "--contact-sheet",
            &path(sheet),
            "--tile-size",
            "180",
        ],
    )
}
