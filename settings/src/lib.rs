//! The project settings file of ast-outline.
//!
//! The file is `.ast-outline.toml` in the project root; when that is
//! absent, the `[tool.ast-outline]` table of the root's `pyproject.toml`
//! (as ruff reads `.ruff.toml` > `ruff.toml` > `pyproject.toml` in one
//! directory). A `pyproject.toml` without that table is no settings file.
//! With no settings file every value is its default.
//!
//! [`Settings::load`] reads and validates the file: unknown keys, wrong
//! types, invalid globs, out-of-range numbers, duplicate keys and NUL
//! bytes are errors ([`SettingsError`]) naming the file, line, column and
//! dotted key (in a pyproject.toml the full path, `tool.ast-outline.…`).
//! Only a regular file of at most 1 MiB ([`MAX_FILE_SIZE`]) is read.
//! [`Settings`] holds the effective values and where each came from
//! ([`Source`]); [`Reloader`] is a server's view that re-reads the file
//! when it changes and keeps the last good settings on an error.
//!
//! Precedence: command-line flags > the file > defaults. This crate knows
//! the file and the defaults; the caller applies its flags on top.
//!
//! # Globs
//!
//! `files.include`, `files.exclude`, `tests.paths` and `tests.extend_paths`
//! are globs over root-relative, `/`-separated paths, gitignore-like:
//!
//! - a glob without `/` matches a name at any depth (`*.py` is `**/*.py`);
//! - a glob with `/` is anchored at the root (a leading `/` is stripped);
//! - a glob matching a directory matches everything below it; a trailing
//!   `/` matches directories only (`tests/` is any directory named `tests`,
//!   at any depth); `dir/**` matches everything below `dir`;
//! - `*` and `?` never match `/`, `**` matches any number of directories,
//!   `{a,b}` and `[abc]` are alternatives and classes (globset syntax).

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use schemars::JsonSchema;
use serde::Deserialize;
use toml::Spanned;

mod globs;
mod locate;
mod pyproject;
mod raw;
mod render;

use globs::{Compiled, Matcher};
use pyproject::Holds;
use raw::{Int, Pyproject, SettingsFile, Sp};

/// The name of the settings file in the project root.
pub const FILE_NAME: &str = ".ast-outline.toml";

/// The pyproject file read when [`FILE_NAME`] is absent (its
/// `[tool.ast-outline]` table).
pub const PYPROJECT: &str = "pyproject.toml";

/// The largest settings file read, in bytes (1 MiB); a larger one is an
/// error.
pub const MAX_FILE_SIZE: u64 = 1024 * 1024;

/// The default test globs, per language:
///
/// - Python: pytest's `python_files` default, `test_*.py` and `*_test.py`,
///   plus `conftest.py`, and anything under a directory named `tests` or
///   `test` (<https://docs.pytest.org/en/stable/reference/reference.html#confval-python_files>);
/// - TypeScript/JavaScript: Jest's `testMatch` default, files under
///   `__tests__/` and `*.test.*` / `*.spec.*` for js, jsx, ts, tsx, mjs,
///   cjs, mts, cts (<https://jestjs.io/docs/configuration#testmatch-arraystring>);
///   vitest's defaults (`**/*.{test,spec}.?(c|m)[jt]s?(x)`) are the same
///   families;
/// - Rust: Cargo's integration tests `tests/**/*.rs` (the `tests/` rule
///   covers them) and benchmarks `benches/**/*.rs`
///   (<https://doc.rust-lang.org/cargo/guide/project-layout.html>).
///
/// A trailing `/` means a directory of that name at any depth and all
/// below it.
pub const DEFAULT_TEST_PATHS: &[&str] = &[
    "test_*.py",
    "*_test.py",
    "conftest.py",
    "tests/",
    "test/",
    "__tests__/",
    "*.test.{js,jsx,ts,tsx,mjs,cjs,mts,cts}",
    "*.spec.{js,jsx,ts,tsx,mjs,cjs,mts,cts}",
    "benches/",
];

/// The default of `outline.block_threshold`.
pub const DEFAULT_BLOCK_THRESHOLD: u32 = 100;

/// Every key of the file, dotted, in file order.
pub const KEYS: &[&str] = &[
    "files.include",
    "files.exclude",
    "tests.paths",
    "tests.extend_paths",
    "tests.index",
    "tests.in_queries",
    "outline.block_threshold",
    "queries.max_results",
    "context.docs",
    "context.kind",
    "context.weights.callers",
    "context.weights.references",
    "context.weights.type_hierarchy",
    "max_tokens.search",
    "max_tokens.context",
    "max_tokens.tests",
    "max_tokens.impact",
];

