//! Differential test: the Python outline against CPython's own `ast`, on every
//! file of the standard library of the `python3` on `PATH`.
//!
//! `tests/oracle/python_ast.py` parses each `*.py` file below the stdlib
//! directory (except `site-packages`) with `ast.parse` and prints its classes,
//! functions, methods and lambda bindings as `(qualname, kind, start_line,
//! end_line)`. This test outlines the same files with [`ast_outline::outline_file`],
//! collects the symbols of kinds class/function/method (the whole tree, children
//! of `block` pseudo-symbols included; blocks themselves are not compared) and
//! compares the two multisets file by file.
//!
//! It fails when
//! - a symbol differs, unless it is in [`ALLOWED_SYMBOL_DIFFERENCES`];
//! - our outline has an error diagnostic (or no outline) for a file CPython
//!   accepts, unless the file is in [`ALLOWED_ERROR_FILES`];
//! - the oracle and this test do not see the same set of files.
//!
//! Files CPython rejects are not compared; those our outline reports no error
//! for are listed, not failed: CPython also rejects files for reasons outside
//! the grammar, such as an unknown coding declaration or undecodable bytes
//! (our tool decodes lossily, with a warning).
//!
//! `python3` is required: the test fails (it does not skip) when it is missing.
//! Run with the summary shown:
//! `cargo test -p golden-tests --test cpython_oracle -- --nocapture`.
//!
//! Setting `ORACLE_PYTHON_DIR=/some/dir` compares the `*.py` files below that
//! directory instead of the standard library (to probe other code; the
//! allow-lists are meant for the standard library).

mod common;

use std::collections::{BTreeMap, BTreeSet};
use std::io::Read;
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use ast_outline::{FileOutline, OutlineOptions, Severity, SymbolKind};
use serde_json::Value;

/// A symbol as compared: `(qualname, kind, start_line, end_line)`.
type Key = (String, String, u32, u32);

/// Symbol differences that are justified, as `(path, qualname, reason)`: any
/// missing or extra symbol with that qualname in that file (path relative to
/// the stdlib directory) is tolerated. Keep it empty unless a difference is
/// deliberate.
const ALLOWED_SYMBOL_DIFFERENCES: &[(&str, &str, &str)] = &[];

/// Files CPython accepts on which our outline may report an error, as
/// `(path, reason)`.
const ALLOWED_ERROR_FILES: &[(&str, &str)] = &[];

/// Worker threads for our side (the oracle runs in its own process meanwhile).
const THREADS: usize = 2;

/// What CPython said about one file.
struct OracleFile {
    ok: bool,
    error: Option<String>,
    symbols: Vec<Key>,
}

/// What our outline said about one file.
enum Ours {
    Outlined {
        symbols: Vec<Key>,
        errors: Vec<String>,
        warnings: Vec<String>,
    },
    Failed(String),
}

#[test]
fn outline_agrees_with_cpython_ast_on_the_standard_library() {
    let started = Instant::now();
    let stdlib = golden_tests::corpus::stdlib_dir();
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("oracle/python_ast.py");

    let mut child = Command::new("python3")
        .arg(&script)
        .arg(&stdlib)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot run python3 {}: {e}", script.display()));
    let mut child_stdout = child.stdout.take().expect("piped stdout");
    let mut child_stderr = child.stderr.take().expect("piped stderr");

    let files = golden_tests::corpus::python_files(&stdlib);
    let next = AtomicUsize::new(0);
    let (oracle_text, oracle_errors, ours) = std::thread::scope(|scope| {
        // Drain the oracle's pipes while our side works, so it never blocks.
        let stdout_reader = scope.spawn(move || {
            let mut text = String::new();
            child_stdout
                .read_to_string(&mut text)
                .expect("oracle stdout is UTF-8");
            text
        });
        let stderr_reader = scope.spawn(move || {
            let mut text = String::new();
            let _ = child_stderr.read_to_string(&mut text);
            text
        });
        let workers: Vec<_> = (0..THREADS)
            .map(|_| {
                scope.spawn(|| {
                    let mut done = Vec::new();
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        let Some((relative, path)) = files.get(i) else {
                            break;
                        };
                        done.push((relative.clone(), outline(path)));
                    }
                    done
                })
            })
            .collect();
        let ours: BTreeMap<String, Ours> = workers
            .into_iter()
            .flat_map(|w| w.join().expect("worker panicked"))
            .collect();
        (
            stdout_reader.join().expect("reader panicked"),
            stderr_reader.join().expect("reader panicked"),
            ours,
        )
    });
    let status = child.wait().expect("wait for the oracle");
    assert!(
        status.success(),
        "the oracle {} failed ({status}):\n{oracle_errors}",
        script.display()
    );
    let oracle = parse_oracle(&oracle_text);

    let report = compare(&oracle, &ours);
    println!("{}", report.text);
    println!("stdlib: {}", stdlib.display());
    println!("elapsed: {:.1?}", started.elapsed());
    assert!(
        report.failures.is_empty(),
        "the outline disagrees with CPython's ast:\n- {}\n(see the report above)",
        report.failures.join("\n- ")
    );
}

