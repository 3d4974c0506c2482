//! The parsed source as the walker sees it: text, line index and tokens, with
//! helpers that turn ruff's byte ranges into lines and one-line text.

use outline_core::LineIndex;
use outline_core::text::{join_tokens, truncate};
use ruff_python_ast::token::{TokenKind, Tokens};
use ruff_text_size::{Ranged, TextRange};

/// Source text, its line index and its token stream.
pub(crate) struct Source<'a> {
    pub text: &'a str,
    pub index: LineIndex<'a>,
    tokens: &'a Tokens,
}

impl<'a> Source<'a> {
    pub fn new(text: &'a str, tokens: &'a Tokens) -> Self {
        Source {
            text,
            index: LineIndex::new(text),
            tokens,
        }
    }

    /// 1-based line where `node` starts.
    pub fn start_line(&self, node: &impl Ranged) -> u32 {
        self.index.line(node.start().to_usize())
    }

    /// 1-based line of `node`'s last character.
    pub fn end_line(&self, node: &impl Ranged) -> u32 {
        let range = node.range();
        self.index
            .end_line(range.start().to_usize(), range.end().to_usize())
    }

    /// 1-based column (characters) where `node` starts.
    pub fn start_column(&self, node: &impl Ranged) -> u32 {
        self.index.column(node.start().to_usize())
    }

    /// The tokens of `range` joined into one line (comments dropped), cut to
    /// `max_chars` characters.
    pub fn one_line(&self, node: &impl Ranged, max_chars: usize) -> String {
        let range = node.range();
        let text = join_tokens(
            self.text,
            self.tokens_in(range)
                .filter(|(kind, _)| {
                    !kind.is_trivia()
                        && !kind.is_any_newline()
                        && !matches!(kind, TokenKind::Indent | TokenKind::Dedent)
                })
                .map(|(_, r)| r),
        );
        let text = if text.is_empty() {
            // No token lies wholly inside (a recovered node): fall back to the text.
            self.text
                .get(range.start().to_usize()..range.end().to_usize())
                .map(outline_core::text::collapse_whitespace)
                .unwrap_or_default()
        } else {
            text
        };
        truncate(&text, max_chars)
    }

    /// 1-based line of the last token (comments, line ends and indentation
    /// left out) that ends at or before byte `offset`.
    pub fn last_token_line_before(&self, offset: usize) -> Option<u32> {
        let before = self
            .tokens
            .partition_point(|t| t.end().to_usize() <= offset);
        self.tokens[..before]
            .iter()
            .rev()
            .find(|t| {
                let kind = t.kind();
                !kind.is_trivia()
                    && !kind.is_any_newline()
                    && !matches!(kind, TokenKind::Indent | TokenKind::Dedent)
            })
            .map(|t| {
                self.index
                    .end_line(t.start().to_usize(), t.end().to_usize())
            })
    }

    /// Tokens lying wholly inside `range`, with their byte ranges. Never panics,
    /// unlike `Tokens::in_range`, when `range` cuts through a token.
    fn tokens_in(
        &self,
        range: TextRange,
    ) -> impl Iterator<Item = (TokenKind, std::ops::Range<usize>)> + '_ {
        let first = self.tokens.partition_point(|t| t.start() < range.start());
        self.tokens[first..]
            .iter()
            .take_while(move |t| t.start() < range.end())
            .filter(move |t| t.end() <= range.end())
            .map(|t| (t.kind(), t.start().to_usize()..t.end().to_usize()))
    }
}
