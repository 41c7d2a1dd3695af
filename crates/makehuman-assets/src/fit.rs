//! MakeHuman's rule for an asset on a body (`shared/proxy.py`): vertex indices checked
//! against the body, the per-axis scale, fitted positions, and bone weights inherited from
//! the body's.

use crate::error::{AssetError, AssetErrorKind};
use crate::proxy::{ProxyFile, Reference};
use glam::DVec3;
use location::Location;

/// A body weight times a reference weight at or below this is dropped (MakeHuman's
/// `WEIGHT_THRESHOLD` in `Proxy.getVertexWeights`).
pub const WEIGHT_THRESHOLD: f64 = 1e-4;

const AXES: [&str; 3] = ["x", "y", "z"];

impl Reference {
    /// The body vertices and weights this reference takes its position from: one with
    /// weight 1 for [`Reference::Exact`], three for [`Reference::Triangle`].
    pub fn parts(&self) -> impl Iterator<Item = (u32, f64)> + '_ {
        let (vertices, weights): (&[u32], &[f64]) = match self {
            Reference::Exact(v) => (std::slice::from_ref(v), &[1.0]),
            Reference::Triangle {
                vertices, weights, ..
            } => (vertices, weights),
        };
        vertices.iter().copied().zip(weights.iter().copied())
    }
}

impl ProxyFile {
    fn line_location(line: Option<usize>) -> Location {
        line.map_or_else(Location::default, |l| Location::line_column(l, 1))
    }

    fn index_error(what: &str, v: u32, body_vertices: usize, line: Option<usize>) -> AssetError {
        AssetError::new(
            Self::line_location(line),
            AssetErrorKind::OutOfRange(format!(
                "{what} {v} is not a body vertex (the body has {body_vertices})"
            )),
        )
    }

    /// Checks every vertex index (scale lines, references, `delete_verts`) is below
    /// `body_vertices`; the error names the first offending line (scales, then references in
    /// file order, then the largest `delete_verts` entry).
    pub fn check_indices(&self, body_vertices: usize) -> Result<(), AssetError> {
        let fits = |v: u32| (v as usize) < body_vertices;
        for (axis, scale) in self.scales.iter().enumerate() {
            if let Some(s) = scale {
                for v in [s.v1, s.v2] {
                    if !fits(v) {
                        return Err(Self::index_error(
                            &format!("the {} scale vertex", AXES[axis]),
                            v,
                            body_vertices,
                            self.scale_line(axis),
                        ));
                    }
                }
            }
        }
        for (i, reference) in self.references.iter().enumerate() {
            if let Some((v, _)) = reference.parts().find(|&(v, _)| !fits(v)) {
                return Err(Self::index_error(
                    "reference vertex",
                    v,
                    body_vertices,
                    self.reference_line(i),
                ));
            }
        }
        // `delete_verts` is sorted: its last entry is the largest.
        if let Some(&v) = self.delete_verts.last() {
            if !fits(v) {
                let line = self
                    .delete_max
                    .filter(|&(max, _)| max == v)
                    .map(|(_, line)| line as usize);
                return Err(Self::index_error(
                    "`delete_verts` vertex",
                    v,
                    body_vertices,
                    line,
                ));
            }
        }
        Ok(())
    }

    /// The scale per axis, `|body[v1][axis] - body[v2][axis]| / distance`, or an error
    /// naming the scale line whose vertex is not in `body`.
    pub fn try_scale(&self, body: &[DVec3]) -> Result<DVec3, AssetError> {
        let mut scale = DVec3::ONE;
        for (axis, s) in self.scales.iter().enumerate() {
            let Some(s) = s else { continue };
            let get = |v: u32| {
                body.get(v as usize).copied().ok_or_else(|| {
                    Self::index_error(
                        &format!("the {} scale vertex", AXES[axis]),
                        v,
                        body.len(),
                        self.scale_line(axis),
                    )
                })
            };
            let (a, b) = (get(s.v1)?, get(s.v2)?);
            scale[axis] = (a[axis] - b[axis]).abs() / s.distance;
        }
        Ok(scale)
    }

