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
//!   refresh (so a refresh with nothing changed never scans `refs`),
//!   `created` (when the tables were created, and by which process: file
//!   ids and symbol keys start again in a new index), and
//!   `walk_notes`, the notes of the last walk of the whole tree (unreadable
//!   directories, broken links) as a JSON array, when there were any.
//! - `files(id, path, language, size, mtime_ns, hash, module, is_package,
//!   partial, diagnostics, facts, refs_facts)`: one row per indexed file; a
//!   file keeps its `id` across refreshes while it exists; `hash` is the
//!   XXH3-64 of its bytes in hex; `facts` the file's
//!   [`outline_core::xref::Facts`] needed to resolve *other* files (imports,
//!   types, `__all__`, and the inheritance references only) and
//!   `refs_facts` all its references, both as [`encode`]d blobs (MessagePack
//!   compressed with LZ4), kept so an unchanged file is never parsed again
//!   when references are re-resolved. The index `files_rows` covers every
//!   column but the blobs: reading all rows without their facts (each
//!   refresh's change check, the file list of a refresh on demand) never
//!   touches the pages the blobs fill.
//! - `symbols(key, file_id, name, qualname, kind, start_line, end_line,
//!   name_line, name_column, parent, ord, detail)`: every symbol of the outline but
//!   blocks; `parent` is the enclosing symbol's key; `ord` the symbol's
//!   position in its file's outline (source order, parents before their
//!   children, from 0); `detail` its decorators and signature as
//!   `find_symbol` prints them ([`ast_outline::read::summary_detail`]). A
//!   symbol keeps its key when its file is parsed again
//!   and still holds a symbol of the same qualname and kind (the n-th of
//!   that qualname and kind keeps the key of the n-th before): references
//!   and relations to it stay valid while its lines move. The index
//!   `symbols_name` covers (name, qualname, file_id, ord): the definitions
//!   of a name, top-level or members, are found without reading the table.
//! - `callbacks(file_id, seq, ord, name, qualname, start_line, end_line,
//!   detail)`: the blocks of the outline that are callbacks (`test('adds')`,
//!   `app.get('/users')`: found by name, not definitions), `seq`-th in the
//!   file; `ord` is the number of symbols before it in the outline's order
//!   (it comes after the symbol of `ord - 1` and before that of `ord`);
//!   `qualname` is its owner's, as for every block.
//! - `left_out(path, problem, size, mtime_ns)`: the files the walk gave
//!   that are not indexed (binary, too large, unreadable, or their parse
//!   worker failed) and why, as the refresh says; kept by every refresh, so
//!   a lookup knows its answer would miss them. A file whose parse worker
//!   failed (crashed, or passed its time or memory limit) has the size and
//!   mtime it had: a refresh of every file does not parse it again while
//!   they are the same (each CLI query would otherwise wait the time limit
//!   again for a file that hangs its parser); the other rows have NULLs.
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
//!   level); `role`, `status` (`resolved`, `candidate`, `external`,
//!   `module`, `dynamic`) and `via` are integer codes ([`crate::codes`]);
//!   `target` the key of the resolved symbol, `target_file` the id of the
//!   file a `module` reference names (a `dynamic` reference sets either); `candidates` the candidate keys as
//!   little-endian 8-byte integers (NULL when none). The index
//!   `refs_target` is partial (`IS NOT NULL`): every query compares the
//!   column to a key (`target = ?`), which SQLite can answer from a partial
//!   index, and leaving the NULL rows out (two in five) makes it cheaper to
//!   build. There is no index by caller or by name (the two cost a build
//!   as much as the rest of `refs`): the calls made by a definition are in
//!   its own file's rows ([`CALLEES`] reads that file's rows only), and
//!   `ref_names` gives the files whose references use a name.
//! - `ref_names(file_id, name_hash)`: the distinct names of a file's
//!   references, as [`name_hash`]es (written with the file, as a name comes
//!   from the parse and never from resolution); the index `ref_names_hash`
//!   finds the files that use a name, and [`REFS_BY_NAME`] their rows of
//!   that name (a hash shared by two names only costs a scan of one more
//!   file's rows).
//! - `relations(subtype, supertype, kind)`: symbol keys.

use std::path::Path;

