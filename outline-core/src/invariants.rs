//! The model's invariants, checked on a finished outline: what the fuzz
//! targets (`fuzz/`) and the regression tests of their findings assert.

use crate::model::{FileOutline, Symbol};
use crate::render::{TextOptions, json_line, render_text};

/// Every way `outline` breaks the model's invariants, one message each (empty
/// when it keeps them all):
/// - every diagnostic is at line ≥ 1 and column ≥ 1, with a one-line message;
/// - every symbol's lines are 1-based and inclusive (`start_line <= end_line`),
///   inside the file (`1..=max(line_count, 1)`) and inside its parent's lines;
/// - every name, qualname and signature is one line (no `\n`, no `\r`);
/// - the text rendering starts with the path and the JSON line is one line.
pub fn violations(outline: &FileOutline) -> Vec<String> {
    let mut found = Vec::new();
    for d in &outline.diagnostics {
        if d.line < 1 || d.column < 1 || d.message.contains(['\n', '\r']) {
            found.push(format!("diagnostic {d:?}"));
        }
    }
    let last = outline.line_count.max(1);
    for symbol in &outline.symbols {
        check_symbol(symbol, 1, last, &mut found);
    }
    if !render_text(outline, &TextOptions::default()).starts_with(&outline.path) {
        found.push("the text outline does not start with the path".into());
    }
    match json_line(outline) {
        Ok(json) if json.contains('\n') => found.push("the JSON line has a newline".into()),
        Ok(_) => {}
        Err(error) => found.push(format!("the outline does not serialise: {error}")),
    }
    found
}

fn check_symbol(symbol: &Symbol, first: u32, last: u32, found: &mut Vec<String>) {
    if !(first <= symbol.start_line
        && symbol.start_line <= symbol.end_line
        && symbol.end_line <= last)
    {
        found.push(format!(
            "{}: L{}-{} outside L{first}-{last}",
            symbol.id, symbol.start_line, symbol.end_line
        ));
    }
    for text in [
        Some(&symbol.name),
        Some(&symbol.qualname),
        symbol.signature.as_ref(),
    ]
    .into_iter()
    .flatten()
    {
        if text.contains(['\n', '\r']) {
            found.push(format!("{}: {text:?} is not one line", symbol.id));
        }
    }
    for child in &symbol.children {
        check_symbol(child, symbol.start_line, symbol.end_line, found);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::outline::{Extracted, finish};
    use crate::{Language, SymbolKind};

    fn outline() -> FileOutline {
        let mut f = Symbol::new("f", SymbolKind::Function, 1, 5);
        f.children
            .push(Symbol::new("g", SymbolKind::Function, 2, 3));
        let extracted = Extracted {
            symbols: vec![f],
            ..Extracted::default()
        };
        finish("a.py", Language::Python, &"x\n".repeat(10), extracted)
    }

    #[test]
    fn a_finished_outline_keeps_them() {
        assert_eq!(violations(&outline()), Vec::<String>::new());
    }

    #[test]
    fn a_child_outside_its_parent_and_a_two_line_name_are_reported() {
        let mut broken = outline();
        broken.symbols[0].children[0].end_line = 7;
        assert_eq!(violations(&broken), ["a.py:2:f.g: L2-7 outside L1-5"]);
        let mut broken = outline();
        broken.symbols[0].name = "f\ng".into();
        assert_eq!(violations(&broken), ["a.py:1:f: \"f\\ng\" is not one line"]);
        let mut broken = outline();
        broken.symbols[0].end_line = 11;
        assert_eq!(violations(&broken), ["a.py:1:f: L1-11 outside L1-10"]);
    }
}
