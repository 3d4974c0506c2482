//! Opening the index of a project root for a refresh or a query: where the
//! database is (`ROOT/.ast-outline/index.sqlite`, or `--db`), finding the root
//! from the working directory as git finds its repository ([`discover`]),
//! the lock policy (another process's refresh waited for, or answered around
//! from its last completed refresh), a damaged index at the default place
//! rebuilt, and the files of a refresh: the library's gitignore-aware walk
//! ([`entries`]) and its adapters ([`parse`]). The CLI, the MCP server and
//! the LSP server all open an index through here, so each asks once
//! ([`Query::open`]).
//!
//! Notes for the user (a rebuild, a busy lock, files not indexed) go to the
//! caller's [`Notes`] as they happen, so a long first build is announced
//! before it starts.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

use ast_outline_settings::{Reloader, Settings};

use ast_outline::walk::{WalkOptions, collect_files};
use ast_outline::{DEFAULT_MAX_FILE_SIZE, SourceText, outline_source_with_facts};
use outline_core::{Language, OutlineOptions};

use crate::query::{self, SymbolRow};
use crate::{Index, RefreshStats, SourceEntry};

/// Where notes for the user go: each is one line without the tool's name
/// (`note: …`); the CLI prints `ast-outline: ` before it on standard error.
pub type Notes<'a> = &'a dyn Fn(String);

/// Prints a note on standard error as the command line does
/// (`ast-outline: note: …`).
pub fn print_note(note: String) {
    eprintln!("ast-outline: {note}");
}

/// Where an index is and how a query uses it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Location {
    /// The project root: files are walked from here (honouring .gitignore,
    /// skipping hidden files and `.ast-outline/`), and paths in targets and
    /// output are relative to it. `.` lets [`discover`] look for it.
    pub root: PathBuf,
    /// The database (default `ROOT/.ast-outline/index.sqlite`). An index
    /// refreshed from another root is refused, not refreshed from this one.
    pub db: Option<PathBuf>,
    /// Query the index as it is, without refreshing it first.
    pub no_refresh: bool,
}

/// An index opened for a query ([`Query::open`]): the index, the root it
/// answers for (found by [`discover`]) and the target made relative to it.
pub struct Query {
    /// The index, refreshed unless [`Location::no_refresh`].
    pub index: Index,
    /// The project root the index answers for.
    pub root: PathBuf,
    /// The target as the index names it (relative to [`Query::root`], `.`
    /// and `dir/..` steps removed); `None` when none was given.
    pub target: Option<String>,
}

impl Query {
    /// Finds the root of `location` and the index there ([`discover`]),
    /// opens it for a query ([`open_for_query`]) and makes `target` (a path
    /// written relative to the working directory, then `:` and a selector)
    /// relative to the root ([`within_root`]).
    ///
    /// # Errors
    /// The message of [`open_for_query`].
    pub fn open(
        location: &Location,
        target: Option<&str>,
        notes: Notes<'_>,
    ) -> Result<Query, String> {
        let (location, target) = discover(location, target);
        let index = open_for_query(&location, notes)?;
        let target = target.map(|t| within_root(&location.root, &t));
        Ok(Query {
            index,
            root: location.root,
            target,
        })
    }

    /// The definition [`Query::target`] names ([`query::find_target`]); a
    /// note when it is an id found again by qualname ([`crate::answers::moved_note`]).
    ///
    /// # Errors
    /// [`crate::Error::Target`] when there is no target or it names no
    /// definition (with suggestions) or several; SQLite's error.
    pub fn symbol(&self, notes: Notes<'_>) -> Result<SymbolRow, crate::Error> {
        let target = self
            .target
            .as_deref()
            .ok_or_else(|| crate::Error::Target("no target".into()))?;
        let symbol = query::find_target(self.index.connection(), target)?;
        if let Some(note) = crate::answers::moved_note(&self.index, target, &symbol) {
            notes(note);
        }
        Ok(symbol)
    }
}

