//! Reading one symbol or line range: `PATH:LINE:QUALNAME` (an id),
//! `PATH:QUALNAME`, `PATH:LINE` or `PATH:START-END` ([`read`]), printed
//! after a header line.
//!
//! The header is one line, `==> PATH:START-END kind qualname <==`, naming the
//! real lines printed (decorators and a preceding doc comment included). When
//! an id's start line no longer matches because the file changed, the symbol is
//! found again by its qualname and the header says it moved. A block's id is
//! found whatever block threshold it was issued under.
//!
//! ```
//! let dir = tempfile::tempdir()?;
//! let path = dir.path().join("shop.py");
//! std::fs::write(&path, "class Repo:\n    def find(self, id):\n        return id\n")?;
//! let options = ast_outline::OutlineOptions::default();
//! let target = format!("{}:2:Repo.find", path.display());
//! let read = ast_outline::read::read(&target, &options, ast_outline::DEFAULT_MAX_FILE_SIZE)?;
//! assert!(read.text.ends_with(":2-3 method Repo.find <==\n    def find(self, id):\n        return id\n"));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::path::Path;

use outline_core::{
    FileOutline, Identity, Language, LineIndex, OutlineOptions, Resolution, Selector, Symbol,
    SymbolKind, TargetError, resolve, split_target,
};

use crate::{SourceText, outline_source_as};

/// What [`read`] found: the header line and the lines, and notes for the
/// user (the decoding notes of a file whose printed lines hold a replaced
/// byte, each `PATH:LINE:COLUMN: note: …`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Read {
    /// The header line, then the lines exactly as in the file (decoded to
    /// UTF-8), ending with a newline.
    pub text: String,
    /// Notes to show the user beside the text.
    pub notes: Vec<String>,
}

/// The header and lines of `target` (a path on disk, `:`, and a selector:
/// an id, a qualname, a line or a line range; see [`split_target`]); files
/// larger than `max_file_size` bytes are not read.
///
/// # Errors
/// A message saying why there is nothing to read: no such file (or a
/// directory), a malformed selector, an unreadable, binary or too large
/// file, no such symbol (with the nearest names), several symbols (their
/// ids), or a line past the end of the file.
pub fn read(target: &str, options: &OutlineOptions, max_file_size: u64) -> Result<Read, String> {
    let (path, selector) = match split_target(target, |p| Path::new(p).is_file()) {
        Ok(split) => split,
        Err(TargetError::Selector { error, .. }) => return Err(format!("{target}: {error}")),
        Err(TargetError::NoFile) => return Err(no_file(target)),
    };
    let source =
        SourceText::read_at_most(Path::new(path), Language::from_path(path), max_file_size)
            .map_err(|e| e.to_string())?;
    let display = crate::walk::display_path(Path::new(path));
    let passage =
        locate(&display, &source.text, None, &[], &selector, options).map_err(|miss| {
            miss.message(
                target,
                &format!("list its symbols with `ast-outline outline {display}`"),
            )
        })?;
    let index = LineIndex::new(source.text_without_bom());
    let (start, end, text) = passage_lines(&display, &index, passage.start, passage.end)?;
    // The lines printed are the decoded text: say so when they hold a
    // replaced byte (invalid UTF-8 shown as U+FFFD).
    let mut notes = Vec::new();
    if text.contains('\u{fffd}') {
        for note in &source.notes {
            notes.push(format!(
                "{display}:{}:{}: note: {}",
                note.line, note.column, note.message
            ));
        }
    }
    Ok(Read {
        text: header(&display, start, end, passage.label.as_deref()) + &text,
        notes,
    })
}

