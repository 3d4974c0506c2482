//! What a changed path means for the index: a file to read again, files
//! gone, new files that the walk takes, or a settings file that needs a
//! full refresh.

use std::collections::{HashMap, HashSet};
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;

use index::{Index, SourceEntry};
use outline_core::Language;

/// Whether a change of the file at `display` makes every file's place in
/// the index uncertain: the walk's rules (`.gitignore`, `.ignore`,
/// `.git/info/exclude`) and the project settings the index reads
/// (`tsconfig.json`, `jsconfig.json`, `package.json`, `Cargo.toml`), and
/// ast-outline's own settings at the root (`.ast-outline.toml`,
/// `pyproject.toml`: its `files` and `tests` globs choose the files).
fn is_settings(display: &str) -> bool {
    let name = display.rsplit('/').next().unwrap_or(display);
    display == ".git/info/exclude"
        || display == ast_outline_settings::FILE_NAME
        || display == "pyproject.toml"
        || matches!(
            name,
            ".gitignore" | ".ignore" | "package.json" | "Cargo.toml"
        )
        || ((name.starts_with("tsconfig") || name.starts_with("jsconfig"))
            && name.ends_with(".json"))
}

/// The display path (`/`-separated, relative to `root`) of `path`, an
/// absolute path under `root`; `None` outside it, or for `root` itself.
pub fn display(root: &Path, path: &Path) -> Option<String> {
    let relative = path.strip_prefix(root).ok()?;
    let parts: Vec<String> = relative
        .components()
        .map(|c| match c {
            Component::Normal(part) => Some(part.to_string_lossy().into_owned()),
            _ => None,
        })
        .collect::<Option<_>>()?;
    (!parts.is_empty()).then(|| parts.join("/"))
}

/// Whether an event at `path` can change the index: not ast-outline's own
/// directory (the index writes there), not git's (but its exclude file), not Python's bytecode
/// caches. Cheap, so the watcher's thread calls it for every path.
pub fn may_matter(root: &Path, path: &Path) -> bool {
    let Ok(relative) = path.strip_prefix(root) else {
        return false;
    };
    // git's own exclude file is one of the walk's rules.
    relative == Path::new(".git/info/exclude")
        || !relative.components().any(|c| {
            c.as_os_str() == ast_outline::disk_cache::DIR_NAME
                || c.as_os_str() == ".git"
                || c.as_os_str() == "__pycache__"
        })
}

/// Whether the walk takes the file at `path` (`display` under `root`): for
/// a file on disk, a walk along its path ([`ast_outline::walk::collect_within`]);
/// for one only in an editor (never saved), unless a directory or the file
/// is hidden.
pub fn walked(root: &Path, path: &Path, display: &str) -> bool {
    if path.exists() {
        ast_outline::walk::collect_within(root, path)
            .files
            .iter()
            .any(|f| f.path == *path)
    } else {
        !display.split('/').any(|part| part.starts_with('.'))
    }
}

/// What a batch of changed paths asks of the index.
#[derive(Debug, Default)]
pub struct Classified {
    /// Files to read again (new or changed), buffers with their text.
    pub changed: Vec<SourceEntry>,
    /// Display paths of indexed files that are gone.
    pub gone: Vec<String>,
    /// Why every file must be looked at instead (a settings file changed).
    pub full: Option<String>,
}

impl Classified {
    /// Whether nothing is to be done.
    pub fn is_empty(&self) -> bool {
        self.changed.is_empty() && self.gone.is_empty() && self.full.is_none()
    }
}

/// Sorts the changed `paths` (absolute, under `root`) into files to read
/// again and files gone, as the walk would decide: a file the index holds
/// is read again (or removed when gone); a new file or directory is walked
/// from `root` along its own path only ([`ast_outline::walk::collect_within`]),
/// so ignored and hidden paths never enter the index; a path that is gone
/// removes the indexed files at it and under it.
///
/// # Errors
/// The database fails.
pub fn classify(
    root: &Path,
    index: &Index,
    buffers: &HashMap<String, Arc<[u8]>>,
    paths: &[PathBuf],
) -> Result<Classified, index::Error> {
    let mut out = Classified::default();
    let mut seen: HashSet<String> = HashSet::new();
    let mut gone: HashSet<String> = HashSet::new();
    let mut add = |out: &mut Classified, display: String, language: Language| {
        if seen.insert(display.clone()) {
            let mut entry = entry(root, &display, language);
            entry.text = buffers.get(&display).cloned();
            out.changed.push(entry);
        }
    };
    for path in paths {
        let Some(display) = display(root, path) else {
            continue;
        };
        if is_settings(&display) {
            out.full = Some(format!("{display} changed"));
            return Ok(out);
        }
        let language = Language::from_path(&display);
        if let (Some(language), true) = (language, buffers.contains_key(&display)) {
            // The buffer wins over whatever the disk says, for a file the
            // walk takes: an open ignored or hidden file stays out.
            if index.holds_file(&display)? || walked(root, path, &display) {
                add(&mut out, display, language);
            }
            continue;
        }
        match std::fs::symlink_metadata(path) {
            Ok(meta) if meta.is_dir() => {
                let walked = ast_outline::walk::collect_within(root, path);
                let mut found = HashSet::new();
                for file in walked.files {
                    if let (Some(language), Some(display)) =
                        (file.language, self::display(root, &file.path))
                    {
                        found.insert(display.clone());
                        add(&mut out, display, language);
                    }
                }
                for held in index.files_under(&display)? {
                    if !found.contains(&held) {
                        gone.insert(held);
                    }
                }
            }
            Ok(meta) if meta.is_file() => {
                let Some(language) = language else { continue };
                if index.holds_file(&display)? || walked(root, path, &display) {
                    add(&mut out, display, language);
                }
            }
            // Gone (deleted, renamed away), or no longer a regular file.
            _ => {
                if index.holds_file(&display)? {
                    gone.insert(display.clone());
                }
                gone.extend(index.files_under(&display)?);
            }
        }
    }
    out.gone = gone.into_iter().filter(|g| !seen.contains(g)).collect();
    out.gone.sort();
    Ok(out)
}

/// A [`SourceEntry`] for the file at `display` under `root`.
pub(crate) fn entry(root: &Path, display: &str, language: outline_core::Language) -> SourceEntry {
    SourceEntry {
        path: root.join(display),
        display: display.to_owned(),
        language,
        text: None,
    }
}
