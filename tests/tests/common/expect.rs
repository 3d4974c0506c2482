//! Reading the `*.expect.md` files (the shared cases found in other tools' bug
//! reports, and our own) and checking their facts against our outline.
//!
//! Each expect file holds Markdown tables with at least the columns `name`
//! (or `qualname`, the whole qualified name), `kind`, `start`, `end`,
//! usually `parent`, and optional columns this module
//! understands: `params`, `returns`, `doc first line`, `async`, `decorators`,
//! `type params`. A row passes when a symbol with that name, start and end line
//! exists under that parent (blocks are transparent) with a matching kind and
//! matching optional facts. A table under a heading that says "exactly" must
//! list every class, function and method we report. Each language adds its own
//! vocabulary through [`Rules`].

use std::path::Path;

use outline_core::{FileOutline, Modifier, ParameterKind, Symbol, SymbolKind, TypeParameterKind};

/// How one language's expect tables are read, beyond the shared vocabulary.
pub struct Rules {
    /// Maps a kind word (the text before ` (`) to the kinds it allows; `None`
    /// falls back to the contract's kind words.
    pub kind: fn(&str) -> Option<Vec<SymbolKind>>,
    /// Whether `symbol` shows the kind qualifier (the text in parentheses);
    /// `None` when the qualifier is only descriptive.
    pub qualifier: fn(&str, &Symbol) -> Option<bool>,
    /// Whether the last segment of a `parent` cell (cleaned) names `parent`.
    pub parent_name: fn(&str, &Symbol) -> bool,
    /// A language-specific check of one column: `Some(verdict)` replaces the
    /// shared check (`verdict` is the complaint, if any), `None` keeps it.
    pub column: fn(&str, &str, &Symbol) -> Option<Option<String>>,
}

impl Default for Rules {
    fn default() -> Self {
        Rules {
            kind: |_| None,
            qualifier: |_, _| None,
            parent_name: |name, parent| parent.name == name,
            column: |_, _, _| None,
        }
    }
}

/// A symbol with its nearest named (non-block) ancestor.
pub struct Placed<'a> {
    symbol: &'a Symbol,
    parent: Option<&'a Symbol>,
}

pub fn placed(outline: &FileOutline) -> Vec<Placed<'_>> {
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
pub struct Table {
    heading: String,
    columns: Vec<String>,
    rows: Vec<Vec<String>>,
}

