//! Finding symbols by name across files: the pattern (a case-insensitive
//! substring of a qualified name, or a glob), which symbols can be found,
//! and the answer's text (the MCP tool `find_symbol`).
//!
//! Two callers answer with it and must give the same text: a walk that
//! outlines every file ([`Found::add`] for each [`findable`] symbol that
//! [`Pattern::matches`], in path and source order), and the index
//! (`index::names`, from the names and [`crate::read::summary_detail`]s it
//! stores). [`Pattern::needle`] and [`Pattern::glob_literal`] let the index
//! rule most names out with a byte search before matching them.
//!
//! ```
//! use ast_outline::find::{Found, Pattern, answer_line, findable, render};
//! use ast_outline::read::summary_detail;
//! use ast_outline::{OutlineOptions, outline_source};
//!
//! let outline = outline_source(
//!     "shop.py",
//!     "class Cart:\n    def total(self):\n        return 0\n\ndef subtotal():\n    pass\n",
//!     &OutlineOptions::default(),
//! )?;
//! let pattern = Pattern::new("total")?;
//! let mut found = Found::default();
//! found.searched = 1;
//! outline.walk(|s| {
//!     if findable(s) && pattern.matches(&s.name, &s.qualname, s.kind == ast_outline::SymbolKind::Block) {
//!         found.add(pattern.is_exact(&s.name), || {
//!             answer_line(&s.id, s.start_line, s.end_line, &summary_detail(s))
//!         });
//!     }
//! });
//! found.files = 1;
//! let text = render(&found, &pattern, ".", &[]);
//! assert_eq!(
//!     text,
//!     "2 matches for `total` in 1 file under . (searched 1 file; read one with \
//!      read_symbol(symbol_id)):\n\
//!      shop.py:2:Cart.total  L2-3 def total(self)\n\
//!      shop.py:5:subtotal  L5-6 def subtotal()\n"
//! );
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::fmt::Write as _;

use outline_core::text::plural;
use outline_core::{Modifier, Symbol, SymbolKind};

/// Most matches an answer lists (the count says how many there are).
pub const MAX_MATCHES: usize = 50;

/// Longest pattern, in characters.
pub const MAX_PATTERN_CHARS: usize = 1_000;

/// What a name is compared with: a case-insensitive substring of the
/// qualified name, or, when it holds `*` or `?`, a glob matching the whole
/// name or qualified name.
#[derive(Debug, Clone)]
pub struct Pattern {
    text: String,
    kind: Kind,
}

#[derive(Debug, Clone)]
enum Kind {
    /// The text in lower case ([`str::to_lowercase`]).
    Substring(String),
    /// The glob, case-insensitive, `*` crossing `.` and `/`; and the
    /// longest run of literal characters every match holds, in ASCII lower
    /// case, when there is one and it is ASCII.
    Glob {
        matcher: globset::GlobMatcher,
        literal: Option<String>,
    },
}

impl Pattern {
    /// The pattern `text`.
    ///
    /// # Errors
    /// A message when `text` is empty, longer than [`MAX_PATTERN_CHARS`],
    /// or a malformed glob.
    pub fn new(text: &str) -> Result<Pattern, String> {
        let length = text.chars().count();
        if length > MAX_PATTERN_CHARS {
            return Err(format!(
                "pattern is {length} characters long; at most {MAX_PATTERN_CHARS}: give a name, \
                 a qualified name or a glob"
            ));
        }
        if text.is_empty() {
            return Err("pattern is empty: give a name, a qualified name or a glob".to_owned());
        }
        let kind = if text.contains(['*', '?']) {
            let glob = globset::GlobBuilder::new(text)
                .case_insensitive(true)
                .literal_separator(false)
                .build()
                .map_err(|e| format!("`{text}`: not a valid glob: {e}"))?;
            Kind::Glob {
                matcher: glob.compile_matcher(),
                literal: glob_literal(text),
            }
        } else {
            Kind::Substring(text.to_lowercase())
        };
        Ok(Pattern {
            text: text.to_owned(),
            kind,
        })
    }

    /// The pattern as given.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// Whether a symbol named `name` with the qualified name `qualname`
    /// matches: a substring of the lower-cased qualified name (of the name
    /// for a `block`, whose qualified name is its owner's), or a glob
    /// matching the name or the qualified name.
    pub fn matches(&self, name: &str, qualname: &str, block: bool) -> bool {
        match &self.kind {
            Kind::Substring(text) => haystack(name, qualname, block).contains(text.as_str()),
            Kind::Glob { matcher, .. } => matcher.is_match(name) || matcher.is_match(qualname),
        }
    }

    /// Whether `name` is the pattern itself, ASCII letters compared without
    /// case: such matches are listed first.
    pub fn is_exact(&self, name: &str) -> bool {
        name.eq_ignore_ascii_case(&self.text)
    }

    /// For a substring pattern, the lower-cased text: a symbol matches
    /// exactly when its [`haystack`] holds it.
    pub fn needle(&self) -> Option<&str> {
        match &self.kind {
            Kind::Substring(text) => Some(text),
            Kind::Glob { .. } => None,
        }
    }

