//! The round-trip conformance checks behind the test suite and `cargo xtask roundtrip`:
//! MPFB -> G4MF -> MPFB (every field back), G4MF -> MPFB -> G4MF (byte for byte), and a G4MF
//! skeleton without MPFB extras -> MPFB (derived) -> refit on the base mesh.

use g4mf_writer::{Compression, ContainerOptions, write_g4b};
use glam::DVec3;
use mpfb_rig::{ObjFrame, fit};
use mpfb2g4mf::convert::Derivations;
use mpfb2g4mf::to_mpfb::{mpfb_json_text, to_mpfb};
use mpfb2g4mf::{ConvertOptions, LoadedMesh, LoadedRig, LoadedWeights, convert};
use serde::Serialize;
use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

/// What one rig's round trip measured.
#[derive(Debug, Clone, Serialize)]
pub struct RoundTrip {
    /// The rig file name.
    pub rig: String,
    /// Bones.
    pub bones: usize,
    /// MPFB -> G4MF -> MPFB: bones whose fields differ in anything but roll/positions.
    pub field_mismatches: Vec<String>,
    /// Largest roll difference (radians).
    pub max_roll_error: f64,
    /// Largest default_position / offset difference.
    pub max_position_error: f64,
    /// Weight pairs compared (0 when the rig has no weights).
    pub weight_pairs: usize,
    /// Pairs whose weight differs at float32 precision, or that are missing or extra.
    pub weight_mismatches: usize,
    /// G4MF -> MPFB -> G4MF reproduced the .g4b and the .g4tf byte for byte.
    pub byte_identical: bool,
    /// Without extras: largest head/tail error (m).
    pub derived_max_end_error: f64,
    /// Without extras: largest roll error (rad).
    pub derived_max_roll_error: f64,
    /// Without extras: largest bone-end move after refitting the derived rig (m).
    pub derived_max_refit_error: f64,
    /// Without extras: ends placed by DEFAULT (no exact cube, vertex or mean).
    pub derived_default_ends: usize,
}

fn angle(a: f64, b: f64) -> f64 {
    let d = (a - b).rem_euclid(std::f64::consts::TAU);
    d.min(std::f64::consts::TAU - d)
}

fn fit_on(rig: &mpfb_rig::Rig, mesh: &LoadedMesh) -> Result<mpfb_rig::FittedRig, String> {
    fit(rig, &mesh.fit_mesh(ObjFrame::MAKEHUMAN)).map_err(|e| e.to_string())
}