/// One value's origin.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    /// The built-in default.
    Default,
    /// A settings file, at a 1-based line.
    File {
        /// The settings file.
        path: PathBuf,
        /// The 1-based line of the value.
        line: u32,
    },
}

impl fmt::Display for Source {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Source::Default => f.write_str("default"),
            Source::File { path, line } => write!(f, "{}:{line}", path.display()),
        }
    }
}

/// What a `context` answer gathers by default (`context.kind`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ContextKind {
    /// The definition only.
    #[default]
    Definition,
    /// The references to the symbol.
    References,
    /// The callers of the symbol.
    Callers,
    /// The supertypes and subtypes of the symbol.
    TypeHierarchy,
    /// All relation groups, ordered by `context.weights`.
    All,
    /// The symbols shaped like it in its file and directory (same kind,
    /// bases, decorators, name pattern, parameters), ranked.
    Siblings,
}

impl ContextKind {
    /// Every kind, in the file's order.
    pub const ALL: [ContextKind; 6] = [
        ContextKind::Definition,
        ContextKind::References,
        ContextKind::Callers,
        ContextKind::TypeHierarchy,
        ContextKind::All,
        ContextKind::Siblings,
    ];

    /// The name in the file: "definition", "references", "callers",
    /// "type_hierarchy", "all" or "siblings".
    pub fn as_str(self) -> &'static str {
        match self {
            ContextKind::Definition => "definition",
            ContextKind::References => "references",
            ContextKind::Callers => "callers",
            ContextKind::TypeHierarchy => "type_hierarchy",
            ContextKind::All => "all",
            ContextKind::Siblings => "siblings",
        }
    }

    /// The kind named `name` (as in the file), if any.
    pub fn parse(name: &str) -> Option<ContextKind> {
        ContextKind::ALL.into_iter().find(|k| k.as_str() == name)
    }
}

impl fmt::Display for ContextKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The weights of the relation groups in context kind "all"
/// (`[context.weights]`): higher first, 0 = left out.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Weights {
    /// Callers of the symbol (default 3).
    pub callers: f64,
    /// References to the symbol (default 2).
    pub references: f64,
    /// Supertypes and subtypes (default 1).
    pub type_hierarchy: f64,
}

impl Default for Weights {
    fn default() -> Weights {
        Weights {
            callers: 3.0,
            references: 2.0,
            type_hierarchy: 1.0,
        }
    }
}

impl Weights {
    /// The relation groups of kind "all" in answer order: weight 0 left
    /// out, higher weight first, ties in the order callers, references,
    /// type hierarchy.
    pub fn order(&self) -> Vec<ContextKind> {
        let mut groups = vec![
            (ContextKind::Callers, self.callers),
            (ContextKind::References, self.references),
            (ContextKind::TypeHierarchy, self.type_hierarchy),
        ];
        groups.retain(|(_, w)| *w > 0.0);
        groups.sort_by(|a, b| b.1.total_cmp(&a.1));
        groups.into_iter().map(|(k, _)| k).collect()
    }
}

/// Default token budgets per command (`[max_tokens]`); `None` = the
/// command's own default. A `--max-tokens` flag wins over these.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Budgets {
    /// `search` answers.
    pub search: Option<usize>,
    /// `context` answers.
    pub context: Option<usize>,
    /// `tests` answers.
    pub tests: Option<usize>,
    /// `impact` answers.
    pub impact: Option<usize>,
}

/// The effective settings (defaults filled in) and where each came from.
#[derive(Debug, Clone)]
pub struct Settings {
    /// `files.include`: when non-empty, only paths matching one are walked.
    pub include: Vec<String>,
    /// `files.exclude`: paths left out.
    pub exclude: Vec<String>,
    /// The effective test globs: `tests.paths` (or [`DEFAULT_TEST_PATHS`])
    /// followed by `tests.extend_paths`.
    pub test_paths: Vec<String>,
    /// `tests.index`: whether test files are walked and indexed.
    pub index_tests: bool,
    /// `tests.in_queries`: whether answers list hits in test files.
    pub tests_in_queries: bool,
    /// `outline.block_threshold`.
    pub block_threshold: u32,
    /// `queries.max_results`; `None` = no limit.
    pub max_results: Option<usize>,
    /// `context.docs`: whether context answers carry doc comments.
    pub context_docs: bool,
    /// `context.kind`.
    pub context_kind: ContextKind,
    /// `[context.weights]`.
    pub weights: Weights,
    /// `[max_tokens]`.
    pub max_tokens: Budgets,
    /// The settings file read, if any.
    pub file: Option<PathBuf>,
    /// Dotted key (every one of [`KEYS`]) -> where its value came from.
    pub sources: BTreeMap<String, Source>,
    /// `tests.paths` as given (or the defaults).
    base_test_paths: Vec<String>,
    /// `tests.extend_paths`.
    extend_test_paths: Vec<String>,
    include_matcher: Matcher,
    exclude_matcher: Matcher,
    test_matcher: Matcher,
}

