//! Golden-file regression suite and integration tests (see `tests/*.rs`), and
//! the code they share with the mutation harness: the real-code corpora
//! ([`corpus`]) and the harness itself ([`mutation`], run by
//! `cargo run --release -p golden-tests --bin mutation`).

pub mod corpus;
pub mod mutation;
