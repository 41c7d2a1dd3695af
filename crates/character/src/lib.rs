//! `character`: one skinned character in memory, the thing every conversion stage works on.
//!
//! A [`Character`] sits between "inputs read" and "file written": a skeleton with rest
//! transforms, a polygon mesh that remembers which source vertex each of its vertices came
//! from, a skin, and room for blend shapes and materials. It knows nothing of MPFB's files or
//! of G4MF's bytes; stages that read those formats build it, stages that write them read it,
//! and transforms in between (helper extraction today; morphs, rest poses, normals later)
//! turn one character into another.
//!
//! Space: Y up, metres, facing +Z (G4MF's), positions in the skeleton's space.

mod normals;
mod select;

use glam::{DMat3, DVec3};
pub use normals::{
    NORMAL_OFFSET_EPSILON, NormalField, NormalOffsets, Scratch, normal_field, smooth_normals,
};
pub use select::Selection;
use std::sync::Arc;

/// A skinned character.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Character {
    /// The character's name.
    pub name: String,
    /// Its skeleton.
    pub skeleton: Skeleton,
    /// Its mesh.
    pub mesh: Mesh,
    /// Which bones move which vertices, when it is skinned (shared: see [`Mesh`]).
    pub skin: Option<Arc<Skin>>,
    /// Named sparse displacements of the mesh's vertices.
    pub blend_shapes: Vec<BlendShape>,
    /// Materials, referred to by index from the mesh's polygons.
    pub materials: Vec<Material>,
    /// Meshes worn over the body (clothes, hair, eyebrows, proxy eyes, ...), skinned to the
    /// same skeleton, in the order they are drawn.
    pub attachments: Vec<Attachment>,
    /// Animation clips of its skeleton.
    pub clips: Vec<Clip>,
}

/// An animation clip: the skeleton posed at key times. Poses are absolute (each bone's frame
/// in skeleton space), so they stay right when the rest is changed after they were made.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Clip {
    /// Its name.
    pub name: String,
    /// Key times in seconds, increasing.
    pub times: Vec<f64>,
    /// Per key, each bone's posed frame (bone space to skeleton space), in bone order.
    pub poses: Vec<Vec<glam::DAffine3>>,
}

/// A mesh worn by the character, skinned to its skeleton: its vertices keep their source
/// file's order, its influences name the character's bones, its blend shapes carry the
/// body's shapes of the same names (only those that move it).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Attachment {
    /// Its name (the asset's).
    pub name: String,
    /// Its mesh (polygon materials index [`Attachment::materials`]).
    pub mesh: Mesh,
    /// Which bones move which of its vertices.
    pub skin: Option<Arc<Skin>>,
    /// Its share of the character's blend shapes, by the same names.
    pub blend_shapes: Vec<BlendShape>,
    /// Its materials.
    pub materials: Vec<Material>,
}

/// The skeleton: where it stands and its bones.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Skeleton {
    /// Position of the skeleton in the character's space (e.g. to stand it on y = 0).
    pub position: DVec3,
    /// Bones, parents before children is not required.
    pub bones: Vec<Bone>,
}

/// One bone at rest, in skeleton space.
#[derive(Debug, Clone, PartialEq)]
pub struct Bone {
    /// Its name in the source.
    pub name: String,
    /// Parent bone index; `None` for roots.
    pub parent: Option<usize>,
    /// Head position, metres.
    pub head: DVec3,
    /// Rest basis: orthonormal, columns X, Y (head to tail), Z.
    pub basis: DMat3,
    /// Length in metres along +Y.
    pub length: f64,
}

/// A polygon mesh with its source numbering.
///
/// What does not depend on where the vertices are (texture coordinates, polygons, numbering;
/// a character's skin and its shapes' offsets) is shared (`Arc`): the bodies of a population
/// share one of each, so what is derived from them is derived once (a stage that changes one
/// replaces it, or copies it on write with `Arc::make_mut`).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Mesh {
    /// Vertex positions, metres.
    pub positions: Vec<DVec3>,
    /// Texture coordinates in G4MF's convention (origin top-left, v down).
    pub texcoords: Arc<Vec<[f64; 2]>>,
    /// The polygons.
    pub polygons: Arc<Polygons>,
    /// Where each vertex came from.
    pub numbering: Arc<Numbering>,
    /// Unit per-vertex normals (smooth shading), one per position; empty for flat shading.
    pub normals: Vec<DVec3>,
}

