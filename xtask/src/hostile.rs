//! `cargo xtask hostile`: the time and peak memory of each hostile input of issue 25 (and of
//! the hostile glTF files of issue 39) with the release build, as the table in
//! `docs/benchmarks.md` (target: under 5 s and 512 MiB on the 2-core machine). The tests
//! (`crates/mpfb2g4mf/tests/hostile_inputs.rs`, `hostile_gltf.rs`) assert what each input must
//! give; this only measures it, outside the required test path.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Seconds and MiB a hostile input may cost.
const TARGET_SECONDS: f64 = 5.0;
const TARGET_MIB: f64 = 512.0;

/// One hostile run: a name, the converter's arguments.
struct Case {
    name: &'static str,
    args: Vec<String>,
}

pub fn run(_args: &[String]) -> Result<(), String> {
    let bin = crate::bench::release_binary()?;
    let data = test_support::mpfb_data().ok_or("no MPFB data (set MPFB_DATA)")?;
    let work = tempfile::tempdir().map_err(|e| e.to_string())?;
    std::fs::create_dir_all(work.path().join("out")).map_err(|e| e.to_string())?;
    let cases = cases(&data, work.path())?;
    println!("| Hostile input | Exit | Time (s) | Peak memory (MiB) | First line of stderr |");
    println!("| --- | --- | --- | --- | --- |");
    let mut over = Vec::new();
    for case in &cases {
        let out = Command::new("/usr/bin/time")
            .args(["-f", "%e %M"])
            .arg(&bin)
            .args(&case.args)
            .current_dir(work.path())
            .output()
            .map_err(|e| format!("cannot run /usr/bin/time: {e}"))?;
        let text = String::from_utf8_lossy(&out.stderr);
        let mut lines: Vec<&str> = text.lines().collect();
        let measured = lines.pop().unwrap_or_default();
        let mut fields = measured.split_whitespace();
        let seconds: f64 = fields
            .next()
            .and_then(|s| s.parse().ok())
            .unwrap_or(f64::NAN);
        let mib = fields
            .next()
            .and_then(|s| s.parse::<f64>().ok())
            .map_or(f64::NAN, |kib| kib / 1024.0);
        // GNU time adds a line when the command exits non-zero.
        let first = lines
            .iter()
            .find(|l| !l.starts_with("Command exited with"))
            .copied()
            .unwrap_or("")
            .replace(work.path().to_str().unwrap_or("\u{0}"), "WORK")
            .replace(data.to_str().unwrap_or("\u{0}"), "DATA");
        let first: String = first.chars().take(110).collect();
        let exit = out.status.code().map_or("signal".into(), |c| {
            // time exits with the command's code.
            c.to_string()
        });
        println!(
            "| {} | {exit} | {seconds:.2} | {mib:.1} | `{}` |",
            case.name,
            first.replace('|', "\\|").replace('`', "'")
        );
        if seconds.is_nan() || seconds > TARGET_SECONDS || mib.is_nan() || mib > TARGET_MIB {
            over.push(case.name);
        }
    }
    if over.is_empty() {
        println!(
            "\nEvery hostile input under {TARGET_SECONDS} s and {TARGET_MIB} MiB ({} inputs).",
            cases.len()
        );
        Ok(())
    } else {
        Err(format!(
            "over {TARGET_SECONDS} s or {TARGET_MIB} MiB: {}",
            over.join(", ")
        ))
    }
}

fn write(path: &Path, bytes: &[u8]) -> Result<PathBuf, String> {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).map_err(|e| e.to_string())?;
    }
    std::fs::write(path, bytes).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(path.to_path_buf())
}

fn gz(text: &[u8]) -> Result<Vec<u8>, String> {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    e.write_all(text).map_err(|e| e.to_string())?;
    e.finish().map_err(|e| e.to_string())
}

