//! What each tool does, as plain functions from arguments to text, so they
//! can be tested without a protocol. [`super::server`] exposes them over MCP
//! and [`super::schemas`] prints their schemas for function calling.
//!
//! Every result is compact text with 1-based inclusive line numbers; every
//! error is one message saying what was wrong and what to do instead.

use std::fmt::Write as _;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use outline_core::{
    Filter, LineIndex, OutlineOptions, Selector, Symbol, SymbolKind, TargetError, TextOptions,
    render_text, split_target,
};
use schemars::JsonSchema;
use serde::de::{DeserializeOwned, Error as _};
use serde::{Deserialize, Deserializer};

use super::cache::{OutlineCache, Parsed};
use super::jail::{Jail, JailError, Jailed};
use ast_outline::find::{Found, Pattern, answer_line, findable, render};
use ast_outline::read::{header, locate, passage_lines, summary_detail};
use ast_outline::walk::{WalkOptions, collect_files};
use ast_outline_budget as tokens;
use outline_core::text::plural;

/// Default of `max_tokens` for outlines: what the first look at a 3,000-line
/// file may cost. Measured (docs/mcp.md) on the 15 CPython stdlib modules of
/// 2,000–4,200 lines: their full outlines are 3,149–11,767 tokens (median
/// 7,348), their names-and-lines outlines 965–3,978 (median 2,399); at 2,500
/// tokens most show every name with its lines, the rest their top level and
/// the first classes' members.
pub const DEFAULT_OUTLINE_TOKENS: u32 = 2_500;
/// Default of `max_tokens` for `search_code` (and `ast-outline search`).
pub const DEFAULT_SEARCH_TOKENS: u32 = 2_000;
/// Default of `max_lines` for `read_lines`.
pub const DEFAULT_MAX_LINES: u32 = 300;
/// Most lines `read_lines` returns, whatever `max_lines` asks.
pub const MOST_LINES: u32 = 2_000;
/// Most matches `find_symbol` lists (and parts `read_symbol` names).
pub const MAX_MATCHES: usize = ast_outline::find::MAX_MATCHES;

/// Arguments of `get_file_outline`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FileOutlineArgs {
    /// File or directory to outline, relative to the server's root (`.` for the
    /// whole tree). Directories are walked recursively, honouring .gitignore.
    pub path: String,
    /// Show symbols nested at most this deep (1 = top-level only). Default: all.
    #[schemars(range(min = 1))]
    pub depth: Option<u32>,
    /// Split functions longer than this many lines into control-flow blocks
    /// (`if`, `for`, `try`…) that get their own ids. Default 100.
    #[schemars(range(min = 1))]
    pub block_threshold: Option<u32>,
    /// Largest result, in o200k_base tokens. A larger outline shows names and
    /// lines only (no signatures, docs or ids), then fewer nesting levels, then
    /// fewer lines, with a note saying so. Default 2500.
    #[schemars(range(min = 1))]
    pub max_tokens: Option<u32>,
    /// End each symbol line with its id (default true). Without ids the outline
    /// is about a third smaller; read symbols by path + qualname then.
    pub ids: Option<bool>,
    /// Outline only this symbol of the file `path`: its members, nested
    /// definitions and control-flow blocks. A qualname (`Cart.total`) or an
    /// id. Its blocks are split out of bodies over 30 lines unless
    /// block_threshold says otherwise.
    pub symbol: Option<String>,
}

/// Default `block_threshold` of a focused outline (`get_file_outline` with
/// `symbol`), in lines: a focused symbol of 60 lines still shows its blocks.
pub const FOCUS_BLOCK_THRESHOLD: u32 = 30;

/// Arguments of `read_symbol`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ReadSymbolArgs {
    /// A symbol id from get_file_outline or find_symbol, PATH:START_LINE:QUALNAME
    /// (e.g. `src/shop.py:42:Cart.total`). Still works after the file changed:
    /// the symbol is found again by its qualname.
    pub symbol_id: Option<String>,
    /// With `qualname`, instead of `symbol_id`: the file, relative to the root.
    pub path: Option<String>,
    /// With `path`: the qualified name (`Cart.total`), a plain name, or a dotted
    /// suffix of a qualname.
    pub qualname: Option<String>,
    /// Also show this many lines before and after the symbol. Default 0.
    pub context_lines: Option<u32>,
    /// Most lines returned (default 300, at most 2000); a longer symbol is cut
    /// with a note listing its parts' ids.
    #[schemars(range(min = 1, max = 2000))]
    pub max_lines: Option<u32>,
}

/// Arguments of `read_lines`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ReadLinesArgs {
    /// The file, relative to the root.
    pub path: String,
    /// First line (1-based).
    #[schemars(range(min = 1))]
    pub start: u32,
    /// Last line (1-based, inclusive).
    #[schemars(range(min = 1))]
    pub end: u32,
    /// Most lines returned (default 300, at most 2000); prefer read_symbol.
    #[schemars(range(min = 1))]
    pub max_lines: Option<u32>,
}

/// Arguments of `find_symbol`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FindSymbolArgs {
    /// Case-insensitive. Without wildcards: a substring of the qualified name
    /// (`total` finds `Cart.total` and `subtotal`; `Cart.` finds Cart's members).
    /// With `*` or `?`: a glob matching the whole name or qualified name
    /// (`get_*`, `Cart.*`). Give either `pattern` or `line`.
    pub pattern: Option<String>,
    /// File or directory to search, relative to the root. Default: the whole tree.
    /// With `line`: the file.
    pub path: Option<String>,
    /// Instead of `pattern`: which symbols and control-flow blocks hold this
    /// line (1-based) of the file `path`, outermost first, with their ids and lines.
    #[schemars(range(min = 1))]
    pub line: Option<u32>,
}

