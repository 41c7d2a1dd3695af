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
///
/// Each polygon's normal and corner angles (the costly part: an `acos` per corner) are found
/// in parallel over blocks of polygons; the sums are then added in polygon order on one
/// thread, so the result is the same to the bit as a sequential pass.
pub fn smooth_normals(mesh: &Mesh) -> Vec<DVec3> {
    use rayon::prelude::*;
    let positions = &mesh.positions;
    let polygons = &mesh.polygons;
    let position = |v: u32| positions[v as usize];
    // Blocks big enough that scheduling is noise, several per thread to balance.
    const BLOCK: usize = 2048;
    let blocks: Vec<(Vec<Option<DVec3>>, Vec<f64>)> = (0..polygons.len().div_ceil(BLOCK))
        .into_par_iter()
        .map(|b| {
            let range = b * BLOCK..((b + 1) * BLOCK).min(polygons.len());
            let mut normals = Vec::with_capacity(range.len());
            let mut angles = Vec::new();
            for p in range {
                normals.push(polygon_angles(
                    position,
                    &polygons.vertices[polygons.corners(p)],
                    &mut angles,
                ));
            }
            (normals, angles)
        })
        .collect();
    let mut sums = vec![DVec3::ZERO; positions.len()];
    let mut first = vec![None; positions.len()];
    let mut p = 0;
    for (normals, angles) in blocks {
        let mut angles = angles.into_iter();
        for normal in normals {
            let corners = &polygons.vertices[polygons.corners(p)];
            p += 1;
            let Some(normal) = normal else { continue };
            for (&v, angle) in corners.iter().zip(angles.by_ref()) {
                sums[v as usize] += weighted(normal, angle);
                first[v as usize].get_or_insert(normal);
            }
        }
    }
    sums.into_iter()
        .zip(first)
        .map(|(sum, first)| sum.try_normalize().or(first).unwrap_or(DVec3::Y))
        .collect()
}

/// A corner's contribution: the polygon's normal times its angle there (none when the angle
/// is undefined, at a repeated vertex).
fn weighted(normal: DVec3, angle: f64) -> DVec3 {
    if angle.is_finite() {
        normal * angle
    } else {
        DVec3::ZERO
    }
}

/// A polygon's unit normal, with its angle at each corner appended to `angles`; `None` (and
/// no angles) for a degenerate polygon or one of fewer than three corners.
fn polygon_angles(
    position: impl Fn(u32) -> DVec3,
    corners: &[u32],
    angles: &mut Vec<f64>,
) -> Option<DVec3> {
    let n = corners.len();
    if n < 3 {
        return None;
    }
    let at = |k: usize| position(corners[k % n]);
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
    // A degenerate polygon has no direction.
    let normal = normal.try_normalize()?;
    for k in 0..n {
        let (prev, here, next) = (at(k + n - 1), at(k), at(k + 1));
        angles.push((prev - here).angle_between(next - here));
    }
    Some(normal)
}

/// Which polygons use each vertex: built once, then [`NormalOffsets::of`] recomputes only the
/// normals a sparse displacement can change.
#[derive(Debug, Clone)]
pub struct NormalOffsets<'a> {
    mesh: &'a Mesh,
    base: &'a [DVec3],
    /// CSR: polygons of vertex v are `polygons[starts[v]..starts[v + 1]]`.
    starts: Vec<u32>,
    polygons: Vec<u32>,
}

/// Working memory of [`NormalOffsets::of_with`]: a slot per vertex and a mark per polygon,
/// so a shape's neighbourhood is found without hashing or sorting duplicates.
#[derive(Debug, Clone)]
pub struct Scratch {
    vertex: Vec<u32>,
    polygon: Vec<bool>,
}

/// Normal offsets smaller than this are left out (below float32's resolution of a unit vector).
pub const NORMAL_OFFSET_EPSILON: f64 = 1e-7;

impl<'a> NormalOffsets<'a> {
    /// Adjacency of `mesh`, whose smooth normals are `base`.
    pub fn new(mesh: &'a Mesh, base: &'a [DVec3]) -> Self {
        let polygons = &mesh.polygons;
        let mut counts = vec![0u32; mesh.positions.len() + 1];
        for &v in &polygons.vertices {
            counts[v as usize + 1] += 1;
        }
        for i in 1..counts.len() {
            counts[i] += counts[i - 1];
        }
        let starts = counts.clone();
        let mut next = counts;
        let mut of_vertex = vec![0u32; polygons.vertices.len()];
        for p in 0..polygons.len() {
            for &v in &polygons.vertices[polygons.corners(p)] {
                of_vertex[next[v as usize] as usize] = p as u32;
                next[v as usize] += 1;
            }
        }
        Self {
            mesh,
            base,
            starts,
            polygons: of_vertex,
        }
    }

    fn polygons_of(&self, v: u32) -> &[u32] {
        &self.polygons[self.starts[v as usize] as usize..self.starts[v as usize + 1] as usize]
    }

    /// The smooth normals of the mesh displaced by `offsets` (vertex ascending) minus the base
    /// normals, for every vertex where they differ by more than [`NORMAL_OFFSET_EPSILON`]:
    /// exactly what [`smooth_normals`] of the displaced mesh gives, computed only around the
    /// displaced vertices.
    pub fn of(&self, offsets: &[(u32, DVec3)]) -> Vec<(u32, DVec3)> {
        self.of_with(&mut self.scratch(), offsets)
    }

