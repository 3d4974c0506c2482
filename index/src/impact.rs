//! `tests TARGET` and `impact`: the tests that reach a definition through
//! the reverse call graph, and what a diff touches (its definitions, their
//! callers, the tests that reach them).
//!
//! A test is found by each language's conventions:
//! - Python: pytest collects functions named `test*` in test files, and
//!   methods named `test*` of classes named `Test*` there (pytest's
//!   `python_functions`, `python_classes` defaults); unittest runs methods
//!   named `test*` of a `TestCase` subclass, in test files (unittest's
//!   discovery looks in `test*.py` files).
//! - Rust: functions with a `#[test]` attribute, or one whose path ends in
//!   `::test` (`#[tokio::test]`, `#[async_std::test]`), or `#[rstest]`,
//!   `#[test_case(…)]`, `#[wasm_bindgen_test]`.
//! - TypeScript/JavaScript: the callbacks of `it`, `test`, `specify` (and
//!   their `.each`, `.only`, `.concurrent` forms) are test cases; a call in a
//!   `describe` body or a hook (`beforeEach`, …) outside any case reaches
//!   the suite, which is listed as one.
//!
//! Which files are test files is the caller's ([`IsTest`]: the project
//! settings' `tests.paths`).

use std::collections::{BTreeMap, HashMap, HashSet, VecDeque};
use std::fmt::Write as _;

use ast_outline_budget as tokens;
use outline_core::{Symbol, SymbolKind};
use rusqlite::{Connection, OptionalExtension, params};
use serde::Serialize;
use serde_json::json;

use crate::diff::{FileDiff, runs};
use crate::query::{self, RefRow};
use crate::{Error, Index};

/// Whether a root-relative path is a test file.
pub type IsTest<'a> = &'a dyn Fn(&str) -> bool;

/// Deepest reverse call graph walked from a definition to its tests.
pub const DEFAULT_TEST_DEPTH: u32 = 8;

/// Most definitions visited by one walk of the reverse call graph (a
/// utility called from everywhere stops there, and the answer says so).
const MAX_VISITED: usize = 5_000;

/// A test that reaches a definition.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TestReach {
    /// The test's id (`PATH:LINE:QUALNAME`; a TypeScript case's is its
    /// callback's, `PATH:LINE:it('adds')`).
    pub id: String,
    /// Its file.
    pub path: String,
    /// First line (1-based).
    pub start_line: u32,
    /// Last line (1-based, inclusive).
    pub end_line: u32,
    /// `pytest`, `unittest`, `rust`, `test case` or `test suite` (a
    /// TypeScript/JavaScript `describe` body or hook).
    pub framework: &'static str,
    /// What its runner calls it: pytest's node id (`tests/test_a.py::TestX::test_y`),
    /// the Rust test's path in its file (`tests::doubles`, what `cargo test`
    /// filters on), a TypeScript/JavaScript case's titles from its outermost
    /// `describe` (`calculator > adds`).
    pub name: String,
    /// Calls from the test to the definition: 1 = the test calls it; 0 =
    /// the definition is itself this test.
    pub depth: u32,
    /// The call path, test first: each hop's caller, the line of its call,
    /// and what it calls (the last hop calls the definition).
    pub path_calls: Vec<Hop>,
}

/// One call of a [`TestReach`] path.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Hop {
    /// The caller's id.
    pub from: String,
    /// The line of the call (1-based).
    pub line: u32,
    /// The callee's id.
    pub to: String,
}

/// The tests that reach a definition, and what limited the search.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Tests {
    /// Nearest first, then by path and line; each test once (by its
    /// shortest path).
    pub tests: Vec<TestReach>,
    /// Definitions visited in the reverse call graph.
    pub visited: usize,
    /// Whether the walk stopped at [`MAX_VISITED`] definitions or at the
    /// depth limit with callers left to follow.
    pub stopped: Option<String>,
}

/// What a caller of the reverse call graph is.
struct Caller {
    id: String,
    test: Option<TestAt>,
}

/// The symbol row a test check needs.
struct SymbolInfo {
    key: i64,
    path: String,
    name: String,
    kind: String,
    detail: String,
    parent: Option<i64>,
    start_line: u32,
    end_line: u32,
}

fn symbol_info(conn: &Connection, key: i64) -> Result<Option<SymbolInfo>, Error> {
    Ok(conn
        .prepare_cached(
            "SELECT s.key, f.path, s.name, s.kind, s.detail, s.parent, s.start_line, s.end_line \
             FROM symbols s JOIN files f ON f.id = s.file_id WHERE s.key = ?1",
        )?
        .query_row([key], |row| {
            Ok(SymbolInfo {
                key: row.get(0)?,
                path: row.get(1)?,
                name: row.get(2)?,
                kind: row.get(3)?,
                detail: row.get(4)?,
                parent: row.get(5)?,
                start_line: row.get(6)?,
                end_line: row.get(7)?,
            })
        })
        .optional()?)
}

/// The attributes a Rust detail starts with (`#[test]`, `#[tokio::test(…)]`),
/// as their paths (`test`, `tokio::test`).
fn attribute_paths(detail: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut rest = detail.trim_start();
    while let Some(inner) = rest.strip_prefix("#[") {
        let end = inner.find(['(', ']', ' ']).unwrap_or(inner.len());
        out.push(&inner[..end]);
        // Skip to the attribute's closing bracket (brackets may nest).
        let mut depth = 1usize;
        let mut close = inner.len();
        for (i, c) in inner.char_indices() {
            match c {
                '[' => depth += 1,
                ']' => {
                    depth -= 1;
                    if depth == 0 {
                        close = i + 1;
                        break;
                    }
                }
                _ => {}
            }
        }
        rest = inner[close..].trim_start();
    }
    out
}

