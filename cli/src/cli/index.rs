//! `index`, and the queries over it: `refs`, `callers`, `callees`,
//! `hierarchy`, `defs`. Files come from the CLI's walker (relative to the
//! root), parsing from the adapter registry; storage and queries are the
//! `index` crate's.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use index::query::{self, CallerRow, RefRow, SymbolRow};
use index::{Index, RefreshStats, SourceEntry};
use outline_core::{Language, OutlineOptions};
use serde_json::json;

use super::args::{
    CallersArgs, DefsArgs, ExportArgs, ExportFormat, Format, IndexArgs, IndexLocation, QueryArgs,
    RefsArgs,
};
use super::{print_or_exit, report};
use crate::walk::{WalkOptions, collect_files};
use crate::{DEFAULT_MAX_FILE_SIZE, SourceText, outline_source_with_facts};

/// The supported files under `root`, with paths relative to it.
pub(crate) fn entries(root: &Path) -> (Vec<SourceEntry>, Vec<String>) {
    let walked = collect_files(&[root.to_owned()], WalkOptions::default());
    let mut notes = walked.problems;
    notes.extend(walked.notes);
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

/// Decodes and parses one file for the index.
pub(crate) fn parse(
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
    Ok(outline_source_with_facts(
        path,
        language,
        &text.text,
        &OutlineOptions::default(),
    ))
}

fn db_path(root: &Path, db: Option<&PathBuf>) -> PathBuf {
    db.cloned().unwrap_or_else(|| root.join(index::DEFAULT_DB))
}

/// Opens the index of `root` (at `db`, default `ROOT/.ast-outline/index.sqlite`)
/// and refreshes it. A damaged database at the default place is a cache:
/// it is deleted and built again (the notes say so).
///
/// # Errors
/// A message when `root` is not a directory, the default directory is a link
/// or cannot be made, the database cannot be opened or written, or another
/// process holds its lock (check with [`index::Error::is_busy`] through
/// [`Refused::busy`]).
pub(crate) fn open_and_refresh(
    root: &Path,
    db: Option<&PathBuf>,
) -> Result<(Index, RefreshStats, Vec<String>), Refused> {
    open_and_refresh_waiting(root, db, None, &[])
}

/// [`open_and_refresh`], waiting at most `wait` (default 10 s) for another
/// process's lock; with `changed` paths, a refresh of those files only when
/// [`named_files`] allows it.
fn open_and_refresh_waiting(
    root: &Path,
    db: Option<&PathBuf>,
    wait: Option<std::time::Duration>,
    changed: &[PathBuf],
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
        let dir = root.join(crate::disk_cache::DIR_NAME);
        crate::disk_cache::refuse_link(&dir)
            .and_then(|()| crate::disk_cache::prepare_dir(&dir))
            .map_err(|e| Refused::from(format!("{}: {e} (use --db FILE)", dir.display())))?;
    }
    let path = db_path(root, db);
    // A database named with --db may be another tree's index: refreshed
    // from this root, it would lose every file of the other (found when a
    // query with `--db` ran from another directory). Checked before the
    // open, which rebuilds an index of another version.
    let canonical = root.canonicalize().unwrap_or_else(|_| root.to_owned());
    let canonical = canonical.to_string_lossy().into_owned();
    if db.is_some()
        && let Some(stored) = index::stored_root(&path)
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
        let index = open_index(path, db.is_none())?;
        if let Some(wait) = wait {
            index
                .set_busy_timeout(wait)
                .map_err(|e| Refused::new(path, &e))?;
        }
        Ok(index)
    };
    let mut index = open(&path)?;
    if wait.is_some() && index.created {
        report(format!(
            "note: no index of {} yet: building it (later queries only refresh it)",
            root.display()
        ));
    }
    let refreshed = refresh_named_or_all(&mut index, root, changed)
        .and_then(|done| index.set_root(&canonical).map(|()| done));
    match refreshed {
        Ok((stats, notes)) => Ok((index, stats, notes)),
        // Damage found only now (pages the open did not read): at the
        // default place the index is a cache, built again.
        Err(error) if error.is_damaged() && db.is_none() => {
            drop(index);
            remove_database(&path);
            report(format!(
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

/// Opens the database at `path` for a refresh; when it is damaged and at
/// the default place (`cache`), deletes it and opens a new one, with a note.
fn open_index(path: &Path, cache: bool) -> Result<Index, Refused> {
    match Index::open_for_build(path, env!("AST_OUTLINE_INDEX_BUILD_ID")) {
        Err(error) if error.is_damaged() && cache => {
            remove_database(path);
            report(format!(
                "note: {}: the index was damaged ({error}); building it again",
                path.display()
            ));
            Index::open_for_build(path, env!("AST_OUTLINE_INDEX_BUILD_ID"))
                .map_err(|e| Refused::new(path, &e))
        }
        Err(error @ index::Error::Foreign(_)) => {
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
) -> Result<(RefreshStats, Vec<String>), index::Error> {
    if !changed.is_empty() {
        match named_files(root, changed, index)? {
            Ok((files, gone)) => {
                if let Some(stats) = index.refresh_files(&files, &gone, &parse)? {
                    return Ok((stats, Vec::new()));
                }
            }
            Err(why) => report(format!("note: {why}: every file is looked at")),
        }
    }
    walk_and_refresh(index, root)
}

/// Refreshes `index` to every file under `root`, walked while the index
/// reads its stored rows: the statistics and the walk's notes.
fn walk_and_refresh(
    index: &mut Index,
    root: &Path,
) -> Result<(RefreshStats, Vec<String>), index::Error> {
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
) -> Result<Result<NamedFiles, String>, index::Error> {
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
                    report(format!(
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
pub(crate) struct Refused {
    /// What to tell the user.
    pub message: String,
    /// Whether another process holds the database's lock.
    pub busy: bool,
    /// Whether SQLite could not write where the database is.
    pub read_only: bool,
}

impl Refused {
    fn new(path: &Path, error: &index::Error) -> Refused {
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
pub(crate) fn refresh(
    index: &mut Index,
    root: &Path,
) -> Result<(RefreshStats, Vec<String>), Refused> {
    walk_and_refresh(index, root).map_err(|e| Refused::new(index.path(), &e))
}

/// How long [`retry_while_busy`] tries again.
const BUSY_RETRY: std::time::Duration = std::time::Duration::from_secs(10);

/// `attempt` until it is not refused because another process holds the
/// lock, or [`BUSY_RETRY`] has passed. SQLite's own wait does not cover
/// every case: during another process's first build (which writes without
/// WAL) a connection that read first is refused at once rather than made
/// to wait (SQLite's deadlock rule).
fn retry_while_busy<T>(mut attempt: impl FnMut() -> Result<T, Refused>) -> Result<T, Refused> {
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

/// The shortest wait for another process's refresh that `index` mentions
/// in its text summary (the JSON always gives `waited_ms`).
const WAIT_WORTH_SAYING_MS: u128 = 100;

/// `ast-outline index [ROOT]`.
pub(super) fn run_index(args: &IndexArgs) -> ExitCode {
    let started = std::time::Instant::now();
    let mut last_attempt = started;
    let opened = retry_while_busy(|| {
        last_attempt = std::time::Instant::now();
        open_and_refresh_waiting(&args.root, args.db.as_ref(), None, &args.changed)
    });
    let (index, stats, notes) = match opened {
        Ok(done) => done,
        Err(message) => {
            report(message.message);
            return ExitCode::FAILURE;
        }
    };
    if !args.quiet {
        for note in notes.iter().chain(&stats.problems) {
            report(note.clone());
        }
    }
    let elapsed = started.elapsed().as_millis();
    // Time spent waiting for another process's refresh: the attempts
    // refused before the last, and the last one's wait for the lock.
    let lock_ms = stats
        .phases
        .iter()
        .find(|(name, _)| *name == "lock")
        .map_or(0, |(_, ms)| *ms);
    let waited = (last_attempt - started).as_millis() + lock_ms;
    let text = match args.format {
        Format::Json => format!(
            "{}\n",
            json!({
                "db": index.path().display().to_string(),
                "rebuilt": index.created,
                "named_only": stats.named_only,
                "files": stats.files,
                "parsed": stats.parsed,
                "touched": stats.touched,
                "removed": stats.removed,
                "resolved_again": stats.resolved_again,
                "files_read": stats.files_read,
                "resolved_files": stats.resolved_files,
                "re_resolved": stats.re_resolved,
                "references": stats.references,
                "resolved": stats.resolved,
                "relations": stats.relations,
                "problems": stats.problems,
                "phases_ms": stats.phases.iter().map(|(name, ms)| json!([name, ms])).collect::<Vec<_>>(),
                "milliseconds": elapsed,
                "waited_ms": waited,
            })
        ),
        Format::Text => format!(
            "{}: {} files ({} parsed, {} removed), {} references ({} resolved), {} relations{} in {elapsed} ms{}\n",
            index.path().display(),
            stats.files,
            stats.parsed,
            stats.removed,
            stats.references,
            stats.resolved,
            stats.relations,
            if index.created {
                ", new index"
            } else if stats.named_only {
                ", named files only"
            } else {
                ""
            },
            if waited >= WAIT_WORTH_SAYING_MS {
                format!(" ({waited} ms of them waiting for another ast-outline's refresh)")
            } else {
                String::new()
            },
        ),
    };
    print_or_exit(&text);
    ExitCode::SUCCESS
}

/// Opens the index for a query, refreshed first unless `--no-refresh`.
/// While another process holds the lock (a refresh is running), the query
/// is answered from the last completed refresh, with a note saying so.
/// Files that could not be indexed are summed up in one note.
pub(super) fn open_for_query(location: &IndexLocation) -> Result<Index, String> {
    refuse_directory_db(location.db.as_ref()).map_err(String::from)?;
    let db = db_path(&location.root, location.db.as_ref());
    if location.no_refresh {
        return open_as_is(&db, location);
    }
    // A refresh running elsewhere is waited for a moment, then the last
    // completed one answers.
    let wait = Some(std::time::Duration::from_secs(2));
    match open_and_refresh_waiting(&location.root, location.db.as_ref(), wait, &[]) {
        Ok((index, stats, _)) => {
            if !stats.problems.is_empty() {
                report(format!(
                    "note: {} not indexed (`ast-outline index` lists why)",
                    plural(stats.problems.len(), "file")
                ));
            }
            Ok(index)
        }
        // A directory SQLite cannot write to: the index as it is.
        Err(refused) if refused.read_only && db.is_file() => {
            let index = open_as_is(&db, location)?;
            report(format!(
                "note: {}: not refreshed (SQLite cannot write there); answering from the \
                 index as it is",
                db.display()
            ));
            Ok(index)
        }
        Err(refused) if refused.busy => match open_as_is(&db, location) {
            Ok(index) => {
                report(format!(
                    "note: another ast-outline is refreshing {}; answering from its last \
                     completed refresh",
                    db.display()
                ));
                Ok(index)
            }
            // No completed refresh to answer from (a first build is
            // running): wait for it.
            Err(_) => retry_while_busy(|| {
                open_and_refresh_waiting(&location.root, location.db.as_ref(), wait, &[])
            })
            .map(|(index, ..)| index)
            .map_err(|refused| refused.message),
        },
        Err(refused) => Err(refused.message),
    }
}

/// The index at `db` as it is ([`Index::open_existing`]), or the message
/// saying why not (naming the file).
fn open_as_is(db: &Path, location: &IndexLocation) -> Result<Index, String> {
    Index::open_existing(db, &build_command(location)).map_err(|e| match e {
        // Those name the file already.
        index::Error::Target(message) => message,
        other => format!("{}: {other}", db.display()),
    })
}

/// The command that builds or refreshes the index of `location`, for
/// messages: `ast-outline index`, with the root unless it is `.` and with
/// `--db FILE` when one is named (each quoted for a POSIX shell when
/// needed).
fn build_command(location: &IndexLocation) -> String {
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
pub(super) fn discover(
    location: &IndexLocation,
    target: Option<&str>,
) -> (IndexLocation, Option<String>) {
    let same = || {
        (
            IndexLocation {
                root: location.root.clone(),
                db: location.db.clone(),
                format: location.format,
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
        .and_then(index::stored_root)
        .map(PathBuf::from)
        .filter(|root| root.is_dir());
    let root = match (&location.db, recorded) {
        (Some(_), Some(recorded)) => recorded,
        (Some(_), None) => return same(),
        (None, _) if Path::new(index::DEFAULT_DB).is_file() => return same(),
        (None, _) => match here
            .ancestors()
            .skip(1)
            .find(|dir| dir.join(index::DEFAULT_DB).is_file())
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
pub(super) fn within_root(root: &Path, target: &str) -> String {
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

/// A note when `target` is an id `PATH:LINE:QUALNAME` whose line is no
/// longer the definition's (it was found again by qualname), as `read` says.
pub(crate) fn moved_note(target: &str, symbol: &SymbolRow) -> Option<String> {
    let mut parts = target.rsplitn(3, ':');
    let qualname = parts.next()?;
    let line: u32 = parts.next()?.parse().ok()?;
    parts.next()?;
    if qualname.bytes().all(|b| b.is_ascii_digit()) || line == symbol.start_line {
        return None;
    }
    Some(format!(
        "note: found by qualname: the id said line {line}, {} now starts at line {}",
        symbol.qualname, symbol.start_line
    ))
}

/// `count noun` with an `s` unless `count` is 1.
pub(crate) fn plural(count: usize, noun: &str) -> String {
    if count == 1 {
        format!("1 {noun}")
    } else {
        format!("{count} {noun}s")
    }
}

/// Runs a query: opens the index, finds the target, prints what `answer`
/// gives (text, JSON value).
fn query(
    location: &IndexLocation,
    target: Option<&str>,
    answer: impl FnOnce(&Index, Option<&SymbolRow>) -> Result<(String, serde_json::Value), index::Error>,
) -> ExitCode {
    let (location, target) = discover(location, target);
    let location = &location;
    let index = match open_for_query(location) {
        Ok(index) => index,
        Err(message) => {
            report(message);
            return ExitCode::FAILURE;
        }
    };
    let symbol = match target
        .as_deref()
        .map(|t| query::find_target(index.connection(), &within_root(&location.root, t)))
    {
        None => None,
        Some(Ok(symbol)) => {
            if let Some(note) = target.as_deref().and_then(|t| moved_note(t, &symbol)) {
                report(note);
            }
            Some(symbol)
        }
        Some(Err(error)) => {
            report(error.to_string());
            return ExitCode::FAILURE;
        }
    };
    match answer(&index, symbol.as_ref()) {
        Ok((text, value)) => {
            match location.format {
                Format::Text => print_or_exit(&text),
                Format::Json => print_or_exit(&format!("{value}\n")),
            }
            ExitCode::SUCCESS
        }
        Err(error) => {
            report(error.to_string());
            ExitCode::FAILURE
        }
    }
}

fn header(symbol: &SymbolRow) -> String {
    let module = symbol
        .module
        .as_deref()
        .map(|m| format!(", module {m}"))
        .unwrap_or_default();
    format!(
        "{} ({} {}, L{}-{}{module})",
        symbol.id, symbol.kind, symbol.qualname, symbol.start_line, symbol.end_line
    )
}

/// One reference as a text line (without the path).
fn ref_line(r: &RefRow) -> String {
    let name = if r.receiver.is_empty() {
        r.name.clone()
    } else {
        format!("{}.{}", r.receiver, r.name)
    };
    let caller = r
        .caller
        .as_deref()
        .and_then(|c| c.splitn(3, ':').nth(2).map(str::to_owned))
        .unwrap_or_else(|| "<module>".to_owned());
    let mut status = format!("{} via {}", r.status, r.via);
    if r.status != "resolved" && !r.candidates.is_empty() {
        let _ = write!(status, ", {}", plural(r.candidates.len(), "candidate"));
    }
    format!(
        "  L{}:{} {} {name} in {caller} [{status}]",
        r.line, r.column, r.role
    )
}

/// References grouped by file (sorted by path, then line).
fn grouped(rows: &[RefRow], out: &mut String) {
    let mut by_file: BTreeMap<&str, Vec<&RefRow>> = BTreeMap::new();
    for row in rows {
        by_file.entry(row.path.as_str()).or_default().push(row);
    }
    for (path, rows) in by_file {
        let _ = writeln!(out, "{path}");
        for row in rows {
            let _ = writeln!(out, "{}", ref_line(row));
        }
    }
}

/// A query's answer: the text for people and agents, and the same as JSON.
pub(crate) type Answer = (String, serde_json::Value);

/// The references to `symbol` (with `candidates`, also unresolved ones that
/// list it), grouped by file.
///
/// # Errors
/// [`index::Error::Sqlite`] from the query.
pub(crate) fn refs_answer(
    index: &Index,
    symbol: &SymbolRow,
    candidates: bool,
) -> Result<Answer, index::Error> {
    let rows = query::refs(index.connection(), &symbol.id, candidates)?;
    let files = rows
        .iter()
        .map(|r| &r.path)
        .collect::<std::collections::HashSet<_>>();
    let resolved = rows.iter().filter(|r| r.status == "resolved").count();
    let split = if resolved == rows.len() {
        String::new()
    } else {
        format!(
            " ({resolved} resolved, {} candidates)",
            rows.len() - resolved
        )
    };
    let mut text = format!(
        "refs to {}: {}{split} in {}\n",
        header(symbol),
        rows.len(),
        plural(files.len(), "file")
    );
    grouped(&rows, &mut text);
    Ok((text, json!({ "target": symbol, "refs": rows })))
}

/// The calls of `symbol`, and with `depth` > 1 the calls of its callers,
/// grouped by depth, then by file.
///
/// # Errors
/// [`index::Error::Sqlite`] from the query.
pub(crate) fn callers_answer(
    index: &Index,
    symbol: &SymbolRow,
    depth: u32,
) -> Result<Answer, index::Error> {
    let rows: Vec<CallerRow> = query::callers(index.connection(), &symbol.id, depth)?;
    let mut text = format!(
        "callers of {}: {}\n",
        header(symbol),
        plural(rows.len(), "call")
    );
    let mut depth = 0;
    let mut level: Vec<RefRow> = Vec::new();
    let flush = |depth: u32, level: &mut Vec<RefRow>, text: &mut String| {
        if !level.is_empty() {
            let _ = writeln!(text, "depth {depth}:");
            grouped(level, text);
            level.clear();
        }
    };
    for row in &rows {
        if row.depth != depth {
            flush(depth, &mut level, &mut text);
            depth = row.depth;
        }
        level.push(row.call.clone());
    }
    flush(depth, &mut level, &mut text);
    Ok((text, json!({ "target": symbol, "callers": rows })))
}

/// The calls made inside `symbol`, each with what it resolved to (or its
/// candidates).
///
/// # Errors
/// [`index::Error::Sqlite`] from the query.
pub(crate) fn callees_answer(index: &Index, symbol: &SymbolRow) -> Result<Answer, index::Error> {
    let rows = query::callees(index.connection(), &symbol.id)?;
    let mut text = format!(
        "callees of {}: {}\n",
        header(symbol),
        plural(rows.len(), "call")
    );
    for row in &rows {
        let target = row
            .target
            .clone()
            .unwrap_or_else(|| row.candidates.join(" "));
        // An external call (a builtin, another package) has no target: its
        // status says so, and no empty arrow follows.
        if target.is_empty() {
            let _ = writeln!(text, "{}", ref_line(row));
        } else {
            let _ = writeln!(text, "{} -> {target}", ref_line(row));
        }
    }
    Ok((text, json!({ "target": symbol, "callees": rows })))
}

/// The supertypes and subtypes of `symbol`, transitive, nearest first.
///
/// # Errors
/// [`index::Error::Sqlite`] from the query.
pub(crate) fn hierarchy_answer(index: &Index, symbol: &SymbolRow) -> Result<Answer, index::Error> {
    let hierarchy = query::hierarchy(index.connection(), &symbol.id)?;
    let mut text = format!("hierarchy of {}\n", header(symbol));
    if hierarchy.supertypes.is_empty()
        && hierarchy.subtypes.is_empty()
        && !is_type_kind(&symbol.kind)
    {
        let _ = writeln!(
            text,
            "(a {} has no type hierarchy: give a class, interface, struct, enum, union or trait)",
            symbol.kind.replace('_', " ")
        );
    }
    for (title, list) in [
        ("supertypes", &hierarchy.supertypes),
        ("subtypes", &hierarchy.subtypes),
    ] {
        let _ = writeln!(text, "{title}: {}", list.len());
        // A tree: each type under the one it was reached through.
        let mut stack: Vec<(&str, usize)> = vec![(symbol.id.as_str(), 0)];
        let mut shown = vec![false; list.len()];
        while let Some((parent, level)) = stack.pop() {
            if level > 0 {
                let _ = writeln!(
                    text,
                    "  {}{}",
                    "  ".repeat(level - 1),
                    list.iter()
                        .find(|r| r.symbol.id == parent)
                        .map(|r| header(&r.symbol))
                        .unwrap_or_default()
                );
            }
            for (i, related) in list.iter().enumerate().rev() {
                if !shown[i] && related.via == parent {
                    shown[i] = true;
                    stack.push((related.symbol.id.as_str(), level + 1));
                }
            }
        }
    }
    Ok((text, json!({ "target": symbol, "hierarchy": hierarchy })))
}

/// Whether symbols of `kind` (an LSP SymbolKind word) have supertypes or
/// subtypes.
fn is_type_kind(kind: &str) -> bool {
    matches!(
        kind,
        "class" | "interface" | "struct" | "enum" | "union" | "trait" | "impl" | "type_alias"
    )
}

fn no_target() -> index::Error {
    index::Error::Target("no target".into())
}

/// `ast-outline refs TARGET`.
pub(super) fn run_refs(args: &RefsArgs) -> ExitCode {
    query(&args.location, Some(&args.target), |index, symbol| {
        refs_answer(index, symbol.ok_or_else(no_target)?, args.candidates)
    })
}

/// `ast-outline callers TARGET`.
pub(super) fn run_callers(args: &CallersArgs) -> ExitCode {
    query(&args.location, Some(&args.target), |index, symbol| {
        callers_answer(index, symbol.ok_or_else(no_target)?, args.depth)
    })
}

/// `ast-outline callees TARGET`.
pub(super) fn run_callees(args: &QueryArgs) -> ExitCode {
    query(&args.location, Some(&args.target), |index, symbol| {
        callees_answer(index, symbol.ok_or_else(no_target)?)
    })
}

/// `ast-outline hierarchy TARGET`.
pub(super) fn run_hierarchy(args: &QueryArgs) -> ExitCode {
    query(&args.location, Some(&args.target), |index, symbol| {
        hierarchy_answer(index, symbol.ok_or_else(no_target)?)
    })
}

/// `ast-outline defs NAME`.
pub(super) fn run_defs(args: &DefsArgs) -> ExitCode {
    query(&args.location, None, |index, _| {
        let rows = query::defs(index.connection(), &args.name)?;
        let mut text = format!("definitions of {}: {}\n", args.name, rows.len());
        for row in &rows {
            let _ = writeln!(text, "  {}", header(row));
        }
        Ok((text, json!({ "name": args.name, "defs": rows })))
    })
}

/// `ast-outline export --format json`: the whole index, streamed to stdout.
pub(super) fn run_export(args: &ExportArgs) -> ExitCode {
    let location = IndexLocation {
        root: args.root.clone(),
        db: args.db.clone(),
        format: Format::Json,
        no_refresh: args.no_refresh,
    };
    // As for the queries: with --db and no --root, the recorded root.
    let (location, _) = discover(&location, None);
    let index = match open_for_query(&location) {
        Ok(index) => index,
        Err(message) => {
            report(message);
            return ExitCode::FAILURE;
        }
    };
    let stdout = std::io::stdout();
    let written = match args.format {
        ExportFormat::Json => {
            let mut out = std::io::BufWriter::new(stdout.lock());
            index::export::write_json(index.connection(), &mut out).map(|_| ())
        }
        ExportFormat::Scip => {
            if std::io::IsTerminal::is_terminal(&stdout) {
                report("a SCIP index is binary: redirect it to a file (`> index.scip`)".to_owned());
                return ExitCode::FAILURE;
            }
            let root =
                std::fs::canonicalize(&location.root).unwrap_or_else(|_| location.root.clone());
            let uri = format!("file://{}", root.display());
            index::export::write_scip(index.connection(), &uri, &mut stdout.lock())
        }
    };
    match written {
        Ok(()) => ExitCode::SUCCESS,
        Err(index::Error::Io(_, error)) if error.kind() == std::io::ErrorKind::BrokenPipe => {
            ExitCode::SUCCESS
        }
        Err(error) => {
            report(error.to_string());
            ExitCode::FAILURE
        }
    }
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