/// The supported files under `root`, with paths relative to it (the
/// library's walk: gitignore rules, hidden files skipped), and the walk's
/// problems and notes.
pub fn entries(root: &Path) -> (Vec<SourceEntry>, Vec<String>) {
    let walked = collect_files(&[root.to_owned()], WalkOptions::default());
    let mut notes = walked.problems;
    notes.extend(walked.notes);
    // The project settings choose among the walked files (`files.include`,
    // `files.exclude`, `tests.index`).
    let (settings, note) = settings(root);
    notes.extend(note);
    let entries = walked
        .files
        .into_iter()
        .filter_map(|file| {
            let language = file.language?;
            let relative = file.path.strip_prefix(root).unwrap_or(&file.path);
            let display = relative
                .components()
                .map(|c| c.as_os_str().to_string_lossy())
                .collect::<Vec<_>>()
                .join("/");
            if !settings.is_walked(&display) {
                return None;
            }
            Some(SourceEntry {
                path: file.path,
                display,
                language,
                text: None,
            })
        })
        .collect();
    (entries, notes)
}

/// The project settings of `root` as walks and answers use them
/// ([`ast_outline_settings::Reloader`], one per root for the process): read
/// again when the settings file changed; when it has an error, the last
/// good settings of the root (the defaults at first) and a note saying so.
/// Commands that stop on a bad settings file check it first
/// ([`check_settings`]).
pub fn settings(root: &Path) -> (Arc<Settings>, Option<String>) {
    let root = &settings_dir(root);
    type Loaded = HashMap<PathBuf, (Reloader, Arc<Settings>)>;
    static LOADED: OnceLock<Mutex<Loaded>> = OnceLock::new();
    let mut loaded = LOADED
        .get_or_init(Mutex::default)
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let mut first = None;
    let (reloader, shared) = loaded.entry(root.to_owned()).or_insert_with(|| {
        let (reloader, error) = Reloader::new(root);
        first = error
            .map(|error| format!("error: {error}; using the default settings until it is fixed"));
        let shared = Arc::new(reloader.settings().clone());
        (reloader, shared)
    });
    let (current, note) = reloader.current();
    if note.is_some() {
        *shared = Arc::new(current.clone());
    }
    (Arc::clone(shared), first.or(note))
}

/// The directory whose settings apply to `path` (a file or a directory;
/// made absolute): the nearest one from it up holding `.ast-outline.toml`
/// or a `pyproject.toml` that names ast-outline (ruff's rule: the closest
/// configuration file wins), looking no higher than the project root
/// ([`ast_outline::disk_cache::tree_root`]: the nearest directory holding
/// `.ast-outline/` or `.git`), which is the answer when no directory below
/// it holds one. Symbolic links and `..` are resolved first. `None` outside any project with no settings file above.
/// A `pyproject.toml` that cannot be read or parsed counts as holding
/// settings, so its error is seen.
pub fn settings_root(path: &Path) -> Option<PathBuf> {
    let absolute = std::fs::canonicalize(path)
        .or_else(|_| std::path::absolute(path))
        .unwrap_or_else(|_| path.to_owned());
    let start = if absolute.is_dir() {
        absolute.as_path()
    } else {
        absolute.parent()?
    };
    let project = ast_outline::disk_cache::tree_root(start);
    for dir in start.ancestors() {
        if std::fs::symlink_metadata(dir.join(ast_outline_settings::FILE_NAME)).is_ok() {
            return Some(dir.to_owned());
        }
        if std::fs::symlink_metadata(dir.join(ast_outline_settings::PYPROJECT)).is_ok()
            && Settings::load(dir).map_or(true, |settings| settings.file.is_some())
        {
            return Some(dir.to_owned());
        }
        if project.as_deref() == Some(dir) {
            return project;
        }
    }
    None
}

/// The settings that apply to `path` ([`settings_root`]; the defaults
/// outside any project), or the settings file's error as a message.
///
/// # Errors
/// The message of [`ast_outline_settings::SettingsError`].
pub fn settings_for(path: &Path) -> Result<(Option<PathBuf>, Settings), String> {
    match settings_root(path) {
        Some(root) => check_settings(&root).map(|settings| (Some(root), settings)),
        None => Ok((None, Settings::defaults())),
    }
}

