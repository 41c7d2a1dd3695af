//! Geometric rules of the specification that the writer must obey and the validator must check,
//! kept in one place so both apply the same tolerance.

/// Largest angle, in radians, between the computed normals of two simplexes of one polytope
/// that still counts as "pointing the same direction within floating-point precision"
/// (`mesh.md`, `polytopeSimplexes`).
///
/// Positions are usually float32: a relative error of 6e-8 on a coordinate of 1 m moves the
/// normal of a 1 mm triangle by about 6e-5 rad. 1e-3 rad (0.057 degrees) leaves a wide
/// margin above that noise and is still far below any visible bend (MakeHuman's non-planar
/// quads bend by up to tens of degrees).
pub const POLYTOPE_NORMAL_TOLERANCE: f64 = 1e-3;

/// The unit normal of a 3D triangle by the right-hand rule, or `None` when it has no area
/// (a degenerate simplex has no direction, so it constrains nothing).
pub fn triangle_normal(a: [f64; 3], b: [f64; 3], c: [f64; 3]) -> Option<[f64; 3]> {
    let u = [b[0] - a[0], b[1] - a[1], b[2] - a[2]];
    let v = [c[0] - a[0], c[1] - a[1], c[2] - a[2]];
    let n = [
        u[1] * v[2] - u[2] * v[1],
        u[2] * v[0] - u[0] * v[2],
        u[0] * v[1] - u[1] * v[0],
    ];
    let length = (n[0] * n[0] + n[1] * n[1] + n[2] * n[2]).sqrt();
    // Relative to the edges, so the test does not depend on the model's scale.
    let scale = (u[0] * u[0] + u[1] * u[1] + u[2] * u[2]).sqrt()
        * (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt();
    (length.is_finite() && length > scale * 1e-12 && length > 0.0)
        .then(|| [n[0] / length, n[1] / length, n[2] / length])
}

/// The angle between two unit normals, in radians (robust for tiny angles).
pub fn normal_angle(n: [f64; 3], m: [f64; 3]) -> f64 {
    let cross = [
        n[1] * m[2] - n[2] * m[1],
        n[2] * m[0] - n[0] * m[2],
        n[0] * m[1] - n[1] * m[0],
    ];
    let sin = (cross[0] * cross[0] + cross[1] * cross[1] + cross[2] * cross[2]).sqrt();
    let cos = n[0] * m[0] + n[1] * m[1] + n[2] * m[2];
    sin.atan2(cos)
}

/// The largest angle between the normal of the polytope's first non-degenerate triangle and
/// any other triangle's (0 for one triangle): the polytope obeys `mesh.md` when this is at most
/// [`POLYTOPE_NORMAL_TOLERANCE`].
pub fn polytope_bend(triangles: impl IntoIterator<Item = [[f64; 3]; 3]>) -> f64 {
    let mut first = None;
    let mut worst: f64 = 0.0;
    for [a, b, c] in triangles {
        let Some(n) = triangle_normal(a, b, c) else {
            continue;
        };
        match first {
            None => first = Some(n),
            Some(f) => worst = worst.max(normal_angle(f, n)),
        }
    }
    worst
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flat_and_bent_quads() {
        let flat = [
            [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [1.0, 1.0, 0.0]],
            [[0.0, 0.0, 0.0], [1.0, 1.0, 0.0], [0.0, 1.0, 0.0]],
        ];
        assert!(polytope_bend(flat) < 1e-15);
        // Lift one corner by 0.1: the second half tilts by acos(1 / sqrt(1.02)) ~ 0.140 rad.
        let bent = [
            [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [1.0, 1.0, 0.0]],
            [[0.0, 0.0, 0.0], [1.0, 1.0, 0.0], [0.0, 1.0, 0.1]],
        ];
        let bend = polytope_bend(bent);
        assert!(bend > 0.05 && bend < 0.15, "{bend}");
        // Opposite winding: pi.
        let flipped = [
            [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [1.0, 1.0, 0.0]],
            [[0.0, 0.0, 0.0], [0.0, 1.0, 0.0], [1.0, 1.0, 0.0]],
        ];
        assert!((polytope_bend(flipped) - std::f64::consts::PI).abs() < 1e-12);
        // Degenerate triangles constrain nothing.
        let degenerate = [
            [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [1.0, 1.0, 0.0]],
            [[0.0, 0.0, 0.0], [2.0, 0.0, 0.0], [3.0, 0.0, 0.0]],
        ];
        assert_eq!(polytope_bend(degenerate), 0.0);
    }
}
