//! Parsing in supervised worker processes, so that no file can end the
//! process that asked for it.
//!
//! The parsers run on a 256 MiB stack with nesting guards (see
//! `docs/limits.md`), which holds for every hostile input we know; but a
//! stack overflow or an allocation failure aborts a whole process, and a
//! parse that never ends cannot be stopped from inside it. A long-running
//! server (MCP, LSP, watch) that parses in its own process would end, or
//! hang, for every query after such a file. So, once [`install`]ed, every
//! parse of this library ([`crate::outline_source_as`],
//! [`crate::outline_source_with_facts`] and all that use them) is sent to a
//! worker process (the same binary, started with the arguments given to
//! [`install`], whose `main` calls [`serve_worker`]) and the outline comes
//! back serialized. The supervisor:
//! - keeps up to [`Limits::workers`] workers, one file at a time each, so a
//!   failure is the fault of exactly one file;
//! - kills a worker whose parse takes longer than [`Limits::time`] or whose
//!   resident memory passes [`Limits::memory_bytes`] (read from
//!   `/proc/PID/statm` every 20 ms on Linux; elsewhere only the time limit
//!   holds), and starts a new one for the next file;
//! - when a worker dies (a stack overflow, an abort, a signal), or is
//!   killed, answers for that file an empty partial outline with one error
//!   diagnostic saying why ([`WORKER_FAILURE`] starts its message) and no
//!   cross-reference facts, and remembers the failure by the text's hash,
//!   so the same text is not tried again in this process;
//! - parses in this process, saying so once on standard error, when no
//!   worker can be started.
//!
//! This is rust-analyzer's and ruff's stance on bad input (a partial result
//! and a diagnostic, never a crash), carried to failures that cannot be
//! caught in-process.
//!
//! Wire format (native-endian does not matter: both ends are one binary, but
//! it is little-endian anyway): a request is a `u32` length and a JSON header
//! (`path`, `language`, `block_threshold`, `max_nesting`, `facts`), then a
//! `u64` length and the UTF-8 source; an answer is a `u64` length and the
//! `rmp_serde` named encoding of `(FileOutline, Option<Facts>)`.

use std::collections::HashMap;
use std::ffi::OsString;
use std::io::{self, BufReader, BufWriter, Read, Write};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, Command, ExitCode, ExitStatus, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::sync::{Arc, Condvar, Mutex, OnceLock, PoisonError};
use std::time::{Duration, Instant};

use outline_core::xref::Facts;
use outline_core::{FileOutline, Language, OutlineOptions};
use serde::{Deserialize, Serialize};

/// The message every diagnostic of a failed worker starts with: a program
/// can tell such an outline from one the parser made (the outline cache
/// does not keep them). It starts with [`outline_core::NOT_OUTLINED`].
pub const WORKER_FAILURE: &str = "not outlined: the parser's worker process";

/// Environment variable that, set to `1` in a worker's environment, lets a
/// source holding `@@ast-outline-fault:KIND@@` make the worker fail on
/// purpose: `KIND` is `abort` (the process aborts), `overflow` (a real
/// stack overflow), `hang` (the parse never ends) or `alloc` (memory grows
/// without bound). Only for tests of the supervision: without it the marker
/// is plain text.
pub const FAULTS_ENV: &str = "AST_OUTLINE_WORKER_FAULTS";

/// The limits a worker's parse runs under.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Longest time one file's parse may take (wall clock). Default 60 s: a
    /// 100,000-function Rust file takes 30 s in a debug build.
    pub time: Duration,
    /// Largest resident memory of a worker, in bytes. Default 4 GiB: the
    /// largest files outlined in `docs/limits.md` peak near 1.1 GB.
    pub memory_bytes: u64,
    /// How many workers may run at once (each parses one file at a time).
    /// Default: the machine's available parallelism.
    pub workers: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            time: Duration::from_secs(60),
            memory_bytes: 4 << 30,
            workers: std::thread::available_parallelism().map_or(2, usize::from),
        }
    }
}

/// Whether `outline` is the answer for a file whose worker failed (its
/// diagnostics hold one starting with [`WORKER_FAILURE`]).
pub fn failed_outline(outline: &FileOutline) -> bool {
    failure(outline).is_some()
}