    /// Working memory for [`NormalOffsets::of_with`], one per thread.
    pub fn scratch(&self) -> Scratch {
        Scratch {
            vertex: vec![0; self.mesh.positions.len()],
            polygon: vec![false; self.mesh.polygons.len()],
        }
    }

    /// [`NormalOffsets::of`] with reusable working memory (left clean for the next call).
    pub fn of_with(&self, scratch: &mut Scratch, offsets: &[(u32, DVec3)]) -> Vec<(u32, DVec3)> {
        let polygons = &self.mesh.polygons;
        let base = &self.mesh.positions;
        // `vertex[v]`: 1 + the index of v's offset, for moved vertices.
        for (k, &(v, _)) in offsets.iter().enumerate() {
            scratch.vertex[v as usize] = k as u32 + 1;
        }
        let position = |v: u32| match scratch.vertex[v as usize] {
            0 => base[v as usize],
            k => base[v as usize] + offsets[k as usize - 1].1,
        };
        // Vertices whose normal can change: those sharing a polygon with a moved vertex.
        let mut touched: Vec<u32> = Vec::new();
        for &(v, _) in offsets {
            for &p in self.polygons_of(v) {
                if !std::mem::replace(&mut scratch.polygon[p as usize], true) {
                    touched.push(p);
                }
            }
        }
        let mut affected: Vec<u32> = touched
            .iter()
            .flat_map(|&p| {
                polygons.vertices[polygons.corners(p as usize)]
                    .iter()
                    .copied()
            })
            .collect();
        for &p in &touched {
            scratch.polygon[p as usize] = false;
        }
        affected.sort_unstable();
        affected.dedup();
        // Each polygon around them is computed once (not once per affected corner), in
        // ascending order, so every vertex's sum adds its polygons in the order
        // `smooth_normals` does: the same bits.
        let mut around: Vec<u32> = Vec::new();
        for &v in &affected {
            for &p in self.polygons_of(v) {
                if !std::mem::replace(&mut scratch.polygon[p as usize], true) {
                    around.push(p);
                }
            }
        }
        for &p in &around {
            scratch.polygon[p as usize] = false;
        }
        around.sort_unstable();
        let slot = |v: u32| affected.binary_search(&v).ok();
        let mut sums = vec![(DVec3::ZERO, None::<DVec3>); affected.len()];
        let mut angles = Vec::new();
        for &p in &around {
            let corners = &polygons.vertices[polygons.corners(p as usize)];
            angles.clear();
            let Some(normal) = polygon_angles(position, corners, &mut angles) else {
                continue;
            };
            for (&u, &angle) in corners.iter().zip(&angles) {
                if let Some(k) = slot(u) {
                    let (sum, first) = &mut sums[k];
                    *sum += weighted(normal, angle);
                    first.get_or_insert(normal);
                }
            }
        }
        for &(v, _) in offsets {
            scratch.vertex[v as usize] = 0;
        }
        let mut out = Vec::new();
        for (&v, (sum, first)) in affected.iter().zip(sums) {
            let normal = sum.try_normalize().or(first).unwrap_or(DVec3::Y);
            let offset = normal - self.base[v as usize];
            if offset.length() > NORMAL_OFFSET_EPSILON {
                out.push((v, offset));
            }
        }
        out
    }
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

    #[test]
    fn normal_offsets_equal_the_displaced_meshs_normals_minus_the_base() {
        // A 4x4 grid of quads, one inner vertex lifted.
        let mut positions = Vec::new();
        for y in 0..5 {
            for x in 0..5 {
                positions.push(DVec3::new(x as f64, y as f64, 0.0));
            }
        }
        let faces: Vec<Vec<u32>> = (0..4)
            .flat_map(|y| {
                (0..4).map(move |x| {
                    let v = y * 5 + x;
                    vec![v, v + 1, v + 6, v + 5]
                })
            })
            .collect();
        let refs: Vec<&[u32]> = faces.iter().map(Vec::as_slice).collect();
        let grid = mesh(positions, &refs);
        let base = smooth_normals(&grid);
        let offsets = vec![
            (12, DVec3::new(0.0, 0.0, 0.7)),
            (18, DVec3::new(0.1, 0.0, -0.2)),
        ];
        let got = NormalOffsets::new(&grid, &base).of(&offsets);
        let mut displaced = grid.clone();
        for &(v, o) in &offsets {
            displaced.positions[v as usize] += o;
        }
        let expected: Vec<(u32, DVec3)> = smooth_normals(&displaced)
            .into_iter()
            .zip(&base)
            .enumerate()
            .filter_map(|(v, (n, b))| {
                ((n - *b).length() > NORMAL_OFFSET_EPSILON).then_some((v as u32, n - *b))
            })
            .collect();
        assert!(!expected.is_empty());
        assert_eq!(got.len(), expected.len());
        for ((v, a), (u, b)) in got.iter().zip(&expected) {
            assert_eq!(v, u);
            // The same sums in the same order as the full recomputation: the same bits.
            assert_eq!(
                a.to_array().map(f64::to_bits),
                b.to_array().map(f64::to_bits)
            );
        }
        // One scratch reused across shapes (as each thread does) gives what a fresh one does:
        // it is left clean between calls.
        let context = NormalOffsets::new(&grid, &base);
        let mut scratch = context.scratch();
        let other = vec![
            (0, DVec3::new(0.3, 0.2, 0.1)),
            (24, DVec3::new(0.0, 0.0, -0.4)),
        ];
        for shape in [&offsets, &other, &offsets, &other] {
            assert_eq!(context.of_with(&mut scratch, shape), context.of(shape));
        }
    }
}
