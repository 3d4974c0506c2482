//! The bracket pairs of a Python text opened deeper than a limit, found by a
//! light scanner that skips comments and string literals (`'…'`, `"…"`, their
//! triple-quoted forms, any prefix; an f-string counts as one literal).

use std::ops::Range;

/// Byte ranges of the insides of the bracket pairs (`(`, `[`, `{`) opened at
/// depth `max + 1`: from just after the opening bracket to just before its
/// closing bracket (or to the end of the text when it is never closed), in
/// order. Blanking them leaves `( )`, `[ ]`, `{ }`: still valid Python.
pub(crate) fn too_deep(text: &str, max: usize) -> Vec<Range<usize>> {
    let bytes = text.as_bytes();
    // No deeper than the number of opening brackets: most files have fewer
    // than `max` in all, and this count is much cheaper than the scan.
    if bytes
        .iter()
        .filter(|&&b| matches!(b, b'(' | b'[' | b'{'))
        .count()
        <= max
    {
        return Vec::new();
    }
    let mut regions = Vec::new();
    let mut depth = 0usize;
    let mut deep_start = None;
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        match b {
            b'#' => {
                while bytes.get(i).is_some_and(|&c| c != b'\n' && c != b'\r') {
                    i += 1;
                }
            }
            b'\'' | b'"' => i = string_end(bytes, i),
            b'(' | b'[' | b'{' => {
                depth += 1;
                if depth == max + 1 {
                    deep_start = Some(i + 1);
                }
                i += 1;
            }
            b')' | b']' | b'}' => {
                if depth == max + 1
                    && let Some(start) = deep_start.take()
                {
                    regions.push(start..i);
                }
                depth = depth.saturating_sub(1);
                i += 1;
            }
            _ => i += 1,
        }
    }
    if let Some(start) = deep_start {
        regions.push(start..bytes.len());
    }
    regions
}

/// The offset just after the string literal whose opening quote is at
/// `quote`. A single-quoted literal ends at its line's end when it is not
/// closed; a triple-quoted one at the end of the text.
fn string_end(bytes: &[u8], quote: usize) -> usize {
    let q = bytes.get(quote).copied().unwrap_or(b'"');
    let triple = bytes.get(quote..quote + 3) == Some(&[q, q, q][..]);
    let mut i = quote + if triple { 3 } else { 1 };
    while let Some(&c) = bytes.get(i) {
        match c {
            b'\\' => i += 2,
            b'\n' | b'\r' if !triple => return i,
            c if c == q && !triple => return i + 1,
            c if c == q && bytes.get(i..i + 3) == Some(&[q, q, q][..]) => return i + 3,
            _ => i += 1,
        }
    }
    bytes.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn brackets_in_strings_and_comments_do_not_count() {
        let text = "x = [\"(((\", '''\n[[[''', f'{{' # (((\n, (((1)), ((2))]\n";
        let regions = too_deep(text, 2);
        let slices: Vec<&str> = regions.iter().filter_map(|r| text.get(r.clone())).collect();
        assert_eq!(slices, ["(1)", "(2)"]);
    }

    #[test]
    fn an_unclosed_deep_bracket_runs_to_the_end() {
        assert_eq!(too_deep("f(((", 2), vec![4..4]);
        assert!(too_deep("f(((", 3).is_empty());
    }
}
