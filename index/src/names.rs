//! Symbols by name pattern, answered from the index: the MCP tool
//! `find_symbol(pattern)` ([`ast_outline::find`]) without walking the tree.
//!
//! A pattern is a substring of qualified names or a glob, which no SQLite
//! index serves: a scan of `symbols` compares every name (35 ms for
//! 500,000 names on the project's machine, over the goal of a whole answer).
//! [`Names`] keeps, per indexed file in path order, what matching needs —
//! each findable symbol's lower-cased qualified name (a callback's name),
//! in one buffer per file, and its key — loaded from the tables `symbols`
//! and `callbacks` and brought up to date before each lookup
//! ([`Names::sync`]): when the database changed (a commit of this
//! connection or of another), the files whose content hash changed are
//! read again. The lines of the matches shown (at most
//! [`ast_outline::find::MAX_MATCHES`]) are read from the tables, with the
//! detail stored for each symbol, so the answer is the walk's text.
//!
//! Names that are not ASCII (where lower case is not a byte-wise map) and
//! callbacks (found by name, or by their owner's qualified name with a
//! glob) are kept whole and matched with [`Pattern::matches`] itself.

use std::collections::{HashMap, HashSet};

use ast_outline::find::{Found, Pattern, answer_line, haystack};
use rusqlite::{Connection, OptionalExtension};

use crate::{Error, Index};

/// The names of the index's findable symbols, by file (see the module
/// documentation). Empty until the first [`Names::sync`].
#[derive(Debug, Default)]
pub struct Names {
    /// What the database was when last read.
    seen: Option<Seen>,
    /// Every indexed file, sorted by path.
    files: Vec<FileNames>,
}

/// The marks of the database's state a [`Names`] was read at.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Seen {
    /// The opened index read ([`Index::opening`]).
    opening: u64,
    /// SQLite's `data_version` (another connection's commits).
    data_version: i64,
    /// The rows this connection changed so far (its own commits).
    changes: u64,
    /// The build that wrote the index and when its tables were created
    /// (meta `build` and `created`): an index rebuilt reuses file ids, with
    /// other symbol keys.
    build: (Option<String>, Option<String>),
}

#[derive(Debug)]
struct FileNames {
    id: i64,
    path: String,
    hash: String,
    /// The haystacks of the entries without an [`Original`], each followed
    /// by `\n`.
    lower: String,
    entries: Vec<Entry>,
    /// Whether every entry's haystack is in `lower` (none has an
    /// [`Original`]): a file whose `lower` lacks the substring or glob
    /// literal then holds no match.
    all_lower: bool,
}

#[derive(Debug)]
struct Entry {
    /// Where its haystack is in [`FileNames::lower`], and how long it is
    /// (unused with an [`Original`]).
    at: u32,
    len: u32,
    /// The length of its name, the end of its haystack (unused with an
    /// [`Original`]).
    name_len: u32,
    what: What,
    /// The name and qualified name as stored, for the entries matched by
    /// [`Pattern::matches`] itself: callbacks, and names that are not
    /// ASCII.
    original: Option<Box<Original>>,
}

#[derive(Debug, Clone, Copy)]
enum What {
    /// A definition: its key in `symbols`.
    Symbol(i64),
    /// A callback: its `seq` in its file's `callbacks`.
    Callback(i64),
}

#[derive(Debug)]
struct Original {
    name: String,
    qualname: String,
    block: bool,
}

/// A symbol or callback of one file as read from the tables.
struct Row {
    /// Position in the outline's order: a symbol's `ord`; a callback's
    /// `ord` (it comes before the symbol of that `ord`).
    ord: i64,
    /// Callbacks sort before the symbol of their `ord`, by `seq`.
    callback: bool,
    seq: i64,
    name: String,
    qualname: String,
}

/// Past this many files to read again, the whole tables are read at once
/// (one scan) rather than file by file.
const READ_ALL_FROM: usize = 200;

