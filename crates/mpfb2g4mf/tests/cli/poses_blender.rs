//! `convert --pose` against Blender: `cargo xtask blender-bvh-check` saved what Blender 3.4's
//! own BVH importer makes of each of MakeHuman's shipped poses (`fixtures/blender/
//! bvh-poses.json`: every joint's world rotation from rest at the first frame) and what its
//! armature modifier makes of our unposed `.glb` of each rig with every bone turned to its
//! counterpart's rotation (`fixtures/blender/bvh-vertices.json`: a sample of body vertices,
//! and the counterparts used: same name on default, the deepest `.mhskel` reference bone on
//! game_engine and cmu_mb, the same humanoid name on mixamo; a bone without one keeps its
//! parent's rotation). A fresh `convert --pose NAME` must agree: each bone's world rotation
//! from its unposed rest to its baked rest within [`ANGLE_TOLERANCE`] of its counterpart's in
//! Blender ([`MIXAMO_ANGLE_TOLERANCE`] on mixamo), and the baked body's vertices within
//! [`POSITION_TOLERANCE`] of Blender's once one translation is taken out (Blender's bones
//! turn about their heads and the root stays; MakeHuman's pose also moves the root and our
//! bake stands the body on the ground). Every shipped pose on every rig: 76 conversions (a
//! rest and 17 poses a rig), about 10 s on one thread in a debug build.

use crate::common::{run, stderr, world_transforms};
use g4mf_reader::{G4mfFile, ReadOptions, read_path};
use glam::{DMat3, DQuat, DVec3};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::Path;
use test_support::skinning::Matching;

/// Bone world rotations agree within this (degrees) on default, game_engine and cmu_mb
/// (measured: within 0.0004 degree on every shipped pose, Blender's single precision).
const ANGLE_TOLERANCE: f64 = 0.1;
/// On mixamo (bones found by humanoid names): the issue allows a looser bound, but none is
/// needed. The humanoid route's approximation is in which default bone a mixamo bone copies
/// (`humanoid/mixamo.json` against `humanoid/default.json`: `Spine1`, named `Chest`, copies
/// `spine02`, so the bend of `spine04` and `spine03` happens at its head; the toes have no
/// counterpart and keep the foot's turn), and the fixture holds those counterparts; the copied
/// rotation itself is exact (measured: within 0.0004 degree, as on the other rigs).
const MIXAMO_ANGLE_TOLERANCE: f64 = 0.1;
/// Baked vertices agree within this (metres) after one translation.
const POSITION_TOLERANCE: f64 = 2e-4;
/// Rest positions closer than this are the same vertex (the fixture is rounded to 1 µm).
const MATCH_TOLERANCE: f64 = 1e-5;

fn fixture(name: &str) -> Value {
    let path = test_support::workspace_root()
        .join("fixtures/blender")
        .join(name);
    serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap()
}

fn point(v: &Value) -> DVec3 {
    DVec3::new(
        v[0].as_f64().unwrap(),
        v[1].as_f64().unwrap(),
        v[2].as_f64().unwrap(),
    )
}

fn points(v: &Value) -> Vec<DVec3> {
    v.as_array().unwrap().iter().map(point).collect()
}

/// A `[w, x, y, z]` rotation in Blender's axes (Z up) as one in G4MF's (Y up): a point
/// `(x, y, z)` of Blender's is `(x, z, -y)` of ours, and so is a quaternion's vector part.
fn from_blender(q: &Value) -> DQuat {
    let c = |i: usize| q[i].as_f64().unwrap();
    DQuat::from_xyzw(c(1), c(3), -c(2), c(0)).normalize()
}

/// The angle between two rotations (degrees), well conditioned for small ones (an arccosine
/// of a dot product near 1 is not: its rounding alone would be near 0.1 degree).
fn degrees_between(a: DQuat, b: DQuat) -> f64 {
    let d = a.inverse() * b;
    (2.0 * d.xyz().length().atan2(d.w.abs())).to_degrees()
}

/// What a conversion gives the test: each bone's world basis and parent (MPFB names), and the
/// body's vertices.
struct Converted {
    bases: BTreeMap<String, DMat3>,
    parents: BTreeMap<String, Option<String>>,
    body: Vec<DVec3>,
}

