//! Recovery past errors that swallow the rest of the file.
//!
//! ruff recovers well from most errors, but an unterminated string (an extra
//! `"""`, which can also flip every later docstring inside out) or an unclosed
//! bracket (no line ends are seen until it closes) can turn everything after it
//! into a cascade of broken statements, losing every definition that follows.
//! So in a file with errors, the region from the top-level statement holding
//! the first error to the one holding the last is split before each line that
//! begins, at column 0, like a top-level statement (`def`, `class`, `async`,
//! `@`, `if`, `try:`, `for`, `while`, `with`, `import`, `from`, `NAME =`), and
//! each piece is parsed alone. Text at column 0 cannot continue an indented
//! body, so in valid code such a line starts a new top-level statement unless
//! it is inside a string or brackets: which is exactly what the error made
//! uncertain. (The cost: a valid multi-line string in that region holding such
//! a line at column 0 is cut there.) Statements outside the region keep ruff's
//! outline, and so does a region without such a line.

use outline_core::{OutlineOptions, Symbol};
use ruff_python_ast::Stmt;
use ruff_python_parser::parse_unchecked;
use ruff_text_size::Ranged;

use crate::source::Source;
use crate::symbols::Walker;

/// Words that start a top-level statement when written at column 0 and
/// followed by a space (or `:` for `try`).
const STARTERS: &[&str] = &[
    "def ", "class ", "async ", "@", "if ", "try:", "for ", "while ", "with ", "import ", "from ",
];

/// What recovery gives: the symbols, and the errors as (byte offset in the
/// text, message): those of the parse of the whole text outside the region
/// parsed again, and those of its pieces inside it.
pub(crate) struct Recovered {
    /// Top-level symbols, lines those of the text.
    pub symbols: Vec<Symbol>,
    /// Syntax errors in source order.
    pub errors: Vec<(usize, String)>,
}

/// Symbols of `body` (the module of `text`, parsed with `errors` as (byte
/// offset, message)): ruff's outline before the top-level statement holding
/// the first error and after the one holding the last (an error between two
/// statements belongs to the next one); the region between, when it holds a
/// line that starts a new top-level statement, parsed again piece by piece.
pub(crate) fn module_symbols(
    text: &str,
    body: &[Stmt],
    errors: Vec<(usize, String)>,
    walker: &Walker<'_, '_>,
    options: &OutlineOptions,
    depth: u32,
) -> Recovered {
    let unchanged = |errors| Recovered {
        symbols: walker.module(body),
        errors,
    };
    // Statements are in source order, so their ends ascend: a binary search
    // (a scan per error took time quadratic in the errors: 32,000 took 10 s).
    let holder = |offset: usize| {
        let at = body.partition_point(|stmt| stmt.end().to_usize() < offset);
        if at < body.len() {
            at
        } else {
            body.len().saturating_sub(1)
        }
    };
    let (Some(first), Some(last)) = (
        errors.iter().map(|(e, _)| holder(*e)).min(),
        errors.iter().map(|(e, _)| holder(*e)).max(),
    ) else {
        return unchanged(errors);
    };
    let (Some(start), Some(end)) = (body.get(first), body.get(last)) else {
        return unchanged(errors);
    };
    let region_start = start.start().to_usize();
    // Errors after the last statement (at the end of the file) are the region's
    // when it reaches the last statement.
    let region_end = if last + 1 >= body.len() {
        text.len()
    } else {
        end.end().to_usize()
    };
    let pieces = split(text, region_start, region_end);
    if pieces.len() < 2 {
        return unchanged(errors);
    }
    let mut symbols = walker.module(body.get(..first).unwrap_or_default());
    let mut piece_errors = Vec::new();
    let mut lines_before = 0;
    let mut counted = 0;
    for (from, to) in pieces {
        // Lines before the piece, counted from the previous piece's start
        // (so a file of many pieces is not counted again for each).
        lines_before += text
            .get(counted..from)
            .map_or(0, |t| t.matches('\n').count());
        counted = from;
        let piece = piece_symbols(text, (from, to), lines_before, options, depth);
        symbols.extend(piece.symbols);
        piece_errors.extend(piece.errors);
    }
    symbols.extend(walker.module(body.get(last + 1..).unwrap_or_default()));
    // The pieces' own errors say where the damage is (an unterminated string
    // where it starts, not where the flipped docstrings break). Should every
    // piece parse alone, the region keeps the whole parse's first error (the
    // others are its cascade: an unclosed bracket seen at the next `def`).
    let inside = |e: usize| region_start <= e && e <= region_end;
    if piece_errors.is_empty() {
        piece_errors.extend(errors.iter().find(|(e, _)| inside(*e)).cloned());
    }
    let mut errors: Vec<(usize, String)> = errors
        .into_iter()
        .filter(|(e, _)| !inside(*e))
        .chain(piece_errors)
        .collect();
    errors.sort_by_key(|(e, _)| *e);
    Recovered { symbols, errors }
}

