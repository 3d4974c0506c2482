//! What every fuzz target checks on an outline, besides "no panic".

use ast_outline::FileOutline;

/// Checks the model's invariants on `outline` and runs both renderers
/// (`outline_core::invariants::violations`): lines 1-based and inclusive,
/// every symbol inside the file and inside its parent, every name and
/// signature one line. Panics (which libFuzzer reports as a crash) when one
/// does not hold.
pub fn check(outline: &FileOutline) {
    let violations = ast_outline::outline_core::invariants::violations(outline);
    assert!(violations.is_empty(), "{violations:#?}");
}
