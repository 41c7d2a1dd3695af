//! Fuzzes URI handling (`g4mf_reader::resolve_relative_uri`, which every reader resolving a
//! relative URI calls): percent-decoding per RFC 3986 and confinement to the file's folder.
//! Besides not panicking, a followed URI stays inside the folder, a URI with a scheme is never
//! followed, and any file name percent-encoded resolves back to itself.
#![no_main]

use libfuzzer_sys::fuzz_target;
use std::path::{Component, Path};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let folder = Path::new("/models/here");
    if let Ok(path) = g4mf_reader::resolve_relative_uri(text, folder, false) {
        assert!(!text.contains(':'), "{text:?} has a scheme but was followed");
        let inner = path.strip_prefix(folder).expect("the path starts at the folder");
        let mut depth = 0i64;
        for component in inner.components() {
            match component {
                Component::ParentDir => depth -= 1,
                Component::Normal(_) => depth += 1,
                Component::CurDir => {}
                other => panic!("{text:?} resolved through {other:?}"),
            }
            assert!(depth >= 0, "{text:?} leaves the folder as {path:?}");
        }
    }
    // Any single file name, encoded as a writer encodes it, resolves to that name.
    let name = text.replace(['/', '\\', '\0'], "_");
    if !name.is_empty() && name != "." && name != ".." {
        let encoded =
            percent_encoding::utf8_percent_encode(&name, percent_encoding::NON_ALPHANUMERIC)
                .to_string();
        let resolved = g4mf_reader::resolve_relative_uri(&encoded, folder, false)
            .unwrap_or_else(|e| panic!("{name:?} encoded as {encoded:?}: {e}"));
        assert_eq!(resolved, folder.join(&name), "{encoded:?}");
    }
});
