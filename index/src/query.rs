//! Queries over a built index: targets, references, callers, callees,
//! hierarchy and definitions. Every result list is sorted by path, then line,
//! then column.

use std::collections::HashSet;

use outline_core::{Selector, TargetError, split_target};
use rusqlite::{Connection, OptionalExtension, Row, params};
use serde::{Deserialize, Serialize};

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
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
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
    /// project), `module` (names a module: `target` is its file path) or
    /// `dynamic` (made at run time: `getattr(obj, "name")`,
    /// `import_module("m")`, `handlers[action]()`; `target` is what the
    /// name would reach if written statically, a symbol id or a module's
    /// file path, when anything does; only a run confirms it).
    pub status: String,
    /// The definition's id when resolved.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub target: Option<String>,
    /// Candidate ids when not resolved.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub candidates: Vec<String>,
    /// Confidence (1.0 resolved by the rules, 0.6 project-unique name, 0.2
    /// for a `name_imported` candidate, 1/n for n name-only candidates).
    pub confidence: f64,
    /// The rule that gave the result (`scope`, `import`, `module`,
    /// `project_unique`, `receiver`, `name_only`, `name_imported`, `none`,
    /// `macro`: a dynamic Rust item a project `macro_rules!` makes, the
    /// target being the macro).
    pub via: String,
    /// How sure the edge is: `exact` (found by the language's scoping and
    /// import rules), `inferred` (through a receiver's inferred type, or the
    /// only definition of a bare name in the project), `candidate` (only the
    /// name matched), `external` (outside the project), `module` or
    /// `dynamic` (made at run time: see `status`).
    pub certainty: String,
}

/// The certainty word of a reference with `status` found `via` a rule (see
/// [`RefRow::certainty`]).
pub fn certainty(status: &str, via: &str) -> &'static str {
    match (status, via) {
        ("resolved", "receiver" | "project_unique") => "inferred",
        ("resolved", _) => "exact",
        ("external", _) => "external",
        ("module", _) => "module",
        ("dynamic", _) => "dynamic",
        _ => "candidate",
    }
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
    /// Bases, their bases, … (breadth first).
    pub supertypes: Vec<Related>,
    /// Subclasses, theirs, … (breadth first; each one's by path and line).
    pub subtypes: Vec<Related>,
}

/// A type in a [`Hierarchy`], with the way it was reached.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Related {
    /// 1 for a direct supertype or subtype, 2 for one of theirs, …
    pub depth: u32,
    /// Id of the type at `depth - 1` it is a supertype or subtype of (the
    /// target itself at depth 1); a type reachable by several paths is
    /// listed once, under the first found breadth first.
    pub via: String,
    /// The type.
    pub symbol: SymbolRow,
}

const SYMBOL_COLUMNS: &str = "f.path || ':' || s.start_line || ':' || s.qualname, f.path, \
                              f.module, s.name, s.qualname, s.kind, s.start_line, s.end_line";

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

/// The text id of the symbol with key `?` (a correlated subquery).
fn id_of(key: &str) -> String {
    format!(
        "(SELECT xf.path || ':' || xs.start_line || ':' || xs.qualname FROM symbols xs \
         JOIN files xf ON xf.id = xs.file_id WHERE xs.key = {key})"
    )
}

fn ref_columns() -> String {
    format!(
        "f.path, r.line, r.column, r.end_column, r.name, r.receiver, r.role, {}, r.status, \
         coalesce({}, (SELECT path FROM files WHERE id = r.target_file)), r.candidates, \
         r.confidence, r.via",
        id_of("r.caller"),
        id_of("r.target")
    )
}

fn ref_row(row: &Row<'_>) -> rusqlite::Result<(RefRow, Option<Vec<u8>>)> {
    let status = crate::codes::status_name(row.get(8)?);
    let via = crate::codes::via_name(row.get(12)?);
    Ok((
        RefRow {
            path: row.get(0)?,
            line: row.get(1)?,
            column: row.get(2)?,
            end_column: row.get(3)?,
            name: row.get(4)?,
            receiver: row.get(5)?,
            role: crate::codes::role_name(row.get(6)?).to_owned(),
            caller: row.get(7)?,
            status: status.to_owned(),
            target: row.get(9)?,
            candidates: Vec::new(),
            // Stored from an f32: 0.6 reads back as 0.6000000238….
            confidence: (row.get::<_, f64>(11)? * 1e4).round() / 1e4,
            via: via.to_owned(),
            certainty: certainty(status, via).to_owned(),
        },
        row.get(10)?,
    ))
}

