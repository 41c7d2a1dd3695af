//! Fuzzes weights parsing and resolution, and checks the fast path against the typed reader:
//! whatever the fast path accepts, the typed reader accepts with the same bits.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Some(fast) = mpfb_weights::fast::parse_plain(text) {
        let typed = mpfb_weights::parse_weights_typed(text).expect("the typed reader refuses");
        let bits = |file: &mpfb_weights::WeightsFile| -> Vec<(String, Vec<(u32, u64)>)> {
            file.groups
                .iter()
                .map(|g| {
                    (
                        g.name.clone(),
                        g.pairs.iter().map(|&(v, w)| (v, w.to_bits())).collect(),
                    )
                })
                .collect()
        };
        assert_eq!(bits(&fast), bits(&typed));
        assert_eq!(
            (
                &fast.name,
                &fast.version,
                &fast.copyright,
                &fast.description,
                &fast.license
            ),
            (
                &typed.name,
                &typed.version,
                &typed.copyright,
                &typed.description,
                &typed.license
            )
        );
        assert_eq!(fast.extra, typed.extra);
    }
    if let Ok(weights) = mpfb_weights::parse_weights(text) {
        let names = vec!["a".to_owned(), "b".to_owned(), "DEF-c".to_owned()];
        let bones = mpfb_weights::RigBones {
            names: &names,
            extra_bones: &[],
        };
        if let Ok(r) = mpfb_weights::resolve(&weights, bones, &Default::default(), 64) {
            let _ = r.skin.stats();
        }
    }
    let _ = mpfb_weights::parse_bone_map(text);
});
