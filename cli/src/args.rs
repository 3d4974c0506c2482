//! Command-line flags, defined once for parsing, `--help` and shell completions.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

const EXAMPLES: &str = "\
Examples:
  ast-outline outline src/                      outline a tree (text)
  ast-outline outline --format json app.py      one JSON object per file
  ast-outline outline --depth 1 --no-private .  top-level public symbols only
  ast-outline read app.py:Repo.find             the source of one symbol
  ast-outline read app.py:195:Repo.find         ... by the id from the JSON output
  ast-outline read app.py:120-180               a line range

Lines are 1-based and inclusive. Symbol ids are PATH:START_LINE:QUALNAME.";

const INDEX_EXAMPLES: &str = "\
Examples:
  ast-outline index .                           build or refresh .ast-outline/index.sqlite
  ast-outline refs app/models.py:User           references to a class
  ast-outline callers app/models.py:3:User.save --depth 2
  ast-outline callees app/signup.py:signup      the calls inside a function
  ast-outline hierarchy app/models.py:User      bases and subclasses
  ast-outline defs User                         every definition named User
  ast-outline refs app/signup.py:12:9           what the name at line 12, column 9 names
  ast-outline context app/signup.py:12:9 --kind callers --max-tokens 2000
  ast-outline export --format json > codeschema.json

TARGET is a symbol id (PATH:LINE:QUALNAME), PATH:QUALNAME, PATH:LINE or
PATH:LINE:COL (column 1-based, in characters); PATH is relative to --root.
Queries refresh the index first unless --no-refresh is given.";

/// `--version`: the package version and the git commit built from
/// (`-modified` when the checkout had uncommitted changes; see build.rs).
pub const VERSION: &str = concat!(
    env!("CARGO_PKG_VERSION"),
    " (commit ",
    env!("AST_OUTLINE_COMMIT"),
    ")"
);

/// Outline code by symbol and read one symbol back, for AI coding agents.
#[derive(Debug, Parser)]
#[command(name = "ast-outline", version = VERSION, after_help = EXAMPLES, max_term_width = 100)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
    /// How files are parsed (flags of every command).
    #[command(flatten)]
    pub parsing: ParsingArgs,
}

/// Parse supervision: every file is parsed in a worker process, so one
/// that crashes a parser, passes the time limit or the memory cap is
/// reported (an error diagnostic, no symbols) and the rest is served.
#[derive(Debug, Args)]
pub struct ParsingArgs {
    /// Longest a single file's parse may take, in seconds, before its worker
    /// is stopped and the file reported.
    #[arg(long, global = true, default_value_t = 60.0, value_name = "SECONDS",
          value_parser = positive_seconds, conflicts_with = "parse_in_process",
          help_heading = "Parsing")]
    pub parse_timeout: f64,
    /// Largest resident memory of a parse worker, in MiB (Linux), before it
    /// is stopped and its file reported.
    #[arg(long, global = true, default_value_t = 4096, value_name = "MIB",
          value_parser = clap::value_parser!(u64).range(16..=1 << 30),
          conflicts_with = "parse_in_process", help_heading = "Parsing")]
    pub parse_memory: u64,
    /// Parse in this process, without worker processes (faster to start; a
    /// file that crashes a parser then ends the process).
    #[arg(long, global = true, help_heading = "Parsing")]
    pub parse_in_process: bool,
}

