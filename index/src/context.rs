//! `context PATH:LINE[:COL]`: the symbol at a position and the ranked
//! context an assistant needs about it (its definition, then the references,
//! callers or type hierarchy asked for), each block with qualname, path,
//! lines, relation and code, cut to a token budget counted with the
//! `o200k_base` tokenizer ([`ast_outline_budget`]).
//!
//! Ranking: the definition first; then references (resolved ones only) or
//! direct callers, those in the target's own file first, then by path and
//! line; or supertypes (nearest first) then subtypes (nearest first). A
//! reference's block is its line with [`REFERENCE_CONTEXT`] lines around it
//! (overlapping windows of one file are merged); a caller's or a type's
//! block is its whole definition.
//!
//! Kind `siblings` is another answer: the symbols shaped like the target
//! in its file and directory, ranked with their reasons ([`siblings`]).
//!
//! Budget: blocks are added in rank order while the whole output (in the
//! chosen format, with its closing note) fits in `--max-tokens`; the first
//! block that does not fit whole is cut to its first lines that fit, and the
//! blocks after it are left out. The output says how many blocks were left
//! out or cut, and is never over the budget (an error when not even the
//! header fits).

use std::collections::HashMap;
use std::fmt::Write as _;
use std::path::Path;

use ast_outline::SourceText;
use ast_outline_budget as tokens;
use serde::Serialize;
use serde_json::json;

use crate::query::{self, SymbolRow};

pub mod siblings;

/// What a context answer holds after the definition.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ContextKind {
    /// Only the definition.
    Definition,
    /// Resolved references, each with the lines around it.
    References,
    /// The definitions that call it (direct callers).
    Callers,
    /// Supertypes and subtypes, transitively.
    TypeHierarchy,
    /// Every relation (callers, references, type hierarchy), in the order
    /// of [`ContextOptions::order`].
    All,
    /// The symbols shaped like it in its file and directory, ranked, with
    /// why (instead of its definition: its signature line only); see
    /// [`siblings`].
    Siblings,
}

impl ContextKind {
    /// The spelling on the command line and in output.
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
}

/// The form of a context answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// Blocks as text, each after a `[relation] qualname path:START-END` line.
    Text,
    /// One JSON object.
    Json,
}

/// What the project settings change in a context answer
/// (`.ast-outline.toml`: `context.docs`, `context.weights`,
/// `tests.in_queries`).
pub struct ContextOptions<'a> {
    /// Whether code blocks keep their doc comments and docstrings.
    pub docs: bool,
    /// The relation groups of [`ContextKind::All`], first ranked first.
    pub order: Vec<ContextKind>,
    /// Whether a block in this file may be shown (the definition always is).
    pub keep: Box<dyn Fn(&str) -> bool + 'a>,
}

impl Default for ContextOptions<'_> {
    fn default() -> Self {
        ContextOptions {
            docs: true,
            order: vec![
                ContextKind::Callers,
                ContextKind::References,
                ContextKind::TypeHierarchy,
            ],
            keep: Box::new(|_| true),
        }
    }
}

impl From<ast_outline_settings::ContextKind> for ContextKind {
    fn from(kind: ast_outline_settings::ContextKind) -> ContextKind {
        use ast_outline_settings::ContextKind as K;
        match kind {
            K::Definition => ContextKind::Definition,
            K::References => ContextKind::References,
            K::Callers => ContextKind::Callers,
            K::TypeHierarchy => ContextKind::TypeHierarchy,
            K::All => ContextKind::All,
            K::Siblings => ContextKind::Siblings,
        }
    }
}

