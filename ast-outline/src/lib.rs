//! # ast-outline
//!
//! Outline source files — every class, function, method, constant… with exact
//! 1-based inclusive line ranges, nesting and signatures — and read one symbol
//! back by its id. This crate is the library: it picks the language from the
//! file name and runs the right adapter (Python on ruff's parser,
//! TypeScript/JavaScript on swc, Rust on syn). The command-line tool is the
//! `ast-outline-cli` crate (binary `ast-outline`); the cross-file index, the
//! MCP and LSP servers are crates of their own, so this one pulls in no async
//! runtime, database, protocol or tokenizer.
//!
//! Entry points:
//! - a text: [`outline_source`] (below);
//! - a file on disk: [`outline_file`];
//! - a tree, walked with the gitignore rules, through the persistent cache:
//!   [`tree::outline_tree`] (its pieces: [`walk`], [`disk_cache`],
//!   [`tree::Outliner`]);
//! - one symbol by id, qualname, line or line range: [`read::read`] (and
//!   [`read::locate`] on a text already in memory);
//! - symbols by a name pattern across files: [`find`] (the pattern and the
//!   answer's text, shared by a walk and the index).
//!
//! ```
//! use ast_outline::{outline_source, OutlineOptions, SymbolKind};
//!
//! let source = "\
//! class Depot:
//!     @staticmethod
//!     async def ping(host: str, port: int = 8080) -> bool:
//!         \"\"\"Check that the depot answers.\"\"\"
//!         return True
//! ";
//! let outline = outline_source("depot.py", source, &OutlineOptions::default())?;
//! let ping = &outline.symbols[0].children[0];
//! assert_eq!(ping.kind, SymbolKind::Method);
//! assert_eq!((ping.start_line, ping.end_line), (2, 5));
//! assert_eq!(ping.id, "depot.py:2:Depot.ping");
//! assert_eq!(ping.signature.as_deref(), Some("async def ping(host: str, port: int = 8080) -> bool"));
//! assert_eq!(ping.doc.as_deref(), Some("Check that the depot answers."));
//! # Ok::<(), ast_outline::Error>(())
//! ```
//!
//! [`outline_file`] does the same for a file on disk (UTF-8, or the encoding a
//! Python file declares per PEP 263; invalid bytes are replaced, with a warning
//! diagnostic).
//!
//! Architecture: the model and renderers live in `outline-core` (no parser, no
//! I/O); each `lang-*` crate maps one parser's tree to that model (no I/O); this
//! crate is the edge where files are read, directories walked and cached.

pub mod around;
pub mod disk_cache;
mod error;
pub mod find;
pub mod read;
pub mod search;
mod source_file;
pub mod supervise;
pub mod tree;
pub mod walk;

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::Path;

pub use error::Error;
pub use outline_core::chunks;
pub use outline_core::{
    self, Diagnostic, FileOutline, Filter, Language, Modifier, Outline, OutlineOptions, Parameter,
    ParameterKind, Resolution, Selector, Severity, Symbol, SymbolKind, TextOptions, json_line,
    render_text, resolve,
};
pub use source_file::SourceText;

/// The build id the outline cache keys its entries with: a hash of the
/// sources that decide what an outline holds (`outline-core`, the `lang-*`
/// crates, this crate) and of `Cargo.lock`, computed by the build script.
pub const BUILD_ID: &str = env!("AST_OUTLINE_BUILD_ID");

/// The adapter for `language`: Python on ruff's parser, TypeScript/JavaScript
/// (also TSX/JSX) on swc, Rust on syn.
pub fn adapter(language: Language) -> &'static (dyn Outline + Sync) {
    match language {
        Language::Python => &lang_python::PythonOutline,
        Language::Typescript | Language::Tsx | Language::Javascript | Language::Jsx => {
            &lang_ts::TypeScriptOutline
        }
        Language::Rust => &lang_rust::RustOutline,
    }
}

/// The file extensions (with the dot) of every supported language.
pub fn supported_extensions() -> Vec<String> {
    Language::ALL
        .iter()
        .flat_map(|l| l.extensions().iter().map(|e| format!(".{e}")))
        .collect()
}

/// Outlines `source`, choosing the language from `path`'s extension. `path` is
/// used for the language and the symbol ids only; nothing is read from disk.
///
/// # Errors
/// [`Error::UnknownLanguage`] when the extension is not one ast-outline knows.
pub fn outline_source(
    path: &str,
    source: &str,
    options: &OutlineOptions,
) -> Result<FileOutline, Error> {
    let language = Language::from_path(path).ok_or_else(|| Error::UnknownLanguage {
        path: path.to_owned(),
    })?;
    Ok(outline_source_as(path, language, source, options))
}