use rusqlite::{Connection, OptionalExtension, params};

use crate::Error;

/// Version of the schema below; bump it on any change.
pub const SCHEMA_VERSION: u32 = 13;

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
    ord INTEGER NOT NULL,
    detail TEXT NOT NULL
);
CREATE TABLE callbacks(
    file_id INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
    seq INTEGER NOT NULL,
    ord INTEGER NOT NULL,
    name TEXT NOT NULL,
    qualname TEXT NOT NULL,
    start_line INTEGER NOT NULL,
    end_line INTEGER NOT NULL,
    detail TEXT NOT NULL,
    PRIMARY KEY(file_id, seq)
) WITHOUT ROWID;
CREATE TABLE left_out(
    path TEXT PRIMARY KEY,
    problem TEXT NOT NULL,
    size INTEGER,
    mtime_ns INTEGER
) WITHOUT ROWID;
CREATE TABLE imports(
    file_id INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
    line INTEGER NOT NULL,
    local TEXT NOT NULL,
    module TEXT NOT NULL,
    level INTEGER NOT NULL,
    name TEXT,
    scope TEXT
);
CREATE TABLE mentions(
    file_id INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
    name TEXT NOT NULL,
    inherit INTEGER NOT NULL,
    PRIMARY KEY(file_id, name, inherit)
) WITHOUT ROWID;
CREATE TABLE refs(
    file_id INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
    seq INTEGER NOT NULL,
    line INTEGER NOT NULL,
    column INTEGER NOT NULL,
    end_column INTEGER NOT NULL,
    name TEXT NOT NULL,
    receiver TEXT NOT NULL,
    role INTEGER NOT NULL,
    caller INTEGER,
    status INTEGER NOT NULL,
    target INTEGER,
    target_file INTEGER,
    candidates BLOB,
    confidence REAL NOT NULL,
    via INTEGER NOT NULL,
    PRIMARY KEY(file_id, seq)
) WITHOUT ROWID;
CREATE TABLE ref_names(
    file_id INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
    name_hash INTEGER NOT NULL,
    PRIMARY KEY(file_id, name_hash)
) WITHOUT ROWID;
CREATE TABLE relations(subtype INTEGER NOT NULL, supertype INTEGER NOT NULL, kind TEXT NOT NULL);
CREATE INDEX relations_subtype ON relations(subtype);
CREATE INDEX relations_supertype ON relations(supertype);
";

/// The secondary indexes of `files`, `symbols`, `imports` and `mentions`:
/// a first build fills those tables without them and creates them after
/// (one sort each instead of a B-tree insert per row).
pub(crate) const FILE_INDEXES: &str = "
CREATE INDEX files_rows ON files(path, id, language, module, is_package, size, mtime_ns, hash);
CREATE INDEX symbols_file ON symbols(file_id, ord);
CREATE INDEX symbols_name ON symbols(name, qualname, file_id, ord);
CREATE INDEX symbols_qualname ON symbols(qualname);
CREATE INDEX imports_file ON imports(file_id);
CREATE INDEX imports_module ON imports(module) WHERE level = 0;
CREATE INDEX imports_relative ON imports(file_id) WHERE level > 0;
CREATE INDEX mentions_name ON mentions(name);
CREATE INDEX ref_names_hash ON ref_names(name_hash);
";

/// Drops the indexes of [`FILE_INDEXES`].
pub(crate) const DROP_FILE_INDEXES: &str = "
DROP INDEX IF EXISTS files_rows; DROP INDEX IF EXISTS symbols_file;
DROP INDEX IF EXISTS symbols_name; DROP INDEX IF EXISTS symbols_qualname;
DROP INDEX IF EXISTS imports_file; DROP INDEX IF EXISTS imports_module;
DROP INDEX IF EXISTS imports_relative; DROP INDEX IF EXISTS mentions_name;
DROP INDEX IF EXISTS ref_names_hash;
";

/// The indexes of `refs`, dropped during a full rebuild and created again
/// after it.
pub(crate) const REFS_INDEXES: &str = "
CREATE INDEX refs_target ON refs(target) WHERE target IS NOT NULL;
CREATE INDEX refs_shown_candidate ON refs(substr(candidates, 1, 8)) WHERE status = 1 AND via = 7;
";