/// The diagnostic saying why `outline`'s worker failed (its message starts
/// with [`WORKER_FAILURE`]), if it did.
pub fn failure(outline: &FileOutline) -> Option<&outline_core::Diagnostic> {
    outline
        .diagnostics
        .iter()
        .find(|diagnostic| diagnostic.message.starts_with(WORKER_FAILURE))
}

/// How to start a worker: `program` run with `args`, whose `main` calls
/// [`serve_worker`].
#[derive(Debug, Clone)]
pub struct WorkerCommand {
    /// The program, usually [`std::env::current_exe`].
    pub program: PathBuf,
    /// Its arguments (the binary's hidden worker subcommand).
    pub args: Vec<OsString>,
}

static SUPERVISOR: OnceLock<Supervisor> = OnceLock::new();

/// Sends every parse of this process to supervised workers started with
/// `command`, under `limits`, from now on. Workers start when the first
/// file is parsed. Returns false (and changes nothing) when a supervisor
/// was already installed.
pub fn install(command: WorkerCommand, limits: Limits) -> bool {
    SUPERVISOR
        .set(Supervisor {
            command,
            limits: Limits {
                workers: limits.workers.max(1),
                ..limits
            },
            pool: Mutex::new(Pool::default()),
            freed: Condvar::new(),
            failures: Mutex::new(HashMap::new()),
            unavailable: AtomicBool::new(false),
        })
        .is_ok()
}

/// Whether parses of this process go to supervised workers.
pub fn installed() -> bool {
    SUPERVISOR.get().is_some()
}

/// The parse of `source`, by a worker when a supervisor is installed;
/// `None` when it is not (or no worker can start), and the caller parses
/// in this process.
pub(crate) fn parse(
    path: &str,
    language: Language,
    source: &str,
    options: &OutlineOptions,
    facts: bool,
) -> Option<(FileOutline, Option<Facts>)> {
    SUPERVISOR
        .get()?
        .parse(path, language, source, options, facts)
}

/// The request header (the source follows it).
#[derive(Serialize, Deserialize)]
struct Header {
    path: String,
    language: Language,
    block_threshold: u32,
    max_nesting: u32,
    facts: bool,
}

/// Why a worker gave no outline.
#[derive(Debug, Clone)]
enum Failure {
    Died(String),
    TimedOut(Duration),
    Memory(u64),
}

impl Failure {
    /// Whether the worker was killed by SIGKILL or SIGTERM from outside
    /// (this supervisor's own kills are [`Failure::TimedOut`] and
    /// [`Failure::Memory`]).
    fn killed_from_outside(&self) -> bool {
        matches!(self, Failure::Died(how) if how.starts_with("killed by signal 9 ")
            || how.starts_with("killed by signal 15"))
    }

    fn message(&self) -> String {
        let why = match self {
            Failure::Died(how) => format!("stopped on this file ({how})"),
            Failure::TimedOut(limit) => format!(
                "took longer than {} s on this file and was stopped",
                limit.as_secs_f64()
            ),
            Failure::Memory(limit) => format!(
                "used more than {} MiB on this file and was stopped",
                limit >> 20
            ),
        };
        format!(
            "{WORKER_FAILURE} {why}; the rest of the project is served (please report this file)"
        )
    }
}

#[derive(Default)]
struct Pool {
    idle: Vec<Worker>,
    /// Workers alive, idle or busy.
    live: usize,
}

struct Supervisor {
    command: WorkerCommand,
    limits: Limits,
    pool: Mutex<Pool>,
    freed: Condvar,
    /// Failures by (language, facts asked, xxh3-128 of the source).
    failures: Mutex<HashMap<(Language, bool, u128), Failure>>,
    /// Set when a worker could not be started: parse in this process.
    unavailable: AtomicBool,
}

/// Most failures remembered; past it the memory is cleared (a failure is
/// then found again, at the cost of one more worker).
const MAX_FAILURES: usize = 10_000;

