//! `.mhclo` and `.proxy` files (one format): an asset's metadata, its scale lines, one
//! reference per asset vertex and the body vertices it hides, read as MakeHuman's
//! `shared/proxy.py` (`loadTextProxy`) reads them, but strictly.

use crate::error::{AssetError, AssetErrorKind};
use crate::line::Line;
use location::Location;
use location::text::excerpt;
use std::collections::{HashMap, HashSet};

/// The base mesh every shipped asset is made for (MakeHuman 1.x, 19158 vertices with helpers).
pub const BASEMESH: &str = "hm08";

/// At most this many reference lines (asset vertices) per file.
pub const MAX_REFERENCES: usize = 4_000_000;

/// At most this many `delete_verts` entries per file, ranges counted expanded.
pub const MAX_DELETE_VERTS: usize = 4_000_000;

/// A reference weight or offset is at most this in magnitude (shipped files stay under 5):
/// a larger one would fit an asset kilometres from the body, and from about 1e306 on its
/// position overflows to infinity.
pub const MAX_REFERENCE_VALUE: f64 = 1e4;

/// A scale line's distance is at least this (base-mesh units, decimetres; shipped files
/// stay above 0.3): the scale divides by it, so a tiny one would blow offsets up without
/// bound, to infinity from about 1e-306 down.
pub const MIN_SCALE_DISTANCE: f64 = 1e-3;

/// At most this many key lines outside the reference and delete sections (a real file has
/// a few dozen).
const MAX_KEY_LINES: usize = 100_000;

/// At most this many distinct ignored key names are listed.
const MAX_IGNORED: usize = 32;

/// A proxy or clothes file.
#[derive(Debug, Clone, PartialEq)]
pub struct ProxyFile {
    /// `name` (required): the rest of the line, words joined by one space.
    pub name: String,
    /// `uuid`.
    pub uuid: Option<String>,
    /// `tag` lines in file order, as written (MakeHuman lower-cases them).
    pub tags: Vec<String>,
    /// `description`.
    pub description: Option<String>,
    /// `version`.
    pub version: Option<String>,
    /// `basemesh`: [`BASEMESH`] when given (another base mesh is refused).
    pub basemesh: Option<String>,
    /// `obj_file` (required): the asset's mesh, relative to this file.
    pub obj_file: String,
    /// `material`: its `.mhmat`, relative to this file.
    pub material: Option<String>,
    /// `vertexboneweights_file`: the asset's own bone weights (`.mhw`), relative to this file.
    pub vertex_bone_weights_file: Option<String>,
    /// `z_depth`: draw order.
    pub z_depth: Option<i32>,
    /// `x_scale`, `y_scale`, `z_scale` by axis (0, 1, 2), whatever order the lines came in.
    pub scales: [Option<AxisScale>; 3],
    /// One reference per asset vertex, in file order.
    pub references: Vec<Reference>,
    /// Body vertices this asset hides (`delete_verts`), ascending, each once.
    pub delete_verts: Vec<u32>,
    /// Keys MakeHuman's loader ignores (or warns about) that the file used, each once, in
    /// first-seen order, at most 32 names: for a note, never for the result.
    pub ignored: Vec<String>,
    /// The 1-based line of each reference (saturating at `u32::MAX`).
    pub(crate) reference_lines: Vec<u32>,
    /// The line of each axis' scale line.
    pub(crate) scale_lines: [u32; 3],
    /// The largest `delete_verts` entry and the line it is on.
    pub(crate) delete_max: Option<(u32, u32)>,
}

/// A scale line: the asset's offsets along one axis scale by
/// `|body[v1][axis] - body[v2][axis]| / distance`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AxisScale {
    /// The first body vertex.
    pub v1: u32,
    /// The second body vertex.
    pub v2: u32,
    /// Their distance along the axis on the base mesh (finite, at least
    /// [`MIN_SCALE_DISTANCE`]).
    pub distance: f64,
}

