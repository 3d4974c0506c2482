//! # lang-ts
//!
//! The TypeScript/JavaScript adapter of ast-outline: implements
//! [`outline_core::Outline`] on swc's parser (`swc_ecma_parser`), with the
//! syntax chosen by the file's language (TypeScript, TSX, JavaScript with JSX;
//! decorators on) and comments kept so JSDoc can be read.
//!
//! Lines equal the TypeScript compiler's (`node.getStart()`, which includes
//! decorators and modifiers but not JSDoc, to `node.getEnd()`); a preceding
//! JSDoc is given separately as `doc_start_line`. When swc reports a syntax
//! error (fatal or recovered), the file is split into its top-level
//! statements and each is parsed alone (see `recovery.rs`). A statement that
//! still fails is parsed again with parts blanked (spaces, line ends kept, so
//! every offset stays exact): a class or namespace keeps each member that
//! parses alone and, for a broken member, leaves out only the innermost block
//! around its error (or its body, or the member); any other statement leaves
//! out the innermost blocks around its errors, or its body. Each part left
//! out is an error diagnostic naming its lines.
//!
//! ```
//! use lang_ts::TypeScriptOutline;
//! use outline_core::{Language, Outline, OutlineOptions};
//!
//! let source = "/** A queue. */\nexport class Queue<T> {\n  push(item: T): void {}\n}\n";
//! let outline = TypeScriptOutline.outline("queue.ts", Language::Typescript, source, &OutlineOptions::default());
//! let queue = &outline.symbols[0];
//! assert_eq!((queue.start_line, queue.end_line, queue.doc_start_line), (2, 4, Some(1)));
//! let push = &queue.children[0];
//! assert_eq!(push.id, "queue.ts:3:Queue.push");
//! assert_eq!(push.signature.as_deref(), Some("push(item: T): void"));
//! ```
//!
//! Architecture invariant: this crate only maps swc's tree to the core model;
//! it does no I/O.

mod bindings;
mod blocks;
mod callbacks;
mod classes;
mod docs;
mod imports;
mod parse;
mod recovery;
mod references;
mod signature;
mod source;
mod symbols;
mod types;
mod values;

use std::cell::Cell;

use outline_core::text::collapse_whitespace;
use outline_core::xref::Facts;
use outline_core::{Diagnostic, Extracted, Language, Outline, OutlineOptions, Severity};
use swc_common::Spanned;
use swc_common::comments::SingleThreadedComments;
use swc_ecma_ast::{
    Decl, DefaultDecl, ExportDecl, ExportDefaultDecl, ModuleDecl, ModuleItem, Stmt,
};
use swc_ecma_parser::Syntax;
use swc_ecma_parser::error::Error;

use crate::source::Source;
use crate::symbols::Walker;

/// The TypeScript/JavaScript outline adapter (`.ts`, `.mts`, `.cts`, `.tsx`,
/// `.js`, `.mjs`, `.cjs`, `.jsx`).
#[derive(Debug, Clone, Copy, Default)]
pub struct TypeScriptOutline;

fn diagnostic(source: &Source<'_>, error: &Error, context: Option<(u32, u32)>) -> Diagnostic {
    let span = error.span();
    let mut message = collapse_whitespace(&error.kind().msg());
    if let Some((first, last)) = context {
        message = format!("{message} (statement at lines {first}-{last} left out)");
    }
    Diagnostic {
        line: source.line(span.lo),
        column: source.column(span.lo),
        severity: Severity::Error,
        message,
    }
}

/// A warning when the walk stopped at [`symbols::MAX_WALK_DEPTH`].
fn cut_warning(walker: &Walker<'_, '_>, diagnostics: &mut Vec<Diagnostic>) {
    if walker.cut.get() {
        diagnostics.push(Diagnostic {
            line: 1,
            column: 1,
            severity: Severity::Warning,
            message: format!(
                "statements nested more than {} levels deep are not outlined",
                symbols::MAX_WALK_DEPTH
            ),
        });
    }
}

