//! The control-flow pseudo-symbol policy.
//!
//! Inside a function, method or block whose body spans more than a threshold of
//! lines, each top-level statement of that body that is a control-flow block
//! (`if`/`elif`/`else` chain, `for`, `while`, `try`, `with`, `match`, and the
//! other languages' equivalents) becomes a child symbol of kind
//! [`SymbolKind::Block`](crate::SymbolKind::Block), named by its header and with
//! its exact lines, so an agent can read 120 lines instead of 500. The rule applies
//! again inside each such block that is itself longer than the threshold.
//! Definitions inside a block become the block's children; blocks never add to a
//! qualname.
//!
//! Module-level statement groups that are not definitions (`if __name__ ==
//! "__main__":`, `if TYPE_CHECKING:`, `try: import …`) are always blocks,
//! whatever their length: they hold definitions that are otherwise hard to place.

use crate::text::{MAX_BLOCK_NAME_CHARS, collapse_whitespace, truncate};

/// Default threshold, in lines, above which a body is split into blocks.
pub const DEFAULT_BLOCK_THRESHOLD: u32 = 100;

/// Whether a body spanning `first_line..=last_line` (1-based, inclusive) is long
/// enough to be split into blocks under `threshold`.
///
/// ```
/// use outline_core::blocks::splits_body;
/// assert!(!splits_body(10, 109, 100)); // exactly 100 lines
/// assert!(splits_body(10, 110, 100)); // 101 lines
/// ```
pub fn splits_body(first_line: u32, last_line: u32, threshold: u32) -> bool {
    last_line.saturating_sub(first_line).saturating_add(1) > threshold
}

/// The name of a block from its header text (`for item in batch`): whitespace
/// collapsed to single spaces, a trailing `:` or `{` dropped, and cut to
/// [`MAX_BLOCK_NAME_CHARS`] characters with `…`.
pub fn block_name(header: &str) -> String {
    let header = collapse_whitespace(header);
    let header = header.trim_end_matches([':', '{']).trim_end();
    truncate(header, MAX_BLOCK_NAME_CHARS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_blocks_by_their_header() {
        assert_eq!(block_name("for item in  batch:"), "for item in batch");
        assert_eq!(block_name("if x {"), "if x");
        let long = format!("if {}", "a and ".repeat(30));
        let name = block_name(&long);
        assert!(name.chars().count() <= MAX_BLOCK_NAME_CHARS);
        assert!(name.ends_with('…'));
    }
}