/// The keys in a `candidates` blob (little-endian 8-byte integers).
pub(crate) fn candidate_keys(blob: &[u8]) -> Vec<i64> {
    blob.chunks_exact(8)
        .filter_map(|chunk| <[u8; 8]>::try_from(chunk).ok())
        .map(i64::from_le_bytes)
        .collect()
}

/// The text id of the symbol `key`, if there is one.
pub(crate) fn symbol_id(conn: &Connection, key: i64) -> Result<Option<String>, Error> {
    let sql = format!(
        "SELECT {} FROM symbols s JOIN files f ON f.id = s.file_id WHERE s.key = ?1",
        crate::store::SYMBOL_ID_SQL
    );
    Ok(conn
        .prepare_cached(&sql)?
        .query_row([key], |row| row.get(0))
        .optional()?)
}

/// The key of the symbol with text id `id` (`PATH:START_LINE:QUALNAME`), if
/// it is in the index.
///
/// # Errors
/// [`Error::Sqlite`].
pub fn symbol_key(conn: &Connection, id: &str) -> Result<Option<i64>, Error> {
    // The path may hold `:`; the start line is the first all-digit part
    // after a prefix that is an indexed path.
    let mut statement = conn.prepare_cached(
        "SELECT s.key FROM symbols s JOIN files f ON f.id = s.file_id \
         WHERE f.path = ?1 AND s.start_line = ?2 AND s.qualname = ?3",
    )?;
    for (i, _) in id.match_indices(':') {
        let (path, rest) = (&id[..i], &id[i + 1..]);
        let Some((line, qualname)) = rest.split_once(':') else {
            continue;
        };
        let Ok(line) = line.parse::<u32>() else {
            continue;
        };
        if let Some(key) = statement
            .query_row(params![path, line, qualname], |row| row.get(0))
            .optional()?
        {
            return Ok(Some(key));
        }
    }
    Ok(None)
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

/// An iterator over reference rows.
pub(crate) type RefRows<'a> = dyn Iterator<Item = Result<RefRow, Error>> + 'a;

/// Calls `each` with an iterator over every reference of the index, sorted
/// by path, line, column (then sequence in the file), without holding them
/// all; returns what `each` returns.
pub(crate) fn each_reference<T>(
    conn: &Connection,
    each: &mut dyn FnMut(&mut RefRows<'_>) -> Result<T, Error>,
) -> Result<T, Error> {
    let sql = format!(
        "SELECT {} FROM refs r JOIN files f ON f.id = r.file_id \
         ORDER BY f.path, r.line, r.column, r.seq",
        ref_columns()
    );
    let mut statement = conn.prepare(&sql)?;
    let rows = statement.query_map([], ref_row)?;
    let mut rows = rows.map(|row| -> Result<RefRow, Error> {
        let (mut row, blob) = row?;
        if let Some(blob) = blob {
            for key in candidate_keys(&blob) {
                row.candidates.extend(symbol_id(conn, key)?);
            }
        }
        Ok(row)
    });
    each(&mut rows)
}

fn references(
    conn: &Connection,
    filter: &str,
    args: impl rusqlite::Params,
) -> Result<Vec<RefRow>, Error> {
    let sql = format!(
        "SELECT {} FROM refs r JOIN files f ON f.id = r.file_id \
         WHERE {filter} ORDER BY f.path, r.line, r.column",
        ref_columns()
    );
    let mut statement = conn.prepare_cached(&sql)?;
    let rows = statement.query_map(args, ref_row)?;
    let mut out = Vec::new();
    for row in rows {
        let (mut row, blob) = row?;
        if let Some(blob) = blob {
            for key in candidate_keys(&blob) {
                row.candidates.extend(symbol_id(conn, key)?);
            }
        }
        out.push(row);
    }
    Ok(out)
}

/// `text` cut to 200 characters (with `…`) for a message.
fn shortened(text: &str) -> String {
    match text.char_indices().nth(200) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text.to_owned(),
    }
}

/// The longest target (or `defs` name) taken, in characters: longer ones
/// are refused with a message that does not repeat them.
pub const MAX_TARGET_CHARS: usize = 1_000;

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
    if target.trim().is_empty() {
        return Err(Error::Target(
            "the target is empty: give an id (PATH:LINE:QUALNAME), PATH:QUALNAME, PATH:LINE \
             or PATH:LINE:COL"
                .to_owned(),
        ));
    }
    let length = target.chars().count();
    if length > MAX_TARGET_CHARS {
        return Err(Error::Target(format!(
            "the target is {length} characters long; at most {MAX_TARGET_CHARS}: give an id \
             (PATH:LINE:QUALNAME), PATH:QUALNAME, PATH:LINE or PATH:LINE:COL"
        )));
    }
    // `./app/models.py:User` names the same file as `app/models.py:User`.
    let mut target = target;
    while let Some(rest) = target.strip_prefix("./") {
        target = rest;
    }
    let is_file = |path: &str| {
        conn.query_row("SELECT 1 FROM files WHERE path = ?1", [path], |_| Ok(()))
            .optional()
            .ok()
            .flatten()
            .is_some()
    };
    let (path, selector) = split_target(target, is_file).map_err(|e| {
        Error::Target(match e {
            TargetError::NoFile if is_file(target) => format!(
                "{target}: a file; say which definition in it: PATH:QUALNAME, PATH:LINE, \
                 PATH:LINE:COL or an id PATH:LINE:QUALNAME"
            ),
            TargetError::NoFile => format!(
                "{target}: no indexed file is named before a `:` \
                 (give an id, PATH:QUALNAME, PATH:LINE or PATH:LINE:COL, with PATH relative \
                 to the root; a file that does not parse as a supported language, is ignored, \
                 or was deleted is not indexed)"
            ),
            TargetError::Selector { path, error } => format!("{target}: after {path}: {error}"),
        })
    })?;
    let asked = match &selector {
        // `PATH:LINE:` (a module-level block's id): the line.
        Selector::Id { line, qualname } if qualname.is_empty() => Asked::Line(*line),
        Selector::Id { line, qualname } if qualname.bytes().all(|b| b.is_ascii_digit()) => {
            Asked::Position(*line, qualname.parse().unwrap_or(0))
        }
        Selector::Id { qualname, .. } | Selector::Qualname(qualname) => {
            Asked::Name(qualname.clone())
        }
        Selector::Line(line) | Selector::Lines { start: line, .. } => Asked::Line(*line),
    };
    let found = match selector {
        Selector::Id { line, qualname } if qualname.is_empty() => innermost(conn, path, line)?,
        Selector::Id { line, qualname } if qualname.bytes().all(|b| b.is_ascii_digit()) => {
            let column: u32 = qualname
                .parse()
                .map_err(|_| Error::Target(format!("{target}: column {qualname} is too large")))?;
            if column == 0 {
                return Err(Error::Target(format!(
                    "{target}: column 0: columns are 1-based (characters)"
                )));
            }
            at_position(conn, target, path, line, column)?
        }
        Selector::Id { qualname, .. }
            if qualname.contains(':')
                && qualname
                    .split(':')
                    .all(|part| !part.is_empty() && part.bytes().all(|b| b.is_ascii_digit())) =>
        {
            return Err(Error::Target(format!(
                "{target}: malformed: after PATH give QUALNAME, LINE, LINE:COL or LINE:QUALNAME"
            )));
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
                // LIKE narrows (ignoring case); the suffix must match exactly.
                let suffix = format!(".{qualname}");
                let mut found = symbols(
                    conn,
                    "f.path = ?1 AND s.qualname LIKE ?2",
                    params![path, format!("%{suffix}")],
                )?;
                found.retain(|s| s.qualname.ends_with(&suffix));
                if found.is_empty() {
                    // Rust methods are qualified by their impl block:
                    // `Error.chain` is `impl Error.chain`, or
                    // `impl Display for Error.fmt`.
                    let in_trait_impl = format!(" for {qualname}");
                    found = symbols(
                        conn,
                        "f.path = ?1 AND (s.qualname = ?2 OR s.qualname LIKE ?3)",
                        params![
                            path,
                            format!("impl {qualname}"),
                            format!("impl %{in_trait_impl}")
                        ],
                    )?;
                    found.retain(|s| {
                        s.qualname == format!("impl {qualname}")
                            || s.qualname.ends_with(&in_trait_impl)
                    });
                }
                found
            } else {
                exact
            }
        }
        Selector::Line(line) => innermost(conn, path, line)?,
        Selector::Lines { start, .. } => innermost(conn, path, start)?,
    };
    match found.as_slice() {
        [one] => Ok(one.clone()),
        [] => Err(Error::Target(nothing_found(conn, target, path, &asked)?)),
        // One function declared several times (Python's `@overload`s then
        // the implementation, TypeScript's overload signatures): the last
        // is the one in force, where the references resolve.
        [first, .., last]
            if matches!(first.kind.as_str(), "function" | "method")
                && found
                    .iter()
                    .all(|s| s.qualname == first.qualname && s.kind == first.kind) =>
        {
            Ok(last.clone())
        }
        many => Err(Error::Target(format!(
            "{}: {} definitions match: {}",
            shortened(target),
            many.len(),
            many.iter()
                .take(10)
                .map(|s| format!("{} ({} L{}-{})", s.id, s.kind, s.start_line, s.end_line))
                .collect::<Vec<_>>()
                .join(", ")
        ))),
    }
}

