//! `ast-outline export`: `--format json` checked against the JSON Schema that
//! documents it (`docs/export.schema.json`), on a project in all three
//! languages whose export holds every kind of row (resolved, candidate,
//! external, module and dynamic references, both relation kinds); `--format scip`
//! decoded back with the `scip` crate and checked against the sources and the
//! JSON export of the same index.

use std::path::Path;
use std::process::Command;

use serde_json::Value;

fn write(root: &Path, path: &str, text: &str) {
    let path = root.join(path);
    std::fs::create_dir_all(path.parent().expect("parent")).expect("directory");
    std::fs::write(path, text).expect("written");
}

fn schema() -> Value {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/export.schema.json");
    let text = std::fs::read_to_string(&path).expect("docs/export.schema.json");
    serde_json::from_str(&text).expect("the schema is JSON")
}

/// A project in all three languages.
fn project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("temp dir");
    let root = dir.path();
    write(root, "app/__init__.py", "");
    write(
        root,
        "app/models.py",
        "import os\n\n\nclass Base:\n    def save(self):\n        return os.getcwd()\n\n\nclass User(Base):\n    def greet(self):\n        return self.save()\n",
    );
    write(
        root,
        "app/signup.py",
        "from app import models\nfrom app.models import User\n\n\ndef signup(x):\n    x.greet()\n    getattr(User, \"greet\")\n    return User(), models\n",
    );
    write(
        root,
        "web/shapes.ts",
        "export interface Shape { area(): number }\nexport class Square implements Shape {\n  area(): number { return 1; }\n}\nexport class Big extends Square {}\n",
    );
    write(
        root,
        "web/main.ts",
        "import { Square } from './shapes';\nnew Square().area();\n",
    );
    write(
        root,
        "Cargo.toml",
        "[package]\nname = \"demo\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
    );
    write(
        root,
        "src/lib.rs",
        "pub trait Area { fn area(&self) -> u32; }\npub struct Tile;\nimpl Area for Tile {\n    fn area(&self) -> u32 { 1 }\n}\npub fn total(t: &Tile) -> u32 { t.area() }\n",
    );
    // `Unit` is made by the project's macro: dynamic, via macro.
    write(
        root,
        "src/made.rs",
        "macro_rules! make_unit { () => { pub struct Unit; } }\nmake_unit!();\npub fn unit() -> Unit { Unit }\n",
    );
    dir
}

/// `ast-outline export --format FORMAT --root ROOT`'s standard output.
fn export(root: &Path, format: &str) -> Vec<u8> {
    let output = Command::new(env!("CARGO_BIN_EXE_ast-outline"))
        .args(["export", "--format", format, "--root"])
        .arg(root)
        .output()
        .expect("the binary runs");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    output.stdout
}

#[test]
fn an_export_of_all_three_languages_matches_the_published_schema() {
    let dir = project();
    let export: Value =
        serde_json::from_slice(&export(dir.path(), "json")).expect("the export is JSON");

    let validator = jsonschema::validator_for(&schema()).expect("a valid JSON Schema");
    let errors: Vec<String> = validator
        .iter_errors(&export)
        .map(|e| format!("{} at {}", e, e.instance_path))
        .collect();
    assert!(errors.is_empty(), "{}", errors.join("\n"));

    // The document holds every kind of row the schema describes.
    let column = |array: &str, field: &str| -> Vec<String> {
        let mut values: Vec<String> = export[array]
            .as_array()
            .expect("array")
            .iter()
            .filter_map(|row| row[field].as_str().map(str::to_owned))
            .collect();
        values.sort();
        values.dedup();
        values
    };
    assert_eq!(
        column("files", "language"),
        ["python", "rust", "typescript"]
    );
    assert_eq!(
        column("references", "status"),
        ["candidate", "dynamic", "external", "module", "resolved"]
    );
    assert_eq!(column("relations", "kind"), ["implements", "inherits"]);
    assert!(
        column("references", "via").contains(&"macro".to_owned()),
        "{:?}",
        column("references", "via")
    );

    // A change of shape the schema does not allow is caught.
    let mut changed = export.clone();
    changed["references"][0]["line"] = Value::from(0);
    assert!(!validator.is_valid(&changed));
    let mut changed = export;
    changed["symbols"][0]["new_field"] = Value::from(1);
    assert!(!validator.is_valid(&changed));
}