/// Arguments of `search_code`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SearchCodeArgs {
    /// The text to find on one line: literal unless `regex` is true.
    pub pattern: String,
    /// File or directory to search, relative to the root. Default: the whole tree.
    pub path: Option<String>,
    /// Read `pattern` as a regular expression (Rust regex syntax, as ripgrep's).
    pub regex: Option<bool>,
    /// `sensitive` (default), `insensitive`, or `smart` (insensitive unless the
    /// pattern has an upper-case letter).
    pub case: Option<String>,
    /// Only whole-word matches.
    pub word: Option<bool>,
    /// Path globs, as ripgrep's -g: `*.py` keeps only those, `!tests/**` leaves
    /// those out; the last glob a path matches decides, so put `!` globs last.
    pub globs: Option<Vec<String>>,
    /// Lines shown before and after each hit (default 0, at most 20), under
    /// the hit's symbol as `L13- text`: often enough to answer without
    /// reading the range next.
    #[schemars(range(max = 20))]
    pub context_lines: Option<u32>,
    /// Largest result, in o200k_base tokens (default 2000); what is left out is said.
    #[schemars(range(min = 1))]
    pub max_tokens: Option<u32>,
}

/// Tool arguments `T` whose deserialization errors name the argument at
/// fault (`argument `depth`: invalid type: string "x", expected u32`); its
/// JSON Schema is `T`'s.
#[derive(Debug, Clone)]
pub struct Checked<T>(pub T);

impl<'de, T: DeserializeOwned> Deserialize<'de> for Checked<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let value = serde_json::Value::deserialize(deserializer)?;
        serde_path_to_error::deserialize(value)
            .map(Checked)
            .map_err(|error| {
                let path = error.path().to_string();
                if path == "." {
                    D::Error::custom(error.into_inner())
                } else {
                    D::Error::custom(format!("argument `{path}`: {}", error.into_inner()))
                }
            })
    }
}

impl<T: JsonSchema> JsonSchema for Checked<T> {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        T::schema_name()
    }

    fn schema_id() -> std::borrow::Cow<'static, str> {
        T::schema_id()
    }

    fn inline_schema() -> bool {
        T::inline_schema()
    }

    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        T::json_schema(generator)
    }
}

/// `value` when it is at least 1.
///
/// # Errors
/// A message naming the argument `name` when it is 0.
fn at_least_one(name: &str, value: Option<u32>) -> Result<Option<u32>, String> {
    match value {
        Some(0) => Err(format!("{name} must be at least 1 (got 0)")),
        other => Ok(other),
    }
}

/// Longest `find_symbol` pattern, in characters.
pub const MAX_PATTERN_CHARS: usize = ast_outline::find::MAX_PATTERN_CHARS;

/// The files an agent may see (under the root) and what was parsed of them.
#[derive(Debug)]
pub struct Workspace {
    jail: Jail,
    cache: OutlineCache,
    index: super::index_tools::LiveIndex,
    /// `find_symbol(pattern)` answers from the index, and by walking.
    found_in_index: AtomicUsize,
    found_walking: AtomicUsize,
    /// The project settings (`.ast-outline.toml`), read again when the file
    /// changes; a bad file keeps the last good settings.
    settings: std::sync::Mutex<ast_outline_settings::Reloader>,
    /// What the settings file's reloads said: a reload not yet said, and
    /// the file's error while it lasts (from the start, or since a bad
    /// edit).
    settings_said: std::sync::Mutex<(Option<String>, Option<String>)>,
}

impl Workspace {
    /// A workspace rooted at `jail`'s root; its index follows changes as
    /// `live` says.
    pub fn new(jail: Jail, live: ast_outline_live::LiveOptions) -> Workspace {
        let cache = OutlineCache::with_disk(jail.root().join(ast_outline::disk_cache::DIR_NAME));
        let (settings, error) = ast_outline_settings::Reloader::new(jail.root());
        let start_error = error.map(|error| format!("error: {error}; using the default settings"));
        if let Some(error) = &start_error {
            eprintln!("ast-outline: {error}");
        }
        Workspace {
            jail,
            cache,
            index: super::index_tools::LiveIndex::new(live),
            found_in_index: AtomicUsize::new(0),
            found_walking: AtomicUsize::new(0),
            settings: std::sync::Mutex::new(settings),
            settings_said: std::sync::Mutex::new((None, start_error)),
        }
    }

    /// The settings in effect now, read again when the file changed. What
    /// a reload said is kept for [`Workspace::settings_note`] (and printed
    /// on standard error).
    pub fn settings(&self) -> ast_outline_settings::Settings {
        let mut reloader = match self.settings.lock() {
            Ok(reloader) => reloader,
            Err(poisoned) => poisoned.into_inner(),
        };
        let (settings, note) = reloader.current();
        if let Some(note) = note {
            eprintln!("ast-outline: {note}");
            let mut said = self
                .settings_said
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            // A reload that worked ends an error (and is said once); a
            // failed one starts it.
            if note.starts_with("settings reloaded") {
                said.0 = Some(note);
                said.1 = None;
            } else {
                said.0 = None;
                said.1 = Some(note);
            }
        }
        settings.clone()
    }

    /// The note every answer starts with: a reload of the settings file
    /// (once, in the next answer), or the settings file's error (in every
    /// answer until it is fixed). Reads the file again first when it
    /// changed, so the answer that follows uses what the note says.
    pub fn settings_note(&self) -> Option<String> {
        drop(self.settings());
        let mut said = self
            .settings_said
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        said.0.take().or_else(|| said.1.clone())
    }

    /// How many `find_symbol(pattern)` answers came from the index, and
    /// how many from a walk of the files.
    pub fn find_symbol_answers(&self) -> (usize, usize) {
        (
            self.found_in_index.load(Ordering::Relaxed),
            self.found_walking.load(Ordering::Relaxed),
        )
    }

    /// The root directory every path is relative to.
    pub fn root(&self) -> &std::path::Path {
        self.jail.root()
    }

    /// The cross-file index of the root, opened on first use.
    pub(super) fn live_index(&self) -> &super::index_tools::LiveIndex {
        &self.index
    }

    /// The cache (to see what was parsed).
    pub fn cache(&self) -> &OutlineCache {
        &self.cache
    }