/// A symbol or line range found in one file: the lines to print and what they are.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Passage {
    /// First line (1-based): a symbol's preceding doc comment included.
    pub start: u32,
    /// Last line (1-based, inclusive); may lie past the end of the file for a range.
    pub end: u32,
    /// What the lines are (`method Repo.find`, with a note when the id moved);
    /// `None` for a plain line range.
    pub label: Option<String>,
    /// The start line an id was issued with, when the symbol was found again
    /// at other lines because the file changed.
    pub moved_from: Option<u32>,
    /// The named symbols enclosing it, outermost first, each as a [`summary`]
    /// line (`L3-40 class Repo(Base)`).
    pub enclosing: Vec<String>,
    /// The first line of a preceding doc comment included before the symbol's
    /// own start line (JSDoc, `///`).
    pub doc_from: Option<u32>,
    /// The symbol's children, each as `id  summary`, to read parts of it.
    pub parts: Vec<String>,
    /// The symbol's id; `None` for a plain line range.
    pub id: Option<String>,
}

/// Why a selector names nothing to read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Miss {
    /// The file's language is unknown, so only line ranges can be read.
    UnknownLanguage(String),
    /// Several symbols match: `id  summary` lines, in source order.
    Ambiguous {
        /// How many match.
        total: usize,
        /// The first [`MOST_CANDIDATES`] of them.
        shown: Vec<String>,
    },
    /// The symbol the id named in an earlier version of the file is gone.
    Gone {
        /// The file looked in.
        path: String,
        /// What the id named (`block `if x` in f`).
        what: String,
        /// `id  summary` lines of the symbols of the same qualname and kind left.
        others: Vec<String>,
    },
    /// The file could not be outlined at all (its parser crashed, ran out
    /// of time or memory: [`FileOutline::not_outlined`]), so it has no
    /// symbols; only line ranges can be read.
    NotOutlined {
        /// The file looked in.
        path: String,
        /// Why it was not outlined.
        why: String,
        /// Its line count.
        lines: u32,
    },
    /// Nothing matches: `id  summary` lines of the nearest names (maybe none).
    NotFound {
        /// The file looked in.
        path: String,
        /// The nearest names, best first.
        suggestions: Vec<String>,
    },
}

impl Miss {
    /// The message for `target`; `how_to_list` tells the reader how to list the
    /// file's symbols when there is no suggestion.
    pub fn message(&self, target: &str, how_to_list: &str) -> String {
        match self {
            Miss::UnknownLanguage(path) => format!(
                "{path}: not a language ast-outline knows; only START-END ranges can be read"
            ),
            Miss::Ambiguous { total, shown } => {
                let mut message = format!("{target}: {total} symbols match; read one by its id:");
                for line in shown {
                    message.push_str(&format!("\n  {line}"));
                }
                if *total > shown.len() {
                    message.push_str(&format!(
                        "\n  (first {} of {total}; {how_to_list})",
                        shown.len()
                    ));
                }
                message
            }
            Miss::Gone { path, what, others } => {
                let mut message = format!(
                    "{target}: the {what} this id named is gone from {path} (the file changed \
                     since the id was issued)"
                );
                if others.is_empty() {
                    message.push_str(&format!("; {how_to_list}"));
                } else {
                    message.push_str("; did you mean:");
                    for line in others {
                        message.push_str(&format!("\n  {line}"));
                    }
                }
                message
            }
            Miss::NotOutlined { path, why, lines } => format!(
                "{target}: {path} has no symbols, it was not outlined: {why}; read it by lines \
                 instead ({path}:1-{lines})"
            ),
            Miss::NotFound { path, suggestions } => {
                let mut message = format!("{target}: no such symbol in {path}");
                if suggestions.is_empty() {
                    message.push_str(&format!("; {how_to_list}"));
                } else {
                    message.push_str("; did you mean:");
                    for line in suggestions {
                        message.push_str(&format!("\n  {line}"));
                    }
                }
                message
            }
        }
    }
}

