//! Stage 5, transforms: one character in, one character out. Each is independent of the
//! input formats; new capabilities (rest poses, normals, influence limits) join this list.

use crate::convert::Origin;
use character::{Character, Selection};

/// The part of MakeHuman's base mesh that is the body proper; the rest are helpers (joint
/// cubes, eyes, teeth, tongue, tights, skirt, hair, eyelashes).
pub const BODY_PART: &str = "body";

/// Helper extraction: keeps the polygons of the `body` part and the vertices they use,
/// unless `keep_helpers`. A mesh without a `body` part is kept whole, with a warning.
pub fn extract_helpers(
    character: Character,
    keep_helpers: bool,
    mesh_name: &str,
    warnings: &mut Vec<String>,
) -> Character {
    if keep_helpers {
        return character;
    }
    let polygons = &character.mesh.polygons;
    if !polygons.has_part(BODY_PART) {
        warnings.push(format!(
            "{mesh_name}: no `{BODY_PART}` group; exporting every face"
        ));
        return character;
    }
    let selection = Selection::polygons_where(&character.mesh, |p| {
        polygons.part_names(p).iter().any(|n| n == BODY_PART)
    });
    character.select(&selection)
}

/// Stands the character: with [`Origin::Ground`], the skeleton moves so the ground cube's
/// centre (when the body has one), else the lowest vertex, is at y = 0, as MakeHuman's
/// exporters do; with [`Origin::Mesh`] nothing moves. Returns the offset applied.
pub fn stand(mut character: Character, origin: Origin, ground_cube: Option<f64>) -> Character {
    let ground = match origin {
        Origin::Mesh => None,
        Origin::Ground => ground_cube.or_else(|| {
            character
                .mesh
                .positions
                .iter()
                .map(|p| p.y)
                .reduce(f64::min)
        }),
    };
    character.skeleton.position.y = ground.map_or(0.0, |y| -y);
    character
}

/// Smooth shading: angle-weighted unit normals of the final geometry, one per vertex
/// ([`character::smooth_normals`]); last, so every earlier change of positions is in them.
pub fn smooth_normals(mut character: Character) -> Character {
    character.mesh.normals = character::smooth_normals(&character.mesh);
    character
}
