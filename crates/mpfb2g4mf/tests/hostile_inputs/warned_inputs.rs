//! Inputs that convert but not as asked, each said under its code (issue 43): a rig end
//! placed by its default and a roll kept, a BVH file without MakeHuman's axis joints, a mesh
//! with no `body` group and no human height; weights above 1, naming no bone or leaving
//! vertices unweighted, an asset's custom weights that name no bone; mirrored texture
//! coordinates and a colour profile; an image URL `to-gltf` keeps; a description's assets
//! without an assets folder.

use super::{cli, fake_assets, stderr};
use std::path::Path;
use std::process::Output;

/// The `(code, message)` of each warning and note of a `--json` run's summary.
fn said_by(output: &Output) -> Vec<(String, String)> {
    assert!(output.status.success(), "{}", stderr(output));
    let summary: serde_json::Value = serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", stderr(output)));
    ["warnings", "notes"]
        .iter()
        .flat_map(|list| summary[list].as_array().unwrap().clone())
        .map(|d| {
            let text = |k: &str| d[k].as_str().unwrap().to_owned();
            (text("code"), text("message"))
        })
        .collect()
}

/// Asserts that `said` holds `code` with a message containing `sentence`.
fn assert_said(said: &[(String, String)], code: &str, sentence: &str) {
    assert!(
        said.iter()
            .any(|(c, message)| c == code && message.contains(sentence)),
        "{code} `{sentence}` not in {said:#?}"
    );
}

/// A one-bone rig whose head is on a vertex the mesh lacks (placed by its default with
/// `--allow-fallback`) and whose roll strategy is along the bone; a square with no `body`
/// group, a decimetre tall; a BVH file turning `root`. No MPFB data: every input is a file.
#[test]
fn a_rig_end_by_default_a_kept_roll_a_z_up_pose_and_a_bodyless_mesh_are_said() {
    let dir = tempfile::tempdir().unwrap();
    let mesh = dir.path().join("plain.obj");
    std::fs::write(&mesh, "v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nf 1 2 3 4\n").unwrap();
    let rig = dir.path().join("rig.json");
    std::fs::write(
        &rig,
        r#"{"root": {"head": {"strategy": "VERTEX", "vertex_index": 5, "default_position": [0, 0, 0]},
            "tail": {"strategy": "DEFAULT", "default_position": [0, 0, 1]}, "roll": 0.0,
            "roll_strategy": "ALIGN_Z_WORLD_Z", "parent": "", "use_connect": false,
            "use_inherit_rotation": true, "use_local_location": true, "inherit_scale": "FULL",
            "rigify": {}}}"#,
    )
    .unwrap();
    let pose = dir.path().join("turn.bvh");
    std::fs::write(
        &pose,
        "HIERARCHY\nROOT root\n{\nOFFSET 0 0 0\nCHANNELS 3 Zrotation Xrotation Yrotation\nEnd Site\n{\nOFFSET 0 0 1\n}\n}\nMOTION\nFrames: 1\nFrame Time: 0.04\n0 0 10\n",
    )
    .unwrap();
    let output = cli()
        .arg("convert")
        .arg("--mesh")
        .arg(&mesh)
        .arg("--rig")
        .arg(&rig)
        .arg("--pose")
        .arg(&pose)
        .args([
            "--any-topology",
            "--allow-fallback",
            "--helpers",
            "none",
            "--json",
            "-o",
        ])
        .arg(dir.path().join("out.g4b"))
        .output()
        .unwrap();
    let said = said_by(&output);
    assert_said(
        &said,
        "FIT_FALLBACK",
        "bone end root head (vertex 5 is beyond the mesh's 4 vertices) at its default position",
    );
    assert_said(
        &said,
        "FIT_ROLL_KEPT",
        "bone `root` is parallel to the reference axis of ALIGN_Z_WORLD_Z; kept its stored roll",
    );
    assert_said(
        &said,
        "POSE_AXES_GUESSED",
        "none of MakeHuman's axis joints (upperleg02.L, spine01, ...) is in",
    );
    assert_said(
        &said,
        "HELPERS_NO_BODY_GROUP",
        "plain.obj: no `body` group; exporting every face",
    );
    assert_said(
        &said,
        "BODY_SCALE_SUSPECT",
        "the body is 0.100 m tall with mesh scale 0.1",
    );
}

