//! Coordinate conventions shared by every crate: OBJ space, Blender space and G4MF space.
//!
//! - OBJ (`base.obj`): Y up, decimetres, the character faces +Z.
//! - Blender (where MPFB evaluates strategies, offsets and rolls): Z up, metres, faces -Y:
//!   `blender = (x, -z, y) * scale` for a Y-up OBJ.
//! - G4MF: Y up, metres, faces +Z: `g4mf = (bx, bz, -by)`, so `g4mf = obj * scale`.

use glam::{DMat3, DVec3};

/// Which OBJ axis points up. In settings files and on the command line: `y` or `z`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
#[serde(rename_all = "snake_case")]
pub enum UpAxis {
    /// Y up (MakeHuman's `base.obj`, Blender's default OBJ export).
    #[default]
    Y,
    /// Z up (an OBJ written in Blender's own axes).
    Z,
}

impl UpAxis {
    /// `y` or `z`, as settings, flags and the file's extras spell it.
    pub fn name(self) -> &'static str {
        match self {
            UpAxis::Y => "y",
            UpAxis::Z => "z",
        }
    }
}

/// MPFB's `scale_factor` for a body in metres (MakeHuman's decimetres times 0.1): our Blender
/// space is always this scene, whatever unit an input OBJ was written in.
pub const METRE_SCALE_FACTOR: f64 = 0.1;

/// How an OBJ file's coordinates map to Blender space: axis convention and unit scale
/// (MPFB's `scale_factor` of the mesh; 0.1 turns decimetres into metres).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ObjFrame {
    /// Multiplier from OBJ units to metres.
    pub scale: f64,
    /// The OBJ's up axis.
    pub up: UpAxis,
}

impl ObjFrame {
    /// MakeHuman's `base.obj`: decimetres, Y up.
    pub const MAKEHUMAN: ObjFrame = ObjFrame {
        scale: 0.1,
        up: UpAxis::Y,
    };

    /// An OBJ position in Blender space.
    pub fn obj_to_blender(&self, v: DVec3) -> DVec3 {
        let axes = match self.up {
            UpAxis::Y => DVec3::new(v.x, -v.z, v.y),
            UpAxis::Z => v,
        };
        axes * self.scale
    }

    /// An OBJ position in G4MF space.
    pub fn obj_to_g4mf(&self, v: DVec3) -> DVec3 {
        blender_to_g4mf(self.obj_to_blender(v))
    }
}

/// A body whose height, under the chosen scale, is unlikely for a person.
#[derive(Debug, Clone, PartialEq)]
pub struct ScaleWarning {
    /// The body's height in metres under the chosen frame.
    pub height: f64,
    /// The scale in use.
    pub scale: f64,
    /// A power-of-ten scale that would give a human height (1 to 2.5 m), if one does.
    pub suggested_scale: Option<f64>,
}

impl std::fmt::Display for ScaleWarning {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "the body is {:.3} m tall with mesh scale {}; is the scale right?",
            self.height, self.scale
        )?;
        if let Some(s) = self.suggested_scale {
            write!(
                f,
                " (scale {s} would make it {:.2} m)",
                self.height / self.scale * s
            )?;
        }
        f.write_str(
            " base.obj is in decimetres (scale 0.1); Blender exports are usually metres (scale 1)",
        )
    }
}

impl ObjFrame {
    /// Humans (and most characters) stand between these heights, in metres.
    pub const PLAUSIBLE_HEIGHT: std::ops::RangeInclusive<f64> = 0.3..=3.0;

    /// Checks the height (extent along the up axis) of OBJ positions under this frame, and
    /// warns when it is outside [`Self::PLAUSIBLE_HEIGHT`]: the usual sign of a wrong scale.
    pub fn check_height(&self, positions: impl IntoIterator<Item = DVec3>) -> Option<ScaleWarning> {
        let (low, high) = positions
            .into_iter()
            .map(|p| self.obj_to_blender(p).z)
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), z| {
                (lo.min(z), hi.max(z))
            });
        if low > high {
            return None; // no vertices
        }
        let height = high - low;
        if Self::PLAUSIBLE_HEIGHT.contains(&height) {
            return None;
        }
        let raw = height / self.scale;
        let suggested_scale = (-6..=6)
            .map(|e| 10f64.powi(e))
            .find(|s| (1.0..=2.5).contains(&(raw * s)));
        Some(ScaleWarning {
            height,
            scale: self.scale,
            suggested_scale,
        })
    }
}

