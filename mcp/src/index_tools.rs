//! The cross-file tools: `find_references`, `get_callers`,
//! `get_type_hierarchy` and `get_context`, answered from the index of the
//! server's root (`ROOT/.ast-outline/index.sqlite`, the one `ast-outline
//! index` builds). The index is opened on the first call (built then, if
//! missing) and refreshed before every answer, so results always describe the
//! files as they are on disk now: a refresh re-reads only the files whose
//! content hash changed.
//!
//! The texts are the CLI's (`refs`, `callers`, `callees`, `hierarchy`,
//! `context`: [`index::answers`], [`index::context`]), cut after whole lines to `max_tokens` with a note saying so.

use std::sync::{Arc, Mutex};

use index::Index;
use index::names::Names;
use index::query::{self, SymbolRow};
use schemars::JsonSchema;
use serde::Deserialize;

use ast_outline_budget as tokens;
use ast_outline_live::{Live, LiveOptions};
use index::answers as queries;
use index::context::{self, ContextKind, Format};
use index::diff::{self, Base, FileDiff};
use index::impact;

use super::tools::Workspace;

/// Default of `max_tokens` for the cross-file tools.
pub const DEFAULT_INDEX_TOKENS: u32 = 4_000;
/// Deepest `depth` `get_callers` follows.
pub const MOST_CALLER_DEPTH: u32 = 10;

/// Arguments of `find_references`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FindReferencesArgs {
    /// The definition: a symbol id (PATH:START_LINE:QUALNAME, from
    /// get_file_outline or find_symbol), PATH:QUALNAME (`app/models.py:User.save`),
    /// or PATH:LINE:COL of a use or of the name where it is defined (1-based,
    /// characters).
    pub target: String,
    /// Also list the references that could not be resolved but name it as a
    /// candidate (`x.save()` where the type of `x` is unknown). Default
    /// false: then only those whose name the project defines once, here, in
    /// a file the calling file imports, are listed (labelled `candidate`).
    pub include_candidates: Option<bool>,
    /// Largest result, in o200k_base tokens (default 4000); a longer list is
    /// cut after whole lines with a note.
    #[schemars(range(min = 1))]
    pub max_tokens: Option<u32>,
}

/// Which way `get_callers` follows calls (LSP call hierarchy terms).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum CallDirection {
    /// Who calls the target (incoming calls), `depth` levels up.
    #[default]
    Incoming,
    /// What the target calls (outgoing calls), with what each resolved to.
    Outgoing,
}

/// Arguments of `get_callers`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GetCallersArgs {
    /// The function or method: an id, PATH:QUALNAME or PATH:LINE:COL (as in
    /// find_references).
    pub target: String,
    /// `incoming` (default): who calls it; `outgoing`: what it calls.
    pub direction: Option<CallDirection>,
    /// Incoming only: levels of callers (1 = direct callers, 2 = also their
    /// callers…; default 1, at most 10).
    #[schemars(range(min = 1, max = 10))]
    pub depth: Option<u32>,
    /// Largest result, in o200k_base tokens (default 4000).
    #[schemars(range(min = 1))]
    pub max_tokens: Option<u32>,
}

/// Arguments of `find_tests`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FindTestsArgs {
    /// The function, method or class: an id, PATH:QUALNAME or PATH:LINE:COL
    /// (as in find_references).
    pub target: String,
    /// Most calls between a test and the target (1 = tests calling it
    /// directly; default 8, at most 100).
    #[schemars(range(min = 1, max = 100))]
    pub depth: Option<u32>,
    /// Largest result, in o200k_base tokens (default: the project settings'
    /// max_tokens.tests, else 4000).
    #[schemars(range(min = 1))]
    pub max_tokens: Option<u32>,
}

