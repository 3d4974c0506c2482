//! `ast-outline chunks PATH...`: symbol-bounded chunks for retrieval, as
//! JSON Lines ([`ast_outline::chunk_file`], tokens counted in `o200k_base`).

use std::process::ExitCode;

use ast_outline::Error;
use ast_outline::chunks::ChunkOptions;
use ast_outline::tree::{in_order, parser_pool};
use ast_outline::{Diagnostic, Severity};

use super::args::ChunksArgs;
use super::outline::Walk;
use super::output::{print_all_or_exit, report};

/// Tokens of `text` in `o200k_base`; its length in bytes (never fewer than
/// its tokens) should the encoding fail to load.
fn count(text: &str) -> usize {
    ast_outline_budget::count(text).unwrap_or(text.len())
}

/// Says on stderr, in one line, that a file's chunks follow an outline read
/// in a degraded way: bytes replaced (invalid UTF-8), or recovered around
/// syntax errors (the first one named, the rest counted).
fn note(path: &str, diagnostics: &[Diagnostic]) {
    for warning in diagnostics
        .iter()
        .filter(|d| d.severity == Severity::Warning)
    {
        report(format!(
            "{path}: L{}:{} warning: {}",
            warning.line, warning.column, warning.message
        ));
    }
    let mut errors = diagnostics.iter().filter(|d| d.severity == Severity::Error);
    if let Some(first) = errors.next() {
        let more = errors.count();
        let rest = if more == 0 {
            String::new()
        } else {
            format!(" and {more} more")
        };
        report(format!(
            "{path}: syntax error at L{}:{} ({}){rest}: the chunks follow the outline recovered around it",
            first.line, first.column, first.message
        ));
    }
}

pub(super) fn run(args: &ChunksArgs) -> ExitCode {
    let walk = Walk {
        paths: &args.paths,
        hidden: args.hidden,
        no_ignore: args.no_ignore,
        threads: args.threads,
        quiet: args.quiet,
    };
    let files = match walk.files("chunk") {
        Ok((_, files)) => files,
        Err(code) => return code,
    };
    let pool = match parser_pool(args.threads, files.len()) {
        Ok(pool) => pool,
        Err(error) => {
            report(format!("cannot start worker threads: {error}"));
            return ExitCode::FAILURE;
        }
    };
    let options = ChunkOptions {
        max_tokens: args.max_tokens as usize,
    };
    let mut printed = 0usize;
    in_order(
        &pool,
        &files,
        |file| {
            let (chunks, diagnostics) =
                ast_outline::chunk_file_noted(&file.path, &options, &count)?;
            let mut lines = Vec::with_capacity(chunks.len());
            for chunk in &chunks {
                let mut line = serde_json::to_string(chunk).map_err(|error| Error::Io {
                    path: file.path.clone(),
                    source: std::io::Error::other(error),
                })?;
                line.push('\n');
                lines.push(line);
            }
            Ok::<_, Error>((lines, diagnostics))
        },
        |file, result| match result {
            Ok((lines, diagnostics)) => {
                if !args.quiet {
                    note(&file.display, &diagnostics);
                }
                print_all_or_exit(&lines);
                printed += 1;
            }
            Err(Error::Binary { .. }) if !file.explicit => {
                if !args.quiet {
                    report(format!(
                        "{}: skipped, looks binary (NUL bytes)",
                        file.display
                    ));
                }
            }
            Err(error) => report(error),
        },
    );
    if printed == 0 {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}
