//! `ast-outline at PATH:LINE...`: the symbols and blocks holding a line
//! ([`ast_outline::around::at`]).

use std::process::ExitCode;

use super::args::AtArgs;
use super::output::{print_or_exit, report};

pub(super) fn run(args: &AtArgs) -> ExitCode {
    // Targets are paths from the current directory: its project's settings.
    let settings = match super::settings::settings_for_or_exit(std::path::Path::new(".")) {
        Ok((_, settings)) => settings,
        Err(code) => return code,
    };
    let options = args.extraction.options(&settings);
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