/// Where one asset vertex sits on the body.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Reference {
    /// Exactly on this body vertex (a line with one number).
    Exact(u32),
    /// `w0*body[v0] + w1*body[v1] + w2*body[v2] + S*offset`, S the per-axis scale (a line
    /// with 9 numbers, or 6 when the offset is zero).
    Triangle {
        /// The three body vertices.
        vertices: [u32; 3],
        /// Their weights (finite, at most [`MAX_REFERENCE_VALUE`] in magnitude; usually
        /// barycentric, may be slightly negative).
        weights: [f64; 3],
        /// The offset in base-mesh units before scaling (finite, at most
        /// [`MAX_REFERENCE_VALUE`] in magnitude).
        offset: [f64; 3],
    },
}

impl ProxyFile {
    /// The 1-based line reference `index` was read from, when known.
    pub fn reference_line(&self, index: usize) -> Option<usize> {
        self.reference_lines.get(index).map(|&l| l as usize)
    }

    /// The 1-based line of the scale line for `axis` (0, 1, 2), when there is one.
    pub fn scale_line(&self, axis: usize) -> Option<usize> {
        let line = *self.scale_lines.get(axis)?;
        (line > 0 && self.scales[axis].is_some()).then_some(line as usize)
    }
}

/// Where the data lines that are not `key value` lines go.
#[derive(Clone, Copy, PartialEq)]
enum Section {
    None,
    Verts,
    DeleteVerts,
    Weights,
}

/// Keys MakeHuman 1.x recognises and then ignores or warns about (license comments, mesh
/// settings for its own viewer, deprecated Blender-era keys).
const IGNORED_KEYS: [&str; 18] = [
    "author",
    "license",
    "homepage",
    "max_pole",
    "special_pose",
    "backface_culling",
    "transparent",
    "uvLayer",
    "shapekey",
    "subsurf",
    "shrinkwrap",
    "solidify",
    "objfile_layer",
    "uvtex_layer",
    "use_projection",
    "mask_uv_layer",
    "texture_uv_layer",
    "delete",
];

/// MakeHuman's shear keys: an affine box fit no shipped asset uses.
const SHEAR_KEYS: [&str; 9] = [
    "shear_x",
    "shear_y",
    "shear_z",
    "l_shear_x",
    "l_shear_y",
    "l_shear_z",
    "r_shear_x",
    "r_shear_y",
    "r_shear_z",
];

fn saturating_line(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

/// What only fitting files read from a line: vertex indices, bounded reference values.
impl Line<'_> {
    fn index(&self, word: &str) -> Result<u32, AssetError> {
        word.parse::<u32>().map_err(|_| {
            self.err(
                word,
                AssetErrorKind::Malformed(format!(
                    "`{}` is not a vertex index (a whole number from 0 to {})",
                    excerpt(word, 24),
                    u32::MAX
                )),
            )
        })
    }

    /// A finite number at most [`MAX_REFERENCE_VALUE`] in magnitude (a reference's `what`).
    fn reference_value(&self, word: &str, what: &str) -> Result<f64, AssetError> {
        let value = self.finite(word)?;
        if value.abs() > MAX_REFERENCE_VALUE {
            return Err(self.err(
                word,
                AssetErrorKind::OutOfRange(format!(
                    "the {what} {} is outside [-{MAX_REFERENCE_VALUE}, {MAX_REFERENCE_VALUE}]",
                    excerpt(word, 24)
                )),
            ));
        }
        Ok(value)
    }

    /// The rest of the line, its words joined by one space (as MakeHuman does), not empty.
    fn joined(&self, key: &str, args: &[&str]) -> Result<String, AssetError> {
        if args.is_empty() {
            return Err(self.whole(AssetErrorKind::Malformed(format!("`{key}` needs a value"))));
        }
        Ok(args.join(" "))
    }
}

/// The parser's state between lines.
struct Parser {
    file: ProxyFile,
    section: Section,
    seen: HashMap<&'static str, usize>,
    verts_seen: bool,
    ignored_index: HashSet<String>,
    delete_ranges: Vec<(u32, u32)>,
    delete_total: usize,
    key_lines: usize,
}

/// Single-valued keys (a second one is an error).
const SINGLE_KEYS: [&str; 13] = [
    "name",
    "uuid",
    "description",
    "version",
    "basemesh",
    "obj_file",
    "material",
    "vertexboneweights_file",
    "z_depth",
    "x_scale",
    "y_scale",
    "z_scale",
    "verts",
];