impl Default for Settings {
    fn default() -> Settings {
        Settings::defaults()
    }
}

/// An error in the settings file: the file, the 1-based line and column
/// (in characters) when known, the dotted key when known, and the message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SettingsError {
    /// The settings file.
    pub path: PathBuf,
    /// The 1-based line, when known.
    pub line: Option<u32>,
    /// The 1-based column in characters, when known.
    pub column: Option<u32>,
    /// The dotted key (`tests.paths[2]`), when known: the full path from
    /// the file's root (`tool.ast-outline.tests.paths[2]` in a
    /// pyproject.toml).
    pub key: Option<String>,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for SettingsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.path.display())?;
        if let Some(line) = self.line {
            write!(f, ":{line}")?;
            if let Some(column) = self.column {
                write!(f, ":{column}")?;
            }
        }
        f.write_str(": ")?;
        if let Some(key) = &self.key {
            write!(f, "key `{key}`: ")?;
        }
        f.write_str(&self.message)
    }
}

impl std::error::Error for SettingsError {}

/// A stamp of the settings files in a root (path, length and mtime of
/// `.ast-outline.toml` and `pyproject.toml`): equal stamps mean no change
/// seen.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stamp {
    files: Vec<(PathBuf, Option<FileStamp>)>,
}

/// A file's length and modification time.
type FileStamp = (u64, Option<SystemTime>);

/// A list of globs as given, and compiled.
type GlobList = (Vec<String>, Vec<Compiled>);

/// Builds [`Settings`] from a parsed file, validating as it goes.
struct Builder<'a> {
    path: &'a Path,
    text: &'a str,
    /// What error keys start with: `tool.ast-outline.` in a pyproject.toml
    /// (an error names the full dotted path from the file's root).
    key_prefix: &'a str,
    sources: BTreeMap<String, Source>,
}

impl<'a> Builder<'a> {
    fn error(&self, offset: usize, key: &str, message: String) -> SettingsError {
        let (line, column) = locate::line_col(self.text, offset);
        SettingsError {
            path: self.path.to_path_buf(),
            line: Some(line),
            column: Some(column),
            key: Some(format!("{}{key}", self.key_prefix)),
            message,
        }
    }

    fn found(&mut self, key: &str, offset: usize) {
        let (line, _) = locate::line_col(self.text, offset);
        self.sources.insert(
            key.to_owned(),
            Source::File {
                path: self.path.to_path_buf(),
                line,
            },
        );
    }

    /// A list of globs: the strings and the compiled globs.
    fn globs(
        &mut self,
        key: &str,
        value: Sp<Vec<Spanned<String>>>,
    ) -> Result<Option<GlobList>, SettingsError> {
        let Some(value) = value else { return Ok(None) };
        self.found(key, value.span().start);
        let mut strings = Vec::new();
        let mut compiled = Vec::new();
        for (i, glob) in value.into_inner().into_iter().enumerate() {
            let start = glob.span().start;
            let glob = glob.into_inner();
            let c =
                globs::compile(&glob).map_err(|m| self.error(start, &format!("{key}[{i}]"), m))?;
            strings.push(glob);
            compiled.push(c);
        }
        Ok(Some((strings, compiled)))
    }

    fn matcher(&self, key: &str, globs: Vec<Compiled>) -> Result<Matcher, SettingsError> {
        Matcher::build(globs).map_err(|message| SettingsError {
            path: self.path.to_path_buf(),
            line: None,
            column: None,
            key: Some(format!("{}{key}", self.key_prefix)),
            message,
        })
    }

    fn bool(&mut self, key: &str, value: Sp<bool>) -> Option<bool> {
        let value = value?;
        self.found(key, value.span().start);
        Some(value.into_inner())
    }

    /// An integer in `1..=max` (of any size in the file: one beyond an
    /// i64 is out of range too).
    fn count(&mut self, key: &str, value: Sp<Int>, max: u64) -> Result<Option<u64>, SettingsError> {
        let Some(value) = value else { return Ok(None) };
        let start = value.span().start;
        let n = value.into_inner();
        match n {
            Int::Negative(_) | Int::NonNegative(0) => {
                Err(self.error(start, key, format!("must be an integer >= 1, not {n}")))
            }
            Int::NonNegative(big) => match u64::try_from(big) {
                Ok(n) if n <= max => {
                    self.found(key, start);
                    Ok(Some(n))
                }
                _ => Err(self.error(start, key, format!("must be at most {max}, not {n}"))),
            },
        }
    }

