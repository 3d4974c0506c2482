//! Prints a SCIP index (Sourcegraph's protobuf format) as JSON lines, for
//! `bench/scip/compare.py`, which compares ast-outline's references with
//! those of compiler-grade SCIP indexers (scip-python, scip-typescript).
//!
//! ```text
//! cargo run --release -p index --example scip_dump -- INDEX.scip > INDEX.jsonl
//! ```
//!
//! One JSON object a line, each with a `type`:
//! - `metadata`: `tool`, `version`, `project_root`, `documents` (count);
//! - `document`: `path` (the document's `relative_path`), `language`,
//!   `occurrences` and `symbols` (counts), before its own lines;
//! - `occurrence`: `path`, `range` as SCIP gives it (0-based
//!   `[line, start_char, end_char]`, or `[line, start_char, end_line,
//!   end_char]` when it spans lines), `symbol`, `symbol_roles` (the bit set:
//!   1 Definition, 2 Import, 4 WriteAccess, 8 ReadAccess, 16 Generated,
//!   32 Test, 64 ForwardDefinition);
//! - `symbol`: a `SymbolInformation`, `path` of its document (absent for the
//!   index's external symbols), `symbol`, `kind` when set (SCIP's `Kind`
//!   name, e.g. `Method`, or its number when this crate does not know it),
//!   `display_name` when set, and `relationships` (`symbol` with
//!   `is_reference`, `is_implementation`, `is_type_definition`,
//!   `is_definition`) when any.

use std::io::{BufWriter, Write};
use std::process::ExitCode;

use protobuf::Message;
use scip::types::{Index, SymbolInformation, symbol_information};
use serde_json::{Value, json};

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [path] = args.as_slice() else {
        eprintln!("usage: scip_dump INDEX.scip  (prints JSON lines on stdout)");
        return ExitCode::from(2);
    };
    match run(path) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("scip_dump: {message}");
            ExitCode::FAILURE
        }
    }
}

fn run(path: &str) -> Result<(), String> {
    let bytes = std::fs::read(path).map_err(|e| format!("cannot read {path}: {e}"))?;
    let index =
        Index::parse_from_bytes(&bytes).map_err(|e| format!("{path} is not a SCIP index: {e}"))?;
    let stdout = std::io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    let mut line = |value: Value| -> Result<(), String> {
        serde_json::to_writer(&mut out, &value).map_err(|e| e.to_string())?;
        out.write_all(b"\n").map_err(|e| e.to_string())
    };
    let (tool, version) = index
        .metadata
        .tool_info
        .as_ref()
        .map(|t| (t.name.as_str(), t.version.as_str()))
        .unwrap_or(("", ""));
    line(json!({
        "type": "metadata",
        "tool": tool,
        "version": version,
        "project_root": index.metadata.project_root,
        "documents": index.documents.len(),
    }))?;
    for document in &index.documents {
        let doc_path = document.relative_path.as_str();
        line(json!({
            "type": "document",
            "path": doc_path,
            "language": document.language,
            "occurrences": document.occurrences.len(),
            "symbols": document.symbols.len(),
        }))?;
        for occurrence in &document.occurrences {
            line(json!({
                "type": "occurrence",
                "path": doc_path,
                "range": occurrence.range,
                "symbol": occurrence.symbol,
                "symbol_roles": occurrence.symbol_roles,
            }))?;
        }
        for information in &document.symbols {
            line(symbol_line(information, Some(doc_path)))?;
        }
    }
    for information in &index.external_symbols {
        line(symbol_line(information, None))?;
    }
    out.flush().map_err(|e| e.to_string())
}

/// The `symbol` line of one `SymbolInformation`.
fn symbol_line(information: &SymbolInformation, path: Option<&str>) -> Value {
    let mut value = json!({ "type": "symbol", "symbol": information.symbol });
    let object = value.as_object_mut().expect("a JSON object");
    if let Some(path) = path {
        object.insert("path".into(), json!(path));
    }
    match information.kind.enum_value() {
        Ok(symbol_information::Kind::UnspecifiedKind) => {}
        Ok(kind) => {
            object.insert("kind".into(), json!(format!("{kind:?}")));
        }
        Err(number) => {
            object.insert("kind".into(), json!(number));
        }
    }
    if !information.display_name.is_empty() {
        object.insert("display_name".into(), json!(information.display_name));
    }
    if !information.relationships.is_empty() {
        let relationships: Vec<Value> = information
            .relationships
            .iter()
            .map(|r| {
                json!({
                    "symbol": r.symbol,
                    "is_reference": r.is_reference,
                    "is_implementation": r.is_implementation,
                    "is_type_definition": r.is_type_definition,
                    "is_definition": r.is_definition,
                })
            })
            .collect();
        object.insert("relationships".into(), Value::Array(relationships));
    }
    value
}
