//! Outlining a tree: the files of a walk parsed on a pool of worker threads
//! (with large stacks) and handed back in path order as they are done
//! ([`in_order`]), each read and parsed once, through the persistent cache
//! ([`Outliner`]). At most [`WINDOW`] finished outputs wait for an earlier,
//! slower file, so memory does not grow with the number of files.
//! [`outline_tree`] is the whole run in one call.
//!
//! ```
//! use ast_outline::tree::{TreeOptions, outline_tree};
//!
//! let dir = tempfile::tempdir()?;
//! std::fs::create_dir(dir.path().join(".git"))?; // a project: its cache is .ast-outline/
//! std::fs::write(dir.path().join("a.py"), "def f():\n    pass\n")?;
//! std::fs::write(dir.path().join("b.rs"), "pub struct S;\n")?;
//! std::fs::write(dir.path().join(".gitignore"), "b.rs\n")?;
//! let tree = outline_tree(&[dir.path().to_owned()], &TreeOptions::default());
//! assert_eq!(tree.outlines.len(), 1); // b.rs is ignored
//! assert_eq!(tree.outlines[0].symbols[0].qualname, "f");
//! assert!(dir.path().join(".ast-outline").is_dir()); // the cache, for the next run
//! # Ok::<(), std::io::Error>(())
//! ```

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex, PoisonError, mpsc};

use outline_core::{FileOutline, Filter, OutlineOptions, TextOptions, json_line, render_text};

use crate::disk_cache::{DiskCache, Hit, Lookup, Stamp, read_source};
use crate::walk::{FileEntry, WalkOptions, collect_files};
use crate::{DEFAULT_MAX_FILE_SIZE, Error, PARSER_STACK_BYTES, SourceText};

/// Most finished files held back while an earlier file is still being parsed.
pub const WINDOW: usize = 256;

/// Most worker threads started, whatever is asked for.
const MAX_THREADS: usize = 256;

/// The thread pool that parses `files` files, with stacks of
/// [`PARSER_STACK_BYTES`]: `threads` workers (default one per CPU), never
/// more than there are files, at most 256.
///
/// # Errors
/// rayon's, when the threads cannot be started.
pub fn parser_pool(
    threads: Option<u32>,
    files: usize,
) -> Result<rayon::ThreadPool, rayon::ThreadPoolBuildError> {
    let mut builder = rayon::ThreadPoolBuilder::new().stack_size(PARSER_STACK_BYTES);
    if let Some(threads) = threads {
        let threads = (threads as usize).min(files).clamp(1, MAX_THREADS);
        builder = builder.num_threads(threads);
    }
    builder.build()
}

/// What [`outline_tree`] does.
#[derive(Debug, Clone)]
pub struct TreeOptions {
    /// Extraction options (block threshold, nesting limit).
    pub outline: OutlineOptions,
    /// Display filter applied to every outline.
    pub filter: Filter,
    /// The walk's rules (hidden files, ignore files, walker threads).
    pub walk: WalkOptions,
    /// Whether to use the tree's persistent cache ([`DiskCache::for_tree`]:
    /// `.ast-outline/` in a project, else the user cache directory).
    pub cache: bool,
    /// Files larger than this many bytes are skipped (named ones are an
    /// error).
    pub max_file_size: u64,
    /// Parser threads (default one per CPU).
    pub threads: Option<u32>,
}

impl Default for TreeOptions {
    fn default() -> TreeOptions {
        TreeOptions {
            outline: OutlineOptions::default(),
            filter: Filter::default(),
            walk: WalkOptions::default(),
            cache: true,
            max_file_size: DEFAULT_MAX_FILE_SIZE,
            threads: None,
        }
    }
}

/// What [`outline_tree`] found.
#[derive(Debug, Default)]
pub struct Tree {
    /// The outlines, sorted by display path.
    pub outlines: Vec<FileOutline>,
    /// Files that could not be outlined (unreadable, binary, too large, an
    /// unknown language when named): display path and error.
    pub errors: Vec<(String, Error)>,
    /// The walk's problems and notes (unreadable directories, a path that
    /// does not exist), and a note when the cache could not be written.
    pub notes: Vec<String>,
}