/// Finds what `selector` names in `text`, the source of `display` (whose
/// extension gives the language), looking symbols up in `outline` (made from
/// `text` with `options` when not given). A block's id is found whatever block
/// threshold it was issued under.
///
/// An id whose line no longer holds its qualname is looked up in `earlier`
/// (texts of the file this id may have been issued from, newest first, each
/// different from `text`): what it named there is found again in `text` (the
/// passage says it moved because the file changed) or reported gone. Without
/// an earlier text naming it, a single symbol of the kind the id can name is
/// taken (the passage says where the id said it starts), else the candidates
/// are listed: never a different, larger symbol.
///
/// # Errors
/// A [`Miss`] when the language is unknown (for a symbol), several symbols
/// match, none does, or the symbol an earlier version had is gone.
pub fn locate(
    display: &str,
    text: &str,
    outline: Option<&FileOutline>,
    earlier: &[&str],
    selector: &Selector,
    options: &OutlineOptions,
) -> Result<Passage, Miss> {
    let range = |start, end, label: Option<&str>| Passage {
        start,
        end,
        label: label.map(str::to_owned),
        moved_from: None,
        enclosing: Vec::new(),
        doc_from: None,
        parts: Vec::new(),
        id: None,
    };
    if let Selector::Lines { start, end } = selector {
        return Ok(range(*start, *end, None));
    }
    let language =
        Language::from_path(display).ok_or_else(|| Miss::UnknownLanguage(display.to_owned()))?;
    let made;
    let outline = match outline {
        Some(outline) => outline,
        None => {
            made = outline_source_as(display, language, text, options);
            &made
        }
    };
    let listed = |symbols: &[&Symbol]| -> Vec<String> {
        symbols
            .iter()
            .map(|s| format!("{}  {}", s.id, summary(s)))
            .collect()
    };
    let resolution = resolve(outline, selector);
    let (outline, resolution, changed) = match (selector, resolution) {
        (Selector::Id { .. }, Resolution::Found(symbol)) => {
            (outline, Resolution::Found(symbol), false)
        }
        (Selector::Id { line, qualname }, resolution) => {
            // A block's id was issued under some --block-threshold: look for
            // that exact block with every control-flow statement split out.
            // Only a line inside a symbol of that qualname (or a module-level
            // line for an empty one) can start such a block; the file is
            // parsed again only then, or to look in earlier versions.
            let mut every_block = options.clone();
            every_block.block_threshold = 1;
            let mut may_be_block = qualname.is_empty();
            outline.walk(|s| {
                may_be_block |= s.kind != SymbolKind::Block
                    && s.qualname == *qualname
                    && s.start_line < *line
                    && *line <= s.end_line;
            });
            if !may_be_block && earlier.is_empty() {
                return match resolution {
                    Resolution::Moved { symbol, from_line } => {
                        Ok(passage_of(outline, symbol, Some((from_line, false))))
                    }
                    other => settle(outline, other, listed),
                };
            }
            let finest = outline_source_as(display, language, text, &every_block);
            if let Resolution::Found(block) = resolve(&finest, selector)
                && block.kind == SymbolKind::Block
            {
                return Ok(passage_of(&finest, block, None));
            }
            // What the id named in the version it was issued from, found again.
            for old in earlier {
                let old = outline_source_as(display, language, old, &every_block);
                let Some(identity) = Identity::of(&old, *line, qualname) else {
                    continue;
                };
                return match identity.find(&finest) {
                    Some(symbol) => Ok(passage_of(&finest, symbol, Some((*line, true)))),
                    None => {
                        let mut others = Vec::new();
                        finest.walk(|s| {
                            if s.qualname == identity.qualname && s.kind == identity.kind {
                                others.push(s);
                            }
                        });
                        if others.is_empty()
                            && let Resolution::NotFound { suggestions } = &resolution
                        {
                            others.clone_from(suggestions);
                        }
                        Err(Miss::Gone {
                            path: outline.path.clone(),
                            what: identity.describe(),
                            others: listed(&others),
                        })
                    }
                };
            }
            (outline, resolution, false)
        }
        (Selector::Line(line), Resolution::NotFound { .. }) => {
            // A file that was not outlined has no symbols to contain it.
            let label = match outline.not_outlined() {
                Some(why) => format!("(the file was not outlined: {why})"),
                None => "(no symbol contains this line)".to_owned(),
            };
            return Ok(range(*line, *line, Some(&label)));
        }
        (_, resolution) => (outline, resolution, false),
    };
    match resolution {
        Resolution::Moved { symbol, from_line } => {
            Ok(passage_of(outline, symbol, Some((from_line, changed))))
        }
        other => settle(outline, other, listed),
    }
}

