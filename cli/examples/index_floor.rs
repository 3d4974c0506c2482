//! The floor of `ast-outline index`: what any index build that extracts
//! reference facts must do before SQLite and resolution, timed in one
//! process against an outline of the same files. Walks PATH... as
//! `ast-outline outline` does, then on one worker thread per CPU runs, in
//! turn over every file:
//!   outline   read + outline (what `outline --no-cache` does, minus printing)
//!   facts     read + hash + outline and facts from one parse
//!   encode    the same + the facts encoded once as the index stores its
//!             blobs (MessagePack + LZ4)
//! and prints each wall time (the best of three) and its ratio to
//! `outline` on stderr. An outline run first warms the page cache.
//!
//! `cargo run --release -p ast-outline-cli --example index_floor -- PATH...`

use std::path::PathBuf;
use std::time::Instant;

use ast_outline::walk::{WalkOptions, collect_files};
use ast_outline::{OutlineOptions, outline_source_as, outline_source_with_facts};
use rayon::prelude::*;

// The binary's allocator, so that the figures compare with its own.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    let paths: Vec<PathBuf> = std::env::args().skip(1).map(PathBuf::from).collect();
    if paths.is_empty() {
        eprintln!("usage: index_floor PATH...");
        std::process::exit(2);
    }
    let walked = collect_files(&paths, WalkOptions::default());
    let files: Vec<_> = walked
        .files
        .iter()
        .filter_map(|f| Some((f.path.clone(), f.language?)))
        .collect();
    let options = OutlineOptions::default();
    // The sum of what each file gave (symbols, references, bytes), so
    // that nothing is optimised away.
    let run = |step: u8| -> (f64, usize) {
        let start = Instant::now();
        let n: usize = files
            .par_iter()
            .map(|(path, language)| {
                let Ok(bytes) = std::fs::read(path) else {
                    return 0;
                };
                let display = path.to_string_lossy();
                let text = String::from_utf8_lossy(&bytes);
                if step == 0 {
                    return outline_source_as(&display, *language, &text, &options)
                        .symbols
                        .len();
                }
                let _hash = xxhash_rust::xxh3::xxh3_64(&bytes);
                let (outline, facts) =
                    outline_source_with_facts(&display, *language, &text, &options);
                if step == 1 {
                    return outline.symbols.len() + facts.references.len();
                }
                index::store::encode(&facts).map_or(0, |b| b.len())
            })
            .sum();
        (start.elapsed().as_secs_f64(), n)
    };
    run(0);
    let best = |step: u8| (0..3).map(|_| run(step).0).fold(f64::INFINITY, f64::min);
    let base = best(0);
    eprintln!("outline  {base:6.3} s  1.00x");
    for (step, name) in [(1, "facts"), (2, "encode")] {
        let secs = best(step);
        eprintln!("{name:8} {secs:6.3} s  {:5.2}x", secs / base);
    }
}