/// The hostile inputs, written into `work`.
fn cases(data: &Path, work: &Path) -> Result<Vec<Case>, String> {
    let d = data.display().to_string();
    let convert = |extra: &[&str]| -> Vec<String> {
        let mut args: Vec<String> = ["convert", "--quiet", "--mpfb-data", &d, "-o", "out/x.g4b"]
            .iter()
            .map(|s| (*s).to_owned())
            .collect();
        args.extend(extra.iter().map(|s| (*s).to_owned()));
        args
    };
    let s = |p: PathBuf| p.display().to_string();
    let mut cases = Vec::new();
    cases.extend(weights_and_rigs_cases(data, work)?);

    let mut many = String::from("version v1.1.1\n");
    for i in 0..80_000 {
        many.push_str(&format!("keyword{i} value\n"));
    }
    let many = s(write(&work.join("many.mhm"), many.as_bytes())?);
    cases.push(Case {
        name: "`.mhm` with 80,000 unknown keywords",
        args: convert(&["--human", &many]),
    });
    let cr = s(write(
        &work.join("cr.mhm"),
        b"version v1.1.1\rmodifier breast/BreastSize 0.6\rmodifier macrodetails/Gender 0.2\r",
    )?);
    cases.push(Case {
        name: "`.mhm` with CR-only line ends",
        args: convert(&["--human", &cr]),
    });
    let long = s(write(
        &work.join("long.mhm"),
        format!("version v1.1.1\nmodifier {} 0.5\n", "x".repeat(4 << 20)).as_bytes(),
    )?);
    cases.push(Case {
        name: "`.mhm` with a 4 MB modifier name",
        args: convert(&["--human", &long]),
    });

    // A targets folder with a gzip bomb, a symbolic link loop and MPFB's macro.json.
    let targets = work.join("targets");
    std::fs::create_dir_all(targets.join("macrodetails")).map_err(|e| e.to_string())?;
    std::fs::copy(
        data.join("targets/macrodetails/macro.json"),
        targets.join("macrodetails/macro.json"),
    )
    .map_err(|e| e.to_string())?;
    write(
        &targets.join("custom/bomb.target.gz"),
        &gz(&vec![b' '; 64 << 20])?,
    )?;
    #[cfg(unix)]
    {
        let link = targets.join("custom/loop");
        if !link.exists() {
            std::os::unix::fs::symlink(&targets, link).map_err(|e| e.to_string())?;
        }
    }
    let t = s(targets.clone());
    let mut bomb = vec!["--rig-name", "default", "--targets-dir", &t];
    let shapes: Vec<String> = (0..16).map(|i| format!("Bomb{i}=bomb")).collect();
    for shape in &shapes {
        bomb.extend(["--blend-shape", shape]);
    }
    cases.push(Case {
        name: "16 `--blend-shape` of a 64 MiB gzip bomb (65 kB), in a folder with a symlink loop",
        args: convert(&bomb),
    });
    for (name, flag, rig) in [
        ("`/dev/zero` as the rig", "--rig", false),
        ("`/dev/zero` as the weights", "--weights", true),
        ("`/dev/zero` as the mesh", "--mesh", true),
        ("`/dev/zero` as the `.mhm`", "--human", false),
        ("`/dev/zero` as the pose file", "--rest-pose", true),
        ("`/dev/zero` as the humanoid map", "--humanoid-map", true),
    ] {
        let mut args = vec![flag, "/dev/zero"];
        if rig {
            args.extend(["--rig-name", "default"]);
        }
        cases.push(Case {
            name,
            args: convert(&args),
        });
    }
    let weights = data.join("rigs/standard/weights.game_engine.json");
    let w = s(weights);
    cases.push(Case {
        name: "weights of another rig",
        args: convert(&["--rig-name", "default", "--weights", &w]),
    });
    let mut proxy = String::new();
    for i in 0..5000 {
        proxy.push_str(&format!("v {i} 0 0\n"));
    }
    let proxy = s(write(&work.join("proxy.obj"), proxy.as_bytes())?);
    cases.push(Case {
        name: "a mesh of another topology",
        args: convert(&["--rig-name", "default", "--mesh", &proxy]),
    });
    let pose = s(write(
        &work.join("pose.json"),
        br#"{"bone_rotations": {"nobone": [0, 0, 0]}}"#,
    )?);
    cases.push(Case {
        name: "a pose naming no bone of the rig",
        args: convert(&["--rig-name", "default", "--rest-pose", &pose]),
    });
    let million = s(write(
        &work.join("million.toml"),
        b"[population]\nrig = \"missing.json\"\noutput = \"b{index}.g4b\"\ncount = 1000000\n[population.ranges]\nage = [0.2, 0.8]\n",
    )?);
    cases.push(Case {
        name: "a 150-byte manifest of 1,000,000 bodies, `--shard 0/1000` (stops at the missing rig)",
        args: vec![
            "batch".into(),
            "--shard".into(),
            "0/1000".into(),
            million.clone(),
        ],
    });
    cases.push(Case {
        name: "`batch --jobs 20000 --shard 0/1000` of the same manifest (capped at 4 per core)",
        args: vec![
            "batch".into(),
            "--jobs".into(),
            "20000".into(),
            "--shard".into(),
            "0/1000".into(),
            million,
        ],
    });
    // The hostile glTF files of tests/hostile_gltf.rs, through `preview`.
    let gltf = work.join("gltf");
    std::fs::create_dir_all(&gltf).map_err(|e| e.to_string())?;
    for case in test_support::gltf::hostile_files(&gltf).map_err(|e| e.to_string())? {
        let mut args = vec!["preview".to_owned(), s(case.file)];
        args.extend(case.args);
        args.extend(["-o".to_owned(), "out/p.png".to_owned()]);
        cases.push(Case {
            name: case.name,
            args,
        });
    }
    cases.extend(image_cases(data, work)?);
    cases.extend(assets_cases(data, work)?);
    cases.extend(archive_cases(data, work)?);
    cases.extend(image_reader_cases(data, work)?);
    cases.extend(eyes_and_proxies_cases(data, work)?);
    cases.extend(preview_cases(data, work)?);
    cases.extend(clip_cases(data, work)?);
    cases.extend(motion_cases(data, work)?);
    cases.extend(vrma_cases(data, work)?);
    cases.extend(report_cases(data, work)?);
    Ok(cases)
}

