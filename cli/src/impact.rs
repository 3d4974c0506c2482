//! `tests TARGET`, `impact` and `config`: the tests that reach a
//! definition, what a diff touches, and the project settings in effect
//! ([`index::impact`], [`index::diff`], [`ast_outline_settings`]).

use std::io::Read;
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
    if let Err(code) = super::settings::settings_gate(&args.location.location()) {
        return code;
    }
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
    // A TypeScript/JavaScript test case by its callback's id: itself.
    if let Some(target) = opened.target.as_deref() {
        match index::impact::callback_tests_answer(&opened.index, target) {
            Ok(Some(answer)) => return print(args.location.format, answer),
            Ok(None) => {}
            Err(message) => {
                report(message);
                return ExitCode::FAILURE;
            }
        }
    }
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
    let hint = index::impact::hidden_tests_hint(&settings);
    match tests_answer(
        &opened.index,
        &symbol,
        args.depth,
        budget,
        &|path| settings.is_test(path),
        hint.as_deref(),
    ) {
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

/// The largest diff `impact --diff` reads, in bytes (a diff of 100,000
/// files of ordinary changes is far below; `/dev/zero` is not).
const MAX_DIFF_BYTES: u64 = 256 * 1024 * 1024;

/// The diff of `--diff SOURCE` (`-`: standard input) and how the answer
/// names it. Bytes that are not UTF-8 (a file in Latin-1) are replaced,
/// as git's own diff of such a file is read.
fn read_diff(source: &Path) -> Result<(String, String), String> {
    let (name, reader): (String, Box<dyn std::io::Read>) = if source == Path::new("-") {
        ("standard input".to_owned(), Box::new(std::io::stdin()))
    } else {
        let file = std::fs::File::open(source)
            .map_err(|error| format!("cannot read the diff {}: {error}", source.display()))?;
        (source.display().to_string(), Box::new(file))
    };
    let mut bytes = Vec::new();
    reader
        .take(MAX_DIFF_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|error| format!("cannot read the diff from {name}: {error}"))?;
    if bytes.len() as u64 > MAX_DIFF_BYTES {
        return Err(format!(
            "the diff from {name} is larger than {} MiB; give a smaller diff",
            MAX_DIFF_BYTES / (1024 * 1024)
        ));
    }
    Ok((
        format!("diff read from {name}"),
        String::from_utf8_lossy(&bytes).into_owned(),
    ))
}

/// `ast-outline impact`.
pub(super) fn run_impact(args: &ImpactArgs) -> ExitCode {
    // Read standard input before anything else can fail on it.
    let piped = match args.diff.as_deref() {
        Some(source) => match read_diff(source)
            .and_then(|(what, text)| diff::parse(&text).map(|files| (what, files)))
        {
            Ok(read) => Some(read),
            Err(message) => {
                report(format!("error: {message}"));
                return ExitCode::from(2);
            }
        },
        None => None,
    };
    if let Err(code) = super::settings::settings_gate(&args.location.location()) {
        return code;
    }
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
        Some((what, files)) => (what, files, None),
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
    .and_then(|impact| {
        impact_answer(
            &impact,
            budget,
            index::impact::hidden_tests_hint(&settings).as_deref(),
        )
    });
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
    if !location.root.is_dir() {
        report(format!(
            "{}: no such directory (config prints the settings of a project root)",
            location.root.display()
        ));
        return ExitCode::from(2);
    }
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