/// Creates the indexes `sql` creates (after a first build or a full
/// rebuild filled their tables: [`FILE_INDEXES`], [`REFS_INDEXES`]), the
/// sorts using one helper thread per other core (SQLite's `threads`
/// pragma, at most 4; back to none after).
///
/// # Errors
/// [`Error::Sqlite`] when SQLite fails.
pub(crate) fn create_indexes(conn: &Connection, sql: &str) -> Result<(), Error> {
    let helpers = std::thread::available_parallelism().map_or(0, |n| n.get().saturating_sub(1));
    conn.pragma_update(None, "threads", i64::try_from(helpers.min(4)).unwrap_or(0))?;
    let created = conn.execute_batch(sql);
    conn.pragma_update(None, "threads", 0)?;
    Ok(created?)
}

/// Drops the indexes of [`REFS_INDEXES`].
pub(crate) const DROP_REFS_INDEXES: &str = "
DROP INDEX IF EXISTS refs_target; DROP INDEX IF EXISTS refs_sole_candidate;
DROP INDEX IF EXISTS refs_shown_candidate;
";

/// The `refs` rows (file id, sequence, whether a base-class reference) of
/// the references named `?2`, whose [`name_hash`] is `?1`: the files
/// `ref_names` gives, each file's rows scanned for the name.
pub(crate) const REFS_BY_NAME: &str = "SELECT r.file_id, r.seq, r.role = 3 /* inherit */ \
     FROM ref_names n JOIN refs r ON r.file_id = n.file_id \
     WHERE n.name_hash = ?1 AND r.name = ?2";

/// The `WHERE` clause (over `refs r`) of the calls made by the definition
/// of key `?1`, and its dynamic imports (`importlib.import_module(name)`,
/// `import(path)`: a module loaded at run time is code it runs): the rows
/// of the definition's own file only.
pub(crate) const CALLEES: &str = "r.file_id = (SELECT file_id FROM symbols WHERE key = ?1) \
     AND r.caller = ?1 AND (r.role IN (0, 1) /* call, instantiate */ \
     OR (r.role = 4 /* import */ AND r.status = 5 /* dynamic */))";

/// The `ref_names` value of a reference name: the name's XXH3-64, its bits
/// as a signed integer (SQLite's integer type).
pub(crate) fn name_hash(name: &str) -> i64 {
    i64::from_le_bytes(xxhash_rust::xxh3::xxh3_64(name.as_bytes()).to_le_bytes())
}

/// The SQL expression of the text id of the symbol `s` in the file `f`
/// (`PATH:START_LINE:QUALNAME`, as [`outline_core::symbol_id`] builds it).
pub(crate) const SYMBOL_ID_SQL: &str = "f.path || ':' || s.start_line || ':' || s.qualname";

/// Encodes a value for a blob column: MessagePack with field names (the
/// `rmp_serde` "named" form: self-describing, so the serde attributes that
/// skip empty fields keep working), compressed with LZ4 (size prepended).
/// Binary rather than JSON: no escaping and no number formatting, which
/// took a tenth of a full build.
///
/// # Errors
/// [`Error::Json`] when the value cannot be encoded.
pub fn encode<T: serde::Serialize>(value: &T) -> Result<Vec<u8>, Error> {
    let bytes = rmp_serde::to_vec_named(value).map_err(|e| Error::Json(e.to_string()))?;
    Ok(lz4_flex::compress_prepend_size(&bytes))
}

