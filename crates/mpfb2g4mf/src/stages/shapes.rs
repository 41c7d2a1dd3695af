//! Blend shapes: targets as runtime shapes. `attach` turns each target's displacements
//! (base.obj's frame, decimetres) into G4MF offsets (metres) on the whole mesh, before helper
//! extraction renumbers them; `prune` drops shapes extraction emptied; `normal_offsets` adds
//! what each shape does to the smooth normals, after they are computed. Bodies are linear, so
//! on a morphed body a shape's offsets are its target's own.

use crate::derived::{Cache, Id, SHAPES};
use crate::diagnostics::{Code, Diagnostics};
use crate::error::ConvertError;
use crate::inputs::LoadedShape;
use character::{BlendShape, Character, NormalField, NormalOffsets, ShapeOffsets as Offsets};
use glam::DVec3;
use mpfb_rig::{ObjFrame, UpAxis};
use std::sync::Arc;

/// Metres per target unit: targets are in base.obj's decimetres whatever the mesh's frame.
const METRES_PER_TARGET_UNIT: f64 = 0.1;

/// What attaching shapes derives from shared targets alone.
#[derive(Default)]
pub struct Derived {
    /// A target's offsets as a blend shape on a mesh of so many vertices.
    offsets: Cache<(Id<mpfb_body::Target>, usize), Arc<Offsets>, SHAPES>,
}

/// Adds `shapes` to the character (whose mesh is still whole, in the source numbering); each
/// target's offsets come from `derived` when another body on as many vertices made them.
pub fn attach(
    mut character: Character,
    shapes: &[LoadedShape],
    frame: ObjFrame,
    derived: &Derived,
) -> Result<Character, ConvertError> {
    if shapes.is_empty() {
        return Ok(character);
    }
    if frame.up != UpAxis::Y {
        return Err(ConvertError::MorphZUp);
    }
    let vertex_count = character.mesh.positions.len();
    for shape in shapes {
        let offsets = derived
            .offsets
            .try_get_or((Id::of(&shape.target), vertex_count), || {
                offsets_of(shape, vertex_count).map(Arc::new)
            })?;
        character.blend_shapes.push(BlendShape {
            name: shape.name.clone(),
            amount: shape.amount,
            offsets,
            normal_offsets: Vec::new(),
        });
    }
    Ok(character)
}

/// A target's displacements as offsets in metres on a mesh of `vertex_count` vertices:
/// vertices ascending, a vertex listed twice summed.
fn offsets_of(shape: &LoadedShape, vertex_count: usize) -> Result<Vec<(u32, DVec3)>, ConvertError> {
    let mut offsets: Vec<(u32, DVec3)> = Vec::with_capacity(shape.target.len());
    for (v, d) in shape.target.deltas() {
        if v as usize >= vertex_count {
            return Err(mpfb_body::morph::MorphError {
                target: shape.name.clone(),
                vertex: v,
                vertex_count,
            }
            .into());
        }
        let d = DVec3::new(f64::from(d[0]), f64::from(d[1]), f64::from(d[2]));
        offsets.push((v, d * METRES_PER_TARGET_UNIT));
    }
    // Files list vertices in any order, possibly twice: ascending, repeats summed.
    offsets.sort_by_key(|&(v, _)| v);
    offsets.dedup_by(|later, earlier| {
        let same = later.0 == earlier.0;
        if same {
            earlier.1 += later.1;
        }
        same
    });
    Ok(offsets)
}

/// Drops shapes that moved vertices before helper extraction and move none now, with a
/// warning each; `moved_before` is, per shape, whether it had offsets. A shape whose target
/// moves nothing at all (MakeHuman's `viseme_sil`, the neutral mouth) is kept: it is a
/// meaningful, empty shape.
pub fn prune(mut character: Character, moved_before: &[bool], said: &mut Diagnostics) -> Character {
    let mut k = 0;
    character.blend_shapes.retain(|shape| {
        let keep = !shape.offsets.is_empty() || !moved_before.get(k).copied().unwrap_or(false);
        k += 1;
        if !keep {
            said.say(
                Code::ShapeLeftOut,
                format!("blend shape {} moves no kept vertex: left out", shape.name),
            );
        }
        keep
    });
    character
}

/// Fills each of `shapes`' normal offsets: what it does to the smooth normals of `mesh`, whose
/// normals and their parts are `field` (the shapes in parallel when there are several).
pub fn normal_offsets(mesh: &character::Mesh, field: &NormalField, shapes: &mut [BlendShape]) {
    use rayon::prelude::*;
    if shapes.is_empty() {
        return;
    }
    let context = NormalOffsets::new(mesh, field);
    let offsets: Vec<Vec<(u32, DVec3)>> = shapes
        .par_iter()
        .map_init(
            || context.scratch(),
            |scratch, shape| context.of_with(scratch, &shape.offsets),
        )
        .collect();
    for (shape, normals) in shapes.iter_mut().zip(offsets) {
        shape.normal_offsets = normals;
    }
}
