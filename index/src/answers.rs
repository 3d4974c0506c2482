//! The answers of the index queries as text and JSON, shared by the CLI's
//! `refs`, `callers`, `callees`, `hierarchy` and `defs` and the MCP server's
//! tools: a header naming the target, then the rows grouped by file (by
//! path, then line).

use std::collections::BTreeMap;
use std::fmt::Write as _;

use serde_json::json;

use crate::Index;
use crate::query::{self, CallerRow, RefRow, SymbolRow};

/// A note when `target` is an id `PATH:LINE:QUALNAME` whose line is no
/// longer the definition's (it was found again by qualname), as `read` says;
/// or, for a target without the line, when its file defines the name more
/// than once (`if`/`else` alternatives, a property's getter and setter,
/// overloads): which one answers, and how to name another.
pub fn moved_note(index: &Index, target: &str, symbol: &SymbolRow) -> Option<String> {
    moved(target, symbol).or_else(|| same_named(index, target, symbol))
}

/// The other definitions of `symbol`'s qualname and kind in its file, when
/// `target` did not name its line.
fn same_named(index: &Index, target: &str, symbol: &SymbolRow) -> Option<String> {
    if target.ends_with(&symbol.id) {
        return None;
    }
    let lines: Vec<u32> = index
        .connection()
        .prepare_cached(
            "SELECT s.start_line FROM symbols s JOIN files f ON f.id = s.file_id \
             WHERE f.path = ?1 AND s.qualname = ?2 AND s.kind = ?3 ORDER BY s.start_line",
        )
        .ok()?
        .query_map(
            rusqlite::params![symbol.path, symbol.qualname, symbol.kind],
            |row| row.get(0),
        )
        .ok()?
        .collect::<Result<_, _>>()
        .ok()?;
    let others: Vec<&u32> = lines.iter().filter(|&&l| l != symbol.start_line).collect();
    let other = others.first()?;
    Some(format!(
        "note: {} {} are named {} in {} (lines {}): this answers for L{}, the last, where \
         references to the name resolve; give {}:{other}:{} for another",
        lines.len(),
        symbol.kind.replace('_', " ") + "s",
        symbol.qualname,
        symbol.path,
        lines
            .iter()
            .map(u32::to_string)
            .collect::<Vec<_>>()
            .join(", "),
        symbol.start_line,
        symbol.path,
        symbol.qualname
    ))
}

fn moved(target: &str, symbol: &SymbolRow) -> Option<String> {
    let mut parts = target.rsplitn(3, ':');
    let qualname = parts.next()?;
    let line: u32 = parts.next()?.parse().ok()?;
    parts.next()?;
    if qualname.bytes().all(|b| b.is_ascii_digit()) || line == symbol.start_line {
        return None;
    }
    Some(format!(
        "note: found by qualname: the id said line {line}, {} now starts at line {}",
        symbol.qualname, symbol.start_line
    ))
}

pub use outline_core::text::plural;

/// `ID (KIND QUALNAME, LSTART-END, module M)`: a definition in an answer's
/// header.
fn header(symbol: &SymbolRow) -> String {
    let module = symbol
        .module
        .as_deref()
        .map(|m| format!(", module {m}"))
        .unwrap_or_default();
    format!(
        "{} ({} {}, L{}-{}{module})",
        symbol.id, symbol.kind, symbol.qualname, symbol.start_line, symbol.end_line
    )
}

/// One reference as a text line (without the path).
fn ref_line(r: &RefRow) -> String {
    let name = if r.receiver.is_empty() {
        r.name.clone()
    } else {
        format!("{}.{}", r.receiver, r.name)
    };
    let caller = r
        .caller
        .as_deref()
        .and_then(|c| c.splitn(3, ':').nth(2).map(str::to_owned))
        .unwrap_or_else(|| "<module>".to_owned());
    let mut status = format!("{} via {}", r.certainty, r.via);
    if r.status != "resolved" && !r.candidates.is_empty() {
        let _ = write!(status, ", {}", plural(r.candidates.len(), "candidate"));
    }
    format!(
        "  L{}:{} {} {name} in {caller} [{status}]",
        r.line, r.column, r.role
    )
}

