//! The per-vertex skin: parallel `vertices`, `groups`, `weights` arrays ordered the way G4MF
//! requires (vertices ascending, each vertex's weights descending, ties by group index).

use std::collections::BTreeMap;

/// A skin in G4MF order. Entry `i` says: vertex `vertices[i]` is moved by group `groups[i]`
/// with weight `weights[i]`. Each (vertex, group) appears once.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Skin {
    /// Vertex indices, ascending.
    pub vertices: Vec<u32>,
    /// Group indices.
    pub groups: Vec<u32>,
    /// Weights, descending within each vertex.
    pub weights: Vec<f64>,
}

/// Groups `items` by their first field (a vertex index) in ascending order and calls `f` on
/// each group. Vertex indices are dense, so this is a counting sort: linear, where a general
/// sort of every influence was the converter's hottest spot.
pub fn for_each_vertex_run<T, F>(items: Vec<T>, mut f: F)
where
    T: VertexKeyed + Copy,
    F: FnMut(&mut [T]),
{
    let Some(max) = items.iter().map(VertexKeyed::vertex).max() else {
        return;
    };
    let mut items = items;
    if (max as usize) > items.len().saturating_mul(16).saturating_add(1 << 16) {
        // Sparse indices: a counting array would be mostly empty; sort instead.
        items.sort_unstable_by_key(VertexKeyed::vertex);
        for run in items.chunk_by_mut(|a, b| a.vertex() == b.vertex()) {
            f(run);
        }
        return;
    }
    let mut start = vec![0usize; max as usize + 2];
    for item in &items {
        start[item.vertex() as usize + 1] += 1;
    }
    for i in 1..start.len() {
        start[i] += start[i - 1];
    }
    let mut next = start.clone();
    let mut sorted: Vec<T> = items.clone();
    for item in items {
        let slot = &mut next[item.vertex() as usize];
        sorted[*slot] = item;
        *slot += 1;
    }
    for v in 0..=max as usize {
        if start[v] < start[v + 1] {
            f(&mut sorted[start[v]..start[v + 1]]);
        }
    }
}

/// Something with a vertex index, for [`for_each_vertex_run`].
pub trait VertexKeyed {
    /// The vertex index.
    fn vertex(&self) -> u32;
}

impl<G: Copy, W: Copy> VertexKeyed for (u32, G, W) {
    fn vertex(&self) -> u32 {
        self.0
    }
}

/// Summary figures of a skin.
#[derive(Debug, Clone, PartialEq)]
pub struct SkinStats {
    /// Number of (vertex, group, weight) entries.
    pub pairs: usize,
    /// Distinct vertices with at least one influence.
    pub vertices: usize,
    /// Most influences on one vertex.
    pub max_influences: usize,
    /// `histogram[n]` = number of vertices with exactly `n` influences.
    pub histogram: Vec<usize>,
    /// Smallest per-vertex weight sum (0 when the skin is empty).
    pub min_weight_sum: f64,
    /// Largest per-vertex weight sum.
    pub max_weight_sum: f64,
}

impl Skin {
    /// Builds a skin from influences in any order; repeated (vertex, group) pairs add up.
    pub fn from_influences(influences: Vec<(u32, u32, f64)>) -> Self {
        let mut skin = Skin::default();
        // One scratch buffer for every vertex (a fresh Vec per vertex showed up in profiles).
        let mut merged: Vec<(u32, u32, f64)> = Vec::new();
        for_each_vertex_run(influences, |run| {
            // Within one vertex: merge repeated groups, then weights descending, ties by group.
            run.sort_unstable_by_key(|e| e.1);
            merged.clear();
            for &(v, g, w) in run.iter() {
                match merged.last_mut() {
                    Some(last) if last.1 == g => last.2 += w,
                    _ => merged.push((v, g, w)),
                }
            }
            merged.sort_unstable_by(|a, b| b.2.total_cmp(&a.2).then(a.1.cmp(&b.1)));
            for &(v, g, w) in &merged {
                skin.vertices.push(v);
                skin.groups.push(g);
                skin.weights.push(w);
            }
        });
        skin
    }