impl FileNames {
    fn new(id: i64, path: String, hash: String, mut rows: Vec<Row>) -> FileNames {
        rows.sort_by_key(|r| (r.ord, !r.callback, r.seq));
        let mut file = FileNames {
            id,
            path,
            hash,
            lower: String::new(),
            entries: Vec::with_capacity(rows.len()),
            all_lower: true,
        };
        for row in rows {
            let what = if row.callback {
                What::Callback(row.seq)
            } else {
                What::Symbol(row.seq)
            };
            let fast =
                !row.callback && row.qualname.is_ascii() && row.qualname.ends_with(&row.name);
            let at = u32::try_from(file.lower.len());
            let len = u32::try_from(row.qualname.len());
            let name_len = u32::try_from(row.name.len());
            match (fast, at, len, name_len) {
                (true, Ok(at), Ok(len), Ok(name_len)) => {
                    file.lower
                        .push_str(&haystack(&row.name, &row.qualname, false));
                    file.lower.push('\n');
                    file.entries.push(Entry {
                        at,
                        len,
                        name_len,
                        what,
                        original: None,
                    });
                }
                _ => {
                    file.all_lower = false;
                    file.entries.push(Entry {
                        at: 0,
                        len: 0,
                        name_len: 0,
                        what,
                        original: Some(Box::new(Original {
                            name: row.name,
                            qualname: row.qualname,
                            block: row.callback,
                        })),
                    });
                }
            }
        }
        file
    }

    /// The lower-cased qualified name of an entry without an
    /// [`Original`], and its name (its end).
    fn lower_of(&self, entry: &Entry) -> (&str, &str) {
        let start = entry.at as usize;
        let end = start + entry.len as usize;
        let hay = self.lower.get(start..end).unwrap_or_default();
        let name = hay
            .get(hay.len().saturating_sub(entry.name_len as usize)..)
            .unwrap_or_default();
        (hay, name)
    }
}

/// How an entry is matched, prepared once per lookup.
struct Matcher<'p> {
    pattern: &'p Pattern,
    /// The pattern in ASCII lower case (exact names).
    lower_text: String,
    /// The substring's finder, or the glob literal's.
    finder: Option<memchr::memmem::Finder<'p>>,
    substring: bool,
}

impl<'p> Matcher<'p> {
    fn new(pattern: &'p Pattern) -> Matcher<'p> {
        let (finder, substring) = match (pattern.needle(), pattern.glob_literal()) {
            (Some(needle), _) => (Some(memchr::memmem::Finder::new(needle)), true),
            (None, Some(literal)) => (Some(memchr::memmem::Finder::new(literal)), false),
            (None, None) => (None, false),
        };
        Matcher {
            pattern,
            lower_text: pattern.text().to_ascii_lowercase(),
            finder,
            substring,
        }
    }

    /// Whether no entry of `file` can match: its names hold no byte of
    /// the substring or glob literal searched (one search of the file's
    /// buffer instead of one per name).
    fn rules_out(&self, file: &FileNames) -> bool {
        file.all_lower
            && self
                .finder
                .as_ref()
                .is_some_and(|finder| finder.find(file.lower.as_bytes()).is_none())
    }

    /// Whether the entry matches, and whether its name is the pattern.
    fn test(&self, file: &FileNames, entry: &Entry) -> Option<bool> {
        if let Some(original) = &entry.original {
            return self
                .pattern
                .matches(&original.name, &original.qualname, original.block)
                .then(|| self.pattern.is_exact(&original.name));
        }
        let (hay, name) = file.lower_of(entry);
        let found = self
            .finder
            .as_ref()
            .is_none_or(|finder| finder.find(hay.as_bytes()).is_some());
        let matched = if self.substring {
            found
        } else {
            // A glob matches a name in any case as it matches it in lower
            // case (ASCII: each letter is folded to both cases).
            found && (self.pattern.glob_matches(name) || self.pattern.glob_matches(hay))
        };
        matched.then(|| name == self.lower_text)
    }
}

impl Names {
    /// An empty table, filled by the first [`Names::sync`].
    pub fn new() -> Names {
        Names::default()
    }

