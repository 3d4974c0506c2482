//! `ast-outline outline PATH...`: outline files and directories.
//!
//! The files are parsed on a pool of worker threads and printed in sorted path
//! order as they are done ([`in_order`]): each file is read and parsed once,
//! and at most [`WINDOW`] finished outputs wait for an earlier, slower file, so
//! memory does not grow with the number of files. With `--max-tokens` the
//! outlines are kept (already filtered) to choose what fits
//! ([`crate::repo_map`]).

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::io::IsTerminal;
use std::process::ExitCode;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex, PoisonError, mpsc};

use outline_core::{FileOutline, Filter, OutlineOptions, TextOptions, json_line, render_text};

use super::args::{Format, OutlineArgs};
use super::{print_all_or_exit, print_or_exit, report};
use crate::SourceText;
use crate::disk_cache::{DiskCache, Hit, Lookup, Stamp, read_source};
use crate::error::Error;
use crate::walk::{FileEntry, WalkOptions, collect_files};

/// Most finished files held back while an earlier file is still being parsed.
const WINDOW: usize = 256;

/// Bytes of output gathered before they are written (when not a terminal).
const OUTPUT_BLOCK: usize = 64 * 1024;

/// Runs with this many files or more show a progress bar (on a terminal).
const PROGRESS_FILES: usize = 200;

