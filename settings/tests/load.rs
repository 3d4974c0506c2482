//! Finding, reading and using the settings file; `config` output; reloads.
#![allow(clippy::unwrap_used)]

use std::path::Path;

use ast_outline_settings::{
    Budgets, ContextKind, DEFAULT_TEST_PATHS, FILE_NAME, KEYS, Reloader, Settings, Source, Weights,
};

fn write(root: &Path, name: &str, text: &str) {
    std::fs::write(root.join(name), text).unwrap();
}

#[test]
fn no_file_is_the_defaults() {
    let dir = tempfile::tempdir().unwrap();
    let s = Settings::load(dir.path()).unwrap();
    assert_eq!(s.file, None);
    assert!(s.include.is_empty() && s.exclude.is_empty());
    assert_eq!(s.test_paths, DEFAULT_TEST_PATHS);
    assert!(s.index_tests && s.tests_in_queries && s.context_docs);
    assert_eq!(s.block_threshold, 100);
    assert_eq!(s.max_results, None);
    assert_eq!(s.context_kind, ContextKind::Definition);
    assert_eq!(s.weights, Weights::default());
    assert_eq!(s.max_tokens, Budgets::default());
    assert_eq!(s.sources.len(), KEYS.len());
    assert!(s.sources.values().all(|src| *src == Source::Default));
}

#[test]
fn the_file_wins_over_pyproject() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), FILE_NAME, "[outline]\nblock_threshold = 7\n");
    write(
        dir.path(),
        "pyproject.toml",
        "[tool.ast-outline.outline]\nblock_threshold = 9\n",
    );
    let s = Settings::load(dir.path()).unwrap();
    assert_eq!(s.block_threshold, 7);
    assert_eq!(s.file, Some(dir.path().join(FILE_NAME)));
}

#[test]
fn pyproject_table() {
    let dir = tempfile::tempdir().unwrap();
    let py = dir.path().join("pyproject.toml");
    write(
        dir.path(),
        "pyproject.toml",
        "[project]\nname = \"x\"\n\n[tool.ruff]\nline-length = 100\n\n[tool.ast-outline.context]\nkind = \"all\"\n",
    );
    let s = Settings::load(dir.path()).unwrap();
    assert_eq!(s.context_kind, ContextKind::All);
    assert_eq!(s.file, Some(py.clone()));
    assert_eq!(
        s.sources["context.kind"],
        Source::File { path: py, line: 8 }
    );
    assert_eq!(s.sources["context.docs"], Source::Default);
}

#[test]
fn pyproject_without_the_table_is_no_settings_file() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "pyproject.toml",
        "[tool.ruff]\nline-length = 100\n[tool.other]\nast-outline = 1\n",
    );
    let s = Settings::load(dir.path()).unwrap();
    assert_eq!(s.file, None);
    // Not mentioning ast-outline at all: not even parsed.
    write(dir.path(), "pyproject.toml", "[broken\n");
    assert_eq!(Settings::load(dir.path()).unwrap().file, None);
    // Mentioning it in a broken file: an error.
    write(dir.path(), "pyproject.toml", "[tool.ast-outline\n");
    assert!(Settings::load(dir.path()).is_err());
}

#[test]
fn pyproject_is_parsed_only_when_a_line_could_hold_the_table() {
    let dir = tempfile::tempdir().unwrap();
    // Broken for another tool, naming ast-outline only in a description
    // and a comment: not parsed.
    write(
        dir.path(),
        "pyproject.toml",
        "[project]\ndescription = \"indexed with ast-outline\"\n# see [tool.ast-outline] later\n[broken\n",
    );
    assert_eq!(Settings::load(dir.path()).unwrap().file, None);
    // Every form of the table is parsed: broken, an error.
    for text in [
        "[tool.\"ast-outline\"]\n[broken\n",
        "[ tool.ast-outline.files ]\n[broken\n",
        "[tool]\nast-outline = { outline = { block_threshold = 5 } }\n[broken\n",
        "tool.ast-outline.outline.block_threshold = 5\n[broken\n",
    ] {
        write(dir.path(), "pyproject.toml", text);
        assert_eq!(
            Settings::load(dir.path()).err().map(|e| e.message),
            Some("unclosed table, expected `]`".to_owned()),
            "{text:?}"
        );
    }
    // And read when sound.
    for text in [
        "[tool]\nast-outline = { outline = { block_threshold = 5 } }\n",
        "tool.ast-outline.outline.block_threshold = 5\n",
        "[ tool . 'ast-outline' . outline ]\nblock_threshold = 5\n",
    ] {
        write(dir.path(), "pyproject.toml", text);
        assert_eq!(
            Settings::load(dir.path()).unwrap().block_threshold,
            5,
            "{text:?}"
        );
    }
}

