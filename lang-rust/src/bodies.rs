//! Function bodies, kept out of the signature parse.
//!
//! `syn` builds a full expression tree for every body it parses, which costs
//! most of its time on real code. After lexing, a body is already a balanced
//! brace group, so [`strip_bodies`] replaces each function body's contents by
//! nothing (keeping the group's span, so every line stays exact) before the
//! items are parsed, and keeps the original contents aside. A body is looked at
//! again only for what it holds: nested items (found by a token scan, see
//! [`item_starts`]) and, when it is longer than the block threshold, its
//! control-flow statements (parsed by `syn` then).

use std::collections::HashMap;

use outline_core::blocks::{block_name, splits_body};
use outline_core::text::MAX_VALUE_CHARS;
use outline_core::{Symbol, SymbolKind};
use proc_macro2::{Delimiter, Group, Spacing, Span, TokenStream, TokenTree};
use syn::parse::{ParseStream, Parser};
use syn::spanned::Spanned;
use syn::{Block, Expr, Item, Stmt};

use crate::items::Mapper;

/// What was taken out of the token stream before parsing: function bodies,
/// by the byte offset (in their region) of their opening brace, and the
/// initializers of `const` and `static` items (replaced by `()`, so large
/// tables are not parsed either), by the offset of their first token.
#[derive(Default)]
pub(crate) struct Bodies {
    pub fns: HashMap<usize, Group>,
    pub values: HashMap<usize, TokenStream>,
}

/// `stream` with every function body emptied; the bodies are recorded in
/// `bodies`. A body is the first brace group after a `fn NAME` and its
/// parameter list that is not inside `<…>` (so `-> Foo<{ N }>` is not taken for
/// one).
pub(crate) fn strip_bodies(stream: TokenStream, bodies: &mut Bodies) -> TokenStream {
    let mut out: Vec<TokenTree> = Vec::new();
    // Signature state: `Some(angle depth, parameter list seen)` after `fn NAME`.
    let mut signature: Option<(i32, bool)> = None;
    let mut previous_minus = false;
    // In a `const`/`static` item: angle depth; and the initializer's tokens
    // once its `=` was seen.
    let mut value: Option<(i32, Option<Vec<TokenTree>>)> = None;
    let mut iter = stream.into_iter().peekable();
    while let Some(tree) = iter.next() {
        let mut minus = false;
        if let Some((depth, initializer)) = &mut value {
            let punct = match &tree {
                TokenTree::Punct(p) => Some(p.as_char()),
                _ => None,
            };
            // The initializer ends at `;`, or at the `where` clause of a
            // generic const (`const C<T>: u8 = 1 where T: Copy;`, nightly).
            let end = punct == Some(';') || matches!(&tree, TokenTree::Ident(i) if i == "where");
            match (initializer, punct) {
                (Some(tokens), _) if end => {
                    let tokens = std::mem::take(tokens);
                    if let Some(first) = tokens.first() {
                        let mut empty = Group::new(Delimiter::Parenthesis, TokenStream::new());
                        empty.set_span(first.span());
                        bodies.values.insert(
                            first.span().byte_range().start,
                            tokens.into_iter().collect(),
                        );
                        out.push(TokenTree::Group(empty));
                    }
                    value = None;
                    out.push(tree);
                    continue;
                }
                (Some(tokens), _) => {
                    tokens.push(tree);
                    continue;
                }
                (initializer @ None, Some('=')) if *depth <= 0 && !previous_minus => {
                    *initializer = Some(Vec::new());
                    out.push(tree);
                    continue;
                }
                (None, Some('<')) => *depth += 1,
                (None, Some('>')) if !previous_minus => *depth -= 1,
                (None, Some('-')) => {
                    minus = matches!(&tree, TokenTree::Punct(p) if p.spacing() == Spacing::Joint);
                }
                (None, Some(';')) => value = None,
                _ => {}
            }
            out.push(tree);
            previous_minus = minus;
            continue;
        }
        // A `const` or `static` item, not `const fn` (nor `const unsafe fn`,
        // …) or the nightly `const trait` and `const impl`, whose bodies are
        // stripped as any trait's or impl's.
        if let TokenTree::Ident(ident) = &tree
            && (ident == "const" || ident == "static")
            && signature.is_none()
            && at_item_start(&out)
            && matches!(iter.peek(), Some(TokenTree::Ident(next))
            if !matches!(
                next.to_string().as_str(),
                "fn" | "unsafe" | "async" | "extern" | "trait" | "impl"
            ))
        {
            value = Some((0, None));
            out.push(tree);
            continue;
        }
        match &tree {
            TokenTree::Ident(ident) if signature.is_none() => {
                if ident == "fn" && matches!(iter.peek(), Some(TokenTree::Ident(_))) {
                    signature = Some((0, false));
                }
                out.push(tree);
            }
            TokenTree::Punct(punct) => {
                let mut end = false;
                if let Some((depth, _)) = &mut signature {
                    match punct.as_char() {
                        '<' => *depth += 1,
                        '>' if !previous_minus => *depth -= 1,
                        ';' if *depth <= 0 => end = true,
                        '-' => minus = punct.spacing() == Spacing::Joint,
                        _ => {}
                    }
                }
                if end {
                    signature = None;
                }
                out.push(tree);
            }
            TokenTree::Group(group) => match &mut signature {
                Some((depth, params)) if *depth <= 0 => match group.delimiter() {
                    Delimiter::Parenthesis if !*params => {
                        *params = true;
                        out.push(tree);
                    }
                    Delimiter::Brace if *params => {
                        let mut empty = Group::new(Delimiter::Brace, TokenStream::new());
                        empty.set_span(group.span());
                        bodies
                            .fns
                            .insert(group.span_open().byte_range().start, group.clone());
                        out.push(TokenTree::Group(empty));
                        signature = None;
                    }
                    _ => out.push(tree),
                },
                Some(_) => out.push(tree),
                None => {
                    if matches!(group.delimiter(), Delimiter::Brace | Delimiter::Bracket) {
                        out.push(TokenTree::Group(strip_group(group, bodies)));
                    } else {
                        out.push(tree);
                    }
                }
            },
            _ => out.push(tree),
        }
        previous_minus = minus;
    }
    out.into_iter().collect()
}

