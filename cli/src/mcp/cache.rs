//! The server's in-memory cache of read and outlined files, keyed by path,
//! modification time and size: a file is read and parsed again only when one
//! of them changed.
//!
//! There is no persistent (on-disk) cache in ast-outline yet; when there is,
//! this cache is the place to consult it before parsing.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::SystemTime;

use outline_core::{FileOutline, Language, OutlineOptions};

use crate::{Error, SourceText};

/// One file as read and outlined.
#[derive(Debug)]
pub struct Parsed {
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
    modified: Option<SystemTime>,
    len: u64,
    parsed: Arc<Parsed>,
}

/// Files read and outlined so far.
#[derive(Debug, Default)]
pub struct OutlineCache {
    entries: Mutex<HashMap<Key, Entry>>,
    parses: AtomicUsize,
}

impl OutlineCache {
    /// The file at `real` (named `display` in ids), outlined with `options`:
    /// from the cache when its modification time and size are those it had
    /// when cached, else read and parsed again.
    ///
    /// # Errors
    /// The [`Error`] of reading the file (missing, not a regular file, binary).
    pub fn get(
        &self,
        real: &Path,
        display: &str,
        options: &OutlineOptions,
    ) -> Result<Arc<Parsed>, Error> {
        let meta = std::fs::metadata(real).map_err(|source| Error::Io {
            path: PathBuf::from(display),
            source,
        })?;
        let (modified, len) = (meta.modified().ok(), meta.len());
        let key = Key {
            real: real.to_owned(),
            display: display.to_owned(),
            block_threshold: options.block_threshold,
        };
        if let Some(entry) = self.lock().get(&key)
            && entry.modified.is_some()
            && entry.modified == modified
            && entry.len == len
        {
            return Ok(Arc::clone(&entry.parsed));
        }
        let language = Language::from_path(display);
        let source = SourceText::read(real, language).map_err(|error| named(error, display))?;
        let outline = language.map(|language| source.outline(display, language, options));
        self.parses.fetch_add(1, Ordering::Relaxed);
        let parsed = Arc::new(Parsed { source, outline });
        self.lock().insert(
            key,
            Entry {
                modified,
                len,
                parsed: Arc::clone(&parsed),
            },
        );
        Ok(parsed)
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