/// `diagnostics` without repeats of the same line, column and message (swc
/// can report one error more than once, and a statement that fails again
/// during recovery repeats an error already recovered from, sometimes in
/// other words), in their order; a repeat's "(… left out)" note is kept.
fn dedup(diagnostics: Vec<Diagnostic>) -> Vec<Diagnostic> {
    let mut out: Vec<Diagnostic> = Vec::new();
    // Indices in `out` of the diagnostics at each (line, column): comparing
    // each diagnostic with all kept before took time quadratic in their
    // number (8,000 errors: 22 s).
    let mut at: std::collections::HashMap<(u32, u32), Vec<usize>> =
        std::collections::HashMap::new();
    // The message without its "(… left out)" note, and the note.
    let split = |message: &str| -> (String, String) {
        match message.rfind(" (") {
            Some(at) if message.ends_with("left out)") => (
                message.get(..at).unwrap_or(message).to_owned(),
                message.get(at..).unwrap_or_default().to_owned(),
            ),
            _ => (message.to_owned(), String::new()),
        }
    };
    for d in diagnostics {
        let (message, note) = split(&d.message);
        let kept = at.entry((d.line, d.column)).or_default();
        let same = kept.iter().copied().find(|&i| {
            out.get(i).is_some_and(|o| {
                let (old, old_note) = split(&o.message);
                old == message || note.is_empty() != old_note.is_empty()
            })
        });
        match same.and_then(|i| out.get_mut(i)) {
            // One error at one place: the first message (the cause swc saw
            // first), with the note of what was left out.
            Some(o) => {
                let (old, old_note) = split(&o.message);
                if old_note.is_empty() {
                    o.message = format!("{old}{note}");
                }
            }
            None => {
                kept.push(out.len());
                out.push(d);
            }
        }
    }
    out
}

/// Whether `items` declare a namespace or module (`namespace N {}`,
/// `module M {}`, `declare module "m" {}`, exported or not).
fn declares_namespace(items: &[ModuleItem]) -> bool {
    items.iter().any(|item| {
        matches!(
            item,
            ModuleItem::Stmt(Stmt::Decl(Decl::TsModule(_)))
                | ModuleItem::ModuleDecl(ModuleDecl::ExportDecl(ExportDecl {
                    decl: Decl::TsModule(_),
                    ..
                }))
        )
    })
}

/// Whether `items` hold a declaration `is` accepts, exported or not.
fn declares(items: &[ModuleItem], is: impl Fn(&Decl) -> bool) -> bool {
    items.iter().any(|item| match item {
        ModuleItem::Stmt(Stmt::Decl(decl)) => is(decl),
        ModuleItem::ModuleDecl(ModuleDecl::ExportDecl(ExportDecl { decl, .. })) => is(decl),
        _ => false,
    })
}

/// Whether `items` declare a class (`class X {}`, exported or default).
fn declares_class(items: &[ModuleItem]) -> bool {
    items.iter().any(|item| {
        matches!(
            item,
            ModuleItem::Stmt(Stmt::Decl(Decl::Class(_)))
                | ModuleItem::ModuleDecl(
                    ModuleDecl::ExportDecl(ExportDecl {
                        decl: Decl::Class(_),
                        ..
                    }) | ModuleDecl::ExportDefaultDecl(ExportDefaultDecl {
                        decl: DefaultDecl::Class(_),
                        ..
                    })
                )
        )
    })
}

