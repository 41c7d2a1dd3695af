//! What writing derives from a mesh's faces and from a skin's influences alone, made on the
//! first write and kept with them: [`Surfaces`] keeps each surface's simplexes, texture-map
//! corners, polytopes and used vertices; [`Influences`] keeps its validation and its G4MF
//! order for the joint layout it was last written with. Both are handles to shared data, so a
//! caller that writes many meshes with the same faces and skin (a population's bodies) passes
//! the same handle each time and the work is done once; the bytes are the same either way.

use crate::buffer::{Encoded, IndexWidth};
use crate::character::{Influence, SurfaceSpec, WrittenSkin, order_skin};
use crate::error::WriteError;
use glam::DVec3;
use std::sync::{Arc, Mutex, OnceLock};

/// A mesh's surfaces: faces sharing a material (see [`SurfaceSpec`]). Cloning shares them.
#[derive(Clone)]
pub struct Surfaces(Arc<SurfacesInner>);

struct SurfacesInner {
    specs: Vec<SurfaceSpec>,
    prepared: OnceLock<Vec<PreparedSurface>>,
}

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

impl Surfaces {
    /// The surfaces `specs`.
    pub fn new(specs: Vec<SurfaceSpec>) -> Self {
        Self(Arc::new(SurfacesInner {
            specs,
            prepared: OnceLock::new(),
        }))
    }

    /// The surfaces as given.
    pub fn specs(&self) -> &[SurfaceSpec] {
        &self.0.specs
    }

    /// Each surface prepared for writing (made on first use).
    pub(crate) fn prepared(&self) -> &[PreparedSurface] {
        self.0
            .prepared
            .get_or_init(|| self.0.specs.iter().map(prepare).collect())
    }
}

impl From<Vec<SurfaceSpec>> for Surfaces {
    fn from(specs: Vec<SurfaceSpec>) -> Self {
        Self::new(specs)
    }
}

impl FromIterator<SurfaceSpec> for Surfaces {
    fn from_iter<I: IntoIterator<Item = SurfaceSpec>>(specs: I) -> Self {
        Self::new(specs.into_iter().collect())
    }
}

impl Default for Surfaces {
    fn default() -> Self {
        Self::new(Vec::new())
    }
}

impl PartialEq for Surfaces {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0) || self.specs() == other.specs()
    }
}

impl std::fmt::Debug for Surfaces {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("Surfaces").field(&self.0.specs).finish()
    }
}

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

/// A skin's influences: bones index the character's bones; any order, repeats add up.
/// Cloning shares them, with their checks and their last G4MF order.
#[derive(Clone)]
pub struct Influences(Arc<InfluencesInner>);

struct InfluencesInner {
    list: Vec<Influence>,
    checked: OnceLock<Checked>,
    ordered: Mutex<Option<Ordered>>,
}

/// What the writer checks of a skin before placing it, found once.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Checked {
    /// The largest bone index, and the first influence naming it.
    pub max_bone: Option<(u32, usize)>,
    /// The largest vertex index, and the first influence naming it.
    pub max_vertex: Option<(u32, usize)>,
    /// The first influence whose weight is not a finite non-negative number.
    pub bad_weight: Option<usize>,
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

impl Influences {
    /// The influences `list`.
    pub fn new(list: Vec<Influence>) -> Self {
        Self(Arc::new(InfluencesInner {
            list,
            checked: OnceLock::new(),
            ordered: Mutex::new(None),
        }))
    }

    /// The influences as given.
    pub fn list(&self) -> &[Influence] {
        &self.0.list
    }

    /// Their bounds and the first bad weight (found on first use).
    pub(crate) fn checked(&self) -> Checked {
        *self.0.checked.get_or_init(|| {
            let mut checked = Checked {
                max_bone: None,
                max_vertex: None,
                bad_weight: None,
            };
            for (index, influence) in self.0.list.iter().enumerate() {
                if checked.max_bone.is_none_or(|(b, _)| influence.bone > b) {
                    checked.max_bone = Some((influence.bone, index));
                }
                if checked.max_vertex.is_none_or(|(v, _)| influence.vertex > v) {
                    checked.max_vertex = Some((influence.vertex, index));
                }
                if checked.bad_weight.is_none()
                    && !(influence.weight.is_finite() && influence.weight >= 0.0)
                {
                    checked.bad_weight = Some(index);
                }
            }
            checked
        })
    }

