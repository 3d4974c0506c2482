//! Building and refreshing the index.
//!
//! A refresh compares each file's size and modification time with the stored
//! row; only files that differ are read, and only those whose content hash
//! (XXH3-64) changed are parsed again. Files are checked and parsed in
//! parallel chunks and written as each chunk is done (the outline is dropped
//! once written; only the facts stay in memory for resolution).
//!
//! **Which references are resolved again.** Symbols keep their keys when
//! their file is parsed again (see [`crate::store`]), so a reference
//! resolved to a symbol that is still there stays valid however the
//! symbol's lines moved. Let C be the files parsed, added, removed or
//! dropped in this refresh.
//!
//! A file parsed again is *quiet* when other files cannot see the change:
//! its definitions (qualname and kind, in source order), its imports, types,
//! `__all__` and type references (lines and columns aside), its module and
//! the relations of its types are as before. Other files' lookups follow
//! names, never lines, and read nothing else of a file, so only the quiet
//! file's own references are resolved again.
//!
//! For the other files of C, let N be the names of the definitions that
//! appeared or went away (all of them for an added or removed file; all
//! those kept too when their order changed: candidate lists are in source
//! order), plus, when a file's imports or types changed, every name its
//! imports bind (before and after); and M the modules of those files
//! (before and after), except the files whose scope facts are as before
//! (lines aside): other files see only the names of their definitions,
//! which N holds, so neither their importers nor their subclasses need be
//! read again in full (they are followed again when their module changes). A reference of a file
//! outside C can only resolve
//! differently when its lookup reads something of them, so these are
//! resolved again, and only these:
//! - every reference of a file of C (its facts are new);
//! - every reference of a file that imports a module of M (or a module
//!   above or below one: `import a` when `a.b` changed, `from a import b`),
//!   binds a name of N by an import, star-imports anything when a star
//!   import of C appeared or went away, or gives a local a type whose dotted
//!   path holds a name of N;
//! - every reference of a file holding a subclass (transitively, by the
//!   relations before the refresh) of a type of those files or of a class
//!   whose base is named by a name of N (its members are looked up through
//!   the bases);
//! - in all other files, the references whose name is in N (a definition
//!   with that name appeared or went away: project-unique names and
//!   candidate lists depend on it), and those resolved to a symbol that was
//!   deleted (an alias may name it otherwise).
//!
//! When the module layout of a file outside C changes (a new
//! `__init__.py`, a Rust module), the project settings changed (tsconfig,
//! Cargo.toml), a TypeScript/JavaScript or Rust file was added or removed or
//! changed other than quietly, or C is over a quarter of the files, every
//! reference is resolved again (the "full" mode, which also drops and
//! rebuilds the indexes of `refs`). Relations are always computed again when
//! anything changed. `tests/incremental.rs` checks the rule against a
//! rebuild from scratch after edits of each kind.
//!
//! The whole refresh is one transaction: a failure (or a crash) leaves the
//! previous index as it was.

use std::collections::{BTreeSet, HashMap, HashSet};
use std::path::PathBuf;
use std::time::UNIX_EPOCH;

use outline_core::xref::{
    Facts, ImportBinding, LocalType, Receiver, Reference, Role, ScopeKey, TypeOf,
};
use outline_core::{FileOutline, Language, Symbol, SymbolKind};
use rayon::prelude::*;
use rusqlite::{Connection, OptionalExtension, Transaction, params};
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
    /// Its text when it is not the file's on disk: an editor's unsaved
    /// buffer (LSP `didOpen`/`didChange`). Such a file is stored with its
    /// text's size and an mtime of [`BUFFER_MTIME`], so that a later refresh
    /// from disk always reads the file again; `None` reads `path`.
    pub text: Option<std::sync::Arc<[u8]>>,
}

/// The mtime stored for a file indexed from a buffer ([`SourceEntry::text`]):
/// never a file's on disk, so the next look at the disk reads it again.
pub const BUFFER_MTIME: i64 = 0;

/// Parses one file: given its display path, language and bytes, the outline
/// and facts from one parse, or an error message when the bytes are not a
/// text file (binary, too large). Must not panic.
pub type Parser<'p> =
    &'p (dyn Fn(&str, Language, Vec<u8>) -> Result<(FileOutline, Facts), String> + Sync);

/// What a refresh did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RefreshStats {
    /// Whether only named files were looked at ([`crate::Index::refresh_files`]),
    /// not every file of the tree.
    pub named_only: bool,
    /// Files in the index after the refresh.
    pub files: usize,
    /// Files parsed (new or changed content).
    pub parsed: usize,
    /// Files read whose content had not changed (only the time did).
    pub touched: usize,
    /// Files removed from the index.
    pub removed: usize,
    /// Whether references were resolved again (anything changed).
    pub resolved_again: bool,
    /// Files whose references were all resolved again (every file in the
    /// full mode, see the module documentation).
    pub resolved_files: usize,
    /// References resolved again and written (whole files and single ones).
    pub re_resolved: usize,
    /// Files whose definitions and facts were read from the index to
    /// resolve: every file, unless only quiet edits were resolved (then
    /// the files their lookups reached).
    pub files_read: usize,
    /// References stored (resolved, candidates and external).
    pub references: usize,
    /// Of those, resolved.
    pub resolved: usize,
    /// Type relations stored.
    pub relations: usize,
    /// Files that could not be read or parsed, each `PATH: message`; they
    /// are left out of the index.
    pub problems: Vec<String>,
    /// Wall time of each phase in milliseconds: `lock` (taking the write
    /// lock: waiting while another process refreshes), `check` (the walk
    /// of a whole-tree refresh; stat, read, hash, parse, and writing files
    /// and symbols), `layout` (modules, crates, project settings), `load`
    /// (stored facts and symbols), `tables` (the resolver's tables), `rule`
    /// (which references to resolve again), `resolve` (resolving and
    /// writing references), `store` (indexes, relations, counts),
    /// `commit`. Phases that did not run are left out.
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
    /// What other files' resolution reads ([`scope_facts`]).
    scope: Facts,
    /// `scope`, [`crate::store::encode`]d.
    facts_blob: Vec<u8>,
    /// All the references, encoded.
    refs_blob: Vec<u8>,
    /// The `ref_names` rows: the references' distinct names, hashed.
    name_hashes: Vec<i64>,
    /// Every name the file's type facts and receivers write
    /// ([`Facts::for_each_type_name`], over all the references).
    type_names: BTreeSet<String>,
}

enum Checked {
    Unchanged,
    Touched {
        id: i64,
        size: i64,
        mtime_ns: i64,
    },
    Parsed(Box<Parsed>),
    /// Not indexed, and why; with the file's size and mtime when its parse
    /// worker failed on it (read from disk, not a buffer).
    Problem(String, Option<(i64, i64)>),
}

/// A file left out of the index: display path, why, and the size and mtime
/// of a file whose parse worker failed (see `left_out` in [`crate::store`]).
type LeftOut = (String, String, Option<(i64, i64)>);

/// Refreshes the index in `conn` to hold exactly `entries`, in one
/// transaction.
///
/// The files a refresh reads.
#[derive(Clone, Copy)]
pub(crate) enum Scope<'a> {
    /// Every file of the project, as the walk returns them (it runs on
    /// another thread while the stored files are read): stored files not
    /// among them are removed, and the project settings are read again.
    All(&'a (dyn Fn() -> Vec<SourceEntry> + Sync)),
    /// Only these files changed: `changed` are read (a new one is added),
    /// the stored files at the display paths `gone` are removed, every other
    /// stored file is kept as stored, and so are the project settings.
    Files {
        changed: &'a [SourceEntry],
        gone: &'a [String],
    },
}

