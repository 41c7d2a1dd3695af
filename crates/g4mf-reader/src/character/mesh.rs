//! One mesh instance as a mesh of the spec: positions baked into the spec's space, triangles
//! (polygons rebuilt where `polytopeSimplexes` says so), per-corner texture coordinates,
//! per-vertex normals (a vertex whose corners have different normals split), the skin as
//! influences on bones, and blend shapes with their per-vertex normal offsets.

use super::materials::MaterialTable;
use super::tree::{Binding, Instance, Skeleton, Transform};
use super::{CharacterError, CharacterErrorKind, NoteKind, Notes, error};
use crate::{G4mfFile, ReadError};
use character_spec::{
    BlendShapeSpec, Corners, FaceSpec, Influence, Influences, MaterialSpec, MeshSpec, SurfaceSpec,
};
use g4mf_model::{AccessorIndex, BlendTarget, DefinedComponentType, Mesh, Surface};
use glam::{DMat3, DVec3};
use std::collections::HashMap;
use std::sync::Arc;

/// A mesh of the spec and its influences.
#[derive(Debug)]
pub(super) struct ReadMesh {
    /// The mesh.
    pub mesh: MeshSpec,
    /// Its skin (`None`: static).
    pub influences: Option<Influences>,
}

/// An accessor read error, at the property that references the accessor.
fn read_error(at: &str, e: ReadError) -> CharacterError {
    error(at, CharacterErrorKind::Accessor(e.to_string()))
}

fn malformed(at: impl Into<String>, message: String) -> CharacterError {
    error(at, CharacterErrorKind::Malformed(message))
}

/// Elements of accessor `a` (0 when it cannot be read: reading it says why).
fn element_count(file: &G4mfFile, a: AccessorIndex) -> u64 {
    file.accessor_bytes(a)
        .map_or(0, |(bytes, component, size)| {
            bytes.len() as u64 / (component.size() as u64 * u64::from(size.max(1)))
        })
}

/// Vector size of accessor `a` (checked to exist by the reader).
fn vector_size(file: &G4mfFile, a: AccessorIndex) -> u32 {
    file.document
        .accessors
        .get(a.get())
        .map_or(0, |accessor| accessor.vector_size())
}

/// Accessor `a` (referenced at `at`) as non-negative integers, of any integer type.
fn indices(file: &G4mfFile, a: AccessorIndex, at: &str) -> Result<Vec<u64>, CharacterError> {
    let (bytes, component, _) = file.accessor_bytes(a).map_err(|e| read_error(at, e))?;
    let signed: Vec<i64> = match component {
        DefinedComponentType::Int8 => bytes.iter().map(|&b| i64::from(b as i8)).collect(),
        DefinedComponentType::Int16 => bytes
            .chunks_exact(2)
            .map(|c| i64::from(i16::from_le_bytes([c[0], c[1]])))
            .collect(),
        DefinedComponentType::Int32 => bytes
            .chunks_exact(4)
            .map(|c| i64::from(i32::from_le_bytes([c[0], c[1], c[2], c[3]])))
            .collect(),
        DefinedComponentType::Int64 => bytes
            .chunks_exact(8)
            .map(|c| i64::from_le_bytes(c.try_into().unwrap_or([0; 8])))
            .collect(),
        _ => return file.read_u64(a).map_err(|e| read_error(at, e)),
    };
    signed
        .into_iter()
        .map(|i| u64::try_from(i).map_err(|_| malformed(at, format!("a negative index {i}"))))
        .collect()
}

/// Accessor `a` (referenced at `at`) as finite vectors of `size` numbers.
fn vectors<const N: usize>(
    file: &G4mfFile,
    a: AccessorIndex,
    at: &str,
) -> Result<Vec<[f64; N]>, CharacterError> {
    let size = vector_size(file, a);
    if size as usize != N {
        return Err(malformed(at, format!("vectors of {size} numbers, not {N}")));
    }
    let values = file.read_f64(a).map_err(|e| read_error(at, e))?;
    if let Some(i) = values.iter().position(|v| !v.is_finite()) {
        return Err(malformed(at, format!("value {} is not finite", i / N)));
    }
    Ok(values
        .chunks_exact(N)
        .map(|c| std::array::from_fn(|k| c[k]))
        .collect())
}

fn vec3s(file: &G4mfFile, a: AccessorIndex, at: &str) -> Result<Vec<DVec3>, CharacterError> {
    Ok(vectors::<3>(file, a, at)?
        .into_iter()
        .map(DVec3::from_array)
        .collect())
}

