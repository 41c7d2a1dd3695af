//! Linear blend skinning of our own files, the judge other programs' skinning is held to:
//! bones turned in world space about their heads ([`Turn`], a child following its turned
//! parent), every vertex of every mesh of a G4MF file ([`g4mf`]) or a `.glb` ([`glb`]) moved by
//! `v' = Σ w_i · posed_i · rest_i⁻¹ · v`, and their vertices matched to another program's by
//! rest position ([`Matching`]), since glTF readers split vertices at texture seams.
//!
//! It lives in `test-support`, not `conformance`: `cargo xtask blender-gltf-check` and the
//! converter's own tests (`tests/cli/blender_gltf.rs`) both use it, and the converter's tests
//! can depend on `test-support` (a dev-dependency already) but not on `conformance`, which
//! depends on the converter.

pub mod g4mf;
pub mod glb;

use glam::{DAffine3, DQuat, DVec3};
use std::collections::HashMap;

/// A bone turned by `degrees` about the world `axis` (the file's space) through its head.
#[derive(Debug, Clone, PartialEq)]
pub struct Turn {
    /// The bone node's name, as the file has it.
    pub bone: String,
    /// The world axis (need not be unit length).
    pub axis: DVec3,
    /// The angle, right-handed about the axis.
    pub degrees: f64,
}

/// One mesh of a file: every vertex where it rests and where the turns take it, in the
/// file's world space, and its blend shapes' offsets.
#[derive(Debug, Clone, PartialEq)]
pub struct SkinnedMesh {
    /// The name of the node the mesh is on (what Blender names its object).
    pub name: String,
    /// Every vertex at rest.
    pub rest: Vec<DVec3>,
    /// Every vertex with the bones turned.
    pub posed: Vec<DVec3>,
    /// The blend shapes, each with an offset for every vertex (world axes).
    pub shapes: Vec<Shape>,
}

/// A blend shape: its name and an offset for every vertex of its mesh.
#[derive(Debug, Clone, PartialEq)]
pub struct Shape {
    /// The shape's name (G4MF's `name`, glTF's `mesh.extras.targetNames`).
    pub name: String,
    /// One offset per vertex of the mesh.
    pub offsets: Vec<DVec3>,
}

/// A node tree: each node's parent and transform relative to it, and its name.
#[derive(Debug, Clone)]
pub struct Tree {
    /// Each node's name.
    pub names: Vec<Option<String>>,
    /// Each node's parent (`None`: a root).
    pub parent: Vec<Option<usize>>,
    /// Each node's transform relative to its parent.
    pub local: Vec<DAffine3>,
}

impl Tree {
    /// Nodes parents first (roots in index order, then depth-first); an error when the parent
    /// links form a cycle.
    fn order(&self) -> Result<Vec<usize>, String> {
        let mut children = vec![Vec::new(); self.parent.len()];
        let mut stack = Vec::new();
        for (i, p) in self.parent.iter().enumerate() {
            match p {
                Some(p) => children[*p].push(i),
                None => stack.push(i),
            }
        }
        stack.reverse();
        let mut order = Vec::with_capacity(self.parent.len());
        while let Some(i) = stack.pop() {
            order.push(i);
            stack.extend(children[i].iter().rev());
        }
        if order.len() == self.parent.len() {
            Ok(order)
        } else {
            Err("the node tree has a cycle".into())
        }
    }

    /// Every node's world transform at rest.
    pub fn rest(&self) -> Result<Vec<DAffine3>, String> {
        self.posed(&[])
    }

    /// Every node's world transform with `turns` applied, parents first: a node's world is
    /// its parent's (posed) world times its local transform, then, when it is turned, turned
    /// about its head (its world origin) by the world rotation.
    pub fn posed(&self, turns: &[Turn]) -> Result<Vec<DAffine3>, String> {
        let mut turn_of: Vec<Option<DQuat>> = vec![None; self.parent.len()];
        for turn in turns {
            let found: Vec<usize> = (0..self.names.len())
                .filter(|&i| self.names[i].as_deref() == Some(turn.bone.as_str()))
                .collect();
            let &[node] = found.as_slice() else {
                return Err(format!(
                    "{} nodes are named `{}` (one is needed to turn it)",
                    found.len(),
                    turn.bone
                ));
            };
            let axis = turn
                .axis
                .try_normalize()
                .ok_or(format!("the turn of `{}` has no axis", turn.bone))?;
            turn_of[node] = Some(DQuat::from_axis_angle(axis, turn.degrees.to_radians()));
        }
        let mut world = vec![DAffine3::IDENTITY; self.parent.len()];
        for i in self.order()? {
            let mut w = match self.parent[i] {
                Some(p) => world[p] * self.local[i],
                None => self.local[i],
            };
            if let Some(rotation) = turn_of[i] {
                w = about(w.translation, rotation) * w;
            }
            world[i] = w;
        }
        Ok(world)
    }
}

