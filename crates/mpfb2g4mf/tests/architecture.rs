//! ARCHITECTURE.md's invariants about this crate's modules, checked on its source: no module
//! imports another that imports it back (directly or through others), nothing but the entry
//! points imports the pipeline driver, only the job resolver and the loader open a
//! conversion's input files, and the public modules are the chosen ones.

#![allow(clippy::unwrap_used)] // Tests fail loudly by design.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// Every module of `src/` (`stages::fit`, `job`, ...) with its source before `#[cfg(test)]`.
fn modules() -> BTreeMap<String, String> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut out = BTreeMap::new();
    let mut stack = vec![src.clone()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap().flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
                continue;
            }
            let relative = path.strip_prefix(&src).unwrap().to_str().unwrap();
            let Some(stem) = relative.strip_suffix(".rs") else {
                continue;
            };
            let name = stem.trim_end_matches("/mod").replace('/', "::");
            let text = std::fs::read_to_string(&path).unwrap();
            let code = text.split("#[cfg(test)]").next().unwrap().to_owned();
            out.insert(name, code);
        }
    }
    out
}

/// The modules `code` (of module `name`) refers to: `crate::x`, `crate::stages::x`,
/// `crate::{x, y}`, and `super::x` inside `stages`.
fn references(name: &str, code: &str, known: &BTreeSet<String>) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut add = |base: &str, path: &str| {
        let parts: Vec<&str> = path.split("::").filter(|p| !p.is_empty()).collect();
        // The longest known module the path starts with.
        for len in (1..=parts.len().min(2)).rev() {
            let candidate = format!("{base}{}", parts[..len].join("::"));
            if known.contains(&candidate) {
                if candidate != name {
                    out.insert(candidate);
                }
                break;
            }
        }
    };
    let is_path = |c: char| c.is_ascii_alphanumeric() || c == '_' || c == ':';
    for (prefix, base) in [("crate::", ""), ("super::", "stages::")] {
        for (i, _) in code.match_indices(prefix) {
            let rest = &code[i + prefix.len()..];
            if let Some(group) = rest.strip_prefix('{') {
                // `crate::{a, b::c, stages::d}`: every path of the group.
                let inside = group.split('}').next().unwrap_or("");
                for path in inside.split(',') {
                    let path: String = path.trim().chars().take_while(|c| is_path(*c)).collect();
                    add(base, &path);
                }
            } else {
                let path: String = rest.chars().take_while(|c| is_path(*c)).collect();
                add(base, &path);
            }
        }
    }
    out
}

#[test]
fn grouped_imports_count_too() {
    let known: BTreeSet<String> = ["convert", "job", "stages::fit"]
        .iter()
        .map(|s| (*s).to_owned())
        .collect();
    let refs = references(
        "batch",
        "use crate::{convert, job::Job, stages::fit};",
        &known,
    );
    assert_eq!(
        refs.into_iter().collect::<Vec<_>>(),
        ["convert", "job", "stages::fit"]
    );
}

#[test]
fn modules_form_no_cycle_and_only_entry_points_import_the_driver() {
    let modules = modules();
    let known: BTreeSet<String> = modules.keys().cloned().collect();
    assert!(
        known.contains("job") && known.contains("stages::fit"),
        "{known:?}"
    );
    let graph: BTreeMap<&str, BTreeSet<String>> = modules
        .iter()
        .filter(|(name, _)| !matches!(name.as_str(), "lib" | "main"))
        .map(|(name, code)| (name.as_str(), references(name, code, &known)))
        .collect();
    // Depth-first search for a path back to where it started.
    fn cycle<'a>(
        graph: &'a BTreeMap<&str, BTreeSet<String>>,
        at: &'a str,
        path: &mut Vec<&'a str>,
        done: &mut BTreeSet<&'a str>,
    ) -> Option<Vec<String>> {
        if let Some(i) = path.iter().position(|p| *p == at) {
            return Some(
                path[i..]
                    .iter()
                    .map(|s| (*s).to_owned())
                    .chain([at.to_owned()])
                    .collect(),
            );
        }
        if !done.insert(at) {
            return None;
        }
        path.push(at);
        for next in graph.get(at).into_iter().flatten() {
            if let Some(found) = cycle(graph, next, path, done) {
                return Some(found);
            }
        }
        path.pop();
        None
    }
    for start in graph.keys() {
        let found = cycle(&graph, start, &mut Vec::new(), &mut BTreeSet::new());
        assert!(found.is_none(), "an import cycle: {found:?}");
    }
    let importers: Vec<&str> = graph
        .iter()
        .filter(|(_, refs)| refs.contains("convert"))
        .map(|(name, _)| *name)
        .collect();
    assert_eq!(
        importers,
        ["batch"],
        "only the entry points import the driver"
    );
    // The stages import the loaded inputs, options and errors, never the resolver or driver.
    for (name, refs) in &graph {
        if name.starts_with("stages") {
            assert!(
                !refs.contains("job") && !refs.contains("convert") && !refs.contains("batch"),
                "{name} imports {refs:?}"
            );
        }
    }
}

#[test]
fn only_the_resolver_and_the_loader_open_conversion_inputs() {
    // Calls that open a conversion's input files (readers of rigs, weights, meshes, targets,
    // descriptions, poses, bone maps, and plain reads).
    const OPENERS: [&str; 11] = [
        "std::fs::read(",
        "std::fs::read_to_string(",
        "File::open(",
        "read_rig_file(",
        "read_weights_file(",
        "read_obj_file(",
        "read_vertex_group_file(",
        "read_description(",
        "read_pose_file(",
        "read_bone_map(",
        "read_target",
    ];
    // Besides the resolver (with `outfit`, which indexes the assets folder by the names and
    // uuids in the asset files' headers) and the loader: the batch manifest, and commands
    // that read G4MF files (to-mpfb, contact sheets) rather than a conversion's inputs.
    let allowed = ["job", "outfit", "inputs", "batch"];
    for (name, code) in modules() {
        for opener in OPENERS {
            if code.contains(opener) {
                assert!(
                    allowed.contains(&name.as_str()),
                    "{name} opens a file with `{opener}`; only the resolver and the loader read a conversion's inputs"
                );
            }
        }
    }
}

/// The library's public modules are the ones ARCHITECTURE.md's "Public modules:" line names:
/// a module turns public by changing both, never by a stray `pub mod`.
#[test]
fn the_public_modules_are_the_chosen_ones() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let lib = std::fs::read_to_string(root.join("src/lib.rs")).unwrap();
    let public: BTreeSet<String> = lib
        .lines()
        .filter_map(|line| line.trim().strip_prefix("pub mod "))
        .map(|rest| rest.trim_end_matches([';', '{', ' ']).to_owned())
        .collect();
    let architecture = std::fs::read_to_string(root.join("../../ARCHITECTURE.md")).unwrap();
    let line = architecture
        .split("Public modules:")
        .nth(1)
        .and_then(|rest| rest.split('.').next())
        .expect("ARCHITECTURE.md has a \"Public modules:\" line");
    let named: BTreeSet<String> = line
        .split('`')
        .skip(1)
        .step_by(2)
        .map(str::to_owned)
        .collect();
    assert!(public.len() >= 5, "lib.rs's public modules: {public:?}");
    assert_eq!(
        public, named,
        "lib.rs against ARCHITECTURE.md's Public modules line"
    );
}