impl<'a> ContextOptions<'a> {
    /// The options the project settings give (`context.docs`,
    /// `context.weights`, `tests.in_queries`).
    pub fn from_settings(settings: &'a ast_outline_settings::Settings) -> ContextOptions<'a> {
        ContextOptions {
            docs: settings.context_docs,
            order: settings
                .weights
                .order()
                .into_iter()
                .map(ContextKind::from)
                .collect(),
            keep: Box::new(move |path| settings.in_queries(path)),
        }
    }
}

/// Lines shown before and after a reference.
pub const REFERENCE_CONTEXT: u32 = 2;

/// One block of context.
#[derive(Debug, Clone, Serialize)]
struct Block {
    /// `definition`, `reference`, `caller`, `supertype`, `subtype`.
    relation: String,
    /// Qualname of the definition the code belongs to (`<module>` at module
    /// level).
    qualname: String,
    /// File path.
    path: String,
    /// First line shown (1-based).
    start_line: u32,
    /// Last line shown (1-based, inclusive).
    end_line: u32,
    /// What the block is about: the reference positions and roles, the
    /// depth of a type.
    #[serde(skip_serializing_if = "String::is_empty")]
    note: String,
    /// The code of those lines.
    code: String,
    /// Whether the code was cut to fit (only the first lines are shown).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    cut: bool,
    /// The number of each line of `code` (lines may be left out: docs).
    #[serde(skip)]
    numbers: Vec<u32>,
}

/// A block before its code is read.
struct Spec {
    relation: &'static str,
    qualname: String,
    path: String,
    start_line: u32,
    end_line: u32,
    note: String,
}

/// Files read so far, as lines.
#[derive(Default)]
struct Files(HashMap<String, Vec<String>>);

impl Files {
    /// Lines `start..=end` of `path`, each with its number; doc comments
    /// and docstrings left out unless `docs`.
    fn numbered(
        &mut self,
        root: &Path,
        path: &str,
        start: u32,
        end: u32,
        docs: bool,
    ) -> Vec<(u32, String)> {
        let text = self.lines(root, path, start, end);
        let numbered = text.lines().zip(start..).map(|(l, n)| (n, l.to_owned()));
        if docs {
            numbered.collect()
        } else {
            without_docs(path, numbered.collect())
        }
    }

    fn lines(&mut self, root: &Path, path: &str, start: u32, end: u32) -> String {
        let lines = self.0.entry(path.to_owned()).or_insert_with(|| {
            std::fs::read(root.join(path))
                .map(|bytes| {
                    SourceText::from_bytes(bytes, None)
                        .text
                        .lines()
                        .map(str::to_owned)
                        .collect()
                })
                .unwrap_or_default()
        });
        let from = usize::try_from(start.max(1) - 1).unwrap_or(usize::MAX);
        let to = usize::try_from(end).unwrap_or(usize::MAX).min(lines.len());
        lines
            .get(from..to)
            .map(|l| l.join("\n"))
            .unwrap_or_default()
    }
}

/// `lines` without doc comments (Rust `///`, `//!`, `#[doc = …]`;
/// TypeScript/JavaScript `/** … */`) and docstrings (Python: a string
/// statement right after a `def` or `class` header), by the languages'
/// lexical rules.
fn without_docs(path: &str, lines: Vec<(u32, String)>) -> Vec<(u32, String)> {
    let mut out = Vec::with_capacity(lines.len());
    if path.ends_with(".rs") {
        out.extend(lines.into_iter().filter(|(_, line)| {
            let t = line.trim_start();
            !(t.starts_with("///") || t.starts_with("//!") || t.starts_with("#[doc"))
        }));
    } else if path.ends_with(".py") || path.ends_with(".pyi") {
        // Inside a `def`/`class` header (it may span lines), and just
        // after one (its `:` seen).
        let mut in_header = false;
        let mut after_header = false;
        let mut closing: Option<&'static str> = None;
        for (number, line) in lines {
            let t = line.trim();
            if let Some(quote) = closing {
                if t.contains(quote) {
                    closing = None;
                }
                continue;
            }
            if after_header && !t.is_empty() {
                let body = t.trim_start_matches(['r', 'R', 'u', 'U']);
                if let Some(quote) = ["\"\"\"", "'''"].into_iter().find(|q| body.starts_with(q)) {
                    after_header = false;
                    if !body[3..].contains(quote) {
                        closing = Some(quote);
                    }
                    continue;
                }
            }
            if !t.is_empty() && !t.starts_with('#') {
                if t.starts_with("def ") || t.starts_with("async def ") || t.starts_with("class ") {
                    in_header = true;
                }
                after_header = in_header && t.ends_with(':');
                if after_header {
                    in_header = false;
                }
            }
            out.push((number, line));
        }
    } else {
        let mut in_doc = false;
        for (number, line) in lines {
            let t = line.trim_start();
            if !in_doc && t.starts_with("/**") {
                in_doc = !t.contains("*/");
                continue;
            }
            if in_doc {
                in_doc = !t.contains("*/");
                continue;
            }
            out.push((number, line));
        }
    }
    out
}

fn qualname_of(id: Option<&str>) -> String {
    id.and_then(|id| id.rsplit(':').next())
        .unwrap_or("<module>")
        .to_owned()
}

/// The ranked blocks after the definition, in files `options.keep`
/// keeps.
fn specs(
    index: &crate::Index,
    symbol: &SymbolRow,
    kind: ContextKind,
    options: &ContextOptions<'_>,
) -> Result<Vec<Spec>, crate::Error> {
    let mut out = specs_of(index, symbol, kind, options)?;
    out.retain(|spec| (options.keep)(&spec.path));
    Ok(out)
}

/// The label a reference's place carries in the context: what makes it
/// less than certain (`candidate`, `dynamic`), else nothing. A dynamic
/// reference found `via` a macro names an item a project macro makes.
fn certainty_label(certainty: &str, via: &str) -> &'static str {
    match certainty {
        "candidate" => " (candidate: name only)",
        "dynamic" if via == "macro" => {
            " (dynamic: an item this macro makes, no definition written)"
        }
        "dynamic" => " (dynamic: made at run time, a run confirms it)",
        _ => "",
    }
}

