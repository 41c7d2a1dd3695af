//! MakeHuman's rule for turning an asset's per-vertex bone contributions into the weights it
//! is skinned with (`shared/animation.py`, `VertexBoneWeights._build_vertex_weights_data`):
//! repeats merged, each vertex divided by its total, weights at or under
//! [`WEIGHT_THRESHOLD`] dropped after the division (without dividing
//! again), and vertices left with no weight given to the root bone.

use crate::fit::WEIGHT_THRESHOLD;

/// What [`vertex_bone_weights`] did beyond dividing.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct WeightChanges {
    /// Vertices with no contribution (or contributions summing to zero or to no number), now
    /// wholly on the root bone.
    pub given_to_root: usize,
    /// Weights at or under the threshold after the division, dropped.
    pub dropped: usize,
}

/// Applies MakeHuman's rule in place to `per_vertex` (each vertex's `(bone, contribution)`s,
/// a bone possibly repeated): each vertex's contributions summed per bone (in the order the
/// bones first appear), divided by the vertex's total, and those at or under the threshold
/// dropped. A vertex whose total is zero or not finite keeps nothing of its contributions
/// and, with a `root`, gets `(root, 1.0)` alone. The division is MakeHuman's: a total that
/// is negative divides too (its kept weights then need not sum to one).
pub fn vertex_bone_weights(per_vertex: &mut [Vec<(u32, f64)>], root: Option<u32>) -> WeightChanges {
    let mut changes = WeightChanges::default();
    for list in per_vertex.iter_mut() {
        merge_repeats(list);
        let total: f64 = list.iter().map(|&(_, w)| w).sum();
        if total == 0.0 || !total.is_finite() {
            list.clear();
        } else {
            let before = list.len();
            list.retain_mut(|(_, w)| {
                *w /= total;
                *w > WEIGHT_THRESHOLD
            });
            changes.dropped += before - list.len();
        }
        if let (true, Some(root)) = (list.is_empty(), root) {
            list.push((root, 1.0));
            changes.given_to_root += 1;
        }
    }
    changes
}

/// Sums the contributions of a bone named more than once into its first place, in
/// `n log n` (a hostile weights file may name one vertex in every group).
fn merge_repeats(list: &mut Vec<(u32, f64)>) {
    if list.len() < 2 {
        return;
    }
    // (bone, first place, sum), by bone then place: equal bones are neighbours.
    let mut by_bone: Vec<(u32, usize, f64)> = list
        .iter()
        .enumerate()
        .map(|(at, &(bone, w))| (bone, at, w))
        .collect();
    by_bone.sort_unstable_by_key(|&(bone, at, _)| (bone, at));
    by_bone.dedup_by(|later, first| {
        let same = later.0 == first.0;
        if same {
            first.2 += later.2;
        }
        same
    });
    if by_bone.len() == list.len() {
        return;
    }
    by_bone.sort_unstable_by_key(|&(_, at, _)| at);
    *list = by_bone.into_iter().map(|(bone, _, w)| (bone, w)).collect();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_vertex_is_divided_by_its_total_then_small_weights_go_without_dividing_again() {
        // Vertex 0: sums 4 (an extrapolating reference): divided to 0.25 each.
        // Vertex 1: bone 3 twice (merged to 2.0), bone 1 at 2e-4 of a 2.0002 total: under
        // the threshold after the division, dropped, and the rest not divided again.
        let mut v = vec![
            vec![(0, 1.0), (1, 1.0), (2, 1.0), (3, 1.0)],
            vec![(3, 1.5), (1, 0.0002), (3, 0.5)],
        ];
        let changes = vertex_bone_weights(&mut v, Some(9));
        assert_eq!(v[0], [(0, 0.25), (1, 0.25), (2, 0.25), (3, 0.25)]);
        assert_eq!(v[1].len(), 1);
        assert_eq!(v[1][0].0, 3);
        assert!((v[1][0].1 - 2.0 / 2.0002).abs() < 1e-15, "{:?}", v[1]);
        assert_eq!(
            changes,
            WeightChanges {
                given_to_root: 0,
                dropped: 1
            }
        );
    }

    #[test]
    fn a_vertex_with_no_weight_goes_to_the_root_bone() {
        let mut v = vec![Vec::new(), vec![(4, 0.5), (5, -0.5)], vec![(2, 0.3)]];
        let changes = vertex_bone_weights(&mut v, Some(7));
        assert_eq!(v, [vec![(7, 1.0)], vec![(7, 1.0)], vec![(2, 1.0)]]);
        assert_eq!(changes.given_to_root, 2);
        // Without a root (no skeleton to give them to), they stay without weights.
        let mut v = vec![Vec::new()];
        assert_eq!(vertex_bone_weights(&mut v, None).given_to_root, 0);
        assert!(v[0].is_empty());
    }
}
