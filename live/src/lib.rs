//! # ast-outline-live
//!
//! The live index: an index kept fresh while files change, for `watch` and
//! the servers (`mcp`, `lsp`).
//!
//! Three threads meet here. The `notify` watcher's thread records changed
//! paths in a [`Pending`] queue (debounced, editor buffers first, one full
//! refresh instead when too many are pending); a worker thread reads the
//! due paths again through [`Index::refresh_files`]; and the server's thread
//! asks questions through [`Live::query`], which first reads every path
//! still pending, so an answer never predates an event already received.
//! Editor buffers ([`Live::set_buffer`]) are indexed from their text.
//!
//! Locks are always taken in one order: the index, then the queue.

pub mod paths;
pub mod pending;

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError, Weak};
use std::time::{Duration, Instant};

use index::{Index, RefreshStats, SourceEntry};
use notify::Watcher as _;

use index::open as queries;
pub use pending::{DEFAULT_DEBOUNCE, DEFAULT_THRESHOLD, Pending, Work};

/// How a live index follows changes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LiveOptions {
    /// The debounce window (see [`pending`]).
    pub debounce: Duration,
    /// Pending paths over which one full refresh is run instead.
    pub threshold: usize,
    /// Whether to watch the tree with `notify` (off: only editor buffers
    /// and [`Live::changed`] say what changed).
    pub watch: bool,
}

impl Default for LiveOptions {
    fn default() -> LiveOptions {
        LiveOptions {
            debounce: DEFAULT_DEBOUNCE,
            threshold: DEFAULT_THRESHOLD,
            watch: true,
        }
    }
}

/// One update of the index, as the worker or a query applied it.
#[derive(Debug, Clone)]
pub struct Update {
    /// Display paths read again (empty for a full refresh).
    pub paths: Vec<String>,
    /// Why a full refresh ran; `None` for an update of named paths.
    pub full: Option<String>,
    /// What the refresh did (default when it failed).
    pub stats: RefreshStats,
    /// Wall time of the update.
    pub took: Duration,
    /// The walk's notes and the refresh's error, if any.
    pub notes: Vec<String>,
    /// Whether the root is gone (deleted or no longer a directory): the
    /// index follows nothing more.
    pub root_gone: bool,
}

/// Called after every update that read something (from the worker or a
/// query's thread, with the index locked: it must not call back into the
/// [`Live`]).
pub type OnUpdate = Box<dyn Fn(&Update) + Send + Sync>;

/// The index and what only the index's lock guards.
struct State {
    index: Index,
    /// Editor buffers by display path.
    buffers: HashMap<String, Arc<[u8]>>,
    /// The absolute paths of those buffers (their priority in the queue).
    open: HashSet<PathBuf>,
    /// SQLite's `data_version` when last looked at: it changes when another
    /// process commits to the database (a `refs` that refreshed it from
    /// disk, undoing the buffers).
    data_version: i64,
}

/// [`Index::data_version`] (0 when it cannot be read).
fn data_version(index: &Index) -> i64 {
    index.data_version().unwrap_or(0)
}

/// An index kept fresh (see the module documentation). Shared as an
/// `Arc`; [`Live::stop`] ends its threads.
pub struct Live {
    root: PathBuf,
    state: Mutex<State>,
    pending: Mutex<Pending>,
    wake: Condvar,
    stopped: AtomicBool,
    on_update: OnUpdate,
    watcher: Mutex<Option<notify::RecommendedWatcher>>,
    /// Why the tree could not be watched (then the index polls).
    not_watching: Mutex<Option<String>>,
    /// Whether an update wrote since the last checkpoint.
    to_checkpoint: AtomicBool,
    /// Whether the root was found gone (reported once).
    root_gone: AtomicBool,
    /// The number of the last cookie file created ([`Live::sync`]).
    cookie: AtomicU64,
    /// The highest cookie number whose event the watcher has delivered.
    cookies_seen: Mutex<u64>,
    /// Signalled when a cookie's event arrives.
    synced: Condvar,
}

/// The longest a query waits for the watcher to deliver its cookie's event
/// ([`Live::sync`]); past it, the query answers with what has arrived.
const SYNC_WAIT: Duration = Duration::from_millis(100);

