//! The node tree as a character reads it: each node's place in the root's space (position,
//! and basis or rotor and scale), the one skeleton and its bones in skeleton space, and the
//! mesh instances with how each moves (skinned, on a bone, or static).

use super::{CharacterError, CharacterErrorKind, NoteKind, Notes, error};
pub(super) use crate::transform::Transform;
use character_spec::BoneSpec;
use g4mf_model::{Document, JointRef, Node};
use glam::{DMat3, DVec3};
use serde_json::Value;

/// A malformed-transform error at `/nodes/{i}/{key}`.
fn bad(i: usize, key: &str, message: String) -> CharacterError {
    error(
        format!("/nodes/{i}/{key}"),
        CharacterErrorKind::Malformed(message),
    )
}

/// Node `i`'s transform relative to its parent, read strictly ([`Transform::of_node`]).
fn local_transform(node: &Node, i: usize) -> Result<Transform, CharacterError> {
    Transform::of_node(node).map_err(|e| bad(i, e.key, e.message))
}

/// The tree under the root: each node's parent and place in the root's space, whether it is
/// hidden, and the order it was reached in (parents first).
#[derive(Debug)]
pub(super) struct Tree {
    /// Parent of each node (`None`: the root, or not in the tree).
    pub parent: Vec<Option<usize>>,
    /// Each node's transform in the root's space (identity for nodes not in the tree).
    pub world: Vec<Transform>,
    /// `visible: false` on the node or an ancestor.
    pub hidden: Vec<bool>,
    /// The nodes of the tree, each after its parent.
    pub order: Vec<usize>,
}

impl Tree {
    /// Walks the tree from the root, refusing a node reached twice (a second parent, a cycle,
    /// the root as a child) and transforms that are malformed or not finite.
    pub fn walk(doc: &Document, notes: &mut Notes) -> Result<Tree, CharacterError> {
        let count = doc.nodes.len();
        let Some(root) = doc.nodes.first() else {
            return Err(error(
                "/nodes",
                CharacterErrorKind::Unsupported(
                    "the file has no nodes: a collection of data, not a character".into(),
                ),
            ));
        };
        if root.position.is_some()
            || root.basis.is_some()
            || root.rotor.is_some()
            || root.scale.is_some()
        {
            notes.add(|| "/nodes/0".into(), NoteKind::RootTransformLeftOut);
        }
        let mut tree = Tree {
            parent: vec![None; count],
            world: vec![Transform::IDENTITY; count],
            hidden: vec![false; count],
            order: vec![0],
        };
        let mut reached = vec![false; count];
        reached[0] = true;
        tree.hidden[0] = root.visible == Some(false);
        let mut next = 0;
        while let Some(&i) = tree.order.get(next) {
            next += 1;
            for (k, child) in doc.nodes[i].children.iter().enumerate() {
                let c = child.get();
                if std::mem::replace(&mut reached[c], true) {
                    return Err(bad(
                        i,
                        &format!("children/{k}"),
                        format!("node {c} is reached twice (a second parent, a cycle or the root)"),
                    ));
                }
                let world = tree.world[i].then(local_transform(&doc.nodes[c], c)?);
                if !world.is_finite() {
                    return Err(bad(
                        c,
                        "position",
                        "the node's place in the root's space is not finite".into(),
                    ));
                }
                tree.parent[c] = Some(i);
                tree.world[c] = world;
                tree.hidden[c] = tree.hidden[i] || doc.nodes[c].visible == Some(false);
                tree.order.push(c);
            }
        }
        Ok(tree)
    }
}

/// The character's skeleton: its node, its bones in skeleton space, and its joints.
#[derive(Debug)]
pub(super) struct Skeleton {
    /// The skeleton node.
    pub node: usize,
    /// Its place in the root's space; the spec's space has its origin at `frame.position`
    /// and the root's axes.
    pub frame: Transform,
    /// The bones, depth-first (parents first, children in file order).
    pub bones: Vec<BoneSpec>,
    /// Bone index of each node (`None`: not a bone of the skeleton).
    pub bone_of_node: Vec<Option<usize>>,
    /// Bone of each joint (`None`: `-1`, a joint no bone controls).
    pub joints: Vec<Option<usize>>,
}

/// Largest difference, entry by entry, tolerated between a bone's basis and the rotation it
/// becomes before the change is noted (float32 bases carry ~1e-7).
const ROTATION_NOTE_TOLERANCE: f64 = 1e-6;