    /// For a glob, whether it matches `text` (case-insensitive).
    pub fn glob_matches(&self, text: &str) -> bool {
        match &self.kind {
            Kind::Glob { matcher, .. } => matcher.is_match(text),
            Kind::Substring(_) => false,
        }
    }

    /// For a glob, the longest run of its literal characters (outside `*`,
    /// `?` and `[…]`), in ASCII lower case: the ASCII lower case of every
    /// ASCII name or qualified name the glob matches holds it. `None` for a
    /// substring pattern, and for a glob with alternatives (`{a,b}`),
    /// escapes, non-ASCII literals or no literal at all.
    pub fn glob_literal(&self) -> Option<&str> {
        match &self.kind {
            Kind::Glob { literal, .. } => literal.as_deref(),
            Kind::Substring(_) => None,
        }
    }
}

/// What a substring pattern is looked for in: the lower-cased qualified
/// name, or the name for a block (a callback's qualified name is its
/// owner's).
pub fn haystack(name: &str, qualname: &str, block: bool) -> String {
    if block {
        name.to_lowercase()
    } else {
        qualname.to_lowercase()
    }
}

/// The longest literal run of a glob (see [`Pattern::glob_literal`]).
fn glob_literal(glob: &str) -> Option<String> {
    if glob.contains(['{', '}', '\\']) {
        return None;
    }
    let mut runs: Vec<String> = vec![String::new()];
    let mut chars = glob.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '*' | '?' => runs.push(String::new()),
            '[' => {
                // A class: `[!…]` or `[^…]`, and a `]` right after the
                // opening is a member, not the end.
                if matches!(chars.peek(), Some('!' | '^')) {
                    chars.next();
                }
                if chars.peek() == Some(&']') {
                    chars.next();
                }
                if !chars.by_ref().any(|c| c == ']') {
                    return None;
                }
                runs.push(String::new());
            }
            c if c.is_ascii() => {
                if let Some(run) = runs.last_mut() {
                    run.push(c.to_ascii_lowercase());
                }
            }
            _ => return None,
        }
    }
    runs.into_iter()
        .filter(|run| !run.is_empty())
        .max_by_key(String::len)
}

/// Whether a symbol can be found by name: every definition, and the
/// callbacks among blocks (`test('adds')`, `app.get('/users')`), not
/// control-flow blocks.
pub fn findable(symbol: &Symbol) -> bool {
    symbol.kind != SymbolKind::Block || symbol.has(Modifier::Callback)
}

/// One line of an answer: `ID  LSTART-END DETAIL` (the detail is
/// [`crate::read::summary_detail`]).
pub fn answer_line(id: &str, start_line: u32, end_line: u32, detail: &str) -> String {
    format!("{id}  L{start_line}-{end_line} {detail}")
}

/// The matches of a pattern, as they are met in path and source order: how
/// many, in how many files, among how many files searched, and the first
/// [`MAX_MATCHES`] of those whose name is the pattern ([`Pattern::is_exact`])
/// and of the others. `T` is what a caller keeps of a match until its line
/// is made (the line itself, or a key to read it by).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Found<T> {
    /// Files searched (every file of a known language under the path).
    pub searched: usize,
    /// Files holding at least one match.
    pub files: usize,
    /// Matches.
    pub total: usize,
    exact: Vec<T>,
    other: Vec<T>,
}

impl<T> Default for Found<T> {
    fn default() -> Found<T> {
        Found {
            searched: 0,
            files: 0,
            total: 0,
            exact: Vec::new(),
            other: Vec::new(),
        }
    }
}

impl<T> Found<T> {
    /// Counts a match; keeps `make()` when it is among the first
    /// [`MAX_MATCHES`] of its kind (`exact` or not).
    pub fn add(&mut self, exact: bool, make: impl FnOnce() -> T) {
        self.total += 1;
        let kept = if exact {
            &mut self.exact
        } else {
            &mut self.other
        };
        if kept.len() < MAX_MATCHES {
            kept.push(make());
        }
    }

    /// The matches an answer shows, in its order: exact names first, then
    /// the others, each in path and source order; at most [`MAX_MATCHES`].
    pub fn shown(&self) -> impl Iterator<Item = &T> {
        self.exact.iter().chain(&self.other).take(MAX_MATCHES)
    }

    /// The same matches with `convert` applied to each kept one (only to
    /// those [`Found::shown`] gives).
    ///
    /// # Errors
    /// The first error of `convert`.
    pub fn try_map<U, E>(self, mut convert: impl FnMut(T) -> Result<U, E>) -> Result<Found<U>, E> {
        let exact_shown = self.exact.len().min(MAX_MATCHES);
        let other_shown = MAX_MATCHES - exact_shown;
        let exact = self
            .exact
            .into_iter()
            .map(&mut convert)
            .collect::<Result<_, _>>()?;
        let other = self
            .other
            .into_iter()
            .take(other_shown)
            .map(&mut convert)
            .collect::<Result<_, _>>()?;
        Ok(Found {
            searched: self.searched,
            files: self.files,
            total: self.total,
            exact,
            other,
        })
    }
}

