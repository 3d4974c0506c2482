//! End-to-end tests of the `ast-outline` binary (built by cargo for these
//! tests): it is run on temporary trees, and its exit status, standard output
//! and standard error are checked against `CONTRACT.md` and the documented
//! design.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;
use tempfile::TempDir;

// ---------------------------------------------------------------------------
// Harness
// ---------------------------------------------------------------------------

/// The `ast-outline` binary cargo built for these tests.
fn binary() -> &'static Path {
    Path::new(env!("CARGO_BIN_EXE_ast-outline"))
}

/// What one run of the binary did.
struct Run {
    /// The exit status; `None` if killed by a signal.
    code: Option<i32>,
    /// Standard output, byte-exact.
    stdout: Vec<u8>,
    /// Standard error.
    stderr: String,
    /// The command line, for failure messages.
    command: String,
}

impl Run {
    fn stdout(&self) -> &str {
        std::str::from_utf8(&self.stdout).expect("stdout is UTF-8")
    }

    /// Asserts the exit status, showing everything the run printed otherwise.
    fn expect_code(&self, code: i32) -> &Run {
        assert_eq!(
            self.code,
            Some(code),
            "`{}` exited with {:?}, expected {code}\n--- stdout\n{}--- stderr\n{}",
            self.command,
            self.code,
            String::from_utf8_lossy(&self.stdout),
            self.stderr
        );
        self
    }

    /// Asserts exit status 0 and an empty standard error.
    fn expect_clean_success(&self) -> &Run {
        self.expect_code(0);
        assert_eq!(self.stderr, "", "`{}` wrote to stderr", self.command);
        self
    }

    /// Asserts a non-zero exit that is neither a usage error (2) nor a panic.
    fn expect_failure(&self) -> &Run {
        assert!(
            matches!(self.code, Some(code) if code != 0 && code != 2 && code != 101),
            "`{}` exited with {:?}, expected a failure status (not 0, 2 or 101)\n--- stdout\n{}--- stderr\n{}",
            self.command,
            self.code,
            String::from_utf8_lossy(&self.stdout),
            self.stderr
        );
        self.expect_no_panic()
    }

    fn expect_no_panic(&self) -> &Run {
        assert!(
            !self.stderr.contains("panicked") && !self.stderr.contains("internal error"),
            "`{}` panicked:\n{}",
            self.command,
            self.stderr
        );
        self
    }

    /// The stdout as JSON Lines: exactly one object per line, every line
    /// (including the last) ended by `\n`.
    fn json_lines(&self) -> Vec<Value> {
        let stdout = self.stdout();
        if stdout.is_empty() {
            return Vec::new();
        }
        assert!(
            stdout.ends_with('\n'),
            "`{}`: JSON Lines output must end with a newline:\n{stdout}",
            self.command
        );
        stdout
            .strip_suffix('\n')
            .unwrap_or(stdout)
            .split('\n')
            .map(|line| {
                let value: Value = serde_json::from_str(line).unwrap_or_else(|error| {
                    panic!(
                        "`{}`: not one JSON value per line ({error}):\n{line}",
                        self.command
                    )
                });
                assert!(value.is_object(), "not a JSON object: {line}");
                value
            })
            .collect()
    }
}

/// Runs the binary in `dir` with `args`.
fn run(dir: &Path, args: &[&str]) -> Run {
    let output = Command::new(binary())
        .args(args)
        .current_dir(dir)
        .env_remove("RUST_BACKTRACE")
        .output()
        .expect("run ast-outline");
    Run {
        code: output.status.code(),
        stdout: output.stdout,
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
        command: format!("ast-outline {}", args.join(" ")),
    }
}

/// A temporary directory holding `files` (path relative to it, contents).
fn tree(files: &[(&str, &str)]) -> TempDir {
    let dir = tempfile::tempdir().expect("create a temporary directory");
    for (name, text) in files {
        write(dir.path(), name, text.as_bytes());
    }
    dir
}

fn write(root: &Path, name: &str, bytes: &[u8]) {
    let path = root.join(name);
    std::fs::create_dir_all(path.parent().expect("a file has a parent")).expect("mkdir");
    std::fs::write(path, bytes).expect("write a test file");
}

/// Every symbol of a file object, depth first, as `(id, kind, start, end)`.
fn spans(file: &Value) -> Vec<(String, String, u64, u64)> {
    fn walk(symbols: &Value, out: &mut Vec<(String, String, u64, u64)>) {
        for symbol in symbols.as_array().expect("symbols/children is an array") {
            out.push((
                symbol["id"].as_str().expect("id").to_owned(),
                symbol["kind"].as_str().expect("kind").to_owned(),
                symbol["start_line"].as_u64().expect("start_line"),
                symbol["end_line"].as_u64().expect("end_line"),
            ));
            walk(&symbol["children"], out);
        }
    }
    let mut out = Vec::new();
    walk(&file["symbols"], &mut out);
    out
}

/// Every symbol id of a file object, depth first.
fn ids(file: &Value) -> Vec<String> {
    spans(file).into_iter().map(|(id, ..)| id).collect()
}

fn span(id: &str, kind: &str, start: u64, end: u64) -> (String, String, u64, u64) {
    (id.to_owned(), kind.to_owned(), start, end)
}

fn paths(files: &[Value]) -> Vec<&str> {
    files
        .iter()
        .map(|f| f["path"].as_str().expect("path is a string"))
        .collect()
}

/// Whether `value` (or anything inside it) has an object key `key`.
fn has_key(value: &Value, key: &str) -> bool {
    match value {
        Value::Object(map) => map.contains_key(key) || map.values().any(|v| has_key(v, key)),
        Value::Array(items) => items.iter().any(|v| has_key(v, key)),
        _ => false,
    }
}

// ---------------------------------------------------------------------------
// Fixtures
// ---------------------------------------------------------------------------

/// A module with a class, a private method, a property with its setter, a
/// nested function and a private function.
const GREETER: &str = r#""""Module doc."""
import os


class Greeter:
    """Says hello."""

    def __init__(self, name):
        self.name = name

    def _secret(self):
        return 1

    @property
    def title(self):
        return self.name

    @title.setter
    def title(self, value):
        self.name = value


def helper(x: int) -> int:
    """Double it."""
    def inner():
        return x
    return inner() * 2


def _hidden():
    def visible_name():
        pass
"#;

/// The outline of [`GREETER`] as text, when the file is named `a.py`.
const GREETER_TEXT: &str = "\
a.py (python, 32 lines) — Module doc.
imports: os
L5-20 class Greeter — Says hello.
  L8-9 def __init__(self, name)
  L11-12 def _secret(self)
  L14-16 @property def title(self)
  L18-20 @title.setter def title(self, value)
L23-27 def helper(x: int) -> int — Double it.
  L25-26 def inner()
L30-32 def _hidden()
  L31-32 def visible_name()
";

/// Every symbol of [`GREETER`] under `path`, depth first.
fn greeter_spans(path: &str) -> Vec<(String, String, u64, u64)> {
    vec![
        span(&format!("{path}:5:Greeter"), "class", 5, 20),
        span(&format!("{path}:8:Greeter.__init__"), "method", 8, 9),
        span(&format!("{path}:11:Greeter._secret"), "method", 11, 12),
        span(&format!("{path}:14:Greeter.title"), "method", 14, 16),
        span(&format!("{path}:18:Greeter.title"), "method", 18, 20),
        span(&format!("{path}:23:helper"), "function", 23, 27),
        span(&format!("{path}:25:helper.inner"), "function", 25, 26),
        span(&format!("{path}:30:_hidden"), "function", 30, 32),
        span(
            &format!("{path}:31:_hidden.visible_name"),
            "function",
            31,
            32,
        ),
    ]
}

/// Case 14 of `../shared/cases`: line 8 is over-indented.
fn broken() -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/fixtures/python/14-py-indentation-error-midfile.py");
    std::fs::read_to_string(path).expect("case 14 fixture")
}

/// A 14-line function whose body (lines 2-14) is 13 lines long, with three
/// control-flow statements.
const PROCESS: &str = "\
def process(items):
    total = 0
    for item in items:
        total += item
        total -= 1
    if total > 10:
        total = 10
    else:
        total = 0
    try:
        total = 1 / total
    except ZeroDivisionError:
        total = 0
    return total
";

/// A walked project: Python files at several depths, ignored and hidden ones,
/// and files of languages ast-outline does not know (C, JSON, Markdown, …).
/// Files of languages it knows but may not outline yet (`.ts`, `.rs`) are
/// left out, so the expected lists hold whatever adapters exist.
fn project() -> TempDir {
    let dir = tree(&[
        ("proj/z.py", "Z = 1\n"),
        ("proj/m/n.py", "def n():\n    pass\n"),
        ("proj/m.py", "class M:\n    pass\n"),
        ("proj/a.py", GREETER),
        ("proj/stub.pyi", "def s() -> int: ...\n"),
        ("proj/build/gen.py", "GENERATED = 1\n"),
        ("proj/skipped.py", "S = 1\n"),
        ("proj/.gitignore", "build/\n"),
        ("proj/.ignore", "skipped.py\n"),
        ("proj/.hidden/h.py", "H = 1\n"),
        ("proj/.dot.py", "D = 1\n"),
        ("proj/README.md", "# Project\n"),
        ("proj/notes.txt", "not code\n"),
        ("proj/Makefile", "all:\n\ttrue\n"),
        ("proj/native/main.c", "int main(void) { return 0; }\n"),
        ("proj/data/config.json", "{\"a\": 1}\n"),
    ]);
    // Make it a git repository, so `.gitignore` applies as it does for ripgrep.
    std::fs::create_dir_all(dir.path().join("proj/.git")).expect("mkdir .git");
    dir
}

// ---------------------------------------------------------------------------
// outline --format json: walking, order, paths
// ---------------------------------------------------------------------------

