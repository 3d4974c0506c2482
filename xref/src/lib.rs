//! # xref
//!
//! Cross-file resolution for ast-outline: given every file's definitions
//! (from its outline) and cross-reference facts
//! ([`outline_core::xref::Facts`]), resolve each reference to a symbol id, in
//! scope order: local binding → enclosing scopes → imports (followed through
//! re-exports) → same module → a unique definition in the project → otherwise
//! unresolved, with the candidate ids and a confidence. Every result says how
//! it was found ([`Via`]) and whether it is resolved or only a candidate
//! ([`Status`]).
//!
//! `self.m()` / `cls.m()` resolve through the enclosing class and its bases
//! (depth first, left to right: an approximation of the C3 order that agrees
//! with it whenever a name is defined on one path only); `x.m()` resolves when
//! `x`'s type is known from an annotation or a constructor call, else it is a
//! name-only candidate marked as such.
//!
//! Architecture invariant: pure functions of their inputs, no I/O (storage is
//! the `index` crate's).

mod modules;
mod resolve;
mod rust_modules;
mod source;
mod ts_modules;

use outline_core::SymbolKind;
use outline_core::xref::{Facts, Role};
use serde::{Deserialize, Serialize};

pub use modules::{absolute_module, python_module};
pub use resolve::{Resolver, resolve, resolve_with};
pub use rust_modules::{RustCrate, rust_module, rust_modules};
pub use source::Source;
pub use ts_modules::{
    SCRIPT_EXTENSIONS, TsConfig, TsPackage, is_script, join as join_path, resolve_package,
    resolve_specifier,
};

/// Project-wide settings that are not in the files' facts, read at the edge
/// (the `index` crate) and given to [`resolve_with`] /
/// [`Resolver::with_config`].
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ProjectConfig {
    /// Every `tsconfig.json`/`jsconfig.json` of the project.
    pub ts_configs: Vec<TsConfig>,
    /// Every `package.json` with a name in the project's TypeScript and
    /// JavaScript directories: the workspace packages.
    pub ts_packages: Vec<TsPackage>,
    /// Every Rust crate of the project (from its `Cargo.toml`): what
    /// [`rust_modules`] needs.
    pub rust_crates: Vec<RustCrate>,
}

/// Most candidate ids listed for one unresolved reference: when more
/// definitions share the name (`append`, `get`), none is listed and only the
/// confidence (1/n) tells how many there are.
pub const MAX_CANDIDATES: usize = 8;

/// The factor a [`Status::Dynamic`] resolution's confidence takes: what
/// the literal names is found with the confidence its static reading
/// would have (1.0 by the rules), times this, since only a run confirms
/// that the reference is made; so a consumer that keeps the results above
/// a confidence tells dynamic ones apart (0.5 for a dynamic reference
/// resolved by the rules, 0.3 for a project-unique name).
pub const DYNAMIC_CONFIDENCE: f32 = 0.5;

/// One definition of a file, as the outline gives it (blocks left out).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Definition {
    /// Symbol id `PATH:START_LINE:QUALNAME`.
    pub id: String,
    /// The name.
    pub name: String,
    /// `__qualname__`-style qualified name within the file.
    pub qualname: String,
    /// What it is.
    pub kind: SymbolKind,
    /// First line (1-based).
    pub start_line: u32,
}

impl Definition {
    /// The definitions of `outline` in source order: every symbol but the
    /// control-flow blocks, nested ones included.
    pub fn all_of(outline: &outline_core::FileOutline) -> Vec<Definition> {
        let mut definitions = Vec::new();
        outline.walk(|s| {
            if s.kind != SymbolKind::Block {
                definitions.push(Definition {
                    id: s.id.clone(),
                    name: s.name.clone(),
                    qualname: s.qualname.clone(),
                    kind: s.kind,
                    start_line: s.start_line,
                });
            }
        });
        definitions
    }
}

/// One file given to [`resolve`].
#[derive(Debug, Clone, PartialEq)]
pub struct FileInput {
    /// The path used in the ids (`/`-separated).
    pub path: String,
    /// Dotted module name (Python, from [`python_module`]); `None` when the
    /// file is not importable as a module. TypeScript/JavaScript files
    /// (told by their extension, [`is_script`]) leave it `None`: their
    /// imports name files by specifier ([`resolve_specifier`]).
    pub module: Option<String>,
    /// Whether the file is a package's `__init__`.
    pub is_package: bool,
    /// Its definitions in source order.
    pub definitions: Vec<Definition>,
    /// Its cross-reference facts.
    pub facts: Facts,
}

