//! Queries over a built index: targets, references, callers, callees,
//! hierarchy and definitions. Every result list is sorted by path, then line,
//! then column.

use std::collections::HashSet;

use outline_core::{Selector, TargetError, split_target};
use rusqlite::{Connection, OptionalExtension, Row, params};
use serde::Serialize;

use crate::Error;

/// A definition in the index.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SymbolRow {
    /// Its id `PATH:START_LINE:QUALNAME`.
    pub id: String,
    /// The file's path.
    pub path: String,
    /// The Python module of the file, when it is one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub module: Option<String>,
    /// Its name.
    pub name: String,
    /// Its qualified name.
    pub qualname: String,
    /// Its kind (`class`, `method`, …).
    pub kind: String,
    /// First line (1-based).
    pub start_line: u32,
    /// Last line (1-based, inclusive).
    pub end_line: u32,
}

/// A reference in the index.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RefRow {
    /// The file's path.
    pub path: String,
    /// Line (1-based).
    pub line: u32,
    /// Column of the name (1-based, characters).
    pub column: u32,
    /// Column after the name (1-based, characters, exclusive).
    pub end_column: u32,
    /// The name used.
    pub name: String,
    /// The dotted receiver (`self`, `a.b`), `?` for an expression, empty for
    /// a bare name.
    pub receiver: String,
    /// `call`, `instantiate`, `type_use`, `inherit`, `import`, `attribute`,
    /// `read`.
    pub role: String,
    /// Id of the enclosing definition; `None` at module level.
    pub caller: Option<String>,
    /// `resolved`, `candidate`, `external` (imported from outside the
    /// project) or `module` (names a module: `target` is its file path).
    pub status: String,
    /// The definition's id when resolved.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub target: Option<String>,
    /// Candidate ids when not resolved.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub candidates: Vec<String>,
    /// Confidence (1.0 resolved by the rules, 0.6 project-unique name, 1/n
    /// for n name-only candidates).
    pub confidence: f64,
    /// The rule that gave the result (`scope`, `import`, `module`,
    /// `project_unique`, `receiver`, `name_only`, `none`).
    pub via: String,
}

/// A caller found at some depth of the reverse call graph.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CallerRow {
    /// 1 for direct callers, 2 for their callers, …
    pub depth: u32,
    /// The callee this call reaches (the target at depth 1).
    pub callee: String,
    /// The call.
    #[serde(flatten)]
    pub call: RefRow,
}

/// Supertypes and subtypes of a class, transitively.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Hierarchy {
    /// Bases, their bases, … (breadth first), each with its depth.
    pub supertypes: Vec<(u32, SymbolRow)>,
    /// Subclasses, theirs, … (breadth first), each with its depth.
    pub subtypes: Vec<(u32, SymbolRow)>,
}

const SYMBOL_COLUMNS: &str =
    "s.id, f.path, f.module, s.name, s.qualname, s.kind, s.start_line, s.end_line";

fn symbol_row(row: &Row<'_>) -> rusqlite::Result<SymbolRow> {
    Ok(SymbolRow {
        id: row.get(0)?,
        path: row.get(1)?,
        module: row.get(2)?,
        name: row.get(3)?,
        qualname: row.get(4)?,
        kind: row.get(5)?,
        start_line: row.get(6)?,
        end_line: row.get(7)?,
    })
}

const REF_COLUMNS: &str = "f.path, r.line, r.column, r.end_column, r.name, r.receiver, r.role, \
                           r.caller, r.status, r.target, r.candidates, r.confidence, r.via";

fn ref_row(row: &Row<'_>) -> rusqlite::Result<RefRow> {
    let candidates: String = row.get(10)?;
    Ok(RefRow {
        path: row.get(0)?,
        line: row.get(1)?,
        column: row.get(2)?,
        end_column: row.get(3)?,
        name: row.get(4)?,
        receiver: row.get(5)?,
        role: row.get(6)?,
        caller: row.get(7)?,
        status: row.get(8)?,
        target: row.get(9)?,
        candidates: serde_json::from_str(&candidates).unwrap_or_default(),
        confidence: row.get(11)?,
        via: row.get(12)?,
    })
}

fn symbols(
    conn: &Connection,
    filter: &str,
    args: impl rusqlite::Params,
) -> Result<Vec<SymbolRow>, Error> {
    let sql = format!(
        "SELECT {SYMBOL_COLUMNS} FROM symbols s JOIN files f ON f.id = s.file_id \
         WHERE {filter} ORDER BY f.path, s.start_line, s.name_column"
    );
    let mut statement = conn.prepare_cached(&sql)?;
    let rows = statement.query_map(args, symbol_row)?;
    Ok(rows.collect::<Result<_, _>>()?)
}