    /// `get_file_outline`: the text outline of a file or of a directory's files,
    /// each symbol line ending with its id.
    ///
    /// # Errors
    /// A message when the path is refused, missing, of unknown language, or
    /// holds no file of a supported language.
    pub fn file_outline(&self, args: &FileOutlineArgs) -> Result<String, String> {
        let depth = at_least_one("depth", args.depth)?;
        let max_tokens = at_least_one("max_tokens", args.max_tokens)?;
        let block_threshold = at_least_one("block_threshold", args.block_threshold)?;
        let target = self.resolve(&args.path)?;
        let settings = self.settings();
        let mut options = OutlineOptions {
            block_threshold: block_threshold.unwrap_or(settings.block_threshold),
            ..OutlineOptions::default()
        };
        let budget = max_tokens.unwrap_or(DEFAULT_OUTLINE_TOKENS) as usize;
        let text_options = TextOptions {
            ids: args.ids.unwrap_or(true),
            ..TextOptions::default()
        };
        if let Some(symbol) = &args.symbol {
            if target.real.is_dir() {
                return Err(format!(
                    "{}: is a directory, and symbol needs a file; find the symbol's file with \
                     find_symbol(pattern=\"{symbol}\", path=\"{}\"), or leave symbol out to \
                     outline the directory",
                    target.display, target.display
                ));
            }
            options.block_threshold = block_threshold.unwrap_or(FOCUS_BLOCK_THRESHOLD);
            let (focused, enclosing) = self.focused(&target, symbol, &options)?;
            let inside: String = enclosing
                .iter()
                .map(|line| format!("inside: {line}\n"))
                .collect();
            let room = budget
                .saturating_sub(tokens::count(&inside).unwrap_or(0))
                .max(1);
            let text = fit_outline(&[&focused], &[], &text_options, depth, room, true)?;
            return Ok(inside + &text);
        }
        let mut outlines: Vec<Arc<Parsed>> = Vec::new();
        let mut problems = Vec::new();
        for (real, display) in self.files_under(&target, &settings, &mut problems)? {
            if super::stdio::client_gone() {
                return Err("the client closed the connection".to_owned());
            }
            match self.cache.get(&real, &display, &options) {
                Ok(parsed) if parsed.outline.is_some() => outlines.push(parsed),
                Ok(_) => problems.push(format!(
                    "{display}: not a language ast-outline knows; read it with read_lines"
                )),
                Err(error) => problems.push(error.to_string()),
            }
        }
        if outlines.is_empty() {
            return Err(match problems.as_slice() {
                [] => format!(
                    "{}: no files of a supported language ({}) under it",
                    target.display,
                    ast_outline::supported_extensions().join(", ")
                ),
                _ => problems.join("\n"),
            });
        }
        let single_file = !target.real.is_dir();
        let outlines: Vec<&outline_core::FileOutline> =
            outlines.iter().filter_map(|p| p.outline.as_ref()).collect();
        fit_outline(
            &outlines,
            &problems,
            &text_options,
            depth,
            budget,
            single_file,
        )
    }

    /// The outline of one symbol of the file `target` (an id, or a
    /// qualname as `read_symbol` takes it), parsed with `options`: the file's
    /// header line, then that symbol and everything under it; its enclosing
    /// symbols are named in a line before the header.
    ///
    /// # Errors
    /// A message when the file cannot be parsed or names no such symbol
    /// (with the nearest names), or several (with their ids).
    fn focused(
        &self,
        target: &Jailed,
        symbol: &str,
        options: &OutlineOptions,
    ) -> Result<(outline_core::FileOutline, Vec<String>), String> {
        let selector = match self.split_id(symbol) {
            Ok((path, selector)) if self.resolve(path).is_ok_and(|p| p.real == target.real) => {
                selector
            }
            _ => Selector::Qualname(symbol.to_owned()),
        };
        let parsed = self.parse(target, options)?;
        let display = &target.display;
        let passage = locate(
            display,
            &parsed.source.text,
            parsed.outline.as_ref(),
            &[],
            &selector,
            options,
        )
        .map_err(|miss| {
            miss.message(
                symbol,
                &format!("list its symbols with get_file_outline(path=\"{display}\")"),
            )
        })?;
        let Some(id) = passage.id else {
            return Err(format!("{symbol}: names lines, not a symbol of {display}"));
        };
        // A block's id may come from a finer split than `options`'.
        let mut finest = options.clone();
        finest.block_threshold = ast_outline::around::FINEST_BLOCK_THRESHOLD;
        for options in [options, &finest] {
            let parsed = self.parse(target, options)?;
            let Some(outline) = &parsed.outline else {
                break;
            };
            let mut found = None;
            outline.walk(|s| {
                if found.is_none() && s.id == id {
                    found = Some(s.clone());
                }
            });
            if let Some(symbol) = found {
                let mut focus = outline.clone();
                focus.imports.clear();
                focus
                    .diagnostics
                    .retain(|d| symbol.start_line <= d.line && d.line <= symbol.end_line);
                focus.symbols = vec![symbol];
                return Ok((focus, passage.enclosing));
            }
        }
        Err(format!(
            "{symbol}: not found in {display} (list its symbols with get_file_outline(path=\"{display}\"))"
        ))
    }

