//! Writes random skins with the G4MF writer, reads them back, and checks the round trip:
//! sorted as the spec requires, every weight kept, and the validator finds no error.
#![no_main]

use arbitrary::Arbitrary;
use glam::DVec3;
use libfuzzer_sys::fuzz_target;
use test_support::tiny::TinyCharacter;

#[derive(Arbitrary, Debug)]
struct Input {
    bones: u8,
    influences: Vec<(u8, u8, u16)>,
    zstd: bool,
}

fuzz_target!(|input: Input| {
    let bone_count = usize::from(input.bones % 8) + 1;
    let positions: Vec<DVec3> = (0..16)
        .map(|i| DVec3::new(i as f64, 0.0, (i % 3) as f64))
        .collect();
    let influences: Vec<(u32, u32, f64)> = input
        .influences
        .iter()
        .map(|&(v, b, w)| {
            (
                u32::from(v % 16),
                u32::from(b) % bone_count as u32,
                f64::from(w) / 65535.0,
            )
        })
        .collect();
    // A chain of bones over one triangle of a 16-vertex mesh.
    let spec = TinyCharacter::new("Fuzz")
        .chain(bone_count)
        .positions(positions)
        .weights(&influences)
        .generator("fuzz")
        .spec();
    let built = g4mf_writer::build_character(&spec).expect("valid specs always build");
    let mut doc = built.document.clone();
    let compression = if input.zstd {
        g4mf_writer::Compression::Zstd(1)
    } else {
        g4mf_writer::Compression::None
    };
    let options = g4mf_writer::ContainerOptions {
        compression,
        compress_json: input.zstd,
        pretty: false,
    };
    let bytes = g4mf_writer::write_g4b(&mut doc, std::slice::from_ref(&built.buffer), options)
        .expect("encodes");
    let file = g4mf_reader::read_bytes(&bytes, None, &Default::default()).expect("reads back");
    let report = g4mf_validator::validate_bytes(&bytes, None, "fuzz", &Default::default());
    assert!(report.is_valid(), "{:?}", report.findings);
    let skin = file.document.meshes[0].skin.as_ref().expect("skin");
    let v = file.read_u64(skin.vertices).expect("vertices");
    let g = file.read_u64(skin.groups).expect("groups");
    let w = file.read_f64(skin.weights).expect("weights");
    let mut expected = std::collections::BTreeMap::new();
    for &(vertex, bone, weight) in &influences {
        *expected
            .entry((u64::from(vertex), bone as usize))
            .or_insert(0.0f64) += weight;
    }
    assert_eq!(v.len(), expected.len());
    for k in 0..v.len() {
        if k > 0 {
            assert!(v[k - 1] <= v[k]);
            if v[k - 1] == v[k] {
                assert!(w[k - 1] >= w[k]);
            }
        }
        let bone = built.joint_bones[g[k] as usize];
        assert_eq!(w[k] as f32, expected[&(v[k], bone)] as f32);
    }
});