impl Skeleton {
    /// The one skeleton of the tree, if any, with its bones; refuses a second skeleton, bones
    /// outside the skeleton's chain of bones and joints that are not its bones.
    pub fn find(
        doc: &Document,
        tree: &Tree,
        notes: &mut Notes,
    ) -> Result<Option<Skeleton>, CharacterError> {
        let mut skeletons =
            (0..doc.nodes.len()).filter(|&i| doc.nodes[i].skeleton.is_some() && tree.reached(i));
        let Some(node) = skeletons.next() else {
            if let Some(i) = tree.order.iter().find(|&&i| doc.nodes[i].bone.is_some()) {
                return Err(not_in_chain(*i));
            }
            return Ok(None);
        };
        if let Some(second) = skeletons.next() {
            return Err(error(
                format!("/nodes/{second}/skeleton"),
                CharacterErrorKind::SeveralSkeletons { first: node },
            ));
        }
        let frame = tree.world[node];
        if (frame.basis - DMat3::IDENTITY)
            .abs()
            .to_cols_array()
            .iter()
            .any(|&d| d > 1e-12)
        {
            notes.add(
                || format!("/nodes/{node}"),
                NoteKind::SkeletonTransformBaked,
            );
        }
        let mut skeleton = Skeleton {
            node,
            frame,
            bones: Vec::new(),
            bone_of_node: vec![None; doc.nodes.len()],
            joints: Vec::new(),
        };
        skeleton.collect_bones(doc, tree, notes);
        if let Some(&i) = tree
            .order
            .iter()
            .find(|&&i| doc.nodes[i].bone.is_some() && skeleton.bone_of_node[i].is_none())
        {
            return Err(not_in_chain(i));
        }
        skeleton.joints = skeleton.joints_of(doc)?;
        Ok(Some(skeleton))
    }

    /// The bones under the skeleton node, depth-first in file order, in skeleton space.
    fn collect_bones(&mut self, doc: &Document, tree: &Tree, notes: &mut Notes) {
        let bone_children = |i: usize| {
            doc.nodes[i]
                .children
                .iter()
                .map(|c| c.get())
                .filter(|&c| doc.nodes[c].bone.is_some())
        };
        let mut stack: Vec<(usize, Option<usize>)> =
            bone_children(self.node).map(|c| (c, None)).collect();
        stack.reverse();
        while let Some((i, parent)) = stack.pop() {
            let b = self.bones.len();
            self.bone_of_node[i] = Some(b);
            self.bones.push(self.bone(doc, tree, i, parent, notes));
            let first = stack.len();
            stack.extend(bone_children(i).map(|c| (c, Some(b))));
            stack[first..].reverse();
        }
    }

    /// Bone node `i` in skeleton space.
    fn bone(
        &self,
        doc: &Document,
        tree: &Tree,
        i: usize,
        parent: Option<usize>,
        notes: &mut Notes,
    ) -> BoneSpec {
        let node = &doc.nodes[i];
        let world = tree.world[i];
        let (basis, y_scale) = rotation_along_y(world.basis);
        let change = (basis - world.basis).abs().to_cols_array();
        if change.iter().any(|&d| d > ROTATION_NOTE_TOLERANCE) {
            notes.add(|| format!("/nodes/{i}"), NoteKind::BoneNormalised);
        }
        // Float rounding alone keeps the composed basis as it is (bit for bit our own).
        let (basis, y_scale) = if change.iter().all(|&d| d <= 1e-9) {
            (world.basis, 1.0)
        } else {
            (basis, y_scale)
        };
        let bone = node.bone.as_ref();
        let length = bone.and_then(|b| b.length);
        if length.is_none() {
            notes.add(|| format!("/nodes/{i}/bone"), NoteKind::BoneWithoutLength);
        }
        if bone.is_some_and(|b| b.mass.is_some() || b.shape.is_some() || !b.other.is_empty()) {
            notes.add(
                || format!("/nodes/{i}/bone"),
                NoteKind::BonePropertiesLeftOut,
            );
        }
        let length = length.unwrap_or(0.0).max(0.0) * y_scale;
        BoneSpec {
            name: node.name.clone().unwrap_or_else(|| format!("Bone{i}")),
            parent,
            head: world.position - self.frame.position,
            basis,
            length: if length.is_finite() { length } else { 0.0 },
            extras: node.extras.clone(),
        }
    }

    /// The skeleton's `joints` as bones, each checked to be one of its bones.
    fn joints_of(&self, doc: &Document) -> Result<Vec<Option<usize>>, CharacterError> {
        let Some(skeleton) = &doc.nodes[self.node].skeleton else {
            return Ok(Vec::new());
        };
        skeleton
            .joints
            .iter()
            .enumerate()
            .map(|(k, joint)| match joint {
                JointRef::Uncontrolled => Ok(None),
                JointRef::Node(n) => match self.bone_of_node[n.get()] {
                    Some(b) => Ok(Some(b)),
                    None => Err(error(
                        format!("/nodes/{}/skeleton/joints/{k}", self.node),
                        CharacterErrorKind::Malformed(format!(
                            "joint {k} is node {n}, which is not a bone of this skeleton"
                        )),
                    )),
                },
            })
            .collect()
    }
}

