//! The command-line interface: flags in [`args`], one module per command.

pub mod args;
pub(crate) mod context;
pub(crate) mod index;
mod mcp;
mod outline;
mod prompt;
pub(crate) mod read;
mod tools;
mod watch;

use std::io::Write;
use std::process::ExitCode;

use clap::{CommandFactory, Parser};

use self::args::{Cli, Command};

/// Stack size of the threads that parse: parsers recurse on nested input.
pub(crate) const PARSER_STACK_BYTES: usize = 256 * 1024 * 1024;

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
        Command::Lsp(args) => crate::lsp::run(&args),
        Command::Watch(args) => watch::run(&args),
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
    print_all_or_exit(&[text]);
}

/// [`print_or_exit`] for several texts one after the other, written with
/// vectored writes (no copy into one buffer).
fn print_all_or_exit<T: AsRef<str>>(texts: &[T]) {
    let mut stdout = std::io::stdout().lock();
    match write_all_vectored(&mut stdout, texts).and_then(|()| stdout.flush()) {
        Ok(()) => {}
        Err(error) if error.kind() == std::io::ErrorKind::BrokenPipe => std::process::exit(0),
        Err(error) => {
            report(format!("cannot write the output: {error}"));
            std::process::exit(1);
        }
    }
}

/// Writes every text of `texts` in order to `out`, as few vectored writes as
/// the writer takes.
///
/// # Errors
/// The writer's, or [`std::io::ErrorKind::WriteZero`] when it takes nothing.
fn write_all_vectored<T: AsRef<str>>(out: &mut impl Write, texts: &[T]) -> std::io::Result<()> {
    let mut slices: Vec<std::io::IoSlice<'_>> = texts
        .iter()
        .map(|t| t.as_ref().as_bytes())
        .filter(|b| !b.is_empty())
        .map(std::io::IoSlice::new)
        .collect();
    let mut rest = slices.as_mut_slice();
    while !rest.is_empty() {
        match out.write_vectored(rest) {
            Ok(0) => return Err(std::io::ErrorKind::WriteZero.into()),
            Ok(written) => std::io::IoSlice::advance_slices(&mut rest, written),
            Err(error) if error.kind() == std::io::ErrorKind::Interrupted => {}
            Err(error) => return Err(error),
        }
    }
    Ok(())
}

/// Prints an error message on standard error, prefixed with the tool's name.
pub(crate) fn report(message: impl std::fmt::Display) {
    eprintln!("ast-outline: {message}");
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A writer that takes at most `step` bytes per call, and only from the
    /// first slice of a vectored write (as the default method does).
    struct Trickle {
        out: Vec<u8>,
        step: usize,
    }

    impl Write for Trickle {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            let n = buf.len().min(self.step);
            self.out.extend_from_slice(&buf[..n]);
            Ok(n)
        }

        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn vectored_output_survives_short_writes_and_keeps_the_order() {
        let texts = ["alpha\n", "", "\n", "beta gamma\n", "δ\n"];
        for step in [1, 2, 3, 7, 100] {
            let mut out = Trickle {
                out: Vec::new(),
                step,
            };
            write_all_vectored(&mut out, &texts).expect("write");
            assert_eq!(String::from_utf8(out.out).expect("utf8"), texts.concat());
        }
        let mut stuck = Trickle {
            out: Vec::new(),
            step: 0,
        };
        let error = write_all_vectored(&mut stuck, &texts).expect_err("nothing taken");
        assert_eq!(error.kind(), std::io::ErrorKind::WriteZero);
    }
}