    /// Brings the table up to the index's state: nothing when the database
    /// has not changed since the last call with the same opened index; else
    /// the file list is read
    /// again (its covering index) and the names of the files added or
    /// whose hash changed; all of them when the index was created again
    /// (by another build, or after it was deleted or damaged).
    ///
    /// # Errors
    /// [`Error::Sqlite`]; the table is then left empty (the next call
    /// reads everything).
    pub fn sync(&mut self, index: &Index) -> Result<(), Error> {
        let conn = index.connection();
        let data_version = index.data_version()?;
        let changes = conn.total_changes();
        let opening = index.opening();
        if self.seen.as_ref().is_some_and(|s| {
            s.opening == opening && s.data_version == data_version && s.changes == changes
        }) {
            return Ok(());
        }
        let previous = self.seen.take();
        let created: Option<String> = conn
            .query_row("SELECT value FROM meta WHERE key = 'created'", [], |row| {
                row.get(0)
            })
            .optional()?;
        let build = (index.build()?, created);
        let mut kept: HashMap<i64, FileNames> = if previous.is_some_and(|p| p.build == build) {
            std::mem::take(&mut self.files)
                .into_iter()
                .map(|f| (f.id, f))
                .collect()
        } else {
            self.files.clear();
            HashMap::new()
        };
        let listed: Vec<(i64, String, String)> = {
            let mut statement =
                conn.prepare_cached("SELECT id, path, hash FROM files ORDER BY path")?;
            let rows =
                statement.query_map([], |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?)))?;
            rows.collect::<Result<_, _>>()?
        };
        let stale: HashSet<i64> = listed
            .iter()
            .filter(|(id, path, hash)| {
                kept.get(id)
                    .is_none_or(|f| f.path != *path || f.hash != *hash)
            })
            .map(|(id, ..)| *id)
            .collect();
        let mut rows = read_rows(conn, &stale)?;
        let mut files = Vec::with_capacity(listed.len());
        for (id, path, hash) in listed {
            match kept.remove(&id) {
                Some(file) if !stale.contains(&id) => files.push(file),
                _ => files.push(FileNames::new(
                    id,
                    path,
                    hash,
                    rows.remove(&id).unwrap_or_default(),
                )),
            }
        }
        self.files = files;
        self.seen = Some(Seen {
            opening,
            data_version,
            changes,
            build,
        });
        Ok(())
    }

    /// How many files and findable names the table holds.
    pub fn counts(&self) -> (usize, usize) {
        (
            self.files.len(),
            self.files.iter().map(|f| f.entries.len()).sum(),
        )
    }

    /// The files of the table at `under` (a display path, `.` for all):
    /// the file of that path, or those under that directory.
    fn scope(&self, under: &str) -> &[FileNames] {
        if under == "." {
            return &self.files;
        }
        let exact = self.files.partition_point(|f| f.path.as_str() < under);
        if self.files.get(exact).is_some_and(|f| f.path == under) {
            return &self.files[exact..=exact];
        }
        let prefix = format!("{under}/");
        let start = self.files.partition_point(|f| f.path < prefix);
        let end = start
            + self.files[start..]
                .iter()
                .take_while(|f| f.path.starts_with(&prefix))
                .count();
        &self.files[start..end]
    }

    /// The symbols matching `pattern` in the files at `under` (a display
    /// path: a file, a directory, or `.` for all), as the walk finds them:
    /// counted, and the lines of those shown read from the index. Call
    /// [`Names::sync`] first.
    ///
    /// # Errors
    /// [`Error::Sqlite`]; [`Error::Target`] when a symbol listed here is
    /// no longer in the tables (the table was not synced).
    pub fn find(
        &self,
        index: &Index,
        pattern: &Pattern,
        under: &str,
    ) -> Result<Found<Shown>, Error> {
        let files = self.scope(under);
        let matcher = Matcher::new(pattern);
        let mut found: Found<(i64, What)> = Found::default();
        found.searched = files.len();
        for file in files {
            if matcher.rules_out(file) {
                continue;
            }
            let before = found.total;
            for entry in &file.entries {
                if let Some(exact) = matcher.test(file, entry) {
                    found.add(exact, || (file.id, entry.what));
                }
            }
            if found.total > before {
                found.files += 1;
            }
        }
        let conn = index.connection();
        found.try_map(|(file_id, what)| line(conn, file_id, what))
    }
}