/// Refreshes the index to `scope` in one transaction. `Ok(None)` (nothing
/// written) for [`Scope::Files`] when the index holds no project settings
/// to keep (it was built by an older version): the caller refreshes with
/// [`Scope::All`].
pub(crate) fn refresh(
    conn: &mut Connection,
    scope: Scope<'_>,
    parse: Parser<'_>,
) -> Result<Option<RefreshStats>, Error> {
    let mut clock = std::time::Instant::now();
    let mut phase = |stats: &mut RefreshStats, name: &'static str| {
        stats.phases.push((name, clock.elapsed().as_millis()));
        clock = std::time::Instant::now();
    };
    let mut stats = RefreshStats {
        named_only: matches!(scope, Scope::Files { .. }),
        ..RefreshStats::default()
    };
    // A first build has no previous index to keep safe: with a rollback
    // journal the new pages are written once (WAL writes them twice); it is
    // still one transaction. WAL is back on after the commit.
    let first_build = !conn.query_row("SELECT EXISTS(SELECT 1 FROM files)", [], |row| {
        row.get::<_, bool>(0)
    })?;
    if first_build {
        conn.pragma_update(None, "journal_mode", "DELETE")?;
        // Every row of a first build belongs to a file it inserted before:
        // the foreign-key checks (a lookup of the file per row, millions of
        // them) are off until the commit. The pragma is a no-op inside a
        // transaction, hence here.
        conn.pragma_update(None, "foreign_keys", "OFF")?;
    }
    // The write lock is taken before the stored state is read, so a refresh
    // running at the same time in another process cannot have changed it
    // in between (two concurrent first builds failed on `files.path`).
    let tx = conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
    // Until here, the time is SQLite waiting for another process's
    // refresh (its busy timeout), apart from a few queries.
    phase(&mut stats, "lock");
    if first_build {
        tx.execute_batch(crate::store::DROP_FILE_INDEXES)?;
    }
    // Named files, each once (a file named twice would be parsed twice, the
    // second time against the first's rows).
    let named: Vec<SourceEntry> = match scope {
        Scope::All(_) => Vec::new(),
        Scope::Files { changed, .. } => {
            let mut seen = HashSet::new();
            changed
                .iter()
                .filter(|e| seen.insert(e.display.as_str()))
                .cloned()
                .collect()
        }
    };
    let trust_times = matches!(scope, Scope::All(_));
    let walked: Vec<SourceEntry>;
    let (entries, stored, kept_config) = match scope {
        Scope::All(walk) => {
            // The walk (mostly system calls) overlaps the read of the
            // stored rows.
            let (found, stored) = std::thread::scope(|threads| {
                let walking = threads.spawn(walk);
                let stored = stored_files(&tx, None::<std::iter::Empty<&str>>);
                let found = walking
                    .join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
                (found, stored)
            });
            walked = found;
            (walked.as_slice(), stored?, None)
        }
        Scope::Files { gone, .. } => {
            let Some(config) = crate::project_config::stored_config(&tx)? else {
                return Ok(None);
            };
            let paths = named.iter().map(|e| e.display.as_str());
            let stored = stored_files(&tx, Some(paths.chain(gone.iter().map(String::as_str))))?;
            (named.as_slice(), stored, Some(config))
        }
    };
    let removed: Vec<(&String, &Stored)> = match scope {
        Scope::All(_) => {
            let present: HashSet<&str> = entries.iter().map(|e| e.display.as_str()).collect();
            stored
                .iter()
                .filter(|(path, _)| !present.contains(path.as_str()))
                .collect()
        }
        // A path both named and gone is named (it is there).
        Scope::Files { gone, .. } => {
            let mut seen = HashSet::new();
            gone.iter()
                .filter(|path| seen.insert(path.as_str()))
                .filter(|path| !entries.iter().any(|e| e.display == **path))
                .filter_map(|path| stored.get_key_value(path))
                .collect()
        }
    };
    let mut old = Old::default();
    let mut changed = false;
    // Whether the set of paths changed (a file added or removed: Python
    // modules follow it), and whether a Rust file was parsed or removed.
    let mut paths_changed = !removed.is_empty();
    let mut rust_changed = removed.iter().any(|(path, _)| path.ends_with(".rs"));
    // Whether a file of a language other than Python was added, changed or
    // removed (see `resolve_again`'s caller).
    let mut other_language_changed = false;
    let not_python = |path: &str| {
        outline_core::Language::from_path(path) != Some(outline_core::Language::Python)
    };
    let mut fresh: HashMap<i64, Facts> = HashMap::new();
    for (path, row) in removed {
        other_language_changed |= not_python(path);
        old.remember_deleted(&tx, row.id)?;
        tx.execute("DELETE FROM files WHERE id = ?1", [row.id])?;
        stats.removed += 1;
        changed = true;
    }
    // With the stored times trusted, most files of a refresh are known
    // unchanged from their size and mtime alone: one parallel pass of
    // stats leaves them out. The others are stat'ed again by `check`.
    // A file whose parse worker failed is not parsed again while its size
    // and mtime are the same (a file that hangs its parser would cost every
    // refresh the time limit); it stays left out for the same reason.
    let failed: HashMap<String, (String, i64, i64)> = if trust_times {
        let mut statement = tx.prepare_cached(
            "SELECT path, problem, size, mtime_ns FROM left_out WHERE size IS NOT NULL",
        )?;
        let rows = statement.query_map([], |row| {
            Ok((row.get(0)?, (row.get(1)?, row.get(2)?, row.get(3)?)))
        })?;
        rows.collect::<Result<_, _>>()?
    } else {
        HashMap::new()
    };
    let failed_again = |entry: &SourceEntry| -> Option<LeftOut> {
        let (problem, size, mtime_ns) = failed.get(entry.display.as_str())?;
        let same =
            entry.text.is_none() && times(entry).is_ok_and(|times| times == (*size, *mtime_ns));
        same.then(|| {
            (
                entry.display.clone(),
                problem.clone(),
                Some((*size, *mtime_ns)),
            )
        })
    };
    // The files not indexed, with why (`left_out`): first those left out
    // again unchecked.
    let mut left: Vec<LeftOut> = Vec::new();
    let to_check: Vec<&SourceEntry> = if trust_times && !(stored.is_empty() && failed.is_empty()) {
        let (skipped, to_check): (Vec<LeftOut>, Vec<&SourceEntry>) = entries
            .par_iter()
            .filter(|entry| {
                !stored
                    .get(entry.display.as_str())
                    .is_some_and(|row| same_times(entry, row))
            })
            .partition_map(|entry| match failed_again(entry) {
                Some(left_out) => rayon::iter::Either::Left(left_out),
                None => rayon::iter::Either::Right(entry),
            });
        left = skipped;
        to_check
    } else {
        entries.iter().collect()
    };
    for (path, problem, _) in &left {
        stats.problems.push(format!("{path}: {problem}"));
    }
    // Chunks of files are checked and parsed in parallel while the rows of
    // the chunk before are written (SQLite on this thread).
    let check_chunk = |chunk: &[&SourceEntry]| -> Vec<Checked> {
        chunk
            .par_iter()
            .map(|entry| {
                check(
                    entry,
                    stored.get(entry.display.as_str()),
                    trust_times,
                    parse,
                )
            })
            .collect()
    };
    let check_chunk = &check_chunk;
    // The files checked and not indexed are added to `left` (`left_out`).
    let mut write_chunk = |chunk: &[&SourceEntry], checked: Vec<Checked>| -> Result<(), Error> {
        for (entry, checked) in chunk.iter().zip(checked) {
            let row = stored.get(entry.display.as_str());
            match checked {
                Checked::Unchanged => {}
                Checked::Touched { id, size, mtime_ns } => {
                    tx.execute(
                        "UPDATE files SET size = ?1, mtime_ns = ?2 WHERE id = ?3",
                        params![size, mtime_ns, id],
                    )?;
                    stats.touched += 1;
                }
                Checked::Parsed(parsed) => {
                    if let Some(row) = row {
                        old.remember_replaced(&tx, row.id)?;
                    } else {
                        other_language_changed |= not_python(&entry.display);
                        paths_changed = true;
                    }
                    rust_changed |= entry.language == Language::Rust;
                    let (id, diff) = write_file(&tx, row.map(|r| r.id), &parsed)?;
                    old.parsed_again(id, &parsed.scope, diff);
                    // A quiet change of any language keeps the incremental
                    // rule, and so does one that only adds, removes or
                    // renames definitions (other files see only their
                    // names); see `resolve_again` for the rest.
                    if row.is_some() && !old.quiet.contains(&id) && !old.names_only.contains(&id) {
                        other_language_changed |= not_python(&entry.display);
                    }
                    // Only what other files' resolution reads stays in
                    // memory; the references are read back file by file.
                    fresh.insert(id, parsed.scope);
                    stats.parsed += 1;
                    changed = true;
                }
                Checked::Problem(message, stamp) => {
                    if let Some(row) = row {
                        other_language_changed |= not_python(&entry.display);
                        paths_changed = true;
                        rust_changed |= entry.language == Language::Rust;
                        old.remember_deleted(&tx, row.id)?;
                        tx.execute("DELETE FROM files WHERE id = ?1", [row.id])?;
                        stats.removed += 1;
                        changed = true;
                    }
                    stats.problems.push(format!("{}: {message}", entry.display));
                    left.push((entry.display.clone(), message, stamp));
                }
            }
        }
        Ok(())
    };
    let mut chunks = to_check.chunks(CHUNK);
    let mut pending = chunks.next().map(|chunk| (chunk, check_chunk(chunk)));
    while let Some((chunk, checked)) = pending.take() {
        let next = chunks.next();
        let (written, next_checked) = std::thread::scope(|scope| {
            let handle = next.map(|next| scope.spawn(move || check_chunk(next)));
            let written = write_chunk(chunk, checked);
            let next_checked = handle.map(|handle| {
                handle
                    .join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
            });
            (written, next_checked)
        });
        written?;
        pending = next.zip(next_checked);
    }
    if first_build {
        crate::store::create_indexes(&tx, crate::store::FILE_INDEXES)?;
    }
    let looked_at: Option<Vec<&str>> = match scope {
        Scope::All(_) => None,
        Scope::Files { gone, .. } => Some(
            named
                .iter()
                .map(|e| e.display.as_str())
                .chain(gone.iter().map(String::as_str))
                .collect(),
        ),
    };
    update_left_out(&tx, looked_at.as_deref(), &left)?;
    phase(&mut stats, "check");
    let files_after = tx.query_row("SELECT count(*) FROM files", [], |row| row.get::<_, i64>(0))?;
    // Settings are read from the project's files only when every file is
    // looked at (a change to them alone resolves everything again);
    // otherwise the stored ones hold.
    let (config, config_changed) = match kept_config {
        Some(config) => (config, false),
        None => {
            let config = crate::project_config::project_config(entries);
            let changed = crate::project_config::store_config(&tx, &config)?;
            (config, changed)
        }
    };
    if changed || config_changed {
        old.rust_changed = rust_changed;
        let layout_changed = update_modules(&tx, &fresh, paths_changed, &mut old)?;
        let rust_layout_changed = (rust_changed || config_changed)
            && crate::project_config::update_rust_modules(&tx, &config.rust_crates)?;
        phase(&mut stats, "layout");
        // The incremental rule follows Python's imports and modules: a change
        // to a file of another language resolves everything again, unless it
        // is quiet (see `Old::parsed_again`).
        let full = layout_changed
            || rust_layout_changed
            || config_changed
            || other_language_changed
            || first_build
            || (stats.parsed + stats.removed) * 4 > usize::try_from(files_after).unwrap_or(0);
        resolve_again(&tx, fresh, old, full, &config, &mut stats, &mut phase)?;
        stats.resolved_again = true;
    } else {
        let count = |key: &str| -> Result<usize, Error> {
            Ok(usize::try_from(crate::store::meta_count(&tx, key)?).unwrap_or(0))
        };
        stats.references = count("references")?;
        stats.resolved = count("resolved")?;
        stats.relations = count("relations")?;
    }
    stats.files = usize::try_from(files_after).unwrap_or(0);
    tx.commit()?;
    if first_build {
        conn.pragma_update(None, "journal_mode", "WAL")?;
        conn.pragma_update(None, "foreign_keys", "ON")?;
    }
    phase(&mut stats, "commit");
    Ok(Some(stats))
}

