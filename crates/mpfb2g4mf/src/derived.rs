//! What conversions derive from shared, unchanging values, remembered by those values'
//! identity: the bodies of a population share one rig, weights file and mesh, so the skin
//! resolved from them, the helpers extracted from the mesh's polygons and the surfaces written
//! from them are derived by the first body and shared by the rest.
//!
//! A [`Derivations`] belongs to a [`crate::inputs::Loader`] (one per batch, or per conversion),
//! and every stage that derives something from shared values alone asks it first. Keys are
//! identities ([`Id`]: the address of an `Arc`'s value, held by a weak reference so no other
//! value can take that address while the key exists) plus plain values for everything else
//! the derivation reads, so a remembered result is exactly what the derivation would compute
//! again. Values behind an `Arc` never change (stages copy them on write), which is what makes
//! identity a sound key. Each cache keeps a bounded number of results and forgets those whose
//! inputs are gone.

use crate::extras::BoneExtras;
use std::sync::{Arc, Mutex, Weak};

/// A shared value's identity as (part of) a cache key.
pub struct Id<T>(Weak<T>);

impl<T> Id<T> {
    /// The identity of `value`.
    pub fn of(value: &Arc<T>) -> Self {
        Self(Arc::downgrade(value))
    }

    /// True while the value exists (a key to a dropped value can never match again).
    fn alive(&self) -> bool {
        self.0.strong_count() > 0
    }
}

impl<T> PartialEq for Id<T> {
    fn eq(&self, other: &Self) -> bool {
        Weak::ptr_eq(&self.0, &other.0)
    }
}

impl<T> Clone for Id<T> {
    fn clone(&self) -> Self {
        Self(self.0.clone())
    }
}

impl<T> std::fmt::Debug for Id<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Id({:p})", self.0.as_ptr())
    }
}

/// A key of a [`Cache`]: equality, and whether every value it names still exists.
pub trait Key: PartialEq {
    /// True while every value the key names exists.
    fn alive(&self) -> bool;
}

impl<T> Key for Id<T> {
    fn alive(&self) -> bool {
        Id::alive(self)
    }
}

/// A key of one identity and plain values; alive while the identity is.
impl<T, V: PartialEq> Key for (Id<T>, V) {
    fn alive(&self) -> bool {
        self.0.alive()
    }
}

/// Everything the conversions of one loader derive from shared values alone.
#[derive(Default)]
pub struct Derivations {
    /// Weights resolved against a rig: the skin, the MPFB mesh extras and the warnings.
    pub(crate) skins: Cache<SkinKey, Arc<crate::stages::assemble::ResolvedSkin>>,
    /// Each bone's MPFB extras, by rig.
    pub(crate) bone_extras: Cache<Of<crate::inputs::LoadedRig>, Arc<Vec<BoneExtras>>>,
    /// Each bone's extras as JSON, by the bone extras they are made from.
    pub(crate) bone_values: Cache<Of<Vec<BoneExtras>>, Arc<Vec<Extras>>>,
    /// The polygons helper extraction keeps (`None`: the mesh has no body part).
    pub(crate) selections: Cache<ExtractionKey, Option<Arc<character::Selection>>>,
    /// Polygons, numberings, skins and blend-shape offsets of the kept vertices, by what was
    /// selected from and the selection.
    pub(crate) selected_polygons: Selected<character::Polygons>,
    pub(crate) selected_numberings: Selected<character::Numbering>,
    pub(crate) selected_skins: Selected<character::Skin>,
    pub(crate) selected_offsets: Cache<Both<Offsets, character::Selection>, Arc<Offsets>, SHAPES>,
    /// A target's offsets as a blend shape on a mesh of so many vertices.
    pub(crate) shape_offsets: Cache<(Id<mpfb_body::Target>, usize), Arc<Offsets>, SHAPES>,
    /// A shape's offsets as the writer takes them.
    pub(crate) written_offsets: Cache<Of<Offsets>, g4mf_writer::Offsets, SHAPES>,
    /// The kept face helpers' vertices no weight moves, by skin, polygons and parts.
    pub(crate) unweighted: Cache<UnweightedKey, Arc<Unweighted>>,
    /// The surfaces a mesh is written as, with their texture coordinates.
    pub(crate) surfaces: Cache<SurfacesKey, Arc<WrittenSurfaces>>,
    /// A skin's influences as the writer takes them.
    pub(crate) influences: Cache<Of<character::Skin>, g4mf_writer::Influences>,
    /// The authored pairs a skin does not carry for a mesh, by weights and numbering.
    pub(crate) uncarried: Cache<
        Both<character::AuthoredWeights, character::Numbering>,
        Arc<crate::stages::write::Uncarried>,
    >,
    /// What a worn asset's skin takes from the body's weights, by skin, asset and bones.
    pub(crate) asset_weights: Cache<AssetWeightsKey, Arc<crate::stages::wear::AssetWeights>>,
    /// Polygons given a material by part set (the index of each part set's material).
    pub(crate) dressed: Cache<(Id<character::Polygons>, Vec<u32>), Arc<character::Polygons>>,
}

