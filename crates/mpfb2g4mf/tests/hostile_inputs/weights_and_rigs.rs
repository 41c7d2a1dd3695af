//! Issue 41, weights and rigs: a worn asset's sub-rig refuses a bone end that would fall back
//! to its default position as the main rig does; errors from writing and assembling name the
//! file that caused them.

use super::{cli, refused, stderr, stdout};
use std::path::{Path, PathBuf};

/// A copy of the shipped ponytail (`hair/ponytail01`) in `dir`, its `.mpfbskel` passed
/// through `edit`. Returns the assets folder and the `.mhclo`.
fn ponytail_copy(shipped: &Path, dir: &Path, edit: impl Fn(&str) -> String) -> (PathBuf, PathBuf) {
    let assets = dir.join("assets");
    let folder = assets.join("hair/ponytail01");
    std::fs::create_dir_all(&folder).unwrap();
    for entry in std::fs::read_dir(shipped.join("hair/ponytail01")).unwrap() {
        let entry = entry.unwrap();
        std::fs::copy(entry.path(), folder.join(entry.file_name())).unwrap();
    }
    let skel = folder.join("ponytail01.mpfbskel");
    let text = std::fs::read_to_string(&skel).unwrap();
    std::fs::write(&skel, edit(&text)).unwrap();
    (assets, folder.join("ponytail01.mhclo"))
}

#[test]
fn a_subrig_bone_on_a_vertex_the_asset_lacks_is_refused_as_the_main_rigs_are() {
    let data = test_support::mpfb_data_or_skip!(
        a_subrig_bone_on_a_vertex_the_asset_lacks_is_refused_as_the_main_rigs_are
    );
    let Some(shipped) = test_support::makehuman_assets() else {
        test_support::skip_or_fail("subrig_fallback", "no MakeHuman assets folder");
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    // `ponytail3`'s head is the mean of vertices 1297 and 1371: 1371 becomes one the
    // ponytail (10,000-odd vertices) does not have.
    let (assets, mhclo) = ponytail_copy(&shipped, dir.path(), |text| {
        let at = text.find("\"ponytail3\"").unwrap();
        let (head, tail) = text.split_at(at);
        format!("{head}{}", tail.replacen("1371", "99999", 1))
    });
    let out = dir.path().join("out.g4b");
    let wear = |extra: &[&str]| {
        cli()
            .args(["convert", "--rig-name", "default", "--mpfb-data"])
            .arg(&data)
            .arg("--assets")
            .arg(&assets)
            .arg("--hair")
            .arg(&mhclo)
            .args(extra)
            .arg("-o")
            .arg(&out)
            .output()
            .unwrap()
    };
    let skel = assets.join("hair/ponytail01/ponytail01.mpfbskel");
    refused(
        &wear(&[]),
        &out,
        &[
            skel.to_str().unwrap(),
            "/bones/ponytail3/head",
            "bone `ponytail3` head cannot be placed",
            "99999",
            "its default position would be used",
        ],
    );
    // Allowed, it is said: a warning names the bone end and why.
    let allowed = wear(&["--allow-fallback"]);
    let text = stderr(&allowed);
    assert!(allowed.status.success(), "{text}");
    assert!(
        text.contains(
            "warning   ASSET_SUBRIG_FALLBACK: ponytail01.mpfbskel: 1 sub-rig bone ends at their default position"
        )
            && text.contains("ponytail3 head"),
        "{text}"
    );
}

#[test]
fn convert_and_batch_validate_say_what_validate_warns_of() {
    let data =
        test_support::mpfb_data_or_skip!(convert_and_batch_validate_say_what_validate_warns_of);
    let dir = tempfile::tempdir().unwrap();
    // MPFB's Mixamo weights do not sum to one on every vertex: `validate` warns.
    let out = dir.path().join("mixamo.g4b");
    let converted = cli()
        .args([
            "convert",
            "--rig-name",
            "mixamo",
            "--validate",
            "--mpfb-data",
        ])
        .arg(&data)
        .arg("-o")
        .arg(&out)
        .output()
        .unwrap();
    let summary = stderr(&converted);
    assert!(converted.status.success(), "{summary}");
    let validated = cli().arg("validate").arg(&out).output().unwrap();
    let report = stdout(&validated);
    let warning = report
        .lines()
        .find_map(|l| l.split_once(": warning SKIN_WEIGHT_SUM ").map(|(_, w)| w))
        .unwrap_or_else(|| panic!("validate warns: {report}"));
    // The validator's place is the diagnostic's location, in the written file.
    let (place, message) = warning.split_once(": ").unwrap();
    let expected = format!(
        "warning   VALIDATOR_WARNING: validator: SKIN_WEIGHT_SUM: {message} (at {}: {})",
        out.display(),
        place.trim_start_matches("at ")
    );
    assert!(summary.contains(&expected), "{summary}\nvs {report}");
    assert!(!summary.contains("warnings  none"), "{summary}");

    // `batch --validate` records it among the job's warnings.
    let manifest = dir.path().join("jobs.toml");
    std::fs::write(
        &manifest,
        format!(
            "[defaults]\nmpfb_data = {:?}\n\n[[jobs]]\nrig_name = \"mixamo\"\noutput = \"batch.g4b\"\n",
            data.to_str().unwrap()
        ),
    )
    .unwrap();
    let records = dir.path().join("report.json");
    let batch = cli()
        .args(["batch", "--quiet", "--validate", "--report"])
        .arg(&records)
        .arg(&manifest)
        .output()
        .unwrap();
    assert!(batch.status.success(), "{}", stderr(&batch));
    let json: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&records).unwrap()).unwrap();
    let text = json.to_string();
    assert!(
        text.contains(r#""kind":"validate""#) && text.contains("validator: SKIN_WEIGHT_SUM"),
        "{text}"
    );
}

