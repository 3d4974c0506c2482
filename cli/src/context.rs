//! `ast-outline context PATH:LINE[:COL]`: the ranked context of the symbol
//! at a position within a token budget ([`index::context`]).

use std::process::ExitCode;

use index::open::Query;

use super::args::{ContextArgs, Format};
use super::index::note;
use super::output::{print_or_exit, report};

/// The default `--max-tokens` of `context`.
const DEFAULT_CONTEXT_TOKENS: usize = 4000;

/// `ast-outline context TARGET`.
pub(super) fn run_context(args: &ContextArgs) -> ExitCode {
    let format = match args.location.format {
        Format::Text => index::context::Format::Text,
        Format::Json => index::context::Format::Json,
    };
    if let Err(code) = super::settings::settings_gate(&args.location.location()) {
        return code;
    }
    let answer =
        Query::open(&args.location.location(), Some(&args.target), &note).and_then(|opened| {
            // Flags win over the project settings, which win over defaults.
            let settings = index::open::check_settings(&opened.root)?;
            // An id whose line moved is found by qualname: say so, as
            // `refs` and `read` do (a target that names nothing is the
            // answer's error below).
            let _ = opened.symbol(&note);
            let kind = match args.kind {
                Some(kind) => kind.into(),
                None => settings.context_kind.into(),
            };
            let budget = args
                .max_tokens
                .or(settings.max_tokens.context)
                .unwrap_or(DEFAULT_CONTEXT_TOKENS);
            index::context::context_answer_with(
                &opened.index,
                &opened.root,
                opened.target.as_deref().unwrap_or_default(),
                kind,
                budget,
                format,
                &index::context::ContextOptions::from_settings(&settings),
            )
        });
    match answer {
        Ok(text) => {
            print_or_exit(&text);
            ExitCode::SUCCESS
        }
        Err(message) => {
            report(message);
            ExitCode::FAILURE
        }
    }
}