/// A number of seconds from 0.1 (a worker must have the time to start and
/// answer) to a day.
fn positive_seconds(text: &str) -> Result<f64, String> {
    let seconds: f64 = text
        .parse()
        .map_err(|_| format!("`{text}` is not a number of seconds"))?;
    if seconds.is_finite() && (0.1..=86_400.0).contains(&seconds) {
        Ok(seconds)
    } else {
        Err(format!(
            "`{text}`: give at least 0.1 and at most 86400 seconds"
        ))
    }
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Outline files and directories: every class, function, method, variable…
    /// with its lines, signature and first doc line.
    #[command(after_help = EXAMPLES)]
    Outline(OutlineArgs),
    /// Print the source of one symbol (by id or qualified name) or line range,
    /// after a header line naming the file and the real lines.
    #[command(after_help = EXAMPLES)]
    Read(ReadArgs),
    /// Which symbols and control-flow blocks hold a line (PATH:LINE):
    /// outermost first, each with its id, kind, lines and signature, then
    /// the line itself.
    At(AtArgs),
    /// Find text (or a regex) in files and show each hit under the symbol
    /// and block that hold it: the symbol's id, kind, lines and signature once,
    /// then its hit lines; cut to a token budget (o200k_base).
    Search(SearchArgs),
    /// Cut files into symbol-bounded chunks for retrieval (BM25, embeddings):
    /// JSON Lines, one chunk per definition (a long one split at its members
    /// or blocks), the lines between definitions grouped; every line in
    /// exactly one chunk.
    #[command(after_help = CHUNKS_EXAMPLES)]
    Chunks(ChunksArgs),
    /// Serve MCP (Model Context Protocol) on stdio: tools to outline files, read
    /// a symbol by id (also after edits), read line ranges and find symbols, for
    /// the files under --root only.
    Mcp(McpArgs),
    /// Serve the Language Server Protocol on stdio from the live index:
    /// document and workspace symbols, definition, references, call and
    /// type hierarchy, hover; unsaved buffers are indexed from their text.
    Lsp(LiveArgs),
    /// Keep the index of ROOT fresh while files change (until stopped):
    /// one line per update on stdout.
    Watch(WatchArgs),
    /// Print the MCP server's tools as function-calling definitions (JSON).
    Tools(ToolsArgs),
    /// Print a short system-prompt snippet telling an agent to outline first
    /// and read by id.
    Prompt,
    /// Build or refresh the cross-file index of ROOT (files, symbols,
    /// imports, references, type relations) in an SQLite database.
    #[command(after_help = INDEX_EXAMPLES)]
    Index(IndexArgs),
    /// References to a definition, grouped by file (refreshes the index
    /// first).
    #[command(after_help = INDEX_EXAMPLES)]
    Refs(RefsArgs),
    /// Who calls a definition (reverse call graph), --depth levels up.
    #[command(after_help = INDEX_EXAMPLES)]
    Callers(CallersArgs),
    /// The calls made in the body of a definition, and the modules it
    /// imports at run time (`import_module(name)`, `import(path)`).
    #[command(after_help = INDEX_EXAMPLES)]
    Callees(QueryArgs),
    /// Supertypes and subtypes of a class, transitively.
    #[command(after_help = INDEX_EXAMPLES)]
    Hierarchy(QueryArgs),
    /// Every definition with a name (or qualname), with its module.
    #[command(after_help = INDEX_EXAMPLES)]
    Defs(DefsArgs),
    /// The symbol at a position and the ranked context about it (its
    /// definition, then references, callers or type hierarchy), each block
    /// with qualname, path, lines, relation and code, cut to a token budget
    /// (o200k_base).
    #[command(after_help = INDEX_EXAMPLES)]
    Context(ContextArgs),
    /// The tests that reach a definition through the reverse call graph
    /// (pytest and unittest tests, Rust #[test] functions, it/test cases),
    /// each with its call path to it, nearest first, cut to a token budget.
    #[command(after_help = INDEX_EXAMPLES)]
    Tests(TestsArgs),
    /// What a diff touches: the definitions whose lines changed (modified,
    /// added, removed), their callers and the tests that reach them. The
    /// diff: the working tree against HEAD (default), against --base REV,
    /// or a unified diff given with --diff FILE (`-` for standard input).
    #[command(after_help = INDEX_EXAMPLES)]
    Impact(ImpactArgs),
    /// Print the settings in effect (.ast-outline.toml, or pyproject.toml's
    /// [tool.ast-outline], else the defaults) and where each came from.
    Config(ConfigArgs),
    /// Write the whole index (files, symbols, references, relations) to
    /// stdout: one versioned JSON document (docs/export-schema.md), or a
    /// SCIP index with --format scip.
    #[command(after_help = INDEX_EXAMPLES)]
    Export(ExportArgs),
    /// Print the JSON Schema of one line of `outline --format json`.
    Schema,
    /// Print a shell completion script.
    Completions {
        /// The shell to complete for.
        shell: clap_complete::Shell,
    },
}

