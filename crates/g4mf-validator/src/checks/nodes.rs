//! The node tree (node.md): children, parents, cycles, components, transforms (transform.md), mesh instances.

use super::*;

impl<'a> Checker<'a> {
    /// Node structure; returns each node's parent.
    pub(crate) fn nodes(&mut self) -> Vec<Option<usize>> {
        let nodes = array(self.doc, "nodes");
        let mut parent: Vec<Option<usize>> = vec![None; nodes.len()];
        for (i, node) in nodes.iter().enumerate() {
            let p = format!("/nodes/{i}");
            let Some(node) = node.as_object() else {
                self.f
                    .at(Code::NodeNotObject, p, "a node must be an object");
                continue;
            };
            if i == 0 {
                for key in ["position", "basis", "rotor", "scale"] {
                    if node.contains_key(key) {
                        self.f.at(
                            Code::NodeRootTransform,
                            format!("{p}/{key}"),
                            "the root node (index 0) must not have transform properties",
                        );
                    }
                }
            }
            let components: Vec<&str> = COMPONENTS
                .iter()
                .copied()
                .filter(|c| node.contains_key(*c))
                .collect();
            if components.len() > 1 {
                self.f.at(
                    Code::NodeMultipleComponents,
                    p.clone(),
                    format!(
                        "a node may be at most one thing, this one has {}",
                        components.join(", ")
                    ),
                );
            }
            self.transform(node, &p);
            if let Some(children) = node.get("children") {
                let Some(children) = children.as_array() else {
                    self.f.at(
                        Code::NodeChildrenInvalid,
                        format!("{p}/children"),
                        "`children` must be an array of node indices",
                    );
                    continue;
                };
                let mut own = HashSet::new();
                for (k, c) in children.iter().enumerate() {
                    let cp = format!("{p}/children/{k}");
                    let Some(c) = self.index(c, &cp, "nodes", Code::NodeChildInvalid) else {
                        continue;
                    };
                    if c == 0 {
                        self.f.at(
                            Code::NodeRootAsChild,
                            cp,
                            "the root node (index 0) cannot be a child",
                        );
                    } else if !own.insert(c) {
                        self.f.at(
                            Code::NodeChildDuplicate,
                            cp,
                            format!("node {c} is listed twice"),
                        );
                    } else if let Some(other) = parent[c] {
                        self.f.at(
                            Code::NodeMultipleParents,
                            cp,
                            format!("node {c} is already a child of node {other}"),
                        );
                    } else {
                        parent[c] = Some(i);
                    }
                }
            }
            if let Some(mi) = node.get("meshInstance") {
                self.mesh_instance(mi, &format!("{p}/meshInstance"));
            }
        }
        // Cycles: walking up from any node must end at a node without a parent. Each node,
        // in order, names the first node its walk meets twice (itself on a cycle, the node
        // where its walk enters one otherwise), once.
        let mut reported = HashSet::new();
        for repeated in first_repeats(&parent) {
            if let Some(n) = repeated.filter(|&n| reported.insert(n)) {
                self.f.at(
                    Code::NodeCycle,
                    format!("/nodes/{n}"),
                    format!("node {n} is its own ancestor"),
                );
            }
        }
        for (i, p) in parent.iter().enumerate().skip(1) {
            if p.is_none() {
                self.f.at(
                    Code::NodeUnused,
                    format!("/nodes/{i}"),
                    format!("node {i} is not a descendant of the root node"),
                );
            }
        }
        parent
    }

    pub(crate) fn transform(&mut self, node: &Map<String, Value>, p: &str) {
        let d = self.dimension;
        let numbers = |v: &Value| {
            v.as_array()
                .filter(|a| a.iter().all(Value::is_number))
                .map(|a| a.iter().filter_map(Value::as_f64).collect::<Vec<f64>>())
        };
        if let Some(v) = node.get("position") {
            match numbers(v) {
                None => self.f.at(
                    Code::NodeTransformNotNumbers,
                    format!("{p}/position"),
                    "`position` must be an array of numbers",
                ),
                Some(a) if a.len() != d => self.f.at(
                    Code::NodePositionLength,
                    format!("{p}/position"),
                    format!("`position` has {} numbers, the dimension is {d}", a.len()),
                ),
                _ => {}
            }
        }
        if let Some(v) = node.get("basis") {
            match numbers(v) {
                None => self.f.at(
                    Code::NodeTransformNotNumbers,
                    format!("{p}/basis"),
                    "`basis` must be an array of numbers",
                ),
                Some(a) if d.checked_mul(d) != Some(a.len()) => self.f.at(
                    Code::NodeBasisLength,
                    format!("{p}/basis"),
                    format!(
                        "`basis` has {} numbers, a {d}D basis has {}",
                        a.len(),
                        d.checked_mul(d)
                            .map_or("too many".into(), |n| n.to_string())
                    ),
                ),
                _ => {}
            }
            for key in ["rotor", "scale"] {
                if node.contains_key(key) {
                    self.f.at(
                        Code::NodeBasisWithRotorOrScale,
                        format!("{p}/{key}"),
                        format!("`basis` must not be used with `{key}`"),
                    );
                }
            }
        }
        if let Some(v) = node.get("scale") {
            match numbers(v) {
                None => self.f.at(
                    Code::NodeTransformNotNumbers,
                    format!("{p}/scale"),
                    "`scale` must be an array of numbers",
                ),
                Some(a) => {
                    if a.len() != 1 && a.len() != d {
                        self.f.at(
                            Code::NodeScaleLength,
                            format!("{p}/scale"),
                            format!("`scale` must have 1 or {d} numbers, found {}", a.len()),
                        );
                    }
                    if a.iter().any(|&s| s <= 0.0) {
                        self.f.at(Code::NodeScaleNotPositive, format!("{p}/scale"), "scale values must be positive (use a basis with negative determinant to flip)");
                    }
                }
            }
        }
        if let Some(v) = node.get("rotor") {
            // Dimensions from the file: saturate rather than overflow (no array is that long).
            let bivector = d
                .checked_mul(d.saturating_sub(1))
                .map_or(usize::MAX, |n| 1 + n / 2);
            let full = u32::try_from(d.saturating_sub(1))
                .ok()
                .and_then(|shift| 1usize.checked_shl(shift))
                .unwrap_or(usize::MAX);
            match numbers(v) {
                None => self.f.at(
                    Code::NodeTransformNotNumbers,
                    format!("{p}/rotor"),
                    "`rotor` must be an array of numbers",
                ),
                Some(a) if a.len() < bivector || a.len() > full.max(bivector) => self.f.at(
                    Code::NodeRotorLength,
                    format!("{p}/rotor"),
                    format!(
                        "a {d}D rotor has {bivector} to {} numbers, found {}",
                        full.max(bivector),
                        a.len()
                    ),
                ),
                _ => {}
            }
        }
    }

