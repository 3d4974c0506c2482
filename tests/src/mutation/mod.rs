//! The mutation harness: how much of an outline survives one syntax error.
//!
//! For each file of a corpus (see [`crate::corpus`]) the harness injects one
//! syntax error, outlines the original and the mutant with the language's
//! adapter, and counts what survived.
//!
//! **Mutation.** A deterministic generator ([`rng::Rng`], splitmix64 seeded
//! with the run's seed and the file's path) picks one top-level symbol of the
//! original outline, then one family of mutation (the next one that has a
//! place in the item when it has none) and a place inside the item's lines:
//! delete a `:`, `)`, `}` or `>`; cut a line in half (a line break inserted
//! after the first non-blank character of a line and before its last one);
//! insert an unmatched `(`; insert an unterminated string opener (`"""` in
//! Python, a backtick in TypeScript, `r#"` in Rust); or write a keyword twice
//! (`def` → `def def`). Insertions go before a non-blank character. Each
//! mutant is printed as `path:line:column what`, and the same seed gives the
//! same mutant for that path whatever the sample: a failure is replayed with
//! `--seed S --only PATH`.
//!
//! **Damaged items.** The top-level symbols of the original outline whose line
//! range contains the line of the mutation (usually the one item chosen; more
//! when items share that line). All symbols inside them are left out of the
//! count.
//!
//! **Kept.** Every other symbol of the original outline, at every depth
//! (children of blocks included), is expected in the mutant's outline with the
//! same qualname, kind, start line and end line (compared as multisets). A cut
//! line adds one line: the expected lines of a symbol that starts after the
//! mutation's line are moved down by one (a symbol outside the damaged items
//! lies wholly before or wholly after that line). The share kept is kept
//! symbols over expected symbols, over all mutants of the language.
//!
//! **Silent mutants.** A mutant that the language's own parser rejects (see
//! [`verdict`]) must get at least one error diagnostic; one it accepts needs
//! none (a deleted `>` in a comment is still valid code).
//!
//! **Crashes.** A panic of the adapter on the original or the mutant, caught
//! per file with `catch_unwind` around the adapter itself (not the CLI's
//! wrapper, which turns panics into diagnostics).
//!
//! **End of file.** In the other mode ([`Mode::Eof`], `--mode eof`), the
//! error is unrelated to every symbol: one broken ending (an operator
//! missing, a `{` or a string left open until the end of the file, a
//! parameter list or a call not closed; picked per file by the same
//! generator) is appended on a new line after the file's last line. Every
//! symbol of the original outline is then expected unchanged.
//!
//! Files left out: not UTF-8, holding a `\r` that does not start `\r\n` (lines
//! would be counted differently), whose original outline has an error
//! diagnostic, or with no top-level symbol.

pub mod mutate;
pub mod rng;
pub mod verdict;

use std::collections::HashMap;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use outline_core::{FileOutline, Language, Outline, OutlineOptions, Severity, Symbol};

use self::mutate::Mutant;
use self::rng::Rng;

/// Where the one syntax error goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// Inside a random top-level item (see [`mutate::mutate`]).
    Inject,
    /// On a new line appended after the end of the file (see
    /// [`mutate::append_error`]).
    Eof,
}

impl Mode {
    /// The name used on the command line: `inject`, `eof`.
    pub fn name(self) -> &'static str {
        match self {
            Mode::Inject => "inject",
            Mode::Eof => "eof",
        }
    }

    /// The mode for a name given on the command line.
    pub fn from_name(name: &str) -> Option<Mode> {
        [Mode::Inject, Mode::Eof]
            .into_iter()
            .find(|m| m.name() == name)
    }
}

/// A corpus language.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lang {
    /// The Python standard library.
    Python,
    /// TypeScript's `lib*.d.ts`, rxjs (`.ts`, `.d.ts`, `.js`), and the `.ts`
    /// and `.tsx` sources of ra-core and msw.
    Ts,
    /// The registry crates of `Cargo.lock`.
    Rust,
}

impl Lang {
    /// Every language, in report order.
    pub const ALL: [Lang; 3] = [Lang::Python, Lang::Ts, Lang::Rust];

