//! OBJ text to an [`ObjMesh`], keeping the file's vertex numbering exactly.
//!
//! Generic loaders renumber vertices in first-use order, which silently breaks every vertex
//! index in rigs and weights; this reader never does. Supported: `v`, `vt`, `vn`, `f` in every
//! index form (`v`, `v/vt`, `v//vn`, `v/vt/vn`, negative relative indices), `g`, `o`, `usemtl`
//! and `s`; quads and n-gons. Other statements (`mtllib`, `l`, `p`, ...) are counted and
//! otherwise ignored.

use crate::error::{Location, MeshError, MeshErrorKind};
use std::path::Path;

/// Limits that keep a hostile file from exhausting memory; generous for real bodies.
#[derive(Debug, Clone, Copy)]
pub struct ObjLimits {
    /// Most bytes of OBJ text accepted.
    pub max_bytes: usize,
    /// Most corners in one face.
    pub max_face_corners: usize,
}

impl Default for ObjLimits {
    fn default() -> Self {
        Self {
            max_bytes: 1 << 30,
            max_face_corners: 1 << 16,
        }
    }
}

/// One face corner: 0-based indices into the mesh's positions, texcoords and normals.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Corner {
    /// Position index.
    pub vertex: u32,
    /// Texture-coordinate index, if given.
    pub texcoord: Option<u32>,
    /// Normal index, if given.
    pub normal: Option<u32>,
}

/// An OBJ mesh with the file's numbering. Faces are stored flat: face `f` owns
/// `corners[face_offsets[f]..face_offsets[f + 1]]`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ObjMesh {
    /// `v` positions in file order, as written (OBJ units and axes).
    pub positions: Vec<[f64; 3]>,
    /// `vt` coordinates (u, v) in file order.
    pub texcoords: Vec<[f64; 2]>,
    /// `vn` normals in file order.
    pub normals: Vec<[f64; 3]>,
    /// All face corners, face after face.
    pub corners: Vec<Corner>,
    /// Start of each face in `corners`, plus a final end offset.
    pub face_offsets: Vec<u32>,
    /// Index into `group_sets` of each face's active groups.
    pub face_group_set: Vec<u32>,
    /// Index into `materials` of each face's material, if a `usemtl` preceded it.
    pub face_material: Vec<Option<u32>>,
    /// Index into `objects` of each face's object, if an `o` preceded it.
    pub face_object: Vec<Option<u32>>,
    /// Distinct sets of group names from `g` lines (set 0 is the empty set before any `g`).
    pub group_sets: Vec<Vec<String>>,
    /// Material names from `usemtl`, in first-use order.
    pub materials: Vec<String>,
    /// Object names from `o`, in first-use order.
    pub objects: Vec<String>,
    /// Statements we do not interpret, with how often they occurred.
    pub ignored_statements: Vec<(String, usize)>,
}

impl ObjMesh {
    /// Number of faces.
    pub fn face_count(&self) -> usize {
        self.face_offsets.len().saturating_sub(1)
    }

    /// The corners of face `f`.
    pub fn face(&self, f: usize) -> &[Corner] {
        let start = self.face_offsets[f] as usize;
        let end = self.face_offsets[f + 1] as usize;
        &self.corners[start..end]
    }

    /// The group names active for face `f`.
    pub fn face_groups(&self, f: usize) -> &[String] {
        &self.group_sets[self.face_group_set[f] as usize]
    }

    /// Every group name, in first-use order.
    pub fn group_names(&self) -> Vec<&str> {
        let mut seen = indexmap::IndexSet::new();
        for set in &self.group_sets {
            for name in set {
                seen.insert(name.as_str());
            }
        }
        seen.into_iter().collect()
    }

    /// True when every corner of every face has a texture coordinate.
    pub fn all_corners_have_texcoords(&self) -> bool {
        !self.corners.is_empty() && self.corners.iter().all(|c| c.texcoord.is_some())
    }
}

