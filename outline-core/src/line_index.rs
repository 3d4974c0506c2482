//! Byte offsets to 1-based lines and character columns.
//!
//! Line ends are `\n`, `\r\n` and a lone `\r`, as in CPython's tokenizer (and the
//! ECMAScript/Rust rules agree on the first two). Other Unicode line separators
//! (U+2028, form feed) do not end a line. A UTF-8 byte-order mark is not part of
//! any line: strip it with [`strip_bom`] before indexing.

/// The UTF-8 byte-order mark, as a character.
pub const BOM: char = '\u{feff}';

/// `text` without a leading UTF-8 byte-order mark.
pub fn strip_bom(text: &str) -> &str {
    text.strip_prefix(BOM).unwrap_or(text)
}

/// Number of lines in `text` (as [`LineIndex::line_count`] counts them),
/// without building an index.
pub fn count_lines(text: &str) -> u32 {
    let bytes = text.as_bytes();
    // Every `\n` ends a line, and so does a `\r` not followed by one.
    let mut ends = memchr::memchr_iter(b'\n', bytes).count();
    if memchr::memchr(b'\r', bytes).is_some() {
        ends += memchr::memchr_iter(b'\r', bytes)
            .filter(|&i| bytes.get(i + 1) != Some(&b'\n'))
            .count();
    }
    let unterminated = !text.is_empty() && !text.ends_with(['\n', '\r']);
    to_u32(ends + usize::from(unterminated))
}

/// Maps byte offsets of one text to lines and columns.
///
/// Offsets are UTF-8 byte offsets into the text given to [`LineIndex::new`].
#[derive(Debug, Clone)]
pub struct LineIndex<'a> {
    text: &'a str,
    /// Byte offset where each line starts; `line_starts[0] == 0`. When the text
    /// ends with a line end, the last entry equals `text.len()` (an empty line
    /// that is not counted).
    line_starts: Vec<usize>,
    /// For a text that is not all ASCII: the number of characters before each
    /// [`CHAR_BLOCK`]-byte block, so a column costs at most one block's scan
    /// however long the line (minified code). Empty for ASCII text, where a
    /// column is a byte difference.
    chars_before_block: Vec<usize>,
}

/// Bytes per block of [`LineIndex::chars_before_block`].
const CHAR_BLOCK: usize = 256;

impl<'a> LineIndex<'a> {
    /// Indexes `text` (which should already have its BOM stripped).
    pub fn new(text: &'a str) -> Self {
        let bytes = text.as_bytes();
        let mut line_starts = vec![0];
        // A line starts after every `\n`, and after every `\r` not followed
        // by a `\n` (whose own start comes with that `\n`).
        line_starts.extend(
            memchr::memchr2_iter(b'\n', b'\r', bytes)
                .filter(|&i| !(bytes[i] == b'\r' && bytes.get(i + 1) == Some(&b'\n')))
                .map(|i| i + 1),
        );
        let chars_before_block = if text.is_ascii() {
            Vec::new()
        } else {
            let mut total = 0;
            bytes
                .chunks(CHAR_BLOCK)
                .map(|block| {
                    let before = total;
                    total += count_chars(block);
                    before
                })
                .collect()
        };
        LineIndex {
            text,
            line_starts,
            chars_before_block,
        }
    }

    /// Characters in `text[..offset]` (`offset` at most the text length).
    fn chars_before(&self, offset: usize) -> usize {
        if self.chars_before_block.is_empty() {
            return offset;
        }
        // The end of a text whose length is a multiple of the block is in
        // the last block (there is no block after it to count from).
        let block = (offset / CHAR_BLOCK).min(self.chars_before_block.len().saturating_sub(1));
        let block_start = block * CHAR_BLOCK;
        let in_block = self
            .text
            .as_bytes()
            .get(block_start..offset)
            .unwrap_or_default();
        self.chars_before_block
            .get(block)
            .copied()
            .unwrap_or_default()
            + count_chars(in_block)
    }

    /// The indexed text.
    pub fn text(&self) -> &'a str {
        self.text
    }

    /// Number of lines: a final line without a line end counts, the empty text has 0.
    pub fn line_count(&self) -> u32 {
        let mut count = self.line_starts.len();
        if self.line_starts.last() == Some(&self.text.len()) {
            count -= 1;
        }
        to_u32(count)
    }

    /// The 1-based line holding byte `offset`. A line end belongs to the line it
    /// ends; offsets past the end map to the last line (at least 1).
    pub fn line(&self, offset: usize) -> u32 {
        let offset = offset.min(self.text.len());
        let line = self.line_starts.partition_point(|&start| start <= offset);
        let line = if offset == self.text.len() && line > 1 && self.line_starts[line - 1] == offset
        {
            // The end of a text that ends with a line end is on the last real line.
            line - 1
        } else {
            line
        };
        to_u32(line.max(1))
    }

    /// The 1-based line of the last byte of the non-empty range `start..end`
    /// (end exclusive), i.e. the line of a node's last token.
    pub fn end_line(&self, start: usize, end: usize) -> u32 {
        if end > start {
            self.line(end - 1)
        } else {
            self.line(start)
        }
    }

    /// The 1-based column of byte `offset`, counted in characters from the start of
    /// its line. An offset inside a multi-byte character counts that character.
    pub fn column(&self, offset: usize) -> u32 {
        let offset = offset.min(self.text.len());
        let line = self.line(offset) as usize;
        let start = self.line_starts[line - 1].min(offset);
        to_u32(self.chars_before(offset) - self.chars_before(start) + 1)
    }

    /// Byte range of line `line` (1-based) including its line end, or `None` when
    /// there is no such line.
    pub fn line_span(&self, line: u32) -> Option<std::ops::Range<usize>> {
        if line == 0 || line > self.line_count() {
            return None;
        }
        let index = line as usize - 1;
        let start = self.line_starts[index];
        let end = self
            .line_starts
            .get(index + 1)
            .copied()
            .unwrap_or(self.text.len());
        Some(start..end)
    }

    /// The text of lines `first..=last` (1-based, clamped to the file) including
    /// their line ends, or `None` when the range holds no line.
    pub fn lines_text(&self, first: u32, last: u32) -> Option<&'a str> {
        let last = last.min(self.line_count());
        let first = first.max(1);
        if first > last {
            return None;
        }
        let start = self.line_span(first)?.start;
        let end = self.line_span(last)?.end;
        self.text.get(start..end)
    }

    /// The text of line `line` (1-based) without its line end.
    pub fn line_text(&self, line: u32) -> Option<&'a str> {
        let span = self.line_span(line)?;
        let text = self.text.get(span)?;
        Some(text.trim_end_matches(['\n', '\r']))
    }
}

