//! Turning command-line paths into the sorted list of files to outline.
//!
//! Directories are walked with the `ignore` crate, as ripgrep walks them:
//! `.gitignore`, `.ignore` and git's exclude files are honoured (also outside a
//! git repository), hidden files and directories are skipped, symbolic links
//! are not followed (a broken one with a supported extension is reported),
//! and ast-outline's cache directory (`.ast-outline/`) is never walked, even
//! with `--hidden`. Walked files of unknown or not-yet-supported languages,
//! and FIFOs, sockets and devices, are skipped silently (never opened); a file
//! named explicitly is always taken (and reported if it cannot be outlined).

use std::path::{Path, PathBuf};

use outline_core::Language;

/// How to walk directories.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct WalkOptions {
    /// Also walk hidden files and directories.
    pub hidden: bool,
    /// Do not honour `.gitignore`/`.ignore`/exclude files.
    pub no_ignore: bool,
    /// Threads that walk a directory (`0`: `ignore`'s choice, from the
    /// number of CPUs).
    pub threads: usize,
    /// Take every regular file, not only those of a known language (their
    /// [`FileEntry::language`] is `None`): the walk of `search`.
    pub every_file: bool,
}

/// One file to outline.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileEntry {
    /// Where to read it.
    pub path: PathBuf,
    /// How to name it in the output and in ids (see [`display_path`]).
    pub display: String,
    /// Its language, from the extension; `None` for an explicitly named file
    /// of unknown language.
    pub language: Option<Language>,
    /// Whether it was named on the command line (rather than found by walking).
    pub explicit: bool,
}

/// What the walk found: files sorted by display path (no duplicates), the
/// problems with the paths given, and notes on what was met while walking
/// (each a one-line message).
#[derive(Debug, Default)]
pub struct Walked {
    /// Files to outline, sorted by [`FileEntry::display`].
    pub files: Vec<FileEntry>,
    /// Paths given that do not exist or are not regular files or directories.
    pub problems: Vec<String>,
    /// Met while walking and not read: unreadable directories or files, broken
    /// symbolic links and FIFOs, sockets or devices with a source file's
    /// extension, symbolic link loops (`--quiet` leaves these out).
    pub notes: Vec<String>,
}

/// Collects the files under `paths`.
pub fn collect_files(paths: &[PathBuf], options: WalkOptions) -> Walked {
    let mut walked = Walked::default();
    for path in paths {
        match std::fs::metadata(path) {
            Err(error) => walked.problems.push(format!("{}: {error}", path.display())),
            Ok(meta) if meta.is_dir() => walk_directory(path, options, None, &mut walked),
            Ok(meta) if !meta.is_file() => walked.problems.push(format!(
                "{}: not a regular file (a FIFO, socket or device); not read",
                path.display()
            )),
            Ok(_) => {
                let display = display_path(path);
                walked.files.push(FileEntry {
                    path: path.clone(),
                    language: Language::from_path(&display),
                    display,
                    explicit: true,
                });
            }
        }
    }
    walked.files.sort_by(|a, b| a.display.cmp(&b.display));
    walked.files.dedup_by(|a, b| a.display == b.display);
    walked
}

/// The directory name of Python's bytecode caches, never walked into.
const PYTHON_BYTECODE_DIR: &str = "__pycache__";

/// The files of a walk of the directory `root` (as [`collect_files`] walks
/// it, with default options) that are `within` or under it: the same rules
/// decide, as every directory on the way from `root` is walked, but only
/// the entries on that way are looked at. This is how a watcher learns
/// whether a new file or directory is walked (not ignored, not hidden)
/// without walking the whole tree. `within` is an absolute path under
/// `root` (as `root` is given).
pub fn collect_within(root: &Path, within: &Path) -> Walked {
    let mut walked = Walked::default();
    walk_directory(root, WalkOptions::default(), Some(within), &mut walked);
    walked.files.sort_by(|a, b| a.display.cmp(&b.display));
    walked
}

