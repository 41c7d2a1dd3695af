//! Smooth per-vertex normals, angle-weighted: each polygon adds its normal to each of its
//! corners' vertices, weighted by the polygon's angle at that corner (Thürmer and Wüthrich).
//! Unlike area weighting, the result does not depend on how polygons are triangulated or how
//! finely a region is subdivided, and unlike plain averaging a long thin polygon does not
//! outweigh its neighbours; MakeHuman's quads are not planar, so each polygon's normal is
//! Newell's (the normal of its best-fitting plane), oriented by the winding (right-hand rule,
//! as G4MF computes cell normals: `(v1 - v0) x (v2 - v0)` for a triangle).

use crate::Mesh;
use glam::DVec3;

/// Smooth normals with the parts they are summed from: each polygon's unit normal and its
/// angle at each corner. [`NormalOffsets`] reuses the parts for every polygon and corner a
/// blend shape leaves in place, so only what a shape moves is computed again.
#[derive(Debug, Clone, Default)]
pub struct NormalField {
    /// Unit normal of each vertex.
    pub normals: Vec<DVec3>,
    /// Each polygon's unit normal; `None` for a degenerate polygon or one of fewer than three
    /// corners (it adds nothing).
    polygon_normals: Vec<Option<DVec3>>,
    /// Each corner's angle, aligned with the mesh's `polygons.vertices` (set only where the
    /// polygon has a normal).
    corner_angles: Vec<f64>,
}

/// Unit normals of `mesh`, one per vertex. A vertex no polygon uses, or whose contributions
/// cancel out, gets the normal of the first polygon using it, else +Y.
pub fn smooth_normals(mesh: &Mesh) -> Vec<DVec3> {
    normal_field(mesh).normals
}

/// [`smooth_normals`] with the parts they are summed from.
///
/// Each polygon's normal and corner angles (the costly part: an `acos` per corner) are found
/// in parallel over blocks of polygons, straight into their places; the sums are then added
/// in polygon order on one thread, so the result is the same to the bit as a sequential pass.
pub fn normal_field(mesh: &Mesh) -> NormalField {
    use rayon::prelude::*;
    let positions = &mesh.positions;
    let polygons = &mesh.polygons;
    let count = polygons.len();
    let mut polygon_normals = vec![None; count];
    let mut corner_angles = vec![0.0; polygons.vertices.len()];
    // Blocks big enough that scheduling is noise, several per thread to balance; each owns
    // its polygons' normals and its corners' angles.
    const BLOCK: usize = 2048;
    let mut blocks = Vec::with_capacity(count.div_ceil(BLOCK));
    let (mut normals_left, mut angles_left) = (&mut polygon_normals[..], &mut corner_angles[..]);
    for start in (0..count).step_by(BLOCK) {
        let end = (start + BLOCK).min(count);
        let corners = (polygons.offsets[end] - polygons.offsets[start]) as usize;
        let (normals, rest) = std::mem::take(&mut normals_left).split_at_mut(end - start);
        let (angles, rest_angles) = std::mem::take(&mut angles_left).split_at_mut(corners);
        (normals_left, angles_left) = (rest, rest_angles);
        blocks.push((start, normals, angles));
    }
    blocks.into_par_iter().for_each(|(start, normals, angles)| {
        let first_corner = polygons.offsets[start] as usize;
        for (k, normal) in normals.iter_mut().enumerate() {
            let corners = polygons.corners(start + k);
            let (from, to) = (corners.start - first_corner, corners.end - first_corner);
            *normal = polygon_angles(
                |v| positions[v as usize],
                &polygons.vertices[corners],
                &mut angles[from..to],
            );
        }
    });
    let mut sums = vec![DVec3::ZERO; positions.len()];
    let mut first = vec![None; positions.len()];
    for (p, normal) in polygon_normals.iter().enumerate() {
        let Some(normal) = *normal else { continue };
        let corners = polygons.corners(p);
        for (&v, &angle) in polygons.vertices[corners.clone()]
            .iter()
            .zip(&corner_angles[corners])
        {
            sums[v as usize] += weighted(normal, angle);
            first[v as usize].get_or_insert(normal);
        }
    }
    let normals = sums
        .into_iter()
        .zip(first)
        .map(|(sum, first)| sum.try_normalize().or(first).unwrap_or(DVec3::Y))
        .collect();
    NormalField {
        normals,
        polygon_normals,
        corner_angles,
    }
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

/// Newell's normal of a polygon: exact for planar polygons, the best-fitting plane's
/// otherwise; `None` for a degenerate polygon or one of fewer than three corners.
fn newell(position: impl Fn(u32) -> DVec3, corners: &[u32]) -> Option<DVec3> {
    let n = corners.len();
    if n < 3 {
        return None;
    }
    let mut normal = DVec3::ZERO;
    for k in 0..n {
        let (a, b) = (position(corners[k]), position(corners[next(k, n)]));
        normal += DVec3::new(
            (a.y - b.y) * (a.z + b.z),
            (a.z - b.z) * (a.x + b.x),
            (a.x - b.x) * (a.y + b.y),
        );
    }
    // A degenerate polygon has no direction.
    normal.try_normalize()
}

/// The corner after `k` of `n`, going round (no division: this is the hot loop's index).
fn next(k: usize, n: usize) -> usize {
    if k + 1 == n { 0 } else { k + 1 }
}

/// The corner before `k` of `n`, going round.
fn previous(k: usize, n: usize) -> usize {
    if k == 0 { n - 1 } else { k - 1 }
}

/// The polygon's angle at its corner `k`.
fn corner_angle(position: impl Fn(u32) -> DVec3, corners: &[u32], k: usize) -> f64 {
    let n = corners.len();
    let here = position(corners[k]);
    let (before, after) = (
        position(corners[previous(k, n)]),
        position(corners[next(k, n)]),
    );
    (before - here).angle_between(after - here)
}

/// A polygon's unit normal, with its angle at each corner written to `angles` (one per
/// corner); `None` (and no angles) for a degenerate polygon or one of fewer than three corners.
fn polygon_angles(
    position: impl Fn(u32) -> DVec3 + Copy,
    corners: &[u32],
    angles: &mut [f64],
) -> Option<DVec3> {
    let normal = newell(position, corners)?;
    for (k, angle) in angles.iter_mut().enumerate() {
        *angle = corner_angle(position, corners, k);
    }
    Some(normal)
}

/// Which polygons use each vertex, and the mesh's [`NormalField`]: built once, then
/// [`NormalOffsets::of`] recomputes only the normals a sparse displacement can change.
#[derive(Debug, Clone)]
pub struct NormalOffsets<'a> {
    mesh: &'a Mesh,
    field: &'a NormalField,
    /// CSR: the corners at vertex v are `corners[starts[v]..starts[v + 1]]`, each as its
    /// polygon and its place in the polygon, in polygon order (a polygon with the vertex at
    /// two corners is there twice, in corner order).
    starts: Vec<u32>,
    corners: Vec<(u32, u32)>,
}