/// Arguments of `get_impact`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GetImpactArgs {
    /// Compare the working tree with this git revision instead of HEAD.
    pub base: Option<String>,
    /// A unified diff (paths relative to the root) to read instead of
    /// asking git.
    pub diff: Option<String>,
    /// Most calls between a test and a changed definition (default 8).
    #[schemars(range(min = 1, max = 100))]
    pub depth: Option<u32>,
    /// Largest result, in o200k_base tokens (default: the project settings'
    /// max_tokens.impact, else 6000).
    #[schemars(range(min = 1))]
    pub max_tokens: Option<u32>,
}

/// Arguments of `get_type_hierarchy`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TypeHierarchyArgs {
    /// The class, interface, struct, enum or trait: an id, PATH:QUALNAME or
    /// PATH:LINE:COL.
    pub target: String,
    /// Largest result, in o200k_base tokens (default 4000).
    #[schemars(range(min = 1))]
    pub max_tokens: Option<u32>,
}

/// What `get_context` adds after the definition.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ContextWanted {
    /// The definition only.
    #[default]
    Definition,
    /// The lines around each resolved reference, the target's own file first.
    References,
    /// The code of each direct caller.
    Callers,
    /// The code of each supertype, then each subtype, nearest first.
    TypeHierarchy,
    /// Callers, references and type hierarchy, in the order of the
    /// project settings' context.weights (callers first by default).
    All,
    /// Instead of the definition: its signature, then the symbols shaped
    /// like it in its file and directory (same kind, shared bases or
    /// traits, decorators, name pattern, parameters), ranked, each with
    /// why; the first two with their first lines. For writing new code
    /// like the code next to it.
    Siblings,
}

impl From<ContextWanted> for ContextKind {
    fn from(wanted: ContextWanted) -> ContextKind {
        match wanted {
            ContextWanted::Definition => ContextKind::Definition,
            ContextWanted::References => ContextKind::References,
            ContextWanted::Callers => ContextKind::Callers,
            ContextWanted::TypeHierarchy => ContextKind::TypeHierarchy,
            ContextWanted::All => ContextKind::All,
            ContextWanted::Siblings => ContextKind::Siblings,
        }
    }
}

/// Arguments of `get_context`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GetContextArgs {
    /// Where the symbol is: PATH:LINE:COL (a use or the defining name),
    /// PATH:LINE (the innermost definition around that line), an id, or
    /// PATH:QUALNAME.
    pub target: String,
    /// `definition` (default), `references`, `callers`, `type_hierarchy`,
    /// `all`, or `siblings` (the symbols shaped like it nearby, ranked, with
    /// why: to write new code like the code next to it).
    pub kind: Option<ContextWanted>,
    /// Largest result, in o200k_base tokens (default 4000). Blocks are added
    /// in rank order while they fit; the first that does not is cut to its
    /// first lines, and the result says how many were left out.
    #[schemars(range(min = 1))]
    pub max_tokens: Option<u32>,
}

/// The index of a workspace, opened on first use: a [`Live`] index that
/// follows the tree's changes (the default), or, without watching, an index
/// refreshed from every file before each answer.
#[derive(Debug)]
pub struct LiveIndex {
    options: LiveOptions,
    held: Mutex<Option<Held>>,
    /// The names `find_symbol` matches, kept in step with the index.
    names: Mutex<Names>,
}

/// An opened index.
enum Held {
    /// Watched: pending changes are read before each answer.
    Live(Arc<Live>),
    /// Not watched: refreshed from every file before each answer.
    Plain(Index),
}

impl std::fmt::Debug for Held {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Held::Live(_) => "Live",
            Held::Plain(_) => "Plain",
        })
    }
}

impl LiveIndex {
    /// An index to be opened on first use, following changes as `options`
    /// say.
    pub fn new(options: LiveOptions) -> LiveIndex {
        LiveIndex {
            options,
            held: Mutex::new(None),
            names: Mutex::new(Names::new()),
        }
    }
}

