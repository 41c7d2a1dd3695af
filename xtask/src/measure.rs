//! The figures every benchmark reads the same way: medians of timings and the peak memory GNU
//! time reports.

/// The median of some timings: the middle value (the upper of the two middle ones for an
/// even count; NaN for none).
pub(crate) fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v.get(v.len() / 2).copied().unwrap_or(f64::NAN)
}

/// The peak resident memory, in KiB, that GNU time's `-f %M` appended to a command's
/// standard error as its last line.
pub(crate) fn peak_kib(stderr: &str) -> Result<u64, String> {
    stderr
        .lines()
        .last()
        .and_then(|l| l.trim().parse().ok())
        .ok_or_else(|| format!("cannot read the peak RSS from: {stderr}"))
}
