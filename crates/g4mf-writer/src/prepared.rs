//! What G4MF writing derives from a mesh's faces, a skin's influences and a shape's offsets
//! alone, made on the first write and kept in the spec handles' memos ([`Surfaces`],
//! [`Influences`], [`Offsets`]): each surface's simplexes, texture-map corners, polytopes and
//! used vertices; the skin in G4MF order for the joint layout it was last written with; the
//! encoded accessors by index width. A caller that writes many meshes with the same faces,
//! skin and shapes (a population's bodies) passes the same handles each time and the work is
//! done once; the bytes are the same either way.

use crate::buffer::{Encoded, IndexWidth};
use crate::error::WriteError;
use crate::skin::{WrittenSkin, order_skin};
use character_spec::{Influences, Offsets, SurfaceSpec, Surfaces};
use std::sync::{Arc, Mutex, OnceLock};

/// One surface as written: its faces fanned into simplexes, and what checks and bindings need.
#[derive(Debug)]
pub(crate) struct PreparedSurface {
    /// Each face fanned from a first corner (rotated so consecutive faces never start on one
    /// vertex), three vertex indices per simplex.
    pub simplexes: Vec<u32>,
    /// Each simplex corner's texture coordinate, when every face of the surface has them.
    pub corner_uvs: Option<Vec<u32>>,
    /// Faces of more than three corners: the index of their first simplex corner and their
    /// corner count (their simplexes must lie in one plane for `polytopeSimplexes`).
    pub polytopes: Vec<(u32, u32)>,
    /// For every vertex up to the largest used, whether the surface uses it.
    pub used: Vec<bool>,
    /// The largest vertex index a face uses.
    pub max_vertex: Option<u32>,
    /// The largest texture-coordinate index a face uses.
    pub max_texcoord: Option<u32>,
    /// Every face has at least three corners, and as many texture coordinates as corners
    /// when it has any: otherwise the writer reports the first bad face.
    pub well_formed: bool,
    /// The simplexes and texture-map corners as accessors store them, by index width.
    encoded: [OnceLock<EncodedSurface>; 2],
}

/// A surface's index accessors, encoded.
#[derive(Debug)]
pub(crate) struct EncodedSurface {
    /// The simplexes.
    pub simplexes: Encoded,
    /// The texture-map corners, when the surface has them.
    pub corner_uvs: Option<Encoded>,
}

impl PreparedSurface {
    /// The surface's index accessors as `width` stores them (encoded on first use).
    pub fn encoded(&self, width: IndexWidth) -> &EncodedSurface {
        self.encoded[width_slot(width)].get_or_init(|| EncodedSurface {
            simplexes: Encoded::uint(&self.simplexes, width),
            corner_uvs: self.corner_uvs.as_ref().map(|c| Encoded::uint(c, width)),
        })
    }
}

/// Where a cache keeps what it encoded for `width`.
fn width_slot(width: IndexWidth) -> usize {
    match width {
        IndexWidth::Smallest => 0,
        IndexWidth::Uint32 => 1,
    }
}

/// Each surface of `surfaces` prepared for writing (made once, kept in their memo).
pub(crate) fn prepared(surfaces: &Surfaces) -> Arc<PreparedSurfaces> {
    surfaces
        .memo()
        .get_or_init(|| PreparedSurfaces(surfaces.specs().iter().map(prepare).collect()))
}

/// A mesh's surfaces as written, in order.
#[derive(Debug)]
pub(crate) struct PreparedSurfaces(pub Vec<PreparedSurface>);

/// Rotates a polygon so it does not start at `avoid`, keeping its winding, so consecutive
/// polytopes never share a first vertex (that would merge them under `polytopeSimplexes`).
fn start_away_from(corners: &[u32], avoid: Option<u32>) -> usize {
    (0..corners.len())
        .find(|&r| Some(corners[r]) != avoid)
        .unwrap_or(0)
}

/// One surface's simplexes and the rest (malformed faces are skipped and noted).
fn prepare(surface: &SurfaceSpec) -> PreparedSurface {
    let all_uv = surface.faces.iter().all(|f| f.texcoords.is_some());
    let simplex_corners: usize = surface
        .faces
        .iter()
        .map(|f| f.vertices.len().saturating_sub(2) * 3)
        .sum();
    let mut simplexes = Vec::with_capacity(simplex_corners);
    let mut corner_uvs = Vec::with_capacity(if all_uv { simplex_corners } else { 0 });
    let mut polytopes = Vec::new();
    let mut well_formed = true;
    let (mut max_vertex, mut max_texcoord) = (None, None);
    let mut previous_start = None;
    for face in &surface.faces {
        let n = face.vertices.len();
        max_vertex = face.vertices.iter().copied().chain(max_vertex).max();
        if let Some(uv) = &face.texcoords {
            max_texcoord = uv.iter().copied().chain(max_texcoord).max();
            well_formed &= uv.len() == n;
        }
        if n < 3 || face.texcoords.as_ref().is_some_and(|uv| uv.len() != n) {
            well_formed = false;
            continue;
        }
        // A fan from the first corner: the polygon is star-shaped about it (quads are two
        // triangles sharing their first vertex, as polytopeSimplexes expects).
        let r = start_away_from(&face.vertices, previous_start);
        let corner = |k: usize| (r + k) % n;
        previous_start = Some(face.vertices[r]);
        if n > 3 {
            polytopes.push((simplexes.len() as u32, n as u32));
        }
        for k in 1..n - 1 {
            for c in [corner(0), corner(k), corner(k + 1)] {
                simplexes.push(face.vertices[c]);
                if all_uv {
                    if let Some(uv) = &face.texcoords {
                        corner_uvs.push(uv[c]);
                    }
                }
            }
        }
    }
    let mut used = vec![false; max_vertex.map_or(0, |m: u32| m as usize + 1)];
    for &v in &simplexes {
        used[v as usize] = true;
    }
    PreparedSurface {
        simplexes,
        corner_uvs: all_uv.then_some(corner_uvs),
        polytopes,
        used,
        max_vertex,
        max_texcoord,
        well_formed,
        encoded: Default::default(),
    }
}

