//! The refresh of Python edits that other files can see (a definition
//! added, removed or renamed, an import changed), with files read from the
//! index as lookups need them ([`OnDemand`]) instead of loading every file.
//!
//! It applies the rule of [`super::refresh`] with the index's tables instead
//! of every file's facts: the files that mention a name of N (`mentions`),
//! import a module of M (`imports`), or hold a subclass of a class of those
//! files (`relations`), and the single references named by N or resolved to
//! a deleted symbol (`refs`). Then, inside a savepoint:
//! 1. the relations of the files resolved again are computed (their bases'
//!    own bases still read the stored relations) and written;
//! 2. those files' references and the single references are resolved
//!    against the new relations, and their relations computed again; they
//!    must equal those of step 1, or nothing is kept.
//!
//! It gives up, keeping nothing, so that the caller loads every file, when a
//! lookup reaches a Rust file (a Rust impl block can be in any file), when
//! a quiet edit's relations changed, or when step 2 disagrees with step 1.

use std::collections::{BTreeMap, BTreeSet, HashSet};

use rusqlite::{Transaction, params};

use crate::Error;
use crate::on_demand::{KeyedRelations, OnDemand, Resolved, keyed_relations};
use crate::refresh::{Old, RefValues, RefreshStats, insert_refs, related};

/// The refresh resolves on demand when at most `MIN_REACH` files, or one
/// in `FILES_PER_REACH` of the project's files, have references to resolve
/// again; otherwise the caller loads every file. Measured on the Python
/// standard library (17,253 files, 2 cores): a file resolved on demand
/// costs about 9 ms (its references and the files they reach, read one at
/// a time), a full load and resolution of everything again about 5 s, so
/// one file in 64 (270 files) stays under half of that.
const MIN_REACH: usize = 32;
/// See [`MIN_REACH`].
const FILES_PER_REACH: usize = 64;

/// Which references to resolve again: every reference of the files
/// `whole`, and in other files the single references by file id and seq.
struct Affected {
    whole: BTreeSet<i64>,
    single: BTreeMap<i64, Vec<i64>>,
}

