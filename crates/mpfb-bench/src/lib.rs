//! Shared set-up for the pipeline benchmarks: where the inputs are, loaded once.

use std::path::PathBuf;

/// Paths of the benchmark inputs in the MPFB data folder.
pub struct Inputs {
    /// `rigs/standard/rig.default.json`.
    pub rig: PathBuf,
    /// `rigs/standard/weights.game_engine.json` (the largest weights file).
    pub weights: PathBuf,
    /// `3dobjs/base.obj`.
    pub obj: PathBuf,
}

impl Inputs {
    /// The inputs, or `None` (with a message on stderr) when there is no MPFB data.
    pub fn find() -> Option<Self> {
        let data = test_support::mpfb_data_or_skip("benchmarks")?;
        Some(Self {
            rig: data.join("rigs/standard/rig.default.json"),
            weights: data.join("rigs/standard/weights.game_engine.json"),
            obj: data.join("3dobjs/base.obj"),
        })
    }
}
