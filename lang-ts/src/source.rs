//! The source text with its line index, and conversions from swc positions.
//!
//! Every piece is parsed with positions that are its byte offset in the whole
//! text plus [`BASE`] (swc reserves `BytePos(0)` as the dummy position), so one
//! rule maps any span back to bytes, whether it came from the full parse or from
//! a piece parsed during recovery.

use outline_core::LineIndex;
use outline_core::text::{collapse_whitespace, truncate};
use swc_common::{BytePos, Span, Spanned};

/// What is added to a byte offset to make the swc position of that byte.
pub(crate) const BASE: u32 = 1;

/// At most this many bytes of a node's text are read to build one line of
/// output text; the rest could not survive truncation anyway.
const MAX_READ_BYTES: usize = 4096;

/// The text of one file and its line index.
pub(crate) struct Source<'a> {
    pub text: &'a str,
    pub index: LineIndex<'a>,
}

impl<'a> Source<'a> {
    pub fn new(text: &'a str) -> Self {
        Source {
            text,
            index: LineIndex::new(text),
        }
    }

    /// Byte offset of an swc position (clamped to the text).
    pub fn offset(&self, pos: BytePos) -> usize {
        (pos.0.saturating_sub(BASE) as usize).min(self.text.len())
    }

    /// 1-based line of the position.
    pub fn line(&self, pos: BytePos) -> u32 {
        self.index.line(self.offset(pos))
    }

    /// 1-based column (in characters) of the position.
    pub fn column(&self, pos: BytePos) -> u32 {
        self.index.column(self.offset(pos))
    }

    /// Line of the last byte of `span`.
    pub fn end_line(&self, span: Span) -> u32 {
        self.index
            .end_line(self.offset(span.lo), self.offset(span.hi))
    }

    /// The source text of `span`, or `""` when it is not a valid range.
    pub fn slice(&self, span: Span) -> &'a str {
        self.text
            .get(self.offset(span.lo)..self.offset(span.hi))
            .unwrap_or_default()
    }

    /// The text of `span` on one line (whitespace runs collapsed), cut to
    /// `max_chars` characters.
    pub fn one_line(&self, span: Span, max_chars: usize) -> String {
        let text = self.slice(span);
        let text = prefix(text, MAX_READ_BYTES.max(max_chars * 4));
        truncate(&collapse_whitespace(text), max_chars)
    }

    /// [`Source::one_line`] of a node.
    pub fn node_text(&self, node: &impl Spanned, max_chars: usize) -> String {
        self.one_line(node.span(), max_chars)
    }
}

/// The longest prefix of `text` of at most `max_bytes` bytes that ends on a
/// character boundary.
pub(crate) fn prefix(text: &str, max_bytes: usize) -> &str {
    if text.len() <= max_bytes {
        return text;
    }
    let mut end = max_bytes;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    text.get(..end).unwrap_or_default()
}