/// What a target asked for in its file.
enum Asked {
    /// A qualname, or a name or dotted suffix of one.
    Name(String),
    /// The innermost definition containing a line.
    Line(u32),
    /// The name at a line and column.
    Position(u32, u32),
}

/// Most names [`nothing_found`] suggests.
const MAX_SUGGESTIONS: usize = 5;

/// Why `target` (in the indexed file `path`) names no definition, by what
/// it `asked`: for a name, the file's definitions named most like it (the
/// same name but for case, then by normalised Levenshtein similarity above
/// 0.6, as `read` suggests).
fn nothing_found(
    conn: &Connection,
    target: &str,
    path: &str,
    asked: &Asked,
) -> Result<String, Error> {
    let list = format!("`ast-outline outline {path}` lists its definitions");
    Ok(match asked {
        Asked::Name(wanted) => {
            let wanted_name = wanted.rsplit('.').next().unwrap_or(wanted);
            let mut scored: Vec<(f64, SymbolRow)> = symbols(conn, "f.path = ?1", [path])?
                .into_iter()
                .map(|s| {
                    // The same name but for case first (`a` for `A`).
                    let same_but_case = s.qualname.eq_ignore_ascii_case(wanted)
                        || s.name.eq_ignore_ascii_case(wanted_name);
                    let score = if same_but_case {
                        1.0
                    } else {
                        strsim::normalized_levenshtein(&s.qualname, wanted)
                            .max(strsim::normalized_levenshtein(&s.name, wanted_name))
                    };
                    (score, s)
                })
                .filter(|(score, _)| *score > 0.6)
                .collect();
            scored.sort_by(|a, b| b.0.total_cmp(&a.0));
            if scored.is_empty() {
                format!("{target}: no definition named {wanted} in {path}; {list}")
            } else {
                let ids: Vec<&str> = scored
                    .iter()
                    .take(MAX_SUGGESTIONS)
                    .map(|(_, s)| s.id.as_str())
                    .collect();
                format!(
                    "{target}: no definition named {wanted} in {path}; did you mean {}?",
                    ids.join(", ")
                )
            }
        }
        Asked::Line(line) => {
            let span: Option<(u32, u32)> = conn
                .query_row(
                    "SELECT min(s.start_line), max(s.end_line) FROM symbols s \
                     JOIN files f ON f.id = s.file_id WHERE f.path = ?1",
                    [path],
                    |row| {
                        Ok(row
                            .get::<_, Option<u32>>(0)?
                            .zip(row.get::<_, Option<u32>>(1)?))
                    },
                )
                .optional()?
                .flatten();
            match span {
                Some((first, last)) => format!(
                    "{target}: no definition contains line {line} of {path} (its definitions \
                     span lines {first}-{last}); {list}"
                ),
                None => format!("{target}: {path} defines nothing"),
            }
        }
        Asked::Position(line, column) => format!(
            "{target}: no name at line {line}, column {column} of {path} (a position names \
             the use or the definition of a name there; columns are 1-based characters); \
             {list}"
        ),
    })
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
    target: &str,
    path: &str,
    line: u32,
    column: u32,
) -> Result<Vec<SymbolRow>, Error> {
    let hits = references(
        conn,
        "f.path = ?1 AND r.line = ?2 AND r.column <= ?3 AND r.end_column > ?3",
        params![path, line, column],
    )?;
    if let Some(target) = hits
        .iter()
        .filter(|r| r.status != "module")
        .find_map(|r| r.target.clone())
        && let Some(key) = symbol_key(conn, &target)?
    {
        return symbols(conn, "s.key = ?1", [key]);
    }
    let named = symbols(
        conn,
        "f.path = ?1 AND s.name_line = ?2 AND s.name_column <= ?3 \
         AND s.name_column + length(s.name) > ?3",
        params![path, line, column],
    )?;
    if named.is_empty()
        && let Some(reference) = hits.first()
    {
        // A reference is there, but it names no definition of the project.
        let name = if reference.receiver.is_empty() {
            reference.name.clone()
        } else {
            format!("{}.{}", reference.receiver, reference.name)
        };
        if reference.status == "module" {
            return Err(Error::Target(format!(
                "{target}: `{name}` there names the module {}, not a definition",
                reference.target.as_deref().unwrap_or("?")
            )));
        }
        let candidates = if reference.candidates.is_empty() {
            String::new()
        } else {
            format!("; candidates: {}", reference.candidates.join(", "))
        };
        return Err(Error::Target(format!(
            "{target}: `{name}` there is not resolved to a definition of the project \
             ({} via {}{candidates})",
            reference.status, reference.via
        )));
    }
    Ok(named)
}