/// Recovery of a top-level statement at `range` that failed with `error`
/// and ends in a `{…}` body (a class, function, namespace, interface, enum,
/// object literal…): the statement is parsed again with its body blanked
/// (every byte a space, line ends kept, so all offsets stay exact), which
/// keeps the declaration, its header and its real lines. A class body is
/// split into its members; each is tried alone (inside `class R{…}`, at its
/// own offset), and only those that still fail are blanked, each reported
/// with its own error and lines. `None` when the statement has no body or
/// its header alone does not parse.
fn recover_body(
    source: &Source<'_>,
    scan: &str,
    range: std::ops::Range<usize>,
    syntax: swc_ecma_parser::Syntax,
    comments: &SingleThreadedComments,
    error: &Error,
) -> Option<(Vec<ModuleItem>, Vec<Diagnostic>)> {
    type Span = std::ops::Range<usize>;
    let text = source.text;
    let (open, close) = recovery::body_braces(scan, range.clone())?;
    // `text[within]` with `blanks` blanked and a `}` forced at each of
    // `closers` (a body whose braces did not balance still ends with one).
    let blanked = |within: &Span, blanks: &[Span], closers: &[usize]| -> Option<String> {
        let local: Vec<Span> = blanks
            .iter()
            .map(|r| r.start.saturating_sub(within.start)..r.end.saturating_sub(within.start))
            .collect();
        let mut out = recovery::blank(text.get(within.clone())?, &local);
        for close in closers {
            let at = close.checked_sub(within.start)?;
            if out.get(at..=at)? != "}" {
                out.replace_range(at..=at, "}");
            }
        }
        Some(out)
    };
    let body = open + 1..close;
    let scratch = SingleThreadedComments::default();
    let header_only = blanked(&range, std::slice::from_ref(&body), &[close])?;
    let header = parse::parse(&header_only, range.start, syntax, &scratch)
        .items
        .ok()?;
    let first = source.index.line(open);
    let last = source.index.end_line(open, close + 1);
    let left_out = |e: &Error, what: &str, span: &Span| {
        let first = source.index.line(span.start);
        let last = source.index.end_line(span.start, span.end);
        let mut d = diagnostic(source, e, None);
        if source.offset(e.span().lo) >= span.end {
            // Past the member: its brackets do not balance.
            d.line = last;
            d.column = source.index.column(span.end.saturating_sub(1));
            d.message = "Unclosed bracket".to_owned();
        } else if d.line < first {
            // Inside the wrapper that was put before it.
            d.line = first;
            d.column = source.index.column(span.start);
        }
        d.message = format!("{} ({what} at lines {first}-{last} left out)", d.message);
        d
    };
    // Members of a class, an interface or an enum are tried inside
    // `class R{…}`, `interface R{…}`, `enum R{…}`; statements of a namespace
    // alone.
    let wrapper = if declares_class(&header) {
        Some(("class R{", "\n}"))
    } else if declares(&header, |d| matches!(d, Decl::TsInterface(_))) {
        Some(("interface R{", "\n}"))
    } else if declares(&header, |d| matches!(d, Decl::TsEnum(_))) {
        Some(("enum R{", "\n}"))
    } else if declares_namespace(&header) {
        Some(("", ""))
    } else {
        None
    };
    if let Some((before, after)) = wrapper {
        let mut blanks: Vec<Span> = Vec::new();
        let mut closers = vec![close];
        let mut member_diagnostics = Vec::new();
        let members = recovery::split_members(scan, body.clone());
        let fails = |member: &Span, member_blanks: &[Span], member_closers: &[usize]| {
            let (Some(member_text), Some(offset)) = (
                blanked(member, member_blanks, member_closers),
                member.start.checked_sub(before.len()),
            ) else {
                return Some(error.clone());
            };
            let wrapped = format!("{before}{member_text}{after}");
            parse::parse(&wrapped, offset, syntax, &scratch).items.err()
        };
        let mut index = 0;
        while let Some(member) = members.get(index) {
            index += 1;
            let Some(member_error) = fails(member, &[], &[]) else {
                continue;
            };
            // A member split from its decorators or continuation: try it
            // with the next one.
            if let Some(next) = members.get(index)
                && fails(&(member.start..next.end), &[], &[]).is_none()
            {
                index += 1;
                continue;
            }
            // The innermost block around its error left out (a method's
            // body, or a method's body inside a nested class).
            let at = source.offset(member_error.span().lo);
            let mut around: Vec<(usize, usize)> = recovery::brace_pairs(scan, member.clone())
                .into_iter()
                .filter(|(o, c)| *o < at && at <= *c)
                .collect();
            around.sort_by_key(|(o, c)| c - o);
            if let Some((o, c)) = around
                .into_iter()
                .take(3)
                .find(|(o, c)| fails(member, std::slice::from_ref(&(o + 1..*c)), &[]).is_none())
            {
                member_diagnostics.push(left_out(&member_error, "block", &(o..c + 1)));
                blanks.push(o + 1..c);
                continue;
            }
            // Its header alone, its body left out.
            if let Some((o, c)) = recovery::body_braces(scan, member.clone())
                && fails(member, std::slice::from_ref(&(o + 1..c)), &[c]).is_none()
            {
                member_diagnostics.push(left_out(&member_error, "body", &(o..c + 1)));
                blanks.push(o + 1..c);
                closers.push(c);
                continue;
            }
            // The member left out with the comments before it, so its doc
            // comment is not taken for the next member's.
            member_diagnostics.push(left_out(&member_error, "member", member));
            let lead = index
                .checked_sub(2)
                .and_then(|p| members.get(p))
                .map_or(body.start, |p| p.end)
                .clamp(body.start, member.start);
            blanks.push(lead..member.end);
        }
        if !member_diagnostics.is_empty()
            && let Some(kept) = blanked(&range, &blanks, &closers)
        {
            let parsed = parse::parse(&kept, range.start, syntax, comments);
            if let Ok(items) = parsed.items {
                let mut diagnostics: Vec<Diagnostic> = parsed
                    .recovered
                    .iter()
                    .map(|e| diagnostic(source, e, None))
                    .collect();
                diagnostics.extend(member_diagnostics);
                return Some((items, diagnostics));
            }
        }
    }
    if let Some(recovered) = recover_blocks(source, scan, range.clone(), syntax, comments, error) {
        return Some(recovered);
    }
    let parsed = parse::parse(&header_only, range.start, syntax, comments);
    let items = parsed.items.ok()?;
    let mut d = diagnostic(source, error, None);
    d.message = format!("{} (body at lines {first}-{last} left out)", d.message);
    Some((items, vec![d]))
}