    /// The name used on the command line: `python`, `ts`, `rust`.
    pub fn name(self) -> &'static str {
        match self {
            Lang::Python => "python",
            Lang::Ts => "ts",
            Lang::Rust => "rust",
        }
    }

    /// The language for a name given on the command line.
    pub fn from_name(name: &str) -> Option<Lang> {
        Lang::ALL.into_iter().find(|l| l.name() == name)
    }

    /// The part of the language's corpus a display path belongs to: for
    /// TypeScript, `lib`, `rxjs`, `ra-core` or `msw` (see
    /// [`crate::corpus::TS_CORPORA`]); for the others, one part (`stdlib`,
    /// `crates`).
    pub fn corpus_of(self, shown: &str) -> &'static str {
        match self {
            Lang::Python => "stdlib",
            Lang::Ts => crate::corpus::ts_corpus_of(shown),
            Lang::Rust => "crates",
        }
    }

    /// The corpus files, as (display path, path on disk), sorted.
    pub fn corpus(self) -> Vec<(String, PathBuf)> {
        match self {
            Lang::Python => crate::corpus::python_files(&crate::corpus::stdlib_dir()),
            Lang::Ts => {
                let dir = crate::corpus::ts_oracle_dir();
                crate::corpus::ensure_ts_packages(&dir);
                crate::corpus::ts_package_files(&dir)
                    .into_iter()
                    .map(|relative| {
                        let path = dir.join(&relative);
                        (relative, path)
                    })
                    .collect()
            }
            Lang::Rust => {
                let registry = dirs_registry();
                crate::corpus::locked_crate_files()
                    .into_iter()
                    .map(|path| {
                        let shown = registry
                            .as_ref()
                            .and_then(|r| path.strip_prefix(r).ok())
                            .map(|p| p.to_string_lossy().replace('\\', "/"))
                            .and_then(|p| p.split_once('/').map(|(_, rest)| rest.to_owned()))
                            .unwrap_or_else(|| path.to_string_lossy().into_owned());
                        (shown, path)
                    })
                    .collect()
            }
        }
    }
}

/// `$CARGO_HOME/registry/src`, to show crate paths as `NAME-VERSION/…`.
fn dirs_registry() -> Option<PathBuf> {
    std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cargo")))
        .map(|home| home.join("registry/src"))
}

/// A symbol as compared: `(qualname, kind, start_line, end_line)`.
pub type Key = (String, String, u32, u32);

/// What happened to one file.
#[derive(Debug, Clone)]
pub struct FileResult {
    /// The display path.
    pub path: String,
    /// The mutation as `line:column what`, when the file was mutated.
    pub mutation: Option<String>,
    /// Why the file was left out, when it was.
    pub skipped: Option<&'static str>,
    /// Symbols of the original outside the damaged items.
    pub expected: usize,
    /// Those found unchanged in the mutant's outline.
    pub kept: usize,
    /// Those not found (their expected keys).
    pub lost: Vec<Key>,
    /// Whether the mutant's outline has an error diagnostic.
    pub diagnosed: bool,
    /// The language's parser's error on the mutant (filled in for undiagnosed
    /// mutants only: a diagnosed mutant needs no verdict).
    pub rejected: Option<String>,
    /// The panic message, when the adapter panicked.
    pub crash: Option<String>,
    /// The mutant's text, kept until the verdict for undiagnosed mutants.
    mutant_text: Option<String>,
}

/// The figures of one part of a corpus (see [`Lang::corpus_of`]).
#[derive(Debug, Clone, Default)]
pub struct CorpusFigures {
    /// The part's name.
    pub name: &'static str,
    /// Files of the part in the run.
    pub files: usize,
    /// Files mutated and compared.
    pub mutants: usize,
    /// Symbols expected unchanged.
    pub expected: usize,
    /// Those kept.
    pub kept: usize,
}

impl CorpusFigures {
    /// Kept symbols as a percentage of expected ones (100 when none expected).
    pub fn kept_percent(&self) -> f64 {
        if self.expected == 0 {
            100.0
        } else {
            self.kept as f64 * 100.0 / self.expected as f64
        }
    }
}

