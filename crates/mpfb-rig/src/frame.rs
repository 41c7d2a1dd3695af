//! Blender's edit-bone frame maths in f64: direction + roll to a rest basis and back, and
//! MPFB's roll strategies. Everything here is in Blender space (Z up, local +Y head to tail).

use crate::model::RollStrategy;
use glam::{DMat3, DQuat, DVec3};

/// Below this `1 + y` Blender stops trusting `theta` near the -Y singularity (its f32 constant).
const SAFE_THRESHOLD: f64 = 6.1e-3;
/// Below this XZ distance Blender treats the direction as exactly -Y (its f32 constant).
const CRITICAL_THRESHOLD: f64 = 2.5e-4;

/// Blender's `vec_roll_to_mat3`: the rest basis (columns X, Y, Z) of a bone pointing along
/// `direction` (need not be unit) with `roll` radians about it.
///
/// Zero roll is the shortest-arc rotation taking +Y to the direction; near -Y (where that
/// rotation is undefined) Blender uses a series expansion, and at -Y itself the rotation by
/// pi about Z. Then the roll turns the basis about the direction.
pub fn vec_roll_to_mat3(direction: DVec3, roll: f64) -> DMat3 {
    let n = direction.normalize_or_zero();
    let (x, y, z) = (n.x, n.y, n.z);
    let mut theta = 1.0 + y;
    let theta_alt = x * x + z * z;
    let zero_roll = if theta > SAFE_THRESHOLD || theta_alt > CRITICAL_THRESHOLD * CRITICAL_THRESHOLD
    {
        if theta <= SAFE_THRESHOLD {
            // 1 + y loses precision near -Y. Blender (in f32) substitutes the series
            // t/2 + t^2/8 of 1 - sqrt(1 - t); that truncation leaves the basis off-orthonormal
            // by up to ~4e-5. In f64 we use the exact identity 1 + y = t / (1 - y), which is
            // what the series approximates (see spec-notes/mpfb-rig.md).
            theta = theta_alt / (1.0 - y);
        }
        DMat3::from_cols(
            DVec3::new(1.0 - x * x / theta, -x, -x * z / theta),
            DVec3::new(x, y, z),
            DVec3::new(-x * z / theta, -z, 1.0 - z * z / theta),
        )
    } else {
        // Pointing straight down -Y: mirror by the Z axis.
        DMat3::from_cols(
            DVec3::new(-1.0, 0.0, 0.0),
            DVec3::new(0.0, -1.0, 0.0),
            DVec3::new(0.0, 0.0, 1.0),
        )
    };
    DMat3::from_axis_angle(n, roll) * zero_roll
}

/// Blender's `mat3_vec_to_roll`: the roll that, with `direction`, reproduces `basis` as
/// closely as possible (the twist of `basis` relative to the zero-roll basis), in (-pi, pi].
pub fn mat3_to_roll(basis: DMat3, direction: DVec3) -> f64 {
    let zero_roll = vec_roll_to_mat3(direction, 0.0);
    // A true inverse, as Blender's `invert_m3`: near -Y the series expansion makes the
    // zero-roll basis only approximately orthonormal.
    let twist = zero_roll.inverse() * basis;
    let mut q = DQuat::from_mat3(&twist);
    if q.w < 0.0 {
        q = -q;
    }
    2.0 * q.y.atan2(q.w)
}

/// MPFB's `matrix_from_axis_pair`: a basis with Y along `y_axis` and the named axis (X or Z)
/// as close as possible to `other`. `None` when the two are parallel (no unique answer).
fn matrix_from_axis_pair(y_axis: DVec3, other: DVec3, align_x: bool) -> Option<DMat3> {
    let y = y_axis.normalize_or_zero();
    let (x, z) = if align_x {
        let z = other.cross(y);
        let z = (z.length() > 1e-9).then(|| z.normalize())?;
        (y.cross(z), z)
    } else {
        let x = y.cross(other);
        let x = (x.length() > 1e-9).then(|| x.normalize())?;
        (x, x.cross(y))
    };
    Some(DMat3::from_cols(x, y, z))
}

