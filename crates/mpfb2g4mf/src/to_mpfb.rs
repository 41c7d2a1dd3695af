//! G4MF back to MPFB: `rig.NAME.json` (version 110) and `weights.NAME.json`.
//!
//! Files we wrote carry every MPFB field in `extras.mpfb`, so they come back exactly. For a
//! skeleton written by anyone else, what MPFB needs is derived: head and tail from the rest
//! transforms and lengths, roll as the inverse of Blender's rest basis for that direction, and
//! position strategies matched against the base mesh the way MPFB chooses them on save,
//! restricted to exact coincidence so that refitting reproduces the skeleton.

use crate::extras;
use crate::inputs::LoadedMesh;
use g4mf_model::{Document, JointRef, Node};
use g4mf_reader::G4mfFile;
use glam::{DMat3, DVec3};
use kiddo::{ImmutableKdTree, SquaredEuclidean};
use location::Location;
use mpfb_rig::{ObjFrame, space};
use serde_json::{Map, Value, json};
use std::collections::BTreeMap;

/// A strategy counts as matching a bone end when it lands within this distance (metres).
/// Far below the 1e-4 m refit tolerance, far above f64 noise.
pub const EXACT_MATCH: f64 = 1e-5;

/// Why a G4MF file cannot be turned into an MPFB rig.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ToMpfbError {
    /// The file has no skeleton node with bones.
    #[error("the file has no skeleton with bones")]
    NoSkeleton,
    /// A bone is malformed (no length, a non-rotation basis, ...).
    #[error("{location}: {problem}")]
    BadBone {
        /// The bone node.
        location: Location,
        /// What is wrong.
        problem: String,
    },
    /// Our own extras are inconsistent with the file (edited by hand, or hostile).
    #[error("{location}: {problem}")]
    BadExtras {
        /// The extras property.
        location: Location,
        /// What is wrong.
        problem: String,
    },
    /// The skin cannot be read.
    #[error(transparent)]
    Read(#[from] g4mf_reader::ReadError),
    /// The rebuilt rig does not parse as an MPFB rig.
    #[error("the rebuilt rig is not a valid MPFB rig: {0}")]
    Rig(#[from] mpfb_rig::RigError),
    /// An output file or its folder could not be written.
    #[error("cannot write {}: {source}", path.display())]
    Write {
        /// The file or folder.
        path: std::path::PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
}

/// The MPFB files made from a G4MF file.
#[derive(Debug, Clone, PartialEq)]
pub struct MpfbFiles {
    /// The rig, written in version 110 layout with keys sorted ([`mpfb_rig::RigJson`]).
    pub rig: mpfb_rig::Rig,
    /// The weights, when the file has a skin.
    pub weights: Option<Value>,
    /// True when the rig was derived (no `extras.mpfb`), false when restored.
    pub derived: bool,
    /// Bone ends placed by `DEFAULT` because no strategy matched exactly (derived rigs only).
    pub default_ends: Vec<String>,
    /// Blend shapes as MakeHuman target files: path relative to the output folder (MPFB's
    /// layout: `targets/faceunits/jawOpen.target`, `targets/visemes/viseme_aa.target`,
    /// `targets/NAME.target`) and the file's text.
    pub targets: Vec<(std::path::PathBuf, String)>,
    /// Worn MakeHuman assets (clothes, hair, ...) left out: MPFB keeps them as assets, not in
    /// rigs or weights; their sub-rig bones are left out with them.
    pub assets_left_out: Vec<String>,
}

fn node_transform(node: &Node) -> (DVec3, DMat3) {
    let position = node
        .position
        .as_deref()
        .filter(|p| p.len() == 3)
        .map_or(DVec3::ZERO, DVec3::from_slice);
    let basis = node
        .basis
        .as_deref()
        .filter(|b| b.len() == 9)
        .map_or(DMat3::IDENTITY, DMat3::from_cols_slice);
    (position, basis)
}

/// The MPFB name of a bone node: `extras.mpfb.name`, else the node name, else by index.
fn bone_name(node: &Node, index: usize) -> String {
    extras::mpfb_name(node).unwrap_or_else(|| format!("bone{index}"))
}

struct SkeletonView {
    skeleton: usize,
    /// Bone node indices in node order (parents first in our files; any order in others).
    bones: Vec<usize>,
    /// Skeleton-space transform of every node under the skeleton.
    world: BTreeMap<usize, (DVec3, DMat3)>,
    /// The parent each node under the skeleton was reached from: the one its transform is
    /// relative to (a hostile file may list a node as the child of several nodes).
    parent: BTreeMap<usize, usize>,
}

fn skeleton_view(doc: &Document) -> Result<SkeletonView, ToMpfbError> {
    let mut parent = BTreeMap::new();
    let skeleton = doc
        .nodes
        .iter()
        .position(|n| n.skeleton.is_some())
        .ok_or(ToMpfbError::NoSkeleton)?;
    let mut world = BTreeMap::new();
    world.insert(skeleton, (DVec3::ZERO, DMat3::IDENTITY));
    let mut stack = vec![skeleton];
    let mut bones = Vec::new();
    while let Some(i) = stack.pop() {
        let (pp, pb) = world[&i];
        for c in doc.nodes[i].children.iter().rev() {
            let c = c.get();
            if c >= doc.nodes.len() || world.contains_key(&c) {
                continue;
            }
            let (p, b) = node_transform(&doc.nodes[c]);
            world.insert(c, (pp + pb * p, pb * b));
            parent.insert(c, i);
            stack.push(c);
        }
    }
    for (&i, _) in world.iter() {
        // Bones a worn asset's sub-rig added belong to the asset, not to the rig.
        let subrig = doc.nodes[i]
            .extras
            .as_ref()
            .map(g4mf_model::Extras::value)
            .and_then(|e| e.get("mpfb")?.get("subrig").cloned())
            .is_some();
        if doc.nodes[i].bone.is_some() && !subrig {
            bones.push(i);
        }
    }
    if bones.is_empty() {
        return Err(ToMpfbError::NoSkeleton);
    }
    Ok(SkeletonView {
        skeleton,
        bones,
        world,
        parent,
    })
}

/// Whether the rig's bone ends must be derived by matching strategies on a mesh: only when no
/// bone carries our MPFB extras.
pub fn needs_mesh(file: &G4mfFile) -> bool {
    !file
        .document
        .nodes
        .iter()
        .any(|n| n.bone.is_some() && crate::extras::bone_extras(n).is_some())
}

/// The base mesh a conversion back matches strategies on, and the data folder it came from.
#[derive(Debug, Clone, Default)]
pub struct BaseMesh {
    /// The mesh file to load (`None`: not needed, or every bone end takes its default
    /// position).
    pub path: Option<std::path::PathBuf>,
    /// The data folder it was taken from (`None` when given, or not needed).
    pub data: Option<crate::summary::DataUsed>,
}

impl BaseMesh {
    /// The base mesh `file` needs: none when its bones carry MPFB extras (the rig is restored,
    /// not derived); else `mesh` when given, else the data folder's (`mpfb_data`, or found as
    /// conversions find it), and none when no data folder is found. A folder named but not a
    /// data folder is an error.
    pub fn choose(
        file: &G4mfFile,
        mesh: Option<&std::path::Path>,
        mpfb_data: Option<&std::path::Path>,
        places: &mpfb_data::Places,
    ) -> Result<BaseMesh, mpfb_data::DataError> {
        if !needs_mesh(file) {
            return Ok(BaseMesh::default());
        }
        if let Some(mesh) = mesh {
            return Ok(BaseMesh {
                path: Some(mesh.to_path_buf()),
                data: None,
            });
        }
        match mpfb_data::locate(places, mpfb_data, None) {
            Ok(data) => Ok(BaseMesh {
                path: Some(data.base_mesh()?),
                data: Some(crate::summary::DataUsed::of(&data)),
            }),
            Err(mpfb_data::DataError::NotFound { .. }) => Ok(BaseMesh::default()),
            Err(e) => Err(e),
        }
    }
}

/// The name the MPFB files take (`rig.{name}.json`): the rig file named in the skeleton's
/// extras (`rig.NAME.json`), else the input file's stem, else `converted`.
pub fn output_name(file: &G4mfFile, input: &std::path::Path) -> String {
    file.document
        .nodes
        .iter()
        .find_map(|n| Some(crate::extras::skeleton_extras(n).ok()??.mpfb2g4mf?.rig_file))
        .and_then(|f| {
            f.strip_prefix("rig.")
                .and_then(|f| f.strip_suffix(".json"))
                .map(str::to_owned)
        })
        .unwrap_or_else(|| {
            input
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_else(|| "converted".into())
        })
}

impl MpfbFiles {
    /// Writes the files into `out_dir` (created if missing) as `rig.{name}.json`,
    /// `weights.{name}.json` and the targets at their relative paths, each atomically; the
    /// paths written, in that order.
    pub fn write(
        &self,
        out_dir: &std::path::Path,
        name: &str,
    ) -> Result<Vec<std::path::PathBuf>, ToMpfbError> {
        let create = |folder: &std::path::Path| {
            std::fs::create_dir_all(folder).map_err(|source| ToMpfbError::Write {
                path: folder.to_path_buf(),
                source,
            })
        };
        let write = |path: std::path::PathBuf, bytes: &[u8]| {
            crate::atomic::write_atomic(&path, bytes)
                .map(|()| path.clone())
                .map_err(|source| ToMpfbError::Write { path, source })
        };
        create(out_dir)?;
        let mut written = vec![write(
            out_dir.join(format!("rig.{name}.json")),
            &mpfb_json_text(&mpfb_rig::RigJson(&self.rig)),
        )?];
        if let Some(weights) = &self.weights {
            let path = out_dir.join(format!("weights.{name}.json"));
            written.push(write(path, &mpfb_json_text(weights))?);
        }
        for (relative, text) in &self.targets {
            let path = out_dir.join(relative);
            if let Some(parent) = path.parent() {
                create(parent)?;
            }
            written.push(write(path, text.as_bytes())?);
        }
        Ok(written)
    }
}

/// Converts a G4MF file to MPFB rig (and weights) JSON. `base` is the base mesh used to derive
/// strategies when the file carries no MPFB extras.
pub fn to_mpfb(
    file: &G4mfFile,
    base: Option<(&LoadedMesh, ObjFrame)>,
) -> Result<MpfbFiles, ToMpfbError> {
    let doc = &file.document;
    let view = skeleton_view(doc)?;
    let restorable = view.bones.iter().all(|&b| {
        extras::bone_extras(&doc.nodes[b]).is_some_and(|m| m.fields.contains_key("head"))
    });
    let (text, derived, default_ends) = if restorable {
        (restore_rig(doc, &view)?, false, Vec::new())
    } else {
        let (rig, defaults) = derive_rig(doc, &view, base)?;
        (
            serde_json::to_string(&rig).unwrap_or_default(),
            true,
            defaults,
        )
    };
    // Whatever its origin, the rig must read back as an MPFB rig. Each form is dropped as
    // soon as the next is made: a 100,000-bone rig is 250 MB as a value.
    let rig = mpfb_rig::parse_rig(&text)?;
    drop(text);
    // A body topology (`.proxy`) numbers its own vertices: its weights and shapes are not
    // those of MakeHuman's base mesh, which is what MPFB's weights and target files hold.
    let topology = doc.meshes.iter().find_map(|m| {
        let t = m.other.get("extras")?.get("mpfb")?.get("topology")?;
        Some(format!(
            "{} (body topology: its weights and shapes number its own vertices, not the base mesh's, so no weights or target files are written)",
            t.get("name")?.as_str()?
        ))
    });
    let (weights, targets) = match topology {
        Some(_) => (None, Vec::new()),
        None => (weights_json(file, &view)?, target_files(file, &view)?),
    };
    let assets_left_out = topology
        .into_iter()
        .chain(doc.nodes.iter().filter_map(|n| {
            let extras = n.extras.as_ref()?.value();
            let asset = extras.get("mpfb")?.get("asset")?;
            Some(format!(
                "{} ({})",
                asset.get("name")?.as_str()?,
                asset.get("kind")?.as_str()?
            ))
        }))
        .collect();
    Ok(MpfbFiles {
        rig,
        weights,
        derived,
        default_ends,
        targets,
        assets_left_out,
    })
}

/// Where a shape's target file goes: face units and visemes under their MakeHuman names in
/// MPFB's folders, any other shape under its own name.
fn target_path(shape: &str) -> std::path::PathBuf {
    use crate::shape_names::{FACE_UNITS, VISEMES};
    let path = if let Some((file, _)) = FACE_UNITS.iter().find(|(_, g)| *g == shape) {
        format!("targets/faceunits/{file}.target")
    } else if let Some((file, _)) = VISEMES.iter().find(|(_, g)| *g == shape) {
        format!("targets/visemes/{file}.target")
    } else {
        format!("targets/{shape}.target")
    };
    std::path::PathBuf::from(path)
}

/// The mesh on the skeleton (the first mesh instance among its children), with our extras,
/// its vertex count and, from `extras.mpfb.source_vertices`, each kept vertex's source vertex.
struct SkeletonMesh<'a> {
    index: usize,
    mesh: &'a g4mf_model::Mesh,
    extras: Option<extras::MpfbMesh>,
    kept: usize,
    source: Option<Vec<u64>>,
}

fn skeleton_mesh<'a>(
    file: &'a G4mfFile,
    view: &SkeletonView,
) -> Result<Option<SkeletonMesh<'a>>, ToMpfbError> {
    let doc = &file.document;
    let Some((index, mesh)) = doc.nodes[view.skeleton]
        .children
        .iter()
        .filter_map(|c| doc.nodes.get(c.get())?.mesh_instance.as_ref())
        .find_map(|mi| Some((mi.mesh.get(), doc.meshes.get(mi.mesh.get())?)))
    else {
        return Ok(None);
    };
    let extras = extras::mesh_extras(mesh).map_err(|problem| ToMpfbError::BadExtras {
        location: Location::pointer(format!("/meshes/{index}/extras")),
        problem,
    })?;
    let (bytes, component, vector_size) = file.accessor_bytes(mesh.vertices)?;
    let kept = bytes.len() / (component.size() * vector_size.max(1) as usize);
    let source = match extras.as_ref().and_then(|e| e.source_vertices.as_deref()) {
        None => None,
        Some(ranges) => Some(source_vertices(ranges, kept, index)?),
    };
    Ok(Some(SkeletonMesh {
        index,
        mesh,
        extras,
        kept,
        source,
    }))
}