impl LiveIndex {
    /// Whether the index is open (a cross-file tool or `find_symbol` opened
    /// it).
    fn is_open(&self) -> bool {
        self.held.lock().is_ok_and(|held| held.is_some())
    }
}

impl Drop for LiveIndex {
    fn drop(&mut self) {
        if let Ok(held) = self.held.get_mut()
            && let Some(Held::Live(live)) = held.as_ref()
        {
            live.stop();
        }
    }
}

/// The display paths an answer's rows come from (every `path` field).
fn paths_in(value: &serde_json::Value, out: &mut Vec<String>) {
    match value {
        serde_json::Value::Object(map) => {
            for (key, value) in map {
                match (key.as_str(), value) {
                    ("path", serde_json::Value::String(path)) => out.push(path.clone()),
                    _ => paths_in(value, out),
                }
            }
        }
        serde_json::Value::Array(items) => items.iter().for_each(|v| paths_in(v, out)),
        _ => {}
    }
}

/// `text`, with a note after it naming the files it came from that changed
/// on disk after they were indexed (`stale`), if any.
fn with_stale_note(text: String, stale: &[String]) -> String {
    if stale.is_empty() {
        return text;
    }
    format!(
        "{text}\n(note: changed on disk since indexed, so lines above may be out of date: {}; \
         ask again for the new state)\n",
        stale.join(", ")
    )
}

impl Workspace {
    /// Runs `work` on the index of the root, brought up to date first
    /// (opened, or built, on the first call): `work` gives the answer and
    /// the display paths it came from. When one of those files changed on
    /// disk since it was indexed (its event not yet received), the file is
    /// read again and `work` runs once more; a file changed even then is
    /// named in a note after the answer, instead of passing its old lines
    /// off as current.
    fn with_index(
        &self,
        work: impl Fn(&Index) -> Result<(String, Vec<String>), String>,
    ) -> Result<String, String> {
        let answer = self.with_index_if(true, |index| work(index).map(Some))?;
        answer.ok_or_else(|| "the index could not be opened".to_owned())
    }

    /// [`Workspace::with_index`] for an answer the index may decline
    /// (`work` gives `None`: the caller answers otherwise); with `open`
    /// false and no index open yet, `None` without opening one.
    fn with_index_if(
        &self,
        open: bool,
        work: impl Fn(&Index) -> Result<Option<(String, Vec<String>)>, String>,
    ) -> Result<Option<String>, String> {
        let live_index = self.live_index();
        let mut held = live_index
            .held
            .lock()
            .map_err(|_| "the index is unavailable after an earlier failure".to_owned())?;
        let root = self.root();
        if held.is_none() && !open {
            return Ok(None);
        }
        if held.is_none() {
            *held = Some(if live_index.options.watch {
                Held::Live(Live::start(
                    root,
                    None,
                    live_index.options,
                    Box::new(|_| {}),
                )?)
            } else {
                Held::Plain(
                    index::open::open_and_refresh(root, None, &index::open::print_note)
                        .map_err(|refused| refused.message)?
                        .0,
                )
            });
        } else if let Some(Held::Plain(index)) = held.as_mut() {
            index::open::refresh(index, root).map_err(|refused| refused.message)?;
        }
        match held.as_mut() {
            Some(Held::Live(live)) => {
                let answer = || {
                    live.query(|index| {
                        Ok::<_, String>(work(index)?.map(|(text, files)| {
                            (with_failures_note(index, text), live.stale(index, &files))
                        }))
                    })
                };
                let Some((mut text, mut stale)) = answer()? else {
                    return Ok(None);
                };
                if !stale.is_empty() {
                    live.changed(stale.iter().map(std::path::PathBuf::from));
                    let Some(again) = answer()? else {
                        return Ok(None);
                    };
                    (text, stale) = again;
                }
                Ok(Some(with_stale_note(text, &stale)))
            }
            Some(Held::Plain(index)) => {
                let Some((text, files)) = work(index)? else {
                    return Ok(None);
                };
                let text = with_failures_note(index, text);
                let stale = index.stale(root, &files).map_err(|e| e.to_string())?;
                Ok(Some(with_stale_note(text, &stale)))
            }
            None => Err("the index could not be opened".to_owned()),
        }
    }