/// Issue 41, reading side: `validate` on images that claim more than they hold, relative image
/// URIs that climb out, and a 16385-pixel-square PNG (above the decode bound), each a copy of
/// the validator's corpus fixture.
fn image_reader_cases(_data: &Path, work: &Path) -> Result<Vec<Case>, String> {
    let fixtures = test_support::workspace_root().join("fixtures/validator");
    let mut cases = Vec::new();
    for (name, fixture) in [
        (
            "`validate`: a 65-byte PNG declaring 100000x100000 pixels",
            "FILE_IMAGE_UNDECODABLE_huge_header",
        ),
        ("`validate`: a truncated PNG", "FILE_IMAGE_UNDECODABLE"),
        (
            "`validate`: a PNG of 16385x16385 pixels (above the decode bound)",
            "FILE_IMAGE_TOO_LARGE",
        ),
        (
            "`validate`: an image URI `..%2F` out of the folder",
            "FILE_URI_NOT_READ",
        ),
    ] {
        let bytes = std::fs::read(fixtures.join(format!("{fixture}.g4tf")))
            .map_err(|e| format!("{fixture}: {e}"))?;
        let path = write(&work.join(format!("{fixture}.g4tf")), &bytes)?;
        cases.push(Case {
            name,
            args: vec!["validate".to_owned(), path.display().to_string()],
        });
    }
    Ok(cases)
}