impl Supervisor {
    fn parse(
        &self,
        path: &str,
        language: Language,
        source: &str,
        options: &OutlineOptions,
        facts: bool,
    ) -> Option<(FileOutline, Option<Facts>)> {
        if self.unavailable.load(Ordering::Relaxed) {
            return None;
        }
        let key = (
            language,
            facts,
            xxhash_rust::xxh3::xxh3_128(source.as_bytes()),
        );
        let known = lock(&self.failures).get(&key).cloned();
        if let Some(failure) = known {
            return Some(failed(path, language, source, &failure, facts));
        }
        let header = Header {
            path: path.to_owned(),
            language,
            block_threshold: options.block_threshold,
            max_nesting: options.max_nesting,
            facts,
        };
        let mut worker = self.take()?;
        match worker.ask(&header, source, &self.limits) {
            Ok(answer) => {
                self.give_back(Some(worker));
                Some(answer)
            }
            Err(failure) if failure.killed_from_outside() => {
                // Not the file's fault (an administrator, the kernel's
                // out-of-memory killer): reported, and tried again next time.
                self.give_back(None);
                Some(failed(path, language, source, &failure, facts))
            }
            Err(failure) => {
                self.give_back(None);
                let mut failures = lock(&self.failures);
                if failures.len() >= MAX_FAILURES {
                    failures.clear();
                }
                failures.insert(key, failure.clone());
                Some(failed(path, language, source, &failure, facts))
            }
        }
    }

    /// An idle worker, a new one when fewer than the limit run, or the next
    /// one freed. `None` (and parsing in this process from now on) when a
    /// worker cannot be started.
    fn take(&self) -> Option<Worker> {
        let mut pool = lock(&self.pool);
        loop {
            if let Some(worker) = pool.idle.pop() {
                return Some(worker);
            }
            if pool.live < self.limits.workers {
                pool.live += 1;
                drop(pool);
                return match Worker::start(&self.command) {
                    Ok(worker) => Some(worker),
                    Err(error) => {
                        lock(&self.pool).live -= 1;
                        self.freed.notify_all();
                        if !self.unavailable.swap(true, Ordering::Relaxed) {
                            eprintln!(
                                "ast-outline: cannot start a parse worker ({}: {error}); \
                                 parsing in this process, unsupervised",
                                self.command.program.display()
                            );
                        }
                        None
                    }
                };
            }
            pool = self
                .freed
                .wait(pool)
                .unwrap_or_else(PoisonError::into_inner);
        }
    }

