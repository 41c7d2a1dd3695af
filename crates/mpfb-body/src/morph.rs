//! Morphing: `v = base + sum_i w_i * delta_i`, accumulated in f64 in the given order (the
//! result is the same whatever the order up to rounding; a fixed order makes it bit-exact).

use crate::target::Target;

/// A target moves a vertex the mesh does not have.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("target `{target}` moves vertex {vertex}, beyond the mesh's {vertex_count} vertices")]
pub struct MorphError {
    /// The target's name.
    pub target: String,
    /// The vertex.
    pub vertex: u32,
    /// The mesh's vertex count.
    pub vertex_count: usize,
}

/// Applies weighted targets to `base` positions (in the targets' frame and units).
pub fn morph(
    base: &[[f64; 3]],
    targets: &[(&str, &Target, f64)],
) -> Result<Vec<[f64; 3]>, MorphError> {
    let mut out = base.to_vec();
    for &(name, target, weight) in targets {
        if weight == 0.0 {
            continue;
        }
        for (&v, d) in target.vertices.iter().zip(&target.offsets) {
            let Some(p) = out.get_mut(v as usize) else {
                return Err(MorphError {
                    target: name.to_owned(),
                    vertex: v,
                    vertex_count: base.len(),
                });
            };
            for k in 0..3 {
                p[k] += weight * f64::from(d[k]);
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn weighted_sum_and_range_check() {
        let base = [[0.0; 3], [1.0, 1.0, 1.0]];
        let a = Target::new([(1, [1.0, 0.0, -2.0])]);
        let b = Target::new([(0, [0.5, 0.5, 0.5]), (1, [0.0, 4.0, 0.0])]);
        let out = morph(&base, &[("a", &a, 0.5), ("b", &b, -1.0)]).unwrap_or_default();
        assert_eq!(out, [[-0.5, -0.5, -0.5], [1.5, -3.0, 0.0]]);
        let far = Target::new([(2, [1.0; 3])]);
        let err = morph(&base, &[("far", &far, 1.0)]).err();
        assert_eq!(
            err.map(|e| e.to_string()),
            Some("target `far` moves vertex 2, beyond the mesh's 2 vertices".to_owned())
        );
    }
}