/// The answer: a line with the counts, the lines [`Found::shown`] gives,
/// a note when more matched, then each problem met (files that could not
/// be read) after `! `. `under` is the path searched, as the caller names
/// it (`.` for the root).
pub fn render(
    found: &Found<String>,
    pattern: &Pattern,
    under: &str,
    problems: &[String],
) -> String {
    let text = pattern.text();
    let searched = plural(found.searched, "file");
    let mut out = String::new();
    if found.total == 0 {
        let _ = writeln!(
            out,
            "no symbol matches `{text}` in {searched} under {under} (a substring of a qualified \
             name, or a glob with * and ?; case-insensitive)"
        );
    } else {
        let _ = writeln!(
            out,
            "{} for `{text}` in {} under {under} (searched {searched}; read one with \
             read_symbol(symbol_id)):",
            plural(found.total, "match"),
            plural(found.files, "file"),
        );
        for line in found.shown() {
            let _ = writeln!(out, "{line}");
        }
        if found.total > MAX_MATCHES {
            let _ = writeln!(
                out,
                "(first {MAX_MATCHES} shown; narrow the pattern or the path)"
            );
        }
    }
    for problem in problems {
        let _ = writeln!(out, "! {problem}");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn glob_literals_are_the_longest_plain_run() {
        let literal = |glob: &str| glob_literal(glob);
        assert_eq!(literal("get_*").as_deref(), Some("get_"));
        assert_eq!(literal("*Handler.*").as_deref(), Some("handler."));
        assert_eq!(literal("[a-c]*Factory").as_deref(), Some("factory"));
        assert_eq!(literal("save_*_1?").as_deref(), Some("save_"));
        assert_eq!(literal("[]x]y*").as_deref(), Some("y"));
        assert_eq!(literal("[!ab]cd").as_deref(), Some("cd"));
        assert_eq!(literal("*"), None);
        assert_eq!(literal("{get,set}_*"), None);
        assert_eq!(literal("a\\*b"), None);
        assert_eq!(literal("é*"), None);
        assert_eq!(literal("[abc"), None);
    }

    /// Every name a glob matches holds its literal (the premise of the
    /// index's byte search), in mixed case too.
    #[test]
    fn names_a_glob_matches_hold_its_literal() {
        let names = [
            "get_user",
            "GET_Order",
            "CartHandler.run",
            "xHANDLER.y",
            "AFactory",
            "cfactory",
            "save_a_12",
            "Save_B_1x",
        ];
        for glob in ["get_*", "*Handler.*", "[a-c]*Factory", "save_*_1?"] {
            let pattern = Pattern::new(glob).expect("glob");
            let literal = pattern.glob_literal().expect("literal");
            let matched: Vec<&str> = names
                .iter()
                .copied()
                .filter(|n| pattern.glob_matches(n))
                .collect();
            assert!(!matched.is_empty(), "{glob}");
            for name in matched {
                assert!(
                    name.to_ascii_lowercase().contains(literal),
                    "{glob}: {name} lacks {literal}"
                );
            }
        }
    }

    #[test]
    fn substrings_and_globs_match_as_documented() {
        let total = Pattern::new("TOTAL").expect("pattern");
        assert!(total.matches("subtotal", "Cart.subtotal", false));
        assert!(total.is_exact("Total"));
        assert!(!total.is_exact("subtotal"));
        // A block is found by its own name only.
        let it = Pattern::new("adds").expect("pattern");
        assert!(it.matches("it('adds')", "", true));
        assert!(!it.matches("x", "Adds", true));
        let glob = Pattern::new("cart.*").expect("pattern");
        assert!(glob.matches("total", "Cart.total", false));
        assert!(!glob.matches("total", "total", false));
        assert!(Pattern::new("").is_err());
        assert!(Pattern::new("[*").is_err_and(|e| e.contains("not a valid glob")));
        assert!(Pattern::new(&"x".repeat(MAX_PATTERN_CHARS + 1)).is_err());
    }

    #[test]
    fn found_keeps_the_first_of_each_kind_and_shows_exact_names_first() {
        let mut found: Found<usize> = Found::default();
        for i in 0..120 {
            found.add(i % 3 == 0, || i);
        }
        assert_eq!(found.total, 120);
        let shown: Vec<usize> = found.shown().copied().collect();
        assert_eq!(shown.len(), MAX_MATCHES);
        // 40 exact (0, 3, …, 117), then the first 10 others.
        assert_eq!(shown[0], 0);
        assert_eq!(shown[39], 117);
        assert_eq!(shown[40..], [1, 2, 4, 5, 7, 8, 10, 11, 13, 14]);
        let mapped = found
            .try_map(|i| Ok::<_, ()>(i.to_string()))
            .expect("mapped");
        let again: Vec<String> = mapped.shown().cloned().collect();
        assert_eq!(
            again,
            shown.iter().map(usize::to_string).collect::<Vec<_>>()
        );
    }
}
