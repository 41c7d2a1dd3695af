//! Stage 5b, dress: a material for every polygon: the body's skin coloured from the
//! phenotype's race mix the way MakeHuman blends its skin tones, and fixed materials for eyes,
//! teeth, tongue and the other helpers.
//!
//! MakeHuman 1.x (`lib/skinblender.py`, `EthnicSkinBlender`) sets the skin's diffuse colour
//! to `african * AFRICAN + asian * ASIAN + caucasian * CAUCASIAN` with the race weights
//! normalised to sum 1; its three colours are display (sRGB-encoded) values, as everything
//! MakeHuman 1.x shows is drawn without a linear frame buffer. G4MF's `baseColor.factor` is
//! linear, so the blend is done where MakeHuman does it, on the sRGB values, and the result
//! is converted to linear. Age does not enter MakeHuman's blend (age chooses among its
//! textured young/middle-aged/old skins, which carry textures, not a base colour), so it does
//! not enter ours. The colours and their source are listed in `spec-notes/g4mf.md`.

pub use super::materials::srgb_to_linear;
use super::materials::{Role, material_from};
use super::transforms::FACE_PARTS;
use crate::derived::{Cache, Id};
use crate::inputs::LoadedMaterial;
use character::{Character, Image, Material, MaterialTextures, Polygons, Texture};
use mpfb_body::Race;
use std::sync::Arc;

/// MakeHuman's `africanColor` (sRGB).
pub const AFRICAN_SRGB: [f64; 3] = [0.207, 0.113, 0.066];
/// MakeHuman's `asianColor` (sRGB).
pub const ASIAN_SRGB: [f64; 3] = [0.721, 0.568, 0.431];
/// MakeHuman's `caucasianColor` (sRGB).
pub const CAUCASIAN_SRGB: [f64; 3] = [0.843, 0.639, 0.517];

/// The skin material's name.
pub const SKIN: &str = "SkinMaterial";

/// Materials of the face helpers, per [`FACE_PARTS`] entry: name and sRGB colour (ours:
/// MakeHuman's own eyes, teeth and tongue are textured, with a white diffuse colour).
pub const FACE_MATERIALS: [(&str, [f64; 3]); 5] = [
    ("EyeMaterial", EYE_SRGB),
    ("EyeMaterial", EYE_SRGB),
    ("TeethMaterial", TEETH_SRGB),
    ("TeethMaterial", TEETH_SRGB),
    ("TongueMaterial", TONGUE_SRGB),
];

/// Eyes: a light sclera, the colour most of MakeHuman's eye texture has.
pub const EYE_SRGB: [f64; 3] = [0.90, 0.88, 0.85];
/// Teeth: ivory.
pub const TEETH_SRGB: [f64; 3] = [0.90, 0.87, 0.78];
/// Tongue: pink-red.
pub const TONGUE_SRGB: [f64; 3] = [0.72, 0.36, 0.38];
/// Eyelashes (kept with `--helpers all`).
pub const EYELASH_SRGB: [f64; 3] = [0.12, 0.09, 0.07];
/// Other helpers (hair, tights, skirt, genitals; kept with `--helpers all`): a neutral grey
/// that shows them as fitting shells, not skin.
pub const HELPER_SRGB: [f64; 3] = [0.55, 0.55, 0.58];

fn linear_rgba(srgb: [f64; 3]) -> [f64; 4] {
    let [r, g, b] = srgb.map(srgb_to_linear);
    [r, g, b, 1.0]
}

/// The race weights MakeHuman blends with: clamped to [0, 1] and normalised to sum 1 (all
/// zero: a third each).
pub fn normalised_race(race: Race) -> [f64; 3] {
    let raw = [race.african, race.asian, race.caucasian].map(|w| w.clamp(0.0, 1.0));
    let sum: f64 = raw.iter().sum();
    if sum > 0.0 {
        raw.map(|w| w / sum)
    } else {
        [1.0 / 3.0; 3]
    }
}

/// The skin's sRGB colour for a race mix, as MakeHuman's `EthnicSkinBlender` computes it.
pub fn skin_srgb(race: Race) -> [f64; 3] {
    let [african, asian, caucasian] = normalised_race(race);
    std::array::from_fn(|i| {
        african * AFRICAN_SRGB[i] + asian * ASIAN_SRGB[i] + caucasian * CAUCASIAN_SRGB[i]
    })
}

/// What the materials are made from besides the race mix.
#[derive(Debug, Clone, Copy, Default)]
pub struct Wardrobe<'a> {
    /// The skin's `.mhmat` (`None`: MakeHuman's litsphere skin, coloured by the race mix).
    pub skin: Option<&'a LoadedMaterial>,
    /// The helper eyes' painted iris (`None`: a flat sclera colour, as with `--textures
    /// none`).
    pub helper_iris: Option<&'a Image>,
}

/// The name under which the helper eyes' painted iris is written (no such file is read).
const HELPER_IRIS_FILE: &str = "helper_eyes_iris.png";

