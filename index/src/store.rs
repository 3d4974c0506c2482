//! The SQLite schema, opening a database, and the version check.
//!
//! Tables (all paths are the display paths used in symbol ids, `/`-separated;
//! lines 1-based; columns 1-based characters, end columns exclusive). Symbols
//! are keyed by an integer (`symbols.key`) everywhere else in the database;
//! their text id `PATH:START_LINE:QUALNAME` is derived from the file's path,
//! the start line and the qualname, never stored.
//! - `meta(key, value)`: `schema_version` ([`SCHEMA_VERSION`]) and
//!   `facts_version` ([`outline_core::xref::FACTS_VERSION`]); a database with
//!   any other value is dropped and rebuilt, never read. Also the counts
//!   `references`, `resolved` and `relations`, kept up to date by each
//!   refresh (so a refresh with nothing changed never scans `refs`).
//! - `files(id, path, language, size, mtime_ns, hash, module, is_package,
//!   partial, diagnostics, facts, refs_facts)`: one row per indexed file; a
//!   file keeps its `id` across refreshes while it exists; `hash` is the
//!   XXH3-64 of its bytes in hex; `facts` the file's
//!   [`outline_core::xref::Facts`] needed to resolve *other* files (imports,
//!   types, `__all__`, and the inheritance references only) and
//!   `refs_facts` all its references, both as [`encode`]d blobs (JSON
//!   compressed with LZ4), kept so an unchanged file is never parsed again
//!   when references are re-resolved. The index `files_rows` covers every
//!   column but the blobs: reading all rows without their facts (each
//!   refresh's change check, the file list of a refresh on demand) never
//!   touches the pages the blobs fill.
//! - `symbols(key, file_id, name, qualname, kind, start_line, end_line,
//!   name_line, name_column, parent, ord)`: every symbol of the outline but
//!   blocks; `parent` is the enclosing symbol's key; `ord` the symbol's
//!   position in its file's outline (source order, parents before their
//!   children, from 0). A symbol keeps its key when its file is parsed again
//!   and still holds a symbol of the same qualname and kind (the n-th of
//!   that qualname and kind keeps the key of the n-th before): references
//!   and relations to it stay valid while its lines move. The index
//!   `symbols_name` covers (name, qualname, file_id, ord): the definitions
//!   of a name, top-level or members, are found without reading the table.
//! - `imports(file_id, line, local, module, level, name, scope)`; the
//!   indexes `imports_module` (the absolute imports of a module) and
//!   `imports_relative` (files with relative imports) find the importers of
//!   a changed module.
//! - `mentions(file_id, name, inherit)`: each name a file's scope facts
//!   mention where a change to a definition of that name could change the
//!   file's resolution: the names its imports bind and import (`*` for a
//!   star import), the parts of its locals' type paths, of call receivers
//!   and of attribute types, and (`inherit` = 1) the names and receiver
//!   parts of its base-class references. The index `mentions_name` finds
//!   the files that mention a name (the refresh rule in `refresh.rs`).
//! - `refs(file_id, seq, line, column, end_column, name, receiver, role,
//!   caller, status, target, target_file, candidates, confidence, via)`:
//!   `seq` is the reference's index in the file's facts (`(file_id, seq)` is
//!   the primary key, the table is clustered by it); `receiver` is the
//!   dotted receiver (`self`, `a.b`), `?` for an expression, empty for a bare
//!   name; `caller` the key of the enclosing definition (NULL at module
//!   level); `status` is `resolved`, `candidate`, `external` or `module`;
//!   `target` the key of the resolved symbol, `target_file` the id of the
//!   file a `module` reference names; `candidates` the candidate keys as
//!   little-endian 8-byte integers (NULL when none). The indexes
//!   `refs_target` and `refs_caller` are partial (`IS NOT NULL`): every
//!   query compares the column to a key (`target = ?`), which SQLite can
//!   answer from a partial index, and leaving the NULL rows out (two in
//!   five targets, one in six callers) makes them cheaper to build.
//! - `relations(subtype, supertype, kind)`: symbol keys.

use std::path::Path;

use rusqlite::{Connection, OptionalExtension, params};

use crate::Error;

