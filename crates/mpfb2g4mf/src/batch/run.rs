//! A batch's runner: its jobs resolved, checked and converted in parallel (each distinct
//! input parsed once, outputs written by a pool beside the workers), one record per job.

use super::BatchError;
use crate::atomic::PendingFile;
use crate::error::ConvertError;
use crate::inputs::Loader;
use crate::job::{Job, JobRequest, Resolver};
use crate::summary::{DataUsed, Summary};
use rayon::prelude::*;
use serde::Serialize;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

/// Resolves every request (after `--shard` chose them) with one resolver, so the data folder
/// is found once and each description read once. The first job that cannot be resolved stops
/// the batch before anything is written, naming the job.
pub fn resolve(requests: &[JobRequest], resolver: &Resolver) -> Result<Vec<Job>, BatchError> {
    requests
        .iter()
        .map(|request| {
            resolver.resolve(request).map_err(|e| {
                BatchError::within(format!(
                    "job {} ({})",
                    request.index,
                    request.output.display()
                ))(BatchError::Resolve(e))
            })
        })
        .collect()
}

/// The machine's cores.
fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// Workers per core at most: more only adds memory and contention (each worker holds a
/// character), and thousands of threads exhaust the machine before the first job ends.
pub const MAX_WORKERS_PER_CORE: usize = 4;

/// The most workers a batch runs on this machine ([`MAX_WORKERS_PER_CORE`] per core).
pub fn max_workers() -> usize {
    cores() * MAX_WORKERS_PER_CORE
}

/// Refuses a batch where a file is written twice, or written and read: each job's output
/// against every output and every input of the jobs, the manifest, and the batch's own
/// `written` files (`--report`, `--contact-sheet`), compared as the file system names them
/// (`..` resolved, symbolic links followed).
pub fn check_files(
    jobs: &[Job],
    manifest: &Path,
    written: &[(&str, Option<&Path>)],
) -> Result<(), crate::paths::SameFile> {
    use crate::paths::Role;
    let mut roles = vec![Role {
        what: "the manifest".into(),
        path: manifest,
        written: false,
    }];
    for &(what, path) in written {
        if let Some(path) = path {
            roles.push(Role {
                what: what.into(),
                path,
                written: true,
            });
        }
    }
    for job in jobs {
        roles.push(Role {
            what: format!("the output of job {}", job.index),
            path: &job.options.output,
            written: true,
        });
    }
    for job in jobs {
        for path in job.files.files() {
            roles.push(Role {
                what: format!("an input of job {}", job.index),
                path,
                written: false,
            });
        }
    }
    crate::paths::check_distinct(&roles)
}

/// The folders the jobs write into, each once.
pub fn output_folders(jobs: &[Job]) -> Vec<PathBuf> {
    let mut folders: Vec<PathBuf> = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for job in jobs {
        let folder = match job.options.output.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        };
        if seen.insert(folder.clone()) {
            folders.push(folder);
        }
    }
    folders
}

/// How a job ended.
#[derive(Debug, Clone, Copy, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// Written.
    Ok,
    /// Its output existed and `--skip-existing` was given.
    Skipped,
    /// Failed; the error says why.
    Failed,
    /// Not started because an earlier job failed under `--fail-fast`.
    Cancelled,
}

/// One job's record in the report.
#[derive(Debug, Clone, Serialize)]
pub struct JobRecord {
    /// Position in the expanded job list.
    pub index: usize,
    /// Inputs.
    pub rig: PathBuf,
    /// Weights.
    pub weights: Option<PathBuf>,
    /// Mesh.
    pub mesh: PathBuf,
    /// Output.
    pub output: PathBuf,
    /// The MPFB data folder the job took files from.
    pub data: Option<DataUsed>,
    /// The phenotype setting of a generated or described body.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub phenotype: Option<String>,
    /// How it ended.
    pub status: Status,
    /// Why it failed.
    pub error: Option<String>,
    /// Warnings of the conversion.
    pub warnings: Vec<crate::diagnostics::Diagnostic>,
    /// Notes of the conversion.
    pub notes: Vec<crate::diagnostics::Diagnostic>,
    /// Bytes written.
    pub bytes: u64,
    /// Milliseconds spent on this job (loading shared inputs included when this job loaded them).
    pub millis: f64,
}

impl JobRecord {
    /// A job's record before it runs: its files and settings, status `ok`, nothing written.
    fn of(job: &Job) -> Self {
        JobRecord {
            index: job.index,
            rig: job.files.rig.clone(),
            weights: job.files.weights.clone(),
            mesh: job.files.mesh.clone(),
            output: job.options.output.clone(),
            data: job.data.clone(),
            phenotype: job.phenotype.clone(),
            status: Status::Ok,
            error: None,
            warnings: Vec::new(),
            notes: Vec::new(),
            bytes: 0,
            millis: 0.0,
        }
    }
}

