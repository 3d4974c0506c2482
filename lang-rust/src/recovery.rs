//! The whole-file parse, and recovery when `syn` rejects the file.
//!
//! `syn` fails a whole file for one error, and `proc_macro2`'s lexer fails on
//! unbalanced delimiters, so recovery needs its own light [`scan`]: it knows
//! comments (nested block comments), strings, raw strings `r#"…"#`, byte and
//! char literals as opposed to lifetimes, and delimiters (a plain string that
//! would run over a line starting in column 0 with an item keyword ends
//! before it, unterminated: a stray `"` must not turn every later string
//! inside out). It cuts the file
//! into top-level items (at a `;` or a closing `}` back at depth 0). Each item
//! is parsed alone; one that still fails is cut again where a line starts at
//! column 0 with an item keyword (`fn`, `pub`, `impl`, `#[`, `///`, …), and a
//! piece that still fails is reported as a diagnostic, with its missing
//! closing delimiters added so that what it holds is still outlined up to its
//! last line. No symbol swallows the rest of the file, and nothing panics.

use std::ops::Range;

use outline_core::{
    Diagnostic, Extracted, OutlineOptions, ParameterKind, Severity, Symbol, SymbolKind,
};

use crate::parse::{Parsed, RegionError, parse_region};
use crate::source::FileText;

/// Outlines the whole file, recovering from syntax errors.
pub(crate) fn extract(file: &FileText<'_>, options: &OutlineOptions) -> Extracted {
    let text = file.text;
    // A shebang line (`#!/usr/bin/env …`, but not an inner attribute `#![…]`)
    // is not Rust tokens.
    let start = if text.starts_with("#!") && !text[2..].trim_start().starts_with('[') {
        text.find(['\n', '\r']).unwrap_or(text.len())
    } else {
        0
    };
    match parse_region(file, start, text.len(), "", options) {
        Ok(parsed) => {
            let mut diagnostics: Vec<Diagnostic> = parsed
                .body_errors
                .iter()
                .map(|(offset, message)| diagnostic(file, *offset, message))
                .collect();
            // Only errors make the outline partial; an item left out is a
            // warning, as other omissions are.
            let partial = !diagnostics.is_empty();
            diagnostics.extend(
                parsed
                    .warnings
                    .iter()
                    .map(|(offset, message)| warning(file, *offset, message)),
            );
            Extracted {
                symbols: parsed.symbols,
                imports: parsed.imports,
                partial,
                diagnostics,
                doc: parsed.doc,
            }
        }
        Err(_) => recover(file, start, options),
    }
}

fn recover(file: &FileText<'_>, start: usize, options: &OutlineOptions) -> Extracted {
    let scan = scan(file.text, start..file.text.len());
    let mut out = Extracted {
        partial: true,
        ..Extracted::default()
    };
    for (offset, message) in &scan.problems {
        out.diagnostics.push(diagnostic(file, *offset, message));
    }
    let column_zero: Vec<usize> = scan
        .line_starts
        .iter()
        .filter(|(_, indent)| *indent == 0)
        .map(|(offset, _)| *offset)
        .collect();
    let mut first = true;
    for chunk in &scan.chunks {
        recover_chunk(file, chunk.clone(), &column_zero, options, &mut out, first);
        first = false;
    }
    if !has_error(&out.diagnostics) {
        // Every piece parsed alone although the whole did not: say so.
        out.diagnostics.push(diagnostic(
            file,
            start,
            "the file does not parse as a whole, only item by item",
        ));
    }
    out
}

fn recover_chunk(
    file: &FileText<'_>,
    range: Range<usize>,
    line_starts: &[usize],
    options: &OutlineOptions,
    out: &mut Extracted,
    first: bool,
) {
    let error = match parse_region(file, range.start, range.end, "", options) {
        Ok(parsed) => {
            take(file, parsed, out, first);
            return;
        }
        Err(error) => error,
    };
    let cuts: Vec<usize> = line_starts
        .iter()
        .copied()
        .filter(|&s| range.start < s && s < range.end && !blank(file, range.start..s))
        .collect();
    if !cuts.is_empty() {
        let mut from = range.start;
        for cut in cuts.into_iter().chain([range.end]) {
            recover_chunk(
                file,
                from..cut,
                &[],
                options,
                out,
                first && from == range.start,
            );
            from = cut;
        }
        return;
    }
    // An item that fails alone: report it, then outline it with its missing
    // closing delimiters added, up to its last token.
    let piece = scan(file.text, range.clone());
    let end = last_token_end(file, &range);
    let before = out.diagnostics.len();
    match error {
        RegionError {
            offset: Some(offset),
            message,
        } => out.diagnostics.push(diagnostic(file, offset, &message)),
        RegionError { offset: None, .. } => {
            if piece.problems.is_empty() && piece.open.is_empty() {
                out.diagnostics.push(diagnostic(
                    file,
                    range.start,
                    "this item does not lex: unbalanced delimiters or an unterminated literal",
                ));
            }
            for (offset, message) in &piece.problems {
                if !out
                    .diagnostics
                    .iter()
                    .any(|d| d.message == *message && d.line == file.index.line(*offset))
                {
                    out.diagnostics.push(diagnostic(file, *offset, message));
                }
            }
            for (offset, open) in &piece.open {
                out.diagnostics.push(diagnostic(
                    file,
                    *offset,
                    &format!("unclosed delimiter `{}`", *open as char),
                ));
            }
        }
    }
    let chunk_diagnostics: Vec<Diagnostic> = out.diagnostics.drain(before..).collect();
    if let Some(container) = recover_container(file, &range, &piece, options, out) {
        // The members' own errors say more than the container's.
        if !has_error(&out.diagnostics[before..]) {
            out.diagnostics.extend(chunk_diagnostics);
        }
        out.symbols.push(container);
        return;
    }
    out.diagnostics.extend(chunk_diagnostics);
    if piece.open.is_empty() || !piece.problems.is_empty() {
        return;
    }
    let closers: String = piece
        .open
        .iter()
        .rev()
        .map(|(_, open)| match open {
            b'(' => ')',
            b'[' => ']',
            _ => '}',
        })
        .collect();
    if let Ok(parsed) = parse_region(file, range.start, end, &closers, options) {
        take(file, parsed, out, first);
    }
}

