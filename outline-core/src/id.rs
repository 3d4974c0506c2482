//! Symbol ids and how a target such as `PATH:LINE:QUALNAME` finds a symbol.
//!
//! An id is `PATH:START_LINE:QUALNAME` (`src/orders.py:195:Repo.find_by_id`):
//! the start line keeps overloads and same-named definitions apart, and the
//! qualname lets an id be found again after the file changed. A block's id uses
//! its own start line and its enclosing symbol's qualname.
//!
//! Resolution order for an id: the exact id → among the symbols with the same
//! qualname, those of the kind the id can name (a block for an empty qualname;
//! otherwise named symbols, or blocks when no named symbol has it): a single
//! named symbol is reported as moved, a single block only suggested (a block
//! is known by its line alone); several, or both kinds (the id could be a
//! function or one of its blocks), are listed as candidates → when nothing
//! matches, suggestions of the nearest names. A different, larger symbol is
//! never picked silently.
//!
//! Knowing the outline an id was issued from makes it precise after edits:
//! [`Identity::of`] says what the id named there (kind, name, qualname and its
//! ordinal among symbols with that qualname and kind) and [`Identity::find`]
//! finds that same symbol in the new outline.

use crate::model::{FileOutline, Symbol, SymbolKind};

/// The id of the symbol `qualname` starting at `start_line` in `path`.
pub fn symbol_id(path: &str, start_line: u32, qualname: &str) -> String {
    format!("{path}:{start_line}:{qualname}")
}

/// What a target names inside a file: the part after `PATH:`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Selector {
    /// `LINE:QUALNAME`, the tail of a symbol id.
    Id {
        /// Start line the id was issued with (1-based).
        line: u32,
        /// Qualified name.
        qualname: String,
    },
    /// `START-END`, a line range (1-based, inclusive).
    Lines {
        /// First line.
        start: u32,
        /// Last line.
        end: u32,
    },
    /// `LINE`: the innermost symbol containing that line.
    Line(u32),
    /// `QUALNAME` (or a plain name, or a dotted suffix of a qualname).
    Qualname(String),
}

impl Selector {
    /// Parses the part of a target after `PATH:`.
    ///
    /// ```
    /// use outline_core::{Selector, SelectorError};
    /// assert_eq!(Selector::parse("12-30"), Ok(Selector::Lines { start: 12, end: 30 }));
    /// assert_eq!(
    ///     Selector::parse("195:Repo.find"),
    ///     Ok(Selector::Id { line: 195, qualname: "Repo.find".into() })
    /// );
    /// assert_eq!(Selector::parse("Repo.find"), Ok(Selector::Qualname("Repo.find".into())));
    /// assert_eq!(Selector::parse("9-2"), Err(SelectorError::Reversed { start: 9, end: 2 }));
    /// ```
    ///
    /// # Errors
    /// A [`SelectorError`] saying what is wrong: nothing given, line 0, a
    /// reversed range, a number too large, or digits and dashes that form no
    /// line or range.
    pub fn parse(text: &str) -> Result<Selector, SelectorError> {
        if text.is_empty() {
            return Err(SelectorError::Empty);
        }
        if let Some((line, qualname)) = text.split_once(':')
            && is_digits(line)
        {
            return Ok(Selector::Id {
                line: parse_line(line)?,
                qualname: qualname.to_owned(),
            });
        }
        if is_digits(text) {
            return Ok(Selector::Line(parse_line(text)?));
        }
        if let Some((start, end)) = text.split_once('-')
            && is_digits(start)
            && is_digits(end)
        {
            let (start, end) = (parse_line(start)?, parse_line(end)?);
            if start > end {
                return Err(SelectorError::Reversed { start, end });
            }
            return Ok(Selector::Lines { start, end });
        }
        // No name in any supported language is made of digits, `+` and `-`.
        if text
            .bytes()
            .all(|b| b.is_ascii_digit() || b == b'-' || b == b'+')
        {
            return Err(SelectorError::NotALine(text.to_owned()));
        }
        Ok(Selector::Qualname(text.to_owned()))
    }
}

