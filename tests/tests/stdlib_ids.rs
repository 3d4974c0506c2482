//! The main job on real input: every symbol id the outline issues for the
//! machine's Python standard library resolves back to that same symbol. (That
//! the `read` command prints exactly its lines is checked in `cli/tests/cli.rs`.)

mod common;

use ast_outline::{OutlineOptions, Resolution, outline_file, resolve};
use outline_core::{FileOutline, Symbol, split_target};

fn outlines() -> Vec<FileOutline> {
    let stdlib = golden_tests::corpus::stdlib_dir();
    let files = golden_tests::corpus::python_files(&stdlib);
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
            let Ok((path, selector)) = split_target(&symbol.id, |p| p == outline.path) else {
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