impl Parser {
    fn new() -> Self {
        Self {
            file: ProxyFile {
                name: String::new(),
                uuid: None,
                tags: Vec::new(),
                description: None,
                version: None,
                basemesh: None,
                obj_file: String::new(),
                material: None,
                vertex_bone_weights_file: None,
                z_depth: None,
                scales: [None; 3],
                references: Vec::new(),
                delete_verts: Vec::new(),
                ignored: Vec::new(),
                reference_lines: Vec::new(),
                scale_lines: [0; 3],
                delete_max: None,
            },
            section: Section::None,
            seen: HashMap::new(),
            verts_seen: false,
            ignored_index: HashSet::new(),
            delete_ranges: Vec::new(),
            delete_total: 0,
            key_lines: 0,
        }
    }

    fn note_ignored(&mut self, key: &str) {
        if self.ignored_index.len() < MAX_IGNORED && !self.ignored_index.contains(key) {
            self.ignored_index.insert(key.to_owned());
            self.file.ignored.push(excerpt(key, 40));
        }
    }

    /// Handles a line whose first word is a key. Returns false when it is not one MakeHuman
    /// recognises.
    fn key_line(&mut self, w: &Line<'_>, key: &str, args: &[&str]) -> Result<bool, AssetError> {
        let n = w.n;
        if let Some(&single) = SINGLE_KEYS.iter().find(|k| **k == key) {
            if let Some(&first) = self.seen.get(single) {
                return Err(AssetError::at(
                    n,
                    1,
                    AssetErrorKind::Repeated {
                        key: single.to_owned(),
                        first,
                    },
                ));
            }
            self.seen.insert(single, n);
        }
        match key {
            "name" => self.file.name = w.joined(key, args)?,
            "uuid" => self.file.uuid = Some(w.joined(key, args)?),
            "description" => self.file.description = Some(w.joined(key, args)?),
            "version" => self.file.version = Some(w.joined(key, args)?),
            "tag" => self.file.tags.push(w.joined(key, args)?),
            "basemesh" => {
                let mesh = w.single(key, args, "hm08")?;
                if mesh != BASEMESH {
                    return Err(w.err(
                        mesh,
                        AssetErrorKind::Unsupported(format!(
                            "the asset is made for base mesh `{}`; only `{BASEMESH}` is supported",
                            excerpt(mesh, 24)
                        )),
                    ));
                }
                self.file.basemesh = Some(mesh.to_owned());
            }
            "obj_file" => self.file.obj_file = w.single(key, args, "FILE.obj")?.to_owned(),
            "material" => {
                self.file.material = Some(w.single(key, args, "FILE.mhmat")?.to_owned());
            }
            "vertexboneweights_file" => {
                self.file.vertex_bone_weights_file =
                    Some(w.single(key, args, "FILE.mhw")?.to_owned());
            }
            "z_depth" => {
                let word = w.single(key, args, "N")?;
                let depth = word.parse::<i32>().map_err(|_| {
                    w.err(
                        word,
                        AssetErrorKind::Malformed(format!(
                            "`{}` is not a whole number",
                            excerpt(word, 24)
                        )),
                    )
                })?;
                self.file.z_depth = Some(depth);
            }
            "x_scale" | "y_scale" | "z_scale" => {
                let axis = match key {
                    "x_scale" => 0,
                    "y_scale" => 1,
                    _ => 2,
                };
                let [v1, v2, d] = args else {
                    return Err(AssetError::at(
                        n,
                        1,
                        AssetErrorKind::Malformed(format!("expected `{key} V1 V2 DISTANCE`")),
                    ));
                };
                let v1 = w.index(v1)?;
                let v2 = w.index(v2)?;
                let distance = w.finite(d)?;
                if distance <= 0.0 {
                    return Err(w.err(
                        d,
                        AssetErrorKind::OutOfRange(format!(
                            "the scale distance {} is not positive",
                            excerpt(d, 24)
                        )),
                    ));
                }
                if distance < MIN_SCALE_DISTANCE {
                    return Err(w.err(
                        d,
                        AssetErrorKind::OutOfRange(format!(
                            "the scale distance {} is below {MIN_SCALE_DISTANCE}",
                            excerpt(d, 24)
                        )),
                    ));
                }
                self.file.scales[axis] = Some(AxisScale { v1, v2, distance });
                self.file.scale_lines[axis] = saturating_line(n);
            }
            "verts" => {
                if !matches!(args, [] | ["0"]) {
                    return Err(AssetError::at(
                        n,
                        1,
                        AssetErrorKind::Malformed("expected `verts 0`".into()),
                    ));
                }
                self.verts_seen = true;
                self.section = Section::Verts;
            }
            "delete_verts" => {
                if !args.is_empty() {
                    return Err(AssetError::at(
                        n,
                        1,
                        AssetErrorKind::Malformed(
                            "expected `delete_verts` alone, the vertices on the lines after it"
                                .into(),
                        ),
                    ));
                }
                self.section = Section::DeleteVerts;
            }
            "weights" => {
                // MakeHuman reads `weights GROUP` and `v w` lines into a table it never
                // uses for fitting or skinning.
                self.note_ignored(key);
                self.section = Section::Weights;
            }
            _ if SHEAR_KEYS.contains(&key) => {
                return Err(AssetError::at(
                    n,
                    1,
                    AssetErrorKind::Unsupported(format!(
                        "`{key}`: shear fitting is not supported (only `x_scale`, `y_scale`, `z_scale`)"
                    )),
                ));
            }
            _ if IGNORED_KEYS.contains(&key) => self.note_ignored(key),
            _ => return Ok(false),
        }
        Ok(true)
    }

