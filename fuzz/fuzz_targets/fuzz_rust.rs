//! Rust: arbitrary bytes (lossy UTF-8), outlined, checked and rendered.
#![no_main]

use ast_outline::{Language, OutlineOptions, SourceText};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let source = SourceText::from_bytes(data.to_vec(), Some(Language::Rust));
    for threshold in [100, 1] {
        let options = OutlineOptions {
            block_threshold: threshold,
            ..OutlineOptions::default()
        };
        let outline = source.outline("fuzz.rs", Language::Rust, &options);
        fuzz_common::check(&outline);
    }
});
