//! `inspect`: a readable account of a G4MF file: node tree with bones and joints, meshes and
//! skins with statistics and an influence histogram, buffers, encodings and sizes.

use g4mf_model::JointRef;
use g4mf_reader::{Format, G4mfFile};
use std::fmt::Write;

/// Renders the inspection of `file` (`size` is the file's size on disk).
pub fn inspect(file: &G4mfFile, size: u64) -> String {
    let mut out = String::new();
    header(&mut out, file, size);
    node_tree(&mut out, &file.document);
    for (m, mesh) in file.document.meshes.iter().enumerate() {
        mesh_section(&mut out, file, m, mesh);
    }
    out
}

/// The container (with its chunks), the asset, each buffer and the document's counts.
fn header(out: &mut String, file: &G4mfFile, size: u64) {
    let doc = &file.document;
    let container = match &file.format {
        Format::Binary(c) => {
            let chunks: Vec<String> = c
                .chunks
                .iter()
                .map(|ch| {
                    format!(
                        "{} {} {} bytes",
                        String::from_utf8_lossy(&ch.kind),
                        ch.encoding_name(),
                        ch.size
                    )
                })
                .collect();
            format!(
                "binary .g4b, {} chunks: {}",
                c.chunks.len(),
                chunks.join("; ")
            )
        }
        Format::Text => "text .g4tf".into(),
    };
    let _ = writeln!(out, "file        {size} bytes, {container}");
    let _ = writeln!(
        out,
        "asset       dimension {}, generator {}",
        doc.asset.dimension,
        doc.asset.generator.as_deref().unwrap_or("-")
    );
    for (i, b) in doc.buffers.iter().enumerate() {
        let place = match (&b.chunk, &b.uri) {
            (Some(c), _) => format!("chunk {c}"),
            (_, Some(u)) if u.starts_with("data:") => "data URI".into(),
            (_, Some(u)) => format!("file {u}"),
            _ => "nowhere".into(),
        };
        let _ = writeln!(
            out,
            "buffer {i}    {} bytes decoded, {place}, {}",
            b.byte_length,
            b.encoding.as_deref().unwrap_or("plain")
        );
    }
    let _ = writeln!(
        out,
        "counts      {} nodes, {} meshes, {} materials, {} accessors, {} buffer views",
        doc.nodes.len(),
        doc.meshes.len(),
        doc.materials.len(),
        doc.accessors.len(),
        doc.buffer_views.len()
    );
}

/// The node tree from node 0, depth-first, one line a node: bones with their length, joint
/// and MPFB name, skeletons with their joint count, mesh instances with their mesh. A node
/// reached twice (a malformed file) is shown once.
fn node_tree(out: &mut String, doc: &g4mf_model::Document) {
    let joints: Vec<usize> = doc
        .nodes
        .iter()
        .filter_map(|n| n.skeleton.as_ref())
        .flat_map(|s| {
            s.joints.iter().filter_map(|j| match j {
                JointRef::Node(n) => Some(n.get()),
                JointRef::Uncontrolled => None,
            })
        })
        .collect();
    let _ = writeln!(out, "\nnodes");
    let mut stack = vec![(0usize, 0usize)];
    let mut seen = vec![false; doc.nodes.len()];
    while let Some((i, depth)) = stack.pop() {
        if i >= doc.nodes.len() || std::mem::replace(&mut seen[i], true) {
            continue;
        }
        let n = &doc.nodes[i];
        let _ = writeln!(
            out,
            "{:indent$}[{i}] {}{}",
            "",
            n.name.as_deref().unwrap_or("(unnamed)"),
            node_roles(n, i, &joints),
            indent = depth * 2
        );
        for c in n.children.iter().rev() {
            stack.push((c.get(), depth + 1));
        }
    }
}

/// What node `i` is, after its name: bone (length, joint, MPFB name), skeleton, mesh.
fn node_roles(n: &g4mf_model::Node, i: usize, joints: &[usize]) -> String {
    let mut what = String::new();
    if let Some(b) = &n.bone {
        let _ = write!(what, " bone length {:.4}", b.length.unwrap_or(f64::NAN));
        if let Some(g) = joints.iter().position(|&j| j == i) {
            let _ = write!(what, ", joint {g}");
        }
        if let Some(name) = crate::extras::bone_extras(n).map(|b| b.name) {
            if Some(name.as_str()) != n.name.as_deref() {
                let _ = write!(what, " (MPFB `{name}`)");
            }
        }
    }
    if let Some(s) = &n.skeleton {
        let _ = write!(what, " skeleton, {} joints", s.joints.len());
    }
    if let Some(m) = &n.mesh_instance {
        let _ = write!(what, " mesh {}", m.mesh);
    }
    what
}