/// Refuses mesh instances that together would hold more than `limit` elements (vertices,
/// corners counted twice as each may split a vertex, skin entries, blend-shape offsets),
/// before any is read.
pub(super) fn check_budget(
    file: &G4mfFile,
    instances: &[Instance],
    limit: u64,
) -> Result<(), CharacterError> {
    let mut total: u64 = 0;
    for instance in instances {
        let mesh = &file.document.meshes[instance.mesh];
        let count = |a: AccessorIndex| element_count(file, a);
        let corners: u64 = mesh
            .surfaces
            .iter()
            .filter_map(|s| s.simplexes)
            .map(|a| count(a).saturating_mul(3))
            .sum();
        let skin = match instance.binding {
            Binding::Skin => mesh.skin.as_ref().map_or(0, |s| count(s.groups)),
            Binding::Bone(_) => count(mesh.vertices).saturating_add(corners),
            Binding::Static => 0,
        };
        let targets = mesh.blend.iter().flat_map(|b| &b.shapes).flat_map(|shape| {
            let normals = shape
                .surfaces
                .iter()
                .flatten()
                .filter_map(|s| s.normal.as_ref());
            shape
                .position
                .iter()
                .chain(normals)
                .map(|t| count(t.indices))
        });
        let offsets: u64 = targets.sum();
        total = [count(mesh.vertices), corners, corners, skin, offsets]
            .into_iter()
            .fold(total, u64::saturating_add);
        if total > limit {
            return Err(error(
                format!("/nodes/{}/meshInstance", instance.node),
                CharacterErrorKind::Limit {
                    what: "the mesh instances up to this one".into(),
                    size: total,
                    limit,
                },
            ));
        }
    }
    Ok(())
}

/// Reads mesh instances with what they share: the file, the skeleton, the materials, and
/// the skin group names seen so far (they must agree across the skeleton's meshes).
pub(super) struct MeshReader<'a> {
    file: &'a G4mfFile,
    skeleton: Option<&'a Skeleton>,
    materials: &'a MaterialTable,
    /// Each group's name as first given, and the mesh that gave it.
    group_names: Vec<Option<(String, usize)>>,
}

/// One surface as read: its corners, their normals and texture coordinates.
#[derive(Debug)]
struct SurfaceRead {
    /// Vertex of each simplex corner, three per simplex.
    corners: Vec<u32>,
    /// Each corner's normal, an index into [`MeshRead::normals`].
    normals: Option<Vec<u32>>,
    /// Whether the corners' normals come from the surface's binding (else computed flat).
    bound_normals: bool,
    /// Each corner's texture coordinate, an index into [`MeshRead::texcoords`].
    texcoords: Option<Vec<u32>>,
    /// `polytopeSimplexes`.
    polytopes: bool,
}

/// A mesh's arrays as read, before vertices are split.
#[derive(Debug, Default)]
struct MeshRead {
    positions: Vec<DVec3>,
    /// Every normals binding's values, one after the other, then computed flat normals.
    normals: Vec<DVec3>,
    /// Where each normals accessor's values start in `normals`.
    normal_blocks: HashMap<u32, (u32, usize)>,
    /// Every texture map's values, one after the other.
    texcoords: Vec<[f64; 2]>,
    /// Where each texture-map accessor's values start in `texcoords`.
    texcoord_blocks: HashMap<u32, (u32, usize)>,
    surfaces: Vec<SurfaceRead>,
}

impl<'a> MeshReader<'a> {
    /// A reader for `file`'s mesh instances.
    pub fn new(
        file: &'a G4mfFile,
        skeleton: Option<&'a Skeleton>,
        materials: &'a MaterialTable,
    ) -> Self {
        Self {
            file,
            skeleton,
            materials,
            group_names: Vec::new(),
        }
    }

    /// `instance` as a mesh of the spec.
    pub fn read(
        &mut self,
        instance: &Instance,
        notes: &mut Notes,
    ) -> Result<ReadMesh, CharacterError> {
        let m = instance.mesh;
        let mesh = &self.file.document.meshes[m];
        if mesh.surfaces.is_empty() {
            return Err(malformed(
                format!("/meshes/{m}/surfaces"),
                "no surfaces".into(),
            ));
        }
        let mut read = MeshRead {
            positions: vec3s(self.file, mesh.vertices, &format!("/meshes/{m}/vertices"))?,
            ..MeshRead::default()
        };
        if u32::try_from(read.positions.len()).is_err() {
            return Err(malformed(
                format!("/meshes/{m}/vertices"),
                "more vertices than 32-bit indices reach".into(),
            ));
        }
        for (s, surface) in mesh.surfaces.iter().enumerate() {
            let surface = self.surface(&mut read, m, s, surface, notes)?;
            read.surfaces.push(surface);
        }
        flat_normals(&mut read, m, notes);
        let offsets = NormalOffsets::read(self.file, mesh, m, &read, notes)?;
        let split = Split::of(&read, &offsets);
        if !split.origin.is_empty() {
            notes.add(
                || format!("/meshes/{m}"),
                NoteKind::VerticesSplit(split.origin.len()),
            );
        }
        let influences = self.influences(instance, mesh, &split, notes)?;
        let shapes = self.blend_shapes(instance, mesh, &read, &split, &offsets)?;
        let spec = self.mesh_spec(instance, &read, &split, shapes, notes)?;
        Ok(ReadMesh {
            mesh: spec,
            influences: influences.map(Influences::new),
        })
    }