/// Files checked (and parsed) in parallel before their rows are written.
const CHUNK: usize = 256;

/// Brings `left_out` to the files this refresh checked and did not index
/// (`left`: display path and why): for a refresh of every file, `left` is
/// the whole table; for one of named files (`looked_at`: the named paths
/// and those gone), only their rows change. Writes nothing when nothing
/// differs (a refresh with nothing changed writes nothing).
///
/// # Errors
/// [`Error::Sqlite`].
fn update_left_out(
    tx: &Transaction<'_>,
    looked_at: Option<&[&str]>,
    left: &[LeftOut],
) -> Result<(), Error> {
    type Row = (String, Option<i64>, Option<i64>);
    let stored: HashMap<String, Row> = match looked_at {
        None => {
            let mut statement =
                tx.prepare_cached("SELECT path, problem, size, mtime_ns FROM left_out")?;
            let rows = statement.query_map([], |row| Ok((row.get(0)?, read_from(row, 1)?)))?;
            rows.collect::<Result<_, _>>()?
        }
        Some(paths) => {
            let mut statement =
                tx.prepare_cached("SELECT problem, size, mtime_ns FROM left_out WHERE path = ?1")?;
            let mut stored = HashMap::new();
            for path in paths {
                if let Some(row) = statement
                    .query_row([path], |row| read_from(row, 0))
                    .optional()?
                {
                    stored.insert((*path).to_owned(), row);
                }
            }
            stored
        }
    };
    let now: HashMap<&str, Row> = left
        .iter()
        .map(|(path, problem, stamp)| {
            (
                path.as_str(),
                (problem.clone(), stamp.map(|s| s.0), stamp.map(|s| s.1)),
            )
        })
        .collect();
    let mut delete = tx.prepare_cached("DELETE FROM left_out WHERE path = ?1")?;
    for path in stored.keys() {
        if !now.contains_key(path.as_str()) {
            delete.execute([path])?;
        }
    }
    let mut upsert = tx.prepare_cached(
        "INSERT INTO left_out(path, problem, size, mtime_ns) VALUES (?1, ?2, ?3, ?4) \
         ON CONFLICT(path) DO UPDATE SET problem = excluded.problem, size = excluded.size, \
         mtime_ns = excluded.mtime_ns",
    )?;
    for (path, row) in now {
        if stored.get(path) != Some(&row) {
            upsert.execute(params![path, row.0, row.1, row.2])?;
        }
    }
    Ok(())
}

/// The `(problem, size, mtime_ns)` of a `left_out` row, from column `first`.
fn read_from(
    row: &rusqlite::Row<'_>,
    first: usize,
) -> rusqlite::Result<(String, Option<i64>, Option<i64>)> {
    Ok((row.get(first)?, row.get(first + 1)?, row.get(first + 2)?))
}

/// What the files changed in this refresh were before it: the names and
/// modules of the rule in the module documentation, the classes whose
/// subclasses are affected, and the references their rows held.
#[derive(Default)]
pub(crate) struct Old {
    /// N: names whose definitions appeared or went away, and the names
    /// bound by imports of files whose imports changed, before and after.
    pub(crate) names: HashSet<String>,
    /// M: modules of the files whose interface changed, before and after.
    pub(crate) modules: HashSet<String>,
    /// Keys of the classes the files whose interface changed held before.
    pub(crate) classes: Vec<i64>,
    /// References and resolved references deleted with the old rows.
    pub(crate) references: i64,
    /// Of those, resolved.
    pub(crate) resolved: i64,
    /// Keys of the symbols deleted (references to them resolve again).
    pub(crate) removed_keys: Vec<i64>,
    /// Files parsed again, by id: what they were before.
    pub(crate) previous: HashMap<i64, Previous>,
    /// Files parsed again whose interface did not change (see
    /// [`Old::parsed_again`]).
    pub(crate) quiet: HashSet<i64>,
    /// Files parsed again whose scope facts are as before (lines aside)
    /// but whose definitions changed: their module is not in M.
    pub(crate) names_only: HashSet<i64>,
    /// Whether a Rust file was parsed or removed (no resolution on demand:
    /// a Rust impl block can be in any file).
    pub(crate) rust_changed: bool,
    /// Whether a star import of a changed file appeared or went away (the
    /// names it brings are unknown: every star import is followed again).
    pub(crate) star_changed: bool,
}

/// A file parsed again, as it was before.
pub(crate) struct Previous {
    module: Option<String>,
    /// Its stored scope facts (`None` when they did not decode).
    scope: Option<Facts>,
    /// Keys of its symbols (its classes among them).
    classes: Vec<i64>,
}

impl Old {
    /// Counts the references of file `id` about to be deleted.
    fn count_references(&mut self, tx: &Transaction<'_>, id: i64) -> Result<(), Error> {
        let (references, resolved): (i64, i64) = tx
            .prepare_cached(
                "SELECT count(*), coalesce(sum(status = 0 /* resolved */), 0) FROM refs \
             WHERE file_id = ?1",
            )?
            .query_row([id], |row| Ok((row.get(0)?, row.get(1)?)))?;
        self.references += references;
        self.resolved += resolved;
        Ok(())
    }

    /// The keys of the symbols of file `id` (the roots of the subclass
    /// walk: only types have relations).
    fn classes_of(tx: &Transaction<'_>, id: i64) -> Result<Vec<i64>, Error> {
        let mut statement = tx.prepare_cached("SELECT key FROM symbols WHERE file_id = ?1")?;
        let keys = statement.query_map([id], |row| row.get::<_, i64>(0))?;
        Ok(keys.collect::<Result<_, _>>()?)
    }

    /// Records what file `id`, about to be deleted (removed, or now
    /// unreadable), holds: all its names, imports, module and classes go to
    /// the rule, all its symbols are removed.
    fn remember_deleted(&mut self, tx: &Transaction<'_>, id: i64) -> Result<(), Error> {
        let mut statement =
            tx.prepare_cached("SELECT key, name FROM symbols WHERE file_id = ?1")?;
        let rows = statement.query_map([id], |row| Ok((row.get::<_, i64>(0)?, row.get(1)?)))?;
        for row in rows {
            let (key, name) = row?;
            self.removed_keys.push(key);
            self.names.insert(name);
        }
        let mut statement =
            tx.prepare_cached("SELECT local, name FROM imports WHERE file_id = ?1")?;
        let rows = statement.query_map([id], |row| {
            Ok((row.get::<_, String>(0)?, row.get::<_, Option<String>>(1)?))
        })?;
        for row in rows {
            let (local, name) = row?;
            self.star_changed |= name.as_deref() == Some("*");
            self.names.insert(local);
            self.names.extend(name);
        }
        let module: Option<String> =
            tx.query_row("SELECT module FROM files WHERE id = ?1", [id], |row| {
                row.get(0)
            })?;
        self.modules.extend(module);
        self.classes.extend(Self::classes_of(tx, id)?);
        self.count_references(tx, id)
    }

    /// Records what file `id`, about to be parsed again, was: its module,
    /// scope facts and classes (used once the new version is known, in
    /// [`Old::parsed_again`]).
    fn remember_replaced(&mut self, tx: &Transaction<'_>, id: i64) -> Result<(), Error> {
        let (module, blob): (Option<String>, Vec<u8>) = tx
            .prepare_cached("SELECT module, facts FROM files WHERE id = ?1")?
            .query_row([id], |row| Ok((row.get(0)?, row.get(1)?)))?;
        let previous = Previous {
            module,
            scope: crate::store::decode(&blob).ok(),
            classes: Self::classes_of(tx, id)?,
        };
        self.previous.insert(id, previous);
        self.count_references(tx, id)
    }

    /// Takes in file `id` as parsed in this refresh (new, or parsed again
    /// after [`Old::remember_replaced`]), with what writing its symbols
    /// changed: a file whose definitions, imports and types are as before
    /// (lines aside) is quiet (its module is checked in [`update_modules`],
    /// its relations in [`resolve_again`]); otherwise its added and
    /// removed names, its imported names when its scope facts changed, its
    /// module and its classes go to the rule.
    fn parsed_again(&mut self, id: i64, scope: &Facts, diff: SymbolDiff) {
        self.removed_keys
            .extend(diff.removed.iter().map(|(key, _)| *key));
        let scope_same = self
            .previous
            .get(&id)
            .and_then(|p| p.scope.as_ref())
            .is_some_and(|before| without_lines(before) == without_lines(scope));
        if diff.same_sequence && scope_same {
            self.quiet.insert(id);
            return;
        }
        self.names.extend(diff.added);
        self.names
            .extend(diff.removed.into_iter().map(|(_, name)| name));
        self.names.extend(diff.moved);
        let previous = self.previous.get(&id);
        if !scope_same {
            let before = previous.and_then(|p| p.scope.as_ref());
            for binding in before
                .into_iter()
                .flat_map(|f| &f.imports)
                .chain(&scope.imports)
            {
                self.star_changed |= binding.name.as_deref() == Some("*");
                self.names.insert(binding.local.clone());
                self.names.extend(binding.name.clone());
            }
            for name in before.into_iter().chain([scope]).flat_map(macro_names) {
                self.names.insert(name.clone());
            }
        }
        if let Some(previous) = previous {
            // Only definitions changed: their names (N) are all other files
            // see, through imports and through the bases of subclasses
            // alike, so neither the module nor the classes are followed.
            if scope_same {
                self.names_only.insert(id);
            } else {
                self.modules.extend(previous.module.clone());
                self.classes.extend(&previous.classes);
            }
        }
    }

