//! Rust outline adapter (not implemented yet: see the "Rust outline on syn"
//! issue). The crate exists so the workspace layout is complete.