/// Outlines every supported file under `paths` (files and directories,
/// walked with the gitignore rules, [`collect_files`]), in parallel and
/// through the cache: the run of `ast-outline outline` as a library call.
pub fn outline_tree(paths: &[PathBuf], options: &TreeOptions) -> Tree {
    let walked = collect_files(paths, options.walk);
    let mut tree = Tree {
        notes: walked.problems.into_iter().chain(walked.notes).collect(),
        ..Tree::default()
    };
    let mut files = Vec::with_capacity(walked.files.len());
    for file in walked.files {
        match file.language {
            Some(_) => files.push(file),
            None => tree.errors.push((
                file.display.clone(),
                Error::UnknownLanguage { path: file.display },
            )),
        }
    }
    let pool = match parser_pool(options.threads, files.len()) {
        Ok(pool) => pool,
        Err(error) => {
            tree.notes
                .push(format!("cannot start worker threads: {error}"));
            return tree;
        }
    };
    let cache = if options.cache {
        paths
            .iter()
            .find(|p| p.is_dir())
            .and_then(|dir| DiskCache::for_tree(dir, &options.outline))
            .map(|cache| cache.batch(paths))
    } else {
        None
    };
    let outliner = Outliner::new(
        options.outline.clone(),
        options.filter.clone(),
        Format::Json,
        options.max_file_size,
        cache,
    );
    in_order(
        &pool,
        &files,
        |file| outliner.outline(file),
        |file, result| match result {
            Ok(outline) => tree.outlines.push(outline),
            Err(error) => tree.errors.push((file.display.clone(), error)),
        },
    );
    if let Some(error) = outliner.end() {
        tree.notes
            .push(format!("note: the outline cache was not written: {error}"));
    }
    tree
}

/// What every file of one run over a tree is outlined with: the options,
/// the display filter, the output format and the persistent cache
/// ([`DiskCache`], maybe none). Shared by the worker threads.
pub struct Outliner {
    options: OutlineOptions,
    max_file_size: u64,
    filter: Filter,
    format: Format,
    cache: Option<DiskCache>,
    /// The first error met writing the cache (reported once, as a note).
    cache_error: Mutex<Option<std::io::Error>>,
}

/// The output made for each file by [`Outliner::render`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// The text outline ([`render_text`]).
    Text,
    /// The JSON line ([`json_line`]).
    Json,
}

/// A file's outline as found: its output itself (a view from the cache), its
/// JSON line from the cache, or freshly parsed (with its JSON line when that
/// was made for the cache).
enum Outlined {
    View(String),
    Cached(String),
    Parsed(FileOutline, Option<String>),
}

/// What is left to write to the cache once the file's output is known.
enum Save<'a> {
    /// Nothing (no cache, or the entry already holds what is needed).
    Nothing,
    /// A new entry: the file's stamp and JSON line (and the view, if any).
    New(Stamp, String),
    /// The view, added to the entry found (with the stamp made in step 2).
    View(Lookup<'a>, Option<Stamp>),
}

impl Outliner {
    /// An outliner with `options` (extraction), `filter` (display), the
    /// output `format` of [`Outliner::render`], files larger than
    /// `max_file_size` bytes refused, and maybe a cache (a
    /// [`DiskCache::batch`] for a run over a tree).
    pub fn new(
        options: OutlineOptions,
        filter: Filter,
        format: Format,
        max_file_size: u64,
        cache: Option<DiskCache>,
    ) -> Outliner {
        Outliner {
            options,
            max_file_size,
            filter,
            format,
            cache,
            cache_error: Mutex::new(None),
        }
    }

    /// Ends the run: writes what the cache batched ([`DiskCache::finish`])
    /// and gives the first error met writing the cache, if any (never an
    /// error of the run: the outlines are right without the cache).
    pub fn end(self) -> Option<std::io::Error> {
        if let Some(Err(error)) = self.cache.as_ref().map(DiskCache::finish) {
            self.cache_error
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .get_or_insert(error);
        }
        self.cache_error
            .into_inner()
            .unwrap_or_else(PoisonError::into_inner)
    }

