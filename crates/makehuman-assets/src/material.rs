//! `.mhmat` materials: colours, scalars, switches, texture paths and MakeHuman's shader
//! settings, read strictly (MakeHuman's `shared/material.py` clamps and guesses instead).

use crate::error::{AssetError, AssetErrorKind, column_of};
use crate::line::Line;
use location::text::excerpt;
use std::collections::HashMap;

/// At most this many keys are kept in [`MaterialFile::other`].
const MAX_OTHER: usize = 256;

/// At most this many key lines per material (a real one has a few dozen).
const MAX_LINES: usize = 10_000;

/// A material file. Every field is as the file gives it: `None` or empty when absent.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct MaterialFile {
    /// `name`.
    pub name: Option<String>,
    /// `tag` lines in file order (repeats kept).
    pub tags: Vec<String>,
    /// `diffuseColor`, sRGB in [0, 1].
    pub diffuse_color: Option<[f64; 3]>,
    /// `specularColor`, in [0, 1].
    pub specular_color: Option<[f64; 3]>,
    /// `emissiveColor`, in [0, 1].
    pub emissive_color: Option<[f64; 3]>,
    /// `ambientColor`, in [0, 1].
    pub ambient_color: Option<[f64; 3]>,
    /// `shininess`, in [0, 1] (the inverse of roughness).
    pub shininess: Option<f64>,
    /// `opacity`, in [0, 1].
    pub opacity: Option<f64>,
    /// `translucency`, in [0, 1].
    pub translucency: Option<f64>,
    /// `transparent`: blend by the diffuse texture's alpha.
    pub transparent: Option<bool>,
    /// `alphaToCoverage`.
    pub alpha_to_coverage: Option<bool>,
    /// `backfaceCull`: false means double-sided.
    pub backface_cull: Option<bool>,
    /// `castShadows`.
    pub cast_shadows: Option<bool>,
    /// `receiveShadows`.
    pub receive_shadows: Option<bool>,
    /// `autoBlendSkin`: the diffuse colour comes from the body's race mix (litsphere skin).
    pub auto_blend_skin: Option<bool>,
    /// `shadeless`.
    pub shadeless: Option<bool>,
    /// `wireframe`.
    pub wireframe: Option<bool>,
    /// `depthless`.
    pub depthless: Option<bool>,
    /// `sssEnabled`: subsurface scattering.
    pub sss_enabled: Option<bool>,
    /// `roughness` (MPFB), in [0, 1].
    pub roughness: Option<f64>,
    /// `metallic` (MPFB), in [0, 1].
    pub metallic: Option<f64>,
    /// Every `...Texture FILE` line, in file order.
    pub textures: Vec<MaterialTexture>,
    /// Every `...Intensity VALUE` line (finite, not negative; MakeHuman clamps to [0, 1]),
    /// in file order.
    pub intensities: Vec<(String, f64)>,
    /// `shader`: MakeHuman's renderer program.
    pub shader: Option<String>,
    /// `shaderParam NAME VALUE...`, the value's words joined by one space.
    pub shader_params: Vec<(String, String)>,
    /// `shaderConfig NAME VALUE`.
    pub shader_config: Vec<(String, String)>,
    /// Any other key and the rest of its line, verbatim (`sssRScale`, `shaderDefine`, ...),
    /// at most 256.
    pub other: Vec<(String, String)>,
}

/// A texture line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MaterialTexture {
    /// The key, e.g. `diffuseTexture`, `normalmapTexture`.
    pub key: String,
    /// The path as written, relative to the material file.
    pub path: String,
}

/// What only materials read from a line: ranged numbers, switches, colours, the rest of it.
impl<'a> Line<'a> {
    /// A finite number in [`low`, `high`] (a value of `key`).
    fn number(&self, key: &str, word: &str, low: f64, high: f64) -> Result<f64, AssetError> {
        let value = self.finite(word)?;
        if !(low..=high).contains(&value) {
            let range = if high.is_finite() {
                format!("[{low}, {high}]")
            } else {
                format!("at least {low}")
            };
            return Err(self.err(
                word,
                AssetErrorKind::OutOfRange(format!(
                    "`{key}` is {}, not {range}",
                    excerpt(word, 24)
                )),
            ));
        }
        Ok(value)
    }

    fn boolean(&self, key: &str, args: &[&str]) -> Result<bool, AssetError> {
        let word = self.single(key, args, "true|false")?;
        match word.to_ascii_lowercase().as_str() {
            "true" | "yes" | "enabled" | "1" => Ok(true),
            "false" | "no" | "disabled" | "0" => Ok(false),
            _ => Err(self.err(
                word,
                AssetErrorKind::Malformed(format!("`{}` is not true or false", excerpt(word, 24))),
            )),
        }
    }

