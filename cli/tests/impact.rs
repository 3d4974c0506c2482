//! `tests`, `impact` and `config` on real git repositories made here:
//! commits, edits, a rename, a deletion, a merge, an untracked file, and
//! settings files with errors.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;
use std::process::Command;

fn run(dir: &Path, args: &[&str]) -> (String, String, i32) {
    let output = Command::new(env!("CARGO_BIN_EXE_ast-outline"))
        .args(args)
        .current_dir(dir)
        .output()
        .expect("run ast-outline");
    (
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
        output.status.code().unwrap_or(-1),
    )
}

fn git(dir: &Path, args: &[&str]) {
    let status = Command::new("git")
        .args(["-c", "user.email=t@example.com", "-c", "user.name=t"])
        .args(args)
        .current_dir(dir)
        .output()
        .expect("run git");
    assert!(status.status.success(), "git {args:?}: {status:?}");
}

fn write(dir: &Path, path: &str, text: &str) {
    let path = dir.join(path);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

const CALC: &str = "def add(a, b):\n    return a + b\n\n\ndef total(xs):\n    s = 0\n    for x in xs:\n        s = add(s, x)\n    return s\n\n\ndef gone():\n    return 1\n";
const TESTS: &str = "from src.calc import total, add\n\n\ndef test_total():\n    assert total([1, 2]) == 3\n\n\ndef test_add():\n    assert add(1, 2) == 3\n\n\ndef helper():\n    return add(0, 0)\n";
const RUST: &str = "pub fn double(x: i32) -> i32 {\n    x * 2\n}\n\n#[cfg(test)]\nmod tests {\n    use super::*;\n\n    #[test]\n    fn doubles() {\n        assert_eq!(double(2), 4);\n    }\n\n    #[tokio::test]\n    async fn doubles_async() {\n        assert_eq!(double(3), 6);\n    }\n}\n";
const TS: &str = "export function slug(s: string): string {\n  return s.toLowerCase();\n}\n";
const TS_TEST: &str = "import { slug } from './slug';\n\ndescribe('slug', () => {\n  it('lowers', () => {\n    expect(slug('A')).toBe('a');\n  });\n});\n";

fn repo() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    git(root, &["init", "-q", "-b", "main"]);
    write(root, "src/calc.py", CALC);
    write(root, "tests/test_calc.py", TESTS);
    write(root, "src/lib.rs", RUST);
    write(root, "web/slug.ts", TS);
    write(root, "web/slug.test.ts", TS_TEST);
    git(root, &["add", "-A"]);
    git(root, &["commit", "-qm", "init"]);
    dir
}