/// Whether a reference found its definition.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// Found by the language's rules: `target` is set.
    Resolved,
    /// Not found by the rules; `candidates` lists definitions with the same
    /// name (none when there are none).
    Candidate,
    /// A name imported from a module outside the project.
    External,
    /// A module of the project (`import pkg.mod`, `from pkg import mod`):
    /// `target` is the module's file path, not a symbol id.
    Module,
    /// Bound in the function (a parameter or local variable of unknown
    /// type): it names no definition.
    Local,
    /// Made at run time ([`outline_core::xref::Reference::dynamic`]:
    /// `getattr(obj, "name")`, `importlib.import_module("m")`,
    /// `handlers[action]()`): `target` is what the name would reach if
    /// written statically (a symbol id, or a module's file path), else
    /// `candidates`, else nothing; only a run confirms it. Also a Rust name
    /// no definition is written for that a project's own `macro_rules!`
    /// makes ([`Via::Macro`]): `target` is the macro's definition.
    Dynamic,
}

impl Status {
    /// The spelling in the index and output.
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Resolved => "resolved",
            Status::Candidate => "candidate",
            Status::External => "external",
            Status::Module => "module",
            Status::Local => "local",
            Status::Dynamic => "dynamic",
        }
    }
}

/// The rule that gave a result.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Via {
    /// A definition in the binding function or class scope (nested `def`,
    /// class member).
    Scope,
    /// An import, followed through re-exports.
    Import,
    /// A name bound at the module level: a definition of the same file,
    /// or a name a star import brings (`from m import *`).
    Module,
    /// The only definition with that name in the project (no import or
    /// binding names it).
    ProjectUnique,
    /// An attribute of a receiver whose type is known (`self`, `cls`,
    /// annotation, constructor call, module, class).
    Receiver,
    /// Only the name matched: the receiver's type is unknown.
    NameOnly,
    /// Only the name matched, the project defines the name once, and that
    /// definition is in the reference's file or in a file it imports
    /// (directly, or through a module it imports whole, as `import click`
    /// brings what `click/__init__.py` imports):
    /// `refs`/`callers` show it by default, labelled `candidate`, with
    /// confidence 0.2 (about one in five is right on the SCIP benchmark).
    NameImported,
    /// Nothing matched.
    None,
    /// Rust: no definition is written, but a macro invocation in item
    /// position of the project's own `macro_rules!` makes the name (passes
    /// it to a body that defines an item from a fragment, `fn $name`, or a
    /// body defines an item of that literal name): a [`Status::Dynamic`]
    /// result whose target is the `macro_rules!` definition.
    Macro,
}

impl Via {
    /// The spelling in the index and output.
    pub fn as_str(self) -> &'static str {
        match self {
            Via::Scope => "scope",
            Via::Import => "import",
            Via::Module => "module",
            Via::ProjectUnique => "project_unique",
            Via::Receiver => "receiver",
            Via::NameOnly => "name_only",
            Via::NameImported => "name_imported",
            Via::None => "none",
            Via::Macro => "macro",
        }
    }
}

/// The resolution of one reference.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Resolution {
    /// Index of the file in the input.
    pub file: usize,
    /// Index of the reference in that file's `facts.references`.
    pub reference: usize,
    /// The reference's role, with a call of a class turned into
    /// [`Role::Instantiate`].
    pub role: Role,
    /// Resolved or not.
    pub status: Status,
    /// The definition's id when resolved; the file path for
    /// [`Status::Module`]; either for [`Status::Dynamic`].
    pub target: Option<String>,
    /// Candidate ids when not resolved, the likely one first (the one
    /// definition of the name in the file or in a file it imports, when
    /// there is one); when more than [`MAX_CANDIDATES`] definitions share
    /// the name, only that likely one, or none.
    pub candidates: Vec<String>,
    /// 1.0 when resolved by the rules, 0.6 for a project-unique name; for
    /// a [`Via::NameImported`] candidate 0.2; for other candidates 1/n (n
    /// definitions share the name); 0 otherwise. A [`Status::Dynamic`]
    /// result has that confidence times [`DYNAMIC_CONFIDENCE`] (0.5).
    pub confidence: f32,
    /// The rule that gave it.
    pub via: Via,
}

/// A type relation between two definitions.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Relation {
    /// The subtype's id (the class that names a base).
    pub subtype: String,
    /// The supertype's id.
    pub supertype: String,
    /// `implements` when a class (or struct) names an interface (or trait):
    /// TypeScript `implements`, Rust `impl Trait for Type`; `inherits`
    /// otherwise (Python bases, TypeScript `extends`, Rust supertraits).
    pub kind: String,
}

/// Everything [`resolve`] found.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Resolved {
    /// One entry per reference of every file, except [`Status::Local`] ones,
    /// in input order.
    pub references: Vec<Resolution>,
    /// Relations between definitions, in input order.
    pub relations: Vec<Relation>,
}
