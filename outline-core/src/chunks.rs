//! Symbol-bounded chunks for retrieval pipelines.
//!
//! A retrieval pipeline (BM25, embeddings) cuts code into chunks; fixed
//! windows of N lines return half a function. [`chunk`] cuts a file along its
//! outline instead:
//!
//! - every definition (class, function, method, interface, struct, enum,
//!   trait, impl, module, macro, and any symbol with members, such as an
//!   object literal of methods) is one chunk when it fits the budget, with
//!   the comment lines directly above it (doc comments, `#` comments; a
//!   `/** … */` block also across one blank line);
//! - a definition over the budget is split at its members (a class) or at
//!   its control-flow blocks (a function; [`crate::blocks`]), recursively: its
//!   first lines up to its first member or block are a `head` chunk, and the
//!   lines between members are `statements`/`members` chunks;
//! - lines between definitions (imports, assignments, constants, fields,
//!   blank lines) are grouped into chunks of at most the budget; blank lines
//!   and closing brackets alone join the chunk before them;
//! - at module level a long run of statements is cut at blank lines, and a
//!   paragraph over the budget (a long module doc comment) between lines;
//!   inside a definition, the lines between two members or blocks are never
//!   cut.
//!
//! Guarantees, checked by the tests over whole standard libraries: the
//! chunks of a file are in line order and hold every line exactly once; a
//! chunk starts or ends inside a definition only at the boundary of one of
//! its members or blocks (or of the comments directly above one). A unit
//! that cannot be cut (a function without blocks, a long assignment) is one
//! chunk even over the budget, marked [`Chunk::over_budget`].
//!
//! The outline must be made with [`CHUNK_BLOCK_THRESHOLD`] as
//! [`crate::OutlineOptions::block_threshold`], so every function's blocks
//! are in it; with the default threshold only bodies over 100 lines can be
//! split.
//!
//! Pure: tokens are counted by the caller's function (the command-line tool
//! passes `o200k_base` from the `budget` crate).

use serde::Serialize;

use crate::{FileOutline, Language, Symbol, SymbolKind};

/// The block threshold to outline with before chunking: every function and
/// block body of more than one line has its control-flow blocks as children.
pub const CHUNK_BLOCK_THRESHOLD: u32 = 1;

/// Default largest chunk, in tokens (`--max-tokens` of `chunks`).
pub const DEFAULT_CHUNK_TOKENS: usize = 1_000;

/// How [`chunk`] cuts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ChunkOptions {
    /// Largest chunk, in tokens of the caller's counter. A unit that cannot
    /// be cut may be larger ([`Chunk::over_budget`]).
    pub max_tokens: usize,
}

impl Default for ChunkOptions {
    fn default() -> Self {
        ChunkOptions {
            max_tokens: DEFAULT_CHUNK_TOKENS,
        }
    }
}

/// What part of the file a chunk holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ChunkPart {
    /// One whole symbol (with the comments directly above it and the blank
    /// lines or closing brackets after it).
    Whole,
    /// The first lines of a symbol over the budget, up to its first member
    /// or block (signature, docstring, fields, first statements); the
    /// members and blocks follow in their own chunks.
    Head,
    /// Lines between definitions: module-level statements, a function's
    /// statements between its blocks, or a class's fields and other
    /// members that are not definitions.
    Group,
}