/// Batch settings.
#[derive(Debug, Clone, Copy, Default)]
pub struct BatchOptions {
    /// Worker threads (0: all cores), and as many writer threads.
    pub jobs: usize,
    /// Stop starting jobs after the first failure (see [`run`]: a job a worker was already
    /// making when a write failed still finishes).
    pub fail_fast: bool,
    /// Skip jobs whose output exists.
    pub skip_existing: bool,
    /// Largest input file accepted, in bytes (0: the default limit).
    pub max_input_bytes: u64,
}

/// Why one job of a batch failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum JobError {
    /// The conversion failed.
    #[error(transparent)]
    Convert(#[from] ConvertError),
    /// The output folder cannot be created.
    #[error("cannot create {}: {source}", folder.display())]
    OutputFolder {
        /// The folder.
        folder: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
}

/// Runs `jobs`; `progress` is called after each job with the finished record (written,
/// failed, skipped or cancelled), on a worker thread (or the calling thread, at the end).
///
/// Workers make the bodies and writer threads finish writing them: a worker writes its
/// `.g4b` to a temporary file (and frees it), then hands the file to an idle writer, waiting
/// when every writer is busy; the writer syncs it and renames it into place, which mostly
/// waits on the disk, while the worker makes the next body. A job is done (reported,
/// counted) only once its file is in place; its record then waits for the next worker
/// between jobs, so `progress` (which may draw a contact sheet tile) works in the workers'
/// memory, never beside them.
pub fn run(
    jobs: &[Job],
    options: BatchOptions,
    progress: &(dyn Fn(&JobRecord) + Sync),
) -> Vec<JobRecord> {
    let batch = Batch::new(jobs, options, progress);
    let threads = worker_count(options.jobs);
    let (send, receive) = std::sync::mpsc::sync_channel::<Handoff>(0);
    let receive = std::sync::Mutex::new(receive);
    std::thread::scope(|scope| {
        let writers = spawn_writers(scope, threads, &receive, &batch);
        // Without a writer thread (the system refused one), workers write their own outputs.
        let send = (!writers.is_empty()).then_some(send);
        let hand_over = |handoff: Handoff| match &send {
            Some(send) => {
                if let Err(std::sync::mpsc::SendError(handoff)) = send.send(handoff) {
                    batch.commit(handoff);
                }
            }
            None => batch.commit(handoff),
        };
        let run_one = |(slot, job): (usize, &Job)| batch.run_one(slot, job, &hand_over);
        // The calling thread is one of the workers: it would only wait otherwise, and its
        // allocations come from the main heap, which glibc grows and trims by its thresholds
        // (a worker thread's heap is unmapped and faulted in again whenever it empties).
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .use_current_thread()
            .build();
        let run_all = || {
            jobs.par_iter()
                .enumerate()
                .with_max_len(1)
                .for_each(run_one)
        };
        match &pool {
            Ok(pool) => pool.install(run_all),
            Err(_) => jobs.iter().enumerate().for_each(run_one),
        }
        // Writers finish what they hold, then find the channel closed; the last records are
        // reported in the pool too (a progress that uses rayon stays on its threads).
        drop(send);
        for writer in writers {
            // A writer that panicked has reported what it could; its panic is not ours.
            let _ = writer.join();
        }
        match &pool {
            Ok(pool) => pool.install(|| batch.report_written()),
            Err(_) => batch.report_written(),
        }
    });
    batch
        .records
        .into_iter()
        .filter_map(|r| r.into_inner())
        .collect()
}

/// Workers for `--jobs` (0: one a core), at most [`max_workers`].
fn worker_count(jobs: usize) -> usize {
    if jobs == 0 {
        cores()
    } else {
        jobs.min(max_workers())
    }
}

/// One writer a worker: a writer only syncs and renames, but fewer writers queue the syncs
/// (measured: --jobs 2 with one writer, 313 -> 357 ms for 100 bodies). Each takes handoffs
/// until the channel closes (every worker is done). Writers the system refuses are not made.
fn spawn_writers<'scope, 'env>(
    scope: &'scope std::thread::Scope<'scope, 'env>,
    threads: usize,
    receive: &'env std::sync::Mutex<std::sync::mpsc::Receiver<Handoff>>,
    batch: &'env Batch<'env>,
) -> Vec<std::thread::ScopedJoinHandle<'scope, ()>> {
    (0..threads)
        .filter_map(|i| {
            std::thread::Builder::new()
                .name(format!("writer {i}"))
                .spawn_scoped(scope, move || {
                    loop {
                        let next = receive
                            .lock()
                            .unwrap_or_else(std::sync::PoisonError::into_inner)
                            .recv();
                        let Ok(handoff) = next else { break };
                        batch.commit(handoff);
                    }
                })
                .ok()
        })
        .collect()
}