/// The settings of `root`, or the settings file's error as a message (the
/// file, line and key) for a command to stop on.
///
/// # Errors
/// The message of [`ast_outline_settings::SettingsError`].
pub fn check_settings(root: &Path) -> Result<Settings, String> {
    Settings::load(&settings_dir(root)).map_err(|error| format!("error: {error}"))
}

/// `root` made absolute (so that messages name the settings file whole).
fn settings_dir(root: &Path) -> PathBuf {
    std::path::absolute(root).unwrap_or_else(|_| root.to_owned())
}

/// Decodes and parses one file for the index (the library's adapters, the
/// default options): its outline and facts, or why it is not indexed (too
/// large, binary). A [`crate::Parser`].
///
/// # Errors
/// The reason, when the file is larger than
/// [`ast_outline::DEFAULT_MAX_FILE_SIZE`], holds NUL bytes, or its parse
/// worker failed ([`ast_outline::supervise`]).
pub fn parse(
    path: &str,
    language: Language,
    bytes: Vec<u8>,
) -> Result<(outline_core::FileOutline, outline_core::xref::Facts), String> {
    if u64::try_from(bytes.len()).unwrap_or(u64::MAX) > DEFAULT_MAX_FILE_SIZE {
        return Err(format!(
            "larger than {DEFAULT_MAX_FILE_SIZE} bytes, not indexed"
        ));
    }
    if bytes.contains(&0) {
        return Err("binary (holds NUL bytes), not indexed".to_owned());
    }
    let text = SourceText::from_bytes(bytes, Some(language));
    let (outline, facts) =
        outline_source_with_facts(path, language, &text.text, &OutlineOptions::default());
    // A file whose parse worker crashed, or passed its time or memory
    // limit, is left out like an unreadable one, with the reason.
    if let Some(failure) = ast_outline::supervise::failure(&outline) {
        return Err(failure.message.clone());
    }
    Ok((outline, facts))
}

fn db_path(root: &Path, db: Option<&PathBuf>) -> PathBuf {
    db.cloned().unwrap_or_else(|| root.join(crate::DEFAULT_DB))
}

/// Opens the index of `root` (at `db`, default `ROOT/.ast-outline/index.sqlite`)
/// and refreshes it. A damaged database at the default place is a cache:
/// it is deleted and built again (the notes say so).
///
/// # Errors
/// A message when `root` is not a directory, the default directory is a link
/// or cannot be made, the database cannot be opened or written, or another
/// process holds its lock (check with [`crate::Error::is_busy`] through
/// [`Refused::busy`]).
pub fn open_and_refresh(
    root: &Path,
    db: Option<&PathBuf>,
    notes: Notes<'_>,
) -> Result<(Index, RefreshStats, Vec<String>), Refused> {
    open_and_refresh_waiting(root, db, None, &[], notes)
}

