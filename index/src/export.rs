//! The whole index as one JSON document, for tools that read it without this
//! program (`ast-outline export --format json`). The shape is documented in
//! `docs/export-schema.md` and versioned by [`EXPORT_VERSION`]; the field
//! meanings and units are those of [`crate::store`] and [`crate::query`],
//! with symbols named by their text ids (`PATH:START_LINE:QUALNAME`), never by
//! the database's integer keys.
//!
//! [`write_json`] streams the document row by row (the index is never held
//! in memory); [`Export`] is the same document as one value, for reading it
//! back.

use std::io::Write;

use rusqlite::Connection;
use serde::{Deserialize, Serialize};

use crate::Error;
use crate::query::RefRow;

/// Version of the export document; bumped on any change of its shape.
pub const EXPORT_VERSION: u32 = 3;

/// The value of the document's `format` field.
pub const FORMAT: &str = "ast-outline-index";

/// One indexed file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExportFile {
    /// Path relative to the indexed root, `/`-separated.
    pub path: String,
    /// Language (`python`, `typescript`, …).
    pub language: String,
    /// The Python module it is, when it is one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub module: Option<String>,
    /// Whether it is a package's `__init__`.
    pub is_package: bool,
    /// Size in bytes.
    pub size: u64,
    /// XXH3-64 of its bytes, 16 lowercase hex digits.
    pub hash: String,
    /// Whether the parse recovered from errors (the outline is partial).
    pub partial: bool,
    /// Number of parse diagnostics.
    pub diagnostics: u64,
}

/// One definition (blocks left out).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExportSymbol {
    /// Its id `PATH:START_LINE:QUALNAME`.
    pub id: String,
    /// Its file's path.
    pub path: String,
    /// Its name.
    pub name: String,
    /// Its qualified name (`__qualname__` without `<locals>`).
    pub qualname: String,
    /// Its kind (LSP SymbolKind words: `class`, `method`, `function`, …).
    pub kind: String,
    /// First line (1-based; the first decorator's line when decorated).
    pub start_line: u32,
    /// Last line (1-based, inclusive).
    pub end_line: u32,
    /// Line of the name (1-based).
    pub name_line: u32,
    /// Column of the name's first character (1-based, characters).
    pub name_column: u32,
    /// Id of the enclosing definition; absent at the top level.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent: Option<String>,
}

/// A type relation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExportRelation {
    /// The subtype's id.
    pub subtype: String,
    /// The supertype's id.
    pub supertype: String,
    /// `inherits` or `implements`.
    pub kind: String,
}

/// The whole document, for reading it back.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Export {
    /// Always [`FORMAT`].
    pub format: String,
    /// [`EXPORT_VERSION`] of the writer.
    pub version: u32,
    /// Where the shape is documented (`docs/export-schema.md`).
    #[serde(default)]
    pub schema: String,
    /// Files sorted by path.
    pub files: Vec<ExportFile>,
    /// Symbols sorted by path, start line, name column, qualname.
    pub symbols: Vec<ExportSymbol>,
    /// References sorted by path, line, column (see [`RefRow`]).
    pub references: Vec<RefRow>,
    /// Relations sorted by subtype id, supertype id.
    pub relations: Vec<ExportRelation>,
}

/// How many rows of each kind [`write_json`] wrote.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ExportCounts {
    /// Files.
    pub files: usize,
    /// Symbols.
    pub symbols: usize,
    /// References.
    pub references: usize,
    /// Relations.
    pub relations: usize,
}

fn io(error: std::io::Error) -> Error {
    Error::Io("export".to_owned(), error)
}

/// A JSON error, or the write error under it (a closed pipe is a write
/// error, not a facts error).
fn json(error: serde_json::Error) -> Error {
    match error.io_error_kind() {
        Some(kind) => io(std::io::Error::new(kind, error)),
        None => Error::Json(error.to_string()),
    }
}

/// Writes one array `"name":[...]` of the rows `rows` gives.
fn array<T: Serialize>(
    out: &mut dyn Write,
    name: &str,
    first: bool,
    rows: impl Iterator<Item = Result<T, Error>>,
) -> Result<usize, Error> {
    let comma = if first { "" } else { "," };
    write!(out, "{comma}\n\"{name}\":[").map_err(io)?;
    let mut n = 0;
    for row in rows {
        let row = row?;
        if n > 0 {
            out.write_all(b",").map_err(io)?;
        }
        out.write_all(b"\n").map_err(io)?;
        serde_json::to_writer(&mut *out, &row).map_err(json)?;
        n += 1;
    }
    out.write_all(b"]").map_err(io)?;
    Ok(n)
}

