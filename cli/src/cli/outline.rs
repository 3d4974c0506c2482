//! `ast-outline outline PATH...`: outline files and directories.

use std::process::ExitCode;

use outline_core::{Filter, OutlineOptions, TextOptions, json_line, render_text};
use rayon::prelude::*;

use super::args::{Format, OutlineArgs};
use super::{print_or_exit, report};
use crate::SourceText;
use crate::error::Error;
use crate::walk::{FileEntry, WalkOptions, collect_files};

/// Files parsed in parallel before their output is written, in order.
const CHUNK_FILES: usize = 64;

pub(super) fn run(args: &OutlineArgs) -> ExitCode {
    let walked = collect_files(
        &args.paths,
        WalkOptions {
            hidden: args.hidden,
            no_ignore: args.no_ignore,
        },
    );
    for problem in &walked.problems {
        report(problem);
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
        if walked.problems.is_empty() && rejected == 0 {
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
    let mut printed = 0usize;
    for chunk in files.chunks(CHUNK_FILES) {
        let rendered: Vec<Result<String, Error>> = pool.install(|| {
            chunk
                .par_iter()
                .map(|file| {
                    render_file(
                        file,
                        &options,
                        args.extraction.max_file_size,
                        &filter,
                        args.format,
                    )
                })
                .collect()
        });
        for (file, result) in chunk.iter().zip(rendered) {
            match result {
                Ok(mut text) => {
                    if args.format == Format::Text && printed > 0 {
                        text.insert(0, '\n');
                    }
                    print_or_exit(&text);
                    printed += 1;
                }
                Err(Error::Binary { .. }) if !file.explicit => {
                    report(format!(
                        "{}: skipped, looks binary (NUL bytes)",
                        file.display
                    ));
                }
                Err(Error::TooLarge { size, limit, .. }) if !file.explicit => {
                    report(format!(
                        "{}: skipped, {size} bytes is more than --max-file-size {limit}",
                        file.display
                    ));
                }
                Err(error) => report(error),
            }
        }
    }
    if printed == 0 {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}

fn check_language(file: &FileEntry) -> Result<(), Error> {
    match file.language {
        None => Err(Error::UnknownLanguage {
            path: file.display.clone(),
        }),
        Some(_) => Ok(()),
    }
}

fn render_file(
    file: &FileEntry,
    options: &OutlineOptions,
    max_file_size: u64,
    filter: &Filter,
    format: Format,
) -> Result<String, Error> {
    let language = file.language.ok_or_else(|| Error::UnknownLanguage {
        path: file.display.clone(),
    })?;
    let source = SourceText::read_at_most(&file.path, Some(language), max_file_size)?;
    let mut outline = source.outline(&file.display, language, options);
    filter.apply(&mut outline);
    Ok(match format {
        Format::Text => render_text(&outline, &TextOptions::default()),
        Format::Json => {
            let mut line = json_line(&outline).unwrap_or_default();
            line.push('\n');
            line
        }
    })
}

fn join_paths(args: &OutlineArgs) -> String {
    let paths: Vec<String> = args.paths.iter().map(|p| p.display().to_string()).collect();
    paths.join(", ")
}