    /// The key naming this run's view (the output made for each file), when
    /// that is not the JSON line itself.
    fn view_key(&self) -> Option<String> {
        (self.format == Format::Text || !self.filter.is_noop()).then(|| {
            format!(
                "{:?} {:?} {:?}",
                self.format,
                self.filter,
                TextOptions::default()
            )
        })
    }

    /// The file's output: its text outline, or its JSON line, ending with a
    /// newline (from the cache when it holds it).
    ///
    /// # Errors
    /// The file cannot be read, is not a regular file, is too large or
    /// binary, or its language is unknown.
    pub fn render(&self, file: &FileEntry) -> Result<String, Error> {
        let key = self.view_key();
        let (outlined, save) = self.outline_or_json(file, key.as_deref())?;
        let output = match outlined {
            Outlined::View(text) => return Ok(text),
            Outlined::Cached(mut json) if key.is_none() => {
                json.push('\n');
                return Ok(json);
            }
            Outlined::Parsed(_, Some(json)) if key.is_none() => {
                self.save(file, save, None);
                let mut line = json;
                line.push('\n');
                return Ok(line);
            }
            outlined => {
                let outline = self.finish(file, outlined)?;
                match self.format {
                    Format::Text => render_text(&outline, &TextOptions::default()),
                    Format::Json => {
                        let mut line = json_line(&outline).unwrap_or_default();
                        line.push('\n');
                        line
                    }
                }
            }
        };
        self.save(file, save, key.as_deref().map(|key| (key, output.as_str())));
        Ok(output)
    }

    /// The file's outline, filtered (from the cache when it holds it).
    ///
    /// # Errors
    /// As [`Outliner::render`].
    pub fn outline(&self, file: &FileEntry) -> Result<FileOutline, Error> {
        let (outlined, save) = self.outline_or_json(file, None)?;
        self.save(file, save, None);
        self.finish(file, outlined)
    }

    fn finish(&self, file: &FileEntry, outlined: Outlined) -> Result<FileOutline, Error> {
        let mut outline = match outlined {
            Outlined::Parsed(outline, _) => outline,
            Outlined::Cached(json) => match serde_json::from_str(&json) {
                Ok(outline) => outline,
                // Unreadable after all (cannot happen unless the entry was
                // forged with a matching checksum): parse again.
                Err(_) => self.parse(file)?,
            },
            // Never asked for here; parse again rather than fail.
            Outlined::View(_) => self.parse(file)?,
        };
        self.filter.apply(&mut outline);
        Ok(outline)
    }

    /// The file's outline from the cache (the view named `view` when the
    /// entry holds it, else the JSON line) or parsed, and what is then left
    /// to write to the cache.
    fn outline_or_json<'a>(
        &'a self,
        file: &'a FileEntry,
        view: Option<&str>,
    ) -> Result<(Outlined, Save<'a>), Error> {
        let Some(cache) = &self.cache else {
            return Ok((Outlined::Parsed(self.parse(file)?, None), Save::Nothing));
        };
        let lookup = cache.lookup(&file.display, &file.path);
        let found = |hit: Hit, lookup: Lookup<'a>, stamp: Option<Stamp>| match hit {
            Hit::View(text) => (Outlined::View(text), Save::Nothing),
            Hit::Json(json) if view.is_some() => {
                (Outlined::Cached(json), Save::View(lookup, stamp))
            }
            Hit::Json(json) => (Outlined::Cached(json), Save::Nothing),
        };
        // Step 1: unchanged since it was outlined, by its status alone.
        if let Ok(meta) = std::fs::metadata(&file.path)
            && meta.is_file()
            && meta.len() <= self.max_file_size
            && let Some(hit) = lookup.unchanged(&meta, view)
        {
            return Ok(found(hit, lookup, None));
        }
        // Step 2: read, and look up by content.
        let (bytes, meta) = read_source(&file.path, self.max_file_size)?;
        let stamp = Stamp::new(&bytes, Some(&meta));
        if let Some(hit) = lookup.by_content(&stamp, view) {
            return Ok(found(hit, lookup, Some(stamp)));
        }
        let outline = self.parse_bytes(file, bytes)?;
        if crate::supervise::failed_outline(&outline) {
            // A worker's failure may depend on the machine's load (a time
            // limit): never kept, tried again by the next process.
            return Ok((Outlined::Parsed(outline, None), Save::Nothing));
        }
        Ok(match json_line(&outline) {
            Ok(json) => (
                Outlined::Parsed(outline, Some(json.clone())),
                Save::New(stamp, json),
            ),
            Err(_) => (Outlined::Parsed(outline, None), Save::Nothing),
        })
    }

    /// Writes what `save` says, with `view` = (key, output) when this run
    /// made a view. A failure is noted once.
    fn save(&self, file: &FileEntry, save: Save<'_>, view: Option<(&str, &str)>) {
        let result = match (save, &self.cache) {
            (Save::New(stamp, json), Some(cache)) => {
                cache.put(&file.display, &file.path, &stamp, &json, view)
            }
            (Save::View(lookup, stamp), _) => {
                if let Some((key, text)) = view {
                    lookup.add_view(key, text, stamp.as_ref());
                }
                Ok(())
            }
            _ => Ok(()),
        };
        if let Err(error) = result {
            let mut first = self
                .cache_error
                .lock()
                .unwrap_or_else(PoisonError::into_inner);
            first.get_or_insert(error);
        }
    }

    fn parse(&self, file: &FileEntry) -> Result<FileOutline, Error> {
        self.parse_bytes(file, read_source(&file.path, self.max_file_size)?.0)
    }

    fn parse_bytes(&self, file: &FileEntry, bytes: Vec<u8>) -> Result<FileOutline, Error> {
        let language = file.language.ok_or_else(|| Error::UnknownLanguage {
            path: file.display.clone(),
        })?;
        let source = SourceText::from_bytes(bytes, Some(language));
        Ok(source.outline(&file.display, language, &self.options))
    }
}

