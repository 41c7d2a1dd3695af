//! Pipeline stage benchmarks on the real data, plus the baseline they are judged against:
//! `serde_json::Value` parses of the same JSON and reading `base.obj` into memory.

#![allow(missing_docs, clippy::unwrap_used)] // criterion's macros generate undocumented items.

use criterion::{Criterion, black_box, criterion_group, criterion_main};
use glam::DVec3;
use mpfb_bench::Inputs;
use mpfb_mesh::{parse_obj, vertex_groups_from_faces};
use mpfb_rig::{FitMesh, ObjFrame, fit, parse_rig};
use mpfb_weights::{BoneMap, RigBones, parse_weights, resolve};

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
    let rig = mpfb2g4mf::LoadedRig::load(&inputs.rig).unwrap();
    let mesh = mpfb2g4mf::LoadedMesh::load(&inputs.obj, None).unwrap();
    let loaded_weights = mpfb2g4mf::LoadedWeights::load(&default_weights).unwrap();
    let options = mpfb2g4mf::ConvertOptions::new(&output);
    c.bench_function("convert/fit_skin_build_write_g4b", |b| {
        b.iter(|| mpfb2g4mf::convert(&rig, &mesh, Some(&loaded_weights), &options).unwrap())
    });
    // Exactly what `mpfb2g4mf convert` does: read the inputs (the mesh on a second thread),
    // convert, write.
    c.bench_function("convert/full", |b| {
        b.iter(|| {
            let (rig, mesh, weights) =
                mpfb2g4mf::load_inputs(&inputs.rig, Some(&default_weights), &inputs.obj, None)
                    .unwrap();
            mpfb2g4mf::convert(&rig, &mesh, weights.as_ref(), &options).unwrap()
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