/// A bone outside the skeleton's chain of bones, as an error.
fn not_in_chain(i: usize) -> CharacterError {
    error(
        format!("/nodes/{i}/bone"),
        CharacterErrorKind::Malformed(
            "a bone whose parent is neither a bone nor the skeleton (skeleton.md)".into(),
        ),
    )
}

impl Tree {
    /// Whether node `i` is in the tree.
    fn reached(&self, i: usize) -> bool {
        i == 0 || self.parent[i].is_some()
    }
}

/// The rotation nearest `basis` that keeps its +Y direction (Y normalised, X made orthogonal
/// to it, Z = X x Y), and the length of its Y column (the bone's scale along itself). A basis
/// whose Y or X column vanishes keeps the identity's axes for them.
pub(super) fn rotation_along_y(basis: DMat3) -> (DMat3, f64) {
    let y_scale = basis.y_axis.length();
    let y = basis.y_axis.try_normalize().unwrap_or(DVec3::Y);
    let x = (basis.x_axis - y * basis.x_axis.dot(y))
        .try_normalize()
        .or_else(|| y.any_orthonormal_vector().try_normalize())
        .unwrap_or(DVec3::X);
    let z = x.cross(y);
    (DMat3::from_cols(x, y, z), y_scale)
}

/// How a mesh instance moves with the skeleton.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Binding {
    /// Not at all.
    Static,
    /// By its mesh's skin (a direct child of the skeleton with a skinned mesh).
    Skin,
    /// Rigidly with this bone (a node under it).
    Bone(usize),
}

/// A mesh instance to read: its node and mesh, where it is, how it moves, its surfaces'
/// materials and its blend amounts.
#[derive(Debug)]
pub(super) struct Instance {
    /// The mesh instance node.
    pub node: usize,
    /// The mesh.
    pub mesh: usize,
    /// The node's transform into the spec's space.
    pub place: Transform,
    /// How it moves.
    pub binding: Binding,
    /// Each surface's material after the instance's overrides.
    pub materials: Vec<Option<usize>>,
    /// Each blend shape's amount (the instance's `blendAmounts`, else the mesh's).
    pub amounts: Vec<f64>,
}

/// The visible mesh instances, the body first (the first under the skeleton, else the first
/// at all), then the others in node order; refuses model instances and notes the nodes a
/// character leaves out (cameras, lights, physics).
pub(super) fn instances(
    doc: &Document,
    tree: &Tree,
    skeleton: Option<&Skeleton>,
    notes: &mut Notes,
) -> Result<Vec<Instance>, CharacterError> {
    let placement = Placement::of(doc, tree, skeleton);
    let origin = skeleton.map_or(DVec3::ZERO, |s| s.frame.position);
    let mut instances = Vec::new();
    let mut in_skeleton = Vec::new();
    for i in 0..doc.nodes.len() {
        if !tree.reached(i) {
            continue;
        }
        let node = &doc.nodes[i];
        other_components(node, i, notes)?;
        let Some(mesh_instance) = &node.mesh_instance else {
            continue;
        };
        if tree.hidden[i] {
            notes.add(|| format!("/nodes/{i}"), NoteKind::HiddenMeshLeftOut);
            continue;
        }
        let mesh = mesh_instance.mesh.get();
        let binding = placement.binding(doc, tree, i, mesh, notes);
        let world = tree.world[i];
        instances.push(Instance {
            node: i,
            mesh,
            place: Transform {
                basis: world.basis,
                position: world.position - origin,
            },
            binding,
            materials: materials(doc, i, mesh)?,
            amounts: amounts(doc, i, mesh)?,
        });
        in_skeleton.push(placement.in_skeleton[i]);
    }
    if let Some(body) = in_skeleton.iter().position(|&s| s) {
        let first = instances.remove(body);
        instances.insert(0, first);
    }
    Ok(instances)
}

/// Notes the components a character leaves out (cameras, lights, physics) and refuses model
/// instances (another file's nodes).
fn other_components(node: &Node, i: usize, notes: &mut Notes) -> Result<(), CharacterError> {
    for key in ["camera", "light", "physics"] {
        if node.other.contains_key(key) {
            notes.add(|| format!("/nodes/{i}/{key}"), NoteKind::NodeLeftOut(key));
        }
    }
    if node.other.contains_key("modelInstance") {
        return Err(error(
            format!("/nodes/{i}/modelInstance"),
            CharacterErrorKind::Unsupported(
                "a model instance (another file's nodes): convert that model on its own".into(),
            ),
        ));
    }
    Ok(())
}