/// Resolves again what the rule names after the edits `old` of the files
/// `fresh` (file ids), reading files on demand, and writes the rows.
/// `Ok(false)` when it gave up, having written nothing: the caller must
/// resolve with every file loaded.
///
/// # Errors
/// [`Error::Sqlite`] when the database fails.
pub(crate) fn resolve_visible(
    tx: &Transaction<'_>,
    fresh: &HashSet<i64>,
    old: &Old,
    config: &xref::ProjectConfig,
    stats: &mut RefreshStats,
    phase: &mut impl FnMut(&mut RefreshStats, &'static str),
) -> Result<bool, Error> {
    tx.execute_batch("SAVEPOINT visible")?;
    match attempt(tx, fresh, old, config, stats, phase) {
        Ok(true) => {
            tx.execute_batch("RELEASE visible")?;
            Ok(true)
        }
        Ok(false) => {
            tx.execute_batch("ROLLBACK TO visible; RELEASE visible")?;
            Ok(false)
        }
        Err(error) => Err(error),
    }
}

fn attempt(
    tx: &Transaction<'_>,
    fresh: &HashSet<i64>,
    old: &Old,
    config: &xref::ProjectConfig,
    stats: &mut RefreshStats,
    phase: &mut impl FnMut(&mut RefreshStats, &'static str),
) -> Result<bool, Error> {
    let affected = affected(tx, fresh, old)?;
    // Too many files to read one at a time: loading every file at once
    // (in parallel) is faster.
    let files: i64 = tx.query_row("SELECT count(*) FROM files", [], |row| row.get(0))?;
    let reach = affected.whole.len() + affected.single.len();
    if reach > MIN_REACH.max(usize::try_from(files).unwrap_or(0) / FILES_PER_REACH) {
        return Ok(false);
    }
    // Relations of deleted symbols go (a subtype's file is resolved again:
    // its reference to a deleted base is a single reference).
    let mut delete =
        tx.prepare_cached("DELETE FROM relations WHERE subtype = ?1 OR supertype = ?1")?;
    for key in &old.removed_keys {
        delete.execute([key])?;
    }
    phase(stats, "rule");
    // 1. The relations of the files resolved again, as the stored bases
    //    give their bases' bases.
    let source = OnDemand::new(tx)?;
    let Some(files) = numbered(&source, &affected.whole) else {
        return Ok(false);
    };
    phase(stats, "files");
    let resolver = xref::Resolver::with_source(&source, config);
    phase(stats, "tables");
    let found: Vec<(i64, Vec<xref::Relation>)> = files
        .iter()
        .map(|&(f, id)| (id, resolver.relations_of(f)))
        .collect();
    let first = keyed_relations(&source.keys(), &found);
    let mut unchanged = true;
    for (id, rows) in &first {
        if *rows != stored_in_order(tx, *id)? {
            if old.quiet.contains(id) {
                return Ok(false);
            }
            unchanged = false;
        }
    }
    phase(stats, "relations");
    let (rows, source) = if unchanged {
        // The bases read were right: the same source resolves the rest.
        let rows = references(&source, &resolver, &files, &affected, None)?;
        drop(resolver);
        (rows, source)
    } else {
        drop(resolver);
        let (files_rows, rust) = source.into_files()?;
        if rust {
            return Ok(false);
        }
        write_relations(tx, &affected, &first)?;
        let source = OnDemand::with_files(tx, files_rows);
        let resolver = xref::Resolver::with_source(&source, config);
        let rows = references(&source, &resolver, &files, &affected, Some(&first))?;
        drop(resolver);
        (rows, source)
    };
    stats.files_read = source.read_so_far().count();
    let (failed, rust) = source.finish();
    if let Some(error) = failed {
        return Err(error);
    }
    let Some(rows) = rows.filter(|_| !rust) else {
        return Ok(false);
    };
    phase(stats, "resolve");
    write_rows(tx, fresh, old, &affected, &rows, stats)?;
    phase(stats, "store");
    Ok(true)
}

/// Step 2: the rows of the references of the files resolved again and of
/// the single references, resolved by `resolver` over `source`. With
/// `check`, the files' relations must come out as `check` (`None` when
/// they do not).
fn references(
    source: &OnDemand<'_>,
    resolver: &xref::Resolver<'_, OnDemand<'_>>,
    files: &[(usize, i64)],
    affected: &Affected,
    check: Option<&KeyedRelations>,
) -> Result<Option<Vec<RefValues>>, Error> {
    let mut found: Vec<(i64, Vec<xref::Relation>)> = Vec::new();
    let mut resolved: Vec<Resolved> = Vec::new();
    for &(f, id) in files {
        if check.is_some() {
            found.push((id, resolver.relations_of(f)));
        }
        resolved.push(source.resolve_file(resolver, f, id, None)?);
    }
    for (&id, seqs) in &affected.single {
        if let Some(f) = source.position(id) {
            resolved.push(source.resolve_file(resolver, f, id, Some(seqs))?);
        }
    }
    let keys = source.keys();
    if check.is_some_and(|first| keyed_relations(&keys, &found) != *first) {
        return Ok(None);
    }
    Ok(Some(source.rows(&keys, resolved)))
}

/// Replaces the stored relations of the files resolved again with `found`.
fn write_relations(
    tx: &Transaction<'_>,
    affected: &Affected,
    found: &KeyedRelations,
) -> Result<(), Error> {
    let mut delete = tx.prepare_cached(
        "DELETE FROM relations WHERE subtype IN (SELECT key FROM symbols WHERE file_id = ?1)",
    )?;
    for id in &affected.whole {
        delete.execute([id])?;
    }
    let mut insert =
        tx.prepare_cached("INSERT INTO relations(subtype, supertype, kind) VALUES (?1, ?2, ?3)")?;
    for (subtype, supertype, kind) in found.values().flatten() {
        insert.execute(rusqlite::params![subtype, supertype, kind])?;
    }
    Ok(())
}

/// The stored relations whose subtype is a symbol of file `id`, as
/// [`keyed_relations`] gives them: by subtype, each one's in the order
/// they were written (the order of its bases).
fn stored_in_order(tx: &Transaction<'_>, id: i64) -> Result<Vec<(i64, i64, String)>, Error> {
    let mut statement = tx.prepare_cached(
        "SELECT r.subtype, r.supertype, r.kind FROM relations r \
         JOIN symbols s ON s.key = r.subtype WHERE s.file_id = ?1 ORDER BY r.subtype, r.rowid",
    )?;
    let rows = statement.query_map([id], |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?)))?;
    Ok(rows.collect::<Result<_, _>>()?)
}

