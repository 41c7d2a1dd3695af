//! `cargo xtask blender-bvh-check`: Blender's own BVH importer as the judge of `--pose`
//! (issue 42). Blender 3.4 reads each of MakeHuman's shipped poses (`poses/*.bvh` of the
//! assets folder) and reports every bone's world rotation from rest at the first frame
//! (`blender/bvh_check.py`); then it imports our `.glb` of each rig (unposed, no assets),
//! turns each armature bone to the world rotation of its counterpart joint and reports what
//! its armature modifier makes of the body. The results are saved as
//! `fixtures/blender/bvh-poses.json` and `fixtures/blender/bvh-vertices.json`, the
//! expectations `tests/cli/poses_blender.rs` holds `convert --pose` to. Needs Blender
//! (installed with apt when missing) and the MakeHuman assets; not part of the required tests.

use crate::blender_check::{ensure_blender, run_blender_script};
use glam::{DQuat, DVec3};
use serde_json::{Map, Value, json};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

const SCRIPT: &str = include_str!("../blender/bvh_check.py");

/// The rigs posed in Blender, and every how many body vertices one is saved (the fixture stays
/// well under 2 MB).
const RIGS: [(&str, usize); 4] = [
    ("default", 25),
    ("game_engine", 50),
    ("cmu_mb", 50),
    ("mixamo", 50),
];

/// Influences kept per vertex in the `.glb` (MPFB's weights have at most 9): every one, as in
/// the `.g4b` a `--pose` bake is read from, so Blender skins with the same weights.
const MAX_INFLUENCES: &str = "16";

/// The assets the check reads besides the poses.
const SKELETONS: [&str; 3] = [
    "rigs/default.mhskel",
    "rigs/game_engine.mhskel",
    "rigs/cmu_mb.mhskel",
];

pub fn run(_args: &[String]) -> Result<(), String> {
    let data = test_support::mpfb_data()
        .ok_or("no complete MPFB data found: run `mpfb2g4mf data fetch`, set MPFB_DATA, or place it at ../shared/mpfb-data")?;
    let assets = test_support::makehuman_assets_with(&SKELETONS)?;
    ensure_blender()?;
    let bin = binary()?;
    let poses = pose_files(&assets)?;
    let work = tempfile::tempdir().map_err(|e| e.to_string())?;
    let default_skeleton = Skeleton::read(&assets.join("rigs/default.mhskel"))?;
    let mut rigs = Vec::new();
    for (rig, stride) in RIGS {
        let glb = work.path().join(format!("{rig}.glb"));
        let convert = convert_arguments(rig);
        run_convert(&bin, &data, &convert, &glb)?;
        let nodes = GlbNodes::read(&glb)?;
        let counterparts = counterparts(rig, &nodes.bones, &default_skeleton, &assets)?;
        rigs.push(RigJob {
            rig,
            stride,
            convert,
            glb,
            nodes,
            counterparts,
        });
    }
    let request = json!({
        "poses": poses.iter().map(|(name, path)| (name.clone(), json!(path))).collect::<Map<_, _>>(),
        "rigs": rigs.iter().map(|job| (job.rig.to_owned(), job.request())).collect::<Map<_, _>>(),
    });
    let result = run_blender_script(work.path(), SCRIPT, &request)?;
    let out_dir = test_support::workspace_root().join("fixtures/blender");
    std::fs::create_dir_all(&out_dir).map_err(|e| e.to_string())?;
    let pose_fixture = poses_fixture(&poses, &result["poses"])?;
    let mut failures = Vec::new();
    for job in &rigs {
        failures.extend(job.against_our_skinning(&pose_fixture, &result["rigs"][job.rig])?);
    }
    let vertex_fixture = vertices_fixture(&rigs, &result["rigs"])?;
    for (file, fixture) in [
        ("bvh-poses.json", pose_fixture),
        ("bvh-vertices.json", vertex_fixture),
    ] {
        let path = out_dir.join(file);
        let text = serde_json::to_string(&fixture).map_err(|e| e.to_string())? + "\n";
        std::fs::write(&path, &text).map_err(|e| e.to_string())?;
        println!("wrote {} ({} KiB)", path.display(), text.len() / 1024);
    }
    if !failures.is_empty() {
        return Err(format!(
            "Blender disagrees with our skinning of the .glb:\n{}",
            failures.join("\n")
        ));
    }
    println!("now run: cargo test -p mpfb2g4mf --test integration -- poses_blender");
    Ok(())
}