    /// Surface `s` of mesh `m`: its triangles, normals and texture coordinates.
    fn surface(
        &self,
        read: &mut MeshRead,
        m: usize,
        s: usize,
        surface: &Surface,
        notes: &mut Notes,
    ) -> Result<SurfaceRead, CharacterError> {
        let at = format!("/meshes/{m}/surfaces/{s}");
        if surface.edges.is_some()
            || surface.other.contains_key("geometry")
            || surface.other.contains_key("seams")
        {
            notes.add(|| at.clone(), NoteKind::TopologyLeftOut);
        }
        let corners = self.corners(read, surface, &at)?;
        let normals = match &surface.normals {
            None => None,
            Some(binding) => {
                let at = format!("{at}/normals");
                let (base, count) = block(
                    &mut read.normal_blocks,
                    &mut read.normals,
                    binding.values,
                    || vec3s(self.file, binding.values, &format!("{at}/values")),
                )?;
                let values = corner_values(self.file, binding, &corners, count, &at)?;
                Some(values.into_iter().map(|v| base + v).collect())
            }
        };
        let texcoords = match &surface.texture_map {
            None => None,
            Some(binding) => Some(self.texcoords(read, binding, &corners, &at)?),
        };
        Ok(SurfaceRead {
            bound_normals: normals.is_some(),
            corners,
            normals,
            texcoords,
            polytopes: surface.polytope_simplexes,
        })
    }

    /// Each corner's texture coordinate through a surface's texture map (2D coordinates).
    fn texcoords(
        &self,
        read: &mut MeshRead,
        binding: &g4mf_model::Binding,
        corners: &[u32],
        at: &str,
    ) -> Result<Vec<u32>, CharacterError> {
        let at = format!("{at}/textureMap");
        let values_at = format!("{at}/values");
        let size = vector_size(self.file, binding.values);
        if size != 2 {
            return Err(error(
                values_at,
                CharacterErrorKind::Unsupported(format!(
                    "texture coordinates of {size} numbers: a character's are 2D"
                )),
            ));
        }
        let (base, count) = block(
            &mut read.texcoord_blocks,
            &mut read.texcoords,
            binding.values,
            || vectors::<2>(self.file, binding.values, &values_at),
        )?;
        let values = corner_values(self.file, binding, corners, count, &at)?;
        Ok(values.into_iter().map(|v| base + v).collect())
    }

    /// A surface's simplex corners, refusing surfaces that are not triangles.
    fn corners(
        &self,
        read: &MeshRead,
        surface: &Surface,
        at: &str,
    ) -> Result<Vec<u32>, CharacterError> {
        let not_triangles =
            |message: &str| error(at, CharacterErrorKind::NotTriangles(message.into()));
        let Some(simplexes) = surface.simplexes else {
            if surface.edges.is_some() {
                return Err(not_triangles(
                    "a surface of edges without simplexes: a character's surfaces are triangles",
                ));
            }
            if surface.other.contains_key("geometry") {
                return Err(not_triangles(
                    "a surface of polytope geometry without simplexes: a character's surfaces \
                     are triangles",
                ));
            }
            return Ok(Vec::new());
        };
        let at = format!("{at}/simplexes");
        let size = vector_size(self.file, simplexes);
        if size != 3 {
            return Err(error(
                at,
                CharacterErrorKind::NotTriangles(format!(
                    "simplexes of {size} vertices: a character's surfaces are triangles"
                )),
            ));
        }
        let count = read.positions.len() as u64;
        indices(self.file, simplexes, &at)?
            .into_iter()
            .map(|v| {
                (v < count)
                    .then_some(v as u32)
                    .ok_or_else(|| malformed(&at, format!("vertex {v} is past the mesh's {count}")))
            })
            .collect()
    }
}

/// Where accessor `a`'s values start in `values` (read with `read` and appended on first
/// use), and how many there are.
fn block<T>(
    blocks: &mut HashMap<u32, (u32, usize)>,
    values: &mut Vec<T>,
    a: AccessorIndex,
    read: impl FnOnce() -> Result<Vec<T>, CharacterError>,
) -> Result<(u32, usize), CharacterError> {
    if let Some(&found) = blocks.get(&a.value()) {
        return Ok(found);
    }
    let new = read()?;
    let base = u32::try_from(values.len())
        .ok()
        .filter(|b| u32::try_from(new.len()).is_ok_and(|n| b.checked_add(n).is_some()));
    let Some(base) = base else {
        return Err(malformed(
            format!("/accessors/{a}"),
            "more values than 32-bit indices reach".into(),
        ));
    };
    let found = (base, new.len());
    values.extend(new);
    blocks.insert(a.value(), found);
    Ok(found)
}

