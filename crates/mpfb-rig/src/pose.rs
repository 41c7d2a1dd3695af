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

/// Blender's rotation for an Euler `order` (`XYZ` applies X first: `Rz * Ry * Rx`). `None`
/// unless `order` names each of X, Y and Z once (Blender's six orders).
pub fn euler(order: &str, angles: [f64; 3]) -> Option<DMat3> {
    let chars: Vec<char> = order.chars().collect();
    if chars.len() != 3 || !['X', 'Y', 'Z'].iter().all(|a| chars.contains(a)) {
        return None;
    }
    let mut m = DMat3::IDENTITY;
    for &c in &chars {
        let step = match c {
            'X' => DMat3::from_rotation_x(angles[0]),
            'Y' => DMat3::from_rotation_y(angles[1]),
            'Z' => DMat3::from_rotation_z(angles[2]),
            _ => return None,
        };
        // Each later axis applies after (left of) the earlier ones.
        m = step * m;
    }
    Some(m)
}

/// A unit axis: scaled by its largest component first, so a tiny axis (1e-160) does not lose
/// its precision in a subnormal squared length, nor a huge one overflow.
fn unit_axis(axis: DVec3) -> Option<DVec3> {
    let largest = axis.abs().max_element();
    if !(largest.is_finite() && largest > 0.0) {
        return None;
    }
    (axis / largest).try_normalize()
}

/// A unit quaternion from `w, x, y, z` as Blender normalises a pose bone's: refused when it is
/// zero or its size is not finite (normalising would make it a meaningless rotation, or the
/// identity).
fn unit_quaternion([w, x, y, z]: [f64; 4]) -> Option<DQuat> {
    let largest = [w, x, y, z].iter().fold(0.0f64, |m, c| m.max(c.abs()));
    if !(largest.is_finite() && largest > 0.0) {
        return None;
    }
    // Scaled first, so huge components do not overflow the length.
    let q = DQuat::from_xyzw(x / largest, y / largest, z / largest, w / largest);
    let length = q.length();
    (length.is_finite() && length > 0.0).then(|| q / length)
}

fn numbers(value: &Value) -> Option<Vec<f64>> {
    value
        .as_array()?
        .iter()
        .map(|v| v.as_f64().filter(|f| f.is_finite()))
        .collect()
}

/// serde_json's message without its trailing ` at line L column C` (the location says it).
fn json_message(e: &serde_json::Error) -> String {
    let message = e.to_string();
    match message.rfind(" at line ") {
        Some(i) => message[..i].to_owned(),
        None => message,
    }
}

