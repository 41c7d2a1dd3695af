//! Findings and reports, in the spirit of Khronos's glTF-Validator: stable codes, severities,
//! JSON pointers (or byte offsets for container problems), and a JSON report.

pub use g4mf_reader::code::{Code, Severity};
use serde::Serialize;

/// One finding.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Finding {
    /// Stable code, e.g. `SKIN_WEIGHTS_NOT_DESCENDING`.
    pub code: Code,
    /// Severity.
    pub severity: Severity,
    /// JSON pointer into the document, when the finding is about the JSON.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pointer: Option<String>,
    /// Byte offset in the file, when the finding is about the container.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub offset: Option<u64>,
    /// Human-readable explanation.
    pub message: String,
}

impl Finding {
    /// Where the finding is: its JSON pointer (`(document)` for the root), its byte offset,
    /// or `-`.
    pub fn place(&self) -> String {
        match (&self.pointer, self.offset) {
            (Some(p), _) if p.is_empty() => "(document)".to_owned(),
            (Some(p), _) => p.clone(),
            (None, Some(o)) => format!("byte {o}"),
            (None, None) => "-".to_owned(),
        }
    }
}

/// `severity CODE at PLACE: message`, as `validate` prints a finding after its file's name.
impl std::fmt::Display for Finding {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let severity = match self.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Info => "info",
        };
        write!(
            f,
            "{severity} {} at {}: {}",
            self.code,
            self.place(),
            self.message
        )
    }
}

/// Counts by severity.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Counts {
    /// Errors.
    pub num_errors: usize,
    /// Warnings.
    pub num_warnings: usize,
    /// Infos.
    pub num_infos: usize,
}

/// The result of validating one file.
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Report {
    /// The file, as given.
    pub uri: String,
    /// The validator that made the report.
    pub validator_version: String,
    /// Counts by severity.
    pub counts: Counts,
    /// Every finding, in the order found.
    pub findings: Vec<Finding>,
}

impl Report {
    /// True when no finding is an error.
    pub fn is_valid(&self) -> bool {
        self.counts.num_errors == 0
    }

    /// The codes of all findings, in order (handy in tests).
    pub fn codes(&self) -> Vec<&'static str> {
        self.findings.iter().map(|f| f.code.name()).collect()
    }

    pub(crate) fn finish(&mut self) {
        self.counts = Counts::default();
        for f in &self.findings {
            match f.severity {
                Severity::Error => self.counts.num_errors += 1,
                Severity::Warning => self.counts.num_warnings += 1,
                Severity::Info => self.counts.num_infos += 1,
            }
        }
    }
}

/// Collects findings.
#[derive(Debug, Default)]
pub(crate) struct Findings(pub Vec<Finding>);

impl Findings {
    /// A finding about the JSON at `pointer`, with the code's severity.
    pub fn at(&mut self, code: Code, pointer: impl Into<String>, message: impl Into<String>) {
        self.0.push(Finding {
            code,
            severity: code.severity(),
            pointer: Some(pointer.into()),
            offset: None,
            message: message.into(),
        });
    }

    /// A finding about the container at byte `offset`, with the code's severity.
    pub fn byte(&mut self, code: Code, offset: u64, message: impl Into<String>) {
        self.0.push(Finding {
            code,
            severity: code.severity(),
            pointer: None,
            offset: Some(offset),
            message: message.into(),
        });
    }
}
