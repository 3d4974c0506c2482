//! `index`, and the queries over it: `refs`, `callers`, `callees`,
//! `hierarchy`, `defs`, `export`. Opening, refreshing and the lock policy are
//! the `index` crate's ([`index::open`]), and so are the answers
//! ([`index::answers`]); this module prints them.

use std::process::ExitCode;

use index::Index;
use index::answers::{
    Answer, callees_answer, callers_answer, defs_answer, defs_answer_walking, hierarchy_answer,
    refs_answer,
};
use index::open::{Query, open_and_refresh_waiting, retry_while_busy};
use index::query::SymbolRow;
use serde_json::json;

use super::args::{
    CallersArgs, DefsArgs, ExportArgs, ExportFormat, Format, IndexArgs, IndexLocation, QueryArgs,
    RefsArgs,
};
use super::output::{print_or_exit, report};

/// Prints a note of the index on standard error (`ast-outline: note: …`).
pub(super) fn note(message: String) {
    report(message);
}

/// The shortest wait for another process's refresh that `index` mentions
/// in its text summary (the JSON always gives `waited_ms`).
const WAIT_WORTH_SAYING_MS: u128 = 100;

/// `ast-outline index [ROOT]`.
pub(super) fn run_index(args: &IndexArgs) -> ExitCode {
    let location = index::open::Location {
        root: args.root.clone(),
        db: args.db.clone(),
        no_refresh: false,
    };
    if let Err(code) = super::settings::settings_gate(&location) {
        return code;
    }
    let started = std::time::Instant::now();
    let mut last_attempt = started;
    let opened = retry_while_busy(|| {
        last_attempt = std::time::Instant::now();
        open_and_refresh_waiting(&args.root, args.db.as_ref(), None, &args.changed, &note)
    });
    let (index, stats, notes) = match opened {
        Ok(done) => done,
        Err(message) => {
            report(message.message);
            return ExitCode::FAILURE;
        }
    };
    if !args.quiet {
        for note in notes.iter().chain(&stats.problems) {
            report(note.clone());
        }
        // An empty index is a valid one (files may come), but say why.
        if stats.files == 0 && !stats.named_only {
            report(format!(
                "note: no Python, TypeScript, JavaScript or Rust file under {} (hidden and \
                 ignored files are left out): the index is empty",
                args.root.display()
            ));
        }
    }
    let elapsed = started.elapsed().as_millis();
    // Time spent waiting for another process's refresh: the attempts
    // refused before the last, and the last one's wait for the lock.
    let lock_ms = stats
        .phases
        .iter()
        .find(|(name, _)| *name == "lock")
        .map_or(0, |(_, ms)| *ms);
    let waited = (last_attempt - started).as_millis() + lock_ms;
    let text = match args.format {
        Format::Json => format!(
            "{}\n",
            json!({
                "db": index.path().display().to_string(),
                "rebuilt": index.created,
                "named_only": stats.named_only,
                "files": stats.files,
                "parsed": stats.parsed,
                "touched": stats.touched,
                "removed": stats.removed,
                "resolved_again": stats.resolved_again,
                "files_read": stats.files_read,
                "resolved_files": stats.resolved_files,
                "re_resolved": stats.re_resolved,
                "references": stats.references,
                "resolved": stats.resolved,
                "relations": stats.relations,
                "problems": stats.problems,
                "phases_ms": stats.phases.iter().map(|(name, ms)| json!([name, ms])).collect::<Vec<_>>(),
                "milliseconds": elapsed,
                "waited_ms": waited,
            })
        ),
        Format::Text => format!(
            "{}: {} files ({} parsed, {} removed), {} references ({} resolved), {} relations{} in {elapsed} ms{}\n",
            index.path().display(),
            stats.files,
            stats.parsed,
            stats.removed,
            stats.references,
            stats.resolved,
            stats.relations,
            if index.created {
                ", new index"
            } else if stats.named_only {
                ", named files only"
            } else {
                ""
            },
            if waited >= WAIT_WORTH_SAYING_MS {
                format!(" ({waited} ms of them waiting for another ast-outline's refresh)")
            } else {
                String::new()
            },
        ),
    };
    print_or_exit(&text);
    ExitCode::SUCCESS
}