    /// Number of entries.
    pub fn len(&self) -> usize {
        self.vertices.len()
    }

    /// True when no vertex is influenced.
    pub fn is_empty(&self) -> bool {
        self.vertices.is_empty()
    }

    /// Follows a vertex renumbering (`new_index[old]`, `None` = dropped). Returns the skin and
    /// how many entries fell on dropped vertices. An order-preserving map (as body extraction
    /// is) keeps the skin's order, so nothing is re-sorted.
    pub fn remap(&self, new_index: &[Option<u32>]) -> (Skin, usize) {
        let mut out = Skin::default();
        let mut previous: Option<(u32, u32)> = None;
        let mut monotone = true;
        for i in 0..self.len() {
            let Some(mapped) = new_index.get(self.vertices[i] as usize).copied().flatten() else {
                continue;
            };
            if let Some((old, new)) = previous {
                monotone &= (self.vertices[i] == old) == (mapped == new)
                    && (self.vertices[i] < old) == (mapped < new);
            }
            previous = Some((self.vertices[i], mapped));
            out.vertices.push(mapped);
            out.groups.push(self.groups[i]);
            out.weights.push(self.weights[i]);
        }
        let dropped = self.len() - out.len();
        if !monotone {
            let influences = (0..out.len())
                .map(|i| (out.vertices[i], out.groups[i], out.weights[i]))
                .collect();
            out = Skin::from_influences(influences);
        }
        (out, dropped)
    }

    /// Renames group indices (`map[old]`); influences whose group maps to `None` are removed.
    pub fn map_groups(&self, map: &[Option<u32>]) -> Skin {
        let influences = (0..self.len())
            .filter_map(|i| {
                let g = map.get(self.groups[i] as usize).copied().flatten()?;
                Some((self.vertices[i], g, self.weights[i]))
            })
            .collect();
        Skin::from_influences(influences)
    }

    /// Per-vertex weight sums.
    pub fn weight_sums(&self) -> BTreeMap<u32, f64> {
        let mut sums = BTreeMap::new();
        for (v, w) in self.vertices.iter().zip(&self.weights) {
            *sums.entry(*v).or_insert(0.0) += w;
        }
        sums
    }

    /// Vertices below `vertex_count` that no group moves.
    pub fn unweighted_vertices(&self, vertex_count: usize) -> Vec<u32> {
        let mut moved = vec![false; vertex_count];
        for &v in &self.vertices {
            if let Some(slot) = moved.get_mut(v as usize) {
                *slot = true;
            }
        }
        (0..vertex_count as u32)
            .filter(|&v| !moved[v as usize])
            .collect()
    }

    /// Summary figures.
    pub fn stats(&self) -> SkinStats {
        let mut histogram = vec![0usize];
        let mut max_influences = 0;
        let mut vertices = 0;
        let (mut min_sum, mut max_sum) = (f64::INFINITY, f64::NEG_INFINITY);
        let mut i = 0;
        while i < self.len() {
            let v = self.vertices[i];
            let mut j = i;
            let mut sum = 0.0;
            while j < self.len() && self.vertices[j] == v {
                sum += self.weights[j];
                j += 1;
            }
            let n = j - i;
            if histogram.len() <= n {
                histogram.resize(n + 1, 0);
            }
            histogram[n] += 1;
            max_influences = max_influences.max(n);
            vertices += 1;
            min_sum = min_sum.min(sum);
            max_sum = max_sum.max(sum);
            i = j;
        }
        if vertices == 0 {
            (min_sum, max_sum) = (0.0, 0.0);
        }
        SkinStats {
            pairs: self.len(),
            vertices,
            max_influences,
            histogram,
            min_weight_sum: min_sum,
            max_weight_sum: max_sum,
        }
    }
}