/// The figures of one language.
#[derive(Debug, Clone)]
pub struct Report {
    /// The language.
    pub lang: Lang,
    /// Where the error went.
    pub mode: Mode,
    /// Files in the corpus (or the sample).
    pub files: usize,
    /// Files mutated and compared.
    pub mutants: usize,
    /// Symbols outside the damaged items, over all mutants.
    pub expected: usize,
    /// Those kept.
    pub kept: usize,
    /// Mutants the parser rejects that got no error diagnostic.
    pub silent: Vec<FileResult>,
    /// Files on which the adapter panicked.
    pub crashes: Vec<FileResult>,
    /// Every file's result, in corpus order.
    pub results: Vec<FileResult>,
    /// Wall-clock time of the run.
    pub elapsed: Duration,
}

impl Report {
    /// Kept symbols as a percentage of expected ones (100 when none expected).
    pub fn kept_percent(&self) -> f64 {
        if self.expected == 0 {
            100.0
        } else {
            self.kept as f64 * 100.0 / self.expected as f64
        }
    }

    /// The figures of each part of the corpus, in the order met.
    pub fn corpora(&self) -> Vec<CorpusFigures> {
        let mut out: Vec<CorpusFigures> = Vec::new();
        for result in &self.results {
            let name = self.lang.corpus_of(&result.path);
            let i = match out.iter().position(|c| c.name == name) {
                Some(i) => i,
                None => {
                    out.push(CorpusFigures {
                        name,
                        ..CorpusFigures::default()
                    });
                    out.len() - 1
                }
            };
            let Some(figures) = out.get_mut(i) else {
                continue;
            };
            figures.files += 1;
            if result.mutation.is_some() {
                figures.mutants += 1;
                figures.expected += result.expected;
                figures.kept += result.kept;
            }
        }
        out
    }

    /// A one-line summary.
    pub fn summary(&self) -> String {
        let expected = match self.mode {
            Mode::Inject => "symbols outside the damaged item",
            Mode::Eof => "symbols (error appended at the end)",
        };
        format!(
            "{} {}: {} files, {} mutants, {} {expected}, {} kept ({:.2} %), \
             {} mutants rejected by the parser without a diagnostic, {} crashes, {:.1} s",
            self.lang.name(),
            self.mode.name(),
            self.files,
            self.mutants,
            self.expected,
            self.kept,
            self.kept_percent(),
            self.silent.len(),
            self.crashes.len(),
            self.elapsed.as_secs_f64()
        )
    }
}

/// Every `n`-th file so that `sample` files are taken, evenly spread over the
/// sorted corpus (all of them when `sample` is `None` or not smaller).
pub fn sample<T: Clone>(files: &[T], sample: Option<usize>) -> Vec<T> {
    match sample {
        Some(n) if n < files.len() => (0..n)
            .filter_map(|i| files.get(i * files.len() / n).cloned())
            .collect(),
        _ => files.to_vec(),
    }
}

