//! The facts in each `tests/fixtures/ts/*.expect.md` (shared cases from other
//! tools' bug reports, and our own), checked against our outline. The table
//! reader lives in `common/expect.rs`; this file holds the TypeScript/JavaScript
//! vocabulary of the tables.

mod common;

use common::expect::{self, Rules, backticked, is_dash};
use outline_core::{Modifier, ParameterKind, Symbol, SymbolKind};

/// Kind words of the TypeScript tables that are not the contract's own.
fn ts_kind(word: &str) -> Option<Vec<SymbolKind>> {
    use SymbolKind::*;
    Some(match word {
        "method signature" | "method overload signature" => vec![Method],
        "function overload signature" | "declared function overload" => vec![Function],
        "overload signature" | "implementation" => vec![Function, Method, Constructor],
        "default export" => vec![Variable],
        "property holding an async arrow function" => vec![Method],
        "global augmentation" | "namespace" => vec![Module],
        _ => return None,
    })
}

fn ts_qualifier(qualifier: &str, symbol: &Symbol) -> Option<bool> {
    Some(match qualifier {
        "static" => symbol.has(Modifier::Static),
        "ambient" => symbol.has(Modifier::Declare),
        "ambient, string-named" => symbol.name.starts_with('"'),
        "computed name" => symbol.name.starts_with('['),
        "implementation" => !symbol.has(Modifier::Bodiless),
        "declaration, no body" => symbol.has(Modifier::Bodiless),
        "object literal" | "object" => !symbol.children.is_empty(),
        _ => return None,
    })
}

/// A modifier or visibility word of the tables (`export`, `protected`, …).
fn has_word(symbol: &Symbol, word: &str) -> bool {
    let modifier = match word {
        "export" => Modifier::Export,
        "default" => Modifier::Default,
        "declare" => Modifier::Declare,
        "abstract" => Modifier::Abstract,
        "static" => Modifier::Static,
        "override" => Modifier::Override,
        "readonly" => Modifier::Readonly,
        "const" => Modifier::Const,
        "async" => Modifier::Async,
        _ => return symbol.visibility.as_deref() == Some(word),
    };
    symbol.has(modifier)
}

/// A parameter as the tables write it, without decorators and parameter
/// property modifiers (those are checked in the signature).
fn render_parameter(p: &outline_core::Parameter) -> String {
    let mut text = String::new();
    if p.kind == ParameterKind::Variadic {
        text.push_str("...");
    }
    text.push_str(&p.name);
    if p.optional {
        text.push('?');
    }
    if let Some(a) = &p.annotation {
        text.push_str(": ");
        text.push_str(a);
    }
    if let Some(d) = &p.default {
        text.push_str(" = ");
        text.push_str(d);
    }
    text
}

/// `@Inject("X") private readonly clock?: T` → `clock?: T`.
fn bare_parameter(expected: &str) -> String {
    let mut rest = expected.trim();
    while rest.starts_with('@') {
        // Skip one decorator: up to the space after its balanced parentheses.
        let mut depth = 0;
        let mut end = rest.len();
        for (i, c) in rest.char_indices() {
            match c {
                '(' => depth += 1,
                ')' => depth -= 1,
                ' ' if depth == 0 => {
                    end = i;
                    break;
                }
                _ => {}
            }
        }
        rest = rest[end..].trim_start();
    }
    loop {
        let next = [
            "public ",
            "private ",
            "protected ",
            "readonly ",
            "override ",
        ]
        .iter()
        .find_map(|m| rest.strip_prefix(m));
        match next {
            Some(r) => rest = r.trim_start(),
            None => break,
        }
    }
    rest.to_owned()
}

