//! Text search that lands on symbols: every line matching a pattern, shown
//! under the innermost symbol (and control-flow block) that holds it.
//!
//! Files are walked with the same gitignore rules as the outline ([`crate::walk`],
//! every regular file, not only source files) and searched with ripgrep's own
//! crates (`grep-regex` for the matcher, `grep-searcher` for reading, binary
//! detection by NUL bytes as ripgrep does). Only files with hits are outlined,
//! by a function the caller gives (the CLI reads through the persistent
//! cache, the MCP server through its in-memory one), and only as many as the
//! token budget can show.
//!
//! Lines are counted as `grep-searcher` counts them, by `\n`: for a file
//! whose lines end with a lone `\r` (old Mac OS) that is one line, where the
//! outline counts many (see docs/limits.md).
//!
//! ```
//! use ast_outline::search::{Query, search_files, render_text, Budget, Limits};
//! use ast_outline::walk::{collect_files, WalkOptions};
//! let dir = tempfile::tempdir()?;
//! std::fs::write(dir.path().join("shop.py"), "TAX = 2\n\nclass Cart:\n    def total(self):\n        return 3 * TAX\n")?;
//! let query = Query::literal("TAX");
//! let walk = WalkOptions { every_file: true, ..WalkOptions::default() };
//! let files = collect_files(&[dir.path().to_owned()], walk).files;
//! let found = search_files(&files, &query.compile()?, &Limits::default());
//! let outline = |file: &ast_outline::walk::FileEntry| ast_outline::outline_file(&file.path, &Default::default()).ok();
//! let words = |text: &str| text.split_whitespace().count();
//! let text = render_text(&found, &query, "shop", &outline, &Budget { max_tokens: 1000, count: &words });
//! assert!(text.starts_with("2 hits in 2 symbols in 1 file for `TAX`"), "{text}");
//! assert!(text.contains(":1:TAX constant L1-1 TAX = 2\n    L1: TAX = 2\n"), "{text}");
//! assert!(text.contains(":4:Cart.total method L4-5 def total(self)\n    L5: return 3 * TAX\n"), "{text}");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::borrow::Borrow;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use grep_matcher::Matcher as _;
use grep_regex::{RegexMatcher, RegexMatcherBuilder};
use grep_searcher::{
    BinaryDetection, Searcher, SearcherBuilder, Sink, SinkContext, SinkContextKind, SinkFinish,
    SinkMatch,
};
use outline_core::{FileOutline, Symbol, SymbolKind};
use rayon::prelude::*;

use crate::walk::{FileEntry, WalkOptions, collect_files};

/// Longest pattern accepted, in characters.
pub const MAX_PATTERN_CHARS: usize = 1_000;

/// Longest hit line shown, in characters; a longer one is cut around its
/// first match, with `…` where it was cut.
pub const LINE_CHARS: usize = 200;

/// Longest signature shown on a symbol's line, in characters.
pub const SIGNATURE_CHARS: usize = 120;

/// How letters' case is matched.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Case {
    /// Exactly as written (the default, as grep and ripgrep).
    #[default]
    Sensitive,
    /// Ignoring case.
    Insensitive,
    /// Ignoring case unless the pattern has an upper-case letter (ripgrep's
    /// `--smart-case`).
    Smart,
}

impl Case {
    /// `case-sensitive`, `case-insensitive` or `smart case`.
    pub fn describe(self) -> &'static str {
        match self {
            Case::Sensitive => "case-sensitive",
            Case::Insensitive => "case-insensitive",
            Case::Smart => "smart case",
        }
    }
}

/// What to look for.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Query {
    /// The text (or regular expression, with [`Query::regex`]) to find on one line.
    pub pattern: String,
    /// Read `pattern` as a regular expression (Rust `regex` syntax, as
    /// ripgrep's); else it is literal text.
    pub regex: bool,
    /// How case is matched.
    pub case: Case,
    /// Only matches that are whole words (ripgrep's `-w`).
    pub word: bool,
    /// Globs over paths, as ripgrep's `-g`: `*.py` keeps only those, `!tests/**`
    /// leaves those out; a glob without `/` matches a file name at any depth.
    /// Files named explicitly are always searched.
    pub globs: Vec<String>,
}

/// A [`Query`] made ready to search with.
#[derive(Debug, Clone)]
pub struct Compiled {
    matcher: RegexMatcher,
    globs: Vec<String>,
}

impl Query {
    /// A case-sensitive literal query for `pattern`.
    pub fn literal(pattern: &str) -> Query {
        Query {
            pattern: pattern.to_owned(),
            ..Query::default()
        }
    }

    /// `literal, case-sensitive` and the like, for summaries.
    pub fn describe(&self) -> String {
        let mut words = vec![if self.regex { "regex" } else { "literal" }];
        words.push(self.case.describe());
        if self.word {
            words.push("whole words");
        }
        let mut text = words.join(", ");
        if !self.globs.is_empty() {
            let _ = write!(text, ", globs {}", self.globs.join(" "));
        }
        text
    }

