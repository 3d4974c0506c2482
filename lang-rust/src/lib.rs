//! # lang-rust
//!
//! The Rust adapter of ast-outline: implements [`outline_core::Outline`] on
//! `syn` (with `proc-macro2`'s `span-locations`), so every item of a Rust file
//! — functions, structs, enums, unions, traits, impl blocks, inline modules,
//! consts, statics, type aliases, `macro_rules!`, extern blocks — is reported
//! with exact lines, its outer attributes, the first line of its doc comment,
//! and its members as children. `use` declarations are the file's imports.
//!
//! Function bodies are not built by `syn` unless needed (see the `bodies`
//! module), which makes the outline several times faster than
//! `syn::parse_file`. A file that `syn` rejects is split into top-level items
//! by a light scanner, each item is parsed alone, and the items that still
//! fail become diagnostics (see the `recovery` module).
//!
//! ```
//! use lang_rust::RustOutline;
//! use outline_core::{Language, Outline, OutlineOptions, SymbolKind};
//!
//! let source = "/// A point.\n#[derive(Debug)]\npub struct Point { x: f64 }\n\n\
//!               impl std::fmt::Display for Point {\n    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {\n        write!(f, \"{}\", self.x)\n    }\n}\n";
//! let outline = RustOutline.outline("point.rs", Language::Rust, source, &OutlineOptions::default());
//! let point = &outline.symbols[0];
//! assert_eq!((point.start_line, point.end_line, point.doc_start_line), (2, 3, Some(1)));
//! assert_eq!(point.decorators, ["#[derive(Debug)]"]);
//! let fmt = &outline.symbols[1].children[0];
//! assert_eq!(fmt.id, "point.rs:6:impl std::fmt::Display for Point.fmt");
//! assert_eq!(fmt.kind, SymbolKind::Method);
//! ```
//!
//! Architecture invariant: this crate only maps `syn`'s tree to the core
//! model; it does no I/O.

mod attrs;
mod bodies;
mod impls;
mod imports;
mod items;
mod macros;
mod parse;
mod recovery;
mod references;
mod signature;
mod source;
mod verbatim;

use outline_core::{Extracted, Language, Outline, OutlineOptions};

use crate::source::FileText;

/// Lexes `text` and parses its items with the function bodies and
/// initializers left out, as the outline does, without mapping anything;
/// returns the number of top-level items, or `None` when `syn` rejects the
/// file. For the benchmark (`examples/bench.rs`), which compares it with a
/// full `syn::parse_file`.
#[doc(hidden)]
pub fn parse_items_only(text: &str) -> Option<usize> {
    let stream = source::lex(text)?;
    let mut stash = bodies::Bodies::default();
    let stripped = bodies::strip_bodies(stream, &mut stash);
    let file: syn::File = syn::parse2(stripped).ok()?;
    drop(stash);
    proc_macro2::extra::invalidate_current_thread_spans();
    Some(file.items.len())
}

/// The Rust outline adapter (`.rs`).
#[derive(Debug, Clone, Copy, Default)]
pub struct RustOutline;

impl Outline for RustOutline {
    /// Delimiters and generic `<…>` nested deeper than
    /// [`OutlineOptions::max_nesting`] are left
    /// out (blanked, lines kept) before lexing, with an error diagnostic:
    /// `syn` and the walk recurse once per level.
    fn extract(&self, text: &str, _language: Language, options: &OutlineOptions) -> Extracted {
        let max = usize::try_from(options.max_nesting).unwrap_or(usize::MAX);
        let deep = recovery::scan_nesting(text, 0..text.len(), max).deep;
        outline_core::nesting::extract_shallow(text, &deep, options.max_nesting, |text| {
            extract_text(text, options)
        })
    }

    /// [`Outline::extract`] and the file's cross-reference facts (see
    /// `references.rs`: a second, whole parse with the bodies). A file
    /// nested deeper than [`OutlineOptions::max_nesting`] gets the facts of
    /// its text with the deep parts blanked.
    fn extract_with_facts(
        &self,
        text: &str,
        language: Language,
        options: &OutlineOptions,
    ) -> (Extracted, outline_core::xref::Facts) {
        let extracted = self.extract(text, language, options);
        let max = usize::try_from(options.max_nesting).unwrap_or(usize::MAX);
        let deep = recovery::scan_nesting(text, 0..text.len(), max).deep;
        let facts = if deep.is_empty() {
            references::facts(&FileText::new(text), &extracted.symbols)
        } else {
            let (blanked, _) = outline_core::nesting::leave_out(text, &deep, options.max_nesting);
            references::facts(&FileText::new(&blanked), &extracted.symbols)
        };
        (extracted, facts)
    }
}

/// The outline of `text`, parsed whole (or recovered item by item).
fn extract_text(text: &str, options: &OutlineOptions) -> Extracted {
    let file = FileText::new(text);
    let extracted = recovery::extract(&file, options);
    // proc_macro2 keeps every lexed text in a thread-local map for its
    // spans; drop it so a long run does not grow without bound.
    proc_macro2::extra::invalidate_current_thread_spans();
    extracted
}