/// References to `id`: resolved ones, and with `candidates` also the
/// unresolved ones that list it as a candidate.
///
/// # Errors
/// [`Error::Sqlite`]. An `id` that is not in the index has no results.
pub fn refs(conn: &Connection, id: &str, candidates: bool) -> Result<Vec<RefRow>, Error> {
    let Some(key) = symbol_key(conn, id)? else {
        return Ok(Vec::new());
    };
    let mut rows = references(conn, "r.target = ?1 AND r.status != 3 /* module */", [key])?;
    if !candidates {
        // Name-only matches whose likely definition (the one in the file or
        // in a file it imports) is this one: shown, labelled `candidate`.
        rows.extend(references(conn, SHOWN_CANDIDATE, [first_candidate(key)])?);
        rows.sort_by(|a, b| (&a.path, a.line, a.column).cmp(&(&b.path, b.line, b.column)));
    } else {
        let name: String =
            conn.query_row("SELECT name FROM symbols WHERE key = ?1", [key], |row| {
                row.get(0)
            })?;
        let listed = references(
            conn,
            "r.status IN (1, 5) /* candidate, dynamic */ AND r.name = ?1 \
             AND r.candidates IS NOT NULL",
            [name],
        )?;
        rows.extend(
            listed
                .into_iter()
                .filter(|r| r.candidates.iter().any(|c| c == id)),
        );
        rows.sort_by(|a, b| (&a.path, a.line, a.column).cmp(&(&b.path, b.line, b.column)));
    }
    Ok(rows)
}

