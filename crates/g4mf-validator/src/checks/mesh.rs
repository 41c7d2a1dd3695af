//! Meshes (mesh.md): vertices, surfaces, simplexes, edges, polytopes, bindings (bindings.md), materials.

use super::*;

impl<'a> Checker<'a> {
    pub(crate) fn meshes(&mut self, parents: &[Option<usize>]) {
        let nodes = array(self.doc, "nodes");
        let simplex_size = if self.dimension == 2 {
            3
        } else {
            self.dimension
        };
        for (m, mesh) in array(self.doc, "meshes").iter().enumerate() {
            let p = format!("/meshes/{m}");
            let vertices = match mesh.get("vertices") {
                None => {
                    self.f.at(
                        Code::MeshVerticesMissing,
                        p.clone(),
                        "`vertices` is required",
                    );
                    None
                }
                Some(v) => {
                    self.accessor_ref(Some(v), &format!("{p}/vertices"), Code::MeshVerticesInvalid)
                }
            };
            let vertex_count = vertices.as_ref().and_then(AccessorInfo::element_count);
            if let Some(v) = &vertices {
                if v.component.is_some_and(|c| !c.is_float()) {
                    self.f.at(
                        Code::MeshVerticesNotFloat,
                        format!("{p}/vertices"),
                        "vertex positions SHOULD be floating point",
                    );
                }
                if v.vector_size != self.dimension {
                    self.f.at(
                        Code::MeshVerticesVectorSize,
                        format!("{p}/vertices"),
                        format!(
                            "vertices SHOULD have vectorSize {} (the dimension), found {}",
                            self.dimension, v.vector_size
                        ),
                    );
                }
            }
            let surfaces = mesh.get("surfaces").and_then(Value::as_array);
            if surfaces.is_none_or(|s| s.is_empty()) {
                self.f.at(
                    Code::MeshSurfacesEmpty,
                    format!("{p}/surfaces"),
                    "a mesh needs at least one surface",
                );
            }
            for (s, surface) in surfaces.map_or(&[][..], Vec::as_slice).iter().enumerate() {
                let sp = format!("{p}/surfaces/{s}");
                let simplexes = self.accessor_ref(
                    surface.get("simplexes"),
                    &format!("{sp}/simplexes"),
                    Code::SurfaceSimplexesInvalid,
                );
                let simplex_count = simplexes.as_ref().and_then(AccessorInfo::element_count);
                if let Some(acc) = &simplexes {
                    self.index_accessor(
                        acc,
                        &format!("{sp}/simplexes"),
                        simplex_size,
                        vertex_count,
                        IndexCodes::SIMPLEXES,
                        "vertex",
                    );
                }
                if let Some(edges) = self.accessor_ref(
                    surface.get("edges"),
                    &format!("{sp}/edges"),
                    Code::SurfaceEdgesInvalid,
                ) {
                    self.index_accessor(
                        &edges,
                        &format!("{sp}/edges"),
                        2,
                        vertex_count,
                        IndexCodes::EDGES,
                        "vertex",
                    );
                }
                for (key, code) in [
                    ("geometry", Code::SurfaceGeometryWithoutEdges),
                    ("seams", Code::SurfaceSeamsWithoutEdges),
                ] {
                    if surface.get(key).is_some() && surface.get("edges").is_none() {
                        self.f.at(
                            code,
                            format!("{sp}/{key}"),
                            format!("`{key}` requires `edges`"),
                        );
                    }
                }
                if surface.get("polytopeSimplexes") == Some(&Value::Bool(true)) {
                    if let (Some(simplexes), Some(vertices)) = (&simplexes, &vertices) {
                        self.polytopes_flat(&sp, simplexes, vertices);
                    }
                }
                if surface.get("polytopeSimplexes").is_some() && surface.get("simplexes").is_none()
                {
                    self.f.at(
                        Code::SurfacePolytopeWithoutSimplexes,
                        format!("{sp}/polytopeSimplexes"),
                        "`polytopeSimplexes` requires `simplexes`",
                    );
                }
                if let Some(material) = surface.get("material") {
                    self.index(
                        material,
                        &format!("{sp}/material"),
                        "materials",
                        Code::SurfaceMaterialInvalid,
                    );
                }
                for key in ["textureMap", "normals"] {
                    if let Some(binding) = surface.get(key) {
                        self.binding(
                            binding,
                            &format!("{sp}/{key}"),
                            key == "normals",
                            simplexes.as_ref(),
                            simplex_count,
                        );
                    }
                }
            }
            if let Some(skin) = mesh.get("skin") {
                self.skin(skin, &format!("{p}/skin"), m, vertex_count, nodes, parents);
            }
        }
    }