/// Whether a Rust function with these attributes is a test.
fn is_rust_test(detail: &str) -> bool {
    attribute_paths(detail).iter().any(|path| {
        *path == "test"
            || path.ends_with("::test")
            || matches!(*path, "rstest" | "test_case" | "wasm_bindgen_test")
    })
}

/// The supertypes' names and details of a class, transitively (project
/// classes only; an outside base is seen in its subclass's detail).
fn class_lineage(conn: &Connection, class: i64) -> Result<Vec<(String, String)>, Error> {
    let mut out = Vec::new();
    let mut seen = HashSet::from([class]);
    let mut queue = VecDeque::from([class]);
    let mut statement = conn.prepare_cached(
        "SELECT s.key, s.name, s.detail FROM relations r JOIN symbols s ON s.key = r.supertype \
         WHERE r.subtype = ?1",
    )?;
    while let Some(key) = queue.pop_front() {
        let rows: Vec<(i64, String, String)> = statement
            .query_map([key], |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?)))?
            .collect::<Result<_, _>>()?;
        for (key, name, detail) in rows {
            if seen.insert(key) && seen.len() < 100 {
                out.push((name, detail));
                queue.push_back(key);
            }
        }
    }
    Ok(out)
}

/// The framework of a definition that is a test, by its language's
/// conventions (see the module's documentation).
fn test_framework(
    conn: &Connection,
    info: &SymbolInfo,
    is_test: IsTest<'_>,
) -> Result<Option<&'static str>, Error> {
    let path = info.path.as_str();
    if path.ends_with(".rs") {
        return Ok(
            (info.kind == "function" || info.kind == "method") && is_rust_test(&info.detail)
        )
        .map(|test| test.then_some("rust"));
    }
    if !(path.ends_with(".py") || path.ends_with(".pyi")) || !info.name.starts_with("test") {
        return Ok(None);
    }
    let parent = match info.parent {
        Some(parent) => symbol_info(conn, parent)?,
        None => None,
    };
    match parent {
        Some(class) if class.kind == "class" && info.kind == "method" => {
            let mut lineage = vec![(class.name.clone(), class.detail.clone())];
            lineage.extend(class_lineage(conn, class.key)?);
            if lineage
                .iter()
                .any(|(name, detail)| name.ends_with("TestCase") || detail.contains("TestCase"))
            {
                // As unittest's discovery: in test files only.
                Ok(is_test(path).then_some("unittest"))
            } else if class.name.starts_with("Test") && is_test(path) && !has_init(conn, class.key)?
            {
                // pytest collects a `Test*` class without `__init__`.
                Ok(Some("pytest"))
            } else {
                Ok(None)
            }
        }
        None if info.kind == "function" && is_test(path) => Ok(Some("pytest")),
        _ => Ok(None),
    }
}

/// Whether the class `key` defines `__init__` (pytest does not collect
/// such a class: "cannot collect test class because it has a __init__
/// constructor").
fn has_init(conn: &Connection, key: i64) -> Result<bool, Error> {
    Ok(conn
        .prepare_cached("SELECT 1 FROM symbols WHERE parent = ?1 AND name = '__init__'")?
        .exists([key])?)
}

/// The callee of a TypeScript/JavaScript callback's name (`it('adds')` →
/// `it`, `test.each(…)('x')` → `test`).
fn callback_callee(name: &str) -> &str {
    let end = name.find(['.', '(', ' ']).unwrap_or(name.len());
    &name[..end]
}

/// Test cases of TypeScript/JavaScript (`it`, `test`, …).
const CASES: &[&str] = &["it", "test", "specify", "fit", "xit", "xtest"];
/// Suites and hooks: code in them (outside a case) reaches the suite.
const SUITES: &[&str] = &[
    "describe",
    "suite",
    "context",
    "fdescribe",
    "xdescribe",
    "beforeEach",
    "afterEach",
    "beforeAll",
    "afterAll",
    "before",
    "after",
];

/// The test case (else suite) callback holding a module-level line of a
/// script file: (framework, id, start, end).
fn test_callback(conn: &Connection, path: &str, line: u32) -> Result<Option<TestAt>, Error> {
    if !xref::is_script(path) {
        return Ok(None);
    }
    let mut statement = conn.prepare_cached(
        "SELECT c.name, c.qualname, c.start_line, c.end_line FROM callbacks c \
         JOIN files f ON f.id = c.file_id \
         WHERE f.path = ?1 AND c.start_line <= ?2 AND c.end_line >= ?2 \
         ORDER BY c.end_line - c.start_line",
    )?;
    let rows: Vec<(String, String, u32, u32)> = statement
        .query_map(params![path, line], |row| {
            Ok((row.get(0)?, row.get(1)?, row.get(2)?, row.get(3)?))
        })?
        .collect::<Result<_, _>>()?;
    let id = |qualname: &str, start: u32| format!("{path}:{start}:{qualname}");
    // The titles of the cases and suites holding the line, outermost first
    // (hooks have none).
    let titles = |from: usize| -> String {
        rows[from..]
            .iter()
            .rev()
            .filter(|(name, ..)| {
                let callee = callback_callee(name);
                CASES.contains(&callee) || SUITES[..5].contains(&callee)
            })
            .map(|(name, ..)| callback_title(name))
            .collect::<Vec<_>>()
            .join(" > ")
    };
    if let Some(at) = rows
        .iter()
        .position(|(name, ..)| CASES.contains(&callback_callee(name)))
    {
        let (_, qualname, start, end) = &rows[at];
        return Ok(Some(TestAt {
            framework: "test case",
            id: id(qualname, *start),
            name: titles(at),
            start_line: *start,
            end_line: *end,
        }));
    }
    Ok(rows
        .iter()
        .position(|(name, ..)| SUITES.contains(&callback_callee(name)))
        .map(|at| {
            let (_, qualname, start, end) = &rows[at];
            TestAt {
                framework: "test suite",
                id: id(qualname, *start),
                name: titles(at),
                start_line: *start,
                end_line: *end,
            }
        }))
}

