//! The SQLite schema, opening a database, and the version check.
//!
//! Tables (all paths are the display paths used in symbol ids, `/`-separated;
//! lines 1-based; columns 1-based characters, end columns exclusive):
//! - `meta(key, value)`: `schema_version` ([`SCHEMA_VERSION`]) and
//!   `facts_version` ([`outline_core::xref::FACTS_VERSION`]). A database with
//!   any other value is dropped and rebuilt, never read.
//! - `files(id, path, language, size, mtime_ns, hash, module, is_package,
//!   partial, diagnostics, facts)`: one row per indexed file; `hash` is the
//!   XXH3-64 of its bytes in hex; `facts` the file's
//!   [`outline_core::xref::Facts`] as JSON (kept so an unchanged file is never
//!   parsed again when references are re-resolved).
//! - `symbols(file_id, id, name, qualname, kind, start_line, end_line,
//!   name_line, name_column, parent)`: every symbol of the outline but blocks;
//!   `parent` is the enclosing symbol's id.
//! - `imports(file_id, line, local, module, level, name, scope)`.
//! - `refs(file_id, line, column, end_column, name, receiver, role, caller,
//!   status, target, candidates, confidence, via)`: `receiver` is the dotted
//!   receiver (`self`, `a.b`), `?` for an expression, empty for a bare name;
//!   `caller` the id of the enclosing definition (NULL at module level);
//!   `status` is `resolved`, `candidate`, `external` or `module` (then
//!   `target` is the module's file path); `candidates` a JSON array of ids.
//! - `relations(subtype, supertype, kind)`.

use std::path::Path;

use rusqlite::{Connection, OptionalExtension, params};

use crate::Error;

/// Version of the schema below; bump it on any change.
pub const SCHEMA_VERSION: u32 = 2;

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
    facts TEXT NOT NULL
);
CREATE TABLE symbols(
    file_id INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
    id TEXT NOT NULL,
    name TEXT NOT NULL,
    qualname TEXT NOT NULL,
    kind TEXT NOT NULL,
    start_line INTEGER NOT NULL,
    end_line INTEGER NOT NULL,
    name_line INTEGER NOT NULL,
    name_column INTEGER NOT NULL,
    parent TEXT
);
CREATE INDEX symbols_file ON symbols(file_id);
CREATE INDEX symbols_id ON symbols(id);
CREATE INDEX symbols_name ON symbols(name);
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
CREATE TABLE refs(
    file_id INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
    line INTEGER NOT NULL,
    column INTEGER NOT NULL,
    end_column INTEGER NOT NULL,
    name TEXT NOT NULL,
    receiver TEXT NOT NULL,
    role TEXT NOT NULL,
    caller TEXT,
    status TEXT NOT NULL,
    target TEXT,
    candidates TEXT NOT NULL,
    confidence REAL NOT NULL,
    via TEXT NOT NULL
);
CREATE TABLE relations(subtype TEXT NOT NULL, supertype TEXT NOT NULL, kind TEXT NOT NULL);
CREATE INDEX relations_subtype ON relations(subtype);
CREATE INDEX relations_supertype ON relations(supertype);
";

/// The indexes of `refs`, dropped during a bulk insert and created again
/// after it.
pub(crate) const REFS_INDEXES: &str = "
CREATE INDEX refs_target ON refs(target);
CREATE INDEX refs_caller ON refs(caller);
CREATE INDEX refs_name ON refs(name);
CREATE INDEX refs_position ON refs(file_id, line);
";

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
    Ok(match (get("schema_version")?, get("facts_version")?) {
        (Some(schema), Some(facts)) => Some((schema, facts)),
        _ => None,
    })
}

/// Drops every table and view and creates this version's schema, in one
/// transaction.
fn recreate(conn: &mut Connection) -> Result<(), Error> {
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
