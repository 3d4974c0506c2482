//! The requests: each maps LSP params to a target or a query of the live
//! index and the rows back to LSP shapes. "Nothing here" is an empty
//! answer (`null` or `[]`), never an error: clients show errors loudly.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use index::Index;
use index::query::{self, SymbolRow};
use lsp_types::{
    CallHierarchyIncomingCallsParams, CallHierarchyOutgoingCallsParams, DocumentSymbolParams,
    GotoDefinitionParams, HoverParams, Position, Range, ReferenceParams,
    TextDocumentPositionParams, TypeHierarchySubtypesParams, WorkspaceSymbolParams,
};
use outline_core::{OutlineOptions, Symbol, SymbolKind};
use serde_json::{Value, json};

use super::convert::{self, Encoding};
use super::{Failure, INTERNAL_ERROR, INVALID_PARAMS, REQUEST_FAILED, Server};

/// Longest `workspace/symbol` query, in characters.
const MOST_QUERY_CHARS: usize = 1_000;

/// Most results of `workspace/symbol`.
const MOST_WORKSPACE_SYMBOLS: usize = 500;

fn internal(error: impl std::fmt::Display) -> Failure {
    (INTERNAL_ERROR, error.to_string())
}

/// Lines of files, read once per request, to turn character columns into
/// the client's encoding.
struct Lines<'s> {
    server: &'s Server,
    files: HashMap<PathBuf, Vec<String>>,
}

impl Lines<'_> {
    /// The LSP position of 1-based `line` and 1-based character `column` in
    /// the file at `path`.
    fn position(&mut self, path: &Path, line: u32, column: u32) -> Position {
        let line0 = line.saturating_sub(1);
        let chars = column.saturating_sub(1);
        if self.server.encoding == Encoding::Utf32 {
            return Position::new(line0, chars);
        }
        let server = self.server;
        let lines = self.files.entry(path.to_owned()).or_insert_with(|| {
            server
                .text(path)
                .map(|t| t.lines().map(str::to_owned).collect())
                .unwrap_or_default()
        });
        let text = lines.get(line0 as usize).map_or("", String::as_str);
        Position::new(line0, server.encoding.units_of(text, chars))
    }

    /// The range of a name `chars` characters long at 1-based `line` and
    /// `column`.
    fn name(&mut self, path: &Path, line: u32, column: u32, chars: u32) -> Range {
        Range::new(
            self.position(path, line, column),
            self.position(path, line, column + chars),
        )
    }
}

/// Whole lines `start..=end` (1-based) as a range: to the start of the line
/// after, so no line text is needed.
fn lines_range(start: u32, end: u32) -> Range {
    Range::new(
        Position::new(start.saturating_sub(1), 0),
        Position::new(end, 0),
    )
}

/// The 1-based line and character column of a definition's name, as the
/// index stores it (the start line when not found).
fn name_position(index: &Index, symbol: &SymbolRow) -> (u32, u32) {
    query::name_position(index.connection(), &symbol.id)
        .ok()
        .flatten()
        .unwrap_or((symbol.start_line, 1))
}