    /// `polytopeSimplexes`: the simplexes of one polytope (consecutive, same first vertex) MUST
    /// have normals pointing the same way, within [`rules::POLYTOPE_NORMAL_TOLERANCE`]. Checked
    /// for 3D triangles with readable, in-range data (other problems are reported elsewhere).
    pub(crate) fn polytopes_flat(
        &mut self,
        sp: &str,
        simplexes: &AccessorInfo<'_>,
        vertices: &AccessorInfo<'_>,
    ) {
        if self.dimension != 3 || simplexes.vector_size != 3 || vertices.vector_size != 3 {
            return;
        }
        let (Some(indices), Some(positions)) = (simplexes.values(), vertices.values()) else {
            return;
        };
        let vertex_count = positions.len() / 3;
        let corner = |i: f64| -> Option<[f64; 3]> {
            let i = i as usize;
            (i < vertex_count)
                .then(|| [positions[3 * i], positions[3 * i + 1], positions[3 * i + 2]])
        };
        let triangles = indices.chunks_exact(3);
        let mut bent = 0usize;
        let mut first_bent: Option<(usize, f64)> = None;
        let mut polytopes = 0usize;
        let mut start = 0usize;
        let count = triangles.len();
        while start < count {
            let first = indices[3 * start];
            let mut end = start + 1;
            while end < count && indices[3 * end] == first {
                end += 1;
            }
            polytopes += 1;
            let corners: Option<Vec<[[f64; 3]; 3]>> = (start..end)
                .map(|t| {
                    Some([
                        corner(indices[3 * t])?,
                        corner(indices[3 * t + 1])?,
                        corner(indices[3 * t + 2])?,
                    ])
                })
                .collect();
            if let Some(corners) = corners {
                let bend = rules::polytope_bend(corners);
                if bend > rules::POLYTOPE_NORMAL_TOLERANCE {
                    bent += 1;
                    first_bent.get_or_insert((start, bend));
                }
            }
            start = end;
        }
        if let Some((simplex, bend)) = first_bent {
            self.f.at(
                Code::SurfacePolytopeNotFlat,
                format!("{sp}/polytopeSimplexes"),
                format!(
                    "{bent} of {polytopes} polytopes have simplexes whose normals differ by more than {} rad; the first starts at simplex {simplex} and bends by {bend:.4} rad (write `polytopeSimplexes: false` for non-planar polygons)",
                    rules::POLYTOPE_NORMAL_TOLERANCE
                ),
            );
        }
    }

    /// An accessor of indices: integer type, vector size, every index below `bound`.
    pub(crate) fn index_accessor(
        &mut self,
        acc: &AccessorInfo<'_>,
        p: &str,
        vector_size: usize,
        bound: Option<usize>,
        codes: IndexCodes,
        what: &str,
    ) {
        let IndexCodes {
            not_integer,
            bad_size,
            out_of_range,
        } = codes;
        if acc.component.is_some_and(|c| !c.is_integer()) {
            self.f.at(
                not_integer,
                p,
                "indices must have an integer component type",
            );
            return;
        }
        if acc.vector_size != vector_size {
            self.f.at(
                bad_size,
                p,
                format!(
                    "vectorSize must be {vector_size}, found {}",
                    acc.vector_size
                ),
            );
        }
        if let (Some(values), Some(bound)) = (acc.values(), bound) {
            let bad: Vec<&f64> = values
                .iter()
                .filter(|&&v| v < 0.0 || v >= bound as f64)
                .collect();
            if let Some(first) = bad.first() {
                self.f.at(
                    out_of_range,
                    p,
                    format!(
                        "{} indices are outside the {bound} {what}s (first: {first})",
                        bad.len()
                    ),
                );
            }
        }
    }

