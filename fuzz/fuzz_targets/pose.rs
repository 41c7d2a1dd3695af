//! Fuzzes MPFB pose parsing: any text must give a pose or a located error, never a panic; a
//! pose that parses holds only rotations (finite, orthonormal, determinant 1) and finite
//! translations and scales.
#![no_main]

use libfuzzer_sys::fuzz_target;
use std::path::Path;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(pose) = mpfb_rig::parse_pose(text, Path::new("p.json")) else {
        return;
    };
    for (bone, m) in &pose.rotations {
        assert!(m.is_finite(), "{bone}: {m:?}");
        // A rotation: M^T M = I and det M = 1 (to rounding).
        let error = (m.transpose() * *m - glam::DMat3::IDENTITY)
            .to_cols_array()
            .iter()
            .fold(0.0f64, |e, x| e.max(x.abs()));
        assert!(
            error < 1e-9,
            "{bone}: not orthonormal (off by {error}): {m:?}"
        );
        assert!(
            (m.determinant() - 1.0).abs() < 1e-9,
            "{bone}: determinant {}",
            m.determinant()
        );
    }
    for (bone, t) in &pose.translations {
        assert!(t.is_finite(), "{bone}: {t:?}");
    }
    assert!(pose.original_shoulder_width.is_finite());
    assert!(pose.original_spine_length.is_finite());
});