/// Version of the schema below; bump it on any change.
pub const SCHEMA_VERSION: u32 = 7;

const SCHEMA: &str = "
CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE files(
    id INTEGER PRIMARY KEY,
    path TEXT NOT NULL UNIQUE,
    language TEXT NOT NULL,
    size INTEGER NOT NULL,
    mtime_ns INTEGER NOT NULL,
    hash TEXT NOT NULL,
    module TEXT,
    is_package INTEGER NOT NULL,
    partial INTEGER NOT NULL,
    diagnostics INTEGER NOT NULL,
    facts BLOB NOT NULL,
    refs_facts BLOB NOT NULL
);
CREATE INDEX files_rows ON files(path, id, language, module, is_package, size, mtime_ns, hash);
CREATE TABLE symbols(
    key INTEGER PRIMARY KEY,
    file_id INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
    name TEXT NOT NULL,
    qualname TEXT NOT NULL,
    kind TEXT NOT NULL,
    start_line INTEGER NOT NULL,
    end_line INTEGER NOT NULL,
    name_line INTEGER NOT NULL,
    name_column INTEGER NOT NULL,
    parent INTEGER,
    ord INTEGER NOT NULL
);
CREATE INDEX symbols_file ON symbols(file_id, ord);
CREATE INDEX symbols_name ON symbols(name, qualname, file_id, ord);
CREATE INDEX symbols_qualname ON symbols(qualname);
CREATE TABLE imports(
    file_id INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
    line INTEGER NOT NULL,
    local TEXT NOT NULL,
    module TEXT NOT NULL,
    level INTEGER NOT NULL,
    name TEXT,
    scope TEXT
);
CREATE INDEX imports_file ON imports(file_id);
CREATE INDEX imports_module ON imports(module) WHERE level = 0;
CREATE INDEX imports_relative ON imports(file_id) WHERE level > 0;
CREATE TABLE mentions(
    file_id INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
    name TEXT NOT NULL,
    inherit INTEGER NOT NULL,
    PRIMARY KEY(file_id, name, inherit)
) WITHOUT ROWID;
CREATE INDEX mentions_name ON mentions(name);
CREATE TABLE refs(
    file_id INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
    seq INTEGER NOT NULL,
    line INTEGER NOT NULL,
    column INTEGER NOT NULL,
    end_column INTEGER NOT NULL,
    name TEXT NOT NULL,
    receiver TEXT NOT NULL,
    role TEXT NOT NULL,
    caller INTEGER,
    status TEXT NOT NULL,
    target INTEGER,
    target_file INTEGER,
    candidates BLOB,
    confidence REAL NOT NULL,
    via TEXT NOT NULL,
    PRIMARY KEY(file_id, seq)
) WITHOUT ROWID;
CREATE TABLE relations(subtype INTEGER NOT NULL, supertype INTEGER NOT NULL, kind TEXT NOT NULL);
CREATE INDEX relations_subtype ON relations(subtype);
CREATE INDEX relations_supertype ON relations(supertype);
";

/// The indexes of `refs`, dropped during a full rebuild and created again
/// after it.
pub(crate) const REFS_INDEXES: &str = "
CREATE INDEX refs_target ON refs(target) WHERE target IS NOT NULL;
CREATE INDEX refs_caller ON refs(caller) WHERE caller IS NOT NULL;
CREATE INDEX refs_name ON refs(name);
";

/// Creates the indexes of [`REFS_INDEXES`] (after a full rebuild filled
/// `refs`), the sorts using one helper thread per other core (SQLite's
/// `threads` pragma, at most 4; back to none after).
///
/// # Errors
/// [`Error::Sqlite`] when SQLite fails.
pub(crate) fn create_refs_indexes(conn: &Connection) -> Result<(), Error> {
    let helpers = std::thread::available_parallelism().map_or(0, |n| n.get().saturating_sub(1));
    conn.pragma_update(None, "threads", i64::try_from(helpers.min(4)).unwrap_or(0))?;
    let created = conn.execute_batch(REFS_INDEXES);
    conn.pragma_update(None, "threads", 0)?;
    Ok(created?)
}