#[test]
fn json_walk_gives_one_object_per_file_sorted_by_path() {
    let dir = project();
    let out = run(dir.path(), &["outline", "proj", "--format", "json"]);
    // Non-Python files, ignored and hidden ones are skipped silently.
    out.expect_clean_success();
    let files = out.json_lines();
    assert_eq!(
        paths(&files),
        [
            "proj/a.py",
            "proj/m.py",
            "proj/m/n.py",
            "proj/stub.pyi",
            "proj/z.py"
        ]
    );
    for file in &files {
        assert_eq!(file["language"], "python");
        assert_eq!(file["partial"], false);
        assert_eq!(file["diagnostics"], Value::Array(vec![]));
    }
    assert_eq!(files[0]["line_count"], 32);
    assert_eq!(spans(&files[0]), greeter_spans("proj/a.py"));
    assert_eq!(ids(&files[1]), ["proj/m.py:1:M"]);
    assert_eq!(ids(&files[2]), ["proj/m/n.py:1:n"]);
    assert_eq!(ids(&files[3]), ["proj/stub.pyi:1:s"]);
    assert_eq!(spans(&files[4]), [span("proj/z.py:1:Z", "constant", 1, 1)]);

    // The same with a trailing slash or a leading `./`.
    for given in ["proj/", "./proj"] {
        let again = run(dir.path(), &["outline", given, "--format", "json"]);
        again.expect_clean_success();
        assert_eq!(again.stdout, out.stdout, "given as `{given}`");
    }
}

#[test]
fn json_walk_of_dot_gives_paths_relative_to_it() {
    let dir = project();
    let out = run(
        &dir.path().join("proj"),
        &["outline", ".", "--format", "json"],
    );
    out.expect_clean_success();
    let files = out.json_lines();
    assert_eq!(
        paths(&files),
        ["a.py", "m.py", "m/n.py", "stub.pyi", "z.py"]
    );
    assert_eq!(spans(&files[0]), greeter_spans("a.py"));
    assert_eq!(ids(&files[2]), ["m/n.py:1:n"]);
}

#[test]
fn json_walk_of_a_subdirectory_names_paths_as_given() {
    let dir = project();
    let out = run(
        &dir.path().join("proj/m"),
        &["outline", "..", "--format", "json"],
    );
    out.expect_clean_success();
    let files = out.json_lines();
    assert_eq!(
        paths(&files),
        ["../a.py", "../m.py", "../m/n.py", "../stub.pyi", "../z.py"]
    );
    assert_eq!(ids(&files[2]), ["../m/n.py:1:n"]);
}

#[test]
fn json_order_is_by_path_across_all_arguments() {
    let dir = project();
    let out = run(
        dir.path(),
        &[
            "outline",
            "--format",
            "json",
            "proj/z.py",
            "proj/m",
            "proj/a.py",
        ],
    );
    out.expect_clean_success();
    assert_eq!(
        paths(&out.json_lines()),
        ["proj/a.py", "proj/m/n.py", "proj/z.py"]
    );
}

#[test]
fn hidden_and_no_ignore_flags_widen_the_walk() {
    let dir = project();
    let out = run(
        dir.path(),
        &["outline", "proj", "--format", "json", "--hidden"],
    );
    out.expect_clean_success();
    assert_eq!(
        paths(&out.json_lines()),
        [
            "proj/.dot.py",
            "proj/.hidden/h.py",
            "proj/a.py",
            "proj/m.py",
            "proj/m/n.py",
            "proj/stub.pyi",
            "proj/z.py"
        ]
    );

    let out = run(
        dir.path(),
        &["outline", "proj", "--format", "json", "--no-ignore"],
    );
    out.expect_clean_success();
    assert_eq!(
        paths(&out.json_lines()),
        [
            "proj/a.py",
            "proj/build/gen.py",
            "proj/m.py",
            "proj/m/n.py",
            "proj/skipped.py",
            "proj/stub.pyi",
            "proj/z.py"
        ]
    );
}

#[test]
fn explicitly_named_file_of_unknown_language_is_a_clear_error() {
    let dir = project();
    let out = run(dir.path(), &["outline", "proj/README.md"]);
    out.expect_failure();
    assert_eq!(out.stdout(), "");
    let first = out.stderr.lines().next().unwrap_or_default();
    assert!(
        first.starts_with("ast-outline: proj/README.md: not a language ast-outline knows"),
        "stderr:\n{}",
        out.stderr
    );
    assert!(
        first.contains(".py"),
        "lists the supported extensions: {first}"
    );

    // Next to a file that can be read: reported, and the exit status is 0.
    let out = run(
        dir.path(),
        &["outline", "--format", "json", "proj/README.md", "proj/z.py"],
    );
    out.expect_code(0).expect_no_panic();
    assert_eq!(paths(&out.json_lines()), ["proj/z.py"]);
    assert!(
        out.stderr
            .starts_with("ast-outline: proj/README.md: not a language ast-outline knows"),
        "stderr:\n{}",
        out.stderr
    );
}

#[test]
fn nothing_readable_is_a_failure_and_missing_files_are_reported() {
    let dir = project();
    let out = run(dir.path(), &["outline", "proj/missing.py"]);
    out.expect_failure();
    assert_eq!(out.stdout(), "");
    assert!(
        out.stderr.starts_with("ast-outline: proj/missing.py: "),
        "stderr:\n{}",
        out.stderr
    );

    let out = run(
        dir.path(),
        &["outline", "proj/missing.py", "proj/README.md"],
    );
    out.expect_failure();
    assert!(out.stderr.contains("proj/missing.py"), "{}", out.stderr);
    assert!(out.stderr.contains("proj/README.md"), "{}", out.stderr);

    // A directory holding no Python file at all.
    write(dir.path(), "docs/guide.md", b"# Guide\n");
    let out = run(dir.path(), &["outline", "docs"]);
    out.expect_failure();
    assert_eq!(out.stdout(), "");
    assert!(out.stderr.contains("docs"), "{}", out.stderr);

    // One missing path next to a readable one: outlined, reported, status 0.
    let out = run(
        dir.path(),
        &[
            "outline",
            "--format",
            "json",
            "proj/missing.py",
            "proj/z.py",
        ],
    );
    out.expect_code(0);
    assert_eq!(paths(&out.json_lines()), ["proj/z.py"]);
    assert!(out.stderr.contains("proj/missing.py"), "{}", out.stderr);
}

#[test]
fn usage_errors_exit_with_2() {
    let dir = project();
    for args in [
        &["outline"][..],
        &["outline", "--depth", "0", "proj"],
        &["outline", "--depth", "x", "proj"],
        &["outline", "--format", "yaml", "proj"],
        &["outline", "--block-threshold", "many", "proj"],
        &["outline", "--no-such-flag", "proj"],
        &["read"],
        &["completions"],
        &["completions", "no-such-shell"],
        &["no-such-command"],
        &[],
    ] {
        let out = run(dir.path(), args);
        out.expect_code(2);
        assert_eq!(out.stdout(), "", "`{}`", out.command);
        assert!(!out.stderr.is_empty(), "`{}` says why", out.command);
    }
}

// ---------------------------------------------------------------------------
// Syntax errors
// ---------------------------------------------------------------------------

#[test]
fn syntax_error_gives_partial_outline_with_diagnostics_and_exit_0() {
    let dir = tree(&[("broken.py", &broken())]);
    let out = run(dir.path(), &["outline", "--format", "json", "broken.py"]);
    out.expect_clean_success();
    let files = out.json_lines();
    assert_eq!(files.len(), 1);
    let file = &files[0];
    assert_eq!(file["partial"], true);
    assert_eq!(file["line_count"], 17);
    let diagnostics = file["diagnostics"].as_array().expect("diagnostics array");
    assert_eq!(diagnostics.len(), 1, "{diagnostics:?}");
    let diagnostic = &diagnostics[0];
    assert_eq!(diagnostic["line"], 8);
    assert_eq!(diagnostic["column"], 1);
    assert_eq!(diagnostic["severity"], "error");
    let message = diagnostic["message"].as_str().expect("message");
    assert!(message.to_lowercase().contains("indent"), "{message}");
    assert_eq!(
        spans(file),
        [
            span("broken.py:1:before", "function", 1, 2),
            span("broken.py:5:Parser", "class", 5, 12),
            span("broken.py:6:Parser.feed", "method", 6, 9),
            span("broken.py:11:Parser.close", "method", 11, 12),
            span("broken.py:15:after", "function", 15, 17),
        ]
    );
    assert_eq!(
        file["symbols"][2]["doc"], "Still here after the bad line.",
        "symbols after the error keep their docs"
    );

    let out = run(dir.path(), &["outline", "broken.py"]);
    out.expect_clean_success();
    assert_eq!(
        out.stdout(),
        format!(
            "broken.py (python, 17 lines; partial outline: 1 syntax error)\n\
             ! L8:1 error: {message}\n\
             L1-2 def before(a)\n\
             L5-12 class Parser\n  \
             L6-9 def feed(self, chunk)\n  \
             L11-12 def close(self)\n\
             L15-17 def after(b) — Still here after the bad line.\n"
        )
    );

    // A symbol after the error can be read back by its id.
    let out = run(dir.path(), &["read", "broken.py:11:Parser.close"]);
    out.expect_clean_success();
    assert_eq!(
        out.stdout(),
        "==> broken.py:11-12 method Parser.close <==\n    def close(self):\n        return None\n"
    );
}

// ---------------------------------------------------------------------------
// Filters and blocks
// ---------------------------------------------------------------------------

#[test]
fn depth_1_keeps_top_level_symbols_only() {
    let dir = tree(&[("a.py", GREETER)]);
    let out = run(
        dir.path(),
        &["outline", "--format", "json", "--depth", "1", "a.py"],
    );
    out.expect_clean_success();
    let files = out.json_lines();
    assert_eq!(
        spans(&files[0]),
        [
            span("a.py:5:Greeter", "class", 5, 20),
            span("a.py:23:helper", "function", 23, 27),
            span("a.py:30:_hidden", "function", 30, 32),
        ]
    );

    let out = run(dir.path(), &["outline", "--depth", "1", "a.py"]);
    out.expect_clean_success();
    assert_eq!(
        out.stdout(),
        "a.py (python, 32 lines) — Module doc.\n\
         imports: os\n\
         L5-20 class Greeter — Says hello.\n\
         L23-27 def helper(x: int) -> int — Double it.\n\
         L30-32 def _hidden()\n"
    );

    let out = run(
        dir.path(),
        &["outline", "--format", "json", "--depth", "2", "a.py"],
    );
    out.expect_clean_success();
    assert_eq!(spans(&out.json_lines()[0]), greeter_spans("a.py"));
}