/// Calls and instantiations named `name` that resolve to no definition
/// (a removed definition's former callers: what an impact report says
/// will break), in the files `ref_names` says use the name; references to
/// modules left out. By path, line and column.
///
/// # Errors
/// [`Error::Sqlite`].
pub fn unresolved_calls(conn: &Connection, name: &str) -> Result<Vec<RefRow>, Error> {
    references(
        conn,
        "r.file_id IN (SELECT file_id FROM ref_names WHERE name_hash = ?1) AND r.name = ?2 \
         AND r.role IN (0, 1) /* call, instantiate */ AND r.target IS NULL \
         AND r.status != 3 /* module */",
        rusqlite::params![crate::store::name_hash(name), name],
    )
}

/// How many unresolved references list `id` among their name-only
/// candidates without being shown by [`refs`] without `candidates` (those
/// whose likely candidate it is not); with `calls_only`, only calls and
/// instantiations (what [`callers`] leaves out). The rows come from the
/// files `ref_names` says use the name.
///
/// # Errors
/// [`Error::Sqlite`]. An `id` that is not in the index has none.
pub fn hidden_candidates(conn: &Connection, id: &str, calls_only: bool) -> Result<usize, Error> {
    let Some(key) = symbol_key(conn, id)? else {
        return Ok(0);
    };
    let name: String = conn.query_row("SELECT name FROM symbols WHERE key = ?1", [key], |row| {
        row.get(0)
    })?;
    let mut statement = conn.prepare_cached(
        "SELECT r.candidates, r.via, r.role FROM ref_names n \
         JOIN refs r ON r.file_id = n.file_id \
         WHERE n.name_hash = ?1 AND r.name = ?2 AND r.status = 1 /* candidate */ \
         AND r.candidates IS NOT NULL",
    )?;
    let rows = statement.query_map(
        rusqlite::params![crate::store::name_hash(&name), name],
        |row| {
            Ok((
                row.get::<_, Vec<u8>>(0)?,
                row.get::<_, i64>(1)?,
                row.get::<_, i64>(2)?,
            ))
        },
    )?;
    let mut hidden = 0;
    for row in rows {
        let (blob, via, role) = row?;
        let keys = candidate_keys(&blob);
        let shown = via == 7 /* name_imported */ && keys.first() == Some(&key);
        if keys.contains(&key) && !shown && (!calls_only || role <= 1/* call, instantiate */) {
            hidden += 1;
        }
    }
    Ok(hidden)
}

