//! Recovery from a fatal syntax error: swc stops at the first error it cannot
//! recover from, so the file is split into its top-level statements and each
//! is parsed alone (keeping its byte offset, hence its lines). Pieces that
//! still fail become diagnostics naming their line range; everything else is
//! outlined exactly.
//!
//! The splitter is a small scanner that knows what can hide a statement
//! boundary: strings, template literals (with nested `${…}`), comments, regular
//! expression literals (told from division by the token before them) and
//! bracket nesting. A statement ends at depth 0 after `;` or a closing `}`
//! (on the same line too, so minified code splits), or where a new line in
//! column 1 starts a token that cannot continue the previous one. A
//! line that starts in column 1 with a declaration keyword always starts a new
//! piece, even inside unbalanced brackets, so one unclosed brace cannot swallow
//! the rest of the file; nor can an unterminated template literal or comment,
//! which ends at its line end here; nor can a stray backquote that pairs with
//! a later one (in a JSDoc comment, say): template text ends before a line
//! starting in column 1 with a declaration word, a decorator or `/**`.
//! Decorators on lines of their own stay
//! with their declaration.
//!
//! The same scanner finds, inside a failed statement, its body braces, the
//! members of a class or namespace body (split at the members' indentation
//! as well, so an unclosed brace costs one member) and its matching `{…}`
//! pairs, for the partial re-parses done in `lib.rs`.

use std::cell::Cell;
use std::ops::Range;

/// Words that, in column 1, start a declaration whatever came before.
const DECLARATION_WORDS: &[&str] = &[
    "export",
    "import",
    "function",
    "class",
    "interface",
    "type",
    "enum",
    "namespace",
    "module",
    "declare",
    "const",
    "let",
    "var",
    "abstract",
    "async",
];

/// Words that start a statement: after a `}` on the same line they begin a
/// new piece (minified `}function f(){…}`), where another word goes on.
const STATEMENT_WORDS: &[&str] = &[
    "if", "for", "while", "do", "return", "try", "switch", "throw", "break", "continue", "with",
    "debugger", "yield", "await", "new", "delete", "void", "typeof",
];

/// Words after which a `/` starts a regular expression.
const EXPRESSION_KEYWORDS: &[&str] = &[
    "return",
    "typeof",
    "case",
    "do",
    "else",
    "in",
    "of",
    "new",
    "delete",
    "void",
    "throw",
    "yield",
    "await",
    "instanceof",
];

/// Words that continue the statement on the line before.
const CONTINUATION_WORDS: &[&str] = &[
    "else",
    "catch",
    "finally",
    "instanceof",
    "in",
    "of",
    "as",
    "satisfies",
    "extends",
    "implements",
    // `import { a } from 'm'`, `export { a } from 'm'`: the `}` does not end it.
    "from",
];

/// Prefix words that nest what follows them (`await await x`, `new new X`,
/// `keyof keyof T`): swc recurses once per word, so a run of them counts
/// toward [`Piece::depth`] like brackets, one level per word.
const CHAIN_WORDS: &[&str] = &[
    "await", "new", "typeof", "void", "delete", "yield", "keyof", "readonly", "infer", "unique",
];

#[derive(Clone, Copy, PartialEq, Eq)]
enum Frame {
    /// `(`, `[` or `{`.
    Bracket(u8),
    /// A `${` inside a template literal.
    Substitution,
}

/// Whether the closer `b` (`)` or `]`), coming after the byte `last`,
/// closes the `{` on top of `stack` with its own bracket just below it: the
/// `}` of `test('a', () => { … )` is missing. Not after a `}`: `})` with one
/// `}` too few before it is likelier a stray `)`. [`split`] and [`scan`]
/// apply it alike.
fn closes_left_open_brace(stack: &[Frame], b: u8, last: Option<u8>) -> bool {
    let wanted = Frame::Bracket(if b == b')' { b'(' } else { b'[' });
    last != Some(b'}') && matches!(stack, [.., below, Frame::Bracket(b'{')] if *below == wanted)
}

/// How many frames above the innermost `{` (or template `${`) a `}` may
/// close with it: `(` and `[` left open inside a block are closed by the
/// block's `}`, as TypeScript's own parser pairs them, so one unclosed `(`
/// does not shift every later brace. Bounded, so a `}` after a million open
/// `(` costs no scan of them all.
const MAX_LEFT_OPEN: usize = 64;

/// How many `(`/`[` frames a `}` closes before the `{` or `${` it pairs
/// with (see [`MAX_LEFT_OPEN`]); 0 when the top frame is that `{`, or none
/// is near enough.
fn left_open(stack: &[Frame]) -> usize {
    stack
        .iter()
        .rev()
        .take(MAX_LEFT_OPEN + 1)
        .position(|f| matches!(f, Frame::Bracket(b'{') | Frame::Substitution))
        .unwrap_or(0)
}

/// One top-level statement: its byte range and how deeply it nests.
pub(crate) struct Piece {
    pub range: Range<usize>,
    /// Deepest bracket nesting inside, counting `<` right after a word as a
    /// type-argument bracket (closed by `>`, forgotten at `;`), each word of
    /// a run of [`CHAIN_WORDS`] or unary `!`, `~`, `+`, `-` as one level,
    /// each `.name` link of a member chain (`a.b.c`) as one level, and
    /// each `=>` whose body is not braced and each right-associative operator
    /// ([`opens_operand`]) as one level until the end of its bracket, a `,`
    /// or `;` at its level, or a line end not right after such a token.
    pub depth: usize,
    /// The most binary-operator tokens in one expression of it (at one
    /// bracket level, until a `,` or `;` there): swc parses `a + b + …`
    /// with a loop, but the tree is as deep as the chain is long, and
    /// dropping one of 3,000,000 links overflowed the parser's stack
    /// (see [`MAX_CHAIN_LINKS`]).
    pub links: usize,
}

/// The most binary-operator tokens in one expression that is parsed: a
/// longer one is reported, not parsed (a million-link chain drops in about
/// 90 MiB of stack; real code, minified bundles included, stays in the
/// hundreds).
pub(crate) const MAX_CHAIN_LINKS: usize = 1_000_000;