    /// `read_symbol`: one symbol's source with a header (path, real lines, the
    /// enclosing symbols, and that it is only part of the file).
    ///
    /// # Errors
    /// A message when the arguments name no file under the root or no symbol
    /// (with the nearest names), or several symbols (with their ids).
    pub fn read_symbol(&self, args: &ReadSymbolArgs) -> Result<String, String> {
        let (target, selector, asked) = match (&args.symbol_id, &args.path, &args.qualname) {
            (Some(_), Some(_), _) | (Some(_), _, Some(_)) => {
                return Err("give either symbol_id, or path and qualname, not both".to_owned());
            }
            (Some(id), None, None) => {
                let (path, selector) = self.split_id(id)?;
                (self.resolve(path)?, selector, id.clone())
            }
            (None, Some(path), Some(qualname)) => (
                self.resolve(path)?,
                Selector::Qualname(qualname.clone()),
                format!("{path}:{qualname}"),
            ),
            _ => {
                return Err(
                    "give symbol_id (PATH:START_LINE:QUALNAME, from get_file_outline \
                            or find_symbol), or both path and qualname"
                        .to_owned(),
                );
            }
        };
        let cap = line_cap("max_lines", args.max_lines)?;
        let parsed = self.parse(&target, &OutlineOptions::default())?;
        let earlier = self.cache.earlier(&target.real, &parsed);
        let earlier: Vec<&str> = earlier.iter().map(|p| p.source.text.as_str()).collect();
        let display = &target.display;
        let passage = locate(
            display,
            &parsed.source.text,
            parsed.outline.as_ref(),
            &earlier,
            &selector,
            &OutlineOptions::default(),
        )
        .map_err(|miss| {
            miss.message(
                &asked,
                &format!("list its symbols with get_file_outline(path=\"{display}\")"),
            )
        })?;
        let index = LineIndex::new(parsed.source.text_without_bom());
        let line_count = index.line_count();
        let context = args.context_lines.unwrap_or(0).min(cap);
        let symbol_end = passage.end.min(line_count);
        if symbol_end.saturating_sub(passage.start) + 1 > cap
            && let Some(folded) = self.folded(&target, &passage, &index, cap)?
        {
            return Ok(folded);
        }
        let (before, after) = context_around(passage.start, symbol_end, line_count, context, cap);
        let start = passage.start.saturating_sub(before).max(1);
        let full_end = symbol_end.saturating_add(after);
        let end = full_end.min(start.saturating_add(cap - 1));
        let (start, end, text) = passage_lines(display, &index, start, end)?;
        let text = cut_long_lines(&text);
        let mut out = header(display, start, end, passage.label.as_deref());
        if context > 0 && symbol_end.saturating_sub(passage.start) + 1 >= cap {
            let _ = writeln!(
                out,
                "(no context lines: the symbol's lines {}-{symbol_end} fill max_lines)",
                passage.start
            );
        } else if context > 0 {
            // Fewer lines than asked only because the file ends: said as
            // before; fewer because of max_lines: the real counts.
            let whole = before == context.min(passage.start.saturating_sub(1))
                && after == context.min(line_count.saturating_sub(symbol_end));
            let around = if whole {
                format!("{} around", plural(context as usize, "context line"))
            } else {
                format!(
                    "{} before and {after} after",
                    plural(before as usize, "context line")
                )
            };
            let _ = writeln!(
                out,
                "(with {around} the symbol's lines {}-{symbol_end})",
                passage.start
            );
        }
        for enclosing in &passage.enclosing {
            let _ = writeln!(out, "inside: {enclosing}");
        }
        let _ = writeln!(
            out,
            "(only lines {start}-{end} of {display}, which has {}; \
             get_file_outline lists the rest)",
            plural(line_count as usize, "line")
        );
        out.push_str(&text);
        if end < full_end {
            let _ = writeln!(
                out,
                "(cut at {}: the symbol runs to line {symbol_end}. Continue with \
                 read_lines(path=\"{display}\", start={}){}",
                plural(cap as usize, "line"),
                end + 1,
                if passage.parts.is_empty() {
                    format!(" or raise max_lines (at most {MOST_LINES}))")
                } else {
                    format!(", raise max_lines (at most {MOST_LINES}), or read its parts by id:")
                }
            );
            for part in passage.parts.iter().take(MAX_MATCHES) {
                let _ = writeln!(out, "  {part}");
            }
            if passage.parts.len() > MAX_MATCHES {
                let _ = writeln!(
                    out,
                    "  (first {MAX_MATCHES} of {} parts; get_file_outline lists them all)",
                    passage.parts.len()
                );
            }
            if !passage.parts.is_empty() {
                out.push_str(")\n");
            }
        }
        Ok(out)
    }

    /// `read_symbol` of a symbol longer than `cap` lines: its header, then
    /// its lines with each part (member, nested definition, control-flow
    /// block, from an outline with every block split out) folded to one line
    /// ending in the part's id ([`ast_outline::around::skeleton`]), at most
    /// `cap` lines. `None` when the symbol has no parts.
    ///
    /// # Errors
    /// A message when the file can no longer be parsed.
    fn folded(
        &self,
        target: &Jailed,
        passage: &ast_outline::read::Passage,
        index: &LineIndex<'_>,
        cap: u32,
    ) -> Result<Option<String>, String> {
        let Some(id) = &passage.id else {
            return Ok(None);
        };
        let options = OutlineOptions {
            block_threshold: ast_outline::around::FINEST_BLOCK_THRESHOLD,
            ..OutlineOptions::default()
        };
        let parsed = self.parse(target, &options)?;
        let Some(outline) = &parsed.outline else {
            return Ok(None);
        };
        let mut found = None;
        outline.walk(|s| {
            if found.is_none() && s.id == *id {
                found = Some(s);
            }
        });
        let Some(symbol) = found.filter(|s| !s.children.is_empty()) else {
            return Ok(None);
        };
        let display = &target.display;
        let end = symbol.end_line.min(index.line_count());
        let skeleton = ast_outline::around::skeleton(symbol, index, cap);
        let mut out = header(display, passage.start, end, passage.label.as_deref());
        for enclosing in &passage.enclosing {
            let _ = writeln!(out, "inside: {enclosing}");
        }
        let _ = writeln!(
            out,
            "(the symbol has {}, more than max_lines={cap}: its lines are shown with its {} \
             folded to one line each, ending in the part's id; read a part with \
             read_symbol(symbol_id), or raise max_lines (at most {MOST_LINES}) to read it whole)",
            plural((end + 1 - passage.start) as usize, "line"),
            plural(skeleton.parts.max(symbol.children.len()), "part"),
        );
        out.push_str(&skeleton.text);
        if skeleton.last < end {
            let _ = writeln!(
                out,
                "(cut at {} of the folded symbol: it runs to line {end}; continue with \
                 read_lines(path=\"{display}\", start={}, end={end}))",
                plural(cap as usize, "line"),
                skeleton.last + 1
            );
        }
        Ok(Some(out))
    }

