//! A parsed weights file ([`WeightsFile`], its [`WeightGroup`]s): what both readers, the fast
//! path and the typed one, build.

use serde_json::{Map, Value};

/// One vertex group of a weights file, pairs as written (zeros and repeats included).
#[derive(Debug, Clone, PartialEq)]
pub struct WeightGroup {
    /// The group name (a bone name, a Rigify `DEF-` name, or an `mhmask-*` mask).
    pub name: String,
    /// `(vertex, weight)` pairs in file order.
    pub pairs: Vec<(u32, f64)>,
}

/// A parsed weights file.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct WeightsFile {
    /// `copyright` metadata.
    pub copyright: Option<String>,
    /// `description` metadata.
    pub description: Option<String>,
    /// `license` metadata.
    pub license: Option<String>,
    /// `name` metadata.
    pub name: Option<String>,
    /// `version` metadata (110 in MPFB's files).
    pub version: Option<Value>,
    /// Other top-level keys, verbatim.
    pub extra: Map<String, Value>,
    /// The groups in file order.
    pub groups: Vec<WeightGroup>,
}

impl WeightsFile {
    /// Total number of pairs as written.
    pub fn pair_count(&self) -> usize {
        self.groups.iter().map(|g| g.pairs.len()).sum()
    }
}