/// Most blocks blanked while recovering one statement.
const MAX_BLANKED_BLOCKS: usize = 8;

/// Recovery of a failed statement by leaving out the innermost `{…}` block
/// around each error (a function body, an `if` block…), as long as the
/// blanked statement then parses: what is outside those blocks, nested
/// functions included, keeps its exact lines. `None` when no block around
/// the error helps within [`MAX_BLANKED_BLOCKS`] tries.
fn recover_blocks(
    source: &Source<'_>,
    scan: &str,
    range: std::ops::Range<usize>,
    syntax: swc_ecma_parser::Syntax,
    comments: &SingleThreadedComments,
    error: &Error,
) -> Option<(Vec<ModuleItem>, Vec<Diagnostic>)> {
    let text = source.text;
    let piece = text.get(range.clone())?;
    let pairs = recovery::brace_pairs(scan, range.clone());
    let scratch = SingleThreadedComments::default();
    let mut blanks: Vec<std::ops::Range<usize>> = Vec::new();
    let mut diagnostics = Vec::new();
    let mut error = error.clone();
    let mut tries = 0;
    loop {
        let at = source.offset(error.span().lo);
        // The innermost block around the error that is not yet blanked.
        let (open, close) = pairs
            .iter()
            .filter(|(open, close)| *open < at && at <= *close)
            .filter(|(open, close)| {
                !blanks
                    .iter()
                    .any(|b| b.start <= open + 1 && *close <= b.end)
            })
            .min_by_key(|(open, close)| close - open)
            .copied()?;
        tries += 1;
        if tries > MAX_BLANKED_BLOCKS {
            return None;
        }
        blanks.retain(|b| !(open < b.start && b.end <= close));
        blanks.push(open + 1..close);
        let mut d = diagnostic(source, &error, None);
        let first = source.index.line(open);
        let last = source.index.end_line(open, close + 1);
        d.message = format!("{} (block at lines {first}-{last} left out)", d.message);
        diagnostics.retain(|old: &Diagnostic| !(first <= old.line && old.line <= last));
        diagnostics.push(d);
        let local: Vec<_> = blanks
            .iter()
            .map(|b| b.start - range.start..b.end - range.start)
            .collect();
        let mut blanked = recovery::blank(piece, &local);
        // A block closed by the `)` after it (its `}` missing, see
        // `recovery::scan`) gets a `}` in its last blanked byte.
        for b in &local {
            if piece.get(b.end..=b.end).is_some_and(|c| c != "}")
                && let Some(at) = blanked
                    .get(b.start..b.end)
                    .and_then(|inside| inside.rfind(' '))
            {
                blanked.replace_range(b.start + at..=b.start + at, "}");
            }
        }
        match parse::parse(&blanked, range.start, syntax, &scratch).items {
            Ok(_) => {
                let parsed = parse::parse(&blanked, range.start, syntax, comments);
                let items = parsed.items.ok()?;
                diagnostics.extend(parsed.recovered.iter().map(|e| diagnostic(source, e, None)));
                return Some((items, diagnostics));
            }
            Err(next) => error = next,
        }
    }
}

/// The error of the statement at `range` that failed with `error`, looked
/// for again without a leading `export`: swc reports an error inside
/// `export namespace N { … }` at the `namespace` keyword, as if the whole
/// declaration were wrong. The error further into the statement is kept.
fn real_error(
    source: &Source<'_>,
    range: std::ops::Range<usize>,
    syntax: swc_ecma_parser::Syntax,
    error: Error,
) -> Error {
    let Some(piece) = source.text.get(range.clone()) else {
        return error;
    };
    let Some(rest) = piece.strip_prefix("export") else {
        return error;
    };
    if !rest.starts_with(|c: char| c.is_whitespace()) {
        return error;
    }
    let unexported = recovery::blank(piece, std::slice::from_ref(&(0..6)));
    let scratch = SingleThreadedComments::default();
    match parse::parse(&unexported, range.start, syntax, &scratch).items {
        Err(inner) if inner.span().lo > error.span().lo => inner,
        _ => error,
    }
}