fn references(
    conn: &Connection,
    filter: &str,
    args: impl rusqlite::Params,
) -> Result<Vec<RefRow>, Error> {
    let sql = format!(
        "SELECT {REF_COLUMNS} FROM refs r JOIN files f ON f.id = r.file_id \
         WHERE {filter} ORDER BY f.path, r.line, r.column"
    );
    let mut statement = conn.prepare_cached(&sql)?;
    let rows = statement.query_map(args, ref_row)?;
    Ok(rows.collect::<Result<_, _>>()?)
}

/// The definition a target names: a symbol id, `PATH:QUALNAME` (a name or
/// dotted suffix of a qualname also works when unique in the file),
/// `PATH:LINE` (the innermost definition containing the line) or
/// `PATH:LINE:COL` (the definition the reference at that position resolves
/// to, or the definition whose name is there; column 1-based, characters).
///
/// # Errors
/// [`Error::Target`] when nothing or more than one definition matches (the
/// message lists up to ten), or the path is not in the index.
pub fn find_target(conn: &Connection, target: &str) -> Result<SymbolRow, Error> {
    let is_file = |path: &str| {
        conn.query_row("SELECT 1 FROM files WHERE path = ?1", [path], |_| Ok(()))
            .optional()
            .ok()
            .flatten()
            .is_some()
    };
    let (path, selector) = split_target(target, is_file).map_err(|e| {
        Error::Target(match e {
            TargetError::NoFile => format!(
                "{target}: no indexed file is named before a `:` \
                 (give an id, PATH:QUALNAME, PATH:LINE or PATH:LINE:COL)"
            ),
            TargetError::Selector { path, error } => format!("{target}: after {path}: {error:?}"),
        })
    })?;
    let found = match selector {
        Selector::Id { line, qualname } if qualname.bytes().all(|b| b.is_ascii_digit()) => {
            let column: u32 = qualname
                .parse()
                .map_err(|_| Error::Target(format!("{target}: bad column")))?;
            at_position(conn, path, line, column)?
        }
        Selector::Id { line, qualname } => {
            let exact = symbols(
                conn,
                "f.path = ?1 AND s.qualname = ?2 AND s.start_line = ?3",
                params![path, qualname, line],
            )?;
            if exact.is_empty() {
                symbols(
                    conn,
                    "f.path = ?1 AND s.qualname = ?2",
                    params![path, qualname],
                )?
            } else {
                exact
            }
        }
        Selector::Qualname(qualname) => {
            let exact = symbols(
                conn,
                "f.path = ?1 AND s.qualname = ?2",
                params![path, qualname],
            )?;
            if exact.is_empty() {
                let suffix = format!("%.{qualname}");
                symbols(
                    conn,
                    "f.path = ?1 AND s.qualname LIKE ?2",
                    params![path, suffix],
                )?
            } else {
                exact
            }
        }
        Selector::Line(line) => innermost(conn, path, line)?,
        Selector::Lines { start, .. } => innermost(conn, path, start)?,
    };
    match found.as_slice() {
        [one] => Ok(one.clone()),
        [] => Err(Error::Target(format!("{target}: no definition found"))),
        many => Err(Error::Target(format!(
            "{target}: {} definitions match: {}",
            many.len(),
            many.iter()
                .take(10)
                .map(|s| s.id.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        ))),
    }
}

fn innermost(conn: &Connection, path: &str, line: u32) -> Result<Vec<SymbolRow>, Error> {
    let mut all = symbols(
        conn,
        "f.path = ?1 AND s.start_line <= ?2 AND s.end_line >= ?2",
        params![path, line],
    )?;
    all.sort_by_key(|s| (s.end_line - s.start_line, std::cmp::Reverse(s.start_line)));
    Ok(all.into_iter().take(1).collect())
}

fn at_position(
    conn: &Connection,
    path: &str,
    line: u32,
    column: u32,
) -> Result<Vec<SymbolRow>, Error> {
    let hits = references(
        conn,
        "f.path = ?1 AND r.line = ?2 AND r.column <= ?3 AND r.end_column > ?3",
        params![path, line, column],
    )?;
    if let Some(target) = hits.iter().find_map(|r| r.target.clone()) {
        return symbols(conn, "s.id = ?1", [target]);
    }
    let named = symbols(
        conn,
        "f.path = ?1 AND s.name_line = ?2 AND s.name_column <= ?3 \
         AND s.name_column + length(s.name) > ?3",
        params![path, line, column],
    )?;
    Ok(named)
}

/// References to `id`: resolved ones, and with `candidates` also the
/// unresolved ones that list it as a candidate.
///
/// # Errors
/// [`Error::Sqlite`].
pub fn refs(conn: &Connection, id: &str, candidates: bool) -> Result<Vec<RefRow>, Error> {
    if candidates {
        references(
            conn,
            "r.target = ?1 OR (r.status = 'candidate' AND r.name = ?2 AND EXISTS \
             (SELECT 1 FROM json_each(r.candidates) WHERE value = ?1))",
            params![id, id.rsplit(['.', ':']).next().unwrap_or(id)],
        )
    } else {
        references(conn, "r.target = ?1", [id])
    }
}

/// Calls (and instantiations) of `id`, then calls of those callers, up to
/// `depth` levels (at least 1), each caller visited once.
///
/// # Errors
/// [`Error::Sqlite`].
pub fn callers(conn: &Connection, id: &str, depth: u32) -> Result<Vec<CallerRow>, Error> {
    let mut out = Vec::new();
    let mut seen: HashSet<String> = HashSet::from([id.to_owned()]);
    let mut frontier = vec![id.to_owned()];
    for level in 1..=depth.max(1) {
        let mut next = Vec::new();
        for callee in &frontier {
            let calls = references(
                conn,
                "r.target = ?1 AND r.role IN ('call', 'instantiate')",
                [callee],
            )?;
            for call in calls {
                if let Some(caller) = &call.caller
                    && seen.insert(caller.clone())
                {
                    next.push(caller.clone());
                }
                out.push(CallerRow {
                    depth: level,
                    callee: callee.clone(),
                    call,
                });
            }
        }
        if next.is_empty() {
            break;
        }
        frontier = next;
    }
    out.sort_by(|a, b| {
        (a.depth, &a.call.path, a.call.line, a.call.column).cmp(&(
            b.depth,
            &b.call.path,
            b.call.line,
            b.call.column,
        ))
    });
    Ok(out)
}

/// Calls made in the body of `id` (directly, not in nested definitions),
/// resolved or not.
///
/// # Errors
/// [`Error::Sqlite`].
pub fn callees(conn: &Connection, id: &str) -> Result<Vec<RefRow>, Error> {
    references(
        conn,
        "r.caller = ?1 AND r.role IN ('call', 'instantiate')",
        [id],
    )
}

/// Supertypes and subtypes of `id`, transitively.
///
/// # Errors
/// [`Error::Sqlite`].
pub fn hierarchy(conn: &Connection, id: &str) -> Result<Hierarchy, Error> {
    let walk = |from: &str, to: &str| -> Result<Vec<(u32, SymbolRow)>, Error> {
        let sql = format!("SELECT {to} FROM relations WHERE {from} = ?1 ORDER BY rowid");
        let mut statement = conn.prepare(&sql)?;
        let mut out = Vec::new();
        let mut seen = HashSet::from([id.to_owned()]);
        let mut frontier = vec![id.to_owned()];
        let mut depth = 0;
        while !frontier.is_empty() && depth < 100 {
            depth += 1;
            let mut next = Vec::new();
            for current in &frontier {
                let found: Vec<String> = statement
                    .query_map([current], |row| row.get(0))?
                    .collect::<Result<_, _>>()?;
                for other in found {
                    if seen.insert(other.clone()) {
                        for symbol in symbols(conn, "s.id = ?1", [&other])? {
                            out.push((depth, symbol));
                        }
                        next.push(other);
                    }
                }
            }
            frontier = next;
        }
        Ok(out)
    };
    Ok(Hierarchy {
        supertypes: walk("subtype", "supertype")?,
        subtypes: walk("supertype", "subtype")?,
    })
}

/// Every definition named `name` (or whose qualname is `name`), with its
/// module.
///
/// # Errors
/// [`Error::Sqlite`].
pub fn defs(conn: &Connection, name: &str) -> Result<Vec<SymbolRow>, Error> {
    // A UNION rather than OR, so both indexes are used.
    symbols(
        conn,
        "s.rowid IN (SELECT rowid FROM symbols WHERE name = ?1 \
         UNION SELECT rowid FROM symbols WHERE qualname = ?1)",
        [name],
    )
}
