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
