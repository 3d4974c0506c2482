//! `ast-outline export --format json` checked against the JSON Schema that
//! documents it (`docs/export.schema.json`), on a project in all three
//! languages whose export holds every kind of row: resolved, candidate,
//! external and module references, and both relation kinds.

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

#[test]
fn an_export_of_all_three_languages_matches_the_published_schema() {
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
        "from app import models\nfrom app.models import User\n\n\ndef signup(x):\n    x.greet()\n    return User(), models\n",
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
    let output = Command::new(env!("CARGO_BIN_EXE_ast-outline"))
        .args(["export", "--format", "json", "--root"])
        .arg(root)
        .output()
        .expect("the binary runs");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let export: Value = serde_json::from_slice(&output.stdout).expect("the export is JSON");

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
        ["candidate", "external", "module", "resolved"]
    );
    assert_eq!(column("relations", "kind"), ["implements", "inherits"]);

    // A change of shape the schema does not allow is caught.
    let mut changed = export.clone();
    changed["references"][0]["line"] = Value::from(0);
    assert!(!validator.is_valid(&changed));
    let mut changed = export;
    changed["symbols"][0]["new_field"] = Value::from(1);
    assert!(!validator.is_valid(&changed));
}