/// An `impl`, `trait` or `mod` whose body does not parse: the container from
/// its header (parsed with an empty body), and its members recovered one by
/// one, cut where a line starts with an item keyword at the indentation of
/// the first member.
fn recover_container(
    file: &FileText<'_>,
    range: &Range<usize>,
    piece: &Scan,
    options: &OutlineOptions,
    out: &mut Extracted,
) -> Option<Symbol> {
    let open = piece.first_open?;
    let parsed = parse_region(file, range.start, open, "{}", options).ok()?;
    let [mut container] = <[Symbol; 1]>::try_from(parsed.symbols).ok()?;
    if !matches!(
        container.kind,
        SymbolKind::Impl | SymbolKind::Trait | SymbolKind::Module
    ) {
        return None;
    }
    // The body ends at the `}` that closes it, else with the piece.
    let close = piece
        .chunks
        .first()
        .filter(|_| piece.open.is_empty())
        .map_or(last_token_end(file, range), |c| last_token_end(file, c));
    container.end_line = file
        .index
        .end_line(range.start, close)
        .max(container.end_line);
    // `close` ends the last token, a `}` when the braces balance; when they
    // do not, the byte before it may be inside a character.
    let inner_end = file.text.floor_char_boundary(close.saturating_sub(1));
    let inner = open + 1..inner_end.max(open + 1);
    let scan = scan(file.text, inner.clone());
    let indent = scan.line_starts.first().map(|(_, indent)| *indent);
    let cuts: Vec<usize> = scan
        .line_starts
        .iter()
        .filter(|(_, i)| Some(*i) == indent)
        .map(|(offset, _)| *offset)
        .collect();
    let mut members = Extracted::default();
    let mut from = inner.start;
    for cut in cuts.into_iter().chain([inner.end]) {
        if from < cut && !blank(file, from..cut) {
            recover_chunk(file, from..cut, &[], options, &mut members, false);
        }
        from = cut;
    }
    let associated = matches!(container.kind, SymbolKind::Impl | SymbolKind::Trait);
    for mut member in members.symbols {
        let receiver = member
            .parameters
            .first()
            .is_some_and(|p| p.kind == ParameterKind::SelfParam);
        if associated && member.kind == SymbolKind::Function && receiver {
            member.kind = SymbolKind::Method;
        }
        container.children.push(member);
    }
    out.diagnostics.extend(members.diagnostics);
    Some(container)
}

fn take(file: &FileText<'_>, parsed: Parsed, out: &mut Extracted, first: bool) {
    for (offset, message) in &parsed.body_errors {
        out.diagnostics.push(diagnostic(file, *offset, message));
    }
    for (offset, message) in &parsed.warnings {
        out.diagnostics.push(warning(file, *offset, message));
    }
    out.symbols.extend(parsed.symbols);
    out.imports.extend(parsed.imports);
    if first && out.doc.is_none() {
        out.doc = parsed.doc;
    }
}

fn blank(file: &FileText<'_>, range: Range<usize>) -> bool {
    file.text.get(range).is_none_or(|t| t.trim().is_empty())
}

/// End of the last non-whitespace character of `range`.
fn last_token_end(file: &FileText<'_>, range: &Range<usize>) -> usize {
    let text = file.text.get(range.clone()).unwrap_or_default();
    range.start + text.trim_end().len()
}

fn diagnostic(file: &FileText<'_>, offset: usize, message: &str) -> Diagnostic {
    let offset = offset.min(file.text.len());
    Diagnostic {
        line: file.index.line(offset),
        column: file.index.column(offset),
        severity: Severity::Error,
        message: outline_core::text::collapse_whitespace(message),
    }
}