/// References grouped by file (sorted by path, then line).
fn grouped(rows: &[RefRow], out: &mut String) {
    let mut by_file: BTreeMap<&str, Vec<&RefRow>> = BTreeMap::new();
    for row in rows {
        by_file.entry(row.path.as_str()).or_default().push(row);
    }
    for (path, rows) in by_file {
        let _ = writeln!(out, "{path}");
        for row in rows {
            let _ = writeln!(out, "{}", ref_line(row));
        }
    }
}

/// A query's answer: the text for people and agents, and the same as JSON.
pub type Answer = (String, serde_json::Value);

/// The references to `symbol` (with `candidates`, also unresolved ones that
/// list it), grouped by file.
///
/// # Errors
/// [`crate::Error::Sqlite`] from the query.
pub fn refs_answer(
    index: &Index,
    symbol: &SymbolRow,
    candidates: bool,
) -> Result<Answer, crate::Error> {
    let mut rows = query::refs(index.connection(), &symbol.id, candidates)?;
    let limited = apply_settings(index, &mut rows, |r| &r.path);
    let files = rows
        .iter()
        .map(|r| &r.path)
        .collect::<std::collections::HashSet<_>>();
    let resolved = rows.iter().filter(|r| r.status == "resolved").count();
    let dynamic = rows.iter().filter(|r| r.status == "dynamic").count();
    let candidate = rows.len() - resolved - dynamic;
    let split = if resolved == rows.len() {
        String::new()
    } else {
        let mut split = format!(" ({resolved} resolved");
        if candidate > 0 {
            let _ = write!(split, ", {}", plural(candidate, "candidate"));
        }
        if dynamic > 0 {
            // Made at run time (`getattr(obj, "name")`): a run confirms them.
            let _ = write!(split, ", {dynamic} dynamic");
        }
        split.push(')');
        split
    };
    let mut text = format!(
        "refs to {}: {}{split} in {}\n",
        header(symbol),
        rows.len(),
        plural(files.len(), "file")
    );
    if !candidates {
        hidden_note(index, symbol, false, &mut text)?;
    }
    text.push_str(&limited);
    grouped(&rows, &mut text);
    Ok((text, json!({ "target": symbol, "refs": rows })))
}

/// The calls of `symbol`, and with `depth` > 1 the calls of its callers,
/// grouped by depth, then by file.
///
/// # Errors
/// [`crate::Error::Sqlite`] from the query.
pub fn callers_answer(
    index: &Index,
    symbol: &SymbolRow,
    depth: u32,
) -> Result<Answer, crate::Error> {
    let mut rows: Vec<CallerRow> = query::callers(index.connection(), &symbol.id, depth)?;
    let limited = apply_settings(index, &mut rows, |r| &r.call.path);
    let mut text = format!(
        "callers of {}: {}\n",
        header(symbol),
        plural(rows.len(), "call")
    );
    hidden_note(index, symbol, true, &mut text)?;
    text.push_str(&limited);
    let mut depth = 0;
    let mut level: Vec<RefRow> = Vec::new();
    let flush = |depth: u32, level: &mut Vec<RefRow>, text: &mut String| {
        if !level.is_empty() {
            let _ = writeln!(text, "depth {depth}:");
            grouped(level, text);
            level.clear();
        }
    };
    for row in &rows {
        if row.depth != depth {
            flush(depth, &mut level, &mut text);
            depth = row.depth;
        }
        level.push(row.call.clone());
    }
    flush(depth, &mut level, &mut text);
    Ok((text, json!({ "target": symbol, "callers": rows })))
}

/// Applies the project settings of the index's root to an answer's rows:
/// rows in test files left out unless `tests.in_queries`, then at most
/// `queries.max_results` kept. Returns a note saying what was left out
/// (empty when nothing was).
fn apply_settings<T>(index: &Index, rows: &mut Vec<T>, path: impl Fn(&T) -> &String) -> String {
    let Ok(Some(root)) = index.root() else {
        return String::new();
    };
    apply_settings_of(std::path::Path::new(&root), rows, path)
}

