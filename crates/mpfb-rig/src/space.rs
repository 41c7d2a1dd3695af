//! Coordinate conventions shared by every crate: OBJ space, Blender space and G4MF space.
//!
//! - OBJ (`base.obj`): Y up, decimetres, the character faces +Z.
//! - Blender (where MPFB evaluates strategies, offsets and rolls): Z up, metres, faces -Y:
//!   `blender = (x, -z, y) * scale` for a Y-up OBJ.
//! - G4MF: Y up, metres, faces +Z: `g4mf = (bx, bz, -by)`, so `g4mf = obj * scale`.

use glam::{DMat3, DVec3};

/// Which OBJ axis points up.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum UpAxis {
    /// Y up (MakeHuman's `base.obj`, Blender's default OBJ export).
    #[default]
    Y,
    /// Z up (an OBJ written in Blender's own axes).
    Z,
}

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
    fn basis_mapping_matches_point_mapping_and_is_a_rotation() {
        let v = DVec3::new(0.3, -0.5, 0.7);
        assert!((BLENDER_TO_G4MF * v).abs_diff_eq(blender_to_g4mf(v), 1e-15));
        assert!((BLENDER_TO_G4MF.determinant() - 1.0).abs() < 1e-15);
        assert!(g4mf_to_blender(blender_to_g4mf(v)).abs_diff_eq(v, 1e-15));
        let m = DMat3::from_cols(DVec3::X, DVec3::Z, DVec3::NEG_Y);
        assert!(basis_g4mf_to_blender(basis_blender_to_g4mf(m)).abs_diff_eq(m, 1e-15));
    }
}
