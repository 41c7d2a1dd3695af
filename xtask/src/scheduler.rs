//! `cargo xtask scheduler`: docs/batch.md's Slurm array run for real on a one-node cluster (munge,
//! slurmctld and slurmd started here, on this machine, in a private folder and ports), checked
//! against one process running the whole manifest: byte-identical outputs, a shard killed with
//! SIGKILL and one stopped with SIGTERM midway that resume with `--skip-existing`, and no output
//! written twice (each job `ok` in exactly one shard's report, every output kept by a resumed or
//! repeated run keeps its inode and modification time).

use std::collections::{BTreeMap, BTreeSet};
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

/// Shards of the array (`--array=0-2`).
const SHARDS: usize = 3;
/// Bodies in the manifest's population (with the cross product's six jobs: six per shard).
const BODIES: usize = 12;
/// The folder the manifest's outputs go to, beside it.
const OUTPUTS: &str = "out";
/// How long a shard may take to write its first output, or the array to drain.
const PATIENCE: Duration = Duration::from_secs(600);

/// The first line of docs/batch.md's Slurm script, which this check runs.
const SCRIPT_START: &str = "#!/bin/sh\n#SBATCH --job-name=people\n";
/// The guide's script's shard count, replaced by [`SHARDS`].
const GUIDE_SHARDS: &str = "\nSHARDS=16\n";

/// docs/batch.md's Slurm array script, its shard count set to `shards` (the array's range and
/// CPUs per task are given to `sbatch`, whose options override the script's).
fn array_script(readme: &str, shards: usize) -> Result<String, String> {
    let start = readme
        .find(SCRIPT_START)
        .ok_or("docs/batch.md: no Slurm script starting `#!/bin/sh` `#SBATCH --job-name=people`")?;
    let script = &readme[start..];
    let script = &script[..script
        .find("```")
        .ok_or("docs/batch.md: the Slurm script's block never ends")?];
    if !script.contains(GUIDE_SHARDS) || !script.contains("mpfb2g4mf batch jobs.toml ") {
        return Err(
            "docs/batch.md: the Slurm script lost `SHARDS=16` or `mpfb2g4mf batch jobs.toml`"
                .into(),
        );
    }
    Ok(script.replace(GUIDE_SHARDS, &format!("\nSHARDS={shards}\n")))
}

/// The manifest, `jobs.toml`: a cross product of two rigs and three formats (a `.g4tf` with
/// its external buffer among them) and a population, written under [`OUTPUTS`].
fn manifest(data: &Path) -> String {
    // A JSON string is a TOML basic string for any path the data can have.
    let data = serde_json::Value::from(data.display().to_string());
    format!(
        "[defaults]\nmpfb_data = {data}\n\n\
         [cross]\nrigs = [\"default\", \"game_engine\"]\nformats = [\"g4b\", \"glb\", \"g4tf\"]\n\
         output = \"{OUTPUTS}/{{rig}}/{{mesh}}.{{format}}\"\n\n\
         [population]\nrig_name = \"default\"\ncount = {BODIES}\nseed = 41\n\
         output = \"{OUTPUTS}/people/{{index}}.g4b\"\n\n\
         [population.ranges]\ngender = [0.0, 1.0]\nage = [0.3, 0.9]\nweight = [0.0, 1.0]\n"
    )
}

/// Runs the scheduler check; every check is printed, and any failure makes it an error.
pub fn run(args: &[String]) -> Result<(), String> {
    if let Some(arg) = args.first() {
        return Err(format!("scheduler: unknown argument `{arg}`"));
    }
    let binary = crate::bench::release_binary()?;
    let data = crate::bench::absolute_data()?;
    let work = tempfile::Builder::new()
        .prefix("mpfb2g4mf-scheduler-")
        .tempdir()
        .map_err(|e| e.to_string())?;
    let cluster = Cluster::start(work.path(), &binary)?;
    println!("$ sinfo\n{}", cluster.output("sinfo", &[])?.trim_end());
    let mut checks = Checks::default();
    let outcome = run_checks(&binary, &data, work.path(), &cluster, &mut checks);
    drop(cluster);
    outcome?;
    checks.verdict()
}