/// Issue 41's asset inputs: an `obj_file` that is a FIFO nobody writes (once a hang, now
/// refused before it is opened) and an assets folder of 20,001 clothes files (the index's cap,
/// said in the line).
fn assets_cases(data: &Path, work: &Path) -> Result<Vec<Case>, String> {
    let io = |e: std::io::Error| e.to_string();
    let fake = |name: &str, mhclo: &str| -> Result<PathBuf, String> {
        let assets = work.join(name);
        let bad = assets.join("clothes/bad");
        std::fs::create_dir_all(&bad).map_err(io)?;
        std::fs::write(bad.join("bad.obj"), "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n").map_err(io)?;
        std::fs::write(bad.join("bad.mhclo"), mhclo).map_err(io)?;
        Ok(assets)
    };
    let convert = |assets: &Path, clothes: &str| -> Vec<String> {
        [
            "convert",
            "--quiet",
            "--mpfb-data",
            &data.display().to_string(),
            "-o",
            "out/x.g4b",
            "--rig-name",
            "default",
            "--assets",
            &assets.display().to_string(),
            "--clothes",
            clothes,
        ]
        .iter()
        .map(|s| (*s).to_owned())
        .collect()
    };
    let mut cases = Vec::new();
    let fifo_assets = fake(
        "fifo-assets",
        "name bad\nobj_file pipe.obj\nverts 0\n1\n2\n3\n",
    )?;
    let made = std::process::Command::new("mkfifo")
        .arg(fifo_assets.join("clothes/bad/pipe.obj"))
        .status()
        .map_err(io)?;
    if !made.success() {
        return Err("mkfifo failed".to_owned());
    }
    cases.push(Case {
        name: "an `obj_file` that is a FIFO nobody writes",
        args: convert(&fifo_assets, "bad"),
    });
    let many = fake(
        "many-assets",
        "name bad\nobj_file bad.obj\nverts 0\n1\n2\n3\n",
    )?;
    let folder = many.join("clothes/aaa");
    std::fs::create_dir_all(&folder).map_err(io)?;
    for i in 0..20_001 {
        std::fs::write(folder.join(format!("a{i:05}.mhclo")), "name a\n").map_err(io)?;
    }
    cases.push(Case {
        name: "an assets folder of 20,002 clothes files, asking for one not there",
        args: convert(&many, "nosuch"),
    });
    Ok(cases)
}

/// Hostile images of issue 41, worn by a three-vertex garment: a 69-byte PNG declaring
/// 100000 x 100000 pixels as its base colour, occlusion and roughness maps of a few hundred
/// bytes (8192 x 1 and 1 x 8192) that once packed into 8192 x 8192, and three flat 8192 x 8192
/// maps (the largest taken, about 84 KB each).
fn image_cases(data: &Path, work: &Path) -> Result<Vec<Case>, String> {
    let d = data.display().to_string();
    let mut cases = Vec::new();
    let (wide, tall) = test_support::images::orm_bomb_maps();
    let bomb = test_support::images::png_declaring(100_000, 100_000);
    for (case, name, material, images) in [
        (
            "bomb",
            "a 69-byte PNG declaring 100000 x 100000 pixels as a garment's base colour",
            "name bad\ndiffuseTexture bomb.png\n",
            vec![("bomb.png", bomb.clone())],
        ),
        (
            "orm",
            "occlusion and roughness maps of 8192 x 1 and 1 x 8192 pixels (a few hundred bytes)",
            "name bad\naomapTexture wide.png\nroughnessmapTexture tall.png\n",
            vec![("wide.png", wide.clone()), ("tall.png", tall.clone())],
        ),
        (
            "large",
            "occlusion, roughness and metallic maps of 8192 x 8192 pixels (flat, ~84 KB each)",
            "name bad\naomapTexture a.png\nroughnessmapTexture r.png\nmetallicmapTexture m.png\n",
            ["a.png", "r.png", "m.png"]
                .into_iter()
                .zip([200, 100, 10])
                .map(|(file, value)| (file, test_support::images::grey_png(8192, 8192, value)))
                .collect(),
        ),
    ] {
        let assets = work.join("images").join(case);
        let folder = assets.join("clothes/bad");
        write(
            &folder.join("bad.obj"),
            b"v 0 0 0\nv 1 0 0\nv 0 1 0\nvt 0 0\nvt 1 0\nvt 0 1\nf 1/1 2/2 3/3\n",
        )?;
        write(
            &folder.join("bad.mhclo"),
            b"name bad\nobj_file bad.obj\nmaterial bad.mhmat\nverts 0\n1\n2\n3\n",
        )?;
        write(&folder.join("bad.mhmat"), material.as_bytes())?;
        for (file, bytes) in images {
            write(&folder.join(file), &bytes)?;
        }
        cases.push(Case {
            name,
            args: [
                "convert",
                "--quiet",
                "--mpfb-data",
                &d,
                "--rig-name",
                "default",
                "--assets",
                &assets.display().to_string(),
                "--clothes",
                "bad",
                "-o",
                "out/x.g4b",
            ]
            .iter()
            .map(|s| (*s).to_owned())
            .collect(),
        });
    }
    Ok(cases)
}