/// Whether the tokens pushed so far end where an item may start: at the
/// beginning, after `;`, a `{ … }`, an attribute's `[…]`, `pub`, `pub(…)` or
/// `default`.
fn at_item_start(out: &[TokenTree]) -> bool {
    match out.last() {
        None => true,
        Some(TokenTree::Punct(p)) => p.as_char() == ';',
        Some(TokenTree::Group(g)) => match g.delimiter() {
            Delimiter::Brace | Delimiter::Bracket => true,
            Delimiter::Parenthesis => {
                out.len() >= 2 && matches!(&out[out.len() - 2], TokenTree::Ident(i) if i == "pub")
            }
            Delimiter::None => false,
        },
        Some(TokenTree::Ident(i)) => i == "pub" || i == "default",
        Some(TokenTree::Literal(_)) => false,
    }
}

/// `group` with the function bodies inside it emptied.
fn strip_group(group: &Group, bodies: &mut Bodies) -> Group {
    let mut stripped = Group::new(group.delimiter(), strip_bodies(group.stream(), bodies));
    stripped.set_span(group.span());
    stripped
}

/// Keywords that can begin an item (after attributes and visibility).
fn starts_item(trees: &[TokenTree], at: usize) -> bool {
    let ident = |i: usize| match trees.get(i) {
        Some(TokenTree::Ident(ident)) => Some(ident.to_string()),
        _ => None,
    };
    let punct =
        |i: usize, c: char| matches!(trees.get(i), Some(TokenTree::Punct(p)) if p.as_char() == c);
    let Some(word) = ident(at) else {
        return false;
    };
    let next = ident(at + 1);
    let next_is_ident = next.is_some();
    match word.as_str() {
        "fn" | "struct" | "enum" | "trait" | "mod" | "type" => next_is_ident,
        "union" => next_is_ident,
        "impl" => true,
        "const" => {
            next_is_ident
                || punct(at + 1, '_')
                || matches!(trees.get(at + 1), Some(TokenTree::Ident(_)))
        }
        "static" => next_is_ident,
        "unsafe" => matches!(
            next.as_deref(),
            Some("fn" | "impl" | "trait" | "extern" | "mod")
        ),
        "async" => matches!(next.as_deref(), Some("fn" | "unsafe")),
        "extern" => {
            matches!(next.as_deref(), Some("crate" | "fn"))
                || matches!(trees.get(at + 1), Some(TokenTree::Literal(_)))
        }
        "macro_rules" => punct(at + 1, '!'),
        "macro" => next_is_ident,
        "auto" => next.as_deref() == Some("trait"),
        "pub" => true,
        _ => false,
    }
}

