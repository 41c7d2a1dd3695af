//! Fuzzes batch manifests (TOML or JSON by extension) and their expansion into jobs: any
//! bytes must give a manifest or a located error, and expanding a manifest (with a shard-like
//! selection) must give requests or an error, never a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use std::path::Path;

/// The file name the first byte picks.
const PATHS: [&str; 2] = ["x.toml", "x.json"];

/// Populations up to MAX_POPULATION (1,000,000 bodies) are legitimate but take seconds to
/// expand, which starves the fuzzer: larger ones are skipped here (the bound itself is
/// checked by the crate's tests).
const MAX_FUZZED_POPULATION: usize = 10_000;

fuzz_target!(|data: &[u8]| {
    let Some((&choice, bytes)) = data.split_first() else {
        return;
    };
    let path = Path::new(PATHS[usize::from(choice) % PATHS.len()]);
    let Ok(manifest) = mpfb2g4mf::batch::parse_manifest(bytes, path) else {
        return;
    };
    if let Some(population) = &manifest.population {
        if population.count.is_some_and(|c| c > MAX_FUZZED_POPULATION) {
            return;
        }
        if let Some(grid) = &population.grid {
            let bodies = grid
                .values()
                .try_fold(1usize, |n, values| n.checked_mul(values.len()));
            if bodies.is_none_or(|n| n > MAX_FUZZED_POPULATION) {
                return;
            }
        }
    }
    let keep = |i: usize| i % 7 == 0;
    if let Ok(expanded) =
        mpfb2g4mf::batch::expand_selected(&manifest, Path::new("/tmp/fuzzbase"), &keep)
    {
        assert!(expanded.requests.len() <= expanded.total);
        assert!(
            expanded
                .requests
                .iter()
                .all(|r| keep(r.index) && r.index < expanded.total)
        );
        assert!(
            expanded
                .requests
                .windows(2)
                .all(|w| w[0].index < w[1].index)
        );
    }
});