/// The CLI (debug, as the tests use it), built in this workspace's target folder.
fn binary() -> Result<PathBuf, String> {
    let status = Command::new("cargo")
        .args(["build", "--quiet", "-p", "mpfb2g4mf"])
        .status()
        .map_err(|e| e.to_string())?;
    if !status.success() {
        return Err("cannot build mpfb2g4mf".into());
    }
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| test_support::workspace_root().join("target"));
    Ok(target.join("debug/mpfb2g4mf"))
}

/// Every shipped pose, by file stem, with its path (sorted by name).
fn pose_files(assets: &Path) -> Result<BTreeMap<String, PathBuf>, String> {
    let folder = assets.join("poses");
    let entries = std::fs::read_dir(&folder).map_err(|e| format!("{}: {e}", folder.display()))?;
    let mut poses = BTreeMap::new();
    for entry in entries {
        let path = entry.map_err(|e| e.to_string())?.path();
        if path.extension().is_some_and(|e| e == "bvh") {
            let stem = path.file_stem().and_then(|s| s.to_str()).unwrap_or("");
            poses.insert(stem.to_owned(), path);
        }
    }
    if poses.is_empty() {
        return Err(format!("no .bvh in {}", folder.display()));
    }
    Ok(poses)
}

/// The `convert` arguments of a rig's unposed character (no assets, base mesh, its weights).
fn convert_arguments(rig: &str) -> Vec<String> {
    ["--rig-name", rig, "--max-influences", MAX_INFLUENCES]
        .map(String::from)
        .to_vec()
}

fn run_convert(bin: &Path, data: &Path, args: &[String], output: &Path) -> Result<(), String> {
    let out = Command::new(bin)
        .arg("convert")
        .args(args)
        .arg("--mpfb-data")
        .arg(data)
        .args(["--quiet", "-o"])
        .arg(output)
        .output()
        .map_err(|e| e.to_string())?;
    if out.status.success() {
        Ok(())
    } else {
        Err(format!(
            "convert {args:?} failed: {}",
            String::from_utf8_lossy(&out.stderr)
        ))
    }
}

/// What the check needs of a `.glb`: each bone's node name (Blender's bone name) and MPFB
/// name, in node order, and the body mesh's node name (Blender's object name).
struct GlbNodes {
    bones: Vec<(String, String)>,
    body: String,
}

impl GlbNodes {
    fn read(path: &Path) -> Result<Self, String> {
        let bytes = std::fs::read(path).map_err(|e| e.to_string())?;
        let length = bytes
            .get(12..16)
            .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize)
            .ok_or("a .glb without a JSON chunk")?;
        let json: Value = serde_json::from_slice(bytes.get(20..20 + length).ok_or("short .glb")?)
            .map_err(|e| e.to_string())?;
        let nodes = json["nodes"].as_array().ok_or("no nodes")?;
        let bones = nodes
            .iter()
            .filter_map(|n| {
                let mpfb = n["extras"]["mpfb"]["name"].as_str()?;
                Some((n["name"].as_str()?.to_owned(), mpfb.to_owned()))
            })
            .collect();
        let body = nodes
            .iter()
            .find(|n| n.get("mesh").is_some() && n.get("skin").is_some())
            .and_then(|n| n["name"].as_str())
            .ok_or("no skinned mesh node")?
            .to_owned();
        Ok(GlbNodes { bones, body })
    }
}

/// MakeHuman's default skeleton: each bone's parent.
struct Skeleton {
    parent: BTreeMap<String, Option<String>>,
}

impl Skeleton {
    fn read(path: &Path) -> Result<Self, String> {
        let json = read_json(path)?;
        let bones = json["bones"].as_object().ok_or("no bones")?;
        Ok(Skeleton {
            parent: bones
                .iter()
                .map(|(name, b)| (name.clone(), b["parent"].as_str().map(String::from)))
                .collect(),
        })
    }

