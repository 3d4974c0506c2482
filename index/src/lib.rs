//! # index
//!
//! The cross-file symbol index of ast-outline, kept in an embedded SQLite
//! database (bundled SQLite, WAL): files, symbols, imports, references with
//! their resolution, and type relations ([`store`] has the schema). A
//! [`Index::refresh`] re-parses only files whose content changed and resolves
//! references again with the `xref` crate, in one transaction; the
//! [`query`] functions answer `refs`, `callers`, `callees`, `hierarchy` and
//! `defs`.
//!
//! This crate is an edge: it reads files and writes the database. Its store
//! and refresh do not walk directories or know the language adapters: the
//! caller gives the files ([`SourceEntry`]) and a [`Parser`]. The policy of
//! opening the index of a project root ([`open`]: where it is, the lock,
//! a damaged index rebuilt) gives them from the library (`ast-outline`): its
//! gitignore-aware walk and its adapters. [`answers`] and [`context`] render
//! the queries' answers as text and JSON for the CLI and the MCP server;
//! [`names`] answers name patterns (`find_symbol`) from the index.
//!
//! ```
//! use index::{Index, SourceEntry};
//! use outline_core::{Language, Outline, OutlineOptions};
//!
//! let dir = tempfile::tempdir().unwrap();
//! std::fs::write(dir.path().join("a.py"), "def f():\n    pass\n\nf()\n").unwrap();
//! let entries = [SourceEntry {
//!     path: dir.path().join("a.py"),
//!     display: "a.py".into(),
//!     language: Language::Python,
//!     text: None,
//! }];
//! let parse = |path: &str, language: Language, bytes: Vec<u8>| {
//!     let text = String::from_utf8(bytes).map_err(|e| e.to_string())?;
//!     Ok(lang_python::PythonOutline.outline_with_facts(path, language, &text, &OutlineOptions::default()))
//! };
//! let mut index = Index::open(&dir.path().join("index.sqlite")).unwrap();
//! index.refresh(&entries, &parse).unwrap();
//! let calls = index::query::callers(index.connection(), "a.py:1:f", 1).unwrap();
//! assert_eq!(calls[0].call.line, 4);
//! ```

pub mod answers;
mod codes;
pub mod context;
pub mod diff;
pub mod export;
pub mod impact;
pub mod names;
mod on_demand;
pub mod open;
mod project_config;
pub mod query;
mod quiet;
mod refresh;
mod rows;
/// The index as a SCIP index (Sourcegraph's code-intelligence protobuf).
pub mod scip;
pub mod store;
mod visible;

use std::fmt;
use std::path::{Path, PathBuf};

use outline_core::SymbolKind;
use rusqlite::{Connection, OptionalExtension};

pub use refresh::{BUFFER_MTIME, Parser, RefreshStats, SourceEntry, file_times};
/// The SQLite binding the index is on, for callers that run their own
/// queries over [`Index::connection`].
pub use rusqlite;

/// Default location of the database below the indexed root.
pub const DEFAULT_DB: &str = ".ast-outline/index.sqlite";

/// What can go wrong with the index.
#[derive(Debug)]
pub enum Error {
    /// SQLite failed (not a database, locked, disk full…).
    Sqlite(rusqlite::Error),
    /// A file or directory could not be read or created: the path and the
    /// error.
    Io(String, std::io::Error),
    /// Facts or an export could not be encoded or decoded (the blobs'
    /// MessagePack, JSON, SCIP).
    Json(String),
    /// A query target names no definition, or several.
    Target(String),
    /// The database holds tables but is no ast-outline index (another
    /// program's database): never emptied to become one.
    Foreign(String),
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Sqlite(e) => write!(f, "index database: {e}"),
            Error::Io(path, e) => write!(f, "{path}: {e}"),
            Error::Json(e) => write!(f, "facts: {e}"),
            Error::Target(message) => f.write_str(message),
            Error::Foreign(path) => write!(
                f,
                "{path} holds another program's tables (no ast-outline index)"
            ),
        }
    }
}

impl std::error::Error for Error {}