/// Runs the harness on `files` of `lang` with `seed` in `mode`, on `threads`
/// worker threads (64 MiB stacks, like the CLI's).
pub fn run(
    lang: Lang,
    files: &[(String, PathBuf)],
    seed: u64,
    threads: usize,
    mode: Mode,
) -> Report {
    let started = Instant::now();
    let next = AtomicUsize::new(0);
    let mut results: Vec<(usize, FileResult)> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads.max(1))
            .map(|_| {
                std::thread::Builder::new()
                    .stack_size(64 << 20)
                    .spawn_scoped(scope, || {
                        let mut done = Vec::new();
                        loop {
                            let i = next.fetch_add(1, Ordering::Relaxed);
                            let Some((shown, path)) = files.get(i) else {
                                break;
                            };
                            done.push((i, one_file(lang, shown, path, seed, mode)));
                        }
                        done
                    })
                    .expect("worker thread starts")
            })
            .collect();
        workers
            .into_iter()
            .flat_map(|w| w.join().expect("worker thread"))
            .collect()
    });
    results.sort_by_key(|(i, _)| *i);
    let mut results: Vec<FileResult> = results.into_iter().map(|(_, r)| r).collect();

    // The parser's verdict, for the mutants that got no error diagnostic.
    let undiagnosed: Vec<usize> = results
        .iter()
        .enumerate()
        .filter(|(_, r)| r.mutant_text.is_some() && !r.diagnosed && r.crash.is_none())
        .map(|(i, _)| i)
        .collect();
    let items: Vec<(String, String)> = undiagnosed
        .iter()
        .filter_map(|&i| results.get(i))
        .map(|r| (r.path.clone(), r.mutant_text.clone().unwrap_or_default()))
        .collect();
    let verdicts = verdict::rejections(lang, &items);
    for (&i, verdict) in undiagnosed.iter().zip(verdicts) {
        if let Some(result) = results.get_mut(i) {
            result.rejected = verdict;
        }
    }
    for result in &mut results {
        result.mutant_text = None;
    }

    let mutated: Vec<&FileResult> = results.iter().filter(|r| r.mutation.is_some()).collect();
    Report {
        lang,
        mode,
        files: files.len(),
        mutants: mutated.len(),
        expected: mutated.iter().map(|r| r.expected).sum(),
        kept: mutated.iter().map(|r| r.kept).sum(),
        silent: results
            .iter()
            .filter(|r| !r.diagnosed && r.rejected.is_some())
            .cloned()
            .collect(),
        crashes: results
            .iter()
            .filter(|r| r.crash.is_some())
            .cloned()
            .collect(),
        elapsed: started.elapsed(),
        results,
    }
}

fn language_of(lang: Lang, path: &str) -> Option<Language> {
    match lang {
        Lang::Python => Some(Language::Python),
        Lang::Rust => Some(Language::Rust),
        Lang::Ts => Language::from_path(path),
    }
}

/// Outlines `text` with the adapter itself, catching a panic.
fn outline(path: &str, language: Language, text: &str) -> Result<FileOutline, String> {
    let options = OutlineOptions::default();
    catch_unwind(AssertUnwindSafe(|| match language {
        Language::Python => lang_python::PythonOutline.outline(path, language, text, &options),
        Language::Rust => lang_rust::RustOutline.outline(path, language, text, &options),
        _ => lang_ts::TypeScriptOutline.outline(path, language, text, &options),
    }))
    .map_err(|panic| {
        panic
            .downcast_ref::<&str>()
            .map(|s| (*s).to_owned())
            .or_else(|| panic.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "panic".to_owned())
    })
}

fn skipped(path: &str, why: &'static str) -> FileResult {
    FileResult {
        path: path.to_owned(),
        mutation: None,
        skipped: Some(why),
        expected: 0,
        kept: 0,
        lost: Vec::new(),
        diagnosed: false,
        rejected: None,
        crash: None,
        mutant_text: None,
    }
}

/// Every symbol of `symbols`, at every depth, with its key.
fn flatten<'a>(symbols: &'a [Symbol], out: &mut Vec<&'a Symbol>) {
    for symbol in symbols {
        out.push(symbol);
        flatten(&symbol.children, out);
    }
}

fn key(symbol: &Symbol, shift: u32) -> Key {
    (
        symbol.qualname.clone(),
        format!("{:?}", symbol.kind),
        symbol.start_line + shift,
        symbol.end_line + shift,
    )
}

fn has_error(outline: &FileOutline) -> bool {
    outline
        .diagnostics
        .iter()
        .any(|d| d.severity == Severity::Error)
}

/// The mutant of `text` (outlined as `original`) for `seed`: in a random
/// top-level item (up to 8 tries when an item has no place for a mutation),
/// or in [`Mode::Eof`] a broken ending appended (`None` when the file has no
/// symbol).
fn choose_mutant(
    lang: Lang,
    shown: &str,
    text: &str,
    original: &FileOutline,
    seed: u64,
    mode: Mode,
) -> Option<Mutant> {
    let starts = mutate::line_starts(text);
    let mut rng = Rng::for_file(seed, shown);
    if mode == Mode::Eof {
        if original.symbols.is_empty() {
            return None;
        }
        return mutate::append_error(text, lang, &starts, &mut rng);
    }
    for _ in 0..8 {
        let item = rng.pick(&original.symbols)?;
        let mutant = mutate::mutate(
            text,
            lang,
            &starts,
            (item.start_line, item.end_line),
            &mut rng,
        );
        if mutant.is_some() {
            return mutant;
        }
    }
    None
}

