//! Parsing one region of the file (the whole file, or one recovered chunk)
//! into symbols: lex with `proc_macro2`, empty the function bodies (see
//! [`crate::bodies`]), parse the items with `syn`, map them.

use std::cell::{Cell, RefCell};

use outline_core::{Import, OutlineOptions, Symbol};
use syn::parse::Parser;

use crate::bodies::{Bodies, strip_bodies};
use crate::items::Mapper;
use crate::source::{FileText, Region, lex};

/// What a region gave.
pub(crate) struct Parsed {
    pub symbols: Vec<Symbol>,
    pub imports: Vec<Import>,
    pub doc: Option<String>,
    /// Syntax errors inside function bodies (which the item parse skips), as
    /// (byte offset in the file, message).
    pub body_errors: Vec<(usize, String)>,
    /// Items left out (see [`crate::verbatim`]), as (byte offset in the file,
    /// message): warnings.
    pub warnings: Vec<(usize, String)>,
}

/// Why a region did not parse: where (byte offset in the file) and what.
pub(crate) struct RegionError {
    /// Byte offset in the file; `None` when the lexer rejected the text.
    pub offset: Option<usize>,
    pub message: String,
}

/// Parses `file.text[start..end]`, followed by `suffix` (closing delimiters
/// added by recovery, whose positions are clamped to `end`), as a Rust file.
pub(crate) fn parse_region(
    file: &FileText<'_>,
    start: usize,
    end: usize,
    suffix: &str,
    options: &OutlineOptions,
) -> Result<Parsed, RegionError> {
    let slice = file.text.get(start..end).unwrap_or_default();
    let owned;
    let text = if suffix.is_empty() {
        slice
    } else {
        owned = format!("{slice}{suffix}");
        &owned
    };
    let Some(stream) = lex(text) else {
        return Err(RegionError {
            offset: None,
            message: "unbalanced delimiters or an unterminated literal".to_owned(),
        });
    };
    let region = Region {
        file,
        base: start,
        limit: end,
    };
    let mut bodies = Bodies::default();
    let stripped = strip_bodies(stream, &mut bodies);
    let parsed =
        match (|input: syn::parse::ParseStream<'_>| input.parse::<syn::File>()).parse2(stripped) {
            Ok(parsed) => parsed,
            Err(error) => {
                let span = error.span().byte_range();
                // A call-site span (0..0) means "unexpected end of input".
                let offset = if span == (0..0) {
                    end.saturating_sub(1).max(start)
                } else {
                    (start + span.start).min(end)
                };
                return Err(RegionError {
                    offset: Some(offset),
                    message: error.to_string(),
                });
            }
        };
    let mapper = Mapper {
        region: &region,
        bodies: RefCell::new(bodies),
        options,
        body_errors: RefCell::new(Vec::new()),
        warnings: RefCell::new(Vec::new()),
        in_macro: Cell::new(false),
    };
    let symbols = mapper.items(&parsed.items, false);
    Ok(Parsed {
        symbols,
        imports: crate::imports::imports(&region, &parsed.items),
        doc: crate::attrs::inner_doc(&parsed.attrs),
        body_errors: mapper.body_errors.into_inner(),
        warnings: mapper.warnings.into_inner(),
    })
}
