//! The command-line process's memory allocator settings: glibc's malloc asked, at start-up,
//! for transparent huge pages and a large heap step, by re-running the process once with
//! `GLIBC_TUNABLES` set.
//!
//! Why: a batch touches fresh memory body after body, and with 4 KiB pages each first touch
//! is a page fault. glibc reads its malloc tunables only from the environment at process
//! start, and no `mallopt` parameter turns huge pages on, so the only way to set them without
//! `unsafe` code is to exec the same binary again with the variable set (~0.3 ms). Measured
//! with `cargo xtask bench --allocators` (docs/benchmarks.md): batches of 100 bodies 0.82-0.93x
//! the time of glibc's defaults at 5-10 MiB more peak memory; jemalloc and mimalloc as a
//! `#[global_allocator]` were no faster and held 15-65 MiB more.
//!
//! Nothing is done when the user already set `GLIBC_TUNABLES` (theirs win), when
//! [`OPT_OUT_ENV`] is set, on platforms other than Linux with glibc, or when the executable
//! cannot be found again; a failed exec leaves the process running untuned.

use std::ffi::OsString;

/// The tunables: huge pages for malloc's heaps (`hugetlb=1` advises transparent huge
/// pages), and 32 MiB of extra heap per growth (`top_pad`) so the heap grows in steps a huge
/// page can back, instead of 128 KiB at a time. Measured against `mmap_threshold` and
/// `trim_threshold` variants, which bought nothing more.
pub const TUNABLES: &str = "glibc.malloc.hugetlb=1:glibc.malloc.top_pad=33554432:glibc.malloc.mmap_threshold=33554432:glibc.malloc.trim_threshold=67108864";

/// Set (to anything) to keep glibc's default malloc settings: no re-exec.
pub const OPT_OUT_ENV: &str = "MPFB2G4MF_SYSTEM_MALLOC";

/// Set by the re-exec itself, so a process whose loader drops `GLIBC_TUNABLES` (secure
/// execution, say) never re-executes in a loop.
pub const MARKER_ENV: &str = "MPFB2G4MF_MALLOC_TUNED";

/// glibc's own variable.
const GLIBC_ENV: &str = "GLIBC_TUNABLES";

/// Whether to re-execute, from what the environment holds (a pure decision, for tests).
pub fn should_reexec(get: impl Fn(&str) -> Option<OsString>) -> bool {
    cfg!(all(target_os = "linux", target_env = "gnu"))
        && get(GLIBC_ENV).is_none()
        && get(OPT_OUT_ENV).is_none()
        && get(MARKER_ENV).is_none()
}

/// Re-executes this process with glibc's malloc tunables when nothing in the environment says
/// otherwise; returns only when it does not (or when the exec failed, and the process goes on
/// untuned). Call it first thing in `main`, before any thread is started.
pub fn reexec_with_tuned_malloc() {
    if !should_reexec(|name| std::env::var_os(name)) {
        return;
    }
    #[cfg(unix)]
    {
        use std::os::unix::process::CommandExt;
        let Ok(exe) = std::env::current_exe() else {
            return;
        };
        let mut args = std::env::args_os();
        let arg0 = args.next().unwrap_or_else(|| exe.clone().into_os_string());
        // `exec` returns only on failure; the error is not worth a message, the run goes on.
        let _failed = std::process::Command::new(&exe)
            .arg0(arg0)
            .args(args)
            .env(GLIBC_ENV, TUNABLES)
            .env(MARKER_ENV, "1")
            .exec();
    }
}

/// How this process's malloc was set up, for the timings report: `tuned` after the re-exec,
/// `GLIBC_TUNABLES from the environment` when the user set their own, else `system`.
pub fn describe() -> &'static str {
    let tunables = std::env::var_os(GLIBC_ENV);
    match (tunables, std::env::var_os(MARKER_ENV)) {
        (Some(t), Some(_)) if t == TUNABLES => "tuned",
        (Some(_), _) => "GLIBC_TUNABLES from the environment",
        (None, _) => "system",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<OsString> {
        let pairs: Vec<(String, OsString)> = pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), OsString::from(v)))
            .collect();
        move |name| {
            pairs
                .iter()
                .find(|(k, _)| k == name)
                .map(|(_, v)| v.clone())
        }
    }

    #[test]
    fn re_executes_only_when_nothing_says_otherwise() {
        let on_glibc = cfg!(all(target_os = "linux", target_env = "gnu"));
        assert_eq!(should_reexec(env(&[])), on_glibc);
        assert!(!should_reexec(env(&[(
            GLIBC_ENV,
            "glibc.malloc.arena_max=1"
        )])));
        assert!(!should_reexec(env(&[(OPT_OUT_ENV, "1")])));
        assert!(!should_reexec(env(&[(MARKER_ENV, "1")])));
    }
}