#[test]
fn no_private_drops_underscore_names_and_what_they_hold_but_keeps_dunders() {
    let dir = tree(&[("a.py", GREETER)]);
    let out = run(
        dir.path(),
        &["outline", "--format", "json", "--no-private", "a.py"],
    );
    out.expect_clean_success();
    assert_eq!(
        ids(&out.json_lines()[0]),
        [
            "a.py:5:Greeter",
            "a.py:8:Greeter.__init__",
            "a.py:14:Greeter.title",
            "a.py:18:Greeter.title",
            "a.py:23:helper",
            "a.py:25:helper.inner",
        ]
    );

    let out = run(
        dir.path(),
        &["outline", "--no-private", "--depth", "1", "a.py"],
    );
    out.expect_clean_success();
    assert_eq!(
        out.stdout(),
        "a.py (python, 32 lines) — Module doc.\n\
         imports: os\n\
         L5-20 class Greeter — Says hello.\n\
         L23-27 def helper(x: int) -> int — Double it.\n"
    );
}

#[test]
fn no_docs_drops_every_doc() {
    let dir = tree(&[("a.py", GREETER)]);
    let with_docs = run(dir.path(), &["outline", "--format", "json", "a.py"]);
    with_docs.expect_clean_success();
    let file = &with_docs.json_lines()[0];
    assert_eq!(file["doc"], "Module doc.");
    assert_eq!(file["symbols"][0]["doc"], "Says hello.");
    assert_eq!(file["symbols"][1]["doc"], "Double it.");

    let out = run(
        dir.path(),
        &["outline", "--format", "json", "--no-docs", "a.py"],
    );
    out.expect_clean_success();
    let file = &out.json_lines()[0];
    assert!(!has_key(file, "doc"), "a doc is left: {file}");
    assert_eq!(spans(file), greeter_spans("a.py"));

    let out = run(dir.path(), &["outline", "--no-docs", "a.py"]);
    out.expect_clean_success();
    assert_eq!(
        out.stdout(),
        "a.py (python, 32 lines)\n\
         imports: os\n\
         L5-20 class Greeter\n  \
         L8-9 def __init__(self, name)\n  \
         L11-12 def _secret(self)\n  \
         L14-16 @property def title(self)\n  \
         L18-20 @title.setter def title(self, value)\n\
         L23-27 def helper(x: int) -> int\n  \
         L25-26 def inner()\n\
         L30-32 def _hidden()\n  \
         L31-32 def visible_name()\n"
    );
}

#[test]
fn block_threshold_splits_long_bodies_into_readable_blocks() {
    let dir = tree(&[("long.py", PROCESS)]);

    // The body is 13 lines: not split at 13 (nor by default), split at 12.
    for args in [
        &["outline", "--format", "json", "long.py"][..],
        &[
            "outline",
            "--format",
            "json",
            "--block-threshold",
            "13",
            "long.py",
        ],
    ] {
        let out = run(dir.path(), args);
        out.expect_clean_success();
        assert_eq!(
            spans(&out.json_lines()[0]),
            [span("long.py:1:process", "function", 1, 14)],
            "`{}`",
            out.command
        );
    }

    let out = run(
        dir.path(),
        &[
            "outline",
            "--format",
            "json",
            "--block-threshold",
            "12",
            "long.py",
        ],
    );
    out.expect_clean_success();
    let file = &out.json_lines()[0];
    assert_eq!(
        spans(file),
        [
            span("long.py:1:process", "function", 1, 14),
            span("long.py:3:process", "block", 3, 5),
            span("long.py:6:process", "block", 6, 9),
            span("long.py:10:process", "block", 10, 13),
        ]
    );
    let blocks = file["symbols"][0]["children"].as_array().expect("children");
    let names: Vec<&str> = blocks
        .iter()
        .map(|b| b["name"].as_str().expect("name"))
        .collect();
    assert_eq!(names, ["for item in items", "if total > 10", "try"]);
    for block in blocks {
        assert_eq!(
            block["qualname"], "process",
            "a block adds nothing to a qualname"
        );
    }

    let out = run(
        dir.path(),
        &["outline", "--block-threshold", "12", "long.py"],
    );
    out.expect_clean_success();
    assert_eq!(
        out.stdout(),
        "long.py (python, 14 lines)\n\
         L1-14 def process(items)\n  \
         L3-5 (block) for item in items\n  \
         L6-9 (block) if total > 10\n  \
         L10-13 (block) try\n"
    );

    // A block id reads back with the same threshold.
    let out = run(
        dir.path(),
        &["read", "--block-threshold", "12", "long.py:6:process"],
    );
    out.expect_clean_success();
    assert_eq!(
        out.stdout(),
        "==> long.py:6-9 block `if total > 10` in process <==\n    \
         if total > 10:\n        \
         total = 10\n    \
         else:\n        \
         total = 0\n"
    );
}

#[test]
fn a_block_id_reads_back_without_its_threshold_and_lines_outside_symbols_read_alone() {
    let dir = tree(&[(
        "long.py",
        "def process(items):\n    total = 0\n    for item in items:\n        total += item\n        total *= 2\n    if total > 10:\n        total = 10\n    else:\n        total = 0\n    try:\n        print(total)\n    except OSError:\n        pass\n    return total\n\nimport os\n",
    )]);
    // The id was issued with --block-threshold 12; read without it, the exact
    // block is still found (not reported as the function having moved).
    let out = run(dir.path(), &["read", "long.py:6:process"]);
    out.expect_clean_success();
    assert_eq!(
        out.stdout(),
        "==> long.py:6-9 block `if total > 10` in process <==\n    \
         if total > 10:\n        \
         total = 10\n    \
         else:\n        \
         total = 0\n"
    );
    // A line that no symbol contains is printed alone, saying so.
    let out = run(dir.path(), &["read", "long.py:16"]);
    out.expect_clean_success();
    assert_eq!(
        out.stdout(),
        "==> long.py:16-16 (no symbol contains this line) <==\nimport os\n"
    );
}

#[test]
fn depth_does_not_count_blocks() {
    let dir = tree(&[(
        "app.py",
        "def helper():\n    def inner():\n        pass\n\n\nif __name__ == \"__main__\":\n    def main():\n        helper()\n",
    )]);
    let out = run(dir.path(), &["outline", "--depth", "1", "app.py"]);
    out.expect_clean_success();
    assert_eq!(
        out.stdout(),
        "app.py (python, 8 lines)\n\
         L1-3 def helper()\n\
         L6-8 (block) if __name__ == \"__main__\"\n  \
         L7-8 def main()\n"
    );
}

#[test]
fn generated_function_longer_than_the_default_threshold_gets_blocks() {
    // def big(flag):        line 1
    //     if flag:          line 2
    //         v0 = 0        lines 3..=122
    //     for i in ...:     line 123
    //         def step():   lines 124-125, inside the block
    //     return flag       line 126
    let mut source = String::from("def big(flag):\n    if flag:\n");
    for i in 0..120 {
        source.push_str(&format!("        v{i} = {i}\n"));
    }
    source.push_str("    for i in range(3):\n        def step():\n            return i\n");
    source.push_str("    return flag\n");
    let dir = tree(&[("gen.py", &source)]);

    let out = run(dir.path(), &["outline", "--format", "json", "gen.py"]);
    out.expect_clean_success();
    let file = &out.json_lines()[0];
    assert_eq!(file["line_count"], 126);
    assert_eq!(
        spans(file),
        [
            span("gen.py:1:big", "function", 1, 126),
            span("gen.py:2:big", "block", 2, 122),
            span("gen.py:123:big", "block", 123, 125),
            span("gen.py:124:big.step", "function", 124, 125),
        ]
    );

    let out = run(dir.path(), &["read", "gen.py:123:big"]);
    out.expect_clean_success();
    assert_eq!(
        out.stdout(),
        "==> gen.py:123-125 block `for i in range(3)` in big <==\n    \
         for i in range(3):\n        \
         def step():\n            \
         return i\n"
    );
    let out = run(dir.path(), &["read", "gen.py:big.step"]);
    out.expect_clean_success();
    assert_eq!(
        out.stdout(),
        "==> gen.py:124-125 function big.step <==\n        def step():\n            return i\n"
    );

    // With a higher threshold the same function is not split.
    let out = run(
        dir.path(),
        &[
            "outline",
            "--format",
            "json",
            "--block-threshold",
            "200",
            "gen.py",
        ],
    );
    out.expect_clean_success();
    assert_eq!(
        ids(&out.json_lines()[0]),
        ["gen.py:1:big", "gen.py:124:big.step"]
    );
}

// ---------------------------------------------------------------------------
// Text format
// ---------------------------------------------------------------------------

#[test]
fn text_format_has_a_header_per_file_line_ranges_and_indentation() {
    let dir = tree(&[("a.py", GREETER)]);
    let out = run(dir.path(), &["outline", "a.py"]);
    out.expect_clean_success();
    assert_eq!(out.stdout(), GREETER_TEXT);

    // `--format text` is the default.
    let explicit = run(dir.path(), &["outline", "--format", "text", "a.py"]);
    explicit.expect_clean_success();
    assert_eq!(explicit.stdout, out.stdout);
}

#[test]
fn text_format_separates_files_with_a_blank_line() {
    let dir = project();
    let out = run(&dir.path().join("proj"), &["outline", "."]);
    out.expect_clean_success();
    assert_eq!(
        out.stdout(),
        format!(
            "{GREETER_TEXT}\n\
             m.py (python, 2 lines)\n\
             L1-2 class M\n\
             \n\
             m/n.py (python, 2 lines)\n\
             L1-2 def n()\n\
             \n\
             stub.pyi (python, 1 line)\n\
             L1-1 def s() -> int\n\
             \n\
             z.py (python, 1 line)\n\
             L1-1 Z = 1\n"
        )
    );
}

