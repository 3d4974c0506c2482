//! Injecting one syntax error into a file, inside a chosen line range.

use super::Lang;
use super::rng::Rng;

/// The families of mutations, tried in a random order until one applies.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Family {
    /// Delete one `:`, `)`, `}` or `>`.
    DeleteCloser,
    /// Insert a line break inside a line's text.
    CutLine,
    /// Insert an unmatched `(`.
    InsertParen,
    /// Insert an unterminated string opener: `"""` (Python), a backtick
    /// (TypeScript), `r#"` (Rust).
    InsertString,
    /// Write a keyword twice (`def` → `def def`).
    DuplicateKeyword,
}

const FAMILIES: [Family; 5] = [
    Family::DeleteCloser,
    Family::CutLine,
    Family::InsertParen,
    Family::InsertString,
    Family::DuplicateKeyword,
];

/// One mutant of a file.
#[derive(Debug, Clone)]
pub struct Mutant {
    /// The mutated text.
    pub text: String,
    /// Byte offset of the mutation in the original text.
    pub offset: usize,
    /// 1-based line of the mutation in the original text.
    pub line: u32,
    /// 1-based column (in characters) of the mutation in the original text.
    pub column: u32,
    /// Lines added by the mutation (1 for a cut line, else 0); symbols starting
    /// after `line` move down by this much.
    pub line_delta: u32,
    /// What was done, such as ``deleted ')'`` or ``inserted '"""'``.
    pub what: String,
}

fn keywords(lang: Lang) -> &'static [&'static str] {
    match lang {
        Lang::Python => &[
            "def", "class", "return", "if", "elif", "else", "for", "while", "import", "from",
            "with", "as", "lambda", "async", "await", "pass", "yield", "try", "except", "finally",
            "in", "not", "is", "and", "or", "raise", "del", "assert",
        ],
        Lang::Ts => &[
            "function",
            "class",
            "const",
            "let",
            "var",
            "return",
            "if",
            "else",
            "for",
            "while",
            "import",
            "export",
            "interface",
            "type",
            "extends",
            "implements",
            "new",
            "async",
            "await",
            "static",
            "public",
            "private",
            "readonly",
            "enum",
            "namespace",
            "declare",
        ],
        Lang::Rust => &[
            "fn", "struct", "enum", "impl", "trait", "pub", "let", "mut", "match", "if", "else",
            "for", "while", "loop", "return", "use", "mod", "const", "static", "type", "where",
            "unsafe", "async", "move", "ref", "dyn",
        ],
    }
}

fn string_opener(lang: Lang) -> &'static str {
    match lang {
        Lang::Python => "\"\"\"",
        Lang::Ts => "`",
        Lang::Rust => "r#\"",
    }
}

/// Byte offsets of the start of each line (a line ends at `\n`).
pub fn line_starts(text: &str) -> Vec<usize> {
    std::iter::once(0)
        .chain(text.match_indices('\n').map(|(i, _)| i + 1))
        .collect()
}

/// Mutates `text` at a random place inside lines `start_line..=end_line`
/// (1-based), or returns `None` when no mutation applies there (blank lines).
pub fn mutate(
    text: &str,
    lang: Lang,
    starts: &[usize],
    (start_line, end_line): (u32, u32),
    rng: &mut Rng,
) -> Option<Mutant> {
    let line_start = |line: u32| -> usize {
        starts
            .get(line.saturating_sub(1) as usize)
            .copied()
            .unwrap_or(text.len())
    };
    let from = line_start(start_line);
    let to = line_start(end_line.saturating_add(1)).min(text.len());
    let range = text.get(from..to)?;
    let first = rng.below(FAMILIES.len());
    for step in 0..FAMILIES.len() {
        let family = FAMILIES[(first + step) % FAMILIES.len()];
        if let Some((offset, insert, delete, what)) = apply(range, lang, family, rng) {
            let offset = from + offset;
            let mut mutated = String::with_capacity(text.len() + insert.len());
            mutated.push_str(text.get(..offset)?);
            mutated.push_str(&insert);
            mutated.push_str(text.get(offset + delete..)?);
            let line = u32::try_from(starts.partition_point(|&s| s <= offset)).ok()?;
            let line_begin = line_start(line);
            let column = text.get(line_begin..offset)?.chars().count() + 1;
            return Some(Mutant {
                text: mutated,
                offset,
                line,
                column: u32::try_from(column).ok()?,
                line_delta: u32::try_from(insert.matches('\n').count()).ok()?,
                what,
            });
        }
    }
    None
}