impl Converted {
    fn read(file: &G4mfFile) -> Self {
        let doc = &file.document;
        let mpfb_name = |i: usize| -> Option<String> {
            let extras = doc.nodes[i].extras.as_ref()?.value();
            doc.nodes[i].bone.as_ref()?;
            Some(extras.get("mpfb")?.get("name")?.as_str()?.to_owned())
        };
        let mut parent_node = vec![None; doc.nodes.len()];
        for (i, n) in doc.nodes.iter().enumerate() {
            for c in &n.children {
                parent_node[c.get()] = Some(i);
            }
        }
        let mut bases = BTreeMap::new();
        let mut parents = BTreeMap::new();
        let world = world_transforms(doc);
        // The body's vertices are in its node's space (the ground offset is a node's move).
        let (at, turned) = doc
            .nodes
            .iter()
            .zip(&world)
            .find_map(|(n, w)| {
                n.mesh_instance
                    .as_ref()
                    .is_some_and(|m| m.mesh.get() == 0)
                    .then_some(*w)
            })
            .unwrap();
        for (i, (_, basis)) in world.into_iter().enumerate() {
            if let Some(name) = mpfb_name(i) {
                bases.insert(name.clone(), basis);
                parents.insert(name, parent_node[i].and_then(mpfb_name));
            }
        }
        let body = file
            .read_f64(doc.meshes[0].vertices)
            .unwrap()
            .chunks_exact(3)
            .map(|v| at + turned * DVec3::from_slice(v))
            .collect();
        Converted {
            bases,
            parents,
            body,
        }
    }
}

/// `convert` of the fixture's rig, unposed or with `--pose`, to a `.g4b`, read back.
fn convert(data: &Path, assets: &Path, rig: &str, pose: Option<&str>, out: &Path) -> Converted {
    let output = out.join(format!("{rig}-{}.g4b", pose.unwrap_or("rest")));
    let mut args = vec![
        "convert",
        "--rig-name",
        rig,
        "--mpfb-data",
        data.to_str().unwrap(),
        "--assets",
        assets.to_str().unwrap(),
        // The fixture's body is the bare base mesh: no proxy eyes hide its eyes.
        "--eyes",
        "none",
        "--quiet",
        "-o",
        output.to_str().unwrap(),
    ];
    if let Some(pose) = pose {
        args.extend(["--pose", pose]);
    }
    let result = run(&args);
    assert!(
        result.status.success(),
        "{rig} {pose:?}: {}",
        stderr(&result)
    );
    Converted::read(&read_path(&output, &ReadOptions::default()).unwrap())
}

/// Each bone's expected world rotation from rest (G4MF axes): its counterpart joint's in
/// Blender's import, or its parent's when it has none.
fn expected_rotations(
    counterparts: &Value,
    rotations: &Value,
    parents: &BTreeMap<String, Option<String>>,
) -> BTreeMap<String, (DQuat, bool)> {
    let mut out: BTreeMap<String, (DQuat, bool)> = BTreeMap::new();
    // Parents first: repeat until every bone is resolved (the rigs are a few levels deep).
    while out.len() < parents.len() {
        let before = out.len();
        for (bone, parent) in parents {
            if out.contains_key(bone) {
                continue;
            }
            let own = counterparts[bone].as_str().map(|j| &rotations[j]);
            let found = match (own, parent) {
                (Some(q), _) if q.is_array() => Some((from_blender(q), true)),
                (_, None) => Some((DQuat::IDENTITY, false)),
                (_, Some(p)) => out.get(p).map(|(q, _)| (*q, false)),
            };
            if let Some(found) = found {
                out.insert(bone.clone(), found);
            }
        }
        assert!(out.len() > before, "bones whose parents never resolve");
    }
    out
}

/// The worst rotation and vertex deviations of one pose on one rig.
#[derive(Debug, Default, Clone, Copy)]
struct Measured {
    counterpart_degrees: f64,
    inherited_degrees: f64,
    vertex_metres: f64,
}

