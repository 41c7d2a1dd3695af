//! Skins (skeleton.md): groups, vertices, weights, their order and ranges, group names.

use super::*;

impl<'a> Checker<'a> {
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn skin(
        &mut self,
        skin: &Value,
        p: &str,
        mesh: usize,
        vertex_count: Option<usize>,
        nodes: &[Value],
        parents: &[Option<usize>],
    ) {
        let get = |key: &str, me: &mut Self| match skin.get(key) {
            None => {
                me.f.at(Code::SkinAccessorMissing, p, format!("`{key}` is required"));
                None
            }
            Some(v) => me.accessor_ref(Some(v), &format!("{p}/{key}"), Code::SkinAccessorInvalid),
        };
        let groups = get("groups", self);
        let vertices = get("vertices", self);
        let weights = get("weights", self);
        for (acc, key, unsigned) in [
            (&groups, "groups", true),
            (&vertices, "vertices", true),
            (&weights, "weights", false),
        ] {
            let Some(acc) = acc else { continue };
            let ok = acc.component.is_none_or(|c| {
                if unsigned {
                    c.is_unsigned()
                } else {
                    c.is_float()
                }
            });
            if !ok {
                let code = match key {
                    "groups" => Code::SkinGroupsNotUnsigned,
                    "vertices" => Code::SkinVerticesNotUnsigned,
                    _ => Code::SkinWeightsNotFloat,
                };
                self.f.at(
                    code,
                    format!("{p}/{key}"),
                    format!(
                        "`{key}` must be {}",
                        if unsigned {
                            "an unsigned integer type"
                        } else {
                            "a floating-point type"
                        }
                    ),
                );
            }
            if acc.vector_size != 1 {
                self.f.at(
                    Code::SkinVectorSize,
                    format!("{p}/{key}"),
                    format!("`{key}` must have vectorSize 1, found {}", acc.vector_size),
                );
            }
        }
        let counts = [&groups, &vertices, &weights]
            .map(|a| a.as_ref().and_then(AccessorInfo::element_count));
        if let [Some(a), Some(b), Some(c)] = counts {
            if a != b || b != c {
                self.f.at(Code::SkinLengthMismatch, p, format!("groups, vertices and weights have {a}, {b} and {c} elements; they must be equal"));
            }
        }
        // Group names.
        if let Some(names) = skin.get("groupNames").and_then(Value::as_array) {
            let mut seen = HashSet::new();
            for (k, n) in names.iter().enumerate() {
                let np = format!("{p}/groupNames/{k}");
                match n.as_str() {
                    None => self.f.at(
                        Code::SkinGroupNameNotString,
                        np,
                        "group names must be strings",
                    ),
                    Some("") => self.f.at(
                        Code::SkinGroupNameEmpty,
                        np,
                        "group names must not be empty",
                    ),
                    Some(s) if !seen.insert(s) => self.f.at(
                        Code::SkinGroupNameDuplicate,
                        np,
                        format!("group name `{s}` is repeated"),
                    ),
                    _ => {}
                }
            }
        }
        // Placement: used by a skeleton when instanced on a direct child of a skeleton node.
        let mut joint_count = None;
        for (n, node) in nodes.iter().enumerate() {
            if node
                .get("meshInstance")
                .and_then(|mi| mi.get("mesh"))
                .and_then(index_of)
                != Some(mesh)
            {
                continue;
            }
            match parents.get(n).copied().flatten().filter(|&pa| nodes[pa].get("skeleton").is_some()) {
                Some(skeleton) => {
                    joint_count = nodes[skeleton]["skeleton"].get("joints").and_then(Value::as_array).map(Vec::len).or(Some(0));
                }
                None => self.f.at(Code::SkinMeshNotUnderSkeleton, format!("/nodes/{n}"), format!("node {n} instances skinned mesh {mesh} but is not a direct child of a skeleton node")),
            }
        }
        // Data order and ranges.
        let (Some(v), Some(g), Some(w)) = (
            vertices.as_ref().and_then(AccessorInfo::values),
            groups.as_ref().and_then(AccessorInfo::values),
            weights.as_ref().and_then(AccessorInfo::values),
        ) else {
            return;
        };
        let n = v.len().min(g.len()).min(w.len());
        if let Some(i) = (1..v.len()).find(|&i| v[i] < v[i - 1]) {
            self.f.at(
                Code::SkinVerticesNotAscending,
                format!("{p}/vertices"),
                format!(
                    "vertex indices decrease at element {i} ({} after {})",
                    v[i],
                    v[i - 1]
                ),
            );
        }
        if let Some(i) = (1..n).find(|&i| v[i] == v[i - 1] && w[i] > w[i - 1]) {
            self.f.at(
                Code::SkinWeightsNotDescending,
                format!("{p}/weights"),
                format!(
                    "vertex {}'s weights rise at element {i} ({} after {})",
                    v[i],
                    w[i],
                    w[i - 1]
                ),
            );
        }
        if let Some(count) = vertex_count {
            let beyond = v.iter().filter(|&&x| x >= count as f64).count();
            if beyond > 0 {
                self.f.at(
                    Code::SkinVertexOutOfRange,
                    format!("{p}/vertices"),
                    format!("{beyond} vertex indices are beyond the mesh's {count} vertices"),
                );
            }
        }
        if let Some(joints) = joint_count {
            let beyond = g.iter().filter(|&&x| x >= joints as f64).count();
            if beyond > 0 {
                self.f.at(Code::SkinGroupBeyondJoints, format!("{p}/groups"), format!("{beyond} group indices are beyond the skeleton's {joints} joints; those groups do nothing"));
            }
        }
        if let Some(bad) = w.iter().position(|x| !x.is_finite()) {
            self.f.at(
                Code::SkinWeightNotFinite,
                format!("{p}/weights"),
                format!("weight {bad} is not finite"),
            );
            return;
        }
        let negative = w.iter().filter(|&&x| x < 0.0).count();
        if negative > 0 {
            self.f.at(
                Code::SkinWeightNegative,
                format!("{p}/weights"),
                format!("{negative} weights are negative"),
            );
        }
        let mut sums: HashMap<u64, f64> = HashMap::new();
        for i in 0..n {
            *sums.entry(v[i] as u64).or_default() += w[i];
        }
        let off: Vec<f64> = sums
            .values()
            .copied()
            .filter(|s| (s - 1.0).abs() > self.weight_tolerance)
            .collect();
        if !off.is_empty() {
            let (lo, hi) = off
                .iter()
                .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), &s| {
                    (a.min(s), b.max(s))
                });
            self.f.at(
                Code::SkinWeightSum,
                format!("{p}/weights"),
                format!(
                    "{} vertices have weight sums far from 1 (from {lo:.4} to {hi:.4})",
                    off.len()
                ),
            );
        }
        if let Some(count) = vertex_count {
            let unweighted =
                count.saturating_sub(sums.keys().filter(|&&x| (x as usize) < count).count());
            if unweighted > 0 {
                self.f.at(
                    Code::SkinVerticesUnweighted,
                    format!("{p}/vertices"),
                    format!("{unweighted} of {count} vertices are moved by no group"),
                );
            }
        }
    }

    /// skeleton.md: group names MUST match those of other skinned meshes using the same
    /// skeleton: where two such skins both name a group index, the names agree, and a name
    /// both use sits at the same index.
    pub(crate) fn shared_group_names(&mut self, parents: &[Option<usize>]) {
        let nodes = array(self.doc, "nodes");
        let meshes = array(self.doc, "meshes");
        // Skeleton node -> (mesh, its group names), first user first.
        let mut users: Vec<(usize, Vec<NamedSkin<'_>>)> = Vec::new();
        for (n, node) in nodes.iter().enumerate() {
            let Some(m) = node
                .get("meshInstance")
                .and_then(|mi| mi.get("mesh"))
                .and_then(index_of)
            else {
                continue;
            };
            let Some(skeleton) = parents
                .get(n)
                .copied()
                .flatten()
                .filter(|&pa| nodes.get(pa).is_some_and(|p| p.get("skeleton").is_some()))
            else {
                continue;
            };
            let Some(names) = meshes
                .get(m)
                .and_then(|mesh| mesh.get("skin"))
                .and_then(|skin| skin.get("groupNames"))
                .and_then(Value::as_array)
            else {
                continue;
            };
            let names: Vec<&str> = names.iter().map(|v| v.as_str().unwrap_or("")).collect();
            match users.iter_mut().find(|(s, _)| *s == skeleton) {
                Some((_, list)) => {
                    if !list.iter().any(|(seen, _)| *seen == m) {
                        list.push((m, names));
                    }
                }
                None => users.push((skeleton, vec![(m, names)])),
            }
        }
        for (skeleton, list) in users {
            let Some(((first_mesh, first), rest)) = list.split_first() else {
                continue;
            };
            let index_of_name: HashMap<&str, usize> =
                first.iter().enumerate().map(|(k, n)| (*n, k)).collect();
            for (m, names) in rest {
                let clash = names.iter().enumerate().find_map(|(k, name)| {
                    let same_index = first.get(k).is_some_and(|f| f != name);
                    let moved = index_of_name.get(name).is_some_and(|&j| j != k);
                    (same_index || moved).then_some((k, *name))
                });
                if let Some((k, name)) = clash {
                    self.f.at(
                        Code::SkinGroupNamesDiffer,
                        format!("/meshes/{m}/skin/groupNames/{k}"),
                        format!(
                            "group {k} is `{name}` here but mesh {first_mesh}, skinned to the same skeleton (node {skeleton}), numbers its groups differently (`{}` at {k}); skins sharing a skeleton must agree",
                            first.get(k).copied().unwrap_or("nothing")
                        ),
                    );
                }
            }
        }
    }
}