/// Positions in `trees` (one token level of a body) where an item may start:
/// at a statement start (the first token, or after `;` or a `{ … }`), outer
/// attributes included, followed by an item keyword.
pub(crate) fn item_starts(trees: &[TokenTree]) -> Vec<usize> {
    let mut out = Vec::new();
    let mut at_statement = true;
    let mut i = 0;
    while i < trees.len() {
        if at_statement {
            let mut j = i;
            while matches!(trees.get(j), Some(TokenTree::Punct(p)) if p.as_char() == '#')
                && matches!(trees.get(j + 1), Some(TokenTree::Group(g)) if g.delimiter() == Delimiter::Bracket)
            {
                j += 2;
            }
            if starts_item(trees, j) {
                out.push(i);
            }
        }
        at_statement = match &trees[i] {
            TokenTree::Punct(p) => p.as_char() == ';',
            TokenTree::Group(g) => match g.delimiter() {
                Delimiter::Brace => true,
                // After an attribute, inner (`#![allow(…)]`) or outer.
                Delimiter::Bracket => {
                    i > 0
                        && matches!(&trees[i - 1], TokenTree::Punct(p) if matches!(p.as_char(), '#' | '!'))
                }
                _ => false,
            },
            _ => false,
        };
        i += 1;
    }
    out
}

/// The children of a function whose body's opening brace has span `open`:
/// the items defined in the body (at any depth of blocks and closures, but not
/// inside nested items' own bodies, which are their children), and, when the
/// body spans more than the block threshold, its control-flow statements as
/// blocks holding the items inside them.
pub(crate) fn body_children(mapper: &Mapper<'_, '_, '_>, open: Span, end_line: u32) -> Vec<Symbol> {
    let key = open.byte_range().start;
    let Some(group) = mapper.bodies.borrow_mut().fns.remove(&key) else {
        return Vec::new();
    };
    let region = mapper.region;
    let first_line = region.line(region.range(group.span()).start);
    let long = splits_body(first_line, end_line, mapper.options.block_threshold);
    let text = region
        .file
        .text
        .get(region.range(group.span()))
        .unwrap_or_default();
    let stripped = {
        let mut bodies = mapper.bodies.borrow_mut();
        strip_bodies(group.stream(), &mut bodies)
    };
    // The item parse skipped this body: parse it now, so an error inside it
    // is reported (never a broken file that looks clean).
    let parser = |input: ParseStream<'_>| {
        // Inner attributes (`#![allow(…)]`) may open a body.
        input.call(syn::Attribute::parse_inner)?;
        Block::parse_within(input)
    };
    let parsed = parser.parse2(stripped.clone());
    if let Err(error) = &parsed
        && !mapper.in_macro.get()
    {
        let span = error.span().byte_range();
        // A call-site span (0..0) means "unexpected end of input": the body's
        // closing brace.
        let offset = if span == (0..0) {
            group.span_close().byte_range().start
        } else {
            span.start
        };
        let offset = (region.base + offset).min(region.limit);
        mapper
            .body_errors
            .borrow_mut()
            .push((offset, error.to_string()));
    }
    if !long && !might_hold_items(text) {
        return Vec::new();
    }
    let mut items = Vec::new();
    scan_items(mapper, stripped, false, &mut items);
    if !long {
        return items;
    }
    let Ok(stmts) = parsed else {
        return items;
    };
    let mut out = blocks(mapper, &stmts, 1);
    for item in items {
        place(&mut out, item);
    }
    out
}