/// Byte ranges of the top-level statements of `text`, in order, covering
/// every byte that is not blank between them.
#[cfg(test)]
pub(crate) fn split_statements(text: &str) -> Vec<Range<usize>> {
    split(text).0.into_iter().map(|p| p.range).collect()
}

/// The top-level statements of `text`, in order, the deepest bracket
/// nesting anywhere in it (as [`Piece::depth`] counts it, but not reset where
/// a column-1 declaration forces a split), and whether some bracket did not
/// pair with its own kind (a `}` closing a `(`, a closer with nothing open,
/// a bracket open at the end; not one open at a forced split, as compiled
/// namespaces put declarations in column 1 inside their IIFE): a hint, confirmed by
/// [`unbalanced_after_clean_parse`], that a text swc parsed without an error
/// is broken.
pub(crate) fn split(text: &str) -> (Vec<Piece>, usize, bool) {
    // Whether a bracket did not pair with its own kind (see the doc).
    let mut unbalanced = false;
    let bytes = text.as_bytes();
    let mut pieces = Vec::new();
    let mut stack: Vec<Frame> = Vec::new();
    let mut angles = 0usize;
    let mut depth = 0usize;
    // Bracket depth never reset by a forced split, and its maximum.
    let mut raw = 0usize;
    let mut raw_max = 0usize;
    // Levels of chains: the current run of prefix words, the unbraced arrow
    // bodies open at this bracket level and around it, and the arrow count
    // saved at each open bracket (restored when it closes).
    let mut prefix = 0usize;
    // The `.name` links of the member chain running (`a.b.c`): `swc`
    // clones an assignment target by recursion, once per link, and a
    // million of them (`a.b.…b = 1`) overflowed the parser's stack.
    let mut members = 0usize;
    let mut arrows = 0usize;
    let mut arrows_saved: Vec<usize> = Vec::new();
    // JSX elements open at this bracket level (`<a>` in an expression's
    // place, closed by `</` or `/>`), and those saved at each open bracket:
    // swc parses each element by recursion, and 150,000 nested `<a>`
    // overflowed its stack. A TypeScript cast `<T>x` counts until the `;`
    // or the bracket around it closes.
    let mut jsx = 0usize;
    let mut jsx_saved: Vec<usize> = Vec::new();
    let mut after_arrow = false;
    // Binary-operator tokens of the expression running at this bracket
    // level, those saved at each open bracket, and the piece's most.
    let mut links = 0usize;
    let mut links_saved: Vec<usize> = Vec::new();
    let mut most_links = 0usize;
    let mut piece_start: Option<usize> = None;
    // The last significant byte and, when it ended a word, that word's range.
    let mut last: Option<u8> = None;
    let mut last_word: Range<usize> = 0..0;
    let mut ended = true;
    // Whether the current piece is so far only decorators.
    let mut decorating = false;
    let mut at_line_start = true;
    let mut i = 0;
    let word_at = |i: usize| -> &str {
        let end = bytes
            .get(i..)
            .and_then(|rest| rest.iter().position(|b| !is_word_byte(*b)))
            .map_or(bytes.len(), |n| i + n);
        text.get(i..end).unwrap_or_default()
    };
    while i < bytes.len() {
        let b = bytes[i];
        if b == b'\n' || b == b'\r' {
            at_line_start = true;
            if !after_arrow {
                arrows = arrows_saved.last().copied().unwrap_or(0);
            }
            i += 1;
            continue;
        }
        if b == b' ' || b == b'\t' || b == 0x0c || b == 0x0b {
            i += 1;
            continue;
        }
        // Comments are skipped wherever they are.
        if b == b'/' && bytes.get(i + 1) == Some(&b'/') {
            i = line_end(bytes, i);
            continue;
        }
        if b == b'/' && bytes.get(i + 1) == Some(&b'*') {
            i = find(bytes, i + 2, b"*/").map_or_else(|| line_end(bytes, i), |e| e + 2);
            continue;
        }
        if at_line_start || ended {
            let same_line = !at_line_start;
            at_line_start = false;
            let column_one = i == 0 || matches!(bytes.get(i - 1), Some(b'\n' | b'\r'));
            let word = word_at(i);
            let declaration = column_one && (DECLARATION_WORDS.contains(&word) || b == b'@');
            // After a `}` on the same line, a word that starts no statement
            // goes on (`} as const`, `{…} extends X`, JSX text after `{x}`):
            // a brace closing an object, a type or a JSX expression ends
            // nothing there.
            let after_brace = same_line
                && last == Some(b'}')
                && is_word_byte(b)
                && !DECLARATION_WORDS.contains(&word)
                && !STATEMENT_WORDS.contains(&word);
            let continues = after_brace
                || CONTINUATION_WORDS.contains(&word)
                || matches!(
                    b,
                    b'.' | b')'
                        | b']'
                        | b'}'
                        | b','
                        | b'?'
                        | b':'
                        | b'+'
                        | b'-'
                        | b'*'
                        | b'/'
                        | b'='
                        | b'|'
                        | b'&'
                        | b'<'
                        | b'>'
                        | b'('
                        | b'`'
                        | b'%'
                        | b'^'
                )
                // `{` on a line of its own continues a header not ended
                // (prettier's class body after a wrapped heritage clause);
                // `}[` and `}{` on one line go on inside types.
                || (matches!(b, b'{' | b'[') && (!ended || (same_line && last == Some(b'}'))));
            let ends_line = matches!(last, Some(c) if c == b';' || c == b'}' || c == b')' || c == b']' || c == b'"' || c == b'\'' || c == b'`' || is_word_byte(c));
            let mut boundary = declaration
                || (stack.is_empty() && !continues && (ended || (column_one && ends_line)));
            // Decorators (`@Component({…})` on lines of their own) stay with
            // the declaration they decorate.
            if boundary && decorating && stack.is_empty() {
                boundary = false;
                decorating = b == b'@';
            }
            if boundary {
                if let Some(start) = piece_start.take() {
                    pieces.push(Piece {
                        range: start..trimmed_end(text, start, i),
                        depth,
                        links: most_links,
                    });
                }
                stack.clear();
                angles = 0;
                depth = 0;
                links = 0;
                links_saved.clear();
                most_links = 0;
                prefix = 0;
                members = 0;
                arrows = 0;
                arrows_saved.clear();
                jsx = 0;
                jsx_saved.clear();
            }
        }
        if piece_start.is_none() {
            piece_start = Some(i);
            decorating = b == b'@';
        }
        ended = false;
        after_arrow = false;
        if (is_word_byte(b) && CHAIN_WORDS.contains(&word_at(i)))
            || matches!(b, b'!' | b'~' | b'+' | b'-')
        {
            prefix += 1;
        } else {
            prefix = 0;
        }
        let next = bytes.get(i + 1).copied();
        let before = i.checked_sub(1).and_then(|p| bytes.get(p)).copied();
        if is_operator_byte(b) && !before.is_some_and(is_operator_byte) {
            links += 1;
            most_links = most_links.max(links);
        }
        if b == b'.'
            && next.is_some_and(|c| is_word_byte(c) && !c.is_ascii_digit())
            && before.is_some_and(|c| is_word_byte(c) || matches!(c, b')' | b']'))
        {
            members += 1;
        } else if !is_word_byte(b) {
            members = 0;
        }
        if b == b'=' && next == Some(b'>') {
            after_arrow = true;
            let body = bytes
                .get(i + 2..)
                .and_then(|rest| rest.iter().find(|c| !c.is_ascii_whitespace()));
            if body != Some(&b'{') {
                arrows += 1;
            }
        } else if opens_operand(before, b, next) {
            // Right-associative operators nest their right operand:
            // `a = a = …`, `a ? b : a ? b : …`, `a ** a ** …`.
            after_arrow = true;
            arrows += 1;
        }
        if b == b'<' && regex_allowed(last, text.get(last_word.clone()).unwrap_or_default()) {
            match next {
                Some(b'/') => jsx = jsx.saturating_sub(1),
                Some(c) if c.is_ascii_alphabetic() || matches!(c, b'>' | b'_' | b'$') => jsx += 1,
                _ => {}
            }
        } else if b == b'/' && next == Some(b'>') {
            jsx = jsx.saturating_sub(1);
        }
        // Template substitutions (`${`) count too: they are on the stack.
        depth = depth.max(stack.len() + angles + arrows + prefix + members + jsx);
        raw_max = raw_max
            .max(raw + angles + arrows + prefix + members + jsx)
            .max(depth);
        if after_arrow && b == b'=' && next == Some(b'>') {
            // `=>` is one token; its `>` closes a type argument as before.
            angles = angles.saturating_sub(1);
            last = Some(b'>');
            last_word = 0..0;
            i += 2;
            continue;
        }
        match b {
            b'"' | b'\'' => {
                let start = i;
                i = string_end(bytes, i);
                unbalanced |= !string_closed(bytes, start, i);
                last = Some(b);
                continue;
            }
            b'`' => {
                let end = template_end(bytes, i + 1, &mut stack);
                unbalanced |= !template_part_closed(bytes, end);
                i = unterminated_at_line_end(bytes, i, end);
                last = Some(b'`');
                continue;
            }
            b'/' if regex_allowed(last, text.get(last_word.clone()).unwrap_or_default())
                && !(last == Some(b'!') && postfix_bang(bytes, i)) =>
            {
                i = regex_end(bytes, i);
                last = Some(b'/');
                last_word = 0..0;
                continue;
            }
            b'(' | b'[' | b'{' => {
                stack.push(Frame::Bracket(b));
                arrows_saved.push(arrows);
                jsx_saved.push(jsx);
                links_saved.push(links);
                links = 0;
                depth = depth.max(stack.len() + angles + arrows);
                raw += 1;
                raw_max = raw_max.max(raw + angles + arrows);
            }
            b'<' if i > 0 && bytes.get(i - 1).is_some_and(|p| is_word_byte(*p)) => {
                angles += 1;
                depth = depth.max(stack.len() + angles);
                raw_max = raw_max.max(raw + angles);
            }
            b'>' => angles = angles.saturating_sub(1),
            b')' | b']' => {
                raw = raw.saturating_sub(1);
                let wanted = if b == b')' { b'(' } else { b'[' };
                unbalanced |= stack.last() != Some(&Frame::Bracket(wanted));
                // A `)` or `]` right after a `{` left open, whose own bracket
                // is just below it (`test('a', () => { … )`, the `}`
                // missing), closes both: the call ends there, and the
                // statements after it are not taken into its callback. Not
                // after a `}` (`})` with one `}` too few before it is more
                // likely a stray `)`).
                let pops = if closes_left_open_brace(&stack, b, last) {
                    2
                } else {
                    1
                };
                for _ in 0..pops {
                    if matches!(stack.last(), Some(Frame::Bracket(_))) {
                        stack.pop();
                        arrows = arrows_saved.pop().unwrap_or(0);
                        jsx = jsx_saved.pop().unwrap_or(0);
                        links = links_saved.pop().unwrap_or(0);
                    }
                }
                if pops == 2 {
                    raw = raw.saturating_sub(1);
                }
            }
            b'}' => {
                unbalanced |= stack.is_empty() || left_open(&stack) > 0;
                for _ in 0..left_open(&stack) {
                    stack.pop();
                    arrows = arrows_saved.pop().unwrap_or(0);
                    jsx = jsx_saved.pop().unwrap_or(0);
                    links = links_saved.pop().unwrap_or(0);
                    raw = raw.saturating_sub(1);
                }
                match stack.last() {
                    Some(Frame::Substitution) => {
                        stack.pop();
                        let end = template_end(bytes, i + 1, &mut stack);
                        unbalanced |= !template_part_closed(bytes, end);
                        i = unterminated_at_line_end(bytes, i, end);
                        last = Some(b'`');
                        continue;
                    }
                    Some(Frame::Bracket(_)) => {
                        stack.pop();
                        arrows = arrows_saved.pop().unwrap_or(0);
                        jsx = jsx_saved.pop().unwrap_or(0);
                        links = links_saved.pop().unwrap_or(0);
                        raw = raw.saturating_sub(1);
                        ended = stack.is_empty();
                    }
                    None => raw = raw.saturating_sub(1),
                }
            }
            b';' => {
                angles = 0;
                jsx = 0;
                arrows = arrows_saved.last().copied().unwrap_or(0);
                links = 0;
                ended = stack.is_empty();
            }
            b',' => {
                arrows = arrows_saved.last().copied().unwrap_or(0);
                links = 0;
            }
            _ => {}
        }
        if is_word_byte(b) {
            let start = i;
            while i < bytes.len() && is_word_byte(bytes[i]) {
                i += 1;
            }
            last = bytes.get(i - 1).copied();
            last_word = start..i;
            continue;
        }
        last = Some(b);
        last_word = 0..0;
        i += 1;
    }
    if let Some(start) = piece_start {
        pieces.push(Piece {
            range: start..trimmed_end(text, start, bytes.len()),
            depth,
            links: most_links,
        });
    }
    unbalanced |= !stack.is_empty();
    (pieces, raw_max, unbalanced)
}