    /// The matcher for this query.
    ///
    /// # Errors
    /// A one-line message: an empty pattern, one over [`MAX_PATTERN_CHARS`]
    /// characters or holding a line break, an invalid regular expression
    /// (with the parser's explanation), or an invalid glob.
    pub fn compile(&self) -> Result<Compiled, String> {
        let length = self.pattern.chars().count();
        if self.pattern.is_empty() {
            return Err(
                "the pattern is empty: it would match every line; give the text to find".to_owned(),
            );
        }
        if length > MAX_PATTERN_CHARS {
            return Err(format!(
                "the pattern is {length} characters long; at most {MAX_PATTERN_CHARS}: \
                 search for a distinctive part of it"
            ));
        }
        if self.pattern.contains(['\n', '\r']) {
            return Err(
                "the pattern holds a line break: lines are searched one at a time; \
                 search for one line of it"
                    .to_owned(),
            );
        }
        // Checked as written first: grep-regex's own errors quote the
        // pattern inside the groups it wraps it in (`(?:() ^ unclosed group`).
        if self.regex
            && let Err(error) = regex_syntax::ParserBuilder::new()
                .nest_limit(250)
                .build()
                .parse(&self.pattern)
        {
            let detail = error.to_string();
            let detail = detail.trim().replace('\n', " ");
            return Err(format!(
                "the pattern is not a valid regular expression: {detail}"
            ));
        }
        let mut builder = RegexMatcherBuilder::new();
        builder
            .fixed_strings(!self.regex)
            .case_insensitive(self.case == Case::Insensitive)
            .case_smart(self.case == Case::Smart)
            .word(self.word)
            .line_terminator(Some(b'\n'))
            // `$` matches before a `\r\n` too (ripgrep's --crlf).
            .crlf(true)
            // Bounded compile time and memory for hostile patterns.
            .size_limit(10 * (1 << 20))
            .dfa_size_limit(10 * (1 << 20))
            .nest_limit(250);
        let matcher = builder.build(&self.pattern).map_err(|error| {
            let kind = if self.regex {
                "is not a valid regular expression"
            } else {
                "cannot be searched for"
            };
            let detail = error.to_string();
            let detail = detail.trim().replace('\n', " ");
            format!("the pattern {kind}: {detail}")
        })?;
        for glob in &self.globs {
            ignore::overrides::OverrideBuilder::new("")
                .add(glob)
                .map_err(|error| format!("the glob `{glob}` is not valid: {error}"))?;
        }
        Ok(Compiled {
            matcher,
            globs: self.globs.clone(),
        })
    }
}

/// Limits of one search.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Files larger than this many bytes are not searched (a note says so).
    pub max_file_size: u64,
    /// Hits kept per file with their text; more are only counted. Keeps
    /// memory bounded when a pattern matches every line of a large tree.
    pub keep_per_file: usize,
    /// Lines of context kept before and after each hit (as ripgrep's `-C`;
    /// at most [`MAX_CONTEXT_LINES`]), shown under the hit's symbol.
    pub context_lines: u32,
}

/// Most context lines asked around a hit.
pub const MAX_CONTEXT_LINES: u32 = 20;

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            max_file_size: crate::DEFAULT_MAX_FILE_SIZE,
            keep_per_file: 2_000,
            context_lines: 0,
        }
    }
}

/// One matching line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hit {
    /// The line (1-based, lines ended by `\n`).
    pub line: u32,
    /// Where the first match on the line starts (1-based, in characters).
    pub column: u32,
    /// The line's text without its line end and leading whitespace, cut to
    /// [`LINE_CHARS`] characters around the first match (`…` where cut;
    /// invalid UTF-8 replaced by U+FFFD).
    pub text: String,
    /// How many whitespace characters (spaces or tabs) led the line.
    pub indent: u32,
    /// A matching line, or a context line before or after one.
    pub kind: HitKind,
}

/// What a [`Hit`] line is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HitKind {
    /// A line that matches.
    Match,
    /// A context line before a match ([`Limits::context_lines`]).
    Before,
    /// A context line after a match.
    After,
}

/// The hits of one file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileHits {
    /// The file searched.
    pub file: FileEntry,
    /// Its first hits, in line order, at most [`Limits::keep_per_file`]
    /// matches, with their context lines ([`HitKind`]) among them.
    pub hits: Vec<Hit>,
    /// How many lines matched (at least the matches in `hits`).
    pub count: usize,
    /// The context lines asked around each match ([`Limits::context_lines`]).
    pub context_lines: u32,
}

/// What a search found.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Found {
    /// The files with hits, in path order.
    pub files: Vec<FileHits>,
    /// Files searched (binary and skipped ones not counted).
    pub searched: usize,
    /// Files left out because they look binary (hold a NUL byte).
    pub binary: usize,
    /// One-line notes: files too large or unreadable.
    pub notes: Vec<String>,
}

impl FileHits {
    /// The matches kept with their text (context lines not counted).
    pub fn kept_matches(&self) -> usize {
        self.hits
            .iter()
            .filter(|h| h.kind == HitKind::Match)
            .count()
    }
}

impl Found {
    /// All matching lines.
    pub fn hit_count(&self) -> usize {
        self.files.iter().map(|f| f.count).sum()
    }
}

/// The files under `paths` to search: every regular file the walk takes
/// (see [`collect_files`]; `walk.every_file` is set here), filtered by the
/// query's globs, sorted by display path; and the problems with the paths
/// given. Globs match paths relative to `glob_root` (ripgrep's: the current
/// directory; the MCP server's: its root), a file outside it by its path as
/// walked; a file named explicitly is always kept.
pub fn collect(
    paths: &[PathBuf],
    walk: WalkOptions,
    query: &Compiled,
    glob_root: &Path,
) -> (Vec<FileEntry>, Vec<String>) {
    let walk = WalkOptions {
        every_file: true,
        ..walk
    };
    let walked = collect_files(paths, walk);
    let globs = (!query.globs.is_empty())
        .then(|| {
            let mut builder = ignore::overrides::OverrideBuilder::new("");
            for glob in &query.globs {
                // Checked in `compile`.
                let _ = builder.add(glob);
            }
            builder.build().ok()
        })
        .flatten();
    let glob_root = std::path::absolute(glob_root).unwrap_or_else(|_| glob_root.to_owned());
    let files = walked
        .files
        .into_iter()
        .filter(|file| {
            let Some(globs) = &globs else {
                return true;
            };
            if file.explicit {
                return true;
            }
            let absolute = std::path::absolute(&file.path).unwrap_or_else(|_| file.path.clone());
            let relative = absolute.strip_prefix(&glob_root).unwrap_or(&file.path);
            !globs.matched(relative, false).is_ignore()
        })
        .collect();
    (files, walked.problems)
}