/// Puts `symbol` into the innermost block of `out` whose lines hold it, or at
/// its place in `out`.
fn place(out: &mut Vec<Symbol>, symbol: Symbol) {
    if let Some(block) = out.iter_mut().find(|b| {
        b.kind == SymbolKind::Block
            && b.start_line <= symbol.start_line
            && symbol.end_line <= b.end_line
    }) {
        place(&mut block.children, symbol);
        return;
    }
    let at = out.partition_point(|s| s.start_line <= symbol.start_line);
    out.insert(at, symbol);
}

/// Items written in `stream` (a stripped body) and in the groups inside it;
/// those inside a macro invocation's arguments (`quote! { … }`,
/// `thread_local! { … }`) are marked as coming from a macro.
fn scan_items(
    mapper: &Mapper<'_, '_, '_>,
    stream: TokenStream,
    from_macro: bool,
    out: &mut Vec<Symbol>,
) {
    let trees: Vec<TokenTree> = stream.into_iter().collect();
    let starts = item_starts(&trees);
    let mut i = 0;
    while i < trees.len() {
        if starts.contains(&i) {
            let rest: TokenStream = trees[i..].iter().cloned().collect();
            let parser = |input: ParseStream<'_>| {
                let item: Item = input.parse()?;
                let _rest: TokenStream = input.parse()?;
                Ok(item)
            };
            if let Ok(item) = parser.parse2(rest) {
                let end = item.span().byte_range().end;
                mapper.item_into(&item, from_macro, out);
                while i < trees.len() && tree_start(&trees[i]) < end {
                    i += 1;
                }
                continue;
            }
        }
        if let TokenTree::Group(group) = &trees[i] {
            let macro_arguments =
                i > 0 && matches!(&trees[i - 1], TokenTree::Punct(p) if p.as_char() == '!');
            scan_items(mapper, group.stream(), from_macro || macro_arguments, out);
        }
        i += 1;
    }
}

fn tree_start(tree: &TokenTree) -> usize {
    match tree {
        TokenTree::Group(g) => g.span_open().byte_range().start,
        other => other.span().byte_range().start,
    }
}

/// Control-flow statements of `stmts` as blocks; a block longer than the
/// threshold holds the blocks of its own statements, down to `depth`
/// [`outline_core::MAX_SYMBOL_DEPTH`] (deeper ones would be cut from the
/// outline anyway, and each level costs a walk of its tokens).
fn blocks(mapper: &Mapper<'_, '_, '_>, stmts: &[Stmt], depth: usize) -> Vec<Symbol> {
    let region = mapper.region;
    let mut out = Vec::new();
    for stmt in stmts {
        // `match x { … }`, and `let y = match x { … };` (the whole statement,
        // named `let y = match x`).
        let (expr, range, prefix) = match stmt {
            Stmt::Expr(expr, _) => (expr, region.node_range(expr), String::new()),
            Stmt::Local(local) => {
                let Some(init) = &local.init else {
                    continue;
                };
                if init.diverge.is_some() || !is_control_flow(&init.expr) {
                    continue;
                }
                let pattern = region.tokens_text(
                    quote::ToTokens::to_token_stream(&local.pat),
                    MAX_VALUE_CHARS,
                );
                (
                    &*init.expr,
                    region.node_range(local),
                    format!("let {pattern} = "),
                )
            }
            _ => continue,
        };
        let Some((header, inner)) = control_flow(mapper, expr) else {
            continue;
        };
        let header = format!("{prefix}{header}");
        let start = region.line(range.start);
        let end = region.end_line(&range);
        let mut block = Symbol::new(block_name(&header), SymbolKind::Block, start, end);
        block.name_column = region.column(range.start);
        if depth < outline_core::MAX_SYMBOL_DEPTH
            && splits_body(start, end, mapper.options.block_threshold)
        {
            for body in inner {
                block
                    .children
                    .extend(blocks(mapper, &body.stmts, depth + 1));
            }
        }
        out.push(block);
    }
    out
}

