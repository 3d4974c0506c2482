//! The persistent outline cache: one file per outlined source file, holding
//! that file's outline as the exact JSON line `outline --format json` prints
//! (compressed).
//!
//! Where: `--cache-dir DIR`, or by default `.ast-outline/` in the root of the
//! outlined project: the nearest enclosing directory holding `.ast-outline/`
//! or `.git` (as `.ruff_cache` or `.pytest_cache` sit in a project). A tree
//! that is not inside a project (say the Python standard library) is never
//! written to: its cache is `$XDG_CACHE_HOME/ast-outline/<hash of the
//! directory>` (or `~/.cache/…`), which is also where the cache of a project
//! whose `.ast-outline/` cannot be created (a read-only tree) goes. When
//! neither can be written, ast-outline runs without a cache. The directory holds a `.gitignore` (`*`) and a
//! `CACHEDIR.TAG`, so git and backup tools leave it alone.
//!
//! An entry is named by a hash of the file's display path and absolute path.
//! Its first line records the cache format, the tool's version, the extraction
//! options, the display path, and for each block that follows its xxh3-64
//! hash, length and compressed length (`json=HASH:LEN:PACKED`, then maybe
//! `view=KEY:HASH:LEN:PACKED`); then (after a `|`) the source's size, its
//! xxh3-64 content hash, what the file system said about it (modification
//! and status-change times in nanoseconds, inode and device) and whether that
//! record may be trusted. The blocks, compressed with LZ4 (block format,
//! `lz4_flex`; about a tenth of the bytes), are the JSON line and, maybe, a
//! *view*: the file's output for one set of display options (named by the
//! hash of their description, [`Lookup::add_view`]), so that a run with the
//! same options prints it without rendering.
//!
//! A lookup is in two steps, after git's index (see git's
//! `Documentation/technical/racy-git.txt`):
//! 1. **By file status** ([`Lookup::unchanged`], no read of the
//!    source): a hit when size, both times, inode and device are the ones
//!    recorded and the record is *trusted*. A record is trusted only when the
//!    file's last change was at least [`RACY_SECONDS`] older than the moment
//!    the entry was written, so an edit in the same clock tick as the reading
//!    cannot go unnoticed. Any write to a file sets its status-change time
//!    (`ctime`) to the current time, and no program can set it back, so an
//!    edited file never matches a trusted record, even when its size and
//!    modification time were restored.
//! 2. **By content** ([`Lookup::by_content`], the source read and hashed): a hit
//!    when size and content hash match. So a touched but unchanged file is
//!    still a hit, and its record is then updated so that the next lookup is
//!    by status again; an edited file never is a hit, as its bytes are hashed.
//!
//! Anything unexpected in an entry (a crash mid-write cannot leave one, as
//! entries are written to a temporary file then renamed) makes it a miss, and
//! it is written again.
//!
//! Entries live in two places, after git's loose objects and pack files:
//! - **loose**, one file each in `entries/`, named by the hash;
//! - **packed**, many in the one file `pack` (see the `pack` module), read
//!   with one positioned read each, through an index read once per run.
//!
//! A lookup reads the packed entry first, and the loose one only when the
//! packed one is missing, out of date or lacks the view asked for (a loose
//! entry is always the newer: it was written because the packed one did not
//! do). A run over a tree ([`DiskCache::batch`]) writes its first
//! [`LOOSE_WRITES`] entries loose and the rest into a new pack; at its end
//! ([`DiskCache::finish`]) that pack takes in the loose entries and the
//! entries of the old pack it does not replace, and is renamed over the old
//! one. A run that wrote no pack still folds the loose entries in when there
//! are [`REPACK_LOOSE`] or more. Two runs finishing at once each rename a
//! whole pack, so the last one wins and the other's new entries are made
//! again next time: a lost entry is only a miss. Temporary files older than
//! an hour (left by a killed run) are removed then too.

use std::fmt::Write as _;
use std::fs::Metadata;
use std::io::{Read as _, Write as _};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock, PoisonError};
use std::time::{Duration, SystemTime};

use outline_core::OutlineOptions;

use crate::error::Error;
use xxhash_rust::xxh3::{xxh3_64, xxh3_128};

mod pack;

use pack::{Pack, PackWriter};

/// The name of the cache directory under the root of a tree.
pub const DIR_NAME: &str = ".ast-outline";

/// The version of the entry format; bumped whenever it, or the model's JSON,
/// changes in a way the tool's version would not tell.
const FORMAT: &str = "5";

/// Bytes asked for by the first read of an entry (most are smaller).
const FIRST_READ: usize = 32 * 1024;

/// Bytes read of an entry at most: a larger one is a miss.
const MAX_ENTRY: u64 = 1 << 30;

/// How many entries a run over a tree writes loose before it writes the
/// rest into a new pack (see the module docs).
pub const LOOSE_WRITES: usize = 64;

/// How many loose entries make the end of a run fold them into the pack
/// even when it wrote no pack itself.
pub const REPACK_LOOSE: usize = 256;

/// The pack's file name in the cache directory.
const PACK_NAME: &str = "pack";

/// How old a temporary file left in the cache directory must be before the
/// end of a run removes it (a younger one may be another run's).
const STALE_TEMPORARY: Duration = Duration::from_secs(3600);

/// The first word of every entry.
const MAGIC: &str = "ast-outline-cache";

/// How much older than the entry a file's last change must be for its status
/// record to be trusted (step 1 of the lookup). Two seconds cover the
/// coarsest common timestamp granularity (FAT's two seconds) as well as the
/// kernel's clock tick.
pub const RACY_SECONDS: u64 = 2;

/// The content hash of a source file's bytes, as stored in entries.
pub fn content_hash(bytes: &[u8]) -> u64 {
    xxh3_64(bytes)
}

/// What the file system says about a file: enough to tell, without reading
/// it, that it has not been written since (see the module docs).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FileStatus {
    /// Size in bytes.
    pub size: u64,
    /// Modification time, nanoseconds since the Unix epoch.
    pub mtime_ns: i128,
    /// Status-change time (`ctime`), nanoseconds since the Unix epoch.
    pub ctime_ns: i128,
    /// Inode number.
    pub inode: u64,
    /// Device number.
    pub device: u64,
}

impl FileStatus {
    /// The status in `meta`; `None` where the platform has no `ctime` and
    /// inode (then every lookup is by content).
    #[cfg(unix)]
    pub fn of(meta: &Metadata) -> Option<FileStatus> {
        use std::os::unix::fs::MetadataExt as _;
        let ns = |secs: i64, nanos: i64| i128::from(secs) * 1_000_000_000 + i128::from(nanos);
        Some(FileStatus {
            size: meta.len(),
            mtime_ns: ns(meta.mtime(), meta.mtime_nsec()),
            ctime_ns: ns(meta.ctime(), meta.ctime_nsec()),
            inode: meta.ino(),
            device: meta.dev(),
        })
    }

    /// The status in `meta`; `None` where the platform has no `ctime` and
    /// inode (then every lookup is by content).
    #[cfg(not(unix))]
    pub fn of(_meta: &Metadata) -> Option<FileStatus> {
        None
    }

    /// The record stored in an entry: `MTIME CTIME INODE DEVICE`.
    fn record(&self) -> String {
        format!(
            "{}:{}:{}:{}",
            self.mtime_ns, self.ctime_ns, self.inode, self.device
        )
    }

    /// Whether the file's last change is at least [`RACY_SECONDS`] before
    /// `now`.
    fn settled_at(&self, now: SystemTime) -> bool {
        let Ok(now) = now.duration_since(SystemTime::UNIX_EPOCH) else {
            return false;
        };
        let last_change = self.mtime_ns.max(self.ctime_ns);
        let margin = i128::from(RACY_SECONDS) * 1_000_000_000;
        last_change.saturating_add(margin) <= i128::try_from(now.as_nanos()).unwrap_or(i128::MAX)
    }
}

