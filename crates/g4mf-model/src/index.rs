//! Typed indices: an accessor index cannot be used where a node index is expected.

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;
use std::marker::PhantomData;

/// An index into one of the document's arrays; `T` names the array's item type.
pub struct Index<T> {
    value: u32,
    _marker: PhantomData<fn() -> T>,
}

impl<T> Index<T> {
    /// An index with the given value.
    pub const fn new(value: u32) -> Self {
        Self {
            value,
            _marker: PhantomData,
        }
    }

    /// The index as a number.
    pub const fn value(self) -> u32 {
        self.value
    }

    /// The index as a `usize`, for slicing.
    pub const fn get(self) -> usize {
        self.value as usize
    }
}

// Manual impls: derives would wrongly require `T` to implement these traits.
impl<T> Clone for Index<T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for Index<T> {}
impl<T> PartialEq for Index<T> {
    fn eq(&self, other: &Self) -> bool {
        self.value == other.value
    }
}
impl<T> Eq for Index<T> {}
impl<T> PartialOrd for Index<T> {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
impl<T> Ord for Index<T> {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.value.cmp(&other.value)
    }
}
impl<T> std::hash::Hash for Index<T> {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.value.hash(state);
    }
}
impl<T> fmt::Debug for Index<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "#{}", self.value)
    }
}
impl<T> fmt::Display for Index<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.value)
    }
}

impl<T> Serialize for Index<T> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_u32(self.value)
    }
}

impl<'de, T> Deserialize<'de> for Index<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        u32::deserialize(deserializer).map(Self::new)
    }
}

/// An entry of a skeleton's `joints`: a bone node, or no bone (`-1` in the file).
///
/// The spec's text allows `-1` for a joint that no bone controls while its index schema
/// forbids negative values; writers here never emit `-1` (see `spec-notes/g4mf.md`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum JointRef {
    /// The joint follows this bone node.
    Node(Index<crate::Node>),
    /// No bone controls the joint; its weights are treated as untransformed.
    Uncontrolled,
}

impl Serialize for JointRef {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            JointRef::Node(i) => serializer.serialize_i64(i64::from(i.value())),
            JointRef::Uncontrolled => serializer.serialize_i64(-1),
        }
    }
}

impl<'de> Deserialize<'de> for JointRef {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let value = i64::deserialize(deserializer)?;
        match value {
            -1 => Ok(JointRef::Uncontrolled),
            v => u32::try_from(v)
                .map(|v| JointRef::Node(Index::new(v)))
                .map_err(|_| {
                    serde::de::Error::custom(format!(
                        "joint index {v} is neither a node index nor -1"
                    ))
                }),
        }
    }
}
