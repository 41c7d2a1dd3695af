//! Stage timings on standard error when `MPFB2G4MF_TIMINGS` is set: where a conversion's
//! time goes, without a profiler (the figures behind the README's performance notes).

use std::sync::Mutex;
use std::sync::OnceLock;
use std::time::Instant;

/// The environment variable that turns timings on (any value).
pub const TIMINGS_ENV: &str = "MPFB2G4MF_TIMINGS";

fn enabled() -> bool {
    static ENABLED: OnceLock<bool> = OnceLock::new();
    *ENABLED.get_or_init(|| std::env::var_os(TIMINGS_ENV).is_some())
}

/// The last lap's end, shared by every thread (laps are meant for the main thread).
static LAST: Mutex<Option<Instant>> = Mutex::new(None);

/// Ends a lap called `label`: prints the time since the previous lap (or since the first
/// call) when timings are on; does nothing otherwise.
pub fn lap(label: &str) {
    if !enabled() {
        return;
    }
    let now = Instant::now();
    let mut last = LAST.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    match *last {
        Some(previous) => eprintln!(
            "timings: {label:<24} {:>8.2} ms",
            (now - previous).as_secs_f64() * 1e3
        ),
        None => eprintln!("timings: {label}"),
    }
    *last = Some(now);
}

/// Runs `work` and, when timings are on, prints how long it took as an indented line
/// (`timings:   - {label}`) on any thread: the parts of a lap that run side by side, such as
/// each input file of the load lap.
pub fn part<T>(label: &str, work: impl FnOnce() -> T) -> T {
    if !enabled() {
        return work();
    }
    let started = Instant::now();
    let result = work();
    eprintln!(
        "timings:   - {label:<20} {:>8.2} ms",
        started.elapsed().as_secs_f64() * 1e3
    );
    result
}
