//! Cross-reference facts of one file: the language-neutral input of the
//! cross-file index (resolution lives in the `xref` crate, storage in `index`).
//!
//! An adapter extracts [`Facts`] from the same parse as the outline, only when
//! asked ([`crate::Outline::outline_with_facts`]); the outline itself is not
//! changed by it. Facts are syntactic: what a name is, where it is used and in
//! which scope, never what it resolves to.
//!
//! Units: lines are 1-based; columns are 1-based and count characters; an end
//! column is exclusive (the column just after the name's last character).
//!
//! Scopes are named by [`ScopeKey`]: the `__qualname__` and start line of the
//! enclosing definition, the same two values the outline's symbol id is built
//! from ([`ScopeKey::id`]), so a fact's scope is a symbol of the outline.

use serde::{Deserialize, Serialize};

use crate::id::symbol_id;

/// Version of the [`Facts`] shape and extraction; stored facts of another
/// version are re-extracted, never misread. 3: TypeScript/JavaScript and
/// Rust facts are extracted (version 2 stored them as unsupported); a Rust
/// `impl` self type's [`Role::TypeUse`] reference carries the impl block as
/// its `subtype`. 4: [`Receiver::Call`], [`Facts::attributes`] (Python
/// `self.x = …`, TypeScript typed class properties), [`Facts::returns`],
/// [`TypeOf::Alias`]. 5: [`Facts::modules`] (Rust `mod x;` declarations
/// with their `#[path]` attributes). 6: [`TypeOf::Elements`],
/// [`TypeOf::ElementOf`], [`Attribute::elements`]; import-role references at
/// the imported name's own line; Python string annotations and TypeScript
/// type-parameter constraints and `this` parameters give references. 7:
/// Rust items written inside brace-delimited macro invocations (`cfg_rt! {
/// … }`) give their facts (`use`, `mod`, bodies); the generic parameters of
/// Rust structs, enums, unions, type aliases and traits, and const
/// parameters, are bound names.
pub const FACTS_VERSION: u32 = 7;

/// A definition that makes a scope (function, method, class): its qualname
/// (`__qualname__` without `<locals>`, as in the outline) and its start line
/// (1-based; the first decorator's line when decorated).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct ScopeKey {
    /// Qualified name of the definition, e.g. `User.save`.
    pub qualname: String,
    /// Its first line, as in the outline's `start_line`.
    pub start_line: u32,
}

impl ScopeKey {
    /// The outline symbol id of this definition in the file `path`
    /// (`PATH:START_LINE:QUALNAME`, see [`crate::symbol_id`]).
    pub fn id(&self, path: &str) -> String {
        symbol_id(path, self.start_line, &self.qualname)
    }
}

/// How a name is used at a reference.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    /// Called: `f()`, `obj.m()`. Resolution turns a call of a class into
    /// [`Role::Instantiate`].
    Call,
    /// Called and known to name a class: `User()`, `new User()`.
    Instantiate,
    /// Used as a type: annotations, return types.
    TypeUse,
    /// Named as a base class, extended or implemented type.
    Inherit,
    /// Named in an import statement (`from m import User`).
    Import,
    /// Read as an attribute of something: `a.b` (the `b`).
    Attribute,
    /// Any other read of a bare name (passed, assigned, compared: Python's
    /// `Load` context).
    Read,
}

impl Role {
    /// The role's spelling in the index and output (`type_use`, …).
    pub fn as_str(self) -> &'static str {
        match self {
            Role::Call => "call",
            Role::Instantiate => "instantiate",
            Role::TypeUse => "type_use",
            Role::Inherit => "inherit",
            Role::Import => "import",
            Role::Attribute => "attribute",
            Role::Read => "read",
        }
    }
}

/// Longest receiver chain kept as a [`Receiver::Path`] (parts before the
/// name); a longer one is a [`Receiver::Expression`]. Keeps extraction
/// linear on generated chains of thousands of links (`a.a.a…`), which
/// otherwise cost quadratic time and memory; real code stays far below it.
pub const MAX_RECEIVER_PARTS: usize = 32;

