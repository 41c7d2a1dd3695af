//! Fuzzes MPFB preset parsing (`human.*.json`): any bytes must give a description or a
//! located error, never a panic; a preset that parses holds only finite values in [0, 1].
#![no_main]

use libfuzzer_sys::fuzz_target;
use std::path::Path;

fuzz_target!(|data: &[u8]| {
    let path = Path::new("x.json");
    let Ok(description) = mpfb_body::parse_description(data, path) else {
        return;
    };
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
        assert!(!target.name.is_empty());
        assert!(
            target.weight.is_finite() && target.weight > 0.0 && target.weight <= 1.0,
            "{} at {}: weight {}",
            target.name,
            target.location,
            target.weight
        );
        assert_eq!(target.location.file.as_deref(), Some(path));
    }
});