/// Flags of `outline`.
#[derive(Debug, Args)]
pub struct OutlineArgs {
    /// Files and directories to outline. Directories are walked recursively,
    /// honouring .gitignore/.ignore and skipping hidden files.
    #[arg(required = true, value_name = "PATH")]
    pub paths: Vec<PathBuf>,
    /// Output format: `text` for reading, `json` for one JSON object per file
    /// per line (JSON Lines, sorted by path).
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
    /// Show symbols nested at most this deep (1 = top-level only).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    pub depth: Option<u32>,
    /// Leave out first doc lines.
    #[arg(long)]
    pub no_docs: bool,
    /// Leave out non-public symbols (Python: names starting with `_`, dunders kept).
    #[arg(long)]
    pub no_private: bool,
    /// Extraction settings.
    #[command(flatten)]
    pub extraction: ExtractionArgs,
    /// Also walk hidden files and directories.
    #[arg(long)]
    pub hidden: bool,
    /// Do not honour .gitignore, .ignore and git exclude files.
    #[arg(long)]
    pub no_ignore: bool,
    /// Worker threads (default: one per CPU).
    #[arg(short = 'j', long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    pub threads: Option<u32>,
    /// Print a repo map that fits in N tokens (o200k_base): every file with
    /// its top-level symbols first, then members, then signatures and docs,
    /// as far as they fit, saying what was left out.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    pub max_tokens: Option<u32>,
    /// Do not read or write the outline cache.
    #[arg(long)]
    pub no_cache: bool,
    /// Keep the outline cache in DIR (default: .ast-outline/ in the project
    /// root — the nearest directory up holding .git or .ast-outline/ — else,
    /// outside any project or when that is read-only, the user cache directory).
    #[arg(long, value_name = "DIR", conflicts_with = "no_cache")]
    pub cache_dir: Option<PathBuf>,
    /// Print no notes (skipped files, cache) and no progress bar; errors
    /// are still printed.
    #[arg(short, long)]
    pub quiet: bool,
}

/// Flags of `chunks`.
#[derive(Debug, Args)]
pub struct ChunksArgs {
    /// Files and directories to cut. Directories are walked recursively,
    /// honouring .gitignore/.ignore and skipping hidden files.
    #[arg(required = true, value_name = "PATH")]
    pub paths: Vec<PathBuf>,
    /// Largest chunk in tokens (o200k_base). A unit that cannot be cut (a
    /// function without control-flow blocks, one long statement) may be
    /// larger and says so (`"over_budget": true`).
    #[arg(long, value_name = "N", default_value_t = 1000,
          value_parser = clap::value_parser!(u32).range(1..))]
    pub max_tokens: u32,
    /// Also walk hidden files and directories.
    #[arg(long)]
    pub hidden: bool,
    /// Do not honour .gitignore, .ignore and git exclude files.
    #[arg(long)]
    pub no_ignore: bool,
    /// Worker threads (default: one per CPU).
    #[arg(short = 'j', long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    pub threads: Option<u32>,
    /// Print no notes (skipped files); errors are still printed.
    #[arg(short, long)]
    pub quiet: bool,
}

const CHUNKS_EXAMPLES: &str = "\
Each line is one chunk: {\"id\", \"path\", \"language\", \"start_line\", \"end_line\",
\"kind\", \"part\" (whole|head|group), \"name\", \"qualname\", \"context\" (enclosing
headers, outermost first), \"text\", \"tokens\", \"over_budget\"}. Lines are 1-based,
inclusive; ids are readable with `read`.

Examples:
  ast-outline chunks src/ > chunks.jsonl
  ast-outline chunks --max-tokens 500 app.py | jq -r '[.id, .tokens] | @tsv'";

/// Flags that change what is extracted (and therefore the ids of blocks).
#[derive(Debug, Args)]
pub struct ExtractionArgs {
    /// Split functions whose body is longer than N lines into control-flow
    /// blocks (`if`, `for`, `try`, …) that can be read by id (default: the
    /// settings' outline.block_threshold, else 100).
    #[arg(long, value_name = "N")]
    pub block_threshold: Option<u32>,
    /// Do not parse brackets nested deeper than N (1 to 5000): the text
    /// inside them (in TypeScript/JavaScript, the statement holding them) is
    /// left out with an error diagnostic. Bounds the parsers' recursion;
    /// deeper nesting could overflow the stack.
    #[arg(long, value_name = "N", default_value_t = outline_core::DEFAULT_MAX_NESTING,
          value_parser = clap::value_parser!(u32)
              .range(1..=i64::from(outline_core::MAX_NESTING_CAP)))]
    pub max_nesting: u32,
    /// Do not read files larger than BYTES: walked ones are skipped with a
    /// note, named ones are an error. Bounds memory (about 10 times the
    /// file's size while it is parsed).
    #[arg(long, value_name = "BYTES", default_value_t = ast_outline::DEFAULT_MAX_FILE_SIZE)]
    pub max_file_size: u64,
}