// ---------------------------------------------------------------------------
// read
// ---------------------------------------------------------------------------

#[test]
fn read_by_id_qualname_range_and_line() {
    let dir = tree(&[("a.py", GREETER)]);
    let helper = "==> a.py:23-27 function helper <==\n\
                  def helper(x: int) -> int:\n    \
                  \"\"\"Double it.\"\"\"\n    \
                  def inner():\n        \
                  return x\n    \
                  return inner() * 2\n";

    // By the id from the JSON output.
    let json = run(dir.path(), &["outline", "--format", "json", "a.py"]);
    let file = &json.json_lines()[0];
    assert_eq!(file["symbols"][1]["id"], "a.py:23:helper");
    let out = run(dir.path(), &["read", "a.py:23:helper"]);
    out.expect_clean_success();
    assert_eq!(out.stdout(), helper);

    // By qualified name, and by a plain name.
    let out = run(dir.path(), &["read", "a.py:helper"]);
    out.expect_clean_success();
    assert_eq!(out.stdout(), helper);
    let out = run(dir.path(), &["read", "a.py:helper.inner"]);
    out.expect_clean_success();
    assert_eq!(
        out.stdout(),
        "==> a.py:25-26 function helper.inner <==\n    def inner():\n        return x\n"
    );

    // Decorators are part of the symbol.
    let out = run(dir.path(), &["read", "a.py:14:Greeter.title"]);
    out.expect_clean_success();
    assert_eq!(
        out.stdout(),
        "==> a.py:14-16 method Greeter.title <==\n    \
         @property\n    \
         def title(self):\n        \
         return self.name\n"
    );
    let out = run(dir.path(), &["read", "a.py:18:Greeter.title"]);
    out.expect_clean_success();
    assert_eq!(
        out.stdout(),
        "==> a.py:18-20 method Greeter.title <==\n    \
         @title.setter\n    \
         def title(self, value):\n        \
         self.name = value\n"
    );

    // A line range, 1-based and inclusive.
    let out = run(dir.path(), &["read", "a.py:1-2"]);
    out.expect_clean_success();
    assert_eq!(
        out.stdout(),
        "==> a.py:1-2 <==\n\"\"\"Module doc.\"\"\"\nimport os\n"
    );
    let out = run(dir.path(), &["read", "a.py:9-9"]);
    out.expect_clean_success();
    assert_eq!(out.stdout(), "==> a.py:9-9 <==\n        self.name = name\n");

    // A line: the innermost symbol holding it.
    let out = run(dir.path(), &["read", "a.py:26"]);
    out.expect_clean_success();
    assert_eq!(
        out.stdout(),
        "==> a.py:25-26 function helper.inner <==\n    def inner():\n        return x\n"
    );
    let out = run(dir.path(), &["read", "a.py:15"]);
    out.expect_clean_success();
    assert!(
        out.stdout()
            .starts_with("==> a.py:14-16 method Greeter.title <==\n"),
        "{}",
        out.stdout()
    );

    // Several targets at once, each with its header, in order.
    let out = run(dir.path(), &["read", "a.py:9-9", "a.py:1-1"]);
    out.expect_clean_success();
    assert_eq!(
        out.stdout(),
        "==> a.py:9-9 <==\n        self.name = name\n==> a.py:1-1 <==\n\"\"\"Module doc.\"\"\"\n"
    );
}

#[test]
fn read_of_a_range_past_the_end_is_clamped_or_refused() {
    let dir = tree(&[("a.py", GREETER)]);
    let out = run(dir.path(), &["read", "a.py:31-99"]);
    out.expect_clean_success();
    assert_eq!(
        out.stdout(),
        "==> a.py:31-32 <==\n    def visible_name():\n        pass\n"
    );
    let out = run(dir.path(), &["read", "a.py:40-50"]);
    out.expect_failure();
    assert_eq!(out.stdout(), "");
    assert!(out.stderr.contains("a.py"), "{}", out.stderr);
}

#[test]
fn read_preserves_crlf_byte_exact() {
    let dir = tempfile::tempdir().expect("tempdir");
    write(
        dir.path(),
        "crlf.py",
        b"import os\r\n\r\n@dec\r\ndef f(a):\r\n    return a\r\n\r\nclass K:\r\n    pass\r\n",
    );
    let out = run(dir.path(), &["outline", "--format", "json", "crlf.py"]);
    out.expect_clean_success();
    let file = &out.json_lines()[0];
    assert_eq!(file["line_count"], 8);
    assert_eq!(
        spans(file),
        [
            span("crlf.py:3:f", "function", 3, 5),
            span("crlf.py:7:K", "class", 7, 8),
        ]
    );

    let expected: &[u8] = b"==> crlf.py:3-5 function f <==\n@dec\r\ndef f(a):\r\n    return a\r\n";
    for target in ["crlf.py:3:f", "crlf.py:f", "crlf.py:4"] {
        let out = run(dir.path(), &["read", target]);
        out.expect_clean_success();
        assert_eq!(
            out.stdout,
            expected,
            "`{}` printed {:?}",
            out.command,
            String::from_utf8_lossy(&out.stdout)
        );
    }
    let out = run(dir.path(), &["read", "crlf.py:7-8"]);
    out.expect_clean_success();
    assert_eq!(out.stdout, b"==> crlf.py:7-8 <==\nclass K:\r\n    pass\r\n");
}

#[test]
fn lone_cr_ends_lines_and_a_bom_is_not_part_of_line_1() {
    let dir = tempfile::tempdir().expect("tempdir");
    write(dir.path(), "cr.py", b"a = 1\rdef f():\r    pass\r");
    write(dir.path(), "bom.py", b"\xef\xbb\xbfdef g():\n    pass\n");

    let out = run(
        dir.path(),
        &["outline", "--format", "json", "bom.py", "cr.py"],
    );
    out.expect_clean_success();
    let files = out.json_lines();
    assert_eq!(paths(&files), ["bom.py", "cr.py"]);
    assert_eq!(files[0]["line_count"], 2);
    assert_eq!(spans(&files[0]), [span("bom.py:1:g", "function", 1, 2)]);
    assert_eq!(files[0]["symbols"][0]["name_column"], 5);
    assert_eq!(files[1]["line_count"], 3);
    assert_eq!(
        spans(&files[1]),
        [
            span("cr.py:1:a", "variable", 1, 1),
            span("cr.py:2:f", "function", 2, 3),
        ]
    );

    let out = run(dir.path(), &["read", "cr.py:f"]);
    out.expect_clean_success();
    assert_eq!(
        out.stdout,
        // The lines are exact; the output always ends with `\n` so a terminal or
        // a line-based reader is not left on an open line.
        b"==> cr.py:2-3 function f <==\ndef f():\r    pass\r\n"
    );
    let out = run(dir.path(), &["read", "bom.py:g"]);
    out.expect_clean_success();
    assert_eq!(
        out.stdout(),
        "==> bom.py:1-2 function g <==\ndef g():\n    pass\n"
    );
}

#[test]
fn ambiguous_qualname_lists_every_candidate_id() {
    let dir = tree(&[("a.py", GREETER)]);
    let out = run(dir.path(), &["read", "a.py:Greeter.title"]);
    out.expect_failure();
    assert_eq!(out.stdout(), "");
    assert!(out.stderr.contains("a.py:Greeter.title"), "{}", out.stderr);
    let listed: Vec<&str> = out
        .stderr
        .lines()
        .filter_map(|line| line.split_whitespace().next())
        .filter(|word| word.starts_with("a.py:") && word.matches(':').count() == 2)
        .collect();
    assert_eq!(
        listed,
        ["a.py:14:Greeter.title", "a.py:18:Greeter.title"],
        "stderr:\n{}",
        out.stderr
    );

    // A plain name that matches both is ambiguous too.
    let out = run(dir.path(), &["read", "a.py:title"]);
    out.expect_failure();
    assert!(
        out.stderr.contains("a.py:14:Greeter.title"),
        "{}",
        out.stderr
    );
    assert!(
        out.stderr.contains("a.py:18:Greeter.title"),
        "{}",
        out.stderr
    );
}

#[test]
fn unknown_name_fails_with_suggestions() {
    let dir = tree(&[("a.py", GREETER)]);
    let out = run(dir.path(), &["read", "a.py:hlper"]);
    out.expect_failure();
    assert_eq!(out.stdout(), "");
    assert!(
        out.stderr.starts_with("ast-outline: a.py:hlper: "),
        "{}",
        out.stderr
    );
    assert!(
        out.stderr.contains("a.py:23:helper"),
        "suggests helper:\n{}",
        out.stderr
    );

    let out = run(dir.path(), &["read", "a.py:Greeter.titel"]);
    out.expect_failure();
    assert!(
        out.stderr.contains("a.py:14:Greeter.title"),
        "suggests title:\n{}",
        out.stderr
    );

    // Nothing close: still a failure that says where to look.
    let out = run(dir.path(), &["read", "a.py:zzzzzzzzzzzz"]);
    out.expect_failure();
    assert!(out.stderr.contains("a.py"), "{}", out.stderr);

    // One good target and one bad: the good one is printed, status 0.
    let out = run(dir.path(), &["read", "a.py:9-9", "a.py:hlper"]);
    out.expect_code(0);
    assert_eq!(out.stdout(), "==> a.py:9-9 <==\n        self.name = name\n");
    assert!(out.stderr.contains("a.py:hlper"), "{}", out.stderr);
}

#[test]
fn read_of_missing_file_or_bare_path_fails() {
    let dir = tree(&[("a.py", GREETER)]);
    for target in ["missing.py:f", "a.py", "missing.py:1-2"] {
        let out = run(dir.path(), &["read", target]);
        out.expect_failure();
        assert_eq!(out.stdout(), "", "`{}`", out.command);
        assert!(
            out.stderr.contains(target),
            "`{}`: {}",
            out.command,
            out.stderr
        );
    }
}

