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

use super::transforms::FACE_PARTS;
use character::{Character, Material};
use mpfb_body::Race;

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

/// One sRGB-encoded component as linear (IEC 61966-2-1).
pub fn srgb_to_linear(c: f64) -> f64 {
    if c <= 0.04045 {
        c / 12.92
    } else {
        ((c + 0.055) / 1.055).powf(2.4)
    }
}

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

/// The skin's linear RGBA base colour for a race mix.
pub fn skin_color(race: Race) -> [f64; 4] {
    linear_rgba(skin_srgb(race))
}

/// Gives every polygon without a material one: face helpers theirs, eyelashes and other
/// helpers theirs, everything else the skin. Polygons the mesh file gave a material keep it.
pub fn dress(mut character: Character, race: Race) -> Character {
    let polygons = &mut character.mesh.polygons;
    let materials = &mut character.materials;
    let mut index_of = |name: &str, color: [f64; 4]| -> u32 {
        match materials.iter().position(|m| m.name == name) {
            Some(i) => {
                let m = &mut materials[i];
                m.base_color.get_or_insert(color);
                i as u32
            }
            None => {
                materials.push(Material {
                    name: name.to_owned(),
                    base_color: Some(color),
                    render: None,
                    textures: Default::default(),
                });
                (materials.len() - 1) as u32
            }
        }
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
                index_of(name, linear_rgba(srgb))
            } else if set.iter().any(|n| n == "body") || set.is_empty() {
                index_of(SKIN, skin_color(race))
            } else if set.iter().any(|n| n.contains("eyelashes")) {
                index_of("EyelashMaterial", linear_rgba(EYELASH_SRGB))
            } else {
                index_of("HelperMaterial", linear_rgba(HELPER_SRGB))
            }
        })
        .collect();
    for (material, &part) in polygons.materials.iter_mut().zip(&polygons.parts) {
        if material.is_none() {
            *material = part_material.get(part as usize).copied();
        }
    }
    character
}

#[cfg(test)]
mod tests {
    use super::*;

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
