//! # lang-ts
//!
//! The TypeScript/JavaScript adapter of ast-outline (work in progress: see the
//! "TypeScript / JavaScript outline on swc" issue).

use outline_core::{Diagnostic, Extracted, Language, Outline, OutlineOptions, Severity};

/// The TypeScript/JavaScript outline adapter (`.ts`, `.mts`, `.cts`, `.tsx`,
/// `.js`, `.mjs`, `.cjs`, `.jsx`).
#[derive(Debug, Clone, Copy, Default)]
pub struct TypeScriptOutline;

impl Outline for TypeScriptOutline {
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