/// The rotation `rotation` about the point `head`.
pub fn about(head: DVec3, rotation: DQuat) -> DAffine3 {
    DAffine3::from_translation(head)
        * DAffine3::from_quat(rotation)
        * DAffine3::from_translation(-head)
}

/// `Σ w · deform[j] · v` for every vertex over its `(j, w)` influences; a vertex without any
/// follows `unskinned` (the node the mesh is on).
pub fn blend(
    vertices: &[DVec3],
    influences: &[Vec<(usize, f64)>],
    deform: &[DAffine3],
    unskinned: DAffine3,
) -> Vec<DVec3> {
    vertices
        .iter()
        .enumerate()
        .map(|(v, &p)| match influences.get(v).map(Vec::as_slice) {
            None | Some([]) => unskinned.transform_point3(p),
            Some(list) => list
                .iter()
                .map(|&(j, w)| w * deform[j].transform_point3(p))
                .sum(),
        })
        .collect()
}

/// Which of our vertices each of their vertices is, found by rest position: for each of
/// theirs, ours within the tolerance, nearest first.
#[derive(Debug, Clone)]
pub struct Matching {
    /// Our candidates for each of their vertices (empty: none within the tolerance).
    pub candidates: Vec<Vec<usize>>,
    /// How many of our vertices no vertex of theirs matched.
    pub ours_unmatched: usize,
}

/// The worst difference over the matched vertices, and where it is.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Deviation {
    /// The largest distance (metres) between their value and ours (every one of ours at
    /// their vertex's rest position counts).
    pub max: f64,
    /// Their vertex where it is largest.
    pub worst: usize,
}

impl Matching {
    /// Matches `theirs` to `ours` (rest positions) within `tolerance`, through a hash grid of
    /// cells as wide as the tolerance.
    pub fn new(theirs: &[DVec3], ours: &[DVec3], tolerance: f64) -> Self {
        let cell = |p: DVec3| (p / tolerance).floor().as_i64vec3().to_array();
        let mut grid: HashMap<[i64; 3], Vec<usize>> = HashMap::with_capacity(ours.len());
        for (i, &p) in ours.iter().enumerate() {
            grid.entry(cell(p)).or_default().push(i);
        }
        let mut reached = vec![false; ours.len()];
        let candidates = theirs
            .iter()
            .map(|&p| {
                let [x, y, z] = cell(p);
                let mut found: Vec<(f64, usize)> = Vec::new();
                for dx in -1..=1 {
                    for dy in -1..=1 {
                        for dz in -1..=1 {
                            for &i in grid.get(&[x + dx, y + dy, z + dz]).into_iter().flatten() {
                                let d = ours[i].distance(p);
                                if d <= tolerance {
                                    found.push((d, i));
                                }
                            }
                        }
                    }
                }
                found.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
                found.iter().for_each(|&(_, i)| reached[i] = true);
                found.into_iter().map(|(_, i)| i).collect()
            })
            .collect();
        Matching {
            candidates,
            ours_unmatched: reached.iter().filter(|r| !**r).count(),
        }
    }

    /// How many of their vertices have no match.
    pub fn unmatched(&self) -> usize {
        self.candidates.iter().filter(|c| c.is_empty()).count()
    }

    /// How many of their vertices have several of ours at their rest position.
    pub fn ambiguous(&self) -> usize {
        self.candidates.iter().filter(|c| c.len() > 1).count()
    }

    /// The largest distance between `theirs[t]` and `ours[o]` over matched pairs (every
    /// candidate: vertices of ours at one rest position must all agree with theirs).
    pub fn deviation(&self, theirs: &[DVec3], ours: &[DVec3]) -> Deviation {
        let mut worst = Deviation::default();
        for (t, candidates) in self.candidates.iter().enumerate() {
            for d in candidates.iter().map(|&o| ours[o].distance(theirs[t])) {
                if d > worst.max {
                    worst = Deviation { max: d, worst: t };
                }
            }
        }
        worst
    }
}
