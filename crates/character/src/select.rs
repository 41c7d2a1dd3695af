//! Choosing part of a mesh: which polygons stay, and the vertex renumbering that follows.

use crate::{BlendShape, Character, Mesh, Numbering, Polygons, Skin};

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

pub(crate) fn apply(mut character: Character, selection: &Selection) -> Character {
    if selection.is_everything(&character.mesh) {
        return character;
    }
    let new = |v: u32| selection.new_index.get(v as usize).copied().flatten();
    let mesh = &character.mesh;
    let mut positions = Vec::with_capacity(selection.kept);
    let mut source = Vec::with_capacity(selection.kept);
    let mut normals = Vec::with_capacity(if mesh.normals.is_empty() {
        0
    } else {
        selection.kept
    });
    for (v, n) in selection.new_index.iter().enumerate() {
        if n.is_some() {
            positions.push(mesh.positions[v]);
            source.push(mesh.numbering.source[v]);
            if let Some(normal) = mesh.normals.get(v) {
                normals.push(*normal);
            }
        }
    }
    let old = &mesh.polygons;
    let mut polygons = Polygons {
        offsets: Vec::with_capacity(selection.polygons.len() + 1),
        part_sets: old.part_sets.clone(),
        ..Polygons::default()
    };
    polygons.offsets.push(0);
    for &p in &selection.polygons {
        let p = p as usize;
        for c in old.corners(p) {
            // Kept polygons use only kept vertices, by construction of the selection.
            polygons.vertices.push(new(old.vertices[c]).unwrap_or(0));
            polygons.texcoords.push(old.texcoords[c]);
        }
        polygons.offsets.push(polygons.vertices.len() as u32);
        polygons.materials.push(old.materials[p]);
        polygons.parts.push(old.parts[p]);
    }
    let source_count = mesh.numbering.source_count;
    character.mesh = Mesh {
        positions,
        texcoords: std::mem::take(&mut character.mesh.texcoords),
        polygons,
        numbering: Numbering {
            source_count,
            source,
        },
        normals,
    };
    if let Some(skin) = &mut character.skin {
        // The renumbering keeps order, so the skin stays sorted.
        let influences = std::mem::take(&mut skin.influences);
        *skin = Skin {
            influences: influences
                .into_iter()
                .filter_map(|mut i| {
                    i.vertex = new(i.vertex)?;
                    Some(i)
                })
                .collect(),
            authored: std::mem::take(&mut skin.authored),
        };
    }
    for shape in &mut character.blend_shapes {
        *shape = BlendShape {
            name: std::mem::take(&mut shape.name),
            amount: shape.amount,
            offsets: shape
                .offsets
                .iter()
                .filter_map(|&(v, o)| Some((new(v)?, o)))
                .collect(),
            normal_offsets: shape
                .normal_offsets
                .iter()
                .filter_map(|&(v, o)| Some((new(v)?, o)))
                .collect(),
        };
    }
    character
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{AuthoredGroup, AuthoredPair, AuthoredWeights, Influence};
    use glam::DVec3;

    /// Two triangles: 0-1-2 in part `body`, 2-3-4 in part `helper`.
    fn two_parts() -> Character {
        Character {
            mesh: Mesh {
                positions: (0..5).map(|i| DVec3::splat(f64::from(i))).collect(),
                texcoords: vec![[0.0, 0.0]],
                polygons: Polygons {
                    offsets: vec![0, 3, 6],
                    vertices: vec![0, 1, 2, 2, 3, 4],
                    texcoords: vec![Some(0); 6],
                    materials: vec![None, Some(0)],
                    parts: vec![0, 1],
                    part_sets: vec![vec!["body".into()], vec!["helper".into()]],
                },
                numbering: Numbering {
                    source_count: 7,
                    source: vec![0, 1, 2, 5, 6],
                },
                normals: Vec::new(),
            },
            skin: Some(Skin {
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
                authored: AuthoredWeights {
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
                },
            }),
            blend_shapes: vec![BlendShape {
                name: "s".into(),
                offsets: vec![(0, DVec3::X), (4, DVec3::Y)],
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
        assert_eq!(body.blend_shapes[0].offsets, [(0, DVec3::X)]);
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
