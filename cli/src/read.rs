//! `ast-outline read TARGET...`: print one symbol or line range with a header
//! ([`ast_outline::read`]).

use std::process::ExitCode;

use super::args::ReadArgs;
use super::output::{print_or_exit, report};

pub(super) fn run(args: &ReadArgs) -> ExitCode {
    let options = args.extraction.options();
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