fn walk_directory(root: &Path, options: WalkOptions, within: Option<&Path>, walked: &mut Walked) {
    let honour_ignores = !options.no_ignore;
    let within = within.map(Path::to_owned);
    let walker = ignore::WalkBuilder::new(root)
        .hidden(!options.hidden)
        .ignore(honour_ignores)
        .git_ignore(honour_ignores)
        .git_global(honour_ignores)
        .git_exclude(honour_ignores)
        .parents(honour_ignores)
        .require_git(false)
        .follow_links(false)
        .threads(options.threads)
        // Never outline ast-outline's own cache (hidden anyway, but not
        // with `--hidden`), and never descend into Python's bytecode caches
        // (PEP 3147: `__pycache__` holds `.pyc` files only; in a tree without
        // a `.gitignore`, such as an installed standard library, they are a
        // third of the directories).
        .filter_entry(move |entry| {
            let on_the_way = within
                .as_deref()
                .is_none_or(|w| w.starts_with(entry.path()) || entry.path().starts_with(w));
            on_the_way
                && !(entry.depth() > 0
                    && (entry.file_name() == crate::disk_cache::DIR_NAME
                        || entry.file_name() == PYTHON_BYTECODE_DIR)
                    && entry.file_type().is_some_and(|t| t.is_dir()))
        })
        .build_parallel();
    // Each walking thread fills its own list; the lists are joined (and the
    // caller sorts them) when the walk is over.
    let found = std::sync::Mutex::new(Walked::default());
    walker.run(|| {
        let mut mine = Local {
            walked: Walked::default(),
            into: &found,
        };
        Box::new(move |entry| {
            match entry {
                Ok(entry) => visit(entry, options.every_file, &mut mine.walked),
                Err(error) => mine.walked.notes.push(walk_error_message(&error)),
            }
            ignore::WalkState::Continue
        })
    });
    let found = found
        .into_inner()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    walked.files.extend(found.files);
    let mut notes = found.notes;
    notes.sort();
    walked.notes.extend(notes);
}

/// One walking thread's findings, handed over when the thread is done.
struct Local<'a> {
    walked: Walked,
    into: &'a std::sync::Mutex<Walked>,
}

impl Drop for Local<'_> {
    fn drop(&mut self) {
        let mut into = self
            .into
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        into.files.append(&mut self.walked.files);
        into.notes.append(&mut self.walked.notes);
    }
}

/// Takes `entry` into `walked` when it is a source file, or notes why not
/// when that is worth saying.
fn visit(entry: ignore::DirEntry, every_file: bool, walked: &mut Walked) {
    let file_type = entry.file_type();
    if file_type.is_some_and(|t| t.is_symlink()) {
        // Links are not followed; a broken one to a source file is worth
        // a note, since the file it names cannot be outlined either way.
        let display = display_path(entry.path());
        if Language::from_path(&display).is_some() && std::fs::metadata(entry.path()).is_err() {
            walked
                .notes
                .push(format!("{display}: broken symbolic link; not read"));
        }
        return;
    }
    // FIFOs, sockets and devices are never opened (reading could block);
    // one named like a source file is worth a note.
    if !file_type.is_some_and(|t| t.is_file()) {
        let display = display_path(entry.path());
        if !file_type.is_some_and(|t| t.is_dir()) && Language::from_path(&display).is_some() {
            walked.notes.push(format!(
                "{display}: not a regular file (a FIFO, socket or device); not read"
            ));
        }
        return;
    }
    // The language is known from the file name alone: most files of a tree
    // are not source files, and their display path is never made.
    let language = Language::from_path(&entry.file_name().to_string_lossy());
    if language.is_none() && !every_file {
        return;
    }
    let display = display_path(entry.path());
    walked.files.push(FileEntry {
        path: entry.into_path(),
        display,
        language,
        explicit: false,
    });
}

