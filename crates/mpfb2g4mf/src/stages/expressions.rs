//! The expressions stage: MakeHuman's expressions (read by `crate::expressions`) on this body,
//! each the displacement of every vertex as MakeHuman computes it (`makehuman_poses::FaceRig`,
//! fitted once per conversion): as blend shapes, in base.obj's decimetres as targets are, and
//! the one asked baked into the rest.

use crate::error::ConvertError;
use crate::expressions::{LoadedExpressions, located};
use crate::inputs::LoadedShape;
use glam::DVec3;
use makehuman_poses::{Displacement, FaceRig, MhPose};
use std::sync::Arc;

/// An expression's name and the units it names that the pose units lack.
pub type SkippedUnits = (String, Vec<String>);

/// A displacement at or under this (decimetres: a micrometre) is no move: the pose units'
/// files turn some body joints by millionths of a degree.
const MOVED: f64 = 1e-5;

/// Decimetres (MakeHuman's targets' unit) per metre.
const TARGET_UNITS_PER_METRE: f64 = 10.0;

/// MakeHuman's default skeleton fitted to one body, with what to compute on it.
pub struct Face<'a> {
    loaded: &'a LoadedExpressions,
    rig: FaceRig,
    /// The body's vertices in decimetres (the base mesh's numbering).
    body_dm: Vec<DVec3>,
}

impl<'a> Face<'a> {
    /// Fits `loaded`'s skeleton to the body whose vertices (G4MF metres, the base mesh's
    /// numbering) are `body`.
    pub fn fit(loaded: &'a LoadedExpressions, body: &[DVec3]) -> Result<Self, ConvertError> {
        let body_dm: Vec<DVec3> = body.iter().map(|&v| v * TARGET_UNITS_PER_METRE).collect();
        let files = &loaded.makehuman;
        let rig = located(
            &files.skeleton_file,
            FaceRig::new(
                &files.skeleton,
                &body_dm,
                &files.units,
                &files.unit_names,
                &files.weights,
            ),
        )?;
        Ok(Face {
            loaded,
            rig,
            body_dm,
        })
    }

    fn displace(&self, pose: &MhPose) -> Displacement {
        self.rig.displace(&self.body_dm, pose)
    }

    /// The expressions asked as blend shapes; and, per expression, the units it names that
    /// the pose units lack (skipped).
    pub fn shapes(&self) -> (Vec<LoadedShape>, Vec<SkippedUnits>) {
        let mut shapes = Vec::with_capacity(self.loaded.expressions.len());
        let mut skipped = Vec::new();
        for (name, pose) in &self.loaded.expressions {
            let moved = self.displace(pose);
            if !moved.unknown_units.is_empty() {
                skipped.push((name.clone(), moved.unknown_units.clone()));
            }
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
        (shapes, skipped)
    }

    /// Bakes the expression asked into the rest of `character`, whose mesh is still whole in
    /// the body's numbering, in G4MF metres. Returns the character, and the expression's name
    /// with the units it names that the pose units lack.
    pub fn bake(
        &self,
        mut character: character::Character,
    ) -> (character::Character, Option<SkippedUnits>) {
        let Some((name, pose)) = &self.loaded.bake else {
            return (character, None);
        };
        let moved = self.displace(pose);
        // The moves the shape keeps, so the baked rest is the neutral rest plus the shape.
        for (position, offset) in character.mesh.positions.iter_mut().zip(&moved.offsets) {
            if offset.length() > MOVED {
                *position += *offset / TARGET_UNITS_PER_METRE;
            }
        }
        (character, Some((name.clone(), moved.unknown_units)))
    }
}
