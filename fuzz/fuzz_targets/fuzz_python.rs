//! Python: arbitrary bytes, decoded as a file on disk would be (PEP 263,
//! lossy UTF-8), outlined, checked and rendered.
#![no_main]

use ast_outline::{Language, OutlineOptions, SourceText};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let source = SourceText::from_bytes(data.to_vec(), Some(Language::Python));
    for threshold in [100, 1] {
        let options = OutlineOptions {
            block_threshold: threshold,
            ..OutlineOptions::default()
        };
        let outline = source.outline("fuzz.py", Language::Python, &options);
        fuzz_common::check(&outline);
    }
});