/// Whether `b` is part of an operator token (`+`, `&&`, `>>>=`, `??`…): a
/// run of them is one token for [`Piece::links`].
fn is_operator_byte(b: u8) -> bool {
    matches!(
        b,
        b'+' | b'-' | b'*' | b'/' | b'%' | b'&' | b'|' | b'^' | b'<' | b'>' | b'=' | b'!' | b'?'
    )
}

/// Whether the operator byte `b` (between the bytes `before` and `next`)
/// is a right-associative operator whose right operand nests: an assignment
/// `=` (also `+=` and the like, not `==`, `=>`, `<=`, `>=`, `!=`), the `?`
/// of a conditional (not `?.`, `??`, nor an optional `a?:`, `a?)`, `a?,`,
/// `a?=`), or the first `*` of `**`.
fn opens_operand(before: Option<u8>, b: u8, next: Option<u8>) -> bool {
    match b {
        b'=' => {
            !matches!(next, Some(b'=' | b'>')) && !matches!(before, Some(b'=' | b'!' | b'<' | b'>'))
        }
        b'?' => {
            !matches!(next, Some(b'.' | b'?' | b':' | b')' | b',' | b'=')) && before != Some(b'?')
        }
        b'*' => next == Some(b'*') && before != Some(b'*'),
        _ => false,
    }
}

