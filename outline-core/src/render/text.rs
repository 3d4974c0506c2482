//! The text format: one header line per file, then one line per symbol.
//!
//! ```text
//! shop/orders.py (python, 120 lines) — Order storage.
//! imports: json, typing.{Any, Optional}, .models.{Order}
//! L5-40 class OrderRepository(Base)
//!   L12-30 @cached def find_by_id(self, order_id: int) -> Order | None — Load one order.
//!     L14-29 (block) for row in rows
//! ```
//!
//! Each symbol line starts with its indentation (two spaces per level), then
//! `L<start>-<end>` (also when both are the same line), decorators, the signature
//! and ` — ` with the first doc line. A file with syntax errors says so in its
//! header and lists the first errors as `! L<line>:<column> <message>` lines.

use std::fmt::Write as _;

use crate::language::Language;
use crate::model::{FileOutline, Severity, Symbol, SymbolKind};
use crate::text::{escape_controls, plural, truncate};

/// Options of the text renderer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TextOptions {
    /// Longest decorator shown, in characters (the JSON keeps the full text).
    pub max_decorator_chars: usize,
    /// Most decorators shown per symbol; the rest are counted.
    pub max_decorators: usize,
    /// Most diagnostics listed per file.
    pub max_diagnostics: usize,
    /// Longest imports line, in characters.
    pub max_imports_chars: usize,
    /// End each symbol line with its id, as ` id=PATH:START_LINE:QUALNAME`, so
    /// a reader (an agent) can ask for that symbol without the JSON output.
    pub ids: bool,
}

impl Default for TextOptions {
    fn default() -> Self {
        TextOptions {
            max_decorator_chars: 80,
            max_decorators: 4,
            max_diagnostics: 5,
            max_imports_chars: 300,
            ids: false,
        }
    }
}

/// The text outline of one file, ending with a newline.
pub fn render_text(outline: &FileOutline, options: &TextOptions) -> String {
    let mut out = String::new();
    write_header(&mut out, outline);
    write_diagnostics(&mut out, outline, options);
    write_imports(&mut out, outline, options);
    for symbol in &outline.symbols {
        write_symbol(&mut out, symbol, 0, options);
    }
    out
}

fn write_header(out: &mut String, outline: &FileOutline) {
    let lines = plural(outline.line_count as usize, "line");
    let path = escape_controls(&outline.path);
    let _ = write!(out, "{path} ({}, {lines}", outline.language);
    if outline.not_outlined().is_some() {
        out.push_str("; not outlined");
    } else if outline.partial {
        let errors = plural(outline.error_count(), "syntax error");
        let _ = write!(out, "; partial outline: {errors}");
        if outline.omitted_diagnostics > 0 {
            let _ = write!(out, " listed, {} more not", outline.omitted_diagnostics);
        }
    }
    out.push(')');
    if let Some(doc) = &outline.doc {
        let _ = write!(out, " — {doc}");
    }
    out.push('\n');
}

fn write_diagnostics(out: &mut String, outline: &FileOutline, options: &TextOptions) {
    for d in outline.diagnostics.iter().take(options.max_diagnostics) {
        let severity = match d.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
        };
        let _ = writeln!(out, "! L{}:{} {severity}: {}", d.line, d.column, d.message);
    }
    let more = outline
        .diagnostics
        .len()
        .saturating_sub(options.max_diagnostics);
    if more > 0 {
        let _ = writeln!(out, "! … {}", plural(more, "more diagnostic"));
    }
}

fn write_imports(out: &mut String, outline: &FileOutline, options: &TextOptions) {
    if outline.imports.is_empty() {
        return;
    }
    let items: Vec<String> = outline
        .imports
        .iter()
        .map(|import| {
            let mut item = ".".repeat(import.level as usize);
            item.push_str(import.module.as_deref().unwrap_or_default());
            if let Some(alias) = &import.alias {
                let _ = write!(item, " as {alias}");
            }
            if !import.names.is_empty() {
                let names: Vec<String> = import
                    .names
                    .iter()
                    .map(|n| match &n.alias {
                        Some(alias) => format!("{} as {alias}", n.name),
                        None => n.name.clone(),
                    })
                    .collect();
                let separator = match (&import.module, outline.language) {
                    (None, _) => "",
                    (Some(_), Language::Rust) => "::",
                    (Some(_), _) => ".",
                };
                let _ = write!(item, "{separator}{{{}}}", names.join(", "));
            }
            item
        })
        .collect();
    let line = truncate(&items.join(", "), options.max_imports_chars);
    let _ = writeln!(out, "imports: {line}");
}