    /// Whether every file parsed again (`fresh`) is quiet and nothing else
    /// changed (no file removed, no name, module or class to follow).
    fn only_quiet(&self, fresh: &HashSet<i64>) -> bool {
        !fresh.is_empty()
            && fresh.iter().all(|id| self.quiet.contains(id))
            && self.names.is_empty()
            && self.modules.is_empty()
            && self.classes.is_empty()
            && self.removed_keys.is_empty()
            && !self.star_changed
    }

    /// A quiet file turns out to have changed for other files after all (its
    /// module or its relations): everything of it goes to the rule.
    fn not_quiet(&mut self, id: i64, loaded: Option<&FileInput>) {
        if !self.quiet.remove(&id) {
            return;
        }
        if let Some(previous) = self.previous.get(&id) {
            self.modules.extend(previous.module.clone());
            self.classes.extend(&previous.classes);
            for binding in previous.scope.iter().flat_map(|f| &f.imports) {
                self.star_changed |= binding.name.as_deref() == Some("*");
                self.names.insert(binding.local.clone());
                self.names.extend(binding.name.clone());
            }
            for name in previous.scope.iter().flat_map(macro_names) {
                self.names.insert(name.clone());
            }
        }
        if let Some(file) = loaded {
            self.modules.extend(file.module.clone());
            for definition in &file.definitions {
                self.names.insert(definition.name.clone());
            }
            for binding in &file.facts.imports {
                self.star_changed |= binding.name.as_deref() == Some("*");
                self.names.insert(binding.local.clone());
                self.names.extend(binding.name.clone());
            }
            for name in macro_names(&file.facts) {
                self.names.insert(name.clone());
            }
        }
    }
}

/// `facts` with every line, column and scope start line set to 0: what
/// other files' lookups read of a file (they follow names, never lines).
fn without_lines(facts: &Facts) -> Facts {
    let scope = |key: &Option<ScopeKey>| {
        key.as_ref().map(|k| ScopeKey {
            qualname: k.qualname.clone(),
            start_line: 0,
        })
    };
    Facts {
        supported: facts.supported,
        references: facts
            .references
            .iter()
            .map(|r| Reference {
                line: 0,
                column: 0,
                end_column: 0,
                scope: scope(&r.scope),
                binding: scope(&r.binding),
                subtype: scope(&r.subtype),
                ..r.clone()
            })
            .collect(),
        imports: facts
            .imports
            .iter()
            .map(|b| ImportBinding {
                line: 0,
                scope: scope(&b.scope),
                ..b.clone()
            })
            .collect(),
        types: facts
            .types
            .iter()
            .map(|t| LocalType {
                line: 0,
                scope: scope(&t.scope),
                type_of: match &t.type_of {
                    TypeOf::Instance(key) => TypeOf::Instance(ScopeKey {
                        qualname: key.qualname.clone(),
                        start_line: 0,
                    }),
                    TypeOf::Class(key) => TypeOf::Class(ScopeKey {
                        qualname: key.qualname.clone(),
                        start_line: 0,
                    }),
                    other => other.clone(),
                },
                ..t.clone()
            })
            .collect(),
        attributes: facts
            .attributes
            .iter()
            .map(|a| outline_core::xref::Attribute {
                class: ScopeKey {
                    qualname: a.class.qualname.clone(),
                    start_line: 0,
                },
                line: 0,
                scope: scope(&a.scope),
                ..a.clone()
            })
            .collect(),
        returns: facts
            .returns
            .iter()
            .map(|r| outline_core::xref::ReturnType {
                function: ScopeKey {
                    qualname: r.function.qualname.clone(),
                    start_line: 0,
                },
                ..r.clone()
            })
            .collect(),
        exports: facts.exports.clone(),
        modules: facts.modules.clone(),
        signatures: facts
            .signatures
            .iter()
            .map(|s| outline_core::xref::Signature {
                function: ScopeKey {
                    qualname: s.function.qualname.clone(),
                    start_line: 0,
                },
                ..s.clone()
            })
            .collect(),
        generics: facts
            .generics
            .iter()
            .map(|g| outline_core::xref::Generics {
                owner: scope(&g.owner),
                ..g.clone()
            })
            .collect(),
        bases: facts
            .bases
            .iter()
            .map(|b| outline_core::xref::Base {
                class: ScopeKey {
                    qualname: b.class.qualname.clone(),
                    start_line: 0,
                },
                ..b.clone()
            })
            .collect(),
        aliases: facts
            .aliases
            .iter()
            .map(|a| outline_core::xref::TypeAlias {
                alias: ScopeKey {
                    qualname: a.alias.qualname.clone(),
                    start_line: 0,
                },
                ..a.clone()
            })
            .collect(),
        decorated: facts
            .decorated
            .iter()
            .map(|d| outline_core::xref::Decorated {
                definition: ScopeKey {
                    qualname: d.definition.qualname.clone(),
                    start_line: 0,
                },
                ..d.clone()
            })
            .collect(),
        macro_rules: facts
            .macro_rules
            .iter()
            .map(|m| outline_core::xref::MacroRules {
                definition: ScopeKey {
                    qualname: m.definition.qualname.clone(),
                    start_line: 0,
                },
                ..m.clone()
            })
            .collect(),
        macro_calls: facts
            .macro_calls
            .iter()
            .map(|c| outline_core::xref::MacroCall {
                line: 0,
                owner: scope(&c.owner),
                ..c.clone()
            })
            .collect(),
    }
}

/// The names a file's Rust macro facts may make or name (each
/// `macro_rules!` that defines items with its literal item names, each
/// item-position invocation with the identifiers it passes): when they
/// change, references to them elsewhere may turn dynamic or back.
fn macro_names(facts: &Facts) -> impl Iterator<Item = &String> {
    let rules = facts
        .macro_rules
        .iter()
        .flat_map(|m| std::iter::once(&m.name).chain(&m.items));
    let calls = facts
        .macro_calls
        .iter()
        .flat_map(|c| std::iter::once(&c.name).chain(&c.idents));
    rules.chain(calls)
}

/// What writing a file's symbols changed (see [`write_file`]).
#[derive(Default)]
struct SymbolDiff {
    /// The (qualname, kind) sequence in source order is the one before.
    same_sequence: bool,
    /// Names of symbols with no counterpart before.
    added: Vec<String>,
    /// Keys and names of symbols with no counterpart now (deleted).
    removed: Vec<(i64, String)>,
    /// Names of the symbols kept when their order changed (candidate lists
    /// are in source order).
    moved: Vec<String>,
}

/// The stored change markers of every file, by path, or of the files at
/// `only` (those stored).
fn stored_files<'p>(
    conn: &Connection,
    only: Option<impl Iterator<Item = &'p str>>,
) -> Result<HashMap<String, Stored>, Error> {
    let row = |row: &rusqlite::Row<'_>| -> rusqlite::Result<(String, Stored)> {
        Ok((
            row.get::<_, String>(0)?,
            Stored {
                id: row.get(1)?,
                size: row.get(2)?,
                mtime_ns: row.get(3)?,
                hash: row.get(4)?,
            },
        ))
    };
    let Some(only) = only else {
        let mut statement = conn.prepare("SELECT path, id, size, mtime_ns, hash FROM files")?;
        let rows = statement.query_map([], row)?;
        return Ok(rows.collect::<Result<_, _>>()?);
    };
    let mut statement =
        conn.prepare("SELECT path, id, size, mtime_ns, hash FROM files WHERE path = ?1")?;
    let mut out = HashMap::new();
    for path in only {
        if let Some((path, stored)) = statement.query_row([path], row).optional()? {
            out.insert(path, stored);
        }
    }
    Ok(out)
}

/// The size in bytes and the modification time in nanoseconds since the
/// Unix epoch (0 when unknown) of the file at `path`, as the index stores
/// them (what [`crate::Index::stale`] compares).
///
/// # Errors
/// The file cannot be stat'ed.
pub fn file_times(path: &std::path::Path) -> std::io::Result<(i64, i64)> {
    let meta = std::fs::metadata(path)?;
    let size = i64::try_from(meta.len()).unwrap_or(i64::MAX);
    let mtime_ns = meta
        .modified()
        .ok()
        .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
        .and_then(|d| i64::try_from(d.as_nanos()).ok())
        .unwrap_or(0);
    Ok((size, mtime_ns))
}

/// [`file_times`] of `entry`'s file.
fn times(entry: &SourceEntry) -> std::io::Result<(i64, i64)> {
    file_times(&entry.path)
}

/// Whether `entry`'s file has the size and mtime stored in `row` (false
/// when it cannot be stat'ed: [`check`] reports why).
fn same_times(entry: &SourceEntry, row: &Stored) -> bool {
    entry.text.is_none()
        && times(entry).is_ok_and(|(size, mtime_ns)| row.size == size && row.mtime_ns == mtime_ns)
}

