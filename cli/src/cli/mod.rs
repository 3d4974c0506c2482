//! The command-line interface: flags in [`args`], one module per command.

pub mod args;
mod outline;
mod read;

use std::io::Write;
use std::process::ExitCode;

use clap::{CommandFactory, Parser};

use self::args::{Cli, Command};

/// Stack size of the threads that parse: parsers recurse on nested input.
const PARSER_STACK_BYTES: usize = 256 * 1024 * 1024;

/// Runs the command line and returns the process exit status: 0 on success
/// (also when files had syntax errors), 1 when nothing could be read, 2 for
/// usage errors.
pub fn main() -> ExitCode {
    let cli = Cli::parse();
    // Run on a thread with a large stack: parsers recurse on deeply nested code.
    let worker = std::thread::Builder::new()
        .name("ast-outline".into())
        .stack_size(PARSER_STACK_BYTES)
        .spawn(move || run(cli));
    match worker.map(std::thread::JoinHandle::join) {
        Ok(Ok(code)) => code,
        Ok(Err(_)) => {
            eprintln!("ast-outline: internal error (a panic); please report it");
            ExitCode::FAILURE
        }
        Err(error) => {
            eprintln!("ast-outline: cannot start a worker thread: {error}");
            ExitCode::FAILURE
        }
    }
}

fn run(cli: Cli) -> ExitCode {
    match cli.command {
        Command::Outline(args) => outline::run(&args),
        Command::Read(args) => read::run(&args),
        Command::Schema => {
            print_or_exit(&outline_core::schema::file_outline_schema_text());
            ExitCode::SUCCESS
        }
        Command::Completions { shell } => {
            let mut command = Cli::command();
            clap_complete::generate(shell, &mut command, "ast-outline", &mut std::io::stdout());
            ExitCode::SUCCESS
        }
    }
}

/// The thread pool that parses files, with large stacks.
fn parser_pool(threads: Option<u32>) -> Result<rayon::ThreadPool, rayon::ThreadPoolBuildError> {
    let mut builder = rayon::ThreadPoolBuilder::new().stack_size(PARSER_STACK_BYTES);
    if let Some(threads) = threads {
        builder = builder.num_threads(threads as usize);
    }
    builder.build()
}

/// Writes `text` to standard output; when the reader has gone away (a closed
/// pipe), exits quietly as other command-line tools do.
fn print_or_exit(text: &str) {
    let mut stdout = std::io::stdout().lock();
    if stdout
        .write_all(text.as_bytes())
        .and_then(|()| stdout.flush())
        .is_err()
    {
        std::process::exit(0);
    }
}

/// Prints an error message on standard error, prefixed with the tool's name.
fn report(message: impl std::fmt::Display) {
    eprintln!("ast-outline: {message}");
}
