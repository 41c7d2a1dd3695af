//! A mesh's skin as glTF holds it: sets of four joints and weights per vertex (`JOINTS_n`,
//! `WEIGHTS_n`), the strongest influences of each vertex kept and renormalised so they sum to
//! one in float32, a vertex no bone moves given to the root bone with weight 1 (MakeHuman's
//! rule). Made once per skin, split and layout (kept in the influences' memo).

use crate::buffer::{Encoded, uint_component};
use crate::error::GltfError;
use crate::vertices::Split;
use character_spec::Influences;
use gltf_json::accessor::Type;
use std::sync::{Arc, Mutex, PoisonError};

/// What decides a skin's sets besides the influences: the split and the joint layout.
#[derive(Debug, Clone, PartialEq)]
struct Layout {
    /// Joint index of each spec bone.
    joint_of_bone: Vec<u32>,
    /// The joint a vertex no bone moves goes to.
    root_joint: u32,
    /// Influences kept per vertex.
    max_influences: usize,
    /// The mesh's vertex count (for the range check).
    vertex_count: usize,
}

/// The skin of one mesh as written.
#[derive(Debug)]
pub(crate) struct SkinSets {
    /// `JOINTS_n` then `WEIGHTS_n` of each set of four.
    pub sets: Vec<(Encoded, Encoded)>,
    /// Source vertices (used by a face) no bone moves, given to the root joint.
    pub unweighted: usize,
    /// Influences dropped beyond the limit, over all source vertices.
    pub dropped: usize,
    /// The most influences any vertex keeps.
    pub max_kept: usize,
}

/// A skin as made, with the split and layout it was made for.
type Made = (Arc<Split>, Layout, Arc<SkinSets>);

/// The last skin made from some influences, with what it was made for.
#[derive(Default)]
struct Last(Mutex<Option<Made>>);

/// The skin of `influences` over `split`'s vertices, made once for the same split and layout.
pub(crate) fn skin_sets(
    influences: &Influences,
    split: &Arc<Split>,
    joint_of_bone: &[u32],
    root_joint: u32,
    max_influences: usize,
    vertex_count: usize,
    mesh: &str,
) -> Result<Arc<SkinSets>, GltfError> {
    let layout = Layout {
        joint_of_bone: joint_of_bone.to_vec(),
        root_joint,
        max_influences,
        vertex_count,
    };
    let last = influences.memo().get_or_init(Last::default);
    let mut kept = last.0.lock().unwrap_or_else(PoisonError::into_inner);
    if let Some((s, l, sets)) = kept.as_ref() {
        if Arc::ptr_eq(s, split) && *l == layout {
            return Ok(sets.clone());
        }
    }
    let sets = Arc::new(make(influences, split, &layout, mesh)?);
    *kept = Some((split.clone(), layout, sets.clone()));
    Ok(sets)
}

/// Each source vertex's kept `(joint, weight)` pairs, strongest first, in compressed rows.
struct PerVertex {
    offsets: Vec<u32>,
    pairs: Vec<(u32, f64)>,
}

fn make(
    influences: &Influences,
    split: &Split,
    layout: &Layout,
    mesh: &str,
) -> Result<SkinSets, GltfError> {
    check(influences, layout, mesh)?;
    let (per_vertex, dropped) = per_vertex(influences, layout);
    let row = |v: usize| -> &[(u32, f64)] {
        match (per_vertex.offsets.get(v), per_vertex.offsets.get(v + 1)) {
            (Some(&a), Some(&b)) => &per_vertex.pairs[a as usize..b as usize],
            _ => &[],
        }
    };
    let used_sources = split.max_vertex.map_or(0, |m| m as usize + 1);
    let max_kept = (0..used_sources)
        .filter(|&v| !split.copies_of(v as u32).is_empty())
        .map(|v| row(v).len())
        .max()
        .unwrap_or(0)
        .max(1);
    let (sets, unweighted) = encoded_sets(split, layout, max_kept.div_ceil(4), row);
    Ok(SkinSets {
        sets,
        unweighted,
        dropped,
        max_kept,
    })
}