/// Checks one file against its stored row: unchanged when its size and
/// mtime are the stored ones (only with `trust_times`: a named file is
/// always read and hashed, as its caller says it changed), touched when
/// only they changed, else parsed.
fn check(
    entry: &SourceEntry,
    stored: Option<&Stored>,
    trust_times: bool,
    parse: Parser<'_>,
) -> Checked {
    let (size, mtime_ns) = match (&entry.text, times(entry)) {
        (Some(text), _) => (i64::try_from(text.len()).unwrap_or(i64::MAX), BUFFER_MTIME),
        (None, Ok(times)) => times,
        (None, Err(error)) => return Checked::Problem(error.to_string(), None),
    };
    let same_times = stored.is_some_and(|s| s.size == size && s.mtime_ns == mtime_ns);
    if trust_times && same_times && entry.text.is_none() {
        return Checked::Unchanged;
    }
    let bytes = match &entry.text {
        Some(text) => text.to_vec(),
        None => match std::fs::read(&entry.path) {
            Ok(bytes) => bytes,
            Err(error) => return Checked::Problem(error.to_string(), None),
        },
    };
    // The size of what was read, not the stat's: a file written between
    // the two would otherwise be stored with the size of one version and
    // the hash of another, and look changed to every later look.
    let size = i64::try_from(bytes.len()).unwrap_or(i64::MAX);
    let same_times = same_times && stored.is_some_and(|s| s.size == size);
    let hash = format!("{:016x}", xxhash_rust::xxh3::xxh3_64(&bytes));
    if let Some(stored) = stored
        && stored.hash == hash
    {
        if same_times {
            return Checked::Unchanged;
        }
        return Checked::Touched {
            id: stored.id,
            size,
            mtime_ns,
        };
    }
    match parse(&entry.display, entry.language, bytes) {
        Ok((outline, facts)) => {
            let mut type_names = BTreeSet::new();
            facts.for_each_type_name(&mut |name| {
                if !type_names.contains(name) {
                    type_names.insert(name.to_owned());
                }
            });
            let (scope, references) = scope_facts(facts);
            let mut name_hashes: Vec<i64> = references
                .iter()
                .map(|r| crate::store::name_hash(&r.name))
                .collect();
            name_hashes.sort_unstable();
            name_hashes.dedup();
            let blobs = crate::store::encode(&scope)
                .and_then(|f| Ok((f, crate::store::encode(&references)?)));
            match blobs {
                Ok((facts_blob, refs_blob)) => Checked::Parsed(Box::new(Parsed {
                    display: entry.display.clone(),
                    language: entry.language,
                    size,
                    mtime_ns,
                    hash,
                    outline,
                    scope,
                    facts_blob,
                    refs_blob,
                    name_hashes,
                    type_names,
                })),
                Err(error) => Checked::Problem(error.to_string(), None),
            }
        }
        Err(message)
            if entry.text.is_none()
                && message.starts_with(ast_outline::supervise::WORKER_FAILURE) =>
        {
            Checked::Problem(message, Some((size, mtime_ns)))
        }
        Err(message) => Checked::Problem(message, None),
    }
}

/// The facts other files' resolution reads: everything but the references
/// that belong to no type (those are stored apart). Kept: inheritance
/// references, and every reference naming the type a definition is for
/// (the `subtype` of Rust's `impl Trait for Type` self type, which maps the
/// impl to its type for relations and member lookups). Returned with all
/// the references (`facts` is taken apart, nothing else is copied).
fn scope_facts(facts: Facts) -> (Facts, Vec<Reference>) {
    let Facts {
        supported,
        references,
        imports,
        types,
        attributes,
        returns,
        exports,
        modules,
        signatures,
        generics,
        bases,
        aliases,
        decorated,
        macro_rules,
        macro_calls,
    } = facts;
    let scope = Facts {
        supported,
        references: references
            .iter()
            .filter(|r| r.role == Role::Inherit || r.subtype.is_some())
            .cloned()
            .collect(),
        imports,
        types,
        attributes,
        returns,
        exports,
        modules,
        signatures,
        generics,
        bases,
        aliases,
        decorated,
        macro_rules,
        macro_calls,
    };
    (scope, references)
}

/// Writes the rows of one file (the file, its symbols and imports),
/// replacing those of the stored file `existing` (whose id it keeps, and
/// whose references it deletes); returns the file id and what changed in its
/// symbols. A symbol keeps the key of the stored symbol of the same qualname
/// and kind (the n-th of them the n-th key, see [`crate::store`]); the others
/// are inserted, the stored ones left over deleted.
fn write_file(
    tx: &Transaction<'_>,
    existing: Option<i64>,
    parsed: &Parsed,
) -> Result<(i64, SymbolDiff), Error> {
    let (facts, refs_facts) = (&parsed.facts_blob, &parsed.refs_blob);
    let diagnostics = i64::try_from(parsed.outline.diagnostics.len()).unwrap_or(i64::MAX);
    // The stored symbols in source order: (key, qualname, kind, name).
    let mut before: Vec<(i64, String, String, String)> = Vec::new();
    let file_id = match existing {
        Some(id) => {
            let mut statement = tx.prepare_cached(
                "SELECT key, qualname, kind, name FROM symbols WHERE file_id = ?1 ORDER BY ord",
            )?;
            let rows = statement.query_map([id], |row| {
                Ok((row.get(0)?, row.get(1)?, row.get(2)?, row.get(3)?))
            })?;
            before = rows.collect::<Result<_, _>>()?;
            tx.execute("DELETE FROM imports WHERE file_id = ?1", [id])?;
            tx.execute("DELETE FROM mentions WHERE file_id = ?1", [id])?;
            tx.execute("DELETE FROM ref_names WHERE file_id = ?1", [id])?;
            tx.execute("DELETE FROM refs WHERE file_id = ?1", [id])?;
            tx.execute(
                "UPDATE files SET language = ?1, size = ?2, mtime_ns = ?3, hash = ?4, \
                 partial = ?5, diagnostics = ?6, facts = ?7, refs_facts = ?8 WHERE id = ?9",
                params![
                    parsed.language.as_str(),
                    parsed.size,
                    parsed.mtime_ns,
                    parsed.hash,
                    parsed.outline.partial,
                    diagnostics,
                    facts,
                    refs_facts,
                    id
                ],
            )?;
            id
        }
        None => {
            tx.execute(
                "INSERT INTO files(path, language, size, mtime_ns, hash, module, is_package, \
                 partial, diagnostics, facts, refs_facts) \
                 VALUES (?1, ?2, ?3, ?4, ?5, NULL, 0, ?6, ?7, ?8, ?9)",
                params![
                    parsed.display,
                    parsed.language.as_str(),
                    parsed.size,
                    parsed.mtime_ns,
                    parsed.hash,
                    parsed.outline.partial,
                    diagnostics,
                    facts,
                    refs_facts
                ],
            )?;
            tx.last_insert_rowid()
        }
    };
    let mut reusable: HashMap<(&str, &str), std::collections::VecDeque<i64>> = HashMap::new();
    for (key, qualname, kind, _) in &before {
        reusable
            .entry((qualname.as_str(), kind.as_str()))
            .or_default()
            .push_back(*key);
    }
    let mut diff = SymbolDiff::default();
    let mut sequence: Vec<(&str, &str)> = Vec::new();
    let mut kept: Vec<i64> = Vec::new();
    let mut insert = tx.prepare_cached(
        "INSERT INTO symbols(file_id, name, qualname, kind, start_line, end_line, \
         name_line, name_column, parent, ord, detail) \
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
    )?;
    let mut update = tx.prepare_cached(
        "UPDATE symbols SET name = ?1, start_line = ?2, end_line = ?3, name_line = ?4, \
         name_column = ?5, parent = ?6, ord = ?7, detail = ?8 WHERE key = ?9",
    )?;
    if existing.is_some() {
        tx.prepare_cached("DELETE FROM callbacks WHERE file_id = ?1")?
            .execute([file_id])?;
    }
    let mut callback = tx.prepare_cached(
        "INSERT INTO callbacks(file_id, seq, ord, name, qualname, start_line, end_line, detail) \
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
    )?;
    let mut callbacks: i64 = 0;
    let mut stack: Vec<(&Symbol, Option<i64>)> = parsed
        .outline
        .symbols
        .iter()
        .rev()
        .map(|s| (s, None))
        .collect();
    let mut ord: i64 = 0;
    while let Some((symbol, parent)) = stack.pop() {
        let own = if symbol.kind == SymbolKind::Block {
            if ast_outline::find::findable(symbol) {
                callback.execute(params![
                    file_id,
                    callbacks,
                    ord,
                    symbol.name,
                    symbol.qualname,
                    symbol.start_line,
                    symbol.end_line,
                    ast_outline::read::summary_detail(symbol)
                ])?;
                callbacks += 1;
            }
            parent
        } else {
            let kind = symbol.kind.as_str();
            sequence.push((symbol.qualname.as_str(), kind));
            let key = reusable
                .get_mut(&(symbol.qualname.as_str(), kind))
                .and_then(std::collections::VecDeque::pop_front);
            let key = match key {
                Some(key) => {
                    update.execute(params![
                        symbol.name,
                        symbol.start_line,
                        symbol.end_line,
                        symbol.name_line,
                        symbol.name_column,
                        parent,
                        ord,
                        ast_outline::read::summary_detail(symbol),
                        key
                    ])?;
                    kept.push(key);
                    key
                }
                None => {
                    insert.execute(params![
                        file_id,
                        symbol.name,
                        symbol.qualname,
                        kind,
                        symbol.start_line,
                        symbol.end_line,
                        symbol.name_line,
                        symbol.name_column,
                        parent,
                        ord,
                        ast_outline::read::summary_detail(symbol)
                    ])?;
                    diff.added.push(symbol.name.clone());
                    tx.last_insert_rowid()
                }
            };
            ord += 1;
            Some(key)
        };
        stack.extend(symbol.children.iter().rev().map(|c| (c, own)));
    }
    diff.same_sequence = existing.is_some()
        && sequence.len() == before.len()
        && sequence
            .iter()
            .zip(&before)
            .all(|(&(q, k), (_, bq, bk, _))| q == bq && k == bk);
    let mut delete = tx.prepare_cached("DELETE FROM symbols WHERE key = ?1")?;
    let left: HashSet<i64> = reusable.into_values().flatten().collect();
    for (key, _, _, name) in &before {
        if left.contains(key) {
            delete.execute([key])?;
            diff.removed.push((*key, name.clone()));
        }
    }
    // The kept symbols in their old order: another order now changes the
    // candidate lists that name them.
    let kept_set: HashSet<i64> = kept.iter().copied().collect();
    let kept_before: Vec<i64> = before
        .iter()
        .map(|(key, ..)| *key)
        .filter(|key| kept_set.contains(key))
        .collect();
    if kept_before != kept {
        diff.moved = before
            .iter()
            .filter(|(key, ..)| kept_set.contains(key))
            .map(|(.., name)| name.clone())
            .collect();
    }
    let mut insert = tx.prepare_cached(
        "INSERT INTO imports(file_id, line, local, module, level, name, scope) \
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
    )?;
    for binding in &parsed.scope.imports {
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
    let mut insert = tx.prepare_cached(
        "INSERT OR IGNORE INTO mentions(file_id, name, inherit) VALUES (?1, ?2, ?3)",
    )?;
    for (name, inherit) in mentions(&parsed.scope, &parsed.type_names) {
        insert.execute(params![file_id, name, inherit])?;
    }
    let mut insert =
        tx.prepare_cached("INSERT INTO ref_names(file_id, name_hash) VALUES (?1, ?2)")?;
    for hash in &parsed.name_hashes {
        insert.execute(params![file_id, hash])?;
    }
    Ok((file_id, diff))
}

/// The `mentions` rows of a file with scope facts `scope` and type names
/// `type_names` (see [`crate::store`]): (name, whether a base-class
/// reference mentions it). They are what [`imports_or_types_touch`] and the
/// base-class part of [`affected`] read of a file's names.
fn mentions<'f>(scope: &'f Facts, type_names: &'f BTreeSet<String>) -> BTreeSet<(&'f str, bool)> {
    let mut out = BTreeSet::new();
    for binding in &scope.imports {
        out.insert((binding.local.as_str(), false));
        if let Some(name) = &binding.name {
            out.insert((name.as_str(), false));
        }
    }
    for name in type_names {
        out.insert((name.as_str(), false));
    }
    for reference in &scope.references {
        if reference.role == Role::Inherit {
            out.insert((reference.name.as_str(), true));
            if let Receiver::Path(parts) = &reference.receiver {
                for part in parts {
                    out.insert((part.as_str(), true));
                }
            }
        }
    }
    out
}

