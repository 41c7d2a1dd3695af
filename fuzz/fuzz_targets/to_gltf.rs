//! Fuzzes `to-gltf`'s reading and writing: a raw or structurally edited G4MF file read into a
//! character spec (`g4mf_reader::character_spec`), then written as glTF (`gltf-writer`), as
//! `.glb` and `.gltf`. Any error is fine; a panic or a runaway allocation is not.
#![no_main]

#[path = "common/structural.rs"]
mod structural;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let file = structural::file_from_input(data);
    let Ok(read) = g4mf_reader::read_bytes(&file, None, &structural::read_options()) else {
        return;
    };
    let options = g4mf_reader::SpecOptions {
        max_elements: 1 << 20,
        ..Default::default()
    };
    let Ok(character) = g4mf_reader::character_spec(&read, &options) else {
        return;
    };
    for max_influences in [4, 8] {
        let layout = gltf_writer::GltfOptions { max_influences };
        if let Ok(mut built) = gltf_writer::build_gltf(&character.spec, &layout) {
            let options = gltf_writer::ContainerOptions::default();
            if max_influences == 4 {
                let _ = gltf_writer::glb_parts(&mut built, options);
            } else {
                let storage = gltf_writer::BufferStorage::Embedded;
                let _ = gltf_writer::gltf_text(&mut built, &storage, options);
            }
        }
    }
});