/// One chunk: a run of whole lines of one file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Chunk {
    /// The symbol's id (`PATH:LINE:QUALNAME`, readable with `read`) for a
    /// [`ChunkPart::Whole`] or [`ChunkPart::Head`] chunk; `PATH:START-END`
    /// (a line range, also readable) for a group.
    pub id: String,
    /// The file's path as in the outline.
    pub path: String,
    /// The file's language.
    pub language: Language,
    /// First line (1-based).
    pub start_line: u32,
    /// Last line (1-based, inclusive).
    pub end_line: u32,
    /// The symbol's kind (`function`, `class`, `block`, …) for a whole or
    /// head chunk; `statements` for a group at module level or in a body,
    /// `members` for a group in a class, struct, enum, interface, trait,
    /// impl or object.
    pub kind: &'static str,
    /// Which part of the file it holds.
    pub part: ChunkPart,
    /// The symbol's name (a block's header), when the chunk is a symbol's;
    /// `null` for a group.
    pub name: Option<String>,
    /// The symbol's `__qualname__`-style name; for a group, the enclosing
    /// symbol's (empty at module level).
    pub qualname: String,
    /// The headers of the enclosing symbols and blocks, outermost first:
    /// each one's signature (`class Config(Base)`, `def load(self, path)`),
    /// a block's header (`for item in batch`), or `KIND NAME`.
    pub context: Vec<String>,
    /// The lines, exactly as in the file (line ends kept; a byte order mark
    /// left out).
    pub text: String,
    /// Tokens in `text`, by the caller's counter.
    pub tokens: usize,
    /// Whether `tokens` is over [`ChunkOptions::max_tokens`]: the chunk is one
    /// unit that cannot be cut (a function without blocks, one long
    /// statement, the lines between two blocks).
    pub over_budget: bool,
}

/// Cuts `source`, outlined as `outline` (made with
/// [`CHUNK_BLOCK_THRESHOLD`]), into chunks of at most
/// `options.max_tokens` tokens as counted by `count`, in line order, holding
/// every line once. An empty file gives no chunks.
///
/// ```
/// use outline_core::chunks::{chunk, ChunkOptions, ChunkPart};
/// use outline_core::{finish, Extracted, Language, Symbol, SymbolKind};
///
/// let source = "import os\n\ndef a():\n    return 1\n\ndef b():\n    return 2\n";
/// let symbols = vec![
///     Symbol::new("a", SymbolKind::Function, 3, 4),
///     Symbol::new("b", SymbolKind::Function, 6, 7),
/// ];
/// let outline = finish("m.py", Language::Python, source, Extracted { symbols, ..Extracted::default() });
/// let chunks = chunk(&outline, source, &ChunkOptions::default(), &|t: &str| t.split_whitespace().count());
/// let lines: Vec<_> = chunks.iter().map(|c| (c.start_line, c.end_line, c.kind)).collect();
/// assert_eq!(lines, [(1, 2, "statements"), (3, 5, "function"), (6, 7, "function")]);
/// assert_eq!(chunks[1].id, "m.py:3:a");
/// assert_eq!(chunks[1].part, ChunkPart::Whole);
/// ```
pub fn chunk(
    outline: &FileOutline,
    source: &str,
    options: &ChunkOptions,
    count: &dyn Fn(&str) -> usize,
) -> Vec<Chunk> {
    let lines = Lines::new(crate::strip_bom(source));
    let last = lines.count();
    if last == 0 {
        return Vec::new();
    }
    let mut cutter = Cutter {
        outline,
        lines: &lines,
        max: options.max_tokens.max(1),
        count,
        spans: Vec::new(),
        counted: std::cell::RefCell::new(std::collections::HashMap::new()),
    };
    let root = Container {
        symbol: None,
        group_kind: "statements",
        qualname: "",
        at_module_level: true,
    };
    let nodes = nest(&outline.symbols);
    cutter.region(&root, 1, last, &nodes, &[]);
    cutter.finish()
}

/// Line starts of a text, for exact slices of whole lines.
struct Lines<'a> {
    text: &'a str,
    /// Byte offset of each line's start, then the text's length.
    starts: Vec<usize>,
}

impl<'a> Lines<'a> {
    fn new(text: &'a str) -> Self {
        let mut starts = vec![0];
        starts.extend(memchr_newlines(text).map(|i| i + 1));
        if starts.last() != Some(&text.len()) {
            starts.push(text.len());
        }
        Lines { text, starts }
    }

    /// Number of lines (a last line without a line end counts).
    fn count(&self) -> u32 {
        u32::try_from(self.starts.len().saturating_sub(1)).unwrap_or(u32::MAX)
    }

