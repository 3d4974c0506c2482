//! Chunk invariants on real code: the machine's Python standard library, the
//! TypeScript corpora (the TypeScript lib files, rxjs, and the application
//! code of ra-core and msw) and the Rust crates of `Cargo.lock` (a sample).
//! For every file, [`ast_outline::chunk_source`]'s chunks
//! - hold every line exactly once, in order, each chunk's text being exactly
//!   its lines;
//! - start inside a symbol (a definition or a control-flow block) only at
//!   the first line of one of its descendants (a symbol within its lines)
//!   (or of the comment and blank lines right above one) or right after one
//!   ends: no definition is cut mid-way;
//! - stay within the budget unless they are one unit that cannot be cut: a
//!   whole symbol over the budget has no members or blocks.

use std::path::PathBuf;

use ast_outline::chunks::{Chunk, ChunkOptions, ChunkPart};
use golden_tests::mutation::{Lang, sample};
use outline_core::{FileOutline, Symbol};

/// The test's token counter: a quarter of the bytes, rounded up (the
/// invariants hold for any counter; this one is fast in a debug build).
fn count(text: &str) -> usize {
    text.len().div_ceil(4)
}

const MAX_TOKENS: usize = 300;

fn is_comment_or_blank(line: &str) -> bool {
    let t = line.trim_start();
    t.is_empty()
        || ["#", "//", "/*", "*", "*/"]
            .iter()
            .any(|p| t.starts_with(p))
}

/// The problems with one file's chunks (empty when it keeps the invariants).
fn check(outline: &FileOutline, source: &str, chunks: &[Chunk]) -> Vec<String> {
    let path = &outline.path;
    let text = outline_core::strip_bom(source);
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let mut problems = Vec::new();
    if lines.is_empty() {
        if !chunks.is_empty() {
            problems.push(format!("{path}: an empty file gave chunks"));
        }
        return problems;
    }
    let mut next = 1u32;
    for chunk in chunks {
        if chunk.start_line != next || chunk.end_line < chunk.start_line {
            problems.push(format!(
                "{path}: chunk {}-{} after line {}",
                chunk.start_line,
                chunk.end_line,
                next - 1
            ));
            return problems;
        }
        let expected: String =
            lines[(chunk.start_line - 1) as usize..chunk.end_line as usize].concat();
        if chunk.text != expected {
            problems.push(format!(
                "{path}: chunk {}-{} text differs",
                chunk.start_line, chunk.end_line
            ));
        }
        if chunk.tokens != count(&chunk.text) || chunk.over_budget != (chunk.tokens > MAX_TOKENS) {
            problems.push(format!("{path}: chunk {} miscounted", chunk.id));
        }
        next = chunk.end_line + 1;
    }
    if next as usize != lines.len() + 1 {
        problems.push(format!(
            "{path}: chunks end at line {} of {}",
            next - 1,
            lines.len()
        ));
    }
    let mut symbols: Vec<&Symbol> = Vec::new();
    outline.walk(|s| symbols.push(s));
    for boundary in chunks.iter().skip(1).map(|c| c.start_line) {
        for symbol in &symbols {
            if !(symbol.start_line < boundary && boundary <= symbol.end_line) {
                continue;
            }
            // Its descendants by lines: its children, and symbols the outline
            // lists beside it within its lines (functions in an IIFE).
            let descendants: Vec<&&Symbol> = symbols
                .iter()
                .filter(|s| {
                    !std::ptr::eq(**s, *symbol)
                        && symbol.start_line <= s.start_line
                        && s.end_line <= symbol.end_line
                })
                .collect();
            let allowed = descendants.iter().any(|d| {
                d.end_line + 1 == boundary
                    || (d.start_line >= boundary
                        && (boundary..d.start_line)
                            .all(|l| is_comment_or_blank(lines[(l - 1) as usize])))
            });
            if !allowed {
                problems.push(format!(
                    "{path}: a chunk starts at line {boundary}, inside {} {} ({}-{}) between its members",
                    symbol.kind.as_str(),
                    symbol.id,
                    symbol.start_line,
                    symbol.end_line
                ));
            }
        }
    }
    for chunk in chunks
        .iter()
        .filter(|c| c.over_budget && c.part == ChunkPart::Whole)
    {
        if let Some(symbol) = symbols.iter().find(|s| s.id == chunk.id)
            && !symbol.children.is_empty()
        {
            problems.push(format!(
                "{path}: {} is over the budget but has members or blocks",
                chunk.id
            ));
        }
    }
    problems
}

/// Chunks every file of `lang`'s corpus (at most `most` of them, spread
/// evenly) and returns (files, chunks, chunks over budget, problems).
fn run(lang: Lang, most: Option<usize>) -> (usize, usize, usize, Vec<String>) {
    let files: Vec<(String, PathBuf)> = sample(&lang.corpus(), most);
    assert!(
        files.len() > 100,
        "only {} {} files",
        files.len(),
        lang.name()
    );
    let options = ChunkOptions {
        max_tokens: MAX_TOKENS,
    };
    let results: Vec<(usize, usize, Vec<String>)> = std::thread::scope(|scope| {
        let workers: Vec<_> = files
            .chunks(files.len().div_ceil(2))
            .map(|part| {
                scope.spawn(move || {
                    part.iter()
                        .map(|(shown, path)| {
                            let bytes = std::fs::read(path)
                                .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
                            let source = String::from_utf8_lossy(&bytes);
                            let outline = ast_outline::outline_source(
                                shown,
                                &source,
                                &ast_outline::chunk_outline_options(),
                            )
                            .unwrap_or_else(|e| panic!("{shown}: {e}"));
                            let chunks =
                                ast_outline::chunks::chunk(&outline, &source, &options, &count);
                            let over = chunks.iter().filter(|c| c.over_budget).count();
                            (chunks.len(), over, check(&outline, &source, &chunks))
                        })
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        workers
            .into_iter()
            .flat_map(|w| w.join().expect("worker finished"))
            .collect()
    });
    let chunks = results.iter().map(|r| r.0).sum();
    let over = results.iter().map(|r| r.1).sum();
    let problems = results.into_iter().flat_map(|r| r.2).collect();
    (files.len(), chunks, over, problems)
}

fn assert_invariants(lang: Lang, most: Option<usize>) {
    let (files, chunks, over, problems) = run(lang, most);
    eprintln!(
        "{}: {files} files, {chunks} chunks of at most {MAX_TOKENS} tokens, {over} over the budget \
         (one unit that cannot be cut), {} problems",
        lang.name(),
        problems.len()
    );
    assert!(chunks > files, "only {chunks} chunks for {files} files");
    assert!(
        problems.is_empty(),
        "{} problems:\n{}",
        problems.len(),
        problems[..problems.len().min(30)].join("\n")
    );
}

#[test]
fn chunks_of_the_python_standard_library_keep_the_invariants() {
    assert_invariants(Lang::Python, None);
}

#[test]
fn chunks_of_the_typescript_corpora_keep_the_invariants() {
    assert_invariants(Lang::Ts, Some(3_000));
}

#[test]
fn chunks_of_the_rust_crates_keep_the_invariants() {
    assert_invariants(Lang::Rust, Some(3_000));
}
