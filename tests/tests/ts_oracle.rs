//! Differential test: the TypeScript outline against the TypeScript compiler
//! API (`typescript@5`, pinned in `tests/oracle/ts/package.json`), on the
//! `lib*.d.ts` files and `typescript.d.ts` shipped in `typescript/lib`, on the
//! `.ts` sources of rxjs 7 (`rxjs/src`) and on its compiled output
//! (`rxjs/dist/cjs` and `rxjs/dist/esm` JavaScript, `rxjs/dist/types`
//! declarations), all installed by `npm ci` from the committed lockfile.
//!
//! `tests/oracle/ts/oracle.js` parses each file with `ts.createSourceFile` and
//! prints its classes, interfaces, enums, functions, methods (method
//! signatures included), constructors, getters, setters, type aliases and
//! namespaces as `(kind, name, start line, end line)`, where the start is the
//! line of `node.getStart()` (decorators included, JSDoc excluded) and the end
//! the line of `node.getEnd()`. This test outlines the same files and checks
//! that every one of those is in our outline (anywhere in the tree, block
//! children included) with the same kind, name and lines.
//!
//! It fails when
//! - an oracle symbol is missing from our outline, unless it is listed in
//!   [`ALLOWED_DIFFERENCES`] with its reason;
//! - agreement falls below 99.9 %;
//! - our outline reports an error for a file the compiler parses cleanly.
//!
//! Our own fixtures (`tests/fixtures/ts`, TSX and JSX included) are compared
//! too; files the compiler finds syntax errors in are listed, not compared.
//!
//! `node` is required: the test fails (it does not skip) when it is missing.
//! When `tests/oracle/ts/node_modules` is missing it runs `npm ci` there first.
//! Run with the summary shown:
//! `cargo test -p golden-tests --test ts_oracle -- --nocapture`.

mod common;

use std::collections::BTreeMap;
use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Instant;

use ast_outline::{FileOutline, OutlineOptions, Severity, SourceText, SymbolKind};
use outline_core::Language;
use serde_json::Value;

/// A symbol as compared: `(kind, name, start_line, end_line)`.
type Key = (String, String, u32, u32);

/// Oracle symbols we do not report with the same lines, as
/// `(path below tests/oracle/ts, kind, name, reason)`.
const ALLOWED_DIFFERENCES: &[(&str, &str, &str, &str)] = &[];

/// The corpus, as paths relative to the oracle directory with `/`: the npm
/// packages' files, then our own fixtures.
fn corpus(dir: &Path) -> Vec<String> {
    let mut files = golden_tests::corpus::ts_package_files(dir);
    // Our own fixtures (TSX and JSX among them), as `../../fixtures/ts/…`.
    let fixtures = common::tests_dir().join("fixtures").join("ts");
    let mut own: Vec<String> = std::fs::read_dir(&fixtures)
        .expect("fixture folder exists")
        .map(|e| e.expect("directory entry").path())
        .filter(|p| Language::from_path(&p.to_string_lossy()).is_some())
        .map(|p| {
            let name = p.file_name().expect("file name").to_string_lossy();
            format!("../../fixtures/ts/{name}")
        })
        .collect();
    own.sort();
    files.extend(own);
    files
}

/// What the compiler said about each file.
fn run_oracle(dir: &Path, files: &[String]) -> BTreeMap<String, (u64, Vec<Key>)> {
    let mut child = Command::new("node")
        .arg("oracle.js")
        .current_dir(dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| {
            panic!(
                "this test needs `node` on PATH (the TypeScript compiler API is the oracle): {e}"
            )
        });
    let mut stdin = child.stdin.take().expect("stdin");
    stdin
        .write_all(files.join("\n").as_bytes())
        .expect("write file list");
    drop(stdin);
    let output = child.wait_with_output().expect("oracle runs");
    assert!(output.status.success(), "oracle.js failed");
    let text = String::from_utf8(output.stdout).expect("oracle prints UTF-8");
    let mut out = BTreeMap::new();
    for line in text.lines().filter(|l| !l.is_empty()) {
        let value: Value = serde_json::from_str(line).expect("oracle prints JSON");
        let file = value["file"].as_str().expect("file").to_owned();
        let errors = value["parse_errors"].as_u64().expect("parse_errors");
        let symbols = value["symbols"]
            .as_array()
            .expect("symbols")
            .iter()
            .map(|s| {
                let line = |i: usize| u32::try_from(s[i].as_u64().expect("line")).expect("u32");
                (
                    s[0].as_str().expect("kind").to_owned(),
                    s[1].as_str().expect("name").to_owned(),
                    line(2),
                    line(3),
                )
            })
            .collect();
        out.insert(file, (errors, symbols));
    }
    out
}

