//! Dressed characters through the real CLI: MakeHuman assets fitted by MakeHuman's rule
//! (worked out by hand here from the `.mhclo` text and the written body), weights inherited
//! or taken from `.mhw` files, a sub-rig, blend shapes carried to the assets, a T-pose bake
//! that moves the clothes with the arms, masking, body topologies, dressed descriptions and
//! seeded populations that draw their outfits.

#![allow(clippy::unwrap_used)] // Tests fail loudly by design.

use crate::common::shared as common;

use common::{bin, convert_with_assets, data_and_assets, world_transforms};
use g4mf_model::{Document, JointRef};
use g4mf_reader::{G4mfFile, ReadOptions, read_path};
use glam::DVec3;
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::Path;

/// Every vertex of the mesh `index`, as written.
fn positions(file: &G4mfFile, mesh: usize) -> Vec<DVec3> {
    let values = file.read_f64(file.document.meshes[mesh].vertices).unwrap();
    values.chunks(3).map(DVec3::from_slice).collect()
}

/// The mesh a node named `name` instances.
fn mesh_of(doc: &Document, name: &str) -> usize {
    doc.nodes
        .iter()
        .find(|n| n.name.as_deref() == Some(name))
        .and_then(|n| n.mesh_instance.as_ref())
        .map(|m| m.mesh.get())
        .unwrap_or_else(|| panic!("no node `{name}`"))
}

/// MPFB bone name of each skin group (through the joints and the bones' extras).
fn group_bones(doc: &Document) -> Vec<String> {
    let skeleton = doc.nodes.iter().find_map(|n| n.skeleton.as_ref()).unwrap();
    skeleton
        .joints
        .iter()
        .map(|j| match j {
            JointRef::Node(n) => {
                doc.nodes[n.get()].extras.as_ref().unwrap().value()["mpfb"]["name"]
                    .as_str()
                    .unwrap()
                    .to_owned()
            }
            other => panic!("{other:?}"),
        })
        .collect()
}

/// The skin of mesh `index`: per vertex, bone name -> weight.
fn skin(file: &G4mfFile, mesh: usize) -> BTreeMap<u32, BTreeMap<String, f64>> {
    let bones = group_bones(&file.document);
    let skin = file.document.meshes[mesh].skin.as_ref().unwrap();
    let groups = file.read_u64(skin.groups).unwrap();
    let vertices = file.read_u64(skin.vertices).unwrap();
    let weights = file.read_f64(skin.weights).unwrap();
    let mut out: BTreeMap<u32, BTreeMap<String, f64>> = BTreeMap::new();
    for ((g, v), w) in groups.iter().zip(&vertices).zip(&weights) {
        out.entry(*v as u32)
            .or_default()
            .insert(bones[*g as usize].clone(), *w);
    }
    out
}

/// A blend shape's offsets by vertex.
fn shape(file: &G4mfFile, mesh: usize, name: &str) -> BTreeMap<u32, DVec3> {
    let blend = file.document.meshes[mesh].blend.as_ref().unwrap();
    let shape = blend
        .shapes
        .iter()
        .find(|s| s.name.as_deref() == Some(name))
        .unwrap_or_else(|| panic!("no shape {name}"));
    let target = shape.position.as_ref().unwrap();
    let indices = file.read_u64(target.indices).unwrap();
    let offsets = file.read_f64(target.offsets).unwrap();
    indices
        .iter()
        .zip(offsets.chunks(3))
        .map(|(&i, o)| (i as u32, DVec3::from_slice(o)))
        .collect()
}

/// A `.mhclo` read by hand: scale lines `(v1, v2, distance)` per axis and the reference lines.
struct Fitting {
    scales: [Option<(usize, usize, f64)>; 3],
    references: Vec<Vec<f64>>,
    delete: Vec<usize>,
}

