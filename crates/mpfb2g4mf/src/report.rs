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

/// Reads the report at `path` (at most [`MAX_REPORT_BYTES`]).
pub fn read_report(path: &Path) -> Result<Vec<ReadRecord>, ReportError> {
    let bytes =
        location::read_bounded(path, MAX_REPORT_BYTES).map_err(|source| ReportError::Read {
            path: path.to_path_buf(),
            source,
        })?;
    serde_json::from_slice(&bytes).map_err(|e| ReportError::NotAReport {
        path: path.to_path_buf(),
        line: e.line(),
        column: e.column(),
        message: e.to_string(),
    })
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

/// Summarises `records`.
pub fn summarise(records: &[ReadRecord]) -> ReportSummary {
    let mut status = BTreeMap::new();
    let mut by_code: BTreeMap<&str, (CodeCount, usize)> = BTreeMap::new();
    let mut ordered: Vec<&ReadRecord> = records.iter().collect();
    ordered.sort_by_key(|r| r.index);
    for record in &ordered {
        *status.entry(record.status.clone()).or_insert(0) += 1;
        for d in record.warnings.iter().chain(&record.notes) {
            let (count, last_job) = by_code.entry(&d.code).or_insert_with(|| {
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
                )
            });
            count.count += 1;
            if *last_job != record.index {
                count.jobs += 1;
                *last_job = record.index;
            }
        }
    }
    let mut codes: Vec<CodeCount> = by_code.into_values().map(|(c, _)| c).collect();
    codes.sort_by(|a, b| b.count.cmp(&a.count).then_with(|| a.code.cmp(&b.code)));
    ReportSummary {
        jobs: records.len(),
        status,
        codes,
    }
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
        let error = read_report(&path).unwrap_err().to_string();
        assert!(error.contains("r.json:2:"), "{error}");
        assert!(error.contains("missing field `code`"), "{error}");
    }
}