    /// How many bones lie above `bone`.
    fn depth(&self, bone: &str) -> usize {
        let mut depth = 0;
        let mut at = bone;
        while let Some(Some(parent)) = self.parent.get(at) {
            depth += 1;
            at = parent;
            if depth > self.parent.len() {
                break;
            }
        }
        depth
    }
}

fn read_json(path: &Path) -> Result<Value, String> {
    let text = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
    serde_json::from_slice(&text).map_err(|e| format!("{}: {e}", path.display()))
}

/// Each bone of the rig (MPFB name) and the default-skeleton bone whose world rotation it
/// takes, or none (it keeps its parent's): the same name on default; on game_engine and
/// cmu_mb the deepest of the bone's `reference` bones in MakeHuman's `.mhskel`; on any other
/// rig the default bone with the same humanoid name (the converter's humanoid tables).
fn counterparts(
    rig: &str,
    bones: &[(String, String)],
    default: &Skeleton,
    assets: &Path,
) -> Result<BTreeMap<String, Option<String>>, String> {
    let mpfb_names = bones.iter().map(|(_, mpfb)| mpfb.clone());
    match rig {
        "default" | "default_no_toes" => Ok(mpfb_names
            .map(|b| {
                let known = default.parent.contains_key(&b).then(|| b.clone());
                (b, known)
            })
            .collect()),
        "game_engine" | "cmu_mb" => {
            let skeleton = read_json(&assets.join(format!("rigs/{rig}.mhskel")))?;
            Ok(mpfb_names
                .map(|b| {
                    let references: Vec<&str> = match &skeleton["bones"][&b]["reference"] {
                        Value::String(one) => vec![one.as_str()],
                        Value::Array(list) => list.iter().filter_map(Value::as_str).collect(),
                        _ => Vec::new(),
                    };
                    let deepest = references
                        .into_iter()
                        .filter(|r| default.parent.contains_key(*r))
                        .max_by_key(|r| default.depth(r))
                        .map(String::from);
                    (b, deepest)
                })
                .collect())
        }
        _ => {
            let tables = test_support::workspace_root().join("crates/mpfb2g4mf/humanoid");
            let ours = read_json(&tables.join(format!("{rig}.json")))?;
            let theirs = read_json(&tables.join("default.json"))?;
            let by_humanoid: BTreeMap<&str, &str> = theirs
                .as_object()
                .ok_or("default.json")?
                .iter()
                .filter(|(k, _)| !k.starts_with("//"))
                .filter_map(|(k, v)| Some((v.as_str()?, k.as_str())))
                .collect();
            Ok(mpfb_names
                .map(|b| {
                    let found = ours[&b]
                        .as_str()
                        .and_then(|h| by_humanoid.get(h))
                        .map(|d| (*d).to_owned());
                    (b, found)
                })
                .collect())
        }
    }
}

/// One rig's part of the request and of the fixture.
struct RigJob {
    rig: &'static str,
    stride: usize,
    convert: Vec<String>,
    glb: PathBuf,
    nodes: GlbNodes,
    counterparts: BTreeMap<String, Option<String>>,
}

impl RigJob {
    fn request(&self) -> Value {
        let by_node: Map<String, Value> = self
            .nodes
            .bones
            .iter()
            .map(|(node, mpfb)| (node.clone(), json!(self.counterparts[mpfb])))
            .collect();
        json!({
            "glb": self.glb,
            "body": self.nodes.body,
            "counterparts": by_node,
            "stride": self.stride,
        })
    }
}