#[test]
fn tests_reach_a_definition_by_each_languages_conventions() {
    let dir = repo();
    let (out, err, code) = run(dir.path(), &["tests", "src/calc.py:add"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        out,
        "tests reaching src/calc.py:1:add (function L1-2): 2 tests\n\
         tests/test_calc.py:8:test_add  L8-9  pytest, depth 1: tests/test_calc.py::test_add\n  \
         test_add (L9) → add\n\
         tests/test_calc.py:4:test_total  L4-5  pytest, depth 2: tests/test_calc.py::test_total\n  \
         test_total (L5) → total (L8) → add\n"
    );
    let (out, _, _) = run(dir.path(), &["tests", "src/lib.rs:double"]);
    assert!(
        out.starts_with("tests reaching src/lib.rs:1:double (function L1-3): 2 tests\n"),
        "{out}"
    );
    assert!(
        out.contains("src/lib.rs:9:tests.doubles  L9-12  rust, depth 1: tests::doubles\n"),
        "{out}"
    );
    assert!(
        out.contains(
            "src/lib.rs:14:tests.doubles_async  L14-17  rust, depth 1: tests::doubles_async\n"
        ),
        "{out}"
    );
    let (out, _, _) = run(dir.path(), &["tests", "web/slug.ts:slug"]);
    assert!(
        out.starts_with("tests reaching web/slug.ts:1:slug (function L1-3): 1 test\n"),
        "{out}"
    );
    assert!(
        out.contains("web/slug.test.ts:4:  L4-6  test case, depth 1: slug > lowers\n"),
        "{out}"
    );
    // A test case by its id, as listed: itself.
    let (out, err, code) = run(dir.path(), &["tests", "web/slug.test.ts:4:"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        out,
        "tests reaching web/slug.test.ts:4: (test case L4-6): 1 test\n\
         web/slug.test.ts:4:  L4-6  test case, itself: slug > lowers\n"
    );
    // `helper` is in a test file but is no test: nothing reaches it.
    let (out, _, _) = run(dir.path(), &["tests", "tests/test_calc.py:helper"]);
    assert!(
        out.starts_with("tests reaching tests/test_calc.py:12:helper (function L12-13): 0 tests\n"),
        "{out}"
    );
}

#[test]
fn impact_of_edits_additions_removals_renames_deletions_and_a_merge() {
    let dir = repo();
    let root = dir.path();
    // A branch merged in: its change is in HEAD, not in the diff.
    git(root, &["checkout", "-qb", "side"]);
    write(root, "src/extra.py", "def extra():\n    return 0\n");
    git(root, &["add", "-A"]);
    git(root, &["commit", "-qm", "side"]);
    git(root, &["checkout", "-q", "main"]);
    git(root, &["merge", "-q", "--no-ff", "-m", "merge", "side"]);
    // Working tree: an edit in `add`, `gone` replaced by `fresh`, a rename,
    // a deletion and an untracked file.
    write(
        root,
        "src/calc.py",
        &CALC
            .replace("    return a + b", "    return b + a")
            .replace(
                "def gone():\n    return 1\n",
                "def fresh():\n    return 2\n",
            ),
    );
    git(root, &["mv", "web/slug.ts", "web/slugs.ts"]);
    std::fs::remove_file(root.join("src/extra.py")).unwrap();
    write(root, "src/new.py", "def brand_new():\n    return 3\n");
    let (out, err, code) = run(root, &["impact", "--format", "json"]);
    assert_eq!(code, 0, "{err}");
    let value: serde_json::Value = serde_json::from_str(&out).unwrap();
    let summary: Vec<String> = value["files"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|file| {
            let path = file["path"].as_str().unwrap().to_owned();
            let status = file["status"].as_str().unwrap().to_owned();
            let defs: Vec<String> = file["definitions"]
                .as_array()
                .unwrap()
                .iter()
                .map(|d| {
                    format!(
                        "{} {}",
                        d["change"].as_str().unwrap(),
                        d["id"].as_str().unwrap()
                    )
                })
                .collect();
            std::iter::once(format!("{path} {status}")).chain(defs)
        })
        .collect();
    assert_eq!(
        summary,
        vec![
            "src/calc.py modified",
            "removed src/calc.py:12:gone",
            "modified src/calc.py:1:add",
            "added src/calc.py:12:fresh",
            "src/extra.py deleted",
            "removed src/extra.py:1:extra",
            "src/new.py added",
            "added src/new.py:1:brand_new",
            "web/slugs.ts renamed",
            "moved web/slugs.ts:1:slug",
        ]
    );
    // The renamed module's function: the test importing the old path
    // breaks.
    let moved = &value["files"][3]["definitions"][0];
    assert_eq!(moved["change"], "moved");
    assert_eq!(moved["tests"][0]["id"], "web/slug.test.ts:4:", "{moved}");
    assert_eq!(moved["tests"][0]["name"], "slug > lowers", "{moved}");
    let add = &value["files"][0]["definitions"][1];
    let tests: Vec<&str> = add["tests"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["id"].as_str().unwrap())
        .collect();
    assert_eq!(
        tests,
        vec![
            "tests/test_calc.py:8:test_add",
            "tests/test_calc.py:4:test_total"
        ]
    );
    // Against the first commit, the merged file is added, not deleted.
    let (out, _, _) = run(root, &["impact", "--base", "HEAD~1"]);
    assert!(
        out.starts_with("impact of the working tree against HEAD~1:"),
        "{out}"
    );
    // A diff on standard input, and the budget.
    let (out, _, code) = run(root, &["impact", "--max-tokens", "150"]);
    assert_eq!(code, 0);
    assert!(out.contains("left out to fit 150 tokens"), "{out}");
}

#[test]
fn impact_errors_are_clear() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "a.py", "def f():\n    pass\n");
    let (_, err, code) = run(dir.path(), &["impact"]);
    assert_eq!(code, 1);
    assert!(err.contains("is not inside a git repository"), "{err}");
    let dir = repo();
    let (_, err, code) = run(dir.path(), &["impact", "--base", "no-such-rev"]);
    assert_eq!(code, 1);
    assert!(err.contains("unknown revision \"no-such-rev\""), "{err}");
    let (_, err, code) = run(dir.path(), &["impact", "--diff", "/no/such/file"]);
    assert_eq!(code, 2);
    assert!(err.contains("cannot read the diff /no/such/file"), "{err}");
}

