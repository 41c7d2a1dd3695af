//! Blend shapes (parts/mesh/blend.md): `shapes` required, `amounts` one number per shape,
//! targets whose `indices` are unsigned, vector size 1 and in range of what they target, whose
//! `offsets` have the targeted vector size and one element per index, and `surfaces` entries
//! that point at distinct surfaces, carry data, and are never empty arrays.

use super::*;

/// What a blend-shape target displaces: how many items, and their vector size.
#[derive(Debug, Clone, Copy)]
struct Targeted {
    count: Option<usize>,
    vector_size: Option<usize>,
}

impl<'a> Checker<'a> {
    pub(crate) fn blend_shapes(&mut self) {
        for (m, mesh) in array(self.doc, "meshes").iter().enumerate() {
            let Some(blend) = mesh.get("blend") else {
                continue;
            };
            let p = format!("/meshes/{m}/blend");
            let Some(shapes) = blend.get("shapes").and_then(Value::as_array) else {
                self.f.at(
                    Code::BlendShapesMissing,
                    p.clone(),
                    "`blend` requires a `shapes` array",
                );
                continue;
            };
            if let Some(amounts) = blend.get("amounts") {
                match amounts.as_array() {
                    Some(a) if a.iter().all(|v| v.as_f64().is_some_and(f64::is_finite)) => {
                        if a.len() != shapes.len() {
                            self.f.at(
                                Code::BlendAmountsLength,
                                format!("{p}/amounts"),
                                format!(
                                    "{} amounts for {} shapes: the sizes must match",
                                    a.len(),
                                    shapes.len()
                                ),
                            );
                        }
                    }
                    _ => self.f.at(
                        Code::BlendAmountsInvalid,
                        format!("{p}/amounts"),
                        "`amounts` must be an array of numbers",
                    ),
                }
            }
            let vertices = mesh
                .get("vertices")
                .and_then(index_of)
                .and_then(|i| self.accessor(i));
            let surfaces = mesh
                .get("surfaces")
                .and_then(Value::as_array)
                .map_or(&[][..], Vec::as_slice);
            for (k, shape) in shapes.iter().enumerate() {
                let sp = format!("{p}/shapes/{k}");
                if shape.get("name").is_none() {
                    self.f.at(
                        Code::BlendShapeUnnamed,
                        sp.clone(),
                        "blend shapes are highly recommended to have a `name`",
                    );
                }
                if let Some(target) = shape.get("position") {
                    let targeted = Targeted {
                        count: vertices.as_ref().and_then(AccessorInfo::element_count),
                        vector_size: Some(self.dimension),
                    };
                    self.blend_target(target, &format!("{sp}/position"), targeted);
                }
                let Some(entries) = shape.get("surfaces") else {
                    continue;
                };
                let entries = entries.as_array().map_or(&[][..], Vec::as_slice);
                if entries.is_empty() {
                    self.f.at(
                        Code::BlendSurfacesEmpty,
                        format!("{sp}/surfaces"),
                        "with no per-surface data, `surfaces` must be omitted, not empty",
                    );
                }
                if entries.len() > surfaces.len() {
                    self.f.at(
                        Code::BlendSurfacesTooMany,
                        format!("{sp}/surfaces"),
                        format!(
                            "{} entries for a mesh of {} surfaces",
                            entries.len(),
                            surfaces.len()
                        ),
                    );
                }
                let mut seen: Vec<usize> = Vec::new();
                for (e, entry) in entries.iter().enumerate() {
                    let ep = format!("{sp}/surfaces/{e}");
                    let surface = match entry.get("surface").and_then(index_of) {
                        Some(s) if s < surfaces.len() => s,
                        _ => {
                            self.f.at(
                                Code::BlendSurfaceInvalid,
                                format!("{ep}/surface"),
                                format!(
                                    "`surface` must be an index into the mesh's {} surfaces",
                                    surfaces.len()
                                ),
                            );
                            continue;
                        }
                    };
                    if seen.contains(&surface) {
                        self.f.at(
                            Code::BlendSurfaceDuplicate,
                            format!("{ep}/surface"),
                            format!("surface {surface} appears twice in this shape"),
                        );
                    }
                    seen.push(surface);
                    if entry.as_object().is_some_and(|o| o.len() == 1) {
                        self.f.at(
                            Code::BlendSurfaceEmpty,
                            ep.clone(),
                            "an entry with only `surface` must be omitted",
                        );
                    }
                    for (key, binding) in [("normal", "normals"), ("textureMap", "textureMap")] {
                        let Some(target) = entry.get(key) else {
                            continue;
                        };
                        let values = surfaces[surface]
                            .get(binding)
                            .and_then(|b| b.get("values"))
                            .and_then(index_of)
                            .and_then(|i| self.accessor(i));
                        let targeted = Targeted {
                            count: values.as_ref().and_then(AccessorInfo::element_count),
                            vector_size: match key {
                                "normal" => Some(self.dimension),
                                _ => values.as_ref().map(|v| v.vector_size),
                            },
                        };
                        self.blend_target(target, &format!("{ep}/{key}"), targeted);
                    }
                }
            }
        }
    }

    fn blend_target(&mut self, target: &Value, p: &str, targeted: Targeted) {
        let (Some(i), Some(o)) = (target.get("indices"), target.get("offsets")) else {
            self.f.at(
                Code::BlendTargetInvalid,
                p,
                "a blend shape target requires `indices` and `offsets`",
            );
            return;
        };
        let indices = self.accessor_ref(Some(i), &format!("{p}/indices"), Code::BlendTargetInvalid);
        let offsets = self.accessor_ref(Some(o), &format!("{p}/offsets"), Code::BlendTargetInvalid);
        if let Some(indices) = &indices {
            if indices.component.is_some_and(|c| !c.is_unsigned()) {
                self.f.at(
                    Code::BlendIndicesNotUnsigned,
                    format!("{p}/indices"),
                    "blend shape indices must be of an unsigned integer type",
                );
            } else if indices.vector_size != 1 {
                self.f.at(
                    Code::BlendIndicesVectorSize,
                    format!("{p}/indices"),
                    format!(
                        "blend shape indices must have vectorSize 1, found {}",
                        indices.vector_size
                    ),
                );
            } else if let (Some(values), Some(count)) = (indices.values(), targeted.count) {
                if let Some((n, bad)) = values.iter().enumerate().find(|(_, v)| **v >= count as f64)
                {
                    self.f.at(
                        Code::BlendIndexOutOfRange,
                        format!("{p}/indices"),
                        format!("index {n} is {bad}, past the {count} items it targets"),
                    );
                }
            }
        }
        if let Some(offsets) = &offsets {
            if let Some(wanted) = targeted.vector_size.filter(|&w| w != offsets.vector_size) {
                self.f.at(
                    Code::BlendOffsetsVectorSize,
                    format!("{p}/offsets"),
                    format!(
                        "offsets must have vectorSize {wanted} (what they displace), found {}",
                        offsets.vector_size
                    ),
                );
            }
            if let (Some(a), Some(b)) = (
                indices.as_ref().and_then(AccessorInfo::element_count),
                offsets.element_count(),
            ) {
                if a != b {
                    self.f.at(
                        Code::BlendOffsetsCount,
                        format!("{p}/offsets"),
                        format!("{b} offsets for {a} indices: one offset per index"),
                    );
                }
            }
        }
    }
}