    fn color(&self, key: &str, args: &[&str]) -> Result<[f64; 3], AssetError> {
        let [r, g, b] = args else {
            return Err(self.whole(AssetErrorKind::Malformed(format!("expected `{key} R G B`"))));
        };
        Ok([
            self.number(key, r, 0.0, 1.0)?,
            self.number(key, g, 0.0, 1.0)?,
            self.number(key, b, 0.0, 1.0)?,
        ])
    }

    /// The rest of the line after the key, trimmed, not empty.
    fn rest(&self, key: &str, args: &[&'a str]) -> Result<&'a str, AssetError> {
        match (args.first(), args.last()) {
            (Some(first), Some(last)) => {
                let start = column_of(self.line, first) - 1;
                let end = column_of(self.line, last) - 1 + last.len();
                Ok(self.line.get(start..end).unwrap_or(first))
            }
            _ => Err(self.whole(AssetErrorKind::Malformed(format!("`{key}` needs a value")))),
        }
    }
}

/// Sets a single-valued field (a repeated key was refused before, by name).
fn set_once<T>(slot: &mut Option<T>, value: T) {
    *slot = Some(value);
}

/// Parses a `.mhmat` file's text (any line end; a byte-order mark is dropped).
///
/// `key value...` lines; lines starting with `#` or `//` are comments. Colours are three
/// numbers in [0, 1] (no shipped material goes outside; MakeHuman does not clamp colours, so
/// an outside value is a mistake), `shininess`, `opacity`, `translucency`, `roughness`,
/// `metallic` one number in [0, 1] (MakeHuman clamps; we refuse), switches `true`/`false`
/// in any case (also `yes`/`no`, `enabled`/`disabled`, `1`/`0`; MakeHuman reads anything
/// it does not know as false). Any key ending in `Texture` is a texture, in `Intensity` an
/// intensity. Every key but `tag` may appear once (`shaderParam` and `shaderConfig` once per
/// name).
pub fn parse_material(text: &str) -> Result<MaterialFile, AssetError> {
    let text = location::text::strip_bom(text);
    let mut m = MaterialFile::default();
    let mut seen: HashMap<String, usize> = HashMap::new();
    let mut lines = 0usize;
    let mut material_keys = 0usize;
    let mut words: Vec<&str> = Vec::new();
    for (n, raw) in location::text::lines(text) {
        words.clear();
        words.extend(raw.split_whitespace());
        let Some((&key, args)) = words.split_first() else {
            continue;
        };
        if key.starts_with('#') || key.starts_with("//") {
            continue;
        }
        let line = Line { n, line: raw };
        lines += 1;
        if lines > MAX_LINES {
            return Err(line.whole(AssetErrorKind::TooLarge(format!(
                "more than {MAX_LINES} lines"
            ))));
        }
        // What may appear once: the key, or the key and its parameter name.
        let once_key = match (key, args.first()) {
            ("tag", _) => None,
            ("shaderParam" | "shaderConfig", Some(name)) => Some(format!("{key} {name}")),
            _ => Some(key.to_owned()),
        };
        if let Some(once_key) = once_key {
            if let Some(&first) = seen.get(&once_key) {
                return Err(line.whole(AssetErrorKind::Repeated {
                    key: excerpt(&once_key, 80),
                    first,
                }));
            }
            seen.insert(once_key, n);
        }
        // A material key is any this reader knows besides `name` and `tag`.
        material_keys += usize::from(!matches!(key, "name" | "tag"));
        match key {
            "name" => set_once(&mut m.name, line.rest(key, args)?.to_owned()),
            "tag" => m.tags.push(line.rest(key, args)?.to_owned()),
            "diffuseColor" => set_once(&mut m.diffuse_color, line.color(key, args)?),
            "specularColor" => set_once(&mut m.specular_color, line.color(key, args)?),
            "emissiveColor" => set_once(&mut m.emissive_color, line.color(key, args)?),
            "ambientColor" => set_once(&mut m.ambient_color, line.color(key, args)?),
            "shininess" | "opacity" | "translucency" | "roughness" | "metallic" => {
                let word = line.single(key, args, "VALUE")?;
                let value = line.number(key, word, 0.0, 1.0)?;
                let slot = match key {
                    "shininess" => &mut m.shininess,
                    "opacity" => &mut m.opacity,
                    "translucency" => &mut m.translucency,
                    "roughness" => &mut m.roughness,
                    _ => &mut m.metallic,
                };
                set_once(slot, value);
            }
            "transparent" | "alphaToCoverage" | "backfaceCull" | "castShadows"
            | "receiveShadows" | "autoBlendSkin" | "shadeless" | "wireframe" | "depthless"
            | "sssEnabled" => {
                let value = line.boolean(key, args)?;
                let slot = match key {
                    "transparent" => &mut m.transparent,
                    "alphaToCoverage" => &mut m.alpha_to_coverage,
                    "backfaceCull" => &mut m.backface_cull,
                    "castShadows" => &mut m.cast_shadows,
                    "receiveShadows" => &mut m.receive_shadows,
                    "autoBlendSkin" => &mut m.auto_blend_skin,
                    "shadeless" => &mut m.shadeless,
                    "wireframe" => &mut m.wireframe,
                    "depthless" => &mut m.depthless,
                    _ => &mut m.sss_enabled,
                };
                set_once(slot, value);
            }
            "shader" => set_once(&mut m.shader, line.rest(key, args)?.to_owned()),
            "shaderParam" | "shaderConfig" => {
                let [name, value @ ..] = args else {
                    return Err(line.whole(AssetErrorKind::Malformed(format!(
                        "expected `{key} NAME VALUE`"
                    ))));
                };
                if value.is_empty() {
                    return Err(line.whole(AssetErrorKind::Malformed(format!(
                        "expected `{key} NAME VALUE`"
                    ))));
                }
                let pair = ((*name).to_owned(), value.join(" "));
                if key == "shaderParam" {
                    m.shader_params.push(pair);
                } else {
                    m.shader_config.push(pair);
                }
            }
            _ if key.ends_with("Texture") => m.textures.push(MaterialTexture {
                key: key.to_owned(),
                path: line.rest(key, args)?.to_owned(),
            }),
            _ if key.ends_with("Intensity") => {
                let word = line.single(key, args, "VALUE")?;
                let value = line.number(key, word, 0.0, f64::INFINITY)?;
                m.intensities.push((key.to_owned(), value));
            }
            _ => {
                if m.other.len() >= MAX_OTHER {
                    return Err(line.whole(AssetErrorKind::TooLarge(format!(
                        "more than {MAX_OTHER} keys this reader does not know"
                    ))));
                }
                let rest = match args {
                    [] => "",
                    _ => line.rest(key, args)?,
                };
                material_keys -= 1;
                m.other.push((key.to_owned(), rest.to_owned()));
            }
        }
    }
    // Any text file parses as lines of keys: one naming no colour, texture, shader or setting
    // is not a material (a README, a `.mhclo` named `.mhmat`).
    if material_keys == 0 {
        return Err(AssetError::new(
            location::Location::default(),
            AssetErrorKind::Malformed(
                "no material key (`diffuseColor`, `diffuseTexture`, `shader`, ...): \
                 not a MakeHuman material"
                    .to_owned(),
            ),
        ));
    }
    Ok(m)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ok(text: &str) -> MaterialFile {
        parse_material(text).unwrap_or_else(|e| panic!("{e}"))
    }

    fn err(text: &str) -> String {
        match parse_material(text) {
            Ok(m) => panic!("expected an error, got {m:?}"),
            Err(e) => e.to_string(),
        }
    }

    #[test]
    fn reads_every_kind_of_line() {
        let m = ok(
            "\u{feff}# c\r\n// also a comment\r\nname Eye_brown\r\ntag MakeHuman™\r\n\
             tag MakeHuman™\r\nambientColor 0.11 0.11 0.11\r\ndiffuseColor 1.0 1 0\r\n\
             shininess 0.96\r\nopacity 1\r\ntransparent True\r\nbackfaceCull False\r\n\
             autoBlendSkin true\r\nsssEnabled 0\r\ndiffuseTexture  my textures/eye.png \r\n\
             normalmapTexture n.png\r\nnormalmapIntensity 1.5\r\nsssRScale 4.0\r\n\
             shader data/shaders/glsl/litsphere\r\nshaderParam AdditiveShading 0.5\r\n\
             shaderParam litsphereTexture data/litspheres/skinmat_eye.png\r\n\
             shaderConfig normal False\r\nshaderDefine FOO\r\nroughness 0.4\r\nmetallic 0\r\n",
        );
        assert_eq!(m.name.as_deref(), Some("Eye_brown"));
        assert_eq!(m.tags, ["MakeHuman™", "MakeHuman™"]);
        assert_eq!(m.ambient_color, Some([0.11; 3]));
        assert_eq!(m.diffuse_color, Some([1.0, 1.0, 0.0]));
        assert_eq!(m.shininess, Some(0.96));
        assert_eq!(m.opacity, Some(1.0));
        assert_eq!(m.translucency, None);
        assert_eq!(m.transparent, Some(true));
        assert_eq!(m.backface_cull, Some(false));
        assert_eq!(m.auto_blend_skin, Some(true));
        assert_eq!(m.sss_enabled, Some(false));
        assert_eq!(m.roughness, Some(0.4));
        assert_eq!(m.metallic, Some(0.0));
        assert_eq!(
            m.textures,
            [
                MaterialTexture {
                    key: "diffuseTexture".into(),
                    path: "my textures/eye.png".into()
                },
                MaterialTexture {
                    key: "normalmapTexture".into(),
                    path: "n.png".into()
                }
            ]
        );
        assert_eq!(m.intensities, [("normalmapIntensity".to_owned(), 1.5)]);
        assert_eq!(m.shader.as_deref(), Some("data/shaders/glsl/litsphere"));
        assert_eq!(
            m.shader_params,
            [
                ("AdditiveShading".to_owned(), "0.5".to_owned()),
                (
                    "litsphereTexture".to_owned(),
                    "data/litspheres/skinmat_eye.png".to_owned()
                )
            ]
        );
        assert_eq!(m.shader_config, [("normal".to_owned(), "False".to_owned())]);
        assert_eq!(
            m.other,
            [
                ("sssRScale".to_owned(), "4.0".to_owned()),
                ("shaderDefine".to_owned(), "FOO".to_owned())
            ]
        );
    }

    #[test]
    fn values_out_of_range_or_malformed_are_located() {
        assert_eq!(
            err("name a\ndiffuseColor 0.5 1.2 0\n"),
            "2:18: `diffuseColor` is 1.2, not [0, 1]"
        );
        assert_eq!(err("opacity -0.1\n"), "1:9: `opacity` is -0.1, not [0, 1]");
        assert_eq!(
            err("\n\naomapIntensity -1\n"),
            "3:16: `aomapIntensity` is -1, not at least 0"
        );
        assert_eq!(err("shininess inf\n"), "1:11: `inf` is not a finite number");
        assert_eq!(
            err("diffuseColor 1 1\n"),
            "1:1: expected `diffuseColor R G B`"
        );
        assert_eq!(
            err("transparent maybe\n"),
            "1:13: `maybe` is not true or false"
        );
        assert_eq!(
            err("transparent\n"),
            "1:1: expected `transparent true|false`"
        );
        assert_eq!(
            err("diffuseTexture\n"),
            "1:1: `diffuseTexture` needs a value"
        );
        assert_eq!(
            err("shaderConfig bump\n"),
            "1:1: expected `shaderConfig NAME VALUE`"
        );
    }

    #[test]
    fn repeated_keys_are_refused() {
        assert_eq!(
            err("name a\r\nopacity 1\r\n\r\nopacity 0.5\r\n"),
            "4:1: `opacity` is given again (first on line 2)"
        );
        assert_eq!(
            err("diffuseTexture a.png\ndiffuseTexture b.png\n"),
            "2:1: `diffuseTexture` is given again (first on line 1)"
        );
        assert_eq!(
            err("shaderConfig bump true\nshaderConfig spec true\nshaderConfig bump false\n"),
            "3:1: `shaderConfig bump` is given again (first on line 1)"
        );
        assert_eq!(
            err("sssRScale 1\nsssRScale 2\n"),
            "2:1: `sssRScale` is given again (first on line 1)"
        );
        // Tags repeat freely.
        assert_eq!(ok("tag a\ntag a\nopacity 1\n").tags.len(), 2);
    }

    #[test]
    fn a_text_naming_no_material_key_is_not_a_material() {
        let refused = "no material key (`diffuseColor`, `diffuseTexture`, `shader`, ...): \
                       not a MakeHuman material";
        assert!(err("").ends_with(refused));
        assert!(err("# A README\nname x\ntag y\nSome prose here\n").ends_with(refused));
        assert!(err("name shirt\nobj_file shirt.obj\nverts 0\n").ends_with(refused));
        assert_eq!(
            ok("name x\nshader litsphere\n").shader.as_deref(),
            Some("litsphere")
        );
    }

    #[test]
    fn unknown_keys_are_bounded() {
        let mut text = String::from("opacity 1\n");
        for i in 0..MAX_OTHER {
            text.push_str(&format!("key{i} {i}\n"));
        }
        assert_eq!(ok(&text).other.len(), MAX_OTHER);
        text.push_str("one_more\n");
        let e = parse_material(&text).err();
        assert!(matches!(
            e.map(|e| e.kind),
            Some(AssetErrorKind::TooLarge(_))
        ));
    }
}
