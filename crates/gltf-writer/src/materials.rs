//! Materials as glTF's `pbrMetallicRoughness`: the base colour factor and texture, the packed
//! occlusion-roughness-metallic image as both the metallic-roughness and the occlusion
//! texture (glTF reads roughness from G, metallic from B and occlusion from R: the same
//! layout), the normal map, `alphaMode` and `doubleSided` from the drawing hints. A texture
//! whose image is missing is left out and its placeholder multiplied into the factor, so a
//! reader draws what a G4MF reader draws from the placeholder; a texture written keeps its
//! placeholder in `extras.placeholder` for a reader that cannot have its image.

use crate::buffer::{BufferBuilder, index_of};
use crate::error::GltfError;
use character_spec::{ImageSpec, MaterialSpec, NameRegistry, TextureSpec};
use gltf_json::extras::RawValue;
use gltf_json::material::{
    AlphaCutoff, AlphaMode, NormalTexture, OcclusionTexture, PbrBaseColorFactor,
    PbrMetallicRoughness, StrengthFactor,
};
use gltf_json::validation::Checked;
use gltf_json::{Index, Material, Root, image, texture};
use std::collections::HashMap;

/// The cut-off of `MASK` materials (glTF's default, and where our pictures cut out).
pub const ALPHA_CUTOFF: f32 = 0.5;

/// The document's materials and textures as they are written: each material once by name
/// (shared by every mesh naming it), each texture once, when a material first uses it.
pub(crate) struct Materials<'s> {
    textures: &'s [TextureSpec],
    /// Each texture's name, claimed in spec order.
    texture_names: Vec<String>,
    written_textures: Vec<Option<Option<Index<texture::Texture>>>>,
    by_name: HashMap<String, Index<Material>>,
    /// Textures whose image is missing, folded into their material's factor.
    pub folded: usize,
}

impl<'s> Materials<'s> {
    /// No material written yet, over the spec's textures.
    pub fn new(textures: &'s [TextureSpec], texture_names: Vec<String>) -> Self {
        Self {
            textures,
            texture_names,
            written_textures: vec![None; textures.len()],
            by_name: HashMap::new(),
            folded: 0,
        }
    }

    /// True when the material `name` of `specs` has a normal map with an image (its mesh
    /// needs tangents).
    pub fn has_normal_map(&self, specs: &[MaterialSpec], name: &str) -> bool {
        specs
            .iter()
            .find(|m| m.name == name)
            .and_then(|m| m.normal_texture)
            .and_then(|t| self.textures.get(t))
            .is_some_and(|t| t.image.is_some())
    }

    /// The material `name`: written on first use from its spec among `specs` (a bare white
    /// material when none), found by name after.
    pub fn material(
        &mut self,
        root: &mut Root,
        buffer: &mut BufferBuilder,
        names: &mut NameRegistry,
        specs: &[MaterialSpec],
        name: &str,
    ) -> Result<Index<Material>, GltfError> {
        if let Some(&index) = self.by_name.get(name) {
            return Ok(index);
        }
        let index = index_of(root.materials.len(), "materials")?;
        let claimed = names.claim(name);
        let material = match specs.iter().find(|m| m.name == name) {
            Some(spec) => self.written(root, buffer, spec, claimed)?,
            None => Material {
                name: Some(claimed),
                ..bare()
            },
        };
        root.materials.push(material);
        self.by_name.insert(name.to_owned(), index);
        Ok(index)
    }

    /// The material of `spec`, its textures written (or folded) on the way.
    fn written(
        &mut self,
        root: &mut Root,
        buffer: &mut BufferBuilder,
        spec: &MaterialSpec,
        name: String,
    ) -> Result<Material, GltfError> {
        let mut factor = spec.base_color.unwrap_or([1.0; 4]);
        if factor.iter().any(|c| !c.is_finite()) {
            return Err(GltfError::NonFinite {
                what: format!("material {}'s base colour", spec.name),
            });
        }
        let mut pbr = PbrMetallicRoughness {
            // A surface without an orm map is G4MF's default: rough, not metallic.
            metallic_factor: StrengthFactor(0.0),
            roughness_factor: StrengthFactor(1.0),
            ..PbrMetallicRoughness::default()
        };
        let mut material = Material {
            name: Some(name),
            ..bare()
        };
        if let Some(t) = spec.base_color_texture {
            match self.texture(root, buffer, t)? {
                Some(index) => pbr.base_color_texture = Some(info(index)),
                None => {
                    for (c, p) in self.textures[t].placeholder.iter().take(4).enumerate() {
                        factor[c] *= p;
                    }
                }
            }
        }
        if let Some(t) = spec.orm_texture {
            self.orm(root, buffer, t, &mut pbr, &mut material)?;
        }
        if let Some(t) = spec.normal_texture {
            material.normal_texture = self.texture(root, buffer, t)?.map(|index| NormalTexture {
                index,
                scale: 1.0,
                tex_coord: 0,
                extensions: None,
                extras: Default::default(),
            });
        }
        pbr.base_color_factor = PbrBaseColorFactor(factor.map(|c| c.clamp(0.0, 1.0) as f32));
        material.pbr_metallic_roughness = pbr;
        let (mode, cutoff) = alpha_mode(spec, factor[3]);
        material.alpha_mode = Checked::Valid(mode);
        material.alpha_cutoff = cutoff.map(AlphaCutoff);
        material.double_sided = spec.render.is_some_and(|h| !h.backface_cull);
        material.extras = raw(spec.extras.as_ref())?;
        Ok(material)
    }

