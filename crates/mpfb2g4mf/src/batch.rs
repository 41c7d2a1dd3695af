//! `batch`: many conversions from one manifest, in parallel, each distinct input parsed once.
//!
//! A manifest (JSON, or TOML by extension) lists `jobs` and/or a `cross` product of rigs x
//! meshes x formats with an output pattern; `defaults` apply to every job. Paths are relative to
//! the manifest. Jobs are expanded in a fixed order, so `--shard K/N` (job `i` belongs to shard
//! `i mod N`) splits them into disjoint, complete shares the same way on every machine.

use crate::convert::{
    ConvertError, ConvertOptions, LoadedMesh, LoadedRig, LoadedWeights, convert_body,
};
use crate::data;
use crate::inputs::{TargetCache, load_body_shared};
use crate::options::{Request, Settings, SettingsError};
use indexmap::IndexMap;
use location::Location;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

/// Why a manifest cannot be read or expanded into jobs.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum BatchError {
    /// The manifest cannot be read.
    #[error("{location}: {source}")]
    Io {
        /// The manifest.
        location: Location,
        /// The I/O error.
        source: std::io::Error,
    },
    /// The manifest is not valid JSON or TOML, or not a manifest.
    #[error("{location}: {message}")]
    Syntax {
        /// Where.
        location: Location,
        /// What the parser said.
        message: String,
    },
    /// A job's settings (its table over the defaults) are not valid settings.
    #[error("{0}")]
    Settings(serde_json::Error),
    /// No MPFB data folder for rig names.
    #[error("no MPFB data folder (looked in {})", tried.iter().map(|p| p.display().to_string()).collect::<Vec<_>>().join(", "))]
    NoData {
        /// The folders tried.
        tried: Vec<PathBuf>,
    },
    /// A rig name is not in the data folder.
    #[error(transparent)]
    Rig(#[from] data::DataError),
    /// A job gives both or neither of `rig` and `rig_name`.
    #[error("give exactly one of `rig` and `rig_name`")]
    RigOrName,
    /// A job with `rig` has no `mesh`.
    #[error("`mesh` is required with `rig`")]
    NoMesh,
    /// A cross product has no mesh for a rig file.
    #[error("no meshes listed and no MPFB base mesh")]
    NoCrossMesh,
    /// Two jobs write the same file.
    #[error("jobs {first} and {second} write the same file {}", output.display())]
    SameOutput {
        /// The first job.
        first: usize,
        /// The second job.
        second: usize,
        /// The file.
        output: PathBuf,
    },
    /// A population section that cannot be expanded.
    #[error("population: {0}")]
    Population(String),
    /// A problem of one job or cross rig, with which.
    #[error("{what}: {source}")]
    In {
        /// `job 3 (out/x.g4b)`, `defaults` or ``cross rig `default` ``.
        what: String,
        /// The problem.
        source: Box<BatchError>,
    },
}

impl BatchError {
    fn within(what: impl Into<String>) -> impl FnOnce(BatchError) -> BatchError {
        let what = what.into();
        move |source| BatchError::In {
            what,
            source: Box::new(source),
        }
    }
}

/// The rig a `.mhm` or preset names (`default` when it names none).
fn described_rig(human: &Path) -> Result<String, BatchError> {
    let text = std::fs::read_to_string(human).map_err(|source| BatchError::Io {
        location: Location::file(human),
        source,
    })?;
    let parsed = if human.extension().is_some_and(|e| e == "json") {
        mpfb_body::parse_preset(&text)
    } else {
        mpfb_body::parse_mhm(&text)
    };
    let description = parsed.map_err(|e| BatchError::Syntax {
        message: e.kind.to_string(),
        location: (*e.location).clone().in_file(human),
    })?;
    Ok(description.rig.unwrap_or_else(|| "default".to_owned()))
}

/// `--shard K/N` that is not one.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("shard `{0}`: expected K/N with 0 <= K < N, e.g. 0/4")]
pub struct ShardError(pub String);

/// Settings as a manifest writes them: a table of [`Settings`] keys. A job's table is laid
/// over the manifest's `defaults`, then read once as [`Settings`] (unknown keys are errors).
pub type SettingsTable = Map<String, Value>;