/// Working memory of [`NormalOffsets::of_with`]: a slot per vertex and per polygon, and the
/// lists a shape fills, so a shape's neighbourhood is found without hashing, sorting
/// polygons or allocating. Left clean after each call.
#[derive(Debug, Clone)]
pub struct Scratch {
    /// Per vertex: 1 + the index of its offset, 0 when the shape leaves it in place.
    moved: Vec<u32>,
    /// Per vertex: whether it is in `affected`.
    affected_mark: Vec<bool>,
    /// Per polygon: 1 + its index in `recomputed`, 0 when the shape leaves it in place.
    recomputed_slot: Vec<u32>,
    /// Polygons with a moved corner: their polygon index, displaced normal and first angle.
    recomputed: Vec<(u32, Option<DVec3>, u32)>,
    /// Their corner angles.
    angles: Vec<f64>,
    /// Vertices of those polygons: the ones whose normal can change.
    affected: Vec<u32>,
}

/// Polygons of at most this many corners (nearly all) are displaced into a local copy.
const SMALL_POLYGON: usize = 8;

/// The corners of a local copy of a small polygon, in order.
const LOCAL: [u32; SMALL_POLYGON] = [0, 1, 2, 3, 4, 5, 6, 7];

/// Normal offsets smaller than this are left out (below float32's resolution of a unit vector).
pub const NORMAL_OFFSET_EPSILON: f64 = 1e-7;

impl<'a> NormalOffsets<'a> {
    /// Adjacency of `mesh`, whose smooth normals and their parts are `field`.
    pub fn new(mesh: &'a Mesh, field: &'a NormalField) -> Self {
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
        let mut of_vertex = vec![(0u32, 0u32); polygons.vertices.len()];
        for p in 0..polygons.len() {
            for (k, &v) in polygons.vertices[polygons.corners(p)].iter().enumerate() {
                of_vertex[next[v as usize] as usize] = (p as u32, k as u32);
                next[v as usize] += 1;
            }
        }
        Self {
            mesh,
            field,
            starts,
            corners: of_vertex,
        }
    }