/// Default largest file read, in bytes (64 MiB): larger files are skipped
/// when walked and an error when named (`--max-file-size`). Outlining takes
/// about ten times a file's size in memory while it is parsed.
pub const DEFAULT_MAX_FILE_SIZE: u64 = 64 << 20;

/// Stack the adapters run on, in bytes: parsers, tree walks and the drop of a
/// tree recurse once per nesting level. It is virtual memory, touched only as
/// deep as the input needs.
pub const PARSER_STACK_BYTES: usize = 256 << 20;

/// When less stack than this is left on the caller's thread, the adapter runs
/// on a fresh stack of [`PARSER_STACK_BYTES`] (on the same thread).
const PARSER_STACK_RED_ZONE: usize = 128 << 20;

/// Outlines `source` as `language`; `path` is used for the symbol ids only.
///
/// Safe on any thread: when the caller's stack has less than 128 MiB left
/// (a default 2 MiB or 8 MiB thread), the adapter runs on a fresh 256 MiB
/// stack ([`PARSER_STACK_BYTES`], allocated with the `stacker` crate on the same
/// thread), and brackets nested deeper than
/// [`OutlineOptions::max_nesting`] are not parsed, so deep nesting cannot
/// overflow the stack.
///
/// An adapter never panics by design; should one do so anyway, the panic is
/// caught and reported as an error diagnostic of an empty, partial outline.
///
/// When a supervisor is installed ([`supervise::install`]: the servers and
/// the command-line tool do), the parse runs in a worker process and a file
/// that crashes it, or passes its time or memory limit, gives an empty
/// partial outline with one error diagnostic.
pub fn outline_source_as(
    path: &str,
    language: Language,
    source: &str,
    options: &OutlineOptions,
) -> FileOutline {
    match supervise::parse(path, language, source, options, false) {
        Some((outline, _)) => outline,
        None => in_process(path, language, source, options),
    }
}

/// [`outline_source_as`] in this process, whether or not a supervisor is
/// installed (what a worker runs).
pub(crate) fn in_process(
    path: &str,
    language: Language,
    source: &str,
    options: &OutlineOptions,
) -> FileOutline {
    let adapter = adapter(language);
    let outlined = stacker::maybe_grow(PARSER_STACK_RED_ZONE, PARSER_STACK_BYTES, || {
        catch_unwind(AssertUnwindSafe(|| {
            adapter.outline(path, language, source, options)
        }))
    });
    outlined.unwrap_or_else(|_| {
        not_outlined(
            path,
            language,
            source,
            "not outlined: internal error in the language adapter; no symbols were extracted \
             (please report this file)"
                .to_owned(),
        )
    })
}

/// The outline of a file no adapter could outline: no symbols, the lines
/// counted, partial, and one error diagnostic at 1:1 saying why.
pub(crate) fn not_outlined(
    path: &str,
    language: Language,
    source: &str,
    message: String,
) -> FileOutline {
    let mut outline = outline_core::finish(
        path,
        language,
        outline_core::strip_bom(source),
        outline_core::Extracted::default(),
    );
    outline.partial = true;
    outline.diagnostics.push(Diagnostic {
        line: 1,
        column: 1,
        severity: Severity::Error,
        message,
    });
    outline
}

/// [`outline_source_as`] and the file's cross-reference facts from the same
/// parse ([`outline_core::Outline::outline_with_facts`]), with the same
/// stack and panic protection (a panic gives an empty partial outline and
/// facts marked unsupported) and the same supervision (a failed worker
/// gives empty facts). Used to build the index.
pub fn outline_source_with_facts(
    path: &str,
    language: Language,
    source: &str,
    options: &OutlineOptions,
) -> (FileOutline, outline_core::xref::Facts) {
    match supervise::parse(path, language, source, options, true) {
        Some((outline, facts)) => (outline, facts.unwrap_or_default()),
        None => in_process_with_facts(path, language, source, options),
    }
}

/// [`outline_source_with_facts`] in this process (what a worker runs).
pub(crate) fn in_process_with_facts(
    path: &str,
    language: Language,
    source: &str,
    options: &OutlineOptions,
) -> (FileOutline, outline_core::xref::Facts) {
    let adapter = adapter(language);
    let outlined = stacker::maybe_grow(PARSER_STACK_RED_ZONE, PARSER_STACK_BYTES, || {
        catch_unwind(AssertUnwindSafe(|| {
            adapter.outline_with_facts(path, language, source, options)
        }))
    });
    outlined.unwrap_or_else(|_| {
        let outline = in_process(path, language, source, options);
        (outline, outline_core::xref::Facts::default())
    })
}