/// What identifies one version of one source file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stamp {
    /// Size in bytes.
    pub size: u64,
    /// [`content_hash`] of its bytes.
    pub hash: u64,
    /// The file's status as it was before its bytes were read, when known.
    pub status: Option<FileStatus>,
}

impl Stamp {
    /// The stamp of `bytes`, read from a file whose metadata (taken before
    /// reading) was `meta`.
    pub fn new(bytes: &[u8], meta: Option<&Metadata>) -> Stamp {
        Stamp {
            size: bytes.len() as u64,
            hash: content_hash(bytes),
            status: meta
                .and_then(FileStatus::of)
                .filter(|status| status.size == bytes.len() as u64),
        }
    }
}

/// The part of an entry's header after the `|`, parsed.
#[derive(Debug, PartialEq, Eq)]
struct Recorded<'a> {
    size: u64,
    hash: u64,
    status: &'a str,
    trusted: bool,
}

impl<'a> Recorded<'a> {
    /// The record as written after the `|`.
    fn text(&self) -> String {
        format!(
            "size={} hash={:016x} status={} trusted={}",
            self.size,
            self.hash,
            self.status,
            u8::from(self.trusted)
        )
    }

    fn parse(text: &'a str) -> Option<Recorded<'a>> {
        let mut size = None;
        let mut hash = None;
        let mut status = None;
        let mut trusted = None;
        for field in text.split(' ') {
            let (key, value) = field.split_once('=')?;
            match key {
                "size" => size = value.parse().ok(),
                "hash" => hash = u64::from_str_radix(value, 16).ok(),
                "status" => status = Some(value),
                "trusted" => trusted = Some(value == "1"),
                _ => return None,
            }
        }
        Some(Recorded {
            size: size?,
            hash: hash?,
            status: status?,
            trusted: trusted?,
        })
    }
}

/// One compressed part of an entry: the JSON line, or a view.
#[derive(Debug, Clone, Copy)]
struct Block<'b> {
    /// xxh3-64 of the uncompressed text.
    hash: u64,
    /// Length of the uncompressed text in bytes.
    len: usize,
    /// The text compressed with LZ4 (block format).
    packed: &'b [u8],
}

impl<'b> Block<'b> {
    /// `HASH:LEN:PACKED_LEN` as written in the header.
    fn spec(&self) -> String {
        format!("{:016x}:{}:{}", self.hash, self.len, self.packed.len())
    }

    /// The block described by `spec` (`HASH:LEN:PACKED_LEN`) at the start of
    /// `rest`, and what follows it.
    fn parse(spec: &str, rest: &'b [u8]) -> Option<(Block<'b>, &'b [u8])> {
        let mut parts = spec.split(':');
        let hash = u64::from_str_radix(parts.next()?, 16).ok()?;
        let len: usize = parts.next()?.parse().ok()?;
        let packed_len: usize = parts.next()?.parse().ok()?;
        parts.next().is_none().then_some(())?;
        // LZ4 expands at most 255 times: a larger claim is a damaged entry
        // (and must not decide how much memory is asked for).
        (len <= packed_len.saturating_mul(255)).then_some(())?;
        let packed = rest.get(..packed_len)?;
        Some((Block { hash, len, packed }, rest.get(packed_len..)?))
    }

    /// The text, when it unpacks to the recorded length and checksum.
    fn unpack(&self) -> Option<String> {
        // `decompress` fills a fresh buffer without zeroing it first; with
        // the `checked-decode` feature a damaged block is an error, never a
        // read or write out of bounds.
        // One byte more than the text, for the newline the caller may add.
        let text = lz4_flex::block::decompress(self.packed, self.len.saturating_add(1)).ok()?;
        (text.len() == self.len && xxh3_64(&text) == self.hash).then_some(())?;
        String::from_utf8(text).ok()
    }
}

/// One entry, read: its status record, its JSON line and maybe one view, still
/// compressed.
struct Entry<'b> {
    recorded: Recorded<'b>,
    json: Block<'b>,
    /// The hash of the view's key, and the view.
    view: Option<(u64, Block<'b>)>,
}

/// What a lookup found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Hit {
    /// The view asked for: the file's output for those display options,
    /// ready to print.
    View(String),
    /// The file's JSON line (without its newline), when no view was asked for
    /// or the entry holds another one.
    Json(String),
}

/// A cache directory that can be read (and usually written).
#[derive(Debug, Clone)]
pub struct DiskCache {
    /// The cache directory (holding `entries/` and `pack`).
    dir: PathBuf,
    entries: PathBuf,
    options: String,
    /// The working directory, to make relative paths absolute (asked once).
    cwd: Option<PathBuf>,
    /// The pack as it was when the cache was opened.
    pack: Option<Arc<Pack>>,
    /// Set for a run over a tree: where its entries go.
    batch: Option<Arc<Batch>>,
    /// The tree this cache is for, when opened by [`DiskCache::for_tree`]
    /// (absolute).
    root: Option<PathBuf>,
}

/// What names an entry: a hash of the file's display path and absolute path
/// (`entry`: two spellings of one file's path have two entries, as the
/// display path is in the outline), and a shorter hash of the absolute path
/// alone (`file`: what a run over the whole tree checks to tell an entry of
/// a file still there).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
struct Key {
    entry: u128,
    file: u32,
}

/// What a run over a tree has written so far.
#[derive(Debug, Default)]
struct Batch {
    /// Entries written (loose or into the new pack).
    written: AtomicUsize,
    /// The new pack, once [`LOOSE_WRITES`] entries were written loose.
    writer: Mutex<Option<PackWriter>>,
    /// For a run over the cache's whole tree: the file hash ([`Key`]) of
    /// every file looked up. An entry of any other file is of a file no
    /// longer there, and is left out of the next pack.
    seen: Option<Mutex<std::collections::HashSet<u32>>>,
}

impl DiskCache {
    /// Opens (creating it if needed) the cache in `dir`, for outlines made
    /// with `options`.
    ///
    /// # Errors
    /// When `dir` cannot be created or is not writable.
    pub fn open(dir: &Path, options: &OutlineOptions) -> std::io::Result<DiskCache> {
        let entries = dir.join("entries");
        refuse_link(&entries)?;
        std::fs::create_dir_all(&entries)?;
        refuse_link(&entries)?;
        prepare_dir(dir)?;
        // Check now that entries can be written, so that a read-only place is
        // found before any work is done.
        tempfile::NamedTempFile::new_in(&entries)?;
        Ok(DiskCache::at(dir, entries, options))
    }

    fn at(dir: &Path, entries: PathBuf, options: &OutlineOptions) -> DiskCache {
        DiskCache {
            dir: dir.to_owned(),
            entries,
            options: options_key(options),
            cwd: std::env::current_dir().ok(),
            pack: Pack::open(&dir.join(PACK_NAME)).map(Arc::new),
            batch: None,
            root: None,
        }
    }

    /// This cache, for a run over the trees and files `paths`: most new
    /// entries go into a new pack, which [`DiskCache::finish`] puts in place
    /// (see the module docs). When `paths` is the one tree the cache is for
    /// ([`DiskCache::for_tree`]), that pack also leaves out the entries this
    /// run did not look up: those of files since deleted or renamed.
    #[must_use]
    pub fn batch(mut self, paths: &[PathBuf]) -> DiskCache {
        let whole_tree = match (&self.root, paths) {
            (Some(root), [path]) => std::path::absolute(path).is_ok_and(|p| p == *root),
            _ => false,
        };
        self.batch = Some(Arc::new(Batch {
            seen: whole_tree.then(Mutex::default),
            ..Batch::default()
        }));
        self
    }

