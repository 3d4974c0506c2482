//! The queue of paths a watcher or an editor said changed, before the index
//! reads them again: debounce, priority and backpressure, as pure logic over
//! the instants it is given (no clock, no I/O), so that every rule is tested
//! with exact times.
//!
//! - **Debounce**: the events of one path within a window (200 ms by
//!   default) are merged into one update, due when the window that its
//!   first event opened closes. A path written continuously is still read
//!   once per window, never postponed forever.
//! - **Priority**: paths open in the editor (LSP `didOpen`) come first in
//!   every batch taken, then the others by their first event.
//! - **Backpressure**: when more than a threshold of paths are pending (a
//!   `git checkout`, a formatter over the tree), the queue stops keeping
//!   paths and asks for one full refresh instead; it keeps paths again as
//!   soon as that refresh is taken.

use std::collections::{HashMap, HashSet};
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// The default debounce window.
pub const DEFAULT_DEBOUNCE: Duration = Duration::from_millis(200);
/// The default number of pending paths over which one full refresh is run
/// instead.
pub const DEFAULT_THRESHOLD: usize = 1_000;

/// What to do next with the index.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Work {
    /// Nothing is due.
    Nothing,
    /// Read these paths again: open ones first, then by first event.
    Paths(Vec<PathBuf>),
    /// Refresh every file (too many paths were pending, the watcher lost
    /// events, or a settings file changed); `why` says which.
    Full {
        /// Why, for the log (`"1,204 paths pending"`).
        why: String,
    },
}

/// Paths waiting to be read again.
#[derive(Debug)]
pub struct Pending {
    debounce: Duration,
    threshold: usize,
    /// Each path with the instant of its first event not yet taken.
    paths: HashMap<PathBuf, Instant>,
    /// A full refresh asked for, and why.
    full: Option<String>,
}

impl Pending {
    /// An empty queue with the given debounce window and backpressure
    /// threshold (at least 1).
    pub fn new(debounce: Duration, threshold: usize) -> Pending {
        Pending {
            debounce,
            threshold: threshold.max(1),
            paths: HashMap::new(),
            full: None,
        }
    }

    /// Records an event for `path` at `now`. While a full refresh is asked
    /// for, nothing is kept (that refresh reads every file).
    pub fn add(&mut self, path: PathBuf, now: Instant) {
        if self.full.is_some() {
            return;
        }
        self.paths.entry(path).or_insert(now);
        if self.paths.len() > self.threshold {
            let paths = if self.threshold == 1 { "path" } else { "paths" };
            self.ask_full(format!("more than {} {paths} pending", self.threshold));
        }
    }

    /// Asks for one full refresh instead of the paths pending.
    pub fn ask_full(&mut self, why: String) {
        self.paths.clear();
        self.full.get_or_insert(why);
    }

    /// Whether nothing is pending.
    pub fn is_empty(&self) -> bool {
        self.paths.is_empty() && self.full.is_none()
    }

    /// When the next path is due (`None` when none is pending); a full
    /// refresh asked for is due at once.
    pub fn next_due(&self, now: Instant) -> Option<Instant> {
        if self.full.is_some() {
            return Some(now);
        }
        self.paths
            .values()
            .min()
            .map(|first| *first + self.debounce)
    }

    /// Takes what is due at `now`: a full refresh if one was asked for,
    /// else the paths whose window has closed (`all`: every path, as a
    /// query that must see every event so far takes them), `open` paths
    /// first.
    pub fn take(&mut self, now: Instant, all: bool, open: &HashSet<PathBuf>) -> Work {
        if let Some(why) = self.full.take() {
            return Work::Full { why };
        }
        let due: Vec<(PathBuf, Instant)> = if all {
            self.paths.drain().collect()
        } else {
            let debounce = self.debounce;
            let due: Vec<PathBuf> = self
                .paths
                .iter()
                .filter(|(_, first)| now.saturating_duration_since(**first) >= debounce)
                .map(|(path, _)| path.clone())
                .collect();
            due.into_iter()
                .filter_map(|path| self.paths.remove_entry(&path))
                .collect()
        };
        if due.is_empty() {
            return Work::Nothing;
        }
        let mut due = due;
        due.sort_by(|(a, first_a), (b, first_b)| {
            (!open.contains(a), first_a, a).cmp(&(!open.contains(b), first_b, b))
        });
        Work::Paths(due.into_iter().map(|(path, _)| path).collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn paths(work: &Work) -> Vec<&str> {
        match work {
            Work::Paths(paths) => paths.iter().filter_map(|p| p.to_str()).collect(),
            _ => Vec::new(),
        }
    }

    #[test]
    fn events_of_one_path_within_the_window_are_one_update() {
        let start = Instant::now();
        let ms = |n| start + Duration::from_millis(n);
        let mut pending = Pending::new(Duration::from_millis(200), 100);
        pending.add("a.py".into(), ms(0));
        pending.add("a.py".into(), ms(50));
        pending.add("a.py".into(), ms(190));
        assert_eq!(pending.next_due(ms(190)), Some(ms(200)));
        assert_eq!(pending.take(ms(199), false, &HashSet::new()), Work::Nothing);
        assert_eq!(
            paths(&pending.take(ms(200), false, &HashSet::new())),
            ["a.py"]
        );
        assert!(pending.is_empty());
        // A write after the window opens a new one.
        pending.add("a.py".into(), ms(210));
        assert_eq!(pending.next_due(ms(210)), Some(ms(410)));
    }

    #[test]
    fn a_query_takes_every_path_and_open_files_come_first() {
        let start = Instant::now();
        let ms = |n| start + Duration::from_millis(n);
        let mut pending = Pending::new(Duration::from_millis(200), 100);
        pending.add("b.py".into(), ms(0));
        pending.add("c.py".into(), ms(5));
        pending.add("a.py".into(), ms(10));
        let open = HashSet::from([PathBuf::from("c.py")]);
        assert_eq!(
            paths(&pending.take(ms(20), true, &open)),
            ["c.py", "b.py", "a.py"]
        );
    }

    #[test]
    fn too_many_paths_pending_ask_for_one_full_refresh_then_paths_are_kept_again() {
        let start = Instant::now();
        let mut pending = Pending::new(Duration::from_millis(200), 3);
        for name in ["a", "b", "c", "d", "e"] {
            pending.add(name.into(), start);
        }
        assert_eq!(pending.next_due(start), Some(start));
        assert_eq!(
            pending.take(start, false, &HashSet::new()),
            Work::Full {
                why: "more than 3 paths pending".to_owned()
            }
        );
        assert!(pending.is_empty());
        pending.add("f".into(), start);
        assert_eq!(paths(&pending.take(start, true, &HashSet::new())), ["f"]);
    }
}