    /// `read_lines`: lines `start..=end` of a file, at most `max_lines`.
    ///
    /// # Errors
    /// A message when the path is refused or missing, `start > end`, or
    /// `start` is past the end of the file.
    pub fn read_lines(&self, args: &ReadLinesArgs) -> Result<String, String> {
        let cap = line_cap("max_lines", args.max_lines)?;
        if args.start == 0 {
            return Err("start must be at least 1 (got 0): lines are 1-based".to_owned());
        }
        if args.start > args.end {
            return Err(format!(
                "range {}-{} is reversed: start must not be after end",
                args.start, args.end
            ));
        }
        let target = self.resolve(&args.path)?;
        let parsed = self.parse(&target, &OutlineOptions::default())?;
        let index = LineIndex::new(parsed.source.text_without_bom());
        let line_count = index.line_count();
        let asked_end = args.end.min(line_count);
        let end = asked_end.min(args.start.saturating_add(cap - 1));
        let display = &target.display;
        let (start, end, text) = passage_lines(display, &index, args.start, end)?;
        let text = cut_long_lines(&text);
        let mut out = header(display, start, end, None);
        if let Some(outline) = &parsed.outline {
            for line in ast_outline::around::range_context(outline, start, end) {
                out.push_str(&line);
                out.push('\n');
            }
        }
        out.push_str(&text);
        if end < asked_end {
            let _ = writeln!(
                out,
                "(cut at {}: asked for {}-{}. Rather than reading more lines, \
                 outline the file with get_file_outline(path=\"{display}\") and read only \
                 the symbols you need with read_symbol; or continue with start={})",
                plural(cap as usize, "line"),
                args.start,
                args.end,
                end + 1
            );
        } else if args.end > line_count {
            let _ = writeln!(
                out,
                "(asked for {}-{}; {display} ends at line {line_count})",
                args.start, args.end
            );
        }
        Ok(out)
    }

    /// `find_symbol`: the symbols whose name or qualified name matches
    /// `pattern` (see [`FindSymbolArgs::pattern`]), with their ids.
    /// Answered from the index when one is open or on disk (`find_in_index`),
    /// else by walking the files (`find_walking`): the same text either way.
    ///
    /// # Errors
    /// A message when the path is refused or missing, or the glob is malformed.
    pub fn find_symbol(&self, args: &FindSymbolArgs) -> Result<String, String> {
        let text = match (&args.pattern, args.line) {
            (Some(_), Some(_)) => {
                return Err(
                    "give either pattern (to find symbols by name) or path and line \
                            (to see what holds that line), not both"
                        .to_owned(),
                );
            }
            (None, Some(line)) => return self.holding(args.path.as_deref(), line),
            (None, None) => {
                return Err(
                    "give pattern (a name, a qualified name or a glob), or path and \
                            line (to see which symbols hold that line)"
                        .to_owned(),
                );
            }
            (Some(text), None) => text,
        };
        let pattern = Pattern::new(text)?;
        let target = self.resolve(args.path.as_deref().unwrap_or("."))?;
        if let Some(answer) = self.find_in_index(&pattern, &target)? {
            self.found_in_index.fetch_add(1, Ordering::Relaxed);
            return Ok(answer);
        }
        self.found_walking.fetch_add(1, Ordering::Relaxed);
        self.find_walking(&pattern, &target)
    }

    /// `find_symbol(pattern)` without an index: every file under `target`
    /// outlined (through the caches) and its symbols matched.
    ///
    /// # Errors
    /// A message when the client went away meanwhile.
    pub(super) fn find_walking(
        &self,
        pattern: &Pattern,
        target: &Jailed,
    ) -> Result<String, String> {
        let mut problems = Vec::new();
        let settings = self.settings();
        let files = self.files_under(target, &settings, &mut problems)?;
        let options = OutlineOptions::default();
        let mut found: Found<String> = Found::default();
        for (real, display) in &files {
            if super::stdio::client_gone() {
                return Err("the client closed the connection".to_owned());
            }
            let parsed = match self.cache.get(real, display, &options) {
                Ok(parsed) => parsed,
                Err(error) => {
                    problems.push(error.to_string());
                    continue;
                }
            };
            let Some(outline) = &parsed.outline else {
                continue;
            };
            found.searched += 1;
            let before = found.total;
            outline.walk(|symbol| {
                // Callbacks are found by their names (`test('adds')`,
                // `app.get('/users')`); control-flow blocks are not.
                let block = symbol.kind == SymbolKind::Block;
                if findable(symbol) && pattern.matches(&symbol.name, &symbol.qualname, block) {
                    found.add(pattern.is_exact(&symbol.name), || {
                        answer_line(
                            &symbol.id,
                            symbol.start_line,
                            symbol.end_line,
                            &summary_detail(symbol),
                        )
                    });
                }
            });
            if found.total > before {
                found.files += 1;
            }
        }
        Ok(render(&found, pattern, &target.display, &problems))
    }

    /// `find_symbol(path, line)`: the symbols and blocks holding `line` of
    /// the file `path` ([`ast_outline::around::holding`]), from an outline
    /// with every control-flow statement split into blocks.
    ///
    /// # Errors
    /// A message when there is no path, it is refused, missing, a directory
    /// or of unknown language, or the line is 0 or past the end.
    fn holding(&self, path: Option<&str>, line: u32) -> Result<String, String> {
        let path = path.ok_or("with line, give path: the file the line is in")?;
        let target = self.resolve(path)?;
        let options = OutlineOptions {
            block_threshold: ast_outline::around::FINEST_BLOCK_THRESHOLD,
            ..OutlineOptions::default()
        };
        let parsed = self.parse(&target, &options)?;
        let Some(outline) = &parsed.outline else {
            return Err(format!(
                "{}: not a language ast-outline knows; read it with read_lines",
                target.display
            ));
        };
        let index = LineIndex::new(parsed.source.text_without_bom());
        ast_outline::around::holding(outline, &index, line)
    }