/// The start of a cookie file's name (then the process id and a number).
const COOKIE: &str = "cookie-";

/// How often an index that cannot watch its tree refreshes from every file.
pub const POLL_EVERY: Duration = Duration::from_secs(2);

/// Idle time after an update before the write-ahead log is moved into the
/// database (a checkpoint). SQLite would otherwise do it in the commit that
/// reaches [`AUTOCHECKPOINT_PAGES`], the commit of an update an answer waits for.
const CHECKPOINT_AFTER: Duration = Duration::from_millis(500);

/// The WAL size (pages) at which SQLite checkpoints in a commit anyway
/// (its default is 1,000): only reached when updates never pause.
const AUTOCHECKPOINT_PAGES: u32 = 16_384;

/// What the worker does next.
enum Next {
    /// Apply what is due.
    Apply,
    /// Move the write-ahead log into the database.
    Checkpoint,
    /// Refresh from every file (the tree is not watched), and why.
    Poll(String),
}

impl std::fmt::Debug for Live {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Live").field("root", &self.root).finish()
    }
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

impl Live {
    /// Opens (or builds) the index of `root` at `db` (default
    /// `ROOT/.ast-outline/index.sqlite`), refreshes it from every file, and
    /// starts following changes: the watcher (with `options.watch`) and the
    /// worker thread.
    ///
    /// When the tree cannot be watched (no inotify, its watch limit
    /// reached: `fs.inotify.max_user_watches`), the index polls instead:
    /// a full refresh every [`POLL_EVERY`] and before every query, and
    /// [`Live::not_watching`] says why.
    ///
    /// # Errors
    /// A message when the index cannot be opened or refreshed.
    pub fn start(
        root: &Path,
        db: Option<&PathBuf>,
        options: LiveOptions,
        on_update: OnUpdate,
    ) -> Result<Arc<Live>, String> {
        let (index, _, _) =
            queries::open_and_refresh(root, db, &queries::print_note).map_err(|r| r.message)?;
        // Checkpoints run when idle (see `Live::work`), not in the commit
        // of an update that an answer waits for.
        index
            .set_autocheckpoint(AUTOCHECKPOINT_PAGES)
            .map_err(|e| format!("{}: {e}", index.path().display()))?;
        let root = root
            .canonicalize()
            .map_err(|e| format!("{}: {e}", root.display()))?;
        let live = Arc::new(Live {
            root: root.clone(),
            state: Mutex::new(State {
                data_version: data_version(&index),
                index,
                buffers: HashMap::new(),
                open: HashSet::new(),
            }),
            pending: Mutex::new(Pending::new(options.debounce, options.threshold)),
            wake: Condvar::new(),
            stopped: AtomicBool::new(false),
            on_update,
            watcher: Mutex::new(None),
            not_watching: Mutex::new(None),
            to_checkpoint: AtomicBool::new(false),
            root_gone: AtomicBool::new(false),
            cookie: AtomicU64::new(0),
            cookies_seen: Mutex::new(0),
            synced: Condvar::new(),
        });
        if options.watch {
            let weak: Weak<Live> = Arc::downgrade(&live);
            let watched =
                notify::recommended_watcher(move |event: notify::Result<notify::Event>| {
                    if let Some(live) = weak.upgrade() {
                        live.on_event(event);
                    }
                })
                .and_then(|mut watcher| {
                    watcher.watch(&root, notify::RecursiveMode::Recursive)?;
                    Ok(watcher)
                });
            match watched {
                Ok(watcher) => *lock(&live.watcher) = Some(watcher),
                Err(error) => *lock(&live.not_watching) = Some(error.to_string()),
            }
        }
        let worker = Arc::clone(&live);
        std::thread::Builder::new()
            .name("live-index".to_owned())
            .stack_size(ast_outline::PARSER_STACK_BYTES)
            .spawn(move || worker.work())
            .map_err(|e| format!("cannot start the index's thread: {e}"))?;
        Ok(live)
    }