impl Outline for TypeScriptOutline {
    /// Parses on the caller's thread. swc's parser grows its own stack, but
    /// the walk and the drop of a deep tree recurse: the caller provides a
    /// large stack (the `ast-outline` library's entry points do), and
    /// statements nested deeper than [`OutlineOptions::max_nesting`] brackets
    /// are reported instead of parsed.
    ///
    /// An `else if` chain longer than [`MAX_ELSE_IF_CHAIN`] is cut into
    /// chains of at most that many (the `else` before each cut blanked), with
    /// a warning: swc walks the whole chain for each `else if` it appends
    /// (time quadratic in its length: 30,000 took 17 s).
    fn extract(&self, text: &str, language: Language, options: &OutlineOptions) -> Extracted {
        extract_cut(text, language, options, false, false).0
    }

    /// [`Outline::extract`], a declaration file (`.d.ts`) parsed as one:
    /// in an ambient context, where `export const a: T;` is valid.
    fn extract_file(
        &self,
        path: &str,
        text: &str,
        language: Language,
        options: &OutlineOptions,
    ) -> Extracted {
        extract_cut(
            text,
            language,
            options,
            false,
            parse::is_declaration_file(path),
        )
        .0
    }

    /// [`Outline::extract_with_facts`], a declaration file parsed as one.
    fn extract_file_with_facts(
        &self,
        path: &str,
        text: &str,
        language: Language,
        options: &OutlineOptions,
    ) -> (Extracted, Facts) {
        let dts = parse::is_declaration_file(path);
        let (extracted, facts) = extract_cut(text, language, options, true, dts);
        (extracted, facts.unwrap_or_default())
    }

    /// [`Outline::extract`] and the cross-reference facts of the same tree
    /// (see `references.rs`).
    fn extract_with_facts(
        &self,
        text: &str,
        language: Language,
        options: &OutlineOptions,
    ) -> (Extracted, Facts) {
        let (extracted, facts) = extract_cut(text, language, options, true, false);
        (extracted, facts.unwrap_or_default())
    }
}

/// The extraction, with long `else if` chains cut (see
/// [`TypeScriptOutline`]'s `extract`); with `want_facts`, also the facts.
fn extract_cut(
    text: &str,
    language: Language,
    options: &OutlineOptions,
    want_facts: bool,
    dts: bool,
) -> (Extracted, Option<Facts>) {
    let cuts = recovery::else_if_cuts(text, MAX_ELSE_IF_CHAIN);
    if cuts.is_empty() {
        return extract_here(text, language, options, want_facts, dts);
    }
    let cut = recovery::blank(text, &cuts);
    let (mut extracted, facts) = extract_here(&cut, language, options, want_facts, dts);
    let source = Source::new(text);
    extracted
        .diagnostics
        .extend(cuts.iter().map(|at| Diagnostic {
            line: source.index.line(at.start),
            column: source.index.column(at.start),
            severity: Severity::Warning,
            message: format!(
                "more than {MAX_ELSE_IF_CHAIN} `else if` in one chain: \
                 the chain is outlined as separate `if` statements from here"
            ),
        }));
    (extracted, facts)
}

/// The longest `else if` chain parsed as one (see [`TypeScriptOutline`]'s
/// `extract`).
pub const MAX_ELSE_IF_CHAIN: usize = 1000;