    fn size(&mut self, key: &str, value: Sp<Int>) -> Result<Option<usize>, SettingsError> {
        let max = u64::try_from(usize::MAX).unwrap_or(u64::MAX);
        Ok(self
            .count(key, value, max)?
            .map(|n| usize::try_from(n).unwrap_or(usize::MAX)))
    }

    /// A finite number >= 0.
    fn weight(&mut self, key: &str, value: Sp<f64>) -> Result<Option<f64>, SettingsError> {
        let Some(value) = value else { return Ok(None) };
        let start = value.span().start;
        let w = value.into_inner();
        if !w.is_finite() || w < 0.0 {
            return Err(self.error(
                start,
                key,
                format!("must be a finite number >= 0, not {}", render::float(w)),
            ));
        }
        self.found(key, start);
        Ok(Some(w))
    }
}

impl Settings {
    /// The default settings: no include or exclude globs, the default test
    /// globs, tests indexed and listed, block threshold 100, no result
    /// limit, docs in context answers, context kind "definition", weights
    /// callers 3, references 2, type hierarchy 1, no token budgets (each
    /// command's own).
    pub fn defaults() -> Settings {
        let test_paths: Vec<String> = DEFAULT_TEST_PATHS.iter().map(|s| (*s).to_owned()).collect();
        let compiled: Vec<Compiled> = test_paths
            .iter()
            .filter_map(|g| globs::compile(g).ok())
            .collect();
        Settings {
            include: Vec::new(),
            exclude: Vec::new(),
            test_paths: test_paths.clone(),
            index_tests: true,
            tests_in_queries: true,
            block_threshold: DEFAULT_BLOCK_THRESHOLD,
            max_results: None,
            context_docs: true,
            context_kind: ContextKind::Definition,
            weights: Weights::default(),
            max_tokens: Budgets::default(),
            file: None,
            sources: KEYS
                .iter()
                .map(|k| ((*k).to_owned(), Source::Default))
                .collect(),
            base_test_paths: test_paths,
            extend_test_paths: Vec::new(),
            include_matcher: Matcher::empty(),
            exclude_matcher: Matcher::empty(),
            test_matcher: Matcher::build(compiled).unwrap_or_else(|_| Matcher::empty()),
        }
    }

    /// Reads `ROOT/.ast-outline.toml`, else `ROOT/pyproject.toml`'s
    /// `[tool.ast-outline]`; none → defaults.
    ///
    /// Only a regular file (after following symlinks) of at most
    /// [`MAX_FILE_SIZE`] bytes is read; a directory, FIFO, device or
    /// socket by that name, or a larger file, is an error. A
    /// `pyproject.toml` whose lines cannot hold the table is not parsed
    /// (see [`Settings::parse`]), so a broken pyproject.toml of another
    /// tool is no error here.
    pub fn load(root: &Path) -> Result<Settings, SettingsError> {
        let file = root.join(FILE_NAME);
        if std::fs::symlink_metadata(&file).is_ok() {
            let text = read(&file)?;
            return Settings::parse(&file, &text, false);
        }
        let pyproject = root.join(PYPROJECT);
        if std::fs::symlink_metadata(&pyproject).is_ok() {
            let text = read(&pyproject)?;
            return Settings::parse(&pyproject, &text, true);
        }
        Ok(Settings::defaults())
    }

