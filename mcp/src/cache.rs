//! The server's in-memory cache of read and outlined files, keyed by path:
//! the file is read again on every call (cheap) and parsed again only when
//! its text differs from the cached one, so what is printed is always what is
//! on disk. The earlier versions served (a few per file) are remembered, so
//! an id issued from one of them can be found again precisely after an edit.
//!
//! Before parsing, the persistent cache (`.ast-outline/` under the root, see
//! [`crate::disk_cache`]) is consulted when it exists, and filled; the server
//! never creates it.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use outline_core::{FileOutline, Language, OutlineOptions};

use ast_outline::disk_cache::{DiskCache, Stamp};
use ast_outline::{Error, SourceText};

/// One file as read and outlined.
#[derive(Debug)]
pub struct Parsed {
    /// When it was parsed: a counter, larger for later versions.
    pub version: u64,
    /// The decoded text.
    pub source: SourceText,
    /// Its outline (ids use the display path it was asked under); `None` when
    /// the language is unknown (its lines can still be read).
    pub outline: Option<FileOutline>,
}

/// What a cached entry was made from.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct Key {
    real: PathBuf,
    display: String,
    block_threshold: u32,
}

#[derive(Debug)]
struct Entry {
    parsed: Arc<Parsed>,
    /// Earlier versions of the file served under this key, newest first.
    earlier: Vec<Arc<Parsed>>,
}

/// Most earlier versions of a file remembered per key.
const EARLIER_VERSIONS: usize = 4;

/// Files read and outlined so far.
#[derive(Debug, Default)]
pub struct OutlineCache {
    entries: Mutex<HashMap<Key, Entry>>,
    parses: AtomicUsize,
    versions: AtomicU64,
    /// The persistent cache's directory, consulted when it exists.
    disk: Option<PathBuf>,
    /// The persistent cache as last opened (reopened when the options
    /// differ or another run has put a new pack in place).
    opened: Mutex<Option<DiskCache>>,
    /// Entries written to the persistent cache so far.
    written: AtomicUsize,
}

impl OutlineCache {
    /// A cache that also consults the persistent cache in `dir` (when that
    /// exists).
    pub fn with_disk(dir: PathBuf) -> OutlineCache {
        OutlineCache {
            disk: Some(dir),
            ..OutlineCache::default()
        }
    }

    /// The persistent cache for `options`, when its directory exists: the one
    /// opened before while it still fits, else opened again.
    fn disk_cache(&self, options: &OutlineOptions) -> Option<DiskCache> {
        let dir = self.disk.as_deref()?;
        let mut opened = self.opened.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(cache) = opened.as_ref()
            && cache.is_for(options)
            && cache.pack_is_current()
        {
            return Some(cache.clone());
        }
        *opened = DiskCache::existing(dir, options);
        opened.clone()
    }

