//! Fuzzes rig parsing and fitting: any bytes must give a rig or a located error, never a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(rig) = mpfb_rig::parse_rig(text) {
        // Fit on a tiny mesh: strategies may fall back, fitting must not panic.
        let vertices = vec![
            glam::DVec3::ZERO,
            glam::DVec3::X,
            glam::DVec3::Y,
            glam::DVec3::Z,
        ];
        let groups = [("joint-a".to_owned(), vec![0u32, 1])];
        let mesh = mpfb_rig::FitMesh::new(vertices, groups.iter().map(|(n, v)| (n, v)));
        let _ = mpfb_rig::fit(&rig, &mesh);
        let _ = mpfb_rig::rig_to_json(&rig);
    }
});
