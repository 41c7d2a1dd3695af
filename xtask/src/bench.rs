//! `cargo xtask bench`: runs the criterion benchmarks and prints one table of medians, with
//! each stage's ratio to the baseline (serde_json Values of the same JSON + reading the OBJ).

use crate::measure::{median, peak_kib};
use serde_json::Value;
use std::path::Path;
use std::process::Command;

pub fn run(args: &[String]) -> Result<(), String> {
    let value = |flag: &str| {
        args.iter()
            .position(|a| a == flag)
            .and_then(|i| args.get(i + 1))
    };
    // `--populations [--rounds N] [--against BIN] [--this BIN] [--only NAME]`: only the
    // populations against the durable writes of their files.
    if args.iter().any(|a| a == "--populations") {
        let rounds = rounds_of(value("--rounds"))?;
        let bin = this_binary(value("--this"))?;
        let options = crate::populations::Options {
            rounds,
            against: value("--against").map(std::path::PathBuf::from),
            only: value("--only").cloned(),
        };
        return with_work("populations", |work| {
            let data = absolute_data()?;
            crate::populations::run(&bin, &data, work, &options)
        });
    }
    // `--formats [--rounds N] [--this BIN]`: populations as `.glb` against `.g4b`.
    if args.iter().any(|a| a == "--formats") {
        let rounds = rounds_of(value("--rounds"))?;
        let bin = this_binary(value("--this"))?;
        return with_work("formats", |work| {
            let data = absolute_data()?;
            crate::formats::run(&bin, &data, work, rounds)
        });
    }
    // `--allocators [--rounds N] [--with NAME=BIN]...`: this build's malloc set-up against
    // glibc's defaults and other builds, in whole batches.
    if args.iter().any(|a| a == "--allocators") {
        let rounds = rounds_of(value("--rounds"))?;
        let mut with = Vec::new();
        for (i, arg) in args.iter().enumerate() {
            if arg == "--with" {
                let pair = args.get(i + 1).ok_or("--with needs NAME=BIN")?;
                let (name, bin) = pair
                    .split_once('=')
                    .ok_or_else(|| format!("--with {pair}: expected NAME=BIN"))?;
                with.push((name.to_owned(), std::path::PathBuf::from(bin)));
            }
        }
        let bin = this_binary(value("--this"))?;
        let options = crate::allocators::Options { rounds, with };
        return with_work("allocators", |work| {
            let data = absolute_data()?;
            crate::allocators::run(&bin, &data, work, &options)
        });
    }
    // `--processes`: only the whole-process timings (batches, populations, memory).
    if args.iter().any(|a| a == "--processes") {
        return batch_and_memory();
    }
    // `--dressed`: only the cost of wearing MakeHuman assets.
    if args.iter().any(|a| a == "--dressed") {
        let bin = release_binary()?;
        let data = test_support::mpfb_data().ok_or("no MPFB data")?;
        let work = std::env::temp_dir().join(format!("mpfb2g4mf-dressed-{}", std::process::id()));
        std::fs::create_dir_all(&work).map_err(|e| e.to_string())?;
        let result = dressed_cost(&bin, &data, &work);
        let _ = std::fs::remove_dir_all(&work);
        return result;
    }
    // `--motion`: the cost of MakeHuman's expressions as shapes, and of a posed population.
    if args.iter().any(|a| a == "--motion") {
        let bin = release_binary()?;
        let data = test_support::mpfb_data().ok_or("no MPFB data")?;
        let work = std::env::temp_dir().join(format!("mpfb2g4mf-motion-{}", std::process::id()));
        std::fs::create_dir_all(&work).map_err(|e| e.to_string())?;
        let result = motion_cost(&bin, &data, &work);
        let _ = std::fs::remove_dir_all(&work);
        return result;
    }
    // `--textures`: file size and convert time with and without embedded images.
    if args.iter().any(|a| a == "--textures") {
        let bin = release_binary()?;
        let data = test_support::mpfb_data().ok_or("no MPFB data")?;
        let work = std::env::temp_dir().join(format!("mpfb2g4mf-textures-{}", std::process::id()));
        std::fs::create_dir_all(&work).map_err(|e| e.to_string())?;
        let result = texture_cost(&bin, &data, &work);
        let _ = std::fs::remove_dir_all(&work);
        return result;
    }
    // `--against-cat [--against BIN] [--this BIN] [--rounds N]`: only the convert-against-cat
    // table, with another build of the converter (an older commit's, say) interleaved in the
    // same rounds.
    if args.iter().any(|a| a == "--against-cat") {
        let other = value("--against").map(std::path::PathBuf::from);
        let rounds = match value("--rounds") {
            Some(n) => n
                .parse()
                .map_err(|_| format!("--rounds {n}: not a number"))?,
            None => 21,
        };
        // `--this BIN` times another build instead of this tree's (a commit's, for a change's
        // before-and-after without rebuilding).
        let bin = this_binary(value("--this"))?;
        let data = test_support::mpfb_data().ok_or("no MPFB data")?;
        let work = std::env::temp_dir().join(format!("mpfb2g4mf-cat-{}", std::process::id()));
        std::fs::create_dir_all(&work).map_err(|e| e.to_string())?;
        let result = against_cat(&bin, &data, &work, other.as_deref(), rounds);
        let _ = std::fs::remove_dir_all(&work);
        return result;
    }
    let mut command = Command::new("cargo");
    command.args(["bench", "-p", "mpfb-bench", "--bench", "pipeline", "--"]);
    command.args(args);
    let status = command
        .status()
        .map_err(|e| format!("cannot run cargo bench: {e}"))?;
    if !status.success() {
        return Err("cargo bench failed".into());
    }
    let root = test_support::workspace_root().join("target/criterion");
    let medians = collect_medians(&root)?;
    if medians.is_empty() {
        return Err("no benchmark results (is the MPFB data missing?)".into());
    }
    let get = |name: &str| medians.iter().find(|(n, _)| n == name).map(|(_, t)| *t);
    // The full convert's own inputs: the default rig, its weights and base.obj.
    // (`baseline/value_weights` is the larger game-engine file that `parse/weights` reads.)
    let baseline: f64 = [
        "baseline/value_rig",
        "baseline/value_default_weights",
        "baseline/read_obj_bytes",
    ]
    .iter()
    .filter_map(|n| get(n))
    .sum();
    println!(
        "\n{:<28} {:>12} {:>10}",
        "benchmark", "median", "x baseline"
    );
    for (name, nanos) in &medians {
        println!(
            "{name:<28} {:>12} {:>10.3}",
            format_time(*nanos),
            nanos / baseline
        );
    }
    println!(
        "{:<28} {:>12} {:>10.3}",
        "baseline (sum of 3)",
        format_time(baseline),
        1.0
    );
    if let Some(full) = get("convert/full") {
        println!(
            "\nfull convert of the default rig, weights and base.obj: {} = {:.2}x the baseline (target <= 1.5x)",
            format_time(full),
            full / baseline
        );
    }
    batch_and_memory()
}