/// Runs every round trip for one rig (and its weights) on `mesh`, using `work` for files.
pub fn round_trip(
    rig_path: &Path,
    weights_path: Option<&Path>,
    mesh: &Arc<LoadedMesh>,
    work: &Path,
) -> Result<RoundTrip, String> {
    let e = |x: &dyn std::fmt::Display| x.to_string();
    let rig = Arc::new(LoadedRig::load(rig_path).map_err(|x| e(&x))?);
    let weights = weights_path
        .map(LoadedWeights::load)
        .transpose()
        .map_err(|x| e(&x))?
        .map(Arc::new);
    // The conversions below share what they derive from the same inputs, as a batch does.
    let derived = Derivations::default();
    let stem = rig_path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let name = stem.trim_start_matches("rig.").to_owned();

    // MPFB -> G4MF -> MPFB.
    let a = work.join(format!("{name}.g4b"));
    convert(
        &rig,
        mesh,
        weights.as_ref(),
        &ConvertOptions::new(&a),
        &derived,
    )
    .map_err(|x| e(&x))?;
    let file = g4mf_reader::read_path(&a, &Default::default()).map_err(|x| e(&x))?;
    let back = to_mpfb(&file, None).map_err(|x| e(&x))?;
    let back_rig = back.rig.clone();
    let mut field_mismatches = Vec::new();
    let (mut max_roll_error, mut max_position_error) = (0.0f64, 0.0f64);
    let by_name: BTreeMap<&str, &mpfb_rig::Bone> = back_rig
        .bones
        .iter()
        .map(|b| (b.name.as_str(), b))
        .collect();
    if back_rig.header != rig.rig.header {
        field_mismatches.push("(header)".into());
    }
    for bone in &rig.rig.bones {
        let Some(other) = by_name.get(bone.name.as_str()) else {
            field_mismatches.push(format!("{} (missing)", bone.name));
            continue;
        };
        max_roll_error = max_roll_error.max(angle(bone.roll, other.roll));
        for (x, y) in [(&bone.head, &other.head), (&bone.tail, &other.tail)] {
            for (p, q) in [
                (x.default_position, y.default_position),
                (x.offset, y.offset),
            ] {
                if let (Some(p), Some(q)) = (p, q) {
                    max_position_error =
                        max_position_error.max(DVec3::from_array(p).distance(DVec3::from_array(q)));
                }
            }
        }
        // Positions and offsets compare by distance (measured above); everything else exactly.
        // An end present on one side only, or off by more than 1e-9 m, is a mismatch.
        let a = bone.clone();
        let mut b = (*other).clone();
        for (x, y) in [(&a.head, &mut b.head), (&a.tail, &mut b.tail)] {
            for (p, q) in [
                (x.default_position, &mut y.default_position),
                (x.offset, &mut y.offset),
            ] {
                if let (Some(p), Some(q)) = (p, q.as_mut()) {
                    if DVec3::from_array(p).distance(DVec3::from_array(*q)) <= 1e-9 {
                        *q = p;
                    }
                }
            }
        }
        let mut a = a;
        (a.roll, b.roll) = (0.0, 0.0);
        if a != b {
            field_mismatches.push(bone.name.clone());
        }
    }
    if back_rig.bones.iter().map(|b| &b.name).collect::<Vec<_>>()
        != rig.rig.bones.iter().map(|b| &b.name).collect::<Vec<_>>()
    {
        field_mismatches.push("(bone order)".into());
    }
    let (mut weight_pairs, mut weight_mismatches) = (0, 0);
    if let (Some(input), Some(output)) = (&weights, &back.weights) {
        let mut expected: BTreeMap<(String, u32), f64> = BTreeMap::new();
        let mut groups = std::collections::BTreeSet::new();
        for g in &input.file.groups {
            groups.insert(g.name.clone());
            for &(v, w) in &g.pairs {
                if w != 0.0 {
                    *expected.entry((g.name.clone(), v)).or_default() += w;
                }
            }
        }
        let mut got: BTreeMap<(String, u32), f64> = BTreeMap::new();
        let out_groups = output["weights"].as_object().cloned().unwrap_or_default();
        for (g, pairs) in &out_groups {
            for p in pairs.as_array().map_or(&[][..], Vec::as_slice) {
                if let (Some(v), Some(w)) = (p[0].as_u64(), p[1].as_f64()) {
                    got.insert((g.clone(), v as u32), w);
                }
            }
        }
        weight_pairs = expected.len();
        weight_mismatches = expected
            .iter()
            .filter(|(k, w)| got.get(*k).is_none_or(|g| (*g as f32) != (**w as f32)))
            .count()
            + got.keys().filter(|k| !expected.contains_key(*k)).count()
            + usize::from(
                out_groups
                    .keys()
                    .cloned()
                    .collect::<std::collections::BTreeSet<_>>()
                    != groups,
            );
        for (k, v) in [
            ("copyright", &input.file.copyright),
            ("license", &input.file.license),
            ("name", &input.file.name),
            ("description", &input.file.description),
        ] {
            if output.get(k).and_then(|x| x.as_str()) != v.as_deref() {
                weight_mismatches += 1;
            }
        }
    }

    // G4MF -> MPFB -> G4MF, byte for byte, in both containers.
    let back_dir = work.join(format!("{name}-back"));
    std::fs::create_dir_all(&back_dir).map_err(|x| e(&x))?;
    let rig_back = back_dir.join(format!("rig.{name}.json"));
    std::fs::write(&rig_back, mpfb_json_text(&mpfb_rig::RigJson(&back.rig))).map_err(|x| e(&x))?;
    let weights_back = back.weights.as_ref().map(|w| {
        let p = back_dir.join(format!("weights.{name}.json"));
        std::fs::write(&p, mpfb_json_text(w)).map(|()| p)
    });
    let weights_back = weights_back.transpose().map_err(|x| e(&x))?;
    let rig2 = Arc::new(LoadedRig::load(&rig_back).map_err(|x| e(&x))?);
    let weights2 = weights_back
        .as_deref()
        .map(LoadedWeights::load)
        .transpose()
        .map_err(|x| e(&x))?
        .map(Arc::new);
    let mut byte_identical = true;
    for (ext, compression) in [
        ("g4b", Compression::None),
        ("g4tf", Compression::None),
        ("g4b", Compression::Zstd(3)),
    ] {
        let first = work.join(format!("{name}-1.{ext}"));
        let second = back_dir.join(format!("{name}-1.{ext}"));
        let mut options = ConvertOptions::new(&first);
        options.compression = compression;
        convert(&rig, mesh, weights.as_ref(), &options, &derived).map_err(|x| e(&x))?;
        options.output = second.clone();
        convert(&rig2, mesh, weights2.as_ref(), &options, &derived).map_err(|x| e(&x))?;
        byte_identical &= std::fs::read(&first).map_err(|x| e(&x))?
            == std::fs::read(&second).map_err(|x| e(&x))?;
    }

    // Without extras: derive, compare, refit.
    let mut stripped = file.document.clone();
    for node in &mut stripped.nodes {
        node.extras = None;
    }
    for m in &mut stripped.meshes {
        m.other.remove("extras");
    }
    let bytes =
        write_g4b(&mut stripped, &file.buffers, ContainerOptions::default()).map_err(|x| e(&x))?;
    let stripped_file =
        g4mf_reader::read_bytes(&bytes, None, &Default::default()).map_err(|x| e(&x))?;
    let derived = to_mpfb(&stripped_file, Some((mesh, ObjFrame::MAKEHUMAN))).map_err(|x| e(&x))?;
    let derived_rig = derived.rig.clone();
    let original = fit_on(&rig.rig, mesh)?;
    let refit = fit_on(&derived_rig, mesh)?;
    // Derived bones come in node order (depth first); map them back by sanitized name.
    let mut names = g4mf_writer::NameRegistry::new();
    let node_names: Vec<String> = rig
        .rig
        .hierarchy_order()
        .iter()
        .map(|&i| (i, names.claim(&rig.rig.bones[i].name)))
        .collect::<BTreeMap<usize, String>>()
        .into_values()
        .collect();
    let (mut end_error, mut roll_error, mut refit_error) = (0.0f64, 0.0f64, 0.0f64);
    for (i, fb) in original.bones.iter().enumerate() {
        let Some(j) = derived_rig.bone_index(&node_names[i]) else {
            return Err(format!("derived rig lacks bone {}", node_names[i]));
        };
        let d = &derived_rig.bones[j];
        let pos =
            |end: &mpfb_rig::Endpoint| end.default_position.map_or(DVec3::NAN, DVec3::from_array);
        end_error = end_error
            .max(pos(&d.head).distance(fb.head_blender))
            .max(pos(&d.tail).distance(fb.tail_blender));
        roll_error = roll_error.max(angle(d.roll, fb.roll));
        let r = &refit.bones[j];
        refit_error = refit_error
            .max(r.head_blender.distance(fb.head_blender))
            .max(r.tail_blender.distance(fb.tail_blender));
    }
    Ok(RoundTrip {
        rig: rig_path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default(),
        bones: rig.rig.bones.len(),
        field_mismatches,
        max_roll_error,
        max_position_error,
        weight_pairs,
        weight_mismatches,
        byte_identical,
        derived_max_end_error: end_error,
        derived_max_roll_error: roll_error,
        derived_max_refit_error: refit_error,
        derived_default_ends: derived.default_ends.len(),
    })
}