/// A warning at `offset` (an item left out, see [`crate::verbatim`]).
fn warning(file: &FileText<'_>, offset: usize, message: &str) -> Diagnostic {
    Diagnostic {
        severity: Severity::Warning,
        ..diagnostic(file, offset, message)
    }
}

fn has_error(diagnostics: &[Diagnostic]) -> bool {
    diagnostics.iter().any(|d| d.severity == Severity::Error)
}

/// What the light scanner found in a range of the file.
#[derive(Debug, Default)]
pub(crate) struct Scan {
    /// Top-level items (byte ranges covering the scanned range in order).
    pub chunks: Vec<Range<usize>>,
    /// Lines that start at column 0 with an item keyword, an outer attribute
    /// or a doc comment (not a line inside an item's leading attributes and
    /// docs), outside comments and literals.
    /// (offset of the line's first token, its indentation in bytes).
    pub line_starts: Vec<(usize, usize)>,
    /// The first `{` opened at depth 0.
    pub first_open: Option<usize>,
    /// Unterminated literals and comments, stray closing delimiters.
    pub problems: Vec<(usize, String)>,
    /// Delimiters still open at the end, with their offsets.
    pub open: Vec<(usize, u8)>,
    /// The insides of the delimiter pairs opened deeper than the limit given
    /// to [`scan_nesting`]: from just after the opening delimiter at depth
    /// `max + 1` to just before its closing one (or to the end of the range).
    pub deep: Vec<Range<usize>>,
}

const ITEM_WORDS: &[&str] = &[
    "fn",
    "pub",
    "impl",
    "struct",
    "enum",
    "union",
    "trait",
    "mod",
    "use",
    "const",
    "static",
    "type",
    "unsafe",
    "async",
    "extern",
    "macro_rules!",
    "auto",
    "default",
];

/// Scans `range` of `text`; never fails.
pub(crate) fn scan(text: &str, range: Range<usize>) -> Scan {
    scan_nesting(text, range, usize::MAX)
}

