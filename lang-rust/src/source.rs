//! The source as the mapper sees it: the text, its line index, and the leaf
//! tokens of one lexed region, with helpers that turn `proc_macro2` spans into
//! byte offsets, lines and one-line text.
//!
//! A region is the whole file, or (after a syntax error) one top-level item
//! lexed on its own; `proc_macro2` numbers the bytes of each region from 0, so
//! every span is shifted by the region's `base` offset.

use std::ops::Range;
use std::str::FromStr;

use outline_core::LineIndex;
use outline_core::text::{collapse_whitespace, join_tokens, truncate};
use proc_macro2::{Delimiter, Span, TokenStream, TokenTree};
use syn::spanned::Spanned;

/// The whole file: text and line index.
pub(crate) struct FileText<'a> {
    pub text: &'a str,
    pub index: LineIndex<'a>,
}

/// One lexed region of the file.
pub(crate) struct Region<'f, 'a> {
    pub file: &'f FileText<'a>,
    /// Byte offset of the region in the file.
    pub base: usize,
    /// Offsets past this one (tokens a recovery appended after the region's
    /// text, such as missing closing braces) are clamped to it.
    pub limit: usize,
    /// Byte ranges (in the file) of the region's leaf tokens and delimiters,
    /// sorted by start, without overlaps.
    leaves: Vec<Range<usize>>,
}

/// Lexes `text` with `proc_macro2`; `None` when the lexer rejects it
/// (unbalanced delimiters, an unterminated literal).
pub(crate) fn lex(text: &str) -> Option<TokenStream> {
    TokenStream::from_str(text).ok()
}

impl<'f, 'a> Region<'f, 'a> {
    /// A region at `base` whose tokens are `stream`.
    pub fn new(file: &'f FileText<'a>, base: usize, limit: usize, stream: &TokenStream) -> Self {
        let mut leaves = Vec::new();
        collect_leaves(stream, base, &mut leaves);
        leaves.sort_by_key(|r| r.start);
        let mut clean: Vec<Range<usize>> = Vec::with_capacity(leaves.len());
        for range in leaves {
            if range.end <= limit && clean.last().is_none_or(|last| range.start >= last.end) {
                clean.push(range);
            }
        }
        Region {
            file,
            base,
            limit,
            leaves: clean,
        }
    }

    /// Byte range of `span` in the file.
    pub fn range(&self, span: Span) -> Range<usize> {
        let r = span.byte_range();
        let start = (self.base + r.start).min(self.limit);
        start..(self.base + r.end).clamp(start, self.limit)
    }

    /// Byte range of a syntax node in the file.
    pub fn node_range(&self, node: &impl Spanned) -> Range<usize> {
        self.range(node.span())
    }

    /// 1-based line of byte `offset`.
    pub fn line(&self, offset: usize) -> u32 {
        self.file.index.line(offset)
    }

    /// 1-based column (characters) of byte `offset`.
    pub fn column(&self, offset: usize) -> u32 {
        self.file.index.column(offset)
    }

    /// 1-based line of the last byte of `range`.
    pub fn end_line(&self, range: &Range<usize>) -> u32 {
        self.file.index.end_line(range.start, range.end)
    }

    /// Start of the first leaf token at or after `offset`, before `end`, that
    /// lies outside every range of `skip`.
    pub fn first_token_outside(
        &self,
        offset: usize,
        end: usize,
        skip: &[Range<usize>],
    ) -> Option<usize> {
        let first = self.leaves.partition_point(|r| r.start < offset);
        self.leaves[first..]
            .iter()
            .take_while(|r| r.start < end)
            .find(|r| !skip.iter().any(|s| s.start <= r.start && r.start < s.end))
            .map(|r| r.start)
    }

    /// The tokens of byte `range` joined into one line (comments left out),
    /// cut to `max_chars` characters.
    pub fn one_line(&self, range: Range<usize>, max_chars: usize) -> String {
        let first = self.leaves.partition_point(|r| r.start < range.start);
        let tokens = self.leaves[first..]
            .iter()
            .take_while(|r| r.end <= range.end)
            .cloned();
        let text = join_tokens(self.file.text, tokens);
        let text = if text.is_empty() {
            self.file
                .text
                .get(range)
                .map(collapse_whitespace)
                .unwrap_or_default()
        } else {
            text
        };
        truncate(&text, max_chars)
    }

    /// One-line text of a syntax node.
    pub fn node_text(&self, node: &impl Spanned, max_chars: usize) -> String {
        self.one_line(self.node_range(node), max_chars)
    }
}

fn collect_leaves(stream: &TokenStream, base: usize, out: &mut Vec<Range<usize>>) {
    for tree in stream.clone() {
        match &tree {
            TokenTree::Group(group) => {
                if group.delimiter() != Delimiter::None {
                    let open = group.span_open().byte_range();
                    let close = group.span_close().byte_range();
                    out.push(base + open.start..base + open.end);
                    out.push(base + close.start..base + close.end);
                }
                collect_leaves(&group.stream(), base, out);
            }
            other => {
                let r = other.span().byte_range();
                out.push(base + r.start..base + r.end);
            }
        }
    }
}
