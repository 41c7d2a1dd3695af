//! A batch report read back (`batch --report FILE`, the records [`crate::batch::JobRecord`]
//! writes) and summarised: jobs by status, and every diagnostic by code (`report FILE
//! --by-code`), so a 10,000-body batch's warnings can be read by cause.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The largest report read (1 GiB, the inputs' default limit): a record is a few KiB, so a
/// 100,000-job report is well under it; its records are typed, so what is read is bounded by
/// the file.
pub const MAX_REPORT_BYTES: u64 = 1 << 30;

/// One job's record, as far as a summary reads it (other fields are ignored).
#[derive(Debug, Clone, Deserialize)]
pub struct ReadRecord {
    /// The job's index in the manifest.
    pub index: usize,
    /// `ok`, `failed` or `skipped`.
    pub status: String,
    /// Its warnings.
    #[serde(default)]
    pub warnings: Vec<ReadDiagnostic>,
    /// Its notes (reports before codes had none).
    #[serde(default)]
    pub notes: Vec<ReadDiagnostic>,
}

/// A diagnostic of a record.
#[derive(Debug, Clone, Deserialize)]
pub struct ReadDiagnostic {
    /// Its code.
    pub code: String,
    /// `note` or `warning`.
    pub severity: String,
    /// What it is about.
    pub kind: String,
    /// The text.
    pub message: String,
}

/// A report that cannot be read.
#[derive(Debug, thiserror::Error)]
pub enum ReportError {
    /// The file cannot be read, or is too large to be a report.
    #[error("{}: {source}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        source: location::ReadError,
    },
    /// The file is not a report: not JSON, or not an array of job records with coded
    /// diagnostics (a report written before codes has none).
    #[error("{}:{line}:{column}: not a batch report: {message}", path.display())]
    NotAReport {
        /// The file.
        path: PathBuf,
        /// 1-based line.
        line: usize,
        /// 1-based column.
        column: usize,
        /// What serde found.
        message: String,
    },
}

/// Reads the report at `path` (at most [`MAX_REPORT_BYTES`]) and summarises it record by
/// record as it is parsed, so what it holds is one record and the counts, however many jobs
/// the report has.
pub fn summarise_file(path: &Path) -> Result<ReportSummary, ReportError> {
    let file = location::open_regular(path).map_err(|e| ReportError::Read {
        path: path.to_path_buf(),
        source: location::ReadError::Io(e),
    })?;
    let size = file.metadata().map(|m| m.len()).unwrap_or(0);
    if size > MAX_REPORT_BYTES {
        return Err(ReportError::Read {
            path: path.to_path_buf(),
            source: location::ReadError::TooLarge {
                limit: MAX_REPORT_BYTES,
                reported: Some(size),
            },
        });
    }
    // The limit holds for a file that grows while it is read too: past it, the JSON ends early.
    let reader = std::io::BufReader::new(std::io::Read::take(file, MAX_REPORT_BYTES));
    let mut counts = Counts::default();
    let mut deserializer = serde_json::Deserializer::from_reader(reader);
    let parsed = serde::de::DeserializeSeed::deserialize(&mut counts, &mut deserializer)
        .and_then(|()| deserializer.end());
    parsed.map_err(|e| ReportError::NotAReport {
        path: path.to_path_buf(),
        line: e.line(),
        column: e.column(),
        // The position is the error's own line:column.
        message: strip_position(&e.to_string()),
    })?;
    Ok(counts.finish())
}

/// serde_json's message without its trailing ` at line L column C`.
fn strip_position(message: &str) -> String {
    match message.rfind(" at line ") {
        Some(at) => message[..at].to_owned(),
        None => message.to_owned(),
    }
}

/// The counts so far, records in the order read.
#[derive(Default)]
struct Counts {
    jobs: usize,
    status: BTreeMap<String, usize>,
    /// Per code: its count, and the index of the last job that said it.
    codes: BTreeMap<String, (CodeCount, usize, usize)>,
}

