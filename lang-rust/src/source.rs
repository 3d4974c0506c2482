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
use outline_core::text::{join_tokens, truncate};
use proc_macro2::{Delimiter, Span, TokenStream, TokenTree};
use quote::ToTokens;

/// The whole file: text and line index.
pub(crate) struct FileText<'a> {
    pub text: &'a str,
    pub index: LineIndex<'a>,
    /// Whether the text is all ASCII (a character column is a byte column).
    pub ascii: bool,
    /// Whether a `\r` ends a line on its own somewhere: `proc_macro2` counts
    /// only `\n`, so its line numbers cannot be used then.
    pub lone_cr: bool,
}

impl<'a> FileText<'a> {
    /// Indexes `text`.
    pub fn new(text: &'a str) -> Self {
        let bytes = text.as_bytes();
        let lone_cr = bytes
            .iter()
            .enumerate()
            .any(|(i, &b)| b == b'\r' && bytes.get(i + 1) != Some(&b'\n'));
        FileText {
            text,
            index: LineIndex::new(text),
            ascii: text.is_ascii(),
            lone_cr,
        }
    }
}

/// One lexed region of the file.
pub(crate) struct Region<'f, 'a> {
    pub file: &'f FileText<'a>,
    /// Byte offset of the region in the file.
    pub base: usize,
    /// Offsets past this one (tokens a recovery appended after the region's
    /// text, such as missing closing braces) are clamped to it.
    pub limit: usize,
}

/// Lexes `text` with `proc_macro2`; `None` when the lexer rejects it
/// (unbalanced delimiters, an unterminated literal).
pub(crate) fn lex(text: &str) -> Option<TokenStream> {
    TokenStream::from_str(text).ok()
}

impl<'f, 'a> Region<'f, 'a> {
    /// Byte range of `span` in the file.
    pub fn range(&self, span: Span) -> Range<usize> {
        let (start, end) = if self.file.lone_cr {
            let r = span.byte_range();
            (self.base + r.start, self.base + r.end)
        } else {
            // Lines and character columns are cheaper to get from
            // `proc_macro2` than byte offsets (which it memoises in a map).
            (self.offset(span.start()), self.offset(span.end()))
        };
        let start = start.min(self.limit);
        start..end.clamp(start, self.limit)
    }

    /// Byte offset in the file of a `proc_macro2` line (1-based, counted in
    /// the region) and character column.
    fn offset(&self, at: proc_macro2::LineColumn) -> usize {
        if at.line == 0 {
            return self.base;
        }
        let line_start = if at.line == 1 {
            self.base
        } else {
            let first = self.file.index.line(self.base);
            let line = first.saturating_add(u32::try_from(at.line - 1).unwrap_or(u32::MAX));
            match self.file.index.line_span(line) {
                Some(span) => span.start,
                None => return self.file.text.len(),
            }
        };
        if self.file.ascii {
            return (line_start + at.column).min(self.file.text.len());
        }
        let rest = self.file.text.get(line_start..).unwrap_or_default();
        rest.char_indices()
            .nth(at.column)
            .map_or(self.file.text.len(), |(i, _)| line_start + i)
    }

    /// Byte range of a syntax node in the file: from its first token to the
    /// end of its last one.
    pub fn node_range(&self, node: &impl ToTokens) -> Range<usize> {
        self.tokens_range(node.to_token_stream())
    }

    /// Byte range of `tokens` in the file.
    pub fn tokens_range(&self, tokens: TokenStream) -> Range<usize> {
        let mut iter = tokens.into_iter();
        let Some(first) = iter.next() else {
            return self.base..self.base;
        };
        let first = self.range(first.span());
        let last = iter.last().map_or(first.clone(), |t| self.range(t.span()));
        first.start..last.end.max(first.start)
    }

    /// Start of the first top-level token of `tokens` that is not part of an
    /// outer attribute (`#[…]`, doc comments included).
    pub fn start_after_attrs(&self, tokens: TokenStream) -> Option<usize> {
        let mut iter = tokens.into_iter().peekable();
        while let Some(tree) = iter.next() {
            let pound = matches!(&tree, TokenTree::Punct(p) if p.as_char() == '#');
            let bracket = matches!(iter.peek(), Some(TokenTree::Group(g)) if g.delimiter() == Delimiter::Bracket);
            if pound && bracket {
                iter.next();
                continue;
            }
            return Some(self.range(tree.span()).start);
        }
        None
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

    /// The source text of `tokens` joined into one line (comments left out),
    /// cut to `max_chars` characters.
    pub fn tokens_text(&self, tokens: TokenStream, max_chars: usize) -> String {
        let mut leaves = Vec::new();
        // Each leaf is at least one character: more than `max_chars` of
        // them are never shown.
        self.collect_leaves(tokens, max_chars + 1, &mut leaves);
        let mut clean: Vec<Range<usize>> = Vec::with_capacity(leaves.len());
        for range in leaves {
            if range.end > range.start && clean.last().is_none_or(|last| range.start >= last.end) {
                clean.push(range);
            }
        }
        let text = join_tokens(self.file.text, clean);
        truncate(&text, max_chars)
    }

    /// One-line text of a syntax node.
    pub fn node_text(&self, node: &impl ToTokens, max_chars: usize) -> String {
        self.tokens_text(node.to_token_stream(), max_chars)
    }

    /// Leaf ranges of `stream` in source order, at most `max` of them.
    fn collect_leaves(&self, stream: TokenStream, max: usize, out: &mut Vec<Range<usize>>) {
        for tree in stream {
            if out.len() >= max {
                return;
            }
            match tree {
                TokenTree::Group(group) => {
                    let delimited = group.delimiter() != Delimiter::None;
                    if delimited {
                        out.push(self.range(group.span_open()));
                    }
                    self.collect_leaves(group.stream(), max, out);
                    if delimited && out.len() < max {
                        out.push(self.range(group.span_close()));
                    }
                }
                other => out.push(self.range(other.span())),
            }
        }
    }
}