/// `end`, the end of a literal or comment opening at `start`, or the end of
/// its line when it runs unterminated to the end of the file: an unclosed
/// template or comment must not swallow every statement after it.
fn unterminated_at_line_end(bytes: &[u8], start: usize, end: usize) -> usize {
    if end >= bytes.len() && !bytes.ends_with(b"`") {
        line_end(bytes, start)
    } else {
        end
    }
}

/// Whether the string literal opening at `start` and ended by
/// [`string_end`] at `end` was closed by its own quote (not by its line's
/// end or the file's).
fn string_closed(bytes: &[u8], start: usize, end: usize) -> bool {
    end > start + 1 && end.checked_sub(1).and_then(|e| bytes.get(e)) == bytes.get(start)
}

/// Whether template text that [`template_end`] ended at `end` was ended by
/// its own backquote or a `${`, not cut before a column-1 declaration or by
/// the end of the file (a hint for [`split`]'s unbalanced flag).
fn template_part_closed(bytes: &[u8], end: usize) -> bool {
    matches!(
        end.checked_sub(1).and_then(|e| bytes.get(e)),
        Some(b'`' | b'{')
    )
}

/// `end` moved back over the whitespace that ends `start..end`, so an error
/// at the end of a piece is reported on its last line.
fn trimmed_end(text: &str, start: usize, end: usize) -> usize {
    text.get(start..end)
        .map_or(end, |piece| start + piece.trim_end().len())
}

fn is_word_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'$' || b >= 0x80
}

fn line_end(bytes: &[u8], from: usize) -> usize {
    bytes
        .get(from..)
        .and_then(|rest| rest.iter().position(|b| *b == b'\n' || *b == b'\r'))
        .map_or(bytes.len(), |n| from + n)
}

fn find(bytes: &[u8], from: usize, needle: &[u8]) -> Option<usize> {
    bytes
        .get(from..)?
        .windows(needle.len())
        .position(|w| w == needle)
        .map(|n| from + n)
}

/// End (exclusive) of the string literal opening at `start`; an unterminated
/// string ends at its line end.
fn string_end(bytes: &[u8], start: usize) -> usize {
    let quote = bytes[start];
    let mut i = start + 1;
    while let Some(&b) = bytes.get(i) {
        match b {
            // A line continuation may escape a CRLF.
            b'\\' if bytes.get(i + 1..i + 3) == Some(b"\r\n") => i += 3,
            b'\\' => i += 2,
            b'\n' | b'\r' => return i,
            _ if b == quote => return i + 1,
            _ => i += 1,
        }
    }
    bytes.len()
}

/// Scans template text from `from` to its closing backquote (returning the
/// index after it) or to a `${` (pushing a substitution frame).
///
/// Template text that would run over a line starting in column 1 with a
/// declaration word, a decorator or a doc comment ends before that line: a
/// stray backquote turns every later one (those quoting code in JSDoc too)
/// inside out, and the declarations between would be lost.
fn template_end(bytes: &[u8], from: usize, stack: &mut Vec<Frame>) -> usize {
    let cut = CUT_TEMPLATES.with(Cell::get);
    let mut i = from;
    while let Some(&b) = bytes.get(i) {
        match b {
            b'\n' | b'\r' if cut && starts_declaration(bytes, i + 1) => return i,
            b'\\' => i += 2,
            b'`' => return i + 1,
            b'$' if bytes.get(i + 1) == Some(&b'{') => {
                stack.push(Frame::Substitution);
                return i + 2;
            }
            _ => i += 1,
        }
    }
    bytes.len()
}

thread_local! {
    /// Whether template text ends before a line that starts, in column 1,
    /// with a declaration word (see [`natural_templates`]).
    static CUT_TEMPLATES: Cell<bool> = const { Cell::new(true) };
}

