//! `ast-outline search PATTERN [PATH...]`: text search that lands on symbols
//! ([`ast_outline::search`]), the files with hits outlined through the
//! persistent cache.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use ast_outline::disk_cache::DiskCache;
use ast_outline::search::{
    Budget, Case, Limits, Query, collect, json_lines, render_text, search_files,
};
use ast_outline::tree::{Format as TreeFormat, Outliner};
use ast_outline::walk::{FileEntry, WalkOptions};
use outline_core::{FileOutline, Filter};

use super::args::{Format, SearchArgs};
use super::output::{print_or_exit, report};
use super::settings::{select_files, settings_for_or_exit};

pub(super) fn run(args: &SearchArgs) -> ExitCode {
    let query = Query {
        pattern: args.pattern.clone(),
        regex: args.regex,
        case: if args.ignore_case {
            Case::Insensitive
        } else if args.smart_case {
            Case::Smart
        } else {
            Case::Sensitive
        },
        word: args.word,
        globs: args.globs.clone(),
    };
    let compiled = match query.compile() {
        Ok(compiled) => compiled,
        Err(message) => {
            report(message);
            return ExitCode::from(2);
        }
    };
    let paths = if args.paths.is_empty() {
        vec![PathBuf::from(".")]
    } else {
        args.paths.clone()
    };
    let walk = WalkOptions {
        hidden: args.hidden,
        no_ignore: args.no_ignore,
        ..WalkOptions::default()
    };
    let (mut files, problems) = collect(&paths, walk, &compiled, Path::new("."));
    for problem in &problems {
        report(problem);
    }
    if files.is_empty() && !problems.is_empty() {
        return ExitCode::FAILURE;
    }
    // The settings of the first path's project choose among the files
    // walked, and give the block threshold and the budget.
    let (settings_root, settings) = match settings_for_or_exit(&paths[0]) {
        Ok(found) => found,
        Err(code) => return code,
    };
    let left_out = select_files(&mut files, settings_root.as_deref(), &settings);
    if let Some(note) = settings.left_out_note(left_out) {
        report(note);
    }
    let max_tokens = args.max_tokens.map_or_else(
        || {
            settings
                .max_tokens
                .search
                .unwrap_or(ast_outline_mcp::tools::DEFAULT_SEARCH_TOKENS as usize)
        },
        |n| n as usize,
    );
    let limits = Limits {
        max_file_size: args.extraction.max_file_size,
        context_lines: args.context,
        ..Limits::default()
    };
    let found = search_files(&files, &compiled, &limits);
    let options = args.extraction.options(&settings);
    let cache = (!args.no_cache)
        .then(|| paths.iter().find(|p| p.is_dir()))
        .flatten()
        .and_then(|dir| DiskCache::for_tree(dir, &options));
    let outliner = Outliner::new(
        options,
        Filter::default(),
        TreeFormat::Json,
        args.extraction.max_file_size,
        cache,
    );
    let outline = |file: &FileEntry| -> Option<FileOutline> {
        file.language?;
        outliner.outline(file).ok()
    };
    match args.format {
        Format::Json => {
            for note in &found.notes {
                report(note);
            }
            let mut out = String::new();
            for file in &found.files {
                out.push_str(&json_lines(file, outline(&file.file).as_ref()));
                if out.len() > 1 << 16 {
                    print_or_exit(&out);
                    out.clear();
                }
            }
            print_or_exit(&out);
        }
        Format::Text => {
            let under = paths
                .iter()
                .map(|p| ast_outline::walk::display_path(p))
                .collect::<Vec<_>>()
                .join(" ");
            let count = |text: &str| ast_outline_budget::count(text).unwrap_or(text.len());
            let budget = Budget {
                max_tokens,
                count: &count,
            };
            let text = render_text(&found, &query, &under, &outline, &budget);
            if text.is_empty() {
                // Not even the note that the budget is too small fits.
                let budget = match (&args.max_tokens, &settings.file) {
                    (None, Some(file)) => {
                        format!("max_tokens.search = {max_tokens} (of {})", file.display())
                    }
                    _ => format!("--max-tokens {max_tokens}"),
                };
                report(format!(
                    "{budget} is too small to say anything about {}; raise it",
                    outline_core::text::plural(found.hit_count(), "hit")
                ));
                return ExitCode::FAILURE;
            }
            print_or_exit(&text);
        }
    }
    if let Some(error) = outliner.end() {
        report(format!(
            "note: the outline cache could not be written: {error}"
        ));
    }
    ExitCode::SUCCESS
}
