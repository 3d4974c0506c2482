//! The facts in each `tests/fixtures/python/*.expect.md` (copied from the shared
//! cases found in other tools' bug reports), checked against our outline. The
//! table reader lives in `common/expect.rs`; the snapshots in `golden.rs` pin
//! the whole output, while this test states, in the cases' own words, what is
//! right.

mod common;

use common::expect::{self, Rules};
use outline_core::{Accessor, Modifier, Symbol};

fn python_qualifier(qualifier: &str, symbol: &Symbol) -> Option<bool> {
    Some(match qualifier {
        "static" => symbol.has(Modifier::Static),
        "class" => symbol.has(Modifier::Classmethod),
        "property getter" => symbol.accessor == Some(Accessor::Getter),
        "property setter" => symbol.accessor == Some(Accessor::Setter),
        "property deleter" => symbol.accessor == Some(Accessor::Deleter),
        _ => return None,
    })
}

#[test]
fn python_cases_meet_their_expected_facts() {
    let rules = Rules {
        qualifier: python_qualifier,
        ..Rules::default()
    };
    expect::check_language("python", &rules);
}

#[test]
fn table_parser_reads_escaped_pipes_and_backticks() {
    assert_eq!(
        expect::split_row("| a | `x \\| y` | c |"),
        ["a", "`x | y`", "c"]
    );
    assert_eq!(
        expect::backticked("`self`, `port: int = 8080`"),
        ["self", "port: int = 8080"]
    );
    assert_eq!(expect::clean_name("`__init__`"), "__init__");
    assert_eq!(
        expect::expected_kind(&Rules::default(), "method (static)").1,
        "static"
    );
    assert_eq!(
        expect::expected_kind(&Rules::default(), "type alias").0,
        [outline_core::SymbolKind::TypeAlias]
    );
}
