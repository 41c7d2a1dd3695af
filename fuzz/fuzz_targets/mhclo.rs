//! Fuzzes `.mhclo` / `.proxy` parsing and fitting: any text must give a proxy file or a
//! located error, never a panic. A file that parses keeps its invariants (references and
//! their lines, `delete_verts` ascending and unique, finite weights and offsets, positive
//! finite scale distances); when its indices fit MakeHuman's base mesh, fitting it to a
//! synthetic body of 19158 vertices gives finite positions (or an error on a line), and the
//! weights it inherits from a few bone groups are finite, above the threshold, and sorted.
#![no_main]

use glam::DVec3;
use libfuzzer_sys::fuzz_target;
use makehuman_assets::{
    MAX_DELETE_VERTS, MAX_REFERENCES, ProxyFile, Reference, WEIGHT_THRESHOLD, parse_proxy,
};
use std::sync::OnceLock;

/// MakeHuman's base mesh, helpers included.
const BODY_VERTICES: usize = 19158;

/// A body-sized cloud of points (decimetres, about a person's extent), and a few bone
/// groups over it with weights in (0, 1].
struct Body {
    points: Vec<DVec3>,
    groups: Vec<Vec<(u32, f64)>>,
}

fn body() -> &'static Body {
    static BODY: OnceLock<Body> = OnceLock::new();
    BODY.get_or_init(|| {
        let points = (0..BODY_VERTICES)
            .map(|i| {
                let t = i as f64;
                DVec3::new(
                    2.0 * (t * 0.37).sin(),
                    16.0 * t / BODY_VERTICES as f64,
                    1.5 * (t * 0.11).cos(),
                )
            })
            .collect();
        // Dense over the low vertices the fuzzer writes most, sparse above (a few hundred
        // pairs a group keeps each run cheap).
        let groups = (0..4u32)
            .map(|g| {
                (0..BODY_VERTICES as u32)
                    .filter(|v| (*v < 256 && v % (g + 1) == 0) || v % 61 == g * 7)
                    .map(|v| (v, 1.0 / f64::from(g + 1 + v % 3)))
                    .collect()
            })
            .collect();
        Body { points, groups }
    })
}

fn check_parsed(p: &ProxyFile) {
    assert!(!p.name.is_empty());
    assert!(!p.obj_file.is_empty());
    assert!(p.basemesh.as_deref().is_none_or(|m| m == "hm08"));
    assert!(p.ignored.len() <= 32);
    assert!(!p.references.is_empty() && p.references.len() <= MAX_REFERENCES);
    // Every reference has its line, lines strictly ascending.
    let mut last = 0;
    for i in 0..p.references.len() {
        let line = p.reference_line(i).expect("every reference has a line");
        assert!(
            line > last,
            "reference {i} on line {line} after line {last}"
        );
        last = line;
    }
    assert_eq!(p.reference_line(p.references.len()), None);
    for reference in &p.references {
        if let Reference::Triangle {
            weights, offset, ..
        } = reference
        {
            assert!(
                weights.iter().chain(offset).all(|x| x.is_finite()),
                "{reference:?}"
            );
        }
    }
    for (axis, scale) in p.scales.iter().enumerate() {
        assert_eq!(scale.is_some(), p.scale_line(axis).is_some());
        if let Some(s) = scale {
            assert!(s.distance.is_finite() && s.distance > 0.0, "{s:?}");
        }
    }
    assert!(p.delete_verts.len() <= MAX_DELETE_VERTS);
    assert!(
        p.delete_verts.windows(2).all(|w| w[0] < w[1]),
        "delete_verts not ascending and unique"
    );
}

fn check_fitted(p: &ProxyFile) {
    let body = body();
    match p.fit(&body.points) {
        Ok(positions) => {
            assert_eq!(positions.len(), p.references.len());
            for (i, q) in positions.iter().enumerate() {
                assert!(q.is_finite(), "reference {i}: {q:?}");
            }
            let scale = p
                .try_scale(&body.points)
                .expect("the scale of a fitted file");
            assert!(scale.is_finite());
            assert_eq!(scale, p.scale(&body.points));
        }
        Err(e) => assert!(
            e.location.line_column.is_some(),
            "an unlocated fitting error: {e}"
        ),
    }
    let inherited = p.inherited_weights(&body.groups, BODY_VERTICES);
    let mut last_group = None;
    for (group, list) in &inherited {
        assert!(*group < body.groups.len());
        assert!(
            last_group.is_none_or(|g| g < *group),
            "groups not ascending"
        );
        last_group = Some(*group);
        assert!(!list.is_empty(), "an empty group is listed");
        assert!(
            list.windows(2).all(|w| w[0].0 < w[1].0),
            "vertices not ascending"
        );
        for &(v, w) in list {
            assert!((v as usize) < p.references.len());
            assert!(
                w.is_finite() && w > WEIGHT_THRESHOLD,
                "vertex {v}: weight {w}"
            );
        }
    }
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let proxy = match parse_proxy(text) {
        Ok(proxy) => proxy,
        Err(e) => {
            // One line, as every message of the converter.
            assert!(!e.to_string().contains('\n'), "{e}");
            return;
        }
    };
    check_parsed(&proxy);
    match proxy.check_indices(BODY_VERTICES) {
        Ok(()) => check_fitted(&proxy),
        Err(e) => assert!(
            e.location.line_column.is_some(),
            "an unlocated index error: {e}"
        ),
    }
});
