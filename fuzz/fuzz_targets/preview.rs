//! Fuzzes `preview` (scene building and rasterizing) on raw and structurally edited G4MF files.
#![no_main]

#[path = "common/structural.rs"]
mod structural;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let file = structural::file_from_input(data);
    if let Ok(read) = g4mf_reader::read_bytes(&file, None, &structural::read_options()) {
        if let Ok(scene) = g4mf_preview::Scene::from_file(&read) {
            let options = g4mf_preview::RenderOptions {
                views: g4mf_preview::View::ALL.to_vec(),
                width: 32,
                height: 32,
                bones: true,
                ..Default::default()
            };
            let _ = g4mf_preview::png_bytes(&g4mf_preview::render(&scene, &options));
        }
    }
});