/// One mutation of `family` in `range`: (offset in `range`, text inserted,
/// bytes deleted, description), or `None` when it has no place there.
fn apply(
    range: &str,
    lang: Lang,
    family: Family,
    rng: &mut Rng,
) -> Option<(usize, String, usize, String)> {
    // Places before a non-blank character (insertions go there).
    let non_blank: Vec<usize> = range
        .char_indices()
        .filter(|(_, c)| !c.is_whitespace())
        .map(|(i, _)| i)
        .collect();
    match family {
        Family::DeleteCloser => {
            let places: Vec<usize> = range
                .char_indices()
                .filter(|(_, c)| matches!(c, ':' | ')' | '}' | '>'))
                .map(|(i, _)| i)
                .collect();
            let at = *rng.pick(&places)?;
            let deleted = range.get(at..at + 1)?;
            Some((at, String::new(), 1, format!("deleted '{deleted}'")))
        }
        Family::CutLine => {
            // Inside a line's text: after its first non-blank character and
            // before its last one.
            let mut places = Vec::new();
            let mut line_offset = 0;
            for line in range.split_inclusive('\n') {
                let body = line.trim_end();
                let indent = body.len() - body.trim_start().len();
                places.extend(
                    body.char_indices()
                        .map(|(i, _)| i)
                        .filter(|&i| i > indent)
                        .map(|i| line_offset + i),
                );
                line_offset += line.len();
            }
            let at = *rng.pick(&places)?;
            Some((at, "\n".to_owned(), 0, "cut the line".to_owned()))
        }
        Family::InsertParen => {
            let at = *rng.pick(&non_blank)?;
            Some((at, "(".to_owned(), 0, "inserted '('".to_owned()))
        }
        Family::InsertString => {
            let at = *rng.pick(&non_blank)?;
            let opener = string_opener(lang);
            Some((at, opener.to_owned(), 0, format!("inserted '{opener}'")))
        }
        Family::DuplicateKeyword => {
            let bytes = range.as_bytes();
            let is_word = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
            let mut places = Vec::new();
            for keyword in keywords(lang) {
                for (at, _) in range.match_indices(keyword) {
                    let before = at.checked_sub(1).and_then(|i| bytes.get(i).copied());
                    let after = bytes.get(at + keyword.len()).copied();
                    if !before.is_some_and(is_word) && !after.is_some_and(is_word) {
                        places.push((at, *keyword));
                    }
                }
            }
            places.sort_unstable();
            let (at, keyword) = *rng.pick(&places)?;
            Some((
                at,
                format!("{keyword} "),
                0,
                format!("duplicated keyword '{keyword}'"),
            ))
        }
    }
}

/// The broken endings of the end-of-file mode, one picked per file: a
/// syntax error that belongs to no symbol of the file (an operator missing,
/// a bracket or string left open until the end of the file, a parameter list
/// not closed, a call not closed).
fn broken_endings(lang: Lang) -> &'static [&'static str] {
    match lang {
        Lang::Python => &[
            "def broken(): return 1  2",
            "broken = {",
            "class Broken(:",
            "broken(1, 2",
            "broken = \"\"\"unterminated",
        ],
        Lang::Ts => &[
            "function broken() { return 1  2; }",
            "const broken = {",
            "class Broken { method( }",
            "broken(1, 2",
            "let broken = `unterminated",
        ],
        Lang::Rust => &[
            "fn broken() { 1  2 }",
            "const BROKEN: u8 = {",
            "struct Broken { field: }",
            "broken!(1, 2",
            "const BROKEN: &str = r#\"unterminated",
        ],
    }
}

/// `text` with one broken ending (see [`broken_endings`]) appended on a new
/// line of its own, after a line break when the text does not end with one.
pub fn append_error(text: &str, lang: Lang, starts: &[usize], rng: &mut Rng) -> Option<Mutant> {
    let ending = rng.pick(broken_endings(lang))?;
    let newline = if text.is_empty() || text.ends_with('\n') {
        ""
    } else {
        "\n"
    };
    let mutated = format!("{text}{newline}{ending}\n");
    // The line the ending is on: the last line start when the text ends with
    // a line break (or is empty), else the line after the last.
    let lines = u32::try_from(starts.len()).ok()?;
    let line = if newline.is_empty() { lines } else { lines + 1 };
    Some(Mutant {
        text: mutated,
        offset: text.len(),
        line,
        column: 1,
        line_delta: 0,
        what: format!("appended '{ending}'"),
    })
}