/// What a referenced name is reached through.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Receiver {
    /// A bare name looked up in scope: `User`.
    Bare,
    /// An attribute of a dotted chain of names: `self.save` has `["self"]`,
    /// `a.b.c` has `["a", "b"]` for `c`.
    Path(Vec<String>),
    /// An attribute of an expression that is not a dotted name
    /// (`items[0].save`, `f()()`): only a name-only match is possible.
    Expression,
    /// An attribute of the result of calling a dotted chain of names:
    /// `User().save` has `["User"]`, `m.make(x).run` has `["m", "make"]`
    /// (the call's result is an instance of the class called, or of the
    /// function's declared return type, [`Facts::returns`]).
    Call(Vec<String>),
}

/// One use of a name.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Reference {
    /// The name used (the last part of a dotted chain).
    pub name: String,
    /// What it is reached through.
    pub receiver: Receiver,
    /// How it is used.
    pub role: Role,
    /// Line of the name (1-based).
    pub line: u32,
    /// Column of the name's first character (1-based, characters).
    pub column: u32,
    /// Column just after the name's last character (1-based, characters,
    /// exclusive; on `line`).
    pub end_column: u32,
    /// The innermost definition whose body holds the reference (the caller),
    /// or `None` at module level. Decorators, default values, annotations of
    /// parameters and base classes belong to the scope around the definition.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scope: Option<ScopeKey>,
    /// Where the first name of the chain (the name itself when
    /// [`Receiver::Bare`], else the receiver's first name) is bound, by the
    /// language's scoping rules: `None` when not bound in any enclosing
    /// function or class scope (so it is a module-level name, an import at
    /// module level or a builtin), else the definition whose scope binds it
    /// (a parameter, assignment, loop variable, nested `def`, local import…).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub binding: Option<ScopeKey>,
    /// For [`Role::Inherit`]: the class whose base (or implemented type) this
    /// is (for Rust's `impl Trait for Type`, the impl block). For
    /// [`Role::TypeUse`] of a Rust impl's self type: the impl block.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subtype: Option<ScopeKey>,
}

/// One name bound by an import statement, in the scope that holds it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ImportBinding {
    /// The name bound in the importing scope: the alias, or for
    /// `import a.b` the first part (`a`).
    pub local: String,
    /// Module named, as written without the leading dots (`a.b`); empty for
    /// `from . import x`.
    pub module: String,
    /// Number of leading dots of a relative import (0 = absolute).
    pub level: u32,
    /// The imported name for `from m import name` (`*` for a star import);
    /// `None` for `import m` (the module itself is bound; with
    /// `import a.b` without alias, `local` is `a` and the package `a` is bound).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Line of the statement (1-based).
    pub line: u32,
    /// Function or class scope holding it; `None` at module level.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scope: Option<ScopeKey>,
}

/// What a local name's type is known to be.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TypeOf {
    /// A dotted name resolved in the scope of the binding: `x: User`,
    /// `x = models.User()`.
    Path(Vec<String>),
    /// An instance of the enclosing class given by its key: Python's `self`
    /// (first parameter of a method), TypeScript's `this`.
    Instance(ScopeKey),
    /// The enclosing class itself: Python's `cls` (first parameter of a
    /// `@classmethod`).
    Class(ScopeKey),
    /// Whatever the dotted name denotes, resolved in the scope of the
    /// binding: `cls = JSONEncoder` (the class itself, not an instance),
    /// `f = mod.func`.
    Alias(Vec<String>),
    /// A collection whose elements are instances of the type the dotted
    /// name denotes: `xs: list[User]`, `xs: User[]`, `Array<User>`,
    /// `Iterable[User]`.
    Elements(Vec<String>),
    /// An element of what the dotted name denotes (a collection of known
    /// element type): the target of `for x in xs`, a comprehension
    /// variable, `for (const x of xs)`, the first parameter of the callback
    /// of `xs.map(x => …)`.
    ElementOf(Vec<String>),
}