/// The files `ids` with their numbers in `source`, in number order; `None`
/// when one is a Rust file (or not found).
fn numbered(source: &OnDemand<'_>, ids: &BTreeSet<i64>) -> Option<Vec<(usize, i64)>> {
    let mut files = Vec::new();
    for &id in ids {
        let f = source.position(id)?;
        if source.files.get(f)?.path.ends_with(".rs") {
            return None;
        }
        files.push((f, id));
    }
    files.sort_unstable();
    Some(files)
}

/// The rule of [`super::refresh`] on the index's tables.
fn affected(tx: &Transaction<'_>, fresh: &HashSet<i64>, old: &Old) -> Result<Affected, Error> {
    let mut whole: BTreeSet<i64> = fresh.clone().into_iter().collect();
    // Files whose base-class references mention a name of N: their classes
    // are roots of the subclass walk.
    let mut inherit: BTreeSet<i64> = BTreeSet::new();
    {
        let mut statement =
            tx.prepare_cached("SELECT file_id, inherit FROM mentions WHERE name = ?1")?;
        let star = old.star_changed.then_some("*");
        for name in old.names.iter().map(String::as_str).chain(star) {
            let rows =
                statement.query_map([name], |row| Ok((row.get::<_, i64>(0)?, row.get(1)?)))?;
            for row in rows {
                let (file, base): (i64, bool) = row?;
                whole.insert(file);
                if base {
                    inherit.insert(file);
                }
            }
        }
    }
    importers(tx, old, &mut whole)?;
    // Single references: those named by N, and those resolved to a deleted
    // symbol; a base-class one makes its file whole (its relations change).
    let mut found: BTreeSet<(i64, i64, bool)> = BTreeSet::new();
    {
        let mut named = tx.prepare_cached(crate::store::REFS_BY_NAME)?;
        for name in &old.names {
            let rows = named.query_map(params![crate::store::name_hash(name), name], |row| {
                Ok((row.get(0)?, row.get(1)?, row.get(2)?))
            })?;
            for row in rows {
                found.insert(row?);
            }
        }
        let mut targeted = tx.prepare_cached(
            "SELECT file_id, seq, role = 3 /* inherit */ FROM refs WHERE target = ?1",
        )?;
        for key in &old.removed_keys {
            let rows =
                targeted.query_map([key], |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?)))?;
            for row in rows {
                found.insert(row?);
            }
        }
    }
    for &(file, _, base) in &found {
        if base && whole.insert(file) {
            inherit.insert(file);
        }
    }
    // Subclasses, transitively, by the relations before this refresh.
    let mut roots: Vec<i64> = old.classes.clone();
    {
        let mut statement = tx.prepare_cached("SELECT key FROM symbols WHERE file_id = ?1")?;
        for file in &inherit {
            let keys = statement.query_map([file], |row| row.get::<_, i64>(0))?;
            for key in keys {
                roots.push(key?);
            }
        }
    }
    let mut statement = tx.prepare_cached(
        "SELECT r.subtype, s.file_id FROM relations r JOIN symbols s ON s.key = r.subtype \
         WHERE r.supertype = ?1",
    )?;
    let mut seen: HashSet<i64> = roots.iter().copied().collect();
    while let Some(class) = roots.pop() {
        let rows = statement.query_map([class], |row| Ok((row.get::<_, i64>(0)?, row.get(1)?)))?;
        for row in rows {
            let (sub, file): (i64, i64) = row?;
            if seen.insert(sub) {
                whole.insert(file);
                roots.push(sub);
            }
        }
    }
    let mut single: BTreeMap<i64, Vec<i64>> = BTreeMap::new();
    for (file, seq, _) in found {
        if !whole.contains(&file) {
            single.entry(file).or_default().push(seq);
        }
    }
    Ok(Affected { whole, single })
}

