//! One-line text for the outline: joining tokens, truncating, doc first lines.
//!
//! Everything an outline prints must be a single line (names, signatures,
//! decorators) and bounded in size (a minified file must not echo its 50 KB line).

use std::ops::Range;

/// Longest decorator text kept, in characters.
pub const MAX_DECORATOR_CHARS: usize = 200;
/// Longest annotation, base or return type text kept, in characters.
pub const MAX_TYPE_CHARS: usize = 160;
/// Longest default or value text kept, in characters.
pub const MAX_VALUE_CHARS: usize = 80;
/// Longest doc first line kept, in characters.
pub const MAX_DOC_CHARS: usize = 240;
/// Longest block name (control-flow header) kept, in characters.
pub const MAX_BLOCK_NAME_CHARS: usize = 60;
/// Longest signature kept, in characters.
pub const MAX_SIGNATURE_CHARS: usize = 400;

/// `noun` for `count` of it: as given for 1, else its English plural
/// (`es` after s, x, ch and sh: `match` → `matches`; else `s`).
pub fn noun_for(count: usize, noun: &str) -> String {
    if count == 1 {
        noun.to_owned()
    } else if ["s", "x", "ch", "sh"].iter().any(|end| noun.ends_with(end)) {
        format!("{noun}es")
    } else {
        format!("{noun}s")
    }
}

/// `1 line`, `12 lines`, `3 matches` ([`noun_for`]).
pub fn plural(count: usize, noun: &str) -> String {
    format!("{count} {}", noun_for(count, noun))
}

/// `count` with a comma between groups of three digits: `12,345`.
pub fn thousands(count: usize) -> String {
    let digits = count.to_string();
    let mut out = String::new();
    for (i, digit) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(digit);
    }
    out
}

/// `text` cut to at most `max_chars` characters; a cut text ends with `…`.
pub fn truncate(text: &str, max_chars: usize) -> String {
    match text.char_indices().nth(max_chars) {
        None => text.to_owned(),
        Some(_) => {
            let keep = max_chars.saturating_sub(1);
            let end = text.char_indices().nth(keep).map_or(text.len(), |(i, _)| i);
            let mut cut = text[..end].trim_end().to_owned();
            cut.push('…');
            cut
        }
    }
}

/// Joins the source text of `tokens` (byte ranges into `source`, in order, with
/// comments and non-logical newlines already left out) into one line:
/// - tokens that touch in the source touch in the output;
/// - any other gap becomes one space, except a gap holding a line break right
///   after an opening bracket or right before a closing one, which vanishes
///   (together with a trailing comma before that closing bracket);
/// - a line end inside a token (a triple-quoted string) is written `\n`.
///
/// Ranges that are out of bounds or not on character boundaries are skipped.
pub fn join_tokens(source: &str, tokens: impl IntoIterator<Item = Range<usize>>) -> String {
    let mut out = String::new();
    let mut previous: Option<Range<usize>> = None;
    for range in tokens {
        let Some(token) = source.get(range.clone()) else {
            continue;
        };
        if let Some(prev) = &previous {
            let gap = source.get(prev.end..range.start).unwrap_or(" ");
            if !gap.is_empty() {
                let broken = gap.contains(['\n', '\r']);
                let after_open = out.ends_with(['(', '[', '{']);
                let before_close = token.starts_with([')', ']', '}']);
                if broken && before_close && out.ends_with(',') {
                    out.pop();
                } else if !(broken && (after_open || before_close)) {
                    out.push(' ');
                }
            }
        }
        push_one_line(&mut out, token);
        previous = Some(range);
    }
    out
}

/// Whether `c` ends a line for some common reader: `\n`, `\r`, and what
/// Python's `str.splitlines` also splits on (`\x0b`, `\x0c`, `\x1c`–`\x1e`,
/// `\x85`, U+2028, U+2029).
pub fn is_line_break(c: char) -> bool {
    matches!(
        c,
        '\n' | '\r' | '\x0b' | '\x0c' | '\x1c'..='\x1e' | '\u{85}' | '\u{2028}' | '\u{2029}'
    )
}

/// Whether `c` must not appear raw in one-line text: a line break (see
/// [`is_line_break`]), another control character (ESC would drive a terminal),
/// a bidirectional control (U+202A–U+202E, U+2066–U+2069, U+200E, U+200F,
/// U+061C: they reorder what a reader sees, CVE-2021-42574), a zero-width space
/// or a byte-order mark. A tab is allowed; so are joiners (emoji use them).
pub fn breaks_line(c: char) -> bool {
    (c.is_control() && c != '\t')
        || is_line_break(c)
        || matches!(
            c,
            '\u{202a}'..='\u{202e}'
                | '\u{2066}'..='\u{2069}'
                | '\u{200e}'
                | '\u{200f}'
                | '\u{061c}'
                | '\u{200b}'
                | '\u{feff}'
        )
}

