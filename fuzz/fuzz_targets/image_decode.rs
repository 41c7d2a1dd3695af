//! Fuzzes image checking (`mpfb2g4mf::image_files::image_of`): any bytes give an image or a
//! reason, never a panic; an accepted image is a PNG or JPEG whose size is within the bounds
//! and whose bytes are kept as they are.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mpfb2g4mf::image_files::{MAX_PIXELS, MAX_SIDE, Unusable, image_of};

fuzz_target!(|data: &[u8]| {
    match image_of(data.to_vec()) {
        Ok(image) => {
            let [width, height] = image.size;
            assert!(width > 0 && height > 0);
            assert!(width <= MAX_SIDE && height <= MAX_SIDE);
            assert!(u64::from(width) * u64::from(height) <= MAX_PIXELS);
            assert!(image.mime == "image/png" || image.mime == "image/jpeg");
            assert_eq!(image.bytes.as_slice(), data);
        }
        Err(Unusable::Bad(why)) => assert!(!why.is_empty()),
        Err(other) => panic!("bytes can only be bad, not {other:?}"),
    }
});
