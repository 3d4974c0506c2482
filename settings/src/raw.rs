//! The file's serde structs: what `toml` reads (each value with its span)
//! and what the JSON Schema is made from. Doc comments here are the
//! schema's descriptions.

use std::fmt;

use schemars::JsonSchema;
use serde::Deserialize;
use serde::de::{IgnoredAny, Visitor};
use toml::Spanned;

use crate::ContextKind;

/// A value with its byte span in the file.
pub(crate) type Sp<T> = Option<Spanned<T>>;

/// An integer of any size toml reads (beyond an i64 too), so an
/// out-of-range count is reported with its key and range rather than as
/// a type error.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Int {
    /// A negative integer.
    Negative(i128),
    /// An integer >= 0.
    NonNegative(u128),
}

impl fmt::Display for Int {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Int::Negative(n) => write!(f, "{n}"),
            Int::NonNegative(n) => write!(f, "{n}"),
        }
    }
}

impl<'de> Deserialize<'de> for Int {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Int, D::Error> {
        struct IntVisitor;

        impl Visitor<'_> for IntVisitor {
            type Value = Int;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an integer")
            }

            fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<Int, E> {
                self.visit_i128(i128::from(v))
            }

            fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<Int, E> {
                Ok(Int::NonNegative(u128::from(v)))
            }

            fn visit_i128<E: serde::de::Error>(self, v: i128) -> Result<Int, E> {
                Ok(match u128::try_from(v) {
                    Ok(n) => Int::NonNegative(n),
                    Err(_) => Int::Negative(v),
                })
            }

            fn visit_u128<E: serde::de::Error>(self, v: u128) -> Result<Int, E> {
                Ok(Int::NonNegative(v))
            }
        }

        deserializer.deserialize_any(IntVisitor)
    }
}

/// A table, and only a table: serde would fill a struct from an array by
/// position (`outline = [7]` set `block_threshold`; a new user's trial),
/// which TOML's meaning of a table forbids.
fn table<'de, D, T>(deserializer: D) -> Result<T, D::Error>
where
    D: serde::Deserializer<'de>,
    T: Deserialize<'de>,
{
    struct TableVisitor<T>(std::marker::PhantomData<T>);

    impl<'de, T: Deserialize<'de>> Visitor<'de> for TableVisitor<T> {
        type Value = T;

        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("a table")
        }

        fn visit_map<M: serde::de::MapAccess<'de>>(self, map: M) -> Result<T, M::Error> {
            T::deserialize(serde::de::value::MapAccessDeserializer::new(map))
        }
    }

    deserializer.deserialize_map(TableVisitor(std::marker::PhantomData))
}

/// [`table`] for a table that may be absent (absent: the field's default).
fn optional_table<'de, D, T>(deserializer: D) -> Result<Option<T>, D::Error>
where
    D: serde::Deserializer<'de>,
    T: Deserialize<'de>,
{
    table(deserializer).map(Some)
}

/// The settings file of ast-outline: `.ast-outline.toml` in the project
/// root, or else the `[tool.ast-outline]` table of the root's
/// `pyproject.toml`. Every key is optional; an unknown key is an error.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(title = "ast-outline settings")]
pub(crate) struct SettingsFile {
    /// Which files are walked and indexed.
    #[serde(default, deserialize_with = "table")]
    pub files: FilesTable,
    /// Which files are tests, and how tests are treated.
    #[serde(default, deserialize_with = "table")]
    pub tests: TestsTable,
    /// Outline rendering.
    #[serde(default, deserialize_with = "table")]
    pub outline: OutlineTable,
    /// Query answers (refs, callers, defs, context).
    #[serde(default, deserialize_with = "table")]
    pub queries: QueriesTable,
    /// `context` answers.
    #[serde(default, deserialize_with = "table")]
    pub context: ContextTable,
    /// Default token budgets per command; a `--max-tokens` flag wins.
    #[serde(default, deserialize_with = "table")]
    pub max_tokens: MaxTokensTable,
}

/// Which files are walked and indexed.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct FilesTable {
    /// Globs of root-relative paths; when non-empty, only files matching
    /// one are walked and indexed. Default: empty (every file).
    #[serde(default)]
    #[schemars(with = "Vec<String>", extend("default" = []))]
    pub include: Sp<Vec<Spanned<String>>>,
    /// Globs of root-relative paths left out. Default: empty.
    #[serde(default)]
    #[schemars(with = "Vec<String>", extend("default" = []))]
    pub exclude: Sp<Vec<Spanned<String>>>,
}