fn read_fitting(path: &Path) -> Fitting {
    let text = std::fs::read_to_string(path).unwrap();
    let mut fitting = Fitting {
        scales: [None; 3],
        references: Vec::new(),
        delete: Vec::new(),
    };
    let mut section = "";
    for line in text.lines() {
        let words: Vec<&str> = line.split_whitespace().collect();
        let Some(first) = words.first() else { continue };
        if first.starts_with('#') {
            continue;
        }
        let axis = ["x_scale", "y_scale", "z_scale"]
            .iter()
            .position(|k| k == first);
        if let Some(axis) = axis {
            fitting.scales[axis] = Some((
                words[1].parse().unwrap(),
                words[2].parse().unwrap(),
                words[3].parse().unwrap(),
            ));
        } else if first.chars().next().is_some_and(char::is_alphabetic) {
            if matches!(*first, "verts" | "delete_verts") {
                section = first;
            }
        } else if section == "verts" {
            fitting
                .references
                .push(words.iter().map(|w| w.parse().unwrap()).collect());
        } else if section == "delete_verts" {
            let mut range_from = None;
            let mut previous = 0;
            for w in words {
                if w == "-" {
                    range_from = Some(previous);
                    continue;
                }
                let v: usize = w.parse().unwrap();
                match range_from.take() {
                    Some(from) => fitting.delete.extend(from + 1..=v),
                    None => fitting.delete.push(v),
                }
                previous = v;
            }
        }
    }
    fitting
}

/// MakeHuman's rule by hand, in metres: `w0*b0 + w1*b1 + w2*b2 + S*d*0.1` with
/// `S = |b[v1] - b[v2]| / (distance*0.1)` per axis (the file's numbers are decimetres).
fn by_hand(fitting: &Fitting, body: &[DVec3], vertex: usize) -> DVec3 {
    let r = &fitting.references[vertex];
    if r.len() == 1 {
        return body[r[0] as usize];
    }
    let mut s = [1.0; 3];
    for (axis, scale) in fitting.scales.iter().enumerate() {
        if let Some((v1, v2, d)) = scale {
            s[axis] = (body[*v1][axis] - body[*v2][axis]).abs() / (d * 0.1);
        }
    }
    let b = |i: usize| body[r[i] as usize];
    b(0) * r[3]
        + b(1) * r[4]
        + b(2) * r[5]
        + DVec3::new(s[0] * r[6], s[1] * r[7], s[2] * r[8]) * 0.1
}

/// An asset vertex's contributions per bone from its own weights file (group -> vertex ->
/// weight): the groups naming a bone of the written skeleton, weights other than zero.
fn custom_by_hand(
    custom: &BTreeMap<String, BTreeMap<u32, f64>>,
    doc: &Document,
    vertex: u32,
) -> BTreeMap<String, f64> {
    let bones = group_bones(doc);
    custom
        .iter()
        .filter_map(|(g, pairs)| Some((g.clone(), *pairs.get(&vertex)?)))
        .filter(|(g, w)| *w != 0.0 && bones.iter().any(|b| b == g))
        .collect()
}

/// The weights file by group: vertex -> weight.
fn weights_file(path: &Path) -> BTreeMap<String, BTreeMap<u32, f64>> {
    let json: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    json["weights"]
        .as_object()
        .unwrap()
        .iter()
        .map(|(g, pairs)| {
            let pairs = pairs
                .as_array()
                .unwrap()
                .iter()
                .map(|p| (p[0].as_u64().unwrap() as u32, p[1].as_f64().unwrap()))
                .collect();
            (g.clone(), pairs)
        })
        .collect()
}

/// MakeHuman's rule (`shared/animation.py`, `VertexBoneWeights`) by hand for one vertex's
/// contributions per bone: divided by their total, then those of 1e-4 or less dropped
/// without dividing again; a vertex left with none goes wholly to the root bone.
fn makehuman_rule(contributions: &BTreeMap<String, f64>) -> BTreeMap<String, f64> {
    let total: f64 = contributions.values().sum();
    let kept: BTreeMap<String, f64> = contributions
        .iter()
        .map(|(bone, w)| (bone.clone(), w / total))
        .filter(|(_, w)| *w > 1e-4)
        .collect();
    if kept.is_empty() {
        return BTreeMap::from([("root".to_owned(), 1.0)]);
    }
    kept
}

/// An asset vertex's contributions per bone inherited through its `.mhclo` reference line
/// `r` from the body's weights file (`weights`: group -> body vertex -> weight): each
/// reference weight times each body weight, kept when above 1e-4, summed per bone (a
/// one-number line is one reference of weight 1).
fn inherited_by_hand(
    r: &[f64],
    weights: &BTreeMap<String, BTreeMap<u32, f64>>,
) -> BTreeMap<String, f64> {
    let parts: Vec<(u32, f64)> = match r.len() {
        1 => vec![(r[0] as u32, 1.0)],
        _ => (0..3).map(|i| (r[i] as u32, r[3 + i])).collect(),
    };
    let mut contributions: BTreeMap<String, f64> = BTreeMap::new();
    for (v, w) in parts {
        for (group, pairs) in weights {
            if let Some(&wt) = pairs.get(&v) {
                if w * wt > 1e-4 {
                    *contributions.entry(group.clone()).or_default() += w * wt;
                }
            }
        }
    }
    contributions
}

