//! The committed docs agree with the code: docs/settings.schema.json is
//! `schema_text()`, and docs/settings.md's example parses.
#![allow(clippy::unwrap_used)]

use std::path::{Path, PathBuf};

use ast_outline_settings::{ContextKind, Settings, schema_text};

fn docs() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs")
}

#[test]
fn schema_file_is_current() {
    let path = docs().join("settings.schema.json");
    let expected = schema_text();
    if std::env::var_os("UPDATE_SCHEMA").is_some() {
        std::fs::write(&path, &expected).unwrap();
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        committed == expected,
        "{} differs from schema_text(); regenerate it with \
         `UPDATE_SCHEMA=1 cargo test -p ast-outline-settings`",
        path.display()
    );
}

#[test]
fn schema_is_json_with_every_table() {
    let schema: serde_json::Value = serde_json::from_str(&schema_text()).unwrap();
    let props = schema["properties"].as_object().unwrap();
    let tables: Vec<&str> = props.keys().map(String::as_str).collect();
    assert_eq!(
        tables,
        [
            "context",
            "files",
            "max_tokens",
            "outline",
            "queries",
            "tests"
        ]
    );
    assert_eq!(schema["additionalProperties"], serde_json::json!(false));
    assert!(!schema_text().contains("\"default\": null"));
}

#[test]
fn guide_example_parses() {
    let path = docs().join("settings.md");
    let guide = std::fs::read_to_string(&path).unwrap();
    let start = guide.find("```toml\n").expect("a ```toml block") + "```toml\n".len();
    let len = guide[start..].find("```").expect("the block's end");
    let example = &guide[start..start + len];
    let s = Settings::parse(&path, example, false).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(s.file.as_deref(), Some(path.as_path()));
    assert_eq!(s.context_kind, ContextKind::Definition);
    assert_eq!(s.max_results, Some(500));
    assert_eq!(s.max_tokens.impact, Some(6000));
    assert!(s.sources.values().all(|src| src.to_string() != "default"));
}