/// `set_count` sets of `JOINTS_n` and `WEIGHTS_n` over the glTF vertices, each vertex's from
/// its source vertex's `row` (the root joint with weight 1 for an empty row); and how many
/// source vertices had an empty row.
fn encoded_sets<'r>(
    split: &Split,
    layout: &Layout,
    set_count: usize,
    row: impl Fn(usize) -> &'r [(u32, f64)],
) -> (Vec<(Encoded, Encoded)>, usize) {
    let max_joint = layout.joint_of_bone.iter().copied().max().unwrap_or(0);
    let component = uint_component(max_joint.max(layout.root_joint));
    let mut joints = vec![Vec::with_capacity(split.len() * 4); set_count];
    let mut weights = vec![Vec::with_capacity(split.len() * 4); set_count];
    let mut unweighted = 0;
    let mut counted = vec![false; split.max_vertex.map_or(0, |m| m as usize + 1)];
    for &source in &split.source {
        let pairs = row(source as usize);
        let first_copy = !std::mem::replace(&mut counted[source as usize], true);
        let written: Vec<(u32, f32)> = if pairs.is_empty() {
            if first_copy {
                unweighted += 1;
            }
            vec![(layout.root_joint, 1.0)]
        } else {
            float32_weights(pairs)
        };
        for set in 0..set_count {
            for slot in 0..4 {
                // Unused slots: joint 0 with weight 0, as the validator expects.
                let (j, w) = written.get(set * 4 + slot).copied().unwrap_or((0, 0.0));
                joints[set].push(j);
                weights[set].push(w);
            }
        }
    }
    let sets = joints
        .iter()
        .zip(&weights)
        .map(|(j, w)| {
            (
                Encoded::uint(j, component, Type::Vec4),
                Encoded::f32(w, Type::Vec4, false),
            )
        })
        .collect();
    (sets, unweighted)
}

/// Every influence's vertex and bone in range and weight a finite non-negative number.
fn check(influences: &Influences, layout: &Layout, mesh: &str) -> Result<(), GltfError> {
    let checked = influences.checked();
    let bad = |index: usize, problem: String| GltfError::BadInfluence {
        mesh: mesh.to_owned(),
        index,
        problem,
    };
    if let Some((v, index)) = checked.max_vertex {
        if v as usize >= layout.vertex_count {
            return Err(bad(
                index,
                format!("vertex {v} is beyond the mesh's {}", layout.vertex_count),
            ));
        }
    }
    if let Some((b, index)) = checked.max_bone {
        if b as usize >= layout.joint_of_bone.len() {
            return Err(bad(index, format!("bone {b} does not exist")));
        }
    }
    if let Some(index) = checked.bad_weight {
        let w = influences.list()[index].weight;
        return Err(bad(
            index,
            format!("weight {w} is not a finite non-negative number"),
        ));
    }
    Ok(())
}

/// Each vertex's influences merged by joint (repeats add up), strongest first (equal weights
/// by joint), at most `max_influences` kept and rescaled to sum 1; vertices whose weights sum
/// to 0 keep none. Returns the rows and how many influences were dropped.
fn per_vertex(influences: &Influences, layout: &Layout) -> (PerVertex, usize) {
    let mut list: Vec<(u32, u32, f64)> = influences
        .list()
        .iter()
        .filter(|i| i.weight > 0.0)
        .map(|i| (i.vertex, layout.joint_of_bone[i.bone as usize], i.weight))
        .collect();
    if !list.windows(2).all(|w| w[0].0 <= w[1].0) {
        list.sort_by_key(|e| e.0);
    }
    let mut offsets = vec![0u32; layout.vertex_count + 1];
    let mut pairs = Vec::with_capacity(list.len());
    let mut dropped = 0;
    let mut run: Vec<(u32, f64)> = Vec::new();
    let mut v_next = 0usize;
    for group in list.chunk_by(|a, b| a.0 == b.0) {
        let v = group[0].0 as usize;
        while v_next <= v {
            offsets[v_next] = pairs.len() as u32;
            v_next += 1;
        }
        run.clear();
        run.extend(group.iter().map(|e| (e.1, e.2)));
        run.sort_by_key(|e| e.0);
        let mut merged: Vec<(u32, f64)> = Vec::with_capacity(run.len());
        for same in run.chunk_by(|a, b| a.0 == b.0) {
            merged.push((same[0].0, same.iter().map(|e| e.1).sum()));
        }
        merged.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        if merged.len() > layout.max_influences {
            dropped += merged.len() - layout.max_influences;
            merged.truncate(layout.max_influences);
        }
        let sum: f64 = merged.iter().map(|e| e.1).sum();
        if sum > 0.0 && sum.is_finite() {
            pairs.extend(merged.iter().map(|&(j, w)| (j, w / sum)));
        }
    }
    while v_next <= layout.vertex_count {
        offsets[v_next] = pairs.len() as u32;
        v_next += 1;
    }
    (PerVertex { offsets, pairs }, dropped)
}