/// The whole run: the reference, the interrupted array, its resumption, a repeated run.
fn run_checks(
    binary: &Path,
    data: &Path,
    work: &Path,
    cluster: &Cluster,
    checks: &mut Checks,
) -> Result<(), String> {
    let one = work.join("one");
    let array = work.join("array");
    let manifest = manifest(data);
    for folder in [&one, &array] {
        std::fs::create_dir_all(folder).map_err(|e| e.to_string())?;
        std::fs::write(folder.join("jobs.toml"), &manifest).map_err(|e| e.to_string())?;
    }
    let readme = test_support::workspace_root().join("docs/batch.md");
    let readme =
        std::fs::read_to_string(&readme).map_err(|e| format!("{}: {e}", readme.display()))?;
    let script_text = array_script(&readme, SHARDS)?;
    let started = Instant::now();
    let status = Command::new(binary)
        .args(["batch", "jobs.toml", "--jobs", "1", "--quiet", "--report"])
        .arg("report.json")
        .current_dir(&one)
        .status()
        .map_err(|e| e.to_string())?;
    let reference = read_report(&one.join("report.json"))?;
    let jobs = reference.len();
    println!(
        "\none process, the whole manifest: {jobs} jobs in {:.1} s",
        started.elapsed().as_secs_f64()
    );
    checks.check(
        "the one process wrote every job",
        status.success() && all_ok(&reference),
    );
    let outputs_of = |shard: usize| -> Vec<PathBuf> {
        reference
            .values()
            .filter(|r| r.index % SHARDS == shard)
            .map(|r| array.join(&r.output))
            .collect()
    };

    let script = array.join("people.sh");
    std::fs::write(&script, &script_text).map_err(|e| e.to_string())?;
    println!(
        "\n$ cat people.sh   # docs/batch.md's, with SHARDS={SHARDS}\n{}",
        script_text.trim_end()
    );
    let array_range = format!("--array=0-{}", SHARDS - 1);
    println!("$ sbatch {array_range} --cpus-per-task=1 people.sh");
    let id = cluster.submit(&array, &[&array_range], &script)?;
    let mut interrupted = BTreeMap::new();
    for (shard, signal) in [(1, "KILL"), (2, "TERM")] {
        let (written, of) = cluster.wait_for_a_first_output(&outputs_of(shard))?;
        println!("$ scancel --signal={signal} --full {id}_{shard}   # {written} of {of} written");
        cluster.output(
            "scancel",
            &[
                &format!("--signal={signal}"),
                "--full",
                &format!("{id}_{shard}"),
            ],
        )?;
        interrupted.insert(shard, signal);
    }
    cluster.wait_until_done(&id)?;
    let states = cluster.output(
        "sacct",
        &["-n", "-X", "-P", "-j", &id, "--format=JobID,State,ExitCode"],
    );
    if let Ok(states) = states {
        println!("{}", states.trim_end());
    }

    let outputs = array.join(OUTPUTS);
    let before = snapshot(&outputs)?;
    for (shard, signal) in &interrupted {
        let all = outputs_of(*shard);
        let present = all.iter().filter(|p| before.files.contains_key(*p)).count();
        println!(
            "shard {shard} (SIG{signal}): {present} of {} outputs written",
            all.len()
        );
        checks.check(
            &format!("shard {shard} was stopped midway by SIG{signal}"),
            present > 0 && present < all.len(),
        );
    }
    let partial = differing_present(&one.join(OUTPUTS), &outputs, &before)?;
    checks.check(
        "every output present after the interruption equals the reference's (no partial file)",
        partial.is_empty(),
    );
    for path in &partial {
        println!("  differs: {}", path.display());
    }
    println!(
        "temporary files left by the interrupted shards: {}",
        before.temporaries.len()
    );

    let resume: Vec<String> = interrupted.keys().map(usize::to_string).collect();
    let resume = resume.join(",");
    println!(
        "$ sbatch --wait --array={resume} --cpus-per-task=1 people.sh   # the interrupted shards again"
    );
    let resumed = cluster.submit(&array, &["--wait", &format!("--array={resume}")], &script);
    checks.check("the resubmitted shards exited 0", resumed.is_ok());
    let after = snapshot(&outputs)?;
    checks.check_all(
        "outputs written before the interruption were not written again (inode, mtime, size)",
        &rewritten(&before, &after),
    );
    let reports: Vec<BTreeMap<usize, Record>> = (0..SHARDS)
        .map(|shard| read_report(&array.join(format!("report-{shard}.json"))))
        .collect::<Result<_, _>>()?;
    let done_before: BTreeSet<PathBuf> = before
        .files
        .keys()
        .filter_map(|p| p.strip_prefix(&array).ok().map(Path::to_path_buf))
        .collect();
    // A shard that was not run again reports its first run, before which nothing existed.
    let existed: Vec<BTreeSet<PathBuf>> = (0..SHARDS)
        .map(|shard| {
            if interrupted.contains_key(&shard) {
                done_before.clone()
            } else {
                BTreeSet::new()
            }
        })
        .collect();
    checks.check_all(
        "each job is `ok` in exactly one shard's last report, `skipped` where its output existed",
        &report_problems(&reports, jobs, SHARDS, &existed),
    );
    let differences = compare_trees(&one.join(OUTPUTS), &outputs)?;
    checks.check_all(
        "the array's outputs are byte-identical to the one process's",
        &differences,
    );

    let status = Command::new(binary)
        .args([
            "batch",
            "jobs.toml",
            "--quiet",
            "--skip-existing",
            "--report",
        ])
        .arg("again.json")
        .current_dir(&array)
        .status()
        .map_err(|e| e.to_string())?;
    let again = read_report(&array.join("again.json"))?;
    let last = snapshot(&outputs)?;
    println!("$ mpfb2g4mf batch jobs.toml --skip-existing   # the whole manifest once more");
    checks.check(
        "a repeated run skips every job and rewrites nothing",
        status.success()
            && again.len() == jobs
            && again.values().all(|r| r.status == "skipped")
            && rewritten(&after, &last).is_empty(),
    );
    println!(
        "temporary files left after the resumption: {} (a later batch removes them once older than an hour)",
        last.temporaries.len()
    );
    Ok(())
}

