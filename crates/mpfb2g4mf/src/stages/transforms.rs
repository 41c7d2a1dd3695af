//! Stage 5, transforms: one character in, one character out. Each is independent of the
//! input formats; new capabilities (rest poses, normals, influence limits) join this list.

use crate::derived::{Both, Cache, Id, Key, SHAPES};
use crate::diagnostics::{Code, Diagnostics};
use crate::options::Helpers;
use crate::options::Origin;
use character::ShapeOffsets as Offsets;
use character::{Character, Mesh, Selection};
use std::sync::Arc;

pub use mpfb_body::BODY_PART;

/// The helpers [`Helpers::Face`] keeps: eyes, teeth and tongue (every shipped weights file
/// weights them to eye, jaw and tongue bones).
pub const FACE_PARTS: [&str; 5] = [
    "helper-l-eye",
    "helper-r-eye",
    "helper-upper-teeth",
    "helper-lower-teeth",
    "helper-tongue",
];

/// What wearing decided for helper extraction.
#[derive(Debug, Clone, Default)]
pub struct Hidden {
    /// Body vertices (source numbering) a worn asset hides (`delete_verts`).
    pub vertices: Vec<bool>,
    /// Helper parts a worn proxy replaces (the helper eyes under proxy eyes, ...).
    pub parts: Vec<&'static str>,
}

/// What helper extraction derives from a shared mesh alone.
#[derive(Default)]
pub struct Derived {
    /// The polygons extraction keeps (`None`: the mesh has no body part).
    selections: Cache<ExtractionKey, Option<Arc<Selection>>>,
    /// Polygons, numberings, skins and blend-shape offsets of the kept vertices, by what was
    /// selected from and the selection.
    polygons: Selected<character::Polygons>,
    numberings: Selected<character::Numbering>,
    skins: Selected<character::Skin>,
    offsets: Cache<Both<Offsets, Selection>, Arc<Offsets>, SHAPES>,
    /// A skin with its influences limited, and what changed, by the skin and the limits.
    limited: Cache<LimitKey, Limited>,
}

/// A skin and the limits asked of it (`--max-influences`, `--normalize`).
type LimitKey = (Id<character::Skin>, (Option<usize>, bool));

/// A limited skin and what limiting it changed.
type Limited = (Arc<character::Skin>, character::InfluenceChanges);

/// What a selection of polygons makes of a shared value.
type Selected<T> = Cache<Both<T, Selection>, Arc<T>>;

/// What helper extraction reads besides the mesh: which parts it keeps, which a worn proxy
/// replaces, and the body vertices worn assets hide (when they mask the body).
#[derive(PartialEq)]
struct ExtractionKey {
    polygons: Id<character::Polygons>,
    numbering: Id<character::Numbering>,
    helpers: Helpers,
    replaced_parts: Vec<&'static str>,
    hidden_vertices: Option<Vec<bool>>,
}

impl Key for ExtractionKey {
    fn alive(&self) -> bool {
        self.polygons.alive() && self.numbering.alive()
    }
}

/// Helper extraction: keeps the polygons of the `body` part (and of the face helpers with
/// [`Helpers::Face`]) and the vertices they use; [`Helpers::All`] keeps everything. A mesh
/// without a `body` part is kept whole, with a warning. `hidden` (from the worn assets) drops
/// the helper parts their proxies replace and, unless `keep_hidden_body`, every polygon with
/// a vertex an asset hides (MPFB's mask: a body face goes when any of its vertices is
/// deleted).
///
/// What it derives from the shared topology (the selection, the kept polygons, numbering,
/// skin and shape offsets) comes from `derived` when another body on the same mesh and
/// options derived it already; only the positions are the body's own.
pub fn extract_helpers(
    mut character: Character,
    helpers: Helpers,
    hidden: &Hidden,
    keep_hidden_body: bool,
    mesh_name: &str,
    said: &mut Diagnostics,
    derived: &Derived,
) -> Character {
    let mask = !keep_hidden_body && hidden.vertices.iter().any(|&h| h);
    if helpers == Helpers::All && !mask && hidden.parts.is_empty() {
        return character;
    }
    let mesh = &character.mesh;
    let key = ExtractionKey {
        polygons: Id::of(&mesh.polygons),
        numbering: Id::of(&mesh.numbering),
        helpers,
        replaced_parts: hidden.parts.clone(),
        hidden_vertices: mask.then(|| hidden.vertices.clone()),
    };
    let Some(selection) = derived
        .selections
        .get_or(key, || select(mesh, helpers, hidden, mask).map(Arc::new))
    else {
        said.say(
            Code::HelpersNoBodyGroup,
            format!("{mesh_name}: no `{BODY_PART}` group; exporting every face"),
        );
        return character;
    };
    if selection.is_everything(mesh) {
        return character;
    }
    character.mesh = Mesh {
        positions: selection.vertex_values(&mesh.positions),
        texcoords: mesh.texcoords.clone(),
        polygons: derived
            .polygons
            .get_or(Both(Id::of(&mesh.polygons), Id::of(&selection)), || {
                Arc::new(selection.polygons(&mesh.polygons))
            }),
        numbering: derived
            .numberings
            .get_or(Both(Id::of(&mesh.numbering), Id::of(&selection)), || {
                Arc::new(selection.numbering(&mesh.numbering))
            }),
        normals: selection.vertex_values(&mesh.normals),
    };
    if let Some(skin) = &mut character.skin {
        *skin = derived
            .skins
            .get_or(Both(Id::of(skin), Id::of(&selection)), || {
                Arc::new(selection.skin(skin))
            });
    }
    for shape in &mut character.blend_shapes {
        shape.offsets = derived
            .offsets
            .get_or(Both(Id::of(&shape.offsets), Id::of(&selection)), || {
                Arc::new(selection.sparse(&shape.offsets))
            });
        shape.normal_offsets = selection.sparse(&shape.normal_offsets);
    }
    character
}

