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
        // Cycles: walking up from any node must end at a node without a parent.
        let mut reported = HashSet::new();
        for start in 0..nodes.len() {
            let mut seen = HashSet::new();
            let mut at = Some(start);
            while let Some(n) = at {
                if !seen.insert(n) {
                    if reported.insert(n) {
                        self.f.at(
                            Code::NodeCycle,
                            format!("/nodes/{n}"),
                            format!("node {n} is its own ancestor"),
                        );
                    }
                    break;
                }
                at = parent[n];
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