/// The checks' results, printed as they come.
#[derive(Default)]
struct Checks {
    failed: Vec<String>,
}

impl Checks {
    fn check(&mut self, what: &str, passed: bool) {
        println!("{} {what}", if passed { "ok  " } else { "FAIL" });
        if !passed {
            self.failed.push(what.to_owned());
        }
    }

    /// A check that passes when `problems` is empty, each problem printed under it.
    fn check_all(&mut self, what: &str, problems: &[String]) {
        self.check(what, problems.is_empty());
        for problem in problems {
            println!("     {problem}");
        }
    }

    fn verdict(&self) -> Result<(), String> {
        if self.failed.is_empty() {
            println!("\nall checks passed");
            Ok(())
        } else {
            Err(format!(
                "{} check(s) failed: {}",
                self.failed.len(),
                self.failed.join("; ")
            ))
        }
    }
}

/// One record of a batch report: what the checks need of it.
#[derive(Debug, Clone, PartialEq)]
struct Record {
    index: usize,
    output: PathBuf,
    status: String,
}

/// A batch report's records by job index.
fn read_report(path: &Path) -> Result<BTreeMap<usize, Record>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    parse_report(&text).map_err(|e| format!("{}: {e}", path.display()))
}

/// [`read_report`] of the report's text; a job index reported twice is an error.
fn parse_report(text: &str) -> Result<BTreeMap<usize, Record>, String> {
    let json: serde_json::Value = serde_json::from_str(text).map_err(|e| e.to_string())?;
    let mut records = BTreeMap::new();
    for (at, value) in json.as_array().ok_or("not an array")?.iter().enumerate() {
        let field = |name: &str| value.get(name).ok_or(format!("record {at}: no `{name}`"));
        let index = field("index")?
            .as_u64()
            .and_then(|i| usize::try_from(i).ok())
            .ok_or(format!("record {at}: `index` is not an index"))?;
        let text_of = |name: &str| {
            field(name)?
                .as_str()
                .map(str::to_owned)
                .ok_or(format!("record {at}: `{name}` is not a string"))
        };
        let record = Record {
            index,
            output: PathBuf::from(text_of("output")?),
            status: text_of("status")?,
        };
        if records.insert(index, record).is_some() {
            return Err(format!("job {index} is reported twice"));
        }
    }
    Ok(records)
}