    /// The root (absolute, canonical).
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Why the tree is not watched although watching was asked for (the
    /// index then polls); `None` when it is watched or was not to be.
    pub fn not_watching(&self) -> Option<String> {
        lock(&self.not_watching).clone()
    }

    /// Stops watching and ends the worker thread (a query still answers,
    /// reading what is pending itself).
    pub fn stop(&self) {
        drop(lock(&self.watcher).take());
        self.stopped.store(true, Ordering::SeqCst);
        {
            let _guard = lock(&self.pending);
            self.wake.notify_all();
        }
        // Leave no write-ahead log behind (best effort: a reader elsewhere
        // may keep part of it).
        let _ = lock(&self.state).index.checkpoint(true);
    }

    /// Runs `work` on the index once every path pending has been read again.
    ///
    /// # Errors
    /// None of its own: `work`'s result is returned as it is; a failed
    /// refresh is reported through the update callback and the index is
    /// left as it was.
    pub fn query<T>(&self, work: impl FnOnce(&Index) -> T) -> T {
        self.sync();
        let mut state = lock(&self.state);
        let polling = lock(&self.not_watching).clone();
        // Another process committed (refreshed the index from disk): the
        // editor's buffers are read into it again.
        let version = data_version(&state.index);
        let undone = version != state.data_version && !state.buffers.is_empty();
        state.data_version = version;
        let taken = {
            let mut pending = lock(&self.pending);
            if let Some(why) = polling {
                pending.ask_full(format!("not watching ({why})"));
            }
            if undone {
                let now = Instant::now();
                for path in &state.open {
                    pending.add(path.clone(), now);
                }
            }
            pending.take(Instant::now(), true, &state.open)
        };
        self.apply(&mut state, taken);
        work(&state.index)
    }

    /// Says that the files or directories at `paths` (absolute, or relative
    /// to the root) changed, as the watcher would; they are read again when
    /// their window closes, or at the next query.
    pub fn changed(&self, paths: impl IntoIterator<Item = PathBuf>) {
        let now = Instant::now();
        let mut pending = lock(&self.pending);
        for path in paths {
            let path = if path.is_absolute() {
                path
            } else {
                self.root.join(path)
            };
            pending.add(path, now);
        }
        self.wake.notify_all();
    }

    /// Sets (`Some`) or drops (`None`: closed, the disk's version is read
    /// again) the editor buffer of the file at `path` (absolute). A file
    /// with a buffer is indexed from its text and comes first in the queue.
    pub fn set_buffer(&self, path: &Path, text: Option<Arc<[u8]>>) {
        let Some(display) = paths::display(&self.root, path) else {
            return;
        };
        {
            let mut state = lock(&self.state);
            match text {
                Some(text) => {
                    state.buffers.insert(display, text);
                    state.open.insert(path.to_owned());
                }
                None => {
                    state.buffers.remove(&display);
                    state.open.remove(path);
                }
            }
        }
        self.changed([path.to_owned()]);
    }

    /// Drops every editor buffer and reads those files from disk again (a
    /// server that ends leaves the index as the disk is).
    pub fn drop_buffers(&self) {
        let open: Vec<PathBuf> = {
            let mut state = lock(&self.state);
            state.buffers.clear();
            state.open.drain().collect()
        };
        if !open.is_empty() {
            self.changed(open);
            self.query(|_| ());
        }
    }

    /// The display paths among `files` changed on disk since indexed
    /// ([`Index::stale`]; none when that cannot be read).
    pub fn stale(&self, index: &Index, files: &[String]) -> Vec<String> {
        index.stale(&self.root, files).unwrap_or_default()
    }

    /// Waits until the watcher has delivered every event of a change made
    /// before this call (watchman's cookie files): it creates a file in
    /// `ROOT/.ast-outline/` and waits, at most [`SYNC_WAIT`], for its event,
    /// which the kernel queues after those of every earlier change. Without
    /// it, a file written just before a question could be missed by the
    /// answer (its event still on the way). Nothing is done when the tree is
    /// not watched or has no `.ast-outline/` directory (an index kept
    /// elsewhere with `--db`: the tree is not written to).
    fn sync(&self) {
        if lock(&self.watcher).is_none() {
            return;
        }
        let dir = self.root.join(ast_outline::disk_cache::DIR_NAME);
        if !dir.is_dir() {
            return;
        }
        let number = self.cookie.fetch_add(1, Ordering::SeqCst) + 1;
        let cookie = dir.join(format!("{COOKIE}{}-{number}", std::process::id()));
        if std::fs::write(&cookie, b"").is_err() {
            return;
        }
        let deadline = Instant::now() + SYNC_WAIT;
        let mut seen = lock(&self.cookies_seen);
        while *seen < number {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                break;
            }
            seen = self
                .synced
                .wait_timeout(seen, left)
                .unwrap_or_else(PoisonError::into_inner)
                .0;
        }
        drop(seen);
        let _ = std::fs::remove_file(&cookie);
    }