    /// Parses `text` as the file `path` (`pyproject`: whether it is a
    /// pyproject.toml, whose `[tool.ast-outline]` table is read; without
    /// that table the result is the defaults, with no file).
    ///
    /// A pyproject.toml is parsed only when a line could hold the table:
    /// a header `[tool.ast-outline…]` (spaces and quotes allowed), or a
    /// dotted key `tool.ast-outline…` or `ast-outline` starting a line, or
    /// the misspelt `ast_outline` so (an error: `[tool.ast_outline]` is
    /// no table of ast-outline). In a pyproject.toml an error names the
    /// key's full dotted path (`tool.ast-outline.files.exclud`).
    pub fn parse(path: &Path, text: &str, pyproject: bool) -> Result<Settings, SettingsError> {
        let holds = if pyproject {
            let holds = pyproject::holds(text);
            if !holds.anything() {
                return Ok(Settings::defaults());
            }
            Some(holds)
        } else {
            None
        };
        let error_at = |offset: usize, key: Option<String>, message: &str| {
            let (line, column) = locate::line_col(text, offset);
            SettingsError {
                path: path.to_path_buf(),
                line: Some(line),
                column: Some(column),
                key,
                message: message.to_owned(),
            }
        };
        let misspelt_key = format!("tool.{}", pyproject::MISSPELT);
        let misspelt_message = format!(
            "unknown table; the table of ast-outline is [tool.{}]",
            pyproject::TABLE
        );
        if let Some(offset) = text.find('\0') {
            return Err(error_at(
                offset,
                None,
                "contains a NUL byte (a settings file is text)",
            ));
        }
        // TOML syntax first, so a syntax error is not reported as a key's.
        if let Err(e) = toml::de::DeTable::parse(text) {
            if let Some(Holds {
                table: false,
                misspelt: Some(offset),
            }) = holds
            {
                // Only the misspelt table: that is what to fix.
                return Err(error_at(offset, Some(misspelt_key), &misspelt_message));
            }
            let duplicate = e.message().trim_end() == "duplicate key";
            return Err(toml_error(path, text, &e, duplicate));
        }
        let file = if let Some(holds) = holds {
            let parsed: Pyproject =
                toml::from_str(text).map_err(|e| toml_error(path, text, &e, true))?;
            let tool = parsed.tool.unwrap_or_default();
            if let Some(misspelt) = tool.misspelt {
                let offset = holds.misspelt.unwrap_or(misspelt.span().start);
                return Err(error_at(offset, Some(misspelt_key), &misspelt_message));
            }
            match tool.ast_outline {
                Some(file) => file,
                None => return Ok(Settings::defaults()),
            }
        } else {
            toml::from_str::<SettingsFile>(text).map_err(|e| toml_error(path, text, &e, true))?
        };
        let key_prefix = if pyproject { "tool.ast-outline." } else { "" };
        Settings::from_file(file, path, text, key_prefix)
    }

    fn from_file(
        file: SettingsFile,
        path: &Path,
        text: &str,
        key_prefix: &str,
    ) -> Result<Settings, SettingsError> {
        let mut s = Settings::defaults();
        let mut b = Builder {
            path,
            text,
            key_prefix,
            sources: std::mem::take(&mut s.sources),
        };
        s.file = Some(path.to_path_buf());

        if let Some((strings, compiled)) = b.globs("files.include", file.files.include)? {
            s.include_matcher = b.matcher("files.include", compiled)?;
            s.include = strings;
        }
        if let Some((strings, compiled)) = b.globs("files.exclude", file.files.exclude)? {
            s.exclude_matcher = b.matcher("files.exclude", compiled)?;
            s.exclude = strings;
        }
        let paths = b.globs("tests.paths", file.tests.paths)?;
        let extend = b.globs("tests.extend_paths", file.tests.extend_paths)?;
        if paths.is_some() || extend.is_some() {
            let (base, mut compiled) = match paths {
                Some(given) => given,
                None => {
                    let base = s.base_test_paths.clone();
                    let compiled = base.iter().filter_map(|g| globs::compile(g).ok()).collect();
                    (base, compiled)
                }
            };
            let (extend, extend_compiled) = extend.unwrap_or_default();
            compiled.extend(extend_compiled);
            s.test_matcher = b.matcher("tests.paths", compiled)?;
            s.test_paths = base.iter().chain(&extend).cloned().collect();
            s.base_test_paths = base;
            s.extend_test_paths = extend;
        }
        if let Some(v) = b.bool("tests.index", file.tests.index) {
            s.index_tests = v;
        }
        if let Some(v) = b.bool("tests.in_queries", file.tests.in_queries) {
            s.tests_in_queries = v;
        }
        if let Some(n) = b.count(
            "outline.block_threshold",
            file.outline.block_threshold,
            u64::from(u32::MAX),
        )? {
            s.block_threshold = u32::try_from(n).unwrap_or(u32::MAX);
        }
        s.max_results = b.size("queries.max_results", file.queries.max_results)?;
        if let Some(v) = b.bool("context.docs", file.context.docs) {
            s.context_docs = v;
        }
        if let Some(kind) = file.context.kind {
            b.found("context.kind", kind.span().start);
            s.context_kind = kind.into_inner();
        }
        let w = file.context.weights;
        if let Some(v) = b.weight("context.weights.callers", w.callers)? {
            s.weights.callers = v;
        }
        if let Some(v) = b.weight("context.weights.references", w.references)? {
            s.weights.references = v;
        }
        if let Some(v) = b.weight("context.weights.type_hierarchy", w.type_hierarchy)? {
            s.weights.type_hierarchy = v;
        }
        let t = file.max_tokens;
        s.max_tokens = Budgets {
            search: b.size("max_tokens.search", t.search)?,
            context: b.size("max_tokens.context", t.context)?,
            tests: b.size("max_tokens.tests", t.tests)?,
            impact: b.size("max_tokens.impact", t.impact)?,
        };
        s.sources = b.sources;
        Ok(s)
    }