#[test]
fn reading_an_old_id_after_the_symbol_moved_prints_it_at_its_new_lines() {
    let dir = tree(&[("a.py", GREETER)]);
    let json = run(dir.path(), &["outline", "--format", "json", "a.py"]);
    let id = json.json_lines()[0]["symbols"][1]["id"]
        .as_str()
        .expect("id")
        .to_owned();
    assert_eq!(id, "a.py:23:helper");

    // Three lines inserted above: helper moves from 23-27 to 26-30.
    write(
        dir.path(),
        "a.py",
        format!("# one\n# two\n# three\n{GREETER}").as_bytes(),
    );
    let out = run(dir.path(), &["read", &id]);
    out.expect_clean_success();
    let stdout = out.stdout();
    let (header, body) = stdout.split_once('\n').expect("a header line");
    assert!(header.starts_with("==> a.py:26-30 "), "header: {header}");
    assert!(header.ends_with(" <=="), "header: {header}");
    // `read` cannot know whether the file changed: it says where the id
    // said the symbol starts and where it does.
    assert_eq!(
        header,
        "==> a.py:26-30 function helper (found by qualname: the id said line 23; it starts at line 26) <=="
    );
    assert_eq!(
        body,
        "def helper(x: int) -> int:\n    \
         \"\"\"Double it.\"\"\"\n    \
         def inner():\n        \
         return x\n    \
         return inner() * 2\n"
    );

    // The new id reads without a note.
    let out = run(dir.path(), &["read", "a.py:26:helper"]);
    out.expect_clean_success();
    assert!(
        out.stdout()
            .starts_with("==> a.py:26-30 function helper <==\n"),
        "{}",
        out.stdout()
    );
}

// ---------------------------------------------------------------------------
// Awkward input
// ---------------------------------------------------------------------------

#[test]
fn invalid_utf8_is_outlined_with_a_warning() {
    let dir = tempfile::tempdir().expect("tempdir");
    write(
        dir.path(),
        "bad.py",
        b"x = 1\ny = '\xff'\ndef g():\n    pass\n",
    );
    let out = run(dir.path(), &["outline", "--format", "json", "bad.py"]);
    out.expect_clean_success();
    let file = &out.json_lines()[0];
    assert_eq!(file["partial"], false);
    assert_eq!(
        spans(file),
        [
            span("bad.py:1:x", "variable", 1, 1),
            span("bad.py:2:y", "variable", 2, 2),
            span("bad.py:3:g", "function", 3, 4),
        ]
    );
    let diagnostics = file["diagnostics"].as_array().expect("diagnostics");
    assert_eq!(diagnostics.len(), 1, "{diagnostics:?}");
    assert_eq!(diagnostics[0]["line"], 2);
    assert_eq!(diagnostics[0]["column"], 6);
    assert_eq!(diagnostics[0]["severity"], "warning");
    assert!(
        diagnostics[0]["message"]
            .as_str()
            .expect("message")
            .contains("UTF-8"),
        "{diagnostics:?}"
    );

    // The same file walked, in text.
    let out = run(dir.path(), &["outline", "."]);
    out.expect_clean_success();
    assert_eq!(
        out.stdout(),
        "bad.py (python, 4 lines)\n\
         ! L2:6 warning: file is not valid UTF-8; invalid bytes were replaced by U+FFFD\n\
         L1-1 x = 1\n\
         L2-2 y = '\u{fffd}'\n\
         L3-4 def g()\n"
    );

    // And `read` still reads it.
    let out = run(dir.path(), &["read", "bad.py:g"]);
    out.expect_clean_success();
    assert_eq!(
        out.stdout(),
        "==> bad.py:3-4 function g <==\ndef g():\n    pass\n"
    );
}

#[test]
fn file_with_nul_bytes_is_skipped_with_a_note_when_walked() {
    let dir = tempfile::tempdir().expect("tempdir");
    write(dir.path(), "src/ok.py", b"B = 1\n");
    write(dir.path(), "src/z.py", b"a = 1\x00\n");
    let out = run(dir.path(), &["outline", "--format", "json", "src"]);
    out.expect_code(0).expect_no_panic();
    assert_eq!(paths(&out.json_lines()), ["src/ok.py"]);
    let notes: Vec<&str> = out.stderr.lines().collect();
    assert_eq!(notes.len(), 1, "stderr:\n{}", out.stderr);
    assert!(
        notes[0].starts_with("ast-outline: src/z.py: ") && notes[0].contains("NUL"),
        "stderr:\n{}",
        out.stderr
    );

    // Named on its own, nothing could be read: a failure, not a crash.
    let out = run(dir.path(), &["outline", "src/z.py"]);
    out.expect_failure();
    assert_eq!(out.stdout(), "");
    assert!(out.stderr.contains("src/z.py"), "{}", out.stderr);
}

// ---------------------------------------------------------------------------
// schema, completions, help
// ---------------------------------------------------------------------------

#[test]
fn schema_is_json_that_every_outline_line_satisfies() {
    let dir = project();
    write(dir.path(), "proj/broken.py", broken().as_bytes());
    write(dir.path(), "proj/bad.py", b"y = '\xff'\n");
    write(dir.path(), "proj/long.py", PROCESS.as_bytes());

    let out = run(dir.path(), &["schema"]);
    out.expect_clean_success();
    let schema: Value = serde_json::from_str(out.stdout()).expect("schema is valid JSON");
    assert_eq!(schema["type"], "object", "{schema}");
    for key in ["path", "language", "line_count", "symbols", "diagnostics"] {
        assert!(
            schema["properties"].get(key).is_some(),
            "schema describes `{key}`"
        );
    }
    let validator = jsonschema::validator_for(&schema).expect("a valid JSON Schema");

    let out = run(
        dir.path(),
        &[
            "outline",
            "--format",
            "json",
            "--block-threshold",
            "5",
            "proj",
        ],
    );
    out.expect_clean_success();
    let files = out.json_lines();
    assert_eq!(files.len(), 8);
    for file in &files {
        let errors: Vec<String> = validator
            .iter_errors(file)
            .map(|error| format!("{} at {}", error, error.instance_path))
            .collect();
        assert!(errors.is_empty(), "{}: {errors:?}", file["path"]);
    }
}

#[test]
fn completions_and_help() {
    let dir = tempfile::tempdir().expect("tempdir");
    for shell in ["bash", "zsh", "fish"] {
        let out = run(dir.path(), &["completions", shell]);
        out.expect_clean_success();
        assert!(
            out.stdout().contains("ast-outline"),
            "{shell} completion script"
        );
    }
    let bash = run(dir.path(), &["completions", "bash"]);
    for word in ["outline", "read", "--format", "--block-threshold"] {
        assert!(bash.stdout().contains(word), "bash completes `{word}`");
    }

    for args in [
        &["--help"][..],
        &["outline", "--help"],
        &["read", "--help"],
        &["help", "outline"],
    ] {
        let out = run(dir.path(), args);
        out.expect_clean_success();
        let help = out.stdout();
        assert!(help.contains("Examples:"), "`{}`:\n{help}", out.command);
        assert!(
            help.contains("ast-outline read app.py:195:Repo.find"),
            "`{}`:\n{help}",
            out.command
        );
    }
    let out = run(dir.path(), &["outline", "--help"]);
    for flag in [
        "--format",
        "--depth",
        "--no-docs",
        "--no-private",
        "--block-threshold",
        "--hidden",
        "--no-ignore",
    ] {
        assert!(out.stdout().contains(flag), "outline --help lists {flag}");
    }

    let out = run(dir.path(), &["--version"]);
    out.expect_clean_success();
    assert!(out.stdout().starts_with("ast-outline "), "{}", out.stdout());
}

/// The Python standard library directory of the `python3` on `PATH`.
fn stdlib_dir() -> PathBuf {
    let output = Command::new("python3")
        .args([
            "-c",
            "import sysconfig; print(sysconfig.get_path('stdlib'))",
        ])
        .output()
        .expect("this test needs python3 on PATH to find the standard library");
    assert!(output.status.success(), "python3 failed");
    PathBuf::from(String::from_utf8_lossy(&output.stdout).trim())
}

#[test]
fn read_prints_exact_lines_for_ids_from_the_standard_library() {
    let stdlib = stdlib_dir();
    let mut checked = 0;
    for relative in [
        "json/decoder.py",
        "functools.py",
        "asyncio/locks.py",
        "dataclasses.py",
    ] {
        let path = stdlib.join(relative);
        let outline = ast_outline::outline_file(&path, &ast_outline::OutlineOptions::default())
            .expect("outline a stdlib file");
        let text = std::fs::read_to_string(&path).expect("read a stdlib file");
        let lines: Vec<&str> = text.split_inclusive('\n').collect();
        let mut symbols = Vec::new();
        outline.walk(|s| symbols.push(s));
        // Every 5th symbol keeps the run short and still varied.
        for symbol in symbols.iter().step_by(5) {
            let out = run(Path::new("/"), &["read", &symbol.id]);
            out.expect_code(0);
            let (header, body) = out.stdout().split_once('\n').expect("a header line");
            let range = format!(":{}-{} ", symbol.start_line, symbol.end_line);
            assert!(
                header.starts_with("==> ") && header.contains(&range),
                "{header}"
            );
            let expected: String =
                lines[symbol.start_line as usize - 1..symbol.end_line as usize].concat();
            assert_eq!(body, expected, "{}", symbol.id);
            checked += 1;
        }
    }
    assert!(checked > 40, "only {checked} reads");
}

#[test]
fn fifos_are_refused_not_read() {
    let dir = tree(&[("ok.py", "def fine():\n    pass\n")]);
    let fifo = dir.path().join("pipe.py");
    let status = Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .expect("mkfifo runs");
    assert!(status.success());
    // Named next to a good file: the good one is outlined, the FIFO refused.
    let out = run(dir.path(), &["outline", "pipe.py", "ok.py"]);
    out.expect_code(0);
    assert_eq!(out.stdout(), "ok.py (python, 2 lines)\nL1-2 def fine()\n");
    assert_eq!(
        out.stderr,
        "ast-outline: pipe.py: not a regular file (a FIFO, socket or device); not read\n"
    );
    let out = run(dir.path(), &["read", "pipe.py:1-2"]);
    out.expect_failure();
    assert_eq!(
        out.stderr,
        "ast-outline: pipe.py: not a regular file; only files can be read\n"
    );
    // Walked: never opened, with a note (the rest is outlined).
    let out = run(dir.path(), &["outline", "."]);
    out.expect_code(0);
    assert_eq!(out.stdout(), "ok.py (python, 2 lines)\nL1-2 def fine()\n");
    assert_eq!(
        out.stderr,
        "ast-outline: pipe.py: not a regular file (a FIFO, socket or device); not read\n"
    );
}