/// Runs a query: opens the index, finds the target, prints what `answer`
/// gives (text, JSON value).
fn query(
    location: &IndexLocation,
    target: Option<&str>,
    answer: impl FnOnce(&Index, Option<&SymbolRow>) -> Result<Answer, index::Error>,
) -> ExitCode {
    if let Err(code) = super::settings::settings_gate(&location.location()) {
        return code;
    }
    let opened = match Query::open(&location.location(), target, &note) {
        Ok(opened) => opened,
        Err(message) => {
            report(message);
            return ExitCode::FAILURE;
        }
    };
    let symbol = match opened.target.is_some().then(|| opened.symbol(&note)) {
        None => None,
        Some(Ok(symbol)) => Some(symbol),
        Some(Err(error)) => {
            report(error.to_string());
            return ExitCode::FAILURE;
        }
    };
    match answer(&opened.index, symbol.as_ref()) {
        Ok((text, value)) => {
            match location.format {
                Format::Text => print_or_exit(&text),
                Format::Json => print_or_exit(&format!("{value}\n")),
            }
            ExitCode::SUCCESS
        }
        Err(error) => {
            report(error.to_string());
            ExitCode::FAILURE
        }
    }
}

fn no_target() -> index::Error {
    index::Error::Target("no target".into())
}

/// `ast-outline refs TARGET`.
pub(super) fn run_refs(args: &RefsArgs) -> ExitCode {
    query(&args.location, Some(&args.target), |index, symbol| {
        refs_answer(index, symbol.ok_or_else(no_target)?, args.candidates)
    })
}

/// `ast-outline callers TARGET`.
pub(super) fn run_callers(args: &CallersArgs) -> ExitCode {
    query(&args.location, Some(&args.target), |index, symbol| {
        callers_answer(index, symbol.ok_or_else(no_target)?, args.depth)
    })
}

/// `ast-outline callees TARGET`.
pub(super) fn run_callees(args: &QueryArgs) -> ExitCode {
    query(&args.location, Some(&args.target), |index, symbol| {
        callees_answer(index, symbol.ok_or_else(no_target)?)
    })
}

/// `ast-outline hierarchy TARGET`.
pub(super) fn run_hierarchy(args: &QueryArgs) -> ExitCode {
    query(&args.location, Some(&args.target), |index, symbol| {
        hierarchy_answer(index, symbol.ok_or_else(no_target)?)
    })
}

/// `ast-outline defs NAME`: from the index when the root has one (at the
/// default place, found as [`index::open::discover`] finds it) or `--db`
/// names one; else from the outlines of the walk, which gives the same
/// answer without building an index.
pub(super) fn run_defs(args: &DefsArgs) -> ExitCode {
    let location = args.location.location();
    if let Err(code) = super::settings::settings_gate(&location) {
        return code;
    }
    let (found, _) = index::open::discover(&location, None);
    if !location.no_refresh
        && location.db.is_none()
        && found.root.is_dir()
        && !found.root.join(index::DEFAULT_DB).exists()
    {
        return match defs_answer_walking(&found.root, &args.name) {
            Ok(((text, value), notes)) => {
                for note in notes {
                    report(note);
                }
                match args.location.format {
                    Format::Text => print_or_exit(&text),
                    Format::Json => print_or_exit(&format!("{value}\n")),
                }
                ExitCode::SUCCESS
            }
            Err(error) => {
                report(error.to_string());
                ExitCode::FAILURE
            }
        };
    }
    query(&args.location, None, |index, _| {
        defs_answer(index, &args.name)
    })
}

/// `ast-outline export --format json`: the whole index, streamed to stdout.
pub(super) fn run_export(args: &ExportArgs) -> ExitCode {
    let location = index::open::Location {
        root: args.root.clone(),
        db: args.db.clone(),
        no_refresh: args.no_refresh,
    };
    // As for the queries: with --db and no --root, the recorded root.
    if let Err(code) = super::settings::settings_gate(&location) {
        return code;
    }
    let Query { index, root, .. } = match Query::open(&location, None, &note) {
        Ok(opened) => opened,
        Err(message) => {
            report(message);
            return ExitCode::FAILURE;
        }
    };
    let stdout = std::io::stdout();
    let written = match args.format {
        ExportFormat::Json => {
            let mut out = std::io::BufWriter::new(stdout.lock());
            index::export::write_json(index.connection(), &mut out).map(|_| ())
        }
        ExportFormat::Scip => {
            if std::io::IsTerminal::is_terminal(&stdout) {
                report("a SCIP index is binary: redirect it to a file (`> index.scip`)".to_owned());
                return ExitCode::FAILURE;
            }
            let root = std::fs::canonicalize(&root).unwrap_or(root);
            let uri = format!("file://{}", root.display());
            index::export::write_scip(index.connection(), &uri, &mut stdout.lock())
        }
    };
    match written {
        Ok(()) => ExitCode::SUCCESS,
        Err(index::Error::Io(_, error)) if error.kind() == std::io::ErrorKind::BrokenPipe => {
            ExitCode::SUCCESS
        }
        Err(error) => {
            report(error.to_string());
            ExitCode::FAILURE
        }
    }
}