impl TypeOf {
    /// The dotted name this type is written with, when it is one
    /// ([`TypeOf::Instance`] and [`TypeOf::Class`] name a scope instead).
    pub fn path(&self) -> Option<&[String]> {
        match self {
            TypeOf::Path(path)
            | TypeOf::Alias(path)
            | TypeOf::Elements(path)
            | TypeOf::ElementOf(path) => Some(path),
            TypeOf::Instance(_) | TypeOf::Class(_) => None,
        }
    }
}

/// The type of a name bound in a scope, from an annotation, a constructor
/// call or the receiver convention.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LocalType {
    /// The scope binding the name (`None`: module level).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scope: Option<ScopeKey>,
    /// The name.
    pub name: String,
    /// Its type.
    pub type_of: TypeOf,
    /// Line of the binding (1-based).
    pub line: u32,
}

/// An attribute of a class's instances that the class body does not declare
/// as a symbol, or whose declared type is known: Python's `self.x = …` in a
/// method (the first assignment of each name per class), TypeScript's typed
/// class properties and constructor parameter properties.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Attribute {
    /// The class whose instances have it.
    pub class: ScopeKey,
    /// The attribute's name.
    pub name: String,
    /// Line of the name at its (first) assignment or declaration (1-based).
    pub line: u32,
    /// The scope the type is written in (the method holding `self.x = …`;
    /// for a declared property, the class).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scope: Option<ScopeKey>,
    /// Its type when known, as a dotted name resolved in `scope`: from an
    /// annotation, a constructor call (`self.x = User()`, `new User()`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub type_of: Option<Vec<String>>,
    /// Whether the attribute is a collection whose elements have type
    /// `type_of` (`self.users: list[User] = []`, `items: Item[]`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub elements: bool,
    /// Whether the name is a Python instance attribute (assigned through
    /// `self`): it then comes before a class attribute or method of the same
    /// name when looked up on an instance, as Python's attribute lookup does.
    #[serde(default)]
    pub instance: bool,
}

/// The declared return type of a function or method: `def f() -> User`,
/// `function f(): User`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReturnType {
    /// The function or method.
    pub function: ScopeKey,
    /// The type as a dotted name, resolved in the scope around the function.
    pub type_of: Vec<String>,
}

/// One module on the way from a file's own module to a module declared in
/// it ([`ModuleDecl`]): an inline `mod a { … }` block or the declared
/// module itself.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ModuleStep {
    /// The module's name (`a` of `mod a`).
    pub name: String,
    /// The value of its `#[path = "…"]` attribute, as written (a path
    /// relative to a directory, see the `xref` crate's `rust_modules`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
}

/// A Rust module declared without a body (`mod x;`, its source is another
/// file), outside any function. Line-free: it names files, not places.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ModuleDecl {
    /// The inline modules holding the declaration (outermost first), then
    /// the declared module: `mod a { #[path = "x.rs"] mod b; }` gives
    /// `[a, b (path x.rs)]`. Never empty.
    pub steps: Vec<ModuleStep>,
}

/// Everything an adapter extracted for resolution, for one file.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Facts {
    /// `false` when the adapter does not extract facts (yet) for this
    /// language: the file's symbols are known, its references are not.
    pub supported: bool,
    /// Uses of names in source order.
    pub references: Vec<Reference>,
    /// Names bound by imports, at any scope, in source order.
    pub imports: Vec<ImportBinding>,
    /// Known types of local names.
    pub types: Vec<LocalType>,
    /// Attributes of instances with a known type or assigned through `self`
    /// (see [`Attribute`]), in source order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub attributes: Vec<Attribute>,
    /// Declared return types of functions and methods, in source order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub returns: Vec<ReturnType>,
    /// Python's `__all__` when it is a literal list or tuple of strings.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exports: Option<Vec<String>>,
    /// Rust: the modules declared without a body (`mod x;`), in source
    /// order; they make the crate's module tree.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub modules: Vec<ModuleDecl>,
}
