//! The bracket pairs of a Python text opened deeper than a limit, and the
//! prefix operators of a chain longer than it (`await - await … x`: each
//! await a level of ruff's recursive descent, which a few hundred thousand
//! of overflow), found by a light scanner that skips comments and string
//! literals (`'…'`, `"…"`, their triple-quoted forms, any prefix; an
//! f-string counts as one literal).

use std::ops::Range;

/// Byte ranges of the insides of the bracket pairs (`(`, `[`, `{`) opened at
/// depth `max + 1`: from just after the opening bracket to just before its
/// closing bracket (or to the end of the text when it is never closed); and
/// of the prefix operators (`await`, `not`, `-`, `+`, `~`) after the first
/// `max` of a chain of them (from the start of the `max + 1`-th to the end
/// of the last); in order. Blanking them leaves `( )`, `[ ]`, `{ }` and a
/// chain of `max`: Python as valid as it was.
pub(crate) fn too_deep(text: &str, max: usize) -> Vec<Range<usize>> {
    let bytes = text.as_bytes();
    // No deeper than the number of opening brackets and awaits: most files
    // have fewer than `max` in all, and these counts are much cheaper than
    // the scan.
    let brackets = bytes
        .iter()
        .filter(|&&b| matches!(b, b'(' | b'[' | b'{'))
        .count();
    if brackets <= max && text.matches(AWAIT).count() <= max {
        return Vec::new();
    }
    let mut regions = Vec::new();
    let mut depth = 0usize;
    let mut deep_start = None;
    // The chain of prefix operators being read: how many, where the
    // `max + 1`-th starts and where the last ends.
    let mut prefixes = 0usize;
    let mut cut: Option<Range<usize>> = None;
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        let word = is_word(b) && (i == 0 || !is_word(bytes[i - 1]));
        if depth <= max
            && let Some(len) = prefix_operator(bytes, i, word)
        {
            prefixes += 1;
            let end = i + len;
            if prefixes > max {
                cut.get_or_insert(i..end).end = end;
            }
            i = end;
            continue;
        }
        // Blanks and line continuations go on with a chain; anything else
        // ends it.
        if !matches!(b, b' ' | b'\t' | b'\n' | b'\r' | b'\\' | b'\x0c') {
            prefixes = 0;
            if let Some(cut) = cut.take() {
                regions.push(cut);
            }
        }
        if word {
            // The rest of the word (an identifier such as `awaited`).
            while bytes.get(i).is_some_and(|&c| is_word(c)) {
                i += 1;
            }
            continue;
        }
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
    regions.extend(cut);
    // A chain's region comes when the chain ends, after the deep regions
    // that ended before it: in order, and apart (no chain is read inside a
    // deep region).
    regions.sort_by_key(|r| r.start);
    regions
}

const AWAIT: &str = "await";

/// The length of the prefix operator at `i` (`await`, `not`, `-`, `+`, `~`),
/// if one is there; `word` says whether a word starts at `i`. An `await`
/// chain, alone or mixed with the others, is one level of ruff's recursive
/// descent per operator (`not`, `-`, `+`, `~` alone are not, but they count
/// in a chain with awaits, so every one does). `-=`, `+=`, `->` are not.
fn prefix_operator(bytes: &[u8], i: usize, word: bool) -> Option<usize> {
    let rest = bytes.get(i..)?;
    let whole = |keyword: &str| {
        (word
            && rest.starts_with(keyword.as_bytes())
            && !rest.get(keyword.len()).is_some_and(|&c| is_word(c)))
        .then_some(keyword.len())
    };
    match rest.first()? {
        b'-' | b'+' => (!matches!(rest.get(1), Some(b'=' | b'>'))).then_some(1),
        b'~' => Some(1),
        _ => whole(AWAIT).or_else(|| whole("not")),
    }
}

/// Whether `b` can be part of a Python identifier (any non-ASCII byte may).
fn is_word(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b >= 0x80
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

    /// 300,000 chained awaits overflowed ruff's stack (found by a new
    /// user's trial): those past the limit are left out.
    #[test]
    fn awaits_past_the_limit_in_a_chain_are_left_out() {
        let text =
            "async def f():\n    x = await await  await\\\n await awaited + await (await y)\n";
        let regions = too_deep(text, 2);
        let slices: Vec<&str> = regions.iter().filter_map(|r| text.get(r.clone())).collect();
        // The third and fourth of the first chain; `awaited` is a name, and
        // the two after `+` are another chain (the second in brackets).
        assert_eq!(slices, ["await\\\n await"]);
        let chain = format!("x = {}y\n", "await ".repeat(5));
        let regions = too_deep(&chain, 3);
        assert_eq!(regions.len(), 1);
        assert_eq!(&chain[regions[0].clone()], "await await");
        assert!(too_deep("# await await await\ns = 'await await await'\n", 1).is_empty());
    }

    /// `- await` 100,000 times in an `async def` overflowed too (a second
    /// new-user trial): every prefix operator counts in a chain.
    #[test]
    fn prefix_operators_mixed_with_awaits_count_in_one_chain() {
        let text = "x = - await not ~ +await y\n";
        let regions = too_deep(text, 1);
        let slices: Vec<&str> = regions.iter().filter_map(|r| text.get(r.clone())).collect();
        assert_eq!(slices, ["await not ~ +await"]);
        // Augmented assignments, arrows, binary operators and names are not
        // prefix operators; a chain ends at anything else.
        let text = "await await\na -= await b\ndef f() -> await: c + await notice\n";
        assert!(too_deep(text, 2).is_empty(), "{:?}", too_deep(text, 2));
    }

    #[test]
    fn an_unclosed_deep_bracket_runs_to_the_end() {
        assert_eq!(too_deep("f(((", 2), vec![4..4]);
        assert!(too_deep("f(((", 3).is_empty());
    }
}
