//! The [`Outline`] trait that each language crate implements, its options, and
//! [`finish`], which turns what an adapter extracted into a [`FileOutline`]
//! (qualnames, ids, line count).

use crate::id::symbol_id;
use crate::language::Language;
use crate::line_index::{LineIndex, strip_bom};
use crate::model::{Diagnostic, FileOutline, Import, Symbol, SymbolKind};

/// Options that change what an adapter extracts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutlineOptions {
    /// A function, method or block whose body spans more than this many lines has
    /// its top-level control-flow statements reported as [`SymbolKind::Block`]
    /// children (see [`crate::blocks`]). Default 100.
    pub block_threshold: u32,
}

impl Default for OutlineOptions {
    fn default() -> Self {
        OutlineOptions {
            block_threshold: crate::blocks::DEFAULT_BLOCK_THRESHOLD,
        }
    }
}

/// What an adapter extracts from one source text, before ids and qualnames are
/// assigned by [`finish`].
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Extracted {
    /// Top-level symbols in source order. `id` and `qualname` may be left empty.
    pub symbols: Vec<Symbol>,
    /// Imports in source order.
    pub imports: Vec<Import>,
    /// Syntax errors and notes.
    pub diagnostics: Vec<Diagnostic>,
    /// `true` when the parser recovered from errors.
    pub partial: bool,
    /// First line of the module's documentation, when there is one.
    pub doc: Option<String>,
}

/// A language adapter: turns one language's source text into outline symbols.
///
/// Implementations live in the `lang-*` crates, map their parser's tree to the
/// model and do no I/O. They must never panic on any input: a syntax error becomes
/// a [`Diagnostic`] and a partial result.
pub trait Outline {
    /// Extracts symbols, imports and diagnostics from `source`, a text without a
    /// byte-order mark, parsed as `language` (one of the languages this adapter
    /// handles).
    fn extract(&self, source: &str, language: Language, options: &OutlineOptions) -> Extracted;

    /// The complete outline of one file: strips a leading BOM, extracts, and
    /// assigns qualnames and ids with [`finish`]. `path` is only used to build ids.
    fn outline(
        &self,
        path: &str,
        language: Language,
        source: &str,
        options: &OutlineOptions,
    ) -> FileOutline {
        let source = strip_bom(source);
        finish(
            path,
            language,
            source,
            self.extract(source, language, options),
        )
    }
}

/// Builds the [`FileOutline`]: counts lines of `source` (BOM already stripped),
/// assigns every symbol its qualname (Python `__qualname__` without `<locals>`;
/// blocks add nothing) and id (`PATH:START_LINE:QUALNAME`), and sorts the
/// diagnostics by position.
pub fn finish(path: &str, language: Language, source: &str, extracted: Extracted) -> FileOutline {
    let Extracted {
        mut symbols,
        imports,
        mut diagnostics,
        partial,
        doc,
    } = extracted;
    assign_names(path, "", &mut symbols);
    diagnostics.sort_by_key(|d| (d.line, d.column));
    FileOutline {
        path: path.to_owned(),
        language,
        line_count: LineIndex::new(source).line_count(),
        doc,
        symbols,
        imports,
        diagnostics,
        partial,
    }
}

fn assign_names(path: &str, parent_qualname: &str, symbols: &mut [Symbol]) {
    for symbol in symbols {
        symbol.qualname = if symbol.kind == SymbolKind::Block {
            parent_qualname.to_owned()
        } else if parent_qualname.is_empty() {
            symbol.name.clone()
        } else {
            format!("{parent_qualname}.{}", symbol.name)
        };
        symbol.id = symbol_id(path, symbol.start_line, &symbol.qualname);
        let qualname = symbol.qualname.clone();
        assign_names(path, &qualname, &mut symbol.children);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn qualnames_skip_blocks_and_ids_carry_start_lines() {
        let mut method = Symbol::new("m", SymbolKind::Method, 3, 4);
        method
            .children
            .push(Symbol::new("if x", SymbolKind::Block, 4, 4));
        let mut class = Symbol::new("C", SymbolKind::Class, 2, 4);
        class.children.push(method);
        let mut block = Symbol::new("if __name__ == \"__main__\"", SymbolKind::Block, 6, 7);
        block
            .children
            .push(Symbol::new("g", SymbolKind::Function, 7, 7));
        let extracted = Extracted {
            symbols: vec![class, block],
            ..Extracted::default()
        };
        let outline = finish("a.py", Language::Python, "\n\n\n\n\n\n\n", extracted);
        let mut ids = Vec::new();
        outline.walk(|s| ids.push((s.qualname.clone(), s.id.clone())));
        assert_eq!(
            ids,
            [
                ("C".to_owned(), "a.py:2:C".to_owned()),
                ("C.m".to_owned(), "a.py:3:C.m".to_owned()),
                ("C.m".to_owned(), "a.py:4:C.m".to_owned()),
                (String::new(), "a.py:6:".to_owned()),
                ("g".to_owned(), "a.py:7:g".to_owned()),
            ]
        );
        assert_eq!(outline.line_count, 7);
    }
}