fn ours(outline: &FileOutline) -> Vec<Key> {
    let mut out = Vec::new();
    outline.walk(|s| {
        let kind = match s.kind {
            SymbolKind::Class => "class",
            SymbolKind::Interface => "interface",
            SymbolKind::Enum => "enum",
            SymbolKind::Function => "function",
            SymbolKind::Method => "method",
            SymbolKind::Constructor => "constructor",
            SymbolKind::Getter => "getter",
            SymbolKind::Setter => "setter",
            SymbolKind::TypeAlias => "type_alias",
            SymbolKind::Module => "module",
            _ => return,
        };
        out.push((kind.to_owned(), s.name.clone(), s.start_line, s.end_line));
    });
    out
}

#[test]
fn outline_agrees_with_the_typescript_compiler() {
    let dir = golden_tests::corpus::ts_oracle_dir();
    golden_tests::corpus::ensure_ts_packages(&dir);
    let files = corpus(&dir);
    assert!(files.len() > 300, "corpus too small: {} files", files.len());

    let started = Instant::now();
    let oracle = run_oracle(&dir, &files);
    let oracle_time = started.elapsed();
    assert_eq!(oracle.len(), files.len(), "the oracle skipped files");

    let started = Instant::now();
    let options = OutlineOptions::default();
    let mut total = 0usize;
    let mut matched = 0usize;
    let mut bytes = 0usize;
    let mut unexplained = Vec::new();
    let mut allowed_seen = Vec::new();
    let mut error_files = Vec::new();
    let mut skipped = Vec::new();
    for file in &files {
        let path = dir.join(file);
        let data = std::fs::read(&path).expect("corpus file is readable");
        bytes += data.len();
        let language = Language::from_path(file).expect("known extension");
        let outline =
            SourceText::from_bytes(data, Some(language)).outline(file, language, &options);
        let (errors, expected) = &oracle[file];
        if *errors > 0 {
            // The compiler recovers differently from us: not compared.
            skipped.push(file.as_str());
            continue;
        }
        if *errors == 0
            && outline
                .diagnostics
                .iter()
                .any(|d| d.severity == Severity::Error)
        {
            error_files.push(format!("{file}: {:?}", outline.diagnostics.first()));
        }
        let mut mine = ours(&outline);
        for key in expected {
            total += 1;
            if let Some(i) = mine.iter().position(|m| m == key) {
                mine.swap_remove(i);
                matched += 1;
                continue;
            }
            let allowed = ALLOWED_DIFFERENCES
                .iter()
                .find(|(f, kind, name, _)| f == file && *kind == key.0 && *name == key.1);
            match allowed {
                Some(a) => allowed_seen.push(a.0),
                None => unexplained.push(format!(
                    "{file}: {} {} {}-{} (closest ours: {:?})",
                    key.0,
                    key.1,
                    key.2,
                    key.3,
                    mine.iter()
                        .filter(|m| m.1 == key.1)
                        .map(|m| (m.0.as_str(), m.2, m.3))
                        .take(3)
                        .collect::<Vec<_>>()
                )),
            }
        }
    }
    let ours_time = started.elapsed();
    let agreement = if total == 0 {
        0.0
    } else {
        matched as f64 * 100.0 / total as f64
    };
    println!(
        "TypeScript oracle: {} files ({:.1} MB; {} with syntax errors not compared: {skipped:?}), \
         {total} compiler symbols, {matched} matched ({agreement:.3} %), {} allowed differences, \
         {} unexplained; compiler {:.2?}, ours {:.2?}",
        files.len(),
        bytes as f64 / 1e6,
        skipped.len(),
        allowed_seen.len(),
        unexplained.len(),
        oracle_time,
        ours_time
    );
    for line in unexplained.iter().take(60) {
        println!("  {line}");
    }
    assert!(
        error_files.is_empty(),
        "errors on files the compiler parses:\n{}",
        error_files.join("\n")
    );
    assert!(
        unexplained.is_empty(),
        "{} compiler symbols not found with the same lines (first 60 above)",
        unexplained.len()
    );
    assert!(agreement >= 99.9, "agreement {agreement:.3} % below 99.9 %");
}