/// [`open_and_refresh`], waiting at most `wait` (default 10 s) for another
/// process's lock; with `changed` paths, a refresh of those files only when
/// [`named_files`] allows it.
pub fn open_and_refresh_waiting(
    root: &Path,
    db: Option<&PathBuf>,
    wait: Option<std::time::Duration>,
    changed: &[PathBuf],
    notes: Notes<'_>,
) -> Result<(Index, RefreshStats, Vec<String>), Refused> {
    if !root.is_dir() {
        return Err(Refused::from(format!(
            "{}: {}",
            root.display(),
            if root.exists() {
                "not a directory (the root of the tree to index; to refresh one file of \
                 an index, `ast-outline index --changed FILE`)"
            } else {
                "no such directory"
            }
        )));
    }
    refuse_directory_db(db)?;
    if db.is_none() {
        // The default place, `ROOT/.ast-outline/`: never through a link (it
        // could point anywhere), and kept out of git and backups.
        let dir = root.join(ast_outline::disk_cache::DIR_NAME);
        ast_outline::disk_cache::refuse_link(&dir)
            .and_then(|()| ast_outline::disk_cache::prepare_dir(&dir))
            .map_err(|e| Refused::from(format!("{}: {e} (use --db FILE)", dir.display())))?;
    }
    let path = db_path(root, db);
    if db.is_none() && path.is_dir() {
        return Err(Refused::from(format!(
            "{}: a directory where the index's file goes; remove it, or use --db FILE",
            path.display()
        )));
    }
    // A database named with --db may be another tree's index: refreshed
    // from this root, it would lose every file of the other (found when a
    // query with `--db` ran from another directory). Checked before the
    // open, which rebuilds an index of another version.
    let canonical = root.canonicalize().unwrap_or_else(|_| root.to_owned());
    let canonical = canonical.to_string_lossy().into_owned();
    if db.is_some()
        && let Some(stored) = crate::stored_root(&path)
        && stored != canonical
    {
        let gone = if Path::new(&stored).is_dir() {
            ""
        } else {
            " (no longer there)"
        };
        return Err(Refused::from(format!(
            "{}: the index of {stored}{gone}, not of {canonical}. Use it with its root \
             (`--root {stored}` on a query, `ast-outline index {stored} --db {}`), or \
             query it as it is with --no-refresh; to index {canonical}, delete it or \
             choose another --db",
            path.display(),
            path.display()
        )));
    }
    let open = |path: &Path| -> Result<Index, Refused> {
        let index = open_index(path, db.is_none(), notes)?;
        if let Some(wait) = wait {
            index
                .set_busy_timeout(wait)
                .map_err(|e| Refused::new(path, &e))?;
        }
        Ok(index)
    };
    let existed = path.is_file();
    let mut index = open(&path)?;
    if wait.is_some() && index.created {
        notes(if existed {
            format!(
                "note: the index of {} was built by another build of ast-outline (or \
                 another schema): building it again (later queries only refresh it)",
                root.display()
            )
        } else {
            format!(
                "note: no index of {} yet: building it (later queries only refresh it)",
                root.display()
            )
        });
    }
    let refreshed = refresh_named_or_all(&mut index, root, changed, notes)
        .and_then(|done| index.set_root(&canonical).map(|()| done));
    match refreshed {
        Ok((stats, notes)) => Ok((index, stats, notes)),
        // Damage found only now (pages the open did not read): at the
        // default place the index is a cache, built again.
        Err(error) if error.is_damaged() && db.is_none() => {
            drop(index);
            remove_database(&path);
            notes(format!(
                "note: {}: the index was damaged ({error}); building it again",
                path.display()
            ));
            let mut index = open(&path)?;
            let (stats, notes) = refresh(&mut index, root)?;
            index
                .set_root(&canonical)
                .map_err(|e| Refused::new(&path, &e))?;
            Ok((index, stats, notes))
        }
        Err(error) => Err(Refused::new(&path, &error)),
    }
}

/// The build id an index records: the outline's ([`ast_outline::BUILD_ID`])
/// and a hash of the resolver's and the index's sources. An index of another
/// build is rebuilt.
pub fn build_id() -> String {
    format!(
        "{}-{}",
        ast_outline::BUILD_ID,
        env!("AST_OUTLINE_INDEX_SOURCES_ID")
    )
}

/// Whether `root` has an index at the default place
/// (`ROOT/.ast-outline/index.sqlite`) that this build answers from as it
/// is, without building it again: of this schema, facts version and build,
/// and completed. A lookup that can walk instead ([`crate::names`]) uses
/// the index only then; nothing is created or changed.
pub fn has_index(root: &Path) -> bool {
    let db = root.join(crate::DEFAULT_DB);
    if !db.is_file() {
        return false;
    }
    Index::open_existing(&db, "ast-outline index")
        .and_then(|index| index.build())
        .is_ok_and(|build| build.as_deref() == Some(build_id().as_str()))
}

/// Opens the database at `path` for a refresh; when it is damaged and at
/// the default place (`cache`), deletes it and opens a new one, with a note.
fn open_index(path: &Path, cache: bool, notes: Notes<'_>) -> Result<Index, Refused> {
    match Index::open_for_build(path, &build_id()) {
        Err(error) if error.is_damaged() && cache => {
            remove_database(path);
            notes(format!(
                "note: {}: the index was damaged ({error}); building it again",
                path.display()
            ));
            Index::open_for_build(path, &build_id()).map_err(|e| Refused::new(path, &e))
        }
        Err(error @ crate::Error::Foreign(_)) => {
            Err(Refused::from(format!("{error}: choose another --db")))
        }
        Err(error) if error.is_damaged() => Err(Refused::from(format!(
            "{}: not an ast-outline index, or damaged ({error}); delete it or choose \
             another --db",
            path.display()
        ))),
        opened => opened.map_err(|e| Refused::new(path, &e)),
    }
}