impl Server {
    fn lines(&self) -> Lines<'_> {
        Lines {
            server: self,
            files: HashMap::new(),
        }
    }

    /// The absolute path of an indexed display path.
    fn absolute(&self, display: &str) -> PathBuf {
        self.live.root().join(display)
    }

    /// The uri of an indexed display path.
    fn uri(&self, display: &str) -> Result<lsp_types::Uri, Failure> {
        convert::path_uri(&self.absolute(display))
            .ok_or_else(|| internal(format!("{display}: no file URI")))
    }

    /// The target `PATH:LINE:COL` at an LSP position.
    fn target_at(&self, at: &TextDocumentPositionParams) -> Result<Option<String>, Failure> {
        let Some(path) = self.path(&at.text_document.uri) else {
            return Err((INVALID_PARAMS, "not a file: URI".to_owned()));
        };
        let Some(display) = self.display(&path) else {
            return Ok(None);
        };
        let line0 = at.position.line;
        let chars = if self.encoding == Encoding::Utf32 {
            at.position.character
        } else {
            let text = self.text(&path).unwrap_or_default();
            let line = text.lines().nth(line0 as usize).unwrap_or("");
            self.encoding.chars_of(line, at.position.character)
        };
        // 1-based, in u64: a position of u32::MAX stays a line past the end.
        Ok(Some(format!(
            "{display}:{}:{}",
            u64::from(line0) + 1,
            u64::from(chars) + 1
        )))
    }

    /// The definition at an LSP position (a use resolved, or a name where it
    /// is defined), from the live index.
    fn symbol_at(&self, at: &TextDocumentPositionParams) -> Result<Option<SymbolRow>, Failure> {
        let Some(target) = self.target_at(at)? else {
            return Ok(None);
        };
        Ok(self
            .live
            .query(|index| query::find_target(index.connection(), &target).ok()))
    }

    /// The range of a definition's name.
    fn name_range(&self, index: &Index, lines: &mut Lines<'_>, symbol: &SymbolRow) -> Range {
        let (line, column) = name_position(index, symbol);
        let path = self.absolute(&symbol.path);
        lines.name(&path, line, column, symbol.name.chars().count() as u32)
    }

    /// A definition as an LSP location (its name).
    fn location(
        &self,
        index: &Index,
        lines: &mut Lines<'_>,
        symbol: &SymbolRow,
    ) -> Result<Value, Failure> {
        let range = self.name_range(index, lines, symbol);
        Ok(json!({ "uri": self.uri(&symbol.path)?, "range": range }))
    }

    /// A definition as a call or type hierarchy item: `detail` and `data`
    /// hold its id.
    fn item(
        &self,
        index: &Index,
        lines: &mut Lines<'_>,
        symbol: &SymbolRow,
    ) -> Result<Value, Failure> {
        let selection = self.name_range(index, lines, symbol);
        Ok(json!({
            "name": symbol.name,
            "kind": convert::symbol_kind(&symbol.kind),
            "detail": symbol.id,
            "uri": self.uri(&symbol.path)?,
            "range": lines_range(symbol.start_line, symbol.end_line),
            "selectionRange": selection,
            "data": symbol.id,
        }))
    }

    pub(super) fn document_symbol(&self, p: DocumentSymbolParams) -> Result<Value, Failure> {
        let Some(path) = self.path(&p.text_document.uri) else {
            return Ok(Value::Null);
        };
        let Some(text) = self.text(&path) else {
            return Ok(Value::Null);
        };
        // A file outside the root has an outline too (not an index entry).
        let display = self
            .display(&path)
            .unwrap_or_else(|| path.to_string_lossy().into_owned());
        let Ok(outline) = ast_outline::outline_source(&display, &text, &OutlineOptions::default())
        else {
            return Ok(Value::Null);
        };
        // A file whose parser crashed or ran out of time or memory: say so
        // rather than answer "no symbols".
        if let Some(why) = outline.not_outlined() {
            return Err((
                REQUEST_FAILED,
                format!("{display} has no symbols, it was not outlined: {why}"),
            ));
        }
        let mut lines = self.lines();
        let mut out = Vec::new();
        document_symbols(&outline.symbols, &path, &mut lines, &mut out);
        Ok(Value::Array(out))
    }

    pub(super) fn workspace_symbol(&self, p: WorkspaceSymbolParams) -> Result<Value, Failure> {
        if p.query.chars().count() > MOST_QUERY_CHARS {
            return Err((
                INVALID_PARAMS,
                format!("the query is longer than {MOST_QUERY_CHARS} characters"),
            ));
        }
        let rows = self.live.query(|index| {
            query::symbols_containing(index.connection(), &p.query, MOST_WORKSPACE_SYMBOLS)
        });
        let rows = rows.map_err(internal)?;
        let mut lines = self.lines();
        let mut out = Vec::new();
        for row in rows {
            let symbol = &row.symbol;
            let path = self.absolute(&symbol.path);
            let chars = symbol.name.chars().count() as u32;
            let range = lines.name(&path, row.name_line, row.name_column, chars);
            let container = symbol
                .qualname
                .rsplit_once('.')
                .map(|(parent, _)| parent.to_owned());
            out.push(json!({
                "name": symbol.name,
                "kind": convert::symbol_kind(&symbol.kind),
                "location": { "uri": self.uri(&symbol.path)?, "range": range },
                "containerName": container,
            }));
        }
        Ok(Value::Array(out))
    }

    pub(super) fn definition(&self, p: GotoDefinitionParams) -> Result<Value, Failure> {
        let Some(symbol) = self.symbol_at(&p.text_document_position_params)? else {
            return Ok(Value::Null);
        };
        let mut lines = self.lines();
        self.live
            .query(|index| self.location(index, &mut lines, &symbol))
    }

    pub(super) fn references(&self, p: ReferenceParams) -> Result<Value, Failure> {
        let Some(symbol) = self.symbol_at(&p.text_document_position)? else {
            return Ok(json!([]));
        };
        let mut lines = self.lines();
        self.live.query(|index| {
            // As a language server answers: the edges its rules found, not
            // the name-only candidates `refs` also labels and shows.
            let rows = query::refs(index.connection(), &symbol.id, false)
                .map_err(internal)?
                .into_iter()
                .filter(|r| r.certainty != "candidate");
            let mut out = Vec::new();
            if p.context.include_declaration {
                out.push(self.location(index, &mut lines, &symbol)?);
            }
            for row in rows {
                let path = self.absolute(&row.path);
                let range = Range::new(
                    lines.position(&path, row.line, row.column),
                    lines.position(&path, row.line, row.end_column),
                );
                out.push(json!({ "uri": self.uri(&row.path)?, "range": range }));
            }
            Ok(Value::Array(out))
        })
    }

    pub(super) fn hover(&self, p: HoverParams) -> Result<Value, Failure> {
        let Some(symbol) = self.symbol_at(&p.text_document_position_params)? else {
            return Ok(Value::Null);
        };
        let path = self.absolute(&symbol.path);
        let found = self.text(&path).and_then(|text| {
            let outline =
                ast_outline::outline_source(&symbol.path, &text, &OutlineOptions::default())
                    .ok()?;
            find(&outline.symbols, &symbol.id).cloned()
        });
        let language =
            outline_core::Language::from_path(&symbol.path).map_or("text", |l| match l {
                outline_core::Language::Python => "python",
                outline_core::Language::Rust => "rust",
                outline_core::Language::Javascript | outline_core::Language::Jsx => "javascript",
                _ => "typescript",
            });
        let signature = found
            .as_ref()
            .and_then(|s| s.signature.clone())
            .unwrap_or_else(|| format!("{} {}", symbol.kind, symbol.qualname));
        let mut value = format!("```{language}\n{signature}\n```\n");
        if let Some(doc) = found.as_ref().and_then(|s| s.doc.as_deref()) {
            value.push('\n');
            value.push_str(doc);
            value.push('\n');
        }
        value.push_str(&format!(
            "\n`{}` (lines {}-{})",
            symbol.id, symbol.start_line, symbol.end_line
        ));
        Ok(json!({ "contents": { "kind": "markdown", "value": value } }))
    }

    pub(super) fn prepare(
        &self,
        p: TextDocumentPositionParams,
        types: bool,
    ) -> Result<Value, Failure> {
        let Some(symbol) = self.symbol_at(&p)? else {
            return Ok(Value::Null);
        };
        if types && !is_type_kind(&symbol.kind) {
            return Ok(Value::Null);
        }
        let mut lines = self.lines();
        self.live
            .query(|index| Ok(json!([self.item(index, &mut lines, &symbol)?])))
    }

    pub(super) fn incoming_calls(
        &self,
        p: CallHierarchyIncomingCallsParams,
    ) -> Result<Value, Failure> {
        let id = item_id(p.item.data.as_ref(), p.item.detail.as_deref())?;
        let mut lines = self.lines();
        self.live.query(|index| {
            let rows = query::callers(index.connection(), &id, 1).map_err(internal)?;
            // Calls grouped by the definition they are in (module level: the
            // file).
            let mut by_caller: BTreeMap<(String, Option<String>), Vec<Value>> = BTreeMap::new();
            for row in rows.into_iter().filter(|r| r.call.certainty != "candidate") {
                let call = row.call;
                let path = self.absolute(&call.path);
                let range = Range::new(
                    lines.position(&path, call.line, call.column),
                    lines.position(&path, call.line, call.end_column),
                );
                by_caller
                    .entry((call.path.clone(), call.caller.clone()))
                    .or_default()
                    .push(json!(range));
            }
            let mut out = Vec::new();
            for ((display, caller), ranges) in by_caller {
                let from = match caller
                    .as_deref()
                    .and_then(|c| query::find_target(index.connection(), c).ok())
                {
                    Some(symbol) => self.item(index, &mut lines, &symbol)?,
                    None => json!({
                        "name": display,
                        "kind": lsp_types::SymbolKind::FILE,
                        "detail": display,
                        "uri": self.uri(&display)?,
                        "range": lines_range(1, 1),
                        "selectionRange": lines_range(1, 1),
                    }),
                };
                out.push(json!({ "from": from, "fromRanges": ranges }));
            }
            Ok(Value::Array(out))
        })
    }

    pub(super) fn outgoing_calls(
        &self,
        p: CallHierarchyOutgoingCallsParams,
    ) -> Result<Value, Failure> {
        let id = item_id(p.item.data.as_ref(), p.item.detail.as_deref())?;
        let mut lines = self.lines();
        self.live.query(|index| {
            let rows = query::callees(index.connection(), &id).map_err(internal)?;
            let mut by_target: BTreeMap<String, Vec<Value>> = BTreeMap::new();
            for row in rows {
                let Some(target) = row.target.clone().filter(|_| row.status == "resolved") else {
                    continue;
                };
                let path = self.absolute(&row.path);
                let range = Range::new(
                    lines.position(&path, row.line, row.column),
                    lines.position(&path, row.line, row.end_column),
                );
                by_target.entry(target).or_default().push(json!(range));
            }
            let mut out = Vec::new();
            for (target, ranges) in by_target {
                if let Ok(symbol) = query::find_target(index.connection(), &target) {
                    out.push(json!({
                        "to": self.item(index, &mut lines, &symbol)?,
                        "fromRanges": ranges,
                    }));
                }
            }
            Ok(Value::Array(out))
        })
    }

    pub(super) fn related_types(
        &self,
        p: TypeHierarchySubtypesParams,
        supertypes: bool,
    ) -> Result<Value, Failure> {
        let id = item_id(p.item.data.as_ref(), p.item.detail.as_deref())?;
        let mut lines = self.lines();
        self.live.query(|index| {
            let hierarchy = query::hierarchy(index.connection(), &id).map_err(internal)?;
            let related = if supertypes {
                hierarchy.supertypes
            } else {
                hierarchy.subtypes
            };
            let mut out = Vec::new();
            for r in related.iter().filter(|r| r.depth == 1) {
                out.push(self.item(index, &mut lines, &r.symbol)?);
            }
            Ok(Value::Array(out))
        })
    }
}