/// Why the part of a target after `PATH:` is not a [`Selector`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SelectorError {
    /// Nothing after `PATH:`.
    Empty,
    /// Line 0: lines are 1-based.
    ZeroLine,
    /// `START-END` with `START > END`.
    Reversed {
        /// First line given.
        start: u32,
        /// Last line given.
        end: u32,
    },
    /// A line number that does not fit in 32 bits.
    TooLarge(String),
    /// Digits, `+` and `-` that are neither `LINE` nor `START-END`.
    NotALine(String),
}

impl std::fmt::Display for SelectorError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SelectorError::Empty => {
                f.write_str("nothing after the path: add :QUALNAME, :LINE:QUALNAME or :START-END")
            }
            SelectorError::ZeroLine => f.write_str("line 0: lines are 1-based"),
            SelectorError::Reversed { start, end } => {
                write!(
                    f,
                    "range {start}-{end} is reversed: START must not be after END"
                )
            }
            SelectorError::TooLarge(text) => write!(f, "line number {text} is too large"),
            SelectorError::NotALine(text) => write!(
                f,
                "`{text}` is not a line or a range: write LINE or START-END (1-based)"
            ),
        }
    }
}

impl std::error::Error for SelectorError {}

fn is_digits(text: &str) -> bool {
    !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit())
}

fn parse_line(digits: &str) -> Result<u32, SelectorError> {
    match digits.parse::<u32>() {
        Ok(0) => Err(SelectorError::ZeroLine),
        Ok(line) => Ok(line),
        Err(_) => Err(SelectorError::TooLarge(digits.to_owned())),
    }
}

/// Why a target `PATH:SELECTOR` could not be split.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TargetError {
    /// No prefix of the target ending before a `:` is a file.
    NoFile,
    /// `path` is a file, but what follows it is not a selector.
    Selector {
        /// The file part.
        path: String,
        /// What is wrong with the rest.
        error: SelectorError,
    },
}

/// Splits a target `PATH:SELECTOR` at the first `:` whose left side
/// `is_file` accepts and whose right side parses as a [`Selector`]. Paths may
/// themselves hold `:`, and Rust qualnames hold `::`, so every `:` is tried from
/// the left.
///
/// # Errors
/// [`TargetError::Selector`] when a file was found but what follows it is
/// malformed (the first such file), else [`TargetError::NoFile`].
pub fn split_target(
    target: &str,
    mut is_file: impl FnMut(&str) -> bool,
) -> Result<(&str, Selector), TargetError> {
    let mut malformed = None;
    for (i, _) in target.match_indices(':') {
        let (path, rest) = (&target[..i], &target[i + 1..]);
        if path.is_empty() || !is_file(path) {
            continue;
        }
        match Selector::parse(rest) {
            Ok(selector) => return Ok((path, selector)),
            Err(error) => {
                malformed.get_or_insert(TargetError::Selector {
                    path: path.to_owned(),
                    error,
                });
            }
        }
    }
    Err(malformed.unwrap_or(TargetError::NoFile))
}