impl ExtractionArgs {
    /// The extraction options these flags ask for, with the project
    /// settings' block threshold when `--block-threshold` is not given.
    pub fn options(
        &self,
        settings: &ast_outline_settings::Settings,
    ) -> outline_core::OutlineOptions {
        outline_core::OutlineOptions {
            block_threshold: self.block_threshold.unwrap_or(settings.block_threshold),
            max_nesting: self.max_nesting,
        }
    }
}

/// Flags of `read`.
#[derive(Debug, Args)]
pub struct ReadArgs {
    /// What to print: PATH:LINE:QUALNAME (a symbol id), PATH:QUALNAME (or a plain
    /// name), PATH:LINE (the innermost symbol there) or PATH:START-END (lines).
    #[arg(required = true, value_name = "TARGET")]
    pub targets: Vec<String>,
    /// Extraction settings.
    #[command(flatten)]
    pub extraction: ExtractionArgs,
}

/// Flags of `at`.
#[derive(Debug, Args)]
pub struct AtArgs {
    /// PATH:LINE (1-based), one or more.
    #[arg(required = true, value_name = "PATH:LINE")]
    pub targets: Vec<String>,
    /// Extraction settings.
    #[command(flatten)]
    pub extraction: ExtractionArgs,
}

/// Flags of `search`.
#[derive(Debug, Args)]
pub struct SearchArgs {
    /// The text to find on one line (literal unless --regex). One that
    /// starts with `-` comes after `--` (`search -- -x`), as in ripgrep:
    /// otherwise `-C1 PATTERN` would search for `-C1`.
    #[arg(value_name = "PATTERN")]
    pub pattern: String,
    /// Files and directories to search (default: the current directory).
    #[arg(value_name = "PATH")]
    pub paths: Vec<PathBuf>,
    /// Read PATTERN as a regular expression (Rust regex syntax, as ripgrep's).
    #[arg(short = 'e', long)]
    pub regex: bool,
    /// Ignore case.
    #[arg(short = 'i', long, conflicts_with = "smart_case")]
    pub ignore_case: bool,
    /// Ignore case unless PATTERN has an upper-case letter.
    #[arg(short = 'S', long)]
    pub smart_case: bool,
    /// Only whole-word matches.
    #[arg(short = 'w', long)]
    pub word: bool,
    /// Only paths matching GLOB (`*.py`), or not (`!tests/**`); repeatable, the last glob a path matches decides (put `!` globs last).
    #[arg(short = 'g', long = "glob", value_name = "GLOB")]
    pub globs: Vec<String>,
    /// Show N lines before and after each hit, under its symbol (text
    /// output; at most 20), as `L13- text`.
    #[arg(short = 'C', long = "context", value_name = "N", default_value_t = 0,
          value_parser = clap::value_parser!(u32).range(0..=20))]
    pub context: u32,
    /// Text (default) or JSON Lines, one object per hit (no budget).
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
    /// Largest text result, in o200k_base tokens; what is left out is said
    /// (default: the settings' max_tokens.search, else 2000).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    pub max_tokens: Option<u32>,
    /// Also search hidden files and directories.
    #[arg(long)]
    pub hidden: bool,
    /// Do not honour .gitignore, .ignore and git exclude files.
    #[arg(long)]
    pub no_ignore: bool,
    /// Neither read nor write the outline cache.
    #[arg(long)]
    pub no_cache: bool,
    /// Extraction settings.
    #[command(flatten)]
    pub extraction: ExtractionArgs,
}

/// Flags of `mcp`.
#[derive(Debug, Args)]
pub struct McpArgs {
    /// The directory whose files the tools may read; paths outside it
    /// (absolute, `..`, or through symbolic links) are refused.
    #[arg(long, value_name = "DIR", default_value = ".")]
    pub root: PathBuf,
    /// How the cross-file tools' index follows changes.
    #[command(flatten)]
    pub live: LiveFlags,
}