/// Whether the symbol `key` is a getter: TypeScript's `get x()`, a Python
/// method decorated `@property` or `@cached_property` (its detail starts
/// with the decorators).
fn is_getter(conn: &Connection, key: i64) -> Result<bool, Error> {
    let found: Option<(String, String)> = conn
        .query_row(
            "SELECT kind, detail FROM symbols WHERE key = ?1",
            [key],
            |row| Ok((row.get(0)?, row.get(1)?)),
        )
        .optional()?;
    Ok(found.is_some_and(|(kind, detail)| {
        kind == "getter"
            || (kind == "method"
                && detail
                    .split_whitespace()
                    .take_while(|word| word.starts_with('@'))
                    .any(|d| {
                        matches!(
                            d,
                            "@property" | "@cached_property" | "@functools.cached_property"
                        )
                    }))
    }))
}

/// The class whose constructor the symbol `key` is (a Python `__init__`
/// or `__new__`, a TypeScript `constructor`), if it is one.
fn constructed_class(conn: &Connection, key: i64) -> Result<Option<i64>, Error> {
    Ok(conn
        .query_row(
            "SELECT s.parent FROM symbols s JOIN symbols p ON p.key = s.parent \
             WHERE s.key = ?1 AND p.kind = 'class' \
             AND (s.kind = 'constructor' OR (s.kind = 'method' AND s.name IN ('__init__', '__new__')))",
            [key],
            |row| row.get::<_, Option<i64>>(0),
        )
        .optional()?
        .flatten())
}

/// The rows of unresolved references found `name_imported` whose first
/// (likely) candidate is the key given as `?1` (a [`first_candidate`]
/// blob); the partial index `refs_shown_candidate` holds exactly these
/// rows, by that expression.
const SHOWN_CANDIDATE: &str = "r.status = 1 /* candidate */ AND r.via = 7 /* name_imported */ \
     AND substr(r.candidates, 1, 8) = ?1";