/// The default weights without vertices 0 to 9 and with a group `nobone` weighing vertex 20
/// at 1.5; clothes whose custom weights give vertex 0 to `root` and vertex 1 to `nobone`
/// (their third vertex has none). Taken to glTF, the unweighted go to the root bone. Without
/// a skin, custom weights naming no bone leave the clothes unweighted.
#[test]
fn weights_short_heavy_or_naming_no_bone_are_said() {
    let Some(data) = test_support::mpfb_data_or_skip("weights_short_heavy_or_naming_no_bone")
    else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let mut weights: serde_json::Value = serde_json::from_slice(
        &std::fs::read(data.join("rigs/standard/weights.default.json")).unwrap(),
    )
    .unwrap();
    for pairs in weights["weights"].as_object_mut().unwrap().values_mut() {
        pairs
            .as_array_mut()
            .unwrap()
            .retain(|pair| pair[0].as_u64().unwrap() >= 10);
    }
    weights["weights"]["nobone"] = serde_json::json!([[20, 1.5]]);
    let short = dir.path().join("weights.short.json");
    std::fs::write(&short, serde_json::to_vec(&weights).unwrap()).unwrap();
    let clothes = |case: &str, custom: &str| {
        let (assets, mhclo) = fake_assets(
            dir.path(),
            case,
            "name bad\nobj_file bad.obj\nvertexboneweights_file bad.mhw\nverts 0\n1\n2\n3\n",
        );
        std::fs::write(mhclo.with_file_name("bad.mhw"), custom).unwrap();
        assets
    };
    let convert = |rig: &[&str], assets: &Path, out: &Path| {
        cli()
            .args(["convert", "--helpers", "none", "--json", "--mpfb-data"])
            .arg(&data)
            .args(rig)
            .arg("--assets")
            .arg(assets)
            .args(["--clothes", "bad", "-o"])
            .arg(out)
            .output()
            .unwrap()
    };

    let assets = clothes(
        "some",
        r#"{"weights": {"root": [[0, 1]], "nobone": [[1, 1]]}}"#,
    );
    let g4b = dir.path().join("short.g4b");
    let said = said_by(&convert(
        &[
            "--rig-name",
            "default",
            "--weights",
            short.to_str().unwrap(),
        ],
        &assets,
        &g4b,
    ));
    assert_said(
        &said,
        "SKIN_WEIGHT_ABOVE_ONE",
        "group `nobone` gives vertex 20 a weight of 1.5, above 1",
    );
    assert_said(
        &said,
        "SKIN_GROUP_UNKNOWN_BONE",
        "group `nobone` is not a bone of the rig; its weights are dropped",
    );
    assert_said(
        &said,
        "SKIN_GROUP_DROPPED",
        "group `nobone` dropped (NotInRig): 1 vertices, total weight 1.5000",
    );
    assert_said(
        &said,
        "SKIN_UNWEIGHTED_VERTICES",
        "10 kept vertices are moved by no bone",
    );
    assert_said(
        &said,
        "ASSET_CUSTOM_GROUPS_LEFT_OUT",
        "bad.mhw: 1 custom weight groups name no bone of this rig and were left out",
    );
    assert_said(
        &said,
        "ASSET_VERTICES_TO_ROOT",
        "bad.mhclo: 2 vertices no bone weights were given to the root bone `root`",
    );

    let to_gltf = cli()
        .arg("to-gltf")
        .arg(&g4b)
        .arg("-o")
        .arg(dir.path().join("short.glb"))
        .output()
        .unwrap();
    let text = stderr(&to_gltf);
    assert!(to_gltf.status.success(), "{text}");
    assert!(
        text.contains(
            "  note      UNWEIGHTED_TO_ROOT: 10 vertices no bone moves were given to the root bone with weight 1"
        ),
        "{text}"
    );
    // The G4MF file's extras for MPFB have no place in a glTF file: said, not dropped silently.
    assert!(
        text.contains("  note      G4MF_READ_NOTE: /nodes/")
            && text.contains("extras are left out"),
        "{text}"
    );

    let assets = clothes("none", r#"{"weights": {"nobone": [[0, 1]]}}"#);
    let rig = data.join("rigs/standard/rig.default.json");
    let said = said_by(&convert(
        &["--rig", rig.to_str().unwrap()],
        &assets,
        &dir.path().join("bare.g4b"),
    ));
    assert_said(
        &said,
        "ASSET_CUSTOM_WEIGHTS_UNUSED",
        "bad.mhw: none of the custom weights' groups names a bone of this rig; weights inherited from the body instead",
    );
    assert_said(
        &said,
        "ASSET_UNWEIGHTED_VERTICES",
        "3 vertices of bad are moved by no bone",
    );
}

/// 2 x 2 pixels, RGB, each `(128, 128, 255)` (a flat normal), with an `iCCP` chunk.
fn flat_normal_png_with_a_profile() -> Vec<u8> {
    fn chunk(kind: &[u8], data: &[u8]) -> Vec<u8> {
        let mut out = (data.len() as u32).to_be_bytes().to_vec();
        out.extend_from_slice(kind);
        out.extend_from_slice(data);
        let mut crc = flate2::Crc::new();
        crc.update(kind);
        crc.update(data);
        out.extend_from_slice(&crc.sum().to_be_bytes());
        out
    }
    let deflate = |bytes: &[u8]| {
        use std::io::Write;
        let mut z = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::default());
        z.write_all(bytes).unwrap();
        z.finish().unwrap()
    };
    let mut header = 2u32.to_be_bytes().to_vec();
    header.extend(2u32.to_be_bytes());
    header.extend([8, 2, 0, 0, 0]);
    let row = [0, 128, 128, 255, 128, 128, 255];
    let mut profile = b"x\0\0".to_vec();
    profile.extend(deflate(b"profile"));
    let mut png = b"\x89PNG\r\n\x1a\n".to_vec();
    png.extend(chunk(b"IHDR", &header));
    png.extend(chunk(b"iCCP", &profile));
    png.extend(chunk(b"IDAT", &deflate(&[row, row].concat())));
    png.extend(chunk(b"IEND", &[]));
    png
}

