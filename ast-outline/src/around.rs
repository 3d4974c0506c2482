//! What is around a line or inside a symbol, cheaply: the chain of symbols
//! and blocks that hold a line ([`holding`], "which function holds line
//! 812?"), the symbols a line range lies in ([`range_context`], for the
//! header of a line range), and a long symbol's own lines with its parts
//! folded to one line each ([`skeleton`], so that the next read is one part).
//!
//! Lines are 1-based and inclusive everywhere. Parse with
//! [`FINEST_BLOCK_THRESHOLD`] to get every control-flow statement as a block:
//! its ids stay readable by [`crate::read::locate`] under any threshold.
//!
//! ```
//! use ast_outline::around::{holding, FINEST_BLOCK_THRESHOLD};
//! use ast_outline::{outline_source, OutlineOptions};
//! use ast_outline::outline_core::LineIndex;
//!
//! let source = "def f(xs):\n    for x in xs:\n        if x:\n            return x\n";
//! let options = OutlineOptions { block_threshold: FINEST_BLOCK_THRESHOLD, ..OutlineOptions::default() };
//! let outline = outline_source("f.py", source, &options)?;
//! let text = holding(&outline, &LineIndex::new(source), 4)?;
//! assert_eq!(text, "\
//! f.py:4 is inside 3 symbols and blocks (outermost first):
//!   f.py:1:f function L1-4 def f(xs)
//!   f.py:2:f block L2-4 `for x in xs`
//!   f.py:3:f block L3-4 `if x`
//! L4: return x
//! ");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::fmt::Write as _;

use std::path::Path;

use outline_core::{FileOutline, Language, LineIndex, OutlineOptions, Symbol, SymbolKind};

use crate::SourceText;
use crate::search::symbol_line;

/// The block threshold (in lines) under which every control-flow statement
/// longer than one line is a block: the finest chain [`holding`] can show.
pub const FINEST_BLOCK_THRESHOLD: u32 = 1;

/// Characters of a source line shown beside a chain or a folded part.
const LINE_CHARS: usize = 160;

/// "What holds line `line` of `outline`'s file": a first line saying how
/// many symbols and blocks hold it (or that it is at module level), one line
/// per symbol and block, outermost first (`id kind L<start>-<end>
/// signature`, as search results show them), then the line itself (`L812:
/// text`, without its indentation and cut to 160 characters).
///
/// # Errors
/// A message when `line` is 0 or past the end of the file.
pub fn holding(outline: &FileOutline, index: &LineIndex<'_>, line: u32) -> Result<String, String> {
    let path = outline_core::text::escape_controls(&outline.path);
    let line_count = index.line_count();
    if line == 0 || line > line_count {
        return Err(format!(
            "{path}: line {line} does not exist: the file has {} (lines are 1-based)",
            lines(line_count)
        ));
    }
    let chain = outline.enclosing(line);
    let mut out = match chain.len() {
        0 if let Some(why) = outline.not_outlined() => {
            format!("{path}:{line}: {path} has no symbols, it was not outlined: {why}\n")
        }
        0 => format!("{path}:{line} is at module level (inside no symbol)\n"),
        1 => format!("{path}:{line} is inside 1 symbol:\n"),
        n if chain.iter().any(|s| s.kind == SymbolKind::Block) => {
            format!("{path}:{line} is inside {n} symbols and blocks (outermost first):\n")
        }
        n => format!("{path}:{line} is inside {n} symbols (outermost first):\n"),
    };
    for (i, symbol) in chain.iter().enumerate() {
        let _ = write!(out, "  {}", symbol_line(symbol));
        let inner = chain.get(i + 1).map_or(line, |s| s.start_line);
        let arms = symbol.name.starts_with("match") || symbol.name.starts_with("switch");
        if symbol.kind == SymbolKind::Block
            && let Some((at, branch)) = branch_of(index, symbol.start_line, inner, arms)
        {
            let _ = write!(out, ", in its branch `{branch}` (L{at})");
        }
        out.push('\n');
    }
    let text = index.line_text(line).unwrap_or_default();
    let text = text.trim_end_matches(['\n', '\r']).trim_start();
    let _ = writeln!(
        out,
        "L{line}: {}",
        outline_core::text::truncate(text, LINE_CHARS)
    );
    Ok(out)
}

