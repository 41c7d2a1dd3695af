//! `cargo xtask pictures`: renders the README's pictures into `docs/` with the real CLI
//! (`convert`, `preview`, `batch --contact-sheet`), so every picture there has a command.

use std::path::Path;
use std::process::Command;

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

pub fn run_all(_args: &[String]) -> Result<(), String> {
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
    let manifest = work.path().join("people.toml");
    std::fs::write(
        &manifest,
        format!(
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
    )
    .map_err(|e| e.to_string())?;
    let sheet = docs.join("population-sheet.png");
    run(
        &bin,
        &[
            "batch",
            &path(&manifest),
            "-q",
            "--contact-sheet",
            &path(&sheet),
            "--tile-size",
            "180",
        ],
    )?;
    for name in [
        "default-views.png",
        "default-front-bones.png",
        "default-side-bones.png",
        "face-neutral.png",
        "face-jaw-open.png",
        "face-eye-closed-left.png",
        "face-viseme-ou.png",
        "rest-a-and-t-pose.png",
        "population-sheet.png",
    ] {
        println!("wrote docs/{name}");
    }
    Ok(())
}
