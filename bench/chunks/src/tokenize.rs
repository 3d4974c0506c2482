//! The analyzer shared by both chunkings and by the queries.
//!
//! `CodeTokenizer` emits exactly what tantivy's `SimpleTokenizer` (the tokenizer
//! of tantivy's `default` analyzer) emits — every maximal run of alphanumeric
//! characters — and, for each identifier-like word, a few extra terms:
//!
//! * the whole word, when it holds `_` or a `.` between word characters
//!   (`snake_case`, `path.like.names`, `self.config.py_version`);
//! * each dot-separated segment that holds `_` (`py_version` in `self.config.py_version`);
//! * the camelCase / PascalCase parts of each alphanumeric run (`createSlice` ->
//!   `create`, `slice`; `HTTPServer` -> `http`, `server`).
//!
//! An extra term equal to a term the word already yields is not repeated, so a
//! plain English word yields exactly the default tokenizer's single term.
//! The analyzer then applies tantivy's default filters: `RemoveLongFilter(40)`
//! and `LowerCaser`. Queries additionally drop tantivy's English stop words.

use tantivy::tokenizer::{
    Language, LowerCaser, RemoveLongFilter, StopWordFilter, TextAnalyzer, Token, TokenStream,
    Tokenizer,
};

/// Name under which the analyzer is registered in each index.
pub const ANALYZER: &str = "code";

/// The indexing analyzer (also the first stage of the query analyzer).
pub fn index_analyzer() -> TextAnalyzer {
    TextAnalyzer::builder(CodeTokenizer::default())
        .filter(RemoveLongFilter::limit(40))
        .filter(LowerCaser)
        .build()
}

/// The query analyzer: the indexing analyzer plus tantivy's English stop words.
pub fn query_analyzer() -> TextAnalyzer {
    TextAnalyzer::builder(CodeTokenizer::default())
        .filter(RemoveLongFilter::limit(40))
        .filter(LowerCaser)
        .filter(StopWordFilter::new(Language::English).expect("tantivy English stop words"))
        .build()
}

/// All terms the analyzer yields for `text`, in order, repeats kept.
pub fn terms(analyzer: &mut TextAnalyzer, text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut stream = analyzer.token_stream(text);
    while let Some(tok) = stream.next() {
        out.push(tok.text.clone());
    }
    out
}

#[derive(Clone, Default)]
pub struct CodeTokenizer {
    tokens: Vec<Token>,
}

pub struct CodeTokenStream<'a> {
    tokens: &'a mut Vec<Token>,
    next: usize,
}

impl Tokenizer for CodeTokenizer {
    type TokenStream<'a> = CodeTokenStream<'a>;

    fn token_stream<'a>(&'a mut self, text: &'a str) -> CodeTokenStream<'a> {
        self.tokens.clear();
        split_code(text, &mut self.tokens);
        CodeTokenStream {
            tokens: &mut self.tokens,
            next: 0,
        }
    }
}

impl TokenStream for CodeTokenStream<'_> {
    fn advance(&mut self) -> bool {
        if self.next < self.tokens.len() {
            self.next += 1;
            true
        } else {
            false
        }
    }

    fn token(&self) -> &Token {
        &self.tokens[self.next - 1]
    }

    fn token_mut(&mut self) -> &mut Token {
        &mut self.tokens[self.next - 1]
    }
}