/// Searches `files` (on rayon's pool) for `query`'s matches.
pub fn search_files(files: &[FileEntry], query: &Compiled, limits: &Limits) -> Found {
    let results: Vec<Searched> = files
        .par_iter()
        .map_init(
            || {
                let context = limits.context_lines.min(MAX_CONTEXT_LINES) as usize;
                SearcherBuilder::new()
                    .binary_detection(BinaryDetection::quit(0))
                    .line_number(true)
                    // Lines end at `\n`; a `\r` before it is part of the
                    // end, as the matcher's `crlf` mode expects (ripgrep --crlf).
                    .line_terminator(grep_matcher::LineTerminator::crlf())
                    .before_context(context)
                    .after_context(context)
                    .build()
            },
            |searcher, file| search_one(searcher, file, query, limits),
        )
        .collect();
    let mut found = Found::default();
    for result in results {
        match result {
            Searched::Hits(hits) => {
                found.searched += 1;
                if hits.count > 0 {
                    found.files.push(hits);
                }
            }
            Searched::Binary => found.binary += 1,
            Searched::Skipped(note) => found.notes.push(note),
        }
    }
    found
}

enum Searched {
    Hits(FileHits),
    Binary,
    Skipped(String),
}

fn search_one(
    searcher: &mut Searcher,
    file: &FileEntry,
    query: &Compiled,
    limits: &Limits,
) -> Searched {
    match std::fs::metadata(&file.path) {
        Ok(meta) if meta.len() > limits.max_file_size => {
            return Searched::Skipped(format!(
                "{}: not searched, {} bytes is more than the limit of {}",
                file.display,
                meta.len(),
                limits.max_file_size
            ));
        }
        Ok(_) => {}
        Err(error) => return Searched::Skipped(format!("{}: {error}", file.display)),
    }
    let mut sink = Collect {
        matcher: &query.matcher,
        keep: limits.keep_per_file,
        hits: Vec::new(),
        count: 0,
        binary: false,
    };
    if let Err(error) = searcher.search_path(&query.matcher, &file.path, &mut sink) {
        return Searched::Skipped(format!("{}: {error}", file.display));
    }
    if sink.binary {
        return Searched::Binary;
    }
    Searched::Hits(FileHits {
        file: file.clone(),
        hits: sink.hits,
        count: sink.count,
        context_lines: limits.context_lines.min(MAX_CONTEXT_LINES),
    })
}

/// The sink that keeps the first hits of a file and counts the rest.
struct Collect<'m> {
    matcher: &'m RegexMatcher,
    keep: usize,
    hits: Vec<Hit>,
    count: usize,
    binary: bool,
}

impl Sink for Collect<'_> {
    type Error = std::io::Error;

    fn matched(&mut self, _: &Searcher, found: &SinkMatch<'_>) -> Result<bool, std::io::Error> {
        self.count += 1;
        if self.count <= self.keep {
            let line = found
                .line_number()
                .map_or(0, |n| u32::try_from(n).unwrap_or(u32::MAX));
            let (column, text, indent) = excerpt(Some(self.matcher), found.bytes());
            self.hits.push(Hit {
                line,
                column,
                text,
                indent,
                kind: HitKind::Match,
            });
        }
        Ok(true)
    }

    fn context(&mut self, _: &Searcher, context: &SinkContext<'_>) -> Result<bool, std::io::Error> {
        let kind = match context.kind() {
            SinkContextKind::Before => HitKind::Before,
            SinkContextKind::After => HitKind::After,
            SinkContextKind::Other => return Ok(true),
        };
        // Context of a kept match only: after the last one kept, only its
        // own after-context (no match has been counted since).
        let kept = self.count.min(self.keep);
        if kept < self.keep || (kind == HitKind::After && self.count == kept) {
            let line = context
                .line_number()
                .map_or(0, |n| u32::try_from(n).unwrap_or(u32::MAX));
            // A context line has no match to look for.
            let (_, text, indent) = excerpt(None, context.bytes());
            self.hits.push(Hit {
                line,
                column: 0,
                text,
                indent,
                kind,
            });
        }
        Ok(true)
    }

    fn finish(&mut self, _: &Searcher, finish: &SinkFinish) -> Result<(), std::io::Error> {
        self.binary = finish.binary_byte_offset().is_some();
        Ok(())
    }
}