/// What dressing derives from shared polygons alone.
#[derive(Default)]
pub struct Derived {
    /// Polygons given a material by part set (the index of each part set's material).
    dressed: Cache<(Id<Polygons>, Vec<u32>), Arc<Polygons>>,
}

/// Gives every polygon without a material one: face helpers theirs, eyelashes and other
/// helpers theirs, everything else the skin. Polygons the mesh file gave a material keep it.
/// The polygons so dressed come from `derived` when another body dressed the same ones alike.
pub fn dress(
    mut character: Character,
    race: Race,
    wardrobe: Wardrobe,
    derived: &Derived,
) -> Character {
    let polygons = &character.mesh.polygons;
    let materials = &mut character.materials;
    let mut index_of = |make: &dyn Fn() -> Material| -> u32 {
        let wanted = make();
        match materials.iter().position(|m| m.name == wanted.name) {
            Some(i) => {
                let m = &mut materials[i];
                if m.base_color.is_none() {
                    m.base_color = wanted.base_color;
                }
                i as u32
            }
            None => {
                materials.push(wanted);
                (materials.len() - 1) as u32
            }
        }
    };
    let flat = |name: &str, srgb: [f64; 3]| Material {
        name: name.to_owned(),
        base_color: Some(linear_rgba(srgb)),
        render: None,
        textures: Default::default(),
    };
    let eyes = |name: &str, srgb: [f64; 3]| match wardrobe.helper_iris {
        // White: the texture carries the colours.
        Some(image) => Material {
            base_color: Some([1.0; 4]),
            textures: MaterialTextures {
                base_color: Some(Texture {
                    path: HELPER_IRIS_FILE.into(),
                    image: Some(image.clone()),
                    placeholder: linear_rgba(srgb)[..3].to_vec(),
                    generated: true,
                    missing: Vec::new(),
                    unusable: Vec::new(),
                }),
                ..Default::default()
            },
            ..flat(name, srgb)
        },
        None => flat(name, srgb),
    };
    // The material of each part set, decided once.
    let part_material: Vec<u32> = polygons
        .part_sets
        .iter()
        .map(|set| {
            let face = set
                .iter()
                .find_map(|n| FACE_PARTS.iter().position(|f| f == n));
            if let Some(f) = face {
                let (name, srgb) = FACE_MATERIALS[f];
                if name == "EyeMaterial" {
                    index_of(&|| eyes(name, srgb))
                } else {
                    index_of(&|| flat(name, srgb))
                }
            } else if set.iter().any(|n| n == "body") || set.is_empty() {
                index_of(&|| {
                    material_from(
                        SKIN.to_owned(),
                        wardrobe.skin,
                        Role::Skin {
                            skin_srgb: skin_srgb(race),
                        },
                    )
                })
            } else if set.iter().any(|n| n.contains("eyelashes")) {
                index_of(&|| flat("EyelashMaterial", EYELASH_SRGB))
            } else {
                index_of(&|| flat("HelperMaterial", HELPER_SRGB))
            }
        })
        .collect();
    character.mesh.polygons =
        derived
            .dressed
            .get_or((Id::of(polygons), part_material.clone()), || {
                let mut dressed = Polygons::clone(polygons);
                for (material, &part) in dressed.materials.iter_mut().zip(&dressed.parts) {
                    if material.is_none() {
                        *material = part_material.get(part as usize).copied();
                    }
                }
                Arc::new(dressed)
            });
    character
}

#[cfg(test)]
mod tests {
    use super::*;

    fn skin_color(race: Race) -> [f64; 4] {
        linear_rgba(skin_srgb(race))
    }

    fn race(african: f64, asian: f64, caucasian: f64) -> Race {
        Race {
            african,
            asian,
            caucasian,
        }
    }

    #[test]
    fn a_pure_race_is_makehumans_colour_made_linear() {
        assert_eq!(skin_srgb(race(1.0, 0.0, 0.0)), AFRICAN_SRGB);
        assert_eq!(skin_srgb(race(0.0, 0.0, 1.0)), CAUCASIAN_SRGB);
        let c = skin_color(race(0.0, 1.0, 0.0));
        // 0.721 sRGB is 0.479 linear.
        assert!((c[0] - 0.4793).abs() < 1e-3, "{c:?}");
        assert_eq!(c[3], 1.0);
    }

    #[test]
    fn mixes_blend_in_srgb_and_normalise_like_makehuman() {
        // Weights clamp to [0, 1] and are normalised: 2:0:2 is half and half.
        let half = skin_srgb(race(2.0, 0.0, 2.0));
        let expected: [f64; 3] =
            std::array::from_fn(|i| 0.5 * AFRICAN_SRGB[i] + 0.5 * CAUCASIAN_SRGB[i]);
        for i in 0..3 {
            assert!((half[i] - expected[i]).abs() < 1e-12);
        }
        assert_eq!(normalised_race(race(0.0, 0.0, 0.0)), [1.0 / 3.0; 3]);
        // Darker with more African weight, channel by channel.
        let light = skin_color(race(0.1, 0.2, 0.7));
        let dark = skin_color(race(0.7, 0.2, 0.1));
        assert!((0..3).all(|i| dark[i] < light[i]));
    }
}
