//! Helpers shared by the integration tests.

#![allow(dead_code)]

pub mod expect;

use std::path::{Path, PathBuf};

use ast_outline::{FileOutline, OutlineOptions, SourceText};
use outline_core::Language;

/// The `tests/` directory of the workspace.
pub fn tests_dir() -> PathBuf {
    golden_tests::corpus::tests_dir()
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