    /// The number of this process's cookie file at `path`, if it is one.
    fn cookie_number(&self, path: &Path) -> Option<u64> {
        let name = path.file_name()?.to_str()?;
        let rest = name.strip_prefix(COOKIE)?;
        let (pid, number) = rest.split_once('-')?;
        (pid == std::process::id().to_string()
            && path.parent() == Some(self.root.join(ast_outline::disk_cache::DIR_NAME).as_path()))
        .then(|| number.parse().ok())
        .flatten()
    }

    /// The watcher's callback: records the event's paths.
    fn on_event(&self, event: notify::Result<notify::Event>) {
        if let Ok(event) = &event
            && let Some(number) = event
                .paths
                .iter()
                .filter_map(|p| self.cookie_number(p))
                .max()
        {
            let mut seen = lock(&self.cookies_seen);
            *seen = (*seen).max(number);
            self.synced.notify_all();
            return;
        }
        let now = Instant::now();
        let mut pending = lock(&self.pending);
        match event {
            Ok(event) if event.need_rescan() => {
                pending.ask_full("the watcher lost events".to_owned());
            }
            Ok(event) => {
                if matches!(event.kind, notify::EventKind::Access(_)) {
                    return;
                }
                for path in event.paths {
                    if paths::may_matter(&self.root, &path) {
                        pending.add(path, now);
                    }
                }
            }
            Err(error) => pending.ask_full(format!("the watcher failed: {error}")),
        }
        self.wake.notify_all();
    }

    /// Waits until the worker has something to do; `None` once stopped.
    fn next(&self) -> Option<Next> {
        let mut pending = lock(&self.pending);
        loop {
            if self.stopped.load(Ordering::SeqCst) {
                return None;
            }
            let now = Instant::now();
            let idle = if self.to_checkpoint.load(Ordering::SeqCst) {
                Some((CHECKPOINT_AFTER, Next::Checkpoint))
            } else {
                lock(&self.not_watching)
                    .clone()
                    .map(|why| (POLL_EVERY, Next::Poll(why)))
            };
            match (pending.next_due(now), idle) {
                (Some(due), _) if due <= now => return Some(Next::Apply),
                (Some(due), _) => {
                    pending = self
                        .wake
                        .wait_timeout(pending, due - now)
                        .unwrap_or_else(PoisonError::into_inner)
                        .0;
                }
                (None, None) => {
                    pending = self
                        .wake
                        .wait(pending)
                        .unwrap_or_else(PoisonError::into_inner);
                }
                (None, Some((after, next))) => {
                    let (guard, waited) = self
                        .wake
                        .wait_timeout(pending, after)
                        .unwrap_or_else(PoisonError::into_inner);
                    pending = guard;
                    if waited.timed_out() && pending.is_empty() {
                        return Some(next);
                    }
                }
            }
        }
    }

    /// The worker: waits until something is due, then applies it; when
    /// idle, moves the write-ahead log into the database (off the path of
    /// any answer), or polls a tree it cannot watch.
    fn work(&self) {
        while let Some(next) = self.next() {
            let mut state = lock(&self.state);
            let taken = {
                let mut pending = lock(&self.pending);
                match next {
                    Next::Apply => pending.take(Instant::now(), false, &state.open),
                    Next::Poll(why) => {
                        pending.ask_full(format!("not watching ({why})"));
                        pending.take(Instant::now(), false, &state.open)
                    }
                    Next::Checkpoint => {
                        self.to_checkpoint.store(false, Ordering::SeqCst);
                        // Passive: never waits for readers; what it cannot
                        // move now moves at the next one.
                        let _ = state.index.checkpoint(false);
                        Work::Nothing
                    }
                }
            };
            self.apply(&mut state, taken);
        }
    }