/// [`apply_settings`] with the settings of `root`.
fn apply_settings_of<T>(
    root: &std::path::Path,
    rows: &mut Vec<T>,
    path: impl Fn(&T) -> &String,
) -> String {
    let (settings, _) = crate::open::settings(root);
    let before = rows.len();
    rows.retain(|row| settings.in_queries(path(row)));
    let mut note = String::new();
    if rows.len() < before {
        let _ = writeln!(
            note,
            "(not shown: {} in test files: the settings' tests.in_queries is false)",
            plural(before - rows.len(), "result")
        );
    }
    if let Some(max) = settings.max_results
        && rows.len() > max
    {
        let _ = writeln!(
            note,
            "(not shown: {} over the settings' queries.max_results = {max})",
            plural(rows.len() - max, "more result")
        );
        rows.truncate(max);
    }
    note
}

/// Says how many references (`calls_only`: calls) name `symbol` only as
/// one of their name-only candidates and are left out, so that an empty
/// answer is not read as "unused".
fn hidden_note(
    index: &Index,
    symbol: &SymbolRow,
    calls_only: bool,
    text: &mut String,
) -> Result<(), crate::Error> {
    let hidden = query::hidden_candidates(index.connection(), &symbol.id, calls_only)?;
    if hidden > 0 {
        let what = if calls_only { "call" } else { "reference" };
        let _ = writeln!(
            text,
            "(not shown: {} whose receiver's type is unknown and that name it only as a \
             candidate, by its name: `refs --candidates` / include_candidates lists them)",
            plural(hidden, what)
        );
    }
    Ok(())
}

/// The calls made inside `symbol`, each with what it resolved to (or its
/// candidates), and its dynamic imports (counted apart).
///
/// # Errors
/// [`crate::Error::Sqlite`] from the query.
pub fn callees_answer(index: &Index, symbol: &SymbolRow) -> Result<Answer, crate::Error> {
    let rows = query::callees(index.connection(), &symbol.id)?;
    let imports = rows.iter().filter(|r| r.role == "import").count();
    let mut count = plural(rows.len() - imports, "call");
    if imports > 0 {
        let _ = write!(count, ", {}", plural(imports, "dynamic import"));
    }
    let mut text = format!("callees of {}: {count}\n", header(symbol));
    for row in &rows {
        let target = row
            .target
            .clone()
            .unwrap_or_else(|| row.candidates.join(" "));
        // An external call (a builtin, another package) has no target: its
        // status says so, and no empty arrow follows.
        if target.is_empty() {
            let _ = writeln!(text, "{}", ref_line(row));
        } else {
            let _ = writeln!(text, "{} -> {target}", ref_line(row));
        }
    }
    Ok((text, json!({ "target": symbol, "callees": rows })))
}

/// The supertypes and subtypes of `symbol`, transitive, nearest first.
///
/// # Errors
/// [`crate::Error::Sqlite`] from the query.
pub fn hierarchy_answer(index: &Index, symbol: &SymbolRow) -> Result<Answer, crate::Error> {
    let hierarchy = query::hierarchy(index.connection(), &symbol.id)?;
    let mut text = format!("hierarchy of {}\n", header(symbol));
    if hierarchy.supertypes.is_empty()
        && hierarchy.subtypes.is_empty()
        && !is_type_kind(&symbol.kind)
    {
        let _ = writeln!(
            text,
            "(a {} has no type hierarchy: give a class, interface, struct, enum, union or trait)",
            symbol.kind.replace('_', " ")
        );
    }
    for (title, list) in [
        ("supertypes", &hierarchy.supertypes),
        ("subtypes", &hierarchy.subtypes),
    ] {
        let _ = writeln!(text, "{title}: {}", list.len());
        // A tree: each type under the one it was reached through.
        let mut stack: Vec<(&str, usize)> = vec![(symbol.id.as_str(), 0)];
        let mut shown = vec![false; list.len()];
        while let Some((parent, level)) = stack.pop() {
            if level > 0 {
                let _ = writeln!(
                    text,
                    "  {}{}",
                    "  ".repeat(level - 1),
                    list.iter()
                        .find(|r| r.symbol.id == parent)
                        .map(|r| header(&r.symbol))
                        .unwrap_or_default()
                );
            }
            for (i, related) in list.iter().enumerate().rev() {
                if !shown[i] && related.via == parent {
                    shown[i] = true;
                    stack.push((related.symbol.id.as_str(), level + 1));
                }
            }
        }
    }
    Ok((text, json!({ "target": symbol, "hierarchy": hierarchy })))
}

