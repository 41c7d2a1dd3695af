//! ARCHITECTURE.md's invariants about this crate's modules, checked on its source: no module
//! imports another that imports it back (directly or through others), nothing but the entry
//! points imports the pipeline driver, only the job resolver and the loader open a
//! conversion's input files, and the public modules are the chosen ones.

#![allow(clippy::unwrap_used)] // Tests fail loudly by design.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// Every module of this crate's `src/` (`stages::fit`, `job`, ...) with its code.
fn modules() -> BTreeMap<String, String> {
    crate_modules(&Path::new(env!("CARGO_MANIFEST_DIR")).join("src"))
}

/// Every module of the crate whose sources are in `src` (`stages::fit`, `job`, ...; the crate
/// roots are `lib` and `main`) with its source before `#[cfg(test)]`, comment lines left out.
fn crate_modules(src: &Path) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    let mut stack = vec![src.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap().flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
                continue;
            }
            let relative = path.strip_prefix(src).unwrap().to_str().unwrap();
            let Some(stem) = relative.strip_suffix(".rs") else {
                continue;
            };
            let name = stem.trim_end_matches("/mod").replace('/', "::");
            let text = std::fs::read_to_string(&path).unwrap();
            let code = text.split("#[cfg(test)]").next().unwrap();
            // Comments (doc links among them) import nothing.
            let code: String = code
                .lines()
                .filter(|line| !line.trim_start().starts_with("//"))
                .flat_map(|line| [line, "\n"])
                .collect();
            out.insert(name, code);
        }
    }
    out
}

