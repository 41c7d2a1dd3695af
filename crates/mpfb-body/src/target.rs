//! Target files: one displacement a line, `INDEX DX DY DZ`, in `base.obj`'s frame and units.
//! Empty lines and lines starting with `#` or `"` are skipped; `.target.gz` is the same text
//! gzipped. Errors say the file and the line:column.

use location::Location;
use std::io::Read;
use std::path::Path;
use std::sync::Arc;

/// The largest target accepted, as a file and decompressed (MakeHuman's largest is about
/// 600 KB of text): a gzip bomb stops here, not at the end of memory.
pub const MAX_TARGET_BYTES: u64 = 16 << 20;

/// The most displacements one target may hold (MakeHuman's base mesh has 19,158 vertices; its
/// largest target moves about 17,000).
pub const MAX_TARGET_DELTAS: usize = 1 << 20;

/// A morph target: sparse displacements in the file's order, as two lists: the vertices
/// moved and how. The vertex list is shared (`Arc`): most of MakeHuman's targets move one of a
/// few dozen sets of vertices (348 macro targets, 82 distinct lists), so a batch holding many
/// targets keeps each list once ([`Target::share_vertices`]).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Target {
    /// The vertex each displacement moves, in the file's order.
    pub vertices: Arc<Vec<u32>>,
    /// Each displacement, `[dx, dy, dz]`, in the same order.
    pub offsets: Vec<[f32; 3]>,
}

impl Target {
    /// A target of `(vertex, [dx, dy, dz])` pairs, in order.
    pub fn new(deltas: impl IntoIterator<Item = (u32, [f32; 3])>) -> Self {
        let (vertices, offsets) = deltas.into_iter().unzip();
        Self {
            vertices: Arc::new(vertices),
            offsets,
        }
    }

    /// Its `(vertex, [dx, dy, dz])` pairs, in order.
    pub fn deltas(&self) -> impl Iterator<Item = (u32, [f32; 3])> + '_ {
        self.vertices
            .iter()
            .copied()
            .zip(self.offsets.iter().copied())
    }

    /// How many displacements it holds.
    pub fn len(&self) -> usize {
        self.offsets.len()
    }

    /// True when the target moves nothing.
    pub fn is_empty(&self) -> bool {
        self.offsets.is_empty()
    }

    /// The largest vertex index it moves.
    pub fn max_vertex(&self) -> Option<u32> {
        self.vertices.iter().copied().max()
    }

    /// Takes `list` as its vertex list when it holds the same vertices in the same order (so
    /// targets moving the same vertices share one list); true when it did.
    pub fn share_vertices(&mut self, list: &Arc<Vec<u32>>) -> bool {
        if Arc::ptr_eq(&self.vertices, list) || *self.vertices != **list {
            return false;
        }
        self.vertices = Arc::clone(list);
        true
    }
}

/// A target file could not be read: where (file, line:column) and what
/// ([`TargetErrorKind`]).
pub type TargetError = location::Located<TargetErrorKind>;

/// What is wrong with a target file.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum TargetErrorKind {
    /// The file cannot be read or decompressed (the I/O error is quoted in the message, so
    /// not also a `source`).
    #[error("cannot read the target: {0}")]
    Io(std::io::Error),
    /// The file, or its text once decompressed, is larger than [`MAX_TARGET_BYTES`].
    #[error("the target is larger than {MAX_TARGET_BYTES} bytes")]
    TooLarge,
    /// The target holds more than [`MAX_TARGET_DELTAS`] displacements.
    #[error("the target holds more than {MAX_TARGET_DELTAS} displacements")]
    TooManyDeltas,
    /// The text is not UTF-8.
    #[error("the line is not valid UTF-8")]
    NotUtf8,
    /// A line does not have four fields.
    #[error("expected `INDEX DX DY DZ`, found {0} fields")]
    Fields(usize),
    /// The index is not a non-negative integer.
    #[error("`{0}` is not a vertex index")]
    Index(String),
    /// A displacement is not a finite number.
    #[error("`{0}` is not a finite number")]
    Number(String),
}