/// Byte ranges of the pieces of `text[start..end]`, split before each line
/// that starts like a top-level statement.
fn split(text: &str, start: usize, end: usize) -> Vec<(usize, usize)> {
    let mut cuts = vec![start];
    let Some(span) = text.get(start..end) else {
        return Vec::new();
    };
    for (i, _) in span.match_indices('\n') {
        let line = start + i + 1;
        if line < end && text.get(line..).is_some_and(starts_statement) {
            cuts.push(line);
        }
    }
    cuts.push(end);
    cuts.windows(2)
        .filter_map(|w| match w {
            [a, b] if a < b => Some((*a, *b)),
            _ => None,
        })
        .collect()
}

/// Whether a line (the text from its first byte) starts like a top-level
/// statement.
fn starts_statement(line: &str) -> bool {
    if STARTERS.iter().any(|s| line.starts_with(s)) {
        return true;
    }
    // `NAME =` or `NAME, OTHER =` (not `==`).
    let rest =
        line.trim_start_matches(|c: char| c.is_alphanumeric() || matches!(c, '_' | ',' | ' '));
    let head = &line[..line.len() - rest.len()];
    head.chars()
        .next()
        .is_some_and(|c| c.is_alphabetic() || c == '_')
        && rest.starts_with('=')
        && !rest.starts_with("==")
}

/// The symbols of `text[from..to]` parsed alone, with the lines of the file
/// (`lines_before` lines precede `from`).
fn piece_symbols(
    text: &str,
    (from, to): (usize, usize),
    lines_before: usize,
    options: &OutlineOptions,
    depth: u32,
) -> Recovered {
    let empty = Recovered {
        symbols: Vec::new(),
        errors: Vec::new(),
    };
    let Some(piece) = text.get(from..to) else {
        return empty;
    };
    let parsed = parse_unchecked(piece, crate::parse_options());
    let source = Source::new(piece, parsed.tokens());
    let Some(module) = parsed.syntax().as_module() else {
        return empty;
    };
    let walker = Walker {
        source: &source,
        options,
    };
    let errors = crate::error_list(&parsed);
    // A piece can itself hold a piece that swallowed the rest (two errors);
    // the depth bound keeps a hostile file from recursing without end.
    let mut recovered = if errors.is_empty() || depth >= 4 {
        Recovered {
            symbols: walker.module(&module.body),
            errors,
        }
    } else {
        module_symbols(piece, &module.body, errors, &walker, options, depth + 1)
    };
    shift_lines(
        &mut recovered.symbols,
        u32::try_from(lines_before).unwrap_or(u32::MAX),
    );
    // An error at the very end of a piece ("unexpected EOF", "expected
    // dedent") comes from cutting it there, unless the piece ends the file.
    if to < text.len() {
        recovered.errors.retain(|(offset, _)| *offset < piece.len());
    }
    for (offset, _) in &mut recovered.errors {
        *offset += from;
    }
    recovered
}

/// Moves `symbols` (and their children) down by `lines`.
fn shift_lines(symbols: &mut [Symbol], lines: u32) {
    for symbol in symbols {
        symbol.start_line = symbol.start_line.saturating_add(lines);
        symbol.end_line = symbol.end_line.saturating_add(lines);
        symbol.name_line = symbol.name_line.saturating_add(lines);
        symbol.doc_start_line = symbol.doc_start_line.map(|l| l.saturating_add(lines));
        shift_lines(&mut symbol.children, lines);
    }
}
