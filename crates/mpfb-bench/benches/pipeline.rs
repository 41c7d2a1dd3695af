//! Pipeline stage benchmarks on the real data, plus the baseline they are judged against:
//! `serde_json::Value` parses of the same JSON and reading `base.obj` into memory.

#![allow(missing_docs, clippy::unwrap_used)] // criterion's macros generate undocumented items.

use criterion::{Criterion, black_box, criterion_group, criterion_main};
use glam::DVec3;
use mpfb_bench::Inputs;
use mpfb_mesh::{parse_obj, vertex_groups_from_faces};
use mpfb_rig::{FitMesh, ObjFrame, fit, parse_rig};
use mpfb_weights::{BoneMap, RigBones, parse_weights, resolve};
use mpfb2g4mf::convert::Derivations;
use std::sync::Arc;

fn stages(c: &mut Criterion) {
    let Some(inputs) = Inputs::find() else {
        return;
    };
    let rig_text = std::fs::read_to_string(&inputs.rig).unwrap();
    let weights_text = std::fs::read_to_string(&inputs.weights).unwrap();
    let obj_bytes = std::fs::read(&inputs.obj).unwrap();

    c.bench_function("baseline/read_obj_bytes", |b| {
        b.iter(|| std::fs::read(black_box(&inputs.obj)).unwrap())
    });
    c.bench_function("baseline/value_rig", |b| {
        b.iter(|| serde_json::from_str::<serde_json::Value>(black_box(&rig_text)).unwrap())
    });
    c.bench_function("baseline/value_weights", |b| {
        b.iter(|| serde_json::from_str::<serde_json::Value>(black_box(&weights_text)).unwrap())
    });

    c.bench_function("parse/rig", |b| {
        b.iter(|| parse_rig(black_box(&rig_text)).unwrap())
    });
    c.bench_function("parse/weights", |b| {
        b.iter(|| parse_weights(black_box(&weights_text)).unwrap())
    });
    c.bench_function("parse/obj", |b| {
        b.iter(|| parse_obj(black_box(&obj_bytes)).unwrap())
    });

    let rig = parse_rig(&rig_text).unwrap();
    let mesh = parse_obj(&obj_bytes).unwrap();
    let groups = vertex_groups_from_faces(&mesh);
    let frame = ObjFrame::MAKEHUMAN;
    let fit_mesh = FitMesh::from_obj(&mesh.positions, frame, groups.iter());
    let vertices: Vec<DVec3> = fit_mesh.vertices().to_vec();
    c.bench_function("fit/default_rig", |b| {
        b.iter(|| fit(black_box(&rig), black_box(&fit_mesh)).unwrap())
    });
    c.bench_function("fit/build_fit_mesh", |b| {
        b.iter(|| FitMesh::new(vertices.clone(), groups.iter()))
    });

    // Smooth normals of the whole base mesh (every helper too: 19,158 vertices).
    let whole = character::Mesh {
        positions: mesh
            .positions
            .iter()
            .map(|&p| DVec3::from_array(p) * 0.1)
            .collect(),
        polygons: std::sync::Arc::new(character::Polygons {
            offsets: mesh.face_offsets.clone(),
            vertices: mesh.corners.iter().map(|c| c.vertex).collect(),
            texcoords: mesh.corners.iter().map(|c| c.texcoord).collect(),
            materials: mesh.face_material.clone(),
            parts: mesh.face_group_set.clone(),
            part_sets: mesh.group_sets.clone(),
        }),
        numbering: std::sync::Arc::new(character::Numbering::identity(mesh.positions.len())),
        ..character::Mesh::default()
    };
    c.bench_function("normals/base_mesh", |b| {
        b.iter(|| character::normal_field(black_box(&whole)))
    });
    // A body's morph: the 43 macro targets a mid-range phenotype applies.
    let targets_dir = inputs
        .rig
        .parent()
        .unwrap()
        .join("../../targets/macrodetails");
    let targets: Vec<(String, mpfb_body::Target)> = std::fs::read_dir(&targets_dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.to_string_lossy().ends_with(".target.gz"))
        .take(43)
        .map(|p| {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            (name, mpfb_body::read_target_file(&p).unwrap())
        })
        .collect();
    let weighted: Vec<(&str, &mpfb_body::Target, f64)> = targets
        .iter()
        .enumerate()
        .map(|(i, (n, t))| (n.as_str(), t, 0.01 * (i + 1) as f64))
        .collect();
    c.bench_function("body/morph_43_targets", |b| {
        b.iter(|| mpfb_body::morph(black_box(&mesh.positions), black_box(&weighted)).unwrap())
    });

    let weights = parse_weights(&weights_text).unwrap();
    let game_rig = parse_rig(
        &std::fs::read_to_string(inputs.weights.with_file_name("rig.game_engine.json")).unwrap(),
    )
    .unwrap();
    let names: Vec<String> = game_rig.bones.iter().map(|b| b.name.clone()).collect();
    let bones = RigBones {
        names: &names,
        extra_bones: &[],
    };
    c.bench_function("skin/resolve_weights", |b| {
        b.iter(|| resolve(black_box(&weights), bones, &BoneMap::new(), 19158).unwrap())
    });

    // The converter on the default rig, its weights and base.obj, as the demo runs it.
    let out = tempfile::tempdir().unwrap();
    let output = out.path().join("bench.g4b");
    let default_weights = inputs.rig.with_file_name("weights.default.json");
    let rig = Arc::new(mpfb2g4mf::LoadedRig::load(&inputs.rig).unwrap());
    let mesh = Arc::new(mpfb2g4mf::LoadedMesh::load(&inputs.obj, None).unwrap());
    let loaded_weights = Arc::new(mpfb2g4mf::LoadedWeights::load(&default_weights).unwrap());
    let options = mpfb2g4mf::ConvertOptions::new(&output);
    // Each conversion on its own (nothing derived is shared), then as a batch's bodies share.
    c.bench_function("convert/fit_skin_build_write_g4b", |b| {
        b.iter(|| {
            let derived = Derivations::default();
            mpfb2g4mf::convert(&rig, &mesh, Some(&loaded_weights), &options, &derived).unwrap()
        })
    });
    let derived = Derivations::default();
    c.bench_function("convert/shared_fit_skin_build_write_g4b", |b| {
        b.iter(|| {
            mpfb2g4mf::convert(&rig, &mesh, Some(&loaded_weights), &options, &derived).unwrap()
        })
    });
    // Exactly what `mpfb2g4mf convert` does: read the inputs (the mesh on a second thread),
    // convert, write.
    c.bench_function("convert/full", |b| {
        b.iter(|| {
            let (rig, mesh, weights) =
                mpfb2g4mf::load_inputs(&inputs.rig, Some(&default_weights), &inputs.obj, None)
                    .unwrap();
            let derived = Derivations::default();
            mpfb2g4mf::convert(
                &Arc::new(rig),
                &Arc::new(mesh),
                weights.map(Arc::new).as_ref(),
                &options,
                &derived,
            )
            .unwrap()
        })
    });
    // The same baseline with the default rig's weights, the full convert's own input.
    let default_weights_text = std::fs::read_to_string(&default_weights).unwrap();
    c.bench_function("baseline/value_default_weights", |b| {
        b.iter(|| {
            serde_json::from_str::<serde_json::Value>(black_box(&default_weights_text)).unwrap()
        })
    });
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(30).measurement_time(std::time::Duration::from_secs(3));
    targets = stages
}
criterion_main!(benches);