/// Deletes the database at `path` and its WAL files (errors ignored: what
/// cannot be deleted makes the next open fail with its own message).
fn remove_database(path: &Path) {
    for suffix in ["", "-wal", "-shm"] {
        let mut file = path.to_owned().into_os_string();
        file.push(suffix);
        let _ = std::fs::remove_file(file);
    }
}

/// Refreshes `index` from the files named by `changed` when [`named_files`]
/// allows it, else from every file under `root`: the statistics and the
/// walk's notes.
fn refresh_named_or_all(
    index: &mut Index,
    root: &Path,
    changed: &[PathBuf],
    notes: Notes<'_>,
) -> Result<(RefreshStats, Vec<String>), crate::Error> {
    if !changed.is_empty() {
        match named_files(root, changed, index, notes)? {
            Ok((files, gone)) => {
                if let Some(stats) = index.refresh_files(&files, &gone, &parse)? {
                    return Ok((stats, Vec::new()));
                }
            }
            Err(why) => notes(format!("note: {why}: every file is looked at")),
        }
    }
    walk_and_refresh(index, root)
}

/// Refreshes `index` to every file under `root`, walked while the index
/// reads its stored rows: the statistics and the walk's notes.
fn walk_and_refresh(
    index: &mut Index,
    root: &Path,
) -> Result<(RefreshStats, Vec<String>), crate::Error> {
    let notes = std::sync::Mutex::new(Vec::new());
    let walk = || {
        let (found, walk_notes) = entries(root);
        *notes
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = walk_notes;
        found
    };
    let stats = index.refresh_walking(&walk, &parse)?;
    let notes = notes
        .into_inner()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    index.set_walk_notes(&notes)?;
    Ok((stats, notes))
}

/// The files to read again and the display paths of files gone.
type NamedFiles = (Vec<SourceEntry>, Vec<String>);

/// The paths `changed` as a refresh of named files takes them: the indexed
/// files to read again and the display paths of indexed files that are
/// gone. Paths are as given (relative to the working directory); their
/// directory must exist. `Ok(Err(why))` when one of them needs every file
/// looked at: a source file the index does not hold (the walk decides
/// whether it is left out), a directory, a settings file (`*.json`,
/// `*.toml`, a dotfile such as `.gitignore`), a path outside `root`, or
/// one that cannot be read. Other files (`README.md`) are skipped.
///
/// # Errors
/// The database fails.
fn named_files(
    root: &Path,
    changed: &[PathBuf],
    index: &Index,
    notes: Notes<'_>,
) -> Result<Result<NamedFiles, String>, crate::Error> {
    let Ok(root) = root.canonicalize() else {
        return Ok(Err(format!("{}: cannot be read", root.display())));
    };
    let mut files = Vec::new();
    let mut gone = Vec::new();
    for path in changed {
        let parent = match path.parent() {
            Some(parent) if !parent.as_os_str().is_empty() => parent,
            _ => Path::new("."),
        };
        let relative = parent
            .canonicalize()
            .ok()
            .and_then(|dir| Some(dir.strip_prefix(&root).ok()?.join(path.file_name()?)));
        let Some(relative) = relative else {
            return Ok(Err(format!(
                "{}: not a file in a directory of {}",
                path.display(),
                root.display()
            )));
        };
        let display = relative
            .components()
            .map(|c| c.as_os_str().to_string_lossy())
            .collect::<Vec<_>>()
            .join("/");
        let name = path.file_name().map(|n| n.to_string_lossy());
        let settings = name
            .as_deref()
            .is_some_and(|n| n.starts_with('.') || n.ends_with(".json") || n.ends_with(".toml"));
        let language = Language::from_path(&display);
        match std::fs::metadata(path) {
            Ok(meta) if meta.is_file() => {
                if let Some(language) = language
                    && index.holds_file(&display)?
                {
                    files.push(SourceEntry {
                        path: root.join(&relative),
                        display,
                        language,
                        text: None,
                    });
                    continue;
                }
                if settings {
                    return Ok(Err(format!("{}: a settings file", path.display())));
                }
                if language.is_some() {
                    let why = if index.created {
                        "a new index"
                    } else {
                        "not indexed yet"
                    };
                    return Ok(Err(format!("{}: {why}", path.display())));
                }
            }
            Ok(meta) if meta.is_dir() => {
                return Ok(Err(format!("{}: a directory", path.display())));
            }
            Ok(_) => return Ok(Err(format!("{}: not a regular file", path.display()))),
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
                if index.holds_file(&display)? {
                    gone.push(display);
                } else if language.is_some() {
                    notes(format!(
                        "note: {}: no such file, and not in the index: skipped",
                        path.display()
                    ));
                } else {
                    return Ok(Err(format!(
                        "{}: gone, and not an indexed file",
                        path.display()
                    )));
                }
            }
            Err(error) => return Ok(Err(format!("{}: {error}", path.display()))),
        }
    }
    Ok(Ok((files, gone)))
}

