//! `cargo xtask blender-check`: compares mpfb-rig's fitted bones with the edit bones Blender
//! builds from the same rig files, following MPFB's own loading code.

use glam::{DMat3, DVec3};
use mpfb_mesh::{read_obj_file, vertex_groups_from_faces};
use mpfb_rig::{FitMesh, ObjFrame, fit, frame, read_rig_file, space};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::process::Command;

/// The Blender-side rig builder every check starts with.
pub const BUILD: &str = include_str!("../blender/mpfb_build.py");
const SCRIPT: &str = include_str!("../blender/check_rigs.py");

/// Blender stores edit bones in f32: positions agree to about 1e-7 m.
const POSITION_TOLERANCE: f64 = 1e-6;
/// Our frame maths on Blender's own (f32) head, tail and roll, against Blender's matrix.
const MATHS_TOLERANCE: f64 = 2e-5;
/// Within ~6 degrees of -Y Blender truncates a series (see spec-notes/mpfb-rig.md).
const MATHS_TOLERANCE_NEAR_MINUS_Y: f64 = 1e-4;

pub fn run(args: &[String]) -> Result<(), String> {
    let mut only: Vec<String> = Vec::new();
    let mut iter = args.iter();
    while let Some(arg) = iter.next() {
        match arg.as_str() {
            "--rig" => only.push(iter.next().ok_or("--rig needs a name")?.clone()),
            other => return Err(format!("unknown argument `{other}`")),
        }
    }
    let data = test_support::mpfb_data()
        .ok_or("no complete MPFB data found: run `mpfb2g4mf data fetch`, set MPFB_DATA, or place it at ../shared/mpfb-data")?;
    ensure_blender()?;

    let rigs: Vec<PathBuf> = test_support::json_files_with_prefix(&data.join("rigs"), "rig.")
        .into_iter()
        .filter(|p| only.is_empty() || only.iter().any(|n| rig_name(p) == *n))
        .collect();
    if rigs.is_empty() {
        return Err("no rig matched".into());
    }

    let work = std::env::temp_dir().join(format!("mpfb2g4mf-blender-{}", std::process::id()));
    std::fs::create_dir_all(&work).map_err(|e| e.to_string())?;
    let obj = data.join("3dobjs/base.obj");
    let rig_map: serde_json::Map<String, Value> = rigs
        .iter()
        .map(|p| (rig_name(p), Value::String(p.display().to_string())))
        .collect();
    let request_json = json!({ "obj": obj.display().to_string(), "rigs": rig_map });
    let blender = run_blender(&work, SCRIPT, &request_json)?;

    let mesh = read_obj_file(&obj).map_err(|e| e.to_string())?;
    let frame = ObjFrame::MAKEHUMAN;
    let groups = vertex_groups_from_faces(&mesh);
    let fit_mesh = FitMesh::from_obj(&mesh.positions, frame, groups.iter());

    // "maths": our vec_roll_to_mat3 on Blender's head, tail and roll vs Blender's matrix.
    // "fit": our fitted basis vs Blender's; near -Y the basis is ill-conditioned, so f32 input
    // noise of short bones shows here (reported, not judged).
    println!(
        "{:<16} {:>5} {:>11} {:>11} {:>11} {:>11}  worst fit bone",
        "rig", "bones", "max pos (m)", "max maths", "max fit", "max roll"
    );
    let mut failures = Vec::new();
    for path in &rigs {
        let name = rig_name(path);
        let rig = read_rig_file(path).map_err(|e| e.to_string())?;
        let fitted = fit(&rig, &fit_mesh).map_err(|e| e.to_string())?;
        let theirs = blender
            .get(&name)
            .ok_or(format!("blender returned nothing for {name}"))?;
        let (mut max_pos, mut max_maths, mut max_basis, mut max_roll) =
            (0.0f64, 0.0f64, 0.0f64, 0.0f64);
        let mut worst = String::new();
        for (bone, ours) in rig.bones.iter().zip(&fitted.bones) {
            let b = &theirs[&bone.name];
            let head = vec3(&b["head"])?;
            let tail = vec3(&b["tail"])?;
            let basis = DMat3::from_cols(
                vec3(&b["matrix"][0])?,
                vec3(&b["matrix"][1])?,
                vec3(&b["matrix"][2])?,
            );
            let roll = b["roll"].as_f64().ok_or("roll")?;
            let pos_err = (head - ours.head_blender)
                .abs()
                .max_element()
                .max((tail - ours.tail_blender).abs().max_element());
            let our_basis = space::basis_g4mf_to_blender(ours.basis);
            let basis_err = max_difference(basis, our_basis);
            let maths_err = max_difference(basis, frame::vec_roll_to_mat3(tail - head, roll));
            let roll_err = angle_difference(roll, ours.roll);
            let near_minus_y = 1.0 + (tail - head).normalize().y <= 6.1e-3;
            let tolerance = if near_minus_y {
                MATHS_TOLERANCE_NEAR_MINUS_Y
            } else {
                MATHS_TOLERANCE
            };
            if pos_err > POSITION_TOLERANCE || maths_err > tolerance {
                failures.push(format!(
                    "{name} {}: position off by {pos_err:.2e}, maths by {maths_err:.2e}",
                    bone.name
                ));
            }
            max_maths = max_maths.max(maths_err);
            if basis_err > max_basis {
                worst = bone.name.clone();
            }
            max_pos = max_pos.max(pos_err);
            max_basis = max_basis.max(basis_err);
            max_roll = max_roll.max(roll_err);
        }
        println!(
            "{:<16} {:>5} {:>11.2e} {:>11.2e} {:>11.2e} {:>11.2e}  {}",
            name,
            rig.bones.len(),
            max_pos,
            max_maths,
            max_basis,
            max_roll,
            worst
        );
    }
    let _ = std::fs::remove_dir_all(&work);
    if failures.is_empty() {
        println!("all bones agree with Blender within tolerance");
        Ok(())
    } else {
        Err(format!(
            "{} bones disagree:\n{}",
            failures.len(),
            failures.join("\n")
        ))
    }
}

