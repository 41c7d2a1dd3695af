//! `cargo xtask blender-pose-check`: Blender poses MPFB's rigs with their T-pose files through
//! its armature modifier (`blender/pose_check.py`, rigs built as MPFB does); the deformed
//! vertices (every 10th) and posed bone heads are saved, in G4MF space, as
//! `fixtures/blender/t-pose-<rig>.json`, the expectations `tests/cli/rest_pose.rs` holds our
//! `--rest-pose t-pose` bake to (within 0.5 mm). Needs Blender (installed with apt when
//! missing); not part of the required tests.

use crate::blender_check::run_blender;
use serde_json::{Value, json};

const SCRIPT: &str = include_str!("../blender/pose_check.py");

/// Rigs with an MPFB T-pose file, and that file's folder.
const RIGS: [(&str, &str); 3] = [
    ("default", "default_fk"),
    ("game_engine", "game_engine_fk"),
    ("cmu_mb", "cmu_mb_fk"),
];

/// Every this many vertices one is saved (the fixture stays small; the test still sees the
/// whole body).
pub const VERTEX_STRIDE: usize = 10;

/// Blender space to G4MF space: `(x, z, -y)`, rounded to 0.1 micrometre.
fn to_g4mf(v: &Value) -> Value {
    let c = |i: usize| v[i].as_f64().unwrap_or(f64::NAN);
    let r = |x: f64| (x * 1e7).round() / 1e7;
    json!([r(c(0)), r(c(2)), r(-c(1))])
}

pub fn run(_args: &[String]) -> Result<(), String> {
    let data = test_support::mpfb_data()
        .ok_or("no complete MPFB data found: run `mpfb2g4mf data fetch`, set MPFB_DATA, or place it at ../shared/mpfb-data")?;
    crate::blender_check::ensure_blender()?;
    let work = tempfile::tempdir().map_err(|e| e.to_string())?;
    let mut rigs = serde_json::Map::new();
    for (rig, folder) in RIGS {
        rigs.insert(
            rig.into(),
            json!({
                "rig": data.join(format!("rigs/standard/rig.{rig}.json")),
                "weights": data.join(format!("rigs/standard/weights.{rig}.json")),
                "pose": data.join(format!("poses/{folder}/t-pose.json")),
            }),
        );
    }
    let request = json!({ "obj": data.join("3dobjs/base.obj"), "rigs": rigs });
    let result = run_blender(work.path(), SCRIPT, &request)?;
    let out_dir = test_support::workspace_root().join("fixtures/blender");
    std::fs::create_dir_all(&out_dir).map_err(|e| e.to_string())?;
    for (rig, folder) in RIGS {
        let posed = &result[rig];
        let vertices: Vec<Value> = posed["vertices"]
            .as_array()
            .ok_or("no vertices from blender")?
            .iter()
            .step_by(VERTEX_STRIDE)
            .map(to_g4mf)
            .collect();
        let heads: serde_json::Map<String, Value> = posed["heads"]
            .as_object()
            .ok_or("no heads from blender")?
            .iter()
            .map(|(k, v)| (k.clone(), to_g4mf(v)))
            .collect();
        let fixture = json!({
            "//": "Blender 3.4's armature modifier on MPFB's rig and weights posed with this T-pose file, G4MF space (metres); written by cargo xtask blender-pose-check",
            "rig": rig,
            "pose": format!("poses/{folder}/t-pose.json"),
            "vertex_stride": VERTEX_STRIDE,
            "vertices": vertices,
            "heads": heads,
        });
        let path = out_dir.join(format!("t-pose-{rig}.json"));
        std::fs::write(
            &path,
            serde_json::to_string(&fixture).map_err(|e| e.to_string())? + "\n",
        )
        .map_err(|e| e.to_string())?;
        println!(
            "{rig}: wrote {} ({} vertices, {} bone heads)",
            path.display(),
            vertices.len(),
            heads.len()
        );
    }
    println!("now run: cargo test -p mpfb2g4mf --test integration -- t_pose_bake_matches_blender");
    Ok(())
}