/// How a live index follows changes (`watch`, `lsp`, `mcp`).
#[derive(Debug, Clone, Args)]
pub struct LiveFlags {
    /// Events for one file within this window are merged into one update
    /// (milliseconds). A query reads what is pending at once.
    #[arg(long, value_name = "MS", default_value_t = 200)]
    pub debounce_ms: u64,
    /// When more files than this are pending (a checkout, a formatter over
    /// the tree), run one full refresh instead of queueing them.
    #[arg(long, value_name = "N", default_value_t = 1_000,
          value_parser = clap::value_parser!(u32).range(1..))]
    pub threshold: u32,
    /// Do not watch the tree: follow only the editor's buffers (lsp) or
    /// refresh before each answer (mcp).
    #[arg(long)]
    pub no_watch: bool,
}

impl LiveFlags {
    /// These flags as [`ast_outline_live::LiveOptions`].
    pub fn options(&self) -> ast_outline_live::LiveOptions {
        ast_outline_live::LiveOptions {
            debounce: std::time::Duration::from_millis(self.debounce_ms),
            threshold: self.threshold as usize,
            watch: !self.no_watch,
        }
    }
}

/// Flags of `lsp`.
#[derive(Debug, Args)]
pub struct LiveArgs {
    /// The project root (default: the client's workspace folder or root
    /// URI, else the current directory).
    #[arg(long, value_name = "DIR")]
    pub root: Option<PathBuf>,
    /// The database (default ROOT/.ast-outline/index.sqlite).
    #[arg(long, value_name = "FILE")]
    pub db: Option<PathBuf>,
    /// How the index follows changes.
    #[command(flatten)]
    pub live: LiveFlags,
}

impl LiveArgs {
    /// These flags as [`ast_outline_lsp::LspOptions`].
    pub fn options(&self) -> ast_outline_lsp::LspOptions {
        ast_outline_lsp::LspOptions {
            root: self.root.clone(),
            db: self.db.clone(),
            live: self.live.options(),
        }
    }
}

/// Flags of `watch`.
#[derive(Debug, Args)]
pub struct WatchArgs {
    /// The project root to index and watch.
    #[arg(value_name = "ROOT", default_value = ".")]
    pub root: PathBuf,
    /// The database (default ROOT/.ast-outline/index.sqlite).
    #[arg(long, value_name = "FILE")]
    pub db: Option<PathBuf>,
    /// Output format: `text` (a line per update) or `json` (an object per
    /// line).
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
    /// How the index follows changes.
    #[command(flatten)]
    pub live: LiveFlags,
}

/// Flags of `tools`.
#[derive(Debug, Args)]
pub struct ToolsArgs {
    /// The shape of the definitions: OpenAI function calling, Anthropic tool
    /// use, or MCP `tools/list`.
    #[arg(long, value_enum, default_value_t = ToolsFormat::Mcp)]
    pub format: ToolsFormat,
}

/// Output formats of `tools`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ToolsFormat {
    /// `[{"type": "function", "function": {"name", "description", "parameters"}}]`.
    Openai,
    /// `[{"name", "description", "input_schema"}]`.
    Anthropic,
    /// `{"tools": [{"name", "description", "inputSchema", …}]}`, as `tools/list`.
    Mcp,
}

/// Output formats of `outline`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// Compact text (`outline`: one line per symbol; index queries: grouped
    /// by file).
    Text,
    /// JSON (`outline`: JSON Lines, one object per file; index queries and
    /// `index`: one object).
    Json,
}

/// Where the index is and how queries print.
#[derive(Debug, Args)]
pub struct IndexLocation {
    /// The project root: files are walked from here (honouring .gitignore,
    /// skipping hidden files and .ast-outline/), and paths in targets and
    /// output are relative to it.
    #[arg(long, value_name = "DIR", default_value = ".")]
    pub root: PathBuf,
    /// The database (default ROOT/.ast-outline/index.sqlite). An index
    /// refreshed from another root is refused, not refreshed from this one.
    #[arg(long, value_name = "FILE")]
    pub db: Option<PathBuf>,
    /// Output format: `text` (grouped by file) or `json` (one object).
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
    /// Query the index as it is, without refreshing it first.
    #[arg(long)]
    pub no_refresh: bool,
}