/// Scans `range` of `text` as [`scan`] does, also recording in
/// [`Scan::deep`] the delimiters opened deeper than `max`.
pub(crate) fn scan_nesting(text: &str, range: Range<usize>, max: usize) -> Scan {
    let bytes = text.as_bytes();
    // A range that does not end on a character boundary is cut to one.
    let end = text.floor_char_boundary(range.end.min(bytes.len()));
    let mut out = Scan::default();
    let mut chunk_start = range.start;
    let mut i = range.start;
    let mut line_start = true;
    let mut after_prefix = false;
    let mut angles = Angles {
        max,
        ..Angles::default()
    };
    let is_ident = |b: u8| b.is_ascii_alphanumeric() || b == b'_' || b >= 0x80;
    let next_line = |from: usize| {
        let mut j = from;
        while j < end && bytes[j] != b'\n' && bytes[j] != b'\r' {
            j += 1;
        }
        j
    };
    while i < end {
        let b = bytes[i];
        if line_start {
            line_start = false;
            let indent = text[i..end]
                .bytes()
                .take_while(|&c| c == b' ' || c == b'\t')
                .count();
            let rest = &text[i + indent..end];
            let prefix =
                rest.starts_with("#[") || rest.starts_with("///") || rest.starts_with("/**");
            let keyword = ITEM_WORDS.iter().any(|w| {
                rest.starts_with(w)
                    && rest[w.len()..]
                        .bytes()
                        .next()
                        .is_none_or(|c| !is_ident(c) || w.ends_with('!'))
            });
            if (prefix || keyword) && !after_prefix && i > range.start {
                out.line_starts.push((i + indent, indent));
            }
            if prefix {
                after_prefix = true;
            } else if keyword {
                after_prefix = false;
            }
        }
        match b {
            b'\n' | b'\r' => {
                line_start = true;
                i += 1;
            }
            b'/' if bytes.get(i + 1) == Some(&b'/') => i = next_line(i),
            b'/' if bytes.get(i + 1) == Some(&b'*') => {
                let mut depth = 0usize;
                let mut j = i;
                let mut closed = false;
                while j < end {
                    if bytes[j] == b'/' && bytes.get(j + 1) == Some(&b'*') {
                        depth += 1;
                        j += 2;
                    } else if bytes[j] == b'*' && bytes.get(j + 1) == Some(&b'/') {
                        depth -= 1;
                        j += 2;
                        if depth == 0 {
                            closed = true;
                            break;
                        }
                    } else {
                        j += 1;
                    }
                }
                if closed {
                    i = j;
                } else {
                    out.problems
                        .push((i, "unterminated block comment".to_owned()));
                    i = next_line(i);
                }
            }
            b'"' => {
                let raw_hashes = raw_prefix(bytes, i, range.start);
                let mut j = i + 1;
                let mut closed = false;
                while j < end {
                    match (bytes[j], raw_hashes) {
                        // A plain string that would run over a line starting
                        // at column 0 like an item is taken as unterminated
                        // there: a stray `"` turns every later string inside
                        // out, and the items between would be lost.
                        (b'\n', None) if starts_item(text, j + 1, end) => break,
                        (b'\\', None) => j += 2,
                        (b'"', None) => {
                            closed = true;
                            j += 1;
                            break;
                        }
                        (b'"', Some(n))
                            if bytes.len() >= j + 1 + n
                                && bytes[j + 1..j + 1 + n].iter().all(|&h| h == b'#') =>
                        {
                            closed = true;
                            j += 1 + n;
                            break;
                        }
                        _ => j += 1,
                    }
                }
                if closed {
                    angles.token(&mut out, Token::Operand, i, j.min(end) - 1, end);
                    i = j.min(end);
                } else {
                    angles.token(&mut out, Token::Operand, i, i, end);
                    let what = if raw_hashes.is_some() {
                        "raw string"
                    } else {
                        "string"
                    };
                    out.problems.push((
                        literal_start(bytes, i, range.start),
                        format!("unterminated {what} literal"),
                    ));
                    i = if raw_hashes.is_none() && j < end && bytes[j] == b'\n' {
                        j
                    } else {
                        next_line(i)
                    };
                }
            }
            b'\'' => {
                if bytes.get(i + 1) == Some(&b'\\') {
                    // An escaped char literal: up to the next quote on the line.
                    let mut j = i + 3;
                    while j < end && bytes[j] != b'\'' && bytes[j] != b'\n' {
                        j += 1;
                    }
                    angles.token(&mut out, Token::Operand, i, j.min(end - 1), end);
                    i = (j + 1).min(end);
                } else {
                    let c_len = text[i + 1..end].chars().next().map_or(1, char::len_utf8);
                    if bytes.get(i + 1 + c_len) == Some(&b'\'') {
                        angles.token(&mut out, Token::Operand, i, i + 1 + c_len, end);
                        i += 2 + c_len;
                    } else {
                        // A lifetime or a label (`&'a mut T` goes on).
                        i += 1;
                        while i < end && is_ident(bytes[i]) {
                            i += 1;
                        }
                    }
                }
            }
            b'(' | b'[' | b'{' => {
                if b == b'{' && out.open.is_empty() && out.first_open.is_none() {
                    out.first_open = Some(i);
                }
                if b == b'{' {
                    angles.reset(&mut out, i);
                }
                angles.push();
                out.open.push((i, b));
                angles.entered(&mut out, i, end);
                i += 1;
            }
            b')' | b']' | b'}' => {
                angles.pop(b != b'}');
                // A `}` closes the innermost `{` even when a `(` or `[`
                // opened inside it was never closed (`pub x(: u32,` in a
                // struct), as rustc pairs mismatched delimiters: otherwise
                // the rest of the file would be inside that one item.
                while b == b'}'
                    && out.open.last().is_some_and(|&(_, open)| open != b'{')
                    && out.open.iter().any(|&(_, open)| open == b'{')
                {
                    if let Some((at, open)) = out.open.pop() {
                        angles.pop(true);
                        out.problems
                            .push((at, format!("unclosed delimiter `{}`", open as char)));
                    }
                }
                if out.open.pop().is_none() {
                    out.problems
                        .push((i, format!("unexpected closing delimiter `{}`", b as char)));
                }
                if b == b'}' {
                    angles.reset(&mut out, i);
                }
                angles.left(&mut out, i);
                i += 1;
                if b == b'}' && out.open.is_empty() {
                    // `const X: S = S { … };` ends at its `;`.
                    let rest = &text[i..end];
                    let trimmed = rest.trim_start();
                    if trimmed.starts_with(';') {
                        i += rest.len() - trimmed.len() + 1;
                    }
                    out.chunks.push(chunk_start..i);
                    chunk_start = i;
                }
            }
            b';' if out.open.is_empty() => {
                angles.reset(&mut out, i);
                i += 1;
                out.chunks.push(chunk_start..i);
                chunk_start = i;
            }
            b';' => {
                angles.reset(&mut out, i);
                i += 1;
            }
            b'<' => match bytes.get(i + 1) {
                Some(b'=') => {
                    angles.token(&mut out, Token::Operator, i, i + 1, end);
                    i += 2;
                }
                Some(b'<') if bytes.get(i + 2).is_none_or(|&c| is_shift_operand(c)) => {
                    angles.token(&mut out, Token::Operator, i, i + 1, end);
                    i += 2;
                }
                _ => {
                    angles.token(&mut out, Token::Operator, i, i, end);
                    if opens_angle(bytes, i, range.start, end, angles.last_angle) {
                        angles.here += 1;
                        angles.total += 1;
                        angles.last_angle = Some(i);
                        angles.entered(&mut out, i, end);
                    }
                    i += 1;
                }
            },
            b'>' => {
                let operator = i > range.start && matches!(bytes[i - 1], b'-' | b'=')
                    || bytes.get(i + 1) == Some(&b'=');
                let closes = !operator && angles.here > 0;
                let token = if closes {
                    Token::Operand
                } else {
                    Token::Operator
                };
                angles.token(&mut out, token, i, i, end);
                if closes {
                    angles.here -= 1;
                    angles.total -= 1;
                    angles.left(&mut out, i);
                }
                i += 1;
            }
            // Prefix chains (`& & & T`, `*const *const T`, `fn() -> fn() ->
            // T`, `|| || x`, `.. .. x`): `syn` recurses once per link.
            b'&' => {
                let pair = bytes.get(i + 1) == Some(&b'&');
                angles.token(&mut out, Token::Prefix, i, i, end);
                if pair {
                    angles.token(&mut out, Token::Prefix, i + 1, i + 1, end);
                }
                i += 1 + usize::from(pair);
            }
            b'*' => {
                // `*const`/`*mut` is one link: what follows it may be left out.
                let mut j = i + 1;
                while j < end && matches!(bytes[j], b' ' | b'\t' | b'\n' | b'\r') {
                    j += 1;
                }
                let word = text[j..end].bytes().take_while(|&c| is_ident(c)).count();
                let last = if matches!(&text[j..j + word], "const" | "mut") {
                    j + word - 1
                } else {
                    i
                };
                angles.token(&mut out, Token::Prefix, i, last, end);
                i = last + 1;
            }
            b'.' if bytes.get(i + 1) == Some(&b'.') => {
                let last = if bytes.get(i + 2) == Some(&b'=') {
                    i + 2
                } else {
                    i + 1
                };
                angles.token(&mut out, Token::Prefix, i, last, end);
                i = last + 1;
            }
            b'-' if bytes.get(i + 1) == Some(&b'>') => {
                angles.token(&mut out, Token::Chain, i, i + 1, end);
                i += 2;
            }
            // Unary `-` and `!` (not `-=`, `!=`, nor the `!` of a macro).
            b'-' | b'!'
                if bytes.get(i + 1) != Some(&b'=')
                    && !(b == b'!' && i > range.start && is_ident(bytes[i - 1])) =>
            {
                angles.token(&mut out, Token::Prefix, i, i, end);
                i += 1;
            }
            b'|' => i += angles.pipe(&mut out, i, bytes.get(i + 1) == Some(&b'|'), end),
            b' ' | b'\t' => i += 1,
            c if is_ident(c) => {
                let len = text[i..end].bytes().take_while(|&c| is_ident(c)).count();
                let word = &text[i..i + len];
                let next = text[i + len..end].trim_start().bytes().next();
                let token = match word {
                    "dyn" | "impl" | "break" | "return" | "yield" => Token::Chain,
                    "mut" | "const" | "fn" | "unsafe" | "extern" | "move" | "async" => Token::Keep,
                    "Fn" | "FnMut" | "FnOnce" if next == Some(b'(') => Token::Keep,
                    "in" | "if" | "match" | "while" | "let" | "else" | "as" | "where" | "for" => {
                        Token::Operator
                    }
                    _ => Token::Operand,
                };
                angles.token(&mut out, token, i, i + len - 1, end);
                i += len;
            }
            b'?' => {
                angles.token(&mut out, Token::Operand, i, i, end);
                i += 1;
            }
            b'=' if is_assignment(bytes, i, range.start) => {
                angles.assign(&mut out, i, end);
                i += 1;
            }
            b',' => {
                angles.comma(&mut out, i, end);
                i += 1;
            }
            _ => {
                angles.token(&mut out, Token::Operator, i, i, end);
                i += 1;
            }
        }
    }
    if chunk_start < end && !text[chunk_start..end].trim().is_empty() {
        out.chunks.push(chunk_start..end);
    }
    out
}