/// Reads an OBJ file with default limits.
pub fn read_obj_file(path: &Path) -> Result<ObjMesh, MeshError> {
    read_obj_file_with_limits(path, ObjLimits::default())
}

/// Reads an OBJ file with explicit limits.
pub fn read_obj_file_with_limits(path: &Path, limits: ObjLimits) -> Result<ObjMesh, MeshError> {
    let io_error = |e| MeshError::new(Location::file(path), MeshErrorKind::Io(e));
    let bytes = match location::read_bounded(path, limits.max_bytes as u64) {
        Ok(bytes) => bytes,
        Err(location::ReadError::TooLarge { .. }) => {
            return Err(MeshError::at(
                1,
                1,
                MeshErrorKind::Limit {
                    what: "OBJ file size in bytes",
                    limit: limits.max_bytes,
                },
            )
            .with_file(path));
        }
        Err(location::ReadError::Io(e)) => return Err(io_error(e)),
    };
    parse_obj_with_limits(&bytes, limits).map_err(|e| e.with_file(path))
}

/// Parses OBJ bytes with default limits.
pub fn parse_obj(bytes: &[u8]) -> Result<ObjMesh, MeshError> {
    parse_obj_with_limits(bytes, ObjLimits::default())
}

/// Parses OBJ bytes with explicit limits.
pub fn parse_obj_with_limits(bytes: &[u8], limits: ObjLimits) -> Result<ObjMesh, MeshError> {
    if bytes.len() > limits.max_bytes {
        return Err(MeshError::at(
            1,
            1,
            MeshErrorKind::Limit {
                what: "OBJ size in bytes",
                limit: limits.max_bytes,
            },
        ));
    }
    let mut mesh = ObjMesh {
        face_offsets: vec![0],
        group_sets: vec![Vec::new()],
        ..ObjMesh::default()
    };
    let mut current_group_set = 0u32;
    let mut current_material: Option<u32> = None;
    let mut current_object: Option<u32> = None;
    let mut ignored: indexmap::IndexMap<String, usize> = indexmap::IndexMap::new();
    let mut face_corners: Vec<Corner> = Vec::with_capacity(8);

    // Validate UTF-8 once for the whole file (fast), then work on &str slices.
    let text = std::str::from_utf8(bytes).map_err(|e| {
        let (line, column) = line_column(bytes, e.valid_up_to());
        MeshError::at(line, column, MeshErrorKind::NotUtf8)
    })?;
    reserve(&mut mesh, bytes);
    let mut line_start = 0;
    let mut line_no = 0;
    while line_start <= text.len() {
        line_no += 1;
        // One search finds the line's end or a comment's start, whichever comes first (comments
        // are rare, so this is usually the only search on the line).
        let stop = memchr::memchr2(b'\n', b'#', &bytes[line_start..])
            .map_or(text.len(), |i| line_start + i);
        let line_end = if bytes.get(stop) == Some(&b'#') {
            memchr::memchr(b'\n', &bytes[stop..]).map_or(text.len(), |i| stop + i)
        } else {
            stop
        };
        // Strip comments and the carriage return of CRLF files.
        let content = text[line_start..stop].trim_end_matches('\r');
        line_start = line_end + 1;
        let mut tokens = Tokens::new(content);
        let Some((_, keyword)) = tokens.next() else {
            continue;
        };
        match keyword {
            "v" => {
                let p = read_floats::<3>(&mut tokens, line_no, "v")?;
                mesh.positions.push(p);
            }
            "vt" => {
                let t = read_floats::<2>(&mut tokens, line_no, "vt")?;
                mesh.texcoords.push(t);
            }
            "vn" => {
                let n = read_floats::<3>(&mut tokens, line_no, "vn")?;
                mesh.normals.push(n);
            }
            "f" => {
                face_corners.clear();
                // Corners may only name elements defined before their line.
                let counts = [
                    mesh.positions.len(),
                    mesh.texcoords.len(),
                    mesh.normals.len(),
                ];
                for (column, token) in tokens.by_ref() {
                    if face_corners.len() >= limits.max_face_corners {
                        return Err(MeshError::at(
                            line_no,
                            column,
                            MeshErrorKind::Limit {
                                what: "corners in one face",
                                limit: limits.max_face_corners,
                            },
                        ));
                    }
                    let corner = match corner_fast(token.as_bytes(), counts) {
                        Some(corner) => corner,
                        None => parse_corner(token, counts, line_no, column)?,
                    };
                    face_corners.push(corner);
                }
                if face_corners.len() < 3 {
                    return Err(MeshError::at(
                        line_no,
                        1,
                        MeshErrorKind::TooFewValues {
                            keyword: "f",
                            needed: 3,
                            found: face_corners.len(),
                        },
                    ));
                }
                mesh.corners.extend_from_slice(&face_corners);
                let end = u32::try_from(mesh.corners.len()).map_err(|_| {
                    MeshError::at(
                        line_no,
                        1,
                        MeshErrorKind::Limit {
                            what: "face corners in the file",
                            limit: u32::MAX as usize,
                        },
                    )
                })?;
                mesh.face_offsets.push(end);
                mesh.face_group_set.push(current_group_set);
                mesh.face_material.push(current_material);
                mesh.face_object.push(current_object);
            }
            "g" => {
                let names: Vec<String> = tokens.map(|(_, t)| t.to_owned()).collect();
                current_group_set = match mesh.group_sets.iter().position(|s| *s == names) {
                    Some(i) => i as u32,
                    None => {
                        mesh.group_sets.push(names);
                        (mesh.group_sets.len() - 1) as u32
                    }
                };
            }
            "usemtl" => {
                let name = rest_of_line(content, keyword);
                current_material = Some(intern(&mut mesh.materials, name));
            }
            "o" => {
                let name = rest_of_line(content, keyword);
                current_object = Some(intern(&mut mesh.objects, name));
            }
            // Smoothing groups carry no data G4MF keeps (normals are not written from them).
            "s" => {}
            other => *ignored.entry(other.to_owned()).or_default() += 1,
        }
    }
    mesh.ignored_statements = ignored.into_iter().collect();
    Ok(mesh)
}