#[test]
fn malformed_read_targets_say_what_is_wrong() {
    let dir = tree(&[("a.py", "def f():\n    pass\n")]);
    let cases = [
        ("a.py:0", "a.py:0: line 0: lines are 1-based"),
        ("a.py:0-3", "a.py:0-3: line 0: lines are 1-based"),
        (
            "a.py:5-2",
            "a.py:5-2: range 5-2 is reversed: START must not be after END",
        ),
        (
            "a.py:",
            "a.py:: nothing after the path: add :QUALNAME, :LINE:QUALNAME or :START-END",
        ),
        (
            "a.py:-3",
            "a.py:-3: `-3` is not a line or a range: write LINE or START-END (1-based)",
        ),
        (
            "a.py:99999999999999999999",
            "a.py:99999999999999999999: line number 99999999999999999999 is too large",
        ),
        (
            "a.py",
            "a.py: say what to read: a.py:QUALNAME, a.py:LINE:QUALNAME or a.py:START-END",
        ),
        (
            "nope.py:f",
            "nope.py:f: no such file (write PATH:QUALNAME, PATH:LINE:QUALNAME or PATH:START-END)",
        ),
    ];
    for (target, message) in cases {
        let out = run(dir.path(), &["read", target]);
        out.expect_failure();
        assert_eq!(out.stderr, format!("ast-outline: {message}\n"), "{target}");
    }
}

#[test]
fn write_errors_are_reported_and_broken_pipes_are_quiet() {
    let dir = tree(&[("a.py", "def f():\n    pass\n")]);
    let full = std::fs::OpenOptions::new()
        .write(true)
        .open("/dev/full")
        .expect("/dev/full exists on Linux");
    let output = Command::new(binary())
        .args(["outline", "a.py"])
        .current_dir(dir.path())
        .stdout(full)
        .output()
        .expect("run");
    assert_eq!(output.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&output.stderr).contains("cannot write the output"),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
}

#[test]
fn many_threads_asked_for_one_file_is_quick() {
    let dir = tree(&[("a.py", "x = 1\n")]);
    let started = std::time::Instant::now();
    let out = run(dir.path(), &["outline", "-j", "20000", "a.py"]);
    out.expect_clean_success();
    assert_eq!(out.stdout(), "a.py (python, 1 line)\nL1-1 x = 1\n");
    // Not a timing test: 20,000 threads would take minutes, one takes moments.
    assert!(started.elapsed().as_secs() < 30);
}

#[test]
fn control_characters_in_paths_are_escaped_in_text_headers() {
    let dir = tree(&[
        ("new\nline.py", "def f():\n    pass\n"),
        ("esc\u{1b}[31m.py", "x = 1\n"),
    ]);
    let out = run(dir.path(), &["outline", "."]);
    out.expect_clean_success();
    assert_eq!(
        out.stdout(),
        "esc\\x1b[31m.py (python, 1 line)\nL1-1 x = 1\n\nnew\\nline.py (python, 2 lines)\nL1-2 def f()\n"
    );
    let out = run(dir.path(), &["read", "new\nline.py:f"]);
    out.expect_clean_success();
    assert_eq!(
        out.stdout(),
        "==> new\\nline.py:1-2 function f <==\ndef f():\n    pass\n"
    );
}

#[test]
fn the_header_counts_diagnostics_left_out() {
    let dir = tree(&[("n.py", &")\n".repeat(300))]);
    let out = run(dir.path(), &["outline", "n.py"]);
    out.expect_code(0);
    let header = out.stdout().lines().next().unwrap_or_default().to_owned();
    assert_eq!(
        header,
        // ruff reports two errors per stray `)`: 600, of which 100 are listed.
        "n.py (python, 300 lines; partial outline: 100 syntax errors listed, 500 more not)"
    );
    let out = run(dir.path(), &["outline", "--format", "json", "n.py"]);
    let file = &out.json_lines()[0];
    assert_eq!(file["omitted_diagnostics"], 500);
    assert_eq!(file["diagnostics"].as_array().map(Vec::len), Some(101));
}

#[test]
fn reading_a_directory_says_so() {
    let dir = tree(&[("pkg/a.py", "x = 1\n")]);
    let out = run(dir.path(), &["read", "pkg:1"]);
    out.expect_failure();
    assert_eq!(
        out.stderr,
        "ast-outline: pkg: is a directory; read a file in it (list them with `ast-outline outline pkg`)\n"
    );
}

/// One small file per language, each defining a greeter in its own idiom.
fn polyglot() -> TempDir {
    tree(&[
        (
            "app/greet.py",
            "class Greeter:\n    def greet(self):\n        pass\n",
        ),
        (
            "app/greet.ts",
            "export class Greeter {\n  greet(name: string): string {\n    return name;\n  }\n}\n",
        ),
        (
            "app/view.tsx",
            "export function View() {\n  return <div>\n    hi\n  </div>;\n}\n",
        ),
        (
            "app/old.js",
            "function legacy(a, b) {\n  return a + b;\n}\n",
        ),
        (
            "app/greet.rs",
            "pub struct Greeter;\n\nimpl Greeter {\n    pub fn greet(&self) -> String {\n        String::new()\n    }\n}\n",
        ),
        ("app/notes.md", "# not code\n"),
    ])
}

#[test]
fn a_walk_outlines_every_language_by_extension() {
    let dir = polyglot();
    let out = run(dir.path(), &["outline", "--format", "json", "app"]);
    out.expect_clean_success();
    let files = out.json_lines();
    assert_eq!(
        paths(&files),
        [
            "app/greet.py",
            "app/greet.rs",
            "app/greet.ts",
            "app/old.js",
            "app/view.tsx"
        ]
    );
    let languages: Vec<&str> = files
        .iter()
        .map(|f| f["language"].as_str().unwrap_or_default())
        .collect();
    assert_eq!(
        languages,
        ["python", "rust", "typescript", "javascript", "tsx"]
    );
    assert_eq!(
        spans(&files[1]),
        [
            span("app/greet.rs:1:Greeter", "struct", 1, 1),
            span("app/greet.rs:3:impl Greeter", "impl", 3, 7),
            span("app/greet.rs:4:impl Greeter.greet", "method", 4, 6),
        ]
    );
    assert_eq!(
        spans(&files[2]),
        [
            span("app/greet.ts:1:Greeter", "class", 1, 5),
            span("app/greet.ts:2:Greeter.greet", "method", 2, 4),
        ]
    );
    assert_eq!(
        spans(&files[3]),
        [span("app/old.js:1:legacy", "function", 1, 3)]
    );
    assert_eq!(
        spans(&files[4]),
        [span("app/view.tsx:1:View", "function", 1, 5)]
    );
    for file in &files {
        assert_eq!(file["diagnostics"], serde_json::json!([]), "{file}");
    }
}

#[test]
fn read_finds_typescript_and_rust_symbols_by_qualname_and_id() {
    let dir = polyglot();
    let out = run(dir.path(), &["read", "app/greet.ts:Greeter.greet"]);
    out.expect_clean_success();
    assert_eq!(
        out.stdout(),
        "==> app/greet.ts:2-4 method Greeter.greet <==\n  greet(name: string): string {\n    return name;\n  }\n"
    );
    let out = run(dir.path(), &["read", "app/greet.rs:4:impl Greeter.greet"]);
    out.expect_clean_success();
    assert_eq!(
        out.stdout(),
        "==> app/greet.rs:4-6 method impl Greeter.greet <==\n    pub fn greet(&self) -> String {\n        String::new()\n    }\n"
    );
    let out = run(dir.path(), &["read", "app/greet.rs:impl Greeter"]);
    out.expect_clean_success();
    assert!(
        out.stdout()
            .starts_with("==> app/greet.rs:3-7 impl Greeter <==\n"),
        "{}",
        out.stdout()
    );
}

#[test]
fn read_names_a_preceding_doc_comment_in_the_header() {
    let dir = tree(&[(
        "d.rs",
        "struct A;\n/// Makes one.\n/// Really.\nfn make() -> A {\n    A\n}\n",
    )]);
    let out = run(dir.path(), &["read", "d.rs:4:make"]);
    out.expect_clean_success();
    assert_eq!(
        out.stdout(),
        "==> d.rs:2-6 function make (doc comment from line 2) <==\n\
         /// Makes one.\n/// Really.\nfn make() -> A {\n    A\n}\n"
    );
}

#[test]
fn search_shows_hits_under_their_symbol_and_block_and_json_names_both() {
    let mut body = String::from("def handle(items):\n    for item in items:\n");
    for i in 0..110 {
        body.push_str(&format!("        x{i} = item\n"));
    }
    body.push_str("        needle(item)\n    return needle\n");
    let dir = tree(&[("app.py", &body), ("notes.txt", "a needle here\n")]);
    let text = run(dir.path(), &["search", "needle", "--no-cache"]);
    assert_eq!(text.code, Some(0), "{}", text.stderr);
    assert_eq!(
        String::from_utf8_lossy(&text.stdout),
        "3 hits in 1 symbol in 2 files for `needle` (literal, case-sensitive) under . \
         (searched 2 files):\n\
         app.py\n  app.py:1:handle function L1-114 def handle(items)\n    \
         app.py:2:handle block L2-113 `for item in items`\n      L113: needle(item)\n    \
         L114: return needle\n\
         notes.txt\n  L1: a needle here\n"
    );
    let json = run(
        dir.path(),
        &["search", "needle(", "--format", "json", "--no-cache"],
    );
    let hits = json.json_lines();
    assert_eq!(hits.len(), 1);
    assert_eq!(hits[0]["path"], "app.py");
    assert_eq!(
        (hits[0]["line"].as_u64(), hits[0]["column"].as_u64()),
        (Some(113), Some(9))
    );
    assert_eq!(hits[0]["symbol"]["id"], "app.py:1:handle");
    assert_eq!(hits[0]["block"]["name"], "for item in items");
}

