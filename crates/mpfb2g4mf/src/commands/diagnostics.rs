//! `codes` (the diagnostic table) and `report FILE --by-code` (a batch report summarised).

use super::*;

#[derive(Args)]
pub(crate) struct CodesArgs {
    /// Print the table as JSON on stdout.
    #[arg(long)]
    pub(crate) json: bool,
}

#[derive(Args)]
pub(crate) struct ReportFileArgs {
    /// The report a batch wrote.
    pub(crate) file: PathBuf,
    /// Count every warning and note by its code (times said, jobs, an example).
    #[arg(long)]
    pub(crate) by_code: bool,
    /// Print the summary as JSON on stdout.
    #[arg(long)]
    pub(crate) json: bool,
}

/// `codes`: the diagnostic table, as text or JSON.
pub(crate) fn run_codes(args: CodesArgs) -> Result<()> {
    use mpfb2g4mf::diagnostics::code_rows;
    if args.json {
        println!("{}", serde_json::to_string_pretty(&code_rows())?);
        return Ok(());
    }
    for row in code_rows() {
        let flag = row.flag.map(|f| format!(" [{f}]")).unwrap_or_default();
        println!(
            "{:<30} {:<7} {:<11} {}{flag}",
            row.code.name(),
            row.severity.name(),
            row.kind.name(),
            row.meaning
        );
        if let Some(example) = row.example {
            println!("{:<30} e.g. {example}", "");
        }
    }
    Ok(())
}

/// `report FILE [--by-code]`: a batch report summarised.
pub(crate) fn run_report(args: ReportFileArgs) -> Result<()> {
    let summary = mpfb2g4mf::report::summarise_file(&args.file)?;
    if args.json {
        let mut value = serde_json::to_value(&summary)?;
        if !args.by_code {
            value.as_object_mut().map(|o| o.remove("codes"));
        }
        println!("{}", serde_json::to_string_pretty(&value)?);
        return Ok(());
    }
    let status: Vec<String> = summary
        .status
        .iter()
        .map(|(s, n)| format!("{n} {s}"))
        .collect();
    println!("{} jobs: {}", summary.jobs, status.join(", "));
    if args.by_code {
        for c in &summary.codes {
            println!(
                "{:>6} x {:<30} {:<7} in {} job{}: e.g. {}",
                c.count,
                c.code,
                c.severity,
                c.jobs,
                if c.jobs == 1 { "" } else { "s" },
                location::text::escape_controls(&c.example)
            );
        }
    }
    Ok(())
}