impl Error {
    /// Whether SQLite said another connection holds the lock (another
    /// `ast-outline` is refreshing the same database).
    pub fn is_busy(&self) -> bool {
        matches!(
            self,
            Error::Sqlite(rusqlite::Error::SqliteFailure(e, _))
                if matches!(e.code, rusqlite::ErrorCode::DatabaseBusy | rusqlite::ErrorCode::DatabaseLocked)
        )
    }

    /// Whether SQLite could not write where the database is (`SQLITE_READONLY`,
    /// or `SQLITE_CANTOPEN` for the WAL's shared-memory file of a database
    /// that exists): a read-only directory or file system.
    pub fn is_read_only(&self) -> bool {
        matches!(
            self,
            Error::Sqlite(rusqlite::Error::SqliteFailure(e, _))
                if matches!(e.code, rusqlite::ErrorCode::ReadOnly | rusqlite::ErrorCode::CannotOpen)
        )
    }

    /// Whether the file is damaged or not a database at all (SQLite's
    /// `SQLITE_CORRUPT` and `SQLITE_NOTADB`), or another program's database
    /// ([`Error::Foreign`]): not an index this build can use.
    pub fn is_damaged(&self) -> bool {
        matches!(self, Error::Foreign(_))
            || matches!(
                self,
                Error::Sqlite(rusqlite::Error::SqliteFailure(e, _))
                    if matches!(e.code, rusqlite::ErrorCode::DatabaseCorrupt | rusqlite::ErrorCode::NotADatabase)
            )
    }
}

impl From<rusqlite::Error> for Error {
    fn from(error: rusqlite::Error) -> Self {
        Error::Sqlite(error)
    }
}

/// An open index database.
pub struct Index {
    conn: Connection,
    path: PathBuf,
    /// Whether opening created the schema (new file, or another version).
    pub created: bool,
    /// This opening's number ([`Index::opening`]).
    opening: u64,
}

/// The number of the last [`Index`] opened in this process.
static OPENINGS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// A number no other [`Index`] opened in this process has.
fn next_opening() -> u64 {
    OPENINGS.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1
}

impl Index {
    /// Opens or creates the index at `db` (see [`store::open`]): an index of
    /// another schema or facts version is rebuilt, never read.
    ///
    /// # Errors
    /// [`Error::Io`], [`Error::Sqlite`].
    pub fn open(db: &Path) -> Result<Index, Error> {
        let (conn, created) = store::open(db)?;
        Ok(Index {
            conn,
            path: db.to_owned(),
            created,
            opening: next_opening(),
        })
    }

    /// [`Index::open`], then makes sure the index was built by `build` (an
    /// identifier of the extraction and resolution code, such as a hash of
    /// its sources): an index built by other code is emptied and rebuilt,
    /// because its stored facts and resolutions may differ from what this
    /// code gives (a fixed resolver must not keep serving old answers).
    ///
    /// # Errors
    /// As [`Index::open`].
    pub fn open_for_build(db: &Path, build: &str) -> Result<Index, Error> {
        use rusqlite::OptionalExtension as _;
        let mut index = Index::open(db)?;
        let stored: Option<String> = index
            .conn
            .query_row("SELECT value FROM meta WHERE key = 'build'", [], |row| {
                row.get(0)
            })
            .optional()?;
        if stored.as_deref() != Some(build) {
            if !index.created {
                store::recreate(&mut index.conn)?;
                index.created = true;
            }
            index.conn.execute(
                "INSERT INTO meta(key, value) VALUES ('build', ?1) \
                 ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                [build],
            )?;
        }
        Ok(index)
    }

