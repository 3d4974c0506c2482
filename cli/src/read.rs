//! `ast-outline read TARGET...`: print one symbol or line range with a header
//! ([`ast_outline::read`]).

use std::process::ExitCode;

use super::args::ReadArgs;
use super::output::{print_or_exit, report};

pub(super) fn run(args: &ReadArgs) -> ExitCode {
    // Targets are paths from the current directory: its project's settings.
    let settings = match super::settings::settings_for_or_exit(std::path::Path::new(".")) {
        Ok((_, settings)) => settings,
        Err(code) => return code,
    };
    let options = args.extraction.options(&settings);
    let mut read_any = false;
    for target in &args.targets {
        match ast_outline::read::read(target, &options, args.extraction.max_file_size) {
            Ok(read) => {
                for note in read.notes {
                    report(note);
                }
                print_or_exit(&read.text);
                read_any = true;
            }
            Err(message) => report(message),
        }
    }
    if read_any {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