/// A walk error as `PATH: what happened`, with the path written as in the
/// output (no leading `./`).
fn walk_error_message(error: &ignore::Error) -> String {
    match error {
        ignore::Error::WithPath { path, err } => {
            format!("{}: {}", display_path(path), walk_error_message(err))
        }
        ignore::Error::WithDepth { err, .. } | ignore::Error::WithLineNumber { err, .. } => {
            walk_error_message(err)
        }
        ignore::Error::Loop { child, .. } => {
            format!("{}: symbolic link loop; not followed", display_path(child))
        }
        ignore::Error::Io(io) => io.to_string(),
        ignore::Error::Partial(errors) => errors
            .iter()
            .map(walk_error_message)
            .collect::<Vec<_>>()
            .join("; "),
        other => other.to_string(),
    }
}

/// The path as shown in output and ids: as given, with `\` turned into `/` and
/// a leading `./` dropped (so `ast-outline outline .` prints `src/a.py`).
pub fn display_path(path: &Path) -> String {
    let text = path.to_string_lossy().replace('\\', "/");
    let mut rest = text.as_str();
    while let Some(stripped) = rest.strip_prefix("./") {
        rest = stripped.trim_start_matches('/');
    }
    if rest.is_empty() {
        ".".to_owned()
    } else {
        rest.to_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_paths() {
        assert_eq!(display_path(Path::new("./src/a.py")), "src/a.py");
        assert_eq!(display_path(Path::new(".//src/a.py")), "src/a.py");
        assert_eq!(display_path(Path::new("/abs/a.py")), "/abs/a.py");
        assert_eq!(display_path(Path::new("a\\b.py")), "a/b.py");
        assert_eq!(display_path(Path::new("./")), ".");
    }

    #[test]
    fn walks_sorted_honouring_ignore_files_and_hidden() {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = dir.path();
        for (name, text) in [
            ("b.py", "x = 1\n"),
            ("a/z.py", "y = 2\n"),
            ("a/notes.txt", "not code\n"),
            ("build/gen.py", "z = 3\n"),
            (".hidden/h.py", "h = 4\n"),
            (".gitignore", "build/\n"),
            // Never walked into, with or without ignore files.
            ("a/__pycache__/z.py", "bytecode's place\n"),
        ] {
            let path = root.join(name);
            std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
            std::fs::write(path, text).expect("write");
        }
        let walked = collect_files(&[root.to_owned()], WalkOptions::default());
        let root_display = display_path(root);
        let names: Vec<String> = walked
            .files
            .iter()
            .map(|f| f.display.trim_start_matches(&root_display).to_owned())
            .collect();
        assert_eq!(names, ["/a/z.py", "/b.py"]);
        assert!(walked.problems.is_empty(), "{:?}", walked.problems);

        let everything = collect_files(
            &[root.to_owned()],
            WalkOptions {
                hidden: true,
                no_ignore: true,
                ..WalkOptions::default()
            },
        );
        let names: Vec<String> = everything
            .files
            .iter()
            .map(|f| f.display.trim_start_matches(&root_display).to_owned())
            .collect();
        assert_eq!(
            names,
            ["/.hidden/h.py", "/a/z.py", "/b.py", "/build/gen.py"]
        );
    }

    #[test]
    fn missing_paths_are_problems_and_named_files_are_kept() {
        let dir = tempfile::tempdir().expect("tempdir");
        let named = dir.path().join("README.md");
        std::fs::write(&named, "# hi\n").expect("write");
        let walked = collect_files(
            &[named.clone(), dir.path().join("missing.py")],
            WalkOptions::default(),
        );
        assert_eq!(walked.files.len(), 1);
        assert!(walked.files[0].explicit);
        assert_eq!(walked.files[0].language, None);
        assert_eq!(walked.problems.len(), 1);
        assert!(
            walked.problems[0].contains("missing.py"),
            "{:?}",
            walked.problems
        );
    }
}