/// The words a branch after a block's first one starts with, in Python,
/// TypeScript/JavaScript and Rust.
const BRANCH_KEYWORDS: [&str; 7] = [
    "elif", "else", "except", "finally", "catch", "case", "default",
];

/// The branch of a control-flow block starting at line `start` that holds
/// line `inner` (`elif x`, `else`, `except E`, `case 2`): the nearest line
/// above `inner` and below `start` indented as the block's first line is,
/// that is not blank, a comment or only closing brackets; `None` when
/// there is none (`inner` is in the first branch) or that line does not
/// start with one of [`BRANCH_KEYWORDS`]. The rule is on the text,
/// so it holds for code indented as its nesting is (what formatters
/// print); as `(line, header without a trailing `:` or `{` and a leading
/// `}`, cut to 60 characters)`.
///
/// With `arms` (a `match` or `switch`), the branch is the arm: the nearest
/// line above `inner` indented as the block's first inner line is
/// (`Some(x) => {`, `case 'a':`), whatever it starts with.
fn branch_of(index: &LineIndex<'_>, start: u32, inner: u32, arms: bool) -> Option<(u32, String)> {
    let text = |n: u32| {
        index
            .line_text(n)
            .unwrap_or_default()
            .trim_end_matches(['\n', '\r'])
    };
    let indent = |line: &str| line.len() - line.trim_start_matches([' ', '\t']).len();
    let structural = |body: &str| {
        body.is_empty()
            || body.starts_with('#')
            || body.starts_with("//")
            || body.starts_with("/*")
            || body.starts_with('*')
            || body
                .trim_end_matches([':', '{'])
                .chars()
                .all(|c| matches!(c, '}' | ')' | ']' | ';' | ',' | ' '))
    };
    let mut head = text(start);
    if arms {
        head = (start + 1..=inner)
            .map(text)
            .find(|line| !structural(line.trim()))?;
    }
    let width = indent(head);
    for n in (start + 1..=inner).rev() {
        let line = text(n);
        let body = line.trim();
        if structural(body) || indent(line) != width || !line.starts_with(&head[..width]) {
            continue;
        }
        let name = body.trim_start_matches('}').trim_start();
        let name = name.trim_end_matches(['{', ':']).trim_end();
        let keyword = name
            .split(|c: char| !c.is_alphanumeric() && c != '_')
            .next()
            .unwrap_or_default();
        if arms {
            return Some((n, outline_core::text::truncate(name, 60)));
        }
        if !BRANCH_KEYWORDS.contains(&keyword) {
            return None;
        }
        return Some((n, outline_core::text::truncate(name, 60)));
    }
    None
}

/// Where lines `start..=end` lie in `outline`: `inside: ` lines for the
/// symbols and blocks holding the whole range and more (outermost first;
/// one that is exactly the range is not named), then a
/// `starts in: ` line for the innermost symbol or block holding `start`
/// and an `ends in: ` line for `end`'s, when the range cuts into them
/// (the symbol starts before `start`, or ends after `end`). Each names a
/// symbol as `kind qualname L<start>-<end>` and a block as `block
/// L<start>-<end> \`header\``: short, since the reader already has the path
/// and is about to read the lines (`find_symbol(path, line)` gives ids and
/// signatures). Empty when the range is at module level from end to end.
pub fn range_context<'a>(outline: &'a FileOutline, start: u32, end: u32) -> Vec<String> {
    let first = outline.enclosing(start);
    let last = outline.enclosing(end);
    let common = first
        .iter()
        .zip(&last)
        .take_while(|(a, b)| std::ptr::eq(**a, **b))
        .count();
    let mut lines: Vec<String> = first[..common]
        .iter()
        .filter(|s| s.start_line < start || s.end_line > end)
        .map(|s| format!("inside: {}", brief_line(s)))
        .collect();
    let cut = |chain: &[&'a Symbol], cuts: &dyn Fn(&Symbol) -> bool| {
        chain
            .get(common..)
            .and_then(|rest| rest.iter().rev().copied().find(|s| cuts(s)))
    };
    if let Some(symbol) = cut(&first, &|symbol| symbol.start_line < start) {
        lines.push(format!("starts in: {}", brief_line(symbol)));
    }
    if let Some(symbol) = cut(&last, &|symbol| symbol.end_line > end) {
        lines.push(format!("ends in: {}", brief_line(symbol)));
    }
    lines
}

