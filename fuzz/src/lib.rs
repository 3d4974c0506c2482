//! What every fuzz target checks on an outline, besides "no panic".

use ast_outline::{FileOutline, Symbol, TextOptions, json_line, render_text};

/// Checks the model's invariants on `outline` and runs both renderers.
/// Panics (which libFuzzer reports as a crash) when one does not hold:
/// lines 1-based and inclusive (`start <= end`), every symbol inside the file
/// and inside its parent, every name and signature one line.
pub fn check(outline: &FileOutline) {
    let last = outline.line_count.max(1);
    for diagnostic in &outline.diagnostics {
        assert!(
            diagnostic.line >= 1 && diagnostic.column >= 1,
            "{diagnostic:?}"
        );
        assert!(!diagnostic.message.contains('\n'), "{diagnostic:?}");
    }
    for symbol in &outline.symbols {
        check_symbol(symbol, 1, last);
    }
    let text = render_text(outline, &TextOptions::default());
    assert!(text.starts_with(&outline.path));
    let json = json_line(outline).expect("an outline serialises");
    assert!(!json.contains('\n'));
}

fn check_symbol(symbol: &Symbol, first: u32, last: u32) {
    assert!(
        first <= symbol.start_line
            && symbol.start_line <= symbol.end_line
            && symbol.end_line <= last,
        "{}: L{}-{} outside L{first}-{last}",
        symbol.id,
        symbol.start_line,
        symbol.end_line
    );
    for text in [
        Some(&symbol.name),
        Some(&symbol.qualname),
        symbol.signature.as_ref(),
    ]
    .into_iter()
    .flatten()
    {
        assert!(
            !text.contains(['\n', '\r']),
            "{}: {text:?} is not one line",
            symbol.id
        );
    }
    for child in &symbol.children {
        check_symbol(child, symbol.start_line, symbol.end_line);
    }
}
