//! glTF 2.0 files (`.glb`, `.gltf`) read for pictures under the rules every reader here obeys:
//! the `gltf` crate parses the JSON and the GLB chunks and checks every index; this module
//! finds the buffers and images itself (GLB `BIN` chunk, base64 data URIs, relative files
//! inside the file's folder, never a URL), checks every size against [`ReadOptions`] before
//! allocating, and reads accessors with every range checked by checked arithmetic.

use base64::Engine;
use g4mf_reader::ReadOptions;
use gltf::json;
use gltf::json::accessor::{ComponentType, Type};
use gltf::json::validation::Checked;
use location::Location;
use std::borrow::Cow;
use std::path::{Path, PathBuf};

/// A glTF file could not be read or pictured: where (a byte offset in a `.glb`, a JSON
/// pointer, or line:column of a `.gltf`'s text) and what ([`GltfErrorKind`]).
pub type GltfError = location::Located<GltfErrorKind>;

/// What is wrong with a glTF file, grouped by cause.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum GltfErrorKind {
    /// A file could not be read.
    #[error("cannot read {what}: {error}")]
    Io {
        /// Which file.
        what: String,
        /// The I/O error; quoted in the message, so not also a `source`.
        error: std::io::Error,
    },
    /// The `.glb` container is malformed.
    #[error("{0}")]
    Container(String),
    /// The JSON is malformed or does not have glTF's structure.
    #[error("{0}")]
    Json(String),
    /// The document breaks a rule of glTF (an index out of range, a node tree that is not a
    /// tree).
    #[error("{0}")]
    Invalid(String),
    /// A buffer's or an image's data cannot be found or decoded.
    #[error("{0}")]
    Buffer(String),
    /// A URI points somewhere we refuse to go.
    #[error("{0}")]
    Refused(String),
    /// An accessor's data is not where or what it says.
    #[error("{0}")]
    Accessor(String),
    /// The data contradicts itself (an index past the vertices, counts that differ).
    #[error("{0}")]
    Data(String),
    /// A size exceeds a limit of [`ReadOptions`] or of this reader.
    #[error("{what} is {size} bytes, above the limit of {limit}")]
    Limit {
        /// What was too large.
        what: String,
        /// Its size.
        size: u64,
        /// The limit.
        limit: u64,
    },
}

/// An error of `kind` at JSON pointer `pointer`.
pub(crate) fn at(pointer: impl Into<String>, kind: GltfErrorKind) -> GltfError {
    GltfError::new(Location::pointer(pointer), kind)
}

fn at_byte(offset: u64, kind: GltfErrorKind) -> GltfError {
    GltfError::new(Location::byte(offset), kind)
}

/// Most values (components) one accessor without a buffer view and without sparse values may
/// hold: its zeros come from no data, so they are bounded here rather than by the file (1 Mi,
/// a third of a million vertices). A sparse accessor's zeros (how writers store morph targets)
/// are bounded by the scene's budget instead.
pub const MAX_ZERO_FILLED: u64 = 1 << 20;

/// Most values a scene reads from all its accessors together (64 Mi): a bound on time and
/// memory however often a file instances its meshes or repeats its accessors.
pub const MAX_VALUES_READ: u64 = 1 << 26;

/// What is left of [`MAX_VALUES_READ`] for one scene.
#[derive(Debug)]
pub(crate) struct Budget {
    left: u64,
}

impl Default for Budget {
    fn default() -> Self {
        Self {
            left: MAX_VALUES_READ,
        }
    }
}

impl Budget {
    /// Takes `values` from the budget, or says at `pointer` that the file asks for too many.
    fn charge(&mut self, values: u64, pointer: &str) -> Result<(), GltfError> {
        self.left = self.left.checked_sub(values).ok_or_else(|| {
            at(
                pointer,
                GltfErrorKind::Data(format!(
                    "drawing the file reads more than {MAX_VALUES_READ} values (meshes or accessors repeated too often)"
                )),
            )
        })?;
        Ok(())
    }
}

/// An accessor's elements, `width` values each, one after the other.
#[derive(Debug, Clone, PartialEq)]
pub struct Elements<T> {
    /// The values, `count * width`.
    pub values: Vec<T>,
    /// Values per element (3 for `VEC3`, 16 for `MAT4`).
    pub width: usize,
}