/// One job as written in a manifest.
#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq)]
pub struct JobSpec {
    /// A rig file.
    pub rig: Option<PathBuf>,
    /// A rig name in the MPFB data folder (brings its weights and base mesh).
    pub rig_name: Option<String>,
    /// A weights file.
    pub weights: Option<PathBuf>,
    /// Write no skin even if the rig has weights.
    #[serde(default)]
    pub no_weights: bool,
    /// The body.
    pub mesh: Option<PathBuf>,
    /// The output file.
    pub output: PathBuf,
    /// The character name.
    pub name: Option<String>,
    /// Settings (any key of [`Settings`]).
    #[serde(flatten)]
    pub settings: SettingsTable,
}

/// A cross product: every rig with every mesh in every format.
#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct CrossSpec {
    /// Rig names (looked up in the MPFB data folder, with their weights) or rig file paths.
    pub rigs: Vec<String>,
    /// Mesh files; default: the data folder's base.obj.
    #[serde(default)]
    pub meshes: Vec<PathBuf>,
    /// Output extensions (`g4b`, `g4tf`); default `g4b`.
    #[serde(default)]
    pub formats: Vec<String>,
    /// Output pattern with `{rig}`, `{mesh}` (file stems) and `{format}`.
    pub output: String,
}

/// A manifest.
#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Manifest {
    /// Settings for every job.
    #[serde(default)]
    pub defaults: SettingsTable,
    /// Explicit jobs.
    #[serde(default)]
    pub jobs: Vec<JobSpec>,
    /// A cross product (expanded after the explicit jobs).
    pub cross: Option<CrossSpec>,
    /// Generated bodies (expanded last).
    pub population: Option<PopulationSpec>,
}

/// The most jobs a population may generate: a typo in a grid must not allocate without bound.
pub const MAX_POPULATION: usize = 1_000_000;

/// Bodies generated from phenotypes: a `grid` (every combination of the listed values) or
/// `count` random phenotypes from a `seed`, each variable drawn uniformly from its `ranges`
/// entry. Variables not listed keep the settings' phenotype (or the defaults).
#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq)]
pub struct PopulationSpec {
    /// A rig file.
    pub rig: Option<PathBuf>,
    /// A rig name in the MPFB data folder (default `default`).
    pub rig_name: Option<String>,
    /// The base mesh (default: the data folder's base.obj).
    pub mesh: Option<PathBuf>,
    /// Weights (default: the rig's, with `rig_name`).
    pub weights: Option<PathBuf>,
    /// Output pattern: `{index}` and any phenotype variable (`{gender}`, two decimals).
    pub output: String,
    /// Values per variable; every combination is one body.
    pub grid: Option<IndexMap<String, Vec<f64>>>,
    /// How many random bodies.
    pub count: Option<usize>,
    /// The random seed (default 0): the same seed gives the same bodies everywhere.
    #[serde(default)]
    pub seed: u64,
    /// `[low, high]` per variable for random bodies.
    #[serde(default)]
    pub ranges: IndexMap<String, [f64; 2]>,
    /// Settings of every body (any key of [`Settings`]).
    #[serde(flatten)]
    pub settings: SettingsTable,
}