/// `function process L30-487`, or for a block `block L125-357 \`if line is
/// None\``.
fn brief_line(symbol: &Symbol) -> String {
    let lines = format!("L{}-{}", symbol.start_line, symbol.end_line);
    if symbol.kind == SymbolKind::Block {
        format!("block {lines} `{}`", symbol.name)
    } else {
        let named = crate::read::kind_and_name(symbol.kind.as_str(), &symbol.qualname);
        format!("{named} {lines}")
    }
}

/// A symbol's lines with each of its parts (its children: members, nested
/// definitions, blocks) folded to one line, so that a long symbol can be
/// seen whole and one part read next.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Skeleton {
    /// One line per source line the symbol has outside its parts, as
    /// `L<n>: <line as in the file>`, and one per part, as `L<start>-<end>:
    /// <its first line, cut>  ⋯ <kind> <id>`; each ends with a newline.
    pub text: String,
    /// How many lines `text` has.
    pub lines: u32,
    /// How many parts are folded.
    pub parts: usize,
    /// The last source line shown (folded or not): the symbol's last line
    /// unless the skeleton was cut at `most_lines`.
    pub last: u32,
}

/// The [`Skeleton`] of `symbol` (lines of the file `index` indexes), at most
/// `most_lines` lines long (cut after whole lines). A part's lines start
/// with its preceding doc comment ([`Symbol::doc_start_line`]); the line
/// shown for it is its own first line (a decorator, or the header).
pub fn skeleton(symbol: &Symbol, index: &LineIndex<'_>, most_lines: u32) -> Skeleton {
    let mut parts: Vec<&Symbol> = symbol.children.iter().collect();
    parts.sort_by_key(|part| part.start_line);
    let mut parts = parts.into_iter().peekable();
    let line_of = |n: u32| {
        index
            .line_text(n)
            .unwrap_or_default()
            .trim_end_matches(['\n', '\r'])
    };
    let end = symbol.end_line.min(index.line_count());
    let mut out = Skeleton {
        text: String::new(),
        lines: 0,
        parts: 0,
        last: symbol.start_line.saturating_sub(1),
    };
    let mut line = symbol.start_line;
    while line <= end && out.lines < most_lines {
        // Parts that start before `line` (overlapping a previous one) are
        // inside what was already folded.
        while parts
            .next_if(|part| part.start_line < line && part.end_line < line)
            .is_some()
        {}
        let from = |part: &Symbol| {
            part.doc_start_line
                .unwrap_or(part.start_line)
                .min(part.start_line)
        };
        match parts.next_if(|part| from(part) <= line) {
            Some(part) => {
                let shown = outline_core::text::truncate(line_of(part.start_line), LINE_CHARS);
                let _ = writeln!(
                    out.text,
                    "L{}-{}: {shown}  ⋯ {} {}",
                    line,
                    part.end_line,
                    part.kind.as_str(),
                    part.id
                );
                out.parts += 1;
                out.last = part.end_line.min(end);
                line = part.end_line.max(line).saturating_add(1);
            }
            None => {
                let _ = writeln!(out.text, "L{line}: {}", line_of(line));
                out.last = line;
                line += 1;
            }
        }
        out.lines += 1;
    }
    out
}