/// The column (1-based, in characters) of the first match of `matcher` on
/// `line` (without a matcher, of its first non-blank character), the line's
/// text to show (no line end, no leading whitespace, at most [`LINE_CHARS`]
/// characters around the match), and how many whitespace characters led it.
fn excerpt(matcher: Option<&RegexMatcher>, line: &[u8]) -> (u32, String, u32) {
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    let indent = line
        .iter()
        .take_while(|b| matches!(b, b' ' | b'\t'))
        .count();
    let start = matcher
        .and_then(|m| m.find(line).ok().flatten())
        .map_or(indent, |m| m.start());
    let chars_before = |bytes: &[u8]| bytes.iter().filter(|b| (**b & 0xC0) != 0x80).count();
    let column = u32::try_from(chars_before(&line[..start]) + 1).unwrap_or(u32::MAX);
    let body = &line[indent..];
    let start = start.saturating_sub(indent);
    // Only the window around the match is decoded: a minified file's one
    // line of megabytes is never copied whole.
    let boundary = |mut i: usize| {
        while i > 0 && i < body.len() && (body[i] & 0xC0) == 0x80 {
            i -= 1;
        }
        i
    };
    let lead = LINE_CHARS / 4;
    let mut from = 0;
    if chars_before(body) > LINE_CHARS && chars_before(&body[..start]) > lead {
        // Back from the match by `lead` characters.
        let mut i = start;
        let mut seen = 0;
        while i > 0 && seen < lead {
            i -= 1;
            if (body[i] & 0xC0) != 0x80 {
                seen += 1;
            }
        }
        from = boundary(i);
    }
    let mut to = body.len();
    let mut seen = 0;
    for (i, byte) in body.iter().enumerate().skip(from) {
        if (byte & 0xC0) != 0x80 {
            if seen == LINE_CHARS - usize::from(from > 0) {
                to = i;
                break;
            }
            seen += 1;
        }
    }
    let mut text = String::new();
    if from > 0 {
        text.push('…');
    }
    // Controls (ESC, bidi overrides) escaped, as in every one-line text.
    text.push_str(&outline_core::text::escape_controls(
        &String::from_utf8_lossy(&body[from..to]),
    ));
    if to < body.len() {
        text.push('…');
    }
    (column, text, u32::try_from(indent).unwrap_or(u32::MAX))
}

/// The innermost named symbol and the innermost control-flow block (inside
/// it, or at module level) that hold `line` of `outline`.
pub fn place(outline: &FileOutline, line: u32) -> (Option<&Symbol>, Option<&Symbol>) {
    let chain = outline.enclosing(line);
    let named = chain.iter().rev().find(|s| s.kind != SymbolKind::Block);
    let block = chain
        .iter()
        .rev()
        .take_while(|s| s.kind == SymbolKind::Block)
        .next();
    (named.copied(), block.copied())
}

/// A symbol's line in search results: its id, kind, lines and one-line
/// signature (`src/a.py:16:Cart.total method L16-19 def total(self) -> int`);
/// a block's: id, `block`, lines and its name in backquotes.
pub fn symbol_line(symbol: &Symbol) -> String {
    let mut line = format!(
        "{} {} L{}-{}",
        symbol.id,
        symbol.kind.as_str(),
        symbol.start_line,
        symbol.end_line
    );
    if symbol.kind == SymbolKind::Block {
        let _ = write!(line, " `{}`", symbol.name);
    } else if let Some(signature) = &symbol.signature {
        line.push(' ');
        line.push_str(&outline_core::text::truncate(signature, SIGNATURE_CHARS));
    }
    line
}

/// A token budget: the most tokens, and how to count a text's tokens.
pub struct Budget<'c> {
    /// Most tokens the result may have.
    pub max_tokens: usize,
    /// The number of tokens of a text (the CLI and MCP server count with
    /// o200k_base).
    pub count: &'c (dyn Fn(&str) -> usize + Sync),
}

/// Tokens kept for the summary and the note on what was left out.
const FRAME_TOKENS: usize = 120;

/// Files outlined at once while rendering (in parallel).
const CHUNK: usize = 16;