/// Issue 41, weights and rigs: a rig of 100,000 bones in one chain (each bone from one base
/// mesh vertex to the next), converted to G4MF and glTF, then validated and read back: every
/// path linear in bones (a search per bone among all bones made writing it take 46-71 s).
fn weights_and_rigs_cases(data: &Path, work: &Path) -> Result<Vec<Case>, String> {
    const BONES: usize = 100_000;
    let mut rig = String::from("{");
    for i in 0..BONES {
        let parent = if i == 0 {
            String::new()
        } else {
            format!("b{}", i - 1)
        };
        rig.push_str(&format!(
            r#"{}"b{i}": {{"head": {{"strategy": "VERTEX", "vertex_index": {}, "default_position": [0, 0, 0]}}, "tail": {{"strategy": "VERTEX", "vertex_index": {}, "default_position": [0, 0, 1]}}, "roll": 0.0, "parent": "{parent}", "inherit_scale": "FULL", "rigify": {{}}, "use_connect": false, "use_inherit_rotation": true, "use_local_location": true}}"#,
            if i == 0 { "" } else { "," },
            i % 13_000,
            (i + 1) % 13_000
        ));
    }
    rig.push('}');
    let rig = write(&work.join("chain100k.json"), rig.as_bytes())?
        .display()
        .to_string();
    let mesh = data.join("3dobjs/base.obj").display().to_string();
    let convert = |output: &str| -> Vec<String> {
        [
            "convert", "--quiet", "--rig", &rig, "--mesh", &mesh, "-o", output,
        ]
        .iter()
        .map(|s| (*s).to_owned())
        .collect()
    };
    let read = |command: &str, extra: &[&str]| -> Vec<String> {
        let mut args = vec![command.to_owned(), "out/chain.g4b".to_owned()];
        args.extend(extra.iter().map(|s| (*s).to_owned()));
        args
    };
    Ok(vec![
        Case {
            name: "a rig of 100,000 bones in one chain, to `.g4b`",
            args: convert("out/chain.g4b"),
        },
        Case {
            name: "the same rig to `.glb`",
            args: convert("out/chain.glb"),
        },
        Case {
            name: "`validate` of its `.g4b`",
            args: read("validate", &[]),
        },
        Case {
            name: "`to-mpfb` of its `.g4b`",
            args: read("to-mpfb", &["--out-dir", "out/chain-mpfb"]),
        },
    ])
}

/// The hostile archives of `tests/hostile_inputs/archives.rs` (issue 41), through
/// `data fetch --from ARCHIVE --into ...` (each refused before a byte is unpacked).
fn archive_cases(_data: &Path, work: &Path) -> Result<Vec<Case>, String> {
    let dir = work.join("archives");
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    let archives = test_support::archives::hostile_archives(&dir).map_err(|e| e.to_string())?;
    Ok(archives
        .into_iter()
        .enumerate()
        .map(|(i, archive)| {
            let mut args = vec!["data".to_owned(), "fetch".to_owned()];
            if archive.assets {
                args.push("--makehuman-assets".to_owned());
            }
            args.extend([
                "--from".to_owned(),
                archive.path.display().to_string(),
                "--into".to_owned(),
                format!("out/fetched-{i}"),
            ]);
            Case {
                name: archive.name,
                args,
            }
        })
        .collect())
}

