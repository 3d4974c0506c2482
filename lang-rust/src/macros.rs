//! `macro_rules!` definitions and brace-delimited macro invocations.
//!
//! Macros are never expanded. A `macro_rules! name { … }` is a `macro` symbol
//! named `name`. An invocation written with braces at item level
//! (`cfg_if! { … }`, a wrapper macro around a struct) is a `macro` symbol
//! named after its path with a `!` (`cfg_if!`); when its body parses as items,
//! those items are its children, marked `from_macro`. When the body as a whole
//! is not a list of items, each brace group at its top level that is one
//! (`if #[cfg(unix)] { … } else { … }` of `cfg_if!`) gives its items.
//! Invocations with parentheses or brackets are calls, not symbols.

use outline_core::text::{MAX_SIGNATURE_CHARS, MAX_TYPE_CHARS, truncate};
use outline_core::{Symbol, SymbolKind};
use proc_macro2::{Delimiter, TokenStream, TokenTree};
use syn::parse::{ParseStream, Parser};
use syn::{Attribute, Item, ItemMacro, Macro, MacroDelimiter, Visibility};

use crate::items::Mapper;

/// The symbol of an item-level macro item, if it is one.
pub(crate) fn item_macro(
    mapper: &Mapper<'_, '_, '_>,
    item: &Item,
    m: &ItemMacro,
) -> Option<Symbol> {
    if let Some(ident) = &m.ident
        && m.mac.path.is_ident("macro_rules")
    {
        let mut symbol = mapper.base(
            item,
            &m.attrs,
            &Visibility::Inherited,
            ident,
            SymbolKind::Macro,
        );
        symbol.signature = Some(format!("macro_rules! {ident}"));
        return Some(symbol);
    }
    macro_call(mapper, item, &m.attrs, &m.mac)
}

/// The symbol of a brace-delimited macro invocation, with the items of its
/// body; `None` for other delimiters.
pub(crate) fn macro_call(
    mapper: &Mapper<'_, '_, '_>,
    node: &impl quote::ToTokens,
    attrs: &[Attribute],
    mac: &Macro,
) -> Option<Symbol> {
    if !matches!(mac.delimiter, MacroDelimiter::Brace(_)) {
        return None;
    }
    let region = mapper.region;
    let path = region.node_text(&mac.path, MAX_TYPE_CHARS);
    let name_range = region.node_range(&mac.path);
    let mut symbol = mapper.base_at(
        quote::ToTokens::to_token_stream(node),
        attrs,
        &Visibility::Inherited,
        format!("{path}!"),
        name_range,
        SymbolKind::Macro,
    );
    symbol.signature = Some(truncate(&format!("{path}! {{ … }}"), MAX_SIGNATURE_CHARS));
    symbol.children = mapper.items(&body_items(mac), true);
    Some(symbol)
}

/// The items written in the body of the brace-delimited invocation `mac`:
/// the body's items when it parses as a list of items, else those of each
/// brace group at its top level that does (`if #[cfg(unix)] { … } else {
/// … }` of `cfg_if!`); none for other delimiters or `macro_rules!`. The
/// outline's children of a macro symbol and the reference facts read the
/// same items.
pub(crate) fn body_items(mac: &Macro) -> Vec<Item> {
    if !matches!(mac.delimiter, MacroDelimiter::Brace(_)) || mac.path.is_ident("macro_rules") {
        return Vec::new();
    }
    match parse_items(mac.tokens.clone()) {
        Some(items) => items,
        None => {
            let mut items = Vec::new();
            for tree in mac.tokens.clone() {
                if let TokenTree::Group(group) = tree
                    && group.delimiter() == Delimiter::Brace
                    && let Some(found) = parse_items(group.stream())
                {
                    items.extend(found);
                }
            }
            items
        }
    }
}

/// `tokens` as a list of items, when they are one (and not empty); inner
/// attributes before them are skipped (`feature! { #![unix] impl X { … } }`
/// in tokio).
pub(crate) fn parse_items(tokens: TokenStream) -> Option<Vec<Item>> {
    let parser = |input: ParseStream<'_>| {
        Attribute::parse_inner(input)?;
        let mut items = Vec::new();
        while !input.is_empty() {
            items.push(input.parse::<Item>()?);
        }
        Ok(items)
    };
    parser
        .parse2(tokens)
        .ok()
        .filter(|items: &Vec<Item>| !items.is_empty())
}