fn ts_column(column: &str, cell: &str, symbol: &Symbol) -> Option<Option<String>> {
    let complaint = |what: String| Some(Some(what));
    match column {
        "params" if !cell.starts_with("base") => {
            if is_dash(cell) {
                return Some(None);
            }
            let expected: Vec<String> = if cell == "(none)" {
                Vec::new()
            } else {
                backticked(cell)
            };
            let bare: Vec<String> = expected.iter().map(|e| bare_parameter(e)).collect();
            let actual: Vec<String> = symbol.parameters.iter().map(render_parameter).collect();
            if bare != actual {
                return complaint(format!("params: expected {bare:?}, got {actual:?}"));
            }
            let signature = symbol.signature.as_deref().unwrap_or_default();
            for e in &expected {
                if !signature.contains(e.as_str()) {
                    return complaint(format!("params: `{e}` not in signature `{signature}`"));
                }
            }
            Some(None)
        }
        "modifiers" | "modifiers / flags" => {
            if is_dash(cell) || cell.contains('`') {
                return Some(None);
            }
            for word in cell.split(',') {
                let word = word.trim().trim_matches('*').trim();
                if !has_word(symbol, word) {
                    return complaint(format!(
                        "{column}: `{word}` missing from {:?} / {:?}",
                        symbol.modifiers, symbol.visibility
                    ));
                }
            }
            Some(None)
        }
        "generator" if !is_dash(cell) => {
            let expected = cell.trim_start_matches("**").starts_with("yes");
            if expected != symbol.has(Modifier::Generator) {
                return complaint(format!("generator: expected {expected}"));
            }
            Some(None)
        }
        _ => None,
    }
}

#[test]
fn typescript_cases_meet_their_expected_facts() {
    let rules = Rules {
        kind: ts_kind,
        qualifier: ts_qualifier,
        column: ts_column,
        ..Rules::default()
    };
    expect::check_language("ts", &rules);
}

#[test]
fn parameters_lose_their_prefixes() {
    assert_eq!(
        bare_parameter("@Inject(\"CLOCK\") private readonly clock: object"),
        "clock: object"
    );
    assert_eq!(bare_parameter("options?: object"), "options?: object");
}

/// Functions nested 400 deep: the walk goes deep enough that the core's own
/// cap (50 symbol levels) counts every symbol it leaves out (350).
#[test]
fn deep_nesting_is_counted_by_the_core_cap() {
    let n = 400;
    let mut text = String::from("function f0() {\n");
    for i in 1..n {
        text.push_str(&format!("function f{i}() {{\n"));
    }
    text.push_str(&"}\n".repeat(n));
    text.push_str("function after() {}\n");
    let language = outline_core::Language::Javascript;
    let outline = ast_outline::SourceText::from_bytes(text.into_bytes(), Some(language)).outline(
        "deep.js",
        language,
        &ast_outline::OutlineOptions::default(),
    );
    let messages: Vec<&str> = outline
        .diagnostics
        .iter()
        .map(|d| d.message.as_str())
        .collect();
    assert_eq!(
        messages,
        ["350 symbols nested deeper than 50 levels are not listed"]
    );
    assert_eq!(
        outline
            .symbols
            .iter()
            .map(|s| s.name.as_str())
            .collect::<Vec<_>>(),
        ["f0", "after"]
    );
}

/// Inputs that trip swc's internal assertions (checked in debug builds) are
/// recovered like any syntax error, never reported as an adapter failure.
#[test]
fn parser_assertions_do_not_lose_the_file() {
    let cases = [
        ("a.js", "class A {\n  a() {\n    return\n"),
        (
            "b.ts",
            "export enum Color {\n  Red,\n  Green `= \"green\",\n  Blue = Red + 2,\n}\n\nconst enum Direction {\n  Up,\n}\n",
        ),
    ];
    for (path, text) in cases {
        let language = outline_core::Language::from_path(path).expect("known extension");
        let outline = ast_outline::SourceText::from_bytes(text.as_bytes().to_vec(), Some(language))
            .outline(path, language, &ast_outline::OutlineOptions::default());
        assert!(
            outline
                .diagnostics
                .iter()
                .all(|d| !d.message.contains("internal error")),
            "{path}: {:?}",
            outline.diagnostics
        );
        assert!(outline.partial, "{path}");
        assert!(!outline.symbols.is_empty(), "{path}");
    }
}
