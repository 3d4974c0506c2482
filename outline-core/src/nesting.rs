//! Text nested too deep to be parsed: parsers, tree walks and the drop of a
//! tree recurse once per nesting level, so an adapter finds the bracket pairs
//! opened deeper than [`crate::OutlineOptions::max_nesting`] (with its own
//! lexical rules for strings and comments) and leaves their text out with
//! [`leave_out`] before parsing.

use std::ops::Range;

use crate::line_index::LineIndex;
use crate::model::{Diagnostic, Severity};
use crate::outline::Extracted;

/// The outline `extract` makes of `text` once the byte ranges in `deep` (as
/// for [`leave_out`]) are left out: `text` itself when `deep` is empty;
/// otherwise the blanked text, with one error diagnostic per region added and
/// `partial` set.
pub fn extract_shallow(
    text: &str,
    deep: &[Range<usize>],
    max_nesting: u32,
    extract: impl FnOnce(&str) -> Extracted,
) -> Extracted {
    if deep.is_empty() {
        return extract(text);
    }
    let (shallow, left_out) = leave_out(text, deep, max_nesting);
    let mut extracted = extract(&shallow);
    extracted.diagnostics.extend(left_out);
    extracted.partial = true;
    extracted
}

/// `text` with every byte range of `regions` (sorted, not overlapping, on
/// character boundaries) replaced by spaces, one space per character, line
/// breaks kept, so every line and every character column outside the regions
/// stays where it was; and one error diagnostic per region saying which lines
/// were left out. A region is usually the inside of a bracket pair opened at
/// depth `max_nesting + 1`, so the brackets that remain are balanced and the
/// text stays valid (`( )`, `{ }`).
pub fn leave_out(
    text: &str,
    regions: &[Range<usize>],
    max_nesting: u32,
) -> (String, Vec<Diagnostic>) {
    let index = LineIndex::new(text);
    let mut out = String::with_capacity(text.len());
    let mut diagnostics = Vec::with_capacity(regions.len());
    let mut done = 0;
    for region in regions {
        let (start, end) = (region.start.max(done), region.end.min(text.len()));
        let (Some(before), Some(inside)) = (text.get(done..start), text.get(start..end)) else {
            continue;
        };
        if inside.is_empty() {
            continue;
        }
        out.push_str(before);
        out.extend(
            inside
                .chars()
                .map(|c| if matches!(c, '\n' | '\r') { c } else { ' ' }),
        );
        done = end;
        let first = index.line(start);
        let last = index.end_line(start, end);
        diagnostics.push(Diagnostic {
            line: first,
            column: index.column(start),
            severity: Severity::Error,
            message: format!(
                "brackets nested more than {max_nesting} levels deep: the text inside them \
                 (lines {first}-{last}) was not parsed"
            ),
        });
    }
    out.push_str(text.get(done..).unwrap_or_default());
    (out, diagnostics)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn regions_become_spaces_and_lines_stay() {
        let text = "a = (((é\nb)))\nb = 1\n";
        let open = text.find("(é").unwrap_or(0);
        let close = text.find(')').unwrap_or(0);
        let (blanked, diagnostics) = leave_out(text, std::slice::from_ref(&(open + 1..close)), 2);
        assert_eq!(blanked, "a = ((( \n )))\nb = 1\n");
        let [d] = diagnostics.as_slice() else {
            panic!("one diagnostic: {diagnostics:?}");
        };
        assert_eq!((d.line, d.column), (1, 8));
        assert_eq!(
            d.message,
            "brackets nested more than 2 levels deep: the text inside them (lines 1-2) was not parsed"
        );
    }
}