/// Drops the indexes of [`REFS_INDEXES`].
pub(crate) const DROP_REFS_INDEXES: &str = "
DROP INDEX IF EXISTS refs_target; DROP INDEX IF EXISTS refs_caller;
DROP INDEX IF EXISTS refs_name;
";

/// The SQL expression of the text id of the symbol `s` in the file `f`
/// (`PATH:START_LINE:QUALNAME`, as [`outline_core::symbol_id`] builds it).
pub(crate) const SYMBOL_ID_SQL: &str = "f.path || ':' || s.start_line || ':' || s.qualname";

/// Encodes a value for a blob column: JSON, compressed with LZ4 (size
/// prepended).
///
/// # Errors
/// [`Error::Json`] when the value cannot be written as JSON.
pub fn encode<T: serde::Serialize>(value: &T) -> Result<Vec<u8>, Error> {
    let json = serde_json::to_vec(value).map_err(|e| Error::Json(e.to_string()))?;
    Ok(lz4_flex::compress_prepend_size(&json))
}

/// Decodes a blob written by [`encode`].
///
/// # Errors
/// [`Error::Json`] when the blob is not LZ4 or not the JSON of a `T`.
pub fn decode<T: serde::de::DeserializeOwned>(blob: &[u8]) -> Result<T, Error> {
    let json = lz4_flex::decompress_size_prepended(blob).map_err(|e| Error::Json(e.to_string()))?;
    serde_json::from_slice(&json).map_err(|e| Error::Json(e.to_string()))
}

/// A count kept in `meta` (`references`, `resolved`, `relations`); 0 when
/// absent.
pub(crate) fn meta_count(conn: &Connection, key: &str) -> Result<i64, Error> {
    let value: Option<String> = conn
        .query_row("SELECT value FROM meta WHERE key = ?1", [key], |row| {
            row.get(0)
        })
        .optional()?;
    Ok(value.and_then(|v| v.parse().ok()).unwrap_or(0))
}

/// Stores a count in `meta`.
pub(crate) fn set_meta_count(conn: &Connection, key: &str, value: i64) -> Result<(), Error> {
    conn.execute(
        "INSERT INTO meta(key, value) VALUES (?1, ?2) \
         ON CONFLICT(key) DO UPDATE SET value = excluded.value",
        params![key, value.to_string()],
    )?;
    Ok(())
}

/// Opens (creating if needed) the database at `path` in WAL mode, and makes
/// sure it has this version's schema: a database of another version (or not
/// an index at all, but a valid SQLite file) is emptied and recreated.
/// Returns the connection and whether it was (re)created.
///
/// # Errors
/// [`Error::Io`] when the directory cannot be created, [`Error::Sqlite`]
/// when SQLite fails (not a database, read-only, locked).
pub fn open(path: &Path) -> Result<(Connection, bool), Error> {
    if let Some(parent) = path.parent()
        && !parent.as_os_str().is_empty()
    {
        std::fs::create_dir_all(parent).map_err(|e| Error::Io(parent.display().to_string(), e))?;
    }
    let mut conn = Connection::open(path)?;
    conn.pragma_update(None, "journal_mode", "WAL")?;
    conn.pragma_update(None, "synchronous", "NORMAL")?;
    conn.pragma_update(None, "foreign_keys", "ON")?;
    // Larger page cache and in-memory temporary b-trees (index builds).
    conn.pragma_update(None, "cache_size", -65536)?;
    conn.pragma_update(None, "temp_store", "MEMORY")?;
    conn.busy_timeout(std::time::Duration::from_secs(10))?;
    let created = if versions(&conn)? == Some((SCHEMA_VERSION, outline_core::xref::FACTS_VERSION)) {
        false
    } else {
        recreate(&mut conn)?;
        true
    };
    Ok((conn, created))
}