/// Builds the release `mpfb2g4mf` and returns its path: whole-process measurements and the
/// README's pictures run the real binary.
pub fn release_binary() -> Result<std::path::PathBuf, String> {
    let status = Command::new("cargo")
        .args(["build", "--release", "--quiet", "-p", "mpfb2g4mf"])
        .status()
        .map_err(|e| e.to_string())?;
    if !status.success() {
        return Err("cannot build the release binary".into());
    }
    // Cargo builds into CARGO_TARGET_DIR when it is set (relative to the working folder).
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| test_support::workspace_root().join("target"));
    Ok(target.join("release/mpfb2g4mf"))
}

/// `--rounds N` (5 when absent).
fn rounds_of(text: Option<&String>) -> Result<usize, String> {
    match text {
        Some(n) => n.parse().map_err(|_| format!("--rounds {n}: not a number")),
        None => Ok(5),
    }
}

/// `--this BIN`, else this tree's release build.
fn this_binary(text: Option<&String>) -> Result<std::path::PathBuf, String> {
    match text {
        Some(path) => Ok(std::path::PathBuf::from(path)),
        None => release_binary(),
    }
}

/// The MPFB data folder, absolute (manifests resolve relative paths against their own folder).
pub(crate) fn absolute_data() -> Result<std::path::PathBuf, String> {
    let data = test_support::mpfb_data().ok_or("no MPFB data")?;
    std::fs::canonicalize(&data).map_err(|e| format!("{}: {e}", data.display()))
}

