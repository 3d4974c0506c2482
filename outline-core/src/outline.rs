//! The [`Outline`] trait that each language crate implements, its options, and
//! [`finish`], which turns what an adapter extracted into a [`FileOutline`]
//! (qualnames, ids, line count).

use crate::id::symbol_id;
use crate::language::Language;
use crate::line_index::{count_lines, strip_bom};
use crate::model::{Diagnostic, FileOutline, Import, Severity, Symbol, SymbolKind};
use crate::text::{breaks_line, escape_controls};
use crate::xref::Facts;

/// Options that change what an adapter extracts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutlineOptions {
    /// A function, method or block whose body spans more than this many lines has
    /// its top-level control-flow statements reported as [`SymbolKind::Block`]
    /// children (see [`crate::blocks`]). Default 100.
    pub block_threshold: u32,
    /// Deepest bracket nesting (`(`, `[`, `{`) that is parsed. Parsers and
    /// tree walks recurse once per level, so text nested deeper is not given
    /// to the parser: the TypeScript/JavaScript statement holding it is
    /// reported and left out; in Python and Rust the text inside the
    /// brackets beyond this depth is left out. Either way an error diagnostic
    /// says where. Default [`DEFAULT_MAX_NESTING`] (2,000); real code stays
    /// far below it. Values above [`MAX_NESTING_CAP`] (5,000) are treated as
    /// that cap by [`Outline::outline`] (see [`OutlineOptions::nesting_limit`]):
    /// deeper nesting overflows even a 256 MiB stack in some forms.
    pub max_nesting: u32,
}

/// Largest [`OutlineOptions::max_nesting`] honoured. Measured through the
/// `ast-outline` binary (debug build, 256 MiB parser stack): TypeScript
/// class expressions (`class { static x = class { … } }`), object types
/// (`{ a: { a: … } }`) and braced arrow bodies nested 8,000–10,000 deep
/// overflow the stack, 7,000 do not; this cap keeps a margin below them.
pub const MAX_NESTING_CAP: u32 = 5_000;

impl OutlineOptions {
    /// [`OutlineOptions::max_nesting`] clamped to [`MAX_NESTING_CAP`]: the
    /// nesting depth adapters actually parse.
    pub fn nesting_limit(&self) -> u32 {
        self.max_nesting.min(MAX_NESTING_CAP)
    }
}

/// Default of [`OutlineOptions::max_nesting`]: brackets nested deeper than
/// this are not parsed.
pub const DEFAULT_MAX_NESTING: u32 = 2_000;

