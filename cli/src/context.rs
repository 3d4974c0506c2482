//! `ast-outline context PATH:LINE[:COL]`: the ranked context of the symbol
//! at a position within a token budget ([`index::context`]).

use std::process::ExitCode;

use index::open::Query;

use super::args::{ContextArgs, Format};
use super::index::note;
use super::output::{print_or_exit, report};

/// `ast-outline context TARGET`.
pub(super) fn run_context(args: &ContextArgs) -> ExitCode {
    let format = match args.location.format {
        Format::Text => index::context::Format::Text,
        Format::Json => index::context::Format::Json,
    };
    let answer =
        Query::open(&args.location.location(), Some(&args.target), &note).and_then(|opened| {
            index::context::context_answer(
                &opened.index,
                &opened.root,
                opened.target.as_deref().unwrap_or_default(),
                args.kind.into(),
                args.max_tokens,
                format,
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