    /// Which bones the influences name: `true` at each bone index named (those from `count`
    /// on are left out).
    pub(crate) fn bones(&self, count: usize) -> Vec<bool> {
        let mut named = vec![false; count];
        for influence in &self.0.list {
            if let Some(n) = named.get_mut(influence.bone as usize) {
                *n = true;
            }
        }
        named
    }

    /// The influences on joints (`group_of_bone`), as groups, in G4MF order ([`order_skin`]),
    /// kept for the next write with the same joints.
    pub(crate) fn ordered(&self, group_of_bone: &[Option<u32>]) -> Arc<OrderedSkin> {
        let mut kept = self
            .0
            .ordered
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(ordered) = kept.as_ref().filter(|o| o.group_of_bone == group_of_bone) {
            return ordered.skin.clone();
        }
        let skin = Arc::new(OrderedSkin {
            skin: Arc::new(order_skin(self.0.list.iter().filter_map(|i| {
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
}

impl From<Vec<Influence>> for Influences {
    fn from(list: Vec<Influence>) -> Self {
        Self::new(list)
    }
}

impl FromIterator<Influence> for Influences {
    fn from_iter<I: IntoIterator<Item = Influence>>(list: I) -> Self {
        Self::new(list.into_iter().collect())
    }
}

impl PartialEq for Influences {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0) || self.list() == other.list()
    }
}

impl std::fmt::Debug for Influences {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("Influences").field(&self.0.list).finish()
    }
}

/// A blend shape's sparse offsets, `(vertex, offset)` with vertices ascending, in metres.
/// Cloning shares them, with their position target's accessors once encoded.
#[derive(Clone)]
pub struct Offsets(Arc<OffsetsInner>);

struct OffsetsInner {
    pairs: Vec<(u32, DVec3)>,
    /// The largest vertex and whether the pairs are well formed (ascending, finite in float32).
    checked: OnceLock<(Option<u32>, bool)>,
    /// The indices and offsets accessors, by index width.
    encoded: [OnceLock<(Encoded, Encoded)>; 2],
}

impl Offsets {
    /// The offsets `pairs`.
    pub fn new(pairs: Vec<(u32, DVec3)>) -> Self {
        Self(Arc::new(OffsetsInner {
            pairs,
            checked: OnceLock::new(),
            encoded: Default::default(),
        }))
    }

    /// The position target's indices and offsets accessors as `width` stores them, for a
    /// mesh of `vertex_count` vertices; `None` when the pairs do not make a valid target for
    /// it (the writer then reports the problem).
    pub(crate) fn encoded(
        &self,
        width: IndexWidth,
        vertex_count: usize,
    ) -> Option<&(Encoded, Encoded)> {
        let pairs = &self.0.pairs;
        let (max_vertex, well_formed) = *self.0.checked.get_or_init(|| {
            let ascending = pairs.windows(2).all(|w| w[0].0 < w[1].0);
            let finite = pairs
                .iter()
                .all(|(_, o)| o.is_finite() && o.as_vec3().is_finite());
            (pairs.last().map(|p| p.0), ascending && finite)
        });
        if !well_formed || max_vertex.is_some_and(|v| v as usize >= vertex_count) {
            return None;
        }
        Some(self.0.encoded[width_slot(width)].get_or_init(|| {
            let indices: Vec<u32> = pairs.iter().map(|p| p.0).collect();
            let offsets: Vec<f32> = pairs
                .iter()
                .flat_map(|p| p.1.to_array().map(|c| c as f32))
                .collect();
            // Checked finite above.
            let offsets = Encoded::f32(&offsets).unwrap_or_else(|_| Encoded::uint(&[], width));
            (Encoded::uint(&indices, width), offsets)
        }))
    }
}

impl std::ops::Deref for Offsets {
    type Target = [(u32, DVec3)];

    fn deref(&self) -> &Self::Target {
        &self.0.pairs
    }
}

impl From<Vec<(u32, DVec3)>> for Offsets {
    fn from(pairs: Vec<(u32, DVec3)>) -> Self {
        Self::new(pairs)
    }
}

impl Default for Offsets {
    fn default() -> Self {
        Self::new(Vec::new())
    }
}

impl PartialEq for Offsets {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0) || self.0.pairs == other.0.pairs
    }
}

impl std::fmt::Debug for Offsets {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("Offsets").field(&self.0.pairs).finish()
    }
}
