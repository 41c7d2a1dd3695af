//! Blend shapes as glTF morph targets: a shape's offsets carried to every glTF vertex made
//! from a moved vertex, written sparse (indices and values) when that is smaller than the
//! dense list, dense otherwise, and as a sparse accessor of one zero when a shape moves none.

use crate::buffer::{BufferBuilder, Encoded, index_component};
use crate::error::GltfError;
use crate::vertices::Split;
use character_spec::Offsets;
use glam::DVec3;
use gltf_json::accessor::Type;
use gltf_json::{Accessor, Index, Root};
use std::sync::{Arc, Mutex, PoisonError};

/// A target attribute's data over a mesh's glTF vertices.
#[derive(Debug)]
pub(crate) enum TargetData {
    /// No vertex moves.
    Zero,
    /// `indices` (ascending glTF vertices) and their `values`.
    Sparse {
        /// The moved vertices.
        indices: Encoded,
        /// Their offsets.
        values: Encoded,
        /// Bounds over every vertex (zeros included).
        bounds: (Vec<f64>, Vec<f64>),
    },
    /// One offset per vertex.
    Dense(Encoded),
}

impl TargetData {
    /// The target attribute over `split` from `(source vertex, offset)` pairs (ascending).
    pub fn of(pairs: &[(u32, DVec3)], split: &Split) -> Self {
        let mut moved: Vec<(u32, [f32; 3])> = Vec::with_capacity(pairs.len());
        for &(v, offset) in pairs {
            let o = offset.to_array().map(|c| c as f32);
            if o == [0.0; 3] {
                continue;
            }
            moved.extend(split.copies_of(v).iter().map(|&g| (g, o)));
        }
        if moved.is_empty() {
            return Self::Zero;
        }
        moved.sort_unstable_by_key(|e| e.0);
        let count = split.len();
        // Sparse: an index (2 or 4 bytes) and 12 bytes a moved vertex; dense: 12 bytes each.
        let index_type = index_component(count.saturating_sub(1) as u32);
        let sparse_bytes = moved.len() * (index_type.size() + 12);
        if sparse_bytes < count * 12 {
            let values: Vec<f32> = moved.iter().flat_map(|e| e.1).collect();
            let mut bounds = bounds_of(&values);
            if moved.len() < count {
                // Untouched vertices are zero: the bounds include it.
                for c in 0..3 {
                    bounds.0[c] = bounds.0[c].min(0.0);
                    bounds.1[c] = bounds.1[c].max(0.0);
                }
            }
            let indices: Vec<u32> = moved.iter().map(|e| e.0).collect();
            return Self::Sparse {
                indices: Encoded::uint(&indices, index_type, Type::Scalar),
                values: Encoded::f32(&values, Type::Vec3, false),
                bounds,
            };
        }
        let mut values = vec![0.0f32; count * 3];
        for (g, o) in moved {
            values[g as usize * 3..g as usize * 3 + 3].copy_from_slice(&o);
        }
        Self::Dense(Encoded::f32(&values, Type::Vec3, true))
    }

    /// The accessor of this data for `count` vertices.
    pub fn write(
        &self,
        root: &mut Root,
        buffer: &mut BufferBuilder,
        count: usize,
    ) -> Result<Index<Accessor>, GltfError> {
        match self {
            Self::Zero => buffer.zeros(root, count, Type::Vec3),
            Self::Sparse {
                indices,
                values,
                bounds,
            } => buffer.sparse(root, count, indices, values, Some(bounds.clone())),
            Self::Dense(encoded) => buffer.accessor(root, encoded, None),
        }
    }
}

/// Per-component bounds of float32 triples.
fn bounds_of(values: &[f32]) -> (Vec<f64>, Vec<f64>) {
    let mut min = vec![f64::INFINITY; 3];
    let mut max = vec![f64::NEG_INFINITY; 3];
    for t in values.chunks_exact(3) {
        for c in 0..3 {
            min[c] = min[c].min(f64::from(t[c]));
            max[c] = max[c].max(f64::from(t[c]));
        }
    }
    (min, max)
}

/// The position target of shared offsets over a split, made once for the same split.
#[derive(Default)]
struct Last(Mutex<Option<(Arc<Split>, Arc<TargetData>)>>);

/// The position target of `offsets` over `split` (kept in the offsets' memo for the next mesh
/// with the same split).
pub(crate) fn position_target(offsets: &Offsets, split: &Arc<Split>) -> Arc<TargetData> {
    let last = offsets.memo().get_or_init(Last::default);
    let mut kept = last.0.lock().unwrap_or_else(PoisonError::into_inner);
    if let Some((s, data)) = kept.as_ref() {
        if Arc::ptr_eq(s, split) {
            return data.clone();
        }
    }
    let data = Arc::new(TargetData::of(offsets, split));
    *kept = Some((split.clone(), data.clone()));
    data
}

#[cfg(test)]
mod tests {
    use super::*;
    use character_spec::{FaceSpec, SurfaceSpec, Surfaces};

    #[test]
    fn a_moved_seam_vertex_moves_every_copy_and_few_moves_are_sparse() {
        let faces: Vec<FaceSpec> = (0..20u32)
            .map(|i| FaceSpec {
                vertices: [i, i + 1, i + 2].as_slice().into(),
                texcoords: Some(
                    [i, i + 1, i + 2 + u32::from(i % 2 == 1) * 100]
                        .as_slice()
                        .into(),
                ),
            })
            .collect();
        let surfaces: Surfaces = vec![SurfaceSpec {
            name: None,
            material: None,
            faces,
        }]
        .into();
        let split = crate::vertices::split(&surfaces);
        let copies = split.copies_of(3).len();
        assert!(copies > 1, "vertex 3 is on a seam");
        let data = TargetData::of(&[(3, DVec3::new(0.0, 0.01, 0.0))], &split);
        match data {
            TargetData::Sparse {
                indices, bounds, ..
            } => {
                assert_eq!(indices.count, copies);
                assert_eq!(bounds.0, vec![0.0, 0.0, 0.0]);
                assert_eq!(bounds.1[1], f64::from(0.01f32));
            }
            other => panic!("expected sparse, got {other:?}"),
        }
        let all: Vec<(u32, DVec3)> = (0..22).map(|v| (v, DVec3::X)).collect();
        assert!(matches!(TargetData::of(&all, &split), TargetData::Dense(_)));
        assert!(matches!(
            TargetData::of(&[(4, DVec3::ZERO)], &split),
            TargetData::Zero
        ));
    }
}
