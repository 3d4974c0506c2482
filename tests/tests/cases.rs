//! The facts in each `tests/fixtures/<language>/*.expect.md` (copied from the
//! shared cases found in other tools' bug reports), checked against our outline.
//!
//! Each expect file holds Markdown tables with at least the columns `name`,
//! `kind`, `start`, `end`, usually `parent`, and optional columns this test
//! understands: `params`, `returns`, `doc first line`, `async`, `decorators`,
//! `type params`. A row passes when a symbol with that name, start and end line
//! exists under that parent (blocks are transparent) with a matching kind and
//! matching optional facts. A table under a heading that says "exactly" must
//! list every class, function and method we report.
//!
//! The snapshots in `golden.rs` pin the whole output; this test states, in the
//! cases' own words, what is right.

mod common;

use std::path::Path;

use outline_core::{
    Accessor, FileOutline, Modifier, ParameterKind, Symbol, SymbolKind, TypeParameterKind,
};

/// A symbol with its nearest named (non-block) ancestor.
struct Placed<'a> {
    symbol: &'a Symbol,
    parent: Option<&'a Symbol>,
}

fn placed(outline: &FileOutline) -> Vec<Placed<'_>> {
    fn visit<'a>(symbols: &'a [Symbol], parent: Option<&'a Symbol>, out: &mut Vec<Placed<'a>>) {
        for symbol in symbols {
            out.push(Placed { symbol, parent });
            let next = if symbol.kind == SymbolKind::Block {
                parent
            } else {
                Some(symbol)
            };
            visit(&symbol.children, next, out);
        }
    }
    let mut out = Vec::new();
    visit(&outline.symbols, None, &mut out);
    out
}

/// One table: its heading and rows as (column name → cell) pairs.
struct Table {
    heading: String,
    columns: Vec<String>,
    rows: Vec<Vec<String>>,
}

fn split_row(line: &str) -> Vec<String> {
    let inner = line.trim().trim_start_matches('|').trim_end_matches('|');
    let mut cells = Vec::new();
    let mut cell = String::new();
    let mut chars = inner.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' if chars.peek() == Some(&'|') => {
                cell.push('|');
                chars.next();
            }
            '|' => cells.push(std::mem::take(&mut cell).trim().to_owned()),
            c => cell.push(c),
        }
    }
    cells.push(cell.trim().to_owned());
    cells
}

fn tables(markdown: &str) -> Vec<Table> {
    let mut tables = Vec::new();
    let mut heading = String::new();
    let lines: Vec<&str> = markdown.lines().collect();
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        if line.starts_with('#') {
            heading = line.trim_start_matches('#').trim().to_owned();
        }
        if line.starts_with('|') && lines.get(i + 1).is_some_and(|l| l.starts_with("|---")) {
            let columns = split_row(line)
                .into_iter()
                .map(|c| c.to_lowercase())
                .collect();
            let mut rows = Vec::new();
            i += 2;
            while i < lines.len() && lines[i].starts_with('|') {
                rows.push(split_row(lines[i]));
                i += 1;
            }
            tables.push(Table {
                heading: heading.clone(),
                columns,
                rows,
            });
            continue;
        }
        i += 1;
    }
    tables
}

/// Text inside backticks, in order: "`a`, `b: int`" → ["a", "b: int"].
fn backticked(cell: &str) -> Vec<String> {
    cell.split('`')
        .skip(1)
        .step_by(2)
        .map(str::to_owned)
        .collect()
}

fn is_dash(cell: &str) -> bool {
    cell == "—" || cell == "-" || cell.is_empty()
}

fn clean_name(cell: &str) -> String {
    let cell = cell.split(" (").next().unwrap_or(cell).trim();
    cell.trim_matches('`').to_owned()
}

/// The kinds a table's kind word allows, and the qualifier in parentheses.
fn expected_kind(cell: &str) -> (Vec<SymbolKind>, String) {
    let (word, qualifier) = match cell.split_once(" (") {
        Some((word, rest)) => (word.trim(), rest.trim_end_matches(')').to_owned()),
        None => (cell.trim(), String::new()),
    };
    let kinds = match word {
        "class" => vec![SymbolKind::Class],
        "function" => vec![SymbolKind::Function],
        "method" => vec![SymbolKind::Method],
        "type alias" => vec![SymbolKind::TypeAlias],
        other => panic!("kind `{other}` is not mapped yet: extend expected_kind in cases.rs"),
    };
    (kinds, qualifier)
}