/// The phenotypes of a population, each as `(variable, value)` pairs in the spec's order.
pub fn population_phenotypes(spec: &PopulationSpec) -> Result<Vec<Vec<(String, f64)>>, BatchError> {
    let bad = |message: String| BatchError::Population(message);
    let check = |name: &str, value: f64| -> Result<(), BatchError> {
        if !mpfb_body::Phenotype::NAMES.contains(&name) {
            return Err(bad(format!("unknown phenotype variable `{name}`")));
        }
        if !(0.0..=1.0).contains(&value) {
            return Err(bad(format!("`{name}` value {value} is outside [0, 1]")));
        }
        Ok(())
    };
    match (&spec.grid, spec.count) {
        (Some(grid), None) => {
            let mut total: usize = 1;
            for (name, values) in grid {
                for &v in values {
                    check(name, v)?;
                }
                total = total
                    .checked_mul(values.len())
                    .filter(|&t| t <= MAX_POPULATION)
                    .ok_or_else(|| {
                        bad(format!("the grid has more than {MAX_POPULATION} bodies"))
                    })?;
            }
            let mut out = vec![Vec::new()];
            for (name, values) in grid {
                out = out
                    .into_iter()
                    .flat_map(|prefix| {
                        values.iter().map(move |&v| {
                            let mut p = prefix.clone();
                            p.push((name.clone(), v));
                            p
                        })
                    })
                    .collect();
            }
            Ok(out)
        }
        (None, Some(count)) => {
            use rand::{Rng, SeedableRng};
            if count > MAX_POPULATION {
                return Err(bad(format!("count {count} is above {MAX_POPULATION}")));
            }
            for (name, [low, high]) in &spec.ranges {
                check(name, *low)?;
                check(name, *high)?;
                if low > high {
                    return Err(bad(format!(
                        "`{name}` range [{low}, {high}] runs backwards"
                    )));
                }
            }
            // ChaCha8: the same stream for the same seed on every platform and release.
            let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(spec.seed);
            Ok((0..count)
                .map(|_| {
                    spec.ranges
                        .iter()
                        .map(|(name, [low, high])| {
                            let u: f64 = rng.random();
                            (name.clone(), low + (high - low) * u)
                        })
                        .collect()
                })
                .collect())
        }
        _ => Err(bad("give either `grid` or `count`".into())),
    }
}

/// Reads a manifest (TOML when the file ends in `.toml`, JSON otherwise).
pub fn read_manifest(path: &Path) -> Result<Manifest, BatchError> {
    let text = std::fs::read_to_string(path).map_err(|source| BatchError::Io {
        location: Location::file(path),
        source,
    })?;
    if path.extension().is_some_and(|e| e == "toml") {
        toml::from_str(&text).map_err(|e| {
            let location = match e.span() {
                Some(span) => {
                    let (line, column) = location::line_column_at(&text, span.start);
                    Location::line_column(line, column)
                }
                None => Location::default(),
            };
            BatchError::Syntax {
                location: location.in_file(path),
                message: e.message().to_owned(),
            }
        })
    } else {
        if let Some(dup) = json_strict::first_duplicate_key(&text) {
            return Err(BatchError::Syntax {
                location: Location::pointer(dup.pointer()).in_file(path),
                message: format!("duplicate key `{}`", dup.key),
            });
        }
        serde_json::from_str(&text).map_err(|e| BatchError::Syntax {
            location: Location::line_column(e.line(), e.column()).in_file(path),
            message: strip_position(&e.to_string()),
        })
    }
}

/// serde_json's message without its trailing ` at line L column C` (the location says it).
fn strip_position(message: &str) -> String {
    match message.rfind(" at line ") {
        Some(i) => message[..i].to_owned(),
        None => message.to_owned(),
    }
}

/// A job ready to run: resolved paths and options.
#[derive(Debug, Clone, PartialEq)]
pub struct Job {
    /// Position in the manifest's expanded job list.
    pub index: usize,
    /// Rig file.
    pub rig: PathBuf,
    /// Weights file.
    pub weights: Option<PathBuf>,
    /// Mesh file.
    pub mesh: PathBuf,
    /// Vertex-group file for joint cubes.
    pub vertex_groups: Option<PathBuf>,
    /// Output file.
    pub output: PathBuf,
    /// Character name.
    pub name: Option<String>,
    /// Settings, with paths resolved against the manifest's folder.
    pub settings: Settings,
}

fn stem(path: &Path) -> String {
    let s = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    s.strip_prefix("rig.").map(str::to_owned).unwrap_or(s)
}