/// Streams the whole index in `conn` to `out` as the JSON document
/// [`Export`] describes (one row per line inside each array).
///
/// # Errors
/// [`Error::Sqlite`], [`Error::Io`] when writing fails, [`Error::Json`].
pub fn write_json(conn: &Connection, out: &mut dyn Write) -> Result<ExportCounts, Error> {
    let mut counts = ExportCounts::default();
    write!(
        out,
        "{{\"format\":{},\"version\":{EXPORT_VERSION},",
        serde_json::to_string(FORMAT).map_err(json)?
    )
    .map_err(io)?;
    out.write_all(b"\n\"schema\":\"docs/export-schema.md\"")
        .map_err(io)?;
    {
        let mut statement = conn.prepare(
            "SELECT path, language, module, is_package, size, hash, partial, diagnostics \
             FROM files ORDER BY path",
        )?;
        let rows = statement.query_map([], |row| {
            Ok(ExportFile {
                path: row.get(0)?,
                language: row.get(1)?,
                module: row.get(2)?,
                is_package: row.get(3)?,
                size: u64::try_from(row.get::<_, i64>(4)?).unwrap_or(0),
                hash: row.get(5)?,
                partial: row.get(6)?,
                diagnostics: u64::try_from(row.get::<_, i64>(7)?).unwrap_or(0),
            })
        })?;
        counts.files = array(out, "files", false, rows.map(|r| r.map_err(Error::from)))?;
    }
    {
        let mut statement = conn.prepare(
            "SELECT f.path || ':' || s.start_line || ':' || s.qualname, f.path, s.name, \
             s.qualname, s.kind, s.start_line, s.end_line, s.name_line, s.name_column, \
             (SELECT pf.path || ':' || p.start_line || ':' || p.qualname FROM symbols p \
              JOIN files pf ON pf.id = p.file_id WHERE p.key = s.parent) \
             FROM symbols s JOIN files f ON f.id = s.file_id \
             ORDER BY f.path, s.start_line, s.name_column, s.qualname",
        )?;
        let rows = statement.query_map([], |row| {
            Ok(ExportSymbol {
                id: row.get(0)?,
                path: row.get(1)?,
                name: row.get(2)?,
                qualname: row.get(3)?,
                kind: row.get(4)?,
                start_line: row.get(5)?,
                end_line: row.get(6)?,
                name_line: row.get(7)?,
                name_column: row.get(8)?,
                parent: row.get(9)?,
            })
        })?;
        counts.symbols = array(out, "symbols", false, rows.map(|r| r.map_err(Error::from)))?;
    }
    counts.references =
        crate::query::each_reference(conn, &mut |rows| array(out, "references", false, rows))?;
    {
        let mut statement = conn.prepare(
            "SELECT fa.path || ':' || a.start_line || ':' || a.qualname, \
             fb.path || ':' || b.start_line || ':' || b.qualname, r.kind \
             FROM relations r JOIN symbols a ON a.key = r.subtype JOIN files fa ON fa.id = a.file_id \
             JOIN symbols b ON b.key = r.supertype JOIN files fb ON fb.id = b.file_id \
             ORDER BY 1, 2",
        )?;
        let rows = statement.query_map([], |row| {
            Ok(ExportRelation {
                subtype: row.get(0)?,
                supertype: row.get(1)?,
                kind: row.get(2)?,
            })
        })?;
        counts.relations = array(
            out,
            "relations",
            false,
            rows.map(|r| r.map_err(Error::from)),
        )?;
    }
    out.write_all(b"\n}\n").map_err(io)?;
    out.flush().map_err(io)?;
    Ok(counts)
}

/// The whole index as one [`Export`] value, in memory (what [`write_json`]
/// streams, read back).
///
/// # Errors
/// As [`write_json`].
pub fn read(conn: &Connection) -> Result<Export, Error> {
    let mut bytes = Vec::new();
    write_json(conn, &mut bytes)?;
    serde_json::from_slice(&bytes).map_err(json)
}

/// Writes the whole index in `conn` to `out` as a SCIP index (protobuf
/// bytes; see [`crate::scip`]); `project_root` is the root as a `file://`
/// URI. The index is built in memory, then written.
///
/// # Errors
/// As [`write_json`]; [`Error::Io`] when writing fails.
pub fn write_scip(conn: &Connection, project_root: &str, out: &mut dyn Write) -> Result<(), Error> {
    use protobuf::Message as _;
    let index = crate::scip::to_scip(&read(conn)?, project_root);
    let bytes = index
        .write_to_bytes()
        .map_err(|e| Error::Json(format!("SCIP encoding: {e}")))?;
    out.write_all(&bytes).map_err(io)?;
    out.flush().map_err(io)
}
