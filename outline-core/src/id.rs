//! Symbol ids and how a target such as `PATH:LINE:QUALNAME` finds a symbol.
//!
//! An id is `PATH:START_LINE:QUALNAME` (`src/orders.py:195:Repo.find_by_id`):
//! the start line keeps overloads and same-named definitions apart, and the
//! qualname lets an id be found again after the file changed. A block's id uses
//! its own start line and its enclosing symbol's qualname.
//!
//! Resolution order for an id: the exact id → a unique symbol with the same
//! qualname (reported as moved) → otherwise all candidates (ambiguous) or, when
//! nothing matches, suggestions of the nearest names.

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
    if let Some(symbol) = all
        .iter()
        .find(|s| s.start_line == line && s.qualname == qualname)
    {
        return Resolution::Found(symbol);
    }
    let candidates: Vec<&Symbol> = all
        .iter()
        .filter(|s| s.qualname == qualname)
        .copied()
        .collect();
    let named: Vec<&Symbol> = candidates
        .iter()
        .filter(|s| s.kind != SymbolKind::Block)
        .copied()
        .collect();
    if named.len() > 1 {
        return Resolution::Ambiguous(named);
    }
    // One named symbol plus, possibly, the blocks inside it (which share its
    // qualname): the id was issued for whichever of them started nearest.
    match candidates
        .iter()
        .min_by_key(|s| s.start_line.abs_diff(line))
    {
        Some(symbol) => Resolution::Moved {
            symbol,
            from_line: line,
        },
        None => not_found(all, qualname),
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
    fn moved_ids_are_found_by_qualname_nearest_to_the_old_line() {
        check("4:Repo.find", &["moved r.py:2:Repo.find from 4"]);
        check("12:Repo.find", &["moved r.py:10:Repo.find from 12"]);
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
