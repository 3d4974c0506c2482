//! Differential test: the Rust outline against rust-analyzer's parser
//! (`ra_ap_syntax`), on the sources of the crates this workspace depends on.
//!
//! The corpus is every registry package in the workspace's `Cargo.lock`, read
//! from `$CARGO_HOME/registry/src/*/NAME-VERSION` (present after a build;
//! packages cargo did not download, such as other platforms' crates, are
//! skipped), so it is the same on every machine with the same lock file.
//!
//! Compared, file by file, as multisets of `(kind, name, start_line,
//! end_line)`: every `fn` (free, associated, in extern blocks, nested in
//! function bodies), `struct`, `enum`, `union`, `trait`, `impl` (no name),
//! inline `mod`, `const`, `static`, `type` alias, `macro_rules!` and macros
//! 2.0 (`macro m(…) { … }`). The start
//! is the first outer attribute, else the first token after the doc comments
//! (in rust-analyzer's tree, comments and attributes are children of the item
//! node, so the start is its first child that is not trivia).
//!
//! What is left out, and why:
//! - items we find inside macro invocations (marked `from_macro`):
//!   rust-analyzer sees macro arguments as token trees;
//! - items inside expressions that are not function bodies (a `const _: () =
//!   { impl … };` initializer): we do not look into them;
//! - files on which rust-analyzer reports a syntax error (test inputs for
//!   parsers, files for other editions), and their count is printed.
//!
//! Files rust-analyzer accepts but we outline as partial are differences.
//! The test fails when the agreement is below 99.9 % or a difference is not
//! listed in [`ALLOWED_DIFFERENCES`]. Run with the summary shown:
//! `cargo test -p golden-tests --test ra_oracle -- --nocapture`.

mod common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Instant;

use lang_rust::RustOutline;
use outline_core::{
    FileOutline, Language, LineIndex, Modifier, Outline, OutlineOptions, Symbol, SymbolKind,
};
use ra_ap_syntax::ast::{self, HasName};
use ra_ap_syntax::{AstNode, Edition, NodeOrToken, SourceFile, SyntaxKind, SyntaxNode};