fn rig_name(path: &Path) -> String {
    path.file_stem()
        .and_then(|s| s.to_str())
        .map(|s| s.trim_start_matches("rig.").to_owned())
        .unwrap_or_default()
}

fn vec3(value: &Value) -> Result<DVec3, String> {
    let get = |i: usize| value[i].as_f64().ok_or(format!("not a vector: {value}"));
    Ok(DVec3::new(get(0)?, get(1)?, get(2)?))
}

fn max_difference(a: DMat3, b: DMat3) -> f64 {
    (0..3)
        .map(|c| (a.col(c) - b.col(c)).abs().max_element())
        .fold(0.0, f64::max)
}

fn angle_difference(a: f64, b: f64) -> f64 {
    let d = (a - b).rem_euclid(std::f64::consts::TAU);
    d.min(std::f64::consts::TAU - d)
}

pub fn ensure_blender() -> Result<(), String> {
    if Command::new("blender").arg("--version").output().is_ok() {
        return Ok(());
    }
    eprintln!("blender not found; installing Debian's blender package (large)...");
    let status = Command::new("sh")
        .args([
            "-c",
            "apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends blender",
        ])
        .status()
        .map_err(|e| e.to_string())?;
    if status.success() {
        Ok(())
    } else {
        Err("could not install blender with apt-get (are you root?)".into())
    }
}

/// Runs `script` (after [`BUILD`]) in headless Blender with `request`; returns its result.
pub fn run_blender(work: &Path, script: &str, request: &Value) -> Result<Value, String> {
    run_blender_script(work, &format!("{BUILD}\n{script}"), request)
}

/// Runs `script` as it is in headless Blender (`-- REQUEST RESULT` after it); returns the
/// JSON it wrote to RESULT.
pub fn run_blender_script(work: &Path, script: &str, request: &Value) -> Result<Value, String> {
    let script_path = work.join("script.py");
    let request_path = work.join("request.json");
    let result_path = work.join("result.json");
    std::fs::write(&script_path, script).map_err(|e| e.to_string())?;
    std::fs::write(&request_path, request.to_string()).map_err(|e| e.to_string())?;
    let output = Command::new("blender")
        .args([
            "-b",
            "--factory-startup",
            "--python-exit-code",
            "1",
            "--python",
        ])
        .arg(&script_path)
        .arg("--")
        .args([&request_path, &result_path])
        .output()
        .map_err(|e| format!("cannot run blender: {e}"))?;
    if !output.status.success() {
        return Err(format!(
            "blender failed:\n{}{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        ));
    }
    let text = std::fs::read_to_string(&result_path).map_err(|e| e.to_string())?;
    serde_json::from_str(&text).map_err(|e| e.to_string())
}
