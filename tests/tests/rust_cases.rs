//! The facts in each `tests/fixtures/rust/*.expect.md` (shared cases from other
//! tools' bug reports, and our own), checked against our outline. The table
//! reader lives in `common/expect.rs`; this file holds the Rust
//! vocabulary of the tables.

mod common;

use common::expect::{self, Rules, backticked, is_dash};
use outline_core::{Modifier, Symbol, SymbolKind};

/// Kind words of the Rust tables that are not the contract's.
fn kind(word: &str) -> Option<Vec<SymbolKind>> {
    Some(match word {
        "const" => vec![SymbolKind::Constant],
        "static" => vec![SymbolKind::Variable],
        "trait method" => vec![SymbolKind::Method],
        "foreign function" => vec![SymbolKind::Function],
        "type" => vec![SymbolKind::TypeAlias],
        "variant" => vec![SymbolKind::EnumMember],
        _ => return None,
    })
}

/// What the qualifiers in parentheses say about a symbol.
fn qualifier(qualifier: &str, symbol: &Symbol) -> Option<bool> {
    let tuple = || symbol.children.first().is_some_and(|c| c.name == "0");
    Some(match qualifier {
        "tuple" => tuple(),
        "unit" => symbol.children.is_empty(),
        "trait" => !symbol.bases.is_empty(),
        "trait, unsafe" => !symbol.bases.is_empty() && symbol.has(Modifier::Unsafe),
        "negative" => symbol.name.contains(" !"),
        "inherent" => symbol.bases.is_empty(),
        "required, no body" | "declaration" => symbol.has(Modifier::Bodiless),
        "default body" => !symbol.has(Modifier::Bodiless),
        "`macro_rules!`" => symbol
            .signature
            .as_deref()
            .is_some_and(|s| s.starts_with("macro_rules!")),
        "macros 2.0" => symbol.signature.as_deref().is_some_and(|s| {
            let s = match &symbol.visibility {
                Some(vis) => s.strip_prefix(vis.as_str()).unwrap_or(s).trim_start(),
                None => s,
            };
            s.starts_with("macro ")
        }),
        _ => return None,
    })
}

/// `impl fmt::Display for Config<T>` → `impl Display for Config`: path
/// prefixes and generic arguments dropped, so a table's short label names
/// our full impl name.
fn short_impl_name(name: &str) -> String {
    let mut out = String::new();
    let mut depth = 0;
    for c in name.chars() {
        match c {
            '<' => depth += 1,
            '>' => depth -= 1,
            _ if depth == 0 => out.push(c),
            _ => {}
        }
    }
    out.split(' ')
        .map(|word| word.rsplit("::").next().unwrap_or(word))
        .collect::<Vec<_>>()
        .join(" ")
}

fn parent_name(cell: &str, parent: &Symbol) -> bool {
    if parent.kind == SymbolKind::Impl {
        return short_impl_name(&parent.name) == short_impl_name(cell);
    }
    parent.name == cell
}

/// The Rust columns: `flags` / `modifiers` (visibility and the modifiers
/// `const`, `async`, `unsafe`, `static`, `bodiless`; other words pass),
/// `attributes (in order)`, `generics`.
fn column(column: &str, cell: &str, symbol: &Symbol) -> Option<Option<String>> {
    let complaint = |what: &str| Some(Some(format!("{column}: expected {cell:?}, got {what}")));
    match column {
        "flags" | "modifiers" => {
            if is_dash(cell) {
                return Some(None);
            }
            for word in cell
                .split(',')
                .map(|w| w.trim().trim_matches('*').trim_matches('`'))
            {
                let ok = match word {
                    "pub" | "pub(crate)" | "pub(super)" => {
                        symbol.visibility.as_deref() == Some(word)
                    }
                    "const" => symbol.has(Modifier::Const),
                    "async" => symbol.has(Modifier::Async),
                    "unsafe" => symbol.has(Modifier::Unsafe),
                    "static" => symbol.has(Modifier::Static),
                    "bodiless" => symbol.has(Modifier::Bodiless),
                    _ => true,
                };
                if !ok {
                    return complaint(&format!("{:?} {:?}", symbol.visibility, symbol.modifiers));
                }
            }
            Some(None)
        }
        "attributes (in order)" => {
            let expected = backticked(cell);
            if expected != symbol.decorators {
                return complaint(&format!("{:?}", symbol.decorators));
            }
            Some(None)
        }
        "generics" => {
            let expected = backticked(cell).into_iter().next().unwrap_or_default();
            let actual = render_generics(symbol);
            if expected != actual {
                return complaint(&actual);
            }
            Some(None)
        }
        _ => None,
    }
}

fn render_generics(symbol: &Symbol) -> String {
    if symbol.type_parameters.is_empty() {
        return String::new();
    }
    let items: Vec<String> = symbol
        .type_parameters
        .iter()
        .map(|p| {
            let mut item = match p.kind {
                outline_core::TypeParameterKind::Const => format!("const {}", p.name),
                _ => p.name.clone(),
            };
            if let Some(bound) = &p.bound {
                item.push_str(&format!(": {bound}"));
            }
            item
        })
        .collect();
    format!("<{}>", items.join(", "))
}

#[test]
fn rust_cases_meet_their_expected_facts() {
    let rules = Rules {
        kind,
        qualifier,
        parent_name,
        column,
    };
    expect::check_language("rust", &rules);
}

#[test]
fn impl_labels_shorten_to_the_tables_words() {
    assert_eq!(
        short_impl_name("impl fmt::Display for Config"),
        "impl Display for Config"
    );
    assert_eq!(
        short_impl_name("impl From<Vec<T>> for Stack<T>"),
        "impl From for Stack"
    );
}