fn all_ok(records: &BTreeMap<usize, Record>) -> bool {
    !records.is_empty() && records.values().all(|r| r.status == "ok")
}

/// What is wrong with the shards' last reports (one per shard, in order) of a manifest of
/// `jobs` jobs, given for each shard the outputs (relative, as reported) that existed before
/// its last run:
/// a job in no report, in two, in the wrong shard, not `ok` or `skipped`, skipped without an
/// output or written over one.
fn report_problems(
    reports: &[BTreeMap<usize, Record>],
    jobs: usize,
    shards: usize,
    existed: &[BTreeSet<PathBuf>],
) -> Vec<String> {
    let mut problems = Vec::new();
    let mut seen = BTreeMap::new();
    for (shard, report) in reports.iter().enumerate() {
        for record in report.values() {
            let index = record.index;
            if let Some(other) = seen.insert(index, shard) {
                problems.push(format!(
                    "job {index} is in shard {other}'s and shard {shard}'s reports"
                ));
            }
            if index % shards != shard {
                problems.push(format!("job {index} ran in shard {shard}"));
            }
            let existed = existed
                .get(shard)
                .is_some_and(|e| e.contains(&record.output));
            let expected = if existed { "skipped" } else { "ok" };
            if record.status != expected {
                problems.push(format!(
                    "job {index} ({}): {} where {expected} was due",
                    record.output.display(),
                    record.status
                ));
            }
        }
    }
    problems.extend(
        (0..jobs)
            .filter(|i| !seen.contains_key(i))
            .map(|i| format!("job {i} is in no report")),
    );
    problems.extend(
        seen.keys()
            .filter(|i| **i >= jobs)
            .map(|i| format!("job {i} is not in the manifest")),
    );
    problems
}

/// The identity of a written file: a rename into place gives it a new inode and time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Identity {
    inode: u64,
    modified_nanos: i128,
    size: u64,
}

/// The files under a folder: outputs with their identity, and our temporary files apart.
#[derive(Debug, Default)]
struct Snapshot {
    files: BTreeMap<PathBuf, Identity>,
    temporaries: Vec<PathBuf>,
}

fn is_temporary(path: &Path) -> bool {
    path.file_name()
        .map(|n| n.to_string_lossy())
        .is_some_and(|n| {
            n.starts_with(mpfb2g4mf::files::TEMP_PREFIX)
                && n.ends_with(mpfb2g4mf::files::TEMP_SUFFIX)
        })
}