    /// The packed occlusion-roughness-metallic texture `t`: the metallic-roughness and the
    /// occlusion texture at full strength, or, without its image, its roughness and metallic
    /// placeholder values as the factors.
    fn orm(
        &mut self,
        root: &mut Root,
        buffer: &mut BufferBuilder,
        t: usize,
        pbr: &mut PbrMetallicRoughness,
        material: &mut Material,
    ) -> Result<(), GltfError> {
        match self.texture(root, buffer, t)? {
            Some(index) => {
                pbr.metallic_factor = StrengthFactor(1.0);
                pbr.metallic_roughness_texture = Some(info(index));
                material.occlusion_texture = Some(OcclusionTexture {
                    index,
                    strength: StrengthFactor(1.0),
                    tex_coord: 0,
                    extensions: None,
                    extras: Default::default(),
                });
            }
            None => {
                if let [_, roughness, metallic, ..] = self.textures[t].placeholder[..] {
                    pbr.roughness_factor = StrengthFactor(roughness.clamp(0.0, 1.0) as f32);
                    pbr.metallic_factor = StrengthFactor(metallic.clamp(0.0, 1.0) as f32);
                }
            }
        }
        Ok(())
    }

    /// The glTF texture of spec texture `t`, written on first use; `None` when it has no image
    /// (its placeholder is folded into the material instead).
    fn texture(
        &mut self,
        root: &mut Root,
        buffer: &mut BufferBuilder,
        t: usize,
    ) -> Result<Option<Index<texture::Texture>>, GltfError> {
        let spec = self.textures.get(t).ok_or_else(|| GltfError::BadTexture {
            texture: t,
            problem: format!("the spec has {} textures", self.textures.len()),
        })?;
        if let Some(done) = self.written_textures[t] {
            if done.is_none() {
                self.folded += 1;
            }
            return Ok(done);
        }
        if spec.placeholder.iter().any(|c| !c.is_finite()) {
            return Err(GltfError::NonFinite {
                what: format!("texture {t}'s placeholder"),
            });
        }
        let written = match &spec.image {
            None => {
                self.folded += 1;
                None
            }
            Some(image) => {
                let name = self.texture_names[t].clone();
                Some(push_texture(root, buffer, image, name, &spec.placeholder)?)
            }
        };
        self.written_textures[t] = Some(written);
        Ok(written)
    }
}

/// An image (in a buffer view, or by URI) and a texture of it named `name`, keeping its
/// `placeholder` (linear colour) in the texture's `extras.placeholder`: glTF has no property
/// for it, and a reader that cannot have the image (a URI whose file is gone, an image that
/// does not decode) draws it as a G4MF reader would, not white.
fn push_texture(
    root: &mut Root,
    buffer: &mut BufferBuilder,
    image: &ImageSpec,
    name: String,
    placeholder: &[f64],
) -> Result<Index<texture::Texture>, GltfError> {
    let source = index_of(root.images.len(), "images")?;
    let (buffer_view, uri, mime) = match image {
        ImageSpec::Embedded { bytes, mime } => (Some(buffer.view(root, bytes, None)?), None, mime),
        ImageSpec::Uri { uri, mime } => (None, Some(uri.clone()), mime),
    };
    root.images.push(image::Image {
        buffer_view,
        mime_type: Some(image::MimeType(mime.clone())),
        name: Some(name.clone()),
        uri,
        extensions: None,
        extras: Default::default(),
    });
    let index = index_of(root.textures.len(), "textures")?;
    let extras =
        (!placeholder.is_empty()).then(|| serde_json::json!({ "placeholder": placeholder }));
    root.textures.push(texture::Texture {
        name: Some(name),
        sampler: None,
        source,
        extensions: None,
        extras: raw(extras.as_ref())?,
    });
    Ok(index)
}

/// A texture reference on the first texture coordinates.
fn info(index: Index<texture::Texture>) -> texture::Info {
    texture::Info {
        index,
        tex_coord: 0,
        extensions: None,
        extras: Default::default(),
    }
}

/// A white, rough, non-metallic, opaque, single-sided material.
fn bare() -> Material {
    Material {
        pbr_metallic_roughness: PbrMetallicRoughness {
            metallic_factor: StrengthFactor(0.0),
            ..PbrMetallicRoughness::default()
        },
        ..Material::default()
    }
}

/// `extras` kept as JSON text, as glTF's raw extras.
pub(crate) fn raw_extras(extras: Option<&character_spec::Extras>) -> Option<Box<RawValue>> {
    extras.and_then(|e| RawValue::from_string(e.json().to_owned()).ok())
}

/// `extras` as glTF's raw JSON.
pub(crate) fn raw(value: Option<&serde_json::Value>) -> Result<Option<Box<RawValue>>, GltfError> {
    value
        .map(serde_json::value::to_raw_value)
        .transpose()
        .map_err(GltfError::Json)
}

/// The alpha mode of `spec` whose base colour's alpha is `alpha`, with its cutoff.
/// MakeHuman honours alpha to coverage only on transparent materials (so does our preview):
/// such a material is cut out, any other transparent one blended.
fn alpha_mode(spec: &MaterialSpec, alpha: f64) -> (AlphaMode, Option<f32>) {
    match spec.render {
        Some(h) if h.transparent && h.alpha_to_coverage => (AlphaMode::Mask, Some(ALPHA_CUTOFF)),
        Some(h) if h.transparent => (AlphaMode::Blend, None),
        _ if alpha < 1.0 => (AlphaMode::Blend, None),
        _ => (AlphaMode::Opaque, None),
    }
}