/// The first 8 bytes of a `candidates` blob whose first candidate is `key`.
fn first_candidate(key: i64) -> Vec<u8> {
    key.to_le_bytes().to_vec()
}

/// Calls (and instantiations) of `id`, then calls of those callers, up to
/// `depth` levels (at least 1), each caller visited once.
///
/// # Errors
/// [`Error::Sqlite`]. An `id` that is not in the index has no results.
pub fn callers(conn: &Connection, id: &str, depth: u32) -> Result<Vec<CallerRow>, Error> {
    let mut out = Vec::new();
    let Some(start) = symbol_key(conn, id)? else {
        return Ok(Vec::new());
    };
    let mut seen: HashSet<i64> = HashSet::from([start]);
    let mut frontier = vec![(start, id.to_owned())];
    let mut statement = conn.prepare_cached(
        "SELECT caller FROM refs WHERE target = ?1 AND role IN (0, 1) /* call, instantiate */ \
         AND caller IS NOT NULL",
    )?;
    let mut sole = conn.prepare_cached(
        "SELECT caller FROM refs WHERE status = 1 AND via = 7 AND substr(candidates, 1, 8) = ?1 \
         AND role IN (0, 1) AND caller IS NOT NULL",
    )?;
    for level in 1..=depth.max(1) {
        let mut next = Vec::new();
        for (callee_key, callee) in &frontier {
            let mut calls = references(
                conn,
                "r.target = ?1 AND r.role IN (0, 1) /* call, instantiate */ AND r.status != 3 /* module */",
                [callee_key],
            )?;
            // Name-only calls whose likely definition is this one, labelled.
            let blob = first_candidate(*callee_key);
            calls.extend(references(
                conn,
                &format!("{SHOWN_CANDIDATE} AND r.role IN (0, 1)"),
                [&blob],
            )?);
            let mut caller_keys: Vec<i64> = statement
                .query_map([callee_key], |row| row.get(0))?
                .collect::<Result<_, _>>()?;
            for caller in sole.query_map([&blob], |row| row.get(0))? {
                caller_keys.push(caller?);
            }
            // A getter (`get x()`, Python's `@property`) is called by each
            // read of it.
            if is_getter(conn, *callee_key)? {
                calls.extend(references(
                    conn,
                    "r.target = ?1 AND r.role IN (5, 6) /* attribute, read */",
                    [callee_key],
                )?);
                let mut reads = conn.prepare_cached(
                    "SELECT caller FROM refs WHERE target = ?1 AND role IN (5, 6) \
                     AND caller IS NOT NULL",
                )?;
                for caller in reads.query_map([callee_key], |row| row.get(0))? {
                    caller_keys.push(caller?);
                }
            }
            // A constructor (`__init__`, `constructor`) is called by each
            // instantiation of its class (`User()`, `new User()`).
            if let Some(class) = constructed_class(conn, *callee_key)? {
                calls.extend(references(
                    conn,
                    "r.target = ?1 AND r.role = 1 /* instantiate */",
                    [class],
                )?);
                let mut instantiations = conn.prepare_cached(
                    "SELECT caller FROM refs WHERE target = ?1 AND role = 1 AND caller IS NOT NULL",
                )?;
                for caller in instantiations.query_map([class], |row| row.get(0))? {
                    caller_keys.push(caller?);
                }
            }
            for caller in caller_keys {
                if seen.insert(caller)
                    && let Some(caller_id) = symbol_id(conn, caller)?
                {
                    next.push((caller, caller_id));
                }
            }
            out.extend(calls.into_iter().map(|call| CallerRow {
                depth: level,
                callee: callee.clone(),
                call,
            }));
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
/// resolved or not, and its dynamic imports (role `import`, status
/// `dynamic`: `importlib.import_module("m")`, `import(path)`).
///
/// # Errors
/// [`Error::Sqlite`]. An `id` that is not in the index has no results.
pub fn callees(conn: &Connection, id: &str) -> Result<Vec<RefRow>, Error> {
    let Some(key) = symbol_key(conn, id)? else {
        return Ok(Vec::new());
    };
    references(conn, crate::store::CALLEES, [key])
}

/// Supertypes and subtypes of `id`, transitively.
///
/// # Errors
/// [`Error::Sqlite`]. An `id` that is not in the index has no results.
pub fn hierarchy(conn: &Connection, id: &str) -> Result<Hierarchy, Error> {
    let Some(start) = symbol_key(conn, id)? else {
        return Ok(Hierarchy {
            supertypes: Vec::new(),
            subtypes: Vec::new(),
        });
    };
    // Bases in their written order (the order lookups search them);
    // subtypes, which have no order of their own, by path and line (a
    // refresh must not change it).
    let walk = |from: &str, to: &str| -> Result<Vec<Related>, Error> {
        let order = if to == "supertype" {
            "r.rowid"
        } else {
            "f.path, s.start_line, r.rowid"
        };
        let sql = format!(
            "SELECT r.{to} FROM relations r JOIN symbols s ON s.key = r.{to} \
             JOIN files f ON f.id = s.file_id WHERE r.{from} = ?1 ORDER BY {order}"
        );
        let mut statement = conn.prepare(&sql)?;
        let mut out = Vec::new();
        let mut seen = HashSet::from([start]);
        let mut frontier = vec![(start, id.to_owned())];
        let mut depth = 0;
        while !frontier.is_empty() && depth < 100 {
            depth += 1;
            let mut next = Vec::new();
            for (current, current_id) in &frontier {
                let found: Vec<i64> = statement
                    .query_map([current], |row| row.get(0))?
                    .collect::<Result<_, _>>()?;
                for other in found {
                    if seen.insert(other) {
                        for symbol in symbols(conn, "s.key = ?1", [other])? {
                            next.push((other, symbol.id.clone()));
                            out.push(Related {
                                depth,
                                via: current_id.clone(),
                                symbol,
                            });
                        }
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

/// A definition with the place of its name.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct NamedSymbol {
    /// The definition.
    pub symbol: SymbolRow,
    /// Line of the name (1-based).
    pub name_line: u32,
    /// Column of the name's first character (1-based, characters).
    pub name_column: u32,
}

/// Where the name of the definition `id` is: (line, column), 1-based, the
/// column in characters; `None` when no definition has that id.
///
/// # Errors
/// [`Error::Sqlite`].
pub fn name_position(conn: &Connection, id: &str) -> Result<Option<(u32, u32)>, Error> {
    let Some(key) = symbol_key(conn, id)? else {
        return Ok(None);
    };
    Ok(conn
        .prepare_cached("SELECT name_line, name_column FROM symbols WHERE key = ?1")?
        .query_row([key], |row| Ok((row.get(0)?, row.get(1)?)))
        .optional()?)
}

/// The definitions (not blocks) whose name contains `part`, ASCII letters
/// compared without case (SQLite's `LIKE`), shortest names first, then by
/// name, path and line; at most `limit`.
///
/// # Errors
/// [`Error::Sqlite`].
pub fn symbols_containing(
    conn: &Connection,
    part: &str,
    limit: usize,
) -> Result<Vec<NamedSymbol>, Error> {
    let pattern = format!(
        "%{}%",
        part.replace('\\', "\\\\")
            .replace('%', "\\%")
            .replace('_', "\\_")
    );
    let sql = format!(
        "SELECT {SYMBOL_COLUMNS}, s.name_line, s.name_column \
         FROM symbols s JOIN files f ON f.id = s.file_id \
         WHERE s.name LIKE ?1 ESCAPE '\\' AND s.kind != 'block' \
         ORDER BY length(s.name), s.name, f.path, s.start_line LIMIT ?2"
    );
    let mut statement = conn.prepare_cached(&sql)?;
    let limit = i64::try_from(limit).unwrap_or(i64::MAX);
    let rows = statement.query_map(params![pattern, limit], |row| {
        Ok(NamedSymbol {
            symbol: symbol_row(row)?,
            name_line: row.get(8)?,
            name_column: row.get(9)?,
        })
    })?;
    Ok(rows.collect::<Result<_, _>>()?)
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
        "s.key IN (SELECT key FROM symbols WHERE name = ?1 \
         UNION SELECT key FROM symbols WHERE qualname = ?1)",
        [name],
    )
}
