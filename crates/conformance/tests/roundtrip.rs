//! Round-trip conformance over every shipped rig: MPFB -> G4MF -> MPFB gives every field back,
//! G4MF -> MPFB -> G4MF reproduces the file byte for byte, and without MPFB extras the derived
//! rig puts every bone back within 1e-5 m / 1e-4 rad and refits within 1e-4 m.

#![allow(clippy::unwrap_used)] // Tests fail loudly by design.

use conformance::roundtrip::round_trip;
use mpfb2g4mf::LoadedMesh;

#[test]
fn every_shipped_rig_round_trips() {
    let data = test_support::mpfb_data_or_skip!(every_shipped_rig_round_trips);
    let mesh = std::sync::Arc::new(LoadedMesh::load(&data.join("3dobjs/base.obj"), None).unwrap());
    let work = tempfile::tempdir().unwrap();
    let rigs = test_support::test_rig_files(&data);
    for rig in rigs {
        let weights = rig.with_file_name(
            rig.file_name()
                .unwrap()
                .to_str()
                .unwrap()
                .replacen("rig.", "weights.", 1),
        );
        let weights = weights.is_file().then_some(weights);
        let r = round_trip(&rig, weights.as_deref(), &mesh, work.path()).unwrap();
        let name = &r.rig;
        assert!(
            r.field_mismatches.is_empty(),
            "{name}: {:?}",
            r.field_mismatches
        );
        assert!(
            r.max_roll_error <= 1e-6,
            "{name}: roll {}",
            r.max_roll_error
        );
        assert!(
            r.max_position_error <= 1e-6,
            "{name}: positions {}",
            r.max_position_error
        );
        assert_eq!(r.weight_mismatches, 0, "{name}");
        assert_eq!(r.weight_pairs > 0, weights.is_some(), "{name}");
        assert!(
            r.byte_identical,
            "{name}: G4MF -> MPFB -> G4MF changed the file"
        );
        assert!(
            r.derived_max_end_error <= 1e-5,
            "{name}: derived ends off by {}",
            r.derived_max_end_error
        );
        assert!(
            r.derived_max_roll_error <= 1e-4,
            "{name}: derived roll off by {}",
            r.derived_max_roll_error
        );
        assert!(
            r.derived_max_refit_error <= 1e-4,
            "{name}: refit off by {}",
            r.derived_max_refit_error
        );
    }
}