    /// Opens the index at `db` as it is, for reading only what a completed
    /// refresh left: never creates or rebuilds it. In a directory SQLite
    /// cannot write to (it needs to create the WAL's `-shm` file even to
    /// read), an index whose WAL holds nothing (every completed refresh
    /// checkpoints it when its connection closes) is read as an immutable
    /// file. `build` is the command
    /// that builds or refreshes this index (such as `ast-outline index ROOT
    /// --db FILE`), named in the messages.
    ///
    /// # Errors
    /// [`Error::Target`] with what to do when there is no database, when it
    /// is of another schema or facts version (or lost a table), or when no
    /// refresh of it ever completed (a first build was interrupted or is
    /// still running); [`Error::Sqlite`] when SQLite fails.
    pub fn open_existing(db: &Path, build: &str) -> Result<Index, Error> {
        let advice = format!("run `{build}`, or drop --no-refresh");
        if !db.is_file() {
            return Err(Error::Target(format!(
                "{}: no index ({advice})",
                db.display()
            )));
        }
        let mut conn = Connection::open_with_flags(db, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)?;
        conn.busy_timeout(std::time::Duration::from_secs(10))?;
        store::stable_plans(&conn)?;
        let expected = (store::SCHEMA_VERSION, outline_core::xref::FACTS_VERSION);
        let versions = match store::versions(&conn) {
            Err(error) if error.is_read_only() && !store::has_wal_content(db) => {
                conn = store::open_immutable(db)?;
                store::stable_plans(&conn)?;
                store::versions(&conn)?
            }
            other => other?,
        };
        match versions {
            Some(versions) if versions == expected => {}
            Some((schema, facts)) => {
                return Err(Error::Target(format!(
                    "{}: an index of another version (schema {schema}, facts {facts}; this \
                     build reads schema {}, facts {}): {advice}",
                    db.display(),
                    expected.0,
                    expected.1
                )));
            }
            None => {
                return Err(Error::Target(format!(
                    "{}: not a complete index of this version: {advice}",
                    db.display()
                )));
            }
        }
        let index = Index {
            conn,
            path: db.to_owned(),
            created: false,
            opening: next_opening(),
        };
        if !index.is_built()? {
            return Err(Error::Target(format!(
                "{}: no refresh of this index has completed (a first build was interrupted \
                 or is still running): {advice}",
                db.display()
            )));
        }
        Ok(index)
    }

    /// Whether a refresh of this index has completed (its counts are
    /// stored in `meta` by every refresh's transaction).
    ///
    /// # Errors
    /// [`Error::Sqlite`].
    pub fn is_built(&self) -> Result<bool, Error> {
        use rusqlite::OptionalExtension as _;
        Ok(self
            .conn
            .query_row(
                "SELECT 1 FROM meta WHERE key = 'references'",
                [],
                |_| Ok(()),
            )
            .optional()?
            .is_some())
    }

    /// How long a write waits for another process's lock before failing
    /// with a busy error ([`Error::is_busy`]); 10 s after [`Index::open`].
    ///
    /// # Errors
    /// [`Error::Sqlite`].
    pub fn set_busy_timeout(&self, wait: std::time::Duration) -> Result<(), Error> {
        Ok(self.conn.busy_timeout(wait)?)
    }

    /// Where the database is.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// A number that tells this opened index from every other opened in
    /// this process (a count from 1): what SQLite says of one connection's
    /// changes ([`Index::data_version`], `total_changes`) is meaningful
    /// only with the same connection.
    pub fn opening(&self) -> u64 {
        self.opening
    }

    /// The connection, for the [`query`] functions.
    pub fn connection(&self) -> &Connection {
        &self.conn
    }

    /// Makes the index hold exactly `entries` (see the `refresh` rules in
    /// [`RefreshStats`] and the crate documentation), in one transaction.
    ///
    /// # Errors
    /// [`Error::Sqlite`]; the previous index is then unchanged.
    pub fn refresh(
        &mut self,
        entries: &[SourceEntry],
        parse: Parser<'_>,
    ) -> Result<RefreshStats, Error> {
        self.refresh_walking(&|| entries.to_vec(), parse)
    }

    /// [`Index::refresh`] to the files `walk` returns. The walk runs on
    /// another thread while the index reads what it stores (a walk is
    /// mostly system calls: the two overlap). `walk` must not panic.
    ///
    /// # Errors
    /// [`Error::Sqlite`]; the previous index is then unchanged.
    pub fn refresh_walking(
        &mut self,
        walk: &(dyn Fn() -> Vec<SourceEntry> + Sync),
        parse: Parser<'_>,
    ) -> Result<RefreshStats, Error> {
        let stats = refresh::refresh(&mut self.conn, refresh::Scope::All(walk), parse)?;
        // Only a refresh of named files can decline.
        Ok(stats.unwrap_or_default())
    }