/// Weights as float32 summing to one as closely as float32 allows: the strongest takes what
/// the others leave, so a reader summing them gets 1 within its rounding.
fn float32_weights(pairs: &[(u32, f64)]) -> Vec<(u32, f32)> {
    let mut out: Vec<(u32, f32)> = pairs.iter().map(|&(j, w)| (j, w as f32)).collect();
    let others: f64 = out[1..].iter().map(|e| f64::from(e.1)).sum();
    out[0].1 = (1.0 - others) as f32;
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use character_spec::{FaceSpec, Influence, SurfaceSpec, Surfaces};

    fn triangle_split() -> Arc<Split> {
        let surfaces: Surfaces = vec![SurfaceSpec {
            name: None,
            material: None,
            faces: vec![FaceSpec {
                vertices: [0, 1, 2].as_slice().into(),
                texcoords: None,
            }],
        }]
        .into();
        crate::vertices::split(&surfaces)
    }

    fn influence(vertex: u32, bone: u32, weight: f64) -> Influence {
        Influence {
            vertex,
            bone,
            weight,
        }
    }

    fn floats(e: &Encoded) -> Vec<f32> {
        e.bytes
            .chunks_exact(4)
            .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect()
    }

    #[test]
    fn strongest_kept_renormalised_and_the_unweighted_given_to_the_root() {
        // Vertex 0: five influences (one repeated), vertex 1: one, vertex 2: none.
        let influences: Influences = vec![
            influence(0, 1, 0.1),
            influence(0, 2, 0.4),
            influence(0, 3, 0.2),
            influence(0, 4, 0.05),
            influence(0, 5, 0.15),
            influence(0, 3, 0.1),
            influence(1, 2, 0.5),
        ]
        .into();
        let split = triangle_split();
        let joints: Vec<u32> = (0..6).collect();
        let sets = skin_sets(&influences, &split, &joints, 0, 4, 3, "m").unwrap();
        assert_eq!(sets.sets.len(), 1);
        assert_eq!((sets.unweighted, sets.dropped, sets.max_kept), (1, 1, 4));
        let (j, w) = &sets.sets[0];
        let w = floats(w);
        // Vertex 0 keeps joints 2 (0.4), 3 (0.3), 5 (0.15), 1 (0.1); 0.05 dropped; /0.95.
        assert_eq!(j.bytes[..4], [2, 3, 5, 1]);
        let expected = [0.4, 0.3, 0.15, 0.1].map(|x: f64| x / 0.95);
        for (got, want) in w[..4].iter().zip(expected) {
            assert!((f64::from(*got) - want).abs() < 1e-6, "{got} {want}");
        }
        let sum: f64 = w[..4].iter().map(|&x| f64::from(x)).sum();
        assert!((sum - 1.0).abs() < 1e-7);
        // Vertex 1: joint 2 alone with weight 1; vertex 2: the root joint with weight 1.
        assert_eq!((j.bytes[4], w[4], w[5]), (2, 1.0, 0.0));
        assert_eq!((j.bytes[8], w[8]), (0, 1.0));
        // Eight influences allowed: two sets.
        let two = skin_sets(&influences, &split, &joints, 0, 8, 3, "m").unwrap();
        assert_eq!((two.sets.len(), two.dropped, two.max_kept), (2, 0, 5));
    }

    #[test]
    fn bad_influences_name_the_mesh_and_the_influence() {
        let split = triangle_split();
        let joints: Vec<u32> = (0..2).collect();
        let error = |list: Vec<Influence>| {
            skin_sets(&list.into(), &split, &joints, 0, 4, 3, "Body")
                .unwrap_err()
                .to_string()
        };
        assert!(error(vec![influence(3, 0, 1.0)]).contains("Body: skin influence 0: vertex 3"));
        assert!(error(vec![influence(0, 0, 1.0), influence(1, 7, 1.0)]).contains("bone 7"));
        assert!(error(vec![influence(0, 0, f64::NAN)]).contains("not a finite"));
    }
}
