//! The facts in each `tests/fixtures/ts/*.expect.md` (shared cases from other
//! tools' bug reports, and our own), checked against our outline. The table
//! reader lives in `common/expect.rs`; this file holds the TypeScript/JavaScript
//! vocabulary of the tables.

mod common;

use common::expect::{self, Rules};

#[test]
fn typescript_cases_meet_their_expected_facts() {
    let rules = Rules::default();
    expect::check_language("ts", &rules);
}
