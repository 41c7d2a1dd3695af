//! `report FILE --by-code`, a reader of a file a user gives: whatever the file, one located
//! line and exit 1, within the size limit, never a panic.

use super::{cli, stderr};

#[test]
fn hostile_reports_are_refused_on_one_located_line() {
    let dir = tempfile::tempdir().unwrap();
    let write = |name: &str, bytes: &[u8]| {
        let path = dir.path().join(name);
        std::fs::write(&path, bytes).unwrap();
        path
    };
    let deep = format!("{}{}", "[".repeat(10_000), "]".repeat(10_000));
    let huge = dir.path().join("huge.json");
    // Sparse: the size is checked before a byte is read.
    std::fs::File::create(&huge)
        .unwrap()
        .set_len(mpfb2g4mf::report::MAX_REPORT_BYTES + 1)
        .unwrap();
    let cases = [
        (write("text.json", b"not json"), "text.json:1:"),
        (write("object.json", b"{\"index\": 0}"), "object.json:1:"),
        (write("deep.json", deep.as_bytes()), "deep.json:1:"),
        (
            write(
                "no-code.json",
                b"[{\"index\": 0, \"status\": \"ok\", \"notes\": [{\"message\": \"m\"}]}]",
            ),
            "no-code.json:1:",
        ),
        (
            write("utf16.json", &[0xff, 0xfe, b'[', 0, b']', 0]),
            "utf16.json:1:",
        ),
        (huge, "larger than"),
        (dir.path().to_path_buf(), "not a regular file"),
        (dir.path().join("missing.json"), "missing.json"),
    ];
    for (path, wanted) in cases {
        let output = cli()
            .args(["report", "--by-code"])
            .arg(&path)
            .output()
            .unwrap();
        let said = stderr(&output);
        assert_eq!(output.status.code(), Some(1), "{}: {said}", path.display());
        assert_eq!(said.lines().count(), 1, "{said}");
        assert!(said.contains(wanted), "{}: {said}", path.display());
        assert!(output.stdout.is_empty(), "{}", path.display());
    }
}