fn outline(path: &Path) -> Ours {
    match ast_outline::outline_file(path, &OutlineOptions::default()) {
        Ok(outline) => {
            let of = |severity: Severity| {
                outline
                    .diagnostics
                    .iter()
                    .filter(|d| d.severity == severity)
                    .map(|d| format!("{}:{}: {}", d.line, d.column, d.message))
                    .collect()
            };
            Ours::Outlined {
                symbols: symbols(&outline),
                errors: of(Severity::Error),
                warnings: of(Severity::Warning),
            }
        }
        Err(e) => Ours::Failed(e.to_string()),
    }
}

/// Our class/function/method symbols, children of blocks included.
fn symbols(outline: &FileOutline) -> Vec<Key> {
    let mut out = Vec::new();
    outline.walk(|s| {
        if matches!(
            s.kind,
            SymbolKind::Class | SymbolKind::Function | SymbolKind::Method
        ) {
            out.push((
                s.qualname.clone(),
                s.kind.as_str().to_owned(),
                s.start_line,
                s.end_line,
            ));
        }
    });
    out
}

fn parse_oracle(text: &str) -> BTreeMap<String, OracleFile> {
    let mut files = BTreeMap::new();
    for line in text.lines() {
        let record: Value =
            serde_json::from_str(line).unwrap_or_else(|e| panic!("bad oracle line ({e}): {line}"));
        let path = record["path"].as_str().expect("path").to_owned();
        let symbols = record["symbols"]
            .as_array()
            .expect("symbols")
            .iter()
            .map(|s| {
                let line = |i: usize| u32::try_from(s[i].as_u64().expect("line")).expect("u32");
                (
                    s[0].as_str().expect("qualname").to_owned(),
                    s[1].as_str().expect("kind").to_owned(),
                    line(2),
                    line(3),
                )
            })
            .collect();
        let file = OracleFile {
            ok: record["ok"].as_bool().expect("ok"),
            error: record["error"].as_str().map(str::to_owned),
            symbols,
        };
        assert!(
            files.insert(path.clone(), file).is_none(),
            "oracle listed {path} twice"
        );
    }
    files
}

/// Multiset difference `a - b` of two sorted lists.
fn difference(a: &[Key], b: &[Key]) -> Vec<Key> {
    let mut out = Vec::new();
    let mut j = 0;
    for x in a {
        while j < b.len() && b[j] < *x {
            j += 1;
        }
        if j < b.len() && b[j] == *x {
            j += 1;
        } else {
            out.push(x.clone());
        }
    }
    out
}

struct Report {
    text: String,
    failures: Vec<String>,
}