/// Which files are tests, and how tests are treated.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct TestsTable {
    /// Globs of test files; when given, they replace the default test
    /// globs (pytest's, Jest's and Cargo's conventions).
    #[serde(default)]
    #[schemars(with = "Vec<String>")]
    pub paths: Sp<Vec<Spanned<String>>>,
    /// Globs of test files added to the defaults (or to `paths`).
    #[serde(default)]
    #[schemars(with = "Vec<String>", extend("default" = []))]
    pub extend_paths: Sp<Vec<Spanned<String>>>,
    /// Whether test files are walked and indexed. Default: true.
    #[serde(default)]
    #[schemars(with = "bool", extend("default" = true))]
    pub index: Sp<bool>,
    /// Whether refs/callers/defs/context answers list hits in test files.
    /// Default: true.
    #[serde(default)]
    #[schemars(with = "bool", extend("default" = true))]
    pub in_queries: Sp<bool>,
}

/// Outline rendering.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct OutlineTable {
    /// Lines from which a block is outlined rather than shown whole.
    /// Default: 100.
    #[serde(default)]
    #[schemars(with = "u32", range(min = 1), extend("default" = 100))]
    pub block_threshold: Sp<Int>,
}

/// Query answers.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct QueriesTable {
    /// The most hits an answer lists. Default: no limit.
    #[serde(default)]
    #[schemars(with = "u64", range(min = 1))]
    pub max_results: Sp<Int>,
}

/// `context` answers.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct ContextTable {
    /// Whether context answers carry doc comments. Default: true.
    #[serde(default)]
    #[schemars(with = "bool", extend("default" = true))]
    pub docs: Sp<bool>,
    /// What a context answer gathers by default. Default: "definition".
    #[serde(default)]
    #[schemars(with = "ContextKind", extend("default" = "definition"))]
    pub kind: Sp<ContextKind>,
    /// The order of the relation groups in kind "all", higher first.
    #[serde(default, deserialize_with = "table")]
    pub weights: WeightsTable,
}

/// Weights of the relation groups in context kind "all": finite numbers
/// >= 0, higher first; 0 leaves the group out.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct WeightsTable {
    /// Callers of the symbol. Default: 3.
    #[serde(default)]
    #[schemars(with = "f64", range(min = 0.0), extend("default" = 3.0))]
    pub callers: Sp<f64>,
    /// References to the symbol. Default: 2.
    #[serde(default)]
    #[schemars(with = "f64", range(min = 0.0), extend("default" = 2.0))]
    pub references: Sp<f64>,
    /// Supertypes and subtypes of the symbol. Default: 1.
    #[serde(default)]
    #[schemars(with = "f64", range(min = 0.0), extend("default" = 1.0))]
    pub type_hierarchy: Sp<f64>,
}

/// Default token budgets: when a key is absent, the command's own default.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct MaxTokensTable {
    /// Token budget of `search` answers.
    #[serde(default)]
    #[schemars(with = "u64", range(min = 1))]
    pub search: Sp<Int>,
    /// Token budget of `context` answers.
    #[serde(default)]
    #[schemars(with = "u64", range(min = 1))]
    pub context: Sp<Int>,
    /// Token budget of `tests` answers.
    #[serde(default)]
    #[schemars(with = "u64", range(min = 1))]
    pub tests: Sp<Int>,
    /// Token budget of `impact` answers.
    #[serde(default)]
    #[schemars(with = "u64", range(min = 1))]
    pub impact: Sp<Int>,
}

/// A pyproject.toml: only `[tool.ast-outline]` is read.
#[derive(Debug, Default, Deserialize)]
pub(crate) struct Pyproject {
    #[serde(default, deserialize_with = "optional_table")]
    pub tool: Option<PyprojectTool>,
}

/// The `[tool]` table of a pyproject.toml.
#[derive(Debug, Default, Deserialize)]
pub(crate) struct PyprojectTool {
    #[serde(default, rename = "ast-outline", deserialize_with = "optional_table")]
    pub ast_outline: Option<SettingsFile>,
    /// `[tool.ast_outline]`: a misspelt table name, an error.
    #[serde(default, rename = "ast_outline")]
    pub misspelt: Option<Spanned<IgnoredAny>>,
}
