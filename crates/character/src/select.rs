//! Choosing part of a mesh: which polygons stay, and the vertex renumbering that follows.

use crate::{Character, Influence, Mesh, Numbering, Polygons, Skin};
use glam::DVec3;
use std::sync::Arc;

/// Polygons to keep and the vertex renumbering they imply.
#[derive(Debug, Clone, PartialEq)]
pub struct Selection {
    /// Kept polygons, ascending.
    pub polygons: Vec<u32>,
    /// For every current vertex, its new index, or `None` when dropped. Kept vertices stay in
    /// their current order.
    pub new_index: Vec<Option<u32>>,
    /// Number of kept vertices.
    pub kept: usize,
}

impl Selection {
    /// Keeps every polygon and vertex.
    pub fn everything(mesh: &Mesh) -> Self {
        Self {
            polygons: (0..mesh.polygons.len() as u32).collect(),
            new_index: (0..mesh.positions.len() as u32).map(Some).collect(),
            kept: mesh.positions.len(),
        }
    }

    /// Keeps the polygons for which `keep` holds and the vertices they use.
    pub fn polygons_where(mesh: &Mesh, keep: impl Fn(usize) -> bool) -> Self {
        let polygons: Vec<u32> = (0..mesh.polygons.len())
            .filter(|&p| keep(p))
            .map(|p| p as u32)
            .collect();
        let mut used = vec![false; mesh.positions.len()];
        for &p in &polygons {
            for c in mesh.polygons.corners(p as usize) {
                if let Some(u) = used.get_mut(mesh.polygons.vertices[c] as usize) {
                    *u = true;
                }
            }
        }
        let mut kept = 0u32;
        let new_index = used
            .into_iter()
            .map(|u| {
                u.then(|| {
                    kept += 1;
                    kept - 1
                })
            })
            .collect();
        Self {
            polygons,
            new_index,
            kept: kept as usize,
        }
    }

    /// True when nothing is dropped.
    pub fn is_everything(&self, mesh: &Mesh) -> bool {
        self.kept == mesh.positions.len() && self.polygons.len() == mesh.polygons.len()
    }
}

impl Selection {
    /// The new index of vertex `v`, or `None` when it is dropped.
    fn new_index_of(&self, v: u32) -> Option<u32> {
        self.new_index.get(v as usize).copied().flatten()
    }

    /// The kept vertices' `values` (positions, normals), in order.
    pub fn vertex_values<T: Copy>(&self, values: &[T]) -> Vec<T> {
        if values.is_empty() {
            return Vec::new();
        }
        let mut out = Vec::with_capacity(self.kept);
        out.extend(
            self.new_index
                .iter()
                .zip(values)
                .filter(|(n, _)| n.is_some())
                .map(|(_, value)| *value),
        );
        out
    }

    /// The kept polygons, renumbered.
    pub fn polygons(&self, old: &Polygons) -> Polygons {
        let corners: usize = self
            .polygons
            .iter()
            .map(|&p| old.corners(p as usize).len())
            .sum();
        let mut polygons = Polygons {
            offsets: Vec::with_capacity(self.polygons.len() + 1),
            vertices: Vec::with_capacity(corners),
            texcoords: Vec::with_capacity(corners),
            materials: Vec::with_capacity(self.polygons.len()),
            parts: Vec::with_capacity(self.polygons.len()),
            part_sets: old.part_sets.clone(),
        };
        polygons.offsets.push(0);
        for &p in &self.polygons {
            let p = p as usize;
            for c in old.corners(p) {
                // Kept polygons use only kept vertices, by construction of the selection.
                polygons
                    .vertices
                    .push(self.new_index_of(old.vertices[c]).unwrap_or(0));
                polygons.texcoords.push(old.texcoords[c]);
            }
            polygons.offsets.push(polygons.vertices.len() as u32);
            polygons.materials.push(old.materials[p]);
            polygons.parts.push(old.parts[p]);
        }
        polygons
    }

    /// The kept vertices' numbering.
    pub fn numbering(&self, old: &Numbering) -> Numbering {
        Numbering {
            source_count: old.source_count,
            source: self.vertex_values(&old.source),
        }
    }

    /// The skin of the kept vertices, renumbered (the renumbering keeps order, so it stays
    /// sorted); the authored weights stay whole.
    pub fn skin(&self, old: &Skin) -> Skin {
        Skin {
            influences: old
                .influences
                .iter()
                .filter_map(|&i| {
                    Some(Influence {
                        vertex: self.new_index_of(i.vertex)?,
                        ..i
                    })
                })
                .collect(),
            authored: Arc::clone(&old.authored),
        }
    }