/// Polygons stored flat: polygon `p` owns corners `offsets[p]..offsets[p + 1]`.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Polygons {
    /// Corner ranges, one more than the polygon count.
    pub offsets: Vec<u32>,
    /// Vertex index of each corner.
    pub vertices: Vec<u32>,
    /// Texture-coordinate index of each corner, if any.
    pub texcoords: Vec<Option<u32>>,
    /// Material of each polygon (index into [`Character::materials`]).
    pub materials: Vec<Option<u32>>,
    /// Index into `part_sets` of each polygon: the named parts it belongs to.
    pub parts: Vec<u32>,
    /// Distinct sets of part names (a body, an eye, a joint helper...).
    pub part_sets: Vec<Vec<String>>,
}

impl Polygons {
    /// Number of polygons.
    pub fn len(&self) -> usize {
        self.offsets.len().saturating_sub(1)
    }

    /// True when there is no polygon.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The corner range of polygon `p`.
    pub fn corners(&self, p: usize) -> std::ops::Range<usize> {
        self.offsets[p] as usize..self.offsets[p + 1] as usize
    }

    /// The part names polygon `p` belongs to.
    pub fn part_names(&self, p: usize) -> &[String] {
        &self.part_sets[self.parts[p] as usize]
    }

    /// True when any polygon belongs to the part `name`.
    pub fn has_part(&self, name: &str) -> bool {
        self.part_sets
            .iter()
            .enumerate()
            .any(|(i, set)| set.iter().any(|n| n == name) && self.parts.contains(&(i as u32)))
    }
}

/// The source numbering: vertex `i` of the mesh is vertex `source[i]` of a source mesh with
/// `source_count` vertices. Stages that drop vertices keep it, so everything authored in the
/// source's numbering (rigs, weights, targets) still finds its vertices.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Numbering {
    /// Vertices in the source mesh.
    pub source_count: usize,
    /// Source vertex of each vertex, ascending.
    pub source: Vec<u32>,
}

impl Numbering {
    /// The identity numbering of a source with `count` vertices.
    pub fn identity(count: usize) -> Self {
        Self {
            source_count: count,
            source: (0..count as u32).collect(),
        }
    }

    /// For every source vertex, whether the mesh still has it.
    pub fn kept(&self) -> Vec<bool> {
        let mut kept = vec![false; self.source_count];
        for &s in &self.source {
            if let Some(k) = kept.get_mut(s as usize) {
                *k = true;
            }
        }
        kept
    }
}

/// One skin influence.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Influence {
    /// Mesh vertex.
    pub vertex: u32,
    /// Bone index in [`Skeleton::bones`].
    pub bone: u32,
    /// Weight.
    pub weight: f64,
}

/// The skin: influences (vertices ascending, weights descending within a vertex) and the
/// weights as they were authored, so nothing the skin cannot carry is lost.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Skin {
    /// Influences in the mesh's numbering.
    pub influences: Vec<Influence>,
    /// The authored weights, in the source numbering (shared: they never change).
    pub authored: Arc<AuthoredWeights>,
}

/// What [`Skin::limit_influences`] changed.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct InfluenceChanges {
    /// Vertices whose influences changed (some dropped, or weights rescaled).
    pub vertices_changed: usize,
    /// Influences dropped.
    pub influences_dropped: usize,
    /// The largest weight dropped (0 when none was).
    pub largest_dropped: f64,
}