    /// The scale per axis: `|body[v1][axis] - body[v2][axis]| / distance`, 1.0 when the axis
    /// has no scale line. An axis whose scale vertices are not in `body` also gets 1.0:
    /// [`ProxyFile::check_indices`] or [`ProxyFile::try_scale`] report those.
    pub fn scale(&self, body: &[DVec3]) -> DVec3 {
        let mut scale = DVec3::ONE;
        for (axis, s) in self.scales.iter().enumerate() {
            let Some(s) = s else { continue };
            if let (Some(a), Some(b)) = (body.get(s.v1 as usize), body.get(s.v2 as usize)) {
                scale[axis] = (a[axis] - b[axis]).abs() / s.distance;
            }
        }
        scale
    }

    /// Each asset vertex placed on `body` (the morphed body in rest pose, all base-mesh
    /// vertices including helpers, in the base mesh's own frame: OBJ Y up decimetres; the
    /// caller converts): `Exact(v)` is `body[v]`; a triangle is
    /// `w0*body[v0] + w1*body[v1] + w2*body[v2] + scale*offset` (component-wise scale,
    /// summed in that order as MakeHuman does).
    ///
    /// An index not in `body` is an error naming its line, never a panic.
    pub fn fit(&self, body: &[DVec3]) -> Result<Vec<DVec3>, AssetError> {
        let scale = self.try_scale(body)?;
        let mut out = Vec::with_capacity(self.references.len());
        for (i, reference) in self.references.iter().enumerate() {
            let get = |v: u32| {
                body.get(v as usize).copied().ok_or_else(|| {
                    Self::index_error("reference vertex", v, body.len(), self.reference_line(i))
                })
            };
            let position = match *reference {
                Reference::Exact(v) => get(v)?,
                Reference::Triangle {
                    vertices: [v0, v1, v2],
                    weights: [w0, w1, w2],
                    offset,
                } => get(v0)? * w0 + get(v1)? * w1 + get(v2)? * w2 + scale * DVec3::from(offset),
            };
            out.push(position);
        }
        Ok(out)
    }