/// Clothes of two triangles sharing an edge, the second's texture coordinates mirrored, with
/// a normal map that embeds a colour profile, written as a `.glb` (which has tangents).
#[test]
fn mirrored_texture_coordinates_and_a_colour_profile_are_said() {
    let Some(data) = test_support::mpfb_data_or_skip("mirrored_texture_coordinates") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let (assets, mhclo) = fake_assets(
        dir.path(),
        "mirrored",
        "name bad\nobj_file bad.obj\nmaterial bad.mhmat\nverts 0\n1\n2\n3\n4\n",
    );
    let folder = mhclo.parent().unwrap();
    std::fs::write(
        folder.join("bad.obj"),
        "v 0 0 0\nv 1 0 0\nv 0 1 0\nv -1 0 0\nvt 0 0\nvt 1 0\nvt 0 1\nf 1/1 2/2 3/3\nf 1/1 3/3 4/2\n",
    )
    .unwrap();
    std::fs::write(
        folder.join("bad.mhmat"),
        "name bad\nnormalmapTexture n.png\n",
    )
    .unwrap();
    std::fs::write(folder.join("n.png"), flat_normal_png_with_a_profile()).unwrap();
    let output = cli()
        .args([
            "convert",
            "--helpers",
            "none",
            "--rig-name",
            "default",
            "--json",
        ])
        .arg("--mpfb-data")
        .arg(&data)
        .arg("--assets")
        .arg(&assets)
        .args(["--clothes", "bad", "-o"])
        .arg(dir.path().join("out.glb"))
        .output()
        .unwrap();
    let said = said_by(&output);
    assert_said(
        &said,
        "GLTF_TANGENTS_MIRRORED",
        "2 vertices have mirrored texture coordinates on their faces",
    );
    assert_said(
        &said,
        "TEXTURES_COLOUR_PROFILE",
        "1 image(s) embed a colour profile, which G4MF advises against (kept as they are): n.png",
    );
}

/// A G4MF file whose base-colour image is a URL: `to-gltf` keeps it as it is, and says so.
#[test]
fn an_image_url_is_kept_by_to_gltf_and_said() {
    let fixture = test_support::workspace_root().join("fixtures/validator/FILE_URI_NOT_READ.g4tf");
    let mut document: serde_json::Value =
        serde_json::from_slice(&std::fs::read(fixture).unwrap()).unwrap();
    document["files"][0]["uri"] = "https://example.com/a.png".into();
    document["materials"][0]["baseColor"] = serde_json::json!({"texture": 0});
    let dir = tempfile::tempdir().unwrap();
    let g4tf = dir.path().join("url.g4tf");
    std::fs::write(&g4tf, serde_json::to_vec(&document).unwrap()).unwrap();
    let output = cli()
        .arg("to-gltf")
        .arg(&g4tf)
        .arg("-o")
        .arg(dir.path().join("url.gltf"))
        .output()
        .unwrap();
    let text = stderr(&output);
    assert!(output.status.success(), "{text}");
    assert!(
        text.contains(
            "  note      IMAGE_URI_KEPT: image `https://example.com/a.png` of Texture0 is not a relative path (kept as it is)"
        ),
        "{text}"
    );
}

/// A description naming clothes on a machine with no assets folder: converted without them,
/// and said.
#[test]
fn a_descriptions_assets_without_an_assets_folder_are_said() {
    let Some(data) = test_support::mpfb_data_or_skip("assets_without_a_folder") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    std::fs::create_dir(&home).unwrap();
    let mhm = dir.path().join("shoes.mhm");
    std::fs::write(&mhm, "version v1.1.1\nclothes shoes01\n").unwrap();
    let mut command = cli();
    let output = test_support::isolate(&mut command, &home)
        .args(["convert", "--helpers", "none", "--json", "--mpfb-data"])
        .arg(&data)
        .arg("--human")
        .arg(&mhm)
        .arg("-o")
        .arg(dir.path().join("out.g4b"))
        .output()
        .unwrap();
    assert_said(
        &said_by(&output),
        "ASSETS_NOT_FOUND",
        "not converted (no MakeHuman assets folder: give --assets DIR, set $MAKEHUMAN_ASSETS or run `mpfb2g4mf data fetch --makehuman-assets`): clothes shoes01",
    );
}