/// Sizes the mesh's arrays from a count of `v`, `vt`, `vn` and `f` lines (one quick scan),
/// so parsing never regrows and copies them; faces are assumed quads (corners beyond grow).
/// Counts are of lines, at most the file's length, so a hostile file cannot inflate them.
fn reserve(mesh: &mut ObjMesh, bytes: &[u8]) {
    let (mut v, mut vt, mut vn, mut f) = (0usize, 0usize, 0usize, 0usize);
    let mut count = |line: &[u8]| match line {
        [b'v', b' ' | b'\t', ..] => v += 1,
        [b'v', b't', b' ' | b'\t', ..] => vt += 1,
        [b'v', b'n', b' ' | b'\t', ..] => vn += 1,
        [b'f', b' ' | b'\t', ..] => f += 1,
        _ => {}
    };
    count(bytes);
    for newline in memchr::memchr_iter(b'\n', bytes) {
        count(&bytes[newline + 1..]);
    }
    mesh.positions.reserve_exact(v);
    mesh.texcoords.reserve_exact(vt);
    mesh.normals.reserve_exact(vn);
    mesh.corners.reserve(f * 4);
    mesh.face_offsets.reserve_exact(f);
    mesh.face_group_set.reserve_exact(f);
    mesh.face_material.reserve_exact(f);
    mesh.face_object.reserve_exact(f);
}

/// 1-based line and column of a byte offset.
fn line_column(bytes: &[u8], offset: usize) -> (usize, usize) {
    let before = &bytes[..offset.min(bytes.len())];
    let line = memchr::memchr_iter(b'\n', before).count() + 1;
    let start = memchr::memrchr(b'\n', before).map_or(0, |i| i + 1);
    (line, offset - start + 1)
}