    /// Ends a run over a tree ([`DiskCache::batch`]): puts the new pack in
    /// place, with the loose entries and the old pack's other entries, when
    /// the run wrote one or when there are [`REPACK_LOOSE`] loose entries or
    /// more; removes stale temporary files. Does nothing for a cache that is
    /// not a batch.
    ///
    /// # Errors
    /// When the pack cannot be written (the old one is then left as it was).
    pub fn finish(&self) -> std::io::Result<()> {
        let Some(batch) = &self.batch else {
            return Ok(());
        };
        let writer = batch
            .writer
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take();
        let loose = self.loose_keys();
        if writer.is_none() && loose.len() < REPACK_LOOSE {
            self.remove_stale_temporaries();
            return Ok(());
        }
        let seen = batch
            .seen
            .as_ref()
            .map(|seen| std::mem::take(&mut *seen.lock().unwrap_or_else(PoisonError::into_inner)));
        self.repack(writer, loose, seen.as_ref())?;
        self.remove_stale_temporaries();
        Ok(())
    }

    /// For a cache filled one entry at a time (the MCP server): folds the
    /// loose entries into the pack when there are [`REPACK_LOOSE`] of them
    /// or more, and at least a quarter as many as the pack holds (so the
    /// pack is copied a bounded number of times as it grows). Returns
    /// whether it did.
    ///
    /// # Errors
    /// When the pack cannot be written (the old one is then left as it was).
    pub fn fold_loose(&self) -> std::io::Result<bool> {
        let loose = self.loose_keys();
        let packed = self.pack.as_ref().map_or(0, |pack| pack.len());
        if loose.len() < REPACK_LOOSE.max(packed / 4) {
            return Ok(false);
        }
        let writer = PackWriter::new_in(&self.dir)?;
        self.repack(Some(writer), loose, None)?;
        self.remove_stale_temporaries();
        Ok(true)
    }

    /// Whether the pack read when this cache was opened is still the one in
    /// place (false once another run has put a new one there).
    pub fn pack_is_current(&self) -> bool {
        let now = std::fs::symlink_metadata(self.dir.join(PACK_NAME))
            .ok()
            .and_then(|meta| FileStatus::of(&meta));
        now == self.pack.as_ref().and_then(|pack| pack.status)
    }

    /// Whether this cache is for outlines made with `options`.
    pub fn is_for(&self, options: &OutlineOptions) -> bool {
        self.options == options_key(options)
    }

    /// Writes the new pack: `writer`'s entries, then the loose entries
    /// `loose`, then the old pack's entries, each key once and the first
    /// found kept; with `seen`, only entries of those files. Removes the
    /// loose entries it took in.
    fn repack(
        &self,
        writer: Option<PackWriter>,
        loose: Vec<Key>,
        seen: Option<&std::collections::HashSet<u32>>,
    ) -> std::io::Result<()> {
        let mut writer = match writer {
            Some(writer) => writer,
            None => PackWriter::new_in(&self.dir)?,
        };
        let mut taken: std::collections::HashSet<u128> = writer.keys().collect();
        let wanted = |file: u32| seen.is_none_or(|seen| seen.contains(&file));
        let mut folded = Vec::new();
        for key in loose {
            // A loose entry replaced by one this run packed, or of a file no
            // longer there, is only removed.
            if !taken.contains(&key.entry)
                && wanted(key.file)
                && let Ok(bytes) = self.read_loose(key)
            {
                writer.add(key.entry, key.file, &[&bytes])?;
                taken.insert(key.entry);
            }
            folded.push(key);
        }
        if let Some(pack) = &self.pack {
            for slot in pack.slots() {
                if !taken.contains(&slot.key)
                    && wanted(slot.file)
                    && let Some(bytes) = pack.read(slot)
                {
                    writer.add(slot.key, slot.file, &[&bytes])?;
                }
            }
        }
        let pack = self.dir.join(PACK_NAME);
        clear_directory(&pack);
        writer.finish(&pack)?;
        for key in folded {
            let _ = std::fs::remove_file(self.loose_path(key));
        }
        Ok(())
    }

    /// The keys of the loose entries (file names that are not keys, such as
    /// temporary files, are left out).
    fn loose_keys(&self) -> Vec<Key> {
        let Ok(listing) = std::fs::read_dir(&self.entries) else {
            return Vec::new();
        };
        listing
            .filter_map(|entry| {
                let name = entry.ok()?.file_name();
                let (entry, file) = name.to_str()?.split_once('-')?;
                (entry.len() == 32 && file.len() == 8).then_some(())?;
                Some(Key {
                    entry: u128::from_str_radix(entry, 16).ok()?,
                    file: u32::from_str_radix(file, 16).ok()?,
                })
            })
            .collect()
    }

    /// Removes temporary files older than [`STALE_TEMPORARY`] from the cache
    /// directory and `entries/` (what a killed run leaves).
    fn remove_stale_temporaries(&self) {
        let now = SystemTime::now();
        for dir in [&self.dir, &self.entries] {
            let Ok(listing) = std::fs::read_dir(dir) else {
                continue;
            };
            for entry in listing.flatten() {
                let stale = entry.file_name().to_string_lossy().starts_with(".tmp")
                    && entry.metadata().is_ok_and(|meta| {
                        meta.is_file()
                            && meta
                                .modified()
                                .ok()
                                .and_then(|t| now.duration_since(t).ok())
                                .is_some_and(|age| age > STALE_TEMPORARY)
                    });
                if stale {
                    let _ = std::fs::remove_file(entry.path());
                }
            }
        }
    }

    /// The cache in `dir` when that directory exists (and is not a link), for
    /// outlines made with `options`; `entries/` is made in it when missing.
    pub fn existing(dir: &Path, options: &OutlineOptions) -> Option<DiskCache> {
        let entries = dir.join("entries");
        if refuse_link(dir).is_err() || refuse_link(&entries).is_err() || !dir.is_dir() {
            return None;
        }
        // Filled when it can be written (`entries/` made if missing, as
        // `ast-outline index` makes the directory without it); read only
        // otherwise.
        DiskCache::open(dir, options).ok().or_else(|| {
            entries
                .is_dir()
                .then(|| DiskCache::at(dir, entries, options))
        })
    }

    /// The cache for the tree at `dir` (a directory): `.ast-outline/` under
    /// its project root, else the user cache directory (see the module docs).
    /// `None` when neither can be written.
    pub fn for_tree(dir: &Path, options: &OutlineOptions) -> Option<DiskCache> {
        let root = match tree_root(dir) {
            Some(root) => {
                // A `.ast-outline` link (say, committed to the repository)
                // is never followed: it could point anywhere.
                let dir = root.join(DIR_NAME);
                if refuse_link(&dir).is_ok()
                    && let Ok(mut cache) = DiskCache::open(&dir, options)
                {
                    cache.root = Some(root);
                    return Some(cache);
                }
                root
            }
            None => std::path::absolute(dir).unwrap_or_else(|_| dir.to_owned()),
        };
        let user = user_cache_dir()?;
        let name = format!("{:032x}", xxh3_128(root.to_string_lossy().as_bytes()));
        let mut cache = DiskCache::open(&user.join("ast-outline").join(name), options).ok()?;
        cache.root = Some(root);
        Some(cache)
    }