/// Decodes a blob written by [`encode`].
///
/// # Errors
/// [`Error::Json`] when the blob is not LZ4 or not the MessagePack of a `T`.
pub fn decode<T: serde::de::DeserializeOwned>(blob: &[u8]) -> Result<T, Error> {
    let bytes =
        lz4_flex::decompress_size_prepended(blob).map_err(|e| Error::Json(e.to_string()))?;
    rmp_serde::from_slice(&bytes).map_err(|e| Error::Json(e.to_string()))
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
    // Before anything that takes a lock: a first build elsewhere holds it
    // (without WAL), and switching to WAL waits for it too.
    conn.busy_timeout(std::time::Duration::from_secs(10))?;
    conn.pragma_update(None, "journal_mode", "WAL")?;
    conn.pragma_update(None, "synchronous", "NORMAL")?;
    conn.pragma_update(None, "foreign_keys", "ON")?;
    // Larger page cache and in-memory temporary b-trees (index builds).
    conn.pragma_update(None, "cache_size", -65536)?;
    conn.pragma_update(None, "temp_store", "MEMORY")?;
    // Room for every statement a refresh prepares (two per multi-row
    // insert, see `rows.rs`), so none is prepared again in a loop.
    conn.set_prepared_statement_cache_capacity(64);
    stable_plans(&conn)?;
    let created = if versions(&conn)? == Some((SCHEMA_VERSION, outline_core::xref::FACTS_VERSION)) {
        false
    } else {
        // Tables but no `meta`: another program's database (an index of
        // any version has `meta`, written with its schema).
        let tables: i64 = conn.query_row(
            "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'",
            [],
            |row| row.get(0),
        )?;
        let has_meta: bool = conn.query_row(
            "SELECT EXISTS(SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'meta')",
            [],
            |row| row.get(0),
        )?;
        if tables > 0 && !has_meta {
            return Err(Error::Foreign(path.display().to_string()));
        }
        recreate(&mut conn)?;
        true
    };
    Ok((conn, created))
}

/// Whether the WAL file beside `db` (`DB-wal`) holds any frame (a refresh
/// not yet checkpointed into the database file).
pub(crate) fn has_wal_content(db: &Path) -> bool {
    let mut wal = db.as_os_str().to_owned();
    wal.push("-wal");
    std::fs::metadata(wal).is_ok_and(|meta| meta.len() > 0)
}

/// Turns on SQLite's query planner stability guarantee
/// (`SQLITE_DBCONFIG_ENABLE_QPSG`): a statement's plan no longer depends on
/// the values bound to it. Without it, SQLite 3.54 marks statements with a
/// `column = ?` term as "re-plan when the value changes", and the
/// statement cache's clearing of bindings then expires them: every cached
/// statement of a lookup was compiled again at each use (a quarter of the
/// time of an edit's update on the standard library, seen with `perf`).
///
/// # Errors
/// [`Error::Sqlite`].
pub(crate) fn stable_plans(conn: &Connection) -> Result<(), Error> {
    conn.set_db_config(
        rusqlite::config::DbConfig::SQLITE_DBCONFIG_ENABLE_QPSG,
        true,
    )?;
    Ok(())
}