/// Runs `work` on every file on `pool`'s threads and hands the results to
/// `done` on this thread, in the files' order, each as soon as it and all
/// before it are done. Workers take files in runs of a few consecutive ones
/// (fewer thread wake-ups), and stop taking more while [`WINDOW`] files'
/// results wait for an earlier one.
pub fn in_order<R: Send>(
    pool: &rayon::ThreadPool,
    files: &[FileEntry],
    work: impl Fn(&FileEntry) -> R + Sync,
    mut done: impl FnMut(&FileEntry, R),
) {
    let threads = pool.current_num_threads().max(1);
    let run = (files.len() / (threads * 8)).clamp(1, 16);
    let next = AtomicUsize::new(0);
    // How many results were handed to `done`, how many workers wait for that
    // to grow, and the signal that it grew.
    let state = Mutex::new((0usize, 0usize));
    let moved = Condvar::new();
    let (sender, receiver) = mpsc::channel::<(usize, Vec<R>)>();
    pool.in_place_scope(|scope| {
        for _ in 0..threads {
            let sender = sender.clone();
            let (next, state, moved, work) = (&next, &state, &moved, &work);
            scope.spawn(move |_| {
                loop {
                    let start = next.fetch_add(run, Ordering::Relaxed);
                    let Some(chunk) = files.get(start..(start + run).min(files.len())) else {
                        break;
                    };
                    if chunk.is_empty() {
                        break;
                    }
                    {
                        let mut guard = state.lock().unwrap_or_else(PoisonError::into_inner);
                        while start >= guard.0 + WINDOW {
                            guard.1 += 1;
                            guard = moved.wait(guard).unwrap_or_else(PoisonError::into_inner);
                            guard.1 -= 1;
                        }
                    }
                    let results = chunk.iter().map(work).collect();
                    if sender.send((start, results)).is_err() {
                        break;
                    }
                }
            });
        }
        drop(sender);
        let mut waiting = BTreeMap::new();
        let mut wanted = 0usize;
        for (start, results) in receiver {
            waiting.insert(start, results);
            while let Some(results) = waiting.remove(&wanted) {
                for result in results {
                    if let Some(file) = files.get(wanted) {
                        done(file, result);
                    }
                    wanted += 1;
                }
            }
            let mut guard = state.lock().unwrap_or_else(PoisonError::into_inner);
            guard.0 = wanted;
            if guard.1 > 0 {
                moved.notify_all();
            }
        }
    });
}