/// Sets every Python file's module name and package flag from the current
/// set of paths (a new `__init__.py` changes the modules below it); adds the
/// modules of fresh files to M. With `paths_changed` false (no file added
/// or removed) the modules are the stored ones and only M is updated. Returns whether the module of a file that
/// was not parsed again changed.
fn update_modules(
    tx: &Transaction<'_>,
    fresh: &HashMap<i64, Facts>,
    paths_changed: bool,
    old: &mut Old,
) -> Result<bool, Error> {
    if !paths_changed {
        // The same paths: every module is the stored one.
        let mut statement =
            tx.prepare_cached("SELECT module FROM files WHERE id = ?1 AND language = 'python'")?;
        for id in fresh.keys() {
            if old.quiet.contains(id) || old.names_only.contains(id) {
                continue;
            }
            let module: Option<Option<String>> =
                statement.query_row([id], |row| row.get(0)).optional()?;
            old.modules.extend(module.flatten());
        }
        return Ok(false);
    }
    let paths: Vec<(i64, String, Option<String>, bool)> = {
        let mut statement =
            tx.prepare("SELECT id, path, module, is_package FROM files WHERE language = 'python'")?;
        let rows = statement.query_map([], |row| {
            Ok((row.get(0)?, row.get(1)?, row.get(2)?, row.get(3)?))
        })?;
        rows.collect::<Result<_, _>>()?
    };
    let all: HashSet<&str> = paths.iter().map(|(_, p, _, _)| p.as_str()).collect();
    let mut update =
        tx.prepare_cached("UPDATE files SET module = ?1, is_package = ?2 WHERE id = ?3")?;
    let mut layout_changed = false;
    for (id, path, module, is_package) in &paths {
        let (new_module, new_package) = python_module(path, &all).unzip();
        let new_package = new_package.unwrap_or(false);
        if fresh.contains_key(id) {
            let before = old.previous.get(id).map(|p| p.module.clone());
            if old.quiet.contains(id) && before.as_ref() != Some(&new_module) {
                old.not_quiet(*id, None);
            }
            if old.names_only.contains(id) && before.as_ref() != Some(&new_module) {
                old.names_only.remove(id);
                old.modules.extend(before.flatten());
                let classes = old.previous.get(id).map(|p| p.classes.clone());
                old.classes.extend(classes.unwrap_or_default());
            }
            if !old.quiet.contains(id) && !old.names_only.contains(id) {
                old.modules.extend(new_module.clone());
            }
        } else if new_module != *module || new_package != *is_package {
            layout_changed = true;
        }
        if new_module != *module || new_package != *is_package {
            update.execute(params![new_module, new_package, id])?;
        }
    }
    Ok(layout_changed)
}

/// Whether two dotted module names are the same or one is inside the other.
pub(crate) fn related(a: &str, b: &str) -> bool {
    a == b
        || (a.len() > b.len() && a.starts_with(b) && a.as_bytes().get(b.len()) == Some(&b'.'))
        || (b.len() > a.len() && b.starts_with(a) && b.as_bytes().get(a.len()) == Some(&b'.'))
}

/// Whether file `file` must have all its references resolved again, by the
/// import and type parts of the rule in the module documentation.
fn imports_or_types_touch(file: &FileInput, old: &Old) -> bool {
    let touches_module = |module: &str| old.modules.iter().any(|m| related(m, module));
    for binding in &file.facts.imports {
        if (old.star_changed && binding.name.as_deref() == Some("*"))
            || old.names.contains(&binding.local)
            || binding.name.as_ref().is_some_and(|n| old.names.contains(n))
        {
            return true;
        }
        let base = xref::absolute_module(
            file.module.as_deref().unwrap_or_default(),
            file.is_package,
            binding.level,
            &binding.module,
        );
        if let Some(base) = base {
            if touches_module(&base) {
                return true;
            }
            if let Some(name) = &binding.name
                && touches_module(&format!("{base}.{name}"))
            {
                return true;
            }
        }
    }
    let mut touched = false;
    file.facts.for_each_type_name(&mut |name| {
        touched = touched || old.names.contains(name);
    });
    touched
}

/// The project as the resolver needs it, with each definition's key.
struct Loaded {
    ids: Vec<i64>,
    files: Vec<FileInput>,
    /// Per file, the key of each definition.
    keys: Vec<Vec<i64>>,
}

/// A file row as [`load`] reads it: id, path, module, package flag, and
/// the facts at hand or the stored blob.
type FileRow = (i64, String, Option<String>, bool, Result<Facts, Vec<u8>>);