impl IndexLocation {
    /// Where the index is, as [`index::open::Location`].
    pub fn location(&self) -> index::open::Location {
        index::open::Location {
            root: self.root.clone(),
            db: self.db.clone(),
            no_refresh: self.no_refresh,
        }
    }
}

/// Flags of `index`.
#[derive(Debug, Args)]
pub struct IndexArgs {
    /// The project root to index.
    #[arg(value_name = "ROOT", default_value = ".")]
    pub root: PathBuf,
    /// The database (default ROOT/.ast-outline/index.sqlite). An index
    /// refreshed from another root is refused, not refreshed from this one.
    #[arg(long, value_name = "FILE")]
    pub db: Option<PathBuf>,
    /// Output format of the summary.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
    /// Print no notes about files that could not be indexed.
    #[arg(short, long)]
    pub quiet: bool,
    /// Refresh only these files (edited or deleted since the last refresh;
    /// paths relative to the working directory, inside ROOT) instead of
    /// looking at every file of ROOT. A source file the index does not hold
    /// yet, a directory, or a settings file (`*.json`, `*.toml`, dotfiles
    /// such as `.gitignore`) makes it a refresh of every file; other files,
    /// and missing source files the index does not hold, are skipped.
    #[arg(long, value_name = "PATH", num_args = 1..)]
    pub changed: Vec<PathBuf>,
}

/// Flags of `callees` and `hierarchy`.
#[derive(Debug, Args)]
pub struct QueryArgs {
    /// The definition: an id, PATH:QUALNAME, PATH:LINE or PATH:LINE:COL.
    #[arg(value_name = "TARGET")]
    pub target: String,
    /// Index location and output.
    #[command(flatten)]
    pub location: IndexLocation,
}

/// Flags of `refs`.
#[derive(Debug, Args)]
pub struct RefsArgs {
    /// The definition: an id, PATH:QUALNAME, PATH:LINE or PATH:LINE:COL.
    #[arg(value_name = "TARGET")]
    pub target: String,
    /// Also list unresolved references that have this definition among
    /// their name-only candidates (marked `candidate`). Without it, only
    /// those whose one same-named definition in the project is this one,
    /// in a file the calling file imports, are listed (`via name_imported`).
    #[arg(long)]
    pub candidates: bool,
    /// Index location and output.
    #[command(flatten)]
    pub location: IndexLocation,
}

/// Flags of `callers`.
#[derive(Debug, Args)]
pub struct CallersArgs {
    /// The definition: an id, PATH:QUALNAME, PATH:LINE or PATH:LINE:COL.
    #[arg(value_name = "TARGET")]
    pub target: String,
    /// Levels of callers: 1 = direct callers, 2 = also their callers, …
    /// (at most 100).
    #[arg(long, value_name = "N", default_value_t = 1,
          value_parser = clap::value_parser!(u32).range(1..=100))]
    pub depth: u32,
    /// Index location and output.
    #[command(flatten)]
    pub location: IndexLocation,
}

/// Flags of `tests`.
#[derive(Debug, Args)]
pub struct TestsArgs {
    /// The definition: an id, PATH:QUALNAME, PATH:LINE or PATH:LINE:COL.
    #[arg(value_name = "TARGET")]
    pub target: String,
    /// Most calls between a test and the definition (1 = tests that call
    /// it directly; at most 100).
    #[arg(long, value_name = "N", default_value_t = index::impact::DEFAULT_TEST_DEPTH,
          value_parser = clap::value_parser!(u32).range(1..=100))]
    pub depth: u32,
    /// Largest text output in o200k_base tokens (default: the settings'
    /// max_tokens.tests, else 4000); what is left out is said.
    #[arg(long, value_name = "N",
          value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..))]
    pub max_tokens: Option<usize>,
    /// Index location and output.
    #[command(flatten)]
    pub location: IndexLocation,
}