impl<T> Elements<T> {
    /// How many elements.
    pub fn count(&self) -> usize {
        self.values.len().checked_div(self.width).unwrap_or(0)
    }
}

/// A glTF file read into memory: the checked document and every buffer's bytes. Images are
/// read when a picture samples them ([`GltfFile::image_bytes`]), under the same rules.
#[derive(Debug, Clone)]
pub struct GltfFile {
    /// The document; every index in it is in range (the `gltf` crate's validation).
    pub document: gltf::Document,
    /// Exactly `byteLength` bytes of each buffer, by buffer index.
    pub buffers: Vec<Vec<u8>>,
    /// The file was a `.glb`.
    pub binary: bool,
    folder: Option<PathBuf>,
    options: ReadOptions,
}

/// A data URI's payload may decode to this much more than the limit before it is refused
/// unread (base64's own rounding).
const DATA_URI_SLACK: u64 = 3;

impl GltfFile {
    /// Reads the file at `path` (at most the JSON and buffer limits together, so a `.glb`
    /// whole), choosing the container by its first bytes; errors name the file.
    pub fn read_path(path: &Path, options: &ReadOptions) -> Result<GltfFile, GltfError> {
        let limit = options
            .max_json_bytes
            .saturating_add(options.max_buffer_bytes);
        let bytes = location::read_bounded(path, limit).map_err(|e| {
            let kind = match e {
                location::ReadError::TooLarge { limit, reported } => GltfErrorKind::Limit {
                    what: "the file".into(),
                    size: reported.unwrap_or(limit.saturating_add(1)),
                    limit,
                },
                location::ReadError::Io(error) => GltfErrorKind::Io {
                    what: path.display().to_string(),
                    error,
                },
            };
            GltfError::new(Location::default(), kind).with_file(path)
        })?;
        Self::read_bytes(&bytes, path.parent(), options).map_err(|e| e.with_file(path))
    }

    /// Reads glTF bytes: a `.glb` when they start with `glTF`, else JSON text. `folder`
    /// resolves relative URIs (none are followed without it).
    pub fn read_bytes(
        bytes: &[u8],
        folder: Option<&Path>,
        options: &ReadOptions,
    ) -> Result<GltfFile, GltfError> {
        let binary = bytes.starts_with(b"glTF");
        let (json_bytes, json_offset, bin) = if binary {
            let (json, bin) = split_glb(bytes)?;
            (json, Some(20), bin)
        } else {
            (bytes, None, None)
        };
        let json_size = json_bytes.len() as u64;
        if json_size > options.max_json_bytes {
            return Err(at_byte(
                json_offset.unwrap_or(0),
                GltfErrorKind::Limit {
                    what: "the JSON".into(),
                    size: json_size,
                    limit: options.max_json_bytes,
                },
            ));
        }
        let root: json::Root = json::deserialize::from_slice(json_bytes).map_err(|e| {
            let kind = GltfErrorKind::Json(e.to_string());
            match json_offset {
                // In a .glb, where in the file: the chunk's offset plus the line's.
                Some(start) => at_byte(
                    start + offset_of(json_bytes, e.line(), e.column()) as u64,
                    kind,
                ),
                None => GltfError::at(e.line(), e.column(), kind),
            }
        })?;
        check_document(&root)?;
        let document = gltf::Document::from_json_without_validation(root);
        let mut file = GltfFile {
            document,
            buffers: Vec::new(),
            binary,
            folder: folder.map(Path::to_path_buf),
            options: *options,
        };
        file.buffers = file.load_buffers(bin)?;
        Ok(file)
    }

    /// The JSON model.
    pub fn json(&self) -> &json::Root {
        self.document.as_json()
    }