    /// Whether a root-relative, `/`-separated file path is a test file (it
    /// or one of its directories matches [`Settings::test_paths`]).
    pub fn is_test(&self, relative_path: &str) -> bool {
        self.test_matcher.matches_file(relative_path)
    }

    /// Whether a root-relative, `/`-separated file path is chosen by
    /// `files.include` and `files.exclude` alone (include empty or one
    /// matches, and no exclude matches): what `outline` and `search` walk.
    pub fn is_selected(&self, relative_path: &str) -> bool {
        (self.include_matcher.is_empty() || self.include_matcher.matches_file(relative_path))
            && !self.exclude_matcher.matches_file(relative_path)
    }

    /// The note on `count` walked files that [`Settings::is_selected`] left
    /// out (`None` when none were, or no settings file was read).
    pub fn left_out_note(&self, count: usize) -> Option<String> {
        let file = self.file.as_ref()?;
        let files = if count == 1 { "file" } else { "files" };
        (count > 0).then(|| {
            format!(
                "note: {count} {files} left out by files.include/files.exclude of {}",
                file.display()
            )
        })
    }

    /// Whether a root-relative path is walked: included (include empty or
    /// one matches), not excluded, and (index_tests or not a test).
    ///
    /// For file paths; a walker prunes directories with
    /// [`Settings::is_excluded_dir`] only (an include glob such as
    /// `src/**/*.py` matches no directory).
    pub fn is_walked(&self, relative_path: &str) -> bool {
        self.is_selected(relative_path) && (self.index_tests || !self.is_test(relative_path))
    }

    /// Whether a root-relative directory is excluded, with all below it
    /// (by `files.exclude`, or by the test globs when tests are not
    /// indexed): a walker need not descend into it.
    pub fn is_excluded_dir(&self, relative_dir: &str) -> bool {
        self.exclude_matcher.matches_dir(relative_dir)
            || (!self.index_tests && self.test_matcher.matches_dir(relative_dir))
    }

    /// Whether an answer lists a hit in this path (tests_in_queries or not
    /// a test).
    pub fn in_queries(&self, relative_path: &str) -> bool {
        self.tests_in_queries || !self.is_test(relative_path)
    }

    /// `tests.paths` as given, or [`DEFAULT_TEST_PATHS`] when not given.
    pub fn base_test_paths(&self) -> &[String] {
        &self.base_test_paths
    }

    /// `tests.extend_paths` as given.
    pub fn extend_test_paths(&self) -> &[String] {
        &self.extend_test_paths
    }

    /// The source of a dotted key; [`Source::Default`] for an unknown key.
    pub fn source(&self, key: &str) -> &Source {
        self.sources.get(key).unwrap_or(&Source::Default)
    }

    /// `ast-outline config` text: one `key = value  # source` line per key,
    /// TOML-like, grouped by table, first line naming the file (or "no
    /// settings file: defaults"). An unset limit or budget is written
    /// `none`.
    pub fn render_text(&self) -> String {
        render::text(self)
    }

    /// `{"file": …, "settings": {table: {key: value}}, "sources": {dotted
    /// key: "default" | "PATH:LINE"}}`. `settings` mirrors the file: under
    /// `tests`, `paths` is the base list and `extend_paths` the additions;
    /// an unset limit or budget is `null`.
    pub fn to_json(&self) -> serde_json::Value {
        render::json(self)
    }

    /// A stamp of the settings file(s) in ROOT (path, length, mtime of
    /// `.ast-outline.toml` and `pyproject.toml`), to see a change cheaply.
    pub fn stamp(root: &Path) -> Stamp {
        let files = [FILE_NAME, PYPROJECT]
            .iter()
            .map(|name| {
                let path = root.join(name);
                let meta = std::fs::metadata(&path)
                    .ok()
                    .map(|m| (m.len(), m.modified().ok()));
                (path, meta)
            })
            .collect();
        Stamp { files }
    }
}