#[test]
fn values_and_sources() {
    let text = "\
[files]
include = [\"src/\", \"lib/**\"]
exclude = [\"vendor\", \"/src/gen/\"]

[tests]
extend_paths = [\"e2e/\"]
in_queries = false

[queries]
max_results = 50

[context]
docs = false
weights = { callers = 0, references = 2.5 }

[max_tokens]
context = 900
";
    let path = Path::new("/r/.ast-outline.toml");
    let s = Settings::parse(path, text, false).unwrap();
    assert_eq!(s.include, ["src/", "lib/**"]);
    assert_eq!(s.exclude, ["vendor", "/src/gen/"]);
    let mut expected: Vec<String> = DEFAULT_TEST_PATHS.iter().map(|s| (*s).to_owned()).collect();
    expected.push("e2e/".to_owned());
    assert_eq!(s.test_paths, expected);
    assert_eq!(s.max_results, Some(50));
    assert!(!s.context_docs && !s.tests_in_queries && s.index_tests);
    assert_eq!(
        s.weights,
        Weights {
            callers: 0.0,
            references: 2.5,
            type_hierarchy: 1.0
        }
    );
    assert_eq!(
        s.weights.order(),
        [ContextKind::References, ContextKind::TypeHierarchy]
    );
    assert_eq!(s.max_tokens.context, Some(900));
    assert_eq!(s.max_tokens.search, None);
    let line = |key: &str| match &s.sources[key] {
        Source::File { line, .. } => *line,
        Source::Default => 0,
    };
    assert_eq!(line("files.include"), 2);
    assert_eq!(line("tests.extend_paths"), 6);
    assert_eq!(line("tests.paths"), 0);
    assert_eq!(line("context.weights.references"), 14);
    assert_eq!(line("max_tokens.context"), 17);
    assert_eq!(
        s.sources["files.exclude"].to_string(),
        "/r/.ast-outline.toml:3"
    );

    // Walking: include, exclude, tests.
    assert!(s.is_walked("src/a.py"));
    assert!(s.is_walked("lib/x/y.ts"));
    assert!(!s.is_walked("docs/a.md"));
    assert!(!s.is_walked("src/vendor/a.py"));
    assert!(!s.is_walked("src/gen/a.rs"));
    assert!(s.is_walked("src/x/gen/a.rs"));
    assert!(s.is_walked("src/tests/test_a.py"));
    assert!(s.is_excluded_dir("src/vendor"));
    assert!(!s.is_excluded_dir("src"));
    // Queries: tests left out.
    assert!(s.is_test("e2e/login.ts"));
    assert!(!s.in_queries("e2e/login.ts"));
    assert!(!s.in_queries("src/tests/test_a.py"));
    assert!(s.in_queries("src/a.py"));
}

#[test]
fn paths_replace_the_defaults_and_index_false_drops_tests() {
    let text = "[tests]\npaths = [\"spec/\"]\nextend_paths = [\"*_check.py\"]\nindex = false\n";
    let s = Settings::parse(Path::new("s.toml"), text, false).unwrap();
    assert_eq!(s.test_paths, ["spec/", "*_check.py"]);
    assert!(s.is_test("spec/a.rb"));
    assert!(s.is_test("x/y_check.py"));
    assert!(!s.is_test("tests/test_a.py"));
    assert!(!s.is_walked("spec/a.rb"));
    assert!(s.is_walked("tests/test_a.py"));
    assert!(s.is_excluded_dir("spec"));
    assert_eq!(s.base_test_paths(), ["spec/"]);
    assert_eq!(s.extend_test_paths(), ["*_check.py"]);
}

#[test]
fn render_text_lists_every_key_with_its_source() {
    let text = "[files]\nexclude = [\"vendor/\"]\n[context.weights]\ncallers = 4\n[max_tokens]\nsearch = 100\n";
    let s = Settings::parse(Path::new("/repo/.ast-outline.toml"), text, false).unwrap();
    let expected = "\
# settings file: /repo/.ast-outline.toml

[files]
include = []  # default
exclude = [\"vendor/\"]  # /repo/.ast-outline.toml:2

[tests]
paths = [\"test_*.py\", \"*_test.py\", \"conftest.py\", \"tests/\", \"test/\", \"__tests__/\", \"*.test.{js,jsx,ts,tsx,mjs,cjs,mts,cts}\", \"*.spec.{js,jsx,ts,tsx,mjs,cjs,mts,cts}\", \"benches/\"]  # default
extend_paths = []  # default
index = true  # default
in_queries = true  # default

[outline]
block_threshold = 100  # default

[queries]
# max_results unset  # default

[context]
docs = true  # default
kind = \"definition\"  # default

[context.weights]
callers = 4.0  # /repo/.ast-outline.toml:4
references = 2.0  # default
type_hierarchy = 1.0  # default

[max_tokens]
search = 100  # /repo/.ast-outline.toml:6
# context unset  # default
# tests unset  # default
# impact unset  # default
";
    assert_eq!(s.render_text(), expected);
    assert!(
        Settings::defaults()
            .render_text()
            .starts_with("# no settings file: defaults\n")
    );
    // Every key is on one line (an unset one as a comment).
    for key in KEYS {
        let leaf = key.rsplit('.').next().unwrap();
        assert!(
            expected.contains(&format!("\n{leaf} = "))
                || expected.contains(&format!("\n# {leaf} unset  # ")),
            "{key}"
        );
    }
}

#[test]
fn json_output() {
    let text = "[context]\nkind = \"callers\"\n";
    let s = Settings::parse(Path::new("/repo/.ast-outline.toml"), text, false).unwrap();
    let j = s.to_json();
    assert_eq!(j["file"], "/repo/.ast-outline.toml");
    assert_eq!(j["settings"]["context"]["kind"], "callers");
    assert_eq!(j["settings"]["context"]["weights"]["callers"], 3.0);
    assert_eq!(
        j["settings"]["queries"]["max_results"],
        serde_json::Value::Null
    );
    assert_eq!(j["settings"]["tests"]["index"], true);
    assert_eq!(j["sources"]["context.kind"], "/repo/.ast-outline.toml:2");
    assert_eq!(j["sources"]["tests.paths"], "default");
    assert_eq!(j["sources"].as_object().unwrap().len(), KEYS.len());
    assert_eq!(
        Settings::defaults().to_json()["file"],
        serde_json::Value::Null
    );
}

#[test]
fn stamps_see_changes() {
    let dir = tempfile::tempdir().unwrap();
    let a = Settings::stamp(dir.path());
    assert_eq!(a, Settings::stamp(dir.path()));
    write(dir.path(), "pyproject.toml", "[project]\n");
    let b = Settings::stamp(dir.path());
    assert_ne!(a, b);
    write(dir.path(), FILE_NAME, "");
    assert_ne!(b, Settings::stamp(dir.path()));
}

#[test]
fn reloader_keeps_the_last_good_settings() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(FILE_NAME);
    write(dir.path(), FILE_NAME, "[outline]\nblock_threshold = 5\n");
    let (mut r, error) = Reloader::new(dir.path());
    assert!(error.is_none());
    let (s, note) = r.current();
    assert_eq!((s.block_threshold, note), (5, None));

    // A broken file: reported once, the last good settings kept.
    write(dir.path(), FILE_NAME, "[outline]\nblock_threshold = 0 \n");
    let (s, note) = r.current();
    assert_eq!(s.block_threshold, 5);
    assert_eq!(
        note.unwrap(),
        format!(
            "{}:2:19: key `outline.block_threshold`: must be an integer >= 1, not 0; keeping the last good settings",
            path.display()
        )
    );
    assert_eq!(r.current().1, None);

    // Fixed (a different length, so the stamp differs even within one mtime tick).
    write(dir.path(), FILE_NAME, "[outline]\nblock_threshold = 12\n");
    let (s, note) = r.current();
    assert_eq!(s.block_threshold, 12);
    assert_eq!(
        note.unwrap(),
        format!("settings reloaded from {}", path.display())
    );

    // Removed: the defaults.
    std::fs::remove_file(&path).unwrap();
    let (s, note) = r.current();
    assert_eq!(s.block_threshold, 100);
    assert_eq!(
        note.unwrap(),
        "settings reloaded: no settings file, defaults"
    );
    assert_eq!(r.settings().file, None);
}

#[test]
fn reloader_starts_on_defaults_after_an_error() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), FILE_NAME, "oops = 1\n");
    let (mut r, error) = Reloader::new(dir.path());
    assert_eq!(error.unwrap().key.as_deref(), Some("oops"));
    let (s, note) = r.current();
    assert_eq!((s.block_threshold, s.file.clone(), note), (100, None, None));
}
