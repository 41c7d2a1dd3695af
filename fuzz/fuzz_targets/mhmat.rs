//! Fuzzes `.mhmat` parsing: any text must give a material or a one-line error, never a
//! panic; a material that parses has its colours and [0, 1] scalars finite and in [0, 1],
//! its intensities finite and not negative, its texture paths non-empty, and at most 256
//! unknown keys.
#![no_main]

use libfuzzer_sys::fuzz_target;
use makehuman_assets::parse_material;

fn unit(what: &str, x: f64) {
    assert!(x.is_finite() && (0.0..=1.0).contains(&x), "{what} = {x}");
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let m = match parse_material(text) {
        Ok(m) => m,
        Err(e) => {
            assert!(!e.to_string().contains('\n'), "{e}");
            return;
        }
    };
    for (what, color) in [
        ("diffuseColor", m.diffuse_color),
        ("specularColor", m.specular_color),
        ("emissiveColor", m.emissive_color),
        ("ambientColor", m.ambient_color),
    ] {
        for x in color.into_iter().flatten() {
            unit(what, x);
        }
    }
    for (what, value) in [
        ("shininess", m.shininess),
        ("opacity", m.opacity),
        ("translucency", m.translucency),
        ("roughness", m.roughness),
        ("metallic", m.metallic),
    ] {
        if let Some(x) = value {
            unit(what, x);
        }
    }
    for (key, x) in &m.intensities {
        assert!(key.ends_with("Intensity"));
        assert!(x.is_finite() && *x >= 0.0, "{key} = {x}");
    }
    for texture in &m.textures {
        assert!(texture.key.ends_with("Texture"));
        assert!(!texture.path.is_empty() && texture.path.trim() == texture.path);
    }
    for name in m.name.iter().chain(&m.tags).chain(&m.shader) {
        assert!(!name.is_empty());
    }
    assert!(m.other.len() <= 256);
});