/// The title of a callback named as the outline names it: its last
/// string argument, unescaped (`it('adds')` → `adds`,
/// `it.each(…)('each %i')` → `each %i`, `` describe(`x ${y}`) `` → `x ${y}`,
/// `it("a \"b\"")` → `a "b"`); the name as written when it has none.
fn callback_title(name: &str) -> String {
    // The last `(` or `,` followed by a quote opens the title.
    let Some(open) = name
        .char_indices()
        .rev()
        .find(|&(i, c)| {
            (c == '(' || c == ',') && name[i + 1..].trim_start().starts_with(['\'', '"', '`'])
        })
        .map(|(i, _)| i)
    else {
        return name.to_owned();
    };
    let rest = name[open + 1..].trim_start();
    let mut chars = rest.chars();
    let Some(quote) = chars.next() else {
        return name.to_owned();
    };
    let mut title = String::new();
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                if let Some(next) = chars.next() {
                    title.push(next);
                }
            }
            c if c == quote => return title,
            c => title.push(c),
        }
    }
    // Cut short by the outline (`…`): what there is.
    title
}

/// A test found: its framework, id, runner name and lines.
struct TestAt {
    framework: &'static str,
    id: String,
    name: String,
    start_line: u32,
    end_line: u32,
}

/// What the runner calls the test `id` of `path` (see [`TestReach::name`]).
fn runner_name(path: &str, id: &str) -> String {
    let qualname = short(id);
    if path.ends_with(".py") || path.ends_with(".pyi") || path.ends_with(".pyw") {
        format!("{path}::{}", qualname.replace('.', "::"))
    } else {
        qualname.replace('.', "::")
    }
}

/// The tests that reach `id` through the reverse call graph, at most
/// `max_depth` calls away, nearest first.
///
/// # Errors
/// [`Error::Sqlite`].
pub fn tests_reaching(
    conn: &Connection,
    id: &str,
    max_depth: u32,
    is_test: IsTest<'_>,
) -> Result<Tests, Error> {
    // Each visited definition: its id and the hop that reached it (the
    // index of the callee's entry and the call's line).
    let mut nodes: Vec<(String, Option<(usize, u32)>)> = vec![(id.to_owned(), None)];
    let mut seen: HashSet<String> = HashSet::from([id.to_owned()]);
    let mut found: BTreeMap<String, TestReach> = BTreeMap::new();
    let mut frontier = vec![0usize];
    let mut stopped = None;
    // A definition that is itself a test is reached by itself (an edited
    // test is a test to run).
    if let Some(test) = symbol_test(conn, id, is_test)? {
        found.insert(
            test.id.clone(),
            TestReach {
                path: symbol_path(id).to_owned(),
                id: test.id,
                start_line: test.start_line,
                end_line: test.end_line,
                framework: test.framework,
                name: test.name,
                depth: 0,
                path_calls: Vec::new(),
            },
        );
    }
    for depth in 1..=max_depth.max(1) {
        let mut next = Vec::new();
        for &node in &frontier {
            let callee = nodes[node].0.clone();
            for row in query::callers(conn, &callee, 1)? {
                let call = row.call;
                let caller = match &call.caller {
                    Some(caller) => Caller {
                        id: caller.clone(),
                        test: symbol_test(conn, caller, is_test)?,
                    },
                    None => match test_callback(conn, &call.path, call.line)? {
                        Some(test) => Caller {
                            id: test.id.clone(),
                            test: Some(test),
                        },
                        None => continue,
                    },
                };
                if let Some(test) = caller.test {
                    let test_id = test.id;
                    if found.contains_key(&test_id) {
                        continue;
                    }
                    let mut path_calls = vec![Hop {
                        from: test_id.clone(),
                        line: call.line,
                        to: callee.clone(),
                    }];
                    let mut at = node;
                    while let Some((up, line)) = nodes[at].1 {
                        path_calls.push(Hop {
                            from: nodes[at].0.clone(),
                            line,
                            to: nodes[up].0.clone(),
                        });
                        at = up;
                    }
                    found.insert(
                        test_id.clone(),
                        TestReach {
                            path: call.path.clone(),
                            id: test_id,
                            start_line: test.start_line,
                            end_line: test.end_line,
                            framework: test.framework,
                            name: test.name,
                            depth,
                            path_calls,
                        },
                    );
                    continue;
                }
                if seen.len() >= MAX_VISITED {
                    stopped = Some(format!(
                        "stopped after {MAX_VISITED} callers: this definition is called from \
                         much of the project"
                    ));
                    break;
                }
                if seen.insert(caller.id.clone()) {
                    nodes.push((caller.id, Some((node, call.line))));
                    next.push(nodes.len() - 1);
                }
            }
        }
        if next.is_empty() || stopped.is_some() {
            break;
        }
        if depth == max_depth.max(1) {
            stopped = Some(format!(
                "stopped at depth {depth}: {} left to follow (--depth)",
                crate::answers::plural(next.len(), "caller")
            ));
        }
        frontier = next;
    }
    let mut tests: Vec<TestReach> = found.into_values().collect();
    tests.sort_by(|a, b| (a.depth, &a.path, a.start_line).cmp(&(b.depth, &b.path, b.start_line)));
    Ok(Tests {
        tests,
        visited: nodes.len(),
        stopped,
    })
}