/// The text of a search: a summary line, then per file in path order its
/// path and its hits under their symbols (see the module docs), at most
/// `budget.max_tokens` tokens, with a note saying what was left out. `under`
/// names where it searched. `outline` gives a file's outline (`None` for a
/// file of unknown language or that cannot be outlined: its hits are listed
/// without symbols); it is asked only for files whose hits are shown. When
/// not even a note that the budget is too small fits, the text is empty:
/// the caller says so.
pub fn render_text<O>(
    found: &Found,
    query: &Query,
    under: &str,
    outline: &(dyn Fn(&FileEntry) -> Option<O> + Sync),
    budget: &Budget<'_>,
) -> String
where
    O: Borrow<FileOutline> + Send,
{
    let room = budget
        .max_tokens
        .saturating_sub(FRAME_TOKENS.min(budget.max_tokens / 2));
    let mut body = String::new();
    let mut used = 0usize;
    let mut shown_hits = 0usize;
    let mut shown_symbols = 0usize;
    let mut shown_files = 0usize;
    let mut full = false;
    // `used` counts bytes (at least the tokens: every o200k_base token is
    // at least one byte) until the bytes would not fit, then tokens: a
    // result that fits in bytes never loads the tokenizer.
    let mut exact = false;
    'chunks: for chunk in found.files.chunks(CHUNK) {
        let outlines: Vec<Option<O>> = chunk.par_iter().map(|f| outline(&f.file)).collect();
        for (file, outline) in chunk.iter().zip(outlines) {
            let lines = file_lines(file, outline.as_ref().map(Borrow::borrow));
            let mut took_any = false;
            for line in lines {
                let mut cost = if exact {
                    (budget.count)(&line.text) + 1
                } else {
                    line.text.len() + 1
                };
                if used + cost > room && !exact {
                    exact = true;
                    used = (budget.count)(&body);
                    cost = (budget.count)(&line.text) + 1;
                }
                if used + cost > room {
                    full = true;
                    break;
                }
                used += cost;
                body.push_str(&line.text);
                body.push('\n');
                took_any = true;
                shown_hits += usize::from(line.is_hit);
                shown_symbols += usize::from(line.is_symbol);
            }
            if took_any {
                shown_files += 1;
            }
            if full {
                // A symbol line or path without the hits below it says nothing.
                let (files, symbols) = trim_dangling(&mut body);
                shown_files -= files;
                shown_symbols -= symbols;
                break 'chunks;
            }
        }
    }
    let total = found.hit_count();
    // Matches the searcher kept (the rest of a file's past
    // `Limits::keep_per_file` are only counted).
    let kept: usize = found.files.iter().map(FileHits::kept_matches).sum();
    let per_file = found
        .files
        .iter()
        .map(|f| (f.count, f.kept_matches()))
        .filter(|(count, kept)| count > kept)
        .map(|(_, kept)| kept)
        .max();
    let pattern = outline_core::text::escape_controls(&query.pattern);
    let pattern = outline_core::text::truncate(&pattern, 100);
    let compose = |body: &str, shown_hits: usize, shown_symbols: usize, shown_files: usize| {
        let mut out = String::new();
        if total == 0 {
            let _ = writeln!(
                out,
                "no hits for `{pattern}` ({}) under {under} (searched {})",
                query.describe(),
                plural(found.searched, "file")
            );
        } else if shown_hits == total {
            let _ = writeln!(
                out,
                "{} in {} in {} for `{pattern}` ({}) under {under} (searched {}):",
                plural(total, "hit"),
                plural(shown_symbols, "symbol"),
                plural(found.files.len(), "file"),
                query.describe(),
                plural(found.searched, "file"),
            );
        } else {
            let _ = writeln!(
                out,
                "{} in {} for `{pattern}` ({}) under {under} (searched {}); \
                 the first {} in {} in {} shown:",
                plural(total, "hit"),
                plural(found.files.len(), "file"),
                query.describe(),
                plural(found.searched, "file"),
                plural(shown_hits, "hit"),
                plural(shown_symbols, "symbol"),
                plural(shown_files, "file"),
            );
        }
        out.push_str(body);
        if shown_hits < kept {
            let _ = writeln!(
                out,
                "(left out: {}, over max_tokens {}; narrow the path or globs, or raise max_tokens)",
                plural(total - shown_hits, "hit"),
                budget.max_tokens
            );
        } else if shown_hits < total {
            let _ = writeln!(
                out,
                "(left out: {}, past the first {} kept per file; narrow the pattern or path)",
                plural(total - shown_hits, "hit"),
                outline_core::text::thousands(per_file.unwrap_or(kept)),
            );
        }
        if found.binary > 0 {
            let _ = writeln!(
                out,
                "({} not searched: binary, with NUL bytes)",
                plural(found.binary, "file")
            );
        }
        for note in found.notes.iter().take(5) {
            let _ = writeln!(out, "! {note}");
        }
        if found.notes.len() > 5 {
            let _ = writeln!(out, "! ({} more notes)", found.notes.len() - 5);
        }
        out
    };
    let fits =
        |text: &str| text.len() <= budget.max_tokens || (budget.count)(text) <= budget.max_tokens;
    // Counting line by line can differ from counting the whole by a token
    // here and there: make sure, cutting whole lines of the body from the
    // end (and what they leave dangling), the summary kept true.
    loop {
        let out = compose(&body, shown_hits, shown_symbols, shown_files);
        if fits(&out) {
            return out;
        }
        if body.is_empty() {
            break;
        }
        let start = body[..body.len() - 1].rfind('\n').map_or(0, |i| i + 1);
        if hit_mark(&body[start..]) == Some(':') {
            shown_hits = shown_hits.saturating_sub(1);
        }
        body.truncate(start);
        let (files, symbols) = trim_dangling(&mut body);
        shown_files = shown_files.saturating_sub(files);
        shown_symbols = shown_symbols.saturating_sub(symbols);
    }
    let note = format!(
        "({} found; max_tokens {} is too small to show any: raise it)\n",
        plural(total, "hit"),
        budget.max_tokens
    );
    if fits(&note) { note } else { String::new() }
}

/// `:` for a hit line (`L12: text`), `-` for a context line (`L13- text`),
/// both indented; `None` for any other line (a file's path is not
/// indented, whatever it is named).
fn hit_mark(line: &str) -> Option<char> {
    if !line.starts_with(' ') {
        return None;
    }
    let rest = line.trim_start().strip_prefix('L')?;
    let digits = rest.len() - rest.trim_start_matches(|c: char| c.is_ascii_digit()).len();
    if digits == 0 {
        return None;
    }
    rest[digits..]
        .chars()
        .next()
        .filter(|c| matches!(c, ':' | '-'))
}

/// One line of a file's part of the results.
struct Line {
    text: String,
    is_hit: bool,
    is_symbol: bool,
}

/// Drops trailing lines that are a path, a symbol line or a context line
/// with no hit after them; gives how many paths and (named) symbol lines it
/// dropped.
fn trim_dangling(body: &mut String) -> (usize, usize) {
    let (mut files, mut symbols) = (0, 0);
    while body.ends_with('\n') {
        let start = body[..body.len() - 1].rfind('\n').map_or(0, |i| i + 1);
        let line = &body[start..];
        let last = line.trim_start();
        match hit_mark(line) {
            Some(':') => break,
            // Context with no hit after it (in this result).
            Some(_) => {
                body.truncate(start);
                continue;
            }
            None => {}
        }
        if !line.starts_with(' ') {
            files += 1;
        } else if line.starts_with("  ") && !line.starts_with("   ") && !last.starts_with('(') {
            symbols += 1;
        }
        body.truncate(start);
    }
    (files, symbols)
}

/// The innermost named symbol and block holding a line ([`place`]).
type Placement<'o> = (Option<&'o Symbol>, Option<&'o Symbol>);