fn rest_of_line<'a>(content: &'a str, keyword: &str) -> &'a str {
    content.trim_start()[keyword.len()..].trim()
}

fn intern(names: &mut Vec<String>, name: &str) -> u32 {
    match names.iter().position(|n| n == name) {
        Some(i) => i as u32,
        None => {
            names.push(name.to_owned());
            (names.len() - 1) as u32
        }
    }
}

/// Whitespace-separated tokens with their 1-based byte column.
struct Tokens<'a> {
    text: &'a str,
    position: usize,
}

impl<'a> Tokens<'a> {
    fn new(text: &'a str) -> Self {
        Self { text, position: 0 }
    }
}

impl<'a> Iterator for Tokens<'a> {
    type Item = (usize, &'a str);
    fn next(&mut self) -> Option<Self::Item> {
        let bytes = self.text.as_bytes();
        let mut start = self.position;
        while start < bytes.len() && bytes[start].is_ascii_whitespace() {
            start += 1;
        }
        if start >= bytes.len() {
            self.position = start;
            return None;
        }
        let mut end = start;
        while end < bytes.len() && !bytes[end].is_ascii_whitespace() {
            end += 1;
        }
        self.position = end;
        Some((start + 1, &self.text[start..end]))
    }
}

#[inline(always)]
fn read_floats<const N: usize>(
    tokens: &mut Tokens<'_>,
    line: usize,
    keyword: &'static str,
) -> Result<[f64; N], MeshError> {
    let mut out = [0.0; N];
    for (i, slot) in out.iter_mut().enumerate() {
        let (column, token) = tokens.next().ok_or_else(|| {
            MeshError::at(
                line,
                1,
                MeshErrorKind::TooFewValues {
                    keyword,
                    needed: N,
                    found: i,
                },
            )
        })?;
        let value: f64 = parse_decimal(token)
            .map_or_else(|| token.parse(), Ok)
            .map_err(|_| {
                MeshError::at(
                    line,
                    column,
                    MeshErrorKind::BadNumber {
                        text: location::text::excerpt(token, 40),
                        expected: "a decimal number",
                    },
                )
            })?;
        // Written as f32 in the end: a value finite as f64 but not as f32 (1e300) is refused
        // here, where its line is known, not as an infinity in the output.
        if !value.is_finite() || !(value as f32).is_finite() {
            return Err(MeshError::at(
                line,
                column,
                MeshErrorKind::NonFinite {
                    text: location::text::excerpt(token, 40),
                },
            ));
        }
        *slot = value;
    }
    // Extra values (a `w` weight, `vt` depth, vertex colours) are allowed and ignored.
    Ok(out)
}

/// The corner a token names when it is well formed and in range, by the same forms and
/// rules as [`parse_corner`]; `None` otherwise, and `parse_corner` then says what is wrong.
/// No error is built on the way: this is the hot path of a large OBJ.
#[inline(always)]
fn corner_fast(token: &[u8], counts: [usize; 3]) -> Option<Corner> {
    let mut parts = token.split(|&b| b == b'/');
    let (v, vt, vn) = (parts.next()?, parts.next(), parts.next());
    if parts.next().is_some() {
        return None;
    }
    let resolve = |text: &[u8], count: usize| resolve_index(parse_index(text)?, count);
    let vertex = resolve(v, counts[0])?;
    let texcoord = match vt {
        None => None,
        Some([]) if vn.is_some() => None, // `v//vn`
        Some(t) => Some(resolve(t, counts[1])?),
    };
    let normal = match vn {
        None => None,
        Some(n) => Some(resolve(n, counts[2])?),
    };
    Some(Corner {
        vertex,
        texcoord,
        normal,
    })
}

/// A parsed index made zero-based against `count` elements so far: positive indices count
/// from 1, negative ones back from the latest element; `None` when out of range.
#[inline(always)]
fn resolve_index(index: i64, count: usize) -> Option<u32> {
    let zero_based = match index {
        0 => return None,
        i if i > 0 => i - 1,
        i => count as i64 + i,
    };
    if zero_based < 0 || zero_based >= count as i64 {
        return None;
    }
    u32::try_from(zero_based).ok()
}

#[cold]
fn parse_corner(
    token: &str,
    counts: [usize; 3],
    line: usize,
    column: usize,
) -> Result<Corner, MeshError> {
    let bad = || {
        MeshError::at(
            line,
            column,
            MeshErrorKind::BadCorner {
                text: token.to_owned(),
            },
        )
    };
    let bytes = token.as_bytes();
    // Corner tokens are a few bytes long: a plain scan beats memchr's set-up cost here.
    let first_slash = bytes.iter().position(|&b| b == b'/');
    let (v, rest) = match first_slash {
        Some(i) => (&token[..i], Some(&token[i + 1..])),
        None => (token, None),
    };
    let (vt, vn) = match rest {
        None => (None, None),
        Some(rest) => match rest.bytes().position(|b| b == b'/') {
            Some(i) => (Some(&rest[..i]), Some(&rest[i + 1..])),
            None => (Some(rest), None),
        },
    };
    if v.is_empty() || vn.is_some_and(|n| n.contains('/')) {
        return Err(bad());
    }
    let resolve = |text: &str, what: &'static str, count: usize| -> Result<u32, MeshError> {
        let index = parse_index(text.as_bytes()).ok_or_else(|| {
            MeshError::at(
                line,
                column,
                MeshErrorKind::BadNumber {
                    text: text.to_owned(),
                    expected: "an integer index",
                },
            )
        })?;
        let out_of_range = || {
            MeshError::at(
                line,
                column,
                MeshErrorKind::IndexOutOfRange { what, index, count },
            )
        };
        resolve_index(index, count).ok_or_else(out_of_range)
    };
    let vertex = resolve(v, "vertex", counts[0])?;
    let texcoord = match vt {
        Some(t) if !t.is_empty() => Some(resolve(t, "texture coordinate", counts[1])?),
        Some(_) if vn.is_none() => return Err(bad()), // "v/" is not a form
        _ => None,
    };
    let normal = match vn {
        Some(n) if !n.is_empty() => Some(resolve(n, "normal", counts[2])?),
        Some(_) => return Err(bad()),
        None => None,
    };
    Ok(Corner {
        vertex,
        texcoord,
        normal,
    })
}