/// Asserts that a written vertex's skin is `expected`, bone by bone.
fn assert_skin(got: &BTreeMap<String, f64>, expected: &BTreeMap<String, f64>, what: &str) {
    assert_eq!(
        got.keys().collect::<Vec<_>>(),
        expected.keys().collect::<Vec<_>>(),
        "{what}"
    );
    for (bone, w) in expected {
        assert!(
            (got[bone] - w).abs() < 1e-6,
            "{what} {bone}: {} vs {w}",
            got[bone]
        );
    }
}

const DRESSED: &[&str] = &[
    "--phenotype",
    "gender=0.9,weight=0.8,muscle=0.7",
    "--helpers",
    "all",
    "--keep-hidden-body",
    "--eyes",
    "none",
    "--clothes",
    "male_casualsuit01",
    "--clothes",
    "shoes01",
    "--hair",
    "ponytail01",
    "--eyebrows",
    "eyebrow001",
    "--eyelashes",
    "eyelashes01",
    "--face-units",
];

#[test]
fn assets_sit_where_makehumans_rule_puts_them_with_the_inherited_weights() {
    let Some((data, assets)) = data_and_assets(
        "assets_sit_where_makehumans_rule",
        &[
            "clothes/male_casualsuit01/male_casualsuit01.mhclo",
            "eyebrows/eyebrow001/eyebrow001.mhclo",
            "eyelashes/eyelashes01/eyelashes01.mhclo",
            "eyes/materials/green.mhmat",
        ],
    ) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("dressed.g4b");
    let text = convert_with_assets(&data, &assets, &out, DRESSED);
    assert!(text.contains("male_casualsuit01 (clothes)"), "{text}");
    let file = read_path(&out, &ReadOptions::default()).unwrap();
    // Every helper and every hidden face kept: the body is the morphed base mesh, in order.
    let body = positions(&file, 0);
    assert_eq!(body.len(), 19158);
    let weights = weights_file(&data.join("rigs/standard/weights.default.json"));
    for (asset, node) in [
        (
            "clothes/male_casualsuit01/male_casualsuit01.mhclo",
            "male_casualsuit01",
        ),
        ("eyebrows/eyebrow001/eyebrow001.mhclo", "eyebrow001"),
        ("eyelashes/eyelashes01/eyelashes01.mhclo", "Eyelashes01"),
    ] {
        let fitting = read_fitting(&assets.join(asset));
        let mesh = mesh_of(&file.document, node);
        let written = positions(&file, mesh);
        assert_eq!(written.len(), fitting.references.len(), "{asset}");
        let skin = skin(&file, mesh);
        let n = written.len();
        for vertex in [0, n / 2, n - 1] {
            let expected = by_hand(&fitting, &body, vertex);
            let error = (written[vertex] - expected).abs().max_element();
            assert!(error < 1e-5, "{asset} vertex {vertex}: {error} m off");
            // Inherited weights: every body group through the three references, by
            // MakeHuman's rule.
            let expected =
                makehuman_rule(&inherited_by_hand(&fitting.references[vertex], &weights));
            let got = skin.get(&(vertex as u32)).cloned().unwrap_or_default();
            assert_skin(&got, &expected, &format!("{asset} vertex {vertex}"));
        }
    }

    // Proxy eyes, on the same body (a second run: they replace the helper eyes, so the
    // first run keeps those to have the whole body in order).
    let eyes_out = dir.path().join("eyes.g4b");
    let mut eyes_flags = DRESSED[..2].to_vec();
    eyes_flags.extend(["--eyes", "HighPolyEyes", "--eye-material", "green"]);
    convert_with_assets(&data, &assets, &eyes_out, &eyes_flags);
    let eyes_file = read_path(&eyes_out, &ReadOptions::default()).unwrap();
    let fitting = read_fitting(&assets.join("eyes/high-poly/high-poly.mhclo"));
    let eyes = positions(&eyes_file, mesh_of(&eyes_file.document, "HighPolyEyes"));
    assert_eq!(eyes.len(), fitting.references.len());
    for vertex in [0, eyes.len() / 2, eyes.len() - 1] {
        let error = (eyes[vertex] - by_hand(&fitting, &body, vertex))
            .abs()
            .max_element();
        assert!(error < 1e-5, "eye vertex {vertex}: {error} m off");
    }

    // Custom weights: the shoes take their own `.mhw`, its groups naming bones of the rig,
    // by MakeHuman's rule.
    let shoes = skin(&file, mesh_of(&file.document, "shoes01"));
    let custom = weights_file(&assets.join("clothes/shoes01/shoes01.mhw"));
    for vertex in [0u32, 100, 500] {
        let expected = makehuman_rule(&custom_by_hand(&custom, &file.document, vertex));
        assert!(!expected.is_empty());
        assert_skin(&shoes[&vertex], &expected, &format!("shoes {vertex}"));
    }

    // The ponytail's sub-rig: its bones under the head, mixed in by `mhmask-subrig`.
    let doc = &file.document;
    let node = |name: &str| {
        doc.nodes
            .iter()
            .position(|n| n.name.as_deref() == Some(name))
    };
    let head = node("head").unwrap();
    let root = node("ponytail01_root").unwrap();
    assert!(doc.nodes[head].children.iter().any(|c| c.get() == root));
    let ponytail = skin(&file, mesh_of(doc, "ponytail01"));
    let sub = weights_file(&assets.join("hair/ponytail01/ponytail01.mhw"));
    let mask = sub["mhmask-subrig"][&0];
    let of_subrig: f64 = ponytail[&0]
        .iter()
        .filter(|(b, _)| b.starts_with("ponytail01_"))
        .map(|(_, w)| w)
        .sum();
    let of_body: f64 = ponytail[&0]
        .iter()
        .filter(|(b, _)| !b.starts_with("ponytail01_"))
        .map(|(_, w)| w)
        .sum();
    assert!((of_subrig - mask).abs() < 1e-6, "{of_subrig} vs {mask}");
    assert!((of_body - (1.0 - mask)).abs() < 1e-6, "{of_body}");

    // A face unit moves the eyebrows by the refit difference: the asset on the displaced
    // body minus the asset on the rest body.
    let fitting = read_fitting(&assets.join("eyebrows/eyebrow001/eyebrow001.mhclo"));
    let body_shape = shape(&file, 0, "FaceBrowInnerUp");
    let brows = mesh_of(doc, "eyebrow001");
    let brow_shape = shape(&file, brows, "eyebrow001_FaceBrowInnerUp");
    assert!(brow_shape.len() > 50, "{}", brow_shape.len());
    let mut displaced = body.clone();
    for (v, o) in &body_shape {
        displaced[*v as usize] += *o;
    }
    for (&vertex, offset) in brow_shape.iter().take(3) {
        let expected = by_hand(&fitting, &displaced, vertex as usize)
            - by_hand(&fitting, &body, vertex as usize);
        let error = (*offset - expected).abs().max_element();
        assert!(error < 1e-5, "eyebrow vertex {vertex}: {error} m off");
        assert!(offset.length() > 1e-4);
    }
}