/// The id an item carries (`data`, else `detail`).
fn item_id(data: Option<&Value>, detail: Option<&str>) -> Result<String, Failure> {
    data.and_then(Value::as_str)
        .or(detail)
        .map(str::to_owned)
        .ok_or_else(|| (INVALID_PARAMS, "the item carries no symbol id".to_owned()))
}

/// Whether a kind has a type hierarchy.
fn is_type_kind(kind: &str) -> bool {
    matches!(
        kind,
        "class" | "interface" | "struct" | "enum" | "union" | "trait"
    )
}

/// The symbol with `id` in a tree.
fn find<'a>(symbols: &'a [Symbol], id: &str) -> Option<&'a Symbol> {
    symbols.iter().find_map(|s| {
        if s.id == id {
            Some(s)
        } else {
            find(&s.children, id)
        }
    })
}

/// The outline's symbols as LSP `DocumentSymbol`s; a control-flow block is
/// left out and its children take its place.
fn document_symbols(
    symbols: &[Symbol],
    path: &PathBuf,
    lines: &mut Lines<'_>,
    out: &mut Vec<Value>,
) {
    for symbol in symbols {
        if symbol.kind == SymbolKind::Block {
            document_symbols(&symbol.children, path, lines, out);
            continue;
        }
        let mut children = Vec::new();
        document_symbols(&symbol.children, path, lines, &mut children);
        let selection = lines.name(
            path,
            symbol.name_line,
            symbol.name_column,
            symbol.name.chars().count() as u32,
        );
        out.push(json!({
            "name": symbol.name,
            "detail": symbol.signature,
            "kind": convert::symbol_kind(symbol.kind.as_str()),
            "range": lines_range(symbol.start_line, symbol.end_line),
            "selectionRange": selection,
            "children": children,
        }));
    }
}
