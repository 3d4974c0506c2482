//! The main job on real input: every symbol id the outline issues for the
//! machine's Python standard library reads back to that same symbol, and the
//! `read` command prints exactly its lines.

mod common;

use std::process::Command;

use ast_outline::{OutlineOptions, Resolution, outline_file, resolve};
use outline_core::{FileOutline, Symbol, split_target};

fn outlines() -> Vec<FileOutline> {
    let stdlib = common::stdlib_dir();
    let files = common::python_files(&stdlib);
    assert!(
        files.len() > 500,
        "only {} files in {}",
        files.len(),
        stdlib.display()
    );
    std::thread::scope(|scope| {
        let workers: Vec<_> = files
            .chunks(files.len().div_ceil(2))
            .map(|chunk| {
                scope.spawn(move || {
                    chunk
                        .iter()
                        .map(|(_, path)| {
                            outline_file(path, &OutlineOptions::default())
                                .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
                        })
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        workers
            .into_iter()
            .flat_map(|w| w.join().expect("worker finished"))
            .collect()
    })
}

#[test]
fn every_id_of_the_standard_library_resolves_to_its_symbol() {
    let outlines = outlines();
    let mut checked = 0usize;
    let mut failures = Vec::new();
    for outline in &outlines {
        let mut symbols: Vec<&Symbol> = Vec::new();
        outline.walk(|s| symbols.push(s));
        for symbol in symbols {
            checked += 1;
            let Some((path, selector)) = split_target(&symbol.id, |p| p == outline.path) else {
                failures.push(format!("{}: id does not split", symbol.id));
                continue;
            };
            assert_eq!(path, outline.path);
            let found = match resolve(outline, &selector) {
                Resolution::Found(found) => found.id == symbol.id,
                _ => false,
            };
            if !found {
                failures.push(format!("{}: does not resolve to itself", symbol.id));
            }
        }
    }
    eprintln!("ids checked: {checked} in {} files", outlines.len());
    assert!(checked > 50_000, "only {checked} ids");
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures[..failures.len().min(30)].join("\n")
    );
}

/// Runs the `read` command of the binary built for these tests.
fn read(target: &str) -> (bool, String) {
    let output = Command::new(common::binary())
        .args(["read", target])
        .output()
        .expect("run ast-outline read");
    (
        output.status.success(),
        String::from_utf8_lossy(&output.stdout).into_owned(),
    )
}

#[test]
fn read_prints_exact_lines_for_ids_from_the_standard_library() {
    let stdlib = common::stdlib_dir();
    let mut checked = 0;
    for relative in [
        "json/decoder.py",
        "functools.py",
        "asyncio/locks.py",
        "dataclasses.py",
    ] {
        let path = stdlib.join(relative);
        let outline = outline_file(&path, &OutlineOptions::default()).expect("outline");
        let text = std::fs::read_to_string(&path).expect("read");
        let lines: Vec<&str> = text.split_inclusive('\n').collect();
        let mut symbols: Vec<&Symbol> = Vec::new();
        outline.walk(|s| symbols.push(s));
        // Every 5th symbol keeps the run short and still varied.
        for symbol in symbols.iter().step_by(5) {
            let (ok, out) = read(&symbol.id);
            assert!(ok, "read {} failed", symbol.id);
            let (header, body) = out.split_once('\n').expect("a header line");
            let range = format!(":{}-{} ", symbol.start_line, symbol.end_line);
            assert!(
                header.starts_with("==> ") && header.contains(&range),
                "{header}"
            );
            let expected: String =
                lines[symbol.start_line as usize - 1..symbol.end_line as usize].concat();
            assert_eq!(body, expected, "{}", symbol.id);
            checked += 1;
        }
    }
    assert!(checked > 40, "only {checked} reads");
}