/// The lines of one file: its path, then its hits grouped under their
/// innermost named symbol (or `(module level)`) and block.
fn file_lines(file: &FileHits, outline: Option<&FileOutline>) -> Vec<Line> {
    let line = |indent: usize, text: String, is_hit: bool, is_symbol: bool| Line {
        text: format!("{:indent$}{text}", ""),
        is_hit,
        is_symbol,
    };
    let with_context = file.hits.iter().any(|h| h.kind != HitKind::Match);
    let mut lines = vec![line(
        0,
        outline_core::text::escape_controls(&file.file.display),
        false,
        false,
    )];
    let Some(outline) = outline else {
        let hits: Vec<&Hit> = file.hits.iter().collect();
        lines.extend(
            hit_lines(&hits, with_context)
                .into_iter()
                .map(|(text, is_hit)| line(2, text, is_hit, false)),
        );
        return lines;
    };
    // Groups by named symbol (pointer identity), first seen first; in each,
    // its hits and blocks in line order.
    struct Group<'o> {
        named: Option<&'o Symbol>,
        items: Vec<(Option<&'o Symbol>, Vec<&'o Hit>)>,
    }
    let mut groups: Vec<Group<'_>> = Vec::new();
    let same = |a: Option<&Symbol>, b: Option<&Symbol>| match (a, b) {
        (Some(a), Some(b)) => std::ptr::eq(a, b),
        (None, None) => true,
        _ => false,
    };
    // A context line goes with a match it is context of, the one before or
    // the one after (ripgrep prints a line once, as the after-context of
    // the first): with the first whose symbol holds it, so the lines
    // between two functions' hits go each to its own. Context of a hit in
    // an import statement is only that statement's own lines: the rest is
    // more imports.
    let import_of = |line: u32| {
        outline
            .imports
            .iter()
            .find(|i| (i.line..=i.end_line).contains(&line))
            .map(|i| (i.line, i.end_line))
    };
    let holds = |owner: &Hit, named: Option<&Symbol>, line: u32| {
        if let Some((first, last)) = import_of(owner.line) {
            return (first..=last).contains(&line);
        }
        let at_level_of = |level: Option<&Symbol>| match (place(outline, line).0, level) {
            (None, None) => true,
            (Some(a), Some(b)) => std::ptr::eq(a, b),
            _ => false,
        };
        match named {
            Some(symbol) => {
                let first = symbol
                    .doc_start_line
                    .unwrap_or(symbol.start_line)
                    .min(symbol.start_line);
                if (first..=symbol.end_line).contains(&line) {
                    return true;
                }
                // A constant, variable or field is read with its
                // neighbours: the lines at its own level around it.
                let value_like = matches!(
                    symbol.kind,
                    SymbolKind::Constant
                        | SymbolKind::Variable
                        | SymbolKind::Field
                        | SymbolKind::Property
                        | SymbolKind::EnumMember
                );
                if !value_like {
                    return false;
                }
                let chain: Vec<&Symbol> = outline
                    .enclosing(symbol.start_line)
                    .into_iter()
                    .filter(|s| s.kind != SymbolKind::Block)
                    .collect();
                match chain.iter().position(|s| std::ptr::eq(*s, symbol)) {
                    Some(0) => at_level_of(None),
                    Some(at) => at_level_of(Some(chain[at - 1])),
                    None => false,
                }
            }
            // A module-level hit's context is module-level lines.
            None => at_level_of(None),
        }
    };
    let matches: Vec<(usize, Placement<'_>)> = file
        .hits
        .iter()
        .enumerate()
        .filter(|(_, hit)| hit.kind == HitKind::Match)
        .map(|(i, hit)| (i, place(outline, hit.line)))
        .collect();
    let mut placed: Vec<Option<Placement<'_>>> = vec![None; file.hits.len()];
    let mut after = 0; // index into `matches` of the first match after hit i
    for (i, hit) in file.hits.iter().enumerate() {
        while after < matches.len() && matches[after].0 < i {
            after += 1;
        }
        if hit.kind == HitKind::Match {
            placed[i] = Some(matches[after].1);
            continue;
        }
        let before = after.checked_sub(1).map(|m| matches[m]);
        let next = matches.get(after).copied();
        placed[i] = [before, next]
            .into_iter()
            .flatten()
            .find(|&(m, (named, _))| {
                let owner = file.hits[m].line;
                owner.abs_diff(hit.line) <= file.context_lines
                    && holds(&file.hits[m], named, hit.line)
            })
            .map(|(_, placement)| placement);
    }
    for (hit, placement) in file.hits.iter().zip(&placed) {
        let Some((named, block)) = *placement else {
            continue;
        };
        // A context line outside the block of its match is shown under
        // the symbol, not the block.
        let block = match block {
            Some(b)
                if hit.kind != HitKind::Match
                    && !(b.start_line..=b.end_line).contains(&hit.line) =>
            {
                None
            }
            b => b,
        };
        let index = match groups.iter().position(|g| same(g.named, named)) {
            Some(index) => index,
            None => {
                groups.push(Group {
                    named,
                    items: Vec::new(),
                });
                groups.len() - 1
            }
        };
        let items = &mut groups[index].items;
        match items.last_mut() {
            Some((last, hits)) if same(*last, block) => hits.push(hit),
            _ => items.push((block, vec![hit])),
        }
    }
    for group in groups {
        match group.named {
            Some(symbol) => lines.push(line(2, symbol_line(symbol), false, true)),
            // A file that was not outlined has no symbols to hold its hits.
            None => {
                let place = match outline.not_outlined() {
                    Some(why) => format!("(not outlined: {why})"),
                    None => "(module level)".to_owned(),
                };
                lines.push(line(2, place, false, false));
            }
        }
        for (block, hits) in group.items {
            let indent = match block {
                Some(block) => {
                    lines.push(line(4, symbol_line(block), false, false));
                    6
                }
                None => 4,
            };
            lines.extend(
                hit_lines(&hits, with_context)
                    .into_iter()
                    .map(|(text, is_hit)| line(indent, text, is_hit, false)),
            );
        }
    }
    lines
}

