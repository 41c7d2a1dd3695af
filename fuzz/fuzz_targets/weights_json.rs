//! Fuzzes weights parsing and resolution.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(weights) = mpfb_weights::parse_weights(text) {
        let names = vec!["a".to_owned(), "b".to_owned(), "DEF-c".to_owned()];
        let bones = mpfb_weights::RigBones {
            names: &names,
            extra_bones: &[],
        };
        if let Ok(r) = mpfb_weights::resolve(&weights, bones, &Default::default(), 64) {
            let _ = r.skin.stats();
        }
    }
    let _ = mpfb_weights::parse_bone_map(text);
});
