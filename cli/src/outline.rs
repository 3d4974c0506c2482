//! `ast-outline outline PATH...`: outline files and directories.
//!
//! The files are parsed on a pool of worker threads and printed in sorted path
//! order as they are done ([`ast_outline::tree::in_order`], through the cache:
//! [`ast_outline::tree::Outliner`]). With `--max-tokens` the outlines are kept
//! (already filtered) to choose what fits ([`ast_outline_budget::repo_map`]).

use std::borrow::Cow;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use ast_outline::Error;
use ast_outline::disk_cache::DiskCache;
use ast_outline::tree::{Outliner, in_order, parser_pool};
use ast_outline::walk::{FileEntry, WalkOptions, collect_files};
use outline_core::{Filter, OutlineOptions};

use super::args::{Format, OutlineArgs};
use super::output::{print_all_or_exit, print_or_exit, report};
use super::settings::{select_files, settings_for_or_exit};

/// Bytes of output gathered before they are written (when not a terminal).
const OUTPUT_BLOCK: usize = 64 * 1024;

/// Runs with this many files or more show a progress bar (on a terminal).
const PROGRESS_FILES: usize = 200;

pub(super) fn run(args: &OutlineArgs) -> ExitCode {
    if args.max_tokens.is_some() && args.format == Format::Json {
        use clap::CommandFactory as _;
        let mut cli = super::args::Cli::command();
        // The usage line of `outline`, not of the whole tool.
        let mut command = match cli.find_subcommand_mut("outline") {
            Some(outline) => outline.clone().bin_name("ast-outline outline"),
            None => cli,
        };
        command
            .error(
                clap::error::ErrorKind::ArgumentConflict,
                "--max-tokens prints a text repo map and cannot be combined with --format json \
                 (for JSON, outline without a budget and choose from the lines)",
            )
            .exit();
    }
    let walk = Walk {
        paths: &args.paths,
        hidden: args.hidden,
        no_ignore: args.no_ignore,
        threads: args.threads,
        quiet: args.quiet,
    };
    let (settings, files) = match walk.files("outline") {
        Ok(found) => found,
        Err(code) => return code,
    };

    let options = args.extraction.options(&settings);
    let filter = Filter {
        max_depth: args.depth.map(|d| d as usize),
        docs: !args.no_docs,
        private: !args.no_private,
    };
    let pool = match parser_pool(args.threads, files.len()) {
        Ok(pool) => pool,
        Err(error) => {
            report(format!("cannot start worker threads: {error}"));
            return ExitCode::FAILURE;
        }
    };
    let cache = open_cache(args, &options).map(|cache| cache.batch(&args.paths));
    let format = match args.format {
        Format::Text => ast_outline::tree::Format::Text,
        Format::Json => ast_outline::tree::Format::Json,
    };
    let job = Outliner::new(
        options,
        filter,
        format,
        args.extraction.max_file_size,
        cache,
    );
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
            match ast_outline_budget::repo_map::repo_map(
                &outlines,
                budget as usize,
                &join_paths(args),
            ) {
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
    if let Some(error) = job.end()
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

/// The walk of `outline` and `chunks`: the paths and flags given.
pub(super) struct Walk<'a> {
    pub paths: &'a [PathBuf],
    pub hidden: bool,
    pub no_ignore: bool,
    pub threads: Option<u32>,
    pub quiet: bool,
}

impl Walk<'_> {
    /// The settings of the first path's project, and the files of a
    /// supported language under the paths as those settings choose them,
    /// sorted by path; problems and notes printed on the way (`verb` names
    /// the command in "nothing to outline"). `Err` with the exit code when
    /// the settings are wrong or no file is left.
    pub fn files(
        &self,
        verb: &str,
    ) -> Result<(ast_outline_settings::Settings, Vec<FileEntry>), ExitCode> {
        let first = self.paths.first().map_or(Path::new("."), PathBuf::as_path);
        let (settings_root, settings) = settings_for_or_exit(first)?;
        let walked = collect_files(
            self.paths,
            WalkOptions {
                hidden: self.hidden,
                no_ignore: self.no_ignore,
                // More walkers than CPUs only spin: `--threads` is capped there.
                threads: self.threads.map_or(0, |threads| {
                    let cpus = std::thread::available_parallelism().map_or(1, usize::from);
                    (threads as usize).clamp(1, cpus)
                }),
                every_file: false,
            },
        );
        for problem in &walked.problems {
            report(problem);
        }
        if !self.quiet {
            for note in &walked.notes {
                report(note);
            }
        }
        let mut walked_files = walked.files;
        let left_out = select_files(&mut walked_files, settings_root.as_deref(), &settings);
        if !self.quiet
            && let Some(note) = settings.left_out_note(left_out)
        {
            report(note);
        }
        let mut files = Vec::with_capacity(walked_files.len());
        let mut rejected = 0;
        for file in walked_files {
            match check_language(&file) {
                Ok(()) => files.push(file),
                Err(error) => {
                    report(error);
                    rejected += 1;
                }
            }
        }
        if files.is_empty() {
            if walked.problems.is_empty()
                && walked.notes.is_empty()
                && rejected == 0
                && left_out == 0
            {
                let paths: Vec<String> =
                    self.paths.iter().map(|p| p.display().to_string()).collect();
                report(format!(
                    "nothing to {verb} in {}: no files of a supported language \
                     ({}) were found",
                    paths.join(", "),
                    ast_outline::supported_extensions().join(", ")
                ));
            }
            return Err(ExitCode::FAILURE);
        }
        Ok((settings, files))
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