/// [`holding`] for `target`, a file on disk and a line: `PATH:LINE`
/// (`src/shop.py:812`). The file is outlined with `options` but every
/// control-flow statement split into blocks; files larger than
/// `max_file_size` bytes are not read.
///
/// # Errors
/// A message when `target` does not end in `:LINE` (or `:LINE:COLUMN`,
/// whose column is ignored), the path is a directory, the file cannot be
/// read or is of unknown language, or the line does not exist.
pub fn at(target: &str, options: &OutlineOptions, max_file_size: u64) -> Result<String, String> {
    let number = |text: &str| !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit());
    // PATH:LINE, or PATH:LINE:COLUMN as compilers and `grep --column` write
    // it (the column is not needed to say what holds the line).
    let (path, line) = match target.rsplit_once(':') {
        Some((rest, last)) if number(last) => match rest.rsplit_once(':') {
            Some((path, line)) if number(line) && !Path::new(rest).is_file() => (path, line),
            _ => (rest, last),
        },
        _ => {
            return Err(format!(
                "{target}: write PATH:LINE (a file and a 1-based line number)"
            ));
        }
    };
    let line: u32 = line
        .parse()
        .map_err(|_| format!("{target}: line {line} is too large"))?;
    if Path::new(path).is_dir() {
        return Err(format!("{path}: is a directory; write PATH:LINE of a file"));
    }
    let language = Language::from_path(path).ok_or_else(|| {
        format!(
            "{path}: not a language ast-outline knows ({}); it has no symbols",
            crate::supported_extensions().join(", ")
        )
    })?;
    let source = SourceText::read_at_most(Path::new(path), Some(language), max_file_size)
        .map_err(|e| e.to_string())?;
    let display = crate::walk::display_path(Path::new(path));
    let finest = OutlineOptions {
        block_threshold: FINEST_BLOCK_THRESHOLD,
        ..options.clone()
    };
    let outline = crate::outline_source_as(&display, language, &source.text, &finest);
    holding(&outline, &LineIndex::new(source.text_without_bom()), line)
}