/// The extraction itself, on the current thread.
fn extract_here(
    text: &str,
    language: Language,
    options: &OutlineOptions,
    want_facts: bool,
    dts: bool,
) -> (Extracted, Option<Facts>) {
    {
        let source = Source::new(text);
        let syntax = parse::syntax(language, dts);
        let comments = SingleThreadedComments::default();
        // Parsing, walking and dropping a tree recurse once per level.
        let max_nesting = usize::try_from(options.nesting_limit()).unwrap_or(usize::MAX);
        let (pieces, max_depth, maybe_unbalanced) = recovery::split(text);
        let too_deep =
            max_depth > max_nesting || pieces.iter().any(|p| p.links > recovery::MAX_CHAIN_LINKS);
        let parsed = if too_deep {
            // Parsing (and dropping) such a tree could exhaust the stack:
            // go straight to the statement-wise path, which skips the deep
            // statements.
            parse::Parsed {
                items: Err(Error::new(
                    swc_common::DUMMY_SP,
                    swc_ecma_parser::error::SyntaxError::TS1003,
                )),
                recovered: Vec::new(),
            }
        } else {
            parse::parse(text, 0, syntax, &comments)
        };
        let mut diagnostics: Vec<Diagnostic> = parsed
            .recovered
            .iter()
            .map(|e| diagnostic(&source, e, None))
            .collect();
        // A clean parse whose brackets or templates do not pair is broken
        // (see `recovery::unbalanced_after_clean_parse`). Only TypeScript's
        // parser parses generic arrows speculatively; the ECMAScript parser
        // rejected every unbalanced text it was measured on (the rxjs
        // `cjs`/`esm` mutants), so JavaScript skips the scan.
        if parsed.items.is_ok()
            && diagnostics.is_empty()
            && maybe_unbalanced
            && matches!(syntax, Syntax::Typescript(_))
            && let Some(at) = recovery::unbalanced_after_clean_parse(text)
        {
            diagnostics.push(unbalanced_diagnostic(&source, text, at));
        }
        // Errors swc recovered from (or the scan above found) can still nest
        // later column-1 declarations inside an unclosed body: then the
        // statement-wise path, whose splitter keeps them at the top level,
        // is preferred.
        let parsed_items = match parsed.items {
            Ok(_) if !diagnostics.is_empty() => Err(None),
            Ok(items) => Ok(items),
            Err(fatal) => Err(Some(fatal)),
        };
        let items: Vec<ModuleItem> = match parsed_items {
            Ok(items) => items,
            Err(fatal) => {
                // Template literals lexed as the language does when they
                // all close (see `recovery::natural_templates`): the pieces
                // are cut again that way.
                return recovery::natural_templates(text, |split_text| {
                    let pieces = match &split_text {
                        Some(split_text) => recovery::split(split_text).0,
                        None => pieces,
                    };
                    // Brackets and members are found in the text split (a
                    // stray backquote blanked); pieces are parsed from the
                    // file's own text.
                    let scan: &str = split_text.as_deref().unwrap_or(text);
                    let mut diagnostics = diagnostics;
                    let original = diagnostics.clone();
                    // Start again, one top-level statement at a time.
                    let comments = SingleThreadedComments::default();
                    let mut items = Vec::new();
                    diagnostics.clear();
                    let mut failed = false;
                    // Statements whose brackets nest too deeply (counted across
                    // the forced splits at column-1 declarations) are reported
                    // once each, not parsed.
                    let deep = if too_deep {
                        recovery::deep_regions(text, max_nesting)
                    } else {
                        Vec::new()
                    };
                    let mut reported = vec![false; deep.len()];
                    for piece_info in pieces {
                        let range = piece_info.range;
                        let Some(piece) = text.get(range.clone()) else {
                            continue;
                        };
                        if let Some(at) = deep
                            .iter()
                            .position(|(r, _)| r.start < range.end && range.start < r.end)
                        {
                            failed = true;
                            if let (Some(done), Some((region, depth))) =
                                (reported.get_mut(at), deep.get(at))
                                && !*done
                            {
                                *done = true;
                                let start = region.start.min(range.start);
                                diagnostics.push(nested_too_deep(
                                    &source,
                                    start..region.end,
                                    *depth,
                                    max_nesting,
                                ));
                            }
                            continue;
                        }
                        if piece_info.depth > max_nesting {
                            failed = true;
                            diagnostics.push(nested_too_deep(
                                &source,
                                range.clone(),
                                piece_info.depth,
                                max_nesting,
                            ));
                            continue;
                        }
                        if piece_info.links > recovery::MAX_CHAIN_LINKS {
                            failed = true;
                            diagnostics.push(too_long_chain(
                                &source,
                                range.clone(),
                                piece_info.links,
                            ));
                            continue;
                        }
                        let parsed = parse::parse(piece, range.start, syntax, &comments);
                        diagnostics.extend(
                            parsed
                                .recovered
                                .iter()
                                .map(|e| diagnostic(&source, e, None)),
                        );
                        match parsed.items {
                            Ok(piece_items) => items.extend(piece_items),
                            Err(error) => {
                                failed = true;
                                let error = real_error(&source, range.clone(), syntax, error);
                                if let Some((piece_items, piece_diagnostics)) = recover_body(
                                    &source,
                                    scan,
                                    range.clone(),
                                    syntax,
                                    &comments,
                                    &error,
                                )
                                .or_else(|| {
                                    recover_blocks(
                                        &source,
                                        scan,
                                        range.clone(),
                                        syntax,
                                        &comments,
                                        &error,
                                    )
                                }) {
                                    items.extend(piece_items);
                                    diagnostics.extend(piece_diagnostics);
                                    continue;
                                }
                                let first = source.index.line(range.start);
                                let last = source.index.end_line(range.start, range.end);
                                diagnostics.push(diagnostic(&source, &error, Some((first, last))));
                            }
                        }
                    }
                    if !failed && diagnostics.is_empty() {
                        // The pieces parsed alone, cleanly, although the whole did
                        // not: keep the original error so the file is still marked.
                        match &fatal {
                            Some(fatal) => diagnostics.push(diagnostic(&source, fatal, None)),
                            None => diagnostics = original,
                        }
                    }
                    outline_items(
                        &source,
                        &comments,
                        options,
                        &items,
                        diagnostics,
                        true,
                        want_facts,
                    )
                });
            }
        };
        let partial = !diagnostics.is_empty();
        outline_items(
            &source,
            &comments,
            options,
            &items,
            diagnostics,
            partial,
            want_facts,
        )
    }
}