impl Skin {
    /// Keeps each vertex's `max` strongest influences (all with `None`) and, with a `max` or
    /// `normalize`, rescales every vertex's kept weights to sum 1. Influences stay vertex
    /// ascending and weight descending. A vertex whose kept weights sum to 0 is left as is.
    pub fn limit_influences(&mut self, max: Option<usize>, normalize: bool) -> InfluenceChanges {
        let mut changes = InfluenceChanges::default();
        let old = std::mem::take(&mut self.influences);
        let mut start = 0;
        while start < old.len() {
            let vertex = old[start].vertex;
            let end = start
                + old[start..]
                    .iter()
                    .take_while(|i| i.vertex == vertex)
                    .count();
            let run = &old[start..end];
            let keep = max.map_or(run.len(), |m| m.min(run.len()));
            let dropped = &run[keep..];
            let kept = &run[..keep];
            let sum: f64 = kept.iter().map(|i| i.weight).sum();
            let rescale = (normalize || max.is_some()) && sum > 0.0;
            let scale = if rescale { 1.0 / sum } else { 1.0 };
            if !dropped.is_empty() || (rescale && (sum - 1.0).abs() > 1e-12) {
                changes.vertices_changed += 1;
            }
            changes.influences_dropped += dropped.len();
            for d in dropped {
                changes.largest_dropped = changes.largest_dropped.max(d.weight);
            }
            self.influences.extend(kept.iter().map(|i| Influence {
                weight: i.weight * scale,
                ..*i
            }));
            start = end;
        }
        changes
    }
}

/// Weights as authored: named groups of (source vertex, weight) pairs, in authored order.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct AuthoredWeights {
    /// The groups, in authored order.
    pub groups: Vec<AuthoredGroup>,
    /// Every non-zero pair, group after group, in authored order.
    pub pairs: Vec<AuthoredPair>,
}

/// A named group of authored weights.
#[derive(Debug, Clone, PartialEq)]
pub struct AuthoredGroup {
    /// Its name.
    pub name: String,
    /// Whether the skin carries its pairs (it resolved to a bone).
    pub carried: bool,
}

/// One authored weight.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AuthoredPair {
    /// Group index in [`AuthoredWeights::groups`].
    pub group: u32,
    /// Vertex in the source numbering.
    pub vertex: u32,
    /// Weight.
    pub weight: f64,
}

impl AuthoredWeights {
    /// The pairs the skin does not carry for a mesh numbered `numbering`: those of groups no
    /// bone took, and those of source vertices the mesh no longer has, in authored order.
    pub fn uncarried<'a>(
        &'a self,
        numbering: &Numbering,
    ) -> impl Iterator<Item = &'a AuthoredPair> + 'a {
        let kept = numbering.kept();
        self.pairs.iter().filter(move |p| {
            !self.groups[p.group as usize].carried
                || !kept.get(p.vertex as usize).copied().unwrap_or(false)
        })
    }
}

/// A blend shape's vertex offsets: `(vertex, offset)`, vertices ascending.
pub type ShapeOffsets = Vec<(u32, DVec3)>;

/// A blend shape: sparse displacements of vertices (metres) and of their normals.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct BlendShape {
    /// Its name.
    pub name: String,
    /// How much of it the character shows (the file's `amounts` entry).
    pub amount: f64,
    /// `(vertex, offset)`, vertices ascending (shared, see [`Mesh`]).
    pub offsets: Arc<ShapeOffsets>,
    /// `(vertex, normal offset)`, vertices ascending: the shape's smooth normals minus the
    /// base's, where they differ (empty until normals are computed).
    pub normal_offsets: Vec<(u32, DVec3)>,
}

/// A material.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Material {
    /// Its name.
    pub name: String,
    /// Linear RGBA base colour, when known.
    pub base_color: Option<[f64; 4]>,
    /// How it is drawn beyond its colour, when its source says.
    pub render: Option<RenderHints>,
    /// Its textures, when its source names any.
    pub textures: MaterialTextures,
}

/// The textures of a material, by channel.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct MaterialTextures {
    /// Base colour (RGB, or RGBA when the material is transparent).
    pub base_color: Option<Texture>,
    /// Normal map.
    pub normal: Option<Texture>,
    /// Occlusion (red), roughness (green) and metallic (blue), packed from separate maps.
    pub orm: Option<Texture>,
}