/// The skinned mesh's blend shapes as MakeHuman targets: `INDEX DX DY DZ` lines, indices in
/// the source mesh's numbering (from `extras.mpfb.source_vertices`), displacements back in
/// base.obj's decimetres, each number the shortest text that reads back as the same float32.
fn target_files(
    file: &G4mfFile,
    view: &SkeletonView,
) -> Result<Vec<(std::path::PathBuf, String)>, ToMpfbError> {
    use std::fmt::Write as _;
    let Some(SkeletonMesh {
        index: mesh_index,
        mesh,
        kept,
        source,
        ..
    }) = skeleton_mesh(file, view)?
    else {
        return Ok(Vec::new());
    };
    let Some(blend) = &mesh.blend else {
        return Ok(Vec::new());
    };
    let mut out = Vec::new();
    for (k, shape) in blend.shapes.iter().enumerate() {
        let at =
            |what: &str| Location::pointer(format!("/meshes/{mesh_index}/blend/shapes/{k}/{what}"));
        let bad = |what: &str, problem: String| ToMpfbError::BadExtras {
            location: at(what),
            problem,
        };
        // A file name from the file's data: sanitized (no separators, no dots) and unique.
        let name = shape
            .name
            .as_deref()
            .map_or_else(|| format!("shape{k}"), g4mf_writer::sanitize);
        let name = if out.iter().any(|(p, _)| *p == target_path(&name)) {
            format!("{name}_{k}")
        } else {
            name
        };
        let mut text = String::new();
        if let Some(target) = &shape.position {
            let indices = file.read_u64(target.indices)?;
            let offsets = file.read_f64(target.offsets)?;
            if offsets.len() != indices.len() * 3 {
                return Err(bad(
                    "position",
                    format!(
                        "{} indices for {} offset numbers",
                        indices.len(),
                        offsets.len()
                    ),
                ));
            }
            for (i, o) in indices.iter().zip(offsets.chunks_exact(3)) {
                let vertex = match &source {
                    None => (*i < kept as u64).then_some(*i),
                    Some(source) => source.get(*i as usize).copied(),
                }
                .ok_or_else(|| bad("position/indices", format!("vertex {i} is not in the mesh")))?;
                // Metres back to decimetres, rounded to what a target file holds (float32).
                let d = o.iter().map(|m| (m * 10.0) as f32).collect::<Vec<f32>>();
                let _ = writeln!(text, "{vertex} {} {} {}", d[0], d[1], d[2]);
            }
        }
        out.push((target_path(&name), text));
    }
    Ok(out)
}