#[test]
fn a_t_pose_bake_moves_the_clothes_with_the_arms_by_linear_blend_skinning() {
    let Some((data, assets)) = data_and_assets(
        "a_t_pose_bake_moves_the_clothes",
        &["clothes/male_casualsuit01/male_casualsuit01.mhclo"],
    ) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let (rest_path, posed_path) = (dir.path().join("rest.g4b"), dir.path().join("t.g4b"));
    let flags = ["--clothes", "male_casualsuit01", "--origin", "mesh"];
    convert_with_assets(&data, &assets, &rest_path, &flags);
    let mut posed_flags = flags.to_vec();
    posed_flags.extend(["--rest-pose", "t-pose"]);
    convert_with_assets(&data, &assets, &posed_path, &posed_flags);
    let rest = read_path(&rest_path, &ReadOptions::default()).unwrap();
    let posed = read_path(&posed_path, &ReadOptions::default()).unwrap();
    let (rw, pw) = (
        world_transforms(&rest.document),
        world_transforms(&posed.document),
    );
    let bone_node = |doc: &Document| -> BTreeMap<String, usize> {
        doc.nodes
            .iter()
            .enumerate()
            .filter(|(_, n)| n.bone.is_some())
            .map(|(i, n)| {
                let name = n.extras.as_ref().unwrap().value()["mpfb"]["name"]
                    .as_str()
                    .unwrap()
                    .to_owned();
                (name, i)
            })
            .collect()
    };
    let (rb, pb) = (bone_node(&rest.document), bone_node(&posed.document));
    let mesh = mesh_of(&rest.document, "male_casualsuit01");
    let before = positions(&rest, mesh);
    let after = positions(&posed, mesh_of(&posed.document, "male_casualsuit01"));
    let weights = skin(&rest, mesh);
    let mut largest_move: f64 = 0.0;
    for (v, influences) in &weights {
        let p = before[*v as usize];
        // Blender's armature modifier: the weight-normalised blend of each bone's posed world
        // transform times its inverse rest world transform.
        let total: f64 = influences.values().sum();
        let mut expected = DVec3::ZERO;
        for (bone, w) in influences {
            let (rp, rm) = rw[rb[bone]];
            let (pp, pm) = pw[pb[bone]];
            expected += (pp + pm * (rm.transpose() * (p - rp))) * (w / total);
        }
        let got = after[*v as usize];
        assert!(
            (got - expected).length() < 2e-5,
            "vertex {v}: {got} vs {expected}"
        );
        largest_move = largest_move.max((got - p).length());
    }
    assert!(
        largest_move > 0.2,
        "the sleeves follow the arms: {largest_move}"
    );
}