    /// `find_symbol(pattern)` from the index, when one is open or a
    /// complete one of this build is on disk ([`index::open::has_index`]:
    /// it is opened then, and followed from then on): the walk's answer
    /// ([`Workspace::find_walking`]), from the names the index stores
    /// ([`index::names`]). `None` — the caller walks — when there is no
    /// index, it cannot be opened, or it would not give the walk's answer:
    /// `target` is a directory it holds no file under (ignored or hidden,
    /// which a walk from the directory itself would enter) or a file it
    /// does not hold, a file under `target` was left out of it (binary,
    /// too large, unreadable), or its last walk met something it could not
    /// read (both said by the walk's answer).
    ///
    /// # Errors
    /// None of its own: every failure of the index is a `None`.
    pub(super) fn find_in_index(
        &self,
        pattern: &ast_outline::find::Pattern,
        target: &super::jail::Jailed,
    ) -> Result<Option<String>, String> {
        let open = self.live_index().is_open() || index::open::has_index(self.root());
        let names = &self.live_index().names;
        let answer = self.with_index_if(open, |index| {
            let declines =
                |index: &Index| -> Result<bool, index::Error> {
                    let display = target.display.as_str();
                    let held = if display == "." {
                        true
                    } else if target.real.is_dir() {
                        index.holds_files_under(display)?
                    } else {
                        index.holds_file(display)?
                    };
                    Ok(!held
                        || !index.left_out(display)?.is_empty()
                        || !index.walk_notes()?.is_empty())
                };
            if declines(index).map_err(|e| e.to_string())? {
                return Ok(None);
            }
            let mut names = names
                .lock()
                .map_err(|_| "the names are unavailable after an earlier failure".to_owned())?;
            let found = names
                .sync(index)
                .and_then(|()| names.find(index, pattern, &target.display));
            let found = match found {
                Ok(found) => found,
                Err(error) => {
                    // Read again from the start at the next call.
                    *names = Names::new();
                    return Err(error.to_string());
                }
            };
            let mut files: Vec<String> = found.shown().map(|s| s.path.clone()).collect();
            files.sort();
            files.dedup();
            let found = found
                .try_map(|shown| Ok::<_, std::convert::Infallible>(shown.line))
                .unwrap_or_else(|never| match never {});
            Ok(Some((
                ast_outline::find::render(&found, pattern, &target.display, &[]),
                files,
            )))
        });
        Ok(answer.unwrap_or(None))
    }

    /// The definition `target` names, with advice when none or several do.
    fn target(index: &Index, target: &str) -> Result<SymbolRow, String> {
        query::find_target(index.connection(), target).map_err(|error| {
            let error = for_agents(&error.to_string());
            if error.contains("no indexed file") {
                format!(
                    "{error}; paths are relative to the root, as get_file_outline and \
                     find_symbol print them"
                )
            } else {
                error
            }
        })
    }

    /// `find_references`: the references to a definition, grouped by file.
    ///
    /// # Errors
    /// A message when the target names no single definition, or the index
    /// cannot be opened or refreshed.
    pub fn find_references(&self, args: &FindReferencesArgs) -> Result<String, String> {
        let budget = budget(args.max_tokens)?;
        self.with_index(|index| {
            let symbol = Self::target(index, &args.target)?;
            let (text, json) =
                queries::refs_answer(index, &symbol, args.include_candidates.unwrap_or(false))
                    .map_err(|e| e.to_string())?;
            Ok((
                cut(&with_moved_note(index, &args.target, &symbol, text), budget)?,
                files_of(&json),
            ))
        })
    }