/// The nesting depth [`scan_nesting`] tracks: the open delimiters, the
/// generic angle brackets (`Vec<Vec<…>>`) and the links of prefix chains
/// (`& & T`, `*const *mut T`, `fn() -> fn() -> T`, `|| |x| e`, `.. ..x`,
/// `dyn`, `impl`, `break break x`, `return`, `yield`, `- -x`, `!!x`) and
/// the assignments of one expression (`a = b = c`), which `syn` also parses
/// by recursion. Angle brackets are
/// counted per delimiter level and forgotten at `;`, `{` and `}`, so
/// comparisons (`a < b`) left open by a heuristic never add up beyond one
/// statement; a chain is counted per delimiter level while its links follow
/// one another, and forgotten at the first token that ends it (an operand,
/// an operator), so `a & b & c` never counts more than one.
#[derive(Debug, Default)]
struct Angles {
    /// The depth above which the text is left out.
    max: usize,
    /// Angle brackets open at the innermost delimiter level.
    here: usize,
    /// The links of the prefix chain running at the innermost level.
    chain: usize,
    /// The assignment operators (`=`, `+=`, …) of the expression running at
    /// the innermost level: they are right-associative, and `syn` parses the
    /// right side of each by recursion (`a = a = … = 1`), so they nest
    /// like links, but operands do not end them (only `;`, `,`, `{`, `}`).
    assigns: usize,
    /// Whether the last token of the innermost level ended an operand (an
    /// identifier, a literal, a closing bracket), so `&`, `*`, `..`, `|`
    /// after it are binary operators, not links.
    operand: bool,
    /// Whether a closure's `|params|` is open at the innermost level.
    in_head: bool,
    /// The offset of the last `<` counted as an angle bracket.
    last_angle: Option<usize>,
    /// Those of each enclosing level (one per entry of [`Scan::open`]):
    /// (angle brackets, chain links, assignments, closure head open).
    saved: Vec<(usize, usize, usize, bool)>,
    /// Angle brackets, chain links and assignments open at all levels.
    total: usize,
    /// Whether the last range of [`Scan::deep`] is still open.
    in_deep: bool,
}