/// The former callers of a removed definition (calls of its name that
/// now resolve to nothing: they will break) and the tests that reach them,
/// one call further than each test's own path.
fn removed_reach(
    conn: &Connection,
    def: &Def,
    max_depth: u32,
    is_test: IsTest<'_>,
) -> Result<(Vec<RefRow>, Vec<TestReach>), Error> {
    let name = def.qualname.rsplit('.').next().unwrap_or(&def.qualname);
    let callers = query::unresolved_calls(conn, name)?;
    let mut tests: BTreeMap<String, TestReach> = BTreeMap::new();
    for call in &callers {
        let hop = |from: &str| Hop {
            from: from.to_owned(),
            line: call.line,
            to: def.id.clone(),
        };
        let reached: Vec<TestReach> = match &call.caller {
            Some(caller) => {
                tests_reaching(conn, caller, max_depth.saturating_sub(1).max(1), is_test)?
                    .tests
                    .into_iter()
                    .map(|mut test| {
                        test.depth += 1;
                        test.path_calls.push(hop(caller));
                        test
                    })
                    .collect()
            }
            None => test_callback(conn, &call.path, call.line)?
                .map(|test| TestReach {
                    path: call.path.clone(),
                    path_calls: vec![hop(&test.id)],
                    id: test.id,
                    start_line: test.start_line,
                    end_line: test.end_line,
                    framework: test.framework,
                    name: test.name,
                    depth: 1,
                })
                .into_iter()
                .collect(),
        };
        for test in reached {
            let known = tests.get(&test.id).is_some_and(|t| t.depth <= test.depth);
            if !known {
                tests.insert(test.id.clone(), test);
            }
        }
    }
    let mut tests: Vec<TestReach> = tests.into_values().collect();
    tests.sort_by(|a, b| (a.depth, &a.path, a.start_line).cmp(&(b.depth, &b.path, b.start_line)));
    Ok((callers, tests))
}

/// The test that the definition `id` is, if it is one.
fn symbol_test(conn: &Connection, id: &str, is_test: IsTest<'_>) -> Result<Option<TestAt>, Error> {
    let Some(key) = query::symbol_key(conn, id)? else {
        return Ok(None);
    };
    let Some(info) = symbol_info(conn, key)? else {
        return Ok(None);
    };
    Ok(
        test_framework(conn, &info, is_test)?.map(|framework| TestAt {
            framework,
            id: id.to_owned(),
            name: runner_name(&info.path, id),
            start_line: info.start_line,
            end_line: info.end_line,
        }),
    )
}

/// The path of an id (before its `:LINE:`).
fn symbol_path(id: &str) -> &str {
    let qualname = short(id);
    id.len()
        .checked_sub(qualname.len() + 1)
        .and_then(|end| id.get(..end))
        .and_then(|head| head.rsplit_once(':'))
        .map_or(id, |(path, _)| path)
}

/// The short name of an id (its qualname, after the path and line).
fn short(id: &str) -> &str {
    // `PATH:LINE:QUALNAME`: the qualname is after the first `:DIGITS:`.
    let mut rest = id;
    while let Some(i) = rest.find(':') {
        let after = &rest[i + 1..];
        if let Some((line, qualname)) = after.split_once(':')
            && !line.is_empty()
            && line.bytes().all(|b| b.is_ascii_digit())
        {
            return qualname;
        }
        rest = after;
    }
    id
}

/// One test as text lines: `ID  LSTART-END  FRAMEWORK, depth N` then its
/// call path.
fn test_lines(test: &TestReach, prefix: &str, indent: &str, out: &mut Vec<String>) {
    let depth = if test.depth == 0 {
        "itself".to_owned()
    } else {
        format!("depth {}", test.depth)
    };
    out.push(format!(
        "{prefix}{}  L{}-{}  {}, {depth}: {}",
        test.id, test.start_line, test.end_line, test.framework, test.name
    ));
    if test.path_calls.is_empty() {
        return;
    }
    let mut path = String::new();
    for hop in &test.path_calls {
        let _ = write!(path, "{} (L{}) → ", short(&hop.from), hop.line);
    }
    if let Some(last) = test.path_calls.last() {
        path.push_str(short(&last.to));
    }
    out.push(format!("{indent}  {path}"));
}

/// Lines cut to `budget` tokens, with a closing note saying what was left
/// out; `None` when not even the first line fits.
fn within(lines: &[String], budget: usize, what: &str) -> Option<String> {
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    tokens::keep_lines(&text, budget, |kept, total| {
        if kept == total {
            String::new()
        } else {
            format!(
                "({} of {total} lines of this answer left out to fit {budget} tokens; {what})\n",
                total - kept
            )
        }
    })
}

/// The `tests` answer for a TypeScript/JavaScript test case named by its
/// callback's id (`PATH:LINE:`, as `tests` lists it, or `PATH:LINE` on its
/// first line): the case itself. `None` when `target` is no such id.
///
/// # Errors
/// [`Error::Sqlite`] as a message.
pub fn callback_tests_answer(
    index: &Index,
    target: &str,
) -> Result<Option<(String, serde_json::Value)>, String> {
    let trimmed = target.strip_suffix(':').unwrap_or(target);
    let Some((path, line)) = trimmed.rsplit_once(':') else {
        return Ok(None);
    };
    let Ok(line) = line.parse::<u32>() else {
        return Ok(None);
    };
    let Some(test) = test_callback(index.connection(), path, line).map_err(|e| e.to_string())?
    else {
        return Ok(None);
    };
    if test.start_line != line {
        return Ok(None);
    }
    let reach = TestReach {
        path: path.to_owned(),
        id: test.id,
        start_line: test.start_line,
        end_line: test.end_line,
        framework: test.framework,
        name: test.name,
        depth: 0,
        path_calls: Vec::new(),
    };
    let mut lines = vec![format!(
        "tests reaching {} ({} L{}-{}): 1 test",
        reach.id, reach.framework, reach.start_line, reach.end_line
    )];
    test_lines(&reach, "", "", &mut lines);
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    let json =
        json!({ "target": reach.id, "tests": { "tests": [reach], "visited": 1, "stopped": null } });
    Ok(Some((text, json)))
}