    fn reference_line(&mut self, w: &Line<'_>, words: &[&str]) -> Result<(), AssetError> {
        if self.file.references.len() >= MAX_REFERENCES {
            return Err(AssetError::at(
                w.n,
                1,
                AssetErrorKind::TooLarge(format!("more than {MAX_REFERENCES} reference lines")),
            ));
        }
        let reference = match words {
            [v] => Reference::Exact(w.index(v)?),
            [v0, v1, v2, w0, w1, w2, rest @ ..] if matches!(rest.len(), 0 | 3) => {
                let vertices = [w.index(v0)?, w.index(v1)?, w.index(v2)?];
                let weight = |word| w.reference_value(word, "weight");
                let weights = [weight(w0)?, weight(w1)?, weight(w2)?];
                let offset = match rest {
                    [d0, d1, d2] => {
                        let offset = |word| w.reference_value(word, "offset");
                        [offset(d0)?, offset(d1)?, offset(d2)?]
                    }
                    _ => [0.0; 3],
                };
                Reference::Triangle {
                    vertices,
                    weights,
                    offset,
                }
            }
            _ => {
                return Err(AssetError::at(
                    w.n,
                    1,
                    AssetErrorKind::Malformed(format!(
                        "a reference line has 1, 6 or 9 numbers (`V`, `V0 V1 V2 W0 W1 W2 [D0 D1 D2]`), not {}",
                        words.len()
                    )),
                ));
            }
        };
        self.file.references.push(reference);
        self.file.reference_lines.push(saturating_line(w.n));
        Ok(())
    }

    fn delete_line(&mut self, w: &Line<'_>, words: &[&str]) -> Result<(), AssetError> {
        let split = || {
            AssetErrorKind::Malformed(
                "a `delete_verts` range is written `A - B` on one line".into(),
            )
        };
        let mut i = 0;
        while let Some(&word) = words.get(i) {
            if word == "-" {
                return Err(w.err(word, split()));
            }
            let a = w.index(word)?;
            let (b, b_word, step) = match words.get(i + 1) {
                Some(&"-") => {
                    let Some(&b_word) = words.get(i + 2) else {
                        return Err(w.err(words[i + 1], split()));
                    };
                    (w.index(b_word)?, b_word, 3)
                }
                _ => (a, word, 1),
            };
            if b < a {
                return Err(w.err(
                    word,
                    AssetErrorKind::Malformed(format!("the range `{a} - {b}` runs backwards")),
                ));
            }
            let count = (b - a) as usize + 1;
            if count > MAX_DELETE_VERTS - self.delete_total {
                return Err(w.err(
                    b_word,
                    AssetErrorKind::TooLarge(format!(
                        "more than {MAX_DELETE_VERTS} `delete_verts` entries (ranges counted expanded)"
                    )),
                ));
            }
            self.delete_total += count;
            self.delete_ranges.push((a, b));
            if self.file.delete_max.is_none_or(|(max, _)| b > max) {
                self.file.delete_max = Some((b, saturating_line(w.n)));
            }
            i += step;
        }
        Ok(())
    }

