//! Reading `weights.*.json` with a typed visitor: metadata, and every `[vertex, weight]` pair
//! of every group, in file order, exactly as written.

use crate::error::{Location, WeightsError, WeightsErrorKind};
pub use crate::weights_file::{WeightGroup, WeightsFile};
use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::Value;
use std::collections::HashSet;
use std::fmt;
use std::path::Path;

/// True for MPFB mask groups (`mhmask-*`), which hide geometry and move no vertex.
pub fn is_mask_group(name: &str) -> bool {
    name.starts_with("mhmask-")
}

/// Weights files are a few MB: a larger file is not one.
pub const MAX_WEIGHTS_BYTES: u64 = 256 << 20;

/// Reads and parses a weights file.
pub fn read_weights_file(path: &Path) -> Result<WeightsFile, WeightsError> {
    let text = location::read_text_bounded(path, MAX_WEIGHTS_BYTES).map_err(|e| {
        WeightsError::new(Location::default(), WeightsErrorKind::Io(e)).with_file(path)
    })?;
    parse_weights(&text).map_err(|e| e.with_file(path))
}

/// Parses weights JSON text: files in the plain shape MPFB writes take the one-pass fast
/// path ([`crate::fast`]), everything else the typed reader ([`parse_weights_typed`]); the
/// result is the same either way.
pub fn parse_weights(text: &str) -> Result<WeightsFile, WeightsError> {
    match crate::fast::parse_plain(text) {
        Some(file) => Ok(file),
        None => parse_weights_typed(text),
    }
}

/// Parses weights JSON text with the typed serde reader alone: every shape JSON allows, and
/// every error with its position. [`parse_weights`] uses it whenever the fast path declines.
pub fn parse_weights_typed(text: &str) -> Result<WeightsFile, WeightsError> {
    let mut deserializer = serde_json::Deserializer::from_str(text);
    let file = FileSeed
        .deserialize(&mut deserializer)
        .and_then(|file| deserializer.end().map(|()| file))
        .map_err(|e| to_error(text, &e))?;
    file.ok_or_else(|| {
        WeightsError::new(
            Location::line_column(1, 1),
            WeightsErrorKind::MissingWeights,
        )
    })
}

/// Marker our visitors put in front of structured messages so we can rebuild the kind.
const DUPLICATE: &str = "\u{1}duplicate:";
const NEGATIVE: &str = "\u{1}negative:";

pub(crate) fn to_error(text: &str, err: &serde_json::Error) -> WeightsError {
    let position = Location::line_column(err.line(), err.column());
    let message = err.to_string();
    let message = match message.rfind(" at line ") {
        Some(i) => message[..i].to_owned(),
        None => message,
    };
    if let Some(key) = message.strip_prefix(DUPLICATE) {
        return WeightsError::new(
            position.clone(),
            WeightsErrorKind::DuplicateKey {
                key: key.to_owned(),
            },
        );
    }
    if let Some(rest) = message.strip_prefix(NEGATIVE) {
        let mut parts = rest.splitn(3, '\u{1}');
        let (vertex, weight, group) = (parts.next(), parts.next(), parts.next());
        return WeightsError::new(
            position.clone(),
            WeightsErrorKind::NegativeWeight {
                group: group.unwrap_or_default().to_owned(),
                vertex: vertex.and_then(|v| v.parse().ok()).unwrap_or_default(),
                weight: weight.and_then(|w| w.parse().ok()).unwrap_or(f64::NAN),
            },
        );
    }
    // serde_json rejects Python's NaN/Infinity tokens as "expected value"; say what they are.
    if let Some(token) = token_at(text, err.line(), err.column()) {
        return WeightsError::new(
            position.clone(),
            WeightsErrorKind::NonFiniteWeight { token },
        );
    }
    if message.contains("number out of range") {
        let token = number_ending_at(text, err.line(), err.column())
            .unwrap_or_else(|| "a number beyond f64".into());
        return WeightsError::new(
            position.clone(),
            WeightsErrorKind::NonFiniteWeight { token },
        );
    }
    WeightsError::new(position, WeightsErrorKind::Json(message))
}

/// The number literal that ends at (or just before) a 1-based line/column. Works on bytes:
/// serde's columns are byte offsets and may fall inside a multi-byte character.
fn number_ending_at(text: &str, line: usize, column: usize) -> Option<String> {
    let line_bytes = text.lines().nth(line.checked_sub(1)?)?.as_bytes();
    let is_number_byte = |b: u8| b.is_ascii_digit() || b"eE+-.".contains(&b);
    let mut end = column.min(line_bytes.len());
    while end > 0 && !is_number_byte(line_bytes[end - 1]) {
        end -= 1;
    }
    let mut start = end;
    while start > 0 && is_number_byte(line_bytes[start - 1]) {
        start -= 1;
    }
    (start < end).then(|| String::from_utf8_lossy(&line_bytes[start..end]).into_owned())
}

/// A serde error that [`to_error`] turns back into [`WeightsErrorKind::DuplicateKey`].
pub(crate) fn duplicate_key_error<E: de::Error>(key: &str) -> E {
    E::custom(format!("{DUPLICATE}{key}"))
}