/// Each corner's index into a binding's `count` values: by corner (`simplexes`), by simplex
/// (`perSimplex`), or by vertex (no indices).
fn corner_values(
    file: &G4mfFile,
    binding: &g4mf_model::Binding,
    corners: &[u32],
    count: usize,
    at: &str,
) -> Result<Vec<u32>, CharacterError> {
    let values: Vec<u64> = if let Some(a) = binding.simplexes {
        let at = format!("{at}/simplexes");
        let values = indices(file, a, &at)?;
        if values.len() != corners.len() {
            return Err(malformed(
                at,
                format!(
                    "{} indices for {} simplex corners",
                    values.len(),
                    corners.len()
                ),
            ));
        }
        values
    } else if let Some(a) = binding.per_simplex {
        let at = format!("{at}/perSimplex");
        let values = indices(file, a, &at)?;
        if values.len() * 3 != corners.len() {
            return Err(malformed(
                at,
                format!(
                    "{} indices for {} simplexes",
                    values.len(),
                    corners.len() / 3
                ),
            ));
        }
        values.into_iter().flat_map(|v| [v; 3]).collect()
    } else if binding.other.contains_key("geometry") {
        return Err(error(
            at,
            CharacterErrorKind::Unsupported(
                "a binding through polytope geometry only: a character binds corners".into(),
            ),
        ));
    } else {
        corners.iter().map(|&v| u64::from(v)).collect()
    };
    values
        .into_iter()
        .map(|v| {
            (v < count as u64)
                .then_some(v as u32)
                .ok_or_else(|| malformed(at, format!("index {v} is past the {count} values")))
        })
        .collect()
}

/// The runs of simplexes that form one polygon: consecutive simplexes sharing their first
/// vertex where `polytopes` (mesh.md), else each simplex alone; as simplex ranges.
fn runs(corners: &[u32], polytopes: bool) -> Vec<std::ops::Range<usize>> {
    let count = corners.len() / 3;
    let mut runs = Vec::new();
    let mut start = 0;
    while start < count {
        let mut end = start + 1;
        while polytopes && end < count && corners[3 * end] == corners[3 * start] {
            end += 1;
        }
        runs.push(start..end);
        start = end;
    }
    runs
}

/// Gives the surfaces without normals flat ones (one per polygon) when another surface of
/// the mesh has normals: a spec's normals are the whole mesh's.
fn flat_normals(read: &mut MeshRead, m: usize, notes: &mut Notes) {
    if read.surfaces.iter().all(|s| s.normals.is_none()) {
        return;
    }
    for (s, surface) in read.surfaces.iter_mut().enumerate() {
        if surface.normals.is_some() {
            continue;
        }
        notes.add(
            || format!("/meshes/{m}/surfaces/{s}"),
            NoteKind::FlatNormals,
        );
        let mut corner_normals = vec![0; surface.corners.len()];
        for run in runs(&surface.corners, surface.polytopes) {
            let mut sum = DVec3::ZERO;
            for t in run.clone() {
                let [a, b, c] =
                    [0, 1, 2].map(|k| read.positions[surface.corners[3 * t + k] as usize]);
                sum += (b - a).cross(c - a);
            }
            let id = read.normals.len() as u32;
            read.normals.push(sum.try_normalize().unwrap_or(DVec3::Z));
            corner_normals[3 * run.start..3 * run.end].fill(id);
        }
        surface.normals = Some(corner_normals);
    }
}

/// The blend shapes' normal offsets, by surface and normal value: each (surface, value) that
/// any shape moves has a list of `(shape, offset)`, and equal lists share an id (0: none), so
/// corners compare theirs by id.
#[derive(Debug, Default)]
struct NormalOffsets {
    /// The lists, by id; `lists[0]` is empty.
    lists: Vec<Vec<(u32, DVec3)>>,
    /// For each surface, the list id of each normal value a shape moves.
    of_value: Vec<HashMap<u32, u32>>,
}

/// A normal or offset as exact bits (`-0.0` as `0.0`), to compare and hash.
fn bits(v: DVec3) -> [u64; 3] {
    (v + DVec3::ZERO).to_array().map(f64::to_bits)
}