/// Expands a manifest into jobs, resolving paths against `base` and rig names against the MPFB
/// data folder. Errors name the job.
pub fn expand(manifest: &Manifest, base: &Path) -> Result<Vec<Job>, BatchError> {
    let at = |p: &Path| {
        if p.is_absolute() {
            p.to_path_buf()
        } else {
            base.join(p)
        }
    };
    // A job's settings: its table over the defaults, read once, paths made absolute.
    let settings_of = |table: Option<&SettingsTable>| -> Result<Settings, BatchError> {
        let mut merged = manifest.defaults.clone();
        merged.extend(table.cloned().unwrap_or_default());
        let mut settings =
            Settings::deserialize(Value::Object(merged)).map_err(BatchError::Settings)?;
        for path in [
            &mut settings.bone_map,
            &mut settings.vertex_groups,
            &mut settings.mpfb_data,
            &mut settings.human,
            &mut settings.targets_dir,
        ]
        .into_iter()
        .flatten()
        {
            *path = at(path);
        }
        Ok(settings)
    };
    let data_dir = |settings: &Settings| -> Result<PathBuf, BatchError> {
        data::find_mpfb_data(settings.mpfb_data.as_deref())
            .map_err(|tried| BatchError::NoData { tried })
    };
    let mut jobs = Vec::new();
    for (k, spec) in manifest.jobs.iter().enumerate() {
        let context = || BatchError::within(format!("job {k} ({})", spec.output.display()));
        let settings = settings_of(Some(&spec.settings)).map_err(context())?;
        // A job with `human` and no rig takes the rig its description names.
        let described_rig = match (&spec.rig, &spec.rig_name, &settings.human) {
            (None, None, Some(human)) => Some(described_rig(human).map_err(context())?),
            _ => None,
        };
        let (rig, weights, mesh, groups) =
            match (&spec.rig, spec.rig_name.as_ref().or(described_rig.as_ref())) {
                (Some(r), None) => (
                    at(r),
                    spec.weights.as_deref().map(at),
                    spec.mesh
                        .as_deref()
                        .map(at)
                        .ok_or_else(|| context()(BatchError::NoMesh))?,
                    None,
                ),
                (None, Some(name)) => {
                    let files = data::rig_files(&data_dir(&settings).map_err(context())?, name)
                        .map_err(|e| context()(e.into()))?;
                    (
                        files.rig,
                        spec.weights.as_deref().map(at).or(files.weights),
                        spec.mesh.as_deref().map(at).unwrap_or(files.mesh),
                        files.vertex_groups,
                    )
                }
                _ => return Err(context()(BatchError::RigOrName)),
            };
        jobs.push(Job {
            index: jobs.len(),
            rig,
            weights: if spec.no_weights { None } else { weights },
            mesh,
            vertex_groups: settings.vertex_groups.clone().or(groups),
            output: at(&spec.output),
            name: spec.name.clone(),
            settings,
        });
    }
    if let Some(cross) = &manifest.cross {
        let settings = settings_of(None).map_err(BatchError::within("defaults"))?;
        let formats = if cross.formats.is_empty() {
            vec!["g4b".to_owned()]
        } else {
            cross.formats.clone()
        };
        for rig_entry in &cross.rigs {
            let (rig, weights, default_mesh, groups) = if rig_entry.ends_with(".json") {
                let r = at(Path::new(rig_entry));
                let w = r.with_file_name(format!("weights.{}.json", stem(&r)));
                (r, w.is_file().then_some(w), None, None)
            } else {
                let within = || BatchError::within(format!("cross rig `{rig_entry}`"));
                let files = data::rig_files(&data_dir(&settings).map_err(within())?, rig_entry)
                    .map_err(|e| within()(e.into()))?;
                (
                    files.rig,
                    files.weights,
                    Some(files.mesh),
                    files.vertex_groups,
                )
            };
            let meshes: Vec<PathBuf> = if cross.meshes.is_empty() {
                vec![default_mesh.clone().ok_or_else(|| {
                    BatchError::within(format!("cross rig `{rig_entry}`"))(BatchError::NoCrossMesh)
                })?]
            } else {
                cross.meshes.iter().map(|m| at(m)).collect()
            };
            for mesh in meshes {
                for format in &formats {
                    let output = cross
                        .output
                        .replace("{rig}", &stem(&rig))
                        .replace("{mesh}", &stem(&mesh))
                        .replace("{format}", format);
                    jobs.push(Job {
                        index: jobs.len(),
                        rig: rig.clone(),
                        weights: weights.clone(),
                        mesh: mesh.clone(),
                        vertex_groups: settings.vertex_groups.clone().or(groups.clone()),
                        output: at(Path::new(&output)),
                        name: None,
                        settings: settings.clone(),
                    });
                }
            }
        }
    }
    if let Some(population) = &manifest.population {
        let within = BatchError::within("population");
        let mut table = population.settings.clone();
        let mut settings = settings_of(Some(&table)).map_err(BatchError::within("population"))?;
        let (rig, weights, mesh, groups) = match (&population.rig, &population.rig_name) {
            (Some(r), None) => (
                at(r),
                population.weights.as_deref().map(at),
                population
                    .mesh
                    .as_deref()
                    .map(at)
                    .ok_or_else(|| BatchError::within("population")(BatchError::NoMesh))?,
                None,
            ),
            (None, name) => {
                let name = name.as_deref().unwrap_or("default");
                let files = data::rig_files(
                    &data_dir(&settings).map_err(BatchError::within("population"))?,
                    name,
                )
                .map_err(|e| BatchError::within("population")(e.into()))?;
                (
                    files.rig,
                    population.weights.as_deref().map(at).or(files.weights),
                    population.mesh.as_deref().map(at).unwrap_or(files.mesh),
                    files.vertex_groups,
                )
            }
            _ => return Err(within(BatchError::RigOrName)),
        };
        let base_phenotype = settings.phenotype.clone().unwrap_or_default();
        for phenotype in population_phenotypes(population)? {
            let text = phenotype
                .iter()
                .map(|(n, v)| format!("{n}={v}"))
                .collect::<Vec<_>>()
                .join(",");
            let mut output = population
                .output
                .replace("{index}", &jobs.len().to_string());
            for (n, v) in &phenotype {
                output = output.replace(&format!("{{{n}}}"), &format!("{v:.2}"));
            }
            settings.phenotype = Some(if base_phenotype.is_empty() {
                text
            } else {
                format!("{base_phenotype},{text}")
            });
            table.clear();
            jobs.push(Job {
                index: jobs.len(),
                rig: rig.clone(),
                weights: weights.clone(),
                mesh: mesh.clone(),
                vertex_groups: settings.vertex_groups.clone().or(groups.clone()),
                output: at(Path::new(&output)),
                name: None,
                settings: settings.clone(),
            });
        }
    }
    let mut seen = HashMap::new();
    for job in &jobs {
        if let Some(other) = seen.insert(job.output.clone(), job.index) {
            return Err(BatchError::SameOutput {
                first: other,
                second: job.index,
                output: job.output.clone(),
            });
        }
    }
    Ok(jobs)
}