#[test]
fn a_scip_export_decodes_and_agrees_with_the_sources_and_the_json_export() {
    use protobuf::Message as _;
    use scip::types::{Index, SymbolRole};

    let dir = project();
    let root = dir.path();
    let json: Value = serde_json::from_slice(&export(root, "json")).expect("JSON");
    let index = Index::parse_from_bytes(&export(root, "scip")).expect("a SCIP index");

    let metadata = index.metadata.as_ref().expect("metadata");
    assert_eq!(metadata.tool_info.name, "ast-outline");
    let canonical = std::fs::canonicalize(root).expect("root");
    assert_eq!(
        metadata.project_root,
        format!("file://{}", canonical.display())
    );
    let mut paths: Vec<&str> = index
        .documents
        .iter()
        .map(|d| d.relative_path.as_str())
        .collect();
    paths.sort_unstable();
    let mut files: Vec<&str> = json["files"]
        .as_array()
        .expect("files")
        .iter()
        .filter_map(|f| f["path"].as_str())
        .collect();
    files.sort_unstable();
    assert_eq!(paths, files);

    // Every definition occurrence spells its symbol's name in the source,
    // and every symbol is well formed and defined once.
    let mut defined: std::collections::HashMap<String, String> = Default::default();
    let mut definitions = 0;
    for document in &index.documents {
        let text = std::fs::read_to_string(root.join(&document.relative_path)).expect("source");
        let lines: Vec<&str> = text.lines().collect();
        let spelled = |range: &[i32]| -> String {
            let line = lines[usize::try_from(range[0]).expect("line")];
            let (start, end) = (range[1] as usize, range[range.len() - 1] as usize);
            line.chars().skip(start).take(end - start).collect()
        };
        for information in &document.symbols {
            scip::symbol::parse_symbol(&information.symbol).expect("a valid SCIP symbol");
            let previous =
                defined.insert(information.symbol.clone(), information.display_name.clone());
            assert!(previous.is_none(), "defined twice: {}", information.symbol);
        }
        for occurrence in &document.occurrences {
            if occurrence.symbol_roles & SymbolRole::Definition as i32 != 0 {
                definitions += 1;
                let information = document
                    .symbols
                    .iter()
                    .find(|s| s.symbol == occurrence.symbol)
                    .expect("a definition has its SymbolInformation in its document");
                assert_eq!(spelled(&occurrence.range), information.display_name);
                assert_eq!(occurrence.enclosing_range.len(), 4);
            }
        }
    }
    assert_eq!(
        definitions,
        json["symbols"].as_array().expect("symbols").len()
    );

    // Each resolved reference of the JSON export is an occurrence of its
    // target's symbol at the same position.
    let symbol_of = |path: &str, line: i32, column: i32| -> Option<&str> {
        index
            .documents
            .iter()
            .find(|d| d.relative_path == path)?
            .occurrences
            .iter()
            .find(|o| o.range[0] == line && o.range[1] == column)
            .map(|o| o.symbol.as_str())
    };
    let mut resolved = 0;
    for reference in json["references"].as_array().expect("references") {
        if reference["status"] != "resolved" {
            continue;
        }
        resolved += 1;
        let target = reference["target"].as_str().expect("target");
        let symbol = symbol_of(
            reference["path"].as_str().expect("path"),
            reference["line"].as_i64().expect("line") as i32 - 1,
            reference["column"].as_i64().expect("column") as i32 - 1,
        )
        .unwrap_or_else(|| panic!("no occurrence for {reference}"));
        let name = target.rsplit(['.', ':']).next().expect("a name");
        assert_eq!(
            defined.get(symbol).map(String::as_str),
            Some(name),
            "{reference}"
        );
    }
    assert!(resolved >= 8, "{resolved}");

    // A dynamic reference (`getattr(User, "greet")`) is an occurrence of
    // its target's symbol that carries the `dynamic` diagnostic; no other
    // occurrence has a diagnostic.
    let signup = index
        .documents
        .iter()
        .find(|d| d.relative_path == "app/signup.py")
        .expect("app/signup.py");
    let dynamic: Vec<_> = signup
        .occurrences
        .iter()
        .filter(|o| !o.diagnostics.is_empty())
        .collect();
    assert_eq!(dynamic.len(), 1, "{dynamic:?}");
    let occurrence = dynamic[0];
    assert_eq!(occurrence.range, vec![6, 19, 24]);
    assert_eq!(
        defined.get(&occurrence.symbol).map(String::as_str),
        Some("greet")
    );
    let diagnostic = &occurrence.diagnostics[0];
    assert_eq!(
        (diagnostic.code.as_str(), diagnostic.source.as_str()),
        (index::scip::DYNAMIC_CODE, "ast-outline")
    );
    assert_eq!(
        diagnostic.severity.enum_value(),
        Ok(scip::types::Severity::Information)
    );
    assert_eq!(
        index
            .documents
            .iter()
            .flat_map(|d| &d.occurrences)
            .filter(|o| !o.diagnostics.is_empty())
            .count(),
        3
    );

    // A Rust item a project macro makes (`Unit` of `make_unit!()`) is an
    // occurrence of the macro's symbol with the diagnostic saying so, at
    // each use.
    let made = index
        .documents
        .iter()
        .find(|d| d.relative_path == "src/made.rs")
        .expect("src/made.rs");
    let macro_made: Vec<_> = made
        .occurrences
        .iter()
        .filter(|o| !o.diagnostics.is_empty())
        .collect();
    assert_eq!(
        macro_made
            .iter()
            .map(|o| (o.range.clone(), defined.get(&o.symbol).map(String::as_str)))
            .collect::<Vec<_>>(),
        [
            (vec![2, 17, 21], Some("make_unit")),
            (vec![2, 24, 28], Some("make_unit")),
        ]
    );
    assert!(
        macro_made
            .iter()
            .all(|o| o.diagnostics[0].code == index::scip::DYNAMIC_CODE
                && o.diagnostics[0].message.contains("macro_rules!")),
        "{macro_made:?}"
    );

    // Relations are `is_implementation` relationships of the subtype.
    let information = |display: &str| {
        index
            .documents
            .iter()
            .flat_map(|d| &d.symbols)
            .find(|s| s.display_name == display && !s.relationships.is_empty())
            .unwrap_or_else(|| panic!("{display} has relationships"))
    };
    for (subtype, supertype) in [
        ("User", "Base"),
        ("Square", "Shape"),
        ("Big", "Square"),
        ("Tile", "Area"),
    ] {
        let relationship = &information(subtype).relationships[0];
        assert!(relationship.is_implementation);
        assert_eq!(defined[&relationship.symbol], supertype);
    }
}