    /// The file at `real` (named `display` in ids), outlined with `options`:
    /// read again, and parsed again only when its text differs from the
    /// cached one (the cached version is then remembered as an earlier one).
    ///
    /// # Errors
    /// The [`Error`] of reading the file (missing, not a regular file, binary).
    pub fn get(
        &self,
        real: &Path,
        display: &str,
        options: &OutlineOptions,
    ) -> Result<Arc<Parsed>, Error> {
        let key = Key {
            real: real.to_owned(),
            display: display.to_owned(),
            block_threshold: options.block_threshold,
        };
        let language = Language::from_path(display);
        let (bytes, meta) = SourceText::read_bytes(real, ast_outline::DEFAULT_MAX_FILE_SIZE)
            .map_err(|error| named(error, display))?;
        let stamp = Stamp::new(&bytes, Some(&meta));
        let source = SourceText::from_bytes(bytes, language);
        if let Some(entry) = self.lock().get(&key)
            && entry.parsed.source.text == source.text
        {
            return Ok(Arc::clone(&entry.parsed));
        }
        let disk = self.disk_cache(options);
        let stored = disk.as_ref().and_then(|disk| {
            let json = disk.get(display, real, &stamp)?;
            serde_json::from_str::<FileOutline>(&json).ok()
        });
        let outline = match (language, stored) {
            (Some(_), Some(stored)) => Some(stored),
            (language, _) => {
                self.parses.fetch_add(1, Ordering::Relaxed);
                let outline = language.map(|language| source.outline(display, language, options));
                // A worker's failure is never kept on disk: it may come
                // from this process's limits or load (ast_outline::supervise).
                if let (Some(disk), Some(outline)) = (&disk, &outline)
                    && !ast_outline::supervise::failed_outline(outline)
                    && let Ok(json) = outline_core::json_line(outline)
                {
                    // Writing is a courtesy: a read-only cache is fine.
                    if disk.put(display, real, &stamp, &json, None).is_ok()
                        && (self.written.fetch_add(1, Ordering::Relaxed) + 1)
                            .is_multiple_of(ast_outline::disk_cache::REPACK_LOOSE)
                    {
                        // Entries are written one at a time here: every so
                        // often they are folded into the pack.
                        let _ = disk.fold_loose();
                    }
                }
                outline
            }
        };
        let parsed = Arc::new(Parsed {
            version: self.versions.fetch_add(1, Ordering::Relaxed),
            source,
            outline,
        });
        let mut entries = self.lock();
        let earlier = match entries.remove(&key) {
            Some(mut entry) => {
                entry.earlier.insert(0, entry.parsed);
                entry.earlier.truncate(EARLIER_VERSIONS);
                entry.earlier
            }
            None => Vec::new(),
        };
        entries.insert(
            key,
            Entry {
                parsed: Arc::clone(&parsed),
                earlier,
            },
        );
        Ok(parsed)
    }

    /// The earlier versions of the file at `real` this cache served (under
    /// any display path and block threshold) whose text differs from
    /// `current`'s, newest first, each text once.
    pub fn earlier(&self, real: &Path, current: &Parsed) -> Vec<Arc<Parsed>> {
        let entries = self.lock();
        let mut found: Vec<Arc<Parsed>> = entries
            .iter()
            .filter(|(key, _)| key.real == real)
            .flat_map(|(_, entry)| std::iter::once(&entry.parsed).chain(&entry.earlier))
            .filter(|parsed| parsed.source.text != current.source.text)
            .cloned()
            .collect();
        found.sort_by_key(|parsed| std::cmp::Reverse(parsed.version));
        let mut unique: Vec<Arc<Parsed>> = Vec::new();
        for parsed in found {
            if !unique
                .iter()
                .any(|kept| kept.source.text == parsed.source.text)
            {
                unique.push(parsed);
            }
        }
        unique
    }