    /// Bone weights inherited from the body's, as MakeHuman's `Proxy.getVertexWeights` does
    /// for an asset without its own weights.
    ///
    /// `body_weights[g]` lists group `g`'s (body vertex, weight) pairs. For each group and
    /// each asset vertex p, every reference part (v, w) of p (an `Exact` reference is one part
    /// with w = 1) contributes `w * weight(v, g)`; a contribution is kept only when strictly
    /// greater than [`WEIGHT_THRESHOLD`] (so negative and zero ones are dropped), and the
    /// kept ones are summed per (p, g) in the order of the group's body pairs (for one body
    /// vertex, in asset-vertex order). Returns, per group that keeps anything, its index and
    /// its (asset vertex, weight) pairs with asset vertices ascending; empty groups are
    /// omitted.
    ///
    /// Reference parts and body pairs whose body vertex is not below `body_vertices` are
    /// skipped (call [`ProxyFile::check_indices`] first to refuse them instead).
    pub fn inherited_weights(
        &self,
        body_weights: &[Vec<(u32, f64)>],
        body_vertices: usize,
    ) -> Vec<(usize, Vec<(u32, f64)>)> {
        // Rows only up to the largest body vertex referenced: nothing is sized by
        // `body_vertices` itself.
        let rows = self
            .references
            .iter()
            .flat_map(Reference::parts)
            .map(|(v, _)| v as usize + 1)
            .filter(|&end| end <= body_vertices)
            .max()
            .unwrap_or(0);
        let body_vertices = rows;
        // Body vertex -> (asset vertex, reference weight), as compressed rows.
        let mut starts = vec![0usize; body_vertices + 1];
        for reference in &self.references {
            for (v, _) in reference.parts() {
                if let Some(count) = starts
                    .get_mut(v as usize + 1)
                    .filter(|_| (v as usize) < body_vertices)
                {
                    *count += 1;
                }
            }
        }
        let mut total = 0;
        for start in &mut starts {
            total += *start;
            *start = total;
        }
        let mut fill = starts.clone();
        let mut entries = vec![(0u32, 0.0f64); starts[body_vertices]];
        for (p, reference) in self.references.iter().enumerate() {
            // At most `MAX_REFERENCES` references: the index fits in a u32.
            let p = u32::try_from(p).unwrap_or(u32::MAX);
            for (v, w) in reference.parts() {
                if let Some(slot) = fill
                    .get_mut(v as usize)
                    .filter(|_| (v as usize) < body_vertices)
                {
                    entries[*slot] = (p, w);
                    *slot += 1;
                }
            }
        }

        let mut sums = vec![0.0f64; self.references.len()];
        let mut touched: Vec<u32> = Vec::new();
        let mut out = Vec::new();
        for (group, pairs) in body_weights.iter().enumerate() {
            for &(v, weight) in pairs {
                let v = v as usize;
                if v >= body_vertices {
                    continue;
                }
                for &(p, w) in &entries[starts[v]..starts[v + 1]] {
                    let contribution = w * weight;
                    if contribution > WEIGHT_THRESHOLD {
                        let sum = &mut sums[p as usize];
                        // Kept contributions are positive: a zero sum is an untouched vertex.
                        if *sum == 0.0 {
                            touched.push(p);
                        }
                        *sum += contribution;
                    }
                }
            }
            if touched.is_empty() {
                continue;
            }
            touched.sort_unstable();
            let list = touched
                .iter()
                .map(|&p| (p, std::mem::take(&mut sums[p as usize])))
                .collect();
            touched.clear();
            out.push((group, list));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse_proxy;

    fn close(a: DVec3, b: [f64; 3]) -> bool {
        (a - DVec3::from(b)).abs().max_element() < 1e-12
    }

    /// A body of four vertices: the origin and one step along each axis.
    fn body() -> Vec<DVec3> {
        vec![
            DVec3::new(0.0, 0.0, 0.0),
            DVec3::new(1.0, 0.0, 0.0),
            DVec3::new(0.0, 2.0, 0.0),
            DVec3::new(0.0, 0.0, 4.0),
        ]
    }

    fn proxy(text: &str) -> ProxyFile {
        parse_proxy(text).unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn fits_by_weights_plus_scaled_offset() {
        let p = proxy(
            "name t\nobj_file t.obj\nx_scale 0 1 0.5\ny_scale 2 0 1.0\nverts 0\n3\n\
             0 1 2 0.5 0.25 0.25 0.1 0.2 0.3\n1 2 3 0.5 0.5 0\n",
        );
        let body = body();
        // x: |0 - 1| / 0.5 = 2; y: |2 - 0| / 1 = 2; z: no line, 1.
        assert_eq!(p.scale(&body), DVec3::new(2.0, 2.0, 1.0));
        assert!(p.check_indices(4).is_ok());
        let got = p.fit(&body).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(got.len(), 3);
        assert_eq!(got[0], DVec3::new(0.0, 0.0, 4.0));
        // 0.25*(1,0,0) + 0.25*(0,2,0) = (0.25, 0.5, 0); plus (2*0.1, 2*0.2, 1*0.3).
        assert!(close(got[1], [0.45, 0.9, 0.3]), "{:?}", got[1]);
        // 0.5*(1,0,0) + 0.5*(0,2,0), no offset.
        assert!(close(got[2], [0.5, 1.0, 0.0]), "{:?}", got[2]);
    }

    #[test]
    fn indices_past_the_body_are_errors_on_their_line() {
        let p = proxy("name t\nobj_file t.obj\nz_scale 0 3 1\nverts 0\n3\n0 1 2 1 0 0\n");
        let e = p.check_indices(3).err().map(|e| e.to_string());
        assert_eq!(
            e.as_deref(),
            Some("3:1: the z scale vertex 3 is not a body vertex (the body has 3)")
        );
        let e = p.fit(&body()[..3]).err().map(|e| e.to_string());
        assert_eq!(
            e.as_deref(),
            Some("3:1: the z scale vertex 3 is not a body vertex (the body has 3)")
        );
        // Without the scale vertex check, a missing scale vertex leaves the scale at 1.
        assert_eq!(p.scale(&body()[..3]), DVec3::ONE);

        let p = proxy("name t\nobj_file t.obj\nverts 0\n2\n\n0 1 5 1 0 0\n");
        let e = p.check_indices(4).err().map(|e| e.to_string());
        assert_eq!(
            e.as_deref(),
            Some("6:1: reference vertex 5 is not a body vertex (the body has 4)")
        );
        assert_eq!(
            p.fit(&body()).err().map(|e| e.to_string()),
            Some("6:1: reference vertex 5 is not a body vertex (the body has 4)".into())
        );

        let p = proxy("name t\nobj_file t.obj\nverts 0\n2\ndelete_verts\n9\n1 - 3\n");
        let e = p.check_indices(4).err().map(|e| e.to_string());
        assert_eq!(
            e.as_deref(),
            Some("6:1: `delete_verts` vertex 9 is not a body vertex (the body has 4)")
        );
        assert!(p.check_indices(10).is_ok());
    }

    #[test]
    fn inherits_weights_dropping_small_contributions() {
        let p = proxy(
            "name t\nobj_file t.obj\nverts 0\n0\n0 1 2 0.5 0.3 0.2\n1 2 3 0.9999 0.0001 -0.1\n",
        );
        let body_weights = vec![
            // Group 0: p0 = 1*1; p1 = 0.5*1 + 0.3*0.5; p2 = 0.9999*0.5 (+ 0.0001*0 dropped).
            vec![(0, 1.0), (1, 0.5)],
            // Group 1: p1 = 0.2*1; p2 = 0.0001*1, exactly the threshold: dropped.
            vec![(2, 1.0)],
            // Group 2: p2 = -0.1*1, negative: dropped; the group ends up empty.
            vec![(3, 1.0)],
            // Group 3: p1 = 0.2*0.0004 = 8e-5, below: dropped; p2 likewise; empty.
            vec![(2, 0.0004)],
            // Group 4: a body vertex past the body is skipped; p2 = 0.9999*0.001.
            vec![(7, 1.0), (1, 0.001)],
        ];
        let got = p.inherited_weights(&body_weights, 4);
        let groups: Vec<usize> = got.iter().map(|(g, _)| *g).collect();
        assert_eq!(groups, [0, 1, 4]);
        let expect: [&[(u32, f64)]; 3] = [
            &[(0, 1.0), (1, 0.65), (2, 0.49995)],
            &[(1, 0.2)],
            &[(1, 0.0003), (2, 0.0009999)],
        ];
        for ((_, list), want) in got.iter().zip(expect) {
            assert_eq!(list.len(), want.len(), "{list:?}");
            for (&(p, w), &(wp, ww)) in list.iter().zip(want) {
                assert_eq!(p, wp);
                assert!((w - ww).abs() < 1e-12, "{w} vs {ww}");
            }
        }
    }

    #[test]
    fn a_vertex_referenced_twice_sums_both_parts() {
        let p = proxy("name t\nobj_file t.obj\nverts 0\n1 1 2 0.25 0.5 0.25\n");
        let got = p.inherited_weights(&[vec![(1, 1.0)]], 3);
        assert_eq!(got, [(0, vec![(0, 0.75)])]);
        // The caller's body size allocates nothing by itself.
        assert_eq!(p.inherited_weights(&[vec![(1, 1.0)]], usize::MAX), got);
    }
}
