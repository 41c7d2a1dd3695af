//! Fuzzes the G4MF reader and validator on arbitrary bytes (binary and text).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let read = g4mf_reader::ReadOptions {
        max_buffer_bytes: 1 << 20,
        max_json_bytes: 1 << 20,
        ..Default::default()
    };
    if let Ok(file) = g4mf_reader::read_bytes(data, None, &read) {
        for i in 0..file.document.accessors.len() {
            let _ = file.read_f64(g4mf_reader::model::Index::new(i as u32));
        }
    }
    let options = g4mf_validator::ValidateOptions {
        read,
        ..Default::default()
    };
    let _ = g4mf_validator::validate_bytes(data, None, "fuzz", &options);
});