#[test]
fn hidden_body_faces_go_unless_kept() {
    let Some((data, assets)) = data_and_assets(
        "hidden_body_faces_go_unless_kept",
        &["clothes/female_sportsuit01/female_sportsuit01.mhclo"],
    ) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let (masked, kept) = (dir.path().join("masked.g4tf"), dir.path().join("kept.g4tf"));
    convert_with_assets(
        &data,
        &assets,
        &masked,
        &["--clothes", "female_sportsuit01"],
    );
    convert_with_assets(
        &data,
        &assets,
        &kept,
        &["--clothes", "female_sportsuit01", "--keep-hidden-body"],
    );
    let deleted: std::collections::HashSet<usize> =
        read_fitting(&assets.join("clothes/female_sportsuit01/female_sportsuit01.mhclo"))
            .delete
            .into_iter()
            .collect();
    assert!(deleted.len() > 1000);
    let body_sources = |path: &Path| -> (Vec<u64>, Vec<u64>) {
        let file = read_path(path, &ReadOptions::default()).unwrap();
        let doc = &file.document;
        let extras = doc.meshes[0].other["extras"]["mpfb"]["source_vertices"]
            .as_array()
            .unwrap()
            .clone();
        let source: Vec<u64> = extras
            .iter()
            .flat_map(|r| r[0].as_u64().unwrap()..=r[1].as_u64().unwrap())
            .collect();
        let body = doc.meshes[0]
            .surfaces
            .iter()
            .find(|s| s.name.as_deref() == Some("Body"))
            .unwrap();
        let corners = file.read_u64(body.simplexes.unwrap()).unwrap();
        (source, corners)
    };
    let (source, corners) = body_sources(&masked);
    assert!(
        corners
            .iter()
            .all(|&c| !deleted.contains(&(source[c as usize] as usize))),
        "a written body face uses a hidden vertex"
    );
    let (kept_source, kept_corners) = body_sources(&kept);
    assert!(
        kept_corners
            .iter()
            .any(|&c| deleted.contains(&(kept_source[c as usize] as usize)))
    );
    assert!(kept_corners.len() > corners.len());
}