/// The roll a roll strategy gives a bone pointing along `direction`, as MPFB computes it
/// (`AxisRollFromMatrix` of the aligned basis). `None` when the bone is parallel to the
/// strategy's reference axis, where the alignment is undefined.
pub fn roll_from_strategy(direction: DVec3, strategy: &RollStrategy) -> Option<f64> {
    let basis = match strategy {
        RollStrategy::AlignZWorldZ => matrix_from_axis_pair(direction, DVec3::Z, false),
        RollStrategy::AlignXWorldX => matrix_from_axis_pair(direction, DVec3::X, true),
        RollStrategy::AlignZReferenceZ { reference } => {
            matrix_from_axis_pair(direction, DVec3::from_array(*reference), false)
        }
    }?;
    Some(mat3_to_roll(basis, direction))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn assert_mat_close(a: DMat3, b: DMat3, tol: f64) {
        assert!(a.abs_diff_eq(b, tol), "matrices differ:\n{a:?}\n{b:?}");
    }

    #[test]
    fn bone_along_plus_y_with_zero_roll_is_identity() {
        assert_mat_close(vec_roll_to_mat3(DVec3::Y, 0.0), DMat3::IDENTITY, 1e-15);
    }

    #[test]
    fn bone_pointing_up_blender_z() {
        // Blender: a bone pointing up (+Z) with roll 0 has X = +X and Z = -Y.
        let m = vec_roll_to_mat3(DVec3::Z, 0.0);
        assert_mat_close(m, DMat3::from_cols(DVec3::X, DVec3::Z, DVec3::NEG_Y), 1e-15);
    }

    #[test]
    fn bone_pointing_down_blender_minus_z() {
        let m = vec_roll_to_mat3(DVec3::NEG_Z, 0.0);
        assert_mat_close(m, DMat3::from_cols(DVec3::X, DVec3::NEG_Z, DVec3::Y), 1e-15);
    }

    #[test]
    fn bone_along_minus_y_uses_blender_special_case() {
        let m = vec_roll_to_mat3(DVec3::NEG_Y, 0.0);
        assert_mat_close(
            m,
            DMat3::from_cols(DVec3::NEG_X, DVec3::NEG_Y, DVec3::Z),
            1e-15,
        );
        // Just off -Y the series expansion keeps the basis continuous with the special case.
        let near = vec_roll_to_mat3(DVec3::new(1e-5, -1.0, 0.0), 0.0);
        assert!(near.x_axis.abs_diff_eq(DVec3::NEG_X, 1e-4), "{near:?}");
        assert!(near.z_axis.abs_diff_eq(DVec3::Z, 1e-4), "{near:?}");
    }

    #[test]
    fn roll_turns_about_the_bone_axis() {
        // Along +Y, roll r rotates X towards -Z (right-handed about +Y).
        let r = 0.3_f64;
        let m = vec_roll_to_mat3(DVec3::Y, r);
        assert!(
            m.x_axis
                .abs_diff_eq(DVec3::new(r.cos(), 0.0, -r.sin()), 1e-15)
        );
        assert!(
            m.z_axis
                .abs_diff_eq(DVec3::new(r.sin(), 0.0, r.cos()), 1e-15)
        );
    }

    #[test]
    fn roll_round_trips_through_the_basis() {
        for &dir in &[
            DVec3::new(0.3, -0.2, 0.9),
            DVec3::new(-0.7, 0.1, -0.2),
            DVec3::NEG_Y,
            DVec3::new(0.01, -1.0, 0.002),
        ] {
            for &roll in &[0.0, 1.0, -2.5, 3.0] {
                let m = vec_roll_to_mat3(dir, roll);
                let back = mat3_to_roll(m, dir);
                assert!(
                    (back - roll).abs() < 1e-9,
                    "dir {dir} roll {roll} back {back}"
                );
            }
        }
    }

    #[test]
    fn align_z_world_z_makes_local_z_closest_to_up() {
        let dir = DVec3::new(1.0, 0.2, 0.1);
        let roll = roll_from_strategy(dir, &RollStrategy::AlignZWorldZ).unwrap();
        let m = vec_roll_to_mat3(dir, roll);
        // Hand-computed: x = unit(d x Z), z = x x d for unit d.
        let d = dir.normalize();
        let x = d.cross(DVec3::Z).normalize();
        let z = x.cross(d);
        assert!(m.x_axis.abs_diff_eq(x, 1e-12) && m.z_axis.abs_diff_eq(z, 1e-12));
        assert!(m.z_axis.z > 0.0);
    }

    #[test]
    fn align_x_world_x_makes_local_x_closest_to_x() {
        let dir = DVec3::new(0.1, -0.3, -1.0);
        let roll = roll_from_strategy(dir, &RollStrategy::AlignXWorldX).unwrap();
        let m = vec_roll_to_mat3(dir, roll);
        let d = dir.normalize();
        let z = DVec3::X.cross(d).normalize();
        let x = d.cross(z);
        assert!(m.x_axis.abs_diff_eq(x, 1e-12) && m.z_axis.abs_diff_eq(z, 1e-12));
        assert!(m.x_axis.x > 0.0);
    }

    #[test]
    fn align_z_reference_uses_the_stored_vector() {
        let dir = DVec3::new(0.0, 0.0, 1.0);
        let reference = [0.0, -1.0, 0.0];
        let roll = roll_from_strategy(dir, &RollStrategy::AlignZReferenceZ { reference }).unwrap();
        let m = vec_roll_to_mat3(dir, roll);
        assert!(m.z_axis.abs_diff_eq(DVec3::NEG_Y, 1e-12), "{m:?}");
        assert!(
            roll.abs() < 1e-12,
            "up with Z toward -Y is Blender's zero roll"
        );
    }

    #[test]
    fn parallel_reference_has_no_unique_roll() {
        assert_eq!(
            roll_from_strategy(DVec3::Z, &RollStrategy::AlignZWorldZ),
            None
        );
        assert_eq!(
            roll_from_strategy(DVec3::NEG_X, &RollStrategy::AlignXWorldX),
            None
        );
    }
}
