//! What conversions derive from shared, unchanging values, remembered by those values'
//! identity: the bodies of a population share one rig, weights file and mesh, so the skin
//! resolved from them, the helpers extracted from the mesh's polygons and the surfaces written
//! from them are derived by the first body and shared by the rest.
//!
//! Each stage that derives something from shared values alone keeps its caches in its own
//! `Derived`, and the pipeline driver holds them all, one set per batch (or per conversion);
//! this module owns only the mechanism, no stage's types. Keys are
//! identities ([`Id`]: the address of an `Arc`'s value, held by a weak reference so no other
//! value can take that address while the key exists) plus plain values for everything else
//! the derivation reads, so a remembered result is exactly what the derivation would compute
//! again. Values behind an `Arc` never change (stages copy them on write), which is what makes
//! identity a sound key. Each cache keeps a bounded number of results and forgets those whose
//! inputs are gone.

use std::sync::{Arc, Mutex, Weak};

/// A shared value's identity as (part of) a cache key.
pub struct Id<T>(Weak<T>);

impl<T> Id<T> {
    /// The identity of `value`.
    pub fn of(value: &Arc<T>) -> Self {
        Self(Arc::downgrade(value))
    }

    /// True while the value exists (a key to a dropped value can never match again).
    pub fn alive(&self) -> bool {
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

/// A key of two shared values.
pub struct Both<A, B>(pub Id<A>, pub Id<B>);

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

/// A key of two identities and plain values; alive while both identities are.
impl<A, B, V: PartialEq> Key for (Both<A, B>, V) {
    fn alive(&self) -> bool {
        self.0.alive()
    }
}

/// A key of one shared value alone.
pub type Of<T> = (Id<T>, ());

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

    /// How many results are kept.
    #[cfg(test)]
    fn len(&self) -> usize {
        self.lock().len()
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