pub fn split_row(line: &str) -> Vec<String> {
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

pub fn tables(markdown: &str) -> Vec<Table> {
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
pub fn backticked(cell: &str) -> Vec<String> {
    cell.split('`')
        .skip(1)
        .step_by(2)
        .map(str::to_owned)
        .collect()
}

pub fn is_dash(cell: &str) -> bool {
    cell == "—" || cell == "-" || cell.is_empty()
}

pub fn clean_name(cell: &str) -> String {
    let cell = cell.split(" (").next().unwrap_or(cell).trim();
    cell.trim_matches('`').to_owned()
}

/// The kinds a table's kind word allows (the contract's kind words, spaces or
/// underscores), and the qualifier in parentheses. Language rules may map other
/// words first.
pub fn expected_kind(rules: &Rules, cell: &str) -> (Vec<SymbolKind>, String) {
    let (word, qualifier) = match cell.split_once(" (") {
        Some((word, rest)) => (word.trim(), rest.trim_end_matches(')').to_owned()),
        None => (cell.trim(), String::new()),
    };
    if let Some(kinds) = (rules.kind)(word) {
        return (kinds, qualifier);
    }
    let kind = match word.replace(' ', "_").as_str() {
        "class" => SymbolKind::Class,
        "function" => SymbolKind::Function,
        "method" => SymbolKind::Method,
        "constructor" => SymbolKind::Constructor,
        "getter" => SymbolKind::Getter,
        "setter" => SymbolKind::Setter,
        "property" => SymbolKind::Property,
        "field" => SymbolKind::Field,
        "variable" => SymbolKind::Variable,
        "constant" => SymbolKind::Constant,
        "interface" => SymbolKind::Interface,
        "type_alias" => SymbolKind::TypeAlias,
        "enum" => SymbolKind::Enum,
        "enum_member" => SymbolKind::EnumMember,
        "struct" => SymbolKind::Struct,
        "union" => SymbolKind::Union,
        "trait" => SymbolKind::Trait,
        "impl" => SymbolKind::Impl,
        "module" => SymbolKind::Module,
        "macro" => SymbolKind::Macro,
        "block" => SymbolKind::Block,
        other => panic!("kind `{other}` is not mapped: extend the language's Rules::kind"),
    };
    (vec![kind], qualifier)
}

/// A parameter as the expect tables write it (PEP 8 style, with `*`/`**`).
pub fn render_parameter(p: &outline_core::Parameter) -> String {
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

pub fn render_type_parameter(tp: &outline_core::TypeParameter) -> String {
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
pub fn check_column(column: &str, cell: &str, symbol: &Symbol) -> Option<String> {
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

fn check_qualifier(rules: &Rules, qualifier: &str, symbol: &Symbol) -> Option<String> {
    let ok = (rules.qualifier)(qualifier, symbol).unwrap_or(true);
    (!ok).then(|| format!("kind qualifier `{qualifier}` not reflected"))
}

fn parent_matches(rules: &Rules, cell: &str, parent: Option<&Symbol>) -> bool {
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
    (rules.parent_name)(&name, parent) && line.is_none_or(|l| parent.start_line == l)
}

/// Checks one expect file against the outline of its input; returns failures.
fn check_case(rules: &Rules, expect: &Path, outline: &FileOutline) -> Vec<String> {
    let markdown = std::fs::read_to_string(expect).expect("expect file is readable");
    let symbols = placed(outline);
    let mut failures = Vec::new();
    let mut checked = 0;
    for table in tables(&markdown) {
        let column = |name: &str| table.columns.iter().position(|c| c.starts_with(name));
        // A `qualname` column names the symbol by its whole qualname.
        let qualname_col = column("qualname");
        let (Some(name_col), Some(kind_col), Some(start_col), Some(end_col)) = (
            column("name").or(qualname_col),
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
            let (kinds, qualifier) = expected_kind(rules, cell(kind_col));
            let (Ok(start), Ok(end)) =
                (cell(start_col).parse::<u32>(), cell(end_col).parse::<u32>())
            else {
                failures.push(format!("unreadable row {row:?}"));
                continue;
            };
            let found = symbols.iter().find(|p| {
                (if qualname_col.is_some() {
                    // A block's qualname is its parent's: it is named.
                    if p.symbol.kind == SymbolKind::Block {
                        p.symbol.name == name
                    } else {
                        p.symbol.qualname == name
                    }
                } else {
                    p.symbol.name == name
                }) && p.symbol.start_line == start
                    && p.symbol.end_line == end
                    && parent_col.is_none_or(|i| parent_matches(rules, cell(i), p.parent))
            });
            let Some(found) = found else {
                failures.push(format!("{name} {start}-{end}: not found where expected"));
                continue;
            };
            checked += 1;
            listed.push((found.symbol.name.clone(), start));
            let symbol = found.symbol;
            if !kinds.contains(&symbol.kind) {
                failures.push(format!(
                    "{name} {start}: kind {:?}, expected {kinds:?}",
                    symbol.kind
                ));
            }
            failures.extend(
                check_qualifier(rules, &qualifier, symbol).map(|f| format!("{name} {start}: {f}")),
            );
            for (i, column) in table.columns.iter().enumerate() {
                let complaint = match (rules.column)(column, cell(i), symbol) {
                    Some(verdict) => verdict,
                    None => check_column(column, cell(i), symbol),
                };
                if let Some(complaint) = complaint {
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

/// Checks every `*.expect.md` in `tests/fixtures/<folder>/` against the outline
/// of the input beside it; panics listing every unmet fact.
pub fn check_language(folder: &str, rules: &Rules) {
    let dir = super::tests_dir().join("fixtures").join(folder);
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
        let outline = super::outline_fixture(&input);
        for failure in check_case(rules, expect, &outline) {
            report.push(format!("{stem}: {failure}"));
        }
    }
    assert!(report.is_empty(), "facts not met:\n{}", report.join("\n"));
}