/// The NaN/Infinity token at a 1-based line/column, if that is what stopped the parser.
/// Works on bytes, for the same reason as [`number_ending_at`].
fn token_at(text: &str, line: usize, column: usize) -> Option<String> {
    let line_bytes = text.lines().nth(line.checked_sub(1)?)?.as_bytes();
    // serde_json points at the offending character or just after it.
    let start = column.saturating_sub(2).min(line_bytes.len());
    let rest = &line_bytes[start..];
    let from = rest.iter().position(|b| b"-IN".contains(b))?;
    ["-Infinity", "Infinity", "NaN"]
        .into_iter()
        .find(|t| rest[from..].starts_with(t.as_bytes()))
        .map(str::to_owned)
}

/// The whole file; `None` when there was no `weights` key.
struct FileSeed;

impl<'de> DeserializeSeed<'de> for FileSeed {
    type Value = Option<WeightsFile>;
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for FileSeed {
    type Value = Option<WeightsFile>;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a weights object")
    }
    fn visit_map<M: MapAccess<'de>>(self, mut map: M) -> Result<Self::Value, M::Error> {
        let mut file = WeightsFile::default();
        let mut saw_weights = false;
        let mut seen = HashSet::new();
        while let Some(key) = map.next_key::<String>()? {
            if !seen.insert(key.clone()) {
                return Err(duplicate_key_error(&key));
            }
            match key.as_str() {
                "weights" => {
                    file.groups = map.next_value_seed(GroupsSeed)?;
                    saw_weights = true;
                }
                "copyright" => file.copyright = map.next_value()?,
                "description" => file.description = map.next_value()?,
                "license" => file.license = map.next_value()?,
                "name" => file.name = map.next_value()?,
                "version" => file.version = map.next_value()?,
                _ => {
                    // Free-form: read raw, so repeated keys inside are found, not last-wins.
                    let raw: Box<serde_json::value::RawValue> = map.next_value()?;
                    if let Some(d) = json_strict::first_duplicate_key(raw.get()) {
                        return Err(duplicate_key_error(&format!("{key}{}", d.pointer())));
                    }
                    let value: Value =
                        serde_json::from_str(raw.get()).map_err(de::Error::custom)?;
                    file.extra.insert(key, value);
                }
            }
        }
        Ok(saw_weights.then_some(file))
    }
}

struct GroupsSeed;

impl<'de> DeserializeSeed<'de> for GroupsSeed {
    type Value = Vec<WeightGroup>;
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for GroupsSeed {
    type Value = Vec<WeightGroup>;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an object of group name to [[vertex, weight], ...]")
    }
    fn visit_map<M: MapAccess<'de>>(self, mut map: M) -> Result<Self::Value, M::Error> {
        let mut groups = Vec::new();
        let mut seen = HashSet::new();
        // Pairs are gathered in one reused buffer and copied out at their exact size: a
        // group's length is unknown until its `]`, and growing each group's own vector
        // would copy it several times over.
        let mut scratch = Vec::new();
        while let Some(name) = map.next_key::<String>()? {
            if !seen.insert(name.clone()) {
                return Err(duplicate_key_error(&name));
            }
            scratch.clear();
            map.next_value_seed(PairsSeed {
                group: &name,
                pairs: &mut scratch,
            })?;
            groups.push(WeightGroup {
                name,
                pairs: scratch.as_slice().to_vec(),
            });
        }
        Ok(groups)
    }
}

/// A group's pairs, appended to `pairs`.
struct PairsSeed<'a> {
    group: &'a str,
    pairs: &'a mut Vec<(u32, f64)>,
}

impl<'de> DeserializeSeed<'de> for PairsSeed<'_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for PairsSeed<'_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a list of [vertex, weight] pairs")
    }
    fn visit_seq<S: SeqAccess<'de>>(self, mut seq: S) -> Result<Self::Value, S::Error> {
        while let Some((vertex, weight)) = seq.next_element_seed(PairSeed { group: self.group })? {
            self.pairs.push((vertex, weight));
        }
        Ok(())
    }
}

/// `[vertex, weight]`: exactly an unsigned integer and a non-negative number.
struct PairSeed<'a> {
    group: &'a str,
}

impl<'de> DeserializeSeed<'de> for PairSeed<'_> {
    type Value = (u32, f64);
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for PairSeed<'_> {
    type Value = (u32, f64);
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a [vertex index, weight] pair")
    }
    fn visit_seq<S: SeqAccess<'de>>(self, mut seq: S) -> Result<Self::Value, S::Error> {
        let vertex: u32 = seq
            .next_element()?
            .ok_or_else(|| de::Error::invalid_length(0, &self))?;
        let weight: f64 = seq
            .next_element()?
            .ok_or_else(|| de::Error::invalid_length(1, &self))?;
        // Checked here, so the error points at the weight itself.
        if weight < 0.0 {
            return Err(de::Error::custom(format!(
                "{NEGATIVE}{vertex}\u{1}{weight}\u{1}{}",
                self.group
            )));
        }
        if seq.next_element::<de::IgnoredAny>()?.is_some() {
            return Err(de::Error::invalid_length(3, &self));
        }
        Ok((vertex, weight))
    }
}
