//! `cargo xtask blender-gltf-check`: Blender's own glTF importer as a judge of our skins and
//! shapes (issue 39). For each variant our CLI writes the same job as `.glb` and `.g4b`
//! (`--max-influences 4`); Blender imports the `.glb` (`blender/gltf_check.py`), turns four
//! bones in world space about their heads and reports every vertex of every mesh at rest and
//! deformed by its armature modifier, and the shape keys. Those must agree with our linear
//! blend skinning of the `.g4b` (and of the `.glb`, `test_support::skinning`) within 0.2 mm
//! for every vertex, the shape keys with our blend shapes by name and within 0.01 mm. A
//! sample of Blender's results is saved as `fixtures/blender/gltf-<variant>.json`, the
//! expectations `tests/cli/blender_gltf.rs` holds fresh conversions to. Needs Blender
//! (installed with apt when missing); not part of the required tests.

use crate::blender_check::{ensure_blender, run_blender_script};
use glam::DVec3;
use serde_json::{Map, Value, json};
use std::path::{Path, PathBuf};
use std::process::Command;
use test_support::skinning::{Matching, SkinnedMesh, Turn, g4mf, glb};

const SCRIPT: &str = include_str!("../blender/gltf_check.py");

/// Influences kept per vertex in both files (four: one `JOINTS_0`/`WEIGHTS_0` set).
pub const MAX_INFLUENCES: &str = "4";
/// Every this many Blender vertices one is saved (the check itself sees them all).
pub const VERTEX_STRIDE: usize = 25;
/// Deformed positions agree within this (metres).
pub const POSITION_TOLERANCE: f64 = 2e-4;
/// Shape offsets agree within this (metres).
pub const SHAPE_TOLERANCE: f64 = 1e-5;
/// Rest positions closer than this are the same vertex (metres).
pub const MATCH_TOLERANCE: f64 = 1e-5;
/// Shape keys sampled per mesh, and moved vertices sampled per key.
const SAMPLED_KEYS: usize = 5;
const SAMPLES_PER_KEY: usize = 20;

