//! The repo map of `outline --max-tokens N`: the most useful outline of a
//! tree that fits in N tokens, counted with the `o200k_base` tokenizer
//! ([`crate`], shared with the MCP server's `max_tokens` cut).
//!
//! Each file is shown at one of four levels:
//! 0. left out;
//! 1. its header line and its public top-level symbols, by kind and name;
//! 2. also the public members (all nesting levels the filters keep), still
//!    by kind and name;
//! 3. its full text outline (signatures, docs, imports, diagnostics, private
//!    symbols, blocks), as `outline` prints it.
//!
//! Files are raised one level at a time for all files before the next level:
//! first every file to level 1, then to level 2, then to level 3, each pass in
//! rank order, as long as the budget allows. While any file is left out, no
//! file shows more than its top level. Beyond that, a file whose next level
//! does not fit stays where it is and a smaller file further down the order
//! may still get that level (the budget is used rather than left idle). When
//! no file's top level fits, the top-level map of all files is cut after
//! whole lines instead (if at least one line fits). The rank ("most useful
//! first"):
//! files outside test directories (`test`, `tests`, `__tests__`, names
//! starting with `test_` or ending in `_test`/`.test`/`.spec`) before test
//! files; then modules not private by name before `_x.py`; then shallower
//! paths (fewer `/`) first; then the module a package or crate is entered by
//! (`__init__.py`, `lib.rs`, `main.rs`, `mod.rs`, `index.ts`…); then files
//! with more public top-level symbols; then by path. The map is printed in path order, after a
//! header line naming the budget and the tokenizer, and ends with a line
//! saying what was left out. The whole output is never more than N tokens.

use std::fmt::Write as _;

use outline_core::{FileOutline, Language, Symbol, SymbolKind, TextOptions, render_text};

use crate as tokens;

/// How detailed a file is shown; see the module docs.
const LEVELS: usize = 3;

/// Files named in the note as left out, at most.
const NAMED_LEFT_OUT: usize = 5;

/// The repo map of `outlines` (sorted by path, already filtered) within
/// `budget` tokens; `what` names the outlined paths in the header.
///
/// # Errors
/// A message when the tokenizer cannot be loaded or not even the header fits.
pub fn repo_map(outlines: &[FileOutline], budget: usize, what: &str) -> Result<String, String> {
    if tokens::count("").is_none() {
        return Err(format!(
            "--max-tokens: the {} tokenizer did not load",
            tokens::ENCODING
        ));
    }
    let mut order: Vec<usize> = (0..outlines.len()).collect();
    order.sort_by_cached_key(|&i| rank(&outlines[i]));
    // pieces[i][level - 1]: file i's text at that level, and its tokens.
    let mut pieces: Vec<[Option<(String, usize)>; LEVELS]> =
        vec![Default::default(); outlines.len()];
    let mut reserve = 0usize;
    loop {
        let mut levels = vec![0usize; outlines.len()];
        let head = header(outlines.len(), budget, what);
        // The note is counted as its shortest form; when the real one is
        // longer, the total is over and the loop tries again with a reserve.
        let shortest_note = note(outlines, &vec![LEVELS; outlines.len()], budget);
        let mut used = count(&head) + count(&shortest_note) + reserve;
        for level in 1..=LEVELS {
            if level > 1 && levels.contains(&0) {
                // A file is left out: no file gets more than its top level.
                break;
            }
            for &i in &order {
                if levels[i] != level - 1 {
                    continue;
                }
                let before = match level {
                    1 => 0,
                    _ => piece(&mut pieces, outlines, i, level - 1).1,
                };
                let after = piece(&mut pieces, outlines, i, level).1;
                let cost = after.saturating_sub(before);
                if used + cost <= budget {
                    used += cost;
                    levels[i] = level;
                }
            }
        }
        let mut text = head;
        for (i, &level) in levels.iter().enumerate() {
            if level > 0 {
                text.push_str(&piece(&mut pieces, outlines, i, level).0);
            }
        }
        text.push_str(&note(outlines, &levels, budget));
        let total = count(&text);
        let nothing_shown = levels.iter().all(|&l| l == 0);
        if total <= budget && !nothing_shown {
            return Ok(text);
        }
        if nothing_shown {
            // Not even one file's top level fits beside the header and the
            // note: the top-level map cut after whole lines (as the MCP
            // outline is), if at least one line of it fits.
            let mut top = header(outlines.len(), budget, what);
            for i in 0..outlines.len() {
                top.push_str(
                    piece(&mut pieces, outlines, i, 1)
                        .0
                        .trim_start_matches('\n'),
                );
            }
            return tokens::keep_lines(&top, budget, |kept, all| {
                format!(
                    "(cut after {kept} of {all} lines of the top-level map to fit \
                     --max-tokens {budget}; outline a narrower path or raise it)\n"
                )
            })
            .filter(|cut| cut.lines().count() >= 3)
            .ok_or_else(|| {
                format!(
                    "--max-tokens {budget} is too small for even the header and one line of \
                     the repo map; raise it"
                )
            });
        }
        // The pieces' counts were a little off once joined: try again with
        // that much (and some) less.
        reserve += total - budget + 8;
    }
}

fn count(text: &str) -> usize {
    tokens::count(text).unwrap_or_default()
}

fn header(files: usize, budget: usize, what: &str) -> String {
    format!(
        "# repo map of {what} ({}) in at most {budget} tokens ({}); most useful first: \
         top-level symbols, then members, then signatures and docs\n",
        self::files(files),
        tokens::ENCODING
    )
}

