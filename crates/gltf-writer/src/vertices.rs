//! A mesh's glTF vertices: glTF gives every attribute one index per vertex, so a vertex whose
//! corners use different texture coordinates (a seam) becomes one glTF vertex per distinct
//! pair. [`Split`] is made once per set of surfaces (kept in their memo) and says, for each
//! glTF vertex, its source vertex and texture coordinate, and for each surface its triangles.

use crate::buffer::{Encoded, index_component};
use character_spec::{FaceSpec, SurfaceSpec, Surfaces};
use gltf_json::accessor::Type;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

/// The glTF vertices of a mesh's surfaces and the triangles over them.
#[derive(Debug)]
pub(crate) struct Split {
    /// The source vertex of each glTF vertex.
    pub source: Vec<u32>,
    /// The texture coordinate of each glTF vertex, when its corner has one.
    pub texcoord: Vec<Option<u32>>,
    /// Each surface's triangles, three glTF vertices each, fanned from a corner.
    pub triangles: Vec<Vec<u32>>,
    /// Each surface's triangles as an index accessor stores them.
    pub indices: Vec<Encoded>,
    /// The glTF vertices of each source vertex: `copies[offsets[v]..offsets[v + 1]]`.
    copy_offsets: Vec<u32>,
    copies: Vec<u32>,
    /// The largest source vertex and texture coordinate a face uses.
    pub max_vertex: Option<u32>,
    /// The largest texture coordinate a face uses.
    pub max_texcoord: Option<u32>,
    /// Every face has at least three corners and, when it has texture coordinates, one per
    /// corner.
    pub well_formed: bool,
    /// Some face has texture coordinates.
    pub textured: bool,
    /// The texture coordinates as last encoded, with the list they came from.
    encoded_texcoords: Mutex<Option<EncodedTexcoords>>,
}

impl Split {
    /// The glTF vertices made from source vertex `v` (none when no face uses it).
    pub fn copies_of(&self, v: u32) -> &[u32] {
        let v = v as usize;
        match (self.copy_offsets.get(v), self.copy_offsets.get(v + 1)) {
            (Some(&a), Some(&b)) => &self.copies[a as usize..b as usize],
            _ => &[],
        }
    }

    /// The number of glTF vertices.
    pub fn len(&self) -> usize {
        self.source.len()
    }

    /// The texture coordinates of the glTF vertices from `all` (float32, origin top-left; a
    /// vertex without one gets (0, 0)), encoded once for the same list.
    pub fn texcoords(&self, all: &Arc<Vec<[f64; 2]>>) -> Option<Arc<Encoded>> {
        if !self.textured {
            return None;
        }
        let mut kept = self
            .encoded_texcoords
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        if let Some((list, encoded)) = kept.as_ref() {
            if Arc::ptr_eq(list, all) {
                return Some(encoded.clone());
            }
        }
        let values: Vec<f32> = self
            .texcoord
            .iter()
            .flat_map(|t| {
                t.and_then(|t| all.get(t as usize))
                    .map_or([0.0, 0.0], |uv| uv.map(|c| c as f32))
            })
            .collect();
        let encoded = Arc::new(Encoded::f32(&values, Type::Vec2, false));
        *kept = Some((all.clone(), encoded.clone()));
        Some(encoded)
    }
}

/// Texture coordinates as encoded for a split, with the list they came from.
type EncodedTexcoords = (Arc<Vec<[f64; 2]>>, Arc<Encoded>);

/// The split of `surfaces`, made on first use and kept in their memo.
pub(crate) fn split(surfaces: &Surfaces) -> Arc<Split> {
    surfaces
        .memo()
        .get_or_init(|| split_surfaces(surfaces.specs()))
}

/// Rotates a polygon so it does not start where the previous one did, as the G4MF writer
/// does, so both formats cut every polygon into the same triangles.
fn start_away_from(corners: &[u32], avoid: Option<u32>) -> usize {
    (0..corners.len())
        .find(|&r| Some(corners[r]) != avoid)
        .unwrap_or(0)
}