/// Every file under `folder` (none when it does not exist).
fn snapshot(folder: &Path) -> Result<Snapshot, String> {
    let mut snapshot = Snapshot::default();
    for path in files_under(folder)? {
        if is_temporary(&path) {
            snapshot.temporaries.push(path);
            continue;
        }
        let meta = std::fs::metadata(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        let identity = Identity {
            inode: meta.ino(),
            modified_nanos: i128::from(meta.mtime()) * 1_000_000_000
                + i128::from(meta.mtime_nsec()),
            size: meta.len(),
        };
        snapshot.files.insert(path, identity);
    }
    Ok(snapshot)
}

/// The files under `folder`, recursively, sorted; none when it does not exist.
fn files_under(folder: &Path) -> Result<Vec<PathBuf>, String> {
    let mut files = Vec::new();
    let mut pending = vec![folder.to_path_buf()];
    while let Some(dir) = pending.pop() {
        let entries = match std::fs::read_dir(&dir) {
            Ok(entries) => entries,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
            Err(e) => return Err(format!("{}: {e}", dir.display())),
        };
        for entry in entries {
            let path = entry.map_err(|e| e.to_string())?.path();
            if path.is_dir() {
                pending.push(path);
            } else {
                files.push(path);
            }
        }
    }
    files.sort();
    Ok(files)
}

/// The files of `before` that `after` lacks or holds as another file (rewritten).
fn rewritten(before: &Snapshot, after: &Snapshot) -> Vec<String> {
    before
        .files
        .iter()
        .filter_map(|(path, identity)| match after.files.get(path) {
            None => Some(format!("{}: gone", path.display())),
            Some(now) if now != identity => Some(format!("{}: written again", path.display())),
            Some(_) => None,
        })
        .collect()
}

/// The outputs of `snapshot` (under `actual`) whose bytes differ from the same file under
/// `expected`, or which `expected` lacks.
fn differing_present(
    expected: &Path,
    actual: &Path,
    snapshot: &Snapshot,
) -> Result<Vec<PathBuf>, String> {
    let mut differing = Vec::new();
    for path in snapshot.files.keys() {
        let relative = path.strip_prefix(actual).map_err(|e| e.to_string())?;
        let reference = std::fs::read(expected.join(relative)).ok();
        let bytes = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
        if reference.as_deref() != Some(bytes.as_slice()) {
            differing.push(relative.to_path_buf());
        }
    }
    Ok(differing)
}

/// How the files under `actual` differ from those under `expected` (temporary files aside):
/// missing, extra, or other bytes; empty when the trees are byte-identical.
fn compare_trees(expected: &Path, actual: &Path) -> Result<Vec<String>, String> {
    let relative = |root: &Path| -> Result<BTreeSet<PathBuf>, String> {
        Ok(files_under(root)?
            .into_iter()
            .filter(|p| !is_temporary(p))
            .filter_map(|p| p.strip_prefix(root).ok().map(Path::to_path_buf))
            .collect())
    };
    let (wanted, got) = (relative(expected)?, relative(actual)?);
    let mut differences: Vec<String> = wanted
        .difference(&got)
        .map(|p| format!("{}: missing", p.display()))
        .collect();
    differences.extend(
        got.difference(&wanted)
            .map(|p| format!("{}: extra", p.display())),
    );
    for path in wanted.intersection(&got) {
        let read = |root: &Path| {
            std::fs::read(root.join(path)).map_err(|e| format!("{}: {e}", path.display()))
        };
        if read(expected)? != read(actual)? {
            differences.push(format!("{}: different bytes", path.display()));
        }
    }
    if wanted.is_empty() {
        differences.push(format!("{}: no outputs to compare", expected.display()));
    }
    Ok(differences)
}

/// A one-node Slurm cluster of this machine, in a private folder with its own munge socket
/// and ports; its daemons are stopped when it is dropped.
struct Cluster {
    folder: PathBuf,
    config: PathBuf,
    /// `PATH` for Slurm's commands (and so the jobs): the tested binary's folder first.
    path: std::ffi::OsString,
}

impl Cluster {
    /// Starts munged, slurmctld and slurmd and waits for the node to be idle.
    fn start(work: &Path, binary: &Path) -> Result<Self, String> {
        for tool in ["munged", "slurmctld", "slurmd", "sbatch"] {
            if !Command::new("sh")
                .args(["-c", &format!("command -v {tool}")])
                .stdout(std::process::Stdio::null())
                .status()
                .is_ok_and(|s| s.success())
            {
                return Err(format!("no `{tool}`: apt-get install slurm-wlm munge"));
            }
        }
        let folder = work.join("slurm");
        for sub in ["munge", "state", "spool", "log"] {
            std::fs::create_dir_all(folder.join(sub)).map_err(|e| e.to_string())?;
        }
        let munge = folder.join("munge");
        std::fs::write(munge.join("munge.key"), munge_key()?).map_err(|e| e.to_string())?;
        run_quietly(Command::new("chmod").arg("700").arg(&munge))?;
        run_quietly(
            Command::new("chmod")
                .arg("600")
                .arg(munge.join("munge.key")),
        )?;
        let config = folder.join("slurm.conf");
        let cpus = std::thread::available_parallelism().map_or(1, usize::from);
        let ports = [free_port()?, free_port()?];
        std::fs::write(&config, slurm_conf(&folder, cpus, ports)).map_err(|e| e.to_string())?;
        // The script calls `mpfb2g4mf`: the build under test comes first on the PATH that
        // sbatch hands its jobs.
        let mut path = vec![binary.parent().unwrap_or(Path::new(".")).to_path_buf()];
        path.extend(std::env::split_paths(
            &std::env::var_os("PATH").unwrap_or_default(),
        ));
        let path = std::env::join_paths(path).map_err(|e| e.to_string())?;
        let cluster = Cluster {
            folder,
            config,
            path,
        };
        run_quietly(
            Command::new("munged")
                .arg("--force")
                .arg(format!("--socket={}", munge.join("munge.sock").display()))
                .arg(format!("--key-file={}", munge.join("munge.key").display()))
                .arg(format!("--log-file={}", munge.join("munged.log").display()))
                .arg(format!("--pid-file={}", munge.join("munged.pid").display()))
                .arg(format!(
                    "--seed-file={}",
                    munge.join("munged.seed").display()
                )),
        )?;
        run_quietly(cluster.command("slurmctld").arg("-i"))?;
        run_quietly(cluster.command("slurmd").args(["-N", "localhost"]))?;
        let started = Instant::now();
        while !cluster
            .output("sinfo", &["-h", "-o", "%t"])?
            .contains("idle")
        {
            if started.elapsed() > Duration::from_secs(60) {
                return Err(format!(
                    "the node never became idle; see {}",
                    cluster.folder.join("log").display()
                ));
            }
            std::thread::sleep(Duration::from_millis(200));
        }
        Ok(cluster)
    }

    /// A Slurm command talking to this cluster.
    fn command(&self, program: &str) -> Command {
        let mut command = Command::new(program);
        command
            .env("SLURM_CONF", &self.config)
            .env("PATH", &self.path);
        command
    }

    /// The standard output of a Slurm command, or its standard error as the error.
    fn output(&self, program: &str, args: &[&str]) -> Result<String, String> {
        let out = self
            .command(program)
            .args(args)
            .output()
            .map_err(|e| format!("{program}: {e}"))?;
        if out.status.success() {
            Ok(String::from_utf8_lossy(&out.stdout).into_owned())
        } else {
            Err(format!(
                "{program} {}: {}",
                args.join(" "),
                String::from_utf8_lossy(&out.stderr).trim()
            ))
        }
    }

    /// Submits `script` from `folder` with `options`; returns the job id.
    fn submit(&self, folder: &Path, options: &[&str], script: &Path) -> Result<String, String> {
        let mut args = vec!["--parsable", "--cpus-per-task=1", "--chdir"];
        let folder = folder.display().to_string();
        args.push(&folder);
        args.extend_from_slice(options);
        let script = script.display().to_string();
        args.push(&script);
        Ok(self.output("sbatch", &args)?.trim().to_owned())
    }

    /// Waits until at least one of `outputs` exists; fails when all do (too late to stop the
    /// shard midway). Returns how many exist, of how many.
    fn wait_for_a_first_output(&self, outputs: &[PathBuf]) -> Result<(usize, usize), String> {
        let started = Instant::now();
        loop {
            let written = outputs.iter().filter(|p| p.is_file()).count();
            if written == outputs.len() {
                return Err("a shard finished before it could be stopped midway".into());
            }
            if written > 0 {
                return Ok((written, outputs.len()));
            }
            if started.elapsed() > PATIENCE {
                return Err("a shard wrote nothing in ten minutes".into());
            }
            std::thread::sleep(Duration::from_millis(5));
        }
    }

    /// Waits until no task of job `id` is queued or running.
    fn wait_until_done(&self, id: &str) -> Result<(), String> {
        let started = Instant::now();
        while !self.output("squeue", &["-h", "-j", id])?.trim().is_empty() {
            if started.elapsed() > PATIENCE {
                return Err(format!("job {id} still runs after ten minutes"));
            }
            std::thread::sleep(Duration::from_millis(200));
        }
        Ok(())
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        for pid_file in ["slurmd.pid", "slurmctld.pid", "munge/munged.pid"] {
            if let Ok(pid) = std::fs::read_to_string(self.folder.join(pid_file)) {
                let _ = Command::new("kill").arg(pid.trim()).status();
            }
        }
    }
}

/// The cluster's configuration: one node, `localhost`, with `cpus` CPUs; controller and node
/// daemon on `ports`; everything kept under `folder`.
fn slurm_conf(folder: &Path, cpus: usize, ports: [u16; 2]) -> String {
    let at = |name: &str| folder.join(name).display().to_string();
    format!(
        "ClusterName=mpfb2g4mf\nSlurmctldHost=localhost\nSlurmUser=root\nSlurmdUser=root\n\
         AuthType=auth/munge\nAuthInfo=socket={munge}\nCredType=cred/munge\n\
         SlurmctldPort={}\nSlurmdPort={}\nStateSaveLocation={}\nSlurmdSpoolDir={}\n\
         SlurmctldPidFile={}\nSlurmdPidFile={}\nSlurmctldLogFile={}\nSlurmdLogFile={}\n\
         ProctrackType=proctrack/linuxproc\nTaskPlugin=task/none\nSelectType=select/cons_tres\n\
         SelectTypeParameters=CR_CPU\nReturnToService=2\nMpiDefault=none\n\
         JobAcctGatherType=jobacct_gather/none\n\
         NodeName=localhost CPUs={cpus} State=UNKNOWN\n\
         PartitionName=debug Nodes=localhost Default=YES MaxTime=INFINITE State=UP\n",
        ports[0],
        ports[1],
        at("state"),
        at("spool"),
        at("slurmctld.pid"),
        at("slurmd.pid"),
        at("log/slurmctld.log"),
        at("log/slurmd.log"),
        munge = at("munge/munge.sock"),
    )
}

/// A TCP port nobody listens on now.
fn free_port() -> Result<u16, String> {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").map_err(|e| e.to_string())?;
    listener
        .local_addr()
        .map(|a| a.port())
        .map_err(|e| e.to_string())
}

/// A fresh munge key: it only has to be private to this run's cluster.
fn munge_key() -> Result<Vec<u8>, String> {
    use std::io::Read;
    let mut key = Vec::new();
    std::fs::File::open("/dev/urandom")
        .and_then(|f| f.take(1024).read_to_end(&mut key))
        .map_err(|e| format!("/dev/urandom: {e}"))?;
    Ok(key)
}

fn run_quietly(command: &mut Command) -> Result<(), String> {
    let out = command.output().map_err(|e| format!("{command:?}: {e}"))?;
    if out.status.success() {
        Ok(())
    } else {
        Err(format!(
            "{command:?}: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(index: usize, output: &str, status: &str) -> Record {
        Record {
            index,
            output: PathBuf::from(output),
            status: status.to_owned(),
        }
    }

    fn report(records: &[Record]) -> BTreeMap<usize, Record> {
        records.iter().map(|r| (r.index, r.clone())).collect()
    }

    #[test]
    fn reports_are_read_and_a_job_reported_twice_is_refused() {
        let text = r#"[{"index": 1, "output": "out/a.g4b", "status": "ok", "bytes": 3},
                       {"index": 4, "output": "out/b.g4b", "status": "skipped"}]"#;
        let records = parse_report(text).unwrap();
        assert_eq!(records[&1], record(1, "out/a.g4b", "ok"));
        assert_eq!(records[&4].status, "skipped");
        let twice = r#"[{"index": 1, "output": "a", "status": "ok"},
                        {"index": 1, "output": "a", "status": "ok"}]"#;
        assert!(parse_report(twice).unwrap_err().contains("twice"));
        assert!(
            parse_report(r#"[{"index": 1, "status": "ok"}]"#)
                .unwrap_err()
                .contains("output")
        );
    }

    #[test]
    fn reports_of_a_resumed_array_are_checked_job_by_job() {
        let existed = [BTreeSet::new(), [PathBuf::from("o/1")].into()];
        let good = [
            report(&[record(0, "o/0", "ok"), record(2, "o/2", "ok")]),
            report(&[record(1, "o/1", "skipped"), record(3, "o/3", "ok")]),
        ];
        assert!(report_problems(&good, 4, 2, &existed).is_empty());
        // Written again over an output an earlier run had written.
        let again = [
            good[0].clone(),
            report(&[record(1, "o/1", "ok"), record(3, "o/3", "ok")]),
        ];
        assert_eq!(report_problems(&again, 4, 2, &existed).len(), 1);
        // A job missing, one in the wrong shard, one failed.
        let bad = [
            report(&[record(0, "o/0", "ok"), record(3, "o/3", "failed")]),
            report(&[record(1, "o/1", "skipped")]),
        ];
        let problems = report_problems(&bad, 4, 2, &existed);
        assert!(
            problems.iter().any(|p| p.contains("job 2 is in no report")),
            "{problems:?}"
        );
        assert!(
            problems.iter().any(|p| p.contains("job 3 ran in shard 0")),
            "{problems:?}"
        );
        assert!(
            problems.iter().any(|p| p.contains("failed where ok")),
            "{problems:?}"
        );
        // One job in two reports.
        let twice = [
            good[0].clone(),
            report(&[
                record(1, "o/1", "skipped"),
                record(2, "o/2", "ok"),
                record(3, "o/3", "ok"),
            ]),
        ];
        assert!(
            report_problems(&twice, 4, 2, &existed)
                .iter()
                .any(|p| p.contains("shard 0's and shard 1's"))
        );
    }

    #[test]
    fn trees_compare_byte_for_byte_and_ignore_temporary_files() {
        let dir = tempfile::tempdir().unwrap();
        let (a, b) = (dir.path().join("a"), dir.path().join("b"));
        for root in [&a, &b] {
            std::fs::create_dir_all(root.join("x")).unwrap();
            std::fs::write(root.join("x/1.g4b"), b"same").unwrap();
        }
        std::fs::write(b.join("x/.mpfb2g4mf-abc.part"), b"half").unwrap();
        assert!(compare_trees(&a, &b).unwrap().is_empty());
        std::fs::write(b.join("x/1.g4b"), b"othr").unwrap();
        std::fs::write(b.join("2.g4b"), b"new").unwrap();
        std::fs::write(a.join("3.g4b"), b"old").unwrap();
        let differences = compare_trees(&a, &b).unwrap();
        assert_eq!(
            differences,
            ["3.g4b: missing", "2.g4b: extra", "x/1.g4b: different bytes"]
        );
        let empty = dir.path().join("none");
        assert!(
            !compare_trees(&empty, &empty).unwrap().is_empty(),
            "nothing to compare passes nothing"
        );
    }

    #[test]
    fn a_file_renamed_into_place_again_counts_as_rewritten() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("1.g4b");
        std::fs::write(&path, b"body").unwrap();
        let before = snapshot(dir.path()).unwrap();
        assert!(rewritten(&before, &snapshot(dir.path()).unwrap()).is_empty());
        // What an atomic rewrite does: the same bytes, a new file renamed over the old.
        let temp = dir.path().join(".mpfb2g4mf-x.part");
        std::fs::write(&temp, b"body").unwrap();
        let after_temp = snapshot(dir.path()).unwrap();
        assert_eq!(after_temp.temporaries, std::slice::from_ref(&temp));
        std::fs::rename(&temp, &path).unwrap();
        assert_eq!(rewritten(&before, &snapshot(dir.path()).unwrap()).len(), 1);
        std::fs::remove_file(&path).unwrap();
        assert!(rewritten(&before, &snapshot(dir.path()).unwrap())[0].ends_with("gone"));
    }

    #[test]
    fn the_configuration_keeps_the_cluster_in_its_folder() {
        let conf = slurm_conf(Path::new("/w/slurm"), 2, [7001, 7002]);
        assert!(conf.contains("AuthInfo=socket=/w/slurm/munge/munge.sock\n"));
        assert!(conf.contains("SlurmctldPort=7001\nSlurmdPort=7002\n"));
        assert!(conf.contains("NodeName=localhost CPUs=2 "));
        assert!(conf.contains("StateSaveLocation=/w/slurm/state\n"));
        let readme =
            std::fs::read_to_string(test_support::workspace_root().join("docs/batch.md")).unwrap();
        let script = array_script(&readme, 3).unwrap();
        assert!(script.contains("\nSHARDS=3\n") && !script.contains("SHARDS=16"));
        assert!(script.contains(r#"--shard "$SLURM_ARRAY_TASK_ID/$SHARDS" --skip-existing"#));
        let changed = readme.replace("SHARDS=16", "SHARDS=$SLURM_ARRAY_TASK_COUNT");
        assert!(array_script(&changed, 3).is_err());
        let manifest = manifest(Path::new("/data/mpfb \"x\""));
        assert!(manifest.contains(r#"mpfb_data = "/data/mpfb \"x\"""#));
        let parsed = mpfb2g4mf::batch::parse_manifest(manifest.as_bytes(), Path::new("jobs.toml"));
        let jobs = mpfb2g4mf::batch::expand(&parsed.unwrap(), Path::new(".")).unwrap();
        assert_eq!(jobs.len(), 6 + BODIES);
    }
}