/// The error for a text swc parsed cleanly although the bracket or the
/// template literal opening at byte `at` is never closed (found by
/// [`recovery::unbalanced_after_clean_parse`]).
fn unbalanced_diagnostic(source: &Source, text: &str, at: usize) -> Diagnostic {
    let bracket = text.get(at..=at).unwrap_or_default();
    Diagnostic {
        line: source.index.line(at),
        column: source.index.column(at),
        severity: Severity::Error,
        message: if bracket == "\"" || bracket == "'" {
            "unterminated string literal (the parser reported no error, but this \
             quote is never closed on its line)"
                .to_string()
        } else if bracket == "`" {
            "unterminated template literal (the parser reported no error, but this \
             backquote is never closed)"
                .to_string()
        } else {
            format!(
                "`{bracket}` does not balance (the parser reported no error, but the \
                 brackets of the file do not pair)"
            )
        },
    }
}

/// Walks `items` into symbols and imports, with the diagnostics deduplicated
/// and the walk's own depth warning added.
fn outline_items(
    source: &Source<'_>,
    comments: &SingleThreadedComments,
    options: &OutlineOptions,
    items: &[ModuleItem],
    mut diagnostics: Vec<Diagnostic>,
    partial: bool,
    want_facts: bool,
) -> (Extracted, Option<Facts>) {
    let walker = Walker {
        source,
        comments,
        options,
        depth: Cell::new(0),
        cut: Cell::new(false),
    };
    let mut symbols = Vec::new();
    walker.items(items, &mut symbols);
    cut_warning(&walker, &mut diagnostics);
    let split_declare = split_declare(source, items);
    let partial = partial || !split_declare.is_empty();
    diagnostics.extend(split_declare);
    let facts = want_facts.then(|| references::facts(source, items, &symbols));
    let extracted = Extracted {
        symbols,
        imports: imports::module_imports(source, items),
        partial,
        diagnostics: dedup(diagnostics),
        doc: None,
    };
    (extracted, facts)
}

/// `export declare` with a line break after `declare`, which swc accepts but
/// TypeScript does not: a line break after `declare` makes it an identifier
/// (ASI), so the declaration cannot follow `export` (the compiler says
/// "Declaration or statement expected").
fn split_declare(source: &Source<'_>, items: &[ModuleItem]) -> Vec<Diagnostic> {
    items
        .iter()
        .filter_map(|item| match item {
            ModuleItem::ModuleDecl(swc_ecma_ast::ModuleDecl::ExportDecl(export)) => {
                let start = source.offset(export.span.lo);
                let text = source.text.get(start..)?;
                let rest = text.strip_prefix("export")?.trim_start_matches([' ', '\t']);
                let after = rest.strip_prefix("declare")?;
                let gap = &after[..after.len() - after.trim_start().len()];
                if !gap.contains(['\n', '\r']) {
                    return None;
                }
                let at = start + (text.len() - after.len());
                Some(Diagnostic {
                    line: source.index.line(at),
                    column: source.index.column(at),
                    severity: Severity::Error,
                    message: "Declaration or statement expected: a line break after \
                              'declare' ends the statement"
                        .to_owned(),
                })
            }
            _ => None,
        })
        .collect()
}

/// The diagnostic of a statement (byte range `range`) nested more than
/// `max_nesting` brackets deep, which is not parsed.
fn nested_too_deep(
    source: &Source<'_>,
    range: std::ops::Range<usize>,
    depth: usize,
    max_nesting: usize,
) -> Diagnostic {
    let first = source.index.line(range.start);
    let last = source.index.end_line(range.start, range.end);
    Diagnostic {
        line: first,
        column: source.index.column(range.start),
        severity: Severity::Error,
        message: format!(
            "brackets nested {depth} levels deep (more than {max_nesting}): \
             statement at lines {first}-{last} not parsed"
        ),
    }
}