/// The outcome of looking a selector up in an outline.
#[derive(Debug, Clone, PartialEq)]
pub enum Resolution<'a> {
    /// Exactly the symbol asked for.
    Found(&'a Symbol),
    /// The id's start line no longer matches (the file changed); the symbol was
    /// found again by its qualname.
    Moved {
        /// The symbol as it is now.
        symbol: &'a Symbol,
        /// The start line the id was issued with.
        from_line: u32,
    },
    /// Several symbols match; each is a candidate, in source order.
    Ambiguous(Vec<&'a Symbol>),
    /// Nothing matches; the nearest names, best first (possibly none).
    NotFound {
        /// Symbols whose names are closest to what was asked for.
        suggestions: Vec<&'a Symbol>,
    },
    /// A line range, not a symbol: the caller prints the lines.
    Lines {
        /// First line (1-based).
        start: u32,
        /// Last line (1-based, inclusive).
        end: u32,
    },
}

/// Looks `selector` up in `outline`. See the module docs for the order.
pub fn resolve<'a>(outline: &'a FileOutline, selector: &Selector) -> Resolution<'a> {
    let mut all = Vec::new();
    outline.walk(|s| all.push(s));
    match selector {
        Selector::Lines { start, end } => Resolution::Lines {
            start: *start,
            end: *end,
        },
        Selector::Line(line) => innermost_at(&outline.symbols, *line).map_or_else(
            || Resolution::NotFound {
                suggestions: Vec::new(),
            },
            Resolution::Found,
        ),
        Selector::Id { line, qualname } => resolve_id(&all, *line, qualname),
        Selector::Qualname(qualname) => resolve_qualname(&all, qualname),
    }
}

/// The deepest symbol whose lines contain `line`; among several equally deep
/// (one-line `x = 0; y = 0`), the first in source order.
fn innermost_at(symbols: &[Symbol], line: u32) -> Option<&Symbol> {
    let mut current = symbols
        .iter()
        .find(|s| s.start_line <= line && line <= s.end_line)?;
    while let Some(child) = current
        .children
        .iter()
        .find(|s| s.start_line <= line && line <= s.end_line)
    {
        current = child;
    }
    Some(current)
}

fn resolve_id<'a>(all: &[&'a Symbol], line: u32, qualname: &str) -> Resolution<'a> {
    let mut candidates: Vec<&Symbol> = Vec::new();
    for symbol in all.iter().filter(|s| s.qualname == qualname) {
        if symbol.start_line == line {
            return Resolution::Found(symbol);
        }
        candidates.push(symbol);
    }
    let (blocks, named): (Vec<&Symbol>, Vec<&Symbol>) =
        candidates.iter().partition(|s| s.kind == SymbolKind::Block);
    // Blocks add nothing to qualnames, so a function and its blocks share one:
    // pick a kind only when the id can name just that kind.
    let pool = if qualname.is_empty() || named.is_empty() {
        blocks
    } else if blocks.is_empty() {
        named
    } else {
        candidates
    };
    match pool.as_slice() {
        [] => not_found(all, qualname),
        // A block is known by its line alone (its qualname is its owner's):
        // one that does not start there is suggested, not taken.
        [block] if block.kind == SymbolKind::Block => Resolution::NotFound {
            suggestions: vec![block],
        },
        [symbol] => Resolution::Moved {
            symbol,
            from_line: line,
        },
        _ => Resolution::Ambiguous(pool),
    }
}

/// What an id named in the outline it was issued from, enough to find that
/// same symbol in a later outline of the file (after an edit moved it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Identity {
    /// Its kind.
    pub kind: SymbolKind,
    /// Its name (a block's label, such as `if chunk is None`).
    pub name: String,
    /// Its qualname (a block's is its enclosing symbol's; empty at module level).
    pub qualname: String,
    /// Its position (0-based) among the symbols with the same qualname and
    /// kind, in source order (overloads, accessors, a function's blocks).
    pub ordinal: usize,
    /// Whether it was the only symbol with its qualname, kind and name.
    pub unique: bool,
}

impl Identity {
    /// What the id `line:qualname` names in `outline`, the outline it was
    /// issued from; `None` when no symbol starts at `line` with `qualname`.
    pub fn of(outline: &FileOutline, line: u32, qualname: &str) -> Option<Identity> {
        let mut found: Option<&Symbol> = None;
        let mut same: Vec<&Symbol> = Vec::new();
        outline.walk(|s| {
            if s.qualname == qualname {
                same.push(s);
                if found.is_none() && s.start_line == line {
                    found = Some(s);
                }
            }
        });
        let symbol = found?;
        let ordinal = same
            .iter()
            .filter(|s| s.kind == symbol.kind)
            .position(|s| std::ptr::eq(*s, symbol))?;
        let unique = same
            .iter()
            .filter(|s| s.kind == symbol.kind && s.name == symbol.name)
            .count()
            == 1;
        Some(Identity {
            kind: symbol.kind,
            name: symbol.name.clone(),
            qualname: symbol.qualname.clone(),
            ordinal,
            unique,
        })
    }