    /// `search_code`: the lines matching a pattern, each under the innermost
    /// symbol and block holding it (see [`ast_outline::search`]).
    ///
    /// # Errors
    /// A message when the pattern or a glob is invalid, or the path is
    /// refused or missing.
    pub fn search_code(&self, args: &SearchCodeArgs) -> Result<String, String> {
        use ast_outline::search::{Budget, Case, Limits, Query, render_text, search_files};
        let max_tokens = at_least_one("max_tokens", args.max_tokens)?;
        let case = match args.case.as_deref() {
            None | Some("sensitive") => Case::Sensitive,
            Some("insensitive") => Case::Insensitive,
            Some("smart") => Case::Smart,
            Some(other) => {
                return Err(format!(
                    "argument `case`: `{other}` is not one of sensitive, insensitive, smart"
                ));
            }
        };
        let query = Query {
            pattern: args.pattern.clone(),
            regex: args.regex.unwrap_or(false),
            case,
            word: args.word.unwrap_or(false),
            globs: args.globs.clone().unwrap_or_default(),
        };
        let compiled = query.compile()?;
        let target = self.resolve(args.path.as_deref().unwrap_or("."))?;
        let (walked, _) = ast_outline::search::collect(
            std::slice::from_ref(&target.real),
            WalkOptions::default(),
            &compiled,
            self.jail.root(),
        );
        // Display paths relative to the root, as every other tool shows
        // them; walked files the settings do not select left out.
        let settings = self.settings();
        let files: Vec<ast_outline::walk::FileEntry> = walked
            .into_iter()
            .map(|mut file| {
                file.display = self.jail.display(&file.path);
                file
            })
            .filter(|file| file.explicit || settings.is_selected(&file.display))
            .collect();
        let context_lines = match args.context_lines {
            Some(n) if n > ast_outline::search::MAX_CONTEXT_LINES => {
                return Err(format!(
                    "argument `context_lines`: {n} is more than {}",
                    ast_outline::search::MAX_CONTEXT_LINES
                ));
            }
            n => n.unwrap_or(0),
        };
        let limits = Limits {
            context_lines,
            ..Limits::default()
        };
        let found = search_files(&files, &compiled, &limits);
        let options = OutlineOptions {
            block_threshold: settings.block_threshold,
            ..OutlineOptions::default()
        };
        // Cloned: only the few files whose hits fit the budget are asked for.
        let outline = |file: &ast_outline::walk::FileEntry| {
            file.language?;
            self.cache
                .get(&file.path, &file.display, &options)
                .ok()
                .and_then(|parsed| parsed.outline.clone())
        };
        let count = |text: &str| tokens::count(text).unwrap_or(text.len());
        let budget = Budget {
            max_tokens: max_tokens.map_or_else(
                || {
                    settings
                        .max_tokens
                        .search
                        .unwrap_or(DEFAULT_SEARCH_TOKENS as usize)
                },
                |n| n as usize,
            ),
            count: &count,
        };
        let text = render_text(&found, &query, &target.display, &outline, &budget);
        if text.is_empty() {
            // Not even the note that the budget is too small fits.
            return Err(format!(
                "max_tokens {} is too small to say anything about {}; raise it",
                budget.max_tokens,
                plural(found.hit_count(), "hit")
            ));
        }
        Ok(text)
    }

    fn resolve(&self, path: &str) -> Result<Jailed, String> {
        self.jail.resolve(path).map_err(|e| e.to_string())
    }

    fn parse(&self, target: &Jailed, options: &OutlineOptions) -> Result<Arc<Parsed>, String> {
        if target.real.is_dir() {
            return Err(format!(
                "{}: is a directory; outline it with get_file_outline to see its files",
                target.display
            ));
        }
        self.cache
            .get(&target.real, &target.display, options)
            .map_err(|error| match error {
                ast_outline::Error::Binary { .. } => format!(
                    "{}: looks binary (contains NUL bytes); not read",
                    target.display
                ),
                other => other.to_string(),
            })
    }

    /// The files to outline under `target` (itself when it is a file), as
    /// (real path, display path) in display order.
    /// Walked files that the settings' `files.include`/`files.exclude` do
    /// not select are left out, with a note in `problems`.
    fn files_under(
        &self,
        target: &Jailed,
        settings: &ast_outline_settings::Settings,
        problems: &mut Vec<String>,
    ) -> Result<Vec<(PathBuf, String)>, String> {
        if !target.real.is_dir() {
            return Ok(vec![(target.real.clone(), target.display.clone())]);
        }
        let walked = collect_files(std::slice::from_ref(&target.real), WalkOptions::default());
        problems.extend(walked.problems);
        problems.extend(walked.notes);
        let prefix = if target.display == "." {
            String::new()
        } else {
            format!("{}/", target.display)
        };
        let mut files: Vec<(PathBuf, String)> = walked
            .files
            .into_iter()
            .map(|file| {
                let inner = file
                    .path
                    .strip_prefix(&target.real)
                    .map(|p| self.jail.display(&self.jail.root().join(p)))
                    .unwrap_or_else(|_| file.display.clone());
                (file.path, format!("{prefix}{inner}"))
            })
            .collect();
        let before = files.len();
        files.retain(|(_, display)| settings.is_selected(display));
        problems.extend(settings.left_out_note(before - files.len()));
        files.sort_by(|a, b| a.1.cmp(&b.1));
        Ok(files)
    }