/// Whether symbols of `kind` (an LSP SymbolKind word) have supertypes or
/// subtypes.
fn is_type_kind(kind: &str) -> bool {
    matches!(
        kind,
        "class" | "interface" | "struct" | "enum" | "union" | "trait" | "impl" | "type_alias"
    )
}

/// Every definition named `name` (a name or a whole qualname, exactly),
/// one header line each; a note when there is none.
///
/// # Errors
/// [`crate::Error::Sqlite`] from the query;
/// [`crate::Error::Target`] for an empty name.
pub fn defs_answer(index: &Index, name: &str) -> Result<Answer, crate::Error> {
    check_defs_name(name)?;
    let mut rows = query::defs(index.connection(), name)?;
    let limited = apply_settings(index, &mut rows, |r| &r.path);
    Ok(defs_text(name, rows, &limited))
}

/// An outliner of files under `root` with the default options, JSON
/// format and `root`'s persistent outline cache (none when it cannot be
/// opened); `whole_tree` when it outlines every file of the walk of `root`
/// (the cache may then drop the entries of files gone). Call its `end` to
/// write the cache.
pub(crate) fn outliner(root: &std::path::Path, whole_tree: bool) -> ast_outline::tree::Outliner {
    let options = outline_core::OutlineOptions::default();
    let cache = ast_outline::disk_cache::DiskCache::for_tree(root, &options).map(|cache| {
        if whole_tree {
            cache.batch(&[root.to_owned()])
        } else {
            cache
        }
    });
    ast_outline::tree::Outliner::new(
        options,
        outline_core::Filter::default(),
        ast_outline::tree::Format::Json,
        ast_outline::DEFAULT_MAX_FILE_SIZE,
        cache,
    )
}

/// [`defs_answer`] without an index: the same answer (text and JSON) from
/// the outlines of every file of the walk of `root` (the library's walk
/// and its persistent outline cache), with each file's module as the index
/// would set it (Python: from the package layout; Rust: from the `mod`
/// declarations of its crate, read from the files that hold a module, and
/// the `Cargo.toml` files). Returns the answer and the walk's notes
/// (unreadable directories, files that could not be read).
///
/// # Errors
/// [`crate::Error::Target`] for an empty name.
pub fn defs_answer_walking(
    root: &std::path::Path,
    name: &str,
) -> Result<(Answer, Vec<String>), crate::Error> {
    use rayon::prelude::*;
    check_defs_name(name)?;
    let (entries, mut notes) = crate::open::entries(root);
    let outliner = outliner(root, true);
    // Each file: its definitions of `name` and whether it holds a module
    // (a Rust file's `mod` declarations set other files' modules); or why
    // it could not be outlined.
    type Outlined = Result<(Vec<(u32, SymbolRow)>, bool), String>;
    let outlined: Vec<Outlined> = entries
        .par_iter()
        .map(|entry| {
            let file = ast_outline::walk::FileEntry {
                path: entry.path.clone(),
                display: entry.display.clone(),
                language: Some(entry.language),
                explicit: false,
            };
            let outline = outliner.outline(&file).map_err(|e| e.to_string())?;
            let mut rows = Vec::new();
            let mut holds_module = false;
            outline.walk(|s| {
                holds_module |= s.kind == outline_core::SymbolKind::Module;
                if s.kind != outline_core::SymbolKind::Block
                    && (s.name == name || s.qualname == name)
                {
                    rows.push((
                        s.name_column,
                        SymbolRow {
                            id: s.id.clone(),
                            path: entry.display.clone(),
                            module: None,
                            name: s.name.clone(),
                            qualname: s.qualname.clone(),
                            kind: s.kind.as_str().to_owned(),
                            start_line: s.start_line,
                            end_line: s.end_line,
                        },
                    ));
                }
            });
            Ok((rows, holds_module))
        })
        .collect();
    if let Some(error) = outliner.end() {
        notes.push(format!(
            "note: the outline cache could not be written: {error}"
        ));
    }
    // The files the index would hold: those outlined.
    let mut held: Vec<(&crate::SourceEntry, bool)> = Vec::new();
    let mut rows: Vec<(u32, SymbolRow)> = Vec::new();
    for (entry, outlined) in entries.iter().zip(outlined) {
        match outlined {
            Ok((found, holds_module)) => {
                held.push((entry, holds_module));
                rows.extend(found);
            }
            Err(error) => notes.push(error),
        }
    }
    set_modules(&held, &mut rows);
    rows.sort_by(|(a_column, a), (b_column, b)| {
        (&a.path, a.start_line, a_column).cmp(&(&b.path, b.start_line, b_column))
    });
    let mut rows: Vec<SymbolRow> = rows.into_iter().map(|(_, row)| row).collect();
    let limited = apply_settings_of(root, &mut rows, |r| &r.path);
    Ok((defs_text(name, rows, &limited), notes))
}

