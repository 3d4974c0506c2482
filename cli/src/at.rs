//! `ast-outline at PATH:LINE...`: the symbols and blocks holding a line
//! ([`ast_outline::around::at`]).

use std::process::ExitCode;

use super::args::AtArgs;
use super::output::{print_or_exit, report};

pub(super) fn run(args: &AtArgs) -> ExitCode {
    let options = args.extraction.options();
    let mut answered = false;
    for target in &args.targets {
        match ast_outline::around::at(target, &options, args.extraction.max_file_size) {
            Ok(text) => {
                print_or_exit(&text);
                answered = true;
            }
            Err(message) => report(message),
        }
    }
    if answered {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