/// Reads a settings file as UTF-8: only a regular file (after following
/// symlinks) of at most [`MAX_FILE_SIZE`] bytes; an unreadable file, a
/// directory, FIFO, device or socket, a larger file or invalid UTF-8 is an
/// error (invalid UTF-8 with the line and column of the first invalid
/// byte).
fn read(path: &Path) -> Result<String, SettingsError> {
    let error = |message: String| SettingsError {
        path: path.to_path_buf(),
        line: None,
        column: None,
        key: None,
        message,
    };
    // Before opening: opening a FIFO blocks, reading a device may not end.
    let meta = std::fs::metadata(path).map_err(|e| error(format!("cannot read: {e}")))?;
    if meta.is_dir() {
        return Err(error("cannot read: it is a directory".to_owned()));
    }
    if !meta.is_file() {
        return Err(error(match file_kind(&meta.file_type()) {
            Some(kind) => format!("cannot read: not a regular file ({kind})"),
            None => "cannot read: not a regular file".to_owned(),
        }));
    }
    if meta.len() > MAX_FILE_SIZE {
        return Err(error(too_large(&meta.len().to_string())));
    }
    let file = std::fs::File::open(path).map_err(|e| error(format!("cannot read: {e}")))?;
    let bytes = read_at_most(file, MAX_FILE_SIZE).map_err(|e| {
        error(match e {
            ReadError::TooLarge => too_large(&format!("more than {MAX_FILE_SIZE}")),
            ReadError::Io(e) => format!("cannot read: {e}"),
        })
    })?;
    String::from_utf8(bytes).map_err(|e| {
        let valid = e.utf8_error().valid_up_to();
        let bytes = e.as_bytes();
        let prefix = String::from_utf8_lossy(&bytes[..valid]);
        let (line, column) = locate::line_col(&prefix, valid);
        SettingsError {
            line: Some(line),
            column: Some(column),
            ..error("invalid UTF-8".to_owned())
        }
    })
}

/// The message on a file of `size` bytes, over [`MAX_FILE_SIZE`].
fn too_large(size: &str) -> String {
    format!("too large: {size} bytes (a settings file is at most 1 MiB, {MAX_FILE_SIZE} bytes)")
}

/// What a file that is neither a regular file nor a directory is: "a
/// FIFO", "a character device", "a block device" or "a socket"; `None`
/// when unknown.
fn file_kind(file_type: &std::fs::FileType) -> Option<&'static str> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if file_type.is_fifo() {
            return Some("a FIFO");
        }
        if file_type.is_char_device() {
            return Some("a character device");
        }
        if file_type.is_block_device() {
            return Some("a block device");
        }
        if file_type.is_socket() {
            return Some("a socket");
        }
    }
    #[cfg(not(unix))]
    let _ = file_type;
    None
}

/// Why [`read_at_most`] failed.
#[derive(Debug)]
enum ReadError {
    /// More than the limit.
    TooLarge,
    /// The read failed.
    Io(std::io::Error),
}