    /// The corners at vertex `v`: each one's polygon and place in it.
    fn corners_of(&self, v: u32) -> &[(u32, u32)] {
        &self.corners[self.starts[v as usize] as usize..self.starts[v as usize + 1] as usize]
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
            moved: vec![0; self.mesh.positions.len()],
            affected_mark: vec![false; self.mesh.positions.len()],
            recomputed_slot: vec![0; self.mesh.polygons.len()],
            recomputed: Vec::new(),
            angles: Vec::new(),
            affected: Vec::new(),
        }
    }

    /// [`NormalOffsets::of`] with reusable working memory (left clean for the next call).
    ///
    /// A polygon none of whose corners moves keeps its normal and angles, and so does a
    /// corner whose own vertex and both neighbours stay: those are the [`NormalField`]'s, the
    /// same bits a recomputation would give. Each changed vertex then adds its polygons'
    /// contributions in ascending polygon order, as [`normal_field`] does.
    pub fn of_with(&self, scratch: &mut Scratch, offsets: &[(u32, DVec3)]) -> Vec<(u32, DVec3)> {
        let polygons = &self.mesh.polygons;
        let base = &self.mesh.positions;
        let field = self.field;
        for (k, &(v, _)) in offsets.iter().enumerate() {
            scratch.moved[v as usize] = k as u32 + 1;
        }
        let moved = &scratch.moved;
        let position = |v: u32| match moved[v as usize] {
            0 => base[v as usize],
            k => base[v as usize] + offsets[k as usize - 1].1,
        };
        // Every polygon with a moved corner, computed once with the displaced positions.
        for &(v, _) in offsets {
            for &(p, _) in self.corners_of(v) {
                if scratch.recomputed_slot[p as usize] != 0 {
                    continue;
                }
                let range = polygons.corners(p as usize);
                let corners = &polygons.vertices[range.clone()];
                let n = corners.len();
                let first_angle = scratch.angles.len() as u32;
                // Each corner's displaced position found once (a moved vertex's is the base
                // plus its offset): small polygons read them from a local copy, in the same
                // arithmetic as the plain path.
                let mut local = [DVec3::ZERO; SMALL_POLYGON];
                let small = n <= SMALL_POLYGON;
                if small {
                    for (at, &v) in local.iter_mut().zip(corners) {
                        *at = position(v);
                    }
                }
                let (at, local_corners) = (
                    &local[..n.min(SMALL_POLYGON)],
                    &LOCAL[..n.min(SMALL_POLYGON)],
                );
                let from_local = |k: u32| at[k as usize];
                let normal = if small {
                    newell(from_local, local_corners)
                } else {
                    newell(position, corners)
                };
                if normal.is_some() {
                    let base_angles =
                        field.polygon_normals[p as usize].map(|_| &field.corner_angles[range]);
                    for k in 0..n {
                        let stays = [previous(k, n), k, next(k, n)]
                            .iter()
                            .all(|&c| moved[corners[c] as usize] == 0);
                        scratch.angles.push(match base_angles {
                            Some(angles) if stays => angles[k],
                            _ if small => corner_angle(from_local, local_corners, k),
                            _ => corner_angle(position, corners, k),
                        });
                    }
                }
                scratch.recomputed.push((p, normal, first_angle));
                scratch.recomputed_slot[p as usize] = scratch.recomputed.len() as u32;
                for &u in corners {
                    if !std::mem::replace(&mut scratch.affected_mark[u as usize], true) {
                        scratch.affected.push(u);
                    }
                }
            }
        }
        scratch.affected.sort_unstable();
        let mut out = Vec::new();
        for &v in &scratch.affected {
            let mut sum = DVec3::ZERO;
            let mut first = None;
            for &(p, k) in self.corners_of(v) {
                let k = k as usize;
                // Angles exist only for polygons with a normal.
                let (normal, angle) = match scratch.recomputed_slot[p as usize] {
                    0 => match field.polygon_normals[p as usize] {
                        Some(normal) => (
                            normal,
                            field.corner_angles[polygons.offsets[p as usize] as usize + k],
                        ),
                        None => continue,
                    },
                    slot => match scratch.recomputed[slot as usize - 1] {
                        (_, Some(normal), first_angle) => {
                            (normal, scratch.angles[first_angle as usize + k])
                        }
                        (_, None, _) => continue,
                    },
                };
                sum += weighted(normal, angle);
                first.get_or_insert(normal);
            }
            let normal = sum.try_normalize().or(first).unwrap_or(DVec3::Y);
            let offset = normal - field.normals[v as usize];
            if offset.length() > NORMAL_OFFSET_EPSILON {
                out.push((v, offset));
            }
        }
        for &(v, _) in offsets {
            scratch.moved[v as usize] = 0;
        }
        for &(p, _, _) in &scratch.recomputed {
            scratch.recomputed_slot[p as usize] = 0;
        }
        for &v in &scratch.affected {
            scratch.affected_mark[v as usize] = false;
        }
        scratch.recomputed.clear();
        scratch.angles.clear();
        scratch.affected.clear();
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
            numbering: Numbering::identity(positions.len()).into(),
            positions,
            polygons: polygons.into(),
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
        let offsets = vec![
            (12, DVec3::new(0.0, 0.0, 0.7)),
            (18, DVec3::new(0.1, 0.0, -0.2)),
        ];
        let field = normal_field(&grid);
        let base = &field.normals;
        let got = NormalOffsets::new(&grid, &field).of(&offsets);
        let mut displaced = grid.clone();
        for &(v, o) in &offsets {
            displaced.positions[v as usize] += o;
        }
        let expected: Vec<(u32, DVec3)> = smooth_normals(&displaced)
            .into_iter()
            .zip(base.iter())
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
        let context = NormalOffsets::new(&grid, &field);
        let mut scratch = context.scratch();
        let other = vec![
            (0, DVec3::new(0.3, 0.2, 0.1)),
            (24, DVec3::new(0.0, 0.0, -0.4)),
        ];
        for shape in [&offsets, &other, &offsets, &other] {
            assert_eq!(context.of_with(&mut scratch, shape), context.of(shape));
        }
    }

    /// A bumpy grid with a triangle, a pentagon, a polygon that visits one vertex twice and
    /// a degenerate one: for shapes that move a blob, lone vertices, a whole polygon flat and
    /// every vertex, the offsets have the bits of a full recomputation.
    #[test]
    fn normal_offsets_match_a_full_recomputation_on_awkward_polygons() {
        let side = 7u32;
        let mut positions = Vec::new();
        for y in 0..side {
            for x in 0..side {
                let (fx, fy) = (f64::from(x), f64::from(y));
                positions.push(DVec3::new(
                    fx,
                    fy,
                    (fx * 1.3).sin() * (fy * 0.7).cos() * 0.4,
                ));
            }
        }
        let at = |x: u32, y: u32| y * side + x;
        let mut faces: Vec<Vec<u32>> = Vec::new();
        for y in 0..side - 1 {
            for x in 0..side - 1 {
                let quad = vec![at(x, y), at(x + 1, y), at(x + 1, y + 1), at(x, y + 1)];
                match (x, y) {
                    // Split into two triangles.
                    (1, 1) => {
                        faces.push(vec![quad[0], quad[1], quad[2]]);
                        faces.push(vec![quad[0], quad[2], quad[3]]);
                    }
                    // A pentagon with a repeated vertex (a corner visited twice).
                    (3, 2) => faces.push(vec![quad[0], quad[1], quad[2], quad[1], quad[3]]),
                    _ => faces.push(quad),
                }
            }
        }
        // A degenerate polygon (all corners on a line) and a two-corner one.
        faces.push(vec![at(0, 0), at(1, 0), at(2, 0)]);
        faces.push(vec![at(4, 4), at(5, 4)]);
        let refs: Vec<&[u32]> = faces.iter().map(Vec::as_slice).collect();
        let grid = mesh(positions, &refs);
        let field = normal_field(&grid);
        let context = NormalOffsets::new(&grid, &field);
        let mut scratch = context.scratch();
        let every: Vec<(u32, DVec3)> = (0..side * side)
            .map(|v| (v, DVec3::new(0.01, -0.02, f64::from(v % 5) * 0.03)))
            .collect();
        let shapes: Vec<Vec<(u32, DVec3)>> = vec![
            vec![
                (at(2, 2), DVec3::new(0.0, 0.0, 0.5)),
                (at(3, 2), DVec3::new(0.1, 0.1, 0.3)),
                (at(2, 3), DVec3::new(-0.2, 0.0, 0.2)),
                (at(3, 3), DVec3::new(0.0, 0.05, -0.1)),
            ],
            vec![(at(1, 0), DVec3::new(0.0, 0.3, 0.0))],
            vec![(at(4, 2), DVec3::new(0.0, 0.0, 1.0))],
            // Moves the degenerate polygon's middle vertex off its line.
            vec![(at(1, 0), DVec3::new(0.0, 0.0, 0.6))],
            every,
        ];
        for offsets in &shapes {
            let mut displaced = grid.clone();
            for &(v, o) in offsets {
                displaced.positions[v as usize] += o;
            }
            let expected: Vec<(u32, [u64; 3])> = smooth_normals(&displaced)
                .into_iter()
                .zip(field.normals.iter())
                .enumerate()
                .filter(|(_, (n, b))| (*n - **b).length() > NORMAL_OFFSET_EPSILON)
                .map(|(v, (n, b))| (v as u32, (n - *b).to_array().map(f64::to_bits)))
                .collect();
            let got: Vec<(u32, [u64; 3])> = context
                .of_with(&mut scratch, offsets)
                .into_iter()
                .map(|(v, o)| (v, o.to_array().map(f64::to_bits)))
                .collect();
            assert!(!expected.is_empty());
            assert_eq!(got, expected);
        }
    }
}