    pub(crate) fn mesh_instance(&mut self, mi: &Value, p: &str) {
        let Some(mesh) = mi.get("mesh") else {
            self.f.at(
                Code::MeshInstanceMeshMissing,
                p,
                "`meshInstance.mesh` is required",
            );
            return;
        };
        let Some(mesh) = self.index(
            mesh,
            &format!("{p}/mesh"),
            "meshes",
            Code::MeshInstanceMeshInvalid,
        ) else {
            return;
        };
        if let Some(materials) = mi.get("materials").and_then(Value::as_array) {
            let surfaces = array(self.doc, "meshes")[mesh]
                .get("surfaces")
                .and_then(Value::as_array)
                .map_or(0, Vec::len);
            if materials.is_empty() || (materials.len() != 1 && materials.len() != surfaces) {
                self.f.at(
                    Code::MeshInstanceMaterialsLength,
                    format!("{p}/materials"),
                    format!(
                        "`materials` must have 1 or {surfaces} entries (one per surface), found {}",
                        materials.len()
                    ),
                );
            }
            for (k, m) in materials.iter().enumerate() {
                if m.as_i64() != Some(-1) {
                    self.index(
                        m,
                        &format!("{p}/materials/{k}"),
                        "materials",
                        Code::MeshInstanceMaterialInvalid,
                    );
                }
            }
        }
    }
}

/// For each node, the first node met twice walking up its parents (`None` when the walk ends
/// at a node without a parent): itself for a node on a cycle, the node where its walk enters
/// a cycle otherwise. One walk per node at most, each node's answer kept: linear time in
/// nodes (a 100,000-bone chain), where walking up from every node would be quadratic.
fn first_repeats(parent: &[Option<usize>]) -> Vec<Option<usize>> {
    const UNSEEN: usize = usize::MAX;
    const DONE: usize = usize::MAX - 1;
    // UNSEEN, DONE, or the node's place in the current walk.
    let mut state = vec![UNSEEN; parent.len()];
    let mut repeat: Vec<Option<usize>> = vec![None; parent.len()];
    let mut path = Vec::new();
    for start in 0..parent.len() {
        if state[start] != UNSEEN {
            continue;
        }
        path.clear();
        let mut at = Some(start);
        // What the walk's nodes not on a cycle found: the repeated node, if any.
        let found = loop {
            let Some(n) = at.filter(|&n| n < parent.len()) else {
                break None;
            };
            match state[n] {
                UNSEEN => {
                    state[n] = path.len();
                    path.push(n);
                    at = parent[n];
                }
                // Met before by an earlier walk: on a cycle, it is what this walk repeats;
                // else this walk repeats what it does.
                DONE if repeat[n] == Some(n) => break Some(n),
                DONE => break repeat[n],
                // Met in this walk: the path from it on is a cycle.
                place => {
                    for &c in &path[place..] {
                        repeat[c] = Some(c);
                        state[c] = DONE;
                    }
                    path.truncate(place);
                    break Some(n);
                }
            }
        };
        for &t in &path {
            repeat[t] = found;
            state[t] = DONE;
        }
    }
    repeat
}

#[cfg(test)]
mod tests {
    use super::first_repeats;

    #[test]
    fn first_repeats_are_the_cycle_nodes_and_where_tails_enter_them() {
        // 0 -> 1 -> 2 -> 1 (cycle 1, 2), 3 -> 0, 4 root, 5 -> 4, 6 -> 6.
        let parent = [Some(1), Some(2), Some(1), Some(0), None, Some(4), Some(6)];
        assert_eq!(
            first_repeats(&parent),
            [Some(1), Some(1), Some(2), Some(1), None, None, Some(6)]
        );
        // A 100,000-node chain ends at its root: nothing repeats (linear time).
        let chain: Vec<Option<usize>> = (0..100_000usize).map(|i| i.checked_sub(1)).collect();
        assert!(first_repeats(&chain).iter().all(Option::is_none));
    }
}