impl Default for OutlineOptions {
    fn default() -> Self {
        OutlineOptions {
            block_threshold: crate::blocks::DEFAULT_BLOCK_THRESHOLD,
            max_nesting: DEFAULT_MAX_NESTING,
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

    /// [`Outline::extract`] for the file at `path` (only its name is looked
    /// at: a TypeScript declaration file, `.d.ts`, is parsed as one). The
    /// default ignores the path.
    fn extract_file(
        &self,
        path: &str,
        source: &str,
        language: Language,
        options: &OutlineOptions,
    ) -> Extracted {
        let _ = path;
        self.extract(source, language, options)
    }

    /// The complete outline of one file: strips a leading BOM, extracts (with
    /// `max_nesting` clamped to [`MAX_NESTING_CAP`]), and assigns qualnames
    /// and ids with [`finish`]. `path` is only used to build ids.
    fn outline(
        &self,
        path: &str,
        language: Language,
        source: &str,
        options: &OutlineOptions,
    ) -> FileOutline {
        let source = strip_bom(source);
        let options = OutlineOptions {
            max_nesting: options.nesting_limit(),
            ..options.clone()
        };
        finish(
            path,
            language,
            source,
            self.extract_file(path, source, language, &options),
        )
    }

    /// Extracts the outline and the cross-reference [`Facts`] from one parse.
    /// The default, for an adapter without fact extraction, returns
    /// [`Facts::default`] (`supported: false`).
    fn extract_with_facts(
        &self,
        source: &str,
        language: Language,
        options: &OutlineOptions,
    ) -> (Extracted, Facts) {
        (self.extract(source, language, options), Facts::default())
    }

    /// [`Outline::extract_with_facts`] for the file at `path` (see
    /// [`Outline::extract_file`]).
    fn extract_file_with_facts(
        &self,
        path: &str,
        source: &str,
        language: Language,
        options: &OutlineOptions,
    ) -> (Extracted, Facts) {
        let _ = path;
        self.extract_with_facts(source, language, options)
    }

    /// [`Outline::outline`] and the file's cross-reference [`Facts`], from the
    /// same parse. The outline is the same as [`Outline::outline`] gives.
    fn outline_with_facts(
        &self,
        path: &str,
        language: Language,
        source: &str,
        options: &OutlineOptions,
    ) -> (FileOutline, Facts) {
        let source = strip_bom(source);
        let options = OutlineOptions {
            max_nesting: options.nesting_limit(),
            ..options.clone()
        };
        let (extracted, facts) = self.extract_file_with_facts(path, source, language, &options);
        (finish(path, language, source, extracted), facts)
    }
}

/// Deepest nesting of symbols kept; deeper ones are dropped with a warning.
/// Real code stays far below it; it keeps the output bounded (each level repeats
/// the qualname) and within the nesting limits of JSON readers (serde_json
/// refuses more than 128 levels by default, that is about 62 symbol levels).
pub const MAX_SYMBOL_DEPTH: usize = 50;

/// Most diagnostics kept per file; a last warning counts the rest.
pub const MAX_DIAGNOSTICS: usize = 100;

/// Builds the [`FileOutline`]: counts lines of `source` (BOM already stripped),
/// assigns every symbol its qualname (Python `__qualname__` without `<locals>`;
/// blocks add nothing) and id (`PATH:START_LINE:QUALNAME`), and sorts the
/// diagnostics by position. It also enforces the model's invariants whatever
/// the adapter produced: every text is one line (control characters escaped,
/// see [`crate::text::escape_controls`]), nesting stops at
/// [`MAX_SYMBOL_DEPTH`] and diagnostics at [`MAX_DIAGNOSTICS`], each cut
/// reported as a warning.
pub fn finish(path: &str, language: Language, source: &str, extracted: Extracted) -> FileOutline {
    let Extracted {
        mut symbols,
        imports,
        mut diagnostics,
        partial,
        mut doc,
    } = extracted;
    let mut too_deep = TooDeep::default();
    assign_names(path, "", &mut symbols, 1, &mut too_deep);
    diagnostics.sort_by_key(|d| (d.line, d.column));
    let mut omitted_diagnostics = 0;
    if diagnostics.len() > MAX_DIAGNOSTICS {
        let omitted = diagnostics.len() - MAX_DIAGNOSTICS;
        omitted_diagnostics = u32::try_from(omitted).unwrap_or(u32::MAX);
        diagnostics.truncate(MAX_DIAGNOSTICS);
        let line = diagnostics.last().map_or(1, |d| d.line);
        diagnostics.push(Diagnostic {
            line,
            column: 1,
            severity: Severity::Warning,
            message: format!("{omitted} more diagnostics after this one are not listed"),
        });
    }
    if let Some(line) = too_deep.first_line {
        diagnostics.push(Diagnostic {
            line,
            column: 1,
            severity: Severity::Warning,
            message: format!(
                "{} symbols nested deeper than {MAX_SYMBOL_DEPTH} levels are not listed",
                too_deep.count
            ),
        });
    }
    for diagnostic in &mut diagnostics {
        clean(&mut diagnostic.message);
    }
    if let Some(doc) = &mut doc {
        clean(doc);
    }
    FileOutline {
        path: path.to_owned(),
        language,
        line_count: count_lines(source),
        doc,
        symbols,
        imports,
        diagnostics,
        partial,
        omitted_diagnostics,
    }
}

/// Symbols dropped for nesting deeper than [`MAX_SYMBOL_DEPTH`].
#[derive(Default)]
struct TooDeep {
    count: usize,
    first_line: Option<u32>,
}

fn assign_names(
    path: &str,
    parent_qualname: &str,
    symbols: &mut [Symbol],
    depth: usize,
    too_deep: &mut TooDeep,
) {
    for symbol in symbols {
        clean_symbol(symbol);
        symbol.qualname = if symbol.kind == SymbolKind::Block {
            parent_qualname.to_owned()
        } else if parent_qualname.is_empty() {
            symbol.name.clone()
        } else {
            format!("{parent_qualname}.{}", symbol.name)
        };
        symbol.id = symbol_id(path, symbol.start_line, &symbol.qualname);
        if depth >= MAX_SYMBOL_DEPTH && !symbol.children.is_empty() {
            let mut count = 0;
            for child in &symbol.children {
                child.walk(&mut |_| count += 1);
            }
            too_deep.count += count;
            let line = symbol.children[0].start_line;
            too_deep.first_line = Some(too_deep.first_line.map_or(line, |l| l.min(line)));
            symbol.children.clear();
            continue;
        }
        let qualname = symbol.qualname.clone();
        assign_names(path, &qualname, &mut symbol.children, depth + 1, too_deep);
    }
}

/// Escapes control characters in place (see [`escape_controls`]).
fn clean(text: &mut String) {
    // Printable ASCII and tabs (nearly every name and signature) never break
    // a line: checked byte-wise first, which is much cheaper.
    let plain = |b: &u8| (b' '..=b'~').contains(b) || *b == b'\t';
    if !text.as_bytes().iter().all(plain) && text.chars().any(breaks_line) {
        *text = escape_controls(text);
    }
}

fn clean_symbol(symbol: &mut Symbol) {
    let Symbol {
        name,
        signature,
        decorators,
        visibility,
        type_parameters,
        parameters,
        returns,
        bases,
        keywords,
        annotation,
        value,
        doc,
        ..
    } = symbol;
    clean(name);
    let optional = [signature, visibility, returns, annotation, value, doc];
    for text in optional.into_iter().flatten() {
        clean(text);
    }
    for text in decorators.iter_mut().chain(bases).chain(keywords) {
        clean(text);
    }
    for parameter in parameters {
        clean(&mut parameter.name);
        for text in [&mut parameter.annotation, &mut parameter.default]
            .into_iter()
            .flatten()
        {
            clean(text);
        }
    }
    for parameter in type_parameters {
        clean(&mut parameter.name);
        for text in [&mut parameter.bound, &mut parameter.default]
            .into_iter()
            .flatten()
        {
            clean(text);
        }
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

    #[test]
    fn nesting_and_diagnostics_are_capped_and_text_is_one_line() {
        let mut deepest = Symbol::new("f", SymbolKind::Function, 1, 1);
        for _ in 0..MAX_SYMBOL_DEPTH + 9 {
            let mut parent = Symbol::new("f", SymbolKind::Function, 1, 1);
            parent.children.push(deepest);
            deepest = parent;
        }
        deepest.doc = Some("bell\u{7}".into());
        let diagnostic = Diagnostic {
            line: 1,
            column: 1,
            severity: Severity::Error,
            message: "bad\u{2028}token".into(),
        };
        let extracted = Extracted {
            symbols: vec![deepest],
            diagnostics: vec![diagnostic; MAX_DIAGNOSTICS + 5],
            ..Extracted::default()
        };
        let outline = finish("d.py", Language::Python, "x\n", extracted);
        let mut depth = 0;
        let mut symbol = &outline.symbols[0];
        while let Some(child) = symbol.children.first() {
            symbol = child;
            depth += 1;
        }
        assert_eq!(depth + 1, MAX_SYMBOL_DEPTH);
        assert_eq!(outline.symbols[0].doc.as_deref(), Some("bell\\x07"));
        assert_eq!(outline.diagnostics.len(), MAX_DIAGNOSTICS + 2);
        assert_eq!(outline.diagnostics[0].message, "bad\\u2028token");
        let notes: Vec<&str> = outline.diagnostics[MAX_DIAGNOSTICS..]
            .iter()
            .map(|d| d.message.as_str())
            .collect();
        assert_eq!(
            notes,
            [
                "5 more diagnostics after this one are not listed",
                "10 symbols nested deeper than 50 levels are not listed"
            ]
        );
    }
}