    /// Returns a worker to the pool, or (`None`) counts one fewer alive.
    fn give_back(&self, worker: Option<Worker>) {
        let mut pool = lock(&self.pool);
        match worker {
            Some(worker) => pool.idle.push(worker),
            None => pool.live -= 1,
        }
        drop(pool);
        self.freed.notify_one();
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

/// The outline given for a file whose worker failed: no symbols, partial,
/// one error diagnostic; facts empty (when asked for).
fn failed(
    path: &str,
    language: Language,
    source: &str,
    failure: &Failure,
    facts: bool,
) -> (FileOutline, Option<Facts>) {
    let outline = crate::not_outlined(path, language, source, failure.message());
    (outline, facts.then(Facts::default))
}

/// One worker process and the thread that reads its answers.
struct Worker {
    child: Child,
    /// Its input; `None` only while a request is being written.
    stdin: Option<BufWriter<ChildStdin>>,
    answers: Receiver<io::Result<Vec<u8>>>,
    /// The end of what the worker wrote on standard error (its last words).
    stderr: Arc<Mutex<Vec<u8>>>,
}

/// Most bytes of a worker's standard error kept.
const STDERR_TAIL: usize = 4096;

impl Worker {
    fn start(command: &WorkerCommand) -> io::Result<Worker> {
        let mut child = Command::new(&command.program)
            .args(&command.args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()?;
        let (Some(stdin), Some(stdout), Some(stderr)) =
            (child.stdin.take(), child.stdout.take(), child.stderr.take())
        else {
            let _ = child.kill();
            let _ = child.wait();
            return Err(io::Error::other("the worker's pipes were not made"));
        };
        let (sender, answers) = mpsc::channel();
        std::thread::Builder::new()
            .name("ast-outline-worker-out".into())
            .spawn(move || {
                let mut stdout = BufReader::new(stdout);
                loop {
                    let answer = read_frame(&mut stdout);
                    let stop = answer.is_err();
                    if sender.send(answer).is_err() || stop {
                        break;
                    }
                }
            })?;
        let tail = Arc::new(Mutex::new(Vec::new()));
        let kept = Arc::clone(&tail);
        std::thread::Builder::new()
            .name("ast-outline-worker-err".into())
            .spawn(move || {
                let mut stderr = stderr;
                let mut buffer = [0u8; 1024];
                while let Ok(n @ 1..) = stderr.read(&mut buffer) {
                    let mut kept = lock(&kept);
                    kept.extend_from_slice(&buffer[..n]);
                    let excess = kept.len().saturating_sub(STDERR_TAIL);
                    kept.drain(..excess);
                }
            })?;
        Ok(Worker {
            child,
            stdin: Some(BufWriter::new(stdin)),
            answers,
            stderr: tail,
        })
    }

    /// Sends one file and waits for its outline under `limits`. On any
    /// failure the worker is dead (killed when it was not) and reaped.
    ///
    /// The request is written from another thread under the same clock: a
    /// worker that stops reading (stopped, or stuck) cannot hold the caller
    /// past the time limit on a full pipe; killing it ends the write.
    fn ask(
        &mut self,
        header: &Header,
        source: &str,
        limits: &Limits,
    ) -> Result<(FileOutline, Option<Facts>), Failure> {
        let started = Instant::now();
        let Some(mut stdin) = self.stdin.take() else {
            return Err(self.died("its input was closed"));
        };
        let (written, write_result) = mpsc::channel();
        std::thread::scope(|scope| {
            let writer = scope.spawn(move || {
                let _ = written.send(write_request(&mut stdin, header, source));
                stdin
            });
            let answer = self.wait(started, limits, &write_result);
            // The worker answered (so it read everything) or is dead (so the
            // write has failed): the writer is done or about to be.
            let stdin = writer
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
            self.stdin = Some(stdin);
            answer
        })
    }

    /// Waits for the answer to the request being written (its result comes
    /// on `written`) under `limits`, from `started`.
    fn wait(
        &mut self,
        started: Instant,
        limits: &Limits,
        written: &Receiver<io::Result<()>>,
    ) -> Result<(FileOutline, Option<Facts>), Failure> {
        loop {
            match self.answers.recv_timeout(Duration::from_millis(20)) {
                Ok(Ok(bytes)) => {
                    return rmp_serde::from_slice(&bytes).map_err(|error| {
                        self.kill();
                        Failure::Died(format!("its answer could not be read: {error}"))
                    });
                }
                Ok(Err(error)) => return Err(self.died(&error.to_string())),
                Err(RecvTimeoutError::Disconnected) => return Err(self.died("no answer")),
                Err(RecvTimeoutError::Timeout) => {}
            }
            // A request that could not be written is never answered.
            if let Ok(Err(error)) = written.try_recv() {
                return Err(self.died(&error.to_string()));
            }
            if started.elapsed() > limits.time {
                self.kill();
                return Err(Failure::TimedOut(limits.time));
            }
            if resident_bytes(self.child.id()).is_some_and(|bytes| bytes > limits.memory_bytes) {
                self.kill();
                return Err(Failure::Memory(limits.memory_bytes));
            }
        }
    }

    fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    /// The failure of a worker that stopped answering: its exit status and
    /// the last line it wrote on standard error.
    fn died(&mut self, fallback: &str) -> Failure {
        // The pipe closes as the process ends: wait for it (a worker that
        // closed its output but lives on is killed after a moment).
        let deadline = Instant::now() + Duration::from_secs(2);
        let status = loop {
            match self.child.try_wait() {
                Ok(Some(status)) => break Some(status),
                Ok(None) if Instant::now() < deadline => {
                    std::thread::sleep(Duration::from_millis(5));
                }
                _ => {
                    self.kill();
                    break None;
                }
            }
        };
        // The standard error reader may still be draining the pipe.
        std::thread::sleep(Duration::from_millis(20));
        let tail = String::from_utf8_lossy(&lock(&self.stderr)).into_owned();
        let last = tail
            .lines()
            .map(str::trim)
            .rfind(|line| !line.is_empty())
            .map(str::to_owned);
        let how = status.map_or_else(|| fallback.to_owned(), describe);
        Failure::Died(match last {
            Some(last) => format!("{how}: {last}"),
            None => how,
        })
    }
}

impl Drop for Worker {
    fn drop(&mut self) {
        // Killed whether idle or busy (an idle one would also end when its
        // input closes, but a busy one would finish its file first).
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// "killed by signal 6 (SIGABRT)", "exited with status 3".
fn describe(status: ExitStatus) -> String {
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if let Some(signal) = status.signal() {
            let name = match signal {
                libc::SIGABRT => " (SIGABRT)",
                libc::SIGSEGV => " (SIGSEGV)",
                libc::SIGKILL => " (SIGKILL)",
                libc::SIGBUS => " (SIGBUS)",
                _ => "",
            };
            return format!("killed by signal {signal}{name}");
        }
    }
    match status.code() {
        Some(code) => format!("exited with status {code}"),
        None => "ended".to_owned(),
    }
}

/// The resident memory of process `pid` in bytes, from the `VmRSS` line of
/// `/proc/PID/status` (Linux, in KiB there); `None` elsewhere or when it
/// cannot be read.
fn resident_bytes(pid: u32) -> Option<u64> {
    if !cfg!(target_os = "linux") {
        return None;
    }
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|line| line.starts_with("VmRSS:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib << 10)
}

/// Largest request header, source or answer accepted, in bytes (a source
/// is at most the 64 MiB default `--max-file-size`, or what a caller
/// allows; an answer is a few times its source).
const MAX_FRAME: u64 = 1 << 34;

fn write_request(out: &mut impl Write, header: &Header, source: &str) -> io::Result<()> {
    let header = serde_json::to_vec(header).map_err(io::Error::other)?;
    let length = u32::try_from(header.len()).map_err(io::Error::other)?;
    out.write_all(&length.to_le_bytes())?;
    out.write_all(&header)?;
    out.write_all(&(source.len() as u64).to_le_bytes())?;
    out.write_all(source.as_bytes())?;
    out.flush()
}

fn read_frame(input: &mut impl Read) -> io::Result<Vec<u8>> {
    let mut length = [0u8; 8];
    input.read_exact(&mut length)?;
    read_body(input, u64::from_le_bytes(length))
}

fn read_body(input: &mut impl Read, length: u64) -> io::Result<Vec<u8>> {
    if length > MAX_FRAME {
        return Err(io::Error::other(format!("a frame of {length} bytes")));
    }
    let mut body = Vec::new();
    input.take(length).read_to_end(&mut body)?;
    if body.len() as u64 != length {
        return Err(io::ErrorKind::UnexpectedEof.into());
    }
    Ok(body)
}

/// A worker's `main`: reads requests on standard input and writes each
/// answer on standard output until its input ends (exit status 0) or a
/// request cannot be read (status 2, the reason on standard error). The
/// binary calls it for its hidden worker subcommand, on a thread with a
/// stack of [`crate::PARSER_STACK_BYTES`].
pub fn serve_worker() -> ExitCode {
    end_with_parent();
    let faults = std::env::var_os(FAULTS_ENV).is_some_and(|value| value == "1");
    let stdin = io::stdin();
    let mut input = BufReader::new(stdin.lock());
    let stdout = io::stdout();
    let mut output = BufWriter::new(stdout.lock());
    loop {
        let mut length = [0u8; 4];
        match input.read_exact(&mut length) {
            Ok(()) => {}
            Err(error) if error.kind() == io::ErrorKind::UnexpectedEof => return ExitCode::SUCCESS,
            Err(error) => return worker_error(&error.to_string()),
        }
        let request = read_body(&mut input, u64::from(u32::from_le_bytes(length)))
            .and_then(|header| serde_json::from_slice::<Header>(&header).map_err(io::Error::other))
            .and_then(|header| {
                let mut length = [0u8; 8];
                input.read_exact(&mut length)?;
                let source = read_body(&mut input, u64::from_le_bytes(length))?;
                let source = String::from_utf8(source).map_err(io::Error::other)?;
                Ok((header, source))
            });
        let (header, source) = match request {
            Ok(request) => request,
            Err(error) => return worker_error(&error.to_string()),
        };
        if faults {
            fault(&source);
        }
        let options = OutlineOptions {
            block_threshold: header.block_threshold,
            max_nesting: header.max_nesting,
        };
        let answer = if header.facts {
            let (outline, facts) =
                crate::in_process_with_facts(&header.path, header.language, &source, &options);
            rmp_serde::to_vec_named(&(outline, Some(facts)))
        } else {
            let outline = crate::in_process(&header.path, header.language, &source, &options);
            rmp_serde::to_vec_named(&(outline, None::<Facts>))
        };
        let written = answer.map_err(io::Error::other).and_then(|bytes| {
            output.write_all(&(bytes.len() as u64).to_le_bytes())?;
            output.write_all(&bytes)?;
            output.flush()
        });
        if let Err(error) = written {
            return worker_error(&error.to_string());
        }
    }
}

fn worker_error(message: &str) -> ExitCode {
    eprintln!("ast-outline parse worker: {message}");
    ExitCode::from(2)
}

/// Ends this worker soon after the process that started it ends (an idle
/// worker sees its input close; a busy one would otherwise finish its file
/// first): a thread checks the parent's id every second (on Unix; a parent
/// that ends gives its children a new one).
fn end_with_parent() {
    #[cfg(unix)]
    {
        let parent = std::os::unix::process::parent_id();
        let _ = std::thread::Builder::new()
            .name("ast-outline-worker-parent".into())
            .spawn(move || {
                loop {
                    std::thread::sleep(Duration::from_secs(1));
                    if std::os::unix::process::parent_id() != parent {
                        std::process::exit(3);
                    }
                }
            });
    }
}

/// The test faults of [`FAULTS_ENV`].
fn fault(source: &str) {
    const MARK: &str = "@@ast-outline-fault:";
    let Some(start) = source.find(MARK) else {
        return;
    };
    let kind = &source[start + MARK.len()..];
    let kind = kind.split("@@").next().unwrap_or_default();
    match kind {
        "abort" => std::process::abort(),
        "overflow" => {
            fn deeper(n: u64, pad: &mut [u8; 4096]) -> u64 {
                pad[(n % 4096) as usize] = n as u8;
                if n == u64::MAX {
                    return 0;
                }
                let mut next = std::hint::black_box([0u8; 4096]);
                deeper(n + 1, &mut next) + u64::from(std::hint::black_box(pad)[0])
            }
            let mut pad = [0u8; 4096];
            let _ = std::hint::black_box(deeper(0, &mut pad));
        }
        "hang" => loop {
            std::thread::sleep(Duration::from_secs(1));
        },
        "alloc" => {
            let mut hoard: Vec<Vec<u8>> = Vec::new();
            loop {
                hoard.push(vec![1u8; 64 << 20]);
                std::hint::black_box(&hoard);
            }
        }
        _ => {}
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    /// A "worker" that never reads its input (`sleep`) is sent a source far
    /// larger than a pipe holds: the write blocks, and the time limit must
    /// still end the request (the kill ends the write).
    #[test]
    fn a_worker_that_never_reads_its_request_is_stopped_at_the_time_limit() {
        let command = WorkerCommand {
            program: PathBuf::from("sleep"),
            args: vec![OsString::from("600")],
        };
        let mut worker = Worker::start(&command).expect("start `sleep`");
        let limits = Limits {
            time: Duration::from_millis(500),
            ..Limits::default()
        };
        let header = Header {
            path: "big.py".to_owned(),
            language: Language::Python,
            block_threshold: 100,
            max_nesting: 100,
            facts: false,
        };
        let source = "x = 1\n".repeat(1 << 20);
        let answer = worker.ask(&header, &source, &limits);
        assert!(
            matches!(answer, Err(Failure::TimedOut(time)) if time == limits.time),
            "{:?}",
            answer.err()
        );
        // Killed and reaped.
        assert!(worker.child.try_wait().expect("try_wait").is_some());
    }
}