/// A key of two shared values.
pub(crate) struct Both<A, B>(pub(crate) Id<A>, pub(crate) Id<B>);

impl<A, B> PartialEq for Both<A, B> {
    fn eq(&self, other: &Self) -> bool {
        self.0 == other.0 && self.1 == other.1
    }
}

impl<A, B> Key for Both<A, B> {
    fn alive(&self) -> bool {
        self.0.alive() && self.1.alive()
    }
}

/// What helper extraction reads besides the mesh: which parts it keeps, which a worn proxy
/// replaces, and the body vertices worn assets hide (when they mask the body).
#[derive(PartialEq)]
pub(crate) struct ExtractionKey {
    pub(crate) polygons: Id<character::Polygons>,
    pub(crate) numbering: Id<character::Numbering>,
    pub(crate) helpers: crate::options::Helpers,
    pub(crate) replaced_parts: Vec<&'static str>,
    pub(crate) hidden_vertices: Option<Vec<bool>>,
}

impl Key for ExtractionKey {
    fn alive(&self) -> bool {
        self.polygons.alive() && self.numbering.alive()
    }
}

/// What a selection of polygons makes of a shared value.
pub(crate) type Selected<T> = Cache<Both<T, character::Selection>, Arc<T>>;

/// What finding the unweighted helper vertices reads: the skin, the polygons, the parts.
pub(crate) type UnweightedKey = (
    Both<character::Skin, character::Polygons>,
    Vec<&'static str>,
);

/// Face helpers and their vertices no weight moves.
pub(crate) type Unweighted = Vec<(&'static str, Vec<u32>)>;

impl<A, B, V: PartialEq> Key for (Both<A, B>, V) {
    fn alive(&self) -> bool {
        self.0.alive()
    }
}

/// What a mesh's surfaces are made from: its polygons and texture coordinates, its materials'
/// names, whether surfaces are named, and whose they are.
#[derive(PartialEq)]
pub(crate) struct SurfacesKey {
    pub(crate) mesh: Both<character::Polygons, Vec<[f64; 2]>>,
    pub(crate) materials: Vec<String>,
    pub(crate) named: bool,
    pub(crate) layout: SurfaceLayout,
}

impl Key for SurfacesKey {
    fn alive(&self) -> bool {
        self.mesh.alive()
    }
}

/// How a mesh's polygons are grouped into surfaces.
#[derive(PartialEq)]
pub(crate) enum SurfaceLayout {
    /// The body's: by material, each face helper its own.
    Body,
    /// An attachment's (the asset named): by material.
    Attachment(String),
}

/// Surfaces as the writer takes them, and the texture coordinates they index.
pub(crate) type WrittenSurfaces = (g4mf_writer::Surfaces, Arc<Vec<[f64; 2]>>);

/// What a worn asset's main-rig weights read: the body's skin, the asset, and the names of
/// the skeleton's bones (custom weights name bones).
#[derive(PartialEq)]
pub(crate) struct AssetWeightsKey {
    pub(crate) skin: Option<Id<character::Skin>>,
    pub(crate) asset: Id<crate::inputs::LoadedWearable>,
    pub(crate) bones: Vec<String>,
}

impl Key for AssetWeightsKey {
    fn alive(&self) -> bool {
        self.skin.as_ref().is_none_or(Key::alive) && self.asset.alive()
    }
}

/// A blend shape's offsets: `(vertex, offset)`, vertices ascending.
pub(crate) type Offsets = Vec<(u32, glam::DVec3)>;

/// A key of one shared value alone.
pub(crate) type Of<T> = (Id<T>, ());

/// A node's `extras` as the writer takes them.
pub(crate) type Extras = Option<Arc<serde_json::Value>>;

/// What a weights file's resolution against a rig reads: the rig's bones, the file, the
/// mesh's vertex count and the bone map.
#[derive(PartialEq)]
pub(crate) struct SkinKey {
    pub(crate) rig: Id<crate::inputs::LoadedRig>,
    pub(crate) weights: Id<crate::inputs::LoadedWeights>,
    pub(crate) vertices: usize,
    pub(crate) bone_map: mpfb_weights::BoneMap,
}

impl std::fmt::Debug for Derivations {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Derivations")
            .field("skins", &self.skins.len())
            .finish_non_exhaustive()
    }
}