    /// The same symbol in `outline`: the one with this qualname and kind at
    /// the same ordinal when its name matches too, else (when it was the only
    /// one with its name) the only one of this qualname, kind and name; `None`
    /// when it is gone (or cannot be told apart).
    pub fn find<'a>(&self, outline: &'a FileOutline) -> Option<&'a Symbol> {
        let mut same: Vec<&Symbol> = Vec::new();
        outline.walk(|s| {
            if s.kind == self.kind && s.qualname == self.qualname {
                same.push(s);
            }
        });
        if let Some(symbol) = same.get(self.ordinal)
            && symbol.name == self.name
        {
            return Some(symbol);
        }
        if !self.unique {
            return None;
        }
        let mut named = same.into_iter().filter(|s| s.name == self.name);
        match (named.next(), named.next()) {
            (Some(symbol), None) => Some(symbol),
            _ => None,
        }
    }

    /// `function py_scanstring`, `block `if x` in f`: what it is, for messages.
    pub fn describe(&self) -> String {
        if self.kind == SymbolKind::Block {
            let owner = if self.qualname.is_empty() {
                "module level"
            } else {
                &self.qualname
            };
            format!("block `{}` in {owner}", self.name)
        } else {
            let kind = self.kind.as_str();
            match self.qualname.strip_prefix(kind) {
                Some(rest) if rest.starts_with(' ') => self.qualname.clone(),
                _ => format!("{kind} {}", self.qualname),
            }
        }
    }
}

fn resolve_qualname<'a>(all: &[&'a Symbol], wanted: &str) -> Resolution<'a> {
    let named = || all.iter().filter(|s| s.kind != SymbolKind::Block).copied();
    let suffix = format!(".{wanted}");
    let tiers: [&dyn Fn(&Symbol) -> bool; 3] =
        [&|s| s.qualname == wanted, &|s| s.name == wanted, &|s| {
            s.qualname.ends_with(&suffix)
        }];
    for matches in tiers {
        let found: Vec<&Symbol> = named().filter(|s| matches(s)).collect();
        match found.len() {
            0 => continue,
            1 => return Resolution::Found(found[0]),
            _ => return Resolution::Ambiguous(found),
        }
    }
    not_found(all, wanted)
}

/// Most suggestions offered when nothing matches.
const MAX_SUGGESTIONS: usize = 5;