    /// Splits a symbol id into its path and selector; a path that leaves the
    /// root is reported as refused.
    fn split_id<'a>(&self, id: &'a str) -> Result<(&'a str, Selector), String> {
        let is_file = |p: &str| self.jail.resolve(p).is_ok_and(|j| j.real.is_file());
        match split_target(id, is_file) {
            Ok((path, Selector::Qualname(qualname)))
                if qualname.split("::").any(|part| part.contains(':')) =>
            {
                let line = qualname.split(':').next().unwrap_or_default();
                Err(format!(
                    "{id}: malformed id: `{line}` is not a line number; an id is \
                     PATH:START_LINE:QUALNAME (`{path}:42:Name`)"
                ))
            }
            Ok(split) => Ok(split),
            Err(TargetError::Selector { error, .. }) => Err(format!("{id}: {error}")),
            Err(TargetError::NoFile) => {
                let refused = id
                    .match_indices(':')
                    .map(|(i, _)| &id[..i])
                    .chain(std::iter::once(id))
                    .filter(|p| !p.is_empty())
                    .find_map(|p| self.jail.resolve(p).err().filter(JailError::is_escape));
                let not_regular = id
                    .match_indices(':')
                    .map(|(i, _)| &id[..i])
                    .chain(std::iter::once(id))
                    .filter(|p| !p.is_empty())
                    .find(|p| {
                        self.jail
                            .resolve(p)
                            .is_ok_and(|j| j.real.exists() && !j.real.is_file())
                    });
                Err(match (refused, not_regular) {
                    (Some(error), _) => error.to_string(),
                    (None, Some(path))
                        if self.jail.resolve(path).is_ok_and(|j| j.real.is_dir()) =>
                    {
                        format!(
                            "{path}: is a directory; an id names a file \
                             (get_file_outline(path=\"{path}\") lists its files' ids)"
                        )
                    }
                    (None, Some(path)) => {
                        format!(
                            "{path}: not a regular file (a FIFO, socket or device); only files can be read"
                        )
                    }
                    (None, None) => format!(
                        "{id}: no file under the root starts this id; an id is \
                         PATH:START_LINE:QUALNAME with PATH relative to the root"
                    ),
                })
            }
        }
    }
}

/// The outlines rendered within `budget` tokens: all of them at `depth`; else
/// the deepest level that fits, filled in source order with the next level's
/// lines (all the members of one symbol, or none), saying what was left out;
/// else the top level cut after whole lines. `single_file` changes the advice.
///
/// Lines are counted one at a time and summed ([`tokens::estimate_within`]);
/// the chosen text is counted exactly and trimmed until it fits.
///
/// # Errors
/// A message when not even the first line and the note fit.
fn fit_outline(
    outlines: &[&outline_core::FileOutline],
    problems: &[String],
    options: &TextOptions,
    depth: Option<u32>,
    budget: usize,
    single_file: bool,
) -> Result<String, String> {
    let deepest = outlines
        .iter()
        .map(|o| nesting_depth(&o.symbols))
        .max()
        .unwrap_or(1)
        .max(1);
    let asked = depth.map_or(deepest, |d| (d as usize).clamp(1, deepest));
    let advice = if single_file {
        "read one with read_symbol(path, qualname), outline one with get_file_outline(path, \
         symbol=qualname) for its signatures and ids, or raise max_tokens"
    } else {
        "outline a single file or a subdirectory, or raise max_tokens"
    };
    // Estimates run a little high: a text within this much is counted exactly.
    let slack = budget / 4 + 16;
    let full = render_all(outlines, problems, options, asked, false);
    if tokens::estimate_within(full.lines(), budget + slack).is_some()
        && tokens::fits(&full, budget)
    {
        return Ok(full);
    }
    // Then names and lines only, at every level; then fewer levels of them.
    let brief = render_all(outlines, problems, options, asked, true);
    let brief_note = format!(
        "(names and lines only, to fit max_tokens={budget}: signatures, docs, decorators, \
         imports and ids left out; {advice})\n"
    );
    if tokens::estimate_within(brief.lines(), budget + slack).is_some() {
        let candidate = brief.clone() + &brief_note;
        if tokens::fits(&candidate, budget) {
            return Ok(candidate);
        }
    }
    let mut deeper = brief;
    for shown in (1..asked).rev() {
        let text = render_all(outlines, problems, options, shown, true);
        let lines: Vec<&str> = text.lines().collect();
        let deeper_lines: Vec<&str> = deeper.lines().collect();
        let runs = extra_runs(&lines, &deeper_lines);
        let note = |filled: usize| depth_note(shown, deepest, budget, filled, runs.len(), advice);
        let room = budget.saturating_sub(tokens::count(&note(runs.len())).unwrap_or(0));
        let Some(base) = tokens::estimate_within(lines.iter().copied(), room + slack) else {
            deeper = text;
            continue;
        };
        // Fill with whole runs of the next level, in source order.
        let mut spare = room.saturating_sub(base);
        let mut filled = 0usize;
        for run in &runs {
            match tokens::estimate_within(run.lines.iter().copied(), spare) {
                Some(cost) => {
                    spare -= cost;
                    filled += 1;
                }
                None => break,
            }
        }
        loop {
            let candidate = assemble(&lines, &runs[..filled]) + &note(filled);
            if tokens::fits(&candidate, budget) {
                return Ok(candidate);
            }
            if filled == 0 {
                break;
            }
            filled -= filled.div_ceil(4).max(1).min(filled);
        }
        deeper = text;
    }
    // Even the top level does not fit: keep whole lines while they fit.
    let text = render_all(outlines, problems, options, 1, true);
    tokens::keep_lines(&text, budget, |kept, total| {
        cut_note(kept, total, budget, advice)
    })
    .ok_or_else(|| {
        // The first line and the note saying what was cut, counted as the
        // answer would hold them.
        let lines = text.lines().count();
        let first = format!(
            "{}\n{}",
            text.lines().next().unwrap_or_default(),
            cut_note(1, lines, budget, advice)
        );
        format!(
            "max_tokens={budget} is too small for the first line of this outline with the \
             note saying what was cut ({} tokens); raise it to at least that (the top-level \
             outline alone is {} tokens)",
            tokens::count(&first).unwrap_or_default(),
            tokens::count(&text).unwrap_or_default()
        )
    })
}

/// Lines of the next nesting level, all the members of one symbol: they go
/// after line `after` (0-based) of the shallower text.
#[derive(Debug)]
struct Run<'a> {
    after: usize,
    lines: Vec<&'a str>,
}