    /// `get_callers`: incoming calls (`depth` levels) or outgoing calls.
    ///
    /// # Errors
    /// As [`Workspace::find_references`]; also when `depth` is 0, over
    /// [`MOST_CALLER_DEPTH`], or given with `outgoing`.
    pub fn get_callers(&self, args: &GetCallersArgs) -> Result<String, String> {
        let budget = budget(args.max_tokens)?;
        let direction = args.direction.unwrap_or_default();
        let depth = match (direction, args.depth) {
            (CallDirection::Outgoing, Some(_)) => {
                return Err("depth applies to incoming calls only; leave it out with \
                     direction=outgoing"
                    .to_owned());
            }
            (_, Some(0)) => return Err("depth must be at least 1 (got 0)".to_owned()),
            (_, Some(depth)) if depth > MOST_CALLER_DEPTH => {
                return Err(format!(
                    "depth must be at most {MOST_CALLER_DEPTH} (got {depth})"
                ));
            }
            (_, depth) => depth.unwrap_or(1),
        };
        self.with_index(|index| {
            let symbol = Self::target(index, &args.target)?;
            let (text, json) = match direction {
                CallDirection::Incoming => queries::callers_answer(index, &symbol, depth),
                CallDirection::Outgoing => queries::callees_answer(index, &symbol),
            }
            .map_err(|e| e.to_string())?;
            Ok((
                cut(&with_moved_note(index, &args.target, &symbol, text), budget)?,
                files_of(&json),
            ))
        })
    }

    /// `find_tests`: the tests that reach a definition, with call paths.
    ///
    /// # Errors
    /// As [`Workspace::find_references`]; also when `depth` is out of range.
    pub fn find_tests(&self, args: &FindTestsArgs) -> Result<String, String> {
        let depth = test_depth(args.depth)?;
        let settings = self.settings();
        let budget = match args.max_tokens {
            Some(_) => budget(args.max_tokens)?,
            None => settings.max_tokens.tests.unwrap_or(DEFAULT_TESTS_TOKENS),
        };
        let hint = impact::hidden_tests_hint(&settings);
        let text = self.with_index(|index| {
            // A TypeScript/JavaScript test case by its callback's id.
            if let Some((text, json)) = impact::callback_tests_answer(index, &args.target)? {
                return Ok((text, files_of(&json)));
            }
            let symbol = Self::target(index, &args.target)?;
            let (text, json) = impact::tests_answer(
                index,
                &symbol,
                depth,
                budget,
                &|p| settings.is_test(p),
                hint.as_deref(),
            )?;
            Ok((
                with_moved_note(index, &args.target, &symbol, in_tool_terms(&text)),
                files_of(&json),
            ))
        })?;
        Ok(text)
    }

    /// `get_impact`: what a diff (git's, or one given) touches.
    ///
    /// # Errors
    /// A message outside a git repository, for an unknown revision or a diff
    /// that cannot be read, or as [`Workspace::find_references`].
    pub fn get_impact(&self, args: &GetImpactArgs) -> Result<String, String> {
        let depth = test_depth(args.depth)?;
        let settings = self.settings();
        let budget = match args.max_tokens {
            Some(_) => budget(args.max_tokens)?,
            None => settings.max_tokens.impact.unwrap_or(DEFAULT_IMPACT_TOKENS),
        };
        if args.base.is_some() && args.diff.is_some() {
            return Err("give base or diff, not both".to_owned());
        }
        let root = self.root();
        let (what, files, rev) = match &args.diff {
            Some(text) => ("diff given".to_owned(), diff::parse(text)?, None),
            None => {
                let base = args.base.clone().map_or(Base::Head, Base::Rev);
                let got = diff::git_diff(root, &base)?;
                let what = match &got.base {
                    Some(rev) => format!("working tree against {rev}"),
                    None => "working tree (no commit yet: every file is new)".to_owned(),
                };
                (what, got.files, got.base)
            }
        };
        let text = self.with_index(|index| {
            let old_texts = diff::OldTexts::new(root);
            let old_text = |file: &FileDiff| {
                let path = file.old_path.as_deref()?;
                old_texts.get(rev.as_deref(), path, file.old_blob.as_deref())
            };
            let found =
                impact::impact(index, what.clone(), files.clone(), &old_text, depth, &|p| {
                    settings.is_test(p)
                })
                .map_err(|e| e.to_string())?;
            let (text, json) = impact::impact_answer(
                &found,
                budget,
                impact::hidden_tests_hint(&settings).as_deref(),
            )?;
            Ok((in_tool_terms(&text), files_of(&json)))
        })?;
        Ok(text)
    }

