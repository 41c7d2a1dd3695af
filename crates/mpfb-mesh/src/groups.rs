//! Named vertex groups: derived from OBJ face groups, or read from MPFB's
//! `basemesh_vertex_groups.json` (name -> inclusive index ranges) for meshes without groups.

use crate::error::{Location, MeshError, MeshErrorKind};
use crate::obj::ObjMesh;
use indexmap::IndexMap;
use std::path::Path;

/// Vertex groups: name -> ascending, duplicate-free vertex indices, in first-seen order.
pub type VertexGroups = IndexMap<String, Vec<u32>>;

/// True for groups MPFB treats as joint cubes (the name contains `joint`, case-sensitive).
pub fn is_joint_group(name: &str) -> bool {
    name.contains("joint")
}

/// Every vertex used by the faces of each OBJ group (a face in several groups counts for all).
pub fn vertex_groups_from_faces(mesh: &ObjMesh) -> VertexGroups {
    vertex_groups_from_faces_where(mesh, |_| true)
}

/// The joint-cube groups of the OBJ's face groups: [`joint_groups`] of
/// [`vertex_groups_from_faces`] without gathering the other groups first.
pub fn joint_groups_from_faces(mesh: &ObjMesh) -> VertexGroups {
    vertex_groups_from_faces_where(mesh, is_joint_group)
}

/// [`vertex_groups_from_faces`] for the groups whose name passes `wanted`, in the same order.
fn vertex_groups_from_faces_where(mesh: &ObjMesh, wanted: impl Fn(&str) -> bool) -> VertexGroups {
    // Gather vertices per distinct group set first: naming each face's groups would clone a
    // name per face. Sets with no wanted name gather nothing.
    let set_wanted: Vec<bool> = mesh
        .group_sets
        .iter()
        .map(|set| set.iter().any(|n| wanted(n)))
        .collect();
    let mut per_set: Vec<Vec<u32>> = vec![Vec::new(); mesh.group_sets.len()];
    for f in 0..mesh.face_count() {
        let set = mesh.face_group_set[f] as usize;
        if set_wanted[set] {
            per_set[set].extend(mesh.face(f).iter().map(|c| c.vertex));
        }
    }
    let mut groups: IndexMap<String, Vec<u32>> = IndexMap::new();
    for (set, vertices) in mesh.group_sets.iter().zip(per_set) {
        if vertices.is_empty() {
            continue;
        }
        for name in set.iter().filter(|n| wanted(n)) {
            groups
                .entry(name.clone())
                .or_default()
                .extend_from_slice(&vertices);
        }
    }
    for members in groups.values_mut() {
        members.sort_unstable();
        members.dedup();
    }
    groups
}

/// The joint-cube groups among `groups`.
pub fn joint_groups(groups: &VertexGroups) -> VertexGroups {
    groups
        .iter()
        .filter(|(name, _)| is_joint_group(name))
        .map(|(name, members)| (name.clone(), members.clone()))
        .collect()
}

/// Vertex group files are small: a larger file is not one.
pub const MAX_VERTEX_GROUP_BYTES: u64 = 64 << 20;

/// Reads `basemesh_vertex_groups.json`.
pub fn read_vertex_group_file(path: &Path) -> Result<VertexGroups, MeshError> {
    let text = location::read_text_bounded(path, MAX_VERTEX_GROUP_BYTES)
        .map_err(|e| MeshError::new(Location::file(path), MeshErrorKind::Io(e)))?;
    parse_vertex_groups(&text).map_err(|e| e.with_file(path))
}

/// Parses `{ "name": [[first, last], ...], ... }` (inclusive ranges) into vertex groups.
pub fn parse_vertex_groups(text: &str) -> Result<VertexGroups, MeshError> {
    // serde keeps the last of repeated keys: a group given twice is refused instead.
    if let Some(dup) = json_strict::first_duplicate_key(text) {
        return Err(MeshError::new(
            Location::pointer(dup.pointer()),
            MeshErrorKind::Groups(format!(
                "repeated key `{}`",
                location::text::excerpt(&dup.key, 40)
            )),
        ));
    }
    let raw: IndexMap<String, Vec<[u32; 2]>> = serde_json::from_str(text)
        .map_err(|e| MeshError::at(e.line(), e.column(), MeshErrorKind::Groups(e.to_string())))?;
    let mut groups = VertexGroups::with_capacity(raw.len());
    for (name, ranges) in raw {
        let mut members = Vec::new();
        for (i, [first, last]) in ranges.into_iter().enumerate() {
            if first > last {
                return Err(MeshError::new(
                    Location::pointer(location::json_pointer([name.as_str(), &i.to_string()])),
                    MeshErrorKind::Groups(format!(
                        "range [{first}, {last}] of group `{name}` is reversed"
                    )),
                ));
            }
            members.extend(first..=last);
        }
        members.sort_unstable();
        members.dedup();
        groups.insert(name, members);
    }
    Ok(groups)
}

/// The part of a mesh that is exported: some faces and the vertices they use, in their
/// original order, with the map from original to kept vertex index.
#[derive(Debug, Clone, PartialEq)]
pub struct Extraction {
    /// Indices of the kept faces, ascending.
    pub faces: Vec<u32>,
    /// Original indices of the kept vertices, ascending (so kept order = original order).
    pub vertices: Vec<u32>,
    /// For every original vertex, its kept index, or `None` when dropped.
    pub new_index: Vec<Option<u32>>,
}

impl Extraction {
    /// Keeps every face and every vertex (helpers included).
    pub fn everything(mesh: &ObjMesh) -> Self {
        let count = mesh.positions.len();
        Self {
            faces: (0..mesh.face_count() as u32).collect(),
            vertices: (0..count as u32).collect(),
            new_index: (0..count as u32).map(Some).collect(),
        }
    }

    /// Keeps the faces in group `group` and the vertices they use. For `base.obj` and group
    /// `body` this is vertices 0..=13379, unchanged in order.
    pub fn group(mesh: &ObjMesh, group: &str) -> Self {
        let faces: Vec<u32> = (0..mesh.face_count())
            .filter(|&f| mesh.face_groups(f).iter().any(|g| g == group))
            .map(|f| f as u32)
            .collect();
        let mut used = vec![false; mesh.positions.len()];
        for &f in &faces {
            for corner in mesh.face(f as usize) {
                used[corner.vertex as usize] = true;
            }
        }
        let mut vertices = Vec::new();
        let mut new_index = vec![None; used.len()];
        for (i, keep) in used.into_iter().enumerate() {
            if keep {
                new_index[i] = Some(vertices.len() as u32);
                vertices.push(i as u32);
            }
        }
        Self {
            faces,
            vertices,
            new_index,
        }
    }

    /// True when nothing was dropped and nothing renumbered.
    pub fn is_identity(&self) -> bool {
        self.vertices.len() == self.new_index.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_group_given_twice_is_refused() {
        let err = parse_vertex_groups(r#"{"joint-head": [[0, 3]], "joint-head": [[0, 10]]}"#)
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default();
        assert!(
            err.contains("/joint-head") && err.contains("repeated key"),
            "{err}"
        );
    }
}
