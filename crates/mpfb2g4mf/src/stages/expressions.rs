//! The expressions stage: MakeHuman's expressions (read by `crate::expressions`) on this body,
//! each the displacement of every vertex as MakeHuman computes it (`makehuman_poses::FaceRig`,
//! fitted once per conversion): as blend shapes, in base.obj's decimetres as targets are, and
//! the one asked baked into the rest.

use crate::diagnostics::{Code, Diagnostics};
use crate::error::ConvertError;
use crate::expressions::{LoadedExpressions, located};
use crate::inputs::LoadedShape;
use glam::DVec3;
use makehuman_poses::{Displacement, FaceRig, MhPose};
use std::sync::Arc;

/// Says the units expression `name` names that the pose units lack (skipped, as MPFB skips
/// unknown face units).
fn say_skipped(name: &str, units: &[String], said: &mut Diagnostics) {
    if !units.is_empty() {
        said.say(
            Code::ExpressionUnitsSkipped,
            format!(
                "expression {name}: {} not among the pose units, skipped",
                units.join(", ")
            ),
        );
    }
}

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

    /// The expressions asked as blend shapes; the units an expression names that the pose
    /// units lack are skipped and said.
    pub fn shapes(&self, said: &mut Diagnostics) -> Vec<LoadedShape> {
        let mut shapes = Vec::with_capacity(self.loaded.expressions.len());
        for (name, pose) in &self.loaded.expressions {
            let moved = self.displace(pose);
            say_skipped(name, &moved.unknown_units, said);
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
        shapes
    }

    /// Bakes the expression asked into the rest of `character`, whose mesh is still whole in
    /// the body's numbering, in G4MF metres; said as a note, with the units it names that the
    /// pose units lack (skipped).
    pub fn bake(
        &self,
        mut character: character::Character,
        said: &mut Diagnostics,
    ) -> character::Character {
        let Some((name, pose)) = &self.loaded.bake else {
            return character;
        };
        let moved = self.displace(pose);
        // The moves the shape keeps, so the baked rest is the neutral rest plus the shape.
        for (position, offset) in character.mesh.positions.iter_mut().zip(&moved.offsets) {
            if offset.length() > MOVED {
                *position += *offset / TARGET_UNITS_PER_METRE;
            }
        }
        said.say(
            Code::ExpressionBaked,
            format!("expression {name} baked into the rest"),
        );
        say_skipped(name, &moved.unknown_units, said);
        character
    }
}

/// An MPFB expression baked into the rest: each kept vertex moved by the weighted sum of its
/// face units' displacements (decimetres in the targets, metres here), as MPFB's shape keys
/// move it; face units MPFB does not know are skipped and said.
pub fn bake_mpfb(
    mut character: character::Character,
    expression: &crate::expressions::LoadedMpfbExpression,
    said: &mut Diagnostics,
) -> character::Character {
    let mut moved = std::collections::HashMap::<u32, DVec3>::new();
    for (weight, target) in &expression.units {
        for (v, d) in target.deltas() {
            *moved.entry(v).or_default() += DVec3::from_array(d.map(f64::from)) * *weight;
        }
    }
    let source = std::sync::Arc::clone(&character.mesh.numbering);
    for (position, v) in character.mesh.positions.iter_mut().zip(&source.source) {
        if let Some(d) = moved.get(v) {
            *position += *d / 10.0;
        }
    }
    said.say(
        Code::MpfbExpressionBaked,
        format!(
            "MPFB expression {} ({} face units) baked into the rest",
            expression.name,
            expression.units.len()
        ),
    );
    if !expression.unknown.is_empty() {
        said.say(
            Code::MpfbExpressionUnitsSkipped,
            format!(
                "MPFB expression {}: {} not among MPFB's face units, skipped",
                expression.name,
                expression.unknown.join(", ")
            ),
        );
    }
    character
}
