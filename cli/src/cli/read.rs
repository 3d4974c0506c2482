//! `ast-outline read TARGET...`: print one symbol or line range with a header.
//!
//! The header is one line, `==> PATH:START-END kind qualname <==`, naming the
//! real lines printed (decorators and a preceding doc comment included). When
//! an id's start line no longer matches because the file changed, the symbol is
//! found again by its qualname and the header says it moved. A block's id is
//! found whatever `--block-threshold` it was issued under.

use std::path::Path;
use std::process::ExitCode;

use outline_core::{
    FileOutline, Language, LineIndex, OutlineOptions, Resolution, Selector, Symbol, SymbolKind,
    TargetError, resolve, split_target,
};

use super::args::ReadArgs;
use super::{print_or_exit, report};
use crate::{SourceText, outline_source_as};

pub(super) fn run(args: &ReadArgs) -> ExitCode {
    let options = OutlineOptions {
        block_threshold: args.extraction.block_threshold,
    };
    let mut read_any = false;
    for target in &args.targets {
        match read_target(target, &options) {
            Ok(text) => {
                print_or_exit(&text);
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

/// The header and text for `target`, or a message saying why there is none.
fn read_target(target: &str, options: &OutlineOptions) -> Result<String, String> {
    let (path, selector) = match split_target(target, |p| Path::new(p).is_file()) {
        Ok(split) => split,
        Err(TargetError::Selector { error, .. }) => return Err(format!("{target}: {error}")),
        Err(TargetError::NoFile) => return Err(no_file(target)),
    };
    let source =
        SourceText::read(Path::new(path), Language::from_path(path)).map_err(|e| e.to_string())?;
    let display = crate::walk::display_path(Path::new(path));
    let index = LineIndex::new(source.text_without_bom());

    if let Selector::Lines { start, end } = selector {
        return lines(&display, &index, start, end, None);
    }
    let language = Language::from_path(&display).ok_or_else(|| {
        format!("{display}: not a language ast-outline knows; only START-END ranges can be read")
    })?;
    let outline_with =
        |options: &OutlineOptions| outline_source_as(&display, language, &source.text, options);
    let outline = outline_with(options);
    let resolution = resolve(&outline, &selector);
    // A block's id was issued under some --block-threshold; when it does not
    // match exactly under this one, look for that exact block with every
    // control-flow statement split out before calling it moved.
    let finest;
    let resolution = match (&selector, &resolution) {
        (Selector::Id { .. }, Resolution::Found(_)) | (_, Resolution::Lines { .. }) => resolution,
        (Selector::Id { .. }, _) => {
            finest = outline_with(&OutlineOptions { block_threshold: 1 });
            match resolve(&finest, &selector) {
                Resolution::Found(block) if block.kind == SymbolKind::Block => {
                    Resolution::Found(block)
                }
                _ => resolution,
            }
        }
        (Selector::Line(line), Resolution::NotFound { .. }) => {
            let label = "(no symbol contains this line)";
            return lines(&display, &index, *line, *line, Some(label));
        }
        _ => resolution,
    };
    match resolution {
        Resolution::Found(symbol) => symbol_text(&display, &index, symbol, None),
        Resolution::Moved { symbol, from_line } => {
            symbol_text(&display, &index, symbol, Some(from_line))
        }
        Resolution::Lines { start, end } => lines(&display, &index, start, end, None),
        Resolution::Ambiguous(candidates) => Err(ambiguous(target, &candidates)),
        Resolution::NotFound { suggestions } => Err(not_found(target, &outline, &suggestions)),
    }
}

/// Why no file was found in `target`: the whole target is a file with nothing
/// after it, a prefix names something that is not a regular file, or nothing
/// exists.
fn no_file(target: &str) -> String {
    if Path::new(target).is_file() {
        return format!(
            "{target}: say what to read: {target}:QUALNAME, {target}:LINE:QUALNAME \
             or {target}:START-END"
        );
    }
    let not_regular = std::iter::once(target.len())
        .chain(target.match_indices(':').map(|(i, _)| i))
        .map(|i| &target[..i])
        .find(|p| !p.is_empty() && Path::new(p).exists() && !Path::new(p).is_file());
    match not_regular {
        Some(path) if Path::new(path).is_dir() => {
            format!(
                "{path}: is a directory; read a file in it (list them with `ast-outline outline {path}`)"
            )
        }
        Some(path) => format!("{path}: not a regular file; only files can be read"),
        None => format!(
            "{target}: no such file (write PATH:QUALNAME, PATH:LINE:QUALNAME or PATH:START-END)"
        ),
    }
}

fn symbol_text(
    path: &str,
    index: &LineIndex<'_>,
    symbol: &Symbol,
    moved_from: Option<u32>,
) -> Result<String, String> {
    let start = symbol.doc_start_line.unwrap_or(symbol.start_line);
    let mut label = describe(symbol);
    if let Some(from_line) = moved_from {
        label.push_str(&format!(
            " (moved: the id said line {from_line}; the file changed since it was issued)"
        ));
    }
    lines(path, index, start, symbol.end_line, Some(&label))
}

fn describe(symbol: &Symbol) -> String {
    if symbol.kind == SymbolKind::Block {
        let owner = if symbol.qualname.is_empty() {
            "module level".to_owned()
        } else {
            symbol.qualname.clone()
        };
        format!("block `{}` in {owner}", symbol.name)
    } else {
        format!("{} {}", symbol.kind.as_str(), symbol.qualname)
    }
}

fn lines(
    path: &str,
    index: &LineIndex<'_>,
    start: u32,
    end: u32,
    label: Option<&str>,
) -> Result<String, String> {
    let line_count = index.line_count();
    let end = end.min(line_count);
    let text = index
        .lines_text(start, end)
        .ok_or_else(|| format!("{path}: has {line_count} lines; nothing at line {start}"))?;
    let path = outline_core::text::escape_controls(path);
    let mut out = match label {
        Some(label) => format!("==> {path}:{start}-{end} {label} <==\n"),
        None => format!("==> {path}:{start}-{end} <==\n"),
    };
    out.push_str(text);
    // End with a newline even after a last line without one, or a lone `\r`.
    if !text.ends_with('\n') {
        out.push('\n');
    }
    Ok(out)
}

fn ambiguous(target: &str, candidates: &[&Symbol]) -> String {
    let mut message = format!(
        "{target}: {} symbols match; read one by its id:",
        candidates.len()
    );
    for symbol in candidates {
        message.push_str(&format!("\n  {}  {}", symbol.id, summary(symbol)));
    }
    message
}

fn not_found(target: &str, outline: &FileOutline, suggestions: &[&Symbol]) -> String {
    let mut message = format!("{target}: no such symbol in {}", outline.path);
    if suggestions.is_empty() {
        message.push_str(&format!(
            "; list its symbols with `ast-outline outline {}`",
            outline.path
        ));
    } else {
        message.push_str("; did you mean:");
        for symbol in suggestions {
            message.push_str(&format!("\n  {}  {}", symbol.id, summary(symbol)));
        }
    }
    message
}

/// `L13-17 @celsius.setter def celsius(self, value: float) -> None`: enough to
/// tell same-named candidates apart.
fn summary(symbol: &Symbol) -> String {
    let mut line = format!("L{}-{}", symbol.start_line, symbol.end_line);
    for decorator in &symbol.decorators {
        line.push(' ');
        if !decorator.starts_with(['@', '#']) {
            line.push('@');
        }
        line.push_str(&outline_core::text::truncate(decorator, 60));
    }
    line.push(' ');
    match &symbol.signature {
        Some(signature) => line.push_str(signature),
        None => line.push_str(&describe(symbol)),
    }
    line
}