/// `text` with every character that [`breaks_line`] escaped as `\n`, `\r`,
/// `\xNN` or `\uNNNN`, so it is one line whatever reads it and shows what it
/// holds.
///
/// ```
/// use outline_core::text::escape_controls;
/// assert_eq!(escape_controls("a\nb\u{1b}[31m\u{2028}"), "a\\nb\\x1b[31m\\u2028");
/// assert_eq!(escape_controls("tab\tok"), "tab\tok");
/// ```
pub fn escape_controls(text: &str) -> String {
    if !text.chars().any(breaks_line) {
        return text.to_owned();
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        match c {
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            c if breaks_line(c) && (c as u32) < 0x100 => {
                out.push_str(&format!("\\x{:02x}", c as u32));
            }
            c if breaks_line(c) => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out
}

/// Collapses every run of whitespace (line ends included) into one space and trims.
pub fn collapse_whitespace(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for word in text.split_whitespace() {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(word);
    }
    out
}

fn push_one_line(out: &mut String, token: &str) {
    if !token.chars().any(breaks_line) {
        out.push_str(token);
        return;
    }
    // A line end inside a token (a triple-quoted string) reads as `\n`,
    // whichever line end the file uses.
    let normalised = token.replace("\r\n", "\n").replace('\r', "\n");
    out.push_str(&escape_controls(&normalised));
}

/// The first line of a docstring as `inspect.cleandoc` would give it (lines
/// split as `str.splitlines` splits them): the first line that is not blank,
/// trimmed, truncated to [`MAX_DOC_CHARS`]. `None` when the
/// docstring is blank.
pub fn doc_first_line(doc: &str) -> Option<String> {
    doc.split(is_line_break)
        .map(str::trim)
        .find(|line| !line.is_empty())
        .map(|line| truncate(&escape_controls(line), MAX_DOC_CHARS))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ranges_of(source: &str, words: &[&str]) -> Vec<Range<usize>> {
        let mut from = 0;
        words
            .iter()
            .map(|w| {
                let start = from + source[from..].find(w).expect("token in source");
                from = start + w.len();
                start..from
            })
            .collect()
    }

    #[test]
    fn joins_multi_line_call_onto_one_line() {
        let source = "retry(\n    times=3,\n    on=(A, B),\n)";
        let tokens = [
            "retry", "(", "times", "=", "3", ",", "on", "=", "(", "A", ",", "B", ")", ",", ")",
        ];
        let joined = join_tokens(source, ranges_of(source, &tokens));
        assert_eq!(joined, "retry(times=3, on=(A, B))");
    }

    #[test]
    fn keeps_spaces_where_the_source_has_them() {
        let source = "x: int = 1";
        let joined = join_tokens(source, ranges_of(source, &["x", ":", "int", "=", "1"]));
        assert_eq!(joined, "x: int = 1");
    }

    #[test]
    fn line_ends_inside_tokens_become_escapes() {
        let source = "f(\"\"\"a\nb\"\"\")";
        let joined = join_tokens(
            source,
            ranges_of(source, &["f", "(", "\"\"\"a\nb\"\"\"", ")"]),
        );
        assert_eq!(joined, "f(\"\"\"a\\nb\"\"\")");
    }

    #[test]
    fn truncates_by_characters() {
        assert_eq!(truncate("abcdef", 10), "abcdef");
        assert_eq!(truncate("abcdef", 4), "abc…");
        assert_eq!(truncate("合計合計合計", 3), "合計…");
    }

    #[test]
    fn doc_first_line_skips_blank_lines() {
        assert_eq!(
            doc_first_line("\n    Read a file.\n\n    More.").as_deref(),
            Some("Read a file.")
        );
        assert_eq!(doc_first_line("  \n\t\n"), None);
    }

    #[test]
    fn doc_lines_split_at_every_line_break() {
        assert_eq!(doc_first_line("a\u{2028}b").as_deref(), Some("a"));
        assert_eq!(
            doc_first_line("\x0c\u{85} x\x1by").as_deref(),
            Some("x\\x1by")
        );
    }

    #[test]
    fn collapses_whitespace() {
        assert_eq!(collapse_whitespace("  a \n\t b  "), "a b");
    }
}
