//! # lang-rust
//!
//! The Rust adapter of ast-outline (work in progress: see the
//! "Rust outline on syn" issue).

use outline_core::{Diagnostic, Extracted, Language, Outline, OutlineOptions, Severity};

/// The Rust outline adapter (`.rs`).
#[derive(Debug, Clone, Copy, Default)]
pub struct RustOutline;

impl Outline for RustOutline {
    fn extract(&self, _text: &str, _language: Language, _options: &OutlineOptions) -> Extracted {
        Extracted {
            diagnostics: vec![Diagnostic {
                line: 1,
                column: 1,
                severity: Severity::Error,
                message: "not implemented yet".to_owned(),
            }],
            partial: true,
            ..Extracted::default()
        }
    }
}