    /// Refreshes only the files named: `changed` (edited, or new) are read
    /// again, the files at the display paths `gone` (deleted) are removed,
    /// and every other file is kept as stored, without looking at it. This
    /// is what a caller that knows which files changed (a watcher, an
    /// editor) uses instead of [`Index::refresh`], which stats every file.
    /// The project settings (`tsconfig.json`, `package.json`, `Cargo.toml`)
    /// are the ones the last [`Index::refresh`] read: a change to one of
    /// them, or to what the walk leaves out (`.gitignore`), needs
    /// [`Index::refresh`]. A display path not stored in `gone` is ignored.
    ///
    /// `Ok(None)`, with nothing written, when the index holds no settings
    /// of an earlier [`Index::refresh`] (a new index, or one built by an
    /// older version): call [`Index::refresh`] instead.
    ///
    /// # Errors
    /// [`Error::Sqlite`]; the previous index is then unchanged.
    pub fn refresh_files(
        &mut self,
        changed: &[SourceEntry],
        gone: &[String],
        parse: Parser<'_>,
    ) -> Result<Option<RefreshStats>, Error> {
        refresh::refresh(
            &mut self.conn,
            refresh::Scope::Files { changed, gone },
            parse,
        )
    }

    /// The directory the index was last refreshed from, as
    /// [`Index::set_root`] recorded it (meta `root`); `None` before.
    ///
    /// # Errors
    /// [`Error::Sqlite`].
    pub fn root(&self) -> Result<Option<String>, Error> {
        Ok(self
            .conn
            .query_row("SELECT value FROM meta WHERE key = 'root'", [], |row| {
                row.get(0)
            })
            .optional()?)
    }

    /// Records `root` (an absolute path) as the directory the index was
    /// refreshed from; writes only when it differs from the one recorded.
    ///
    /// # Errors
    /// [`Error::Sqlite`].
    pub fn set_root(&self, root: &str) -> Result<(), Error> {
        if self.root()?.as_deref() != Some(root) {
            self.conn.execute(
                "INSERT INTO meta(key, value) VALUES ('root', ?1) \
                 ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                [root],
            )?;
        }
        Ok(())
    }

    /// The build that wrote the index (meta `build`, see
    /// [`Index::open_for_build`]); `None` when none is recorded.
    ///
    /// # Errors
    /// [`Error::Sqlite`].
    pub fn build(&self) -> Result<Option<String>, Error> {
        Ok(self
            .conn
            .query_row("SELECT value FROM meta WHERE key = 'build'", [], |row| {
                row.get(0)
            })
            .optional()?)
    }

    /// Records the notes of a walk of the whole tree (unreadable
    /// directories, broken symbolic links: what the walk met and could not
    /// read), as the walk gave them (meta `walk_notes`); writes only when
    /// they differ from the ones recorded. A lookup answered from the index
    /// needs them to say what a walk would say.
    ///
    /// # Errors
    /// [`Error::Sqlite`]; [`Error::Json`] when they cannot be written.
    pub fn set_walk_notes(&self, notes: &[String]) -> Result<(), Error> {
        if self.walk_notes()? == notes {
            return Ok(());
        }
        if notes.is_empty() {
            self.conn
                .execute("DELETE FROM meta WHERE key = 'walk_notes'", [])?;
        } else {
            let json = serde_json::to_string(notes).map_err(|e| Error::Json(e.to_string()))?;
            self.conn.execute(
                "INSERT INTO meta(key, value) VALUES ('walk_notes', ?1) \
                 ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                [json],
            )?;
        }
        Ok(())
    }

    /// The notes [`Index::set_walk_notes`] recorded (none before).
    ///
    /// # Errors
    /// [`Error::Sqlite`]; [`Error::Json`] when the stored value is not a
    /// JSON array of strings.
    pub fn walk_notes(&self) -> Result<Vec<String>, Error> {
        let stored: Option<String> = self
            .conn
            .query_row(
                "SELECT value FROM meta WHERE key = 'walk_notes'",
                [],
                |row| row.get(0),
            )
            .optional()?;
        match stored {
            None => Ok(Vec::new()),
            Some(json) => serde_json::from_str(&json).map_err(|e| Error::Json(e.to_string())),
        }
    }