    /// Lines `start..=end` (1-based), line ends kept.
    fn slice(&self, start: u32, end: u32) -> &'a str {
        let (start, end) = (start as usize, end as usize);
        let from = self
            .starts
            .get(start - 1)
            .copied()
            .unwrap_or(self.text.len());
        let to = self.starts.get(end).copied().unwrap_or(self.text.len());
        self.text.get(from..to.max(from)).unwrap_or("")
    }

    fn line(&self, line: u32) -> &'a str {
        self.slice(line, line)
    }
}

/// Offsets of the line ends of `text`, as [`crate::count_lines`] counts
/// them: every `\n`, and every `\r` not followed by `\n`.
fn memchr_newlines(text: &str) -> impl Iterator<Item = usize> + '_ {
    let bytes = text.as_bytes();
    memchr::memchr2_iter(b'\n', b'\r', bytes)
        .filter(move |&i| bytes[i] == b'\n' || bytes.get(i + 1) != Some(&b'\n'))
}

/// A symbol with the symbols inside its lines: its children, and any
/// later sibling whose lines lie within its own (a function the outline
/// lists beside the `var Lib = (() => { … })()` holding it).
struct Node<'s> {
    symbol: &'s Symbol,
    children: Vec<Node<'s>>,
}

impl<'s> Node<'s> {
    /// Whether `other`'s lines are inside this symbol's. Two symbols of
    /// one same single line (`function a(){…};function b(){…}`, minified
    /// code) are side by side, not one inside the other: lines cannot tell.
    fn contains(&self, other: &Symbol) -> bool {
        let (s, o) = (self.symbol, other);
        s.start_line <= o.start_line
            && o.end_line <= s.end_line
            && !(s.start_line == s.end_line && o.start_line == s.start_line)
    }

    /// Puts `node` under the innermost descendant holding it.
    fn adopt(&mut self, node: Node<'s>) {
        match self.children.iter_mut().find(|c| c.contains(node.symbol)) {
            Some(holder) => holder.adopt(node),
            None => {
                let at = self
                    .children
                    .partition_point(|c| c.symbol.start_line <= node.symbol.start_line);
                self.children.insert(at, node);
            }
        }
    }
}

/// The symbols as a tree nested by their lines (see [`Node`]), in source
/// order.
fn nest(symbols: &[Symbol]) -> Vec<Node<'_>> {
    let mut nodes: Vec<Node<'_>> = Vec::with_capacity(symbols.len());
    for symbol in symbols {
        let node = Node {
            symbol,
            children: nest(&symbol.children),
        };
        match nodes.iter_mut().rev().find(|n| n.contains(symbol)) {
            Some(holder) => holder.adopt(node),
            None => nodes.push(node),
        }
    }
    nodes
}

/// The symbol (or the module) whose lines are being cut.
struct Container<'s> {
    symbol: Option<&'s Symbol>,
    /// Kind of its group chunks: `statements` or `members`.
    group_kind: &'static str,
    qualname: &'s str,
    at_module_level: bool,
}

/// A chunk before its text is taken.
struct Span {
    start: u32,
    end: u32,
    id: Option<String>,
    kind: &'static str,
    part: ChunkPart,
    name: Option<String>,
    qualname: String,
    context: Vec<String>,
}

/// One piece of a region: lines that are not a definition, or a symbol.
enum Piece<'s> {
    /// Lines `start..=end` that are no symbol; at module level they may be
    /// cut at blank lines (and between lines in a paragraph over the budget).
    Lines(u32, u32),
    /// A symbol packed into a group and never cut: a binding or member of
    /// a grouped kind, or a control-flow block that fits the budget.
    Unit(u32, u32),
    /// A definition with its own chunk, from `start` (the comments above it
    /// included).
    Definition(&'s Node<'s>, u32),
}