/// Reads a pose from JSON text; `path` names the file in errors. Strict like the other
/// readers: a byte-order mark is dropped, a repeated key is an error, fields of the wrong type
/// are errors at their pointer, Euler orders must be one of Blender's six, and a quaternion
/// must have a finite, non-zero size.
pub fn parse_pose(text: &str, path: &Path) -> Result<Pose, PoseError> {
    let text = location::text::strip_bom(text);
    let at = |pointer: String, message: String| PoseError {
        location: crate::Location::pointer(pointer).in_file(path),
        message,
    };
    if let Some(dup) = json_strict::first_duplicate_key(text) {
        return Err(at(
            dup.pointer(),
            format!("repeated key `{}`", location::text::excerpt(&dup.key, 80)),
        ));
    }
    let root: Value = serde_json::from_str(text).map_err(|e| PoseError {
        location: crate::Location::line_column(e.line(), e.column()).in_file(path),
        message: json_message(&e),
    })?;
    let root = root
        .as_object()
        .ok_or_else(|| at(String::new(), "a pose file is a JSON object".into()))?;
    let empty = Map::new();
    let object = |key: &str| -> Result<&Map<String, Value>, PoseError> {
        match root.get(key) {
            None => Ok(&empty),
            Some(v) => v
                .as_object()
                .ok_or_else(|| at(format!("/{key}"), "must be an object of bone names".into())),
        }
    };
    let number = |key: &str| -> Result<f64, PoseError> {
        match root.get(key) {
            None => Ok(0.0),
            Some(v) => v
                .as_f64()
                .filter(|f| f.is_finite())
                .ok_or_else(|| at(format!("/{key}"), "must be a number".into())),
        }
    };
    let modes = object("bone_rotation_modes")?;
    let mut pose = Pose {
        skeleton_type: match root.get("skeleton_type") {
            None => String::new(),
            Some(v) => v
                .as_str()
                .ok_or_else(|| at("/skeleton_type".into(), "must be a string".into()))?
                .to_owned(),
        },
        original_shoulder_width: number("original_shoulder_width")?,
        original_spine_length: number("original_spine_length")?,
        ..Pose::default()
    };
    for (bone, value) in object("bone_rotations")? {
        let pointer = location::json_pointer(["bone_rotations", bone.as_str()]);
        let v = numbers(value)
            .ok_or_else(|| at(pointer.clone(), "must be an array of finite numbers".into()))?;
        let mode = match modes.get(bone) {
            None => {
                if v.len() == 4 {
                    "QUATERNION"
                } else {
                    "XYZ"
                }
            }
            Some(mode) => mode.as_str().ok_or_else(|| {
                at(
                    location::json_pointer(["bone_rotation_modes", bone.as_str()]),
                    "must be a rotation mode (QUATERNION, AXIS_ANGLE, XYZ, XZY, YXZ, YZX, ZXY, ZYX)"
                        .into(),
                )
            })?,
        };
        let rotation = match (mode, v.as_slice()) {
            ("QUATERNION", &[w, x, y, z]) => unit_quaternion([w, x, y, z])
                .map(DMat3::from_quat)
                .ok_or_else(|| {
                    at(
                        pointer.clone(),
                        "a quaternion of zero or infinite size is no rotation".into(),
                    )
                })?,
            ("AXIS_ANGLE", &[angle, x, y, z]) => unit_axis(DVec3::new(x, y, z))
                .filter(|_| angle.is_finite())
                .map(|axis| DMat3::from_axis_angle(axis, angle))
                .ok_or_else(|| {
                    at(
                        pointer.clone(),
                        "the axis has no direction, or the angle is not finite".into(),
                    )
                })?,
            (order, &[x, y, z]) if order.len() == 3 => {
                euler(order, [x, y, z]).ok_or_else(|| {
                    at(
                        location::json_pointer(["bone_rotation_modes", bone.as_str()]),
                        format!(
                            "`{}` is not an Euler order (each of X, Y, Z once, as XYZ or ZXY)",
                            location::text::excerpt(order, 12)
                        ),
                    )
                })?
            }
            _ => {
                return Err(at(
                    pointer,
                    format!(
                        "{} numbers do not make a {} rotation",
                        v.len(),
                        location::text::excerpt(mode, 20)
                    ),
                ));
            }
        };
        pose.rotations.push((bone.clone(), rotation));
    }
    for (bone, value) in object("bone_translations")? {
        match numbers(value).as_deref() {
            Some(&[x, y, z]) => pose.translations.push((bone.clone(), DVec3::new(x, y, z))),
            _ => {
                return Err(at(
                    location::json_pointer(["bone_translations", bone.as_str()]),
                    "must be 3 finite numbers".into(),
                ));
            }
        }
    }
    Ok(pose)
}

/// Pose files are small: a file larger than this is not one.
pub const MAX_POSE_BYTES: u64 = 16 << 20;