/// Opens `db` read-only as an immutable file (SQLite's `immutable=1` URI
/// parameter: no locks, no WAL, no `-shm`), for a directory SQLite cannot
/// write to. Only right when no other process changes the file meanwhile,
/// which such a directory ensures.
///
/// # Errors
/// [`Error::Sqlite`] when SQLite cannot open it.
pub(crate) fn open_immutable(db: &Path) -> Result<Connection, Error> {
    let absolute = std::path::absolute(db).map_err(|e| Error::Io(db.display().to_string(), e))?;
    // A file: URI, with the characters URIs give a meaning escaped.
    let mut uri = String::from("file:");
    for byte in absolute.to_string_lossy().bytes() {
        match byte {
            b'?' | b'#' | b'%' | b' ' | 0x80..=0xff => uri.push_str(&format!("%{byte:02X}")),
            _ => uri.push(char::from(byte)),
        }
    }
    uri.push_str("?immutable=1");
    Ok(Connection::open_with_flags(
        uri,
        rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY | rusqlite::OpenFlags::SQLITE_OPEN_URI,
    )?)
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
/// transaction; then gives the freed pages back (`VACUUM`), so that the
/// build writes a compact file.
pub(crate) fn recreate(conn: &mut Connection) -> Result<(), Error> {
    // With foreign keys on, SQLite deletes every row of a dropped table
    // one by one to check them (seconds for millions of references). The
    // pragma is a no-op inside a transaction, hence here.
    conn.pragma_update(None, "foreign_keys", "OFF")?;
    let dropped = drop_and_create(conn);
    let vacuumed = dropped.and_then(|()| Ok(conn.execute_batch("VACUUM")?));
    conn.pragma_update(None, "foreign_keys", "ON")?;
    vacuumed
}

fn drop_and_create(conn: &mut Connection) -> Result<(), Error> {
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
    tx.execute_batch(FILE_INDEXES)?;
    tx.execute_batch(REFS_INDEXES)?;
    // When it was created, and by which process: a reader that keeps what
    // it read by file id and symbol key (`names`) tells a new index (whose
    // ids start again) from the one it read.
    let created = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    tx.execute(
        "INSERT INTO meta(key, value) VALUES ('schema_version', ?1), ('facts_version', ?2), \
         ('created', ?3)",
        params![
            SCHEMA_VERSION.to_string(),
            outline_core::xref::FACTS_VERSION.to_string(),
            format!("{created}-{}", std::process::id())
        ],
    )?;
    tx.commit()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The plan SQLite picks for `sql` (every parameter bound to 1), its
    /// detail lines joined.
    fn plan(conn: &Connection, sql: &str) -> String {
        let mut statement = conn
            .prepare(&format!("EXPLAIN QUERY PLAN {sql}"))
            .expect("statement");
        let ones = std::iter::repeat_n(1, statement.parameter_count());
        let rows = statement
            .query_map(rusqlite::params_from_iter(ones), |row| {
                row.get::<_, String>(3)
            })
            .expect("plan");
        rows.map(|row| row.expect("row"))
            .collect::<Vec<_>>()
            .join("; ")
    }

    /// The partial index of `refs` (`IS NOT NULL`) serves the lookups by
    /// key the queries and the refresh make; the lookups by caller and by
    /// name read one file's rows by the primary key.
    #[test]
    fn lookups_of_refs_use_an_index() {
        let mut conn = Connection::open_in_memory().expect("database");
        stable_plans(&conn).expect("qpsg");
        recreate(&mut conn).expect("schema");
        let callees = format!(
            "SELECT r.line FROM refs r JOIN files f ON f.id = r.file_id \
             WHERE {CALLEES} ORDER BY f.path"
        );
        for (sql, index) in [
            (
                "SELECT file_id, seq FROM refs WHERE target = ?1",
                "refs_target",
            ),
            (
                "SELECT caller FROM refs WHERE target = ?1 AND role IN (0, 1) /* call, instantiate */",
                "refs_target",
            ),
            (
                "SELECT r.line FROM refs r JOIN files f ON f.id = r.file_id \
                 WHERE r.target = ?1 AND r.status != 3 /* module */ ORDER BY f.path, r.line",
                "refs_target",
            ),
            (callees.as_str(), "SEARCH r USING PRIMARY KEY (file_id=?)"),
            (
                REFS_BY_NAME,
                "SEARCH n USING COVERING INDEX ref_names_hash (name_hash=?)",
            ),
            (REFS_BY_NAME, "SEARCH r USING PRIMARY KEY (file_id=?)"),
        ] {
            let plan = plan(&conn, sql);
            assert!(plan.contains(index), "{sql}: {plan}");
        }
    }

    /// How many times the cached lookup of a class's bases was compiled
    /// again over three uses with different keys.
    fn recompiled(conn: &Connection) -> i32 {
        let sql = "SELECT s.file_id, s.ord FROM relations r JOIN symbols s \
                   ON s.key = r.supertype WHERE r.subtype = ?1 ORDER BY r.rowid";
        let mut total = 0;
        for key in [5, 6, 7] {
            let mut statement = conn.prepare_cached(sql).expect("statement");
            let rows: Vec<i64> = statement
                .query_map([key], |row| row.get(0))
                .expect("query")
                .collect::<Result<_, _>>()
                .expect("rows");
            assert!(rows.is_empty());
            total = statement.get_status(rusqlite::StatementStatus::RePrepare);
        }
        total
    }

    /// A cached statement is compiled once: with stable plans, binding
    /// another key does not make SQLite plan it again (without, it did at
    /// every use, as the statement cache clears the bindings).
    #[test]
    fn cached_statements_are_not_compiled_again_for_each_key() {
        let mut plain = Connection::open_in_memory().expect("database");
        recreate(&mut plain).expect("schema");
        assert_eq!(recompiled(&plain), 2);
        let mut stable = Connection::open_in_memory().expect("database");
        stable_plans(&stable).expect("qpsg");
        recreate(&mut stable).expect("schema");
        assert_eq!(recompiled(&stable), 0);
    }
}