fn restore_rig(doc: &Document, view: &SkeletonView) -> Result<String, ToMpfbError> {
    let skeleton = extras::skeleton_extras(&doc.nodes[view.skeleton]).map_err(|problem| {
        ToMpfbError::BadExtras {
            location: Location::pointer(format!("/nodes/{}/extras", view.skeleton)),
            problem,
        }
    })?;
    let (mut header, provenance) = match skeleton {
        Some(s) => (s.mpfb, s.mpfb2g4mf),
        None => (Map::new(), None),
    };
    // Names and nodes only: each bone's fields are read again as they are written, so the
    // rig is never held as parsed JSON (a 100,000-bone rig's took 350 MB).
    let mut bones: Vec<(String, usize)> = view
        .bones
        .iter()
        .filter_map(|&b| Some((extras::bone_extras(&doc.nodes[b])?.name, b)))
        .collect();
    // The rig file's own bone order, when recorded.
    if let Some(order) = provenance.map(|p| p.bone_order) {
        let rank: BTreeMap<&str, usize> = order
            .iter()
            .enumerate()
            .map(|(i, n)| (n.as_str(), i))
            .collect();
        bones.sort_by_key(|(name, _)| rank.get(name.as_str()).copied().unwrap_or(usize::MAX));
    }
    header.entry("version").or_insert(json!(110));
    header.entry("is_subrig").or_insert(json!(false));
    // The bones come from the bone nodes, never from the skeleton's extras.
    header.remove("bones");
    let restored = RestoredRig {
        header: &header,
        bones: RestoredBones { doc, bones: &bones },
    };
    Ok(serde_json::to_string(&restored).unwrap_or_default())
}