/// All of `reader`, when it holds at most `limit` bytes: at most
/// `limit + 1` bytes are read, so a file growing meanwhile (or an endless
/// one) is bounded too.
fn read_at_most(reader: impl std::io::Read, limit: u64) -> Result<Vec<u8>, ReadError> {
    use std::io::Read;
    let mut bytes = Vec::new();
    reader
        .take(limit.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(ReadError::Io)?;
    if u64::try_from(bytes.len()).unwrap_or(u64::MAX) > limit {
        return Err(ReadError::TooLarge);
    }
    Ok(bytes)
}

/// A toml error as a [`SettingsError`]; `with_key`: whether the key is
/// found from the span (serde errors, a duplicate key; not other syntax
/// errors). The key is the full dotted path from the file's root.
fn toml_error(path: &Path, text: &str, e: &toml::de::Error, with_key: bool) -> SettingsError {
    let (line, column, key) = match e.span() {
        Some(span) => {
            let (line, column) = locate::line_col(text, span.start);
            let key = if with_key {
                locate::key_at(text, span.start)
            } else {
                None
            };
            (Some(line), Some(column), key)
        }
        None => (None, None, None),
    };
    SettingsError {
        path: path.to_path_buf(),
        line,
        column,
        key,
        message: plain_message(e.message().trim_end()),
    }
}

/// serde's message in the file's words: "expected struct FilesTable" is
/// "expected a table", "expected i64" "expected an integer", "expected f64"
/// "expected a number".
fn plain_message(message: &str) -> String {
    let message = match message.find("expected struct ") {
        Some(i) => format!("{}expected a table", &message[..i]),
        None => message.to_owned(),
    };
    message
        .replace("expected i64", "expected an integer")
        .replace("expected f64", "expected a number")
}

/// The JSON Schema of the settings file (schemars, from the same serde
/// structs the file is read with), as pretty JSON text ending in a newline.
pub fn schema_text() -> String {
    let schema = schemars::schema_for!(SettingsFile);
    let mut value = schema.as_value().clone();
    drop_null_defaults(&mut value);
    if let Some(obj) = value
        .pointer_mut("/$defs/TestsTable/properties/paths")
        .and_then(serde_json::Value::as_object_mut)
    {
        obj.insert("default".to_owned(), serde_json::json!(DEFAULT_TEST_PATHS));
    }
    format!("{value:#}\n")
}

/// Drops `"default": null` (serde's default of an absent value, which is
/// no TOML value) everywhere in a schema.
fn drop_null_defaults(value: &mut serde_json::Value) {
    match value {
        serde_json::Value::Object(map) => {
            if map.get("default").is_some_and(serde_json::Value::is_null) {
                map.remove("default");
            }
            map.values_mut().for_each(drop_null_defaults);
        }
        serde_json::Value::Array(items) => items.iter_mut().for_each(drop_null_defaults),
        _ => {}
    }
}

/// A server's settings: reloads when [`Settings::stamp`] changes; on an
/// error keeps the last good settings.
#[derive(Debug)]
pub struct Reloader {
    root: PathBuf,
    stamp: Stamp,
    settings: Settings,
}

impl Reloader {
    /// Loads the settings of `root`; the defaults when the first load
    /// fails, with the error.
    pub fn new(root: &Path) -> (Reloader, Option<SettingsError>) {
        let stamp = Settings::stamp(root);
        let (settings, error) = match Settings::load(root) {
            Ok(s) => (s, None),
            Err(e) => (Settings::defaults(), Some(e)),
        };
        let reloader = Reloader {
            root: root.to_path_buf(),
            stamp,
            settings,
        };
        (reloader, error)
    }

    /// The current settings; re-reads when the file changed since the last
    /// call. Returns a note when it (re)loaded or failed: "settings
    /// reloaded from PATH" (or "settings reloaded: no settings file,
    /// defaults") / "PATH:LINE:COL: …; keeping the last good settings".
    pub fn current(&mut self) -> (&Settings, Option<String>) {
        let stamp = Settings::stamp(&self.root);
        if stamp == self.stamp {
            return (&self.settings, None);
        }
        self.stamp = stamp;
        let note = match Settings::load(&self.root) {
            Ok(settings) => {
                self.settings = settings;
                Some(match &self.settings.file {
                    Some(path) => format!("settings reloaded from {}", path.display()),
                    None => "settings reloaded: no settings file, defaults".to_owned(),
                })
            }
            Err(e) => Some(format!("{e}; keeping the last good settings")),
        };
        (&self.settings, note)
    }

    /// The current settings, without looking at the file.
    pub fn settings(&self) -> &Settings {
        &self.settings
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_test_globs() {
        let s = Settings::defaults();
        for path in [
            "pkg/tests/test_x.py",
            "src/__tests__/a.ts",
            "src/a.test.tsx",
            "crates/foo/tests/it.rs",
            "test_api.py",
            "pkg/api_test.py",
            "pkg/conftest.py",
            "test/helpers.js",
            "web/b.spec.mts",
            "benches/speed.rs",
        ] {
            assert!(s.is_test(path), "{path} should be a test");
        }
        for path in [
            "src/testing.py",
            "src/contest.py",
            "src/latest/x.ts",
            "src/a.test.py",
            "src/tests.py",
            "src/attest/x.py",
            "src/a.testing.ts",
        ] {
            assert!(!s.is_test(path), "{path} should not be a test");
        }
    }

    #[test]
    fn every_default_glob_compiles() {
        for g in DEFAULT_TEST_PATHS {
            assert!(globs::compile(g).is_ok(), "{g}");
        }
        assert_eq!(Settings::defaults().sources.len(), KEYS.len());
    }

    #[test]
    fn weights_order() {
        assert_eq!(
            Weights::default().order(),
            [
                ContextKind::Callers,
                ContextKind::References,
                ContextKind::TypeHierarchy
            ]
        );
        let w = Weights {
            callers: 0.0,
            references: 1.0,
            type_hierarchy: 5.0,
        };
        assert_eq!(
            w.order(),
            [ContextKind::TypeHierarchy, ContextKind::References]
        );
    }

    #[test]
    fn reads_stop_past_the_limit() {
        // An endless reader (as /dev/zero, or a file growing meanwhile).
        let endless = std::io::repeat(b'#');
        assert!(matches!(
            read_at_most(endless, MAX_FILE_SIZE),
            Err(ReadError::TooLarge)
        ));
        let bytes = read_at_most(&b"abc"[..], 3).ok();
        assert_eq!(bytes.as_deref(), Some(&b"abc"[..]));
        assert!(matches!(
            read_at_most(&b"abcd"[..], 3),
            Err(ReadError::TooLarge)
        ));
        assert_eq!(
            too_large(&format!("more than {MAX_FILE_SIZE}")),
            "too large: more than 1048576 bytes (a settings file is at most 1 MiB, 1048576 bytes)"
        );
    }

    #[test]
    fn context_kind_names() {
        for k in ContextKind::ALL {
            assert_eq!(ContextKind::parse(k.as_str()), Some(k));
        }
        assert_eq!(ContextKind::parse("x"), None);
    }
}
