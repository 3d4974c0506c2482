//! TypeScript and JavaScript: the first byte picks the syntax (`.ts`, `.tsx`,
//! `.js`, `.jsx`), the rest is the file (lossy UTF-8).
#![no_main]

use ast_outline::{Language, OutlineOptions, SourceText};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&selector, rest)) = data.split_first() else {
        return;
    };
    let (path, language) = match selector % 4 {
        0 => ("fuzz.ts", Language::Typescript),
        1 => ("fuzz.tsx", Language::Tsx),
        2 => ("fuzz.js", Language::Javascript),
        _ => ("fuzz.jsx", Language::Jsx),
    };
    let source = SourceText::from_bytes(rest.to_vec(), Some(language));
    let threshold = if selector & 4 == 0 { 100 } else { 1 };
    let options = OutlineOptions {
        block_threshold: threshold,
        ..OutlineOptions::default()
    };
    let outline = source.outline(path, language, &options);
    fuzz_common::check(&outline);
});
