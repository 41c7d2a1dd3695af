//! Fuzzes the validator on raw and structurally edited G4MF files, the input of
//! `validate` and `convert --validate`.
#![no_main]

#[path = "common/structural.rs"]
mod structural;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let file = structural::file_from_input(data);
    let options = g4mf_validator::ValidateOptions {
        read: structural::read_options(),
        ..Default::default()
    };
    let _ = g4mf_validator::validate_bytes(&file, None, "fuzz", &options);
});