#[test]
fn search_context_lines_stay_in_the_hit_s_symbol_with_relative_indent() {
    let source = "\
def first():
    return 1


def second(items):
    for item in items:
        if item:
            needle(item)
    return 2
";
    let dir = tree(&[("app.py", source)]);
    let text = run(dir.path(), &["search", "needle", "-C", "4", "--no-cache"]);
    assert_eq!(text.code, Some(0), "{}", text.stderr);
    // A short flag with its value attached, before the pattern, is the flag
    // (it was taken as the pattern: a new user's trial), and a pattern that
    // starts with `-` comes after `--`, as in ripgrep.
    let attached = run(dir.path(), &["search", "-C4", "needle", "--no-cache"]);
    assert_eq!(attached.stdout, text.stdout, "{}", attached.stderr);
    let dash = run(dir.path(), &["search", "--no-cache", "--", "-C4"]);
    assert_eq!(dash.code, Some(0), "{}", dash.stderr);
    assert!(String::from_utf8_lossy(&dash.stdout).starts_with("no hits for `-C4`"));
    // Lines 4-5 are before `second` and `first`'s: left out; the JSON
    // output has the match only.
    assert_eq!(
        String::from_utf8_lossy(&text.stdout),
        "1 hit in 1 symbol in 1 file for `needle` (literal, case-sensitive) under . \
         (searched 1 file):\n\
         app.py\n  app.py:5:second function L5-9 def second(items)\n    \
         L5- def second(items):\n    \
         L6-     for item in items:\n    \
         L7-         if item:\n    \
         L8:             needle(item)\n    \
         L9-     return 2\n"
    );
    let json = run(
        dir.path(),
        &[
            "search",
            "needle",
            "-C",
            "4",
            "--format",
            "json",
            "--no-cache",
        ],
    );
    assert_eq!(json.json_lines().len(), 1);
    let tiny = run(
        dir.path(),
        &["search", "needle", "--max-tokens", "5", "--no-cache"],
    );
    tiny.expect_failure();
    assert!(
        tiny.stderr
            .contains("--max-tokens 5 is too small to say anything about 1 hit; raise it"),
        "{}",
        tiny.stderr
    );
    let too_many = run(dir.path(), &["search", "needle", "-C", "21"]);
    assert_eq!(too_many.code, Some(2));
}

#[test]
fn search_refuses_bad_patterns_and_bounds_a_huge_minified_line() {
    let dir = tree(&[("a.py", "x = 1\n")]);
    let bad = run(dir.path(), &["search", "-e", "a{99999}{99999}"]);
    assert_eq!(bad.code, Some(2));
    assert!(
        bad.stderr.contains("is not a valid regular expression"),
        "{}",
        bad.stderr
    );
    let long = "a".repeat(1001);
    let too_long = run(dir.path(), &["search", &long]);
    assert_eq!(too_long.code, Some(2));
    assert!(
        too_long.stderr.contains("at most 1000"),
        "{}",
        too_long.stderr
    );
    // A 5 MB one-line minified file: the hit is cut around the match.
    let mut minified = "var a=1;".repeat(650_000);
    minified.push_str("needle();");
    write(dir.path(), "min.js", minified.as_bytes());
    let found = run(dir.path(), &["search", "needle", "--no-cache"]);
    assert_eq!(found.code, Some(0), "{}", found.stderr);
    let out = String::from_utf8_lossy(&found.stdout).into_owned();
    assert!(out.contains("\n    L1: …1;var a=1;"), "{out}");
    assert!(out.contains("needle();"), "{out}");
    assert!(out.len() < 600, "{out}");
}

#[test]
fn at_names_the_function_block_and_branch_holding_a_line_and_refuses_bad_targets() {
    let dir = tree(&[(
        "flow.rs",
        "fn route(kind: u8) -> i32 {\n    let mut total = 0;\n    if kind == 1 {\n        total = 1;\n    } else {\n        total = -1;\n    }\n    total\n}\n\nconst MAX: i32 = 3;\n",
    )]);
    let good = run(dir.path(), &["at", "flow.rs:6", "flow.rs:10"]);
    good.expect_clean_success();
    assert_eq!(
        good.stdout(),
        "flow.rs:6 is inside 2 symbols and blocks (outermost first):\n  \
         flow.rs:1:route function L1-9 fn route(kind: u8) -> i32\n  \
         flow.rs:3:route block L3-7 `if kind == 1`, in its branch `else` (L5)\n\
         L6: total = -1;\n\
         flow.rs:10 is at module level (inside no symbol)\nL10: \n"
    );
    // Every target is answered, the bad ones on stderr; the status is a
    // failure only when nothing could be answered (CONTRACT.md).
    let none = run(dir.path(), &["at", "flow.rs:99", "flow.rs"]);
    none.expect_failure();
    assert_eq!(none.stdout(), "");
    let bad = run(dir.path(), &["at", "flow.rs:99", "flow.rs", "flow.rs:11"]);
    bad.expect_code(0).expect_no_panic();
    assert!(
        bad.stderr
            .contains("flow.rs: line 99 does not exist: the file has 11 lines"),
        "{}",
        bad.stderr
    );
    assert!(
        bad.stderr
            .contains("flow.rs: write PATH:LINE (a file and a 1-based line number)"),
        "{}",
        bad.stderr
    );
    assert!(
        bad.stdout().starts_with("flow.rs:11 is inside 1 symbol"),
        "{}",
        bad.stdout()
    );
    // A compiler's PATH:LINE:COLUMN is taken (found by a new-user trial:
    // it was "not a language"), a directory and `+2` are refused clearly.
    let column = run(dir.path(), &["at", "flow.rs:11:5"]);
    assert_eq!(column.stdout(), bad.stdout());
    let odd = run(
        dir.path(),
        &["at", ".:3", "flow.rs:+2", "flow.rs:99999999999999999999"],
    );
    odd.expect_failure();
    for message in [
        ".: is a directory; write PATH:LINE of a file",
        "flow.rs:+2: write PATH:LINE",
        "flow.rs:99999999999999999999: line 99999999999999999999 is too large",
    ] {
        assert!(odd.stderr.contains(message), "{}", odd.stderr);
    }
}

// ---------------------------------------------------------------------------
// chunks
// ---------------------------------------------------------------------------

const SHOP_PY: &str = r#""""Shop module."""
import os

RATE = 3


class Cart:
    """A cart of items."""

    items: list

    def add(self, item):
        self.items.append(item)

    def total(self):
        # sum prices
        return sum(i.price for i in self.items)


# Pays for a cart.
def checkout(cart, user):
    if not user:
        raise ValueError("no user")
    for item in cart.items:
        reserve(item)
        log(item)
    return pay(cart)


main = checkout
"#;

const POINT_RS: &str = "/// A point.
pub struct Point {
    x: i32,
}

impl Point {
    /// Makes one.
    pub fn new(x: i32) -> Self {
        Point { x }
    }

    pub fn grow(&mut self, by: i32) {
        if by > 0 {
            self.x += by;
        }
        self.x += 1;
    }
}
";

/// (id, start, end, kind, part, qualname, context) of a chunk.
type ChunkRow = (String, u64, u64, String, String, String, Vec<String>);

fn chunk_row(
    id: &str,
    lines: (u64, u64),
    kind: &str,
    part: &str,
    qualname: &str,
    context: &[&str],
) -> ChunkRow {
    (
        id.to_owned(),
        lines.0,
        lines.1,
        kind.to_owned(),
        part.to_owned(),
        qualname.to_owned(),
        context.iter().map(|h| (*h).to_owned()).collect(),
    )
}

/// The [`ChunkRow`] of each chunk.
fn chunk_rows(lines: &[Value]) -> Vec<ChunkRow> {
    lines
        .iter()
        .map(|c| {
            (
                c["id"].as_str().unwrap_or("?").to_owned(),
                c["start_line"].as_u64().unwrap_or(0),
                c["end_line"].as_u64().unwrap_or(0),
                c["kind"].as_str().unwrap_or("?").to_owned(),
                c["part"].as_str().unwrap_or("?").to_owned(),
                c["qualname"].as_str().unwrap_or("?").to_owned(),
                c["context"]
                    .as_array()
                    .map(|a| {
                        a.iter()
                            .filter_map(|h| h.as_str().map(str::to_owned))
                            .collect()
                    })
                    .unwrap_or_default(),
            )
        })
        .collect()
}