/// `--shard K/N`: job `i` belongs to shard `i mod N`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shard {
    /// This shard, `0..count`.
    pub index: usize,
    /// How many shards.
    pub count: usize,
}

impl std::str::FromStr for Shard {
    type Err = ShardError;
    fn from_str(s: &str) -> Result<Self, ShardError> {
        let bad = || ShardError(s.to_owned());
        let (k, n) = s.split_once('/').ok_or_else(bad)?;
        let index: usize = k.trim().parse().map_err(|_| bad())?;
        let count: usize = n.trim().parse().map_err(|_| bad())?;
        if count == 0 || index >= count {
            return Err(bad());
        }
        Ok(Shard { index, count })
    }
}

impl Shard {
    /// The jobs of this shard, in order.
    pub fn select(self, jobs: Vec<Job>) -> Vec<Job> {
        jobs.into_iter()
            .filter(|j| j.index % self.count == self.index)
            .collect()
    }
}

/// How a job ended.
#[derive(Debug, Clone, Serialize, PartialEq)]
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
    /// The phenotype setting of a generated or described body.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub phenotype: Option<String>,
    /// How it ended.
    pub status: Status,
    /// Why it failed.
    pub error: Option<String>,
    /// Warnings of the conversion.
    pub warnings: Vec<String>,
    /// Bytes written.
    pub bytes: u64,
    /// Milliseconds spent on this job (loading shared inputs included when this job loaded them).
    pub millis: f64,
}

