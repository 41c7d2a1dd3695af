//! `json-strict`: finds repeated keys anywhere in a JSON document. JSON parsers (serde_json,
//! Python's `json`) silently keep the last of repeated keys; for hand-edited rigs and tool
//! output that hides real mistakes, so our readers refuse them.

use location::pointer_token;
use serde::Deserialize;
use serde::de::{DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use std::borrow::Cow;
use std::collections::HashSet;
use std::fmt;

/// A repeated key: the JSON pointer of the object holding it, and the key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DuplicateKey {
    /// RFC 6901 pointer of the object (empty for the top level).
    pub object: String,
    /// The repeated key.
    pub key: String,
}

impl DuplicateKey {
    /// The pointer of the repeated member itself.
    pub fn pointer(&self) -> String {
        format!("{}/{}", self.object, pointer_token(&self.key))
    }
}

/// Every repeated key in `text`, in document order. Text that is not valid JSON yields the
/// duplicates found before the syntax error (the caller's parser reports the error itself).
pub fn duplicate_keys(text: &str) -> Vec<DuplicateKey> {
    let mut de = serde_json::Deserializer::from_str(text);
    let mut found = Vec::new();
    let mut path = String::new();
    let _ = Scan {
        path: &mut path,
        found: &mut found,
    }
    .deserialize(&mut de);
    found
}

/// The first repeated key in `text`, if any.
pub fn first_duplicate_key(text: &str) -> Option<DuplicateKey> {
    duplicate_keys(text).into_iter().next()
}

/// One walk over the document. `path` is the pointer of the value being visited, one buffer
/// grown and cut back as the walk goes down and up (no string built per key).
struct Scan<'a> {
    path: &'a mut String,
    found: &'a mut Vec<DuplicateKey>,
}

impl<'de> DeserializeSeed<'de> for Scan<'_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_any(self)
    }
}

/// An object key, borrowed from the text when it has no escapes.
struct Key<'de>(Cow<'de, str>);

impl<'de> Deserialize<'de> for Key<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct KeyVisitor;
        impl<'de> Visitor<'de> for KeyVisitor {
            type Value = Key<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an object key")
            }
            fn visit_borrowed_str<E>(self, key: &'de str) -> Result<Self::Value, E> {
                Ok(Key(Cow::Borrowed(key)))
            }
            fn visit_str<E>(self, key: &str) -> Result<Self::Value, E> {
                Ok(Key(Cow::Owned(key.to_owned())))
            }
            fn visit_string<E>(self, key: String) -> Result<Self::Value, E> {
                Ok(Key(Cow::Owned(key)))
            }
        }
        deserializer.deserialize_str(KeyVisitor)
    }
}

impl<'de> Visitor<'de> for Scan<'_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_map<M: MapAccess<'de>>(self, mut map: M) -> Result<(), M::Error> {
        let mut seen: HashSet<Cow<'de, str>> = HashSet::new();
        let depth = self.path.len();
        while let Some(Key(key)) = map.next_key::<Key<'de>>()? {
            if seen.contains(&key) {
                self.found.push(DuplicateKey {
                    object: self.path.clone(),
                    key: key.clone().into_owned(),
                });
            }
            self.path.push('/');
            self.path.push_str(&pointer_token(&key));
            seen.insert(key);
            let scanned = map.next_value_seed(Scan {
                path: self.path,
                found: self.found,
            });
            self.path.truncate(depth);
            scanned?;
        }
        Ok(())
    }
    fn visit_seq<S: SeqAccess<'de>>(self, mut seq: S) -> Result<(), S::Error> {
        use std::fmt::Write;
        let depth = self.path.len();
        let mut i = 0usize;
        loop {
            let _ = write!(self.path, "/{i}");
            let scanned = seq.next_element_seed(Scan {
                path: self.path,
                found: self.found,
            });
            self.path.truncate(depth);
            if scanned?.is_none() {
                break;
            }
            i += 1;
        }
        Ok(())
    }
    fn visit_bool<E>(self, _: bool) -> Result<(), E> {
        Ok(())
    }
    fn visit_i64<E>(self, _: i64) -> Result<(), E> {
        Ok(())
    }
    fn visit_u64<E>(self, _: u64) -> Result<(), E> {
        Ok(())
    }
    fn visit_f64<E>(self, _: f64) -> Result<(), E> {
        Ok(())
    }
    fn visit_str<E>(self, _: &str) -> Result<(), E> {
        Ok(())
    }
    fn visit_unit<E>(self) -> Result<(), E> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_repeats_at_every_depth_with_pointers() {
        let found = duplicate_keys(
            r#"{"a": 1, "b": {"x": [ {"k": 1, "k": 2} ], "x": 3}, "a": 2, "c/d": {"e~": 1, "e~": 2}}"#,
        );
        let pointers: Vec<String> = found.iter().map(DuplicateKey::pointer).collect();
        assert_eq!(pointers, ["/b/x/0/k", "/b/x", "/a", "/c~1d/e~0"]);
        assert!(duplicate_keys(r#"{"a": {"a": 1}, "b": [1, {"a": 2}]}"#).is_empty());
        // Escaped keys are compared (and pointed at) by their value: "\u0061" is "a".
        let escaped =
            duplicate_keys(r#"{"x": [[], {"a": 1, "\u0061": 2}], "t\/": {"~": 0, "~": 1}}"#);
        let pointers: Vec<String> = escaped.iter().map(DuplicateKey::pointer).collect();
        assert_eq!(pointers, ["/x/1/a", "/t~1/~0"]);
        assert!(
            duplicate_keys("{\"a\": ").is_empty(),
            "invalid JSON: the parser reports it"
        );
    }
}