/// Runs `work` in a fresh temporary folder named after `what`, removed afterwards.
fn with_work(what: &str, work: impl FnOnce(&Path) -> Result<(), String>) -> Result<(), String> {
    let folder = std::env::temp_dir().join(format!("mpfb2g4mf-{what}-{}", std::process::id()));
    std::fs::create_dir_all(&folder).map_err(|e| e.to_string())?;
    let result = work(&folder);
    let _ = std::fs::remove_dir_all(&folder);
    result
}

/// Times a 40-job batch with 1 and 2 workers, and measures peak memory (GNU time's max RSS)
/// of one convert and of batches of 8 and 40 jobs over the same inputs.
fn batch_and_memory() -> Result<(), String> {
    let bin = release_binary()?;
    let data = absolute_data()?;
    let work = std::env::temp_dir().join(format!("mpfb2g4mf-bench-{}", std::process::id()));
    std::fs::create_dir_all(&work).map_err(|e| e.to_string())?;
    let manifest = |n: usize| -> Result<std::path::PathBuf, String> {
        let jobs: Vec<serde_json::Value> = (0..n)
            .map(|i| serde_json::json!({"rig_name": "default", "output": format!("out{n}/job{i}.g4b")}))
            .collect();
        let path = work.join(format!("batch{n}.json"));
        let json = serde_json::json!({"defaults": {"mpfb_data": data}, "jobs": jobs});
        std::fs::write(&path, json.to_string()).map_err(|e| e.to_string())?;
        Ok(path)
    };
    let forty = manifest(40)?;
    let eight = manifest(8)?;
    let one = best_batch(&bin, &forty, "1", &[])?;
    let two = best_batch(&bin, &forty, "2", &[])?;
    println!(
        "40-job batch (default rig, shared inputs), best of 3: --jobs 1 {:.2} s, --jobs 2 {:.2} s: {:.2}x faster (target >= 1.7x)",
        one,
        two,
        one / two
    );
    let peak = |args: &[&str]| -> Result<u64, String> {
        let out = Command::new("/usr/bin/time")
            .args(["-f", "%M"])
            .arg(&bin)
            .args(args)
            .output()
            .map_err(|e| format!("GNU time is needed for memory figures: {e}"))?;
        peak_kib(&String::from_utf8_lossy(&out.stderr))
    };
    let single = work.join("single.g4b");
    let convert_kib = peak(&[
        "convert",
        "--mpfb-data",
        data.to_str().unwrap_or_default(),
        "--rig-name",
        "default",
        "-o",
        single.to_str().unwrap_or_default(),
        "--quiet",
    ])?;
    let eight_kib = peak(&[
        "batch",
        eight.to_str().unwrap_or_default(),
        "--quiet",
        "--jobs",
        "2",
    ])?;
    let forty_kib = peak(&[
        "batch",
        forty.to_str().unwrap_or_default(),
        "--quiet",
        "--jobs",
        "2",
    ])?;
    println!(
        "peak memory: one convert {:.1} MiB (target < 64 MiB); batch of 8 jobs {:.1} MiB, of 40 jobs {:.1} MiB (--jobs 2)",
        convert_kib as f64 / 1024.0,
        eight_kib as f64 / 1024.0,
        forty_kib as f64 / 1024.0
    );

    // Bodies from phenotypes: random populations against the plain batch above, same run.
    let population = |n: usize| -> Result<std::path::PathBuf, String> {
        let path = work.join(format!("population{n}.json"));
        let json = serde_json::json!({
            "defaults": {"mpfb_data": data},
            "population": {
                "rig_name": "default", "count": n, "seed": 42,
                "output": format!("people{n}/{{index}}.g4b"),
                "ranges": {"gender": [0.0, 1.0], "age": [0.3, 0.9], "muscle": [0.0, 1.0],
                           "weight": [0.0, 1.0], "height": [0.0, 1.0]}
            }
        });
        std::fs::write(&path, json.to_string()).map_err(|e| e.to_string())?;
        Ok(path)
    };
    let hundred = population(100)?;
    let twenty = population(20)?;
    let one_worker = best_batch(&bin, &hundred, "1", &[])?;
    let best = best_batch(&bin, &hundred, "2", &[])?;
    // The malloc re-exec's gain on a long process (`malloc_tuning.rs`).
    let one_worker_system = best_batch(&bin, &hundred, "1", &[("MPFB2G4MF_SYSTEM_MALLOC", "1")])?;
    println!(
        "100 random bodies, best of 3: --jobs 1 {one_worker:.2} s, --jobs 2 {best:.2} s: {:.2}x faster (target >= 1.8x)",
        one_worker / best
    );
    println!(
        "100 random bodies --jobs 1 with glibc's default malloc (MPFB2G4MF_SYSTEM_MALLOC=1), best of 3: {one_worker_system:.2} s; tuned: {:.2}x its time",
        one_worker / one_worker_system
    );
    let per_body = best / 100.0;
    let per_plain = two / 40.0;
    println!(
        "100 random bodies (--jobs 2), best of 3: {best:.2} s, {:.1} ms a body vs {:.1} ms a plain convert in the 40-job batch: {:.2}x (target <= 2x)",
        per_body * 1e3,
        per_plain * 1e3,
        per_body / per_plain
    );
    let three_hundred = population(300)?;
    let mut figures = Vec::new();
    for (n, path) in [(20, &twenty), (100, &hundred), (300, &three_hundred)] {
        let kib = peak(&[
            "batch",
            path.to_str().unwrap_or_default(),
            "--quiet",
            "--jobs",
            "2",
        ])?;
        figures.push(format!("{n} bodies {:.1} MiB", kib as f64 / 1024.0));
    }
    println!(
        "peak memory of populations (--jobs 2): {}; the shared target cache is capped at 64 MiB, so memory levels off instead of growing with the bodies",
        figures.join(", ")
    );
    blend_shape_cost(&bin, &data, &work)?;
    dressed_cost(&bin, &data, &work)?;
    against_cat(&bin, &data, &work, None, 21)?;
    crate::populations::run(
        &bin,
        &data,
        &work,
        &crate::populations::Options {
            rounds: 5,
            against: None,
            only: None,
        },
    )?;
    let _ = std::fs::remove_dir_all(&work);
    Ok(())
}