/// A parameter as the expect tables write it (PEP 8 style, with `*`/`**`).
fn render_parameter(p: &outline_core::Parameter) -> String {
    let sigil = match p.kind {
        ParameterKind::Variadic => "*",
        ParameterKind::VariadicKeyword => "**",
        _ => "",
    };
    match (&p.annotation, &p.default) {
        (Some(a), Some(d)) => format!("{sigil}{}: {a} = {d}", p.name),
        (Some(a), None) => format!("{sigil}{}: {a}", p.name),
        (None, Some(d)) => format!("{sigil}{}={d}", p.name),
        (None, None) => format!("{sigil}{}", p.name),
    }
}

fn render_type_parameter(tp: &outline_core::TypeParameter) -> String {
    let sigil = match tp.kind {
        TypeParameterKind::TypeVarTuple => "*",
        TypeParameterKind::ParamSpec => "**",
        _ => "",
    };
    let mut text = format!("{sigil}{}", tp.name);
    if let Some(bound) = &tp.bound {
        text.push_str(&format!(": {bound}"));
    }
    if let Some(default) = &tp.default {
        text.push_str(&format!(" = {default}"));
    }
    text
}

/// Checks one optional column of a row; returns a complaint when it disagrees.
fn check_column(column: &str, cell: &str, symbol: &Symbol) -> Option<String> {
    let mismatch = |expected: &dyn std::fmt::Debug, actual: &dyn std::fmt::Debug| {
        Some(format!("{column}: expected {expected:?}, got {actual:?}"))
    };
    match column {
        "params" if cell.starts_with("base") => {
            let (bases, keywords) = cell.split_once("keyword").unwrap_or((cell, ""));
            let (bases, keywords) = (backticked(bases), backticked(keywords));
            if bases != symbol.bases || keywords != symbol.keywords {
                return mismatch(&(bases, keywords), &(&symbol.bases, &symbol.keywords));
            }
        }
        "params" => {
            let expected: Vec<String> = if cell == "(none)" {
                Vec::new()
            } else if is_dash(cell) {
                return None;
            } else {
                backticked(cell)
                    .into_iter()
                    .filter(|p| p != "*" && p != "/")
                    .collect()
            };
            let actual: Vec<String> = symbol.parameters.iter().map(render_parameter).collect();
            if expected != actual {
                return mismatch(&expected, &actual);
            }
        }
        "returns" => {
            let expected = backticked(cell).into_iter().next();
            if expected != symbol.returns {
                return mismatch(&expected, &symbol.returns);
            }
        }
        "doc first line" => {
            let expected = (!is_dash(cell)).then(|| cell.to_owned());
            if expected != symbol.doc {
                return mismatch(&expected, &symbol.doc);
            }
        }
        "async" if !is_dash(cell) => {
            let expected = cell.trim_start_matches("**").starts_with("yes");
            if expected != symbol.has(Modifier::Async) {
                return mismatch(&expected, &symbol.modifiers);
            }
        }
        "decorators" | "decorators (in order)" => {
            let expected = backticked(cell);
            let matches = expected.len() == symbol.decorators.len()
                && expected.iter().zip(&symbol.decorators).all(|(e, a)| {
                    match e.split_once("...") {
                        Some((prefix, _)) => a.starts_with(prefix),
                        None => e == a,
                    }
                });
            if !matches {
                return mismatch(&expected, &symbol.decorators);
            }
        }
        "type params" => {
            let expected = backticked(cell);
            let actual: Vec<String> = symbol
                .type_parameters
                .iter()
                .map(render_type_parameter)
                .collect();
            if expected != actual {
                return mismatch(&expected, &actual);
            }
        }
        _ => {}
    }
    None
}

fn check_qualifier(qualifier: &str, symbol: &Symbol) -> Option<String> {
    let ok = match qualifier {
        "static" => symbol.has(Modifier::Static),
        "class" => symbol.has(Modifier::Classmethod),
        "property getter" => symbol.accessor == Some(Accessor::Getter),
        "property setter" => symbol.accessor == Some(Accessor::Setter),
        "property deleter" => symbol.accessor == Some(Accessor::Deleter),
        _ => true,
    };
    (!ok).then(|| format!("kind qualifier `{qualifier}` not reflected"))
}

fn parent_matches(cell: &str, parent: Option<&Symbol>) -> bool {
    if cell == "(module)" || is_dash(cell) {
        return parent.is_none();
    }
    let Some(parent) = parent else {
        return false;
    };
    let last = cell.rsplit('›').next().unwrap_or(cell).trim();
    let name = clean_name(last);
    let line = last
        .split_once("(line ")
        .and_then(|(_, rest)| rest.trim_end_matches(')').parse::<u32>().ok());
    parent.name == name && line.is_none_or(|l| parent.start_line == l)
}