/// Batch settings.
#[derive(Debug, Clone, Copy, Default)]
pub struct BatchOptions {
    /// Worker threads (0: all cores).
    pub jobs: usize,
    /// Stop starting jobs after the first failure.
    pub fail_fast: bool,
    /// Skip jobs whose output exists.
    pub skip_existing: bool,
    /// Largest input file accepted, in bytes (0: the default limit).
    pub max_input_bytes: u64,
}

/// A shared input: parsed on first use, dropped after its last job.
struct Shared<T> {
    state: Mutex<Option<Result<Arc<T>, Arc<ConvertError>>>>,
    remaining: AtomicUsize,
}

impl<T> Shared<T> {
    fn new(uses: usize) -> Self {
        Self {
            state: Mutex::new(None),
            remaining: AtomicUsize::new(uses),
        }
    }

    fn get(
        &self,
        load: impl FnOnce() -> Result<T, ConvertError>,
    ) -> Result<Arc<T>, Arc<ConvertError>> {
        // Holding the lock while loading makes other jobs wait instead of parsing again.
        let mut state = self
            .state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        state
            .get_or_insert_with(|| load().map(Arc::new).map_err(Arc::new))
            .clone()
    }

    fn release(&self) {
        if self.remaining.fetch_sub(1, Ordering::AcqRel) == 1 {
            *self
                .state
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner) = None;
        }
    }
}

fn shared_map<T>(keys: impl Iterator<Item = PathBuf>) -> HashMap<PathBuf, Shared<T>> {
    let mut uses: HashMap<PathBuf, usize> = HashMap::new();
    for k in keys {
        *uses.entry(k).or_default() += 1;
    }
    uses.into_iter().map(|(k, n)| (k, Shared::new(n))).collect()
}