/// The text of file `i` at `level` (with a blank line before it), and its
/// tokens, made once.
fn piece<'a>(
    pieces: &'a mut [[Option<(String, usize)>; LEVELS]],
    outlines: &[FileOutline],
    i: usize,
    level: usize,
) -> &'a (String, usize) {
    let slot = &mut pieces[i][level - 1];
    slot.get_or_insert_with(|| {
        let text = format!("\n{}", render_level(&outlines[i], level));
        let tokens = count(&text);
        (text, tokens)
    })
}

/// The text outline of `outline` at `level` (1 to 3).
fn render_level(outline: &FileOutline, level: usize) -> String {
    if level >= LEVELS {
        return render_text(outline, &TextOptions::default());
    }
    let mut brief = outline.clone();
    brief.imports.clear();
    brief.symbols = names_only(&outline.symbols, level > 1);
    // The diagnostics stay, so that the header line counts them, but their
    // lines (`! L…`, right after the header) are left out.
    let text = render_text(&brief, &TextOptions::default());
    let mut lines = text.split_inclusive('\n');
    let header = lines.next().unwrap_or_default();
    std::iter::once(header)
        .chain(lines.skip_while(|line| line.starts_with("! ")))
        .collect()
}

/// The public, non-block symbols of `symbols` without signatures (but an
/// impl's) and docs; with their members when `members`.
fn names_only(symbols: &[Symbol], members: bool) -> Vec<Symbol> {
    symbols
        .iter()
        .filter(|s| !s.is_private() && s.kind != SymbolKind::Block)
        .map(|s| {
            let mut brief = s.brief();
            if members {
                brief.children = names_only(&s.children, true);
            }
            brief
        })
        .collect()
}

/// What was left out: a line ending the map.
fn note(outlines: &[FileOutline], levels: &[usize], budget: usize) -> String {
    let at = |level: usize| {
        (0..outlines.len())
            .filter(|&i| levels.get(i).copied().unwrap_or(0) == level)
            .count()
    };
    if levels.iter().all(|&l| l == LEVELS) && !levels.is_empty() {
        return format!("(complete: nothing elided to fit {budget} tokens)\n");
    }
    let mut parts = Vec::new();
    let left_out: Vec<&str> = (0..outlines.len())
        .filter(|&i| levels.get(i).copied().unwrap_or(0) == 0)
        .map(|i| outlines[i].path.as_str())
        .collect();
    if !left_out.is_empty() {
        let mut part = format!("{} left out", files(left_out.len()));
        let named: Vec<&str> = left_out.iter().take(NAMED_LEFT_OUT).copied().collect();
        let _ = write!(part, " ({}", named.join(", "));
        if left_out.len() > NAMED_LEFT_OUT {
            part.push_str(", …");
        }
        part.push(')');
        parts.push(part);
    }
    if at(1) > 0 {
        parts.push(format!("{} with top-level names only", files(at(1))));
    }
    if at(2) > 0 {
        parts.push(format!(
            "{} with names only (no signatures, docs, imports or private symbols)",
            files(at(2))
        ));
    }
    format!(
        "(elided to fit {budget} tokens: {}; outline a narrower path or raise --max-tokens)\n",
        parts.join("; ")
    )
}

fn files(n: usize) -> String {
    if n == 1 {
        "1 file".to_owned()
    } else {
        format!("{n} files")
    }
}

/// The sort key of a file: smaller is more useful (see the module docs).
fn rank(outline: &FileOutline) -> (bool, bool, usize, bool, std::cmp::Reverse<usize>, String) {
    let path = outline.path.as_str();
    let public = outline
        .symbols
        .iter()
        .filter(|s| !s.is_private() && s.kind != SymbolKind::Block)
        .count();
    (
        is_test_path(path),
        is_private_module(path),
        path.matches('/').count(),
        !is_entry_module(path),
        std::cmp::Reverse(public),
        path.to_owned(),
    )
}

/// A module private by name: `_x.py` (not `__init__.py`/`__main__.py`).
fn is_private_module(path: &str) -> bool {
    let file = path.rsplit('/').next().unwrap_or_default();
    file.starts_with('_') && !file.starts_with("__")
}

/// The module that a package or crate is entered by: `__init__.py`,
/// `lib.rs`, `main.rs`, `mod.rs`, `index.{ts,tsx,js,jsx,mjs,cjs}`, `.d.ts` included.
fn is_entry_module(path: &str) -> bool {
    let file = path.rsplit('/').next().unwrap_or_default();
    let stem = file.split('.').next().unwrap_or_default();
    matches!(
        file,
        "__init__.py" | "__init__.pyi" | "lib.rs" | "main.rs" | "mod.rs"
    ) || (stem == "index" && Language::from_path(file).is_some())
}

fn is_test_path(path: &str) -> bool {
    let mut parts = path.split('/');
    let file = parts.next_back().unwrap_or_default();
    let stem = file.split('.').next().unwrap_or_default();
    parts.any(|dir| matches!(dir, "test" | "tests" | "__tests__"))
        || stem.starts_with("test_")
        || stem.ends_with("_test")
        || file.contains(".test.")
        || file.contains(".spec.")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn private_and_entry_modules_are_recognised() {
        assert!(is_private_module("email/_header_value_parser.py"));
        assert!(!is_private_module("json/__init__.py"));
        assert!(is_entry_module("json/__init__.py"));
        assert!(is_entry_module("src/lib.rs") && is_entry_module("web/index.tsx"));
        assert!(!is_entry_module("src/library.rs") && !is_entry_module("index.md"));
    }

    #[test]
    fn test_paths_are_recognised() {
        assert!(is_test_path("pkg/tests/a.py"));
        assert!(is_test_path("test_a.py"));
        assert!(is_test_path("src/a_test.rs"));
        assert!(is_test_path("web/a.spec.ts"));
        assert!(!is_test_path("src/testing.py"));
        assert!(!is_test_path("src/contest.rs"));
    }
}