/// Reads a pose file (at most [`MAX_POSE_BYTES`], pipes too; invalid UTF-8 located).
pub fn read_pose_file(path: &Path) -> Result<Pose, PoseError> {
    use std::io::Read;
    let fail = |location: crate::Location, message: String| PoseError { location, message };
    let file = location::open_regular(path)
        .map_err(|e| fail(crate::Location::file(path), e.to_string()))?;
    let mut bytes = Vec::new();
    file.take(MAX_POSE_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| fail(crate::Location::file(path), e.to_string()))?;
    if bytes.len() as u64 > MAX_POSE_BYTES {
        return Err(fail(
            crate::Location::file(path),
            format!("larger than {MAX_POSE_BYTES} bytes: not a pose file"),
        ));
    }
    let text = location::text::decode(&bytes).map_err(|e| {
        fail(
            e.location.clone().in_file(path),
            format!("not UTF-8 text (byte 0x{:02x})", e.byte),
        )
    })?;
    parse_pose(text, path)
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

    #[test]
    fn hostile_poses_are_refused_at_their_pointer() {
        for (text, expected) in [
            (
                r#"{"bone_rotations": {"a": [0, 0, 1]}, "bone_rotation_modes": {"a": "XXY"}}"#,
                "p.json: /bone_rotation_modes/a: `XXY` is not an Euler order",
            ),
            (
                r#"{"bone_rotations": {"a": [1e308, 1e308, 1e308, 1e308]}}"#,
                "",
            ),
            (
                r#"{"bone_rotations": {"a": [0, 0, 0, 0]}}"#,
                "p.json: /bone_rotations/a: a quaternion of zero or infinite size is no rotation",
            ),
            (
                r#"{"bone_rotations": {"a": [1, 0, 0, 0], "a": [0, 1, 0, 0]}}"#,
                "p.json: /bone_rotations/a: repeated key `a`",
            ),
            (
                r#"{"skeleton_type": 3}"#,
                "p.json: /skeleton_type: must be a string",
            ),
            (
                r#"{"bone_rotations": [1, 0, 0, 0]}"#,
                "p.json: /bone_rotations: must be an object of bone names",
            ),
            (
                r#"{"bone_rotations": {"a/b": [0, 0]}}"#,
                "p.json: /bone_rotations/a~1b: 2 numbers do not make a XYZ rotation",
            ),
            (
                r#"{"bone_rotations": {"a": [1, 0, 0, 0]}, "bone_rotation_modes": {"a": 7}}"#,
                "p.json: /bone_rotation_modes/a: must be a rotation mode",
            ),
            ("{\"bone_rotations\": }", "p.json:1:20: expected value"),
        ] {
            let got = parse_pose(text, Path::new("p.json"));
            if expected.is_empty() {
                // Huge components are scaled down before normalising: a real rotation.
                let pose = got.unwrap_or_default();
                let m = pose.rotations[0].1;
                assert!(
                    m.is_finite() && (m.determinant() - 1.0).abs() < 1e-9,
                    "{m:?}"
                );
                assert!(
                    (m * DVec3::X - DVec3::X).length() > 0.5,
                    "not the identity: {m:?}"
                );
                continue;
            }
            let err = got.err().map(|e| e.to_string()).unwrap_or_default();
            assert!(err.starts_with(expected), "{text}: {err}");
        }
        assert!(euler("XZY", [0.1, 0.2, 0.3]).is_some());
        assert!(euler("XYX", [0.1, 0.2, 0.3]).is_none());
        assert!(parse_pose("\u{feff}{}", Path::new("p.json")).is_ok());
    }

    #[test]
    fn tiny_axes_give_rotations() {
        // Found by the `pose` fuzz target: a squared length in the subnormal range lost the
        // axis' precision, and the matrix was not a rotation.
        let text = r#"{"bone_rotation_modes": {"a": "AXIS_ANGLE"},
            "bone_rotations": {"a": [1.0, 1e-160, 3e-161, 0]}}"#;
        let pose = parse_pose(text, Path::new("p.json")).unwrap();
        let m = pose.rotations[0].1;
        let identity = m * m.transpose();
        assert!(
            identity.abs_diff_eq(DMat3::IDENTITY, 1e-12),
            "not orthonormal: {identity}"
        );
    }
}
