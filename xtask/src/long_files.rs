//! `cargo xtask long-files`: the product files longer than 800 lines, and the check that
//! ARCHITECTURE.md lists each of them with its reason.
//!
//! Product files are the same as [`crate::long_functions`]' (every published crate's `src/`);
//! a file's length is all its lines, its unit tests included, since that is what a reader
//! scrolls through.

use std::path::Path;

use crate::long_functions::{product_files, workspace_root};

/// Longer than this many lines needs a reason in ARCHITECTURE.md.
pub const LONG_FILE: usize = 800;

/// The heading of ARCHITECTURE.md's list.
const HEADING: &str = "## Files longer than 800 lines";

/// One file: where it is and how many lines it has.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LongFile {
    /// The file, relative to the workspace root, with `/` separators.
    pub file: String,
    /// Its lines.
    pub lines: usize,
}

/// Prints every product file over [`LONG_FILE`] lines, longest first, and fails when
/// ARCHITECTURE.md's list differs.
pub fn run(_args: &[String]) -> Result<(), String> {
    let root = workspace_root();
    let found = long_files(&root)?;
    for file in &found {
        println!("{:5} {}", file.lines, file.file);
    }
    let problems = unlisted(&root, &found)?;
    if problems.is_empty() {
        Ok(())
    } else {
        Err(problems.join("\n"))
    }
}

/// Every product file over [`LONG_FILE`] lines, longest first.
pub fn long_files(root: &Path) -> Result<Vec<LongFile>, String> {
    let mut found: Vec<LongFile> = product_files(root)?
        .into_iter()
        .map(|(file, text)| LongFile {
            file,
            lines: text.lines().count(),
        })
        .filter(|f| f.lines > LONG_FILE)
        .collect();
    found.sort_by(|a, b| b.lines.cmp(&a.lines).then_with(|| a.file.cmp(&b.file)));
    Ok(found)
}

/// Lines of ARCHITECTURE.md's list that disagree with `found`: files missing from it (or
/// listed without a reason) and entries naming no file over [`LONG_FILE`] lines.
pub fn unlisted(root: &Path, found: &[LongFile]) -> Result<Vec<String>, String> {
    let path = root.join("ARCHITECTURE.md");
    let text = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    let listed =
        listed(&text).ok_or_else(|| format!("ARCHITECTURE.md has no `{HEADING}` section"))?;
    Ok(disagreements(&listed, found))
}

/// What differs between the list's entries and the files found.
fn disagreements(listed: &[(String, String)], found: &[LongFile]) -> Vec<String> {
    let mut problems = Vec::new();
    for long in found {
        match listed.iter().find(|(file, _)| *file == long.file) {
            None => problems.push(format!(
                "{} ({} lines) is not listed under `{HEADING}` in ARCHITECTURE.md",
                long.file, long.lines
            )),
            Some((_, reason)) if reason.trim().is_empty() => {
                problems.push(format!("{} is listed without a reason", long.file));
            }
            Some(_) => {}
        }
    }
    for (file, _) in listed {
        if !found.iter().any(|long| long.file == *file) {
            problems.push(format!(
                "ARCHITECTURE.md lists {file}, which is not a product file over {LONG_FILE} lines"
            ));
        }
    }
    problems
}

/// The entries of the list: `- `path` (N lines): reason`, as (file, reason).
fn listed(text: &str) -> Option<Vec<(String, String)>> {
    let start = text.find(HEADING)?;
    let section = &text[start + HEADING.len()..];
    let section = section.find("\n## ").map_or(section, |end| &section[..end]);
    let mut entries = Vec::new();
    let mut current: Option<(String, String)> = None;
    for line in section.lines() {
        if let Some(rest) = line.strip_prefix("- `") {
            entries.extend(current.take());
            let Some((file, rest)) = rest.split_once('`') else {
                continue;
            };
            let reason = rest.split_once(':').map_or("", |(_, reason)| reason);
            current = Some((file.to_owned(), reason.trim().to_owned()));
        } else if let Some((_, reason)) = current.as_mut() {
            if line.starts_with("  ") {
                reason.push(' ');
                reason.push_str(line.trim());
            } else {
                entries.extend(current.take());
            }
        }
    }
    entries.extend(current);
    Some(entries)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_list_reads_entries_and_their_reasons() {
        let text = format!(
            "# A\n{HEADING}\n\nIntro.\n\n- `crates/a/src/b.rs` (900 lines): one table\n  of cases.\n- `crates/a/src/c.rs` (801 lines):\n\n## Next\n- `x`: z\n"
        );
        let entries = listed(&text).expect("has the section");
        assert_eq!(
            entries,
            [
                (
                    "crates/a/src/b.rs".to_owned(),
                    "one table of cases.".to_owned()
                ),
                ("crates/a/src/c.rs".to_owned(), String::new()),
            ]
        );
    }

    #[test]
    fn an_unlisted_long_file_a_reasonless_one_and_a_listed_short_one_are_named() {
        let listed = [
            ("crates/a/src/reasonless.rs".to_owned(), String::new()),
            ("crates/a/src/short.rs".to_owned(), "was long".to_owned()),
        ];
        let found = [
            LongFile {
                file: "crates/a/src/unlisted.rs".to_owned(),
                lines: 900,
            },
            LongFile {
                file: "crates/a/src/reasonless.rs".to_owned(),
                lines: 801,
            },
        ];
        let problems = disagreements(&listed, &found);
        assert_eq!(problems.len(), 3, "{problems:?}");
        assert!(problems[0].contains("unlisted.rs (900 lines) is not listed"));
        assert!(problems[1].contains("reasonless.rs is listed without a reason"));
        assert!(problems[2].contains("short.rs, which is not a product file"));
    }

    /// The check itself: every product file over 800 lines is in ARCHITECTURE.md's list with
    /// a reason, and the list names nothing else.
    #[test]
    fn every_long_product_file_is_listed_with_its_reason() {
        let root = workspace_root();
        let found = long_files(&root).expect("the sources read");
        let problems = unlisted(&root, &found).expect("ARCHITECTURE.md reads");
        assert!(problems.is_empty(), "{}", problems.join("\n"));
    }
}
