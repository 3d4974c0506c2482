//! The language-neutral outline model: one [`FileOutline`] per source file, holding a
//! tree of [`Symbol`]s.
//!
//! Every type here serialises to the JSON described in `CONTRACT.md` (one
//! [`FileOutline`] object per line of `--format json` output) and derives a JSON
//! Schema (see [`crate::schema`]).
//!
//! Units used throughout:
//! - **lines** are 1-based and inclusive; a line ends at `\n`, `\r\n` or a lone `\r`
//!   (CPython's rule), and a UTF-8 byte-order mark is not part of line 1;
//! - **columns** are 1-based and count Unicode scalar values (characters), not bytes.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::language::Language;

/// The outline of one source file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct FileOutline {
    /// The path as given on the command line, or the walked root joined with the
    /// path below it; always with `/` separators. It is the first part of every
    /// symbol id in this file.
    pub path: String,
    /// The language the file was parsed as.
    pub language: Language,
    /// Number of lines in the file (a final line without a line end counts; an
    /// empty file has 0 lines).
    pub line_count: u32,
    /// First line of the module docstring (Python), when there is one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub doc: Option<String>,
    /// Top-level symbols in source order, each with its children.
    pub symbols: Vec<Symbol>,
    /// Import statements at module level (including those inside module-level
    /// `if`/`try` blocks), in source order.
    #[serde(default)]
    pub imports: Vec<Import>,
    /// Syntax errors and other notes about this file, in source order. A
    /// file that could not be outlined at all (its parser crashed, ran out
    /// of time or memory) has no symbols and an error at 1:1 whose message
    /// starts with [`NOT_OUTLINED`] and says why.
    pub diagnostics: Vec<Diagnostic>,
    /// `true` when the parser had to recover from syntax errors: the symbols are
    /// what it could recover, and `diagnostics` says where it failed.
    pub partial: bool,
    /// How many diagnostics were left out of `diagnostics` (which keeps the
    /// first [`crate::MAX_DIAGNOSTICS`] and a warning counting the rest).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub omitted_diagnostics: u32,
}

/// How the message of the diagnostic starts that marks a file as not
/// outlined at all (see [`FileOutline::not_outlined`]); a program reading the
/// JSON can test for it.
pub const NOT_OUTLINED: &str = "not outlined: ";

fn is_zero(count: &u32) -> bool {
    *count == 0
}

/// One named definition (or a control-flow pseudo-symbol of kind
/// [`SymbolKind::Block`]) with its exact line range.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Symbol {
    /// Stable id `PATH:START_LINE:QUALNAME` (see [`crate::id`]).
    #[schemars(regex(pattern = r"^.+:[1-9][0-9]*:[^\r\n]*$"))]
    pub id: String,
    /// The name as written in the source; always a single line. For a
    /// [`SymbolKind::Block`] it is the block's header (`for item in batch`),
    /// whitespace-normalised and truncated.
    #[schemars(regex(pattern = r"^[^\r\n]*$"))]
    pub name: String,
    /// Qualified name: the names of the enclosing named symbols joined with `.`,
    /// following Python's `__qualname__` without `<locals>`. Blocks add nothing;
    /// a block's own qualname is that of the symbol enclosing it (empty at module
    /// level).
    #[schemars(regex(pattern = r"^[^\r\n]*$"))]
    pub qualname: String,
    /// What the symbol is.
    pub kind: SymbolKind,
    /// First line (1-based): the first decorator/attribute line if any, else the
    /// line where the definition begins. A preceding doc comment is not included
    /// (see `doc_start_line`).
    #[schemars(range(min = 1))]
    pub start_line: u32,
    /// Last line (1-based, inclusive): the line of the definition's last token.
    /// Comment lines after the last statement are not included.
    #[schemars(range(min = 1))]
    pub end_line: u32,
    /// Line (1-based) of the name token.
    #[schemars(range(min = 1))]
    pub name_line: u32,
    /// Column (1-based, in characters) of the name token's first character.
    #[schemars(range(min = 1))]
    pub name_column: u32,
    /// First line of a doc comment that precedes the symbol (`///`, `/** */`),
    /// when there is one. Python docstrings are inside the body and do not set it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub doc_start_line: Option<u32>,
    /// One-line declaration header, such as `async def fetch(url: str) -> bytes`
    /// or `class Crate[T: (int, str)](Base)`, built from the parsed parts (not
    /// copied from the source, so comments and line breaks never leak in). Long
    /// parts are truncated with `…`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signature: Option<String>,
    /// Decorators (Python, TypeScript) or outer attributes (Rust), in source
    /// order, each as the source text of the language's decorator node normalised
    /// to one line: Python gives the expression after `@` (as CPython's `ast`
    /// does), TypeScript includes the `@`, Rust the whole `#[...]`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub decorators: Vec<String>,
    /// Modifiers such as `async`, `static`, `abstract`, in a fixed order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub modifiers: Vec<Modifier>,
    /// Declared or conventional visibility: `public`, `private`, `protected`,
    /// Rust's `pub`, `pub(crate)`, `pub(super)`, `pub(in path)`. Python names
    /// starting with `_` (but not dunders) are `private` per PEP 8's "non-public".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub visibility: Option<String>,
    /// Accessor role, when the symbol is a property accessor: `getter`,
    /// `setter` or `deleter` (Python `@property`/`@x.setter`/`@x.deleter`,
    /// TypeScript `get`/`set`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub accessor: Option<Accessor>,
    /// Type parameters (PEP 695, TypeScript generics, Rust generics) in order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub type_parameters: Vec<TypeParameter>,
    /// Parameters of a function, method, constructor or lambda, in order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub parameters: Vec<Parameter>,
    /// Return annotation as source text normalised to one line.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub returns: Option<String>,
    /// Base classes / extended types, as source text, in order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub bases: Vec<String>,
    /// Python class keywords (`metaclass=ABCMeta`, `total=False`), in order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub keywords: Vec<String>,
    /// Type annotation of a variable, constant or field.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotation: Option<String>,
    /// Value of a variable, constant or field as one line of source text,
    /// truncated with `…` when long.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<String>,
    /// First line of the documentation (Python docstring after
    /// `inspect.cleandoc`, or the doc comment), when there is one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub doc: Option<String>,
    /// Nested symbols in source order.
    pub children: Vec<Symbol>,
}

