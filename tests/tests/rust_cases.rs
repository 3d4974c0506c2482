//! The facts in each `tests/fixtures/rust/*.expect.md` (shared cases from other
//! tools' bug reports, and our own), checked against our outline. The table
//! reader lives in `common/expect.rs`; this file holds the Rust
//! vocabulary of the tables.

mod common;

use common::expect::{self, Rules};

#[test]
fn rust_cases_meet_their_expected_facts() {
    let rules = Rules::default();
    expect::check_language("rust", &rules);
}