/// One pose baked on one rig against the fixtures.
fn check_pose(
    rig: &str,
    pose: &str,
    rest: &Converted,
    posed: &Converted,
    rigs: &Value,
    poses: &Value,
) -> Measured {
    let rig_fixture = &rigs["rigs"][rig];
    let rotations = &poses["poses"][pose]["rotations"];
    assert!(rotations.is_object(), "no pose {pose} in bvh-poses.json");
    let expected = expected_rotations(&rig_fixture["counterparts"], rotations, &rest.parents);
    let mut measured = Measured::default();
    for (bone, (wanted, own)) in &expected {
        let ours = DQuat::from_mat3(&(posed.bases[bone] * rest.bases[bone].inverse())).normalize();
        let degrees = degrees_between(ours, *wanted);
        if *own {
            measured.counterpart_degrees = measured.counterpart_degrees.max(degrees);
        } else {
            measured.inherited_degrees = measured.inherited_degrees.max(degrees);
        }
    }
    // Vertices: Blender's samples found among ours by rest position, compared after the mean
    // difference (one translation) is taken out.
    let blender_rest = points(&rig_fixture["rest"]);
    let blender_posed = points(&rig_fixture["posed"][pose]);
    let matching = Matching::new(&blender_rest, &rest.body, MATCH_TOLERANCE);
    assert_eq!(
        matching.unmatched(),
        0,
        "{rig}: Blender's rest vertices not among ours"
    );
    let pairs: Vec<(usize, usize)> = matching
        .candidates
        .iter()
        .enumerate()
        .flat_map(|(t, c)| c.iter().map(move |&o| (t, o)))
        .collect();
    let shift = pairs
        .iter()
        .map(|&(t, o)| posed.body[o] - blender_posed[t])
        .sum::<DVec3>()
        / pairs.len() as f64;
    measured.vertex_metres = pairs
        .iter()
        .map(|&(t, o)| (posed.body[o] - shift).distance(blender_posed[t]))
        .fold(0.0, f64::max);
    measured
}

/// Every shipped pose (the fixture's 17) baked on `rig` against Blender.
fn check_rig(rig: &str, angle_tolerance: f64) {
    let test = format!("pose_bake_matches_blender_{rig}");
    let poses = fixture("bvh-poses.json");
    let rigs = fixture("bvh-vertices.json");
    let poses_checked: Vec<&str> = poses["poses"]
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(
        poses_checked.len(),
        17,
        "the fixture holds every shipped pose"
    );
    let Some(data) = test_support::mpfb_data_or_skip(&test) else {
        return;
    };
    let mut needed: Vec<String> = poses_checked
        .iter()
        .map(|p| format!("poses/{p}.bvh"))
        .collect();
    needed.extend(["default", "game_engine", "cmu_mb"].map(|r| format!("rigs/{r}.mhskel")));
    let needed: Vec<&str> = needed.iter().map(String::as_str).collect();
    let Some(assets) = test_support::makehuman_assets_or_skip(&test, &needed) else {
        return;
    };
    let out = tempfile::tempdir().unwrap();
    let rest = convert(&data, &assets, rig, None, out.path());
    let mut failures = Vec::new();
    for pose in &poses_checked {
        let posed = convert(&data, &assets, rig, Some(pose), out.path());
        let m = check_pose(rig, pose, &rest, &posed, &rigs, &poses);
        eprintln!(
            "{rig} {pose}: bones within {:.4} deg of their counterparts (those without one {:.4} deg), vertices within {:.2e} m",
            m.counterpart_degrees, m.inherited_degrees, m.vertex_metres
        );
        if m.counterpart_degrees.max(m.inherited_degrees) > angle_tolerance
            || m.vertex_metres > POSITION_TOLERANCE
        {
            failures.push(format!("{pose}: {m:?}"));
        }
    }
    assert!(
        failures.is_empty(),
        "{rig}: beyond {angle_tolerance} deg or {POSITION_TOLERANCE} m of Blender:\n{}",
        failures.join("\n")
    );
}

/// default: each bone as the joint of its name.
#[test]
fn pose_bake_matches_blender_default() {
    check_rig("default", ANGLE_TOLERANCE);
}

/// game_engine: each bone as the deepest of its `.mhskel` reference bones.
#[test]
fn pose_bake_matches_blender_game_engine() {
    check_rig("game_engine", ANGLE_TOLERANCE);
}

/// cmu_mb: each bone as the deepest of its `.mhskel` reference bones.
#[test]
fn pose_bake_matches_blender_cmu_mb() {
    check_rig("cmu_mb", ANGLE_TOLERANCE);
}

/// mixamo: each bone as the default bone with its humanoid name.
#[test]
fn pose_bake_matches_blender_mixamo() {
    check_rig("mixamo", MIXAMO_ANGLE_TOLERANCE);
}