/// The symbols and callbacks of the files `ids`, by file (unsorted).
fn read_rows(conn: &Connection, ids: &HashSet<i64>) -> Result<HashMap<i64, Vec<Row>>, Error> {
    let mut rows: HashMap<i64, Vec<Row>> = HashMap::new();
    if ids.is_empty() {
        return Ok(rows);
    }
    type Read = fn(&rusqlite::Row<'_>) -> rusqlite::Result<(i64, Row)>;
    let symbol: Read = |row| read_row(row, false);
    let callback: Read = |row| read_row(row, true);
    let symbols = "SELECT file_id, key, ord, name, qualname FROM symbols";
    let callbacks = "SELECT file_id, seq, ord, name, qualname FROM callbacks";
    if ids.len() >= READ_ALL_FROM {
        for (sql, map) in [(symbols, symbol), (callbacks, callback)] {
            let mut statement = conn.prepare(sql)?;
            for read in statement.query_map([], map)? {
                let (file_id, row) = read?;
                if ids.contains(&file_id) {
                    rows.entry(file_id).or_default().push(row);
                }
            }
        }
    } else {
        let mut by_symbols = conn.prepare_cached(&format!("{symbols} WHERE file_id = ?1"))?;
        let mut by_callbacks = conn.prepare_cached(&format!("{callbacks} WHERE file_id = ?1"))?;
        for id in ids {
            for (statement, map) in [(&mut by_symbols, symbol), (&mut by_callbacks, callback)] {
                for read in statement.query_map([id], map)? {
                    let (file_id, row) = read?;
                    rows.entry(file_id).or_default().push(row);
                }
            }
        }
    }
    Ok(rows)
}

/// A row of `symbols` or `callbacks` (`file_id`, key or `seq`, `ord`,
/// `name`, `qualname`) as (file id, [`Row`]).
fn read_row(row: &rusqlite::Row<'_>, callback: bool) -> rusqlite::Result<(i64, Row)> {
    Ok((
        row.get(0)?,
        Row {
            seq: row.get(1)?,
            ord: row.get(2)?,
            name: row.get(3)?,
            qualname: row.get(4)?,
            callback,
        },
    ))
}

/// A match an answer shows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Shown {
    /// The display path of its file.
    pub path: String,
    /// Its line ([`answer_line`]).
    pub line: String,
}