/// Characters in UTF-8 `bytes` (cut anywhere): the bytes that are not
/// continuation bytes, since each character has exactly one such lead byte.
fn count_chars(bytes: &[u8]) -> usize {
    bytes.iter().filter(|&&b| (b & 0xC0) != 0x80).count()
}

fn to_u32(value: usize) -> u32 {
    u32::try_from(value).unwrap_or(u32::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_lines_with_every_line_end() {
        let cases = [
            ("", 0),
            ("a", 1),
            ("a\n", 1),
            ("a\nb", 2),
            ("a\r\nb\r\n", 2),
            ("a\rb\rc", 3),
            ("\n\n", 2),
            ("a\r\n\rb", 3),
            ("a\u{2028}b\x0cc", 1),
        ];
        for (text, expected) in cases {
            assert_eq!(LineIndex::new(text).line_count(), expected, "{text:?}");
            assert_eq!(count_lines(text), expected, "{text:?}");
        }
    }

    #[test]
    fn maps_offsets_to_lines() {
        let text = "ab\r\ncd\ref\ngh";
        let index = LineIndex::new(text);
        let lines: Vec<u32> = (0..=text.len()).map(|o| index.line(o)).collect();
        //           a  b  \r \n c  d  \r e  f  \n g  h  EOF
        assert_eq!(lines, [1, 1, 1, 1, 2, 2, 2, 3, 3, 3, 4, 4, 4]);
    }

    #[test]
    fn end_of_text_after_final_newline_is_last_line() {
        let index = LineIndex::new("a\nb\n");
        assert_eq!(index.line(4), 2);
        assert_eq!(index.end_line(2, 4), 2);
    }

    #[test]
    fn columns_count_characters_not_bytes() {
        let text = "x\n合計 = σ";
        let index = LineIndex::new(text);
        let sigma = text.find('σ').expect("sigma");
        assert_eq!(index.column(sigma), 6);
        assert_eq!(index.column(2), 1);
    }

    #[test]
    fn columns_on_long_non_ascii_lines_match_a_plain_count() {
        let text = format!("é\n{}x", "aé合🚀".repeat(300));
        let index = LineIndex::new(&text);
        for (offset, _) in text.char_indices() {
            let line_start = text[..offset].rfind('\n').map_or(0, |i| i + 1);
            let expected = text[line_start..offset].chars().count() + 1;
            assert_eq!(index.column(offset) as usize, expected, "offset {offset}");
        }
    }

    /// The end of a non-ASCII text whose byte length is a multiple of the
    /// counting block (found by fuzzing: column 0, or an overflow).
    #[test]
    fn the_end_of_a_text_a_whole_number_of_blocks_long_has_its_column() {
        for blocks in 1..=3 {
            // "\r" and 85 three-byte characters: 256 bytes a block.
            let text = format!("\r{}", "\u{fffd}".repeat(85)).repeat(blocks);
            assert_eq!(text.len(), CHAR_BLOCK * blocks);
            let index = LineIndex::new(&text);
            let offsets = text.char_indices().map(|(offset, _)| offset);
            for offset in offsets.chain([text.len()]) {
                let line_start = text[..offset].rfind('\r').map_or(0, |i| i + 1);
                let line_start = if offset == text.len() && line_start == offset {
                    // A text ending in a line end ends on its last line.
                    text[..offset - 1].rfind('\r').map_or(0, |i| i + 1)
                } else {
                    line_start
                };
                let expected = text[line_start..offset].chars().count() + 1;
                assert_eq!(index.column(offset) as usize, expected, "offset {offset}");
            }
        }
    }

    #[test]
    fn bom_is_stripped_and_lines_are_unchanged() {
        let text = strip_bom("\u{feff}class A:\n    pass\n");
        assert!(text.starts_with("class"));
        assert_eq!(LineIndex::new(text).line_count(), 2);
        assert_eq!(strip_bom("x"), "x");
    }

    #[test]
    fn slices_lines_with_their_line_ends() {
        let index = LineIndex::new("one\r\ntwo\rthree");
        assert_eq!(index.lines_text(1, 2), Some("one\r\ntwo\r"));
        assert_eq!(index.lines_text(3, 9), Some("three"));
        assert_eq!(index.lines_text(4, 5), None);
        assert_eq!(index.line_text(2), Some("two"));
    }
}
