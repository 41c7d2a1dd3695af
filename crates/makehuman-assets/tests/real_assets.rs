//! Every `.mhclo`, `.proxy` and `.mhmat` of the MakeHuman assets folder parses, each proxy's
//! reference count matches its OBJ's vertex count, and its indices fit the hm08 base mesh.

use makehuman_assets::{parse_material, parse_proxy};
use std::path::{Path, PathBuf};

/// Vertices of MakeHuman's base mesh hm08, helpers included.
const BASE_MESH_VERTICES: usize = 19158;

fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.map(|e| e.path()).unwrap_or_else(|e| panic!("{e}")))
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            files(&path, out);
        } else {
            out.push(path);
        }
    }
}

fn with_extension(root: &Path, extensions: &[&str]) -> Vec<PathBuf> {
    let mut all = Vec::new();
    files(root, &mut all);
    all.retain(|p| {
        p.extension()
            .and_then(|e| e.to_str())
            .is_some_and(|e| extensions.contains(&e))
    });
    all
}

fn read(path: &Path) -> String {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    location::text::decode(&bytes)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .to_owned()
}

fn obj_vertex_count(text: &str) -> usize {
    text.lines()
        .filter(|l| l.starts_with("v ") || l.starts_with("v\t"))
        .count()
}

#[test]
fn every_proxy_parses_and_fits_the_base_mesh() {
    let Some(root) = test_support::makehuman_assets() else {
        test_support::skip_or_fail(
            "every_proxy_parses_and_fits_the_base_mesh",
            "no MakeHuman assets",
        );
        return;
    };
    let proxies = with_extension(&root, &["mhclo", "proxy"]);
    assert!(
        proxies.len() >= 50,
        "only {} proxies in {}",
        proxies.len(),
        root.display()
    );
    let mut with_deletes = 0;
    for path in &proxies {
        let proxy = parse_proxy(&read(path))
            .map_err(|e| e.with_file(path))
            .unwrap_or_else(|e| panic!("{e}"));
        let folder = path.parent().unwrap_or(Path::new("."));
        let obj = folder.join(&proxy.obj_file);
        assert_eq!(
            proxy.references.len(),
            obj_vertex_count(&read(&obj)),
            "{}: references vs vertices of {}",
            path.display(),
            obj.display()
        );
        proxy
            .check_indices(BASE_MESH_VERTICES)
            .map_err(|e| e.with_file(path))
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            proxy.basemesh.as_deref(),
            Some("hm08"),
            "{}",
            path.display()
        );
        assert!(
            proxy.scales.iter().all(Option::is_some),
            "{}: every shipped asset has three scale lines",
            path.display()
        );
        if let Some(material) = &proxy.material {
            let material = folder.join(material);
            parse_material(&read(&material))
                .map_err(|e| e.with_file(&material))
                .unwrap_or_else(|e| panic!("{e}"));
        }
        with_deletes += usize::from(!proxy.delete_verts.is_empty());
        // The delete list is sorted and unique.
        assert!(proxy.delete_verts.windows(2).all(|w| w[0] < w[1]));
    }
    assert!(with_deletes > 0, "no asset hides body vertices");
}

#[test]
fn every_material_parses() {
    let Some(root) = test_support::makehuman_assets() else {
        test_support::skip_or_fail("every_material_parses", "no MakeHuman assets");
        return;
    };
    let materials = with_extension(&root, &["mhmat"]);
    assert!(
        materials.len() >= 50,
        "only {} materials in {}",
        materials.len(),
        root.display()
    );
    for path in &materials {
        let material = parse_material(&read(path))
            .map_err(|e| e.with_file(path))
            .unwrap_or_else(|e| panic!("{e}"));
        assert!(material.name.is_some(), "{}: no name", path.display());
    }
    let skin =
        parse_material(&read(&root.join("skins/default.mhmat"))).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(skin.auto_blend_skin, Some(true));
    assert!(skin.textures.iter().all(|t| t.key != "diffuseTexture"));
}