/// `1 line`, `12 lines`.
fn lines(count: u32) -> String {
    outline_core::text::plural(count as usize, "line")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::outline_source;

    fn finest(path: &str, source: &str) -> FileOutline {
        let options = OutlineOptions {
            block_threshold: FINEST_BLOCK_THRESHOLD,
            ..OutlineOptions::default()
        };
        match outline_source(path, source, &options) {
            Ok(outline) => outline,
            Err(error) => panic!("{error}"),
        }
    }

    const SHOP: &str = "\
import os

class Cart:
    \"\"\"A cart.\"\"\"
    TAX = 2

    def total(self, items):
        sum = 0
        for item in items:
            if item.free:
                continue
            sum += item.price
        return sum

    def empty(self):
        return False
";

    #[test]
    fn a_branch_s_own_first_line_is_in_that_branch() -> Result<(), String> {
        // Found by a new-user trial: the `elif`/`else` line, a match arm's
        // line and a `case` line were said to be in the branch before.
        let python = "def g(x):\n    if x:\n        a()\n    elif x > 2:\n        b()\n    else:\n        c()\n";
        let outline = finest("br.py", python);
        let index = LineIndex::new(python);
        let branch = |line| holding(&outline, &index, line);
        assert!(branch(4)?.contains("`if x`, in its branch `elif x > 2` (L4)"));
        assert!(branch(6)?.contains("in its branch `else` (L6)"));
        assert!(branch(7)?.contains("in its branch `else` (L6)"));
        assert!(!branch(3)?.contains("in its branch"));
        // No block in the chain: not called "symbols and blocks".
        let shop = finest("shop.py", SHOP);
        assert!(
            holding(&shop, &LineIndex::new(SHOP), 5)?
                .starts_with("shop.py:5 is inside 2 symbols (outermost first):\n")
        );
        let rust = "fn f(x: u8) {\n    match x {\n        1 => {\n            a();\n        }\n        _ => b(),\n    }\n}\n";
        let outline = finest("mt.rs", rust);
        let index = LineIndex::new(rust);
        let arm = |line| holding(&outline, &index, line);
        assert!(
            arm(6)?.contains("in its branch `_ => b(),` (L6)"),
            "{}",
            arm(6)?
        );
        assert!(arm(4)?.contains("in its branch `1 =>` (L3)"), "{}", arm(4)?);
        Ok(())
    }

    #[test]
    fn holding_names_the_chain_and_module_level() -> Result<(), String> {
        let outline = finest("shop.py", SHOP);
        let index = LineIndex::new(SHOP);
        assert_eq!(
            holding(&outline, &index, 11)?,
            "shop.py:11 is inside 4 symbols and blocks (outermost first):\n  \
             shop.py:3:Cart class L3-16 class Cart\n  \
             shop.py:7:Cart.total method L7-13 def total(self, items)\n  \
             shop.py:9:Cart.total block L9-12 `for item in items`\n  \
             shop.py:10:Cart.total block L10-11 `if item.free`\n\
             L11: continue\n"
        );
        assert_eq!(
            holding(&outline, &index, 1)?,
            "shop.py:1 is at module level (inside no symbol)\nL1: import os\n"
        );
        assert_eq!(
            holding(&outline, &index, 17).err().as_deref(),
            Some("shop.py: line 17 does not exist: the file has 16 lines (lines are 1-based)")
        );
        assert!(holding(&outline, &index, 0).is_err());
        Ok(())
    }

    #[test]
    fn holding_names_the_branch_of_an_if_chain_and_the_arm_of_a_match() -> Result<(), String> {
        let python = "\
def f(x):
    if x == 1:
        return 1
    elif x == 2:
        y = 2
        return y
    else:
        # the rest
        return 3
";
        let outline = finest("f.py", python);
        let index = LineIndex::new(python);
        let chain = holding(&outline, &index, 6)?;
        assert!(
            chain.contains("`if x == 1`, in its branch `elif x == 2` (L4)\n"),
            "{chain}"
        );
        assert!(holding(&outline, &index, 9)?.contains("in its branch `else` (L7)"));
        assert!(!holding(&outline, &index, 3)?.contains("in its branch"));
        let rust = "\
fn f(x: u8) -> u8 {
    match x {
        0 => {
            let y = 1;
            y
        }
        _ => {
            let z = 2;
            z
        }
    }
}
";
        let outline = finest("f.rs", rust);
        let index = LineIndex::new(rust);
        let chain = holding(&outline, &index, 8)?;
        assert!(
            chain.contains("`match x`, in its branch `_ =>` (L7)\n"),
            "{chain}"
        );
        Ok(())
    }

    #[test]
    fn range_context_says_what_holds_the_whole_range_and_its_ends() {
        let outline = finest("shop.py", SHOP);
        assert_eq!(
            range_context(&outline, 8, 9),
            [
                "inside: class Cart L3-16",
                "inside: method Cart.total L7-13",
                "ends in: block L9-12 `for item in items`",
            ]
        );
        assert_eq!(
            range_context(&outline, 12, 15),
            [
                "inside: class Cart L3-16",
                "starts in: block L9-12 `for item in items`",
                "ends in: method Cart.empty L15-16",
            ]
        );
        // A symbol the range holds whole is not named: `empty` ends at 16.
        assert_eq!(
            range_context(&outline, 12, 16),
            [
                "inside: class Cart L3-16",
                "starts in: block L9-12 `for item in items`",
            ]
        );
        assert!(range_context(&outline, 15, 16).len() == 1, "only Cart");
        // An impl is named by its header once, not `impl impl S`.
        let rust = finest(
            "s.rs",
            "struct S;\nimpl S {\n    fn f(&self) {\n        let x = 1;\n        let y = 2;\n    }\n}\n",
        );
        assert_eq!(
            range_context(&rust, 4, 5),
            ["inside: impl S L2-7", "inside: method impl S.f L3-6"]
        );
        assert!(range_context(&outline, 1, 2).is_empty());
    }

    #[test]
    fn skeleton_folds_each_part_to_its_id() {
        let outline = finest("shop.py", SHOP);
        let index = LineIndex::new(SHOP);
        let cart = &outline.symbols[0];
        let whole = skeleton(cart, &index, 100);
        assert_eq!(
            whole.text,
            "L3: class Cart:\nL4:     \"\"\"A cart.\"\"\"\n\
             L5-5:     TAX = 2  ⋯ constant shop.py:5:Cart.TAX\nL6: \n\
             L7-13:     def total(self, items):  ⋯ method shop.py:7:Cart.total\nL14: \n\
             L15-16:     def empty(self):  ⋯ method shop.py:15:Cart.empty\n"
        );
        assert_eq!((whole.lines, whole.parts, whole.last), (7, 3, 16));
        let cut = skeleton(cart, &index, 3);
        assert_eq!((cut.lines, cut.parts, cut.last), (3, 1, 5));
        let total = &cart.children[1];
        assert_eq!(
            skeleton(total, &index, 100).text,
            "L7:     def total(self, items):\nL8:         sum = 0\n\
             L9-12:         for item in items:  ⋯ block shop.py:9:Cart.total\n\
             L13:         return sum\n"
        );
    }
}