    /// Applies `work` to the index and reports it.
    fn apply(&self, state: &mut State, work: Work) {
        let started = Instant::now();
        if !matches!(work, Work::Nothing) && !self.root.is_dir() {
            // Deleted (or replaced): nothing under it can be followed.
            if !self.root_gone.swap(true, Ordering::SeqCst) {
                drop(lock(&self.watcher).take());
                (self.on_update)(&Update {
                    paths: Vec::new(),
                    full: None,
                    stats: RefreshStats::default(),
                    took: started.elapsed(),
                    notes: vec![format!(
                        "error: {}: the root is no longer a directory; changes are no \
                         longer followed",
                        self.root.display()
                    )],
                    root_gone: true,
                });
            }
            return;
        }
        let (paths, full, result) = match work {
            Work::Nothing => return,
            Work::Full { why } => (Vec::new(), Some(why), self.full_refresh(state)),
            Work::Paths(paths) => {
                match paths::classify(&self.root, &state.index, &state.buffers, &paths) {
                    Err(error) => (Vec::new(), None, Err(error.to_string())),
                    Ok(paths::Classified {
                        full: Some(why), ..
                    }) => (Vec::new(), Some(why), self.full_refresh(state)),
                    Ok(classified) if classified.is_empty() => return,
                    Ok(classified) => {
                        let mut shown: Vec<String> = classified
                            .changed
                            .iter()
                            .map(|e| e.display.clone())
                            .chain(classified.gone.iter().cloned())
                            .collect();
                        shown.sort();
                        match state.index.refresh_files(
                            &classified.changed,
                            &classified.gone,
                            &queries::parse,
                        ) {
                            // Files left out (binary, too large) are named.
                            Ok(Some(stats)) => {
                                let notes = stats.problems.clone();
                                (shown, None, Ok((stats, notes)))
                            }
                            Ok(None) => (
                                Vec::new(),
                                Some("the index holds no settings yet".to_owned()),
                                self.full_refresh(state),
                            ),
                            Err(error) => (shown, None, Err(error.to_string())),
                        }
                    }
                }
            }
        };
        let (stats, notes) = match result {
            Ok(done) => done,
            Err(error) => (RefreshStats::default(), vec![format!("error: {error}")]),
        };
        // An update that found nothing changed (a poll, a file written with
        // the same text) is not reported.
        if stats.parsed + stats.removed + stats.touched == 0 && notes.is_empty() {
            return;
        }
        self.to_checkpoint.store(true, Ordering::SeqCst);
        (self.on_update)(&Update {
            paths,
            full,
            stats,
            took: started.elapsed(),
            notes,
            root_gone: false,
        });
    }

    /// Refreshes from every file of the tree, buffers from their text.
    fn full_refresh(&self, state: &mut State) -> Result<(RefreshStats, Vec<String>), String> {
        let notes = Mutex::new(Vec::new());
        let buffers = &state.buffers;
        let walk = || {
            let (mut found, walk_notes) = queries::entries(&self.root);
            *lock(&notes) = walk_notes;
            for entry in &mut found {
                entry.text = buffers.get(&entry.display).cloned();
            }
            // A buffer whose file is not on disk (never saved, or deleted
            // while open) is not in the walk, and stays in the index.
            let walked: HashSet<&str> = found.iter().map(|e| e.display.as_str()).collect();
            let mut unsaved: Vec<SourceEntry> = buffers
                .iter()
                .filter(|(display, _)| {
                    let path = self.root.join(display.as_str());
                    !walked.contains(display.as_str())
                        && !path.exists()
                        && paths::walked(&self.root, &path, display)
                })
                .filter_map(|(display, text)| {
                    let language = outline_core::Language::from_path(display)?;
                    let mut entry = paths::entry(&self.root, display, language);
                    entry.text = Some(Arc::clone(text));
                    Some(entry)
                })
                .collect();
            if !unsaved.is_empty() {
                found.append(&mut unsaved);
                found.sort_by(|a, b| a.display.cmp(&b.display));
            }
            found
        };
        let stats = state
            .index
            .refresh_walking(&walk, &queries::parse)
            .map_err(|e| e.to_string())?;
        let notes = notes.into_inner().unwrap_or_else(PoisonError::into_inner);
        state
            .index
            .set_walk_notes(&notes)
            .map_err(|e| e.to_string())?;
        Ok((stats, notes))
    }
}