impl RigJob {
    /// Our linear blend skinning of the `.glb` (`test_support::skinning`) with each bone turned
    /// as Blender's was, against Blender's armature modifier: a check that the fixture is the
    /// pose we mean (every bone's rotation, heads carried by parents). One line per pose
    /// beyond [`POSITION_TOLERANCE`] comes back.
    fn against_our_skinning(&self, poses: &Value, blender: &Value) -> Result<Vec<String>, String> {
        let bytes = std::fs::read(&self.glb).map_err(|e| e.to_string())?;
        let tree = test_support::skinning::glb::Glb::parse(&bytes)?.tree()?;
        let rest_points = g4mf_points(&blender["rest"])?;
        let mut failures = Vec::new();
        let mut worst: f64 = 0.0;
        for (pose, posed) in blender["posed"].as_object().ok_or("no posed vertices")? {
            let rotations = &poses["poses"][pose]["rotations"];
            let turns = self.turns(&tree, rotations)?;
            let meshes = test_support::skinning::glb::meshes(&bytes, &turns)?;
            let body = meshes
                .iter()
                .find(|m| m.name == self.nodes.body)
                .ok_or("no body mesh")?;
            let matching =
                test_support::skinning::Matching::new(&rest_points, &body.rest, MATCH_TOLERANCE);
            if matching.unmatched() > 0 {
                failures.push(format!(
                    "{} {pose}: {} of Blender's vertices match none of the .glb's",
                    self.rig,
                    matching.unmatched()
                ));
            }
            let deviation = matching.deviation(&g4mf_points(posed)?, &body.posed);
            if deviation.max > POSITION_TOLERANCE {
                failures.push(format!(
                    "{} {pose}: sampled vertex {} is {:.3e} m from our skinning",
                    self.rig, deviation.worst, deviation.max
                ));
            }
            worst = worst.max(deviation.max);
        }
        println!(
            "{}: Blender's armature modifier within {worst:.1e} m of our skinning of the .glb, every pose",
            self.rig
        );
        Ok(failures)
    }

    /// Each bone node turned about its head by `W_b W_parent^-1` (G4MF axes), `W` the world
    /// rotation from rest of its counterpart joint (or its parent's).
    fn turns(
        &self,
        tree: &test_support::skinning::Tree,
        rotations: &Value,
    ) -> Result<Vec<test_support::skinning::Turn>, String> {
        let mpfb: BTreeMap<&str, &str> = self
            .nodes
            .bones
            .iter()
            .map(|(node, mpfb)| (node.as_str(), mpfb.as_str()))
            .collect();
        let is_bone = |i: usize| {
            tree.names[i]
                .as_deref()
                .is_some_and(|n| mpfb.contains_key(n))
        };
        let depth = |mut i: usize| {
            let mut d = 0;
            while let Some(p) = tree.parent[i] {
                (d, i) = (d + 1, p);
            }
            d
        };
        let mut order: Vec<usize> = (0..tree.names.len()).filter(|&i| is_bone(i)).collect();
        order.sort_by_key(|&i| depth(i));
        let mut world: Vec<DQuat> = vec![DQuat::IDENTITY; tree.names.len()];
        let mut turns = Vec::new();
        for i in order {
            // Non-bone nodes keep the identity: a root bone's parent turns nothing.
            let parent = tree.parent[i].map_or(DQuat::IDENTITY, |p| world[p]);
            let name = tree.names[i].as_deref().unwrap_or("");
            let joint = self.counterparts[mpfb[name]].as_deref();
            world[i] = match joint.map(|j| &rotations[j]) {
                Some(q) if q.is_array() => blender_quaternion_to_g4mf(q)?,
                _ => parent,
            };
            let (axis, angle) = (world[i] * parent.inverse()).to_axis_angle();
            if angle != 0.0 {
                turns.push(test_support::skinning::Turn {
                    bone: name.to_owned(),
                    axis,
                    degrees: angle.to_degrees(),
                });
            }
        }
        Ok(turns)
    }
}

/// Deformed positions agree within this (metres).
const POSITION_TOLERANCE: f64 = 2e-4;
/// Rest positions closer than this are the same vertex (metres; the fixture is rounded to a
/// micrometre).
const MATCH_TOLERANCE: f64 = 1e-5;

/// A `[w, x, y, z]` rotation in Blender's axes as a rotation in G4MF's: `[w, x, z, -y]`.
fn blender_quaternion_to_g4mf(q: &Value) -> Result<DQuat, String> {
    let c = |i: usize| q[i].as_f64().ok_or(format!("not a quaternion: {q}"));
    Ok(DQuat::from_xyzw(c(1)?, c(3)?, -c(2)?, c(0)?).normalize())
}

fn g4mf_points(list: &Value) -> Result<Vec<DVec3>, String> {
    Ok(points(list)?
        .iter()
        .map(|p| {
            DVec3::new(
                p[0].as_f64().unwrap_or(f64::NAN),
                p[1].as_f64().unwrap_or(f64::NAN),
                p[2].as_f64().unwrap_or(f64::NAN),
            )
        })
        .collect())
}

