//! Fuzzes `to-mpfb` (restore from extras, or derive without a base mesh) on raw and
//! structurally edited G4MF files.
#![no_main]

#[path = "common/structural.rs"]
mod structural;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let file = structural::file_from_input(data);
    if let Ok(read) = g4mf_reader::read_bytes(&file, None, &structural::read_options()) {
        if let Ok(files) = mpfb2g4mf::to_mpfb::to_mpfb(&read, None) {
            let _ = mpfb2g4mf::to_mpfb::mpfb_json_text(&mpfb_rig::RigJson(&files.rig));
        }
    }
});
