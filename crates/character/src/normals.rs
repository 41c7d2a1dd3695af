//! Smooth per-vertex normals, angle-weighted: each polygon adds its normal to each of its
//! corners' vertices, weighted by the polygon's angle at that corner (Thürmer and Wüthrich).
//! Unlike area weighting, the result does not depend on how polygons are triangulated or how
//! finely a region is subdivided, and unlike plain averaging a long thin polygon does not
//! outweigh its neighbours; MakeHuman's quads are not planar, so each polygon's normal is
//! Newell's (the normal of its best-fitting plane), oriented by the winding (right-hand rule,
//! as G4MF computes cell normals: `(v1 - v0) x (v2 - v0)` for a triangle).

use crate::Mesh;
use glam::DVec3;

/// Unit normals of `mesh`, one per vertex. A vertex no polygon uses, or whose contributions
/// cancel out, gets the normal of the first polygon using it, else +Y.
pub fn smooth_normals(mesh: &Mesh) -> Vec<DVec3> {
    let positions = &mesh.positions;
    let polygons = &mesh.polygons;
    let mut sums = vec![DVec3::ZERO; positions.len()];
    let mut first = vec![None; positions.len()];
    for p in 0..polygons.len() {
        let corners = &polygons.vertices[polygons.corners(p)];
        let n = corners.len();
        if n < 3 {
            continue;
        }
        let at = |k: usize| positions[corners[k % n] as usize];
        // Newell's normal: exact for planar polygons, the best-fitting plane's otherwise.
        let mut normal = DVec3::ZERO;
        for k in 0..n {
            let (a, b) = (at(k), at(k + 1));
            normal += DVec3::new(
                (a.y - b.y) * (a.z + b.z),
                (a.z - b.z) * (a.x + b.x),
                (a.x - b.x) * (a.y + b.y),
            );
        }
        let Some(normal) = normal.try_normalize() else {
            continue; // a degenerate polygon has no direction
        };
        for (k, &v) in corners.iter().enumerate() {
            let v = v as usize;
            let (prev, here, next) = (at(k + n - 1), at(k), at(k + 1));
            let angle = (prev - here).angle_between(next - here);
            if angle.is_finite() {
                sums[v] += normal * angle;
            }
            first[v].get_or_insert(normal);
        }
    }
    sums.into_iter()
        .zip(first)
        .map(|(sum, first)| sum.try_normalize().or(first).unwrap_or(DVec3::Y))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Numbering, Polygons};

    fn mesh(positions: Vec<DVec3>, faces: &[&[u32]]) -> Mesh {
        let mut polygons = Polygons {
            offsets: vec![0],
            part_sets: vec![vec![]],
            ..Polygons::default()
        };
        for f in faces {
            polygons.vertices.extend_from_slice(f);
            polygons.texcoords.extend(f.iter().map(|_| None));
            polygons.offsets.push(polygons.vertices.len() as u32);
            polygons.materials.push(None);
            polygons.parts.push(0);
        }
        Mesh {
            numbering: Numbering::identity(positions.len()),
            positions,
            polygons,
            ..Mesh::default()
        }
    }

    #[test]
    fn flat_quad_faces_its_winding_and_a_fold_averages_by_angle() {
        // Counter-clockwise seen from +Z: normal +Z.
        let quad = mesh(
            vec![DVec3::ZERO, DVec3::X, DVec3::new(1.0, 1.0, 0.0), DVec3::Y],
            &[&[0, 1, 2, 3]],
        );
        for n in smooth_normals(&quad) {
            assert!((n - DVec3::Z).length() < 1e-12, "{n}");
        }
        // A right-angle fold along the Y axis: the shared edge's vertices point halfway.
        let fold = mesh(
            vec![
                DVec3::ZERO,
                DVec3::Y,
                DVec3::new(1.0, 1.0, 0.0),
                DVec3::X,
                DVec3::new(0.0, 1.0, 1.0),
                DVec3::Z,
            ],
            &[&[0, 3, 2, 1], &[0, 1, 4, 5]],
        );
        let normals = smooth_normals(&fold);
        let half = DVec3::new(1.0, 0.0, 1.0).normalize();
        assert!((normals[0] - half).length() < 1e-12, "{}", normals[0]);
        assert!((normals[3] - DVec3::Z).length() < 1e-12);
        assert!((normals[5] - DVec3::X).length() < 1e-12);
        // Splitting a face into triangles does not change angle-weighted normals.
        let split = mesh(
            fold.positions.clone(),
            &[&[0, 3, 2], &[0, 2, 1], &[0, 1, 4, 5]],
        );
        for (a, b) in smooth_normals(&split).iter().zip(&normals) {
            assert!((*a - *b).length() < 1e-12, "{a} vs {b}");
        }
        assert!(normals.iter().all(|n| (n.length() - 1.0).abs() < 1e-12));
    }
}
