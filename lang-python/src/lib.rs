//! # lang-python
//!
//! The Python adapter of ast-outline: implements [`outline_core::Outline`] on
//! ruff's recovering parser (`ruff_python_parser`), so a file with syntax errors
//! still yields every symbol the parser recovered, with the errors as
//! diagnostics and the outline marked partial.
//!
//! Lines equal CPython's `ast` (`lineno`/`end_lineno`), except that a decorated
//! definition starts at its first decorator. Syntax of every Python version the
//! parser knows is accepted (PEP 695/696 generics, `match`, PEP 701 f-strings),
//! whatever Python is installed.
//!
//! ```
//! use lang_python::PythonOutline;
//! use outline_core::{Language, Outline, OutlineOptions};
//!
//! let source = "class Config:\n    def load(self, path: str) -> 'Config':\n        ...\n";
//! let outline = PythonOutline.outline("config.py", Language::Python, source, &OutlineOptions::default());
//! let load = &outline.symbols[0].children[0];
//! assert_eq!(load.id, "config.py:2:Config.load");
//! assert_eq!(load.signature.as_deref(), Some("def load(self, path: str) -> 'Config'"));
//! ```
//!
//! Architecture invariant: this crate only maps ruff's tree to the core model;
//! it does no I/O.

mod docstring;
mod encoding;
mod imports;
mod nesting;
mod recovery;
mod references;
mod signature;
mod source;
mod symbols;
mod types;

use outline_core::xref::Facts;
use outline_core::{Diagnostic, Extracted, Language, Outline, OutlineOptions, Severity};
use ruff_python_ast::{Mod, PythonVersion};
use ruff_python_parser::{Mode, ParseOptions, Parsed, parse_unchecked};

pub use crate::encoding::declared_encoding;
use crate::source::Source;
use crate::symbols::Walker;

/// The Python outline adapter (`.py`, `.pyi`, `.pyw`).
#[derive(Debug, Clone, Copy, Default)]
pub struct PythonOutline;

impl Outline for PythonOutline {
    /// Brackets nested deeper than [`OutlineOptions::max_nesting`] are left
    /// out (blanked, lines kept) before parsing, with an error diagnostic.
    fn extract(&self, text: &str, _language: Language, options: &OutlineOptions) -> Extracted {
        let max = usize::try_from(options.max_nesting).unwrap_or(usize::MAX);
        let deep = nesting::too_deep(text, max);
        outline_core::nesting::extract_shallow(text, &deep, options.max_nesting, |text| {
            extract_text(text, options, None)
        })
    }

    /// The references of the whole module are taken from the same parse,
    /// including the statements a syntax error damaged (as far as ruff's
    /// recovery kept them); see the `references` module for the scoping rules.
    fn extract_with_facts(
        &self,
        text: &str,
        _language: Language,
        options: &OutlineOptions,
    ) -> (Extracted, Facts) {
        let max = usize::try_from(options.max_nesting).unwrap_or(usize::MAX);
        let deep = nesting::too_deep(text, max);
        let mut facts = Facts {
            supported: true,
            ..Facts::default()
        };
        let extracted =
            outline_core::nesting::extract_shallow(text, &deep, options.max_nesting, |text| {
                extract_text(text, options, Some(&mut facts))
            });
        (extracted, facts)
    }
}

/// The outline of `text`, parsed whole; with `facts`, also its
/// cross-reference facts.
fn extract_text(text: &str, options: &OutlineOptions, facts: Option<&mut Facts>) -> Extracted {
    let parsed = parse_unchecked(text, parse_options());
    let source = Source::new(text, parsed.tokens());
    let diagnostic = |(offset, message): (usize, String)| Diagnostic {
        line: source.index.line(offset),
        column: source.index.column(offset),
        severity: Severity::Error,
        message,
    };
    let Some(module) = parsed.syntax().as_module() else {
        return Extracted {
            diagnostics: error_list(&parsed).into_iter().map(diagnostic).collect(),
            partial: true,
            ..Extracted::default()
        };
    };
    if let Some(facts) = facts {
        *facts = references::module_facts(&source, &module.body);
    }
    let walker = Walker {
        source: &source,
        options,
    };
    let errors = error_list(&parsed);
    let (mut symbols, errors) = if errors.is_empty() {
        (walker.module(&module.body), errors)
    } else {
        let recovered = recovery::module_symbols(text, &module.body, errors, &walker, options, 0);
        (recovered.symbols, recovered.errors)
    };
    contain_children(&mut symbols);
    let diagnostics: Vec<Diagnostic> = errors.into_iter().map(diagnostic).collect();
    Extracted {
        symbols,
        imports: imports::module_imports(&source, &module.body),
        partial: !diagnostics.is_empty(),
        diagnostics,
        doc: docstring::docstring_first_line(&module.body),
    }
}

/// The parser's errors as (byte offset, one-line message), in its order.
pub(crate) fn error_list(parsed: &Parsed<Mod>) -> Vec<(usize, String)> {
    parsed
        .errors()
        .iter()
        .map(|error| {
            (
                error.location.start().to_usize(),
                outline_core::text::collapse_whitespace(&error.error.to_string()),
            )
        })
        .collect()
}

/// Module mode, with the syntax of the newest Python ruff knows.
pub(crate) fn parse_options() -> ParseOptions {
    ParseOptions::from(Mode::Module).with_target_version(PythonVersion::PY314)
}

/// Makes every symbol end no earlier than its last child. Recovery from
/// indentation errors cuts a definition short where its indentation says it
/// ends, while the parser may have put later statements inside it whose
/// indentation is hidden (found by fuzzing: a method cut at line 6 with a
/// child at line 9); the model requires children inside their parent.
fn contain_children(symbols: &mut [outline_core::Symbol]) {
    for symbol in symbols {
        contain_children(&mut symbol.children);
        if let Some(last) = symbol.children.iter().map(|c| c.end_line).max() {
            symbol.end_line = symbol.end_line.max(last);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 8,000 statements that each fail around a definition (user trial: 32,000
    /// took 10 s, each error's statement searched from the start): one
    /// diagnostic each, both definitions kept.
    #[test]
    fn eight_thousand_errors_each_reported_once() {
        let errors = "1 = 2\n".repeat(4000);
        let text = format!("{errors}def middle():\n    pass\n{errors}def after():\n    pass\n");
        let extracted = PythonOutline.extract(&text, Language::Python, &OutlineOptions::default());
        let lines: Vec<u32> = extracted.diagnostics.iter().map(|d| d.line).collect();
        let expected: Vec<u32> = (1..=4000).chain(4003..=8002).collect();
        assert_eq!(lines, expected);
        assert!(extracted.partial);
        let names: Vec<(&str, u32)> = extracted
            .symbols
            .iter()
            .map(|s| (s.name.as_str(), s.start_line))
            .collect();
        assert_eq!(names, [("middle", 4001), ("after", 8003)]);
    }
}