    /// How many times a file was read and parsed (not found in the cache).
    pub fn parses(&self) -> usize {
        self.parses.load(Ordering::Relaxed)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<Key, Entry>> {
        // A panic while holding the lock leaves the map whole: keep using it.
        self.entries.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// `error` naming the file by its display path rather than its real path.
fn named(error: Error, display: &str) -> Error {
    let path = PathBuf::from(display);
    match error {
        Error::Io { source, .. } => Error::Io { path, source },
        Error::NotRegularFile { .. } => Error::NotRegularFile { path },
        Error::Binary { .. } => Error::Binary { path },
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_is_parsed_again_only_when_it_changed() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("a.py");
        std::fs::write(&path, "def f():\n    pass\n").expect("write");
        let cache = OutlineCache::default();
        let options = OutlineOptions::default();
        let first = cache.get(&path, "a.py", &options).expect("read");
        let again = cache.get(&path, "a.py", &options).expect("read");
        assert_eq!(cache.parses(), 1);
        assert!(Arc::ptr_eq(&first, &again));

        std::fs::write(&path, "\n\ndef f():\n    pass\n").expect("write");
        let changed = cache.get(&path, "a.py", &options).expect("read");
        assert_eq!(cache.parses(), 2);
        let outline = changed.outline.as_ref().expect("python");
        assert_eq!(outline.symbols[0].id, "a.py:3:f");
    }

    #[test]
    fn an_edit_keeping_the_size_and_modification_time_is_seen() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("a.py");
        std::fs::write(&path, "def f():\n    pass\n").expect("write");
        let modified = std::fs::metadata(&path)
            .and_then(|m| m.modified())
            .expect("mtime");
        let cache = OutlineCache::default();
        let options = OutlineOptions::default();
        let first = cache.get(&path, "a.py", &options).expect("read");
        std::fs::write(&path, "def g():\n    pass\n").expect("write");
        std::fs::File::options()
            .write(true)
            .open(&path)
            .and_then(|file| file.set_modified(modified))
            .expect("restore the modification time");
        let now = cache.get(&path, "a.py", &options).expect("read");
        assert_eq!(now.source.text, "def g():\n    pass\n");
        assert_eq!(
            now.outline.as_ref().expect("python").symbols[0].id,
            "a.py:1:g"
        );
        let earlier = cache.earlier(&path, &now);
        assert_eq!(earlier.len(), 1);
        assert!(Arc::ptr_eq(&earlier[0], &first));
    }

    #[test]
    fn the_persistent_cache_is_consulted_when_it_exists() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("a.py");
        std::fs::write(&path, "def f():\n    pass\n").expect("write");
        let options = OutlineOptions::default();
        let store = dir.path().join(ast_outline::disk_cache::DIR_NAME);
        // No cache directory: parsed, and none is made.
        let first = OutlineCache::with_disk(store.clone());
        first.get(&path, "a.py", &options).expect("read");
        assert_eq!(first.parses(), 1);
        assert!(!store.exists());
        // A cache directory (made bare, as `ast-outline index` makes it):
        // filled by one server, used by the next.
        std::fs::create_dir(&store).expect("mkdir");
        let filling = OutlineCache::with_disk(store.clone());
        let made = filling.get(&path, "a.py", &options).expect("read");
        assert_eq!(filling.parses(), 1);
        let next = OutlineCache::with_disk(store);
        let read = next.get(&path, "a.py", &options).expect("read");
        assert_eq!(next.parses(), 0);
        assert_eq!(read.outline, made.outline);
        assert_eq!(read.source.text, "def f():\n    pass\n");
    }

    #[test]
    fn a_server_folds_its_entries_into_the_pack() {
        let dir = tempfile::tempdir().expect("tempdir");
        let options = OutlineOptions::default();
        let store = dir.path().join(ast_outline::disk_cache::DIR_NAME);
        std::fs::create_dir(&store).expect("mkdir");
        let files = ast_outline::disk_cache::REPACK_LOOSE + 3;
        let server = OutlineCache::with_disk(store.clone());
        for i in 0..files {
            let path = dir.path().join(format!("m{i}.py"));
            std::fs::write(&path, format!("def f{i}():\n    pass\n")).expect("write");
            server
                .get(&path, &format!("m{i}.py"), &options)
                .expect("read");
        }
        assert!(store.join("pack").is_file());
        let loose = std::fs::read_dir(store.join("entries"))
            .expect("entries")
            .filter(|e| {
                e.as_ref()
                    .is_ok_and(|e| !e.file_name().to_string_lossy().starts_with('.'))
            })
            .count();
        assert_eq!(loose, 3);
        // Another server reads them all from the pack and the loose files.
        let next = OutlineCache::with_disk(store);
        for i in 0..files {
            let path = dir.path().join(format!("m{i}.py"));
            next.get(&path, &format!("m{i}.py"), &options)
                .expect("read");
        }
        assert_eq!(next.parses(), 0);
    }

    #[test]
    fn unknown_languages_are_read_without_an_outline() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("notes.txt");
        std::fs::write(&path, "hello\n").expect("write");
        let cache = OutlineCache::default();
        let parsed = cache
            .get(&path, "notes.txt", &OutlineOptions::default())
            .expect("read");
        assert!(parsed.outline.is_none());
        assert_eq!(parsed.source.text, "hello\n");
    }
}