/// Flags of `impact`.
#[derive(Debug, Args)]
pub struct ImpactArgs {
    /// Compare the working tree with this revision instead of HEAD.
    #[arg(long, value_name = "REV", conflicts_with = "diff")]
    pub base: Option<String>,
    /// Read a unified diff from FILE (`-`: standard input) instead of
    /// asking git; its paths are relative to the root.
    #[arg(long, value_name = "FILE")]
    pub diff: Option<PathBuf>,
    /// Most calls between a test and a changed definition.
    #[arg(long, value_name = "N", default_value_t = index::impact::DEFAULT_TEST_DEPTH,
          value_parser = clap::value_parser!(u32).range(1..=100))]
    pub depth: u32,
    /// Largest text output in o200k_base tokens (default: the settings'
    /// max_tokens.impact, else 6000); what is left out is said.
    #[arg(long, value_name = "N",
          value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..))]
    pub max_tokens: Option<usize>,
    /// Index location and output.
    #[command(flatten)]
    pub location: IndexLocation,
}

/// Flags of `config`.
#[derive(Debug, Args)]
pub struct ConfigArgs {
    /// The project root whose settings to print.
    #[arg(long, value_name = "DIR", default_value = ".")]
    pub root: PathBuf,
    /// `text` (TOML with a comment naming each value's source) or `json`.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
}

/// Flags of `defs`.
#[derive(Debug, Args)]
pub struct DefsArgs {
    /// A name (`User`) or qualname (`User.save`).
    #[arg(value_name = "NAME")]
    pub name: String,
    /// Index location and output.
    #[command(flatten)]
    pub location: IndexLocation,
}

/// Flags of `context`.
#[derive(Debug, Args)]
pub struct ContextArgs {
    /// The position: PATH:LINE:COL (the name there, or what it names),
    /// PATH:LINE (the innermost definition holding the line), or any TARGET.
    #[arg(value_name = "PATH:LINE[:COL]")]
    pub target: String,
    /// What to add after the definition (default: the settings'
    /// context.kind, else definition).
    #[arg(long, value_enum)]
    pub kind: Option<ContextKind>,
    /// Largest output in o200k_base tokens (default: the settings'
    /// max_tokens.context, else 4000); blocks that do not fit are cut and
    /// the output says so.
    #[arg(long, value_name = "N",
          value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..))]
    pub max_tokens: Option<usize>,
    /// Index location and output.
    #[command(flatten)]
    pub location: IndexLocation,
}

/// The relations `context` adds after the definition.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ContextKind {
    /// Only the definition.
    Definition,
    /// Resolved references, each with the lines around it.
    References,
    /// The definitions that call it (direct callers).
    Callers,
    /// Supertypes and subtypes, transitively.
    #[value(name = "type_hierarchy", alias = "type-hierarchy")]
    TypeHierarchy,
    /// Callers, references and type hierarchy, ranked by the settings'
    /// context.weights.
    All,
    /// Instead of the definition: its signature, then the symbols shaped
    /// like it in its file and directory (same kind, shared bases or
    /// traits, decorators, name pattern, parameters), ranked, each with
    /// why; the first two with their first lines.
    Siblings,
}

impl From<ContextKind> for index::context::ContextKind {
    fn from(kind: ContextKind) -> index::context::ContextKind {
        match kind {
            ContextKind::Definition => index::context::ContextKind::Definition,
            ContextKind::References => index::context::ContextKind::References,
            ContextKind::Callers => index::context::ContextKind::Callers,
            ContextKind::TypeHierarchy => index::context::ContextKind::TypeHierarchy,
            ContextKind::All => index::context::ContextKind::All,
            ContextKind::Siblings => index::context::ContextKind::Siblings,
        }
    }
}

/// Flags of `export`.
#[derive(Debug, Args)]
pub struct ExportArgs {
    /// The project root (as for the queries).
    #[arg(long, value_name = "DIR", default_value = ".")]
    pub root: PathBuf,
    /// The database (default ROOT/.ast-outline/index.sqlite).
    #[arg(long, value_name = "FILE")]
    pub db: Option<PathBuf>,
    /// The export format: `json` (docs/export-schema.md) or `scip` (a SCIP
    /// index, protobuf, for code-intelligence servers).
    #[arg(long, value_enum, default_value_t = ExportFormat::Json)]
    pub format: ExportFormat,
    /// Export the index as it is, without refreshing it first.
    #[arg(long)]
    pub no_refresh: bool,
}

/// Formats of `export`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ExportFormat {
    /// One JSON document (`docs/export-schema.md`).
    Json,
    /// A SCIP index (Sourcegraph's protobuf format, `scip.proto`): binary,
    /// redirect it to a file such as `index.scip`.
    Scip,
}