    /// The entry of the file shown as `display` and read from `path`, read
    /// once for both steps of a lookup (see the module docs).
    pub fn lookup<'c>(&'c self, display: &'c str, path: &'c Path) -> Lookup<'c> {
        let key = self.entry_key(display, path);
        if let Some(seen) = self.batch.as_ref().and_then(|b| b.seen.as_ref()) {
            seen.lock()
                .unwrap_or_else(PoisonError::into_inner)
                .insert(key.file);
        }
        Lookup {
            cache: self,
            display,
            path,
            key,
            packed: self.pack.as_ref().and_then(|pack| pack.get(key.entry)),
            loose: OnceLock::new(),
            used: std::cell::Cell::new(None),
        }
    }

    /// Step 1 of a lookup alone, for the JSON line: see [`Lookup::unchanged`].
    pub fn get_unchanged(&self, display: &str, path: &Path, meta: &Metadata) -> Option<String> {
        self.lookup(display, path)
            .unchanged(meta, None)
            .and_then(Hit::into_json)
    }

    /// Step 2 of a lookup alone, for the JSON line: see [`Lookup::by_content`].
    pub fn get(&self, display: &str, path: &Path, stamp: &Stamp) -> Option<String> {
        self.lookup(display, path)
            .by_content(stamp, None)
            .and_then(Hit::into_json)
    }

    /// Stores `json` (one line, `json_line` of the file's outline) for the
    /// file shown as `display`, read from `path`, whose bytes had `stamp`;
    /// with `view` = (key, text), also the file's output for the display
    /// options named by key.
    ///
    /// # Errors
    /// When the entry cannot be written.
    pub fn put(
        &self,
        display: &str,
        path: &Path,
        stamp: &Stamp,
        json: &str,
        view: Option<(&str, &str)>,
    ) -> std::io::Result<()> {
        self.put_at(display, path, stamp, json, view, SystemTime::now())
    }

    /// [`DiskCache::put`], as if the time were `now` (which decides whether
    /// the status record is trusted).
    fn put_at(
        &self,
        display: &str,
        path: &Path,
        stamp: &Stamp,
        json: &str,
        view: Option<(&str, &str)>,
        now: SystemTime,
    ) -> std::io::Result<()> {
        let packed_json = lz4_flex::block::compress(json.as_bytes());
        let packed_view =
            view.map(|(key, text)| (key, text, lz4_flex::block::compress(text.as_bytes())));
        self.write_entry(
            display,
            path,
            &record(stamp, now),
            block(json, &packed_json),
            packed_view
                .as_ref()
                .map(|(key, text, packed)| (xxh3_64(key.as_bytes()), block(text, packed))),
        )
    }

    /// Writes an entry from its parts (a temporary file, then a rename).
    fn write_entry(
        &self,
        display: &str,
        path: &Path,
        record: &str,
        json: Block<'_>,
        view: Option<(u64, Block<'_>)>,
    ) -> std::io::Result<()> {
        let mut header = self.fixed_prefix(display);
        let _ = write!(header, "json={} ", json.spec());
        if let Some((key, view)) = &view {
            let _ = write!(header, "view={key:016x}:{} ", view.spec());
        }
        let _ = writeln!(header, "|{record}");
        let parts = [
            header.as_bytes(),
            json.packed,
            view.as_ref().map_or(&[][..], |(_, view)| view.packed),
        ];
        let key = self.entry_key(display, path);
        if let Some(batch) = &self.batch
            && batch.written.fetch_add(1, Ordering::Relaxed) >= LOOSE_WRITES
        {
            let mut writer = batch.writer.lock().unwrap_or_else(PoisonError::into_inner);
            if writer.is_none() {
                *writer = Some(PackWriter::new_in(&self.dir)?);
            }
            if let Some(writer) = writer.as_mut() {
                return writer.add(key.entry, key.file, &parts);
            }
        }
        let mut file = tempfile::NamedTempFile::new_in(&self.entries)?;
        for part in parts {
            file.write_all(part)?;
        }
        let target = self.loose_path(key);
        clear_directory(&target);
        file.persist(target).map_err(|e| e.error)?;
        Ok(())
    }

    /// The bytes of the loose entry with `key`.
    fn read_loose(&self, key: Key) -> std::io::Result<Vec<u8>> {
        let mut file = open_entry(&self.loose_path(key))?;
        // Most entries fit one read, and a short read of a regular file is
        // its end, so no second read (nor a size query) is made for them. Were
        // it not the end, the blocks' lengths and checksums would not match: a
        // miss, never a wrong hit.
        let mut bytes = vec![0; FIRST_READ];
        let read = file.read(&mut bytes)?;
        bytes.truncate(read);
        if read == FIRST_READ {
            // A longer entry is read up to the length its header gives, and
            // no further: something that is not an entry (a large file put
            // in its place) is not read past its first block.
            let Some(len) = declared_len(&bytes).filter(|&len| len as u64 <= MAX_ENTRY) else {
                return Ok(bytes);
            };
            let rest = len.saturating_sub(bytes.len()) as u64;
            file.take(rest).read_to_end(&mut bytes)?;
        }
        Ok(bytes)
    }

    /// The entry in `bytes`, when its header is well formed, its fixed part
    /// is the one expected for `display` and its blocks are all there (they
    /// are not unpacked yet).
    fn parse_entry<'b>(&self, display: &str, bytes: &'b [u8]) -> Option<Entry<'b>> {
        let newline = bytes.iter().position(|&b| b == b'\n')?;
        let header = std::str::from_utf8(bytes.get(..newline)?).ok()?;
        let rest = bytes.get(newline + 1..)?;
        let (fixed, recorded) = header.rsplit_once('|')?;
        let mut specs = self
            .strip_fixed_prefix(fixed, display)?
            .strip_suffix(' ')?
            .split(' ');
        let (json, rest) = Block::parse(specs.next()?.strip_prefix("json=")?, rest)?;
        let (view, rest) = match specs.next() {
            None => (None, rest),
            Some(spec) => {
                let (key, spec) = spec.strip_prefix("view=")?.split_once(':')?;
                let key = u64::from_str_radix(key, 16).ok()?;
                let (view, rest) = Block::parse(spec, rest)?;
                (Some((key, view)), rest)
            }
        };
        (specs.next().is_none() && rest.is_empty()).then_some(())?;
        Some(Entry {
            recorded: Recorded::parse(recorded)?,
            json,
            view,
        })
    }

    /// The part of an entry's first line that must be equal for the entry to
    /// be read at all, up to the blocks' descriptions.
    /// `header` without [`DiskCache::fixed_prefix`], when it starts with it;
    /// without building the prefix for the usual display path (printable
    /// ASCII, nothing `Debug` escapes or the prefix leaves out).
    fn strip_fixed_prefix<'h>(&self, header: &'h str, display: &str) -> Option<&'h str> {
        let plain = display
            .bytes()
            .all(|b| (b' '..=b'~').contains(&b) && !matches!(b, b'"' | b'\\' | b'|'));
        if !plain {
            return header.strip_prefix(&self.fixed_prefix(display));
        }
        header
            .strip_prefix(MAGIC)?
            .strip_prefix(' ')?
            .strip_prefix(FORMAT)?
            .strip_prefix(' ')?
            .strip_prefix(env!("CARGO_PKG_VERSION"))?
            .strip_prefix(' ')?
            .strip_prefix(self.options.as_str())?
            .strip_prefix(" path=\"")?
            .strip_prefix(display)?
            .strip_prefix("\" ")
    }

    fn fixed_prefix(&self, display: &str) -> String {
        let mut prefix = format!(
            "{MAGIC} {FORMAT} {} {} path={display:?} ",
            env!("CARGO_PKG_VERSION"),
            self.options,
        );
        prefix.retain(|c| c != '\n' && c != '|');
        prefix
    }

    /// The key of the entry of the file shown as `display` and read from
    /// `path`.
    fn entry_key(&self, display: &str, path: &Path) -> Key {
        // Absolute, without `.` components: `./src/a.py` run from the root
        // and the MCP server's `/root/src/a.py` name the same entry.
        let absolute: PathBuf = match &self.cwd {
            Some(cwd) if path.is_relative() => cwd.join(path),
            _ => path.to_owned(),
        }
        .components()
        .filter(|c| *c != std::path::Component::CurDir)
        .collect();
        let absolute = absolute.to_string_lossy();
        let mut key = display.as_bytes().to_vec();
        key.push(0);
        key.extend_from_slice(absolute.as_bytes());
        // `..` taken away by name only, for the file's hash: it only tells
        // whether a file was seen, never which entry is read.
        let mut file = PathBuf::new();
        for component in Path::new(absolute.as_ref()).components() {
            match component {
                std::path::Component::ParentDir => {
                    file.pop();
                }
                other => file.push(other),
            }
        }
        Key {
            entry: xxh3_128(&key),
            file: xxh3_64(file.to_string_lossy().as_bytes()) as u32,
        }
    }

    /// A loose entry's file: `ENTRY-FILE` in hex.
    fn loose_path(&self, key: Key) -> PathBuf {
        self.entries
            .join(format!("{:032x}-{:08x}", key.entry, key.file))
    }
}