fn specs_of(
    index: &crate::Index,
    symbol: &SymbolRow,
    kind: ContextKind,
    options: &ContextOptions<'_>,
) -> Result<Vec<Spec>, crate::Error> {
    let conn = index.connection();
    let own_file_first = |path: &str| path != symbol.path;
    let mut out: Vec<Spec> = Vec::new();
    match kind {
        // Siblings are answered by `siblings::answer`, never as blocks.
        ContextKind::Definition | ContextKind::Siblings => {}
        ContextKind::All => {
            for group in &options.order {
                if !matches!(
                    group,
                    ContextKind::All | ContextKind::Definition | ContextKind::Siblings
                ) {
                    out.extend(specs_of(index, symbol, *group, options)?);
                }
            }
        }
        ContextKind::References => {
            let mut rows = query::refs(conn, &symbol.id, false)?;
            rows.sort_by(|a, b| {
                (own_file_first(&a.path), &a.path, a.line).cmp(&(
                    own_file_first(&b.path),
                    &b.path,
                    b.line,
                ))
            });
            for row in rows {
                let start = row.line.saturating_sub(REFERENCE_CONTEXT).max(1);
                let end = row.line + REFERENCE_CONTEXT;
                let label = certainty_label(&row.certainty, &row.via);
                let note = format!("L{}:{} {}{label}", row.line, row.column, row.role);
                if let Some(last) = out.last_mut()
                    && last.path == row.path
                    && start <= last.end_line + 1
                {
                    last.end_line = last.end_line.max(end);
                    let _ = write!(last.note, ", {note}");
                    continue;
                }
                out.push(Spec {
                    relation: "reference",
                    qualname: qualname_of(row.caller.as_deref()),
                    path: row.path,
                    start_line: start,
                    end_line: end,
                    note,
                });
            }
        }
        ContextKind::Callers => {
            let rows = query::callers(conn, &symbol.id, 1)?;
            let mut by_caller: Vec<(String, Vec<String>)> = Vec::new();
            for row in rows {
                let Some(caller) = row.call.caller.clone() else {
                    continue;
                };
                let label = certainty_label(&row.call.certainty, &row.call.via);
                let note = format!("calls at L{}:{}{label}", row.call.line, row.call.column);
                match by_caller.iter_mut().find(|(c, _)| *c == caller) {
                    Some((_, notes)) => notes.push(note),
                    None => by_caller.push((caller, vec![note])),
                }
            }
            let mut callers: Vec<(SymbolRow, Vec<String>)> = Vec::new();
            for (id, notes) in by_caller {
                if let Ok(row) = query::find_target(conn, &id) {
                    callers.push((row, notes));
                }
            }
            callers.sort_by(|(a, _), (b, _)| {
                (own_file_first(&a.path), &a.path, a.start_line).cmp(&(
                    own_file_first(&b.path),
                    &b.path,
                    b.start_line,
                ))
            });
            out.extend(callers.into_iter().map(|(row, notes)| Spec {
                relation: "caller",
                qualname: row.qualname,
                path: row.path,
                start_line: row.start_line,
                end_line: row.end_line,
                note: notes.join(", "),
            }));
        }
        ContextKind::TypeHierarchy => {
            let hierarchy = query::hierarchy(conn, &symbol.id)?;
            for (relation, list) in [
                ("supertype", hierarchy.supertypes),
                ("subtype", hierarchy.subtypes),
            ] {
                out.extend(list.into_iter().map(|related| Spec {
                    relation,
                    qualname: related.symbol.qualname,
                    path: related.symbol.path,
                    start_line: related.symbol.start_line,
                    end_line: related.symbol.end_line,
                    note: format!(
                        "depth {}, {relation} of {}",
                        related.depth,
                        related.via.rsplit(':').next().unwrap_or_default()
                    ),
                }));
            }
        }
    }
    Ok(out)
}