/// The skin in G4MF order for one joint layout.
struct Ordered {
    group_of_bone: Vec<Option<u32>>,
    skin: Arc<OrderedSkin>,
}

/// A skin in G4MF order, and its accessors as each index width stores them.
#[derive(Debug)]
pub(crate) struct OrderedSkin {
    /// `(vertex, group, weight)` in file order.
    pub skin: WrittenSkin,
    /// Encoded per index width; `Err` holds the first weight float32 cannot hold.
    encoded: [OnceLock<Result<EncodedSkin, usize>>; 2],
}

/// A skin's three accessors, encoded.
#[derive(Debug)]
pub(crate) struct EncodedSkin {
    /// Each entry's group.
    pub groups: Encoded,
    /// Each entry's vertex.
    pub vertices: Encoded,
    /// Each entry's weight.
    pub weights: Encoded,
}

impl OrderedSkin {
    /// The skin's accessors as `width` stores them (encoded on first use).
    pub fn encoded(&self, width: IndexWidth) -> Result<&EncodedSkin, WriteError> {
        let encoded = self.encoded[width_slot(width)].get_or_init(|| {
            let column =
                |f: fn(&(u32, u32, f32)) -> u32| -> Vec<u32> { self.skin.iter().map(f).collect() };
            let weights: Vec<f32> = self.skin.iter().map(|e| e.2).collect();
            Ok(EncodedSkin {
                groups: Encoded::uint(&column(|e| e.1), width),
                vertices: Encoded::uint(&column(|e| e.0), width),
                weights: Encoded::f32(&weights)
                    .map_err(|_| weights.iter().position(|w| !w.is_finite()).unwrap_or(0))?,
            })
        });
        encoded.as_ref().map_err(|&bad| WriteError::NonFinite {
            what: format!("float value {bad} of an accessor"),
        })
    }
}

/// The influences on joints (`group_of_bone`), as groups, in G4MF order ([`order_skin`]),
/// kept in the influences' memo for the next write with the same joints.
pub(crate) fn ordered(influences: &Influences, group_of_bone: &[Option<u32>]) -> Arc<OrderedSkin> {
    let last = influences.memo().get_or_init(LastOrdered::default);
    let mut kept = last
        .0
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    if let Some(ordered) = kept.as_ref().filter(|o| o.group_of_bone == group_of_bone) {
        return ordered.skin.clone();
    }
    let skin = Arc::new(OrderedSkin {
        skin: Arc::new(order_skin(influences.list().iter().filter_map(|i| {
            group_of_bone[i.bone as usize].map(|g| (i.vertex, g, i.weight))
        }))),
        encoded: Default::default(),
    });
    *kept = Some(Ordered {
        group_of_bone: group_of_bone.to_vec(),
        skin: skin.clone(),
    });
    skin
}

/// The skin in G4MF order for the joint layout it was last written with.
#[derive(Default)]
struct LastOrdered(Mutex<Option<Ordered>>);

/// A blend shape's position target as written, by index width.
#[derive(Default)]
pub(crate) struct EncodedOffsets([OnceLock<(Encoded, Encoded)>; 2]);

/// The position target's indices and offsets accessors of `offsets` as `width` stores them,
/// for a mesh of `vertex_count` vertices (encoded once, kept in their memo); `None` when the
/// pairs do not make a valid target for it (the writer then reports the problem).
pub(crate) fn encoded_offsets(
    offsets: &Offsets,
    width: IndexWidth,
    vertex_count: usize,
) -> Option<Arc<EncodedOffsets>> {
    if !offsets.fits(vertex_count) {
        return None;
    }
    let encoded = offsets.memo().get_or_init(EncodedOffsets::default);
    encoded.0[width_slot(width)].get_or_init(|| {
        let indices: Vec<u32> = offsets.iter().map(|p| p.0).collect();
        let values: Vec<f32> = offsets
            .iter()
            .flat_map(|p| p.1.to_array().map(|c| c as f32))
            .collect();
        // Checked finite by `fits`.
        let values = Encoded::f32(&values).unwrap_or_else(|_| Encoded::uint(&[], width));
        (Encoded::uint(&indices, width), values)
    });
    Some(encoded)
}

impl EncodedOffsets {
    /// The indices and offsets accessors for `width` (made by [`encoded_offsets`]).
    pub(crate) fn get(&self, width: IndexWidth) -> Option<&(Encoded, Encoded)> {
        self.0[width_slot(width)].get()
    }
}