    fn load_buffers(&self, bin: Option<&[u8]>) -> Result<Vec<Vec<u8>>, GltfError> {
        let mut out = Vec::with_capacity(self.json().buffers.len());
        // The buffers together, not each alone: sixteen buffers naming one large file would
        // otherwise read it sixteen times.
        let mut together: u64 = 0;
        for (index, buffer) in self.json().buffers.iter().enumerate() {
            let p = format!("/buffers/{index}");
            let length = buffer.byte_length.0;
            together = together.saturating_add(length);
            if together > self.options.max_buffer_bytes {
                let what = if index == 0 {
                    "buffer 0".to_owned()
                } else {
                    format!("buffers 0 to {index} together")
                };
                return Err(at(
                    format!("{p}/byteLength"),
                    GltfErrorKind::Limit {
                        what,
                        size: together,
                        limit: self.options.max_buffer_bytes,
                    },
                ));
            }
            let data: Cow<'_, [u8]> = match (&buffer.uri, bin) {
                (Some(uri), _) => Cow::Owned(self.uri_bytes(uri, length, &format!("{p}/uri"))?),
                (None, Some(bin)) if index == 0 => Cow::Borrowed(bin),
                (None, _) => {
                    return Err(at(
                        p,
                        GltfErrorKind::Buffer(if self.binary {
                            "only buffer 0 may leave out `uri` (it is the BIN chunk), and the file has no BIN chunk for it".into()
                        } else {
                            "a buffer of a .gltf must have a `uri`".into()
                        }),
                    ));
                }
            };
            let found = data.len() as u64;
            if found < length {
                return Err(at(
                    p,
                    GltfErrorKind::Buffer(format!(
                        "buffer {index} declares {length} bytes but only {found} are present"
                    )),
                ));
            }
            // Checked against the data's length just above, so it fits in usize.
            out.push(data[..length as usize].to_vec());
        }
        Ok(out)
    }

    /// The bytes a URI names, at most `wanted` of them from a file (more is never used) and at
    /// most the buffer limit from a data URI.
    fn uri_bytes(&self, uri: &str, wanted: u64, pointer: &str) -> Result<Vec<u8>, GltfError> {
        if uri.starts_with("data:") {
            return data_uri(uri, self.options.max_buffer_bytes, pointer);
        }
        let path = self.relative_path(uri, pointer)?;
        let unreadable = |error: std::io::Error| {
            at(
                pointer,
                GltfErrorKind::Io {
                    what: format!("{uri:?} (relative to the file's folder)"),
                    error,
                },
            )
        };
        let file = location::open_regular(&path).map_err(unreadable)?;
        let mut bytes = Vec::new();
        // `take` bounds pipes and devices too; the caller checked `wanted` against the limit.
        std::io::Read::read_to_end(&mut std::io::Read::take(file, wanted), &mut bytes)
            .map_err(unreadable)?;
        Ok(bytes)
    }

    fn relative_path(&self, uri: &str, pointer: &str) -> Result<PathBuf, GltfError> {
        let Some(folder) = &self.folder else {
            return Err(at(
                pointer,
                GltfErrorKind::Refused(format!(
                    "`{uri}` is relative but the file's folder is unknown"
                )),
            ));
        };
        g4mf_reader::resolve_relative_uri(uri, folder, self.options.allow_outside_folder)
            .map_err(|e| at(pointer, GltfErrorKind::Refused(e.to_string())))
    }

    /// Image `index`'s encoded bytes (from a buffer view, a data URI, or a file beside the
    /// glTF file), at most the buffer limit.
    pub fn image_bytes(&self, index: usize) -> Result<Cow<'_, [u8]>, GltfError> {
        let p = format!("/images/{index}");
        let image = self
            .json()
            .images
            .get(index)
            .ok_or_else(|| at(&p, GltfErrorKind::Invalid("no such image".into())))?;
        if let Some(view) = image.buffer_view {
            let pointer = format!("{p}/bufferView");
            let (bytes, _) = self.view_bytes(view.value(), &pointer)?;
            return Ok(Cow::Borrowed(bytes));
        }
        let Some(uri) = &image.uri else {
            return Err(at(
                p,
                GltfErrorKind::Invalid("an image needs `uri` or `bufferView`".into()),
            ));
        };
        let pointer = format!("{p}/uri");
        if uri.starts_with("data:") {
            return data_uri(uri, self.options.max_buffer_bytes, &pointer).map(Cow::Owned);
        }
        let path = self.relative_path(uri, &pointer)?;
        location::read_bounded(&path, self.options.max_buffer_bytes)
            .map(Cow::Owned)
            .map_err(|e| {
                at(
                    pointer,
                    GltfErrorKind::Io {
                        what: format!("{uri:?} (relative to the file's folder)"),
                        error: e.into(),
                    },
                )
            })
    }

    /// A buffer view's bytes (checked to lie in its buffer) and its stride, if it has one.
    fn view_bytes(&self, view: usize, pointer: &str) -> Result<(&[u8], Option<usize>), GltfError> {
        let v = self.json().buffer_views.get(view).ok_or_else(|| {
            at(
                pointer,
                GltfErrorKind::Invalid(format!("buffer view {view} does not exist")),
            )
        })?;
        let buffer = self.buffers.get(v.buffer.value()).ok_or_else(|| {
            at(
                format!("/bufferViews/{view}/buffer"),
                GltfErrorKind::Invalid(format!("buffer {} does not exist", v.buffer.value())),
            )
        })?;
        let start = v.byte_offset.map_or(0, |o| o.0);
        let end = start.checked_add(v.byte_length.0);
        match end.filter(|&e| e <= buffer.len() as u64) {
            // Both below the buffer's length, so they fit in usize.
            Some(end) => Ok((
                &buffer[start as usize..end as usize],
                v.byte_stride.map(|s| s.0),
            )),
            None => Err(at(
                format!("/bufferViews/{view}"),
                GltfErrorKind::Accessor(format!(
                    "the view's {} bytes from offset {start} run past its buffer's {} bytes",
                    v.byte_length.0,
                    buffer.len()
                )),
            )),
        }
    }

    /// Accessor `index` as numbers: floats as they are, integers as their value or, for a
    /// normalized accessor, as glTF maps them onto 0..1 or -1..1.
    pub(crate) fn read_floats(
        &self,
        index: usize,
        budget: &mut Budget,
    ) -> Result<Elements<f32>, GltfError> {
        let normalized = self
            .json()
            .accessors
            .get(index)
            .is_some_and(|a| a.normalized);
        self.decode(index, budget, &|bytes, ty| float_of(bytes, ty, normalized))
    }

    /// Accessor `index` as unsigned integers (indices, joints); floats are refused.
    pub(crate) fn read_integers(
        &self,
        index: usize,
        budget: &mut Budget,
    ) -> Result<Elements<u32>, GltfError> {
        let ty = self.json().accessors.get(index).map(|a| a.component_type);
        if matches!(ty, Some(Checked::Valid(t)) if matches!(t.0, ComponentType::F32 | ComponentType::I8 | ComponentType::I16))
        {
            return Err(at(
                format!("/accessors/{index}/componentType"),
                GltfErrorKind::Accessor(
                    "indices and joints must be unsigned integers (5121, 5123 or 5125)".into(),
                ),
            ));
        }
        self.decode(index, budget, &|bytes, ty| integer_of(bytes, ty))
    }

    /// An accessor's values through `convert` (one component's bytes and type), sparse values
    /// applied: every range checked before it is read, the budget charged before anything
    /// is allocated.
    fn decode<T: Copy + Default>(
        &self,
        index: usize,
        budget: &mut Budget,
        convert: &dyn Fn(&[u8], ComponentType) -> T,
    ) -> Result<Elements<T>, GltfError> {
        let p = format!("/accessors/{index}");
        let accessor = self
            .json()
            .accessors
            .get(index)
            .ok_or_else(|| at(&p, GltfErrorKind::Invalid("no such accessor".into())))?;
        let (ty, width) = layout(accessor, &p)?;
        let size = ty.size() as u64;
        let element = size * width as u64;
        let count = accessor.count.0;
        let total = count
            .checked_mul(width as u64)
            .filter(|&t| t <= MAX_VALUES_READ)
            .ok_or_else(|| {
                at(
                    format!("{p}/count"),
                    GltfErrorKind::Data(format!(
                        "{count} elements are more than this reader reads"
                    )),
                )
            })?;
        budget.charge(total, &p)?;
        let mut values: Vec<T>;
        match accessor.buffer_view {
            Some(view) => {
                let offset = accessor.byte_offset.map_or(0, |o| o.0);
                let (data, stride) =
                    self.elements_bytes(view.value(), offset, count, element, &p)?;
                values = Vec::with_capacity(total as usize);
                push_elements(&mut values, data, stride, count, width, ty, convert);
            }
            None => {
                // A sparse accessor's zeros are what writers use for morph targets (charged to
                // the budget above like any values); a plain one of zeros is bounded on its own.
                if accessor.sparse.is_none() && total > MAX_ZERO_FILLED {
                    return Err(at(
                        format!("{p}/count"),
                        GltfErrorKind::Limit {
                            what: format!("accessor {index} without a buffer view"),
                            size: total.saturating_mul(size),
                            limit: MAX_ZERO_FILLED * size,
                        },
                    ));
                }
                values = vec![T::default(); total as usize];
            }
        }
        if let Some(sparse) = &accessor.sparse {
            self.apply_sparse(&mut values, sparse, count, (ty, width), budget, &p, convert)?;
        }
        Ok(Elements { values, width })
    }

    /// The bytes of `count` elements of `element` bytes from `offset` in a buffer view, and
    /// the stride between them, checked to lie in the view.
    fn elements_bytes(
        &self,
        view: usize,
        offset: u64,
        count: u64,
        element: u64,
        pointer: &str,
    ) -> Result<(&[u8], usize), GltfError> {
        let (data, stride) = self.view_bytes(view, &format!("{pointer}/bufferView"))?;
        let stride = stride.map_or(element, |s| s as u64);
        if stride < element {
            return Err(at(
                format!("/bufferViews/{view}/byteStride"),
                GltfErrorKind::Accessor(format!(
                    "a stride of {stride} bytes is shorter than the {element}-byte elements of {}",
                    pointer.trim_start_matches('/')
                )),
            ));
        }
        let end = match count {
            0 => Some(offset),
            n => (n - 1)
                .checked_mul(stride)
                .and_then(|s| s.checked_add(element))
                .and_then(|s| s.checked_add(offset)),
        };
        match end.filter(|&e| e <= data.len() as u64) {
            // Below the view's length, so they fit in usize.
            Some(end) => Ok((&data[offset as usize..end as usize], stride as usize)),
            None => Err(at(
                pointer,
                GltfErrorKind::Accessor(format!(
                    "{count} elements of {element} bytes (stride {stride}) from offset {offset} run past the {} bytes of buffer view {view}",
                    data.len()
                )),
            )),
        }
    }

    // The accessor's values and facts, the budget and the converter, all used together:
    // bundling them would only rename the arguments.
    #[allow(clippy::too_many_arguments)]
    fn apply_sparse<T: Copy + Default>(
        &self,
        values: &mut [T],
        sparse: &json::accessor::sparse::Sparse,
        count: u64,
        (ty, width): (ComponentType, usize),
        budget: &mut Budget,
        p: &str,
        convert: &dyn Fn(&[u8], ComponentType) -> T,
    ) -> Result<(), GltfError> {
        let n = sparse.count.0;
        let sp = format!("{p}/sparse");
        if n > count {
            return Err(at(
                format!("{sp}/count"),
                GltfErrorKind::Accessor(format!("{n} sparse values for {count} elements")),
            ));
        }
        budget.charge(n.saturating_mul(width as u64 + 1), &sp)?;
        let indices = self.sparse_indices(&sparse.indices, n, count, &sp)?;
        let size = ty.size();
        let (value_bytes, value_stride) = self.elements_bytes(
            sparse.values.buffer_view.value(),
            sparse.values.byte_offset.0,
            n,
            (size * width) as u64,
            &format!("{sp}/values"),
        )?;
        for (k, i) in indices.into_iter().enumerate() {
            for c in 0..width {
                let from = k * value_stride + c * size;
                values[i as usize * width + c] = convert(&value_bytes[from..from + size], ty);
            }
        }
        Ok(())
    }

    /// A sparse accessor's `n` indices, checked to increase and stay below `count`.
    fn sparse_indices(
        &self,
        indices: &json::accessor::sparse::Indices,
        n: u64,
        count: u64,
        sp: &str,
    ) -> Result<Vec<u32>, GltfError> {
        let Checked::Valid(json::accessor::IndexComponentType(index_type)) = indices.component_type
        else {
            return Err(at(
                format!("{sp}/indices/componentType"),
                GltfErrorKind::Invalid("not an index type".into()),
            ));
        };
        let size = index_type.size();
        let (bytes, stride) = self.elements_bytes(
            indices.buffer_view.value(),
            indices.byte_offset.0,
            n,
            size as u64,
            &format!("{sp}/indices"),
        )?;
        let mut out: Vec<u32> = Vec::with_capacity(n as usize);
        for k in 0..n as usize {
            let i = integer_of(&bytes[k * stride..k * stride + size], index_type);
            if u64::from(i) >= count || out.last().is_some_and(|&q| i <= q) {
                return Err(at(
                    format!("{sp}/indices"),
                    GltfErrorKind::Accessor(format!(
                        "sparse index {k} is {i}: indices must increase and stay below {count}"
                    )),
                ));
            }
            out.push(i);
        }
        Ok(out)
    }
}

