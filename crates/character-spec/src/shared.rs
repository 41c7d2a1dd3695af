//! The spec's shared handles: [`Surfaces`] (a mesh's faces grouped by material),
//! [`Influences`] (a skin) and [`Offsets`] (a blend shape's displacements). Cloning one shares
//! it, and each keeps a [`Memo`] of what writers derive from it alone, so a caller that writes
//! many meshes with the same faces, skin and shapes (a population's bodies) passes the same
//! handles each time and each writer does its work once; the bytes are the same either way.

use crate::memo::Memo;
use crate::{Influence, SurfaceSpec};
use glam::DVec3;
use std::sync::{Arc, OnceLock};

/// A mesh's surfaces: faces sharing a material (see [`SurfaceSpec`]). Cloning shares them.
#[derive(Clone)]
pub struct Surfaces(Arc<SurfacesInner>);

struct SurfacesInner {
    specs: Vec<SurfaceSpec>,
    memo: Memo,
}

impl Surfaces {
    /// The surfaces `specs`.
    pub fn new(specs: Vec<SurfaceSpec>) -> Self {
        Self(Arc::new(SurfacesInner {
            specs,
            memo: Memo::default(),
        }))
    }

    /// The surfaces as given.
    pub fn specs(&self) -> &[SurfaceSpec] {
        &self.0.specs
    }

    /// What writers derived from these surfaces alone.
    pub fn memo(&self) -> &Memo {
        &self.0.memo
    }

    /// True when both handles share one set of surfaces.
    pub fn ptr_eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
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
        self.ptr_eq(other) || self.specs() == other.specs()
    }
}

impl std::fmt::Debug for Surfaces {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("Surfaces").field(&self.0.specs).finish()
    }
}

/// A skin's influences: bones index the character's bones; any order, repeats add up.
/// Cloning shares them, with their checks and what writers derived from them.
#[derive(Clone)]
pub struct Influences(Arc<InfluencesInner>);

struct InfluencesInner {
    list: Vec<Influence>,
    checked: OnceLock<Checked>,
    memo: Memo,
}

/// What every writer checks of a skin before placing it, found once.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Checked {
    /// The largest bone index, and the first influence naming it.
    pub max_bone: Option<(u32, usize)>,
    /// The largest vertex index, and the first influence naming it.
    pub max_vertex: Option<(u32, usize)>,
    /// The first influence whose weight is not a finite non-negative number.
    pub bad_weight: Option<usize>,
}

impl Influences {
    /// The influences `list`.
    pub fn new(list: Vec<Influence>) -> Self {
        Self(Arc::new(InfluencesInner {
            list,
            checked: OnceLock::new(),
            memo: Memo::default(),
        }))
    }

    /// The influences as given.
    pub fn list(&self) -> &[Influence] {
        &self.0.list
    }

    /// What writers derived from these influences alone.
    pub fn memo(&self) -> &Memo {
        &self.0.memo
    }

    /// Their bounds and the first bad weight (found on first use).
    pub fn checked(&self) -> Checked {
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
    pub fn bones(&self, count: usize) -> Vec<bool> {
        let mut named = vec![false; count];
        for influence in &self.0.list {
            if let Some(n) = named.get_mut(influence.bone as usize) {
                *n = true;
            }
        }
        named
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
/// Cloning shares them, with what writers derived from them.
#[derive(Clone)]
pub struct Offsets(Arc<OffsetsInner>);

struct OffsetsInner {
    pairs: Vec<(u32, DVec3)>,
    /// The largest vertex and whether the pairs are well formed (ascending, finite in float32).
    checked: OnceLock<(Option<u32>, bool)>,
    memo: Memo,
}

impl Offsets {
    /// The offsets `pairs`.
    pub fn new(pairs: Vec<(u32, DVec3)>) -> Self {
        Self(Arc::new(OffsetsInner {
            pairs,
            checked: OnceLock::new(),
            memo: Memo::default(),
        }))
    }

    /// What writers derived from these offsets alone.
    pub fn memo(&self) -> &Memo {
        &self.0.memo
    }

    /// Whether the offsets make a valid shape for a mesh of `vertex_count` vertices: vertices
    /// ascending and in range, every offset finite in float32 (checked once).
    pub fn fits(&self, vertex_count: usize) -> bool {
        let pairs = &self.0.pairs;
        let (max_vertex, well_formed) = *self.0.checked.get_or_init(|| {
            let ascending = pairs.windows(2).all(|w| w[0].0 < w[1].0);
            let finite = pairs
                .iter()
                .all(|(_, o)| o.is_finite() && o.as_vec3().is_finite());
            (pairs.last().map(|p| p.0), ascending && finite)
        });
        well_formed && max_vertex.is_none_or(|v| (v as usize) < vertex_count)
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
