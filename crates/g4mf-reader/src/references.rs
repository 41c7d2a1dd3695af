//! Index safety at the door: every reference in a parsed document is checked against the array
//! it points into, so that code holding a [`crate::G4mfFile`] can index without bounds checks
//! failing. Each problem has its JSON pointer; all are collected.

use g4mf_model::{Binding, Document, JointRef};
use serde_json::Value;

/// One reference that points past the end of its array (or is not an index at all).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BadReference {
    /// JSON pointer of the reference.
    pub pointer: String,
    /// What is wrong.
    pub message: String,
}

struct Checker<'d> {
    doc: &'d Document,
    problems: Vec<BadReference>,
}

impl Checker<'_> {
    fn check(&mut self, pointer: impl FnOnce() -> String, index: usize, len: usize, array: &str) {
        if index >= len {
            self.problems.push(BadReference {
                pointer: pointer(),
                message: format!("{index} is not an index into `{array}` ({len} items)"),
            });
        }
    }

    /// An index kept verbatim in an unmodelled property: a non-negative integer below `len`.
    fn check_value(&mut self, pointer: String, value: &Value, len: usize, array: &str) {
        match value.as_u64().and_then(|v| usize::try_from(v).ok()) {
            Some(i) => self.check(|| pointer, i, len, array),
            None => self.problems.push(BadReference {
                pointer,
                message: format!("{value} is not an index into `{array}`"),
            }),
        }
    }

    fn accessor(&mut self, pointer: impl FnOnce() -> String, index: usize) {
        let len = self.doc.accessors.len();
        self.check(pointer, index, len, "accessors");
    }

    fn binding(&mut self, at: &str, binding: &Binding) {
        self.accessor(|| format!("{at}/values"), binding.values.get());
        if let Some(a) = binding.simplexes {
            self.accessor(|| format!("{at}/simplexes"), a.get());
        }
        if let Some(a) = binding.per_simplex {
            self.accessor(|| format!("{at}/perSimplex"), a.get());
        }
    }

    fn nodes(&mut self) {
        let doc = self.doc;
        let count = doc.nodes.len();
        for (i, node) in doc.nodes.iter().enumerate() {
            for (k, child) in node.children.iter().enumerate() {
                self.check(
                    || format!("/nodes/{i}/children/{k}"),
                    child.get(),
                    count,
                    "nodes",
                );
            }
            if let Some(skeleton) = &node.skeleton {
                for (k, joint) in skeleton.joints.iter().enumerate() {
                    if let JointRef::Node(n) = joint {
                        self.check(
                            || format!("/nodes/{i}/skeleton/joints/{k}"),
                            n.get(),
                            count,
                            "nodes",
                        );
                    }
                }
            }
            if let Some(instance) = &node.mesh_instance {
                self.check(
                    || format!("/nodes/{i}/meshInstance/mesh"),
                    instance.mesh.get(),
                    doc.meshes.len(),
                    "meshes",
                );
                if let Some(materials) = instance.other.get("materials").and_then(Value::as_array) {
                    for (k, m) in materials.iter().enumerate() {
                        self.check_value(
                            format!("/nodes/{i}/meshInstance/materials/{k}"),
                            m,
                            doc.materials.len(),
                            "materials",
                        );
                    }
                }
            }
        }
    }

    fn meshes(&mut self) {
        let doc = self.doc;
        for (m, mesh) in doc.meshes.iter().enumerate() {
            let at = format!("/meshes/{m}");
            self.accessor(|| format!("{at}/vertices"), mesh.vertices.get());
            for (s, surface) in mesh.surfaces.iter().enumerate() {
                let at = format!("{at}/surfaces/{s}");
                if let Some(a) = surface.simplexes {
                    self.accessor(|| format!("{at}/simplexes"), a.get());
                }
                if let Some(a) = surface.edges {
                    self.accessor(|| format!("{at}/edges"), a.get());
                }
                if let Some(material) = surface.material {
                    self.check(
                        || format!("{at}/material"),
                        material.get(),
                        doc.materials.len(),
                        "materials",
                    );
                }
                if let Some(b) = &surface.texture_map {
                    self.binding(&format!("{at}/textureMap"), b);
                }
                if let Some(b) = &surface.normals {
                    self.binding(&format!("{at}/normals"), b);
                }
            }
            if let Some(skin) = &mesh.skin {
                self.accessor(|| format!("{at}/skin/groups"), skin.groups.get());
                self.accessor(|| format!("{at}/skin/vertices"), skin.vertices.get());
                self.accessor(|| format!("{at}/skin/weights"), skin.weights.get());
            }
            if let Some(blend) = &mesh.blend {
                self.blend(&at, blend, mesh.surfaces.len());
            }
        }
    }

    /// Blend shapes: target accessors and surface indices.
    fn blend(&mut self, at: &str, blend: &g4mf_model::Blend, surfaces: usize) {
        let target = |this: &mut Self, pointer: String, t: &g4mf_model::BlendTarget| {
            this.accessor(|| format!("{pointer}/indices"), t.indices.get());
            this.accessor(|| format!("{pointer}/offsets"), t.offsets.get());
        };
        for (k, shape) in blend.shapes.iter().enumerate() {
            let p = format!("{at}/blend/shapes/{k}");
            if let Some(t) = &shape.position {
                target(self, format!("{p}/position"), t);
            }
            for (j, surface) in shape.surfaces.iter().flatten().enumerate() {
                let p = format!("{p}/surfaces/{j}");
                self.check(
                    || format!("{p}/surface"),
                    surface.surface as usize,
                    surfaces,
                    "surfaces",
                );
                if let Some(t) = &surface.normal {
                    target(self, format!("{p}/normal"), t);
                }
                if let Some(t) = &surface.texture_map {
                    target(self, format!("{p}/textureMap"), t);
                }
            }
        }
    }

    fn data(&mut self) {
        let doc = self.doc;
        for (a, accessor) in doc.accessors.iter().enumerate() {
            self.check(
                || format!("/accessors/{a}/bufferView"),
                accessor.buffer_view.get(),
                doc.buffer_views.len(),
                "bufferViews",
            );
        }
        for (v, view) in doc.buffer_views.iter().enumerate() {
            self.check(
                || format!("/bufferViews/{v}/buffer"),
                view.buffer().get(),
                doc.buffers.len(),
                "buffers",
            );
        }
    }

    /// Materials' channel textures, the thumbnail, textures' files and files' buffer views
    /// (all unmodelled, kept as JSON).
    fn materials_and_textures(&mut self) {
        let doc = self.doc;
        let textures = doc.other.get("textures").and_then(Value::as_array);
        let texture_count = textures.map_or(0, Vec::len);
        for (m, material) in doc.materials.iter().enumerate() {
            for (channel, value) in &material.other {
                let Some(texture) = value.as_object().and_then(|c| c.get("texture")) else {
                    continue;
                };
                self.check_value(
                    format!("/materials/{m}/{channel}/texture"),
                    texture,
                    texture_count,
                    "textures",
                );
            }
        }
        let files = doc
            .other
            .get("files")
            .and_then(Value::as_array)
            .map_or(0, Vec::len);
        if let Some(thumbnail) = doc.asset.other.get("thumbnail") {
            self.check_value(
                "/asset/thumbnail".into(),
                thumbnail,
                texture_count,
                "textures",
            );
        }
        let views = doc.buffer_views.len();
        for (f, file) in doc
            .other
            .get("files")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .enumerate()
        {
            if let Some(view) = file.get("bufferView").filter(|v| v.as_i64() != Some(-1)) {
                self.check_value(format!("/files/{f}/bufferView"), view, views, "bufferViews");
            }
        }
        for (t, texture) in textures.into_iter().flatten().enumerate() {
            let Some(images) = texture.get("files").and_then(Value::as_array) else {
                continue;
            };
            for (k, image) in images.iter().enumerate() {
                self.check_value(format!("/textures/{t}/files/{k}"), image, files, "files");
            }
        }
    }
}

/// Every reference of `doc` that does not point into its array, in document order.
pub fn bad_references(doc: &Document) -> Vec<BadReference> {
    let mut checker = Checker {
        doc,
        problems: Vec::new(),
    };
    checker.nodes();
    checker.meshes();
    checker.data();
    checker.materials_and_textures();
    checker.problems
}
