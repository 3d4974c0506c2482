//! Helpers shared by the integration tests.

#![allow(dead_code)]

pub mod expect;

use std::path::{Path, PathBuf};
use std::process::Command;

use ast_outline::{FileOutline, OutlineOptions, SourceText};
use outline_core::Language;

/// The `tests/` directory of the workspace.
pub fn tests_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The path of a fixture as shown in ids: relative to `tests/`, with `/`.
pub fn fixture_display(path: &Path) -> String {
    path.strip_prefix(tests_dir())
        .unwrap_or(path)
        .to_string_lossy()
        .replace('\\', "/")
}

/// Outlines a fixture file with the default options.
pub fn outline_fixture(path: &Path) -> FileOutline {
    let display = fixture_display(path);
    let language = Language::from_path(&display).expect("fixture has a known extension");
    let bytes = std::fs::read(path).expect("fixture is readable");
    SourceText::from_bytes(bytes, Some(language)).outline(
        &display,
        language,
        &OutlineOptions::default(),
    )
}

/// Every source fixture (a file of a known language) under `tests/fixtures/*/`,
/// sorted by path.
pub fn all_fixtures() -> Vec<PathBuf> {
    let root = tests_dir().join("fixtures");
    let mut paths: Vec<PathBuf> = std::fs::read_dir(&root)
        .expect("tests/fixtures exists")
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.is_dir())
        .flat_map(|dir| std::fs::read_dir(dir).expect("fixture folder is readable"))
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| Language::from_path(&p.to_string_lossy()).is_some())
        .collect();
    paths.sort();
    paths
}

/// The Python standard library directory of the `python3` on `PATH`, or
/// `ORACLE_PYTHON_DIR` when set. Panics (the tests need it) when neither works.
pub fn stdlib_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("ORACLE_PYTHON_DIR") {
        let dir = PathBuf::from(dir);
        assert!(
            dir.is_dir(),
            "ORACLE_PYTHON_DIR {} is not a directory",
            dir.display()
        );
        return dir;
    }
    let output = Command::new("python3")
        .args([
            "-c",
            "import sysconfig; print(sysconfig.get_paths()['stdlib'])",
        ])
        .output()
        .unwrap_or_else(|e| {
            panic!(
                "this test needs `python3` on PATH (CPython's ast is the oracle), \
                 but it cannot be run: {e}"
            )
        });
    assert!(
        output.status.success(),
        "python3 could not report its stdlib directory: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let dir = PathBuf::from(String::from_utf8_lossy(&output.stdout).trim());
    assert!(dir.is_dir(), "stdlib directory {} not found", dir.display());
    dir
}

/// Every `*.py` file below `root`, as (relative path with `/`, path), walked
/// like the oracle's `os.walk`: symlinked directories are not entered, and only
/// `root/site-packages` is skipped.
pub fn python_files(root: &Path) -> Vec<(String, PathBuf)> {
    fn walk(root: &Path, dir: &Path, out: &mut Vec<(String, PathBuf)>) {
        let mut entries: Vec<_> = std::fs::read_dir(dir)
            .unwrap_or_else(|e| panic!("cannot list {}: {e}", dir.display()))
            .map(|entry| entry.expect("directory entry").path())
            .collect();
        entries.sort();
        for path in entries {
            if path.is_dir() {
                let symlink = path.symlink_metadata().is_ok_and(|m| m.is_symlink());
                let skipped = dir == root && path.file_name() == Some("site-packages".as_ref());
                if !symlink && !skipped {
                    walk(root, &path, out);
                }
            } else if path.to_string_lossy().ends_with(".py") {
                let relative = path.strip_prefix(root).expect("below root");
                let relative = relative.to_string_lossy().replace('\\', "/");
                out.push((relative, path));
            }
        }
    }
    let mut out = Vec::new();
    walk(root, root, &mut out);
    out
}