/// Why the settings may hide every test (for [`tests_answer`]'s
/// `if_none`): test files not indexed, or an include list that may leave
/// them out.
pub fn hidden_tests_hint(settings: &ast_outline_settings::Settings) -> Option<String> {
    let file = settings.file.as_ref()?.display();
    if !settings.index_tests {
        Some(format!(
            "tests.index is false in {file}: test files are not indexed, so no test is seen"
        ))
    } else if !settings.include.is_empty() {
        Some(format!(
            "files.include of {file} may leave test files out of the index"
        ))
    } else {
        None
    }
}

/// The `tests TARGET` answer: text (cut to `budget` tokens) and JSON
/// (whole); `if_none` is said when no test is found (why the settings
/// may hide them).
///
/// # Errors
/// [`Error::Sqlite`]; a message when not even the header fits in `budget`.
pub fn tests_answer(
    index: &Index,
    symbol: &query::SymbolRow,
    max_depth: u32,
    budget: usize,
    is_test: IsTest<'_>,
    if_none: Option<&str>,
) -> Result<(String, serde_json::Value), String> {
    let tests = tests_reaching(index.connection(), &symbol.id, max_depth, is_test)
        .map_err(|e| e.to_string())?;
    let mut lines = vec![format!(
        "tests reaching {} ({} L{}-{}): {}",
        symbol.id,
        symbol.kind,
        symbol.start_line,
        symbol.end_line,
        crate::answers::plural(tests.tests.len(), "test")
    )];
    if let Some(stopped) = &tests.stopped {
        lines.push(format!("({stopped})"));
    }
    if tests.tests.is_empty() {
        lines.push(format!(
            "(no test calls it, directly or through {}, by the call graph; a test \
             that reaches it only through a dynamic call or a fixture is not seen)",
            crate::answers::plural(tests.visited.saturating_sub(1), "caller")
        ));
        lines.extend(if_none.map(|hint| format!("({hint})")));
    }
    for test in &tests.tests {
        test_lines(test, "", "", &mut lines);
    }
    let text = within(&lines, budget, "raise --max-tokens").ok_or_else(|| {
        format!(
            "a budget of {} is too small: not even the header fits",
            crate::answers::plural(budget, "token")
        )
    })?;
    Ok((text, json!({ "target": symbol, "tests": tests })))
}

/// A definition a diff touches.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Changed {
    /// `modified`, `added`, `removed`, or `moved` (a top-level definition
    /// of a renamed file: its module path changed).
    pub change: &'static str,
    /// Its id (a removed one's is its id in the old file).
    pub id: String,
    /// Its kind.
    pub kind: String,
    /// First line (1-based; a removed one's in the old file).
    pub start_line: u32,
    /// Last line (1-based, inclusive).
    pub end_line: u32,
    /// The changed lines in it (added lines of the new file; a removed
    /// one's removed lines), as inclusive runs.
    pub lines: Vec<(u32, u32)>,
    /// Its callers (direct), when looked up.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub callers: Option<Vec<RefRow>>,
    /// The tests that reach it, when looked up.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tests: Option<Vec<TestReach>>,
}

/// One file of an impact report.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FileImpact {
    /// Its path (the new one).
    pub path: String,
    /// Its old path when renamed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub old_path: Option<String>,
    /// `added`, `deleted`, `renamed` or `modified`.
    pub status: &'static str,
    /// Lines added (new file), as inclusive runs.
    pub added: Vec<(u32, u32)>,
    /// Lines removed (old file), as inclusive runs.
    pub removed: Vec<(u32, u32)>,
    /// Added lines outside every definition (module level).
    pub module_lines: Vec<(u32, u32)>,
    /// The definitions touched: removed ones, then the others by line.
    pub definitions: Vec<Changed>,
    /// Why its definitions are not known, when they are not (not a
    /// language ast-outline reads, binary, not in the index).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// A whole impact report.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Impact {
    /// What the diff is of (`working tree against HEAD`, …).
    pub diff: String,
    /// The files, by path.
    pub files: Vec<FileImpact>,
    /// Files of the diff left out (over [`MAX_FILES`]).
    pub files_left_out: usize,
    /// Definitions whose callers and tests were not looked up (over
    /// [`MAX_ANALYSED`]).
    pub not_analysed: usize,
}

/// Most files of a diff read for definitions.
pub const MAX_FILES: usize = 2_000;

/// Most changed definitions whose callers and tests are looked up.
pub const MAX_ANALYSED: usize = 100;

/// A definition of the index or of an old outline, for mapping lines.
#[derive(Debug, Clone)]
struct Def {
    id: String,
    qualname: String,
    kind: String,
    start: u32,
    end: u32,
}

fn index_defs(conn: &Connection, path: &str) -> Result<Vec<Def>, Error> {
    let mut statement = conn.prepare_cached(
        "SELECT s.qualname, s.kind, s.start_line, s.end_line FROM symbols s \
         JOIN files f ON f.id = s.file_id WHERE f.path = ?1 ORDER BY s.ord",
    )?;
    let rows = statement.query_map([path], |row| {
        let qualname: String = row.get(0)?;
        let start: u32 = row.get(2)?;
        Ok(Def {
            id: format!("{path}:{start}:{qualname}"),
            qualname,
            kind: row.get(1)?,
            start,
            end: row.get(3)?,
        })
    })?;
    Ok(rows.collect::<Result<_, _>>()?)
}

fn outline_defs(path: &str, text: &str) -> Option<Vec<Def>> {
    let outline =
        ast_outline::outline_source(path, text, &ast_outline::OutlineOptions::default()).ok()?;
    let mut out = Vec::new();
    let mut stack: Vec<&Symbol> = outline.symbols.iter().collect();
    while let Some(symbol) = stack.pop() {
        if symbol.kind != SymbolKind::Block {
            out.push(Def {
                id: format!("{path}:{}:{}", symbol.start_line, symbol.qualname),
                qualname: symbol.qualname.clone(),
                kind: symbol.kind.as_str().to_owned(),
                start: symbol.start_line,
                end: symbol.end_line,
            });
        }
        stack.extend(symbol.children.iter());
    }
    Some(out)
}

