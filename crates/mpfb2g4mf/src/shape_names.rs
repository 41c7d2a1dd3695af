//! The names blend shapes get: MakeHuman's ARKit-named face units under G4MF's face-tracking
//! names (`parts/mesh/character_avatar.md`, its ARKit column read backwards), and the
//! Meta-style visemes under G4MF's viseme names (its conversion rules). Where the table has
//! no row, or looks wrong, `spec-notes/g4mf.md` says what we did.

/// `(face unit file name, G4MF name)` for the 52 face units, in G4MF name order, then the two
/// ARKit shapes G4MF does not define (kept under their ARKit names).
pub const FACE_UNITS: [(&str, &str); 52] = [
    ("browDownLeft", "FaceBrowDownLeft"),
    ("browDownRight", "FaceBrowDownRight"),
    ("browInnerUp", "FaceBrowInnerUp"),
    ("browOuterUpLeft", "FaceBrowOuterUpLeft"),
    ("browOuterUpRight", "FaceBrowOuterUpRight"),
    ("cheekPuff", "FaceCheekPuff"),
    ("cheekSquintLeft", "FaceCheekSquintLeft"),
    ("cheekSquintRight", "FaceCheekSquintRight"),
    ("eyeBlinkLeft", "FaceEyeClosedLeft"),
    ("eyeBlinkRight", "FaceEyeClosedRight"),
    ("eyeLookDownLeft", "FaceEyeLookDownLeft"),
    ("eyeLookDownRight", "FaceEyeLookDownRight"),
    ("eyeLookInLeft", "FaceEyeLookInLeft"),
    ("eyeLookInRight", "FaceEyeLookInRight"),
    ("eyeLookOutLeft", "FaceEyeLookOutLeft"),
    ("eyeLookOutRight", "FaceEyeLookOutRight"),
    ("eyeLookUpLeft", "FaceEyeLookUpLeft"),
    ("eyeLookUpRight", "FaceEyeLookUpRight"),
    ("eyeSquintLeft", "FaceEyeSquintLeft"),
    ("eyeSquintRight", "FaceEyeSquintRight"),
    ("eyeWideLeft", "FaceEyeWideLeft"),
    ("eyeWideRight", "FaceEyeWideRight"),
    ("jawForward", "FaceJawForward"),
    ("jawLeft", "FaceJawLeft"),
    ("jawOpen", "FaceJawOpen"),
    ("jawRight", "FaceJawRight"),
    ("mouthFunnel", "FaceLipFunnel"),
    ("mouthPucker", "FaceLipPucker"),
    ("mouthRollLower", "FaceLipSuckLower"),
    ("mouthRollUpper", "FaceLipSuckUpper"),
    ("mouthClose", "FaceMouthClosed"),
    ("mouthDimpleLeft", "FaceMouthDimplerLeft"),
    ("mouthDimpleRight", "FaceMouthDimplerRight"),
    ("mouthFrownLeft", "FaceMouthFrownLeft"),
    ("mouthFrownRight", "FaceMouthFrownRight"),
    // The table's ARKit column says `mouthLowerUpLeft`/`Right` here: ARKit has no such
    // shapes; its `mouthLowerDownLeft`/`Right` are these rows (a typo in the table).
    ("mouthLowerDownLeft", "FaceMouthLowerDownLeft"),
    ("mouthLowerDownRight", "FaceMouthLowerDownRight"),
    ("mouthPressLeft", "FaceMouthPressLeft"),
    ("mouthPressRight", "FaceMouthPressRight"),
    ("mouthShrugLower", "FaceMouthRaiserLower"),
    ("mouthShrugUpper", "FaceMouthRaiserUpper"),
    ("mouthSmileLeft", "FaceMouthSmileLeft"),
    ("mouthSmileRight", "FaceMouthSmileRight"),
    ("mouthStretchLeft", "FaceMouthStretchLeft"),
    ("mouthStretchRight", "FaceMouthStretchRight"),
    ("mouthUpperUpLeft", "FaceMouthUpperUpLeft"),
    ("mouthUpperUpRight", "FaceMouthUpperUpRight"),
    ("noseSneerLeft", "FaceNoseSneerLeft"),
    ("noseSneerRight", "FaceNoseSneerRight"),
    ("tongueOut", "FaceTongueOut"),
    // No row in G4MF's table (Unified Expressions splits them into upper and lower lip
    // shapes): kept under ARKit's own names so no reader mistakes them for a G4MF shape.
    ("mouthLeft", "mouthLeft"),
    ("mouthRight", "mouthRight"),
];

/// `(viseme file name, G4MF name)` for the 15 Meta Horizon visemes, in G4MF's table order:
/// "E" -> `EE`, "I" -> `IH`, "O" -> `OH`, "U" -> `OU`, capitalised, `Viseme` prefix.
pub const VISEMES: [(&str, &str); 15] = [
    ("viseme_sil", "VisemeSIL"),
    ("viseme_PP", "VisemePP"),
    ("viseme_FF", "VisemeFF"),
    ("viseme_TH", "VisemeTH"),
    ("viseme_DD", "VisemeDD"),
    ("viseme_kk", "VisemeKK"),
    ("viseme_CH", "VisemeCH"),
    ("viseme_SS", "VisemeSS"),
    ("viseme_nn", "VisemeNN"),
    ("viseme_RR", "VisemeRR"),
    ("viseme_aa", "VisemeAA"),
    ("viseme_E", "VisemeEE"),
    ("viseme_I", "VisemeIH"),
    ("viseme_O", "VisemeOH"),
    ("viseme_U", "VisemeOU"),
];

/// G4MF's viseme name for a Meta Horizon viseme name (`viseme_` prefix optional), by the
/// spec's conversion rule; `None` for names outside the Meta set.
pub fn viseme_name(meta: &str) -> Option<&'static str> {
    let bare = meta.strip_prefix("viseme_").unwrap_or(meta);
    VISEMES
        .iter()
        .find(|(file, _)| file.strip_prefix("viseme_") == Some(bare))
        .map(|(_, g4mf)| *g4mf)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_follow_the_rules() {
        let mut g4mf: Vec<&str> = FACE_UNITS.iter().chain(&VISEMES).map(|p| p.1).collect();
        g4mf.sort_unstable();
        g4mf.dedup();
        assert_eq!(g4mf.len(), 67);
        // Every G4MF face name is `Face` + a capitalised name; visemes `Viseme` + capitals.
        for (arkit, name) in &FACE_UNITS[..50] {
            assert!(name.starts_with("Face"), "{arkit} -> {name}");
        }
        for (meta, name) in VISEMES {
            let rest = name.strip_prefix("Viseme").unwrap();
            assert!(
                rest.chars().all(|c| c.is_ascii_uppercase()),
                "{meta} -> {name}"
            );
        }
        assert_eq!(viseme_name("viseme_aa"), Some("VisemeAA"));
        assert_eq!(viseme_name("U"), Some("VisemeOU"));
        assert_eq!(viseme_name("viseme_zz"), None);
    }
}
