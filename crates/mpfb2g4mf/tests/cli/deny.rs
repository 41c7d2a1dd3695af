//! `--deny` where a `.g4tf`'s external buffer makes the write two files: a validator warning
//! denied at the step where the new buffer is in place leaves the old pair as it was and the
//! new buffer gone.

use crate::common::{convert_default, run, stderr};

#[test]
fn a_denied_g4tf_with_its_buffer_beside_it_leaves_the_old_pair_alone() {
    let Some(data) = test_support::mpfb_data_or_skip(
        "a_denied_g4tf_with_its_buffer_beside_it_leaves_the_old_pair_alone",
    ) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("m.g4tf");
    let convert = |extra: &[&str]| {
        let mut args = vec![
            "convert",
            "--rig-name",
            "mixamo",
            "--mpfb-data",
            data.to_str().unwrap(),
            "--external-bin",
            "-o",
            out.to_str().unwrap(),
        ];
        args.extend(extra);
        run(&args)
    };
    assert!(convert(&[]).status.success());
    let files = || {
        let mut listed: Vec<(std::ffi::OsString, Vec<u8>)> = std::fs::read_dir(dir.path())
            .unwrap()
            .flatten()
            .map(|e| (e.file_name(), std::fs::read(e.path()).unwrap()))
            .collect();
        listed.sort();
        listed
    };
    let before = files();
    assert_eq!(before.len(), 2);
    // The T-pose changes the buffer (a new name beside the old), and its validator warning
    // is known only once the new buffer is written.
    let denied = convert(&[
        "--rest-pose",
        "t-pose",
        "--validate",
        "--deny",
        "VALIDATOR_WARNING",
    ]);
    let said = stderr(&denied);
    assert_eq!(denied.status.code(), Some(1), "{said}");
    assert!(
        said.contains("VALIDATOR_WARNING: validator: SKIN_WEIGHT_SUM"),
        "{said}"
    );
    assert_eq!(files(), before, "the old pair changed or a new file stayed");
}

#[test]
fn to_gltf_stops_on_a_denied_note_before_writing() {
    let Some(data) =
        test_support::mpfb_data_or_skip("to_gltf_stops_on_a_denied_note_before_writing")
    else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let g4b = dir.path().join("a.g4b");
    let made = convert_default(&data, &g4b, &[]).output().unwrap();
    assert!(made.status.success(), "{}", stderr(&made));
    let glb = dir.path().join("a.glb");
    let to_gltf = |extra: &[&str]| {
        let mut args = vec![
            "to-gltf",
            g4b.to_str().unwrap(),
            "-o",
            glb.to_str().unwrap(),
        ];
        args.extend(extra);
        run(&args)
    };
    // Reading our own file back notes what the glTF leaves out: a note can be denied too.
    let said = stderr(&to_gltf(&[]));
    assert!(said.contains("note      G4MF_READ_NOTE: "), "{said}");
    std::fs::remove_file(&glb).unwrap();
    let denied = to_gltf(&["--deny", "G4MF_READ_NOTE"]);
    let said = stderr(&denied);
    assert_eq!(denied.status.code(), Some(1), "{said}");
    assert!(said.contains("G4MF_READ_NOTE: "), "{said}");
    assert!(said.contains("denied by --deny"), "{said}");
    assert!(!glb.exists());
}