/// The innermost definition holding `line` (and `also`, when given).
fn innermost(defs: &[Def], line: u32, also: Option<u32>) -> Option<usize> {
    defs.iter()
        .enumerate()
        .filter(|(_, d)| {
            d.start <= line && line <= d.end && also.is_none_or(|a| d.start <= a && a <= d.end)
        })
        .min_by_key(|(_, d)| (d.end - d.start, std::cmp::Reverse(d.start)))
        .map(|(i, _)| i)
}

/// Whether `inner` lies inside `outer` (and is not it).
fn inside(inner: &Def, outer: &Def) -> bool {
    outer.start <= inner.start
        && inner.end <= outer.end
        && (outer.start, outer.end) != (inner.start, inner.end)
}

/// What the diff `files` touches in the index's project: each file's
/// definitions (modified, added, removed — added and removed ones
/// collapsed to the outermost), and for the first [`MAX_ANALYSED`] that
/// exist now, their direct callers and the tests that reach them.
/// `old_text` gives a file's text before the diff (for removed
/// definitions and to tell added from modified ones), when known.
///
/// # Errors
/// [`Error::Sqlite`].
pub fn impact(
    index: &Index,
    diff: String,
    mut files: Vec<FileDiff>,
    old_text: &dyn Fn(&FileDiff) -> Option<String>,
    max_depth: u32,
    is_test: IsTest<'_>,
) -> Result<Impact, Error> {
    let conn = index.connection();
    let files_left_out = files.len().saturating_sub(MAX_FILES);
    files.truncate(MAX_FILES);
    let mut out = Vec::new();
    let mut analysed = 0usize;
    let mut not_analysed = 0usize;
    for file in &files {
        let mut report = FileImpact {
            path: file.path().to_owned(),
            old_path: (file.status() == "renamed")
                .then(|| file.old_path.clone())
                .flatten(),
            status: file.status(),
            added: runs(&file.added),
            removed: runs(&file.removed),
            module_lines: Vec::new(),
            definitions: Vec::new(),
            note: None,
        };
        let known = |path: &str| ast_outline::Language::from_path(path).is_some();
        let outside =
            |path: &str| path.starts_with('/') || path.split(['/', '\\']).any(|part| part == "..");
        if outside(file.path()) || file.old_path.as_deref().is_some_and(outside) {
            report.note = Some("outside the project root: not read".to_owned());
            out.push(report);
            continue;
        }
        if file.binary || !known(file.path()) {
            report.note = Some(
                if file.binary {
                    "binary file"
                } else {
                    "not a language ast-outline reads"
                }
                .to_owned(),
            );
            out.push(report);
            continue;
        }
        let new_defs = match &file.new_path {
            Some(path) => {
                if !index.holds_file(path)? {
                    report.note =
                        Some("not in the index (ignored, excluded or too large)".to_owned());
                }
                index_defs(conn, path)?
            }
            None => Vec::new(),
        };
        let old_defs = if file.removed.is_empty() && file.old_path.is_none() {
            Some(Vec::new())
        } else {
            file.old_path
                .as_deref()
                .and_then(|old_path| outline_defs(old_path, &old_text(file)?))
        };
        // New side: each added line's innermost definition; each deletion,
        // the one holding the lines on both its sides.
        let mut touched: BTreeMap<usize, Vec<u32>> = BTreeMap::new();
        let mut module = Vec::new();
        for &line in &file.added {
            match innermost(&new_defs, line, None) {
                Some(i) => touched.entry(i).or_default().push(line),
                None => module.push(line),
            }
        }
        for &point in &file.deletion_points {
            if point > 0
                && let Some(i) = innermost(&new_defs, point, Some(point + 1))
            {
                touched.entry(i).or_default();
            }
        }
        let new_names: HashSet<&str> = new_defs.iter().map(|d| d.qualname.as_str()).collect();
        let old_names: Option<HashSet<&str>> = old_defs
            .as_ref()
            .map(|defs| defs.iter().map(|d| d.qualname.as_str()).collect());
        // Old side: removed lines in definitions that no longer exist.
        let mut removed: BTreeMap<usize, Vec<u32>> = BTreeMap::new();
        if let Some(old_defs) = &old_defs {
            for &line in &file.removed {
                if let Some(i) = innermost(old_defs, line, None) {
                    if new_names.contains(old_defs[i].qualname.as_str()) {
                        // Lines gone from a definition that is still there.
                        if let Some(j) = new_defs
                            .iter()
                            .position(|d| d.qualname == old_defs[i].qualname)
                        {
                            touched.entry(j).or_default();
                        }
                    } else {
                        removed.entry(i).or_default().push(line);
                    }
                }
            }
            // Removed definitions whose lines were all removed with an
            // outer one are that one's.
            let outer: Vec<usize> = removed.keys().copied().collect();
            for i in outer {
                if removed
                    .keys()
                    .any(|&j| j != i && inside(&old_defs[i], &old_defs[j]))
                    && let Some(lines) = removed.remove(&i)
                {
                    {
                        let holder = removed
                            .keys()
                            .copied()
                            .filter(|&j| inside(&old_defs[i], &old_defs[j]))
                            .min_by_key(|&j| old_defs[j].start);
                        if let Some(j) = holder {
                            removed.entry(j).or_default().extend(lines);
                        }
                    }
                }
            }
            for (i, mut lines) in removed {
                lines.sort_unstable();
                let def = &old_defs[i];
                // Calls still made by name: they will break.
                // (A removed method's name alone says too little of who
                // called it: functions and types only.)
                let (callers, tests) = if def.qualname.contains('.') {
                    (None, None)
                } else if analysed < MAX_ANALYSED {
                    analysed += 1;
                    let (callers, tests) = removed_reach(conn, def, max_depth, is_test)?;
                    (Some(callers), Some(tests))
                } else {
                    not_analysed += 1;
                    (None, None)
                };
                report.definitions.push(Changed {
                    change: "removed",
                    id: def.id.clone(),
                    kind: def.kind.clone(),
                    start_line: def.start,
                    end_line: def.end,
                    lines: runs(&lines),
                    callers,
                    tests,
                });
            }
        } else if !file.removed.is_empty() {
            report.note.get_or_insert_with(|| {
                "the text before the change is unknown: removed definitions are not listed"
                    .to_owned()
            });
        }
        let is_added = |i: usize, lines: &[u32]| match &old_names {
            Some(names) => !names.contains(new_defs[i].qualname.as_str()),
            None => {
                let def = &new_defs[i];
                (def.start..=def.end).all(|line| lines.binary_search(&line).is_ok())
            }
        };
        let added_lines: Vec<u32> = file.added.clone();
        let mut changed: Vec<(usize, &'static str, Vec<u32>)> = touched
            .into_iter()
            .map(|(i, lines)| {
                let change = if is_added(i, &added_lines) {
                    "added"
                } else {
                    "modified"
                };
                (i, change, lines)
            })
            .collect();
        // An added definition inside an added one is part of it.
        let added_outer: Vec<usize> = changed
            .iter()
            .filter(|(_, change, _)| *change == "added")
            .map(|(i, ..)| *i)
            .collect();
        let mut merged: HashMap<usize, Vec<u32>> = HashMap::new();
        changed.retain(|(i, _, lines)| {
            let holder = added_outer
                .iter()
                .copied()
                .filter(|&j| j != *i && inside(&new_defs[*i], &new_defs[j]))
                .min_by_key(|&j| new_defs[j].start);
            match holder {
                Some(j) => {
                    merged.entry(j).or_default().extend(lines);
                    false
                }
                None => true,
            }
        });
        for (i, change, mut lines) in changed {
            lines.extend(merged.remove(&i).unwrap_or_default());
            lines.sort_unstable();
            let def = &new_defs[i];
            let (callers, tests) = if analysed < MAX_ANALYSED {
                analysed += 1;
                (
                    Some(
                        query::callers(conn, &def.id, 1)?
                            .into_iter()
                            .map(|row| row.call)
                            .collect(),
                    ),
                    Some(tests_reaching(conn, &def.id, max_depth, is_test)?.tests),
                )
            } else {
                not_analysed += 1;
                (None, None)
            };
            report.definitions.push(Changed {
                change,
                id: def.id.clone(),
                kind: def.kind.clone(),
                start_line: def.start,
                end_line: def.end,
                lines: runs(&lines),
                callers,
                tests,
            });
        }
        // A renamed file moves every top-level definition to another
        // module: importers of the old path break. Each one not already
        // listed: its callers now (resolved), and calls by its name that
        // resolve to nothing (imports of the old path), with their tests.
        if report.status == "renamed" {
            // The changed ones too: the calls through the old path.
            for changed in &mut report.definitions {
                let Some(def) = new_defs.iter().find(|d| d.id == changed.id) else {
                    continue;
                };
                if def.qualname.contains('.') {
                    continue;
                }
                if let (Some(callers), Some(tests)) = (&mut changed.callers, &mut changed.tests) {
                    let (broken, broken_tests) = removed_reach(conn, def, max_depth, is_test)?;
                    callers.extend(broken);
                    for test in broken_tests {
                        if !tests.iter().any(|t| t.id == test.id) {
                            tests.push(test);
                        }
                    }
                }
            }
            let listed: HashSet<String> = report.definitions.iter().map(|d| d.id.clone()).collect();
            for def in new_defs.iter().filter(|d| !d.qualname.contains('.')) {
                if listed.contains(&def.id) {
                    continue;
                }
                let (callers, tests) = if analysed < MAX_ANALYSED {
                    analysed += 1;
                    let mut callers: Vec<RefRow> = query::callers(conn, &def.id, 1)?
                        .into_iter()
                        .map(|row| row.call)
                        .collect();
                    let mut tests = tests_reaching(conn, &def.id, max_depth, is_test)?.tests;
                    let (broken, broken_tests) = removed_reach(conn, def, max_depth, is_test)?;
                    callers.extend(broken);
                    for test in broken_tests {
                        if !tests.iter().any(|t| t.id == test.id) {
                            tests.push(test);
                        }
                    }
                    (Some(callers), Some(tests))
                } else {
                    not_analysed += 1;
                    (None, None)
                };
                report.definitions.push(Changed {
                    change: "moved",
                    id: def.id.clone(),
                    kind: def.kind.clone(),
                    start_line: def.start,
                    end_line: def.end,
                    lines: Vec::new(),
                    callers,
                    tests,
                });
            }
        }
        report.module_lines = runs(&module);
        out.push(report);
    }
    Ok(Impact {
        diff,
        files: out,
        files_left_out,
        not_analysed,
    })
}

fn ranges(runs: &[(u32, u32)]) -> String {
    runs.iter()
        .map(|&(a, b)| {
            if a == b {
                a.to_string()
            } else {
                format!("{a}-{b}")
            }
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// The `impact` answer: text cut to `budget` tokens, saying what was left
/// out; JSON whole. `if_none` ([`hidden_tests_hint`]) is said when the
/// settings may hide tests.
///
/// # Errors
/// A message when not even the header fits in `budget`.
pub fn impact_answer(
    impact: &Impact,
    budget: usize,
    if_none: Option<&str>,
) -> Result<(String, serde_json::Value), String> {
    let definitions: Vec<&Changed> = impact.files.iter().flat_map(|f| &f.definitions).collect();
    let count = |change: &str| definitions.iter().filter(|d| d.change == change).count();
    let callers: usize = definitions
        .iter()
        .filter_map(|d| d.callers.as_ref())
        .map(Vec::len)
        .sum();
    // Each test once, by path and line.
    let mut tests: Vec<&TestReach> = definitions
        .iter()
        .filter_map(|d| d.tests.as_ref())
        .flatten()
        .collect();
    tests.sort_by(|a, b| (&a.path, a.start_line, &a.id).cmp(&(&b.path, b.start_line, &b.id)));
    tests.dedup_by(|a, b| a.id == b.id);
    let looked_up = definitions.iter().filter(|d| d.tests.is_some()).count();
    let of = if looked_up < definitions.len() {
        format!("the {looked_up} looked up")
    } else {
        "them".to_owned()
    };
    let moved = match count("moved") {
        0 => String::new(),
        n => format!(", {n} moved"),
    };
    let files = if impact.files_left_out > 0 {
        format!(
            "{} ({} read)",
            crate::answers::plural(impact.files.len() + impact.files_left_out, "file"),
            impact.files.len()
        )
    } else {
        crate::answers::plural(impact.files.len(), "file")
    };
    let mut lines = vec![format!(
        "impact of the {}: {files}, {} ({} modified, {} added, {} removed{moved}), {}, {} reaching {of}",
        impact.diff,
        crate::answers::plural(definitions.len(), "definition"),
        count("modified"),
        count("added"),
        count("removed"),
        crate::answers::plural(callers, "call"),
        crate::answers::plural(tests.len(), "test"),
    )];
    if !tests.is_empty() {
        let names: Vec<String> = tests
            .iter()
            .map(|t| {
                if t.name.contains(' ') || t.name.is_empty() {
                    format!("{} ({:?})", t.id, t.name)
                } else if t.name.contains("::") && t.name.starts_with(&t.path) {
                    t.name.clone()
                } else {
                    t.id.clone()
                }
            })
            .collect();
        let incomplete = if impact.files_left_out > 0 || impact.not_analysed > 0 {
            " (incomplete: see the limits below)"
        } else {
            ""
        };
        lines.push(format!("tests to run{incomplete}: {}", names.join(" ")));
    }
    lines.extend(if_none.map(|hint| format!("({hint})")));
    if impact.files_left_out > 0 {
        lines.push(format!(
            "({} files of the diff left out: only the first {MAX_FILES} are read)",
            impact.files_left_out
        ));
    }
    if impact.not_analysed > 0 {
        lines.push(format!(
            "({} definitions listed without callers and tests: only the first {MAX_ANALYSED} are \
             looked up; ask `callers`/`tests` for one)",
            impact.not_analysed
        ));
    }
    for file in &impact.files {
        let mut head = format!("{} ({}", file.path, file.status);
        if let Some(old) = &file.old_path {
            let _ = write!(head, " from {old}");
        }
        if !file.added.is_empty() {
            let _ = write!(head, "; lines {} added", ranges(&file.added));
        }
        if !file.removed.is_empty() {
            let _ = write!(
                head,
                "; lines {} removed (numbered as before)",
                ranges(&file.removed)
            );
        }
        head.push(')');
        lines.push(head);
        if let Some(note) = &file.note {
            lines.push(format!("  ({note})"));
        }
        if !file.module_lines.is_empty() {
            lines.push(format!(
                "  module level: lines {}",
                ranges(&file.module_lines)
            ));
        }
        for def in &file.definitions {
            let changed = if def.lines.is_empty() {
                String::new()
            } else {
                format!(" (lines {})", ranges(&def.lines))
            };
            lines.push(format!(
                "  {} {}  L{}-{} {}{changed}",
                def.change, def.id, def.start_line, def.end_line, def.kind,
            ));
            if let Some(callers) = &def.callers {
                if callers.is_empty() {
                    lines.push("    callers: none found".to_owned());
                } else {
                    let mut list: Vec<String> = callers
                        .iter()
                        .map(|c| {
                            format!(
                                "{}:{}{}",
                                c.path,
                                c.line,
                                c.caller
                                    .as_deref()
                                    .map(|id| format!(" in {}", short(id)))
                                    .unwrap_or_default()
                            )
                        })
                        .collect();
                    // Two calls on one line (`f(f(x))`) are one place.
                    list.dedup();
                    lines.push(format!("    callers ({}): {}", list.len(), list.join(", ")));
                }
            }
            if let Some(tests) = &def.tests {
                if tests.is_empty() {
                    lines.push("    tests: none reach it".to_owned());
                } else {
                    for test in tests {
                        test_lines(test, "    test ", "    ", &mut lines);
                    }
                }
            }
        }
    }
    let text = within(
        &lines,
        budget,
        "raise --max-tokens, or ask `callers`/`tests` per definition",
    )
    .ok_or_else(|| {
        format!(
            "a budget of {} is too small: not even the header fits",
            crate::answers::plural(budget, "token")
        )
    })?;
    Ok((text, serde_json::to_value(impact).unwrap_or_default()))
}

#[cfg(test)]
mod tests {
    use super::callback_title;

    /// Titles as a runner's `-t` takes them (a new user's trial found them
    /// mangled: `…)('each %i'`, escapes kept).
    #[test]
    fn callback_titles_are_the_last_string_argument_unescaped() {
        for (name, title) in [
            ("it('adds')", "adds"),
            ("describe(\"math\")", "math"),
            ("it.each(…)('each %i')", "each %i"),
            ("describe.each([1, 2])('group %i')", "group %i"),
            ("describe(`tmpl ${name}`)", "tmpl ${name}"),
            ("it(\"quote's \\\"name\\\"\")", "quote's \"name\""),
            ("it('has > arrow')", "has > arrow"),
            ("it('cut short…", "cut short…"),
            ("beforeEach", "beforeEach"),
        ] {
            assert_eq!(callback_title(name), title, "{name}");
        }
    }
}