/// An accessor's component type and values per element; padded matrix layouts (`MAT2` and
/// `MAT3` of 1- and 2-byte components) are refused.
fn layout(accessor: &json::Accessor, p: &str) -> Result<(ComponentType, usize), GltfError> {
    let (Checked::Valid(ty), Checked::Valid(kind)) = (accessor.component_type, accessor.type_)
    else {
        return Err(at(
            p,
            GltfErrorKind::Invalid("unknown `componentType` or `type`".into()),
        ));
    };
    let ty = ty.0;
    let width = match kind {
        Type::Scalar => 1,
        Type::Vec2 => 2,
        Type::Vec3 => 3,
        Type::Vec4 | Type::Mat2 => 4,
        Type::Mat3 => 9,
        Type::Mat4 => 16,
    };
    if matches!(kind, Type::Mat2 | Type::Mat3)
        && ty.size() < 4
        && !(kind == Type::Mat2 && ty.size() == 2)
    {
        return Err(at(
            format!("{p}/type"),
            GltfErrorKind::Accessor("matrices whose columns are padded are not read here".into()),
        ));
    }
    Ok((ty, width))
}

fn push_elements<T>(
    values: &mut Vec<T>,
    data: &[u8],
    stride: usize,
    count: u64,
    width: usize,
    ty: ComponentType,
    convert: &dyn Fn(&[u8], ComponentType) -> T,
) {
    let size = ty.size();
    for i in 0..count as usize {
        let start = i * stride;
        for c in 0..width {
            let from = start + c * size;
            values.push(convert(&data[from..from + size], ty));
        }
    }
}

