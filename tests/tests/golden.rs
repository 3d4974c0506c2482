//! Golden snapshots: every fixture under `tests/fixtures/<language>/` has its text
//! outline and its JSON outline pinned in `tests/tests/snapshots/`. Review changes
//! with `cargo insta review` (or accept them with `INSTA_UPDATE=always`).

mod common;

use std::path::Path;

use outline_core::{TextOptions, render_text};

fn snapshot(path: &Path) {
    let outline = common::outline_fixture(path);
    insta::assert_snapshot!("text", render_text(&outline, &TextOptions::default()));
    insta::assert_json_snapshot!("json", outline);
}

#[test]
fn python_fixtures() {
    insta::glob!(
        env!("CARGO_MANIFEST_DIR"),
        "fixtures/python/*.{py,pyi}",
        snapshot
    );
}

#[test]
fn typescript_fixtures() {
    insta::glob!(
        env!("CARGO_MANIFEST_DIR"),
        "fixtures/ts/*.{ts,tsx,mts,cts,js,jsx,mjs,cjs}",
        snapshot
    );
}

#[test]
fn rust_fixtures() {
    insta::glob!(env!("CARGO_MANIFEST_DIR"), "fixtures/rust/*.rs", snapshot);
}