/// One file's entries, read from the cache (or found missing): the packed
/// one, and the loose one when the packed one does not do.
#[derive(Debug)]
pub struct Lookup<'c> {
    cache: &'c DiskCache,
    display: &'c str,
    path: &'c Path,
    key: Key,
    /// The packed entry's bytes.
    packed: Option<Vec<u8>>,
    /// The loose entry's bytes, read when first needed.
    loose: OnceLock<Option<Vec<u8>>>,
    /// Which of the two the last hit came from.
    used: std::cell::Cell<Option<Place>>,
}

/// Where an entry was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Place {
    Packed,
    Loose,
}

impl Lookup<'_> {
    /// Step 1: when an entry holds a trusted status record equal to
    /// `meta`'s, the file's metadata now (it has not been written since it
    /// was outlined), the view named by `view` if the entry holds it, else
    /// the JSON line. The source need not be read.
    pub fn unchanged(&self, meta: &Metadata, view: Option<&str>) -> Option<Hit> {
        let status = FileStatus::of(meta)?;
        let record = status.record();
        let entry = self.find(view, |recorded| {
            recorded.trusted && recorded.size == status.size && recorded.status == record
        })?;
        hit(&entry, view)
    }

    /// Step 2: when an entry matches `stamp`'s size and content hash, the
    /// view named by `view` if the entry holds it, else the JSON line. When
    /// the entry's status record is out of date (the file was touched), the
    /// entry is written again with the new one, so the next lookup is by
    /// status; a failure to do so is ignored.
    pub fn by_content(&self, stamp: &Stamp, view: Option<&str>) -> Option<Hit> {
        let entry = self.find(view, |recorded| {
            recorded.size == stamp.size && recorded.hash == stamp.hash
        })?;
        let recorded = &entry.recorded;
        let found = hit(&entry, view)?;
        let now = SystemTime::now();
        if recorded.status != status_record(stamp) || recorded.trusted != trusted(stamp, now) {
            let _ = self.cache.write_entry(
                self.display,
                self.path,
                &record(stamp, now),
                entry.json,
                entry.view,
            );
        }
        Some(found)
    }

    /// Adds the view named by `key` (the file's output for those display
    /// options) to the entry that was found, replacing any other view, with
    /// `stamp`'s status record when one was made (step 2) or the entry's own.
    /// A failure is ignored: the view is made again next time.
    pub fn add_view(&self, key: &str, text: &str, stamp: Option<&Stamp>) {
        let Some(entry) = self.used.get().and_then(|place| self.entry(place)) else {
            return;
        };
        let record = match stamp {
            Some(stamp) => record(stamp, SystemTime::now()),
            None => entry.recorded.text(),
        };
        let packed = lz4_flex::block::compress(text.as_bytes());
        let _ = self.cache.write_entry(
            self.display,
            self.path,
            &record,
            entry.json,
            Some((xxh3_64(key.as_bytes()), block(text, &packed))),
        );
    }

    /// The entry to use among those whose record `matches`: the packed one
    /// when it holds the view asked for (or none is asked for), else the
    /// loose one when it does, else whichever matches (packed first).
    fn find(
        &self,
        view: Option<&str>,
        matches: impl Fn(&Recorded<'_>) -> bool,
    ) -> Option<Entry<'_>> {
        let wanted = view.map(|key| xxh3_64(key.as_bytes()));
        let has_view = |entry: &Entry<'_>| {
            wanted.is_none_or(|key| entry.view.is_some_and(|(stored, _)| stored == key))
        };
        let mut fallback = None;
        for place in [Place::Packed, Place::Loose] {
            let Some(entry) = self.entry(place).filter(|e| matches(&e.recorded)) else {
                continue;
            };
            if has_view(&entry) {
                self.used.set(Some(place));
                return Some(entry);
            }
            fallback = fallback.or(Some((place, entry)));
        }
        let (place, entry) = fallback?;
        self.used.set(Some(place));
        Some(entry)
    }

    fn entry(&self, place: Place) -> Option<Entry<'_>> {
        let bytes = match place {
            Place::Packed => self.packed.as_deref()?,
            Place::Loose => self
                .loose
                .get_or_init(|| self.cache.read_loose(self.key).ok())
                .as_deref()?,
        };
        self.cache.parse_entry(self.display, bytes)
    }
}

impl Hit {
    /// The JSON line, if this is one.
    pub fn into_json(self) -> Option<String> {
        match self {
            Hit::Json(json) => Some(json),
            Hit::View(_) => None,
        }
    }
}

/// Removes the directory at `path` (inside the cache), if one is there where
/// a file is to be renamed: a rename cannot replace it, and nothing of ours
/// is ever a directory there. A link or file is left (a rename replaces it;
/// a link is never followed).
fn clear_directory(path: &Path) {
    if std::fs::symlink_metadata(path).is_ok_and(|meta| meta.is_dir()) {
        let _ = std::fs::remove_dir_all(path);
    }
}

/// The length in bytes of the entry that starts with `bytes`, as its header
/// line declares it (the header, then the compressed blocks whose lengths
/// are the last field of each block's description); `None` when `bytes`
/// holds no header line of that shape. Only a read size: the entry is
/// checked in full when parsed.
fn declared_len(bytes: &[u8]) -> Option<usize> {
    let newline = bytes.iter().position(|&b| b == b'\n')?;
    let header = std::str::from_utf8(bytes.get(..newline)?).ok()?;
    let (fixed, _) = header.rsplit_once('|')?;
    let mut total = newline + 1;
    // From the end: `view=…` maybe, then `json=…` (a path with spaces,
    // earlier in the line, is never reached).
    for spec in fixed.strip_suffix(' ')?.rsplit(' ') {
        let packed: usize = spec.rsplit(':').next()?.parse().ok()?;
        total = total.checked_add(packed)?;
        if spec.starts_with("json=") {
            return Some(total);
        }
        spec.starts_with("view=").then_some(())?;
    }
    None
}

/// The view named by `view` from `entry` when it holds it, else its JSON
/// line; `None` when the block to use is damaged.
fn hit(entry: &Entry<'_>, view: Option<&str>) -> Option<Hit> {
    if let Some(key) = view
        && let Some((stored, block)) = &entry.view
        && *stored == xxh3_64(key.as_bytes())
    {
        return block.unpack().map(Hit::View);
    }
    entry.json.unpack().map(Hit::Json)
}