/// Runs `f` with template literals lexed as the language lexes them (ended
/// only by their own backquote) when every template of `text` ends that
/// way, so template text holding code in column 1 (a test's source
/// fixture) is never cut into statements and outlined. When one does not
/// (a backquote typed alone pairs with the next one and turns the code
/// after it into template text), the one backquote whose removal lets every
/// template close, leaving the least template text, is taken for the stray
/// one: `f` gets the text with it blanked, to split the file at its real
/// statements (their lines are the same). Else, with no such backquote
/// among the first [`MAX_STRAY_TRIES`], template text ends before a line
/// starting in column 1 with a declaration word, so it cannot swallow the
/// rest of the file, and `f` gets `None`. Only the recovery of a file that
/// failed to parse needs this (a clean parse uses swc's own lexing).
pub(crate) fn natural_templates<T>(
    text: &str,
    f: impl FnOnce(Option<std::borrow::Cow<'_, str>>) -> T,
) -> T {
    let split_text = match stray_backquote(text) {
        Some(Stray::None) => Some(std::borrow::Cow::Borrowed(text)),
        Some(Stray::At(at)) => Some(std::borrow::Cow::Owned(blank(
            text,
            std::slice::from_ref(&(at..at + 1)),
        ))),
        None => None,
    };
    let before = CUT_TEMPLATES.with(|c| c.replace(split_text.is_none()));
    let result = f(split_text);
    CUT_TEMPLATES.with(|c| c.set(before));
    result
}

/// Most backquotes tried as the stray one (see [`natural_templates`]).
const MAX_STRAY_TRIES: usize = 64;

/// Which backquote of a text is stray (see [`stray_backquote`]).
enum Stray {
    /// None: the templates close as they are, with the least template text.
    None,
    /// The one at this byte.
    At(usize),
}

/// The reading of `text`'s templates that closes them all with the least
/// template text: as it is, or without one of its first
/// [`MAX_STRAY_TRIES`] backquotes (a stray backquote can leave every
/// template closed, pairing with backquotes in comments below: the code
/// between them then reads as template text, which makes it long). `None`
/// when no reading closes them all. Tries are fewer for a long text (at
/// most about 64 MB scanned).
fn stray_backquote(text: &str) -> Option<Stray> {
    let tries = MAX_STRAY_TRIES.min((64 << 20) / text.len().max(1));
    let mut best: Option<(Stray, usize)> =
        templates_close(text).then(|| (Stray::None, template_bytes(text)));
    let candidates = text
        .bytes()
        .enumerate()
        .filter(|(_, b)| *b == b'`')
        .map(|(i, _)| i)
        .take(tries);
    for at in candidates {
        let trial = blank(text, std::slice::from_ref(&(at..at + 1)));
        if !templates_close(&trial) {
            continue;
        }
        let length = template_bytes(&trial);
        if best.as_ref().is_none_or(|(_, least)| length < *least) {
            best = Some((Stray::At(at), length));
        }
    }
    best.map(|(stray, _)| stray)
}

/// The bytes of template text in `text`, lexed without the column-1 cut.
fn template_bytes(text: &str) -> usize {
    let before = CUT_TEMPLATES.with(|c| c.replace(false));
    let mut total = 0usize;
    scan(text, 0..text.len(), |start, b, _, end| {
        if b == b'`' {
            total += end.saturating_sub(start);
        }
    });
    CUT_TEMPLATES.with(|c| c.set(before));
    total
}

/// Whether every template literal of `text` (and every `${…}` in one) ends
/// before the end of the text, lexed without the column-1 cut.
fn templates_close(text: &str) -> bool {
    let before = CUT_TEMPLATES.with(|c| c.replace(false));
    let bytes = text.as_bytes();
    let mut closed = true;
    // `${` opened and not yet closed by their `}`.
    let mut open = 0usize;
    scan(text, 0..text.len(), |start, b, _, end| {
        if b != b'`' {
            return;
        }
        // A part of a template: from its backquote or the `}` of a `${`,
        // to its closing backquote, its next `${`, or the end of the text.
        if bytes.get(start) == Some(&b'}') {
            open = open.saturating_sub(1);
        }
        let tail = bytes.get(..end).unwrap_or_default();
        if tail.ends_with(b"${") {
            open += 1;
        } else if end >= bytes.len() && !(end > start + 1 && tail.ends_with(b"`")) {
            closed = false;
        }
    });
    CUT_TEMPLATES.with(|c| c.set(before));
    closed && open == 0
}

/// Whether the line starting at `at` begins, in column 1, with a declaration
/// word, a decorator or a doc comment.
fn starts_declaration(bytes: &[u8], at: usize) -> bool {
    let Some(rest) = bytes.get(at..) else {
        return false;
    };
    if rest.starts_with(b"@") || rest.starts_with(b"/**") {
        return true;
    }
    DECLARATION_WORDS.iter().any(|w| {
        rest.starts_with(w.as_bytes()) && rest.get(w.len()).is_none_or(|&c| !is_word_byte(c))
    })
}

/// Whether the `!` before the `/` at `slash` is TypeScript's postfix
/// non-null assertion (`size! / 2`: it follows a word, `)` or `]`), after
/// which `/` divides.
fn postfix_bang(bytes: &[u8], slash: usize) -> bool {
    let before = |end: usize| {
        bytes
            .get(..end)?
            .iter()
            .rposition(|b| !b.is_ascii_whitespace())
    };
    let Some(bang) = before(slash) else {
        return false;
    };
    before(bang)
        .and_then(|at| bytes.get(at))
        .is_some_and(|&c| is_word_byte(c) || c == b')' || c == b']')
}

fn regex_allowed(last: Option<u8>, last_word: &str) -> bool {
    match last {
        None => true,
        // `</div>` closes a JSX element: no regular expression follows `<`
        // in real code.
        Some(b')' | b']' | b'}' | b'"' | b'\'' | b'`' | b'<') => false,
        Some(c) if is_word_byte(c) => EXPRESSION_KEYWORDS.contains(&last_word),
        Some(_) => true,
    }
}

/// End of the regular expression literal opening at `start` (classes `[…]`
/// may hold `/`); an unterminated one ends at its line end.
fn regex_end(bytes: &[u8], start: usize) -> usize {
    let mut i = start + 1;
    let mut class = false;
    while let Some(&b) = bytes.get(i) {
        match b {
            b'\\' => i += 2,
            b'\n' | b'\r' => return i,
            b'[' => {
                class = true;
                i += 1;
            }
            b']' => {
                class = false;
                i += 1;
            }
            b'/' if !class => {
                i += 1;
                while bytes.get(i).is_some_and(|b| is_word_byte(*b)) {
                    i += 1;
                }
                return i;
            }
            _ => i += 1,
        }
    }
    bytes.len()
}

/// Calls `visit(i, b, depth)` for every byte `b` at `i` in `range` that starts
/// a token outside strings, templates, regular expressions and comments (a
/// word is reported once, by its first byte); `depth` is the bracket nesting
/// after that byte (`(`, `[`, `{` counted; template substitutions are skipped
/// whole).
fn scan(text: &str, range: Range<usize>, mut visit: impl FnMut(usize, u8, usize, usize)) {
    let bytes = text.as_bytes();
    let end = range.end.min(bytes.len());
    let mut stack: Vec<Frame> = Vec::new();
    let mut last: Option<u8> = None;
    let mut last_word: Range<usize> = 0..0;
    let mut i = range.start;
    // The number of `Frame::Bracket`s on the stack, kept as they are pushed
    // and popped: counting them at each token took time proportional to the
    // depth (10,000 nested brackets took seconds, 40,000 a minute).
    let mut open = 0usize;
    while i < end {
        let b = bytes[i];
        if b.is_ascii_whitespace() || b == 0x0b {
            i += 1;
            continue;
        }
        if b == b'/' && bytes.get(i + 1) == Some(&b'/') {
            i = line_end(bytes, i);
            continue;
        }
        if b == b'/' && bytes.get(i + 1) == Some(&b'*') {
            i = find(bytes, i + 2, b"*/").map_or(bytes.len(), |e| e + 2);
            continue;
        }
        match b {
            b'"' | b'\'' => {
                let start = i;
                i = string_end(bytes, i);
                visit(start, b, open, i);
                last = Some(b);
                continue;
            }
            b'`' => {
                let start = i;
                i = template_end(bytes, i + 1, &mut stack);
                visit(start, b, open, i);
                last = Some(b'`');
                continue;
            }
            b'/' if regex_allowed(last, text.get(last_word.clone()).unwrap_or_default())
                && !(last == Some(b'!') && postfix_bang(bytes, i)) =>
            {
                let start = i;
                i = regex_end(bytes, i);
                visit(start, b'"', open, i);
                last = Some(b'/');
                last_word = 0..0;
                continue;
            }
            b'(' | b'[' | b'{' => {
                stack.push(Frame::Bracket(b));
                open += 1;
            }
            b')' | b']' => {
                // As in `split`: a `)` or `]` right after a `{` left open,
                // whose own bracket is just below it, closes that `{` too,
                // visited as a `}` at the closer's byte.
                if closes_left_open_brace(&stack, b, last) {
                    stack.pop();
                    open = open.saturating_sub(1);
                    visit(i, b'}', open, i);
                }
                if matches!(stack.last(), Some(Frame::Bracket(_))) {
                    stack.pop();
                    open = open.saturating_sub(1);
                }
            }
            b'}' => {
                for _ in 0..left_open(&stack) {
                    stack.pop();
                    open = open.saturating_sub(1);
                    // The `(` or `[` closed here, as if by its own bracket.
                    visit(i, b')', open, i);
                }
                match stack.last() {
                    Some(Frame::Substitution) => {
                        stack.pop();
                        let start = i;
                        i = template_end(bytes, i + 1, &mut stack);
                        visit(start, b'`', open, i);
                        last = Some(b'`');
                        continue;
                    }
                    Some(Frame::Bracket(_)) => {
                        stack.pop();
                        open = open.saturating_sub(1);
                    }
                    None => {}
                }
            }
            _ => {}
        }
        if is_word_byte(b) {
            let start = i;
            while i < end && is_word_byte(bytes[i]) {
                i += 1;
            }
            visit(start, b, open, i);
            last = bytes.get(i - 1).copied();
            last_word = start..i;
            continue;
        }
        visit(i, b, open, i + 1);
        last = Some(b);
        last_word = 0..0;
        i += 1;
    }
}

/// The braces of the body of a failed statement at `range`: the `{` that
/// opens it and the last significant byte of the statement, which is the `}`
/// matching that `{` when the braces balance. The body is the `{…}` that ends
/// the statement, or else (unbalanced) the first `{` outside every bracket.
/// `None` when the statement has no such brace.
pub(crate) fn body_braces(text: &str, range: Range<usize>) -> Option<(usize, usize)> {
    let mut opens: Vec<usize> = Vec::new();
    let mut first_open: Option<usize> = None;
    let mut closed: Option<(usize, usize)> = None;
    let mut last_token = None;
    scan(text, range, |i, b, depth, _| {
        last_token = Some(i);
        match b {
            b'{' | b'(' | b'[' => {
                if b == b'{' && depth == 1 && first_open.is_none() {
                    first_open = Some(i);
                }
                opens.push(i);
                closed = None;
            }
            b'}' | b')' | b']' => {
                let open = opens.pop();
                closed = match (b, open) {
                    (b'}', Some(open)) if depth == 0 => Some((open, i)),
                    _ => None,
                };
            }
            _ => closed = None,
        }
    });
    let last = last_token?;
    match closed {
        Some((open, close)) if close == last && text.as_bytes().get(open) == Some(&b'{') => {
            Some((open, close))
        }
        _ => first_open
            .filter(|open| *open < last)
            .map(|open| (open, last)),
    }
}

/// The members of a class body (the bytes strictly between its braces), in
/// order. A member ends at bracket depth 0 after `;` or `}`, or where a line
/// starts at the members' indentation (that of the first one) with a token
/// that can start a member and the previous one is finished or left brackets
/// open, so one unclosed brace costs one member.
pub(crate) fn split_members(text: &str, body: Range<usize>) -> Vec<Range<usize>> {
    let bytes = text.as_bytes();
    let mut members = Vec::new();
    let mut start: Option<usize> = None;
    let mut indent: Option<usize> = None;
    let mut ended = false;
    let mut depth_before = 0usize;
    let mut last: Option<u8> = None;
    let line_indent = |i: usize| -> Option<usize> {
        let line_start = bytes
            .get(..i)?
            .iter()
            .rposition(|b| *b == b'\n' || *b == b'\r')
            .map_or(0, |n| n + 1);
        bytes
            .get(line_start..i)?
            .iter()
            .all(|b| *b == b' ' || *b == b'\t')
            .then_some(i - line_start)
    };
    let mut token_end = body.start;
    // Type arguments open outside every bracket (`q: Map<string, number>`
    // in a class, whose `,` ends nothing): a `<` right after a word.
    let mut angles = 0usize;
    scan(text, body.clone(), |i, b, depth, end| {
        let own_line = line_indent(i);
        if indent.is_none() {
            indent = Some(own_line.unwrap_or(0));
        }
        let starts_member = is_word_byte(b) || matches!(b, b'#' | b'@' | b'*' | b'[');
        let finished = matches!(last, Some(c) if matches!(c, b';' | b'}' | b')' | b']' | b'"' | b'\'' | b'`') || is_word_byte(c));
        let at_indent = own_line.is_some() && own_line == indent;
        let boundary = match start {
            None => false,
            Some(_) => {
                (depth_before == 0 && ended)
                    || (at_indent && starts_member && (depth_before > 0 || finished))
            }
        };
        if boundary && let Some(s) = start.take() {
            members.push(s..token_end);
            angles = 0;
        }
        if start.is_none() {
            start = Some(i);
        }
        if depth == 0 {
            match b {
                b'<' if token_end == i && last.is_some_and(is_word_byte) => angles += 1,
                b'>' => angles = angles.saturating_sub(1),
                b';' => angles = 0,
                _ => {}
            }
        }
        // `,` ends an enum member (and may end an interface member), unless
        // it separates type arguments.
        ended = depth == 0 && (matches!(b, b';' | b'}') || (b == b',' && angles == 0));
        depth_before = depth;
        last = Some(b);
        token_end = end;
    });
    if let Some(s) = start {
        members.push(s..token_end);
    }
    members
}

/// `text` with the bytes of `ranges` turned into spaces, line ends kept, so
/// every other byte keeps its offset (and line and column).
pub(crate) fn blank(text: &str, ranges: &[Range<usize>]) -> String {
    let mut bytes = text.as_bytes().to_vec();
    for range in ranges {
        for b in bytes.iter_mut().take(range.end).skip(range.start) {
            if *b != b'\n' && *b != b'\r' {
                *b = b' ';
            }
        }
    }
    String::from_utf8(bytes).unwrap_or_default()
}

/// Byte ranges of the bracketed regions of `text` whose brackets nest more
/// than `limit` deep, each from its outermost opening bracket to just after
/// its closing one (or the end of the text), with its deepest nesting.
pub(crate) fn deep_regions(text: &str, limit: usize) -> Vec<(Range<usize>, usize)> {
    let mut regions = Vec::new();
    let mut start: Option<usize> = None;
    let mut deepest = 0usize;
    scan(text, 0..text.len(), |i, b, depth, end| {
        if depth > 0 && start.is_none() {
            start = Some(i);
            deepest = 0;
        }
        deepest = deepest.max(depth);
        if depth == 0
            && matches!(b, b')' | b']' | b'}')
            && let Some(s) = start.take()
            && deepest > limit
        {
            regions.push((s..end, deepest));
        }
    });
    if let Some(s) = start
        && deepest > limit
    {
        regions.push((s..text.len(), deepest));
    }
    regions
}

/// Byte ranges of the `else` words to blank so that no `else if` chain of
/// `text` holds more than `limit` `else if`s: every `limit + 1`th `else` of a
/// chain. A chain is the `else if`s at one bracket depth until a statement
/// there ends (`}` or `;`) without an `else` after it.
pub(crate) fn else_if_cuts(text: &str, limit: usize) -> Vec<Range<usize>> {
    let mut cuts = Vec::new();
    // Per bracket depth: the `else if`s of the current chain, and whether the
    // last token at that depth ended a statement.
    let mut chains: Vec<(usize, bool)> = Vec::new();
    let mut pending_else: Option<Range<usize>> = None;
    scan(text, 0..text.len(), |i, b, depth, end| {
        let own = if matches!(b, b'(' | b'[' | b'{') {
            depth.saturating_sub(1)
        } else {
            depth
        };
        chains.truncate(own + 1);
        chains.resize(own + 1, (0, false));
        let word = if is_word_byte(b) {
            text.get(i..end).unwrap_or_default()
        } else {
            ""
        };
        let Some(chain) = chains.get_mut(own) else {
            return;
        };
        if chain.1 && word != "else" {
            chain.0 = 0;
        }
        chain.1 = matches!(b, b'}' | b';');
        if let Some(at) = pending_else.take()
            && word == "if"
        {
            chain.0 += 1;
            if chain.0 > limit {
                cuts.push(at);
                chain.0 = 0;
            }
        }
        if word == "else" {
            pending_else = Some(i..end);
        }
    });
    cuts
}

/// The first bracket of a text swc parsed without an error that is not
/// closed by its own kind (an unclosed `(`, `[` or `{`, or a closer with
/// nothing open), lexed as [`scan`] does with templates lexed as the
/// language does: its byte. swc accepts some texts whose brackets do not
/// balance without an error (a generic arrow `<T>(…) => {…` whose `}` is
/// missing, parsed speculatively), which must not pass for clean. A template
/// literal left open at the end of the text (swc accepts `` use`Memo(…`` in
/// such an arrow too) or a string literal left open at its line's end (swc
/// accepts `export type K = 'b` and a line break) is reported first, at its
/// backquote or quote; `None` when a
/// `${` is left open (the brackets' reading is then unsure). One scan; run
/// only when [`split`] saw a bracket not pair.
pub(crate) fn unbalanced_after_clean_parse(text: &str) -> Option<usize> {
    let before = CUT_TEMPLATES.with(|c| c.replace(false));
    let bytes = text.as_bytes();
    let mut opens: Vec<(u8, usize)> = Vec::new();
    let mut first: Option<usize> = None;
    // The first template left open at the end of the text: its backquote.
    let mut template_open: Option<usize> = None;
    // The first string literal its line's end left unclosed: its quote.
    let mut string_open: Option<usize> = None;
    // `${` opened and not yet closed.
    let mut substitutions = 0usize;
    scan(text, 0..text.len(), |i, b, _, end| match b {
        // `scan` visits a regular expression as a `"` too: its first byte
        // tells them apart.
        b'"' | b'\'' if bytes.get(i) == Some(&b) && !string_closed(bytes, i, end) => {
            string_open = string_open.or(Some(i));
        }
        b'`' => {
            if bytes.get(i) == Some(&b'}') {
                substitutions = substitutions.saturating_sub(1);
            }
            let tail = bytes.get(..end).unwrap_or_default();
            if tail.ends_with(b"${") {
                substitutions += 1;
            } else if end >= bytes.len() && !(end > i + 1 && tail.ends_with(b"`")) {
                template_open = template_open.or(Some(i));
            }
        }
        _ if first.is_some() => {}
        b'(' | b'[' | b'{' => opens.push((b, i)),
        b')' | b']' | b'}' => {
            let wanted = match b {
                b')' => b'(',
                b']' => b'[',
                _ => b'{',
            };
            // `scan` closes a `(` or `[` left open with the `}` after it,
            // as a `)` at the `}`'s byte (and a `{` left open with the `)`
            // after it, as a `}` at the `)`'s byte): that bracket is unclosed.
            let synthetic = bytes.get(i) != Some(&b);
            match opens.pop() {
                Some((open, _)) if open == wanted && !synthetic => {}
                Some((_, at)) => first = Some(at),
                None => first = Some(i),
            }
        }
        _ => {}
    });
    CUT_TEMPLATES.with(|c| c.set(before));
    if template_open.is_some() || string_open.is_some() {
        return template_open.into_iter().chain(string_open).min();
    }
    if substitutions > 0 {
        return None;
    }
    first.or_else(|| opens.first().map(|(_, at)| *at))
}

/// The `{…}` pairs of `range` whose braces match (byte of `{`, byte of
/// `}`), in the order they close (inner blocks before the blocks around them).
pub(crate) fn brace_pairs(text: &str, range: Range<usize>) -> Vec<(usize, usize)> {
    let mut opens: Vec<(u8, usize)> = Vec::new();
    let mut pairs = Vec::new();
    scan(text, range, |i, b, _, _| match b {
        b'{' | b'(' | b'[' => opens.push((b, i)),
        b'}' | b')' | b']' => {
            if let Some((open, at)) = opens.pop()
                && open == b'{'
                && b == b'}'
            {
                pairs.push((at, i));
            }
        }
        _ => {}
    });
    pairs
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pieces(text: &str) -> Vec<&str> {
        split_statements(text)
            .into_iter()
            .map(|r| text[r].trim_end())
            .collect()
    }

    #[test]
    fn splits_at_statement_ends() {
        let text = "import a from \"a\";\nfunction f() {\n  return /}/.test(x);\n}\nconst s = `${ {a: 1}.a }}`\nclass C {}\n";
        assert_eq!(
            pieces(text),
            [
                "import a from \"a\";",
                "function f() {\n  return /}/.test(x);\n}",
                "const s = `${ {a: 1}.a }}`",
                "class C {}"
            ]
        );
    }

    #[test]
    fn an_unclosed_brace_stops_at_the_next_declaration() {
        let text = "function broken() {\n  if (x {\n}\nexport function ok() {}\n";
        assert_eq!(
            pieces(text),
            [
                "function broken() {\n  if (x {\n}",
                "export function ok() {}"
            ]
        );
    }

    #[test]
    fn minified_statements_on_one_line_split() {
        assert_eq!(
            pieces("function a(){};function b({;function c(){}"),
            ["function a(){}", ";", "function b({;function c(){}"]
        );
        assert_eq!(pieces("a();b()"), ["a();", "b()"]);
    }

    #[test]
    fn depth_counts_brackets_and_type_arguments() {
        let depths: Vec<usize> = split("f(((1)));\nlet x: A<B<C<[D]>>>;\na < b;")
            .0
            .iter()
            .map(|p| p.depth)
            .collect();
        assert_eq!(depths, [3, 4, 0]);
    }

    #[test]
    fn depth_counts_prefix_runs_arrows_and_right_associative_operators() {
        // `x =` opens one level; `await await new new` four more.
        let text = "x = await await new new X;\nf = a => (b) => c;\ng(a => 1, b => 2);\n\
                    h = a => {\n  return 1;\n};\nz = a ? b : c ? d : e;\nw = a ** b ** c;\n\
                    if (a == b && c <= d) {}\nlet o = { a: b?.c ?? d, e: f! };\n";
        let depths: Vec<usize> = split(text).0.iter().map(|p| p.depth).collect();
        // (The `;` after the braced arrow body is a piece of its own.)
        assert_eq!(depths, [5, 3, 2, 2, 0, 3, 3, 1, 3, 0]);
    }

    #[test]
    fn continuations_stay_together() {
        let text = "if (a) {\n} else {\n}\nfoo\n  .bar()\n";
        assert_eq!(pieces(text), ["if (a) {\n} else {\n}", "foo\n  .bar()"]);
    }

    #[test]
    fn an_unterminated_template_ends_at_its_line() {
        let text = "const s = `abc ${x}\nfunction b() {}\nclass C {}\n";
        assert_eq!(
            pieces(text),
            ["const s = `abc ${x}", "function b() {}", "class C {}"]
        );
    }

    #[test]
    fn class_members_split_at_their_indentation() {
        let text = "class S {\n  a() {\n    if (x) {\n  }\n  @d()\n  b = 1;\n  c() {}\n}";
        let open = text.find('{').unwrap_or_default();
        let close = text.rfind('}').unwrap_or_default();
        assert_eq!(body_braces(text, 0..text.len()), Some((open, close)));
        let members: Vec<&str> = split_members(text, open + 1..close)
            .into_iter()
            .map(|r| &text[r])
            .collect();
        assert_eq!(
            members,
            ["a() {\n    if (x) {\n  }", "@d()", "b = 1;", "c() {}"]
        );
    }

    #[test]
    fn deep_regions_span_forced_splits() {
        let text = "function a() {\nfunction b() {\n}\n}\nf(1);\n";
        assert_eq!(deep_regions(text, 1), [(13..33, 2)]);
        assert!(deep_regions(text, 2).is_empty());
    }

    #[test]
    fn decorators_stay_with_their_declaration() {
        let text = "@Component({\n  a: 1,\n})\n@b\nexport class A {}\n@c\nclass B {}\nf();\n";
        assert_eq!(
            pieces(text),
            [
                "@Component({\n  a: 1,\n})\n@b\nexport class A {}",
                "@c\nclass B {}",
                "f();"
            ]
        );
    }
}
