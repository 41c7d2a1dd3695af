//! Kept face helpers (eyes, teeth, tongue) that no weight moves, bound to the bone they belong
//! to: an eye's to the nearer eye bone (else the head), the lower teeth's and the tongue's to
//! the jaw (else the head), the upper teeth's to the head. Without it a user's weights that
//! leave a helper out keep it in place while the head turns. Bones are found by the humanoid
//! names (shipped, the user's, or matched), so any rig is served.

use crate::derived::{Both, Cache, Id};
use crate::diagnostics::{Code, Diagnostics};
use crate::error::ConvertError;
use crate::stages::humanoid::JobNames;
use character::{Character, Influence};
use std::sync::Arc;

/// The bone each face helper belongs to, by humanoid name, nearest first.
fn owners(part: &str) -> &'static [&'static str] {
    match part {
        "helper-l-eye" | "helper-r-eye" => &["LeftEye", "RightEye"],
        "helper-lower-teeth" | "helper-tongue" => &["Jaw"],
        _ => &[],
    }
}

/// What binding derives from a shared skin and polygons alone.
#[derive(Default)]
pub struct Derived {
    /// The kept face helpers' vertices no weight moves, by skin, polygons and parts.
    unweighted: Cache<UnweightedKey, Arc<Unweighted>>,
}

/// What finding the unweighted helper vertices reads: the skin, the polygons, the parts.
type UnweightedKey = (
    Both<character::Skin, character::Polygons>,
    Vec<&'static str>,
);

/// Face helpers and their vertices no weight moves.
type Unweighted = Vec<(&'static str, Vec<u32>)>;

/// Binds the unweighted vertices of the `parts` (kept face helpers) with weight 1; one warning
/// per part bound, naming the count and the bone. The job's humanoid `names` are made (when
/// no stage made them yet) only when something is to be bound; where they cannot be, the
/// nearest bone serves. A character without a skin is left alone (the converter says
/// so already).
pub fn bind_unweighted_helpers(
    mut character: Character,
    parts: &[&'static str],
    names: &JobNames<'_>,
    said: &mut Diagnostics,
    derived: &Derived,
) -> Result<Character, ConvertError> {
    let Some(skin) = &character.skin else {
        return Ok(character);
    };
    let polygons = &character.mesh.polygons;
    // Which vertices no weight moves depends on the skin and polygons alone: found once for
    // every body sharing them.
    let unweighted = derived.unweighted.get_or(
        (Both(Id::of(skin), Id::of(polygons)), parts.to_vec()),
        || Arc::new(unweighted_vertices(skin, polygons, parts)),
    );
    if unweighted.is_empty() {
        return Ok(character);
    }
    let mut moved = moved_vertices(skin, character.mesh.positions.len());
    // Names the user did not ask for: a rig they cannot be found on binds to the nearest bone.
    let names = names.get(&character).ok();
    let bones = &character.skeleton.bones;
    let mut bound = Vec::new();
    for (part, vertices) in unweighted.iter() {
        let part = *part;
        let mut vertices = vertices.clone();
        // A vertex two helpers share is bound once, by the first.
        vertices.retain(|&v| !std::mem::replace(&mut moved[v as usize], true));
        if vertices.is_empty() {
            continue;
        }
        let centre = vertices
            .iter()
            .map(|&v| character.mesh.positions[v as usize])
            .sum::<glam::DVec3>()
            / vertices.len() as f64;
        let nearest = |candidates: &mut dyn Iterator<Item = usize>| {
            candidates.min_by(|&a, &b| {
                bones[a]
                    .head
                    .distance(centre)
                    .total_cmp(&bones[b].head.distance(centre))
            })
        };
        let named = |g4mf: &str| names.and_then(|n| n.bone(&character, g4mf));
        // The nearest of the part's own bones, else the head, else the nearest bone at all.
        let bone = nearest(&mut owners(part).iter().filter_map(|n| named(n)))
            .or_else(|| named("Head"))
            .or_else(|| nearest(&mut (0..bones.len())));
        let Some(bone) = bone else { continue };
        said.say(
            Code::HelperVerticesBound,
            format!(
                "{} vertices of {part} were moved by no weight: bound to bone `{}`",
                vertices.len(),
                bones[bone].name
            ),
        );
        bound.extend(vertices.into_iter().map(|vertex| Influence {
            vertex,
            bone: bone as u32,
            weight: 1.0,
        }));
    }
    if let Some(skin) = character.skin.as_mut().filter(|_| !bound.is_empty()) {
        let skin = std::sync::Arc::make_mut(skin);
        skin.influences.extend(bound);
        // Vertices ascending; the stable sort keeps each vertex's weights descending.
        skin.influences.sort_by_key(|i| i.vertex);
    }
    Ok(character)
}

/// For every vertex, whether a weight above zero moves it.
fn moved_vertices(skin: &character::Skin, count: usize) -> Vec<bool> {
    let mut moved = vec![false; count];
    for inf in skin.influences.iter().filter(|i| i.weight > 0.0) {
        if let Some(m) = moved.get_mut(inf.vertex as usize) {
            *m = true;
        }
    }
    moved
}

/// Each of `parts` with the vertices of its polygons no weight moves (ascending), leaving out
/// the parts with none.
fn unweighted_vertices(
    skin: &character::Skin,
    polygons: &character::Polygons,
    parts: &[&'static str],
) -> Unweighted {
    let count = polygons
        .vertices
        .iter()
        .max()
        .map_or(0, |&v| v as usize + 1);
    let moved = moved_vertices(skin, count);
    parts
        .iter()
        .map(|&part| {
            // Whether each part set holds the part, decided once.
            let holds: Vec<bool> = polygons
                .part_sets
                .iter()
                .map(|set| set.iter().any(|n| n == part))
                .collect();
            let mut vertices: Vec<u32> = (0..polygons.len())
                .filter(|&p| holds[polygons.parts[p] as usize])
                .flat_map(|p| polygons.vertices[polygons.corners(p)].iter().copied())
                .filter(|&v| !moved[v as usize])
                .collect();
            vertices.sort_unstable();
            vertices.dedup();
            (part, vertices)
        })
        .filter(|(_, vertices)| !vertices.is_empty())
        .collect()
}