/// A running batch: its jobs and options, what the jobs share (the loader, the derived
/// caches), the cancellation flag, each job's record slot, and the records of written outputs
/// waiting for a worker to report them (progress is reported from the workers only).
struct Batch<'a> {
    options: BatchOptions,
    progress: &'a (dyn Fn(&JobRecord) + Sync),
    loader: Loader,
    derived: crate::convert::Derivations,
    stop: AtomicBool,
    records: Vec<std::sync::OnceLock<JobRecord>>,
    written: std::sync::Mutex<Vec<(usize, JobRecord)>>,
}

impl<'a> Batch<'a> {
    fn new(
        jobs: &'a [Job],
        options: BatchOptions,
        progress: &'a (dyn Fn(&JobRecord) + Sync),
    ) -> Self {
        let mut loader = Loader::new(jobs);
        if options.max_input_bytes > 0 {
            loader = loader.with_input_limit(options.max_input_bytes);
        }
        Batch {
            options,
            progress,
            loader,
            // What the batch's bodies share is derived once, by the first that needs it.
            derived: crate::convert::Derivations::default(),
            stop: AtomicBool::new(false),
            records: jobs.iter().map(|_| std::sync::OnceLock::new()).collect(),
            written: std::sync::Mutex::new(Vec::new()),
        }
    }

    /// One job on a worker: skipped or cancelled, or loaded and converted; a written output is
    /// handed over to be synced and renamed, anything else reported here.
    fn run_one(&self, slot: usize, job: &Job, hand_over: &dyn Fn(Handoff)) {
        self.report_written();
        let started = Instant::now();
        let mut record = JobRecord::of(job);
        if self.stop.load(Ordering::Acquire) {
            record.status = Status::Cancelled;
            self.loader.release(job);
            return self.finish(slot, record, started);
        }
        if self.options.skip_existing && job.options.output.is_file() {
            record.status = Status::Skipped;
            self.loader.release(job);
            return self.finish(slot, record, started);
        }
        let result = self.convert(job);
        self.loader.release(job);
        match result {
            Ok((summary, Some(file))) => hand_over(Handoff {
                slot,
                record,
                summary,
                file,
                started,
            }),
            Ok((summary, None)) => {
                record.warnings = summary.warnings;
                record.notes = summary.notes;
                record.bytes = summary.bytes;
                self.finish(slot, record, started);
            }
            Err(e) => {
                self.fail(&mut record, e);
                self.finish(slot, record, started);
            }
        }
    }

    /// Loads a job, makes its output folder and converts it, its output left pending.
    fn convert(&self, job: &Job) -> Result<(Summary, Option<PendingFile>), JobError> {
        let loaded = self.loader.load(job)?;
        if let Some(parent) = job
            .options
            .output
            .parent()
            .filter(|p| !p.as_os_str().is_empty())
        {
            std::fs::create_dir_all(parent).map_err(|source| JobError::OutputFolder {
                folder: parent.to_path_buf(),
                source,
            })?;
        }
        Ok(crate::convert::convert_loaded_later(
            &loaded,
            &job.options,
            job.data.clone(),
            &self.derived,
        )?)
    }

    /// Syncs and renames a pending output into place, then queues its record for a worker.
    fn commit(&self, handoff: Handoff) {
        let Handoff {
            slot,
            mut record,
            summary,
            file,
            started,
        } = handoff;
        let path = file.path().to_path_buf();
        match file.commit() {
            Ok(()) => {
                record.warnings = summary.warnings;
                record.notes = summary.notes;
                record.bytes = summary.bytes;
            }
            Err(source) => self.fail(
                &mut record,
                JobError::Convert(ConvertError::Output { path, source }),
            ),
        }
        record.millis = started.elapsed().as_secs_f64() * 1e3;
        self.written
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .push((slot, record));
    }

    /// Marks a record failed; with `fail_fast`, no job starts after it.
    fn fail(&self, record: &mut JobRecord, error: JobError) {
        record.status = Status::Failed;
        record.error = Some(error.to_string());
        if self.options.fail_fast {
            self.stop.store(true, Ordering::Release);
        }
    }

    /// Reports the records of outputs the writers have finished.
    fn report_written(&self) {
        let waiting = std::mem::take(
            &mut *self
                .written
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner),
        );
        for (slot, record) in waiting {
            self.report(slot, record);
        }
    }

    /// Reports a record with the time since its job started.
    fn finish(&self, slot: usize, mut record: JobRecord, started: Instant) {
        record.millis = started.elapsed().as_secs_f64() * 1e3;
        self.report(slot, record);
    }

    fn report(&self, slot: usize, record: JobRecord) {
        (self.progress)(&record);
        // Each slot is reported once.
        let _ = self.records[slot].set(record);
    }
}

/// A job whose output is written to its temporary file, on its way to a writer thread.
struct Handoff {
    /// Its place in the batch.
    slot: usize,
    record: JobRecord,
    summary: Summary,
    file: PendingFile,
    started: Instant,
}