/// An asset named exactly past the index's cap (issue 41): 20,000 empty clothes files beside
/// the asset's folder fill the cap before the walk reaches it; the asset is found by its path.
fn eyes_and_proxies_cases(data: &Path, work: &Path) -> Result<Vec<Case>, String> {
    let io = |e: std::io::Error| e.to_string();
    let assets = work.join("past-cap-assets");
    let bad = assets.join("clothes/bad");
    std::fs::create_dir_all(&bad).map_err(io)?;
    std::fs::write(bad.join("bad.obj"), "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n").map_err(io)?;
    std::fs::write(
        bad.join("bad.mhclo"),
        "name bad\nobj_file bad.obj\nverts 0\n1\n2\n3\n",
    )
    .map_err(io)?;
    for i in 0..20_000 {
        std::fs::write(assets.join(format!("clothes/filler{i:05}.mhclo")), "").map_err(io)?;
    }
    let args = [
        "convert",
        "--quiet",
        "--mpfb-data",
        &data.display().to_string(),
        "-o",
        "out/past-cap.g4b",
        "--rig-name",
        "default",
        "--assets",
        &assets.display().to_string(),
        "--clothes",
        "bad",
    ]
    .iter()
    .map(|s| (*s).to_owned())
    .collect();
    Ok(vec![Case {
        name: "an asset named exactly past a 20,000-file clothes index",
        args,
    }])
}

/// Issue 41's pictures: `preview` of a one-square `.g4tf` whose base-colour texture names an
/// image beside it by a relative URI, that image a 69-byte PNG declaring 100000 x 100000
/// pixels (refused from its header, drawn in the placeholder) or a FIFO nobody writes
/// (refused before it is opened).
fn preview_cases(_data: &Path, work: &Path) -> Result<Vec<Case>, String> {
    let folder = work.join("previews");
    let text = test_support::tiny::TinyCharacter::new("Square")
        .positions(vec![
            glam::DVec3::new(-0.5, 0.0, 0.0),
            glam::DVec3::new(0.5, 0.0, 0.0),
            glam::DVec3::new(0.5, 1.0, 0.0),
            glam::DVec3::new(-0.5, 1.0, 0.0),
        ])
        .texcoords(vec![[0.0, 1.0], [1.0, 1.0], [1.0, 0.0], [0.0, 0.0]])
        .faces(&[&[0, 1, 2, 3]])
        .material("Skin", Some([1.0; 4]))
        .g4tf_text();
    let mut cases = Vec::new();
    for (name, image) in [
        (
            "`preview`: an image beside the `.g4tf`, a 69-byte PNG declaring 100000x100000",
            "bomb.png",
        ),
        (
            "`preview`: an image beside the `.g4tf` that is a FIFO",
            "fifo.png",
        ),
    ] {
        let mut doc: serde_json::Value =
            serde_json::from_slice(&text).map_err(|e| e.to_string())?;
        doc["files"] = serde_json::json!([{ "uri": image, "mimeType": "image/png" }]);
        doc["textures"] =
            serde_json::json!([{ "files": [0], "size": [4, 4], "placeholder": [0.6, 0.25, 0.15] }]);
        doc["materials"][0]["baseColor"]["texture"] = serde_json::json!(0);
        let stem = image.trim_end_matches(".png");
        let file = write(
            &folder.join(format!("{stem}.g4tf")),
            doc.to_string().as_bytes(),
        )?;
        cases.push(Case {
            name,
            args: vec![
                "preview".to_owned(),
                file.display().to_string(),
                "-o".to_owned(),
                format!("out/{stem}.png"),
            ],
        });
    }
    write(
        &folder.join("bomb.png"),
        &test_support::images::png_declaring(100_000, 100_000),
    )?;
    let made = Command::new("mkfifo")
        .arg(folder.join("fifo.png"))
        .status()
        .map_err(|e| format!("mkfifo: {e}"))?;
    if !made.success() {
        return Err("mkfifo failed".to_owned());
    }
    Ok(cases)
}