impl NormalOffsets {
    /// The normal targets of `mesh`'s shapes on surfaces with normals (others are noted).
    fn read(
        file: &G4mfFile,
        mesh: &Mesh,
        m: usize,
        read: &MeshRead,
        notes: &mut Notes,
    ) -> Result<Self, CharacterError> {
        let mut by_value: Vec<HashMap<u32, Vec<(u32, DVec3)>>> =
            vec![HashMap::new(); read.surfaces.len()];
        let shapes = mesh.blend.iter().flat_map(|b| b.shapes.iter().enumerate());
        for (k, shape) in shapes {
            for (j, entry) in shape.surfaces.iter().flatten().enumerate() {
                let at = format!("/meshes/{m}/blend/shapes/{k}/surfaces/{j}");
                if entry.texture_map.is_some() {
                    notes.add(
                        || format!("{at}/textureMap"),
                        NoteKind::TextureMapTargetsLeftOut,
                    );
                }
                let Some(target) = &entry.normal else {
                    continue;
                };
                let s = entry.surface as usize;
                let binding = mesh.surfaces[s].normals.as_ref();
                let Some(binding) = binding.filter(|_| read.surfaces[s].bound_normals) else {
                    notes.add(
                        || format!("{at}/normal"),
                        NoteKind::NormalTargetsWithoutNormals,
                    );
                    continue;
                };
                let (base, count) = read.normal_blocks[&binding.values.value()];
                for (i, d) in target_pairs(file, target, &format!("{at}/normal"), count)? {
                    let list = by_value[s].entry(base + i).or_default();
                    match list.last_mut() {
                        Some((shape, sum)) if *shape == k as u32 => *sum += d,
                        _ => list.push((k as u32, d)),
                    }
                }
            }
        }
        let mut offsets = NormalOffsets {
            lists: vec![Vec::new()],
            of_value: Vec::with_capacity(by_value.len()),
        };
        let mut ids: HashMap<Vec<(u32, [u64; 3])>, u32> = HashMap::new();
        for surface in by_value {
            let mut of_value = HashMap::with_capacity(surface.len());
            for (value, list) in surface {
                let key: Vec<(u32, [u64; 3])> = list.iter().map(|&(k, d)| (k, bits(d))).collect();
                let id = *ids.entry(key).or_insert_with(|| {
                    offsets.lists.push(list);
                    (offsets.lists.len() - 1) as u32
                });
                of_value.insert(value, id);
            }
            offsets.of_value.push(of_value);
        }
        Ok(offsets)
    }

    /// The list id of a corner of surface `s` with normal `value`.
    fn id(&self, s: usize, value: u32) -> u32 {
        self.of_value
            .get(s)
            .and_then(|m| m.get(&value))
            .copied()
            .unwrap_or(0)
    }
}

/// A blend target's `(index, offset)` pairs, each index below `count`.
fn target_pairs(
    file: &G4mfFile,
    target: &BlendTarget,
    at: &str,
    count: usize,
) -> Result<Vec<(u32, DVec3)>, CharacterError> {
    let indices = indices(file, target.indices, &format!("{at}/indices"))?;
    let offsets = vec3s(file, target.offsets, &format!("{at}/offsets"))?;
    if indices.len() != offsets.len() {
        return Err(malformed(
            at,
            format!("{} indices for {} offsets", indices.len(), offsets.len()),
        ));
    }
    indices
        .into_iter()
        .zip(offsets)
        .map(|(i, d)| {
            (i < count as u64).then_some((i as u32, d)).ok_or_else(|| {
                malformed(
                    format!("{at}/indices"),
                    format!("index {i} is past the {count} items"),
                )
            })
        })
        .collect()
}

/// The vertices after splitting: a vertex whose corners differ in normal (or in the normal
/// offsets the shapes give it) keeps its index for its first kind of corner and gains a new
/// vertex, after all the mesh's own, for each other kind.
#[derive(Debug, Default)]
struct Split {
    /// Each surface's corners, as final vertices.
    corners: Vec<Vec<u32>>,
    /// The mesh vertex each added vertex copies.
    origin: Vec<u32>,
    /// Each final vertex's normal (an index into [`MeshRead::normals`]; `u32::MAX`: no
    /// corner uses it).
    normal: Vec<u32>,
    /// Each final vertex's normal-offset list ([`NormalOffsets::lists`]).
    offsets: Vec<u32>,
}

impl Split {
    fn of(read: &MeshRead, offsets: &NormalOffsets) -> Self {
        let count = read.positions.len();
        let mut split = Split {
            normal: vec![u32::MAX; count],
            offsets: vec![0; count],
            ..Split::default()
        };
        let mut added: HashMap<(u32, [u64; 3], u32), u32> = HashMap::new();
        for (s, surface) in read.surfaces.iter().enumerate() {
            let Some(normals) = &surface.normals else {
                split.corners.push(surface.corners.clone());
                continue;
            };
            let mut corners = Vec::with_capacity(surface.corners.len());
            for (&v, &n) in surface.corners.iter().zip(normals) {
                let id = offsets.id(s, n);
                let key = (bits(read.normals[n as usize]), id);
                let first = split.normal[v as usize];
                let w = if first == u32::MAX {
                    split.normal[v as usize] = n;
                    split.offsets[v as usize] = id;
                    v
                } else if (
                    bits(read.normals[first as usize]),
                    split.offsets[v as usize],
                ) == key
                {
                    v
                } else {
                    *added.entry((v, key.0, key.1)).or_insert_with(|| {
                        split.origin.push(v);
                        split.normal.push(n);
                        split.offsets.push(id);
                        (count + split.origin.len() - 1) as u32
                    })
                };
                corners.push(w);
            }
            split.corners.push(corners);
        }
        split
    }

    /// The mesh vertex final vertex `w` copies.
    fn source(&self, count: usize, w: usize) -> usize {
        if w < count {
            w
        } else {
            self.origin[w - count] as usize
        }
    }
}

