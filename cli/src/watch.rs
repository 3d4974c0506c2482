//! `ast-outline watch [ROOT]`: keeps the index of ROOT fresh while files
//! change ([`ast_outline_live`]), printing one line per update until stopped.

use std::io::Write as _;
use std::process::ExitCode;

use serde_json::json;

use super::args::{Format, WatchArgs};
use super::output::report;
use ast_outline_live::{Live, Update};

/// Paths named in a text update line; the rest are counted.
const MOST_PATHS_SHOWN: usize = 10;

/// One update as a line of text or JSON.
fn update_line(update: &Update, format: Format) -> String {
    let stats = &update.stats;
    let ms = update.took.as_millis();
    match format {
        Format::Json => json!({
            "event": "update",
            "paths": update.paths,
            "full": update.full,
            "files": stats.files,
            "parsed": stats.parsed,
            "removed": stats.removed,
            "resolved_again": stats.resolved_again,
            "ms": ms,
            "phases_ms": stats.phases,
            "notes": update.notes,
        })
        .to_string(),
        Format::Text => {
            let what = match &update.full {
                Some(why) => format!("every file ({why})"),
                None if update.paths.len() > MOST_PATHS_SHOWN => format!(
                    "{} and {} more",
                    update.paths[..MOST_PATHS_SHOWN].join(" "),
                    update.paths.len() - MOST_PATHS_SHOWN
                ),
                None => update.paths.join(" "),
            };
            let mut line = format!(
                "updated {what}: {} parsed, {} removed, {} files, {ms} ms",
                stats.parsed, stats.removed, stats.files
            );
            for note in &update.notes {
                line.push_str("\n  ");
                line.push_str(note);
            }
            line
        }
    }
}

/// Prints `line` and flushes, so that a reader of a pipe sees each update
/// as it happens.
fn print_line(line: &str) {
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "{line}");
    let _ = out.flush();
}

pub(super) fn run(args: &WatchArgs) -> ExitCode {
    if args.live.no_watch {
        report(
            "watch --no-watch would never update the index: for a one-time refresh, \
             run `ast-outline index ROOT`",
        );
        return ExitCode::from(2);
    }
    let format = args.format;
    let started = std::time::Instant::now();
    let live = match Live::start(
        &args.root,
        args.db.as_ref(),
        args.live.options(),
        Box::new(move |update| {
            if update.root_gone {
                for note in &update.notes {
                    report(note.trim_start_matches("error: "));
                }
                std::process::exit(1);
            }
            print_line(&update_line(update, format));
        }),
    ) {
        Ok(live) => live,
        Err(message) => {
            report(message);
            return ExitCode::FAILURE;
        }
    };
    let files = live.query(|index| index.file_count().unwrap_or(0));
    let ms = started.elapsed().as_millis();
    print_line(&match format {
        Format::Json => json!({
            "event": "ready",
            "root": live.root(),
            "files": files,
            "ms": ms,
        })
        .to_string(),
        Format::Text => format!(
            "watching {}: {} indexed ({ms} ms); stop with Ctrl-C",
            live.root().display(),
            index::answers::plural(files, "file")
        ),
    });
    if let Some(why) = live.not_watching() {
        report(format!(
            "note: cannot watch {} ({why}); polling instead: every file is looked at every {} s",
            live.root().display(),
            ast_outline_live::POLL_EVERY.as_secs()
        ));
    }
    loop {
        std::thread::park();
    }
}
