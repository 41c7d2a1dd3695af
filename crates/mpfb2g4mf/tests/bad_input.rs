//! The bad-input corpus (`fixtures/bad/`): for each file, the real CLI exits 1 (never a panic,
//! never 101), prints exactly one error line naming the file and the position (line:column,
//! JSON pointer or byte offset), and leaves no output file behind.

#![allow(clippy::unwrap_used)] // Tests fail loudly by design.

use std::path::PathBuf;
use std::process::Command;

fn fixture(name: &str) -> PathBuf {
    test_support::workspace_root()
        .join("fixtures/bad")
        .join(name)
}

/// Which command reads the bad file: a rig, weights, a mesh, or a G4MF file.
enum Role {
    Rig,
    Weights,
    Mesh(&'static str),
    G4mf,
}

fn check(name: &str, role: Role, position: &str) {
    let out = tempfile::tempdir().unwrap();
    let output = out.path().join("out.g4b");
    let bad = fixture(name);
    let (ok_rig, ok_mesh) = (fixture("ok_rig.json"), fixture("ok_mesh.obj"));
    let mut command = Command::new(env!("CARGO_BIN_EXE_mpfb2g4mf"));
    match role {
        Role::Rig => command
            .args(["convert", "--rig"])
            .arg(&bad)
            .arg("--mesh")
            .arg(&ok_mesh),
        Role::Weights => command
            .args(["convert", "--rig"])
            .arg(&ok_rig)
            .arg("--weights")
            .arg(&bad)
            .arg("--mesh")
            .arg(&ok_mesh),
        Role::Mesh(rig) => command
            .args(["convert", "--rig"])
            .arg(fixture(rig))
            .arg("--mesh")
            .arg(&bad),
        Role::G4mf => command
            .args(["to-mpfb"])
            .arg(&bad)
            .arg("--out-dir")
            .arg(out.path()),
    };
    if !matches!(role, Role::G4mf) {
        // The corpus's meshes are a few vertices made for its rigs.
        command.arg("-o").arg(&output).arg("--any-topology");
    }
    let result = command.output().unwrap();
    let stderr = String::from_utf8_lossy(&result.stderr);
    assert_eq!(result.status.code(), Some(1), "{name}: {stderr}");
    let lines: Vec<&str> = stderr.lines().collect();
    assert_eq!(lines.len(), 1, "{name}: one error line, got: {stderr}");
    assert!(
        lines[0].starts_with("mpfb2g4mf: error: "),
        "{name}: {stderr}"
    );
    assert!(
        lines[0].contains(name),
        "{name}: the line must name the file: {stderr}"
    );
    assert!(
        lines[0].contains(position),
        "{name}: expected position `{position}` in: {stderr}"
    );
    let left: Vec<_> = std::fs::read_dir(out.path())
        .unwrap()
        .flatten()
        .map(|e| e.file_name())
        .collect();
    assert!(left.is_empty(), "{name}: output left behind: {left:?}");
}

macro_rules! bad_input {
    ($($test:ident: $file:literal, $role:expr, $position:literal;)*) => {$(
        #[test]
        fn $test() {
            check($file, $role, $position);
        }
    )*};
}

bad_input! {
    rig_truncated_json: "rig_truncated.json", Role::Rig, "rig_truncated.json:3:31: EOF while parsing an object";
    rig_wrong_json_type: "rig_wrong_type.json", Role::Rig, "rig_wrong_type.json:19:17: /root: invalid type: string \"0.5\", expected f64";
    rig_unknown_strategy: "rig_unknown_strategy.json", Role::Rig, "/root/head/strategy: bone `root`: unknown strategy `CUBBE`";
    rig_missing_parent: "rig_missing_parent.json", Role::Rig, "/root/parent: bone `root`: parent `pelvis` is not a bone";
    rig_parent_cycle: "rig_parent_cycle.json", Role::Rig, "/a/parent: parent cycle: a -> b -> a";
    rig_duplicate_bone: "rig_duplicate_bone.json", Role::Rig, ": /a: duplicate key `a`";
    rig_vertex_out_of_range: "rig_vertex_out_of_range.json", Role::Rig, "/root/head: bone `root` head cannot be placed on the mesh";
    rig_mhskel: "rig_mhskel.json", Role::Rig, "/joints: this is a MakeHuman .mhskel skeleton";
    weights_vertex_out_of_range: "weights_vertex_out_of_range.json", Role::Weights, "/weights/root/1: group `root`: vertex 9 is beyond the mesh's 4 vertices";
    weights_nan: "weights_nan.json", Role::Weights, "weights_nan.json:3:18: weight `NaN` is not a finite number";
    weights_infinite: "weights_infinite.json", Role::Weights, "weights_infinite.json:3:18: weight `Infinity` is not a finite number";
    weights_negative: "weights_negative.json", Role::Weights, "weights_negative.json:3:22: group `root`: vertex 0 has a negative weight -0.5";
    weights_not_a_pair: "weights_not_a_pair.json", Role::Weights, "weights_not_a_pair.json:3:24: invalid length 3";
    obj_face_index_out_of_range: "obj_face_out_of_range.obj", Role::Mesh("ok_rig.json"), "obj_face_out_of_range.obj:5:7: vertex index 7 is out of range";
    obj_fewer_vertices_than_the_rig_needs: "obj_fewer_vertices_than_rig.obj", Role::Mesh("ok_vertex_rig.json"), "obj_fewer_vertices_than_rig.obj (vertex 5 is beyond the mesh's 3 vertices)";
    obj_malformed_vertex: "obj_malformed_vertex.obj", Role::Mesh("ok_rig.json"), "obj_malformed_vertex.obj:2:5: `zero` is not a number";
    g4b_lying_size: "g4b_lying_size.g4b", Role::G4mf, "byte 8: the header declares";
    g4b_misaligned_chunk: "g4b_misaligned_chunk.g4b", Role::G4mf, "a chunk header is not on a 16-byte boundary";
    g4b_huge_byte_length: "g4b_huge_byte_length.g4b", Role::G4mf, "/buffers/0/byteLength: buffer 0 is 9000000000000000000 bytes, above the limit";
    g4tf_uri_outside_folder: "g4tf_uri_outside_folder.g4tf", Role::G4mf, "/buffers/0/uri: refusing to follow `../secret.bin`: it leaves the file's folder";
    g4tf_uri_url: "g4tf_uri_url.g4tf", Role::G4mf, "/buffers/0/uri: refusing to follow `https://example.com/buffer.bin`";
}

#[test]
fn limits_give_clear_errors_and_can_be_raised() {
    let out = tempfile::tempdir().unwrap();
    let output = out.path().join("out.g4b");
    let run = |extra: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_mpfb2g4mf"))
            .args(["convert", "--rig"])
            .arg(fixture("ok_rig.json"))
            .arg("--mesh")
            .arg(fixture("ok_mesh.obj"))
            .arg("-o")
            .arg(&output)
            .arg("--any-topology")
            .args(extra)
            .output()
            .unwrap()
    };
    let result = run(&["--max-input-mib", "0"]);
    assert_eq!(result.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&result.stderr);
    assert!(
        stderr.contains("larger than the input limit of 0 bytes (raise it with --max-input-mib)"),
        "{stderr}"
    );
    assert!(!output.exists());
    assert_eq!(run(&[]).status.code(), Some(0));

    // JSON nested deeper than serde_json's recursion limit: a clear error, no stack overflow.
    let deep = out.path().join("rig.deep.json");
    let rig = std::fs::read_to_string(fixture("ok_rig.json")).unwrap();
    let nested = format!(
        "\"rigify\": {{}}, \"deep\": {}{}",
        "[".repeat(10_000),
        "]".repeat(10_000)
    );
    std::fs::write(&deep, rig.replacen("\"rigify\": {}", &nested, 1)).unwrap();
    let result = Command::new(env!("CARGO_BIN_EXE_mpfb2g4mf"))
        .args(["convert", "--rig"])
        .arg(&deep)
        .arg("--mesh")
        .arg(fixture("ok_mesh.obj"))
        .arg("-o")
        .arg(&output)
        .output()
        .unwrap();
    assert_eq!(result.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&result.stderr).contains("recursion limit exceeded"),
        "{}",
        String::from_utf8_lossy(&result.stderr)
    );
}
