//! The persistent outline cache: one file per outlined source file, holding
//! that file's outline as the exact JSON line `outline --format json` prints.
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
//! options, the source's size, modification time and xxh3-64 hash, and the
//! xxh3-64 hash of the stored JSON; the second line is the JSON. An entry is
//! used only when all of these match what is on disk now — except the
//! modification time: a file that was touched but not changed (same size and
//! content hash) is still a hit; an edited file never is, as its bytes are
//! always hashed. Anything unexpected in an entry (a crash mid-write cannot
//! leave one, as entries are written to a temporary file then renamed) makes
//! it a miss, and it is written again.

use std::fmt::Write as _;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use outline_core::OutlineOptions;

use crate::error::Error;
use xxhash_rust::xxh3::{xxh3_64, xxh3_128};

/// The name of the cache directory under the root of a tree.
pub const DIR_NAME: &str = ".ast-outline";

/// The version of the entry format; bumped whenever it, or the model's JSON,
/// changes in a way the tool's version would not tell.
const FORMAT: u32 = 1;

/// The first word of every entry.
const MAGIC: &str = "ast-outline-cache";

/// The content hash of a source file's bytes, as stored in entries.
pub fn content_hash(bytes: &[u8]) -> u64 {
    xxh3_64(bytes)
}

/// What identifies one version of one source file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stamp {
    /// Size in bytes.
    pub size: u64,
    /// Modification time in nanoseconds since the Unix epoch (0 if unknown).
    pub mtime_ns: u128,
    /// [`content_hash`] of its bytes.
    pub hash: u64,
}

impl Stamp {
    /// The stamp of `bytes` read from a file whose metadata said `modified`.
    pub fn new(bytes: &[u8], modified: Option<SystemTime>) -> Stamp {
        let mtime_ns = modified
            .and_then(|t| t.duration_since(SystemTime::UNIX_EPOCH).ok())
            .map_or(0, |d| d.as_nanos());
        Stamp {
            size: bytes.len() as u64,
            mtime_ns,
            hash: content_hash(bytes),
        }
    }
}

/// A cache directory that can be read (and usually written).
#[derive(Debug, Clone)]
pub struct DiskCache {
    entries: PathBuf,
    options: String,
    /// The working directory, to make relative paths absolute (asked once).
    cwd: Option<PathBuf>,
}

impl DiskCache {
    /// Opens (creating it if needed) the cache in `dir`, for outlines made
    /// with `options`.
    ///
    /// # Errors
    /// When `dir` cannot be created or is not writable.
    pub fn open(dir: &Path, options: &OutlineOptions) -> std::io::Result<DiskCache> {
        let entries = dir.join("entries");
        std::fs::create_dir_all(&entries)?;
        for (name, text) in [
            (".gitignore", "# Made by ast-outline: its cache.\n*\n"),
            (
                "CACHEDIR.TAG",
                "Signature: 8a477f597d28d172789f06886806bc55\n\
                 # This file is a cache directory tag created by ast-outline.\n",
            ),
        ] {
            let path = dir.join(name);
            if !path.exists() {
                std::fs::write(path, text)?;
            }
        }
        // Check now that entries can be written, so that a read-only place is
        // found before any work is done.
        tempfile::NamedTempFile::new_in(&entries)?;
        Ok(DiskCache {
            entries,
            options: options_key(options),
            cwd: std::env::current_dir().ok(),
        })
    }

    /// The cache in `dir` when it exists (nothing is created), for outlines
    /// made with `options`.
    pub fn existing(dir: &Path, options: &OutlineOptions) -> Option<DiskCache> {
        let entries = dir.join("entries");
        entries.is_dir().then(|| DiskCache {
            entries,
            options: options_key(options),
            cwd: std::env::current_dir().ok(),
        })
    }

    /// The cache for the tree at `dir` (a directory): `.ast-outline/` under
    /// its project root, else the user cache directory (see the module docs).
    /// `None` when neither can be written.
    pub fn for_tree(dir: &Path, options: &OutlineOptions) -> Option<DiskCache> {
        let root = match tree_root(dir) {
            Some(root) => {
                if let Ok(cache) = DiskCache::open(&root.join(DIR_NAME), options) {
                    return Some(cache);
                }
                root
            }
            None => std::path::absolute(dir).unwrap_or_else(|_| dir.to_owned()),
        };
        let user = user_cache_dir()?;
        let name = format!("{:032x}", xxh3_128(root.to_string_lossy().as_bytes()));
        DiskCache::open(&user.join("ast-outline").join(name), options).ok()
    }

    /// The stored JSON line (without its newline) of the file shown as
    /// `display` and read from `path`, if an entry matches `stamp` and this
    /// cache's options.
    pub fn get(&self, display: &str, path: &Path, stamp: &Stamp) -> Option<String> {
        let text = std::fs::read_to_string(self.entry_path(display, path)).ok()?;
        let (header, json) = text.split_once('\n')?;
        let json = json.strip_suffix('\n').unwrap_or(json);
        let expected = self.header(display, stamp, json);
        // The modification time (the one field after the `|`) may differ.
        let (fixed, _mtime) = header.rsplit_once('|')?;
        let (expected_fixed, _) = expected.rsplit_once('|')?;
        (fixed == expected_fixed).then(|| json.to_owned())
    }

