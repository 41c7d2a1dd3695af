//! MPFB pose files (`poses/<rig>_fk/*.json`): per-bone rotations in the bone's local rest frame
//! (Blender's `rotation_euler` in any Euler order, `rotation_quaternion` as `w, x, y, z`, or
//! `rotation_axis_angle` as `angle, x, y, z`) and translations (`location`), read into
//! rotation matrices and vectors in that local frame.

use glam::{DMat3, DQuat, DVec3};
use serde_json::{Map, Value};
use std::path::Path;

/// A pose as MPFB's file gives it, rotations resolved.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Pose {
    /// `(bone, rotation)` in the file's order: the pose bone's rotation in its local frame.
    pub rotations: Vec<(String, DMat3)>,
    /// `(bone, location)` in the file's order, before MPFB's scaling.
    pub translations: Vec<(String, DVec3)>,
    /// The rig the pose was made for (`skeleton_type`).
    pub skeleton_type: String,
    /// Shoulder width the translations were authored for (0: no scaling).
    pub original_shoulder_width: f64,
    /// Spine length the translations were authored for (0: no scaling).
    pub original_spine_length: f64,
}

/// A pose file cannot be read.
#[derive(Debug, thiserror::Error)]
#[error("{location}: {message}")]
pub struct PoseError {
    /// The file and the JSON pointer (or line:column) of the problem.
    pub location: crate::Location,
    /// What is wrong.
    pub message: String,
}

/// Blender's rotation for an Euler `order` (`XYZ` applies X first: `Rz * Ry * Rx`).
pub fn euler(order: &str, angles: [f64; 3]) -> Option<DMat3> {
    let axis = |c: char, a: f64| match c {
        'X' => Some(DMat3::from_rotation_x(a)),
        'Y' => Some(DMat3::from_rotation_y(a)),
        'Z' => Some(DMat3::from_rotation_z(a)),
        _ => None,
    };
    let chars: Vec<char> = order.chars().collect();
    if chars.len() != 3 {
        return None;
    }
    let mut m = DMat3::IDENTITY;
    for &c in &chars {
        let a = match c {
            'X' => angles[0],
            'Y' => angles[1],
            'Z' => angles[2],
            _ => return None,
        };
        // Each later axis applies after (left of) the earlier ones.
        m = axis(c, a)? * m;
    }
    Some(m)
}

fn numbers(value: &Value) -> Option<Vec<f64>> {
    value
        .as_array()?
        .iter()
        .map(|v| v.as_f64().filter(|f| f.is_finite()))
        .collect()
}

/// Reads a pose from JSON text; `path` names the file in errors.
pub fn parse_pose(text: &str, path: &Path) -> Result<Pose, PoseError> {
    let at = |pointer: String, message: String| PoseError {
        location: crate::Location::pointer(pointer).in_file(path),
        message,
    };
    let root: Map<String, Value> = serde_json::from_str(text).map_err(|e| PoseError {
        location: crate::Location::line_column(e.line(), e.column()).in_file(path),
        message: e.to_string(),
    })?;
    let empty = Map::new();
    let modes = root
        .get("bone_rotation_modes")
        .and_then(Value::as_object)
        .unwrap_or(&empty);
    let mut pose = Pose {
        skeleton_type: root
            .get("skeleton_type")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_owned(),
        original_shoulder_width: root
            .get("original_shoulder_width")
            .and_then(Value::as_f64)
            .unwrap_or(0.0),
        original_spine_length: root
            .get("original_spine_length")
            .and_then(Value::as_f64)
            .unwrap_or(0.0),
        ..Pose::default()
    };
    if let Some(rotations) = root.get("bone_rotations") {
        let rotations = rotations.as_object().ok_or_else(|| {
            at(
                "/bone_rotations".into(),
                "must be an object of bone names".into(),
            )
        })?;
        for (bone, value) in rotations {
            let pointer = format!(
                "/bone_rotations/{}",
                bone.replace('~', "~0").replace('/', "~1")
            );
            let v = numbers(value)
                .ok_or_else(|| at(pointer.clone(), "must be an array of numbers".into()))?;
            let mode = modes
                .get(bone)
                .and_then(Value::as_str)
                .unwrap_or(if v.len() == 4 { "QUATERNION" } else { "XYZ" });
            let rotation = match (mode, v.as_slice()) {
                ("QUATERNION", &[w, x, y, z]) => {
                    let q = DQuat::from_xyzw(x, y, z, w);
                    // Blender normalises a pose bone's quaternion.
                    (q.length_squared() > 0.0).then(|| DMat3::from_quat(q.normalize()))
                }
                ("AXIS_ANGLE", &[angle, x, y, z]) => DVec3::new(x, y, z)
                    .try_normalize()
                    .map(|axis| DMat3::from_axis_angle(axis, angle)),
                (order, &[x, y, z]) => euler(order, [x, y, z]),
                _ => None,
            }
            .ok_or_else(|| {
                at(
                    pointer,
                    format!("{} numbers do not make a {mode} rotation", v.len()),
                )
            })?;
            pose.rotations.push((bone.clone(), rotation));
        }
    }
    if let Some(translations) = root.get("bone_translations") {
        let translations = translations.as_object().ok_or_else(|| {
            at(
                "/bone_translations".into(),
                "must be an object of bone names".into(),
            )
        })?;
        for (bone, value) in translations {
            match numbers(value).as_deref() {
                Some(&[x, y, z]) => pose.translations.push((bone.clone(), DVec3::new(x, y, z))),
                _ => {
                    return Err(at(
                        format!("/bone_translations/{bone}"),
                        "must be 3 numbers".into(),
                    ));
                }
            }
        }
    }
    Ok(pose)
}

/// Reads a pose file.
pub fn read_pose_file(path: &Path) -> Result<Pose, PoseError> {
    let text = std::fs::read_to_string(path).map_err(|e| PoseError {
        location: crate::Location::file(path),
        message: e.to_string(),
    })?;
    parse_pose(&text, path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn eulers_follow_blenders_order_and_quaternions_are_w_first() {
        // XYZ: X first. Rotating +Y by X 90 then Z 90: +Y -> +Z -> +Z.
        let m = euler(
            "XYZ",
            [
                std::f64::consts::FRAC_PI_2,
                0.0,
                std::f64::consts::FRAC_PI_2,
            ],
        )
        .unwrap();
        assert!((m * DVec3::Y - DVec3::Z).length() < 1e-12);
        // ZYX: Z first: +Y -> -X -> -X (X leaves it).
        let m = euler(
            "ZYX",
            [
                std::f64::consts::FRAC_PI_2,
                0.0,
                std::f64::consts::FRAC_PI_2,
            ],
        )
        .unwrap();
        assert!((m * DVec3::Y + DVec3::X).length() < 1e-12);
        let text = r#"{"bone_rotations": {"a": [0.7071068, 0, 0, 0.7071068], "b": [0, 0, 1.0]},
            "bone_rotation_modes": {"b": "ZYX"}, "bone_translations": {"a": [0, 1, 2]},
            "skeleton_type": "default"}"#;
        let pose = parse_pose(text, Path::new("p.json")).unwrap();
        // w, x, y, z: 90 degrees about Z.
        assert!((pose.rotations[0].1 * DVec3::X - DVec3::Y).length() < 1e-6);
        assert_eq!(pose.translations[0].1, DVec3::new(0.0, 1.0, 2.0));
        let bad = parse_pose(r#"{"bone_rotations": {"a": [1, 2]}}"#, Path::new("p.json"));
        assert!(bad.unwrap_err().to_string().contains("/bone_rotations/a"));
    }
}