impl Key for SkinKey {
    fn alive(&self) -> bool {
        self.rig.alive() && self.weights.alive()
    }
}

/// Results by key, at most `CAPACITY` of them (the oldest and those whose inputs are gone are
/// forgotten first). The default, 16, serves what a batch has a few of at once (meshes, rigs,
/// outfits: each result can be megabytes); per-shape results need room for every shape.
pub struct Cache<K, V, const CAPACITY: usize = 16> {
    entries: Mutex<Vec<(K, V)>>,
}

/// Room for every blend shape of a character (face units and visemes are 67), each shape's
/// result being small.
pub const SHAPES: usize = 1024;

impl<K, V, const CAPACITY: usize> Default for Cache<K, V, CAPACITY> {
    fn default() -> Self {
        Self {
            entries: Mutex::new(Vec::new()),
        }
    }
}

impl<K: Key, V: Clone, const CAPACITY: usize> Cache<K, V, CAPACITY> {
    /// Results kept at most.
    pub const CAPACITY: usize = CAPACITY;

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<(K, V)>> {
        self.entries
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// The result for `key`, derived by `derive` on the first request. Deriving happens
    /// outside the lock (it may use rayon); when two jobs derive the same key at once, the
    /// first result stored is the one both keep, so later derivations key on one identity.
    pub fn get_or(&self, key: K, derive: impl FnOnce() -> V) -> V {
        if let Some((_, found)) = self.lock().iter().find(|(k, _)| *k == key) {
            return found.clone();
        }
        let derived = derive();
        let mut entries = self.lock();
        if let Some((_, found)) = entries.iter().find(|(k, _)| *k == key) {
            return found.clone();
        }
        entries.retain(|(k, _)| k.alive());
        if entries.len() >= Self::CAPACITY {
            entries.remove(0);
        }
        entries.push((key, derived.clone()));
        derived
    }

    /// [`Cache::get_or`] for a derivation that can fail: failures are not remembered.
    pub fn try_get_or<E>(&self, key: K, derive: impl FnOnce() -> Result<V, E>) -> Result<V, E> {
        if let Some((_, found)) = self.lock().iter().find(|(k, _)| *k == key) {
            return Ok(found.clone());
        }
        let derived = derive()?;
        Ok(self.get_or(key, || derived))
    }

    /// How many results are kept (for tests).
    pub fn len(&self) -> usize {
        self.lock().len()
    }

    /// True when no result is kept.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_are_shared_by_identity_and_forgotten_with_their_inputs() {
        let cache: Cache<(Id<Vec<u32>>, bool), Arc<usize>> = Cache::default();
        let a = Arc::new(vec![1, 2, 3]);
        let b = Arc::new(vec![1, 2, 3]);
        let mut calls = 0;
        let mut len = |v: &Arc<Vec<u32>>, flag: bool| {
            cache.get_or((Id::of(v), flag), || {
                calls += 1;
                Arc::new(v.len())
            })
        };
        let first = len(&a, true);
        assert!(Arc::ptr_eq(&first, &len(&a, true)), "the same result again");
        len(&a, false);
        // Equal contents are not the same value: identity is the key.
        len(&b, true);
        assert_eq!(calls, 3);
        drop(a);
        // The next insertion forgets the entries of the dropped value.
        let c = Arc::new(vec![]);
        cache.get_or((Id::of(&c), true), || Arc::new(0));
        assert_eq!(cache.len(), 2);
        // A failure is not remembered.
        let failed: Result<Arc<usize>, &str> = cache.try_get_or((Id::of(&c), false), || Err("no"));
        assert!(failed.is_err());
        assert_eq!(cache.len(), 2);
    }

    #[test]
    fn the_cache_keeps_at_most_its_capacity() {
        let cache: Cache<(Id<u32>, usize), usize> = Cache::default();
        let value = Arc::new(7u32);
        for i in 0..100 {
            cache.get_or((Id::of(&value), i), || i);
        }
        assert_eq!(cache.len(), 16);
        // The newest are kept.
        assert_eq!(cache.get_or((Id::of(&value), 99), || 0), 99);
    }
}
