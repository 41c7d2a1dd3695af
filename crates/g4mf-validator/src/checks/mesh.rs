//! Meshes (mesh.md): vertices, surfaces, simplexes, edges, polytopes, and bindings
//! (bindings.md): the surfaces' here, the material channels' through `materials.rs`.

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
                        Some(simplex_size),
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
                        Some(2),
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
                // The surface's own bindings fit the surface itself.
                let fit = [Fit {
                    surface: None,
                    simplexes: simplexes.as_ref().map(|a| (a.vector_size, simplex_count)),
                }];
                for (key, kind) in [
                    ("textureMap", BindingKind::TextureMap),
                    ("normals", BindingKind::Normals),
                ] {
                    if let Some(binding) = surface.get(key) {
                        self.binding(binding, &format!("{sp}/{key}"), kind, &fit);
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

    /// An accessor of indices: integer type, vector size (when known), every index below `bound`.
    pub(crate) fn index_accessor(
        &mut self,
        acc: &AccessorInfo<'_>,
        p: &str,
        vector_size: Option<usize>,
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
        if let Some(vector_size) = vector_size.filter(|&v| v != acc.vector_size) {
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

    /// A binding (bindings.md): `values` required, floating point for texture maps and normals
    /// (mesh.md, material.md), normals of unit length and the dimension's size; `simplexes`
    /// and `perSimplex` indices into the values, shaped like the simplexes of every surface in
    /// `fits`. Returns the values accessor, for checks that depend on what the binding is for.
    pub(crate) fn binding(
        &mut self,
        binding: &Value,
        p: &str,
        kind: BindingKind,
        fits: &[Fit],
    ) -> Option<AccessorInfo<'a>> {
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
            // An element map's values may be any data (colours as integers too); texture
            // coordinates and normals MUST be floating point.
            if kind != BindingKind::ElementMap && v.component.is_some_and(|c| !c.is_float()) {
                self.f.at(
                    Code::BindingValuesNotFloat,
                    format!("{p}/values"),
                    "binding values must be floating point",
                );
            }
            if kind == BindingKind::TextureMap
                && let Some(data) = v.values()
                && let Some(bad) = data.iter().position(|x| !x.is_finite())
            {
                let count = data.iter().filter(|x| !x.is_finite()).count();
                self.f.at(
                    Code::TextureMapNotFinite,
                    format!("{p}/values"),
                    format!(
                        "{count} texture coordinates are not finite numbers (the first is component {bad}, {})",
                        data[bad]
                    ),
                );
            }
            if kind == BindingKind::Normals {
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
            let pointer = format!("{p}/simplexes");
            if let Some(without) = fits.iter().find(|f| f.simplexes.is_none()) {
                self.f.at(
                    Code::BindingSimplexesWithoutSurfaceSimplexes,
                    pointer.clone(),
                    match &without.surface {
                        None => "per-corner indices need the surface's simplexes".to_owned(),
                        Some(surface) => format!(
                            "per-corner indices need the simplexes of every surface using this material; {surface} has none"
                        ),
                    },
                );
            }
            // Without any surface's simplexes there is nothing to shape the indices like; a
            // material no surface uses still has its indices checked against its values.
            let shaped = fits.iter().find_map(|f| f.simplexes);
            if fits.is_empty() || shaped.is_some() {
                let counts: Vec<(Option<&str>, Option<usize>)> = fits
                    .iter()
                    .filter_map(|f| Some((f.surface.as_deref(), f.simplexes?.1)))
                    .collect();
                self.binding_index_accessor(
                    s,
                    &pointer,
                    shaped.map(|(vector_size, _)| vector_size),
                    value_count,
                    &counts,
                    [Code::BindingSimplexesInvalid, Code::BindingSimplexesCount],
                );
            }
        }
        if let Some(s) = binding.get("perSimplex") {
            let counts: Vec<(Option<&str>, Option<usize>)> = fits
                .iter()
                .map(|f| (f.surface.as_deref(), f.simplexes.and_then(|(_, n)| n)))
                .collect();
            self.binding_index_accessor(
                s,
                &format!("{p}/perSimplex"),
                Some(1),
                value_count,
                &counts,
                [Code::BindingPerSimplexInvalid, Code::BindingPerSimplexCount],
            );
        }
        values
    }

    /// A binding's index accessor into its values, one element per simplex of each surface in
    /// `simplex_counts` (named, or `None` for the binding's own surface). `codes`: when it is
    /// not an accessor, and when its element count is not a surface's simplex count.
    pub(crate) fn binding_index_accessor(
        &mut self,
        reference: &Value,
        pointer: &str,
        vector_size: Option<usize>,
        value_count: Option<usize>,
        simplex_counts: &[(Option<&str>, Option<usize>)],
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
        let Some(a) = acc.element_count() else {
            return;
        };
        let wrong: Vec<(Option<&str>, usize)> = simplex_counts
            .iter()
            .filter_map(|&(surface, b)| Some((surface, b.filter(|&b| b != a)?)))
            .collect();
        // One finding per accessor: the first surface it does not fit, and how many others.
        if let Some(&(surface, b)) = wrong.first() {
            let message = match surface {
                None => format!("{a} elements for {b} simplexes"),
                Some(surface) => {
                    let others = match wrong.len() - 1 {
                        0 => String::new(),
                        1 => " (and 1 more surface using this material)".to_owned(),
                        n => format!(" (and {n} more surfaces using this material)"),
                    };
                    format!("{a} elements for the {b} simplexes of {surface}{others}")
                }
            };
            self.f.at(wrong_count, pointer, message);
        }
    }
}