    /// `get_type_hierarchy`: supertypes and subtypes, transitive.
    ///
    /// # Errors
    /// As [`Workspace::find_references`].
    pub fn get_type_hierarchy(&self, args: &TypeHierarchyArgs) -> Result<String, String> {
        let budget = budget(args.max_tokens)?;
        self.with_index(|index| {
            let symbol = Self::target(index, &args.target)?;
            let (text, json) =
                queries::hierarchy_answer(index, &symbol).map_err(|e| e.to_string())?;
            Ok((cut(&text, budget)?, files_of(&json)))
        })
    }

    /// `get_context`: the definition and the ranked context asked for, with
    /// code, within `max_tokens`.
    ///
    /// # Errors
    /// As [`Workspace::find_references`]; also when not even the header fits.
    pub fn get_context(&self, args: &GetContextArgs) -> Result<String, String> {
        let settings = self.settings();
        let budget = match args.max_tokens {
            Some(_) => budget(args.max_tokens)?,
            None => settings
                .max_tokens
                .context
                .unwrap_or(DEFAULT_INDEX_TOKENS as usize),
        };
        let kind = match args.kind {
            Some(kind) => ContextKind::from(kind),
            None => ContextKind::from(settings.context_kind),
        };
        let options = context::ContextOptions::from_settings(&settings);
        let text = self.with_index(|index| {
            let text = context::context_answer_with(
                index,
                self.root(),
                &args.target,
                kind,
                budget,
                Format::Text,
                &options,
            )
            .map_err(|error| {
                if error.contains("too small") {
                    format!("max_tokens={error}")
                } else {
                    for_agents(&error)
                }
            })?;
            // The code shown is read from disk as the answer is made; the
            // ranking comes from the target's file as indexed.
            // An id whose line moved says so first, as the other tools do.
            let (text, files) = match query::find_target(index.connection(), &args.target) {
                Ok(symbol) => (
                    cut(&with_moved_note(index, &args.target, &symbol, text), budget)?,
                    vec![symbol.path],
                ),
                Err(_) => (text, Vec::new()),
            };
            Ok((text, files))
        })?;
        Ok(text)
    }
}

/// `message` with the CLI's advice (`ast-outline outline PATH`) given as
/// the tool an agent has (`get_file_outline`).
fn for_agents(message: &str) -> String {
    let mut out = String::with_capacity(message.len());
    let mut rest = message;
    while let Some(at) = rest.find("`ast-outline outline ") {
        out.push_str(&rest[..at]);
        let after = &rest[at + "`ast-outline outline ".len()..];
        match after.find('`') {
            Some(end) => {
                out.push_str(&format!("get_file_outline(path={})", &after[..end]));
                rest = &after[end + 1..];
            }
            None => {
                out.push_str(&rest[at..]);
                rest = "";
            }
        }
    }
    out.push_str(rest);
    out
}

/// The display paths of an answer's JSON, sorted, without repeats.
fn files_of(json: &serde_json::Value) -> Vec<String> {
    let mut files = Vec::new();
    paths_in(json, &mut files);
    files.sort();
    files.dedup();
    files
}