/// One mesh: its vertex count, each surface, its blend shapes and its skin.
fn mesh_section(out: &mut String, file: &G4mfFile, m: usize, mesh: &g4mf_model::Mesh) {
    let vertices = file
        .read_f64(mesh.vertices)
        .map(|v| v.len() / 3)
        .unwrap_or(0);
    let _ = writeln!(
        out,
        "\nmesh {m} `{}`: {vertices} vertices, {} surfaces",
        mesh.name.as_deref().unwrap_or(""),
        mesh.surfaces.len()
    );
    for (s, surface) in mesh.surfaces.iter().enumerate() {
        surface_line(out, file, s, surface);
    }
    blend_shapes(out, file, mesh);
    match &mesh.skin {
        None => {
            let _ = writeln!(out, "  no skin");
        }
        Some(skin) => skin_section(out, file, skin),
    }
}

/// One surface: its name, triangles, and which bindings and material it has.
fn surface_line(out: &mut String, file: &G4mfFile, s: usize, surface: &g4mf_model::Surface) {
    let simplexes = surface
        .simplexes
        .and_then(|a| file.read_u64(a).ok())
        .map_or(0, |v| v.len() / 3);
    let material = surface
        .material
        .and_then(|m| file.document.materials.get(m.get()))
        .and_then(|m| m.name.as_deref())
        .map(|m| format!(", material `{m}`"))
        .unwrap_or_default();
    let name = surface
        .name
        .as_deref()
        .map(|n| format!(" `{n}`"))
        .unwrap_or_default();
    let flag = |on: bool, text: &'static str| if on { text } else { "" };
    let _ = writeln!(
        out,
        "  surface {s}{name}: {simplexes} triangles{}{}{}{material}",
        flag(surface.polytope_simplexes, " (polytopes)"),
        flag(surface.texture_map.is_some(), ", texture map"),
        flag(surface.normals.is_some(), ", normals"),
    );
}

/// A skin: its influences, vertices, groups and weight sums, and a histogram of influences
/// per vertex (runs of one vertex in the skin's vertex-ordered list).
fn skin_section(out: &mut String, file: &G4mfFile, skin: &g4mf_model::Skin) {
    let (Ok(v), Ok(w)) = (file.read_u64(skin.vertices), file.read_f64(skin.weights)) else {
        let _ = writeln!(out, "  skin: unreadable accessors");
        return;
    };
    let mut histogram: Vec<usize> = Vec::new();
    let mut sums: Vec<f64> = Vec::new();
    let mut i = 0;
    while i < v.len() {
        let mut j = i;
        let mut sum = 0.0;
        while j < v.len() && v[j] == v[i] {
            sum += w.get(j).copied().unwrap_or(0.0);
            j += 1;
        }
        if histogram.len() <= j - i {
            histogram.resize(j - i + 1, 0);
        }
        histogram[j - i] += 1;
        sums.push(sum);
        i = j;
    }
    let (lo, hi) = sums
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), &s| {
            (a.min(s), b.max(s))
        });
    let _ = writeln!(
        out,
        "  skin: {} influences on {} vertices, {} groups, weight sums {lo:.4}..{hi:.4}",
        v.len(),
        sums.len(),
        skin.group_names.as_ref().map_or(0, Vec::len)
    );
    let _ = writeln!(out, "  influences per vertex:");
    let most = histogram.iter().copied().max().unwrap_or(1).max(1);
    for (n, &count) in histogram.iter().enumerate().skip(1) {
        let _ = writeln!(
            out,
            "    {n:>2}: {count:>6} {}",
            "#".repeat(count * 40 / most)
        );
    }
}

/// One line per blend shape: its amount, how many vertices it moves, the extent of its
/// offsets (largest offset length), and how many surfaces' normals it changes.
fn blend_shapes(out: &mut String, file: &G4mfFile, mesh: &g4mf_model::Mesh) {
    let Some(blend) = &mesh.blend else {
        return;
    };
    let _ = writeln!(out, "  blend shapes: {}", blend.shapes.len());
    for (k, shape) in blend.shapes.iter().enumerate() {
        let name = shape.name.as_deref().unwrap_or("");
        let moved = shape
            .position
            .as_ref()
            .and_then(|t| file.read_u64(t.indices).ok())
            .map_or(0, |v| v.len());
        let extent = shape
            .position
            .as_ref()
            .and_then(|t| file.read_f64(t.offsets).ok())
            .map_or(0.0, |o| {
                o.chunks_exact(3)
                    .map(|c| (c[0] * c[0] + c[1] * c[1] + c[2] * c[2]).sqrt())
                    .fold(0.0, f64::max)
            });
        let surfaces = shape.surfaces.as_ref().map_or(0, Vec::len);
        let _ = writeln!(
            out,
            "    {name:<28} amount {:<6} {moved:>5} vertices, up to {:.1} mm, normals on {surfaces} surfaces",
            blend.amount(k),
            extent * 1000.0
        );
    }
}
