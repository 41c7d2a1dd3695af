//! Helpers the CLI test binaries share: the binary, the data and assets folders, a validated
//! dressing convert, and the world transform of every node of a file.

// Each test binary uses its own share of these.
#![allow(dead_code, clippy::unwrap_used)]

use g4mf_model::Document;
use glam::{DMat3, DVec3};
use std::path::{Path, PathBuf};
use std::process::Command;

/// The converter under test.
pub fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_mpfb2g4mf"))
}

/// The asset files `fixtures/bodies/dressed.mhm` names besides the default eyes.
pub const DRESSED_MHM: &[&str] = &[
    "eyebrows/eyebrow011/eyebrow011.mhclo",
    "eyelashes/eyelashes02/eyelashes02.mhclo",
    "hair/bob01/bob01.mhclo",
    "teeth/teeth_base/teeth_base.mhclo",
    "tongue/tongue01/tongue01.mhclo",
    "clothes/female_casualsuit01/female_casualsuit01.mhclo",
    "clothes/shoes02/shoes02.mhclo",
    "eyes/materials/blue.mhmat",
];

/// The data folder and an assets folder holding the default eyes and every one of `files`,
/// or a loud skip (a failure under CI).
pub fn data_and_assets(test: &str, files: &[&str]) -> Option<(PathBuf, PathBuf)> {
    let data = test_support::mpfb_data_or_skip(test)?;
    let needed: Vec<&str> = test_support::DEFAULT_EYES
        .iter()
        .chain(files)
        .copied()
        .collect();
    let assets = test_support::makehuman_assets_or_skip(test, &needed)?;
    Some((data, assets))
}

/// `convert --rig-name default` with the data and assets folders and `extra` flags,
/// validated; its summary.
pub fn convert_with_assets(data: &Path, assets: &Path, out: &Path, extra: &[&str]) -> String {
    let mut command = bin();
    command
        .args(["convert", "--rig-name", "default", "--mpfb-data"])
        .arg(data)
        .arg("--assets")
        .arg(assets)
        .args(extra)
        .args(["--validate", "-o"])
        .arg(out);
    succeed(&mut command)
}

/// Runs `command`, which must succeed; its standard error (the summary).
pub fn succeed(command: &mut Command) -> String {
    let output = command.output().unwrap();
    let text = String::from_utf8_lossy(&output.stderr).into_owned();
    assert!(output.status.success(), "{text}");
    text
}

/// World position and basis of every node (nodes the tree does not reach stay at the origin).
pub fn world_transforms(doc: &Document) -> Vec<(DVec3, DMat3)> {
    let mut world = vec![(DVec3::ZERO, DMat3::IDENTITY); doc.nodes.len()];
    let mut stack = vec![0usize];
    while let Some(i) = stack.pop() {
        for child in &doc.nodes[i].children {
            let node = &doc.nodes[child.get()];
            let p = node
                .position
                .as_ref()
                .map_or(DVec3::ZERO, |p| DVec3::from_slice(p));
            let b = node
                .basis
                .as_ref()
                .map_or(DMat3::IDENTITY, |b| DMat3::from_cols_slice(b));
            let (pp, pb) = world[i];
            world[child.get()] = (pp + pb * p, pb * b);
            stack.push(child.get());
        }
    }
    world
}