#[test]
fn a_dressed_mhm_converts_every_asset_line() {
    let Some((data, assets)) = data_and_assets(
        "a_dressed_mhm_converts_every_asset_line",
        common::DRESSED_MHM,
    ) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("dressed.g4b");
    let mhm = test_support::workspace_root().join("fixtures/bodies/dressed.mhm");
    let output = bin()
        .args(["convert", "--mpfb-data"])
        .arg(&data)
        .arg("--assets")
        .arg(&assets)
        .arg("--human")
        .arg(&mhm)
        .args(["--validate", "-o"])
        .arg(&out)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&output.stderr).into_owned();
    assert!(output.status.success(), "{text}");
    assert!(!text.contains("not converted"), "{text}");
    let file = read_path(&out, &ReadOptions::default()).unwrap();
    let kinds: Vec<String> = file
        .document
        .nodes
        .iter()
        .filter_map(|n| {
            n.extras
                .as_ref()?
                .value()
                .get("mpfb")?
                .get("asset")
                .cloned()
        })
        .map(|a| {
            format!(
                "{} {}",
                a["kind"].as_str().unwrap(),
                a["name"].as_str().unwrap()
            )
        })
        .collect();
    for expected in [
        "eyes HighPolyEyes",
        "eyebrows eyebrow011",
        "eyelashes eyelashes02",
        "hair bob01",
        "teeth Teeth_Base",
        "tongue tongue01",
        "clothes female_casualsuit01",
        "clothes shoes02",
    ] {
        assert!(
            kinds.iter().any(|k| k == expected),
            "{expected} in {kinds:?}"
        );
    }
    // The eyes wear the material the description gives them.
    let eyes = file
        .document
        .nodes
        .iter()
        .find(|n| n.name.as_deref() == Some("HighPolyEyes"))
        .unwrap();
    assert_eq!(
        eyes.extras.as_ref().unwrap().value()["mpfb"]["asset"]["material"],
        "blue.mhmat"
    );
    worn_weights_follow_makehumans_rule(&data, &assets, &file);
    let validated = bin().arg("validate").arg(&out).output().unwrap();
    let report = String::from_utf8_lossy(&validated.stderr);
    assert!(validated.status.success(), "{report}");
    assert!(!report.contains("SKIN_WEIGHT_SUM"), "{report}");
    // Proxy teeth and tongue replace the helper ones.
    let surfaces: Vec<&str> = file.document.meshes[0]
        .surfaces
        .iter()
        .filter_map(|s| s.name.as_deref())
        .collect();
    assert!(
        !surfaces.contains(&"Tongue") && !surfaces.contains(&"LeftEye"),
        "{surfaces:?}"
    );
}

/// The dressed description's hair (inherited weights), suit (inherited) and shoes (their own
/// `.mhw`): a few vertices equal MakeHuman's rule worked out here from the `.mhclo` reference
/// lines and the MPFB weights file, and every vertex's weights sum to one.
fn worn_weights_follow_makehumans_rule(data: &Path, assets: &Path, file: &G4mfFile) {
    let body = weights_file(&data.join("rigs/standard/weights.default.json"));
    for (node, mhclo) in [
        ("bob01", "hair/bob01/bob01.mhclo"),
        (
            "female_casualsuit01",
            "clothes/female_casualsuit01/female_casualsuit01.mhclo",
        ),
        ("shoes02", "clothes/shoes02/shoes02.mhclo"),
    ] {
        let fitting = read_fitting(&assets.join(mhclo));
        let written = skin(file, mesh_of(&file.document, node));
        let n = fitting.references.len();
        assert_eq!(written.len(), n, "{node}: every vertex weighted");
        let custom =
            (node == "shoes02").then(|| weights_file(&assets.join("clothes/shoes02/shoes02.mhw")));
        for vertex in [0, 1, n / 3, n / 2, n - 1] {
            let contributions = match &custom {
                Some(custom) => custom_by_hand(custom, &file.document, vertex as u32),
                None => inherited_by_hand(&fitting.references[vertex], &body),
            };
            let expected = makehuman_rule(&contributions);
            assert_skin(
                &written[&(vertex as u32)],
                &expected,
                &format!("{node} vertex {vertex}"),
            );
        }
        let worst = written
            .values()
            .map(|w| (w.values().sum::<f64>() - 1.0).abs())
            .fold(0.0, f64::max);
        assert!(worst < 1e-3, "{node}: a weight sum is {worst} from one");
    }
}

#[test]
fn a_body_topology_replaces_the_body_mesh() {
    let Some((data, assets)) = data_and_assets(
        "a_body_topology_replaces_the_body_mesh",
        &["proxymeshes/female_generic/female_generic.proxy"],
    ) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let (naked, proxied) = (dir.path().join("naked.g4b"), dir.path().join("proxy.g4b"));
    let body = ["--helpers", "all", "--eyes", "none", "--face-units"];
    convert_with_assets(&data, &assets, &naked, &body);
    let mut flags = body.to_vec();
    flags.extend(["--proxy", "female_generic"]);
    convert_with_assets(&data, &assets, &proxied, &flags);
    let naked = read_path(&naked, &ReadOptions::default()).unwrap();
    let proxied = read_path(&proxied, &ReadOptions::default()).unwrap();
    let fitting = read_fitting(&assets.join("proxymeshes/female_generic/female_generic.proxy"));
    let base = positions(&naked, 0);
    let written = positions(&proxied, 0);
    // The proxy's vertices, then the face helpers' it keeps (eyes, teeth and tongue).
    let n = fitting.references.len();
    assert!(written.len() > n, "{} vertices", written.len());
    for vertex in [0, n / 3, n - 1] {
        let error = (written[vertex] - by_hand(&fitting, &base, vertex))
            .abs()
            .max_element();
        assert!(error < 1e-5, "proxy vertex {vertex}: {error} m off");
    }
    // Skinned all over, and the face units carried.
    let skin = skin(&proxied, 0);
    assert_eq!(skin.len(), written.len());
    assert!(shape(&proxied, 0, "FaceJawOpen").len() > 100);
}