/// The passage or miss of a resolution that is not a move.
fn settle(
    outline: &FileOutline,
    resolution: Resolution<'_>,
    listed: impl Fn(&[&Symbol]) -> Vec<String>,
) -> Result<Passage, Miss> {
    match resolution {
        Resolution::Found(symbol) | Resolution::Moved { symbol, .. } => {
            Ok(passage_of(outline, symbol, None))
        }
        Resolution::Lines { start, end } => Ok(Passage {
            start,
            end,
            label: None,
            moved_from: None,
            enclosing: Vec::new(),
            doc_from: None,
            parts: Vec::new(),
            id: None,
        }),
        Resolution::Ambiguous(candidates) => Err(Miss::Ambiguous {
            total: candidates.len(),
            shown: listed(&candidates[..candidates.len().min(MOST_CANDIDATES)]),
        }),
        Resolution::NotFound { .. } if let Some(why) = outline.not_outlined() => {
            Err(Miss::NotOutlined {
                path: outline.path.clone(),
                why: why.to_owned(),
                lines: outline.line_count,
            })
        }
        Resolution::NotFound { suggestions } => Err(Miss::NotFound {
            path: outline.path.clone(),
            suggestions: listed(&suggestions),
        }),
    }
}

/// Most candidates listed when several symbols match.
const MOST_CANDIDATES: usize = 50;

/// The passage of `symbol`, a symbol of `outline`; `moved` is the line the id
/// said and whether the file is known to have changed since it was issued.
fn passage_of(outline: &FileOutline, symbol: &Symbol, moved: Option<(u32, bool)>) -> Passage {
    let mut label = describe(symbol);
    match moved {
        Some((from_line, true)) => label.push_str(&format!(
            " (moved: the id said line {from_line}, it now starts at line {}; \
             the file changed since the id was issued)",
            symbol.start_line
        )),
        Some((from_line, false)) => label.push_str(&format!(
            " (found by qualname: the id said line {from_line}; it starts at line {})",
            symbol.start_line
        )),
        None => {}
    }
    let doc_from = symbol.doc_start_line.filter(|doc| *doc < symbol.start_line);
    if let Some(doc) = doc_from {
        label.push_str(&format!(" (doc comment from line {doc})"));
    }
    let mut enclosing = Vec::new();
    enclosing_symbols(&outline.symbols, symbol, &mut enclosing);
    Passage {
        start: doc_from.unwrap_or(symbol.start_line),
        end: symbol.end_line,
        label: Some(label),
        moved_from: moved.map(|(line, _)| line),
        enclosing: enclosing
            .iter()
            .filter(|s| s.kind != SymbolKind::Block)
            .map(|s| summary(s))
            .collect(),
        doc_from,
        parts: symbol
            .children
            .iter()
            .map(|s| format!("{}  {}", s.id, summary(s)))
            .collect(),
        id: Some(symbol.id.clone()),
    }
}

/// Pushes onto `path` the symbols of `symbols` (and below) that contain
/// `target`, outermost first; returns whether `target` was found.
fn enclosing_symbols<'a>(
    symbols: &'a [Symbol],
    target: &Symbol,
    path: &mut Vec<&'a Symbol>,
) -> bool {
    for symbol in symbols {
        if std::ptr::eq(symbol, target) {
            return true;
        }
        path.push(symbol);
        if enclosing_symbols(&symbol.children, target, path) {
            return true;
        }
        path.pop();
    }
    false
}