/// Issue 42, pictures of motion: `preview --clip` of a `.glb` whose one channel has a million
/// keys (sampled between two near its middle), and of one with 100,000 channels sharing a
/// sampler (each read and sampled).
fn clip_cases(_data: &Path, work: &Path) -> Result<Vec<Case>, String> {
    use serde_json::json;
    use test_support::gltf::GltfBuilder;
    let folder = work.join("clips");
    let triangle = [0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0];
    let file = |name: &str, keys: usize, channels: usize| -> Result<PathBuf, String> {
        let mut b = GltfBuilder::new();
        let mesh = b.mesh(&triangle, None, &[], None);
        b.root_node(json!({"mesh": mesh}));
        let times: Vec<f32> = (0..keys).map(|k| k as f32 * 0.01).collect();
        let turns: Vec<f32> = (0..keys)
            .flat_map(|k| {
                let half = (k as f32 * 0.001).sin() * 0.5;
                [0.0, 0.0, half.sin(), half.cos()]
            })
            .collect();
        let input = b.floats(&times, "SCALAR");
        let output = b.floats(&turns, "VEC4");
        let channel = json!({"sampler": 0, "target": {"node": 0, "path": "rotation"}});
        b.push(
            "animations",
            json!({
                "name": "wave",
                "samplers": [{"input": input, "output": output}],
                "channels": vec![channel; channels]
            }),
        );
        write(&folder.join(name), &b.glb())
    };
    let mut cases = Vec::new();
    for (name, path, keys, channels) in [
        (
            "`preview --clip`: one channel of a million keys",
            "million-keys.glb",
            1_000_000,
            1,
        ),
        (
            "`preview --clip`: 100,000 channels sharing one sampler",
            "many-channels.glb",
            2,
            100_000,
        ),
    ] {
        let path = file(path, keys, channels)?;
        cases.push(Case {
            name,
            args: vec![
                "preview".to_owned(),
                path.display().to_string(),
                "--clip".to_owned(),
                "wave".to_owned(),
                "--time".to_owned(),
                "5000.005".to_owned(),
                "-o".to_owned(),
                "out/clip.png".to_owned(),
            ],
        });
    }
    Ok(cases)
}

/// Issue 42: BVH motion through `--pose` and `--animation`: the longest clip of MakeHuman's
/// skeleton the 64 MiB file limit lets in (6,000 frames of 163 joints, 978 values each) to
/// `.glb`, its last frame as a pose, and a one-joint file of 13,000 frames on the default
/// rig (over the 2^21 bone keys a clip holds: refused before posing).
fn motion_cases(data: &Path, work: &Path) -> Result<Vec<Case>, String> {
    let assets = test_support::makehuman_assets().ok_or("no MakeHuman assets folder")?;
    let sit = std::fs::read_to_string(assets.join("poses/sit01.bvh")).map_err(|e| e.to_string())?;
    let motion = sit.find("MOTION").ok_or("sit01.bvh: no MOTION")?;
    let frame = sit
        .lines()
        .skip_while(|l| !l.starts_with("Frame Time"))
        .nth(1)
        .ok_or("sit01.bvh: no frame")?
        .to_owned();
    let long = |frames: usize, name: &str| -> Result<String, String> {
        let mut text = String::with_capacity(motion + frames * (frame.len() + 1) + 64);
        text.push_str(&sit[..motion]);
        text.push_str(&format!("MOTION\nFrames: {frames}\nFrame Time: 0.033333\n"));
        for _ in 0..frames {
            text.push_str(&frame);
            text.push('\n');
        }
        Ok(write(&work.join(name), text.as_bytes())?
            .display()
            .to_string())
    };
    let longest = long(6_000, "longest.bvh")?;
    let mut one_joint = String::from(
        "HIERARCHY\nROOT root\n{\nOFFSET 0 0 0\nCHANNELS 3 Zrotation Xrotation Yrotation\nEnd Site\n{\nOFFSET 0 0 1\n}\n}\nMOTION\nFrames: 13000\nFrame Time: 0.033333\n",
    );
    for _ in 0..13_000 {
        one_joint.push_str("0 0 0\n");
    }
    let over = write(&work.join("over.bvh"), one_joint.as_bytes())?
        .display()
        .to_string();
    let data = data.display().to_string();
    let convert = |flag: &str, value: &str, output: &str| -> Vec<String> {
        [
            "convert",
            "--quiet",
            "--rig-name",
            "default",
            "--mpfb-data",
            &data,
            flag,
            value,
            "-o",
            output,
        ]
        .iter()
        .map(|s| (*s).to_owned())
        .collect()
    };
    Ok(vec![
        Case {
            name: "a 6,000-frame clip of MakeHuman's 163 joints (58 MB), to `.glb`",
            args: convert("--animation", &longest, "out/longest.glb"),
        },
        Case {
            name: "13,000 frames on the default rig's 163 bones (over a clip's 2^21 bone keys)",
            args: convert("--animation", &over, "out/over.glb"),
        },
        Case {
            name: "its last frame as `--pose`",
            args: convert("--pose", &format!("{longest}@6000"), "out/last.g4b"),
        },
    ])
}