/// Why one job of a batch failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum JobError {
    /// Its settings cannot be used.
    #[error(transparent)]
    Settings(#[from] SettingsError),
    /// The conversion failed.
    #[error(transparent)]
    Convert(#[from] ConvertError),
    /// An input shared with other jobs failed to load (each job reports it).
    #[error(transparent)]
    Input(Arc<ConvertError>),
    /// The output folder cannot be created.
    #[error("cannot create {}: {source}", folder.display())]
    OutputFolder {
        /// The folder.
        folder: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
}

fn options_for(job: &Job) -> Result<ConvertOptions, SettingsError> {
    ConvertOptions::try_from(Request {
        settings: &job.settings,
        output: &job.output,
        name: job.name.as_deref(),
    })
}

/// Runs `jobs`; `progress` is called after each job with the finished record.
pub fn run(
    jobs: &[Job],
    options: BatchOptions,
    progress: &(dyn Fn(&JobRecord) + Sync),
) -> Vec<JobRecord> {
    let rigs: HashMap<PathBuf, Shared<LoadedRig>> = shared_map(jobs.iter().map(|j| j.rig.clone()));
    let meshes: HashMap<PathBuf, Shared<LoadedMesh>> =
        shared_map(jobs.iter().map(|j| j.mesh.clone()));
    let weights: HashMap<PathBuf, Shared<LoadedWeights>> =
        shared_map(jobs.iter().filter_map(|j| j.weights.clone()));
    let targets = TargetCache::default();
    let stop = AtomicBool::new(false);
    let run_one = |job: &Job| -> JobRecord {
        let started = Instant::now();
        let mut record = JobRecord {
            index: job.index,
            rig: job.rig.clone(),
            weights: job.weights.clone(),
            mesh: job.mesh.clone(),
            output: job.output.clone(),
            phenotype: job.settings.phenotype.clone(),
            status: Status::Ok,
            error: None,
            warnings: Vec::new(),
            bytes: 0,
            millis: 0.0,
        };
        let release = || {
            rigs[&job.rig].release();
            meshes[&job.mesh].release();
            if let Some(w) = &job.weights {
                weights[w].release();
            }
        };
        if stop.load(Ordering::Acquire) {
            record.status = Status::Cancelled;
            release();
            return record;
        }
        if options.skip_existing && job.output.is_file() {
            record.status = Status::Skipped;
            release();
            return record;
        }
        let result = (|| -> Result<crate::convert::Summary, JobError> {
            let convert_options = options_for(job)?;
            let limit = if options.max_input_bytes == 0 {
                convert_options.max_input_bytes
            } else {
                options.max_input_bytes
            };
            for path in [Some(&job.rig), Some(&job.mesh), job.weights.as_ref()]
                .into_iter()
                .flatten()
            {
                crate::convert::check_input_size(path, limit)?;
            }
            let rig = rigs[&job.rig]
                .get(|| LoadedRig::load(&job.rig))
                .map_err(JobError::Input)?;
            let mesh = meshes[&job.mesh]
                .get(|| LoadedMesh::load(&job.mesh, job.vertex_groups.as_deref()))
                .map_err(JobError::Input)?;
            let w = match &job.weights {
                Some(path) => Some(
                    weights[path]
                        .get(|| LoadedWeights::load(path))
                        .map_err(JobError::Input)?,
                ),
                None => None,
            };
            if let Some(parent) = job.output.parent().filter(|p| !p.as_os_str().is_empty()) {
                std::fs::create_dir_all(parent).map_err(|source| JobError::OutputFolder {
                    folder: parent.to_path_buf(),
                    source,
                })?;
            }
            let body = convert_options
                .body
                .as_ref()
                .map(|b| load_body_shared(b, limit, &targets))
                .transpose()?;
            Ok(convert_body(
                &rig,
                &mesh,
                w.as_deref(),
                body.as_ref(),
                &convert_options,
            )?)
        })();
        release();
        match result {
            Ok(summary) => {
                record.warnings = summary.warnings;
                record.bytes = summary.bytes;
            }
            Err(e) => {
                record.status = Status::Failed;
                record.error = Some(e.to_string());
                if options.fail_fast {
                    stop.store(true, Ordering::Release);
                }
            }
        }
        record.millis = started.elapsed().as_secs_f64() * 1e3;
        progress(&record);
        record
    };
    let threads = if options.jobs == 0 {
        std::thread::available_parallelism().map_or(1, |n| n.get())
    } else {
        options.jobs
    };
    match rayon::ThreadPoolBuilder::new().num_threads(threads).build() {
        Ok(pool) => pool.install(|| jobs.par_iter().with_max_len(1).map(run_one).collect()),
        Err(_) => jobs.iter().map(run_one).collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::options::Compress;

    fn jobs(n: usize) -> Vec<Job> {
        (0..n)
            .map(|index| Job {
                index,
                rig: "r.json".into(),
                weights: None,
                mesh: "m.obj".into(),
                vertex_groups: None,
                output: format!("out/{index}.g4b").into(),
                name: None,
                settings: Settings::default(),
            })
            .collect()
    }

    #[test]
    fn shards_are_disjoint_and_complete() {
        for count in 1..=7 {
            for n in [0, 1, 5, 40, 41] {
                let mut seen = vec![0u32; n];
                for index in 0..count {
                    let shard: Shard = format!("{index}/{count}").parse().unwrap();
                    let selected = shard.select(jobs(n));
                    for job in &selected {
                        seen[job.index] += 1;
                    }
                    // Balanced: shares differ by at most one job.
                    assert!(selected.len() == n / count || selected.len() == n / count + 1);
                }
                assert!(
                    seen.iter().all(|&c| c == 1),
                    "count {count}, n {n}: {seen:?}"
                );
            }
        }
        for bad in ["1", "2/2", "-1/3", "0/0", "a/b"] {
            assert!(bad.parse::<Shard>().is_err(), "{bad}");
        }
    }

    #[test]
    fn populations_are_grids_or_seeded_random_phenotypes() {
        let grid: PopulationSpec = toml::from_str(
            r#"
            output = "out/{index}-{gender}.g4b"
            [grid]
            gender = [0.0, 1.0]
            height = [0.25, 0.5, 0.75]
            "#,
        )
        .unwrap();
        let bodies = population_phenotypes(&grid).unwrap();
        assert_eq!(bodies.len(), 6);
        assert_eq!(bodies[0], [("gender".into(), 0.0), ("height".into(), 0.25)]);
        assert_eq!(bodies[5], [("gender".into(), 1.0), ("height".into(), 0.75)]);
        let random = |seed: u64| {
            let spec: PopulationSpec = toml::from_str(&format!(
                "output = \"b{{index}}.g4b\"\ncount = 50\nseed = {seed}\n[ranges]\nage = [0.3, 0.8]\nweight = [0.0, 1.0]\n"
            ))
            .unwrap();
            population_phenotypes(&spec).unwrap()
        };
        let (a, b, c) = (random(7), random(7), random(8));
        assert_eq!(a, b, "the same seed gives the same bodies");
        assert_ne!(a, c);
        assert!(
            a.iter()
                .all(|p| (0.3..=0.8).contains(&p[0].1) && (0.0..=1.0).contains(&p[1].1))
        );
        // Every value differs: the draws are not stuck.
        assert!(a.windows(2).all(|w| w[0] != w[1]));
        for bad in [
            "output = \"x\"\n[grid]\nhair = [0.5]\n",
            "output = \"x\"\n[grid]\nage = [1.5]\n",
            "output = \"x\"\ncount = 2\n[ranges]\nage = [0.8, 0.3]\n",
            "output = \"x\"\n",
            "output = \"x\"\ncount = 2000000\n",
        ] {
            let spec: PopulationSpec = toml::from_str(bad).unwrap();
            assert!(population_phenotypes(&spec).is_err(), "{bad}");
        }
    }

    #[test]
    fn manifests_expand_cross_products_in_a_fixed_order() {
        let manifest: Manifest = toml::from_str(
            r#"
            [defaults]
            compress = "zstd"
            [[jobs]]
            rig = "a/rig.x.json"
            mesh = "body.obj"
            output = "first.g4b"
            pretty = true
            [cross]
            rigs = ["a/rig.x.json", "a/rig.y.json"]
            meshes = ["m1.obj", "m2.obj"]
            formats = ["g4b", "g4tf"]
            output = "out/{rig}/{mesh}.{format}"
            "#,
        )
        .unwrap();
        let jobs = expand(&manifest, Path::new("/base")).unwrap();
        assert_eq!(jobs.len(), 1 + 2 * 2 * 2);
        assert_eq!(jobs[0].output, PathBuf::from("/base/first.g4b"));
        assert!(jobs[0].settings.pretty);
        assert_eq!(
            jobs[0].settings.compress,
            Compress::Zstd,
            "defaults fill in"
        );
        assert!(!jobs[1].settings.pretty, "a job's settings are its own");
        assert_eq!(jobs[1].output, PathBuf::from("/base/out/x/m1.g4b"));
        assert_eq!(jobs[2].output, PathBuf::from("/base/out/x/m1.g4tf"));
        assert_eq!(jobs[8].output, PathBuf::from("/base/out/y/m2.g4tf"));
        assert!(jobs.iter().enumerate().all(|(i, j)| j.index == i));

        let clash: Manifest = serde_json::from_str(r#"{"jobs": [{"rig": "r.json", "mesh": "m.obj", "output": "x.g4b"}, {"rig": "s.json", "mesh": "m.obj", "output": "x.g4b"}]}"#).unwrap();
        assert!(
            expand(&clash, Path::new("/"))
                .unwrap_err()
                .to_string()
                .contains("write the same file")
        );
        assert!(
            serde_json::from_str::<Manifest>(r#"{"jobs": [{"rig": "r.json", "outptu": "x"}]}"#)
                .is_err(),
            "typos are errors"
        );
        let typo: Manifest = serde_json::from_str(
            r#"{"jobs": [{"rig": "r.json", "mesh": "m.obj", "output": "x.g4b", "keep_helper": true}]}"#,
        )
        .unwrap();
        assert!(
            expand(&typo, Path::new("/"))
                .unwrap_err()
                .to_string()
                .contains("unknown field `keep_helper`"),
            "typos in settings are errors too"
        );
    }
}