    /// The files the walk gave that the index left out (binary, too large,
    /// unreadable: table `left_out`), as (display path, why), at `path` or
    /// under it (`.` for every one), sorted by path.
    ///
    /// # Errors
    /// [`Error::Sqlite`].
    pub fn left_out(&self, path: &str) -> Result<Vec<(String, String)>, Error> {
        let mut statement = self.conn.prepare_cached(
            "SELECT path, problem FROM left_out \
             WHERE ?1 = '.' OR path = ?1 OR (path > ?2 AND path < ?3) ORDER BY path",
        )?;
        let rows = statement
            .query_map([path, &format!("{path}/"), &format!("{path}0")], |row| {
                Ok((row.get(0)?, row.get(1)?))
            })?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// The size in bytes and the mtime (nanoseconds since the Unix epoch,
    /// [`BUFFER_MTIME`] when indexed from a buffer) stored for the file at
    /// `display`, to tell whether the file on disk changed since it was
    /// indexed; `None` when the index holds no such file.
    ///
    /// # Errors
    /// [`Error::Sqlite`].
    pub fn stored_times(&self, display: &str) -> Result<Option<(i64, i64)>, Error> {
        Ok(self
            .conn
            .query_row(
                "SELECT size, mtime_ns FROM files WHERE path = ?1",
                [display],
                |row| Ok((row.get(0)?, row.get(1)?)),
            )
            .optional()?)
    }

    /// The display paths among `files` whose file under `root` differs on
    /// disk (size or mtime, [`file_times`]) from what the index read, or is
    /// gone; files indexed from a buffer ([`BUFFER_MTIME`]) and files the
    /// index does not hold are left out. An answer from a file listed may
    /// hold lines that are no longer there. Sorted, without repeats.
    ///
    /// # Errors
    /// [`Error::Sqlite`].
    pub fn stale(&self, root: &Path, files: &[String]) -> Result<Vec<String>, Error> {
        let mut stale = Vec::new();
        for display in files {
            if let Some((size, mtime)) = self.stored_times(display)?
                && mtime != BUFFER_MTIME
                && file_times(&root.join(display)).ok() != Some((size, mtime))
            {
                stale.push(display.clone());
            }
        }
        stale.sort();
        stale.dedup();
        Ok(stale)
    }

    /// How many files the index holds.
    ///
    /// # Errors
    /// [`Error::Sqlite`].
    pub fn file_count(&self) -> Result<usize, Error> {
        let count: i64 = self
            .conn
            .query_row("SELECT COUNT(*) FROM files", [], |row| row.get(0))?;
        Ok(usize::try_from(count).unwrap_or(0))
    }

    /// The display paths of the files the index holds under the directory
    /// `dir` (a display path), sorted.
    ///
    /// # Errors
    /// [`Error::Sqlite`].
    pub fn files_under(&self, dir: &str) -> Result<Vec<String>, Error> {
        let mut statement = self
            .conn
            .prepare_cached("SELECT path FROM files WHERE path > ?1 AND path < ?2 ORDER BY path")?;
        // Every path under `dir/` sorts between `dir/` and `dir0` ('0'
        // follows '/').
        let rows = statement.query_map([format!("{dir}/"), format!("{dir}0")], |row| {
            row.get::<_, String>(0)
        })?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// Whether the index holds a file under the directory `dir` (a display
    /// path).
    ///
    /// # Errors
    /// [`Error::Sqlite`].
    pub fn holds_files_under(&self, dir: &str) -> Result<bool, Error> {
        Ok(self.conn.query_row(
            "SELECT EXISTS(SELECT 1 FROM files WHERE path > ?1 AND path < ?2)",
            [format!("{dir}/"), format!("{dir}0")],
            |row| row.get(0),
        )?)
    }

    /// SQLite's `data_version`: it changes when another connection (another
    /// process) commits to the database, not with this one's commits.
    ///
    /// # Errors
    /// [`Error::Sqlite`].
    pub fn data_version(&self) -> Result<i64, Error> {
        Ok(self
            .conn
            .query_row("PRAGMA data_version", [], |row| row.get(0))?)
    }

    /// For a long-running process that checkpoints itself
    /// ([`Index::checkpoint`]) when idle: SQLite checkpoints in a commit
    /// only once the write-ahead log holds `pages` pages (its default is
    /// 1,000), so the commits an answer waits for stay short.
    ///
    /// # Errors
    /// [`Error::Sqlite`].
    pub fn set_autocheckpoint(&self, pages: u32) -> Result<(), Error> {
        self.conn.pragma_update(None, "wal_autocheckpoint", pages)?;
        Ok(())
    }

    /// Moves the write-ahead log into the database: `truncate` also empties
    /// the log file (it waits for readers); otherwise what readers still
    /// use is left for the next checkpoint, without waiting.
    ///
    /// # Errors
    /// [`Error::Sqlite`].
    pub fn checkpoint(&self, truncate: bool) -> Result<(), Error> {
        let mode = if truncate { "TRUNCATE" } else { "PASSIVE" };
        self.conn
            .query_row(&format!("PRAGMA wal_checkpoint({mode})"), [], |_| Ok(()))?;
        Ok(())
    }

    /// Whether the index holds a file at `display` (its path relative to
    /// the indexed root, `/`-separated).
    ///
    /// # Errors
    /// [`Error::Sqlite`].
    pub fn holds_file(&self, display: &str) -> Result<bool, Error> {
        Ok(self.conn.query_row(
            "SELECT EXISTS(SELECT 1 FROM files WHERE path = ?1)",
            [display],
            |row| row.get(0),
        )?)
    }
}

/// The root recorded in the index at `db` ([`Index::set_root`]), read
/// without opening it for a refresh (any schema version that records one;
/// nothing is created or changed); `None` when there is no such file, no
/// recorded root, or it cannot be read.
pub fn stored_root(db: &Path) -> Option<String> {
    if !db.is_file() {
        return None;
    }
    let conn = Connection::open_with_flags(db, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY).ok()?;
    conn.query_row("SELECT value FROM meta WHERE key = 'root'", [], |row| {
        row.get(0)
    })
    .optional()
    .ok()
    .flatten()
}

/// The [`SymbolKind`] spelled `name` (`type_alias`, …).
pub(crate) fn kind_from_str(name: &str) -> Option<SymbolKind> {
    serde_json::from_value(serde_json::Value::String(name.to_owned())).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_index_built_by_other_code_is_rebuilt() {
        let dir = tempfile::tempdir().expect("temp dir");
        let db = dir.path().join("index.sqlite");
        let first = Index::open_for_build(&db, "build-a").expect("open");
        assert!(first.created);
        first
            .conn
            .execute(
                "INSERT INTO meta(key, value) VALUES ('references', '7')",
                [],
            )
            .expect("a completed refresh");
        drop(first);
        let same = Index::open_for_build(&db, "build-a").expect("open");
        assert!(!same.created);
        assert!(same.is_built().expect("built"));
        drop(same);
        let other = Index::open_for_build(&db, "build-b").expect("open");
        assert!(other.created, "another build's index is rebuilt");
        assert!(!other.is_built().expect("emptied"));
    }

    #[test]
    fn a_rebuilt_index_gives_its_pages_back() {
        let dir = tempfile::tempdir().expect("temp dir");
        let db = dir.path().join("index.sqlite");
        let first = Index::open_for_build(&db, "build-a").expect("open");
        // About 2 MB of rows, in pages that the drop frees.
        first
            .conn
            .execute_batch(
                "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 2000) \
                 INSERT INTO meta(key, value) SELECT 'filler' || i, printf('%.1000c', 'x') FROM n",
            )
            .expect("filler rows");
        drop(first);
        let other = Index::open_for_build(&db, "build-b").expect("open");
        assert!(other.created);
        let free: i64 = other
            .conn
            .query_row("PRAGMA freelist_count", [], |row| row.get(0))
            .expect("freelist");
        assert_eq!(free, 0, "the dropped tables' pages are given back");
        let filler: i64 = other
            .conn
            .query_row(
                "SELECT count(*) FROM meta WHERE key LIKE 'filler%'",
                [],
                |row| row.get(0),
            )
            .expect("count");
        assert_eq!(filler, 0);
    }
}
