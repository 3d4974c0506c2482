//! A resolver source ([`xref::Source`]) that reads each file's definitions
//! and facts from the index when a lookup first needs them: a refresh
//! whose edits other files cannot see resolves the edited files against a
//! few of the project's files instead of loading all of them.

use std::cell::{Cell, OnceCell, RefCell};
use std::collections::HashMap;

use std::collections::BTreeMap;

use outline_core::xref::{Facts, Reference};
use rusqlite::Transaction;
use xref::Definition;

use crate::Error;
use crate::refresh::{Keys, RefValues, ref_values};

/// One file's references resolved on demand: its number, its id, its
/// references and the resolutions of those asked for.
pub(crate) type Resolved = (usize, i64, Vec<Reference>, Vec<xref::Resolution>);

/// Each file's relations as rows (subtype, supertype, kind), by file id;
/// within a file by subtype, each subtype's in the resolver's order (the
/// order `bases` reads them back in).
pub(crate) type KeyedRelations = BTreeMap<i64, Vec<(i64, i64, String)>>;

/// `found` (each file's relations, by file id) as rows of keys; relations
/// whose ends were not read are left out.
pub(crate) fn keyed_relations(
    keys: &Keys<'_>,
    found: &[(i64, Vec<xref::Relation>)],
) -> KeyedRelations {
    found
        .iter()
        .map(|(id, relations)| {
            let mut rows: Vec<(i64, i64, String)> = relations
                .iter()
                .filter_map(|relation| {
                    Some((
                        *keys.by_id.get(relation.subtype.as_str())?,
                        *keys.by_id.get(relation.supertype.as_str())?,
                        relation.kind.clone(),
                    ))
                })
                .collect();
            // By subtype (stable: each one's bases keep their order).
            rows.sort_by_key(|row| row.0);
            (*id, rows)
        })
        .collect()
}

/// A file row without its facts: id, path, module, package flag.
pub(crate) struct FileRow {
    /// `files.id`.
    pub(crate) id: i64,
    /// `files.path`.
    pub(crate) path: String,
    /// `files.module`.
    pub(crate) module: Option<String>,
    /// `files.is_package`.
    pub(crate) is_package: bool,
}

/// (file number, definition index) pairs.
type Pairs = Vec<(usize, usize)>;

/// One file's definitions (with their symbol keys) and facts.
pub(crate) struct FileData {
    /// In source order (`symbols.ord`).
    pub(crate) definitions: Vec<Definition>,
    /// The key of each definition.
    pub(crate) keys: Vec<i64>,
    /// The stored scope facts.
    pub(crate) facts: Facts,
}

/// The index's files, numbered in path order (as [`super::refresh`]'s full
/// load numbers them), each loaded on first use.
pub(crate) struct OnDemand<'t> {
    tx: &'t Transaction<'t>,
    /// Every file, by path.
    pub(crate) files: Vec<FileRow>,
    /// File id → its number.
    position: HashMap<i64, usize>,
    loaded: Vec<OnceCell<Option<FileData>>>,
    /// The first database error a lookup met (lookups cannot return it).
    failed: RefCell<Option<Error>>,
    /// Whether a Rust file was read (the source knows no impl block: the
    /// caller must resolve with every file loaded instead).
    rust: Cell<bool>,
    /// [`xref::Source::named`]'s answers so far, by (name, member): common
    /// member names (`get`, `append`) are asked for again and again.
    named: RefCell<HashMap<(String, bool), Pairs>>,
}

impl<'t> OnDemand<'t> {
    /// Reads the file rows.
    ///
    /// # Errors
    /// [`Error::Sqlite`] when the database fails.
    pub(crate) fn new(tx: &'t Transaction<'t>) -> Result<Self, Error> {
        let mut statement =
            tx.prepare("SELECT id, path, module, is_package FROM files ORDER BY path")?;
        let files: Vec<FileRow> = statement
            .query_map([], |row| {
                Ok(FileRow {
                    id: row.get(0)?,
                    path: row.get(1)?,
                    module: row.get(2)?,
                    is_package: row.get(3)?,
                })
            })?
            .collect::<Result<_, _>>()?;
        Ok(Self::with_files(tx, files))
    }