/// Exact fast path for plain decimals (`-0.3492`): with at most 15 significant digits the
/// digits form an integer below 2^53 and 10^k (k <= 22) is exact, so one IEEE division gives
/// the correctly rounded value, the same bits `str::parse` returns (Clinger's fast path).
/// Anything else (exponents, long mantissas, `inf`) returns `None` for the general parser.
fn parse_decimal(token: &str) -> Option<f64> {
    const POW10: [f64; 23] = [
        1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16,
        1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
    ];
    let bytes = token.as_bytes();
    let (negative, digits) = match bytes.first()? {
        b'-' => (true, &bytes[1..]),
        b'+' => (false, &bytes[1..]),
        _ => (false, bytes),
    };
    let mut mantissa: u64 = 0;
    let mut count = 0usize;
    let mut fraction: Option<usize> = None;
    for &b in digits {
        match b {
            b'0'..=b'9' => {
                mantissa = mantissa * 10 + u64::from(b - b'0');
                count += 1;
                if let Some(f) = fraction.as_mut() {
                    *f += 1;
                }
                if count > 15 {
                    return None;
                }
            }
            b'.' if fraction.is_none() => fraction = Some(0),
            _ => return None,
        }
    }
    if count == 0 {
        return None;
    }
    let value = mantissa as f64 / POW10[fraction.unwrap_or(0)];
    Some(if negative { -value } else { value })
}

