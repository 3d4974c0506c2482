//! Golden-file regression suite and integration tests (see `tests/*.rs`).