/// Where each node is relative to the skeleton.
struct Placement {
    /// The skeleton node, if any.
    skeleton: Option<usize>,
    /// In the skeleton's subtree (the skeleton included).
    in_skeleton: Vec<bool>,
    /// The nearest bone at or above each node.
    bone: Vec<Option<usize>>,
}

impl Placement {
    fn of(doc: &Document, tree: &Tree, skeleton: Option<&Skeleton>) -> Self {
        let count = doc.nodes.len();
        let mut placement = Placement {
            skeleton: skeleton.map(|s| s.node),
            in_skeleton: vec![false; count],
            bone: vec![None; count],
        };
        for &i in &tree.order {
            let parent = tree.parent[i];
            placement.in_skeleton[i] =
                placement.skeleton == Some(i) || parent.is_some_and(|p| placement.in_skeleton[p]);
            placement.bone[i] = skeleton
                .and_then(|s| s.bone_of_node[i])
                .or_else(|| parent.and_then(|p| placement.bone[p]));
        }
        placement
    }

    /// How node `i`, instancing `mesh`, moves: a skinned mesh moves by its skin only on a
    /// direct child of the skeleton (skeleton.md); a node under a bone follows that bone.
    fn binding(
        &self,
        doc: &Document,
        tree: &Tree,
        i: usize,
        mesh: usize,
        notes: &mut Notes,
    ) -> Binding {
        let skinned = doc.meshes[mesh].skin.is_some();
        if skinned && self.skeleton.is_some() && tree.parent[i] == self.skeleton {
            return Binding::Skin;
        }
        if skinned {
            notes.add(|| format!("/meshes/{mesh}/skin"), NoteKind::SkinIgnored);
        }
        match self.bone[i] {
            Some(bone) => {
                notes.add(|| format!("/nodes/{i}"), NoteKind::BoundToBone);
                Binding::Bone(bone)
            }
            None => Binding::Static,
        }
    }
}

/// Each surface's material for node `i`'s instance of `mesh`: the instance's `materials`
/// (one for all surfaces, or one per surface where `-1` keeps the surface's), else the
/// surfaces' own.
fn materials(doc: &Document, i: usize, mesh: usize) -> Result<Vec<Option<usize>>, CharacterError> {
    let surfaces = &doc.meshes[mesh].surfaces;
    let own: Vec<Option<usize>> = surfaces
        .iter()
        .map(|s| s.material.map(|m| m.get()))
        .collect();
    let Some(overrides) = doc.nodes[i]
        .mesh_instance
        .as_ref()
        .and_then(|m| m.other.get("materials"))
    else {
        return Ok(own);
    };
    let at = format!("/nodes/{i}/meshInstance/materials");
    let malformed = |message: String| error(at.clone(), CharacterErrorKind::Malformed(message));
    let list: Vec<i64> = overrides
        .as_array()
        .map(|a| a.iter().map(Value::as_i64).collect::<Option<Vec<i64>>>())
        .unwrap_or_default()
        .ok_or_else(|| malformed("not an array of material indices".into()))?;
    let pick = |k: usize, m: i64| match usize::try_from(m) {
        Ok(m) if m < doc.materials.len() => Ok(Some(m)),
        _ if m == -1 => Ok(own[k]),
        _ => Err(malformed(format!("{m} is not a material"))),
    };
    match list.as_slice() {
        [m] => (0..surfaces.len()).map(|k| pick(k, *m)).collect(),
        list if list.len() == surfaces.len() => {
            list.iter().enumerate().map(|(k, &m)| pick(k, m)).collect()
        }
        list => Err(malformed(format!(
            "{} materials for {} surfaces (one, or one per surface)",
            list.len(),
            surfaces.len()
        ))),
    }
}

/// Each blend shape's amount for node `i`'s instance of `mesh`.
fn amounts(doc: &Document, i: usize, mesh: usize) -> Result<Vec<f64>, CharacterError> {
    let Some(blend) = &doc.meshes[mesh].blend else {
        return Ok(Vec::new());
    };
    let own = (0..blend.shapes.len()).map(|k| blend.amount(k)).collect();
    let Some(overrides) = doc.nodes[i]
        .mesh_instance
        .as_ref()
        .and_then(|m| m.other.get("blendAmounts"))
    else {
        return Ok(own);
    };
    overrides
        .as_array()
        .map(|a| a.iter().map(Value::as_f64).collect::<Option<Vec<f64>>>())
        .unwrap_or_default()
        .filter(|a| a.len() == blend.shapes.len())
        .ok_or_else(|| {
            error(
                format!("/nodes/{i}/meshInstance/blendAmounts"),
                CharacterErrorKind::Malformed(format!(
                    "not {} numbers, one per blend shape",
                    blend.shapes.len()
                )),
            )
        })
}
