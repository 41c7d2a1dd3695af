//! `demo`: MPFB's default character written where the README says.

use crate::common::{bin, check_rules, stderr};
use g4mf_reader::{ReadOptions, read_path};

#[test]
fn demo_writes_the_default_character() {
    let data = test_support::mpfb_data_or_skip!(demo_writes_the_default_character);
    let out = tempfile::tempdir().unwrap();
    let result = bin()
        .current_dir(out.path())
        .args(["demo", "--mpfb-data", data.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(result.status.success(), "{}", stderr(&result));
    let file = read_path(
        &out.path().join("out/makehuman-default.g4b"),
        &ReadOptions::default(),
    )
    .unwrap();
    check_rules(&file);
    assert!(stderr(&result).contains("wrote out/makehuman-default.g4b"));
}