impl Counts {
    /// Adds one record.
    fn add(&mut self, record: &ReadRecord) {
        self.jobs += 1;
        *self.status.entry(record.status.clone()).or_insert(0) += 1;
        for d in record.warnings.iter().chain(&record.notes) {
            let entry = self.codes.entry(d.code.clone()).or_insert_with(|| {
                (
                    CodeCount {
                        code: d.code.clone(),
                        severity: d.severity.clone(),
                        kind: d.kind.clone(),
                        count: 0,
                        jobs: 0,
                        example: d.message.clone(),
                    },
                    usize::MAX,
                    record.index,
                )
            });
            let (count, last_job, example_job) = entry;
            count.count += 1;
            if *last_job != record.index {
                count.jobs += 1;
                *last_job = record.index;
            }
            // The example is the lowest job's first message, whatever the order of the records.
            if record.index < *example_job {
                count.example.clone_from(&d.message);
                *example_job = record.index;
            }
        }
    }

    fn finish(self) -> ReportSummary {
        let mut codes: Vec<CodeCount> = self.codes.into_values().map(|(c, _, _)| c).collect();
        codes.sort_by(|a, b| b.count.cmp(&a.count).then_with(|| a.code.cmp(&b.code)));
        ReportSummary {
            jobs: self.jobs,
            status: self.status,
            codes,
        }
    }
}

impl<'de> serde::de::DeserializeSeed<'de> for &mut Counts {
    type Value = ();

    fn deserialize<D: serde::Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_seq(self)
    }
}

impl<'de> serde::de::Visitor<'de> for &mut Counts {
    type Value = ();

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("an array of job records")
    }

    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        while let Some(record) = seq.next_element::<ReadRecord>()? {
            self.add(&record);
        }
        Ok(())
    }
}

/// How often one code was said across a report.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CodeCount {
    /// The code.
    pub code: String,
    /// `note` or `warning`.
    pub severity: String,
    /// What it is about.
    pub kind: String,
    /// Times said.
    pub count: usize,
    /// Jobs that said it.
    pub jobs: usize,
    /// The first message said under it (of the lowest job index).
    pub example: String,
}

/// A report summarised: jobs by status and diagnostics by code.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ReportSummary {
    /// Jobs in the report.
    pub jobs: usize,
    /// Jobs by status (`ok`, `failed`, `skipped`).
    pub status: BTreeMap<String, usize>,
    /// Every code said, most said first (then by code).
    pub codes: Vec<CodeCount>,
}

/// Summarises `records` (as [`summarise_file`] does a file).
pub fn summarise(records: &[ReadRecord]) -> ReportSummary {
    let mut counts = Counts::default();
    for record in records {
        counts.add(record);
    }
    counts.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(index: usize, status: &str, codes: &[&str]) -> ReadRecord {
        ReadRecord {
            index,
            status: status.into(),
            warnings: codes
                .iter()
                .map(|c| ReadDiagnostic {
                    code: (*c).into(),
                    severity: "warning".into(),
                    kind: "skin".into(),
                    message: format!("{c} in job {index}"),
                })
                .collect(),
            notes: Vec::new(),
        }
    }

    #[test]
    fn codes_are_counted_per_message_and_per_job_most_said_first() {
        let summary = summarise(&[
            record(1, "ok", &["B", "A", "A"]),
            record(0, "ok", &["A"]),
            record(2, "failed", &[]),
        ]);
        assert_eq!(summary.jobs, 3);
        assert_eq!(summary.status["ok"], 2);
        assert_eq!(summary.status["failed"], 1);
        assert_eq!(summary.codes[0].code, "A");
        assert_eq!((summary.codes[0].count, summary.codes[0].jobs), (3, 2));
        assert_eq!(summary.codes[0].example, "A in job 0");
        assert_eq!((summary.codes[1].count, summary.codes[1].jobs), (1, 1));
    }

    #[test]
    fn a_file_that_is_no_report_is_refused_at_its_line_and_column() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("r.json");
        std::fs::write(
            &path,
            "[\n {\"index\": 0, \"status\": \"ok\", \"warnings\": [{}]}]",
        )
        .unwrap();
        let error = summarise_file(&path).unwrap_err().to_string();
        assert!(error.contains("r.json:2:"), "{error}");
        assert!(error.contains("missing field `code`"), "{error}");
    }
}