fn write_symbol(out: &mut String, symbol: &Symbol, depth: usize, options: &TextOptions) {
    for _ in 0..depth {
        out.push_str("  ");
    }
    let _ = write!(out, "L{}-{}", symbol.start_line, symbol.end_line);
    for decorator in symbol.decorators.iter().take(options.max_decorators) {
        out.push(' ');
        if !decorator.starts_with(['@', '#']) {
            out.push('@');
        }
        out.push_str(&truncate(decorator, options.max_decorator_chars));
    }
    let more = symbol
        .decorators
        .len()
        .saturating_sub(options.max_decorators);
    if more > 0 {
        let _ = write!(out, " (+{more} more decorators)");
    }
    out.push(' ');
    match (&symbol.signature, symbol.kind) {
        (_, SymbolKind::Block) => {
            let _ = write!(out, "(block) {}", symbol.name);
        }
        (Some(signature), _) => out.push_str(signature),
        (None, kind) => {
            let _ = write!(out, "{} {}", kind.as_str(), symbol.name);
        }
    }
    if let Some(doc) = &symbol.doc {
        let _ = write!(out, " — {doc}");
    }
    if options.ids {
        let _ = write!(out, " id={}", escape_controls(&symbol.id));
    }
    out.push('\n');
    for child in &symbol.children {
        write_symbol(out, child, depth + 1, options);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Diagnostic, Import, ImportedName};
    use crate::outline::{Extracted, finish};
    use crate::{Language, Symbol};

    #[test]
    fn renders_header_imports_and_nested_symbols() {
        let mut class = Symbol::new("Repo", SymbolKind::Class, 3, 12);
        class.signature = Some("class Repo(Base)".into());
        class.doc = Some("Stores orders.".into());
        let mut method = Symbol::new("find", SymbolKind::Method, 5, 12);
        method.decorators = vec!["cached".into()];
        method.signature = Some("def find(self, key: int) -> Order".into());
        method
            .children
            .push(Symbol::new("for row in rows", SymbolKind::Block, 7, 7));
        class.children.push(method);
        let extracted = Extracted {
            symbols: vec![class],
            imports: vec![
                Import {
                    line: 1,
                    end_line: 1,
                    module: Some("json".into()),
                    level: 0,
                    alias: None,
                    names: vec![],
                },
                Import {
                    line: 2,
                    end_line: 2,
                    module: None,
                    level: 1,
                    alias: None,
                    names: vec![ImportedName {
                        name: "models".into(),
                        alias: Some("m".into()),
                    }],
                },
            ],
            diagnostics: vec![Diagnostic {
                line: 9,
                column: 4,
                severity: Severity::Error,
                message: "Expected ':', found newline".into(),
            }],
            partial: true,
            doc: None,
        };
        let outline = finish("repo.py", Language::Python, &"x\n".repeat(12), extracted);
        let text = render_text(&outline, &TextOptions::default());
        assert_eq!(
            text,
            "repo.py (python, 12 lines; partial outline: 1 syntax error)\n\
             ! L9:4 error: Expected ':', found newline\n\
             imports: json, .{models as m}\n\
             L3-12 class Repo(Base) — Stores orders.\n  \
             L5-12 @cached def find(self, key: int) -> Order\n    \
             L7-7 (block) for row in rows\n"
        );
        let with_ids = render_text(
            &outline,
            &TextOptions {
                ids: true,
                ..TextOptions::default()
            },
        );
        assert!(
            with_ids.contains(
                "  L5-12 @cached def find(self, key: int) -> Order id=repo.py:5:Repo.find\n"
            ),
            "{with_ids}"
        );
        assert!(with_ids.contains("(block) for row in rows id=repo.py:7:Repo.find\n"));
    }
}
