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

use outline_core::xref::Reference;
use rusqlite::Transaction;

use crate::Error;
use crate::on_demand::OnDemand;
use crate::refresh::{Keys, RefValues, RefreshStats, insert_ref, ref_values};

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
    let mut resolved: Vec<(usize, i64, Vec<Reference>, Vec<xref::Resolution>)> = Vec::new();
    let mut relations: Vec<(i64, Vec<xref::Relation>)> = Vec::new();
    for &(f, id) in &files {
        relations.push((id, resolver.relations_of(f)));
        let blob: Vec<u8> = tx
            .prepare_cached("SELECT refs_facts FROM files WHERE id = ?1")?
            .query_row([id], |row| row.get(0))?;
        let references: Vec<Reference> = crate::store::decode(&blob).unwrap_or_default();
        let resolutions = references
            .iter()
            .enumerate()
            .filter_map(|(r, reference)| resolver.resolve_reference(f, r, reference))
            .collect();
        resolved.push((f, id, references, resolutions));
    }
    drop(resolver);
    // Keys of every definition read (targets, candidates and callers are
    // among them), file ids by path.
    let mut by_id: rustc_hash::FxHashMap<&str, i64> = rustc_hash::FxHashMap::default();
    stats.files_read = source.read_so_far().count();
    for (_, data) in source.read_so_far() {
        for (definition, key) in data.definitions.iter().zip(&data.keys) {
            by_id.insert(definition.id.as_str(), *key);
        }
    }
    let keys = Keys {
        by_id,
        files: source
            .files
            .iter()
            .map(|r| (r.path.as_str(), r.id))
            .collect(),
    };
    for (id, found) in &relations {
        let mut found: Vec<(i64, i64, String)> = found
            .iter()
            .filter_map(|relation| {
                Some((
                    *keys.by_id.get(relation.subtype.as_str())?,
                    *keys.by_id.get(relation.supertype.as_str())?,
                    relation.kind.clone(),
                ))
            })
            .collect();
        found.sort_unstable();
        if found != crate::refresh::relations_of(tx, *id)? {
            return Ok(false);
        }
    }
    let mut rows: Vec<RefValues> = Vec::new();
    for (f, id, mut references, resolutions) in resolved {
        let path = source.files.get(f).map_or("", |r| r.path.as_str());
        for resolution in &resolutions {
            if let Some(reference) = references.get_mut(resolution.reference)
                && let Some(row) = ref_values(path, id, &keys, reference, resolution)
            {
                rows.push(row);
            }
        }
    }
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
    let mut insert = tx.prepare_cached(crate::refresh::INSERT_REF)?;
    for row in &rows {
        insert_ref(&mut insert, row)?;
        references += 1;
        resolved_count += i64::from(row.status == xref::Status::Resolved);
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