/// The cost of `--face-units --visemes` on top of a plain convert: whole processes, the two
/// interleaved, 11 runs each, medians; and the bytes the 67 shapes add.
fn blend_shape_cost(bin: &Path, data: &Path, work: &Path) -> Result<(), String> {
    let plain = work.join("plain.g4b");
    let shaped = work.join("shaped.g4b");
    let plain_args = convert_args(data, &plain, &[]);
    let shaped_args = convert_args(data, &shaped, &["--face-units", "--visemes"]);
    let (mut a, mut b) = (Vec::new(), Vec::new());
    for _ in 0..11 {
        a.push(time_process(bin, &plain_args)?);
        b.push(time_process(bin, &shaped_args)?);
    }
    let (a, b) = (median(a), median(b));
    let size = |p: &Path| std::fs::metadata(p).map(|m| m.len()).unwrap_or(0);
    println!(
        "blend shapes: convert {:.1} ms, with --face-units --visemes (67 shapes) {:.1} ms (+{:.1} ms, {:.2}x); file {:.2} MiB -> {:.2} MiB (+{:.2} MiB)",
        a * 1e3,
        b * 1e3,
        (b - a) * 1e3,
        b / a,
        size(&plain) as f64 / 1048576.0,
        size(&shaped) as f64 / 1048576.0,
        (size(&shaped) as f64 - size(&plain) as f64) / 1048576.0
    );
    Ok(())
}

