//! The `ast-outline` command: flags in [`args`], one module per command,
//! each a thin layer over the library crates (`ast-outline`, `index`,
//! `ast-outline-mcp`, `ast-outline-lsp`, `ast-outline-live`) that prints
//! what they give.

mod args;
mod at;
mod chunks;
mod context;
mod impact;
mod index;
mod mcp;
mod outline;
mod output;
mod prompt;
mod read;
mod search;
mod settings;
mod tools;
mod watch;

use std::process::ExitCode;

use clap::{CommandFactory, Parser};

use ast_outline::PARSER_STACK_BYTES;

use self::args::{Cli, Command};
use self::output::print_or_exit;

/// mimalloc: building an index allocates and frees millions of small strings
/// and vectors from several threads, where glibc's allocator took about a
/// quarter of the time (`perf` on the Python standard library).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Runs the command line and returns the process exit status: 0 on success
/// (also when files had syntax errors), 1 when nothing could be read, 2 for
/// usage errors.
fn main() -> ExitCode {
    if std::env::args_os()
        .nth(1)
        .is_some_and(|first| first == PARSE_WORKER)
    {
        return on_big_stack(ast_outline::supervise::serve_worker);
    }
    let cli = Cli::parse();
    supervise(&cli.parsing);
    on_big_stack(move || run(cli))
}

/// The hidden first argument that makes this binary a parse worker
/// ([`ast_outline::supervise::serve_worker`]).
const PARSE_WORKER: &str = "__parse-worker";

/// Sends this process's parses to supervised worker processes (this binary
/// with [`PARSE_WORKER`]), unless `--parse-in-process` was given: a file
/// that overflows a parser's stack, runs out of memory or never ends is
/// reported and every other file served.
fn supervise(parsing: &args::ParsingArgs) {
    if parsing.parse_in_process {
        return;
    }
    let Ok(program) = std::env::current_exe() else {
        eprintln!("ast-outline: cannot find this program's path; parsing unsupervised");
        return;
    };
    ast_outline::supervise::install(
        ast_outline::supervise::WorkerCommand {
            program,
            args: vec![PARSE_WORKER.into()],
        },
        ast_outline::supervise::Limits {
            time: std::time::Duration::from_secs_f64(parsing.parse_timeout),
            memory_bytes: parsing.parse_memory << 20,
            ..ast_outline::supervise::Limits::default()
        },
    );
}

/// Runs `job` on a thread with a large stack: parsers recurse on deeply
/// nested code.
fn on_big_stack(job: impl FnOnce() -> ExitCode + Send + 'static) -> ExitCode {
    let worker = std::thread::Builder::new()
        .name("ast-outline".into())
        .stack_size(PARSER_STACK_BYTES)
        .spawn(job);
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
        Command::At(args) => at::run(&args),
        Command::Search(args) => search::run(&args),
        Command::Chunks(args) => chunks::run(&args),
        Command::Mcp(args) => mcp::run(&args),
        Command::Lsp(args) => ast_outline_lsp::run(&args.options()),
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
        Command::Tests(args) => impact::run_tests(&args),
        Command::Impact(args) => impact::run_impact(&args),
        Command::Config(args) => impact::run_config(&args),
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