/// The modules `code` (of module `name`) refers to: `crate::x::y`, `crate::{x, y::z}`, and
/// `super::x` (resolved from `name`'s parent), each as the longest known module the path
/// starts with. The crate roots (`lib`, `main`) are not modules here: their items are the
/// crate's front door, and every module is declared there. Likewise a child module's use of
/// its parent's own items (`super::Item`) is part of the nesting, not an import.
fn references(name: &str, code: &str, known: &BTreeSet<String>) -> BTreeSet<String> {
    let parent = name.rsplit_once("::").map_or("", |(parent, _)| parent);
    let mut out = BTreeSet::new();
    let mut add = |base: &str, path: &str| {
        let parts: Vec<&str> = path.split("::").filter(|p| !p.is_empty()).collect();
        // The longest known module the path starts with.
        for len in (1..=parts.len()).rev() {
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
    let super_base = if parent.is_empty() {
        String::new()
    } else {
        format!("{parent}::")
    };
    for (prefix, base) in [("crate::", ""), ("super::", super_base.as_str())] {
        for (i, _) in code.match_indices(prefix) {
            // `$crate::` in a macro is the crate's root too; `foo_super::` is no prefix.
            if code[..i]
                .chars()
                .next_back()
                .is_some_and(|c| c.is_ascii_alphanumeric() || c == '_')
            {
                continue;
            }
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

/// The import graph of a crate's modules (crate roots left out, see [`references`]).
fn import_graph(modules: &BTreeMap<String, String>) -> BTreeMap<&str, BTreeSet<String>> {
    let known: BTreeSet<String> = modules.keys().cloned().collect();
    modules
        .iter()
        .filter(|(name, _)| !matches!(name.as_str(), "lib" | "main"))
        .map(|(name, code)| (name.as_str(), references(name, code, &known)))
        .collect()
}

/// A path of imports from a module back to itself, if the graph has one.
fn find_cycle(graph: &BTreeMap<&str, BTreeSet<String>>) -> Option<Vec<String>> {
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
    let mut done = BTreeSet::new();
    graph
        .keys()
        .find_map(|start| cycle(graph, start, &mut Vec::new(), &mut done))
}

/// Every crate of the workspace (`crates/*` and `xtask`; not `fuzz`, outside the workspace)
/// as (name, `src` folder).
fn workspace_crates() -> Vec<(String, std::path::PathBuf)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut out: Vec<(String, std::path::PathBuf)> = std::fs::read_dir(root.join("crates"))
        .unwrap()
        .flatten()
        .filter(|entry| entry.path().join("src").is_dir())
        .map(|entry| {
            (
                entry.file_name().to_string_lossy().into_owned(),
                entry.path().join("src"),
            )
        })
        .collect();
    out.push(("xtask".to_owned(), root.join("xtask/src")));
    out.sort();
    out
}

/// The rig's humanoid names are decided once per job: the loader (`inputs`) alone says where
/// they come from (a `HumanoidNames`: the user's table, the rig's shipped one, or matched),
/// `stages::humanoid` alone makes names from that, and the driver makes one `JobNames` per job
/// that every stage needing the names (renaming, a computed T-pose, face helpers, a pose's
/// retargeting) takes. `stages::pose` reads the default rig's table and matches names on a
/// pose file's own skeleton: those are the file's names, not the rig's.
#[test]
fn the_rig_s_humanoid_names_are_decided_once_per_job() {
    let modules = modules();
    let users = |needle: &str| -> Vec<(&str, usize)> {
        modules
            .iter()
            .filter(|(_, code)| code.contains(needle))
            .map(|(name, code)| (name.as_str(), code.matches(needle).count()))
            .collect()
    };
    assert_eq!(
        users("HumanoidNames::Table(")
            .into_iter()
            .map(|(name, _)| name)
            .collect::<Vec<_>>(),
        ["inputs", "stages::humanoid"],
        "where the names come from is the loader's decision, read by stages::humanoid"
    );
    assert_eq!(
        users("JobNames::new("),
        [("convert", 1)],
        "one JobNames per job"
    );
    assert_eq!(
        users("match_skeleton(")
            .into_iter()
            .map(|(name, _)| name)
            .collect::<Vec<_>>(),
        ["humanoid_match", "stages::humanoid", "stages::pose"],
        "names are matched on the rig by stages::humanoid only (stages::pose: a file's skeleton)"
    );
    assert_eq!(
        users("tables::shipped(")
            .into_iter()
            .map(|(name, _)| name)
            .collect::<Vec<_>>(),
        ["inputs", "stages::pose"],
        "the rig's shipped table is looked up by the loader only (stages::pose: the default rig's, for a file)"
    );
    let pose = &modules["stages::pose"];
    assert!(
        pose.contains("tables::shipped(\"default\")"),
        "stages::pose reads the default rig's table only"
    );
}

/// The kinds of MakeHuman asset are decided once, by `makehuman_assets::AssetKind`: no other
/// crate declares an `AssetKind` of its own, and no module but the kind's own spells three or
/// more of the kinds' keywords as string literals (a list of kinds typed again) in its product
/// code.
#[test]
fn the_asset_kinds_are_one_type_in_makehuman_assets() {
    const KEYWORDS: [&str; 8] = [
        "clothes",
        "eyebrows",
        "eyelashes",
        "hair",
        "eyes",
        "teeth",
        "tongue",
        "proxy",
    ];
    let mut found = Vec::new();
    let mut kind_declared = false;
    // The published crates: the xtask and the test-only crates hold manifests and fixtures.
    let unpublished = ["xtask", "test-support", "mpfb-bench", "conformance"];
    for (krate, src) in workspace_crates() {
        if unpublished.contains(&krate.as_str()) {
            continue;
        }
        for (module, code) in crate_modules(&src) {
            let own = krate == "makehuman-assets" && module == "kind";
            for declaration in ["enum AssetKind", "struct AssetKind"] {
                if code.contains(declaration) {
                    if own {
                        kind_declared = true;
                    } else {
                        found.push(format!("{krate}::{module} declares `{declaration}`"));
                    }
                }
            }
            let spelled: Vec<&str> = KEYWORDS
                .into_iter()
                .filter(|keyword| code.contains(&format!("\"{keyword}\"")))
                .collect();
            if !own && spelled.len() >= 3 {
                found.push(format!(
                    "{krate}::{module} spells the asset kinds {spelled:?}"
                ));
            }
        }
    }
    assert!(
        kind_declared,
        "makehuman-assets declares `enum AssetKind` in kind.rs"
    );
    assert!(found.is_empty(), "{}", found.join("\n"));
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
fn a_cycle_through_super_and_nested_modules_is_found() {
    let modules: BTreeMap<String, String> = [
        ("lib", "pub mod a; pub mod b;"),
        ("a", "pub mod inner;"),
        ("a::inner", "use crate::b::Thing;"),
        ("b", "pub struct Thing; use crate::a::inner::helper;"),
        ("c", "fn f() { super::a::x(); } // not_super::b"),
    ]
    .iter()
    .map(|(name, code)| ((*name).to_owned(), (*code).to_owned()))
    .collect();
    let graph = import_graph(&modules);
    assert_eq!(
        find_cycle(&graph).unwrap(),
        ["a::inner", "b", "a::inner"],
        "{graph:?}"
    );
    // `super::` of a top-level module is the crate root; `not_super::` is no prefix.
    assert_eq!(graph["c"].iter().collect::<Vec<_>>(), ["a"], "{graph:?}");
}

/// ARCHITECTURE.md's invariant for every crate of the workspace: no module imports another
/// that imports it back, directly or through others.
#[test]
fn every_crate_s_modules_form_no_import_cycle() {
    let crates = workspace_crates();
    assert!(crates.len() > 10, "{crates:?}");
    let mut cycles = Vec::new();
    for (name, src) in &crates {
        let modules = crate_modules(src);
        if let Some(found) = find_cycle(&import_graph(&modules)) {
            cycles.push(format!("{name}: {}", found.join(" -> ")));
        }
    }
    assert!(cycles.is_empty(), "import cycles:\n{}", cycles.join("\n"));
}

#[test]
fn modules_form_no_cycle_and_only_entry_points_import_the_driver() {
    let modules = modules();
    let known: BTreeSet<String> = modules.keys().cloned().collect();
    assert!(
        known.contains("job") && known.contains("stages::fit"),
        "{known:?}"
    );
    let graph = import_graph(&modules);
    let found = find_cycle(&graph);
    assert!(found.is_none(), "an import cycle: {found:?}");
    let importers: Vec<&str> = graph
        .iter()
        .filter(|(_, refs)| refs.contains("convert"))
        .map(|(name, _)| *name)
        .collect();
    assert_eq!(
        importers,
        ["batch::run"],
        "only the entry points (the batch runner) import the driver"
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