impl Default for ObjFrame {
    fn default() -> Self {
        Self::MAKEHUMAN
    }
}

/// The rotation taking Blender axes to G4MF axes (columns: images of Blender X, Y, Z).
pub const BLENDER_TO_G4MF: DMat3 = DMat3::from_cols(DVec3::X, DVec3::NEG_Z, DVec3::Y);

/// A Blender-space point or vector in G4MF space: `(bx, bz, -by)`.
pub fn blender_to_g4mf(v: DVec3) -> DVec3 {
    DVec3::new(v.x, v.z, -v.y)
}

/// A G4MF-space point or vector in Blender space: `(gx, -gz, gy)`.
pub fn g4mf_to_blender(v: DVec3) -> DVec3 {
    DVec3::new(v.x, -v.z, v.y)
}

/// A Blender-space basis (columns are the bone's local axes) in G4MF space.
pub fn basis_blender_to_g4mf(m: DMat3) -> DMat3 {
    BLENDER_TO_G4MF * m
}

/// A G4MF-space basis in Blender space.
pub fn basis_g4mf_to_blender(m: DMat3) -> DMat3 {
    BLENDER_TO_G4MF.transpose() * m
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn makehuman_obj_maps_to_g4mf_by_scaling_only() {
        let v = DVec3::new(1.0, 2.0, 3.0);
        let f = ObjFrame::MAKEHUMAN;
        assert!(
            f.obj_to_blender(v)
                .abs_diff_eq(DVec3::new(0.1, -0.3, 0.2), 1e-15)
        );
        assert!(f.obj_to_g4mf(v).abs_diff_eq(v * 0.1, 1e-15));
    }

    #[test]
    fn z_up_obj_is_blender_space_scaled() {
        let f = ObjFrame {
            scale: 1.0,
            up: UpAxis::Z,
        };
        let v = DVec3::new(1.0, 2.0, 3.0);
        assert_eq!(f.obj_to_blender(v), v);
        assert_eq!(f.obj_to_g4mf(v), DVec3::new(1.0, 3.0, -2.0));
    }

    #[test]
    fn implausible_heights_warn_with_a_suggestion() {
        let body = [DVec3::new(0.0, -8.0, 0.0), DVec3::new(0.0, 9.0, 0.0)]; // 17 OBJ units
        assert_eq!(ObjFrame::MAKEHUMAN.check_height(body), None, "1.7 m");
        let metres = ObjFrame {
            scale: 1.0,
            up: UpAxis::Y,
        };
        let warning = metres.check_height(body).unwrap();
        assert!((warning.height - 17.0).abs() < 1e-12);
        assert_eq!(warning.suggested_scale, Some(0.1));
        assert!(
            warning
                .to_string()
                .contains("17.000 m tall with mesh scale 1")
        );
        // With the wrong up axis the "height" is the depth of the body.
        let z_up = ObjFrame {
            scale: 0.1,
            up: UpAxis::Z,
        };
        assert!(
            z_up.check_height([DVec3::new(0.0, -8.0, 0.0), DVec3::new(0.0, 9.0, 0.5)])
                .is_some()
        );
    }

    #[test]
    fn basis_mapping_matches_point_mapping_and_is_a_rotation() {
        let v = DVec3::new(0.3, -0.5, 0.7);
        assert!((BLENDER_TO_G4MF * v).abs_diff_eq(blender_to_g4mf(v), 1e-15));
        assert!((BLENDER_TO_G4MF.determinant() - 1.0).abs() < 1e-15);
        assert!(g4mf_to_blender(blender_to_g4mf(v)).abs_diff_eq(v, 1e-15));
        let m = DMat3::from_cols(DVec3::X, DVec3::Z, DVec3::NEG_Y);
        assert!(basis_g4mf_to_blender(basis_blender_to_g4mf(m)).abs_diff_eq(m, 1e-15));
    }
}