/// A symbol as compared: `(kind, name, start_line, end_line)`.
type Key = (&'static str, String, u32, u32);

/// Differences that are understood, as `(path prefix, name, reason)`: a
/// missing or extra symbol of that name (`*`: any, and a partial outline) in a
/// file whose path (`NAME-VERSION/…`) starts with the prefix is tolerated.
const ALLOWED_DIFFERENCES: &[(&str, &str, &str)] = &[
    (
        "ra_ap_parser-0.0.349/test_data/",
        "*",
        "rust-analyzer's own parser test inputs: syntax that is experimental or not \
     Rust (frontmatter, `gen fn`, field mutability restrictions, return type \
     notation, `default` items, `impl const Trait`), which syn 3 rejects",
    ),
    (
        "zerocopy-derive-0.8.64/src/output_tests/expected/into_bytes_enum.",
        "*",
        "items inside a block that is a const generic argument in a `where` clause \
         (`PaddingFree<Self, { enum ___ZerocopyTag … }>`): types are not searched for items",
    ),
];

/// Worker threads.
const THREADS: usize = 2;

#[test]
fn outline_agrees_with_rust_analyzer_on_the_locked_crates() {
    let started = Instant::now();
    let files = golden_tests::corpus::locked_crate_files();
    assert!(
        files.len() > 500,
        "the corpus is too small ({} files): build the workspace first so cargo \
         downloads the locked crates",
        files.len()
    );
    let chunks: Vec<&[PathBuf]> = files.chunks(files.len().div_ceil(THREADS)).collect();
    let results: Vec<FileResult> = std::thread::scope(|scope| {
        let handles: Vec<_> = chunks
            .into_iter()
            .map(|chunk| {
                std::thread::Builder::new()
                    .stack_size(64 << 20)
                    .spawn_scoped(scope, move || {
                        chunk
                            .iter()
                            .filter_map(|p| compare_file(p))
                            .collect::<Vec<_>>()
                    })
                    .expect("worker thread starts")
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().expect("worker thread"))
            .collect()
    });
    let mut compared = 0usize;
    let mut agreed = 0usize;
    let mut ra_errors = 0usize;
    let mut bytes = 0usize;
    let mut unexplained = Vec::new();
    let mut explained = Vec::new();
    for result in &results {
        bytes += result.bytes;
        if result.ra_error {
            ra_errors += 1;
            continue;
        }
        compared += result.oracle;
        agreed += result.oracle - result.missing.len();
        let all = result
            .missing
            .iter()
            .map(|k| ("missing", k))
            .chain(result.extra.iter().map(|k| ("extra", k)));
        for (what, key) in all {
            let line = format!(
                "{}: {what} {} {} {}-{}",
                result.path, key.0, key.1, key.2, key.3
            );
            match ALLOWED_DIFFERENCES.iter().find(|(prefix, name, _)| {
                result.path.starts_with(prefix) && (*name == "*" || key.1 == *name)
            }) {
                Some((_, _, reason)) => explained.push(format!("{line} ({reason})")),
                None => unexplained.push(line),
            }
        }
        if result.partial {
            let line = format!(
                "{}: outlined as partial although rust-analyzer accepts it: {}",
                result.path, result.first_error
            );
            match ALLOWED_DIFFERENCES
                .iter()
                .find(|(prefix, name, _)| result.path.starts_with(prefix) && *name == "*")
            {
                Some((_, _, reason)) => explained.push(format!("{line} ({reason})")),
                None => unexplained.push(line),
            }
        }
    }
    let agreement = if compared == 0 {
        0.0
    } else {
        agreed as f64 * 100.0 / compared as f64
    };
    println!(
        "ra oracle: {} files ({:.1} MB), {} skipped for rust-analyzer syntax errors; \
         {compared} symbols compared, {agreed} found with the same lines ({agreement:.3} %); \
         {} explained and {} unexplained differences; {:.1} s",
        results.len(),
        bytes as f64 / 1e6,
        ra_errors,
        explained.len(),
        unexplained.len(),
        started.elapsed().as_secs_f64()
    );
    for line in explained.iter().take(20) {
        println!("  explained: {line}");
    }
    if explained.len() > 20 {
        println!("  … and {} more explained", explained.len() - 20);
    }
    for line in unexplained.iter().take(200) {
        println!("  DIFFERENCE: {line}");
    }
    assert!(
        agreement >= 99.9,
        "agreement {agreement:.3} % is below 99.9 %"
    );
    assert!(
        unexplained.is_empty(),
        "{} differences are not explained (see the summary above)",
        unexplained.len()
    );
}

/// What one file gave.
struct FileResult {
    path: String,
    bytes: usize,
    ra_error: bool,
    partial: bool,
    first_error: String,
    oracle: usize,
    missing: Vec<Key>,
    extra: Vec<Key>,
}

/// Every `.rs` file of the registry packages in the workspace lock file,
/// sorted.
fn compare_file(path: &Path) -> Option<FileResult> {
    let text = std::fs::read_to_string(path).ok()?;
    let text = outline_core::strip_bom(&text);
    let display = path.to_string_lossy().replace('\\', "/");
    let display = display
        .split("/registry/src/")
        .nth(1)
        .and_then(|rest| rest.split_once('/').map(|(_, p)| p.to_owned()))
        .unwrap_or(display.clone());
    let parse = SourceFile::parse(text, Edition::Edition2024);
    let ra_error = !parse.errors().is_empty();
    let mut result = FileResult {
        path: display.clone(),
        bytes: text.len(),
        ra_error,
        partial: false,
        first_error: String::new(),
        oracle: 0,
        missing: Vec::new(),
        extra: Vec::new(),
    };
    if ra_error {
        return Some(result);
    }
    let index = LineIndex::new(text);
    let mut theirs = oracle_symbols(&parse.syntax_node(), &index);
    let outline = RustOutline.outline(&display, Language::Rust, text, &OutlineOptions::default());
    result.partial = outline.partial;
    result.first_error = outline
        .diagnostics
        .first()
        .map(|d| format!("L{}:{} {}", d.line, d.column, d.message))
        .unwrap_or_default();
    let mut ours = our_symbols(&outline);
    theirs.sort();
    ours.sort();
    result.oracle = theirs.len();
    let (missing, extra) = difference(&theirs, &ours);
    result.missing = missing;
    result.extra = extra;
    Some(result)
}

/// Multiset differences `(a - b, b - a)` of two sorted lists.
fn difference(a: &[Key], b: &[Key]) -> (Vec<Key>, Vec<Key>) {
    let mut count: BTreeMap<&Key, i64> = BTreeMap::new();
    for k in a {
        *count.entry(k).or_default() += 1;
    }
    for k in b {
        *count.entry(k).or_default() -= 1;
    }
    let mut missing = Vec::new();
    let mut extra = Vec::new();
    for (k, n) in count {
        for _ in 0..n.max(0) {
            missing.push(k.clone());
        }
        for _ in 0..(-n).max(0) {
            extra.push(k.clone());
        }
    }
    (missing, extra)
}

fn oracle_symbols(root: &SyntaxNode, index: &LineIndex<'_>) -> Vec<Key> {
    let mut out = Vec::new();
    for node in root.descendants() {
        let kind = match node.kind() {
            SyntaxKind::FN => "fn",
            SyntaxKind::STRUCT => "struct",
            SyntaxKind::ENUM => "enum",
            SyntaxKind::UNION => "union",
            SyntaxKind::TRAIT => "trait",
            SyntaxKind::IMPL => "impl",
            SyntaxKind::MODULE => {
                let inline =
                    ast::Module::cast(node.clone()).is_some_and(|m| m.item_list().is_some());
                if !inline {
                    continue;
                }
                "mod"
            }
            SyntaxKind::CONST => "const",
            SyntaxKind::STATIC => "static",
            SyntaxKind::TYPE_ALIAS => "type",
            SyntaxKind::MACRO_RULES => "macro_rules",
            SyntaxKind::MACRO_DEF => "macro",
            _ => continue,
        };
        let name = if kind == "impl" {
            String::new()
        } else {
            ast::AnyHasName::cast(node.clone())
                .and_then(|n| n.name())
                .map(|n| n.text().to_string())
                .unwrap_or_else(|| "_".to_owned())
        };
        let start = node
            .children_with_tokens()
            .find(|child| match child {
                NodeOrToken::Token(token) => !token.kind().is_trivia(),
                NodeOrToken::Node(_) => true,
            })
            .map(|child| child.text_range().start())
            .unwrap_or(node.text_range().start());
        let start = usize::from(start);
        let end = usize::from(node.text_range().end());
        out.push((kind, name, index.line(start), index.end_line(start, end)));
    }
    out
}

fn our_symbols(outline: &FileOutline) -> Vec<Key> {
    fn visit(symbols: &[Symbol], out: &mut Vec<Key>) {
        for s in symbols {
            if s.has(Modifier::FromMacro) {
                continue;
            }
            let kind = match s.kind {
                SymbolKind::Function | SymbolKind::Method => Some("fn"),
                SymbolKind::Struct => Some("struct"),
                SymbolKind::Enum => Some("enum"),
                SymbolKind::Union => Some("union"),
                SymbolKind::Trait => Some("trait"),
                SymbolKind::Impl => Some("impl"),
                SymbolKind::Module if !s.has(Modifier::Bodiless) => Some("mod"),
                SymbolKind::Constant => Some("const"),
                SymbolKind::Variable if s.has(Modifier::Static) => Some("static"),
                SymbolKind::TypeAlias => Some("type"),
                SymbolKind::Macro
                    if s.signature
                        .as_deref()
                        .is_some_and(|x| x.starts_with("macro_rules!")) =>
                {
                    Some("macro_rules")
                }
                // Macros 2.0 are signed `pub macro m(…)`, invocations `m! { … }`.
                SymbolKind::Macro if is_macro_2(s) => Some("macro"),
                _ => None,
            };
            if let Some(kind) = kind {
                let name = if kind == "impl" {
                    String::new()
                } else {
                    s.name.clone()
                };
                out.push((kind, name, s.start_line, s.end_line));
            }
            visit(&s.children, out);
        }
    }
    let mut out = Vec::new();
    visit(&outline.symbols, &mut out);
    out
}

/// Whether `symbol` is a macros 2.0 item: its signature, after the
/// visibility, starts with `macro `.
fn is_macro_2(symbol: &Symbol) -> bool {
    let Some(signature) = symbol.signature.as_deref() else {
        return false;
    };
    let rest = match &symbol.visibility {
        Some(vis) => signature.strip_prefix(vis.as_str()).unwrap_or(signature),
        None => signature,
    };
    rest.trim_start().starts_with("macro ")
}