#[test]
fn settings_errors_stop_commands_and_settings_change_answers() {
    let dir = repo();
    let root = dir.path();
    write(root, ".ast-outline.toml", "[context]\ndcos = true\n");
    let (_, err, code) = run(root, &["callers", "src/calc.py:add"]);
    assert_eq!(code, 2);
    assert!(
        err.contains(".ast-outline.toml:2:1: key `context.dcos`: unknown field `dcos`"),
        "{err}"
    );
    write(root, ".ast-outline.toml", "[tests]\nin_queries = false\n");
    let (out, err, code) = run(root, &["callers", "src/calc.py:add"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains(
            "(not shown: 2 results in test files: the settings' tests.in_queries is false)"
        ),
        "{out}"
    );
    let (out, _, _) = run(root, &["config"]);
    assert!(
        out.contains(&format!(
            "in_queries = false  # {}:2",
            root.canonicalize()
                .unwrap()
                .join(".ast-outline.toml")
                .display()
        )),
        "{out}"
    );
}

/// `outline`, `search`, `read` and `at` take the block threshold, the walk's
/// include/exclude and the search budget from the settings of their
/// project (found from a subdirectory too); flags win; a bad file stops
/// them with exit status 2.
#[test]
fn file_commands_follow_the_settings_and_flags_win() {
    let dir = repo();
    let root = dir.path();
    let body: String = (0..30).map(|i| format!("        s += {i}\n")).collect();
    write(
        root,
        "src/long.py",
        &format!("def long(s):\n    if s:\n{body}    return s\n"),
    );
    let (out, _, code) = run(root, &["outline", "."]);
    assert_eq!(code, 0);
    assert!(out.contains("tests/test_calc.py"), "{out}");
    assert!(
        out.contains("src/long.py (python, 33 lines)\nL1-33 def long(s)\n\n"),
        "{out}"
    );

    write(
        root,
        ".ast-outline.toml",
        "[files]\nexclude = [\"tests/**\", \"web/*.test.ts\"]\n\
         [outline]\nblock_threshold = 10\n[max_tokens]\nsearch = 1\n",
    );
    let (out, err, code) = run(root, &["outline", "."]);
    assert_eq!(code, 0, "{err}");
    assert!(!out.contains("tests/test_calc.py"), "{out}");
    assert!(!out.contains("slug.test.ts"), "{out}");
    assert!(
        out.contains("src/long.py (python, 33 lines)\nL1-33 def long(s)\n  L2-32 (block) if s\n"),
        "{out}"
    );
    let settings = root.canonicalize().unwrap().join(".ast-outline.toml");
    assert_eq!(
        err,
        format!(
            "ast-outline: note: 2 files left out by files.include/files.exclude of {}\n",
            settings.display()
        )
    );
    // Named files are outlined whatever the globs say; the flag wins.
    let (out, _, _) = run(
        root,
        &[
            "outline",
            "tests/test_calc.py",
            "src/long.py",
            "--block-threshold",
            "100",
        ],
    );
    assert!(out.contains("tests/test_calc.py (python"), "{out}");
    assert!(
        out.contains("src/long.py (python, 33 lines)\nL1-33 def long(s)\n\n"),
        "{out}"
    );
    // From a subdirectory: the same settings.
    let (out, _, code) = run(&root.join("src"), &["at", "long.py:5"]);
    assert_eq!(code, 0);
    assert!(out.contains("long.py:2:long block L2-32 `if s`"), "{out}");
    let (out, _, code) = run(&root.join("src"), &["read", "long.py:2:long"]);
    assert_eq!(code, 0);
    assert!(
        out.starts_with("==> long.py:2-32 block `if s` in long <==\n    if s:\n"),
        "{out}"
    );
    // The search budget of the file (1 token: too small), the flag's.
    let (out, err, code) = run(root, &["search", "add"]);
    assert_eq!((out.as_str(), code), ("", 1));
    assert!(
        err.ends_with(&format!(
            "ast-outline: max_tokens.search = 1 (of {}) is too small to say anything about \
             2 hits; raise it\n",
            settings.display()
        )),
        "{err}"
    );
    let (out, _, code) = run(root, &["search", "add", "--max-tokens", "2000"]);
    assert_eq!(code, 0);
    assert!(out.contains("src/calc.py"), "{out}");
    assert!(!out.contains("tests/test_calc.py"), "{out}");

    write(
        root,
        ".ast-outline.toml",
        "[outline]\nblock_threshold = -1\n",
    );
    for args in [
        &["outline", "."][..],
        &["search", "add"],
        &["read", "src/calc.py:add"],
        &["at", "src/calc.py:1"],
    ] {
        let (out, err, code) = run(root, args);
        assert_eq!((out.as_str(), code), ("", 2), "{args:?}: {err}");
        assert!(
            err.starts_with(&format!(
                "ast-outline: error: {}:2:19: key `outline.block_threshold`: ",
                settings.display()
            )),
            "{args:?}: {err}"
        );
    }
}

fn run_with_input(dir: &Path, args: &[&str], input: &[u8]) -> (String, String, i32) {
    use std::io::Write as _;
    let mut child = Command::new(env!("CARGO_BIN_EXE_ast-outline"))
        .args(args)
        .current_dir(dir)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(input).unwrap();
    let output = child.wait_with_output().unwrap();
    (
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
        output.status.code().unwrap_or(-1),
    )
}

/// What a new user's trial found, each with its right value: a removed
/// function still called has its former callers and their tests; an edited
/// or added test is a test to run (itself); an untracked file's lines are
/// counted as git counts them; a diff naming /dev/null twice, paths outside
/// the root, Latin-1 bytes on standard input; a unittest class outside the
/// test files is no test; a settings error stops `index` and `refs` with
/// exit status 2; `config` of a missing root; why no test is seen when the
/// settings leave test files out.
#[test]
fn impact_and_tests_answer_what_a_new_user_asked() {
    let dir = repo();
    let root = dir.path();
    write(
        root,
        "src/calc.py",
        "def total(xs):\n    s = 0\n    for x in xs:\n        s = add(s, x)\n    return s\n\n\ndef gone():\n    return 1\n",
    );
    write(
        root,
        "tests/test_calc.py",
        &format!("{TESTS}\n\ndef test_new():\n    assert 1\n"),
    );
    write(root, "two.py", "def f():\n    return 1\n");
    let (out, err, code) = run(root, &["impact"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains(
            "  removed src/calc.py:1:add  L1-2 function (lines 1-2)\n    \
             callers (3): src/calc.py:4 in total, tests/test_calc.py:9 in test_add, \
             tests/test_calc.py:13 in helper\n    \
             test tests/test_calc.py:8:test_add  L8-9  pytest, depth 1: tests/test_calc.py::test_add\n      \
             test_add (L9) → add\n"
        ),
        "{out}"
    );
    assert!(
        out.contains(
            "  added tests/test_calc.py:16:test_new  L16-17 function (lines 16-17)\n    \
             callers: none found\n    \
             test tests/test_calc.py:16:test_new  L16-17  pytest, itself: tests/test_calc.py::test_new\n"
        ),
        "{out}"
    );
    assert!(
        out.contains(
            "\ntests to run: tests/test_calc.py::test_total tests/test_calc.py::test_add \
             tests/test_calc.py::test_new\n"
        ),
        "{out}"
    );
    assert!(out.contains("two.py (added; lines 1-2 added)\n"), "{out}");

    // Diffs given: /dev/null twice names no file; outside the root is not
    // read; Latin-1 bytes are read; the file's name is said.
    let diff = b"--- /dev/null\n+++ /dev/null\n@@ -0,0 +1 @@\n+x\n\
--- a/../out.py\n+++ b/../out.py\n@@ -1 +1 @@\n-a\n+b\n\
--- a/src/calc.py\n+++ b/src/calc.py\n@@ -2 +2 @@\n-    s = 0 # \xe9\n+    s = 1 # \xe9\n";
    let (out, err, code) = run_with_input(root, &["impact", "--diff", "-"], diff);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.starts_with("impact of the diff read from standard input: 2 files, 1 definition"),
        "{out}"
    );
    assert!(
        out.contains("../out.py (modified; lines 1 added; lines 1 removed (numbered as before))\n  (outside the project root: not read)\n"),
        "{out}"
    );
    assert!(
        out.contains("  modified src/calc.py:1:total  L1-5"),
        "{out}"
    );
    std::fs::write(root.join("my.diff"), diff).unwrap();
    let (out, _, _) = run(root, &["impact", "--diff", "my.diff"]);
    assert!(
        out.starts_with("impact of the diff read from my.diff: 2 files"),
        "{out}"
    );

    // A TestCase outside the test files is no test (unittest's discovery).
    write(
        root,
        "src/selfcheck.py",
        "import unittest\nfrom src.calc import total\n\n\nclass Check(unittest.TestCase):\n    def test_it(self):\n        total([])\n",
    );
    // Nor a `Test*` class with `__init__` (pytest does not collect it).
    write(
        root,
        "tests/test_init.py",
        "from src.calc import total


class TestWithInit:
    def __init__(self):
        pass

    def test_it(self):
        total([])
",
    );
    let (out, _, _) = run(root, &["tests", "src/calc.py:total"]);
    assert!(!out.contains("selfcheck"), "{out}");
    assert!(!out.contains("TestWithInit"), "{out}");
    assert!(out.contains("tests/test_calc.py:4:test_total"), "{out}");

    // Settings: test files left out, and said; errors stop with 2.
    write(root, ".ast-outline.toml", "[tests]\nindex = false\n");
    let (out, _, _) = run(root, &["tests", "src/calc.py:total"]);
    let settings = root.canonicalize().unwrap().join(".ast-outline.toml");
    assert!(
        out.ends_with(&format!(
            "(tests.index is false in {}: test files are not indexed, so no test is seen)\n",
            settings.display()
        )),
        "{out}"
    );
    write(root, ".ast-outline.toml", "[tests]\nindex = 1\n");
    for args in [
        &["index", "."][..],
        &["refs", "src/calc.py:total"],
        &["defs", "total"],
    ] {
        let (out, err, code) = run(root, args);
        assert_eq!((out.as_str(), code), ("", 2), "{args:?}: {err}");
        assert!(err.contains("key `tests.index`"), "{args:?}: {err}");
    }
    let (_, err, code) = run(root, &["config", "--root", "/no/such/dir"]);
    assert_eq!(code, 2);
    assert!(err.contains("/no/such/dir: no such directory"), "{err}");
}

/// A name defined twice in one file (`if`/`else` alternatives, a property's
/// getter and setter): a target without the line says which one answers
/// and how to name the other (it answered for the last in silence: a new
/// user's trial); an id with the line answers for that one.
#[test]
fn a_name_defined_twice_says_which_one_answers() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(
        root,
        "dup.py",
        "import sys\n\nif sys.platform == \"win32\":\n    def path_sep():\n        return \"\\\\\"\nelse:\n    def path_sep():\n        return \"/\"\n",
    );
    write(
        root,
        "test_dup.py",
        "from dup import path_sep\n\n\ndef test_sep():\n    assert path_sep()\n",
    );
    let (out, err, code) = run(root, &["tests", "dup.py:path_sep"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        err.ends_with(
            "ast-outline: note: 2 functions are named path_sep in dup.py (lines 4, 7): this \
             answers for L7, the last, where references to the name resolve; give \
             dup.py:4:path_sep for another\n"
        ),
        "{err}"
    );
    assert!(
        out.starts_with("tests reaching dup.py:7:path_sep (function L7-8): 1 test\n"),
        "{out}"
    );
    let (_, err, _) = run(root, &["tests", "dup.py:7:path_sep"]);
    assert!(!err.contains("are named"), "{err}");
}