/// One component as a float (glTF's normalization for normalized integers).
fn float_of(bytes: &[u8], ty: ComponentType, normalized: bool) -> f32 {
    let b = |i: usize| bytes.get(i).copied().unwrap_or(0);
    match ty {
        ComponentType::F32 => f32::from_le_bytes([b(0), b(1), b(2), b(3)]),
        ComponentType::U8 => f32::from(b(0)) / if normalized { 255.0 } else { 1.0 },
        ComponentType::I8 => {
            let v = f32::from(b(0) as i8);
            if normalized { (v / 127.0).max(-1.0) } else { v }
        }
        ComponentType::U16 => {
            f32::from(u16::from_le_bytes([b(0), b(1)])) / if normalized { 65535.0 } else { 1.0 }
        }
        ComponentType::I16 => {
            let v = f32::from(i16::from_le_bytes([b(0), b(1)]));
            if normalized {
                (v / 32767.0).max(-1.0)
            } else {
                v
            }
        }
        ComponentType::U32 => {
            let v = u32::from_le_bytes([b(0), b(1), b(2), b(3)]) as f32;
            if normalized { v / u32::MAX as f32 } else { v }
        }
    }
}

/// One unsigned integer component (anything else reads as 0; callers refuse it first).
fn integer_of(bytes: &[u8], ty: ComponentType) -> u32 {
    let b = |i: usize| bytes.get(i).copied().unwrap_or(0);
    match ty {
        ComponentType::U8 => u32::from(b(0)),
        ComponentType::U16 => u32::from(u16::from_le_bytes([b(0), b(1)])),
        ComponentType::U32 => u32::from_le_bytes([b(0), b(1), b(2), b(3)]),
        _ => 0,
    }
}

