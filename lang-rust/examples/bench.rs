//! Speed of the Rust outline against a bare `syn::parse_file`, on the same
//! files in the same run:
//! `cargo run --release -p lang-rust --example bench -- DIR...`.
//!
//! Every `.rs` file below the directories is read into memory first; then
//! each pass runs over all of them (best of three), and the throughput is
//! printed in MB/s (10^6 bytes of source per second) with the ratio.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use lang_rust::RustOutline;
use outline_core::{Language, Outline, OutlineOptions};

fn main() {
    let dirs: Vec<PathBuf> = std::env::args().skip(1).map(PathBuf::from).collect();
    if dirs.is_empty() {
        eprintln!("usage: bench DIR...");
        std::process::exit(2);
    }
    let mut paths = Vec::new();
    for dir in &dirs {
        walk(dir, &mut paths);
    }
    paths.sort();
    let sources: Vec<String> = paths
        .iter()
        .filter_map(|p| std::fs::read_to_string(p).ok())
        .collect();
    let bytes: usize = sources.iter().map(String::len).sum();
    println!("{} files, {:.1} MB", sources.len(), bytes as f64 / 1e6);
    let options = OutlineOptions::default();
    let mut syn_failures = 0;
    let syn_time = best_of_three(|| {
        syn_failures = 0;
        for source in &sources {
            if syn::parse_file(source).is_err() {
                syn_failures += 1;
            }
            proc_macro2::extra::invalidate_current_thread_spans();
        }
    });
    let lex_time = best_of_three(|| {
        for source in &sources {
            let _ = source.parse::<proc_macro2::TokenStream>();
            proc_macro2::extra::invalidate_current_thread_spans();
        }
    });
    let skip_time = best_of_three(|| {
        for source in &sources {
            let _ = lang_rust::parse_items_only(source);
        }
    });
    let mut symbols = 0;
    let ours_time = best_of_three(|| {
        symbols = 0;
        for source in &sources {
            let extracted = RustOutline.extract(source, Language::Rust, &options);
            symbols += extracted.symbols.len();
        }
    });
    let rate = |t: Duration| bytes as f64 / 1e6 / t.as_secs_f64();
    println!(
        "syn::parse_file: {:.2} s, {:.1} MB/s ({syn_failures} files rejected)",
        syn_time.as_secs_f64(),
        rate(syn_time)
    );
    println!(
        "proc_macro2 lexing alone (a floor for both): {:.2} s, {:.1} MB/s",
        lex_time.as_secs_f64(),
        rate(lex_time)
    );
    println!(
        "lex + items parsed with bodies left out (no mapping): {:.2} s, {:.1} MB/s",
        skip_time.as_secs_f64(),
        rate(skip_time)
    );
    println!(
        "lang-rust outline: {:.2} s, {:.1} MB/s ({symbols} top-level symbols)",
        ours_time.as_secs_f64(),
        rate(ours_time)
    );
    println!(
        "ratio: the outline is {:.2}x the speed of syn::parse_file",
        syn_time.as_secs_f64() / ours_time.as_secs_f64()
    );
}

fn best_of_three(mut run: impl FnMut()) -> Duration {
    (0..3)
        .map(|_| {
            let start = Instant::now();
            run();
            start.elapsed()
        })
        .min()
        .unwrap_or_default()
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.filter_map(Result::ok) {
        let path = entry.path();
        if path.is_dir() {
            walk(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}