/// A rig restored from bone extras, serialized as it is read: the header's keys, then
/// `bones`.
#[derive(serde::Serialize)]
struct RestoredRig<'a> {
    #[serde(flatten)]
    header: &'a Map<String, Value>,
    bones: RestoredBones<'a>,
}

/// The bones of a restored rig: each bone's extras read, written and dropped in turn.
struct RestoredBones<'a> {
    doc: &'a Document,
    bones: &'a [(String, usize)],
}

impl serde::Serialize for RestoredBones<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = serializer.serialize_map(Some(self.bones.len()))?;
        for (name, node) in self.bones {
            let fields = extras::bone_extras(&self.doc.nodes[*node]).map(|b| b.fields);
            map.serialize_entry(name, &fields.unwrap_or_default())?;
        }
        map.end()
    }
}

/// The mesh-space (the skinned mesh node's space) transform of skeleton space: bones are
/// fitted to the mesh, so they are expressed where its vertices are.
fn mesh_from_skeleton(doc: &Document, view: &SkeletonView) -> (DVec3, DMat3) {
    let mesh_node = doc.nodes[view.skeleton]
        .children
        .iter()
        .map(|c| c.get())
        .find(|&c| doc.nodes.get(c).is_some_and(|n| n.mesh_instance.is_some()));
    match mesh_node {
        None => (DVec3::ZERO, DMat3::IDENTITY),
        Some(m) => {
            let (p, b) = node_transform(&doc.nodes[m]);
            let inverse = b.inverse();
            (-(inverse * p), inverse)
        }
    }
}

