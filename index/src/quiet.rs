//! The refresh of edits no other file can see ("quiet" edits, see
//! [`super::refresh`]): only the edited files' references are resolved
//! again, against files read from the index as lookups need them
//! ([`OnDemand`]), so that the cost follows what the edited files reach,
//! not the size of the project.
//!
//! It gives the same rows as resolving with every file loaded: the tables
//! it reads (definitions by name, the bases of a class) are the stored
//! results of the last full resolution, which a quiet edit does not change;
//! each edited file's relations are checked against the stored ones first.
//! When that check fails, or a lookup reaches a Rust file (a Rust impl
//! block can be in any file), it gives up and the caller loads every file.

use std::collections::HashSet;

use rusqlite::Transaction;

use crate::Error;
use crate::on_demand::{OnDemand, Resolved, keyed_relations};
use crate::refresh::{RefreshStats, insert_refs};

/// Resolves again the references of the files `quiet` (file ids), every
/// one of them quiet, and writes their rows (their old rows are gone:
/// `deleted` counts them, and those resolved). `Ok(false)` when it gave up
/// (nothing was written): the caller must resolve with every file loaded.
///
/// # Errors
/// [`Error::Sqlite`] when the database fails.
pub(crate) fn resolve_quiet(
    tx: &Transaction<'_>,
    quiet: &HashSet<i64>,
    deleted: (i64, i64),
    config: &xref::ProjectConfig,
    stats: &mut RefreshStats,
    phase: &mut impl FnMut(&mut RefreshStats, &'static str),
) -> Result<bool, Error> {
    let source = OnDemand::new(tx)?;
    phase(stats, "files");
    let mut files: Vec<(usize, i64)> = Vec::new();
    for &id in quiet {
        let Some(f) = source.position(id) else {
            return Ok(false);
        };
        if source.files.get(f).is_some_and(|r| r.path.ends_with(".rs")) {
            return Ok(false);
        }
        files.push((f, id));
    }
    files.sort_unstable();
    let resolver = xref::Resolver::with_source(&source, config);
    phase(stats, "tables");
    let mut resolved: Vec<Resolved> = Vec::new();
    let mut relations: Vec<(i64, Vec<xref::Relation>)> = Vec::new();
    for &(f, id) in &files {
        relations.push((id, resolver.relations_of(f)));
        resolved.push(source.resolve_file(&resolver, f, id, None)?);
    }
    drop(resolver);
    stats.files_read = source.read_so_far().count();
    let keys = source.keys();
    for (id, mut found) in keyed_relations(&keys, &relations) {
        found.sort_unstable();
        if found != crate::refresh::relations_of(tx, id)? {
            return Ok(false);
        }
    }
    let rows = source.rows(&keys, resolved);
    drop(keys);
    phase(stats, "resolve");
    let (failed, rust) = source.finish();
    if let Some(error) = failed {
        return Err(error);
    }
    if rust {
        return Ok(false);
    }
    let mut references = crate::store::meta_count(tx, "references")? - deleted.0;
    let mut resolved_count = crate::store::meta_count(tx, "resolved")? - deleted.1;
    insert_refs(tx, &rows)?;
    for row in &rows {
        references += 1;
        resolved_count += i64::from(row.is_resolved());
    }
    crate::store::set_meta_count(tx, "references", references)?;
    crate::store::set_meta_count(tx, "resolved", resolved_count)?;
    stats.re_resolved += rows.len();
    stats.resolved_files = files.len();
    stats.references = usize::try_from(references).unwrap_or(0);
    stats.resolved = usize::try_from(resolved_count).unwrap_or(0);
    stats.relations = usize::try_from(crate::store::meta_count(tx, "relations")?).unwrap_or(0);
    phase(stats, "store");
    Ok(true)
}
