//! The command-line interface: flags in [`args`], one module per command.

pub mod args;
mod context;
mod index;
mod mcp;
mod outline;
mod prompt;
pub(crate) mod read;
mod tools;

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
        Command::Mcp(args) => mcp::run(&args),
        Command::Tools(args) => tools::run(&args),
        Command::Prompt => prompt::run(),
        Command::Index(args) => index::run_index(&args),
        Command::Refs(args) => index::run_refs(&args),
        Command::Callers(args) => index::run_callers(&args),
        Command::Callees(args) => index::run_callees(&args),
        Command::Hierarchy(args) => index::run_hierarchy(&args),
        Command::Defs(args) => index::run_defs(&args),
        Command::Context(args) => context::run_context(&args),
        Command::Export(args) => index::run_export(&args),
        Command::Schema => {
            print_or_exit(&outline_core::schema::file_outline_schema_text());
            ExitCode::SUCCESS
        }
        Command::Completions { shell } => {
            let mut script = Vec::new();
            clap_complete::generate(shell, &mut Cli::command(), "ast-outline", &mut script);
            print_or_exit(&String::from_utf8_lossy(&script));
            ExitCode::SUCCESS
        }
    }
}

/// Most worker threads started, whatever `--threads` asks for.
const MAX_THREADS: usize = 256;

/// The thread pool that parses `files` files, with large stacks: `threads`
/// workers (default one per CPU), never more than there are files.
fn parser_pool(
    threads: Option<u32>,
    files: usize,
) -> Result<rayon::ThreadPool, rayon::ThreadPoolBuildError> {
    let mut builder = rayon::ThreadPoolBuilder::new().stack_size(PARSER_STACK_BYTES);
    if let Some(threads) = threads {
        let threads = (threads as usize).min(files).clamp(1, MAX_THREADS);
        builder = builder.num_threads(threads);
    }
    builder.build()
}

/// Writes `text` to standard output. When the reader has gone away (a closed
/// pipe, as with `| head`), exits quietly with status 0 as other command-line
/// tools do; any other write error (a full disk) is reported, with status 1.
fn print_or_exit(text: &str) {
    let mut stdout = std::io::stdout().lock();
    match stdout
        .write_all(text.as_bytes())
        .and_then(|()| stdout.flush())
    {
        Ok(()) => {}
        Err(error) if error.kind() == std::io::ErrorKind::BrokenPipe => std::process::exit(0),
        Err(error) => {
            report(format!("cannot write the output: {error}"));
            std::process::exit(1);
        }
    }
}

/// Prints an error message on standard error, prefixed with the tool's name.
fn report(message: impl std::fmt::Display) {
    eprintln!("ast-outline: {message}");
}