/// The `Frames:` count of a BVH file (MakeHuman poses with its first frame).
fn frame_count(path: &Path) -> Result<u64, String> {
    let text = std::fs::read_to_string(path).map_err(|e| e.to_string())?;
    text.lines()
        .find_map(|l| l.trim().strip_prefix("Frames:"))
        .and_then(|n| n.trim().parse().ok())
        .ok_or(format!("{}: no Frames line", path.display()))
}

fn poses_fixture(poses: &BTreeMap<String, PathBuf>, blender: &Value) -> Result<Value, String> {
    let mut out = Map::new();
    for (name, path) in poses {
        let pose = &blender[name];
        let rotations = pose["rotations"].as_object().ok_or("no rotations")?;
        println!(
            "{name}: {} joints, {} frames, read at scene frame {}",
            rotations.len(),
            frame_count(path)?,
            pose["frame"]
        );
        out.insert(
            name.clone(),
            json!({
                "file": format!("poses/{name}.bvh"),
                "frames": frame_count(path)?,
                "frame": pose["frame"],
                "rotations": rotations,
            }),
        );
    }
    Ok(json!({
        "//": "Blender 3.4's BVH importer (bpy.ops.import_anim.bvh, axis_forward='Y', axis_up='Z': MakeHuman's files are Z-up, so no axis change) on each of MakeHuman's shipped poses at its first frame (scene frame 1); each joint's world rotation from rest, (posed world matrix) (rest world matrix)^-1, as a unit quaternion [w, x, y, z] with w >= 0, rounded to 1e-6, in BLENDER's axes (Z up). G4MF/MakeHuman axes (Y up): a point (x, y, z) is (x, z, -y) there, so the quaternion is [w, x, z, -y]. Written by cargo xtask blender-bvh-check",
        "axes": "blender",
        "poses": out,
    }))
}

/// Blender space (Z up) to G4MF space (Y up): `(x, z, -y)`, rounded to a micrometre.
fn to_g4mf(v: &Value) -> Value {
    let c = |i: usize| v[i].as_f64().unwrap_or(f64::NAN);
    let r = |x: f64| (x * 1e6).round() / 1e6;
    json!([r(c(0)), r(c(2)), r(-c(1))])
}

fn points(list: &Value) -> Result<Vec<Value>, String> {
    Ok(list
        .as_array()
        .ok_or("no vertices from Blender")?
        .iter()
        .map(to_g4mf)
        .collect())
}

fn vertices_fixture(rigs: &[RigJob], blender: &Value) -> Result<Value, String> {
    let mut out = Map::new();
    for job in rigs {
        let result = &blender[job.rig];
        let mut posed = Map::new();
        for (pose, list) in result["posed"].as_object().ok_or("no posed vertices")? {
            posed.insert(pose.clone(), Value::Array(points(list)?));
        }
        let worst = result["pose_error"]
            .as_object()
            .ok_or("no pose errors")?
            .values()
            .filter_map(Value::as_f64)
            .fold(0.0, f64::max);
        let unposed = result["unposed_bones"].as_array().map_or(0, Vec::len);
        println!(
            "{}: {} bones ({unposed} without a counterpart), {} body vertices, every {}th saved; Blender's pose within {worst:.1e} of the rotations asked",
            job.rig,
            job.counterparts.len(),
            result["vertices"],
            job.stride
        );
        out.insert(
            job.rig.to_owned(),
            json!({
                "convert": job.convert,
                "counterparts": job.counterparts,
                "vertices": result["vertices"],
                "vertex_stride": job.stride,
                "largest_pose_error": worst,
                "rest": points(&result["rest"])?,
                "posed": posed,
            }),
        );
    }
    Ok(json!({
        "//": "Blender 3.4's glTF importer and armature modifier on our unposed .glb of each rig (convert as listed, every influence kept): each bone turned to the world rotation from rest that bvh-poses.json gives its counterpart joint (counterparts: MPFB bone -> MakeHuman default bone; null keeps its parent's), about its own rest head carried by its parent, no root translation. Body vertices in G4MF space (metres, Y up), every vertex_stride-th of Blender's mesh (glTF splits vertices at seams: match them to ours by rest position), rounded to 1e-6; largest_pose_error: Blender's posed bone rotations against those asked. Written by cargo xtask blender-bvh-check",
        "rigs": out,
    }))
}