/// (schema_version, facts_version) stored in `meta`, or `None` when there is
/// no such table or value.
pub fn versions(conn: &Connection) -> Result<Option<(u32, u32)>, Error> {
    let has_meta: bool = conn
        .query_row(
            "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'meta'",
            [],
            |row| row.get::<_, i64>(0),
        )
        .map(|n| n > 0)?;
    if !has_meta {
        return Ok(None);
    }
    let get = |key: &str| -> Result<Option<u32>, Error> {
        let value: Option<String> = conn
            .query_row("SELECT value FROM meta WHERE key = ?1", [key], |row| {
                row.get(0)
            })
            .optional()?;
        Ok(value.and_then(|v| v.parse().ok()))
    };
    if !has_every_table(conn)? {
        return Ok(None);
    }
    Ok(match (get("schema_version")?, get("facts_version")?) {
        (Some(schema), Some(facts)) => Some((schema, facts)),
        _ => None,
    })
}

/// Whether every table of [`SCHEMA`] exists (a damaged or hand-edited
/// database may have lost one: it is then rebuilt like another version).
fn has_every_table(conn: &Connection) -> Result<bool, Error> {
    let mut statement =
        conn.prepare("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = ?1")?;
    for name in SCHEMA
        .lines()
        .filter_map(|line| line.trim().strip_prefix("CREATE TABLE "))
        .filter_map(|rest| rest.split(['(', ' ']).next())
    {
        let count: i64 = statement.query_row([name], |row| row.get(0))?;
        if count == 0 {
            return Ok(false);
        }
    }
    Ok(true)
}

/// Drops every table and view and creates this version's schema, in one
/// transaction.
pub(crate) fn recreate(conn: &mut Connection) -> Result<(), Error> {
    let tx = conn.transaction()?;
    let names: Vec<(String, String)> = {
        let mut statement = tx.prepare(
            "SELECT type, name FROM sqlite_master \
             WHERE type IN ('table', 'view') AND name NOT LIKE 'sqlite_%'",
        )?;
        let rows = statement.query_map([], |row| Ok((row.get(0)?, row.get(1)?)))?;
        rows.collect::<Result<_, _>>()?
    };
    for (kind, name) in names {
        let kind = if kind == "view" { "VIEW" } else { "TABLE" };
        tx.execute_batch(&format!(
            "DROP {kind} IF EXISTS \"{}\"",
            name.replace('"', "\"\"")
        ))?;
    }
    tx.execute_batch(SCHEMA)?;
    tx.execute_batch(REFS_INDEXES)?;
    tx.execute(
        "INSERT INTO meta(key, value) VALUES ('schema_version', ?1), ('facts_version', ?2)",
        params![
            SCHEMA_VERSION.to_string(),
            outline_core::xref::FACTS_VERSION.to_string()
        ],
    )?;
    tx.commit()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The plan SQLite picks for `sql` (one `?1` parameter), its detail
    /// lines joined.
    fn plan(conn: &Connection, sql: &str) -> String {
        let mut statement = conn
            .prepare(&format!("EXPLAIN QUERY PLAN {sql}"))
            .expect("statement");
        let rows = statement
            .query_map([1], |row| row.get::<_, String>(3))
            .expect("plan");
        rows.map(|row| row.expect("row"))
            .collect::<Vec<_>>()
            .join("; ")
    }

    /// The partial indexes of `refs` (`IS NOT NULL`) serve the lookups by
    /// key the queries and the refresh make.
    #[test]
    fn lookups_by_target_and_caller_use_the_partial_indexes() {
        let mut conn = Connection::open_in_memory().expect("database");
        recreate(&mut conn).expect("schema");
        for (sql, index) in [
            (
                "SELECT file_id, seq FROM refs WHERE target = ?1",
                "refs_target",
            ),
            (
                "SELECT caller FROM refs WHERE target = ?1 AND role IN ('call', 'instantiate')",
                "refs_target",
            ),
            (
                "SELECT r.line FROM refs r JOIN files f ON f.id = r.file_id \
                 WHERE r.target = ?1 AND r.status != 'module' ORDER BY f.path, r.line",
                "refs_target",
            ),
            (
                "SELECT r.line FROM refs r JOIN files f ON f.id = r.file_id \
                 WHERE r.caller = ?1 AND r.role IN ('call', 'instantiate') ORDER BY f.path",
                "refs_caller",
            ),
            ("SELECT file_id, seq FROM refs WHERE name = ?1", "refs_name"),
        ] {
            let plan = plan(&conn, sql);
            assert!(plan.contains(index), "{sql}: {plan}");
        }
    }
}