struct Matcher {
    vertices: Vec<DVec3>,
    tree: ImmutableKdTree<f64, 3>,
    cubes: Vec<(String, DVec3)>,
}

impl Matcher {
    fn new(mesh: &LoadedMesh, frame: ObjFrame) -> Self {
        let fit = mesh.fit_mesh(frame);
        let vertices: Vec<DVec3> = fit.vertices().to_vec();
        let points: Vec<[f64; 3]> = vertices.iter().map(|v| v.to_array()).collect();
        let mut cubes: Vec<(String, DVec3)> = mesh
            .joint_groups
            .keys()
            .filter_map(|n| Some((n.clone(), fit.cube_centre(n)?)))
            .collect();
        cubes.sort_by(|a, b| a.0.cmp(&b.0));
        Self {
            vertices,
            tree: ImmutableKdTree::new_from_slice(&points),
            cubes,
        }
    }

    /// MPFB's save-time preference (cube, then vertex, then the mean of two vertices), each
    /// accepted only when it reproduces `pos` within [`EXACT_MATCH`]; else `None` (DEFAULT).
    fn strategy(&self, pos: DVec3) -> Option<Value> {
        let cube = self
            .cubes
            .iter()
            .map(|(n, c)| (n, c.distance(pos)))
            .min_by(|a, b| a.1.total_cmp(&b.1));
        if let Some((name, d)) = cube {
            if d <= EXACT_MATCH {
                return Some(json!({"strategy": "CUBE", "cube_name": name}));
            }
        }
        let nearest = self.tree.nearest_one::<SquaredEuclidean>(&pos.to_array());
        if nearest.distance.sqrt() <= EXACT_MATCH {
            return Some(json!({"strategy": "VERTEX", "vertex_index": nearest.item}));
        }
        // The mean of i and j is pos exactly when j is the mirror of i through pos.
        let mut best: Option<(f64, f64, u64, u64)> = None;
        for (i, v) in self.vertices.iter().enumerate() {
            let mirror = pos * 2.0 - *v;
            let other = self
                .tree
                .nearest_one::<SquaredEuclidean>(&mirror.to_array());
            let j = other.item;
            if j as usize <= i {
                continue;
            }
            let mean = (*v + self.vertices[j as usize]) / 2.0;
            let d = mean.distance(pos);
            if d <= EXACT_MATCH {
                // Prefer the closest mean, then the shorter pair (MPFB penalizes long pairs).
                let candidate = (d, v.distance(self.vertices[j as usize]), i as u64, j);
                if best.is_none_or(|b| (candidate.0, candidate.1) < (b.0, b.1)) {
                    best = Some(candidate);
                }
            }
        }
        best.map(|(_, _, i, j)| json!({"strategy": "MEAN", "vertex_indices": [i, j]}))
    }
}