    fn weights_line(&mut self, w: &Line<'_>, words: &[&str]) -> Result<(), AssetError> {
        let [v, weight] = words else {
            return Err(AssetError::at(
                w.n,
                1,
                AssetErrorKind::Malformed("a line after `weights` is `VERTEX WEIGHT`".into()),
            ));
        };
        w.index(v)?;
        w.finite(weight)?;
        Ok(())
    }

    fn finish(mut self) -> Result<ProxyFile, AssetError> {
        let missing = |what: &str| {
            AssetError::new(
                Location::default(),
                AssetErrorKind::Missing(what.to_owned()),
            )
        };
        if self.file.name.is_empty() {
            return Err(missing("`name`"));
        }
        if self.file.obj_file.is_empty() {
            return Err(missing("`obj_file`"));
        }
        if !self.verts_seen {
            return Err(missing(
                "`verts 0` with one reference line per asset vertex",
            ));
        }
        if self.file.references.is_empty() {
            return Err(missing("the reference lines after `verts 0`"));
        }
        let mut delete = Vec::with_capacity(self.delete_total);
        for (a, b) in self.delete_ranges {
            delete.extend(a..=b);
        }
        delete.sort_unstable();
        delete.dedup();
        self.file.delete_verts = delete;
        Ok(self.file)
    }
}