/// Parses target text (a byte-order mark dropped; lines end in `\n`, `\r\n`, or, in a file
/// without `\n`, a lone `\r`).
pub fn parse_target(text: &[u8]) -> Result<Target, TargetError> {
    let text = text.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(text);
    let line_end = if !text.contains(&b'\n') && text.contains(&b'\r') {
        b'\r'
    } else {
        b'\n'
    };
    let (mut vertices, mut offsets) = (Vec::new(), Vec::new());
    for (n, raw) in text.split(|&b| b == line_end).enumerate() {
        let line_number = n + 1;
        let line = std::str::from_utf8(raw).map_err(|e| {
            TargetError::at(line_number, e.valid_up_to() + 1, TargetErrorKind::NotUtf8)
        })?;
        let trimmed = line.trim();
        if trimmed.is_empty() || trimmed.starts_with('#') || trimmed.starts_with('"') {
            continue;
        }
        let mut fields = [("", 0usize); 4];
        let mut count = 0;
        for (start, field) in field_offsets(line) {
            if count < 4 {
                fields[count] = (field, start);
            }
            count += 1;
        }
        if count != 4 {
            return Err(TargetError::at(
                line_number,
                1,
                TargetErrorKind::Fields(count),
            ));
        }
        let (index_text, index_at) = fields[0];
        let index: u32 = index_text.parse().map_err(|_| {
            TargetError::at(
                line_number,
                index_at + 1,
                TargetErrorKind::Index(location::text::excerpt(index_text, 40)),
            )
        })?;
        let mut delta = [0f32; 3];
        for (k, &(text, at)) in fields[1..].iter().enumerate() {
            let value: f64 = text
                .parse()
                .ok()
                .filter(|v: &f64| v.is_finite())
                .ok_or_else(|| {
                    TargetError::at(
                        line_number,
                        at + 1,
                        TargetErrorKind::Number(location::text::excerpt(text, 40)),
                    )
                })?;
            // Narrowed after the range check: 1e300 is finite as f64, infinite as f32.
            delta[k] = Some(value as f32)
                .filter(|v| v.is_finite())
                .ok_or_else(|| {
                    TargetError::at(
                        line_number,
                        at + 1,
                        TargetErrorKind::Number(location::text::excerpt(text, 40)),
                    )
                })?;
        }
        if offsets.len() == MAX_TARGET_DELTAS {
            return Err(TargetError::at(
                line_number,
                1,
                TargetErrorKind::TooManyDeltas,
            ));
        }
        vertices.push(index);
        offsets.push(delta);
    }
    Ok(Target {
        vertices: Arc::new(vertices),
        offsets,
    })
}

/// Whitespace-separated fields with their byte offsets, in one pass over the bytes.
fn field_offsets(line: &str) -> impl Iterator<Item = (usize, &str)> {
    let bytes = line.as_bytes();
    let mut at = 0;
    std::iter::from_fn(move || {
        while at < bytes.len() && bytes[at].is_ascii_whitespace() {
            at += 1;
        }
        if at == bytes.len() {
            return None;
        }
        let start = at;
        while at < bytes.len() && !bytes[at].is_ascii_whitespace() {
            at += 1;
        }
        // Fields end at ASCII whitespace, so both ends are character boundaries.
        Some((start, &line[start..at]))
    })
}

/// Reads a `.target` or `.target.gz` file, at most [`MAX_TARGET_BYTES`] as a file and as
/// text: see [`decode_target`].
pub fn read_target_file(path: &Path) -> Result<Target, TargetError> {
    decode_target(&read_target_bytes(path)?).map_err(|e| e.with_file(path))
}

/// A target file's bytes as stored (gzipped or not), at most [`MAX_TARGET_BYTES`].
pub fn read_target_bytes(path: &Path) -> Result<Vec<u8>, TargetError> {
    location::read_bounded(path, MAX_TARGET_BYTES).map_err(|e| {
        let kind = match e {
            location::ReadError::Io(e) => TargetErrorKind::Io(e),
            location::ReadError::TooLarge { .. } => TargetErrorKind::TooLarge,
        };
        TargetError::new(Location::file(path), kind)
    })
}