/// The diagnostic of a statement holding an expression of more than
/// [`recovery::MAX_CHAIN_LINKS`] operators, not parsed.
fn too_long_chain(source: &Source<'_>, range: std::ops::Range<usize>, links: usize) -> Diagnostic {
    let first = source.index.line(range.start);
    let last = source.index.end_line(range.start, range.end);
    Diagnostic {
        line: first,
        column: source.index.column(range.start),
        severity: Severity::Error,
        message: format!(
            "an expression of {links} operators (more than {}): statement at lines \
             {first}-{last} not parsed",
            recovery::MAX_CHAIN_LINKS
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn error(line: u32, message: &str) -> Diagnostic {
        Diagnostic {
            line,
            column: 1,
            severity: Severity::Error,
            message: message.to_owned(),
        }
    }

    #[test]
    fn dedup_merges_repeats_at_one_place_only() {
        let merged = dedup(vec![
            error(1, "Expected ';'"),
            error(2, "Expected ';'"),
            error(1, "Expected ';'"),
            error(1, "Unexpected token (statement at lines 1-1 left out)"),
            error(2, "Other"),
        ]);
        let messages: Vec<(u32, &str)> = merged
            .iter()
            .map(|d| (d.line, d.message.as_str()))
            .collect();
        assert_eq!(
            messages,
            [
                (1, "Expected ';' (statement at lines 1-1 left out)"),
                (2, "Expected ';'"),
                (2, "Other"),
            ]
        );
    }

    /// 8,000 statements that each fail (user trial: 22 s, the diagnostics
    /// compared pairwise): one diagnostic each, and the function after kept.
    #[test]
    fn eight_thousand_errors_each_reported_once() {
        let text = format!("{}function after() {{}}\n", "1 = 2;\n".repeat(8000));
        let extracted =
            TypeScriptOutline.extract(&text, Language::Typescript, &OutlineOptions::default());
        let lines: Vec<u32> = extracted.diagnostics.iter().map(|d| d.line).collect();
        assert_eq!(lines, (1..=8000).collect::<Vec<u32>>());
        assert!(extracted.partial);
        let names: Vec<(&str, u32)> = extracted
            .symbols
            .iter()
            .map(|s| (s.name.as_str(), s.start_line))
            .collect();
        assert_eq!(names, [("after", 8001)]);
    }
    /// 2,500 `else if` in one chain (user trial: 100,000 ran over a minute,
    /// swc walking the chain for each): cut into chains of 1,000 with a
    /// warning at each cut; a chain inside a function is counted on its own.
    #[test]
    fn a_long_else_if_chain_is_cut() {
        let chain = format!("if (a) {{}}{}", "\nelse if (a) {}".repeat(2500));
        let text = format!("{chain}\nfunction f() {{\n  if (b) {{}} else if (b) {{}}\n}}\n");
        let cuts = recovery::else_if_cuts(&text, MAX_ELSE_IF_CHAIN);
        let cut_lines: Vec<usize> = cuts
            .iter()
            .map(|at| {
                text.get(..at.start)
                    .unwrap_or_default()
                    .matches('\n')
                    .count()
                    + 1
            })
            .collect();
        assert_eq!(cut_lines, [1002, 2003]);
        assert!(cuts.iter().all(|at| text.get(at.clone()) == Some("else")));
        let extracted =
            TypeScriptOutline.extract(&text, Language::Typescript, &OutlineOptions::default());
        let warnings: Vec<(u32, Severity)> = extracted
            .diagnostics
            .iter()
            .map(|d| (d.line, d.severity))
            .collect();
        assert_eq!(
            warnings,
            [(1002, Severity::Warning), (2003, Severity::Warning)]
        );
        let f = extracted.symbols.iter().find(|s| s.name == "f");
        assert_eq!(f.map(|s| (s.start_line, s.end_line)), Some((2502, 2504)));
    }
    /// 2,000 errors on one line, each reported twice, the second time with
    /// its "left out" note (user trial: `const x = ` and 50,000 `-` ran over
    /// two minutes, its errors compared pairwise): one each, in order, noted.
    #[test]
    fn two_thousand_errors_on_one_line_each_reported_once() {
        let at = |column: u32, message: &str| Diagnostic {
            line: 1,
            column,
            severity: Severity::Error,
            message: message.to_owned(),
        };
        let columns = (0..2000).map(|n| 13 + 2 * n);
        let repeated = columns
            .clone()
            .map(|c| at(c, "Invalid update"))
            .chain(
                columns
                    .clone()
                    .map(|c| at(c, "Invalid update (statement at lines 1-1 left out)")),
            )
            .collect();
        let kept: Vec<(u32, String)> = dedup(repeated)
            .into_iter()
            .map(|d| (d.column, d.message))
            .collect();
        let expected: Vec<(u32, String)> = columns
            .map(|c| {
                (
                    c,
                    "Invalid update (statement at lines 1-1 left out)".to_owned(),
                )
            })
            .collect();
        assert_eq!(kept, expected);
    }
}