/// The block of `text`, whose compressed form is `packed`.
fn block<'b>(text: &str, packed: &'b [u8]) -> Block<'b> {
    Block {
        hash: xxh3_64(text.as_bytes()),
        len: text.len(),
        packed,
    }
}

/// The status record of an entry written at `now` for a file of `stamp`.
fn record(stamp: &Stamp, now: SystemTime) -> String {
    format!(
        "size={} hash={:016x} status={} trusted={}",
        stamp.size,
        stamp.hash,
        status_record(stamp),
        u8::from(trusted(stamp, now)),
    )
}

/// The status record of `stamp` as stored (`-` when unknown).
fn status_record(stamp: &Stamp) -> String {
    stamp
        .status
        .map_or_else(|| "-".to_owned(), |status| status.record())
}

/// Whether `stamp`'s status record may be trusted when written at `now`.
fn trusted(stamp: &Stamp, now: SystemTime) -> bool {
    stamp.status.is_some_and(|status| status.settled_at(now))
}

/// The bytes of the file at `path` (at most `max_bytes`) and its metadata
/// (as it was before reading).
///
/// # Errors
/// As [`crate::SourceText::read_at_most`]: unreadable, not a regular file,
/// too large, or binary.
pub(crate) fn read_source(path: &Path, max_bytes: u64) -> Result<(Vec<u8>, Metadata), Error> {
    crate::SourceText::read_bytes(path, max_bytes)
}

/// Every extraction option, as text (the `Debug` form names each field, so a
/// new option changes the key by itself), then the build of this program (a
/// hash of the sources that decide what an outline holds, from `build.rs`:
/// a rebuilt binary whose extraction changed never reads another build's
/// entries, and copies of one build share them).
fn options_key(options: &OutlineOptions) -> String {
    let mut key = format!("{options:?},build={}", crate::BUILD_ID);
    key.retain(|c| !matches!(c, ' ' | '\n' | '|'));
    key
}

/// The project root of `dir`: the nearest directory from `dir` (made
/// absolute) up that holds `.ast-outline/` or `.git`; `None` outside any
/// project, and when `dir` is a tree that the git repository found ignores
/// (the Python standard library inside pyenv's own checkout, say: not part
/// of that project).
pub fn tree_root(dir: &Path) -> Option<PathBuf> {
    let absolute = std::path::absolute(dir).unwrap_or_else(|_| dir.to_owned());
    for candidate in absolute.ancestors() {
        if candidate.join(DIR_NAME).is_dir() {
            return Some(candidate.to_owned());
        }
        if candidate.join(".git").exists() {
            return (!git_ignores(candidate, &absolute)).then(|| candidate.to_owned());
        }
    }
    None
}

/// Whether the git repository at `root` ignores the directory `dir` (under
/// `root`), by its `.git/info/exclude` and the `.gitignore` files of `root`
/// and of the directories between (git's rules, through the `ignore`
/// crate's matcher; a directory under an ignored one is ignored).
fn git_ignores(root: &Path, dir: &Path) -> bool {
    let Ok(relative) = dir.strip_prefix(root) else {
        return false;
    };
    let mut level = root.to_owned();
    let mut components = relative.components();
    loop {
        let mut builder = ignore::gitignore::GitignoreBuilder::new(&level);
        if level == root {
            builder.add(root.join(".git/info/exclude"));
        }
        builder.add(level.join(".gitignore"));
        // Relative to the matcher's root (an absolute path not under it
        // would make the matcher panic).
        if let Ok(matcher) = builder.build()
            && let Ok(below) = dir.strip_prefix(&level)
            && !below.has_root()
            && matcher.matched_path_or_any_parents(below, true).is_ignore()
        {
            return true;
        }
        match components.next() {
            Some(component) if level.join(component) != dir => level.push(component),
            _ => return false,
        }
    }
}

/// Creates `dir` (ast-outline's directory: the outline cache, the index)
/// when needed, with a `.gitignore` of `*` and a `CACHEDIR.TAG`, so that git
/// and backup tools leave it alone. Neither is written where something
/// already is, not even a link (which would be followed).
///
/// # Errors
/// When `dir` or the two files cannot be made.
pub fn prepare_dir(dir: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    for (name, text) in [
        (".gitignore", "# Made by ast-outline: its cache.\n*\n"),
        (
            "CACHEDIR.TAG",
            "Signature: 8a477f597d28d172789f06886806bc55\n\
             # This file is a cache directory tag created by ast-outline.\n",
        ),
    ] {
        let path = dir.join(name);
        if std::fs::symlink_metadata(&path).is_err() {
            std::fs::write(path, text)?;
        }
    }
    Ok(())
}

/// An error when `path` is a symbolic link (a cache never follows one).
pub fn refuse_link(path: &Path) -> std::io::Result<()> {
    match std::fs::symlink_metadata(path) {
        Ok(meta) if meta.file_type().is_symlink() => Err(std::io::Error::other(format!(
            "{} is a symbolic link; not followed",
            path.display()
        ))),
        _ => Ok(()),
    }
}

/// Opens a cache entry for reading, never through a symbolic link and never
/// waiting (a FIFO put in its place gives nothing to read: a miss).
fn open_entry(path: &Path) -> std::io::Result<std::fs::File> {
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt as _;
        options.custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK);
    }
    options.open(path)
}