/// A surface's faces from its final corners: each run of simplexes that forms one fan (the
/// same first vertex and texture coordinate, each simplex starting where the last ended)
/// becomes one polygon, any other run its triangles (noted).
fn faces(
    surface: &SurfaceRead,
    corners: &[u32],
    at: &dyn Fn() -> String,
    notes: &mut Notes,
) -> Vec<FaceSpec> {
    let uv = surface.texcoords.as_deref();
    let corner = |i: usize| (corners[i], uv.map(|t| t[i]));
    let mut faces = Vec::with_capacity(corners.len() / 3);
    for run in runs(&surface.corners, surface.polytopes) {
        let first = 3 * run.start;
        let fan = run
            .clone()
            .skip(1)
            .all(|t| corner(3 * t) == corner(first) && corner(3 * t + 1) == corner(3 * t - 1));
        if !fan {
            notes.add(at, NoteKind::PolytopeAsTriangles);
        }
        let polygons: Vec<Vec<usize>> = if fan {
            let mut polygon = vec![first, first + 1];
            polygon.extend(run.map(|t| 3 * t + 2));
            vec![polygon]
        } else {
            run.map(|t| vec![3 * t, 3 * t + 1, 3 * t + 2]).collect()
        };
        faces.extend(polygons.into_iter().map(|p| FaceSpec {
            vertices: p.iter().map(|&i| corners[i]).collect(),
            texcoords: uv.map(|uv| p.iter().map(|&i| uv[i]).collect::<Corners>()),
        }));
    }
    faces
}