/// Whether `expr` is one of the control-flow expressions that make blocks
/// (checked before building the header text of a `let` statement).
fn is_control_flow(expr: &Expr) -> bool {
    matches!(
        expr,
        Expr::If(_)
            | Expr::ForLoop(_)
            | Expr::While(_)
            | Expr::Loop(_)
            | Expr::Match(_)
            | Expr::Unsafe(_)
    )
}

/// The header and the inner blocks of a control-flow expression: an
/// `if`/`else` chain, `for`, `while`, `loop`, `match` or `unsafe { }`.
fn control_flow<'e>(
    mapper: &Mapper<'_, '_, '_>,
    expr: &'e Expr,
) -> Option<(String, Vec<&'e Block>)> {
    let region = mapper.region;
    let text =
        |node: &dyn quote::ToTokens| region.tokens_text(node.to_token_stream(), MAX_VALUE_CHARS);
    let label = |label: &Option<syn::Label>| {
        label
            .as_ref()
            .map(|l| format!("{}: ", l.name))
            .unwrap_or_default()
    };
    Some(match expr {
        Expr::If(e) => {
            let mut inner = vec![&e.then_branch];
            let mut next = e.else_branch.as_ref().map(|(_, e)| &**e);
            while let Some(branch) = next {
                next = match branch {
                    Expr::If(elif) => {
                        inner.push(&elif.then_branch);
                        elif.else_branch.as_ref().map(|(_, e)| &**e)
                    }
                    Expr::Block(b) => {
                        inner.push(&b.block);
                        None
                    }
                    _ => None,
                };
            }
            (format!("if {}", text(&*e.cond)), inner)
        }
        Expr::ForLoop(e) => (
            format!(
                "{}for {} in {}",
                label(&e.label),
                text(&*e.pat),
                text(&*e.expr)
            ),
            vec![&e.body],
        ),
        Expr::While(e) => (
            format!("{}while {}", label(&e.label), text(&*e.cond)),
            vec![&e.body],
        ),
        Expr::Loop(e) => (format!("{}loop", label(&e.label)), vec![&e.body]),
        Expr::Match(e) => (
            format!("match {}", text(&*e.expr)),
            e.arms
                .iter()
                .filter_map(|arm| match &*arm.body {
                    Expr::Block(b) => Some(&b.block),
                    _ => None,
                })
                .collect(),
        ),
        Expr::Unsafe(e) => ("unsafe".to_owned(), vec![&e.block]),
        _ => return None,
    })
}

/// Whether `text` (a body's source) has a word that can begin an item: a
/// cheap test that spares most bodies the token scan. Words inside strings
/// and comments only cost a scan.
pub(crate) fn might_hold_items(text: &str) -> bool {
    const WORDS: &[&[u8]] = &[
        b"fn",
        b"struct",
        b"enum",
        b"union",
        b"trait",
        b"impl",
        b"mod",
        b"type",
        b"const",
        b"static",
        b"macro_rules",
        b"macro",
        b"extern",
    ];
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if b.is_ascii_alphabetic() || b == b'_' {
            let start = i;
            while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_') {
                i += 1;
            }
            let lifetime = start > 0 && bytes[start - 1] == b'\'';
            if !lifetime && WORDS.contains(&&bytes[start..i]) {
                return true;
            }
        } else {
            i += 1;
        }
    }
    false
}