/// What a symbol is. The words follow LSP's `SymbolKind` where one fits, and the
/// language references otherwise.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum SymbolKind {
    /// A class (Python `class`, TypeScript/JavaScript `class`).
    Class,
    /// A function that is not a member of a class, trait or impl; also a lambda
    /// or arrow function bound to a name.
    Function,
    /// A function defined directly in a class body (or trait/impl with a receiver).
    Method,
    /// A class constructor (TypeScript `constructor`).
    Constructor,
    /// A getter accessor (TypeScript `get x()`).
    Getter,
    /// A setter accessor (TypeScript `set x(v)`).
    Setter,
    /// A property of an object literal or interface.
    Property,
    /// A field of a class or struct (Python: an annotated class attribute).
    Field,
    /// A variable binding.
    Variable,
    /// A constant (Python: a module or class binding whose name is UPPER_CASE).
    Constant,
    /// An interface (TypeScript).
    Interface,
    /// A type alias (Python `type X = ...`, TypeScript `type`, Rust `type`).
    TypeAlias,
    /// An enum.
    Enum,
    /// A member of an enum.
    EnumMember,
    /// A struct (Rust).
    Struct,
    /// A union (Rust).
    Union,
    /// A trait (Rust).
    Trait,
    /// An impl block (Rust), named `impl Trait for Type` or `impl Type`.
    Impl,
    /// A module (Rust `mod`, TypeScript `namespace`/`module`/`declare module`).
    Module,
    /// A macro definition or a brace-delimited macro invocation (Rust).
    Macro,
    /// A pseudo-symbol: a control-flow block inside a long function, or a
    /// module-level statement group. Never part of a qualname.
    Block,
}

impl SymbolKind {
    /// The kind's JSON spelling (`type_alias`, `enum_member`, …).
    pub fn as_str(self) -> &'static str {
        match self {
            SymbolKind::Class => "class",
            SymbolKind::Function => "function",
            SymbolKind::Method => "method",
            SymbolKind::Constructor => "constructor",
            SymbolKind::Getter => "getter",
            SymbolKind::Setter => "setter",
            SymbolKind::Property => "property",
            SymbolKind::Field => "field",
            SymbolKind::Variable => "variable",
            SymbolKind::Constant => "constant",
            SymbolKind::Interface => "interface",
            SymbolKind::TypeAlias => "type_alias",
            SymbolKind::Enum => "enum",
            SymbolKind::EnumMember => "enum_member",
            SymbolKind::Struct => "struct",
            SymbolKind::Union => "union",
            SymbolKind::Trait => "trait",
            SymbolKind::Impl => "impl",
            SymbolKind::Module => "module",
            SymbolKind::Macro => "macro",
            SymbolKind::Block => "block",
        }
    }
}