/// Why no file was found in `target`: the whole target is a file with nothing
/// after it, a prefix names something that is not a regular file, or nothing
/// exists.
fn no_file(target: &str) -> String {
    if Path::new(target).is_file() {
        return format!(
            "{target}: say what to read: {target}:QUALNAME, {target}:LINE:QUALNAME \
             or {target}:START-END"
        );
    }
    let not_regular = std::iter::once(target.len())
        .chain(target.match_indices(':').map(|(i, _)| i))
        .map(|i| &target[..i])
        .find(|p| !p.is_empty() && Path::new(p).exists() && !Path::new(p).is_file());
    // A prefix that is there but cannot be followed (a symbolic link loop,
    // a directory it may not enter): what the system says of it.
    let unreadable = std::iter::once(target.len())
        .chain(target.match_indices(':').map(|(i, _)| i))
        .map(|i| &target[..i])
        .filter(|p| !p.is_empty())
        .find_map(|p| match std::fs::metadata(p) {
            Err(error) if error.kind() != std::io::ErrorKind::NotFound => {
                std::fs::symlink_metadata(p).ok().map(|_| (p, error))
            }
            _ => None,
        });
    if not_regular.is_none()
        && let Some((path, error)) = unreadable
    {
        return format!("{path}: {error}");
    }
    match not_regular {
        Some(path) if Path::new(path).is_dir() => {
            format!(
                "{path}: is a directory; read a file in it (list them with `ast-outline outline {path}`)"
            )
        }
        Some(path) => format!("{path}: not a regular file; only files can be read"),
        None => format!(
            "{target}: no such file (write PATH:QUALNAME, PATH:LINE:QUALNAME or PATH:START-END)"
        ),
    }
}

fn describe(symbol: &Symbol) -> String {
    if symbol.kind == SymbolKind::Block {
        let owner = if symbol.qualname.is_empty() {
            "module level".to_owned()
        } else {
            symbol.qualname.clone()
        };
        format!("block `{}` in {owner}", symbol.name)
    } else {
        kind_and_name(symbol.kind.as_str(), &symbol.qualname)
    }
}

/// `method Repo.find`; a qualname that already starts with its kind word
/// (`impl From<usize> for Index`) is not given it twice.
pub(crate) fn kind_and_name(kind: &str, qualname: &str) -> String {
    match qualname.strip_prefix(kind) {
        Some(rest) if rest.starts_with(' ') => qualname.to_owned(),
        _ => format!("{kind} {qualname}"),
    }
}

/// The header line of a passage: `==> PATH:START-END LABEL <==`.
pub fn header(path: &str, start: u32, end: u32, label: Option<&str>) -> String {
    let path = outline_core::text::escape_controls(path);
    match label {
        Some(label) => format!("==> {path}:{start}-{end} {label} <==\n"),
        None => format!("==> {path}:{start}-{end} <==\n"),
    }
}

/// Lines `start..=end` of the file (`end` cut at its last line), ending with a
/// newline, with the real first and last line.
///
/// # Errors
/// A message when `start` lies past the end of the file.
pub fn passage_lines(
    path: &str,
    index: &LineIndex<'_>,
    start: u32,
    end: u32,
) -> Result<(u32, u32, String), String> {
    let line_count = index.line_count();
    let end = end.min(line_count);
    let text = index.lines_text(start, end).ok_or_else(|| {
        let lines = if line_count == 1 { "line" } else { "lines" };
        format!("{path}: has {line_count} {lines}; nothing at line {start}")
    })?;
    let mut text = text.to_owned();
    // End with a newline even after a last line without one, or a lone `\r`.
    if !text.ends_with('\n') {
        text.push('\n');
    }
    Ok((start, end, text))
}

/// `L13-17 @celsius.setter def celsius(self, value: float) -> None`: enough to
/// tell same-named candidates apart (the lines, then [`summary_detail`]).
pub fn summary(symbol: &Symbol) -> String {
    format!(
        "L{}-{} {}",
        symbol.start_line,
        symbol.end_line,
        summary_detail(symbol)
    )
}

/// What [`summary`] says after the lines: the decorators (each cut to 60
/// characters, `@` added unless it starts with `@` or `#`), then the
/// signature, or the kind and qualified name when there is none
/// (`@celsius.setter def celsius(self, value: float) -> None`,
/// ``block `it('adds')` in module level``). One line; the index stores it
/// for each definition, so its answers print what the outline would.
pub fn summary_detail(symbol: &Symbol) -> String {
    let mut line = String::new();
    for decorator in &symbol.decorators {
        if !decorator.starts_with(['@', '#']) {
            line.push('@');
        }
        line.push_str(&outline_core::text::truncate(decorator, 60));
        line.push(' ');
    }
    match &symbol.signature {
        Some(signature) => line.push_str(signature),
        None => line.push_str(&describe(symbol)),
    }
    line
}