/// A base64 data URI's bytes, refused unread when its payload would decode past `limit`.
fn data_uri(uri: &str, limit: u64, pointer: &str) -> Result<Vec<u8>, GltfError> {
    let Some((header, payload)) = uri.split_once(',') else {
        return Err(at(
            pointer,
            GltfErrorKind::Buffer("the data URI has no `,` before its data".into()),
        ));
    };
    if !header.ends_with(";base64") {
        return Err(at(
            pointer,
            GltfErrorKind::Buffer("only base64 data URIs are read".into()),
        ));
    }
    let size = payload.len() as u64 / 4 * 3;
    if size > limit.saturating_add(DATA_URI_SLACK) {
        return Err(at(
            pointer,
            GltfErrorKind::Limit {
                what: "the data URI's data".into(),
                size,
                limit,
            },
        ));
    }
    base64::engine::general_purpose::STANDARD
        .decode(payload)
        .map_err(|e| {
            at(
                pointer,
                GltfErrorKind::Buffer(format!("invalid base64: {e}")),
            )
        })
}

/// A `.glb`'s JSON chunk and BIN chunk. The header is checked here first (the `gltf` crate
/// subtracts its length unchecked); the chunks are the crate's, its errors placed at their
/// byte offsets.
fn split_glb(bytes: &[u8]) -> Result<(&[u8], Option<&[u8]>), GltfError> {
    let word = |at: usize| {
        bytes
            .get(at..at + 4)
            .map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]]))
    };
    let container =
        |offset: u64, message: String| at_byte(offset, GltfErrorKind::Container(message));
    let (Some(version), Some(length)) = (word(4), word(8)) else {
        return Err(container(
            0,
            format!(
                "the file is {} bytes, shorter than a GLB header (12)",
                bytes.len()
            ),
        ));
    };
    if version != 2 {
        return Err(container(
            4,
            format!("GLB version {version}; only 2 is read"),
        ));
    }
    let length = length as usize;
    if length > bytes.len() {
        return Err(container(
            8,
            format!(
                "the header declares {length} bytes but the file has {}",
                bytes.len()
            ),
        ));
    }
    if length < 20 {
        return Err(container(
            8,
            format!("the header declares {length} bytes, too few for a JSON chunk"),
        ));
    }
    if bytes.get(16..20) != Some(b"JSON".as_slice()) {
        return Err(container(
            16,
            "the first chunk must be the JSON chunk".into(),
        ));
    }
    let json_length = word(12).unwrap_or(0) as u64;
    let second = 20 + json_length;
    let glb = gltf::binary::Glb::from_slice(&bytes[..length]).map_err(|e| glb_error(e, second))?;
    match (glb.json, glb.bin) {
        (Cow::Borrowed(json), Some(Cow::Borrowed(bin))) => Ok((json, Some(bin))),
        (Cow::Borrowed(json), None) => Ok((json, None)),
        // from_slice borrows; were it ever to copy, the chunks are where the header says.
        _ => Err(container(
            12,
            "the chunks could not be read in place".into(),
        )),
    }
}

