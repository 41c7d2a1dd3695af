//! Materials from MakeHuman `.mhmat` files, for worn assets and for the skin: the diffuse
//! colour and opacity as a linear base-colour factor, the images as base-colour, normal and
//! packed `orm` textures, and MakeHuman's drawing hints. How each `.mhmat` key maps (and
//! which are dropped) is in `spec-notes/textures.md`.

use crate::inputs::{LoadedImage, LoadedMaterial};
use character::{Material, MaterialTextures, RenderHints, Texture};

/// One sRGB-encoded component as linear (IEC 61966-2-1).
pub fn srgb_to_linear(c: f64) -> f64 {
    if c <= 0.04045 {
        c / 12.92
    } else {
        ((c + 0.055) / 1.055).powf(2.4)
    }
}

/// What a material is for, which decides what stands in for what is missing.
#[derive(Debug, Clone, Copy)]
pub enum Role {
    /// A worn asset's material: its draw order (`z_depth`), and whether it is the eyes' (a
    /// missing eye image is replaced by a generated iris).
    Asset {
        /// MakeHuman's `z_depth`.
        draw_order: i32,
        /// The eyes' material.
        eyes: bool,
    },
    /// The body's skin: `skin_srgb` is the race-blended colour of MakeHuman's litsphere skin,
    /// used where the material says `autoBlendSkin` and as the placeholder of its diffuse
    /// texture (so a skin whose image is missing is skin-coloured, not white).
    Skin {
        /// The race-blended skin colour (sRGB).
        skin_srgb: [f64; 3],
    },
}

/// The G4MF-ready material `name` made from `source` (none: white, or the skin colour).
pub fn material_from(name: String, source: Option<&LoadedMaterial>, role: Role) -> Material {
    let file = source.map(|m| &m.file);
    let auto_blend = file.is_none_or(|f| f.auto_blend_skin == Some(true));
    let srgb = match role {
        Role::Skin { skin_srgb } if auto_blend => skin_srgb,
        _ => file.and_then(|m| m.diffuse_color).unwrap_or([1.0; 3]),
    };
    let alpha = file.and_then(|m| m.opacity).unwrap_or(1.0).clamp(0.0, 1.0);
    let linear = srgb.map(srgb_to_linear);
    let transparent = file.and_then(|m| m.transparent).unwrap_or(false);
    let mut placeholder = match role {
        // The factor multiplies the texture: a missing skin image leaves the skin colour.
        Role::Skin { skin_srgb } => skin_srgb.map(srgb_to_linear).to_vec(),
        Role::Asset { .. } => linear.to_vec(),
    };
    if transparent {
        placeholder.push(alpha);
    }
    let render = match role {
        Role::Asset { draw_order, .. } => Some(RenderHints {
            draw_order,
            transparent,
            alpha_to_coverage: file.and_then(|m| m.alpha_to_coverage).unwrap_or(false),
            backface_cull: file.and_then(|m| m.backface_cull).unwrap_or(true),
        }),
        // The body draws first and opaque, as it always has.
        Role::Skin { .. } => None,
    };
    let eyes = matches!(role, Role::Asset { eyes: true, .. });
    let family = source
        .and_then(|m| m.path.file_stem())
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let images = source.map(|m| &m.images);
    Material {
        name,
        base_color: Some([linear[0], linear[1], linear[2], alpha]),
        render,
        textures: MaterialTextures {
            base_color: images
                .and_then(|i| i.base_color.as_ref())
                .map(|l| base_color_texture(l, placeholder.clone(), eyes.then_some(&*family))),
            // A flat normal: +Z in the texture's encoding.
            normal: images
                .and_then(|i| i.normal.as_ref())
                .map(|l| read_texture(l, vec![0.5, 0.5, 1.0])),
            orm: images.and_then(|i| i.orm.as_ref()).map(|orm| Texture {
                path: orm.path.clone(),
                image: orm.image.as_ref().ok().cloned(),
                placeholder: file.map_or([1.0, 1.0, 0.0], crate::orm::defaults).to_vec(),
                generated: true,
                missing: orm.missing.clone(),
                unusable: orm.unusable.clone(),
            }),
        },
    }
}

/// A texture of an image read as it is: missing when it is not there, unusable (and why)
/// when it is there but cannot be used, neither when it was not read (`--textures none`).
fn read_texture((path, image): &LoadedImage, placeholder: Vec<f64>) -> Texture {
    use crate::images::Unusable;
    Texture {
        path: path.clone(),
        image: image.as_ref().ok().cloned(),
        placeholder,
        generated: false,
        missing: match image {
            Err(Unusable::Missing) => vec![path.clone()],
            _ => Vec::new(),
        },
        unusable: match image {
            Err(why @ Unusable::Bad(_)) => vec![(path.clone(), why.describe())],
            _ => Vec::new(),
        },
    }
}

/// The base-colour texture; for the eyes (`iris_family` given), a generated iris in the
/// material's colour family where the image is missing: no character has blank eyes.
fn base_color_texture(
    loaded: &LoadedImage,
    placeholder: Vec<f64>,
    iris_family: Option<&str>,
) -> Texture {
    let texture = read_texture(loaded, placeholder);
    match iris_family {
        // Not read (`--textures none`): no image is written, none is made.
        Some(_) if matches!(loaded.1, Err(crate::images::Unusable::NotRead)) => texture,
        Some(family) if texture.image.is_none() => {
            match crate::images::image_of(crate::iris::iris_png(family)) {
                Ok(image) => Texture {
                    image: Some(image),
                    generated: true,
                    // A generated iris stands in: nothing is missing from the picture.
                    missing: Vec::new(),
                    ..texture
                },
                Err(_) => texture,
            }
        }
        _ => texture,
    }
}