/// The answer line of a symbol or callback of the file `file_id`.
fn line(conn: &Connection, file_id: i64, what: What) -> Result<Shown, Error> {
    let (sql, keys): (&str, Vec<i64>) = match what {
        What::Symbol(key) => (
            "SELECT f.path, s.start_line, s.qualname, s.end_line, s.detail \
             FROM symbols s JOIN files f ON f.id = s.file_id WHERE s.key = ?1",
            vec![key],
        ),
        What::Callback(seq) => (
            "SELECT f.path, c.start_line, c.qualname, c.end_line, c.detail \
             FROM callbacks c JOIN files f ON f.id = c.file_id \
             WHERE c.file_id = ?1 AND c.seq = ?2",
            vec![file_id, seq],
        ),
    };
    conn.prepare_cached(sql)?
        .query_row(rusqlite::params_from_iter(keys), |row| {
            let path: String = row.get(0)?;
            let start: u32 = row.get(1)?;
            let qualname: String = row.get(2)?;
            let end: u32 = row.get(3)?;
            let detail: String = row.get(4)?;
            let line = answer_line(
                &outline_core::symbol_id(&path, start, &qualname),
                start,
                end,
                &detail,
            );
            Ok(Shown { path, line })
        })
        .optional()?
        .ok_or_else(|| Error::Target("the index changed during the lookup".to_owned()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(ord: i64, callback: bool, seq: i64, name: &str, qualname: &str) -> Row {
        Row {
            ord,
            callback,
            seq,
            name: name.to_owned(),
            qualname: qualname.to_owned(),
        }
    }

    /// Callbacks go before the symbol of their `ord`, in `seq` order:
    /// the outline's order again.
    #[test]
    fn rows_are_put_back_in_outline_order() {
        let file = FileNames::new(
            1,
            "a.ts".to_owned(),
            "0".to_owned(),
            vec![
                row(1, false, 11, "b", "b"),
                row(2, true, 1, "it('y')", ""),
                row(0, false, 10, "a", "a"),
                row(1, true, 0, "describe('x')", ""),
                row(3, true, 2, "it('z')", ""),
            ],
        );
        let order: Vec<String> = file
            .entries
            .iter()
            .map(|e| match e.what {
                What::Symbol(key) => format!("s{key}"),
                What::Callback(seq) => format!("c{seq}"),
            })
            .collect();
        assert_eq!(order, ["s10", "c0", "s11", "c1", "c2"]);
    }

    /// A file whose buffer lacks the substring or glob literal is ruled
    /// out at once; one with names kept whole never is.
    #[test]
    fn files_without_the_searched_bytes_are_ruled_out() {
        let ascii = FileNames::new(
            1,
            "a.py".to_owned(),
            "0".to_owned(),
            vec![row(0, false, 1, "total", "Cart.total")],
        );
        let whole = FileNames::new(
            2,
            "b.py".to_owned(),
            "0".to_owned(),
            vec![row(0, false, 1, "größe", "größe")],
        );
        let rules_out = |text: &str, file: &FileNames| {
            let pattern = Pattern::new(text).expect("pattern");
            Matcher::new(&pattern).rules_out(file)
        };
        assert!(ascii.all_lower && !whole.all_lower);
        assert!(rules_out("zzz", &ascii));
        assert!(rules_out("zz*", &ascii));
        assert!(!rules_out("TOTAL", &ascii));
        assert!(!rules_out("cart.*", &ascii));
        // No literal: every name is tried.
        assert!(!rules_out("*", &ascii));
        assert!(!rules_out("zzz", &whole));
    }

    #[test]
    fn non_ascii_names_and_callbacks_are_matched_whole() {
        let file = FileNames::new(
            1,
            "a.py".to_owned(),
            "0".to_owned(),
            vec![
                row(0, false, 1, "Straße", "Straße"),
                row(1, false, 2, "total", "Cart.total"),
                row(2, true, 0, "it('adds')", "Cart"),
            ],
        );
        assert!(file.entries[0].original.is_some());
        assert!(file.entries[1].original.is_none());
        assert!(file.entries[2].original.is_some());
        assert_eq!(file.lower_of(&file.entries[1]), ("cart.total", "total"));
        let test = |text: &str| -> Vec<Option<bool>> {
            let pattern = Pattern::new(text).expect("pattern");
            let matcher = Matcher::new(&pattern);
            file.entries
                .iter()
                .map(|e| matcher.test(&file, e))
                .collect()
        };
        assert_eq!(test("STRASSE"), [None, None, None]);
        assert_eq!(test("straße"), [Some(true), None, None]);
        assert_eq!(test("TOTAL"), [None, Some(true), None]);
        assert_eq!(test("cart"), [None, Some(false), None]);
        assert_eq!(test("adds"), [None, None, Some(false)]);
        assert_eq!(test("Cart*"), [None, Some(false), Some(false)]);
        assert_eq!(test("*.TOTAL"), [None, Some(false), None]);
        assert_eq!(test("str*"), [Some(false), None, None]);
    }
}