pub(super) fn run(args: &OutlineArgs) -> ExitCode {
    if args.max_tokens.is_some() && args.format == Format::Json {
        use clap::CommandFactory as _;
        super::args::Cli::command()
            .error(
                clap::error::ErrorKind::ArgumentConflict,
                "--max-tokens prints a text repo map and cannot be combined with --format json \
                 (for JSON, outline without a budget and choose from the lines)",
            )
            .exit();
    }
    let walked = collect_files(
        &args.paths,
        WalkOptions {
            hidden: args.hidden,
            no_ignore: args.no_ignore,
            // More walkers than CPUs only spin: `--threads` is capped there.
            threads: args.threads.map_or(0, |threads| {
                let cpus = std::thread::available_parallelism().map_or(1, usize::from);
                (threads as usize).clamp(1, cpus)
            }),
        },
    );
    for problem in &walked.problems {
        report(problem);
    }
    if !args.quiet {
        for note in &walked.notes {
            report(note);
        }
    }
    let mut files = Vec::with_capacity(walked.files.len());
    let mut rejected = 0;
    for file in walked.files {
        match check_language(&file) {
            Ok(()) => files.push(file),
            Err(error) => {
                report(error);
                rejected += 1;
            }
        }
    }
    if files.is_empty() {
        if walked.problems.is_empty() && walked.notes.is_empty() && rejected == 0 {
            report(format!(
                "nothing to outline in {}: no files of a supported language \
                 ({}) were found",
                join_paths(args),
                crate::supported_extensions().join(", ")
            ));
        }
        return ExitCode::FAILURE;
    }

    let options = args.extraction.options();
    let filter = Filter {
        max_depth: args.depth.map(|d| d as usize),
        docs: !args.no_docs,
        private: !args.no_private,
    };
    let pool = match super::parser_pool(args.threads, files.len()) {
        Ok(pool) => pool,
        Err(error) => {
            report(format!("cannot start worker threads: {error}"));
            return ExitCode::FAILURE;
        }
    };
    let job = Job {
        cache: open_cache(args, &options).map(|cache| cache.batch(&args.paths)),
        options,
        max_file_size: args.extraction.max_file_size,
        filter,
        format: args.format,
        cache_error: Mutex::new(None),
    };
    let progress = progress_bar(files.len(), args.quiet);
    let quiet = args.quiet;
    let note = |file: &FileEntry, error: Error| match error {
        Error::Binary { .. } if !file.explicit => {
            if !quiet {
                report(format!(
                    "{}: skipped, looks binary (NUL bytes)",
                    file.display
                ));
            }
        }
        Error::TooLarge { size, limit, .. } if !file.explicit => {
            if !quiet {
                report(format!(
                    "{}: skipped, {size} bytes is more than --max-file-size {limit}",
                    file.display
                ));
            }
        }
        error => report(error),
    };
    let printed = if let Some(budget) = args.max_tokens {
        let mut outlines = Vec::new();
        in_order(
            &pool,
            &files,
            |file| job.outline(file),
            |file, result| {
                progress.inc(1);
                match result {
                    Ok(outline) => outlines.push(outline),
                    Err(error) => note(file, error),
                }
            },
        );
        progress.finish_and_clear();
        if !outlines.is_empty() {
            match crate::repo_map::repo_map(&outlines, budget as usize, &join_paths(args)) {
                Ok(text) => print_or_exit(&text),
                Err(message) => {
                    report(message);
                    return ExitCode::FAILURE;
                }
            }
        }
        outlines.len()
    } else {
        let mut printed = 0usize;
        // Output is written in blocks of about OUTPUT_BLOCK bytes (every file
        // on a terminal), and before any note, so both keep their order. A
        // block is the files' texts as they are, written with one vectored
        // write (not copied into one buffer first).
        let mut pending = Pending::default();
        let block = if std::io::stdout().is_terminal() {
            0
        } else {
            OUTPUT_BLOCK
        };
        let flush = |pending: &mut Pending| {
            if pending.bytes > 0 {
                progress.suspend(|| print_all_or_exit(&pending.texts));
                pending.texts.clear();
                pending.bytes = 0;
            }
        };
        in_order(
            &pool,
            &files,
            |file| job.render(file),
            |file, result| {
                progress.inc(1);
                match result {
                    Ok(text) => {
                        if args.format == Format::Text && printed > 0 {
                            pending.push(Cow::Borrowed("\n"));
                        }
                        pending.push(Cow::Owned(text));
                        if pending.bytes >= block {
                            flush(&mut pending);
                        }
                        printed += 1;
                    }
                    Err(error) => {
                        flush(&mut pending);
                        progress.suspend(|| note(file, error));
                    }
                }
            },
        );
        flush(&mut pending);
        progress.finish_and_clear();
        printed
    };
    if let Some(Err(error)) = job.cache.as_ref().map(DiskCache::finish) {
        job.cache_error
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get_or_insert(error);
    }
    if let Some(error) = job
        .cache_error
        .into_inner()
        .unwrap_or_else(PoisonError::into_inner)
        && !args.quiet
    {
        report(format!("note: the outline cache was not written: {error}"));
    }
    if printed == 0 {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}

/// Output not yet written: texts in order, and their total length in bytes.
#[derive(Default)]
struct Pending {
    texts: Vec<Cow<'static, str>>,
    bytes: usize,
}

impl Pending {
    fn push(&mut self, text: Cow<'static, str>) {
        self.bytes += text.len();
        self.texts.push(text);
    }
}

/// The persistent cache for this run: `--cache-dir`, else the tree's when a
/// directory is outlined; none with `--no-cache` or for named files only.
fn open_cache(args: &OutlineArgs, options: &OutlineOptions) -> Option<DiskCache> {
    if args.no_cache {
        return None;
    }
    if let Some(dir) = &args.cache_dir {
        return match DiskCache::open(dir, options) {
            Ok(cache) => Some(cache),
            Err(error) => {
                if !args.quiet {
                    report(format!(
                        "note: cannot use the cache directory {}: {error}; running without",
                        dir.display()
                    ));
                }
                None
            }
        };
    }
    let dir = args.paths.iter().find(|p| p.is_dir())?;
    DiskCache::for_tree(dir, options)
}

/// A progress bar on standard error, shown only on a terminal, for many files
/// and without `--quiet`.
fn progress_bar(files: usize, quiet: bool) -> indicatif::ProgressBar {
    if quiet || files < PROGRESS_FILES || !std::io::stderr().is_terminal() {
        return indicatif::ProgressBar::hidden();
    }
    let bar = indicatif::ProgressBar::new(files as u64);
    if let Ok(style) = indicatif::ProgressStyle::with_template(
        "ast-outline: {bar:30} {pos}/{len} files ({elapsed})",
    ) {
        bar.set_style(style);
    }
    bar
}

/// What every file of one run is outlined with.
struct Job {
    options: OutlineOptions,
    max_file_size: u64,
    filter: Filter,
    format: Format,
    cache: Option<DiskCache>,
    /// The first error met writing the cache (reported once, as a note).
    cache_error: Mutex<Option<std::io::Error>>,
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

impl Job {
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
    /// newline.
    fn render(&self, file: &FileEntry) -> Result<String, Error> {
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

    /// The file's outline, filtered.
    fn outline(&self, file: &FileEntry) -> Result<FileOutline, Error> {
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
fn in_order<R: Send>(
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

fn check_language(file: &FileEntry) -> Result<(), Error> {
    match file.language {
        None => Err(Error::UnknownLanguage {
            path: file.display.clone(),
        }),
        Some(_) => Ok(()),
    }
}

fn join_paths(args: &OutlineArgs) -> String {
    let paths: Vec<String> = args.paths.iter().map(|p| p.display().to_string()).collect();
    paths.join(", ")
}
