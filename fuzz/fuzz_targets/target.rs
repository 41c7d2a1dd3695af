//! Fuzzes target decoding (`INDEX DX DY DZ` text, or gzip by its magic bytes, every member,
//! bounded): any bytes must give a target or a located error, never a panic; a target that
//! decodes holds at most MAX_TARGET_DELTAS displacements, all finite.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(target) = mpfb_body::decode_target(data) else {
        return;
    };
    assert!(target.len() <= mpfb_body::target::MAX_TARGET_DELTAS);
    for (vertex, delta) in target.deltas() {
        assert!(
            delta.iter().all(|d| d.is_finite()),
            "vertex {vertex}: {delta:?}"
        );
    }
});
