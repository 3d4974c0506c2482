//! Building and refreshing the index.
//!
//! A refresh compares each file's size and modification time with the stored
//! row; only files that differ are read, and only those whose content hash
//! (XXH3-64) changed are parsed again. When any file was parsed, added or
//! removed, every reference of the project is resolved again (from the stored
//! facts of unchanged files and the fresh facts of changed ones): the simplest
//! rule that keeps references into and out of a changed file right. The whole
//! refresh is one transaction: a failure (or a crash) leaves the previous
//! index as it was.

use std::collections::{HashMap, HashSet};
use std::path::PathBuf;
use std::time::UNIX_EPOCH;

use outline_core::xref::{Facts, Receiver};
use outline_core::{FileOutline, Language, Symbol, SymbolKind};
use rayon::prelude::*;
use rusqlite::{Connection, Transaction, params};
use xref::{Definition, FileInput, python_module};

use crate::Error;

/// One file to index.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourceEntry {
    /// Where to read it.
    pub path: PathBuf,
    /// Its path in the index and in symbol ids (`/`-separated, relative to
    /// the indexed root).
    pub display: String,
    /// Its language.
    pub language: Language,
}

/// Parses one file: given its display path, language and bytes, the outline
/// and facts from one parse, or an error message when the bytes are not a
/// text file (binary, too large). Must not panic.
pub type Parser<'p> =
    &'p (dyn Fn(&str, Language, Vec<u8>) -> Result<(FileOutline, Facts), String> + Sync);

/// What a refresh did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RefreshStats {
    /// Files in the index after the refresh.
    pub files: usize,
    /// Files parsed (new or changed content).
    pub parsed: usize,
    /// Files read whose content had not changed (only the time did).
    pub touched: usize,
    /// Files removed from the index.
    pub removed: usize,
    /// Whether references were resolved again.
    pub resolved_again: bool,
    /// References stored (resolved, candidates and external).
    pub references: usize,
    /// Of those, resolved.
    pub resolved: usize,
    /// Type relations stored.
    pub relations: usize,
    /// Files that could not be read or parsed, each `PATH: message`; they
    /// are left out of the index.
    pub problems: Vec<String>,
    /// Wall time of each phase in milliseconds: `check` (stat, read, hash,
    /// parse), `write` (files and symbols), `load` (stored facts and
    /// symbols), `resolve`, `store` (references and relations), `commit`.
    pub phases: Vec<(&'static str, u128)>,
}

/// A stored file row's change markers.
struct Stored {
    id: i64,
    size: i64,
    mtime_ns: i64,
    hash: String,
}

/// A file parsed in this refresh.
struct Parsed {
    display: String,
    language: Language,
    size: i64,
    mtime_ns: i64,
    hash: String,
    outline: FileOutline,
    facts: Facts,
}

enum Checked {
    Unchanged,
    Touched { id: i64, mtime_ns: i64 },
    Parsed(Box<Parsed>),
    Problem(String),
}