/// What the budget left out.
#[derive(Debug, Clone, Copy, Default, Serialize)]
struct Cut {
    /// Blocks left out entirely.
    omitted: usize,
    /// Whether the last block shown was cut to its first lines.
    truncated: bool,
}

fn render_text(symbol: &SymbolRow, kind: ContextKind, blocks: &[Block], cut: Cut) -> String {
    let mut out = format!(
        "context of {} ({} {}), {}\n",
        symbol.id,
        symbol.kind,
        symbol.qualname,
        kind.as_str()
    );
    for block in blocks {
        let note = if block.note.is_empty() {
            String::new()
        } else {
            format!(" ({})", block.note)
        };
        let _ = writeln!(
            out,
            "\n[{}] {} {}:{}-{}{note}",
            block.relation, block.qualname, block.path, block.start_line, block.end_line
        );
        out.push_str(&block.code);
        out.push('\n');
        if block.cut {
            out.push_str("[cut: the lines after these left out]\n");
        }
    }
    if cut.omitted > 0 {
        let _ = writeln!(
            out,
            "\n[cut: {} more left out to stay within the token budget]",
            crate::answers::plural(cut.omitted, "block")
        );
    }
    out
}

fn render_json(
    symbol: &SymbolRow,
    kind: ContextKind,
    blocks: &[Block],
    cut: Cut,
    budget: usize,
) -> String {
    format!(
        "{}\n",
        json!({
            "target": symbol,
            "kind": kind.as_str(),
            "max_tokens": budget,
            "encoding": tokens::ENCODING,
            "blocks": blocks,
            "cut": cut,
        })
    )
}

/// its definition, then the blocks `kind` asks for, ranked and cut to `budget`
/// `o200k_base` tokens (the whole output, in `format`, never exceeds it).
/// Code is read from the files under `root`.
///
/// # Errors
/// A message when the target names no single definition, a query fails, or
/// not even the header fits in `budget`.
pub fn context_answer(
    index: &crate::Index,
    root: &Path,
    target: &str,
    kind: ContextKind,
    budget: usize,
    format: Format,
) -> Result<String, String> {
    context_answer_with(
        index,
        root,
        target,
        kind,
        budget,
        format,
        &ContextOptions::default(),
    )
}