/// Checks one expect file against the outline of its input; returns failures.
fn check_case(expect: &Path, outline: &FileOutline) -> Vec<String> {
    let markdown = std::fs::read_to_string(expect).expect("expect file is readable");
    let symbols = placed(outline);
    let mut failures = Vec::new();
    let mut checked = 0;
    for table in tables(&markdown) {
        let column = |name: &str| table.columns.iter().position(|c| c.starts_with(name));
        let (Some(name_col), Some(kind_col), Some(start_col), Some(end_col)) = (
            column("name"),
            column("kind"),
            column("start"),
            column("end"),
        ) else {
            continue;
        };
        let parent_col = column("parent");
        let mut listed = Vec::new();
        for row in &table.rows {
            let cell = |i: usize| row.get(i).map(String::as_str).unwrap_or_default();
            let name = clean_name(cell(name_col));
            let (kinds, qualifier) = expected_kind(cell(kind_col));
            let (Ok(start), Ok(end)) =
                (cell(start_col).parse::<u32>(), cell(end_col).parse::<u32>())
            else {
                failures.push(format!("unreadable row {row:?}"));
                continue;
            };
            let found = symbols.iter().find(|p| {
                p.symbol.name == name
                    && p.symbol.start_line == start
                    && p.symbol.end_line == end
                    && parent_col.is_none_or(|i| parent_matches(cell(i), p.parent))
            });
            let Some(found) = found else {
                failures.push(format!("{name} {start}-{end}: not found where expected"));
                continue;
            };
            checked += 1;
            listed.push((name.clone(), start));
            let symbol = found.symbol;
            if !kinds.contains(&symbol.kind) {
                failures.push(format!(
                    "{name} {start}: kind {:?}, expected {kinds:?}",
                    symbol.kind
                ));
            }
            failures.extend(
                check_qualifier(&qualifier, symbol).map(|f| format!("{name} {start}: {f}")),
            );
            for (i, column) in table.columns.iter().enumerate() {
                if let Some(complaint) = check_column(column, cell(i), symbol) {
                    failures.push(format!("{name} {start}: {complaint}"));
                }
            }
        }
        if table.heading.contains("exactly") {
            for p in &symbols {
                let s = p.symbol;
                let definition = matches!(
                    s.kind,
                    SymbolKind::Class | SymbolKind::Function | SymbolKind::Method
                );
                if definition && !listed.contains(&(s.name.clone(), s.start_line)) {
                    failures.push(format!(
                        "{} {}: reported but not listed",
                        s.name, s.start_line
                    ));
                }
            }
        }
    }
    if checked == 0 {
        failures.push("no rows checked: is the table format understood?".to_owned());
    }
    failures
}

fn check_language(folder: &str) {
    let dir = common::tests_dir().join("fixtures").join(folder);
    let mut expects: Vec<_> = std::fs::read_dir(&dir)
        .expect("fixture folder exists")
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.to_string_lossy().ends_with(".expect.md"))
        .collect();
    expects.sort();
    assert!(!expects.is_empty(), "no expect files in {}", dir.display());
    let mut report = Vec::new();
    for expect in &expects {
        let stem = expect
            .file_name()
            .and_then(|n| n.to_str())
            .and_then(|n| n.strip_suffix(".expect.md"))
            .expect("expect file name");
        let input = std::fs::read_dir(&dir)
            .expect("fixture folder exists")
            .filter_map(Result::ok)
            .map(|e| e.path())
            .find(|p| {
                p.file_stem().and_then(|s| s.to_str()) == Some(stem)
                    && !p.to_string_lossy().ends_with(".md")
            })
            .unwrap_or_else(|| panic!("no input beside {}", expect.display()));
        let outline = common::outline_fixture(&input);
        for failure in check_case(expect, &outline) {
            report.push(format!("{stem}: {failure}"));
        }
    }
    assert!(report.is_empty(), "facts not met:\n{}", report.join("\n"));
}

#[test]
fn python_cases_meet_their_expected_facts() {
    check_language("python");
}

#[test]
fn table_parser_reads_escaped_pipes_and_backticks() {
    assert_eq!(split_row("| a | `x \\| y` | c |"), ["a", "`x | y`", "c"]);
    assert_eq!(
        backticked("`self`, `port: int = 8080`"),
        ["self", "port: int = 8080"]
    );
    assert_eq!(clean_name("`__init__`"), "__init__");
    assert_eq!(expected_kind("method (static)").1, "static");
}
