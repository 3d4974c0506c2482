//! The JSON output against its published JSON Schema and the contract.

mod common;

use outline_core::schema::{file_outline_schema, file_outline_schema_text};
use outline_core::{FileOutline, Symbol};

const CONTRACT_KINDS: [&str; 21] = [
    "class",
    "function",
    "method",
    "constructor",
    "getter",
    "setter",
    "property",
    "field",
    "variable",
    "constant",
    "interface",
    "type_alias",
    "enum",
    "enum_member",
    "struct",
    "union",
    "trait",
    "impl",
    "module",
    "macro",
    "block",
];

fn fixture_outlines() -> Vec<FileOutline> {
    let outlines: Vec<FileOutline> = common::all_fixtures()
        .iter()
        .map(|p| common::outline_fixture(p))
        .collect();
    assert!(outlines.len() > 20, "fixtures found: {}", outlines.len());
    outlines
}

#[test]
fn published_schema_is_current() {
    let path = common::tests_dir().join("../schema/file-outline.schema.json");
    let published = std::fs::read_to_string(&path).expect("schema/file-outline.schema.json exists");
    assert!(
        published == file_outline_schema_text(),
        "schema/file-outline.schema.json is stale; regenerate it with\n  \
         cargo run -p ast-outline-cli -- schema > schema/file-outline.schema.json"
    );
}

#[test]
fn every_fixture_output_validates_against_the_schema() {
    let validator = jsonschema::validator_for(&file_outline_schema()).expect("schema compiles");
    for outline in fixture_outlines() {
        let line = outline_core::json_line(&outline).expect("serialises");
        assert!(!line.contains('\n'), "one JSON object per line");
        let value: serde_json::Value = serde_json::from_str(&line).expect("valid JSON");
        let errors: Vec<String> = validator
            .iter_errors(&value)
            .map(|e| format!("{} at {}", e, e.instance_path))
            .collect();
        assert!(errors.is_empty(), "{}: {errors:#?}", outline.path);
    }
}

#[test]
fn schema_rejects_what_the_contract_forbids() {
    let validator = jsonschema::validator_for(&file_outline_schema()).expect("schema compiles");
    let outline = fixture_outlines().remove(0);
    let mut value = serde_json::to_value(&outline).expect("serialises");
    value["symbols"][0]["start_line"] = 0.into();
    assert!(!validator.is_valid(&value), "line 0 must be rejected");
    let mut value = serde_json::to_value(&outline).expect("serialises");
    value["symbols"][0]["name"] = "two\nlines".into();
    assert!(
        !validator.is_valid(&value),
        "a name with a newline must be rejected"
    );
    let mut value = serde_json::to_value(&outline).expect("serialises");
    value["symbols"][0]["kind"] = "lambda".into();
    assert!(
        !validator.is_valid(&value),
        "an unknown kind must be rejected"
    );
}

#[test]
fn outputs_follow_the_contract_rules() {
    fn check(path: &str, line_count: u32, symbol: &Symbol, problems: &mut Vec<String>) {
        let json = serde_json::to_value(symbol).expect("serialises");
        let kind = json["kind"].as_str().unwrap_or_default().to_owned();
        let expected_id = format!("{path}:{}:{}", symbol.start_line, symbol.qualname);
        let checks = [
            (
                symbol.id == expected_id,
                format!("id {} != {expected_id}", symbol.id),
            ),
            (
                CONTRACT_KINDS.contains(&kind.as_str()),
                format!("kind {kind}"),
            ),
            (
                !symbol.name.contains(['\n', '\r']),
                "multi-line name".to_owned(),
            ),
            (
                1 <= symbol.start_line
                    && symbol.start_line <= symbol.end_line
                    && symbol.end_line <= line_count.max(1),
                format!("lines {}-{}", symbol.start_line, symbol.end_line),
            ),
            (
                symbol.start_line <= symbol.name_line && symbol.name_line <= symbol.end_line,
                format!("name line {}", symbol.name_line),
            ),
            (
                json.get("children").is_some(),
                "no children array".to_owned(),
            ),
        ];
        for (ok, problem) in checks {
            if !ok {
                problems.push(format!("{}: {problem}", symbol.id));
            }
        }
        for child in &symbol.children {
            let nested = child.start_line >= symbol.start_line && child.end_line <= symbol.end_line;
            if !nested {
                problems.push(format!("{} is not inside {}", child.id, symbol.id));
            }
            check(path, line_count, child, problems);
        }
    }
    let mut problems = Vec::new();
    for outline in fixture_outlines() {
        for symbol in &outline.symbols {
            check(&outline.path, outline.line_count, symbol, &mut problems);
        }
        let sorted = outline
            .symbols
            .windows(2)
            .all(|w| w[0].start_line <= w[1].start_line);
        if !sorted {
            problems.push(format!(
                "{}: top-level symbols out of source order",
                outline.path
            ));
        }
    }
    assert!(problems.is_empty(), "{problems:#?}");
}