/// A job converted both ways, and the bones Blender turns: (bone, axis in glTF/G4MF space,
/// degrees). No bone is an ancestor of another.
struct Variant {
    name: &'static str,
    convert: &'static [&'static str],
    assets: bool,
    turns: [(&'static str, [f64; 3], f64); 4],
}

/// The default rig's bones: the left upper arm raised, the right forearm turned about a
/// slanted axis, the left thigh swung, the neck (and head) turned.
const DEFAULT_TURNS: [(&str, [f64; 3], f64); 4] = [
    ("upperarm01_L", [0.0, 0.0, 1.0], 60.0),
    ("lowerarm01_R", [0.0, 0.6, 0.8], 75.0),
    ("upperleg01_L", [1.0, 0.0, 0.0], 45.0),
    ("neck01", [0.0, 1.0, 0.0], 30.0),
];

const VARIANTS: [Variant; 3] = [
    Variant {
        name: "naked",
        convert: &["--rig-name", "default"],
        assets: false,
        turns: DEFAULT_TURNS,
    },
    Variant {
        name: "game_engine-face",
        convert: &["--rig-name", "game_engine", "--face-units", "--visemes"],
        assets: false,
        turns: [
            ("upperarm_l", [0.0, 0.0, 1.0], 60.0),
            ("lowerarm_r", [0.0, 0.6, 0.8], 75.0),
            ("thigh_l", [1.0, 0.0, 0.0], 45.0),
            ("neck_01", [0.0, 1.0, 0.0], 30.0),
        ],
    },
    Variant {
        name: "dressed",
        convert: &[
            "--rig-name",
            "default",
            "--hair",
            "ponytail01",
            "--clothes",
            "shoes01",
            "--eyebrows",
            "eyebrow001",
        ],
        assets: true,
        turns: DEFAULT_TURNS,
    },
];

impl Variant {
    fn turns(&self) -> Vec<Turn> {
        self.turns
            .iter()
            .map(|&(bone, axis, degrees)| Turn {
                bone: bone.into(),
                axis: DVec3::from_array(axis),
                degrees,
            })
            .collect()
    }
}

/// Blender space (Z up) to glTF/G4MF space (Y up): `(x, z, -y)`.
fn to_gltf(v: &Value) -> DVec3 {
    let c = |i: usize| v[i].as_f64().unwrap_or(f64::NAN);
    DVec3::new(c(0), c(2), -c(1))
}

/// Rounded to 0.1 micrometre for the fixture.
fn rounded(v: DVec3) -> Value {
    let r = |x: f64| (x * 1e7).round() / 1e7;
    json!([r(v.x), r(v.y), r(v.z)])
}

/// Builds the CLI (debug, as the tests use it) and returns its path.
fn binary() -> Result<PathBuf, String> {
    let status = Command::new("cargo")
        .args(["build", "--quiet", "-p", "mpfb2g4mf"])
        .status()
        .map_err(|e| e.to_string())?;
    if !status.success() {
        return Err("cannot build mpfb2g4mf".into());
    }
    Ok(test_support::workspace_root().join("target/debug/mpfb2g4mf"))
}

/// `convert` of a variant into `output`.
fn convert(
    bin: &Path,
    variant: &Variant,
    data: &Path,
    assets: Option<&Path>,
    output: &Path,
) -> Result<(), String> {
    let mut command = Command::new(bin);
    command.arg("convert").args(variant.convert);
    command.arg("--mpfb-data").arg(data);
    if let Some(assets) = assets {
        command.arg("--assets").arg(assets);
    }
    command
        .args(["--max-influences", MAX_INFLUENCES, "--quiet", "-o"])
        .arg(output);
    let out = command.output().map_err(|e| e.to_string())?;
    if out.status.success() {
        Ok(())
    } else {
        Err(format!(
            "{}: convert failed: {}",
            variant.name,
            String::from_utf8_lossy(&out.stderr)
        ))
    }
}

pub fn run(_args: &[String]) -> Result<(), String> {
    let data = test_support::mpfb_data()
        .ok_or("no complete MPFB data found: run `mpfb2g4mf data fetch`, set MPFB_DATA, or place it at ../shared/mpfb-data")?;
    let assets = test_support::makehuman_assets();
    ensure_blender()?;
    let bin = binary()?;
    let work = tempfile::tempdir().map_err(|e| e.to_string())?;
    let mut request = Map::new();
    let mut ran = Vec::new();
    for variant in &VARIANTS {
        let assets = match (variant.assets, &assets) {
            (false, _) => None,
            (true, Some(a)) => Some(a.as_path()),
            (true, None) => {
                println!("{}: skipped, no MakeHuman assets folder", variant.name);
                continue;
            }
        };
        for ext in ["glb", "g4b"] {
            let output = work.path().join(format!("{}.{ext}", variant.name));
            convert(&bin, variant, &data, assets, &output)?;
        }
        let turns: Vec<Value> = variant
            .turns
            .iter()
            .map(|(bone, axis, degrees)| json!({"bone": bone, "axis": axis, "degrees": degrees}))
            .collect();
        request.insert(
            variant.name.into(),
            json!({"glb": work.path().join(format!("{}.glb", variant.name)), "turns": turns}),
        );
        ran.push(variant);
    }
    let result = run_blender_script(work.path(), SCRIPT, &json!({ "variants": request }))?;
    let out_dir = test_support::workspace_root().join("fixtures/blender");
    std::fs::create_dir_all(&out_dir).map_err(|e| e.to_string())?;
    let mut report = Report::default();
    for variant in ran {
        let fixture = check_variant(variant, &result[variant.name], work.path(), &mut report)?;
        let path = out_dir.join(format!("gltf-{}.json", variant.name));
        let text = serde_json::to_string(&fixture).map_err(|e| e.to_string())?;
        std::fs::write(&path, text + "\n").map_err(|e| e.to_string())?;
        report.written.push(path);
    }
    report.print();
    if report.failures.is_empty() {
        println!("now run: cargo test -p mpfb2g4mf --test integration -- blender_gltf");
        Ok(())
    } else {
        Err(format!(
            "Blender disagrees:\n{}",
            report.failures.join("\n")
        ))
    }
}

/// The tables' rows and what failed.
#[derive(Default)]
struct Report {
    positions: Vec<String>,
    shapes: Vec<String>,
    bones: Vec<String>,
    failures: Vec<String>,
    written: Vec<PathBuf>,
}

impl Report {
    fn print(&self) {
        println!(
            "| variant | mesh | Blender vertices | G4MF vertices | at one position | rest (m) | moved up to (m) | vs G4MF LBS (m) | vs glTF LBS (m) |"
        );
        println!("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
        self.positions.iter().for_each(|r| println!("{r}"));
        println!();
        println!("| variant | mesh | shape keys | vs G4MF (m) | vs glTF (m) |");
        println!("| --- | --- | ---: | ---: | ---: |");
        self.shapes.iter().for_each(|r| println!("{r}"));
        println!();
        println!(
            "| variant | bones | turned heads vs G4MF (m) | turned matrices, Blender's error | heads at import vs G4MF (m) | +Y turned at import (deg) | edit bones' heads vs posed (m) |"
        );
        println!("| --- | ---: | ---: | ---: | ---: | ---: | ---: |");
        self.bones.iter().for_each(|r| println!("{r}"));
        println!();
        for path in &self.written {
            println!("wrote {}", path.display());
        }
    }
}

/// One variant: Blender's meshes and shape keys against our skinning of both files; the
/// fixture to save.
fn check_variant(
    variant: &Variant,
    blender: &Value,
    work: &Path,
    report: &mut Report,
) -> Result<Value, String> {
    let name = variant.name;
    let turns = variant.turns();
    let g4b = work.join(format!("{name}.g4b"));
    let file = g4mf_reader::read_path(&g4b, &g4mf_reader::ReadOptions::default())
        .map_err(|e| e.to_string())?;
    let ours = g4mf::meshes(&file, &turns)?;
    let glb_bytes = std::fs::read(work.join(format!("{name}.glb"))).map_err(|e| e.to_string())?;
    let theirs_glb = glb::meshes(&glb_bytes, &turns)?;
    let objects = blender["meshes"]
        .as_object()
        .ok_or("no meshes from Blender")?;
    let mut meshes = Map::new();
    let mut shapes = Map::new();
    if objects.len() != ours.len() {
        report.failures.push(format!(
            "{name}: Blender imported {} meshes, the G4MF file has {}",
            objects.len(),
            ours.len()
        ));
    }
    for (object, values) in objects {
        let find = |list: &'_ [SkinnedMesh]| list.iter().position(|m| m.name == *object);
        let (Some(o), Some(g)) = (find(&ours), find(&theirs_glb)) else {
            report.failures.push(format!(
                "{name}: Blender's mesh {object} is in neither file"
            ));
            continue;
        };
        let mesh = MeshCheck::new(name, object, values, &ours[o], &theirs_glb[g]);
        meshes.insert(object.clone(), mesh.positions(report));
        if let Some(keys) = blender["shape_keys"][object].as_array() {
            shapes.insert(object.clone(), mesh.shapes(keys, report));
        }
    }
    let bones = bones(variant, blender, &file, &turns, report)?;
    Ok(json!({
        "//": "Blender 3.4's glTF importer and armature modifier on our .glb of this job, the bones turned in world space about their heads; glTF/G4MF space (metres); every vertex_stride-th Blender vertex; largest_* measured over every vertex by cargo xtask blender-gltf-check",
        "variant": name,
        "convert": variant.convert,
        "assets": variant.assets,
        "max_influences": MAX_INFLUENCES.parse::<u32>().unwrap_or(4),
        "turns": variant.turns.iter().map(|(bone, axis, degrees)| json!({"bone": bone, "axis": axis, "degrees": degrees})).collect::<Vec<_>>(),
        "vertex_stride": VERTEX_STRIDE,
        "bones": bones,
        "meshes": meshes,
        "shape_keys": shapes,
    }))
}

/// One Blender mesh object against our G4MF mesh and glTF mesh of the same name.
struct MeshCheck<'a> {
    variant: &'a str,
    object: &'a str,
    rest: Vec<DVec3>,
    posed: Vec<DVec3>,
    ours: &'a SkinnedMesh,
    glb: &'a SkinnedMesh,
    to_ours: Matching,
    to_glb: Matching,
}

impl<'a> MeshCheck<'a> {
    fn new(
        variant: &'a str,
        object: &'a str,
        values: &Value,
        ours: &'a SkinnedMesh,
        glb: &'a SkinnedMesh,
    ) -> Self {
        let points = |key: &str| -> Vec<DVec3> {
            values[key]
                .as_array()
                .map_or(&[][..], Vec::as_slice)
                .iter()
                .map(to_gltf)
                .collect()
        };
        let (rest, posed) = (points("rest"), points("posed"));
        let to_ours = Matching::new(&rest, &ours.rest, MATCH_TOLERANCE);
        let to_glb = Matching::new(&rest, &glb.rest, MATCH_TOLERANCE);
        MeshCheck {
            variant,
            object,
            rest,
            posed,
            ours,
            glb,
            to_ours,
            to_glb,
        }
    }

    /// Positions: every vertex matched, deformed alike; the table row and the fixture entry.
    fn positions(&self, report: &mut Report) -> Value {
        let (variant, object) = (self.variant, self.object);
        // Several of ours at one rest position (an asset's doubled vertices) must each deform
        // as Blender's vertex does: `deviation` counts every candidate.
        let unmatched = self.to_ours.unmatched() + self.to_glb.unmatched();
        if unmatched > 0 || self.posed.len() != self.rest.len() {
            report.failures.push(format!(
                "{variant} {object}: {unmatched} vertices without a match in our files"
            ));
        }
        let rest = self.to_ours.deviation(&self.rest, &self.ours.rest);
        let vs_g4mf = self.to_ours.deviation(&self.posed, &self.ours.posed);
        let vs_glb = self.to_glb.deviation(&self.posed, &self.glb.posed);
        let moved = self
            .rest
            .iter()
            .zip(&self.posed)
            .map(|(a, b)| a.distance(*b))
            .fold(0.0, f64::max);
        for (what, d) in [("G4MF", vs_g4mf), ("glTF", vs_glb)] {
            if d.max > POSITION_TOLERANCE {
                report.failures.push(format!(
                    "{variant} {object}: vertex {} is {:.3e} m from our {what} skinning",
                    d.worst, d.max
                ));
            }
        }
        report.positions.push(format!(
            "| {variant} | {object} | {} | {} | {} | {:.1e} | {moved:.3} | {:.1e} | {:.1e} |",
            self.rest.len(),
            self.ours.rest.len() - self.to_ours.ours_unmatched,
            self.to_ours.ambiguous(),
            rest.max,
            vs_g4mf.max,
            vs_glb.max
        ));
        let sample = |points: &[DVec3]| -> Vec<Value> {
            points
                .iter()
                .step_by(VERTEX_STRIDE)
                .map(|&p| rounded(p))
                .collect()
        };
        json!({
            "vertices": self.rest.len(),
            "largest_deviation": {"g4mf": vs_g4mf.max, "glb": vs_glb.max, "rest": rest.max},
            "largest_movement": moved,
            "rest": sample(&self.rest),
            "posed": sample(&self.posed),
        })
    }

    /// Shape keys: our shapes' names in order, offsets alike; the table row and the fixture
    /// entry (every name, a few keys' offsets at some moved vertices).
    fn shapes(&self, keys: &[Value], report: &mut Report) -> Value {
        let (variant, object) = (self.variant, self.object);
        let names: Vec<&str> = keys
            .iter()
            .map(|k| k["name"].as_str().unwrap_or(""))
            .collect();
        let ours: Vec<&str> = self.ours.shapes.iter().map(|s| s.name.as_str()).collect();
        let glb: Vec<&str> = self.glb.shapes.iter().map(|s| s.name.as_str()).collect();
        if names != ours || names != glb {
            report.failures.push(format!(
                "{variant} {object}: shape keys {names:?}, G4MF shapes {ours:?}, glTF targets {glb:?}"
            ));
        }
        let (mut worst_g4mf, mut worst_glb) = (0.0f64, 0.0f64);
        let mut samples = Map::new();
        let sampled: Vec<usize> = (0..SAMPLED_KEYS)
            .map(|k| k * keys.len().saturating_sub(1) / (SAMPLED_KEYS - 1).max(1))
            .collect();
        for (k, key) in keys.iter().enumerate() {
            let mut offsets = vec![DVec3::ZERO; self.rest.len()];
            let mut moved = Vec::new();
            for entry in key["offsets"].as_array().into_iter().flatten() {
                let i = entry[0].as_u64().unwrap_or(0) as usize;
                offsets[i] = to_gltf(&json!([entry[1], entry[2], entry[3]]));
                moved.push(i);
            }
            if let (Some(o), Some(g)) = (self.ours.shapes.get(k), self.glb.shapes.get(k)) {
                worst_g4mf = worst_g4mf.max(self.to_ours.deviation(&offsets, &o.offsets).max);
                worst_glb = worst_glb.max(self.to_glb.deviation(&offsets, &g.offsets).max);
            }
            if sampled.contains(&k) && !moved.is_empty() {
                let step = moved.len().div_ceil(SAMPLES_PER_KEY);
                let list: Vec<Value> = moved
                    .iter()
                    .step_by(step)
                    .map(|&i| json!([rounded(self.rest[i]), rounded(offsets[i])]))
                    .collect();
                samples.insert(names[k].to_owned(), Value::Array(list));
            }
        }
        if worst_g4mf.max(worst_glb) > SHAPE_TOLERANCE {
            report.failures.push(format!(
                "{variant} {object}: shape offsets off by {worst_g4mf:.2e} m (G4MF), {worst_glb:.2e} m (glTF)"
            ));
        }
        report.shapes.push(format!(
            "| {variant} | {object} | {} | {worst_g4mf:.1e} | {worst_glb:.1e} |",
            keys.len()
        ));
        json!({
            "names": names,
            "largest_deviation": {"g4mf": worst_g4mf, "glb": worst_glb},
            "samples": samples,
        })
    }
}

/// The bones as Blender imported them against the G4MF file's: the turned heads (fixture),
/// and at import every head, +Y axis, and the edit bones' heads (reported).
fn bones(
    variant: &Variant,
    blender: &Value,
    file: &g4mf_reader::G4mfFile,
    turns: &[Turn],
    report: &mut Report,
) -> Result<Value, String> {
    let tree = g4mf::tree(file);
    let rest = tree.rest()?;
    let node = |name: &str| tree.names.iter().position(|n| n.as_deref() == Some(name));
    let mut heads = Map::new();
    let (mut turned_head, mut matrix_error) = (0.0f64, 0.0f64);
    for turn in turns {
        let theirs = &blender["turned"][&turn.bone];
        let head = to_gltf(&theirs["head"]);
        let ours = node(&turn.bone).ok_or(format!("no bone {}", turn.bone))?;
        turned_head = turned_head.max(head.distance(rest[ours].translation));
        matrix_error = matrix_error.max(theirs["matrix_error"].as_f64().unwrap_or(f64::NAN));
        heads.insert(turn.bone.clone(), rounded(head));
    }
    let (mut head, mut edit) = (0.0f64, 0.0f64);
    // Bones whose +Y Blender's bone heuristic turned away from ours (by more than 0.01 deg).
    let mut turned_axes = Map::new();
    let at_import = blender["bones_at_import"].as_object().ok_or("no bones")?;
    for (bone, values) in at_import {
        let Some(ours) = node(bone) else {
            report.failures.push(format!(
                "{}: Blender's bone {bone} is not in the G4MF file",
                variant.name
            ));
            continue;
        };
        let posed_head = to_gltf(&values["head"]);
        head = head.max(posed_head.distance(rest[ours].translation));
        let degrees = to_gltf(&values["y_axis"])
            .angle_between(rest[ours].matrix3.y_axis)
            .to_degrees();
        if degrees > 0.01 {
            turned_axes.insert(bone.clone(), json!((degrees * 100.0).round() / 100.0));
        }
        edit = edit.max(to_gltf(&values["rest_head"]).distance(posed_head));
    }
    if turned_head > POSITION_TOLERANCE || head > POSITION_TOLERANCE {
        report.failures.push(format!(
            "{}: bone heads {turned_head:.2e} m (turned), {head:.2e} m (at import) from ours",
            variant.name
        ));
    }
    report.bones.push(format!(
        "| {} | {} | {turned_head:.1e} | {matrix_error:.1e} | {head:.1e} | {} | {edit:.4} |",
        variant.name,
        at_import.len(),
        turned_axes
            .iter()
            .map(|(bone, degrees)| format!("{bone} {degrees}"))
            .collect::<Vec<_>>()
            .join(", ")
    ));
    Ok(json!({
        "count": at_import.len(),
        "turned_heads": heads,
        "largest_head_distance_at_import": head,
        "y_axis_turned_at_import_degrees": turned_axes,
        "largest_edit_bone_offset": edit,
    }))
}
