//! Outer attributes and doc comments of an item.
//!
//! `proc_macro2` turns `///` and `/** */` comments into `#[doc = "…"]`
//! attributes; they are told apart from written attributes by their source
//! text. Per the output contract, a symbol starts at its first written
//! attribute (or its first token), never at a preceding doc comment, whose
//! first line is reported as `doc_start_line` instead.

use outline_core::text::{MAX_DECORATOR_CHARS, doc_first_line};
use syn::{Attribute, Expr, ExprLit, Lit, Meta};

use crate::source::Region;

/// What the attributes of one item say.
pub(crate) struct AttrInfo {
    /// Written attributes as one-line text (`#[derive(Debug, Clone)]`).
    pub decorators: Vec<String>,
    /// First line of the doc comments, if any.
    pub doc: Option<String>,
    /// Line where the first doc comment starts.
    pub doc_start_line: Option<u32>,
    /// Byte offsets where the written attributes start.
    pub attr_starts: Vec<usize>,
    /// `#[test]` (any path ending in `test`, such as `#[tokio::test]`) or
    /// `#[cfg(test)]`.
    pub test: bool,
}

/// Reads the outer attributes `attrs` of an item.
pub(crate) fn attr_info(region: &Region<'_, '_>, attrs: &[Attribute]) -> AttrInfo {
    let mut info = AttrInfo {
        decorators: Vec::new(),
        doc: None,
        doc_start_line: None,
        attr_starts: Vec::new(),
        test: false,
    };
    let mut doc_text = String::new();
    for attr in attrs {
        if matches!(attr.style, syn::AttrStyle::Inner(_)) {
            // `//!` and `#![…]` inside a module's braces: its doc, when
            // nothing outside says more; never a decorator or the start.
            if doc_text.trim().is_empty()
                && let Some(value) = doc_value(attr)
            {
                doc_text.push_str(&value);
                doc_text.push('\n');
            }
            continue;
        }
        // A doc comment's `#` token spans the whole comment: its start is
        // enough to tell one from a written attribute, without generating the
        // attribute's tokens again.
        let range = region.range(attr.pound_token.span);
        let text = region.file.text.get(range.start..).unwrap_or_default();
        let is_comment = text.starts_with("///") || text.starts_with("/**");
        if is_comment {
            if info.doc_start_line.is_none() {
                info.doc_start_line = Some(region.line(range.start));
            }
            if doc_text.trim().is_empty()
                && let Some(value) = doc_value(attr)
            {
                doc_text.push_str(&value);
                doc_text.push('\n');
            }
            continue;
        }
        if attr.path().is_ident("doc")
            && let Some(value) = doc_value(attr)
        {
            doc_text.push_str(&value);
            doc_text.push('\n');
        }
        info.attr_starts.push(range.start);
        if is_test_attr(attr) {
            info.test = true;
        }
        info.decorators
            .push(region.node_text(attr, MAX_DECORATOR_CHARS));
    }
    let cleaned: String = doc_text
        .lines()
        .map(|line| line.trim().trim_start_matches('*').trim())
        .collect::<Vec<_>>()
        .join("\n");
    info.doc = doc_first_line(&cleaned);
    info
}

/// The string of `#[doc = "…"]`.
fn doc_value(attr: &Attribute) -> Option<String> {
    match &attr.meta {
        Meta::NameValue(nv) if nv.path.is_ident("doc") => match &nv.value {
            Expr::Lit(ExprLit {
                lit: Lit::Str(s), ..
            }) => Some(s.value()),
            _ => None,
        },
        _ => None,
    }
}

fn is_test_attr(attr: &Attribute) -> bool {
    let path = attr.path();
    if path.segments.last().is_some_and(|s| s.ident == "test") {
        return true;
    }
    if path.is_ident("cfg")
        && let Meta::List(list) = &attr.meta
    {
        return list.tokens.to_string().trim() == "test";
    }
    false
}

/// The first line of the inner doc comments (`//!`, `/*! */`, `#![doc = …]`)
/// among a file's inner attributes.
pub(crate) fn inner_doc(attrs: &[Attribute]) -> Option<String> {
    let text: Vec<String> = attrs
        .iter()
        .filter(|a| matches!(a.style, syn::AttrStyle::Inner(_)))
        .filter_map(doc_value)
        .collect();
    let cleaned: String = text
        .join("\n")
        .lines()
        .map(|line| line.trim().trim_start_matches('*').trim())
        .collect::<Vec<_>>()
        .join("\n");
    doc_first_line(&cleaned)
}