/// The runs of lines `deeper` has that `shallow` has not (`shallow`'s lines
/// are `deeper`'s in the same order, fewer).
fn extra_runs<'a>(shallow: &[&str], deeper: &[&'a str]) -> Vec<Run<'a>> {
    let mut runs: Vec<Run<'a>> = Vec::new();
    let mut next = 0usize;
    for line in deeper {
        if shallow.get(next) == Some(line) {
            next += 1;
            continue;
        }
        let after = next.saturating_sub(1);
        match runs.last_mut() {
            Some(run) if run.after == after && next > 0 => run.lines.push(line),
            _ => runs.push(Run {
                after,
                lines: vec![line],
            }),
        }
    }
    runs
}

/// `shallow`'s lines with `runs` inserted after theirs.
fn assemble(shallow: &[&str], runs: &[Run<'_>]) -> String {
    let mut out = String::new();
    let mut runs = runs.iter().peekable();
    for (i, line) in shallow.iter().enumerate() {
        out.push_str(line);
        out.push('\n');
        while let Some(run) = runs.next_if(|run| run.after == i) {
            for extra in &run.lines {
                out.push_str(extra);
                out.push('\n');
            }
        }
    }
    out
}

fn depth_note(
    shown: usize,
    deepest: usize,
    budget: usize,
    filled: usize,
    runs: usize,
    advice: &str,
) -> String {
    let next = shown + 1;
    let members = if filled == 0 {
        format!("symbols nested {next} or more deep are left out")
    } else if filled == runs {
        format!("level {next} is shown whole and deeper levels left out")
    } else {
        format!(
            "level {next} is shown for the first {filled} of {runs} symbols that have members \
             there (in source order); the rest of it and deeper levels are left out"
        )
    };
    format!(
        "(names and lines only, cut to depth {shown} of {deepest} to fit max_tokens={budget}: \
         {members}; {advice})\n"
    )
}

fn cut_note(kept: usize, total: usize, budget: usize, advice: &str) -> String {
    format!(
        "(names and lines only, cut after {kept} of {total} lines of the top level to fit \
         max_tokens={budget}; {advice})\n"
    )
}

/// The text outlines of `outlines` at nesting depth `depth`, separated by blank
/// lines, then the problems met; with `brief`, names and lines only
/// ([`names_and_lines`]).
fn render_all(
    outlines: &[&outline_core::FileOutline],
    problems: &[String],
    options: &TextOptions,
    depth: usize,
    brief: bool,
) -> String {
    let filter = Filter {
        max_depth: Some(depth),
        ..Filter::default()
    };
    let mut out = String::new();
    for outline in outlines {
        let mut outline = (*outline).clone();
        filter.apply(&mut outline);
        let mut options = options.clone();
        if brief {
            outline.imports.clear();
            outline.symbols = names_and_lines(&outline.symbols);
            options.ids = false;
        }
        if !out.is_empty() {
            out.push('\n');
        }
        out.push_str(&render_text(&outline, &options));
    }
    for problem in problems {
        let _ = writeln!(out, "! {problem}");
    }
    out
}

/// `symbols` and their members with kind, name and lines only: no
/// signature (but an impl's, which is its name), doc or decorators (and,
/// rendered, no ids).
fn names_and_lines(symbols: &[Symbol]) -> Vec<Symbol> {
    symbols
        .iter()
        .map(|s| {
            let mut brief = s.brief();
            brief.children = names_and_lines(&s.children);
            brief
        })
        .collect()
}

/// How many nesting levels `symbols` have, counted as [`Filter::max_depth`]
/// counts them (blocks add no level).
fn nesting_depth(symbols: &[Symbol]) -> usize {
    symbols
        .iter()
        .map(|s| {
            let below = nesting_depth(&s.children);
            if s.kind == SymbolKind::Block {
                below.max(1)
            } else {
                below + 1
            }
        })
        .max()
        .unwrap_or(0)
}

/// `max_lines` (or the default), at most [`MOST_LINES`].
///
/// # Errors
/// A message naming `name` when it is 0.
/// Longest line `read_lines` and `read_symbol` show, in characters.
pub const LONG_LINE_CHARS: usize = 2_000;

/// `text` with each line over [`LONG_LINE_CHARS`] characters cut there and
/// ended with `… [line cut: it has N bytes]`: a minified file's one line of
/// megabytes would otherwise be one answer of millions of tokens.
fn cut_long_lines(text: &str) -> String {
    if text.len() <= LONG_LINE_CHARS {
        return text.to_owned();
    }
    let mut out = String::with_capacity(text.len().min(1 << 20));
    for line in text.split_inclusive('\n') {
        let body = line.trim_end_matches(['\n', '\r']);
        match body.char_indices().nth(LONG_LINE_CHARS) {
            None => out.push_str(line),
            Some((cut, _)) => {
                out.push_str(&body[..cut]);
                let _ = writeln!(
                    out,
                    "… [line cut at {} characters: it has {} bytes]",
                    outline_core::text::thousands(LONG_LINE_CHARS),
                    outline_core::text::thousands(body.len())
                );
            }
        }
    }
    out
}

fn line_cap(name: &str, asked: Option<u32>) -> Result<u32, String> {
    match asked {
        Some(0) => Err(format!("{name} must be at least 1 (got 0)")),
        Some(lines) => Ok(lines.min(MOST_LINES)),
        None => Ok(DEFAULT_MAX_LINES),
    }
}

/// How many context lines to show before and after a symbol at lines
/// `start..=end` of a file of `line_count` lines, when `context` are asked
/// for on each side and at most `cap` lines may be shown: the symbol's own
/// lines come first, and the room left is shared between the two sides
/// (a side with fewer lines to give leaves its share to the other).
fn context_around(start: u32, end: u32, line_count: u32, context: u32, cap: u32) -> (u32, u32) {
    let own = end.saturating_sub(start) + 1;
    let room = cap.saturating_sub(own);
    let want_before = context.min(start.saturating_sub(1));
    let want_after = context.min(line_count.saturating_sub(end));
    if want_before + want_after <= room {
        return (want_before, want_after);
    }
    let before = want_before.min((room / 2).max(room.saturating_sub(want_after)));
    (before, want_after.min(room - before))
}