/// Parses a target file's bytes: gzip is recognised by its magic bytes, whatever the file's
/// name, and read whole (every member, as `gzip -d` does), at most [`MAX_TARGET_BYTES`] of text.
pub fn decode_target(bytes: &[u8]) -> Result<Target, TargetError> {
    if !bytes.starts_with(&[0x1f, 0x8b]) {
        return parse_target(bytes);
    }
    let whole = || TargetError::new(Location::default(), TargetErrorKind::TooLarge);
    let io = |e| TargetError::new(Location::default(), TargetErrorKind::Io(e));
    // Member after member, as `gzip -d` reads them; zero bytes after the last member (tape
    // padding) end the stream, as they do for gzip and Python's gzip module.
    let mut text = Vec::new();
    let mut rest = bytes;
    while !rest.iter().all(|&b| b == 0) {
        let room = (MAX_TARGET_BYTES + 1).saturating_sub(text.len() as u64);
        let mut member = flate2::bufread::GzDecoder::new(rest);
        (&mut member)
            .take(room)
            .read_to_end(&mut text)
            .map_err(io)?;
        if text.len() as u64 > MAX_TARGET_BYTES {
            return Err(whole());
        }
        let left = member.into_inner();
        if left.len() == rest.len() {
            break; // nothing consumed: cannot happen for a member that read
        }
        rest = left;
    }
    parse_target(&text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn targets_moving_the_same_vertices_share_one_list() {
        let a = Target::new([(0, [1.0; 3]), (5, [2.0; 3])]);
        let mut b = Target::new([(0, [3.0; 3]), (5, [4.0; 3])]);
        let mut c = Target::new([(5, [3.0; 3]), (0, [4.0; 3])]);
        assert!(b.share_vertices(&a.vertices));
        assert!(Arc::ptr_eq(&a.vertices, &b.vertices));
        assert_eq!(
            b.deltas().collect::<Vec<_>>(),
            [(0, [3.0; 3]), (5, [4.0; 3])]
        );
        // The same vertices in another order are another list.
        assert!(!c.share_vertices(&a.vertices));
        assert_eq!(c.max_vertex(), Some(5));
    }

    #[test]
    fn lines_numbers_and_comments() {
        let t = parse_target(b"# comment\n\"also\n\n0 .026 .154 -.166\n  12\t-0.0 1 2e-1  \n")
            .unwrap_or_default();
        assert_eq!(
            t.deltas().collect::<Vec<_>>(),
            [(0, [0.026, 0.154, -0.166]), (12, [-0.0, 1.0, 0.2])]
        );
        assert_eq!(t.max_vertex(), Some(12));
    }

    #[test]
    fn malformed_lines_are_located() {
        for (text, at, what) in [
            (&b"0 1 2\n"[..], "1:1", "found 3 fields"),
            (b"\n\nx 1 2 3", "3:1", "`x` is not a vertex index"),
            (b"-1 1 2 3", "1:1", "`-1` is not a vertex index"),
            (b"5 1 nan 3", "1:5", "`nan` is not a finite number"),
            (b"5 1 2 1e999", "1:7", "`1e999` is not a finite number"),
            (b"5 1 2 3\n\xff", "2:1", "not valid UTF-8"),
        ] {
            let err = parse_target(text)
                .err()
                .map(|e| e.to_string())
                .unwrap_or_default();
            assert!(
                err.starts_with(&format!("{at}: ")) && err.contains(what),
                "{err}"
            );
        }
    }

    #[test]
    fn hostile_numbers_and_line_ends() {
        // Finite as f64, infinite as f32: refused, and the long field is cut in the message.
        let err = parse_target(b"5 1 2 1e300").err().map(|e| e.to_string());
        assert!(err.as_deref().unwrap_or("").contains("`1e300`"), "{err:?}");
        let long = format!("5 1 2 {}", "9".repeat(5000));
        let err = parse_target(long.as_bytes()).err().map(|e| e.to_string());
        assert!(err.as_ref().is_some_and(|e| e.len() < 200), "{err:?}");
        // A byte-order mark and lone carriage returns are text as MakeHuman writes it.
        let t = parse_target(b"\xEF\xBB\xBF0 1 2 3\r1 4 5 6\r").unwrap_or_default();
        assert_eq!(
            t.deltas().collect::<Vec<_>>(),
            [(0, [1.0, 2.0, 3.0]), (1, [4.0, 5.0, 6.0])]
        );
    }

    #[test]
    fn gzip_is_read_whole_and_bounded() {
        use std::io::Write;
        let gz = |text: &[u8]| {
            let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
            e.write_all(text).unwrap();
            e.finish().unwrap()
        };
        // Two members, as `cat a.gz b.gz` makes: both are read.
        let mut two = gz(b"0 1 2 3\n");
        two.extend(gz(b"1 4 5 6\n"));
        assert_eq!(decode_target(&two).unwrap_or_default().len(), 2);
        // Zero padding after the last member is the end, not an error; other trailing bytes are.
        let mut padded = two.clone();
        padded.extend([0u8; 512]);
        assert_eq!(decode_target(&padded).unwrap_or_default().len(), 2);
        let mut junk = two.clone();
        junk.extend(b"junk");
        assert!(decode_target(&junk).is_err());
        // A bomb: 17 MiB of zeros in a few kB stops at the limit.
        let bomb = gz(&vec![b'0'; (MAX_TARGET_BYTES + (1 << 20)) as usize]);
        assert!(bomb.len() < 100_000);
        let err = decode_target(&bomb).err().map(|e| e.kind.to_string());
        assert!(
            err.as_deref().unwrap_or("").contains("larger than"),
            "{err:?}"
        );
        // More displacements than any mesh has vertices.
        let many = "0 0 0 0\n".repeat(MAX_TARGET_DELTAS + 1);
        let err = parse_target(many.as_bytes())
            .err()
            .map(|e| e.kind.to_string());
        assert!(
            err.as_deref().unwrap_or("").contains("displacements"),
            "{err:?}"
        );
    }
}