/// A texture: the image its source names (loaded, or missing) and the colour that stands in
/// for it.
#[derive(Debug, Clone, PartialEq)]
pub struct Texture {
    /// The image file the source names.
    pub path: std::path::PathBuf,
    /// The image, when it could be read.
    pub image: Option<Image>,
    /// Linear colour used where no image is available (3 or 4 channels).
    pub placeholder: Vec<f64>,
    /// The image was made by us (a generated iris, a packed ORM map), not read from `path`:
    /// it cannot be referenced, only embedded or copied.
    pub generated: bool,
    /// Files named for it that are not there (reported once per output).
    pub missing: Vec<std::path::PathBuf>,
    /// Files named for it that are there but cannot be used, and why (reported once per
    /// output, apart from the missing ones).
    pub unusable: Vec<(std::path::PathBuf, String)>,
}

/// An image file as it is: its bytes (never re-encoded), type and size.
#[derive(Debug, Clone, PartialEq)]
pub struct Image {
    /// The file's bytes.
    pub bytes: std::sync::Arc<Vec<u8>>,
    /// `image/png` or `image/jpeg`.
    pub mime: &'static str,
    /// Width and height in pixels (from the header).
    pub size: [u32; 2],
    /// True when it embeds a colour profile (ICC), which G4MF advises against.
    pub icc_profile: bool,
}

/// How a material is drawn beyond its colour: what MakeHuman's materials and assets say and
/// G4MF has no property for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct RenderHints {
    /// Draw order: higher draws later (MakeHuman's `z_depth`).
    pub draw_order: i32,
    /// Blended with what is behind it (its texture's alpha).
    pub transparent: bool,
    /// Alpha taken as coverage (cut-out) rather than blended.
    pub alpha_to_coverage: bool,
    /// Back faces culled (false: both sides drawn).
    pub backface_cull: bool,
}

impl Character {
    /// Keeps the polygons `selection` chose and the vertices they use (in source order),
    /// renumbering everything that refers to vertices: positions, polygons, the numbering,
    /// skin influences and blend-shape offsets.
    pub fn select(self, selection: &Selection) -> Character {
        select::apply(self, selection)
    }
}

#[cfg(test)]
mod influence_tests {
    use super::*;

    fn skin(pairs: &[(u32, u32, f64)]) -> Skin {
        Skin {
            influences: pairs
                .iter()
                .map(|&(vertex, bone, weight)| Influence {
                    vertex,
                    bone,
                    weight,
                })
                .collect(),
            authored: Arc::default(),
        }
    }

    #[test]
    fn limiting_keeps_the_strongest_and_renormalises() {
        let mut s = skin(&[
            (0, 1, 0.5),
            (0, 2, 0.3),
            (0, 3, 0.2),
            (1, 4, 0.6),
            (1, 5, 0.6),
        ]);
        let changes = s.limit_influences(Some(2), false);
        let got: Vec<(u32, u32, f64)> = s
            .influences
            .iter()
            .map(|i| (i.vertex, i.bone, i.weight))
            .collect();
        assert_eq!(got[..2], [(0, 1, 0.625), (0, 2, 0.375)]);
        // Vertex 1 keeps its two (summing 1.2), rescaled to sum 1.
        assert_eq!(got[2..], [(1, 4, 0.5), (1, 5, 0.5)]);
        assert_eq!(changes.vertices_changed, 2);
        assert_eq!(changes.influences_dropped, 1);
        assert_eq!(changes.largest_dropped, 0.2);
        // Normalising what already sums to 1 changes nothing.
        let changes = s.limit_influences(None, true);
        assert_eq!(changes.vertices_changed, 0);
        let mut unnormalised = skin(&[(0, 1, 0.3), (0, 2, 0.1)]);
        let changes = unnormalised.limit_influences(None, true);
        assert_eq!(
            (changes.vertices_changed, changes.influences_dropped),
            (1, 0)
        );
        assert!((unnormalised.influences[0].weight - 0.75).abs() < 1e-12);
    }
}