fn load(tx: &Transaction<'_>, mut fresh: HashMap<i64, Facts>) -> Result<Loaded, Error> {
    let rows: Vec<FileRow> = {
        let mut statement =
            tx.prepare("SELECT id, path, module, is_package, facts FROM files ORDER BY path")?;
        let rows = statement.query_map([], |row| {
            let id = row.get::<_, i64>(0)?;
            let facts = match fresh.remove(&id) {
                Some(facts) => Ok(facts),
                None => Err(row.get::<_, Vec<u8>>(4)?),
            };
            Ok((id, row.get(1)?, row.get(2)?, row.get(3)?, facts))
        })?;
        rows.collect::<Result<_, _>>()?
    };
    let (ids, files): (Vec<i64>, Vec<FileInput>) = rows
        .into_par_iter()
        .map(|(id, path, module, is_package, facts)| {
            let facts =
                facts.unwrap_or_else(|blob| crate::store::decode(&blob).unwrap_or_default());
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
        .unzip();
    let mut files = files;
    let position: HashMap<i64, usize> = ids.iter().enumerate().map(|(i, id)| (*id, i)).collect();
    let mut keys: Vec<Vec<i64>> = vec![Vec::new(); files.len()];
    let mut statement = tx.prepare(
        "SELECT key, file_id, name, qualname, kind, start_line FROM symbols ORDER BY file_id, ord",
    )?;
    let mut rows = statement.query([])?;
    while let Some(row) = rows.next()? {
        let file_id: i64 = row.get(1)?;
        if let Some(&i) = position.get(&file_id)
            && let (Some(input), Some(file_keys)) = (files.get_mut(i), keys.get_mut(i))
            && let Some(definition) = definition_of(&input.path, row, 2)?
        {
            input.definitions.push(definition);
            file_keys.push(row.get(0)?);
        }
    }
    Ok(Loaded { ids, files, keys })
}

/// The definition of the file at `path` that a `symbols` row gives, its
/// columns name, qualname, kind and start line from column `name` on;
/// `None` for a kind this build does not know.
///
/// # Errors
/// A column of another type.
pub(crate) fn definition_of(
    path: &str,
    row: &rusqlite::Row<'_>,
    name: usize,
) -> rusqlite::Result<Option<Definition>> {
    let kind: String = row.get(name + 2)?;
    let Some(kind) = crate::kind_from_str(&kind) else {
        return Ok(None);
    };
    let qualname: String = row.get(name + 1)?;
    let start_line: u32 = row.get(name + 3)?;
    Ok(Some(Definition {
        id: outline_core::symbol_id(path, start_line, &qualname),
        name: row.get(name)?,
        qualname,
        kind,
        start_line,
    }))
}

/// Which references to resolve again: whole files, and single references
/// (by index in the file's facts) with the keys `(file_id, seq)` of their
/// stored rows.
struct Affected {
    whole: HashSet<usize>,
    single: HashMap<usize, Vec<usize>>,
    rows: Vec<(i64, i64)>,
}

fn affected(
    tx: &Transaction<'_>,
    loaded: &Loaded,
    fresh_ids: &HashSet<i64>,
    old: &Old,
) -> Result<Affected, Error> {
    let mut whole: HashSet<usize> = HashSet::new();
    let mut roots: Vec<i64> = old.classes.clone();
    for (i, file) in loaded.files.iter().enumerate() {
        let is_fresh = loaded.ids.get(i).is_some_and(|id| fresh_ids.contains(id));
        if is_fresh || imports_or_types_touch(file, old) {
            whole.insert(i);
        }
        // Classes whose base is named by a name of N: their subclasses.
        for reference in &file.facts.references {
            if reference.role != Role::Inherit {
                continue;
            }
            let named = old.names.contains(&reference.name)
                || matches!(&reference.receiver, Receiver::Path(p) if p.iter().any(|x| old.names.contains(x)));
            if !named {
                continue;
            }
            whole.insert(i);
            if let Some(subtype) = &reference.subtype
                && let Some(d) = file
                    .definitions
                    .iter()
                    .rposition(|d| d.qualname == subtype.qualname)
                && let Some(&key) = loaded.keys.get(i).and_then(|k| k.get(d))
            {
                roots.push(key);
            }
        }
    }
    // Subclasses, transitively, by the relations before this refresh.
    let mut subtypes: HashMap<i64, Vec<i64>> = HashMap::new();
    {
        let mut statement = tx.prepare("SELECT subtype, supertype FROM relations")?;
        let rows = statement.query_map([], |row| Ok((row.get::<_, i64>(0)?, row.get(1)?)))?;
        for row in rows {
            let (sub, sup) = row?;
            subtypes.entry(sup).or_default().push(sub);
        }
    }
    if !subtypes.is_empty() {
        let file_of: HashMap<i64, usize> = loaded
            .keys
            .iter()
            .enumerate()
            .flat_map(|(i, keys)| keys.iter().map(move |k| (*k, i)))
            .collect();
        let mut seen: HashSet<i64> = roots.iter().copied().collect();
        while let Some(class) = roots.pop() {
            for &sub in subtypes.get(&class).map(Vec::as_slice).unwrap_or_default() {
                if seen.insert(sub) {
                    if let Some(&i) = file_of.get(&sub) {
                        whole.insert(i);
                    }
                    roots.push(sub);
                }
            }
        }
    }
    let position: HashMap<i64, usize> = loaded
        .ids
        .iter()
        .enumerate()
        .map(|(i, id)| (*id, i))
        .collect();
    // Single references: those named by N, and those resolved to a symbol
    // that was deleted (an alias can name it by another name).
    let mut found: std::collections::BTreeSet<(i64, i64)> = std::collections::BTreeSet::new();
    let mut statement = tx.prepare_cached(crate::store::REFS_BY_NAME)?;
    for name in &old.names {
        let rows = statement.query_map(params![crate::store::name_hash(name), name], |row| {
            Ok((row.get::<_, i64>(0)?, row.get::<_, i64>(1)?))
        })?;
        for row in rows {
            found.insert(row?);
        }
    }
    let mut statement = tx.prepare_cached("SELECT file_id, seq FROM refs WHERE target = ?1")?;
    for key in &old.removed_keys {
        let rows = statement.query_map([key], |row| {
            Ok((row.get::<_, i64>(0)?, row.get::<_, i64>(1)?))
        })?;
        for row in rows {
            found.insert(row?);
        }
    }
    let mut single: HashMap<usize, Vec<usize>> = HashMap::new();
    let mut rows = Vec::new();
    for (file_id, seq) in found {
        let Some(&i) = position.get(&file_id) else {
            continue;
        };
        if whole.contains(&i) {
            continue;
        }
        single
            .entry(i)
            .or_default()
            .push(usize::try_from(seq).unwrap_or(usize::MAX));
        rows.push((file_id, seq));
    }
    Ok(Affected {
        whole,
        single,
        rows,
    })
}

/// Resolves again the references the rule names (all of them in `full`
/// mode), and rewrites their rows and every relation.
fn resolve_again(
    tx: &Transaction<'_>,
    fresh: HashMap<i64, Facts>,
    mut old: Old,
    mut full: bool,
    config: &xref::ProjectConfig,
    stats: &mut RefreshStats,
    phase: &mut impl FnMut(&mut RefreshStats, &'static str),
) -> Result<(), Error> {
    let fresh_ids: HashSet<i64> = fresh.keys().copied().collect();
    // Only quiet edits: their files alone, against files read on demand.
    if !full
        && old.only_quiet(&fresh_ids)
        && crate::quiet::resolve_quiet(
            tx,
            &fresh_ids,
            (old.references, old.resolved),
            config,
            stats,
            phase,
        )?
    {
        return Ok(());
    }
    // Other edits of Python files: the files the rule names, against files
    // read on demand.
    if !full
        && !old.rust_changed
        && !old.only_quiet(&fresh_ids)
        && crate::visible::resolve_visible(tx, &fresh_ids, &old, config, stats, phase)?
    {
        return Ok(());
    }
    let loaded = load(tx, fresh)?;
    stats.files_read = loaded.files.len();
    phase(stats, "load");
    let resolver = xref::Resolver::with_config(&loaded.files, config);
    let keys = Keys::new(&loaded);
    phase(stats, "tables");
    if !full {
        for (i, id) in loaded.ids.iter().enumerate() {
            if !old.quiet.contains(id) {
                continue;
            }
            let file_keys: HashSet<i64> = loaded
                .keys
                .get(i)
                .map(|k| k.iter().copied().collect())
                .unwrap_or_default();
            if relations_of(tx, *id)? != new_relations_of(&resolver, &keys, &file_keys) {
                let file = loaded.files.get(i);
                full |= file.is_some_and(|f| {
                    outline_core::Language::from_path(&f.path) != Some(Language::Python)
                });
                old.not_quiet(*id, file);
            }
        }
    }
    let affected = if full {
        Affected {
            whole: (0..loaded.files.len()).collect(),
            single: HashMap::new(),
            rows: Vec::new(),
        }
    } else {
        affected(tx, &loaded, &fresh_ids, &old)?
    };
    phase(stats, "rule");
    let mut references = crate::store::meta_count(tx, "references")? - old.references;
    let mut resolved = crate::store::meta_count(tx, "resolved")? - old.resolved;
    if full {
        tx.execute("DELETE FROM refs", [])?;
        tx.execute_batch(crate::store::DROP_REFS_INDEXES)?;
        references = 0;
        resolved = 0;
    } else {
        let mut count = tx.prepare_cached(
            "SELECT count(*), coalesce(sum(status = 0 /* resolved */), 0) FROM refs \
             WHERE file_id = ?1",
        )?;
        let mut delete = tx.prepare_cached("DELETE FROM refs WHERE file_id = ?1")?;
        for &i in &affected.whole {
            let Some(&id) = loaded.ids.get(i) else {
                continue;
            };
            if fresh_ids.contains(&id) {
                continue;
            }
            let (n, r): (i64, i64) = count.query_row([id], |row| Ok((row.get(0)?, row.get(1)?)))?;
            references -= n;
            resolved -= r;
            delete.execute([id])?;
        }
        let mut status = tx.prepare_cached(
            "SELECT status = 0 /* resolved */ FROM refs WHERE file_id = ?1 AND seq = ?2",
        )?;
        let mut delete = tx.prepare_cached("DELETE FROM refs WHERE file_id = ?1 AND seq = ?2")?;
        for &(file_id, seq) in &affected.rows {
            let was_resolved: bool = status.query_row([file_id, seq], |row| row.get(0))?;
            references -= 1;
            resolved -= i64::from(was_resolved);
            delete.execute([file_id, seq])?;
        }
    }
    // In file id order: rows go in at the end of the table.
    let mut whole: Vec<usize> = affected.whole.iter().copied().collect();
    whole.sort_unstable_by_key(|&i| loaded.ids.get(i).copied());
    let whole_count = whole.len();
    let mut blob = tx.prepare_cached("SELECT refs_facts FROM files WHERE id = ?1")?;
    let mut read_references = |i: usize| -> Result<Vec<u8>, Error> {
        let id = loaded.ids.get(i).copied().unwrap_or(-1);
        Ok(blob.query_row([id], |row| row.get(0))?)
    };
    // Files, a chunk at a time: their references are read back (never all
    // in memory), resolved in parallel, and written.
    let mut single: Vec<(usize, Vec<usize>)> = affected.single.into_iter().collect();
    single.sort_unstable();
    let work: Vec<(usize, Option<Vec<usize>>)> = whole
        .into_iter()
        .map(|f| (f, None))
        .chain(single.into_iter().map(|(f, seqs)| (f, Some(seqs))))
        .collect();
    // Reading the blobs and writing the rows happen on this thread (SQLite);
    // decoding and resolving a chunk (in parallel) overlaps the writing of
    // the chunk before.
    let resolve_chunk = |blobs: Vec<(usize, Option<Vec<usize>>, Vec<u8>)>| -> Vec<RefValues> {
        blobs
            .into_par_iter()
            .flat_map_iter(|(f, seqs, blob)| {
                let mut references: Vec<Reference> =
                    crate::store::decode(&blob).unwrap_or_default();
                let resolutions = resolver.resolve_references(f, &references, seqs.as_deref());
                resolutions
                    .into_iter()
                    .filter_map(|resolution| {
                        let reference = references.get_mut(resolution.reference)?;
                        let path = loaded.files.get(f)?.path.as_str();
                        let file_id = *loaded.ids.get(f)?;
                        ref_values(path, file_id, &keys, reference, &resolution)
                    })
                    .collect::<Vec<_>>()
            })
            .collect()
    };
    let resolve_chunk = &resolve_chunk;
    let mut read_chunk = |chunk: &[(usize, Option<Vec<usize>>)]| -> Result<Vec<_>, Error> {
        let mut blobs = Vec::with_capacity(chunk.len());
        for (f, seqs) in chunk {
            blobs.push((*f, seqs.clone(), read_references(*f)?));
        }
        Ok(blobs)
    };
    let mut chunks = work.chunks(CHUNK);
    let mut pending = match chunks.next() {
        Some(chunk) => Some(resolve_chunk(read_chunk(chunk)?)),
        None => None,
    };
    while let Some(rows) = pending.take() {
        let next = match chunks.next() {
            Some(chunk) => Some(read_chunk(chunk)?),
            None => None,
        };
        let (written, next_rows) = std::thread::scope(|scope| {
            let handle = next.map(|blobs| scope.spawn(move || resolve_chunk(blobs)));
            let written = insert_refs(tx, &rows);
            if written.is_ok() {
                for row in &rows {
                    references += 1;
                    resolved += i64::from(row.is_resolved());
                    stats.re_resolved += 1;
                }
            }
            let next_rows = handle.map(|handle| {
                handle
                    .join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
            });
            (written, next_rows)
        });
        written?;
        pending = next_rows;
    }
    stats.resolved_files = whole_count;
    phase(stats, "resolve");
    if full {
        crate::store::create_indexes(tx, crate::store::REFS_INDEXES)?;
    }
    tx.execute("DELETE FROM relations", [])?;
    let mut insert =
        tx.prepare_cached("INSERT INTO relations(subtype, supertype, kind) VALUES (?1, ?2, ?3)")?;
    let mut relations = 0;
    for relation in &resolver.relations {
        if let (Some(sub), Some(sup)) = (
            keys.by_id.get(relation.subtype.as_str()),
            keys.by_id.get(relation.supertype.as_str()),
        ) {
            insert.execute(params![sub, sup, relation.kind])?;
            relations += 1;
        }
    }
    crate::store::set_meta_count(tx, "references", references)?;
    crate::store::set_meta_count(tx, "resolved", resolved)?;
    crate::store::set_meta_count(tx, "relations", relations)?;
    stats.references = usize::try_from(references).unwrap_or(0);
    stats.resolved = usize::try_from(resolved).unwrap_or(0);
    stats.relations = usize::try_from(relations).unwrap_or(0);
    phase(stats, "store");
    Ok(())
}

/// The stored relations whose subtype is a symbol of file `id`: (subtype,
/// supertype, kind), sorted.
pub(crate) fn relations_of(
    tx: &Transaction<'_>,
    id: i64,
) -> Result<Vec<(i64, i64, String)>, Error> {
    let mut statement = tx.prepare_cached(
        "SELECT r.subtype, r.supertype, r.kind FROM relations r \
         JOIN symbols s ON s.key = r.subtype WHERE s.file_id = ?1",
    )?;
    let rows = statement.query_map([id], |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?)))?;
    let mut out: Vec<(i64, i64, String)> = rows.collect::<Result<_, _>>()?;
    out.sort_unstable();
    Ok(out)
}

/// The relations `resolver` found whose subtype is one of `file_keys`, as
/// [`relations_of`] gives the stored ones.
fn new_relations_of(
    resolver: &xref::Resolver<'_>,
    keys: &Keys<'_>,
    file_keys: &HashSet<i64>,
) -> Vec<(i64, i64, String)> {
    let mut out: Vec<(i64, i64, String)> = resolver
        .relations
        .iter()
        .filter_map(|relation| {
            let sub = *keys.by_id.get(relation.subtype.as_str())?;
            let sup = *keys.by_id.get(relation.supertype.as_str())?;
            file_keys
                .contains(&sub)
                .then(|| (sub, sup, relation.kind.clone()))
        })
        .collect();
    out.sort_unstable();
    out
}

/// Symbol keys by text id and by (path, start line, qualname), file ids by
/// path (FxHash: looked up millions of times per build, with keys from the
/// index itself).
pub(crate) struct Keys<'a> {
    pub(crate) by_id: rustc_hash::FxHashMap<&'a str, i64>,
    /// The same keys by the parts of their ids: a reference's enclosing
    /// definition is found without formatting its id.
    by_scope: rustc_hash::FxHashMap<(&'a str, u32, &'a str), i64>,
    pub(crate) files: rustc_hash::FxHashMap<&'a str, i64>,
}

