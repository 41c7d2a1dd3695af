//! MikkTSpace tangents for meshes with normal maps (glTF: a normal texture without `TANGENT`
//! leaves the tangent space to each client, which the validator warns about), computed by
//! `bevy_mikktspace` over the glTF vertices' float32 positions, normals and texture
//! coordinates as written (origin top-left). MikkTSpace's bitangent then follows +v, down the
//! image; glTF's normal textures have +Y up the image, so the handedness `w` is negated, as
//! three.js (`computeMikkTSpaceTangents` for glTF), Bevy and Blender's exporter do.

use crate::vertices::Split;
use bevy_mikktspace::{Geometry, TangentSpace};

/// One tangent (xyz, handedness w) per glTF vertex, and how many vertices got conflicting
/// tangents from their faces (mirrored texture coordinates on one vertex: the first face's is
/// kept, averaged with the others of the same handedness).
pub(crate) fn tangents(
    split: &Split,
    positions: &[f32],
    normals: &[f32],
    texcoords: &[f32],
) -> (Vec<f32>, usize) {
    let triangles: Vec<u32> = split.triangles.iter().flatten().copied().collect();
    let mut geometry = Triangles {
        triangles: &triangles,
        positions,
        normals,
        texcoords,
        sums: vec![[0.0; 4]; split.len()],
        conflicts: vec![false; split.len()],
    };
    // bevy_mikktspace's error type has no variants: generation cannot fail.
    let _ = bevy_mikktspace::generate_tangents(&mut geometry);
    let mut out = Vec::with_capacity(split.len() * 4);
    for (v, sum) in geometry.sums.iter().enumerate() {
        let n = glam::Vec3::from_slice(&normals[v * 3..v * 3 + 3]);
        let t = glam::Vec3::new(sum[0], sum[1], sum[2]);
        // Orthogonal to the normal and of unit length, whatever the sum was.
        let t = (t - n * n.dot(t))
            .try_normalize()
            .unwrap_or_else(|| n.any_orthonormal_vector());
        // MikkTSpace's sign on top-left coordinates, negated for glTF's +Y-up normal maps.
        let w = if sum[3] < 0.0 { 1.0 } else { -1.0 };
        out.extend_from_slice(&[t.x, t.y, t.z, w]);
    }
    let conflicts = geometry.conflicts.iter().filter(|c| **c).count();
    (out, conflicts)
}

/// The triangles of a mesh as MikkTSpace reads them, and where it writes its results.
struct Triangles<'a> {
    triangles: &'a [u32],
    positions: &'a [f32],
    normals: &'a [f32],
    texcoords: &'a [f32],
    /// Per vertex: the tangents of its corners of the kept handedness added up, and (w) the
    /// handedness of its first corner.
    sums: Vec<[f32; 4]>,
    conflicts: Vec<bool>,
}

impl Triangles<'_> {
    fn vertex(&self, face: usize, vert: usize) -> usize {
        self.triangles[face * 3 + vert] as usize
    }
}

impl Geometry for Triangles<'_> {
    fn num_faces(&self) -> usize {
        self.triangles.len() / 3
    }

    fn num_vertices_of_face(&self, _face: usize) -> usize {
        3
    }

    fn position(&self, face: usize, vert: usize) -> [f32; 3] {
        let v = self.vertex(face, vert) * 3;
        [
            self.positions[v],
            self.positions[v + 1],
            self.positions[v + 2],
        ]
    }

    fn normal(&self, face: usize, vert: usize) -> [f32; 3] {
        let v = self.vertex(face, vert) * 3;
        [self.normals[v], self.normals[v + 1], self.normals[v + 2]]
    }

    fn tex_coord(&self, face: usize, vert: usize) -> [f32; 2] {
        let v = self.vertex(face, vert) * 2;
        [self.texcoords[v], self.texcoords[v + 1]]
    }

    fn set_tangent(&mut self, tangent_space: Option<TangentSpace>, face: usize, vert: usize) {
        let Some(space) = tangent_space else { return };
        let v = self.vertex(face, vert);
        let [x, y, z, w] = space.tangent_encoded();
        let sum = &mut self.sums[v];
        if sum[3] == 0.0 {
            *sum = [x, y, z, w];
        } else if sum[3].signum() == w.signum() {
            sum[0] += x;
            sum[1] += y;
            sum[2] += z;
        } else {
            self.conflicts[v] = true;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use character_spec::{FaceSpec, SurfaceSpec, Surfaces};

    #[test]
    fn an_upright_quad_gets_u_as_its_tangent_and_the_image_top_as_its_bitangent() {
        // A quad in the XY plane facing +Z, u along +X, v (top-left origin) along -Y: the
        // image stands upright, so glTF's bitangent (cross(N, T) * w, the normal map's +Y) is
        // +Y and w is +1.
        let surfaces: Surfaces = vec![SurfaceSpec {
            name: None,
            material: None,
            faces: vec![FaceSpec {
                vertices: [0, 1, 2, 3].as_slice().into(),
                texcoords: Some([0, 1, 2, 3].as_slice().into()),
            }],
        }]
        .into();
        let split = crate::vertices::split(&surfaces);
        let corners = [[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0]];
        let uv = [[0.0, 1.0], [1.0, 1.0], [1.0, 0.0], [0.0, 0.0]];
        let mut positions = Vec::new();
        let mut texcoords = Vec::new();
        for &s in &split.source {
            let [x, y]: [f32; 2] = corners[s as usize];
            positions.extend([x, y, 0.0]);
            texcoords.extend(uv[s as usize]);
        }
        let normals: Vec<f32> = split.source.iter().flat_map(|_| [0.0, 0.0, 1.0]).collect();
        let (tangents, conflicts) = tangents(&split, &positions, &normals, &texcoords);
        assert_eq!(conflicts, 0);
        for t in tangents.chunks_exact(4) {
            assert!(
                (t[0] - 1.0).abs() < 1e-5 && t[1].abs() < 1e-5 && t[2].abs() < 1e-5,
                "{t:?}"
            );
            assert_eq!(t[3], 1.0, "the bitangent points up the image");
        }
    }
}