/// Sets the module of each row as the index would (see
/// [`defs_answer_walking`]): `held` are the files outlined, each with
/// whether it holds a module symbol.
fn set_modules(held: &[(&crate::SourceEntry, bool)], rows: &mut [(u32, SymbolRow)]) {
    use outline_core::Language;
    let of = |language: Language| held.iter().filter(move |(e, _)| e.language == language);
    let python: std::collections::HashSet<&str> = of(Language::Python)
        .map(|(e, _)| e.display.as_str())
        .collect();
    let rust_modules = rows.iter().any(|(_, r)| r.path.ends_with(".rs")).then(|| {
        let rust: Vec<(&crate::SourceEntry, bool)> = of(Language::Rust).copied().collect();
        // The `mod` declarations of the files holding a module.
        let decls: Vec<Vec<outline_core::xref::ModuleDecl>> = rust
            .iter()
            .map(|(entry, holds_module)| {
                holds_module
                    .then(|| std::fs::read(&entry.path).ok())
                    .flatten()
                    .and_then(|bytes| {
                        crate::open::parse(&entry.display, entry.language, bytes).ok()
                    })
                    .map(|(_, facts)| facts.modules)
                    .unwrap_or_default()
            })
            .collect();
        let files: Vec<(&str, &[outline_core::xref::ModuleDecl])> = rust
            .iter()
            .zip(&decls)
            .map(|((entry, _), decls)| (entry.display.as_str(), decls.as_slice()))
            .collect();
        let entries: Vec<crate::SourceEntry> =
            held.iter().map(|(entry, _)| (*entry).clone()).collect();
        let crates = crate::project_config::project_config(&entries).rust_crates;
        let modules = xref::rust_modules(&files, &crates);
        files
            .iter()
            .map(|(path, _)| (*path).to_owned())
            .zip(modules)
            .collect::<std::collections::HashMap<String, Option<String>>>()
    });
    for (_, row) in rows.iter_mut() {
        row.module = if python.contains(row.path.as_str()) {
            xref::python_module(&row.path, &python).map(|(module, _)| module)
        } else {
            rust_modules
                .as_ref()
                .and_then(|modules| modules.get(&row.path).cloned().flatten())
        };
    }
}

/// The error of an empty `defs` name.
fn check_defs_name(name: &str) -> Result<(), crate::Error> {
    if name.trim().is_empty() {
        return Err(crate::Error::Target(
            "give a name: `defs NAME` lists the definitions named NAME (or with the \
             qualified name NAME, such as Cart.total)"
                .to_owned(),
        ));
    }
    let length = name.chars().count();
    if length > query::MAX_TARGET_CHARS {
        return Err(crate::Error::Target(format!(
            "the name is {length} characters long; at most {}: give a name or a \
             qualified name such as Cart.total",
            query::MAX_TARGET_CHARS
        )));
    }
    Ok(())
}

/// The text and JSON of `defs NAME` over `rows` (sorted by path, line and
/// column).
fn defs_text(name: &str, rows: Vec<SymbolRow>, limited: &str) -> Answer {
    let mut text = format!("definitions of {name}: {}\n", rows.len());
    for row in &rows {
        let _ = writeln!(text, "  {}", header(row));
    }
    text.push_str(limited);
    if rows.is_empty() && limited.is_empty() {
        text.push_str(
            "(none has this name or qualified name, exactly and with this case; no \
             patterns: give a whole name such as total or Cart.total)\n",
        );
    }
    (text, json!({ "name": name, "defs": rows }))
}