/// A declaration modifier. Serialised in snake_case (`async`, `from_macro`…).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum Modifier {
    /// `export` (TypeScript/JavaScript).
    Export,
    /// `export default` (TypeScript/JavaScript).
    Default,
    /// `declare` / ambient (TypeScript).
    Declare,
    /// `abstract` (TypeScript), or Python `@abc.abstractmethod`.
    Abstract,
    /// `static` (TypeScript), or Python `@staticmethod`.
    Static,
    /// Python `@classmethod`.
    Classmethod,
    /// `override` (TypeScript), or Python `@typing.override` (PEP 698).
    Override,
    /// `readonly` (TypeScript).
    Readonly,
    /// `const` (TypeScript `const enum`, Rust `const fn`, `const trait`, `const impl`).
    Const,
    /// `unsafe` (Rust).
    Unsafe,
    /// `extern` (Rust `extern "C" fn`).
    Extern,
    /// `async` (Python `async def`, TypeScript/Rust `async`).
    Async,
    /// A generator: a Python function whose own body contains `yield` (unless
    /// `@contextlib.contextmanager`/`@asynccontextmanager` makes calling it
    /// return a context manager instead), JavaScript `function*`.
    Generator,
    /// One declaration of an overloaded callable (Python `@typing.overload`,
    /// TypeScript overload signatures).
    Overload,
    /// A declaration without a body (TypeScript overload signature, Rust trait
    /// method without default, `extern` item).
    Bodiless,
    /// A test function or module (Rust `#[test]`, `#[cfg(test)]`), or a test
    /// suite, case or hook (TypeScript/JavaScript `describe`, `it`, `test`,
    /// `beforeEach`… blocks).
    Test,
    /// Item found inside a macro invocation's body (never expanded).
    FromMacro,
    /// A `block` that is a call with function arguments, not control flow
    /// (TypeScript/JavaScript: `test('adds', …)`, `app.get('/x', …)`,
    /// `useEffect(…)`, an IIFE).
    Callback,
}

/// Accessor role of a property accessor.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Accessor {
    /// Reads the property (Python `@property`, TypeScript `get`).
    Getter,
    /// Writes the property (Python `@x.setter`, TypeScript `set`).
    Setter,
    /// Deletes the property (Python `@x.deleter`).
    Deleter,
}

/// One parameter of a callable.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Parameter {
    /// The parameter's name without `*`/`**` (`args` for `*args`). Rust patterns
    /// are given as source text.
    pub name: String,
    /// How arguments bind to it.
    pub kind: ParameterKind,
    /// Type annotation as one line of source text (`*Ts` for a PEP 646 starred
    /// annotation).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotation: Option<String>,
    /// Default value as one line of source text, truncated with `…` when long.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<String>,
    /// `true` for a TypeScript optional parameter (`name?: T`); a parameter
    /// with a default is not marked (its default says it may be left out).
    #[serde(default, skip_serializing_if = "is_false")]
    pub optional: bool,
}

fn is_false(flag: &bool) -> bool {
    !*flag
}

/// Parameter kinds, named as in the Python language reference (`inspect.Parameter`
/// kinds) plus the receiver.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ParameterKind {
    /// Before `/` in Python (PEP 570).
    PositionalOnly,
    /// An ordinary parameter.
    PositionalOrKeyword,
    /// `*args` (Python), `...rest` (TypeScript).
    Variadic,
    /// After `*` or `*args` in Python (PEP 3102).
    KeywordOnly,
    /// `**kwargs` (Python).
    VariadicKeyword,
    /// The receiver: Python's first parameter of a method that is not a
    /// `@staticmethod` (`self`, `cls`), Rust's `self`, `&self`, `&mut self`,
    /// `self: Pin<&mut Self>`.
    #[serde(rename = "self")]
    SelfParam,
}

/// A type parameter (PEP 695, TypeScript generics, Rust generics).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct TypeParameter {
    /// The name without sigils (`Ts` for `*Ts`, `'a` keeps its quote in Rust).
    pub name: String,
    /// What sort of type parameter it is.
    pub kind: TypeParameterKind,
    /// Bound or constraint as source text (`(int, str)`, `Clone + Send`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bound: Option<String>,
    /// Default as source text (PEP 696 `= int`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<String>,
}

/// Sorts of type parameters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum TypeParameterKind {
    /// A type variable (Python `T`, TypeScript `T`, Rust `T`).
    Type,
    /// A PEP 646 type variable tuple (`*Ts`).
    TypeVarTuple,
    /// A PEP 612 parameter specification (`**P`).
    ParamSpec,
    /// A Rust lifetime parameter (`'a`).
    Lifetime,
    /// A Rust const generic (`const N: usize`).
    Const,
}

/// One import statement (or, for `import a, b`, one imported module).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Import {
    /// First line of the statement (1-based).
    #[schemars(range(min = 1))]
    pub line: u32,
    /// Last line of the statement (1-based, inclusive).
    #[schemars(range(min = 1))]
    pub end_line: u32,
    /// The module: `a.b` for `import a.b` and `from a.b import c`; absent for
    /// `from . import x`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub module: Option<String>,
    /// Relative level: the number of leading dots of a `from` import (0 = absolute).
    #[serde(default)]
    pub level: u32,
    /// The alias of `import a.b as c`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub alias: Option<String>,
    /// The names of a `from` import (`*` for a star import); empty for `import m`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub names: Vec<ImportedName>,
}

