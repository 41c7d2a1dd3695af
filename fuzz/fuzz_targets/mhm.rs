//! Fuzzes description parsing (`.mhm` files and MPFB presets, the kind by extension or by
//! content): any bytes must give a description or a located error, never a panic; a `.mhm`
//! that parses holds only finite modifier values, in the ranges its reader checks.
#![no_main]

use libfuzzer_sys::fuzz_target;
use std::path::Path;

/// The file name the first byte picks: by extension (any case) or by content.
const PATHS: [&str; 4] = ["x.mhm", "x.json", "x.MHM", "x"];

fuzz_target!(|data: &[u8]| {
    let Some((&choice, bytes)) = data.split_first() else {
        return;
    };
    let path = Path::new(PATHS[usize::from(choice) % PATHS.len()]);
    let Ok(description) = mpfb_body::parse_description(bytes, path) else {
        return;
    };
    // Every detail target's location names the file it came from.
    for target in &description.targets {
        assert_eq!(target.location.file.as_deref(), Some(path));
    }
    let is_mhm = path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("mhm"))
        || matches!(
            mpfb_body::description::description_kind(
                path,
                std::str::from_utf8(bytes).unwrap_or("")
            ),
            Ok(mpfb_body::description::DescriptionKind::Mhm)
        );
    if is_mhm {
        for name in mpfb_body::Phenotype::NAMES {
            let value = description
                .phenotype
                .get(name)
                .expect("a phenotype variable");
            assert!(
                value.is_finite() && (0.0..=1.0).contains(&value),
                "{name} = {value}"
            );
        }
        for target in &description.targets {
            assert!(
                target.weight.is_finite() && target.weight > 0.0 && target.weight <= 1.0,
                "{} at {}: weight {}",
                target.name,
                target.location,
                target.weight
            );
        }
    }
});
