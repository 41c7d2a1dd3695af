//! Skins as G4MF writes them: influences merged, rounded to float32 and in the file's order,
//! shared by the character builder and its prepared meshes.

use std::sync::Arc;

/// A skin as written: `(vertex, group, weight)` in file order (shared: meshes with the same
/// influences and joints share one).
pub type WrittenSkin = Arc<Vec<(u32, u32, f32)>>;

/// Merges repeated (vertex, bone) influences, converts to float32, and orders them as G4MF
/// requires: vertices ascending, weights descending, equal weights by ascending group.
pub fn order_skin(influences: impl IntoIterator<Item = (u32, u32, f64)>) -> Vec<(u32, u32, f32)> {
    let influences = influences.into_iter();
    let mut list: Vec<(u32, u32, f64)> = Vec::with_capacity(influences.size_hint().1.unwrap_or(0));
    list.extend(influences);
    // Callers usually pass influences already in vertex order: then no global sort is needed.
    if !list.windows(2).all(|w| w[0].0 <= w[1].0) {
        list.sort_unstable_by_key(|e| e.0);
    }
    let mut out: Vec<(u32, u32, f32)> = Vec::with_capacity(list.len());
    for run in list.chunk_by_mut(|a, b| a.0 == b.0) {
        // Fast path: a run already in G4MF order with distinct groups (what a resolver that
        // sorts in f64 usually hands us) only needs rounding.
        let ordered = run.windows(2).all(|w| {
            let (a, b) = (w[0].2 as f32, w[1].2 as f32);
            a > b || (a == b && w[0].1 < w[1].1)
        });
        // Runs are a handful of influences: a pairwise check beats allocating to sort.
        let distinct = || (1..run.len()).all(|i| run[..i].iter().all(|e| e.1 != run[i].1));
        if ordered && distinct() {
            out.extend(run.iter().map(|&(v, g, w)| (v, g, w as f32)));
            continue;
        }
        run.sort_unstable_by_key(|e| e.1);
        let start = out.len();
        // Repeated (vertex, group) pairs add up in f64, rounded to f32 once.
        for same in run.chunk_by(|a, b| a.1 == b.1) {
            let sum: f64 = same.iter().map(|e| e.2).sum();
            out.push((same[0].0, same[0].1, sum as f32));
        }
        // Ordered on the float32 values actually written, so the file's order holds exactly.
        out[start..].sort_unstable_by(|a, b| b.2.total_cmp(&a.2).then(a.1.cmp(&b.1)));
    }
    out
}