/// The `gltf` crate's GLB error placed: at the JSON chunk's length (byte 12) or at the second
/// chunk (byte `second`); the header and the first chunk's type were checked before.
fn glb_error(e: gltf::Error, second: u64) -> GltfError {
    use gltf::binary::{ChunkType, Error};
    let (offset, message) = match e {
        gltf::Error::Binary(Error::ChunkLength {
            ty: ChunkType::Json,
            length,
            length_read,
        }) => (
            12,
            format!("the JSON chunk's {length} bytes run past the file's end ({length_read} left)"),
        ),
        gltf::Error::Binary(Error::ChunkLength {
            length,
            length_read,
            ..
        }) => (
            second,
            format!("the BIN chunk's {length} bytes run past the file's end ({length_read} left)"),
        ),
        gltf::Error::Binary(Error::Io(_)) => {
            (second, "the second chunk's header is cut short".into())
        }
        other => (second, format!("the second chunk: {other}")),
    };
    at_byte(offset, GltfErrorKind::Container(message))
}

/// The byte offset of 1-based `line` and `column` in `text` (the end when past it).
fn offset_of(text: &[u8], line: usize, column: usize) -> usize {
    let line_start = if line <= 1 {
        0
    } else {
        text.iter()
            .enumerate()
            .filter(|&(_, &b)| b == b'\n')
            .nth(line - 2)
            .map_or(text.len(), |(i, _)| i + 1)
    };
    (line_start + column.saturating_sub(1)).min(text.len())
}

