//! TypeScript/JavaScript outline adapter (not implemented yet: see the
//! "TypeScript / JavaScript outline on swc" issue). The crate exists so the
//! workspace layout is complete.
