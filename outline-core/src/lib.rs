//! # outline-core
//!
//! The language-neutral heart of ast-outline: the outline model ([`FileOutline`],
//! [`Symbol`]), the [`Outline`] trait that each language crate implements, symbol
//! ids and their resolution ([`id`]), the line index ([`LineIndex`]), the
//! control-flow pseudo-symbol policy ([`blocks`]), display filters ([`Filter`])
//! and the two renderers ([`render_text`], [`json_line`]).
//!
//! Architecture invariant: this crate knows no parser and does no I/O. It cannot
//! fail for I/O reasons, and everything here is a pure function of its inputs.
//!
//! Units: lines are 1-based and inclusive; columns are 1-based and count
//! characters (Unicode scalar values), not bytes.
//!
//! ```
//! use outline_core::{Extracted, Language, Symbol, SymbolKind, finish, render_text, TextOptions};
//!
//! let mut class = Symbol::new("Config", SymbolKind::Class, 1, 3);
//! class.children.push(Symbol::new("load", SymbolKind::Method, 2, 3));
//! let extracted = Extracted { symbols: vec![class], ..Extracted::default() };
//! let outline = finish("config.py", Language::Python, "class Config:\n def load(self):\n  pass\n", extracted);
//! assert_eq!(outline.symbols[0].children[0].id, "config.py:2:Config.load");
//! assert!(render_text(&outline, &TextOptions::default()).contains("L2-3 method load"));
//! ```

pub mod blocks;
pub mod chunks;
mod filter;
pub mod id;
pub mod invariants;
mod language;
mod line_index;
mod model;
pub mod nesting;
mod outline;
mod render;
pub mod schema;
pub mod text;
pub mod xref;

pub use filter::Filter;
pub use id::{
    Identity, Resolution, Selector, SelectorError, TargetError, resolve, split_target, symbol_id,
};
pub use language::Language;
pub use line_index::{BOM, LineIndex, count_lines, strip_bom};
pub use model::{
    Accessor, Diagnostic, FileOutline, Import, ImportedName, Modifier, NOT_OUTLINED, Parameter,
    ParameterKind, Severity, Symbol, SymbolKind, TypeParameter, TypeParameterKind,
};
pub use outline::{
    DEFAULT_MAX_NESTING, Extracted, MAX_DIAGNOSTICS, MAX_NESTING_CAP, MAX_SYMBOL_DEPTH, Outline,
    OutlineOptions, finish,
};
pub use render::{TextOptions, json_line, render_text};