/// Refreshes the index in `conn` to hold exactly `entries`, in one
/// transaction.
///
/// # Errors
/// [`Error::Sqlite`] when the database fails (the transaction is rolled
/// back: the previous index stays as it was).
pub fn refresh(
    conn: &mut Connection,
    entries: &[SourceEntry],
    parse: Parser<'_>,
) -> Result<RefreshStats, Error> {
    let mut clock = std::time::Instant::now();
    let mut phase = |stats: &mut RefreshStats, name: &'static str| {
        stats.phases.push((name, clock.elapsed().as_millis()));
        clock = std::time::Instant::now();
    };
    let stored = stored_files(conn)?;
    let checked: Vec<Checked> = entries
        .par_iter()
        .map(|entry| check(entry, stored.get(entry.display.as_str()), parse))
        .collect();
    let mut stats = RefreshStats::default();
    phase(&mut stats, "check");
    let present: HashSet<&str> = entries.iter().map(|e| e.display.as_str()).collect();
    let tx = conn.transaction()?;
    let mut changed = false;
    for (path, row) in &stored {
        if !present.contains(path.as_str()) {
            tx.execute("DELETE FROM files WHERE id = ?1", [row.id])?;
            stats.removed += 1;
            changed = true;
        }
    }
    let mut failed: HashSet<&str> = HashSet::new();
    let mut fresh: HashMap<String, Facts> = HashMap::new();
    for (entry, checked) in entries.iter().zip(checked) {
        match checked {
            Checked::Unchanged => {}
            Checked::Touched { id, mtime_ns } => {
                tx.execute(
                    "UPDATE files SET mtime_ns = ?1 WHERE id = ?2",
                    params![mtime_ns, id],
                )?;
                stats.touched += 1;
            }
            Checked::Parsed(mut parsed) => {
                write_file(&tx, &parsed)?;
                fresh.insert(parsed.display.clone(), std::mem::take(&mut parsed.facts));
                stats.parsed += 1;
                changed = true;
            }
            Checked::Problem(message) => {
                if let Some(row) = stored.get(entry.display.as_str()) {
                    tx.execute("DELETE FROM files WHERE id = ?1", [row.id])?;
                    changed = true;
                }
                failed.insert(entry.display.as_str());
                stats.problems.push(format!("{}: {message}", entry.display));
            }
        }
    }
    phase(&mut stats, "write");
    if changed {
        let config = crate::project_config::project_config(entries);
        update_modules(&tx)?;
        crate::project_config::update_rust_modules(&tx, &config.rust_crates)?;
        resolve_all(&tx, fresh, &config, &mut stats, &mut phase)?;
        stats.resolved_again = true;
    } else {
        let count = |sql: &str| tx.query_row(sql, [], |row| row.get::<_, i64>(0));
        stats.references = usize::try_from(count("SELECT count(*) FROM refs")?).unwrap_or(0);
        stats.resolved = usize::try_from(count(
            "SELECT count(*) FROM refs WHERE status = 'resolved'",
        )?)
        .unwrap_or(0);
        stats.relations = usize::try_from(count("SELECT count(*) FROM relations")?).unwrap_or(0);
    }
    stats.files = usize::try_from(
        tx.query_row("SELECT count(*) FROM files", [], |row| row.get::<_, i64>(0))?,
    )
    .unwrap_or(0);
    tx.commit()?;
    phase(&mut stats, "commit");
    Ok(stats)
}

fn stored_files(conn: &Connection) -> Result<HashMap<String, Stored>, Error> {
    let mut statement = conn.prepare("SELECT path, id, size, mtime_ns, hash FROM files")?;
    let rows = statement.query_map([], |row| {
        Ok((
            row.get::<_, String>(0)?,
            Stored {
                id: row.get(1)?,
                size: row.get(2)?,
                mtime_ns: row.get(3)?,
                hash: row.get(4)?,
            },
        ))
    })?;
    Ok(rows.collect::<Result<_, _>>()?)
}

fn check(entry: &SourceEntry, stored: Option<&Stored>, parse: Parser<'_>) -> Checked {
    let meta = match std::fs::metadata(&entry.path) {
        Ok(meta) => meta,
        Err(error) => return Checked::Problem(error.to_string()),
    };
    let size = i64::try_from(meta.len()).unwrap_or(i64::MAX);
    let mtime_ns = meta
        .modified()
        .ok()
        .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
        .and_then(|d| i64::try_from(d.as_nanos()).ok())
        .unwrap_or(0);
    if let Some(stored) = stored
        && stored.size == size
        && stored.mtime_ns == mtime_ns
    {
        return Checked::Unchanged;
    }
    let bytes = match std::fs::read(&entry.path) {
        Ok(bytes) => bytes,
        Err(error) => return Checked::Problem(error.to_string()),
    };
    let hash = format!("{:016x}", xxhash_rust::xxh3::xxh3_64(&bytes));
    if let Some(stored) = stored
        && stored.hash == hash
    {
        return Checked::Touched {
            id: stored.id,
            mtime_ns,
        };
    }
    match parse(&entry.display, entry.language, bytes) {
        Ok((outline, facts)) => Checked::Parsed(Box::new(Parsed {
            display: entry.display.clone(),
            language: entry.language,
            size,
            mtime_ns,
            hash,
            outline,
            facts,
        })),
        Err(message) => Checked::Problem(message),
    }
}