/// What a token does to a prefix chain (see [`Angles`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Token {
    /// Ends the chain and an operand (`x`, `1`, `)`): a `&` after it is binary.
    Operand,
    /// Ends the chain, an operand may follow (`=`, `,`, `return`).
    Operator,
    /// Neither ends nor extends the chain (`mut`, `const`, `fn`, `'a`).
    Keep,
    /// A link unless it follows an operand (`&`, `*`, `..`).
    Prefix,
    /// Always a link (`->`, `dyn`, `impl`).
    Chain,
}

impl Angles {
    fn depth(&self, out: &Scan) -> usize {
        out.open.len().saturating_add(self.total)
    }

    /// After a bracket opened at `at`: starts a left-out range past the limit.
    fn entered(&mut self, out: &mut Scan, at: usize, end: usize) {
        if !self.in_deep && self.depth(out) > self.max {
            out.deep.push(at + 1..end);
            self.in_deep = true;
        }
    }

    /// After a bracket closed at `at`: ends the left-out range at or below it.
    fn left(&mut self, out: &mut Scan, at: usize) {
        if self.in_deep
            && self.depth(out) <= self.max
            && let Some(deep) = out.deep.last_mut()
        {
            deep.end = at.max(deep.start);
            self.in_deep = false;
        }
    }

    /// Forgets the angle brackets and the chain of the innermost level (at
    /// `;`, `{`, `}`).
    fn reset(&mut self, out: &mut Scan, at: usize) {
        self.total = self
            .total
            .saturating_sub(self.here + self.chain + self.assign_links());
        self.here = 0;
        self.chain = 0;
        self.assigns = 0;
        self.in_head = false;
        self.operand = false;
        self.left(out, at);
    }

    /// At an opening delimiter: a new level.
    fn push(&mut self) {
        self.saved
            .push((self.here, self.chain, self.assigns, self.in_head));
        self.here = 0;
        self.chain = 0;
        self.assigns = 0;
        self.in_head = false;
        self.operand = false;
    }

    /// At a closing delimiter: back to the enclosing level, whose chain goes
    /// on (`fn(u8) -> …`); `operand` after `)` and `]`.
    fn pop(&mut self, operand: bool) {
        self.total = self
            .total
            .saturating_sub(self.here + self.chain + self.assign_links());
        (self.here, self.chain, self.assigns, self.in_head) = self.saved.pop().unwrap_or_default();
        self.operand = operand;
    }

    /// A token from `start` to `last` (inclusive) outside closure heads.
    fn token(&mut self, out: &mut Scan, token: Token, start: usize, last: usize, end: usize) {
        if self.in_head {
            return;
        }
        match token {
            Token::Keep => {}
            Token::Prefix if !self.operand => self.link(out, last, end),
            Token::Chain => self.link(out, last, end),
            Token::Operand | Token::Operator | Token::Prefix => {
                self.total = self.total.saturating_sub(self.chain);
                self.chain = 0;
                self.operand = token == Token::Operand;
                self.left(out, start);
            }
        }
    }

    /// An assignment operator ending at `last`: one more level until the
    /// expression ends.
    /// (The first `=` of an expression adds none: it may be that of a
    /// `let`, `type` or `const`, which is no assignment expression.)
    fn assign(&mut self, out: &mut Scan, last: usize, end: usize) {
        self.token(out, Token::Operator, last, last, end);
        self.assigns += 1;
        if self.assigns > 1 {
            self.total += 1;
            self.entered(out, last, end);
        }
    }

    /// The levels the assignments of the innermost level add.
    fn assign_links(&self) -> usize {
        self.assigns.saturating_sub(1)
    }

    /// At a `,` at `at`: the expression's assignments end there.
    fn comma(&mut self, out: &mut Scan, at: usize, end: usize) {
        self.token(out, Token::Operator, at, at, end);
        self.total = self.total.saturating_sub(self.assign_links());
        self.assigns = 0;
        self.left(out, at);
    }

    fn link(&mut self, out: &mut Scan, last: usize, end: usize) {
        self.chain += 1;
        self.total += 1;
        self.operand = false;
        self.entered(out, last, end);
    }

    /// A `|` at `at` (`pair` when `||`): closes a closure head, opens one
    /// where no operand precedes, or is a binary operator. Returns the
    /// bytes it takes.
    fn pipe(&mut self, out: &mut Scan, at: usize, pair: bool, end: usize) -> usize {
        if self.in_head {
            self.in_head = false;
            self.link(out, at, end);
            1
        } else if self.operand {
            self.token(out, Token::Operator, at, at, end);
            1 + usize::from(pair)
        } else if pair {
            self.link(out, at + 1, end);
            2
        } else {
            self.in_head = true;
            1
        }
    }
}