impl MeshReader<'_> {
    /// The influences of `instance`'s final vertices: its mesh's skin through the skeleton's
    /// joints, or weight 1 on the bone it hangs from; `None` for a static mesh.
    fn influences(
        &mut self,
        instance: &Instance,
        mesh: &Mesh,
        split: &Split,
        notes: &mut Notes,
    ) -> Result<Option<Vec<Influence>>, CharacterError> {
        let count = split.normal.len();
        let mesh_count = count - split.origin.len();
        let mut list = match (instance.binding, &mesh.skin, self.skeleton) {
            (Binding::Bone(bone), _, _) => {
                return Ok(Some(
                    (0..count as u32)
                        .map(|vertex| Influence {
                            vertex,
                            bone: bone as u32,
                            weight: 1.0,
                        })
                        .collect(),
                ));
            }
            (Binding::Skin, Some(skin), Some(skeleton)) => {
                self.skin(instance.mesh, skin, skeleton, mesh_count, notes)?
            }
            _ => return Ok(None),
        };
        // Added vertices take their source vertex's influences.
        list.sort_by_key(|i| i.vertex);
        let sorted = list.len();
        for (j, &v) in split.origin.iter().enumerate() {
            let start = list[..sorted].partition_point(|i| i.vertex < v);
            let end = list[..sorted].partition_point(|i| i.vertex <= v);
            for k in start..end {
                let copy = Influence {
                    vertex: (mesh_count + j) as u32,
                    ..list[k]
                };
                list.push(copy);
            }
        }
        Ok(Some(list))
    }

    /// Mesh `m`'s skin as influences on bones, through `skeleton`'s joints.
    fn skin(
        &mut self,
        m: usize,
        skin: &g4mf_model::Skin,
        skeleton: &Skeleton,
        vertex_count: usize,
        notes: &mut Notes,
    ) -> Result<Vec<Influence>, CharacterError> {
        let at = format!("/meshes/{m}/skin");
        self.check_group_names(m, skin, skeleton, notes)?;
        let groups = indices(self.file, skin.groups, &format!("{at}/groups"))?;
        let vertices = indices(self.file, skin.vertices, &format!("{at}/vertices"))?;
        let weights = self
            .file
            .read_f64(skin.weights)
            .map_err(|e| read_error(&format!("{at}/weights"), e))?;
        if groups.len() != vertices.len() || groups.len() != weights.len() {
            return Err(malformed(
                at,
                format!(
                    "{} groups, {} vertices and {} weights",
                    groups.len(),
                    vertices.len(),
                    weights.len()
                ),
            ));
        }
        let mut list = Vec::with_capacity(groups.len());
        for ((&g, &v), &weight) in groups.iter().zip(&vertices).zip(&weights) {
            if v >= vertex_count as u64 {
                let message = format!("vertex {v} is past the mesh's {vertex_count}");
                return Err(malformed(format!("{at}/vertices"), message));
            }
            if !(weight.is_finite() && weight >= 0.0) {
                let message = format!("weight {weight} is not a finite non-negative number");
                return Err(malformed(format!("{at}/weights"), message));
            }
            let Some(joint) = usize::try_from(g).ok().and_then(|g| skeleton.joints.get(g)) else {
                notes.add(|| format!("{at}/groups"), NoteKind::GroupsBeyondJoints);
                continue;
            };
            let Some(bone) = joint else {
                return Err(error(
                    format!("/nodes/{}/skeleton/joints/{g}", skeleton.node),
                    CharacterErrorKind::Unsupported(
                        "a joint no bone controls (-1) carries weights: a character's joints \
                         are bones"
                            .into(),
                    ),
                ));
            };
            list.push(Influence {
                vertex: v as u32,
                bone: *bone as u32,
                weight,
            });
        }
        Ok(list)
    }

    /// A skin's `groupNames`: unique, not empty, and the same for a group in every skin of
    /// the skeleton (skeleton.md); names other than the joints' bone names are noted.
    fn check_group_names(
        &mut self,
        m: usize,
        skin: &g4mf_model::Skin,
        skeleton: &Skeleton,
        notes: &mut Notes,
    ) -> Result<(), CharacterError> {
        let Some(names) = &skin.group_names else {
            return Ok(());
        };
        let at = |g: usize| format!("/meshes/{m}/skin/groupNames/{g}");
        for (g, name) in names.iter().enumerate() {
            if name.is_empty() || names[..g].contains(name) {
                return Err(malformed(at(g), format!("`{name}` is empty or repeated")));
            }
            if self.group_names.len() <= g {
                self.group_names.resize(g + 1, None);
            }
            match &self.group_names[g] {
                Some((first, other)) if first != name => {
                    return Err(malformed(
                        at(g),
                        format!("`{name}` here, `{first}` in mesh {other}: group names must agree"),
                    ));
                }
                Some(_) => {}
                None => self.group_names[g] = Some((name.clone(), m)),
            }
            let bone = skeleton.joints.get(g).copied().flatten();
            if bone.is_some_and(|b| skeleton.bones[b].name != *name) {
                notes.add(|| at(g), NoteKind::GroupNamesDiffer);
            }
        }
        Ok(())
    }

    /// `instance`'s blend shapes on the final vertices (still in the mesh's space).
    fn blend_shapes(
        &self,
        instance: &Instance,
        mesh: &Mesh,
        read: &MeshRead,
        split: &Split,
        offsets: &NormalOffsets,
    ) -> Result<Vec<BlendShapeSpec>, CharacterError> {
        let Some(blend) = &mesh.blend else {
            return Ok(Vec::new());
        };
        let count = read.positions.len();
        let mut normal_offsets: Vec<Vec<(u32, DVec3)>> = vec![Vec::new(); blend.shapes.len()];
        for (w, &id) in split.offsets.iter().enumerate() {
            for &(k, d) in &offsets.lists[id as usize] {
                normal_offsets[k as usize].push((w as u32, d));
            }
        }
        let mut shapes = Vec::with_capacity(blend.shapes.len());
        for ((k, shape), normal_offsets) in blend.shapes.iter().enumerate().zip(normal_offsets) {
            let mut pairs = match &shape.position {
                None => Vec::new(),
                Some(target) => {
                    let at = format!("/meshes/{}/blend/shapes/{k}/position", instance.mesh);
                    target_pairs(self.file, target, &at, count)?
                }
            };
            pairs.sort_by_key(|p| p.0);
            pairs.dedup_by(|later, kept| {
                let same = later.0 == kept.0;
                if same {
                    kept.1 += later.1;
                }
                same
            });
            let sorted = pairs.len();
            for (j, &v) in split.origin.iter().enumerate() {
                if let Ok(found) = pairs[..sorted].binary_search_by_key(&v, |p| p.0) {
                    pairs.push(((count + j) as u32, pairs[found].1));
                }
            }
            shapes.push(BlendShapeSpec {
                name: shape.name.clone().unwrap_or_else(|| format!("Shape{k}")),
                amount: instance.amounts.get(k).copied().unwrap_or(0.0),
                offsets: pairs.into(),
                normal_offsets,
            });
        }
        Ok(shapes)
    }

    /// The mesh of the spec: final vertices, normals and faces, all baked by the instance's
    /// transform into the spec's space (a mirroring transform reverses the windings).
    fn mesh_spec(
        &self,
        instance: &Instance,
        read: &MeshRead,
        split: &Split,
        mut shapes: Vec<BlendShapeSpec>,
        notes: &mut Notes,
    ) -> Result<MeshSpec, CharacterError> {
        let count = read.positions.len();
        let total = split.normal.len();
        let place = Bake::of(instance)?;
        let positions = (0..total)
            .map(|w| place.point(read.positions[split.source(count, w)]))
            .collect();
        let normals = read.surfaces.iter().any(|s| s.normals.is_some()).then(|| {
            let fallback = per_vertex_block(read);
            (0..total)
                .map(|w| {
                    let original = original_normal(read, split, fallback, w);
                    place.normal(original)
                })
                .collect()
        });
        for shape in &mut shapes {
            place.shape(shape, |w| original_normal(read, split, None, w));
        }
        let (surfaces, materials) = self.surfaces(instance, read, split, &place, notes);
        Ok(MeshSpec {
            positions,
            texcoords: Arc::new(read.texcoords.clone()),
            surfaces: surfaces.into(),
            normals,
            materials,
            blend_shapes: shapes,
        })
    }
}