/// Replaces the rows of one file (symbols, imports, facts).
fn write_file(tx: &Transaction<'_>, parsed: &Parsed) -> Result<(), Error> {
    let facts = serde_json::to_string(&parsed.facts).map_err(|e| Error::Json(e.to_string()))?;
    tx.execute("DELETE FROM files WHERE path = ?1", [&parsed.display])?;
    tx.execute(
        "INSERT INTO files(path, language, size, mtime_ns, hash, module, is_package, partial, \
         diagnostics, facts) VALUES (?1, ?2, ?3, ?4, ?5, NULL, 0, ?6, ?7, ?8)",
        params![
            parsed.display,
            parsed.language.as_str(),
            parsed.size,
            parsed.mtime_ns,
            parsed.hash,
            parsed.outline.partial,
            i64::try_from(parsed.outline.diagnostics.len()).unwrap_or(i64::MAX),
            facts
        ],
    )?;
    let file_id = tx.last_insert_rowid();
    let mut insert = tx.prepare_cached(
        "INSERT INTO symbols(file_id, id, name, qualname, kind, start_line, end_line, \
         name_line, name_column, parent) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
    )?;
    let mut stack: Vec<(&Symbol, Option<&str>)> = parsed
        .outline
        .symbols
        .iter()
        .rev()
        .map(|s| (s, None))
        .collect();
    while let Some((symbol, parent)) = stack.pop() {
        let is_block = symbol.kind == SymbolKind::Block;
        if !is_block {
            insert.execute(params![
                file_id,
                symbol.id,
                symbol.name,
                symbol.qualname,
                symbol.kind.as_str(),
                symbol.start_line,
                symbol.end_line,
                symbol.name_line,
                symbol.name_column,
                parent
            ])?;
        }
        let own = if is_block {
            parent
        } else {
            Some(symbol.id.as_str())
        };
        stack.extend(symbol.children.iter().rev().map(|c| (c, own)));
    }
    let mut insert = tx.prepare_cached(
        "INSERT INTO imports(file_id, line, local, module, level, name, scope) \
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
    )?;
    for binding in &parsed.facts.imports {
        insert.execute(params![
            file_id,
            binding.line,
            binding.local,
            binding.module,
            binding.level,
            binding.name,
            binding.scope.as_ref().map(|s| s.id(&parsed.display))
        ])?;
    }
    Ok(())
}

/// Sets every Python file's module name and package flag from the current
/// set of paths (a new `__init__.py` changes the modules below it).
fn update_modules(tx: &Transaction<'_>) -> Result<(), Error> {
    let paths: Vec<(i64, String)> = {
        let mut statement = tx.prepare("SELECT id, path FROM files WHERE language = 'python'")?;
        let rows = statement.query_map([], |row| Ok((row.get(0)?, row.get(1)?)))?;
        rows.collect::<Result<_, _>>()?
    };
    let all: HashSet<&str> = paths.iter().map(|(_, p)| p.as_str()).collect();
    let mut update =
        tx.prepare_cached("UPDATE files SET module = ?1, is_package = ?2 WHERE id = ?3")?;
    for (id, path) in &paths {
        let (module, is_package) = python_module(path, &all).unzip();
        update.execute(params![module, is_package.unwrap_or(false), id])?;
    }
    Ok(())
}