/// Whether the `=` at `at` is an assignment operator (`=`, `+=`, `<<=`…):
/// not part of `==`, `=>`, `!=`, `<=` or `>=` (a `<<=` or `>>=` is).
fn is_assignment(bytes: &[u8], at: usize, floor: usize) -> bool {
    if matches!(bytes.get(at + 1), Some(b'=' | b'>')) {
        return false;
    }
    let before = |n: usize| at.checked_sub(n).filter(|&j| j >= floor).map(|j| bytes[j]);
    match before(1) {
        Some(b'=' | b'!') => false,
        Some(c @ (b'<' | b'>')) => before(2) == Some(c),
        _ => true,
    }
}

/// Whether the `<` at `at` opens generic arguments: directly after an
/// identifier (`Vec<`), or after `<`, `::` or `&` (spaces allowed), or after
/// an identifier and spaces when no space follows (`Vec <T`; `a < b` is a
/// comparison), or in a spaced run `Vec < Vec < u8 > >` (`< ident <`, no
/// comparison in Rust, or an identifier after the `<` counted last).
fn opens_angle(
    bytes: &[u8],
    at: usize,
    floor: usize,
    end: usize,
    last_angle: Option<usize>,
) -> bool {
    let mut j = at;
    while j > floor && bytes[j - 1].is_ascii_whitespace() {
        j -= 1;
    }
    if j == floor {
        return false;
    }
    match bytes[j - 1] {
        b'<' | b':' | b'&' => true,
        c if is_ident_byte(c) => {
            j == at
                || bytes.get(at + 1).is_some_and(|c| !c.is_ascii_whitespace())
                || spaced_run(bytes, at, floor, end, last_angle)
        }
        _ => false,
    }
}

/// Whether the `<` at `at` (after an identifier and spaces) is followed by
/// one identifier and another `<`, or preceded by one identifier after the
/// `<` at `last_angle`.
fn spaced_run(
    bytes: &[u8],
    at: usize,
    floor: usize,
    end: usize,
    last_angle: Option<usize>,
) -> bool {
    let space = |c: &u8| c.is_ascii_whitespace();
    let mut j = at + 1;
    j += bytes[j.min(end)..end]
        .iter()
        .take_while(|c| space(c))
        .count();
    let word = bytes[j.min(end)..end]
        .iter()
        .take_while(|&&c| is_ident_byte(c))
        .count();
    j += word;
    j += bytes[j.min(end)..end]
        .iter()
        .take_while(|c| space(c))
        .count();
    if word > 0 && bytes.get(j) == Some(&b'<') && !matches!(bytes.get(j + 1), Some(b'=' | b'<')) {
        return true;
    }
    let Some(last) = last_angle else {
        return false;
    };
    let mut k = at;
    while k > floor && space(&bytes[k - 1]) {
        k -= 1;
    }
    let word_end = k;
    while k > floor && is_ident_byte(bytes[k - 1]) {
        k -= 1;
    }
    if k == word_end {
        return false;
    }
    while k > floor && space(&bytes[k - 1]) {
        k -= 1;
    }
    k == last + 1
}

/// Whether `c`, just after `<<`, makes it a shift (`x << 2`, `x <<= 1`,
/// `x << (n)`) rather than two angle brackets (`Vec<<T as Tr>::X>`).
fn is_shift_operand(c: u8) -> bool {
    c.is_ascii_whitespace() || c.is_ascii_digit() || matches!(c, b'=' | b'(')
}

/// Whether the line starting at `at` begins, at column 0, with an item
/// keyword, an outer attribute or a doc comment.
fn starts_item(text: &str, at: usize, end: usize) -> bool {
    let Some(rest) = text.get(at..end) else {
        return false;
    };
    rest.starts_with("#[")
        || rest.starts_with("///")
        || ITEM_WORDS.iter().any(|w| {
            rest.starts_with(w)
                && rest[w.len()..]
                    .bytes()
                    .next()
                    .is_none_or(|c| !is_ident_byte(c) || w.ends_with('!'))
        })
}

/// For a `"` at `quote`: `Some(number of #)` when it opens a raw string
/// (`r"`, `r#"`, `br"`, `cr"`), else `None`.
fn raw_prefix(bytes: &[u8], quote: usize, floor: usize) -> Option<usize> {
    let mut j = quote;
    let mut hashes = 0;
    while j > floor && bytes[j - 1] == b'#' {
        hashes += 1;
        j -= 1;
    }
    if j > floor && bytes[j - 1] == b'r' {
        let before = if j >= floor + 2 {
            Some(bytes[j - 2])
        } else {
            None
        };
        let ok = match before {
            Some(b'b' | b'c') => j < floor + 3 || !is_ident_byte(bytes[j - 3]),
            Some(c) => !is_ident_byte(c),
            None => true,
        };
        if ok {
            return Some(hashes);
        }
    }
    None
}

fn is_ident_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b >= 0x80
}