/// The cost of a dressed character (clothes, shoes, hair, eyebrows, eyelashes and proxy eyes)
/// against the same naked character: whole processes, interleaved, 11 runs each, medians.
fn dressed_cost(bin: &Path, data: &Path, work: &Path) -> Result<(), String> {
    let assets = test_support::makehuman_assets().ok_or("no MakeHuman assets folder")?;
    let assets = assets.to_string_lossy().into_owned();
    let naked = convert_args(data, &work.join("naked.g4b"), &[]);
    let mut flags = vec!["--assets", &assets];
    flags.extend(OUTFIT);
    let dressed = convert_args(data, &work.join("dressed.g4b"), &flags);
    let (mut a, mut b) = (Vec::new(), Vec::new());
    for _ in 0..11 {
        a.push(time_process(bin, &naked)?);
        b.push(time_process(bin, &dressed)?);
    }
    let (a, b) = (median(a), median(b));
    println!(
        "dressed character (suit, shoes, hair, eyebrows, eyelashes, proxy eyes), 11 interleaved runs, medians: naked {:.1} ms, dressed {:.1} ms = {:.2}x (target <= 2x)",
        a * 1e3,
        b * 1e3,
        b / a
    );
    Ok(())
}

/// `--expression-shapes all` against a plain convert of one body (11 interleaved runs,
/// medians), and a population of 24 bodies each drawing an expression and a pose from the
/// shipped lists against the same population plain (best of three batches each, `--jobs 2`).
fn motion_cost(bin: &Path, data: &Path, work: &Path) -> Result<(), String> {
    let assets = test_support::makehuman_assets().ok_or("no MakeHuman assets folder")?;
    let folder = assets.to_string_lossy().into_owned();
    let plain = convert_args(data, &work.join("plain.g4b"), &["--assets", &folder]);
    let shapes = convert_args(
        data,
        &work.join("shapes.g4b"),
        &["--assets", &folder, "--expression-shapes", "all"],
    );
    let (mut a, mut b) = (Vec::new(), Vec::new());
    for _ in 0..11 {
        a.push(time_process(bin, &plain)?);
        b.push(time_process(bin, &shapes)?);
    }
    let (a, b) = (median(a), median(b));
    println!(
        "--expression-shapes all (32 shapes) on one body, 11 interleaved runs, medians: plain {:.1} ms, with {:.1} ms: {:.1} ms a body, {:.2}x",
        a * 1e3,
        b * 1e3,
        (b - a) * 1e3,
        b / a
    );
    let stems = |sub: &str, extension: &str| -> Result<Vec<String>, String> {
        let mut out: Vec<String> = std::fs::read_dir(assets.join(sub))
            .map_err(|e| format!("{sub}: {e}"))?
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|e| e == extension))
            .filter_map(|p| Some(format!("\"{}\"", p.file_stem()?.to_str()?)))
            .collect();
        out.sort();
        Ok(out)
    };
    let draw = format!(
        "[population.draw]\nexpression = [{}]\npose = [{}]\n",
        stems("expressions", "mhpose")?.join(", "),
        stems("poses", "bvh")?.join(", ")
    );
    let manifest = |name: &str, extra: &str| -> Result<std::path::PathBuf, String> {
        let path = work.join(format!("{name}.toml"));
        let text = format!(
            "[defaults]\nmpfb_data = \"{}\"\nassets = \"{folder}\"\n\n[population]\nrig_name = \"default\"\ncount = 24\nseed = 5\noutput = \"{}/{name}-{{index}}.g4b\"\n[population.ranges]\ngender = [0.0, 1.0]\nweight = [0.2, 0.8]\n{extra}",
            data.display(),
            work.display()
        );
        std::fs::write(&path, text).map_err(|e| e.to_string())?;
        Ok(path)
    };
    let plain = best_batch(bin, &manifest("plain", "")?, "2", &[])?;
    let posed = best_batch(bin, &manifest("posed", &draw)?, "2", &[])?;
    println!(
        "population of 24 bodies, --jobs 2, best of 3: plain {:.0} ms, each drawing an expression and a pose {:.0} ms = {:.2}x",
        plain * 1e3,
        posed * 1e3,
        posed / plain
    );
    Ok(())
}