#[test]
fn a_seeded_population_draws_the_same_outfits_every_run() {
    let Some((data, assets)) = data_and_assets(
        "a_seeded_population_draws_the_same",
        &[
            "clothes/male_casualsuit02/male_casualsuit02.mhclo",
            "clothes/shoes01/shoes01.mhclo",
            "clothes/female_sportsuit01/female_sportsuit01.mhclo",
            "hair/short02/short02.mhclo",
            "hair/bob01/bob01.mhclo",
        ],
    ) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let manifest = dir.path().join("people.toml");
    std::fs::write(
        &manifest,
        format!(
            r#"[defaults]
mpfb_data = "{}"
assets = "{}"

[population]
output = "out/person-{{index}}.g4b"
count = 6
seed = 11
ranges = {{ gender = [0.0, 1.0] }}

[population.draw]
clothes = [["male_casualsuit02", "shoes01"], ["female_sportsuit01"], []]
hair = ["short02", "bob01", "none"]
"#,
            data.display(),
            assets.display()
        ),
    )
    .unwrap();
    let outfits = || -> Vec<Vec<String>> {
        let status = bin()
            .args(["batch", "--quiet"])
            .arg(&manifest)
            .status()
            .unwrap();
        assert!(status.success());
        (0..6)
            .map(|i| {
                let path = dir.path().join(format!("out/person-{i}.g4b"));
                let file = read_path(&path, &ReadOptions::default()).unwrap();
                file.document
                    .nodes
                    .iter()
                    .filter_map(|n| {
                        n.extras
                            .as_ref()?
                            .value()
                            .get("mpfb")?
                            .get("asset")
                            .cloned()
                    })
                    .map(|a| a["name"].as_str().unwrap().to_owned())
                    .collect()
            })
            .collect()
    };
    let first = outfits();
    let second = outfits();
    assert_eq!(first, second);
    // The lists were drawn from: more than one outfit appears.
    let distinct: std::collections::BTreeSet<&Vec<String>> = first.iter().collect();
    assert!(distinct.len() > 1, "{first:?}");
}

#[test]
fn to_mpfb_of_a_dressed_file_gives_the_naked_rig_and_weights_and_names_what_it_left_out() {
    let Some((data, assets)) = data_and_assets(
        "to_mpfb_of_a_dressed_file",
        &[
            "clothes/male_casualsuit01/male_casualsuit01.mhclo",
            "hair/ponytail01/ponytail01.mhclo",
        ],
    ) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let (naked, dressed) = (dir.path().join("naked.g4b"), dir.path().join("dressed.g4b"));
    convert_with_assets(&data, &assets, &naked, &["--eyes", "none"]);
    convert_with_assets(
        &data,
        &assets,
        &dressed,
        &["--clothes", "male_casualsuit01", "--hair", "ponytail01"],
    );
    let back = |file: &Path, out: &str| -> String {
        let output = bin()
            .arg("to-mpfb")
            .arg(file)
            .arg("--out-dir")
            .arg(dir.path().join(out))
            .output()
            .unwrap();
        assert!(output.status.success());
        String::from_utf8_lossy(&output.stderr).into_owned()
    };
    back(&naked, "naked");
    let text = back(&dressed, "dressed");
    assert!(text.contains("left out with their sub-rig bones"), "{text}");
    assert!(text.contains("ponytail01 (hair)"), "{text}");
    for name in ["rig.default.json", "weights.default.json"] {
        let a = std::fs::read(dir.path().join("naked").join(name)).unwrap();
        let b = std::fs::read(dir.path().join("dressed").join(name)).unwrap();
        assert!(a == b, "{name} differs");
    }
}