    /// A source over the file rows `files` (read by an earlier source of
    /// the same transaction), with nothing loaded yet.
    pub(crate) fn with_files(tx: &'t Transaction<'t>, files: Vec<FileRow>) -> Self {
        let position = files.iter().enumerate().map(|(f, r)| (r.id, f)).collect();
        let loaded = files.iter().map(|_| OnceCell::new()).collect();
        OnDemand {
            tx,
            files,
            position,
            loaded,
            failed: RefCell::new(None),
            rust: Cell::new(false),
            named: RefCell::new(HashMap::new()),
        }
    }

    /// The number of the file with id `id`.
    pub(crate) fn position(&self, id: i64) -> Option<usize> {
        self.position.get(&id).copied()
    }

    /// File `f`'s data, read on first use (`None` when it could not be).
    pub(crate) fn data(&self, f: usize) -> Option<&FileData> {
        let cell = self.loaded.get(f)?;
        cell.get_or_init(|| match self.read(f) {
            Ok(data) => data,
            Err(error) => {
                self.fail(error);
                None
            }
        })
        .as_ref()
    }

    /// Resolves the references of file `f` (id `id`) read from its stored
    /// blob: all of them, or those at the positions `only`.
    ///
    /// # Errors
    /// [`Error::Sqlite`] when the blob cannot be read.
    pub(crate) fn resolve_file(
        &self,
        resolver: &xref::Resolver<'_, OnDemand<'_>>,
        f: usize,
        id: i64,
        only: Option<&[i64]>,
    ) -> Result<Resolved, Error> {
        let blob: Vec<u8> = self
            .tx
            .prepare_cached("SELECT refs_facts FROM files WHERE id = ?1")?
            .query_row([id], |row| row.get(0))?;
        let references: Vec<Reference> = crate::store::decode(&blob).unwrap_or_default();
        let positions: Option<Vec<usize>> = only.map(|seqs| {
            seqs.iter()
                .filter_map(|&seq| usize::try_from(seq).ok())
                .collect()
        });
        let resolutions = resolver.resolve_references(f, &references, positions.as_deref());
        Ok((f, id, references, resolutions))
    }

    /// The keys of every definition read so far (targets, candidates and
    /// callers are among them), and file ids by path.
    pub(crate) fn keys(&self) -> Keys<'_> {
        let definitions = self.read_so_far().flat_map(|(f, data)| {
            let path = self.files.get(f).map_or("", |r| r.path.as_str());
            data.definitions
                .iter()
                .zip(&data.keys)
                .map(move |(d, k)| (path, d, *k))
        });
        Keys::of(
            definitions,
            self.files.iter().map(|r| (r.path.as_str(), r.id)).collect(),
        )
    }

    /// The `refs` rows of `resolved`, with the keys `keys`.
    pub(crate) fn rows(&self, keys: &Keys<'_>, resolved: Vec<Resolved>) -> Vec<RefValues> {
        let mut rows = Vec::new();
        for (f, id, mut references, resolutions) in resolved {
            let path = self.files.get(f).map_or("", |r| r.path.as_str());
            for resolution in &resolutions {
                if let Some(reference) = references.get_mut(resolution.reference)
                    && let Some(row) = ref_values(path, id, keys, reference, resolution)
                {
                    rows.push(row);
                }
            }
        }
        rows
    }

    /// The files read so far, with their numbers.
    pub(crate) fn read_so_far(&self) -> impl Iterator<Item = (usize, &FileData)> {
        self.loaded
            .iter()
            .enumerate()
            .filter_map(|(f, cell)| Some((f, cell.get()?.as_ref()?)))
    }

    /// The first database error a lookup met, and whether a Rust file was
    /// read; the source is spent.
    pub(crate) fn finish(self) -> (Option<Error>, bool) {
        (self.failed.into_inner(), self.rust.get())
    }

    /// The file rows, for another source of the same transaction, and
    /// whether a Rust file was read.
    ///
    /// # Errors
    /// The first database error a lookup met.
    pub(crate) fn into_files(self) -> Result<(Vec<FileRow>, bool), Error> {
        match self.failed.into_inner() {
            Some(error) => Err(error),
            None => Ok((self.files, self.rust.get())),
        }
    }

    fn fail(&self, error: Error) {
        let mut failed = self.failed.borrow_mut();
        if failed.is_none() {
            *failed = Some(error);
        }
    }

    fn read(&self, f: usize) -> Result<Option<FileData>, Error> {
        let Some(row) = self.files.get(f) else {
            return Ok(None);
        };
        if row.path.ends_with(".rs") {
            self.rust.set(true);
        }
        let blob: Vec<u8> = self
            .tx
            .prepare_cached("SELECT facts FROM files WHERE id = ?1")?
            .query_row([row.id], |r| r.get(0))?;
        let facts = crate::store::decode(&blob).unwrap_or_default();
        let mut statement = self.tx.prepare_cached(
            "SELECT key, name, qualname, kind, start_line FROM symbols WHERE file_id = ?1 \
             ORDER BY ord",
        )?;
        let mut rows = statement.query([row.id])?;
        let mut definitions = Vec::new();
        let mut keys = Vec::new();
        while let Some(r) = rows.next()? {
            if let Some(definition) = crate::refresh::definition_of(&row.path, r, 1)? {
                definitions.push(definition);
                keys.push(r.get(0)?);
            }
        }
        Ok(Some(FileData {
            definitions,
            keys,
            facts,
        }))
    }

    /// The (file, definition) pairs of the symbols `sql` selects as
    /// `(file_id, ord)` rows with parameter `param`, in file then source
    /// order.
    fn pairs(&self, sql: &str, param: impl rusqlite::ToSql) -> Result<Vec<(usize, usize)>, Error> {
        let mut statement = self.tx.prepare_cached(sql)?;
        let rows =
            statement.query_map([param], |r| Ok((r.get::<_, i64>(0)?, r.get::<_, i64>(1)?)))?;
        let mut out = Vec::new();
        for row in rows {
            let (file_id, ord) = row?;
            if let (Some(f), Ok(d)) = (self.position(file_id), usize::try_from(ord)) {
                out.push((f, d));
            }
        }
        Ok(out)
    }
}