fn user_cache_dir() -> Option<PathBuf> {
    std::env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .filter(|p| p.is_absolute())
        .or_else(|| std::env::var_os("HOME").map(|home| PathBuf::from(home).join(".cache")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn stamp_of(path: &Path) -> Stamp {
        let bytes = std::fs::read(path).expect("read");
        let meta = std::fs::metadata(path).expect("meta");
        Stamp::new(&bytes, Some(&meta))
    }

    #[test]
    fn an_entry_is_a_hit_only_for_the_same_bytes_and_options() {
        let dir = tempfile::tempdir().expect("tempdir");
        let options = OutlineOptions::default();
        let cache = DiskCache::open(&dir.path().join(DIR_NAME), &options).expect("open");
        let path = dir.path().join("a.py");
        let stamp = Stamp::new(b"x = 1\n", None);
        assert_eq!(cache.get("a.py", &path, &stamp), None);
        cache
            .put("a.py", &path, &stamp, "{\"x\":1}", None)
            .expect("put");
        assert_eq!(
            cache.get("a.py", &path, &stamp).as_deref(),
            Some("{\"x\":1}")
        );
        let edited = Stamp::new(b"x = 2\n", None);
        assert_eq!(cache.get("a.py", &path, &edited), None);
        assert_eq!(cache.get("b.py", &path, &stamp), None);

        let other = OutlineOptions {
            block_threshold: 7,
            ..OutlineOptions::default()
        };
        let other_cache = DiskCache::open(&dir.path().join(DIR_NAME), &other).expect("open");
        assert_eq!(other_cache.get("a.py", &path, &stamp), None);
    }

    #[cfg(unix)]
    #[test]
    fn the_status_is_trusted_only_for_files_settled_before_the_entry() {
        let dir = tempfile::tempdir().expect("tempdir");
        let cache =
            DiskCache::open(&dir.path().join(DIR_NAME), &OutlineOptions::default()).expect("open");
        let path = dir.path().join("a.py");
        std::fs::write(&path, "x = 1\n").expect("write");
        let stamp = stamp_of(&path);
        let meta = std::fs::metadata(&path).expect("meta");

        // Written in the same moment as the file: racy, so never a hit by
        // status, always by content.
        cache.put("a.py", &path, &stamp, "{}", None).expect("put");
        assert_eq!(cache.get_unchanged("a.py", &path, &meta), None);
        assert_eq!(cache.get("a.py", &path, &stamp).as_deref(), Some("{}"));

        // Written long after the file's last change: a hit by status.
        let later = SystemTime::now() + Duration::from_secs(RACY_SECONDS + 1);
        cache
            .put_at("a.py", &path, &stamp, "{}", None, later)
            .expect("put");
        assert_eq!(
            cache.get_unchanged("a.py", &path, &meta).as_deref(),
            Some("{}")
        );
        assert_eq!(cache.get_unchanged("b.py", &path, &meta), None);

        // Edited to the same size with the modification time put back: the
        // status-change time moved, so not a hit by status; by content, a
        // miss too.
        std::fs::write(&path, "x = 2\n").expect("edit");
        let file = std::fs::File::options()
            .write(true)
            .open(&path)
            .expect("open");
        file.set_modified(meta.modified().expect("mtime"))
            .expect("restore mtime");
        drop(file);
        let edited = std::fs::metadata(&path).expect("meta");
        assert_eq!(edited.modified().ok(), meta.modified().ok());
        assert_eq!(cache.get_unchanged("a.py", &path, &edited), None);
        assert_eq!(cache.get("a.py", &path, &stamp_of(&path)), None);
    }

    /// The loose entries' file names in `cache`.
    fn loose_count(cache: &DiskCache) -> usize {
        cache.loose_keys().len()
    }

    #[cfg(unix)]
    #[test]
    fn a_batch_packs_its_entries_and_a_later_loose_entry_wins() {
        let dir = tempfile::tempdir().expect("tempdir");
        let store = dir.path().join(DIR_NAME);
        let options = OutlineOptions::default();
        let files = LOOSE_WRITES + 10;
        let paths: Vec<PathBuf> = (0..files)
            .map(|i| dir.path().join(format!("m{i}.py")))
            .collect();
        let batch = DiskCache::open(&store, &options).expect("open").batch(&[]);
        for (i, path) in paths.iter().enumerate() {
            let stamp = Stamp::new(format!("x = {i}\n").as_bytes(), None);
            let json = format!("{{\"file\":{i}}}");
            batch
                .put(&format!("m{i}.py"), path, &stamp, &json, None)
                .expect("put");
        }
        // Before the end of the run: the first LOOSE_WRITES are loose, the
        // rest are in the pack being written (not yet in place).
        assert_eq!(loose_count(&batch), LOOSE_WRITES);
        assert!(!store.join(PACK_NAME).exists());
        batch.finish().expect("finish");
        assert_eq!(loose_count(&batch), 0);

        // A new run reads every entry from the pack.
        let cache = DiskCache::open(&store, &options).expect("open");
        assert_eq!(cache.pack.as_ref().map(|p| p.len()), Some(files));
        for (i, path) in paths.iter().enumerate() {
            let stamp = Stamp::new(format!("x = {i}\n").as_bytes(), None);
            let json = format!("{{\"file\":{i}}}");
            let display = format!("m{i}.py");
            let lookup = cache.lookup(&display, path);
            assert_eq!(
                lookup.by_content(&stamp, None).and_then(Hit::into_json),
                Some(json)
            );
            assert_eq!(lookup.used.get(), Some(Place::Packed));
        }

        // Edited: the new entry is loose, and wins over the packed one.
        let edited = Stamp::new(b"x = 'edited'\n", None);
        cache
            .put("m3.py", &paths[3], &edited, "{\"edited\":1}", None)
            .expect("put");
        assert_eq!(loose_count(&cache), 1);
        let lookup = cache.lookup("m3.py", &paths[3]);
        assert_eq!(
            lookup
                .by_content(&edited, None)
                .and_then(Hit::into_json)
                .as_deref(),
            Some("{\"edited\":1}")
        );
        assert_eq!(lookup.used.get(), Some(Place::Loose));
        let old = Stamp::new(b"x = 3\n", None);
        assert_eq!(
            cache
                .lookup("m3.py", &paths[3])
                .by_content(&old, None)
                .and_then(Hit::into_json)
                .as_deref(),
            Some("{\"file\":3}"),
            "the packed entry still answers for the old bytes"
        );

        // A view added to a packed entry goes loose, and is then found.
        let lookup = cache.lookup("m5.py", &paths[5]);
        let stamp = Stamp::new(b"x = 5\n", None);
        assert!(matches!(
            lookup.by_content(&stamp, Some("text")),
            Some(Hit::Json(_))
        ));
        lookup.add_view("text", "m5.py text", None);
        assert!(matches!(
            cache.lookup("m5.py", &paths[5]).by_content(&stamp, Some("text")),
            Some(Hit::View(text)) if text == "m5.py text"
        ));

        // A run that packs nothing leaves few loose entries alone; one
        // with REPACK_LOOSE of them folds them in, keeping the rest.
        let quiet = DiskCache::open(&store, &options).expect("open").batch(&[]);
        quiet.finish().expect("finish");
        assert_eq!(loose_count(&quiet), 2);
        for i in 0..REPACK_LOOSE {
            let stamp = Stamp::new(format!("y = {i}\n").as_bytes(), None);
            cache
                .put(
                    &format!("n{i}.py"),
                    &dir.path().join(format!("n{i}.py")),
                    &stamp,
                    "{}",
                    None,
                )
                .expect("put");
        }
        let folding = DiskCache::open(&store, &options).expect("open").batch(&[]);
        folding.finish().expect("finish");
        assert_eq!(loose_count(&folding), 0);
        let after = DiskCache::open(&store, &options).expect("open");
        assert_eq!(
            after.pack.as_ref().map(|p| p.len()),
            Some(files + REPACK_LOOSE)
        );
        assert_eq!(
            after
                .lookup("m3.py", &paths[3])
                .by_content(&edited, None)
                .and_then(Hit::into_json)
                .as_deref(),
            Some("{\"edited\":1}")
        );
        assert!(matches!(
            after
                .lookup("m5.py", &paths[5])
                .by_content(&stamp, Some("text")),
            Some(Hit::View(_))
        ));
    }

    #[cfg(unix)]
    #[test]
    fn a_damaged_pack_is_a_miss_and_stale_temporary_files_are_removed() {
        let dir = tempfile::tempdir().expect("tempdir");
        let store = dir.path().join(DIR_NAME);
        let options = OutlineOptions::default();
        let path = dir.path().join("a.py");
        let stamp = Stamp::new(b"x = 1\n", None);
        let batch = DiskCache::open(&store, &options).expect("open").batch(&[]);
        for i in 0..=LOOSE_WRITES {
            let other = dir.path().join(format!("o{i}.py"));
            batch
                .put(&format!("o{i}.py"), &other, &stamp, "{}", None)
                .expect("put");
        }
        batch
            .put("a.py", &path, &stamp, "{\"a\":1}", None)
            .expect("put");
        batch.finish().expect("finish");
        let pack = store.join(PACK_NAME);
        let mut bytes = std::fs::read(&pack).expect("read");
        // Damage every entry's first line (not the index, which follows the
        // entries: 32 bytes per entry, then the 32-byte trailer ending in
        // the count): each is then a miss.
        let count = u64::from_le_bytes(bytes[bytes.len() - 8..].try_into().expect("count"));
        let entries_end = bytes.len() - 32 - 32 * usize::try_from(count).expect("count");
        for byte in bytes[..entries_end].iter_mut().filter(|b| **b == b'|') {
            *byte = b'!';
        }
        std::fs::write(&pack, &bytes).expect("write");
        let cache = DiskCache::open(&store, &options).expect("open");
        assert!(cache.pack.is_some());
        assert_eq!(cache.get("o0.py", &dir.path().join("o0.py"), &stamp), None);
        assert_eq!(cache.get("a.py", &path, &stamp), None);

        let old = store.join(".tmpOLD");
        let young = store.join("entries").join(".tmpYOUNG");
        std::fs::write(&old, "left by a killed run").expect("write");
        std::fs::write(&young, "another run's").expect("write");
        std::fs::File::options()
            .write(true)
            .open(&old)
            .and_then(|f| f.set_modified(SystemTime::now() - STALE_TEMPORARY * 2))
            .expect("age");
        DiskCache::open(&store, &options)
            .expect("open")
            .batch(&[])
            .finish()
            .expect("finish");
        assert!(!old.exists());
        assert!(young.exists());
    }

    #[cfg(unix)]
    #[test]
    fn a_run_over_the_whole_tree_drops_the_entries_of_files_no_longer_there() {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = std::path::absolute(dir.path()).expect("absolute");
        std::fs::create_dir(root.join(".git")).expect("mkdir");
        let options = OutlineOptions::default();
        let put_all = |cache: &DiskCache, names: &[String]| {
            for name in names {
                let path = root.join(name);
                let stamp = Stamp::new(name.as_bytes(), None);
                let _ = cache.lookup(name, &path);
                cache.put(name, &path, &stamp, "{}", None).expect("put");
            }
        };
        let old: Vec<String> = (0..=LOOSE_WRITES).map(|i| format!("old{i}.py")).collect();
        let new: Vec<String> = (0..=LOOSE_WRITES).map(|i| format!("new{i}.py")).collect();
        let first = DiskCache::for_tree(&root, &options)
            .expect("cache")
            .batch(std::slice::from_ref(&root));
        put_all(&first, &old);
        first.finish().expect("finish");

        // A run over a subdirectory, or another path, keeps what it did not
        // see; a run over the whole tree does not.
        let elsewhere = DiskCache::for_tree(&root, &options)
            .expect("cache")
            .batch(&[root.join("sub")]);
        put_all(&elsewhere, &new[..1]);
        put_all(&elsewhere, &new[1..]);
        elsewhere.finish().expect("finish");
        let cache = DiskCache::for_tree(&root, &options).expect("cache");
        assert_eq!(
            cache.pack.as_ref().map(|p| p.len()),
            Some(old.len() + new.len())
        );

        // The same file under another spelling of its path (an absolute
        // one) has an entry of its own, kept while the file is there.
        let spelled = root.join(&old[0]).to_string_lossy().into_owned();
        let stamp = Stamp::new(old[0].as_bytes(), None);
        cache
            .put(
                &spelled,
                &root.join(&old[0]),
                &stamp,
                "{\"spelled\":1}",
                None,
            )
            .expect("put");

        let whole = DiskCache::for_tree(&root, &options)
            .expect("cache")
            .batch(&[root.join(".")]);
        let _ = whole.lookup(&old[0], &root.join(&old[0]));
        put_all(&whole, &new);
        whole.finish().expect("finish");
        let cache = DiskCache::for_tree(&root, &options).expect("cache");
        assert_eq!(cache.pack.as_ref().map(|p| p.len()), Some(2 + new.len()));
        let stamp = Stamp::new(old[0].as_bytes(), None);
        assert!(cache.get(&old[0], &root.join(&old[0]), &stamp).is_some());
        assert_eq!(
            cache.get(&spelled, &root.join(&old[0]), &stamp).as_deref(),
            Some("{\"spelled\":1}")
        );
        let stamp = Stamp::new(old[1].as_bytes(), None);
        assert!(cache.get(&old[1], &root.join(&old[1]), &stamp).is_none());
    }

    #[test]
    fn an_entry_declares_its_length_in_its_header() {
        let dir = tempfile::tempdir().expect("tempdir");
        let cache =
            DiskCache::open(&dir.path().join(DIR_NAME), &OutlineOptions::default()).expect("open");
        let stamp = Stamp::new(b"x = 1\n", None);
        // Pseudo-random letters: they do not compress, so the entry is
        // longer than one first read.
        let mut seed = 0x2545_f491_u32;
        let long: String = (0..100_000)
            .map(|_| {
                seed = seed.wrapping_mul(1_103_515_245).wrapping_add(12_345);
                char::from(b'a' + ((seed >> 16) % 26) as u8)
            })
            .collect();
        for (display, view) in [
            ("a.py", None),
            ("a json=1:2:3 b.py", Some(("text", long.as_str()))),
            ("v.py", Some(("text", "short"))),
        ] {
            let path = dir.path().join(display);
            cache.put(display, &path, &stamp, &long, view).expect("put");
            let key = cache.entry_key(display, &path);
            let bytes = std::fs::read(cache.loose_path(key)).expect("entry");
            assert!(bytes.len() > FIRST_READ, "{display}");
            assert_eq!(declared_len(&bytes), Some(bytes.len()), "{display}");
            assert_eq!(
                cache.read_loose(key).expect("read").len(),
                bytes.len(),
                "{display}"
            );
        }
        assert_eq!(declared_len(&[0; 64]), None);
        assert_eq!(declared_len(b"no header\n"), None);
        assert_eq!(declared_len(b"x json=1:2:zz |r\n"), None);
    }

    #[test]
    fn a_directory_in_the_place_of_the_pack_or_an_entry_is_replaced() {
        let dir = tempfile::tempdir().expect("tempdir");
        let store = dir.path().join(DIR_NAME);
        let options = OutlineOptions::default();
        std::fs::create_dir_all(store.join(PACK_NAME).join("inner")).expect("mkdir");
        let batch = DiskCache::open(&store, &options).expect("open").batch(&[]);
        let path = dir.path().join("a.py");
        let entry = batch.loose_path(batch.entry_key("a.py", &path));
        std::fs::create_dir_all(entry.join("inner")).expect("mkdir");
        let stamp = Stamp::new(b"x = 1\n", None);
        batch.put("a.py", &path, &stamp, "{}", None).expect("put");
        assert!(entry.is_file());
        for i in 0..LOOSE_WRITES {
            let other = dir.path().join(format!("o{i}.py"));
            batch
                .put(&format!("o{i}.py"), &other, &stamp, "{}", None)
                .expect("put");
        }
        batch.finish().expect("finish");
        assert!(store.join(PACK_NAME).is_file());
        let cache = DiskCache::open(&store, &options).expect("open");
        assert_eq!(cache.get("a.py", &path, &stamp).as_deref(), Some("{}"));
    }

    #[test]
    fn the_fixed_prefix_is_matched_with_or_without_building_it() {
        let dir = tempfile::tempdir().expect("tempdir");
        let cache =
            DiskCache::open(&dir.path().join(DIR_NAME), &OutlineOptions::default()).expect("open");
        for display in [
            "src/a.py",
            "a b.py",
            "q\"uote.py",
            "p|ipe.py",
            "é.py",
            "n\nl.py",
            "back\\.py",
        ] {
            let prefix = cache.fixed_prefix(display);
            let header = format!("{prefix}json=1:2:3 ");
            assert_eq!(
                cache.strip_fixed_prefix(&header, display),
                Some("json=1:2:3 "),
                "{display:?}"
            );
            assert_eq!(cache.strip_fixed_prefix(&header, "other.py"), None);
        }
    }

    #[test]
    fn recorded_fields_are_parsed_strictly() {
        assert_eq!(
            Recorded::parse("size=6 hash=00000000000000ff status=- trusted=0"),
            Some(Recorded {
                size: 6,
                hash: 255,
                status: "-",
                trusted: false
            })
        );
        assert_eq!(Recorded::parse("size=6 hash=ff status=-"), None);
        assert_eq!(Recorded::parse("size=6 hash=zz status=- trusted=1"), None);
        assert_eq!(
            Recorded::parse("size=6 other=1 hash=ff status=- trusted=1"),
            None
        );
    }
}
