//! Every shipped target reads, the index finds targets by base name, and a morph moves the
//! base mesh as the targets say.

use mpfb_body::index::LookupError;
use mpfb_body::{TargetIndex, morph, read_target_file};

#[test]
fn every_shipped_target_reads_and_stays_in_the_base_mesh() {
    let data =
        test_support::mpfb_data_or_skip!(every_shipped_target_reads_and_stays_in_the_base_mesh);
    let index = TargetIndex::scan(&data.join("targets")).unwrap();
    assert!(index.len() > 1200, "{} target names", index.len());
    let mut files = 0;
    let mut stack = vec![data.join("targets")];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap().flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else if mpfb_body::index::target_name(&entry.file_name().to_string_lossy()).is_some()
            {
                let target = read_target_file(&path).unwrap_or_else(|e| panic!("{e}"));
                assert!(
                    target.max_vertex().is_none_or(|v| v < 19158),
                    "{}",
                    path.display()
                );
                files += 1;
            }
        }
    }
    assert_eq!(files, 1325);
    // By base name, wherever MPFB keeps it.
    let arm = index.find("l-upperarm-scale-depth-incr").unwrap();
    assert!(
        arm.starts_with(data.join("targets/arms")),
        "{}",
        arm.display()
    );
    // Expression units exist once per race: a bare name is ambiguous, never a silent pick.
    assert!(matches!(
        index.find("eye-left-closure"),
        Err(LookupError::Ambiguous { .. })
    ));
    assert!(matches!(
        index.find("no-such-target"),
        Err(LookupError::Unknown { .. })
    ));
}

#[test]
fn a_morph_is_the_base_plus_the_weighted_displacements() {
    let data =
        test_support::mpfb_data_or_skip!(a_morph_is_the_base_plus_the_weighted_displacements);
    let index = TargetIndex::scan(&data.join("targets")).unwrap();
    let path = index.at("macrodetails/african-female-young").unwrap();
    let target = read_target_file(&path).unwrap();
    // The first line of that file is `0 .026 .154 -.166`.
    assert_eq!(target.deltas().next(), Some((0, [0.026, 0.154, -0.166])));
    let base = vec![[1.0, 2.0, 3.0]; 19158];
    let out = morph(&base, &[("african-female-young", &target, 0.5)]).unwrap();
    let expect = [
        1.0 + 0.5 * f64::from(0.026f32),
        2.0 + 0.5 * f64::from(0.154f32),
        3.0 + 0.5 * f64::from(-0.166f32),
    ];
    assert_eq!(out[0], expect);
}