impl xref::Source for OnDemand<'_> {
    fn len(&self) -> usize {
        self.files.len()
    }

    fn path(&self, f: usize) -> Option<&str> {
        self.files.get(f).map(|r| r.path.as_str())
    }

    fn module(&self, f: usize) -> Option<&str> {
        self.files.get(f)?.module.as_deref()
    }

    fn is_package(&self, f: usize) -> bool {
        self.files.get(f).is_some_and(|r| r.is_package)
    }

    fn definitions(&self, f: usize) -> Option<&[Definition]> {
        self.data(f).map(|d| d.definitions.as_slice())
    }

    fn facts(&self, f: usize) -> Option<&Facts> {
        self.data(f).map(|d| &d.facts)
    }

    fn on_demand(&self) -> bool {
        true
    }

    fn named(&self, name: &str, member: bool) -> Vec<(usize, usize)> {
        let key = (name.to_owned(), member);
        if let Some(pairs) = self.named.borrow().get(&key) {
            return pairs.clone();
        }
        let pairs = self.named_uncached(name, member);
        self.named.borrow_mut().insert(key, pairs.clone());
        pairs
    }
    fn bases(&self, f: usize, d: usize) -> Vec<(usize, usize)> {
        let Some(&key) = self.data(f).and_then(|data| data.keys.get(d)) else {
            return Vec::new();
        };
        let sql = "SELECT s.file_id, s.ord FROM relations r JOIN symbols s ON s.key = r.supertype \
                   WHERE r.subtype = ?1 ORDER BY r.rowid";
        self.pairs(sql, key).unwrap_or_else(|error| {
            self.fail(error);
            Vec::new()
        })
    }
}

impl OnDemand<'_> {
    /// [`xref::Source::named`] from the `symbols` table.
    fn named_uncached(&self, name: &str, member: bool) -> Vec<(usize, usize)> {
        // The symbols table holds no block; a member's qualname has a dot.
        let sql = if member {
            "SELECT file_id, ord FROM symbols WHERE name = ?1 AND instr(qualname, '.') > 0"
        } else {
            "SELECT file_id, ord FROM symbols WHERE name = ?1 AND instr(qualname, '.') = 0"
        };
        match self.pairs(sql, name) {
            Ok(mut pairs) => {
                pairs.sort_unstable();
                pairs
            }
            Err(error) => {
                self.fail(error);
                Vec::new()
            }
        }
    }
}
