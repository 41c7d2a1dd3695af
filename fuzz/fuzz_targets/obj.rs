//! Fuzzes the OBJ reader, vertex groups and body extraction.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let limits = mpfb_mesh::ObjLimits {
        max_bytes: 1 << 20,
        max_face_corners: 1 << 10,
    };
    if let Ok(mesh) = mpfb_mesh::parse_obj_with_limits(data, limits) {
        let groups = mpfb_mesh::vertex_groups_from_faces(&mesh);
        let _ = mpfb_mesh::joint_groups(&groups);
        let _ = mpfb_mesh::Extraction::group(&mesh, "body");
    }
    if let Ok(text) = std::str::from_utf8(data) {
        let _ = mpfb_mesh::parse_vertex_groups(text);
    }
});
