//! The expressions stage: MakeHuman's expressions (read by `crate::expressions`) as blend
//! shapes of this body, each the displacement of every vertex as MakeHuman computes it
//! (`makehuman_poses::FaceRig`), in base.obj's decimetres as targets are.

use crate::error::ConvertError;
use crate::expressions::{LoadedExpressions, located};
use crate::inputs::LoadedShape;
use glam::DVec3;
use makehuman_poses::FaceRig;
use std::sync::Arc;

/// An expression's name and the units it names that the pose units lack.
pub type SkippedUnits = (String, Vec<String>);

/// A displacement at or under this (decimetres: a micrometre) is no move: the pose units'
/// files turn some body joints by millionths of a degree.
const MOVED: f64 = 1e-5;

/// Decimetres (MakeHuman's targets' unit) per metre.
const TARGET_UNITS_PER_METRE: f64 = 10.0;

/// The expressions of `loaded` as blend shapes of the body whose vertices (G4MF metres, the
/// base mesh's numbering) are `body`, in base.obj's decimetres as targets are; and, per
/// expression, the units it names that the pose units lack (skipped).
pub fn shapes(
    loaded: &LoadedExpressions,
    body: &[DVec3],
) -> Result<(Vec<LoadedShape>, Vec<SkippedUnits>), ConvertError> {
    let body_dm: Vec<DVec3> = body.iter().map(|&v| v * TARGET_UNITS_PER_METRE).collect();
    let rig = located(
        &loaded.skeleton_file,
        FaceRig::new(
            &loaded.skeleton,
            &body_dm,
            &loaded.units,
            &loaded.unit_names,
            &loaded.weights,
        ),
    )?;
    let mut shapes = Vec::with_capacity(loaded.expressions.len());
    let mut skipped = Vec::new();
    for (name, pose) in &loaded.expressions {
        let moved = rig.displace(&body_dm, pose);
        if !moved.unknown_units.is_empty() {
            skipped.push((name.clone(), moved.unknown_units.clone()));
        }
        // Vertices moved less than a micrometre are left out (the units' files turn some body
        // joints by millionths of a degree).
        let target = mpfb_body::Target::new(
            moved
                .offsets
                .iter()
                .enumerate()
                .filter(|(_, d)| d.length() > MOVED)
                .map(|(v, d)| (v as u32, [d.x as f32, d.y as f32, d.z as f32])),
        );
        shapes.push(LoadedShape {
            name: name.clone(),
            amount: 0.0,
            target: Arc::new(target),
        });
    }
    Ok((shapes, skipped))
}

/// Bakes `loaded`'s expression into the rest of `character`, whose mesh is still whole in the
/// body's numbering, in G4MF metres: each vertex moved by the expression's displacement on
/// this body (`body`, the same vertices). Returns the character, the expression's name and the
/// units it names that the pose units lack.
pub fn bake(
    mut character: character::Character,
    loaded: &LoadedExpressions,
    body: &[DVec3],
) -> Result<(character::Character, Option<SkippedUnits>), ConvertError> {
    let Some((name, pose)) = &loaded.bake else {
        return Ok((character, None));
    };
    let body_dm: Vec<DVec3> = body.iter().map(|&v| v * TARGET_UNITS_PER_METRE).collect();
    let rig = located(
        &loaded.skeleton_file,
        FaceRig::new(
            &loaded.skeleton,
            &body_dm,
            &loaded.units,
            &loaded.unit_names,
            &loaded.weights,
        ),
    )?;
    let moved = rig.displace(&body_dm, pose);
    // The moves the shape keeps, so the baked rest is the neutral rest plus the shape.
    for (position, offset) in character.mesh.positions.iter_mut().zip(&moved.offsets) {
        if offset.length() > MOVED {
            *position += *offset / TARGET_UNITS_PER_METRE;
        }
    }
    Ok((character, Some((name.clone(), moved.unknown_units))))
}