impl<'a> Keys<'a> {
    fn new(loaded: &'a Loaded) -> Self {
        let definitions = loaded
            .files
            .iter()
            .zip(&loaded.keys)
            .flat_map(|(file, keys)| {
                let path = file.path.as_str();
                file.definitions
                    .iter()
                    .zip(keys)
                    .map(move |(d, k)| (path, d, *k))
            });
        let files = loaded
            .files
            .iter()
            .zip(&loaded.ids)
            .map(|(f, id)| (f.path.as_str(), *id))
            .collect();
        Keys::of(definitions, files)
    }

    /// The keys of `definitions` (each with its file's path and its key),
    /// and the file ids `files`.
    pub(crate) fn of(
        definitions: impl Iterator<Item = (&'a str, &'a xref::Definition, i64)>,
        files: rustc_hash::FxHashMap<&'a str, i64>,
    ) -> Self {
        let mut by_id = rustc_hash::FxHashMap::default();
        let mut by_scope = rustc_hash::FxHashMap::default();
        for (path, definition, key) in definitions {
            by_id.insert(definition.id.as_str(), key);
            by_scope.insert(
                (path, definition.start_line, definition.qualname.as_str()),
                key,
            );
        }
        Keys {
            by_id,
            by_scope,
            files,
        }
    }

    /// The key of the definition `scope` of the file at `path`.
    fn scope(&self, path: &str, scope: &outline_core::xref::ScopeKey) -> Option<i64> {
        self.by_scope
            .get(&(path, scope.start_line, scope.qualname.as_str()))
            .copied()
    }
}

/// The values of one `refs` row.
pub(crate) struct RefValues {
    file_id: i64,
    seq: i64,
    line: u32,
    column: u32,
    end_column: u32,
    name: String,
    receiver: String,
    role: i64,
    caller: Option<i64>,
    status: i64,
    target: Option<i64>,
    target_file: Option<i64>,
    candidates: Option<Vec<u8>>,
    confidence: f64,
    via: i64,
}

impl RefValues {
    /// Whether the reference is resolved.
    pub(crate) fn is_resolved(&self) -> bool {
        self.status == crate::codes::status_code(xref::Status::Resolved)
    }
}

/// The row of the resolution of `reference` of the file at `path` with id
/// `file_id` (the reference's name is moved out).
pub(crate) fn ref_values(
    path: &str,
    file_id: i64,
    keys: &Keys<'_>,
    reference: &mut Reference,
    resolution: &xref::Resolution,
) -> Option<RefValues> {
    let receiver = match &reference.receiver {
        Receiver::Bare => String::new(),
        Receiver::Path(path) => path.join("."),
        Receiver::Expression => "?".to_owned(),
        Receiver::Call(path) => format!("{}()", path.join(".")),
        Receiver::Value(value) => value.display(),
    };
    let caller = reference.scope.as_ref().and_then(|s| keys.scope(path, s));
    let (target, target_file) = match (&resolution.target, resolution.status) {
        (Some(path), xref::Status::Module) => (None, keys.files.get(path.as_str()).copied()),
        // A dynamic reference names a definition or a module's file.
        (Some(target), xref::Status::Dynamic) => match keys.by_id.get(target.as_str()) {
            Some(&key) => (Some(key), None),
            None => (None, keys.files.get(target.as_str()).copied()),
        },
        (Some(id), _) => (keys.by_id.get(id.as_str()).copied(), None),
        (None, _) => (None, None),
    };
    let candidates: Option<Vec<u8>> = (!resolution.candidates.is_empty()).then(|| {
        resolution
            .candidates
            .iter()
            .filter_map(|id| keys.by_id.get(id.as_str()))
            .flat_map(|key| key.to_le_bytes())
            .collect()
    });
    Some(RefValues {
        file_id,
        seq: i64::try_from(resolution.reference).unwrap_or(i64::MAX),
        line: reference.line,
        column: reference.column,
        end_column: reference.end_column,
        name: std::mem::take(&mut reference.name),
        receiver,
        role: crate::codes::role_code(resolution.role),
        caller,
        status: crate::codes::status_code(resolution.status),
        target,
        target_file,
        candidates,
        confidence: f64::from(resolution.confidence),
        via: crate::codes::via_code(resolution.via),
    })
}

/// The `refs` columns, in the order of [`RefValues::values`].
const REF_COLUMNS: &str = "INSERT INTO refs(file_id, seq, line, column, end_column, name, \
     receiver, role, caller, status, target, target_file, candidates, confidence, via)";

impl RefValues {
    /// The row's values, in the order of [`REF_COLUMNS`].
    fn values(&self) -> [&dyn rusqlite::ToSql; 15] {
        [
            &self.file_id,
            &self.seq,
            &self.line,
            &self.column,
            &self.end_column,
            &self.name,
            &self.receiver,
            &self.role,
            &self.caller,
            &self.status,
            &self.target,
            &self.target_file,
            &self.candidates,
            &self.confidence,
            &self.via,
        ]
    }
}

/// Inserts the `refs` rows `rows` ([`crate::rows::insert_rows`]).
///
/// # Errors
/// [`Error::Sqlite`].
pub(crate) fn insert_refs(conn: &Connection, rows: &[RefValues]) -> Result<(), Error> {
    let values: Vec<_> = rows.iter().map(RefValues::values).collect();
    crate::rows::insert_rows(conn, REF_COLUMNS, &values)
}