fn not_found<'a>(all: &[&'a Symbol], wanted: &str) -> Resolution<'a> {
    let wanted_name = wanted.rsplit('.').next().unwrap_or(wanted);
    let mut scored: Vec<(f64, &Symbol)> = all
        .iter()
        .filter(|s| s.kind != SymbolKind::Block)
        .map(|s| {
            let score = strsim::normalized_levenshtein(&s.qualname, wanted)
                .max(strsim::normalized_levenshtein(&s.name, wanted_name));
            (score, *s)
        })
        .filter(|(score, _)| *score > 0.6)
        .collect();
    scored.sort_by(|a, b| b.0.total_cmp(&a.0));
    Resolution::NotFound {
        suggestions: scored
            .into_iter()
            .map(|(_, s)| s)
            .take(MAX_SUGGESTIONS)
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::outline::{Extracted, finish};
    use crate::{Language, Symbol};

    fn outline() -> FileOutline {
        let mut class = Symbol::new("Repo", SymbolKind::Class, 1, 40);
        let mut find = Symbol::new("find", SymbolKind::Method, 2, 30);
        find.children
            .push(Symbol::new("for row in rows", SymbolKind::Block, 10, 20));
        class.children.push(find);
        class
            .children
            .push(Symbol::new("save", SymbolKind::Method, 31, 33));
        class
            .children
            .push(Symbol::new("save", SymbolKind::Method, 34, 36));
        let symbols = vec![class, Symbol::new("find", SymbolKind::Function, 41, 42)];
        let extracted = Extracted {
            symbols,
            ..Extracted::default()
        };
        finish("r.py", Language::Python, &"\n".repeat(42), extracted)
    }

    fn ids(resolution: Resolution<'_>) -> Vec<String> {
        match resolution {
            Resolution::Found(s) => vec![format!("found {}", s.id)],
            Resolution::Moved { symbol, from_line } => {
                vec![format!("moved {} from {from_line}", symbol.id)]
            }
            Resolution::Ambiguous(c) => c.iter().map(|s| format!("either {}", s.id)).collect(),
            Resolution::NotFound { suggestions } => suggestions
                .iter()
                .map(|s| format!("maybe {}", s.id))
                .collect(),
            Resolution::Lines { start, end } => vec![format!("lines {start}-{end}")],
        }
    }

    fn check(selector: &str, expected: &[&str]) {
        let outline = outline();
        let selector = Selector::parse(selector).expect("selector parses");
        assert_eq!(ids(resolve(&outline, &selector)), expected, "{selector:?}");
    }

    #[test]
    fn exact_ids_are_found() {
        check("2:Repo.find", &["found r.py:2:Repo.find"]);
        check("10:Repo.find", &["found r.py:10:Repo.find"]);
    }

    #[test]
    fn moved_ids_are_found_by_qualname_when_one_symbol_of_the_kind_has_it() {
        check("45:find", &["moved r.py:41:find from 45"]);
        // A method and its block share a qualname: the id could name either,
        // so both are listed, never the larger one picked.
        check(
            "12:Repo.find",
            &["either r.py:2:Repo.find", "either r.py:10:Repo.find"],
        );
        check(
            "4:Repo.find",
            &["either r.py:2:Repo.find", "either r.py:10:Repo.find"],
        );
    }

    /// `json/decoder.py`'s shape: a module-level `try` block and a function
    /// with blocks.
    fn module_outline(lead: u32) -> FileOutline {
        let mut try_block = Symbol::new("try", SymbolKind::Block, lead + 6, lead + 9);
        try_block.qualname = String::new();
        let mut function =
            Symbol::new("py_scanstring", SymbolKind::Function, lead + 69, lead + 190);
        for (label, start, end) in [("while 1", 74, 130), ("if chunk is None", 84, 86)] {
            function.children.push(Symbol::new(
                label,
                SymbolKind::Block,
                lead + start,
                lead + end,
            ));
        }
        let extracted = Extracted {
            symbols: vec![try_block, function],
            ..Extracted::default()
        };
        finish(
            "dec.py",
            Language::Python,
            &"\n".repeat(lead as usize + 200),
            extracted,
        )
    }

    #[test]
    fn a_module_level_block_id_names_only_blocks() {
        let outline = module_outline(0);
        let selector = Selector::parse("42:").expect("selector");
        assert_eq!(ids(resolve(&outline, &selector)), ["maybe dec.py:6:"]);
    }

    #[test]
    fn an_identity_finds_the_same_block_after_an_edit() {
        let old = module_outline(0);
        let new = module_outline(5);
        let identity =
            Identity::of(&old, 84, "py_scanstring").expect("the id is in the old outline");
        assert_eq!(identity.kind, SymbolKind::Block);
        assert_eq!(identity.name, "if chunk is None");
        assert_eq!(identity.ordinal, 1);
        assert_eq!(
            identity.find(&new).map(|s| s.id.as_str()),
            Some("dec.py:89:py_scanstring")
        );
        let function = Identity::of(&old, 69, "py_scanstring").expect("function");
        assert_eq!(
            function.find(&new).map(|s| s.id.as_str()),
            Some("dec.py:74:py_scanstring")
        );
        // Without the old outline the id is ambiguous, never the function.
        let selector = Selector::parse("84:py_scanstring").expect("selector");
        assert_eq!(
            ids(resolve(&new, &selector)),
            [
                "either dec.py:74:py_scanstring",
                "either dec.py:79:py_scanstring",
                "either dec.py:89:py_scanstring"
            ]
        );
        assert_eq!(Identity::of(&old, 85, "py_scanstring"), None);
    }

    #[test]
    fn an_identity_that_is_gone_finds_nothing() {
        let old = outline();
        let identity = Identity::of(&old, 34, "Repo.save").expect("second save");
        assert_eq!(identity.ordinal, 1);
        let mut new = outline();
        new.symbols[0].children.pop();
        assert_eq!(identity.find(&new), None);
        assert_eq!(
            Identity::of(&old, 31, "Repo.save").and_then(|i| i.find(&new).map(|s| s.id.clone())),
            Some("r.py:31:Repo.save".to_owned())
        );
    }

    #[test]
    fn ambiguous_ids_list_every_candidate() {
        check(
            "30:Repo.save",
            &["either r.py:31:Repo.save", "either r.py:34:Repo.save"],
        );
    }

    #[test]
    fn qualnames_names_and_suffixes() {
        check("Repo.find", &["found r.py:2:Repo.find"]);
        check(
            "find",
            &["found r.py:41:find"], // the exact qualname `find` wins over the name
        );
        check(
            "save",
            &["either r.py:31:Repo.save", "either r.py:34:Repo.save"],
        );
    }

    #[test]
    fn missing_names_get_suggestions() {
        check(
            "Repo.fnd",
            &["maybe r.py:2:Repo.find", "maybe r.py:41:find"],
        );
        check("zzz", &[]);
    }

    #[test]
    fn lines_and_ranges() {
        check("15", &["found r.py:10:Repo.find"]);
        check("5-9", &["lines 5-9"]);
    }

    #[test]
    fn malformed_selectors_say_what_is_wrong() {
        assert_eq!(Selector::parse("0-3"), Err(SelectorError::ZeroLine));
        assert_eq!(Selector::parse("0"), Err(SelectorError::ZeroLine));
        assert_eq!(Selector::parse("0:f"), Err(SelectorError::ZeroLine));
        assert_eq!(
            Selector::parse("9-2"),
            Err(SelectorError::Reversed { start: 9, end: 2 })
        );
        assert_eq!(Selector::parse(""), Err(SelectorError::Empty));
        let huge = "99999999999999999999";
        assert_eq!(
            Selector::parse(huge),
            Err(SelectorError::TooLarge(huge.into()))
        );
        for text in ["-3", "3-", "+3", "1--2", "-"] {
            assert_eq!(
                Selector::parse(text),
                Err(SelectorError::NotALine(text.into())),
                "{text}"
            );
        }
        assert_eq!(
            Selector::parse("12:"),
            Ok(Selector::Id {
                line: 12,
                qualname: String::new()
            })
        );
    }

    #[test]
    fn targets_split_at_the_first_file_prefix() {
        let files = ["src/a.rs", "we:ird.py"];
        let is_file = |p: &str| files.contains(&p);
        assert_eq!(
            split_target("src/a.rs:7:impl fmt::Display for A.fmt", is_file),
            Ok((
                "src/a.rs",
                Selector::Id {
                    line: 7,
                    qualname: "impl fmt::Display for A.fmt".into()
                }
            ))
        );
        assert_eq!(
            split_target("we:ird.py:3-4", is_file),
            Ok(("we:ird.py", Selector::Lines { start: 3, end: 4 }))
        );
        assert_eq!(
            split_target("missing.py:f", is_file),
            Err(TargetError::NoFile)
        );
        assert_eq!(
            split_target("src/a.rs:5-2", is_file),
            Err(TargetError::Selector {
                path: "src/a.rs".into(),
                error: SelectorError::Reversed { start: 5, end: 2 }
            })
        );
    }
}
