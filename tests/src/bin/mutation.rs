//! The mutation harness's full run (see `golden_tests::mutation` for what is
//! measured and how):
//!
//! `cargo run --release -p golden-tests --bin mutation -- [--lang python|ts|rust]
//! [--mode inject|eof] [--sample N] [--seed S] [--only PATH_PART] [--worst N]
//! [--verbose] [--skipped]`
//!
//! `--mode inject` (the default) puts the error inside a top-level item,
//! `--mode eof` appends it after the end of every file. Prints one summary
//! line per language and one per part of its corpus (TypeScript: lib, rxjs,
//! ra-core, msw), the mutants that lost the most
//! symbols (`--worst`, default 20), every crash and every mutant the parser
//! rejects without a diagnostic. `--only` keeps the files whose display path
//! contains the text (to replay one mutant); `--verbose` lists the lost
//! symbols, and with `--only`, the mutant's outline (the mutants are written to
//! the directory `MUTANT_DIR` when it is set). `--skipped` lists the files left out and why. Exits with 1 when a language is below 98 % kept, has a crash or a
//! silent mutant.

use golden_tests::mutation::{self, Lang, Mode};

fn main() {
    let mut langs: Vec<Lang> = Lang::ALL.to_vec();
    let mut mode = Mode::Inject;
    let mut sample = None;
    let mut seed: u64 = 1;
    let mut only: Option<String> = None;
    let mut worst = 20usize;
    let mut verbose = false;
    let mut skipped = false;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = || {
            args.next().unwrap_or_else(|| {
                eprintln!("{arg} needs a value");
                std::process::exit(2)
            })
        };
        match arg.as_str() {
            "--lang" => {
                let name = value();
                langs = vec![Lang::from_name(&name).unwrap_or_else(|| {
                    eprintln!("unknown language {name} (python, ts, rust)");
                    std::process::exit(2)
                })];
            }
            "--mode" => {
                let name = value();
                mode = Mode::from_name(&name).unwrap_or_else(|| {
                    eprintln!("unknown mode {name} (inject, eof)");
                    std::process::exit(2)
                });
            }
            "--sample" => sample = value().parse().ok(),
            "--seed" => seed = value().parse().unwrap_or(1),
            "--only" => only = Some(value()),
            "--worst" => worst = value().parse().unwrap_or(20),
            "--verbose" => verbose = true,
            "--skipped" => skipped = true,
            _ => {
                eprintln!(
                    "usage: mutation [--lang python|ts|rust] [--mode inject|eof] [--sample N] \
                     [--seed S] [--only PATH_PART] [--worst N] [--verbose] [--skipped]"
                );
                std::process::exit(2)
            }
        }
    }
    // Panics are counted as crashes; keep their messages out of the output.
    std::panic::set_hook(Box::new(|_| {}));
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get());
    let mut failed = false;
    let mut summaries = Vec::new();
    for lang in langs {
        let mut files = lang.corpus();
        if let Some(only) = &only {
            files.retain(|(shown, _)| shown.contains(only.as_str()));
        }
        let files = mutation::sample(&files, sample);
        if verbose && only.is_some() {
            for (shown, path) in &files {
                if let Some((mutant, outline)) = mutation::replay(lang, shown, path, seed, mode) {
                    println!(
                        "== {shown}:{}:{} {}",
                        mutant.line, mutant.column, mutant.what
                    );
                    if let Some(dir) = std::env::var_os("MUTANT_DIR") {
                        let name = shown.replace('/', "__");
                        let _ = std::fs::write(std::path::Path::new(&dir).join(name), &mutant.text);
                    }
                    for d in &outline.diagnostics {
                        println!("  ! {}:{} {}", d.line, d.column, d.message);
                    }
                    print_symbols(&outline.symbols, 1);
                }
            }
        }
        let report = mutation::run(lang, &files, seed, threads, mode);
        let mut worst_files: Vec<_> = report
            .results
            .iter()
            .filter(|r| !r.lost.is_empty())
            .collect();
        worst_files.sort_by_key(|r| std::cmp::Reverse(r.lost.len()));
        for r in worst_files.iter().take(worst) {
            println!(
                "lost {}/{}: {}:{}",
                r.lost.len(),
                r.expected,
                r.path,
                r.mutation.as_deref().unwrap_or("")
            );
            if verbose {
                for (qualname, kind, start, end) in &r.lost {
                    println!("    {kind} {qualname} {start}-{end}");
                }
            }
        }
        if skipped {
            for r in report.results.iter().filter(|r| r.skipped.is_some()) {
                println!("skipped {}: {}", r.path, r.skipped.unwrap_or_default());
            }
        }
        for r in &report.crashes {
            println!(
                "CRASH {}:{} {}",
                r.path,
                r.mutation.as_deref().unwrap_or(""),
                r.crash.as_deref().unwrap_or("")
            );
        }
        for r in &report.silent {
            println!(
                "NO DIAGNOSTIC {}:{} (parser: {})",
                r.path,
                r.mutation.as_deref().unwrap_or(""),
                r.rejected.as_deref().unwrap_or("")
            );
        }
        failed |=
            report.kept_percent() < 98.0 || !report.crashes.is_empty() || !report.silent.is_empty();
        println!("{}", report.summary());
        summaries.push(report.summary());
        for part in report.corpora() {
            summaries.push(format!(
                "  {}: {} files, {} mutants, {} symbols, {} kept ({:.2} %)",
                part.name,
                part.files,
                part.mutants,
                part.expected,
                part.kept,
                part.kept_percent()
            ));
        }
    }
    println!("seed {seed}, mode {}", mode.name());
    for s in summaries {
        println!("{s}");
    }
    if failed {
        std::process::exit(1);
    }
}

/// Prints a symbol tree, one line per symbol (for `--only … --verbose`).
fn print_symbols(symbols: &[outline_core::Symbol], depth: usize) {
    for s in symbols {
        println!(
            "{}{:?} {} {}-{}",
            "  ".repeat(depth),
            s.kind,
            s.qualname,
            s.start_line,
            s.end_line
        );
        if depth < 2 {
            print_symbols(&s.children, depth + 1);
        }
    }
}