/// Reads and outlines the file at `path`. The ids use `path` as given (with `\`
/// turned into `/`).
///
/// # Errors
/// [`Error::UnknownLanguage`], [`Error::Io`] when the file cannot be read,
/// [`Error::NotRegularFile`] for a FIFO, socket or device,
/// [`Error::TooLarge`] above [`DEFAULT_MAX_FILE_SIZE`], [`Error::Binary`] when
/// it holds NUL bytes.
pub fn outline_file(
    path: impl AsRef<Path>,
    options: &OutlineOptions,
) -> Result<FileOutline, Error> {
    let (display, language, source) = read_source(path.as_ref())?;
    Ok(source.outline(&display, language, options))
}

/// The file at `path` read for outlining: its display path, its language
/// (from the extension) and its text. Errors as [`outline_file`].
fn read_source(path: &Path) -> Result<(String, Language, SourceText), Error> {
    let display = walk::display_path(path);
    let language = Language::from_path(&display).ok_or_else(|| Error::UnknownLanguage {
        path: display.clone(),
    })?;
    let source = SourceText::read(path, Some(language))?;
    Ok((display, language, source))
}

/// The outline options [`chunk_source`] outlines with: the defaults, but
/// every body's control-flow blocks kept
/// ([`outline_core::chunks::CHUNK_BLOCK_THRESHOLD`]).
pub fn chunk_outline_options() -> OutlineOptions {
    OutlineOptions {
        block_threshold: outline_core::chunks::CHUNK_BLOCK_THRESHOLD,
        ..OutlineOptions::default()
    }
}

/// Cuts `source` into symbol-bounded chunks for retrieval (see
/// [`outline_core::chunks`]): one chunk per definition, a long one split at
/// its members or blocks, the lines between definitions grouped; at most
/// `options.max_tokens` tokens each as counted by `count` (the command-line
/// tool counts `o200k_base` tokens with the `ast-outline-budget` crate).
/// `path` names the language and goes into the ids; nothing is read.
///
/// ```
/// use ast_outline::chunks::ChunkOptions;
/// let source = "class A:\n    def f(self):\n        return 1\n";
/// let count = |text: &str| text.len() / 4;
/// let chunks = ast_outline::chunk_source("a.py", source, &ChunkOptions::default(), &count).unwrap();
/// assert_eq!(chunks.len(), 1);
/// assert_eq!((chunks[0].id.as_str(), chunks[0].start_line, chunks[0].end_line), ("a.py:1:A", 1, 3));
/// ```
///
/// # Errors
/// [`Error::UnknownLanguage`] when the extension is not one ast-outline knows.
pub fn chunk_source(
    path: &str,
    source: &str,
    options: &chunks::ChunkOptions,
    count: &dyn Fn(&str) -> usize,
) -> Result<Vec<chunks::Chunk>, Error> {
    let outline = outline_source(path, source, &chunk_outline_options())?;
    Ok(chunks::chunk(&outline, source, options, count))
}

/// Reads the file at `path` and cuts it as [`chunk_source`] does. The ids
/// and chunk paths use `path` as given (with `\` turned into `/`).
///
/// # Errors
/// As [`outline_file`].
pub fn chunk_file(
    path: impl AsRef<Path>,
    options: &chunks::ChunkOptions,
    count: &dyn Fn(&str) -> usize,
) -> Result<Vec<chunks::Chunk>, Error> {
    chunk_file_noted(path, options, count).map(|(chunks, _)| chunks)
}

/// [`chunk_file`], with the outline's diagnostics: the decoding notes
/// (invalid UTF-8 replaced by U+FFFD, with a warning) and the syntax errors
/// around which the chunks follow a recovered outline, in line order as
/// [`FileOutline::diagnostics`] has them.
///
/// # Errors
/// As [`outline_file`].
pub fn chunk_file_noted(
    path: impl AsRef<Path>,
    options: &chunks::ChunkOptions,
    count: &dyn Fn(&str) -> usize,
) -> Result<(Vec<chunks::Chunk>, Vec<outline_core::Diagnostic>), Error> {
    let (display, language, source) = read_source(path.as_ref())?;
    let mut outline = source.outline(&display, language, &chunk_outline_options());
    let chunks = chunks::chunk(&outline, &source.text, options, count);
    Ok((chunks, std::mem::take(&mut outline.diagnostics)))
}

impl SourceText {
    /// Outlines this text as `language`, putting the decoding notes (if any)
    /// before the parser's diagnostics.
    ///
    pub fn outline(&self, path: &str, language: Language, options: &OutlineOptions) -> FileOutline {
        let mut outline = outline_source_as(path, language, &self.text, options);
        if !self.notes.is_empty() {
            let parsed = std::mem::take(&mut outline.diagnostics);
            outline.diagnostics = self.notes.iter().cloned().chain(parsed).collect();
        }
        outline
    }
}

/// The README's Rust examples, compiled and run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../../README.md")]
struct ReadmeDoctests;

/// The library guide's examples (`docs/library.md`), compiled and run as
/// doctests.
#[cfg(doctest)]
#[doc = include_str!("../../docs/library.md")]
struct LibraryGuideDoctests;