/// A decimal integer with an optional sign; `None` on anything else or on overflow.
fn parse_index(bytes: &[u8]) -> Option<i64> {
    let (negative, digits) = match bytes.first()? {
        b'-' => (true, &bytes[1..]),
        b'+' => (false, &bytes[1..]),
        _ => (false, bytes),
    };
    if digits.is_empty() || digits.len() > 18 {
        return None;
    }
    let mut value: i64 = 0;
    for &b in digits {
        if !b.is_ascii_digit() {
            return None;
        }
        value = value * 10 + i64::from(b - b'0');
    }
    Some(if negative { -value } else { value })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_decimal_fast_path_matches_the_standard_parser_bit_for_bit() {
        for text in [
            "0",
            "-0",
            "1",
            "-0.3492",
            "7.3299",
            "1.4076",
            "0.1",
            "123456789.012345",
            "-.5",
            "5.",
            "0.0000001",
            "999999999999999",
        ] {
            let fast = parse_decimal(text).unwrap();
            assert_eq!(
                fast.to_bits(),
                text.parse::<f64>().unwrap().to_bits(),
                "{text}"
            );
        }
        for text in [
            "1e5",
            "1234567890123456",
            "inf",
            "nan",
            ".",
            "-",
            "1.2.3",
            "",
            "0x10",
        ] {
            assert!(parse_decimal(text).is_none(), "{text}");
        }
        // Every 4-decimal value in a range, as base.obj writes them.
        for i in -200_000i32..200_000 {
            let text = format!("{:.4}", f64::from(i) / 10_000.0);
            assert_eq!(
                parse_decimal(&text).unwrap().to_bits(),
                text.parse::<f64>().unwrap().to_bits(),
                "{text}"
            );
        }
    }

    #[test]
    fn comments_and_line_ends_end_content_where_they_start() {
        let text = "# header\r\nv 1 2 3# trailing\r\nv 4 5 6\nvt 0.5 0.25 #uv\n\
                    g body # group\nusemtl skin#m\no thing\r\n#\nf 1/1 2/1 1/1#face\n\
                    weird 1\nf 2 1 2 # last, no newline";
        let mesh = parse_obj(text.as_bytes()).expect("valid");
        assert_eq!(mesh.positions, vec![[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]);
        assert_eq!(mesh.texcoords, vec![[0.5, 0.25]]);
        assert_eq!(mesh.face_count(), 2);
        assert_eq!(mesh.face_offsets, vec![0, 3, 6]);
        assert_eq!(mesh.group_sets[1], vec!["body".to_owned()]);
        assert_eq!(mesh.materials, vec!["skin".to_owned()]);
        assert_eq!(mesh.objects, vec!["thing".to_owned()]);
        assert_eq!(mesh.ignored_statements, vec![("weird".to_owned(), 1)]);
        // Errors count comment lines and point into the content's columns.
        let err = parse_obj(b"# one\n#two\r\nv 1 2 x # three\n").expect_err("bad number");
        assert_eq!(err.location.to_string(), "3:7");
        let err = parse_obj(b"v 1 2 3\nf 1 1 #2 1\n").expect_err("too few corners");
        assert!(
            matches!(err.kind, MeshErrorKind::TooFewValues { found: 2, .. }),
            "{err}"
        );
    }

    #[test]
    fn the_fast_corner_path_answers_exactly_where_the_full_one_succeeds() {
        // Every token of up to five characters from an alphabet of digits, signs, slashes and
        // junk, against small counts: the fast path gives the full parser's corner, and
        // `None` exactly where the full parser reports an error.
        let counts = [12, 3, 2];
        let alphabet = b"01239-+/x";
        let mut checked = 0;
        for length in 1..=5u32 {
            for mut n in 0..alphabet.len().pow(length) {
                let mut token = Vec::new();
                for _ in 0..length {
                    token.push(alphabet[n % alphabet.len()]);
                    n /= alphabet.len();
                }
                let text = std::str::from_utf8(&token).expect("ascii");
                let full = parse_corner(text, counts, 1, 1).ok();
                assert_eq!(corner_fast(&token, counts), full, "{text}");
                checked += 1;
            }
        }
        assert!(checked > 60_000);
    }
}