/// Why an index could not be opened or refreshed.
#[derive(Debug)]
pub struct Refused {
    /// What to tell the user.
    pub message: String,
    /// Whether another process holds the database's lock.
    pub busy: bool,
    /// Whether SQLite could not write where the database is.
    pub read_only: bool,
}

impl Refused {
    fn new(path: &Path, error: &crate::Error) -> Refused {
        if error.is_busy() {
            return Refused {
                message: format!(
                    "{}: another ast-outline is refreshing this index (its lock is held); \
                     try again when it finishes",
                    path.display()
                ),
                busy: true,
                read_only: false,
            };
        }
        let read_only = error.is_read_only();
        let mut message = format!("{}: {error}", path.display());
        if read_only {
            message.push_str(
                " (SQLite cannot write where the index is: queries answer from it as it is, \
                 without refreshing it)",
            );
        }
        Refused {
            message,
            busy: false,
            read_only,
        }
    }
}

/// Refuses a `--db` that names a directory (SQLite said only "unable to
/// open database file") or something else than a regular file, such as
/// `/dev/null` ("disk I/O error").
fn refuse_directory_db(db: Option<&PathBuf>) -> Result<(), Refused> {
    let Some(db) = db else {
        return Ok(());
    };
    match std::fs::metadata(db) {
        Ok(meta) if meta.is_dir() => Err(Refused::from(format!(
            "{}: a directory; --db names the index's file (such as {})",
            db.display(),
            db.join("index.sqlite").display()
        ))),
        Ok(meta) if !meta.is_file() => Err(Refused::from(format!(
            "{}: not a regular file (a device, FIFO or socket); --db names the index's file",
            db.display()
        ))),
        _ => Ok(()),
    }
}

impl From<String> for Refused {
    fn from(message: String) -> Refused {
        Refused {
            message,
            busy: false,
            read_only: false,
        }
    }
}

impl From<Refused> for String {
    fn from(refused: Refused) -> String {
        refused.message
    }
}

/// Brings the open `index` of `root` up to date with the files under it:
/// the refresh's statistics and the walk's notes (unreadable directories…).
///
/// # Errors
/// A message naming the database when the refresh fails (the index is left
/// as it was: a refresh is one transaction).
pub fn refresh(index: &mut Index, root: &Path) -> Result<(RefreshStats, Vec<String>), Refused> {
    walk_and_refresh(index, root).map_err(|e| Refused::new(index.path(), &e))
}

/// How long [`retry_while_busy`] tries again.
const BUSY_RETRY: std::time::Duration = std::time::Duration::from_secs(10);

/// `attempt` until it is not refused because another process holds the
/// lock, or [`BUSY_RETRY`] has passed. SQLite's own wait does not cover
/// every case: during another process's first build (which writes without
/// WAL) a connection that read first is refused at once rather than made
/// to wait (SQLite's deadlock rule).
pub fn retry_while_busy<T>(mut attempt: impl FnMut() -> Result<T, Refused>) -> Result<T, Refused> {
    let started = std::time::Instant::now();
    loop {
        match attempt() {
            Err(refused) if refused.busy && started.elapsed() < BUSY_RETRY => {
                std::thread::sleep(std::time::Duration::from_millis(50));
            }
            done => return done,
        }
    }
}