/// Issue 42: a `.vrm`'s clips as `.vrma` files beside it: a long clip (6,000 frames of
/// MakeHuman's 163 joints, 56 MB of BVH, under the 64 MiB a motion file may be) to a `.vrm`,
/// its human bones keyed in a `.vrma`.
fn vrma_cases(data: &Path, work: &Path) -> Result<Vec<Case>, String> {
    let assets = test_support::makehuman_assets().ok_or("no MakeHuman assets folder")?;
    let sit = std::fs::read_to_string(assets.join("poses/sit01.bvh")).map_err(|e| e.to_string())?;
    let motion = sit.find("MOTION").ok_or("sit01.bvh: no MOTION")?;
    let frame = sit
        .lines()
        .skip_while(|l| !l.starts_with("Frame Time"))
        .nth(1)
        .ok_or("sit01.bvh: no frame")?;
    let frames = 6_000;
    let mut text = String::with_capacity(motion + frames * (frame.len() + 1) + 64);
    text.push_str(&sit[..motion]);
    text.push_str(&format!("MOTION\nFrames: {frames}\nFrame Time: 0.033333\n"));
    for _ in 0..frames {
        text.push_str(frame);
        text.push('\n');
    }
    let longest = write(&work.join("vrma-longest.bvh"), text.as_bytes())?;
    let args = [
        "convert",
        "--quiet",
        "--rig-name",
        "default",
        "--mpfb-data",
        &data.display().to_string(),
        "--animation",
        &longest.display().to_string(),
        "-o",
        "out/longest.vrm",
    ]
    .iter()
    .map(|s| (*s).to_owned())
    .collect();
    Ok(vec![Case {
        name: "a 6,000-frame clip of MakeHuman's 163 joints, to a `.vrm` and its `.vrma`",
        args,
    }])
}

/// `report FILE --by-code` (issue 43): a report of 200,000 records with a warning and a note
/// each (what a large batch writes: summarised within the bounds), one a gigabyte past the
/// limit (refused by its size), and 100,000 nested arrays (refused by serde's depth limit).
fn report_cases(_data: &Path, work: &Path) -> Result<Vec<Case>, String> {
    let mut text = String::from("[");
    for i in 0..200_000 {
        if i > 0 {
            text.push(',');
        }
        text.push_str(&format!(
            r#"{{"index":{i},"status":"ok","warnings":[{{"code":"SKIN_NO_WEIGHTS","kind":"skin","severity":"warning","location":null,"message":"no weights for rig.default.json {i}"}}],"notes":[{{"code":"POSE_BAKED","kind":"fit","severity":"note","location":null,"message":"pose sit01 baked"}}]}}"#
        ));
    }
    text.push(']');
    let large = write(&work.join("report-large.json"), text.as_bytes())?;
    let huge = work.join("report-huge.json");
    std::fs::File::create(&huge)
        .and_then(|f| f.set_len((1 << 30) + 1))
        .map_err(|e| e.to_string())?;
    let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
    let deep = write(&work.join("report-deep.json"), deep.as_bytes())?;
    let case = |name, path: &Path| Case {
        name,
        args: vec![
            "report".into(),
            "--by-code".into(),
            path.display().to_string(),
        ],
    };
    Ok(vec![
        case("a batch report of 200,000 jobs, summarised by code", &large),
        case("a report a byte over 1 GiB (sparse)", &huge),
        case("a report of 100,000 nested arrays", &deep),
    ])
}