/// The polygons helper extraction keeps (see [`extract_helpers`]), or `None` when the mesh
/// has no `body` part.
fn select(mesh: &Mesh, helpers: Helpers, hidden: &Hidden, mask: bool) -> Option<Selection> {
    let polygons = &mesh.polygons;
    if !polygons.has_part(BODY_PART) {
        return None;
    }
    let keep = |name: &str| {
        !hidden.parts.contains(&name)
            && (helpers == Helpers::All
                || name == BODY_PART
                || (helpers == Helpers::Face && FACE_PARTS.contains(&name)))
    };
    // Which parts each part set keeps, and whether it is the body proper, decided once.
    let kept_sets: Vec<bool> = polygons
        .part_sets
        .iter()
        .map(|set| set.iter().any(|n| keep(n)))
        .collect();
    let body_sets: Vec<bool> = polygons
        .part_sets
        .iter()
        .map(|set| set.iter().any(|n| n == BODY_PART))
        .collect();
    let source = &mesh.numbering.source;
    Some(Selection::polygons_where(mesh, |p| {
        let set = polygons.parts[p] as usize;
        kept_sets[set]
            // Only the body proper is masked: clothes also list helper vertices (the tongue
            // under a suit's collar), which MakeHuman draws as separate proxies, never masked.
            && !(mask
                && body_sets[set]
                && polygons.vertices[polygons.corners(p)]
                    .iter()
                    .any(|&v| hidden.vertices[source[v as usize] as usize]))
    }))
}

/// Influence limits: with `max`, each vertex keeps its `max` strongest influences,
/// renormalised; with `normalize`, every vertex's weights are rescaled to sum 1. `None` when
/// neither was asked (nothing changes). A skin limited once is shared by every body with that
/// skin (a population's, or a glTF batch's, whose default is four influences).
pub fn limit_influences(
    mut character: Character,
    max: Option<usize>,
    normalize: bool,
    derived: &Derived,
) -> (Character, Option<character::InfluenceChanges>) {
    if max.is_none() && !normalize {
        return (character, None);
    }
    let mut limit = |skin: &mut Arc<character::Skin>| {
        let (limited, changes) = derived
            .limited
            .get_or((Id::of(skin), (max, normalize)), || {
                let mut limited = character::Skin::clone(skin);
                let changes = limited.limit_influences(max, normalize);
                (Arc::new(limited), changes)
            });
        *skin = limited;
        changes
    };
    let mut changes = character.skin.as_mut().map(&mut limit).unwrap_or_default();
    for attachment in &mut character.attachments {
        if let Some(skin) = &mut attachment.skin {
            let more = limit(skin);
            changes.vertices_changed += more.vertices_changed;
            changes.influences_dropped += more.influences_dropped;
            changes.largest_dropped = changes.largest_dropped.max(more.largest_dropped);
        }
    }
    (character, Some(changes))
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

/// The height (skeleton space) of the lowest vertex the character shows: of its body part
/// (every vertex of a mesh without one; helper geometry is left out) and of its worn assets.
/// `None` without a vertex.
pub fn lowest_shown(character: &Character) -> Option<f64> {
    let mesh = &character.mesh;
    let polygons = &mesh.polygons;
    let everything = !polygons.has_part(BODY_PART);
    let body = (0..polygons.len())
        .filter(|&p| everything || polygons.part_names(p).iter().any(|n| n == BODY_PART))
        .flat_map(|p| polygons.corners(p))
        .filter_map(|c| mesh.positions.get(polygons.vertices[c] as usize));
    let worn = character
        .attachments
        .iter()
        .flat_map(|a| a.mesh.positions.iter());
    body.chain(worn).map(|p| p.y).reduce(f64::min)
}

/// Smooth shading: angle-weighted unit normals of the final geometry, one per vertex
/// ([`character::normal_field`]), and what each blend shape does to them
/// ([`crate::stages::shapes::normal_offsets`], from the same polygon normals and angles);
/// last, so every earlier change of positions is in them.
pub fn smooth_normals(mut character: Character) -> Character {
    let field = character::normal_field(&character.mesh);
    crate::stages::shapes::normal_offsets(&character.mesh, &field, &mut character.blend_shapes);
    character.mesh.normals = field.normals;
    for attachment in &mut character.attachments {
        let field = character::normal_field(&attachment.mesh);
        crate::stages::shapes::normal_offsets(
            &attachment.mesh,
            &field,
            &mut attachment.blend_shapes,
        );
        attachment.mesh.normals = field.normals;
    }
    character
}