/// `text` after a note when `target` was an id whose line moved.
fn with_moved_note(index: &Index, target: &str, symbol: &SymbolRow, text: String) -> String {
    match queries::moved_note(index, target, symbol) {
        Some(note) => format!("({})\n{text}", note.trim_start_matches("note: ")),
        None => text,
    }
}

/// Default of `max_tokens` for `find_tests`.
pub const DEFAULT_TESTS_TOKENS: usize = 4_000;
/// Default of `max_tokens` for `get_impact`.
pub const DEFAULT_IMPACT_TOKENS: usize = 6_000;

/// `depth` of `find_tests` and `get_impact`, or its default.
fn test_depth(asked: Option<u32>) -> Result<u32, String> {
    match asked {
        Some(depth) if !(1..=100).contains(&depth) => {
            Err(format!("depth must be from 1 to 100 (got {depth})"))
        }
        asked => Ok(asked.unwrap_or(impact::DEFAULT_TEST_DEPTH)),
    }
}

/// `text` after a note about the settings file (reloaded, or kept after an
/// error), when there is one.
/// An answer of the command line's `tests`/`impact` in the tools' terms:
/// their arguments and tool names for the flags and commands it suggests.
fn in_tool_terms(text: &str) -> String {
    text.replace("--max-tokens", "max_tokens")
        .replace("(--depth)", "(depth)")
        .replace("`callers`/`tests`", "get_callers/find_tests")
}

/// `max_tokens` or its default.
fn budget(asked: Option<u32>) -> Result<usize, String> {
    match asked {
        Some(0) => Err("max_tokens must be at least 1 (got 0)".to_owned()),
        asked => Ok(asked.unwrap_or(DEFAULT_INDEX_TOKENS) as usize),
    }
}

/// `text` cut after whole lines to fit `budget` tokens (the count the
/// server's footer gives), saying how much was left out.
fn cut(text: &str, budget: usize) -> Result<String, String> {
    if tokens::fits(text, budget) {
        return Ok(text.to_owned());
    }
    tokens::keep_lines(text, budget, |kept, total| {
        format!(
            "(cut after {kept} of {total} lines to fit max_tokens={budget}; \
             raise max_tokens, or ask about a narrower target)\n"
        )
    })
    .ok_or_else(|| format!("max_tokens={budget} is too small for even the first line"))
}

/// Most files named in [`with_failures_note`].
const FAILURES_NAMED: usize = 5;

/// `text`, then a note naming the files left out of the index because
/// their parse worker failed (a crash, the time limit or the memory cap:
/// [`ast_outline::supervise`]), when there are any: the answer may miss
/// what they define or reference.
fn with_failures_note(index: &Index, text: String) -> String {
    let failed: Vec<String> = index
        .left_out(".")
        .unwrap_or_default()
        .into_iter()
        .filter(|(_, why)| why.starts_with(ast_outline::supervise::WORKER_FAILURE))
        .map(|(path, _)| path)
        .collect();
    if failed.is_empty() {
        return text;
    }
    let mut named = failed
        .iter()
        .take(FAILURES_NAMED)
        .map(String::as_str)
        .collect::<Vec<_>>()
        .join(", ");
    if failed.len() > FAILURES_NAMED {
        named.push_str(&format!(" and {} more", failed.len() - FAILURES_NAMED));
    }
    format!(
        "{}\nnote: {} not indexed: the parser's worker failed on {} (get_file_outline says \
         why); what {} define or reference is missing here",
        text.trim_end(),
        outline_core::text::plural(failed.len(), "file"),
        named,
        if failed.len() == 1 { "it" } else { "they" },
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_clis_advice_names_the_tool() {
        assert_eq!(
            for_agents(
                "no line 9999 in a.py (1-6); `ast-outline outline a.py` lists its definitions"
            ),
            "no line 9999 in a.py (1-6); get_file_outline(path=a.py) lists its definitions"
        );
        assert_eq!(for_agents("nothing to change"), "nothing to change");
    }
}