/// Opens the index for a query, refreshed first unless `--no-refresh`.
/// While another process holds the lock (a refresh is running), the query
/// is answered from the last completed refresh, with a note saying so.
/// Files that could not be indexed are summed up in one note.
pub fn open_for_query(location: &Location, notes: Notes<'_>) -> Result<Index, String> {
    refuse_directory_db(location.db.as_ref()).map_err(String::from)?;
    check_settings(&location.root)?;
    let db = db_path(&location.root, location.db.as_ref());
    if location.no_refresh {
        return open_as_is(&db, location);
    }
    // A refresh running elsewhere is waited for a moment, then the last
    // completed one answers.
    let wait = Some(std::time::Duration::from_secs(2));
    match open_and_refresh_waiting(&location.root, location.db.as_ref(), wait, &[], notes) {
        Ok((index, stats, _)) => {
            if !stats.problems.is_empty() {
                notes(format!(
                    "note: {} not indexed (`ast-outline index` lists why)",
                    crate::answers::plural(stats.problems.len(), "file")
                ));
            }
            Ok(index)
        }
        // A directory SQLite cannot write to: the index as it is.
        Err(refused) if refused.read_only && db.is_file() => {
            let index = open_as_is(&db, location)?;
            notes(format!(
                "note: {}: not refreshed (SQLite cannot write there); answering from the \
                 index as it is",
                db.display()
            ));
            Ok(index)
        }
        Err(refused) if refused.busy => match open_as_is(&db, location) {
            Ok(index) => {
                notes(format!(
                    "note: another ast-outline is refreshing {}; answering from its last \
                     completed refresh",
                    db.display()
                ));
                Ok(index)
            }
            // No completed refresh to answer from (a first build is
            // running): wait for it.
            Err(_) => retry_while_busy(|| {
                open_and_refresh_waiting(&location.root, location.db.as_ref(), wait, &[], notes)
            })
            .map(|(index, ..)| index)
            .map_err(|refused| refused.message),
        },
        Err(refused) => Err(refused.message),
    }
}

/// The index at `db` as it is ([`Index::open_existing`]), or the message
/// saying why not (naming the file).
fn open_as_is(db: &Path, location: &Location) -> Result<Index, String> {
    Index::open_existing(db, &build_command(location)).map_err(|e| match e {
        // Those name the file already.
        crate::Error::Target(message) => message,
        other => format!("{}: {other}", db.display()),
    })
}

/// The command that builds or refreshes the index of `location`, for
/// messages: `ast-outline index`, with the root unless it is `.` and with
/// `--db FILE` when one is named (each quoted for a POSIX shell when
/// needed).
fn build_command(location: &Location) -> String {
    let mut command = "ast-outline index".to_owned();
    if location.root != Path::new(".") {
        command.push(' ');
        command.push_str(&shell_word(&location.root.to_string_lossy()));
    }
    if let Some(db) = &location.db {
        command.push_str(" --db ");
        command.push_str(&shell_word(&db.to_string_lossy()));
    }
    command
}

/// `word` as one word for a POSIX shell: as it is when it holds only
/// characters no shell treats specially, else in single quotes.
fn shell_word(word: &str) -> String {
    let plain = |c: char| c.is_ascii_alphanumeric() || "/._-+,:@%=".contains(c);
    if !word.is_empty() && word.chars().all(plain) {
        word.to_owned()
    } else {
        format!("'{}'", word.replace('\'', "'\\''"))
    }
}

