//! The languages ast-outline knows, and how a file name maps to one.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A source language. Serialised in lowercase (`python`, `tsx`, …).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Language {
    /// Python (`.py`, `.pyi`, `.pyw`).
    Python,
    /// TypeScript (`.ts`, `.mts`, `.cts`, including `.d.ts`).
    Typescript,
    /// TypeScript with JSX (`.tsx`).
    Tsx,
    /// JavaScript (`.js`, `.mjs`, `.cjs`).
    Javascript,
    /// JavaScript with JSX (`.jsx`).
    Jsx,
    /// Rust (`.rs`).
    Rust,
}

impl Language {
    /// Every language, in a fixed order.
    pub const ALL: [Language; 6] = [
        Language::Python,
        Language::Typescript,
        Language::Tsx,
        Language::Javascript,
        Language::Jsx,
        Language::Rust,
    ];

    /// The language of a file, from its extension (case-sensitive, as on the
    /// file systems these languages come from). `None` for anything else.
    ///
    /// ```
    /// use outline_core::Language;
    /// assert_eq!(Language::from_path("src/app.py"), Some(Language::Python));
    /// assert_eq!(Language::from_path("types/index.d.ts"), Some(Language::Typescript));
    /// assert_eq!(Language::from_path("README.md"), None);
    /// ```
    pub fn from_path(path: &str) -> Option<Language> {
        let file_name = path.rsplit(['/', '\\']).next().unwrap_or(path);
        let (_, extension) = file_name.rsplit_once('.')?;
        Language::from_extension(extension)
    }

    /// The language for a file extension without the dot (`py`, `tsx`, …).
    pub fn from_extension(extension: &str) -> Option<Language> {
        Some(match extension {
            "py" | "pyi" | "pyw" => Language::Python,
            "ts" | "mts" | "cts" => Language::Typescript,
            "tsx" => Language::Tsx,
            "js" | "mjs" | "cjs" => Language::Javascript,
            "jsx" => Language::Jsx,
            "rs" => Language::Rust,
            _ => return None,
        })
    }

    /// The language's JSON spelling (`python`, `typescript`, …).
    pub fn as_str(self) -> &'static str {
        match self {
            Language::Python => "python",
            Language::Typescript => "typescript",
            Language::Tsx => "tsx",
            Language::Javascript => "javascript",
            Language::Jsx => "jsx",
            Language::Rust => "rust",
        }
    }

    /// The file extensions of this language, without the dot.
    pub fn extensions(self) -> &'static [&'static str] {
        match self {
            Language::Python => &["py", "pyi", "pyw"],
            Language::Typescript => &["ts", "mts", "cts"],
            Language::Tsx => &["tsx"],
            Language::Javascript => &["js", "mjs", "cjs"],
            Language::Jsx => &["jsx"],
            Language::Rust => &["rs"],
        }
    }
}

impl std::fmt::Display for Language {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn extensions_map_to_languages() {
        let cases = [
            ("a.py", Some(Language::Python)),
            ("stubs/a.pyi", Some(Language::Python)),
            ("x.mts", Some(Language::Typescript)),
            ("x.cjs", Some(Language::Javascript)),
            ("c.jsx", Some(Language::Jsx)),
            ("lib.rs", Some(Language::Rust)),
            ("dir.py/file", None),
            ("Makefile", None),
            (".py", Some(Language::Python)),
            ("a.PY", None),
        ];
        for (path, expected) in cases {
            assert_eq!(Language::from_path(path), expected, "{path}");
        }
    }

    #[test]
    fn extensions_round_trip() {
        for language in Language::ALL {
            for extension in language.extensions() {
                assert_eq!(Language::from_extension(extension), Some(language));
            }
        }
    }
}