/// The mutant of one file and its outline, to look at a result closely: `None`
/// when the file is left out or the adapter panics.
pub fn replay(
    lang: Lang,
    shown: &str,
    path: &std::path::Path,
    seed: u64,
    mode: Mode,
) -> Option<(Mutant, FileOutline)> {
    let language = language_of(lang, shown)?;
    let text = String::from_utf8(std::fs::read(path).ok()?).ok()?;
    let text = outline_core::strip_bom(&text);
    let original = outline(shown, language, text).ok()?;
    let mutant = choose_mutant(lang, shown, text, &original, seed, mode)?;
    let outlined = outline(shown, language, &mutant.text).ok()?;
    Some((mutant, outlined))
}

/// Mutates one file and compares the outlines.
pub fn one_file(
    lang: Lang,
    shown: &str,
    path: &std::path::Path,
    seed: u64,
    mode: Mode,
) -> FileResult {
    let Some(language) = language_of(lang, shown) else {
        return skipped(shown, "unknown extension");
    };
    let Ok(bytes) = std::fs::read(path) else {
        return skipped(shown, "unreadable");
    };
    let Ok(text) = String::from_utf8(bytes) else {
        return skipped(shown, "not UTF-8");
    };
    let text = outline_core::strip_bom(&text);
    if text
        .match_indices('\r')
        .any(|(i, _)| text.as_bytes().get(i + 1) != Some(&b'\n'))
    {
        return skipped(shown, "lone carriage return");
    }
    let original = match outline(shown, language, text) {
        Ok(outline) => outline,
        Err(panic) => {
            let mut result = skipped(shown, "adapter panicked on the original");
            result.crash = Some(format!("original: {panic}"));
            return result;
        }
    };
    if has_error(&original) {
        return skipped(shown, "original has errors");
    }
    let Some(mutant) = choose_mutant(lang, shown, text, &original, seed, mode) else {
        return skipped(shown, "no top-level item to mutate");
    };
    let mutation = format!("{}:{} {}", mutant.line, mutant.column, mutant.what);

    let mut expected_symbols = Vec::new();
    let undamaged: Vec<Symbol> = original
        .symbols
        .iter()
        .filter(|s| !(s.start_line <= mutant.line && mutant.line <= s.end_line))
        .cloned()
        .collect();
    flatten(&undamaged, &mut expected_symbols);
    let expected: Vec<Key> = expected_symbols
        .iter()
        .map(|s| {
            let shift = if s.start_line > mutant.line {
                mutant.line_delta
            } else {
                0
            };
            key(s, shift)
        })
        .collect();

    let mutated = match outline(shown, language, &mutant.text) {
        Ok(outline) => outline,
        Err(panic) => {
            return FileResult {
                path: shown.to_owned(),
                mutation: Some(mutation),
                skipped: None,
                expected: expected.len(),
                kept: 0,
                lost: expected,
                diagnosed: false,
                rejected: None,
                crash: Some(format!("mutant: {panic}")),
                mutant_text: None,
            };
        }
    };
    let mut found: Vec<&Symbol> = Vec::new();
    flatten(&mutated.symbols, &mut found);
    let mut available: HashMap<Key, usize> = HashMap::new();
    for symbol in found {
        *available.entry(key(symbol, 0)).or_default() += 1;
    }
    let mut kept = 0;
    let mut lost = Vec::new();
    for key in expected {
        match available.get_mut(&key) {
            Some(n) if *n > 0 => {
                *n -= 1;
                kept += 1;
            }
            _ => lost.push(key),
        }
    }
    let diagnosed = has_error(&mutated);
    FileResult {
        path: shown.to_owned(),
        mutation: Some(mutation),
        skipped: None,
        expected: kept + lost.len(),
        kept,
        lost,
        diagnosed,
        rejected: None,
        crash: None,
        mutant_text: (!diagnosed).then_some(mutant.text),
    }
}