    /// Sparse per-vertex values (a blend shape's offsets) of the kept vertices, renumbered.
    pub fn sparse(&self, old: &[(u32, DVec3)]) -> Vec<(u32, DVec3)> {
        old.iter()
            .filter_map(|&(v, o)| Some((self.new_index_of(v)?, o)))
            .collect()
    }
}

pub(crate) fn apply(mut character: Character, selection: &Selection) -> Character {
    if selection.is_everything(&character.mesh) {
        return character;
    }
    let mesh = &character.mesh;
    character.mesh = Mesh {
        positions: selection.vertex_values(&mesh.positions),
        texcoords: mesh.texcoords.clone(),
        polygons: Arc::new(selection.polygons(&mesh.polygons)),
        numbering: Arc::new(selection.numbering(&mesh.numbering)),
        normals: selection.vertex_values(&mesh.normals),
    };
    if let Some(skin) = &mut character.skin {
        *skin = Arc::new(selection.skin(skin));
    }
    for shape in &mut character.blend_shapes {
        shape.offsets = Arc::new(selection.sparse(&shape.offsets));
        shape.normal_offsets = selection.sparse(&shape.normal_offsets);
    }
    character
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{AuthoredGroup, AuthoredPair, AuthoredWeights, BlendShape, Influence};
    use glam::DVec3;

    /// Two triangles: 0-1-2 in part `body`, 2-3-4 in part `helper`.
    fn two_parts() -> Character {
        Character {
            mesh: Mesh {
                positions: (0..5).map(|i| DVec3::splat(f64::from(i))).collect(),
                texcoords: Arc::new(vec![[0.0, 0.0]]),
                polygons: Arc::new(Polygons {
                    offsets: vec![0, 3, 6],
                    vertices: vec![0, 1, 2, 2, 3, 4],
                    texcoords: vec![Some(0); 6],
                    materials: vec![None, Some(0)],
                    parts: vec![0, 1],
                    part_sets: vec![vec!["body".into()], vec!["helper".into()]],
                }),
                numbering: Arc::new(Numbering {
                    source_count: 7,
                    source: vec![0, 1, 2, 5, 6],
                }),
                normals: Vec::new(),
            },
            skin: Some(Arc::new(Skin {
                influences: vec![
                    Influence {
                        vertex: 1,
                        bone: 0,
                        weight: 1.0,
                    },
                    Influence {
                        vertex: 3,
                        bone: 1,
                        weight: 1.0,
                    },
                ],
                authored: Arc::new(AuthoredWeights {
                    groups: vec![
                        AuthoredGroup {
                            name: "a".into(),
                            carried: true,
                        },
                        AuthoredGroup {
                            name: "x".into(),
                            carried: false,
                        },
                    ],
                    pairs: vec![
                        AuthoredPair {
                            group: 0,
                            vertex: 1,
                            weight: 1.0,
                        },
                        AuthoredPair {
                            group: 0,
                            vertex: 5,
                            weight: 1.0,
                        },
                        AuthoredPair {
                            group: 1,
                            vertex: 0,
                            weight: 0.5,
                        },
                    ],
                }),
            })),
            blend_shapes: vec![BlendShape {
                name: "s".into(),
                offsets: Arc::new(vec![(0, DVec3::X), (4, DVec3::Y)]),
                ..BlendShape::default()
            }],
            ..Character::default()
        }
    }

    #[test]
    fn selecting_a_part_renumbers_everything_that_points_at_vertices() {
        let character = two_parts();
        assert!(character.mesh.polygons.has_part("helper"));
        let selection = Selection::polygons_where(&character.mesh, |p| {
            character
                .mesh
                .polygons
                .part_names(p)
                .iter()
                .any(|n| n == "body")
        });
        let body = character.select(&selection);
        assert_eq!(body.mesh.positions.len(), 3);
        assert_eq!(body.mesh.numbering.source, [0, 1, 2]);
        assert_eq!(body.mesh.polygons.offsets, [0, 3]);
        assert_eq!(body.mesh.polygons.vertices, [0, 1, 2]);
        let skin = body.skin.as_ref().unwrap();
        assert_eq!(skin.influences.len(), 1);
        assert_eq!(*body.blend_shapes[0].offsets, [(0, DVec3::X)]);
        // Uncarried: the pair on source vertex 5 (dropped) and group x (no bone), in order.
        let uncarried: Vec<(u32, u32)> = skin
            .authored
            .uncarried(&body.mesh.numbering)
            .map(|p| (p.group, p.vertex))
            .collect();
        assert_eq!(uncarried, [(0, 5), (1, 0)]);
    }

    #[test]
    fn selecting_everything_changes_nothing() {
        let character = two_parts();
        let all = Selection::everything(&character.mesh);
        assert_eq!(character.clone().select(&all), character);
    }
}
