//! `tests TARGET`, `impact` and `config`: the tests that reach a
//! definition, what a diff touches, and the project settings in effect
//! ([`index::impact`], [`index::diff`], [`ast_outline_settings`]).

use std::io::Read as _;
use std::path::Path;
use std::process::ExitCode;

use index::diff::{self, Base, FileDiff};
use index::impact::{impact, impact_answer, tests_answer};
use index::open::Query;

use super::args::{ConfigArgs, Format, ImpactArgs, TestsArgs};
use super::index::note;
use super::output::{print_or_exit, report};
use super::settings::settings_or_exit;

fn print(format: Format, (text, value): (String, serde_json::Value)) -> ExitCode {
    match format {
        Format::Text => print_or_exit(&text),
        Format::Json => print_or_exit(&format!("{value}\n")),
    }
    ExitCode::SUCCESS
}

/// `ast-outline tests TARGET`.
pub(super) fn run_tests(args: &TestsArgs) -> ExitCode {
    let opened = match Query::open(&args.location.location(), Some(&args.target), &note) {
        Ok(opened) => opened,
        Err(message) => {
            report(message);
            return ExitCode::FAILURE;
        }
    };
    let settings = match settings_or_exit(&opened.root) {
        Ok(settings) => settings,
        Err(code) => return code,
    };
    let symbol = match opened.symbol(&note) {
        Ok(symbol) => symbol,
        Err(error) => {
            report(error.to_string());
            return ExitCode::FAILURE;
        }
    };
    let budget = args
        .max_tokens
        .or(settings.max_tokens.tests)
        .unwrap_or(DEFAULT_TESTS_TOKENS);
    match tests_answer(&opened.index, &symbol, args.depth, budget, &|path| {
        settings.is_test(path)
    }) {
        Ok(answer) => print(args.location.format, answer),
        Err(message) => {
            report(message);
            ExitCode::FAILURE
        }
    }
}

/// The default `--max-tokens` of `tests`.
pub const DEFAULT_TESTS_TOKENS: usize = 4_000;

/// The default `--max-tokens` of `impact`.
pub const DEFAULT_IMPACT_TOKENS: usize = 6_000;

/// `ast-outline impact`.
pub(super) fn run_impact(args: &ImpactArgs) -> ExitCode {
    // Read standard input before anything else can fail on it.
    let piped = match args.diff.as_deref() {
        Some(source) => {
            let text = if source == Path::new("-") {
                let mut text = String::new();
                std::io::stdin()
                    .read_to_string(&mut text)
                    .map(|_| text)
                    .map_err(|error| format!("cannot read the diff from standard input: {error}"))
            } else {
                std::fs::read_to_string(source)
                    .map_err(|error| format!("cannot read the diff {}: {error}", source.display()))
            };
            match text.and_then(|text| diff::parse(&text)) {
                Ok(files) => Some(files),
                Err(message) => {
                    report(format!("error: {message}"));
                    return ExitCode::from(2);
                }
            }
        }
        None => None,
    };
    let opened = match Query::open(&args.location.location(), None, &note) {
        Ok(opened) => opened,
        Err(message) => {
            report(message);
            return ExitCode::FAILURE;
        }
    };
    let settings = match settings_or_exit(&opened.root) {
        Ok(settings) => settings,
        Err(code) => return code,
    };
    let root = opened.root.clone();
    let (what, files, rev): (String, Vec<FileDiff>, Option<String>) = match piped {
        Some(files) => ("diff read from input".to_owned(), files, None),
        None => {
            let base = match &args.base {
                Some(rev) => Base::Rev(rev.clone()),
                None => Base::Head,
            };
            match diff::git_diff(&root, &base) {
                Ok(got) => {
                    let what = match &got.base {
                        Some(rev) => format!("working tree against {rev}"),
                        None => "working tree (no commit yet: every file is new)".to_owned(),
                    };
                    (what, got.files, got.base)
                }
                Err(message) => {
                    report(format!("error: {message}"));
                    return ExitCode::FAILURE;
                }
            }
        }
    };
    let old_texts = diff::OldTexts::new(&root);
    let old_text = |file: &FileDiff| {
        let path = file.old_path.as_deref()?;
        old_texts.get(rev.as_deref(), path, file.old_blob.as_deref())
    };
    let budget = args
        .max_tokens
        .or(settings.max_tokens.impact)
        .unwrap_or(DEFAULT_IMPACT_TOKENS);
    let result = impact(&opened.index, what, files, &old_text, args.depth, &|path| {
        settings.is_test(path)
    })
    .map_err(|error| error.to_string())
    .and_then(|impact| impact_answer(&impact, budget));
    match result {
        Ok(answer) => print(args.location.format, answer),
        Err(message) => {
            report(message);
            ExitCode::FAILURE
        }
    }
}

/// `ast-outline config`.
pub(super) fn run_config(args: &ConfigArgs) -> ExitCode {
    // The root a query would answer for (the nearest index above, with the
    // default root).
    let location = index::open::Location {
        root: args.root.clone(),
        db: None,
        no_refresh: true,
    };
    let (location, _) = index::open::discover(&location, None);
    let settings = match settings_or_exit(&location.root) {
        Ok(settings) => settings,
        Err(code) => return code,
    };
    match args.format {
        Format::Text => print_or_exit(&settings.render_text()),
        Format::Json => print_or_exit(&format!("{}\n", settings.to_json())),
    }
    ExitCode::SUCCESS
}