/// The checks the `gltf` crate's validation leaves to us or would panic without: the
/// `POSITION` accessor in range (its validation indexes it unchecked), then every index,
/// the first problem as the error. A missing or malformed `min`/`max` of `POSITION` (a
/// MUST for writers) does not stop a picture.
fn check_document(root: &json::Root) -> Result<(), GltfError> {
    use json::validation::Validate;
    let position = Checked::Valid(json::mesh::Semantic::Positions);
    for (m, mesh) in root.meshes.iter().enumerate() {
        for (p, primitive) in mesh.primitives.iter().enumerate() {
            let index = primitive.attributes.get(&position);
            if let Some(index) = index.filter(|i| i.value() >= root.accessors.len()) {
                return Err(at(
                    format!("/meshes/{m}/primitives/{p}/attributes/POSITION"),
                    GltfErrorKind::Invalid(format!(
                        "{} is not an index into `accessors` ({} of them)",
                        index.value(),
                        root.accessors.len()
                    )),
                ));
            }
        }
    }
    let mut first: Option<(String, json::validation::Error)> = None;
    root.validate(root, json::Path::new, &mut |path, error| {
        if first.is_none() {
            let path = path().0;
            let bounds =
                path.ends_with("[\"POSITION\"].min") || path.ends_with("[\"POSITION\"].max");
            // Quantized attributes are read (integers, normalized or not).
            let quantized = path.ends_with(" = \"KHR_mesh_quantization\"");
            if !bounds && !quantized {
                first = Some((path, error));
            }
        }
    });
    match first {
        None => Ok(()),
        Some((path, error)) => Err(validation_error(&path, error)),
    }
}

/// The `gltf` crate's validation error as ours, at the pointer of its path. A path may end
/// with the value at fault: `extensionsRequired[0] = "EXT_x"`.
fn validation_error(path: &str, error: json::validation::Error) -> GltfError {
    use json::validation::Error;
    let (path, value) = match path.split_once(" = ") {
        Some((path, value)) => (path, format!("{value} ")),
        None => (path, String::new()),
    };
    let what = match error {
        Error::IndexOutOfBounds => "is not an index into its array",
        Error::Invalid => "is not a valid value here",
        Error::Missing => "is required but missing",
        Error::Oversize => "is too large",
        Error::Unsupported => "is an extension this reader does not support",
    };
    at(
        pointer_of(path),
        GltfErrorKind::Invalid(format!("the value {value}{what}")),
    )
}

/// The `gltf` crate's path (`meshes[0].attributes["POSITION"]`) as a JSON pointer
/// (`/meshes/0/attributes/POSITION`).
pub(crate) fn pointer_of(path: &str) -> String {
    let mut tokens: Vec<String> = Vec::new();
    let mut rest = path;
    while !rest.is_empty() {
        if let Some(after) = rest.strip_prefix("[\"") {
            let end = after.find("\"]").unwrap_or(after.len());
            tokens.push(after[..end].to_owned());
            rest = after.get(end + 2..).unwrap_or("");
        } else if let Some(after) = rest.strip_prefix('[') {
            let end = after.find(']').unwrap_or(after.len());
            tokens.push(after[..end].to_owned());
            rest = after.get(end + 1..).unwrap_or("");
        } else {
            let rest_field = rest.strip_prefix('.').unwrap_or(rest);
            let end = rest_field.find(['.', '[']).unwrap_or(rest_field.len());
            tokens.push(rest_field[..end].to_owned());
            rest = &rest_field[end..];
        }
    }
    location::json_pointer(tokens.iter().map(String::as_str))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_become_pointers() {
        assert_eq!(
            pointer_of("meshes[0].primitives[1].attributes[\"POSITION\"]"),
            "/meshes/0/primitives/1/attributes/POSITION"
        );
        assert_eq!(pointer_of("nodes[3].children[0]"), "/nodes/3/children/0");
        assert_eq!(pointer_of("asset"), "/asset");
        assert_eq!(pointer_of("x[\"a/b\"]"), "/x/a~1b");
    }

    #[test]
    fn offsets_count_lines_from_one() {
        assert_eq!(offset_of(b"ab\ncd", 1, 1), 0);
        assert_eq!(offset_of(b"ab\ncd", 2, 2), 4);
        assert_eq!(offset_of(b"ab\ncd", 9, 9), 5);
    }

    #[test]
    fn normalized_integers_map_onto_unit_ranges() {
        assert_eq!(float_of(&[255], ComponentType::U8, true), 1.0);
        assert_eq!(float_of(&[0x80], ComponentType::I8, true), -1.0);
        assert_eq!(float_of(&[7], ComponentType::U8, false), 7.0);
        assert_eq!(float_of(&[0xFF, 0xFF], ComponentType::U16, true), 1.0);
    }
}