/// `L12: text` for a matching line and `L13- text` for a context line (as
/// ripgrep marks them), with whether it is a match. With context, each
/// line keeps its indentation relative to the least indented of `hits`
/// (a tab counted as one space), so a passage reads as code.
fn hit_lines(hits: &[&Hit], with_context: bool) -> Vec<(String, bool)> {
    let least = hits
        .iter()
        .filter(|h| !h.text.is_empty())
        .map(|h| h.indent)
        .min()
        .unwrap_or(0);
    hits.iter()
        .map(|hit| {
            let relative = if with_context && !hit.text.is_empty() {
                hit.indent.saturating_sub(least) as usize
            } else {
                0
            };
            let mark = if hit.kind == HitKind::Match { ':' } else { '-' };
            let text = if hit.text.is_empty() {
                format!("L{}{mark}", hit.line)
            } else {
                format!("L{}{mark} {:relative$}{}", hit.line, "", hit.text)
            };
            (text, hit.kind == HitKind::Match)
        })
        .collect()
}

/// The JSON line of each hit of `file` (with its outline, if any), each
/// ending with a newline: `{"path", "line", "column", "text", "symbol",
/// "block"}`, where `symbol` and `block` are `null` or `{"id", "kind",
/// "qualname", "start_line", "end_line", "signature"}` (`line` 1-based;
/// `column` 1-based, in characters; `text` as [`Hit::text`]). Matching
/// lines only: context lines are for reading, in the text output.
pub fn json_lines(file: &FileHits, outline: Option<&FileOutline>) -> String {
    let describe = |symbol: Option<&Symbol>| match symbol {
        None => serde_json::Value::Null,
        Some(s) => serde_json::json!({
            "id": s.id,
            "kind": s.kind.as_str(),
            "name": s.name,
            "qualname": s.qualname,
            "start_line": s.start_line,
            "end_line": s.end_line,
            "signature": s.signature,
        }),
    };
    let mut out = String::new();
    for hit in file.hits.iter().filter(|h| h.kind == HitKind::Match) {
        let (named, block) = outline.map_or((None, None), |o| place(o, hit.line));
        let value = serde_json::json!({
            "path": file.file.display,
            "line": hit.line,
            "column": hit.column,
            "text": hit.text,
            "symbol": describe(named),
            "block": describe(block),
        });
        out.push_str(&value.to_string());
        out.push('\n');
    }
    out
}