#[test]
fn chunks_follow_symbols_split_over_the_budget_and_hold_every_line_once() {
    let dir = tree(&[("shop.py", SHOP_PY), ("point.rs", POINT_RS)]);
    // Under a large budget every definition is one chunk, the module's
    // statements grouped between them.
    let whole = run(dir.path(), &["chunks", "shop.py"]);
    whole.expect_clean_success();
    let rows = chunk_rows(&whole.json_lines());
    let spans: Vec<_> = rows
        .iter()
        .map(|r| (r.0.as_str(), r.1, r.2, r.3.as_str(), r.4.as_str()))
        .collect();
    assert_eq!(
        spans,
        [
            ("shop.py:1-6", 1, 6, "statements", "group"),
            ("shop.py:7:Cart", 7, 19, "class", "whole"),
            // The comment right above the function goes with it.
            ("shop.py:21:checkout", 20, 27, "function", "whole"),
            ("shop.py:28-30", 28, 30, "statements", "group"),
        ]
    );
    // Under 30 tokens the class is split into its head and its methods, the
    // function at its blocks; each part names the headers around it. The
    // impl's one-line head comes with its first method.
    let small = run(dir.path(), &["chunks", "--max-tokens", "30", "."]);
    small.expect_clean_success();
    let lines = small.json_lines();
    let rows = chunk_rows(&lines);
    let expected = [
        chunk_row("point.rs:2:Point", (1, 5), "struct", "whole", "Point", &[]),
        chunk_row(
            "point.rs:6:impl Point",
            (6, 11),
            "impl",
            "head",
            "impl Point",
            &[],
        ),
        chunk_row(
            "point.rs:12:impl Point.grow",
            (12, 15),
            "method",
            "head",
            "impl Point.grow",
            &["impl Point"],
        ),
        chunk_row(
            "point.rs:16-18",
            (16, 18),
            "statements",
            "group",
            "impl Point.grow",
            &["impl Point", "pub fn grow(&mut self, by: i32)"],
        ),
        chunk_row("shop.py:1-6", (1, 6), "statements", "group", "", &[]),
        chunk_row("shop.py:7:Cart", (7, 11), "class", "head", "Cart", &[]),
        chunk_row(
            "shop.py:12:Cart.add",
            (12, 14),
            "method",
            "whole",
            "Cart.add",
            &["class Cart"],
        ),
        chunk_row(
            "shop.py:15:Cart.total",
            (15, 19),
            "method",
            "whole",
            "Cart.total",
            &["class Cart"],
        ),
        chunk_row(
            "shop.py:21:checkout",
            (20, 23),
            "function",
            "head",
            "checkout",
            &[],
        ),
        chunk_row(
            "shop.py:24-27",
            (24, 27),
            "statements",
            "group",
            "checkout",
            &["def checkout(cart, user)"],
        ),
        chunk_row("shop.py:28-30", (28, 30), "statements", "group", "", &[]),
    ];
    assert_eq!(rows, expected);
    // Each chunk's text is exactly its lines, its tokens counted, its id
    // readable with `read`.
    for (chunk, text) in lines.iter().zip(lines.iter().map(|c| {
        if c["path"] == "shop.py" {
            SHOP_PY
        } else {
            POINT_RS
        }
    })) {
        let (a, b) = (
            chunk["start_line"].as_u64().unwrap_or(0) as usize,
            chunk["end_line"].as_u64().unwrap_or(0) as usize,
        );
        let expected: String = text
            .split_inclusive('\n')
            .skip(a - 1)
            .take(b - a + 1)
            .collect();
        assert_eq!(chunk["text"], expected.as_str());
        assert!(
            chunk["tokens"].as_u64().is_some_and(|t| t > 0 && t <= 30),
            "{chunk}"
        );
        assert_eq!(chunk["over_budget"], false);
    }
    let read = run(dir.path(), &["read", "shop.py:12:Cart.add"]);
    read.expect_clean_success();
    assert!(
        read.stdout().contains("self.items.append(item)"),
        "{}",
        read.stdout()
    );
}

#[test]
fn chunks_refuse_bad_input_clearly() {
    let dir = tree(&[("shop.py", SHOP_PY), ("notes.txt", "text\n")]);
    let zero = run(dir.path(), &["chunks", "--max-tokens", "0", "shop.py"]);
    zero.expect_code(2);
    let missing = run(dir.path(), &["chunks", "nope.py"]);
    missing.expect_failure();
    assert!(missing.stderr.contains("nope.py"), "{}", missing.stderr);
    let unknown = run(dir.path(), &["chunks", "notes.txt"]);
    unknown.expect_failure();
    assert!(unknown.stderr.contains("notes.txt"), "{}", unknown.stderr);
    // A file that does not parse is still cut, every line in one chunk.
    let broken = tree(&[("broken.py", "def f(:\n    return 1\n\nx = 2\n")]);
    let out = run(broken.path(), &["chunks", "broken.py"]);
    out.expect_code(0);
    let lines = out.json_lines();
    let covered: u64 = lines
        .iter()
        .map(|c| c["end_line"].as_u64().unwrap_or(0) + 1 - c["start_line"].as_u64().unwrap_or(1))
        .sum();
    assert_eq!(covered, 4);
}

/// From a new-user trial: a `return` after a `try`, folded into the chunk
/// before it, was labelled as inside the `try`; bytes replaced and syntax
/// errors recovered around gave no word on stderr.
#[test]
fn chunks_label_a_folded_tail_with_its_container_and_note_degraded_files() {
    let dir = tree(&[(
        "load.py",
        "def load(path):\n    try:\n        handle = open(path)\n        data = handle.read()\n        \
         if not data:\n            raise ValueError(\"empty file given to load\")\n        \
         for line in data.splitlines():\n            check(line)\n    except OSError:\n        \
         data = \"\"\n    return data\n",
    )]);
    write(dir.path(), "bad.py", b"def f():\n    return \"\xff\"\n");
    write(
        dir.path(),
        "broken.py",
        b"def g(:\n    pass\n\ndef h():\n    return 1\n",
    );
    let out = run(dir.path(), &["chunks", "--max-tokens", "40", "load.py"]);
    out.expect_clean_success();
    let cut: Vec<(u64, u64, String, Value)> = out
        .json_lines()
        .iter()
        .map(|c| {
            (
                c["start_line"].as_u64().unwrap_or(0),
                c["end_line"].as_u64().unwrap_or(0),
                c["part"].as_str().unwrap_or("").to_owned(),
                c["context"].clone(),
            )
        })
        .collect();
    assert_eq!(
        cut,
        [
            (1, 6, "head".to_owned(), serde_json::json!([])),
            (
                7,
                11,
                "group".to_owned(),
                serde_json::json!(["def load(path)"])
            ),
        ]
    );
    let out = run(dir.path(), &["chunks", "bad.py", "broken.py"]);
    assert_eq!(out.code, Some(0), "stderr:\n{}", out.stderr);
    assert_eq!(
        out.stderr,
        "ast-outline: bad.py: L2:13 warning: file is not valid UTF-8; invalid bytes were replaced by U+FFFD\n\
         ast-outline: broken.py: syntax error at L1:7 (Expected a parameter or the end of the parameter list) and 1 more: the chunks follow the outline recovered around it\n"
    );
    let quiet = run(dir.path(), &["chunks", "--quiet", "bad.py", "broken.py"]);
    assert_eq!(quiet.stderr, "");
    // Definitions side by side on one line (minified code) are one group:
    // it was named after the last one, with the first one's header as its
    // context.
    write(
        dir.path(),
        "min.js",
        b"function a(x){if(x){return 1}else{return 3}};function b(){return 2}\n\
          var Lib=(function(){function q(){return 1}})();\n",
    );
    let out = run(dir.path(), &["chunks", "--max-tokens", "5", "min.js"]);
    out.expect_clean_success();
    let cut: Vec<(String, u64, u64, String, Value, Value)> = out
        .json_lines()
        .iter()
        .map(|c| {
            (
                c["id"].as_str().unwrap_or("").to_owned(),
                c["start_line"].as_u64().unwrap_or(0),
                c["end_line"].as_u64().unwrap_or(0),
                c["part"].as_str().unwrap_or("").to_owned(),
                c["name"].clone(),
                c["context"].clone(),
            )
        })
        .collect();
    assert_eq!(
        cut,
        [
            (
                "min.js:1-1".to_owned(),
                1,
                1,
                "group".to_owned(),
                Value::Null,
                serde_json::json!([])
            ),
            (
                "min.js:2-2".to_owned(),
                2,
                2,
                "group".to_owned(),
                Value::Null,
                serde_json::json!([])
            ),
        ]
    );
}

#[test]
fn chunks_from_new_user_trials_functions_in_an_iife_cr_line_ends_and_docs_over_the_budget() {
    let mut iife = String::from("\"use strict\";\nvar Lib = (() => {\n");
    for i in 0..12 {
        iife.push_str(&format!(
            "  function helper{i}(a, b) {{\n    const sum = a + b + {i};\n    return sum * 2;\n  }}\n"
        ));
    }
    iife.push_str("  return { helper0 };\n})();\n");
    let doc: String = (0..40)
        .map(|i| format!("/// Line {i} of a long documentation comment.\n"))
        .collect();
    let dir = tree(&[
        ("lib.js", iife.as_str()),
        ("cr.py", "import os\r\rdef f(x):\r    return x\r"),
        (
            "wrapper.rs",
            format!("{doc}pub struct Wrapper<D>(pub D);\n").as_str(),
        ),
    ]);
    let out = run(dir.path(), &["chunks", "--max-tokens", "60", "."]);
    out.expect_clean_success();
    let lines = out.json_lines();
    // Every function inside the IIFE is a chunk of its own (they were one
    // group over the budget), and a group has "name": null.
    let ids: Vec<&str> = lines.iter().filter_map(|c| c["id"].as_str()).collect();
    // (The first comes with the IIFE's small head.)
    let head = lines.iter().find(|c| c["id"] == "lib.js:2:");
    assert_eq!(
        head.map(|c| (
            c["start_line"].as_u64(),
            c["end_line"].as_u64(),
            c["part"].as_str()
        )),
        Some((Some(2), Some(6), Some("head")))
    );
    for i in 1..12 {
        let id = format!("lib.js:{}:helper{i}", 3 + 4 * i);
        assert!(ids.contains(&id.as_str()), "{id} missing from {ids:?}");
    }
    assert!(lines.iter().all(|c| c.get("name").is_some()), "{lines:?}");
    assert!(lines.iter().any(|c| c["name"].is_null()));
    // CR-only line ends count as lines, as in `outline` and `read`.
    let cr: Vec<(u64, u64)> = lines
        .iter()
        .filter(|c| c["path"] == "cr.py")
        .map(|c| {
            (
                c["start_line"].as_u64().unwrap_or(0),
                c["end_line"].as_u64().unwrap_or(0),
            )
        })
        .collect();
    assert_eq!(cr, [(1, 2), (3, 4)]);
    // Documentation over the budget is cut apart from the struct, which
    // keeps its own whole chunk starting at its id's line.
    let wrapper = lines
        .iter()
        .find(|c| c["id"] == "wrapper.rs:41:Wrapper")
        .unwrap_or_else(|| panic!("no Wrapper chunk in {lines:?}"));
    assert_eq!(
        (wrapper["start_line"].as_u64(), wrapper["part"].as_str()),
        (Some(41), Some("whole"))
    );
    assert!(
        lines
            .iter()
            .filter(|c| c["path"] == "wrapper.rs")
            .all(|c| c["over_budget"] == false)
    );
}