    pub(crate) fn binding(
        &mut self,
        binding: &Value,
        p: &str,
        normals: bool,
        simplexes: Option<&AccessorInfo<'_>>,
        simplex_count: Option<usize>,
    ) {
        let values = match binding.get("values") {
            None => {
                self.f
                    .at(Code::BindingValuesMissing, p, "`values` is required");
                None
            }
            Some(v) => {
                self.accessor_ref(Some(v), &format!("{p}/values"), Code::BindingValuesInvalid)
            }
        };
        let value_count = values.as_ref().and_then(AccessorInfo::element_count);
        if let Some(v) = &values {
            if v.component.is_some_and(|c| !c.is_float()) {
                self.f.at(
                    Code::BindingValuesNotFloat,
                    format!("{p}/values"),
                    "binding values must be floating point",
                );
            }
            if normals {
                if v.vector_size != self.dimension {
                    self.f.at(
                        Code::NormalsVectorSize,
                        format!("{p}/values"),
                        format!(
                            "normals must have vectorSize {}, found {}",
                            self.dimension, v.vector_size
                        ),
                    );
                } else if let Some(data) = v.values() {
                    let off = data
                        .chunks(self.dimension.max(1))
                        .filter(|n| {
                            (n.iter().map(|x| x * x).sum::<f64>().sqrt() - 1.0).abs() > 1e-3
                        })
                        .count();
                    if off > 0 {
                        self.f.at(
                            Code::NormalsNotUnit,
                            format!("{p}/values"),
                            format!("{off} normals are not unit length"),
                        );
                    }
                }
            }
        }
        if let Some(s) = binding.get("simplexes") {
            match simplexes {
                None => self.f.at(
                    Code::BindingSimplexesWithoutSurfaceSimplexes,
                    format!("{p}/simplexes"),
                    "per-corner indices need the surface's simplexes",
                ),
                Some(surface) => self.binding_index_accessor(
                    s,
                    &format!("{p}/simplexes"),
                    surface.vector_size,
                    value_count,
                    simplex_count,
                    [Code::BindingSimplexesInvalid, Code::BindingSimplexesCount],
                ),
            }
        }
        if let Some(s) = binding.get("perSimplex") {
            self.binding_index_accessor(
                s,
                &format!("{p}/perSimplex"),
                1,
                value_count,
                simplex_count,
                [Code::BindingPerSimplexInvalid, Code::BindingPerSimplexCount],
            );
        }
    }

    /// A binding's index accessor into its values, one element per simplex. `codes`: when it is
    /// not an accessor, and when its element count is not the simplex count.
    pub(crate) fn binding_index_accessor(
        &mut self,
        reference: &Value,
        pointer: &str,
        vector_size: usize,
        value_count: Option<usize>,
        simplex_count: Option<usize>,
        [invalid, wrong_count]: [Code; 2],
    ) {
        let Some(acc) = self.accessor_ref(Some(reference), pointer, invalid) else {
            return;
        };
        self.index_accessor(
            &acc,
            pointer,
            vector_size,
            value_count,
            IndexCodes::BINDING,
            "value",
        );
        if let (Some(a), Some(b)) = (acc.element_count(), simplex_count) {
            if a != b {
                self.f.at(
                    wrong_count,
                    pointer,
                    format!("{a} elements for {b} simplexes"),
                );
            }
        }
    }

    pub(crate) fn materials(&mut self) {
        for (i, m) in array(self.doc, "materials").iter().enumerate() {
            if !m.is_object() {
                self.f.at(
                    Code::MaterialNotObject,
                    format!("/materials/{i}"),
                    "a material must be an object",
                );
            }
        }
    }
}