/// File size and convert time with embedded images (`--textures embed`, the default) against
/// factors only (`--textures none`), for a naked body (the helper eyes' painted iris) and the
/// dressed outfit (the images the assets folder has): whole processes, interleaved, 11 runs
/// each, medians.
fn texture_cost(bin: &Path, data: &Path, work: &Path) -> Result<(), String> {
    let assets = test_support::makehuman_assets().ok_or("no MakeHuman assets folder")?;
    let assets = assets.to_string_lossy().into_owned();
    let mut dressed = vec!["--assets", assets.as_str()];
    dressed.extend(OUTFIT);
    println!("| character | --textures | file size | convert (median of 11) |");
    println!("| --- | --- | --- | --- |");
    for (name, outfit) in [("naked", Vec::new()), ("dressed", dressed)] {
        let runs: Vec<(&str, Vec<String>, std::path::PathBuf)> = ["embed", "none"]
            .iter()
            .map(|mode| {
                let out = work.join(format!("{name}-{mode}.g4b"));
                let mut flags = outfit.clone();
                flags.extend(["--textures", mode]);
                (*mode, convert_args(data, &out, &flags), out)
            })
            .collect();
        let mut times = vec![Vec::new(); runs.len()];
        for _ in 0..11 {
            for (i, (_, args, _)) in runs.iter().enumerate() {
                times[i].push(time_process(bin, args)?);
            }
        }
        for ((mode, _, out), t) in runs.iter().zip(times) {
            let size = std::fs::metadata(out).map_err(|e| e.to_string())?.len();
            println!(
                "| {name} | {mode} | {size} bytes | {:.1} ms |",
                median(t) * 1e3
            );
        }
    }
    Ok(())
}

/// The outfit of the dressed benchmark and of the README's dressed pictures: a suit, shoes,
/// short hair, eyebrows and eyelashes (with MakeHuman's default eyes).
pub const OUTFIT: [&str; 10] = [
    "--clothes",
    "male_casualsuit01",
    "--clothes",
    "shoes01",
    "--hair",
    "short02",
    "--eyebrows",
    "eyebrow001",
    "--eyelashes",
    "eyelashes01",
];

/// The arguments of a quiet default convert to `out`, with `extra` flags.
pub fn convert_args(data: &Path, out: &Path, extra: &[&str]) -> Vec<String> {
    let mut args: Vec<String> = ["convert", "--rig-name", "default", "--mpfb-data"]
        .iter()
        .map(|s| (*s).to_owned())
        .collect();
    args.push(data.to_string_lossy().into_owned());
    args.extend(extra.iter().map(|s| (*s).to_owned()));
    args.extend(["-q".to_owned(), "-o".to_owned()]);
    args.push(out.to_string_lossy().into_owned());
    args
}

/// The wall time of one whole process (standard output discarded); an error if it fails.
fn time_process<S: AsRef<std::ffi::OsStr>>(program: &Path, args: &[S]) -> Result<f64, String> {
    time_process_with(program, args, &[])
}

/// [`time_process`] with extra environment variables.
fn time_process_with<S: AsRef<std::ffi::OsStr>>(
    program: &Path,
    args: &[S],
    env: &[(&str, &str)],
) -> Result<f64, String> {
    let started = std::time::Instant::now();
    let status = Command::new(program)
        .args(args)
        .envs(env.iter().copied())
        .stdout(std::process::Stdio::null())
        .status()
        .map_err(|e| e.to_string())?;
    if !status.success() {
        return Err(format!(
            "{} {:?} failed",
            program.display(),
            args.iter()
                .map(|a| a.as_ref().to_owned())
                .collect::<Vec<_>>()
        ));
    }
    Ok(started.elapsed().as_secs_f64())
}

/// The best wall time of three `batch MANIFEST --quiet --jobs JOBS` runs, with `env` set.
fn best_batch(
    bin: &Path,
    manifest: &Path,
    jobs: &str,
    env: &[(&str, &str)],
) -> Result<f64, String> {
    let args = [
        "batch",
        manifest.to_str().unwrap_or_default(),
        "--quiet",
        "--jobs",
        jobs,
    ];
    let mut best = f64::INFINITY;
    for _ in 0..3 {
        best = best.min(time_process_with(bin, &args, env)?);
    }
    Ok(best)
}