/// Start of the literal whose quote is at `quote` (its `r#`, `b` prefix).
fn literal_start(bytes: &[u8], quote: usize, floor: usize) -> usize {
    let mut j = quote;
    while j > floor && matches!(bytes[j - 1], b'#' | b'r' | b'b' | b'c') {
        j -= 1;
    }
    j
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunks_follow_top_level_items() {
        let text = "fn a() { '}' }\nconst X: S = S { a: 1 };\nstruct B;\n";
        let scan = scan(text, 0..text.len());
        let chunks: Vec<&str> = scan.chunks.iter().map(|r| text[r.clone()].trim()).collect();
        assert_eq!(
            chunks,
            ["fn a() { '}' }", "const X: S = S { a: 1 };", "struct B;"]
        );
        assert!(scan.problems.is_empty());
    }

    /// A `(` left open inside a struct (the mutation test's worst case,
    /// in linux-raw-sys) ends at the struct's `}`: the items after it are
    /// chunks of their own, not the rest of one unclosed item.
    #[test]
    fn a_brace_closes_the_items_parenthesis_left_open() {
        let text = "pub struct S {\npub a(: u32,\npub b: [u8; 2,\n}\npub struct T {\npub c: u8,\n}\nfn f() {}\n";
        let scan = scan(text, 0..text.len());
        let chunks: Vec<&str> = scan.chunks.iter().map(|r| text[r.clone()].trim()).collect();
        assert_eq!(
            chunks,
            [
                "pub struct S {\npub a(: u32,\npub b: [u8; 2,\n}",
                "pub struct T {\npub c: u8,\n}",
                "fn f() {}"
            ]
        );
        let problems: Vec<&str> = scan.problems.iter().map(|(_, m)| m.as_str()).collect();
        assert_eq!(
            problems,
            ["unclosed delimiter `[`", "unclosed delimiter `(`"]
        );
        assert!(scan.open.is_empty());
    }

    #[test]
    fn raw_strings_lifetimes_and_comments_hide_delimiters() {
        let text = "fn a<'a>(x: &'a str) { let s = r#\"}\"#; /* { /* } */ */ b'{'; }\nfn b() {}";
        let scan = scan(text, 0..text.len());
        assert_eq!(scan.chunks.len(), 2);
        assert!(scan.open.is_empty());
    }

    #[test]
    fn generic_angle_brackets_count_toward_the_depth_and_comparisons_do_not() {
        let deep = |text: &str, max: usize| -> Vec<String> {
            let scan = scan_nesting(text, 0..text.len(), max);
            scan.deep
                .iter()
                .map(|r| text[r.clone()].to_owned())
                .collect()
        };
        let text = "const A: [bool; 2] = [a < b, x << 2 > y];\ntype T = Vec<Vec<u8>>;\n";
        assert_eq!(deep(text, 1), ["u8"]);
        assert_eq!(deep(text, 2), Vec::<String>::new());
        // `a<b` left open as a comparison is forgotten at `;`.
        assert_eq!(deep("fn f() { a<b; c<d; }", 2), Vec::<String>::new());
        assert_eq!(deep("fn f() { a<b(c<d) }", 2), ["c<d"]);
    }

    #[test]
    fn prefix_chains_count_toward_the_depth_and_binary_operators_do_not() {
        let deep = |text: &str, max: usize| -> Vec<String> {
            let scan = scan_nesting(text, 0..text.len(), max);
            scan.deep
                .iter()
                .map(|r| text[r.clone()].to_owned())
                .collect()
        };
        assert_eq!(deep("type T = &&&'a mut &u8;", 2), ["'a mut &"]);
        assert_eq!(deep("type T = *const *mut *const i32;", 2), [" "]);
        assert_eq!(deep("type T = fn(u8) -> fn() -> fn() -> u8;", 2), ["", " "]);
        assert_eq!(
            deep("const X: u8 = || |x| |y: (u8, u8)| 1;", 2),
            ["u8, u8", " "]
        );
        assert_eq!(deep("const X: R = .. ..= ..1;", 2), [""]);
        assert_eq!(deep("type T = Vec < Vec < Vec < u8 > > >;", 2), [" u8 "]);
        // Binary operators after operands, comparisons, and chains ended.
        let shallow = "fn f(a: &u8) -> u8 { a & b & c && d || e * f * g | h; \
                       x..y; a < b; (a) | (b) | (c); *a.0 * *b; if a < b && c < d {} \
                       a - -b - c; a != !b; m!(x); }";
        assert_eq!(deep("const X: i8 = - -!-1;", 2), ["-"]);
        assert_eq!(deep(shallow, 2), Vec::<String>::new());
    }

    #[test]
    fn unterminated_literals_are_problems_and_scanning_goes_on() {
        let text = "fn a() { let s = \"oops;\n}\nfn b() {}\n";
        let scan = scan(text, 0..text.len());
        assert_eq!(scan.problems.len(), 1);
        assert_eq!(scan.line_starts, [(text.find("fn b").unwrap_or(0), 0)]);
    }
}
