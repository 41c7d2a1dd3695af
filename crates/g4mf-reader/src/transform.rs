//! A G4MF node's transform relative to its parent (the specification's transform.md):
//! `position`, and `basis` (column-major) or else `rotor` times `scale`. The one reading of
//! them: the character reader takes it strictly ([`Transform::of_node`]), pictures and the
//! tests' skinning judge leniently ([`Transform::of_node_lenient`]).

use g4mf_model::Node;
use glam::{DAffine3, DMat3, DQuat, DVec3};

/// A transform: `basis * x + position`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Transform {
    /// Columns X, Y, Z.
    pub basis: DMat3,
    /// Translation.
    pub position: DVec3,
}

/// A member of a node's transform that cannot be read: which (`position`, `basis`, `rotor`,
/// `scale`) and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TransformError {
    /// The node's member.
    pub key: &'static str,
    /// What is wrong with it.
    pub message: String,
}

impl Transform {
    /// No change.
    pub const IDENTITY: Self = Self {
        basis: DMat3::IDENTITY,
        position: DVec3::ZERO,
    };

    /// `local` (a transform in this one's space) in this transform's parent space.
    pub fn then(self, local: Transform) -> Self {
        Self {
            basis: self.basis * local.basis,
            position: self.basis * local.position + self.position,
        }
    }

    /// Every number finite.
    pub fn is_finite(&self) -> bool {
        self.basis.is_finite() && self.position.is_finite()
    }

    /// The same transform as a glam affine map.
    pub fn affine(&self) -> DAffine3 {
        DAffine3::from_mat3_translation(self.basis, self.position)
    }

    /// `node`'s transform relative to its parent: `basis` when given, else `rotor` (identity
    /// without one) times `scale` (one without one), then `position`. Refuses a member of the
    /// wrong length, a rotor of no length and a scale that is not positive.
    pub fn of_node(node: &Node) -> Result<Self, TransformError> {
        let position = position(node)?;
        let basis = match basis(node)? {
            Some(basis) => basis,
            None => {
                let rotation = rotation(node)?;
                let scale = scale(node)?;
                if !(scale.cmpgt(DVec3::ZERO).all() && scale.is_finite()) {
                    return Err(malformed("scale", "a scale must be positive".into()));
                }
                rotation * DMat3::from_diagonal(scale)
            }
        };
        Ok(Self { basis, position })
    }

    /// `node`'s transform as [`Transform::of_node`] reads it, each member that cannot be read
    /// left out (no position, the rotor and scale for a basis, no turn, no scaling); a scale
    /// that is not positive is kept. What a picture draws of any file.
    pub fn of_node_lenient(node: &Node) -> Self {
        let basis = basis(node).ok().flatten().unwrap_or_else(|| {
            rotation(node).unwrap_or(DMat3::IDENTITY)
                * DMat3::from_diagonal(scale(node).unwrap_or(DVec3::ONE))
        });
        Self {
            basis,
            position: position(node).unwrap_or(DVec3::ZERO),
        }
    }
}

/// A 3D rotor `[scalar, xy, xz, yz]` as a unit quaternion (`None` for a rotor of no length or
/// not finite). The rotor `cos(θ/2) - sin(θ/2) e_ab` turns axis a toward axis b by θ (sandwich
/// `R v R~`); the quaternion turning x toward y is `cos(θ/2) + sin(θ/2) k`, so k = -xy,
/// likewise i = -yz and j = xz (as e_zx = -e_xz). See `spec-notes/g4mf.md`.
pub fn rotor_to_quat([scalar, xy, xz, yz]: [f64; 4]) -> Option<DQuat> {
    let q = DQuat::from_xyzw(-yz, xz, -xy, scalar);
    let length = q.length();
    (length.is_finite() && length > 0.0).then(|| q.normalize())
}

fn malformed(key: &'static str, message: String) -> TransformError {
    TransformError { key, message }
}

/// `position` (zero without one).
fn position(node: &Node) -> Result<DVec3, TransformError> {
    match node.position.as_deref() {
        None => Ok(DVec3::ZERO),
        Some(p @ [_, _, _]) => Ok(DVec3::from_slice(p)),
        Some(p) => Err(malformed("position", format!("{} numbers, not 3", p.len()))),
    }
}

/// `basis`, when the node has one.
fn basis(node: &Node) -> Result<Option<DMat3>, TransformError> {
    match node.basis.as_deref() {
        None => Ok(None),
        Some(b) if b.len() == 9 => Ok(Some(DMat3::from_cols_slice(b))),
        Some(b) => Err(malformed("basis", format!("{} numbers, not 9", b.len()))),
    }
}

/// The rotation of `rotor` (identity without one).
fn rotation(node: &Node) -> Result<DMat3, TransformError> {
    match node.rotor.as_deref() {
        None => Ok(DMat3::IDENTITY),
        Some(&[scalar, xy, xz, yz]) => rotor_to_quat([scalar, xy, xz, yz])
            .map(DMat3::from_quat)
            .ok_or_else(|| malformed("rotor", "a rotor of no length".into())),
        Some(r) => Err(malformed(
            "rotor",
            format!("{} numbers; a 3D rotor has 4", r.len()),
        )),
    }
}

/// `scale`: one number, or one per axis (one without any).
fn scale(node: &Node) -> Result<DVec3, TransformError> {
    match node.scale.as_deref() {
        None => Ok(DVec3::ONE),
        Some(&[s]) => Ok(DVec3::splat(s)),
        Some(s @ [_, _, _]) => Ok(DVec3::from_slice(s)),
        Some(s) => Err(malformed(
            "scale",
            format!("{} numbers, not 1 or 3", s.len()),
        )),
    }
}