/// Parses a `.mhclo` or `.proxy` file's text (any line end; a byte-order mark is dropped).
///
/// As MakeHuman reads it: lines whose first word starts with `#` are comments, blank lines
/// are skipped, and every line is first tried as a `key value...` line, whatever section it
/// is in (so `material` may follow `verts 0`). Other lines belong to the current section:
/// reference lines after `verts 0` (1 number: exactly on that body vertex; 9 numbers:
/// `V0 V1 V2 W0 W1 W2 D0 D1 D2`; 6 numbers: the same with a zero offset), vertices after
/// `delete_verts` (numbers and inclusive `A - B` ranges, a range on one line).
///
/// Strict where MakeHuman would guess: a single-valued key given twice, a malformed number,
/// a non-finite value, a reference weight or offset beyond [`MAX_REFERENCE_VALUE`], a scale
/// distance below [`MIN_SCALE_DISTANCE`], a base mesh other than `hm08`, and shear lines (unused by shipped
/// assets) are errors. Keys MakeHuman ignores, and unknown keys outside the data sections,
/// are listed in [`ProxyFile::ignored`]. `name`, `obj_file` and at least one reference line
/// are required. At most [`MAX_REFERENCES`] references and [`MAX_DELETE_VERTS`] delete
/// entries are read.
pub fn parse_proxy(text: &str) -> Result<ProxyFile, AssetError> {
    let text = location::text::strip_bom(text);
    let mut parser = Parser::new();
    let mut words: Vec<&str> = Vec::new();
    for (n, line) in location::text::lines(text) {
        words.clear();
        words.extend(line.split_whitespace());
        let Some(&first) = words.first() else {
            continue;
        };
        if first.starts_with('#') {
            continue;
        }
        let w = Line { n, line };
        let starts_like_key = first
            .chars()
            .next()
            .is_some_and(|c| c.is_alphabetic() || c == '_');
        if starts_like_key {
            parser.key_lines += 1;
            if parser.key_lines > MAX_KEY_LINES {
                return Err(AssetError::at(
                    n,
                    1,
                    AssetErrorKind::TooLarge(format!("more than {MAX_KEY_LINES} key lines")),
                ));
            }
            if !parser.key_line(&w, first, &words[1..])? {
                // MakeHuman warns about an unknown key and goes on.
                parser.note_ignored(first);
            }
            continue;
        }
        match parser.section {
            Section::Verts => parser.reference_line(&w, &words)?,
            Section::DeleteVerts => parser.delete_line(&w, &words)?,
            Section::Weights => parser.weights_line(&w, &words)?,
            Section::None => {
                return Err(AssetError::at(
                    n,
                    1,
                    AssetErrorKind::Malformed(
                        "a line of numbers before `verts 0` or `delete_verts`".into(),
                    ),
                ));
            }
        }
    }
    parser.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    const HEAD: &str = "name shirt\nobj_file shirt.obj\n";

    fn err(text: &str) -> AssetError {
        match parse_proxy(text) {
            Ok(p) => panic!("expected an error, got {p:?}"),
            Err(e) => e,
        }
    }

    fn ok(text: &str) -> ProxyFile {
        parse_proxy(text).unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn reads_keys_scales_references_and_deletes() {
        let text = "\u{feff}# comment\r\n#no space comment\r\nuuid 1234-ab\r\nbasemesh hm08\r\n\
            tag Casual Wear\r\ntag Male\r\nname  my   shirt \r\nobj_file shirt.obj\r\n\
            description A nice shirt\r\nz_depth 50\r\nz_scale 1 2 0.5\r\nx_scale 3 4 1.25\r\n\
            verts 0\r\n  7\r\nmaterial shirt.mhmat\r\n1 2 3 0.5 0.25 0.25 0.1 -0.2 3e-2\r\n\
            4 5 6 1 0 0\r\n\r\ndelete_verts\r\n10 - 12 3\r\n11 20 - 20\r\n";
        let p = ok(text);
        assert_eq!(p.name, "my shirt");
        assert_eq!(p.uuid.as_deref(), Some("1234-ab"));
        assert_eq!(p.tags, ["Casual Wear", "Male"]);
        assert_eq!(p.description.as_deref(), Some("A nice shirt"));
        assert_eq!(p.basemesh.as_deref(), Some("hm08"));
        assert_eq!(p.obj_file, "shirt.obj");
        assert_eq!(p.material.as_deref(), Some("shirt.mhmat"));
        assert_eq!(p.z_depth, Some(50));
        assert_eq!(
            p.scales,
            [
                Some(AxisScale {
                    v1: 3,
                    v2: 4,
                    distance: 1.25
                }),
                None,
                Some(AxisScale {
                    v1: 1,
                    v2: 2,
                    distance: 0.5
                }),
            ]
        );
        assert_eq!(p.scale_line(0), Some(12));
        assert_eq!(p.scale_line(1), None);
        assert_eq!(p.scale_line(2), Some(11));
        assert_eq!(
            p.references,
            [
                Reference::Exact(7),
                Reference::Triangle {
                    vertices: [1, 2, 3],
                    weights: [0.5, 0.25, 0.25],
                    offset: [0.1, -0.2, 0.03],
                },
                Reference::Triangle {
                    vertices: [4, 5, 6],
                    weights: [1.0, 0.0, 0.0],
                    offset: [0.0; 3],
                },
            ]
        );
        assert_eq!(p.reference_line(0), Some(14));
        assert_eq!(p.reference_line(1), Some(16));
        assert_eq!(p.reference_line(2), Some(17));
        assert_eq!(p.reference_line(3), None);
        assert_eq!(p.delete_verts, [3, 10, 11, 12, 20]);
        assert_eq!(p.delete_max, Some((20, 21)));
        assert!(p.ignored.is_empty());
    }

    #[test]
    fn ignored_and_unknown_keys_are_listed_once() {
        let text = format!(
            "{HEAD}max_pole 4\nspecial_pose foo bar\nfancy_key 1\nmax_pole 5\nverts 0\n1\n\
             uvLayer 0 x.mhuv\nweights head\n1 0.5\n2 0.25\n"
        );
        let p = ok(&text);
        assert_eq!(
            p.ignored,
            [
                "max_pole",
                "special_pose",
                "fancy_key",
                "uvLayer",
                "weights"
            ]
        );
        assert_eq!(p.references, [Reference::Exact(1)]);
    }

    #[test]
    fn the_ignored_list_is_bounded() {
        let mut text = String::from(HEAD);
        for i in 0..100 {
            text.push_str(&format!("key{i} x\n"));
        }
        text.push_str("verts 0\n1\n");
        assert_eq!(ok(&text).ignored.len(), MAX_IGNORED);
    }

    #[test]
    fn repeated_single_keys_are_refused_with_both_lines() {
        for (key, line) in [
            ("name other", "name"),
            ("obj_file b.obj", "obj_file"),
            ("verts 0", "verts"),
        ] {
            let e = err(&format!("{HEAD}verts 0\n1\n{key}\n"));
            assert_eq!(
                e.kind,
                AssetErrorKind::Repeated {
                    key: line.into(),
                    first: if line == "verts" {
                        3
                    } else if line == "name" {
                        1
                    } else {
                        2
                    }
                }
            );
            assert_eq!(e.location.line_column, Some((5, 1)));
        }
        let e = err(&format!(
            "{HEAD}x_scale 1 2 1\ny_scale 1 2 1\nx_scale 1 2 1\nverts 0\n1\n"
        ));
        assert_eq!(
            e.to_string(),
            "5:1: `x_scale` is given again (first on line 3)"
        );
    }

    #[test]
    fn shear_lines_are_refused_by_name() {
        let e = err(&format!("{HEAD}l_shear_y 1 2 0.1 0.2\nverts 0\n1\n"));
        assert!(matches!(e.kind, AssetErrorKind::Unsupported(_)));
        assert_eq!(
            e.to_string(),
            "3:1: `l_shear_y`: shear fitting is not supported (only `x_scale`, `y_scale`, `z_scale`)"
        );
    }

    #[test]
    fn reference_lines_of_the_wrong_shape_are_located() {
        let e = err(&format!("{HEAD}verts 0\n1\n1 2 3 0.5 0.5\n"));
        assert_eq!(e.location.line_column, Some((5, 1)));
        assert!(e.to_string().contains("not 5"), "{e}");
        let e = err(&format!("{HEAD}verts 0\n1 2 3 0.5 0.5 0 0 nan 0\n"));
        assert_eq!(e.to_string(), "4:19: `nan` is not a finite number");
        let e = err(&format!("{HEAD}verts 0\n1 -2 3 0.5 0.5 0\n"));
        assert_eq!(e.location.line_column, Some((4, 3)));
        assert!(matches!(e.kind, AssetErrorKind::Malformed(_)));
        let e = err(&format!("{HEAD}verts 0\n4294967296\n"));
        assert_eq!(e.location.line_column, Some((4, 1)));
        let e = err(&format!("{HEAD}1 2 3\nverts 0\n1\n"));
        assert_eq!(e.location.line_column, Some((3, 1)));
    }

    #[test]
    fn delete_ranges_expand_and_misuse_is_refused() {
        let p = ok(&format!(
            "{HEAD}delete_verts\n10 - 12\n5\n12 - 13 1\nverts 0\n1\n"
        ));
        assert_eq!(p.delete_verts, [1, 5, 10, 11, 12, 13]);
        let e = err(&format!("{HEAD}verts 0\n1\ndelete_verts\n10-12\n"));
        assert_eq!(e.location.line_column, Some((6, 1)));
        assert!(
            e.to_string().contains("`10-12` is not a vertex index"),
            "{e}"
        );
        let e = err(&format!("{HEAD}verts 0\n1\ndelete_verts\n1 10 -\n12\n"));
        assert_eq!(e.location.line_column, Some((6, 6)));
        let e = err(&format!("{HEAD}verts 0\n1\ndelete_verts\n10\n- 12\n"));
        assert_eq!(e.location.line_column, Some((7, 1)));
        let e = err(&format!("{HEAD}verts 0\n1\ndelete_verts\n12 - 10\n"));
        assert_eq!(e.to_string(), "6:1: the range `12 - 10` runs backwards");
    }

    #[test]
    fn huge_delete_ranges_are_too_large_before_any_allocation() {
        let e = err(&format!("{HEAD}verts 0\n1\ndelete_verts\n0 - 4294967295\n"));
        assert!(matches!(e.kind, AssetErrorKind::TooLarge(_)), "{e}");
        assert_eq!(e.location.line_column, Some((6, 5)));
        let e = err(&format!(
            "{HEAD}verts 0\n1\ndelete_verts\n0 - 3999999\n5000000\n"
        ));
        assert!(matches!(e.kind, AssetErrorKind::TooLarge(_)), "{e}");
        assert_eq!(e.location.line_column, Some((7, 1)));
        let p = ok(&format!("{HEAD}verts 0\n1\ndelete_verts\n0 - 3999999\n"));
        assert_eq!(p.delete_verts.len(), MAX_DELETE_VERTS);
    }

    #[test]
    fn huge_reference_values_and_tiny_scale_distances_are_refused() {
        // Fitted, these overflowed to infinite positions (found by checking the fuzz
        // target's property by hand; kept in fixtures/fuzz-regressions/mhclo/).
        let e = err(&format!("{HEAD}verts 0\n1 2 3 1e308 1e308 0\n"));
        assert_eq!(
            e.to_string(),
            "4:7: the weight 1e308 is outside [-10000, 10000]"
        );
        assert!(matches!(e.kind, AssetErrorKind::OutOfRange(_)));
        let e = err(&format!("{HEAD}verts 0\n1 2 3 1 0 0 0 -2e4 0\n"));
        assert_eq!(
            e.to_string(),
            "4:15: the offset -2e4 is outside [-10000, 10000]"
        );
        let e = err(&format!("{HEAD}x_scale 1 2 1e-320\nverts 0\n1\n"));
        assert_eq!(
            e.to_string(),
            "3:13: the scale distance 1e-320 is below 0.001"
        );
        let p = ok(&format!(
            "{HEAD}x_scale 1 2 0.001\nverts 0\n1 2 3 1e4 -1e4 0 0 0 -10000\n"
        ));
        assert_eq!(p.scales[0].map(|s| s.distance), Some(MIN_SCALE_DISTANCE));
    }

    #[test]
    fn required_parts_are_missing() {
        let e = err("obj_file a.obj\nverts 0\n1\n");
        assert_eq!(e.to_string(), "<input>: `name` is missing");
        let e = err("name a\nverts 0\n1\n");
        assert_eq!(e.kind, AssetErrorKind::Missing("`obj_file`".into()));
        let e = err(HEAD);
        assert!(matches!(e.kind, AssetErrorKind::Missing(_)), "{e}");
        let e = err(&format!("{HEAD}verts 0\n"));
        assert_eq!(
            e.kind,
            AssetErrorKind::Missing("the reference lines after `verts 0`".into())
        );
    }

    #[test]
    fn bad_values_of_keys_are_located() {
        let e = err(&format!("{HEAD}basemesh hm09\nverts 0\n1\n"));
        assert!(matches!(e.kind, AssetErrorKind::Unsupported(_)));
        assert_eq!(e.location.line_column, Some((3, 10)));
        let e = err(&format!("{HEAD}z_depth high\nverts 0\n1\n"));
        assert_eq!(e.to_string(), "3:9: `high` is not a whole number");
        let e = err(&format!("{HEAD}y_scale 1 2 0\nverts 0\n1\n"));
        assert!(matches!(e.kind, AssetErrorKind::OutOfRange(_)));
        assert_eq!(e.location.line_column, Some((3, 13)));
        let e = err(&format!("{HEAD}y_scale 1 2\nverts 0\n1\n"));
        assert_eq!(e.to_string(), "3:1: expected `y_scale V1 V2 DISTANCE`");
        let e = err(&format!("{HEAD}obj_file\nverts 0\n1\n"));
        assert!(matches!(e.kind, AssetErrorKind::Repeated { .. }));
        let e = err("name a\nobj_file a b.obj\nverts 0\n1\n");
        assert_eq!(e.to_string(), "2:1: expected `obj_file FILE.obj`");
        let e = err(&format!("{HEAD}verts 1\n1\n"));
        assert_eq!(e.to_string(), "3:1: expected `verts 0`");
        let e = err("name\nobj_file a.obj\nverts 0\n1\n");
        assert_eq!(e.to_string(), "1:1: `name` needs a value");
    }

    #[test]
    fn old_mac_line_ends_count_lines() {
        let e = err("name a\robj_file a.obj\rverts 0\r1 2\r");
        assert_eq!(e.location.line_column, Some((4, 1)));
    }
}
