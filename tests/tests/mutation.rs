//! The mutation harness (`golden_tests::mutation`) on a fixed sample of each
//! corpus: one syntax error per file, and the outline must keep at least 98 %
//! of the symbols outside the damaged top-level item, never crash, and report
//! an error for every mutant the language's own parser rejects.
//!
//! The sample is every n-th file of the sorted corpus (the Python standard
//! library, TypeScript's `lib*.d.ts` and rxjs, the crates of `Cargo.lock`),
//! mutated with seed 1. The full run, with the figures in the README, is
//! `cargo run --release -p golden-tests --bin mutation`.

use golden_tests::mutation::{self, Lang};

/// The goal: the share of symbols outside the damaged item kept unchanged.
const GOAL_PERCENT: f64 = 98.0;

/// Files per language in the sample.
const SAMPLE: usize = 300;

fn check(lang: Lang) {
    let files = mutation::sample(&lang.corpus(), Some(SAMPLE));
    let report = mutation::run(lang, &files, 1, 2);
    println!("{}", report.summary());
    assert!(
        report.mutants > SAMPLE / 2,
        "too few mutants ({}) in the sample of {}",
        report.mutants,
        report.files
    );
    let crashes: Vec<String> = report
        .crashes
        .iter()
        .map(|r| {
            format!(
                "{}:{} {}",
                r.path,
                r.mutation.as_deref().unwrap_or(""),
                r.crash.as_deref().unwrap_or("")
            )
        })
        .collect();
    assert!(
        crashes.is_empty(),
        "the adapter panicked:\n{}",
        crashes.join("\n")
    );
    let silent: Vec<String> = report
        .silent
        .iter()
        .map(|r| {
            format!(
                "{}:{} (parser: {})",
                r.path,
                r.mutation.as_deref().unwrap_or(""),
                r.rejected.as_deref().unwrap_or("")
            )
        })
        .collect();
    assert!(
        silent.is_empty(),
        "mutants the parser rejects got no error diagnostic:\n{}",
        silent.join("\n")
    );
    let mut lossy: Vec<_> = report
        .results
        .iter()
        .filter(|r| !r.lost.is_empty())
        .collect();
    lossy.sort_by_key(|r| std::cmp::Reverse(r.lost.len()));
    let worst: Vec<String> = lossy
        .iter()
        .take(10)
        .map(|r| {
            format!(
                "lost {}/{}: {}:{}",
                r.lost.len(),
                r.expected,
                r.path,
                r.mutation.as_deref().unwrap_or("")
            )
        })
        .collect();
    assert!(
        report.kept_percent() >= GOAL_PERCENT,
        "{}\nbelow the goal of {GOAL_PERCENT} %; the mutants that lost most:\n{}",
        report.summary(),
        worst.join("\n")
    );
}

#[test]
fn python_outline_survives_one_syntax_error() {
    check(Lang::Python);
}

#[test]
fn typescript_outline_survives_one_syntax_error() {
    check(Lang::Ts);
}

#[test]
fn rust_outline_survives_one_syntax_error() {
    check(Lang::Rust);
}