fn derive_rig(
    doc: &Document,
    view: &SkeletonView,
    base: Option<(&LoadedMesh, ObjFrame)>,
) -> Result<(Value, Vec<String>), ToMpfbError> {
    let matcher = base.map(|(mesh, frame)| Matcher::new(mesh, frame));
    let (mp, mb) = mesh_from_skeleton(doc, view);
    let mut bones = Map::new();
    let mut tails: BTreeMap<usize, DVec3> = BTreeMap::new();
    let mut defaults = Vec::new();
    let mut ordered = Vec::new();
    for &b in &view.bones {
        let node = &doc.nodes[b];
        let pointer = format!("/nodes/{b}");
        let length = node
            .bone
            .as_ref()
            .and_then(|bone| bone.length)
            .ok_or_else(|| ToMpfbError::BadBone {
                location: Location::pointer(pointer.clone()),
                problem: "a bone without `length` has no tail".into(),
            })?;
        let (p, basis) = view.world[&b];
        let (p, basis) = (mp + mb * p, mb * basis);
        let head = space::g4mf_to_blender(p);
        let tail = space::g4mf_to_blender(p + basis.y_axis * length);
        let direction = tail - head;
        if direction.length() <= mpfb_rig::fit::MIN_BONE_LENGTH {
            return Err(ToMpfbError::BadBone {
                location: Location::pointer(pointer),
                problem: format!("length {length} is too short to give the bone a direction"),
            });
        }
        let roll = mpfb_rig::frame::mat3_to_roll(space::basis_g4mf_to_blender(basis), direction);
        tails.insert(b, tail);
        ordered.push((b, head, tail, roll));
    }
    for (b, head, tail, roll) in ordered {
        let node = &doc.nodes[b];
        let name = bone_name(node, b);
        let parent = view
            .parent
            .get(&b)
            .copied()
            .filter(|p| doc.nodes[*p].bone.is_some());
        let end = |pos: DVec3, which: &str, defaults: &mut Vec<String>| {
            let mut end = matcher
                .as_ref()
                .and_then(|m| m.strategy(pos))
                .unwrap_or_else(|| {
                    defaults.push(format!("{name} {which}"));
                    json!({"strategy": "DEFAULT"})
                });
            end["default_position"] = json!(pos.to_array());
            end
        };
        let head_json = end(head, "head", &mut defaults);
        let tail_json = end(tail, "tail", &mut defaults);
        // Every bone reached under the skeleton has a tail, its tree parent included.
        let connected = parent
            .and_then(|p| tails.get(&p))
            .is_some_and(|t| t.distance(head) < 1e-9);
        bones.insert(
            name,
            json!({
                "head": head_json,
                "tail": tail_json,
                "roll": roll,
                "parent": parent.map(|p| bone_name(&doc.nodes[p], p)).unwrap_or_default(),
                "use_connect": connected,
                "use_inherit_rotation": true,
                "use_local_location": true,
                "inherit_scale": "FULL",
                "rigify": {},
            }),
        );
    }
    Ok((
        json!({"version": 110, "is_subrig": false, "scale_factor": 0.1, "bones": bones}),
        defaults,
    ))
}