/// Loads every file's definitions and facts, resolves all references, and
/// rewrites `refs` and `relations`.
fn resolve_all(
    tx: &Transaction<'_>,
    mut fresh: HashMap<String, Facts>,
    config: &xref::ProjectConfig,
    stats: &mut RefreshStats,
    phase: &mut impl FnMut(&mut RefreshStats, &'static str),
) -> Result<(), Error> {
    let mut inputs: Vec<(i64, FileInput)> = {
        let mut statement =
            tx.prepare("SELECT id, path, module, is_package, facts FROM files ORDER BY path")?;
        // Facts of files parsed in this refresh are at hand; the others are
        // read back from their JSON.
        let rows = statement.query_map([], |row| {
            let path = row.get::<_, String>(1)?;
            let facts = match fresh.remove(&path) {
                Some(facts) => Ok(facts),
                None => Err(row.get::<_, String>(4)?),
            };
            Ok((
                row.get::<_, i64>(0)?,
                path,
                row.get::<_, Option<String>>(2)?,
                row.get::<_, bool>(3)?,
                facts,
            ))
        })?;
        let rows: Vec<_> = rows.collect::<Result<_, _>>()?;
        rows.into_par_iter()
            .map(|(id, path, module, is_package, facts)| {
                let facts: Facts =
                    facts.unwrap_or_else(|json| serde_json::from_str(&json).unwrap_or_default());
                (
                    id,
                    FileInput {
                        path,
                        module,
                        is_package,
                        definitions: Vec::new(),
                        facts,
                    },
                )
            })
            .collect()
    };
    let position: HashMap<i64, usize> = inputs
        .iter()
        .enumerate()
        .map(|(i, (id, _))| (*id, i))
        .collect();
    {
        let mut statement = tx.prepare(
            "SELECT file_id, id, name, qualname, kind, start_line FROM symbols ORDER BY rowid",
        )?;
        let mut rows = statement.query([])?;
        while let Some(row) = rows.next()? {
            let file_id: i64 = row.get(0)?;
            let kind: String = row.get(4)?;
            let Some(kind) = crate::kind_from_str(&kind) else {
                continue;
            };
            if let Some(&i) = position.get(&file_id)
                && let Some((_, input)) = inputs.get_mut(i)
            {
                input.definitions.push(Definition {
                    id: row.get(1)?,
                    name: row.get(2)?,
                    qualname: row.get(3)?,
                    kind,
                    start_line: row.get(5)?,
                });
            }
        }
    }
    let (ids, files): (Vec<i64>, Vec<FileInput>) = inputs.into_iter().unzip();
    phase(stats, "load");
    let resolver = xref::Resolver::with_config(&files, config);
    let references: Vec<xref::Resolution> = (0..files.len())
        .into_par_iter()
        .flat_map_iter(|f| resolver.file(f))
        .collect();
    let resolved = xref::Resolved {
        references,
        relations: resolver.relations,
    };
    phase(stats, "resolve");
    tx.execute("DELETE FROM refs", [])?;
    tx.execute("DELETE FROM relations", [])?;
    // Bulk insert without the indexes, then index once.
    tx.execute_batch(
        "DROP INDEX refs_target; DROP INDEX refs_caller; DROP INDEX refs_name; \
         DROP INDEX refs_position;",
    )?;
    let mut insert = tx.prepare_cached(
        "INSERT INTO refs(file_id, line, column, end_column, name, receiver, role, caller, \
         status, target, candidates, confidence, via) \
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)",
    )?;
    for resolution in &resolved.references {
        let (Some(file), Some(&file_id)) = (files.get(resolution.file), ids.get(resolution.file))
        else {
            continue;
        };
        let Some(reference) = file.facts.references.get(resolution.reference) else {
            continue;
        };
        let receiver = match &reference.receiver {
            Receiver::Bare => String::new(),
            Receiver::Path(path) => path.join("."),
            Receiver::Expression => "?".to_owned(),
        };
        let candidates = serde_json::to_string(&resolution.candidates)
            .map_err(|e| Error::Json(e.to_string()))?;
        insert.execute(params![
            file_id,
            reference.line,
            reference.column,
            reference.end_column,
            reference.name,
            receiver,
            resolution.role.as_str(),
            reference.scope.as_ref().map(|s| s.id(&file.path)),
            resolution.status.as_str(),
            resolution.target,
            candidates,
            f64::from(resolution.confidence),
            resolution.via.as_str()
        ])?;
        stats.references += 1;
        if resolution.status == xref::Status::Resolved {
            stats.resolved += 1;
        }
    }
    let mut insert =
        tx.prepare_cached("INSERT INTO relations(subtype, supertype, kind) VALUES (?1, ?2, ?3)")?;
    for relation in &resolved.relations {
        insert.execute(params![relation.subtype, relation.supertype, relation.kind])?;
        stats.relations += 1;
    }
    tx.execute_batch(crate::store::REFS_INDEXES)?;
    phase(stats, "store");
    Ok(())
}