/// Keywords that start an item whose name follows them (`fn name`,
/// `struct $name`); `union` is a keyword only there.
const ITEM_KEYWORDS: &[&str] = &[
    "fn", "struct", "enum", "union", "type", "trait", "const", "static", "mod",
];

/// Most identifiers kept of one invocation's arguments
/// ([`invocation_idents`]): a generated list of thousands stays bounded.
pub(crate) const MAX_INVOCATION_IDENTS: usize = 256;

/// What the bodies of a `macro_rules!` (its `tokens`, the rules) define:
/// the items named by a literal (`struct Unit;` gives `Unit`), in source
/// order without repeats, and whether an item is named by a fragment (`fn
/// $name`). Read token by token: the matchers (the group before each `=>`)
/// are skipped, the transcribers scanned at any depth (`$( fn $name() {} )*`
/// too); nothing is expanded.
pub(crate) fn macro_rules_items(tokens: TokenStream) -> (Vec<String>, bool) {
    let mut items = Vec::new();
    let mut fragment = false;
    let trees: Vec<TokenTree> = tokens.into_iter().collect();
    for (i, tree) in trees.iter().enumerate() {
        // A transcriber is the group after `=` `>`.
        let after_arrow = i >= 2
            && matches!(trees.get(i - 1), Some(TokenTree::Punct(p)) if p.as_char() == '>')
            && matches!(trees.get(i - 2), Some(TokenTree::Punct(p)) if p.as_char() == '=');
        if let TokenTree::Group(group) = tree
            && after_arrow
        {
            scan_items(group.stream(), &mut items, &mut fragment);
        }
    }
    (items, fragment)
}

/// [`macro_rules_items`] of one transcriber's tokens.
fn scan_items(tokens: TokenStream, items: &mut Vec<String>, fragment: &mut bool) {
    let trees: Vec<TokenTree> = tokens.into_iter().collect();
    for (i, tree) in trees.iter().enumerate() {
        match tree {
            TokenTree::Group(group) => scan_items(group.stream(), items, fragment),
            TokenTree::Ident(ident) if ITEM_KEYWORDS.contains(&ident.to_string().as_str()) => {
                // `static mut NAME`: the name comes after `mut`.
                let mut at = i + 1;
                if matches!(trees.get(at), Some(TokenTree::Ident(m)) if m == "mut") {
                    at += 1;
                }
                match (trees.get(at), trees.get(at + 1)) {
                    (Some(TokenTree::Ident(name)), _) => {
                        let name = name.to_string();
                        // `const fn f`: the `fn` gives the name; `const _`
                        // names nothing.
                        if name != "_"
                            && !ITEM_KEYWORDS.contains(&name.as_str())
                            && !items.contains(&name)
                        {
                            items.push(name);
                        }
                    }
                    (Some(TokenTree::Punct(dollar)), Some(TokenTree::Ident(_)))
                        if dollar.as_char() == '$' =>
                    {
                        *fragment = true;
                    }
                    _ => {}
                }
            }
            _ => {}
        }
    }
}

/// The identifiers of a macro invocation's arguments (`tokens`), at any
/// depth, in source order without repeats, at most
/// [`MAX_INVOCATION_IDENTS`].
pub(crate) fn invocation_idents(tokens: TokenStream) -> Vec<String> {
    fn walk(tokens: TokenStream, out: &mut Vec<String>) {
        for tree in tokens {
            if out.len() >= MAX_INVOCATION_IDENTS {
                return;
            }
            match tree {
                TokenTree::Ident(ident) => {
                    let name = ident.to_string();
                    if !out.contains(&name) {
                        out.push(name);
                    }
                }
                TokenTree::Group(group) => walk(group.stream(), out),
                TokenTree::Punct(_) | TokenTree::Literal(_) => {}
            }
        }
    }
    let mut out = Vec::new();
    walk(tokens, &mut out);
    out
}
