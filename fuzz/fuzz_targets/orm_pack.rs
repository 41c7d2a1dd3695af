//! Fuzzes `orm` packing (`mpfb2g4mf::image_files::pack_orm`): the input is cut into up to three
//! maps (at `0xFF 0x00 0xFF 0x00`), each sized by `image_header` as a conversion reads them
//! (packing decodes each once: that is its check); packing never panics, and a
//! packed map is a PNG no larger (in pixels) than its largest map, every map it could not
//! decode reported.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mpfb2g4mf::image_files::{image_header, pack_orm};

const CUT: &[u8] = &[0xFF, 0x00, 0xFF, 0x00];

fuzz_target!(|data: &[u8]| {
    let mut parts: Vec<&[u8]> = Vec::new();
    let mut rest = data;
    while parts.len() < 2 {
        match rest.windows(CUT.len()).position(|w| w == CUT) {
            Some(at) => {
                parts.push(&rest[..at]);
                rest = &rest[at + CUT.len()..];
            }
            None => break,
        }
    }
    parts.push(rest);
    let maps: Vec<Option<_>> = parts.iter().map(|p| image_header(p.to_vec()).ok()).collect();
    let largest = maps
        .iter()
        .flatten()
        .map(|m| u64::from(m.size[0]) * u64::from(m.size[1]))
        .max();
    let as_array: [Option<&_>; 3] = std::array::from_fn(|c| maps.get(c).and_then(Option::as_ref));
    match pack_orm(as_array, [1.0, 0.5, 0.0]) {
        Ok(packed) => {
            let pixels = u64::from(packed.image.size[0]) * u64::from(packed.image.size[1]);
            assert!(Some(pixels) <= largest, "{pixels} pixels from {largest:?}");
            assert_eq!(packed.image.mime, "image/png");
            for (channel, _) in &packed.undecodable {
                assert!(as_array[*channel].is_some());
            }
        }
        Err(why) => assert!(largest.is_none() || !why.describe().is_empty()),
    }
});