    /// Stores `json` (one line, `json_line` of the file's outline) for the
    /// file shown as `display`, read from `path`, whose bytes had `stamp`.
    ///
    /// # Errors
    /// When the entry cannot be written.
    pub fn put(
        &self,
        display: &str,
        path: &Path,
        stamp: &Stamp,
        json: &str,
    ) -> std::io::Result<()> {
        let mut file = tempfile::NamedTempFile::new_in(&self.entries)?;
        let mut text = self.header(display, stamp, json);
        text.push('\n');
        text.push_str(json);
        text.push('\n');
        file.write_all(text.as_bytes())?;
        file.persist(self.entry_path(display, path))
            .map_err(|e| e.error)?;
        Ok(())
    }

    fn entry_path(&self, display: &str, path: &Path) -> PathBuf {
        // Absolute, without `.` components: `./src/a.py` run from the root
        // and the MCP server's `/root/src/a.py` name the same entry.
        let absolute: PathBuf = match &self.cwd {
            Some(cwd) if path.is_relative() => cwd.join(path),
            _ => path.to_owned(),
        }
        .components()
        .filter(|c| *c != std::path::Component::CurDir)
        .collect();
        let mut key = display.as_bytes().to_vec();
        key.push(0);
        key.extend_from_slice(absolute.to_string_lossy().as_bytes());
        self.entries.join(format!("{:032x}", xxh3_128(&key)))
    }

    fn header(&self, display: &str, stamp: &Stamp, json: &str) -> String {
        let mut header = String::new();
        let _ = write!(
            header,
            "{MAGIC} {FORMAT} {} {} size={} hash={:016x} json={:016x} path={display:?} |mtime={}",
            env!("CARGO_PKG_VERSION"),
            self.options,
            stamp.size,
            stamp.hash,
            xxh3_64(json.as_bytes()),
            stamp.mtime_ns,
        );
        header.retain(|c| c != '\n');
        header
    }
}

/// The bytes of the file at `path` (at most `max_bytes`) and its
/// modification time.
///
/// # Errors
/// As [`crate::SourceText::read_at_most`]: unreadable, not a regular file,
/// too large, or binary.
pub(crate) fn read_source(
    path: &Path,
    max_bytes: u64,
) -> Result<(Vec<u8>, Option<SystemTime>), Error> {
    let (bytes, meta) = crate::SourceText::read_bytes(path, max_bytes)?;
    Ok((bytes, meta.modified().ok()))
}

/// Every extraction option, as text (the `Debug` form names each field, so a
/// new option changes the key by itself).
fn options_key(options: &OutlineOptions) -> String {
    format!("{options:?}").replace(' ', "")
}

/// The project root of `dir`: the nearest directory from `dir` (made
/// absolute) up that holds `.ast-outline/` or `.git`; `None` outside any
/// project.
pub fn tree_root(dir: &Path) -> Option<PathBuf> {
    let absolute = std::path::absolute(dir).unwrap_or_else(|_| dir.to_owned());
    absolute
        .ancestors()
        .find(|candidate| candidate.join(DIR_NAME).is_dir() || candidate.join(".git").exists())
        .map(Path::to_path_buf)
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

    #[test]
    fn an_entry_is_a_hit_only_for_the_same_bytes_and_options() {
        let dir = tempfile::tempdir().expect("tempdir");
        let options = OutlineOptions::default();
        let cache = DiskCache::open(&dir.path().join(DIR_NAME), &options).expect("open");
        let path = dir.path().join("a.py");
        let stamp = Stamp::new(b"x = 1\n", Some(SystemTime::UNIX_EPOCH));
        assert_eq!(cache.get("a.py", &path, &stamp), None);
        cache.put("a.py", &path, &stamp, "{\"x\":1}").expect("put");
        assert_eq!(
            cache.get("a.py", &path, &stamp).as_deref(),
            Some("{\"x\":1}")
        );

        let touched = Stamp::new(b"x = 1\n", Some(SystemTime::now()));
        assert_eq!(
            cache.get("a.py", &path, &touched).as_deref(),
            Some("{\"x\":1}")
        );
        let edited = Stamp::new(b"x = 2\n", Some(SystemTime::UNIX_EPOCH));
        assert_eq!(cache.get("a.py", &path, &edited), None);
        assert_eq!(cache.get("b.py", &path, &stamp), None);

        let other = OutlineOptions {
            block_threshold: 7,
            ..OutlineOptions::default()
        };
        let other_cache = DiskCache::open(&dir.path().join(DIR_NAME), &other).expect("open");
        assert_eq!(other_cache.get("a.py", &path, &stamp), None);
    }
}
