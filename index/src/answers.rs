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
/// longer the definition's (it was found again by qualname), as `read` says.
pub fn moved_note(target: &str, symbol: &SymbolRow) -> Option<String> {
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
    let rows = query::refs(index.connection(), &symbol.id, candidates)?;
    let files = rows
        .iter()
        .map(|r| &r.path)
        .collect::<std::collections::HashSet<_>>();
    let resolved = rows.iter().filter(|r| r.status == "resolved").count();
    let split = if resolved == rows.len() {
        String::new()
    } else {
        format!(
            " ({resolved} resolved, {} candidates)",
            rows.len() - resolved
        )
    };
    let mut text = format!(
        "refs to {}: {}{split} in {}\n",
        header(symbol),
        rows.len(),
        plural(files.len(), "file")
    );
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
    let rows: Vec<CallerRow> = query::callers(index.connection(), &symbol.id, depth)?;
    let mut text = format!(
        "callers of {}: {}\n",
        header(symbol),
        plural(rows.len(), "call")
    );
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

/// The calls made inside `symbol`, each with what it resolved to (or its
/// candidates).
///
/// # Errors
/// [`crate::Error::Sqlite`] from the query.
pub fn callees_answer(index: &Index, symbol: &SymbolRow) -> Result<Answer, crate::Error> {
    let rows = query::callees(index.connection(), &symbol.id)?;
    let mut text = format!(
        "callees of {}: {}\n",
        header(symbol),
        plural(rows.len(), "call")
    );
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
    if name.trim().is_empty() {
        return Err(crate::Error::Target(
            "give a name: `defs NAME` lists the definitions named NAME (or with the \
             qualified name NAME, such as Cart.total)"
                .to_owned(),
        ));
    }
    let rows = query::defs(index.connection(), name)?;
    let mut text = format!("definitions of {name}: {}\n", rows.len());
    for row in &rows {
        let _ = writeln!(text, "  {}", header(row));
    }
    if rows.is_empty() {
        text.push_str(
            "(none has this name or qualified name, exactly and with this case; no \
             patterns: give a whole name such as total or Cart.total)\n",
        );
    }
    Ok((text, json!({ "name": name, "defs": rows })))
}