struct Cutter<'a, 's> {
    outline: &'s FileOutline,
    lines: &'a Lines<'a>,
    max: usize,
    count: &'a dyn Fn(&str) -> usize,
    spans: Vec<Span>,
    /// Tokens of line ranges already counted (a definition is counted to
    /// see whether it fits, then again as its chunk): counting is most of
    /// the time a file takes.
    counted: std::cell::RefCell<std::collections::HashMap<(u32, u32), usize>>,
}

/// Kinds that never get a chunk of their own unless they have members: one
/// binding or member is too small to retrieve alone.
fn is_grouped(node: &Node<'_>) -> bool {
    node.children.is_empty()
        && matches!(
            node.symbol.kind,
            SymbolKind::Variable
                | SymbolKind::Constant
                | SymbolKind::Field
                | SymbolKind::Property
                | SymbolKind::EnumMember
                | SymbolKind::TypeAlias
        )
}

/// Whether a line is a comment (it joins the definition right below it).
fn is_comment(line: &str) -> bool {
    let t = line.trim_start();
    ["#", "//", "/*", "*", "*/"]
        .iter()
        .any(|p| t.starts_with(p))
        && !t.starts_with("#[")
}

/// Whether a line holds nothing worth a chunk: blank, or closing brackets.
fn is_trivial(line: &str) -> bool {
    line.trim()
        .chars()
        .all(|c| matches!(c, '}' | ')' | ']' | ';' | ','))
}

fn header(symbol: &Symbol) -> String {
    match (&symbol.signature, symbol.kind) {
        (_, SymbolKind::Block) => symbol.name.clone(),
        (Some(signature), _) => signature.clone(),
        (None, kind) => format!("{} {}", kind.as_str(), symbol.name),
    }
}

impl<'a, 's> Cutter<'a, 's> {
    fn tokens(&self, start: u32, end: u32) -> usize {
        if let Some(&n) = self.counted.borrow().get(&(start, end)) {
            return n;
        }
        let n = (self.count)(self.lines.slice(start, end));
        self.counted.borrow_mut().insert((start, end), n);
        n
    }

    fn fits(&self, start: u32, end: u32) -> bool {
        // Every token stands for at least one byte: a short text fits uncounted.
        self.lines.slice(start, end).len() <= self.max || self.tokens(start, end) <= self.max
    }