fn split_surfaces(surfaces: &[SurfaceSpec]) -> Split {
    let corners: usize = surfaces
        .iter()
        .flat_map(|s| &s.faces)
        .map(|f| f.vertices.len())
        .sum();
    let mut splitting = Splitting {
        index: HashMap::with_capacity(corners / 3),
        source: Vec::new(),
        texcoord: Vec::new(),
    };
    let mut triangles = Vec::with_capacity(surfaces.len());
    let (mut max_vertex, mut max_texcoord) = (None::<u32>, None::<u32>);
    let mut well_formed = true;
    let mut textured = false;
    for surface in surfaces {
        let mut list = Vec::new();
        let mut previous_start = None;
        for face in &surface.faces {
            let n = face.vertices.len();
            max_vertex = face.vertices.iter().copied().chain(max_vertex).max();
            if let Some(uv) = &face.texcoords {
                textured = true;
                max_texcoord = uv.iter().copied().chain(max_texcoord).max();
            }
            if n < 3 || face.texcoords.as_ref().is_some_and(|uv| uv.len() != n) {
                well_formed = false;
                continue;
            }
            previous_start = Some(splitting.fan(face, previous_start, &mut list));
        }
        triangles.push(list);
    }
    let Splitting {
        source, texcoord, ..
    } = splitting;
    let component = index_component(source.len().saturating_sub(1) as u32);
    let indices = triangles
        .iter()
        .map(|t| Encoded::uint(t, component, Type::Scalar))
        .collect();
    let (copy_offsets, copies) = copies_by_source(&source, max_vertex);
    Split {
        source,
        texcoord,
        triangles,
        indices,
        copy_offsets,
        copies,
        max_vertex,
        max_texcoord,
        well_formed,
        textured,
        encoded_texcoords: Mutex::new(None),
    }
}

/// The glTF vertices found so far, by (source vertex, texture coordinate).
struct Splitting {
    index: HashMap<(u32, Option<u32>), u32>,
    source: Vec<u32>,
    texcoord: Vec<Option<u32>>,
}

impl Splitting {
    /// The glTF vertex of `face`'s corner `c`, made on first use.
    fn vertex_of(&mut self, face: &FaceSpec, c: usize) -> u32 {
        let key = (face.vertices[c], face.texcoords.as_ref().map(|uv| uv[c]));
        *self.index.entry(key).or_insert_with(|| {
            self.source.push(key.0);
            self.texcoord.push(key.1);
            (self.source.len() - 1) as u32
        })
    }

    /// `face` (well formed) as a fan of triangles appended to `list`, starting away from
    /// `previous_start`; returns the source vertex it started on.
    fn fan(&mut self, face: &FaceSpec, previous_start: Option<u32>, list: &mut Vec<u32>) -> u32 {
        let n = face.vertices.len();
        let r = start_away_from(&face.vertices, previous_start);
        let first = self.vertex_of(face, r);
        for k in 1..n - 1 {
            list.push(first);
            list.push(self.vertex_of(face, (r + k) % n));
            list.push(self.vertex_of(face, (r + k + 1) % n));
        }
        face.vertices[r]
    }
}

/// The glTF vertices of each source vertex up to `max_vertex`, in glTF vertex order, as
/// compressed rows (a counting sort of `source`).
fn copies_by_source(source: &[u32], max_vertex: Option<u32>) -> (Vec<u32>, Vec<u32>) {
    let sources = max_vertex.map_or(0, |m| m as usize + 1);
    let mut offsets = vec![0u32; sources + 1];
    for &s in source {
        offsets[s as usize + 1] += 1;
    }
    for i in 0..sources {
        offsets[i + 1] += offsets[i];
    }
    let mut next = offsets.clone();
    let mut copies = vec![0u32; source.len()];
    for (g, &s) in source.iter().enumerate() {
        copies[next[s as usize] as usize] = g as u32;
        next[s as usize] += 1;
    }
    (offsets, copies)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn face(vertices: &[u32], texcoords: Option<&[u32]>) -> FaceSpec {
        FaceSpec {
            vertices: vertices.into(),
            texcoords: texcoords.map(Into::into),
        }
    }

    #[test]
    fn a_seam_splits_a_vertex_and_quads_become_two_triangles() {
        // Two quads sharing the edge 1-2; vertex 2 has texture coordinate 2 in the first and
        // 5 in the second (a seam), vertex 1 the same in both.
        let surfaces: Surfaces = vec![SurfaceSpec {
            name: None,
            material: None,
            faces: vec![
                face(&[0, 1, 2, 3], Some(&[0, 1, 2, 3])),
                face(&[1, 4, 5, 2], Some(&[1, 4, 6, 5])),
            ],
        }]
        .into();
        let split = split(&surfaces);
        assert_eq!(split.len(), 7);
        assert_eq!(split.copies_of(2).len(), 2);
        assert_eq!(split.copies_of(1).len(), 1);
        assert_eq!(split.triangles[0].len(), 12);
        // The second quad does not start on vertex 1 again: it starts where the first did not.
        let first_of_second = split.source[split.triangles[0][6] as usize];
        assert_ne!(first_of_second, 0);
        // Every triangle's corners come from its face's vertices.
        for t in split.triangles[0][..6].chunks(3) {
            assert!(t.iter().all(|&g| split.source[g as usize] <= 3));
        }
        assert!(split.well_formed && split.textured);
        assert_eq!((split.max_vertex, split.max_texcoord), (Some(5), Some(6)));
        // Made once: the memo hands back the same split.
        assert!(Arc::ptr_eq(&split, &super::split(&surfaces)));
    }
}