/// The index location and target a query uses. With the default root
/// (`.`): with `--db`, the root the index records (where it was last
/// refreshed from) when that directory exists; without, and with no index
/// in the current directory, the nearest directory above holding
/// `.ast-outline/index.sqlite` (as git finds its repository). A target's
/// path, written relative to the current directory, is made relative to
/// that root when the current directory is inside it.
pub fn discover(location: &Location, target: Option<&str>) -> (Location, Option<String>) {
    let same = || {
        (
            Location {
                root: location.root.clone(),
                db: location.db.clone(),
                no_refresh: location.no_refresh,
            },
            target.map(str::to_owned),
        )
    };
    if location.root != Path::new(".") {
        return same();
    }
    let Ok(here) = std::env::current_dir() else {
        return same();
    };
    // With --db: the root the index records (a query run from anywhere
    // answers for that tree and reads its files there).
    let recorded = location
        .db
        .as_deref()
        .and_then(crate::stored_root)
        .map(PathBuf::from)
        .filter(|root| root.is_dir());
    let root = match (&location.db, recorded) {
        (Some(_), Some(recorded)) => recorded,
        (Some(_), None) => return same(),
        (None, _) if Path::new(crate::DEFAULT_DB).is_file() => return same(),
        (None, _) => match here
            .ancestors()
            .skip(1)
            .find(|dir| dir.join(crate::DEFAULT_DB).is_file())
        {
            Some(root) => root.to_owned(),
            None => return same(),
        },
    };
    let root = root.as_path();
    let prefix: Vec<String> = here
        .strip_prefix(root)
        .map(|p| {
            p.components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    let target = target.map(|t| {
        if t.starts_with('/') || prefix.is_empty() {
            t.to_owned()
        } else {
            format!("{}/{t}", prefix.join("/"))
        }
    });
    let mut found = same();
    found.0.root = root.to_owned();
    found.1 = target;
    found
}

/// `target` with its `.` and `dir/..` steps removed ([`without_dot_steps`])
/// and an absolute path inside `root` made relative to it (paths in the
/// index are relative to the root).
pub fn within_root(root: &Path, target: &str) -> String {
    let target = without_dot_steps(target);
    if !target.starts_with('/') {
        return target;
    }
    let Ok(root) = std::fs::canonicalize(root) else {
        return target.to_owned();
    };
    let root = format!("{}/", root.display());
    target
        .strip_prefix(&root)
        .map_or_else(|| target.clone(), str::to_owned)
}

/// `target` with the `.` steps and the `dir/..` pairs of its path (the part
/// before the first `:`) removed, by the text alone (as `cd -L` does: a
/// `..` after a symbolic link goes back to the link's directory).
fn without_dot_steps(target: &str) -> String {
    let (path, rest) = target.split_at(target.find(':').unwrap_or(target.len()));
    if !path.split('/').any(|step| step == "." || step == "..") {
        return target.to_owned();
    }
    let absolute = path.starts_with('/');
    let mut steps: Vec<&str> = Vec::new();
    for step in path.split('/') {
        match step {
            "" | "." => {}
            ".." if steps.last().is_some_and(|last| *last != "..") => {
                steps.pop();
            }
            // Above `/` is `/`; above a relative start stays written.
            ".." if absolute => {}
            other => steps.push(other),
        }
    }
    let lead = if absolute { "/" } else { "" };
    format!("{lead}{}{rest}", steps.join("/"))
}

#[cfg(test)]
mod tests {
    use super::shell_word;

    #[test]
    fn dot_steps_are_removed_from_the_path_only() {
        use super::without_dot_steps as clean;
        assert_eq!(clean("a/../b/./c.py:X.y"), "b/c.py:X.y");
        assert_eq!(clean("../a.py:f"), "../a.py:f");
        assert_eq!(clean("a/../../b.py:3:4"), "../b.py:3:4");
        assert_eq!(clean("/r/a/../b.py:f"), "/r/b.py:f");
        assert_eq!(clean("/../b.py:f"), "/b.py:f");
        assert_eq!(clean("./a.py:f.x"), "a.py:f.x");
        assert_eq!(clean("a.py:..weird"), "a.py:..weird");
    }

    #[test]
    fn shell_words_are_quoted_only_when_needed() {
        assert_eq!(shell_word("/tmp/a-b/index.sqlite"), "/tmp/a-b/index.sqlite");
        assert_eq!(shell_word("my project"), "'my project'");
        assert_eq!(shell_word("it's"), "'it'\\''s'");
        assert_eq!(shell_word("$HOME"), "'$HOME'");
        assert_eq!(shell_word(""), "''");
    }
}