/// One name in a `from m import name as alias`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ImportedName {
    /// The imported name.
    pub name: String,
    /// The local alias, when renamed with `as`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub alias: Option<String>,
}

/// A problem found while reading or parsing a file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Diagnostic {
    /// Line (1-based).
    #[schemars(range(min = 1))]
    pub line: u32,
    /// Column (1-based, in characters).
    #[schemars(range(min = 1))]
    pub column: u32,
    /// How serious it is.
    pub severity: Severity,
    /// Human-readable message, one line.
    #[schemars(regex(pattern = r"^[^\r\n]*$"))]
    pub message: String,
}

/// Diagnostic severity.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Severity {
    /// A syntax error: the outline around it is a recovery.
    Error,
    /// Something was read in a degraded way (for example invalid UTF-8 decoded
    /// lossily).
    Warning,
}

impl Symbol {
    /// This symbol with its name, kind, lines, id and qualname only, no
    /// children: no signature (but an impl's, which is its name: `impl
    /// Trait for Type`, so that it is not rendered as `impl impl …`), doc,
    /// decorators or other metadata. The line of a names-and-lines outline.
    pub fn brief(&self) -> Symbol {
        let mut brief = Symbol::new(&self.name, self.kind, self.start_line, self.end_line);
        brief.id.clone_from(&self.id);
        brief.qualname.clone_from(&self.qualname);
        if self.kind == SymbolKind::Impl {
            brief.signature.clone_from(&self.signature);
        }
        brief
    }

    /// A symbol with the given name, kind and lines, and every optional part empty.
    /// `id` and `qualname` are filled in by [`crate::finish`].
    pub fn new(name: impl Into<String>, kind: SymbolKind, start_line: u32, end_line: u32) -> Self {
        Symbol {
            id: String::new(),
            name: name.into(),
            qualname: String::new(),
            kind,
            start_line,
            end_line,
            name_line: start_line,
            name_column: 1,
            doc_start_line: None,
            signature: None,
            decorators: Vec::new(),
            modifiers: Vec::new(),
            visibility: None,
            accessor: None,
            type_parameters: Vec::new(),
            parameters: Vec::new(),
            returns: None,
            bases: Vec::new(),
            keywords: Vec::new(),
            annotation: None,
            value: None,
            doc: None,
            children: Vec::new(),
        }
    }

    /// Whether `modifier` is set.
    pub fn has(&self, modifier: Modifier) -> bool {
        self.modifiers.contains(&modifier)
    }

    /// Whether the symbol is non-public: visibility `private` or `protected`.
    pub fn is_private(&self) -> bool {
        matches!(self.visibility.as_deref(), Some("private" | "protected"))
    }

    /// Visits this symbol and all its descendants, depth first, in source order.
    pub fn walk<'a>(&'a self, visit: &mut impl FnMut(&'a Symbol)) {
        visit(self);
        for child in &self.children {
            child.walk(visit);
        }
    }
}

impl FileOutline {
    /// Visits every symbol of the file, depth first, in source order.
    pub fn walk<'a>(&'a self, mut visit: impl FnMut(&'a Symbol)) {
        for symbol in &self.symbols {
            symbol.walk(&mut visit);
        }
    }

    /// The symbols whose lines hold `line` (1-based), outermost first, each
    /// the child of the one before: the innermost is last. A preceding doc
    /// comment's lines (from [`Symbol::doc_start_line`]) belong to the
    /// symbol it documents. Among siblings that both hold the line (one-line
    /// `x = 0; y = 0`), the first in source order. Empty for a line outside
    /// every symbol (module level).
    pub fn enclosing(&self, line: u32) -> Vec<&Symbol> {
        let holds = |s: &&Symbol| {
            s.doc_start_line.unwrap_or(s.start_line).min(s.start_line) <= line && line <= s.end_line
        };
        let mut chain = Vec::new();
        let mut level = &self.symbols;
        while let Some(symbol) = level.iter().find(holds) {
            chain.push(symbol);
            level = &symbol.children;
        }
        chain
    }

    /// Why this file could not be outlined at all (the message of its
    /// diagnostic that starts with [`NOT_OUTLINED`], without that prefix),
    /// or `None` for an outline the parser made, partial or not.
    pub fn not_outlined(&self) -> Option<&str> {
        self.diagnostics
            .iter()
            .find_map(|diagnostic| diagnostic.message.strip_prefix(NOT_OUTLINED))
    }

    /// Number of syntax errors among the diagnostics.
    pub fn error_count(&self) -> usize {
        self.diagnostics
            .iter()
            .filter(|d| d.severity == Severity::Error)
            .count()
    }
}
