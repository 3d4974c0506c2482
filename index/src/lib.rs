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
//! This crate is an edge: it reads files and writes the database. It does not
//! walk directories or know the language adapters: the caller gives the files
//! ([`SourceEntry`]) and a [`Parser`] (the CLI passes its walker's files and
//! its adapter registry).
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

pub mod export;
mod project_config;
pub mod query;
mod refresh;
/// The index as a SCIP index (Sourcegraph's code-intelligence protobuf).
pub mod scip;
pub mod store;

use std::fmt;
use std::path::{Path, PathBuf};

use outline_core::SymbolKind;
use rusqlite::Connection;

pub use refresh::{Parser, RefreshStats, SourceEntry};

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
    /// Facts could not be written as JSON.
    Json(String),
    /// A query target names no definition, or several.
    Target(String),
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Sqlite(e) => write!(f, "index database: {e}"),
            Error::Io(path, e) => write!(f, "{path}: {e}"),
            Error::Json(e) => write!(f, "facts: {e}"),
            Error::Target(message) => f.write_str(message),
        }
    }
}

impl std::error::Error for Error {}

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
        })
    }

    /// Where the database is.
    pub fn path(&self) -> &Path {
        &self.path
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
        refresh::refresh(&mut self.conn, entries, parse)
    }
}

/// The [`SymbolKind`] spelled `name` (`type_alias`, …).
pub(crate) fn kind_from_str(name: &str) -> Option<SymbolKind> {
    serde_json::from_value(serde_json::Value::String(name.to_owned())).ok()
}