/// Whole processes, interleaved, `rounds` rounds, medians: `cat` of a convert's three
/// inputs, the default convert, a body from a phenotype, and a character with face units and
/// visemes; each convert's ratio to `cat` (issue 18's measure: what a conversion costs over
/// reading its inputs). With `other`, that binary's default convert runs in the same rounds
/// (a before-and-after of one change, free of the machine's drift between runs).
fn against_cat(
    bin: &Path,
    data: &Path,
    work: &Path,
    other: Option<&Path>,
    rounds: usize,
) -> Result<(), String> {
    let inputs = [
        data.join("rigs/standard/rig.default.json"),
        data.join("rigs/standard/weights.default.json"),
        data.join("3dobjs/base.obj"),
    ];
    let out = work.join("against-cat.g4b");
    let plain = convert_args(data, &out, &[]);
    let body = convert_args(
        data,
        &out,
        &["--phenotype", "gender=0.8,age=0.6,weight=0.7,height=0.8"],
    );
    let face = convert_args(data, &out, &["--face-units", "--visemes"]);
    // The malloc re-exec's cost and gain (`malloc_tuning.rs`): start-up alone, and the convert
    // with glibc's default settings, in the same rounds.
    let system_malloc = [("MPFB2G4MF_SYSTEM_MALLOC", "1")];
    let mut samples: [Vec<f64>; 8] = Default::default();
    for _ in 0..rounds.max(1) {
        samples[0].push(time_process(Path::new("cat"), &inputs)?);
        samples[1].push(time_process(bin, &plain)?);
        samples[2].push(time_process(bin, &body)?);
        samples[3].push(time_process(bin, &face)?);
        if let Some(other) = other {
            samples[4].push(time_process(other, &plain)?);
        }
        samples[5].push(time_process(bin, &["--version"])?);
        samples[6].push(time_process_with(bin, &["--version"], &system_malloc)?);
        samples[7].push(time_process_with(bin, &plain, &system_malloc)?);
    }
    let [
        cat,
        plain,
        body,
        face,
        before,
        start,
        start_system,
        plain_system,
    ] = samples.map(median);
    println!(
        "against cat (whole processes, {rounds} interleaved rounds, medians): cat of the inputs {:.1} ms; convert {:.1} ms = {:.1}x cat (target <= 4x); phenotype body {:.1} ms = {:.2}x the convert (target <= 2x); with face units and visemes {:.1} ms = {:.1}x cat",
        cat * 1e3,
        plain * 1e3,
        plain / cat,
        body * 1e3,
        body / plain,
        face * 1e3,
        face / cat
    );
    if let Some(other) = other {
        println!(
            "against {} in the same rounds: its convert {:.1} ms = {:.1}x cat; this build's {:.1} ms is {:.2}x its time",
            other.display(),
            before * 1e3,
            before / cat,
            plain * 1e3,
            plain / before
        );
    }
    println!(
        "malloc tuning in the same rounds: `--version` {:.1} ms (with the re-exec) against {:.1} ms (MPFB2G4MF_SYSTEM_MALLOC=1); the convert {:.1} ms against {:.1} ms with glibc's defaults ({:.2}x)",
        start * 1e3,
        start_system * 1e3,
        plain * 1e3,
        plain_system * 1e3,
        plain / plain_system
    );
    Ok(())
}

/// `(benchmark id, median nanoseconds)` for every benchmark criterion has results for.
fn collect_medians(root: &Path) -> Result<Vec<(String, f64)>, String> {
    let mut out = Vec::new();
    let Ok(entries) = std::fs::read_dir(root) else {
        return Ok(out);
    };
    for entry in entries.flatten() {
        let new = entry.path().join("new");
        let (Ok(estimates), Ok(id)) = (
            std::fs::read_to_string(new.join("estimates.json")),
            std::fs::read_to_string(new.join("benchmark.json")),
        ) else {
            continue;
        };
        let estimates: Value = serde_json::from_str(&estimates).map_err(|e| e.to_string())?;
        let id: Value = serde_json::from_str(&id).map_err(|e| e.to_string())?;
        if let (Some(median), Some(name)) = (
            estimates["median"]["point_estimate"].as_f64(),
            id["full_id"].as_str(),
        ) {
            out.push((name.to_owned(), median));
        }
    }
    out.sort_by(|a, b| a.0.cmp(&b.0));
    Ok(out)
}

fn format_time(nanos: f64) -> String {
    if nanos >= 1e6 {
        format!("{:.2} ms", nanos / 1e6)
    } else {
        format!("{:.1} µs", nanos / 1e3)
    }
}