/// Shortest decimal that reads back as the same float32 (weights live in float32 in G4MF).
fn f32_json(w: f32) -> Value {
    w.to_string()
        .parse::<f64>()
        .map_or(Value::Null, Value::from)
}

fn weights_json(file: &G4mfFile, view: &SkeletonView) -> Result<Option<Value>, ToMpfbError> {
    let doc = &file.document;
    let Some(found) = skeleton_mesh(file, view)? else {
        return Ok(None);
    };
    let Some(skin) = &found.mesh.skin else {
        return Ok(None);
    };
    let extras = found.extras.as_ref();
    // Kept vertex -> source vertex, from the recorded ranges (identity when absent).
    let source = found.source;
    let joints: Vec<Option<usize>> = doc.nodes[view.skeleton]
        .skeleton
        .as_ref()
        .map(|s| {
            s.joints
                .iter()
                .map(|j| match j {
                    JointRef::Node(n) => Some(n.get()),
                    JointRef::Uncontrolled => None,
                })
                .collect()
        })
        .unwrap_or_default();
    let v = file.read_u64(skin.vertices)?;
    let g = file.read_u64(skin.groups)?;
    let w = file.read_f64(skin.weights)?;
    let mut groups: BTreeMap<String, Vec<(u64, f32)>> = BTreeMap::new();
    for i in 0..v.len().min(g.len()).min(w.len()) {
        let Some(Some(node)) = joints.get(g[i] as usize) else {
            continue;
        };
        let name = bone_name(&doc.nodes[*node], *node);
        let vertex = source
            .as_ref()
            .and_then(|s| s.get(v[i] as usize).copied())
            .unwrap_or(v[i]);
        groups.entry(name).or_default().push((vertex, w[i] as f32));
    }
    if let Some(unskinned) = extras.and_then(|e| e.unskinned_weights.as_ref()) {
        let (ug, uv, uw) = (
            file.read_u64(unskinned.groups)?,
            file.read_u64(unskinned.vertices)?,
            file.read_f64(unskinned.weights)?,
        );
        for i in 0..ug.len().min(uv.len()).min(uw.len()) {
            if let Some(name) = unskinned.names.get(ug[i] as usize) {
                groups
                    .entry(name.clone())
                    .or_default()
                    .push((uv[i], uw[i] as f32));
            }
        }
    }
    for (name, pairs) in extras.and_then(|e| e.masks.as_ref()).into_iter().flatten() {
        let list = groups.entry(name.clone()).or_default();
        list.extend(pairs.iter().map(|&(v, w)| (u64::from(v), w as f32)));
    }
    for name in extras
        .and_then(|e| e.weight_groups.as_ref())
        .into_iter()
        .flatten()
    {
        groups.entry(name.clone()).or_default();
    }
    let weights: Map<String, Value> = groups
        .into_iter()
        .map(|(name, mut pairs)| {
            pairs.sort_by_key(|p| p.0);
            (
                name,
                Value::Array(
                    pairs
                        .into_iter()
                        .map(|(v, w)| json!([v, f32_json(w)]))
                        .collect(),
                ),
            )
        })
        .collect();
    let mut out = extras
        .and_then(|e| e.weights_metadata.clone())
        .unwrap_or_else(|| {
            let mut m = Map::new();
            m.insert(
                "description".into(),
                json!("Weights recovered from a G4MF skin"),
            );
            m.insert("name".into(), json!("G4MF weights"));
            m.insert("version".into(), json!(110));
            m
        });
    out.insert("weights".into(), Value::Object(weights));
    let mut sorted: Vec<(String, Value)> = out.into_iter().collect();
    sorted.sort_by(|a, b| a.0.cmp(&b.0));
    Ok(Some(Value::Object(sorted.into_iter().collect())))
}

