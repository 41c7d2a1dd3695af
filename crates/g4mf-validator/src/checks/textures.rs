//! Files, textures and the thumbnail (core.md file references, texture.md, asset.md).
//! Every image, embedded or beside the file, is checked by [`super::images`]; a PNG's size
//! must be a whole multiple of its texture's.

use super::*;

impl<'a> Checker<'a> {
    /// The bytes of buffer view `i`, when it and its buffer are valid.
    fn view_bytes(&self, i: usize) -> Option<&'a [u8]> {
        let (buffer, offset, length) = view_range(array(self.doc, "bufferViews").get(i)?)?;
        let buffer = self.buffers.get(buffer)?.as_deref()?;
        buffer.get(offset..offset.checked_add(length)?)
    }

    /// The bytes of file `p`'s `uri` (which takes precedence, core.md) or `bufferView`, checked
    /// as an image: its size in pixels when it is a PNG that decodes.
    fn file_bytes(
        &mut self,
        view: Option<&Value>,
        uri: Option<&str>,
        mime: Option<&str>,
        p: &str,
    ) -> Option<(u32, u32)> {
        let view_pointer = format!("{p}/bufferView");
        let v = view.and_then(|view| {
            self.index(
                view,
                &view_pointer,
                "bufferViews",
                Code::FileBufferViewInvalid,
            )
        });
        if let Some(uri) = uri {
            let pointer = format!("{p}/uri");
            if let Some(bytes) = self.uri_bytes(uri, &pointer, v.is_some()) {
                return self.image_bytes(&bytes, mime, &pointer);
            }
        }
        // The buffer view: the only data, or the fallback for a URI that could not be read.
        let bytes = self.view_bytes(v?)?;
        self.image_bytes(bytes, mime, &view_pointer)
    }

    /// Checks every file reference; returns the pixel size of each embedded PNG image.
    fn files(&mut self) -> Vec<Option<(u32, u32)>> {
        let files = array(self.doc, "files");
        let mut sizes = vec![None; files.len()];
        for (f, file) in files.iter().enumerate() {
            let p = format!("/files/{f}");
            let mime = file.get("mimeType").and_then(Value::as_str);
            if mime.is_none() {
                self.f.at(
                    Code::FileMimeTypeMissing,
                    p.clone(),
                    "a file reference must have a `mimeType` string",
                );
            }
            let view = file.get("bufferView").filter(|v| v.as_i64() != Some(-1));
            let uri = file
                .get("uri")
                .and_then(Value::as_str)
                .filter(|u| !u.is_empty());
            match (view, uri) {
                (None, None) => self.f.at(
                    Code::FileDataMissing,
                    p.clone(),
                    "a file reference must have a `bufferView` or a `uri`",
                ),
                (Some(_), Some(_)) => self.f.at(
                    Code::FileDataBoth,
                    p.clone(),
                    "a file reference should not have both `bufferView` and `uri`",
                ),
                _ => {}
            }
            sizes[f] = self.file_bytes(view, uri, mime, &p);
        }
        sizes
    }

    pub(crate) fn textures(&mut self) {
        let image_sizes = self.files();
        let textures = array(self.doc, "textures");
        for (t, texture) in textures.iter().enumerate() {
            let p = format!("/textures/{t}");
            let size: Option<Vec<u64>> = texture
                .get("size")
                .and_then(Value::as_array)
                .filter(|s| !s.is_empty())
                .and_then(|s| s.iter().map(|n| n.as_u64().filter(|&n| n > 0)).collect());
            if size.is_none() {
                self.f.at(
                    Code::TextureSizeInvalid,
                    format!("{p}/size"),
                    "`size` is required: one or more positive integers",
                );
            }
            let placeholder_ok = texture
                .get("placeholder")
                .and_then(Value::as_array)
                .is_some_and(|a| !a.is_empty() && a.iter().all(Value::is_number));
            if !placeholder_ok {
                self.f.at(
                    Code::TexturePlaceholderMissing,
                    format!("{p}/placeholder"),
                    "`placeholder` is required: an array of numbers",
                );
            }
            // texture.md: "The `sampler` property is an object".
            if let Some(sampler) = texture.get("sampler").filter(|s| !s.is_object()) {
                self.f.at(
                    Code::TextureSamplerInvalid,
                    format!("{p}/sampler"),
                    format!("`sampler` must be an object, found {sampler}"),
                );
            }
            if let Some(wrap) = texture.get("sampler").and_then(|s| s.get("wrap")) {
                self.wrap(
                    wrap,
                    &format!("{p}/sampler/wrap"),
                    size.as_ref().map(Vec::len),
                );
            }
            let files = match texture.get("files") {
                None => &[][..],
                Some(Value::Array(files)) => files.as_slice(),
                Some(_) => {
                    self.f.at(
                        Code::TextureFileInvalid,
                        format!("{p}/files"),
                        "`files` must be an array of indices into `files`",
                    );
                    &[][..]
                }
            };
            for (k, file) in files.iter().enumerate() {
                let pointer = format!("{p}/files/{k}");
                let Some(f) = self.index(file, &pointer, "files", Code::TextureFileInvalid) else {
                    continue;
                };
                if let (Some(size), Some((w, h))) = (&size, image_sizes[f]) {
                    let (sw, sh) = (size[0], size.get(1).copied().unwrap_or(1));
                    if u64::from(w) % sw != 0 || u64::from(h) % sh != 0 {
                        self.f.at(
                            Code::TextureImageSizeMismatch,
                            pointer,
                            format!(
                                "the image is {w}x{h} pixels, not a whole multiple of the texture's {sw}x{sh}"
                            ),
                        );
                    }
                }
            }
        }
        let Some(thumbnail) = self.doc.get("asset").and_then(|a| a.get("thumbnail")) else {
            return;
        };
        if let Some(t) = self.index(
            thumbnail,
            "/asset/thumbnail",
            "textures",
            Code::AssetThumbnailInvalid,
        ) {
            let dimensions = textures[t]
                .get("size")
                .and_then(Value::as_array)
                .map(Vec::len);
            if dimensions.is_some_and(|d| d != 2) {
                self.f.at(
                    Code::AssetThumbnailNot2d,
                    "/asset/thumbnail",
                    format!(
                        "the thumbnail must be a 2D texture; texture {t} has {} dimensions",
                        dimensions.unwrap_or(0)
                    ),
                );
            }
        }
    }

    /// A sampler's `wrap`: strings, one for every axis or one per dimension of the texture
    /// (`dimension`, when its `size` is valid).
    fn wrap(&mut self, wrap: &Value, p: &str, dimension: Option<usize>) {
        let Some(modes) = wrap.as_array().filter(|w| w.iter().all(Value::is_string)) else {
            self.f.at(
                Code::TextureWrapInvalid,
                p,
                "`wrap` must be an array of wrap mode strings",
            );
            return;
        };
        let n = modes.len();
        // Without a valid `size` (reported already) only an empty array is surely wrong.
        let fits = n == 1 || dimension.map_or(n > 0, |d| n == d);
        if !fits {
            self.f.at(
                Code::TextureWrapInvalid,
                p,
                match dimension {
                    Some(d) => format!(
                        "`wrap` has {n} modes: it must have 1, or one per dimension of the texture ({d})"
                    ),
                    None => "`wrap` must not be empty".to_owned(),
                },
            );
        }
    }
}