    /// Cuts lines `lo..=hi` of `container`, whose symbols in that range are
    /// `children` (in source order), under the enclosing headers `context`.
    fn region(
        &mut self,
        container: &Container<'s>,
        lo: u32,
        hi: u32,
        children: &'s [Node<'s>],
        context: &[String],
    ) {
        let pieces = self.pieces(lo, hi, children);
        let mut first = true;
        let mut i = 0;
        while i < pieces.len() {
            match pieces[i] {
                Piece::Definition(node, start) => {
                    self.definition(node, start, container, context);
                    i += 1;
                }
                Piece::Lines(..) | Piece::Unit(..) => {
                    let from = i;
                    while i < pieces.len() && !matches!(pieces[i], Piece::Definition(..)) {
                        i += 1;
                    }
                    let head = first && container.symbol.is_some();
                    self.group(container, &pieces[from..i], head, context);
                }
            }
            first = false;
        }
    }

    /// The region's pieces: definitions (with the comment lines right above
    /// them) and the runs of lines between them, each small member its own
    /// run so a group can be cut between them.
    fn pieces(&self, lo: u32, hi: u32, children: &'s [Node<'s>]) -> Vec<Piece<'s>> {
        let mut pieces = Vec::new();
        let mut cursor = lo;
        for node in children {
            let child = node.symbol;
            // Defensive: a child outside the region is left to the lines
            // around it.
            if child.end_line > hi || child.end_line < child.start_line {
                continue;
            }
            // A child starting on a line the one before it holds (several
            // definitions on one line, minified code) makes one unit with
            // it: a chunk of either alone would hold the other's lines.
            if child.start_line < cursor {
                let merged = match pieces.last() {
                    Some(&Piece::Definition(_, start) | &Piece::Unit(start, _)) => {
                        Some(Piece::Unit(start, child.end_line.max(cursor - 1)))
                    }
                    _ => None,
                };
                if let Some(unit) = merged {
                    pieces.pop();
                    pieces.push(unit);
                    cursor = cursor.max(child.end_line + 1);
                }
                continue;
            }
            if is_grouped(node)
                || (child.kind == SymbolKind::Block && self.fits(child.start_line, child.end_line))
            {
                if child.start_line > cursor {
                    pieces.push(Piece::Lines(cursor, child.start_line - 1));
                }
                pieces.push(Piece::Unit(child.start_line, child.end_line));
                cursor = child.end_line + 1;
                continue;
            }
            let mut start = self.comments_above(child.start_line, cursor);
            // A block comment (`/** … */`) one blank line above is still the
            // definition's documentation.
            if start == child.start_line
                && start >= cursor + 2
                && self.lines.line(start - 1).trim().is_empty()
                && self.lines.line(start - 2).trim_end().ends_with("*/")
            {
                let above = self.comments_above(start - 1, cursor);
                if above < start - 1 {
                    start = above;
                }
            }
            if start > cursor {
                pieces.push(Piece::Lines(cursor, start - 1));
            }
            pieces.push(Piece::Definition(node, start));
            cursor = child.end_line + 1;
        }
        if cursor <= hi {
            pieces.push(Piece::Lines(cursor, hi));
        }
        pieces
    }

    /// The first line of the comment lines right above line `line` (none
    /// above `floor`); `line` itself when there are none.
    fn comments_above(&self, line: u32, floor: u32) -> u32 {
        let mut start = line;
        while start > floor && {
            let above = self.lines.line(start - 1);
            !above.trim().is_empty() && is_comment(above)
        } {
            start -= 1;
        }
        start
    }

    /// One definition from `start` (its comments) to its last line: one
    /// chunk if it fits, else its members or blocks, else one chunk over the
    /// budget.
    fn definition(
        &mut self,
        node: &'s Node<'s>,
        mut start: u32,
        container: &Container<'s>,
        context: &[String],
    ) {
        let symbol = node.symbol;
        let whole = self.fits(start, symbol.end_line) || node.children.is_empty();
        // Comments that make it pass the budget, or that would be all of
        // its head (its first member starts on its first line), are a
        // chunk of their own.
        let first_member = node.children.first().map(|c| c.symbol.start_line);
        if start < symbol.start_line
            && ((!whole && first_member.is_some_and(|line| line <= symbol.start_line))
                || (!self.fits(start, symbol.end_line)
                    && self.fits(symbol.start_line, symbol.end_line)))
        {
            self.group(
                container,
                &[Piece::Lines(start, symbol.start_line - 1)],
                false,
                context,
            );
            start = symbol.start_line;
        }
        if self.fits(start, symbol.end_line) || node.children.is_empty() {
            self.spans.push(Span {
                start,
                end: symbol.end_line,
                id: Some(symbol.id.clone()),
                kind: symbol.kind.as_str(),
                part: ChunkPart::Whole,
                name: Some(symbol.name.clone()),
                qualname: symbol.qualname.clone(),
                context: context.to_vec(),
            });
            return;
        }
        let group_kind = match symbol.kind {
            SymbolKind::Function
            | SymbolKind::Method
            | SymbolKind::Constructor
            | SymbolKind::Getter
            | SymbolKind::Setter
            | SymbolKind::Block => "statements",
            _ => "members",
        };
        let inner = Container {
            symbol: Some(symbol),
            group_kind,
            qualname: &symbol.qualname,
            at_module_level: false,
        };
        let mut inner_context = context.to_vec();
        inner_context.push(header(symbol));
        self.region(
            &inner,
            start,
            symbol.end_line,
            &node.children,
            &inner_context,
        );
    }

    /// A module-level paragraph as units: whole when it fits, else line by
    /// line (a long run of comments or statements outside every definition).
    fn paragraph(&self, from: u32, to: u32, units: &mut Vec<(u32, u32)>) {
        if self.fits(from, to) {
            units.push((from, to));
        } else {
            units.extend((from..=to).map(|l| (l, l)));
        }
    }

    /// A run of group pieces, packed into chunks of at most the budget, cut
    /// only between pieces (and, at module level, at blank lines). The first
    /// chunk of a split symbol's first run is its head.
    fn group(
        &mut self,
        container: &Container<'s>,
        pieces: &[Piece<'s>],
        head: bool,
        context: &[String],
    ) {
        // Units that are never cut: each piece, and at module level the
        // paragraphs (runs ended by a blank line) of a piece.
        let mut units: Vec<(u32, u32)> = Vec::new();
        for piece in pieces {
            let (a, b, free) = match *piece {
                Piece::Lines(a, b) => (a, b, true),
                Piece::Unit(a, b) => (a, b, false),
                Piece::Definition(..) => continue,
            };
            if free && container.at_module_level {
                let mut from = a;
                for l in a..=b {
                    if l < b && self.lines.line(l).trim().is_empty() {
                        self.paragraph(from, l, &mut units);
                        from = l + 1;
                    }
                }
                self.paragraph(from, b, &mut units);
            } else {
                units.push((a, b));
            }
        }
        let groups = self.pack(&units);
        for (index, (a, b)) in groups.into_iter().enumerate() {
            let span = match container.symbol {
                Some(symbol) if head && index == 0 => Span {
                    start: a,
                    end: b,
                    id: Some(symbol.id.clone()),
                    kind: symbol.kind.as_str(),
                    part: ChunkPart::Head,
                    name: Some(symbol.name.clone()),
                    qualname: symbol.qualname.clone(),
                    context: context[..context.len().saturating_sub(1)].to_vec(),
                },
                _ => Span {
                    start: a,
                    end: b,
                    id: None,
                    kind: container.group_kind,
                    part: ChunkPart::Group,
                    name: None,
                    qualname: container.qualname.to_owned(),
                    context: context.to_vec(),
                },
            };
            self.spans.push(span);
        }
    }

    /// Packs consecutive units into groups of at most the budget, in order:
    /// a unit joins the group before it when the two fit together.
    ///
    /// Counting the growing group at each unit is quadratic in a long run
    /// of small units, so a unit joins without a count while the sum of the
    /// units' own counts stays under seven eighths of the budget (tokens of
    /// lines put together are at most about the sum of theirs); each group
    /// made so is counted once at the end, and one that turns out over the
    /// budget is packed again counting at every unit.
    fn pack(&self, units: &[(u32, u32)]) -> Vec<(u32, u32)> {
        let sure = self.max - self.max / 8;
        // (start, end, sum of the units' tokens, units, joined uncounted)
        let mut groups: Vec<(u32, u32, usize, usize, bool)> = Vec::new();
        for &(a, b) in units {
            let own = self.tokens(a, b);
            match groups.last_mut() {
                Some(group) if group.2 + own <= sure => {
                    *group = (group.0, b, group.2 + own, group.3 + 1, true);
                }
                Some(group) if self.fits(group.0, b) => {
                    *group = (group.0, b, group.2 + own, group.3 + 1, group.4);
                }
                _ => groups.push((a, b, own, 1, false)),
            }
        }
        let mut out = Vec::with_capacity(groups.len());
        let mut next = 0;
        for (a, b, _, n, estimated) in groups {
            let mine = &units[next..next + n];
            next += n;
            if estimated && !self.fits(a, b) {
                let mut exact: Vec<(u32, u32)> = Vec::new();
                for &(c, d) in mine {
                    match exact.last_mut() {
                        Some(group) if self.fits(group.0, d) => group.1 = d,
                        _ => exact.push((c, d)),
                    }
                }
                out.extend(exact);
            } else {
                out.push((a, b));
            }
        }
        out
    }

    /// Folds a small group inside a definition (at most an eighth of the
    /// budget) into the chunk before it when both fit, and each group of
    /// blank lines and closing brackets only into the chunk before it (or, first in the file or when that would pass the
    /// budget, the chunk after it), where that stays within the budget.
    fn fold_trivial(&mut self) {
        let spans = std::mem::take(&mut self.spans);
        let mut kept: Vec<Span> = Vec::with_capacity(spans.len());
        let mut pending: Option<Span> = None;
        for mut span in spans {
            // A few lines left after the last block of a split definition
            // (`return result`) go with the chunk before them.
            let tail = span.part == ChunkPart::Group
                && !span.qualname.is_empty()
                && self.tokens(span.start, span.end) <= self.max / 8;
            let trivial = span.part == ChunkPart::Group
                && (span.start..=span.end).all(|l| is_trivial(self.lines.line(l)));
            if tail
                && !trivial
                && pending.is_none()
                && let Some(last) = kept.last_mut()
                && last.end + 1 == span.start
                && self.fits(last.start, span.end)
            {
                last.end = span.end;
                // The chunk now holds lines of the tail's container (the
                // `return` after a `try`): it is a group of that container,
                // unless it is that container's own head.
                let own_head = last.part == ChunkPart::Head && last.qualname == span.qualname;
                if !own_head && (last.part != ChunkPart::Group || last.context != span.context) {
                    last.id = None;
                    last.kind = span.kind;
                    last.part = ChunkPart::Group;
                    last.name = None;
                    last.qualname = span.qualname;
                    last.context = span.context;
                }
                continue;
            }
            if trivial {
                if let Some(last) = kept.last_mut()
                    && pending.is_none()
                    && last.end + 1 == span.start
                    && (self.fits(last.start, span.end) || !self.fits(last.start, last.end))
                {
                    last.end = span.end;
                    continue;
                }
                match &mut pending {
                    Some(waiting) if waiting.end + 1 == span.start => waiting.end = span.end,
                    _ => {
                        kept.extend(pending.take());
                        pending = Some(span);
                    }
                }
                continue;
            }
            if let Some(waiting) = pending.take() {
                if waiting.end + 1 == span.start
                    && (self.fits(waiting.start, span.end) || !self.fits(span.start, span.end))
                {
                    span.start = waiting.start;
                } else {
                    kept.push(waiting);
                }
            }
            kept.push(span);
        }
        kept.extend(pending);
        self.spans = kept;
    }

    /// Folds the chunk after a small head (at most an eighth of the budget:
    /// `class Pickler:`, `if ready:`) into it while both fit, so a split
    /// definition's first lines come with its first member or block.
    fn fold_small_heads(&mut self) {
        let spans = std::mem::take(&mut self.spans);
        let mut kept: Vec<Span> = Vec::with_capacity(spans.len());
        let mut spans = spans.into_iter().peekable();
        while let Some(mut span) = spans.next() {
            while span.part == ChunkPart::Head && self.tokens(span.start, span.end) <= self.max / 8
            {
                match spans.peek() {
                    Some(next) if next.start == span.end + 1 && self.fits(span.start, next.end) => {
                        span.end = next.end;
                        spans.next();
                    }
                    _ => break,
                }
            }
            kept.push(span);
        }
        self.spans = kept;
    }

    fn finish(mut self) -> Vec<Chunk> {
        self.fold_trivial();
        self.fold_small_heads();
        let path = &self.outline.path;
        std::mem::take(&mut self.spans)
            .into_iter()
            .map(|span| {
                let text = self.lines.slice(span.start, span.end).to_owned();
                let tokens = self.tokens(span.start, span.end);
                Chunk {
                    id: span
                        .id
                        .unwrap_or_else(|| format!("{path}:{}-{}", span.start, span.end)),
                    path: path.clone(),
                    language: self.outline.language,
                    start_line: span.start,
                    end_line: span.end,
                    kind: span.kind,
                    part: span.part,
                    name: span.name,
                    qualname: span.qualname,
                    context: span.context,
                    text,
                    tokens,
                    over_budget: tokens > self.max,
                }
            })
            .collect()
    }
}