impl MeshReader<'_> {
    /// The surfaces of the spec (faces from the final corners, windings reversed by a
    /// mirroring instance) and the materials they use, in first-use order.
    fn surfaces(
        &self,
        instance: &Instance,
        read: &MeshRead,
        split: &Split,
        place: &Bake,
        notes: &mut Notes,
    ) -> (Vec<SurfaceSpec>, Vec<MaterialSpec>) {
        let mut surfaces = Vec::with_capacity(read.surfaces.len());
        let mut materials: Vec<MaterialSpec> = Vec::new();
        for (s, (surface, corners)) in read.surfaces.iter().zip(&split.corners).enumerate() {
            let at = || format!("/meshes/{}/surfaces/{s}", instance.mesh);
            let mut faces = faces(surface, corners, &at, notes);
            if place.mirrors {
                for face in &mut faces {
                    face.vertices[1..].reverse();
                    if let Some(uv) = &mut face.texcoords {
                        uv[1..].reverse();
                    }
                }
            }
            let material = instance.materials[s].and_then(|m| self.materials.specs[m].as_ref());
            if let Some(material) = material {
                if !materials.iter().any(|m| m.name == material.name) {
                    materials.push(material.clone());
                }
            }
            surfaces.push(SurfaceSpec {
                name: self.file.document.meshes[instance.mesh].surfaces[s]
                    .name
                    .clone(),
                material: material.map(|m| m.name.clone()),
                faces,
            });
        }
        (surfaces, materials)
    }
}

/// Where the values of a normals binding with one value per mesh vertex start, if any: the
/// normal of a vertex no corner uses.
fn per_vertex_block(read: &MeshRead) -> Option<u32> {
    let count = read.positions.len();
    let mut blocks: Vec<(u32, usize)> = read.normal_blocks.values().copied().collect();
    blocks.sort_unstable();
    blocks
        .into_iter()
        .find(|&(_, n)| n == count)
        .map(|(base, _)| base)
}

/// Final vertex `w`'s normal before baking: its corners', else (unused) the per-vertex
/// block's value for its source vertex, else +Z.
fn original_normal(read: &MeshRead, split: &Split, fallback: Option<u32>, w: usize) -> DVec3 {
    let n = split.normal[w];
    if n != u32::MAX {
        return read.normals[n as usize];
    }
    let source = split.source(read.positions.len(), w) as u32;
    fallback
        .and_then(|base| read.normals.get((base + source) as usize))
        .copied()
        .unwrap_or(DVec3::Z)
}

/// An instance's transform as it is baked into its vertices, normals and offsets.
struct Bake {
    basis: DMat3,
    position: DVec3,
    /// The inverse transpose of `basis` (normals).
    normal_basis: DMat3,
    /// `basis` mirrors (windings reverse).
    mirrors: bool,
}

impl Bake {
    fn of(instance: &Instance) -> Result<Self, CharacterError> {
        let Transform { basis, position } = instance.place;
        let determinant = basis.determinant();
        if !(determinant.is_finite() && determinant.abs() > 1e-12) {
            return Err(error(
                format!("/nodes/{}", instance.node),
                CharacterErrorKind::NotPlaceable(
                    "the mesh instance's transform is singular (it flattens the mesh)".into(),
                ),
            ));
        }
        Ok(Bake {
            basis,
            position,
            normal_basis: basis.inverse().transpose(),
            mirrors: determinant < 0.0,
        })
    }

    fn is_identity(&self) -> bool {
        self.basis == DMat3::IDENTITY
    }

    /// A position: exact when the basis is the identity.
    fn point(&self, p: DVec3) -> DVec3 {
        if self.is_identity() {
            p + self.position
        } else {
            self.basis * p + self.position
        }
    }

    /// A unit normal, renormalised after a basis that is not the identity.
    fn normal(&self, n: DVec3) -> DVec3 {
        if self.is_identity() {
            n
        } else {
            (self.normal_basis * n).try_normalize().unwrap_or(n)
        }
    }

    /// A blend shape's offsets and normal offsets (`normal` gives a final vertex's normal
    /// before baking).
    fn shape(&self, shape: &mut BlendShapeSpec, normal: impl Fn(usize) -> DVec3) {
        if self.is_identity() {
            return;
        }
        let moved: Vec<(u32, DVec3)> = shape
            .offsets
            .iter()
            .map(|&(w, d)| (w, self.basis * d))
            .collect();
        shape.offsets = moved.into();
        for (w, d) in &mut shape.normal_offsets {
            *d = self.normal_offset(normal(*w as usize), *d);
        }
    }

    /// A normal offset `d` of a vertex whose normal is `n`: `N d / |N n|`, so the baked
    /// normal plus the baked offset points where `N (n + d)` does.
    fn normal_offset(&self, n: DVec3, d: DVec3) -> DVec3 {
        if self.is_identity() {
            return d;
        }
        let length = (self.normal_basis * n).length();
        if length > 0.0 {
            self.normal_basis * d / length
        } else {
            d
        }
    }
}