/// `12,345 hits`.
fn plural(count: usize, noun: &str) -> String {
    format!(
        "{} {}",
        outline_core::text::thousands(count),
        outline_core::text::noun_for(count, noun)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn query(pattern: &str) -> Compiled {
        Query::literal(pattern).compile().expect("valid pattern")
    }

    #[test]
    fn excerpt_cuts_long_lines_around_the_match_and_counts_columns_in_characters() {
        let matcher = query("needle").matcher;
        assert_eq!(
            excerpt(Some(&matcher), b"    x = needle\n"),
            (9, "x = needle".to_owned(), 4)
        );
        let long = format!("{}needle{}", "é".repeat(500), "b".repeat(500));
        let (column, text, _) = excerpt(Some(&matcher), long.as_bytes());
        assert_eq!(column, 501);
        assert_eq!(text.chars().count(), LINE_CHARS + 1, "{text}");
        assert!(text.starts_with('…') && text.ends_with('…'), "{text}");
        assert_eq!(
            text.find("needle"),
            Some('…'.len_utf8() + 2 * (LINE_CHARS / 4))
        );
    }

    #[test]
    fn a_result_that_fits_in_bytes_is_never_counted_and_a_longer_one_is_cut_by_tokens() {
        let dir = tempfile::tempdir().expect("temp dir");
        let body: String = (0..50).map(|i| format!("needle {i}\n")).collect();
        std::fs::write(dir.path().join("notes.txt"), body).expect("write");
        let walk = WalkOptions {
            every_file: true,
            ..WalkOptions::default()
        };
        let files = collect_files(&[dir.path().to_owned()], walk).files;
        let query = Query::literal("needle");
        let found = search_files(&files, &query.compile().expect("valid"), &Limits::default());
        let no_outline = |_: &FileEntry| None::<FileOutline>;
        let calls = std::sync::atomic::AtomicUsize::new(0);
        let words = |text: &str| {
            calls.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            text.split_whitespace().count()
        };
        let roomy = Budget {
            max_tokens: 10_000,
            count: &words,
        };
        let text = render_text(&found, &query, "d", &no_outline, &roomy);
        assert!(text.contains("  L50: needle 49\n"), "{text}");
        assert_eq!(calls.load(std::sync::atomic::Ordering::Relaxed), 0);
        // 120 tokens of frame and 50 hit lines of 3 words each (with the
        // newline): over 200 bytes, so counted, and cut by words, not bytes.
        let tight = Budget {
            max_tokens: 260,
            count: &words,
        };
        let text = render_text(&found, &query, "d", &no_outline, &tight);
        assert!(calls.load(std::sync::atomic::Ordering::Relaxed) > 0);
        assert!(text.contains("(left out: "), "{text}");
        assert!(text.contains("  L30: needle 29\n"), "{text}");
    }

    /// Searches `files` (name, text) in a temporary directory and renders
    /// the text result with a word-count budget.
    fn rendered(files: &[(&str, &str)], query: Query, limits: Limits, max_tokens: usize) -> String {
        let dir = tempfile::tempdir().expect("temp dir");
        for (name, text) in files {
            std::fs::write(dir.path().join(name), text).expect("write");
        }
        let walk = WalkOptions {
            every_file: true,
            ..WalkOptions::default()
        };
        let entries = collect_files(&[dir.path().to_owned()], walk).files;
        let found = search_files(&entries, &query.compile().expect("valid"), &limits);
        let outline = |file: &FileEntry| crate::outline_file(&file.path, &Default::default()).ok();
        let words = |text: &str| text.split_whitespace().count();
        let budget = Budget {
            max_tokens,
            count: &words,
        };
        render_text(&found, &query, "d", &outline, &budget)
    }

    #[test]
    fn context_between_two_hits_goes_to_the_hit_whose_symbol_holds_it() {
        // Found by a new-user trial: ripgrep gives lines 3-5 as the first
        // hit's after-context; lines 4-5 are the second function's.
        let source = "def first():\n    return NEEDLE\n\ndef second():\n    x = 1\n    y = 2\n    return NEEDLE\n";
        let limits = Limits {
            context_lines: 3,
            ..Limits::default()
        };
        let text = rendered(
            &[("a.py", source)],
            Query::literal("NEEDLE"),
            limits,
            10_000,
        );
        assert!(
            text.contains("    L1- def first():\n    L2:     return NEEDLE\n"),
            "{text}"
        );
        assert!(
            text.ends_with(
                ":4:second function L4-7 def second()\n    L4- def second():\n    \
                 L5-     x = 1\n    L6-     y = 2\n    L7:     return NEEDLE\n"
            ),
            "{text}"
        );
        // A constant's context is the lines at its level; an import's, only
        // its own statement.
        let module = "import os, NEEDLE\nimport sys\n\n# the limit\nLIMIT = NEEDLE\n\n\ndef f():\n    pass\n";
        let text = rendered(
            &[("m.py", module)],
            Query::literal("NEEDLE"),
            limits,
            10_000,
        );
        assert!(
            text.contains("(module level)\n    L1: import os, NEEDLE\n  /"),
            "{text}"
        );
        assert!(
            text.ends_with("    L2- import sys\n    L3-\n    L4- # the limit\n    L5: LIMIT = NEEDLE\n    L6-\n    L7-\n"),
            "{text}"
        );
    }

    #[test]
    fn crlf_lines_match_an_end_anchor_and_controls_are_escaped() {
        let text = rendered(
            &[("w.py", "x = 1\r\ny = \"\u{1b}[31mEND\"\r\n")],
            Query {
                regex: true,
                ..Query::literal("END\"$")
            },
            Limits::default(),
            10_000,
        );
        assert!(text.contains("L2: y = \"\\x1b[31mEND\"\n"), "{text}");
    }

    #[test]
    fn hits_past_the_per_file_limit_are_said_so_and_a_tiny_budget_says_it_is_too_small() {
        let body: String = (0..10).map(|i| format!("needle {i}\n")).collect();
        let limits = Limits {
            keep_per_file: 4,
            ..Limits::default()
        };
        let text = rendered(
            &[("n.txt", &body)],
            Query::literal("needle"),
            limits,
            10_000,
        );
        assert!(
            text.contains("the first 4 hits in 0 symbols in 1 file shown"),
            "{text}"
        );
        assert!(
            text.contains("(left out: 6 hits, past the first 4 kept per file;"),
            "{text}"
        );
        let tiny = rendered(
            &[("n.txt", &body)],
            Query::literal("needle"),
            Limits::default(),
            14,
        );
        assert_eq!(
            tiny,
            "(10 hits found; max_tokens 14 is too small to show any: raise it)\n"
        );
        // The summary counts only the hit lines shown.
        let small = rendered(
            &[("n.txt", &body)],
            Query::literal("needle"),
            Limits::default(),
            40,
        );
        let shown = small
            .lines()
            .filter(|l| l.trim_start().starts_with('L'))
            .count();
        assert!(
            small.contains(&format!("the first {shown} hits")),
            "{small}"
        );
    }

    #[test]
    fn bad_patterns_are_errors() {
        let error = |q: Query| q.compile().err().unwrap_or_default();
        assert!(error(Query::literal("")).contains("empty"));
        assert!(error(Query::literal(&"a".repeat(1001))).contains("1001 characters"));
        assert!(error(Query::literal("a\nb")).contains("line break"));
        let invalid = Query {
            regex: true,
            ..Query::literal("(unclosed")
        };
        let message = error(invalid);
        assert!(
            message.contains("not a valid regular expression"),
            "{message}"
        );
        // The pattern as written, not grep-regex's wrapping of it (a new
        // user's trial: `(?:(`).
        assert!(!message.contains("(?:"), "{message}");
        let glob = Query {
            globs: vec!["a{".to_owned()],
            ..Query::literal("x")
        };
        assert!(error(glob).contains("glob `a{`"));
    }

    #[test]
    fn place_finds_the_innermost_symbol_and_block() {
        let source = "def f(x):\n    for i in x:\n        print(i)\n    return x\n";
        let options = outline_core::OutlineOptions {
            block_threshold: 1,
            ..Default::default()
        };
        let outline = crate::outline_source("a.py", source, &options).expect("python parses");
        let (named, block) = place(&outline, 3);
        assert_eq!(named.map(|s| s.id.as_str()), Some("a.py:1:f"));
        assert_eq!(block.map(|s| s.name.as_str()), Some("for i in x"));
        let (named, block) = place(&outline, 4);
        assert_eq!(named.map(|s| s.id.as_str()), Some("a.py:1:f"));
        assert!(block.is_none_or(|b| b.start_line == 4), "{block:?}");
    }

    #[test]
    fn thousands_and_plurals() {
        assert_eq!(plural(1, "match"), "1 match");
        assert_eq!(plural(12_345, "hit"), "12,345 hits");
        assert_eq!(plural(2, "match"), "2 matches");
        assert_eq!(outline_core::text::thousands(100), "100");
        assert_eq!(outline_core::text::thousands(1_000_000), "1,000,000");
    }
}