#[test]
fn a_mesh_without_faces_is_refused_naming_the_mesh() {
    let data = test_support::mpfb_data_or_skip!(a_mesh_without_faces_is_refused_naming_the_mesh);
    let dir = tempfile::tempdir().unwrap();
    // Vertices and no `f` line: the writers used to refuse it naming no file ("surface 0,
    // face 0: a mesh needs at least one surface", "...BodyMesh: a mesh needs at least one
    // triangle").
    let mesh = dir.path().join("nofaces.obj");
    std::fs::write(&mesh, "v 0 0 0\nv 1 0 0\nv 0 1 0\n").unwrap();
    let rig = data.join("rigs/standard/rig.default.json");
    for output in ["out.g4b", "out.glb"] {
        let out = dir.path().join(output);
        let result = cli()
            .args(["convert", "--any-topology", "--allow-fallback", "--rig"])
            .arg(&rig)
            .arg("--mesh")
            .arg(&mesh)
            .arg("-o")
            .arg(&out)
            .output()
            .unwrap();
        refused(
            &result,
            &out,
            &[mesh.to_str().unwrap(), "the mesh has no faces"],
        );
    }
}

#[test]
fn a_rig_a_gltf_skin_cannot_address_is_refused_before_it_is_fitted() {
    let data = test_support::mpfb_data_or_skip!(
        a_rig_a_gltf_skin_cannot_address_is_refused_before_it_is_fitted
    );
    let dir = tempfile::tempdir().unwrap();
    // 65,536 bones in one chain, the first on a vertex the base mesh lacks: fitting would
    // refuse that bone, so only a refusal made before fitting names the joint count (fitting
    // and assembling a 100,000-bone rig to refuse it took 4 s and 1 GB).
    let mut rig = String::from("{");
    for i in 0..=gltf_writer::MAX_JOINTS {
        let parent = if i == 0 {
            String::new()
        } else {
            format!("b{}", i - 1)
        };
        let head = if i == 0 { 99_999 } else { i % 13_000 };
        rig.push_str(&format!(
            r#"{}"b{i}": {{"head": {{"strategy": "VERTEX", "vertex_index": {head}, "default_position": [0, 0, 0]}}, "tail": {{"strategy": "VERTEX", "vertex_index": {}, "default_position": [0, 0, 1]}}, "roll": 0.0, "parent": "{parent}", "inherit_scale": "FULL", "rigify": {{}}, "use_connect": false, "use_inherit_rotation": true, "use_local_location": true}}"#,
            if i == 0 { "" } else { "," },
            (i + 1) % 13_000
        ));
    }
    rig.push('}');
    let rig_path = dir.path().join("chain.json");
    std::fs::write(&rig_path, rig).unwrap();
    let out = dir.path().join("out.glb");
    let result = cli()
        .args(["convert", "--rig"])
        .arg(&rig_path)
        .arg("--mesh")
        .arg(data.join("3dobjs/base.obj"))
        .arg("-o")
        .arg(&out)
        .output()
        .unwrap();
    refused(
        &result,
        &out,
        &[
            rig_path.to_str().unwrap(),
            "65536 bones: a glTF skin addresses at most 65,535 joints",
        ],
    );
}
