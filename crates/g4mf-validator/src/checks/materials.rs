//! Materials (material.md): each material an object; each channel an object whose `factor` is
//! numbers, whose `texture` is a texture of this file, and whose `textureMap` and `elementMap`
//! are bindings (bindings.md) fitting every surface drawn with the material. Texture maps, a
//! surface's and a channel's own, have one component per dimension of the texture they map
//! (mesh.md and material.md: "vector size set to the dimension of the texture space").

use super::*;

/// The channels material.md defines. A material's other keys (`name`, `extensions`, `extras`)
/// are not channels, so a `factor` inside `extras` is nobody's business.
const CHANNELS: [&str; 4] = ["baseColor", "emissive", "normal", "orm"];

/// A mesh surface and the materials it is drawn with.
struct SurfaceUse<'v> {
    pointer: String,
    surface: &'v Value,
    materials: Vec<usize>,
}

/// The JSON type of `v`, to name it in a finding without printing a value of any size.
fn json_type(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

impl<'a> Checker<'a> {
    pub(crate) fn materials(&mut self) {
        let uses = self.surface_uses();
        let materials = array(self.doc, "materials");
        for (m, material) in materials.iter().enumerate() {
            let mp = format!("/materials/{m}");
            let Some(material) = material.as_object() else {
                self.f
                    .at(Code::MaterialNotObject, mp, "a material must be an object");
                continue;
            };
            // A channel's bindings index the simplexes of every surface drawn with it.
            let fits: Vec<Fit> = uses
                .iter()
                .filter(|u| u.materials.contains(&m))
                .map(|u| Fit {
                    surface: Some(u.pointer.clone()),
                    simplexes: u
                        .surface
                        .get("simplexes")
                        .and_then(index_of)
                        .and_then(|i| self.accessor(i))
                        .map(|a| (a.vector_size, a.element_count())),
                })
                .collect();
            for key in CHANNELS {
                if let Some(channel) = material.get(key) {
                    self.channel(channel, &format!("{mp}/{key}"), &fits);
                }
            }
        }
        self.surface_texture_maps(&uses);
    }

    /// Every mesh surface with the materials it is drawn with: its own `material` and the
    /// override of every instance of its mesh (node_mesh_instance.md: one material for all
    /// surfaces, or one per surface; `-1` keeps the surface's). Invalid indices and
    /// wrong-length override lists are reported elsewhere and skipped here.
    fn surface_uses(&self) -> Vec<SurfaceUse<'a>> {
        let doc = self.doc;
        let material_count = self.count("materials");
        let material = |v: &Value| index_of(v).filter(|&i| i < material_count);
        let mut uses = Vec::new();
        for (m, mesh) in array(doc, "meshes").iter().enumerate() {
            let surfaces = mesh
                .get("surfaces")
                .and_then(Value::as_array)
                .map_or(&[][..], Vec::as_slice);
            let overrides: Vec<&Vec<Value>> = array(doc, "nodes")
                .iter()
                .filter_map(|n| n.get("meshInstance"))
                .filter(|i| i.get("mesh").and_then(index_of) == Some(m))
                .filter_map(|i| i.get("materials")?.as_array())
                .filter(|o| o.len() == 1 || o.len() == surfaces.len())
                .collect();
            for (s, surface) in surfaces.iter().enumerate() {
                let mut materials: Vec<usize> = surface
                    .get("material")
                    .and_then(material)
                    .into_iter()
                    .collect();
                for o in &overrides {
                    let k = o.get(if o.len() == 1 { 0 } else { s }).and_then(material);
                    if let Some(k) = k.filter(|k| !materials.contains(k)) {
                        materials.push(k);
                    }
                }
                uses.push(SurfaceUse {
                    pointer: format!("/meshes/{m}/surfaces/{s}"),
                    surface,
                    materials,
                });
            }
        }
        uses
    }

    /// The dimension of texture `t` (its `size`'s length), when it has a non-empty `size`.
    fn texture_dimension(&self, t: usize) -> Option<usize> {
        array(self.doc, "textures")
            .get(t)?
            .get("size")?
            .as_array()
            .map(Vec::len)
            .filter(|&n| n > 0)
    }

    /// One material channel at `cp`, drawn on the surfaces `fits`.
    fn channel(&mut self, channel: &Value, cp: &str, fits: &[Fit]) {
        let Some(c) = channel.as_object() else {
            self.f.at(
                Code::MaterialChannelNotObject,
                cp,
                format!(
                    "a material channel must be an object, found {}",
                    json_type(channel)
                ),
            );
            return;
        };
        if let Some(factor) = c.get("factor") {
            let ok = factor.as_array().is_some_and(|f| {
                !f.is_empty() && f.iter().all(|v| v.as_f64().is_some_and(f64::is_finite))
            });
            if !ok {
                self.f.at(
                    Code::MaterialFactorInvalid,
                    format!("{cp}/factor"),
                    format!("`factor` must be an array of numbers, found {factor}"),
                );
            }
        }
        // "The texture MUST be defined in the same file as the material": an index into this
        // document's `textures`.
        let texture = c.get("texture").and_then(|t| {
            self.index(
                t,
                &format!("{cp}/texture"),
                "textures",
                Code::MaterialChannelTextureInvalid,
            )
        });
        if let Some(map) = c.get("textureMap") {
            let p = format!("{cp}/textureMap");
            let values = self.binding(map, &p, BindingKind::TextureMap, fits);
            let dimension = texture.and_then(|t| Some((t, self.texture_dimension(t)?)));
            if let (Some(values), Some((t, dimension))) = (values, dimension) {
                if values.vector_size != dimension {
                    self.f.at(
                        Code::TextureMapVectorSize,
                        format!("{p}/values"),
                        format!(
                            "the texture map's values have vectorSize {}, but the channel's texture {t} has {dimension} dimensions (the length of its `size`)",
                            values.vector_size
                        ),
                    );
                }
            }
        }
        if let Some(map) = c.get("elementMap") {
            self.binding(
                map,
                &format!("{cp}/elementMap"),
                BindingKind::ElementMap,
                fits,
            );
        }
    }

    /// A surface's `textureMap` maps the texture of every channel, of every material the
    /// surface is drawn with, that has a texture and no `textureMap` of its own: its values'
    /// vector size is each such texture's dimension. One finding per surface: the first
    /// channel it does not fit, and how many others.
    fn surface_texture_maps(&mut self, uses: &[SurfaceUse<'a>]) {
        let materials = array(self.doc, "materials");
        for u in uses {
            let Some(values) = u
                .surface
                .get("textureMap")
                .and_then(|b| b.get("values"))
                .and_then(index_of)
                .and_then(|i| self.accessor(i))
            else {
                continue;
            };
            let mut wrong: Vec<(String, usize, usize)> = Vec::new();
            for &m in &u.materials {
                for key in CHANNELS {
                    let Some(channel) = materials.get(m).and_then(|x| x.get(key)) else {
                        continue;
                    };
                    if channel.get("textureMap").is_some() {
                        continue;
                    }
                    let Some(t) = channel.get("texture").and_then(index_of) else {
                        continue;
                    };
                    if let Some(dimension) = self.texture_dimension(t) {
                        if dimension != values.vector_size {
                            wrong.push((format!("/materials/{m}/{key}"), t, dimension));
                        }
                    }
                }
            }
            if let Some((channel, t, dimension)) = wrong.first() {
                let others = match wrong.len() - 1 {
                    0 => String::new(),
                    1 => " (and 1 more channel)".to_owned(),
                    n => format!(" (and {n} more channels)"),
                };
                self.f.at(
                    Code::TextureMapVectorSize,
                    format!("{}/textureMap/values", u.pointer),
                    format!(
                        "the texture map's values have vectorSize {}, but {channel} maps texture {t} with it, which has {dimension} dimensions (the length of its `size`){others}",
                        values.vector_size
                    ),
                );
            }
        }
    }
}