/// [`context_answer`] with the project settings' [`ContextOptions`].
///
/// # Errors
/// As [`context_answer`].
pub fn context_answer_with(
    index: &crate::Index,
    root: &Path,
    target: &str,
    kind: ContextKind,
    budget: usize,
    format: Format,
    options: &ContextOptions<'_>,
) -> Result<String, String> {
    let conn = index.connection();
    let symbol = query::find_target(conn, target).map_err(|e| e.to_string())?;
    if kind == ContextKind::Siblings {
        return siblings::answer(index, root, &symbol, budget, format, options);
    }
    let mut specs_list = vec![Spec {
        relation: "definition",
        qualname: symbol.qualname.clone(),
        path: symbol.path.clone(),
        start_line: symbol.start_line,
        end_line: symbol.end_line,
        note: String::new(),
    }];
    specs_list.extend(specs(index, &symbol, kind, options).map_err(|e| e.to_string())?);
    let render = |blocks: &[Block], cut: Cut| match format {
        Format::Text => render_text(&symbol, kind, blocks, cut),
        Format::Json => render_json(&symbol, kind, blocks, cut, budget),
    };
    let mut files = Files::default();
    let mut kept: Vec<Block> = Vec::new();
    let mut cut = Cut::default();
    let total = specs_list.len();
    for (i, spec) in specs_list.into_iter().enumerate() {
        // A reference's window keeps its docs (the reference may be in one).
        let docs = options.docs || spec.relation == "reference";
        let lines = files.numbered(root, &spec.path, spec.start_line, spec.end_line, docs);
        let numbers: Vec<u32> = lines.iter().map(|(n, _)| *n).collect();
        let code = lines
            .into_iter()
            .map(|(_, line)| line)
            .collect::<Vec<_>>()
            .join("\n");
        let block = Block {
            relation: spec.relation.to_owned(),
            qualname: spec.qualname,
            path: spec.path,
            start_line: spec.start_line,
            end_line: numbers.last().copied().unwrap_or(spec.start_line),
            note: spec.note,
            code,
            cut: false,
            numbers,
        };
        let after = Cut {
            omitted: total - i - 1,
            truncated: false,
        };
        kept.push(block);
        if tokens::fits(&render(&kept, after), budget) {
            continue;
        }
        // Cut this block to its first lines that fit, if any do.
        let Some(block) = kept.pop() else { break };
        let lines: Vec<&str> = block.code.lines().collect();
        let (mut low, mut high) = (0usize, lines.len().saturating_sub(1));
        let cut_block = |n: usize, block: &Block| Block {
            end_line: block
                .numbers
                .get(n.max(1) - 1)
                .copied()
                .unwrap_or(block.start_line),
            code: lines.get(..n).map(|l| l.join("\n")).unwrap_or_default(),
            cut: true,
            ..block.clone()
        };
        let with = Cut {
            omitted: total - i - 1,
            truncated: true,
        };
        while low < high {
            let middle = (low + high).div_ceil(2);
            let mut trial = kept.clone();
            trial.push(cut_block(middle, &block));
            if tokens::fits(&render(&trial, with), budget) {
                low = middle;
            } else {
                high = middle - 1;
            }
        }
        if low > 0 {
            let shortened = cut_block(low, &block);
            kept.push(shortened);
            cut = with;
        } else {
            cut = Cut {
                omitted: total - i,
                truncated: false,
            };
        }
        break;
    }
    // The closing note changes with what was left out: drop blocks until the
    // whole output fits.
    let mut text = render(&kept, cut);
    while !tokens::fits(&text, budget) {
        if kept.pop().is_none() {
            return Err(format!(
                "{budget} tokens is too small: not even the header fits (it takes {})",
                tokens::count(&text).unwrap_or(0)
            ));
        }
        cut.omitted += 1;
        cut.truncated = false;
        text = render(&kept, cut);
    }
    Ok(text)
}