/// Expands `extras.mpfb.source_vertices` (inclusive ranges of source vertex numbers) into one
/// source vertex per kept vertex, refusing to expand past the mesh's `kept` vertices: the
/// ranges come from the file, and a hostile one must not allocate without bound.
fn source_vertices(ranges: &[[u64; 2]], kept: usize, mesh: usize) -> Result<Vec<u64>, ToMpfbError> {
    let mut out = Vec::with_capacity(kept);
    for (k, &[first, last]) in ranges.iter().enumerate() {
        let bad = |problem: String| ToMpfbError::BadExtras {
            location: Location::pointer(format!("/meshes/{mesh}/extras/mpfb/source_vertices/{k}")),
            problem,
        };
        if last < first {
            return Err(bad(format!("the range {first}..={last} runs backwards")));
        }
        // `last - first` is one less than the range's length, so this cannot overflow.
        if last - first >= (kept - out.len()) as u64 {
            return Err(bad(format!(
                "the ranges name more vertices than the mesh's {kept}"
            )));
        }
        out.extend(first..=last);
    }
    Ok(out)
}

/// JSON as MPFB writes it: 4-space indentation (keys already sorted).
pub fn mpfb_json_text<T: serde::Serialize + ?Sized>(value: &T) -> Vec<u8> {
    let mut out = Vec::new();
    let formatter = serde_json::ser::PrettyFormatter::with_indent(b"    ");
    let mut serializer = serde_json::Serializer::with_formatter(&mut out, formatter);
    let _ = serde::Serialize::serialize(value, &mut serializer);
    out.push(b'\n');
    out
}