fn compare(oracle: &BTreeMap<String, OracleFile>, ours: &BTreeMap<String, Ours>) -> Report {
    use std::fmt::Write;
    let mut text = String::new();
    let mut failures = Vec::new();
    let mut used_allowances = BTreeSet::new();

    let oracle_paths: BTreeSet<&String> = oracle.keys().collect();
    let our_paths: BTreeSet<&String> = ours.keys().collect();
    for path in oracle_paths.difference(&our_paths) {
        failures.push(format!(
            "{path}: listed by the oracle, not by this test's walk"
        ));
    }
    for path in our_paths.difference(&oracle_paths) {
        failures.push(format!(
            "{path}: found by this test's walk, not by the oracle"
        ));
    }

    let (mut compared_files, mut matched, mut missing_total, mut extra_total) = (0, 0, 0, 0);
    let (mut oracle_total, mut our_total) = (0, 0);
    let mut disagreements = String::new();
    let mut rejected_undiagnosed = Vec::new();
    let mut rejected_count = 0;
    let mut lossy = Vec::new();
    for (path, expected) in oracle {
        let Some(ours) = ours.get(path) else {
            continue;
        };
        if !expected.ok {
            rejected_count += 1;
            let error = expected.error.as_deref().unwrap_or("?");
            if let Ours::Outlined {
                errors, warnings, ..
            } = ours
                && errors.is_empty()
            {
                let ours = if warnings.is_empty() {
                    "no diagnostic".to_owned()
                } else {
                    format!("only warnings: {}", warnings.join(" | "))
                };
                rejected_undiagnosed.push(format!("{path}: CPython: {error}; ours: {ours}"));
            }
            continue;
        }
        let (symbols, errors, warnings) = match ours {
            Ours::Outlined {
                symbols,
                errors,
                warnings,
            } => (symbols, errors, warnings),
            Ours::Failed(e) => {
                failures.push(format!("{path}: CPython parses it, we failed: {e}"));
                continue;
            }
        };
        compared_files += 1;
        if !errors.is_empty() {
            if let Some((_, reason)) = ALLOWED_ERROR_FILES.iter().find(|(p, _)| p == path) {
                used_allowances.insert(format!("error file {path}"));
                let _ = writeln!(text, "allowed errors in {path} ({reason}): {errors:?}");
            } else {
                failures.push(format!(
                    "{path}: CPython parses it, we report errors: {}",
                    errors.join(" | ")
                ));
            }
        }
        let mut expected_symbols = expected.symbols.clone();
        let mut our_symbols = symbols.clone();
        expected_symbols.sort();
        our_symbols.sort();
        oracle_total += expected_symbols.len();
        our_total += our_symbols.len();
        let missing = difference(&expected_symbols, &our_symbols);
        let extra = difference(&our_symbols, &expected_symbols);
        matched += expected_symbols.len() - missing.len();
        missing_total += missing.len();
        extra_total += extra.len();
        if !warnings.is_empty() {
            let names_differ = if missing.is_empty() && extra.is_empty() {
                "symbols agree"
            } else {
                "SYMBOLS DIFFER"
            };
            lossy.push(format!("{path}: {} ({names_differ})", warnings.join(" | ")));
        }
        if missing.is_empty() && extra.is_empty() {
            continue;
        }
        let _ = writeln!(disagreements, "{path}:");
        for (side, list) in [("missing in ours", &missing), ("extra in ours", &extra)] {
            for (qualname, kind, start, end) in list.iter() {
                let allowed = ALLOWED_SYMBOL_DIFFERENCES
                    .iter()
                    .find(|(p, q, _)| p == path && q == qualname);
                let note = match allowed {
                    Some((_, _, reason)) => {
                        used_allowances.insert(format!("symbol {path} {qualname}"));
                        format!("  (allowed: {reason})")
                    }
                    None => {
                        failures.push(format!("{path}: {side}: {qualname} {kind} {start}-{end}"));
                        String::new()
                    }
                };
                let _ = writeln!(
                    disagreements,
                    "  {side}: {qualname} [{kind}] {start}-{end}{note}"
                );
            }
        }
    }

    let compared = matched + missing_total + extra_total;
    let agreement = if compared == 0 {
        100.0
    } else {
        100.0 * matched as f64 / compared as f64
    };
    let _ = writeln!(text, "== CPython ast oracle vs ast-outline ==");
    let _ = writeln!(
        text,
        "files: {} walked, {compared_files} compared, {rejected_count} rejected by CPython",
        oracle.len()
    );
    let _ = writeln!(
        text,
        "symbols: {oracle_total} from CPython, {our_total} from ours, {matched} agree, \
         {missing_total} missing in ours, {extra_total} extra in ours"
    );
    let _ = writeln!(
        text,
        "agreement: {agreement:.3}% ({matched} / {compared} symbols compared)"
    );
    if !disagreements.is_empty() {
        let _ = write!(text, "-- disagreements --\n{disagreements}");
    }
    let _ = writeln!(
        text,
        "-- files CPython rejects that we report no error for: {} of {rejected_count} --",
        rejected_undiagnosed.len()
    );
    for line in &rejected_undiagnosed {
        let _ = writeln!(text, "  {line}");
    }
    if !lossy.is_empty() {
        let _ = writeln!(
            text,
            "-- files we decoded lossily (not UTF-8; CPython honours their coding) --"
        );
        for line in &lossy {
            let _ = writeln!(text, "  {line}");
        }
    }
    let declared = ALLOWED_SYMBOL_DIFFERENCES
        .iter()
        .map(|(p, q, _)| format!("symbol {p} {q}"))
        .chain(
            ALLOWED_ERROR_FILES
                .iter()
                .map(|(p, _)| format!("error file {p}")),
        );
    for allowance in declared {
        if !used_allowances.contains(&allowance) {
            let _ = writeln!(text, "note: allow-list entry not needed here: {allowance}");
        }
    }
    if !failures.is_empty() {
        let _ = writeln!(text, "-- {} failures --", failures.len());
    }
    Report { text, failures }
}