/// Adds to `whole` the files that import a module of M, or a module above
/// or below one (`import a` when `a.b` changed, `from a import b`).
fn importers(tx: &Transaction<'_>, old: &Old, whole: &mut BTreeSet<i64>) -> Result<(), Error> {
    if old.modules.is_empty() {
        return Ok(());
    }
    // Absolute imports: the module itself, those below it, those above it.
    let mut exact =
        tx.prepare_cached("SELECT file_id FROM imports WHERE level = 0 AND module = ?1")?;
    let mut below = tx.prepare_cached(
        "SELECT file_id FROM imports WHERE level = 0 AND module > ?1 AND module < ?2",
    )?;
    for module in &old.modules {
        let mut above: Vec<&str> = vec![module.as_str()];
        above.extend(module.match_indices('.').map(|(i, _)| &module[..i]));
        for name in above {
            for file in exact.query_map([name], |row| row.get::<_, i64>(0))? {
                whole.insert(file?);
            }
        }
        // Dotted names below `module` sort between `module.` and `module/`.
        let (low, high) = (format!("{module}."), format!("{module}/"));
        for file in below.query_map([low, high], |row| row.get::<_, i64>(0))? {
            whole.insert(file?);
        }
    }
    // Relative imports, made absolute from their file's module.
    let mut statement = tx.prepare_cached(
        "SELECT i.file_id, i.module, i.level, i.name, f.module, f.is_package \
         FROM imports i JOIN files f ON f.id = i.file_id WHERE i.level > 0",
    )?;
    let mut rows = statement.query([])?;
    while let Some(row) = rows.next()? {
        let file: i64 = row.get(0)?;
        if whole.contains(&file) {
            continue;
        }
        let (module, level, name): (String, u32, Option<String>) =
            (row.get(1)?, row.get(2)?, row.get(3)?);
        let (own, is_package): (Option<String>, bool) = (row.get(4)?, row.get(5)?);
        let Some(base) = xref::absolute_module(
            own.as_deref().unwrap_or_default(),
            is_package,
            level,
            &module,
        ) else {
            continue;
        };
        let touches = |m: &str| old.modules.iter().any(|changed| related(changed, m));
        if touches(&base) || name.is_some_and(|n| touches(&format!("{base}.{n}"))) {
            whole.insert(file);
        }
    }
    Ok(())
}

/// Deletes the old rows of what was resolved again and writes `rows`, with
/// the counts in `meta` and `stats`.
fn write_rows(
    tx: &Transaction<'_>,
    fresh: &HashSet<i64>,
    old: &Old,
    affected: &Affected,
    rows: &[RefValues],
    stats: &mut RefreshStats,
) -> Result<(), Error> {
    let mut references = crate::store::meta_count(tx, "references")? - old.references;
    let mut resolved = crate::store::meta_count(tx, "resolved")? - old.resolved;
    let mut count = tx.prepare_cached(
        "SELECT count(*), coalesce(sum(status = 0 /* resolved */), 0) FROM refs \
         WHERE file_id = ?1",
    )?;
    let mut delete = tx.prepare_cached("DELETE FROM refs WHERE file_id = ?1")?;
    for id in affected.whole.iter().filter(|id| !fresh.contains(id)) {
        let (n, r): (i64, i64) = count.query_row([id], |row| Ok((row.get(0)?, row.get(1)?)))?;
        references -= n;
        resolved -= r;
        delete.execute([id])?;
    }
    let mut status = tx.prepare_cached(
        "SELECT status = 0 /* resolved */ FROM refs WHERE file_id = ?1 AND seq = ?2",
    )?;
    let mut delete = tx.prepare_cached("DELETE FROM refs WHERE file_id = ?1 AND seq = ?2")?;
    for (id, seqs) in &affected.single {
        for seq in seqs {
            let was_resolved: bool = status.query_row([id, seq], |row| row.get(0))?;
            references -= 1;
            resolved -= i64::from(was_resolved);
            delete.execute([id, seq])?;
        }
    }
    insert_refs(tx, rows)?;
    for row in rows {
        references += 1;
        resolved += i64::from(row.is_resolved());
    }
    let relations: i64 = tx.query_row("SELECT count(*) FROM relations", [], |row| row.get(0))?;
    crate::store::set_meta_count(tx, "references", references)?;
    crate::store::set_meta_count(tx, "resolved", resolved)?;
    crate::store::set_meta_count(tx, "relations", relations)?;
    stats.re_resolved += rows.len();
    stats.resolved_files = affected.whole.len();
    stats.references = usize::try_from(references).unwrap_or(0);
    stats.resolved = usize::try_from(resolved).unwrap_or(0);
    stats.relations = usize::try_from(relations).unwrap_or(0);
    Ok(())
}