fn is_word(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// Cut `text` into tokens (see the module docs). Positions increase by one per token.
fn split_code(text: &str, out: &mut Vec<Token>) {
    let chars: Vec<(usize, char)> = text.char_indices().collect();
    let end_of = |i: usize| {
        if i < chars.len() {
            chars[i].0
        } else {
            text.len()
        }
    };
    let mut i = 0;
    while i < chars.len() {
        if !is_word(chars[i].1) {
            i += 1;
            continue;
        }
        // A word: word chars, with single dots allowed between word chars.
        let start = i;
        let mut j = i;
        while j < chars.len() {
            let c = chars[j].1;
            let inner_dot = c == '.' && j > start && j + 1 < chars.len() && is_word(chars[j + 1].1);
            if !(is_word(c) || inner_dot) {
                break;
            }
            j += 1;
        }
        word_tokens(text, end_of(start), end_of(j), out);
        i = j;
    }
}

fn push(out: &mut Vec<Token>, text: &str, from: usize, to: usize) {
    let position = out.last().map_or(0, |t| t.position + 1);
    out.push(Token {
        offset_from: from,
        offset_to: to,
        position,
        text: text[from..to].to_string(),
        position_length: 1,
    });
}

/// Byte ranges of the alphanumeric runs of `text[from..to]` (what `SimpleTokenizer` yields).
fn alnum_runs(text: &str, from: usize, to: usize) -> Vec<(usize, usize)> {
    let mut runs = Vec::new();
    let mut cur: Option<usize> = None;
    for (off, c) in text[from..to].char_indices() {
        let off = from + off;
        if c.is_alphanumeric() {
            cur.get_or_insert(off);
        } else if let Some(s) = cur.take() {
            runs.push((s, off));
        }
    }
    if let Some(s) = cur {
        runs.push((s, to));
    }
    runs
}

/// camelCase parts of an alphanumeric run (one part when it has no case boundary).
fn camel_parts(text: &str, from: usize, to: usize) -> Vec<(usize, usize)> {
    let cs: Vec<(usize, char)> = text[from..to]
        .char_indices()
        .map(|(o, c)| (from + o, c))
        .collect();
    let mut parts = Vec::new();
    let mut s = from;
    for k in 1..cs.len() {
        let (prev, cur) = (cs[k - 1].1, cs[k].1);
        let next_lower = cs.get(k + 1).is_some_and(|&(_, n)| n.is_lowercase());
        let boundary = (cur.is_uppercase() && (prev.is_lowercase() || prev.is_numeric()))
            || (cur.is_uppercase() && prev.is_uppercase() && next_lower);
        if boundary {
            parts.push((s, cs[k].0));
            s = cs[k].0;
        }
    }
    parts.push((s, to));
    parts
}

fn word_tokens(text: &str, from: usize, to: usize, out: &mut Vec<Token>) {
    let runs = alnum_runs(text, from, to);
    // Base terms: exactly SimpleTokenizer's, every occurrence.
    let mut seen: Vec<String> = Vec::new();
    for &(s, e) in &runs {
        push(out, text, s, e);
        seen.push(text[s..e].to_lowercase());
    }
    let mut extra = |s: usize, e: usize, out: &mut Vec<Token>| {
        let key = text[s..e].to_lowercase();
        if !key.is_empty() && !seen.contains(&key) {
            seen.push(key);
            push(out, text, s, e);
        }
    };
    // Whole word, trimmed of leading/trailing '_'.
    let w = &text[from..to];
    let lead = w.len() - w.trim_start_matches('_').len();
    let trail = w.len() - w.trim_end_matches('_').len();
    if lead + trail < w.len() {
        extra(from + lead, to - trail, out);
    }
    // Dot segments holding '_' (trimmed of leading/trailing '_').
    if w.contains('.') {
        let mut seg_start = from;
        for (off, c) in w.char_indices().chain(std::iter::once((w.len(), '.'))) {
            if c == '.' {
                let seg = &text[seg_start..from + off];
                if seg.contains('_') {
                    let l = seg.len() - seg.trim_start_matches('_').len();
                    let t = seg.len() - seg.trim_end_matches('_').len();
                    if l + t < seg.len() {
                        extra(seg_start + l, from + off - t, out);
                    }
                }
                seg_start = from + off + 1;
            }
        }
    }
    // camelCase parts of each alphanumeric run.
    for &(s, e) in &runs {
        let parts = camel_parts(text, s, e);
        if parts.len() > 1 {
            for (ps, pe) in parts {
                extra(ps, pe, out);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn idx(text: &str) -> Vec<String> {
        terms(&mut index_analyzer(), text)
    }

    #[test]
    fn plain_words_match_default_tokenizer() {
        assert_eq!(
            idx("Hello, happy tax payer!"),
            ["hello", "happy", "tax", "payer"]
        );
    }

    #[test]
    fn identifiers_yield_whole_and_parts() {
        assert_eq!(idx("snake_case"), ["snake", "case", "snake_case"]);
        assert_eq!(idx("createSlice("), ["createslice", "create", "slice"]);
        assert_eq!(
            idx("self.config.py_version"),
            [
                "self",
                "config",
                "py",
                "version",
                "self.config.py_version",
                "py_version"
            ]
        );
        assert_eq!(idx("HTTPServer"), ["httpserver", "http", "server"]);
        assert_eq!(idx("__init__"), ["init"]);
        assert_eq!(idx("end. Next"), ["end", "next"]);
        assert_eq!(idx("a.b"), ["a", "b", "a.b"]);
    }

    #[test]
    fn query_drops_stop_words() {
        assert_eq!(
            terms(&mut query_analyzer(), "what is the py_version? a:b"),
            ["what", "py", "version", "py_version", "b"]
        );
    }
}
